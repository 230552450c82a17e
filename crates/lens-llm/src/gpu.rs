//! The device-generic forward pass: Qwen2 and Qwen3 GGUF weights through candle's ops (its
//! quantized matmul, RMSNorm, rotary embedding and softmax attention; Qwen3's q/k norms) on any
//! candle device. A GPU runs
//! this; the CPU keeps this crate's own kernels ([`crate::model`]), and the parity test runs
//! this pass on the CPU device against them, so what a GPU runs is checked on machines without
//! one.

use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor};
use candle_transformers::models::{quantized_qwen2, quantized_qwen3};
use lens_core::error::{LensError, Result};
use std::path::Path;
use std::sync::Mutex;

/// candle's weights for one of the architectures it has a quantised pass for.
enum Weights {
    Qwen2(quantized_qwen2::ModelWeights),
    Qwen3(quantized_qwen3::ModelWeights),
}

impl Weights {
    fn forward(&mut self, x: &Tensor, pos: usize) -> candle_core::Result<Tensor> {
        match self {
            Weights::Qwen2(w) => w.forward(x, pos),
            Weights::Qwen3(w) => w.forward(x, pos),
        }
    }
}

pub struct CandleQwen {
    weights: Mutex<Weights>,
    pub device: Device,
    /// Bytes of the quantised tensors as stored (what the device holds).
    pub bytes: usize,
}

fn model_err(path: &Path, e: impl std::fmt::Display) -> LensError {
    LensError::Model(format!("{}: {e}", path.display()))
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
        let weights = loaded.map_err(|e| {
            let s = e.to_string();
            if s.to_lowercase().contains("out of memory") {
                LensError::Model(format!("{}: the model does not fit in the GPU's memory ({s})", path.display()))
            } else {
                model_err(path, s)
            }
        })?;
        Ok(CandleQwen { weights: Mutex::new(weights), device: device.clone(), bytes })
    }

    /// The logits of the last of `tokens`, run at positions `pos..` (position 0 starts a new
    /// sequence: the cache of the one before is dropped).
    pub fn forward(&self, tokens: &[u32], pos: usize) -> Result<Vec<f32>> {
        let err = |e: candle_core::Error| LensError::Model(format!("GPU forward pass: {e}"));
        let x = Tensor::new(tokens, &self.device).and_then(|t| t.unsqueeze(0)).map_err(err)?;
        let mut w = self.weights.lock().map_err(|_| LensError::Model("the GPU model's lock was poisoned".into()))?;
        let logits = w.forward(&x, pos).map_err(err)?;
        logits.squeeze(0).and_then(|l| l.to_dtype(candle_core::DType::F32)).and_then(|l| l.to_vec1::<f32>()).map_err(err)
    }
}
