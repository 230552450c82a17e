//! The database going away under a store and coming back (its own test binary: it stops the
//! shared test server, so no other test may run meanwhile).
mod common;
use common::*;
use lens_core::labels;
use lens_core::log::Records;
use lens_pg::PgRecords;

/// The tests of this binary stop and start the one test server: one at a time.
static SERVER: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn run(var: &str) {
    let cmd = std::env::var(var).unwrap_or_else(|_| panic!("{var} is not set"));
    let st = std::process::Command::new("sh").arg("-c").arg(&cmd).status().unwrap();
    assert!(st.success(), "{cmd}");
}

/// Whether the test server can be stopped and started (`scripts/postgres` says how). Where a
/// database is required (`scripts/test` sets LENS_REQUIRE_POSTGRES), a missing switch fails the
/// run instead of skipping the fault tests.
fn can_restart() -> bool {
    let can = std::env::var("LENS_TEST_PG_STOP").is_ok() && std::env::var("LENS_TEST_PG_START").is_ok();
    if !can {
        assert!(std::env::var("LENS_REQUIRE_POSTGRES").is_err(), "LENS_REQUIRE_POSTGRES is set but LENS_TEST_PG_STOP / LENS_TEST_PG_START are not");
        eprintln!("skipped: LENS_TEST_PG_STOP / LENS_TEST_PG_START not set");
    }
    can
}

/// A connection killed in the middle of a transaction (an import of a gold set, held at its
/// boxes by another session's lock, its backend then terminated): nothing of the import is
/// kept, the caller is told, and the next call gets a new connection.
#[test]
fn a_connection_killed_mid_transaction_keeps_nothing_of_it() {
    let _one = SERVER.lock().unwrap_or_else(|p| p.into_inner());
    let Some(db) = TestDb::new("killed") else { return };
    let r = std::sync::Arc::new(PgRecords::connect(&db.url).unwrap());
    let lib = std::sync::Arc::new(std::sync::Mutex::new(lens_core::Library::in_memory().unwrap()));
    let file = labels::jsonl::parse(
        "{\"id\":\"k1\",\"query\":\"a\",\"gold\":{\"D#1\":1}}\n{\"id\":\"k2\",\"query\":\"b\",\"gold\":{},\"labeler\":{\"evidence_boxes\":[{\"page\":\"D#2\",\"l\":1,\"b\":2,\"r\":3,\"t\":4}]}}",
    )
    .unwrap();
    labels::create_set(r.as_ref(), "gold").unwrap();
    let mut admin = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    let mut tx = admin.transaction().unwrap();
    tx.batch_execute("LOCK TABLE label_boxes IN ACCESS EXCLUSIVE MODE").unwrap();
    let import = {
        let (r, lib) = (r.clone(), lib.clone());
        std::thread::spawn(move || labels::import(&lib.lock().unwrap(), r.as_ref(), "gold", &file, Some("ana")))
    };
    let mut watch = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    let t0 = std::time::Instant::now();
    let pid: i32 = loop {
        let row = watch.query_opt("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'", &[]).unwrap();
        if let Some(row) = row {
            break row.get(0);
        }
        assert!(t0.elapsed().as_secs() < 20, "the import never reached the lock");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    // the import has written its questions in its transaction, and waits at the boxes
    assert!(watch.query_one("SELECT pg_terminate_backend($1)", &[&pid]).unwrap().get::<_, bool>(0));
    let e = import.join().unwrap().unwrap_err();
    tx.rollback().unwrap();
    assert_eq!(e.code(), "database", "{e}");
    assert!(e.to_string().contains("cannot be reached") && e.to_string().contains("nothing was written"), "{e}");
    assert!(labels::questions(r.as_ref(), "gold").unwrap().is_empty(), "half an import was kept");
}

#[test]
fn the_database_going_away_loses_nothing_and_work_resumes() {
    let _one = SERVER.lock().unwrap_or_else(|p| p.into_inner());
    let Some(db) = TestDb::new("restart") else { return };
    if !can_restart() {
        return;
    }
    let r = PgRecords::connect(&db.url).unwrap();
    let kept = r.log_question(&entry("before the restart", Some("rob"))).unwrap();
    // a gold set with one grade and a file of two questions to import while the server is down
    let lib = lens_core::Library::in_memory().unwrap();
    labels::add_question(&r, "gold", "What was capex?", Some("q1"), None).unwrap();
    labels::grade(&r, "gold", "q1", "NIKE_2019_10K#40", "ana", Some(2)).unwrap();
    let file = labels::jsonl::parse("{\"id\":\"q2\",\"query\":\"a\",\"gold\":{\"D#1\":1}}\n{\"id\":\"q3\",\"query\":\"b\",\"gold\":{\"D#2\":2}}").unwrap();
    run("LENS_TEST_PG_STOP");
    let e = r.log_question(&entry("while it is down", Some("rob"))).unwrap_err();
    let g = labels::grade(&r, "gold", "q1", "NIKE_2019_10K#41", "ana", Some(1)).unwrap_err();
    let i = labels::import(&lib, &r, "gold", &file, Some("ana")).unwrap_err();
    run("LENS_TEST_PG_START");
    for e in [&e, &g, &i] {
        assert_eq!(e.code(), "database");
        assert!(e.to_string().contains("cannot be reached") && e.to_string().contains("nothing was written"), "{e}");
    }
    // the set as it was before: one question, one grade; the import is whole when done again
    let q = labels::questions(&r, "gold").unwrap();
    assert_eq!((q.len(), q[0].grades.len()), (1, 1));
    labels::import(&lib, &r, "gold", &file, Some("ana")).unwrap();
    assert_eq!(labels::questions(&r, "gold").unwrap().len(), 3);
    // back: the same store connects again by itself; the entry from before is there, the one
    // refused is not (nothing half-written)
    let after = r.log_question(&entry("after the restart", Some("rob"))).unwrap();
    let log = r.question_log(10).unwrap();
    assert_eq!(log.iter().map(|e| e.question.as_str()).collect::<Vec<_>>(), ["after the restart", "before the restart"]);
    assert!(after > kept);
}

/// A restart while nobody calls: the pool's connections are dead, and the next call (a token
/// check, say) gets a new one instead of failing.
#[test]
fn a_restart_while_idle_is_not_noticed_by_the_next_call() {
    let _one = SERVER.lock().unwrap_or_else(|p| p.into_inner());
    let Some(db) = TestDb::new("idle") else { return };
    if !can_restart() {
        return;
    }
    let r = PgRecords::connect(&db.url).unwrap();
    let token = r.add_user("ana", lens_core::users::Role::Annotator, &lens_core::users::Expiry::Never).unwrap();
    assert!(r.user_by_token(&token).unwrap().is_some());
    run("LENS_TEST_PG_STOP");
    run("LENS_TEST_PG_START");
    assert_eq!(r.user_by_token(&token).unwrap().map(|u| u.name), Some("ana".to_string()));
}

/// A team server's ingest while its database is away: the filing is not added (the library
/// does not keep what the team's database does not), the message says why; when the database
/// is back, adding it again works and the filing is in both.
#[test]
fn the_database_going_away_mid_ingest_adds_nothing_and_it_resumes() {
    use lens_core::replica::Filings;
    let _one = SERVER.lock().unwrap_or_else(|p| p.into_inner());
    let Some(db) = TestDb::new("ingest") else { return };
    if !can_restart() {
        return;
    }
    let pg = std::sync::Arc::new(PgRecords::connect(&db.url).unwrap());
    let lib = tempfile::tempdir().unwrap();
    let api = lens_api::Api::new_team(lib.path().to_path_buf(), Some(pg.clone()), Some(pg.clone()));
    let corpus = std::env::var_os("LENS_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    let pdf = corpus.join("financebench/pdfs/ULTABEAUTY_2023Q4_EARNINGS.pdf");
    let ingest = |api: &lens_api::Api| {
        api.start_ingest(vec![pdf.clone()]).unwrap();
        let t0 = std::time::Instant::now();
        while api.ingest_status().running {
            assert!(t0.elapsed() < std::time::Duration::from_secs(120), "the ingest did not end");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        api.ingest_status().files.last().cloned().unwrap()
    };
    run("LENS_TEST_PG_STOP");
    let f = ingest(&api);
    run("LENS_TEST_PG_START");
    let msg = f.message.clone().unwrap_or_default();
    assert!(msg.contains("not added") && msg.contains("cannot be reached"), "{f:?}");
    assert!(api.documents().unwrap().is_empty(), "the library keeps nothing the database does not");
    // back: added to both
    let f = ingest(&api);
    assert!(f.message.is_none(), "{f:?}");
    let docs = api.documents().unwrap();
    assert_eq!(docs.len(), 1);
    assert_eq!(pg.filing_ids().unwrap(), [(docs[0].doc.id.clone(), docs[0].doc.sha256.clone())]);
    // removed through the server: from the database first, then the library
    api.remove(&docs[0].doc.id).unwrap();
    assert!(pg.filing_ids().unwrap().is_empty() && api.documents().unwrap().is_empty());
}
