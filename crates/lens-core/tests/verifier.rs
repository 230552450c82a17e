//! The verifier's checks on real filings: what is refused, what is found instead, and that a
//! failed check is said and never shown green.
mod common;
use common::*;
use lens_core::ask::{AskRequest, AskResponse};
use lens_core::support::Support;
use lens_core::Library;

fn ask(lib: &Library, q: &str, docs: &[&str]) -> AskResponse {
    let mut req = AskRequest::new(q);
    req.docs = docs.iter().map(|d| d.to_string()).collect();
    lib.ask(&req).unwrap()
}

fn failed<'a>(r: &'a AskResponse, name: &str) -> Option<&'a lens_core::figures::rules::Check> {
    r.answer.checks.iter().find(|c| c.name == name && c.failed())
}

#[test]
fn impossible_values_wrong_line_items_and_the_wrong_type_are_never_green() {
    let (dir, lib) = lib_with(&["AMCOR_2023_10K", "3M_2018_10K", "NIKE_2019_10K"]);

    // Amcor prints cost of sales in parentheses: read as its size, the margin is 18.5%
    let r = ask(&lib, "What is Amcor's FY2023 gross margin in percent?", &[]);
    let c = r.answer.calculation.as_ref().expect("a worked answer");
    assert_eq!(c.result.as_deref(), Some("18.5%"), "{}", c.display);
    assert!(failed(&r, "range").is_none(), "{:?}", r.answer.checks);

    // Nike: capex over revenue from the income statement's revenues, not "Sales of short-term
    // investments" (which only begins with a name of revenue)
    let r = ask(&lib, "What is Nike's FY2019 capital expenditure as a % of revenue?", &[]);
    let c = r.answer.calculation.as_ref().expect("a worked answer");
    assert_eq!(c.result.as_deref(), Some("2.9%"), "{}", c.display);
    assert!(c.operands.iter().all(|o| !o.read.row.starts_with("Sales of")), "{:?}", c.operands);

    // 3M's dividends are the dividends paid, never the cash balance
    let r = ask(&lib, "How much did 3M pay in cash dividends in FY2018 in USD millions?", &[]);
    let c = r.answer.calculation.as_ref().expect("a worked answer");
    assert_eq!((c.measure.as_deref(), c.result.as_deref()), (Some("dividends_paid"), Some("$3,193 million")), "{}", c.display);
    assert!(c.operands.iter().all(|o| !o.read.row.to_lowercase().contains("cash equivalents")));

    // 3M's revenue growth is the growth at FY2018, not the growth of the growth
    let r = ask(&lib, "What is 3M's revenue growth from FY2017 to FY2018 in percent?", &[]);
    assert_eq!(r.answer.calculation.as_ref().and_then(|c| c.result.as_deref()), Some("3.5%"));

    // a percent asked and a row of amounts given: said, never green
    let r = ask(&lib, "What percentage of 3M's FY2018 net sales came from the Safety and Graphics segment?", &[]);
    if !r.answer.answer.contains('%') {
        assert_ne!(r.answer.support, Support::Strong);
        assert!(failed(&r, "type").is_some_and(|c| c.detail.contains("asks for a percent")), "{:?}", r.answer.checks);
    }

    // the gross margin Amcor prints is read as printed
    let r = ask(&lib, "What is Amcor's FY2023 gross margin in percent?", &["AMCOR_2023_10K"]);
    let c = r.answer.calculation.as_ref().expect("a worked answer");
    assert_eq!((c.result.as_deref(), c.formula.ends_with("(as printed)")), (Some("18.5%"), true), "{c:#?}");

    // a library whose catalogue reads cost of sales with its sign (and works the margin from
    // its parts, not as printed): the impossible margin is refused and said in the user's words
    drop(lib);
    std::fs::write(
        dir.path().join("metrics.json"),
        r#"{"items": {"cogs": {"names": ["cogs", "cost of sales"], "labels": ["cost of sales", "cost of goods sold"]}},
            "metrics": {"gross_margin": {"names": ["gross margin", "gross profit margin"], "formula": "(revenue - cogs) / revenue", "unit": "percent"}}}"#,
    )
    .unwrap();
    let lib = Library::open(dir.path()).unwrap();
    let r = ask(&lib, "What is Amcor's FY2023 gross margin in percent?", &["AMCOR_2023_10K"]);
    assert_eq!(r.answer.calculation.as_ref().and_then(|c| c.result.as_deref()), Some("181.5%"));
    assert_eq!(r.answer.support, Support::Weak);
    let range = failed(&r, "range").expect("the range check fails");
    assert!(range.detail.contains("181.5% is not possible") && range.detail.contains("100% of revenue"), "{}", range.detail);
    assert!(r.answer.support_reasons.contains(&range.detail), "the failed check is the reason shown");
}

#[test]
fn a_nil_printed_under_a_total_is_passed_over_on_a_real_filing() {
    // MGM's FY2020 net income: a row printed "—" on page 68 (a statement of equity's column
    // where nothing moved) is passed over, since net income is a total never printed as nil
    // (once refused by the scale check and put aside; now never read), and the net loss is read:
    // the company's own share ("Net income (loss) attributable to MGM Resorts International"),
    // not the total with the noncontrolling interests' (-$1,320 million)
    let (_d, lib) = lib_with(&["MGMRESORTS_2020_10K"]);
    let r = ask(&lib, "What is MGM Resorts' FY2020 net income in USD millions?", &["MGMRESORTS_2020_10K"]);
    let c = r.answer.calculation.as_ref().expect("a worked answer");
    assert_eq!(c.result.as_deref(), Some("-$1,033 million"), "{}", c.display);
    assert!(c.operands.iter().all(|o| o.page.page != 68 && o.value != "0"), "{:?}", c.operands);
    assert!(!lens_core::calc::checks::any_failed(&r.answer.checks), "{:?}", r.answer.checks);
}

#[test]
fn a_quarter_is_never_read_for_a_fiscal_year_and_a_headline_never_answers_why() {
    let (_d, lib) = lib_with(&["JOHNSON_JOHNSON_2022Q4_EARNINGS", "AMCOR_2023Q4_EARNINGS"]);
    // the release prints the fourth quarter and the full year under the same year heads
    let r = ask(&lib, "What is Johnson & Johnson's FY2022 revenue in USD millions?", &["JOHNSON_JOHNSON_2022Q4_EARNINGS"]);
    let c = r.answer.calculation.as_ref().expect("a worked answer");
    assert_eq!(c.result.as_deref(), Some("$94,943 million"), "{}", c.display);
    assert!(c.operands.iter().all(|o| o.read.months != Some(3)), "{:?}", c.operands);
    let g = ask(&lib, "What is Johnson & Johnson's revenue growth from FY2021 to FY2022 in percent?", &["JOHNSON_JOHNSON_2022Q4_EARNINGS"]);
    let c = g.answer.calculation.as_ref().expect("a worked answer");
    assert_eq!(c.result.as_deref(), Some("1.2%"), "{}", c.display);
    assert!(g.answer.checks.iter().any(|k| k.name == "periods" && k.passed == Some(true)), "{:?}", g.answer.checks);

    // a why asked of an earnings release: the answer is a sentence that states a cause, or it
    // is not green
    let w = ask(&lib, "Why did Amcor raise its guidance?", &["AMCOR_2023Q4_EARNINGS"]);
    if w.answer.support == Support::Strong {
        let line = w.answer.quote.clone().unwrap_or_else(|| w.answer.answer.clone());
        assert!(!lens_core::judge::form::is_heading(&line), "a heading shown green: {line}");
        assert!(w.answer.checks.iter().any(|k| k.name == "narrative" && k.passed == Some(true)));
    }
}

#[test]
fn a_reopened_answer_shows_the_label_it_was_shown_and_an_older_entry_says_it_is_judged_again() {
    use lens_core::answer::{Answer, AnswererKind};
    use lens_core::log::{LogEntry, Shown};
    let lib = Library::in_memory().unwrap();
    let mut a = Answer::not_found(AnswererKind::Extractive, 1.0);
    a.answer = "Total current assets 16,525".into();
    a.not_found = false;
    a.citations = vec![lens_core::PageRef::new("NIKE_2019_10K", 40)];
    a.support = Support::Strong;
    let question = "What were Nike's total current assets at the end of FY2019?";
    let entry = |shown: Option<Shown>| LogEntry {
        id: 0,
        time: String::new(),
        question: question.into(),
        scope: Vec::new(),
        pages: a.citations.clone(),
        answer: a.clone(),
        retrieve_ms: 1.0,
        retriever: Default::default(),
        feedback: None,
        feedback_note: None,
        cancelled: false,
        shown,
        asked_by: None,
        feedback_by: None,
        feedbacks: Vec::new(),
    };
    let shown = Shown {
        support: Support::Strong,
        support_reasons: Vec::new(),
        support_rules: Vec::new(),
        checks: vec![lens_core::figures::rules::Check::pass("type", "the answer is of the type asked")],
        question: lib.read_question(question).with_companies(vec!["nike".into()]),
        notes: vec!["searched NIKE_2019_10K".into()],
        follow_up: None,
    };
    let id = lib.store().log_question(&entry(Some(shown.clone()))).unwrap();
    let r = lib.reopen(id).unwrap();
    assert_eq!(r.answer.support, Support::Strong, "the label shown when asked, though the page is gone now");
    assert_eq!(r.answer.checks, shown.checks);
    assert_eq!(r.question.reading, shown.question.reading, "the reading keeps the company");
    assert!(r.notes.iter().any(|n| n == "searched NIKE_2019_10K"), "{:?}", r.notes);
    // an entry from before the record was kept is judged again, and says so
    let old = lib.store().log_question(&entry(None)).unwrap();
    let r = lib.reopen(old).unwrap();
    assert_ne!(r.answer.support, Support::Strong);
    assert!(r.notes.iter().any(|n| n.contains("logged before the app kept what it showed")), "{:?}", r.notes);
}
