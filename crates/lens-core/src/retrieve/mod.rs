//! Retrieval: from a question to ranked pages. One function per step, each with its knob:
//!
//! 1. [`scope`]: which documents (the user's pick, else the filter's company / year / form
//!    groups, else all);
//! 2. [`lexical`]: BM25 over each group with lexicon expansion, then statement-aware rerank;
//! 3. [`semantic`]: dense (MiniLM) windows over the same groups, when the retriever asks for it;
//!    [`visual`]: late-interaction page-image vectors (ColModernVBERT, in `lens-vision`);
//! 4. [`fuse`]: weighted reciprocal rank fusion of N lists per group (BM25, dense, and any
//!    retriever added later), then a round-robin merge of the groups;
//! 5. [`snippet`]: the stretch of each page that holds the most query terms.
//!
//! A new retriever adds a step that returns one list per group and a weight in [`Fusion`].

pub mod fuse;
pub mod lexical;
pub mod scope;
pub mod semantic;
pub mod snippet;
mod vectors;
pub mod visual;

use crate::error::{LensError, Result};
use crate::filter::{self, DocFilter};
use crate::index::{Bm25Params, IndexHit};
use crate::library::Library;
use crate::rank::RankParams;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Longest question accepted; longer ones are cut (with a note), not rejected.
pub const MAX_QUESTION_CHARS: usize = 2000;
/// Most distinct query terms used.
pub const MAX_TERMS: usize = 64;

named_enum!(
    /// Which ranking a search uses.
    #[derive(Default)]
    pub enum Retriever("retriever") {
        /// BM25 with statement-aware reranking.
        #[default]
        Bm25 = "bm25",
        /// Dense embeddings only (best window per page).
        Dense = "dense",
        /// Reciprocal rank fusion of BM25 and every other list with vectors in scope.
        Hybrid = "hybrid",
        /// Page images only (late interaction, MaxSim).
        Vision = "vision",
    }
);

impl Retriever {
    /// Does this retriever read dense vectors (and so need the embedding model)?
    pub fn uses_dense(self) -> bool {
        matches!(self, Retriever::Dense | Retriever::Hybrid)
    }

    /// Does it read the vision index?
    pub fn uses_vision(self) -> bool {
        matches!(self, Retriever::Vision | Retriever::Hybrid)
    }
}

/// How the lists are fused: by normalised scores ([`fuse::mix`], the default: tuned on
/// financebench half a) or by reciprocal ranks; BM25's list has weight 1, the others are relative to it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Fusion {
    pub dense_weight: f32,
    /// Not tuned yet: no real vision weights could be run here (see docs/models.md).
    pub vision_weight: f32,
    /// RRF's rank offset (60 in the original paper).
    pub k0: f32,
    /// Fuse by normalised scores ([`fuse::mix`]) instead of ranks.
    pub mix: bool,
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion { dense_weight: 0.4, vision_weight: 0.5, k0: 60.0, mix: true }
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
        SearchRequest {
            query: query.into(),
            docs: Vec::new(),
            k: 10,
            filter: true,
            params: Bm25Params::default(),
            rank: RankParams::default(),
            retriever: Retriever::default(),
            fusion: Fusion::default(),
            filter_opts: Default::default(),
        }
    }

    /// A search the app makes for itself, in one document, by BM25: a line item's labels or a
    /// statement's title (the calculator's statement pages, a figure's other printings). Page
    /// titles weigh as they did before the question defaults were retuned for the dense fusion
    /// (heading boost 1.5, no topic words, 40 candidates reranked), which these lookups were
    /// built on: a statement is found by its title.
    pub fn lookup(query: impl Into<String>, doc: &str, k: usize) -> Self {
        let mut r = SearchRequest::new(query);
        r.docs = vec![doc.to_string()];
        r.k = k;
        r.filter = false;
        r.retriever = Retriever::Bm25;
        r.params.heading_boost = 1.5;
        r.params.topic_weight = 0.0;
        r.rank.depth = 40;
        r
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

impl SearchHit {
    pub fn page_ref(&self) -> crate::pageref::PageRef {
        crate::pageref::PageRef::new(self.doc_id.clone(), self.page)
    }
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

impl Library {
    /// Ranked pages for a question (see [`search`]).
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse> {
        search(self, req)
    }
}

/// The question as searched: trimmed, cut to [`MAX_QUESTION_CHARS`], and its index terms.
pub struct Query {
    pub text: String,
    pub terms: Vec<String>,
}

/// What the retrieval steps read, and only that: each step takes these, not the [`Library`],
/// so a step can change (or be tested) without the rest. Made once per search.
#[derive(Clone)]
pub struct Sources<'a> {
    pub index: &'a crate::index::PageIndex,
    pub store: &'a crate::store::Store,
    pub lexicon: &'a crate::lexicon::Lexicon,
    pub companies: &'a filter::Companies,
    pub profiles: &'a crate::rank::ProfileCache,
    pub dense: &'a crate::dense::DenseCache,
    pub embedder: Option<std::sync::Arc<dyn crate::dense::TextEmbedder>>,
    pub vision: Option<std::sync::Arc<dyn crate::vision::VisionIndex>>,
}

impl<'a> Sources<'a> {
    pub fn of(lib: &'a Library) -> Sources<'a> {
        Sources {
            index: &lib.index,
            store: lib.store(),
            lexicon: &lib.lexicon,
            companies: &lib.companies,
            profiles: &lib.profiles,
            dense: &lib.dense,
            embedder: lib.embedder(),
            vision: lib.vision(),
        }
    }
}

fn prepare_query(src: &Sources, raw: &str, notes: &mut Vec<String>) -> Result<Query> {
    let q = raw.trim();
    if q.is_empty() {
        return Err(LensError::BadInput("the question is empty".into()));
    }
    let text: String = if q.chars().count() > MAX_QUESTION_CHARS {
        notes.push(format!("the question was cut to its first {MAX_QUESTION_CHARS} characters"));
        q.chars().take(MAX_QUESTION_CHARS).collect()
    } else {
        q.to_string()
    };
    let mut terms = src.index.query_terms(&text);
    if terms.len() > MAX_TERMS {
        terms.truncate(MAX_TERMS);
        notes.push(format!("only the first {MAX_TERMS} distinct words were used"));
    }
    if terms.is_empty() {
        notes.push("the question has no searchable words".into());
    }
    Ok(Query { text, terms })
}

/// Ranked pages for a question.
pub fn search(lib: &Library, req: &SearchRequest) -> Result<SearchResponse> {
    search_in(&Sources::of(lib), req)
}

/// [`search`] over the parts of a library it reads.
pub fn search_in(src: &Sources, req: &SearchRequest) -> Result<SearchResponse> {
    let t0 = Instant::now();
    let mut notes = Vec::new();
    let q = prepare_query(src, &req.query, &mut notes)?;
    let complete = src.store.complete_keys()?;
    let scoped = scope::scope(src, &q.text, req)?;
    let filter_ms = t0.elapsed().as_secs_f64() * 1000.0;

    let t1 = Instant::now();
    let k = req.k.clamp(1, 1000);
    let depth = (k + 8).max(req.rank.depth);
    let bm25 = lexical::ranked(src, &q, scoped.filter.as_ref(), &scoped.groups, &complete, req, k)?;
    let dense = semantic::ranked(src, &q.text, &scoped.groups, &complete, req.retriever, depth, &mut notes)?;
    let vision = visual::ranked(src, &q.text, &scoped.groups, &complete, req.retriever, depth, &mut notes)?;
    let only = |r: Retriever| req.retriever == r;
    let lexical_list = !(only(Retriever::Dense) || only(Retriever::Vision));
    let used = match (lexical_list, dense.is_some(), vision.is_some()) {
        (false, true, _) => Retriever::Dense,
        (false, _, true) => Retriever::Vision,
        (true, false, false) => Retriever::Bm25,
        _ => Retriever::Hybrid,
    };
    if req.retriever == Retriever::Hybrid {
        let mut lists = vec!["bm25"];
        if dense.is_some() {
            lists.push("dense");
        }
        if vision.is_some() {
            lists.push("vision");
        }
        notes.push(format!("hybrid of {}", lists.join(" + ")));
    }
    // one list of weighted sources per group, fused
    let lists: Vec<Vec<IndexHit>> = bm25
        .iter()
        .enumerate()
        .map(|(g, lex)| {
            let mut sources: Vec<(&[IndexHit], f32)> = Vec::new();
            if lexical_list {
                sources.push((lex, 1.0));
            }
            if let Some(d) = &dense {
                let w = if used == Retriever::Dense { 1.0 } else { req.fusion.dense_weight };
                sources.push((&d[g], w));
            }
            if let Some(v) = &vision {
                let w = if used == Retriever::Vision { 1.0 } else { req.fusion.vision_weight };
                sources.push((&v[g], w));
            }
            if req.fusion.mix && sources.len() > 1 {
                fuse::mix(&sources, depth)
            } else {
                fuse::fuse(&sources, req.fusion.k0, depth)
            }
        })
        .collect();
    let merged = fuse::interleave(&lists, k);
    let rank_ms = t1.elapsed().as_secs_f64() * 1000.0;

    let t2 = Instant::now();
    let mut hits = Vec::with_capacity(merged.len());
    for (i, h) in merged.into_iter().enumerate() {
        let text = src.store.page_text_by_key(h.doc_key, h.page)?.unwrap_or_default();
        hits.push(SearchHit {
            rank: i + 1,
            doc_id: complete[&h.doc_key].clone(),
            page: h.page,
            score: h.score,
            snippet: snippet::snippet(src.index, &text, &q.terms, 220),
        });
    }
    let snippet_ms = t2.elapsed().as_secs_f64() * 1000.0;
    Ok(SearchResponse {
        hits,
        filter: scoped.filter,
        terms: q.terms,
        notes,
        retriever: used,
        elapsed_ms: t0.elapsed().as_secs_f64() * 1000.0,
        filter_ms,
        rank_ms,
        snippet_ms,
    })
}
