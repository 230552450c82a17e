//! SQLite state: documents, pages (text + compact character boxes), aliases, ingest jobs,
//! the question log and feedback. WAL mode; every multi-row change is one transaction.
//!
//! Documents have an internal integer `key` and an external `id` (file name stem). A document
//! is written as `pending`, indexed, then flipped to `complete` in the same transaction that
//! retires the previous version with the same id; readers only ever see `complete` rows.

use crate::boxes::{self, CharBox};
use crate::error::{LensError, Result};
use crate::meta::DocMeta;
use crate::pageref::PageRef;
use parking_lot::{ReentrantMutex, ReentrantMutexGuard};
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Ordered schema migrations (`crates/lens-core/migrations/`): a library's `PRAGMA user_version`
/// counts those it has run, and opening it runs the rest, each in its own transaction. Never edit
/// one that has shipped; append a new one.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/001_base.sql"),
    include_str!("../migrations/002_document_paths.sql"),
    include_str!("../migrations/003_log_calculation.sql"),
    include_str!("../migrations/004_watch_paused.sql"),
    include_str!("../migrations/005_log_model.sql"),
    include_str!("../migrations/006_labels.sql"),
    include_str!("../migrations/007_vision.sql"),
    include_str!("../migrations/008_page_labels.sql"),
    include_str!("../migrations/009_clean_company_names.sql"),
    include_str!("../migrations/010_log_shown.sql"),
    include_str!("../migrations/011_users.sql"),
    include_str!("../migrations/012_facts.sql"),
    include_str!("../migrations/013_token_expiry.sql"),
    include_str!("../migrations/014_feedback_per_user.sql"),
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// A complete document as the rest of the system sees it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Document {
    pub key: i64,
    pub id: String,
    pub path: String,
    pub title: String,
    pub pages: u32,
    pub bytes: u64,
    pub sha256: String,
    pub company: Option<String>,
    pub year: Option<i32>,
    pub form: Option<String>,
    pub needs_ocr_pages: u32,
    pub ingested_at: String,
}

/// A document's published vision index.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct VisionDoc {
    pub model: String,
    pub edge: u32,
    pub pooled: bool,
    pub pages: u32,
    pub vectors: u64,
    pub bytes: u64,
    #[serde(default)]
    pub built_at: String,
}

/// One stored page.
#[derive(Debug, Clone, Serialize)]
pub struct Page {
    pub doc_id: String,
    pub page: u32,
    pub text: String,
    pub heading: String,
    pub width: f32,
    pub height: f32,
    pub needs_ocr: bool,
    pub source: String,
    /// The PDF's own page label, when it defines one (see [`crate::pagelabel::label`]).
    pub pdf_label: Option<String>,
}

impl Page {
    /// The label shown for this page: the PDF's own, else the number printed on it.
    pub fn label(&self) -> Option<String> {
        crate::pagelabel::label(self.pdf_label.as_deref(), &self.text, self.page)
    }

    /// "p. 41 (PDF page 44)", "p. 60", or "PDF page 7".
    pub fn shown(&self) -> String {
        crate::pagelabel::describe(self.label().as_deref(), self.page)
    }
}

impl Store {
    /// How a page is named beside its index ([`Page::shown`]); "PDF page N" for a page no longer
    /// in the library.
    pub fn page_shown(&self, page: &PageRef) -> String {
        self.page(&page.doc_id, page.page).map(|p| p.shown()).unwrap_or_else(|_| crate::pagelabel::describe(None, page.page))
    }
}

/// A page ready to be stored.
pub struct NewPage<'a> {
    pub page: u32,
    pub text: &'a str,
    pub heading: &'a str,
    pub boxes: &'a [CharBox],
    pub width: f32,
    pub height: f32,
    pub needs_ocr: bool,
    /// The PDF's own page label (/PageLabels), when it defines one.
    pub label: Option<&'a str>,
}

pub struct Store {
    pub(crate) conn: ReentrantMutex<Connection>,
}

fn doc_from_row(r: &rusqlite::Row) -> rusqlite::Result<Document> {
    Ok(Document {
        key: r.get(0)?,
        id: r.get(1)?,
        path: r.get(2)?,
        title: r.get(3)?,
        pages: r.get(4)?,
        bytes: r.get::<_, i64>(5)? as u64,
        sha256: r.get(6)?,
        company: r.get(7)?,
        year: r.get(8)?,
        form: r.get(9)?,
        needs_ocr_pages: r.get(10)?,
        ingested_at: r.get(11)?,
    })
}
const DOC_COLS: &str = "key,id,path,title,pages,bytes,sha256,company,year,form,needs_ocr_pages,ingested_at";

impl Store {
    pub fn open(path: &Path) -> Result<Store> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let mut store = Store { conn: ReentrantMutex::new(conn) };
        store.migrate(path)?;
        Ok(store)
    }

    pub fn open_in_memory() -> Result<Store> {
        let mut store = Store { conn: ReentrantMutex::new(Connection::open_in_memory()?) };
        store.migrate(Path::new(":memory:"))?;
        Ok(store)
    }

    /// The schema version of this library (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<u32> {
        Ok(self.conn().pragma_query_value(None, "user_version", |r| r.get(0))?)
    }

    /// Run the migrations this library has not had yet. A library written by a newer build is
    /// refused untouched.
    fn migrate(&mut self, path: &Path) -> Result<()> {
        let found = self.schema_version()?;
        if found > SCHEMA_VERSION {
            return Err(LensError::LibraryVersion { path: path.to_path_buf(), found, known: SCHEMA_VERSION });
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
            let tx = self.conn.get_mut().transaction()?;
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", i as u32 + 1)?;
            tx.commit()?;
        }
        Ok(())
    }

    /// The connection, for one caller at a time (a thread that holds it may take it again, as a
    /// store method calling another does); readers on other threads wait their turn.
    pub fn conn(&self) -> ReentrantMutexGuard<'_, Connection> {
        self.conn.lock()
    }

    pub fn documents(&self) -> Result<Vec<Document>> {
        let c = self.conn();
        let mut st = c.prepare_cached(&format!("SELECT {DOC_COLS} FROM documents WHERE status='complete' ORDER BY id"))?;
        let rows = st.query_map([], doc_from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    pub fn document(&self, id: &str) -> Result<Document> {
        self.conn()
            .query_row(&format!("SELECT {DOC_COLS} FROM documents WHERE status='complete' AND id=?1"), [id], doc_from_row)
            .optional()?
            .ok_or_else(|| LensError::UnknownDocument(id.to_string()))
    }

    pub fn document_by_key(&self, key: i64) -> Result<Option<Document>> {
        Ok(self.conn().query_row(&format!("SELECT {DOC_COLS} FROM documents WHERE status='complete' AND key=?1"), [key], doc_from_row).optional()?)
    }

    /// Insert a document and its pages as `pending` in one transaction; returns its key.
    pub fn insert_pending(&mut self, id: &str, path: &str, bytes: u64, sha256: &str, meta: &DocMeta, pages: &[NewPage]) -> Result<i64> {
        let tx = self.conn.get_mut().transaction()?;
        let needs_ocr = pages.iter().filter(|p| p.needs_ocr).count() as i64;
        tx.execute(
            "INSERT INTO documents(id,path,title,pages,bytes,sha256,company,year,form,needs_ocr_pages,status) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,'pending')",
            params![id, path, meta.title, pages.len() as i64, bytes as i64, sha256, meta.company, meta.year, meta.form, needs_ocr],
        )?;
        let key = tx.last_insert_rowid();
        {
            let mut pst = tx.prepare_cached("INSERT INTO pages(doc_key,page,text,heading,width,height,needs_ocr,pdf_label) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)")?;
            let mut bst = tx.prepare_cached("INSERT INTO page_boxes(doc_key,page,data) VALUES(?1,?2,?3)")?;
            for p in pages {
                pst.execute(params![key, p.page, p.text, p.heading, p.width, p.height, p.needs_ocr, p.label])?;
                bst.execute(params![key, p.page, boxes::encode(p.boxes)])?;
            }
        }
        tx.commit()?;
        Ok(key)
    }

    /// Make `key` the visible version of its document: retire any previous complete version
    /// (tombstoned for the index), record metadata aliases, flip to complete. One transaction.
    pub fn publish(&mut self, key: i64, aliases: &[String]) -> Result<()> {
        let tx = self.conn.get_mut().transaction()?;
        let id: String = tx.query_row("SELECT id FROM documents WHERE key=?1", [key], |r| r.get(0))?;
        let old: Vec<i64> = {
            let mut st = tx.prepare("SELECT key FROM documents WHERE id=?1 AND status='complete' AND key<>?2")?;
            let v = st.query_map(params![id, key], |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?;
            v
        };
        for k in &old {
            delete_doc_rows(&tx, *k)?;
        }
        tx.execute("DELETE FROM aliases WHERE doc_id=?1 AND source='meta'", [&id])?;
        for a in aliases {
            tx.execute("INSERT OR IGNORE INTO aliases(alias,doc_id,source) VALUES(?1,?2,'meta')", params![a, id])?;
        }
        tx.execute("UPDATE documents SET status='complete' WHERE key=?1", [key])?;
        tx.commit()?;
        Ok(())
    }

    /// A document's cover read again (in a library ingested before the cover could be read, or
    /// after OCR gave the cover text): the company, year and form it lacks are filled from
    /// `meta`, its title follows when the company is filled, and the names `meta` gives become
    /// its aliases. Nothing it holds is replaced. One transaction; false when nothing was filled.
    pub fn fill_metadata(&mut self, id: &str, meta: &DocMeta) -> Result<bool> {
        let doc = self.document(id)?;
        let company = doc.company.is_none() && meta.company.is_some();
        let year = doc.year.is_none() && meta.year.is_some();
        let form = doc.form.is_none() && meta.form.is_some();
        if !(company || year || form) {
            return Ok(false);
        }
        let tx = self.conn.get_mut().transaction()?;
        if company {
            tx.execute("UPDATE documents SET company=?2, title=?3 WHERE key=?1", params![doc.key, meta.company, meta.title])?;
            for a in &meta.aliases {
                tx.execute("INSERT OR IGNORE INTO aliases(alias,doc_id,source) VALUES(?1,?2,'meta')", params![a, id])?;
            }
        }
        if year {
            tx.execute("UPDATE documents SET year=?2 WHERE key=?1", params![doc.key, meta.year])?;
        }
        if form {
            tx.execute("UPDATE documents SET form=?2 WHERE key=?1", params![doc.key, meta.form])?;
        }
        tx.commit()?;
        Ok(true)
    }

    /// A document's company and year as its cover gives them ([`crate::library::Library::read_covers`]),
    /// with the names found there as aliases; one transaction.
    pub fn respell(&mut self, id: &str, company: Option<&str>, year: Option<i32>, aliases: &[String]) -> Result<()> {
        let doc = self.document(id)?;
        let tx = self.conn.get_mut().transaction()?;
        if let Some(c) = company {
            tx.execute("UPDATE documents SET company=?2 WHERE key=?1", params![doc.key, c])?;
            for a in aliases {
                tx.execute("INSERT OR IGNORE INTO aliases(alias,doc_id,source) VALUES(?1,?2,'meta')", params![a, id])?;
            }
        }
        if let Some(y) = year {
            tx.execute("UPDATE documents SET year=?2 WHERE key=?1", params![doc.key, y])?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Remove a complete document (its index entries are tombstoned). Returns its key.
    pub fn remove_document(&mut self, id: &str) -> Result<i64> {
        let doc = self.document(id)?;
        let tx = self.conn.get_mut().transaction()?;
        delete_doc_rows(&tx, doc.key)?;
        tx.execute("DELETE FROM aliases WHERE doc_id=?1", [id])?;
        tx.commit()?;
        Ok(doc.key)
    }

    /// Roll back documents left `pending` by an interrupted ingest: rows deleted, keys tombstoned.
    pub fn discard_pending(&mut self) -> Result<usize> {
        let tx = self.conn.get_mut().transaction()?;
        let keys: Vec<i64> = {
            let mut st = tx.prepare("SELECT key FROM documents WHERE status<>'complete'")?;
            let v = st.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?;
            v
        };
        for k in &keys {
            delete_doc_rows(&tx, *k)?;
        }
        tx.execute("UPDATE ingest_jobs SET status='interrupted', finished_at=strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE status='running'", [])?;
        tx.commit()?;
        Ok(keys.len())
    }

    pub fn tombstones(&self) -> Result<Vec<i64>> {
        let c = self.conn();
        let mut st = c.prepare("SELECT doc_key FROM tombstones")?;
        let v = st.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?;
        Ok(v)
    }

    pub fn clear_tombstones(&self, keys: &[i64]) -> Result<()> {
        for k in keys {
            self.conn().execute("DELETE FROM tombstones WHERE doc_key=?1", [k])?;
        }
        Ok(())
    }

    /// Keys of complete documents (what search may show).
    pub fn complete_keys(&self) -> Result<std::collections::HashMap<i64, String>> {
        let c = self.conn();
        let mut st = c.prepare_cached("SELECT key,id FROM documents WHERE status='complete'")?;
        let v = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
        Ok(v)
    }

    pub fn page(&self, doc_id: &str, page: u32) -> Result<Page> {
        let doc = self.document(doc_id)?;
        self.page_of(&doc, page)
    }

    pub fn page_of(&self, doc: &Document, page: u32) -> Result<Page> {
        let c = self.conn();
        let mut st = c.prepare_cached("SELECT text,heading,width,height,needs_ocr,source,pdf_label FROM pages WHERE doc_key=?1 AND page=?2")?;
        st.query_row(params![doc.key, page], |r| {
            Ok(Page {
                doc_id: doc.id.clone(),
                page,
                text: r.get(0)?,
                heading: r.get(1)?,
                width: r.get(2)?,
                height: r.get(3)?,
                needs_ocr: r.get(4)?,
                source: r.get(5)?,
                pdf_label: r.get(6)?,
            })
        })
        .optional()?
        .ok_or(LensError::UnknownPage { doc: doc.id.clone(), page, pages: doc.pages })
    }

    pub fn page_text_by_key(&self, key: i64, page: u32) -> Result<Option<String>> {
        let c = self.conn();
        let mut st = c.prepare_cached("SELECT text FROM pages WHERE doc_key=?1 AND page=?2")?;
        Ok(st.query_row(params![key, page], |r| r.get(0)).optional()?)
    }

    /// All page texts of a document, in page order.
    pub fn page_texts_by_key(&self, key: i64) -> Result<Vec<(u32, String)>> {
        let c = self.conn();
        let mut st = c.prepare_cached("SELECT page,text FROM pages WHERE doc_key=?1 ORDER BY page")?;
        let v = st.query_map([key], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
        Ok(v)
    }

    /// The text of the document's first `n` pages (its cover), in page order.
    pub fn first_page_texts(&self, key: i64, n: u32) -> Result<Vec<String>> {
        let c = self.conn();
        let mut st = c.prepare_cached("SELECT text FROM pages WHERE doc_key=?1 AND page<=?2 ORDER BY page")?;
        let v = st.query_map(params![key, n], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        Ok(v)
    }

    /// Store one document's dense vectors for `model` (all pages, one transaction) and mark it done.
    pub fn put_dense_doc(&mut self, model: &str, key: i64, dim: usize, pages: &[(u32, Vec<u8>)]) -> Result<()> {
        let tx = self.conn.get_mut().transaction()?;
        tx.execute("DELETE FROM dense_pages WHERE model=?1 AND doc_key=?2", params![model, key])?;
        {
            let mut st = tx.prepare_cached("INSERT INTO dense_pages(model,doc_key,page,dim,vecs) VALUES(?1,?2,?3,?4,?5)")?;
            for (page, v) in pages {
                st.execute(params![model, key, page, dim as i64, v])?;
            }
        }
        tx.execute("INSERT OR REPLACE INTO dense_docs(model,doc_key,pages) VALUES(?1,?2,?3)", params![model, key, pages.len() as i64])?;
        // the document may have been removed meanwhile: keep no orphans
        let alive: bool = tx.query_row("SELECT EXISTS(SELECT 1 FROM documents WHERE key=?1 AND status='complete')", [key], |r| r.get(0))?;
        if !alive {
            tx.execute("DELETE FROM dense_pages WHERE doc_key=?1", [key])?;
            tx.execute("DELETE FROM dense_docs WHERE doc_key=?1", [key])?;
            tx.execute("DELETE FROM vision_docs WHERE doc_key=?1", [key])?;
            tx.execute("DELETE FROM facts WHERE doc_key=?1", [key])?;
            tx.execute("DELETE FROM fact_identities WHERE doc_key=?1", [key])?;
            tx.execute("DELETE FROM fact_docs WHERE doc_key=?1", [key])?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Document keys whose vectors for `model` are complete.
    pub fn dense_doc_keys(&self, model: &str) -> Result<std::collections::HashSet<i64>> {
        let c = self.conn();
        let mut st = c.prepare_cached("SELECT doc_key FROM dense_docs WHERE model=?1")?;
        let v = st.query_map([model], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        Ok(v)
    }

    /// One document's stored vectors for `model`: (page, dim, packed windows).
    pub fn dense_doc(&self, model: &str, key: i64) -> Result<Vec<(u32, usize, Vec<u8>)>> {
        let c = self.conn();
        let mut st = c.prepare_cached("SELECT page,dim,vecs FROM dense_pages WHERE model=?1 AND doc_key=?2 ORDER BY page")?;
        let v = st.query_map(params![model, key], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as usize, r.get(2)?)))?.collect::<rusqlite::Result<_>>()?;
        Ok(v)
    }

    /// Bytes of stored dense vectors for `model` and the number of pages they cover.
    pub fn dense_size(&self, model: &str) -> Result<(u64, u64)> {
        Ok(self.conn().query_row("SELECT COALESCE(SUM(LENGTH(vecs)),0), COUNT(*) FROM dense_pages WHERE model=?1", [model], |r| {
            Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64))
        })?)
    }

    pub fn page_boxes(&self, doc: &Document, page: u32) -> Result<Vec<CharBox>> {
        let c = self.conn();
        let mut st = c.prepare_cached("SELECT data FROM page_boxes WHERE doc_key=?1 AND page=?2")?;
        let data: Option<Vec<u8>> = st.query_row(params![doc.key, page], |r| r.get(0)).optional()?;
        let data = data.ok_or(LensError::UnknownPage { doc: doc.id.clone(), page, pages: doc.pages })?;
        boxes::decode(&data).ok_or_else(|| LensError::Index(format!("stored boxes of {}#{} are unreadable", doc.id, page)))
    }

    /// What the document filter knows of every document: its aliases (with the tickers and
    /// short names of `companies` when `tickers`), company, year, form and quarter.
    pub fn doc_infos(&self, companies: &crate::filter::Companies, tickers: bool) -> Result<Vec<crate::filter::DocInfo>> {
        let mut aliases: std::collections::HashMap<String, Vec<String>> = std::collections::HashMap::new();
        for (a, d, _) in self.aliases()? {
            aliases.entry(d).or_default().push(a);
        }
        Ok(self
            .documents()?
            .into_iter()
            .map(|d| {
                let mut a = aliases.remove(&d.id).unwrap_or_default();
                if tickers {
                    a.extend(companies.extra_aliases(&a, d.company.as_deref()));
                }
                crate::filter::DocInfo {
                    key: d.key,
                    aliases: a,
                    quarter: crate::filter::id_quarter(&d.id),
                    id: d.id,
                    company: d.company,
                    year: d.year,
                    form: d.form,
                }
            })
            .collect())
    }

    /// All aliases: (alias, doc id).
    pub fn aliases(&self) -> Result<Vec<(String, String, String)>> {
        let c = self.conn();
        let mut st = c.prepare_cached("SELECT alias,doc_id,source FROM aliases ORDER BY doc_id,alias")?;
        let v = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<_>>()?;
        Ok(v)
    }

    pub fn add_alias(&self, doc_id: &str, alias: &str) -> Result<String> {
        self.document(doc_id)?;
        let a = crate::text::normalize_name(alias);
        if a.is_empty() {
            return Err(LensError::BadInput("the alias has no letters or digits".into()));
        }
        self.conn().execute("INSERT OR REPLACE INTO aliases(alias,doc_id,source) VALUES(?1,?2,'user')", params![a, doc_id])?;
        Ok(a)
    }

    /// Remove one alias of a document; false when it had no such alias.
    pub fn remove_alias(&self, doc_id: &str, alias: &str) -> Result<bool> {
        self.document(doc_id)?;
        let a = crate::text::normalize_name(alias);
        Ok(self.conn().execute("DELETE FROM aliases WHERE doc_id=?1 AND alias=?2", params![doc_id, a])? > 0)
    }

    pub fn job_start(&self, path: &str) -> Result<i64> {
        self.conn().execute("INSERT INTO ingest_jobs(path,status) VALUES(?1,'running')", [path])?;
        Ok(self.conn().last_insert_rowid())
    }

    pub fn job_finish(&self, job: i64, status: &str, doc_id: Option<&str>, sha: Option<&str>, pages: Option<u32>, err: Option<&LensError>) -> Result<()> {
        self.conn().execute(
            "UPDATE ingest_jobs SET status=?2, doc_id=?3, sha256=?4, pages=?5, error_code=?6, error=?7, finished_at=strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE id=?1",
            params![job, status, doc_id, sha, pages, err.map(|e| e.code()), err.map(|e| e.to_string())],
        )?;
        Ok(())
    }
}

impl Store {
    pub fn setting(&self, key: &str) -> Result<Option<String>> {
        Ok(self.conn().query_row("SELECT value FROM settings WHERE key=?1", [key], |r| r.get(0)).optional()?)
    }
    pub fn set_setting(&self, key: &str, value: &str) -> Result<()> {
        self.conn().execute("INSERT OR REPLACE INTO settings(key,value) VALUES(?1,?2)", [key, value])?;
        Ok(())
    }
    /// Watch a folder (again: adding a paused folder resumes it).
    pub fn add_watch(&self, path: &str) -> Result<()> {
        self.conn().execute("INSERT INTO watched_folders(path) VALUES(?1) ON CONFLICT(path) DO UPDATE SET paused=NULL", [path])?;
        Ok(())
    }
    /// Pause a watched folder with the reason (`None` resumes it).
    pub fn set_watch_paused(&self, path: &str, reason: Option<&str>) -> Result<()> {
        self.conn().execute("UPDATE watched_folders SET paused=?2 WHERE path=?1", params![path, reason])?;
        Ok(())
    }
    /// Watched folders and, for paused ones, why.
    pub fn watch_status(&self) -> Result<Vec<(String, Option<String>)>> {
        let c = self.conn();
        let mut st = c.prepare("SELECT path, paused FROM watched_folders ORDER BY path")?;
        let v = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(v)
    }
    pub fn remove_watch(&self, path: &str) -> Result<bool> {
        Ok(self.conn().execute("DELETE FROM watched_folders WHERE path=?1", [path])? > 0)
    }
    pub fn watches(&self) -> Result<Vec<String>> {
        let c = self.conn();
        let mut st = c.prepare("SELECT path FROM watched_folders ORDER BY path")?;
        let v = st.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(v)
    }
    /// Documents ingested from `path`.
    pub fn documents_at(&self, path: &str) -> Result<Vec<String>> {
        let c = self.conn();
        let mut st = c.prepare("SELECT id FROM documents WHERE status='complete' AND path=?1")?;
        let v = st.query_map([path], |r| r.get(0))?.collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(v)
    }
    /// Edit a document's metadata (empty strings clear a field).
    pub fn set_metadata(&self, id: &str, company: Option<&str>, year: Option<i32>, form: Option<&str>) -> Result<()> {
        self.document(id)?;
        if let Some(c) = company {
            self.conn().execute("UPDATE documents SET company=NULLIF(?2,'') WHERE id=?1 AND status='complete'", params![id, c])?;
            if !c.trim().is_empty() {
                self.add_alias(id, c)?;
            }
        }
        if let Some(y) = year {
            self.conn().execute("UPDATE documents SET year=?2 WHERE id=?1 AND status='complete'", params![id, y])?;
        }
        if let Some(f) = form {
            self.conn().execute("UPDATE documents SET form=NULLIF(?2,'') WHERE id=?1 AND status='complete'", params![id, f])?;
        }
        Ok(())
    }
}

/// A page waiting for OCR.
#[derive(Debug, Clone)]
pub struct OcrTodo {
    pub doc_key: i64,
    pub doc_id: String,
    pub sha256: String,
    pub path: String,
    pub page: u32,
    pub height: f32,
}

impl Store {
    /// Pages still needing OCR (not yet failed), optionally of one document.
    pub fn ocr_todo(&self, doc_id: Option<&str>, retry_failed: bool) -> Result<Vec<OcrTodo>> {
        let c = self.conn();
        let mut st = c.prepare(
            "SELECT d.key,d.id,d.sha256,d.path,p.page,p.height FROM pages p JOIN documents d ON d.key=p.doc_key \
             WHERE d.status='complete' AND p.needs_ocr=1 AND (?1 OR p.ocr_error IS NULL) AND (?2 IS NULL OR d.id=?2) ORDER BY d.id,p.page",
        )?;
        let v = st
            .query_map(params![retry_failed, doc_id], |r| {
                Ok(OcrTodo { doc_key: r.get(0)?, doc_id: r.get(1)?, sha256: r.get(2)?, path: r.get(3)?, page: r.get(4)?, height: r.get(5)? })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(v)
    }

    /// Store an OCR'd page's text and word boxes (the page no longer needs OCR).
    /// `source`: `ocr`, or `blank` for a page found empty.
    pub fn set_ocr_page(&mut self, doc_key: i64, page: u32, text: &str, heading: &str, boxes: &[CharBox], source: &str) -> Result<()> {
        let tx = self.conn.get_mut().transaction()?;
        tx.execute(
            "UPDATE pages SET text=?3, heading=?4, needs_ocr=0, source=?5, ocr_error=NULL WHERE doc_key=?1 AND page=?2",
            params![doc_key, page, text, heading, source],
        )?;
        tx.execute("UPDATE page_boxes SET data=?3 WHERE doc_key=?1 AND page=?2", params![doc_key, page, boxes::encode(boxes)])?;
        tx.execute("UPDATE documents SET needs_ocr_pages=(SELECT count(*) FROM pages WHERE doc_key=?1 AND needs_ocr=1) WHERE key=?1", [doc_key])?;
        tx.commit()?;
        Ok(())
    }

    /// Record how pages' text was read (`text`, or an OCR source), for pages stored with it
    /// already read ([`crate::replica`]).
    pub fn set_page_sources(&mut self, doc_key: i64, sources: &[(u32, &str)]) -> Result<()> {
        let tx = self.conn.get_mut().transaction()?;
        {
            let mut st = tx.prepare_cached("UPDATE pages SET source=?3 WHERE doc_key=?1 AND page=?2")?;
            for (page, source) in sources.iter().filter(|(_, s)| *s != "text") {
                st.execute(params![doc_key, page, source])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    pub fn set_ocr_error(&self, doc_key: i64, page: u32, err: &str) -> Result<()> {
        self.conn().execute("UPDATE pages SET ocr_error=?3 WHERE doc_key=?1 AND page=?2", params![doc_key, page, err])?;
        Ok(())
    }

    /// Count of pages read by OCR, per document key.
    pub fn ocr_pages(&self, doc_key: i64) -> Result<u32> {
        Ok(self.conn().query_row("SELECT count(*) FROM pages WHERE doc_key=?1 AND source='ocr'", [doc_key], |r| r.get(0))?)
    }
}

impl Store {
    /// Documents whose vision index is published: key -> row.
    pub fn vision_docs(&self) -> Result<std::collections::HashMap<i64, VisionDoc>> {
        let c = self.conn();
        let mut st = c.prepare_cached("SELECT v.doc_key, v.model, v.edge, v.pooled, v.pages, v.vectors, v.bytes, v.built_at FROM vision_docs v JOIN documents d ON d.key = v.doc_key AND d.status='complete'")?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    VisionDoc {
                        model: r.get(1)?,
                        edge: r.get(2)?,
                        pooled: r.get(3)?,
                        pages: r.get(4)?,
                        vectors: r.get(5)?,
                        bytes: r.get(6)?,
                        built_at: r.get(7)?,
                    },
                ))
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Record a published vision index file for a complete document (false: the document is
    /// gone or replaced meanwhile, and the file is left for the sweep).
    pub fn add_vision_doc(&self, key: i64, v: &VisionDoc) -> Result<bool> {
        let c = self.conn();
        let tx = c.unchecked_transaction()?;
        let live: i64 = tx.query_row("SELECT count(*) FROM documents WHERE key=?1 AND status='complete'", [key], |r| r.get(0))?;
        if live == 0 {
            return Ok(false);
        }
        tx.execute(
            "INSERT OR REPLACE INTO vision_docs(doc_key, model, edge, pooled, pages, vectors, bytes) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![key, v.model, v.edge, v.pooled, v.pages, v.vectors, v.bytes],
        )?;
        tx.commit()?;
        Ok(true)
    }

    /// Forget a document's vision index (before a rebuild).
    pub fn remove_vision_doc(&self, key: i64) -> Result<()> {
        self.conn().execute("DELETE FROM vision_docs WHERE doc_key=?1", [key])?;
        Ok(())
    }

    /// Is any complete document stored with this sha256?
    pub fn sha_in_use(&self, sha: &str) -> Result<bool> {
        Ok(self.conn().query_row("SELECT count(*) FROM documents WHERE sha256=?1", [sha], |r| r.get::<_, i64>(0))? > 0)
    }
}

fn delete_doc_rows(tx: &rusqlite::Transaction, key: i64) -> Result<()> {
    tx.execute("DELETE FROM pages WHERE doc_key=?1", [key])?;
    tx.execute("DELETE FROM page_boxes WHERE doc_key=?1", [key])?;
    tx.execute("DELETE FROM dense_pages WHERE doc_key=?1", [key])?;
    tx.execute("DELETE FROM dense_docs WHERE doc_key=?1", [key])?;
    tx.execute("DELETE FROM vision_docs WHERE doc_key=?1", [key])?;
    tx.execute("DELETE FROM facts WHERE doc_key=?1", [key])?;
    tx.execute("DELETE FROM fact_identities WHERE doc_key=?1", [key])?;
    tx.execute("DELETE FROM fact_docs WHERE doc_key=?1", [key])?;
    tx.execute("DELETE FROM documents WHERE key=?1", [key])?;
    tx.execute("INSERT OR IGNORE INTO tombstones(doc_key) VALUES(?1)", [key])?;
    Ok(())
}
