//! What rankings share ([`super::rank`] over a table's rows and column groups, [`super::members`]
//! over a filing's members): the words of totals, a stem match, the calculation a ranking is.

use super::{Calculation, Operand};

/// A row that adds others up ("Total ...", "Subtotal", "Less ..."), not one of them.
pub fn is_total(label: &str) -> bool {
    let l = label.to_lowercase();
    l.starts_with("total") || l.starts_with("net ") && l.contains("total") || l.starts_with("subtotal") || l.starts_with("less ") || l == "net"
}

/// "liability" and "liabilities", "asset" and "assets" share a stem.
pub fn stem(w: &str) -> String {
    w.trim_end_matches("ies").trim_end_matches('y').trim_end_matches('s').to_string()
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
