//! OCR for pages without a text layer: render with pdfium, read words and their boxes with
//! Tesseract (Debian's `tesseract` 5, run as a subprocess with `OMP_THREAD_LIMIT=1`, one page
//! per core), map the boxes back to page points, and store text + boxes exactly like a text
//! layer, so search, answers and highlights work unchanged.

use crate::boxes::CharBox;
use crate::error::{LensError, Result};
use crate::library::Library;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

#[derive(Debug, Clone)]
pub struct OcrOptions {
    /// Tesseract languages, `+`-joined: `eng`, `eng+deu`.
    pub langs: String,
    pub dpi: f32,
    pub threads: usize,
    pub doc: Option<String>,
    pub retry_failed: bool,
    /// The Tesseract program (default: `$LENS_TESSERACT`, else `tesseract` on PATH).
    pub tesseract: String,
    /// Most pages of one document read in one run (0: no limit); the rest stay pending for the
    /// next run (`lens ocr`), so a 20,000-page scan cannot hold an ingest for hours.
    pub budget_per_doc: usize,
}

/// Pages a document may have OCR'd per run by default.
pub const DEFAULT_BUDGET_PER_DOC: usize = 500;

impl Default for OcrOptions {
    fn default() -> Self {
        OcrOptions {
            langs: "eng".into(),
            dpi: 300.0,
            threads: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2),
            doc: None,
            retry_failed: false,
            tesseract: tesseract_bin(),
            budget_per_doc: DEFAULT_BUDGET_PER_DOC,
        }
    }
}

/// One recognised word: text and box in image pixels, with its line.
#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    pub text: String,
    pub left: f32,
    pub top: f32,
    pub width: f32,
    pub height: f32,
    pub conf: f32,
    /// (block, paragraph, line) numbers
    pub line: (u32, u32, u32),
}

fn tesseract_bin() -> String {
    std::env::var("LENS_TESSERACT").unwrap_or_else(|_| "tesseract".into())
}

/// Debian package holding a Tesseract language (`chi_sim` -> `tesseract-ocr-chi-sim`).
pub fn lang_package(lang: &str) -> String {
    format!("tesseract-ocr-{}", lang.to_lowercase().replace('_', "-"))
}

/// Check that Tesseract runs and has every requested language.
pub fn check(tesseract: &str, langs: &str) -> Result<()> {
    let out = Command::new(tesseract).arg("--list-langs").output().map_err(|e| {
        LensError::BadInput(format!(
            "Tesseract is not installed or not on PATH ({e}); install the Debian packages tesseract-ocr and tesseract-ocr-eng (scripts/setup does)"
        ))
    })?;
    let listed = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let have: Vec<&str> = listed.lines().skip(1).map(str::trim).collect();
    for l in langs.split('+').filter(|l| !l.is_empty()) {
        if !have.contains(&l) {
            return Err(LensError::BadInput(format!("the Tesseract language `{l}` is not installed; install the Debian package {}", lang_package(l))));
        }
    }
    if langs.split('+').all(|l| l.is_empty()) {
        return Err(LensError::BadInput("no OCR language given (e.g. eng, or eng+deu)".into()));
    }
    Ok(())
}

/// Parse Tesseract's TSV output (word rows, level 5).
pub fn parse_tsv(tsv: &str) -> Vec<Word> {
    let mut out = Vec::new();
    for line in tsv.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 12 || f[0] != "5" {
            continue;
        }
        let text = f[11].trim();
        let conf: f32 = f[10].parse().unwrap_or(-1.0);
        if text.is_empty() || conf < 0.0 {
            continue;
        }
        let n = |i: usize| f[i].parse::<f32>().unwrap_or(0.0);
        let u = |i: usize| f[i].parse::<u32>().unwrap_or(0);
        out.push(Word { text: text.to_string(), left: n(6), top: n(7), width: n(8), height: n(9), conf, line: (u(2), u(3), u(4)) });
    }
    out
}

/// Words -> page text (one line per Tesseract line, a blank line between paragraphs) and one
/// box per char in points (each word's box split evenly over its letters).
pub fn words_to_text(words: &[Word], dpi: f32, page_height: f32) -> (String, Vec<CharBox>) {
    let k = 72.0 / dpi;
    let mut text = String::new();
    let mut boxes = Vec::new();
    let mut prev_line: Option<(u32, u32, u32)> = None;
    let mut last = CharBox::default();
    for w in words {
        if let Some(pl) = prev_line {
            let sep: &str = if pl == w.line {
                " "
            } else if (pl.0, pl.1) != (w.line.0, w.line.1) {
                "\n\n"
            } else {
                "\n"
            };
            for c in sep.chars() {
                text.push(c);
                boxes.push(CharBox::empty_after(&last));
            }
        }
        prev_line = Some(w.line);
        let n = w.text.chars().count().max(1) as f32;
        let (x0, y_top, y_bot) = (w.left * k, page_height - w.top * k, page_height - (w.top + w.height) * k);
        let cw = w.width * k / n;
        for (i, c) in w.text.chars().enumerate() {
            let b = CharBox { l: x0 + cw * i as f32, b: y_bot, r: x0 + cw * (i as f32 + 1.0), t: y_top };
            text.push(c);
            boxes.push(b);
            last = b;
        }
    }
    (text, boxes)
}

/// Is the page blank? Judged from a 36 DPI render (a few milliseconds): no pixel differs from
/// the page's background by more than a faint speck (fewer than 1 in 20,000 pixels).
pub fn is_blank(pdf: &Path, page: u32) -> Result<bool> {
    let r = crate::pdf::render(pdf, page, 36.0)?;
    let img = image::DynamicImage::ImageRgba8(r.image).to_luma8();
    // the background is the brightest common shade (white paper, or a tinted scan)
    let mut hist = [0usize; 256];
    for p in img.pixels() {
        hist[p.0[0] as usize] += 1;
    }
    let bg = (0..256).max_by_key(|v| hist[*v]).unwrap_or(255) as i32;
    let ink = img.pixels().filter(|p| (p.0[0] as i32 - bg).abs() > 40).count();
    Ok(ink * 20_000 < (img.width() as usize * img.height() as usize).max(1))
}

/// Render `page` of `pdf` at `dpi` and OCR it: (text, boxes), or `None` for a blank page
/// (Tesseract is not run on it).
pub fn ocr_page(pdf: &Path, page: u32, page_height: f32, opts: &OcrOptions, scratch: &Path) -> Result<Option<(String, Vec<CharBox>)>> {
    if is_blank(pdf, page)? {
        return Ok(None);
    }
    let r = crate::pdf::render(pdf, page, opts.dpi)?;
    let img = image::DynamicImage::ImageRgba8(r.image).to_luma8();
    let png = scratch.join(format!("p{page}-{}.png", std::process::id()));
    img.save(&png).map_err(|e| LensError::Image(format!("{}: {e}", png.display())))?;
    // --psm 1: automatic page segmentation with orientation and script detection, so rotated
    // pages are read upright; boxes stay in the rendered image's coordinates.
    let out = Command::new(&opts.tesseract)
        .arg(&png)
        .arg("-")
        .args(["-l", &opts.langs, "--psm", "1", "--dpi", &format!("{}", opts.dpi as u32), "tsv"])
        .env("OMP_THREAD_LIMIT", "1")
        .output();
    let _ = std::fs::remove_file(&png);
    let out = out.map_err(|e| LensError::BadInput(format!("Tesseract could not be run: {e}")))?;
    if !out.status.success() {
        return Err(LensError::BadInput(format!("Tesseract failed on page {page}: {}", String::from_utf8_lossy(&out.stderr).trim())));
    }
    let words = parse_tsv(&String::from_utf8_lossy(&out.stdout));
    Ok(Some(words_to_text(&words, opts.dpi, page_height)))
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum OcrEvent {
    Page { doc_id: String, page: u32, words: usize, seconds: f64, done: usize, total: usize },
    Failed { doc_id: String, page: u32, message: String },
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct OcrSummary {
    pub pages: usize,
    /// Pages found blank (recorded as such, not read).
    pub blank: usize,
    /// Pages left pending by the per-document budget.
    pub deferred: usize,
    pub failed: usize,
    pub seconds: f64,
    pub cancelled: bool,
    pub page_seconds: Vec<f64>,
}

/// A page read (or found blank) waiting to be stored: (todo index, text, heading, boxes, source).
type Done = (usize, String, String, Vec<CharBox>, &'static str);

/// OCR every page that needs it (resumable: done pages are stored as they finish).
pub fn run(lib: &mut Library, opts: &OcrOptions, cancel: &AtomicBool, on_event: &mut dyn FnMut(&OcrEvent)) -> Result<OcrSummary> {
    // documents whose first pages are to be read: their covers are read again after
    let covers: std::collections::BTreeSet<String> =
        lib.store().ocr_todo(opts.doc.as_deref(), opts.retry_failed)?.into_iter().filter(|t| t.page <= 3).map(|t| t.doc_id).collect();
    let r = run_inner(lib, opts, cancel, on_event);
    // pages changed in place: their rerank profiles must be recomputed, their facts read again
    lib.forget_profiles();
    let r = r?;
    for id in &covers {
        lib.read_cover(id)?;
    }
    lib.build_facts(&mut |_| {})?;
    Ok(r)
}

fn run_inner(lib: &mut Library, opts: &OcrOptions, cancel: &AtomicBool, on_event: &mut dyn FnMut(&OcrEvent)) -> Result<OcrSummary> {
    let t0 = Instant::now();
    let mut todo = lib.store().ocr_todo(opts.doc.as_deref(), opts.retry_failed)?;
    let mut sum = OcrSummary::default();
    if opts.budget_per_doc > 0 {
        let mut per_doc: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
        let before = todo.len();
        todo.retain(|t| {
            let n = per_doc.entry(t.doc_key).or_default();
            *n += 1;
            *n <= opts.budget_per_doc
        });
        sum.deferred = before - todo.len();
    }
    if todo.is_empty() {
        return Ok(sum);
    }
    check(&opts.tesseract, &opts.langs)?;
    if !(crate::pdf::MIN_DPI..=crate::pdf::MAX_DPI).contains(&opts.dpi) {
        return Err(LensError::BadInput(format!("OCR DPI {} is out of range", opts.dpi)));
    }
    let mut paths: std::collections::HashMap<String, PathBuf> = std::collections::HashMap::new();
    for t in &todo {
        if !paths.contains_key(&t.doc_id) {
            let doc = lib.document(&t.doc_id)?;
            paths.insert(t.doc_id.clone(), lib.pdf_path(&doc)?);
        }
    }
    let (mut w, _) = lib.writer()?;
    // rendered pages of confidential filings: a private folder (0700), removed when done
    let scratch_dir = crate::paths::private_temp_dir("lens-ocr-")?;
    let scratch = scratch_dir.path().to_path_buf();
    let total = todo.len();
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, Result<Option<(String, Vec<CharBox>)>>, f64)>();
    let threads = opts.threads.clamp(1, 16);
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..threads {
            let tx = tx.clone();
            let (todo, next, paths, scratch) = (&todo, &next, &paths, &scratch);
            scope.spawn(move || loop {
                if cancel.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(t) = todo.get(i) else { break };
                let t1 = Instant::now();
                let r = ocr_page(&paths[&t.doc_id], t.page, t.height, opts, scratch);
                if tx.send((i, r, t1.elapsed().as_secs_f64())).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut pending: Vec<Done> = Vec::new();
        let flush = |lib: &mut Library, w: &mut crate::index::PageWriter, pending: &mut Vec<Done>| -> Result<()> {
            if pending.is_empty() {
                return Ok(());
            }
            // index first, then the store: a crash between leaves the page marked for OCR,
            // and redoing it replaces the index entry again
            w.commit()?;
            for (i, text, heading, boxes, source) in pending.drain(..) {
                lib.store_mut().set_ocr_page(todo[i].doc_key, todo[i].page, &text, &heading, &boxes, source)?;
            }
            lib.index.reload()
        };
        for (i, r, secs) in rx {
            let t = &todo[i];
            match r {
                Ok(None) => {
                    // blank: recorded, so it is not looked at again
                    sum.blank += 1;
                    sum.page_seconds.push(secs);
                    on_event(&OcrEvent::Page {
                        doc_id: t.doc_id.clone(),
                        page: t.page,
                        words: 0,
                        seconds: secs,
                        done: sum.pages + sum.blank + sum.failed,
                        total,
                    });
                    pending.push((i, String::new(), String::new(), Vec::new(), "blank"));
                }
                Ok(Some((text, boxes))) => {
                    let heading = crate::text::heading_lines(&text).join("\n");
                    w.replace_page(t.doc_key, t.page, &text, &heading)?;
                    sum.pages += 1;
                    sum.page_seconds.push(secs);
                    on_event(&OcrEvent::Page {
                        doc_id: t.doc_id.clone(),
                        page: t.page,
                        words: text.split_whitespace().count(),
                        seconds: secs,
                        done: sum.pages + sum.blank + sum.failed,
                        total,
                    });
                    pending.push((i, text, heading, boxes, "ocr"));
                    if pending.len() >= 16 {
                        flush(lib, &mut w, &mut pending)?;
                    }
                }
                Err(e) => {
                    sum.failed += 1;
                    lib.store().set_ocr_error(t.doc_key, t.page, &e.to_string())?;
                    on_event(&OcrEvent::Failed { doc_id: t.doc_id.clone(), page: t.page, message: e.to_string() });
                }
            }
        }
        flush(lib, &mut w, &mut pending)?;
        Ok(())
    })?;
    drop(scratch_dir);
    sum.cancelled = cancel.load(Ordering::Relaxed);
    sum.seconds = t0.elapsed().as_secs_f64();
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn tsv_words_become_lines_and_point_boxes() {
        let tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n\
                   5\t1\t1\t1\t1\t1\t100\t200\t40\t20\t95.1\tNet\n\
                   5\t1\t1\t1\t1\t2\t150\t200\t80\t20\t94.0\tincome\n\
                   5\t1\t1\t1\t2\t1\t100\t240\t50\t20\t90.0\t5,363\n\
                   4\t1\t1\t1\t2\t0\t100\t240\t50\t20\t-1\t\n";
        let w = parse_tsv(tsv);
        assert_eq!(w.len(), 3);
        let (text, boxes) = words_to_text(&w, 144.0, 792.0);
        assert_eq!(text, "Net income\n5,363");
        assert_eq!(boxes.len(), text.chars().count());
        // "N": x 100px at 144 dpi = 50 pt; top 200px = 100 pt from the top
        assert_eq!(boxes[0].l, 50.0);
        assert_eq!(boxes[0].t, 792.0 - 100.0);
        assert_eq!(boxes[0].b, 792.0 - 110.0);
        assert!(boxes[3].is_empty()); // the space
    }
    #[test]
    fn language_packages_are_named() {
        assert_eq!(lang_package("chi_sim"), "tesseract-ocr-chi-sim");
        assert!(check("tesseract", "xx_nonexistent").unwrap_err().to_string().contains("tesseract-ocr-xx-nonexistent"));
    }
}
