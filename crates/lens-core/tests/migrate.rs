//! Schema versioning: a library written before versions existed opens, migrates in place and
//! keeps everything; one written by a newer build is refused untouched.
use lens_core::answer::AnswererKind;
use lens_core::evidence::FoundBy;
use lens_core::settings::Settings;
use lens_core::store::SCHEMA_VERSION;
use lens_core::{Library, PageRef, Retriever};

/// The schema before versioning: migration 1 is exactly it (shipped migrations never change).
const V0: &str = include_str!("../migrations/001_base.sql");

/// A library folder as commit 759825d left it: the v0 schema (user_version 0) and a document,
/// a page, settings, a watched folder and a logged answer in that build's formats.
fn v0_library() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let c = rusqlite::Connection::open(dir.path().join("lens.sqlite")).unwrap();
    c.execute_batch(V0).unwrap();
    c.execute_batch(
        r#"
        INSERT INTO documents(key,id,path,title,pages,bytes,sha256,company,year,form,needs_ocr_pages,status)
          VALUES(1,'ACME_2022_10K','/x/ACME_2022_10K.pdf','Acme 10-K',1,100,'abc','Acme',2022,'10-K',0,'complete');
        INSERT INTO pages(doc_key,page,text,heading,width,height,needs_ocr) VALUES(1,1,'Net sales 1,234','Income',612,792,0);
        INSERT INTO aliases(alias,doc_id,source) VALUES('acme','ACME_2022_10K','meta');
        INSERT INTO watched_folders(path) VALUES('/x');
        INSERT INTO settings(key,value) VALUES('settings','{"top_k":5,"answerer":"extractive","retriever":"bm25","ocr_langs":"eng","threads":0,"models_dir":"/m","model":"","embedder":"all-MiniLM-L6-v2"}');
        INSERT INTO question_log(question,scope,pages,answer,citations,quote,not_found,found_by,retrieve_ms,answer_ms,answerer,retriever,feedback)
          VALUES('What were net sales?','[]','["ACME_2022_10K#1"]','Net sales 1,234','["ACME_2022_10K#1"]','Net sales 1,234',0,'quote',2.5,1.5,'extractive','hybrid',1);
        "#,
    )
    .unwrap();
    dir
}

#[test]
fn a_library_from_before_versioning_opens_and_migrates() {
    let dir = v0_library();
    for _ in 0..2 {
        // twice: migrating is done once, and opening again changes nothing
        let lib = Library::open(dir.path()).unwrap();
        assert_eq!(lib.store().schema_version().unwrap(), SCHEMA_VERSION);
        let docs = lib.documents().unwrap();
        assert_eq!(docs.len(), 1);
        assert_eq!((docs[0].id.as_str(), docs[0].year), ("ACME_2022_10K", Some(2022)));
        assert_eq!(lib.store().page("ACME_2022_10K", 1).unwrap().text, "Net sales 1,234");
        assert_eq!(lib.store().watches().unwrap(), vec!["/x".to_string()]);
        let st = Settings::load(lib.store()).unwrap();
        assert_eq!((st.top_k, st.retriever, st.answerer), (5, Retriever::Bm25, AnswererKind::Extractive));
        let log = lib.store().question_log(10).unwrap();
        assert_eq!(log.len(), 1);
        let e = &log[0];
        assert_eq!(e.answer.citations, vec![PageRef::new("ACME_2022_10K", 1)]);
        assert_eq!(e.pages, vec![PageRef::new("ACME_2022_10K", 1)]);
        assert_eq!((e.answer.found_by, e.retriever, e.feedback), (FoundBy::Quote, Retriever::Hybrid, Some(1)));
        // what the migrations added is there
        let n: i64 = lib.store().conn().query_row("SELECT count(*) FROM sqlite_master WHERE name='documents_path'", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 1);
    }
}

#[test]
fn a_library_from_a_newer_build_is_refused_untouched() {
    let dir = v0_library();
    let c = rusqlite::Connection::open(dir.path().join("lens.sqlite")).unwrap();
    c.pragma_update(None, "user_version", SCHEMA_VERSION + 7).unwrap();
    drop(c);
    let e = Library::open(dir.path()).err().expect("refused");
    assert_eq!(e.code(), "library_version");
    assert!(e.to_string().contains("newer 10-K Lens"), "{e}");
    let c = rusqlite::Connection::open(dir.path().join("lens.sqlite")).unwrap();
    let v: u32 = c.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
    assert_eq!(v, SCHEMA_VERSION + 7);
    let n: i64 = c.query_row("SELECT count(*) FROM documents", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1);
    let idx: i64 = c.query_row("SELECT count(*) FROM sqlite_master WHERE name='documents_path'", [], |r| r.get(0)).unwrap();
    assert_eq!(idx, 0, "no migration ran");
}
