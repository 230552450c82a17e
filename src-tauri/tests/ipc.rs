//! The IPC layer, driven through tauri's mock runtime against a real library.
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

fn corpus() -> String {
    std::env::var("LENS_CORPUS").unwrap_or_else(|_| format!("{}/../../shared/corpus", env!("CARGO_MANIFEST_DIR")))
}

fn corpus_pdf(name: &str) -> String {
    format!("{}/financebench/pdfs/{name}.pdf", corpus())
}

#[test]
fn commands_answer_and_errors_carry_codes() {
    let dir = tempfile::tempdir().unwrap();
    // the API adds files only from allowed folders: the corpus is one here (the only test of
    // this binary, so no other thread reads the environment meanwhile)
    std::env::set_var("LENS_INGEST_ROOTS", corpus());
    let app = lens_app::builder(mock_builder(), lens_app::AppState::new(dir.path().to_path_buf())).build(mock_context(noop_assets())).unwrap();
    let w = tauri::WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
    let call = |cmd: &str, args: serde_json::Value| get_ipc_response(&w, request("api", serde_json::json!({"cmd": cmd, "args": args})));

    assert_eq!(call("documents", serde_json::json!({})).unwrap().deserialize::<serde_json::Value>().unwrap(), serde_json::json!([]));
    let info = call("app_info", serde_json::json!({})).unwrap().deserialize::<serde_json::Value>().unwrap();
    assert_eq!(info["library"], dir.path().display().to_string());

    let err = call("ask", serde_json::json!({"question": "  "})).unwrap_err();
    assert_eq!(err["code"], "bad_input");
    assert!(err["message"].as_str().unwrap().contains("empty"));
    let err = call("no_such_command", serde_json::json!({})).unwrap_err();
    assert_eq!(err["code"], "not_found");

    // ingest a real filing through IPC, ask, and get the highlighted page back
    let r =
        call("ingest_paths", serde_json::json!({"paths": [corpus_pdf("AMCOR_2022_8K_dated-2022-07-01")]})).unwrap().deserialize::<serde_json::Value>().unwrap();
    assert_eq!(r["running"], true);
    // the ingest runs in the background: poll its progress until it is done
    let t0 = std::time::Instant::now();
    let status = loop {
        let st = call("ingest_status", serde_json::json!({})).unwrap().deserialize::<serde_json::Value>().unwrap();
        if st["running"] == false {
            break st;
        }
        assert!(t0.elapsed().as_secs() < 60, "ingest did not finish: {st}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(status["files"][0]["status"], "done", "{status}");
    assert_eq!(status["files"][0]["pages"], 9);
    assert_eq!(call("documents", serde_json::json!({})).unwrap().deserialize::<serde_json::Value>().unwrap().as_array().unwrap().len(), 1);
    let a = call("ask", serde_json::json!({"question": "Which notes are covered by Amcor's supplemental indentures?"}))
        .unwrap()
        .deserialize::<serde_json::Value>()
        .unwrap();
    assert_eq!(a["not_found"], false, "{a}");
    // the streamed ask takes a channel for its events and returns the same answer
    let s = get_ipc_response(
        &w,
        request(
            "ask_stream",
            serde_json::json!({"args": {"question": "Which notes are covered by Amcor's supplemental indentures?"}, "onEvent": "__CHANNEL__:7"}),
        ),
    )
    .unwrap()
    .deserialize::<serde_json::Value>()
    .unwrap();
    assert_eq!((&s["answer"], &s["citations"]), (&a["answer"], &a["citations"]), "{s}");
    assert!(s["log_id"].as_i64().unwrap() > a["log_id"].as_i64().unwrap());
    let cited = a["citations"][0].as_str().unwrap().to_string();
    let (doc, page) = cited.rsplit_once('#').unwrap();
    // the page comes back with the boxes the ask returned drawn on it
    assert!(!a["boxes"].as_array().unwrap().is_empty(), "{a}");
    let img = get_ipc_response(&w, request("page_image", serde_json::json!({"args": {"doc": doc, "page": page.parse::<u32>().unwrap(), "boxes": a["boxes"]}})))
        .unwrap()
        .deserialize::<String>()
        .unwrap();
    assert!(img.starts_with("data:image/png;base64,"));
    let err = get_ipc_response(&w, request("page_image", serde_json::json!({"args": {"doc": doc, "page": 999}}))).unwrap_err();
    assert_eq!(err["code"], "unknown_page");

    // a label set imported through IPC is on disk for another connection at once
    let text = "{\"id\": \"w1\", \"query\": \"Which notes?\", \"answer\": \"x\", \"query_types\": [], \"content_type\": null, \"gold\": {\"AMCOR_2022_8K_dated-2022-07-01#4\": 2}}\n";
    let r = call("label_import", serde_json::json!({"set": "gold", "text": text, "annotator": null})).unwrap().deserialize::<serde_json::Value>().unwrap();
    assert_eq!(r["added"], 1, "{r}");
    let other = lens_core::Library::open(dir.path()).unwrap();
    let sets = lens_core::labels::sets(other.store()).unwrap();
    assert_eq!(sets.iter().map(|s| (s.name.as_str(), s.questions)).collect::<Vec<_>>(), vec![("gold", 1)]);
}
