//! What the PostgreSQL tests share: a log entry to write, and a database of a test's own on the
//! test server (`LENS_TEST_DATABASE_URL`).
#![allow(dead_code)]

use lens_core::answer::{Answer, AnswererKind};
use lens_core::log::LogEntry;

pub fn entry(q: &str, by: Option<&str>) -> LogEntry {
    let mut a = Answer::not_found(AnswererKind::Extractive, 12.5);
    a.answer = format!("answer to {q}");
    a.not_found = false;
    a.quote = Some("Total current assets 16,525".into());
    a.citations = vec![lens_core::PageRef::new("NIKE_2019_10K", 40)];
    LogEntry {
        id: 0,
        time: String::new(),
        question: q.into(),
        scope: vec!["NIKE_2019_10K".into()],
        pages: a.citations.clone(),
        answer: a,
        retrieve_ms: 3.25,
        retriever: Default::default(),
        feedback: None,
        feedback_note: None,
        cancelled: false,
        shown: None,
        asked_by: by.map(str::to_string),
        feedback_by: None,
        feedbacks: Vec::new(),
    }
}

/// A database of its own on the test server, dropped at the end.
pub struct TestDb {
    admin_url: String,
    name: String,
    pub url: String,
}

impl TestDb {
    pub fn new(tag: &str) -> Option<TestDb> {
        let Ok(admin_url) = std::env::var("LENS_TEST_DATABASE_URL") else {
            assert!(std::env::var("LENS_REQUIRE_POSTGRES").is_err(), "LENS_REQUIRE_POSTGRES is set but LENS_TEST_DATABASE_URL is not");
            eprintln!("skipped: no PostgreSQL (set LENS_TEST_DATABASE_URL; scripts/test starts one)");
            return None;
        };
        let name = format!("lens_test_{tag}_{}", std::process::id());
        let mut c = postgres::Client::connect(&admin_url, postgres::NoTls).expect("the test server");
        c.batch_execute(&format!("DROP DATABASE IF EXISTS {name}")).unwrap();
        c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
        let base = admin_url.rsplit_once('/').map_or(admin_url.as_str(), |x| x.0).to_string();
        Some(TestDb { url: format!("{base}/{name}"), admin_url, name })
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Ok(mut c) = postgres::Client::connect(&self.admin_url, postgres::NoTls) {
            let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
        }
    }
}
