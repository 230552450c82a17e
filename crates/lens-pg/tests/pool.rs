//! The pool of connections: many requests at once share it; a request that finds every
//! connection taken for longer than it waits is refused as busy (the server's 503), never left
//! hanging, and the others finish.
mod common;
use common::*;
use lens_core::log::Records;
use lens_pg::{DbOptions, PgRecords};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[test]
fn many_callers_at_once_share_the_pool() {
    let Some(db) = TestDb::new("pool_many") else { return };
    let r = Arc::new(PgRecords::connect_with(&db.url, &DbOptions { pool_size: 3, wait: Duration::from_secs(30), ..Default::default() }).unwrap());
    let threads: Vec<_> = (0..12)
        .map(|t| {
            let r = r.clone();
            std::thread::spawn(move || {
                for i in 0..10 {
                    r.log_question(&entry(&format!("caller {t} question {i}"), Some("rob"))).unwrap();
                    r.question_log(5).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(r.question_log(1000).unwrap().len(), 120);
}

#[test]
fn a_caller_finding_every_connection_taken_is_refused_as_busy_and_the_others_finish() {
    let Some(db) = TestDb::new("pool_busy") else { return };
    let r = Arc::new(PgRecords::connect_with(&db.url, &DbOptions { pool_size: 2, wait: Duration::from_millis(500), ..Default::default() }).unwrap());
    // another session holds the log's table: the next two writes wait on it, each holding one
    // of the pool's two connections
    let mut admin = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    let mut tx = admin.transaction().unwrap();
    tx.batch_execute("LOCK TABLE question_log IN ACCESS EXCLUSIVE MODE").unwrap();
    let writers: Vec<_> = (0..2)
        .map(|i| {
            let r = r.clone();
            std::thread::spawn(move || r.log_question(&entry(&format!("waiting {i}"), Some("rob"))))
        })
        .collect();
    let mut watch = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    let t0 = Instant::now();
    let waiting = || -> i64 {
        watch.query_one("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'", &[]).unwrap().get(0)
    };
    let mut waiting = waiting;
    while waiting() < 2 {
        assert!(t0.elapsed() < Duration::from_secs(20), "the two writes never reached the lock");
        std::thread::sleep(Duration::from_millis(50));
    }
    // a third caller: refused after its wait, with the reason
    let t1 = Instant::now();
    let e = r.question_log(5).unwrap_err();
    assert_eq!(e.code(), "busy", "{e}");
    assert!(e.to_string().contains("all 2 connections to the team database") && e.to_string().contains("try again"), "{e}");
    assert!(t1.elapsed() < Duration::from_secs(10), "the busy caller was left waiting {:?}", t1.elapsed());
    // the lock let go: the two writes finish, and the pool serves again
    tx.commit().unwrap();
    for w in writers {
        w.join().unwrap().unwrap();
    }
    assert_eq!(r.question_log(5).unwrap().len(), 2);
}

#[test]
fn a_pool_of_no_connections_is_refused() {
    let e = PgRecords::connect_with("postgres://lens@127.0.0.1:1/x", &DbOptions { pool_size: 0, ..Default::default() }).err().unwrap();
    assert_eq!(e.code(), "bad_input");
}
