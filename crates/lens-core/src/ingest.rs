//! Ingest: files or folders -> pages with text and character boxes -> store + index.
//!
//! Pipeline: one extraction thread per core reads, hashes and extracts, each with its own
//! private pdfium instance (see `extract.rs`); the calling thread stores, compresses and
//! indexes as results arrive. Documents are written `pending`,
//! indexed, and published in batches: each document becomes visible with its index entries
//! or not at all, and a killed ingest is finished by the next one (see `Library::writer`).

use crate::error::{LensError, Result};
use crate::library::Library;
use crate::meta;
use crate::pdf::PageText;
use crate::store::NewPage;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Instant;

/// Default largest PDF accepted (bytes).
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;
/// Most text characters one document may hold ([`crate::extract::MAX_CHARS`]).
pub use crate::extract::MAX_CHARS;
/// Most pages one document may have ([`crate::extract::MAX_PAGES`], where it is enforced).
pub use crate::extract::MAX_PAGES;
/// Pages indexed before the batch is committed and published.
const BATCH_PAGES: usize = 4000;

#[derive(Debug, Clone)]
pub struct IngestOptions {
    pub max_bytes: u64,
}

impl Default for IngestOptions {
    fn default() -> Self {
        IngestOptions { max_bytes: DEFAULT_MAX_BYTES }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Added,
    Replaced,
    Unchanged,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum IngestEvent {
    /// A file was stored (visible once its batch is published).
    Stored {
        path: String,
        doc_id: String,
        pages: u32,
        needs_ocr: u32,
        seconds: f64,
        outcome: Outcome,
    },
    Unchanged {
        path: String,
        doc_id: String,
    },
    Failed {
        path: String,
        code: String,
        message: String,
    },
    /// A batch of documents became searchable.
    Published {
        docs: usize,
        pages: usize,
    },
    /// A document's tables were read into facts (`crate::facts`), `done` of `total`.
    Facts {
        doc_id: String,
        facts: usize,
        done: usize,
        total: usize,
    },
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct IngestSummary {
    pub files: usize,
    pub added: usize,
    pub replaced: usize,
    pub unchanged: usize,
    pub failed: usize,
    pub pages: usize,
    pub needs_ocr_pages: usize,
    pub seconds: f64,
    pub skipped_non_pdf: usize,
    pub recovered_pending: usize,
}

/// A folder's identity (device, inode): a folder reached twice (a symlink loop, a link back up
/// the tree) is walked once.
fn dir_id(p: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

/// PDFs under `paths`: files as given, folders walked recursively (non-PDF files counted, skipped).
/// Symlinks are followed, but no folder is entered twice, so a symlink loop ends the walk there.
pub fn collect_pdfs(paths: &[PathBuf]) -> (Vec<PathBuf>, usize, Vec<(PathBuf, LensError)>) {
    let mut out = Vec::new();
    let mut skipped = 0;
    let mut errors = Vec::new();
    let mut seen: std::collections::HashSet<(u64, u64)> = std::collections::HashSet::new();
    fn walk(dir: &Path, out: &mut Vec<PathBuf>, skipped: &mut usize, errors: &mut Vec<(PathBuf, LensError)>, seen: &mut std::collections::HashSet<(u64, u64)>) {
        if dir_id(dir).is_some_and(|id| !seen.insert(id)) {
            return;
        }
        let rd = match std::fs::read_dir(dir) {
            Ok(r) => r,
            Err(e) => {
                errors.push((dir.to_path_buf(), LensError::io(dir, e)));
                return;
            }
        };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out, skipped, errors, seen);
            } else if is_pdf_name(&p) {
                out.push(p);
            } else {
                *skipped += 1;
            }
        }
    }
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out, &mut skipped, &mut errors, &mut seen);
        } else if p.exists() {
            out.push(p.clone());
        } else {
            errors.push((p.clone(), LensError::io(p, std::io::Error::new(std::io::ErrorKind::NotFound, "no such file or folder"))));
        }
    }
    (out, skipped, errors)
}

pub fn is_pdf_name(p: &Path) -> bool {
    p.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
}

/// The document id of a file: its name without `.pdf`.
pub fn doc_id_for(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| "document".into())
}

/// A file's bytes, refusing what is not a regular file (devices, FIFOs, sockets: checked by type
/// before opening, so a named pipe cannot block) and stopping at `max` bytes actually read (a size
/// the file system reports is not trusted: `/dev/zero` reports 0).
pub fn read_capped(path: &Path, max: u64) -> Result<Vec<u8>> {
    use std::io::Read;
    let m = std::fs::metadata(path).map_err(|e| LensError::io(path, e))?;
    if !m.file_type().is_file() {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        let kind = if t.is_fifo() {
            "a named pipe"
        } else if t.is_char_device() || t.is_block_device() {
            "a device"
        } else if t.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        };
        return Err(LensError::BadInput(format!("{}: {kind}, not a PDF file; skipped", path.display())));
    }
    if m.len() > max {
        return Err(LensError::TooLarge { path: path.to_path_buf(), bytes: m.len(), limit: max });
    }
    let f = std::fs::File::open(path).map_err(|e| LensError::io(path, e))?;
    let mut bytes = Vec::with_capacity(m.len() as usize);
    f.take(max + 1).read_to_end(&mut bytes).map_err(|e| LensError::io(path, e))?;
    if bytes.len() as u64 > max {
        return Err(LensError::TooLarge { path: path.to_path_buf(), bytes: bytes.len() as u64, limit: max });
    }
    Ok(bytes)
}

struct Extracted {
    path: PathBuf,
    id: String,
    sha: String,
    bytes: Vec<u8>,
    pages: Vec<PageText>,
    headings: Vec<String>,
    meta: meta::DocMeta,
    seconds: f64,
}

enum Msg {
    Doc(Box<Extracted>),
    Unchanged(PathBuf, String),
    Failed(PathBuf, LensError),
}

fn read_and_extract(ex: &mut crate::extract::Extractor, path: &Path, id: &str, known: &Known, opts: &IngestOptions) -> Msg {
    let t0 = Instant::now();
    let id = id.to_string();
    if !is_pdf_name(path) {
        return Msg::Failed(path.to_path_buf(), LensError::NotPdf { path: path.to_path_buf() });
    }
    let bytes = match read_capped(path, opts.max_bytes) {
        Ok(b) => b,
        Err(e) => return Msg::Failed(path.to_path_buf(), e),
    };
    let sha = crate::text::hex(&Sha256::digest(&bytes));
    // the same content is the same document, wherever the file now is
    if let Some(same) = known.by_sha.get(&sha) {
        return Msg::Unchanged(path.to_path_buf(), same.clone());
    }
    let pages = match ex.extract(path, &bytes) {
        Ok(p) => p,
        Err(e) => return Msg::Failed(path.to_path_buf(), e),
    };

    let headings: Vec<String> = pages.iter().map(|p| crate::text::heading_lines(&p.text).join("\n")).collect();
    let first: Vec<&str> = pages.iter().take(3).map(|p| p.text.as_str()).collect();
    let meta = meta::guess(&doc_id_for(path), &first);
    Msg::Doc(Box::new(Extracted { path: path.to_path_buf(), id, sha, bytes, pages, headings, meta, seconds: t0.elapsed().as_secs_f64() }))
}

/// What the library holds when an ingest starts.
struct Known {
    /// content hash -> document id
    by_sha: HashMap<String, String>,
    /// document id -> (path, sha256)
    by_id: HashMap<String, (String, String)>,
}

/// The id a file gets: its name without `.pdf`; when another file of that name (from another
/// folder) already holds it, `name~2`, `name~3`, ... A file already stored under one of these
/// ids at the same path keeps its id (a changed file replaces its old version).
fn assign_id(stem: &str, path: &str, taken: &HashMap<String, (String, String)>) -> String {
    let mut n = 1;
    loop {
        let id = if n == 1 { stem.to_string() } else { format!("{stem}~{n}") };
        match taken.get(&id) {
            None => return id,
            Some((p, _)) if p == path => return id,
            Some(_) => n += 1,
        }
    }
}

/// Ingest `paths` into `lib`. Bad files are reported through `on_event` and skipped; the
/// call fails only when the library itself cannot be written.
pub fn ingest(
    lib: &mut Library,
    paths: &[PathBuf],
    opts: &IngestOptions,
    cancel: &AtomicBool,
    on_event: &mut dyn FnMut(&IngestEvent),
) -> Result<IngestSummary> {
    let t0 = Instant::now();
    // One private pdfium instance per extraction thread; a missing pdfium is one clear error.
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).clamp(1, 4);
    let mut extractors = Vec::with_capacity(threads);
    for _ in 0..threads {
        extractors.push(crate::extract::Extractor::new()?);
    }
    let (mut w, rec) = lib.writer()?;
    let mut sum = IngestSummary { recovered_pending: rec.discarded_pending, ..Default::default() };
    let (files, skipped, walk_errors) = collect_pdfs(paths);
    sum.skipped_non_pdf = skipped;
    for (p, e) in walk_errors {
        sum.failed += 1;
        on_event(&IngestEvent::Failed { path: p.display().to_string(), code: e.code().into(), message: e.to_string() });
    }
    sum.files = files.len();
    let docs = lib.documents()?;
    let known = Known {
        by_sha: docs.iter().map(|d| (d.sha256.clone(), d.id.clone())).collect(),
        by_id: docs.into_iter().map(|d| (d.id, (d.path, d.sha256))).collect(),
    };
    // ids, given in the order files are listed (extraction finishes in any order)
    let mut planned = known.by_id.clone();
    let ids: Vec<String> = files
        .iter()
        .map(|f| {
            let path = f.display().to_string();
            let id = assign_id(&doc_id_for(f), &path, &planned);
            planned.insert(id.clone(), (path, String::new()));
            id
        })
        .collect();
    // content stored in this run, for a file that repeats another of the same batch
    let mut stored: HashMap<String, String> = HashMap::new();

    let (tx, rx) = mpsc::sync_channel::<Msg>(threads + 1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| -> Result<()> {
        for mut ex in extractors {
            let tx = tx.clone();
            let (files, ids, next, known, opts) = (&files, &ids, &next, &known, opts);
            scope.spawn(move || loop {
                if cancel.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(f) = files.get(i) else { break };
                if tx.send(read_and_extract(&mut ex, f, &ids[i], known, opts)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut batch: Vec<(i64, Vec<String>)> = Vec::new();
        let mut replaced_shas: Vec<String> = Vec::new();
        let mut batch_pages = 0usize;
        let publish = |lib: &mut Library,
                       w: &mut crate::index::PageWriter,
                       batch: &mut Vec<(i64, Vec<String>)>,
                       batch_pages: &mut usize,
                       on_event: &mut dyn FnMut(&IngestEvent)|
         -> Result<()> {
            if batch.is_empty() {
                return Ok(());
            }
            w.commit()?;
            for (key, aliases) in batch.iter() {
                lib.store.publish(*key, aliases)?;
            }
            lib.apply_tombstones(w)?;
            on_event(&IngestEvent::Published { docs: batch.len(), pages: *batch_pages });
            batch.clear();
            *batch_pages = 0;
            Ok(())
        };
        for msg in rx {
            match msg {
                Msg::Unchanged(p, id) => {
                    sum.unchanged += 1;
                    on_event(&IngestEvent::Unchanged { path: p.display().to_string(), doc_id: id });
                }
                Msg::Failed(p, e) => {
                    sum.failed += 1;
                    let job = lib.store.job_start(&p.display().to_string())?;
                    lib.store.job_finish(job, "failed", None, None, None, Some(&e))?;
                    on_event(&IngestEvent::Failed { path: p.display().to_string(), code: e.code().into(), message: e.to_string() });
                }
                Msg::Doc(d) => {
                    let t1 = Instant::now();
                    let path_s = d.path.display().to_string();
                    // two files with the same content in one batch: the second is the first
                    if let Some(id) = stored.get(&d.sha) {
                        sum.unchanged += 1;
                        on_event(&IngestEvent::Unchanged { path: path_s, doc_id: id.clone() });
                        continue;
                    }
                    stored.insert(d.sha.clone(), d.id.clone());
                    let previous = known.by_id.get(&d.id).cloned();
                    let job = lib.store.job_start(&path_s)?;
                    let new_pages: Vec<NewPage> = d
                        .pages
                        .iter()
                        .zip(&d.headings)
                        .map(|(p, h)| NewPage {
                            page: p.page,
                            text: &p.text,
                            heading: h,
                            boxes: &p.boxes,
                            width: p.width,
                            height: p.height,
                            needs_ocr: p.needs_ocr,
                            label: p.label.as_deref(),
                        })
                        .collect();
                    // keep a copy so pages can be rendered even if the original moves
                    lib.keep_pdf_copy(&d.sha, &d.bytes)?;
                    let key = lib.store.insert_pending(&d.id, &path_s, d.bytes.len() as u64, &d.sha, &d.meta, &new_pages)?;
                    for (p, h) in d.pages.iter().zip(&d.headings) {
                        w.add_page(key, p.page, &p.text, h)?;
                    }
                    let needs_ocr = d.pages.iter().filter(|p| p.needs_ocr).count() as u32;
                    lib.store.job_finish(job, "done", Some(&d.id), Some(&d.sha), Some(d.pages.len() as u32), None)?;
                    let outcome = if previous.is_some() { Outcome::Replaced } else { Outcome::Added };
                    if let Some((_, old)) = previous {
                        replaced_shas.push(old);
                    }
                    match outcome {
                        Outcome::Replaced => sum.replaced += 1,
                        _ => sum.added += 1,
                    }
                    sum.pages += d.pages.len();
                    sum.needs_ocr_pages += needs_ocr as usize;
                    batch_pages += d.pages.len();
                    batch.push((key, d.meta.aliases.clone()));
                    on_event(&IngestEvent::Stored {
                        path: path_s,
                        doc_id: d.id.clone(),
                        pages: d.pages.len() as u32,
                        needs_ocr,
                        seconds: d.seconds + t1.elapsed().as_secs_f64(),
                        outcome,
                    });
                    if batch_pages >= BATCH_PAGES {
                        publish(lib, &mut w, &mut batch, &mut batch_pages, on_event)?;
                    }
                }
            }
        }
        publish(lib, &mut w, &mut batch, &mut batch_pages, on_event)?;
        lib.prune_copies(&replaced_shas);
        Ok(())
    })?;
    w.wait_merging_threads()?;
    lib.index.reload()?;
    if cancel.load(Ordering::Relaxed) {
        return Err(LensError::Cancelled);
    }
    // covers an older build could not read (new filings' were read as they came in), then the
    // new filings read into facts (and any the library still lacks)
    lib.read_covers()?;
    lib.build_facts(&mut |p| on_event(&IngestEvent::Facts { doc_id: p.doc_id.clone(), facts: p.facts, done: p.done, total: p.total }))?;
    sum.seconds = t0.elapsed().as_secs_f64();
    Ok(sum)
}

/// [`ingest`], then OCR of the pages that have no text layer when `ocr` is given and the ingest
/// stored any. The OCR run's outcome is returned beside the ingest's, never instead of it: an
/// OCR failure (no Tesseract, a missing language) leaves the text-layer pages ingested.
pub fn ingest_then_ocr(
    lib: &mut Library,
    paths: &[PathBuf],
    opts: &IngestOptions,
    ocr: Option<&crate::ocr::OcrOptions>,
    cancel: &AtomicBool,
    on_ingest: &mut dyn FnMut(&IngestEvent),
    on_ocr: &mut dyn FnMut(&crate::ocr::OcrEvent),
) -> Result<(IngestSummary, Option<Result<crate::ocr::OcrSummary>>)> {
    let s = ingest(lib, paths, opts, cancel, on_ingest)?;
    let o = match ocr {
        Some(o) if s.needs_ocr_pages > 0 => Some(crate::ocr::run(lib, o, cancel, on_ocr)),
        _ => None,
    };
    Ok((s, o))
}
