//! The sentence-embedding model dense search ships with: all-MiniLM-L6-v2 (BERT + mean
//! pooling over the attention mask) — on the CPU this crate's own encoder ([`crate::bert`],
//! bf16 linear layers where the CPU has a bf16 kernel), on a GPU candle's — behind lens-core's
//! [`lens_core::dense::TextEmbedder`] seam; and [`attach`], which loads it into a library for
//! the retrievers that read dense vectors.

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use lens_core::dense::{TextEmbedder, DEFAULT_MODEL, MAX_TOKENS, STRIDE};
use lens_core::error::{LensError, Result};
use lens_core::retrieve::Retriever;
use lens_core::settings::Settings;
use lens_core::Library;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokenizers::Tokenizer;

const BATCH: usize = 16;

fn ml(e: candle_core::Error) -> LensError {
    LensError::Model(format!("embedding model: {e}"))
}

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

/// Where the layers run: this crate's CPU encoder, or candle's BERT on a GPU.
enum Engine {
    Cpu(crate::bert::Bert),
    Candle(Box<BertModel>, Device),
}

pub struct Embedder {
    engine: Engine,
    tokenizer: Tokenizer,
    device_name: &'static str,
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
        Err(LensError::ModelMissing { what: file.to_string(), dir: dir.to_path_buf(), hint: lens_core::dense::MODEL_HINT.into() })
    }
}

impl Embedder {
    /// Load a BERT sentence-embedding model from `dir` (config.json, model.safetensors,
    /// tokenizer.json). The model's name is the folder name. On the CPU its linear layers run
    /// in bf16 where the CPU has a bf16 kernel ([`crate::bf16::kernel`]), else in f32.
    pub fn load(dir: &Path) -> Result<Embedder> {
        Embedder::load_with(dir, crate::bf16::kernel())
    }

    /// [`Embedder::load`] with the CPU's linear layers in bf16 on `kernel`, or f32 with `None`
    /// (a GPU, when the build has one and it starts, runs candle's f32 either way).
    pub fn load_with(dir: &Path, kernel: Option<crate::bf16::Kernel>) -> Result<Embedder> {
        let cfg_path = need(dir, "config.json")?;
        let weights = need(dir, "model.safetensors")?;
        let tok_path = need(dir, "tokenizer.json")?;
        let cfg_text = std::fs::read_to_string(&cfg_path).map_err(|e| LensError::io(&cfg_path, e))?;
        let config: Config = serde_json::from_str(&cfg_text).map_err(|e| LensError::Model(format!("{}: {e}", cfg_path.display())))?;
        let (device, device_name) = device();
        let engine = if device.is_cpu() {
            let bc: crate::bert::BertConfig = serde_json::from_str(&cfg_text).map_err(|e| LensError::Model(format!("{}: {e}", cfg_path.display())))?;
            Engine::Cpu(crate::bert::Bert::load(&weights, &bc, kernel)?)
        } else {
            let data = std::fs::read(&weights).map_err(|e| LensError::io(&weights, e))?;
            let vb = VarBuilder::from_buffered_safetensors(data, DType::F32, &device).map_err(|e| LensError::Model(format!("{}: {e}", weights.display())))?;
            let model = BertModel::load(vb, &config).map_err(|e| LensError::Model(format!("{}: {e}", weights.display())))?;
            Engine::Candle(Box::new(model), device)
        };
        let mut tokenizer = Tokenizer::from_file(&tok_path).map_err(|e| LensError::Model(format!("{}: {e}", tok_path.display())))?;
        // windows are cut here; the tokenizer must neither pad nor truncate
        tokenizer.with_padding(None);
        tokenizer.with_truncation(None).map_err(|e| LensError::Model(e.to_string()))?;
        let id = |t: &str| tokenizer.token_to_id(t).ok_or_else(|| LensError::Model(format!("{}: no {t} token", tok_path.display())));
        let (cls, sep, pad) = (id("[CLS]")?, id("[SEP]")?, id("[PAD]").unwrap_or(0));
        let name = dir.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| DEFAULT_MODEL.into());
        Ok(Embedder {
            engine,
            tokenizer,
            device_name,
            name,
            dim: config.hidden_size,
            cls,
            sep,
            pad,
            max_tokens: MAX_TOKENS.min(config.max_position_embeddings),
            stride: STRIDE,
        })
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

    fn ids(&self, text: &str) -> Result<Vec<u32>> {
        let enc = self.tokenizer.encode(text, false).map_err(|e| LensError::Model(e.to_string()))?;
        Ok(enc.get_ids().to_vec())
    }

    fn cut(&self, text: &str) -> Result<Vec<Vec<u32>>> {
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

    /// What the layers run in: `bf16 (amx)`, `bf16 (avx512bf16)`, `f32`, or `f32 (candle)` on a GPU.
    pub fn precision(&self) -> String {
        match &self.engine {
            Engine::Cpu(b) => b.precision(),
            Engine::Candle(..) => "f32 (candle)".into(),
        }
    }

    /// Mean over each window's tokens, L2-normalised.
    fn embed(&self, windows: &[Vec<u32>]) -> Result<Vec<Vec<f32>>> {
        match &self.engine {
            Engine::Cpu(b) => b.embed(windows),
            Engine::Candle(model, device) => Self::embed_candle(model, device, self.pad, windows),
        }
    }

    /// candle's BERT on a GPU: windows padded to the longest of each batch, the padding masked.
    fn embed_candle(model: &BertModel, device: &Device, pad: u32, windows: &[Vec<u32>]) -> Result<Vec<Vec<f32>>> {
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
                ids.extend(std::iter::repeat_n(pad, len - w.len()));
                mask.extend(std::iter::repeat_n(1u32, w.len()));
                mask.extend(std::iter::repeat_n(0u32, len - w.len()));
            }
            let ids = Tensor::from_vec(ids, (chunk.len(), len), device).map_err(ml)?;
            let mask = Tensor::from_vec(mask, (chunk.len(), len), device).map_err(ml)?;
            let types = ids.zeros_like().map_err(ml)?;
            let hidden = model.forward(&ids, &types, Some(&mask)).map_err(ml)?; // (b, len, dim)
            let m = mask.to_dtype(DType::F32).map_err(ml)?.unsqueeze(2).map_err(ml)?; // (b, len, 1)
            let summed = hidden.broadcast_mul(&m).map_err(ml)?.sum(1).map_err(ml)?; // (b, dim)
            let counts = m.sum(1).map_err(ml)?.clamp(1e-9, f64::MAX).map_err(ml)?; // (b, 1)
            let mean = summed.broadcast_div(&counts).map_err(ml)?;
            let norm = mean.sqr().map_err(ml)?.sum_keepdim(1).map_err(ml)?.sqrt().map_err(ml)?.clamp(1e-12, f64::MAX).map_err(ml)?;
            let v: Vec<Vec<f32>> = mean.broadcast_div(&norm).map_err(ml)?.to_vec2().map_err(ml)?;
            for (&i, e) in chunk.iter().zip(v) {
                out[i] = e;
            }
        }
        Ok(out)
    }
}

impl TextEmbedder for Embedder {
    fn name(&self) -> &str {
        &self.name
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn window(&self) -> (usize, usize) {
        (self.max_tokens, self.stride.min(self.max_tokens - 2))
    }

    fn device(&self) -> &str {
        self.device_name
    }

    /// Windows each with [CLS] ... [SEP].
    fn windows(&self, text: &str) -> Result<Vec<Vec<u32>>> {
        self.cut(text)
    }

    /// Windows (each already with [CLS]/[SEP]) batched by length.
    fn embed_windows(&self, windows: &[Vec<u32>]) -> Result<Vec<Vec<f32>>> {
        self.embed(windows)
    }
}

/// The library's embedding model for `retriever`: loaded from the settings' models folder
/// (kept when the same one is there) when the retriever reads dense vectors. Without a usable
/// model, hybrid goes on (its search falls back to BM25 and says so) unless `strict` (evals,
/// benchmarks: a run is never mislabelled); dense is always an error.
pub fn attach(lib: &Library, st: &Settings, retriever: Retriever, strict: bool) -> Result<()> {
    if !retriever.uses_dense() {
        return Ok(());
    }
    match load_into(lib, Path::new(&st.models_dir), &st.embedder) {
        Ok(_) => Ok(()),
        Err(e) if strict || retriever == Retriever::Dense => Err(e),
        Err(_) => Ok(()),
    }
}

/// Load `models_dir/name` into `lib` (or keep the one there of that name), and return it.
pub fn load_into(lib: &Library, models_dir: &Path, name: &str) -> Result<Arc<dyn TextEmbedder>> {
    if let Some(e) = lib.embedder().filter(|e| e.name() == name) {
        return Ok(e);
    }
    let e: Arc<dyn TextEmbedder> = Arc::new(Embedder::load(&models_dir.join(name))?);
    lib.set_embedder(e.clone());
    Ok(e)
}
