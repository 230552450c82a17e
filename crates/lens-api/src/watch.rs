//! Watched folders. [`watch_folders`] only turns file-system events into debounced batches
//! (PDFs changed, PDFs gone) once a folder has been quiet for a moment, so editors and copies in
//! progress settle first. The [`Api`] applies a batch with its typed calls: changed files join the
//! ingest queue (with the same progress as files added by hand), gone ones are removed. The list
//! of folders lives in the library, so it survives restarts.

use crate::Api;
use lens_core::error::{LensError, Result};
use lens_core::ingest::is_pdf_name;
use notify::{EventKind, RecursiveMode, Watcher};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

/// How long a folder must be quiet before its changes are applied.
pub const DEBOUNCE: Duration = Duration::from_millis(1200);

/// What changed in the watched folders since the last batch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Batch {
    /// PDFs created or modified (and still there).
    pub changed: Vec<PathBuf>,
    /// PDFs deleted (and not back).
    pub gone: Vec<PathBuf>,
}

/// A watched folder as the Settings view lists it.
#[derive(Debug, Clone, Serialize)]
pub struct WatchStatus {
    pub folder: String,
    pub paused: Option<String>,
}

/// What the service did with a batch; front ends show it (the app tells the UI to reload).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum WatchEvent {
    /// Files queued for ingest (follow `ingest_status`).
    Queued {
        paths: Vec<String>,
    },
    /// A folder stopped being followed (it is listed with the reason; add it again to resume).
    Paused {
        folder: String,
        reason: String,
    },
    Removed {
        doc_id: String,
        path: String,
    },
    Error {
        code: String,
        message: String,
    },
}

impl WatchEvent {
    fn error(e: &LensError) -> WatchEvent {
        WatchEvent::Error { code: e.code().into(), message: e.to_string() }
    }
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

/// Watch `folders` recursively; `on_batch` gets each debounced batch on the watcher's thread.
/// A folder that cannot be watched is reported through `on_error` (with the folder) and the
/// others still are.
pub fn watch_folders(
    folders: &[PathBuf],
    on_batch: impl Fn(Batch) + Send + 'static,
    on_error: impl Fn(Option<&Path>, LensError) + Send + 'static,
) -> Result<WatchService> {
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(tx).map_err(|e| LensError::BadInput(format!("cannot watch folders: {e}")))?;
    for f in folders {
        if let Err(e) = watcher.watch(f, RecursiveMode::Recursive) {
            on_error(Some(f), LensError::BadInput(format!("cannot watch {}: {e}", f.display())));
        }
    }
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut changed: BTreeSet<PathBuf> = BTreeSet::new();
        let mut gone: BTreeSet<PathBuf> = BTreeSet::new();
        loop {
            if stop_rx.try_recv().is_ok() {
                break;
            }
            match rx.recv_timeout(DEBOUNCE) {
                Ok(Ok(ev)) => {
                    for p in ev.paths.into_iter().filter(|p| is_pdf_name(p)) {
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
                Ok(Err(e)) => on_error(None, LensError::BadInput(format!("watching: {e}"))),
                Err(mpsc::RecvTimeoutError::Timeout) if !changed.is_empty() || !gone.is_empty() => {
                    // renames show up as remove + create: a path that exists again is a change
                    let changed = std::mem::take(&mut changed).into_iter().filter(|p| p.is_file()).collect();
                    let gone = std::mem::take(&mut gone).into_iter().filter(|p| !p.exists()).collect();
                    on_batch(Batch { changed, gone });
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    });
    Ok(WatchService { _watcher: watcher, stop: stop_tx })
}

fn canonical(p: &Path) -> Result<PathBuf> {
    std::fs::canonicalize(p).map_err(|e| LensError::io(p, e))
}

impl Api {
    pub fn watches(&self) -> Result<Vec<String>> {
        self.with_library(|l| l.watches())
    }

    /// Each watched folder and, when paused, why (add it again to resume).
    pub fn watch_status(&self) -> Result<Vec<WatchStatus>> {
        Ok(self.with_library(|l| l.watch_status())?.into_iter().map(|(folder, paused)| WatchStatus { folder, paused }).collect())
    }

    /// Stop following a folder that fails, keeping it listed with the reason.
    fn pause(&self, folder: &Path, reason: &str, sink: &Sink) {
        let f = folder.display().to_string();
        if self.with_library(|l| l.set_watch_paused(&f, Some(reason))).is_ok() {
            sink(WatchEvent::Paused { folder: f, reason: reason.to_string() });
        }
    }

    pub fn add_watch(&self, folder: &Path) -> Result<String> {
        if !folder.exists() {
            return Err(LensError::BadInput(format!("{} is not a folder (nothing is there)", folder.display())));
        }
        let p = canonical(folder)?;
        if !p.is_dir() {
            return Err(LensError::BadInput(format!("{} is not a folder", p.display())));
        }
        let s = p.display().to_string();
        self.with_library(|l| l.add_watch(&s))?;
        self.restart_watching()?;
        Ok(s)
    }

    pub fn remove_watch(&self, folder: &str) -> Result<bool> {
        let s = canonical(Path::new(folder)).map(|p| p.display().to_string()).unwrap_or_else(|_| folder.to_string());
        let removed = self.with_library(|l| l.remove_watch(&s))?;
        self.restart_watching()?;
        Ok(removed)
    }

    /// Bring the registered folders up to date (unchanged files are skipped by hash), then
    /// follow them, and any added later, until [`Api::stop_watching`].
    pub fn follow_watched(&self, sink: Sink) -> Result<()> {
        // paused folders stay paused; one that cannot be read now is paused with the reason
        let mut folders: Vec<PathBuf> = Vec::new();
        for w in self.watch_status()?.into_iter().filter(|w| w.paused.is_none()) {
            let p = PathBuf::from(&w.folder);
            match std::fs::read_dir(&p) {
                Ok(_) => folders.push(p),
                Err(e) => self.pause(&p, &format!("cannot be read: {e}"), &sink),
            }
        }
        let me = self.me.clone();
        let on_batch = {
            let sink = sink.clone();
            move |b: Batch| {
                if let Some(api) = me.upgrade() {
                    api.apply_batch(&b, &sink);
                }
            }
        };
        let on_error = {
            let (sink, me) = (sink.clone(), self.me.clone());
            move |folder: Option<&Path>, e: LensError| match (folder, me.upgrade()) {
                (Some(f), Some(api)) => api.pause(f, &e.to_string(), &sink),
                _ => sink(WatchEvent::error(&e)),
            }
        };
        let svc = watch_folders(&folders, on_batch, on_error)?;
        if !folders.is_empty() {
            self.apply_batch(&Batch { changed: folders, gone: Vec::new() }, &sink);
        }
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

    /// Remove the documents of gone files; queue changed ones for ingest.
    pub fn apply_batch(&self, b: &Batch, sink: &Sink) {
        for p in &b.gone {
            let path = p.display().to_string();
            match self.with_library(|l| l.documents_at(&path)) {
                Ok(ids) => {
                    for doc_id in ids {
                        match self.remove(&doc_id) {
                            Ok(()) => sink(WatchEvent::Removed { doc_id, path: path.clone() }),
                            Err(e) => sink(WatchEvent::error(&e)),
                        }
                    }
                }
                Err(e) => sink(WatchEvent::error(&e)),
            }
        }
        if !b.changed.is_empty() {
            match self.start_ingest(b.changed.clone()) {
                Ok(_) => sink(WatchEvent::Queued { paths: b.changed.iter().map(|p| p.display().to_string()).collect() }),
                Err(e) => sink(WatchEvent::error(&e)),
            }
        }
    }
}
