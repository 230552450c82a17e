//! The vision index through the service: the build job with progress, coverage, the vision
//! retriever offered once a model is found, and a hybrid search that says which lists it fused.
#[path = "support/service.rs"]
mod service;
use lens_api::{dispatch, SetSettingsArgs};
use serde_json::json;
use service::library;
use std::path::Path;
use std::time::{Duration, Instant};

#[test]
fn build_in_the_background_then_search_vision_and_hybrid() {
    let (dir, api) = library();
    let models = dir.path().join("models");
    std::fs::create_dir(&models).unwrap();
    let set = |v: serde_json::Value| api.set_settings(&serde_json::from_value::<SetSettingsArgs>(json!({ "settings": v })).unwrap()).unwrap();
    set(json!({ "models_dir": models, "vision_edge": 256 }));
    // no model: not offered, the build refuses at once, the status says why
    assert!(!api.settings().unwrap().retrievers.contains(&"vision"));
    assert_eq!(dispatch(&api, "vision_build", json!({})).unwrap_err().code(), "model_missing");
    let st = dispatch(&api, "vision_status", json!({})).unwrap();
    assert_eq!(st["installed"], false);
    assert!(st["missing"].as_str().unwrap().contains("colmodernvbert"));
    // the tiny random model stands in for the real one
    std::os::unix::fs::symlink(Path::new(env!("CARGO_MANIFEST_DIR")).join("../lens-vision/tests/fixtures/tiny-colmodernvbert"), models.join("colmodernvbert"))
        .unwrap();
    assert!(api.settings().unwrap().retrievers.contains(&"vision"));
    let started = dispatch(&api, "vision_build", json!({})).unwrap();
    assert_eq!(started["running"], true);
    let t0 = Instant::now();
    let st = loop {
        let st = dispatch(&api, "vision_status", json!({})).unwrap();
        if st["job"]["running"] == false {
            break st;
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "the build did not finish");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(st["job"]["error"].is_null(), "{st}");
    assert_eq!(st["job"]["report"]["pages"], 9);
    assert_eq!(st["coverage"][0]["published"], true);
    assert_eq!(st["coverage"][0]["vision_pages"], 9);
    let r = dispatch(&api, "search", json!({"query": "Which notes are covered by the supplemental indentures?", "retriever": "vision", "k": 3})).unwrap();
    assert_eq!(r["retriever"], "vision");
    assert_eq!(r["hits"].as_array().unwrap().len(), 3);
    let r = dispatch(&api, "search", json!({"query": "Which notes are covered by the supplemental indentures?", "retriever": "hybrid"})).unwrap();
    assert_eq!(r["retriever"], "hybrid");
    assert!(r["notes"].as_array().unwrap().iter().any(|n| n == "hybrid of bm25 + vision"), "{}", r["notes"]);
}
