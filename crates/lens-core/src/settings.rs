//! User settings: kept in the library (answering, OCR) and, for the library folder itself, in a
//! small config file in the platform config dir (it decides which library to open).

use crate::error::{LensError, Result};
use crate::store::Store;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

pub const RETRIEVERS: &[&str] = &["bm25", "dense", "hybrid"];
pub const ANSWERERS: &[&str] = &["extractive"];

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Settings {
    /// Pages given to the answerer.
    pub top_k: usize,
    pub answerer: String,
    pub retriever: String,
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
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            top_k: 3,
            answerer: "extractive".into(),
            retriever: "hybrid".into(),
            ocr_langs: "eng".into(),
            threads: 0,
            models_dir: default_models_dir().display().to_string(),
            model: String::new(),
            embedder: crate::dense::DEFAULT_MODEL.into(),
        }
    }
}

/// Where models are looked for when the settings do not say: $LENS_MODELS, else the data dir.
pub fn default_models_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("LENS_MODELS").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    directories::ProjectDirs::from("", "", "10k-lens").map(|d| d.data_dir().join("models")).unwrap_or_else(|| PathBuf::from(".lens/models"))
}

/// The config file holding the chosen library folder.
pub fn config_file() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "10k-lens").map(|d| d.config_dir().join("config.json"))
}

/// The library folder chosen in the config file, if any.
pub fn configured_library() -> Option<PathBuf> {
    let text = std::fs::read_to_string(config_file()?).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("library").and_then(|l| l.as_str()).filter(|s| !s.is_empty()).map(PathBuf::from)
}

/// Choose the library folder for the next start.
pub fn set_configured_library(dir: &str) -> Result<PathBuf> {
    let f = config_file().ok_or_else(|| LensError::BadInput("no config folder on this platform".into()))?;
    if let Some(parent) = f.parent() {
        std::fs::create_dir_all(parent).map_err(|e| LensError::io(parent, e))?;
    }
    std::fs::write(&f, serde_json::to_string_pretty(&serde_json::json!({ "library": dir })).unwrap()).map_err(|e| LensError::io(&f, e))?;
    Ok(f)
}

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
        if !ANSWERERS.contains(&self.answerer.as_str()) {
            return Err(LensError::BadInput(format!("answerer `{}` is not available (available: {})", self.answerer, ANSWERERS.join(", "))));
        }
        if !RETRIEVERS.contains(&self.retriever.as_str()) {
            return Err(LensError::BadInput(format!("retriever `{}` is not available in this build (available: {})", self.retriever, RETRIEVERS.join(", "))));
        }
        // dense needs its model; hybrid is BM25 plus dense where vectors exist, and says so
        if self.retriever == "dense" {
            let dir = std::path::Path::new(&self.models_dir).join(&self.embedder);
            for f in ["config.json", "model.safetensors", "tokenizer.json"] {
                if !dir.join(f).is_file() {
                    return Err(LensError::ModelMissing {
                        what: f.into(),
                        dir,
                        hint: format!("the {} retriever needs the embedding model `{}`; see README, Models", self.retriever, self.embedder),
                    });
                }
            }
        }
        if self.threads > 64 {
            return Err(LensError::BadInput(format!("threads must be 0 (one per core) to 64 (got {})", self.threads)));
        }
        crate::ocr::check(&crate::ocr::OcrOptions::default().tesseract, &self.ocr_langs)
    }

    pub fn save(&self, store: &Store) -> Result<()> {
        self.validate()?;
        store.set_setting("settings", &serde_json::to_string(self).expect("settings serialise"))
    }

    /// The retriever to search with; a dense one loads its embedding model into `lib` first.
    /// Hybrid without a usable model falls back to BM25 (the search says so in its notes).
    pub fn prepare_retriever(&self, lib: &crate::library::Library) -> Result<crate::library::Retriever> {
        let r: crate::library::Retriever = self.retriever.parse()?;
        if r != crate::library::Retriever::Bm25 {
            match lib.load_embedder(std::path::Path::new(&self.models_dir), &self.embedder) {
                Ok(_) => {}
                Err(e) if r == crate::library::Retriever::Dense => return Err(e),
                Err(_) => {}
            }
        }
        Ok(r)
    }

    pub fn ocr_options(&self) -> crate::ocr::OcrOptions {
        let mut o = crate::ocr::OcrOptions { langs: self.ocr_langs.clone(), ..Default::default() };
        if self.threads > 0 {
            o.threads = self.threads;
        }
        o
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
        for (bad, msg) in [
            (Settings { top_k: 0, ..Default::default() }, "top-k"),
            (Settings { retriever: "vision".into(), ..Default::default() }, "not available in this build"),
            (Settings { retriever: "colbert".into(), ..Default::default() }, "not available in this build"),
            (Settings { retriever: "dense".into(), models_dir: "/nonexistent".into(), ..Default::default() }, "needs the embedding model"),
            (Settings { answerer: "qwen".into(), ..Default::default() }, "answerer `qwen`"),
            (Settings { ocr_langs: "eng+xyz".into(), ..Default::default() }, "tesseract-ocr-xyz"),
            (Settings { threads: 500, ..Default::default() }, "threads"),
        ] {
            let e = bad.save(&store).unwrap_err().to_string();
            assert!(e.contains(msg), "{e}");
        }
        // nothing invalid was stored
        assert_eq!(Settings::load(&store).unwrap().top_k, 5);
    }
}
