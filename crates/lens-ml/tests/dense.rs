//! Dense retrieval: the candle BERT embedder against reference outputs of Hugging Face
//! transformers (tiny random model made by scripts/fixtures/make_tiny_bert.py), and vectors
//! built, searched, fused and removed with a real corpus document.
use lens_core::dense::TextEmbedder;
use lens_core::ingest::{ingest, IngestOptions};
use lens_core::Retriever;
use lens_core::{Library, SearchRequest};
use lens_ml::minilm::Embedder;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(name)
}

/// A financebench filing from the shared corpus (`../shared/corpus` beside the checkout, or
/// `$LENS_CORPUS`).
fn fb(name: &str) -> PathBuf {
    let corpus = std::env::var_os("LENS_CORPUS").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    assert!(corpus.join("financebench/pdfs").is_dir(), "corpus not found at {} (set LENS_CORPUS)", corpus.display());
    corpus.join("financebench/pdfs").join(format!("{name}.pdf"))
}

fn tiny() -> (Embedder, serde_json::Value) {
    tiny_with(lens_ml::bf16::kernel())
}

fn tiny_with(kernel: Option<lens_ml::bf16::Kernel>) -> (Embedder, serde_json::Value) {
    let dir = fixture("tiny-bert");
    let mut e = Embedder::load_with(&dir, kernel).unwrap();
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("reference.json")).unwrap()).unwrap();
    e.set_window(r["max_tokens"].as_u64().unwrap() as usize, r["stride"].as_u64().unwrap() as usize).unwrap();
    (e, r)
}

fn close(a: &[f32], b: &[serde_json::Value]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y.as_f64().unwrap() as f32).abs()).fold(0.0, f32::max)
}

/// The embedder against transformers' vectors: f32 to 1e-4, and on a CPU with a bf16 kernel
/// the linear layers in bf16 (inputs rounded to 8 bits of mantissa) to 1e-2.
#[test]
fn embeddings_match_the_reference_implementation() {
    let mut runs = vec![(None, 1e-4f32)];
    if let Some(k) = lens_ml::bf16::kernel() {
        runs.push((Some(k), 1e-2));
    }
    for (kernel, tol) in runs {
        let (e, r) = tiny_with(kernel);
        assert_eq!(e.name(), "tiny-bert");
        let mut all_windows = Vec::new();
        let mut all_refs = Vec::new();
        let mut worst = 0f32;
        for t in r["texts"].as_array().unwrap() {
            let wins = e.windows(t["text"].as_str().unwrap()).unwrap();
            let want: Vec<Vec<u32>> =
                t["windows"].as_array().unwrap().iter().map(|w| w.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect()).collect();
            assert_eq!(wins, want, "windows of {:?}", t["text"]);
            // one text at a time
            let embs = e.embed_windows(&wins).unwrap();
            for (got, want) in embs.iter().zip(t["embeddings"].as_array().unwrap()) {
                let d = close(got, want.as_array().unwrap());
                worst = worst.max(d);
                assert!(d < tol, "{}: max abs diff {d}", e.precision());
                let norm: f32 = got.iter().map(|x| x * x).sum::<f32>().sqrt();
                assert!((norm - 1.0).abs() < 1e-4);
            }
            all_windows.extend(wins);
            all_refs.extend(t["embeddings"].as_array().unwrap().iter().cloned());
        }
        assert!(all_windows.len() >= 4, "the long text spans several windows");
        // windows of different lengths in one batch: each attends only to its own tokens
        let batched = e.embed_windows(&all_windows).unwrap();
        for (got, want) in batched.iter().zip(&all_refs) {
            let d = close(got, want.as_array().unwrap());
            assert!(d < tol, "{} batched: max abs diff {d}", e.precision());
        }
        eprintln!("{}: largest difference from transformers {worst:.2e}", e.precision());
    }
}

/// Bad ids and over-long windows are refused with a message, not a panic.
#[test]
fn windows_the_model_cannot_read_are_refused() {
    let (e, r) = tiny_with(None);
    let positions = r["max_tokens"].as_u64().unwrap() as usize;
    let long = vec![vec![1u32; 33]];
    let err = e.embed_windows(&long).unwrap_err();
    assert!(err.to_string().contains("longer than the model's 32 positions"), "{err} ({positions})");
    let err = e.embed_windows(&[vec![1, 5000, 2]]).unwrap_err();
    assert!(err.to_string().contains("outside the model's vocabulary"), "{err}");
    assert_eq!(e.embed_windows(&[]).unwrap().len(), 0);
}

#[test]
fn missing_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = Embedder::load(dir.path()).err().expect("no model there");
    assert_eq!(err.code(), "model_missing");
    assert!(err.to_string().contains("config.json"), "{err}");
    // a library without an embedding model: dense search says so, hybrid falls back to BM25
    let lib = Library::in_memory().unwrap();
    let mut req = SearchRequest::new("capital expenditure");
    req.retriever = Retriever::Dense;
    assert_eq!(lib.search(&req).unwrap_err().code(), "model_missing");
    req.retriever = Retriever::Hybrid;
    let r = lib.search(&req).unwrap();
    assert_eq!(r.retriever, Retriever::Bm25);
    assert!(r.notes.iter().any(|n| n.contains("no embedding model")), "{:?}", r.notes);
}

#[test]
fn vectors_are_built_per_document_searched_fused_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    let docs = [fb("AMCOR_2022_8K_dated-2022-07-01"), fb("FOOTLOCKER_2022_8K_dated-2022-05-20")];
    ingest(&mut lib, &docs, &IngestOptions::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    let (e, _) = tiny();
    let e = Arc::new(e);
    lib.set_embedder(e.clone());

    // hybrid before any vectors: BM25 with a note
    let mut req = SearchRequest::new("Amcor Bemis acquisition");
    req.retriever = Retriever::Hybrid;
    let r = lib.search(&req).unwrap();
    assert_eq!(r.retriever, Retriever::Bm25);

    // build one document, then the rest: the first is not embedded twice
    let cancel = AtomicBool::new(false);
    let only = vec!["AMCOR_2022_8K_dated-2022-07-01".to_string()];
    let rep = lib.build_dense(&*e, Some(&only), &cancel, &mut |_| {}).unwrap();
    assert_eq!(rep.docs, 1);
    assert!(rep.windows >= rep.pages, "{rep:?}");
    let mut seen = Vec::new();
    let rep = lib.build_dense(&*e, None, &cancel, &mut |p| seen.push(p.doc_id.clone())).unwrap();
    assert_eq!((rep.docs, rep.skipped_done), (1, 1));
    assert_eq!(seen, vec!["FOOTLOCKER_2022_8K_dated-2022-05-20".to_string()]);
    let (bytes, pages) = lib.dense_size("tiny-bert").unwrap();
    assert!(pages > 0 && bytes > pages * 30, "{bytes} bytes for {pages} pages");

    // dense search: a query whose first window is page 2's first window scores ~1 there
    // (int8 storage costs a little), as high as any page
    let page = lib.page("AMCOR_2022_8K_dated-2022-07-01", 2).unwrap();
    let snippet: String = page.text.split_whitespace().take(60).collect::<Vec<_>>().join(" ");
    let mut req = SearchRequest::new(snippet);
    req.retriever = Retriever::Dense;
    req.filter = false;
    req.k = 50;
    let r = lib.search(&req).unwrap();
    assert_eq!(r.retriever, Retriever::Dense);
    let top = r.hits[0].score;
    let p2 = r.hits.iter().find(|h| h.page == 2 && h.doc_id.starts_with("AMCOR")).expect("page 2 among the hits");
    assert!(p2.score > 0.97 && p2.score >= top - 0.01, "page 2 {} vs top {top}", p2.score);
    // hybrid: BM25 and dense agree on page 2
    req.retriever = Retriever::Hybrid;
    req.k = 5;
    let r = lib.search(&req).unwrap();
    assert_eq!(r.retriever, Retriever::Hybrid);
    assert!(r.hits.iter().take(3).any(|h| h.page == 2 && h.doc_id.starts_with("AMCOR")), "{:?}", r.hits);

    // odd questions: an answer or a clear note, never a panic
    for q in ["???", &"capital expenditure ".repeat(500), "Quelle est la dépense d'investissement d'Amcor en 2022 ?", "安姆科 2022 年的收购"] {
        let mut r = SearchRequest::new(q);
        r.retriever = Retriever::Hybrid;
        let resp = lib.search(&r).unwrap_or_else(|e| panic!("{q:.40}: {e}"));
        if q == "???" {
            assert!(resp.notes.iter().any(|n| n.contains("no searchable words")), "{:?}", resp.notes);
        }
        if q.len() > 5000 {
            assert!(resp.notes.iter().any(|n| n.contains("cut")), "{:?}", resp.notes);
        }
    }

    // removal takes the vectors with it
    lib.remove("AMCOR_2022_8K_dated-2022-07-01").unwrap();
    let r = lib.search(&req).unwrap();
    assert!(r.hits.iter().all(|h| !h.doc_id.starts_with("AMCOR")), "{:?}", r.hits);
    let keys = lib.dense_doc_keys("tiny-bert").unwrap();
    assert_eq!(keys.len(), 1);
}
