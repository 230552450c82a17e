//! The verifier's form checks: the stage of the ask phases between the answer and its label. A worked
//! answer carries the checks its calculation passed or failed ([`crate::calc::checks`]: type,
//! range, scale, periods, concept, readings); any other answer is checked here for its form
//! (`type`: a percent asked is a percent; `narrative`: a "why" answer states a cause, a list or
//! a yes/no rests on a sentence, never on a heading or a title). A failed check keeps the answer
//! from being shown as supported, and its detail is the reason shown. Pure: tests beside.

use super::words::WORDS;
use crate::answer::Answer;
use crate::figures::catalogue::{has_words, norm};
use crate::figures::rules::{Check, Rules};
use crate::question::{Operation, Question, ValueType};

/// Share of a yes/no question's words (the company's name aside) the line its answer rests on
/// must hold.
pub const YES_NO_LINE_SHARE: f64 = 0.75;

/// Whether a question asks why (or what drove) something.
pub fn asks_cause(q: &Question) -> bool {
    let l = &q.wording().norm;
    q.operation == Operation::Narrative && WORDS.cause_asks.iter().any(|w| l.starts_with(w.as_str()) || has_words(l, w))
}

/// Whether a line is a heading or a title rather than a sentence: no sentence end, and most of
/// its words capitalised ("Amcor Reports Fiscal 2023 Results and Raises Guidance"), or a label
/// ([`crate::support::is_label`]).
pub fn is_heading(line: &str) -> bool {
    let line = line.trim();
    if crate::support::is_label(line) {
        return true;
    }
    if line.ends_with(['.', '!', '?', ';']) {
        return false;
    }
    let words: Vec<&str> = line.split_whitespace().filter(|w| w.chars().next().is_some_and(char::is_alphabetic)).collect();
    if words.is_empty() || words.len() > 16 {
        return false;
    }
    let small = ["and", "or", "of", "the", "a", "an", "in", "on", "for", "to", "at", "by", "with", "from", "as"];
    let capital = words.iter().filter(|w| small.contains(w) || w.chars().next().is_some_and(char::is_uppercase)).count();
    capital * 10 >= words.len() * 8
}

/// `type` of an answer that is not computed: a percent asked, a figure with a percent given.
fn answer_type(q: &Question, a: &Answer) -> Check {
    if q.asks != ValueType::Number {
        return Check::not_run("type", "the question does not ask for a figure");
    }
    if q.asks_percent() && !(a.answer.contains('%') || a.answer.to_lowercase().contains("percent")) {
        return Check::fail("type", "the question asks for a percent and the answer states none");
    }
    if has_words(&q.wording().norm, "days") && !a.answer.to_lowercase().contains("day") {
        return Check::fail("type", "the question asks for a number of days and the answer states none");
    }
    let figures = figures_in(&a.answer);
    if figures > MAX_FIGURES {
        return Check::fail("type", format!("the answer is a stretch of a table ({figures} figures), not the figure asked: check the page"));
    }
    Check::pass("type", "the answer is of the type asked")
}

/// Most figures an answer to "what was X" may hold and still be the figure asked: a statement
/// row with its periods, or a row under its column heads, holds fewer; a stretch of a table
/// copied whole (seen: 3M's quarterly data, 50 figures, for "net sales in 2018") more.
const MAX_FIGURES: usize = 12;

/// The figures in a text: runs of digits (with their separators) standing as words.
fn figures_in(text: &str) -> usize {
    text.split(|c: char| c.is_whitespace() || matches!(c, '$' | '(' | ')' | '%' | ';'))
        .filter(|w| {
            let w = w.trim_matches(|c: char| matches!(c, ',' | '.' | ':'));
            !w.is_empty() && w.chars().any(|c| c.is_ascii_digit()) && w.chars().all(|c| c.is_ascii_digit() || matches!(c, ',' | '.' | '-' | '—'))
        })
        .count()
}

/// `narrative`: the line a sentence answer rests on says what was asked, in a sentence.
fn narrative(q: &Question, a: &Answer, rules: &Rules) -> Check {
    if q.operation != Operation::Narrative {
        return Check::not_run("narrative", "not a question asked in words");
    }
    let line = a.quote.as_deref().unwrap_or(&a.answer).trim();
    if a.model.is_some() && a.quote.is_none() {
        let first = crate::text::plain_words(&a.answer).into_iter().next().unwrap_or_default();
        if first == "yes" || first == "no" || a.answer.split_whitespace().count() < 4 {
            return Check::fail("narrative", "a bare yes or no with no sentence of the pages behind it: check the page");
        }
    }
    if q.is_search() {
        return Check::fail(
            "narrative",
            "the question is a few words with no question (a search): the sentence found may not be what is wanted, so say what is asked",
        );
    }
    // (a signature block's name and title answer who holds the office asked by their layout, a
    // cover page's lines the filer's address or state)
    let filer_fact_held = a.model.is_none()
        && (crate::officers::quote_holds(&q.text, a.quote.as_deref(), &a.answer) == Some(true)
            || crate::cover::quote_holds(&q.text, a.quote.as_deref(), &a.answer) == Some(true));
    if is_heading(line) && !filer_fact_held {
        return Check::fail(
            "narrative",
            format!("the answer rests on a heading or title (\"{}\"), not a sentence that says it", line.chars().take(100).collect::<String>()),
        );
    }
    if q.asks == ValueType::YesNo {
        // a yes or a no stands on a line that says what was asked, not on one about the
        // company's other business ("spinning off a segment?" answered from "two operating
        // segments")
        let names: String = q.companies.join(" ").to_lowercase();
        let terms: std::collections::HashSet<String> = q.terms.iter().filter(|t| !names.contains(t.as_str())).cloned().collect();
        let share = crate::support::term_share(&terms, line);
        if share < YES_NO_LINE_SHARE {
            return Check::fail(
                "narrative",
                format!("the yes or no rests on a line that holds {:.0}% of the question's words: it may be about something else", share * 100.0),
            );
        }
    }
    if asks_cause(q) {
        // the cause may be said anywhere in the answer's sentences
        let l = norm(&format!("{line} {}", a.answer));
        if line.split_whitespace().count() < 6 || !rules.causal_markers.iter().any(|m| has_words(&l, m)) {
            return Check::fail("narrative", "the question asks why, and the line given states no cause (no \"due to\", \"driven by\", \"because\" ...)");
        }
        return Check::pass("narrative", "the line states a cause");
    }
    let l = &q.wording().norm;
    if WORDS.list_asks.iter().any(|w| l.starts_with(w.as_str())) && crate::support::boilerplate_markers(line) > 0 {
        return Check::fail("narrative", "the line given is boilerplate, not the items asked");
    }
    if asks_items(l) && names_nothing(line, &q.companies) {
        return Check::fail("narrative", "the question asks which ones, and the line given names none (no name, no figure): check the page");
    }
    Check::pass("narrative", "the answer rests on a sentence")
}

/// Does a question (normalised) ask for things of a kind: a list start ("which", "what are"), or
/// "what" / "which" / "who" followed within two words by a plural ("What legal proceedings ...")?
fn asks_items(l: &str) -> bool {
    let words: Vec<&str> = l.split_whitespace().collect();
    let plural = |w: &&str| w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !["does", "this", "has", "was", "is"].contains(w);
    WORDS.list_asks.iter().any(|w| l.starts_with(w.as_str()))
        || matches!(words.first(), Some(&("what" | "which" | "who"))) && words.iter().skip(1).take(2).any(plural)
}

/// A line that names nothing: no word but the first starts with a capital, and no digit
/// ("Currently, we are involved in a number of legal proceedings."); the company's own name,
/// one of `companies`, names none of its things ("We market and sell our latest products under
/// the AMD trademark." for "What products does AMD sell?").
fn names_nothing(line: &str, companies: &[String]) -> bool {
    let company = |w: &str| {
        let w = w.trim_end_matches("'s").trim_end_matches("’s").to_lowercase();
        companies.iter().any(|c| c.to_lowercase().split(|ch: char| !ch.is_alphanumeric()).any(|p| p == w))
    };
    !line.chars().any(|c| c.is_ascii_digit())
        && !line.split_whitespace().skip(1).any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’');
            w.starts_with(char::is_uppercase) && !company(w)
        })
}

/// The checks of an answer: a worked answer's (made with its calculation), else its type and
/// form. None for "Not found".
pub fn verify(q: &Question, a: &Answer, rules: &Rules) -> Vec<Check> {
    if a.not_found {
        return Vec::new();
    }
    if let Some(c) = a.calculation.as_ref().filter(|c| c.result.is_some()) {
        return c.checks.clone();
    }
    vec![answer_type(q, a), narrative(q, a, rules)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::AnswererKind;
    use crate::pageref::PageRef;

    fn answer(text: &str, quote: Option<&str>) -> Answer {
        let mut a = Answer::not_found(AnswererKind::Extractive, 0.0);
        a.answer = text.into();
        a.quote = quote.map(str::to_string);
        a.not_found = false;
        a.citations = vec![PageRef::new("AMCOR_2023Q4_EARNINGS", 1)];
        a
    }

    fn get(v: &[Check], name: &str) -> Check {
        v.iter().find(|c| c.name == name).cloned().unwrap()
    }

    #[test]
    fn a_stretch_of_a_table_is_not_the_figure_asked() {
        let q = Question::parse("What was 3M's net sales in 2018?");
        let row = "Net sales $ 8,278 $ 8,390 $ 8,152 $ 7,945 $ 32,765";
        assert_eq!(get(&verify(&q, &answer(row, Some(row)), &Rules::builtin()), "type").passed, Some(true));
        let dump = format!("{row} Cost of sales 4,236 4,227 4,159 4,060 16,682 Net income 606 1,862 1,546 1,349 5,363");
        let c = get(&verify(&q, &answer(&dump, Some(&dump)), &Rules::builtin()), "type");
        assert_eq!(c.passed, Some(false), "{c:?}");
        assert!(c.detail.contains("15 figures"), "{}", c.detail);
        assert_eq!(figures_in("FY2018 (1,577) 3.0 % 2.5% $ 32,765. Note 20"), 5);
    }

    /// "What products does AMD sell?" answered green by "We market and sell our latest products
    /// under the AMD trademark.": the company's name is none of the things asked.
    #[test]
    fn the_companys_own_name_names_none_of_its_things() {
        let amd = ["amd".to_string()];
        assert!(names_nothing("We market and sell our latest products under the AMD trademark.", &amd));
        assert!(!names_nothing("We sell microprocessors, chipsets and GPUs under the AMD and Radeon brands.", &amd));
        assert!(!names_nothing("We market and sell our latest products under the AMD trademark.", &[]));
    }

    #[test]
    fn a_headline_is_never_the_reason() {
        let q = Question::parse("Why did Amcor raise its guidance in FY2023?");
        assert!(asks_cause(&q));
        let head = "Amcor Reports Fiscal 2023 Results and Raises Guidance";
        assert!(is_heading(head));
        let c = get(&verify(&q, &answer(head, Some(head)), &Rules::builtin()), "narrative");
        assert_eq!(c.passed, Some(false), "{c:?}");
        assert!(c.detail.contains("heading or title"));
        let because = "Guidance was raised primarily due to stronger volumes in healthcare packaging and lower raw material costs.";
        assert!(!is_heading(because));
        assert_eq!(get(&verify(&q, &answer(because, Some(because)), &Rules::builtin()), "narrative").passed, Some(true));
        // a sentence that states no cause
        let flat = "The company updated its guidance for the fiscal year in its earnings release.";
        assert_eq!(get(&verify(&q, &answer(flat, Some(flat)), &Rules::builtin()), "narrative").passed, Some(false));
    }

    /// A few words with no question ("3M debt repayments 2018") answered with a sentence that
    /// mentions them (seen: "The following debt tables reflect effective interest rates ...",
    /// three times in the fifteenth battery): not shown as supported.
    #[test]
    fn a_search_answered_with_a_sentence_is_not_supported() {
        let q = Question::parse("3M debt repayments 2018");
        assert!(q.is_search());
        let line = "During fiscal 2018 and 2017, the Company also repaid other, smaller long-term debt as it matured.";
        let c = get(&verify(&q, &answer(line, Some(line)), &Rules::builtin()), "narrative");
        assert_eq!(c.passed, Some(false), "{c:?}");
        assert!(c.detail.contains("a search"), "{c:?}");
        for asked in ["What is 3M's long-term debt in 2018?", "Describe 3M's long-term debt in 2018", "3M long-term debt 2018?", "list 3M's debt"] {
            assert!(!Question::parse(asked).is_search(), "{asked}");
        }
    }

    #[test]
    fn a_which_answer_naming_nothing_fails() {
        let q = Question::parse("What legal proceedings is Boeing involved in as of FY2022?");
        let vague = "Currently, we are involved in a number of legal proceedings.";
        let c = get(&verify(&q, &answer(vague, Some(vague)), &Rules::builtin()), "narrative");
        assert_eq!(c.passed, Some(false), "{c:?}");
        assert!(c.detail.contains("names none"), "{c:?}");
        let named = "In 2022 the Company was named in lawsuits about the 737 MAX and the KC-46A Tanker program.";
        assert_eq!(get(&verify(&q, &answer(named, Some(named)), &Rules::builtin()), "narrative").passed, Some(true));
        // a question about one thing ("What industry ...?") is not asking which ones
        let q = Question::parse("What industry does Boeing primarily operate in?");
        let line = "We are the largest aerospace company and a leading manufacturer of commercial jetliners.";
        assert_eq!(get(&verify(&q, &answer(line, Some(line)), &Rules::builtin()), "narrative").passed, Some(true));
    }

    #[test]
    fn a_yes_on_a_line_about_something_else_fails() {
        let q = Question::parse("As of Q2'2023, is Pfizer spinning off any large business segments?").with_companies(vec!["Pfizer".into()]);
        let line = "We manage our commercial operations through two operating segments, each led by a single manager: Biopharma and Business Innovation.";
        let c = get(&verify(&q, &answer(&format!("Yes — {line}"), Some(line)), &Rules::builtin()), "narrative");
        assert_eq!(c.passed, Some(false), "{c:?}");
        let line = "In the second quarter of 2023 Pfizer completed spinning off its large consumer business segments into a separate company.";
        assert_eq!(get(&verify(&q, &answer(&format!("Yes — {line}"), Some(line)), &Rules::builtin()), "narrative").passed, Some(true));
    }

    #[test]
    fn a_percent_asked_and_none_given_fails_and_a_figure_question_is_not_a_narrative() {
        let q = Question::parse("What was Best Buy's FY2019 gross margin in percent?");
        let a = answer("Cost of sales 32,918", Some("Cost of sales 32,918"));
        let v = verify(&q, &a, &Rules::builtin());
        assert_eq!(get(&v, "type").passed, Some(false));
        assert_eq!(get(&v, "narrative").passed, None, "neither passed nor failed");
        let a = answer("Gross profit rate 23.0%", Some("Gross profit rate 23.0%"));
        assert_eq!(get(&verify(&q, &a, &Rules::builtin()), "type").passed, Some(true));
        assert!(verify(&q, &Answer::not_found(AnswererKind::Extractive, 0.0), &Rules::builtin()).is_empty());
    }
}
