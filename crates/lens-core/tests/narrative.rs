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

/// A model answerer that only ever says "Yes" and cites nothing: what a small model often does.
struct BareYes;

impl lens_core::answer::Answerer for BareYes {
    fn kind(&self) -> lens_core::answer::AnswererKind {
        lens_core::answer::AnswererKind::Qwen
    }

    fn answer(&self, _: &lens_core::question::Question, _: &[lens_core::answer::PageInput]) -> lens_core::error::Result<lens_core::answer::Answer> {
        let mut a = lens_core::answer::Answer::not_found(self.kind(), 1.0);
        a.not_found = false;
        a.answer = "Yes".into();
        a.model = Some(lens_core::answer::ModelRun {
            model: "bare-yes".into(),
            device: "cpu".into(),
            prompt_tokens: 1,
            new_tokens: 1,
            prefill_tps: 1.0,
            decode_tps: 1.0,
            first_token_s: 0.0,
            reply: "Answer: Yes".into(),
            notes: Vec::new(),
        });
        Ok(a)
    }
}

#[test]
fn a_model_answerer_is_given_the_filings_list_and_yes_no_in_its_place() {
    let (_dir, lib) = lib_with(&["JOHNSON_JOHNSON_2022_10K"]);
    let said = |r: &lens_core::ask::AskResponse| r.notes.iter().chain(&r.details).any(|n| n.contains("taken from the filing's own lines"));

    // a list of the kind asked: the acquired company, boxed, and the reader told why
    let r = lib.ask_with(&AskRequest::new("Which acquisitions did Johnson & Johnson complete in 2022?"), &BareYes, &mut |_| true).unwrap();
    assert!(r.answer.answer.contains("Abiomed"), "{}", r.answer.answer);
    assert_eq!(r.answer.answerer, lens_core::answer::AnswererKind::Qwen);
    assert!(!r.boxes.is_empty());
    assert!(said(&r), "{:?} {:?}", r.notes, r.details);

    // a yes/no: the sentence that says so, not the bare "Yes"
    let r = lib.ask_with(&AskRequest::new("Has Johnson & Johnson been involved in any litigation in 2022?"), &BareYes, &mut |_| true).unwrap();
    assert!(r.answer.answer.starts_with("Yes — ") && r.answer.answer.contains("lawsuits"), "{}", r.answer.answer);

    // any other question is the model's to answer (a "why" of a measure is the filing's
    // sentence that says why, as a list is its items)
    let r = lib.ask_with(&AskRequest::new("Describe Johnson & Johnson's approach to talent in 2022."), &BareYes, &mut |_| true).unwrap();
    assert_eq!(r.answer.answer, "Yes");
    assert!(!said(&r));
}

/// A "why" answered by a sentence printed over two lines: the whole sentence, to its full stop,
/// green and boxed (it was cut at the line's end: "... partially offset by a decrease in").
#[test]
fn a_why_is_answered_by_the_whole_sentence_across_its_lines() {
    let (_dir, lib) = lib_with(&["GENERALMILLS_2022_10K"]);
    let r = lib.ask(&AskRequest::new("Why did General Mills' net sales increase 5 percent in fiscal 2022?")).unwrap();
    let a = &r.answer;
    assert_eq!(
        a.answer,
        "The 5 percent increase in net sales in fiscal 2022 reflects favorable net price realization and mix, partially offset by a decrease in contributions from volume growth."
    );
    assert_eq!(a.support, lens_core::support::Support::Strong, "{:?}", a.support_reasons);
    assert_eq!(a.citations[0].to_string(), "GENERALMILLS_2022_10K#19");
    assert!(r.boxes.len() >= 2, "each of its lines is boxed: {:?}", r.boxes);
}
