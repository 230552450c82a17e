// Timing breakdown of one page at the real size (random weights, written once to /tmp/vb):
// vision tower, text model, and the pieces they spend their time in.
// `cargo run --release -p lens-vision --example vprof`
use lens_vision::model::{ColModernVBert, Config};
use std::time::Instant;
fn main() {
    let cfg = Config::real_size();
    let dir = std::path::PathBuf::from("/tmp/vb");
    std::fs::create_dir_all(&dir).unwrap();
    if !dir.join("model.safetensors").exists() {
        candle_core::safetensors::save(&cfg.random_weights(7).unwrap(), dir.join("model.safetensors")).unwrap();
        std::fs::write(dir.join("config.json"), cfg.to_json().to_string()).unwrap();
    }
    let m = ColModernVBert::load(&dir).unwrap();
    let px = 512 * 512 * 3;
    let pixels: Vec<Vec<f32>> = vec![(0..px).map(|i| (i % 255) as f32 / 127.5 - 1.0).collect()];
    for _ in 0..2 {
        let t = Instant::now();
        let f = m.image_features(&pixels).unwrap();
        let tv = t.elapsed().as_secs_f64();
        let mut ids: Vec<u32> = (0..86).map(|i| (i * 7919 % 50000) as u32).collect();
        ids[2..66].fill(cfg.image_token_id);
        let t = Instant::now();
        m.encode(&ids, Some(&f)).unwrap();
        println!("vision {:.2} s, text {:.2} s", tv, t.elapsed().as_secs_f64());
    }
    let a = candle_core::Tensor::randn(0f32, 1., (1024, 768), &candle_core::Device::Cpu).unwrap();
    let b = candle_core::Tensor::randn(0f32, 1., (768, 3072), &candle_core::Device::Cpu).unwrap();
    let _ = a.matmul(&b).unwrap();
    let t = Instant::now();
    for _ in 0..5 {
        let _ = a.matmul(&b).unwrap();
    }
    let s = t.elapsed().as_secs_f64() / 5.0;
    println!("matmul 1024x768x3072: {:.1} ms, {:.0} GFLOP/s", s * 1000.0, 2.0 * 1024.0 * 768.0 * 3072.0 / s / 1e9);
    use candle_core::{Device, Tensor};
    let qv: Vec<f32> = (0..1024 * 768).map(|i| ((i * 7919) % 1000) as f32 / 1000.0 - 0.5).collect();
    let t = Instant::now();
    for _ in 0..5 {
        let _ = lens_ml::attention::attention(&qv, &qv, &qv, &[1024], 12, 64, 0.125, None, None);
    }
    println!("kernels::attention per layer: {:.1} ms", t.elapsed().as_secs_f64() * 200.0);
    let mut g: Vec<f32> = (0..1024 * 3072).map(|i| ((i * 7919) % 1000) as f32 / 1000.0 - 0.5).collect();
    let t = Instant::now();
    for _ in 0..5 {
        lens_vision::kernels::gelu_tanh(&mut g);
    }
    println!("kernels::gelu_tanh per layer: {:.1} ms", t.elapsed().as_secs_f64() * 200.0);
    let q = Tensor::randn(0f32, 1., (12, 1024, 64), &Device::Cpu).unwrap();
    let k = Tensor::randn(0f32, 1., (12, 1024, 64), &Device::Cpu).unwrap();
    let t = Instant::now();
    for _ in 0..5 {
        let _ = q.matmul(&k.t().unwrap()).unwrap();
    }
    println!("qk^T per layer: {:.1} ms", t.elapsed().as_secs_f64() * 200.0);
    let s = q.matmul(&k.t().unwrap()).unwrap();
    let t = Instant::now();
    for _ in 0..5 {
        let _ = candle_nn::ops::softmax_last_dim(&s).unwrap();
    }
    println!("softmax per layer: {:.1} ms", t.elapsed().as_secs_f64() * 200.0);
    let x = Tensor::randn(0f32, 1., (1, 1024, 3072), &Device::Cpu).unwrap();
    let t = Instant::now();
    for _ in 0..5 {
        let _ = x.gelu().unwrap();
    }
    println!("gelu per layer: {:.1} ms", t.elapsed().as_secs_f64() * 200.0);
    let y = Tensor::randn(0f32, 1., (1, 1024, 768), &Device::Cpu).unwrap();
    let t = Instant::now();
    for _ in 0..5 {
        let _ = y.reshape((1, 1024, 12, 64)).unwrap().transpose(1, 2).unwrap().contiguous().unwrap();
    }
    println!("split heads per tensor: {:.1} ms", t.elapsed().as_secs_f64() * 200.0);
    let w = Tensor::randn(0f32, 1., 768, &Device::Cpu).unwrap();
    let t = Instant::now();
    for _ in 0..5 {
        let _ = candle_nn::ops::layer_norm(&y, &w, &w, 1e-6).unwrap();
    }
    println!("layer norm: {:.1} ms", t.elapsed().as_secs_f64() * 200.0);
    let t = Instant::now();
    for _ in 0..5 {
        let _ = y.broadcast_add(&w).unwrap();
    }
    println!("bias add: {:.1} ms", t.elapsed().as_secs_f64() * 200.0);
}
