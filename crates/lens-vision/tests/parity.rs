//! ColModernVBERT against Hugging Face transformers: a tiny random model (2 SigLIP layers,
//! 4 ModernBERT layers with global and sliding-window attention, pixel shuffle 2) and what the
//! reference processor and model produce from two page images and two queries, written by
//! `scripts/vision_reference.py fixtures`. Also PIL's LANCZOS resize to the bit.

use candle_core::safetensors::load;
use candle_core::Device;
use lens_vision::encoder::VisionEncoder;
use lens_vision::preprocess::{self, Rgb};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::PathBuf;

fn dir() -> PathBuf {
    // cargo sets the crate's folder at run time too; a test binary carried to another machine
    // (scripts/gpu-check) is given it there
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
        .join("tests/fixtures/tiny-colmodernvbert")
}

fn png(name: &str) -> Rgb {
    let img = image::open(dir().join(name)).unwrap().to_rgb8();
    Rgb::new(img.width() as usize, img.height() as usize, img.into_raw())
}

fn meta() -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir().join("reference.json")).unwrap()).unwrap()
}

fn reference(name: &str) -> Vec<f32> {
    let r = load(dir().join("reference.safetensors"), &Device::Cpu).unwrap();
    r[name].flatten_all().unwrap().to_vec1::<f32>().unwrap()
}

fn max_abs(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

#[test]
fn lanczos_resize_matches_pil_to_the_bit() {
    let noise = png("noise.png");
    for c in meta()["lanczos"].as_array().unwrap() {
        let (w, h) = (c["w"].as_u64().unwrap() as usize, c["h"].as_u64().unwrap() as usize);
        let out = preprocess::resize_lanczos(&noise, w, h);
        assert_eq!(format!("{:x}", Sha256::digest(&out.data)), c["sha256"].as_str().unwrap(), "{w}x{h}");
    }
}

/// The encoder with its linear layers and attention in f32 (`None`) or packed for a bf16 kernel.
fn encoder(bf16: Option<lens_ml::bf16::Kernel>) -> VisionEncoder {
    let mut enc = VisionEncoder::load(&dir(), 64).unwrap();
    enc.model = lens_vision::model::ColModernVBert::load(&dir()).unwrap().placed(&Device::Cpu, false, bf16).unwrap();
    enc
}

/// In f32: vectors within 1e-4 of transformers, MaxSim within 1e-4 relative (1e-3 through the
/// index's f16). In bf16 (AMX or AVX-512 BF16, where the CPU has one: what runs by default there): every input of
/// a product rounded to 8 bits of mantissa, so vectors within 1e-2 (seen: 5e-3) and MaxSim within 2e-2
/// relative, and each query ranks the pages as the reference does.
#[test]
fn documents_queries_and_scores_match_transformers() {
    assert_eq!(
        VisionEncoder::load(&dir(), 64).unwrap().model.precision(),
        lens_ml::bf16::kernel().map(|k| format!("bf16 ({})", k.name())).unwrap_or("f32".into())
    );
    let mut precisions = vec![(None, 1e-4f32, 1e-4f64)];
    if let Some(k) = lens_ml::bf16::kernel() {
        precisions.push((Some(k), 1e-2, 2e-2));
    }
    for (bf16, tol, stol) in precisions {
        let enc = encoder(bf16);
        let label = enc.model.precision();
        let m = meta();
        let mut docs = Vec::new();
        for d in m["docs"].as_array().unwrap() {
            let name = d["name"].as_str().unwrap();
            let edge = d["edge"].as_u64().unwrap() as usize;
            let input = preprocess::page_input(&png(&format!("{name}.png")), edge, enc.tile());
            // the processor's pixel values and token ids
            let px: Vec<f32> = input.pixels.iter().flatten().copied().collect();
            assert_eq!(max_abs(&px, &reference(&format!("{name}.pixel_values"))), 0.0, "{name}: pixel values");
            let ids: Vec<u32> = d["input_ids"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect();
            assert_eq!(enc.page_ids(&input).unwrap(), ids, "{name}: token ids");
            let e = enc.embed_input(&input).unwrap();
            let want = reference(&format!("{name}.embeddings"));
            eprintln!("{label} {name}: {} vectors, max diff {:e}", e.len() / enc.dim(), max_abs(&e, &want));
            assert!(max_abs(&e, &want) <= tol, "{label} {name}: document vectors differ by {}", max_abs(&e, &want));
            docs.push(e);
        }
        assert_eq!(preprocess::page_input(&png("page-tiles.png"), 64, 32).pixels.len(), 5, "2 x 2 tiles + the global image");
        for (i, q) in m["queries"].as_array().unwrap().iter().enumerate() {
            let ids: Vec<u32> = q["input_ids"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect();
            assert_eq!(enc.tokenize(&preprocess::query_text(q["text"].as_str().unwrap())).unwrap(), ids);
            let e = enc.embed_query(q["text"].as_str().unwrap()).unwrap();
            let want = reference(&format!("query{i}.embeddings"));
            eprintln!("{label} query {i}: max diff {:e}", max_abs(&e, &want));
            assert!(max_abs(&e, &want) <= tol, "{label} query {i}: vectors differ by {}", max_abs(&e, &want));
            let mut got = Vec::new();
            for (j, d) in docs.iter().enumerate() {
                let blocked = lens_vision::maxsim::to_blocked(d, enc.dim());
                let s = lens_vision::maxsim::score(&e, enc.dim(), &blocked, d.len() / enc.dim()) as f64;
                let r = m["scores"][i][j].as_f64().unwrap();
                // the index stores f16: MaxSim within 1e-3 relative of the f32 reference; on f32 vectors 1e-4
                assert!((s - r).abs() <= stol.max(1e-3) * r.abs(), "{label} MaxSim q{i} d{j}: {s} vs {r}");
                let exact: f64 = e
                    .chunks(enc.dim())
                    .map(|qv| d.chunks(enc.dim()).map(|p| qv.iter().zip(p).map(|(a, b)| (a * b) as f64).sum::<f64>()).fold(f64::MIN, f64::max))
                    .sum();
                assert!((exact - r).abs() <= stol * r.abs(), "{label} MaxSim (f32) q{i} d{j}: {exact} vs {r}");
                got.push(exact);
            }
            let want: Vec<f64> = m["scores"][i].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
            let order = |v: &[f64]| {
                let mut o: Vec<usize> = (0..v.len()).collect();
                o.sort_by(|a, b| v[*b].total_cmp(&v[*a]));
                o
            };
            assert_eq!(order(&got), order(&want), "{label} query {i}: pages ranked as the reference ranks them");
        }
    }
}

/// A copy of the fixture with its weights renamed (and some left out) and its config rewritten.
fn variant(rename: impl Fn(&str) -> Option<String>, config: impl Fn(Value) -> Value) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let w = load(dir().join("model.safetensors"), &Device::Cpu).unwrap();
    let out: std::collections::HashMap<String, candle_core::Tensor> = w.into_iter().filter_map(|(k, v)| rename(&k).map(|n| (n, v))).collect();
    candle_core::safetensors::save(&out, t.path().join("model.safetensors")).unwrap();
    let cfg: Value = serde_json::from_str(&std::fs::read_to_string(dir().join("config.json")).unwrap()).unwrap();
    std::fs::write(t.path().join("config.json"), config(cfg).to_string()).unwrap();
    std::fs::copy(dir().join("tokenizer.json"), t.path().join("tokenizer.json")).unwrap();
    t
}

#[test]
fn colpali_engine_layout_and_config_load_the_same_model() {
    // colpali-engine: peft names for the text model and projection, `model.` for the rest; the
    // ModernVBert config at the top level with the older names
    let t = variant(
        |k| {
            Some(if let Some(r) = k.strip_prefix("vlm.text_model.") {
                format!("base_model.model.model.text_model.{r}")
            } else if let Some(r) = k.strip_prefix("vlm.") {
                format!("model.{r}")
            } else {
                k.replace("embedding_proj_layer", "base_model.model.custom_text_proj")
            })
        },
        |c| {
            let mut v = c["vlm_config"].clone();
            let tc = v["text_config"].as_object_mut().unwrap();
            let rp = tc.remove("rope_parameters").unwrap();
            tc.insert("global_rope_theta".into(), rp["full_attention"]["rope_theta"].clone());
            tc.insert("local_rope_theta".into(), rp["sliding_attention"]["rope_theta"].clone());
            tc.remove("layer_types");
            let eps = tc.remove("norm_eps").unwrap();
            tc.insert("layer_norm_eps".into(), eps);
            v["embedding_dim"] = c["embedding_dim"].clone();
            v
        },
    );
    let a = VisionEncoder::load(t.path(), 64).unwrap();
    assert_eq!(a.model.layout, lens_vision::model::Layout::ColpaliPeft);
    let b = VisionEncoder::load(&dir(), 64).unwrap();
    let q = "What is the total revenue in fiscal 2022?";
    assert_eq!(a.embed_query(q).unwrap(), b.embed_query(q).unwrap());
    let img = png("page-tiles.png");
    assert_eq!(a.embed_page(&img).unwrap(), b.embed_page(&img).unwrap());
}

#[test]
fn missing_or_mismatched_weights_name_the_tensor() {
    let t = variant(|k| (k != "vlm.text_model.layers.2.attn.Wqkv.weight").then(|| k.to_string()), |c| c);
    let e = VisionEncoder::load(t.path(), 64).err().unwrap().to_string();
    assert!(e.contains("tensor `vlm.text_model.layers.2.attn.Wqkv.weight` is missing"), "{e}");
    let t = variant(
        |k| Some(k.to_string()),
        |mut c| {
            c["embedding_dim"] = 32.into();
            c
        },
    );
    let e = VisionEncoder::load(t.path(), 64).err().unwrap().to_string();
    assert!(e.contains("tensor `embedding_proj_layer.weight` has shape [16, 32], the config wants [32, 32]"), "{e}");
    let empty = tempfile::tempdir().unwrap();
    let e = VisionEncoder::load(empty.path(), 64).err().unwrap();
    assert_eq!(e.code(), "model_missing");
    assert!(e.to_string().contains("config.json"), "{e}");
    let enc = VisionEncoder::load(&dir(), 64).unwrap();
    assert_eq!(enc.embed_query("  ").err().unwrap().code(), "bad_input");
}

/// The device-generic pass a GPU runs (candle's ops for attention, GELU and rotary, weights on
/// the device), run here on candle's CPU device: the same reference vectors within 1e-4 (f32).
/// `scripts/gpu-check` runs it with `LENS_PARITY_DEVICE=cuda` on a build with the `cuda` feature.
#[test]
fn the_device_generic_pass_matches_transformers() {
    let device = match std::env::var("LENS_PARITY_DEVICE").as_deref() {
        #[cfg(feature = "cuda")]
        Ok("cuda") => Device::new_cuda(0).unwrap(),
        _ => Device::Cpu,
    };
    let mut enc = VisionEncoder::load_on(&dir(), 64, &device, true).unwrap();
    // f32 here; a GPU multiplies in bf16 by default (checked below)
    enc.model = lens_vision::model::ColModernVBert::load(&dir()).unwrap().placed(&device, true, None).unwrap();
    assert_eq!(enc.model.precision(), "f32");
    let kernels = encoder(None);
    let m = meta();
    for d in m["docs"].as_array().unwrap() {
        let name = d["name"].as_str().unwrap();
        let input = preprocess::page_input(&png(&format!("{name}.png")), d["edge"].as_u64().unwrap() as usize, enc.tile());
        let e = enc.embed_input(&input).unwrap();
        let want = reference(&format!("{name}.embeddings"));
        eprintln!("{name} on {device:?} through candle's ops: max diff {:e}", max_abs(&e, &want));
        assert!(max_abs(&e, &want) <= 1e-4, "{name}: generic pass differs by {}", max_abs(&e, &want));
        assert!(max_abs(&e, &kernels.embed_input(&input).unwrap()) <= 1e-4, "{name}: generic pass vs the CPU kernels");
    }
    for (i, q) in m["queries"].as_array().unwrap().iter().enumerate() {
        let e = enc.embed_query(q["text"].as_str().unwrap()).unwrap();
        let want = reference(&format!("query{i}.embeddings"));
        assert!(max_abs(&e, &want) <= 1e-4, "query {i}: generic pass differs by {}", max_abs(&e, &want));
    }
    // the matrix products in bf16 (a GPU's default): the unit vectors within 0.03 of the
    // reference's, as PyTorch's autocast gives
    enc.model = lens_vision::model::ColModernVBert::load(&dir()).unwrap().placed(&device, true, None).unwrap().half_matrices(true).unwrap();
    assert!(enc.model.half_matrices(false).is_err_and(|e| e.to_string().contains("rounded to bf16")));
    enc.model = lens_vision::model::ColModernVBert::load(&dir()).unwrap().placed(&device, true, None).unwrap().half_matrices(true).unwrap();
    assert!(enc.model.precision().starts_with("bf16"));
    for d in m["docs"].as_array().unwrap() {
        let name = d["name"].as_str().unwrap();
        let input = preprocess::page_input(&png(&format!("{name}.png")), d["edge"].as_u64().unwrap() as usize, enc.tile());
        let e = enc.embed_input(&input).unwrap();
        let want = reference(&format!("{name}.embeddings"));
        eprintln!("{name} on {device:?}, bf16 matrices: max diff {:e}", max_abs(&e, &want));
        assert!(max_abs(&e, &want) <= 0.03, "{name}: bf16 generic pass differs by {}", max_abs(&e, &want));
    }
}
