//! Dense text retrieval: a sentence-embedding model behind the [`TextEmbedder`] seam (the one
//! shipped, all-MiniLM-L6-v2 in candle, is `lens_ml::minilm`; lens-core runs no model). A page
//! is cut into overlapping token windows (the model reads 256 tokens at most; a 10-K page holds
//! up to ~2,000), each window is embedded, and a page scores as its best window (cosine).
//! Vectors live in the library's SQLite file (int8 with one scale per window, ~0.4 KB per
//! window), built per document, resumable.

use crate::error::{LensError, Result};
use crate::index::IndexHit;
use crate::store::Store;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Instant;

/// The folder name of the default embedding model under the models directory.
pub const DEFAULT_MODEL: &str = "all-minilm-l6-v2";
/// Longest window the model reads, in tokens (incl. [CLS] and [SEP]).
pub const MAX_TOKENS: usize = 256;
/// Tokens a window advances by (so consecutive windows overlap by MAX_TOKENS - 2 - STRIDE).
pub const STRIDE: usize = 192;

/// A text embedding model, as dense search and the vector build use it (like
/// [`crate::vision::VisionIndex`] for pages as images): implemented by `lens_ml::minilm`.
pub trait TextEmbedder: Send + Sync {
    /// The model's name (its folder's), which the stored vectors are keyed by.
    fn name(&self) -> &str;
    fn dim(&self) -> usize;
    /// Window size (tokens, incl. the model's start and end tokens) and stride.
    fn window(&self) -> (usize, usize);
    /// Where it runs (`cpu`, `cuda:0`).
    fn device(&self) -> &str;
    /// Token windows of a text; none for a text without tokens.
    fn windows(&self, text: &str) -> Result<Vec<Vec<u32>>>;
    /// One L2-normalised vector per window.
    fn embed_windows(&self, windows: &[Vec<u32>]) -> Result<Vec<Vec<f32>>>;
    /// One text as one vector (the query; cut to the model's window).
    fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        let mut w = self.windows(text)?;
        if w.is_empty() {
            return Err(LensError::BadInput("the question has no words the embedding model knows".into()));
        }
        w.truncate(1);
        Ok(self.embed_windows(&w)?.remove(0))
    }
}

/// Where to put an embedding model, for a model-missing error's hint.
pub const MODEL_HINT: &str = "put a sentence-transformers BERT model there (config.json, model.safetensors, tokenizer.json), such as all-minilm-l6-v2 (docs/models.md says where to get one)";

/// int8 packing: per window an f32 scale, then `dim` int8 components.
pub fn pack(vecs: &[Vec<f32>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(vecs.iter().map(|v| 4 + v.len()).sum());
    for v in vecs {
        let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
        out.extend_from_slice(&scale.to_le_bytes());
        out.extend(v.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8 as u8));
    }
    out
}

pub fn unpack(data: &[u8], dim: usize) -> Vec<Vec<f32>> {
    data.chunks_exact(4 + dim)
        .map(|c| {
            let scale = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            c[4..].iter().map(|&b| b as i8 as f32 * scale).collect()
        })
        .collect()
}

/// One document's vectors, unpacked: window rows with the page each belongs to.
struct DocVectors {
    dim: usize,
    pages: Vec<u32>,
    data: Vec<f32>,
}

/// Loaded vectors, per document, shared by searches.
#[derive(Default)]
pub struct DenseCache {
    docs: RwLock<HashMap<(String, i64), Arc<DocVectors>>>,
}

impl DenseCache {
    fn doc(&self, store: &Store, model: &str, key: i64) -> Result<Arc<DocVectors>> {
        if let Some(d) = self.docs.read().unwrap().get(&(model.to_string(), key)) {
            return Ok(d.clone());
        }
        let mut dv = DocVectors { dim: 0, pages: Vec::new(), data: Vec::new() };
        for (page, dim, packed) in store.dense_doc(model, key)? {
            dv.dim = dim;
            for v in unpack(&packed, dim) {
                dv.pages.push(page);
                dv.data.extend(v);
            }
        }
        let dv = Arc::new(dv);
        self.docs.write().unwrap().insert((model.to_string(), key), dv.clone());
        Ok(dv)
    }

    /// Best-window cosine per page over `keys`, top `k` pages.
    pub fn search(&self, store: &Store, model: &str, query: &[f32], keys: &[i64], k: usize) -> Result<Vec<IndexHit>> {
        let mut hits = Vec::new();
        for &key in keys {
            let dv = self.doc(store, model, key)?;
            if dv.dim != query.len() {
                continue;
            }
            let mut best: HashMap<u32, f32> = HashMap::new();
            for (row, page) in dv.data.chunks_exact(dv.dim).zip(&dv.pages) {
                let s: f32 = row.iter().zip(query).map(|(a, b)| a * b).sum();
                let e = best.entry(*page).or_insert(f32::MIN);
                if s > *e {
                    *e = s;
                }
            }
            hits.extend(best.into_iter().map(|(page, score)| IndexHit { doc_key: key, page, score }));
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc_key.cmp(&b.doc_key)).then(a.page.cmp(&b.page)));
        hits.truncate(k);
        Ok(hits)
    }

    pub fn forget(&self, key: i64) {
        self.docs.write().unwrap().retain(|(_, k), _| *k != key);
    }
}

/// Progress of a vector build, per document.
#[derive(Debug, Clone, Serialize)]
pub struct BuildProgress {
    pub doc_id: String,
    pub docs_done: usize,
    pub docs_total: usize,
    pub pages: usize,
    pub windows: usize,
    pub seconds: f64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct BuildReport {
    pub model: String,
    pub docs: usize,
    pub pages: usize,
    pub windows: usize,
    pub seconds: f64,
    pub pages_per_s: f64,
    pub skipped_done: usize,
}

/// Embed every complete document of `store` that has no vectors for this model yet (or only
/// `only` when given). Each document is stored in one transaction as it finishes, so an
/// interrupted build resumes where it stopped.
pub fn build(
    store: &mut Store,
    emb: &dyn TextEmbedder,
    only: Option<&[String]>,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(&BuildProgress),
) -> Result<BuildReport> {
    let t0 = Instant::now();
    let done = store.dense_doc_keys(emb.name())?;
    let mut todo: Vec<(i64, String)> = store.complete_keys()?.into_iter().filter(|(_, id)| only.is_none_or(|o| o.contains(id))).collect();
    todo.sort_by(|a, b| a.1.cmp(&b.1));
    let before = todo.len();
    todo.retain(|(k, _)| !done.contains(k));
    let mut rep = BuildReport { model: emb.name().to_string(), skipped_done: before - todo.len(), ..Default::default() };
    let total = todo.len();
    for (i, (key, id)) in todo.into_iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return Err(LensError::Cancelled);
        }
        let td = Instant::now();
        let mut windows = Vec::new();
        let mut owner = Vec::new();
        let texts = store.page_texts_by_key(key)?;
        for (page, text) in &texts {
            for w in emb.windows(text)? {
                windows.push(w);
                owner.push(*page);
            }
        }
        let vecs = emb.embed_windows(&windows)?;
        let mut per_page: Vec<(u32, Vec<Vec<f32>>)> = Vec::new();
        for (page, v) in owner.into_iter().zip(vecs) {
            match per_page.last_mut() {
                Some((p, vs)) if *p == page => vs.push(v),
                _ => per_page.push((page, vec![v])),
            }
        }
        let packed: Vec<(u32, Vec<u8>)> = per_page.iter().map(|(p, vs)| (*p, pack(vs))).collect();
        store.put_dense_doc(emb.name(), key, emb.dim(), &packed)?;
        rep.docs += 1;
        rep.pages += texts.len();
        rep.windows += windows.len();
        progress(&BuildProgress {
            doc_id: id,
            docs_done: i + 1,
            docs_total: total,
            pages: texts.len(),
            windows: windows.len(),
            seconds: td.elapsed().as_secs_f64(),
        });
    }
    rep.seconds = t0.elapsed().as_secs_f64();
    rep.pages_per_s = if rep.seconds > 0.0 { rep.pages as f64 / rep.seconds } else { 0.0 };
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_keeps_direction() {
        let v = vec![vec![0.5f32, -0.25, 0.0, 0.8], vec![0.0; 4]];
        let u = unpack(&pack(&v), 4);
        assert_eq!(u.len(), 2);
        for (a, b) in v[0].iter().zip(&u[0]) {
            assert!((a - b).abs() < 0.01, "{a} vs {b}");
        }
        assert_eq!(u[1], vec![0.0; 4]);
    }
}
