//! The model's shape (`Config`, from GGUF metadata or a `config.json`) and where its tensors come
//! from (a GGUF file, or a model folder's safetensors with their Hugging Face names mapped to
//! GGUF's): what the CPU kernels ([`crate::model`]) and the device pass ([`crate::folder_pass`])
//! both read.

use candle_core::quantized::{gguf_file, QStorage, QTensor};
use candle_core::{DType, Device, Tensor};
use lens_core::error::{LensError, Result};
use serde::Serialize;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    Qwen2,
    Qwen3,
    /// Qwen3.5 (text): Gated DeltaNet linear-attention layers and gated full-attention layers.
    Qwen35,
}

impl Arch {
    pub fn name(self) -> &'static str {
        match self {
            Arch::Qwen2 => "qwen2",
            Arch::Qwen3 => "qwen3",
            Arch::Qwen35 => "qwen3_5",
        }
    }

    fn parse(s: &str, file: &Path) -> Result<Arch> {
        match s {
            "qwen2" => Ok(Arch::Qwen2),
            "qwen3" => Ok(Arch::Qwen3),
            "qwen3_5" | "qwen3_5_text" => Ok(Arch::Qwen35),
            "qwen35" => Err(LensError::Model(format!(
                "{}: Qwen3.5 GGUF files are not supported yet (their linear-attention tensors are reordered by the converter); use the model's safetensors folder",
                file.display()
            ))),
            other => Err(LensError::Model(format!("{}: architecture {other:?} is not supported (qwen2, qwen3 and qwen3_5 are)", file.display()))),
        }
    }
}

/// What mixes tokens in a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LayerKind {
    FullAttention,
    LinearAttention,
}

/// The shape of Qwen3.5's Gated DeltaNet layers.
#[derive(Debug, Clone, Serialize)]
pub struct LinearConfig {
    pub conv_kernel: usize,
    pub k_heads: usize,
    pub v_heads: usize,
    pub k_dim: usize,
    pub v_dim: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Config {
    pub arch: Arch,
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    pub intermediate: usize,
    pub eps: f32,
    pub rope_theta: f32,
    pub vocab: usize,
    pub context: usize,
    pub tie_embeddings: bool,
    /// Dimensions of each head the rotary embedding turns (Qwen3.5: a quarter of them).
    pub rotary_dim: usize,
    /// One per layer; all full attention before Qwen3.5.
    pub layer_kinds: Vec<LayerKind>,
    pub linear: Option<LinearConfig>,
}

impl Config {
    /// From a GGUF file's metadata (`<arch>.block_count`, ...).
    pub fn from_gguf(ct: &gguf_file::Content, file: &Path) -> Result<Config> {
        let md = &ct.metadata;
        let arch_name = md.get("general.architecture").and_then(|v| v.to_string().ok()).cloned().unwrap_or_default();
        let arch = Arch::parse(&arch_name, file)?;
        let get = |k: &str| -> Result<&gguf_file::Value> {
            md.get(&format!("{arch_name}.{k}")).ok_or_else(|| LensError::Model(format!("{}: no {arch_name}.{k} in the GGUF metadata", file.display())))
        };
        let u = |k: &str| -> Result<usize> { get(k)?.to_u32().map(|v| v as usize).map_err(|e| LensError::Model(format!("{}: {k}: {e}", file.display()))) };
        let hidden = u("embedding_length")?;
        let heads = u("attention.head_count")?;
        let vocab = match ct.tensor_infos.get("token_embd.weight") {
            Some(t) => t.shape.dims()[0],
            None => return Err(LensError::Model(format!("{}: no token_embd.weight tensor", file.display()))),
        };
        Ok(Config {
            arch,
            hidden,
            layers: u("block_count")?,
            heads,
            kv_heads: u("attention.head_count_kv")?,
            head_dim: u("attention.key_length").unwrap_or(hidden / heads.max(1)),
            intermediate: u("feed_forward_length")?,
            eps: get("attention.layer_norm_rms_epsilon").and_then(|v| v.to_f32().map_err(|e| LensError::Model(e.to_string()))).unwrap_or(1e-6),
            rope_theta: get("rope.freq_base").and_then(|v| v.to_f32().map_err(|e| LensError::Model(e.to_string()))).unwrap_or(10_000.0),
            vocab,
            context: u("context_length").unwrap_or(32_768),
            tie_embeddings: !ct.tensor_infos.contains_key("output.weight"),
            rotary_dim: u("attention.key_length").unwrap_or(hidden / heads.max(1)),
            layer_kinds: vec![LayerKind::FullAttention; u("block_count")?],
            linear: None,
        })
    }

    /// From a Hugging Face `config.json`. Both layouts of the rotary base are accepted
    /// (`rope_theta`, or `rope_parameters.rope_theta` in recent configs); `sliding_window` may
    /// be null (it is not used: Qwen2/3 configs ship with `use_sliding_window: false`).
    pub fn from_json(text: &str, file: &Path) -> Result<Config> {
        let top: serde_json::Value = serde_json::from_str(text).map_err(|e| LensError::Model(format!("{}: {e}", file.display())))?;
        // Qwen3.5 checkpoints nest the language model's config (with a vision tower beside it)
        let v = if top["text_config"].is_object() && top["model_type"].as_str() == Some("qwen3_5") { &top["text_config"] } else { &top };
        let arch = Arch::parse(v["model_type"].as_str().or(top["model_type"].as_str()).unwrap_or(""), file)?;
        let u = |k: &str| v[k].as_u64().map(|x| x as usize).ok_or_else(|| LensError::Model(format!("{}: no {k}", file.display())));
        let hidden = u("hidden_size")?;
        let heads = u("num_attention_heads")?;
        let layers = u("num_hidden_layers")?;
        let rope = &v["rope_parameters"];
        let rope_theta = v["rope_theta"].as_f64().or_else(|| rope["rope_theta"].as_f64()).unwrap_or(10_000.0) as f32;
        let head_dim = u("head_dim").unwrap_or(hidden / heads.max(1));
        let partial = v["partial_rotary_factor"].as_f64().or_else(|| rope["partial_rotary_factor"].as_f64()).unwrap_or(1.0);
        let (layer_kinds, linear) = if arch == Arch::Qwen35 {
            let kinds = match v["layer_types"].as_array() {
                Some(a) => a
                    .iter()
                    .map(|t| match t.as_str() {
                        Some("linear_attention") => Ok(LayerKind::LinearAttention),
                        Some("full_attention") => Ok(LayerKind::FullAttention),
                        o => Err(LensError::Model(format!("{}: unknown layer type {o:?}", file.display()))),
                    })
                    .collect::<Result<Vec<_>>>()?,
                None => {
                    let every = u("full_attention_interval").unwrap_or(4).max(1);
                    (0..layers).map(|i| if (i + 1) % every == 0 { LayerKind::FullAttention } else { LayerKind::LinearAttention }).collect()
                }
            };
            let lc = LinearConfig {
                conv_kernel: u("linear_conv_kernel_dim").unwrap_or(4),
                k_heads: u("linear_num_key_heads")?,
                v_heads: u("linear_num_value_heads")?,
                k_dim: u("linear_key_head_dim")?,
                v_dim: u("linear_value_head_dim")?,
            };
            (kinds, Some(lc))
        } else {
            (vec![LayerKind::FullAttention; layers], None)
        };
        Ok(Config {
            arch,
            hidden,
            layers,
            heads,
            kv_heads: u("num_key_value_heads").unwrap_or(heads),
            head_dim,
            intermediate: u("intermediate_size")?,
            eps: v["rms_norm_eps"].as_f64().unwrap_or(1e-6) as f32,
            rope_theta,
            vocab: u("vocab_size")?,
            context: u("max_position_embeddings").unwrap_or(32_768),
            tie_embeddings: v["tie_word_embeddings"].as_bool().or(top["tie_word_embeddings"].as_bool()).unwrap_or(false),
            rotary_dim: ((head_dim as f64 * partial) as usize) & !1,
            layer_kinds,
            linear,
        })
    }

    pub(crate) fn check(&self, file: &Path) -> Result<()> {
        let ok = self.heads > 0
            && self.kv_heads > 0
            && self.heads.is_multiple_of(self.kv_heads)
            && self.head_dim.is_multiple_of(2)
            && self.rotary_dim <= self.head_dim
            && self.layer_kinds.len() == self.layers
            && self.linear.as_ref().is_none_or(|l| l.k_heads > 0 && l.v_heads.is_multiple_of(l.k_heads) && l.conv_kernel > 0)
            && self.hidden > 0
            && self.layers > 0
            && self.vocab > 0
            && self.layers <= 512
            && self.hidden <= 65_536;
        if ok {
            Ok(())
        } else {
            Err(LensError::Model(format!("{}: the model's shape is inconsistent ({self:?})", file.display())))
        }
    }
}

/// A tensor as read: f32 (safetensors, converted), or a GGUF tensor still in its GGML type,
/// dequantised only as far as asked (a slab of rows at a time for large matrices).
pub(crate) enum Loaded {
    Dense(Tensor),
    Quant(QTensor),
}

impl Loaded {
    pub(crate) fn dims(&self) -> &[usize] {
        match self {
            Loaded::Dense(t) => t.dims(),
            Loaded::Quant(q) => q.shape().dims(),
        }
    }

    pub(crate) fn tensor(&self) -> candle_core::Result<Tensor> {
        match self {
            Loaded::Dense(t) => Ok(t.clone()),
            Loaded::Quant(q) => q.dequantize(&Device::Cpu),
        }
    }

    /// Rows `r0..r0 + n` of a 2-D tensor, as f32.
    pub(crate) fn rows(&self, r0: usize, n: usize) -> candle_core::Result<Tensor> {
        match self {
            Loaded::Dense(t) => t.narrow(0, r0, n),
            Loaded::Quant(q) => {
                let (dt, cols) = (q.dtype(), q.shape().dims()[1]);
                let per_row = cols / dt.block_size() * dt.type_size();
                let data = q.data()?;
                let slab = QStorage::from_data(Cow::Borrowed(&data[r0 * per_row..(r0 + n) * per_row]), &Device::Cpu, dt)?;
                QTensor::new(slab, (n, cols))?.dequantize(&Device::Cpu)
            }
        }
    }
}

/// Where the weights come from, by GGUF tensor name (safetensors names are mapped).
pub(crate) trait Source {
    fn get(&mut self, name: &str) -> Result<Option<Loaded>>;
}

pub(crate) struct GgufSource<'a> {
    pub(crate) ct: &'a gguf_file::Content,
    pub(crate) file: std::fs::File,
    pub(crate) path: &'a Path,
}

impl Source for GgufSource<'_> {
    fn get(&mut self, name: &str) -> Result<Option<Loaded>> {
        if !self.ct.tensor_infos.contains_key(name) {
            return Ok(None);
        }
        let bad = |e: candle_core::Error| LensError::Model(format!("{}: tensor {name}: {e} (is the file complete?)", self.path.display()));
        Ok(Some(Loaded::Quant(self.ct.tensor(&mut self.file, name, &Device::Cpu).map_err(bad)?)))
    }
}

struct SafetensorsSource {
    st: candle_core::safetensors::MmapedSafetensors,
    names: std::collections::HashSet<String>,
    dir: PathBuf,
}

/// The Hugging Face name of a GGUF tensor name (names with no GGUF counterpart, such as
/// `blk.N.linear_attn.in_proj_qkv.weight`, pass through under `model.layers.N.`).
fn hf_name(name: &str) -> String {
    let map = |s: &str| match s {
        "attn_norm.weight" => "input_layernorm.weight".to_string(),
        "ffn_norm.weight" => "post_attention_layernorm.weight".to_string(),
        "attn_q_norm.weight" => "self_attn.q_norm.weight".to_string(),
        "attn_k_norm.weight" => "self_attn.k_norm.weight".to_string(),
        "attn_output.weight" => "self_attn.o_proj.weight".to_string(),
        _ => {
            let (base, kind) = s.rsplit_once('.').unwrap_or((s, "weight"));
            match base {
                "attn_q" | "attn_k" | "attn_v" => format!("self_attn.{}_proj.{kind}", &base[5..]),
                "ffn_gate" | "ffn_up" | "ffn_down" => format!("mlp.{}_proj.{kind}", &base[4..]),
                _ => s.to_string(),
            }
        }
    };
    match name {
        "token_embd.weight" => "model.embed_tokens.weight".into(),
        "output_norm.weight" => "model.norm.weight".into(),
        "output.weight" => "lm_head.weight".into(),
        _ => match name.strip_prefix("blk.").and_then(|r| r.split_once('.')) {
            Some((i, rest)) => format!("model.layers.{i}.{}", map(rest)),
            None => name.to_string(),
        },
    }
}

impl Source for SafetensorsSource {
    fn get(&mut self, name: &str) -> Result<Option<Loaded>> {
        let hf = hf_name(name);
        // multimodal checkpoints keep the language model under model.language_model.
        let nested = hf.replacen("model.", "model.language_model.", 1);
        let Some(found) = [hf.clone(), nested].into_iter().find(|n| self.names.contains(n)) else { return Ok(None) };
        let bad = |e: candle_core::Error| LensError::Model(format!("{}: tensor {found}: {e}", self.dir.display()));
        Ok(Some(Loaded::Dense(self.st.load(&found, &Device::Cpu).and_then(|t| t.to_dtype(DType::F32)).map_err(bad)?)))
    }
}

pub(crate) fn to_vec(t: &Loaded, what: &str) -> Result<Vec<f32>> {
    t.tensor().and_then(|t| t.flatten_all()).and_then(|t| t.to_vec1::<f32>()).map_err(|e| LensError::Model(format!("{what}: {e}")))
}

/// A Hugging Face directory's config and its tensors (mapped, read as f32 when asked).
pub(crate) fn open_safetensors(dir: &Path) -> Result<(Config, impl Source)> {
    let cfg_path = dir.join("config.json");
    let text = std::fs::read_to_string(&cfg_path).map_err(|e| LensError::io(&cfg_path, e))?;
    let cfg = Config::from_json(&text, &cfg_path)?;
    let files = lens_core::paths::files_with_extension(dir, "safetensors")?;
    if files.is_empty() {
        return Err(LensError::ModelMissing {
            what: "*.safetensors".into(),
            dir: dir.to_path_buf(),
            hint: "a Qwen2, Qwen3 or Qwen3.5 model directory holds config.json, tokenizer.json and model*.safetensors".into(),
        });
    }
    // SAFETY: the files are mapped read-only; a file changed while mapped is the user's error
    let st = unsafe { candle_core::safetensors::MmapedSafetensors::multi(&files) }.map_err(|e| LensError::Model(format!("{}: {e}", dir.display())))?;
    let names = st.tensors().into_iter().map(|(n, _)| n).collect();
    cfg.check(dir)?;
    Ok((cfg, SafetensorsSource { st, names, dir: dir.to_path_buf() }))
}

/// A weight that could not be put on the device: out of memory said as such (the answerer's
/// `auto` then runs the model on the CPU), anything else after `what` (the file, the tensor).
pub(crate) fn load_error(what: impl std::fmt::Display, e: candle_core::Error) -> LensError {
    let s = e.to_string();
    if s.to_lowercase().contains("out of memory") {
        LensError::Model(format!("{what}: the model does not fit in the device's memory ({s})"))
    } else {
        LensError::Model(format!("{what}: {s}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_names_map_between_gguf_and_hugging_face() {
        assert_eq!(hf_name("blk.3.attn_q.weight"), "model.layers.3.self_attn.q_proj.weight");
        assert_eq!(hf_name("blk.3.attn_v.bias"), "model.layers.3.self_attn.v_proj.bias");
        assert_eq!(hf_name("blk.0.attn_output.weight"), "model.layers.0.self_attn.o_proj.weight");
        assert_eq!(hf_name("blk.1.ffn_down.weight"), "model.layers.1.mlp.down_proj.weight");
        assert_eq!(hf_name("blk.1.attn_k_norm.weight"), "model.layers.1.self_attn.k_norm.weight");
        assert_eq!(hf_name("blk.1.ffn_norm.weight"), "model.layers.1.post_attention_layernorm.weight");
        assert_eq!(hf_name("token_embd.weight"), "model.embed_tokens.weight");
        assert_eq!(hf_name("output.weight"), "lm_head.weight");
    }

    #[test]
    fn config_json_accepts_both_rope_layouts_and_null_sliding_window() {
        let old = r#"{"model_type":"qwen2","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,
            "intermediate_size":128,"vocab_size":300,"rope_theta":1000000.0,"sliding_window":null,"tie_word_embeddings":true}"#;
        let new = r#"{"model_type":"qwen3","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":32,
            "intermediate_size":128,"vocab_size":300,"rope_parameters":{"rope_type":"default","rope_theta":5000.0}}"#;
        let a = Config::from_json(old, Path::new("a.json")).unwrap();
        assert_eq!((a.arch, a.rope_theta, a.head_dim, a.tie_embeddings), (Arch::Qwen2, 1_000_000.0, 16, true));
        let b = Config::from_json(new, Path::new("b.json")).unwrap();
        assert_eq!((b.arch, b.rope_theta, b.head_dim), (Arch::Qwen3, 5000.0, 32));
        let e = Config::from_json(r#"{"model_type":"llama"}"#, Path::new("c.json")).unwrap_err().to_string();
        assert!(e.contains("c.json") && e.contains("llama"), "{e}");
    }
}
