//! `lens`: the command-line front end over lens-core. Thin: parse, call the library, print.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use lens_core::eval::{self, EvalOptions, Mode};
use lens_core::ingest::{self, IngestEvent, IngestOptions};
use lens_core::settings::Settings;
use lens_core::{Library, PageRef, Retriever, SearchRequest};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

mod bench;
mod bench_maxsim;
mod bench_vision;
mod http;
mod labels;
mod serve;
mod vision;

#[derive(Parser)]
#[command(name = "lens", version, about = "10-K Lens: evidence-first question answering over PDFs")]
struct Cli {
    /// Library folder (default: $LENS_LIBRARY, else the platform data dir)
    #[arg(long, global = true)]
    library: Option<PathBuf>,
    /// Models folder (default: the library's setting, else $LENS_MODELS, else the platform data dir)
    #[arg(long, global = true)]
    models: Option<PathBuf>,
    #[command(subcommand)]
    cmd: Cmd,
}

/// How to load a model answerer (`--answerer qwen`).
#[derive(clap::Args, Clone, Default)]
pub(crate) struct ModelArgs {
    /// A Qwen .gguf file or model folder (default: the settings' model, else the first found)
    #[arg(long)]
    model: Option<PathBuf>,
    /// auto, cpu, metal or cuda
    #[arg(long, default_value = "auto")]
    device: String,
    /// Threads for the model (0: every core, less one on machines with more than four)
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Most tokens the model writes
    #[arg(long, default_value_t = 96)]
    max_new_tokens: usize,
    /// Most tokens of one page's text in the prompt (`--prompt pages`)
    #[arg(long, default_value_t = 700)]
    page_tokens: usize,
    /// What the model reads: the sentences and rows that fit the question, with ids it cites
    /// (`passages`), or whole pages cut to a budget (`pages`)
    #[arg(long, default_value = "passages", value_parser = ["passages", "pages"])]
    prompt: String,
    /// Most tokens of the passages given to the model (`--prompt passages`)
    #[arg(long, default_value_t = 900)]
    passage_tokens: usize,
    /// Replace the model's rules (system message) with this file's text (prompt experiments)
    #[arg(long)]
    system_prompt: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Ingest PDF files or folders (recursive)
    Ingest {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Largest file accepted, in MiB
        #[arg(long, default_value_t = 1024)]
        max_mb: u64,
        /// Pages without a text layer: OCR them now and wait (`wait`), in a detached `lens ocr`
        /// after the text layer is published (`background`, log in the library's ocr.log), or
        /// not now (`off`: run `lens ocr` later)
        #[arg(long, value_enum, default_value_t = OcrMode::Wait)]
        ocr: OcrMode,
        /// Same as `--ocr off`
        #[arg(long)]
        no_ocr: bool,
        /// Tesseract languages for OCR, e.g. eng or eng+deu
        #[arg(long, default_value = "eng")]
        ocr_lang: String,
        #[arg(long)]
        json: bool,
    },
    /// OCR pages that have no text layer (resumes where it stopped)
    Ocr {
        #[arg(long)]
        doc: Option<String>,
        #[arg(long, default_value = "eng")]
        lang: String,
        #[arg(long, default_value_t = 300.0)]
        dpi: f32,
        /// Try again pages whose OCR failed before
        #[arg(long)]
        retry_failed: bool,
        /// Most pages of one document read in this run (0: all); the rest stay pending
        #[arg(long, default_value_t = lens_core::ocr::DEFAULT_BUDGET_PER_DOC)]
        budget: usize,
        #[arg(long)]
        json: bool,
    },
    /// Scan stress test: image-only copies of documents, OCR'd, vs their text layer
    ScanExperiment {
        #[arg(required = true)]
        docs: Vec<String>,
        #[arg(long)]
        labels: PathBuf,
        /// Scan resolution of the image-only copy
        #[arg(long, default_value_t = 150.0)]
        scan_dpi: f32,
        /// OCR rendering resolution
        #[arg(long, default_value_t = 300.0)]
        ocr_dpi: f32,
        #[arg(long)]
        json: bool,
    },
    /// Ranked pages for a question
    Search {
        query: String,
        /// Search only these documents (repeatable)
        #[arg(long = "doc")]
        docs: Vec<String>,
        #[arg(long, default_value_t = 10)]
        k: usize,
        /// Do not restrict to the companies/years/forms the question names
        #[arg(long)]
        no_filter: bool,
        /// bm25, dense or hybrid (default: the library's setting)
        #[arg(long)]
        retriever: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// List documents in the library
    Docs {
        #[arg(long)]
        json: bool,
    },
    /// Remove a document
    Remove { doc: String },
    /// Add an alias (another name the filter should recognise) to a document
    Alias { doc: String, alias: String },
    /// Retrieval metrics on labelled questions
    Eval {
        #[arg(long)]
        labels: PathBuf,
        #[arg(long, default_value = "filter")]
        mode: String,
        /// Run name: rows go to RUNS_DIR/NAME/retrieval.jsonl
        #[arg(long)]
        name: Option<String>,
        #[arg(long, default_value = "runs")]
        runs_dir: PathBuf,
        /// Heading field boost (0 disables the heading field)
        #[arg(long)]
        heading_boost: Option<f32>,
        /// Weight of lexicon expansion terms (0 disables expansion)
        #[arg(long)]
        expansion_weight: Option<f32>,
        /// bm25, dense or hybrid (default: the library's setting)
        #[arg(long)]
        retriever: Option<String>,
        /// Set a retrieval knob, e.g. --set rank_depth=0 (repeatable; `--set help=1` lists them)
        #[arg(long = "set")]
        set: Vec<String>,
        /// List N questions with no gold page in the top 3
        #[arg(long, default_value_t = 0)]
        misses: usize,
        /// Only questions whose label field KEY has VALUE (e.g. scanned_like=true); repeatable
        #[arg(long = "only")]
        only: Vec<String>,
        /// Candidate survival instead: BM25 top B reranked by the vision index, for each B
        #[arg(long, value_delimiter = ',')]
        survival: Vec<usize>,
        #[arg(long)]
        json: bool,
    },
    /// Paired bootstrap 95% CIs of runs against the first
    Ablate {
        #[arg(required = true, num_args = 2..)]
        runs: Vec<String>,
        #[arg(long, default_value = "ndcg5")]
        metric: String,
        #[arg(long, default_value = "runs")]
        runs_dir: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Answer a question from the best pages, cite them, and locate the evidence
    Ask {
        question: String,
        #[arg(long, default_value = "extractive")]
        answerer: String,
        /// Pages given to the answerer
        #[arg(long, default_value_t = 3)]
        k: usize,
        #[arg(long = "doc")]
        docs: Vec<String>,
        #[arg(long)]
        no_filter: bool,
        /// Also render the cited page with the evidence boxed to this PNG
        #[arg(long)]
        render: Option<PathBuf>,
        /// bm25, dense or hybrid (default: the library's setting)
        #[arg(long)]
        retriever: Option<String>,
        #[command(flatten)]
        model: ModelArgs,
        #[arg(long)]
        json: bool,
    },
    /// Language models found (models folder, Hugging Face cache, or --model): name, architecture, size, quantisation, context
    Models {
        #[command(flatten)]
        model: ModelArgs,
        #[arg(long)]
        json: bool,
    },
    /// Devices this build can run models on (cpu, cuda, metal), and why not where it cannot
    Devices {
        #[arg(long)]
        json: bool,
    },
    /// Render a page (DOC#PAGE) to PNG, boxing a quote or an answer's numbers
    Render {
        page: String,
        #[arg(long)]
        quote: Option<String>,
        #[arg(long)]
        answer: Option<String>,
        #[arg(long, default_value_t = 110.0)]
        dpi: f32,
        #[arg(long)]
        out: PathBuf,
    },
    /// The tables a page is read into (columns with their headers, rows with their cells): what
    /// worked answers and rankings read
    Tables {
        page: String,
        #[arg(long)]
        json: bool,
    },
    /// Score answers on labelled questions using the pages a retrieval run ranked
    EvalAnswers {
        #[arg(long)]
        labels: PathBuf,
        /// Retrieval run (name under RUNS_DIR, or a retrieval.jsonl path)
        #[arg(long)]
        pages_from: String,
        #[arg(long, default_value = "extractive")]
        answerer: String,
        #[arg(long, default_value_t = 3)]
        k: usize,
        #[arg(long, default_value = "runs")]
        runs_dir: PathBuf,
        /// Only the first N questions
        #[arg(long)]
        limit: Option<usize>,
        /// Keep answers to off-topic questions instead of "Not found" (to measure the rule)
        #[arg(long)]
        keep_off_topic: bool,
        /// Only one half of the set (a or b, split by a stable hash of the question id): tune on
        /// one, report the other
        #[arg(long)]
        half: Option<char>,
        /// Print each question's reading, its answer, and the operands or lines used
        #[arg(long)]
        explain: bool,
        #[command(flatten)]
        model: ModelArgs,
        #[arg(long)]
        json: bool,
    },
    /// The question log, newest first
    Log {
        #[arg(long, default_value_t = 20)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
    /// Thumbs up (+1) or down (-1) on a logged answer
    Feedback {
        id: i64,
        #[arg(allow_hyphen_values = true)]
        value: i32,
        #[arg(long)]
        note: Option<String>,
    },
    /// A workpaper of logged answers (`lens log` lists their ids): question, answer, worked
    /// calculation, quote, the cited pages rendered with their boxes, file sha256, page labels,
    /// answerer and feedback, as one self-contained HTML file or a PDF
    Workpaper {
        #[arg(required = true)]
        ids: Vec<i64>,
        /// Output file; its extension (.html or .pdf) picks the format
        #[arg(long)]
        out: PathBuf,
    },
    /// Watched folders: new/changed PDFs are ingested, deleted ones removed
    Watch {
        #[command(subcommand)]
        what: WatchCmd,
    },
    /// Dense (embedding) vectors for the dense and hybrid retrievers
    Dense {
        #[command(subcommand)]
        what: DenseCmd,
    },
    /// Serve the UI and API on 127.0.0.1 (prints the URL with its access token)
    Serve {
        /// Port (0 picks a free one)
        #[arg(long, default_value_t = 8765)]
        port: u16,
    },
    /// The vision index (page images as multivectors, ColModernVBERT): build, status
    Vision {
        #[command(subcommand)]
        what: vision::VisionCmd,
    },
    /// Gold question sets: import, export, list, agreement between annotators
    Labels {
        #[command(subcommand)]
        what: labels::LabelsCmd,
    },
    /// Benchmarks (print figures; never assert on time)
    Bench {
        #[command(subcommand)]
        what: bench::BenchCmd,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum OcrMode {
    Wait,
    Background,
    Off,
}

#[derive(Subcommand)]
enum DenseCmd {
    /// Embed every document that has no vectors yet (resumable; per document)
    Build {
        /// Only these documents (repeatable)
        #[arg(long = "doc")]
        docs: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Which documents have vectors, and their size
    Status {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum WatchCmd {
    /// Add a folder to the watch list (kept in the library)
    Add { folder: PathBuf },
    /// Remove a folder from the watch list
    Remove { folder: String },
    /// List watched folders
    List,
    /// Follow the watched folders until interrupted
    Run,
}

fn main() {
    // Behave like a Unix tool when piped into `head`: exit quietly on a closed pipe.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        match e.downcast_ref::<lens_core::LensError>() {
            Some(le) => eprintln!("error [{}]: {le}", le.code()),
            None => eprintln!("error: {e:#}"),
        }
        std::process::exit(1);
    }
}

fn open(lib: &Option<PathBuf>) -> Result<Library> {
    let dir = lens_core::paths::library_dir(lib.as_deref());
    Ok(Library::open(&dir)?)
}

/// The library's settings, with `--models` put over its models folder.
fn settings(lib: &Library, models: &Option<PathBuf>) -> Result<Settings> {
    let mut st = Settings::load(lib.store())?;
    if let Some(m) = models {
        st.models_dir = m.display().to_string();
    }
    Ok(st)
}

/// The retriever a command asks for (see `settings::choose_retriever`); `strict` for evals and benches.
pub(crate) fn retriever(lib: &Library, flag: Option<&str>, models: &Option<PathBuf>, strict: bool) -> Result<Retriever> {
    let flag = flag.map(str::parse::<Retriever>).transpose()?;
    Ok(lens_api::choose_retriever(lib, &settings(lib, models)?, flag, strict)?)
}

fn embedder(lib: &Library, models: &Option<PathBuf>) -> Result<std::sync::Arc<lens_core::dense::Embedder>> {
    let st = settings(lib, models)?;
    Ok(lib.load_embedder(Path::new(&st.models_dir), &st.embedder)?)
}

/// The answerer of `kind`: built in, or a model loaded as `m` and the settings say.
pub(crate) fn answerer(
    lib: &Library,
    kind: lens_core::answer::AnswererKind,
    m: &ModelArgs,
    models: &Option<PathBuf>,
) -> Result<Box<dyn lens_core::answer::Answerer>> {
    use lens_core::answer::AnswererKind;
    match kind {
        AnswererKind::Qwen => {
            let st = settings(lib, models)?;
            let mut q = lens_llm::load_answerer(&load_options(m, &st))?;
            q.opts.max_new_tokens = m.max_new_tokens.clamp(1, 4096);
            q.opts.prompt.page_tokens = m.page_tokens.max(32);
            q.opts.prompt.passage_tokens = m.passage_tokens.max(64);
            if m.prompt == "pages" {
                q.opts.prompt.mode = lens_llm::prompt::PromptMode::Pages;
            }
            if let Some(f) = &m.system_prompt {
                q.opts.prompt.system = std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
            }
            eprintln!(
                "model: {} ({}, {:.1} s to load, {:.0} MB of weights, {})",
                q.lm.name(),
                q.lm.model.cfg.arch.name(),
                q.lm.load_s,
                q.lm.model.weight_bytes() as f64 / 1e6,
                q.device()
            );
            Ok(Box::new(q))
        }
        k => Ok(lens_core::answer::builtin(k)?),
    }
}

fn load_options(m: &ModelArgs, st: &Settings) -> lens_llm::LoadOptions {
    lens_llm::LoadOptions {
        path: m.model.clone(),
        setting: st.model.clone(),
        models_dir: PathBuf::from(&st.models_dir),
        device: m.device.parse().unwrap_or_default(),
        threads: m.threads,
        precision: None,
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Ingest { paths, max_mb, ocr: mode, no_ocr, ocr_lang, json } => {
            let mode = if no_ocr { OcrMode::Off } else { mode };
            let mut lib = open(&cli.library)?;
            let opts = lens_core::ocr::OcrOptions { langs: ocr_lang.clone(), ..Default::default() };
            let (summary, ocr) = ingest_paths(&mut lib, &paths, max_mb, (mode == OcrMode::Wait).then_some(&opts), json)?;
            if mode == OcrMode::Background && summary.needs_ocr_pages > 0 {
                let dir = lens_core::paths::library_dir(cli.library.as_deref());
                drop(lib); // the detached OCR takes the library's writer
                let pid = spawn_background_ocr(&dir, &ocr_lang)?;
                println!("OCR of {} pages continues in the background (pid {pid}; log: {})", summary.needs_ocr_pages, dir.join("ocr.log").display());
            }
            // OCR problems never undo the text-layer ingest
            match ocr {
                Some(Ok(s)) => print_ocr_summary(&s, json)?,
                Some(Err(e)) => eprintln!("OCR not done [{}]: {e}. The text-layer pages are ingested; run `lens ocr` once this is fixed.", e.code()),
                None => {}
            }
            if summary.failed > 0 && summary.added + summary.replaced + summary.unchanged == 0 {
                std::process::exit(2);
            }
        }
        Cmd::Ocr { doc, lang, dpi, retry_failed, budget, json } => {
            let mut lib = open(&cli.library)?;
            let opts = lens_core::ocr::OcrOptions { langs: lang, dpi, doc, retry_failed, budget_per_doc: budget, ..Default::default() };
            let s = lens_core::ocr::run(&mut lib, &opts, &AtomicBool::new(false), &mut |e| print_ocr_event(e, json))?;
            print_ocr_summary(&s, json)?;
        }
        Cmd::ScanExperiment { docs, labels, scan_dpi, ocr_dpi, json } => {
            let lib = open(&cli.library)?;
            let labels_v = eval::read_labels(&labels)?;
            let work = std::env::temp_dir().join(format!("lens-scan-experiment-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&work);
            let opts = lens_core::ocr::OcrOptions { dpi: ocr_dpi, ..Default::default() };
            let r = lens_core::scan::experiment(&lib, &docs, &labels_v, scan_dpi, &opts, &work, &mut |e| {
                if let lens_core::ocr::OcrEvent::Page { done, total, .. } = e {
                    if done % 25 == 0 || done == total {
                        eprintln!("ocr {done}/{total}");
                    }
                }
            });
            let _ = std::fs::remove_dir_all(&work);
            let r = r?;
            println!("scan experiment: {} ({} pages, {} labelled questions; scan {scan_dpi} DPI, OCR {ocr_dpi} DPI)", r.docs.join(", "), r.pages, r.questions);
            println!("  text layer: nDCG@5 {:.3}  Hit@3 {:.3}", r.text.ndcg5, r.text.hit3);
            println!("  OCR:        nDCG@5 {:.3}  Hit@3 {:.3}", r.ocr.ndcg5, r.ocr.hit3);
            for (name, c) in [("nDCG@5", &r.ndcg5), ("Hit@3", &r.hit3)] {
                println!("  {name} OCR - text: {:+.3}  95% CI [{:+.3}, {:+.3}]  {}", c.delta, c.ci_low, c.ci_high, c.verdict);
            }
            println!(
                "  OCR: {:.1}s for {} pages on {} threads; per page p50 {:.2}s p95 {:.2}s",
                r.ocr_seconds, r.pages, opts.threads, r.ocr_page_p50_s, r.ocr_page_p95_s
            );
            if json {
                println!("{}", serde_json::to_string(&r)?);
            }
        }
        Cmd::Search { query, docs, k, no_filter, retriever: rflag, json } => {
            let lib = open(&cli.library)?;
            let mut req = SearchRequest::new(query);
            req.retriever = retriever(&lib, rflag.as_deref(), &cli.models, false)?;
            req.docs = docs;
            req.k = k;
            req.filter = !no_filter;
            let resp = lib.search(&req)?;
            if json {
                println!("{}", serde_json::to_string(&resp)?);
            } else {
                for n in &resp.notes {
                    println!("note: {n}");
                }
                if let Some(f) = &resp.filter {
                    println!("filter: companies {:?} years {:?} forms {:?} -> {:?}", f.companies, f.years, f.forms, f.groups);
                }
                for h in &resp.hits {
                    println!("{:>2}. {}#{}  score {:.2}\n    {}", h.rank, h.doc_id, h.page, h.score, h.snippet);
                }
                if resp.hits.is_empty() {
                    println!("no matching pages");
                }
                println!("({:.1} ms)", resp.elapsed_ms);
            }
        }
        Cmd::Docs { json } => {
            let lib = open(&cli.library)?;
            let docs = lib.documents()?;
            if json {
                println!("{}", serde_json::to_string(&docs)?);
            } else {
                for d in docs {
                    println!(
                        "{:<40} {:>5} pages  {:<24} {:>6} {:<14} ocr-needed {}",
                        d.id,
                        d.pages,
                        d.company.unwrap_or_default(),
                        d.year.map(|y| y.to_string()).unwrap_or_default(),
                        d.form.unwrap_or_default(),
                        d.needs_ocr_pages
                    );
                }
            }
        }
        Cmd::Remove { doc } => {
            let mut lib = open(&cli.library)?;
            lib.remove(&doc)?;
            println!("removed {doc}");
        }
        Cmd::Alias { doc, alias } => {
            let lib = open(&cli.library)?;
            let a = lib.add_alias(&doc, &alias)?;
            println!("{doc}: alias \"{a}\" added");
        }
        Cmd::Eval { labels, mode, name, runs_dir, heading_boost, expansion_weight, retriever: rflag, set, misses, only, survival, json } => {
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
            let chosen = retriever(&lib, Some(rflag.as_deref().unwrap_or("bm25")), &cli.models, true)?;
            let mode: Mode = mode.parse()?;
            let mut labels_v = eval::read_labels(&labels)?;
            for cond in &only {
                let (k, v) = cond.split_once('=').ok_or_else(|| lens_core::LensError::BadInput(format!("--only wants KEY=VALUE, got `{cond}`")))?;
                labels_v.retain(|l| {
                    let field = serde_json::to_value(l).ok().and_then(|j| j.get(k).cloned());
                    field.is_some_and(|f| f.as_str().map(str::to_string).unwrap_or_else(|| f.to_string()) == v)
                });
            }
            let mut opts = EvalOptions { mode, retriever: chosen, ..Default::default() };
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
        }
        Cmd::Ablate { runs, metric, runs_dir, json } => {
            let load = |r: &str| -> Result<HashMap<String, f64>> {
                let p = if Path::new(r).is_file() { PathBuf::from(r) } else { runs_dir.join(r).join("retrieval.jsonl") };
                let rows = eval::read_rows(&p).with_context(|| format!("run `{r}`"))?;
                rows.iter().map(|row| Ok((row.id.clone(), eval::metric_of(&row.m, &metric)?))).collect()
            };
            let base = load(&runs[0])?;
            let mut out = Vec::new();
            println!("{metric}: each run against `{}` (paired bootstrap, 1000 resamples, seed 42)", runs[0]);
            for r in &runs[1..] {
                let c = eval::paired_bootstrap(r, &base, &load(r)?, 1000, 42);
                println!(
                    "  {:<32} n={:<4} base {:.3} -> {:.3}  delta {:+.3}  95% CI [{:+.3}, {:+.3}]  {}",
                    c.run, c.n, c.base_mean, c.run_mean, c.delta, c.ci_low, c.ci_high, c.verdict
                );
                out.push(c);
            }
            if json {
                println!("{}", serde_json::to_string(&out)?);
            }
        }
        Cmd::Ask { question, answerer: kind, k, docs, no_filter, render, retriever: rflag, model, json } => {
            let lib = open(&cli.library)?;
            model.device.parse::<lens_llm::DeviceChoice>()?;
            let mut req = lens_core::ask::AskRequest::new(question);
            req.retriever = retriever(&lib, rflag.as_deref(), &cli.models, false)?;
            req.answerer = kind.parse()?;
            req.k = k;
            req.docs = docs;
            req.filter = !no_filter;
            let a = answerer(&lib, req.answerer, &model, &cli.models)?;
            let streaming = !json && req.answerer == lens_core::answer::AnswererKind::Qwen;
            let r = lib.ask_with(&req, a.as_ref(), &mut |e| {
                if let (true, lens_core::ask::AskEvent::Text { text }) = (streaming, &e) {
                    eprint!("{text}");
                }
                true
            })?;
            if streaming {
                eprintln!();
            }
            if let Some(out) = &render {
                if let Some(c) = r.answer.citations.first() {
                    // the boxes on that page (a worked answer has boxes on every operand's page)
                    let boxes: Vec<lens_core::evidence::EvidenceBox> =
                        r.boxes.iter().filter(|b| b.doc_id == c.doc_id && b.page == c.page).map(|b| b.rect.clone()).collect();
                    std::fs::write(out, lib.render_png(c, 110.0, &boxes)?).with_context(|| format!("writing {}", out.display()))?;
                }
            }
            if json {
                println!("{}", serde_json::to_string(&r)?);
            } else {
                println!("Q: {}", r.question.text);
                println!("read as: {}", r.question.reading());
                let a = &r.answer;
                println!("A: {}", a.answer);
                match a.support {
                    lens_core::support::Support::Strong => println!("support: strong (the cited page holds it)"),
                    lens_core::support::Support::Weak => println!("support: weak, best match, check the page ({})", a.support_reasons.join("; ")),
                    lens_core::support::Support::None => {}
                }
                if !a.not_found {
                    let shown: Vec<String> = r.cited.iter().map(|c| format!("{} ({})", c.page, c.shown)).collect();
                    println!("cited: {}", shown.join(", "));
                    if let Some(q) = &a.quote {
                        println!("quote: \"{q}\"");
                    }
                    println!("evidence: found by {}, {} box(es)", a.found_by, r.boxes.len());
                    for b in &r.boxes {
                        let e = &b.rect;
                        println!("  {}#{} [{:.1}, {:.1}, {:.1}, {:.1}] {}", b.doc_id, b.page, e.l, e.b, e.r, e.t, e.text);
                    }
                }
                if let Some(c) = &a.calculation {
                    print_calculation(c);
                }
                println!("pages read: {}", join(&r.pages));
                if let Some(m) = &a.model {
                    println!(
                        "model: {} on {}: {} prompt tokens at {:.1}/s (first token {:.1} s), {} new at {:.1}/s",
                        m.model, m.device, m.prompt_tokens, m.prefill_tps, m.first_token_s, m.new_tokens, m.decode_tps
                    );
                }
                for n in &r.notes {
                    println!("note: {n}");
                }
                println!("retrieve {:.1} ms, answer {:.1} ms ({}; {}); log #{}", r.retrieve_ms, a.answer_ms, a.answerer, r.retriever, r.log_id);
                if let Some(out) = &render {
                    if a.citations.is_empty() {
                        println!("nothing cited: no page rendered");
                    } else {
                        println!("rendered: {}", out.display());
                    }
                }
            }
        }
        Cmd::Tables { page, json } => {
            let lib = open(&cli.library)?;
            let p: lens_core::PageRef = page.parse()?;
            lib.check_page(&p.doc_id, p.page)?;
            let tables = lib.page_tables(&p);
            if json {
                println!("{}", serde_json::to_string(&*tables)?);
            } else if tables.is_empty() {
                println!("{p}: no table with year or period columns");
            }
            if !json {
                for (i, t) in tables.iter().enumerate() {
                    let cols: Vec<String> = t
                        .columns
                        .iter()
                        .map(|c| format!("{} [{}{}]", c.header, c.year, c.months.map(|m| format!(", {m} months")).unwrap_or_default()))
                        .collect();
                    println!("table {} ({}): {}", i + 1, t.unit, cols.join(" | "));
                    if !t.title.is_empty() {
                        println!("  title: {}", t.title);
                    }
                    for r in &t.rows {
                        let cells: Vec<&str> = r.cells.iter().map(|c| c.as_ref().map_or("·", |c| c.text.as_str())).collect();
                        println!("  {} | {}", r.label, cells.join(" | "));
                    }
                }
            }
        }
        Cmd::Render { page, quote, answer, dpi, out } => {
            let lib = open(&cli.library)?;
            let page: PageRef = page.parse()?;
            if !(lens_core::pdf::MIN_DPI..=lens_core::pdf::MAX_DPI).contains(&dpi) {
                return Err(
                    lens_core::LensError::BadInput(format!("DPI {dpi} is out of range ({}..={})", lens_core::pdf::MIN_DPI, lens_core::pdf::MAX_DPI)).into()
                );
            }
            let ev = lib.evidence(&page, quote.as_deref(), answer.as_deref())?;
            let img = lens_core::render::render_page(&lib.page_source(&page)?, page.page, dpi, &ev.boxes)?;
            lens_core::render::save_png(&img, &out)?;
            println!("{}: {}x{} px, evidence found by {}, {} box(es)", out.display(), img.width(), img.height(), ev.found_by, ev.boxes.len());
            let pg = lib.store().page(&page.doc_id, page.page)?;
            let asked = (pg.width * dpi / 72.0).round();
            if (img.width() as f32) < asked - 1.0 {
                println!("  scaled down from {asked:.0} px wide to stay within {} M pixels", lens_core::pdf::MAX_PIXELS / 1e6);
            }
            for b in &ev.boxes {
                println!("  [{:.1}, {:.1}, {:.1}, {:.1}] {}", b.l, b.b, b.r, b.t, b.text);
            }
        }
        Cmd::EvalAnswers { labels, pages_from, answerer: kind, k, runs_dir, limit, keep_off_topic, half, explain, model, json } => {
            let lib = open(&cli.library)?;
            let mut labels_v = eval::read_labels(&labels)?;
            if let Some(h) = half {
                if h != 'a' && h != 'b' {
                    anyhow::bail!("--half is a or b (got {h})");
                }
                labels_v.retain(|l| lens_core::eval_answers::half_of(&l.id) == h);
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
                        for w in &r.answer.support_reasons {
                            println!("    weak:    {w}");
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
            println!(
                "  yes/no {} (n={})  number recall {} (n={})  token F1 {}",
                fmt(s.yes_no),
                s.yes_no_n,
                fmt(s.number_recall),
                s.number_recall_n,
                fmt(s.token_f1)
            );
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
        }
        Cmd::Devices { json } => {
            let d = lens_llm::device::devices();
            if json {
                println!("{}", serde_json::to_string(&d)?);
            } else {
                for x in &d {
                    println!("{:<6} {:<10} {}", x.name, if x.usable { "usable" } else { "not usable" }, x.detail);
                }
                let auto = lens_llm::device::select(lens_llm::DeviceChoice::Auto)?;
                println!("--device auto: {}{}", auto.name, auto.fallback.map(|f| format!(" ({f})")).unwrap_or_default());
            }
        }
        Cmd::Models { model, json } => {
            let models_dir = match &cli.models {
                Some(m) => m.clone(),
                None => match open(&cli.library) {
                    Ok(lib) => PathBuf::from(Settings::load(lib.store())?.models_dir),
                    Err(_) => lens_core::settings::default_models_dir(),
                },
            };
            let mut found = lens_llm::discover::find_all(&models_dir);
            if let Some(p) = &model.model {
                found.insert(0, lens_llm::discover::describe(p, "path").ok_or_else(|| anyhow::anyhow!("{}: not a language model", p.display()))?);
            }
            if json {
                println!("{}", serde_json::to_string(&found)?);
            } else {
                println!("language models in {} and the Hugging Face cache: {}", models_dir.display(), found.len());
                for m in &found {
                    println!(
                        "  {} [{}] {} {:.0} MB, {}, context {}{}",
                        m.name,
                        m.found_in,
                        if m.arch.is_empty() { "?" } else { &m.arch },
                        m.size_bytes as f64 / 1e6,
                        if m.quantisation.is_empty() { "?" } else { &m.quantisation },
                        m.context.map(|c| c.to_string()).unwrap_or_else(|| "?".into()),
                        m.problem.as_ref().map(|p| format!("\n      not usable: {p}")).unwrap_or_default()
                    );
                    if !m.kernels.is_empty() {
                        println!("      weights {}", m.kernels);
                    }
                    println!("      {}", m.path.display());
                }
                if !found.iter().any(|m| m.supported) {
                    println!("no usable model: {}", lens_llm::discover::HINT);
                }
            }
        }
        Cmd::Log { limit, json } => {
            let lib = open(&cli.library)?;
            let log = lib.store().question_log(limit)?;
            if json {
                for e in &log {
                    println!("{}", serde_json::to_string(e)?);
                }
            } else {
                for e in &log {
                    let fb = match e.feedback {
                        Some(1) => " [right]",
                        Some(-1) => " [wrong]",
                        _ => "",
                    };
                    println!("#{} {} [{}] {}\n    -> {}{}", e.id, e.time, e.answer.answerer, e.question, e.answer.answer, fb);
                }
            }
        }
        Cmd::Workpaper { ids, out } => {
            let format = match out.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase()).as_deref() {
                Some("pdf") => lens_api::WorkpaperFormat::Pdf,
                Some("html" | "htm") => lens_api::WorkpaperFormat::Html,
                _ => {
                    return Err(lens_core::LensError::BadInput(format!(
                        "{}: the workpaper is written as .html or .pdf; name the file with one of those",
                        out.display()
                    ))
                    .into())
                }
            };
            let api = lens_api::Api::new(lens_core::paths::library_dir(cli.library.as_deref()));
            let f = api.workpaper(&lens_api::WorkpaperArgs { ids: ids.clone(), format })?;
            std::fs::write(&out, &f.bytes).map_err(|e| lens_core::LensError::Io { path: out.clone(), source: e })?;
            println!("wrote {} ({} KB, {} answer{})", out.display(), f.bytes.len().div_ceil(1024), ids.len(), if ids.len() == 1 { "" } else { "s" });
        }
        Cmd::Feedback { id, value, note } => {
            let lib = open(&cli.library)?;
            lib.store().set_feedback(id, value, note.as_deref())?;
            println!("feedback recorded on #{id}");
        }
        Cmd::Dense { what } => {
            let mut lib = open(&cli.library)?;
            match what {
                DenseCmd::Build { docs, json } => {
                    let emb = embedder(&lib, &cli.models)?;
                    let cancel = std::sync::atomic::AtomicBool::new(false);
                    let only = if docs.is_empty() { None } else { Some(docs.as_slice()) };
                    let rep = lens_core::dense::build(lib.store_mut(), &emb, only, &cancel, &mut |p| {
                        if !json {
                            println!(
                                "dense     {} ({}/{}): {} pages, {} windows in {:.1}s ({:.1} pages/s)",
                                p.doc_id,
                                p.docs_done,
                                p.docs_total,
                                p.pages,
                                p.windows,
                                p.seconds,
                                p.pages as f64 / p.seconds.max(1e-9)
                            );
                        }
                    })?;
                    if json {
                        println!("{}", serde_json::to_string(&rep)?);
                    } else {
                        println!(
                            "dense: {} documents ({} already done), {} pages, {} windows in {:.1}s = {:.2} pages/s (model {})",
                            rep.docs, rep.skipped_done, rep.pages, rep.windows, rep.seconds, rep.pages_per_s, rep.model
                        );
                    }
                }
                DenseCmd::Status { json } => {
                    let st = Settings::load(lib.store())?;
                    let done = lib.store().dense_doc_keys(&st.embedder)?;
                    let docs = lib.documents()?;
                    let (bytes, pages) = lib.store().dense_size(&st.embedder)?;
                    let with: Vec<&str> = docs.iter().filter(|d| done.contains(&d.key)).map(|d| d.id.as_str()).collect();
                    let per_page = if pages > 0 { bytes as f64 / pages as f64 } else { 0.0 };
                    if json {
                        println!(
                            "{}",
                            serde_json::json!({"model": st.embedder, "documents": docs.len(), "with_vectors": with, "pages": pages, "bytes": bytes, "bytes_per_page": per_page})
                        );
                    } else {
                        println!(
                            "model {}: {} of {} documents have vectors; {} pages, {} bytes ({:.0} bytes/page)",
                            st.embedder,
                            with.len(),
                            docs.len(),
                            pages,
                            bytes,
                            per_page
                        );
                    }
                }
            }
        }
        Cmd::Watch { what } => {
            let api = lens_api::Api::new(lens_core::paths::library_dir(cli.library.as_deref()));
            match what {
                WatchCmd::Add { folder } => println!("watching {}", api.add_watch(&folder)?),
                WatchCmd::Remove { folder } => {
                    if api.remove_watch(&folder)? {
                        println!("no longer watching {folder}");
                    } else {
                        println!("{folder} was not watched");
                    }
                }
                WatchCmd::List => {
                    for w in api.watches()? {
                        println!("{w}");
                    }
                }
                WatchCmd::Run => {
                    let folders = api.watches()?;
                    if folders.is_empty() {
                        return Err(lens_core::LensError::BadInput("no watched folders: add one with `lens watch add DIR`".into()).into());
                    }
                    println!("watching {} (Ctrl-C to stop)", folders.join(", "));
                    api.follow_watched(std::sync::Arc::new(|e| println!("{}", serde_json::to_string(&e).unwrap())))?;
                    loop {
                        std::thread::park();
                    }
                }
            }
        }
        Cmd::Serve { port } => serve::run(lens_core::paths::library_dir(cli.library.as_deref()), port)?,
        Cmd::Vision { what } => {
            let lib = open(&cli.library)?;
            let st = settings(&lib, &cli.models)?;
            vision::run(&lib, st, what)?
        }
        Cmd::Labels { what } => labels::run(&open(&cli.library)?, what)?,
        Cmd::Bench { what } => bench::run(what, cli.library, cli.models)?,
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

/// Ingest (then OCR, when `ocr` is given), printing each event as it happens.
pub(crate) fn ingest_paths(
    lib: &mut Library,
    paths: &[PathBuf],
    max_mb: u64,
    ocr: Option<&lens_core::ocr::OcrOptions>,
    json: bool,
) -> Result<(ingest::IngestSummary, Option<lens_core::Result<lens_core::ocr::OcrSummary>>)> {
    let cancel = AtomicBool::new(false);
    let opts = IngestOptions { max_bytes: max_mb * 1024 * 1024 };
    let mut on_event = |e: &IngestEvent| {
        if json {
            println!("{}", serde_json::to_string(e).unwrap());
            return;
        }
        match e {
            IngestEvent::Stored { doc_id, pages, needs_ocr, seconds, outcome, .. } => {
                let rate = *pages as f64 / seconds.max(1e-6);
                let ocr = if *needs_ocr > 0 { format!(", {needs_ocr} pages need OCR") } else { String::new() };
                println!("{:<9} {doc_id}: {pages} pages in {seconds:.2}s ({rate:.0} pages/s){ocr}", format!("{outcome:?}").to_lowercase());
            }
            IngestEvent::Unchanged { doc_id, .. } => println!("unchanged {doc_id}"),
            IngestEvent::Failed { path, code, message } => println!("failed    {path}: [{code}] {message}"),
            IngestEvent::Published { docs, pages } => println!("          published {docs} documents ({pages} pages) to search"),
        }
    };
    let (s, o) = ingest::ingest_then_ocr(lib, paths, &opts, ocr, &cancel, &mut on_event, &mut |e| print_ocr_event(e, json))?;
    if !json {
        println!(
            "{} files: {} added, {} replaced, {} unchanged, {} failed; {} pages in {:.1}s ({:.0} pages/s){}{}",
            s.files,
            s.added,
            s.replaced,
            s.unchanged,
            s.failed,
            s.pages,
            s.seconds,
            s.pages as f64 / s.seconds.max(1e-6),
            if s.skipped_non_pdf > 0 { format!("; {} non-PDF files skipped", s.skipped_non_pdf) } else { String::new() },
            if s.recovered_pending > 0 { format!("; finished {} interrupted documents", s.recovered_pending) } else { String::new() },
        );
    } else {
        println!("{}", serde_json::to_string(&s)?);
    }
    Ok((s, o))
}

/// Start `lens --library DIR ocr` detached from this process (its own session, output to
/// `DIR/ocr.log`), so `lens ingest` returns once the text layer is published.
fn spawn_background_ocr(dir: &Path, langs: &str) -> Result<u32> {
    use std::os::unix::process::CommandExt;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("ocr.log"))
        .with_context(|| format!("opening {}", dir.join("ocr.log").display()))?;
    let child = std::process::Command::new(std::env::current_exe()?)
        .arg("--library")
        .arg(dir)
        .args(["ocr", "--lang", langs])
        .stdin(std::process::Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .process_group(0)
        .spawn()
        .context("starting the background OCR")?;
    Ok(child.id())
}

fn print_ocr_event(e: &lens_core::ocr::OcrEvent, json: bool) {
    if json {
        println!("{}", serde_json::to_string(e).unwrap());
        return;
    }
    match e {
        lens_core::ocr::OcrEvent::Page { doc_id, page, words, seconds, done, total } => {
            println!("ocr       {doc_id}#{page}: {words} words in {seconds:.2}s ({done}/{total})")
        }
        lens_core::ocr::OcrEvent::Failed { doc_id, page, message } => println!("ocr failed {doc_id}#{page}: {message}"),
    }
}

fn print_ocr_summary(s: &lens_core::ocr::OcrSummary, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(s)?);
    } else if s.pages + s.blank + s.failed > 0 {
        println!(
            "OCR: {} pages read, {} blank, {} failed, in {:.1}s ({:.2} pages/s)",
            s.pages,
            s.blank,
            s.failed,
            s.seconds,
            (s.pages + s.blank) as f64 / s.seconds.max(1e-6)
        );
    }
    if s.deferred > 0 && !json {
        println!("OCR: {} pages left for later (the per-document budget of this run): run `lens ocr` to continue", s.deferred);
    }
    Ok(())
}

fn print_calculation(c: &lens_core::calc::Calculation) {
    match (&c.result, &c.problem) {
        (Some(r), _) => println!("calculation: {} = {r}", c.metric),
        (None, p) => println!("calculation: {} could not be computed: {}", c.metric, p.as_deref().unwrap_or("unknown")),
    }
    if !c.formula.is_empty() {
        println!("  formula: {}", c.formula);
    }
    for o in &c.operands {
        println!("  {} {} = {} ({}) on {}: \"{}\"", o.name, o.period, o.value, o.unit, o.page, o.quote);
    }
}

fn join<T: std::fmt::Display>(v: &[T]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
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
