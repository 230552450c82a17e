//! Pooling a page's vectors: k-means into `n / factor` clusters (rounded up), each replaced by
//! its L2-normalised mean. Deterministic (farthest-point start), a few iterations: a page of 355 × 128 vectors costs about 50 MFLOP, nothing beside embedding it.

/// Lloyd iterations.
pub const ITERATIONS: usize = 5;

/// Pool `vecs` (`n × dim`, row-major) to `ceil(n / factor)` vectors.
pub fn pool(vecs: &[f32], dim: usize, factor: usize) -> Vec<f32> {
    let n = vecs.len() / dim;
    let k = n.div_ceil(factor.max(1));
    if k >= n || n == 0 {
        return vecs.to_vec();
    }
    // farthest-point start: the first vector, then each time the one farthest from all chosen
    let row = |j: usize| &vecs[j * dim..(j + 1) * dim];
    let mut cent: Vec<f32> = row(0).to_vec();
    let mut nearest: Vec<f32> = (0..n).map(|j| dist2(row(j), row(0))).collect();
    for _ in 1..k {
        let far = (0..n).max_by(|a, b| nearest[*a].total_cmp(&nearest[*b])).expect("n > 0");
        cent.extend_from_slice(row(far));
        for (j, m) in nearest.iter_mut().enumerate() {
            *m = m.min(dist2(row(j), row(far)));
        }
    }
    let mut assign = vec![0usize; n];
    for _ in 0..ITERATIONS {
        // nearest centroid: argmax x·c - |c|²/2
        let half_norm: Vec<f32> = cent.chunks_exact(dim).map(|c| c.iter().map(|x| x * x).sum::<f32>() / 2.0).collect();
        for (j, x) in vecs.chunks_exact(dim).enumerate() {
            let mut best = (f32::NEG_INFINITY, 0);
            for (c, cv) in cent.chunks_exact(dim).enumerate() {
                let s = dot(x, cv) - half_norm[c];
                if s > best.0 {
                    best = (s, c);
                }
            }
            assign[j] = best.1;
        }
        let mut sum = vec![0f32; k * dim];
        let mut count = vec![0usize; k];
        for (j, x) in vecs.chunks_exact(dim).enumerate() {
            count[assign[j]] += 1;
            for (s, v) in sum[assign[j] * dim..(assign[j] + 1) * dim].iter_mut().zip(x) {
                *s += v;
            }
        }
        for c in 0..k {
            if count[c] > 0 {
                for (dst, s) in cent[c * dim..(c + 1) * dim].iter_mut().zip(&sum[c * dim..(c + 1) * dim]) {
                    *dst = s / count[c] as f32;
                }
            }
        }
    }
    for c in cent.chunks_exact_mut(dim) {
        let norm = dot(c, c).sqrt();
        if norm > 0.0 {
            c.iter_mut().for_each(|x| *x /= norm);
        }
    }
    cent
}

fn dist2(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    // eight partial sums: LLVM vectorises this without fast-math
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_a_third_and_keeps_clusters() {
        // three tight clusters of 30 vectors each in 4-d: pooled to 30 vectors that stay near them
        let centres = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]];
        let mut v = Vec::new();
        for i in 0..90 {
            let c = centres[i % 3];
            let jitter = (i as f32 * 0.37).sin() * 0.01;
            v.extend(c.iter().map(|x| x + jitter));
        }
        let p = pool(&v, 4, 3);
        assert_eq!(p.len(), 30 * 4);
        for c in p.chunks_exact(4) {
            let norm: f32 = c.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-5);
            assert!(centres.iter().any(|k| dot(c, k) > 0.99), "{c:?}");
        }
        // nothing to pool
        assert_eq!(pool(&v[..4], 4, 3), v[..4].to_vec(), "one vector stays as it is");
    }
}
