//! The UI files `lens serve` embeds: every file in `ui/` (a new view's file is served without an
//! edit here), plus the icon. Written to `$OUT_DIR/ui_assets.rs` as a table of
//! `(path, content type, bytes)`.
use std::path::Path;

fn main() {
    // read when the script runs, not when it was compiled: a build script compiled for another
    // checkout sharing the target folder must not read that checkout's ui/
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let ui = Path::new(&manifest).join("../../ui");
    println!("cargo:rerun-if-changed={}", ui.display());
    let mut files: Vec<_> = std::fs::read_dir(&ui).expect("ui/ is beside the crates").flatten().map(|e| e.path()).filter(|p| p.is_file()).collect();
    files.sort();
    let kind = |p: &Path| match p.extension().and_then(|e| e.to_str()) {
        Some("html") => Some("text/html; charset=utf-8"),
        Some("js") => Some("text/javascript; charset=utf-8"),
        Some("css") => Some("text/css; charset=utf-8"),
        Some("png") => Some("image/png"),
        Some("svg") => Some("image/svg+xml"),
        _ => None,
    };
    let mut out = String::from("&[\n");
    for f in &files {
        let (Some(name), Some(k)) = (f.file_name().and_then(|n| n.to_str()), kind(f)) else { continue };
        println!("cargo:rerun-if-changed={}", f.display());
        let path = f.canonicalize().unwrap();
        out.push_str(&format!("    (\"/{name}\", \"{k}\", include_bytes!({:?})),\n", path.display().to_string()));
        if name == "index.html" {
            out.push_str(&format!("    (\"/\", \"{k}\", include_bytes!({:?})),\n", path.display().to_string()));
        }
    }
    let icon = Path::new(&manifest).join("../../icons/icon.png").canonicalize().unwrap();
    println!("cargo:rerun-if-changed={}", icon.display());
    for name in ["icon.png", "favicon.ico"] {
        out.push_str(&format!("    (\"/{name}\", \"image/png\", include_bytes!({:?})),\n", icon.display().to_string()));
    }
    out.push_str("]\n");
    std::fs::write(Path::new(&std::env::var("OUT_DIR").unwrap()).join("ui_assets.rs"), out).unwrap();
}
