//! Element-wise arithmetic the models share, written so that loops over it vectorise: `exp`
//! without a library call, a softmax and SiLU-gating over slices, each compiled for the widest
//! vectors the CPU has ([`crate::simd_fn!`]).

/// `e^x` in f32 without a library call, so loops over it vectorise: `x = n ln 2 + r` with
/// |r| ≤ ln 2 / 2, `e^r` by its degree-7 Taylor polynomial (relative error < 2e-7 there),
/// `2^n` put into the exponent bits; the input is clamped to [−87, 88] (e^−87 ≈ 1.6e−38).
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    let x = x.clamp(-87.0, 88.0);
    // round to nearest by the 1.5·2^23 trick: no library call, so the loop vectorises
    const SHIFT: f32 = 12_582_912.0;
    let shifted = x * std::f32::consts::LOG2_E + SHIFT;
    let n = shifted - SHIFT;
    let r = x - n * 0.693_145_75 - n * 1.428_606_8e-6;
    let p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r * (1.0 / 5040.0)))))));
    // n as an integer, read off the shifted value's low mantissa bits (no float-to-int
    // conversion, whose saturating rules keep the loop from vectorising)
    let ni = (shifted.to_bits() as i32).wrapping_sub(SHIFT.to_bits() as i32);
    p * f32::from_bits(((ni + 127) as u32) << 23)
}

#[inline(always)]
pub fn sum8(x: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let c = x.chunks_exact(8);
    let tail: f32 = c.remainder().iter().sum();
    for v in c {
        for i in 0..8 {
            acc[i] += v[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// `v = softmax(v · scale)` in place (`scale` > 0).
pub fn softmax(v: &mut [f32], scale: f32) {
    let inv = exp_shifted(v, scale);
    scale_by(v, inv);
}

crate::simd_fn! {
    /// `v *= by`, element by element.
    fn scale_by(v: &mut [f32], by: f32) {
        v.iter_mut().for_each(|x| *x *= by);
    }
}

crate::simd_fn! {
    /// `v = e^(v · scale − max(v) · scale)` in place (`scale` > 0): a softmax's exponentials,
    /// not yet divided by their sum; returns 1 / that sum.
    pub fn exp_shifted(v: &mut [f32], scale: f32) -> f32 {
        // the maximum in sixteen lanes (a plain fold over f32::max does not vectorise)
        let mut lanes = [f32::NEG_INFINITY; 16];
        let c = v.chunks_exact(16);
        let mut m = c.remainder().iter().fold(f32::NEG_INFINITY, |a, x| if *x > a { *x } else { a });
        for ch in c {
            for i in 0..16 {
                lanes[i] = if ch[i] > lanes[i] { ch[i] } else { lanes[i] };
            }
        }
        for l in lanes {
            m = if l > m { l } else { m };
        }
        let m = m * scale;
        // two passes: the exponentials, then a sum in eight lanes
        for x in v.iter_mut() {
            *x = exp(*x * scale - m);
        }
        1.0 / sum8(v)
    }
}

/// `silu(x) = x / (1 + e^−x)`.
#[inline(always)]
pub fn silu(x: f32) -> f32 {
    x / (1.0 + exp(-x))
}

crate::simd_fn! {
    /// `silu(g) · u` element by element (the gated MLP).
    pub fn silu_mul(g: &[f32], u: &[f32]) -> Vec<f32> {
        g.iter().zip(u).map(|(g, u)| silu(*g) * u).collect()
    }
}

crate::simd_fn! {
    /// Each row of `x` (rows of `w.len()`) in place: `(x − mean) / √(var + eps) · w + b`.
    pub fn layer_norm(x: &mut [f32], w: &[f32], b: &[f32], eps: f32) {
        let n = w.len();
        for row in x.chunks_exact_mut(n) {
            let mean = sum8(row) / n as f32;
            let mut acc = [0f32; 8];
            let c = row.chunks_exact(8);
            let mut var: f32 = c.remainder().iter().map(|v| (v - mean) * (v - mean)).sum();
            for ch in c {
                for i in 0..8 {
                    acc[i] += (ch[i] - mean) * (ch[i] - mean);
                }
            }
            var += acc.iter().sum::<f32>();
            let inv = 1.0 / (var / n as f32 + eps).sqrt();
            for ((v, w), b) in row.iter_mut().zip(w).zip(b) {
                *v = (*v - mean) * inv * w + b;
            }
        }
    }
}

/// `erf(x)` to about 4e-7 in f32 (Abramowitz & Stegun 7.1.26: 1.5e-7 in exact arithmetic),
/// with [`exp`] so loops vectorise.
#[inline(always)]
pub fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let y = 1.0 - t * (0.254_829_6 + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4)))) * exp(-a * a);
    if x < 0.0 {
        -y
    } else {
        y
    }
}

/// The exact GELU of one value: `x · (1 + erf(x / √2)) / 2`.
#[inline(always)]
pub fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

crate::simd_fn! {
    /// The exact GELU (`hidden_act: gelu`) in place: `x · (1 + erf(x / √2)) / 2`.
    pub fn gelu_erf(x: &mut [f32]) {
        for v in x.iter_mut() {
            *v = gelu(*v);
        }
    }
}

crate::simd_fn! {
    /// `x += y` element by element.
    pub fn add(x: &mut [f32], y: &[f32]) {
        x.iter_mut().zip(y).for_each(|(x, y)| *x += y);
    }
}

/// The element-wise functions the bf16 paths run, written with AVX-512 intrinsics: `exp` by
/// `scalef` (no exponent-bit arithmetic), the GELU's division by a reciprocal estimate and one
/// Newton step (a vector division costs about ten times a multiply). Each agrees with the
/// portable function above to within a few f32 ulps (tests below).
#[cfg(target_arch = "x86_64")]
pub mod avx512 {
    use std::arch::x86_64::*;

    /// Whether this CPU runs these (AVX-512F, what [`crate::simd_level`] 2 promises).
    pub fn usable() -> bool {
        crate::simd_level() == 2
    }

    /// `e^x`, as [`super::exp`]: `x = n ln 2 + r`, `e^r` by its degree-7 Taylor polynomial,
    /// times `2^n` by `vscalefps`.
    ///
    /// # Safety
    /// The CPU has AVX-512F ([`usable`]).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub fn exp(x: __m512) -> __m512 {
        let x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.0)), _mm512_set1_ps(88.0));
        let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm512_mul_ps(x, _mm512_set1_ps(std::f32::consts::LOG2_E)));
        let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693_145_75), x);
        let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428_606_8e-6), r);
        let mut p = _mm512_set1_ps(1.0 / 5040.0);
        for c in [1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0] {
            p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
        }
        _mm512_scalef_ps(p, n)
    }

    /// [`super::gelu`] of 16 values.
    ///
    /// # Safety
    /// The CPU has AVX-512F ([`usable`]).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub fn gelu(x: __m512) -> __m512 {
        gelu_with(x, exp)
    }

    /// [`gelu`] for a value rounded to bf16 next: its `e^(-z²)` to about 4e-5 (relative), far
    /// below bf16's 2e-3.
    ///
    /// # Safety
    /// The CPU has AVX-512F ([`usable`]).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub fn gelu_for_bf16(x: __m512) -> __m512 {
        gelu_with(x, exp_for_bf16)
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn gelu_with(x: __m512, exp: fn(__m512) -> __m512) -> __m512 {
        let sign = _mm512_set1_epi32(i32::MIN);
        let xi = _mm512_castps_si512(x);
        let z = _mm512_castsi512_ps(_mm512_andnot_si512(sign, xi));
        let z = _mm512_mul_ps(z, _mm512_set1_ps(std::f32::consts::FRAC_1_SQRT_2));
        // t = 1 / (1 + p z): a 14-bit estimate, one Newton step to ~2^-28
        let d = _mm512_fmadd_ps(_mm512_set1_ps(0.327_591_1), z, _mm512_set1_ps(1.0));
        let t0 = _mm512_rcp14_ps(d);
        let t = _mm512_mul_ps(t0, _mm512_fnmadd_ps(d, t0, _mm512_set1_ps(2.0)));
        let mut q = _mm512_set1_ps(1.061_405_4);
        for c in [-1.453_152_1, 1.421_413_7, -0.284_496_74, 0.254_829_6] {
            q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(c));
        }
        let q = _mm512_mul_ps(q, t);
        let e = exp(_mm512_mul_ps(_mm512_sub_ps(_mm512_setzero_ps(), z), z));
        let y = _mm512_fnmadd_ps(q, e, _mm512_set1_ps(1.0));
        // erf(x / √2) carries x's sign
        let erf = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(y), _mm512_and_si512(xi, sign)));
        _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5), x), _mm512_add_ps(_mm512_set1_ps(1.0), erf))
    }

    /// `e^x` for `x ≤ 0` to about 4e-5 (relative), enough for a value rounded to bf16 next
    /// (8 bits of mantissa, 2e-3): one reduction step, a degree-4 polynomial, no clamp (a very
    /// negative `x` scales to 0).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn exp_for_bf16(x: __m512) -> __m512 {
        let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm512_mul_ps(x, _mm512_set1_ps(std::f32::consts::LOG2_E)));
        let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(std::f32::consts::LN_2), x);
        let mut p = _mm512_set1_ps(1.0 / 24.0);
        for c in [1.0 / 6.0, 0.5, 1.0, 1.0] {
            p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
        }
        _mm512_scalef_ps(p, n)
    }

    fn mask(left: usize) -> __mmask16 {
        if left >= 16 {
            0xffff
        } else {
            ((1u32 << left) - 1) as __mmask16
        }
    }

    /// [`gelu`] on each value in place.
    ///
    /// # Safety
    /// The CPU has AVX-512F ([`usable`]).
    #[target_feature(enable = "avx512f")]
    pub unsafe fn gelu_in_place(x: &mut [f32]) {
        let p = x.as_mut_ptr();
        let mut i = 0;
        while i < x.len() {
            let k = mask(x.len() - i);
            let v = _mm512_maskz_loadu_ps(k, p.add(i));
            _mm512_mask_storeu_ps(p.add(i), k, gelu(v));
            i += 16;
        }
    }

    /// `e^(x · scale − max · scale)` of each value of `row`, written in bf16 to `dst` (as long
    /// as `row`); returns 1 / the sum of the exponentials (in f32, before rounding).
    ///
    /// # Safety
    /// The CPU has AVX-512F, BW, VL and BF16; `dst` at least as long as `row`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
    pub unsafe fn exp_row_bf16(row: &[f32], scale: f32, dst: &mut [u16]) -> f32 {
        debug_assert!(dst.len() >= row.len());
        let (p, n) = (row.as_ptr(), row.len());
        let mut m = _mm512_set1_ps(f32::NEG_INFINITY);
        let mut i = 0;
        while i + 16 <= n {
            m = _mm512_max_ps(m, _mm512_loadu_ps(p.add(i)));
            i += 16;
        }
        while i < n {
            m = _mm512_mask_max_ps(m, mask(n - i), m, _mm512_maskz_loadu_ps(mask(n - i), p.add(i)));
            i += 16;
        }
        let s = _mm512_set1_ps(scale);
        let shift = _mm512_set1_ps(-_mm512_reduce_max_ps(m) * scale);
        let mut sum = _mm512_setzero_ps();
        let mut i = 0;
        // four vectors at a time, each with its own sum: their dependency chains overlap
        let mut sums = [_mm512_setzero_ps(); 4];
        while i + 64 <= n {
            for (j, acc) in sums.iter_mut().enumerate() {
                let e = exp_for_bf16(_mm512_fmadd_ps(_mm512_loadu_ps(p.add(i + 16 * j)), s, shift));
                *acc = _mm512_add_ps(*acc, e);
                let b = _mm512_cvtneps_pbh(e);
                _mm256_storeu_si256(dst.as_mut_ptr().add(i + 16 * j) as *mut __m256i, std::mem::transmute::<__m256bh, __m256i>(b));
            }
            i += 64;
        }
        for acc in sums {
            sum = _mm512_add_ps(sum, acc);
        }
        while i < n {
            let k = mask(n - i);
            let e = exp_for_bf16(_mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, p.add(i)), s, shift));
            let e = _mm512_maskz_mov_ps(k, e);
            sum = _mm512_add_ps(sum, e);
            let b = _mm512_cvtneps_pbh(e);
            _mm256_mask_storeu_epi16(dst.as_mut_ptr().add(i) as *mut i16, k, std::mem::transmute::<__m256bh, __m256i>(b));
            i += 16;
        }
        1.0 / _mm512_reduce_add_ps(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_gelu_are_accurate() {
        let mut worst = 0f64;
        for i in -8000..8000 {
            let x = i as f32 / 100.0;
            let want = (x as f64).exp();
            worst = worst.max(((exp(x) as f64 - want) / want).abs());
        }
        assert!(worst < 5e-7, "exp relative error {worst}");
        assert!(exp(-200.0) < 1e-37);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx512_exp_and_gelu_agree_with_the_portable_ones() {
        if !avx512::usable() {
            return;
        }
        use std::arch::x86_64::*;
        let xs: Vec<f32> = (-3000..3000).map(|i| i as f32 / 97.0).collect();
        let mut g = xs.clone();
        // SAFETY: AVX-512F checked above
        unsafe { avx512::gelu_in_place(&mut g) };
        for (x, y) in xs.iter().zip(&g) {
            assert!((y - gelu(*x)).abs() <= 2e-6 * (1.0 + y.abs()), "gelu({x}): {y} vs {}", gelu(*x));
            if x.abs() > 4.2 {
                continue;
            }
            let want = 0.5 * *x as f64 * (1.0 + erf_f64(*x as f64 / std::f64::consts::SQRT_2));
            assert!((*y as f64 - want).abs() < 1e-6 * (1.0 + want.abs()), "gelu({x}) = {y}, exactly {want}");
        }
        for chunk in xs.chunks_exact(16) {
            let mut out = [0f32; 16];
            // SAFETY: as above
            unsafe { _mm512_storeu_ps(out.as_mut_ptr(), avx512::exp(_mm512_loadu_ps(chunk.as_ptr()))) };
            for (x, y) in chunk.iter().zip(out) {
                let want = (*x as f64).exp();
                assert!(((y as f64 - want) / want).abs() < 5e-7, "exp({x}) = {y}");
            }
        }
        if crate::bf16::kernel().is_some() && is_x86_feature_detected!("avx512bf16") {
            let row: Vec<f32> = (0..37).map(|i| (i as f32 * 0.37).sin() * 5.0).collect();
            let mut b = vec![0u16; 37];
            // SAFETY: AVX-512 BF16 checked above
            let inv = unsafe { avx512::exp_row_bf16(&row, 0.5, &mut b) };
            let mut want = row.clone();
            softmax(&mut want, 0.5);
            for (p, w) in b.iter().zip(&want) {
                let got = crate::bf16::from_bf16(*p) * inv;
                assert!((got - w).abs() < 5e-3 * w.max(1e-3), "{got} vs {w}");
            }
        }
    }

    /// erf in f64 by its Taylor series (for |x| ≤ 3, where its terms cancel to ~1e-12).
    fn erf_f64(x: f64) -> f64 {
        let mut sum = 0f64;
        let mut term = x;
        let mut n = 0f64;
        while term.abs() > 1e-17 || n < 5.0 {
            sum += term / (2.0 * n + 1.0);
            n += 1.0;
            term *= -x * x / n;
            if n > 400.0 {
                break;
            }
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }

    #[test]
    fn softmax_and_silu_match_their_definitions() {
        let mut v: Vec<f32> = (0..37).map(|i| (i as f32 * 0.37).sin() * 5.0).collect();
        let want: Vec<f64> = {
            let m = v.iter().fold(f32::MIN, |a, b| a.max(*b)) as f64 * 0.5;
            let e: Vec<f64> = v.iter().map(|x| (*x as f64 * 0.5 - m).exp()).collect();
            let z: f64 = e.iter().sum();
            e.iter().map(|x| x / z).collect()
        };
        softmax(&mut v, 0.5);
        for (a, b) in v.iter().zip(&want) {
            assert!((*a as f64 - b).abs() < 1e-6, "{a} vs {b}");
        }
        let g: Vec<f32> = (-50..50).map(|i| i as f32 / 5.0).collect();
        let got = silu_mul(&g, &vec![2.0; g.len()]);
        for (x, y) in g.iter().zip(&got) {
            let want = 2.0 * *x as f64 / (1.0 + (-*x as f64).exp());
            assert!((*y as f64 - want).abs() < 1e-5 * (1.0 + want.abs()), "silu({x})");
        }
    }

    #[test]
    fn layer_norm_and_gelu_match_their_definitions() {
        let mut x: Vec<f32> = (0..2 * 37).map(|i| (i as f32 * 0.71).cos() * 3.0 + 1.0).collect();
        let w: Vec<f32> = (0..37).map(|i| 1.0 + i as f32 / 100.0).collect();
        let b: Vec<f32> = (0..37).map(|i| i as f32 / 50.0).collect();
        let want: Vec<f64> = x
            .chunks(37)
            .flat_map(|r| {
                let m = r.iter().map(|v| *v as f64).sum::<f64>() / 37.0;
                let var = r.iter().map(|v| (*v as f64 - m).powi(2)).sum::<f64>() / 37.0;
                r.iter().enumerate().map(move |(i, v)| (*v as f64 - m) / (var + 1e-12).sqrt() * (1.0 + i as f64 / 100.0) + i as f64 / 50.0).collect::<Vec<_>>()
            })
            .collect();
        layer_norm(&mut x, &w, &b, 1e-12);
        for (a, b) in x.iter().zip(&want) {
            assert!((*a as f64 - b).abs() < 1e-5, "{a} vs {b}");
        }
        // erf against its series near 0 and known values
        for (v, want) in [(0.0f32, 0.0f64), (0.5, 0.520_499_877_8), (1.0, 0.842_700_792_9), (-2.0, -0.995_322_265_0), (3.5, 0.999_999_256_9)] {
            assert!((erf(v) as f64 - want).abs() < 5e-7, "erf({v}) = {} vs {want}", erf(v));
        }
        // GELU(x) = x Φ(x), values from the normal distribution's table
        let cases = [(-3.0f32, -0.004_049_694f64), (-1.0, -0.158_655_25), (0.0, 0.0), (0.5, 0.345_731_37), (2.0, 1.954_499_7)];
        let mut g: Vec<f32> = cases.iter().map(|c| c.0).collect();
        gelu_erf(&mut g);
        for ((x, want), y) in cases.iter().zip(&g) {
            assert!((*y as f64 - want).abs() < 1e-6, "gelu({x}) = {y}");
        }
    }
}
