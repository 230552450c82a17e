//! The service carries models: the qwen answerer loads the settings' model on first use (the
//! tiny GGUF fixture here), and without a model an ask says which file is missing and is
//! answered by the extractive answerer.
#[path = "support/service.rs"]
mod service;
use lens_api::{Api, AskArgs, SetSettingsArgs};
use service::library;
use std::path::Path;

fn set(api: &Api, v: serde_json::Value) {
    let a: SetSettingsArgs = serde_json::from_value(serde_json::json!({ "settings": v })).unwrap();
    api.set_settings(&a).unwrap();
}

#[test]
fn without_a_model_qwen_is_not_offered_and_an_ask_says_what_is_missing() {
    let (dir, api) = library();
    let empty = dir.path().join("models");
    std::fs::create_dir(&empty).unwrap();
    set(&api, serde_json::json!({ "models_dir": empty, "answerer": "qwen" }));
    let view = api.settings().unwrap();
    assert_eq!(view.answerers, vec!["extractive"]);
    let why = view.qwen_missing.expect("the reason qwen is not offered");
    assert!(why.contains(&empty.display().to_string()), "{why}");
    let r = api.ask(&AskArgs::new("Which notes are covered by Amcor's supplemental indentures?")).unwrap();
    assert_eq!(r.answer.answerer.name(), "extractive");
    assert!(r.notes.iter().any(|n| n.contains("answered with the extractive answerer") && n.contains("models")), "{:?}", r.notes);
}

#[test]
fn the_settings_model_is_loaded_once_and_answers() {
    let (dir, api) = library();
    let models = dir.path().join("models");
    std::fs::create_dir(&models).unwrap();
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lens-llm/tests/fixtures/tiny-qwen2-q8_0.gguf");
    std::fs::copy(&tiny, models.join("tiny.gguf")).unwrap();
    set(&api, serde_json::json!({ "models_dir": models, "answerer": "qwen" }));
    assert!(api.settings().unwrap().answerers.contains(&"qwen"));
    let r = api.ask(&AskArgs::new("Which notes are covered by Amcor's supplemental indentures?")).unwrap();
    assert_eq!(r.answer.answerer.name(), "qwen");
    let run = r.answer.model.as_ref().expect("a model answer reports its run");
    assert_eq!(run.model, "tiny");
    assert!(r.device.starts_with("cpu ("), "{}", r.device);
    // a second ask reuses the loaded model
    let r2 = api.ask(&AskArgs::new("What is the principal amount of Amcor's notes?")).unwrap();
    assert_eq!(r2.answer.model.as_ref().unwrap().model, "tiny");
}

#[test]
fn a_logged_answer_reopens_with_its_boxes_and_an_unknown_one_is_refused() {
    let (_dir, api) = library();
    let r = api.ask(&AskArgs::new("Which notes are covered by Amcor's supplemental indentures?")).unwrap();
    let again = api.reopen(r.log_id).unwrap();
    assert_eq!((again.question.text.as_str(), again.answer.answer.as_str()), (r.question.text.as_str(), r.answer.answer.as_str()));
    assert_eq!(again.boxes.len(), r.boxes.len());
    assert!(!again.boxes.is_empty(), "the evidence is located again");
    assert_eq!(again.answer.support, r.answer.support);
    // what was shown, as it was shown: reasons, checks and the reading
    assert_eq!(again.answer.support_reasons, r.answer.support_reasons);
    assert_eq!(again.answer.checks, r.answer.checks);
    assert_eq!(again.question.reading, r.question.reading);
    assert!(again.notes[0].starts_with("reopened from the log"));
    assert_eq!(api.reopen(r.log_id + 100).unwrap_err().code(), "not_found");
}
