//! Image-only PDFs: write a PDF whose pages are just JPEG images (what a scanner makes). Used by
//! the scan stress test and by tests that need a real scan of a known page.

use crate::error::{LensError, Result};
use std::path::Path;

/// One page: JPEG bytes, pixel size, page size in points.
pub struct ImagePage {
    pub jpeg: Vec<u8>,
    pub px_w: u32,
    pub px_h: u32,
    pub pt_w: f32,
    pub pt_h: f32,
}

/// A PDF with one full-page DCT image per page ([`crate::pdfwrite`]).
pub fn images_to_pdf(pages: Vec<ImagePage>) -> Vec<u8> {
    let mut w = crate::pdfwrite::Writer::new("image-only copy");
    for p in pages {
        w.page((p.pt_w, p.pt_h)).jpeg(0.0, 0.0, p.pt_w, p.pt_h, crate::pdfwrite::Jpeg { data: p.jpeg, width: p.px_w, height: p.px_h });
    }
    w.finish()
}

/// Render pages of `pdf` (1-based; all when `pages` is empty) at `dpi` and write an image-only copy.
pub fn make_image_only(pdf: &Path, pages: &[u32], dpi: f32, out: &Path) -> Result<usize> {
    let count = {
        let p = crate::pdf::pdfium()?;
        let doc = p.load_pdf_from_file(pdf, None).map_err(|e| LensError::CorruptPdf { path: pdf.to_path_buf(), reason: e.to_string() })?;
        doc.pages().len() as u32
    };
    let list: Vec<u32> = if pages.is_empty() { (1..=count).collect() } else { pages.to_vec() };
    let mut imgs = Vec::with_capacity(list.len());
    for &pg in &list {
        let r = crate::pdf::render(pdf, pg, dpi)?;
        let jpeg = crate::render::jpeg_bytes(&r.image, 85)?;
        imgs.push(ImagePage { jpeg, px_w: r.image.width(), px_h: r.image.height(), pt_w: r.page_width, pt_h: r.page_height });
    }
    std::fs::write(out, images_to_pdf(imgs)).map_err(|e| LensError::io(out, e))?;
    Ok(list.len())
}

/// Result of the scan stress test on one or more documents.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Experiment {
    pub docs: Vec<String>,
    pub pages: usize,
    pub questions: usize,
    pub text: crate::eval::Summary,
    pub ocr: crate::eval::Summary,
    pub ndcg5: crate::eval::Comparison,
    pub hit3: crate::eval::Comparison,
    pub ocr_seconds: f64,
    pub ocr_page_p50_s: f64,
    pub ocr_page_p95_s: f64,
}

/// Turn each document into an image-only copy, OCR it, and compare retrieval (oracle mode: the
/// document's own labelled questions) with the text layer vs with OCR, paired per question.
pub fn experiment(
    src: &crate::Library,
    docs: &[String],
    labels: &[crate::eval::Label],
    dpi: f32,
    ocr: &crate::ocr::OcrOptions,
    work: &Path,
    on_ocr: &mut dyn FnMut(&crate::ocr::OcrEvent),
) -> Result<Experiment> {
    use crate::eval::{self, EvalOptions, Mode};
    use std::sync::atomic::AtomicBool;
    let (text_dir, scan_dir) = (work.join("text-pdfs"), work.join("scan-pdfs"));
    for d in [&text_dir, &scan_dir] {
        std::fs::create_dir_all(d).map_err(|e| LensError::io(d, e))?;
    }
    let mut pages = 0;
    for id in docs {
        let doc = src.document(id)?;
        let pdf = src.pdf_path(&doc)?;
        std::fs::copy(&pdf, text_dir.join(format!("{id}.pdf"))).map_err(|e| LensError::io(&pdf, e))?;
        pages += make_image_only(&pdf, &[], dpi, &scan_dir.join(format!("{id}.pdf")))?;
    }
    let never = AtomicBool::new(false);
    let opts = crate::ingest::IngestOptions::default();
    let mut text_lib = crate::Library::open(&work.join("lib-text"))?;
    crate::ingest::ingest(&mut text_lib, &[text_dir], &opts, &never, &mut |_| {})?;
    let mut scan_lib = crate::Library::open(&work.join("lib-scan"))?;
    crate::ingest::ingest(&mut scan_lib, &[scan_dir], &opts, &never, &mut |_| {})?;
    let o = crate::ocr::run(&mut scan_lib, ocr, &never, on_ocr)?;
    let mine: Vec<eval::Label> =
        labels.iter().filter(|l| !l.gold_pages().is_empty() && l.gold_pages().iter().all(|g| docs.contains(&g.0.doc_id))).cloned().collect();
    let eo = EvalOptions { mode: Mode::Oracle, ..Default::default() };
    let (rows_t, sum_t) = eval::run(&text_lib, &mine, &eo)?;
    let (rows_o, sum_o) = eval::run(&scan_lib, &mine, &eo)?;
    let by = |rows: &[eval::Row], f: fn(&eval::Metrics) -> f64| rows.iter().map(|r| (r.id.clone(), f(&r.m))).collect::<std::collections::HashMap<_, _>>();
    let mut secs = o.page_seconds.clone();
    secs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    Ok(Experiment {
        docs: docs.to_vec(),
        pages,
        questions: mine.len(),
        ndcg5: eval::paired_bootstrap("ocr", &by(&rows_t, |m| m.ndcg5), &by(&rows_o, |m| m.ndcg5), 1000, 42),
        hit3: eval::paired_bootstrap("ocr", &by(&rows_t, |m| m.hit3), &by(&rows_o, |m| m.hit3), 1000, 42),
        text: sum_t,
        ocr: sum_o,
        ocr_seconds: o.seconds,
        ocr_page_p50_s: eval::percentile(&secs, 50.0),
        ocr_page_p95_s: eval::percentile(&secs, 95.0),
    })
}
