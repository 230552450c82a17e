//! Watched folders: new and changed PDFs are ingested (then OCR'd), deleted ones removed, after
//! the folder has been quiet for a moment (debouncing editors and copies in progress). The
//! list of folders lives in the library, so it survives restarts.

use crate::api::Api;
use crate::error::{LensError, Result};
use crate::ingest::is_pdf_name;
use notify::{EventKind, RecursiveMode, Watcher};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

/// How long a folder must be quiet before its changes are applied.
pub const DEBOUNCE: Duration = Duration::from_millis(1200);

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum WatchEvent {
    Ingested { paths: Vec<String>, result: serde_json::Value },
    Removed { doc_id: String, path: String },
    Error { code: String, message: String },
}

/// Where watch events go.
pub type Sink = Arc<dyn Fn(WatchEvent) + Send + Sync>;

/// A running watcher; dropping it stops watching.
pub struct WatchService {
    _watcher: notify::RecommendedWatcher,
    stop: mpsc::Sender<()>,
}

impl Drop for WatchService {
    fn drop(&mut self) {
        let _ = self.stop.send(());
    }
}

fn canonical(p: &Path) -> Result<PathBuf> {
    std::fs::canonicalize(p).map_err(|e| LensError::io(p, e))
}

impl Api {
    pub fn add_watch(&self, folder: &Path) -> Result<String> {
        let p = canonical(folder)?;
        if !p.is_dir() {
            return Err(LensError::BadInput(format!("{} is not a folder", p.display())));
        }
        let s = p.display().to_string();
        self.with_library(|l| l.store().add_watch(&s))?;
        self.restart_watching()?;
        Ok(s)
    }

    pub fn remove_watch(&self, folder: &str) -> Result<bool> {
        let s = canonical(Path::new(folder)).map(|p| p.display().to_string()).unwrap_or_else(|_| folder.to_string());
        let removed = self.with_library(|l| l.store().remove_watch(&s))?;
        self.restart_watching()?;
        Ok(removed)
    }

    /// Follow the registered folders (and any added later) until `stop_watching`.
    pub fn follow_watched(&self, sink: Sink) -> Result<()> {
        let svc = self.start_watching(sink.clone())?;
        *self.watching.lock().unwrap_or_else(|p| p.into_inner()) = Some((svc, sink));
        Ok(())
    }

    pub fn stop_watching(&self) {
        self.watching.lock().unwrap_or_else(|p| p.into_inner()).take();
    }

    /// After the folder list changed: restart the watcher, if one is running.
    fn restart_watching(&self) -> Result<()> {
        let sink = self.watching.lock().unwrap_or_else(|p| p.into_inner()).take().map(|(_, sink)| sink);
        match sink {
            Some(sink) => self.follow_watched(sink),
            None => Ok(()),
        }
    }

    pub fn watches(&self) -> Result<Vec<String>> {
        self.with_library(|l| l.store().watches())
    }

    /// Start watching the registered folders: first bring them up to date (unchanged files are
    /// skipped by hash), then follow changes.
    fn start_watching(&self, sink: Sink) -> Result<WatchService> {
        let folders: Vec<PathBuf> = self.watches()?.into_iter().map(PathBuf::from).collect();
        let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
        let mut watcher = notify::recommended_watcher(tx).map_err(|e| LensError::BadInput(format!("cannot watch folders: {e}")))?;
        for f in &folders {
            if let Err(e) = watcher.watch(f, RecursiveMode::Recursive) {
                sink(WatchEvent::Error { code: "io".into(), message: format!("cannot watch {}: {e}", f.display()) });
            }
        }
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let api = self.me.upgrade().ok_or_else(|| LensError::BadInput("the API is shutting down".into()))?;
        std::thread::spawn(move || {
            if !folders.is_empty() {
                apply(&api, &folders.iter().map(|f| f.to_path_buf()).collect(), &BTreeSet::new(), &sink);
            }
            let mut changed: BTreeSet<PathBuf> = BTreeSet::new();
            let mut gone: BTreeSet<PathBuf> = BTreeSet::new();
            loop {
                if stop_rx.try_recv().is_ok() {
                    break;
                }
                match rx.recv_timeout(DEBOUNCE) {
                    Ok(Ok(ev)) => {
                        for p in ev.paths {
                            if !is_pdf_name(&p) {
                                continue;
                            }
                            match ev.kind {
                                EventKind::Remove(_) => {
                                    changed.remove(&p);
                                    gone.insert(p);
                                }
                                EventKind::Create(_) | EventKind::Modify(_) => {
                                    gone.remove(&p);
                                    changed.insert(p);
                                }
                                _ => {}
                            }
                        }
                    }
                    Ok(Err(e)) => sink(WatchEvent::Error { code: "io".into(), message: e.to_string() }),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if !changed.is_empty() || !gone.is_empty() {
                            // renames show up as remove + create; a path that exists again is a change
                            let (c, g): (BTreeSet<PathBuf>, BTreeSet<PathBuf>) = (std::mem::take(&mut changed), std::mem::take(&mut gone));
                            let existing: BTreeSet<PathBuf> = c.into_iter().filter(|p| p.is_file()).collect();
                            let g: BTreeSet<PathBuf> = g.into_iter().filter(|p| !p.exists()).collect();
                            apply(&api, &existing, &g, &sink);
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
        });
        Ok(WatchService { _watcher: watcher, stop: stop_tx })
    }
}

fn apply(api: &Api, changed: &BTreeSet<PathBuf>, gone: &BTreeSet<PathBuf>, sink: &Sink) {
    for p in gone {
        let path = p.display().to_string();
        match api.with_library(|l| l.store().documents_at(&path)) {
            Ok(ids) => {
                for id in ids {
                    match api.call("remove", &serde_json::json!({ "doc": id })) {
                        Ok(_) => sink(WatchEvent::Removed { doc_id: id, path: path.clone() }),
                        Err(e) => sink(WatchEvent::Error { code: e.code().into(), message: e.to_string() }),
                    }
                }
            }
            Err(e) => sink(WatchEvent::Error { code: e.code().into(), message: e.to_string() }),
        }
    }
    if !changed.is_empty() {
        let paths: Vec<PathBuf> = changed.iter().cloned().collect();
        match api.ingest(&paths) {
            Ok(result) => sink(WatchEvent::Ingested { paths: paths.iter().map(|p| p.display().to_string()).collect(), result }),
            Err(e) => sink(WatchEvent::Error { code: e.code().into(), message: e.to_string() }),
        }
    }
}
