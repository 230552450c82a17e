//! Worked answers: a figure the question asks for (a metric of the catalogue, a formula defined in
//! the question, or one line item) read from statement tables and computed exactly, every operand
//! traced to its cell on its page, the calculation shown.
//!
//! [`work`] runs the whole step: [`plan::plan`] reads the question, [`table::tables`] reads the
//! statement pages (the retrieved pages first, then the filing's other pages that BM25 finds for
//! each line item), each operand is the best-labelled row's cell in the right year's column, and
//! [`formula::Expr::eval`] computes with [`ratio::Ratio`]. A missing operand is named, never guessed.

pub mod catalogue;
pub mod formula;
pub mod plan;
pub mod ratio;
pub mod table;

use crate::error::Result;
use crate::evidence::EvidenceBox;
use crate::library::Library;
use crate::pageref::PageRef;
use crate::retrieve::{Retriever, SearchRequest};
use catalogue::{norm, Catalogue, Unit};
use formula::EvalError;
use plan::{Plan, Shape};
use ratio::Ratio;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One input of a calculation, where it was read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Operand {
    /// The line item ("accounts payable").
    pub name: String,
    /// "FY2018"
    pub period: String,
    /// The value as printed in the table, with its sign (`(1,577)` -> `-1577`).
    pub value: String,
    /// The table's unit ("millions").
    pub unit: String,
    pub page: PageRef,
    /// The row label and the cell, as printed.
    pub quote: String,
    /// The row label's box and the cell's box, in PDF points.
    pub boxes: Vec<EvidenceBox>,
}

/// A worked answer: what was computed, from what, and the result as asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calculation {
    pub metric: String,
    /// The formula in words, years resolved.
    pub formula: String,
    pub operands: Vec<Operand>,
    /// The result, formatted as the question asked ("42.69", "1.9%", "$1,577 million"); `None`
    /// when it could not be computed (see `problem`).
    pub result: Option<String>,
    /// The whole calculation in one line, for the answer text and the log.
    pub display: String,
    /// Why there is no result: the operands not found, a division by zero, an unreadable
    /// definition.
    pub problem: Option<String>,
}

/// How well a row label names an item: exact label first, then a label starting with one.
fn label_score(label: &str, item: &catalogue::ItemDef) -> Option<i32> {
    let l = norm(label);
    let mut best = None;
    for (i, syn) in item.labels.iter().enumerate() {
        let s = norm(syn);
        let score = if l == s {
            1000 - i as i32
        } else if l.starts_with(&s) && l[s.len()..].starts_with([' ', ',', '(', ':']) {
            600 - i as i32
        } else {
            continue;
        };
        best = best.max(Some(score));
    }
    best
}

/// Finds operands on the candidate pages.
struct Finder<'a, 'b> {
    lib: &'a Library,
    cat: &'b Catalogue,
    candidates: Vec<PageRef>,
    docs: Vec<String>,
    searched: Vec<String>,
    found: Vec<Operand>,
    /// (item, year) -> value in units
    cache: HashMap<(String, i32), Option<Ratio>>,
    /// rows passed over because their year's columns could not be told apart
    ambiguous: Vec<String>,
    /// candidate page -> titled as a statement (looked up once per calculation)
    statements: HashMap<PageRef, bool>,
}

impl Finder<'_, '_> {
    /// Is the page titled as a financial statement (rerank profile)?
    fn is_statement(&mut self, p: &PageRef) -> bool {
        let lib = self.lib;
        *self
            .statements
            .entry(p.clone())
            .or_insert_with(|| lib.document(&p.doc_id).ok().and_then(|d| lib.page_profile(d.key, p.page).ok()).is_some_and(|pr| !pr.statements.is_empty()))
    }

    /// Add the filing's pages BM25 finds for an item's labels (once per item).
    fn widen(&mut self, item: &str) {
        if self.searched.iter().any(|s| s == item) {
            return;
        }
        self.searched.push(item.to_string());
        let Some(def) = self.cat.items.get(item) else { return };
        for doc in self.docs.clone() {
            // the item's labels plus statement titles: statements outrank notes that mention it
            let q = format!(
                "{} consolidated statements balance sheets income operations cash flows",
                def.labels.iter().take(3).cloned().collect::<Vec<_>>().join(" ")
            );
            let mut req = SearchRequest::new(q);
            req.docs = vec![doc];
            req.k = 10;
            req.filter = false;
            req.retriever = Retriever::Bm25;
            if let Ok(r) = self.lib.search(&req) {
                for h in r.hits {
                    let p = h.page_ref();
                    if !self.candidates.contains(&p) {
                        self.candidates.push(p);
                    }
                }
            }
        }
    }

    fn lookup(&mut self, item: &str, year: i32) -> Option<Ratio> {
        if let Some(v) = self.cache.get(&(item.to_string(), year)) {
            return *v;
        }
        let def = self.cat.items.get(item)?.clone();
        let mut best = self.best_on(&def, year);
        if best.is_none() {
            self.widen(item);
            best = self.best_on(&def, year);
        }
        let v = best.map(|(_, value, op)| {
            self.found.push(op);
            value
        });
        self.cache.insert((item.to_string(), year), v);
        v
    }

    /// The best-labelled row with a cell for `year` over the candidate pages: (score, value,
    /// operand). A table with two annual columns for the year whose cells differ cannot say
    /// which is meant: it is passed over and the candidates are kept for the problem text.
    fn best_on(&mut self, def: &catalogue::ItemDef, year: i32) -> Option<(i32, Ratio, Operand)> {
        let mut best: Option<(i32, Ratio, Operand)> = None;
        for (rank, p) in self.candidates.clone().iter().enumerate() {
            // a page titled as a statement beats a note or a discussion table with the same row
            let statement = self.is_statement(p);
            for t in self.lib.page_tables(p).iter() {
                let table_bonus = if statement { 200 } else { 0 } + 5 * t.rows.len().min(20) as i32;
                // annual figures: a quarter's or half-year's column is not the fiscal year's
                let cols: Vec<usize> =
                    t.columns.iter().enumerate().filter(|(_, c)| c.year == year && c.months.is_none_or(|m| m == 12)).map(|(i, _)| i).collect();
                let Some(&col) = cols.first() else { continue };
                for r in &t.rows {
                    let (Some(s), Some(Some(cell))) = (label_score(&r.label, def), r.cells.get(col)) else { continue };
                    let s = (s + table_bonus) * 10 - rank as i32;
                    if best.as_ref().is_some_and(|b| b.0 >= s) {
                        continue;
                    }
                    let others: Vec<&table::Cell> =
                        cols[1..].iter().filter_map(|c| r.cells.get(*c).and_then(Option::as_ref)).filter(|c| c.value != cell.value).collect();
                    if !others.is_empty() {
                        let heads: Vec<String> = cols.iter().map(|c| format!("\"{}\"", t.columns[*c].header)).collect();
                        let vals: Vec<&str> = std::iter::once(cell.text.as_str()).chain(others.iter().map(|c| c.text.as_str())).collect();
                        self.ambiguous.push(format!(
                            "{} FY{year} on {p}: columns {} cannot be told apart (candidates {})",
                            r.label,
                            heads.join(", "),
                            vals.join(", ")
                        ));
                        continue;
                    }
                    let Some(value) = cell.value.checked_mul(t.scale) else { continue };
                    let op = Operand {
                        name: def.names.first().cloned().unwrap_or_default(),
                        period: format!("FY{year}"),
                        value: cell.value.to_string(),
                        unit: t.unit.clone(),
                        page: p.clone(),
                        quote: format!("{} {}", r.label, cell.text),
                        boxes: vec![r.label_rect.clone(), cell.rect.clone()],
                    };
                    best = Some((s, value, op));
                }
            }
        }
        best
    }
}

fn group(s: &str) -> String {
    let (sign, rest) = s.strip_prefix('-').map_or(("", s), |r| ("-", r));
    let (int, frac) = rest.split_once('.').map_or((rest, None), |(a, b)| (a, Some(b)));
    let mut g = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            g.push(',');
        }
        g.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{g}.{f}"),
        None => format!("{sign}{g}"),
    }
}

/// The result as the question asked for it. Amounts from tables whose unit the page does not
/// state (`units_known` false) are shown as printed, not scaled to millions.
fn format_result(plan: &Plan, v: f64, exact: Option<Ratio>, units_known: bool) -> String {
    let f = &plan.format;
    if f.percent {
        let d = f.decimals.unwrap_or(1);
        let s = exact.and_then(|r| r.checked_mul(Ratio::int(100))).map(|r| r.round_str(d)).unwrap_or_else(|| format!("{:.*}", d as usize, v * 100.0));
        return format!("{s}%");
    }
    match plan.unit {
        Unit::Amount => {
            let (scale, name) =
                f.scale.unwrap_or(if units_known { (Ratio::int(1_000_000), "million") } else { (Ratio::int(1), "(in the table's unstated unit)") });
            let scaled = exact.and_then(|r| r.checked_div(scale));
            let d = f.decimals.unwrap_or(if scaled.map_or(v / scale.to_f64(), |r| r.to_f64()).abs() >= 100.0 { 0 } else { 2 });
            let s = scaled.map(|r| r.round_str(d)).unwrap_or_else(|| format!("{:.*}", d as usize, v / scale.to_f64()));
            let s = group(&s);
            match s.strip_prefix('-') {
                Some(pos) => format!("-${pos} {name}"),
                None => format!("${s} {name}"),
            }
        }
        Unit::Days => format!("{} days", exact.map(|r| r.round_str(f.decimals.unwrap_or(2))).unwrap_or_else(|| format!("{v:.2}"))),
        _ => exact.map(|r| r.round_str(f.decimals.unwrap_or(2))).unwrap_or_else(|| format!("{:.*}", f.decimals.unwrap_or(2) as usize, v)),
    }
}

fn problem_text(e: &EvalError, cat: &Catalogue) -> String {
    match e {
        EvalError::Missing(item, y) => format!("not found: {}, FY{y}", cat.item_name(item)),
        EvalError::DivisionByZero(what) => format!("division by zero: {what} is 0"),
        EvalError::Overflow => "the numbers are too large to compute exactly".into(),
    }
}

/// The worked answer to `question` from `pages` (and the rest of their filings), or `None` when
/// the question asks for no figure the catalogue knows.
pub fn work(lib: &Library, question: &str, pages: &[PageRef]) -> Result<Option<Calculation>> {
    let cat = lib.metrics();
    let plan = match plan::plan(question, cat) {
        None => return Ok(None),
        Some(Err(problem)) => {
            return Ok(Some(Calculation {
                metric: String::new(),
                formula: String::new(),
                operands: Vec::new(),
                result: None,
                display: problem.clone(),
                problem: Some(problem),
            }))
        }
        Some(Ok(p)) => p,
    };
    let mut docs: Vec<String> = Vec::new();
    for p in pages {
        if !docs.contains(&p.doc_id) {
            docs.push(p.doc_id.clone());
        }
    }
    let mut f = Finder {
        lib,
        cat,
        candidates: pages.to_vec(),
        docs,
        searched: Vec::new(),
        found: Vec::new(),
        cache: HashMap::new(),
        ambiguous: Vec::new(),
        statements: HashMap::new(),
    };
    let name = |i: &str| cat.item_name(i);
    let years: Vec<i32> = match plan.shape {
        Shape::One(y) => vec![y],
        Shape::Average(a, b) => (a..=b).collect(),
        Shape::Growth(a, b) | Shape::Difference(a, b) | Shape::Cagr(a, b) => vec![a, b],
    };
    let mut values: Vec<Ratio> = Vec::new();
    let mut problem = None;
    for y in &years {
        match plan.expr.eval(*y, &mut |i, yy| f.lookup(i, yy)) {
            Ok(v) => values.push(v),
            Err(e) => {
                let mut p = problem_text(&e, cat);
                if matches!(e, EvalError::Missing(..)) && !f.ambiguous.is_empty() {
                    p = format!("{p} ({})", f.ambiguous.join("; "));
                }
                problem = Some(p);
                break;
            }
        }
    }
    let per_year = |y: i32| plan.expr.show(y, &name);
    let formula = match plan.shape {
        Shape::One(y) => per_year(y),
        Shape::Average(a, b) => format!("average over FY{a}–FY{b} of [{}]", per_year(a)),
        Shape::Growth(a, b) => format!("([{}] − [{}]) ÷ [{}]", per_year(b), per_year(a), per_year(a)),
        Shape::Difference(a, b) => format!("[{}] − [{}]", per_year(b), per_year(a)),
        Shape::Cagr(a, b) => format!("([{}] ÷ [{}])^(1/{}) − 1", per_year(b), per_year(a), b - a),
    };
    let mut result = None;
    if problem.is_none() {
        let exact: std::result::Result<Option<Ratio>, String> = match plan.shape {
            Shape::One(_) => Ok(Some(values[0])),
            Shape::Average(..) => {
                let sum = values.iter().try_fold(Ratio::ZERO, |a, v| a.checked_add(*v));
                Ok(sum.and_then(|s| s.checked_div(Ratio::int(values.len() as i64))))
            }
            Shape::Growth(..) if values[0].is_zero() => Err("division by zero: the first year's value is 0".into()),
            Shape::Growth(..) => Ok(values[1].checked_sub(values[0]).and_then(|d| d.checked_div(values[0]))),
            Shape::Difference(..) => Ok(values[1].checked_sub(values[0])),
            Shape::Cagr(..) => Ok(None),
        };
        match exact {
            Err(p) => problem = Some(p),
            Ok(exact) => {
                let v = match (plan.shape, exact) {
                    (Shape::Cagr(a, b), _) => (values[1].to_f64() / values[0].to_f64()).powf(1.0 / (b - a) as f64) - 1.0,
                    (_, Some(r)) => r.to_f64(),
                    (_, None) => f64::NAN,
                };
                if v.is_finite() {
                    let units_known = f.found.iter().all(|o| o.unit != "units");
                    result = Some(format_result(&plan, v, exact, units_known));
                } else {
                    problem = Some("the result is not a finite number (a zero or negative base)".into());
                }
            }
        }
    }
    let operands_text: Vec<String> = f.found.iter().map(|o| format!("{} {} = {} ({}, {})", o.name, o.period, group(&o.value), o.unit, o.page)).collect();
    let display = match (&result, &problem) {
        (Some(r), _) => format!("{} = {r}. {formula}; {}", plan.metric, operands_text.join("; ")),
        (None, Some(p)) => format!("{} could not be computed: {p}. {formula}", plan.metric),
        (None, None) => unreachable!("a result or a problem"),
    };
    Ok(Some(Calculation { metric: plan.metric, formula, operands: f.found, result, display, problem }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NewPage;

    /// A library holding one one-page document laid out from cells.
    fn library_with(cells: &[(&str, f32, f32)]) -> Library {
        let mut lib = Library::in_memory().unwrap();
        let (text, boxes) = table::tests::page(cells);
        let page = NewPage { page: 1, text: &text, heading: "", boxes: &boxes, width: 612.0, height: 792.0, needs_ocr: false, label: None };
        let key = lib.store_mut().insert_pending("ACME_2019_10K", "/x.pdf", 1, "sha", &Default::default(), &[page]).unwrap();
        lib.store_mut().publish(key, &[]).unwrap();
        lib
    }

    #[test]
    fn ambiguous_columns_zero_divisors_and_missing_operands_are_explained() {
        let p = PageRef::new("ACME_2019_10K", 1);
        // two 2019 columns (as reported, restated) with different figures
        let lib = library_with(&[
            ("(in millions)", 50.0, 720.0),
            ("2019 As reported", 280.0, 700.0),
            ("2019 Restated", 400.0, 700.0),
            ("Total revenues", 50.0, 680.0),
            ("1,000", 300.0, 680.0),
            ("1,050", 420.0, 680.0),
            ("Cost of sales", 50.0, 670.0),
            ("600", 318.0, 670.0),
            ("600", 438.0, 670.0),
            ("Inventories", 50.0, 660.0),
            ("—", 324.0, 660.0),
            ("—", 444.0, 660.0),
        ]);
        let c = work(&lib, "What is ACME's FY2019 total revenue in USD millions?", std::slice::from_ref(&p)).unwrap().unwrap();
        assert_eq!(c.result, None);
        let why = c.problem.unwrap();
        assert!(why.starts_with("not found: revenue, FY2019 (Total revenues FY2019 on ACME_2019_10K#1: columns"), "{why}");
        assert!(why.contains("candidates 1,000, 1,050"), "{why}");
        // the same figure in both columns is no ambiguity
        let c = work(&lib, "What is ACME's FY2019 COGS in USD millions?", std::slice::from_ref(&p)).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("$600 million"));
        // a zero divisor is said, not computed
        let c = work(
            &lib,
            "What is ACME's FY2019 inventory turnover ratio? Inventory turnover ratio is defined as: (FY2019 COGS) / (FY2019 inventory).",
            std::slice::from_ref(&p),
        )
        .unwrap()
        .unwrap();
        assert_eq!(c.result, None);
        assert!(c.problem.as_deref().unwrap().starts_with("division by zero"), "{c:?}");
        assert!(!c.display.contains(" = "), "no number is shown without its operands: {}", c.display);
    }
}
