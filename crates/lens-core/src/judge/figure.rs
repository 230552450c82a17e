//! Rules over the figures an answer states: printed on the page and on the line, a figure
//! given where one is asked, of the kind asked (a count, a ratio).

use super::{fired, Claim, Fired};
use crate::evidence::{numbers, same_number, FoundBy};
use crate::text::tokenize;
use regex::Regex;
use std::sync::LazyLock;

pub(super) fn words_not_found(c: &Claim) -> Option<Fired> {
    (c.found_by == FoundBy::None).then(Vec::new)
}

/// The answer's figures (years aside) and how many of them the page does not print.
fn stated_and_missing(c: &Claim) -> (Vec<f64>, usize) {
    let page: Vec<f64> = numbers(c.page_text).into_iter().map(|(n, ..)| n.value).collect();
    let stated: Vec<f64> = numbers(c.answer).into_iter().filter(|(n, ..)| !n.is_year).map(|(n, ..)| n.value).collect();
    let missing = stated.iter().filter(|v| !page.iter().any(|p| same_number(**v, *p, 0.005))).count();
    (stated, missing)
}

/// Every figure the answer states is printed on the page (a computed result is not).
pub(super) fn figures_off_page(c: &Claim) -> Option<Fired> {
    if c.worked() {
        return None;
    }
    let (stated, missing) = stated_and_missing(c);
    (missing > 0).then(|| vec![missing.to_string(), stated.len().to_string()])
}

/// ... and on the line the answer rests on: a model's "13.5%" citing a sentence that states no
/// figure took it from elsewhere on the page (another year's requirement).
pub(super) fn figures_off_line(c: &Claim) -> Option<Fired> {
    let line = c.quote.filter(|l| *l != c.answer)?;
    if c.worked() {
        return None;
    }
    let (stated, missing) = stated_and_missing(c);
    let on_line: Vec<f64> = numbers(line).into_iter().map(|(n, ..)| n.value).collect();
    (missing == 0 && !stated.is_empty() && !stated.iter().any(|v| on_line.iter().any(|p| same_number(*v, *p, 0.005)))).then(Vec::new)
}

/// Whether the number at byte `at` of `text` is the day of a date: right after a month's name
/// ("June 15, 2020", "Dec. 31").
pub(super) fn is_date_day(text: &str, at: usize) -> bool {
    let before = text[..at].trim_end().trim_end_matches('.').to_lowercase();
    let word = before.rsplit(|c: char| !c.is_alphabetic()).next().unwrap_or("");
    word.len() >= 3 && crate::figures::table::MONTHS.iter().any(|m| m.starts_with(word))
}

/// A figure asked, a line without one given ("How many appendices?" answered by a heading); a
/// number that is part of a code ("101.INS") or a date's day is no figure.
pub(super) fn no_figure(c: &Claim) -> Option<Fired> {
    if c.worked() || !c.question.asks_figure() {
        return None;
    }
    let years_count = c.question.wording().lower.contains("year");
    let in_code = |end: usize| c.answer[end..].strip_prefix('.').is_some_and(|r| r.starts_with(char::is_alphabetic));
    let any = numbers(c.answer).iter().any(|(n, at, end)| (!n.is_year || years_count) && !in_code(*end) && !is_date_day(c.answer, *at));
    (!any).then(Vec::new)
}

/// A count or an amount asked, only shares of something stated ("How many shares ...
/// outstanding?" answered by "... anywhere from 0% to 200% of each performance share
/// granted"; "pharmaceutical sales" by "a net negative impact of 0.1% on ... sales growth").
pub(super) fn only_percents(c: &Claim) -> Option<Fired> {
    // an amount asked: a line item the catalogue reads as an amount ("pharmaceutical sales",
    // "revenue"), not a rate, a per-share figure or a change of it
    static CATALOGUE: LazyLock<crate::figures::catalogue::Catalogue> = LazyLock::new(crate::figures::catalogue::Catalogue::builtin);
    let lower = &c.question.wording().lower;
    let amount_item =
        c.question.measure.as_deref().and_then(|m| CATALOGUE.items.get(m)).is_some_and(|i| i.unit.is_none_or(|u| u == crate::figures::catalogue::Unit::Amount));
    let rate_words = ["percent", "%", "rate", "margin", "ratio", "share", "growth", "change", "grow", "increase", "decrease", "decline"];
    let amount_asked = amount_item && !c.question.asks_percent() && !c.question.asks_ratio() && !rate_words.iter().any(|w| lower.contains(w));
    if c.worked() || !c.question.asks_figure() || !(lower.contains("how many") || amount_asked) {
        return None;
    }
    let figures: Vec<(usize, usize)> = numbers(c.answer).into_iter().filter(|(n, ..)| !n.is_year).map(|(_, at, end)| (at, end)).collect();
    let percent_at = |(at, end): (usize, usize)| {
        let rest = c.answer[end..].trim_start().to_lowercase();
        c.answer[at..end].ends_with('%') || rest.starts_with('%') || rest.starts_with("percent")
    };
    (!figures.is_empty() && figures.iter().all(|&f| percent_at(f))).then(Vec::new)
}

/// Whether a text states a ratio-like figure: a percentage, a multiple ("3.2x") or a number with
/// decimals below 100 ("1.02", "0.715").
pub fn states_ratio(text: &str) -> bool {
    static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\d\s*%|\d(?:\.\d+)?x\b|\bpercent").expect("valid regex"));
    RE.is_match(text) || tokenize(text).iter().any(|t| t.is_number && t.text.contains('.') && t.text.parse::<f64>().is_ok_and(|v| v.abs() < 100.0))
}

/// A ratio asked, whole amounts quoted ("current liabilities to total liabilities?" answered by
/// the row "Total current liabilities 29,441 24,844").
pub(super) fn ratio_as_amounts(c: &Claim) -> Option<Fired> {
    (!c.worked() && c.question.asks_ratio() && !states_ratio(c.answer)).then(fired).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_day_and_a_ratio_are_read() {
        assert!(is_date_day("on Dec. 31, 2020", 8) && is_date_day("June 15", 5) && !is_date_day("paid 15", 5));
        for t in ["Current ratio 1.02", "Operating income margin 19.1 % 20.8 %", "Net debt to EBITDA 2.5x", "0.715"] {
            assert!(states_ratio(t), "{t}");
        }
        for t in ["Total current liabilities 29,441 24,844", "Cash and equivalents $ 9,889 $ 8,348", "in 2021"] {
            assert!(!states_ratio(t), "{t}");
        }
    }
}
