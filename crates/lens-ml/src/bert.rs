//! A BERT encoder (the sentence-transformers kind: post-LayerNorm, exact GELU, absolute
//! positions) run on this crate's CPU kernels: every linear layer on the bf16 GEMM
//! ([`crate::bf16`]) where the CPU has one, else the f32 GEMM ([`crate::sgemm`]); attention
//! over windows of different lengths laid one after another ([`crate::attention`]), so a batch
//! carries no padding. Mean pooling over each window's tokens, L2-normalised.

use crate::bf16::{self, Kernel, Packed, Rows, Then};
use candle_core::{Device, Tensor};
use lens_core::error::{LensError, Result};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// LayerNorm of each `h`-wide row, rows split over the threads; with `rows`, each normed row
/// is also rounded into it while it is in cache (the next product's activations).
fn norm_rows(x: &mut [f32], n: &Norm, h: usize, eps: f32, rows: Option<&mut Rows>) {
    match rows {
        None => x.par_chunks_mut(64 * h).for_each(|c| crate::math::layer_norm(c, &n.w, &n.b, eps)),
        Some(r) => {
            r.shape(x.len() / h, h);
            let dst: Vec<&mut [u16]> = r.rows_mut().collect();
            x.par_chunks_mut(h).zip(dst).with_min_len(64).for_each(|(row, d)| {
                crate::math::layer_norm(row, &n.w, &n.b, eps);
                bf16::convert(row, &mut d[..h]);
            });
        }
    }
}

/// Tokens run through the layers together: enough to keep the GEMMs busy, while the widest
/// activation (`tokens × intermediate` f32) stays near 13 MB for MiniLM. On 2 cores 2,048 ran a
/// little faster than 1,024 (13.7 against 13.5 pages/s).
const BATCH_TOKENS: usize = 2048;

enum Weights {
    Bf16(Packed),
    /// `[out][in]`, row-major.
    F32(Vec<f32>),
}

struct Linear {
    w: Weights,
    bias: Vec<f32>,
    n: usize,
    k: usize,
}

impl Linear {
    fn new(w: Vec<f32>, bias: Vec<f32>, n: usize, k: usize, kernel: Option<Kernel>) -> Linear {
        let w = match kernel {
            Some(_) => Weights::Bf16(Packed::from_out_in(&w, n, k)),
            None => Weights::F32(w),
        };
        Linear { w, bias, n, k }
    }

    /// `x [m][k]` → `out [m][n]` (the buffer reused: both products write every element), then
    /// `then` on each output.
    fn forward(&self, x: &[f32], m: usize, kernel: Option<Kernel>, then: Then, out: &mut Vec<f32>) {
        out.truncate(m * self.n);
        out.resize(m * self.n, 0.0);
        match (&self.w, kernel) {
            (Weights::Bf16(p), Some(kern)) => bf16::matmul_then(kern, x, m, p, Some(&self.bias), then, out),
            (Weights::F32(w), _) => {
                // the GEMM adds to what is there times 0: no NaN may be left from the last use
                out.fill(0.0);
                crate::sgemm(m, self.n, self.k, x, (self.k as isize, 1), w, (1, self.k as isize), out, (self.n as isize, 1), true);
                for row in out.chunks_exact_mut(self.n) {
                    row.iter_mut().zip(&self.bias).for_each(|(o, b)| *o += b);
                }
                if then == Then::Gelu {
                    out.par_chunks_mut(16 * 1024).for_each(crate::math::gelu_erf);
                }
            }
            (Weights::Bf16(_), None) => unreachable!("bf16 weights are packed only with a kernel"),
        }
    }

    /// [`Linear::forward`] from activations already in bf16 (bf16 weights only).
    fn forward_rows(&self, a: &Rows, kernel: Kernel, then: Then, out: &mut Vec<f32>) {
        out.truncate(a.m() * self.n);
        out.resize(a.m() * self.n, 0.0);
        bf16::matmul_rows(kernel, a, self.packed(), Some(&self.bias), then, out)
    }

    /// [`Linear::forward_rows`] with the output in bf16, for the next product.
    fn forward_into(&self, a: &Rows, kernel: Kernel, then: Then, out: &mut Rows) {
        bf16::matmul_rows_into(kernel, a, self.packed(), Some(&self.bias), then, out)
    }

    fn packed(&self) -> &Packed {
        match &self.w {
            Weights::Bf16(p) => p,
            Weights::F32(_) => unreachable!("f32 weights run on the f32 path"),
        }
    }
}

/// The activations of one batch, kept from layer to layer and batch to batch (fresh buffers
/// of a few MB each cost a page fault per 4 KB).
#[derive(Default)]
struct Work {
    x: Vec<f32>,
    qkv: Vec<f32>,
    a: Vec<f32>,
    o: Vec<f32>,
    f: Vec<f32>,
    /// The bf16 path's activations: the normed `x` and `o`, the attention's output, and the
    /// feed-forward's GELU (which is never held in f32 there).
    xb: Rows,
    qkvb: Rows,
    ob: Rows,
    ab: Rows,
    fb: Rows,
}

/// `x += y`, split over the threads.
fn add_rows(x: &mut [f32], y: &[f32]) {
    x.par_chunks_mut(16 * 1024).zip(y.par_chunks(16 * 1024)).for_each(|(x, y)| crate::math::add(x, y));
}

struct Norm {
    w: Vec<f32>,
    b: Vec<f32>,
}

struct Layer {
    qkv: Linear,
    out: Linear,
    ln1: Norm,
    up: Linear,
    down: Linear,
    ln2: Norm,
}

/// The parts of config.json the encoder reads.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct BertConfig {
    pub hidden_size: usize,
    pub num_attention_heads: usize,
    pub num_hidden_layers: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "default_act")]
    pub hidden_act: String,
}

fn default_eps() -> f64 {
    1e-12
}

fn default_act() -> String {
    "gelu".into()
}

pub struct Bert {
    word: Vec<f32>,
    vocab: usize,
    pos: Vec<f32>,
    type0: Vec<f32>,
    ln: Norm,
    layers: Vec<Layer>,
    hidden: usize,
    heads: usize,
    positions: usize,
    eps: f32,
    kernel: Option<Kernel>,
}

fn bad(path: &Path, what: impl std::fmt::Display) -> LensError {
    LensError::Model(format!("{}: {what}", path.display()))
}

impl Bert {
    /// Load from a safetensors file (names with or without a `bert.` prefix) and its config;
    /// linear layers in bf16 when `kernel` is given, else f32.
    pub fn load(weights: &Path, config: &BertConfig, kernel: Option<Kernel>) -> Result<Bert> {
        if config.hidden_act != "gelu" {
            return Err(bad(weights, format!("hidden_act `{}` is not supported (gelu only)", config.hidden_act)));
        }
        if config.num_attention_heads == 0 || !config.hidden_size.is_multiple_of(config.num_attention_heads) {
            return Err(bad(weights, "hidden_size is not a multiple of num_attention_heads"));
        }
        let tensors: HashMap<String, Tensor> = candle_core::safetensors::load(weights, &Device::Cpu).map_err(|e| bad(weights, e))?;
        let tensor = |name: &str| -> Result<&Tensor> {
            tensors.get(name).or_else(|| tensors.get(&format!("bert.{name}"))).ok_or_else(|| bad(weights, format!("no tensor `{name}`")))
        };
        let get = |name: &str, shape: &[usize]| -> Result<Vec<f32>> {
            let t = tensor(name)?;
            if t.dims() != shape {
                return Err(bad(weights, format!("`{name}` is {:?}, expected {shape:?}", t.dims())));
            }
            t.to_dtype(candle_core::DType::F32).and_then(|t| t.flatten_all()).and_then(|t| t.to_vec1()).map_err(|e| bad(weights, e))
        };
        let (h, inter) = (config.hidden_size, config.intermediate_size);
        let rows = |name: &str| -> Result<usize> { Ok(tensor(name)?.dims().first().copied().unwrap_or(0)) };
        let vocab = rows("embeddings.word_embeddings.weight")?;
        let norm = |p: &str| -> Result<Norm> { Ok(Norm { w: get(&format!("{p}.weight"), &[h])?, b: get(&format!("{p}.bias"), &[h])? }) };
        let linear = |p: &str, n: usize, k: usize| -> Result<Linear> {
            Ok(Linear::new(get(&format!("{p}.weight"), &[n, k])?, get(&format!("{p}.bias"), &[n])?, n, k, kernel))
        };
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for i in 0..config.num_hidden_layers {
            let p = format!("encoder.layer.{i}");
            // q, k and v as one GEMM: their weights stacked along the outputs
            let mut w = Vec::with_capacity(3 * h * h);
            let mut b = Vec::with_capacity(3 * h);
            for part in ["query", "key", "value"] {
                w.extend(get(&format!("{p}.attention.self.{part}.weight"), &[h, h])?);
                b.extend(get(&format!("{p}.attention.self.{part}.bias"), &[h])?);
            }
            layers.push(Layer {
                qkv: Linear::new(w, b, 3 * h, h, kernel),
                out: linear(&format!("{p}.attention.output.dense"), h, h)?,
                ln1: norm(&format!("{p}.attention.output.LayerNorm"))?,
                up: linear(&format!("{p}.intermediate.dense"), inter, h)?,
                down: linear(&format!("{p}.output.dense"), h, inter)?,
                ln2: norm(&format!("{p}.output.LayerNorm"))?,
            });
        }
        let types = get("embeddings.token_type_embeddings.weight", &[rows("embeddings.token_type_embeddings.weight")?.max(1), h])?;
        Ok(Bert {
            word: get("embeddings.word_embeddings.weight", &[vocab, h])?,
            vocab,
            pos: get("embeddings.position_embeddings.weight", &[config.max_position_embeddings, h])?,
            type0: types[..h].to_vec(),
            ln: norm("embeddings.LayerNorm")?,
            layers,
            hidden: h,
            heads: config.num_attention_heads,
            positions: config.max_position_embeddings,
            eps: config.layer_norm_eps as f32,
            kernel,
        })
    }

    /// What the linear layers run in: `bf16 (amx)`, `bf16 (avx512bf16)` or `f32`.
    pub fn precision(&self) -> String {
        match self.kernel {
            Some(k) => format!("bf16 ({})", k.name()),
            None => "f32".into(),
        }
    }

    /// One mean-pooled, L2-normalised vector per window (token ids, each window at most the
    /// model's positions long).
    pub fn embed(&self, windows: &[Vec<u32>]) -> Result<Vec<Vec<f32>>> {
        if let Some(w) = windows.iter().find(|w| w.len() > self.positions) {
            return Err(LensError::BadInput(format!("a window of {} tokens is longer than the model's {} positions", w.len(), self.positions)));
        }
        if let Some(id) = windows.iter().flatten().find(|&&id| id as usize >= self.vocab) {
            return Err(LensError::BadInput(format!("token id {id} is outside the model's vocabulary of {}", self.vocab)));
        }
        let mut out = Vec::with_capacity(windows.len());
        let mut work = Work::default();
        let mut start = 0;
        while start < windows.len() {
            let mut end = start;
            let mut tokens = 0;
            while end < windows.len() && (end == start || tokens + windows[end].len() <= BATCH_TOKENS) {
                tokens += windows[end].len();
                end += 1;
            }
            out.extend(self.run(&windows[start..end], &mut work));
            start = end;
        }
        Ok(out)
    }

    fn run(&self, windows: &[Vec<u32>], w: &mut Work) -> Vec<Vec<f32>> {
        let h = self.hidden;
        let lens: Vec<usize> = windows.iter().map(Vec::len).collect();
        let m: usize = lens.iter().sum();
        let x = &mut w.x;
        x.clear();
        for win in windows {
            for (i, &id) in win.iter().enumerate() {
                let (word, pos) = (&self.word[id as usize * h..(id as usize + 1) * h], &self.pos[i * h..(i + 1) * h]);
                x.extend(word.iter().zip(pos).zip(&self.type0).map(|((a, b), c)| a + b + c));
            }
        }
        let (hd, eps) = (h / self.heads, self.eps);
        match self.kernel {
            // activations handed from layer to layer in bf16 where the next product reads them
            Some(k) => {
                norm_rows(&mut w.x, &self.ln, h, eps, Some(&mut w.xb));
                for l in &self.layers {
                    l.qkv.forward_into(&w.xb, k, Then::Nothing, &mut w.qkvb);
                    crate::attention::attention_rows(&w.qkvb, &lens, self.heads, hd, (hd as f32).powf(-0.5), None, k, &mut w.ab);
                    l.out.forward_rows(&w.ab, k, Then::Nothing, &mut w.o);
                    add_rows(&mut w.o, &w.x);
                    norm_rows(&mut w.o, &l.ln1, h, eps, Some(&mut w.ob));
                    l.up.forward_into(&w.ob, k, Then::Gelu, &mut w.fb);
                    l.down.forward_rows(&w.fb, k, Then::Nothing, &mut w.x);
                    add_rows(&mut w.x, &w.o);
                    norm_rows(&mut w.x, &l.ln2, h, eps, Some(&mut w.xb));
                }
            }
            None => {
                norm_rows(&mut w.x, &self.ln, h, eps, None);
                for l in &self.layers {
                    l.qkv.forward(&w.x, m, None, Then::Nothing, &mut w.qkv);
                    let qkv = &w.qkv;
                    crate::attention::attention_into(qkv, &qkv[h..], &qkv[2 * h..], 3 * h, &lens, self.heads, hd, (hd as f32).powf(-0.5), None, None, &mut w.a);
                    l.out.forward(&w.a, m, None, Then::Nothing, &mut w.o);
                    add_rows(&mut w.o, &w.x);
                    norm_rows(&mut w.o, &l.ln1, h, eps, None);
                    l.up.forward(&w.o, m, None, Then::Gelu, &mut w.f);
                    l.down.forward(&w.f, m, None, Then::Nothing, &mut w.x);
                    add_rows(&mut w.x, &w.o);
                    norm_rows(&mut w.x, &l.ln2, h, eps, None);
                }
            }
        }
        let x = &w.x;
        let mut out = Vec::with_capacity(windows.len());
        let mut at = 0;
        for &len in &lens {
            let mut mean = vec![0f32; h];
            for row in x[at * h..(at + len) * h].chunks_exact(h) {
                mean.iter_mut().zip(row).for_each(|(m, r)| *m += r);
            }
            at += len;
            let norm = mean.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
            // the mean's 1/len cancels in the normalisation
            mean.iter_mut().for_each(|v| *v /= norm);
            out.push(mean);
        }
        out
    }
}
