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

crate::simd_fn! {
    /// `v = softmax(v · scale)` in place (`scale` > 0).
    pub fn softmax(v: &mut [f32], scale: f32) {
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
        let inv = 1.0 / sum8(v);
        v.iter_mut().for_each(|x| *x *= inv);
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

crate::simd_fn! {
    /// The exact GELU (`hidden_act: gelu`) in place: `x · (1 + erf(x / √2)) / 2`.
    pub fn gelu_erf(x: &mut [f32]) {
        for v in x.iter_mut() {
            *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
        }
    }
}

crate::simd_fn! {
    /// `x += y` element by element.
    pub fn add(x: &mut [f32], y: &[f32]) {
        x.iter_mut().zip(y).for_each(|(x, y)| *x += y);
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
