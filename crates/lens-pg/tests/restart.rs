//! The database going away under a store and coming back (its own test binary: it stops the
//! shared test server, so no other test may run meanwhile).
mod common;
use common::*;
use lens_core::labels;
use lens_core::log::Records;
use lens_pg::PgRecords;

fn run(var: &str) {
    let cmd = std::env::var(var).unwrap_or_else(|_| panic!("{var} is not set"));
    let st = std::process::Command::new("sh").arg("-c").arg(&cmd).status().unwrap();
    assert!(st.success(), "{cmd}");
}

#[test]
fn the_database_going_away_loses_nothing_and_work_resumes() {
    let Some(db) = TestDb::new("restart") else { return };
    if std::env::var("LENS_TEST_PG_STOP").is_err() {
        eprintln!("skipped: LENS_TEST_PG_STOP / LENS_TEST_PG_START not set");
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
