//! `lens ocr`: OCR pages that have no text layer (resumes where it stopped)

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    pub doc: Option<String>,
    #[arg(long, default_value = "eng")]
    pub lang: String,
    #[arg(long, default_value_t = 300.0)]
    pub dpi: f32,
    /// Try again pages whose OCR failed before
    #[arg(long)]
    pub retry_failed: bool,
    /// Most pages of one document read in this run (0: all); the rest stay pending
    #[arg(long, default_value_t = lens_core::ocr::DEFAULT_BUDGET_PER_DOC)]
    pub budget: usize,
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { doc, lang, dpi, retry_failed, budget, json } = args;
    let mut lib = open(&cli.library)?;
    let opts = lens_core::ocr::OcrOptions { langs: lang, dpi, doc, retry_failed, budget_per_doc: budget, ..Default::default() };
    let s = lens_core::ocr::run(&mut lib, &opts, &AtomicBool::new(false), &mut |e| print_ocr_event(e, json))?;
    print_ocr_summary(&s, json)?;
    Ok(())
}
