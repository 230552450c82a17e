//! `lens ingest`: Ingest PDF files or folders (recursive)

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Largest file accepted, in MiB
    #[arg(long, default_value_t = 1024)]
    pub max_mb: u64,
    /// Pages without a text layer: OCR them now and wait (`wait`), in a detached `lens ocr`
    /// after the text layer is published (`background`, log in the library's ocr.log), or
    /// not now (`off`: run `lens ocr` later)
    #[arg(long, value_enum, default_value_t = OcrMode::Wait)]
    pub ocr: OcrMode,
    /// Same as `--ocr off`
    #[arg(long)]
    pub no_ocr: bool,
    /// Tesseract languages for OCR, e.g. eng or eng+deu
    #[arg(long, default_value = "eng")]
    pub ocr_lang: String,
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { paths, max_mb, ocr: mode, no_ocr, ocr_lang, json } = args;
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
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OcrMode {
    Wait,
    Background,
    Off,
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
