//! Question -> plan: which formula (a definition written in the question, else a catalogue metric,
//! else a single line item), over which fiscal years, and the form of the answer asked for.

use super::catalogue::{has_words, norm, Catalogue, Unit};
use super::formula::{self, Expr, Year};
use super::ratio::Ratio;
use std::collections::HashMap;

/// Which years the formula is evaluated for, and how the values combine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    One(i32),
    /// The mean of the metric over `from..=to` ("3 year average").
    Average(i32, i32),
    /// (m[to] − m[from]) / m[from], a percent ("year-over-year change", "growth").
    Growth(i32, i32),
    /// m[to] − m[from] (a change asked for in amounts).
    Difference(i32, i32),
    /// (m[to] / m[from])^(1/(to − from)) − 1.
    Cagr(i32, i32),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Format {
    pub percent: bool,
    pub decimals: Option<u32>,
    /// Amounts in this scale ("USD millions" -> 1e6, "millions").
    pub scale: Option<(Ratio, &'static str)>,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub metric: String,
    pub expr: Expr,
    pub unit: Unit,
    pub shape: Shape,
    pub format: Format,
}

/// "X is defined as: EXPR" sentences of a question, in order: (name, expression text).
fn definitions(q: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let lower = q.to_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(" is defined as") {
        let at = from + i;
        // the name: the words before, back to the sentence start or a question mark
        let head = &q[..at];
        let start = head.rfind(['.', '?', ':', '\n']).map(|s| s + 1).unwrap_or(0);
        let name = head[start..].trim().trim_start_matches("and ").to_string();
        let after = at + " is defined as".len();
        let rest = q[after..].trim_start_matches([':', ' ']);
        let rest_start = q.len() - rest.len();
        // the expression runs to the end of its sentence (". " then a capital, or the end)
        let mut end = rest.len();
        for (j, _) in rest.match_indices(". ") {
            if rest[j + 2..].chars().next().is_some_and(|c| c.is_uppercase()) {
                end = j;
                break;
            }
        }
        let expr = rest[..end].trim().trim_end_matches('.').to_string();
        out.push((name, expr));
        from = (rest_start + end).max(after);
    }
    out
}

/// Resolve a run of words of a written definition: an average, a change, a sub-definition,
/// a catalogue metric, or a line item, with the years it names.
fn resolve_words(cat: &Catalogue, subs: &HashMap<String, Expr>, words: &str) -> Result<Expr, String> {
    let w = norm(&words.replace(['[', ']'], " "));
    let w = w.split(" from the ").next().unwrap_or(&w).to_string();
    for (name, e) in subs {
        if has_words(&w, name) {
            return Ok(e.clone());
        }
    }
    let years = formula::years_in(&w);
    let year = |i: usize| years.get(i).map_or(Year::Rel(0), |y| Year::Abs(*y));
    let item = match cat.item_in(&w) {
        Some(i) => i.to_string(),
        None => {
            if let Some((_, m)) = cat.metric_in(&w) {
                return cat.formula(&m.formula);
            }
            return Err(format!("no line item found in `{}`", words.trim()));
        }
    };
    if w.contains("average") && years.len() >= 2 {
        return Ok(Expr::Avg(item, year(0), year(years.len() - 1)));
    }
    if (w.contains("change in") || w.starts_with("change")) && years.len() >= 2 {
        return Ok(Expr::Change(item, year(0), year(years.len() - 1)));
    }
    Ok(Expr::Item(item, year(0)))
}

fn decimals(q: &str) -> Option<u32> {
    let l = q.to_lowercase();
    for (w, n) in [
        ("zero decimal", 0),
        ("no decimal", 0),
        ("nearest integer", 0),
        ("nearest whole", 0),
        ("one decimal", 1),
        ("1 decimal", 1),
        ("two decimal", 2),
        ("2 decimal", 2),
        ("three decimal", 3),
        ("3 decimal", 3),
    ] {
        if l.contains(w) {
            return Some(n);
        }
    }
    None
}

fn scale(q: &str) -> Option<(Ratio, &'static str)> {
    let l = q.to_lowercase();
    for (w, s, name) in [("billion", 1_000_000_000i64, "billion"), ("million", 1_000_000, "million"), ("thousand", 1_000, "thousand")] {
        if l.contains(&format!("usd {w}")) || l.contains(&format!("in {w}")) || l.contains(&format!("$ {w}")) || l.contains(&format!("${w}")) {
            return Some((Ratio::int(s), name));
        }
    }
    None
}

/// The plan for `question`, or `None` when it asks for no figure the catalogue knows.
pub fn plan(question: &str, cat: &Catalogue) -> Option<Result<Plan, String>> {
    let l = norm(question);
    // questions that ask why or whether are not calculations
    let first = l.split_whitespace().next().unwrap_or("");
    if ["is", "are", "does", "do", "did", "was", "were", "has", "have", "can", "why", "how"].contains(&first) && !l.starts_with("how much") {
        return None;
    }
    if ["what drove", "driven by", "reason", "explain", "describe", "per share"].iter().any(|w| l.contains(w)) {
        return None;
    }
    // adjusted (non-GAAP) figures are the company's own definitions, not the catalogue's
    let own_terms = ["non gaap", "non-gaap", "real change", "real growth", "organic", "constant currency", "comparable", "like-for-like", "pro forma"];
    if has_words(&l.replace("unadjusted", ""), "adjusted") || own_terms.iter().any(|w| l.contains(w)) {
        return None;
    }
    let years = formula::years_in(&l);
    let (&from, &to) = (years.iter().min()?, years.iter().max()?);
    let defs = definitions(question);
    let mut subs: HashMap<String, Expr> = HashMap::new();
    let mut main: Option<(String, Expr)> = None;
    // sub-definitions first (CCC = DIO + DSO − DPO, then DIO, DSO, DPO), so resolve in reverse
    for (name, text) in defs.iter().rev() {
        let e = match formula::parse(text, &|w: &str| resolve_words(cat, &subs, w)) {
            Ok(e) => e,
            Err(err) => return Some(Err(format!("the definition of {name} could not be read: {err}"))),
        };
        subs.insert(norm(name), e.clone());
        main = Some((name.clone(), e));
    }
    let (metric, expr, unit) = match (main, cat.metric_in(question)) {
        (Some((name, e)), m) => {
            let unit = m.map(|m| m.1.unit).unwrap_or(if l.contains('%') || l.contains("percent") { Unit::Percent } else { Unit::Ratio });
            (name, e, unit)
        }
        (None, Some((id, m))) => match cat.formula(&m.formula) {
            Ok(e) => (m.names.first().cloned().unwrap_or_else(|| id.to_string()), e, m.unit),
            Err(err) => return Some(Err(format!("metric `{id}`: {err}"))),
        },
        (None, None) => {
            let item = cat.item_in(&l)?;
            let one = Expr::Item(item.to_string(), Year::Rel(0));
            if has_words(&l, "margin") && item != "revenue" {
                // "<line item> % margin": the item over revenue
                let e = Expr::Bin('/', Box::new(one), Box::new(Expr::Item("revenue".into(), Year::Rel(0))));
                (format!("{} margin", cat.item_name(item)), e, Unit::Percent)
            } else {
                // a single line item, asked as an amount
                let asks_figure = ["usd", "amount", "in millions", "change", "growth", "cagr"].iter().any(|w| l.contains(w));
                if !asks_figure {
                    return None;
                }
                (cat.item_name(item), one, Unit::Amount)
            }
        }
    };
    // a ratio asked for ("debt to EBITDA ratio") is not the amount a shorter name inside it
    // names ("EBITDA"): no plan rather than a confident figure of the wrong kind
    if unit == Unit::Amount && has_words(&l, "ratio") {
        return None;
    }
    let span = years.len() >= 2 && from < to;
    let percent_asked = l.contains('%') || l.contains("percent");
    let shape = if l.contains("cagr") || l.contains("compound annual") {
        Shape::Cagr(from, to)
    } else if span && (l.contains("average") && (l.contains("year average") || l.contains("-year") || l.contains(" year "))) {
        Shape::Average(from, to)
    } else if span && (l.contains("year-over-year") || l.contains("yoy") || l.contains("growth") || (l.contains("change") && has_words(&l, "from"))) {
        if percent_asked || unit != Unit::Amount {
            Shape::Growth(from, to)
        } else {
            Shape::Difference(from, to)
        }
    } else {
        Shape::One(to)
    };
    let decimals = decimals(question);
    // a rate asked for to N decimal places without "percent" is wanted as a fraction ("effective
    // tax rate? round your answer to three decimal" -> 0.202, not 20.205%)
    let fraction_asked = unit == Unit::Percent && !percent_asked && decimals.is_some() && matches!(shape, Shape::One(_) | Shape::Average(..));
    let percent = !fraction_asked && (unit == Unit::Percent || matches!(shape, Shape::Growth(..) | Shape::Cagr(..)) || (percent_asked && unit != Unit::Amount));
    Some(Ok(Plan { metric, expr, unit, shape, format: Format { percent, decimals, scale: scale(question) } }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(q: &str) -> Plan {
        plan(q, &Catalogue::builtin()).unwrap_or_else(|| panic!("no plan for {q}")).unwrap_or_else(|e| panic!("{q}: {e}"))
    }

    #[test]
    fn questions_become_plans() {
        let d = p("What is FY2018 days payable outstanding (DPO) for Walmart? DPO is defined as: 365 * (average accounts payable between FY2017 and FY2018) / (FY2018 COGS + change in inventory between FY2017 and FY2018). Round your answer to two decimal places. Please base your judgments on the balance sheet.");
        assert_eq!(d.shape, Shape::One(2018));
        assert_eq!(d.format.decimals, Some(2));
        assert_eq!(d.expr.show(2018, &|s| s.to_string()), "365 × average accounts_payable FY2017–FY2018 ÷ (cogs FY2018 + change in inventory FY2017–FY2018)");

        let c = p("What is the FY2019 cash conversion cycle (CCC) for General Mills? CCC is defined as: DIO + DSO - DPO. DIO is defined as: 365 * (average inventory between FY2018 and FY2019) / (FY2019 COGS). DSO is defined as: 365 * (average accounts receivable between FY2018 and FY2019) / (FY2019 Total revenue). DPO is defined as: 365 * (average accounts payable between FY2018 and FY2019) / (FY2019 COGS + change in inventory between FY2018 and FY2019). Round your answer to two decimal places.");
        assert_eq!(c.metric, "CCC");
        let mut items = Vec::new();
        c.expr.items(&mut items);
        assert_eq!(items, vec!["inventory", "cogs", "accounts_receivable", "revenue", "accounts_payable"]);

        let a = p("What is the FY2017 - FY2019 3 year average of capex as a % of revenue for Activision Blizzard? Answer in units of percents and round to one decimal place.");
        assert_eq!((a.shape, a.format.percent, a.format.decimals), (Shape::Average(2017, 2019), true, Some(1)));

        let g = p(
            "What is Adobe's year-over-year change in unadjusted operating income from FY2015 to FY2016 (in units of percents and round to one decimal place)?",
        );
        assert_eq!((g.shape, g.format.percent), (Shape::Growth(2015, 2016), true));

        let t = p("what is Amazon's FY2017 effective tax rate? round your answer to three decimal");
        assert_eq!((t.unit, t.format.percent, t.format.decimals), (Unit::Percent, false, Some(3)), "a fraction, as asked");
        assert!(p("What is Amazon's FY2017 effective tax rate in percent?").format.percent);
        assert!(p("What is Amazon's FY2017 effective tax rate?").format.percent, "no rounding asked: the rate's own form");
        let cagr = p("What is Lockheed Martin's 2 year total revenue CAGR from FY2020 to FY2022 (in units of percents and round to one decimal place)?");
        assert_eq!(cagr.shape, Shape::Cagr(2020, 2022));

        let i = p("What is the year end FY2019 total amount of inventories for Best Buy? Answer in USD millions.");
        assert_eq!((i.metric.as_str(), i.unit, i.format.scale.map(|s| s.1)), ("inventory", Unit::Amount, Some("million")));

        assert!(plan("Does 3M have a reasonably healthy liquidity profile based on its quick ratio for Q2 of FY2023?", &Catalogue::builtin()).is_none());
        assert!(plan("What drove gross margin change as of FY2022 for 3M?", &Catalogue::builtin()).is_none());
        assert!(plan("What is the capital of France?", &Catalogue::builtin()).is_none());
        assert!(plan("what is Amazon's FY2017 debt to ebitda ratio? round your answer to three decimal places", &Catalogue::builtin()).is_none());
    }
}
