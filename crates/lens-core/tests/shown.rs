//! What a user sees in an answer, on real filings: figures named by their period, more pages
//! read never losing an answer found with fewer, company names and aliases as printed, page
//! labels, and notes in a user's words.
mod common;
use common::*;
use lens_core::ask::AskRequest;

#[test]
fn a_statement_row_names_its_years_and_more_pages_never_lose_an_answer() {
    let (_dir, lib) = lib_with(&["NIKE_2019_10K", "MICROSOFT_2023_10K", "JOHNSON_JOHNSON_2023Q2_EARNINGS", "3M_2018_10K"]);
    // the company as the filing writes it, not as its file name spells it ("Johnson Johnson")
    assert_eq!(lib.document("JOHNSON_JOHNSON_2023Q2_EARNINGS").unwrap().company.as_deref(), Some("Johnson & Johnson"));
    assert_eq!(lib.document("3M_2018_10K").unwrap().company.as_deref(), Some("3M"));

    // the balance sheet's row, each figure with its year and unit, the year asked first; the
    // quote (what is boxed) stays the row as printed
    // ("what were …" is now the calculator's: one figure, traced to its cell)
    let r = lib.ask(&AskRequest::new("What were Nike's total current assets at the end of FY2019?")).unwrap();
    assert_eq!(r.answer.answer, "$16,525 million (total current assets, FY2019)", "the year belongs in the answer");
    let r = lib.ask(&AskRequest::new("What are Nike's total current assets at the end of FY2019?")).unwrap();
    assert_eq!(r.answer.answer, "Total current assets — FY2019: $16,525 million; FY2018: $15,134 million");
    assert_eq!(r.answer.quote.as_deref(), Some("Total current assets 16,525 15,134"));
    assert!(!r.boxes.is_empty());
    // the page prints 52 in its footer: shown beside its PDF index
    assert_eq!(r.cited[0].shown, "p. 52 (PDF page 54)");

    // five pages read keep the answer three found (it was "Not found" with five)
    let mut req = AskRequest::new("Did Microsoft's debt go up between FY2022 and FY2023?");
    let three = lib.ask(&req).unwrap();
    assert!(!three.answer.not_found, "{}", three.answer.answer);
    req.k = 5;
    let five = lib.ask(&req).unwrap();
    assert_eq!(five.answer.answer, three.answer.answer);
    assert_eq!(five.answer.citations, three.answer.citations);

    // the company as its release prints it, the & kept; aliases a user knows, no glued ones
    let views = lib.document_views().unwrap();
    let jnj = views.iter().find(|v| v.doc.id == "JOHNSON_JOHNSON_2023Q2_EARNINGS").unwrap();
    assert_eq!(jnj.display_name.as_deref(), Some("Johnson & Johnson"));
    let shown: Vec<String> = lib.aliases_shown().unwrap().into_iter().filter(|(_, d, _)| d == "JOHNSON_JOHNSON_2023Q2_EARNINGS").map(|(a, _, _)| a).collect();
    assert_eq!(shown.first().map(String::as_str), Some("Johnson & Johnson"), "{shown:?}");
    assert!(shown.contains(&"J&J".to_string()) && shown.contains(&"JNJ".to_string()), "{shown:?}");
    assert!(!shown.iter().any(|a| a.contains("johnsonjohnson")), "{shown:?}");
}
