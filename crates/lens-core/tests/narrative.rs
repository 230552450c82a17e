//! Questions asked in words, answered on a real 10-K (Johnson & Johnson's for 2022): a "which
//! acquisitions" question gets the acquired company, each boxed, never the list of
//! subsidiaries; a "why" gets the sentence that states the cause with the bullets it
//! introduces, each boxed; a "has it been involved in litigation" gets yes and the sentence
//! that says so, in the legal section.
mod common;
use common::*;
use lens_core::ask::AskRequest;

#[test]
fn which_acquisitions_lists_acquired_companies_and_why_gets_its_causes() {
    let (_dir, lib) = lib_with(&["JOHNSON_JOHNSON_2022_10K"]);

    let r = lib.ask(&AskRequest::new("Which acquisitions did Johnson & Johnson complete in 2022?")).unwrap();
    let a = &r.answer;
    assert!(!a.not_found);
    assert!(a.answer.contains("Abiomed"), "{}", a.answer);
    // the subsidiaries exhibit names companies the filing never says were acquired
    for subsidiary in ["Janssen", "Ethicon", "DePuy"] {
        assert!(!a.answer.contains(subsidiary), "{}", a.answer);
    }
    assert!(a.quote.as_deref().is_some_and(|q| q.contains("acquisition of Abiomed")), "{:?}", a.quote);
    assert!(!r.boxes.is_empty(), "the acquisition's sentence is boxed");
    assert!(r.boxes.iter().all(|b| b.page == a.citations[0].page));

    let r = lib.ask(&AskRequest::new("Why did Johnson & Johnson's cost of products sold increase in 2022?")).unwrap();
    let a = &r.answer;
    assert!(a.answer.contains("driven by"), "{}", a.answer);
    for cause in ["COVID-19 vaccine manufacturing exit", "Currency impacts", "Commodity inflation", "partially offset by Supply chain"] {
        assert!(a.answer.contains(cause), "{cause}: {}", a.answer);
    }
    // the introducing line and each bullet: boxed one by one
    assert!(r.boxes.len() >= 4, "{:?}", r.boxes);
    assert_eq!(a.support, lens_core::support::Support::Strong, "{:?}", a.support_reasons);

    // "is / has": yes or no, the sentence that names the thing asked, and its section
    let r = lib.ask(&AskRequest::new("Has Johnson & Johnson been involved in any litigation in 2022?")).unwrap();
    let a = &r.answer;
    assert!(a.answer.starts_with("Yes — "), "{}", a.answer);
    assert!(a.quote.as_deref().is_some_and(|q| q.contains("lawsuits") && a.answer.ends_with(q)), "{:?}", a.quote);
    assert!(!r.boxes.is_empty(), "the sentence is boxed");
    let section = r.cited[0].section.as_deref().unwrap_or_default().to_lowercase();
    assert!(section.contains("legal proceedings") || section.contains("contingencies"), "{section}");
}
