//! What rankings share ([`super::rank`] over a table's rows and column groups, [`super::members`]
//! over a filing's members): the words of totals, a stem match, the calculation a ranking is.

use super::{Calculation, Context, Operand};
use crate::pageref::PageRef;
use crate::question::Question;

/// A row that adds others up ("Total ...", "Subtotal", "Less ..."), not one of them.
pub fn is_total(label: &str) -> bool {
    let l = label.to_lowercase();
    l.starts_with("total") || l.starts_with("net ") && l.contains("total") || l.starts_with("subtotal") || l.starts_with("less ") || l == "net"
}

/// "liability" and "liabilities", "asset" and "assets" share a stem.
pub use crate::text::plural_stem as stem;

/// Whether `total` is the sum (`sum`) of `parts` figures rounded as printed: within half a unit
/// per part, two parts or more, both far larger than that slack.
pub fn adds_up(total: f64, sum: f64, parts: usize) -> bool {
    let tolerance = 0.5 * parts as f64;
    parts >= 2 && sum.abs() > 100.0 * tolerance && total.abs() > 100.0 * tolerance && (total - sum).abs() <= tolerance + 1e-9 * total.abs()
}

/// How many of `words` (by stem) `text` holds.
pub fn holds(text: &str, words: &[String]) -> usize {
    words.iter().filter(|w| text.contains(&stem(w))).count()
}

/// A ranking as a calculation: the winner (`verdict`) and what is said of it (`result`, and
/// with the runner-up `said`); not `sure`, the rule `rank_unsure` warns that the table was
/// picked by its page's words.
pub fn ranked_calculation(metric: String, formula: String, operands: Vec<Operand>, said: String, result: String, verdict: String, sure: bool) -> Calculation {
    Calculation {
        display: format!("{metric} = {said}. {formula}"),
        metric,
        formula,
        operands,
        result: Some(result),
        problem: None,
        verdict: Some(verdict),
        warning: (!sure).then(|| super::Warning { rule: "rank_unsure".into(), words: Vec::new() }),
        unit: "amount".into(),
        shape: "rank".into(),
        months: 12,
        ..Default::default()
    }
}

/// The word a table's unit adds after a figure ("millions" -> " million").
pub fn scale_word(unit: &str) -> &'static str {
    match unit {
        "millions" => " million",
        "billions" => " billion",
        "thousands" => " thousand",
        _ => "",
    }
}

/// The period length a question asks, in months: a quarter's 3, a half's 6; `None` for a year's.
pub fn months_asked(q: &Question) -> Option<u8> {
    if !q.quarters.is_empty() {
        Some(3)
    } else if !q.halves.is_empty() {
        Some(6)
    } else {
        None
    }
}

/// `pages`, then the pages BM25 finds in each of their filings for each of `queries` (`k` a
/// query), each page once: a ranking's or a members' table is often not among the pages read.
pub fn with_lookups(lib: &Context, pages: &[PageRef], queries: &[String], k: usize) -> Vec<PageRef> {
    let mut out: Vec<PageRef> = pages.to_vec();
    let mut docs: Vec<&str> = Vec::new();
    for p in pages {
        if !docs.contains(&p.doc_id.as_str()) {
            docs.push(&p.doc_id);
        }
    }
    for doc in docs {
        for query in queries {
            let Ok(r) = lib.search(&crate::retrieve::SearchRequest::lookup(query.clone(), doc, k)) else { continue };
            for h in r.hits {
                let p = h.page_ref();
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// A figure of each member as a calculation (shape `list`): `said` joined, the operands boxed;
/// not `sure`, the rule `rank_unsure` warns that the table was picked by its page's words.
pub fn listed_calculation(metric: String, formula: String, operands: Vec<Operand>, said: &[String], months: Option<u8>, sure: bool) -> Calculation {
    let result = said.join("; ");
    Calculation {
        display: format!("{metric} = {result}. {formula}"),
        metric,
        formula,
        operands,
        result: Some(result),
        warning: (!sure).then(|| super::Warning { rule: "rank_unsure".into(), words: Vec::new() }),
        unit: "amount".into(),
        shape: "list".into(),
        months: months.unwrap_or(12),
        ..Default::default()
    }
}
