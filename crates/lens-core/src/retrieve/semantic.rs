//! Step 3: dense retrieval. One query vector; per group, the pages whose best window is
//! closest ([`crate::dense`]). Only documents with vectors for the loaded model take part; the
//! strict/fallback shell is [`super::vectors`]'s.

use super::vectors::{NoModel, VectorStep};
use super::{Retriever, Sources};
use crate::dense::{DenseCache, TextEmbedder};
use crate::error::{LensError, Result};
use crate::index::IndexHit;
use crate::store::Store;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

/// The loaded embedder, the documents with its vectors and the cache it searches.
struct Dense<'a> {
    emb: Arc<dyn TextEmbedder>,
    with_vectors: HashSet<i64>,
    cache: &'a DenseCache,
}

impl VectorStep for Dense<'_> {
    fn what(&self) -> &'static str {
        "dense vectors"
    }
    fn no_vectors(&self) -> LensError {
        LensError::NotFound("no document in scope has dense vectors yet (run `lens dense build`)".into())
    }
    fn no_vectors_note(&self) -> &'static str {
        "no document in scope has dense vectors yet: no dense list"
    }
    fn covered(&self, _: &Store, keys: &[i64]) -> Result<Vec<i64>> {
        Ok(keys.iter().copied().filter(|k| self.with_vectors.contains(k)).collect())
    }
    fn rank(&self, store: &Store, question: &str, scoped: &[Vec<i64>], depth: usize) -> Result<Vec<Vec<IndexHit>>> {
        let qv = self.emb.embed_query(question)?;
        scoped.iter().map(|keys| self.cache.search(store, self.emb.name(), &qv, keys, depth)).collect()
    }
}

/// One dense list per group, or `None` when this search is BM25 only: the retriever does not
/// read vectors, or hybrid found no model or no vectors in scope (a note says which). The dense
/// retriever errs where hybrid falls back.
pub fn ranked(
    src: &Sources,
    question: &str,
    groups: &[Option<Vec<i64>>],
    complete: &HashMap<i64, String>,
    retriever: Retriever,
    depth: usize,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<Vec<IndexHit>>>> {
    if !retriever.uses_dense() {
        return Ok(None);
    }
    let step: std::result::Result<Box<dyn VectorStep>, NoModel> = match src.embedder.clone() {
        Some(emb) => Ok(Box::new(Dense { with_vectors: src.store.dense_doc_keys(emb.name())?, emb, cache: src.dense })),
        None => Err(NoModel {
            error: LensError::ModelMissing {
                what: "an embedding model".into(),
                dir: PathBuf::from("(none loaded)"),
                hint: "load one (settings: models dir) or search with the bm25 retriever".into(),
            },
            note: Some("no embedding model is loaded: no dense list"),
        }),
    };
    super::vectors::ranked(step, retriever == Retriever::Dense, src, question, groups, complete, depth, notes)
}
