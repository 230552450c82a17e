//! Rules over the shape of the answer against the shape asked: yes or no, both periods of a
//! comparison, a change, a total, words not figures, the years and the company asked.

use super::words::WORDS;
use super::{fired, said, Claim, Fired};
use crate::evidence::numbers;
use crate::figures::catalogue::{has_words, norm};
use crate::question::{Operation, ValueType};
use crate::support::is_table_row;
use crate::text::tokenize;
use regex::Regex;
use std::sync::LazyLock;

/// A yes or no asked (or a choice), the answer's first word.
fn first_word(c: &Claim) -> String {
    crate::text::plain_words(c.answer).into_iter().next().unwrap_or_default()
}

fn asks_choice(c: &Claim) -> bool {
    matches!(c.question.asks, ValueType::YesNo | ValueType::Choice) && !c.worked()
}

fn yes_no_unsaid_on(c: &Claim) -> bool {
    let first = first_word(c);
    c.question.asks == ValueType::YesNo && first != "yes" && first != "no"
}

pub(super) fn yes_no_unsaid(c: &Claim) -> Option<Fired> {
    (asks_choice(c) && yes_no_unsaid_on(c)).then(Vec::new)
}

/// A comparison of two periods answered from one line (not a yes or no left unsaid).
pub(super) fn compare_one_line(c: &Claim) -> Option<Fired> {
    (asks_choice(c) && !yes_no_unsaid_on(c) && c.question.operation == Operation::Compare).then(Vec::new)
}

/// Whether a line says a figure is a change: a word of [`super::words::Words::change_words`]
/// (a short one whole, a longer one as a word's start).
pub(super) fn says_change(line: &str) -> bool {
    crate::text::plain_words(line).iter().any(|w| WORDS.change_words.iter().any(|c| if c.len() <= 4 { w == c } else { w.starts_with(c.as_str()) }))
}

/// A change asked, one line with one figure (amounts, not the days of dates) and no word of
/// change: a level, not the change.
pub(super) fn change_one_figure(c: &Claim) -> Option<Fired> {
    if c.question.asks != ValueType::Number || c.question.operation != Operation::Change || c.worked() {
        return None;
    }
    let figures = numbers(c.answer).into_iter().filter(|(n, ..)| n.salient && !n.is_year).count();
    (figures < 2 && !says_change(c.line())).then(Vec::new)
}

/// "The total amount PepsiCo may borrow under its agreements": a sum over several, which one
/// line states only when it says so.
pub(super) fn total_unsaid(c: &Claim) -> Option<Fired> {
    if c.question.asks != ValueType::Number || c.worked() || c.question.operation == Operation::Change || !c.question.asks_total() {
        return None;
    }
    let l = c.lower_line();
    (!WORDS.total_said.iter().any(|w| l.contains(w.as_str())) && !super::measure::sums_to_answer(c)).then(Vec::new)
}

/// A figure of each member asked ("net sales by segment"), and the answer is not a worked list
/// of the members' figures (a line, or one figure: a member's or the total).
pub(super) fn one_for_each(c: &Claim) -> Option<Fired> {
    let kind = c.question.per_member()?;
    (!c.not_found && c.calc_shape != Some("list")).then(|| vec![kind.to_string()])
}

pub(super) fn explanation_row(c: &Claim) -> Option<Fired> {
    (c.question.asks == ValueType::Sentence && c.question.operation == Operation::Narrative && is_table_row(c.line())).then(Vec::new)
}

/// Most words a quoted sentence may hold and be cut short without saying so: fewer is a
/// heading or a fragment, which other rules judge.
const CUT_MIN_WORDS: usize = 6;

/// An explanation asked, a sentence quoted that stops mid-clause ("... partially offset by a
/// decrease in"): it does not end as a sentence ends, so what it says is not all there.
pub(super) fn sentence_cut(c: &Claim) -> Option<Fired> {
    // (a cover page's lines are a fact above its caption, not a sentence)
    if c.worked() || c.filer_fact_held() || c.question.asks != ValueType::Sentence || c.question.operation != Operation::Narrative {
        return None;
    }
    let line = c.line().trim_end();
    // a list introduced by a colon ("driven by: ...") ends its items as they are printed
    let listed = line.contains(':') || line.contains(['•', '●', '▪', '◦', '\n']);
    if listed || is_table_row(line) || crate::support::is_label(line) || line.split_whitespace().count() < CUT_MIN_WORDS {
        return None;
    }
    (!line.ends_with(['.', '!', '?', ';', ':', '"', '\u{201d}', ')', '\u{2019}'])).then(|| vec![line.split_whitespace().last().unwrap_or("").to_string()])
}

/// Words asked, a table's figures given ("What are 3M's business segments?" answered by a
/// segment table's run of amounts).
pub(super) fn words_as_figures(c: &Claim) -> Option<Fired> {
    if c.worked() || c.question.operation != Operation::Narrative || !matches!(c.question.asks, ValueType::Sentence | ValueType::Name) {
        return None;
    }
    let line = c.line();
    let figures = numbers(line).iter().filter(|(n, ..)| n.salient && !n.is_year).count();
    let words = tokenize(line).into_iter().filter(|t| !t.is_number).count();
    (figures >= 6 && figures * 2 >= words).then(Vec::new)
}

/// The years a line names (1990-2059 as whole words: "fiscal 2016", "December 31, 2022",
/// "FY2017"), each once, in order.
pub fn years_named(line: &str) -> Vec<i32> {
    static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?:\b|fy|FY)((?:19|20)\d{2})\b").expect("valid regex"));
    let mut out: Vec<i32> = Vec::new();
    for c in RE.captures_iter(line) {
        if let Ok(y) = c[1].parse::<i32>() {
            if (1990..2060).contains(&y) && !out.contains(&y) {
                out.push(y);
            }
        }
    }
    out
}

/// The line names other years than the question: "What drove Adobe's revenue growth in
/// FY2017?" answered by "Revenue ... increased during fiscal 2016, as compared to fiscal 2015".
/// A table row that prints no year is about its columns' years ([`super::Lookups::row_years`]):
/// "maturing in 2023" answered by a 2021 balance sheet's row.
pub(super) fn other_years(c: &Claim) -> Option<Fired> {
    if c.worked() || c.years.is_empty() {
        return None;
    }
    let mut named = years_named(c.line());
    if let (true, Some(q), Some(p)) = (named.is_empty(), c.quote, c.cited) {
        named = c.lookups.row_years(p, q);
    }
    let show = |v: &[i32]| v.iter().map(|y| y.to_string()).collect::<Vec<_>>().join(", ");
    (!named.is_empty()
        && !named.iter().any(|y| c.years.contains(y))
        && !change_from_year_before(c.line(), &named, c.years)
        && !held_since(c.line(), &named, c.years))
    .then(|| vec![show(&named), show(c.years)])
}

/// A state that began in a year named and holds on ("President and Chief Executive Officer since
/// January 2020", for who held the office in 2022): about each year asked from then on.
fn held_since(line: &str, named: &[i32], asked: &[i32]) -> bool {
    static SINCE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\bsince\s+(?:(?:january|february|march|april|may|june|july|august|september|october|november|december)\s+(?:\d{1,2},\s+)?)?(\d{4})\b")
            .expect("since pattern")
    });
    let starts: Vec<i32> = SINCE.captures_iter(line).filter_map(|c| c[1].parse().ok()).collect();
    !starts.is_empty() && named.iter().all(|y| starts.contains(y)) && asked.iter().all(|a| starts.iter().any(|s| s <= a))
}

/// A change into the year asked, said from the year before alone ("The decrease in net revenue
/// from 2014 was due to ..." in the 2015 filing, for "Why did AMD's revenue decline in 2015?"):
/// each year named is the base of the change ("from", "over", "compared to", "versus" it), the
/// year after it asked.
fn change_from_year_before(line: &str, named: &[i32], asked: &[i32]) -> bool {
    static BASE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:from|over|versus|vs\.?|compared (?:to|with)|relative to)\s+(?:the\s+)?(?:fiscal\s+(?:year\s+)?|fy\s*)?(\d{4})\b")
            .expect("base pattern")
    });
    let bases: Vec<i32> = BASE.captures_iter(line).filter_map(|c| c[1].parse().ok()).collect();
    says_change(line) && named.iter().all(|y| bases.contains(y) && asked.contains(&(y + 1)))
}

/// A growth rate asked ("unit case volume growth"), levels quoted: no rate and no word of change.
pub(super) fn growth_as_levels(c: &Claim) -> Option<Fired> {
    if c.worked() || c.question.asks != ValueType::Number || !has_words(&c.question.wording().lower, "growth") {
        return None;
    }
    let line = c.line();
    let rate = line.contains('%') || line.to_lowercase().contains("percent");
    (!rate && !says_change(line)).then(Vec::new)
}

/// Whether a page is the parent company's own statement (or a note about it): "Parent Company",
/// "Condensed Financial Information of Registrant", "parent-only" in its first lines.
pub fn is_parent_only_page(page: &str) -> bool {
    let head = page.lines().take(8).collect::<Vec<_>>().join(" ");
    crate::question::asks_parent_only(&head) || norm(&head).contains("condensed financial information of registrant")
}

/// The parent company alone asked, a page that is not its statement quoted: the consolidated
/// figure is the group's.
pub(super) fn parent_only(c: &Claim) -> Option<Fired> {
    (c.question.asks_parent_only() && !is_parent_only_page(c.page_text)).then(fired).flatten()
}

/// The company's own measure asked ("adjusted operating income", "organic growth"), a line that
/// never says it quoted: the reported figure is another one.
pub(super) fn own_measure(c: &Claim) -> Option<Fired> {
    if c.worked() || c.question.asks != ValueType::Number {
        return None;
    }
    let q = c.question.wording().lower.replace("unadjusted", "");
    let l = c.lower_line();
    let w = WORDS.own_measure_words.iter().find(|w| has_words(&q, w) && !l.contains(w.as_str()))?;
    said([w])
}
