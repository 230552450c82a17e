//! MaxSim, the late-interaction score: `score(q, page) = Σ_i max_j ⟨q_i, p_j⟩` over the query's
//! token vectors `q_i` and the page's patch vectors `p_j`.
//!
//! Page vectors are stored as f16 in **blocks of 16 vectors, dimension-major**: block `b` holds
//! `dim` rows of 16 lanes, lane `l` of row `d` being component `d` of vector `16b + l` (the last
//! block padded with zeros; the page's vector count masks them out). One row is one 32-byte load
//! widened to 16 f32 lanes, so a block's 16 dot products with one query token take `dim` fused
//! multiply-adds with the query component broadcast, and no horizontal sums until the page ends.
//! Query tokens go in chunks that fit the registers (up to 16 accumulators with AVX-512, 6
//! pairs with AVX2), each chunk reading the block again from L1.
//!
//! Kernels are chosen at run time: AVX-512F, else AVX2 + F16C + FMA, else portable code (any
//! target; aarch64 runs the portable loop, which LLVM vectorises with NEON). All accumulate in
//! f32 and agree to rounding; tests compare them. `LENS_MAXSIM_KERNEL=portable|avx2|avx512`
//! forces one (for the benchmark and the tests).

use half::f16;
use std::sync::OnceLock;

/// Vectors per block.
pub const LANES: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    Portable,
    Avx2,
    Avx512,
}

impl Kernel {
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// Can this CPU run it?
    pub fn available(self) -> bool {
        match self {
            Kernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") && is_x86_feature_detected!("f16c"),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }
}

/// The best kernel this CPU has (or the one `LENS_MAXSIM_KERNEL` or `LENS_KERNEL` names, if it
/// can run; see [`lens_ml::choose_kernel`]).
pub fn kernel() -> Kernel {
    static K: OnceLock<Kernel> = OnceLock::new();
    *K.get_or_init(|| {
        let all = [Kernel::Avx512, Kernel::Avx2, Kernel::Portable];
        let names: Vec<(&str, bool)> = all.iter().map(|k| (k.name(), k.available())).collect();
        let chosen = lens_ml::choose_kernel("LENS_MAXSIM_KERNEL", &names);
        all.into_iter().find(|k| Some(k.name()) == chosen).unwrap_or(Kernel::Portable)
    })
}

/// f16 elements a page of `n` vectors of `dim` takes in the blocked layout.
pub fn blocked_len(n: usize, dim: usize) -> usize {
    n.div_ceil(LANES) * LANES * dim
}

/// Row-major vectors (`n × dim` f32) into the blocked f16 layout.
pub fn to_blocked(vecs: &[f32], dim: usize) -> Vec<u16> {
    let n = vecs.len() / dim;
    let mut out = vec![0u16; blocked_len(n, dim)];
    for (j, v) in vecs.chunks_exact(dim).enumerate() {
        let (b, l) = (j / LANES, j % LANES);
        for (d, x) in v.iter().enumerate() {
            out[b * LANES * dim + d * LANES + l] = f16::from_f32(*x).to_bits();
        }
    }
    out
}

/// The blocked layout back to row-major f32 (`n` vectors).
pub fn from_blocked(blocks: &[u16], n: usize, dim: usize) -> Vec<f32> {
    let mut out = vec![0f32; n * dim];
    for j in 0..n {
        let (b, l) = (j / LANES, j % LANES);
        for d in 0..dim {
            out[j * dim + d] = f16::from_bits(blocks[b * LANES * dim + d * LANES + l]).to_f32();
        }
    }
    out
}

/// MaxSim of a query (`nq × dim` f32, row-major) against one page (`n` vectors, blocked f16).
pub fn score(q: &[f32], dim: usize, page: &[u16], n: usize) -> f32 {
    score_with(kernel(), q, dim, page, n)
}

pub fn score_with(k: Kernel, q: &[f32], dim: usize, page: &[u16], n: usize) -> f32 {
    assert_eq!(q.len() % dim, 0, "query length is a multiple of dim");
    assert!(page.len() >= blocked_len(n, dim), "page shorter than its vector count");
    if n == 0 || q.is_empty() {
        return 0.0;
    }
    match k {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 if k.available() => unsafe { x86::score_avx512(q, dim, page, n) },
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 if k.available() => unsafe { x86::score_avx2(q, dim, page, n) },
        _ => score_portable(q, dim, page, n),
    }
}

fn score_portable(q: &[f32], dim: usize, page: &[u16], n: usize) -> f32 {
    thread_local! {
        // one block widened to f32, reused across pages (no allocation per page)
        static ROWS: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let nq = q.len() / dim;
    ROWS.with(|rows| {
        let mut rows = rows.borrow_mut();
        rows.resize(dim * LANES, 0.0);
        let mut best = [f32::NEG_INFINITY; 64];
        let mut total = 0.0;
        // query tokens in groups of 64 (the running maxima live on the stack)
        for qg in q.chunks(64 * dim) {
            let gq = qg.len() / dim;
            best[..gq].fill(f32::NEG_INFINITY);
            for (b, block) in page.chunks_exact(LANES * dim).take(n.div_ceil(LANES)).enumerate() {
                for (r, h) in rows.iter_mut().zip(block) {
                    *r = f16::from_bits(*h).to_f32();
                }
                let live = (n - b * LANES).min(LANES);
                for (i, qi) in qg.chunks_exact(dim).enumerate() {
                    let mut acc = [0f32; LANES];
                    for (qd, row) in qi.iter().zip(rows.chunks_exact(LANES)) {
                        for (a, r) in acc.iter_mut().zip(row) {
                            *a += qd * r;
                        }
                    }
                    best[i] = acc[..live].iter().fold(best[i], |m, v| m.max(*v));
                }
            }
            total += best[..gq].iter().sum::<f32>();
        }
        debug_assert!(nq == 0 || total.is_finite());
        total
    })
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::LANES;
    use std::arch::x86_64::*;

    /// Query tokens per pass: 16 accumulators + the widened row fit AVX-512's 32 registers.
    const CHUNK512: usize = 16;

    #[target_feature(enable = "avx512f")]
    pub unsafe fn score_avx512(q: &[f32], dim: usize, page: &[u16], n: usize) -> f32 {
        let nq = q.len() / dim;
        // split the query into equal chunks (20 tokens: 10 + 10, not 16 + 4)
        let passes = nq.div_ceil(CHUNK512);
        let per = nq.div_ceil(passes);
        let mut total = 0f32;
        let mut i0 = 0;
        while i0 < nq {
            let c = per.min(nq - i0);
            total += match c {
                1 => chunk512::<1>(q, i0, dim, page, n),
                2 => chunk512::<2>(q, i0, dim, page, n),
                3 => chunk512::<3>(q, i0, dim, page, n),
                4 => chunk512::<4>(q, i0, dim, page, n),
                5 => chunk512::<5>(q, i0, dim, page, n),
                6 => chunk512::<6>(q, i0, dim, page, n),
                7 => chunk512::<7>(q, i0, dim, page, n),
                8 => chunk512::<8>(q, i0, dim, page, n),
                9 => chunk512::<9>(q, i0, dim, page, n),
                10 => chunk512::<10>(q, i0, dim, page, n),
                11 => chunk512::<11>(q, i0, dim, page, n),
                12 => chunk512::<12>(q, i0, dim, page, n),
                13 => chunk512::<13>(q, i0, dim, page, n),
                14 => chunk512::<14>(q, i0, dim, page, n),
                15 => chunk512::<15>(q, i0, dim, page, n),
                _ => chunk512::<16>(q, i0, dim, page, n),
            };
            i0 += c;
        }
        total
    }

    /// Σ over query tokens i0..i0+C of the max over the page's vectors.
    #[target_feature(enable = "avx512f")]
    unsafe fn chunk512<const C: usize>(q: &[f32], i0: usize, dim: usize, page: &[u16], n: usize) -> f32 {
        let qp = q.as_ptr().add(i0 * dim);
        let mut best = [_mm512_set1_ps(f32::NEG_INFINITY); C];
        let blocks = n.div_ceil(LANES);
        for b in 0..blocks {
            let base = page.as_ptr().add(b * LANES * dim);
            let mut acc = [_mm512_setzero_ps(); C];
            for d in 0..dim {
                let row = _mm512_cvtph_ps(_mm256_loadu_si256(base.add(d * LANES) as *const __m256i));
                for (i, a) in acc.iter_mut().enumerate() {
                    *a = _mm512_fmadd_ps(_mm512_set1_ps(*qp.add(i * dim + d)), row, *a);
                }
            }
            let live = (n - b * LANES).min(LANES);
            let mask: __mmask16 = if live == LANES { 0xffff } else { (1u16 << live) - 1 };
            for (m, a) in best.iter_mut().zip(acc) {
                *m = _mm512_mask_max_ps(*m, mask, *m, a);
            }
        }
        best.iter().map(|m| _mm512_reduce_max_ps(*m)).sum()
    }

    /// Query tokens per pass with AVX2: a block is two 8-lane halves, so 6 tokens take 12
    /// accumulators, plus the two widened halves, within 16 registers.
    const CHUNK256: usize = 6;

    #[target_feature(enable = "avx2,fma,f16c")]
    pub unsafe fn score_avx2(q: &[f32], dim: usize, page: &[u16], n: usize) -> f32 {
        let nq = q.len() / dim;
        let passes = nq.div_ceil(CHUNK256);
        let per = nq.div_ceil(passes);
        let mut total = 0f32;
        let mut i0 = 0;
        while i0 < nq {
            let c = per.min(nq - i0);
            total += match c {
                1 => chunk256::<1>(q, i0, dim, page, n),
                2 => chunk256::<2>(q, i0, dim, page, n),
                3 => chunk256::<3>(q, i0, dim, page, n),
                4 => chunk256::<4>(q, i0, dim, page, n),
                5 => chunk256::<5>(q, i0, dim, page, n),
                _ => chunk256::<6>(q, i0, dim, page, n),
            };
            i0 += c;
        }
        total
    }

    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn hmax256(v: __m256) -> f32 {
        let m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let m = _mm_max_ps(m, _mm_movehl_ps(m, m));
        let m = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
        _mm_cvtss_f32(m)
    }

    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn chunk256<const C: usize>(q: &[f32], i0: usize, dim: usize, page: &[u16], n: usize) -> f32 {
        let qp = q.as_ptr().add(i0 * dim);
        let ninf = _mm256_set1_ps(f32::NEG_INFINITY);
        let mut best = [[ninf; 2]; C];
        let blocks = n.div_ceil(LANES);
        let lane_ids = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        for b in 0..blocks {
            let base = page.as_ptr().add(b * LANES * dim);
            let mut acc = [[_mm256_setzero_ps(); 2]; C];
            for d in 0..dim {
                let lo = _mm256_cvtph_ps(_mm_loadu_si128(base.add(d * LANES) as *const __m128i));
                let hi = _mm256_cvtph_ps(_mm_loadu_si128(base.add(d * LANES + 8) as *const __m128i));
                for (i, a) in acc.iter_mut().enumerate() {
                    let x = _mm256_set1_ps(*qp.add(i * dim + d));
                    a[0] = _mm256_fmadd_ps(x, lo, a[0]);
                    a[1] = _mm256_fmadd_ps(x, hi, a[1]);
                }
            }
            let live = ((n - b * LANES).min(LANES)) as i32;
            // lanes at or past `live` are padding: -inf before the max
            let keep_lo = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(live), lane_ids));
            let keep_hi = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(live - 8), lane_ids));
            for (m, a) in best.iter_mut().zip(acc) {
                m[0] = _mm256_max_ps(m[0], _mm256_blendv_ps(ninf, a[0], keep_lo));
                m[1] = _mm256_max_ps(m[1], _mm256_blendv_ps(ninf, a[1], keep_hi));
            }
        }
        best.iter().map(|m| hmax256(_mm256_max_ps(m[0], m[1]))).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rand_vecs(n: usize, dim: usize, seed: u64) -> Vec<f32> {
        let mut s = seed;
        let mut v: Vec<f32> = (0..n * dim)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 33) as f32 / (1u64 << 31) as f32) * 2.0 - 1.0
            })
            .collect();
        for r in v.chunks_exact_mut(dim) {
            let norm = r.iter().map(|x| x * x).sum::<f32>().sqrt();
            r.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }

    /// The definition, in f64 over the f16-rounded page.
    fn reference(q: &[f32], page: &[f32], dim: usize) -> f64 {
        q.chunks_exact(dim)
            .map(|qi| page.chunks_exact(dim).map(|p| qi.iter().zip(p).map(|(a, b)| *a as f64 * *b as f64).sum::<f64>()).fold(f64::NEG_INFINITY, f64::max))
            .sum()
    }

    #[test]
    fn blocked_layout_round_trips() {
        let v = rand_vecs(37, 8, 1);
        let b = to_blocked(&v, 8);
        assert_eq!(b.len(), 48 * 8);
        let back = from_blocked(&b, 37, 8);
        for (x, y) in v.iter().zip(&back) {
            assert!((x - y).abs() < 1e-3);
        }
    }

    #[test]
    fn every_kernel_matches_the_definition() {
        // vector counts around block edges; query lengths around chunk edges; all-negative
        // dot products (padding must not win with its zeros)
        for (n, nq, dim, seed) in [(1, 1, 16, 1), (15, 3, 32, 2), (16, 7, 128, 3), (17, 20, 128, 4), (355, 20, 128, 5), (40, 33, 64, 6)] {
            let q = rand_vecs(nq, dim, seed);
            let mut pv = rand_vecs(n, dim, seed + 100);
            let blocks = to_blocked(&pv, dim);
            pv = from_blocked(&blocks, n, dim);
            let want = reference(&q, &pv, dim);
            for k in [Kernel::Portable, Kernel::Avx2, Kernel::Avx512] {
                if !k.available() {
                    continue;
                }
                let got = score_with(k, &q, dim, &blocks, n) as f64;
                assert!((got - want).abs() <= 1e-4 * want.abs().max(1.0), "{k:?} n={n} nq={nq}: {got} vs {want}");
            }
            // negated page: every dot product negative, the max is the least negative
            let neg: Vec<f32> = pv.iter().map(|x| -x).collect();
            let nb = to_blocked(&neg, dim);
            let want = reference(&q, &neg, dim);
            for k in [Kernel::Portable, Kernel::Avx2, Kernel::Avx512] {
                if k.available() {
                    let got = score_with(k, &q, dim, &nb, n) as f64;
                    assert!((got - want).abs() <= 1e-4 * want.abs().max(1.0), "{k:?} negative n={n}: {got} vs {want}");
                }
            }
        }
    }
}
