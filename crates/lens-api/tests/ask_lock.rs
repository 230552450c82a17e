//! An ask lets go of the library while its answerer runs: other calls of the app are served
//! meanwhile, the ask can be stopped, and a library changed under it does not break it.
#[path = "../../lens-core/tests/common.rs"]
mod common;
use common::*;
use lens_api::{Api, AskArgs};
use lens_core::answer::{Answer, Answerer, AnswererKind, Extractive, PageInput};
use lens_core::error::{LensError, Result};
use lens_core::PageRef;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The extractive answer, streamed word by word over `seconds`, like a slow model; tells
/// `started` when it begins.
struct Slow {
    seconds: f64,
    started: Mutex<mpsc::Sender<()>>,
}

impl Answerer for Slow {
    fn kind(&self) -> AnswererKind {
        AnswererKind::Extractive
    }
    fn answer(&self, q: &lens_core::question::Question, pages: &[PageInput]) -> Result<Answer> {
        Extractive::default().answer(q, pages)
    }
    fn answer_stream(&self, q: &lens_core::question::Question, pages: &[PageInput], on_text: &mut dyn FnMut(&str) -> bool) -> Result<Answer> {
        let _ = self.started.lock().unwrap().send(());
        let a = self.answer(q, pages)?;
        let words: Vec<String> = a.answer.split_inclusive(' ').map(str::to_string).collect();
        let pause = Duration::from_secs_f64(self.seconds / words.len().max(1) as f64);
        for w in &words {
            std::thread::sleep(pause);
            if !on_text(w) {
                return Err(LensError::Cancelled);
            }
        }
        Ok(a)
    }
}

const QUESTION: &str = "Which notes are covered by Amcor's supplemental indentures?";

/// A library with one real 8-K, and an API whose extractive answerer takes `seconds`.
fn setup(seconds: f64) -> (tempfile::TempDir, Arc<Api>, mpsc::Receiver<()>) {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::new(dir.path().to_path_buf());
    api.start_ingest(vec![fb("AMCOR_2022_8K_dated-2022-07-01")]).unwrap();
    let t0 = Instant::now();
    while api.ingest_status().running {
        assert!(t0.elapsed() < Duration::from_secs(60), "ingest did not finish");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(api.documents().unwrap().len(), 1);
    let (tx, rx) = mpsc::channel();
    api.set_answerer(Arc::new(Slow { seconds, started: Mutex::new(tx) }));
    (dir, api, rx)
}

#[test]
fn other_calls_are_served_while_an_answer_is_written() {
    let (_dir, api, started) = setup(3.0);
    let order = Arc::new(Mutex::new(Vec::<&str>::new()));
    let asker = {
        let (api, order) = (api.clone(), order.clone());
        std::thread::spawn(move || {
            let t0 = Instant::now();
            let r = api.ask(&AskArgs::new(QUESTION));
            order.lock().unwrap().push("ask");
            (r, t0.elapsed())
        })
    };
    started.recv_timeout(Duration::from_secs(30)).expect("the answerer started");
    let t0 = Instant::now();
    let docs = api.documents().unwrap();
    order.lock().unwrap().push("documents");
    let png = api.page_png(&PageRef::new(&docs[0].doc.id, 1), 50.0, &[]).unwrap();
    order.lock().unwrap().push("page_png");
    let log = api.log(10).unwrap();
    order.lock().unwrap().push("log");
    let waited = t0.elapsed();
    let (r, asked) = asker.join().unwrap();
    let r = r.unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    assert!(log.is_empty(), "the answer being written is not logged yet");
    assert_eq!(*order.lock().unwrap(), vec!["documents", "page_png", "log", "ask"]);
    assert!(!r.answer.not_found, "{:?}", r.answer);
    assert_eq!(api.log(10).unwrap()[0].id, r.log_id);
    eprintln!("documents + page_png + log while answering: {:.0} ms (the ask took {:.0} ms)", waited.as_secs_f64() * 1000.0, asked.as_secs_f64() * 1000.0);
}

#[test]
fn an_answer_can_be_stopped_and_the_log_marks_it_cancelled() {
    let (_dir, api, started) = setup(20.0);
    let asker = {
        let api = api.clone();
        std::thread::spawn(move || {
            let t0 = Instant::now();
            (api.ask(&AskArgs::new(QUESTION)), t0.elapsed())
        })
    };
    started.recv_timeout(Duration::from_secs(30)).expect("the answerer started");
    assert_eq!(api.cancel_asks(), 1);
    let (r, took) = asker.join().unwrap();
    assert_eq!(r.unwrap_err().code(), "cancelled");
    assert!(took < Duration::from_secs(20), "stopped before the answer was done ({took:?})");
    let log = api.log(10).unwrap();
    assert_eq!(log.len(), 1, "the stopped ask is logged");
    assert!(log[0].cancelled && log[0].question == QUESTION, "{:?}", log[0]);
    assert_eq!(api.cancel_asks(), 0, "no ask is left running");

    // a client that goes away (its event sink refuses) stops the answer too
    let mut seen = 0;
    let e = api.ask_stream(&AskArgs::new(QUESTION), &mut |_| {
        seen += 1;
        seen < 3
    });
    assert_eq!(e.unwrap_err().code(), "cancelled");
    let log = api.log(10).unwrap();
    assert!(log.len() == 2 && log.iter().all(|e| e.cancelled), "both stopped asks are marked");
}

#[test]
fn a_team_user_stops_only_their_own_asks() {
    let (_dir, api, started) = setup(4.0);
    let ask_as = |user: &str| {
        let api = api.clone();
        let mut a = AskArgs::new(QUESTION);
        a.user = Some(user.to_string());
        std::thread::spawn(move || api.ask(&a))
    };
    let (ana, bea) = (ask_as("ana"), ask_as("bea"));
    for _ in 0..2 {
        started.recv_timeout(Duration::from_secs(30)).expect("both answerers started");
    }
    assert_eq!(api.cancel_asks_of(Some("mallory")), 0, "a user with no ask running stops nothing");
    assert_eq!(api.cancel_asks_of(Some("ana")), 1);
    assert_eq!(ana.join().unwrap().unwrap_err().code(), "cancelled");
    let r = bea.join().unwrap().expect("bea's ask was not stopped by ana");
    assert!(!r.answer.not_found, "{:?}", r.answer);
}

#[test]
fn a_document_removed_while_answering_leaves_an_answer_without_boxes() {
    let (_dir, api, started) = setup(1.0);
    let asker = {
        let api = api.clone();
        std::thread::spawn(move || api.ask(&AskArgs::new(QUESTION)))
    };
    started.recv_timeout(Duration::from_secs(30)).expect("the answerer started");
    let doc = api.documents().unwrap()[0].doc.id.clone();
    api.remove(&doc).unwrap();
    let r = asker.join().unwrap().unwrap();
    assert!(r.boxes.is_empty());
    assert!(r.notes.iter().any(|n| n.contains("evidence was not located")), "{:?}", r.notes);
    assert_eq!(api.log(1).unwrap()[0].id, r.log_id, "the answer is still logged");
}

#[test]
fn reads_of_the_library_run_beside_each_other_and_many_callers_at_once_all_get_through() {
    let (_dir, api, _started) = setup(0.0);
    // one caller is inside the library (as a long retrieval would be) until told to go on:
    // a search, an ask and the log are served meanwhile, not queued behind it
    let (inside_tx, inside) = mpsc::channel();
    let (go_on, go_on_rx) = mpsc::channel::<()>();
    let holder = {
        let api = api.clone();
        std::thread::spawn(move || {
            api.with_library(|_| {
                inside_tx.send(()).unwrap();
                Ok(go_on_rx.recv_timeout(Duration::from_secs(60)).is_ok())
            })
        })
    };
    inside.recv_timeout(Duration::from_secs(30)).expect("the first caller is inside");
    let (served_tx, served) = mpsc::channel();
    let other = {
        let api = api.clone();
        std::thread::spawn(move || {
            let search = api.search(&serde_json::from_value(serde_json::json!({ "query": QUESTION })).unwrap());
            let ask = api.ask(&AskArgs::new(QUESTION));
            let log = api.log(5);
            served_tx.send(()).unwrap();
            (search, ask, log)
        })
    };
    let beside = served.recv_timeout(Duration::from_secs(30));
    go_on.send(()).unwrap();
    assert!(holder.join().unwrap().unwrap(), "the first caller was let go");
    assert!(beside.is_ok(), "a search, an ask and the log waited for another reader");
    let (search, ask, log) = other.join().unwrap();
    assert!(!search.unwrap().hits.is_empty());
    let ask = ask.unwrap();
    assert!(!ask.answer.not_found, "{:?}", ask.answer);
    assert_eq!(log.unwrap()[0].id, ask.log_id);

    // sixteen callers at once, asking, searching, grading and reading the log on the one
    // SQLite connection: every call gets through and every ask is logged once
    let before = api.log(1000).unwrap().len();
    let callers: Vec<_> = (0..16)
        .map(|i| {
            let api = api.clone();
            std::thread::spawn(move || -> Result<usize> {
                let mut asked = 0;
                for _ in 0..3 {
                    let r = api.ask(&AskArgs::new(QUESTION))?;
                    api.feedback(&serde_json::from_value(serde_json::json!({ "id": r.log_id, "value": if i % 2 == 0 { 1 } else { -1 } })).unwrap())?;
                    asked += 1;
                    api.search(&serde_json::from_value(serde_json::json!({ "query": "supplemental indenture notes" })).unwrap())?;
                    api.log(20)?;
                }
                Ok(asked)
            })
        })
        .collect();
    let asked: usize = callers.into_iter().map(|c| c.join().unwrap().unwrap()).sum();
    assert_eq!(asked, 48);
    let log = api.log(1000).unwrap();
    assert_eq!(log.len() - before, 48, "each ask logged once");
    let mut ids: Vec<i64> = log.iter().map(|e| e.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), log.len(), "no log row written twice");
}
