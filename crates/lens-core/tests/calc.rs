//! Worked answers on real statement pages.
mod common;
use common::*;
use lens_core::calc;
use lens_core::figures::table;
use lens_core::Library;

fn page_tables(lib: &Library, doc: &str, page: u32) -> Vec<table::Table> {
    let d = lib.document(doc).unwrap();
    let p = lib.store().page_of(&d, page).unwrap();
    let b = lib.store().page_boxes(&d, page).unwrap();
    table::tables(&p.text, &b)
}

fn cell(t: &table::Table, label: &str, year: i32, months: Option<u8>) -> String {
    let col = t.columns.iter().position(|c| c.year == year && c.months == months).unwrap_or_else(|| panic!("no column {year} {months:?}"));
    let row = t.rows.iter().find(|r| r.label == label).unwrap_or_else(|| panic!("no row {label}"));
    row.cells[col].as_ref().expect("a value").value.to_string()
}

#[test]
fn statement_tables_on_real_pages() {
    let (_d, lib) = lib_with(&["3M_2018_10K", "AMAZON_2017_10K", "AMCOR_2023Q2_10Q"]);
    // a 10-K cash-flow statement: three years, parentheses negative, the right year's column
    let t = &page_tables(&lib, "3M_2018_10K", 60)[0];
    assert_eq!(t.unit, "millions");
    assert_eq!(t.columns.iter().map(|c| c.year).collect::<Vec<_>>(), vec![2018, 2017, 2016]);
    assert_eq!(cell(t, "Purchases of property, plant and equipment (PP&E)", 2018, None), "-1577");
    assert_eq!(cell(t, "Purchases of property, plant and equipment (PP&E)", 2016, None), "-1420");
    assert_eq!(cell(t, "Net income including noncontrolling interest", 2017, None), "4869");
    // a balance sheet with the earlier year first
    let t = &page_tables(&lib, "AMAZON_2017_10K", 40)[0];
    assert_eq!(t.columns.iter().map(|c| c.year).collect::<Vec<_>>(), vec![2016, 2017]);
    assert_eq!(cell(t, "Total assets", 2017, None), "131310");
    assert_eq!(cell(t, "Inventories", 2016, None), "11461");
    // a 10-Q: three- and six-month columns of two years, "in millions, except per share data"
    let t = &page_tables(&lib, "AMCOR_2023Q2_10Q", 5)[0];
    assert_eq!(t.unit, "millions");
    assert_eq!(t.columns.iter().map(|c| (c.year, c.months)).collect::<Vec<_>>(), vec![(2022, Some(3)), (2021, Some(3)), (2022, Some(6)), (2021, Some(6))]);
    assert_eq!(cell(t, "Cost of sales", 2022, Some(6)), "-6024");
    assert_eq!(cell(t, "Net sales", 2021, Some(3)), "3507");
}

#[test]
fn worked_answers_on_real_filings() {
    let (_d, lib) = lib_with(&["3M_2018_10K", "AMAZON_2017_10K"]);
    let p60 = lens_core::PageRef::new("3M_2018_10K", 60);
    // a line item asked as an amount, traced to its cell
    let c = calc::work(&lib, &lib.read_question("What is the FY2018 capital expenditure amount (in USD millions) for 3M?"), std::slice::from_ref(&p60))
        .unwrap()
        .expect("a calculation");
    assert_eq!(c.result.as_deref(), Some("$1,577 million"), "{c:#?}");
    assert_eq!(c.operands.len(), 1);
    let o = &c.operands[0];
    assert_eq!((o.page.clone(), o.period.as_str(), o.value.as_str(), o.unit.as_str()), (p60.clone(), "FY2018", "-1577", "millions"));
    assert!(o.quote.starts_with("Purchases of property, plant and equipment"), "{}", o.quote);
    assert_eq!(o.boxes.len(), 2);
    assert_eq!(o.boxes[1].text, "(1,577)");
    assert!(o.boxes[0].r <= o.boxes[1].l, "the label box ends before the cell");

    // a line item's value asked in plain words, as a new user asks it: worked from the income
    // statement (the page given is the cash flow statement), not a line of a table read whole
    let q = lib.read_question("What was 3M's revenue in 2018?");
    let c = calc::work(&lib, &q, std::slice::from_ref(&p60)).unwrap().expect("a calculation");
    assert_eq!(c.result.as_deref(), Some("$32,765 million"), "{c:#?}");
    let r = lib.ask(&lens_core::ask::AskRequest::new("What was 3M's total revenue in 2018?")).unwrap();
    assert_eq!(r.answer.answer, "$32,765 million (revenue, FY2018)");
    assert_eq!(r.answer.support, lens_core::support::Support::Strong, "{:?}", r.answer.support_reasons);
    // a line item asked without a year or a figure's words stays the extractive answer's
    assert!(calc::work(&lib, &lib.read_question("What does 3M say about revenue recognition?"), std::slice::from_ref(&p60)).unwrap().is_none());

    // a ratio of two balances, found through the filing (the page given is not the balance sheet):
    // Amazon 2017 total current assets 60,197 / total current liabilities 57,883 = 1.04
    let c = calc::work(
        &lib,
        &lib.read_question("What is Amazon's FY2017 current ratio? Round your answer to two decimal places."),
        &[lens_core::PageRef::new("AMAZON_2017_10K", 1)],
    )
    .unwrap()
    .unwrap();
    assert_eq!(c.result.as_deref(), Some("1.04"), "{c:#?}");
    assert_eq!(c.operands.iter().map(|o| o.value.as_str()).collect::<Vec<_>>(), vec!["60197", "57883"]);

    // an operand the filing does not hold is named, and nothing is computed
    let c = calc::work(&lib, &lib.read_question("What is Amazon's FY2015 current ratio?"), &[lens_core::PageRef::new("AMAZON_2017_10K", 40)]).unwrap().unwrap();
    assert_eq!(c.result, None);
    assert_eq!(c.problem.as_deref(), Some("not found: total current assets, FY2015"));

    // questions that ask for no figure get no calculation
    assert!(calc::work(&lib, &lib.read_question("What drove the change in 3M's operating margin in FY2018?"), std::slice::from_ref(&p60)).unwrap().is_none());
}

#[test]
fn an_ask_for_a_metric_answers_with_the_calculation_and_logs_it() {
    let (_d, lib) = lib_with(&["3M_2018_10K"]);
    let r = lib
        .ask(&lens_core::ask::AskRequest::new("What is the FY2018 capital expenditure amount (in USD millions) for 3M? Use the cash flow statement."))
        .unwrap();
    assert_eq!(r.answer.found_by, lens_core::evidence::FoundBy::Calculation);
    assert!(r.answer.answer.contains("1,577"), "{}", r.answer.answer);
    assert_eq!(r.answer.citations, vec![lens_core::PageRef::new("3M_2018_10K", 60)]);
    assert!(r.boxes.iter().any(|b| b.page == 60 && b.rect.text == "(1,577)"), "{:?}", r.boxes);
    let logged = &lib.store().question_log(1).unwrap()[0];
    assert_eq!(logged.answer.calculation, r.answer.calculation, "the log keeps the worked calculation");
}

#[test]
fn members_of_a_segment_note_ranked_and_listed_from_the_whole_filing() {
    let (_d, lib) = lib_with(&["3M_2018_10K"]);
    // the pages read are the income statement; the segment note (p. 126) is found in the filing
    let p56 = lens_core::PageRef::new("3M_2018_10K", 56);
    let ask = |q: &str| calc::work(&lib, &lib.read_question(q), std::slice::from_ref(&p56)).unwrap().expect("a calculation");
    // ranked by a measure computed per segment: operating income over its own net sales
    let c = ask("Which 3M business segment had the highest operating margin in 2018?");
    assert_eq!(c.verdict.as_deref(), Some("Electronics and Energy"), "{c:#?}");
    assert!(c.result.as_deref().is_some_and(|r| r.contains("37.6%")), "{:?}", c.result);
    assert!(c.warning.is_none(), "the note's heads name the measures and it prints the total");
    assert!(c.operands.iter().all(|o| o.page == lens_core::PageRef::new("3M_2018_10K", 126) && o.boxes.len() == 2), "{:#?}", c.operands);
    // a figure of each segment asked: every segment's, corporate and the total left out
    let c = ask("What was 3M's operating income for each of its business segments in 2018?");
    assert_eq!(c.shape, "list");
    assert_eq!(
        c.result.as_deref(),
        Some("Industrial 2,737 million; Safety and Graphics 1,720 million; Health Care 1,799 million; Electronics and Energy 2,055 million; Consumer 1,027 million")
    );
    assert_eq!(c.operands.len(), 5);
}

/// A figure of a part of the filer ("the revenue of 3M's Health Care segment") is the part's
/// row of the segment note, not the company's line item; a question of the company alone is
/// unchanged.
#[test]
fn a_parts_figure_is_read_from_the_members_table() {
    let (_d, lib) = lib_with(&["3M_2018_10K"]);
    let p56 = lens_core::PageRef::new("3M_2018_10K", 56);
    let ask = |q: &str| calc::work(&lib, &lib.read_question(q), std::slice::from_ref(&p56)).unwrap().expect("a calculation");
    let c = ask("What was the operating income of 3M's Health Care segment in 2018?");
    assert_eq!(c.result.as_deref(), Some("$1,799 million"), "{c:#?}");
    assert!(c.metric.contains("Health Care"), "{}", c.metric);
    assert_eq!(c.operands.len(), 1);
    assert_eq!(c.operands[0].boxes.len(), 2);
    let whole = ask("What was 3M's operating income in 2018?");
    assert!(!whole.metric.contains("Health Care") && whole.result.as_deref() != Some("$1,799 million"), "{whole:#?}");
}
