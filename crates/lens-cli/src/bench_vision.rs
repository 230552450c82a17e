//! `lens bench vision`: ColModernVBERT at its real size with random weights (nothing to
//! download): seconds per page at each longest edge and query milliseconds, beside PyTorch
//! (transformers, same shapes and thread count) with --python: in f32, and in bf16 under
//! `torch.autocast` where the CPU has a bf16 matrix unit (AMX or AVX-512 BF16); the ratio is
//! taken against the reference at lens's own precision. Seconds per stage for both.

use anyhow::Result;
use lens_vision::index::{Built, Partial};
use lens_vision::model::{ColModernVBert, Config};
use std::path::Path;
use std::time::Instant;

pub fn run(edges: &[usize], runs: usize, python: Option<&Path>, device: lens_llm::DeviceChoice) -> Result<()> {
    let chosen = lens_llm::device::select(device)?;
    let cfg = Config::real_size();
    let dir = tempfile::tempdir()?;
    let t0 = Instant::now();
    candle_core::safetensors::save(&cfg.random_weights(7)?, dir.path().join("model.safetensors"))?;
    std::fs::write(dir.path().join("config.json"), cfg.to_json().to_string())?;
    let model = ColModernVBert::load(dir.path())?.to_device(&chosen.device, false)?;
    let threads = rayon::current_num_threads();
    println!(
        "bench vision: ColModernVBERT at its real size, random weights ({:.0} MB f32, written and loaded in {:.1} s), {}",
        std::fs::metadata(dir.path().join("model.safetensors"))?.len() as f64 / 1e6,
        t0.elapsed().as_secs_f64(),
        if chosen.is_gpu() {
            format!("{} (candle's ops)", chosen.name)
        } else {
            format!("{threads} threads, candle CPU + this crate's kernels, linear layers in {}", model.precision())
        }
    );
    let seq = cfg.image_seq_len();
    for &edge in edges {
        let tiles = if edge <= cfg.vision.image_size { 1 } else { (edge / cfg.vision.image_size).pow(2) + 1 };
        let per = seq + 2;
        let len = tiles * per + 20;
        let mut ids: Vec<u32> = (0..len).map(|i| (i * 7919 % 50000) as u32).collect();
        for t in 0..tiles {
            ids[t * per + 2..t * per + per].fill(cfg.image_token_id);
        }
        let px = cfg.vision.image_size * cfg.vision.image_size * 3;
        let pixels: Vec<Vec<f32>> = (0..tiles).map(|t| (0..px).map(|i| ((i * 31 + t * 17) % 255) as f32 / 127.5 - 1.0).collect()).collect();
        let mut times = Vec::new();
        let mut page = Vec::new();
        // a first page unmeasured (weights packed, buffers made), as the reference's warm-up
        model.encode(&ids, Some(&model.image_features(&pixels)?))?;
        lens_vision::model::stages::start();
        for _ in 0..runs.max(1) {
            let t = Instant::now();
            let f = model.image_features(&pixels)?;
            page = model.encode(&ids, Some(&f))?;
            times.push(t.elapsed().as_secs_f64());
        }
        let lens_stages: Vec<(&str, f64)> = lens_vision::model::stages::take().into_iter().map(|(n, t)| (n, t / runs.max(1) as f64)).collect();
        // what the page costs in the index: published as a one-page document, plain and pooled
        let mut kb = [0f64; 2];
        for (i, pooled) in [false, true].into_iter().enumerate() {
            let built = Built { model: "bench".into(), edge: edge as u32, dim: cfg.dim as u32, pooled };
            let mut part = Partial::open(&dir.path().join(format!("{edge}-{pooled}.partial")), &built)?;
            part.add(1, &page)?;
            kb[i] = part.finish(&dir.path().join(format!("{edge}-{pooled}.lvx")), &built)?.bytes as f64 / 1e3;
        }
        times.sort_by(|a, b| a.total_cmp(b));
        let s = times[times.len() / 2];
        let q: Vec<u32> = (0..20).map(|i| (i * 131 % 50000) as u32).collect();
        model.encode(&q, None)?;
        let t = Instant::now();
        model.encode(&q, None)?;
        let qms = t.elapsed().as_secs_f64() * 1000.0;
        print!(
            "  edge {edge:>4} px ({tiles} tile{}, {len} tokens): lens {s:>6.2} s/page, query {qms:>5.0} ms, index {:.1} KB/page ({:.1} pooled)",
            if tiles == 1 { "" } else { "s" },
            kb[0],
            kb[1]
        );
        let mut reference = serde_json::Value::Null;
        if let Some(py) = python {
            let script = crate::reference::script("vision_reference.py");
            let mut cmd = std::process::Command::new(py);
            if chosen.is_gpu() {
                // PyTorch on the same GPU (f32, and bf16 under autocast)
                cmd.env("LENS_REF_DEVICE", "cuda");
            }
            let o = cmd.arg(&script).arg("speed").arg(edge.to_string()).arg(runs.max(1).to_string()).arg(threads.to_string()).output()?;
            if !o.status.success() {
                anyhow::bail!("the PyTorch reference failed: {}", String::from_utf8_lossy(&o.stderr));
            }
            reference = serde_json::from_slice(o.stdout.split(|b| *b == b'\n').rfind(|l| !l.is_empty()).unwrap_or(b"{}"))?;
            let at = |p: &str| reference[p]["s_per_page"].as_f64();
            let (f32s, bf16s) = (at("f32").unwrap_or(f64::NAN), at("bf16"));
            print!(";  PyTorch f32 {f32s:.2} s/page (query {:.0} ms)", reference["f32"]["query_ms"].as_f64().unwrap_or(f64::NAN));
            match (bf16s, reference["bf16_unit"].as_str()) {
                (Some(b), Some(unit)) => {
                    print!(", bf16 autocast on {unit} {b:.2} s/page (query {:.0} ms)", reference["bf16"]["query_ms"].as_f64().unwrap_or(f64::NAN))
                }
                _ => print!(", no bf16 run (this CPU has no AMX or AVX-512 BF16)"),
            }
            // the ratio against the reference at lens's precision: bf16 with bf16, f32 with f32
            let lens_bf16 = model.precision().starts_with("bf16");
            match (lens_bf16, bf16s) {
                (true, Some(b)) => print!(";  lens / PyTorch bf16: {:.2}x speed, lens / PyTorch f32: {:.2}x", b / s, f32s / s),
                _ => print!(";  lens / PyTorch f32: {:.2}x speed", f32s / s),
            }
        }
        println!();
        let stage = |p: &str, name: &str| reference[p]["stages"][name].as_f64().map_or("-".to_string(), |t| format!("{t:.3}"));
        println!("    {:<40} {:>9} {:>14} {:>13}", "stage (s per page)", "lens", "PyTorch bf16", "PyTorch f32");
        for (name, t) in &lens_stages {
            println!("    {name:<40} {t:>9.3} {:>14} {:>13}", stage("bf16", name), stage("f32", name));
        }
        println!();
    }
    Ok(())
}
