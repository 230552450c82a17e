//! Step 3b: vision retrieval (late interaction over page images). The index and its model live
//! in `lens-vision`, which registers a [`crate::vision::VisionIndex`] on the library (`Library::set_vision`),
//! as the answerer seam does for models; this step only asks it for one list per group. Only
//! documents with a published vision index for the registered model take part.

use super::{Retriever, Sources};
use crate::error::{LensError, Result};
use crate::index::IndexHit;
use std::collections::HashMap;
use std::path::PathBuf;

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
    let strict = retriever == Retriever::Vision;
    let Some(vis) = src.vision.clone() else {
        if strict {
            return Err(LensError::ModelMissing {
                what: "a vision model".into(),
                dir: PathBuf::from("(none loaded)"),
                hint: "put a ColModernVBERT folder in the models folder and build the vision index (`lens vision build`), or search with bm25".into(),
            });
        }
        return Ok(None);
    };
    let Some(scoped) = super::with_vectors(groups, complete, |keys| vis.covered(src.store, keys), "a vision index", notes)? else {
        if strict {
            return Err(LensError::NotFound(format!("no document in scope has a vision index for {} yet (run `lens vision build`)", vis.name())));
        }
        notes.push("no document in scope has a vision index yet".into());
        return Ok(None);
    };
    let qv = vis.embed_query(question)?;
    scoped.iter().map(|keys| vis.rank(src.store, &qv, keys, depth)).collect::<Result<Vec<_>>>().map(Some)
}
