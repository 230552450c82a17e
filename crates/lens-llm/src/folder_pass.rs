//! The device-generic forward pass for a model folder (`config.json` + `*.safetensors`):
//! Qwen2, Qwen3 and Qwen3.5 from candle's ops, so that the same code runs on CUDA, Metal or
//! candle's CPU device. The CPU keeps this crate's own kernels ([`crate::model`]); the parity
//! tests run this pass on candle's CPU device against the transformers reference, so what a GPU
//! runs is checked on machines without one.
//!
//! The maths is [`crate::model`]'s, written with tensors: RMSNorm (Qwen3.5's `1 + w` folded at
//! load), rotary embeddings over the first `rotary_dim` dimensions (half-split layout),
//! grouped-query attention with a KV cache (Qwen3: per-head q/k norms; Qwen3.5: an output gate
//! from the query projection), SwiGLU. Qwen3.5's Gated DeltaNet layers keep their convolution
//! inputs and delta-rule state per value head, and run the rule in chunks
//! ([`crate::delta`]'s chunked form, all heads at once): within a chunk the unit lower-triangular
//! system `(I + A) T = I` is solved by forward substitution, a row at a time, as the reference
//! does.
//!
//! Matrix products take the weights' dtype (f32 for the parity tests, bf16 on a GPU); the
//! residual stream, norms, softmax and the delta rule stay in f32.

use crate::weights::{Arch, Config, LayerKind, Loaded, Source};
use candle_core::{DType, Device, Tensor, D};
use lens_core::error::{LensError, Result};
use std::path::Path;

type CResult<T> = candle_core::Result<T>;

struct Linear {
    /// `[out][in]` in the pass's dtype.
    w: Tensor,
    /// f32 `[out]`.
    b: Option<Tensor>,
}

impl Linear {
    /// `x [n][in]` (f32) → `[n][out]` (f32).
    fn forward(&self, x: &Tensor) -> CResult<Tensor> {
        let y = x.to_dtype(self.w.dtype())?.matmul(&self.w.t()?)?.to_dtype(DType::F32)?;
        match &self.b {
            Some(b) => y.broadcast_add(b),
            None => Ok(y),
        }
    }
}

struct Attention {
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    q_norm: Option<Tensor>,
    k_norm: Option<Tensor>,
    gated: bool,
}

struct DeltaNet {
    qkv: Linear,
    z: Linear,
    b: Linear,
    a: Linear,
    out: Linear,
    /// The depthwise convolution, `[tap][channel]` (f32).
    conv: Tensor,
    /// `-exp(A_log)`, `[v_heads]`.
    neg_a: Tensor,
    dt_bias: Tensor,
    /// The gated RMSNorm's weight over one value head.
    norm: Tensor,
}

enum Mixer {
    Attention(Attention),
    Delta(DeltaNet),
}

struct Layer {
    attn_norm: Tensor,
    mixer: Mixer,
    ffn_norm: Tensor,
    gate: Linear,
    up: Linear,
    down: Linear,
}

/// What a layer remembers of the sequence so far.
enum LayerState {
    /// `[kv_heads][positions][head_dim]`, in the pass's dtype; none before the first token.
    Kv(Option<(Tensor, Tensor)>),
    /// The last `kernel - 1` convolution inputs `[tap][channel]` and the delta rule's state
    /// `[v_heads][dk][dv]` (f32).
    Delta { conv: Tensor, state: Tensor },
}

pub struct FolderPass {
    cfg: Config,
    device: Device,
    embed: Tensor,
    layers: Vec<Layer>,
    norm: Tensor,
    output: Tensor,
    inv_freq: Tensor,
    /// Tokens per chunk of the delta rule.
    pub chunk: usize,
    state: Vec<LayerState>,
    len: usize,
}

/// Reads tensors by GGUF name from a model folder onto the device.
struct Loader<'a> {
    src: &'a mut dyn Source,
    dir: &'a Path,
    device: &'a Device,
    /// Qwen3.5's RMSNorms scale by `1 + w`: folded in at load.
    plus_one: bool,
}

impl Loader<'_> {
    fn get(&mut self, name: &str, dt: DType) -> Result<Option<Tensor>> {
        let Some(t) = self.src.get(name)? else { return Ok(None) };
        let Loaded::Dense(t) = t else { return Err(LensError::Model(format!("{}: {name}: not a dense tensor", self.dir.display()))) };
        t.to_dtype(dt)
            .and_then(|t| t.to_device(self.device))
            .map(Some)
            .map_err(|e| crate::weights::load_error(format_args!("{}: {name}", self.dir.display()), e))
    }

    fn need(&mut self, name: &str, shape: &[usize], dt: DType) -> Result<Tensor> {
        let t = self.get(name, dt)?.ok_or_else(|| LensError::Model(format!("{}: tensor {name} is missing", self.dir.display())))?;
        if t.dims() != shape {
            return Err(LensError::Model(format!("{}: tensor {name} has shape {:?}, the config says {shape:?}", self.dir.display(), t.dims())));
        }
        Ok(t)
    }

    fn norm(&mut self, name: &str, len: usize) -> Result<Tensor> {
        let w = self.need(name, &[len], DType::F32)?;
        if self.plus_one {
            w.affine(1.0, 1.0).map_err(err)
        } else {
            Ok(w)
        }
    }

    /// `{name}.weight` `[rows][cols]` in `dt`, and `{name}.bias` when asked and present.
    fn lin(&mut self, name: &str, rows: usize, cols: usize, bias: bool, dt: DType) -> Result<Linear> {
        let w = self.need(&format!("{name}.weight"), &[rows, cols], dt)?;
        let b = if bias { self.get(&format!("{name}.bias"), DType::F32)? } else { None };
        if let Some(b) = &b {
            if b.dims() != [rows] {
                return Err(LensError::Model(format!("{}: {name}.bias has shape {:?}, the config says [{rows}]", self.dir.display(), b.dims())));
            }
        }
        Ok(Linear { w, b })
    }
}

fn err(e: candle_core::Error) -> LensError {
    LensError::Model(format!("device forward pass: {e}"))
}

impl FolderPass {
    /// Load a model folder's weights onto `device`, matrices in `dtype` (F32, BF16 or F16).
    pub fn load(dir: &Path, device: &Device, dtype: DType) -> Result<FolderPass> {
        let (cfg, mut src) = crate::weights::open_safetensors(dir)?;
        Self::build(cfg, &mut src, dir, device, dtype)
    }

    fn build(cfg: Config, src: &mut dyn Source, dir: &Path, device: &Device, dtype: DType) -> Result<FolderPass> {
        let mut ld = Loader { src, dir, device, plus_one: cfg.arch == Arch::Qwen35 };
        let (h, hd) = (cfg.hidden, cfg.head_dim);
        let (qd, kvd) = (cfg.heads * hd, cfg.kv_heads * hd);
        let embed = ld.need("token_embd.weight", &[cfg.vocab, h], dtype)?;
        let mut layers = Vec::with_capacity(cfg.layers);
        for (i, kind) in cfg.layer_kinds.iter().enumerate() {
            let p = format!("blk.{i}");
            let mixer = match kind {
                LayerKind::FullAttention => {
                    let normed = cfg.arch != Arch::Qwen2;
                    let gated = cfg.arch == Arch::Qwen35;
                    Mixer::Attention(Attention {
                        q: ld.lin(&format!("{p}.attn_q"), if gated { 2 * qd } else { qd }, h, true, dtype)?,
                        k: ld.lin(&format!("{p}.attn_k"), kvd, h, true, dtype)?,
                        v: ld.lin(&format!("{p}.attn_v"), kvd, h, true, dtype)?,
                        o: ld.lin(&format!("{p}.attn_output"), h, qd, false, dtype)?,
                        q_norm: if normed { Some(ld.norm(&format!("{p}.attn_q_norm.weight"), hd)?) } else { None },
                        k_norm: if normed { Some(ld.norm(&format!("{p}.attn_k_norm.weight"), hd)?) } else { None },
                        gated,
                    })
                }
                LayerKind::LinearAttention => {
                    let lc = cfg.linear.as_ref().ok_or_else(|| LensError::Model(format!("{}: linear-attention layers without their shape", dir.display())))?;
                    let (kd, vd) = (lc.k_heads * lc.k_dim, lc.v_heads * lc.v_dim);
                    let ch = 2 * kd + vd;
                    let la = format!("{p}.linear_attn");
                    let conv = ld.need(&format!("{la}.conv1d.weight"), &[ch, 1, lc.conv_kernel], DType::F32)?;
                    let a_log = ld.need(&format!("{la}.A_log"), &[lc.v_heads], DType::F32)?;
                    Mixer::Delta(DeltaNet {
                        qkv: ld.lin(&format!("{la}.in_proj_qkv"), ch, h, false, dtype)?,
                        z: ld.lin(&format!("{la}.in_proj_z"), vd, h, false, dtype)?,
                        b: ld.lin(&format!("{la}.in_proj_b"), lc.v_heads, h, false, dtype)?,
                        a: ld.lin(&format!("{la}.in_proj_a"), lc.v_heads, h, false, dtype)?,
                        out: ld.lin(&format!("{la}.out_proj"), h, vd, false, dtype)?,
                        conv: conv.reshape((ch, lc.conv_kernel)).and_then(|c| c.t()).and_then(|c| c.contiguous()).map_err(err)?,
                        neg_a: a_log.exp().and_then(|a| a.neg()).map_err(err)?,
                        dt_bias: ld.need(&format!("{la}.dt_bias"), &[lc.v_heads], DType::F32)?,
                        norm: ld.need(&format!("{la}.norm.weight"), &[lc.v_dim], DType::F32)?,
                    })
                }
            };
            layers.push(Layer {
                attn_norm: ld.norm(&format!("{p}.attn_norm.weight"), h)?,
                mixer,
                ffn_norm: ld.norm(&format!("{p}.ffn_norm.weight"), h)?,
                gate: ld.lin(&format!("{p}.ffn_gate"), cfg.intermediate, h, false, dtype)?,
                up: ld.lin(&format!("{p}.ffn_up"), cfg.intermediate, h, false, dtype)?,
                down: ld.lin(&format!("{p}.ffn_down"), h, cfg.intermediate, false, dtype)?,
            });
        }
        let norm = ld.norm("output_norm.weight", h)?;
        // as the CPU kernels do: the output matrix when there is one (and it is not a tied
        // model's odd-shaped leftover), else the embeddings
        let output = match ld.get("output.weight", dtype)? {
            Some(w) if !cfg.tie_embeddings || w.dims() == [cfg.vocab, h] => {
                if w.dims() != [cfg.vocab, h] {
                    return Err(LensError::Model(format!("{}: output.weight has shape {:?}", dir.display(), w.dims())));
                }
                w
            }
            _ => embed.clone(),
        };
        let rot = cfg.rotary_dim;
        let inv: Vec<f32> = (0..rot / 2).map(|i| 1.0 / cfg.rope_theta.powf(2.0 * i as f32 / rot as f32)).collect();
        let inv_freq = Tensor::from_vec(inv, (1, rot / 2), device).map_err(err)?;
        let mut pass = FolderPass { cfg, device: device.clone(), embed, layers, norm, output, inv_freq, chunk: 64, state: Vec::new(), len: 0 };
        pass.reset().map_err(err)?;
        Ok(pass)
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The matrices' dtype.
    pub fn dtype(&self) -> DType {
        self.embed.dtype()
    }

    /// Bytes the weights take on the device.
    pub fn bytes(&self) -> usize {
        let t = |t: &Tensor| t.elem_count() * t.dtype().size_in_bytes();
        let lin = |l: &Linear| t(&l.w);
        let layers: usize = self
            .layers
            .iter()
            .map(|l| {
                let m = match &l.mixer {
                    Mixer::Attention(a) => lin(&a.q) + lin(&a.k) + lin(&a.v) + lin(&a.o),
                    Mixer::Delta(d) => lin(&d.qkv) + lin(&d.z) + lin(&d.a) + lin(&d.b) + lin(&d.out) + t(&d.conv),
                };
                m + lin(&l.gate) + lin(&l.up) + lin(&l.down)
            })
            .sum();
        let out = if self.cfg.tie_embeddings { 0 } else { t(&self.output) };
        layers + t(&self.embed) + out
    }

    /// Forget the sequence: empty KV caches, zero convolution inputs and delta states.
    fn reset(&mut self) -> CResult<()> {
        let mut state = Vec::with_capacity(self.cfg.layers);
        for kind in &self.cfg.layer_kinds {
            state.push(match (kind, &self.cfg.linear) {
                (LayerKind::LinearAttention, Some(lc)) => {
                    let ch = 2 * lc.k_heads * lc.k_dim + lc.v_heads * lc.v_dim;
                    LayerState::Delta {
                        conv: Tensor::zeros((lc.conv_kernel - 1, ch), DType::F32, &self.device)?,
                        state: Tensor::zeros((lc.v_heads, lc.k_dim, lc.v_dim), DType::F32, &self.device)?,
                    }
                }
                _ => LayerState::Kv(None),
            });
        }
        self.state = state;
        self.len = 0;
        Ok(())
    }

    /// The logits (f32, `[rows][vocab]` flattened) of `tokens` run at positions `pos..`: of
    /// every one of them (`all`) or of the last. Position 0 starts a new sequence; any other
    /// must continue the one held.
    pub fn forward(&mut self, tokens: &[u32], pos: usize, all: bool) -> Result<Vec<f32>> {
        if pos == 0 {
            self.reset().map_err(err)?;
        } else if pos != self.len {
            return Err(LensError::Model(format!("the device pass holds {} tokens, asked to continue at {pos}", self.len)));
        }
        let logits = self.forward_inner(tokens, all).map_err(err)?;
        self.len += tokens.len();
        logits.flatten_all().and_then(|l| l.to_vec1::<f32>()).map_err(err)
    }

    fn forward_inner(&mut self, tokens: &[u32], all: bool) -> CResult<Tensor> {
        let n = tokens.len();
        let ids = Tensor::new(tokens, &self.device)?;
        let mut x = self.embed.index_select(&ids, 0)?.to_dtype(DType::F32)?;
        let positions: Vec<f32> = (self.len..self.len + n).map(|p| p as f32).collect();
        let angles = Tensor::from_vec(positions, (n, 1), &self.device)?.broadcast_mul(&self.inv_freq)?;
        // [n][1][half]: broadcast over heads
        let (cos, sin) = (angles.cos()?.unsqueeze(1)?, angles.sin()?.unsqueeze(1)?);
        let eps = self.cfg.eps as f64;
        // the causal mask of these tokens over every position held, made and put on the device
        // once per pass, not once per layer; one token sees every position and needs none
        let mask = if n > 1 {
            let (past, total) = (self.len, self.len + n);
            let m: Vec<f32> = (0..n).flat_map(|i| (0..total).map(move |j| if j <= past + i { 0.0 } else { f32::NEG_INFINITY })).collect();
            Some(Tensor::from_vec(m, (n, total), &self.device)?)
        } else {
            None
        };
        let mut state = std::mem::take(&mut self.state);
        for (l, st) in self.layers.iter().zip(state.iter_mut()) {
            let t = rms_norm(&x, &l.attn_norm, eps)?;
            let o = match (&l.mixer, st) {
                (Mixer::Attention(a), LayerState::Kv(kv)) => self.attention(a, &t, &cos, &sin, mask.as_ref(), kv)?,
                (Mixer::Delta(d), LayerState::Delta { conv, state }) => self.delta(d, &t, conv, state)?,
                _ => candle_core::bail!("a layer's state does not match its kind"),
            };
            x = (x + o)?;
            let t = rms_norm(&x, &l.ffn_norm, eps)?;
            let m = (l.gate.forward(&t)?.silu()? * l.up.forward(&t)?)?;
            x = (x + l.down.forward(&m)?)?;
        }
        self.state = state;
        let rows = if all { n } else { 1 };
        let last = rms_norm(&x.narrow(0, n - rows, rows)?, &self.norm, eps)?;
        last.to_dtype(self.output.dtype())?.matmul(&self.output.t()?)?.to_dtype(DType::F32)
    }

    /// Rotary embedding over the first `rotary_dim` dimensions of `x [n][heads][head_dim]`.
    fn rope(&self, x: &Tensor, cos: &Tensor, sin: &Tensor) -> CResult<Tensor> {
        let (rot, hd) = (self.cfg.rotary_dim, self.cfg.head_dim);
        let half = rot / 2;
        let (x1, x2) = (x.narrow(2, 0, half)?, x.narrow(2, half, half)?);
        let r1 = (x1.broadcast_mul(cos)? - x2.broadcast_mul(sin)?)?;
        let r2 = (x2.broadcast_mul(cos)? + x1.broadcast_mul(sin)?)?;
        if rot == hd {
            Tensor::cat(&[r1, r2], 2)
        } else {
            Tensor::cat(&[r1, r2, x.narrow(2, rot, hd - rot)?], 2)
        }
    }

    fn attention(&self, a: &Attention, t: &Tensor, cos: &Tensor, sin: &Tensor, mask: Option<&Tensor>, kv: &mut Option<(Tensor, Tensor)>) -> CResult<Tensor> {
        let c = &self.cfg;
        let (n, hd) = (t.dim(0)?, c.head_dim);
        let qg = a.q.forward(t)?;
        let (q, gate) = if a.gated {
            // each head's projection is [query | gate]
            let qg = qg.reshape((n, c.heads, 2 * hd))?;
            (qg.narrow(2, 0, hd)?.contiguous()?, Some(qg.narrow(2, hd, hd)?.reshape((n, c.heads * hd))?))
        } else {
            (qg.reshape((n, c.heads, hd))?, None)
        };
        let mut k = a.k.forward(t)?.reshape((n, c.kv_heads, hd))?;
        let v = a.v.forward(t)?.reshape((n, c.kv_heads, hd))?;
        let mut q = q;
        if let (Some(qn), Some(kn)) = (&a.q_norm, &a.k_norm) {
            q = rms_norm(&q, qn, c.eps as f64)?;
            k = rms_norm(&k, kn, c.eps as f64)?;
        }
        let q = self.rope(&q, cos, sin)?;
        let k = self.rope(&k, cos, sin)?;
        let dt = a.q.w.dtype();
        // [kv heads][positions][head_dim]
        let (k, v) = (k.transpose(0, 1)?.to_dtype(dt)?.contiguous()?, v.transpose(0, 1)?.to_dtype(dt)?.contiguous()?);
        let (k, v) = match kv.take() {
            Some((k0, v0)) => (Tensor::cat(&[&k0, &k], 1)?, Tensor::cat(&[&v0, &v], 1)?),
            None => (k, v),
        };
        *kv = Some((k.clone(), v.clone()));
        let total = k.dim(1)?;
        let group = c.heads / c.kv_heads;
        let expand = |x: &Tensor| -> CResult<Tensor> { x.unsqueeze(1)?.broadcast_as((c.kv_heads, group, total, hd))?.reshape((c.heads, total, hd)) };
        let (k, v) = (expand(&k)?, expand(&v)?);
        let q = q.transpose(0, 1)?.to_dtype(dt)?.contiguous()?;
        let scores = (q.matmul(&k.t()?)?.to_dtype(DType::F32)? * (1.0 / (hd as f64).sqrt()))?;
        let scores = match mask {
            Some(m) if m.dims() == [n, total] => scores.broadcast_add(m)?,
            Some(m) => candle_core::bail!("the causal mask is {:?}, the scores {n} x {total}", m.dims()),
            None if n == 1 => scores,
            None => candle_core::bail!("{n} tokens need a causal mask"),
        };
        let p = candle_nn::ops::softmax_last_dim(&scores)?;
        let att = p.to_dtype(dt)?.matmul(&v)?.to_dtype(DType::F32)?.transpose(0, 1)?.reshape((n, c.heads * hd))?;
        let att = match gate {
            Some(g) => (att * candle_nn::ops::sigmoid(&g)?)?,
            None => att,
        };
        a.o.forward(&att)
    }

    /// A Gated DeltaNet layer (see [`crate::model`]'s `delta_layer`, which this follows).
    fn delta(&self, d: &DeltaNet, t: &Tensor, conv_state: &mut Tensor, state: &mut Tensor) -> CResult<Tensor> {
        let lc = self.cfg.linear.as_ref().expect("linear layers have their shape");
        let (nk, nv, dk, dv, kern) = (lc.k_heads, lc.v_heads, lc.k_dim, lc.v_dim, lc.conv_kernel);
        let (kd, vd) = (nk * dk, nv * dv);
        let n = t.dim(0)?;
        let qkv = d.qkv.forward(t)?;
        let z = d.z.forward(t)?;
        let b = d.b.forward(t)?;
        let a = d.a.forward(t)?;
        // the causal depthwise convolution reads the kept inputs, then these
        let ext = Tensor::cat(&[&*conv_state, &qkv], 0)?;
        let mut mixed = ext.narrow(0, 0, n)?.broadcast_mul(&d.conv.get(0)?)?;
        for j in 1..kern {
            mixed = (mixed + ext.narrow(0, j, n)?.broadcast_mul(&d.conv.get(j)?)?)?;
        }
        let mixed = mixed.silu()?;
        *conv_state = ext.narrow(0, n, kern - 1)?.contiguous()?;
        let per_k = nv / nk;
        // q, k: [n][k heads][dk] → normalised → repeated to [v heads][n][dk]
        let heads = |x: Tensor| -> CResult<Tensor> { x.unsqueeze(2)?.broadcast_as((n, nk, per_k, dk))?.reshape((n, nv, dk))?.transpose(0, 1)?.contiguous() };
        let q = l2norm(&mixed.narrow(1, 0, kd)?.reshape((n, nk, dk))?)?;
        let q = heads((q * (1.0 / (dk as f64).sqrt()))?)?;
        let k = heads(l2norm(&mixed.narrow(1, kd, kd)?.reshape((n, nk, dk))?)?)?;
        let v = mixed.narrow(1, 2 * kd, vd)?.reshape((n, nv, dv))?.transpose(0, 1)?.contiguous()?;
        // g = -exp(A_log) · softplus(a + dt_bias), β = σ(b): [v heads][n]
        let g = softplus(&a.broadcast_add(&d.dt_bias)?)?.broadcast_mul(&d.neg_a)?.t()?.contiguous()?;
        let beta = candle_nn::ops::sigmoid(&b)?.t()?.contiguous()?;
        let mut outs = Vec::new();
        let mut s = state.clone();
        let chunk = self.chunk.max(1);
        let mut t0 = 0;
        while t0 < n {
            let l = chunk.min(n - t0);
            // a chunk of a longer prompt is a strided view: made contiguous, since a GPU's batched
            // matmul (cuBLAS) takes only contiguous batches (the CPU takes either)
            let part = |x: &Tensor| x.narrow(1, t0, l).and_then(|p| if l == n { Ok(p) } else { p.contiguous() });
            let (o, s1) = delta_chunk(&part(&q)?, &part(&k)?, &part(&v)?, &part(&g)?, &part(&beta)?, &s)?;
            outs.push(o);
            s = s1;
            t0 += l;
        }
        *state = s;
        // [v heads][n][dv] → [n][v heads][dv]; the gated RMSNorm per head: norm(o) · w · silu(z)
        let o = Tensor::cat(&outs, 1)?.transpose(0, 1)?.contiguous()?;
        let o = rms_norm(&o, &d.norm, self.cfg.eps as f64)?;
        let o = (o * z.reshape((n, nv, dv))?.silu()?)?.reshape((n, vd))?;
        d.out.forward(&o)
    }
}

/// One chunk of the gated delta rule for every head at once ([`crate::delta`]'s chunked form):
/// `q`, `k` `[h][l][dk]`, `v` `[h][l][dv]`, `g`, `beta` `[h][l]`, `s` `[h][dk][dv]`; returns the
/// outputs `[h][l][dv]` and the state after the chunk.
fn delta_chunk(q: &Tensor, k: &Tensor, v: &Tensor, g: &Tensor, beta: &Tensor, s: &Tensor) -> CResult<(Tensor, Tensor)> {
    let (h, l, _) = q.dims3()?;
    let dev = q.device();
    let c = g.cumsum(1)?; // [h][l]
                          // e^{c_i - c_j}, clamped at 1 where j > i (those entries are masked; unclamped they overflow)
    let diff = c.unsqueeze(2)?.broadcast_sub(&c.unsqueeze(1)?)?;
    let decay = diff.minimum(0f32)?.exp()?;
    let strict: Vec<f32> = (0..l).flat_map(|i| (0..l).map(move |j| if j < i { 1.0 } else { 0.0 })).collect();
    let strict = Tensor::from_vec(strict, (l, l), dev)?;
    let eye = Tensor::eye(l, DType::F32, dev)?;
    let lower = (&strict + &eye)?;
    let bcol = beta.unsqueeze(2)?; // [h][l][1]
    let ec = c.exp()?.unsqueeze(2)?;
    // A_ij = β_i (k_i·k_j) e^{c_i − c_j}, j < i
    let a = k.matmul(&k.t()?)?.mul(&decay)?.broadcast_mul(&bcol)?.broadcast_mul(&strict)?;
    // T = (I + A)⁻¹ by forward substitution: T_i = e_i − A_i,<i · T_<i
    let t = if l == 1 {
        eye.unsqueeze(0)?.broadcast_as((h, 1, 1))?.contiguous()?
    } else {
        let mut rows = vec![eye.narrow(0, 0, 1)?.unsqueeze(0)?.broadcast_as((h, 1, l))?.contiguous()?];
        for i in 1..l {
            let done = Tensor::cat(&rows, 1)?; // [h][i][l]
            let ai = a.narrow(1, i, 1)?.narrow(2, 0, i)?; // [h][1][i]
            let row = eye.narrow(0, i, 1)?.unsqueeze(0)?.broadcast_sub(&ai.matmul(&done)?)?;
            rows.push(row);
        }
        Tensor::cat(&rows, 1)?
    };
    let u = t.matmul(&v.broadcast_mul(&bcol)?)?;
    let w = t.matmul(&k.broadcast_mul(&bcol)?.broadcast_mul(&ec)?)?;
    // V' = U − W S
    let vn = (u - w.matmul(s)?)?;
    // O = (Q e^c) S + ((Q Kᵀ) ∘ e^{c_i − c_j}, j ≤ i) V'
    let intra = q.matmul(&k.t()?)?.mul(&decay)?.broadcast_mul(&lower)?;
    let o = (q.broadcast_mul(&ec)?.matmul(s)? + intra.matmul(&vn)?)?;
    // S ← e^{c_last} S + (K e^{c_last − c})ᵀ V'
    let last = c.narrow(1, l - 1, 1)?; // [h][1]
    let tail = last.broadcast_sub(&c)?.exp()?.unsqueeze(2)?; // [h][l][1]
    let s1 = (s.broadcast_mul(&last.exp()?.unsqueeze(2)?)? + k.broadcast_mul(&tail)?.t()?.matmul(&vn)?)?;
    Ok((o, s1))
}

/// RMSNorm over the last dimension, then `· w` (candle's fused op: one kernel on a GPU).
fn rms_norm(x: &Tensor, w: &Tensor, eps: f64) -> CResult<Tensor> {
    candle_nn::ops::rms_norm(x, w, eps as f32)
}

/// `x / sqrt(Σx² + 1e-6)` over the last dimension.
fn l2norm(x: &Tensor) -> CResult<Tensor> {
    let r = (x.sqr()?.sum_keepdim(D::Minus1)? + 1e-6)?.sqrt()?.recip()?;
    x.broadcast_mul(&r)
}

/// `ln(1 + eˣ)`, as `max(x, 0) + ln(1 + e^{-|x|})` (no overflow).
fn softplus(x: &Tensor) -> CResult<Tensor> {
    x.relu()? + (x.abs()?.neg()?.exp()? + 1.0)?.log()?
}
