//! The IPC layer, driven through tauri's mock runtime against a real (empty) library.
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, INVOKE_KEY};
use tauri::webview::InvokeRequest;

fn request(cmd: &str, body: serde_json::Value) -> InvokeRequest {
    InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(body),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    }
}

#[test]
fn commands_answer_and_errors_carry_codes() {
    let dir = tempfile::tempdir().unwrap();
    let app = lens_app::builder(mock_builder(), lens_app::AppState::new(dir.path().to_path_buf())).build(mock_context(noop_assets())).unwrap();
    let w = tauri::WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();

    let docs = get_ipc_response(&w, request("documents", serde_json::json!({}))).unwrap();
    assert_eq!(docs.deserialize::<serde_json::Value>().unwrap(), serde_json::json!([]));

    let info = get_ipc_response(&w, request("app_info", serde_json::json!({}))).unwrap().deserialize::<serde_json::Value>().unwrap();
    assert_eq!(info["library"], dir.path().display().to_string());

    let err = get_ipc_response(&w, request("search", serde_json::json!({"query": "  "}))).unwrap_err();
    assert_eq!(err["code"], "bad_input");
    assert!(err["message"].as_str().unwrap().contains("empty"));

    let ok = get_ipc_response(&w, request("search", serde_json::json!({"query": "revenue", "k": 3}))).unwrap().deserialize::<serde_json::Value>().unwrap();
    assert_eq!(ok["hits"], serde_json::json!([]));
}
