//! The service layer every front end shares: the desktop app's Tauri commands and `lens serve`'s
//! HTTP routes both call [`Api`]'s typed methods, through [`dispatch()`] when the call arrives
//! as a command name and JSON arguments. Background jobs ([`jobs`]) and watched folders
//! ([`watch`]) live here too; `lens-core` stays a plain library.
//!
//! Lock model: one [`Library`] behind a read-write lock, opened on first use. Reads (searches,
//! an ask's retrieval, the log, labels) run beside each other, the SQLite connection taken by
//! one at a time; the few calls that change the library itself take it alone. An ask retrieves,
//! lets go while the answerer runs (seconds for a model), and takes it again to locate the
//! evidence; its log row is written after. Ingest and dense
//! builds run on their own `Library` in a background thread and mark the shared one stale, so it
//! reloads its index before the next call.

pub mod access;
pub mod args;
pub mod dispatch;
pub mod fetch;
pub mod jobs;
pub mod labels;
pub mod watch;

pub use args::*;
pub use dispatch::dispatch;

use lens_core::answer::{self, Answerer, AnswererKind};
use lens_core::ask::{self, AskEvent, AskResponse};
use lens_core::error::{LensError, Result};
use lens_core::evidence::EvidenceBox;
use lens_core::log::Records;
use lens_core::pageref::PageRef;
use lens_core::retrieve::{self, SearchRequest, SearchResponse};
use lens_core::settings::Settings;
use lens_core::store::Document;
use lens_core::Library;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};

pub struct Api {
    dir: PathBuf,
    /// a handle on itself, for the threads it starts (watcher)
    me: Weak<Api>,
    lib: RwLock<Option<Library>>,
    /// set when a background job changed the library: readers reload before the next call
    stale: Arc<AtomicBool>,
    ingest: jobs::IngestJobs,
    dense: jobs::DenseJobs,
    vision: jobs::VisionJobs,
    watching: Mutex<Option<(watch::WatchService, watch::Sink)>>,
    /// answerers in use, by kind (built on first use; tests and model loaders put their own)
    answerers: Mutex<HashMap<AnswererKind, Arc<dyn Answerer>>>,
    /// stop flags of the asks now answering
    asks: Mutex<Vec<(Option<String>, Arc<AtomicBool>)>>,
    /// held while a model loads (one load at a time; other answerers stay usable)
    model_loading: Mutex<()>,
    /// the model being fetched from Settings ([`fetch`])
    fetching: Arc<Mutex<fetch::FetchState>>,
    /// Where the team's records (log, feedback, users) are kept when not in the library's
    /// SQLite file: a team server's PostgreSQL (`lens-pg`).
    records: Option<SharedRecords>,
    /// Where the team's filings are kept of record ([`lens_core::replica`]): ingested filings
    /// are put there, removed ones removed there first.
    filings: Option<SharedFilings>,
}

/// The records the team shares ([`Records`]), kept in a database of their own.
pub type SharedRecords = Arc<dyn Records + Send + Sync>;

/// The team's filings, kept in a database of record ([`lens_core::replica::Filings`]).
pub type SharedFilings = Arc<dyn lens_core::replica::Filings + Send + Sync>;

/// The retriever a call uses (its flag, else the settings'), with the models it reads loaded:
/// the embedding model for dense/hybrid, the vision model and index for vision/hybrid (loaded
/// once per process; the first load happens under the library lock). Hybrid goes on without a
/// missing model, saying so, unless `strict`.
pub fn choose_retriever(lib: &Library, st: &Settings, flag: Option<retrieve::Retriever>, strict: bool) -> Result<retrieve::Retriever> {
    let r = lens_core::settings::choose_retriever(st, flag);
    lens_ml::minilm::attach(lib, st, r, strict)?;
    lens_vision::library::attach(lib, st, r, strict)?;
    Ok(r)
}

/// The ingest queue's hook: the dense build after each finished batch ([`Api::dense_after_ingest`]).
fn dense_after_ingest(me: std::sync::Weak<Api>) -> jobs::AfterIngest {
    Arc::new(move || {
        if let Some(api) = me.upgrade() {
            api.dense_after_ingest();
        }
    })
}

/// What the settings' retriever reads now, and what the last logged question ran on.
fn retriever_use(l: &Library, records: &dyn Records, st: &Settings) -> Result<(String, Option<RetrieverRan>)> {
    let docs = l.documents()?.len();
    let dense = if st.retriever.uses_dense() {
        let installed = lens_core::settings::embedder_installed(&Path::new(&st.models_dir).join(&st.embedder));
        Some((installed, l.dense_doc_keys(&st.embedder)?.len()))
    } else {
        None
    };
    let vision = if st.retriever.uses_vision() {
        let installed = lens_core::settings::vision_installed(&st.vision_dir());
        Some((installed, lens_vision::library::coverage(l)?.iter().filter(|c| c.published).count()))
    } else {
        None
    };
    let ran = records.question_log(1)?.pop().map(|e| {
        let notes = e.shown.as_ref().map(|s| s.notes.as_slice()).unwrap_or_default();
        RetrieverRan { lists: fused_lists(e.retriever, notes), time: e.time, question: e.question, retriever: e.retriever }
    });
    Ok((retriever_reads(st.retriever, docs, dense, vision), ran))
}

/// The lists a logged search fused: its "hybrid of bm25 + dense" note, else the retriever alone.
pub fn fused_lists(r: retrieve::Retriever, notes: &[String]) -> Vec<String> {
    notes.iter().find_map(|n| n.strip_prefix("hybrid of ")).map(|l| l.split(" + ").map(str::to_string).collect()).unwrap_or_else(|| vec![r.name().to_string()])
}

/// "Keyword + meaning search: the pages' words + their meaning (vectors for 3 of 4 documents);
/// no vision model installed", in a user's words, from what is installed and built: `dense` and `vision` are (model installed, documents covered), `None`
/// where the retriever does not read them.
pub fn retriever_reads(r: retrieve::Retriever, docs: usize, dense: Option<(bool, usize)>, vision: Option<(bool, usize)>) -> String {
    let mut lists: Vec<String> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    if r != retrieve::Retriever::Dense && r != retrieve::Retriever::Vision {
        lists.push("the pages' words".into());
    }
    for (what, model, read, state) in [("meaning", "embedding model", "their meaning", dense), ("page-image", "vision model", "page images", vision)] {
        match state {
            None => {}
            Some((false, _)) => missing.push(format!("no {model} installed")),
            Some((true, 0)) => missing.push(format!("no {what} vectors built yet")),
            Some((true, n)) => lists.push(format!("{read} (vectors for {n} of {docs} document{})", if docs == 1 { "" } else { "s" })),
        }
    }
    let read = if lists.is_empty() { "nothing it can read yet".to_string() } else { lists.join(" + ") };
    let mut out = format!("{}: {read}", retriever_words(r));
    if !missing.is_empty() {
        out.push_str("; ");
        out.push_str(&missing.join("; "));
    }
    out
}

/// A retriever as a user calls it: "Keyword search", "Keyword + meaning search".
pub fn retriever_words(r: retrieve::Retriever) -> &'static str {
    match r {
        retrieve::Retriever::Bm25 => "Keyword search",
        retrieve::Retriever::Dense => "Meaning search",
        retrieve::Retriever::Hybrid => "Keyword + meaning search",
        retrieve::Retriever::Vision => "Page-image search",
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Api {
    /// The library folder is opened lazily, on the first call.
    pub fn new(dir: PathBuf) -> Arc<Api> {
        Api::new_shared(dir, None)
    }

    /// [`Api::new`], the log, feedback and users kept in `records` (a team's database) when
    /// given, else in the library's SQLite file.
    pub fn new_shared(dir: PathBuf, records: Option<SharedRecords>) -> Arc<Api> {
        Api::new_team(dir, records, None)
    }

    /// [`Api::new_shared`], the filings also kept of record in `filings` (a team's database):
    /// each ingested filing is put there, a removed one removed there first.
    pub fn new_team(dir: PathBuf, records: Option<SharedRecords>, filings: Option<SharedFilings>) -> Arc<Api> {
        Arc::new_cyclic(|me| {
            let stale = Arc::new(AtomicBool::new(false));
            Api {
                ingest: jobs::IngestJobs::new(dir.clone(), stale.clone(), dense_after_ingest(me.clone()), filings.clone()),
                dense: jobs::DenseJobs::new(dir.clone(), filings.clone()),
                vision: jobs::VisionJobs::new(dir.clone()),
                dir,
                me: me.clone(),
                lib: RwLock::new(None),
                stale,
                watching: Mutex::new(None),
                answerers: Mutex::new(HashMap::new()),
                asks: Mutex::new(Vec::new()),
                model_loading: Mutex::new(()),
                fetching: Arc::new(Mutex::new(fetch::FetchState::default())),
                records,
                filings,
            }
        })
    }

    pub fn library_dir(&self) -> &Path {
        &self.dir
    }

    /// Run `f` on the library and the records in use (the team's database, else the library's
    /// own store).
    pub fn with_records<T>(&self, f: impl FnOnce(&Library, &dyn Records) -> Result<T>) -> Result<T> {
        self.with_library(|l| match &self.records {
            Some(r) => f(l, r.as_ref()),
            None => f(l, l.store()),
        })
    }

    /// Run `f` on the records in use alone: the team's database without waiting for the
    /// library (a token check or a label save never queues behind an ingest or a slow
    /// database call of another user), else the library's own store.
    pub fn with_records_only<T>(&self, f: impl FnOnce(&dyn Records) -> Result<T>) -> Result<T> {
        match &self.records {
            Some(r) => f(r.as_ref()),
            None => self.with_library(|l| f(l.store())),
        }
    }

    /// Where the log and the users are kept.
    pub fn records_place(&self) -> Result<String> {
        self.with_records_only(|r| Ok(r.place()))
    }

    /// Run `f` on the (lazily opened) library, beside other readers: searches and asks retrieve
    /// at once, each on its own thread (the SQLite connection is taken by one of them at a time,
    /// the index, caches and reranking are shared). Waits only for a caller changing it.
    pub fn with_library<T>(&self, f: impl FnOnce(&Library) -> Result<T>) -> Result<T> {
        self.open_fresh()?;
        let g = self.read_lib();
        f(g.as_ref().expect("opened by open_fresh"))
    }

    /// Run `f` on the library, alone: for a call that changes what it holds (a document
    /// removed). Keep `f` short: every other call waits for it.
    pub fn with_library_mut<T>(&self, f: impl FnOnce(&mut Library) -> Result<T>) -> Result<T> {
        let mut g = self.write_lib();
        self.open_or_refresh(&mut g)?;
        f(g.as_mut().expect("opened above"))
    }

    /// The library's lock, to read or to change it; a caller that panicked holding it leaves it
    /// usable, as [`lock`] does.
    fn read_lib(&self) -> RwLockReadGuard<'_, Option<Library>> {
        self.lib.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write_lib(&self) -> RwLockWriteGuard<'_, Option<Library>> {
        self.lib.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Open the library on first use, or reload its index when a background job changed it.
    fn open_fresh(&self) -> Result<()> {
        {
            let g = self.read_lib();
            if g.is_some() && !self.stale.load(Ordering::Acquire) {
                return Ok(());
            }
        }
        let mut g = self.write_lib();
        self.open_or_refresh(&mut g)
    }

    fn open_or_refresh(&self, g: &mut Option<Library>) -> Result<()> {
        if g.is_none() {
            *g = Some(Library::open(&self.dir)?);
            read_facts_in_background(&self.dir);
        } else if self.stale.swap(false, Ordering::AcqRel) {
            g.as_ref().expect("checked").refresh()?;
        }
        Ok(())
    }

    pub fn app_info(&self) -> AppInfo {
        AppInfo {
            library: self.dir.display().to_string(),
            version: env!("CARGO_PKG_VERSION"),
            answerers: AnswererKind::names(),
            retrievers: retrieve::Retriever::names(),
        }
    }

    pub fn documents(&self) -> Result<Vec<lens_core::library::DocView>> {
        self.with_library(|l| l.document_views())
    }

    pub fn search(&self, a: &SearchArgs) -> Result<SearchResponse> {
        self.with_library(|l| {
            let st = l.settings()?;
            let mut r = SearchRequest::new(a.query.clone());
            r.k = a.k;
            r.docs = a.docs.clone();
            r.filter = a.filter;
            r.retriever = choose_retriever(l, &st, a.retriever, false)?;
            l.search(&r)
        })
    }

    // ---- ask

    /// Use `answerer` for asks of its kind (a loaded model, or a test double).
    pub fn set_answerer(&self, answerer: Arc<dyn Answerer>) {
        lock(&self.answerers).insert(answerer.kind(), answerer);
    }

    /// The answerer of `kind`: one set with [`Api::set_answerer`], else built (a model answerer
    /// loads the settings' model on first use, without the library lock).
    fn answerer(&self, kind: AnswererKind) -> Result<Arc<dyn Answerer>> {
        if let Some(a) = lock(&self.answerers).get(&kind) {
            return Ok(a.clone());
        }
        let a: Arc<dyn Answerer> = match kind {
            AnswererKind::Qwen => {
                let _loading = lock(&self.model_loading);
                if let Some(a) = lock(&self.answerers).get(&kind) {
                    return Ok(a.clone());
                }
                let st = self.with_library(|l| l.settings())?;
                build_answerer(kind, &st, &ModelChoice::default())?
            }
            k => build_answerer(k, &Settings::default(), &ModelChoice::default())?,
        };
        lock(&self.answerers).insert(kind, a.clone());
        Ok(a)
    }

    /// The answerers that can run with these settings, the models found, why `qwen` cannot run
    /// when it cannot, and the model `qwen` answers with (loaded, or the one it would load): a
    /// model named by path in Settings, or loaded from elsewhere, is listed too, so the page
    /// never says "no model found" while one answers.
    fn answerers_available(&self, st: &Settings) -> AnswerersAvailable {
        let mut models = lens_llm::discover::find_all(Path::new(&st.models_dir));
        let loaded = lock(&self.answerers).get(&AnswererKind::Qwen).and_then(|a| a.describe());
        let resolved = lens_llm::discover::resolve(None, &st.model, Path::new(&st.models_dir));
        if let Ok(p) = &resolved {
            if !models.iter().any(|m| m.path == *p) {
                models.extend(lens_llm::discover::describe(p, "settings"));
            }
        }
        let in_use = match (&loaded, &resolved) {
            (Some(d), _) => Some(d.clone()),
            (None, Ok(p)) => Some(lens_llm::discover::display_name(p)),
            (None, Err(_)) => None,
        };
        let missing = match resolved {
            _ if loaded.is_some() => None,
            Ok(_) => None,
            Err(e) => Some(e.to_string()),
        };
        let names = AnswererKind::names().into_iter().filter(|n| *n != AnswererKind::Qwen.name() || missing.is_none()).collect();
        AnswerersAvailable { names, models, missing, in_use }
    }

    pub fn ask(&self, a: &AskArgs) -> Result<AskResponse> {
        self.ask_stream(a, &mut |_| true)
    }

    /// An ask, streamed: `on_event` gets `pages`, then `text` pieces, then `done`; returning false
    /// from it (the client went away) stops the answerer. The library is not held while the
    /// answerer runs.
    pub fn ask_stream(&self, a: &AskArgs, on_event: &mut dyn FnMut(AskEvent) -> bool) -> Result<AskResponse> {
        let (retrieved, kind) = self.with_records(|l, records| {
            let st = l.settings()?;
            let mut req = a.request(l, &st)?;
            if let Some(of) = a.follow_up_of {
                l.follow_up(&mut req, of, records)?;
            }
            Ok((l.retrieve_for(&req)?, req.answerer))
        })?;
        let mut retrieved = retrieved;
        let answerer = match self.answerer(kind) {
            Ok(a) => a,
            // no model: say which file is missing and answer without one
            Err(e @ LensError::ModelMissing { .. }) if kind == AnswererKind::Qwen => {
                retrieved.notes.push(format!("{e}; answered with the extractive answerer"));
                self.answerer(AnswererKind::Extractive)?
            }
            Err(e) => return Err(e),
        };
        let stop = Arc::new(AtomicBool::new(false));
        lock(&self.asks).push((a.user.clone(), stop.clone()));
        let mut written = String::new();
        let answered = ask::answer_pages(answerer.as_ref(), &retrieved, &mut |e| {
            if let AskEvent::Text { text } = &e {
                written.push_str(text);
            }
            !stop.load(Ordering::Relaxed) && on_event(e)
        });
        lock(&self.asks).retain(|(_, s)| !Arc::ptr_eq(s, &stop));
        let answered = match answered {
            Err(LensError::Cancelled) => {
                // the log keeps the stopped ask, marked, with what was written
                self.with_records(|l, r| l.log_cancelled(&retrieved, answerer.kind(), &written, r))?;
                return Err(LensError::Cancelled);
            }
            other => other?,
        };
        // the log is written after the library is let go: a team's database call never holds
        // every other caller's search
        let (mut resp, entry) = self.with_library(|l| l.finish_ask_unlogged(retrieved, answered))?;
        resp.log_id = self.with_records_only(|r| r.log_question(&entry))?;
        on_event(AskEvent::Done { response: Box::new(resp.clone()) });
        Ok(resp)
    }

    /// Stop every ask that is answering now (they end with `cancelled`; the log marks them).
    pub fn cancel_asks(&self) -> usize {
        self.cancel_asks_of(None)
    }

    /// Stop the asks of team user `user` that are answering now (`None`: every ask, as the
    /// desktop app and a one-person server do); a user never stops another's.
    pub fn cancel_asks_of(&self, user: Option<&str>) -> usize {
        let asks = lock(&self.asks);
        let mut n = 0;
        for (by, s) in asks.iter() {
            if user.is_none() || by.as_deref() == user {
                s.store(true, Ordering::Relaxed);
                n += 1;
            }
        }
        n
    }

    // ---- log

    /// The question log, newest first, each row with its first cited page's label.
    pub fn log(&self, limit: usize) -> Result<Vec<LogRow>> {
        self.with_records(|l, records| {
            let rows = records.question_log(limit)?;
            Ok(rows
                .into_iter()
                .map(|entry| {
                    let cited_shown = entry.answer.citations.first().map(|c| l.page_shown(c));
                    LogRow { entry, cited_shown }
                })
                .collect())
        })
    }

    /// A logged answer reopened: evidence boxes and support as the ask showed them.
    pub fn reopen(&self, id: i64) -> Result<AskResponse> {
        self.with_records(|l, r| l.reopen_in(id, r))
    }

    /// A workpaper of logged answers: gathered under the lock, pages rendered and the file written
    /// after it.
    pub fn workpaper(&self, a: &WorkpaperArgs) -> Result<FileOut> {
        let mut w = self.with_records(|l, r| l.workpaper_in(&a.ids, r))?;
        if !a.format.is_sheet() {
            w.render(lens_core::workpaper::DPI);
        }
        let bytes = match a.format {
            WorkpaperFormat::Html => lens_core::workpaper::html(&w)?.into_bytes(),
            WorkpaperFormat::Pdf => lens_core::workpaper::pdf(&w)?,
            WorkpaperFormat::Csv | WorkpaperFormat::Xlsx => lens_core::export::bytes(&lens_core::export::answers(&w), a.format == WorkpaperFormat::Xlsx)?,
        };
        let name = if a.format.is_sheet() { w.file_name(a.format.ext()).replacen("workpaper", "answers", 1) } else { w.file_name(a.format.ext()) };
        Ok(FileOut { name, mime: a.format.mime(), bytes })
    }

    /// The tables read from a page as a spreadsheet: each table as printed, and every figure
    /// with its page, box and file hash.
    pub fn tables_export(&self, a: &TablesExportArgs) -> Result<FileOut> {
        let page: lens_core::PageRef = a.page.parse()?;
        if !a.format.is_sheet() {
            return Err(LensError::BadInput("a page's tables are exported as csv or xlsx".into()));
        }
        let book = self.with_library(|l| l.tables_book(&page))?;
        let name = format!("{}-p{}-tables.{}", page.doc_id, page.page, a.format.ext());
        Ok(FileOut { name, mime: a.format.mime(), bytes: lens_core::export::bytes(&book, a.format == WorkpaperFormat::Xlsx)? })
    }

    pub fn feedback(&self, a: &FeedbackArgs) -> Result<()> {
        let note = a.note.as_deref().filter(|s| !s.trim().is_empty());
        self.with_records_only(|r| r.set_feedback(a.id, a.value, note, a.user.as_deref()))
    }

    // ---- documents

    /// Remove a filing: from the team's database first (when there is one; a database that
    /// cannot be reached leaves the library as it was), then from the library.
    pub fn remove(&self, doc: &str) -> Result<()> {
        self.with_library_mut(|l| {
            if let Some(f) = &self.filings {
                l.document(doc)?;
                match f.remove_filing(doc) {
                    Err(e) if e.code() != "not_found" => return Err(e),
                    _ => {}
                }
            }
            l.remove(doc)
        })
    }

    pub fn set_metadata(&self, a: &MetadataArgs) -> Result<Document> {
        let year = a.year()?;
        self.with_library(|l| {
            l.set_metadata(&a.doc, a.company.as_deref(), year, a.form.as_deref())?;
            l.document(&a.doc)
        })
    }

    pub fn add_alias(&self, doc: &str, alias: &str) -> Result<String> {
        self.with_library(|l| {
            let a = l.add_alias(doc, alias)?;
            self.record_user_aliases(l, doc).inspect_err(|_| {
                let _ = l.remove_alias(doc, &a);
            })?;
            Ok(a)
        })
    }

    pub fn remove_alias(&self, doc: &str, alias: &str) -> Result<bool> {
        self.with_library(|l| {
            let removed = l.remove_alias(doc, alias)?;
            if removed {
                self.record_user_aliases(l, doc).inspect_err(|_| {
                    let _ = l.add_alias(doc, alias);
                })?;
            }
            Ok(removed)
        })
    }

    /// A team server keeps the names users gave a filing in the team's database too (where the
    /// filing is there: one the database does not hold yet gets them when it is put).
    fn record_user_aliases(&self, l: &Library, doc: &str) -> Result<()> {
        let Some(f) = &self.filings else { return Ok(()) };
        let mine: Vec<String> = l.aliases()?.into_iter().filter(|(_, d, source)| d == doc && source == "user").map(|(a, ..)| a).collect();
        match f.set_user_aliases(doc, &mine) {
            Err(e) if e.code() == "not_found" => Ok(()),
            r => r,
        }
    }

    /// Aliases of one document, or of all, by document id.
    pub fn aliases(&self, doc: Option<&str>) -> Result<BTreeMap<String, Vec<AliasRow>>> {
        self.with_library(|l| {
            if let Some(d) = doc {
                l.document(d)?;
            }
            let mut out: BTreeMap<String, Vec<AliasRow>> = BTreeMap::new();
            for (alias, d, source) in l.aliases_shown()? {
                if doc.is_none_or(|x| x == d) {
                    out.entry(d).or_default().push(AliasRow { alias, source });
                }
            }
            Ok(out)
        })
    }

    /// A rendered page with `boxes` (PDF points) drawn on it, as PNG. The library is held only
    /// to find the file; pdfium renders after.
    pub fn page_png(&self, page: &PageRef, dpi: f32, boxes: &[EvidenceBox]) -> Result<Vec<u8>> {
        let pdf = self.with_library(|l| l.page_source(page))?;
        lens_core::render::page_png(&pdf, page.page, dpi, boxes)
    }

    // ---- settings

    pub fn settings(&self) -> Result<SettingsView> {
        let (settings, retriever_reads, retriever_ran) = self.with_records(|l, records| {
            let st = l.settings()?;
            let (reads, ran) = retriever_use(l, records, &st)?;
            Ok((st, reads, ran))
        })?;
        let AnswerersAvailable { names: answerers, models, missing: qwen_missing, in_use: model_in_use } = self.answerers_available(&settings);
        let vision = lens_core::settings::vision_installed(&settings.vision_dir());
        Ok(SettingsView {
            settings,
            library_dir: self.dir.display().to_string(),
            config_file: lens_core::paths::config_file().map(|p| p.display().to_string()),
            answerers,
            // the vision retriever only when its model is installed
            retrievers: retrieve::Retriever::names().into_iter().filter(|r| *r != "vision" || vision).collect(),
            models,
            qwen_missing,
            model_in_use,
            retriever_reads,
            retriever_ran,
            devices: lens_llm::device::devices(),
        })
    }

    /// Put `a.settings` over the stored settings (validated, all or nothing); a new library
    /// folder is written to the config file and takes effect at the next start.
    pub fn set_settings(&self, a: &SetSettingsArgs) -> Result<SetSettingsResult> {
        let settings = self.with_library(|l| {
            let st = l.settings()?.patched(&a.settings)?;
            // a team's servers share how they answer: the database first (a database that
            // cannot be reached leaves the settings as they were)
            if let Some(f) = &self.filings {
                f.put_team_settings(&serde_json::Value::Object(st.shared()).to_string())?;
            }
            l.save_settings(&st)?;
            Ok(st)
        })?;
        // another model chosen: the loaded one is dropped, the next qwen ask loads the new one
        if ["model", "models_dir", "model_threads", "device"].iter().any(|k| a.settings.contains_key(*k)) {
            lock(&self.answerers).remove(&AnswererKind::Qwen);
        }
        let mut out = SetSettingsResult { settings, restart_needed: false, config_file: None };
        if let Some(dir) = a.library_dir.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
            if Path::new(dir) != self.dir {
                let f = lens_core::paths::set_configured_library(dir)?;
                out.restart_needed = true;
                out.config_file = Some(f.display().to_string());
            }
        }
        Ok(out)
    }

    // ---- background jobs

    /// Queue files or folders for ingest (then OCR); returns the queue at once.
    pub fn start_ingest(&self, paths: Vec<PathBuf>) -> Result<jobs::IngestState> {
        if paths.is_empty() {
            return Err(LensError::BadInput("no files given".into()));
        }
        Ok(self.ingest.start(paths))
    }

    /// Folders files may be added from through the API: the user's home, removable media, the
    /// library, watched folders, and `$LENS_INGEST_ROOTS` (`:`-separated).
    pub fn ingest_roots(&self) -> Result<Vec<PathBuf>> {
        let mut roots = Api::given_roots(&self.dir);
        roots.extend(self.watches()?.into_iter().filter_map(|w| std::fs::canonicalize(w).ok()));
        Ok(roots)
    }

    /// The ingest roots a watch may be added under through the API: [`Api::ingest_roots`]
    /// without the watched folders themselves (else watching `/` would open every file).
    fn given_roots(dir: &Path) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = vec![dir.to_path_buf(), "/media".into(), "/mnt".into(), "/run/media".into()];
        if let Some(h) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            roots.push(h.into());
        }
        if let Some(extra) = std::env::var_os("LENS_INGEST_ROOTS") {
            roots.extend(std::env::split_paths(&extra).filter(|p| !p.as_os_str().is_empty()));
        }
        roots.into_iter().filter_map(|r| std::fs::canonicalize(r).ok()).collect()
    }

    /// [`Api::add_watch`] for a folder named through the API (the UI, the team server): it must
    /// lie in the user's home, removable media, the library or `$LENS_INGEST_ROOTS`. Outside
    /// them the error is the same whether the folder exists or not. (`lens watch add`, run by
    /// the machine's own user, may watch any folder.)
    pub fn add_watch_given(&self, folder: &Path) -> Result<String> {
        let roots = Api::given_roots(&self.dir);
        // a folder not there is judged by where it would be (then add_watch says it is missing)
        let at = std::fs::canonicalize(folder).ok().or_else(|| std::fs::canonicalize(folder.parent()?).ok().zip(folder.file_name()).map(|(p, n)| p.join(n)));
        let inside = at.is_some_and(|c| roots.iter().any(|r| c.starts_with(r)));
        if !inside {
            return Err(LensError::BadInput(format!(
                "{} cannot be watched from here: watched folders lie in your home folder, removable media, the library or $LENS_INGEST_ROOTS; on the server itself, `lens watch add` may watch any folder",
                folder.display()
            )));
        }
        self.add_watch(folder)
    }

    /// [`Api::start_ingest`] for paths that arrive through the API: each must lie in one of
    /// [`Api::ingest_roots`]. Outside them the error is the same whether the path exists or not.
    pub fn ingest_paths(&self, paths: Vec<PathBuf>) -> Result<jobs::IngestState> {
        let roots = self.ingest_roots()?;
        for p in &paths {
            let inside = std::fs::canonicalize(p).ok().is_some_and(|c| roots.iter().any(|r| c.starts_with(r)));
            if !inside {
                return Err(LensError::BadInput(format!(
                    "{} cannot be added: files are added from your home folder, removable media, watched folders or $LENS_INGEST_ROOTS (and must exist)",
                    p.display()
                )));
            }
        }
        self.start_ingest(paths)
    }

    pub fn ingest_status(&self) -> jobs::IngestState {
        self.ingest.state()
    }

    pub fn cancel_ingest(&self) -> bool {
        self.ingest.cancel()
    }

    /// Save an uploaded file into the library's uploads folder and queue it. Non-PDFs are
    /// refused with a message naming the file.
    pub fn upload(&self, name: &str, bytes: &[u8]) -> Result<jobs::IngestState> {
        let base = Path::new(name).file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        if base.is_empty() || base.starts_with('.') {
            return Err(LensError::BadInput(format!("`{name}` is not a usable file name")));
        }
        if !lens_core::ingest::is_pdf_name(Path::new(&base)) {
            return Err(LensError::NotPdf { path: PathBuf::from(base) });
        }
        let dir = self.dir.join("uploads");
        std::fs::create_dir_all(&dir).map_err(|e| LensError::io(&dir, e))?;
        let path = dir.join(&base);
        // written beside and renamed into place: two users sending the same file at once never
        // leave an ingest reading a half-written one (a rename replaces the name at once; a
        // reader of the file it replaced reads that file whole), and make one document
        static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let part = dir.join(format!(".{base}.{}.{}.part", std::process::id(), SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
        std::fs::write(&part, bytes).map_err(|e| LensError::io(&part, e))?;
        std::fs::rename(&part, &path).map_err(|e| {
            let _ = std::fs::remove_file(&part);
            LensError::io(&path, e)
        })?;
        self.start_ingest(vec![path])
    }

    /// After an ingest: when the library's retriever reads dense vectors and its embedding model
    /// is installed, embed the new documents in the background (unless a build runs already).
    /// Without the model nothing starts: BM25 goes on as before.
    pub fn dense_after_ingest(&self) -> Option<jobs::DenseState> {
        let wanted = self.with_library(|l| {
            let st = l.settings()?;
            Ok(st.retriever.uses_dense() && lens_core::settings::embedder_installed(&Path::new(&st.models_dir).join(&st.embedder)))
        });
        if !matches!(wanted, Ok(true)) || self.dense.state().running {
            return None;
        }
        self.start_dense().ok()
    }

    /// Embed, in the background, every document without vectors for the configured model. The
    /// model is loaded first, so a missing one is reported now.
    pub fn start_dense(&self) -> Result<jobs::DenseState> {
        let (models_dir, name) = self.with_library(|l| {
            let st = l.settings()?;
            Ok((PathBuf::from(&st.models_dir), st.embedder))
        })?;
        self.dense.start(&models_dir, &name)
    }

    pub fn dense_status(&self) -> Result<DenseStatus> {
        let job = self.dense.state();
        self.with_library(|l| {
            let st = l.settings()?;
            let done = l.dense_doc_keys(&st.embedder)?;
            let docs = l.documents()?;
            let with_vectors = docs.iter().filter(|d| done.contains(&d.key)).map(|d| d.id.clone()).collect();
            let dir = Path::new(&st.models_dir).join(&st.embedder);
            let missing = lens_core::settings::EMBEDDER_FILES.iter().find(|f| !dir.join(f).is_file()).map(|f| format!("{f} is missing in {}", dir.display()));
            Ok(DenseStatus { model: st.embedder, installed: missing.is_none(), missing, documents: docs.len(), with_vectors, job })
        })
    }

    /// Start embedding pages for the vision index (the settings' model and edge): the documents
    /// named, else every document, scans first.
    pub fn start_vision(&self, a: &VisionBuildArgs) -> Result<jobs::VisionState> {
        let st = self.with_library(|l| {
            for d in &a.docs {
                l.document(d)?;
            }
            l.settings()
        })?;
        let opts = lens_vision::library::BuildOptions { docs: (!a.docs.is_empty()).then(|| a.docs.clone()), rebuild: a.rebuild, pooled: st.vision_pooled };
        self.vision.start(&st, opts)
    }

    /// The vision job and every document's coverage.
    pub fn vision_status(&self) -> Result<VisionStatus> {
        let job = self.vision.state();
        self.with_library(|l| {
            let st = l.settings()?;
            let dir = st.vision_dir();
            let installed = lens_core::settings::vision_installed(&dir);
            Ok(VisionStatus {
                model: st.vision_model,
                edge: st.vision_edge,
                installed,
                missing: (!installed).then(|| format!("no ColModernVBERT model in {} ({})", dir.display(), lens_vision::model::VISION_HINT)),
                coverage: lens_vision::library::coverage(l)?,
                job,
            })
        })
    }

    pub fn cancel_vision(&self) -> bool {
        self.vision.cancel()
    }

    pub fn cancel_dense(&self) -> bool {
        self.dense.cancel()
    }
}

/// What a caller sets on top of the library's settings when a model answerer is built (the
/// CLI's `--model`, `--device`, `--threads` and prompt flags); the app uses the settings alone.
#[derive(Debug, Clone, Default)]
pub struct ModelChoice {
    pub path: Option<PathBuf>,
    pub device: Option<lens_llm::DeviceChoice>,
    /// 0 or none: the settings' model threads.
    pub threads: Option<usize>,
    pub opts: Option<lens_llm::qwen::QwenOptions>,
}

/// The answerer of `kind`: a built-in one, or the model the settings (and `choice`) name,
/// loaded. The one place answerers are built, for the service and the CLI alike.
pub fn build_answerer(kind: AnswererKind, st: &Settings, choice: &ModelChoice) -> Result<Arc<dyn Answerer>> {
    match kind {
        AnswererKind::Qwen => {
            let o = lens_llm::LoadOptions {
                path: choice.path.clone(),
                setting: st.model.clone(),
                models_dir: PathBuf::from(&st.models_dir),
                threads: choice.threads.filter(|&t| t > 0).unwrap_or(st.model_threads),
                device: match choice.device {
                    Some(d) => d,
                    None => st.device.parse()?,
                },
                precision: None,
            };
            let mut q = lens_llm::load_answerer(&o)?;
            if let Some(opts) = &choice.opts {
                q.opts = opts.clone();
            }
            Ok(Arc::new(q))
        }
        k => Ok(Arc::from(answer::builtin(k)?)),
    }
}

/// What [`Api::answerers_available`] finds.
struct AnswerersAvailable {
    names: Vec<&'static str>,
    models: Vec<lens_llm::discover::ModelInfo>,
    missing: Option<String>,
    in_use: Option<String>,
}

/// The covers of a library ingested before they could be read ([`Library::read_covers`]), and the
/// filings ingested before facts existed (or whose text OCR changed since) read
/// into facts on a library of its own, once the app has opened it; the app answers meanwhile
/// (answers are judged without the facts not yet read).
fn read_facts_in_background(dir: &Path) {
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        let run = || -> Result<usize> {
            let mut lib = Library::open(&dir)?;
            let named = lib.read_covers()?;
            if named > 0 {
                eprintln!("covers read again: {named} filings gained a company, year or form");
            }
            lib.build_facts(&mut |p| eprintln!("reading facts: {} ({} figures) {}/{}", p.doc_id, p.facts, p.done, p.total))
        };
        if let Err(e) = run() {
            eprintln!("reading facts stopped: {e}");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrieve::Retriever;

    #[test]
    fn retriever_reads_says_what_is_read_and_what_is_missing() {
        assert_eq!(retriever_reads(Retriever::Bm25, 4, None, None), "Keyword search: the pages' words");
        assert_eq!(
            retriever_reads(Retriever::Hybrid, 4, Some((true, 3)), Some((false, 0))),
            "Keyword + meaning search: the pages' words + their meaning (vectors for 3 of 4 documents); no vision model installed"
        );
        assert_eq!(
            retriever_reads(Retriever::Hybrid, 1, Some((true, 0)), Some((true, 1))),
            "Keyword + meaning search: the pages' words + page images (vectors for 1 of 1 document); no meaning vectors built yet"
        );
        assert_eq!(retriever_reads(Retriever::Dense, 2, Some((false, 0)), None), "Meaning search: nothing it can read yet; no embedding model installed");
    }

    #[test]
    fn fused_lists_come_from_the_hybrid_note() {
        assert_eq!(fused_lists(Retriever::Hybrid, &["a note".into(), "hybrid of bm25 + dense".into()]), ["bm25", "dense"]);
        assert_eq!(fused_lists(Retriever::Bm25, &[]), ["bm25"]);
    }
}
