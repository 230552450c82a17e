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
    out.clear();
    out.resize(rows * hidden, 0.0);
    if let Some(kern) = bf16 {
        heads_bf16(kern, (q, k, v), stride, lens, heads, hd, scale, window, Out::F32(out.as_mut_ptr()), hidden);
        return;
    }
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
            crate::sgemm(len, len, hd, &q[off..], (stride as isize, 1), &k[off..], (1, stride as isize), &mut p, (len as isize, 1), false);
            for (i, row) in p.chunks_exact_mut(len.max(1)).enumerate() {
                let (lo, hi) = seen(i, len, window);
                softmax_row(row, lo, hi, scale);
            }
            // o_h = p · v_h
            let mut o = vec![0f32; len * hd];
            crate::sgemm(len, hd, len, &p, (len as isize, 1), &v[off..], (stride as isize, 1), &mut o, (hd as isize, 1), false);
            SCORES.with(|c| c.set(p));
            o
        })
        .collect();
    for (t, o) in parts.iter().enumerate() {
        let (s, h) = (t / heads, t % heads);
        for (i, row) in o.chunks_exact(hd).enumerate() {
            let at = (starts[s] + i) * hidden + h * hd;
            out[at..at + hd].copy_from_slice(row);
        }
    }
}

/// [`attention_into`] on the bf16 kernel reading q, k and v from one fused `[tokens, 3 ×
/// heads × hd]` buffer already in bf16 (a projection's output, [`crate::bf16::Rows`]) and
/// writing the result in bf16 into `out`, the next product's activations: no f32 copy of
/// either is made.
///
/// # Panics
/// When `qkv` is not `Σ lens` rows of `3 × heads × hd`, or the CPU cannot run `kern`.
#[allow(clippy::too_many_arguments)]
pub fn attention_rows(
    qkv: &crate::bf16::Rows,
    lens: &[usize],
    heads: usize,
    hd: usize,
    scale: f32,
    window: Option<usize>,
    kern: crate::bf16::Kernel,
    out: &mut crate::bf16::Rows,
) {
    let (hidden, rows) = (heads * hd, lens.iter().sum::<usize>());
    assert_eq!(qkv.m(), rows, "one fused q/k/v row per token");
    let (data, stride) = qkv.raw();
    assert!(stride >= 3 * hidden, "q, k and v side by side in each row");
    out.shape(rows, hidden);
    let (dst, ld) = out.raw_mut();
    heads_bf16(kern, (data, &data[hidden..], &data[2 * hidden..]), stride, lens, heads, hd, scale, window, Out::Bf16(dst), ld);
}

/// Every (sequence, head) of a batch on the bf16 kernel, in parallel; output rows `ld` apart.
#[allow(clippy::too_many_arguments)]
fn heads_bf16<T: Elem>(
    kern: crate::bf16::Kernel,
    (q, k, v): (&[T], &[T], &[T]),
    stride: usize,
    lens: &[usize],
    heads: usize,
    hd: usize,
    scale: f32,
    window: Option<usize>,
    out: Out,
    ld: usize,
) {
    assert!(crate::bf16::runs(kern), "the {} kernel does not run on this CPU", kern.name());
    let starts: Vec<usize> = lens.iter().scan(0, |at, l| Some(std::mem::replace(at, *at + l))).collect();
    (0..lens.len() * heads).into_par_iter().for_each(|t| {
        let (s, h) = (t / heads, t % heads);
        let mut sc = SCRATCH.with(std::cell::Cell::take);
        let head = Head { q, k, v, stride, off: starts[s] * stride + h * hd, len: lens[s], hd, scale, window };
        // SAFETY: task (s, h) writes only sequence s's rows, columns h·hd .. (h + 1)·hd
        unsafe { head.run_bf16(kern, &mut sc, out, ld, starts[s] * ld + h * hd) };
        SCRATCH.with(|c| c.set(sc));
    });
}

/// What attention reads q, k and v from: f32 (rounded on the way in) or bf16 (copied).
trait Elem: Copy + Sync {
    fn load(src: &[Self], dst: &mut [u16]);
}

impl Elem for f32 {
    fn load(src: &[f32], dst: &mut [u16]) {
        crate::bf16::convert(src, dst)
    }
}

impl Elem for u16 {
    fn load(src: &[u16], dst: &mut [u16]) {
        dst[..src.len()].copy_from_slice(src)
    }
}

/// The keys token `i` of `len` sees: all, or those within `window` of it.
fn seen(i: usize, len: usize, window: Option<usize>) -> (usize, usize) {
    match window {
        Some(w) => (i.saturating_sub(w), (i + w + 1).min(len)),
        None => (0, len),
    }
}

/// The output buffer, written by the tasks in disjoint places: f32, or bf16 rows.
#[derive(Clone, Copy)]
enum Out {
    F32(*mut f32),
    Bf16(*mut u16),
}
// SAFETY: each task writes its own (rows, columns) of the buffer
unsafe impl Send for Out {}
unsafe impl Sync for Out {}

/// One thread's buffers for the bf16 path, kept between tasks; every element a task reads is
/// written by it first, so a buffer of the right size is reused as it is.
#[derive(Default)]
struct Scratch {
    /// q_h in bf16, `lp` rows of `kp` (the rows past `len` zero).
    a: Vec<u16>,
    /// k_hᵀ packed as the GEMM's weights: `lp` columns (keys) of depth `kp`.
    kb: Vec<u16>,
    /// The scores of 32 query rows, `32 × lp` f32.
    s: Vec<f32>,
    /// Their unnormalised probabilities in bf16, `32 × lp`.
    p: Vec<u16>,
    /// v_h packed as the GEMM's weights: `np` columns (the head's dims) of depth `lp`.
    vb: Vec<u16>,
    /// One or two rows in bf16 on their way into a packing.
    row: Vec<u16>,
}

thread_local! {
    static SCRATCH: std::cell::Cell<Scratch> = std::cell::Cell::new(Scratch::default());
}

fn sized<T: Copy + Default>(v: &mut Vec<T>, n: usize) -> &mut [T] {
    if v.len() != n {
        v.clear();
        v.resize(n, T::default());
    }
    v
}

/// One (sequence, head): q, k and v rows `stride` apart from `off`.
struct Head<'a, T> {
    q: &'a [T],
    k: &'a [T],
    v: &'a [T],
    stride: usize,
    off: usize,
    len: usize,
    hd: usize,
    scale: f32,
    window: Option<usize>,
}

impl<T: Elem> Head<'_, T> {
    fn row<'b>(&self, x: &'b [T], i: usize) -> &'b [T] {
        // rows are a whole projection apart: ask for one a few rows ahead (the hardware's
        // prefetcher does not follow strides this long)
        #[cfg(target_arch = "x86_64")]
        if let Some(ahead) = x.get(self.off + (i + 4) * self.stride..self.off + (i + 4) * self.stride + self.hd) {
            // SAFETY: a prefetch of an address inside the slice; it reads nothing
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>(ahead.as_ptr() as *const i8);
                _mm_prefetch::<_MM_HINT_T0>(ahead.as_ptr().add(ahead.len() - 1) as *const i8);
            }
        }
        &x[self.off + i * self.stride..self.off + i * self.stride + self.hd]
    }

    /// `softmax(q kᵀ · scale) v` on the bf16 kernel: q and k converted straight into the
    /// kernel's layouts, the scores of 32 × 32 blocks stored in place (blocks wholly outside a
    /// window skipped), the exponentials written in bf16 with each row's sum kept aside, v
    /// packed by rows, and each output row divided by its sum as it is written to `out` at
    /// `at + i · ld`.
    ///
    /// # Safety
    /// `out` holds those rows' `hd` values, which no other thread writes meanwhile.
    unsafe fn run_bf16(&self, kern: crate::bf16::Kernel, sc: &mut Scratch, out: Out, ld: usize, at: usize) {
        use crate::bf16::{block_into, convert};
        let (len, hd) = (self.len, self.hd);
        if len == 0 {
            return;
        }
        let r32 = |x: usize| x.div_ceil(32) * 32;
        let (kp, lp, np) = (r32(hd), r32(len), r32(hd));
        let a = sized(&mut sc.a, lp * kp);
        for (i, dst) in a.chunks_exact_mut(kp).enumerate() {
            if i < len {
                T::load(self.row(self.q, i), &mut dst[..hd]);
                dst[hd..].fill(0);
            } else {
                dst.fill(0);
            }
        }
        // k_hᵀ: panel j / 16 holds keys j..j + 16; its row r the pairs (k[j][2r], k[j][2r + 1])
        let kb = sized(&mut sc.kb, lp * kp);
        let row = sized(&mut sc.row, 2 * np.max(kp));
        for j in 0..lp {
            if j < len {
                T::load(self.row(self.k, j), &mut row[..hd]);
                row[hd..kp].fill(0);
            } else {
                row[..kp].fill(0);
            }
            let base = (j / 16) * kp * 16 + 2 * (j % 16);
            for r in 0..kp / 2 {
                kb[base + r * 32] = row[2 * r];
                kb[base + r * 32 + 1] = row[2 * r + 1];
            }
        }
        // v_h: panel d / 16 holds dims d..d + 16; its row r the pairs (v[2r][d], v[2r + 1][d])
        let vb = sized(&mut sc.vb, np * lp);
        for r in 0..lp / 2 {
            let (r0, r1) = row.split_at_mut(np);
            for (x, i) in [(&mut *r0, 2 * r), (&mut r1[..np], 2 * r + 1)] {
                if i < len {
                    T::load(self.row(self.v, i), &mut x[..hd]);
                    x[hd..].fill(0);
                } else {
                    x.fill(0);
                }
            }
            for d in 0..np {
                let at = (d / 16) * lp * 16 + r * 32 + 2 * (d % 16);
                vb[at] = r0[d];
                vb[at + 1] = r1[d];
            }
        }
        // 32 query rows at a time, so that their scores (32 × lp f32) and probabilities stay
        // in the first-level cache between the two products
        let s = sized(&mut sc.s, 32 * lp);
        let p = sized(&mut sc.p, 32 * lp);
        let w = self.window.unwrap_or(usize::MAX / 4);
        let native = native_exp();
        let mut c = [0f32; 32 * 32];
        for r0 in (0..lp).step_by(32) {
            for j0 in (0..lp).step_by(32) {
                // a block wholly outside every row's window is never read
                if j0 > r0 + 31 + w || j0 + 31 + w < r0 {
                    continue;
                }
                block_into(kern, &a[r0 * kp..], kp, &kb[(j0 / 16) * kp * 16..], s.as_mut_ptr().add(j0), lp);
            }
            let mut inv = [0f32; 32];
            for i in 0..32 {
                let prow = &mut p[i * lp..(i + 1) * lp];
                if r0 + i >= len {
                    prow.fill(0);
                    continue;
                }
                let (lo, hi) = seen(r0 + i, len, self.window);
                let srow = &mut s[i * lp + lo..i * lp + hi];
                inv[i] = if native {
                    // SAFETY: AVX-512 BF16 checked by native_exp
                    #[cfg(target_arch = "x86_64")]
                    unsafe {
                        crate::math::avx512::exp_row_bf16(srow, self.scale, &mut prow[lo..hi])
                    }
                    #[cfg(not(target_arch = "x86_64"))]
                    unreachable!()
                } else {
                    let z = crate::math::exp_shifted(srow, self.scale);
                    convert(srow, &mut prow[lo..hi]);
                    z
                };
                prow[..lo].fill(0);
                prow[hi..].fill(0);
            }
            for j0 in (0..np).step_by(32) {
                block_into(kern, p, lp, &vb[(j0 / 16) * lp * 16..], c.as_mut_ptr(), 32);
                let cols = 32.min(hd - j0);
                for (i, z) in inv.iter().enumerate().take(32.min(len.saturating_sub(r0))) {
                    let row = &mut c[i * 32..i * 32 + cols];
                    row.iter_mut().for_each(|x| *x *= z);
                    let to = at + (r0 + i) * ld + j0;
                    match out {
                        Out::F32(o) => std::slice::from_raw_parts_mut(o.add(to), cols).copy_from_slice(row),
                        Out::Bf16(o) => convert(row, std::slice::from_raw_parts_mut(o.add(to), cols)),
                    }
                }
            }
        }
    }
}

/// Whether the exponentials are written to bf16 by [`crate::math::avx512::exp_row_bf16`].
fn native_exp() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static OK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *OK.get_or_init(|| crate::math::avx512::usable() && is_x86_feature_detected!("avx512bf16"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
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

    /// The definition for sequences one after another, read from a fused q/k/v buffer.
    fn attention_strided(fused: &[f32], stride: usize, lens: &[usize], heads: usize, hd: usize) -> Vec<f32> {
        let hidden = heads * hd;
        let mut out = Vec::new();
        let mut at = 0;
        for &len in lens {
            let part = |o: usize| (at..at + len).flat_map(|i| fused[i * stride + o..i * stride + o + hidden].iter().copied()).collect::<Vec<f32>>();
            out.extend(reference(&part(0), &part(hidden), &part(2 * hidden), len, heads, hd, 0.3, None));
            at += len;
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
        // longer sequences on the bf16 kernel: padding past 32 rows, a local window that
        // leaves whole 32 × 32 blocks of scores unread (skipped), a head width not a multiple of 32
        if let Some(kern) = crate::bf16::kernel() {
            for (len, hd, w) in [(100, 8, Some(8)), (130, 40, None), (70, 32, Some(40))] {
                let r = |s: usize| (0..len * 2 * hd).map(|i| (((i * 7919 + s) % 1000) as f32 / 500.0) - 1.0).collect::<Vec<f32>>();
                let (q, k, v) = (r(7), r(8), r(9));
                let got = attention(&q, &k, &v, &[len], 2, hd, 0.3, w, Some(kern));
                let want = reference(&q, &k, &v, len, 2, hd, 0.3, w);
                let d = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
                assert!(d < 2e-2, "{len} tokens, head {hd}, window {w:?}: {d}");
            }
        }
        // q, k, v read from one fused bf16 buffer, the result written in bf16 rows
        if let Some(kern) = crate::bf16::kernel() {
            let (heads, hd, lens) = (3, 40, [45usize, 70]);
            let hidden = heads * hd;
            let rows: usize = lens.iter().sum();
            let fused: Vec<f32> = (0..rows * 3 * hidden).map(|i| (((i * 7919 + 11) % 1000) as f32 / 500.0) - 1.0).collect();
            let mut a = crate::bf16::Rows::default();
            a.fill(&fused, rows, 3 * hidden);
            let mut o = crate::bf16::Rows::default();
            attention_rows(&a, &lens, heads, hd, 0.3, None, kern, &mut o);
            let want = attention_strided(&fused, 3 * hidden, &lens, heads, hd);
            let (data, kp) = o.raw();
            for i in 0..rows {
                for j in 0..hidden {
                    let got = crate::bf16::from_bf16(data[i * kp + j]);
                    assert!((got - want[i * hidden + j]).abs() < 2e-2, "row {i}, column {j}: {got} vs {}", want[i * hidden + j]);
                }
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
