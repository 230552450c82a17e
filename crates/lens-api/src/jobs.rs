//! Background jobs the UI polls: the ingest queue (ingest, then OCR) and the dense-vector build.
//! Each runs on its own `Library` (its own SQLite connection and index writer) in a thread, and
//! marks the service's shared library stale when it published something.

use lens_core::error::{LensError, Result};
use lens_core::ingest::{self, IngestEvent, IngestOptions};
use lens_core::ocr::OcrEvent;
use lens_core::Library;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A failure as the UI shows it.
#[derive(Debug, Clone, Serialize)]
pub struct JobError {
    pub code: String,
    pub message: String,
}

impl From<&LensError> for JobError {
    fn from(e: &LensError) -> Self {
        JobError { code: e.code().into(), message: e.to_string() }
    }
}

/// Where one file of an ingest job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    Queued,
    Reading,
    /// stored; published with its batch
    Stored,
    Unchanged,
    Failed,
    /// stored, its scanned pages being read by OCR
    Ocr,
    Done,
    Cancelled,
}

/// Progress of one file in a background ingest.
#[derive(Debug, Clone, Serialize)]
pub struct FileProgress {
    pub path: String,
    pub name: String,
    pub status: FileStatus,
    pub doc_id: Option<String>,
    pub pages: u32,
    pub ocr_total: u32,
    pub ocr_done: u32,
    pub message: Option<String>,
}

/// The ingest queue, as the UI polls it (`ingest_status`).
#[derive(Debug, Clone, Serialize, Default)]
pub struct IngestState {
    pub running: bool,
    pub cancelled: bool,
    pub files: Vec<FileProgress>,
    pub error: Option<JobError>,
}

#[derive(Default)]
struct Queue {
    state: IngestState,
    paths: Vec<PathBuf>,
    cancel: Arc<AtomicBool>,
}

/// What runs when a worker has drained its queue without being cancelled and stored at least
/// one document (the service starts the dense build there).
pub type AfterIngest = Arc<dyn Fn() + Send + Sync>;

pub struct IngestJobs {
    dir: PathBuf,
    stale: Arc<AtomicBool>,
    q: Arc<Mutex<Queue>>,
    after: AfterIngest,
    /// The team's database of record, where each ingested filing is put.
    filings: Option<crate::SharedFilings>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl IngestJobs {
    pub fn new(dir: PathBuf, stale: Arc<AtomicBool>, after: AfterIngest, filings: Option<crate::SharedFilings>) -> IngestJobs {
        IngestJobs { dir, stale, q: Arc::new(Mutex::new(Queue::default())), after, filings }
    }

    /// Queue paths; a worker starts when none runs. Returns the queue's state at once.
    pub fn start(&self, paths: Vec<PathBuf>) -> IngestState {
        let mut q = lock(&self.q);
        // a worker runs while `running`; it clears the flag (under this lock) when it stops
        let start_worker = !q.state.running;
        if start_worker {
            q.state = IngestState { running: true, ..Default::default() };
            q.cancel = Arc::new(AtomicBool::new(false));
        }
        for p in &paths {
            let name = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| p.display().to_string());
            q.state.files.push(FileProgress {
                path: p.display().to_string(),
                name,
                status: FileStatus::Queued,
                doc_id: None,
                pages: 0,
                ocr_total: 0,
                ocr_done: 0,
                message: None,
            });
        }
        q.paths.extend(paths);
        let snapshot = q.state.clone();
        drop(q);
        if start_worker {
            let (q, stale, dir, after, filings) = (self.q.clone(), self.stale.clone(), self.dir.clone(), self.after.clone(), self.filings.clone());
            std::thread::spawn(move || {
                if ingest_worker(&dir, &q, &stale, filings.as_deref()) {
                    after();
                }
            });
        }
        snapshot
    }

    pub fn state(&self) -> IngestState {
        lock(&self.q).state.clone()
    }

    /// Stop after the current file or page; true when a job was running.
    pub fn cancel(&self) -> bool {
        let q = lock(&self.q);
        q.cancel.store(true, Ordering::Relaxed);
        q.state.running
    }
}

/// Change a file's progress; a file found inside a queued folder gets its own row.
/// Put the filings just stored (document id -> path) in the team's database; those it could not
/// take are removed from the library again: (path, why) of each.
fn record_filings(lib: &mut Library, db: &dyn lens_core::replica::Filings, stored: &HashMap<String, String>) -> Vec<(String, String)> {
    let mut failed = Vec::new();
    for (doc, path) in stored {
        if let Err(e) = lens_core::replica::push(lib, db, std::slice::from_ref(doc), None) {
            let undone = lib.remove(doc).err().map(|u| format!("; and it could not be taken out of the library: {u}")).unwrap_or_default();
            failed.push((path.clone(), format!("[{}] not added: {e}{undone}", e.code())));
        }
    }
    failed
}

fn update(q: &Mutex<Queue>, path: &str, f: impl FnOnce(&mut FileProgress)) {
    update_locked(&mut lock(q), path, f)
}

fn update_locked(q: &mut Queue, path: &str, f: impl FnOnce(&mut FileProgress)) {
    if !q.state.files.iter().any(|fp| fp.path == path) {
        let name = Path::new(path).file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| path.to_string());
        q.state.files.push(FileProgress {
            path: path.to_string(),
            name,
            status: FileStatus::Reading,
            doc_id: None,
            pages: 0,
            ocr_total: 0,
            ocr_done: 0,
            message: None,
        });
    }
    if let Some(fp) = q.state.files.iter_mut().rev().find(|fp| fp.path == path) {
        f(fp);
    }
}

/// Folders of a finished batch are done: their files have rows of their own.
fn finish_folders(q: &mut Queue) {
    for f in q.state.files.iter_mut().filter(|f| f.status == FileStatus::Reading && Path::new(&f.path).is_dir()) {
        f.status = FileStatus::Done;
        f.message = Some("folder: its PDFs are listed below".into());
    }
}

fn set_all(q: &mut Queue, from: &[FileStatus], to: FileStatus, message: Option<&str>) {
    for f in q.state.files.iter_mut().filter(|f| from.contains(&f.status)) {
        if let Some(m) = message.filter(|_| f.status == FileStatus::Ocr) {
            f.message = Some(m.to_string());
        }
        f.status = to;
    }
}

/// Drains the queue on its own `Library`; true when it ended without a cancel and some document
/// was stored.
fn ingest_worker(dir: &Path, q: &Mutex<Queue>, stale: &AtomicBool, filings: Option<&(dyn lens_core::replica::Filings + Send + Sync)>) -> bool {
    let mut lib = match Library::open(dir) {
        Ok(l) => l,
        Err(e) => {
            let mut g = lock(q);
            g.state.error = Some((&e).into());
            g.state.running = false;
            g.paths.clear();
            return false;
        }
    };
    loop {
        let (batch, cancel) = {
            let mut g = lock(q);
            let cancelled = g.cancel.load(Ordering::Relaxed);
            if g.paths.is_empty() || cancelled {
                set_all(&mut g, &[FileStatus::Queued, FileStatus::Reading], FileStatus::Cancelled, None);
                g.paths.clear();
                g.state.cancelled = cancelled;
                g.state.running = false;
                return !cancelled && g.state.files.iter().any(|f| f.status == FileStatus::Done);
            }
            let batch = std::mem::take(&mut g.paths);
            set_all(&mut g, &[FileStatus::Queued], FileStatus::Reading, None);
            (batch, g.cancel.clone())
        };
        let ocr = lib.settings().map(|s| s.ocr_options()).unwrap_or_default();
        // OCR events name documents: the paths are recorded as documents are stored
        let paths_by_doc = std::cell::RefCell::new(HashMap::<String, String>::new());
        let mut on_ingest = |e: &IngestEvent| match e {
            IngestEvent::Stored { path, doc_id, pages, needs_ocr, .. } => {
                paths_by_doc.borrow_mut().insert(doc_id.clone(), path.clone());
                update(q, path, |f| {
                    f.status = if *needs_ocr > 0 { FileStatus::Ocr } else { FileStatus::Stored };
                    f.doc_id = Some(doc_id.clone());
                    f.pages = *pages;
                    f.ocr_total = *needs_ocr;
                });
            }
            IngestEvent::Unchanged { path, doc_id } => update(q, path, |f| {
                f.status = FileStatus::Unchanged;
                f.doc_id = Some(doc_id.clone());
            }),
            IngestEvent::Failed { path, code, message } => {
                // an upload that could not be ingested is not kept in the library's folder
                if Path::new(path).starts_with(dir.join("uploads")) {
                    let _ = std::fs::remove_file(path);
                }
                update(q, path, |f| {
                    f.status = FileStatus::Failed;
                    f.message = Some(format!("[{code}] {}", message.replace(&dir.join("uploads").display().to_string(), "uploads")));
                })
            }
            IngestEvent::Published { .. } => stale.store(true, Ordering::Release),
            IngestEvent::Facts { .. } => {}
        };
        let mut on_ocr = |e: &OcrEvent| {
            let (OcrEvent::Page { doc_id, .. } | OcrEvent::Failed { doc_id, .. }) = e;
            if let Some(p) = paths_by_doc.borrow().get(doc_id) {
                update(q, p, |f| f.ocr_done += 1);
            }
        };
        let r = ingest::ingest_then_ocr(&mut lib, &batch, &IngestOptions::default(), Some(&ocr), &cancel, &mut on_ingest, &mut on_ocr);
        // a team's database of record gets each filing stored (after its OCR); one it cannot
        // take is taken out of the library again, so that no server holds what the team's
        // database does not
        let unrecorded = match filings {
            Some(db) => record_filings(&mut lib, db, &paths_by_doc.borrow()),
            None => Vec::new(),
        };
        stale.store(true, Ordering::Release);
        let mut g = lock(q);
        for (path, message) in &unrecorded {
            update_locked(&mut g, path, |f| {
                f.status = FileStatus::Failed;
                f.message = Some(message.clone());
            });
        }
        finish_folders(&mut g);
        match r {
            // what was stored before a cancel is published: those files are done
            Err(LensError::Cancelled) => {
                set_all(&mut g, &[FileStatus::Stored, FileStatus::Ocr], FileStatus::Done, Some("OCR not run: cancelled (run it later with `lens ocr`)"))
            }
            Err(e) => g.state.error = Some((&e).into()),
            Ok((_, Some(Err(e)))) => {
                let m = format!("OCR not done [{}]: {e}", e.code());
                set_all(&mut g, &[FileStatus::Stored, FileStatus::Ocr], FileStatus::Done, Some(&m));
            }
            Ok(_) => set_all(&mut g, &[FileStatus::Stored, FileStatus::Ocr], FileStatus::Done, None),
        }
    }
}

/// The background dense-vector build, as the UI polls it (`dense_status`).
#[derive(Debug, Clone, Serialize, Default)]
pub struct DenseState {
    pub running: bool,
    pub cancelled: bool,
    pub model: String,
    pub docs_done: usize,
    pub docs_total: usize,
    pub current: Option<String>,
    pub pages: usize,
    pub seconds: f64,
    pub error: Option<JobError>,
}

/// One background job of a kind (at most one runs): its state, as the UI polls it, and its
/// stop flag. The dense and vision builds share it.
pub struct BackgroundJob<S> {
    slot: Arc<Mutex<(S, Arc<AtomicBool>)>>,
}

/// What a job's state says about it.
pub trait JobState: Clone + Default + Send + 'static {
    fn running(&self) -> bool;
    fn set_running(&mut self, r: bool);
    /// Record how the job ended (a cancel, or an error).
    fn ended(&mut self, r: Result<()>);
}

impl<S: JobState> BackgroundJob<S> {
    fn new() -> Self {
        BackgroundJob { slot: Arc::new(Mutex::new((S::default(), Arc::new(AtomicBool::new(false))))) }
    }

    pub fn state(&self) -> S {
        lock(&self.slot).0.clone()
    }

    /// Ask a running job to stop; true when one was running.
    pub fn cancel(&self) -> bool {
        let j = lock(&self.slot);
        j.1.store(true, Ordering::Relaxed);
        j.0.running()
    }

    /// Start `work` in a thread with `initial` as its state, unless a job is running (then its
    /// state is returned). `work` gets the stop flag and a way to update the state.
    fn start(&self, initial: S, work: impl FnOnce(&AtomicBool, &dyn Fn(&dyn Fn(&mut S))) -> Result<()> + Send + 'static) -> S {
        let mut j = lock(&self.slot);
        if j.0.running() {
            return j.0.clone();
        }
        j.0 = initial;
        j.0.set_running(true);
        j.1 = Arc::new(AtomicBool::new(false));
        let (snapshot, cancel) = (j.0.clone(), j.1.clone());
        drop(j);
        let slot = self.slot.clone();
        std::thread::spawn(move || {
            let update = |f: &dyn Fn(&mut S)| f(&mut lock(&slot).0);
            let res = work(&cancel, &update);
            let mut j = lock(&slot);
            j.0.ended(res);
            j.0.set_running(false);
        });
        snapshot
    }
}

/// `JobState` for a state with `running`, `cancelled` and `error` fields.
macro_rules! job_state {
    ($t:ty $(, $after:expr)?) => {
        impl JobState for $t {
            fn running(&self) -> bool {
                self.running
            }
            fn set_running(&mut self, r: bool) {
                self.running = r;
            }
            fn ended(&mut self, r: Result<()>) {
                match r {
                    Ok(()) => {}
                    Err(LensError::Cancelled) => self.cancelled = true,
                    Err(e) => self.error = Some((&e).into()),
                }
                $( ($after)(self); )?
            }
        }
    };
}

job_state!(DenseState, |s: &mut DenseState| s.current = None);
job_state!(VisionState);

pub struct DenseJobs {
    dir: PathBuf,
    job: BackgroundJob<DenseState>,
    /// The team's database of record, where the vectors built are kept for other servers.
    filings: Option<crate::SharedFilings>,
}

impl DenseJobs {
    pub fn new(dir: PathBuf, filings: Option<crate::SharedFilings>) -> DenseJobs {
        DenseJobs { dir, job: BackgroundJob::new(), filings }
    }

    pub fn state(&self) -> DenseState {
        self.job.state()
    }

    pub fn cancel(&self) -> bool {
        self.job.cancel()
    }

    /// Load the model (errors now, not in the background), then embed in a thread.
    pub fn start(&self, models_dir: &Path, name: &str) -> Result<DenseState> {
        let emb = Arc::new(lens_ml::minilm::Embedder::load(&models_dir.join(name))?);
        let (dir, filings, model) = (self.dir.clone(), self.filings.clone(), name.to_string());
        let initial = DenseState { model: name.to_string(), ..Default::default() };
        Ok(self.job.start(initial, move |cancel, update| {
            let t0 = std::time::Instant::now();
            let mut lib = Library::open(&dir)?;
            let res = lib.build_dense(&*emb, None, cancel, &mut |p| {
                update(&|s: &mut DenseState| {
                    s.docs_done = p.docs_done;
                    s.docs_total = p.docs_total;
                    s.current = Some(p.doc_id.clone());
                    s.pages += p.pages;
                    s.seconds = t0.elapsed().as_secs_f64();
                })
            });
            update(&|s: &mut DenseState| s.seconds = t0.elapsed().as_secs_f64());
            res?;
            // the vectors built are kept in the team's database too: another server rebuilding
            // its folder takes them instead of embedding again
            if let Some(db) = &filings {
                lens_core::replica::sync_vectors(&mut lib, db.as_ref(), &model)?;
            }
            Ok(())
        }))
    }
}

/// The background vision-index build, as the UI polls it (`vision_status`).
#[derive(Debug, Clone, Serialize, Default)]
pub struct VisionState {
    pub running: bool,
    pub cancelled: bool,
    pub model: String,
    pub edge: u32,
    pub progress: lens_vision::library::BuildProgress,
    pub report: Option<lens_vision::library::BuildReport>,
    pub error: Option<JobError>,
}

/// Embeds pages for the vision index in a thread: slow on a CPU (seconds per page), so it is
/// resumable page by page and shows per-document progress.
pub struct VisionJobs {
    dir: PathBuf,
    job: BackgroundJob<VisionState>,
}

impl VisionJobs {
    pub fn new(dir: PathBuf) -> VisionJobs {
        VisionJobs { dir, job: BackgroundJob::new() }
    }

    pub fn state(&self) -> VisionState {
        self.job.state()
    }

    pub fn cancel(&self) -> bool {
        self.job.cancel()
    }

    /// Load the model (errors now, not in the background), then build in a thread.
    pub fn start(&self, st: &lens_core::settings::Settings, opts: lens_vision::library::BuildOptions) -> Result<VisionState> {
        let enc = lens_vision::library::encoder(st)?;
        let dir = self.dir.clone();
        let initial = VisionState { model: enc.name.clone(), edge: enc.edge as u32, ..Default::default() };
        Ok(self.job.start(initial, move |cancel, update| {
            let lib = Library::open(&dir)?;
            let r = lens_vision::library::build(&lib, &enc, &opts, cancel, &mut |p| update(&|s: &mut VisionState| s.progress = p.clone()))?;
            update(&|s: &mut VisionState| s.report = Some(r.clone()));
            Ok(())
        }))
    }
}
