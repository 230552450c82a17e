//! User settings kept in the library: answering, retrieval, OCR, models. (The library folder
//! itself is chosen in a config file outside any library: see [`crate::paths`].)

use crate::answer::AnswererKind;
use crate::error::{LensError, Result};
use crate::retrieve::Retriever;
use crate::store::Store;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The settings a team's servers share ([`Settings::shared`]).
pub const SHARED: &[&str] = &["top_k", "answerer", "retriever", "ocr_langs", "model", "embedder", "vision_model", "vision_edge", "vision_pooled"];

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Settings {
    /// Pages given to the answerer.
    pub top_k: usize,
    pub answerer: AnswererKind,
    pub retriever: Retriever,
    /// Tesseract languages, `+`-joined.
    pub ocr_langs: String,
    /// Worker threads for OCR (0: one per core).
    pub threads: usize,
    /// Where model weights are looked for.
    pub models_dir: String,
    /// Model to answer with, when a model answerer is chosen (empty: none).
    pub model: String,
    /// Embedding model (a folder under `models_dir`) for the dense and hybrid retrievers.
    pub embedder: String,
    /// Threads the language model uses (0: every core up to four, one less on larger machines).
    pub model_threads: usize,
    /// Where the language model runs: auto (a GPU when the build has one and it starts, else
    /// the CPU), cpu, cuda or metal.
    pub device: String,
    /// Vision model (a ColModernVBERT folder under `models_dir`) for the vision and hybrid
    /// retrievers.
    pub vision_model: String,
    /// Longest edge pages are read at by the vision model (512 = one tile; 1024 = 4 tiles +
    /// the whole page).
    pub vision_edge: u32,
    /// Pool each page's vision vectors ×3 (k-means) when building the index.
    pub vision_pooled: bool,
}

impl Default for Settings {
    fn default() -> Self {
        let models = default_models_dir();
        // hybrid only when its embedding model is installed: without it every answer would say
        // "BM25 only"
        let retriever = if embedder_installed(&models.join(crate::dense::DEFAULT_MODEL)) { Retriever::Hybrid } else { Retriever::Bm25 };
        Settings {
            top_k: 3,
            answerer: AnswererKind::Extractive,
            retriever,
            ocr_langs: "eng".into(),
            threads: 0,
            models_dir: models.display().to_string(),
            model: String::new(),
            embedder: crate::dense::DEFAULT_MODEL.into(),
            model_threads: 0,
            device: "auto".into(),
            vision_model: "colmodernvbert".into(),
            vision_edge: 1024,
            vision_pooled: false,
        }
    }
}

impl Settings {
    /// The vision model's folder: `models_dir/vision_model` when it holds a model, else a
    /// snapshot in the Hugging Face cache whose repository name contains `vision_model`
    /// (`models--ModernVBERT--colmodernvbert-merged/snapshots/*`), else the models-folder path
    /// (what error messages name).
    pub fn vision_dir(&self) -> PathBuf {
        let local = std::path::Path::new(&self.models_dir).join(&self.vision_model);
        if vision_installed(&local) {
            return local;
        }
        let want = self.vision_model.to_lowercase();
        // the first repository with an installed snapshot, its last snapshot
        let snaps: Vec<PathBuf> = crate::paths::hf_snapshots(|n| n.contains(&want)).into_iter().filter(|p| vision_installed(p)).collect();
        let first_repo = snaps.first().and_then(|p| p.parent().map(Path::to_path_buf));
        snaps.into_iter().rfind(|p| p.parent().map(Path::to_path_buf) == first_repo).unwrap_or(local)
    }
}

/// The files a vision model folder must hold (weights may be sharded: any `*.safetensors`).
pub fn vision_installed(dir: &std::path::Path) -> bool {
    dir.join("config.json").is_file()
        && dir.join("tokenizer.json").is_file()
        && crate::paths::files_with_extension(dir, "safetensors").is_ok_and(|f| !f.is_empty())
}

/// The files an embedding model folder must hold.
pub const EMBEDDER_FILES: [&str; 3] = ["config.json", "model.safetensors", "tokenizer.json"];

/// Does `dir` hold an embedding model?
pub fn embedder_installed(dir: &std::path::Path) -> bool {
    EMBEDDER_FILES.iter().all(|f| dir.join(f).is_file())
}

/// Where models are looked for when the settings do not say: $LENS_MODELS, else the data dir.
pub use crate::paths::default_models_dir;

impl Settings {
    pub fn load(store: &Store) -> Result<Settings> {
        Ok(match store.setting("settings")? {
            Some(json) => serde_json::from_str(&json).unwrap_or_default(),
            None => Settings::default(),
        })
    }

    /// Check every field; the error names the field and what is allowed.
    pub fn validate(&self) -> Result<()> {
        if !(1..=20).contains(&self.top_k) {
            return Err(LensError::BadInput(format!("top-k must be 1 to 20 pages (got {})", self.top_k)));
        }
        // paths: a model is a folder name inside the models folder, which must exist
        if self.embedder.is_empty() || self.embedder.contains(['/', '\\']) || self.embedder.starts_with('.') {
            return Err(LensError::BadInput(format!("embedding model `{}` must be a folder name inside the models folder (no `/`, no `..`)", self.embedder)));
        }
        let md = std::path::Path::new(&self.models_dir);
        if !md.is_absolute() || md.components().any(|c| c == std::path::Component::ParentDir) {
            return Err(LensError::BadInput(format!("models folder `{}` must be an absolute path without `..`", self.models_dir)));
        }
        // dense needs its model; hybrid is BM25 plus dense where vectors exist, and says so
        if self.retriever == Retriever::Dense {
            let dir = std::path::Path::new(&self.models_dir).join(&self.embedder);
            for f in EMBEDDER_FILES {
                if !dir.join(f).is_file() {
                    return Err(LensError::ModelMissing {
                        what: f.into(),
                        dir,
                        hint: format!("the {} retriever needs the embedding model `{}`; see docs/models.md", self.retriever, self.embedder),
                    });
                }
            }
        }
        if self.vision_model.is_empty() || self.vision_model.contains(['/', '\\']) || self.vision_model.starts_with('.') {
            return Err(LensError::BadInput(format!("vision model `{}` must be a folder name inside the models folder (no `/`, no `..`)", self.vision_model)));
        }
        if !(256..=2048).contains(&self.vision_edge) {
            return Err(LensError::BadInput(format!("vision edge must be 256 to 2048 px (got {})", self.vision_edge)));
        }
        if self.retriever == Retriever::Vision && !vision_installed(&self.vision_dir()) {
            return Err(LensError::ModelMissing {
                what: "a ColModernVBERT model (config.json, *.safetensors, tokenizer.json)".into(),
                dir: self.vision_dir(),
                hint: "the vision retriever needs it; see docs/models.md".into(),
            });
        }
        if self.threads > 64 {
            return Err(LensError::BadInput(format!("threads must be 0 (one per core) to 64 (got {})", self.threads)));
        }
        if self.model_threads > 64 {
            return Err(LensError::BadInput(format!("model threads must be 0 (the default) to 64 (got {})", self.model_threads)));
        }
        if !["auto", "cpu", "cuda", "metal"].contains(&self.device.as_str()) {
            return Err(LensError::BadInput(format!("device must be auto, cpu, cuda or metal (got `{}`)", self.device)));
        }
        crate::ocr::check(&crate::ocr::OcrOptions::default().tesseract, &self.ocr_langs)
    }

    /// These settings with `patch`'s fields (JSON, by field name) put over them. Unknown fields
    /// and values of the wrong kind are refused by name; nothing is saved here.
    pub fn patched(&self, patch: &serde_json::Map<String, serde_json::Value>) -> Result<Settings> {
        let mut merged = serde_json::to_value(self).expect("settings serialise");
        let m = merged.as_object_mut().expect("settings are an object");
        for (k, v) in patch {
            if !m.contains_key(k) {
                return Err(LensError::BadInput(format!("unknown setting `{k}`")));
            }
            m.insert(k.clone(), v.clone());
        }
        serde_json::from_value(merged).map_err(|e| LensError::BadInput(format!("bad setting value: {e}")))
    }

    /// The settings a team's servers share (how questions are answered and pages read), as a
    /// patch for [`Settings::patched`]; the rest (threads, model folder, device) are each
    /// machine's own.
    pub fn shared(&self) -> serde_json::Map<String, serde_json::Value> {
        let all = serde_json::to_value(self).expect("settings serialise");
        SHARED.iter().filter_map(|k| all.get(*k).map(|v| (k.to_string(), v.clone()))).collect()
    }

    pub fn save(&self, store: &Store) -> Result<()> {
        self.validate()?;
        store.set_setting("settings", &serde_json::to_string(self).expect("settings serialise"))
    }

    pub fn ocr_options(&self) -> crate::ocr::OcrOptions {
        let mut o = crate::ocr::OcrOptions { langs: self.ocr_langs.clone(), ..Default::default() };
        if self.threads > 0 {
            o.threads = self.threads;
        }
        o
    }
}

/// The retriever a call asks for: `flag` (a CLI flag, an API argument), else the library's
/// setting. The models it reads are loaded beside it by the front ends' one entry point
/// (`lens_api::choose_retriever`: the embedding model by `lens_ml::minilm::attach`, the vision
/// index by `lens_vision::library::attach`).
pub fn choose_retriever(settings: &Settings, flag: Option<Retriever>) -> Retriever {
    flag.unwrap_or(settings.retriever)
}

/// The library's settings as the front ends read and save them.
impl crate::library::Library {
    pub fn settings(&self) -> Result<Settings> {
        Settings::load(self.store())
    }

    pub fn save_settings(&self, s: &Settings) -> Result<()> {
        s.save(self.store())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn settings_round_trip_and_validation() {
        let store = Store::open_in_memory().unwrap();
        assert_eq!(Settings::load(&store).unwrap(), Settings::default());
        let s = Settings { top_k: 5, ..Default::default() };
        s.save(&store).unwrap();
        assert_eq!(Settings::load(&store).unwrap().top_k, 5);
        let patch = |v: serde_json::Value| Settings::default().patched(v.as_object().unwrap());
        for (v, msg) in [
            (serde_json::json!({"retriever": "colbert"}), "retriever `colbert` is not available in this build (available: bm25, dense, hybrid, vision)"),
            (serde_json::json!({"answerer": "gpt"}), "answerer `gpt`"),
            (serde_json::json!({"top_k": "five"}), "bad setting value"),
            (serde_json::json!({"colour": "red"}), "unknown setting `colour`"),
        ] {
            let e = patch(v).unwrap_err().to_string();
            assert!(e.contains(msg), "{e}");
        }
        assert_eq!(patch(serde_json::json!({"retriever": "bm25"})).unwrap().retriever, Retriever::Bm25);
        for (bad, msg) in [
            (Settings { top_k: 0, ..Default::default() }, "top-k"),
            (Settings { retriever: Retriever::Dense, models_dir: "/nonexistent".into(), ..Default::default() }, "needs the embedding model"),
            (Settings { ocr_langs: "eng+xyz".into(), ..Default::default() }, "tesseract-ocr-xyz"),
            (Settings { threads: 500, ..Default::default() }, "threads"),
            (Settings { retriever: Retriever::Vision, models_dir: "/nonexistent".into(), ..Default::default() }, "the vision retriever needs it"),
            (Settings { vision_edge: 100, ..Default::default() }, "vision edge must be 256 to 2048"),
            (Settings { vision_model: "../x".into(), ..Default::default() }, "vision model `../x` must be a folder name"),
            (Settings { model_threads: 500, ..Default::default() }, "model threads"),
            (Settings { device: "tpu".into(), ..Default::default() }, "device must be auto, cpu, cuda or metal"),
            (Settings { embedder: "../../../../etc".into(), ..Default::default() }, "must be a folder name"),
            (Settings { models_dir: "models".into(), ..Default::default() }, "absolute path"),
            (Settings { models_dir: "/a/../etc".into(), ..Default::default() }, "absolute path"),
        ] {
            let e = bad.save(&store).unwrap_err().to_string();
            assert!(e.contains(msg), "{e}");
        }
        // nothing invalid was stored
        assert_eq!(Settings::load(&store).unwrap().top_k, 5);
    }
}
