//! Tauri shell over lens-core. Each command opens the library, calls one core function and
//! returns its result or a `{code, message}` error the UI can classify.

use lens_core::{Library, LensError, SearchRequest};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Mutex;

#[derive(Debug, Serialize)]
pub struct ApiError {
    pub code: String,
    pub message: String,
}

impl From<LensError> for ApiError {
    fn from(e: LensError) -> Self {
        ApiError { code: e.code().into(), message: e.to_string() }
    }
}

pub struct AppState {
    pub library_dir: PathBuf,
    pub library: Mutex<Option<Library>>,
}

impl AppState {
    pub fn new(dir: PathBuf) -> Self {
        AppState { library_dir: dir, library: Mutex::new(None) }
    }
    fn with<T>(&self, f: impl FnOnce(&mut Library) -> Result<T, LensError>) -> Result<T, ApiError> {
        let mut g = self.library.lock().map_err(|_| ApiError { code: "internal".into(), message: "library lock poisoned".into() })?;
        if g.is_none() {
            *g = Some(Library::open(&self.library_dir)?);
        }
        Ok(f(g.as_mut().expect("opened above"))?)
    }
}

#[tauri::command]
fn documents(state: tauri::State<'_, AppState>) -> Result<Vec<lens_core::store::Document>, ApiError> {
    state.with(|l| l.documents())
}

#[tauri::command]
fn search(state: tauri::State<'_, AppState>, query: String, k: Option<usize>) -> Result<lens_core::SearchResponse, ApiError> {
    state.with(|l| {
        let mut r = SearchRequest::new(query);
        r.k = k.unwrap_or(10);
        l.search(&r)
    })
}

#[tauri::command]
fn app_info(state: tauri::State<'_, AppState>) -> serde_json::Value {
    serde_json::json!({ "library": state.library_dir.display().to_string(), "version": env!("CARGO_PKG_VERSION") })
}

/// Build the app with its commands (shared by `run` and the IPC tests).
pub fn builder<R: tauri::Runtime>(builder: tauri::Builder<R>, state: AppState) -> tauri::Builder<R> {
    builder.manage(state).invoke_handler(tauri::generate_handler![documents, search, app_info])
}

pub fn run() {
    let dir = lens_core::paths::library_dir(None);
    builder(tauri::Builder::default(), AppState::new(dir))
        .run(tauri::generate_context!())
        .expect("error while running 10-K Lens");
}
