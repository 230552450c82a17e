//! The accounting identities a filing's facts are tested against, each recorded as passed or
//! failed with the facts it was made of:
//!
//! - `subtotal` (on the primary statements; notes' tables are too often not sums): a total row ("Total current assets", "Net cash provided by operating
//!   activities") equals the rows printed right above it, totals already checked standing for
//!   their own rows ("Total assets" = "Total current assets" + the rows after it);
//! - `balance`: total assets equal total liabilities and equity, which equal total liabilities
//!   plus total equity;
//! - `cash`: the cash flow statement's change in cash equals its closing less its opening cash;
//! - `agree`: net income printed under one label on the income statement and the cash flow
//!   statement is the same figure for the same period.
//!
//! Every comparison allows what rounding the printed figures allows: half a unit of their last
//! printed digit for each figure added.

use super::{Fact, FactId, BALANCE_SHEET, CASH_FLOW};
use crate::figures::catalogue::norm;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One identity tested over a filing's facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    /// `subtotal`, `balance`, `cash` or `agree`.
    pub name: String,
    /// The page of its total (or of its first fact).
    pub page: u32,
    /// The period, as [`super::Period::shown`] says it.
    pub period: String,
    pub passed: bool,
    /// The sum as done: "Total current assets 7,219 = 2,853 + 4,366".
    pub detail: String,
    /// The facts it was made of; the first is the total.
    pub facts: Vec<FactId>,
}

/// Most rows above a total its sum may reach back over.
const MAX_ROWS: usize = 30;

/// Decimals printed in a cell ("1,234.5" has 1).
fn decimals(printed: &str) -> i32 {
    let digits: String = printed.chars().filter(|c| c.is_ascii_digit() || *c == '.').collect();
    digits.split_once('.').map_or(0, |(_, d)| d.len() as i32)
}

/// How far a sum of `facts` may be from its total by rounding alone, in the table's unit.
fn tolerance(facts: &[&Fact]) -> f64 {
    facts.iter().map(|f| 0.5 * 10f64.powi(-decimals(&f.printed))).sum::<f64>() + 1e-9
}

fn value(f: &Fact) -> f64 {
    f.ratio().map_or(f64::NAN, |r| r.to_f64())
}

fn shown(f: &Fact) -> String {
    f.printed.trim().to_string()
}

/// A row a section's rows add up to.
fn is_total(label: &str) -> bool {
    let l = norm(label);
    l.starts_with("total ")
        || l == "total"
        || l.ends_with(" total")
        || l.starts_with("net cash provided")
        || l.starts_with("net cash used")
        || l.starts_with("net cash from")
}

/// A cash flow statement's section total ("Net cash used in investing activities").
fn is_section_cash(label: &str) -> bool {
    norm(label).starts_with("net cash")
}

/// A row printed as a positive figure that its total subtracts ("Less: accumulated
/// depreciation").
fn is_deduction(label: &str) -> bool {
    let l = norm(label);
    l.starts_with("less") || l.starts_with("deduct")
}

/// The facts of one table's column, in row order.
type Column<'a> = Vec<&'a Fact>;

fn columns(facts: &[Fact]) -> Vec<Column<'_>> {
    let mut by: HashMap<(u32, u32, u32), Column> = HashMap::new();
    for f in facts.iter().filter(|f| f.is_amount() && f.on_statement()) {
        by.entry((f.page, f.table, f.col)).or_default().push(f);
    }
    let mut out: Vec<Column> = by.into_values().collect();
    for c in &mut out {
        c.sort_by_key(|f| f.row);
    }
    out.sort_by_key(|c| (c[0].page, c[0].table, c[0].col));
    out
}

/// Each total row of a column against the rows right above it: the nearest run of two or more
/// rows not already inside a checked total that adds up to it (deductions subtracted when that
/// is what adds up), reaching back over at most two totals not yet checked. A total with fewer
/// than two rows of its own right above it (a statement continued from the page before) is not
/// tested.
fn subtotals(col: &Column, out: &mut Vec<Identity>) {
    let mut inside = vec![false; col.len()];
    for (i, total) in col.iter().enumerate() {
        if !is_total(&total.label) {
            // a subtotal printed under no "total" label ("Property, plant and equipment — net"
            // under its gross and its depreciation) stands for its rows too
            if let Some(rows) = unnamed_subtotal(col, &inside, i) {
                for k in rows {
                    inside[k] = true;
                }
            }
            continue;
        }
        // a figure printed with more decimals than its total is another kind (a per-share
        // figure or a rate in a statement's column)
        let places = decimals(&total.printed);
        let target = value(total);
        let mut run: Vec<usize> = Vec::new();
        let (mut plain, mut netted, mut totals) = (0.0, 0.0, 0);
        let mut found = None;
        for j in (0..i).rev().take(MAX_ROWS) {
            if inside[j] || decimals(&col[j].printed) > places {
                continue;
            }
            if is_total(&col[j].label) {
                totals += 1;
                // a cash flow section's total never holds another section's
                if totals > 2 || (is_section_cash(&total.label) && is_section_cash(&col[j].label)) {
                    break;
                }
            }
            let v = value(col[j]);
            run.push(j);
            plain += v;
            netted += if is_deduction(&col[j].label) && v > 0.0 { -v } else { v };
            if run.len() < 2 {
                continue;
            }
            let parts: Vec<&Fact> = run.iter().map(|k| col[*k]).chain([*total]).collect();
            let tol = tolerance(&parts);
            if (plain - target).abs() <= tol {
                found = Some((run.clone(), false));
                break;
            }
            if (netted - target).abs() <= tol {
                found = Some((run.clone(), true));
                break;
            }
        }
        let own: Vec<usize> = run.iter().copied().take_while(|k| !is_total(&col[*k].label)).collect();
        let (passed, rows, netting) = match found {
            Some((rows, netting)) => (true, rows, netting),
            None if own.len() < 2 => continue,
            None => (false, own, false),
        };
        if passed {
            for k in &rows {
                inside[*k] = true;
            }
        }
        let mut parts: Vec<&Fact> = rows.iter().rev().map(|k| col[*k]).collect();
        let mut sum = String::new();
        for (n, f) in parts.iter().enumerate() {
            let minus = netting && is_deduction(&f.label) && value(f) > 0.0;
            if n > 0 || minus {
                sum.push_str(if minus { " − " } else { " + " });
            }
            sum.push_str(&shown(f));
        }
        let detail = format!("{} {} {} {}", total.label, shown(total), if passed { "=" } else { "≠" }, sum.trim_start());
        parts.insert(0, total);
        out.push(Identity {
            name: "subtotal".into(),
            page: total.page,
            period: total.period.shown(),
            passed,
            detail,
            facts: parts.iter().map(|f| f.id()).collect(),
        });
    }
}

/// Most rows a subtotal printed under no "total" label is taken to stand for.
const MAX_UNNAMED: usize = 6;

/// The rows right above row `i` (two to [`MAX_UNNAMED`], none inside a checked total) that add
/// up to it exactly, when some do.
fn unnamed_subtotal(col: &Column, inside: &[bool], i: usize) -> Option<Vec<usize>> {
    let target = value(col[i]);
    if target == 0.0 || target.is_nan() {
        return None;
    }
    let mut run = Vec::new();
    let (mut plain, mut netted) = (0.0, 0.0);
    for j in (0..i).rev().filter(|j| !inside[*j]).take(MAX_UNNAMED) {
        let v = value(col[j]);
        if v == 0.0 || decimals(&col[j].printed) != decimals(&col[i].printed) {
            return None;
        }
        run.push(j);
        plain += v;
        netted += if is_deduction(&col[j].label) && v > 0.0 { -v } else { v };
        if run.len() >= 2 && ((plain - target).abs() < 1e-9 || (netted - target).abs() < 1e-9) {
            return Some(run);
        }
        // a difference of the two rows above ("Net interest income" under interest income and
        // interest expense, both printed positive)
        if run.len() == 2 && (value(col[run[1]]) - value(col[run[0]]) - target).abs() < 1e-9 {
            return Some(run);
        }
    }
    None
}

/// Two facts compared: equal as printed when printed alike (the same figure printed twice is
/// printed the same), else within rounding after their units.
fn same(a: &Fact, b: &Fact) -> bool {
    if a.ratio().is_some() && a.ratio() == b.ratio() {
        // the same figure printed twice (one page's unit line may not have been read)
        return true;
    }
    if a.scale == b.scale && decimals(&a.printed) == decimals(&b.printed) {
        return false;
    }
    let (Some(x), Some(y)) = (a.in_units(), b.in_units()) else { return false };
    let tol = 0.5 * 10f64.powi(-decimals(&a.printed)) * a.scale as f64 + 0.5 * 10f64.powi(-decimals(&b.printed)) * b.scale as f64;
    (x - y).abs() <= tol + 1e-6
}

/// Facts of a statement labelled as `pick` says, by period year and column head.
fn find<'a>(facts: &'a [Fact], statement: &str, pick: &dyn Fn(&str) -> bool) -> Vec<&'a Fact> {
    facts.iter().filter(|f| f.statement == statement && f.is_amount() && pick(&norm(&f.label))).collect()
}

/// The fact of `among` for the same period as `f`: in the same column of its table, else (a
/// statement continued overleaf, when its page has none) on the next page under the same
/// column head.
fn partner<'a>(f: &Fact, among: &[&'a Fact]) -> Option<&'a Fact> {
    let here = among.iter().copied().find(|g| g.page == f.page && g.table == f.table && g.col == f.col);
    let on_page = among.iter().any(|g| g.page == f.page);
    here.or_else(|| {
        among
            .iter()
            .copied()
            .find(|g| !on_page && g.page == f.page + 1 && g.period.year == f.period.year && g.period.header == f.period.header && g.period.end == f.period.end)
    })
}

/// Total assets against total liabilities and equity; and that total against total liabilities
/// plus the equity total printed last above it (with the noncontrolling interests when printed).
fn balance(facts: &[Fact], out: &mut Vec<Identity>) {
    let assets = find(facts, BALANCE_SHEET, &|l| l == "total assets");
    let both =
        find(facts, BALANCE_SHEET, &|l| l.starts_with("total liabilities and") && (l.contains("equity") || l.contains("deficit") || l.contains("capital")));
    for a in assets {
        let Some(b) = partner(a, &both) else { continue };
        let passed = same(a, b);
        let detail = format!("{} {} {} {} {}", a.label, shown(a), if passed { "=" } else { "≠" }, b.label, shown(b));
        out.push(Identity { name: "balance".into(), page: a.page, period: a.period.shown(), passed, detail, facts: vec![a.id(), b.id()] });
    }
    let liabilities = find(facts, BALANCE_SHEET, &|l| l == "total liabilities");
    let equity = find(facts, BALANCE_SHEET, &|l| l.starts_with("total") && (l.ends_with("equity") || l.ends_with("deficit")) && !l.contains("liabilities"));
    for b in &both {
        let (Some(l), Some(e)) = (
            partner(b, &liabilities),
            equity.iter().copied().filter(|e| e.page == b.page && e.col == b.col && e.table == b.table && e.row < b.row).max_by_key(|e| e.row),
        ) else {
            continue;
        };
        // a confirmation only: a balance sheet may print an item between them (redeemable
        // interests), so a sum that differs says nothing
        let passed = (value(l) + value(e) - value(b)).abs() <= tolerance(&[l, e, b]);
        if !passed {
            continue;
        }
        let detail = format!("{} {} {} {} {} + {} {}", b.label, shown(b), if passed { "=" } else { "≠" }, l.label, shown(l), e.label, shown(e));
        out.push(Identity { name: "balance".into(), page: b.page, period: b.period.shown(), passed, detail, facts: vec![b.id(), l.id(), e.id()] });
    }
}

fn cash(facts: &[Fact], out: &mut Vec<Identity>) {
    let about_cash = |l: &str| l.contains("cash");
    let end = find(facts, CASH_FLOW, &|l| about_cash(l) && (l.contains("end of") || l.contains("at end")));
    let start = find(facts, CASH_FLOW, &|l| about_cash(l) && (l.contains("beginning of") || l.contains("at beginning")));
    let change = find(facts, CASH_FLOW, &|l| {
        about_cash(l)
            && (l.starts_with("net increase")
                || l.starts_with("net decrease")
                || l.starts_with("net change")
                || l.starts_with("net (decrease)")
                || l.starts_with("net (increase)")
                || l.starts_with("increase (decrease)")
                || l.starts_with("(decrease) increase")
                || l.starts_with("decrease (increase)")
                || l.starts_with("increase/(decrease)"))
    });
    // the closing row that goes with the opening one: a statement may print cash with and
    // without restricted cash, or held for sale apart; the identity fails only when no
    // closing row of the column adds up
    for s in start {
        let Some(c) = partner(s, &change).filter(|c| c.page == s.page) else { continue };
        let ends: Vec<&Fact> = end.iter().copied().filter(|e| e.page == s.page && e.table == s.table && e.col == s.col).collect();
        let adds_up = |e: &Fact| (value(e) - value(s) - value(c)).abs() <= tolerance(&[e, s, c]);
        let (e, passed) = match ends.iter().copied().find(|e| adds_up(e)) {
            Some(e) => (e, true),
            None if ends.len() == 1 => (ends[0], false),
            None => continue,
        };
        let detail = format!("{} {} {} {} {} + {} {}", e.label, shown(e), if passed { "=" } else { "≠" }, s.label, shown(s), c.label, shown(c));
        out.push(Identity { name: "cash".into(), page: e.page, period: e.period.shown(), passed, detail, facts: vec![e.id(), s.id(), c.id()] });
    }
}

/// Net income printed under the same label on the income statement and the cash flow
/// statement, for the same period.
fn agree(facts: &[Fact], out: &mut Vec<Identity>) {
    let mut by: HashMap<(String, i32, String), Vec<&Fact>> = HashMap::new();
    let both = |f: &Fact| f.statement == super::INCOME_STATEMENT || f.statement == CASH_FLOW;
    for f in facts.iter().filter(|f| both(f) && f.is_amount() && f.concept.as_deref() == Some("net_income")) {
        by.entry((norm(&f.label), f.period.year, f.period.duration.clone())).or_default().push(f);
    }
    let mut keys: Vec<_> = by.keys().cloned().collect();
    keys.sort();
    for k in keys {
        let fs = &by[&k];
        let Some(a) = fs.first() else { continue };
        let Some(b) = fs.iter().find(|b| b.statement != a.statement) else { continue };
        let passed = same(a, b);
        let detail = format!("{} {} on the {} {} {} on the {}", a.label, shown(a), a.statement, if passed { "=" } else { "≠" }, shown(b), b.statement);
        out.push(Identity { name: "agree".into(), page: a.page, period: a.period.shown(), passed, detail, facts: vec![a.id(), b.id()] });
    }
}

/// Every identity the facts allow testing.
pub fn test(facts: &[Fact]) -> Vec<Identity> {
    let mut out = Vec::new();
    for col in columns(facts) {
        subtotals(&col, &mut out);
    }
    balance(facts, &mut out);
    cash(facts, &mut out);
    agree(facts, &mut out);
    out
}

/// Flag the facts of each failed identity with it (the first that failed), except those an
/// identity that held confirms: a total whose own rows do not add up (a row the reader missed)
/// but which is the balance sheet's total assets, equal to liabilities and equity, is checked.
pub fn flag(facts: &mut [Fact], ids: &[Identity]) {
    let mut at: HashMap<FactId, usize> = HashMap::new();
    for (i, f) in facts.iter().enumerate() {
        at.insert(f.id(), i);
    }
    let confirmed: std::collections::HashSet<FactId> = ids.iter().filter(|i| i.passed).flat_map(|i| i.facts.iter().copied()).collect();
    for id in ids.iter().filter(|i| !i.passed) {
        for fid in id.facts.iter().filter(|f| !confirmed.contains(f)) {
            if let Some(f) = at.get(fid).map(|i| &mut facts[*i]) {
                f.flagged.get_or_insert_with(|| format!("{}: {}", id.name, id.detail));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::{read_page, INCOME_STATEMENT};
    use crate::figures::catalogue::Catalogue;

    fn sheet(rows: &[(&str, &str, &str)], title: &str) -> Vec<Fact> {
        let mut cells = vec![(title, 50.0, 770.0), ("(In millions)", 50.0, 760.0), ("2018", 300.0, 740.0), ("2017", 400.0, 740.0)];
        for (i, (label, a, b)) in rows.iter().enumerate() {
            let y = 720.0 - 10.0 * i as f32;
            cells.push((label, 50.0, y));
            if !a.is_empty() {
                cells.push((a, 300.0, y));
                cells.push((b, 400.0, y));
            }
        }
        let (text, boxes) = crate::figures::table::tests::page(&cells);
        read_page(3, "", &text, &boxes, &Catalogue::builtin(), false)
    }

    #[test]
    fn nested_subtotals_and_the_balance_hold_and_a_misread_cell_fails_its_total() {
        let rows = [
            ("Current assets", "", ""),
            ("Cash", "100", "90"),
            ("Receivables", "50", "40"),
            ("Total current assets", "150", "130"),
            ("Property, plant and equipment", "300", "280"),
            ("Less: accumulated depreciation", "100", "90"),
            ("Total assets", "350", "320"),
            ("Total liabilities", "200", "190"),
            ("Total equity", "150", "130"),
            ("Total liabilities and equity", "350", "320"),
        ];
        let facts = sheet(&rows, "Consolidated Balance Sheet");
        let ids = test(&facts);
        let failed: Vec<&Identity> = ids.iter().filter(|i| !i.passed).collect();
        assert!(failed.is_empty(), "{failed:#?}");
        assert!(ids.iter().any(|i| i.name == "balance" && i.passed && i.period == "at the end of 2018"), "{ids:#?}");
        let assets = ids.iter().find(|i| i.detail.starts_with("Total assets 350")).unwrap();
        assert_eq!(assets.detail, "Total assets 350 = 150 + 300 − 100");

        // 2018's receivables misread as 5: the rows of its total are flagged; the total is not,
        // since total assets (equal to liabilities and equity) confirms it
        let mut bad = rows;
        bad[2] = ("Receivables", "5", "40");
        let mut facts = sheet(&bad, "Consolidated Balance Sheet");
        let ids = test(&facts);
        flag(&mut facts, &ids);
        let flagged: Vec<&str> = facts.iter().filter(|f| f.flagged.is_some()).map(|f| f.label.as_str()).collect();
        assert_eq!(flagged, vec!["Cash", "Receivables"]);
        assert!(facts.iter().filter(|f| f.period.year == 2017).all(|f| f.flagged.is_none()));
    }

    #[test]
    fn the_cash_flow_change_and_a_figure_on_two_statements() {
        let cf = sheet(
            &[
                ("Net income", "40", "30"),
                ("Net increase in cash and cash equivalents", "10", "-5"),
                ("Cash and cash equivalents at beginning of year", "90", "95"),
                ("Cash and cash equivalents at end of year", "100", "90"),
            ],
            "Consolidated Statement of Cash Flows",
        );
        let mut is = sheet(&[("Revenue", "500", "450"), ("Net income", "40", "31")], "Consolidated Statement of Income");
        for f in &mut is {
            f.page = 2;
        }
        assert_eq!(is[0].statement, INCOME_STATEMENT);
        let all: Vec<Fact> = is.into_iter().chain(cf).collect();
        let ids = test(&all);
        let cash: Vec<bool> = ids.iter().filter(|i| i.name == "cash").map(|i| i.passed).collect();
        assert_eq!(cash, vec![true, true], "{ids:#?}");
        let agree: Vec<(String, bool)> = ids.iter().filter(|i| i.name == "agree").map(|i| (i.period.clone(), i.passed)).collect();
        assert_eq!(agree, vec![("FY2017".to_string(), false), ("FY2018".to_string(), true)]);
    }
}
