//! ColModernVBERT in candle: a SigLIP vision tower reads each tile, a pixel-shuffle connector
//! turns its patch states into `image_seq_len` token embeddings per tile, which replace the
//! `<image>` tokens of the document prompt; ModernBERT reads the whole sequence (alternating
//! global and sliding-window attention, two rotary bases); a linear projection to 128 dimensions
//! and L2 normalisation give one vector per token. A query is the same text model on its tokens.
//!
//! candle-transformers' `modernbert` only takes token ids under a fixed weight prefix, so the
//! text model is written here to take embeddings; the vision tower is written alongside so both
//! load from either weight layout:
//!
//! * transformers' `ColModernVBertForRetrieval`: `vlm.vision_model.*`, `vlm.connector.*`,
//!   `vlm.text_model.*`, `embedding_proj_layer.*`, config with `vlm_config`;
//! * colpali-engine's `ColModernVBert`: `model.vision_model.*`, `model.connector.*`,
//!   `base_model.model.model.text_model.*` (or `model.text_model.*`),
//!   `base_model.model.custom_text_proj.*` (or `custom_text_proj.*`), the `modernvbert` config at
//!   the top level.
//!
//! Config names from both eras are read: `norm_eps` / `layer_norm_eps`, `rope_parameters` /
//! `global_rope_theta` + `local_rope_theta`, `layer_types` / `global_attn_every_n_layers`,
//! `local_attention` / `sliding_window`.

use crate::kernels;
use candle_core::safetensors::MmapedSafetensors;
use candle_core::{DType, Device, Tensor};
use lens_core::error::{LensError, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Where the encoder's time goes, by stage, when a benchmark asks ([`stage_times`]): off by
/// default (one relaxed load per stage).
pub mod stages {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Mutex;
    use std::time::Instant;

    static ON: AtomicBool = AtomicBool::new(false);
    static SPENT: Mutex<Vec<(&'static str, f64)>> = Mutex::new(Vec::new());

    /// Start counting (clears what was counted).
    pub fn start() {
        SPENT.lock().unwrap_or_else(|p| p.into_inner()).clear();
        ON.store(true, Ordering::Relaxed);
    }

    /// Stop counting; seconds per stage, in the order the stages first ran.
    pub fn take() -> Vec<(&'static str, f64)> {
        ON.store(false, Ordering::Relaxed);
        std::mem::take(&mut *SPENT.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// A stage's clock: started now, added to its stage when [`Clock::stop`] is called.
    pub struct Clock(Option<Instant>);

    pub fn clock() -> Clock {
        Clock(ON.load(Ordering::Relaxed).then(Instant::now))
    }

    impl Clock {
        pub fn stop(self, stage: &'static str) {
            if let Some(t) = self.0 {
                let s = t.elapsed().as_secs_f64();
                let mut v = SPENT.lock().unwrap_or_else(|p| p.into_inner());
                match v.iter_mut().find(|(n, _)| *n == stage) {
                    Some(x) => x.1 += s,
                    None => v.push((stage, s)),
                }
            }
        }
    }
}

/// Where to get the weights (the machines this app runs on may not reach the network).
pub const VISION_HINT: &str = "put a ColModernVBERT folder (config.json, model.safetensors, tokenizer.json; e.g. ModernVBERT/colmodernvbert-merged from Hugging Face, copied from a machine that can download it) in the models folder as `colmodernvbert`, or in the Hugging Face cache";

fn err(e: candle_core::Error) -> LensError {
    LensError::Model(e.to_string())
}

trait Ctx<T> {
    fn ctx(self) -> Result<T>;
}
impl<T> Ctx<T> for candle_core::Result<T> {
    fn ctx(self) -> Result<T> {
        self.map_err(err)
    }
}

#[derive(Debug, Clone)]
pub struct VisionConfig {
    pub hidden: usize,
    pub intermediate: usize,
    pub layers: usize,
    pub heads: usize,
    pub image_size: usize,
    pub patch: usize,
    pub eps: f64,
}

#[derive(Debug, Clone)]
pub struct TextConfig {
    pub vocab: usize,
    pub hidden: usize,
    pub intermediate: usize,
    pub layers: usize,
    pub heads: usize,
    pub eps: f64,
    pub norm_bias: bool,
    pub attention_bias: bool,
    pub mlp_bias: bool,
    /// Per layer: true = sliding-window attention.
    pub sliding: Vec<bool>,
    /// Half window: a token sees tokens at most this far away in a sliding layer.
    pub window: usize,
    pub global_theta: f64,
    pub local_theta: f64,
    /// "gelu" (erf) or "gelu_pytorch_tanh"
    pub act_tanh: bool,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub vision: VisionConfig,
    pub text: TextConfig,
    pub image_token_id: u32,
    pub pixel_shuffle: usize,
    pub dim: usize,
}

impl Config {
    /// `<image>` tokens per tile.
    pub fn image_seq_len(&self) -> usize {
        (self.vision.image_size / self.vision.patch).pow(2) / self.pixel_shuffle.pow(2)
    }

    /// Read `config.json` of either layout.
    pub fn from_json(v: &Value) -> Result<Config> {
        let bad = |what: &str| LensError::Model(format!("config.json: {what}"));
        let vlm = if v.get("vlm_config").is_some() { &v["vlm_config"] } else { v };
        let t = &vlm["text_config"];
        let vi = &vlm["vision_config"];
        if !t.is_object() || !vi.is_object() {
            return Err(bad("no text_config / vision_config: not a ColModernVBERT config"));
        }
        let u = |o: &Value, k: &str| o.get(k).and_then(Value::as_u64).map(|x| x as usize).ok_or_else(|| bad(&format!("`{k}` missing")));
        let uo = |o: &Value, k: &str, d: usize| o.get(k).and_then(Value::as_u64).map(|x| x as usize).unwrap_or(d);
        let f = |o: &Value, keys: &[&str], d: f64| keys.iter().find_map(|k| o.get(*k).and_then(Value::as_f64)).unwrap_or(d);
        let b = |o: &Value, k: &str, d: bool| o.get(k).and_then(Value::as_bool).unwrap_or(d);
        let layers = u(t, "num_hidden_layers")?;
        let every = uo(t, "global_attn_every_n_layers", 3).max(1);
        let sliding: Vec<bool> = match t.get("layer_types").and_then(Value::as_array) {
            Some(a) => a.iter().map(|x| x.as_str() == Some("sliding_attention")).collect(),
            None => (0..layers).map(|i| i % every != 0).collect(),
        };
        if sliding.len() != layers {
            return Err(bad("layer_types does not list every layer"));
        }
        let window = match t.get("local_attention").and_then(Value::as_u64) {
            Some(l) => l as usize / 2,
            None => uo(t, "sliding_window", 64),
        };
        let rp = &t["rope_parameters"];
        let global_theta =
            rp.get("full_attention").and_then(|x| x.get("rope_theta")).and_then(Value::as_f64).unwrap_or_else(|| f(t, &["global_rope_theta"], 160000.0));
        let local_theta =
            rp.get("sliding_attention").and_then(|x| x.get("rope_theta")).and_then(Value::as_f64).unwrap_or_else(|| f(t, &["local_rope_theta"], 10000.0));
        let act = t.get("hidden_activation").and_then(Value::as_str).unwrap_or("gelu");
        let vact = vi.get("hidden_act").and_then(Value::as_str).unwrap_or("gelu_pytorch_tanh");
        if vact != "gelu_pytorch_tanh" {
            return Err(bad(&format!("vision hidden_act `{vact}` is not supported (gelu_pytorch_tanh)")));
        }
        Ok(Config {
            vision: VisionConfig {
                hidden: u(vi, "hidden_size")?,
                intermediate: u(vi, "intermediate_size")?,
                layers: u(vi, "num_hidden_layers")?,
                heads: u(vi, "num_attention_heads")?,
                image_size: u(vi, "image_size")?,
                patch: u(vi, "patch_size")?,
                eps: f(vi, &["layer_norm_eps"], 1e-6),
            },
            text: TextConfig {
                vocab: u(t, "vocab_size")?,
                hidden: u(t, "hidden_size")?,
                intermediate: u(t, "intermediate_size")?,
                layers,
                heads: u(t, "num_attention_heads")?,
                eps: f(t, &["norm_eps", "layer_norm_eps"], 1e-5),
                norm_bias: b(t, "norm_bias", false),
                attention_bias: b(t, "attention_bias", false),
                mlp_bias: b(t, "mlp_bias", false),
                sliding,
                window,
                global_theta,
                local_theta,
                act_tanh: act == "gelu_pytorch_tanh",
            },
            image_token_id: vlm.get("image_token_id").and_then(Value::as_u64).unwrap_or(50407) as u32,
            pixel_shuffle: uo(vlm, "pixel_shuffle_factor", 4),
            dim: v.get("embedding_dim").and_then(Value::as_u64).unwrap_or(128) as usize,
        })
    }
}

impl Config {
    /// The published model's shape (SigLIP base/16 at 512 px, ModernBERT base, pixel shuffle 4,
    /// 128-d): for benchmarks with random weights.
    pub fn real_size() -> Config {
        Config {
            vision: VisionConfig { hidden: 768, intermediate: 3072, layers: 12, heads: 12, image_size: 512, patch: 16, eps: 1e-6 },
            text: TextConfig {
                vocab: 50432,
                hidden: 768,
                intermediate: 1152,
                layers: 22,
                heads: 12,
                eps: 1e-5,
                norm_bias: false,
                attention_bias: false,
                mlp_bias: false,
                sliding: (0..22).map(|i| i % 3 != 0).collect(),
                window: 64,
                global_theta: 160000.0,
                local_theta: 10000.0,
                act_tanh: false,
            },
            image_token_id: 50407,
            pixel_shuffle: 4,
            dim: 128,
        }
    }

    /// Random weights under transformers' names, for this config (benchmarks; the values do not
    /// matter to the speed).
    pub fn random_weights(&self, seed: u64) -> Result<std::collections::HashMap<String, Tensor>> {
        let mut m = std::collections::HashMap::new();
        let mut s = seed;
        let mut t = |name: String, shape: Vec<usize>| -> Result<()> {
            let n: usize = shape.iter().product();
            let v: Vec<f32> = (0..n)
                .map(|_| {
                    s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.04
                })
                .collect();
            m.insert(name, Tensor::from_vec(v, shape, &Device::Cpu).ctx()?);
            Ok(())
        };
        let (v, x) = (&self.vision, &self.text);
        let vm = |r: &str| format!("vlm.vision_model.{r}");
        t(vm("embeddings.patch_embedding.weight"), vec![v.hidden, 3, v.patch, v.patch])?;
        t(vm("embeddings.patch_embedding.bias"), vec![v.hidden])?;
        t(vm("embeddings.position_embedding.weight"), vec![(v.image_size / v.patch).pow(2), v.hidden])?;
        for i in 0..v.layers {
            for (n, o, inp) in [
                ("self_attn.q_proj", v.hidden, v.hidden),
                ("self_attn.k_proj", v.hidden, v.hidden),
                ("self_attn.v_proj", v.hidden, v.hidden),
                ("self_attn.out_proj", v.hidden, v.hidden),
                ("mlp.fc1", v.intermediate, v.hidden),
                ("mlp.fc2", v.hidden, v.intermediate),
            ] {
                t(vm(&format!("encoder.layers.{i}.{n}.weight")), vec![o, inp])?;
                t(vm(&format!("encoder.layers.{i}.{n}.bias")), vec![o])?;
            }
            for n in ["layer_norm1", "layer_norm2"] {
                t(vm(&format!("encoder.layers.{i}.{n}.weight")), vec![v.hidden])?;
                t(vm(&format!("encoder.layers.{i}.{n}.bias")), vec![v.hidden])?;
            }
        }
        t(vm("post_layernorm.weight"), vec![v.hidden])?;
        t(vm("post_layernorm.bias"), vec![v.hidden])?;
        t("vlm.connector.modality_projection.weight".into(), vec![x.hidden, v.hidden * self.pixel_shuffle.pow(2)])?;
        let tm = |r: &str| format!("vlm.text_model.{r}");
        t(tm("embeddings.tok_embeddings.weight"), vec![x.vocab, x.hidden])?;
        t(tm("embeddings.norm.weight"), vec![x.hidden])?;
        for i in 0..x.layers {
            if i > 0 {
                t(tm(&format!("layers.{i}.attn_norm.weight")), vec![x.hidden])?;
            }
            t(tm(&format!("layers.{i}.attn.Wqkv.weight")), vec![3 * x.hidden, x.hidden])?;
            t(tm(&format!("layers.{i}.attn.Wo.weight")), vec![x.hidden, x.hidden])?;
            t(tm(&format!("layers.{i}.mlp_norm.weight")), vec![x.hidden])?;
            t(tm(&format!("layers.{i}.mlp.Wi.weight")), vec![2 * x.intermediate, x.hidden])?;
            t(tm(&format!("layers.{i}.mlp.Wo.weight")), vec![x.hidden, x.intermediate])?;
        }
        t(tm("final_norm.weight"), vec![x.hidden])?;
        t("embedding_proj_layer.weight".into(), vec![self.dim, x.hidden])?;
        t("embedding_proj_layer.bias".into(), vec![self.dim])?;
        Ok(m)
    }

    /// The config as transformers writes it (enough for [`ColModernVBert::load`]).
    pub fn to_json(&self) -> Value {
        let (v, x) = (&self.vision, &self.text);
        serde_json::json!({
            "model_type": "colmodernvbert",
            "embedding_dim": self.dim,
            "vlm_config": {
                "model_type": "modernvbert",
                "image_token_id": self.image_token_id,
                "pixel_shuffle_factor": self.pixel_shuffle,
                "vision_config": {"hidden_size": v.hidden, "intermediate_size": v.intermediate, "num_hidden_layers": v.layers, "num_attention_heads": v.heads, "image_size": v.image_size, "patch_size": v.patch, "layer_norm_eps": v.eps, "hidden_act": "gelu_pytorch_tanh"},
                "text_config": {"vocab_size": x.vocab, "hidden_size": x.hidden, "intermediate_size": x.intermediate, "num_hidden_layers": x.layers, "num_attention_heads": x.heads, "norm_eps": x.eps,
                    "layer_types": x.sliding.iter().map(|s| if *s { "sliding_attention" } else { "full_attention" }).collect::<Vec<_>>(), "local_attention": x.window * 2,
                    "rope_parameters": {"full_attention": {"rope_theta": x.global_theta}, "sliding_attention": {"rope_theta": x.local_theta}}, "hidden_activation": if x.act_tanh { "gelu_pytorch_tanh" } else { "gelu" }}
            }
        })
    }
}

/// Which weight names a checkpoint uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Transformers,
    ColpaliPeft,
    Colpali,
}

impl Layout {
    fn name(self, part: &str, rest: &str) -> String {
        match (self, part) {
            (Layout::Transformers, "proj") => format!("embedding_proj_layer.{rest}"),
            (Layout::Transformers, p) => format!("vlm.{p}.{rest}"),
            (Layout::ColpaliPeft, "text_model") => format!("base_model.model.model.text_model.{rest}"),
            (Layout::ColpaliPeft, "proj") => format!("base_model.model.custom_text_proj.{rest}"),
            (_, "proj") => format!("custom_text_proj.{rest}"),
            (_, p) => format!("model.{p}.{rest}"),
        }
    }
}

struct Weights {
    st: MmapedSafetensors,
    /// names of the text model and projection
    layout: Layout,
    dir: PathBuf,
}

impl Weights {
    fn name(&self, part: &str, rest: &str) -> String {
        // colpali's peft layout keeps the vision tower and connector under `model.`
        let l = if self.layout == Layout::ColpaliPeft && matches!(part, "vision_model" | "connector") { Layout::Colpali } else { self.layout };
        l.name(part, rest)
    }

    fn get(&self, part: &str, rest: &str, shape: &[usize]) -> Result<Tensor> {
        let name = self.name(part, rest);
        let t = self.st.load(&name, &Device::Cpu).map_err(|_| LensError::Model(format!("{}: tensor `{name}` is missing", self.dir.display())))?;
        if t.dims() != shape {
            return Err(LensError::Model(format!("{}: tensor `{name}` has shape {:?}, the config wants {:?}", self.dir.display(), t.dims(), shape)));
        }
        t.to_dtype(DType::F32).ctx()
    }

    /// A linear layer `[out, in]` stored transposed (`[in, out]`, contiguous) for `x @ w`.
    fn linear(&self, part: &str, rest: &str, inp: usize, out: usize, bias: bool) -> Result<Linear> {
        let w = self.get(part, &format!("{rest}.weight"), &[out, inp])?.t().ctx()?.contiguous().ctx()?;
        let b = if bias { Some(self.get(part, &format!("{rest}.bias"), &[out])?) } else { None };
        Ok(Linear { w: Weight::F32(w), b })
    }

    fn norm(&self, part: &str, rest: &str, n: usize, bias: bool, eps: f64) -> Result<Norm> {
        let w = self.get(part, &format!("{rest}.weight"), &[n])?;
        let b = if bias { self.get(part, &format!("{rest}.bias"), &[n])? } else { Tensor::zeros(n, DType::F32, &Device::Cpu).ctx()? };
        Ok(Norm { w, b, eps: eps as f32 })
    }
}

struct Linear {
    w: Weight,
    b: Option<Tensor>,
}

/// A linear layer's weights: f32 `[in, out]` (candle's matmul: the generic pass, and the CPU
/// without a bf16 kernel), or packed in bf16 for [`lens_ml::bf16`] (the CPU with AMX or AVX-512 BF16).
enum Weight {
    F32(Tensor),
    Bf16(lens_ml::bf16::Kernel, lens_ml::bf16::Packed, Option<Vec<f32>>),
    /// bf16 `[in, out]` on the device ([`ColModernVBert::half_matrices`])
    Half(Tensor),
}

impl Linear {
    /// Linear layers of the same input side by side as one: their output columns in order.
    fn fused(parts: &[Linear]) -> Result<Linear> {
        let ws: Vec<&Tensor> = parts
            .iter()
            .map(|p| match &p.w {
                Weight::F32(w) => Ok(w),
                Weight::Bf16(..) | Weight::Half(_) => Err(LensError::Model("only f32 weights are fused".into())),
            })
            .collect::<Result<_>>()?;
        let w = Tensor::cat(&ws, 1).ctx()?;
        let b = match parts.iter().map(|p| p.b.as_ref()).collect::<Option<Vec<&Tensor>>>() {
            Some(bs) => Some(Tensor::cat(&bs, 0).ctx()?),
            None => None,
        };
        Ok(Linear { w: Weight::F32(w), b })
    }

    /// [`Self::forward`] on `m` rows in a plain buffer (the CPU kernels' pass): `out` is
    /// `m × out`.
    fn forward_vec(&self, x: &[f32], m: usize, out: &mut Vec<f32>) -> Result<()> {
        match &self.w {
            Weight::Bf16(kernel, p, bias) => {
                // every element is written by the product: a buffer of the right size is reused
                if out.len() != m * p.n() {
                    out.clear();
                    out.resize(m * p.n(), 0.0);
                }
                lens_ml::bf16::matmul(*kernel, x, m, p, bias.as_deref(), out);
                Ok(())
            }
            Weight::F32(w) | Weight::Half(w) => {
                let k = w.dims2().ctx()?.0;
                let t = Tensor::from_slice(x, (m, k), &Device::Cpu).ctx()?;
                *out = self.forward(&t)?.flatten_all().ctx()?.to_vec1::<f32>().ctx()?;
                Ok(())
            }
        }
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        match &self.w {
            Weight::F32(w) => {
                let y = x.broadcast_matmul(w).ctx()?;
                match &self.b {
                    Some(b) => y.broadcast_add(b).ctx(),
                    None => Ok(y),
                }
            }
            Weight::Half(w) => {
                let y = x.to_dtype(DType::BF16).ctx()?.broadcast_matmul(w).ctx()?.to_dtype(DType::F32).ctx()?;
                match &self.b {
                    Some(b) => y.broadcast_add(b).ctx(),
                    None => Ok(y),
                }
            }
            Weight::Bf16(kernel, p, bias) => {
                let mut dims = x.dims().to_vec();
                let m = x.elem_count() / p.k();
                let xs = x.flatten_all().ctx()?.to_vec1::<f32>().ctx()?;
                let mut out = vec![0f32; m * p.n()];
                lens_ml::bf16::matmul(*kernel, &xs, m, p, bias.as_deref(), &mut out);
                *dims.last_mut().expect("a linear layer's input has a last dimension") = p.n();
                Tensor::from_vec(out, dims, &Device::Cpu).ctx()
            }
        }
    }

    /// The f32 weights, for moving to a device (packed ones stay on the CPU).
    fn f32_mut(&mut self) -> Result<&mut Tensor> {
        match &mut self.w {
            Weight::F32(w) => Ok(w),
            Weight::Bf16(..) | Weight::Half(_) => {
                Err(LensError::Model("the model's weights were converted to bf16 (for the CPU's kernel or a device): load it again to move it".into()))
            }
        }
    }

    /// Pack the `[in, out]` f32 weights and the bias for `kernel` (the f32 copies are dropped).
    fn pack(&mut self, kernel: lens_ml::bf16::Kernel) -> Result<()> {
        let w = self.f32_mut()?;
        let (k, n) = w.dims2().ctx()?;
        let v = w.flatten_all().ctx()?.to_vec1::<f32>().ctx()?;
        let packed = lens_ml::bf16::Packed::from_columns(n, k, |j, dst| {
            for (i, d) in dst.iter_mut().enumerate() {
                *d = v[i * n + j];
            }
        });
        // the bias moves into the packed form (its tensor is the f32 form's)
        let bias = match self.b.take() {
            Some(b) => Some(b.to_vec1::<f32>().ctx()?),
            None => None,
        };
        self.w = Weight::Bf16(kernel, packed, bias);
        Ok(())
    }
}

struct Norm {
    w: Tensor,
    b: Tensor,
    eps: f32,
}

impl Norm {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        candle_nn::ops::layer_norm(x, &self.w, &self.b, self.eps).ctx()
    }

    /// Its weight and bias as plain vectors (for the CPU kernels' pass).
    fn vecs(&self) -> Result<(Vec<f32>, Vec<f32>)> {
        Ok((self.w.to_vec1::<f32>().ctx()?, self.b.to_vec1::<f32>().ctx()?))
    }
}

struct VisionLayer {
    ln1: Norm,
    /// q, k and v as one product: `[hidden, 3 × hidden]`, output columns `[q | k | v]`
    qkv: Linear,
    o: Linear,
    ln2: Norm,
    fc1: Linear,
    fc2: Linear,
}

struct TextLayer {
    attn_norm: Option<Norm>,
    wqkv: Linear,
    wo: Linear,
    mlp_norm: Norm,
    wi: Linear,
    mo: Linear,
    sliding: bool,
}

/// The loaded model.
pub struct ColModernVBert {
    pub cfg: Config,
    pub layout: Layout,
    /// the patch embedding (a stride-p convolution) as a linear layer over flattened patches
    patch: Linear,
    pos: Tensor,
    vlayers: Vec<VisionLayer>,
    post_ln: Norm,
    connector: Linear,
    tok: Tensor,
    emb_norm: Norm,
    tlayers: Vec<TextLayer>,
    final_norm: Norm,
    proj: Linear,
    /// Where the weights live and the pass runs. On the CPU, attention, GELU and rotary go
    /// through this crate's kernels ([`crate::kernels`]); on any other device (or with
    /// `generic`), through candle's ops: the device-generic pass a GPU runs.
    device: Device,
    generic: bool,
    /// the bf16 kernel the linear layers were packed for (CPU kernels only)
    bf16: Option<lens_ml::bf16::Kernel>,
    /// The device pass's matrix products in bf16 (weights held in bf16 on the device, the
    /// activations rounded to bf16 for each product; norms, softmax and sums stay f32), as
    /// PyTorch's autocast does: the default on a GPU ([`Self::to_device`]).
    half: bool,
}

impl ColModernVBert {
    /// The model on `device` (weights moved there once); `generic` runs candle's ops even on
    /// the CPU (the parity tests check the GPU pass that way). On the CPU's own kernels the
    /// linear layers run in bf16 where the CPU has a bf16 kernel ([`lens_ml::bf16::kernel`]:
    /// AMX or AVX-512 BF16), else in f32.
    pub fn to_device(self, device: &Device, generic: bool) -> Result<ColModernVBert> {
        let bf16 = if device.is_cpu() && !generic { lens_ml::bf16::kernel() } else { None };
        let m = self.placed(device, generic, bf16)?;
        // a GPU's pass multiplies in bf16 (its tensor cores), as PyTorch's autocast does
        if device.is_cpu() {
            Ok(m)
        } else {
            m.half_matrices(true)
        }
    }

    /// The device pass's matrix products in bf16 (`true`; the linear layers' weights are
    /// converted once on the device), or kept in f32 (`false`, refused once rounded). The CPU
    /// kernels' pass has its own bf16 form ([`Self::placed`]) and refuses this.
    pub fn half_matrices(mut self, on: bool) -> Result<ColModernVBert> {
        if !self.ops() {
            return Err(LensError::Model("bf16 matrices are the device pass's; the CPU kernels pack their own".into()));
        }
        if !on {
            // weights rounded to bf16 do not come back: f32 is the model as loaded
            if self.half {
                return Err(LensError::Model("the weights were rounded to bf16: load the model again for f32 (placed, not to_device)".into()));
            }
            return Ok(self);
        }
        for l in self.linears_mut() {
            if let Weight::F32(w) = &l.w {
                l.w = Weight::Half(w.to_dtype(DType::BF16).ctx()?);
            }
        }
        self.half = true;
        Ok(self)
    }

    /// [`Self::to_device`] with the linear layers' kernel chosen by the caller: `Some` packs
    /// them in bf16 for that kernel (CPU kernels only), `None` keeps f32.
    pub fn placed(self, device: &Device, generic: bool, bf16: Option<lens_ml::bf16::Kernel>) -> Result<ColModernVBert> {
        let mut m = self.moved(device, generic)?;
        if let Some(k) = bf16 {
            if m.ops() {
                return Err(LensError::Model("the bf16 kernels are the CPU's: the generic pass runs candle's ops".into()));
            }
            for l in m.linears_mut() {
                l.pack(k)?;
            }
            m.bf16 = Some(k);
        }
        Ok(m)
    }

    /// How the linear layers run: `bf16 (amx)`, `f32`.
    pub fn precision(&self) -> String {
        match self.bf16 {
            Some(k) => format!("bf16 ({})", k.name()),
            None if self.half => "bf16 matrices (device)".into(),
            None => "f32".into(),
        }
    }

    fn linears_mut(&mut self) -> Vec<&mut Linear> {
        let mut v = vec![&mut self.patch, &mut self.connector, &mut self.proj];
        for l in &mut self.vlayers {
            v.extend([&mut l.qkv, &mut l.o, &mut l.fc1, &mut l.fc2]);
        }
        for l in &mut self.tlayers {
            v.extend([&mut l.wqkv, &mut l.wo, &mut l.wi, &mut l.mo]);
        }
        v
    }

    fn moved(mut self, device: &Device, generic: bool) -> Result<ColModernVBert> {
        let mv = |t: &mut Tensor| -> Result<()> {
            *t = t.to_device(device).ctx()?;
            Ok(())
        };
        let lin = |l: &mut Linear| -> Result<()> {
            let w = l.f32_mut()?;
            *w = w.to_device(device).ctx()?;
            if let Some(b) = &mut l.b {
                *b = b.to_device(device).ctx()?;
            }
            Ok(())
        };
        let norm = |n: &mut Norm| -> Result<()> {
            n.w = n.w.to_device(device).ctx()?;
            n.b = n.b.to_device(device).ctx()?;
            Ok(())
        };
        lin(&mut self.patch)?;
        mv(&mut self.pos)?;
        mv(&mut self.tok)?;
        for l in &mut self.vlayers {
            norm(&mut l.ln1)?;
            norm(&mut l.ln2)?;
            for x in [&mut l.qkv, &mut l.o, &mut l.fc1, &mut l.fc2] {
                lin(x)?;
            }
        }
        norm(&mut self.post_ln)?;
        lin(&mut self.connector)?;
        norm(&mut self.emb_norm)?;
        for l in &mut self.tlayers {
            if let Some(n) = &mut l.attn_norm {
                norm(n)?;
            }
            norm(&mut l.mlp_norm)?;
            for x in [&mut l.wqkv, &mut l.wo, &mut l.wi, &mut l.mo] {
                lin(x)?;
            }
        }
        norm(&mut self.final_norm)?;
        lin(&mut self.proj)?;
        self.device = device.clone();
        self.generic = generic;
        Ok(self)
    }

    /// Does the pass use candle's ops (a GPU, or forced), not the CPU kernels? MaxSim follows.
    pub fn ops(&self) -> bool {
        self.generic || !self.device.is_cpu()
    }

    pub fn device(&self) -> &Device {
        &self.device
    }
    /// Load `config.json` and the safetensors files of a model folder.
    pub fn load(dir: &Path) -> Result<ColModernVBert> {
        let cfg_path = dir.join("config.json");
        let text = std::fs::read_to_string(&cfg_path).map_err(|e| LensError::ModelMissing {
            what: format!("config.json ({e})"),
            dir: dir.to_path_buf(),
            hint: VISION_HINT.into(),
        })?;
        let v: Value = serde_json::from_str(&text).map_err(|e| LensError::Model(format!("{}: {e}", cfg_path.display())))?;
        let cfg = Config::from_json(&v)?;
        let files = lens_core::paths::files_with_extension(dir, "safetensors")?;
        if files.is_empty() {
            return Err(LensError::ModelMissing { what: "model weights (*.safetensors)".into(), dir: dir.to_path_buf(), hint: VISION_HINT.into() });
        }
        // SAFETY: the weight files are only read, and not changed while the model is loaded.
        let st = unsafe { MmapedSafetensors::multi(&files) }.map_err(|e| LensError::Model(format!("{}: {e}", dir.display())))?;
        let probe = |l: Layout| st.get(&l.name("text_model", "embeddings.tok_embeddings.weight")).is_ok();
        let layout = [Layout::Transformers, Layout::ColpaliPeft, Layout::Colpali].into_iter().find(|l| probe(*l)).ok_or_else(|| {
            LensError::Model(format!(
                "{}: no text model weights under any known name (tensor `vlm.text_model.embeddings.tok_embeddings.weight` is missing)",
                dir.display()
            ))
        })?;
        let wts = Weights { st, layout, dir: dir.to_path_buf() };
        let (w, vw) = (&wts, &wts);
        let (vc, tc) = (&cfg.vision, &cfg.text);
        let p = vc.patch;
        let grid = vc.image_size / p;
        let patch_w = vw
            .get("vision_model", "embeddings.patch_embedding.weight", &[vc.hidden, 3, p, p])?
            .reshape((vc.hidden, 3 * p * p))
            .ctx()?
            .t()
            .ctx()?
            .contiguous()
            .ctx()?;
        let patch_b = vw.get("vision_model", "embeddings.patch_embedding.bias", &[vc.hidden])?;
        let patch = Linear { w: Weight::F32(patch_w), b: Some(patch_b) };
        let pos = vw.get("vision_model", "embeddings.position_embedding.weight", &[grid * grid, vc.hidden])?;
        let mut vlayers = Vec::new();
        for i in 0..vc.layers {
            let l = |s: &str| format!("encoder.layers.{i}.{s}");
            vlayers.push(VisionLayer {
                ln1: vw.norm("vision_model", &l("layer_norm1"), vc.hidden, true, vc.eps)?,
                qkv: Linear::fused(&[
                    vw.linear("vision_model", &l("self_attn.q_proj"), vc.hidden, vc.hidden, true)?,
                    vw.linear("vision_model", &l("self_attn.k_proj"), vc.hidden, vc.hidden, true)?,
                    vw.linear("vision_model", &l("self_attn.v_proj"), vc.hidden, vc.hidden, true)?,
                ])?,
                o: vw.linear("vision_model", &l("self_attn.out_proj"), vc.hidden, vc.hidden, true)?,
                ln2: vw.norm("vision_model", &l("layer_norm2"), vc.hidden, true, vc.eps)?,
                fc1: vw.linear("vision_model", &l("mlp.fc1"), vc.hidden, vc.intermediate, true)?,
                fc2: vw.linear("vision_model", &l("mlp.fc2"), vc.intermediate, vc.hidden, true)?,
            });
        }
        let post_ln = vw.norm("vision_model", "post_layernorm", vc.hidden, true, vc.eps)?;
        let sh = cfg.pixel_shuffle;
        let connector = vw.linear("connector", "modality_projection", vc.hidden * sh * sh, tc.hidden, false)?;
        let tok = w.get("text_model", "embeddings.tok_embeddings.weight", &[tc.vocab, tc.hidden])?;
        let emb_norm = w.norm("text_model", "embeddings.norm", tc.hidden, tc.norm_bias, tc.eps)?;
        let mut tlayers = Vec::new();
        for i in 0..tc.layers {
            let l = |s: &str| format!("layers.{i}.{s}");
            tlayers.push(TextLayer {
                attn_norm: if i == 0 { None } else { Some(w.norm("text_model", &l("attn_norm"), tc.hidden, tc.norm_bias, tc.eps)?) },
                wqkv: w.linear("text_model", &l("attn.Wqkv"), tc.hidden, 3 * tc.hidden, tc.attention_bias)?,
                wo: w.linear("text_model", &l("attn.Wo"), tc.hidden, tc.hidden, tc.attention_bias)?,
                mlp_norm: w.norm("text_model", &l("mlp_norm"), tc.hidden, tc.norm_bias, tc.eps)?,
                wi: w.linear("text_model", &l("mlp.Wi"), tc.hidden, 2 * tc.intermediate, tc.mlp_bias)?,
                mo: w.linear("text_model", &l("mlp.Wo"), tc.intermediate, tc.hidden, tc.mlp_bias)?,
                sliding: tc.sliding[i],
            });
        }
        let final_norm = w.norm("text_model", "final_norm", tc.hidden, tc.norm_bias, tc.eps)?;
        let proj = Linear {
            w: Weight::F32(w.get("proj", "weight", &[cfg.dim, tc.hidden])?.t().ctx()?.contiguous().ctx()?),
            b: Some(w.get("proj", "bias", &[cfg.dim])?),
        };
        Ok(ColModernVBert {
            cfg,
            layout: wts.layout,
            patch,
            pos,
            vlayers,
            post_ln,
            connector,
            tok,
            emb_norm,
            tlayers,
            final_norm,
            proj,
            device: Device::Cpu,
            generic: false,
            bf16: None,
            half: false,
        })
    }

    /// Image token embeddings for a page's tiles: `[tiles × image_seq_len, text hidden]`.
    pub fn image_features(&self, tiles: &[Vec<f32>]) -> Result<Tensor> {
        let vc = &self.cfg.vision;
        let (t, p) = (vc.image_size, vc.patch);
        let g = t / p;
        let b = tiles.len();
        let flat: Vec<f32> = tiles.iter().flat_map(|x| x.iter().copied()).collect();
        if flat.len() != b * 3 * t * t {
            return Err(LensError::BadInput(format!("a tile is not 3 × {t} × {t}")));
        }
        // patches in conv-weight order: [b, gy, gx, c, py, px]
        let x = Tensor::from_vec(flat, (b, 3, g, p, g, p), &self.device)
            .ctx()?
            .permute((0, 2, 4, 1, 3, 5))
            .ctx()?
            .contiguous()
            .ctx()?
            .reshape((b, g * g, 3 * p * p))
            .ctx()?;
        let clock = stages::clock();
        let mut h = self.patch.forward(&x)?.broadcast_add(&self.pos).ctx()?;
        clock.stop("siglip patch embedding");
        let clock = stages::clock();
        let heads = vc.heads;
        let hd = vc.hidden / heads;
        let len = g * g;
        let hidden = vc.hidden;
        if self.ops() {
            for l in &self.vlayers {
                let n = l.ln1.forward(&h)?;
                let qkv = l.qkv.forward(&n)?;
                let part = |i: usize| qkv.narrow(2, i * hidden, hidden);
                let a = attention_ops(&part(0).ctx()?, &part(1).ctx()?, &part(2).ctx()?, heads, hd, None, self.half)?;
                h = (h + l.o.forward(&a)?).ctx()?;
                let n = l.ln2.forward(&h)?;
                h = (&h + l.fc2.forward(&l.fc1.forward(&n)?.gelu().ctx()?)?).ctx()?;
            }
        } else {
            // the CPU kernels' pass on plain buffers: q/k/v in one product, attention reading
            // them in place, norms, GELU and residuals in this crate's and lens-ml's loops
            let rows = b * len;
            let mut x = h.flatten_all().ctx()?.to_vec1::<f32>().ctx()?;
            let (mut n, mut qkv, mut a, mut o, mut f, mut f2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for l in &self.vlayers {
                let (w1, b1) = l.ln1.vecs()?;
                n.clone_from(&x);
                lens_ml::math::layer_norm(&mut n, &w1, &b1, l.ln1.eps);
                l.qkv.forward_vec(&n, rows, &mut qkv)?;
                lens_ml::attention::attention_into(
                    &qkv,
                    &qkv[hidden..],
                    &qkv[2 * hidden..],
                    3 * hidden,
                    &vec![len; b],
                    heads,
                    hd,
                    (hd as f32).powf(-0.5),
                    None,
                    self.bf16,
                    &mut a,
                );
                l.o.forward_vec(&a, rows, &mut o)?;
                lens_ml::math::add(&mut x, &o);
                let (w2, b2) = l.ln2.vecs()?;
                n.clone_from(&x);
                lens_ml::math::layer_norm(&mut n, &w2, &b2, l.ln2.eps);
                l.fc1.forward_vec(&n, rows, &mut f)?;
                kernels::gelu_tanh(&mut f);
                l.fc2.forward_vec(&f, rows, &mut f2)?;
                lens_ml::math::add(&mut x, &f2);
            }
            h = Tensor::from_vec(x, (b, len, hidden), &Device::Cpu).ctx()?;
        }
        let h = self.post_ln.forward(&h)?;
        clock.stop("siglip layers");
        let clock = stages::clock();
        // pixel shuffle, as the reference connector does it
        let f = self.cfg.pixel_shuffle;
        let d = vc.hidden;
        let x = h.reshape((b, g, g / f, d * f)).ctx()?.permute((0, 2, 1, 3)).ctx()?.contiguous().ctx()?;
        let x = x.reshape((b, g / f, g / f, d * f * f)).ctx()?.permute((0, 2, 1, 3)).ctx()?.contiguous().ctx()?;
        let x = x.reshape((b * g * g / (f * f), d * f * f)).ctx()?;
        let out = self.connector.forward(&x);
        clock.stop("connector (pixel shuffle + projection)");
        out
    }

    /// Rotary cos/sin `[len, head_dim]` for one base, in f32 as the reference computes them.
    fn rotary(&self, len: usize, theta: f64) -> Result<(Vec<f32>, Vec<f32>)> {
        let hd = self.cfg.text.hidden / self.cfg.text.heads;
        let inv: Vec<f32> = (0..hd / 2).map(|i| 1.0 / (theta as f32).powf((2 * i) as f32 / hd as f32)).collect();
        let mut cos = Vec::with_capacity(len * hd);
        let mut sin = Vec::with_capacity(len * hd);
        for p in 0..len {
            for _half in 0..2 {
                for f in &inv {
                    let a = p as f32 * f;
                    cos.push(a.cos());
                    sin.push(a.sin());
                }
            }
        }
        Ok((cos, sin))
    }

    /// The text model over `ids`, with `image` rows in place of the `<image>` tokens; returns the
    /// projected, L2-normalised vectors (`len × dim`, row-major).
    pub fn encode(&self, ids: &[u32], image: Option<&Tensor>) -> Result<Vec<f32>> {
        let tc = &self.cfg.text;
        let len = ids.len();
        if len == 0 {
            return Err(LensError::BadInput("nothing to encode".into()));
        }
        if let Some(bad) = ids.iter().find(|i| **i as usize >= tc.vocab) {
            return Err(LensError::Model(format!(
                "token id {bad} is outside the model's vocabulary ({}): the tokenizer does not belong to this model",
                tc.vocab
            )));
        }
        let clock = stages::clock();
        let idt = Tensor::from_vec(ids.to_vec(), len, &self.device).ctx()?;
        let mut x = self.tok.index_select(&idt, 0).ctx()?;
        let slots: Vec<usize> = ids.iter().enumerate().filter(|(_, t)| **t == self.cfg.image_token_id).map(|(i, _)| i).collect();
        match image {
            Some(img) => {
                if img.dims()[0] != slots.len() {
                    return Err(LensError::Model(format!("the prompt has {} image tokens for {} image features", slots.len(), img.dims()[0])));
                }
                // rebuild row by row: text rows from the embedding table, image rows in order
                let mut rows = Vec::with_capacity(len);
                let mut next = 0;
                for (i, t) in ids.iter().enumerate() {
                    if *t == self.cfg.image_token_id {
                        rows.push(img.get(next).ctx()?);
                        next += 1;
                    } else {
                        rows.push(x.get(i).ctx()?);
                    }
                }
                x = Tensor::stack(&rows, 0).ctx()?;
            }
            None if !slots.is_empty() => return Err(LensError::BadInput("image tokens in a query".into())),
            None => {}
        }
        let mut h = self.emb_norm.forward(&x)?;
        clock.stop("modernbert embeddings");
        let heads = tc.heads;
        let hd = tc.hidden / heads;
        let (gcos, gsin) = self.rotary(len, tc.global_theta)?;
        let (lcos, lsin) = self.rotary(len, tc.local_theta)?;
        let hidden = tc.hidden;
        // on a device: the rotary tables and the sliding window's mask put there once per pass,
        // not once per layer (each upload waits for the device's queue)
        let on_device = if self.ops() {
            let up = |t: &[f32]| Tensor::from_slice(t, (len, hd), &self.device).ctx();
            Some(((up(&gcos)?, up(&gsin)?), (up(&lcos)?, up(&lsin)?), window_mask(len, tc.window, &self.device)?))
        } else {
            None
        };
        for l in &self.tlayers {
            let clock = stages::clock();
            let n = match &l.attn_norm {
                Some(nm) => nm.forward(&h)?,
                None => h.clone(),
            };
            let (cos, sin) = if l.sliding { (&lcos, &lsin) } else { (&gcos, &gsin) };
            let window = l.sliding.then_some(tc.window);
            let a = if let Some((global, local, mask)) = &on_device {
                // Wqkv columns are [q | k | v], each heads × hd
                let qkv = l.wqkv.forward(&n)?;
                let part = |i: usize| qkv.narrow(1, i * hidden, hidden);
                let (q, k, v) = (part(0).ctx()?, part(1).ctx()?, part(2).ctx()?);
                let (c, s_) = if l.sliding { local } else { global };
                let (q, k) = (rope_ops(&q, heads, hd, c, s_)?, rope_ops(&k, heads, hd, c, s_)?);
                let mask = if l.sliding { Some(mask) } else { None };
                attention_ops(&q.unsqueeze(0).ctx()?, &k.unsqueeze(0).ctx()?, &v.unsqueeze(0).ctx()?, heads, hd, mask, self.half)?.squeeze(0).ctx()?
            } else {
                // Wqkv rows are [q | k | v], each heads × hd
                let qkv = l.wqkv.forward(&n)?.flatten_all().ctx()?.to_vec1::<f32>().ctx()?;
                let (mut q, mut k, mut v) = (Vec::with_capacity(len * hidden), Vec::with_capacity(len * hidden), Vec::with_capacity(len * hidden));
                for row in qkv.chunks_exact(3 * hidden) {
                    q.extend_from_slice(&row[..hidden]);
                    k.extend_from_slice(&row[hidden..2 * hidden]);
                    v.extend_from_slice(&row[2 * hidden..]);
                }
                kernels::rope(&mut q, len, heads, hd, cos, sin);
                kernels::rope(&mut k, len, heads, hd, cos, sin);
                let a = lens_ml::attention::attention(&q, &k, &v, &[len], heads, hd, (hd as f32).powf(-0.5), window, self.bf16);
                Tensor::from_vec(a, (len, hidden), &Device::Cpu).ctx()?
            };
            h = (h + l.wo.forward(&a)?).ctx()?;
            let n = l.mlp_norm.forward(&h)?;
            let wi = l.wi.forward(&n)?;
            let inp = wi.narrow(1, 0, tc.intermediate).ctx()?;
            let gate = wi.narrow(1, tc.intermediate, tc.intermediate).ctx()?;
            let act = if tc.act_tanh { inp.gelu().ctx()? } else { inp.gelu_erf().ctx()? };
            h = (&h + l.mo.forward(&(act * gate).ctx()?)?).ctx()?;
            clock.stop(if l.sliding { "modernbert local-attention layers" } else { "modernbert global-attention layers" });
        }
        let clock = stages::clock();
        let h = self.final_norm.forward(&h)?;
        let e = self.proj.forward(&h)?;
        let norm = e.sqr().ctx()?.sum_keepdim(1).ctx()?.sqrt().ctx()?.clamp(1e-12f32, f32::MAX).ctx()?;
        let out = e.broadcast_div(&norm).ctx()?.flatten_all().ctx()?.to_vec1::<f32>().ctx();
        clock.stop("projection");
        out
    }
}

/// The sliding window's additive mask `[len, len]` on `device`: 0 where |i − j| ≤ window, −∞
/// elsewhere.
fn window_mask(len: usize, window: usize, device: &Device) -> Result<Tensor> {
    let mask: Vec<f32> = (0..len * len).map(|x| if (x / len).abs_diff(x % len) > window { f32::NEG_INFINITY } else { 0.0 }).collect();
    Tensor::from_vec(mask, (len, len), device).ctx()
}

/// `softmax(q kᵀ / √hd) v` from candle's ops, for `q, k, v` `[batch, len, heads × hd]`; with
/// `mask` ([`window_mask`]), token i sees only tokens j within the sliding window. The
/// device-generic counterpart of [`lens_ml::attention::attention`].
fn attention_ops(q: &Tensor, k: &Tensor, v: &Tensor, heads: usize, hd: usize, mask: Option<&Tensor>, half: bool) -> Result<Tensor> {
    let (b, len, hidden) = q.dims3().ctx()?;
    // with `half`, the two products in bf16; the scores, mask and softmax in f32
    let dt = if half { DType::BF16 } else { DType::F32 };
    let split = |t: &Tensor| -> Result<Tensor> { t.reshape((b, len, heads, hd)).ctx()?.transpose(1, 2).ctx()?.contiguous().ctx()?.to_dtype(dt).ctx() };
    let (q, k, v) = (split(q)?, split(k)?, split(v)?);
    let mut s = (q.matmul(&k.t().ctx()?).ctx()?.to_dtype(DType::F32).ctx()? * (hd as f64).powf(-0.5)).ctx()?;
    if let Some(m) = mask {
        s = s.broadcast_add(m).ctx()?;
    }
    let p = candle_nn::ops::softmax_last_dim(&s).ctx()?;
    p.to_dtype(dt).ctx()?.matmul(&v).ctx()?.to_dtype(DType::F32).ctx()?.transpose(1, 2).ctx()?.contiguous().ctx()?.reshape((b, len, hidden)).ctx()
}

/// Rotary embedding in the half-split layout from candle's ops, for `x` `[len, heads × hd]` and
/// `cos`, `sin` `[len, hd]` (the counterpart of [`kernels::rope`]).
fn rope_ops(x: &Tensor, heads: usize, hd: usize, cos: &Tensor, sin: &Tensor) -> Result<Tensor> {
    let len = x.dims()[0];
    let x = x.reshape((len, heads, hd)).ctx()?;
    let half = hd / 2;
    let (a, b) = (x.narrow(2, 0, half).ctx()?, x.narrow(2, half, half).ctx()?);
    let rot = Tensor::cat(&[&b.neg().ctx()?, &a], 2).ctx()?;
    let (c, s) = (cos.unsqueeze(1).ctx()?, sin.unsqueeze(1).ctx()?);
    (x.broadcast_mul(&c).ctx()? + rot.broadcast_mul(&s).ctx()?).ctx()?.reshape((len, heads * hd)).ctx()
}
