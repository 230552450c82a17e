//! `lens eval-answers`: Score answers on labelled questions using the pages a retrieval run ranked

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    pub labels: PathBuf,
    /// Retrieval run (name under RUNS_DIR, or a retrieval.jsonl path)
    #[arg(long)]
    pub pages_from: String,
    #[arg(long, default_value = "extractive")]
    pub answerer: String,
    #[arg(long, default_value_t = 3)]
    pub k: usize,
    #[arg(long, default_value = "runs")]
    pub runs_dir: PathBuf,
    /// Only the first N questions
    #[arg(long)]
    pub limit: Option<usize>,
    /// Keep answers to off-topic questions instead of "Not found" (to measure the rule)
    #[arg(long)]
    pub keep_off_topic: bool,
    /// Only one half of the set (a or b, split by company: no filing is in both halves): tune
    /// on a, report b
    #[arg(long)]
    pub half: Option<char>,
    /// Print each question's reading, its answer, and the operands or lines used
    #[arg(long)]
    pub explain: bool,
    #[command(flatten)]
    pub model: ModelArgs,
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { labels, pages_from, answerer: kind, k, runs_dir, limit, keep_off_topic, half, explain, model, json } = args;
    let lib = open(&cli.library)?;
    let mut labels_v = eval::read_labels(&labels)?;
    if let Some(h) = half {
        if h != 'a' && h != 'b' {
            anyhow::bail!("--half is a or b (got {h})");
        }
        labels_v = lens_core::eval_answers::half(labels_v, h);
    }
    let p = if Path::new(&pages_from).is_file() { PathBuf::from(&pages_from) } else { runs_dir.join(&pages_from).join("retrieval.jsonl") };
    let rows = eval::read_rows(&p).with_context(|| format!("run `{pages_from}`"))?;
    let a = answerer(&lib, kind.parse()?, &model, &cli.models)?;
    let mut done = 0;
    let (arows, s) = lens_core::eval_answers::run(
        &lib,
        &labels_v,
        &rows,
        &lens_core::eval_answers::AnswerEvalOptions { k, limit, refuse_off_topic: !keep_off_topic },
        a.as_ref(),
        &mut |r| {
            done += 1;
            if explain {
                let mark = if r.right { "right" } else { "wrong" };
                println!("{} [{mark}, {}] {}", r.id, r.answer.support, r.query.chars().take(160).collect::<String>());
                println!("    read as: {}", r.reading);
                println!("    answer:  {}", r.answer.answer.chars().take(240).collect::<String>());
                println!("    want:    {}", r.reference.chars().take(240).collect::<String>());
                if let Some(c) = &r.answer.calculation {
                    for o in &c.operands {
                        println!("    operand: {} {} = {} ({}) on {}", o.name, o.period, o.value, o.unit, o.page);
                    }
                    if let Some(p) = &c.problem {
                        println!("    problem: {p}");
                    }
                } else if let Some(q) = &r.answer.quote {
                    println!("    line:    {}", q.chars().take(240).collect::<String>());
                }
                for (i, w) in r.answer.support_reasons.iter().enumerate() {
                    let id = r.answer.support_rules.get(i).map(String::as_str).unwrap_or("-");
                    println!("    weak:    [{id}] {w}");
                }
            }
            if r.answer.model.is_some() {
                eprintln!("  [{done}] {:.1}s {} -> {}", r.seconds, r.id, r.answer.answer.chars().take(100).collect::<String>());
            }
        },
    )?;
    let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
    let out: String = arows.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect();
    // rows per answerer and label set: another set's run never overwrites these
    let stem = labels.file_stem().map(|x| x.to_string_lossy().to_string()).unwrap_or_default();
    let f = if stem == "labels" { dir.join(format!("answers-{}.jsonl", s.answerer)) } else { dir.join(format!("answers-{}-{stem}.jsonl", s.answerer)) };
    std::fs::write(&f, out)?;
    let fmt = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into());
    println!("answers ({}) on pages from {pages_from}, top {k}: n={}", s.answerer, s.n);
    println!("  yes/no {} (n={})  number recall {} (n={})  token F1 {}", fmt(s.yes_no), s.yes_no_n, fmt(s.number_recall), s.number_recall_n, fmt(s.token_f1));
    println!(
        "  citation precision {}  evidence shown {}  evidence precision {} (n={})",
        fmt(s.citation_precision),
        fmt(s.evidence_shown),
        fmt(s.evidence_precision),
        s.evidence_precision_n
    );
    println!(
        "  not found {}  refusals on unanswerable {} (n={})  latency p50 {:.3}s p95 {:.3}s",
        fmt(s.not_found_rate),
        fmt(s.refusal_rate),
        s.refusal_n,
        s.p50_s,
        s.p95_s
    );
    println!("  right {}  answers shown as supported that are wrong: {}", fmt(s.right), s.confident_wrong);
    println!("  worked answers: {} computed, {} match the reference", s.calc_answered, s.calc_correct);
    println!(
        "  support: strong {} (right {}), weak {} (right {}); unanswerable questions answered with strong support: {}",
        s.strong_n,
        fmt(s.strong_right),
        s.weak_n,
        fmt(s.weak_right),
        s.unanswerable_strong
    );
    if s.prefill_tps.is_some() {
        println!(
            "  model speed: prefill {} tokens/s, decode {} tokens/s (medians), first token p50 {} s, peak RSS {} MB",
            fmt(s.prefill_tps),
            fmt(s.decode_tps),
            fmt(s.first_token_p50_s),
            fmt(s.peak_rss_mb)
        );
    }
    println!("  reliability (share right, 90% interval):");
    for r in &s.reliability {
        let ci = match (r.low, r.high) {
            (Some(l), Some(h)) => format!("[{l:.2}, {h:.2}]"),
            _ => "-".into(),
        };
        println!("    {:<7} n={:<3} right {} ({}/{}) {ci}", r.support.to_string(), r.n, fmt(r.share), r.right, r.n);
    }
    if !s.check_costs.is_empty() {
        println!("  checks that kept an answer from green (answers demoted, of them right):");
        for (name, (n, right)) in &s.check_costs {
            println!("    {name:<10} {n} demoted, {right} of them right");
        }
    }
    if s.risk_coverage.len() > 1 {
        println!("  risk against coverage (answers with at most N reasons against them: kept, share of questions, right):");
        for p in &s.risk_coverage {
            println!("    N={:<2} {:>4} answers, coverage {:.3}, right {}", p.max_reasons, p.answered, p.coverage, fmt(p.precision));
        }
    }
    if !s.by_rule.is_empty() {
        println!("  rules that gave a reason (answers it fired on: right / wrong):");
        for (id, r) in &s.by_rule {
            println!("    {id:<18} {:>3} fired: {} right, {} wrong", r.fires, r.right, r.wrong);
        }
    }
    for (t, g) in &s.by_query_type {
        println!(
            "    {:<20} n={:<3} right {}  strong {} (right {})  number recall {} (n={})  token F1 {}  computed {} / correct {}",
            t,
            g.n,
            fmt(g.right),
            g.strong_n,
            fmt(g.strong_right),
            fmt(g.number_recall),
            g.number_recall_n,
            fmt(g.token_f1),
            g.calc_answered,
            g.calc_correct
        );
    }
    println!("  by shape: a gold page among the pages read, right");
    for (shape, g) in &s.by_shape {
        println!("    {:<20} n={:<3} gold page read {}  right {}  strong {}", shape, g.n, fmt(g.gold_read), fmt(g.right), g.strong_n);
    }
    println!("  rows: {}", f.display());
    if json {
        println!("{}", serde_json::to_string(&s)?);
    }
    Ok(())
}
