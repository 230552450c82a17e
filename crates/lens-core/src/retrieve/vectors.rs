//! The shell the vector steps share ([`super::semantic`], [`super::visual`]): run only when the
//! retriever reads that kind of vector; when the model or the vectors are missing, the retriever
//! that reads them alone errs (strict) and hybrid falls back to the other lists with a note;
//! otherwise one ranked list per group over the documents that have vectors.

use super::Sources;
use crate::error::{LensError, Result};
use crate::index::IndexHit;
use crate::store::Store;
use std::collections::HashMap;

/// A retrieval step over vectors, loaded: what it says when it cannot run, which documents it
/// covers, and its ranking.
pub(crate) trait VectorStep {
    /// What the documents have for it, for notes ("dense vectors", "a vision index").
    fn what(&self) -> &'static str;
    /// The error of a strict search with no vectors in scope.
    fn no_vectors(&self) -> LensError;
    /// The note of a hybrid search with no vectors in scope.
    fn no_vectors_note(&self) -> &'static str;
    /// Of `keys`, the documents with vectors for this step's model.
    fn covered(&self, store: &Store, keys: &[i64]) -> Result<Vec<i64>>;
    /// One ranked list per group of document keys.
    fn rank(&self, store: &Store, question: &str, scoped: &[Vec<i64>], depth: usize) -> Result<Vec<Vec<IndexHit>>>;
}

/// How a search without the step's model goes on: the error a strict search gives, and the
/// note a hybrid search leaves (None: none).
pub(crate) struct NoModel {
    pub error: LensError,
    pub note: Option<&'static str>,
}

/// The step's lists, or `None` when this search does not use it or (hybrid) cannot; `strict`:
/// the retriever reads these vectors alone, and errs where hybrid falls back.
#[allow(clippy::too_many_arguments)]
pub(crate) fn ranked(
    step: Result<Box<dyn VectorStep + '_>, NoModel>,
    strict: bool,
    src: &Sources,
    question: &str,
    groups: &[Option<Vec<i64>>],
    complete: &HashMap<i64, String>,
    depth: usize,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<Vec<IndexHit>>>> {
    let step = match step {
        Ok(s) => s,
        Err(missing) if strict => return Err(missing.error),
        Err(missing) => {
            notes.extend(missing.note.map(str::to_string));
            return Ok(None);
        }
    };
    let Some(scoped) = with_vectors(groups, complete, |keys| step.covered(src.store, keys), step.what(), notes)? else {
        if strict {
            return Err(step.no_vectors());
        }
        notes.push(step.no_vectors_note().to_string());
        return Ok(None);
    };
    step.rank(src.store, question, &scoped, depth).map(Some)
}

/// The documents of each group that `has` vectors for (all documents where a group is `None`),
/// or `None` when no document in scope has any; a note says `N of M documents in scope have
/// {what}` when only some do.
pub(crate) fn with_vectors(
    groups: &[Option<Vec<i64>>],
    complete: &HashMap<i64, String>,
    mut has: impl FnMut(&[i64]) -> Result<Vec<i64>>,
    what: &str,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<Vec<i64>>>> {
    let all_keys: Vec<i64> = complete.keys().copied().collect();
    let scoped: Vec<Vec<i64>> = groups.iter().map(|g| has(g.as_deref().unwrap_or(&all_keys))).collect::<Result<_>>()?;
    let scope_total: usize = groups.iter().map(|g| g.as_ref().map_or(all_keys.len(), Vec::len)).sum();
    let covered: usize = scoped.iter().map(Vec::len).sum();
    if covered == 0 {
        return Ok(None);
    }
    if covered < scope_total {
        notes.push(format!("{covered} of {scope_total} documents in scope have {what}"));
    }
    Ok(Some(scoped))
}
