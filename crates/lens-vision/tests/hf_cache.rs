//! A vision model found in the Hugging Face cache when the models folder has none (its own test
//! binary: it sets HF_HUB_CACHE for the process).

use lens_core::settings::Settings;
use std::path::Path;

#[test]
fn the_vision_model_is_found_in_the_hugging_face_cache() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny-colmodernvbert");
    let t = tempfile::tempdir().unwrap();
    let snap = t.path().join("hub/models--ModernVBERT--colmodernvbert-merged/snapshots/0123abcd");
    std::fs::create_dir_all(&snap).unwrap();
    for f in ["config.json", "model.safetensors", "tokenizer.json"] {
        std::os::unix::fs::symlink(fixture.join(f), snap.join(f)).unwrap();
    }
    std::env::set_var("HF_HUB_CACHE", t.path().join("hub"));
    let models = t.path().join("models");
    std::fs::create_dir(&models).unwrap();
    let st = Settings { models_dir: models.display().to_string(), vision_edge: 256, ..Default::default() };
    assert_eq!(st.vision_dir(), snap);
    let enc = lens_vision::library::encoder(&st).unwrap();
    assert_eq!(enc.name, "colmodernvbert-merged", "named by its repository");
    // nothing anywhere: the error names the models-folder path and where to get a model
    let st = Settings { models_dir: models.display().to_string(), vision_model: "no-such-model".into(), ..Default::default() };
    let e = lens_vision::library::encoder(&st).err().unwrap();
    assert_eq!(e.code(), "model_missing");
    assert!(e.to_string().contains("no-such-model") && e.to_string().contains("Hugging Face"), "{e}");
}
