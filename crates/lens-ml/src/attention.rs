//! Multi-head attention for the CPU, shared by the vision encoder and the sentence embedder:
//! straight from the `[tokens, heads × head_dim]` layout the projections produce (no head
//! transposes), one (sequence, head) per task with the softmax fused between the two products.
//! Sequences of different lengths sit one after another in the same buffers, so a batch needs
//! no padding and no mask.

use rayon::prelude::*;

thread_local! {
    /// Each thread's score matrix, kept between tasks (a fresh `len × len` buffer of a few
    /// hundred KB costs page faults); taken out while in use, so a nested task gets its own.
    static SCORES: std::cell::Cell<Vec<f32>> = const { std::cell::Cell::new(Vec::new()) };
}

/// `row[lo..hi] = softmax(row[lo..hi] · scale)`, zero elsewhere.
fn softmax_row(row: &mut [f32], lo: usize, hi: usize, scale: f32) {
    crate::math::softmax(&mut row[lo..hi], scale);
    row[..lo].fill(0.0);
    row[hi..].fill(0.0);
}

/// `softmax(q kᵀ · scale) v` for sequences of `lens[s]` tokens laid one after another, `heads`
/// heads of `hd`; q, k, v and the result are `[Σ lens, heads × hd]`. With `window`, token i sees
/// only tokens j with |i − j| ≤ window. With `bf16`, both products run on that kernel
/// ([`crate::bf16`]: q, k, v and the probabilities rounded to bf16, sums in f32), else in f32.
///
/// # Panics
/// When q, k or v do not hold `Σ lens` rows of `heads × hd`.
#[allow(clippy::too_many_arguments)]
pub fn attention(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    lens: &[usize],
    heads: usize,
    hd: usize,
    scale: f32,
    window: Option<usize>,
    bf16: Option<crate::bf16::Kernel>,
) -> Vec<f32> {
    let mut out = Vec::new();
    attention_into(q, k, v, heads * hd, lens, heads, hd, scale, window, bf16, &mut out);
    out
}

/// [`attention`] into `out` (its buffer reused: `[Σ lens, heads × hd]`), with q, k and v rows
/// `stride` floats apart: one `[tokens, 3 × hidden]` buffer from a fused projection is read in
/// place as `&qkv[..]`, `&qkv[hidden..]`, `&qkv[2 × hidden..]` with `stride` 3 × hidden.
///
/// # Panics
/// When q, k or v end before their last row's `heads × hd` values.
#[allow(clippy::too_many_arguments)]
pub fn attention_into(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    stride: usize,
    lens: &[usize],
    heads: usize,
    hd: usize,
    scale: f32,
    window: Option<usize>,
    bf16: Option<crate::bf16::Kernel>,
    out: &mut Vec<f32>,
) {
    let hidden = heads * hd;
    let rows: usize = lens.iter().sum();
    let need = if rows == 0 { 0 } else { (rows - 1) * stride + hidden };
    assert!(stride >= hidden && q.len() >= need && k.len() >= need && v.len() >= need, "attention operands hold every sequence");
    let starts: Vec<usize> = lens.iter().scan(0, |at, l| Some(std::mem::replace(at, *at + l))).collect();
    let parts: Vec<Vec<f32>> = (0..lens.len() * heads)
        .into_par_iter()
        .map(|t| {
            let (s, h) = (t / heads, t % heads);
            let len = lens[s];
            let off = starts[s] * stride + h * hd;
            let mut p = SCORES.with(std::cell::Cell::take);
            // every score is written by the product below: a buffer of the right size is reused
            // as it is (no clearing)
            if p.len() != len * len {
                p.clear();
                p.resize(len * len, 0.0);
            }
            // p = q_h · k_hᵀ
            match bf16 {
                Some(kern) => {
                    let qh: Vec<f32> = (0..len).flat_map(|i| q[off + i * stride..off + i * stride + hd].iter().copied()).collect();
                    let kh = crate::bf16::Packed::from_columns(len, hd, |j, dst| dst.copy_from_slice(&k[off + j * stride..off + j * stride + hd]));
                    crate::bf16::matmul(kern, &qh, len, &kh, None, &mut p);
                }
                None => crate::sgemm(len, len, hd, &q[off..], (stride as isize, 1), &k[off..], (1, stride as isize), &mut p, (len as isize, 1), false),
            }
            for (i, row) in p.chunks_exact_mut(len.max(1)).enumerate() {
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
                    // v_hᵀ made row by row first (reading v's rows in order), then packed by its
                    // contiguous rows: reading v by columns strides across the whole buffer
                    let mut vt = vec![0f32; hd * len];
                    for i in 0..len {
                        for (j, x) in v[off + i * stride..off + i * stride + hd].iter().enumerate() {
                            vt[j * len + i] = *x;
                        }
                    }
                    let vh = crate::bf16::Packed::from_columns(hd, len, |j, dst| dst.copy_from_slice(&vt[j * len..(j + 1) * len]));
                    crate::bf16::matmul(kern, &p, len, &vh, None, &mut o);
                }
                None => crate::sgemm(len, hd, len, &p, (len as isize, 1), &v[off..], (stride as isize, 1), &mut o, (hd as isize, 1), false),
            }
            SCORES.with(|c| c.set(p));
            o
        })
        .collect();
    out.clear();
    out.resize(rows * hidden, 0.0);
    for (t, o) in parts.iter().enumerate() {
        let (s, h) = (t / heads, t % heads);
        for (i, row) in o.chunks_exact(hd).enumerate() {
            let at = (starts[s] + i) * hidden + h * hd;
            out[at..at + hd].copy_from_slice(row);
        }
    }
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
    fn attention_matches_the_definition() {
        let (len, heads, hd) = (37, 3, 8);
        let r = |s: usize, len: usize| (0..len * heads * hd).map(|i| (((i * 7919 + s) % 1000) as f32 / 500.0) - 1.0).collect::<Vec<f32>>();
        let (q, k, v) = (r(1, len), r(2, len), r(3, len));
        for w in [None, Some(4)] {
            let got = attention(&q, &k, &v, &[len], heads, hd, 0.35, w, None);
            let want = reference(&q, &k, &v, len, heads, hd, 0.35, w);
            let d = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
            assert!(d < 1e-5, "{w:?}: {d}");
            // bf16 products: q, k, v and the probabilities rounded to 8 bits of mantissa
            if let Some(kern) = crate::bf16::kernel() {
                let got = attention(&q, &k, &v, &[len], heads, hd, 0.35, w, Some(kern));
                let d = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
                assert!(d < 2e-2, "{w:?} bf16: {d}");
            }
        }
        // sequences of two lengths one after another: each attends only within itself
        let short = 11;
        let (q2, k2, v2) = (r(4, short), r(5, short), r(6, short));
        let cat = |a: &[f32], b: &[f32]| a.iter().chain(b).copied().collect::<Vec<f32>>();
        let got = attention(&cat(&q, &q2), &cat(&k, &k2), &cat(&v, &v2), &[len, short], heads, hd, 0.35, None, None);
        let split = len * heads * hd;
        assert_eq!(&got[..split], &attention(&q, &k, &v, &[len], heads, hd, 0.35, None, None)[..]);
        // q, k, v read in place from one fused [tokens, 3 × hidden] buffer
        let hidden = heads * hd;
        let fused: Vec<f32> = (0..len).flat_map(|i| [&q, &k, &v].into_iter().flat_map(move |x| x[i * hidden..(i + 1) * hidden].iter().copied())).collect();
        let mut strided = Vec::new();
        attention_into(&fused, &fused[hidden..], &fused[2 * hidden..], 3 * hidden, &[len], heads, hd, 0.35, None, None, &mut strided);
        assert_eq!(strided, attention(&q, &k, &v, &[len], heads, hd, 0.35, None, None));
        let want2 = reference(&q2, &k2, &v2, short, heads, hd, 0.35, None);
        let d = got[split..].iter().zip(&want2).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(d < 1e-5, "second sequence: {d}");
    }
}
