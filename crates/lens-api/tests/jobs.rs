//! Background jobs and watched folders: real PDFs copied in, changed and deleted are ingested,
//! replaced and removed; the ingest queue reports progress and can be cancelled.
#[path = "../../lens-core/tests/common.rs"]
mod common;
use common::*;
use lens_api::{dispatch, Api};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !f() {
        assert!(t0.elapsed() < Duration::from_secs(60), "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn new_changed_and_deleted_pdfs_follow_the_folder() {
    let lib = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let api = Api::new(lib.path().to_path_buf());
    let events = Arc::new(Mutex::new(Vec::new()));
    let ev2 = events.clone();
    api.follow_watched(Arc::new(move |e| ev2.lock().unwrap().push(e))).unwrap();
    // a folder added while following is picked up at once
    let watched = api.add_watch(folder.path()).unwrap();
    let docs = |api: &Api| dispatch(api, "documents", serde_json::json!({})).unwrap();

    let f = folder.path().join("filing.pdf");
    std::fs::copy(fb("AMCOR_2022_8K_dated-2022-07-01"), &f).unwrap();
    std::fs::write(folder.path().join("notes.txt"), "ignored").unwrap();
    wait_until("the new PDF is ingested", || docs(&api).as_array().unwrap().len() == 1);
    assert_eq!(docs(&api)[0]["pages"], 9);

    // changed in place: replaced
    std::fs::copy(fb("AMCOR_2023Q4_EARNINGS"), &f).unwrap();
    wait_until("the changed PDF replaces the old one", || docs(&api)[0]["pages"] == 14);
    assert_eq!(docs(&api).as_array().unwrap().len(), 1);

    // deleted: removed from the library and from search
    std::fs::remove_file(&f).unwrap();
    wait_until("the deleted PDF is removed", || docs(&api).as_array().unwrap().is_empty());
    let r = dispatch(&api, "search", serde_json::json!({"query": "Amcor net sales", "filter": false})).unwrap();
    assert!(r["hits"].as_array().unwrap().is_empty());
    wait_until("the removal is reported", || events.lock().unwrap().iter().any(|e| matches!(e, lens_api::watch::WatchEvent::Removed { .. })));
    api.stop_watching();

    // the watch list survives a restart
    let again = Api::new(lib.path().to_path_buf());
    assert_eq!(again.watches().unwrap(), vec![watched.clone()]);
    assert!(again.remove_watch(&watched).unwrap());
    assert!(again.watches().unwrap().is_empty());
    assert!(again.add_watch(&folder.path().join("missing")).is_err());
}

#[test]
fn background_ingest_reports_progress_and_can_be_cancelled() {
    let lib = tempfile::tempdir().unwrap();
    let api = Api::new(lib.path().to_path_buf());
    let files = vec![fb("AMCOR_2022_8K_dated-2022-07-01"), fb("ULTABEAUTY_2023Q4_EARNINGS")];
    let st = api.start_ingest(files.clone()).unwrap();
    assert!(st.running);
    assert_eq!(st.files.len(), 2);
    wait_until("the job finishes", || dispatch(&api, "ingest_status", serde_json::json!({})).unwrap()["running"] == false);
    let st = dispatch(&api, "ingest_status", serde_json::json!({})).unwrap();
    assert!(st["files"].as_array().unwrap().iter().all(|f| f["status"] == "done"), "{st}");
    // readers see what the background job published
    assert_eq!(dispatch(&api, "documents", serde_json::json!({})).unwrap().as_array().unwrap().len(), 2);

    // a second job, cancelled at once: every file ends done/unchanged or cancelled, never half
    let st = api.start_ingest(vec![fb("AMCOR_2023Q4_EARNINGS"), fb("MGMRESORTS_2022Q4_EARNINGS"), fb("JOHNSON_JOHNSON_2022Q4_EARNINGS")]).unwrap();
    assert_eq!(st.files.len(), 3, "a new job starts with its own file list");
    dispatch(&api, "cancel_ingest", serde_json::json!({})).unwrap();
    wait_until("the cancelled job stops", || dispatch(&api, "ingest_status", serde_json::json!({})).unwrap()["running"] == false);
    let st = dispatch(&api, "ingest_status", serde_json::json!({})).unwrap();
    for f in st["files"].as_array().unwrap() {
        assert!(["done", "unchanged", "cancelled"].contains(&f["status"].as_str().unwrap()), "{st}");
    }
    let docs = dispatch(&api, "documents", serde_json::json!({})).unwrap();
    let done = st["files"].as_array().unwrap().iter().filter(|f| f["status"] == "done").count();
    assert_eq!(docs.as_array().unwrap().len(), 2 + done);
}

#[test]
fn a_folder_ingest_lists_its_files_and_ends_done() {
    let lib = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    std::fs::copy(fb("AMCOR_2022_8K_dated-2022-07-01"), folder.path().join("a.pdf")).unwrap();
    std::fs::copy(fb("ULTABEAUTY_2023Q4_EARNINGS"), folder.path().join("b.pdf")).unwrap();
    let api = Api::new(lib.path().to_path_buf());
    api.start_ingest(vec![folder.path().to_path_buf()]).unwrap();
    wait_until("the job finishes", || !api.ingest_status().running);
    let st = api.ingest_status();
    let rows: Vec<(String, String)> =
        st.files.iter().map(|f| (f.name.clone(), serde_json::to_value(f.status).unwrap().as_str().unwrap().to_string())).collect();
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows.iter().all(|(_, s)| s == "done"), "a folder that was ingested is not reported cancelled: {rows:?}");
    assert_eq!(api.documents().unwrap().len(), 2);
}

#[test]
fn a_watched_folder_that_cannot_be_read_is_paused_with_its_reason() {
    let lib = tempfile::tempdir().unwrap();
    let parent = tempfile::tempdir().unwrap();
    let folder = parent.path().join("filings");
    std::fs::create_dir(&folder).unwrap();
    let api = Api::new(lib.path().to_path_buf());
    let watched = api.add_watch(&folder).unwrap();
    std::fs::remove_dir(&folder).unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let ev2 = events.clone();
    api.follow_watched(Arc::new(move |e| ev2.lock().unwrap().push(e))).unwrap();
    let st = api.watch_status().unwrap();
    assert_eq!(st.len(), 1);
    assert!(st[0].paused.as_deref().is_some_and(|r| r.contains("cannot be read")), "{st:?}");
    assert!(events.lock().unwrap().iter().any(|e| matches!(e, lens_api::watch::WatchEvent::Paused { .. })));
    // it stays paused after a restart, and adding it again resumes it
    let again = Api::new(lib.path().to_path_buf());
    again.follow_watched(Arc::new(|_| {})).unwrap();
    assert!(again.watch_status().unwrap()[0].paused.is_some());
    std::fs::create_dir(&folder).unwrap();
    again.add_watch(&folder).unwrap();
    assert_eq!(again.watch_status().unwrap()[0].paused, None);
    assert_eq!(again.watch_status().unwrap()[0].folder, watched);
    again.stop_watching();
    api.stop_watching();
}

/// A watch asked for through the API (the UI, the team server) lies under the ingest roots:
/// watching `/` or `/etc` would open every file of the machine to the API; the library's own
/// folders (a root) may be watched, and one not there is said to be missing.
#[test]
fn a_watch_through_the_api_lies_under_the_ingest_roots() {
    let lib = tempfile::tempdir().unwrap();
    let api = Api::new(lib.path().to_path_buf());
    for outside in ["/", "/etc", "/etc/nothing-here"] {
        let e = dispatch(&api, "add_watch", serde_json::json!({ "folder": outside })).unwrap_err();
        assert_eq!(e.code(), "bad_input");
        assert!(e.to_string().contains("cannot be watched from here"), "{outside}: {e}");
    }
    assert!(api.watches().unwrap().is_empty(), "nothing was watched");
    let inside = lib.path().join("incoming");
    let e = dispatch(&api, "add_watch", serde_json::json!({ "folder": inside })).unwrap_err();
    assert!(e.to_string().contains("is not a folder (nothing is there)"), "{e}");
    std::fs::create_dir(&inside).unwrap();
    dispatch(&api, "add_watch", serde_json::json!({ "folder": inside })).unwrap();
    assert_eq!(api.watches().unwrap().len(), 1);
    // the machine's own user (`lens watch add`) may watch any folder
    let elsewhere = tempfile::tempdir().unwrap();
    api.add_watch(elsewhere.path()).unwrap();
    assert_eq!(api.watches().unwrap().len(), 2);
}

/// With the hybrid retriever and its embedding model installed, a finished ingest starts the
/// dense build on its own; stopping that build keeps every stored page and the vectors already
/// written, and the next build does only what is left.
#[test]
fn an_ingest_starts_the_dense_build_which_stops_without_loss_and_resumes() {
    let lib = tempfile::tempdir().unwrap();
    let models = tempfile::tempdir().unwrap();
    let tiny = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tiny-bert");
    std::fs::create_dir(models.path().join("tiny-bert")).unwrap();
    for f in ["config.json", "model.safetensors", "tokenizer.json"] {
        std::fs::copy(tiny.join(f), models.path().join("tiny-bert").join(f)).unwrap();
    }
    {
        let l = lens_core::Library::open(lib.path()).unwrap();
        let st = lens_core::settings::Settings {
            retriever: lens_core::Retriever::Hybrid,
            models_dir: models.path().display().to_string(),
            embedder: "tiny-bert".into(),
            ..Default::default()
        };
        l.save_settings(&st).unwrap();
    }
    let api = Api::new(lib.path().to_path_buf());
    let status = |api: &Api| dispatch(api, "dense_status", serde_json::json!({})).unwrap();
    api.start_ingest(vec![fb("AMCOR_2022_8K_dated-2022-07-01"), fb("ULTABEAUTY_2023Q4_EARNINGS")]).unwrap();
    wait_until("the ingest and the dense build after it finish", || {
        let s = status(&api);
        s["with_vectors"].as_array().unwrap().len() == 2 && s["job"]["running"] == false
    });
    let s = status(&api);
    assert_eq!(s["job"]["docs_done"], 2, "{s}");
    assert!(s["job"]["error"].is_null(), "{s}");

    // a build stopped at once: the documents and the vectors written so far stay
    api.start_ingest(vec![fb("AMCOR_2023Q4_EARNINGS"), fb("MGMRESORTS_2022Q4_EARNINGS")]).unwrap();
    wait_until("the second ingest finishes", || dispatch(&api, "ingest_status", serde_json::json!({})).unwrap()["running"] == false);
    dispatch(&api, "cancel_dense", serde_json::json!({})).unwrap();
    wait_until("the dense build stops", || status(&api)["job"]["running"] == false);
    let docs = dispatch(&api, "documents", serde_json::json!({})).unwrap();
    assert_eq!(docs.as_array().unwrap().len(), 4);
    let before = status(&api)["with_vectors"].as_array().unwrap().len();
    assert!(before >= 2, "vectors already built are kept");
    // resumed: only the documents without vectors are embedded
    let st = dispatch(&api, "dense_build", serde_json::json!({})).unwrap();
    assert_eq!(st["running"], true);
    wait_until("the resumed build finishes", || status(&api)["job"]["running"] == false);
    let s = status(&api);
    assert_eq!(s["with_vectors"].as_array().unwrap().len(), 4, "{s}");
    assert_eq!(s["job"]["docs_done"].as_u64().unwrap() as usize, 4 - before, "{s}");
    let r = dispatch(&api, "search", serde_json::json!({"query": "Amcor net sales", "retriever": "hybrid"})).unwrap();
    assert_eq!(r["retriever"], "hybrid", "{r}");
}
