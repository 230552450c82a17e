//! The filing as facts: every figure of every statement and note table, read once per document
//! (after ingest, after OCR, and for documents ingested before facts existed), with its line
//! item as printed and its catalogue concept, its period and duration, its unit and scale, the
//! member it is printed for (a section's heading, a maturity year), its page and boxes; and the
//! accounting identities tested over them ([`identity`]). A fact inside an identity that fails
//! is flagged, and an answer built on it is never shown as supported (`judge`'s
//! `identity_failed`).
//!
//! [`read_document`] reads; [`stored`] keeps them in the library; [`build_missing`] brings a
//! library's facts up to date with progress.

pub mod identity;
pub mod stored;

use crate::error::Result;
use crate::evidence::EvidenceBox;
use crate::figures::catalogue::{norm, Catalogue};
use crate::figures::ratio::Ratio;
use crate::figures::table::{self, Column, Table};
use crate::store::{Document, Store};
use serde::{Deserialize, Serialize};

pub use identity::Identity;

/// Bumped when the reading changes: documents read by an older one are read again (2: heads
/// over groups of columns are the members of their cells; a period heading printed left of
/// every column gives them its length; 3: a date printed above its year heads the column, and a
/// roll-forward's movement columns are not its years; 4: only a date over each column heads it).
pub const VERSION: i64 = 4;

/// What kind of table a fact is printed in.
pub const BALANCE_SHEET: &str = "balance sheet";
pub const INCOME_STATEMENT: &str = "income statement";
pub const COMPREHENSIVE_INCOME: &str = "comprehensive income";
pub const CASH_FLOW: &str = "cash flow statement";
pub const EQUITY_STATEMENT: &str = "equity statement";
pub const OTHER_TABLE: &str = "table";

/// The period a figure is for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Period {
    /// The fiscal year (or the balance sheet date's year) the column heads.
    pub year: i32,
    /// `instant` (a balance at a date), `3 months`, `6 months year to date`, `9 months year to
    /// date`, `fiscal year`, or `unstated` when neither the column nor the table says.
    pub duration: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub months: Option<u8>,
    /// The period's end as printed ("December 31", "31 March"), when the column or the table
    /// says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    /// The column's head as printed.
    pub header: String,
}

impl Period {
    /// "FY2018", "3 months to June 30, 2023", "at December 31, 2018".
    pub fn shown(&self) -> String {
        let end = self.end.as_deref().map(|e| format!("{e}, {}", self.year));
        match (self.duration.as_str(), end) {
            ("instant", Some(e)) => format!("at {e}"),
            ("instant", None) => format!("at the end of {}", self.year),
            ("fiscal year", Some(e)) => format!("FY{} (year to {e})", self.year),
            ("fiscal year", None) => format!("FY{}", self.year),
            (d, Some(e)) => format!("{d} to {e}"),
            (d, None) => format!("{d}, {}", self.year),
        }
    }
}

/// One figure of a table of a filing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fact {
    pub page: u32,
    /// The table's, row's and column's place on the page (from 0).
    pub table: u32,
    pub row: u32,
    pub col: u32,
    /// [`BALANCE_SHEET`], [`INCOME_STATEMENT`], ... or [`OTHER_TABLE`].
    pub statement: String,
    /// The row label as printed.
    pub label: String,
    /// The catalogue's line item the label prints (`resources/metrics.json`), when one does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concept: Option<String>,
    /// The heading the row is printed under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// What the figure is one member of: its column group's head ("Corporate & Investment
    /// Bank"), else its row's section that is not a total's ("Americas"), or a schedule's year
    /// ("2024", "Thereafter").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    pub period: Period,
    /// The cell as printed ("(1,577)").
    pub printed: String,
    /// Its value in `unit`s times `scale`, exactly, signed ("-1577").
    pub value: String,
    /// `millions`, `thousands`, `units`, `percent`, `per share`, `shares`, `pence`.
    pub unit: String,
    /// What one of `unit` is in units (1000000 for millions; 1 for percent and per share).
    pub scale: i64,
    /// The page's currency, when it prints a sign of one (`USD`, `GBP`, `EUR`, `JPY`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    pub label_box: EvidenceBox,
    pub cell_box: EvidenceBox,
    /// The identity this fact is part of that did not hold ("subtotal: Total current assets
    /// 2018 ..."), when one did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flagged: Option<String>,
}

/// A fact inside an identity that did not hold, as the judge looks it up by page
/// (`judge::Lookups::flagged_facts`).
#[derive(Debug, Clone, PartialEq)]
pub struct FlaggedFact {
    pub label: String,
    /// Signed, in the table's unit, as `calc::Operand::value` has it ("-1577").
    pub value: String,
    pub printed: String,
    /// The identity as [`identity`] wrote it ("subtotal: Total current assets 20 ≠ 10 + 5").
    pub identity: String,
}

/// Where a fact is: page, table, row, column.
pub type FactId = (u32, u32, u32, u32);

impl Fact {
    pub fn id(&self) -> FactId {
        (self.page, self.table, self.row, self.col)
    }

    /// The value as printed, in the table's unit.
    pub fn ratio(&self) -> Option<Ratio> {
        Ratio::parse(&self.value)
    }

    /// The value in units (dollars, not millions).
    pub fn in_units(&self) -> Option<f64> {
        self.ratio().map(|r| r.to_f64() * self.scale as f64)
    }

    /// Whether it is an amount of money (not a rate, a per-share figure or a count, nor a year
    /// the table reader took for a figure).
    pub fn is_amount(&self) -> bool {
        let year = self.printed.len() == 4 && self.printed.parse::<i32>().is_ok_and(|y| (1990..=2100).contains(&y));
        ["millions", "billions", "thousands", "units"].contains(&self.unit.as_str()) && !year
    }

    /// Whether it is printed on one of the three statements whose rows add up (the balance
    /// sheet, the income statement, the cash flow statement): not a note's table, nor a
    /// statement of equity or of comprehensive income, whose rows are movements across columns.
    pub fn on_statement(&self) -> bool {
        [BALANCE_SHEET, INCOME_STATEMENT, CASH_FLOW].contains(&self.statement.as_str())
    }
}

/// What a table's title and the head of its page say it is. Words are compared with their
/// spaces taken out: pdfium splits some ("Consolidated Balance Shee t", "Statement of Incom e").
pub fn statement_of(title: &str, head: &str) -> &'static str {
    let t: String = format!("{title} {head}").to_lowercase().replace('\u{2019}', "'").chars().filter(|c| !c.is_whitespace()).collect();
    // a statement's name as a discussion's topic ("Balance sheet and working capital", "Summary
    // of cash flow data") is not the statement
    let topic = |rest: &str| ["and", "data", "information", "highlights", "summary", "metrics", "items", "review"].iter().any(|s| rest.starts_with(s));
    let has = |ws: &[&str]| {
        ws.iter().any(|w| {
            let w = w.replace(' ', "");
            t.match_indices(&w).any(|(at, _)| {
                let rest = &t[at + w.len()..];
                !topic(rest.strip_prefix('s').unwrap_or(rest))
            })
        })
    };
    // the MD&A's tables ("Balance sheet and working capital") are not the statements
    if has(&["discussion and analysis"]) {
        return OTHER_TABLE;
    }
    // ("Financial Condition and Results of Operations" heads every MD&A page: a bank's statement
    // is a "statement of financial condition")
    if has(&["balance sheet", "financial position", "statement of financial condition", "statements of financial condition"]) {
        BALANCE_SHEET
    } else if has(&["statements of cash flow", "statement of cash flow", "cash flow statement", "cash flows statement"]) {
        // (a discussion's section is headed "Cash Flows" alone)
        CASH_FLOW
    } else if has(&[
        "statements of operations",
        "statement of operations",
        "statements of income",
        "statement of income",
        "statements of earnings",
        "statement of earnings",
        "income statement",
        "profit or loss",
        "profit and loss",
    ]) {
        INCOME_STATEMENT
    } else if has(&["comprehensive income"]) {
        COMPREHENSIVE_INCOME
    } else if has(&["statements of equity", "statement of equity", "changes in equity", "stockholders' equity", "shareholders' equity"]) && has(&["statement"])
    {
        EQUITY_STATEMENT
    } else {
        OTHER_TABLE
    }
}

pub use crate::figures::table::month_day;

/// The period of a column: its own months ("Three Months Ended"), else what its table is (a
/// balance sheet's columns are dates; a statement of a 10-K covers the fiscal year).
pub fn period_of(c: &Column, statement: &str, context: &str, quarterly: bool) -> Period {
    let ctx = context.to_lowercase();
    let says_year = ["year ended", "years ended", "year ending", "fiscal year", "year to", "twelve months", "52 weeks", "53 weeks", "for the year"]
        .iter()
        .any(|w| ctx.contains(w));
    let says_date = ["as of", "as at", "at december", "at june", "at september", "at march"].iter().any(|w| ctx.contains(w));
    let (duration, months) = match c.months {
        Some(12) => ("fiscal year".to_string(), Some(12)),
        Some(3) => ("3 months".to_string(), Some(3)),
        Some(m @ (6 | 9)) => (format!("{m} months year to date"), Some(m)),
        Some(m) => (format!("{m} months"), Some(m)),
        None if statement == BALANCE_SHEET || (says_date && !says_year) => ("instant".to_string(), None),
        None if says_year && !quarterly => ("fiscal year".to_string(), Some(12)),
        None if !quarterly && [INCOME_STATEMENT, CASH_FLOW, COMPREHENSIVE_INCOME, EQUITY_STATEMENT].contains(&statement) => {
            ("fiscal year".to_string(), Some(12))
        }
        None => ("unstated".to_string(), None),
    };
    Period { year: c.year, duration, months, end: month_day(&c.header).or_else(|| month_day(context)), header: c.header.clone() }
}

/// The catalogue line item a row label prints: the longest listed label or name it is, or
/// continues only with a comma, a parenthesis, a colon or a dash; none that the item's
/// excludes rule out.
pub fn concept_of(label: &str, cat: &Catalogue) -> Option<String> {
    let l = norm(label);
    if l.is_empty() {
        return None;
    }
    let mut best: Option<(&String, usize)> = None;
    for (id, item) in &cat.items {
        if item.excluded_in(&l) {
            continue;
        }
        for s in item.labels.iter().chain(&item.names).map(|s| norm(s)) {
            let fits = l == s || (l.starts_with(&s) && l[s.len()..].trim_start().starts_with([',', '(', ':', '—', '–']));
            if fits && s.len() > best.map_or(0, |b| b.1) {
                best = Some((id, s.len()));
            }
        }
    }
    best.map(|b| b.0.clone())
}

fn is_schedule_year(label: &str) -> bool {
    let l = label.trim().to_lowercase();
    l == "thereafter" || l == "after that" || (l.len() == 4 && l.parse::<i32>().is_ok_and(|y| (1990..=2100).contains(&y)))
}

fn currency_of(text: &str) -> Option<String> {
    [('£', "GBP"), ('€', "EUR"), ('¥', "JPY"), ('$', "USD")].iter().find(|(c, _)| text.contains(*c)).map(|(_, n)| n.to_string())
}

/// A row of share counts ("Weighted-average shares outstanding", "Shares used in computing
/// earnings per share"), not an amount of a stock ("Treasury stock, at cost (139 shares)").
fn is_share_count(l: &str) -> bool {
    let about_amount = ["stock", "cost", "par value", "equity", "repurchase", "$"].iter().any(|w| l.contains(w));
    let counts = l.starts_with("shares") || l.starts_with("number of") || (l.contains("weighted") && l.contains("shares")) || l.contains("shares used");
    counts && !about_amount
}

/// The unit of a row's cell: a rate, a per-share figure, pence or a count are not scaled by the
/// table's "in millions".
fn unit_of(t: &Table, label: &str, col: &Column, printed: &str) -> (String, i64) {
    let l = label.to_lowercase();
    let scale = t.scale.to_f64().round() as i64;
    if col.is_rate() || printed.trim_end().ends_with('%') || l.contains('%') || l.contains("percent") {
        ("percent".into(), 1)
    } else if l.contains("per share") || l.contains("per common share") || l.contains("per diluted") || l.contains("per basic") {
        ("per share".into(), 1)
    } else if l.contains("pence") || l.ends_with("(p)") {
        ("pence".into(), 1)
    } else if is_share_count(&l) {
        ("shares".into(), scale)
    } else {
        (t.unit.clone(), scale)
    }
}

/// The facts of one page's tables.
pub fn read_page(page: u32, heading: &str, text: &str, boxes: &[crate::boxes::CharBox], cat: &Catalogue, quarterly: bool) -> Vec<Fact> {
    let head: String = heading.chars().take(200).chain([' ']).chain(text.chars().take(300)).collect();
    let currency = currency_of(text);
    let mut out = Vec::new();
    for (ti, t) in table::tables(text, boxes).iter().enumerate() {
        let statement = statement_of(&t.title, &head);
        let context = format!("{} {head}", t.title);
        let periods: Vec<Period> = t.columns.iter().map(|c| period_of(c, statement, &context, quarterly)).collect();
        for (ri, r) in t.rows.iter().enumerate() {
            let concept = concept_of(&r.label, cat);
            let member = if is_schedule_year(&r.label) {
                Some(r.label.trim().to_string())
            } else {
                r.section.clone().filter(|s| !s.to_lowercase().starts_with("total") && !r.named_from_section)
            };
            for (ci, cell) in r.cells.iter().enumerate() {
                let Some(cell) = cell else { continue };
                let (unit, scale) = unit_of(t, &r.label, &t.columns[ci], &cell.text);
                out.push(Fact {
                    page,
                    table: ti as u32,
                    row: ri as u32,
                    col: ci as u32,
                    statement: statement.to_string(),
                    label: r.label.clone(),
                    concept: concept.clone(),
                    section: r.section.clone(),
                    // a column group's head ("Corporate & Investment Bank") is the member its
                    // cells are printed for
                    member: t.columns[ci].group.clone().or_else(|| member.clone()),
                    period: periods[ci].clone(),
                    printed: cell.text.clone(),
                    value: cell.value.to_string(),
                    unit,
                    scale,
                    currency: currency.clone(),
                    label_box: r.label_rect.clone(),
                    cell_box: cell.rect.clone(),
                    flagged: None,
                });
            }
        }
    }
    out
}

/// A document's facts, its identities tested and the facts inside a failed one flagged. Pages
/// are read on every core.
pub fn read_document(store: &Store, doc: &Document, cat: &Catalogue) -> Result<(Vec<Fact>, Vec<Identity>)> {
    let quarterly = doc.form.as_deref().is_some_and(|f| f.to_uppercase().contains("10-Q"));
    let mut pages = Vec::new();
    for page in 1..=doc.pages {
        // (one read of each page: its text and heading together)
        let p = store.page_of(doc, page)?;
        // a page with too few figures for a table is not read
        if p.text.chars().filter(|c| c.is_ascii_digit()).count() < 8 {
            continue;
        }
        let boxes = store.page_boxes(doc, page)?;
        pages.push((page, p.heading, p.text, boxes));
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8);
    let chunk = pages.len().div_ceil(threads).max(1);
    let mut facts: Vec<Fact> = std::thread::scope(|s| {
        let handles: Vec<_> = pages
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().flat_map(|(p, h, t, b)| read_page(*p, h, t, b, cat, quarterly)).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    facts.sort_by_key(Fact::id);
    let ids = identity::test(&facts);
    identity::flag(&mut facts, &ids);
    Ok((facts, ids))
}

/// What [`build_missing`] reports as it goes.
#[derive(Debug, Clone, Serialize)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub doc_id: String,
    pub facts: usize,
}

/// Read the facts of every complete document that has none yet, was read by an older
/// [`VERSION`], or whose text changed since (OCR); returns how many were read.
pub fn build_missing(store: &mut Store, cat: &Catalogue, on_progress: &mut dyn FnMut(&Progress)) -> Result<usize> {
    let stale = stored::stale(store)?;
    let total = stale.len();
    for (i, (doc, chars)) in stale.into_iter().enumerate() {
        let (facts, ids) = read_document(store, &doc, cat)?;
        stored::save(store, doc.key, chars, &facts, &ids)?;
        on_progress(&Progress { done: i + 1, total, doc_id: doc.id.clone(), facts: facts.len() });
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_named_by_their_titles() {
        assert_eq!(statement_of("", "3M Company and Subsidiaries Consolidated Balance Shee t At December 31"), BALANCE_SHEET);
        assert_eq!(statement_of("", "Consolidated Statement of Incom e Years ended December 31"), INCOME_STATEMENT);
        assert_eq!(statement_of("Consolidated Statement of Financial Position", ""), BALANCE_SHEET);
        assert_eq!(statement_of("", "CONSOLIDATED STATEMENTS OF CASH FLOWS"), CASH_FLOW);
        assert_eq!(statement_of("Consolidated Statement of Income", ""), INCOME_STATEMENT);
        assert_eq!(statement_of("Consolidated Statement of Comprehensive Income", ""), COMPREHENSIVE_INCOME);
        assert_eq!(statement_of("Group income statement for the year to 31 March 2023", ""), INCOME_STATEMENT);
        assert_eq!(statement_of("Consolidated Statement of Changes in Equity", ""), EQUITY_STATEMENT);
        assert_eq!(statement_of("Contractual obligations", "Item 7. Management's discussion"), OTHER_TABLE);
        assert_eq!(statement_of("Balance sheet and working capital", "Management's Discussion and Analysis of Financial Condition"), OTHER_TABLE);
        assert_eq!(statement_of("Balance sheet and working capital", "Cash Flows Summary of cash flow data (in millions)"), OTHER_TABLE);
        assert_eq!(statement_of("", "Consolidated Statements of Cash Flows (in millions)"), CASH_FLOW);
        assert_eq!(statement_of("", "Index Cash Flows Year ended December 31,"), OTHER_TABLE);
    }

    #[test]
    fn periods_say_their_duration_and_end() {
        let col = |year, months: Option<u8>, header: &str| {
            let (text, boxes) = crate::figures::table::tests::page(&[
                (header, 300.0, 720.0),
                ("2017", 400.0, 720.0),
                ("Sales", 50.0, 700.0),
                ("1", 300.0, 700.0),
                ("2", 400.0, 700.0),
            ]);
            let mut c = crate::figures::table::tables(&text, &boxes).remove(0).columns.remove(0);
            assert_eq!(c.year, year);
            c.months = months;
            c
        };
        let p = period_of(&col(2018, None, "2018"), BALANCE_SHEET, "Consolidated Balance Sheet At December 31", false);
        assert_eq!((p.duration.as_str(), p.end.as_deref(), p.shown().as_str()), ("instant", Some("December 31"), "at December 31, 2018"));
        let p = period_of(&col(2018, None, "2018"), INCOME_STATEMENT, "Group income statement for the year to 31 March 2018", false);
        assert_eq!((p.duration.as_str(), p.months, p.end.as_deref()), ("fiscal year", Some(12), Some("31 March")));
        let p = period_of(&col(2018, Some(9), "2018"), INCOME_STATEMENT, "Nine Months Ended September 30,", true);
        assert_eq!((p.duration.as_str(), p.shown().as_str()), ("9 months year to date", "9 months year to date to September 30, 2018"));
        // a 10-Q's statement whose columns say no length is not taken for a year
        let p = period_of(&col(2018, None, "2018"), INCOME_STATEMENT, "Condensed Consolidated Statements of Income", true);
        assert_eq!(p.duration, "unstated");
    }

    #[test]
    fn a_label_is_a_concept_only_when_it_prints_one() {
        let cat = Catalogue::builtin();
        assert_eq!(concept_of("Total assets", &cat).as_deref(), Some("total_assets"));
        assert_eq!(concept_of("Inventories, net", &cat).as_deref(), Some("inventory"));
        assert_eq!(concept_of("Net income attributable to noncontrolling interest", &cat), None);
        assert_eq!(concept_of("Assets held for sale", &cat), None);
    }

    #[test]
    fn a_column_groups_head_is_the_member_of_its_cells() {
        let (text, boxes) = crate::figures::table::tests::page(crate::figures::table::tests::SEGMENTS);
        let facts = read_page(19, "", &text, &boxes, &Catalogue::builtin(), true);
        let corporate: Vec<&Fact> = facts.iter().filter(|f| f.member.as_deref() == Some("Corporate") && f.label == "Total net revenue").collect();
        assert_eq!(corporate.iter().map(|f| f.value.as_str()).collect::<Vec<_>>(), ["-473", "166"], "{corporate:#?}");
        assert_eq!((corporate[0].period.duration.as_str(), corporate[0].period.months), ("3 months", Some(3)), "{:?}", corporate[0].period);
    }

    #[test]
    fn a_page_is_read_into_facts_with_units_members_and_boxes() {
        let (text, boxes) = crate::figures::table::tests::page(&[
            ("Consolidated Balance Sheet", 50.0, 760.0),
            ("(Dollars in millions) $", 50.0, 750.0),
            ("2018", 300.0, 720.0),
            ("2017", 400.0, 720.0),
            ("Current assets", 50.0, 700.0),
            ("Cash and cash equivalents", 60.0, 690.0),
            ("2,853", 300.0, 690.0),
            ("3,053", 400.0, 690.0),
            ("Inventories", 60.0, 680.0),
            ("4,366", 300.0, 680.0),
            ("4,034", 400.0, 680.0),
            ("Total current assets", 50.0, 670.0),
            ("7,219", 300.0, 670.0),
            ("7,087", 400.0, 670.0),
        ]);
        let facts = read_page(44, "", &text, &boxes, &Catalogue::builtin(), false);
        assert_eq!(facts.len(), 6);
        let cash = &facts[0];
        assert_eq!((cash.statement.as_str(), cash.concept.as_deref(), cash.member.as_deref()), (BALANCE_SHEET, Some("cash"), Some("Current assets")));
        assert_eq!((cash.unit.as_str(), cash.scale, cash.currency.as_deref()), ("millions", 1_000_000, Some("USD")));
        assert_eq!((cash.period.year, cash.period.duration.as_str()), (2018, "instant"));
        assert_eq!(cash.cell_box.text, "2,853");
        assert_eq!(cash.in_units(), Some(2_853_000_000.0));
        assert_eq!(facts[4].concept.as_deref(), Some("current_assets"));
    }
}
