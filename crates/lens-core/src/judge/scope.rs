//! Rules over what the answer rests on as a whole: an answer at all, a page cited, the company
//! and years asked, the document named, and the share of the question's words on the page and
//! on the line (a statement, not a label or the opening of a list). And the off-topic refusal.

use super::words::WORDS;
use super::{said, Claim, Fired};
use crate::question::Operation;
use crate::support::{is_label, off_topic as line_off_topic, term_share, Support, MIN_LINE_SHARE, MIN_TERM_SHARE};
use std::collections::HashSet;

pub(super) fn not_found(c: &Claim) -> Option<Fired> {
    c.not_found.then(Vec::new)
}

pub(super) fn uncited(c: &Claim) -> Option<Fired> {
    c.cited.is_none().then(Vec::new)
}

/// A question naming no company, asked of a library of several companies' filings.
pub(super) fn which_company(c: &Claim) -> Option<Fired> {
    if c.unnamed_among.is_empty() {
        return None;
    }
    let (shown, more) = super::first_six(c.unnamed_among);
    said([&c.unnamed_among.len(), &shown, &more])
}

/// A year asked that the cited page never mentions (a narrative answer from the filing of the
/// year asked need not name it).
pub(super) fn years_absent(c: &Claim) -> Option<Fired> {
    let lower = c.page_text.to_lowercase();
    let filing_of_the_year = c.question.operation == Operation::Narrative && c.doc_year.is_some_and(|y| c.years.contains(&y));
    let absent: Vec<String> = c.years.iter().filter(|y| !filing_of_the_year && !lower.contains(&y.to_string())).map(|y| y.to_string()).collect();
    (!absent.is_empty()).then(|| vec![absent.join(", ")])
}

pub(super) fn out_of_scope(c: &Claim) -> Option<Fired> {
    (c.in_scope == Some(false)).then(Vec::new)
}

fn terms(c: &Claim) -> HashSet<String> {
    c.question.terms.iter().cloned().collect()
}

/// A computed answer rests on operand cells matched to the metric's line items: the question's
/// other words (its instructions) need not be on those pages; nor need "headquartered" be on
/// the cover page whose address answers where the filer is ([`Claim::filer_fact_held`]).
pub(super) fn page_share(c: &Claim) -> Option<Fired> {
    if c.worked() || c.filer_fact_held() || c.cause_held() {
        return None;
    }
    let share = term_share(&terms(c), c.page_text);
    (share < MIN_TERM_SHARE).then(|| vec![format!("{:.0}", share * 100.0)])
}

/// The line the answer rests on must be about what was asked, not merely on the page.
pub(super) fn line_share(c: &Claim) -> Option<Fired> {
    if c.worked() || c.list_complete || c.filer_fact_held() || c.cause_held() {
        return None;
    }
    let on_line = term_share(&terms(c), c.line());
    (on_line < MIN_LINE_SHARE).then(|| vec![format!("{:.0}", on_line * 100.0)])
}

/// A sentence that says tables follow ("The following tables show the significant transactions
/// ..."): what it introduces answers, not it.
pub fn introduces_tables(line: &str) -> bool {
    let l = line.trim().to_lowercase();
    WORDS.introduces_tables.iter().any(|p| l.starts_with(p.as_str()))
}

pub(super) fn introduces_list(c: &Claim) -> Option<Fired> {
    let line = c.line();
    (!c.worked() && (line.trim_end().ends_with(':') || introduces_tables(line))).then(Vec::new)
}

pub(super) fn label_line(c: &Claim) -> Option<Fired> {
    let line = c.line();
    // (a signature block's name and title are labels by their layout: the office's holder)
    (!c.worked() && !c.filer_fact_held() && is_label(line)).then(|| vec![line.trim().to_string()])
}

/// An answer to a question that names nothing of the library, whose best line does not answer
/// it ([`crate::support::off_topic`]): "Not found". A computed result is never refused, nor a
/// supported answer.
pub(super) fn off_topic(c: &Claim) -> Option<Fired> {
    if c.not_found || c.cited.is_none() || c.computed || c.support == Support::Strong {
        return None;
    }
    let line = c.line();
    line_off_topic(c.names_library, c.question, line).then(|| vec![line.chars().take(120).collect()])
}
