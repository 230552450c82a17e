//! Tauri shell: registers three commands that forward to the shared service layer
//! ([`lens_api::Api`], the same one `lens serve` exposes over HTTP) and does nothing else.
//! Errors cross IPC as `{code, message}` so the UI can act on the code.

use base64::Engine;
use lens_api::{Api, AskArgs, PageImageArgs};
use lens_core::LensError;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use tauri::{Emitter, Manager};

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
    pub api: Arc<Api>,
}

impl AppState {
    pub fn new(dir: PathBuf) -> Self {
        AppState { api: Api::new(dir) }
    }
}

/// Process start, for the cold-start probe.
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Every UI call: `invoke('api', {cmd, args})`.
#[tauri::command]
async fn api(state: tauri::State<'_, AppState>, cmd: String, args: Option<serde_json::Value>) -> Result<serde_json::Value, ApiError> {
    let args = args.filter(|a| a.is_object()).unwrap_or_else(|| serde_json::json!({}));
    let api = state.api.clone();
    let cmd2 = cmd.clone();
    let r = tauri::async_runtime::spawn_blocking(move || lens_api::dispatch(&api, &cmd2, args))
        .await
        .map_err(|e| ApiError { code: "internal".into(), message: e.to_string() })??;
    // Cold-start benchmark (scripts/bench-app-start): the window is interactive once the UI has
    // listed the library; report the time since process start and quit.
    if cmd == "documents" && std::env::var_os("LENS_STARTUP_PROBE").is_some() {
        let ms = STARTED.get().map(|t| t.elapsed().as_secs_f64() * 1000.0).unwrap_or(f64::NAN);
        println!("startup_ms={ms:.0} documents={}", r.as_array().map(|a| a.len()).unwrap_or(0));
        std::process::exit(0);
    }
    Ok(r)
}

/// `ask`, streamed: events (`pages`, `text` pieces, `done`) arrive on `on_event` as they
/// happen; the final response is also the command's result.
#[tauri::command]
async fn ask_stream(
    state: tauri::State<'_, AppState>,
    args: AskArgs,
    on_event: tauri::ipc::Channel<lens_core::ask::AskEvent>,
) -> Result<lens_core::ask::AskResponse, ApiError> {
    let api = state.api.clone();
    // a closed channel (the window went away) stops the answerer
    let r = tauri::async_runtime::spawn_blocking(move || api.ask_stream(&args, &mut |e| on_event.send(e).is_ok()))
        .await
        .map_err(|e| ApiError { code: "internal".into(), message: e.to_string() })??;
    Ok(r)
}

/// A rendered page with the given boxes drawn, as a `data:` URL (the CSP allows no other origin).
#[tauri::command]
async fn page_image(state: tauri::State<'_, AppState>, args: PageImageArgs) -> Result<String, ApiError> {
    let api = state.api.clone();
    let png = tauri::async_runtime::spawn_blocking(move || api.page_png(&args.page_ref(), args.dpi, &args.boxes))
        .await
        .map_err(|e| ApiError { code: "internal".into(), message: e.to_string() })??;
    Ok(format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(png)))
}

/// Build the app with its commands (shared by `run` and the IPC tests).
pub fn builder<R: tauri::Runtime>(builder: tauri::Builder<R>, state: AppState) -> tauri::Builder<R> {
    builder.manage(state).invoke_handler(tauri::generate_handler![api, ask_stream, page_image])
}

pub fn run() {
    STARTED.get_or_init(std::time::Instant::now);
    let dir = lens_core::paths::library_dir(None);
    builder(tauri::Builder::default(), AppState::new(dir))
        .setup(|app| {
            // follow the library's watched folders; tell the UI when the library changes
            let handle = app.handle().clone();
            let state = app.state::<AppState>();
            if let Err(e) = state.api.follow_watched(Arc::new(move |e| {
                let _ = handle.emit("library-changed", &e);
            })) {
                eprintln!("watched folders not followed: {e}");
            }
            Ok(())
        })
        .run(tauri::generate_context!())
        .expect("error while running 10-K Lens");
}
