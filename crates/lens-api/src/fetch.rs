//! Models fetched from Settings: the models the app can get ([`lens_llm::fetch`]), each offered
//! with its size, fetched in the background into the library's models folder, with progress.
//! One fetch at a time; a second is told the first is running.

use crate::Api;
use lens_core::error::{LensError, Result};
use serde::Serialize;
use std::path::PathBuf;

/// A model the app can fetch, as Settings offers it.
#[derive(Debug, Clone, Serialize)]
pub struct Fetchable {
    /// `minilm`, `qwen`
    pub id: String,
    pub about: String,
    /// About how many MB a fetch downloads.
    pub mb: u64,
    /// Its folder in the models folder.
    pub folder: String,
    /// Every file already there (checked by size only here; a fetch checks hashes).
    pub present: bool,
}

/// Where the fetch stands.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FetchState {
    pub model: Option<String>,
    pub running: bool,
    /// What is arriving ("model.safetensors", a wheel's name) and how far.
    pub what: String,
    pub done_bytes: u64,
    pub total_bytes: Option<u64>,
    /// The last thing it said, in words ("from the package registry", "ready in ...").
    pub message: String,
    pub error: Option<String>,
    /// Set once it finished: the model's folder.
    pub folder: Option<String>,
}

impl Api {
    fn models_folder(&self) -> Result<PathBuf> {
        Ok(PathBuf::from(self.with_library(|l| l.settings())?.models_dir))
    }

    /// The models Settings offers to fetch, with their size and whether they are here.
    pub fn fetchable(&self) -> Result<Vec<Fetchable>> {
        let dir = self.models_folder()?;
        Ok(lens_llm::fetch::known()
            .into_iter()
            .map(|s| Fetchable {
                present: s.files.iter().all(|f| dir.join(&s.dir).join(&f.name).is_file()),
                id: s.id,
                about: s.about,
                mb: s.download_bytes.div_ceil(1_000_000),
                folder: s.dir,
            })
            .collect())
    }

    /// Start fetching `name` into the models folder in the background; see [`Api::fetch_status`].
    pub fn fetch_model(&self, name: &str) -> Result<FetchState> {
        let spec = lens_llm::fetch::spec(name)?;
        let dir = self.models_folder()?;
        {
            let mut st = crate::lock(&self.fetching);
            if st.running {
                return Err(LensError::BadInput(format!("{} is being fetched; wait for it to finish", st.model.clone().unwrap_or_default())));
            }
            *st = FetchState {
                model: Some(spec.id.clone()),
                running: true,
                message: format!("fetching {} (about {} MB)", spec.id, spec.download_bytes.div_ceil(1_000_000)),
                ..Default::default()
            };
        }
        let state = self.fetching.clone();
        std::thread::spawn(move || {
            let r = lens_llm::fetch::fetch(&spec, &dir, &mut |p| {
                use lens_llm::fetch::Progress;
                let mut st = crate::lock(&state);
                match p {
                    Progress::Present { file } => st.message = format!("{file} is already here"),
                    Progress::Bytes { what, done, total } => {
                        (st.what, st.done_bytes, st.total_bytes) = (what.clone(), *done, *total);
                    }
                    Progress::HubFailed { file, why } => {
                        st.message = format!("{file}: the Hugging Face hub did not give it ({why}); fetching it from the package registry")
                    }
                    Progress::Ready { file } => st.message = format!("{file} checked and in place"),
                }
            });
            let mut st = crate::lock(&state);
            st.running = false;
            match r {
                Ok(folder) => {
                    st.message = format!("{} is ready", spec.id);
                    st.folder = Some(folder.display().to_string());
                }
                Err(e) => st.error = Some(e.to_string()),
            }
        });
        Ok(self.fetch_status())
    }

    pub fn fetch_status(&self) -> FetchState {
        crate::lock(&self.fetching).clone()
    }
}
