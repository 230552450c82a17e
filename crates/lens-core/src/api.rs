//! The one API every front end shares: the desktop app's commands, `lens serve`'s HTTP
//! routes and the UI's transport all go through [`Api::call`]. Arguments and results are JSON;
//! errors are [`LensError`]s, whose `code()` the UI switches on.

use crate::ask::AskRequest;
use crate::error::{LensError, Result};
use crate::ingest::{IngestEvent, IngestOptions};
use crate::library::{Library, SearchRequest};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

pub struct Api {
    dir: PathBuf,
    lib: Mutex<Option<Library>>,
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
    pub fn new(dir: PathBuf) -> Api {
        Api { dir, lib: Mutex::new(None) }
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
        }
        f(g.as_mut().expect("opened above"))
    }

    /// Dispatch one command.
    pub fn call(&self, cmd: &str, a: &Value) -> Result<Value> {
        let to = |v: &dyn erased::Ser| v.json();
        match cmd {
            "app_info" => Ok(json!({ "library": self.dir.display().to_string(), "version": env!("CARGO_PKG_VERSION"), "answerers": ["extractive"], "retrievers": ["bm25"] })),
            "documents" => self.with(|l| Ok(to(&l.documents()?))),
            "search" => self.with(|l| {
                let mut r = SearchRequest::new(arg_str(a, "query")?);
                r.k = arg_u64(a, "k", 10) as usize;
                r.docs = strings(a, "docs");
                r.filter = a.get("filter").and_then(Value::as_bool).unwrap_or(true);
                Ok(to(&l.search(&r)?))
            }),
            "ask" => self.with(|l| {
                let mut r = AskRequest::new(arg_str(a, "question")?);
                r.k = arg_u64(a, "k", 3) as usize;
                r.docs = strings(a, "docs");
                r.filter = a.get("filter").and_then(Value::as_bool).unwrap_or(true);
                if let Some(ans) = a.get("answerer").and_then(Value::as_str) {
                    r.answerer = ans.to_string();
                }
                Ok(to(&l.ask(&r)?))
            }),
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
            "watches" => self.with(|l| Ok(to(&l.store().watches()?))),
            "ingest_paths" => {
                let paths: Vec<PathBuf> = strings(a, "paths").into_iter().map(PathBuf::from).collect();
                if paths.is_empty() {
                    return Err(LensError::BadInput("no files given".into()));
                }
                self.ingest(&paths)
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
                ocr = match crate::ocr::run(l, &Default::default(), &never, &mut |_| {}) {
                    Ok(o) => json!({ "pages": o.pages, "failed": o.failed }),
                    Err(e) => json!({ "error": { "code": e.code(), "message": e.to_string() } }),
                };
            }
            Ok(json!({ "events": events, "summary": s, "ocr": ocr }))
        })
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
        self.ingest(&[path])
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

mod erased {
    pub trait Ser {
        fn json(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> Ser for T {
        fn json(&self) -> serde_json::Value {
            serde_json::to_value(self).expect("API results serialise")
        }
    }
}
