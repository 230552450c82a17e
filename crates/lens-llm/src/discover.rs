//! Finding language models offline, without loading them: an explicit path (a `.gguf` file or
//! a model directory), the app's models folder, and the Hugging Face cache
//! (`$HF_HUB_CACHE`, `$HF_HOME/hub`, `~/.cache/huggingface/hub`:
//! `models--ORG--NAME/snapshots/*/`). Each find is described from its header alone: name,
//! architecture, size on disk, quantisation, context.

use lens_core::error::{LensError, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};

pub const HINT: &str = "put a Qwen2/Qwen3 .gguf file or a model folder (config.json, tokenizer.json, *.safetensors) in the models folder, or give one with --model (docs/models.md says where to get one)";

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ModelInfo {
    pub name: String,
    pub path: PathBuf,
    /// `qwen2`, `qwen3`, or what the file says when it is not supported.
    pub arch: String,
    pub supported: bool,
    pub size_bytes: u64,
    /// GGUF: the tensor types by count (`Q4K 120, Q8_0 48`); safetensors: the dtype.
    pub quantisation: String,
    pub context: Option<usize>,
    /// Where it was found: `path`, `models dir`, `hf cache`.
    pub found_in: String,
    /// How the CPU kernels hold its weight matrices: `as stored (Q5_0, Q8_0)`, and any type
    /// without a kernel, which loads through the generic path (quantised to Q8_0 at load).
    pub kernels: String,
    /// Why it cannot be used, when it cannot.
    pub problem: Option<String>,
}

/// A friendly name: the file stem, or for a model's own file (`model.gguf`) its folder, or
/// for a Hugging Face snapshot `ORG/NAME`.
pub fn display_name(path: &Path) -> String {
    let comps: Vec<String> = path.components().map(|c| c.as_os_str().to_string_lossy().to_string()).collect();
    if let Some(i) = comps.iter().position(|c| c.starts_with("models--")) {
        return comps[i].trim_start_matches("models--").replacen("--", "/", 1);
    }
    let stem = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    if path.is_file() && (stem == "model" || stem.starts_with("model-")) {
        if let Some(p) = path.parent().and_then(|p| p.file_name()) {
            return p.to_string_lossy().to_string();
        }
    }
    if path.is_dir() {
        return path.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    }
    stem
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).filter_map(|e| std::fs::metadata(e.path()).ok()).filter(|m| m.is_file()).map(|m| m.len()).sum())
        .unwrap_or(0)
}

/// How the CPU kernels hold matrices of these GGUF types: the kinds read as stored, then those
/// that go through the generic path.
fn kernels_for(types: impl Iterator<Item = candle_core::quantized::GgmlDType>) -> String {
    let (mut stored, mut generic) = (std::collections::BTreeMap::<String, usize>::new(), std::collections::BTreeMap::<String, usize>::new());
    for t in types {
        match crate::blocks::Kind::of(t) {
            Some(k) => *stored.entry(k.name().to_string()).or_default() += 1,
            None => *generic.entry(format!("{t:?}")).or_default() += 1,
        }
    }
    let list = |m: &std::collections::BTreeMap<String, usize>| m.iter().map(|(k, n)| format!("{k} x{n}")).collect::<Vec<_>>().join(", ");
    let mut out = Vec::new();
    if !stored.is_empty() {
        out.push(format!("as stored: {}", list(&stored)));
    }
    if !generic.is_empty() {
        out.push(format!("generic path (no kernel for the type; quantised to Q8_0 at load): {}", list(&generic)));
    }
    if let Some(b) = lens_ml::bf16::kernel() {
        out.push(format!("prompts of {}+ tokens through the bf16 GEMM ({})", crate::blocks::BF16_ROWS, b.name()));
    }
    out.join("; ")
}

/// Describe one candidate; `None` when it is not a language model at all (an embedding
/// model's folder, a stray file).
pub fn describe(path: &Path, found_in: &str) -> Option<ModelInfo> {
    let mut info = ModelInfo {
        name: display_name(path),
        path: path.to_path_buf(),
        arch: String::new(),
        supported: false,
        size_bytes: 0,
        quantisation: String::new(),
        context: None,
        found_in: found_in.into(),
        kernels: String::new(),
        problem: None,
    };
    if path.is_file() && path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf")) {
        info.size_bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        match crate::model::read_gguf(path) {
            Ok(ct) => {
                info.arch = ct.metadata.get("general.architecture").and_then(|v| v.to_string().ok()).cloned().unwrap_or_default();
                info.context = ct.metadata.get(&format!("{}.context_length", info.arch)).and_then(|v| v.to_u32().ok()).map(|v| v as usize);
                let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
                for t in ct.tensor_infos.values() {
                    *counts.entry(format!("{:?}", t.ggml_dtype)).or_default() += 1;
                }
                let mut c: Vec<_> = counts.into_iter().collect();
                c.sort_by_key(|b| std::cmp::Reverse(b.1));
                info.quantisation = c.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ");
                info.kernels = kernels_for(ct.tensor_infos.values().filter(|t| t.shape.rank() == 2).map(|t| t.ggml_dtype));
                match crate::model::Config::from_gguf(&ct, path) {
                    Ok(_) => info.supported = true,
                    Err(e) => info.problem = Some(e.to_string()),
                }
            }
            Err(e) => info.problem = Some(e.to_string()),
        }
        return Some(info);
    }
    if path.is_dir() {
        let cfg = path.join("config.json");
        let text = std::fs::read_to_string(&cfg).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        let mt = v["model_type"].as_str().unwrap_or("").to_string();
        // embedding models (BERT) live in the same folder: not language models
        if mt == "bert" || mt.is_empty() {
            return None;
        }
        info.arch = mt;
        info.size_bytes = dir_size(path);
        info.quantisation = v["torch_dtype"].as_str().or(v["dtype"].as_str()).unwrap_or("").to_string();
        info.context = v["max_position_embeddings"].as_u64().map(|c| c as usize);
        match crate::model::Config::from_json(&text, &cfg) {
            Ok(_) => {
                let has_weights = std::fs::read_dir(path)
                    .map(|rd| rd.filter_map(|e| e.ok()).any(|e| e.path().extension().is_some_and(|x| x == "safetensors")))
                    .unwrap_or(false);
                if !path.join("tokenizer.json").is_file() {
                    info.problem = Some(format!("{}: tokenizer.json is missing", path.display()));
                } else if !has_weights {
                    info.problem = Some(format!("{}: no *.safetensors weights", path.display()));
                } else {
                    info.supported = true;
                }
            }
            Err(e) => info.problem = Some(e.to_string()),
        }
        return Some(info);
    }
    None
}

pub use lens_core::paths::hf_caches;

fn candidates_in(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_file() && p.extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf")) {
            out.push(p);
        } else if p.is_dir() {
            if p.join("config.json").is_file() {
                out.push(p.clone());
            }
            if depth > 0 {
                candidates_in(&p, depth - 1, out);
            }
        }
    }
}

/// Every language model found under `models_dir` and in the Hugging Face caches.
pub fn find_all(models_dir: &Path) -> Vec<ModelInfo> {
    let mut found = Vec::new();
    let mut paths = Vec::new();
    candidates_in(models_dir, 2, &mut paths);
    found.extend(paths.iter().filter_map(|p| describe(p, "models dir")));
    for snap in lens_core::paths::hf_snapshots(|_| true) {
        // a snapshot that is a model folder, then the GGUF files and model folders in it
        let mut paths = Vec::new();
        if snap.join("config.json").is_file() {
            paths.push(snap.clone());
        }
        candidates_in(&snap, 0, &mut paths);
        found.extend(paths.iter().filter_map(|p| describe(p, "hf cache")));
    }
    found
}

/// The model to answer with: `explicit` (a path) if given, else the settings' model (a path, or
/// a name `lens models` lists), else the first usable model found. The error says what is
/// missing and where it looked.
pub fn resolve(explicit: Option<&Path>, setting: &str, models_dir: &Path) -> Result<PathBuf> {
    if let Some(p) = explicit {
        return match describe(p, "path") {
            Some(i) if i.supported => Ok(p.to_path_buf()),
            Some(i) => Err(LensError::Model(i.problem.unwrap_or_else(|| format!("{}: not a supported model", p.display())))),
            None if !p.exists() => {
                Err(LensError::ModelMissing { what: p.display().to_string(), dir: p.parent().unwrap_or(Path::new(".")).to_path_buf(), hint: HINT.into() })
            }
            None => Err(LensError::Model(format!("{}: not a language model (a .gguf file or a folder with config.json)", p.display()))),
        };
    }
    let all = find_all(models_dir);
    if !setting.trim().is_empty() {
        let s = setting.trim();
        let p = Path::new(s);
        if p.is_absolute() {
            return resolve(Some(p), "", models_dir);
        }
        return all
            .iter()
            .find(|m| m.supported && (m.name == s || m.path.file_name().is_some_and(|n| n.to_string_lossy() == s)))
            .map(|m| m.path.clone())
            .ok_or_else(|| LensError::ModelMissing { what: format!("model `{s}`"), dir: models_dir.to_path_buf(), hint: HINT.into() });
    }
    all.into_iter().find(|m| m.supported).map(|m| m.path).ok_or_else(|| LensError::ModelMissing {
        what: "a Qwen .gguf file or model folder".into(),
        dir: models_dir.to_path_buf(),
        hint: format!(
            "{HINT}; the Hugging Face cache was searched too ({})",
            hf_caches().iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_models_in_the_folder_and_the_hf_cache_layout_and_skips_embedders() {
        let d = tempfile::tempdir().unwrap();
        let models = d.path().join("models");
        let emb = models.join("all-minilm-l6-v2");
        std::fs::create_dir_all(&emb).unwrap();
        std::fs::write(emb.join("config.json"), r#"{"model_type":"bert"}"#).unwrap();
        let snap = d.path().join("hub/models--Qwen--Qwen3-0.6B/snapshots/abc123");
        std::fs::create_dir_all(&snap).unwrap();
        std::fs::write(
            snap.join("config.json"),
            r#"{"model_type":"qwen3","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,"vocab_size":300,"max_position_embeddings":4096,"torch_dtype":"bfloat16"}"#,
        )
        .unwrap();
        std::fs::write(snap.join("tokenizer.json"), "{}").unwrap();
        std::fs::write(snap.join("model.safetensors"), "").unwrap();
        std::fs::write(models.join("broken.gguf"), b"GGUF but not really").unwrap();
        let found = find_all(&models);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].problem.as_deref().unwrap_or("").contains("broken.gguf"));
        // the hub layout
        std::env::set_var("HF_HUB_CACHE", d.path().join("hub"));
        let found = find_all(&models);
        std::env::remove_var("HF_HUB_CACHE");
        let q = found.iter().find(|m| m.arch == "qwen3").expect("the snapshot is found");
        assert_eq!(
            (q.name.as_str(), q.supported, q.context, q.quantisation.as_str(), q.found_in.as_str()),
            ("Qwen/Qwen3-0.6B", true, Some(4096), "bfloat16", "hf cache")
        );
        let e = resolve(Some(&models.join("nope.gguf")), "", &models).unwrap_err();
        assert_eq!(e.code(), "model_missing");
        let e = resolve(None, "", &models).unwrap_err().to_string();
        assert!(e.contains("models"), "{e}");
    }
}
