//! The support label an answer is shown with, and the line predicates other parts read: a
//! table row ([`is_table_row`]), a label ([`is_label`]), legal boilerplate ([`is_boilerplate`]),
//! the share of the question's words a text holds ([`term_share`]), and a question off the
//! library's topic ([`off_topic`]). Which label an answer gets, and why, is the rule book's
//! ([`crate::judge`]). Pure; tests beside.

use crate::evidence::numbers;
use crate::question::Question;
use crate::text::tokenize;
use regex::Regex;
use std::collections::HashSet;
use std::sync::LazyLock;

named_enum!(
    /// How well the cited page supports the answer.
    #[derive(Default)]
    pub enum Support("support") {
        Strong = "strong",
        Weak = "weak",
        #[default]
        None = "none",
    }
);

/// Share of the question's content words the quoted line must hold.
pub const MIN_LINE_SHARE: f64 = 0.6;

/// Share of the question's content words below which the cited page is weak support.
pub const MIN_TERM_SHARE: f64 = 0.3;

/// Share of `terms` that occur in `text` (1.0 when there are none).
pub fn term_share(terms: &HashSet<String>, text: &str) -> f64 {
    if terms.is_empty() {
        return 1.0;
    }
    let toks: HashSet<String> = tokenize(text).into_iter().map(|t| t.text).collect();
    terms.iter().filter(|t| toks.contains(*t)).count() as f64 / terms.len() as f64
}

/// Whether a line is a table row: a short label followed by two or more figures.
pub fn is_table_row(line: &str) -> bool {
    let figures = numbers(line).iter().filter(|(n, ..)| n.salient && !n.is_year).count();
    let words = tokenize(line).into_iter().filter(|t| !t.is_number).count();
    figures >= 2 && words <= 10
}

/// Most words a line may have and still be a label ([`is_label`]).
pub const LABEL_MAX_WORDS: usize = 6;

/// Whether a line is a label rather than a statement: a heading, a table row's name or a list
/// entry ("Capital Safety Group EMEA France", "United States: State Activity", "Mtre Laurent
/// Nahmiash"): at most [`LABEL_MAX_WORDS`] words, no figure but years, no sentence end and no
/// auxiliary verb ("is", "was", "has", ...: "Paris is the capital of France" says something). Such a
/// line that holds the question's words names what was asked; it does not say it, so it is not a
/// supported answer.
pub fn is_label(line: &str) -> bool {
    const AUXILIARIES: [&str; 16] = ["is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "will", "would", "can", "may", "does", "did"];
    let line = line.trim();
    let words: Vec<String> = tokenize(line).into_iter().filter(|t| !t.is_number).map(|t| t.text).collect();
    let words_n = words.len();
    words_n > 0
        && words_n <= LABEL_MAX_WORDS
        && !words.iter().any(|w| AUXILIARIES.contains(&w.as_str()))
        && !numbers(line).iter().any(|(n, ..)| !n.is_year)
        && !line.ends_with(['.', '!', '?'])
}

/// Whether an answer is to a question off the library's topic: the question names nothing the
/// library holds (no company or document of it, none picked by hand: `named` is false) and the
/// line the answer rests on does not answer it: it holds less than [`MIN_LINE_SHARE`] of the
/// question's words, or it is a label ([`is_label`]) that merely names them. Such a best match
/// ("What is the capital of France?" answered from an exhibit's "Capital Safety Group EMEA
/// France") is shown as "Not found", with the pages read still listed.
pub fn off_topic(named: bool, question: &Question, line: &str) -> bool {
    !named && (term_share(&question.terms.iter().cloned().collect(), line) < MIN_LINE_SHARE || is_label(line))
}

/// Whether a paragraph is legal boilerplate (a form of note, an indenture's standard terms, a
/// signature block): such text never supports a figure or a fact asked about.
pub fn is_boilerplate(text: &str) -> bool {
    let markers = boilerplate_markers(text);
    markers >= 2 || (markers >= 1 && text.split_whitespace().count() > 60)
}

/// How many phrases of legal form text (`hereby`, `for value received`, `whereas` ...) `text`
/// holds.
pub fn boilerplate_markers(text: &str) -> usize {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\bfor value received\b|\bhereby\b|\bherein(?:after)?\b|\bhereof\b|\bhereto\b|\bhereunder\b|\bthereof\b|\bthereto\b|\bwhereas\b|\bin witness whereof\b|\bpursuant to (?:section|the terms)\b|\bthe undersigned\b|\bshall be deemed\b|\bnotwithstanding\b|\bforward-looking statements?\b|\bsafe harbor\b|\bpromises to pay\b").expect("valid regex")
    });
    let l = text.to_lowercase();
    RE.find_iter(&l).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::Question;

    fn q(s: &str) -> &'static Question {
        Box::leak(Box::new(Question::parse(s)))
    }

    #[test]
    fn off_topic_needs_both_no_named_document_and_no_words_on_the_line() {
        let qq = q("What is the capital of France?");
        assert!(off_topic(false, qq, "Subsidiaries: 3M France S.A.S."));
        assert!(!off_topic(true, qq, "Subsidiaries: 3M France S.A.S."), "a question naming a library document is answered");
        assert!(!off_topic(false, qq, "Paris is the capital of France"), "a line about the question is kept");
        // every word of the question on a label that only names them (3M's list of subsidiaries)
        assert!(off_topic(false, qq, "Capital Safety Group EMEA France"));
        assert!(!off_topic(true, qq, "Capital Safety Group EMEA France"), "a question naming the library is answered");
    }

    #[test]
    fn a_label_is_a_few_words_with_no_figure_verb_or_sentence_end() {
        for l in ["Capital Safety Group EMEA France", "United States: State Activity", "Mtre Laurent Nahmiash", "Net sales 2018"] {
            assert!(is_label(l), "{l}");
        }
        for l in [
            "Paris is the capital of France.",
            "Total current assets 8,802 10,539",
            "Purchases of property, plant and equipment (PP&E) (1,577)",
            "We manage our commercial operations through two operating segments",
        ] {
            assert!(!is_label(l), "{l}");
        }
    }

    #[test]
    fn legal_form_text_is_boilerplate_a_statement_is_not() {
        let note = "FOR VALUE RECEIVED, the undersigned, PEPSICO, INC., a North Carolina corporation (the \u{201c}Borrower\u{201d}), HEREBY PROMISES TO PAY to the order of the Lender the principal amount of the Revolving Credit Advances made pursuant to the Five-Year Credit Agreement dated as of May 26, 2023.";
        assert!(is_boilerplate(note));
        assert!(!is_boilerplate(
            "On May 26, 2023, PepsiCo entered into a new five-year unsecured revolving credit agreement which enables it to borrow up to $5.0 billion."
        ));
    }
}
