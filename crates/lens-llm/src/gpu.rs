//! The device-generic forward passes a GPU runs: a Qwen2 or Qwen3 GGUF file through
//! candle-transformers' quantised models (candle's quantised matmul, RMSNorm, rotary embedding
//! and softmax attention; Qwen3's q/k norms), and a model folder (Qwen2, Qwen3, Qwen3.5) through
//! [`crate::folder_pass`]. The CPU keeps this crate's own kernels ([`crate::model`]); the parity
//! tests run these passes on candle's CPU device against the reference, so what a GPU runs is
//! checked on machines without one.

use crate::folder_pass::FolderPass;
use crate::weights::{load_error, Config};
use candle_core::quantized::gguf_file;
use candle_core::{DType, Device, Tensor};
use candle_transformers::models::{quantized_qwen2, quantized_qwen3};
use lens_core::error::{LensError, Result};
use std::path::Path;
use std::sync::Mutex;

/// The weights on the device: candle's quantised models (GGUF), or a folder's in f32/bf16.
enum Weights {
    Qwen2(quantized_qwen2::ModelWeights),
    Qwen3(quantized_qwen3::ModelWeights),
    Folder(Box<FolderPass>),
}

pub struct CandleQwen {
    weights: Mutex<Weights>,
    pub device: Device,
    /// Bytes of the quantised tensors as stored (what the device holds).
    pub bytes: usize,
}

impl CandleQwen {
    /// Load a Qwen2 or Qwen3 GGUF file onto `device`. Other architectures (Qwen3.5) are
    /// refused with the reason (this pass is candle's).
    pub fn load(path: &Path, ct: gguf_file::Content, device: &Device) -> Result<CandleQwen> {
        let arch = ct.metadata.get("general.architecture").and_then(|v| v.to_string().ok()).cloned().unwrap_or_default();
        if arch != "qwen2" && arch != "qwen3" {
            return Err(LensError::BadInput(format!(
                "{}: a {arch} model runs on the CPU only in this build (the GPU pass is Qwen2 or Qwen3 GGUF)",
                path.display()
            )));
        }
        let bytes = ct.tensor_infos.values().map(|t| t.shape.elem_count() * t.ggml_dtype.type_size() / t.ggml_dtype.block_size()).sum();
        let mut f = std::fs::File::open(path).map_err(|e| LensError::io(path, e))?;
        let loaded = if arch == "qwen3" {
            quantized_qwen3::ModelWeights::from_gguf(ct, &mut f, device).map(Weights::Qwen3)
        } else {
            quantized_qwen2::ModelWeights::from_gguf(ct, &mut f, device).map(Weights::Qwen2)
        };
        let weights = loaded.map_err(|e| load_error(path.display(), e))?;
        Ok(CandleQwen { weights: Mutex::new(weights), device: device.clone(), bytes })
    }

    /// A model folder (Qwen2, Qwen3 or Qwen3.5 safetensors) onto `device`: matrices in bf16 on
    /// a GPU, f32 on candle's CPU device (the parity tests), or as `dtype` says; with the
    /// folder's config.
    pub fn load_folder(dir: &Path, device: &Device, dtype: Option<DType>) -> Result<(CandleQwen, Config)> {
        let dtype = dtype.unwrap_or(if device.is_cpu() { DType::F32 } else { DType::BF16 });
        let pass = FolderPass::load(dir, device, dtype)?;
        let (bytes, cfg) = (pass.bytes(), pass.config().clone());
        Ok((CandleQwen { weights: Mutex::new(Weights::Folder(Box::new(pass))), device: device.clone(), bytes }, cfg))
    }

    /// The logits of the last of `tokens` (or of each of them, `all`: a folder's pass only;
    /// candle's quantised models give the last), run at positions `pos..` (position 0 starts a
    /// new sequence: the cache of the one before is dropped).
    pub fn forward(&self, tokens: &[u32], pos: usize, all: bool) -> Result<Vec<f32>> {
        let err = |e: candle_core::Error| LensError::Model(format!("GPU forward pass: {e}"));
        let mut w = self.weights.lock().map_err(|_| LensError::Model("the GPU model's lock was poisoned".into()))?;
        let x = || Tensor::new(tokens, &self.device).and_then(|t| t.unsqueeze(0));
        let logits = match &mut *w {
            Weights::Folder(p) => return p.forward(tokens, pos, all),
            _ if all => return Err(LensError::BadInput("the logits of every position are computed on the CPU only for a GGUF model on a GPU".into())),
            Weights::Qwen2(m) => x().and_then(|x| m.forward(&x, pos)),
            Weights::Qwen3(m) => x().and_then(|x| m.forward(&x, pos)),
        }
        .map_err(err)?;
        logits.squeeze(0).and_then(|l| l.to_dtype(DType::F32)).and_then(|l| l.to_vec1::<f32>()).map_err(err)
    }

    /// How the weights are held on the device, in words.
    pub fn form(&self) -> String {
        match self.weights.lock().as_deref() {
            Ok(Weights::Folder(p)) => format!("{:?} matrices", p.dtype()).to_lowercase(),
            _ => "quantised weights as stored".into(),
        }
    }

    /// Tokens per chunk of a folder pass's delta rule (no effect on a GGUF model).
    pub fn set_delta_chunk(&self, chunk: usize) {
        if let Ok(Weights::Folder(p)) = self.weights.lock().as_deref_mut() {
            p.chunk = chunk;
        }
    }
}
