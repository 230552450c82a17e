//! The hot loops of the model, written for the CPU: rotary positions and the tanh GELU in
//! parallel chunks (attention is [`lens_ml::attention`], shared with the sentence embedder).
//! candle's generic ops materialised every step (a 12 × 1024 × 1024 score tensor per layer and a
//! single-threaded element-wise GELU); these do the same arithmetic in f32.

use rayon::prelude::*;

use lens_ml::math::exp;

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

    #[test]
    fn gelu_is_accurate() {
        let mut xs: Vec<f32> = (-600..600).map(|i| i as f32 / 50.0).collect();
        let want: Vec<f32> = xs.iter().map(|x| 0.5 * x * (1.0 + (0.797_884_6 * (x + 0.044715 * x * x * x)).tanh())).collect();
        gelu_tanh(&mut xs);
        let d = xs.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(d < 1e-6, "gelu {d}");
    }
}
