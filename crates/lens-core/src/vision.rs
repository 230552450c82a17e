//! The vision-index seam: what `lens-vision` implements so that the retrieval step
//! (`retrieve::visual`) can rank page images without knowing the model. Registered on
//! the library with `Library::set_vision`, as an answerer is handed to the ask phases.

use crate::error::Result;
use crate::index::IndexHit;
use crate::store::Store;

/// A vision index with its query encoder.
pub trait VisionIndex: Send + Sync {
    /// Model and edge, as notes and the index record them (`colmodernvbert@1024`).
    fn name(&self) -> String;
    /// Which of these documents have vectors for this model and edge.
    fn covered(&self, store: &Store, keys: &[i64]) -> Result<Vec<i64>>;
    /// The question's vectors (`tokens × dim`).
    fn embed_query(&self, question: &str) -> Result<Vec<f32>>;
    /// The best `depth` pages of `keys` for the query vectors, by MaxSim.
    fn rank(&self, store: &Store, query: &[f32], keys: &[i64], depth: usize) -> Result<Vec<IndexHit>>;
    /// MaxSim of the query vectors against these pages (`None` where a page has no vectors).
    fn score(&self, store: &Store, query: &[f32], pages: &[(i64, u32)]) -> Result<Vec<Option<f32>>>;
}
