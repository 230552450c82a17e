//! The gated delta rule of Qwen3.5's linear-attention layers (Gated DeltaNet), for one value
//! head: a `dk × dv` state `S` that each token decays and corrects.
//!
//! Per token t (q, k L2-normalised, q scaled by 1/√dk; `g ≤ 0` a log decay; `β ∈ (0, 1)`):
//!
//! ```text
//! S ← exp(g_t) · S
//! S ← S + k_t ⊗ β_t (v_t − Sᵀ k_t)        (write only what S does not already predict)
//! o_t = Sᵀ q_t
//! ```
//!
//! [`recurrent`] runs that token by token (decoding). [`chunked`] gives the same result for a
//! block of tokens with matrix products (prefill): within a chunk of C tokens, with `c_i` the
//! cumulative log decay and `A_ij = β_i (k_i·k_j) e^{c_i − c_j}` (j < i), the corrections solve
//! the unit lower-triangular system `(I + A) U = β V` and `(I + A) W = β K e^{c}`; then
//! `V' = U − W S`, `O = (Q e^{c}) S + ((Q Kᵀ) ∘ e^{c_i − c_j}, j ≤ i) V'`, and
//! `S ← e^{c_last} S + (K e^{c_last − c})ᵀ V'`.
//!
//! Layouts: rows of tokens, `q`, `k`: `[n][dk]`, `v`, `out`: `[n][dv]`, `s`: `[dk][dv]`.

/// Token by token. `s` is updated in place; `out` gets `[n][dv]`.
#[allow(clippy::too_many_arguments)]
pub fn recurrent(q: &[f32], k: &[f32], v: &[f32], g: &[f32], beta: &[f32], s: &mut [f32], dk: usize, dv: usize, out: &mut [f32]) {
    let n = g.len();
    let mut kv = vec![0f32; dv];
    for t in 0..n {
        let (qt, kt, vt) = (&q[t * dk..(t + 1) * dk], &k[t * dk..(t + 1) * dk], &v[t * dv..(t + 1) * dv]);
        let decay = g[t].exp();
        s.iter_mut().for_each(|x| *x *= decay);
        kv.iter_mut().for_each(|x| *x = 0.0);
        for (i, ki) in kt.iter().enumerate() {
            let row = &s[i * dv..(i + 1) * dv];
            kv.iter_mut().zip(row).for_each(|(a, b)| *a += ki * b);
        }
        for (i, ki) in kt.iter().enumerate() {
            let row = &mut s[i * dv..(i + 1) * dv];
            for j in 0..dv {
                row[j] += ki * beta[t] * (vt[j] - kv[j]);
            }
        }
        let o = &mut out[t * dv..(t + 1) * dv];
        o.iter_mut().for_each(|x| *x = 0.0);
        for (i, qi) in qt.iter().enumerate() {
            let row = &s[i * dv..(i + 1) * dv];
            o.iter_mut().zip(row).for_each(|(a, b)| *a += qi * b);
        }
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// In chunks of `chunk` tokens (see the module docs); equal to [`recurrent`] up to rounding.
#[allow(clippy::too_many_arguments)]
pub fn chunked(q: &[f32], k: &[f32], v: &[f32], g: &[f32], beta: &[f32], s: &mut [f32], dk: usize, dv: usize, out: &mut [f32], chunk: usize) {
    let n = g.len();
    let chunk = chunk.max(1);
    let mut t0 = 0;
    while t0 < n {
        let l = chunk.min(n - t0);
        let (qc, kc, vc) = (&q[t0 * dk..(t0 + l) * dk], &k[t0 * dk..(t0 + l) * dk], &v[t0 * dv..(t0 + l) * dv]);
        let (gc, bc) = (&g[t0..t0 + l], &beta[t0..t0 + l]);
        let mut c = vec![0f32; l];
        let mut acc = 0f32;
        for i in 0..l {
            acc += gc[i];
            c[i] = acc;
        }
        let kk = |i: usize, j: usize| dot(&kc[i * dk..(i + 1) * dk], &kc[j * dk..(j + 1) * dk]);
        // forward substitution of (I + A) [U | W] = [β V | β K e^c]
        let mut u = vec![0f32; l * dv];
        let mut w = vec![0f32; l * dk];
        for i in 0..l {
            for x in 0..dv {
                u[i * dv + x] = bc[i] * vc[i * dv + x];
            }
            let e = c[i].exp();
            for x in 0..dk {
                w[i * dk + x] = bc[i] * kc[i * dk + x] * e;
            }
            for j in 0..i {
                let a = bc[i] * kk(i, j) * (c[i] - c[j]).exp();
                if a == 0.0 {
                    continue;
                }
                let (done, cur) = u.split_at_mut(i * dv);
                cur[..dv].iter_mut().zip(&done[j * dv..(j + 1) * dv]).for_each(|(y, z)| *y -= a * z);
                let (done, cur) = w.split_at_mut(i * dk);
                cur[..dk].iter_mut().zip(&done[j * dk..(j + 1) * dk]).for_each(|(y, z)| *y -= a * z);
            }
        }
        // V' = U − W S
        let mut vn = u;
        for i in 0..l {
            for x in 0..dk {
                let wx = w[i * dk + x];
                if wx != 0.0 {
                    let row = &s[x * dv..(x + 1) * dv];
                    vn[i * dv..(i + 1) * dv].iter_mut().zip(row).for_each(|(y, z)| *y -= wx * z);
                }
            }
        }
        // O = (Q e^c) S + intra-chunk attention over V'
        for i in 0..l {
            let o = &mut out[(t0 + i) * dv..(t0 + i + 1) * dv];
            o.iter_mut().for_each(|x| *x = 0.0);
            let e = c[i].exp();
            for x in 0..dk {
                let qx = qc[i * dk + x] * e;
                let row = &s[x * dv..(x + 1) * dv];
                o.iter_mut().zip(row).for_each(|(y, z)| *y += qx * z);
            }
            for j in 0..=i {
                let a = dot(&qc[i * dk..(i + 1) * dk], &kc[j * dk..(j + 1) * dk]) * (c[i] - c[j]).exp();
                o.iter_mut().zip(&vn[j * dv..(j + 1) * dv]).for_each(|(y, z)| *y += a * z);
            }
        }
        // S ← e^{c_last} S + (K e^{c_last − c})ᵀ V'
        let last = c[l - 1];
        let el = last.exp();
        s.iter_mut().for_each(|x| *x *= el);
        for j in 0..l {
            let e = (last - c[j]).exp();
            for x in 0..dk {
                let kx = kc[j * dk + x] * e;
                let row = &mut s[x * dv..(x + 1) * dv];
                row.iter_mut().zip(&vn[j * dv..(j + 1) * dv]).for_each(|(y, z)| *y += kx * z);
            }
        }
        t0 += l;
    }
}

/// `x ← x / sqrt(Σx² + eps)` per row of `d` (the rule's L2 normalisation of q and k).
pub fn l2norm(x: &mut [f32], d: usize) {
    for row in x.chunks_mut(d) {
        let s = 1.0 / (row.iter().map(|v| v * v).sum::<f32>() + 1e-6).sqrt();
        row.iter_mut().for_each(|v| *v *= s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::pseudo;

    #[test]
    fn chunked_equals_recurrent_from_any_state() {
        let (n, dk, dv) = (23, 8, 6);
        let mut q = pseudo(n * dk, 1);
        let mut k = pseudo(n * dk, 2);
        l2norm(&mut q, dk);
        l2norm(&mut k, dk);
        let v = pseudo(n * dv, 3);
        let g: Vec<f32> = pseudo(n, 4).iter().map(|x| -x.abs() * 2.0).collect();
        let beta: Vec<f32> = pseudo(n, 5).iter().map(|x| 1.0 / (1.0 + (-3.0 * x).exp())).collect();
        let s0 = pseudo(dk * dv, 6);
        let (mut s1, mut o1) = (s0.clone(), vec![0f32; n * dv]);
        recurrent(&q, &k, &v, &g, &beta, &mut s1, dk, dv, &mut o1);
        for chunk in [1, 4, 7, 64] {
            let (mut s2, mut o2) = (s0.clone(), vec![0f32; n * dv]);
            chunked(&q, &k, &v, &g, &beta, &mut s2, dk, dv, &mut o2, chunk);
            let d = o1.iter().zip(&o2).chain(s1.iter().zip(&s2)).fold(0f32, |m, (a, b)| m.max((a - b).abs()));
            assert!(d < 1e-4, "chunk {chunk}: {d}");
        }
    }
}
