//! A library: the SQLite store plus the page index in one folder, and the operations every
//! front end (CLI, desktop app, `lens serve`) shares: search, documents, aliases, removal.

use crate::error::{LensError, Result};
use crate::filter::{self, Companies, DocFilter, DocInfo};
use crate::index::{Bm25Params, IndexHit, PageIndex, PageWriter};
use crate::lexicon::Lexicon;
use crate::rank::{self, RankParams};
use crate::dense::{self, DenseCache, Embedder};
use std::sync::{Arc, RwLock};
use crate::store::{Document, Store};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Longest question accepted; longer ones are cut (with a note), not rejected.
pub const MAX_QUESTION_CHARS: usize = 2000;
/// Most distinct query terms used.
pub const MAX_TERMS: usize = 64;

pub struct Library {
    dir: Option<PathBuf>,
    pub(crate) store: Store,
    pub(crate) index: PageIndex,
    pub(crate) lexicon: Lexicon,
    pub(crate) companies: Companies,
    pub(crate) dense: DenseCache,
    embedder: RwLock<Option<Arc<Embedder>>>,
    /// Rerank profiles of pages seen so far (a page's text never changes under its key; OCR
    /// replaces a page in place, so `ocr` clears the cache).
    profiles: RwLock<HashMap<(i64, u32), Arc<rank::PageProfile>>>,
}

/// Which ranking a search uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Retriever {
    /// BM25 with statement-aware reranking.
    #[default]
    Bm25,
    /// Dense embeddings only (best window per page).
    Dense,
    /// Reciprocal rank fusion of the two.
    Hybrid,
}

impl std::str::FromStr for Retriever {
    type Err = LensError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "bm25" => Ok(Retriever::Bm25),
            "dense" => Ok(Retriever::Dense),
            "hybrid" => Ok(Retriever::Hybrid),
            "vision" => Err(LensError::BadInput("the vision retriever is not available in this build (use bm25, dense or hybrid)".into())),
            _ => Err(LensError::BadInput(format!("unknown retriever `{s}` (bm25, dense, hybrid)"))),
        }
    }
}

impl Retriever {
    pub fn name(self) -> &'static str {
        match self {
            Retriever::Bm25 => "bm25",
            Retriever::Dense => "dense",
            Retriever::Hybrid => "hybrid",
        }
    }
}

/// Weights of reciprocal rank fusion (BM25's list has weight 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    pub dense_weight: f32,
    pub k0: f32,
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion { dense_weight: 0.25, k0: 60.0 }
    }
}

#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: String,
    /// Explicit document scope (ids); overrides the automatic filter.
    pub docs: Vec<String>,
    pub k: usize,
    pub filter: bool,
    pub params: Bm25Params,
    /// Statement/table-aware reranking of the BM25 candidates.
    pub rank: RankParams,
    pub retriever: Retriever,
    pub fusion: Fusion,
    pub filter_opts: filter::FilterOptions,
}

impl SearchRequest {
    pub fn new(query: impl Into<String>) -> Self {
        SearchRequest { query: query.into(), docs: Vec::new(), k: 10, filter: true, params: Bm25Params::default(), rank: RankParams::default(), retriever: Retriever::default(), fusion: Fusion::default(), filter_opts: Default::default() }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    pub rank: usize,
    pub doc_id: String,
    pub page: u32,
    pub score: f32,
    pub snippet: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchResponse {
    pub hits: Vec<SearchHit>,
    pub filter: Option<DocFilter>,
    pub terms: Vec<String>,
    pub notes: Vec<String>,
    /// The ranking actually used (hybrid falls back to bm25 when no vectors are at hand).
    pub retriever: Retriever,
    pub elapsed_ms: f64,
    /// Milliseconds spent choosing documents, ranking pages, and building snippets.
    pub filter_ms: f64,
    pub rank_ms: f64,
    pub snippet_ms: f64,
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
        let store = Store::open(&dir.join("lens.sqlite"))?;
        let index = PageIndex::open_in_dir(&dir.join("index"))?;
        let lexicon = Lexicon::with_user_file(&dir.join("lexicon.json"))?;
        let companies = Companies::with_user_file(&dir.join("companies.json"))?;
        Ok(Library { dir: Some(dir.to_path_buf()), store, index, lexicon, companies, dense: DenseCache::default(), embedder: RwLock::new(None), profiles: Default::default() })
    }

    /// A library held entirely in memory (tests).
    pub fn in_memory() -> Result<Library> {
        Ok(Library { dir: None, store: Store::open_in_memory()?, index: PageIndex::in_ram()?, lexicon: Lexicon::builtin(), companies: Companies::builtin(), dense: DenseCache::default(), embedder: RwLock::new(None), profiles: Default::default() })
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Use this embedding model for dense and hybrid search.
    pub fn set_embedder(&self, e: Arc<Embedder>) {
        *self.embedder.write().unwrap() = Some(e);
    }

    pub fn embedder(&self) -> Option<Arc<Embedder>> {
        self.embedder.read().unwrap().clone()
    }

    fn page_profile(&self, key: i64, page: u32) -> Result<Arc<rank::PageProfile>> {
        if let Some(p) = self.profiles.read().unwrap().get(&(key, page)) {
            return Ok(p.clone());
        }
        let text = self.store.page_text_by_key(key, page)?.unwrap_or_default();
        let p = Arc::new(rank::profile(&text, &self.lexicon));
        self.profiles.write().unwrap().insert((key, page), p.clone());
        Ok(p)
    }

    /// Forget cached page profiles (after pages were re-read, e.g. by OCR).
    pub fn forget_profiles(&self) {
        self.profiles.write().unwrap().clear();
    }

    /// Load the embedding model from `models_dir/<name>` unless one is loaded already.
    pub fn load_embedder(&self, models_dir: &Path, name: &str) -> Result<Arc<Embedder>> {
        if let Some(e) = self.embedder().filter(|e| e.name() == name) {
            return Ok(e);
        }
        let e = Arc::new(Embedder::load(&models_dir.join(name))?);
        self.set_embedder(e.clone());
        Ok(e)
    }

    pub fn lexicon(&self) -> &Lexicon {
        &self.lexicon
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn store_mut(&mut self) -> &mut Store {
        &mut self.store
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

    /// Where the library keeps its copy of a PDF (by content hash), when it has a folder.
    pub fn pdf_copy_path(&self, sha256: &str) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join("pdfs").join(format!("{sha256}.pdf")))
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
        let d = self.store.document(doc_id)?;
        if page == 0 || page > d.pages {
            return Err(LensError::UnknownPage { doc: d.id, page, pages: d.pages });
        }
        Ok(d)
    }

    /// See index changes made by another `Library` on the same folder (a background ingest).
    pub fn refresh(&self) -> Result<()> {
        self.forget_profiles();
        self.index.reload()
    }

    pub fn num_indexed_pages(&self) -> u64 {
        self.index.num_pages()
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
        let mut aliases: HashMap<String, Vec<String>> = HashMap::new();
        for (a, d, _) in self.store.aliases()? {
            aliases.entry(d).or_default().push(a);
        }
        Ok(self
            .store
            .documents()?
            .into_iter()
            .map(|d| {
                let mut a = aliases.remove(&d.id).unwrap_or_default();
                if tickers {
                    a.extend(self.companies.extra_aliases(&a, d.company.as_deref()));
                }
                DocInfo { key: d.key, aliases: a, quarter: filter::id_quarter(&d.id), id: d.id, company: d.company, year: d.year, form: d.form }
            })
            .collect())
    }

    /// Ranked pages for a question.
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse> {
        let t0 = Instant::now();
        let mut notes = Vec::new();
        let q = req.query.trim();
        if q.is_empty() {
            return Err(LensError::BadInput("the question is empty".into()));
        }
        let q: String = if q.chars().count() > MAX_QUESTION_CHARS {
            notes.push(format!("the question was cut to its first {MAX_QUESTION_CHARS} characters"));
            q.chars().take(MAX_QUESTION_CHARS).collect()
        } else {
            q.to_string()
        };
        let mut terms = self.index.query_terms(&q);
        if terms.len() > MAX_TERMS {
            terms.truncate(MAX_TERMS);
            notes.push(format!("only the first {MAX_TERMS} distinct words were used"));
        }
        if terms.is_empty() {
            notes.push("the question has no searchable words".into());
        }
        let complete = self.store.complete_keys()?;
        let infos;
        let mut applied = None;
        let groups: Vec<Option<Vec<i64>>> = if !req.docs.is_empty() {
            let mut keys = Vec::new();
            for id in &req.docs {
                keys.push(self.store.document(id)?.key);
            }
            vec![Some(keys)]
        } else if req.filter {
            infos = self.doc_infos_with(req.filter_opts.tickers)?;
            match filter::detect_with(&q, &infos, &req.filter_opts) {
                Some(f) => {
                    let g = if req.filter_opts.decompose { f.key_groups.iter().cloned().map(Some).collect() } else { vec![Some(f.key_groups.concat())] };
                    applied = Some(f);
                    g
                }
                None => vec![None],
            }
        } else {
            vec![None]
        };
        let filter_ms = t0.elapsed().as_secs_f64() * 1000.0;
        let t1 = Instant::now();
        let k = req.k.clamp(1, 1000);
        // lexicon expansions: line items as extra text terms, statement names as heading terms
        // Once the filter has picked a company's filings, its name only matches the pages
        // that repeat it (exhibit lists of subsidiaries, signatures): drop it from the query.
        let mut name_terms: HashSet<String> = HashSet::new();
        if let Some(f) = &applied {
            if req.params.drop_company_terms {
                for a in &f.companies {
                    name_terms.extend(self.index.query_terms(a));
                }
            }
        }
        let kept: Vec<&String> = terms.iter().filter(|t| !name_terms.contains(*t)).collect();
        let kept: Vec<&String> = if kept.is_empty() { terms.iter().collect() } else { kept };
        let mut weighted: Vec<(String, f32)> = kept.iter().map(|t| ((*t).clone(), 1.0)).collect();
        let mut heading_extra: Vec<(String, f32)> = Vec::new();
        // one lexicon pass serves the query expansion and the reranker's intent
        let e = self.lexicon.expand(&q);
        if req.params.expansion_weight > 0.0 {
            for t in self.index.query_terms(&e.line_items.join(" ")) {
                if !terms.contains(&t) {
                    weighted.push((t, req.params.expansion_weight));
                }
            }
            for t in self.index.query_terms(&e.headings.join(" ")) {
                heading_extra.push((t, req.params.expansion_weight * req.params.heading_boost));
            }
        }
        let intent = rank::intent_of(&q, e);
        let mut lists: Vec<Vec<IndexHit>> = Vec::new();
        for g in &groups {
            let hits = self.index.search_weighted(&weighted, &heading_extra, g.as_deref(), (k + 8).max(req.rank.depth), req.params)?;
            let mut hits: Vec<IndexHit> = hits.into_iter().filter(|h| complete.contains_key(&h.doc_key)).collect();
            // equal scores are ordered by document id and page, so rankings do not depend on
            // the order documents happened to be ingested in
            let order = |a: &IndexHit, b: &IndexHit| b.score.total_cmp(&a.score).then_with(|| complete[&a.doc_key].cmp(&complete[&b.doc_key])).then(a.page.cmp(&b.page));
            hits.sort_by(order);
            if req.rank.depth > 0 && !hits.is_empty() {
                let top = hits[0].score.max(f32::MIN_POSITIVE);
                let n = req.rank.depth.max(k).min(hits.len());
                for h in &mut hits[..n] {
                    let prof = self.page_profile(h.doc_key, h.page)?;
                    h.score = rank::score(h.score / top, &prof, &intent, &req.rank);
                }
                hits[..n].sort_by(order);
                hits.truncate(n);
            }
            lists.push(hits);
        }
        // dense and hybrid: one query vector, the best windows of the same groups
        let mut used = req.retriever;
        if req.retriever != Retriever::Bm25 {
            let emb = self.embedder();
            let dense_keys = match &emb {
                Some(e) => self.store.dense_doc_keys(e.name())?,
                None => Default::default(),
            };
            let all_keys: Vec<i64> = complete.keys().copied().collect();
            let in_scope = |g: &Option<Vec<i64>>| -> Vec<i64> { g.as_deref().unwrap_or(&all_keys).iter().copied().filter(|k| dense_keys.contains(k)).collect() };
            let scoped: Vec<Vec<i64>> = groups.iter().map(in_scope).collect();
            let scope_total: usize = groups.iter().map(|g| g.as_ref().map_or(all_keys.len(), Vec::len)).sum();
            let covered: usize = scoped.iter().map(Vec::len).sum();
            match (&emb, covered) {
                (None, _) if req.retriever == Retriever::Dense => {
                    return Err(LensError::ModelMissing { what: "an embedding model".into(), dir: PathBuf::from("(none loaded)"), hint: "load one (settings: models dir) or search with the bm25 retriever".into() })
                }
                (None, _) => {
                    notes.push("no embedding model is loaded: BM25 only".into());
                    used = Retriever::Bm25;
                }
                (Some(_), 0) if req.retriever == Retriever::Dense => {
                    return Err(LensError::NotFound("no document in scope has dense vectors yet (run `lens dense build`)".into()));
                }
                (Some(_), 0) => {
                    notes.push("no document in scope has dense vectors yet: BM25 only".into());
                    used = Retriever::Bm25;
                }
                (Some(e), _) => {
                    if covered < scope_total {
                        notes.push(format!("{} of {} documents in scope have dense vectors", covered, scope_total));
                    }
                    let qv = e.embed_query(&q)?;
                    let depth = (k + 8).max(req.rank.depth);
                    for (list, keys) in lists.iter_mut().zip(&scoped) {
                        let dh = self.dense.search(&self.store, e.name(), &qv, keys, depth)?;
                        *list = if req.retriever == Retriever::Dense { dh } else { dense::rrf(&[(list, 1.0), (&dh, req.fusion.dense_weight)], req.fusion.k0, depth) };
                    }
                }
            }
        }
        let merged = interleave(&lists, k);
        let rank_ms = t1.elapsed().as_secs_f64() * 1000.0;
        let t2 = Instant::now();
        let mut hits = Vec::with_capacity(merged.len());
        for (i, h) in merged.into_iter().enumerate() {
            let text = self.store.page_text_by_key(h.doc_key, h.page)?.unwrap_or_default();
            hits.push(SearchHit { rank: i + 1, doc_id: complete[&h.doc_key].clone(), page: h.page, score: h.score, snippet: snippet(&self.index, &text, &terms, 220) });
        }
        let snippet_ms = t2.elapsed().as_secs_f64() * 1000.0;
        Ok(SearchResponse { hits, filter: applied, terms, notes, retriever: used, elapsed_ms: t0.elapsed().as_secs_f64() * 1000.0, filter_ms, rank_ms, snippet_ms })
    }
}

/// Round-robin merge of ranked lists, dropping duplicates, up to `k`.
pub fn interleave(lists: &[Vec<IndexHit>], k: usize) -> Vec<IndexHit> {
    if lists.len() == 1 {
        return lists[0].iter().take(k).copied().collect();
    }
    let mut out: Vec<IndexHit> = Vec::new();
    let mut seen = HashSet::new();
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    'outer: for i in 0..longest {
        for l in lists {
            if let Some(h) = l.get(i) {
                if seen.insert((h.doc_key, h.page)) {
                    out.push(*h);
                    if out.len() >= k {
                        break 'outer;
                    }
                }
            }
        }
    }
    out
}

/// The ~`width`-character stretch of `text` holding the most distinct query terms.
pub fn snippet(index: &PageIndex, text: &str, terms: &[String], width: usize) -> String {
    let toks = crate::text::tokenize(text);
    let term_set: HashSet<&str> = terms.iter().map(String::as_str).collect();
    // Stems are (nearly always) prefixes of their words: stem only tokens sharing a
    // 3-character prefix with some query term.
    let prefixes: HashSet<&str> = terms.iter().map(|t| &t[..t.char_indices().nth(3).map(|(i, _)| i).unwrap_or(t.len())]).collect();
    let candidate = |t: &str| prefixes.contains(&t[..t.char_indices().nth(3).map(|(i, _)| i).unwrap_or(t.len())]);
    let stems: Vec<Option<String>> = toks
        .iter()
        .map(|t| {
            if !candidate(&t.text) {
                return None;
            }
            index.stem_tokens(std::iter::once(t.text.as_str())).pop().flatten().filter(|s| term_set.contains(s.as_str()))
        })
        .collect();
    let (mut best, mut best_start) = (0usize, 0usize);
    for i in 0..toks.len() {
        if stems[i].is_none() {
            continue;
        }
        let mut seen = HashSet::new();
        let mut j = i;
        while j < toks.len() && toks[j].end - toks[i].start <= width {
            if let Some(s) = &stems[j] {
                seen.insert(s.as_str());
            }
            j += 1;
        }
        if seen.len() > best {
            best = seen.len();
            best_start = toks[i].start;
        }
    }
    // back off a few characters so the snippet starts before the first match
    let start = text[..best_start].char_indices().rev().nth(30).map(|(i, _)| i).unwrap_or(0);
    let s: String = text[start..].chars().take(width).collect();
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
