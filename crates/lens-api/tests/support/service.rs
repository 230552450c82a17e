// What the service tests share (included with `#[path]`, not a test target of its own).
#![allow(dead_code)]
#[path = "../../../lens-core/tests/common.rs"]
pub mod common;
use common::*;
use lens_api::Api;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A service on a fresh library holding one small real filing (the AMCOR 8-K, 9 pages).
pub fn library() -> (tempfile::TempDir, Arc<Api>) {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::new(dir.path().join("lib"));
    api.start_ingest(vec![fb("AMCOR_2022_8K_dated-2022-07-01")]).unwrap();
    let t0 = Instant::now();
    while api.ingest_status().running {
        assert!(t0.elapsed() < Duration::from_secs(60), "ingest did not finish");
        std::thread::sleep(Duration::from_millis(50));
    }
    (dir, api)
}
