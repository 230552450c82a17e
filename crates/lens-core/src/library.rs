//! A library: the SQLite store plus the page index in one folder, and the operations every
//! front end (CLI, desktop app, `lens serve`) shares: search, documents, aliases, removal.

use crate::dense::{DenseCache, TextEmbedder};
use crate::error::{LensError, Result};
use crate::evidence::{self, Evidence, EvidenceBox};
use crate::filter::{Companies, DocInfo};
use crate::index::{PageIndex, PageWriter};
use crate::lexicon::Lexicon;
use crate::pageref::PageRef;
use crate::rank;
use crate::store::{Document, Store};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// The statement tables of one page, shared.
pub type PageTables = Arc<Vec<crate::figures::table::Table>>;

/// The document holding `page`, or why there is none (unknown document, page out of range).
pub fn check_page(store: &Store, doc_id: &str, page: u32) -> Result<Document> {
    let d = store.document(doc_id)?;
    if page == 0 || page > d.pages {
        return Err(LensError::UnknownPage { doc: d.id, page, pages: d.pages });
    }
    Ok(d)
}

/// Statement tables of the pages read by worked answers ([`crate::figures::table::tables`]),
/// computed on first use; an unknown page has none.
#[derive(Default)]
pub struct TableCache(RwLock<HashMap<(i64, u32), PageTables>>);

impl TableCache {
    pub fn get(&self, store: &Store, page: &PageRef) -> PageTables {
        let Ok(d) = check_page(store, &page.doc_id, page.page) else { return Arc::default() };
        if let Some(t) = self.0.read().unwrap_or_else(|p| p.into_inner()).get(&(d.key, page.page)) {
            return t.clone();
        }
        let t = match (store.page_of(&d, page.page), store.page_boxes(&d, page.page)) {
            (Ok(p), Ok(b)) => Arc::new(crate::figures::table::tables(&p.text, &b)),
            _ => Arc::default(),
        };
        self.0.write().unwrap_or_else(|p| p.into_inner()).insert((d.key, page.page), t.clone());
        t
    }

    pub fn clear(&self) {
        self.0.write().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

pub struct Library {
    dir: Option<PathBuf>,
    pub(crate) store: Store,
    pub(crate) index: PageIndex,
    pub(crate) lexicon: Lexicon,
    pub(crate) companies: Companies,
    metrics: crate::figures::catalogue::Catalogue,
    short_forms: crate::question::ShortForms,
    judgements: crate::question::Judgements,
    checks: crate::figures::rules::Rules,
    pub(crate) dense: DenseCache,
    embedder: RwLock<Option<Arc<dyn TextEmbedder>>>,
    /// The vision index with its query encoder, when one is registered (`lens-vision`).
    vision: RwLock<Option<Arc<dyn crate::vision::VisionIndex>>>,
    /// Rerank profiles of pages seen so far.
    pub(crate) profiles: rank::ProfileCache,
    /// Statement tables of pages read by worked answers (same lifetime as the profiles).
    pub(crate) tables: TableCache,
}

/// A document with what the app shows of it.
#[derive(Debug, Clone, Serialize)]
pub struct DocView {
    #[serde(flatten)]
    pub doc: Document,
    /// The company as the filing names itself ("American Express Company").
    pub display_name: Option<String>,
    /// "FY2022", "Q2 FY2023", or an 8-K's date.
    pub period: Option<String>,
    /// What the app calls the document: "American Express Company FY2022 10-K" (company,
    /// period, form), or its title when no company is known.
    pub name: String,
}

/// A document's facts ([`Library::facts`]).
#[derive(Debug, Clone, Serialize)]
pub struct DocFacts {
    pub doc_id: String,
    /// Whether its facts were read (by this build's reading).
    pub built: bool,
    /// Identities that held and that did not; facts inside one that did not.
    pub passed: usize,
    pub failed: usize,
    pub flagged: usize,
    pub facts: Vec<crate::facts::Fact>,
    pub identities: Vec<crate::facts::Identity>,
}

/// What recovery did when a library was opened for writing.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Recovery {
    pub discarded_pending: usize,
    pub purged_index_docs: usize,
}

impl Library {
    /// Open (or create) the library in `dir` for reading and searching.
    pub fn open(dir: &Path) -> Result<Library> {
        std::fs::create_dir_all(dir).map_err(|e| LensError::io(dir, e))?;
        // confidential filings: the library is this user's alone
        // (best effort: a folder this user does not own keeps its modes)
        let _ = crate::paths::restrict(dir, 0o700);
        let store = Store::open(&dir.join("lens.sqlite"))?;
        for f in ["lens.sqlite", "lens.sqlite-wal", "lens.sqlite-shm"] {
            let p = dir.join(f);
            if p.exists() {
                let _ = crate::paths::restrict(&p, 0o600);
            }
        }
        let index = PageIndex::open_in_dir(&dir.join("index"))?;
        let lexicon = Lexicon::with_user_file(&dir.join("lexicon.json"))?;
        let companies = Companies::with_user_file(&dir.join("companies.json"))?;
        let metrics = crate::figures::catalogue::Catalogue::with_user_file(&dir.join("metrics.json"))?;
        let short_forms = crate::question::ShortForms::with_user_file(&dir.join("shortforms.json"))?;
        let judgements = crate::question::Judgements::with_user_file(&dir.join("judgements.json"))?;
        let checks = crate::figures::rules::Rules::with_user_file(&dir.join("checks.json"))?;
        Ok(Library {
            dir: Some(dir.to_path_buf()),
            store,
            index,
            lexicon,
            companies,
            metrics,
            short_forms,
            judgements,
            checks,
            dense: DenseCache::default(),
            embedder: RwLock::new(None),
            vision: RwLock::new(None),
            profiles: Default::default(),
            tables: Default::default(),
        })
    }

    /// A library held entirely in memory (tests).
    pub fn in_memory() -> Result<Library> {
        Ok(Library {
            dir: None,
            store: Store::open_in_memory()?,
            index: PageIndex::in_ram()?,
            lexicon: Lexicon::builtin(),
            companies: Companies::builtin(),
            metrics: crate::figures::catalogue::Catalogue::builtin(),
            short_forms: crate::question::ShortForms::builtin(),
            judgements: crate::question::Judgements::builtin(),
            checks: crate::figures::rules::Rules::builtin(),
            dense: DenseCache::default(),
            embedder: RwLock::new(None),
            vision: RwLock::new(None),
            profiles: Default::default(),
            tables: Default::default(),
        })
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Use this embedding model for dense and hybrid search (`lens_ml::minilm::attach` loads
    /// the settings' one).
    pub fn set_embedder(&self, e: Arc<dyn TextEmbedder>) {
        *self.embedder.write().unwrap() = Some(e);
    }

    /// Register (or clear) the vision index searches use.
    pub fn set_vision(&self, v: Option<Arc<dyn crate::vision::VisionIndex>>) {
        *self.vision.write().unwrap_or_else(|p| p.into_inner()) = v;
    }

    pub fn vision(&self) -> Option<Arc<dyn crate::vision::VisionIndex>> {
        self.vision.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn embedder(&self) -> Option<Arc<dyn TextEmbedder>> {
        self.embedder.read().unwrap().clone()
    }

    /// The statement tables of a page ([`crate::figures::table::tables`]), computed on first use and
    /// cached; an unknown page has none.
    pub fn page_tables(&self, page: &PageRef) -> PageTables {
        self.tables.get(&self.store, page)
    }

    /// The sections of each page of the document `key` ([`crate::sections::of_document`]),
    /// read from its stored text on first use.
    pub fn page_sections(&self, key: i64) -> Result<crate::rank::DocSections> {
        self.profiles.sections_of(&self.store, key)
    }

    /// Forget cached page profiles and tables (after pages were re-read, e.g. by OCR).
    pub fn forget_profiles(&self) {
        self.profiles.clear();
        self.tables.clear();
    }

    /// The metric catalogue of worked answers (built in, plus `<library>/metrics.json`).
    pub fn metrics(&self) -> &crate::figures::catalogue::Catalogue {
        &self.metrics
    }

    /// The verifier's rules (built in, plus `<library>/checks.json`).
    pub fn checks(&self) -> &crate::figures::rules::Rules {
        &self.checks
    }

    /// Judgement rules (built in, plus `<library>/judgements.json`).
    pub fn judgements(&self) -> &crate::question::Judgements {
        &self.judgements
    }

    /// A question read with this library's short forms, catalogue and rules.
    pub fn read_question(&self, text: &str) -> crate::question::Question {
        crate::question::Question::parse_with(text, &self.short_forms, &self.metrics, &self.judgements)
    }

    pub fn lexicon(&self) -> &Lexicon {
        &self.lexicon
    }

    /// The library's SQLite store, for lens-core's own stages and tests; the front ends use the
    /// methods below (and those `log.rs`, `settings.rs` and `labels/` add), not the store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn store_mut(&mut self) -> &mut Store {
        &mut self.store
    }

    /// One stored page: its text, heading and character boxes.
    pub fn page(&self, doc_id: &str, page: u32) -> Result<crate::store::Page> {
        self.store.page(doc_id, page)
    }

    /// How a page is shown to a reader: its printed label where the document has one.
    pub fn page_shown(&self, page: &PageRef) -> String {
        self.store.page_shown(page)
    }

    /// Every page's text of the document with this key, in page order.
    pub fn page_texts(&self, key: i64) -> Result<Vec<(u32, String)>> {
        self.store.page_texts_by_key(key)
    }

    /// Set (or clear, with `None`) a document's company, year and form.
    pub fn set_metadata(&self, id: &str, company: Option<&str>, year: Option<i32>, form: Option<&str>) -> Result<()> {
        self.store.set_metadata(id, company, year, form)
    }

    /// Every alias: (alias, document id, source).
    pub fn aliases(&self) -> Result<Vec<(String, String, String)>> {
        self.store.aliases()
    }

    /// Every alias as the Library shows it, by document: (alias, document id, source). The
    /// names found in the document become [`crate::meta::shown_aliases`] (the company as its
    /// cover prints it, short forms in capitals, the company list's tickers with source
    /// `list`); aliases the user added are shown as stored (they are removed by that name).
    pub fn aliases_shown(&self) -> Result<Vec<(String, String, String)>> {
        let mut by_doc: std::collections::BTreeMap<String, (Vec<String>, Vec<String>)> = Default::default();
        for (alias, doc, source) in self.store.aliases()? {
            let e = by_doc.entry(doc).or_default();
            if source == "user" {
                e.1.push(alias)
            } else {
                e.0.push(alias)
            }
        }
        let mut out = Vec::new();
        for v in self.document_views()? {
            let (meta, user) = by_doc.remove(&v.doc.id).unwrap_or_default();
            let listed = self.companies.extra_aliases(&meta, v.doc.company.as_deref());
            for (a, from_list) in crate::meta::shown_aliases(v.display_name.as_deref().or(v.doc.company.as_deref()), &meta, &listed) {
                out.push((a, v.doc.id.clone(), if from_list { "list" } else { "meta" }.to_string()));
            }
            out.extend(user.into_iter().map(|a| (a, v.doc.id.clone(), "user".to_string())));
        }
        Ok(out)
    }

    pub fn remove_alias(&self, doc_id: &str, alias: &str) -> Result<bool> {
        self.store.remove_alias(doc_id, alias)
    }

    /// The documents with dense vectors of `model`, by key.
    /// Read again, once, the cover of every document ingested before covers without an SEC
    /// caption could be read (the setting `covers_read_through` keeps the last document key
    /// read): what [`crate::meta::guess`] finds on its first pages fills the company, year or
    /// form it lacks ([`Library::read_cover`]). A name a user cleared later is not put back.
    /// How many documents gained something.
    pub fn read_covers(&mut self) -> Result<usize> {
        let through: i64 = self.store.setting("covers_read_through")?.and_then(|v| v.parse().ok()).unwrap_or(0);
        let docs: Vec<crate::store::Document> = self.store.documents()?.into_iter().filter(|d| d.key > through).collect();
        let mut n = 0;
        for d in &docs {
            n += usize::from(self.fill_from_cover(d)?);
        }
        if let Some(last) = docs.iter().map(|d| d.key).max() {
            self.store.set_setting("covers_read_through", &last.to_string())?;
        }
        n += self.respell_from_covers()?;
        Ok(n)
    }

    /// Once per library (the setting `names_written_through`): a filing stored with what its
    /// file name says (`BESTBUY_2019_10K`: "Bestbuy"; a release's year from its name) takes what
    /// its cover says instead where [`crate::meta::guess`] now reads it ("Best Buy"; "Fourth
    /// Quarter Fiscal 2022 Results": 2022). A name or year a user set is never changed: only one
    /// equal to the file name's reading is. How many documents changed.
    fn respell_from_covers(&mut self) -> Result<usize> {
        let through: i64 = self.store.setting("names_written_through")?.and_then(|v| v.parse().ok()).unwrap_or(0);
        let docs: Vec<crate::store::Document> = self.store.documents()?.into_iter().filter(|d| d.key > through).collect();
        let mut n = 0;
        for d in &docs {
            let bare = crate::meta::guess(&d.id, &[]);
            let texts = self.store.first_page_texts(d.key, COVER_PAGES)?;
            let first: Vec<&str> = texts.iter().map(String::as_str).collect();
            let read = crate::meta::guess(&d.id, &first);
            let company = (d.company.is_some() && d.company == bare.company && read.company != bare.company).then_some(read.company.as_deref()).flatten();
            let year = (d.year.is_some() && d.year == bare.year && read.year != bare.year).then_some(read.year).flatten();
            if company.is_some() || year.is_some() {
                self.store.respell(&d.id, company, year, &read.aliases)?;
                n += 1;
            }
        }
        if let Some(last) = docs.iter().map(|d| d.key).max() {
            self.store.set_setting("names_written_through", &last.to_string())?;
        }
        Ok(n)
    }

    /// Read one document's cover again (after OCR gave its first pages text): the company,
    /// year and form it lacks, from its first three pages
    /// ([`crate::store::Store::fill_metadata`]); whether it gained something.
    pub fn read_cover(&mut self, id: &str) -> Result<bool> {
        let d = self.store.document(id)?;
        self.fill_from_cover(&d)
    }

    fn fill_from_cover(&mut self, d: &Document) -> Result<bool> {
        if d.company.is_some() && d.year.is_some() && d.form.is_some() {
            return Ok(false);
        }
        let texts = self.store.first_page_texts(d.key, COVER_PAGES)?;
        let first: Vec<&str> = texts.iter().map(String::as_str).collect();
        let meta = crate::meta::guess(&d.id, &first);
        self.store.fill_metadata(&d.id, &meta)
    }

    /// Read into facts every document that lacks them or whose text changed since
    /// ([`crate::facts::build_missing`]); how many were read.
    pub fn build_facts(&mut self, on_progress: &mut dyn FnMut(&crate::facts::Progress)) -> Result<usize> {
        crate::facts::build_missing(&mut self.store, &self.metrics, on_progress)
    }

    /// A document's facts and the identities tested over them (empty until
    /// [`Library::build_facts`] has read it).
    pub fn facts(&self, id: &str) -> Result<DocFacts> {
        let doc = self.store.document(id)?;
        let facts = crate::facts::stored::facts(&self.store, doc.key)?;
        let identities = crate::facts::stored::identities(&self.store, doc.key)?;
        let built = crate::facts::stored::is_built(&self.store, doc.key)?;
        let passed = identities.iter().filter(|i| i.passed).count();
        let failed = identities.len() - passed;
        let flagged = facts.iter().filter(|f| f.flagged.is_some()).count();
        Ok(DocFacts { doc_id: doc.id, built, passed, failed, flagged, facts, identities })
    }

    pub fn dense_doc_keys(&self, model: &str) -> Result<HashSet<i64>> {
        self.store.dense_doc_keys(model)
    }

    /// Bytes and pages of `model`'s dense vectors.
    pub fn dense_size(&self, model: &str) -> Result<(u64, u64)> {
        self.store.dense_size(model)
    }

    /// Embed the documents without `emb`'s vectors (see [`crate::dense::build`]).
    pub fn build_dense(
        &mut self,
        emb: &dyn TextEmbedder,
        only: Option<&[String]>,
        cancel: &std::sync::atomic::AtomicBool,
        progress: &mut dyn FnMut(&crate::dense::BuildProgress),
    ) -> Result<crate::dense::BuildReport> {
        crate::dense::build(&mut self.store, emb, only, cancel, progress)
    }

    /// Watched folders.
    pub fn watches(&self) -> Result<Vec<String>> {
        self.store.watches()
    }

    /// Watched folders with why each is paused (`None`: watching).
    pub fn watch_status(&self) -> Result<Vec<(String, Option<String>)>> {
        self.store.watch_status()
    }

    pub fn set_watch_paused(&self, path: &str, reason: Option<&str>) -> Result<()> {
        self.store.set_watch_paused(path, reason)
    }

    pub fn add_watch(&self, path: &str) -> Result<()> {
        self.store.add_watch(path)
    }

    pub fn remove_watch(&self, path: &str) -> Result<bool> {
        self.store.remove_watch(path)
    }

    /// Ids of the documents ingested from `path`.
    pub fn documents_at(&self, path: &str) -> Result<Vec<String>> {
        self.store.documents_at(path)
    }

    /// The published vision indexes, by document key.
    pub fn vision_docs(&self) -> Result<HashMap<i64, crate::store::VisionDoc>> {
        self.store.vision_docs()
    }

    /// Record a document's published vision index; false when one of another build is there.
    pub fn add_vision_doc(&self, key: i64, v: &crate::store::VisionDoc) -> Result<bool> {
        self.store.add_vision_doc(key, v)
    }

    pub fn remove_vision_doc(&self, key: i64) -> Result<()> {
        self.store.remove_vision_doc(key)
    }

    /// Take the index writer (one per library at a time) and finish anything an interrupted
    /// ingest left: pending documents are dropped, their index entries deleted.
    pub fn writer(&mut self) -> Result<(PageWriter, Recovery)> {
        let mut w = self.index.writer().map_err(|e| match e {
            LensError::Index(m) if m.contains("ock") => LensError::BadInput(format!("the library is being written by another process ({m})")),
            other => other,
        })?;
        let mut rec = Recovery { discarded_pending: self.store.discard_pending()?, ..Default::default() };
        self.index.reload()?;
        let complete: HashSet<i64> = self.store.complete_keys()?.into_keys().collect();
        let mut dead: Vec<i64> = self.store.tombstones()?;
        for k in self.index.keys()? {
            if !complete.contains(&k) && !dead.contains(&k) {
                dead.push(k);
            }
        }
        if !dead.is_empty() {
            for k in &dead {
                w.delete_doc(*k);
            }
            w.commit()?;
            self.store.clear_tombstones(&dead)?;
            self.index.reload()?;
            rec.purged_index_docs = dead.len();
        }
        Ok((w, rec))
    }

    /// Apply tombstones (after removals/replacements) with `w` and refresh readers.
    pub(crate) fn apply_tombstones(&mut self, w: &mut PageWriter) -> Result<()> {
        let dead = self.store.tombstones()?;
        if !dead.is_empty() {
            for k in &dead {
                w.delete_doc(*k);
            }
            w.commit()?;
            self.store.clear_tombstones(&dead)?;
        }
        self.index.reload()
    }

    pub fn documents(&self) -> Result<Vec<Document>> {
        self.store.documents()
    }

    pub fn document(&self, id: &str) -> Result<Document> {
        self.store.document(id)
    }

    /// Documents as the app lists them ([`Library::document_view`]).
    pub fn document_views(&self) -> Result<Vec<DocView>> {
        Ok(self.documents()?.into_iter().map(|d| self.document_view(d)).collect())
    }

    /// A document with the company's display name (from its cover page,
    /// [`crate::meta::display_name`]), the period it covers and the name the app shows.
    pub fn document_view(&self, d: Document) -> DocView {
        let cover: Vec<String> = self.store.first_page_texts(d.key, COVER_PAGES).unwrap_or_default();
        let cover: Vec<&str> = cover.iter().map(String::as_str).collect();
        let display_name = d.company.as_deref().map(|c| crate::meta::display_name(c, &cover, &self.companies));
        let period = crate::meta::period(&d.id, d.year, d.form.as_deref());
        let name = match display_name.as_ref().or(d.company.as_ref()) {
            Some(company) => {
                let period = period.clone().or_else(|| d.year.map(|y| y.to_string())).unwrap_or_default();
                let form = d.form.clone().filter(|f| !period.contains(f.as_str())).unwrap_or_default();
                [company.clone(), period, form].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ")
            }
            None if d.title.is_empty() => d.id.clone(),
            None => d.title.clone(),
        };
        DocView { doc: d, display_name, period, name }
    }

    /// Where the library keeps its copy of a PDF (by content hash), when it has a folder.
    pub fn pdf_copy_path(&self, sha256: &str) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join("pdfs").join(format!("{sha256}.pdf")))
    }

    /// Write the library's copy of a PDF (by content hash) unless it is there: whole or not at
    /// all (written aside, then renamed). Nothing for a library without a folder.
    pub fn keep_pdf_copy(&self, sha256: &str, bytes: &[u8]) -> Result<()> {
        let Some(copy) = self.pdf_copy_path(sha256) else { return Ok(()) };
        if copy.is_file() {
            return Ok(());
        }
        let dir = copy.parent().expect("a copy path has a folder");
        std::fs::create_dir_all(dir).map_err(|e| LensError::io(dir, e))?;
        let tmp = copy.with_extension("part");
        std::fs::write(&tmp, bytes).map_err(|e| LensError::io(&tmp, e))?;
        std::fs::rename(&tmp, &copy).map_err(|e| LensError::io(&copy, e))
    }

    /// The PDF to render for a document: the library's copy, else the original file.
    pub fn pdf_path(&self, doc: &Document) -> Result<PathBuf> {
        if let Some(p) = self.pdf_copy_path(&doc.sha256).filter(|p| p.is_file()) {
            return Ok(p);
        }
        let p = PathBuf::from(&doc.path);
        if p.is_file() {
            Ok(p)
        } else {
            Err(LensError::NotFound(format!("the PDF of `{}` is no longer at {} (ingest it again)", doc.id, doc.path)))
        }
    }

    /// Delete library copies no document references any more (best effort).
    pub(crate) fn prune_copies(&self, shas: &[String]) {
        for sha in shas {
            if let (Some(p), Ok(false)) = (self.pdf_copy_path(sha), self.store.sha_in_use(sha)) {
                let _ = std::fs::remove_file(p);
            }
        }
    }

    /// Check a page reference: the document exists and has that page.
    pub fn check_page(&self, doc_id: &str, page: u32) -> Result<Document> {
        check_page(&self.store, doc_id, page)
    }

    /// See index changes made by another `Library` on the same folder (a background ingest).
    pub fn refresh(&self) -> Result<()> {
        self.forget_profiles();
        self.index.reload()
    }

    pub fn num_indexed_pages(&self) -> u64 {
        self.index.num_pages()
    }

    /// Add a document whose pages were read elsewhere (a team database's copy,
    /// [`crate::replica`]): stored pending, indexed, then published, as an ingest does; its
    /// PDF copy must be in place. Returns its key.
    #[allow(clippy::too_many_arguments)]
    pub fn add_extracted(
        &mut self,
        id: &str,
        path: &str,
        bytes: u64,
        sha256: &str,
        meta: &crate::meta::DocMeta,
        pages: &[crate::store::NewPage],
        sources: &[(u32, &str)],
    ) -> Result<i64> {
        let (mut w, _) = self.writer()?;
        let key = self.store.insert_pending(id, path, bytes, sha256, meta, pages)?;
        self.store.set_page_sources(key, sources)?;
        for p in pages {
            w.add_page(key, p.page, p.text, p.heading)?;
        }
        w.commit()?;
        self.store.publish(key, &meta.aliases)?;
        self.apply_tombstones(&mut w)?;
        self.forget_profiles();
        Ok(key)
    }

    /// Store a document's dense vectors for `model`, built elsewhere (a team database's,
    /// [`crate::replica`]): packed as [`crate::dense::pack`] packs them, one row per page.
    pub fn put_dense_doc(&mut self, model: &str, key: i64, dim: usize, pages: &[(u32, Vec<u8>)]) -> Result<()> {
        self.store.put_dense_doc(model, key, dim, pages)?;
        self.dense.forget(key);
        Ok(())
    }

    /// Remove a document: its rows go in one transaction, its index entries right after.
    pub fn remove(&mut self, id: &str) -> Result<()> {
        let sha = self.store.document(id)?.sha256;
        let (mut w, _) = self.writer()?;
        let key = self.store.remove_document(id)?;
        self.dense.forget(key);
        self.apply_tombstones(&mut w)?;
        self.prune_copies(&[sha]);
        Ok(())
    }

    pub fn add_alias(&self, doc_id: &str, alias: &str) -> Result<String> {
        self.store.add_alias(doc_id, alias)
    }

    pub fn doc_infos(&self) -> Result<Vec<DocInfo>> {
        self.doc_infos_with(true)
    }

    /// What the filter knows of each document; `tickers` adds the company list's short forms.
    pub fn doc_infos_with(&self, tickers: bool) -> Result<Vec<DocInfo>> {
        self.store.doc_infos(&self.companies, tickers)
    }

    /// The companies the library holds filings of (a document without a company counts as its
    /// own), sorted, each once.
    pub fn company_names(&self) -> Result<Vec<String>> {
        let mut names: Vec<String> = self.store.documents()?.into_iter().map(|d| d.company.filter(|c| !c.trim().is_empty()).unwrap_or(d.id)).collect();
        names.sort_by_key(|n| crate::text::normalize_name(n));
        names.dedup_by_key(|n| crate::text::normalize_name(n));
        Ok(names)
    }

    /// The evidence for `quote` (else `answer`'s numbers) on one page, boxed in page points.
    pub fn evidence(&self, page: &PageRef, quote: Option<&str>, answer: Option<&str>) -> Result<Evidence> {
        let d = self.check_page(&page.doc_id, page.page)?;
        if quote.is_none() && answer.is_none() {
            return Ok(Evidence::none());
        }
        let p = self.store.page_of(&d, page.page)?;
        let b = self.store.page_boxes(&d, page.page)?;
        Ok(evidence::locate(&p.text, &b, quote, answer))
    }

    /// A page rendered at `dpi` with `boxes` drawn on it, as PNG bytes. Callers that must not
    /// hold the library while pdfium renders take [`Library::page_source`] and render themselves.
    pub fn render_png(&self, page: &PageRef, dpi: f32, boxes: &[EvidenceBox]) -> Result<Vec<u8>> {
        crate::render::page_png(&self.page_source(page)?, page.page, dpi, boxes)
    }

    /// The PDF file to render `page` from, after checking the page exists.
    pub fn page_source(&self, page: &PageRef) -> Result<PathBuf> {
        let d = self.check_page(&page.doc_id, page.page)?;
        self.pdf_path(&d)
    }
}

/// The pages a filing's cover is read from (its company, year and form; the name it prints).
const COVER_PAGES: u32 = 3;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NewPage;

    /// A document of one page of `text`, as an older build stored it (`meta` as it guessed).
    fn stored(lib: &mut Library, id: &str, text: &str, meta: &crate::meta::DocMeta) {
        let page = NewPage { page: 1, text, heading: "", boxes: &[], width: 612.0, height: 792.0, needs_ocr: false, label: None };
        let key = lib.store_mut().insert_pending(id, "/x.pdf", 1, id, meta, &[page]).unwrap();
        lib.store_mut().publish(key, &meta.aliases).unwrap();
    }

    #[test]
    fn covers_an_older_build_could_not_read_are_read_once_and_fill_only_what_is_missing() {
        let mut lib = Library::in_memory().unwrap();
        let cover = "Annual Report 2022\nNorthwind Traders plc\nNorthwind Traders plc and its subsidiaries";
        // an older build named neither: the company, year and form come from the cover, with its aliases
        stored(&mut lib, "0a61a353", cover, &crate::meta::DocMeta { title: "0a61a353".into(), ..Default::default() });
        // a named filing keeps its name, whatever its cover says
        let named = crate::meta::guess("ACME_2019_10K", &[]);
        stored(&mut lib, "ACME_2019_10K", cover, &named);
        assert_eq!(lib.read_covers().unwrap(), 1);
        let d = lib.document("0a61a353").unwrap();
        assert_eq!((d.company.as_deref(), d.year, d.form.as_deref()), (Some("Northwind Traders plc"), Some(2022), Some("annual report")));
        assert!(lib.aliases().unwrap().iter().any(|(a, doc, _)| a == "northwind traders" && doc == "0a61a353"));
        assert_eq!(lib.document("ACME_2019_10K").unwrap().company.as_deref(), Some("Acme"));
        // read once: a name the user clears afterwards is not put back
        lib.set_metadata("0a61a353", Some(""), None, None).unwrap();
        assert_eq!(lib.read_covers().unwrap(), 0);
        assert_eq!(lib.document("0a61a353").unwrap().company, None);
        // a cover OCR has since given text is read again on its own
        assert!(lib.read_cover("0a61a353").unwrap());
    }

    #[test]
    fn names_an_older_build_took_from_file_names_are_written_as_the_cover_prints_them_once() {
        let mut lib = Library::in_memory().unwrap();
        let caption = "\n(Exact name of registrant as specified in its charter)";
        let cover = format!("FORM 10-K\nBEST BUY CO., INC.{caption}");
        // stored as an older build read it: the file name's "Bestbuy"
        stored(&mut lib, "BESTBUY_2019_10K", cover.as_str(), &crate::meta::guess("BESTBUY_2019_10K", &[]));
        // a name the user typed is theirs
        stored(&mut lib, "BESTBUY_2023_10K", cover.as_str(), &crate::meta::guess("BESTBUY_2023_10K", &[]));
        lib.set_metadata("BESTBUY_2023_10K", Some("BBY Retail"), None, None).unwrap();
        // a release's year from its title
        let release = "Ulta Beauty Announces Fourth Quarter Fiscal 2022 Results";
        stored(&mut lib, "ULTABEAUTY_2023Q4_EARNINGS", release, &crate::meta::guess("ULTABEAUTY_2023Q4_EARNINGS", &[]));
        assert_eq!(lib.document("BESTBUY_2019_10K").unwrap().company.as_deref(), Some("Bestbuy"));
        assert_eq!(lib.read_covers().unwrap(), 2);
        assert_eq!(lib.document("BESTBUY_2019_10K").unwrap().company.as_deref(), Some("Best Buy"));
        assert_eq!(lib.document("BESTBUY_2023_10K").unwrap().company.as_deref(), Some("BBY Retail"));
        let ulta = lib.document("ULTABEAUTY_2023Q4_EARNINGS").unwrap();
        assert_eq!((ulta.company.as_deref(), ulta.year), (Some("Ulta Beauty"), Some(2022)));
        assert!(lib.aliases().unwrap().iter().any(|(a, doc, _)| a == "best buy" && doc == "BESTBUY_2019_10K"));
        // once: a name changed back afterwards stays
        lib.set_metadata("BESTBUY_2019_10K", Some("Bestbuy"), None, None).unwrap();
        assert_eq!(lib.read_covers().unwrap(), 0);
        assert_eq!(lib.document("BESTBUY_2019_10K").unwrap().company.as_deref(), Some("Bestbuy"));
    }
}
