//! The vision index of a real library, built with the tiny ColModernVBERT fixture (its vectors
//! are random, but every path is the real one): a build stopped midway resumes and gives the
//! same file as an uninterrupted one; vision and hybrid searches; a replaced document leaves
//! no stale vectors; index bytes per page at each edge; a damaged file is refused on search.

use lens_core::ingest::{ingest, IngestOptions};
use lens_core::retrieve::{Retriever, SearchRequest};
use lens_core::Library;
use lens_vision::encoder::VisionEncoder;
use lens_vision::library::{self, BuildOptions, VisionLibrary};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny-colmodernvbert")
}

fn corpus() -> PathBuf {
    std::env::var_os("LENS_CORPUS").map(PathBuf::from).unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"))
}

fn pdf(name: &str) -> PathBuf {
    corpus().join("financebench/pdfs").join(format!("{name}.pdf"))
}

fn library(dir: &Path, docs: &[&str]) -> Library {
    let mut lib = Library::open(dir).unwrap();
    let paths: Vec<PathBuf> = docs.iter().map(|d| pdf(d)).collect();
    ingest(&mut lib, &paths, &IngestOptions::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    lib
}

const FOOT: &str = "FOOTLOCKER_2022_8K_dated-2022-05-20";
const PEP: &str = "PEPSICO_2023_8K_dated-2023-05-05";

#[test]
fn a_stopped_build_resumes_to_the_same_index() {
    let enc = VisionEncoder::load(&fixture(), 64).unwrap();
    let a = tempfile::tempdir().unwrap();
    let lib = library(a.path(), &[FOOT]);
    let key = lib.document(FOOT).unwrap().key;
    // stop after two pages
    let cancel = AtomicBool::new(false);
    let e = library::build(&lib, &enc, &BuildOptions::default(), &cancel, &mut |p| {
        if p.pages == 2 {
            cancel.store(true, Ordering::Relaxed);
        }
    })
    .unwrap_err();
    assert_eq!(e.code(), "cancelled");
    assert!(lib.vision_docs().unwrap().is_empty(), "nothing published before the document is whole");
    let r = library::build(&lib, &enc, &BuildOptions::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    assert_eq!((r.resumed_pages, r.pages, r.docs_built), (2, 2, 1));
    let resumed = std::fs::read(a.path().join(format!("vision/{key}.lvx"))).unwrap();
    // the same document in one go
    let b = tempfile::tempdir().unwrap();
    let lib2 = library(b.path(), &[FOOT]);
    library::build(&lib2, &enc, &BuildOptions::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    let key2 = lib2.document(FOOT).unwrap().key;
    assert_eq!(std::fs::read(b.path().join(format!("vision/{key2}.lvx"))).unwrap(), resumed);
    // nothing left to do
    let r = library::build(&lib, &enc, &BuildOptions::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    assert_eq!((r.docs_built, r.docs_skipped), (0, 1));
}

#[test]
fn vision_and_hybrid_search_and_replacement() {
    let enc = Arc::new(VisionEncoder::load(&fixture(), 64).unwrap());
    let dir = tempfile::tempdir().unwrap();
    // the files live in a folder of the test's, so one can be changed in place later
    let copy = dir.path().join("src");
    std::fs::create_dir(&copy).unwrap();
    for d in [FOOT, PEP] {
        std::fs::copy(pdf(d), copy.join(format!("{d}.pdf"))).unwrap();
    }
    let mut lib = Library::open(&dir.path().join("lib")).unwrap();
    let paths: Vec<PathBuf> = [FOOT, PEP].iter().map(|d| copy.join(format!("{d}.pdf"))).collect();
    ingest(&mut lib, &paths, &IngestOptions::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    // before any build: vision says what to run, hybrid stays BM25
    lib.set_vision(Some(Arc::new(VisionLibrary::new(&lib, enc.clone(), false).unwrap())));
    let mut req = SearchRequest::new("Foot Locker CEO appointment");
    req.retriever = Retriever::Vision;
    let e = lib.search(&req).unwrap_err().to_string();
    assert!(e.contains("lens vision build"), "{e}");
    let rep = library::build(&lib, &enc, &BuildOptions { docs: Some(vec![FOOT.into()]), ..Default::default() }, &AtomicBool::new(false), &mut |_| {}).unwrap();
    assert_eq!(rep.docs_built, 1);
    let r = lib.search(&req).unwrap();
    assert_eq!(r.retriever, Retriever::Vision);
    assert!(!r.hits.is_empty() && r.hits.iter().all(|h| h.doc_id == FOOT), "only the document with vectors");
    req.retriever = Retriever::Hybrid;
    req.filter = false;
    let r = lib.search(&req).unwrap();
    assert_eq!(r.retriever, Retriever::Hybrid);
    assert!(r.notes.iter().any(|n| n == "hybrid of bm25 + vision"), "{:?}", r.notes);
    assert!(r.notes.iter().any(|n| n == "1 of 2 documents in scope have a vision index"), "{:?}", r.notes);
    // bytes per page at this edge
    let row = lib.vision_docs().unwrap().into_values().next().unwrap();
    assert!(row.bytes / row.pages as u64 > 0);
    // the document replaced by another file of the same name: its vectors stop counting, the
    // file is swept by the next build
    let old = lib.document(FOOT).unwrap().key;
    let mut bytes = std::fs::read(pdf(FOOT)).unwrap();
    bytes.extend_from_slice(b"\n% changed\n");
    std::fs::write(copy.join(format!("{FOOT}.pdf")), bytes).unwrap();
    ingest(&mut lib, &[copy.join(format!("{FOOT}.pdf"))], &IngestOptions::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    assert_ne!(lib.document(FOOT).unwrap().key, old);
    assert!(lib.vision_docs().unwrap().is_empty(), "the replaced version's row went with it");
    req.retriever = Retriever::Vision;
    assert!(lib.search(&req).unwrap_err().to_string().contains("no document in scope has a vision index"));
    let rep = library::build(&lib, &enc, &BuildOptions::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    assert_eq!(rep.swept_files, 1, "the old version's file");
    assert!(!dir.path().join(format!("lib/vision/{old}.lvx")).exists());
    assert_eq!(rep.docs_built, 2);
    // a damaged file is refused when searched, saying how to rebuild
    let key = lib.document(PEP).unwrap().key;
    let f = dir.path().join(format!("lib/vision/{key}.lvx"));
    let full = std::fs::read(&f).unwrap();
    std::fs::write(&f, &full[..full.len() - 100]).unwrap();
    let fresh = Library::open(&dir.path().join("lib")).unwrap();
    fresh.set_vision(Some(Arc::new(VisionLibrary::new(&fresh, enc.clone(), false).unwrap())));
    let mut q = SearchRequest::new("PepsiCo dividend");
    q.retriever = Retriever::Vision;
    q.filter = false;
    let e = fresh.search(&q).unwrap_err().to_string();
    assert!(e.contains("truncated") && e.contains("lens vision build"), "{e}");
    // a different edge refuses the published index
    let enc128 = Arc::new(VisionEncoder::load(&fixture(), 128).unwrap());
    fresh.set_vision(Some(Arc::new(VisionLibrary::new(&fresh, enc128, false).unwrap())));
    let e = fresh.search(&q).unwrap_err().to_string();
    assert!(e.contains("no document in scope has a vision index for tiny-colmodernvbert@128"), "{e}");
}

/// The search side a GPU runs (the encoder on candle's ops, MaxSim on the device), here on
/// candle's CPU device: the same pages and scores as the CPU kernels.
#[test]
fn device_maxsim_search_ranks_like_the_cpu_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(&dir.path().join("lib")).unwrap();
    ingest(&mut lib, &[pdf(FOOT)], &IngestOptions::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    let cpu = Arc::new(VisionEncoder::load(&fixture(), 64).unwrap());
    library::build(&lib, &cpu, &BuildOptions::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    let mut req = SearchRequest::new("Foot Locker CEO appointment");
    req.retriever = Retriever::Vision;
    lib.set_vision(Some(Arc::new(VisionLibrary::new(&lib, cpu, false).unwrap())));
    let want = lib.search(&req).unwrap().hits;
    let ops = Arc::new(VisionEncoder::load_on(&fixture(), 64, &candle_core::Device::Cpu, true).unwrap());
    assert!(ops.model.ops());
    lib.set_vision(Some(Arc::new(VisionLibrary::new(&lib, ops, false).unwrap())));
    let got = lib.search(&req).unwrap().hits;
    assert!(!want.is_empty());
    assert_eq!(got.iter().map(|h| (h.doc_id.clone(), h.page)).collect::<Vec<_>>(), want.iter().map(|h| (h.doc_id.clone(), h.page)).collect::<Vec<_>>());
    for (g, w) in got.iter().zip(&want) {
        assert!((g.score - w.score).abs() <= 1e-3 * w.score.abs().max(1.0), "{} vs {}", g.score, w.score);
    }
}
