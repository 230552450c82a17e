//! MaxSim from candle's ops, on any device: what a GPU runs (the CPU keeps [`crate::maxsim`]'s
//! kernels). A document's pages are uploaded once, padded to its longest page, as f32
//! `[pages, longest, dim]` with a mask that sends the padding to -inf; a query is then one
//! matmul, a max over each page's vectors and a sum over the query's.

use crate::index::DocIndex;
use crate::maxsim;
use candle_core::{Device, Tensor};
use lens_core::error::{LensError, Result};

/// A document's vectors on a device.
pub struct DeviceDoc {
    vecs: Tensor,
    mask: Tensor,
    pages: Vec<u32>,
    longest: usize,
    dim: usize,
    /// Bytes it takes on the device.
    pub bytes: usize,
}

fn ops(e: candle_core::Error) -> LensError {
    LensError::Model(format!("MaxSim on the device: {e}"))
}

impl DeviceDoc {
    /// Upload `doc` to `device`.
    pub fn upload(doc: &DocIndex, device: &Device) -> Result<DeviceDoc> {
        let (dim, np) = (doc.dim(), doc.num_pages());
        let longest = (0..np).map(|i| doc.page(i).1).max().unwrap_or(0).max(1);
        let mut vecs = vec![0f32; np * longest * dim];
        let mut mask = vec![f32::NEG_INFINITY; np * longest];
        let mut pages = Vec::with_capacity(np);
        for i in 0..np {
            let (page, n, v) = doc.page(i);
            pages.push(page);
            let flat = maxsim::from_blocked(v, n, dim);
            vecs[i * longest * dim..i * longest * dim + n * dim].copy_from_slice(&flat);
            mask[i * longest..i * longest + n].fill(0.0);
        }
        let bytes = (vecs.len() + mask.len()) * 4;
        Ok(DeviceDoc {
            vecs: Tensor::from_vec(vecs, (np * longest, dim), device).map_err(ops)?,
            mask: Tensor::from_vec(mask, (np, longest, 1), device).map_err(ops)?,
            pages,
            longest,
            dim,
            bytes,
        })
    }

    /// `(page, MaxSim)` of `q` (`nq × dim`, row-major) against every page, in the index's order.
    pub fn score(&self, q: &[f32]) -> Result<Vec<(u32, f32)>> {
        let nq = q.len() / self.dim;
        let qt = Tensor::from_slice(q, (nq, self.dim), self.vecs.device()).map_err(ops)?.t().map_err(ops)?;
        let s = self.vecs.matmul(&qt).map_err(ops)?.reshape((self.pages.len(), self.longest, nq)).map_err(ops)?;
        let s = s.broadcast_add(&self.mask).map_err(ops)?.max(1).map_err(ops)?.sum(1).map_err(ops)?;
        let v = s.to_vec1::<f32>().map_err(ops)?;
        Ok(self.pages.iter().copied().zip(v).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{write_index, Built};

    #[test]
    fn device_maxsim_equals_the_cpu_kernels() {
        let dim = 16;
        let mut seed = 7u64;
        let mut rnd = |n: usize| -> Vec<f32> {
            (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    ((seed >> 33) as f32 / (1u64 << 31) as f32) * 2.0 - 1.0
                })
                .collect()
        };
        // three pages of different lengths (padding is exercised)
        let lens = [5usize, 9, 3];
        let mut data = Vec::new();
        let mut pages = Vec::new();
        for (i, n) in lens.iter().enumerate() {
            let off = data.len() as u64;
            data.extend(maxsim::to_blocked(&rnd(n * dim), dim));
            pages.push((10 + i as u32, *n as u32, off));
        }
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("1.lvx");
        let built = Built { model: "m".into(), edge: 64, dim: dim as u32, pooled: false };
        write_index(&path, &built, pages, &data).unwrap();
        let doc = DocIndex::open(&path, Some(&built)).unwrap();
        let q = rnd(4 * dim);
        let mut want = vec![0f32; doc.num_pages()];
        doc.score_into(&q, &mut want);
        let got = DeviceDoc::upload(&doc, &Device::Cpu).unwrap().score(&q).unwrap();
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), vec![10, 11, 12]);
        for ((_, g), w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-4 * w.abs().max(1.0), "{g} vs {w}");
        }
    }
}
