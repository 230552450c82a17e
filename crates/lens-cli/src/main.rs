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
mod cmd;
mod labels;
mod reference;
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

/// The options every command shares.
pub(crate) struct Global {
    library: Option<PathBuf>,
    models: Option<PathBuf>,
}

/// How a command reaches the team's PostgreSQL database (with `--database`).
#[derive(clap::Args, Debug, Clone)]
pub struct DbArgs {
    /// Connections to the database kept open at most (each request holds one while it runs)
    #[arg(long, env = "LENS_DB_POOL", default_value_t = 8)]
    db_pool: u32,
    /// Seconds a request waits for a free connection before it is refused as busy (503)
    #[arg(long, env = "LENS_DB_WAIT", default_value_t = 5.0)]
    db_wait: f64,
    /// Allow sslmode=disable or prefer to a database on another machine (the password and the
    /// records then cross the network in clear)
    #[arg(long, env = "LENS_DB_CLEARTEXT")]
    db_cleartext: bool,
}

impl DbArgs {
    pub fn options(&self) -> Result<lens_pg::DbOptions> {
        if !(self.db_wait.is_finite() && self.db_wait > 0.0 && self.db_wait <= 600.0) {
            return Err(lens_core::LensError::BadInput(format!("--db-wait {}: give seconds between 0 and 600", self.db_wait)).into());
        }
        Ok(lens_pg::DbOptions { pool_size: self.db_pool, wait: std::time::Duration::from_secs_f64(self.db_wait), allow_cleartext: self.db_cleartext })
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Ingest PDF files or folders (recursive)
    Ingest(cmd::ingest::Args),
    /// OCR pages that have no text layer (resumes where it stopped)
    Ocr(cmd::ocr::Args),
    /// Scan stress test: image-only copies of documents, OCR'd, vs their text layer
    ScanExperiment(cmd::scan_experiment::Args),
    /// Ranked pages for a question
    Search(cmd::search::Args),
    /// List documents in the library
    Docs(cmd::docs::Args),
    /// Remove a document
    Remove(cmd::remove::Args),
    /// Add an alias (another name the filter should recognise) to a document
    Alias(cmd::alias::Args),
    /// Retrieval metrics on labelled questions
    Eval(cmd::eval::Args),
    /// Paired bootstrap 95% CIs of runs against the first
    Ablate(cmd::ablate::Args),
    /// Answer a question from the best pages, cite them, and locate the evidence
    Ask(cmd::ask::Args),
    /// Language models found (models folder, Hugging Face cache, or --model): name, architecture, size, quantisation, context
    Models(cmd::models::Args),
    /// Devices this build can run models on (cpu, cuda, metal), and why not where it cannot
    Devices(cmd::devices::Args),
    /// Render a page (DOC#PAGE) to PNG, boxing a quote or an answer's numbers
    Render(cmd::render::Args),
    /// The tables a page is read into (columns with their headers, rows with their cells): what
    /// worked answers and rankings read
    Tables(cmd::tables::Args),
    /// A filing's facts (every table figure with its line item, period, unit and page) and the
    /// accounting identities checked over them; reads any filing not read yet first
    Facts(cmd::facts::Args),
    /// Score answers on labelled questions using the pages a retrieval run ranked
    EvalAnswers(cmd::eval_answers::Args),
    /// The question log, newest first
    Log(cmd::log::Args),
    /// Thumbs up (+1) or down (-1) on a logged answer
    Feedback(cmd::feedback::Args),
    /// A workpaper of logged answers (`lens log` lists their ids): question, answer, worked
    /// calculation, quote, the cited pages rendered with their boxes, file sha256, page labels,
    /// answerer and feedback, as one self-contained HTML file or a PDF
    Workpaper(cmd::workpaper::Args),
    /// Logged answers as a spreadsheet (CSV or Excel): each operand of a worked calculation,
    /// else the quoted line, with its period, value, unit, page, box and the file's sha256
    Export(cmd::export::Args),
    /// Watched folders: new/changed PDFs are ingested, deleted ones removed
    Watch(cmd::watch::Args),
    /// Dense (embedding) vectors for the dense and hybrid retrievers
    Dense(cmd::dense::Args),
    /// Serve the UI and API on 127.0.0.1 (prints the URL with its access token)
    Serve {
        /// Port (0 picks a free one)
        #[arg(long, default_value_t = 8765)]
        port: u16,
        /// Serve the library's team users (`lens user add`), each with its own token and role,
        /// instead of one person holding a printed token
        #[arg(long)]
        team: bool,
        /// Keep the question log, feedback and users in this PostgreSQL database
        /// (postgres://USER@HOST:PORT/DB; default $LENS_DATABASE_URL, else the library's file)
        #[arg(long, env = "LENS_DATABASE_URL")]
        database: Option<String>,
        /// The address to listen on (default 127.0.0.1); beyond loopback only with --team and TLS
        #[arg(long)]
        listen: Option<std::net::IpAddr>,
        /// TLS: a PEM certificate chain (with --tls-key)
        #[arg(long, requires = "tls_key")]
        tls_cert: Option<PathBuf>,
        /// TLS: the certificate's PEM private key
        #[arg(long, requires = "tls_cert")]
        tls_key: Option<PathBuf>,
        /// A DNS name clients reach the server by (its certificate's name, e.g. lens.firm.local);
        /// repeat for more. Requests naming another host are refused
        #[arg(long = "name", requires = "tls_cert")]
        names: Vec<String>,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Team users of this library (`lens serve --team`): add, list, remove
    User(cmd::user::Args),
    /// The vision index (page images as multivectors, ColModernVBERT): build, status
    Vision {
        #[command(subcommand)]
        what: vision::VisionCmd,
    },
    /// Gold question sets: import, export, list, agreement between annotators
    Labels {
        /// The team's PostgreSQL database holding the sets (postgres://USER@HOST:PORT/DB; default
        /// $LENS_DATABASE_URL, else the library's file)
        #[arg(long, env = "LENS_DATABASE_URL", global = true)]
        database: Option<String>,
        #[command(flatten)]
        db: DbArgs,
        #[command(subcommand)]
        what: labels::LabelsCmd,
    },
    /// Benchmarks (print figures; never assert on time)
    Bench {
        #[command(subcommand)]
        what: bench::BenchCmd,
    },
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
    let mut st = lib.settings()?;
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

fn embedder(lib: &Library, models: &Option<PathBuf>) -> Result<std::sync::Arc<dyn lens_core::dense::TextEmbedder>> {
    let st = settings(lib, models)?;
    Ok(lens_ml::minilm::load_into(lib, Path::new(&st.models_dir), &st.embedder)?)
}

/// The answerer of `kind`: built in, or a model loaded as `m` and the settings say.
pub(crate) fn answerer(
    lib: &Library,
    kind: lens_core::answer::AnswererKind,
    m: &ModelArgs,
    models: &Option<PathBuf>,
) -> Result<std::sync::Arc<dyn lens_core::answer::Answerer>> {
    let st = settings(lib, models)?;
    let mut opts = lens_llm::qwen::QwenOptions { max_new_tokens: m.max_new_tokens.clamp(1, 4096), ..Default::default() };
    opts.prompt.page_tokens = m.page_tokens.max(32);
    opts.prompt.passage_tokens = m.passage_tokens.max(64);
    if m.prompt == "pages" {
        opts.prompt.mode = lens_llm::prompt::PromptMode::Pages;
    }
    if let Some(f) = &m.system_prompt {
        opts.prompt.system = std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
    }
    let choice = lens_api::ModelChoice { path: m.model.clone(), device: Some(m.device.parse()?), threads: Some(m.threads), opts: Some(opts) };
    let a = lens_api::build_answerer(kind, &st, &choice)?;
    if let Some(d) = a.describe() {
        eprintln!("model: {d}");
    }
    Ok(a)
}

fn run(cli: Cli) -> Result<()> {
    let g = Global { library: cli.library, models: cli.models };
    match cli.cmd {
        Cmd::Ingest(a) => cmd::ingest::run(&g, a)?,
        Cmd::Ocr(a) => cmd::ocr::run(&g, a)?,
        Cmd::ScanExperiment(a) => cmd::scan_experiment::run(&g, a)?,
        Cmd::Search(a) => cmd::search::run(&g, a)?,
        Cmd::Docs(a) => cmd::docs::run(&g, a)?,
        Cmd::Remove(a) => cmd::remove::run(&g, a)?,
        Cmd::Alias(a) => cmd::alias::run(&g, a)?,
        Cmd::Eval(a) => cmd::eval::run(&g, a)?,
        Cmd::Ablate(a) => cmd::ablate::run(&g, a)?,
        Cmd::Ask(a) => cmd::ask::run(&g, a)?,
        Cmd::Tables(a) => cmd::tables::run(&g, a)?,
        Cmd::Facts(a) => cmd::facts::run(&g, a)?,
        Cmd::Render(a) => cmd::render::run(&g, a)?,
        Cmd::EvalAnswers(a) => cmd::eval_answers::run(&g, a)?,
        Cmd::Devices(a) => cmd::devices::run(&g, a)?,
        Cmd::Models(a) => cmd::models::run(&g, a)?,
        Cmd::Log(a) => cmd::log::run(&g, a)?,
        Cmd::Workpaper(a) => cmd::workpaper::run(&g, a)?,
        Cmd::Export(a) => cmd::export::run(&g, a)?,
        Cmd::Feedback(a) => cmd::feedback::run(&g, a)?,
        Cmd::Dense(a) => cmd::dense::run(&g, a)?,
        Cmd::Watch(a) => cmd::watch::run(&g, a)?,
        Cmd::Serve { port, team, database, listen, tls_cert, tls_key, names, db } => {
            let tls = tls_cert.zip(tls_key);
            let opts = lens_server::Options { team, database, listen, tls, names, db: db.options()? };
            lens_server::run(lens_core::paths::library_dir(g.library.as_deref()), port, &opts)?
        }
        Cmd::User(a) => cmd::user::run(&g, a)?,
        Cmd::Vision { what } => {
            let lib = open(&g.library)?;
            let st = settings(&lib, &g.models)?;
            vision::run(&lib, st, what)?
        }
        Cmd::Labels { database, db, what } => {
            let lib = open(&g.library)?;
            match database {
                Some(url) => labels::run(&lib, &lens_pg::PgRecords::connect_with(&url, &db.options()?)?, what)?,
                None => labels::run(&lib, lib.store(), what)?,
            }
        }
        Cmd::Bench { what } => bench::run(what, g.library, g.models)?,
    }
    Ok(())
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
            IngestEvent::Facts { doc_id, facts, done, total } => println!("facts     {doc_id}: {facts} figures read ({done}/{total})"),
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

fn join<T: std::fmt::Display>(v: &[T]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}
