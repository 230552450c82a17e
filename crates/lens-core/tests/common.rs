#![allow(dead_code)]
use std::path::PathBuf;

/// The shared corpus (`../shared/corpus` beside the checkout, or `$LENS_CORPUS`).
pub fn corpus() -> PathBuf {
    let p = std::env::var_os("LENS_CORPUS").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    assert!(p.join("financebench/pdfs").is_dir(), "corpus not found at {} (set LENS_CORPUS)", p.display());
    p
}

pub fn fb(name: &str) -> PathBuf {
    corpus().join("financebench/pdfs").join(format!("{name}.pdf"))
}

pub fn mm(name: &str) -> PathBuf {
    corpus().join("mmlongbench_doc/pdfs").join(format!("{name}.pdf"))
}

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(name)
}
