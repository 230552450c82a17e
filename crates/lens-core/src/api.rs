//! The one API every front end shares: the desktop app's commands, `lens serve`'s HTTP
//! routes and the UI's transport all go through [`Api::call`]. Arguments and results are JSON;
//! errors are [`LensError`]s, whose `code()` the UI switches on.

use crate::ask::AskRequest;
use crate::error::{LensError, Result};
use crate::ingest::{IngestEvent, IngestOptions};
use crate::library::{Library, SearchRequest};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

pub struct Api {
    dir: PathBuf,
    /// a handle on itself, so watchers started from `&self` can hold the API
    pub(crate) me: std::sync::Weak<Api>,
    /// the running folder watcher and where its events go
    pub(crate) watching: Mutex<Option<(crate::watch::WatchService, crate::watch::Sink)>>,
    lib: Mutex<Option<Library>>,
    jobs: Arc<Mutex<Jobs>>,
    dense_jobs: Arc<Mutex<DenseJobs>>,
    /// set when a background job changed the index: readers reload before the next call
    dirty: Arc<AtomicBool>,
}

/// Progress of one file in a background ingest.
#[derive(Debug, Clone, Serialize)]
pub struct FileProgress {
    pub path: String,
    pub name: String,
    /// queued, reading, stored, unchanged, failed, ocr, done, cancelled
    pub status: String,
    pub doc_id: Option<String>,
    pub pages: u32,
    pub ocr_total: u32,
    pub ocr_done: u32,
    pub message: Option<String>,
}

/// The background ingest queue, as the UI polls it (`ingest_status`).
#[derive(Debug, Clone, Serialize, Default)]
pub struct JobState {
    pub running: bool,
    pub cancelled: bool,
    pub files: Vec<FileProgress>,
    pub error: Option<Value>,
}

/// The background dense-vector build, as the UI polls it (`dense_status`).
#[derive(Debug, Clone, Serialize, Default)]
pub struct DenseJob {
    pub running: bool,
    pub cancelled: bool,
    pub model: String,
    pub docs_done: usize,
    pub docs_total: usize,
    pub current: Option<String>,
    pub pages: usize,
    pub seconds: f64,
    pub error: Option<Value>,
}

#[derive(Default)]
struct DenseJobs {
    state: DenseJob,
    cancel: Arc<AtomicBool>,
}

#[derive(Default)]
struct Jobs {
    state: JobState,
    queue: Vec<PathBuf>,
    cancel: Arc<AtomicBool>,
}

/// An ask request from API arguments and the library's settings.
fn ask_request(l: &Library, a: &Value) -> Result<AskRequest> {
    let st = crate::settings::Settings::load(l.store())?;
    let mut r = AskRequest::new(arg_str(a, "question")?);
    r.k = arg_u64(a, "k", st.top_k as u64) as usize;
    r.answerer = st.answerer.clone();
    r.retriever = st.prepare_retriever(l)?;
    r.docs = strings(a, "docs");
    r.filter = a.get("filter").and_then(Value::as_bool).unwrap_or(true);
    if let Some(ans) = a.get("answerer").and_then(Value::as_str) {
        r.answerer = ans.to_string();
    }
    Ok(r)
}

fn arg_str(a: &Value, k: &str) -> Result<String> {
    a.get(k).and_then(Value::as_str).map(str::to_string).ok_or_else(|| LensError::BadInput(format!("missing `{k}`")))
}

fn arg_u64(a: &Value, k: &str, default: u64) -> u64 {
    a.get(k).and_then(Value::as_u64).unwrap_or(default)
}

fn strings(a: &Value, k: &str) -> Vec<String> {
    a.get(k).and_then(Value::as_array).map(|v| v.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

impl Api {
    /// The library folder is opened lazily, on the first call.
    pub fn new(dir: PathBuf) -> Arc<Api> {
        Arc::new_cyclic(|me| Api {
            dir,
            me: me.clone(),
            watching: Mutex::new(None),
            lib: Mutex::new(None),
            jobs: Arc::new(Mutex::new(Jobs::default())),
            dense_jobs: Arc::new(Mutex::new(DenseJobs::default())),
            dirty: Arc::new(AtomicBool::new(false)),
        })
    }

    pub fn library_dir(&self) -> &Path {
        &self.dir
    }

    /// Run `f` on the (lazily opened) library, one caller at a time.
    pub fn with_library<T>(&self, f: impl FnOnce(&mut Library) -> Result<T>) -> Result<T> {
        self.with(f)
    }

    fn with<T>(&self, f: impl FnOnce(&mut Library) -> Result<T>) -> Result<T> {
        let mut g = self.lib.lock().unwrap_or_else(|p| p.into_inner());
        if g.is_none() {
            *g = Some(Library::open(&self.dir)?);
        } else if self.dirty.swap(false, Ordering::AcqRel) {
            g.as_ref().expect("checked").refresh()?;
        }
        f(g.as_mut().expect("opened above"))
    }

    /// Dispatch one command.
    pub fn call(&self, cmd: &str, a: &Value) -> Result<Value> {
        match cmd {
            "app_info" => Ok(json!({ "library": self.dir.display().to_string(), "version": env!("CARGO_PKG_VERSION"), "answerers": crate::settings::ANSWERERS, "retrievers": crate::settings::RETRIEVERS })),
            "documents" => self.with(|l| Ok(to(&l.documents()?))),
            "search" => self.with(|l| {
                let mut r = SearchRequest::new(arg_str(a, "query")?);
                r.k = arg_u64(a, "k", 10) as usize;
                r.docs = strings(a, "docs");
                r.filter = a.get("filter").and_then(Value::as_bool).unwrap_or(true);
                r.retriever = crate::settings::Settings::load(l.store())?.prepare_retriever(l)?;
                Ok(to(&l.search(&r)?))
            }),
            "ask" => self.with(|l| Ok(to(&l.ask(&ask_request(l, a)?)?))),
            "feedback" => self.with(|l| {
                let id = a.get("id").and_then(Value::as_i64).ok_or_else(|| LensError::BadInput("missing `id`".into()))?;
                let v = a.get("value").and_then(Value::as_i64).ok_or_else(|| LensError::BadInput("missing `value` (+1 or -1)".into()))?;
                let note = a.get("note").and_then(Value::as_str).filter(|s| !s.trim().is_empty());
                l.store().set_feedback(id, v as i32, note)?;
                Ok(json!({ "ok": true }))
            }),
            "log" => self.with(|l| Ok(to(&l.store().question_log(arg_u64(a, "limit", 100) as usize)?))),
            "remove" => self.with(|l| {
                l.remove(&arg_str(a, "doc")?)?;
                Ok(json!({ "ok": true }))
            }),
            "set_metadata" => self.with(|l| {
                let doc = arg_str(a, "doc")?;
                let year = match a.get("year") {
                    Some(Value::Number(n)) => Some(n.as_i64().unwrap_or(0) as i32),
                    Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().parse::<i32>().map_err(|_| LensError::BadInput(format!("`{s}` is not a year")))?),
                    _ => None,
                };
                let company = a.get("company").and_then(Value::as_str);
                let form = a.get("form").and_then(Value::as_str);
                l.store().set_metadata(&doc, company, year, form)?;
                Ok(to(&l.document(&doc)?))
            }),
            "add_alias" => self.with(|l| Ok(json!({ "alias": l.add_alias(&arg_str(a, "doc")?, &arg_str(a, "alias")?)? }))),
            "remove_alias" => self.with(|l| Ok(json!({ "removed": l.store().remove_alias(&arg_str(a, "doc")?, &arg_str(a, "alias")?)? }))),
            // aliases of one document (`doc`), or of all: { doc: [{alias, source}] }
            "aliases" => self.with(|l| {
                let doc = a.get("doc").and_then(Value::as_str);
                if let Some(d) = doc {
                    l.document(d)?;
                }
                let mut out = serde_json::Map::new();
                for (alias, d, source) in l.store().aliases()? {
                    if doc.is_none_or(|x| x == d) {
                        out.entry(d).or_insert_with(|| json!([])).as_array_mut().expect("array").push(json!({ "alias": alias, "source": source }));
                    }
                }
                Ok(Value::Object(out))
            }),
            "dense_build" => Ok(to(&self.start_dense()?)),
            "dense_status" => self.with(|l| {
                let st = crate::settings::Settings::load(l.store())?;
                let done = l.store().dense_doc_keys(&st.embedder)?;
                let docs = l.documents()?;
                let with: Vec<&str> = docs.iter().filter(|d| done.contains(&d.key)).map(|d| d.id.as_str()).collect();
                let job = self.dense_jobs.lock().unwrap_or_else(|p| p.into_inner()).state.clone();
                Ok(json!({ "model": st.embedder, "documents": docs.len(), "with_vectors": with, "job": job }))
            }),
            "cancel_dense" => {
                let j = self.dense_jobs.lock().unwrap_or_else(|p| p.into_inner());
                j.cancel.store(true, Ordering::Relaxed);
                Ok(json!({ "ok": true, "running": j.state.running }))
            }
            "watches" => Ok(to(&self.watches()?)),
            "add_watch" => Ok(json!({ "folder": self.add_watch(Path::new(&arg_str(a, "folder")?))? })),
            "remove_watch" => Ok(json!({ "removed": self.remove_watch(&arg_str(a, "folder")?)? })),
            "get_settings" => self.with(|l| {
                Ok(json!({
                    "settings": crate::settings::Settings::load(l.store())?,
                    "library_dir": self.dir.display().to_string(),
                    "config_file": crate::settings::config_file().map(|p| p.display().to_string()),
                    "answerers": crate::settings::ANSWERERS,
                    "retrievers": crate::settings::RETRIEVERS,
                }))
            }),
            "set_settings" => self.with(|l| {
                let mut st = crate::settings::Settings::load(l.store())?;
                let mut merged = serde_json::to_value(&st).expect("settings serialise");
                if let (Some(m), Some(patch)) = (merged.as_object_mut(), a.get("settings").and_then(Value::as_object)) {
                    for (k, v) in patch {
                        if !m.contains_key(k) {
                            return Err(LensError::BadInput(format!("unknown setting `{k}`")));
                        }
                        m.insert(k.clone(), v.clone());
                    }
                }
                st = serde_json::from_value(merged).map_err(|e| LensError::BadInput(format!("bad setting value: {e}")))?;
                st.save(l.store())?;
                let mut out = json!({ "settings": st });
                if let Some(dir) = a.get("library_dir").and_then(Value::as_str).filter(|d| !d.trim().is_empty()) {
                    if Path::new(dir) != self.dir {
                        let f = crate::settings::set_configured_library(dir.trim())?;
                        out["restart_needed"] = json!(true);
                        out["config_file"] = json!(f.display().to_string());
                    }
                }
                Ok(out)
            }),
            "ingest_paths" => {
                let paths: Vec<PathBuf> = strings(a, "paths").into_iter().map(PathBuf::from).collect();
                if paths.is_empty() {
                    return Err(LensError::BadInput("no files given".into()));
                }
                Ok(to(&self.start_ingest(paths)))
            }
            "ingest_status" => Ok(to(&self.jobs.lock().unwrap_or_else(|p| p.into_inner()).state)),
            "cancel_ingest" => {
                let j = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
                j.cancel.store(true, Ordering::Relaxed);
                Ok(json!({ "ok": true, "running": j.state.running }))
            }
            other => Err(LensError::NotFound(format!("unknown command `{other}`"))),
        }
    }

    /// Ingest files (then OCR what needs it); returns the per-file events and the summary.
    pub fn ingest(&self, paths: &[PathBuf]) -> Result<Value> {
        self.with(|l| {
            let mut events: Vec<IngestEvent> = Vec::new();
            let never = AtomicBool::new(false);
            let s = crate::ingest::ingest(l, paths, &IngestOptions::default(), &never, &mut |e| events.push(e.clone()))?;
            let mut ocr = json!(null);
            if s.needs_ocr_pages > 0 {
                let opts = crate::settings::Settings::load(l.store())?.ocr_options();
                ocr = match crate::ocr::run(l, &opts, &never, &mut |_| {}) {
                    Ok(o) => json!({ "pages": o.pages, "failed": o.failed }),
                    Err(e) => json!({ "error": { "code": e.code(), "message": e.to_string() } }),
                };
            }
            Ok(json!({ "events": events, "summary": s, "ocr": ocr }))
        })
    }

    /// `ask`, streamed: `on_event` gets `{event: "pages"}`, then `{event: "text"}` pieces of the
    /// answer, then `{event: "done", response}`; the response is also returned.
    pub fn ask_stream(&self, a: &Value, on_event: &mut dyn FnMut(Value)) -> Result<Value> {
        self.with(|l| {
            let r = ask_request(l, a)?;
            Ok(to(&l.ask_with(&r, &mut |e| on_event(to(&e)))?))
        })
    }

    /// Queue files for a background ingest (then OCR); returns the queue's state at once.
    /// Poll `ingest_status`; `cancel_ingest` stops after the current file or page.
    pub fn start_ingest(&self, paths: Vec<PathBuf>) -> JobState {
        let mut j = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        // a worker runs while `running`; it clears the flag (under this lock) when it stops
        let start_worker = !j.state.running;
        if start_worker {
            j.state = JobState { running: true, ..Default::default() };
            j.cancel = Arc::new(AtomicBool::new(false));
        }
        for p in &paths {
            let name = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| p.display().to_string());
            j.state.files.push(FileProgress { path: p.display().to_string(), name, status: "queued".into(), doc_id: None, pages: 0, ocr_total: 0, ocr_done: 0, message: None });
        }
        j.queue.extend(paths);
        let snapshot = j.state.clone();
        drop(j);
        if start_worker {
            let (jobs, dirty, dir) = (self.jobs.clone(), self.dirty.clone(), self.dir.clone());
            std::thread::spawn(move || ingest_worker(&dir, &jobs, &dirty));
        }
        snapshot
    }

    /// Embed, in the background, every document without dense vectors for the configured
    /// embedding model. Poll `dense_status`; `cancel_dense` stops after the current document.
    pub fn start_dense(&self) -> Result<DenseJob> {
        let (models_dir, name) = self.with(|l| {
            let st = crate::settings::Settings::load(l.store())?;
            Ok((PathBuf::from(&st.models_dir), st.embedder))
        })?;
        // fail now, with the model's error, rather than in the background
        let emb = Arc::new(crate::dense::Embedder::load(&models_dir.join(&name))?);
        let mut j = self.dense_jobs.lock().unwrap_or_else(|p| p.into_inner());
        if j.state.running {
            return Ok(j.state.clone());
        }
        j.state = DenseJob { running: true, model: name, ..Default::default() };
        j.cancel = Arc::new(AtomicBool::new(false));
        let snapshot = j.state.clone();
        let cancel = j.cancel.clone();
        drop(j);
        let (jobs, dir) = (self.dense_jobs.clone(), self.dir.clone());
        std::thread::spawn(move || {
            let t0 = std::time::Instant::now();
            let res = Library::open(&dir).and_then(|mut lib| {
                crate::dense::build(lib.store_mut(), &emb, None, &cancel, &mut |p| {
                    let mut j = jobs.lock().unwrap_or_else(|p| p.into_inner());
                    j.state.docs_done = p.docs_done;
                    j.state.docs_total = p.docs_total;
                    j.state.current = Some(p.doc_id.clone());
                    j.state.pages += p.pages;
                    j.state.seconds = t0.elapsed().as_secs_f64();
                })
            });
            let mut j = jobs.lock().unwrap_or_else(|p| p.into_inner());
            match res {
                Ok(_) => {}
                Err(LensError::Cancelled) => j.state.cancelled = true,
                Err(e) => j.state.error = Some(json!({ "code": e.code(), "message": e.to_string() })),
            }
            j.state.current = None;
            j.state.seconds = t0.elapsed().as_secs_f64();
            j.state.running = false;
        });
        Ok(snapshot)
    }

    /// Save an uploaded file into the library's uploads folder and ingest it. Non-PDFs are
    /// rejected with a message naming the file.
    pub fn upload(&self, name: &str, bytes: &[u8]) -> Result<Value> {
        let base = Path::new(name).file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        if base.is_empty() || base.starts_with('.') {
            return Err(LensError::BadInput(format!("`{name}` is not a usable file name")));
        }
        if !crate::ingest::is_pdf_name(Path::new(&base)) {
            return Err(LensError::NotPdf { path: PathBuf::from(base) });
        }
        let dir = self.dir.join("uploads");
        std::fs::create_dir_all(&dir).map_err(|e| LensError::io(&dir, e))?;
        let path = dir.join(&base);
        std::fs::write(&path, bytes).map_err(|e| LensError::io(&path, e))?;
        Ok(serde_json::to_value(self.start_ingest(vec![path])).expect("job state serialises"))
    }

    /// A rendered page as PNG, with the evidence for `quote`/`answer` boxed when given.
    pub fn page_png(&self, doc: &str, page: u32, quote: Option<&str>, answer: Option<&str>, dpi: f32) -> Result<Vec<u8>> {
        self.with(|l| {
            let d = l.check_page(doc, page)?;
            let boxes = if quote.is_some() || answer.is_some() {
                let p = l.store().page_of(&d, page)?;
                let b = l.store().page_boxes(&d, page)?;
                crate::evidence::locate(&p.text, &b, quote, answer).boxes
            } else {
                Vec::new()
            };
            let img = crate::render::render_page(&l.pdf_path(&d)?, page, dpi, &boxes)?;
            crate::render::png_bytes(&img)
        })
    }
}

fn update(jobs: &Mutex<Jobs>, path: &str, f: impl FnOnce(&mut FileProgress)) {
    let mut j = jobs.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(fp) = j.state.files.iter_mut().rev().find(|fp| fp.path == path) {
        f(fp);
    }
}

/// Drains the queue on its own `Library` (its own SQLite connection and index writer).
fn ingest_worker(dir: &Path, jobs: &Mutex<Jobs>, dirty: &AtomicBool) {
    let mut lib = match Library::open(dir) {
        Ok(l) => l,
        Err(e) => {
            let mut j = jobs.lock().unwrap_or_else(|p| p.into_inner());
            j.state.error = Some(json!({ "code": e.code(), "message": e.to_string() }));
            j.state.running = false;
            j.queue.clear();
            return;
        }
    };
    loop {
        let (batch, cancel) = {
            let mut j = jobs.lock().unwrap_or_else(|p| p.into_inner());
            if j.queue.is_empty() || j.cancel.load(Ordering::Relaxed) {
                let cancelled = j.cancel.load(Ordering::Relaxed);
                for f in j.state.files.iter_mut().filter(|f| f.status == "queued" || f.status == "reading") {
                    f.status = "cancelled".into();
                }
                j.queue.clear();
                j.state.cancelled = cancelled;
                j.state.running = false;
                return;
            }
            let batch = std::mem::take(&mut j.queue);
            for f in j.state.files.iter_mut().filter(|f| f.status == "queued") {
                f.status = "reading".into();
            }
            (batch, j.cancel.clone())
        };
        let mut doc_paths: std::collections::HashMap<String, String> = std::collections::HashMap::new();
        let r = crate::ingest::ingest(&mut lib, &batch, &IngestOptions::default(), &cancel, &mut |e| match e {
            IngestEvent::Stored { path, doc_id, pages, needs_ocr, .. } => {
                doc_paths.insert(doc_id.clone(), path.clone());
                update(jobs, path, |f| {
                    f.status = if *needs_ocr > 0 { "ocr".into() } else { "stored".into() };
                    f.doc_id = Some(doc_id.clone());
                    f.pages = *pages;
                    f.ocr_total = *needs_ocr;
                });
            }
            IngestEvent::Unchanged { path, doc_id } => update(jobs, path, |f| {
                f.status = "unchanged".into();
                f.doc_id = Some(doc_id.clone());
            }),
            IngestEvent::Failed { path, code, message } => update(jobs, path, |f| {
                f.status = "failed".into();
                f.message = Some(format!("[{code}] {message}"));
            }),
            IngestEvent::Published { .. } => dirty.store(true, Ordering::Release),
        });
        if let Err(e) = r {
            let mut j = jobs.lock().unwrap_or_else(|p| p.into_inner());
            if matches!(e, LensError::Cancelled) {
                // what was stored before the cancel is published: those files are done
                for f in j.state.files.iter_mut().filter(|f| f.status == "stored" || f.status == "ocr") {
                    if f.status == "ocr" {
                        f.message = Some("OCR not run: cancelled (run it later with `lens ocr`)".into());
                    }
                    f.status = "done".into();
                }
            } else {
                j.state.error = Some(json!({ "code": e.code(), "message": e.to_string() }));
            }
            continue;
        }
        dirty.store(true, Ordering::Release);
        let ocr_opts = crate::settings::Settings::load(lib.store()).map(|s| s.ocr_options()).unwrap_or_default();
        let o = crate::ocr::run(&mut lib, &ocr_opts, &cancel, &mut |e| {
            let (crate::ocr::OcrEvent::Page { doc_id, .. } | crate::ocr::OcrEvent::Failed { doc_id, .. }) = e;
            if let Some(p) = doc_paths.get(doc_id) {
                update(jobs, p, |f| f.ocr_done += 1);
            }
        });
        if let Err(e) = o {
            let mut j = jobs.lock().unwrap_or_else(|p| p.into_inner());
            for f in j.state.files.iter_mut().filter(|f| f.status == "ocr") {
                f.message = Some(format!("OCR not done [{}]: {e}", e.code()));
            }
        }
        dirty.store(true, Ordering::Release);
        let mut j = jobs.lock().unwrap_or_else(|p| p.into_inner());
        for f in j.state.files.iter_mut().filter(|f| f.status == "stored" || f.status == "ocr") {
            f.status = "done".into();
        }
    }
}

/// API results as JSON.
fn to<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("API results serialise")
}
