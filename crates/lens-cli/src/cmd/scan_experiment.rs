//! `lens scan-experiment`: Scan stress test: image-only copies of documents, OCR'd, vs their text layer

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[arg(required = true)]
    pub docs: Vec<String>,
    #[arg(long)]
    pub labels: PathBuf,
    /// Scan resolution of the image-only copy
    #[arg(long, default_value_t = 150.0)]
    pub scan_dpi: f32,
    /// OCR rendering resolution
    #[arg(long, default_value_t = 300.0)]
    pub ocr_dpi: f32,
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { docs, labels, scan_dpi, ocr_dpi, json } = args;
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
    Ok(())
}
