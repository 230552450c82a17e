//! A filing's sections on a real 10-K: the item of each page, a note, a question asked in words
//! reaching the section that answers it, and a filing without item headings searched as before.
mod common;
use common::*;
use lens_core::ask::AskRequest;

#[test]
fn a_10k_page_knows_its_item_and_a_legal_question_reaches_legal_proceedings() {
    let (_dir, lib) = lib_with(&["BOEING_2022_10K", "AMCOR_2022_8K_dated-2022-07-01"]);
    let key = lib.document("BOEING_2022_10K").unwrap().key;
    let all = lib.page_sections(key).unwrap();
    let sections = |page: u32| -> Vec<String> { all.get(&page).cloned().unwrap_or_default() };
    // the table of contents (page 2) is in no section; Items 1, 1A, 3, 7, 8 and a note are found
    assert!(sections(2).is_empty());
    assert_eq!(sections(4), vec!["Item 1. Business"]);
    assert!(sections(10).contains(&"Item 1A. Risk Factors".to_string()));
    assert!(sections(20).contains(&"Item 3. Legal Proceedings".to_string()), "{:?}", sections(20));
    assert!(sections(30)[0].starts_with("Item 7. Management"), "{:?}", sections(30));
    assert!(sections(60)[0].starts_with("Item 8. Financial Statements"));
    assert_eq!(sections(112).last().map(String::as_str), Some("Note 21 – Legal Proceedings"));
    // a legal question reads a legal-proceedings page, and the pages read name their section
    let r = lib.ask(&AskRequest::new("What legal proceedings is Boeing involved in as of FY2022?")).unwrap();
    let legal: Vec<_> = r.page_info.iter().filter(|p| p.section.as_deref().is_some_and(|s| s.contains("Legal Proceedings"))).collect();
    assert!(!legal.is_empty(), "{:?}", r.page_info.iter().map(|p| (&p.page, &p.section)).collect::<Vec<_>>());
    // an 8-K has no item headings of a 10-K: no section, and it is still searched
    let key = lib.document("AMCOR_2022_8K_dated-2022-07-01").unwrap().key;
    assert!(lib.page_sections(key).unwrap().values().all(Vec::is_empty));
    let r = lib.ask(&AskRequest::new("Which notes are covered by Amcor's supplemental indentures?")).unwrap();
    assert!(r.pages.iter().any(|p| p.doc_id == "AMCOR_2022_8K_dated-2022-07-01"));
}
