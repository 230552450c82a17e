//! A team's filings kept in a database of record beside the library (`lens serve --team
//! --database`): each filing whole (its PDF, its pages' text, headings, character boxes and
//! OCR source, its metadata and aliases) as one [`FilingCopy`], behind the [`Filings`] seam
//! (PostgreSQL in `lens-pg`). The library folder on the server (SQLite rows, the tantivy index,
//! the PDF copies and page images) is then a working copy: [`pull`] rebuilds what it lacks from
//! the database (no PDF read again, no OCR run again), [`push`] records what was ingested.
//!
//! A filing is put whole or not at all (one transaction); two servers or users adding the same
//! file at once make one filing (its content hash is unique).

use crate::error::{LensError, Result};
use crate::library::Library;
use crate::meta::DocMeta;
use crate::store::NewPage;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// One page of a filing as the database keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageCopy {
    pub page: u32,
    pub text: String,
    pub heading: String,
    pub width: f32,
    pub height: f32,
    pub needs_ocr: bool,
    /// `text` (the PDF's text layer) or how OCR read it.
    pub source: String,
    pub label: Option<String>,
    /// The character boxes, encoded as the library stores them ([`crate::boxes::encode`]).
    pub boxes: Vec<u8>,
}

/// A filing whole: what a library needs to serve it without reading the PDF again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilingCopy {
    pub id: String,
    /// Where it was ingested from (shown; the PDF itself is `pdf`).
    pub path: String,
    pub sha256: String,
    pub title: String,
    pub company: Option<String>,
    pub year: Option<i32>,
    pub form: Option<String>,
    pub aliases: Vec<String>,
    /// Names users gave it by hand (not the metadata's).
    #[serde(default)]
    pub user_aliases: Vec<String>,
    pub pages: Vec<PageCopy>,
    pub pdf: Vec<u8>,
}

/// A document's dense vectors: each page's windows, in page order.
pub type PageVectors = Vec<(u32, Vec<Vec<f32>>)>;

/// Where a team's filings are kept (the database of record).
pub trait Filings {
    /// Put a filing whole; false when one with the same content is there already (nothing
    /// changed).
    fn put_filing(&self, f: &FilingCopy, by: Option<&str>) -> Result<bool>;
    /// Every filing kept: (id, content hash).
    fn filing_ids(&self) -> Result<Vec<(String, String)>>;
    /// One filing whole.
    fn filing(&self, id: &str) -> Result<FilingCopy>;
    /// Remove a filing; not found when there is none of that id. It is remembered (by content)
    /// as removed, so no library's sync puts it back.
    fn remove_filing(&self, id: &str) -> Result<()>;
    /// The content hashes (sha256) of the filings removed and not put again since.
    fn removed_filings(&self) -> Result<HashSet<String>>;
    /// Keep a filing's dense vectors for `model` (each page's windows), replacing those kept;
    /// false when this database keeps no vectors (say, PostgreSQL without pgvector).
    fn put_vectors(&self, id: &str, model: &str, pages: &PageVectors) -> Result<bool>;
    /// A filing's dense vectors for `model`, when kept: each page's windows, in page order.
    fn vectors(&self, id: &str, model: &str) -> Result<Option<PageVectors>>;
    /// The filings whose vectors for `model` are kept (empty where none can be).
    fn vector_ids(&self, model: &str) -> Result<HashSet<String>>;
    /// Replace the names users gave a filing by hand.
    fn set_user_aliases(&self, id: &str, aliases: &[String]) -> Result<()>;
    /// The settings the team's servers share ([`crate::settings::Settings::shared`], as JSON),
    /// once one server has put them.
    fn team_settings(&self) -> Result<Option<String>>;
    fn put_team_settings(&self, json: &str) -> Result<()>;
}

/// The shared settings one way or the other: the database's applied to the library's (its
/// machine's own kept), or, where the database has none yet, the library's put there. Says which.
pub fn sync_settings(lib: &Library, db: &dyn Filings) -> Result<&'static str> {
    let mine = lib.settings()?;
    match db.team_settings()? {
        Some(json) => {
            let shared: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&json).map_err(|e| LensError::Database(format!("the team's settings in the database are unreadable: {e}")))?;
            let merged = mine.patched(&shared)?;
            if merged == mine {
                return Ok("the same");
            }
            lib.save_settings(&merged)?;
            Ok("taken")
        }
        None => {
            db.put_team_settings(&serde_json::Value::Object(mine.shared()).to_string())?;
            Ok("put")
        }
    }
}

/// A library's document as a [`FilingCopy`]: its rows and its PDF copy.
pub fn copy_of(lib: &Library, id: &str) -> Result<FilingCopy> {
    let d = lib.document(id)?;
    let pdf_path = lib.pdf_path(&d)?;
    let pdf = std::fs::read(&pdf_path).map_err(|e| LensError::io(&pdf_path, e))?;
    let store = lib.store();
    let mut pages = Vec::with_capacity(d.pages as usize);
    for n in 1..=d.pages {
        let p = store.page_of(&d, n)?;
        let boxes = crate::boxes::encode(&store.page_boxes(&d, n)?);
        pages.push(PageCopy {
            page: n,
            text: p.text,
            heading: p.heading,
            width: p.width,
            height: p.height,
            needs_ocr: p.needs_ocr,
            source: p.source,
            label: p.pdf_label,
            boxes,
        });
    }
    let all = store.aliases()?;
    let of = |kind: &str| -> Vec<String> { all.iter().filter(|(_, doc, source)| doc == id && source == kind).map(|(alias, ..)| alias.clone()).collect() };
    let (aliases, user_aliases) = (of("meta"), of("user"));
    Ok(FilingCopy {
        id: d.id,
        path: d.path,
        sha256: d.sha256,
        title: d.title,
        company: d.company,
        year: d.year,
        form: d.form,
        aliases,
        user_aliases,
        pages,
        pdf,
    })
}

/// Add a filing copy to the library as a document (its PDF copy written, its pages stored and
/// indexed, published in one step); false when the library holds that content already.
pub fn add_copy(lib: &mut Library, f: &FilingCopy) -> Result<bool> {
    if lib.documents()?.iter().any(|d| d.sha256 == f.sha256) {
        return Ok(false);
    }
    use sha2::{Digest, Sha256};
    if crate::text::hex(&Sha256::digest(&f.pdf)) != f.sha256 {
        return Err(LensError::BadInput(format!("the filing `{}` from the database is damaged: its PDF's hash is not the one recorded", f.id)));
    }
    lib.keep_pdf_copy(&f.sha256, &f.pdf)?;
    let boxes: Vec<Vec<crate::boxes::CharBox>> = f
        .pages
        .iter()
        .map(|p| {
            crate::boxes::decode(&p.boxes)
                .ok_or_else(|| LensError::BadInput(format!("the filing `{}` from the database is damaged: page {}'s boxes", f.id, p.page)))
        })
        .collect::<Result<_>>()?;
    let pages: Vec<NewPage> = f
        .pages
        .iter()
        .zip(&boxes)
        .map(|(p, b)| NewPage {
            page: p.page,
            text: &p.text,
            heading: &p.heading,
            boxes: b,
            width: p.width,
            height: p.height,
            needs_ocr: p.needs_ocr,
            label: p.label.as_deref(),
        })
        .collect();
    let meta = DocMeta { title: f.title.clone(), company: f.company.clone(), year: f.year, form: f.form.clone(), aliases: f.aliases.clone() };
    lib.add_extracted(&f.id, &f.path, f.pdf.len() as u64, &f.sha256, &meta, &pages, &f.pages.iter().map(|p| (p.page, p.source.as_str())).collect::<Vec<_>>())?;
    for a in &f.user_aliases {
        lib.add_alias(&f.id, a)?;
    }
    Ok(true)
}

/// What a sync did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Synced {
    /// Filings of the database added to the library.
    pub pulled: Vec<String>,
    /// Documents of the library added to the database.
    pub pushed: Vec<String>,
    /// Documents whose dense vectors the library took from the database, and put there.
    pub vectors_pulled: usize,
    pub vectors_pushed: usize,
    /// The shared settings: "taken" from the database, "put" there, or "the same".
    pub settings: String,
    /// Documents of the library removed because they were removed from the database meanwhile
    /// (by another server).
    pub removed: Vec<String>,
}

/// Add to the library every filing of the database it lacks (by content).
pub fn pull(lib: &mut Library, db: &dyn Filings) -> Result<Vec<String>> {
    let have: HashSet<String> = lib.documents()?.into_iter().map(|d| d.sha256).collect();
    let mut added = Vec::new();
    for (id, sha) in db.filing_ids()? {
        if have.contains(&sha) {
            continue;
        }
        if add_copy(lib, &db.filing(&id)?)? {
            added.push(id);
        }
    }
    Ok(added)
}

/// Put the library's documents `ids` in the database (those it has by content are left).
pub fn push(lib: &Library, db: &dyn Filings, ids: &[String], by: Option<&str>) -> Result<Vec<String>> {
    let mut put = Vec::new();
    for id in ids {
        if db.put_filing(&copy_of(lib, id)?, by)? {
            put.push(id.clone());
        }
    }
    Ok(put)
}

/// Both ways: the shared settings ([`sync_settings`]); the database's filings the library lacks
/// are added to it, and the library's documents the database lacks are put there; then the dense
/// vectors of the embedding model the settings name, likewise ([`sync_vectors`]).
pub fn sync(lib: &mut Library, db: &dyn Filings) -> Result<Synced> {
    let settings = sync_settings(lib, db)?.to_string();
    let pulled = pull(lib, db)?;
    let held: HashSet<String> = db.filing_ids()?.into_iter().map(|(_, sha)| sha).collect();
    // what the database lacks: put there, unless it was removed from it (then from here too)
    let gone = db.removed_filings()?;
    let (dropped, missing): (Vec<_>, Vec<_>) = lib.documents()?.into_iter().filter(|d| !held.contains(&d.sha256)).partition(|d| gone.contains(&d.sha256));
    let mut removed = Vec::new();
    for d in dropped {
        lib.remove(&d.id)?;
        removed.push(d.id);
    }
    let missing: Vec<String> = missing.into_iter().map(|d| d.id).collect();
    let pushed = push(lib, db, &missing, None)?;
    let model = lib.settings()?.embedder;
    let vectors = sync_vectors(lib, db, &model)?;
    Ok(Synced { pulled, pushed, vectors_pulled: vectors.0, vectors_pushed: vectors.1, settings, removed })
}

/// The dense vectors of `model` both ways, for the filings both hold: the library takes those
/// it has not built, the database those it does not keep. (documents taken, documents put)
pub fn sync_vectors(lib: &mut Library, db: &dyn Filings, model: &str) -> Result<(usize, usize)> {
    let held: HashSet<String> = db.filing_ids()?.into_iter().map(|(id, _)| id).collect();
    let kept = db.vector_ids(model)?;
    let built = lib.dense_doc_keys(model)?;
    let (mut taken, mut put) = (0, 0);
    for d in lib.documents()?.into_iter().filter(|d| held.contains(&d.id)) {
        if built.contains(&d.key) {
            if !kept.contains(&d.id) {
                let pages: PageVectors =
                    lib.store().dense_doc(model, d.key)?.into_iter().map(|(page, dim, packed)| (page, crate::dense::unpack(&packed, dim))).collect();
                if !db.put_vectors(&d.id, model, &pages)? {
                    return Ok((taken, put));
                }
                put += 1;
            }
        } else if let Some(pages) = kept.contains(&d.id).then(|| db.vectors(&d.id, model)).transpose()?.flatten() {
            let dim = pages.iter().flat_map(|(_, w)| w.first()).map(Vec::len).next().unwrap_or(0);
            let packed: Vec<(u32, Vec<u8>)> = pages.iter().map(|(page, w)| (*page, crate::dense::pack(w))).collect();
            lib.put_dense_doc(model, d.key, dim, &packed)?;
            taken += 1;
        }
    }
    Ok((taken, put))
}
