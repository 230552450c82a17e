//! Tauri shell: registers the commands that forward to the shared service layer
//! ([`lens_api::Api`], the same one `lens serve` exposes over HTTP) and the two ways files
//! arrive in a desktop window: the native file dialog and drops on the window, both of which
//! hand the service real paths (the webview's `File` objects carry none).
//! Errors cross IPC as `{code, message}` so the UI can act on the code.

use lens_api::{Api, AskArgs, PageImageArgs};
use lens_core::LensError;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tauri::{DragDropEvent, Emitter, Manager, WindowEvent};
use tauri_plugin_dialog::DialogExt;

#[derive(Debug, Serialize)]
pub struct ApiError {
    pub code: String,
    pub message: String,
}

impl From<lens_client::Failure> for ApiError {
    fn from(e: lens_client::Failure) -> Self {
        ApiError { code: e.code, message: e.message }
    }
}

impl From<LensError> for ApiError {
    fn from(e: LensError) -> Self {
        ApiError { code: e.code().into(), message: e.to_string() }
    }
}

#[derive(Clone)]
pub struct AppState {
    pub api: Arc<Api>,
    /// The team library this window works on instead of its own, when Settings names one
    /// (`lens_client`): every call then goes to the team server with this user's token.
    pub team: Arc<std::sync::Mutex<Option<Arc<lens_client::Remote>>>>,
    /// The folder of the last file opened, and of the last one saved, through a dialog: the next
    /// dialog of that kind opens there (saving a workpaper does not start in the filings' folder).
    pub last_dir: Arc<std::sync::Mutex<[Option<PathBuf>; 2]>>,
}

impl AppState {
    /// The app on the library in `dir`; the dialogs' last folders come back from
    /// `<library>/dialogs.json`, so the next start opens where the last session saved.
    pub fn new(dir: PathBuf) -> Self {
        let last = load_dialog_dirs(&dir);
        AppState { api: Api::new(dir), team: Default::default(), last_dir: Arc::new(std::sync::Mutex::new(last)) }
    }

    /// Files chosen or dropped: queued for ingest here, or sent to the team's library (each
    /// uploaded and queued there; the last queue state is returned).
    fn add(&self, paths: Vec<PathBuf>) -> Result<serde_json::Value, ApiError> {
        match self.remote() {
            Some(remote) => {
                let mut last = serde_json::Value::Null;
                for p in &paths {
                    last = remote.upload(p)?;
                }
                Ok(last)
            }
            None => Ok(serde_json::to_value(self.api.start_ingest(paths)?).unwrap_or_default()),
        }
    }

    /// The team server this window works on, when connected.
    pub fn remote(&self) -> Option<Arc<lens_client::Remote>> {
        self.team.lock().ok().and_then(|t| t.clone())
    }

    /// The team library kept from the last run (`<library>/team.json`), reconnected; a server
    /// that does not answer now leaves the window on its own library, saying why.
    pub fn reconnect(&self) -> Option<lens_client::Failure> {
        let team = lens_client::Team::load(self.api.library_dir())?;
        match lens_client::Remote::connect(&team) {
            Ok(r) => {
                *self.team.lock().ok()? = Some(Arc::new(r));
                None
            }
            Err(e) => Some(e),
        }
    }

    /// Settings → Team library: `team_get`, `team_connect` (url, token, certificate),
    /// `team_disconnect`; `None` for any other command.
    fn team_command(&self, cmd: &str, args: &serde_json::Value) -> Option<Result<serde_json::Value, ApiError>> {
        let dir = self.api.library_dir().to_path_buf();
        let status = || {
            let team = lens_client::Team::load(&dir);
            serde_json::json!({
                "connected": self.remote().map(|r| r.url().to_string()),
                "url": team.as_ref().map(|t| t.url.clone()),
                "certificate": team.as_ref().and_then(|t| t.certificate.clone()),
            })
        };
        Some(match cmd {
            "team_get" => Ok(status()),
            "team_connect" => {
                let s = |k: &str| args.get(k).and_then(|v| v.as_str()).unwrap_or_default().trim().to_string();
                let cert = s("certificate");
                let team = lens_client::Team { url: s("url"), token: s("token"), certificate: (!cert.is_empty()).then(|| PathBuf::from(cert)) };
                lens_client::Remote::connect(&team)
                    .and_then(|r| {
                        team.save(&dir)?;
                        if let Ok(mut t) = self.team.lock() {
                            *t = Some(Arc::new(r));
                        }
                        Ok(status())
                    })
                    .map_err(ApiError::from)
            }
            "team_disconnect" => {
                lens_client::Team::forget(&dir);
                if let Ok(mut t) = self.team.lock() {
                    *t = None;
                }
                Ok(status())
            }
            _ => return None,
        })
    }

    /// Where a file dialog of `kind` opens ([`dialog_dir`]).
    fn dialog_dir(&self, kind: Dialog) -> Option<PathBuf> {
        dialog_dir(self.last_dir.lock().ok().and_then(|d| d[kind as usize].clone()), std::env::var_os("HOME").map(PathBuf::from))
    }

    /// `dialog` opening where a dialog of `kind` opens ([`AppState::dialog_dir`]).
    fn start<R: tauri::Runtime>(&self, dialog: tauri_plugin_dialog::FileDialogBuilder<R>, kind: Dialog) -> tauri_plugin_dialog::FileDialogBuilder<R> {
        match self.dialog_dir(kind) {
            Some(dir) => dialog.set_directory(dir),
            None => dialog,
        }
    }

    /// Remember the folder of a file chosen in a dialog of `kind`, for this run and the next
    /// (`<library>/dialogs.json`; a file that cannot be written is only said).
    fn chose(&self, kind: Dialog, file: &Path) {
        if let (Some(dir), Ok(mut last)) = (file.parent(), self.last_dir.lock()) {
            last[kind as usize] = Some(dir.to_path_buf());
            let json = serde_json::json!({ "open": last[0], "save": last[1] });
            let path = self.api.library_dir().join(DIALOGS_FILE);
            if let Err(e) = std::fs::write(&path, json.to_string()) {
                eprintln!("the dialogs' folders were not kept ({}): {e}", path.display());
            }
        }
    }
}

/// A dialog that opens files or one that saves them: each remembers its own folder.
#[derive(Clone, Copy)]
enum Dialog {
    Open = 0,
    Save = 1,
}

/// Where the open and save dialogs' last folders are kept, in the library folder.
const DIALOGS_FILE: &str = "dialogs.json";

/// The dialogs' last folders kept by [`AppState::chose`] (none when the file is missing or
/// unreadable).
fn load_dialog_dirs(library: &Path) -> [Option<PathBuf>; 2] {
    let v: serde_json::Value = std::fs::read_to_string(library.join(DIALOGS_FILE)).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
    let dir = |k: &str| v.get(k).and_then(|d| d.as_str()).map(PathBuf::from);
    [dir("open"), dir("save")]
}

/// The path to save to: `chosen` as typed, with `.ext` added when no extension was typed (the
/// dialog's filter names the type, GTK does not add it); a name that would then overwrite a
/// file the dialog did not ask about gets a number ("nike-workpaper-2.html").
pub fn with_extension(chosen: &Path, ext: &str) -> PathBuf {
    if chosen.extension().is_some() {
        return chosen.to_path_buf();
    }
    let stem = chosen.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let mut path = chosen.with_file_name(format!("{stem}.{ext}"));
    let mut n = 2;
    while path.exists() {
        path = chosen.with_file_name(format!("{stem}-{n}.{ext}"));
        n += 1;
    }
    path
}

/// Where a file dialog opens: the folder last used when it is still there, else the home folder
/// (not the folder the app was started from).
pub fn dialog_dir(last: Option<PathBuf>, home: Option<PathBuf>) -> Option<PathBuf> {
    last.filter(|d| d.is_dir()).or(home.filter(|h| h.is_dir()))
}

/// Process start, for the cold-start probe.
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Every UI call: `invoke('api', {cmd, args})`.
#[tauri::command]
async fn api(state: tauri::State<'_, AppState>, cmd: String, args: Option<serde_json::Value>) -> Result<serde_json::Value, ApiError> {
    let args = args.filter(|a| a.is_object()).unwrap_or_else(|| serde_json::json!({}));
    // The layout probe (ui/probe.js, Ctrl+Alt+Shift+L): the open view's words broken across
    // lines, printed for the desktop window's test when the app runs with LENS_LAYOUT_PROBE;
    // otherwise it goes nowhere.
    if cmd == "layout_report" {
        if std::env::var_os("LENS_LAYOUT_PROBE").is_some() {
            println!("layout {args}");
        }
        return Ok(serde_json::Value::Null);
    }
    let st = state.inner().clone();
    let cmd2 = cmd.clone();
    let r = blocking(move || {
        if let Some(r) = st.team_command(&cmd2, &args) {
            return r;
        }
        match st.remote() {
            Some(remote) => {
                let mut v = remote.call(&cmd2, &args)?;
                // the header names the team server this window works on
                if let (true, Some(o)) = (cmd2 == "app_info", v.as_object_mut()) {
                    o.insert("team".into(), remote.url().into());
                }
                Ok(v)
            }
            None => Ok(lens_api::dispatch(&st.api, &cmd2, args)?),
        }
    })
    .await?;
    // Cold-start benchmark (scripts/bench-app-start): the window is interactive once the UI has
    // listed the library; report the time since process start and quit.
    if cmd == "documents" && std::env::var_os("LENS_STARTUP_PROBE").is_some() {
        let ms = STARTED.get().map(|t| t.elapsed().as_secs_f64() * 1000.0).unwrap_or(f64::NAN);
        // where pdfium comes from: the package smoke test checks it is the bundled copy
        let pdfium = match lens_core::pdf::pdfium() {
            Ok(_) => lens_core::pdf::pdfium_path().map(|p| p.display().to_string()).unwrap_or_default(),
            Err(e) => format!("missing ({e})"),
        };
        println!("startup_ms={ms:.0} documents={} pdfium={pdfium}", r.as_array().map(|a| a.len()).unwrap_or(0));
        std::process::exit(0);
    }
    Ok(r)
}

/// `ask`, streamed: events (`pages`, `text` pieces, `done`) arrive on `on_event` as they
/// happen; the final response is also the command's result.
#[tauri::command]
async fn ask_stream(
    state: tauri::State<'_, AppState>,
    args: serde_json::Value,
    on_event: tauri::ipc::Channel<serde_json::Value>,
) -> Result<serde_json::Value, ApiError> {
    let st = state.inner().clone();
    // a closed channel (the window went away) stops the answerer
    blocking(move || match st.remote() {
        Some(remote) => Ok(remote.stream("ask_stream", &args, &mut |e| on_event.send(e.clone()).is_ok())?),
        None => {
            let args: AskArgs = serde_json::from_value(args).map_err(|e| ApiError::from(LensError::BadInput(format!("ask_stream: {e}"))))?;
            let r = st.api.ask_stream(&args, &mut |e| on_event.send(serde_json::to_value(e).unwrap_or_default()).is_ok())?;
            Ok(serde_json::to_value(r).unwrap_or_default())
        }
    })
    .await
}

/// Run `f` on a blocking thread (the library, pdfium, native dialogs); a panic there is an
/// `internal` error.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
    tauri::async_runtime::spawn_blocking(f).await.map_err(|e| ApiError { code: "internal".into(), message: e.to_string() })?
}

/// Save `bytes` where the user chooses in the native save dialog (titled `title`, proposing
/// `name`, filtered to `.ext`): the saved path, or `None` when the dialog was closed. `what`
/// names the file in the error.
fn save_with_dialog<R: tauri::Runtime>(
    app: &tauri::AppHandle<R>,
    state: &AppState,
    title: &str,
    name: &str,
    (filter, ext): (&str, &str),
    bytes: &[u8],
    what: &str,
) -> Result<Option<String>, ApiError> {
    let dialog = state.start(app.dialog().file().set_title(title).set_file_name(name).add_filter(filter, &[ext]), Dialog::Save);
    let Some(path) = dialog.blocking_save_file().and_then(|p| p.into_path().ok()) else { return Ok(None) };
    let path = with_extension(&path, ext);
    state.chose(Dialog::Save, &path);
    std::fs::write(&path, bytes).map_err(|e| ApiError { code: "io".into(), message: format!("{what} could not be saved to {}: {e}", path.display()) })?;
    Ok(Some(path.display().to_string()))
}

/// A rendered page with the given boxes drawn, as a `data:` URL (the CSP allows no other origin).
#[tauri::command]
async fn page_image(state: tauri::State<'_, AppState>, args: PageImageArgs) -> Result<String, ApiError> {
    let st = state.inner().clone();
    let png = blocking(move || match st.remote() {
        Some(remote) => Ok(remote.page_png(&args.page_ref().doc_id, args.page_ref().page, &serde_json::to_value(&args.boxes).unwrap_or_default(), args.dpi)?),
        None => Ok(st.api.page_png(&args.page_ref(), args.dpi, &args.boxes)?),
    })
    .await?;
    Ok(format!("data:image/png;base64,{}", lens_core::workpaper::base64(&png)))
}

/// Add PDFs: the native file dialog, then the chosen files queued for ingest. The paths come
/// from the user's own choice in the dialog, so they are not held to the API's allowed folders.
/// `null` when the dialog was closed without a choice.
#[tauri::command]
async fn pick_pdfs<R: tauri::Runtime>(app: tauri::AppHandle<R>, state: tauri::State<'_, AppState>) -> Result<Option<serde_json::Value>, ApiError> {
    let st = state.inner().clone();
    blocking(move || {
        let dialog = st.start(app.dialog().file().set_title("Add PDFs to the library").add_filter("PDF documents", &["pdf", "PDF"]), Dialog::Open);
        let picked = dialog.blocking_pick_files();
        let paths: Vec<PathBuf> = picked.unwrap_or_default().into_iter().filter_map(|f| f.into_path().ok()).collect();
        if paths.is_empty() {
            return Ok(None);
        }
        st.chose(Dialog::Open, &paths[0]);
        Ok(Some(st.add(paths)?))
    })
    .await
}

/// Export a workpaper (or its figures as a spreadsheet): the file is made by the service, then
/// saved where the user chooses in the native save dialog (a webview has no downloads). The
/// saved path, or `null` when the dialog was closed.
#[tauri::command]
async fn export_workpaper<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    state: tauri::State<'_, AppState>,
    args: serde_json::Value,
) -> Result<Option<String>, ApiError> {
    let st = state.inner().clone();
    blocking(move || {
        let wa: lens_api::WorkpaperArgs = parse_args("export_workpaper", &args)?;
        let (title, what) = if wa.format.is_sheet() { ("Save spreadsheet", "the spreadsheet") } else { ("Save workpaper", "the workpaper") };
        save_service_file(&app, &st, "workpaper", &args, |api| api.workpaper(&wa), title, (wa.format.kind(), wa.format.ext()), what)
    })
    .await
}

/// Export the tables read from a page as a spreadsheet, saved where the user chooses in the
/// native save dialog. The saved path, or `null` when the dialog was closed.
#[tauri::command]
async fn export_tables<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    state: tauri::State<'_, AppState>,
    args: serde_json::Value,
) -> Result<Option<String>, ApiError> {
    let st = state.inner().clone();
    blocking(move || {
        let ta: lens_api::TablesExportArgs = parse_args("export_tables", &args)?;
        save_service_file(
            &app,
            &st,
            "tables_export",
            &args,
            |api| api.tables_export(&ta),
            "Save the page's tables",
            (ta.format.kind(), ta.format.ext()),
            "the spreadsheet",
        )
    })
    .await
}

/// A command's typed arguments, or a clear `bad_input` naming the command.
fn parse_args<T: serde::de::DeserializeOwned>(cmd: &str, args: &serde_json::Value) -> Result<T, ApiError> {
    serde_json::from_value(args.clone()).map_err(|e| ApiError::from(LensError::BadInput(format!("{cmd}: {e}"))))
}

/// A file the service makes (`make` on this window's library, or the team server's `cmd`),
/// saved through the native save dialog.
#[allow(clippy::too_many_arguments)]
fn save_service_file<R: tauri::Runtime>(
    app: &tauri::AppHandle<R>,
    st: &AppState,
    cmd: &str,
    args: &serde_json::Value,
    make: impl FnOnce(&lens_api::Api) -> lens_core::error::Result<lens_api::FileOut>,
    title: &str,
    filter: (&str, &str),
    what: &str,
) -> Result<Option<String>, ApiError> {
    let (name, bytes) = match st.remote() {
        Some(remote) => remote.file(cmd, args)?,
        None => {
            let f = make(&st.api)?;
            (f.name, f.bytes)
        }
    };
    save_with_dialog(app, st, title, &name, filter, &bytes, what)
}

/// Save a text file the UI made (the Log's or the labeler's JSONL) where the user chooses in
/// the native save dialog. The saved path, or `null` when the dialog was closed.
#[tauri::command]
async fn save_text<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    state: tauri::State<'_, AppState>,
    name: String,
    text: String,
) -> Result<Option<String>, ApiError> {
    let st = state.inner().clone();
    blocking(move || {
        let ext = Path::new(&name).extension().and_then(|e| e.to_str()).unwrap_or("txt").to_string();
        save_with_dialog(&app, &st, "Export", &name, (&ext.to_uppercase(), &ext), text.as_bytes(), "the file")
    })
    .await
}

/// A text file the user picks in the native open dialog.
#[derive(Debug, Serialize)]
pub struct OpenedText {
    pub name: String,
    pub text: String,
}

/// Largest text file `open_text` reads (a label set of thousands of questions is a few MB).
const OPEN_TEXT_MAX: u64 = 64 << 20;

/// Read a text file the user picks in the native open dialog (the labeler's Import JSONL): its
/// name and UTF-8 text, or `null` when the dialog was closed.
#[tauri::command]
async fn open_text<R: tauri::Runtime>(
    app: tauri::AppHandle<R>,
    state: tauri::State<'_, AppState>,
    title: String,
    extensions: Vec<String>,
) -> Result<Option<OpenedText>, ApiError> {
    let st = state.inner().clone();
    blocking(move || {
        let exts: Vec<&str> = extensions.iter().map(String::as_str).collect();
        let mut dialog = st.start(app.dialog().file().set_title(&title), Dialog::Open);
        if !exts.is_empty() {
            dialog = dialog.add_filter(exts.join(", ").to_uppercase(), &exts);
        }
        let Some(path) = dialog.blocking_pick_file().and_then(|p| p.into_path().ok()) else { return Ok(None) };
        st.chose(Dialog::Open, &path);
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let bad = |message: String| ApiError { code: "bad_input".into(), message };
        let len = std::fs::metadata(&path).map_err(|e| bad(format!("{name} could not be read: {e}")))?.len();
        if len > OPEN_TEXT_MAX {
            return Err(bad(format!("{name} is {} MB; at most {} MB can be imported", len >> 20, OPEN_TEXT_MAX >> 20)));
        }
        let bytes = std::fs::read(&path).map_err(|e| bad(format!("{name} could not be read: {e}")))?;
        let text = String::from_utf8(bytes).map_err(|_| bad(format!("{name} is not UTF-8 text")))?;
        Ok(Some(OpenedText { name, text }))
    })
    .await
}

/// Files dropped on the window: queued for ingest as the dialog's are (non-PDFs are reported
/// per file by the ingest job), then the UI is told to follow the queue.
fn on_drop<R: tauri::Runtime>(window: &tauri::Window<R>, paths: &[PathBuf]) {
    if paths.is_empty() {
        return;
    }
    let st = window.state::<AppState>().inner().clone();
    let (window, paths) = (window.clone(), paths.to_vec());
    // an upload to a team server takes a while: not on the window's thread
    std::thread::spawn(move || {
        let event = match st.add(paths.clone()) {
            Ok(_) => lens_api::watch::WatchEvent::Queued { paths: paths.iter().map(|p| p.display().to_string()).collect() },
            Err(e) => lens_api::watch::WatchEvent::Error { code: e.code, message: e.message },
        };
        let _ = window.emit("library-changed", &event);
    });
}

/// Build the app with its commands and window handlers (shared by `run` and the IPC tests).
pub fn builder<R: tauri::Runtime>(builder: tauri::Builder<R>, state: AppState) -> tauri::Builder<R> {
    builder
        .manage(state)
        .plugin(tauri_plugin_dialog::init())
        .on_window_event(|window, event| {
            if let WindowEvent::DragDrop(DragDropEvent::Drop { paths, .. }) = event {
                on_drop(window, paths);
            }
        })
        .invoke_handler(tauri::generate_handler![api, ask_stream, page_image, pick_pdfs, export_workpaper, export_tables, save_text, open_text])
}

pub fn run() {
    STARTED.get_or_init(std::time::Instant::now);
    let dir = lens_core::paths::library_dir(None);
    builder(tauri::Builder::default(), AppState::new(dir))
        .setup(|app| {
            // follow the library's watched folders; tell the UI when the library changes
            let handle = app.handle().clone();
            let state = app.state::<AppState>();
            // the team library of the last run, when one was named (in the background: a
            // server that does not answer must not hold the window)
            let st = state.inner().clone();
            let h = app.handle().clone();
            std::thread::spawn(move || {
                if let Some(e) = st.reconnect() {
                    let _ = h.emit(
                        "library-changed",
                        &lens_api::watch::WatchEvent::Error { code: e.code, message: format!("working on this machine's library: {}", e.message) },
                    );
                } else if st.remote().is_some() {
                    let _ = h.emit("library-changed", &serde_json::json!({ "event": "team" }));
                }
            });
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

#[cfg(test)]
mod tests {
    use super::{dialog_dir, load_dialog_dirs, with_extension, AppState, Dialog};

    #[test]
    fn a_bare_name_gets_the_filters_extension_and_never_overwrites_unasked() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(with_extension(&d.path().join("nike-workpaper"), "html"), d.path().join("nike-workpaper.html"));
        assert_eq!(with_extension(&d.path().join("log.jsonl"), "jsonl"), d.path().join("log.jsonl"), "typed with its extension");
        assert_eq!(with_extension(&d.path().join("notes.txt"), "jsonl"), d.path().join("notes.txt"), "another extension typed on purpose");
        std::fs::write(d.path().join("nike-workpaper.html"), "kept").unwrap();
        assert_eq!(with_extension(&d.path().join("nike-workpaper"), "html"), d.path().join("nike-workpaper-2.html"));
    }

    #[test]
    fn the_save_folder_is_kept_for_the_next_start() {
        let lib = tempfile::tempdir().unwrap();
        let saved = tempfile::tempdir().unwrap();
        let st = AppState::new(lib.path().to_path_buf());
        assert_eq!(load_dialog_dirs(lib.path()), [None, None]);
        st.chose(Dialog::Save, &saved.path().join("wp.html"));
        // a new start on the same library opens the save dialog where the last file was saved
        let again = AppState::new(lib.path().to_path_buf());
        assert_eq!(again.dialog_dir(Dialog::Save), Some(saved.path().to_path_buf()));
        assert_eq!(load_dialog_dirs(lib.path())[0], None, "the open dialog keeps its own folder");
        // an unreadable file is no folder
        std::fs::write(lib.path().join("dialogs.json"), "not json").unwrap();
        assert_eq!(load_dialog_dirs(lib.path()), [None, None]);
    }

    #[test]
    fn dialogs_open_in_the_last_folder_else_home_never_the_start_folder() {
        let home = tempfile::tempdir().unwrap();
        let last = tempfile::tempdir().unwrap();
        let h = Some(home.path().to_path_buf());
        assert_eq!(dialog_dir(None, h.clone()), h, "first dialog: the home folder");
        assert_eq!(dialog_dir(Some(last.path().to_path_buf()), h.clone()), Some(last.path().to_path_buf()), "then the folder last used");
        // the last folder was removed since: home again
        assert_eq!(dialog_dir(Some(home.path().join("gone")), h.clone()), h);
        assert_eq!(dialog_dir(None, None), None, "no home: the dialog's own default");
    }
}
