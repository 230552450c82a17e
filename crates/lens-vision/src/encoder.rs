//! The model with its tokenizer and image settings: a page image in, its multivector out; a
//! query in, one vector per token out.

use crate::model::{ColModernVBert, VISION_HINT};
use crate::preprocess::{self, PageInput, Rgb};
use lens_core::error::{LensError, Result};
use std::path::Path;

pub struct VisionEncoder {
    pub model: ColModernVBert,
    tokenizer: tokenizers::Tokenizer,
    /// Folder name, as the index records it.
    pub name: String,
    /// Longest edge pages are resized to (1024 by default; 512 = one tile).
    pub edge: usize,
}

impl VisionEncoder {
    /// Load a model folder (config.json, *.safetensors, tokenizer.json), on the CPU.
    pub fn load(dir: &Path, edge: usize) -> Result<VisionEncoder> {
        VisionEncoder::load_on(dir, edge, &candle_core::Device::Cpu, false)
    }

    /// Load it onto `device` (a GPU runs candle's ops; `generic` makes the CPU run them too).
    pub fn load_on(dir: &Path, edge: usize, device: &candle_core::Device, generic: bool) -> Result<VisionEncoder> {
        let model = ColModernVBert::load(dir)?.to_device(device, generic)?;
        let tp = dir.join("tokenizer.json");
        if !tp.is_file() {
            return Err(LensError::ModelMissing { what: "tokenizer.json".into(), dir: dir.to_path_buf(), hint: VISION_HINT.into() });
        }
        let tokenizer = tokenizers::Tokenizer::from_file(&tp).map_err(|e| LensError::Model(format!("{}: {e}", tp.display())))?;
        for t in ["<image>", "<fake_token_around_image>", "<global-img>", "<end_of_utterance>"] {
            if tokenizer.token_to_id(t).is_none() {
                return Err(LensError::Model(format!("{}: the tokenizer has no `{t}` token: not a ColModernVBERT tokenizer", tp.display())));
            }
        }
        if tokenizer.token_to_id("<image>") != Some(model.cfg.image_token_id) {
            return Err(LensError::Model(format!(
                "{}: `<image>` is token {:?} in the tokenizer but {} in config.json",
                tp.display(),
                tokenizer.token_to_id("<image>"),
                model.cfg.image_token_id
            )));
        }
        if edge < 64 {
            return Err(LensError::BadInput(format!("vision edge {edge} px is too small")));
        }
        // a Hugging Face snapshot is named by its repository (models--ORG--NAME/snapshots/HASH)
        let repo = dir
            .parent()
            .filter(|p| p.file_name().is_some_and(|n| n == "snapshots"))
            .and_then(|p| p.parent())
            .and_then(|r| r.file_name())
            .map(|n| n.to_string_lossy().to_string());
        let name = match repo.as_deref().and_then(|r| r.rsplit("--").next()) {
            Some(n) => n.to_string(),
            None => dir.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| "colmodernvbert".into()),
        };
        Ok(VisionEncoder { model, tokenizer, name, edge })
    }

    pub fn dim(&self) -> usize {
        self.model.cfg.dim
    }

    pub fn tile(&self) -> usize {
        self.model.cfg.vision.image_size
    }

    pub fn tokenize(&self, text: &str) -> Result<Vec<u32>> {
        let enc = self.tokenizer.encode(text, true).map_err(|e| LensError::Model(format!("tokenizer: {e}")))?;
        Ok(enc.get_ids().to_vec())
    }

    /// The document prompt's token ids for a page input.
    pub fn page_ids(&self, input: &PageInput) -> Result<Vec<u32>> {
        self.tokenize(&preprocess::document_prompt(input.rows, input.cols, self.model.cfg.image_seq_len()))
    }

    /// Embed a prepared page: `tokens × dim` row-major.
    pub fn embed_input(&self, input: &PageInput) -> Result<Vec<f32>> {
        let ids = self.page_ids(input)?;
        let feats = self.model.image_features(&input.pixels)?;
        self.model.encode(&ids, Some(&feats))
    }

    /// Embed a page image at this encoder's edge.
    pub fn embed_page(&self, img: &Rgb) -> Result<Vec<f32>> {
        self.embed_input(&preprocess::page_input(img, self.edge, self.tile()))
    }

    /// Embed a query: `tokens × dim` row-major.
    pub fn embed_query(&self, q: &str) -> Result<Vec<f32>> {
        let q = q.trim();
        if q.is_empty() {
            return Err(LensError::BadInput("the question is empty".into()));
        }
        let ids = self.tokenize(&preprocess::query_text(q))?;
        self.model.encode(&ids, None)
    }
}
