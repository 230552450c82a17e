//! The on-device language model (Qwen2 / Qwen3 / Qwen3.5) and the answerer built on it.
//!
//! - [`blocks`]: GGUF block-quantised weights as stored and their matmul kernels (chosen at
//!   run time per CPU);
//! - [`weights`]: the model's shape (`Config`) and where its tensors come from (GGUF, safetensors);
//! - [`model`]: loading onto the CPU kernels, the forward pass, greedy generation;
//! - [`gpu`], [`folder_pass`]: the device-generic passes a GPU runs (GGUF; model folders);
//! - [`tokenizer`]: a GGUF file's tokenizer, built from its metadata;
//! - [`discover`]: finding models offline (a path, the models dir, the Hugging Face cache);
//! - [`prompt`]: pages P1..Pn into a chat prompt within a token budget;
//! - [`parse`]: the model's reply into answer, citations and quote;
//! - [`qwen`]: the [`lens_core::answer::Answerer`] that puts them together.
//!
//! Nothing here knows the library: the answerer gets page texts, as every answerer does.

pub mod blocks;
pub mod delta;
pub mod device;
pub mod discover;
pub mod fetch;
pub mod folder_pass;
pub mod gpu;
pub mod model;
pub mod parse;
pub mod passages;
pub mod prompt;
pub mod qwen;
pub mod tokenizer;
pub mod weights;

/// Helpers shared by the unit tests.
#[cfg(test)]
mod test_util {
    /// `n` values in [-1, 1) from a fixed linear congruential sequence.
    pub fn pseudo(n: usize, seed: u64) -> Vec<f32> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 33) as f32 / (1u64 << 31) as f32) * 2.0 - 1.0
            })
            .collect()
    }
}

use lens_core::error::{LensError, Result};
use model::{Model, Precision};
use std::path::{Path, PathBuf};
use tokenizers::Tokenizer;

/// A loaded model with its tokenizer and chat markers.
pub struct LanguageModel {
    pub model: Model,
    pub tokenizer: Tokenizer,
    pub path: PathBuf,
    /// Token ids that end a reply (`<|im_end|>`, `<|endoftext|>`).
    pub stop: Vec<u32>,
    pub load_s: f64,
    /// Why the model runs where it does when that is not what was asked (`auto` without a GPU).
    pub device_note: Option<String>,
}

/// Threads the model uses by default: every core but one on machines with more than four,
/// all of them on small ones (a 2-core laptop gains nothing from leaving one idle).
pub fn default_threads() -> usize {
    let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
    if n > 4 {
        n - 1
    } else {
        n
    }
}

impl LanguageModel {
    /// Load a `.gguf` file or a model directory (config.json, tokenizer.json, *.safetensors).
    pub fn load(path: &Path, precision: Option<Precision>, threads: usize) -> Result<LanguageModel> {
        Self::load_on(path, precision, threads, None)
    }

    /// [`LanguageModel::load`] on a device: a GPU runs a GGUF Qwen2/Qwen3 model or a model
    /// folder (Qwen2, Qwen3, Qwen3.5) through the device-generic passes ([`gpu`]); `None` or
    /// the CPU, this crate's kernels.
    pub fn load_on(path: &Path, precision: Option<Precision>, threads: usize, device: Option<&device::Selected>) -> Result<LanguageModel> {
        let t0 = std::time::Instant::now();
        if !path.exists() {
            return Err(LensError::ModelMissing {
                what: path.display().to_string(),
                dir: path.parent().unwrap_or(Path::new(".")).to_path_buf(),
                hint: discover::HINT.into(),
            });
        }
        let (model, tokenizer) = if path.is_dir() {
            let tok_path = path.join("tokenizer.json");
            if !tok_path.is_file() {
                return Err(LensError::ModelMissing { what: "tokenizer.json".into(), dir: path.to_path_buf(), hint: discover::HINT.into() });
            }
            let tok = Tokenizer::from_file(&tok_path).map_err(|e| LensError::Model(format!("{}: {e}", tok_path.display())))?;
            match device.filter(|d| d.is_gpu()) {
                Some(d) => (Model::load_safetensors_on(path, d, None)?, tok),
                None => (Model::load_safetensors(path, precision.unwrap_or(Precision::Q8), threads)?, tok),
            }
        } else {
            let ct = model::read_gguf(path)?;
            // the architecture first: a foreign model is refused as such, not for its tokenizer
            model::Config::from_gguf(&ct, path)?;
            if let Some(t) = ct.metadata.get("tokenizer.chat_template").and_then(|v| v.to_string().ok()) {
                if !t.contains("<|im_start|>") {
                    return Err(LensError::Model(format!("{}: the chat template is not ChatML (<|im_start|>): not a Qwen chat model", path.display())));
                }
            }
            let tok = tokenizer::from_gguf(&ct, path)?;
            match device.filter(|d| d.is_gpu()) {
                Some(d) => (Model::load_gguf_on(path, ct, d)?, tok),
                None => (Model::load_gguf(path, &ct, precision.unwrap_or(Precision::Q8), threads)?, tok),
            }
        };
        let id = |t: &str| tokenizer.token_to_id(t);
        let Some(im_end) = id("<|im_end|>") else {
            return Err(LensError::Model(format!("{}: the tokenizer has no <|im_end|> token: not a Qwen chat model", path.display())));
        };
        if id("<|im_start|>").is_none() {
            return Err(LensError::Model(format!("{}: the tokenizer has no <|im_start|> token", path.display())));
        }
        let vocab = tokenizer.get_vocab_size(true);
        if vocab > model.cfg.vocab {
            return Err(LensError::Model(format!(
                "{}: the tokenizer has {vocab} tokens but the model only {}: they do not belong together",
                path.display(),
                model.cfg.vocab
            )));
        }
        let mut stop = vec![im_end];
        stop.extend(id("<|endoftext|>"));
        Ok(LanguageModel { model, tokenizer, path: path.to_path_buf(), stop, load_s: t0.elapsed().as_secs_f64(), device_note: None })
    }

    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        Ok(self.tokenizer.encode(text, false).map_err(|e| LensError::Model(e.to_string()))?.get_ids().to_vec())
    }

    pub fn count(&self, text: &str) -> usize {
        self.encode(text).map(|v| v.len()).unwrap_or(text.len() / 3)
    }

    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        self.tokenizer.decode(ids, true).map_err(|e| LensError::Model(e.to_string()))
    }

    /// A ChatML conversation, ready for the assistant's reply (Qwen3: with thinking off, as
    /// its template does for `enable_thinking=false`).
    pub fn chat(&self, system: &str, user: &str) -> String {
        let think = if self.model.cfg.arch == model::Arch::Qwen3 { "<think>\n\n</think>\n\n" } else { "" };
        format!("<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n{think}")
    }

    pub fn name(&self) -> String {
        discover::display_name(&self.path)
    }
}

pub use device::DeviceChoice;

/// How to load a model answerer.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// A `.gguf` file or model folder given explicitly (`--model`).
    pub path: Option<PathBuf>,
    /// The settings' model field (a path or a name `lens models` lists; empty: the first found).
    pub setting: String,
    pub models_dir: PathBuf,
    pub device: DeviceChoice,
    /// 0: [`default_threads`].
    pub threads: usize,
    pub precision: Option<Precision>,
}

/// Find and load the model these options name, as a Qwen answerer.
pub fn load_answerer(o: &LoadOptions) -> Result<qwen::QwenAnswerer> {
    let chosen = device::select(o.device)?;
    let path = discover::resolve(o.path.as_deref(), &o.setting, &o.models_dir)?;
    let threads = if o.threads == 0 { default_threads() } else { o.threads };
    let mut lm = match LanguageModel::load_on(&path, o.precision, threads, Some(&chosen)) {
        Ok(lm) => lm,
        // `auto` on a GPU the model does not suit (too large, another architecture): the CPU, said
        Err(e) if o.device == DeviceChoice::Auto && chosen.is_gpu() => {
            let mut lm = LanguageModel::load(&path, o.precision, threads)?;
            lm.device_note = Some(format!("on the CPU: {} could not take the model ({e})", chosen.name));
            return Ok(qwen::QwenAnswerer::new(std::sync::Arc::new(lm)));
        }
        Err(e) => return Err(e),
    };
    lm.device_note = chosen.fallback.clone();
    Ok(qwen::QwenAnswerer::new(std::sync::Arc::new(lm)))
}
