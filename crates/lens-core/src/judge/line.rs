//! Rules over any quoted line, a figure's or a sentence's: it states what is, not what would
//! have been or what a person said; it names what was asked as asked (not as another item, the
//! month of a period's end, the thing, a comparison, who, the kind); it says what was asked
//! (no pointer elsewhere, a grade, per share, what is held, the question's own words, each year,
//! the company's measure, a burn, a repurchase); it is no boilerplate.

use super::measure::{measure_head, measure_phrase, stem};
use super::words::{holds, WORDS};
use super::{said, Claim, Fired};
use crate::figures::catalogue::has_words;
use crate::question::Operation;
use crate::support::is_boilerplate;
use regex::Regex;
use std::sync::LazyLock;

/// A line quoted as the answer's ground (a worked answer rests on cells, not lines).
fn quoted(c: &Claim) -> Option<(String, Vec<String>)> {
    if c.worked() {
        return None;
    }
    let l = c.lower_line();
    let words = crate::question::hyphened_words(&l);
    Some((l, words))
}

/// "Absent the exemption ..., net income would have increased by $4 million".
pub(super) fn would_have_been(c: &Claim) -> Option<Fired> {
    let (l, _) = quoted(c)?;
    let w = WORDS.would_have.iter().find(|w| l.contains(w.as_str()))?;
    said([w])
}

/// A person's words quoted in a filing or release ("“What we accomplished in 2022 is nothing
/// short of remarkable ...").
pub(super) fn quoted_person(c: &Claim) -> Option<Fired> {
    static QUOTED_PERSON: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"“\s*(?:We|Our|I|What we)\b").expect("valid regex"));
    let (l, _) = quoted(c)?;
    let line = c.line();
    (QUOTED_PERSON.is_match(line) || (line.contains('“') && has_words(&l, "said"))).then(Vec::new)
}

/// "How much goodwill does 3M have?" answered by "a goodwill impairment charge of $0.3 billion".
pub(super) fn another_item(c: &Claim) -> Option<Fired> {
    let (_, line_words) = quoted(c)?;
    let head = measure_head(c.question)?;
    let after: Vec<&str> = line_words.windows(2).filter(|w| w[0] == head).map(|w| w[1].as_str()).collect();
    let q_words = &c.question.wording().words;
    (!after.is_empty() && after.iter().all(|a| holds(&WORDS.another_item_after, a) && !holds(q_words, a))).then(|| vec![head.clone(), after[0].to_string()])
}

/// "When does Adobe's fiscal year end?" answered by a line naming no month.
pub(super) fn no_month(c: &Claim) -> Option<Fired> {
    let (_, line_words) = quoted(c)?;
    let w = &c.question.wording();
    if !w.lower.starts_with("when ") || !WORDS.period_boundary.iter().any(|b| holds(&w.words, b)) {
        return None;
    }
    let month = crate::figures::table::MONTHS
        .iter()
        .any(|m| line_words.iter().any(|w| w == m || (w.len() >= 3 && m.starts_with(w.as_str()) && w.len() < m.len() && w.len() <= 4)));
    (!month).then(Vec::new)
}

/// "What is AMD's credit rating?": the thing asked in words, named on the line.
pub(super) fn thing_unnamed(c: &Claim) -> Option<Fired> {
    let (_, line_words) = quoted(c)?;
    // (the filer's fact read where it is printed names it in its own words: "workforce" for
    // "headcount")
    if c.question.operation != Operation::Narrative || !c.question.wording().lower.starts_with("what is ") || c.filer_fact_held() {
        return None;
    }
    let w = measure_phrase(c.question).into_iter().find(|m| !line_words.iter().any(|w| w.starts_with(&stem(m))))?;
    said([&w])
}

/// "Which segment grew the fastest?" answered by a sentence that compares nothing (a ranking
/// worked from a table is checked elsewhere).
pub(super) fn compares_nothing(c: &Claim) -> Option<Fired> {
    let (_, line_words) = quoted(c)?;
    let w = &c.question.wording();
    // (a ranking answered by a line, not worked over a table, is read the same way)
    let ranked_by_line = c.question.operation == Operation::Rank && !c.worked();
    if !(c.question.operation == Operation::Narrative || ranked_by_line) || w.lower.contains("most recent") {
        return None;
    }
    let sup = w.words.iter().find(|x| holds(&WORDS.superlatives, x))?;
    (!line_words.iter().any(|x| holds(&WORDS.superlatives, x) || holds(&WORDS.comparing, x))).then(|| vec![sup.clone()])
}

/// "Who are the primary customers of Boeing?": a line that says who ("revenues from a limited
/// number of commercial airlines"), not one that only mentions customers.
/// The holder of an office asked ("Who is the CEO of Pfizer?") is a name the filing prints with
/// the office: a line about the office without one, or an officer of a part of the company
/// ("Chief Financial Officer of Boeing Commercial Airplanes"), does not answer.
pub(super) fn office_unheld(c: &Claim) -> Option<Fired> {
    if c.not_found || c.worked() {
        return None;
    }
    let office = crate::officers::office_asked(&c.question.text)?;
    (!c.filer_fact_held()).then(|| vec![crate::officers::office_name(office).to_string()])
}

/// A fact of the filer asked ("Where is Costco headquartered?", "Who is Adobe's auditor?", "How
/// many employees does it have?") is what its cover page, auditor's report or human capital
/// sentence prints: a line that only mentions the headquarters, the audit or the employees does
/// not say where, who or how many.
pub(super) fn filer_fact_unread(c: &Claim) -> Option<Fired> {
    if c.not_found || c.worked() {
        return None;
    }
    let asked = crate::cover::asked(&c.question.text)?;
    (!c.filer_fact_held()).then(|| vec![asked.name().to_string()])
}

/// "Why did Amazon's operating income increase in 2019?" answered by a line that does not name
/// the company's measure before a cause: another measure's sentence, or a part's ("The decrease
/// in North America operating income ..."), unless the question names the part
/// ([`crate::causes`]).
pub(super) fn cause_unsaid(c: &Claim) -> Option<Fired> {
    if c.not_found || c.worked() {
        return None;
    }
    let (measure, what) = crate::causes::unsaid(c.question, Some(c.line()), c.page_text)?;
    said([&measure, &what])
}

pub(super) fn who_unsaid(c: &Claim) -> Option<Fired> {
    let (l, _) = quoted(c)?;
    let w = &c.question.wording();
    if !w.lower.starts_with("who ") {
        return None;
    }
    let who = WORDS.who_says.iter().find(|k| w.words.iter().any(|x| x.trim_end_matches('s') == k.kind))?;
    (!who.says.iter().any(|p| l.contains(p.as_str()))).then(|| vec![who.kind.clone()])
}

/// "Which acquisitions did Adobe make?" answered by a line that names no acquisition.
pub(super) fn which_kind(c: &Claim) -> Option<Fired> {
    // ("Which accounting firm audits Walmart?" is answered by the firm's name)
    if c.filer_fact_held() {
        return None;
    }
    let (_, line_words) = quoted(c)?;
    let kind = c.question.wording().lower.strip_prefix("which ")?.split_whitespace().next()?.trim_matches(|c: char| !c.is_alphanumeric()).to_string();
    let stem_s = stem(&kind).trim_end_matches('s').to_string();
    (kind.len() > 3 && !holds(&WORDS.not_a_kind, &kind) && !line_words.iter().any(|w| w.starts_with(&stem_s))).then(|| vec![kind.clone()])
}

/// "... is hereby incorporated by reference": a pointer to another document.
pub(super) fn by_reference(c: &Claim) -> Option<Fired> {
    let (l, _) = quoted(c)?;
    WORDS.by_reference.iter().any(|p| l.contains(p.as_str())).then(Vec::new)
}

/// "What is Johnson & Johnson's credit rating?": a grade (AA-, Aaa, Baa2), not a sentence about
/// others' ratings.
pub(super) fn no_grade(c: &Claim) -> Option<Fired> {
    static GRADE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\b(?:AAA|AA[+-]?|A[+-]|BBB[+-]?|BB[+-]?|Aaa|Aa[1-3]|A[1-3]|Baa[1-3]|Ba[1-3]|P-[1-3])(?:\W|$)").expect("valid regex"));
    quoted(c)?;
    let asked = WORDS.rating_asked.iter().any(|w| c.question.wording().lower.contains(w.as_str()));
    (asked && !GRADE.is_match(c.line())).then(Vec::new)
}

/// "What did Verizon pay in dividends per share?" answered by a preferred share's 8.25% per annum.
pub(super) fn per_share(c: &Claim) -> Option<Fired> {
    let (l, _) = quoted(c)?;
    (c.question.wording().lower.contains("per share") && !WORDS.per_share_said.iter().any(|w| l.contains(w.as_str()))).then(Vec::new)
}

/// "How much debt does Pfizer have?": what is held, not what was issued or repaid in a quarter.
pub(super) fn held_vs_moved(c: &Claim) -> Option<Fired> {
    // (the cover page's count of shares "issued and outstanding" is what is held)
    if c.filer_fact_held() {
        return None;
    }
    let (_, line_words) = quoted(c)?;
    let q = &c.question.wording().lower;
    let held = WORDS.held_asked.iter().any(|w| q.contains(w.as_str())) && !WORDS.moved_asked.iter().any(|w| q.contains(w.as_str()));
    if !held {
        return None;
    }
    let v = WORDS.moved_verbs.iter().find(|v| holds(&line_words, v))?;
    said([v])
}

/// "how much money did AMD make in 2015": a figure on a line that holds none of the question's
/// own words (a credit agreement's liens) answers nothing asked.
pub(super) fn no_own_words(c: &Claim) -> Option<Fired> {
    let (_, line_words) = quoted(c)?;
    let q = c.question;
    if q.operation != Operation::Value || q.measure.is_some() {
        return None;
    }
    let own: Vec<&String> = q
        .terms
        .iter()
        .filter(|t| {
            t.len() > 2
                && !holds(&WORDS.vague_words, t)
                && !t.chars().all(|c| c.is_ascii_digit())
                && !q.companies.iter().any(|c| c.to_lowercase().contains(t.as_str()))
        })
        .collect();
    (!own.iter().any(|t| line_words.iter().any(|w| w.starts_with(&stem(t))))).then(Vec::new)
}

/// A comparison of years asked in words ("Which year had higher revenue, FY2017 or FY2018?").
fn years_compared(c: &Claim) -> bool {
    c.question.operation == Operation::Narrative && c.question.years.len() >= 2 && c.question.measure.is_some()
}

/// ... the line names each year asked.
pub(super) fn year_missing(c: &Claim) -> Option<Fired> {
    let (l, _) = quoted(c)?;
    if !years_compared(c) {
        return None;
    }
    let y = c.question.years.iter().find(|y| !l.contains(&y.to_string()))?;
    said([y])
}

/// ... and the measure as the company's ("Fios service revenue" is a part's).
pub(super) fn part_measure(c: &Claim) -> Option<Fired> {
    let (_, line_words) = quoted(c)?;
    if !years_compared(c) {
        return None;
    }
    let q = c.question;
    let head = q.measure_name.as_deref().or(q.measure.as_deref()).and_then(|m| m.split(['_', ' ']).next_back())?.to_string();
    let before: Vec<&str> = line_words.windows(2).filter(|w| w[1].starts_with(&stem(&head))).map(|w| w[0].as_str()).collect();
    (!before.is_empty() && before.iter().all(|b| !holds(&WORDS.line_leads, b))).then(|| vec![head.clone(), before[0].to_string()])
}

/// "How much cash did Verizon burn in 2022?": a payment or a balance is not the cash burned.
pub(super) fn burn_unsaid(c: &Claim) -> Option<Fired> {
    let (l, _) = quoted(c)?;
    let asked = WORDS.burn_asked.iter().any(|w| has_words(&c.question.wording().lower, w));
    (asked && !l.contains("burn")).then(Vec::new)
}

/// "How much stock did Best Buy buy back in 2019?": a stock performance graph is no repurchase.
pub(super) fn buyback_unsaid(c: &Claim) -> Option<Fired> {
    let (l, _) = quoted(c)?;
    let asked = WORDS.buyback_asked.iter().any(|w| has_words(&c.question.wording().lower, w));
    (asked && !WORDS.buyback_said.iter().any(|w| l.contains(w.as_str()))).then(Vec::new)
}

/// "How much interest expense did J&J capitalize in 2021?" answered with the interest expense
/// row: the question qualifies the measure by an accounting treatment (capitalized, deferred,
/// accrued, unrecognized, impaired, written off ...) that the line, or a worked answer's operand
/// rows and their tables, never name.
pub(super) fn treatment_unsaid(c: &Claim) -> Option<Fired> {
    let q = &c.question.wording().words;
    let asked = WORDS.treatments.iter().find(|t| {
        if t.contains([' ', '-']) {
            has_words(&c.question.wording().lower, t)
        } else {
            q.iter().any(|w| w.starts_with(t.as_str()))
        }
    })?;
    let grounds: String = if c.worked() {
        c.operands.iter().map(|o| format!("{} {} {} ", o.read.row, o.read.table, o.quote)).collect::<String>().to_lowercase()
    } else {
        c.lower_line()
    };
    // a write-off is said as "write-off", "written off", "writeoff" alike; a row "net of" (or
    // "excluding", "less") the treatment is the measure before it, and says it only as left out
    let grounds = grounds.replace('-', " ");
    let asked_forms: Vec<String> =
        if asked.starts_with("writ") { vec!["write off".into(), "written off".into(), "writeoff".into()] } else { vec![asked.replace('-', " ")] };
    let said_so = asked_forms.iter().any(|f| {
        grounds.match_indices(f.as_str()).any(|(at, _)| {
            let before = &grounds[grounds[..at].char_indices().rev().nth(40).map_or(0, |(i, _)| i)..at];
            !["net of ", "excluding ", "exclusive of ", "less ", "other than "].iter().any(|x| before.contains(x))
        })
    });
    if grounds.trim().is_empty() || said_so {
        return None;
    }
    let word = q.iter().find(|w| w.starts_with(asked.as_str())).cloned().unwrap_or_else(|| asked.clone());
    said([&word])
}

/// A form of note, an indenture's standard terms, a signature block.
pub(super) fn boilerplate(c: &Claim) -> Option<Fired> {
    quoted(c)?;
    is_boilerplate(c.line()).then(Vec::new)
}
