//! Step 3: dense retrieval. One query vector; per group, the pages whose best window is
//! closest ([`crate::dense`]). Only documents with vectors for the loaded model take part.

use super::{Retriever, Sources};
use crate::error::{LensError, Result};
use crate::index::IndexHit;
use std::collections::HashMap;
use std::path::PathBuf;

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
    let strict = retriever == Retriever::Dense;
    let Some(emb) = src.embedder.clone() else {
        if strict {
            return Err(LensError::ModelMissing {
                what: "an embedding model".into(),
                dir: PathBuf::from("(none loaded)"),
                hint: "load one (settings: models dir) or search with the bm25 retriever".into(),
            });
        }
        notes.push("no embedding model is loaded: no dense list".into());
        return Ok(None);
    };
    let with_vectors = src.store.dense_doc_keys(emb.name())?;
    let has = |keys: &[i64]| Ok(keys.iter().copied().filter(|k| with_vectors.contains(k)).collect());
    let Some(scoped) = super::with_vectors(groups, complete, has, "dense vectors", notes)? else {
        if strict {
            return Err(LensError::NotFound("no document in scope has dense vectors yet (run `lens dense build`)".into()));
        }
        notes.push("no document in scope has dense vectors yet: no dense list".into());
        return Ok(None);
    };
    let qv = emb.embed_query(question)?;
    scoped.iter().map(|keys| src.dense.search(src.store, emb.name(), &qv, keys, depth)).collect::<Result<Vec<_>>>().map(Some)
}
