//! Question -> plan: which formula (a definition written in the question, else a catalogue metric,
//! else a single line item), over which fiscal years, and the form of the answer asked for.

use crate::figures::catalogue::{has_words, names_measure, norm, Catalogue, Unit};
use crate::figures::formula::{self, Expr, Year};
use crate::figures::ratio::Ratio;
use crate::question::{Direction, Judgements, Operation, Question, Rule, ValueType};
use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

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
    /// m[from] and m[to], compared: a yes/no or a direction ("improving operating margin?").
    Compare(i32, i32),
    /// m over `from..=to`, for a judgement on how much it moves ("consistent gross margins?").
    Series(i32, i32),
}

/// What a compare or judgement question wants said of the values.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// A yes/no about the direction from the first year to the second (or "which way").
    Direction { direction: Direction, asks: ValueType, words: (&'static str, &'static str) },
    /// A yes/no from a rule of `resources/judgements.json`.
    Rule(Rule),
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
    /// The catalogue metric's or line item's id ("gross_margin", "inventory"); `None` for a
    /// formula the question defines.
    pub id: Option<String>,
    pub expr: Expr,
    pub unit: Unit,
    pub shape: Shape,
    pub format: Format,
    pub verdict: Option<Verdict>,
    /// The period's length: 12 for fiscal years, 3 for a quarter ("Q2 of FY2023"), 6 for a half.
    pub months: u8,
    /// The question writes out the formula ("ROA is defined as ...").
    pub defined: bool,
    /// A formula the question writes that was not read as the definition and names line items
    /// the plan does not use, or none the catalogue knows ("Use total debt divided by total
    /// equity"): the catalogue's formula may be another.
    pub unread: Option<String>,
    /// The metric read as the filing prints it (its catalogue `printed` item, "Total debt
    /// 150,868"), not computed: the filing's own definition.
    pub as_printed: bool,
}

fn months_of(q: &Question) -> u8 {
    if !q.quarters.is_empty() {
        3
    } else if !q.halves.is_empty() {
        6
    } else {
        12
    }
}

/// "X is defined as: EXPR" sentences of a question, in order: (name, expression text).
fn definitions(q: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let lower = q.to_lowercase();
    let mut from = 0;
    while let Some((at, after)) = crate::question::definition_at(&lower, from) {
        // the name: the words before, back to the sentence start or a question mark
        let head = &q[..at];
        let start = head.rfind(['.', '?', ':', '\n']).map(|s| s + 1).unwrap_or(0);
        let name = head[start..].trim().trim_start_matches("and ").to_string();
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
        let expr = operators_in_words(rest[..end].trim().trim_end_matches('.'));
        out.push((name, expr));
        from = (rest_start + end).max(after);
    }
    out
}

/// A definition's operators written as words, as symbols: "cash from operations minus capital
/// expenditures" -> "cash from operations - capital expenditures" ("less than" stays words).
fn operators_in_words(expr: &str) -> String {
    static RE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\s+(minus|less(?:\s+than)?|plus|divided\s+by|multiplied\s+by|times)\s+").expect("valid regex"));
    RE.replace_all(expr, |c: &regex::Captures| {
        let w = c[1].to_lowercase();
        let op = match w.split_whitespace().next().unwrap_or("") {
            _ if w.ends_with("than") => return c[0].to_string(),
            "minus" | "less" => "-",
            "plus" => "+",
            "divided" => "/",
            _ => "*",
        };
        format!(" {op} ")
    })
    .into_owned()
}

/// The catalogue's line items a run of words names, each once: longest names first, and the
/// words of a name found are not read again ("cash from operations - capital expenditures"
/// names operating_cash_flow and capex, not cash).
fn items_named(cat: &Catalogue, text: &str) -> Vec<String> {
    let mut names: Vec<(String, &str)> = cat.items.iter().flat_map(|(id, it)| it.names.iter().chain(&it.labels).map(move |n| (norm(n), id.as_str()))).collect();
    names.sort_by_key(|(n, _)| std::cmp::Reverse(n.len()));
    let mut t = format!(" {} ", norm(text));
    let mut out: Vec<String> = Vec::new();
    for (n, id) in names {
        if n.is_empty() || !has_words(&t, &n) {
            continue;
        }
        if !out.iter().any(|o| o == id) {
            out.push(id.to_string());
        }
        let Ok(re) = Regex::new(&format!(r"\b{}\b", regex::escape(&n))) else { continue };
        t = re.replace_all(&t, " | ").into_owned();
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

/// The measure a run of words names exactly: a line item by one of its names or labels, a
/// catalogue metric by one of its names, or "average <balance>" (the mean of the year's two
/// year-end balances).
fn named_exactly(cat: &Catalogue, words: &str) -> Option<Expr> {
    let w = words.trim();
    let w = w.strip_prefix("the ").unwrap_or(w);
    // "equity" alone, as the other side of a ratio ("long-term debt to equity"), is the
    // shareholders' equity
    let w = if w == "equity" { "shareholders equity" } else { w };
    if let Some(rest) = w.strip_prefix("average ") {
        let (id, def) = cat.items.iter().find(|(_, i)| i.names.iter().chain(&i.labels).any(|n| norm(n) == rest))?;
        return def.balance.then(|| Expr::Avg(id.clone(), Year::Rel(-1), Year::Rel(0)));
    }
    if let Some((id, _)) = cat.items.iter().find(|(_, i)| i.names.iter().chain(&i.labels).any(|n| norm(n) == w)) {
        return Some(Expr::Item(id.clone(), Year::Rel(0)));
    }
    let (_, m) = cat.metrics.iter().find(|(_, m)| m.names.iter().any(|n| norm(n) == w))?;
    cat.formula(&m.formula).ok()
}

/// A ratio the question states by naming its two measures, "A to B" ("current liabilities to
/// total liabilities", "debt-to-EBITDA ratio", "the ratio of gross profit to total assets"):
/// (its name, A / B). Each side is the longest run of words beside "to" that names a measure
/// exactly ([`named_exactly`]), and what follows B ends the phrase ("ratio", "for", "in", the
/// question's end), so "from FY2019 to FY2020" or "cash used to repurchase shares" is none.
fn stated_ratio(cat: &Catalogue, l: &str) -> Option<(String, Expr)> {
    let t = l.replace("-to-", " to ").replace(['?', ','], " ");
    let words: Vec<&str> = t.split_whitespace().collect();
    const ENDS: &[&str] = &["ratio", "for", "in", "of", "at", "as", "during", "and", "round", "answer", "on", "from"];
    for (i, w) in words.iter().enumerate() {
        // "attributable to noncontrolling interests" names a party, not a divisor
        if *w != "to" || i == 0 || super::printed::PARTY.contains(&words[i - 1]) {
            continue;
        }
        let left = (1..=6.min(i)).rev().find_map(|n| {
            let phrase = words[i - n..i].join(" ");
            named_exactly(cat, &phrase).map(|e| (phrase, e))
        });
        let right = (1..=6.min(words.len() - i - 1)).rev().find_map(|n| {
            let end = words.get(i + 1 + n).copied();
            if end.is_some_and(|e| !ENDS.contains(&e)) {
                return None;
            }
            let phrase = words[i + 1..i + 1 + n].join(" ");
            named_exactly(cat, &phrase).map(|e| (phrase, e))
        });
        if let (Some((a, ea)), Some((b, eb))) = (left, right) {
            return Some((format!("{a} to {b}"), Expr::Bin('/', Box::new(ea), Box::new(eb))));
        }
    }
    None
}

/// The question with "A as a percentage of B" (a percent, a share, a proportion or a fraction
/// of B) written "A to B", so that [`stated_ratio`] reads it; `None` when it says none.
fn as_share_of(l: &str) -> Option<String> {
    const SHARES: &[&str] =
        &[" as a percentage of ", " as a percent of ", " as a % of ", " as a share of ", " as a proportion of ", " as a fraction of ", " as % of "];
    let at = SHARES.iter().find(|p| l.contains(*p))?;
    Some(l.replacen(at, " to ", 1))
}

fn scale(q: &str) -> Option<(Ratio, &'static str)> {
    crate::question::scale_asked(q).map(|w| {
        let s = match w {
            "billion" => 1_000_000_000i64,
            "million" => 1_000_000,
            _ => 1_000,
        };
        (Ratio::int(s), w)
    })
}

/// A metric as planned: its name, formula, unit and catalogue id.
type Measure = (String, Expr, Unit, Option<String>);

/// The metric a compare or judgement is about: the rule's, else the one the question names,
/// else a line item.
fn metric_expr(cat: &Catalogue, q: &Question, id: Option<&str>, text: &str) -> Option<Result<Measure, String>> {
    // a rule over a line item itself ("profitable": net income above zero)
    if let Some((id, def)) = id.and_then(|id| cat.items.get_key_value(id)).filter(|(id, _)| !cat.metrics.contains_key(*id)) {
        return Some(Ok((cat.item_name(id), Expr::Item(id.clone(), Year::Rel(0)), def.unit.unwrap_or(Unit::Amount), Some(id.clone()))));
    }
    if let Some(m) = id.and_then(|id| cat.metrics.get(id).map(|m| (id, m))).or_else(|| cat.metric_in(&q.text)).or_else(|| cat.metric_in(text)) {
        return Some(
            cat.formula(&m.1.formula)
                .map(|e| (m.1.names.first().cloned().unwrap_or_else(|| m.0.to_string()), e, m.1.unit, Some(m.0.to_string())))
                .map_err(|e| format!("metric `{}`: {e}", m.0)),
        );
    }
    let item = cat.item_in(&q.text).or_else(|| cat.item_in(text))?;
    // "X as a percent of sales": the item over revenue; a numerator the catalogue does not know
    // ("wages expense as a percent of net sales") is no plan, not revenue compared
    let t = norm(&q.text);
    if let Some(i) = t.find(" as a percent").or_else(|| t.find(" as a %")) {
        let head = &t[..i];
        let num = cat.item_in(head.rsplit(['\'', '?', ',']).next().unwrap_or(head)).filter(|n| *n != "revenue" || head.ends_with("revenue"))?;
        let e = Expr::Bin('/', Box::new(Expr::Item(num.to_string(), Year::Rel(0))), Box::new(Expr::Item("revenue".into(), Year::Rel(0))));
        return Some(Ok((format!("{} as a percent of revenue", cat.item_name(num)), e, Unit::Percent, Some(format!("{num}_margin")))));
    }
    let unit = cat.items.get(item).and_then(|i| i.unit).unwrap_or(Unit::Amount);
    Some(Ok((cat.item_name(item), Expr::Item(item.to_string(), Year::Rel(0)), unit, Some(item.to_string()))))
}

/// The plan of a comparison or a judgement: the metric over the years to compare, or the year
/// (or years) the rule looks at. A question that names no year is told to name one.
fn verdict_plan(q: &Question, cat: &Catalogue, rules: &Judgements) -> Option<Result<Plan, String>> {
    let years = if q.years.is_empty() { formula::years_in(&norm(&q.expanded)) } else { q.years.clone() };
    let rule = q.rule.as_ref().and_then(|r| rules.rules.get(r)).filter(|_| q.operation == Operation::Judgement).cloned();
    let (metric, expr, unit, id) = match metric_expr(cat, q, rule.as_ref().map(|r| r.metric.as_str()), &q.expanded)? {
        Ok(m) => m,
        Err(e) => return Some(Err(e)),
    };
    let Some(&to) = years.iter().max() else {
        return Some(Err(format!("name the fiscal year to {} {metric} for", if rule.is_some() { "judge" } else { "compare" })));
    };
    let from = years.iter().min().copied().filter(|f| *f < to).unwrap_or(to - 1);
    let (shape, verdict) = match rule {
        Some(r) if r.test.starts_with("change") => (Shape::Series(to + 1 - r.years.unwrap_or(3).max(2) as i32, to), Verdict::Rule(r)),
        Some(r) => (Shape::One(to), Verdict::Rule(r)),
        None => {
            // "improved or declined?" is answered in the question's words
            let words = if norm(&q.text).contains("improv") { ("Improved", "Declined") } else { ("Increased", "Decreased") };
            (Shape::Compare(from, to), Verdict::Direction { direction: q.direction.unwrap_or(Direction::Either), asks: q.asks, words })
        }
    };
    let percent = unit == Unit::Percent;
    Some(Ok(Plan {
        metric,
        id,
        expr,
        unit,
        shape,
        // an amount compared is shown as printed in millions ("$31,657 million"), a ratio to two
        // places, a rate to one
        format: Format {
            percent,
            decimals: q.form.decimals.or(match unit {
                _ if percent => Some(1),
                Unit::Amount => None,
                _ => Some(2),
            }),
            scale: scale(&q.text),
        },
        verdict: Some(verdict),
        months: months_of(q),
        defined: false,
        as_printed: false,
        unread: None,
    }))
}

/// The plan for a question, or `None` when it asks for no figure the catalogue knows.
pub fn plan(q: &Question, cat: &Catalogue, rules: &Judgements) -> Option<Result<Plan, String>> {
    // definitions are read as written; names are looked up as written, then with short forms out
    let question = q.text.as_str();
    let l = norm(question);
    let expanded = norm(&q.expanded);
    // narratives, rankings and yes/no questions without a direction or rule are not calculations
    match q.operation {
        Operation::Narrative | Operation::Rank => return None,
        _ => {}
    }
    // (why and what-drove questions are narratives: the question module reads them so)
    // a figure per share is read only as the statement's earnings per share (basic or diluted)
    let per_share_item = cat.item_in(&l).or_else(|| cat.item_in(&expanded)).is_some_and(|i| cat.items.get(i).is_some_and(|d| d.unit == Some(Unit::PerShare)));
    if (l.contains("per share") || has_words(&l, "eps")) && !per_share_item {
        return None;
    }
    // adjusted (non-GAAP) figures are the company's own definitions, not the catalogue's
    let own_terms = ["non gaap", "non-gaap", "real change", "real growth", "organic", "constant currency", "comparable", "like-for-like", "pro forma"];
    if has_words(&l.replace("unadjusted", ""), "adjusted") || own_terms.iter().any(|w| l.contains(w)) {
        return None;
    }
    // the catalogue's line items are read from the consolidated statements: the parent company
    // alone ("total cash at the parent company level") is another entity's figure
    if q.asks_parent_only() {
        return None;
    }
    if matches!(q.operation, Operation::Compare | Operation::Judgement) {
        return verdict_plan(q, cat, rules);
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
        // every line item the definition names is in the formula read from it: a formula that
        // drops one computes something else than was defined
        let mut used = Vec::new();
        e.items(&mut used);
        let subs_named = subs.keys().any(|k| has_words(&norm(text), k));
        if !subs_named {
            if let Some(missing) = items_named(cat, text).into_iter().find(|i| !used.contains(i)) {
                return Some(Err(format!("the definition of {name} names {}, which its formula as read does not use", cat.item_name(&missing))));
            }
        }
        subs.insert(norm(name), e.clone());
        main = Some((name.clone(), e));
    }
    // a ratio the question states by its two measures ("current liabilities to total
    // liabilities") over a metric named inside one of them ("debt to EBITDA" is no EBITDA),
    // unless the catalogue lists the ratio itself under that name
    let named_metric = cat.metric_in(question).or_else(|| cat.metric_in(&expanded));
    let stated = if main.is_none() { stated_ratio(cat, &l).or_else(|| stated_ratio(cat, &expanded)) } else { None };
    // ... or as one's share of the other ("net income as a percentage of revenue"), where the
    // catalogue has no metric of that name
    let stated = stated.or_else(|| if main.is_none() && named_metric.is_none() { as_share_of(&l).and_then(|t| stated_ratio(cat, &t)) } else { None });
    let stated = stated.filter(|_| !named_metric.is_some_and(|(_, m)| m.names.iter().any(|n| norm(n).contains(" to ") && names_measure(&l, &norm(n)))));
    if let Some((name, e)) = stated {
        let percent_asked = !crate::question::points_asked(&l) && (l.contains('%') || l.contains("percent"));
        let years = formula::years_in(&l);
        let to = *years.iter().max()?;
        return Some(Ok(Plan {
            metric: name,
            id: None,
            expr: e,
            unit: if percent_asked { Unit::Percent } else { Unit::Ratio },
            shape: Shape::One(to),
            format: Format { percent: percent_asked, decimals: q.form.decimals, scale: None },
            verdict: None,
            months: months_of(q),
            defined: true,
            as_printed: false,
            unread: None,
        }));
    }
    let (metric, expr, unit, id) = match (main, named_metric) {
        (Some((name, e)), m) => {
            let unit = m.map(|m| m.1.unit).unwrap_or(if l.contains('%') || l.contains("percent") { Unit::Percent } else { Unit::Ratio });
            (name, e, unit, m.map(|m| m.0.to_string()))
        }
        (None, Some((id, m))) => match cat.formula(&m.formula) {
            Ok(e) => (m.names.first().cloned().unwrap_or_else(|| id.to_string()), e, m.unit, Some(id.to_string())),
            Err(err) => return Some(Err(format!("metric `{id}`: {err}"))),
        },
        (None, None) => {
            let item = cat.item_in(&l).or_else(|| cat.item_in(&expanded)).or_else(|| tax_paid(cat, &l))?;
            let one = Expr::Item(item.to_string(), Year::Rel(0));
            if averaged_balance(cat, item, &l) {
                // "average inventory in FY2022": the mean of the year's two year-end balances,
                // not the balance at its end
                let e = Expr::Avg(item.to_string(), Year::Rel(-1), Year::Rel(0));
                (format!("average {}", cat.item_name(item)), e, Unit::Amount, Some(item.to_string()))
            } else if has_words(&l, "margin") && item != "revenue" {
                // "<line item> % margin": the item over revenue
                let e = Expr::Bin('/', Box::new(one), Box::new(Expr::Item("revenue".into(), Year::Rel(0))));
                (format!("{} margin", cat.item_name(item)), e, Unit::Percent, Some(format!("{item}_margin")))
            } else {
                // a single line item, asked as an amount (or a terse "FY2018 net PPNE for 3M")
                let first = l.split_whitespace().next().unwrap_or("");
                let terse = !["what", "how", "which", "who", "why", "when", "where"].contains(&first);
                // "What was 3M's revenue in 2018?", "How much cash did it have at the end of
                // 2018?": a line item's value in a year, asked in plain words
                // ... or "What did Verizon earn in 2022?": its net income
                let earned = l.starts_with("what did ") && (has_words(&l, "earn") || has_words(&l, "earned"));
                // ... or "What dividend per share did General Mills pay in fiscal 2022?": the
                // item named right after "what"
                let named_first = l.strip_prefix("what ").is_some_and(|rest| {
                    let rest = rest.strip_prefix("total ").unwrap_or(rest);
                    cat.items.get(item).is_some_and(|d| d.names.iter().chain(&d.labels).any(|n| rest.starts_with(&format!("{} ", norm(n)))))
                });
                let plain = q.operation == Operation::Value
                    && (l.starts_with("what was") || l.starts_with("what were") || l.starts_with("how much") || earned || named_first);
                // ... or how much it grew or fell ("How much did Amazon's net sales grow from 2018
                // to 2019?"), which the question reader reads as a change of a figure
                let moved = q.operation == Operation::Change;
                let asks_figure = terse || plain || moved || ["usd", "amount", "in millions", "change", "growth", "cagr"].iter().any(|w| l.contains(w));
                if !asks_figure {
                    return None;
                }
                // the item names only part of the measure asked ("net cash used in investing
                // activities" holds "cash"): another line item, not this one
                if let Some(extra) = uncovered(cat, item, &q.text) {
                    return Some(Err(format!("the question asks for \"{extra}\"; the line item {} names only part of it", cat.item_name(item))));
                }
                // "How much cash did Amazon burn in 2019?" asks for a flow over the year, not the
                // balance at its end
                if let Some(verb) = flow_verb(cat, item, &l) {
                    return Some(Err(format!(
                        "the question asks how much {} the company {verb} during the year, a flow, not the balance at its end",
                        cat.item_name(item)
                    )));
                }
                (cat.item_name(item), one, cat.items.get(item).and_then(|i| i.unit).unwrap_or(Unit::Amount), Some(item.to_string()))
            }
        }
    };
    // a ratio asked for ("debt to EBITDA ratio") is not the amount a shorter name inside it
    // names ("EBITDA"): no plan rather than a confident figure of the wrong kind
    if unit == Unit::Amount && has_words(&l, "ratio") {
        return None;
    }
    // ... nor an amount's margin ("free cash flow margin" is no free cash flow)
    if unit == Unit::Amount && has_words(&l, &format!("{} margin", norm(&metric))) {
        return None;
    }
    let span = years.len() >= 2 && from < to;
    // "in percentage points" asks for points, not a percent change
    let percent_asked = !crate::question::points_asked(&l) && (l.contains('%') || l.contains("percent"));
    // a metric that is itself a change ("revenue growth" = (revenue − prev(revenue)) ÷ prev)
    // asked "from FY2017 to FY2018" is that change at the later year, not the change of it
    // a balance's change asked of one year ("the net change in 3M's cash and cash equivalents
    // during FY2018"): the balance at the year's end less the year before's, not the balance
    let balance_changed = !span
        && q.operation == Operation::Change
        && !percent_asked
        && id.as_deref().and_then(|i| cat.items.get(i)).is_some_and(|d| d.balance)
        && matches!(expr, Expr::Item(..));
    let shape = if balance_changed {
        Shape::Difference(to - 1, to)
    } else if expr.is_change() {
        Shape::One(to)
    } else if l.contains("cagr") || l.contains("compound annual") {
        Shape::Cagr(from, to)
    } else if span && (l.contains("average") && (l.contains("year average") || l.contains("-year") || l.contains(" year "))) {
        Shape::Average(from, to)
    } else if span
        && (q.operation == Operation::Change || l.contains("year-over-year") || l.contains("growth") || (l.contains("change") && has_words(&l, "from")))
    {
        // a rate changes by points (both rates shown); an amount or a ratio by percent when a
        // percent is asked, an amount by its difference otherwise
        if unit == Unit::Percent && !percent_asked {
            Shape::Difference(from, to)
        } else if percent_asked || !unit.adds_up() {
            Shape::Growth(from, to)
        } else {
            Shape::Difference(from, to)
        }
    } else if !span && matches!(expr, Expr::Item(..)) && (l.contains("year over year") || l.contains("year-over-year") || q.operation == Operation::Change) {
        // "How much did net income change year over year in FY2018?", "How much did Walmart's
        // total revenues grow in fiscal 2018?": FY2018 against FY2017, not FY2018's figure
        if unit == Unit::Percent && !percent_asked {
            Shape::Difference(to - 1, to)
        } else if percent_asked || !unit.adds_up() {
            Shape::Growth(to - 1, to)
        } else {
            Shape::Difference(to - 1, to)
        }
    } else {
        Shape::One(to)
    };
    let decimals = q.form.decimals;
    // a rate asked for to N decimal places without "percent" is wanted as a fraction ("effective
    // tax rate? round your answer to three decimal" -> 0.202, not 20.205%)
    let fraction_asked = unit == Unit::Percent && !percent_asked && decimals.is_some() && matches!(shape, Shape::One(_) | Shape::Average(..));
    let percent = !fraction_asked && (unit == Unit::Percent || matches!(shape, Shape::Growth(..) | Shape::Cagr(..)) || (percent_asked && unit != Unit::Amount));
    let unread = if defs.is_empty() { unread_formula(cat, question, &expr) } else { None };
    Some(Ok(Plan {
        metric,
        id,
        expr,
        unit,
        shape,
        format: Format { percent, decimals, scale: scale(question) },
        verdict: None,
        months: months_of(q),
        defined: !defs.is_empty(),
        as_printed: false,
        unread,
    }))
}

/// Whether `l` (the question, normalised) asks for the average of the balance `item` over a
/// year ("average inventory in FY2022", "average total assets"): "average" just before one of
/// the item's names or labels, and no span of years to average over ("3 year average").
fn averaged_balance(cat: &Catalogue, item: &str, l: &str) -> bool {
    let Some(def) = cat.items.get(item).filter(|d| d.balance) else { return false };
    if l.contains("year average") || l.contains("-year") {
        return false;
    }
    def.names.iter().chain(&def.labels).any(|n| has_words(l, &format!("average {}", norm(n))))
}

/// "How much tax did Block pay in 2020?": the income taxes it paid in cash, when the question
/// names tax and paying and no other line item.
fn tax_paid<'a>(cat: &'a Catalogue, l: &str) -> Option<&'a str> {
    let taxed = has_words(l, "tax") || has_words(l, "taxes");
    let paid = ["pay", "paid", "pays"].iter().any(|w| has_words(l, w));
    let other = ["sales", "property", "payroll", "excise", "deferred", "rate", "use"].iter().any(|w| has_words(l, w));
    (taxed && paid && !other).then(|| cat.items.get_key_value("income_taxes_paid").map(|(k, _)| k.as_str())).flatten()
}

/// Verbs that make a balance's name a flow: cash burned, generated, spent or raised in a year
/// is not the cash held at its end.
const FLOW_VERBS: [&str; 16] = [
    "burn",
    "burned",
    "burnt",
    "burning",
    "burns",
    "generate",
    "generated",
    "generates",
    "spend",
    "spent",
    "use",
    "used",
    "consume",
    "consumed",
    "raise",
    "raised",
];

/// The verb of `l` (the question, normalised) that asks for a flow of the balance `item`
/// ([`FLOW_VERBS`]), if any.
fn flow_verb(cat: &Catalogue, item: &str, l: &str) -> Option<&'static str> {
    cat.items.get(item).filter(|d| d.balance)?;
    FLOW_VERBS.into_iter().find(|v| has_words(l, v))
}

/// The measure a question names after its possessor ("What was 3M's net cash used in investing
/// activities in FY2018?" -> "net cash used in investing activities"), when it holds content
/// words that none of `item`'s names and labels has: that measure, else None.
fn uncovered(cat: &Catalogue, item: &str, question: &str) -> Option<String> {
    // words of the question's shape (a change, a growth, an average), not of the measure
    const GENERIC: [&str; 43] = [
        "total",
        "net",
        "the",
        "and",
        "of",
        "a",
        "an",
        "annual",
        "reported",
        "consolidated",
        "gaap",
        "year",
        "end",
        "fiscal",
        "amount",
        "company",
        "its",
        "s",
        "over",
        "change",
        "changes",
        "growth",
        "grow",
        "grew",
        "cagr",
        "average",
        "increase",
        "decrease",
        "decline",
        "declined",
        "increased",
        "decreased",
        "fall",
        "fell",
        "rise",
        "rose",
        "drop",
        "dropped",
        "shrink",
        "yoy",
        "worldwide",
        "overall",
        "unadjusted",
    ];
    const STOPS: [&str; 18] = [
        " in fy",
        " in 20",
        " in 19",
        " in q",
        " in the ",
        " at ",
        " for ",
        " during ",
        " as of ",
        " of fy",
        " from ",
        " between ",
        "?",
        ",",
        ";",
        " (",
        " in usd",
        " attributable",
    ];
    let phrase = crate::question::after_possessor(question, &STOPS)?;
    let def = cat.items.get(item)?;
    let covered: Vec<String> = def.names.iter().chain(&def.labels).flat_map(|n| crate::text::plain_words(n)).collect();
    let extra = crate::text::plain_words(&phrase)
        .into_iter()
        .filter(|w| !GENERIC.contains(&w.as_str()) && !crate::text::is_stop_word(w) && !w.chars().any(|c| c.is_ascii_digit()))
        .filter(|w| {
            let stem = |x: &str| x.chars().take(5).collect::<String>();
            !covered.iter().any(|c| c == w || (c.chars().count() > 3 && w.chars().count() > 3 && stem(c) == stem(w)))
        })
        .count();
    (extra > 0).then(|| phrase.to_string())
}

/// A sentence after the question's own that writes a formula in words or symbols ("Use total
/// debt divided by total shareholders' equity", "Quick ratio: (current assets - inventory) /
/// current liabilities") naming a line item `expr` does not use, or none the catalogue knows.
fn unread_formula(cat: &Catalogue, question: &str, expr: &Expr) -> Option<String> {
    static OPS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\b(divided\s+by|minus|plus|multiplied\s+by)\b|\s[/÷×*+]\s").expect("valid regex"));
    let tail = &question[question.find('?')? + 1..];
    let mut used = Vec::new();
    expr.items(&mut used);
    tail.split_inclusive(['.', '?', '!']).map(str::trim).filter(|s| OPS.is_match(s)).find_map(|s| {
        // the statements it points to are not line items ("[from cash flow statement]")
        static SOURCES: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"(?i)\[[^\]]*\]|\b(?:cash flows? statements?|statements? of cash flows?|balance sheets?|income statements?)\b").expect("valid regex")
        });
        let named = items_named(cat, &SOURCES.replace_all(s, " "));
        (named.is_empty() || named.iter().any(|i| !used.contains(i))).then(|| s.trim_end_matches('.').to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_of(q: &str) -> Option<Result<Plan, String>> {
        plan(&Question::parse(q), &Catalogue::builtin(), &Judgements::builtin())
    }

    fn p(q: &str) -> Plan {
        plan_of(q).unwrap_or_else(|| panic!("no plan for {q}")).unwrap_or_else(|e| panic!("{q}: {e}"))
    }

    /// "What did Verizon earn in 2022?" asks for its net income (a sentence about an "earn out
    /// period" was green before, the fourteenth battery's last wrong green).
    #[test]
    fn what_a_company_earned_is_its_net_income() {
        for q in ["What did Verizon earn in 2022?", "How much did Verizon earn in 2022?"] {
            assert_eq!(p(q).id.as_deref(), Some("net_income"), "{q}");
        }
        assert_eq!(p("How much did Verizon earn in revenue in 2022?").id.as_deref(), Some("revenue"));
    }

    /// "What dividend per share did General Mills pay in fiscal 2022?": the item named right
    /// after "what" is asked as a figure (it was no plan: only "what was" and "how much" were)
    #[test]
    fn an_item_named_after_what_is_asked_as_a_figure() {
        let d = p("What dividend per share did General Mills pay in fiscal 2022?");
        assert_eq!((d.id.as_deref(), d.unit), (Some("dividends_per_share"), Unit::PerShare));
        assert_eq!(p("What net income did Verizon report in 2022?").id.as_deref(), Some("net_income"));
        // a word before the item's name is another question
        assert!(plan_of("What drove net income at Verizon in 2022?").is_none());
    }

    /// "How much did Amazon's net sales grow from 2018 to 2019?" is the change in revenue over
    /// the two years (it was no plan: the words "grow" and "how much did" are not a figure's)
    #[test]
    fn how_much_a_figure_grew_is_its_change() {
        let c = p("How much did Amazon's net sales grow from 2018 to 2019?");
        assert_eq!((c.id.as_deref(), c.shape), (Some("revenue"), Shape::Difference(2018, 2019)));
        let f = p("How much did Verizon's operating income fall from 2021 to 2022?");
        assert_eq!((f.id.as_deref(), f.shape), (Some("operating_income"), Shape::Difference(2021, 2022)));
        // one year named: the change over the year before (it was that year's revenue, green)
        let w = p("How much did Walmart's total revenues grow in fiscal 2018?");
        assert_eq!((w.id.as_deref(), w.shape), (Some("revenue"), Shape::Difference(2017, 2018)));
    }

    /// "Average inventory in FY2022" is the mean of the two year-end balances (the year's end
    /// alone was green: eight in the twentieth battery); a flow is not averaged, nor a span.
    #[test]
    fn an_average_balance_is_the_mean_of_two_year_ends() {
        let a = p("What was 3M's average inventory in FY2022, in USD millions?");
        assert_eq!(a.expr.show(2022, &|s| s.to_string()), "average inventory FY2021–FY2022");
        assert_eq!((a.metric.as_str(), a.shape), ("average inventory", Shape::One(2022)));
        let t = p("What were 3M's average total assets in FY2022?");
        assert_eq!(t.expr.show(2022, &|s| s.to_string()), "average total_assets FY2021–FY2022");
        assert_eq!(p("What was 3M's inventory at the end of FY2022?").expr.show(2022, &|s| s.to_string()), "inventory FY2022");
        // revenue is no balance
        assert_eq!(p("What was 3M's average revenue in FY2022?").expr.show(2022, &|s| s.to_string()), "revenue FY2022");
    }

    /// "How much cash did Amazon burn in 2019?" is no balance: the cash at the year's end was
    /// green for it (sixteen in the twenty-first battery).
    #[test]
    fn cash_burned_is_not_the_cash_held() {
        for q in ["How much cash did Amazon burn in 2019?", "How much cash did Boeing generate in 2022?", "How much cash did Verizon spend in 2022?"] {
            let e = plan_of(q).unwrap().unwrap_err();
            assert!(e.contains("a flow, not the balance"), "{q}: {e}");
        }
        assert_eq!(p("How much cash did Amazon have at the end of 2019?").id.as_deref(), Some("cash"));
    }

    /// "Free cash flow margin" is free cash flow over revenue, never the free cash flow (eight
    /// were green in the twenty-third battery); an amount's margin the catalogue has no metric
    /// for is no plan.
    #[test]
    fn an_amounts_margin_is_not_the_amount() {
        assert_eq!(p("What was 3M's free cash flow margin in FY2018?").id.as_deref(), Some("fcf_margin"));
        assert!(plan_of("What was 3M's EBITDA less capex margin in FY2018?").is_none());
    }

    /// "How much tax did Block pay in 2020?" is the income taxes paid in cash (a sentence about a
    /// sales tax audit was green for it).
    #[test]
    fn tax_paid_is_the_income_taxes_paid() {
        assert_eq!(p("How much tax did Block pay in 2020?").id.as_deref(), Some("income_taxes_paid"));
        assert_eq!(p("How much in taxes did Walmart pay in 2020?").id.as_deref(), Some("income_taxes_paid"));
        let sales = plan_of("How much sales tax did Block pay in 2020?");
        assert!(!matches!(sales, Some(Ok(ref p)) if p.id.as_deref() == Some("income_taxes_paid")), "{sales:?}");
    }

    /// "Change year over year in FY2018" of one year is FY2018 against FY2017: in percent when
    /// a percent is asked, the difference otherwise.
    #[test]
    fn a_year_over_year_change_of_one_year_is_against_the_year_before() {
        let g = p("How much did 3M's net income change year over year in FY2018, in percent?");
        assert_eq!((g.shape, g.format.percent), (Shape::Growth(2017, 2018), true));
        let d = p("How much did 3M's net income change year-over-year in FY2018, in USD millions?");
        assert_eq!(d.shape, Shape::Difference(2017, 2018));
    }

    #[test]
    fn a_ratio_stated_by_its_two_measures_is_their_quotient() {
        let show = |p: &Plan| p.expr.show(2021, &|s| s.to_string());
        let r = p("what is current liabilities to total assets for COSTCO in FY2021? Round your answer to three decimal places.");
        assert_eq!(
            (show(&r), r.unit, r.format.decimals, r.defined),
            ("current_liabilities FY2021 ÷ total_assets FY2021".to_string(), Unit::Ratio, Some(3), true)
        );
        let g = p("What is the ratio of gross profit to total assets for Best Buy in FY2023?");
        assert_eq!(g.expr.show(2023, &|s| s.to_string()), "gross_profit FY2023 ÷ total_assets FY2023");
        // a metric on one side, an average balance on the other, hyphens, percent asked
        let d = p("What is Walmart's capex to average total assets ratio in FY2020, in percent?");
        assert_eq!((d.expr.show(2020, &|s| s.to_string()), d.format.percent), ("capex FY2020 ÷ average total_assets FY2019–FY2020".to_string(), true));
        // a catalogue ratio named whole is the catalogue's; "from ... to" is a span, not a ratio
        assert_eq!(p("What is 3M's operating cash flow to net income ratio in FY2018?").id.as_deref(), Some("ocf_to_net_income"));
        assert_eq!(p("By how much did 3M's revenue change from FY2017 to FY2018?").shape, Shape::Difference(2017, 2018));
        // "attributable to" names a party
        assert!(stated_ratio(&Catalogue::builtin(), "what was 3m's net income attributable to shareholders equity in fy2018").is_none());
        assert!(stated_ratio(&Catalogue::builtin(), "what was 3m's net income to shareholders equity in fy2018").is_some());
        let (name, e) = stated_ratio(&Catalogue::builtin(), "what was 3m's long-term debt to equity ratio at the end of fy2018").unwrap();
        assert_eq!(name, "long-term debt to equity");
        let mut used = Vec::new();
        e.items(&mut used);
        assert_eq!(used, vec!["long_term_debt".to_string(), "total_equity".to_string()]);
        // a share of the other, as the catalogue names no metric so
        let l = "what was costco's net income as a percentage of revenue in fy2021?";
        let (name, _) = stated_ratio(&Catalogue::builtin(), &as_share_of(l).unwrap()).unwrap();
        assert_eq!(name, "net income to revenue");
        assert!(as_share_of("what was costco's net income in fy2021?").is_none());
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
        // a growth metric over a span is the growth at its end, not the growth of the growth
        let rg = p("What is 3M's revenue growth from FY2017 to FY2018 in percent?");
        assert_eq!((rg.shape, rg.id.as_deref(), rg.format.percent), (Shape::One(2018), Some("revenue_growth"), true));
        let cagr = p("What is Lockheed Martin's 2 year total revenue CAGR from FY2020 to FY2022 (in units of percents and round to one decimal place)?");
        assert_eq!(cagr.shape, Shape::Cagr(2020, 2022));
        // an amount compared is shown as printed in millions, not to cents
        let up = p("Did 3M's revenue increase from FY2017 to FY2018?");
        assert_eq!((up.unit, up.format.decimals), (Unit::Amount, None));
        // a margin's change "in percentage points" is the difference of the two margins
        let pts = p("What is 3M's FY2021 to FY2022 change in unadjusted operating income margin (in percentage points, one decimal place)?");
        assert_eq!((pts.shape, pts.unit), (Shape::Difference(2021, 2022), Unit::Percent));

        let i = p("What is the year end FY2019 total amount of inventories for Best Buy? Answer in USD millions.");
        assert_eq!((i.metric.as_str(), i.unit, i.format.scale.map(|s| s.1)), ("inventory", Unit::Amount, Some("million")));

        assert!(matches!(
            plan_of("Does 3M have a reasonably healthy liquidity profile based on its quick ratio for Q2 of FY2023?").unwrap().unwrap().verdict,
            Some(Verdict::Rule(_))
        ));
        assert!(plan_of("What drove gross margin change as of FY2022 for 3M?").is_none());
        assert!(plan_of("What is the capital of France?").is_none());
        assert!(plan_of("what is Amazon's FY2017 debt to ebitda ratio? round your answer to three decimal places").is_none());
    }

    #[test]
    fn a_definition_in_words_is_read_whole_or_not_at_all() {
        // "minus" is an operator: both line items are in the formula
        let f = p("What is 3M's FY2018 free cash flow? Free cash flow is defined as cash from operations minus capital expenditures. Answer in USD millions.");
        let mut items = Vec::new();
        f.expr.items(&mut items);
        assert_eq!(items, vec!["operating_cash_flow", "capex"], "{:?}", f.expr);
        let f = p("What is Adobe's FY2016 EBITDA less capex? EBITDA less capex is defined as operating income plus depreciation and amortization less capital expenditures.");
        let mut items = Vec::new();
        f.expr.items(&mut items);
        assert_eq!(items, vec!["operating_income", "depreciation_amortization", "capex"]);
        // a formula that would drop a line item its definition names is refused, not computed
        let err = plan_of("What is ACME's FY2018 spread? Spread is defined as total assets and total current liabilities.").unwrap().unwrap_err();
        assert!(err.contains("does not use"), "{err}");
        assert_eq!(operators_in_words("x less than y minus z"), "x less than y - z");
        // a definition written as "X is (A minus B) divided by C" is read
        let q = p("What was Boeing's quick ratio at the end of FY2018? Quick ratio is (current assets minus inventory) divided by current liabilities.");
        let mut items = Vec::new();
        q.expr.items(&mut items);
        assert_eq!((items, q.defined), (vec!["current_assets".to_string(), "inventory".into(), "current_liabilities".into()], true));
        // ... but not "What is (in USD millions)": the question's own words
        assert!(!p("What is (in USD millions) 3M's FY2018 revenue?").defined);
        // a formula written otherwise, naming items the catalogue's formula does not use, is
        // kept to be said: the answer is the catalogue's, not the one written
        let u = p("What was Boeing's quick ratio at the end of FY2018? Use current assets minus inventories, divided by current liabilities.");
        assert!(u.unread.as_deref().is_some_and(|s| s.starts_with("Use current assets")), "{:?}", u.unread);
        // a formula whose items are all the catalogue formula's is no reason for doubt
        let e = p("What is the FY2022 unadjusted EBITDA less capex for PepsiCo? Define unadjusted EBITDA as unadjusted operating income + depreciation and amortization [from cash flow statement]. Answer in USD millions.");
        assert_eq!(e.unread, None);
    }

    #[test]
    fn a_line_item_naming_only_part_of_the_measure_asked_is_no_plan_for_it() {
        // "cash" inside "net cash used in investing activities": the cash flow total, not cash
        let i = p("What was 3M's net cash used in investing activities in FY2018, in USD millions?");
        assert_eq!(i.id.as_deref(), Some("investing_cash_flow"));
        let err = plan_of("What was 3M's accumulated depreciation at the end of FY2018, in USD millions?").unwrap().unwrap_err();
        assert!(err.contains("names only part"), "{err}");
        // the words of the question's shape are not the measure's
        assert_eq!(p("What is 3M's year-over-year change in revenue from FY2017 to FY2018 (in units of percents)?").id.as_deref(), Some("revenue"));
        assert_eq!(p("What is Lockheed Martin's 2 year total revenue CAGR from FY2020 to FY2022?").shape, Shape::Cagr(2020, 2022));
        // a balance's change in one year is the difference of two year-ends
        let c = p("What was the net change in 3M's cash and cash equivalents during FY2018, in USD millions?");
        assert_eq!((c.id.as_deref(), c.shape), (Some("cash"), Shape::Difference(2017, 2018)));
    }
}
