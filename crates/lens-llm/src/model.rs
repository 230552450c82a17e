//! The Qwen2 / Qwen3 decoder, on the CPU: loading (GGUF or safetensors), the forward pass with
//! a KV cache, and greedy generation.
//!
//! Weights are read with candle (its GGUF reader; its safetensors reader takes f32/f16/bf16)
//! and held in one of two forms:
//! - `q8` (the default): GGUF blocks as stored for the types with a kernel ([`crate::blocks`]:
//!   Q8_0, Q5_0, Q4_K, Q5_K, Q6_K), any other weight quantised to Q8_0 at load;
//! - `f32`: as read, for the reference-parity tests and for users who want exact weights.
//!
//! The forward pass is written out here rather than taken from candle-transformers'
//! `quantized_qwen2`, whose CPU quantised matmul is compiled for the build's target features
//! only (7.4 prompt tokens/s in a default release build on the 2-core machines): the block
//! kernels here pick AVX-512 VNNI / AVX2 at run time, and attention goes through `gemm`, which
//! does the same. The maths follows the reference (Hugging Face `Qwen2ForCausalLM` /
//! `Qwen3ForCausalLM`): RMSNorm, rotary embeddings in the half-split layout, grouped-query
//! attention (Qwen3: RMSNorm on each head's queries and keys), SwiGLU MLP.

use crate::blocks::{Kind, QMatrix};
use crate::weights::{open_safetensors, to_vec, GgufSource, Loaded, Source};
pub use crate::weights::{Arch, Config, LayerKind, LinearConfig};
use candle_core::quantized::gguf_file;
use candle_core::DType;
use lens_core::error::{LensError, Result};
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// How weights are held in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    F32,
    Q8,
}

/// A weight matrix `[rows][cols]` in one of the two forms.
pub enum Weight {
    F32 {
        w: Vec<f32>,
        rows: usize,
        cols: usize,
    },
    /// GGUF blocks as stored ([`crate::blocks`]), or Q8_0 made at load (the generic path).
    Q(QMatrix),
}

impl Weight {
    fn bytes(&self) -> usize {
        match self {
            Weight::F32 { w, .. } => w.len() * 4,
            Weight::Q(m) => m.bytes(),
        }
    }

    fn row(&self, r: usize) -> Vec<f32> {
        match self {
            Weight::F32 { w, cols, .. } => w[r * cols..(r + 1) * cols].to_vec(),
            Weight::Q(m) => m.row(r),
        }
    }

    /// `x [n][cols] · selfᵀ → [n][rows]`.
    fn matmul(&self, x: &[f32], n: usize) -> Vec<f32> {
        match self {
            Weight::F32 { w, rows, cols } => {
                let mut out = vec![0f32; n * rows];
                lens_ml::sgemm(n, *rows, *cols, x, (*cols as isize, 1), w, (1, *cols as isize), &mut out, (*rows as isize, 1), true);
                out
            }
            Weight::Q(m) => m.matmul(x, n),
        }
    }
}

struct Linear {
    w: Arc<Weight>,
    b: Option<Vec<f32>>,
}

impl Linear {
    fn forward(&self, x: &[f32], n: usize) -> Vec<f32> {
        let mut y = self.w.matmul(x, n);
        if let Some(b) = &self.b {
            for row in y.chunks_mut(b.len()) {
                row.iter_mut().zip(b).for_each(|(v, bi)| *v += bi);
            }
        }
        y
    }
}

/// A full-attention mixer (Qwen3.5: with an output gate from the query projection).
struct Attention {
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    q_norm: Option<Vec<f32>>,
    k_norm: Option<Vec<f32>>,
    /// The query projection also yields a per-channel output gate (`sigmoid`).
    gated: bool,
}

/// A Gated DeltaNet mixer (Qwen3.5's linear attention): see [`crate::delta`].
struct DeltaNet {
    qkv: Linear,
    z: Linear,
    b: Linear,
    a: Linear,
    out: Linear,
    /// Depthwise causal convolution over the q, k, v channels: `[channel][tap]`.
    conv: Vec<f32>,
    /// `-exp(A_log)` per value head.
    neg_a: Vec<f32>,
    dt_bias: Vec<f32>,
    /// The gated RMSNorm's weight, over one value head.
    norm: Vec<f32>,
}

enum Mixer {
    Attention(Attention),
    Delta(DeltaNet),
}

struct Layer {
    attn_norm: Vec<f32>,
    mixer: Mixer,
    ffn_norm: Vec<f32>,
    gate: Linear,
    up: Linear,
    down: Linear,
}

/// What a layer remembers of the tokens seen so far.
enum LayerCache {
    /// Keys and values: `[kv head]` → `[position][head_dim]`.
    Kv { k: Vec<Vec<f32>>, v: Vec<Vec<f32>> },
    /// The last `kernel - 1` convolution inputs `[tap][channel]`, and the delta rule's state
    /// per value head `[head][dk][dv]`.
    Delta { conv: Vec<f32>, state: Vec<f32> },
}

/// The model's memory of a sequence: one entry per layer.
pub struct Cache {
    layers: Vec<LayerCache>,
    pub len: usize,
}

pub struct Model {
    pub cfg: Config,
    pub precision: Precision,
    pub file: PathBuf,
    embed: Arc<Weight>,
    layers: Vec<Layer>,
    norm: Vec<f32>,
    output: Linear,
    inv_freq: Vec<f32>,
    pool: rayon::ThreadPool,
    /// Tokens per chunk of the delta rule's prefill form.
    pub delta_chunk: usize,
    /// On a GPU: the device-generic pass ([`crate::gpu`]) and the device's name; the CPU
    /// weights above are then empty.
    gpu: Option<(Arc<crate::gpu::CandleQwen>, String)>,
}

/// A `[rows][cols]` weight from a tensor: a GGUF block type with a kernel is kept as stored;
/// anything else is quantised to Q8_0 a slab of rows at a time (the generic path), so that a
/// large matrix (the embeddings) is never held twice in f32.
fn weight_of(t: &Loaded, rows: usize, cols: usize, p: Precision, what: &str) -> Result<Weight> {
    if p == Precision::F32 || !cols.is_multiple_of(crate::blocks::BLOCK) {
        return Ok(Weight::F32 { w: to_vec(t, what)?, rows, cols });
    }
    if let Loaded::Quant(q) = t {
        if let Some(kind) = Kind::of(q.dtype()).filter(|k| cols.is_multiple_of(k.block_cols())) {
            let data = q.data().map_err(|e| LensError::Model(format!("{what}: {e}")))?.into_owned();
            return QMatrix::from_bytes(kind, rows, cols, data).map(Weight::Q).map_err(|e| LensError::Model(format!("{what}: {e}")));
        }
    }
    const SLAB: usize = 8192;
    let mut parts = Vec::new();
    for r0 in (0..rows).step_by(SLAB) {
        let n = SLAB.min(rows - r0);
        let v = t.rows(r0, n).and_then(|t| t.flatten_all()).and_then(|t| t.to_vec1::<f32>()).map_err(|e| LensError::Model(format!("{what}: {e}")))?;
        parts.push(QMatrix::quantize_q8_0(&v, n, cols));
    }
    Ok(Weight::Q(QMatrix::stack(parts)))
}

/// Rotary embedding over the first `2 * half` dimensions of each head (half-split layout).
struct Rope<'a> {
    cos: &'a [f32],
    sin: &'a [f32],
    half: usize,
    head_dim: usize,
}

impl Rope<'_> {
    fn apply(&self, v: &mut [f32], n: usize, heads: usize) {
        let (half, hd) = (self.half, self.head_dim);
        for i in 0..n {
            for hh in 0..heads {
                let s = &mut v[(i * heads + hh) * hd..(i * heads + hh + 1) * hd];
                for j in 0..half {
                    let (a, b) = (s[j], s[j + half]);
                    let (co, si) = (self.cos[i * half + j], self.sin[i * half + j]);
                    s[j] = a * co - b * si;
                    s[j + half] = b * co + a * si;
                }
            }
        }
    }
}

fn rms_norm(x: &mut [f32], w: &[f32], eps: f32) {
    let d = w.len();
    for row in x.chunks_mut(d) {
        let ms = row.iter().map(|v| v * v).sum::<f32>() / d as f32;
        let s = 1.0 / (ms + eps).sqrt();
        row.iter_mut().zip(w).for_each(|(v, wi)| *v = *v * s * wi);
    }
}

/// What one generation did: token counts, seconds, and speeds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GenStats {
    pub prompt_tokens: usize,
    pub new_tokens: usize,
    pub prefill_s: f64,
    pub decode_s: f64,
}

impl GenStats {
    pub fn prefill_tps(&self) -> f64 {
        self.prompt_tokens as f64 / self.prefill_s.max(1e-9)
    }
    pub fn decode_tps(&self) -> f64 {
        // the first new token comes from the prefill's logits
        self.new_tokens.saturating_sub(1) as f64 / self.decode_s.max(1e-9)
    }
}

/// Prompt tokens run through the model per forward call: bounds the activations' memory and
/// lets a cancelled answer stop mid-prefill. With the bf16 GEMM (AMX, AVX-512 BF16) each call dequantises
/// every weight once, so its chunks are longer (about a second of prefill either way).
pub fn prefill_chunk() -> usize {
    if lens_ml::bf16::kernel().is_some() {
        1024
    } else {
        256
    }
}

impl Model {
    /// Load a `.gguf` file (tokenizer built separately from the same metadata).
    pub fn load_gguf(path: &Path, ct: &gguf_file::Content, precision: Precision, threads: usize) -> Result<Model> {
        let cfg = Config::from_gguf(ct, path)?;
        let file = std::fs::File::open(path).map_err(|e| LensError::io(path, e))?;
        let mut src = GgufSource { ct, file, path };
        Model::build(cfg, &mut src, path, precision, threads)
    }

    /// Load a Hugging Face directory: `config.json` and `*.safetensors`.
    pub fn load_safetensors(dir: &Path, precision: Precision, threads: usize) -> Result<Model> {
        let (cfg, mut src) = open_safetensors(dir)?;
        Model::build(cfg, &mut src, dir, precision, threads)
    }

    fn build(cfg: Config, src: &mut dyn Source, file: &Path, precision: Precision, threads: usize) -> Result<Model> {
        cfg.check(file)?;
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().map_err(|e| LensError::Model(e.to_string()))?;
        let need = |src: &mut dyn Source, name: &str, shape: &[usize]| -> Result<Loaded> {
            let t = src.get(name)?.ok_or_else(|| LensError::Model(format!("{}: tensor {name} is missing", file.display())))?;
            if t.dims() != shape {
                return Err(LensError::Model(format!("{}: tensor {name} has shape {:?}, the config says {shape:?}", file.display(), t.dims())));
            }
            Ok(t)
        };
        let what = |name: &str| format!("{}: {name}", file.display());
        let vector = |src: &mut dyn Source, name: &str, len: usize| -> Result<Vec<f32>> { to_vec(&need(src, name, &[len])?, &what(name)) };
        // Qwen3.5's RMSNorms scale by (1 + w): folded into the weights here
        let plus_one = cfg.arch == Arch::Qwen35;
        let norm_w = |src: &mut dyn Source, name: &str, len: usize| -> Result<Vec<f32>> {
            let mut v = vector(src, name, len)?;
            if plus_one {
                v.iter_mut().for_each(|x| *x += 1.0);
            }
            Ok(v)
        };
        let lin = |src: &mut dyn Source, name: &str, rows: usize, cols: usize, bias: bool| -> Result<Linear> {
            let wname = format!("{name}.weight");
            let w = weight_of(&need(src, &wname, &[rows, cols])?, rows, cols, precision, &what(&wname))?;
            let b = if bias {
                let bname = format!("{name}.bias");
                src.get(&bname)?.map(|t| to_vec(&t, &what(&bname))).transpose()?
            } else {
                None
            };
            Ok(Linear { w: Arc::new(w), b })
        };
        let (h, hd) = (cfg.hidden, cfg.head_dim);
        let (qd, kvd) = (cfg.heads * hd, cfg.kv_heads * hd);
        let embed = Arc::new(weight_of(&need(src, "token_embd.weight", &[cfg.vocab, h])?, cfg.vocab, h, precision, &what("token_embd.weight"))?);
        let mut layers = Vec::with_capacity(cfg.layers);
        for (i, kind) in cfg.layer_kinds.iter().enumerate() {
            let p = format!("blk.{i}");
            let mixer = match kind {
                LayerKind::FullAttention => {
                    let normed = cfg.arch != Arch::Qwen2;
                    let gated = cfg.arch == Arch::Qwen35;
                    Mixer::Attention(Attention {
                        q: lin(src, &format!("{p}.attn_q"), if gated { 2 * qd } else { qd }, h, true)?,
                        k: lin(src, &format!("{p}.attn_k"), kvd, h, true)?,
                        v: lin(src, &format!("{p}.attn_v"), kvd, h, true)?,
                        o: lin(src, &format!("{p}.attn_output"), h, qd, false)?,
                        q_norm: if normed { Some(norm_w(src, &format!("{p}.attn_q_norm.weight"), hd)?) } else { None },
                        k_norm: if normed { Some(norm_w(src, &format!("{p}.attn_k_norm.weight"), hd)?) } else { None },
                        gated,
                    })
                }
                LayerKind::LinearAttention => {
                    let lc = cfg.linear.as_ref().ok_or_else(|| LensError::Model(format!("{}: linear-attention layers without their shape", file.display())))?;
                    let (kd, vd) = (lc.k_heads * lc.k_dim, lc.v_heads * lc.v_dim);
                    let conv_ch = 2 * kd + vd;
                    let la = format!("{p}.linear_attn");
                    let conv_name = format!("{la}.conv1d.weight");
                    let conv = to_vec(&need(src, &conv_name, &[conv_ch, 1, lc.conv_kernel])?, &what(&conv_name))?;
                    let a_log = vector(src, &format!("{la}.A_log"), lc.v_heads)?;
                    Mixer::Delta(DeltaNet {
                        qkv: lin(src, &format!("{la}.in_proj_qkv"), conv_ch, h, false)?,
                        z: lin(src, &format!("{la}.in_proj_z"), vd, h, false)?,
                        b: lin(src, &format!("{la}.in_proj_b"), lc.v_heads, h, false)?,
                        a: lin(src, &format!("{la}.in_proj_a"), lc.v_heads, h, false)?,
                        out: lin(src, &format!("{la}.out_proj"), h, vd, false)?,
                        conv,
                        neg_a: a_log.iter().map(|x| -x.exp()).collect(),
                        dt_bias: vector(src, &format!("{la}.dt_bias"), lc.v_heads)?,
                        norm: vector(src, &format!("{la}.norm.weight"), lc.v_dim)?,
                    })
                }
            };
            layers.push(Layer {
                attn_norm: norm_w(src, &format!("{p}.attn_norm.weight"), h)?,
                mixer,
                ffn_norm: norm_w(src, &format!("{p}.ffn_norm.weight"), h)?,
                gate: lin(src, &format!("{p}.ffn_gate"), cfg.intermediate, h, false)?,
                up: lin(src, &format!("{p}.ffn_up"), cfg.intermediate, h, false)?,
                down: lin(src, &format!("{p}.ffn_down"), h, cfg.intermediate, false)?,
            });
        }
        let norm = norm_w(src, "output_norm.weight", h)?;
        let output = match src.get("output.weight")? {
            Some(t) if !cfg.tie_embeddings || t.dims() == [cfg.vocab, h] => {
                if t.dims() != [cfg.vocab, h] {
                    return Err(LensError::Model(format!("{}: output.weight has shape {:?}", file.display(), t.dims())));
                }
                Linear { w: Arc::new(weight_of(&t, cfg.vocab, h, precision, &what("output.weight"))?), b: None }
            }
            _ => Linear { w: embed.clone(), b: None },
        };
        let rot = cfg.rotary_dim;
        let inv_freq = (0..rot / 2).map(|i| 1.0 / cfg.rope_theta.powf(2.0 * i as f32 / rot as f32)).collect();
        Ok(Model { cfg, precision, file: file.to_path_buf(), embed, layers, norm, output, inv_freq, pool, delta_chunk: 64, gpu: None })
    }

    /// A GGUF model on a GPU (or any candle device): its config from the file, its weights on
    /// the device ([`crate::gpu::CandleQwen`]), none held here.
    pub fn load_gguf_on(path: &Path, ct: gguf_file::Content, device: &crate::device::Selected) -> Result<Model> {
        let cfg = Config::from_gguf(&ct, path)?;
        cfg.check(path)?;
        let g = crate::gpu::CandleQwen::load(path, ct, &device.device)?;
        Model::on_device(cfg, path, g, &device.name)
    }

    /// A model folder (Qwen2, Qwen3, Qwen3.5) on a GPU or any candle device, through the
    /// device-generic pass ([`crate::folder_pass`]): bf16 matrices on a GPU, f32 on the CPU
    /// device, or `dtype`.
    pub fn load_safetensors_on(dir: &Path, device: &crate::device::Selected, dtype: Option<DType>) -> Result<Model> {
        let (g, cfg) = crate::gpu::CandleQwen::load_folder(dir, &device.device, dtype)?;
        Model::on_device(cfg, dir, g, &device.name)
    }

    fn on_device(cfg: Config, path: &Path, g: crate::gpu::CandleQwen, name: &str) -> Result<Model> {
        let empty = Arc::new(Weight::F32 { w: Vec::new(), rows: 0, cols: 0 });
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| LensError::Model(e.to_string()))?;
        Ok(Model {
            cfg,
            precision: Precision::Q8,
            file: path.to_path_buf(),
            embed: empty.clone(),
            layers: Vec::new(),
            norm: Vec::new(),
            output: Linear { w: empty, b: None },
            inv_freq: Vec::new(),
            pool,
            delta_chunk: 64,
            gpu: Some((Arc::new(g), name.to_string())),
        })
    }

    /// Tokens per chunk of the delta rule's prefill form, on the CPU kernels or the device pass.
    pub fn set_delta_chunk(&mut self, chunk: usize) {
        self.delta_chunk = chunk;
        if let Some((g, _)) = &self.gpu {
            g.set_delta_chunk(chunk);
        }
    }

    /// The GPU this model runs on (`cuda:0`), `None` on the CPU kernels.
    pub fn gpu_name(&self) -> Option<&str> {
        self.gpu.as_ref().map(|(_, n)| n.as_str())
    }

    /// How the weights are held on the GPU (`bf16 matrices`, `quantised weights as stored`).
    pub fn gpu_form(&self) -> Option<String> {
        self.gpu.as_ref().map(|(g, _)| g.form())
    }

    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Bytes the weights take in memory.
    pub fn weight_bytes(&self) -> usize {
        if let Some((g, _)) = &self.gpu {
            return g.bytes;
        }
        let lin = |l: &Linear| l.w.bytes();
        let l: usize = self
            .layers
            .iter()
            .map(|l| {
                let m = match &l.mixer {
                    Mixer::Attention(a) => lin(&a.q) + lin(&a.k) + lin(&a.v) + lin(&a.o),
                    Mixer::Delta(d) => lin(&d.qkv) + lin(&d.z) + lin(&d.a) + lin(&d.b) + lin(&d.out) + d.conv.len() * 4,
                };
                m + lin(&l.gate) + lin(&l.up) + lin(&l.down)
            })
            .sum();
        let out = if Arc::ptr_eq(&self.output.w, &self.embed) { 0 } else { self.output.w.bytes() };
        l + self.embed.bytes() + out
    }

    pub fn new_cache(&self) -> Cache {
        let layers = self
            .cfg
            .layer_kinds
            .iter()
            .map(|k| match (k, &self.cfg.linear) {
                (LayerKind::LinearAttention, Some(lc)) => {
                    let ch = 2 * lc.k_heads * lc.k_dim + lc.v_heads * lc.v_dim;
                    LayerCache::Delta { conv: vec![0.0; (lc.conv_kernel - 1) * ch], state: vec![0.0; lc.v_heads * lc.k_dim * lc.v_dim] }
                }
                _ => LayerCache::Kv { k: vec![Vec::new(); self.cfg.kv_heads], v: vec![Vec::new(); self.cfg.kv_heads] },
            })
            .collect();
        Cache { layers, len: 0 }
    }

    /// Run `tokens` (at positions `cache.len..`) through the model; the logits of every one of
    /// them (`all`) or of the last.
    pub fn forward(&self, cache: &mut Cache, tokens: &[u32], all: bool) -> Result<Vec<f32>> {
        if tokens.is_empty() {
            return Err(LensError::BadInput("no tokens to run".into()));
        }
        if let Some(t) = tokens.iter().find(|&&t| t as usize >= self.cfg.vocab) {
            return Err(LensError::Model(format!(
                "token id {t} is outside the model's vocabulary ({}): the tokenizer does not match the model",
                self.cfg.vocab
            )));
        }
        if cache.len + tokens.len() > self.cfg.context {
            return Err(LensError::BadInput(format!("{} tokens exceed the model's context of {}", cache.len + tokens.len(), self.cfg.context)));
        }
        if let Some((g, _)) = &self.gpu {
            let logits = g.forward(tokens, cache.len, all)?;
            cache.len += tokens.len();
            return Ok(logits);
        }
        self.pool.install(|| Ok(self.forward_inner(cache, tokens, all)))
    }

    fn forward_inner(&self, cache: &mut Cache, tokens: &[u32], all: bool) -> Vec<f32> {
        let c = &self.cfg;
        let (n, h) = (tokens.len(), c.hidden);
        let pos0 = cache.len;
        let mut x: Vec<f32> = tokens.iter().flat_map(|&t| self.embed.row(t as usize)).collect();
        // rotary tables for these positions
        let half = self.inv_freq.len();
        let (mut cos, mut sin) = (vec![0f32; n * half], vec![0f32; n * half]);
        for i in 0..n {
            for (j, f) in self.inv_freq.iter().enumerate() {
                let a = (pos0 + i) as f32 * f;
                cos[i * half + j] = a.cos();
                sin[i * half + j] = a.sin();
            }
        }
        let rope = Rope { cos: &cos, sin: &sin, half, head_dim: c.head_dim };
        for (l, lc) in self.layers.iter().zip(cache.layers.iter_mut()) {
            let mut t = x.clone();
            rms_norm(&mut t, &l.attn_norm, c.eps);
            let o = match (&l.mixer, lc) {
                (Mixer::Attention(a), LayerCache::Kv { k, v }) => self.attention_layer(a, &t, n, pos0, &rope, k, v),
                (Mixer::Delta(d), LayerCache::Delta { conv, state }) => self.delta_layer(d, &t, n, conv, state),
                _ => unreachable!("the cache is built from the same layer kinds"),
            };
            x.iter_mut().zip(&o).for_each(|(a, b)| *a += b);
            let mut t = x.clone();
            rms_norm(&mut t, &l.ffn_norm, c.eps);
            let g = l.gate.forward(&t, n);
            let u = l.up.forward(&t, n);
            let a = lens_ml::math::silu_mul(&g, &u);
            let d = l.down.forward(&a, n);
            x.iter_mut().zip(&d).for_each(|(a, b)| *a += b);
        }
        cache.len += n;
        let rows = if all { n } else { 1 };
        let mut last = x[(n - rows) * h..].to_vec();
        rms_norm(&mut last, &self.norm, c.eps);
        self.output.forward(&last, rows)
    }

    #[allow(clippy::too_many_arguments)]
    fn attention_layer(&self, a: &Attention, t: &[f32], n: usize, pos0: usize, rope: &Rope, kc: &mut [Vec<f32>], vc: &mut [Vec<f32>]) -> Vec<f32> {
        let c = &self.cfg;
        let hd = c.head_dim;
        let qg = a.q.forward(t, n);
        // Qwen3.5: each head's projection is [query | gate]
        let (mut q, gate) = if a.gated {
            let (mut q, mut g) = (Vec::with_capacity(n * c.heads * hd), Vec::with_capacity(n * c.heads * hd));
            for chunk in qg.chunks(2 * hd) {
                q.extend_from_slice(&chunk[..hd]);
                g.extend_from_slice(&chunk[hd..]);
            }
            (q, Some(g))
        } else {
            (qg, None)
        };
        let mut k = a.k.forward(t, n);
        let v = a.v.forward(t, n);
        if let (Some(qn), Some(kn)) = (&a.q_norm, &a.k_norm) {
            rms_norm(&mut q, qn, c.eps);
            rms_norm(&mut k, kn, c.eps);
        }
        rope.apply(&mut q, n, c.heads);
        rope.apply(&mut k, n, c.kv_heads);
        for i in 0..n {
            for kh in 0..c.kv_heads {
                let at = (i * c.kv_heads + kh) * hd;
                kc[kh].extend_from_slice(&k[at..at + hd]);
                vc[kh].extend_from_slice(&v[at..at + hd]);
            }
        }
        let mut att = self.attention(&q, kc, vc, n, pos0);
        if let Some(g) = gate {
            att.iter_mut().zip(&g).for_each(|(x, g)| *x *= 1.0 / (1.0 + (-g).exp()));
        }
        a.o.forward(&att, n)
    }

    /// A Gated DeltaNet layer over `n` tokens: projections, causal depthwise convolution (its
    /// last inputs kept in `conv`), the delta rule per value head (chunked for several tokens,
    /// recurrent for one), the gated RMSNorm, and the output projection.
    fn delta_layer(&self, d: &DeltaNet, t: &[f32], n: usize, conv_state: &mut Vec<f32>, state: &mut [f32]) -> Vec<f32> {
        let lc = self.cfg.linear.as_ref().expect("linear layers have their shape");
        let (nk, nv, dk, dv, kern) = (lc.k_heads, lc.v_heads, lc.k_dim, lc.v_dim, lc.conv_kernel);
        let (kd, vd) = (nk * dk, nv * dv);
        let ch = 2 * kd + vd;
        let qkv = d.qkv.forward(t, n);
        let z = d.z.forward(t, n);
        let b = d.b.forward(t, n);
        let a = d.a.forward(t, n);
        // the convolution reads the kept inputs, then these
        let mut ext = std::mem::take(conv_state);
        ext.extend_from_slice(&qkv);
        let mut mixed = vec![0f32; n * ch];
        for i in 0..n {
            for c in 0..ch {
                let mut s = 0f32;
                for j in 0..kern {
                    s += d.conv[c * kern + j] * ext[(i + j) * ch + c];
                }
                mixed[i * ch + c] = lens_ml::math::silu(s);
            }
        }
        *conv_state = ext[n * ch..].to_vec();
        // split per head and normalise
        let (mut q, mut k, mut v) = (vec![0f32; n * kd], vec![0f32; n * kd], vec![0f32; n * vd]);
        for i in 0..n {
            let row = &mixed[i * ch..(i + 1) * ch];
            q[i * kd..(i + 1) * kd].copy_from_slice(&row[..kd]);
            k[i * kd..(i + 1) * kd].copy_from_slice(&row[kd..2 * kd]);
            v[i * vd..(i + 1) * vd].copy_from_slice(&row[2 * kd..]);
        }
        crate::delta::l2norm(&mut q, dk);
        crate::delta::l2norm(&mut k, dk);
        let scale = 1.0 / (dk as f32).sqrt();
        q.iter_mut().for_each(|x| *x *= scale);
        let softplus = |x: f32| if x > 20.0 { x } else { x.exp().ln_1p() };
        let chunk = self.delta_chunk;
        let per_k = nv / nk;
        let outs: Vec<Vec<f32>> = state
            .par_chunks_mut(dk * dv)
            .enumerate()
            .map(|(hv, s)| {
                let kh = hv / per_k;
                let gather = |src: &[f32], width: usize, head: usize, dim: usize| -> Vec<f32> {
                    (0..n).flat_map(|i| src[i * width + head * dim..i * width + (head + 1) * dim].iter().copied()).collect()
                };
                let (qh, kh_, vh) = (gather(&q, kd, kh, dk), gather(&k, kd, kh, dk), gather(&v, vd, hv, dv));
                let g: Vec<f32> = (0..n).map(|i| d.neg_a[hv] * softplus(a[i * nv + hv] + d.dt_bias[hv])).collect();
                let beta: Vec<f32> = (0..n).map(|i| 1.0 / (1.0 + (-b[i * nv + hv]).exp())).collect();
                let mut o = vec![0f32; n * dv];
                if n == 1 {
                    crate::delta::recurrent(&qh, &kh_, &vh, &g, &beta, s, dk, dv, &mut o);
                } else {
                    crate::delta::chunked(&qh, &kh_, &vh, &g, &beta, s, dk, dv, &mut o, chunk);
                }
                o
            })
            .collect();
        // gated RMSNorm per head: norm(o) * w * silu(z)
        let mut out = vec![0f32; n * vd];
        for (hv, o) in outs.iter().enumerate() {
            for i in 0..n {
                let src = &o[i * dv..(i + 1) * dv];
                let ms = src.iter().map(|x| x * x).sum::<f32>() / dv as f32;
                let r = 1.0 / (ms + self.cfg.eps).sqrt();
                let at = i * vd + hv * dv;
                for j in 0..dv {
                    out[at + j] = src[j] * r * d.norm[j] * lens_ml::math::silu(z[at + j]);
                }
            }
        }
        d.out.forward(&out, n)
    }

    /// Causal grouped-query attention of `n` new queries over the cache (which already holds
    /// them): per head and block of queries, scores by one GEMM, softmax, values by another.
    fn attention(&self, q: &[f32], kc: &[Vec<f32>], vc: &[Vec<f32>], n: usize, pos0: usize) -> Vec<f32> {
        let c = &self.cfg;
        let (hd, heads) = (c.head_dim, c.heads);
        let group = heads / c.kv_heads;
        let scale = 1.0 / (hd as f32).sqrt();
        // queries in blocks, each against the keys it may see (the causal mask's upper
        // triangle is never computed)
        const QBLOCK: usize = 128;
        // a prompt long enough for the bf16 GEMM takes it here too (scores and values)
        // (not for Precision::F32, which is f32 throughout)
        let bf16 = lens_ml::bf16::kernel().filter(|_| n >= crate::blocks::BF16_ROWS && self.precision != Precision::F32);
        let per_head: Vec<Vec<f32>> = (0..heads)
            .into_par_iter()
            .map(|hh| {
                let (kh, vh) = (&kc[hh / group], &vc[hh / group]);
                let mut o = vec![0f32; n * hd];
                let mut s = Vec::new();
                for i0 in (0..n).step_by(QBLOCK) {
                    let bn = QBLOCK.min(n - i0);
                    let cols = pos0 + i0 + bn;
                    s.clear();
                    s.resize(bn * cols, 0f32);
                    // q_h: rows i at q[(i*heads + hh)*hd ..], row stride heads*hd
                    match bf16 {
                        Some(b) => {
                            let qh: Vec<f32> = (0..bn).flat_map(|i| q[((i0 + i) * heads + hh) * hd..][..hd].iter().copied()).collect();
                            let kp = lens_ml::bf16::Packed::from_columns(cols, hd, |j, dst| dst.copy_from_slice(&kh[j * hd..(j + 1) * hd]));
                            lens_ml::bf16::matmul(b, &qh, bn, &kp, None, &mut s);
                        }
                        None => lens_ml::sgemm(
                            bn,
                            cols,
                            hd,
                            &q[(i0 * heads + hh) * hd..],
                            ((heads * hd) as isize, 1),
                            kh,
                            (1, hd as isize),
                            &mut s,
                            (cols as isize, 1),
                            false,
                        ),
                    }
                    for i in 0..bn {
                        let row = &mut s[i * cols..(i + 1) * cols];
                        let seen = pos0 + i0 + i + 1;
                        lens_ml::math::softmax(&mut row[..seen], scale);
                        row[seen..].iter_mut().for_each(|v| *v = 0.0);
                    }
                    match bf16 {
                        Some(b) => {
                            let vp = lens_ml::bf16::Packed::from_columns(hd, cols, |j, dst| {
                                for (i, d) in dst.iter_mut().enumerate() {
                                    *d = vh[i * hd + j];
                                }
                            });
                            lens_ml::bf16::matmul(b, &s, bn, &vp, None, &mut o[i0 * hd..(i0 + bn) * hd]);
                        }
                        None => lens_ml::sgemm(bn, hd, cols, &s, (cols as isize, 1), vh, (hd as isize, 1), &mut o[i0 * hd..], (hd as isize, 1), false),
                    }
                }
                o
            })
            .collect();
        let mut out = vec![0f32; n * heads * hd];
        for (hh, o) in per_head.iter().enumerate() {
            for i in 0..n {
                out[(i * heads + hh) * hd..(i * heads + hh + 1) * hd].copy_from_slice(&o[i * hd..(i + 1) * hd]);
            }
        }
        out
    }

    /// Greedy generation: the prompt in chunks, then one token at a time until a stop token or
    /// `max_new`. `on_token` gets each new token and returns false to stop; `keep_going` is
    /// asked between prompt chunks (a cancelled answer stops mid-prefill).
    pub fn generate(
        &self,
        prompt: &[u32],
        max_new: usize,
        stop: &[u32],
        keep_going: &mut dyn FnMut() -> bool,
        on_token: &mut dyn FnMut(u32) -> bool,
    ) -> Result<(Vec<u32>, GenStats)> {
        let mut cache = self.new_cache();
        self.generate_in(&mut cache, prompt, max_new, stop, keep_going, on_token)
    }

    /// [`Model::generate`] on a cache that may already hold a conversation: `prompt` continues
    /// it. Every token generated but a stop token is left in the cache, so a reply can be
    /// continued with forced text (the answerer asks for the `Pages:` line a model left out).
    pub fn generate_in(
        &self,
        cache: &mut Cache,
        prompt: &[u32],
        max_new: usize,
        stop: &[u32],
        keep_going: &mut dyn FnMut() -> bool,
        on_token: &mut dyn FnMut(u32) -> bool,
    ) -> Result<(Vec<u32>, GenStats)> {
        let mut stats = GenStats { prompt_tokens: prompt.len(), ..Default::default() };
        let t0 = Instant::now();
        let mut logits = Vec::new();
        for chunk in prompt.chunks(prefill_chunk()) {
            if !keep_going() {
                return Err(LensError::Cancelled);
            }
            logits = self.forward(cache, chunk, false)?;
        }
        stats.prefill_s = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let mut out = Vec::new();
        while out.len() < max_new && !logits.is_empty() {
            let next = argmax(&logits);
            out.push(next);
            stats.new_tokens = out.len();
            if stop.contains(&next) || !on_token(next) || cache.len + 1 > self.cfg.context {
                break;
            }
            logits = self.forward(cache, &[next], false)?;
        }
        stats.decode_s = t1.elapsed().as_secs_f64();
        Ok((out, stats))
    }
}

/// How far two models (the same weights on two devices or kernels) agree on one prompt.
#[derive(Debug, Clone, Serialize)]
pub struct Agreement {
    /// Largest |Δ| between the last position's logits, and the largest |logit| of `a`.
    pub max_diff: f32,
    pub scale: f32,
    /// Of `greedy` tokens generated by each, how many agree before the first that does not.
    pub greedy_same: usize,
    pub greedy: usize,
}

/// Run `prompt` through both models: the last position's logits side by side, then `greedy`
/// tokens each (what `lens bench llm` prints for a GPU against the CPU kernels).
pub fn agreement(a: &Model, b: &Model, prompt: &[u32], greedy: usize) -> Result<Agreement> {
    let la = a.forward(&mut a.new_cache(), prompt, false)?;
    let lb = b.forward(&mut b.new_cache(), prompt, false)?;
    let max_diff = la.iter().zip(&lb).fold(0f32, |m, (x, y)| m.max((x - y).abs()));
    let scale = la.iter().fold(0f32, |m, x| m.max(x.abs()));
    let run = |m: &Model| m.generate(prompt, greedy, &[], &mut || true, &mut |_| true).map(|(t, _)| t);
    let (ga, gb) = (run(a)?, run(b)?);
    let greedy_same = ga.iter().zip(&gb).take_while(|(x, y)| x == y).count();
    Ok(Agreement { max_diff, scale, greedy_same, greedy: ga.len().min(gb.len()) })
}

pub fn argmax(v: &[f32]) -> u32 {
    let mut best = 0;
    for (i, x) in v.iter().enumerate() {
        if *x > v[best] {
            best = i;
        }
    }
    best as u32
}

/// Config and tensor names of a GGUF file, read without loading the weights.
pub fn read_gguf(path: &Path) -> Result<gguf_file::Content> {
    let mut f = std::fs::File::open(path).map_err(|e| LensError::io(path, e))?;
    gguf_file::Content::read(&mut f).map_err(|e| LensError::Model(format!("{}: not a readable GGUF file: {e}", path.display())))
}
