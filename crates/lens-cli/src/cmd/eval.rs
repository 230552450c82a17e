//! `lens eval`: Retrieval metrics on labelled questions

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    pub labels: PathBuf,
    #[arg(long, default_value = "filter")]
    pub mode: String,
    /// Run name: rows go to RUNS_DIR/NAME/retrieval.jsonl
    #[arg(long)]
    pub name: Option<String>,
    #[arg(long, default_value = "runs")]
    pub runs_dir: PathBuf,
    /// Heading field boost (0 disables the heading field)
    #[arg(long)]
    pub heading_boost: Option<f32>,
    /// Weight of lexicon expansion terms (0 disables expansion)
    #[arg(long)]
    pub expansion_weight: Option<f32>,
    /// bm25, dense or hybrid (default: the library's setting)
    #[arg(long)]
    pub retriever: Option<String>,
    /// Set a retrieval knob, e.g. --set rank_depth=0 (repeatable; `--set help=1` lists them)
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// List N questions with no gold page in the top 3
    #[arg(long, default_value_t = 0)]
    pub misses: usize,
    /// Only questions whose label field KEY has VALUE (e.g. scanned_like=true); repeatable
    #[arg(long = "only")]
    pub only: Vec<String>,
    /// Candidate survival instead: BM25 top B reranked by the vision index, for each B
    #[arg(long, value_delimiter = ',')]
    pub survival: Vec<usize>,
    /// Only one half of the set (a or b, split by company as `eval-answers --half`: no filing
    /// in both halves): tune on a, report b
    #[arg(long)]
    pub half: Option<char>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { labels, mode, name, runs_dir, heading_boost, expansion_weight, retriever: rflag, set, misses, only, survival, half, json } = args;
    let lib = open(&cli.library)?;
    if !survival.is_empty() {
        retriever(&lib, Some("vision"), &cli.models, true)?;
        let s = lens_core::eval_survival::run(&lib, &eval::read_labels(&labels)?, &survival, mode.parse()?)?;
        if json {
            println!("{}", serde_json::to_string(&s)?);
        } else {
            println!("candidate survival ({}; {:?} mode): BM25 alone Recall@5 {:.3} nDCG@5 {:.3}", s.vision, s.mode, s.bm25_recall5, s.bm25_ndcg5);
            for b in &s.budgets {
                println!(
                    "  B={:<4} n={:<4} candidate recall {:.3}  reranked Recall@5 {:.3} nDCG@5 {:.3}  vs BM25 Recall@5 {:+.3} [{:+.3}, {:+.3}] {}",
                    b.budget, b.n, b.candidate_recall, b.recall5, b.ndcg5, b.vs_bm25.delta, b.vs_bm25.ci_low, b.vs_bm25.ci_high, b.vs_bm25.verdict
                );
            }
        }
        return Ok(());
    }
    let mode: Mode = mode.parse()?;
    let mut labels_v = eval::read_labels(&labels)?;
    if let Some(h) = half {
        if h != 'a' && h != 'b' {
            return Err(lens_core::LensError::BadInput(format!("--half is a or b (got {h})")).into());
        }
        labels_v = lens_core::eval_answers::half(labels_v, h);
    }
    for cond in &only {
        let (k, v) = cond.split_once('=').ok_or_else(|| lens_core::LensError::BadInput(format!("--only wants KEY=VALUE, got `{cond}`")))?;
        labels_v.retain(|l| {
            let field = serde_json::to_value(l).ok().and_then(|j| j.get(k).cloned());
            field.is_some_and(|f| f.as_str().map(str::to_string).unwrap_or_else(|| f.to_string()) == v)
        });
    }
    let mut opts = EvalOptions { mode, ..Default::default() };
    if let Some(b) = heading_boost {
        opts.params.heading_boost = b;
    }
    if let Some(w) = expansion_weight {
        opts.params.expansion_weight = w;
    }
    for kv in &set {
        let (k, v) = kv.split_once('=').ok_or_else(|| lens_core::LensError::BadInput(format!("--set wants NAME=VALUE, got `{kv}`")))?;
        opts.set(k, v)?;
    }
    // a hybrid run with the vision weight set to 0 is BM25 + dense: it needs the embedding model
    // (strictly: a missing one is an error, so the run is never mislabelled), not the vision one
    opts.retriever = if rflag.as_deref() == Some("hybrid") && opts.fusion.vision_weight == 0.0 {
        lens_ml::minilm::attach(&lib, &crate::settings(&lib, &cli.models)?, Retriever::Hybrid, true)?;
        Retriever::Hybrid
    } else {
        retriever(&lib, Some(rflag.as_deref().unwrap_or("bm25")), &cli.models, true)?
    };
    if opts.retriever == Retriever::Hybrid && (lib.vision().is_none() || opts.fusion.vision_weight == 0.0) {
        println!("hybrid: bm25 + dense (no vision model, or its weight 0)");
    }
    let (rows, summary) = eval::run(&lib, &labels_v, &opts)?;
    let name = name.unwrap_or_else(|| {
        format!("{}-{}", labels.parent().and_then(|p| p.file_name()).map(|s| s.to_string_lossy().to_string()).unwrap_or("eval".into()), mode_name(mode))
    });
    let dir = runs_dir.join(&name);
    eval::write_rows(&dir, &rows, &summary)?;
    print_summary(&summary, &name, &dir);
    if misses > 0 {
        print_misses(&rows, misses);
    }
    if json {
        println!("{}", serde_json::to_string(&summary)?);
    }
    Ok(())
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Global => "global",
        Mode::Filter => "filter",
        Mode::Oracle => "oracle",
    }
}

fn print_summary(s: &eval::Summary, name: &str, dir: &Path) {
    println!(
        "run {name} ({:?} mode): n={} (skipped {} without gold; {} with gold documents missing from the library)",
        s.mode, s.n, s.skipped_no_gold, s.missing_gold_docs
    );
    println!(
        "  nDCG@5 {:.3}  Recall@5 {:.3}  Hit@3 {:.3}  MRR {:.3}  latency p50 {:.1} ms  p95 {:.1} ms",
        s.ndcg5, s.recall5, s.hit3, s.mrr, s.p50_ms, s.p95_ms
    );
    for (title, groups) in [("query type", &s.by_query_type), ("content type", &s.by_content_type)] {
        if groups.len() <= 1 {
            continue;
        }
        println!("  by {title}:");
        for (k, g) in groups {
            println!("    {:<28} n={:<4} nDCG@5 {:.3}  Recall@5 {:.3}  Hit@3 {:.3}  MRR {:.3}", k, g.n, g.m.ndcg5, g.m.recall5, g.m.hit3, g.m.mrr);
        }
    }
    println!("  rows: {}", dir.join("retrieval.jsonl").display());
}

fn print_misses(rows: &[eval::Row], n: usize) {
    let misses: Vec<&eval::Row> = rows.iter().filter(|r| r.m.hit3 == 0.0).take(n).collect();
    println!("misses (no gold page in the top 3): {} shown", misses.len());
    for r in misses {
        println!("  {}: {}", r.id, r.query);
        println!("    gold:   {}", r.gold.keys().cloned().collect::<Vec<_>>().join(", "));
        println!("    ranked: {}", r.ranked.iter().take(5).cloned().collect::<Vec<_>>().join(", "));
    }
}
