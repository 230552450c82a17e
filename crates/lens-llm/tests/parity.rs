//! Parity with the reference implementation (Hugging Face transformers) on tiny
//! random-initialised models: `scripts/llm_reference.py fixtures` wrote the models and the
//! reference outputs committed under `tests/fixtures/`; CI never runs the generator.

use lens_llm::model::{argmax, Model, Precision};
use lens_llm::LanguageModel;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    // cargo sets the crate's folder at run time too; a test binary carried to another machine
    // (scripts/gpu-check) is given it there
    std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR"))).join("tests/fixtures")
}

struct Reference {
    prompt: Vec<u32>,
    logits: Vec<Vec<f32>>,
    greedy: Vec<u32>,
}

fn reference(name: &str) -> Reference {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(fixtures().join(name)).unwrap()).unwrap();
    let ids = |k: &str| v[k].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect::<Vec<_>>();
    let logits = v["logits"].as_array().unwrap().iter().map(|r| r.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect()).collect();
    Reference { prompt: ids("prompt"), logits, greedy: ids("greedy") }
}

/// Largest |a - b| over the prompt's logits, and the largest |reference logit|.
fn max_diff(model: &Model, r: &Reference) -> (f32, f32) {
    let mut cache = model.new_cache();
    let got = model.forward(&mut cache, &r.prompt, true).unwrap();
    let vocab = model.cfg.vocab;
    assert_eq!(got.len(), r.prompt.len() * vocab);
    let mut d = 0f32;
    let mut scale = 0f32;
    for (i, row) in r.logits.iter().enumerate() {
        for (j, want) in row.iter().enumerate() {
            d = d.max((got[i * vocab + j] - want).abs());
            scale = scale.max(want.abs());
        }
    }
    (d, scale)
}

fn greedy(model: &Model, prompt: &[u32], n: usize) -> Vec<u32> {
    model.generate(prompt, n, &[], &mut || true, &mut |_| true).unwrap().0
}

#[test]
fn qwen2_and_qwen3_match_transformers_in_f32() {
    for arch in ["qwen2", "qwen3"] {
        let r = reference(&format!("tiny-{arch}.reference.json"));
        let m = Model::load_safetensors(&fixtures().join(format!("tiny-{arch}")), Precision::F32, 2).unwrap();
        assert_eq!(m.cfg.arch.name(), arch);
        let (d, scale) = max_diff(&m, &r);
        assert!(d <= 1e-4, "{arch}: logits differ by {d} (largest logit {scale})");
        // 10 greedy steps with the KV cache give the reference's tokens
        assert_eq!(greedy(&m, &r.prompt, 10), r.greedy, "{arch}: greedy tokens");
    }
}

#[test]
fn qwen3_5_matches_transformers_and_its_chunked_prefill_equals_token_by_token_decoding() {
    let r = reference("tiny-qwen3_5.reference.json");
    let mut m = Model::load_safetensors(&fixtures().join("tiny-qwen3_5"), Precision::F32, 2).unwrap();
    assert_eq!((m.cfg.arch.name(), m.cfg.rotary_dim, m.cfg.head_dim), ("qwen3_5", 16, 32));
    // the reference prefilled with its chunked form and decoded with the recurrent one
    let (d, scale) = max_diff(&m, &r);
    assert!(d <= 1e-4, "qwen3_5: logits differ by {d} (largest logit {scale})");
    assert_eq!(greedy(&m, &r.prompt, 10), r.greedy, "qwen3_5: greedy tokens");
    // one chunked pass (chunks of 4 tokens: three chunks) against one token at a time
    m.delta_chunk = 4;
    let mut whole = m.new_cache();
    let all = m.forward(&mut whole, &r.prompt, true).unwrap();
    let vocab = m.cfg.vocab;
    let mut step = m.new_cache();
    for (i, t) in r.prompt.iter().enumerate() {
        let one = m.forward(&mut step, &[*t], false).unwrap();
        let d = one.iter().zip(&all[i * vocab..(i + 1) * vocab]).fold(0f32, |d, (a, b)| d.max((a - b).abs()));
        assert!(d <= 1e-4, "position {i}: chunked vs recurrent differ by {d}");
    }
}

#[test]
fn chunked_prefill_equals_one_pass_and_token_by_token() {
    let r = reference("tiny-qwen3.reference.json");
    let m = Model::load_safetensors(&fixtures().join("tiny-qwen3"), Precision::F32, 1).unwrap();
    let mut whole = m.new_cache();
    let one = m.forward(&mut whole, &r.prompt, false).unwrap();
    for split in [1, 5] {
        let mut c = m.new_cache();
        let mut last = Vec::new();
        for chunk in r.prompt.chunks(split) {
            last = m.forward(&mut c, chunk, false).unwrap();
        }
        let d = one.iter().zip(&last).fold(0f32, |d, (a, b)| d.max((a - b).abs()));
        assert!(d <= 1e-4, "chunks of {split}: {d}");
        assert_eq!(argmax(&one), argmax(&last));
    }
}

/// A prompt of at least `BF16_ROWS` tokens runs through the bf16 GEMM where the CPU has one
/// (AMX or AVX-512 BF16: weights dequantised as they are packed, attention's two products too); in chunks
/// shorter than that, through the int8 kernels. Both within the int8 tolerance of the f32
/// model, and the same next token.
#[test]
fn a_long_prompt_through_the_bf16_gemm_agrees_with_the_int8_kernels() {
    let r = reference("tiny-qwen2-q8_0.reference.json");
    let path = fixtures().join("tiny-qwen2-q8_0.gguf");
    let ct = lens_llm::model::read_gguf(&path).unwrap();
    let f = Model::load_gguf(&path, &ct, Precision::F32, 2).unwrap();
    let q = Model::load_gguf(&path, &ct, Precision::Q8, 2).unwrap();
    let prompt: Vec<u32> = r.prompt.iter().cycle().take(lens_llm::blocks::BF16_ROWS + 16).copied().collect();
    let exact = f.forward(&mut f.new_cache(), &prompt, false).unwrap();
    let one = q.forward(&mut q.new_cache(), &prompt, false).unwrap();
    let mut c = q.new_cache();
    let mut short = Vec::new();
    for chunk in prompt.chunks(8) {
        short = q.forward(&mut c, chunk, false).unwrap();
    }
    let scale = exact.iter().fold(0f32, |m, v| m.max(v.abs()));
    let diff = |a: &[f32]| a.iter().zip(&exact).fold(0f32, |d, (x, y)| d.max((x - y).abs()));
    eprintln!(
        "{} prompt tokens, bf16 kernel {}: one pass differs from f32 by {:.4}, chunks of 8 (int8) by {:.4}, largest logit {scale:.3}",
        prompt.len(),
        lens_ml::bf16::kernel_name(),
        diff(&one),
        diff(&short)
    );
    assert!(diff(&one) <= 0.05 * scale && diff(&short) <= 0.05 * scale);
    assert_eq!(argmax(&one), argmax(&exact));
    assert_eq!(argmax(&short), argmax(&exact));
}

#[test]
fn gguf_q8_0_against_its_dequantised_reference() {
    let r = reference("tiny-qwen2-q8_0.reference.json");
    let path = fixtures().join("tiny-qwen2-q8_0.gguf");
    let ct = lens_llm::model::read_gguf(&path).unwrap();
    // f32: the GGUF's dequantised weights exactly, as the reference ran them
    let m = Model::load_gguf(&path, &ct, Precision::F32, 2).unwrap();
    let (d, scale) = max_diff(&m, &r);
    assert!(d <= 1e-4, "f32 from GGUF: {d} (largest logit {scale})");
    assert_eq!(greedy(&m, &r.prompt, 10), r.greedy);
    // int8 (the default): activations are quantised too; within 5% of the largest logit
    let q = Model::load_gguf(&path, &ct, Precision::Q8, 2).unwrap();
    let (d, scale) = max_diff(&q, &r);
    assert!(d <= 0.05 * scale, "int8: logits differ by {d}, largest logit {scale}");
    eprintln!("int8 vs dequantised reference: max abs logit difference {d:.4} ({:.1}% of the largest logit {scale:.3})", 100.0 * d / scale);
    let g = greedy(&q, &r.prompt, 10);
    let same = g.iter().zip(&r.greedy).take_while(|(a, b)| a == b).count();
    eprintln!("int8 greedy {g:?}, reference {:?}: first {same} agree", r.greedy);
    assert!(same >= 8, "int8 greedy {g:?} vs {:?}", r.greedy);
}

/// Where the device-generic passes run in these tests: candle's CPU device, or the GPU with
/// `LENS_PARITY_DEVICE=cuda` (`scripts/gpu-check`).
fn parity_device() -> lens_llm::device::Selected {
    match std::env::var("LENS_PARITY_DEVICE").as_deref() {
        Ok("cuda") => lens_llm::device::select(lens_llm::DeviceChoice::Cuda).unwrap(),
        _ => lens_llm::device::Selected { device: candle_core::Device::Cpu, name: "cpu (candle)".into(), fallback: None },
    }
}

/// The device-generic pass for model folders ([`lens_llm::folder_pass`]: candle's ops, what a
/// GPU runs for Qwen2, Qwen3 and Qwen3.5) against the transformers reference: every position's
/// logits within 1e-4 in f32 on candle's CPU device (1e-3 on a GPU), the reference's greedy
/// tokens through its own caches; Qwen3.5's delta rule in chunks of 4 equal to one token at a
/// time; a prompt run in two calls equal to one; bf16 matrices within 5% of the largest logit
/// (the int8 GGUF's bound) and at least 8 of the 10 greedy tokens.
#[test]
fn the_device_generic_pass_runs_model_folders_qwen2_qwen3_and_qwen3_5() {
    let device = parity_device();
    let tol = if device.is_gpu() { 1e-3 } else { 1e-4 };
    for arch in ["qwen2", "qwen3", "qwen3_5"] {
        let r = reference(&format!("tiny-{arch}.reference.json"));
        let dir = fixtures().join(format!("tiny-{arch}"));
        let mut m = Model::load_safetensors_on(&dir, &device, Some(candle_core::DType::F32)).unwrap();
        assert_eq!((m.cfg.arch.name(), m.gpu_name(), m.gpu_form().as_deref()), (arch, Some(device.name.as_str()), Some("f32 matrices")));
        let (d, scale) = max_diff(&m, &r);
        eprintln!("{arch} folder on {}: f32 logits within {d:.2e} of the reference (largest {scale:.3})", device.name);
        assert!(d <= tol, "{arch}: logits differ by {d} (largest logit {scale})");
        assert_eq!(greedy(&m, &r.prompt, 10), r.greedy, "{arch}: greedy tokens");
        let vocab = m.cfg.vocab;
        let mut whole = m.new_cache();
        let all = m.forward(&mut whole, &r.prompt, true).unwrap();
        // the prompt in two calls (the second continues the caches and delta states)
        let cut = r.prompt.len() / 2 + 1;
        let mut c = m.new_cache();
        m.forward(&mut c, &r.prompt[..cut], false).unwrap();
        let last = m.forward(&mut c, &r.prompt[cut..], false).unwrap();
        let d2 = last.iter().zip(&all[all.len() - vocab..]).fold(0f32, |d, (a, b)| d.max((a - b).abs()));
        assert!(d2 <= tol, "{arch}: two calls vs one differ by {d2}");
        // out of step: a position the pass does not hold is refused
        assert!(m.forward(&mut c, &[1], false).is_ok());
        let mut wrong = m.new_cache();
        wrong.len = 3;
        assert!(m.forward(&mut wrong, &[1], false).unwrap_err().to_string().contains("continue at 3"));
        if arch == "qwen3_5" {
            m.set_delta_chunk(4);
            let chunked = m.forward(&mut m.new_cache(), &r.prompt, true).unwrap();
            let mut step = m.new_cache();
            for (i, t) in r.prompt.iter().enumerate() {
                let one = m.forward(&mut step, &[*t], false).unwrap();
                let d = one.iter().zip(&chunked[i * vocab..(i + 1) * vocab]).fold(0f32, |d, (a, b)| d.max((a - b).abs()));
                assert!(d <= tol, "qwen3_5 position {i}: chunks of 4 vs one token at a time differ by {d}");
            }
        }
        // what `lens bench llm` prints on a GPU: the device pass against the CPU kernels
        let cpu = Model::load_safetensors(&dir, Precision::F32, 2).unwrap();
        let ag = lens_llm::model::agreement(&m, &cpu, &r.prompt, 10).unwrap();
        assert!(ag.max_diff <= tol && (ag.greedy_same, ag.greedy) == (10, 10), "{arch}: device pass vs CPU kernels {ag:?}");
        let b = Model::load_safetensors_on(&dir, &device, Some(candle_core::DType::BF16)).unwrap();
        let (db, _) = max_diff(&b, &r);
        let gb = greedy(&b, &r.prompt, 10);
        let same = gb.iter().zip(&r.greedy).take_while(|(a, b)| a == b).count();
        eprintln!(
            "{arch} folder on {}: bf16 logits within {db:.3} ({:.2}% of the largest), {same} of 10 greedy tokens as the reference",
            device.name,
            100.0 * db / scale
        );
        // the int8 GGUF's bound (bf16 keeps 8 bits of mantissa; these random weights are large)
        assert!(db <= 0.05 * scale, "{arch} bf16: logits differ by {db} (largest {scale})");
        assert!(same >= 8, "{arch} bf16 greedy {gb:?} vs {:?}", r.greedy);
    }
}

/// The device-generic pass a GPU runs (candle's ops, [`lens_llm::gpu`]), run here on candle's
/// CPU device: the same reference within the int8 tolerance, the same greedy tokens through its
/// own KV cache. `scripts/gpu-check` runs this test with the `cuda` feature on the GPU.
#[test]
fn the_device_generic_pass_matches_the_reference() {
    let r = reference("tiny-qwen2-q8_0.reference.json");
    let path = fixtures().join("tiny-qwen2-q8_0.gguf");
    let device = parity_device();
    let m = Model::load_gguf_on(&path, lens_llm::model::read_gguf(&path).unwrap(), &device).unwrap();
    assert_eq!(m.gpu_name(), Some(device.name.as_str()));
    let mut cache = m.new_cache();
    let last = m.forward(&mut cache, &r.prompt, false).unwrap();
    let want = r.logits.last().unwrap();
    let scale = want.iter().fold(0f32, |a, b| a.max(b.abs()));
    let d = last.iter().zip(want).fold(0f32, |a, (x, y)| a.max((x - y).abs()));
    eprintln!("device-generic pass on {}: max abs logit difference {d:.4} ({:.1}% of the largest logit {scale:.3})", device.name, 100.0 * d / scale);
    assert!(d <= 0.05 * scale, "logits differ by {d}, largest {scale}");
    // every logit of every position is the CPU kernels' job
    assert!(m.forward(&mut m.new_cache(), &r.prompt, true).unwrap_err().to_string().contains("CPU only"));
    let g = greedy(&m, &r.prompt, 10);
    let same = g.iter().zip(&r.greedy).take_while(|(a, b)| a == b).count();
    assert!(same >= 8, "greedy {g:?} vs {:?}", r.greedy);
    // a new sequence (position 0) starts from an empty cache: the same tokens again
    assert_eq!(greedy(&m, &r.prompt, 10), g);
}

#[test]
fn a_lone_gguf_is_a_whole_chat_model() {
    let path = fixtures().join("tiny-qwen2-q8_0.gguf");
    let lm = LanguageModel::load(&path, None, 1).unwrap();
    // the tokenizer came from the file's metadata: merges, control tokens, round trip
    let ids = lm.encode("<|im_start|>hello").unwrap();
    assert_eq!(ids[0], lm.tokenizer.token_to_id("<|im_start|>").unwrap());
    assert_eq!(ids[1], lm.tokenizer.token_to_id("hell").unwrap());
    assert_eq!(lm.decode(&ids).unwrap(), "hello");
    assert_eq!(lm.stop[0], lm.tokenizer.token_to_id("<|im_end|>").unwrap());
    let prompt = lm.encode(&lm.chat("rules", "question")).unwrap();
    let (out, stats) = lm.model.generate(&prompt, 5, &[], &mut || true, &mut |_| true).unwrap();
    assert_eq!((out.len(), stats.prompt_tokens), (5, prompt.len()));
}

mod bad_input {
    use super::*;
    use candle_core::quantized::gguf_file::{self, Value};
    use candle_core::quantized::{GgmlDType, QTensor};
    use candle_core::{Device, Tensor};

    fn err(p: &Path) -> String {
        match LanguageModel::load(p, None, 1) {
            Ok(_) => panic!("{} loaded", p.display()),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn truncated_corrupt_and_foreign_files_are_refused_by_name() {
        let d = tempfile::tempdir().unwrap();
        let good = std::fs::read(fixtures().join("tiny-qwen2-q8_0.gguf")).unwrap();
        // truncated inside the tensor data, inside the header, and not a GGUF at all
        for (name, bytes) in [("cut.gguf", &good[..good.len() * 3 / 4]), ("head.gguf", &good[..200]), ("noise.gguf", &b"not a model at all, just text"[..])] {
            let p = d.path().join(name);
            std::fs::write(&p, bytes).unwrap();
            let e = err(&p);
            assert!(e.contains(name), "{name}: {e}");
        }
        // a GGUF of another architecture
        let p = d.path().join("llama.gguf");
        let t = QTensor::quantize(&Tensor::zeros((4, 32), candle_core::DType::F32, &Device::Cpu).unwrap(), GgmlDType::F32).unwrap();
        let arch = Value::String("llama".into());
        let mut f = std::fs::File::create(&p).unwrap();
        gguf_file::write(&mut f, &[("general.architecture", &arch)], &[("token_embd.weight", &t)]).unwrap();
        drop(f);
        let e = err(&p);
        assert!(e.contains("llama.gguf") && e.contains("\"llama\" is not supported"), "{e}");
        // a missing path
        let e = LanguageModel::load(&d.path().join("absent.gguf"), None, 1).err().unwrap();
        assert_eq!(e.code(), "model_missing");
    }

    #[test]
    fn a_tokenizer_that_does_not_match_the_model_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("model");
        std::fs::create_dir(&dir).unwrap();
        for f in ["config.json", "model.safetensors"] {
            std::fs::copy(fixtures().join("tiny-qwen2").join(f), dir.join(f)).unwrap();
        }
        // none at all
        let e = err(&dir);
        assert!(e.contains("tokenizer.json"), "{e}");
        // one with more tokens than the model has rows
        let syms: Vec<String> = (0..400).map(|i| format!("t{i}")).chain(["<|im_start|>".into(), "<|im_end|>".into()]).collect();
        let toks: Vec<&str> = syms.iter().map(String::as_str).collect();
        let mut types = vec![1; toks.len()];
        let n = types.len();
        types[n - 1] = 3;
        types[n - 2] = 3;
        let tok = lens_llm::tokenizer::build(&toks, &[], &types, Some("qwen2"), Path::new("x")).unwrap();
        tok.save(dir.join("tokenizer.json"), false).unwrap();
        let e = err(&dir);
        assert!(e.contains("do not belong together"), "{e}");
    }

    #[test]
    fn pages_longer_than_the_context_are_cut_and_the_answer_says_so() {
        use lens_core::answer::{label_pages, Answerer};
        let lm = LanguageModel::load(&fixtures().join("tiny-qwen2-q8_0.gguf"), None, 1).unwrap();
        assert_eq!(lm.model.cfg.context, 2048);
        let q = lens_llm::qwen::QwenAnswerer::new(std::sync::Arc::new(lm));
        let long = "revenue grew by ten percent in the year\n".repeat(300);
        let pages = label_pages(vec![("D".into(), 1, String::new(), long.clone()), ("D".into(), 2, String::new(), long)]);
        let mut streamed = String::new();
        let a = q
            .answer_stream(&lens_core::question::Question::parse("How much did revenue grow?"), &pages, &mut |t| {
                streamed.push_str(t);
                true
            })
            .unwrap();
        let run = a.model.as_ref().unwrap();
        assert!(run.prompt_tokens + 96 <= 2048, "{} prompt tokens", run.prompt_tokens);
        // the model reads passages: the notes say how many of the pages' sentences it was given
        assert!(run.notes.iter().any(|n| n.contains("sentences and rows of the 2 pages read were given to the model")), "{:?}", run.notes);
        assert_eq!(streamed, a.answer, "the streamed pieces add up to the answer");
        // whole pages (`--prompt pages`): cut to fit, and said
        let mut pages_mode = lens_llm::qwen::QwenAnswerer { lm: q.lm.clone(), opts: q.opts.clone() };
        pages_mode.opts.prompt.mode = lens_llm::prompt::PromptMode::Pages;
        let a = pages_mode.answer(&lens_core::question::Question::parse("How much did revenue grow?"), &pages).unwrap();
        let run = a.model.as_ref().unwrap();
        assert!(run.prompt_tokens + 96 <= 2048, "{} prompt tokens", run.prompt_tokens);
        assert!(run.notes.iter().any(|n| n.contains("was cut to")), "{:?}", run.notes);
        // a stop from the reader ends the answer with `cancelled`
        let mut calls = 0;
        let r = q.answer_stream(&lens_core::question::Question::parse("How much did revenue grow?"), &pages, &mut |_| {
            calls += 1;
            false
        });
        assert!(calls <= 1);
        assert!(matches!(r, Err(lens_core::LensError::Cancelled) | Ok(_)));
    }
}

/// A GGUF whose matrices are of a type without a kernel (F16 here) loads through the generic
/// path (quantised to Q8_0 at load): the same reference within the int8 tolerance, and
/// `lens models` (discover::describe) says which types took that path.
#[test]
fn a_block_type_without_a_kernel_loads_through_the_generic_path_and_says_so() {
    use candle_core::quantized::{gguf_file, GgmlDType, QTensor};
    use candle_core::Device;
    let r = reference("tiny-qwen2-q8_0.reference.json");
    let src = fixtures().join("tiny-qwen2-q8_0.gguf");
    let ct = lens_llm::model::read_gguf(&src).unwrap();
    let mut file = std::fs::File::open(&src).unwrap();
    let mut tensors = Vec::new();
    for name in ct.tensor_infos.keys() {
        let t = ct.tensor(&mut file, name, &Device::Cpu).unwrap();
        let t = if t.shape().rank() == 2 { QTensor::quantize(&t.dequantize(&Device::Cpu).unwrap(), GgmlDType::F16).unwrap() } else { t };
        tensors.push((name.clone(), t));
    }
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("tiny-f16.gguf");
    let mut out = std::fs::File::create(&path).unwrap();
    let meta: Vec<(&str, &gguf_file::Value)> = ct.metadata.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let ts: Vec<(&str, &QTensor)> = tensors.iter().map(|(k, t)| (k.as_str(), t)).collect();
    gguf_file::write(&mut out, &meta, &ts).unwrap();
    drop(out);
    let ct2 = lens_llm::model::read_gguf(&path).unwrap();
    let m = Model::load_gguf(&path, &ct2, Precision::Q8, 2).unwrap();
    let (diff, scale) = max_diff(&m, &r);
    assert!(diff <= 0.05 * scale, "generic path: logits differ by {diff}, largest logit {scale}");
    let info = lens_llm::discover::describe(&path, "path").unwrap();
    assert!(info.kernels.contains("generic path") && info.kernels.contains("F16 x"), "{}", info.kernels);
    assert!(!info.kernels.contains("as stored"), "{}", info.kernels);
    let stored = lens_llm::discover::describe(&src, "path").unwrap();
    assert!(stored.kernels.starts_with("as stored: Q8_0") && !stored.kernels.contains("generic"), "{}", stored.kernels);
}

/// The GGUF name of a Hugging Face tensor name (the inverse of the loader's mapping).
fn gguf_name(hf: &str) -> String {
    match hf {
        "model.embed_tokens.weight" => return "token_embd.weight".into(),
        "model.norm.weight" => return "output_norm.weight".into(),
        "lm_head.weight" => return "output.weight".into(),
        _ => {}
    }
    let rest = hf.strip_prefix("model.layers.").unwrap();
    let (i, part) = rest.split_once('.').unwrap();
    let g = match part {
        "input_layernorm.weight" => "attn_norm.weight".to_string(),
        "post_attention_layernorm.weight" => "ffn_norm.weight".to_string(),
        "self_attn.q_norm.weight" => "attn_q_norm.weight".to_string(),
        "self_attn.k_norm.weight" => "attn_k_norm.weight".to_string(),
        "self_attn.o_proj.weight" => "attn_output.weight".to_string(),
        p => {
            let (base, kind) = p.rsplit_once('.').unwrap();
            match base {
                "self_attn.q_proj" | "self_attn.k_proj" | "self_attn.v_proj" => format!("attn_{}.{kind}", &base[10..11]),
                "mlp.gate_proj" | "mlp.up_proj" | "mlp.down_proj" => format!("ffn_{}.{kind}", base[4..].trim_end_matches("_proj")),
                _ => panic!("unmapped tensor {hf}"),
            }
        }
    };
    format!("blk.{i}.{g}")
}

/// The device-generic pass on a Qwen3 GGUF (the tiny Qwen3 written as one, f32), on candle's
/// CPU device (`LENS_PARITY_DEVICE=cuda`: the GPU): the transformers reference within 1e-3 (f32).
#[test]
fn the_device_generic_pass_runs_qwen3_too() {
    use candle_core::quantized::{
        gguf_file::{self, Value},
        GgmlDType, QTensor,
    };
    let r = reference("tiny-qwen3.reference.json");
    let dir = fixtures().join("tiny-qwen3");
    let cfg: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    let st = unsafe { candle_core::safetensors::MmapedSafetensors::new(dir.join("model.safetensors")) }.unwrap();
    let mut tensors = Vec::new();
    for (name, _) in st.tensors() {
        let t = st.load(&name, &candle_core::Device::Cpu).unwrap().to_dtype(candle_core::DType::F32).unwrap();
        tensors.push((gguf_name(&name), QTensor::quantize(&t, GgmlDType::F32).unwrap()));
    }
    let u = |k: &str| Value::U32(cfg[k].as_u64().unwrap() as u32);
    let meta = vec![
        ("general.architecture", Value::String("qwen3".into())),
        ("general.dtype", Value::U32(0)),
        ("qwen3.block_count", u("num_hidden_layers")),
        ("qwen3.embedding_length", u("hidden_size")),
        ("qwen3.feed_forward_length", u("intermediate_size")),
        ("qwen3.attention.head_count", u("num_attention_heads")),
        ("qwen3.attention.head_count_kv", u("num_key_value_heads")),
        ("qwen3.attention.key_length", u("head_dim")),
        ("qwen3.context_length", u("max_position_embeddings")),
        ("qwen3.attention.layer_norm_rms_epsilon", Value::F32(cfg["rms_norm_eps"].as_f64().unwrap() as f32)),
        ("qwen3.rope.freq_base", Value::F32(cfg["rope_parameters"]["rope_theta"].as_f64().unwrap() as f32)),
    ];
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("tiny-qwen3.gguf");
    let mut f = std::fs::File::create(&path).unwrap();
    let m: Vec<(&str, &Value)> = meta.iter().map(|(k, v)| (*k, v)).collect();
    let t: Vec<(&str, &QTensor)> = tensors.iter().map(|(k, v)| (k.as_str(), v)).collect();
    gguf_file::write(&mut f, &m, &t).unwrap();
    drop(f);
    // the CPU kernels read the same file as the reference does
    let ct = lens_llm::model::read_gguf(&path).unwrap();
    let (dc, scale) = max_diff(&Model::load_gguf(&path, &ct, Precision::F32, 2).unwrap(), &r);
    assert!(dc <= 1e-4, "the written GGUF on the CPU kernels: {dc} (largest logit {scale})");
    let device = parity_device();
    let m = Model::load_gguf_on(&path, lens_llm::model::read_gguf(&path).unwrap(), &device).unwrap();
    let mut cache = m.new_cache();
    let last = m.forward(&mut cache, &r.prompt, false).unwrap();
    let want = r.logits.last().unwrap();
    let d = last.iter().zip(want).fold(0f32, |a, (x, y)| a.max((x - y).abs()));
    eprintln!("Qwen3 through the device-generic pass on {}: max abs logit difference {d:.5} (largest logit {scale:.3})", device.name);
    assert!(d <= 1e-3, "logits differ by {d}, largest {scale}");
}
