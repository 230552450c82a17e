//! The hot loops of the model, written for the CPU: multi-head attention straight from the
//! `[tokens, heads × head_dim]` layout the projections produce (no head transposes), one head per
//! task with the softmax fused between the two products, and the tanh GELU in parallel chunks.
//! candle's generic ops materialised every step (a 12 × 1024 × 1024 score tensor per layer and a
//! single-threaded element-wise GELU); these do the same arithmetic in f32.

use rayon::prelude::*;

use lens_ml::math::exp;

/// `row[lo..hi] = softmax(row[lo..hi] · scale)`, zero elsewhere.
fn softmax_row(row: &mut [f32], lo: usize, hi: usize, scale: f32) {
    lens_ml::math::softmax(&mut row[lo..hi], scale);
    row[..lo].fill(0.0);
    row[hi..].fill(0.0);
}

/// `softmax(q kᵀ · scale) v` for `batch` sequences of `len` tokens, `heads` heads of `hd`;
/// q, k, v and the result are `[batch, len, heads × hd]`. With `window`, token i sees only
/// tokens j with |i − j| ≤ window. With `bf16`, both products run on that kernel
/// ([`lens_ml::bf16`]: q, k, v and the probabilities rounded to bf16, sums in f32), else in f32.
#[allow(clippy::too_many_arguments)]
pub fn attention(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    batch: usize,
    len: usize,
    heads: usize,
    hd: usize,
    scale: f32,
    window: Option<usize>,
    bf16: Option<lens_ml::bf16::Kernel>,
) -> Vec<f32> {
    let hidden = heads * hd;
    assert!(q.len() == batch * len * hidden && k.len() == q.len() && v.len() == q.len());
    let parts: Vec<Vec<f32>> = (0..batch * heads)
        .into_par_iter()
        .map(|t| {
            let (b, h) = (t / heads, t % heads);
            let off = b * len * hidden + h * hd;
            let mut s = vec![0f32; len * len];
            // s = q_h · k_hᵀ
            match bf16 {
                Some(kern) => {
                    let qh: Vec<f32> = (0..len).flat_map(|i| q[off + i * hidden..off + i * hidden + hd].iter().copied()).collect();
                    let kh = lens_ml::bf16::Packed::from_columns(len, hd, |j, dst| dst.copy_from_slice(&k[off + j * hidden..off + j * hidden + hd]));
                    lens_ml::bf16::matmul(kern, &qh, len, &kh, None, &mut s);
                }
                None => lens_ml::sgemm(len, len, hd, &q[off..], (hidden as isize, 1), &k[off..], (1, hidden as isize), &mut s, (len as isize, 1), false),
            }
            for (i, row) in s.chunks_exact_mut(len).enumerate() {
                let (lo, hi) = match window {
                    Some(w) => (i.saturating_sub(w), (i + w + 1).min(len)),
                    None => (0, len),
                };
                softmax_row(row, lo, hi, scale);
            }
            // o_h = p · v_h
            let mut o = vec![0f32; len * hd];
            match bf16 {
                Some(kern) => {
                    let vh = lens_ml::bf16::Packed::from_columns(hd, len, |j, dst| {
                        for (i, d) in dst.iter_mut().enumerate() {
                            *d = v[off + i * hidden + j];
                        }
                    });
                    lens_ml::bf16::matmul(kern, &s, len, &vh, None, &mut o);
                }
                None => lens_ml::sgemm(len, hd, len, &s, (len as isize, 1), &v[off..], (hidden as isize, 1), &mut o, (hd as isize, 1), false),
            }
            o
        })
        .collect();
    let mut out = vec![0f32; batch * len * hidden];
    for (t, o) in parts.iter().enumerate() {
        let (b, h) = (t / heads, t % heads);
        for (i, row) in o.chunks_exact(hd).enumerate() {
            let at = b * len * hidden + i * hidden + h * hd;
            out[at..at + hd].copy_from_slice(row);
        }
    }
    out
}

/// Rotary position embedding in place on `[len, heads × hd]` (rotate-half convention), with
/// `cos`/`sin` `[len, hd]`.
pub fn rope(x: &mut [f32], len: usize, heads: usize, hd: usize, cos: &[f32], sin: &[f32]) {
    let half = hd / 2;
    for i in 0..len {
        let (c, s) = (&cos[i * hd..(i + 1) * hd], &sin[i * hd..(i + 1) * hd]);
        for h in 0..heads {
            let v = &mut x[(i * heads + h) * hd..(i * heads + h + 1) * hd];
            for d in 0..half {
                let (a, b) = (v[d], v[d + half]);
                v[d] = a * c[d] - b * s[d];
                v[d + half] = b * c[d + half] + a * s[d + half];
            }
        }
    }
}

/// `gelu_pytorch_tanh` in place: `0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))`.
pub fn gelu_tanh(x: &mut [f32]) {
    const C: f32 = 0.797_884_6; // √(2/π)
    lens_ml::simd_fn! {
        fn chunk(c: &mut [f32]) {
            for v in c.iter_mut() {
                // tanh(u) = 1 − 2 / (e^{2u} + 1)
                let u = C * (*v + 0.044715 * *v * *v * *v);
                *v = 0.5 * *v * (2.0 - 2.0 / (exp(2.0 * u) + 1.0));
            }
        }
    }
    x.par_chunks_mut(16 * 1024).for_each(chunk);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(clippy::too_many_arguments)]
    fn reference(q: &[f32], k: &[f32], v: &[f32], len: usize, heads: usize, hd: usize, scale: f32, window: Option<usize>) -> Vec<f32> {
        let hidden = heads * hd;
        let mut out = vec![0f32; len * hidden];
        for h in 0..heads {
            for i in 0..len {
                let seen: Vec<usize> = (0..len).filter(|j| window.is_none_or(|w| i.abs_diff(*j) <= w)).collect();
                let s: Vec<f64> = seen
                    .iter()
                    .map(|j| (0..hd).map(|d| (q[i * hidden + h * hd + d] * k[j * hidden + h * hd + d]) as f64).sum::<f64>() * scale as f64)
                    .collect();
                let m = s.iter().cloned().fold(f64::MIN, f64::max);
                let e: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
                let z: f64 = e.iter().sum();
                for d in 0..hd {
                    out[i * hidden + h * hd + d] = seen.iter().zip(&e).map(|(j, w)| w / z * v[j * hidden + h * hd + d] as f64).sum::<f64>() as f32;
                }
            }
        }
        out
    }

    #[test]
    fn gelu_is_accurate() {
        let mut xs: Vec<f32> = (-600..600).map(|i| i as f32 / 50.0).collect();
        let want: Vec<f32> = xs.iter().map(|x| 0.5 * x * (1.0 + (0.797_884_6 * (x + 0.044715 * x * x * x)).tanh())).collect();
        gelu_tanh(&mut xs);
        let d = xs.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(d < 1e-6, "gelu {d}");
    }

    #[test]
    fn attention_matches_the_definition() {
        let (len, heads, hd) = (37, 3, 8);
        let r = |s: usize| (0..len * heads * hd).map(|i| (((i * 7919 + s) % 1000) as f32 / 500.0) - 1.0).collect::<Vec<f32>>();
        let (q, k, v) = (r(1), r(2), r(3));
        for w in [None, Some(4)] {
            let got = attention(&q, &k, &v, 1, len, heads, hd, 0.35, w, None);
            let want = reference(&q, &k, &v, len, heads, hd, 0.35, w);
            let d = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
            assert!(d < 1e-5, "{w:?}: {d}");
            // bf16 products: q, k, v and the probabilities rounded to 8 bits of mantissa
            if let Some(kern) = lens_ml::bf16::kernel() {
                let got = attention(&q, &k, &v, 1, len, heads, hd, 0.35, w, Some(kern));
                let d = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
                assert!(d < 2e-2, "{w:?} bf16: {d}");
            }
        }
        // two sequences in a batch: each its own
        let q2: Vec<f32> = q.iter().chain(&k).copied().collect();
        let k2: Vec<f32> = k.iter().chain(&q).copied().collect();
        let v2: Vec<f32> = v.iter().chain(&v).copied().collect();
        let got = attention(&q2, &k2, &v2, 2, len, heads, hd, 0.35, None, None);
        assert_eq!(&got[..q.len()], &attention(&q, &k, &v, 1, len, heads, hd, 0.35, None, None)[..]);
    }
}
