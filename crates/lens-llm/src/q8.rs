//! Int8 matrices for the language model's linear layers, and the kernels that multiply them.
//!
//! Format: a weight matrix `[rows][cols]` (cols a multiple of 32) is stored as blocks of 32
//! signed bytes with one f32 scale each (`w ≈ q * d`, `d = max|w| / 127`), the layout of GGML's
//! Q8_0. Whatever a GGUF file holds (Q4_K, Q5_0, Q6_K, Q8_0, F16, ...) is dequantised once at
//! load and requantised into this one format, so there is one kernel to make fast.
//!
//! Activations are quantised the same way per row before a product, and each block's integer
//! dot product is scaled by `d_w * d_x`. The VNNI instruction multiplies unsigned by signed
//! bytes: the kernel flips the weights' sign bit (`w + 128`) in a register and subtracts
//! `128 · Σx` per block, precomputed once per activation row, so weights carry no extra data. A product reads every weight once per tile of up to
//! [`ROW_TILE`] activation rows, so prefill (many rows) is compute-bound and decoding (one row)
//! reads the int8 weights once per token.
//!
//! Kernels are chosen at run time (`is_x86_feature_detected!`): AVX-512 VNNI, else AVX2,
//! else portable code; the binary runs on any x86_64 (and any other target) and uses what the
//! CPU has. All three give the same integers; tests check them against each other.

use rayon::prelude::*;
use std::sync::OnceLock;

pub const BLOCK: usize = 32;
/// Activation rows multiplied against one weight row while it sits in L1.
pub const ROW_TILE: usize = 32;
/// Fewest weight rows per parallel task; large matrices get more, so that a product is split
/// into about [`TASKS_PER_THREAD`] tasks per thread (the output layer's 152k rows would
/// otherwise be ~10k tasks per token).
const MIN_ROWS_PER_TASK: usize = 16;
const TASKS_PER_THREAD: usize = 8;

/// A quantised weight matrix.
pub struct Q8Matrix {
    pub rows: usize,
    pub cols: usize,
    q: Vec<i8>,
    d: Vec<f32>,
}

/// Activation rows, quantised per block, with each row's VNNI correction: per pair of blocks
/// 16 lanes, `16 · Σx` of the first block in lanes 0..7 and of the second in 8..15 (eight
/// lanes sum to a block, so together they take back `128 · Σx`).
pub struct Q8Rows {
    pub rows: usize,
    pub cols: usize,
    q: Vec<i8>,
    d: Vec<f32>,
    c: Vec<i32>,
}

fn corr_len(nb: usize) -> usize {
    nb.div_ceil(2) * 16
}

fn quantize_block(x: &[f32], q: &mut [i8]) -> f32 {
    let amax = x.iter().fold(0f32, |m, v| m.max(v.abs()));
    if amax == 0.0 || !amax.is_finite() {
        q.iter_mut().for_each(|v| *v = 0);
        return 0.0;
    }
    let d = amax / 127.0;
    let id = 1.0 / d;
    for (o, v) in q.iter_mut().zip(x) {
        // round half away from zero without a libm call (`f32::round` is one on baseline x86_64)
        let t = v * id;
        *o = (t + 0.5f32.copysign(t)).clamp(-127.0, 127.0) as i8;
    }
    d
}

impl Q8Matrix {
    /// Quantise a row-major f32 matrix. `cols` must be a multiple of [`BLOCK`].
    pub fn quantize(w: &[f32], rows: usize, cols: usize) -> Q8Matrix {
        assert!(cols.is_multiple_of(BLOCK) && w.len() == rows * cols, "a {rows}x{cols} matrix in blocks of {BLOCK}");
        let nb = rows * cols / BLOCK;
        let mut q = vec![0i8; rows * cols];
        let mut d = vec![0f32; nb];
        q.par_chunks_mut(BLOCK).zip(d.par_iter_mut()).zip(w.par_chunks(BLOCK)).for_each(|((qb, db), wb)| *db = quantize_block(wb, qb));
        Q8Matrix { rows, cols, q, d }
    }

    /// The rows of `parts`, one after another (all with the same columns).
    pub fn stack(parts: Vec<Q8Matrix>) -> Q8Matrix {
        let cols = parts.first().map(|p| p.cols).unwrap_or(BLOCK);
        let mut m = Q8Matrix { rows: 0, cols, q: Vec::new(), d: Vec::new() };
        for p in parts {
            assert_eq!(p.cols, cols, "stacked matrices share their columns");
            m.rows += p.rows;
            m.q.extend_from_slice(&p.q);
            m.d.extend_from_slice(&p.d);
        }
        m
    }

    pub fn bytes(&self) -> usize {
        self.q.len() + self.d.len() * 4
    }

    /// Row `r`, dequantised (embedding lookups).
    pub fn row(&self, r: usize) -> Vec<f32> {
        let nb = self.cols / BLOCK;
        let q = &self.q[r * self.cols..(r + 1) * self.cols];
        let d = &self.d[r * nb..(r + 1) * nb];
        q.chunks(BLOCK).zip(d).flat_map(|(qb, &db)| qb.iter().map(move |&v| v as f32 * db)).collect()
    }

    /// `x [n][cols] · selfᵀ → [n][rows]`.
    pub fn matmul(&self, x: &Q8Rows) -> Vec<f32> {
        assert_eq!(x.cols, self.cols, "activation width");
        let kernel = kernel();
        let (n, cols, nb) = (x.rows, self.cols, self.cols / BLOCK);
        let mut out = vec![0f32; n * self.rows];
        // each task: a run of weight rows against every activation row, tile by tile
        let per_task = (self.rows / (rayon::current_num_threads() * TASKS_PER_THREAD)).next_multiple_of(4).max(MIN_ROWS_PER_TASK);
        let tiles: Vec<(usize, Vec<f32>)> = (0..self.rows.div_ceil(per_task))
            .into_par_iter()
            .map(|t| {
                let r0 = t * per_task;
                let r1 = (r0 + per_task).min(self.rows);
                let mut tile = vec![0f32; (r1 - r0) * n];
                let wrow = |r: usize| Block { q: &self.q[r * cols..(r + 1) * cols], d: &self.d[r * nb..(r + 1) * nb] };
                for a0 in (0..n).step_by(ROW_TILE) {
                    let a1 = (a0 + ROW_TILE).min(n);
                    for g in (r0..r1).step_by(4) {
                        // four weight rows at a time (the last group repeats its last row)
                        let ws = [wrow(g), wrow((g + 1).min(r1 - 1)), wrow((g + 2).min(r1 - 1)), wrow((g + 3).min(r1 - 1))];
                        for a in a0..a1 {
                            let xa = x.row(a);
                            let v = kernel(&ws, &xa);
                            for (i, r) in (g..(g + 4).min(r1)).enumerate() {
                                tile[(r - r0) * n + a] = v[i];
                            }
                        }
                    }
                }
                (r0, tile)
            })
            .collect();
        for (r0, tile) in tiles {
            let rows = tile.len() / n.max(1);
            for i in 0..rows {
                for a in 0..n {
                    out[a * self.rows + r0 + i] = tile[i * n + a];
                }
            }
        }
        out
    }
}

impl Q8Rows {
    pub fn quantize(x: &[f32], rows: usize, cols: usize) -> Q8Rows {
        assert!(cols.is_multiple_of(BLOCK) && x.len() == rows * cols);
        let mut q = vec![0i8; rows * cols];
        let mut d = vec![0f32; rows * cols / BLOCK];
        for ((qb, db), xb) in q.chunks_mut(BLOCK).zip(d.iter_mut()).zip(x.chunks(BLOCK)) {
            *db = quantize_block(xb, qb);
        }
        let nb = cols / BLOCK;
        let cl = corr_len(nb);
        let mut c = vec![0i32; rows * cl];
        for r in 0..rows {
            for b in 0..nb {
                let sum: i32 = q[r * cols + b * BLOCK..r * cols + (b + 1) * BLOCK].iter().map(|&v| v as i32).sum();
                let at = r * cl + (b / 2) * 16 + (b % 2) * 8;
                c[at..at + 8].iter_mut().for_each(|x| *x = 16 * sum);
            }
        }
        Q8Rows { rows, cols, q, d, c }
    }

    fn row(&self, a: usize) -> Acts<'_> {
        let (cols, nb) = (self.cols, self.cols / BLOCK);
        let cl = corr_len(nb);
        Acts { q: &self.q[a * cols..(a + 1) * cols], d: &self.d[a * nb..(a + 1) * nb], c: &self.c[a * cl..(a + 1) * cl] }
    }
}

struct Block<'a> {
    q: &'a [i8],
    d: &'a [f32],
}

struct Acts<'a> {
    q: &'a [i8],
    d: &'a [f32],
    c: &'a [i32],
}

/// Four weight rows against one activation row.
type Kernel = fn(&[Block; 4], &Acts) -> [f32; 4];

/// The kernel this CPU runs, chosen once.
fn kernel() -> Kernel {
    static K: OnceLock<(Kernel, &'static str)> = OnceLock::new();
    K.get_or_init(detect).0
}

/// The name of the kernel in use: `avx512vnni`, `avx2` or `portable`.
pub fn kernel_name() -> &'static str {
    static K: OnceLock<&'static str> = OnceLock::new();
    K.get_or_init(|| detect().1)
}

fn detect() -> (Kernel, &'static str) {
    if std::env::var("LENS_Q8_KERNEL").as_deref() == Ok("portable") {
        return (dot4_portable, "portable");
    }
    #[cfg(target_arch = "x86_64")]
    {
        let forced = std::env::var("LENS_Q8_KERNEL").ok();
        if forced.as_deref() != Some("avx2")
            && is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512vnni")
            && is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
        {
            return (dot4_vnni_entry, "avx512vnni");
        }
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            return (dot4_avx2, "avx2");
        }
    }
    (dot4_portable, "portable")
}

fn four<F: Fn(&Block, &Acts) -> f32>(f: F, w: &[Block; 4], x: &Acts) -> [f32; 4] {
    [f(&w[0], x), f(&w[1], x), f(&w[2], x), f(&w[3], x)]
}

fn dot4_portable(w: &[Block; 4], x: &Acts) -> [f32; 4] {
    four(dot_portable, w, x)
}

fn dot_portable(w: &Block, x: &Acts) -> f32 {
    let mut s = 0f32;
    for ((wb, xb), (dw, dx)) in w.q.chunks(BLOCK).zip(x.q.chunks(BLOCK)).zip(w.d.iter().zip(x.d)) {
        let i: i32 = wb.iter().zip(xb).map(|(&a, &b)| a as i32 * b as i32).sum();
        s += i as f32 * dw * dx;
    }
    s
}

#[cfg(target_arch = "x86_64")]
fn dot_avx2_entry(w: &Block, x: &Acts) -> f32 {
    // SAFETY: chosen only when the CPU reports avx2 and fma
    unsafe { dot_avx2(w, x) }
}

#[cfg(target_arch = "x86_64")]
fn dot4_avx2(w: &[Block; 4], x: &Acts) -> [f32; 4] {
    four(dot_avx2_entry, w, x)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_avx2(w: &Block, x: &Acts) -> f32 {
    use std::arch::x86_64::*;
    let nb = w.d.len();
    let mut acc = _mm256_setzero_ps();
    let ones = _mm256_set1_epi16(1);
    for b in 0..nb {
        let wv = _mm256_loadu_si256(w.q.as_ptr().add(b * BLOCK) as *const __m256i);
        let xv = _mm256_loadu_si256(x.q.as_ptr().add(b * BLOCK) as *const __m256i);
        // |w| (unsigned) times x with w's sign: maddubs needs one unsigned operand
        let aw = _mm256_sign_epi8(wv, wv);
        let sx = _mm256_sign_epi8(xv, wv);
        let p16 = _mm256_maddubs_epi16(aw, sx);
        let p32 = _mm256_madd_epi16(p16, ones);
        let s = _mm256_set1_ps(*w.d.get_unchecked(b) * *x.d.get_unchecked(b));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p32), s, acc);
    }
    hsum256(acc)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn hsum256(v: std::arch::x86_64::__m256) -> f32 {
    use std::arch::x86_64::*;
    let lo = _mm256_castps256_ps128(v);
    let hi = _mm256_extractf128_ps(v, 1);
    let s = _mm_add_ps(lo, hi);
    let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    let s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    _mm_cvtss_f32(s)
}

#[cfg(target_arch = "x86_64")]
fn dot4_vnni_entry(w: &[Block; 4], x: &Acts) -> [f32; 4] {
    // SAFETY: chosen only when the CPU reports avx512f, avx512bw, avx512dq, avx512vnni, avx2 and
    // fma; the four rows and the activations have the same number of blocks (checked by matmul)
    unsafe { dot4_vnni(w, x) }
}

/// Four weight rows against one activation row, two blocks per 64-byte step:
/// `dpbusd(w + 128, x)` sums four products per lane (lanes 0..7 one block, 8..15 the next);
/// the row's precomputed correction takes back the `+128`, and the lanes are scaled by their
/// block's `d_w * d_x` (spread to the lanes by one permute). An odd last block is read with a
/// masked load (the upper lanes stay zero, and so does their correction).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vnni,avx2,fma")]
unsafe fn dot4_vnni(w: &[Block; 4], x: &Acts) -> [f32; 4] {
    use std::arch::x86_64::*;
    let nb = x.d.len();
    let (xq, xd, xc) = (x.q.as_ptr(), x.d.as_ptr(), x.c.as_ptr());
    let wq = [w[0].q.as_ptr(), w[1].q.as_ptr(), w[2].q.as_ptr(), w[3].q.as_ptr()];
    let wd = [w[0].d.as_ptr(), w[1].d.as_ptr(), w[2].d.as_ptr(), w[3].d.as_ptr()];
    let spread = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    let flip = _mm512_set1_epi8(-128);
    let mut acc = [_mm512_setzero_ps(); 4];
    let mut b = 0;
    while b < nb {
        let two = b + 1 < nb;
        let (xv, xs) = if two {
            (_mm512_loadu_si512(xq.add(b * BLOCK) as *const _), _mm_castsi128_ps(_mm_loadl_epi64(xd.add(b) as *const _)))
        } else {
            (_mm512_maskz_loadu_epi8(0xFFFF_FFFF, xq.add(b * BLOCK)), _mm_set_ss(*xd.add(b)))
        };
        let corr = _mm512_loadu_si512(xc.add(b * 8) as *const _);
        for r in 0..4 {
            let (wv, ws) = if two {
                (_mm512_loadu_si512(wq[r].add(b * BLOCK) as *const _), _mm_castsi128_ps(_mm_loadl_epi64(wd[r].add(b) as *const _)))
            } else {
                (_mm512_maskz_loadu_epi8(0xFFFF_FFFF, wq[r].add(b * BLOCK)), _mm_set_ss(*wd[r].add(b)))
            };
            let p = _mm512_sub_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_xor_si512(wv, flip), xv), corr);
            let sc = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_mul_ps(ws, xs)));
            acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(p), sc, acc[r]);
        }
        b += 2;
    }
    [_mm512_reduce_add_ps(acc[0]), _mm512_reduce_add_ps(acc[1]), _mm512_reduce_add_ps(acc[2]), _mm512_reduce_add_ps(acc[3])]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::pseudo;

    #[test]
    fn kernels_agree_with_each_other_and_with_f32() {
        // 3 and 9 blocks per row: the VNNI kernel's tail is exercised too
        for cols in [96, 128, 288, 896] {
            let (rows, n) = (37, 5);
            let w = pseudo(rows * cols, 1);
            let x = pseudo(n * cols, 2);
            let m = Q8Matrix::quantize(&w, rows, cols);
            let xr = Q8Rows::quantize(&x, n, cols);
            let got = m.matmul(&xr);
            let nb = cols / BLOCK;
            for a in 0..n {
                for r in 0..rows {
                    let wb = Block { q: &m.q[r * cols..(r + 1) * cols], d: &m.d[r * nb..(r + 1) * nb] };
                    let xa = xr.row(a);
                    let port = dot_portable(&wb, &xa);
                    let exact: f32 = (0..cols).map(|c| w[r * cols + c] * x[a * cols + c]).sum();
                    let g = got[a * rows + r];
                    assert!((g - port).abs() <= 1e-4 * (1.0 + port.abs()), "kernel {} vs portable: {g} vs {port}", kernel_name());
                    // int8 on both sides: ~1% of the magnitude of the terms
                    assert!((g - exact).abs() < 0.02 * (cols as f32).sqrt(), "{g} vs exact {exact}");
                    #[cfg(target_arch = "x86_64")]
                    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                        let a2 = dot_avx2_entry(&wb, &xa);
                        assert!((a2 - port).abs() <= 1e-4 * (1.0 + port.abs()));
                    }
                    #[cfg(target_arch = "x86_64")]
                    if kernel_name() == "avx512vnni" {
                        let wb2 = Block { q: wb.q, d: wb.d };
                        let v = dot4_vnni_entry(&[wb, wb2, Block { q: &m.q[..cols], d: &m.d[..nb] }, Block { q: &m.q[..cols], d: &m.d[..nb] }], &xa);
                        assert!((v[0] - port).abs() <= 1e-4 * (1.0 + port.abs()) && v[0] == v[1], "{v:?} vs {port}");
                    }
                }
            }
        }
    }

    #[test]
    fn zero_and_row_roundtrip() {
        let w = vec![0f32; 64];
        let m = Q8Matrix::quantize(&w, 2, 32);
        assert_eq!(m.row(1), vec![0f32; 32]);
        let w = pseudo(64, 3);
        let m = Q8Matrix::quantize(&w, 1, 64);
        for (a, b) in m.row(0).iter().zip(&w) {
            assert!((a - b).abs() <= 1.0 / 127.0 / 2.0 + 1e-6);
        }
    }
}
