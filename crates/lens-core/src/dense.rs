//! Dense text retrieval: a sentence-embedding model (all-MiniLM-L6-v2: BERT + mean pooling over
//! the attention mask) run with candle. A page is cut into overlapping token windows (the
//! model reads 256 tokens at most; a 10-K page holds up to ~2,000), each window is embedded,
//! and a page scores as its best window (cosine). Vectors live in the library's SQLite file
//! (int8 with one scale per window, ~0.4 KB per window), built per document, resumable.

use crate::error::{LensError, Result};
use crate::index::IndexHit;
use crate::store::Store;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Instant;
use tokenizers::Tokenizer;

/// The folder name of the default embedding model under the models directory.
pub const DEFAULT_MODEL: &str = "all-minilm-l6-v2";
/// Longest window the model reads, in tokens (incl. [CLS] and [SEP]).
pub const MAX_TOKENS: usize = 256;
/// Tokens a window advances by (so consecutive windows overlap by MAX_TOKENS - 2 - STRIDE).
pub const STRIDE: usize = 192;
const BATCH: usize = 16;

/// The device the embedder runs on: the GPU of a `cuda` or `metal` build when it starts, else the CPU.
pub fn device() -> (Device, &'static str) {
    // a GPU build embeds on its GPU when one starts (the same candle BERT ops), else the CPU
    #[cfg(feature = "cuda")]
    if let Ok(d) = Device::new_cuda(0) {
        return (d, "cuda:0");
    }
    #[cfg(feature = "metal")]
    if let Ok(d) = Device::new_metal(0) {
        return (d, "metal:0");
    }
    (Device::Cpu, "cpu")
}

pub struct Embedder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    name: String,
    dim: usize,
    cls: u32,
    sep: u32,
    pad: u32,
    max_tokens: usize,
    stride: usize,
}

fn need(dir: &Path, file: &str) -> Result<PathBuf> {
    let p = dir.join(file);
    if p.is_file() {
        Ok(p)
    } else {
        Err(LensError::ModelMissing {
            what: file.to_string(),
            dir: dir.to_path_buf(),
            hint: format!("put a sentence-transformers BERT model there (config.json, model.safetensors, tokenizer.json), such as {DEFAULT_MODEL} (the README's Models section says where to get one)"),
        })
    }
}

impl Embedder {
    /// Load a BERT sentence-embedding model from `dir` (config.json, model.safetensors,
    /// tokenizer.json). The model's name is the folder name.
    pub fn load(dir: &Path) -> Result<Embedder> {
        let cfg_path = need(dir, "config.json")?;
        let weights = need(dir, "model.safetensors")?;
        let tok_path = need(dir, "tokenizer.json")?;
        let cfg_text = std::fs::read_to_string(&cfg_path).map_err(|e| LensError::io(&cfg_path, e))?;
        let config: Config = serde_json::from_str(&cfg_text).map_err(|e| LensError::Model(format!("{}: {e}", cfg_path.display())))?;
        let (device, _) = device();
        let data = std::fs::read(&weights).map_err(|e| LensError::io(&weights, e))?;
        let vb = VarBuilder::from_buffered_safetensors(data, DType::F32, &device)?;
        let model = BertModel::load(vb, &config).map_err(|e| LensError::Model(format!("{}: {e}", weights.display())))?;
        let mut tokenizer = Tokenizer::from_file(&tok_path).map_err(|e| LensError::Model(format!("{}: {e}", tok_path.display())))?;
        // windows are cut here; the tokenizer must neither pad nor truncate
        tokenizer.with_padding(None);
        tokenizer.with_truncation(None).map_err(|e| LensError::Model(e.to_string()))?;
        let id = |t: &str| tokenizer.token_to_id(t).ok_or_else(|| LensError::Model(format!("{}: no {t} token", tok_path.display())));
        let (cls, sep, pad) = (id("[CLS]")?, id("[SEP]")?, id("[PAD]").unwrap_or(0));
        let name = dir.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| DEFAULT_MODEL.into());
        Ok(Embedder {
            model,
            tokenizer,
            device,
            name,
            dim: config.hidden_size,
            cls,
            sep,
            pad,
            max_tokens: MAX_TOKENS.min(config.max_position_embeddings),
            stride: STRIDE,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Window size (tokens, incl. [CLS]/[SEP]; at most the model's positions) and stride.
    pub fn set_window(&mut self, max_tokens: usize, stride: usize) -> Result<()> {
        if max_tokens < 3 || stride == 0 || stride > max_tokens - 2 {
            return Err(LensError::BadInput(format!("bad window: {max_tokens} tokens, stride {stride}")));
        }
        self.max_tokens = max_tokens.min(self.max_tokens);
        self.stride = stride;
        Ok(())
    }

    pub fn window(&self) -> (usize, usize) {
        (self.max_tokens, self.stride.min(self.max_tokens - 2))
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    fn ids(&self, text: &str) -> Result<Vec<u32>> {
        let enc = self.tokenizer.encode(text, false).map_err(|e| LensError::Model(e.to_string()))?;
        Ok(enc.get_ids().to_vec())
    }

    /// Token windows of a text, each with [CLS] ... [SEP]; none for a text without tokens.
    pub fn windows(&self, text: &str) -> Result<Vec<Vec<u32>>> {
        let ids = self.ids(text)?;
        let body = self.max_tokens - 2;
        let stride = self.stride.min(body);
        let mut out = Vec::new();
        let mut start = 0;
        while start < ids.len() {
            let end = (start + body).min(ids.len());
            let mut w = Vec::with_capacity(end - start + 2);
            w.push(self.cls);
            w.extend_from_slice(&ids[start..end]);
            w.push(self.sep);
            out.push(w);
            if end == ids.len() {
                break;
            }
            start += stride;
        }
        Ok(out)
    }

    /// Embed token windows (each already with [CLS]/[SEP]): mean over the attention mask,
    /// L2-normalised.
    pub fn embed_windows(&self, windows: &[Vec<u32>]) -> Result<Vec<Vec<f32>>> {
        let mut out = vec![Vec::new(); windows.len()];
        // similar lengths batch together: less padding
        let mut order: Vec<usize> = (0..windows.len()).collect();
        order.sort_by_key(|&i| windows[i].len());
        for chunk in order.chunks(BATCH) {
            let len = chunk.iter().map(|&i| windows[i].len()).max().unwrap_or(0);
            if len == 0 {
                continue;
            }
            let mut ids = Vec::with_capacity(chunk.len() * len);
            let mut mask = Vec::with_capacity(chunk.len() * len);
            for &i in chunk {
                let w = &windows[i];
                ids.extend_from_slice(w);
                ids.extend(std::iter::repeat_n(self.pad, len - w.len()));
                mask.extend(std::iter::repeat_n(1u32, w.len()));
                mask.extend(std::iter::repeat_n(0u32, len - w.len()));
            }
            let ids = Tensor::from_vec(ids, (chunk.len(), len), &self.device)?;
            let mask = Tensor::from_vec(mask, (chunk.len(), len), &self.device)?;
            let types = ids.zeros_like()?;
            let hidden = self.model.forward(&ids, &types, Some(&mask))?; // (b, len, dim)
            let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?; // (b, len, 1)
            let summed = hidden.broadcast_mul(&m)?.sum(1)?; // (b, dim)
            let counts = m.sum(1)?.clamp(1e-9, f64::MAX)?; // (b, 1)
            let mean = summed.broadcast_div(&counts)?;
            let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
            let v: Vec<Vec<f32>> = mean.broadcast_div(&norm)?.to_vec2()?;
            for (&i, e) in chunk.iter().zip(v) {
                out[i] = e;
            }
        }
        Ok(out)
    }

    /// One text as one vector (the query; cut to the model's window).
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        let mut w = self.windows(text)?;
        if w.is_empty() {
            return Err(LensError::BadInput("the question has no words the embedding model knows".into()));
        }
        w.truncate(1);
        Ok(self.embed_windows(&w)?.remove(0))
    }
}

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
pub fn build(store: &mut Store, emb: &Embedder, only: Option<&[String]>, cancel: &AtomicBool, progress: &mut dyn FnMut(&BuildProgress)) -> Result<BuildReport> {
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
