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

/// A library in a temporary folder holding these financebench filings.
pub fn lib_with(docs: &[&str]) -> (tempfile::TempDir, lens_core::Library) {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = lens_core::Library::open(dir.path()).unwrap();
    let paths: Vec<_> = docs.iter().map(|d| fb(d)).collect();
    lens_core::ingest::ingest(&mut lib, &paths, &Default::default(), &std::sync::atomic::AtomicBool::new(false), &mut |_| {}).unwrap();
    (dir, lib)
}
