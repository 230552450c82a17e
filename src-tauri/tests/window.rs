//! The real desktop window: start the app binary on a display (Xvfb in CI), check it stays up,
//! and screenshot it when ImageMagick's `import` is available.
use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn app_window_starts_and_stays_up() {
    let display = std::env::var("DISPLAY").unwrap_or_default();
    assert!(!display.is_empty(), "no DISPLAY: run the suite with scripts/test, which starts Xvfb");
    let lib = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_lens-app")).env("LENS_LIBRARY", lib.path()).env("WEBKIT_DISABLE_COMPOSITING_MODE", "1").spawn().expect("app starts");
    std::thread::sleep(Duration::from_secs(5));
    let status = child.try_wait().unwrap();
    assert!(status.is_none(), "the app exited early: {status:?}");
    let out = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/screenshots");
    std::fs::create_dir_all(&out).unwrap();
    if Command::new("import").arg("-version").output().is_ok_and(|o| o.status.success()) {
        let png = out.join("app-window.png");
        let shot = Command::new("import").args(["-window", "root"]).arg(&png).status().unwrap();
        assert!(shot.success());
        println!("screenshot: {}", png.display());
    }
    println!("window up after {:.1}s", t0.elapsed().as_secs_f64());
    child.kill().unwrap();
    let _ = child.wait();
}
