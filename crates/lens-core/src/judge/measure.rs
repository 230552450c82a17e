//! Rules over a figure's line: it names the measure asked (every word of it, as its subject, not
//! with another item), it is one row, and its figure is the period's reported level (not the
//! law's rate, not pending, not after tax, not a change).

use super::words::{holds, WORDS};
use super::{said, Claim, Fired};
use crate::figures::catalogue::has_words;
use crate::figures::table::MONTHS;
use crate::question::{Operation, Question, ValueType};
use crate::text::tokenize;
use regex::Regex;
use std::sync::LazyLock;

/// Most words a quoted line for a figure may run before its first figure (a year aside): a row's
/// label, a sentence's opening; more is a table's column heads.
const LEAD_WORDS: usize = 20;

/// A word's first six letters: how a measure's words are matched ("interest" is not
/// "International", "liabilities" is "liability").
pub(super) fn stem(w: &str) -> String {
    w.chars().take(6).collect()
}

/// Whether a word is a year a filing's columns head ("2018"): neither a figure nor a label's word.
fn is_year(t: &str) -> bool {
    t.len() == 4 && t.parse::<u32>().is_ok_and(|y| (1990..2060).contains(&y))
}

/// The first word of the measure a figure question asks for, its company names and years
/// aside: "What were AMD's dividends declared per share in FY2015?" -> "dividends".
pub(super) fn measure_head(q: &Question) -> Option<String> {
    let mut companies: Vec<String> = q.companies.iter().flat_map(|c| crate::text::plain_words(c)).collect();
    // a possessor is the company, named or not ("AMD's dividends")
    let pieces: Vec<&str> = q.wording().lower.split("'s ").collect();
    companies.extend(
        pieces[..pieces.len() - 1].iter().filter_map(|head| head.split_whitespace().last()).map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string()),
    );
    q.terms
        .iter()
        .find(|t| {
            !companies.contains(t)
                && !holds(&WORDS.not_a_head, t)
                && !t.chars().any(|c| c.is_ascii_digit())
                && t.chars().all(|c| c.is_alphabetic() || c == '-')
                && t.len() > 2
        })
        .cloned()
}

/// The words of the measure a figure question names after its possessor, up to the period or
/// a preposition ("What was MGM Resorts's operating lease expense in FY2018?" -> operating,
/// lease, expense), words that name no measure aside; empty without a possessor.
pub(super) fn measure_phrase(q: &Question) -> Vec<String> {
    let stops: Vec<&str> = WORDS.phrase_stops.iter().map(String::as_str).collect();
    let Some(phrase) = crate::question::after_possessor(&q.wording().lower, &stops) else { return Vec::new() };
    // a compound's first part names it ("stock-based" -> "stock": "stock incentive plans")
    phrase
        .split_whitespace()
        .filter_map(|w| crate::text::plain_words(w).into_iter().next())
        .filter(|w| !holds(&WORDS.not_a_head, w) && w.len() > 2 && !w.chars().any(|c| c.is_ascii_digit()) && !holds(&WORDS.not_in_phrase, w))
        .collect()
}

/// The measure's words a line must name: the phrase after the possessor, else the head word.
fn named(q: &Question) -> Vec<String> {
    let phrase = measure_phrase(q);
    if phrase.is_empty() {
        measure_head(q).into_iter().collect()
    } else {
        phrase
    }
}

/// A table row's label: the words before its figures, when two figures of its columns follow
/// them ("Total liabilities and equity $ 379,680 $ 366,596" -> "Total liabilities and equity").
/// A sentence ("For the fiscal years ended May 31, 2023, 2022 ...") is no row.
pub(super) fn row_label(line: &str) -> Option<&str> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^([A-Za-z][^\d$()]*?)\s+(\(?\$?\s?\d[\d,]*(?:\.\d+)?\)?)\s+(\(?\$?\s?\d[\d,]*(?:\.\d+)?\)?)(?:\s|$)").expect("valid regex")
    });
    let c = RE.captures(line.trim())?;
    if [2, 3].iter().any(|&i| c.get(i).is_some_and(|m| is_year(m.as_str().trim_end_matches(',')))) {
        return None;
    }
    c.get(1).map(|m| m.as_str()).filter(|s| s.split_whitespace().count() <= 10)
}

/// The subject of a line that states a figure ("Other operating expense, net was $171 million
/// ..." -> "Other operating expense, net"), when it says "was", "were", "totaled" or "amounted
/// to" before its first figure.
fn subject_of(line: &str) -> Option<&str> {
    static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)^(.*?)\s+(?:was|were|totaled|totalled|amounted to)\s+\(?\$?\s?\d").expect("valid regex"));
    RE.captures(line).and_then(|c| c.get(1)).map(|m| m.as_str()).filter(|s| s.split_whitespace().count() <= 40)
}

/// How many table rows a quoted text runs over: runs of words each followed by two or more
/// figures ("Las Vegas Strip Resorts 70,975 70,975 Regional Operations 386,892 386,892" is two).
pub(super) fn rows_in(line: &str) -> usize {
    let mut rows = 0;
    let mut words = 0;
    let mut figures = 0;
    for t in &tokenize(line) {
        // a year is a column's head, neither a figure nor a label's word
        if is_year(&t.text) {
            continue;
        }
        if t.is_number {
            figures += 1;
        } else {
            if words > 0 && figures >= 2 {
                rows += 1;
            }
            if figures > 0 {
                words = 0;
                figures = 0;
            }
            words += 1;
        }
    }
    if words > 0 && figures >= 2 {
        rows += 1;
    }
    rows
}

/// The rules here judge a figure quoted from a line.
fn figure_quoted(c: &Claim) -> bool {
    !c.worked() && c.question.asks == ValueType::Number
}

/// "dividends declared per share" answered by a net income per share row.
pub(super) fn measure_unnamed(c: &Claim) -> Option<Fired> {
    if !figure_quoted(c) {
        return None;
    }
    let words: Vec<String> = tokenize(c.line()).into_iter().filter(|t| !t.is_number).map(|t| t.text).collect();
    let w = named(c.question).into_iter().find(|m| !words.iter().any(|w| w.starts_with(&stem(m))))?;
    said([&w])
}

/// The line's subject (or row label) and the measure's word it must name, when the line has
/// one: the measure's first word for a subject that "was" the figure or a row's label; its
/// last (its noun) for what a company "had a ... of" ("Our Domestic streaming segment had a
/// contribution margin of 37%" is a margin, whatever segment it names).
fn subject(c: &Claim) -> Option<(Vec<String>, String, String)> {
    let line = c.line();
    let named = named(c.question);
    let (subject, head) = match subject_of(line).or_else(|| row_label(line)) {
        Some(s) => (s, named.first()?),
        None => (had_of(line)?, named.last()?),
    };
    Some((crate::text::plain_words(subject), subject.trim().to_string(), head.clone()))
}

/// What a line says its subject had a figure of ("Our Domestic streaming segment had a
/// contribution margin of 37% ..." -> its words up to "of"), when it says so before its first
/// figure.
fn had_of(line: &str) -> Option<&str> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^([^\d$]*?\b(?:had|has|have|reported|recorded|posted|generated|achieved)\s+[^\d$]{3,60}?)\s+of\s+\(?\$?\s?\d").expect("valid regex")
    });
    RE.captures(line).and_then(|c| c.get(1)).map(|m| m.as_str()).filter(|s| s.split_whitespace().count() <= 40)
}

/// "Other operating expense, net was $171 million ..., primarily related to the amortization of
/// intangible assets": the figure stated is of what the line names first.
pub(super) fn other_subject(c: &Claim) -> Option<Fired> {
    if !figure_quoted(c) {
        return None;
    }
    let (words, subject, head) = subject(c)?;
    (!words.iter().any(|w| w.starts_with(&stem(&head)))).then(|| vec![subject, head])
}

/// "Total depreciation and amortization expense ... was $11.0 billion" for the amortization
/// asked: a total of more than the measure ("property, plant and equipment" is one item).
pub(super) fn measure_and_other(c: &Claim) -> Option<Fired> {
    if !figure_quoted(c) {
        return None;
    }
    let (words, _, head) = subject(c)?;
    if !words.iter().any(|w| w.starts_with(&stem(&head))) {
        return None;
    }
    let named = named(c.question);
    let asked: Vec<String> = crate::text::plain_words(&c.question.wording().lower);
    let is_named = |w: &str| w == "plant" || named.iter().any(|m| w.starts_with(&stem(m)));
    let in_question = |w: &str| asked.iter().any(|a| stem(a) == stem(w));
    let pair = words.windows(3).find(|t| t[1] == "and" && (is_named(&t[0]) != is_named(&t[2])) && !in_question(if is_named(&t[0]) { &t[2] } else { &t[0] }))?;
    said([&pair[0], &pair[2]])
}

/// "The aggregate deductions from revenue ..., including amortization expense on infrastructure
/// programs, were $6.6 billion" for the amortization asked: the line names the measure only inside
/// an "including ..." clause of its subject, so its figure is of a whole that holds the measure.
pub(super) fn measure_included(c: &Claim) -> Option<Fired> {
    if !figure_quoted(c) {
        return None;
    }
    let head = named(c.question).into_iter().next()?;
    let subject = subject_of(c.line())?.to_lowercase();
    let words = crate::text::plain_words(&subject);
    let first = words.iter().position(|w| w.starts_with(&stem(&head)))?;
    let marker = words[..first].iter().rposition(|w| ["including", "includes", "inclusive"].contains(&w.as_str()))?;
    // the whole's own name comes before the marker ("deductions from revenue ..."), a few words at least
    (marker >= 2).then(|| vec![head.clone(), words[marker].clone()])
}

/// Several table rows quoted: which figure answers is not clear.
pub(super) fn rows_run_over(c: &Claim) -> Option<Fired> {
    if !figure_quoted(c) {
        return None;
    }
    let rows = rows_in(c.line());
    // (a schedule's lines and the total the answer states, which they add up to, are one
    // figure: the total)
    (rows >= 2 && !sums_to_answer(c)).then(|| vec![rows.to_string()])
}

/// Whether the line's last figure is the sum of three or more figures printed just before it
/// (a schedule's lines and their total: "2018 $ 377 … Thereafter 1,998 … $ 3,362") and the
/// answer states that figure: the line states a total that can be checked, in figures.
pub(super) fn sums_to_answer(c: &Claim) -> bool {
    let figures_of = |s: &str| -> Vec<f64> {
        tokenize(s)
            .into_iter()
            // (a year heads a line; "1,998" printed with its comma is a figure)
            .filter(|t| t.is_number && (s[t.start..t.end].contains(',') || !is_year(&t.text)))
            .filter_map(|t| t.text.replace([',', '$', '(', ')'], "").parse::<f64>().ok())
            .collect()
    };
    let figures = figures_of(c.line());
    let Some((&last, parts)) = figures.split_last() else { return false };
    let stated = figures_of(c.answer).iter().any(|n| (n - last).abs() < 0.5);
    let mut run = 0.0;
    stated
        && parts.iter().rev().enumerate().any(|(i, &f)| {
            run += f;
            i >= 2 && (run - last).abs() <= 0.5 + last.abs() * 1e-6
        })
}

/// A table's column heads quoted down to its first figures: many words before any figure that
/// is not a date's, in a text that is no sentence (a long sentence may state its figure late).
pub(super) fn column_heads(c: &Claim) -> Option<Fired> {
    if !figure_quoted(c) {
        return None;
    }
    let line = c.line();
    let toks = tokenize(line);
    let date_part = |i: usize| {
        let t = &toks[i].text;
        let day = i > 0 && MONTHS.contains(&toks[i - 1].text.to_lowercase().as_str()) && t.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d));
        is_year(t) || day
    };
    let lead = (0..toks.len()).take_while(|&i| !toks[i].is_number || date_part(i)).filter(|&i| !toks[i].is_number).count();
    // (a sentence may state its figure late, but not after half as many words again)
    let sentence = line.trim_end().ends_with(['.', ';']);
    (lead > LEAD_WORDS && (!sentence || 2 * lead > 3 * LEAD_WORDS)).then(|| vec![lead.to_string()])
}

/// The country's tax rate for the company's: "The lower U.S. tax rate of 21.0% was effective".
pub(super) fn statutory_rate(c: &Claim) -> Option<Fired> {
    if !figure_quoted(c) || !has_words(&c.question.wording().lower, "rate") {
        return None;
    }
    let (l, q) = (c.lower_line(), &c.question.wording().lower);
    let w = WORDS.statutory_words.iter().find(|w| l.contains(w.as_str()) && !q.contains(w.as_str()))?;
    said([w])
}

/// "compensation expense that has yet to be recognized" for the year's expense.
pub(super) fn pending_amount(c: &Claim) -> Option<Fired> {
    if !figure_quoted(c) {
        return None;
    }
    let (l, q) = (c.lower_line(), &c.question.wording().lower);
    let w = WORDS.pending_words.iter().find(|w| l.contains(w.as_str()) && !q.contains(w.split_whitespace().last().unwrap_or(w)))?;
    said([w])
}

/// "After-tax compensation expense for stock-based compensation", "The income tax benefit
/// related to stock-based compensation expense": the measure after its tax, or its tax.
pub(super) fn after_tax(c: &Claim) -> Option<Fired> {
    if !figure_quoted(c) {
        return None;
    }
    let (l, q) = (c.lower_line(), &c.question.wording().lower);
    let w = WORDS.after_tax_words.iter().find(|w| l.contains(w.as_str()) && !q.contains(w.as_str()))?;
    said([w])
}

/// A level asked, a change stated: "Research and development expense in 2018 increased by $90
/// million".
pub(super) fn change_for_level(c: &Claim) -> Option<Fired> {
    static CHANGE_BY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:increas|decreas|grew|rose|fell|declin|grow|reduc)\w*\s+(?:by\s+)?(?:approximately\s+|about\s+)?\$?\s?\d").expect("valid regex")
    });
    if !figure_quoted(c) {
        return None;
    }
    let q = &c.question.wording().lower;
    let level_asked = c.question.operation != Operation::Change && !has_words(q, "growth") && !has_words(q, "change");
    (level_asked && CHANGE_BY.is_match(c.line())).then(Vec::new)
}

/// Words that say a figure's unit or currency, not what it is of.
const UNIT_WORDS: &[&str] = &["million", "millions", "billion", "billions", "thousand", "thousands", "percent", "usd", "us", "dollars"];

/// The words each figure of a text (years aside) is stated with: those after it up to the next
/// figure or the sentence's end, at most eight, its unit words aside ("a $133.2 million
/// increase in personnel-related costs resulting from ..." -> 133.2: increase in personnel
/// related costs resulting from).
fn figure_phrases(text: &str) -> Vec<(f64, Vec<String>)> {
    let toks = tokenize(text);
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let Some(value) = t.is_number.then(|| t.text.trim_end_matches('%').parse::<f64>().ok()).flatten().filter(|_| !is_year(&t.text)) else { continue };
        let mut words = Vec::new();
        let mut end = t.end;
        for w in &toks[i + 1..] {
            if w.is_number || text[end..w.start].contains(['.', ';', '?', '!']) || words.len() == 8 {
                break;
            }
            end = w.end;
            if !UNIT_WORDS.contains(&w.text.as_str()) {
                words.push(w.text.clone());
            }
        }
        out.push((value, words));
    }
    out
}

/// "The increase in technology and development expenses was primarily due to a $133.2 million
/// increase in personnel-related costs" for "How much did personnel-related costs increase in
/// 2015?", where the page says in another sentence of the same year "a $120.1 million increase
/// in personnel-related costs" (general and administrative): the measure is stated with two
/// figures, each of a part, and which answers (or their sum) is not clear. The phrase a figure
/// is stated with, up to the last of two or more of the question's words in it, stands after
/// another figure in another sentence that names the year asked or none.
pub(super) fn stated_twice(c: &Claim) -> Option<Fired> {
    if !figure_quoted(c) {
        return None;
    }
    let asked: Vec<String> = c.question.terms.iter().filter(|t| t.len() > 2 && !holds(&WORDS.not_a_head, t)).map(|t| stem(t)).collect();
    let line = c.line();
    let keys: Vec<(f64, Vec<String>)> = figure_phrases(line)
        .into_iter()
        .filter_map(|(figure, words)| {
            let last = words.iter().rposition(|w| asked.contains(&stem(w)))?;
            let key = words[..=last].to_vec();
            (key.iter().filter(|w| asked.contains(&stem(w))).count() >= 2).then_some((figure, key))
        })
        .collect();
    if keys.is_empty() {
        return None;
    }
    let on_line: Vec<f64> = figure_phrases(line).into_iter().map(|(f, _)| f).collect();
    let line_words = crate::text::plain_words(line);
    for unit in crate::text::units(c.page_text) {
        let words = crate::text::plain_words(&unit);
        // the quoted sentence itself, or one that holds it
        if words.windows(line_words.len().max(1)).any(|w| w == line_words.as_slice()) || line_words.windows(words.len().max(1)).any(|w| w == words.as_slice()) {
            continue;
        }
        let years: Vec<i32> = tokenize(&unit).iter().filter(|t| is_year(&t.text)).filter_map(|t| t.text.parse().ok()).collect();
        if !c.years.is_empty() && !years.is_empty() && !years.iter().any(|y| c.years.contains(y)) {
            continue;
        }
        for (figure, words) in figure_phrases(&unit) {
            if on_line.iter().any(|f| (f - figure).abs() < 1e-9) {
                continue;
            }
            if let Some((_, key)) = keys.iter().find(|(_, k)| words.starts_with(k)) {
                let sentence: String = unit.chars().take(160).collect();
                return said([&key.join(" "), &sentence]);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_labels_are_read() {
        assert_eq!(row_label("For the fiscal years ended May 31, 2023, 2022 and 2021, lease expense was $585 million"), None);
        assert_eq!(row_label("Property, plant and equipment, net 12,645 12,672"), Some("Property, plant and equipment, net"));
        assert_eq!(rows_in("Total net sales 280,522 232,887 177,866"), 1);
        assert_eq!(rows_in("Revenue was $5.2 billion in 2020, up 3% from $5.0 billion"), 0);
    }
}
