//! `lens bench maxsim`: MaxSim over an index the size of a 2,942-page library (355 vectors of
//! 128 f16 per page, random unit vectors) in memory-mapped files, with a 20-token query; the
//! same on the pooled index; with --python, the numpy reference on the same vectors.

use anyhow::Result;
use lens_vision::index::{self, Built, DocIndex};
use lens_vision::{maxsim, pool};
use rayon::prelude::*;
use std::path::Path;
use std::time::Instant;

/// The shape the issue fixes.
pub const PAGES: usize = 2942;
pub const PER_PAGE: usize = 355;
pub const DIM: usize = 128;
pub const QUERY: usize = 20;
/// Documents the pages are spread over (one file each, as a library holds them).
const DOCS: usize = 20;

struct Rng(u64);
impl Rng {
    fn unit_vectors(&mut self, n: usize) -> Vec<f32> {
        let mut v: Vec<f32> = (0..n * DIM)
            .map(|_| {
                self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((self.0 >> 40) as f32 / (1u64 << 24) as f32) - 0.5
            })
            .collect();
        for r in v.chunks_exact_mut(DIM) {
            let n = r.iter().map(|x| x * x).sum::<f32>().sqrt();
            r.iter_mut().for_each(|x| *x /= n);
        }
        v
    }
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((p / 100.0) * (v.len() - 1) as f64).round() as usize]
}

fn time(docs: &[DocIndex], q: &[f32], runs: usize) -> (Vec<f64>, Vec<(usize, u32, f32)>) {
    let refs: Vec<&DocIndex> = docs.iter().collect();
    let mut last = index::score_all(q, &refs); // warm: pages mapped in
    let mut ms = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        last = index::score_all(q, &refs);
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    (ms, last)
}

fn write_npy(path: &Path, descr: &str, shape: &[usize], data: &[u8]) -> Result<()> {
    let shape_s =
        if shape.len() == 1 { format!("({},)", shape[0]) } else { format!("({})", shape.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")) };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_s}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    std::fs::write(path, out)?;
    Ok(())
}

pub fn run(runs: usize, json: bool, python: Option<&Path>, device: lens_llm::DeviceChoice) -> Result<()> {
    let chosen = lens_llm::device::select(device)?;
    let dir = tempfile::tempdir()?;
    let mut rng = Rng(42);
    let q = rng.unit_vectors(QUERY);
    let t0 = Instant::now();
    let built = Built { model: "bench-random".into(), edge: 1024, dim: DIM as u32, pooled: false };
    let pooled_built = Built { pooled: true, ..built.clone() };
    let (mut docs, mut pooled) = (Vec::new(), Vec::new());
    let mut raw: Vec<u16> = Vec::new(); // every vector, row-major f16, for the reference
    let mut pool_s = 0.0;
    for d in 0..DOCS {
        let pages = PAGES / DOCS + usize::from(d < PAGES % DOCS);
        let vecs: Vec<Vec<f32>> = (0..pages).map(|_| rng.unit_vectors(PER_PAGE)).collect();
        for v in &vecs {
            raw.extend(v.iter().map(|x| half::f16::from_f32(*x).to_bits()));
        }
        let write = |rows: &[Vec<f32>], b: &Built, name: String| -> Result<DocIndex> {
            let mut data = Vec::new();
            let mut table = Vec::new();
            for (p, r) in rows.iter().enumerate() {
                table.push((p as u32 + 1, (r.len() / DIM) as u32, data.len() as u64));
                data.extend(maxsim::to_blocked(r, DIM));
            }
            let path = dir.path().join(name);
            index::write_index(&path, b, table, &data)?;
            Ok(DocIndex::open(&path, Some(b))?)
        };
        docs.push(write(&vecs, &built, format!("{d}.lvx"))?);
        let t = Instant::now();
        let pooled_rows: Vec<Vec<f32>> = vecs.par_iter().map(|v| pool::pool(v, DIM, 3)).collect();
        pool_s += t.elapsed().as_secs_f64();
        pooled.push(write(&pooled_rows, &pooled_built, format!("{d}.pooled.lvx"))?);
    }
    let vectors: u64 = docs.iter().map(|d| d.num_vectors()).sum();
    let pooled_vectors: u64 = pooled.iter().map(|d| d.num_vectors()).sum();
    let bytes: u64 = docs.iter().map(|d| d.bytes()).sum();
    let (ms, scores) = time(&docs, &q, runs);
    let (pms, _) = time(&pooled, &q, runs);
    let p50 = percentile(ms.clone(), 50.0);
    // on a GPU: the same query against the same documents, uploaded once (not timed)
    let on_device = if chosen.is_gpu() {
        let up: Vec<lens_vision::maxsim_ops::DeviceDoc> =
            docs.iter().map(|d| lens_vision::maxsim_ops::DeviceDoc::upload(d, &chosen.device)).collect::<lens_core::Result<_>>()?;
        let mut dms = Vec::new();
        let mut agree = 0f32;
        for run in 0..runs + 1 {
            let t = Instant::now();
            let got: Vec<(u32, f32)> = up.iter().map(|u| u.score(&q)).collect::<lens_core::Result<Vec<_>>>()?.into_iter().flatten().collect();
            if run > 0 {
                dms.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            agree = got.iter().zip(&scores).map(|(g, c)| (g.1 - c.2).abs() / c.2.abs().max(1e-6)).fold(0f32, f32::max);
        }
        Some((chosen.name.clone(), percentile(dms, 50.0), agree, up.iter().map(|u| u.bytes).sum::<usize>()))
    } else {
        None
    };
    let flop = 2.0 * QUERY as f64 * vectors as f64 * DIM as f64;
    let out = serde_json::json!({
        "vectors": vectors,
        "pages": PAGES,
        "dim": DIM,
        "query_tokens": QUERY,
        "kernel": maxsim::kernel().name(),
        "threads": rayon::current_num_threads(),
        "ms_p50": p50,
        "ms_p95": percentile(ms, 95.0),
        "gflops": flop / (p50 / 1000.0) / 1e9,
        "index_mb": bytes as f64 / 1e6,
        "pooled_vectors": pooled_vectors,
        "pooled_ms_p50": percentile(pms, 50.0),
        "pool_s": pool_s,
        "device": on_device.as_ref().map(|(n, ms, rel, bytes)| serde_json::json!({"name": n, "ms_p50": ms, "max_rel_diff": rel, "device_mb": *bytes as f64 / 1e6})),
    });
    if !json {
        println!(
            "bench maxsim: {} pages x {} vectors x {} f16 ({} vectors, {:.0} MB in {} memory-mapped files, built in {:.1} s), {}-token query, {} runs",
            PAGES,
            PER_PAGE,
            DIM,
            vectors,
            bytes as f64 / 1e6,
            DOCS,
            t0.elapsed().as_secs_f64(),
            QUERY,
            runs
        );
        println!(
            "  lens ({} kernel, {} threads): p50 {:.1} ms  p95 {:.1} ms  {:.1} GFLOP/s;  pooled x3 ({} vectors, pooling took {:.1} s): p50 {:.1} ms",
            out["kernel"].as_str().unwrap_or(""),
            out["threads"],
            p50,
            out["ms_p95"].as_f64().unwrap_or(0.0),
            out["gflops"].as_f64().unwrap_or(0.0),
            pooled_vectors,
            pool_s,
            out["pooled_ms_p50"].as_f64().unwrap_or(0.0)
        );
        println!("  floor: {:.2} GFLOP and {:.0} MB of f16 per query", flop / 1e9, vectors as f64 * DIM as f64 * 2.0 / 1e6);
        if let Some((name, ms, rel, bytes)) = &on_device {
            println!(
                "  on {name} (candle's ops, {:.0} MB uploaded): p50 {ms:.1} ms, {:.2}x the CPU kernels; scores agree to {rel:.1e} relative",
                *bytes as f64 / 1e6,
                p50 / ms
            );
        }
    }
    if let Some(py) = python {
        // the same vectors in page order, the page offsets and the query, for numpy
        let rdir = dir.path().join("ref");
        std::fs::create_dir(&rdir)?;
        let bytes: Vec<u8> = raw.iter().flat_map(|x| x.to_le_bytes()).collect();
        write_npy(&rdir.join("vectors.npy"), "<f2", &[raw.len() / DIM, DIM], &bytes)?;
        let offs: Vec<u8> = (0..PAGES).flat_map(|p| ((p * PER_PAGE) as i64).to_le_bytes()).collect();
        write_npy(&rdir.join("offsets.npy"), "<i8", &[PAGES], &offs)?;
        let qb: Vec<u8> = q.iter().flat_map(|x| x.to_le_bytes()).collect();
        write_npy(&rdir.join("query.npy"), "<f4", &[QUERY, DIM], &qb)?;
        let script = crate::reference::script("maxsim_reference.py");
        let o = std::process::Command::new(py).arg(&script).arg(&rdir).arg(runs.to_string()).output()?;
        if !o.status.success() {
            anyhow::bail!("the numpy reference failed: {}", String::from_utf8_lossy(&o.stderr));
        }
        let v: serde_json::Value = serde_json::from_slice(o.stdout.split(|b| *b == b'\n').rfind(|l| !l.is_empty()).unwrap_or(b"{}"))?;
        let ref_scores: Vec<f32> = serde_json::from_value(v["scores"].clone())?;
        // pages in order: documents hold consecutive page ranges
        let ours: Vec<f32> = scores.iter().map(|s| s.2).collect();
        let max_rel = ours.iter().zip(&ref_scores).map(|(a, b)| ((a - b).abs() / b.abs().max(1e-6)) as f64).fold(0.0, f64::max);
        let np50 = v["ms_p50"].as_f64().unwrap_or(f64::NAN);
        if json {
            let mut o = out.clone();
            o["numpy_ms_p50"] = v["ms_p50"].clone();
            o["max_rel_diff"] = serde_json::json!(max_rel);
            println!("{o}");
        } else {
            println!("  numpy (index cast to f32 at load, one matmul + maximum.reduceat): p50 {np50:.1} ms;  lens is {:.1}x faster; scores agree to {max_rel:.1e} relative", np50 / p50);
        }
        return Ok(());
    }
    if json {
        println!("{out}");
    }
    Ok(())
}
