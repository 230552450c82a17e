//! Step 3b: vision retrieval (late interaction over page images). The index and its model live
//! in `lens-vision`, which registers a [`crate::vision::VisionIndex`] on the library (`Library::set_vision`),
//! as the answerer seam does for models; this step only asks it for one list per group. Only
//! documents with a published vision index for the registered model take part; the
//! strict/fallback shell is [`super::vectors`]'s.

use super::vectors::{NoModel, VectorStep};
use super::{Retriever, Sources};
use crate::error::{LensError, Result};
use crate::index::IndexHit;
use crate::store::Store;
use crate::vision::VisionIndex;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

struct Vision(Arc<dyn VisionIndex>);

impl VectorStep for Vision {
    fn what(&self) -> &'static str {
        "a vision index"
    }
    fn no_vectors(&self) -> LensError {
        LensError::NotFound(format!("no document in scope has a vision index for {} yet (run `lens vision build`)", self.0.name()))
    }
    fn no_vectors_note(&self) -> &'static str {
        "no document in scope has a vision index yet"
    }
    fn covered(&self, store: &Store, keys: &[i64]) -> Result<Vec<i64>> {
        self.0.covered(store, keys)
    }
    fn rank(&self, store: &Store, question: &str, scoped: &[Vec<i64>], depth: usize) -> Result<Vec<Vec<IndexHit>>> {
        let qv = self.0.embed_query(question)?;
        scoped.iter().map(|keys| self.0.rank(store, &qv, keys, depth)).collect()
    }
}

/// One vision list per group, or `None` when the retriever does not read vision vectors or
/// (hybrid) none are at hand, with a note saying which. The vision retriever errs where hybrid
/// falls back.
pub fn ranked(
    src: &Sources,
    question: &str,
    groups: &[Option<Vec<i64>>],
    complete: &HashMap<i64, String>,
    retriever: Retriever,
    depth: usize,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<Vec<IndexHit>>>> {
    if !retriever.uses_vision() {
        return Ok(None);
    }
    let step: std::result::Result<Box<dyn VectorStep>, NoModel> = match src.vision.clone() {
        Some(vis) => Ok(Box::new(Vision(vis))),
        None => Err(NoModel {
            error: LensError::ModelMissing {
                what: "a vision model".into(),
                dir: PathBuf::from("(none loaded)"),
                hint: "put a ColModernVBERT folder in the models folder and build the vision index (`lens vision build`), or search with bm25".into(),
            },
            note: None,
        }),
    };
    super::vectors::ranked(step, retriever == Retriever::Vision, src, question, groups, complete, depth, notes)
}
