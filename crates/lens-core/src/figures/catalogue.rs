//! The metric catalogue as data (`resources/metrics.json`, extended per library by
//! `<library>/metrics.json`): line items with the names questions use and the labels statements
//! print, and metrics as formulas over them.

use crate::error::{LensError, Result};
use crate::figures::formula::{self, Expr, Year};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

named_enum!(
    /// What a metric's value is.
    pub enum Unit("metric unit") {
        Amount = "amount",
        Ratio = "ratio",
        Percent = "percent",
        Days = "days",
        /// A figure per share as printed ("Diluted earnings per share $8.89"): not scaled by
        /// its table's unit.
        PerShare = "per share",
        /// A number of things the filing counts ("Paid memberships at end of period 52,810" in
        /// thousands, stores, subscribers): scaled by its table's unit as an amount is, said
        /// with no currency.
        Count = "count",
    }
);

impl Unit {
    /// An amount or a count: what changes by its difference, not by points or percent, unless
    /// a percent is asked.
    pub fn adds_up(self) -> bool {
        matches!(self, Unit::Amount | Unit::Count)
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct ItemDef {
    /// What questions call it.
    pub names: Vec<String>,
    /// Row labels statements print it under, best first (lowercase).
    pub labels: Vec<String>,
    /// `percent` for a rate the tables print ("Effective tax rate 24.6%"): its cells are read
    /// as percentages, not scaled by the table's unit. Amounts otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<Unit>,
    /// A balance that is never negative (cash, receivables, total assets): a negative cell under
    /// its label is another row's and is passed over.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub positive: bool,
    /// An expense or outflow the statements print in parentheses ("Cost of sales (11,969)"):
    /// read as its size, since the sign only says the statement subtracts it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cost: bool,
    /// For a rate: rows whose rate column prints it (a tax reconciliation's "Income tax
    /// expense" row has an amount and a rate per year; the rate is the effective rate). Only a
    /// cell under a rate sub-column, or printed with %, is read from these rows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rate_of: Vec<String>,
    /// A balance at a date (inventory, total assets): read from a balance sheet or a note,
    /// never from a page titled only as a cash flow statement, whose row under the same label
    /// is the year's change in it ("Inventories (908)").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub balance: bool,
    /// A total a statement never prints as zero (revenue, net income, total assets): a dash
    /// under its label is another column's (a statement of equity's "Net income —" under common
    /// stock) and is passed over.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nonzero: bool,
    /// The section headings the item's rows are printed under, when its label alone names too
    /// little ("Subscription" under "Revenue" is subscription revenue; under "Cost of revenue"
    /// it is a cost): a row under another heading is another item. Empty: any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<String>,
    /// Words that make a row labelled like the item another line item ("Net income
    /// attributable to noncontrolling interests" is not the company's net income).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excludes: Vec<String>,
    /// An expense some statements print in parentheses because they add signed amounts (Amazon's
    /// "Provision for income taxes (769)") and others print as a positive deduction, with a
    /// benefit in parentheses: a figure read in parentheses is the expense's size when the
    /// statement's own rows add up that way (income before taxes + it = net income).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub signed_by_statement: bool,
    /// An item some balance sheets do not print (Verizon has no short-term investments): where
    /// the balance sheet the calculation's other items were read from for the year has no row
    /// of it, it is zero, and the answer says so (never shown as supported).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub absent_is_zero: bool,
    /// An expense of the income statement (income taxes, interest): never read from a page
    /// titled only as a cash flow statement, whose row under the same label is the cash paid
    /// for it ("Cash paid during the year for: ... Income taxes 7").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub expensed: bool,
    /// The whole of a total, noncontrolling interests included ("Total equity"): a row of the
    /// company's own share ("Total 3M Company shareholders' equity", "... attributable to
    /// shareowners of ...") is not it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub whole: bool,
}

impl ItemDef {
    /// Whether a text (normalised, [`norm`]) says words that make it another line item than
    /// this one (the item's `excludes`): a row so labelled, or a question so worded.
    pub fn excluded_in(&self, normed: &str) -> bool {
        says_any(normed, &self.excludes)
    }
}

/// Does a text (normalised, [`norm`]) say any of `excludes` (an item's or a metric's words that
/// make it another measure)?
fn says_any(normed: &str, excludes: &[String]) -> bool {
    excludes.iter().any(|x| normed.contains(&norm(x)))
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct MetricDef {
    pub names: Vec<String>,
    pub formula: String,
    pub unit: Unit,
    /// A line item that prints the metric itself ("Effective tax rate" rows): used as printed
    /// when the filing has it, the formula only when it does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed: Option<String>,
    /// Words that make a question naming the metric ask another measure ("total liabilities
    /// and equity" is not total liabilities).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excludes: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize, Default)]
pub struct Catalogue {
    #[serde(default)]
    pub items: BTreeMap<String, ItemDef>,
    #[serde(default)]
    pub metrics: BTreeMap<String, MetricDef>,
}

const BUILTIN: &str = include_str!("../../../../resources/metrics.json");

/// Does `hay` contain `needle` as whole words?
pub fn has_words(hay: &str, needle: &str) -> bool {
    find_words(hay, needle).is_some()
}

/// Where `hay` first contains `needle` as whole words (a byte offset).
pub fn find_words(hay: &str, needle: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = hay[from..].find(needle) {
        let (s, e) = (from + i, from + i + needle.len());
        let ok_before = hay[..s].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        let ok_after = hay[e..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        if ok_before && ok_after {
            return Some(s);
        }
        from = s + needle.len().max(1);
        if from >= hay.len() {
            break;
        }
    }
    None
}

/// Words that, put before a measure's name, make another item of it: "deferred revenue" is a
/// liability, not revenue; "prepaid income taxes" an asset, not the tax expense.
const OTHER_ITEM_WORDS: &[&str] = &["deferred", "unearned", "unbilled", "accrued", "prepaid", "restricted"];

/// Does `hay` name the measure `needle`: as whole words, at least once not after a word that
/// makes it another item ([`OTHER_ITEM_WORDS`])?
pub fn names_measure(hay: &str, needle: &str) -> bool {
    let mut from = 0;
    while let Some(at) = find_words(&hay[from..], needle).map(|i| from + i) {
        let before = hay[..at].split(|c: char| !c.is_alphanumeric()).rfind(|w| !w.is_empty()).unwrap_or("");
        if !OTHER_ITEM_WORDS.contains(&before) || needle.split_whitespace().next().is_some_and(|w| OTHER_ITEM_WORDS.contains(&w)) {
            return true;
        }
        from = at + needle.len();
        if from >= hay.len() {
            break;
        }
    }
    false
}

/// Lowercase, curly quotes straightened, whitespace collapsed.
pub fn norm(s: &str) -> String {
    s.to_lowercase().replace(['’', '‘'], "'").split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Catalogue {
    pub fn builtin() -> Catalogue {
        serde_json::from_str(BUILTIN).expect("resources/metrics.json parses")
    }

    /// The built-in catalogue with a library's own entries put over it (same ids replace).
    pub fn with_user_file(path: &Path) -> Result<Catalogue> {
        let mut c = Catalogue::builtin();
        if path.is_file() {
            let text = std::fs::read_to_string(path).map_err(|e| LensError::io(path, e))?;
            let user: Catalogue = serde_json::from_str(&text).map_err(|e| LensError::BadInput(format!("{}: {e}", path.display())))?;
            c.items.extend(user.items);
            c.metrics.extend(user.metrics);
        }
        for (id, m) in &c.metrics {
            c.formula(&m.formula).map_err(|e| LensError::BadInput(format!("metric `{id}`: formula `{}`: {e}", m.formula)))?;
        }
        Ok(c)
    }

    /// A readable name of an item id.
    pub fn item_name(&self, id: &str) -> String {
        self.items.get(id).and_then(|i| i.names.first()).cloned().unwrap_or_else(|| id.replace('_', " "))
    }

    /// The item named in `text` by its longest name or label, as whole words.
    pub fn item_in(&self, text: &str) -> Option<&str> {
        let t = norm(text);
        let mut best: Option<(&str, usize)> = None;
        for (id, it) in &self.items {
            // words that make a row another line item make a question about another one too
            // ("net income attributable to noncontrolling interests" is not the net income)
            if it.excluded_in(&t) {
                continue;
            }
            for n in it.names.iter().chain(&it.labels) {
                let n = norm(n);
                if n.len() > best.map_or(0, |b| b.1) && names_measure(&t, &n) {
                    best = Some((id, n.len()));
                }
            }
        }
        best.map(|b| b.0)
    }

    /// The metric named in `question` (longest name wins).
    pub fn metric_in(&self, question: &str) -> Option<(&str, &MetricDef)> {
        let t = norm(question);
        let mut best: Option<(&str, &MetricDef, usize)> = None;
        for (id, m) in &self.metrics {
            if says_any(&t, &m.excludes) {
                continue;
            }
            for n in &m.names {
                let n = norm(n);
                if n.len() > best.map_or(0, |b| b.2) && names_measure(&t, &n) {
                    best = Some((id, m, n.len()));
                }
            }
        }
        best.map(|b| (b.0, b.1))
    }

    /// A catalogue formula: item ids (or names) and `avg()`, `change()`, `prev()`, `abs()`.
    pub fn formula(&self, f: &str) -> std::result::Result<Expr, String> {
        formula::parse(f, &|w: &str| {
            let id = w.trim();
            if self.items.contains_key(id) {
                return Ok(Expr::Item(id.to_string(), Year::Rel(0)));
            }
            self.item_in(id).map(|i| Expr::Item(i.to_string(), Year::Rel(0))).ok_or_else(|| format!("unknown line item `{id}`"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_catalogue_parses_and_finds_names() {
        let c = Catalogue::with_user_file(Path::new("/nonexistent")).unwrap();
        assert_eq!(c.metric_in("What is FY2018 days payable outstanding (DPO) for Walmart?").unwrap().0, "dpo");
        assert_eq!(c.metric_in("the FY2019 - FY2021 3 year average unadjusted operating income % margin").unwrap().0, "operating_margin");
        assert_eq!(c.item_in("total amount of inventories for Best Buy").unwrap(), "inventory");
        assert_eq!(c.item_in("Purchases of property, plant and equipment (PP&E)").unwrap(), "capex");
        assert!(has_words("net income attributable to", "net income"));
        assert!(!has_words("net incomes", "net income"));
    }

    /// "Deferred revenue" is a liability, not revenue: a question about it names no revenue.
    #[test]
    fn a_modifier_that_makes_another_item_is_not_the_measure() {
        let c = Catalogue::builtin();
        assert_eq!(c.item_in("What was Adobe's deferred revenue at the end of FY2016?"), None);
        // cash received or paid in a deal is no balance of cash (financebench half a: the cash
        // proceeds of the Kenvue separation were looked up as cash and cash equivalents)
        assert_eq!(c.item_in("What is the amount of the cash proceeds that JnJ realised from the separation of Kenvue?"), None);
        assert_eq!(c.item_in("How much cash did Amazon have at the end of 2019?"), Some("cash"));
        assert_eq!(c.item_in("What was Adobe's revenue at the end of FY2016?"), Some("revenue"));
        // named once as another item and once as itself: itself
        assert_eq!(c.item_in("deferred revenue as a share of revenue"), Some("revenue"));
        assert!(names_measure("prepaid expenses", "prepaid expenses"));
        assert!(!names_measure("prepaid income taxes", "income taxes"));
        // an item's excluding words in the question: another item
        assert_eq!(c.item_in("What was 3M's net income attributable to noncontrolling interests in FY2018?"), None);
        assert_eq!(c.item_in("What was 3M's net income attributable to 3M in FY2018?"), Some("net_income"));
    }

    /// "Net interest expense" is the interest expense less the interest income (Coca-Cola's 841
    /// less 677), or the row that prints it net ("Interest, net 521.8"), never the gross expense;
    /// a bank's "net interest income" is not its interest income.
    #[test]
    fn net_interest_expense_is_not_the_gross_expense() {
        let c = Catalogue::builtin();
        let (id, m) = c.metric_in("What was Coca-Cola's net interest expense in FY2017, in USD millions?").unwrap();
        assert_eq!(id, "net_interest_expense");
        assert_eq!(m.printed.as_deref(), Some("net_interest_expense_printed"));
        assert!(c.formula(&m.formula).is_ok());
        assert_eq!(c.metric_in("What was Nike's interest expense, net in FY2021?").unwrap().0, "net_interest_expense");
        assert!(c.metric_in("What was Coca-Cola's interest expense in FY2017?").is_none());
        assert_eq!(c.item_in("What was Amazon's interest income in FY2019?"), Some("interest_income"));
        assert_ne!(c.item_in("What was JPMorgan's net interest income in 2022?"), Some("interest_income"));
        // a row that nets the two is not the interest income
        let income = &c.items["interest_income"];
        assert!(income.excluded_in(&norm("Interest income (expense), net")));
        assert!(!income.excluded_in(&norm("Interest income")));
    }

    #[test]
    fn total_liabilities_is_printed_or_liabilities_and_equity_less_equity() {
        let c = Catalogue::builtin();
        let (id, m) = c.metric_in("What were Boeing's total liabilities at year end 2018?").unwrap();
        assert_eq!((id, m.printed.as_deref()), ("total_liabilities", Some("total_liabilities_printed")));
        assert!(c.formula(&m.formula).is_ok());
        // a question naming the sum with equity, or the current ones, asks another measure
        assert!(c.metric_in("What were Walmart's total liabilities and shareholders' equity in FY2018?").is_none());
        assert_eq!(c.item_in("What were Walmart's total liabilities and shareholders' equity in FY2018?"), Some("total_liabilities_and_equity"));
        assert!(c.metric_in("What were Verizon's total current liabilities in 2022?").is_none());
        // the printed row: not the sum with equity, not the current ones
        let printed = &c.items["total_liabilities_printed"];
        assert!(printed.excluded_in(&norm("Total liabilities and shareholders’ equity")));
        assert!(printed.excluded_in(&norm("Total current liabilities")));
        assert!(!printed.excluded_in(&norm("Total liabilities")));
        assert!(c.items["total_equity_all"].whole && !c.items["total_equity"].whole);
    }

    /// Every catalogue metric on one hand-made set of statements (FY2019, with FY2018 balances).
    #[test]
    fn every_metric_on_hand_checkable_numbers() {
        use crate::figures::ratio::Ratio;
        let v = |item: &str, y: i32| -> Option<Ratio> {
            let (now, before) = match item {
                "revenue" => (1000, 800),
                "cogs" => (600, 0),
                "operating_income" => (150, 0),
                "net_income" => (100, 0),
                "pretax_income" => (130, 0),
                "income_tax" => (-30, 0),
                "interest_expense" => (-10, 0),
                "interest_income" => (4, 0),
                "dividends_paid" => (-40, 0),
                "depreciation_amortization" => (50, 0),
                "capex" => (-80, 0),
                "operating_cash_flow" => (200, 0),
                "total_assets" => (2000, 1800),
                "current_assets" => (500, 0),
                "current_liabilities" => (400, 0),
                "inventory" => (120, 100),
                "accounts_receivable" => (90, 110),
                "accounts_payable" => (70, 50),
                "ppe" => (300, 260),
                "cash" => (60, 0),
                "short_term_investments" => (40, 0),
                "total_equity" => (800, 700),
                "total_equity_all" => (850, 0),
                "total_liabilities_and_equity" => (2000, 1800),
                "long_term_debt" => (500, 460),
                "current_debt" => (50, 40),
                "short_term_borrowings" => (30, 0),
                _ => return None,
            };
            Some(Ratio::int(if y == 2019 { now } else { before }))
        };
        // by hand: e.g. DPO = 365 × (70 + 50) / 2 ÷ (600 + (120 − 100)) = 35.3226
        let want = [
            ("fixed_asset_turnover", "3.5714"),
            ("capex_to_revenue", "0.0800"),
            ("operating_cash_flow_ratio", "0.5000"),
            ("operating_margin", "0.1500"),
            ("net_margin", "0.1000"),
            ("gross_margin", "0.4000"),
            ("ebitda", "200.0000"),
            ("ebitda_margin", "0.2000"),
            ("ebitda_less_capex", "120.0000"),
            ("roa", "0.0526"),
            ("roe", "0.1333"),
            ("inventory_turnover", "5.4545"),
            ("dio", "66.9167"),
            ("dso", "36.5000"),
            ("dpo", "35.3226"),
            ("ccc", "68.0941"),
            ("current_ratio", "1.2500"),
            ("quick_ratio", "0.4750"),
            ("free_cash_flow", "120.0000"),
            ("effective_tax_rate", "0.2308"),
            ("interest_coverage", "15.0000"),
            ("capex_amount", "80.0000"),
            ("working_capital", "100.0000"),
            ("revenue_growth", "0.2500"),
            ("fcf_conversion", "1.2000"),
            ("net_interest_expense", "6.0000"),
            ("receivables_turnover", "10.0000"),
            ("dividend_payout", "0.4000"),
            ("cash_and_short_term_investments", "100.0000"),
            ("ocf_to_net_income", "2.0000"),
            ("fcf_margin", "0.1200"),
            ("total_liabilities", "1150.0000"),
            // debt = 500 + 50 + 30 = 580 (540 the year before)
            ("long_term_liabilities", "750.0000"),
            ("total_debt", "580.0000"),
            ("cash_ratio", "0.1500"),
            ("debt_to_equity", "0.7250"),
            ("debt_to_assets", "0.2900"),
            ("capitalization_ratio", "0.4203"),
            ("cash_flow_to_debt", "0.3448"),
            ("interest_to_average_debt", "0.0185"),
            ("roce", "0.0938"),
            ("return_on_average_equity", "0.1333"),
            ("return_on_average_assets", "0.0526"),
        ];
        let c = Catalogue::builtin();
        assert_eq!(want.len(), c.metrics.len(), "every metric has a hand-checked value");
        for (id, expected) in want {
            let e = c.formula(&c.metrics[id].formula).unwrap();
            let got = e.eval(2019, &mut |i, y| v(i, y)).unwrap_or_else(|err| panic!("{id}: {err:?}"));
            assert_eq!(got.round_str(4), expected, "{id}");
        }
    }
}
