//! The vision index of a library: `LIBRARY/vision/KEY.lvx` per document version, recorded in the
//! `vision_docs` table once published; building it (resumable, page by page, in priority order)
//! and searching it ([`VisionLibrary`] is the library's [`VisionIndex`]).
//!
//! Publish / tombstone, as for the text index: a document's file is written under a temporary
//! name, renamed into place, then its row is inserted; readers trust only rows, and a row is
//! deleted in the same transaction that removes or replaces the document. Files without a row
//! (a replaced version, a crash between rename and insert, a removed document) are swept at the
//! start of each build. A build killed midway keeps every page already embedded in
//! `KEY.partial` and goes on from there next time, with the same model and edge only (a staging
//! file records what it was started for; one for another is begun again).

use crate::encoder::VisionEncoder;
use crate::index::{self, Built, DocIndex, Partial};
use crate::preprocess::Rgb;
use lens_core::error::{LensError, Result};
use lens_core::index::IndexHit;
use lens_core::library::Library;
use lens_core::pageref::PageRef;
use lens_core::store::{Store, VisionDoc};
use lens_core::vision::VisionIndex;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// `LIBRARY/vision`.
pub fn vision_dir(lib: &Library) -> Result<PathBuf> {
    let d = lib.dir().ok_or_else(|| LensError::BadInput("an in-memory library has no vision index".into()))?.join("vision");
    std::fs::create_dir_all(&d).map_err(|e| LensError::io(&d, e))?;
    Ok(d)
}

/// The index settings a model and edge give.
pub fn built_for(enc: &VisionEncoder, pooled: bool) -> Built {
    Built { model: enc.name.clone(), edge: enc.edge as u32, dim: enc.dim() as u32, pooled }
}

fn matches(v: &VisionDoc, b: &Built) -> bool {
    v.model == b.model && v.edge == b.edge && v.pooled == b.pooled
}

/// A published row's time and size: a file reopened when they change (a rebuild).
type Stamp = (String, u64);
/// Loaded encoders by model folder and edge.
type Encoders = Mutex<HashMap<(PathBuf, usize), Arc<VisionEncoder>>>;

/// Search side: the encoder for queries and the published files, opened on first use.
pub struct VisionLibrary {
    encoder: Arc<VisionEncoder>,
    built: Built,
    dir: PathBuf,
    /// key -> (the row's built_at and bytes it was opened for, the mapped file)
    open: Mutex<HashMap<i64, (Stamp, Arc<DocIndex>)>>,
    /// On a GPU: documents uploaded for MaxSim there, by key and stamp.
    on_device: Mutex<HashMap<i64, (Stamp, Arc<crate::maxsim_ops::DeviceDoc>)>>,
}

/// Most bytes of page vectors MaxSim keeps on a GPU (`LENS_GPU_MAXSIM_MB`, default 8 GiB); a
/// search over more runs on the CPU kernels.
fn device_budget() -> usize {
    std::env::var("LENS_GPU_MAXSIM_MB").ok().and_then(|v| v.parse::<usize>().ok()).unwrap_or(8192) << 20
}

impl VisionLibrary {
    pub fn new(lib: &Library, encoder: Arc<VisionEncoder>, pooled: bool) -> Result<VisionLibrary> {
        let built = built_for(&encoder, pooled);
        Ok(VisionLibrary { encoder, built, dir: vision_dir(lib)?, open: Mutex::new(HashMap::new()), on_device: Mutex::new(HashMap::new()) })
    }

    fn doc(&self, key: i64, row: &VisionDoc) -> Result<Arc<DocIndex>> {
        let stamp = (row.built_at.clone(), row.bytes);
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((s, d)) = open.get(&key) {
            if *s == stamp {
                return Ok(d.clone());
            }
        }
        let d = Arc::new(DocIndex::open(&self.dir.join(format!("{key}.lvx")), Some(&self.built))?);
        open.insert(key, (stamp, d.clone()));
        Ok(d)
    }

    /// MaxSim over `docs` on the encoder's device when it runs candle's ops (a GPU) and their
    /// vectors fit the budget (uploaded once per published file); `None`: the CPU kernels, or
    /// too large (the caller runs the CPU kernels).
    fn score_on_device(&self, query: &[f32], docs: &[(i64, Stamp, Arc<DocIndex>)]) -> Result<Option<Vec<(usize, u32, f32)>>> {
        let device = self.encoder.model.device();
        if !self.encoder.model.ops() {
            return Ok(None);
        }
        let padded = |d: &DocIndex| d.num_pages() * (0..d.num_pages()).map(|i| d.page(i).1).max().unwrap_or(1) * (d.dim() + 1) * 4;
        if docs.iter().map(|(_, _, d)| padded(d)).sum::<usize>() > device_budget() {
            return Ok(None);
        }
        let mut out = Vec::new();
        for (i, (key, stamp, d)) in docs.iter().enumerate() {
            let up = {
                let mut cache = self.on_device.lock().unwrap_or_else(|p| p.into_inner());
                match cache.get(key) {
                    Some((s, u)) if s == stamp => u.clone(),
                    _ => {
                        let u = Arc::new(crate::maxsim_ops::DeviceDoc::upload(d, device)?);
                        cache.insert(*key, (stamp.clone(), u.clone()));
                        u
                    }
                }
            };
            out.extend(up.score(query)?.into_iter().map(|(page, s)| (i, page, s)));
        }
        Ok(Some(out))
    }

    fn rows(&self, store: &Store) -> Result<HashMap<i64, VisionDoc>> {
        Ok(store.vision_docs()?.into_iter().filter(|(_, v)| matches(v, &self.built)).collect())
    }
}

impl VisionIndex for VisionLibrary {
    fn name(&self) -> String {
        format!("{}@{}", self.built.model, self.built.edge)
    }

    fn covered(&self, store: &Store, keys: &[i64]) -> Result<Vec<i64>> {
        let rows = self.rows(store)?;
        Ok(keys.iter().copied().filter(|k| rows.contains_key(k)).collect())
    }

    fn embed_query(&self, question: &str) -> Result<Vec<f32>> {
        self.encoder.embed_query(question)
    }

    fn rank(&self, store: &Store, query: &[f32], keys: &[i64], depth: usize) -> Result<Vec<IndexHit>> {
        let rows = self.rows(store)?;
        let mut docs = Vec::new();
        let mut doc_keys = Vec::new();
        for k in keys {
            if let Some(r) = rows.get(k) {
                docs.push(self.doc(*k, r)?);
                doc_keys.push(*k);
            }
        }
        let stamped: Vec<(i64, Stamp, Arc<DocIndex>)> =
            doc_keys.iter().zip(&docs).map(|(k, d)| (*k, (rows[k].built_at.clone(), rows[k].bytes), d.clone())).collect();
        let mut all = match self.score_on_device(query, &stamped)? {
            Some(all) => all,
            None => index::score_all(query, &docs.iter().map(|d| d.as_ref()).collect::<Vec<_>>()),
        };
        all.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
        all.truncate(depth);
        Ok(all.into_iter().map(|(d, page, score)| IndexHit { doc_key: doc_keys[d], page, score }).collect())
    }

    fn score(&self, store: &Store, query: &[f32], pages: &[(i64, u32)]) -> Result<Vec<Option<f32>>> {
        let rows = self.rows(store)?;
        pages
            .iter()
            .map(|(k, p)| match rows.get(k) {
                None => Ok(None),
                Some(r) => {
                    let d = self.doc(*k, r)?;
                    Ok(d.find(*p).map(|i| {
                        let (_, n, v) = d.page(i);
                        crate::maxsim::score(query, d.dim(), v, n)
                    }))
                }
            })
            .collect()
    }
}

/// Build options.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Only these documents (ids), in this order; default: every document, scans first.
    pub docs: Option<Vec<String>>,
    /// Embed again documents already indexed with this model and edge.
    pub rebuild: bool,
    /// k-means pooling per page (×3 fewer vectors).
    pub pooled: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct BuildProgress {
    pub doc_id: String,
    pub doc_pages_done: usize,
    pub doc_pages: usize,
    pub docs_done: usize,
    pub docs_total: usize,
    /// Pages embedded in this run (resumed pages not counted).
    pub pages: usize,
    pub seconds: f64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct BuildReport {
    pub docs_built: usize,
    pub docs_skipped: usize,
    pub pages: usize,
    pub resumed_pages: usize,
    pub swept_files: usize,
    pub seconds: f64,
}

/// Remove files with no published row for a complete document (and stale temporaries). Partial
/// files of complete documents are kept: they are resumed.
pub fn sweep(lib: &Library) -> Result<usize> {
    let dir = vision_dir(lib)?;
    let rows = lib.vision_docs()?;
    let live: HashSet<i64> = lib.documents()?.into_iter().map(|d| d.key).collect();
    let mut n = 0;
    for e in std::fs::read_dir(&dir).map_err(|e| LensError::io(&dir, e))?.flatten() {
        let p = e.path();
        let name = p.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        let key: Option<i64> = name.split('.').next().and_then(|k| k.parse().ok());
        let keep = match (key, name.rsplit('.').next()) {
            (Some(k), Some("lvx")) => rows.contains_key(&k),
            (Some(k), Some("partial")) => live.contains(&k),
            _ => false,
        };
        if !keep {
            std::fs::remove_file(&p).map_err(|e| LensError::io(&p, e))?;
            n += 1;
        }
    }
    Ok(n)
}

fn rgb(img: image::RgbaImage) -> Rgb {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let data: Vec<u8> = img.into_raw().chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
    Rgb::new(w, h, data)
}

/// Render a page for the encoder: at twice the target edge (the processor resizes it down).
pub fn render_page(pdf: &Path, page: u32, width_pt: f32, height_pt: f32, edge: usize) -> Result<Rgb> {
    let longest = width_pt.max(height_pt).max(1.0);
    let dpi = (2.0 * edge as f32 * 72.0 / longest).clamp(lens_core::pdf::MIN_DPI, 300.0);
    Ok(rgb(lens_core::pdf::render(pdf, page, dpi)?.image))
}

/// Embed documents page by page into their vision index files, publishing each when complete.
/// Returns `Cancelled` when `cancel` is set (what is done is kept and resumed next time).
pub fn build(lib: &Library, enc: &VisionEncoder, opts: &BuildOptions, cancel: &AtomicBool, progress: &mut dyn FnMut(&BuildProgress)) -> Result<BuildReport> {
    let t0 = Instant::now();
    let dir = vision_dir(lib)?;
    let built = built_for(enc, opts.pooled);
    let mut report = BuildReport { swept_files: sweep(lib)?, ..Default::default() };
    let mut docs = match &opts.docs {
        Some(ids) => ids.iter().map(|id| lib.document(id)).collect::<Result<Vec<_>>>()?,
        None => {
            // pages without a text layer first: documents by their share of such pages
            let mut v = lib.documents()?;
            v.sort_by(|a, b| {
                (b.needs_ocr_pages as f64 / b.pages.max(1) as f64).total_cmp(&(a.needs_ocr_pages as f64 / a.pages.max(1) as f64)).then(a.id.cmp(&b.id))
            });
            v
        }
    };
    let rows = lib.vision_docs()?;
    if !opts.rebuild {
        let before = docs.len();
        docs.retain(|d| rows.get(&d.key).is_none_or(|r| !matches(r, &built)));
        report.docs_skipped = before - docs.len();
    }
    let mut p = BuildProgress { docs_total: docs.len(), ..Default::default() };
    for d in &docs {
        let partial_path = dir.join(format!("{}.partial", d.key));
        if opts.rebuild && rows.contains_key(&d.key) {
            lib.remove_vision_doc(d.key)?;
        }
        let mut part = Partial::open(&partial_path, &built)?;
        report.resumed_pages += part.done();
        let pdf = lib.pdf_path(d)?;
        // this document's pages without a text layer first
        let mut pages: Vec<(bool, u32, f32, f32)> = Vec::with_capacity(d.pages as usize);
        for n in 1..=d.pages {
            let pg = lib.page(&d.id, n)?;
            pages.push((!pg.needs_ocr, n, pg.width, pg.height));
        }
        pages.sort_by_key(|x| (x.0, x.1));
        p.doc_id = d.id.clone();
        p.doc_pages = d.pages as usize;
        p.doc_pages_done = part.done();
        progress(&p);
        for (_, n, w, h) in pages {
            if part.has(n) {
                continue;
            }
            if cancel.load(Ordering::Relaxed) {
                return Err(LensError::Cancelled);
            }
            let img = render_page(&pdf, n, w, h, enc.edge).map_err(|e| LensError::Model(format!("{}: {e}", PageRef::new(d.id.clone(), n))))?;
            let v = enc.embed_page(&img)?;
            part.add(n, &v)?;
            report.pages += 1;
            p.pages += 1;
            p.doc_pages_done += 1;
            p.seconds = t0.elapsed().as_secs_f64();
            progress(&p);
        }
        let dest = dir.join(format!("{}.lvx", d.key));
        let done = part.finish(&dest, &built)?;
        let row = VisionDoc {
            model: built.model.clone(),
            edge: built.edge,
            pooled: built.pooled,
            pages: done.pages,
            vectors: done.vectors,
            bytes: done.bytes,
            built_at: String::new(),
        };
        if !lib.add_vision_doc(d.key, &row)? {
            // removed or replaced while it was embedded: its file goes with the next sweep
            continue;
        }
        report.docs_built += 1;
        p.docs_done += 1;
        progress(&p);
    }
    report.seconds = t0.elapsed().as_secs_f64();
    Ok(report)
}

/// Encoders loaded in this process, by folder and edge (a model is loaded once).
fn cache() -> &'static Encoders {
    static C: std::sync::OnceLock<Encoders> = std::sync::OnceLock::new();
    C.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The settings' vision encoder (loaded once per process), or why there is none.
pub fn encoder(st: &lens_core::settings::Settings) -> Result<Arc<VisionEncoder>> {
    let dir = st.vision_dir();
    if !lens_core::settings::vision_installed(&dir) {
        return Err(LensError::ModelMissing {
            what: "a ColModernVBERT model (config.json, *.safetensors, tokenizer.json)".into(),
            dir,
            hint: crate::model::VISION_HINT.into(),
        });
    }
    let key = (dir.clone(), st.vision_edge as usize);
    if let Some(e) = cache().lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(e.clone());
    }
    // the settings' device (a GPU runs candle's ops); `auto` falls back to the CPU kernels
    let choice: lens_ml::device::DeviceChoice = st.device.parse().unwrap_or_default();
    let chosen = lens_ml::device::select(choice)?;
    let e = match VisionEncoder::load_on(&dir, st.vision_edge as usize, &chosen.device, false) {
        Ok(e) => e,
        Err(_) if chosen.is_gpu() && choice == lens_ml::device::DeviceChoice::Auto => VisionEncoder::load(&dir, st.vision_edge as usize)?,
        Err(e) => return Err(e),
    };
    let e = Arc::new(e);
    cache().lock().unwrap_or_else(|p| p.into_inner()).insert(key, e.clone());
    Ok(e)
}

/// Register the settings' vision index on `lib` when `retriever` reads it: an error when the
/// vision retriever has no model. Hybrid goes on without one, evals too (`_strict`: no vision
/// model is shipped, so a hybrid run fuses BM25 and dense, and its notes say which lists it
/// fused: "hybrid of bm25 + dense").
pub fn attach(lib: &Library, st: &lens_core::settings::Settings, retriever: lens_core::retrieve::Retriever, _strict: bool) -> Result<()> {
    if !retriever.uses_vision() {
        return Ok(());
    }
    match encoder(st) {
        Ok(enc) => attach_encoder(lib, enc, st.vision_pooled),
        Err(e) if retriever == lens_core::retrieve::Retriever::Vision => Err(e),
        Err(_) => Ok(()),
    }
}

/// Register `enc`'s index on `lib` (kept when the same model, edge and pooling are there).
pub fn attach_encoder(lib: &Library, enc: Arc<VisionEncoder>, pooled: bool) -> Result<()> {
    let want = built_for(&enc, pooled);
    if lib.vision().is_some_and(|v| v.name() == format!("{}@{}", want.model, want.edge)) {
        return Ok(());
    }
    lib.set_vision(Some(Arc::new(VisionLibrary::new(lib, enc, pooled)?)));
    Ok(())
}

/// Vision coverage of one document, for the Library view and `lens vision status`.
#[derive(Debug, Clone, Serialize)]
pub struct Coverage {
    pub doc: String,
    pub pages: u32,
    /// Pages in the published index (0 when none), or embedded so far in a partial build.
    pub vision_pages: u32,
    pub published: bool,
    pub model: Option<String>,
    pub edge: Option<u32>,
    pub bytes: u64,
}

/// Coverage of every document.
pub fn coverage(lib: &Library) -> Result<Vec<Coverage>> {
    let rows = lib.vision_docs()?;
    let dir = lib.dir().map(|d| d.join("vision"));
    let mut out = Vec::new();
    for d in lib.documents()? {
        let c = match rows.get(&d.key) {
            Some(r) => {
                Coverage { doc: d.id, pages: d.pages, vision_pages: r.pages, published: true, model: Some(r.model.clone()), edge: Some(r.edge), bytes: r.bytes }
            }
            None => {
                let partial = dir.as_ref().map(|p| p.join(format!("{}.partial", d.key))).filter(|p| p.is_file());
                let done = match partial {
                    Some(p) => Partial::count(&p).unwrap_or(0) as u32,
                    None => 0,
                };
                Coverage { doc: d.id, pages: d.pages, vision_pages: done, published: false, model: None, edge: None, bytes: 0 }
            }
        };
        out.push(c);
    }
    Ok(out)
}
