//! The labeler through the command layer the UI uses: a typed question gets candidates with
//! headings and snippets, grades and an answer are saved, the export reads back as eval labels
//! and scores as `label_score` did; a thumbs-down log entry is promoted with its pages.
#[path = "support/service.rs"]
mod service;
use lens_api::{dispatch, Api, AskArgs, FeedbackArgs};
use serde_json::{json, Value};
use service::library;

fn call(api: &Api, cmd: &str, a: Value) -> Value {
    dispatch(api, cmd, a).unwrap_or_else(|e| panic!("{cmd}: {e}"))
}

#[test]
fn label_a_question_export_and_score() {
    let (_dir, api) = library();
    let doc = "AMCOR_2022_8K_dated-2022-07-01";
    let q = call(&api, "label_add", json!({"set": "amcor", "query": "Which notes are covered by Amcor's supplemental indentures?"}));
    let qid = q["qid"].as_str().unwrap().to_string();
    let v = call(&api, "label_question", json!({"set": "amcor", "qid": qid, "extra": [format!("{doc}#1")]}));
    let cands = v["candidates"].as_array().unwrap();
    assert!(!cands.is_empty());
    let first = &cands[0];
    assert_eq!(first["from"][0], "retriever");
    assert!(!first["snippet"].as_str().unwrap().is_empty());
    assert!(first["height"].as_f64().unwrap() > 0.0);
    assert!(cands.iter().any(|c| c["page"] == format!("{doc}#1") && c["from"].as_array().unwrap().iter().any(|f| f == "added")));
    let top = first["page"].as_str().unwrap().to_string();
    call(&api, "label_grade", json!({"set": "amcor", "qid": qid, "page": top, "grade": 2, "annotator": "ann"}));
    call(&api, "label_grade", json!({"set": "amcor", "qid": qid, "page": format!("{doc}#1"), "grade": 0, "annotator": "ann"}));
    let saved = call(
        &api,
        "label_save",
        json!({"set": "amcor", "qid": qid, "annotator": "ann", "answer": "the 2026 and 2027 notes", "query_types": ["extractive"], "content_type": ["text"]}),
    );
    assert_eq!(saved["gold"][&top], 2);
    // a page outside the library is refused when added, named
    let e = dispatch(&api, "label_question", json!({"set": "amcor", "qid": qid, "extra": [format!("{doc}#999")]})).unwrap_err();
    assert_eq!(e.code(), "unknown_page");
    let ex = call(&api, "label_export", json!({"set": "amcor"}));
    assert_eq!(ex["questions"], 1);
    let line: Value = serde_json::from_str(ex["jsonl"].as_str().unwrap().trim()).unwrap();
    assert_eq!(line["answer"], "the 2026 and 2027 notes");
    assert_eq!(line["query_types"], json!(["extractive"]));
    assert_eq!(line["labeler"]["annotators"], json!(["ann"]));
    // scored in place: the top retrieved page is gold, so every metric is 1
    let s = call(&api, "label_score", json!({"set": "amcor", "retriever": "bm25"}));
    assert_eq!(s["n"], 1);
    assert_eq!(s["hit3"], 1.0);
    assert_eq!(s["misses"], json!([]));
    // imported back under another name: the same lines
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("x.jsonl");
    std::fs::write(&f, ex["jsonl"].as_str().unwrap()).unwrap();
    let labels = lens_core::eval::read_labels(&f).unwrap();
    assert_eq!(labels[0].gold_pages().len(), 1);
    let r = call(&api, "label_import", json!({"set": "copy", "text": ex["jsonl"]}));
    assert_eq!(r["added"], 1);
    assert_eq!(r["missing"], json!([]));
    let back = call(&api, "label_export", json!({"set": "copy"}));
    let b: Value = serde_json::from_str(back["jsonl"].as_str().unwrap().trim()).unwrap();
    assert_eq!(b["gold"], line["gold"]);
    let e = dispatch(&api, "label_import", json!({"set": "copy", "text": "{\"id\":1,\"query\":\"q\"}\n{oops"})).unwrap_err();
    assert_eq!(e.to_string(), "line 2: not JSON (key must be a string at line 1 column 2)");
    let sets = call(&api, "label_sets", json!({}));
    assert_eq!(sets.as_array().unwrap().len(), 2);
}

#[test]
fn a_thumbs_down_becomes_a_question_with_its_pages() {
    let (_dir, api) = library();
    let r = api.ask(&AskArgs::new("What is the principal amount of Amcor's notes?")).unwrap();
    api.feedback(&FeedbackArgs { id: r.log_id, value: -1, note: Some("wrong row".into()), user: None }).unwrap();
    let q = call(&api, "label_from_log", json!({"set": "from-log", "log_id": r.log_id}));
    assert_eq!(q["qid"], format!("log-{}", r.log_id));
    assert_eq!(q["origin"]["feedback"], -1);
    assert_eq!(q["origin"]["note"], "wrong row");
    let v = call(&api, "label_question", json!({"set": "from-log", "qid": q["qid"], "k": 1}));
    let read: Vec<String> = r.pages.iter().map(|p| p.to_string()).collect();
    for p in &read {
        assert!(v["candidates"].as_array().unwrap().iter().any(|c| c["page"] == p.as_str()), "{p} offered");
    }
    let e = dispatch(&api, "label_from_log", json!({"set": "from-log", "log_id": 99999})).unwrap_err();
    assert_eq!(e.code(), "not_found");
}
