//! Rules that read more than the claim: a worked answer's caveat or the row it missed, a
//! model's answer tied to no line, and what the library says through [`Lookups`] (the row
//! printed larger elsewhere, part-year columns, a later filing, a company not held). They form
//! the group `caveat` (only the first that fires is said; the later ones search the library
//! only when those before found nothing), and the refusal `company_not_held`.
//!
//! [`Lookups`]: super::Lookups

use super::{said, Claim, Fired};
use crate::evidence::FoundBy;
use crate::question::{Operation, ValueType};

/// The words of the calculation's warning when it is rule `id`'s.
fn warned(c: &Claim, id: &str) -> Option<Fired> {
    c.calc_warning.filter(|w| w.rule == id).map(|w| w.words.clone())
}

/// A figure the answer rests on is a fact inside an identity of its filing that did not hold
/// (a total its rows do not add up to, assets that are not liabilities and equity): the table
/// was misread, or prints something else than it seems. A worked answer's operands are looked
/// up by page, row and value; a quoted row by its label in the quote and its cell in the answer.
pub(super) fn identity_failed(c: &Claim) -> Option<Fired> {
    for o in c.operands {
        let hit = c.lookups.flagged_facts(&o.page).into_iter().find(|f| f.label == o.read.row && f.value == o.value);
        if let Some(f) = hit {
            return said([&f.label, &f.identity]);
        }
    }
    if c.computed || c.not_found {
        return None;
    }
    let (page, quote) = (c.cited?, c.quote?);
    let figure = |p: &str| p.trim_matches(|ch: char| !ch.is_ascii_digit()).to_string();
    let f = c.lookups.flagged_facts(page).into_iter().find(|f| {
        let n = figure(&f.printed);
        !f.label.is_empty() && quote.contains(f.label.as_str()) && !n.is_empty() && c.answer.contains(n.as_str())
    })?;
    said([&f.label, &f.identity])
}

/// Operands read from different filings (a 10-K's inventory, an earnings release's cost of
/// sales) may be of different periods.
pub(super) fn mixed_filings(c: &Claim) -> Option<Fired> {
    warned(c, "mixed_filings")
}

/// An expense read in parentheses whose sign the table's rows do not settle.
pub(super) fn sign_unread(c: &Claim) -> Option<Fired> {
    warned(c, "sign_unread")
}

/// Items the balance sheet does not print, counted as 0 (`absent_is_zero`): each said, in the
/// words of `zeroed_item` (the warning's words come three by three: page, item, period).
pub(super) fn zeroed_items(c: &Claim) -> Option<Fired> {
    let words = warned(c, "zeroed_items")?;
    let items: Vec<String> = words.chunks(3).map(|z| crate::wording::reason("zeroed_item", z)).collect();
    Some(vec![items.join("; ")])
}

/// A growth over a first year that is a loss is read over its size and says little.
pub(super) fn negative_base(c: &Claim) -> Option<Fired> {
    warned(c, "negative_base")
}

/// A tax rate over a pretax loss (AMD's -2.2%) is a sign, not a rate.
pub(super) fn loss_tax_rate(c: &Claim) -> Option<Fired> {
    warned(c, "loss_tax_rate")
}

/// A ranking over a table the page's words chose, no total row naming what was ranked.
pub(super) fn rank_unsure(c: &Claim) -> Option<Fired> {
    warned(c, "rank_unsure")
}

/// Total liabilities worked as the total of liabilities and equity less equity, where the
/// balance sheet prints redeemable (temporary) equity between them: it is counted as a liability.
pub(super) fn temporary_equity(c: &Claim) -> Option<Fired> {
    warned(c, "temporary_equity")
}

/// A fiscal year's figure asked with no quarter named ("at the end of 2022"), and an operand read
/// from a quarterly report (a 10-Q's June 30 balance): not the year's end.
pub(super) fn interim_balance(c: &Claim) -> Option<Fired> {
    warned(c, "interim_balance")
}

/// A part's figure ("MGM China"'s revenue) that one table of the filing prints: which row and
/// table were meant is not cross-checked.
pub(super) fn member_once(c: &Claim) -> Option<Fired> {
    warned(c, "member_once")
}

/// A calculation logged before warnings had rules: its caveat as it was written then.
pub(super) fn calc_caveat(c: &Claim) -> Option<Fired> {
    c.calc_caveat.map(|w| vec![w.to_string()])
}

/// A model's answer that quotes no line of the pages (it cited no passage) is tied to nothing.
pub(super) fn model_unquoted(c: &Claim) -> Option<Fired> {
    c.unquoted.then(Vec::new)
}

/// A figure the worked answer looked for on the filing's statements and found no row of,
/// answered instead by a quoted row labelled otherwise ("Interest rate contracts" for
/// "interest expense").
pub(super) fn missed_row(c: &Claim) -> Option<Fired> {
    if c.worked() || c.question.asks != ValueType::Number {
        return None;
    }
    let item = c.calc_problem?.strip_prefix("not found: ")?;
    said([&item])
}

/// A figure asked, a table row quoted: the same label printed elsewhere in the filing with
/// figures several times larger makes this row a part's (a segment's "Total noninterest
/// expense 969" where the firm's is 17,948).
pub(super) fn part_row(c: &Claim) -> Option<Fired> {
    let (FoundBy::Quote, Some(q), Some(p)) = (c.found_by, c.quote, c.cited) else { return None };
    if c.question.asks != ValueType::Number || c.question.operation != Operation::Value {
        return None;
    }
    let (label, other) = c.lookups.larger_elsewhere(p, q)?;
    said([&label, &other])
}

/// A figure asked by a term of art the question writes as one ("RevPAR", "ARR"): a quoted line
/// that never names it states another figure ("rooms revenue was $2.7 billion").
pub(super) fn unnamed_term(c: &Claim) -> Option<Fired> {
    let (FoundBy::Quote, Some(q), Some(p)) = (c.found_by, c.quote, c.cited) else { return None };
    if c.question.asks != ValueType::Number {
        return None;
    }
    let line = q.to_lowercase();
    let doc = p.doc_id.to_lowercase();
    let t = c.question.wording().terms_of_art.iter().find(|t| {
        let l = t.to_lowercase();
        !line.contains(&l) && !doc.contains(&l) && !c.companies_named.iter().any(|n| n.contains(&l) || l.contains(n.as_str()))
    })?;
    said([t])
}

/// A fiscal year's figure asked, a quarter's given: the cited page prints the answer's figures
/// only under columns of three, six or nine months.
pub(super) fn quarter_only(c: &Claim) -> Option<Fired> {
    let p = c.cited?;
    let q = c.question;
    if c.worked() || q.asks != ValueType::Number || !q.quarters.is_empty() || !q.halves.is_empty() {
        return None;
    }
    let m = c.lookups.part_year_months(p, c.answer)?;
    said([&m])
}

/// A question that names no period ("How much cash does 3M have?") answered from a filing when
/// the library holds a later one of the company: the answer may be out of date.
pub(super) fn later_filing(c: &Claim) -> Option<Fired> {
    let q = c.question;
    // a value asked as of now, not a judgement over the years
    if !q.years.is_empty() || !q.quarters.is_empty() || c.not_found || q.operation != Operation::Value {
        return None;
    }
    let cited = c.cited?;
    let (mine, later, year) = c.lookups.later_filing(&cited.doc_id)?;
    (year > mine).then(|| vec![cited.doc_id.clone(), mine.to_string(), later, year.to_string()])
}

/// The question names (as a possessor) a company the company list knows and the library holds
/// no filing of: refused, naming the companies held.
pub(super) fn company_not_held(c: &Claim) -> Option<Fired> {
    if c.names_library {
        return None;
    }
    let (company, names) = c.lookups.absent_company()?;
    let (shown, more) = super::first_six(&names);
    Some(vec![company, shown, more])
}
