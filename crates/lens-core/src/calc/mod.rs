//! Worked answers: a figure the question asks for (a metric of the catalogue, a formula defined in
//! the question, or one line item) read from statement tables and computed exactly, every operand
//! traced to its cell on its page, the calculation shown.
//!
//! [`work`] runs the whole step: [`plan::plan`] reads the question, [`table::tables`] reads the
//! statement pages (the retrieved pages first, then the filing's other pages that BM25 finds for
//! each line item), each operand is the best-labelled row's cell in the right year's column, and
//! [`formula::Expr::eval`] computes with [`ratio::Ratio`]. A missing operand is named, never guessed.

pub mod checks;
pub mod members;
pub mod plan;
pub mod printed;
pub mod rank;
pub mod ranked;

use crate::error::Result;
use crate::evidence::EvidenceBox;
use crate::figures::catalogue::{self, norm, Catalogue, Unit};
use crate::figures::formula::{self, EvalError, Expr};
use crate::figures::ratio::Ratio;
use crate::figures::table;
use crate::library::Library;
use crate::pageref::PageRef;
use crate::question::Question;
use crate::retrieve::SearchRequest;
use plan::{Plan, Shape};
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::LazyLock;

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
    /// How the row was read, for the verifier's checks ([`checks`]); empty in answers logged
    /// before them.
    #[serde(default)]
    pub read: OperandRead,
}

/// Where and how an operand's row was read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct OperandRead {
    /// The row label as printed.
    pub row: String,
    /// `exact`: a label the catalogue lists, or one that continues it only with a comma, a
    /// parenthesis or a colon ("Inventories, net"), or the party a listed "attributable to"
    /// names; `partial`: a label that only begins with one ("Sales of short-term investments");
    /// `rate`: the rate printed on a row of the item ("Income tax expense $31 (0.6)%").
    pub label_match: String,
    /// The column's header and the table's title as printed.
    pub column: String,
    pub table: String,
    /// The column's length in months when its header says it ("Three Months Ended").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub months: Option<u8>,
    /// The median size of the table's figures as printed (the scale check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typical: Option<f64>,
    /// The same item and period printed on other statements of the same filing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub readings: Vec<Reading>,
}

/// Another statement's figure for an operand's item and period.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    pub page: PageRef,
    pub row: String,
    /// As printed, in `unit`.
    pub value: String,
    pub unit: String,
    /// Whether it is the operand's figure (within 0.5%, after the units).
    pub agrees: bool,
}

/// What a calculation found to check (its rule's id in the rule book, and the words the rule's
/// reason is said with: `crate::wording::reason`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Warning {
    pub rule: String,
    #[serde(default)]
    pub words: Vec<String>,
}

impl Warning {
    fn new(rule: &str, words: Vec<String>) -> Warning {
        Warning { rule: rule.into(), words }
    }
}

/// A worked answer: what was computed, from what, and the result as asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
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
    /// For a comparison or a judgement: the answer's first word ("Yes", "No", "Increased"); for
    /// a ranking, the row named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// A reason to check the result before trusting it, as calculations logged before
    /// [`Calculation::warning`] wrote it (read, never written now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
    /// A reason to check the result before trusting it: the rule of the rule book that says it
    /// (`crate::judge`) and the words it is said with; the answer is then low confidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<Warning>,
    /// The catalogue metric's or line item's id ("gross_margin"), when it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<String>,
    /// What the metric is: amount, ratio, percent or days (empty before the checks).
    #[serde(default)]
    pub unit: String,
    /// How the years combine: one, average, growth, difference, cagr, compare, series, rank.
    #[serde(default)]
    pub shape: String,
    /// The period's length asked, in months (12: fiscal years).
    #[serde(default)]
    pub months: u8,
    /// The result as a number (a percent as a fraction), and the metric at each year it was
    /// evaluated for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<f64>,
    /// The measure's name as the question says it ("cash" in "cash dividends").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_as: Option<String>,
    /// The verifier's checks of this calculation ([`checks`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<checks::Check>,
    /// Readings tried before this one and why each was put aside.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tried: Vec<String>,
    /// The question wrote out the formula used.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub defined: bool,
    /// A formula the question writes that was not read as one ([`plan::Plan::unread`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unread_definition: Option<String>,
    /// The metric as the filing prints it, not computed ([`plan::Plan::as_printed`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub as_printed: bool,
}

/// How well a row label names an item: the company's own share of a listed total first
/// ([`company_share`]), then an exact label, then a label starting with one.
fn label_score(label: &str, item: &catalogue::ItemDef, filer: &[String]) -> Option<i32> {
    // a line of prose the table reader took in ("accounts receivable, inventories and accounts
    // payable increased working capital by $608"): a statement's label starts with a capital
    // and is short
    if label.trim_start().starts_with(char::is_lowercase) || label.split_whitespace().count() > 16 {
        return None;
    }
    let l = norm(label);
    if item.excluded_in(&l) {
        return None;
    }
    if let Some(i) = company_share(label, &item.labels, filer) {
        // the company's share is not the whole total asked
        return (!item.whole).then_some(1050 - i as i32);
    }
    if item.whole && catalogue::has_words(&l, "attributable") {
        return None;
    }
    labels_score(label, &item.labels)
}

/// The index of the listed label `label` prints as the company's own share, beside a total that
/// includes the noncontrolling interests: the filer's name inside a listed total ("Total 3M
/// Company shareholders' equity" for "total shareholders' equity"), or a listed label followed by
/// "attributable to" a party ("TOTAL EQUITY ATTRIBUTABLE TO SHAREOWNERS OF THE COCA-COLA
/// COMPANY"); `filer` holds the filer's names squashed. A noncontrolling party is left to the
/// item's excludes.
fn company_share(label: &str, labels: &[String], filer: &[String]) -> Option<usize> {
    let l = norm(label);
    let sl = squash(label);
    labels.iter().position(|syn| {
        let s = norm(syn);
        // ("EQUITY ATTRIBUTABLE TO SHAREOWNERS OF ..." for "total equity": the share is not a total)
        let core = s.strip_prefix("total ").unwrap_or(&s);
        if l.starts_with(core) && l[core.len()..].trim_start().starts_with("attributable to ") {
            return true;
        }
        // "Net income attributable to MGM Resorts International" for the listed "net income
        // attributable to": the filer named as the party, beside a bare "Net income" that
        // includes the noncontrolling interests (a cash flow statement prints only that one)
        if (s.ends_with(" to") || s.ends_with(" of")) && l.starts_with(&s) {
            let party = squash(&l[s.len()..]);
            if party.len() >= 2 && filer.iter().any(|f| party.starts_with(f.as_str()) || f.starts_with(party.as_str())) {
                return true;
            }
        }
        let Some(rest) = s.strip_prefix("total ") else { return false };
        let rest = squash(rest);
        let Some(middle) = sl.strip_prefix("total").and_then(|m| m.strip_suffix(rest.as_str())) else { return false };
        !middle.is_empty() && filer.iter().any(|f| middle.starts_with(f.as_str()) || (middle.len() >= 2 && f.starts_with(middle)))
    })
}

/// `exact` when the label is one of `labels`, or continues one only with a comma, dash, parenthesis
/// or colon, or names the party a listed "... attributable to" leaves open; `partial` when it
/// only begins with one ([`OperandRead::label_match`]).
fn label_kind(label: &str, labels: &[String], qualifiers: &[String]) -> &'static str {
    let l = norm(label);
    let exact = labels.iter().map(|s| norm(s)).any(|s| {
        l == s
            || (l.starts_with(&s)
                && (s.ends_with(" to")
                    || s.ends_with(" of")
                    || l[s.len()..].trim_start().starts_with([',', '(', ':', '—', '–'])
                    || qualifiers.iter().any(|q| l[s.len()..].trim_start().starts_with(q.as_str()))))
    });
    if exact {
        "exact"
    } else {
        "partial"
    }
}

fn labels_score(label: &str, labels: &[String]) -> Option<i32> {
    let l = norm(label);
    let l: &str = &without_note_reference(&l);
    let mut best = None;
    for (i, syn) in labels.iter().enumerate() {
        let s = norm(syn);
        let s: &str = &without_note_reference(&s);
        // a listed "... attributable to" names the party the statement prints: "Net income
        // attributable to 3M" is the label as exactly as "Net income" is
        let open_party = (s.ends_with(" to") || s.ends_with(" of")) && l.starts_with(s) && l.len() > s.len() + 1;
        let score = if l == s || open_party {
            1000 - i as i32
        } else if l.starts_with(s) && l[s.len()..].starts_with([' ', ',', '(', ':']) {
            600 - i as i32
        } else {
            continue;
        };
        best = best.max(Some(score));
    }
    best
}

/// Whether a fact's figure is `mine` in size (within 0.5%, in units).
fn same_size(f: &crate::facts::Fact, mine: f64) -> bool {
    f.in_units().is_some_and(|t| (t.abs() - mine).abs() <= 0.005 * mine.max(t.abs()))
}

/// The operand gets a fact's reading of its item that does not agree with it (the readings
/// check then says the two differ).
fn disagreeing(op: &mut Operand, f: &crate::facts::Fact) {
    op.read.readings.push(Reading {
        page: PageRef { doc_id: op.page.doc_id.clone(), page: f.page },
        row: f.label.clone(),
        value: f.value.clone(),
        unit: f.unit.clone(),
        agrees: false,
    });
}

/// A label without the note it refers to at its end ("long-term debt (note 12)", "inventories
/// (notes 4 and 5)" -> "long-term debt", "inventories"): the reference is no part of the name.
/// (Every row label of every page read is scored: a label not ending in ")" is passed through
/// without the pattern.)
fn without_note_reference(l: &str) -> Cow<'_, str> {
    static RE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\s*\((?:see )?notes? [0-9a-z]{1,3}(?:(?:,| and|, and) [0-9a-z]{1,3})*\)$").expect("valid regex"));
    if !l.ends_with(')') {
        return Cow::Borrowed(l);
    }
    RE.replace(l, "")
}

/// A row label naming a loss and no income ("Net loss", "Net loss attributable to Block"), as
/// against "Net income (loss)" or "Net (loss) income", whose figure carries its own sign.
fn names_only_a_loss(label: &str) -> bool {
    let l = norm(label);
    l.starts_with("net loss") && !l.contains("income") && !l.contains("earnings") && !l.contains("profit")
}

/// Finds operands on the candidate pages.
struct Finder<'a, 'b> {
    lib: &'a Context<'a>,
    cat: &'b Catalogue,
    candidates: Vec<PageRef>,
    docs: Vec<String>,
    searched: Vec<String>,
    found: Vec<Operand>,
    /// (item, year) -> value in units
    cache: HashMap<(String, i32), Option<Ratio>>,
    /// rows passed over because their year's columns could not be told apart
    ambiguous: Vec<String>,
    /// expenses read in parentheses whose sign the table does not settle (`signed_by_statement`):
    /// the row's label and page
    sign_unread: Vec<(String, PageRef)>,
    /// candidate page -> the statements it is titled as (looked up once per calculation)
    statements: HashMap<PageRef, Vec<String>>,
    /// The period's length in months: 12 for fiscal years, 3 for a quarter, 6 for a half.
    months: u8,
    /// item -> the page and row label its first value was read from: the other years of the
    /// item are read from the same row when it has them (a growth is not two tables' rows)
    anchors: HashMap<String, (PageRef, String)>,
    /// Rows put aside (page, row label): a reading a check refused, so the next is tried.
    excluded: &'a [(PageRef, String)],
    /// document -> the names its filer goes by (squashed to letters and digits), once each
    filers: HashMap<String, Vec<String>>,
    /// Items counted as zero (`absent_is_zero`): the page, the item and the period, said in the
    /// warning.
    zeroed: Vec<[String; 3]>,
}

impl Finder<'_, '_> {
    /// Is the page titled as a financial statement (rerank profile)?
    fn is_statement(&mut self, p: &PageRef) -> bool {
        !self.statement_kinds(p).is_empty()
    }

    /// An `absent_is_zero` item the balance sheet the calculation already read the year's
    /// other items from does not print: zero, with an operand on that page saying so.
    fn absent(&mut self, item: &str, def: &catalogue::ItemDef, year: i32) -> Option<(i32, Ratio, Operand)> {
        if !def.absent_is_zero {
            return None;
        }
        let period = format!("FY{year}");
        let from = self.found.iter().find(|o| o.period == period && o.read.label_match == "exact").map(|o| (o.page.clone(), o.unit.clone()))?;
        if !self.statement_kinds(&from.0).iter().any(|k| k == "balance") {
            return None;
        }
        let name = self.cat.item_name(item);
        self.zeroed.push([from.0.to_string(), name.clone(), period.clone()]);
        let op = Operand {
            name: name.clone(),
            period,
            value: "0".into(),
            unit: from.1,
            page: from.0,
            quote: format!("(no row of {name} on the balance sheet)"),
            boxes: Vec::new(),
            read: OperandRead { row: String::new(), label_match: "absent".into(), ..Default::default() },
        };
        Some((0, Ratio::int(0), op))
    }

    /// Whether a page's opening lines, joined, name a statement (a title printed a word a line).
    fn titled_statement(&self, p: &PageRef) -> bool {
        self.lib.store().page(&p.doc_id, p.page).is_ok_and(|pg| !crate::rank::title_statements(&pg.text, self.lib.sources.lexicon).is_empty())
    }

    /// The statements a page is titled as ("balance sheet", "cash flow").
    fn statement_kinds(&mut self, p: &PageRef) -> &[String] {
        let lib = self.lib;
        self.statements.entry(p.clone()).or_insert_with(|| {
            lib.document(&p.doc_id).ok().and_then(|d| lib.page_profile(d.key, p.page).ok()).map(|pr| pr.statements.clone()).unwrap_or_default()
        })
    }

    /// Does the page print average balances ("Average Balance" heads, word by word over the
    /// columns)?
    fn of_averages(&self, p: &PageRef) -> bool {
        let text = self.lib.store().page(&p.doc_id, p.page).map(|pg| norm(&pg.text)).unwrap_or_default();
        ["average balance", "average balances", "average daily balance"].iter().any(|w| catalogue::has_words(&text, w))
    }

    /// Whether `doc` is an annual report (a 10-K, 20-F or annual report by its form).
    fn is_annual(&self, doc: &str) -> bool {
        self.lib.document(doc).ok().and_then(|d| d.form).is_some_and(|f| {
            let f = f.to_uppercase();
            f.contains("10-K") || f.contains("20-F") || f.contains("ANNUAL")
        })
    }

    /// Whether the document is an earnings release or another current report (8-K), not a
    /// periodic report.
    fn is_release(&self, doc: &str) -> bool {
        self.lib.document(doc).ok().and_then(|d| d.form).is_some_and(|f| {
            let f = f.to_uppercase();
            f.contains("EARNINGS") || f.contains("8-K")
        })
    }

    /// Whether `t` adds signed amounts in column `col`: its income before taxes plus `tax` (as
    /// read, in the table's unit times its scale) is its net income, within 2%.
    fn adds_signed(&self, t: &table::Table, col: usize, tax: Ratio) -> bool {
        let cell = |item: &str| {
            let def = self.cat.items.get(item)?;
            t.rows.iter().filter(|r| labels_score(&r.label, &def.labels).is_some()).find_map(|r| r.cells.get(col)?.as_ref()?.value.checked_mul(t.scale))
        };
        let (Some(pretax), Some(net)) = (cell("pretax_income"), cell("net_income")) else { return false };
        let (p, n, x) = (pretax.to_f64(), net.to_f64(), tax.to_f64());
        (p + x - n).abs() <= 0.02 * p.abs().max(n.abs())
    }

    /// The names the filer of `doc` goes by: its company, the company list's names and
    /// aliases for it, squashed to letters and digits ("cocacola"); empty when not known.
    fn filer_names(&mut self, doc: &str) -> &[String] {
        let lib = self.lib;
        self.filers.entry(doc.to_string()).or_insert_with(|| lib.document(doc).map(|d| filer_names_of(lib, &d)).unwrap_or_default())
    }

    /// The item for the year read from the pages where the filing's facts (`crate::facts`, read
    /// at ingest from every table) print it on a statement for a period of the length asked,
    /// in a table whose identities did not fail: pages neither retrieval nor the item's searches
    /// reached (a figure on a fourth page). Read as any candidate page is, by [`Finder::best_on`].
    fn read_from_facts(&mut self, item: &str, def: &catalogue::ItemDef, year: i32) -> Option<(i32, Ratio, Operand)> {
        use crate::facts::{BALANCE_SHEET, CASH_FLOW, INCOME_STATEMENT};
        let duration = facts_duration(def.balance, self.months)?;
        let durations = &[duration];
        let statements: &[&str] = if def.balance { &[BALANCE_SHEET] } else { &[INCOME_STATEMENT, CASH_FLOW] };
        let mut added = false;
        for doc in self.docs.clone() {
            let Ok(d) = self.lib.document(&doc) else { continue };
            let labelled = || {
                crate::facts::stored::pages_labelled(self.lib.store(), d.key, &def.labels, year, printed::statements(def.balance), durations)
                    .unwrap_or_default()
            };
            let mut pages = if item.starts_with(printed::PRINTED) {
                labelled()
            } else {
                crate::facts::stored::pages_with(self.lib.store(), d.key, item, year, statements, durations).unwrap_or_default()
            };
            // an item no fact was filed under at ingest (its statements do not print it, or the
            // catalogue named it later: "Total debt" in a note) is found by its labels
            if pages.is_empty() && !item.starts_with(printed::PRINTED) {
                pages = labelled();
            }
            // the pages printing one of the item's own labels as it is ("Purchases of property
            // and equipment"), when some do, not those printing it qualified ("..., net of
            // proceeds from sales and incentives", a discussion's reconciliation)
            let listed = |l: &str| def.labels.iter().any(|x| norm(x) == norm(l));
            if pages.iter().any(|(_, l)| listed(l)) {
                pages.retain(|(_, l)| listed(l));
            }
            for (page, _) in pages {
                let p = PageRef { doc_id: doc.clone(), page };
                if !self.candidates.contains(&p) {
                    self.candidates.push(p);
                    added = true;
                }
            }
        }
        if added {
            self.best_on(def, year)
        } else {
            None
        }
    }

    /// A printed line item ([`printed`]) is known only by its label: where the filing's facts
    /// print one of its labels for the year, over a period of the same length, with another
    /// figure (a lease note's "Accumulated depreciation" beside the property note's), the
    /// operand gets that reading, which does not agree, so the readings check says the two
    /// differ and the answer is never shown as supported.
    fn printed_elsewhere(&mut self, def: &catalogue::ItemDef, year: i32, value: Ratio, op: &mut Operand) {
        let Ok(d) = self.lib.document(&op.page.doc_id) else { return };
        let Ok(facts) = crate::facts::stored::of_year(self.lib.store(), d.key, year) else { return };
        let mine = value.to_f64().abs();
        let Some(wanted) = facts_duration(def.balance, self.months) else { return };
        for f in facts {
            if !def.labels.contains(&norm(&f.label)) || f.period.duration != wanted || !f.is_amount() || f.page == op.page.page {
                continue;
            }
            if f.in_units().is_none() || same_size(&f, mine) || op.read.readings.iter().any(|r| r.page.page == f.page) {
                continue;
            }
            disagreeing(op, &f);
            break;
        }
    }

    /// A balance read off the filing's balance sheet (the pages of a balance identity that held,
    /// `crate::facts::identity`) where that balance sheet prints the item for the year with
    /// another figure (Corning's "Long-term debt 58" of its equity-method investees against its
    /// own "Long-term debt (Note 12) 6,989"): the operand gets the balance sheet's reading,
    /// which does not agree, so the readings check says the two differ and the answer is never
    /// shown as supported.
    fn balance_sheet_disagrees(&mut self, def: &catalogue::ItemDef, year: i32, value: Ratio, op: &mut Operand) {
        let Ok(d) = self.lib.document(&op.page.doc_id) else { return };
        let Ok(ids) = crate::facts::stored::identities(self.lib.store(), d.key) else { return };
        let sheet: Vec<u32> = ids.iter().filter(|i| i.name == "balance" && i.passed).flat_map(|i| i.facts.iter().map(|f| f.0)).collect();
        if sheet.is_empty() || sheet.contains(&op.page.page) {
            return;
        }
        let Ok(facts) = crate::facts::stored::of_year(self.lib.store(), d.key, year) else { return };
        let mine = value.to_f64().abs();
        // (how nearly each row is labelled as the item, and the row)
        let on_sheet: Vec<(i32, &crate::facts::Fact)> = facts
            .iter()
            .filter(|f| sheet.contains(&f.page) && f.period.duration == "instant" && f.is_amount() && !def.excluded_in(&norm(&f.label)))
            .filter_map(|f| Some((labels_score(&f.label, &def.labels)?, f)))
            .collect();
        if on_sheet.iter().any(|(_, f)| same_size(f, mine)) {
            return;
        }
        // the row labelled most nearly as the item
        if let Some((_, f)) = on_sheet.iter().max_by_key(|(score, _)| *score) {
            disagreeing(op, f);
        }
    }

    /// Add the filing's pages BM25 finds for an item's labels (once per item).
    fn widen(&mut self, item: &str) {
        if self.searched.iter().any(|s| s == item) {
            return;
        }
        self.searched.push(item.to_string());
        let Some(def) = self.cat.items.get(item) else { return };
        for doc in self.docs.clone() {
            // the item's labels plus statement titles: statements outrank notes that mention it;
            // then the statements by their titles alone, where the item's words are everywhere
            // (MGM's income statement was not among the ten pages naming "net income")
            let with_labels = format!(
                "{} consolidated statements balance sheets income operations cash flows",
                def.labels.iter().take(3).cloned().collect::<Vec<_>>().join(" ")
            );
            let titles = if def.balance {
                "consolidated balance sheets statements of financial position"
            } else {
                "consolidated statements of operations income earnings cash flows"
            };
            for (q, statements_only) in [(with_labels.as_str(), false), (titles, true)] {
                let req = SearchRequest::lookup(q, &doc, 10);
                if let Ok(r) = self.lib.search(&req) {
                    for h in r.hits {
                        let p = h.page_ref();
                        // (by titles alone: the pages titled as statements, not an exhibit's
                        // "ratio of earnings to fixed charges")
                        if !self.candidates.contains(&p) && (!statements_only || self.is_statement(&p) || self.titled_statement(&p)) {
                            self.candidates.push(p);
                        }
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
        // the filing's statement pages are searched too: a row found only outside them (a
        // segment table, a release's quarter) loses to a statement's, and a statement's row is
        // compared with the same statement printed elsewhere (the readings check)
        self.widen(item);
        let mut best = self.best_on(&def, year).or_else(|| self.read_from_facts(item, &def, year)).or_else(|| self.absent(item, &def, year));
        if let Some((_, v, op)) = best.as_mut() {
            if item.starts_with(printed::PRINTED) {
                self.printed_elsewhere(&def, year, *v, op);
            } else if def.balance {
                self.balance_sheet_disagrees(&def, year, *v, op);
            }
        }
        let v = best.map(|(_, value, op)| {
            self.anchors.entry(item.to_string()).or_insert_with(|| (op.page.clone(), op.quote.clone()));
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
        // every exactly labelled row of a statement page with a cell for the year: the other
        // readings of the chosen one
        let mut statement_rows: Vec<(Ratio, Reading)> = Vec::new();
        let id = self.cat.items.iter().find(|(_, d)| d.labels == def.labels).map(|(k, _)| k.clone()).unwrap_or_default();
        let anchor = self.anchors.get(&id).cloned();
        for (rank, p) in self.candidates.clone().iter().enumerate() {
            // a page titled as a statement beats a note or a discussion table with the same row
            let statement = self.is_statement(p);
            // a balance is not read from a cash flow statement, whose row under its label is
            // the year's change in it, nor an expense, whose row there is the cash paid for it
            if def.balance || def.expensed {
                let kinds = self.statement_kinds(p);
                let has = |kind: &str| kinds.iter().any(|k| k == kind);
                if has("cash_flow") && ((def.balance && !has("balance")) || (def.expensed && !has("income"))) {
                    continue;
                }
                // nor a balance at a date from a page of the year's average balances (a bank's
                // "Average Balance / Interest Expense / Average Rate" tables print "Total
                // liabilities" too), unless the page is titled as a balance sheet
                let balance_sheet = has("balance");
                if def.balance && !balance_sheet && self.of_averages(p) {
                    continue;
                }
            }
            let filer = self.filer_names(&p.doc_id).to_vec();
            let annual = self.months != 12 && self.is_annual(&p.doc_id);
            // a release prints the quarter and the year (or the half) side by side: a flow's
            // column that does not say its length is not the quarter asked (MGM's fourth-quarter
            // release: "Diluted earnings per share 3.49" under "2022" is the year's)
            let release = self.months != 12 && !def.balance && self.is_release(&p.doc_id);
            for t in self.lib.page_tables(p).iter() {
                // another entity's statements printed in the filing (an investee's, a
                // guarantor's) are not the filer's figures
                if other_entity(&t.title, &filer).is_some() {
                    continue;
                }
                // nor are the parent company's own condensed statements the consolidated ones
                // (worked answers are never planned for the parent company alone)
                if crate::question::asks_parent_only(&t.title) {
                    continue;
                }
                // a table about a part of the company (its leases, a disposal, an acquisition's
                // allocation) prints that part's figures under the company's labels: by its
                // title, or a sentence the table was read with ("our investment in our equity
                // method investees ..." around an investee's summarized figures), but not a
                // bulleted remark on the rows' changes (Coca-Cola's "• Other liabilities
                // increased and deferred income taxes decreased ..." under its balance sheet)
                let prose = t.rows.iter().map(|r| r.label.as_str()).filter(|l| is_prose(l) && !is_bullet(l));
                if let Some(w) = std::iter::once(t.title.as_str()).chain(prose).find_map(|about| part_title(about, &self.lib.checks.part_titles)) {
                    if !def.names.iter().chain(&def.labels).any(|n| norm(n).contains(w)) {
                        continue;
                    }
                }
                let table_bonus = if statement { 200 } else { 0 } + 5 * t.rows.len().min(20) as i32;
                // annual figures: a quarter's or half-year's column is not the fiscal year's
                // a column with no period heading is the document's own period: a year in an
                // annual report, never a quarter asked of one
                let mut cols: Vec<usize> = t
                    .columns
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.year == year && c.months.map_or((self.months == 12 || !annual) && !release, |m| m == self.months))
                    .map(|(i, _)| i)
                    .collect();
                // a period printed as parts (amount and rate): a rate is read from the rate part,
                // an amount from the others
                let percent = def.unit == Some(Unit::Percent);
                if cols.iter().any(|&c| t.columns[c].part.is_some()) {
                    let keep: Vec<usize> = cols.iter().copied().filter(|&c| t.columns[c].is_rate() == percent).collect();
                    if !keep.is_empty() {
                        cols = keep;
                    }
                }
                let Some(&col) = cols.first() else { continue };
                let rate_col = t.columns[col].is_rate();
                // the median size of the table's figures, made only for a row that is taken
                let typical = || {
                    let mut v: Vec<f64> = t.rows.iter().flat_map(|r| r.cells.iter().flatten()).map(|c| c.value.to_f64().abs()).filter(|v| *v > 0.0).collect();
                    v.sort_by(|a, b| a.total_cmp(b));
                    v.get(v.len() / 2).copied()
                };
                for r in &t.rows {
                    // a row put aside is not chosen, but still counts as another reading
                    let put_aside = self.excluded.iter().any(|(ep, el)| ep == p && *el == r.label);
                    // a rate read from its row's rate column ("Income tax expense $31 (0.6)%"):
                    // only from a rate part or a cell printed with %
                    let rate_row = || {
                        let c = r.cells.get(col).and_then(Option::as_ref)?;
                        (rate_col || c.text.contains('%')).then_some(())?;
                        labels_score(&r.label, &def.rate_of).map(|s| s - 100)
                    };
                    // an item named with its heading is read only under it ("Subscription"
                    // under "Revenue", not under "Cost of revenue")
                    if !def.sections.is_empty() && !r.section.as_deref().is_some_and(|h| def.sections.contains(&norm(h))) {
                        continue;
                    }
                    let by_label = label_score(&r.label, def, &filer).or_else(|| per_share_row(&r.label, r.section.as_deref(), def));
                    let score = by_label.or_else(|| if percent { rate_row() } else { None });
                    let (Some(s), Some(Some(cell))) = (score, r.cells.get(col)) else { continue };
                    let label_match = if by_label.is_none() {
                        "rate"
                    } else if company_share(&r.label, &def.labels, &filer).is_some() {
                        "exact"
                    } else {
                        label_kind(&r.label, &def.labels, &self.lib.checks.label_qualifiers)
                    };
                    // (an adjusted or non-GAAP table's figure is the company's own measure, not
                    // another printing of the statement's)
                    if statement && label_match == "exact" && !matches!(def.unit, Some(Unit::Percent | Unit::PerShare)) && !own_measure(&t.title) {
                        if let Some(v) = cell.value.checked_mul(t.scale) {
                            statement_rows.push((
                                v,
                                Reading { page: p.clone(), row: r.label.clone(), value: cell.value.to_string(), unit: t.unit.clone(), agrees: false },
                            ));
                        }
                    }
                    if put_aside {
                        continue;
                    }
                    let same_row = anchor.as_ref().is_some_and(|(ap, aq)| ap == p && aq.starts_with(&r.label));
                    let s = (s + table_bonus + if same_row { 2000 } else { 0 }) * 10 - rank as i32;
                    if best.as_ref().is_some_and(|b| b.0 >= s) {
                        continue;
                    }
                    // a rate row of a reconciliation table prints amounts and percents for a year:
                    // the percent is the rate
                    let cell = if def.unit == Some(Unit::Percent) {
                        cols.iter().filter_map(|c| r.cells.get(*c).and_then(Option::as_ref)).find(|c| c.text.contains('%')).unwrap_or(cell)
                    } else {
                        cell
                    };
                    let others: Vec<&table::Cell> = if def.unit == Some(Unit::Percent) && cell.text.contains('%') {
                        Vec::new()
                    } else {
                        cols[1..].iter().filter_map(|c| r.cells.get(*c).and_then(Option::as_ref)).filter(|c| c.value != cell.value).collect()
                    };
                    if !others.is_empty() {
                        let heads: Vec<String> = cols.iter().map(|c| format!("\"{}\"", t.columns[*c].header)).collect();
                        let vals: Vec<&str> = std::iter::once(cell.text.as_str()).chain(others.iter().map(|c| c.text.as_str())).collect();
                        let why = format!(
                            "\"{}\" on {p} has {} figures for FY{year} ({}, under {}) and the page does not say which is meant",
                            r.label,
                            vals.len(),
                            vals.join(" and "),
                            heads.join(" and ")
                        );
                        if !self.ambiguous.contains(&why) {
                            self.ambiguous.push(why);
                        }
                        continue;
                    }
                    // a printed rate is a percentage whatever the table's unit
                    let value = match def.unit {
                        Some(Unit::Percent) => cell.value.checked_div(Ratio::int(100)),
                        // a figure per share is printed in dollars whatever the table's unit
                        Some(Unit::PerShare) => Some(cell.value),
                        _ => cell.value.checked_mul(t.scale),
                    };
                    let Some(mut value) = value else { continue };
                    // a row that names only a loss ("Net loss (171,590)", or "Net loss 171,590" in
                    // a table of losses) is a loss whichever way it is printed
                    if names_only_a_loss(&r.label) && value.to_f64() > 0.0 {
                        match Ratio::ZERO.checked_sub(value) {
                            Some(v) => value = v,
                            None => continue,
                        }
                    }
                    // an expense the statement prints in parentheses is subtracted there: its
                    // size is the cost
                    if def.cost && value.to_f64() < 0.0 {
                        match Ratio::ZERO.checked_sub(value) {
                            Some(v) => value = v,
                            None => continue,
                        }
                    }
                    // an expense printed in parentheses by a statement that adds signed amounts
                    // (income before taxes + provision = net income) is an expense of that size
                    let mut sign_unread = false;
                    if def.signed_by_statement && value.to_f64() < 0.0 {
                        if self.adds_signed(t, col, value) {
                            match Ratio::ZERO.checked_sub(value) {
                                Some(v) => value = v,
                                None => continue,
                            }
                        } else {
                            // an expense or a benefit: the table's rows do not say which
                            sign_unread = true;
                        }
                    }
                    // a balance that cannot be negative (cash, receivables, total assets) read as
                    // negative is another row's figure
                    if def.positive && value.to_f64() < 0.0 {
                        continue;
                    }
                    if def.nonzero && value.to_f64() == 0.0 {
                        continue;
                    }
                    let op = Operand {
                        name: def.names.first().cloned().unwrap_or_default(),
                        period: match self.months {
                            12 => format!("FY{year}"),
                            m => format!("{m} months of FY{year}"),
                        },
                        value: cell.value.to_string(),
                        unit: match def.unit {
                            Some(Unit::Percent) => "percent".into(),
                            Some(Unit::PerShare) => "per share".into(),
                            _ => t.unit.clone(),
                        },
                        page: p.clone(),
                        quote: format!("{} {}", r.label, cell.text),
                        boxes: vec![r.label_rect.clone(), cell.rect.clone()],
                        read: OperandRead {
                            row: r.label.clone(),
                            label_match: label_match.to_string(),
                            column: t.columns[col].header.clone(),
                            table: t.title.clone(),
                            months: t.columns[col].months,
                            typical: typical(),
                            readings: Vec::new(),
                        },
                    };
                    if sign_unread {
                        self.sign_unread.push((r.label.clone(), p.clone()));
                    }
                    best = Some((s, value, op));
                }
            }
        }
        // the same statement printed again in the filing (a balance sheet's cash on another
        // balance sheet page, not the cash flow statement's change in it) for the year
        let kinds: Vec<String> = best.as_ref().map(|b| self.statement_kinds(&b.2.page).to_vec()).unwrap_or_default();
        if let Some((_, v, op)) = best.as_mut() {
            let mine = v.to_f64().abs();
            for (other, mut reading) in statement_rows {
                if reading.page.doc_id != op.page.doc_id || reading.page == op.page || op.read.readings.iter().any(|r| r.page == reading.page) {
                    continue;
                }
                // the same statement: titled alike, its row labelled alike
                let theirs = self.statement_kinds(&reading.page);
                if !theirs.iter().any(|k| kinds.contains(k)) || norm(&reading.row) != norm(&op.read.row) {
                    continue;
                }
                let o = other.to_f64().abs();
                // (the same figure printed alike is the same reading, whatever the unit lines
                // of the two pages say)
                let printed_alike = reading.value == op.value;
                reading.agrees = printed_alike || (o - mine).abs() <= 0.005 * mine.max(o);
                // a smaller figure under the same label is a part (a subsidiary's, a disposed
                // business's): the consolidated statement's is never below a part of it
                if !reading.agrees && o < mine {
                    continue;
                }
                // the other statement prints this figure too, on another row of it ("Property,
                // plant and equipment" gross there, "— net" below it): they agree
                if !reading.agrees {
                    let tables = self.lib.page_tables(&reading.page);
                    reading.agrees = tables.iter().any(|t| {
                        t.rows
                            .iter()
                            .flat_map(|r| r.cells.iter().flatten())
                            .any(|c| c.value.checked_mul(t.scale).is_some_and(|v| (v.to_f64().abs() - mine).abs() <= 0.005 * mine))
                    });
                }
                op.read.readings.push(reading);
                if op.read.readings.len() >= 3 {
                    break;
                }
            }
        }
        best
    }
}

/// Whether a row's label is a sentence the table was read with, not a line item: more than
/// twelve words once what its parentheses qualify is left out ("Income from discontinued
/// operations (net of income taxes of $47, $0 and $0, respectively)" is a statement's line item,
/// four words long).
fn is_prose(label: &str) -> bool {
    outside_parentheses(label).split_whitespace().count() > 12
}

/// A label's words outside its parentheses ("Operating income (loss)" -> "Operating income ").
pub(crate) fn outside_parentheses(label: &str) -> String {
    let mut depth = 0usize;
    let mut bare = String::with_capacity(label.len());
    for ch in label.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => bare.push(ch),
            _ => {}
        }
    }
    bare
}

/// A figure per share printed as "Diluted" (or "Basic") under a heading of earnings per share
/// ("NET INCOME PER COMMON SHARE ATTRIBUTABLE TO COSTCO:"): the item whose name starts with the
/// row's word.
fn per_share_row(label: &str, section: Option<&str>, def: &catalogue::ItemDef) -> Option<i32> {
    if def.unit != Some(Unit::PerShare) {
        return None;
    }
    let h = norm(section?);
    let l = norm(label);
    let l = l.trim_end_matches([':', '.']).trim();
    let earnings = ["earnings", "income"].iter().any(|w| catalogue::has_words(&h, w)) && (h.contains("per share") || h.contains("per common share"));
    (earnings && !h.contains("dividend") && matches!(l, "diluted" | "basic") && def.names.first().is_some_and(|n| n.starts_with(l))).then_some(900)
}

/// Whether a row's label is a bulleted remark ("• Equity method investments increased ...").
fn is_bullet(label: &str) -> bool {
    label.trim_start().starts_with(['•', '●', '▪', '◦', '■'])
}

/// The word of `words` a table's title holds (at a word's start), if any.
fn part_title<'w>(title: &str, words: &'w [String]) -> Option<&'w str> {
    let t = norm(title);
    words.iter().map(String::as_str).find(|w| t.match_indices(*w).any(|(i, _)| i == 0 || !t.as_bytes()[i - 1].is_ascii_alphanumeric()))
}

/// Letters and digits only, lower case: "Coca-Cola Company" -> "cocacolacompany".
pub(super) fn squash(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// The entity a statement's title names when it is not the filer ("CITYCENTER HOLDINGS, LLC
/// CONSOLIDATED STATEMENTS OF CASH FLOWS" in MGM Resorts' 10-K): the words before the
/// statement's name, when they end like a company's name (LLC, Inc., Ltd., Holdings ...) and
/// hold none of the filer's names (`filer`, squashed). None when the title names no entity, the
/// filer, or the filer is not known.
pub(crate) fn other_entity(title: &str, filer: &[String]) -> Option<String> {
    if filer.is_empty() {
        return None;
    }
    let t = title.to_lowercase();
    let at = ["consolidated", "combined", "condensed", "statement", "balance sheet"].iter().filter_map(|w| t.find(w)).min()?;
    let head = t[..at].trim();
    let words: Vec<String> =
        head.split(|c: char| !c.is_alphanumeric() && c != '.').map(|w| w.trim_matches('.').to_string()).filter(|w| !w.is_empty()).collect();
    const SUFFIXES: [&str; 14] = ["llc", "l.l.c", "lp", "l.p", "inc", "corp", "corporation", "ltd", "limited", "plc", "holdings", "company", "co", "partners"];
    if !words.iter().any(|w| SUFFIXES.contains(&w.as_str())) {
        return None;
    }
    // "the Company's consolidated balance sheet" is the filer's, and a sentence before the
    // statement's name ("The following table illustrates the change in the individual line
    // items of the Company's ...") is no entity's name
    if words.windows(2).any(|w| w[0] == "the" && w[1] == "company") || words.len() > 8 {
        return None;
    }
    let h = squash(head);
    if filer.iter().any(|n| h.contains(n.as_str())) {
        return None;
    }
    let printed = if t.len() == title.len() { &title[..at] } else { head };
    Some(printed.trim().trim_end_matches([',', '-', ':']).trim().to_string())
}

/// Whether a table's title says its figures are the company's own measures (adjusted,
/// non-GAAP, pro forma, a reconciliation to them).
fn own_measure(title: &str) -> bool {
    let t = norm(title);
    ["adjusted", "non-gaap", "non gaap", "pro forma", "reconciliation", "constant currency", "organic"].iter().any(|w| t.contains(w))
}

/// "1234567.5" -> "1,234,567.5".
pub(crate) use crate::figures::ratio::grouped as group;

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
        Unit::Amount => amount_text(v, exact, f.scale, f.decimals, units_known, "$"),
        Unit::Count => amount_text(v, exact, f.scale, f.decimals, units_known, ""),
        Unit::Days => format!("{} days", exact.map(|r| r.round_str(f.decimals.unwrap_or(2))).unwrap_or_else(|| format!("{v:.2}"))),
        Unit::PerShare => {
            let s = exact.map(|r| r.round_str(f.decimals.unwrap_or(2))).unwrap_or_else(|| format!("{v:.2}"));
            match s.strip_prefix('-') {
                Some(pos) => format!("-${pos} per share"),
                None => format!("${s} per share"),
            }
        }
        _ => {
            let d = f.decimals.unwrap_or_else(|| ratio_places(v));
            exact.map(|r| r.round_str(d)).unwrap_or_else(|| format!("{:.*}", d as usize, v))
        }
    }
}

/// An amount as an answer states it: in the scale asked (`scale`), else in millions, to
/// `decimals` places, else whole when 100 or more; after `currency` ("$", or nothing for a
/// count of things).
fn amount_text(v: f64, exact: Option<Ratio>, scale: Option<(Ratio, &'static str)>, decimals: Option<u32>, units_known: bool, currency: &str) -> String {
    // a figure from a table that states no unit is shown as printed: scaling it to the unit
    // asked would guess the unit
    let (scale, name) = match (units_known, scale) {
        (false, _) => (Ratio::int(1), "(in the table's unstated unit)"),
        (true, Some(s)) => s,
        (true, None) => (Ratio::int(1_000_000), "million"),
    };
    let scaled = exact.and_then(|r| r.checked_div(scale));
    let d = decimals.unwrap_or(if scaled.map_or(v / scale.to_f64(), |r| r.to_f64()).abs() >= 100.0 { 0 } else { 2 });
    let s = scaled.map(|r| r.round_str(d)).unwrap_or_else(|| format!("{:.*}", d as usize, v / scale.to_f64()));
    let s = group(&s);
    match s.strip_prefix('-') {
        Some(pos) => format!("-{currency}{pos} {name}"),
        None => format!("{currency}{s} {name}"),
    }
}

/// A part of the filer's figure the question asks ("How much revenue did MGM China generate in
/// 2018?"), read from the filing's members' tables ([`members::one`]): a value of a line item
/// asked of one year, of a part the question names.
fn member_figure(lib: &Context, q: &Question, pages: &[PageRef], filer: &[String]) -> Option<Calculation> {
    let cat = lib.metrics();
    if q.operation != crate::question::Operation::Value || q.years.len() != 1 || q.asks_percent() {
        return None;
    }
    let item = q.measure.as_deref().filter(|m| cat.items.get(*m).is_some_and(|i| i.unit.is_none_or(|u| u == Unit::Amount)))?;
    let names = checks::members_asked(&q.text, filer, q.measure_name.as_deref());
    if names.is_empty() {
        return None;
    }
    members::one(lib, q, pages, item, &names, |v, units_known| amount_text(v, None, None, q.form.decimals, units_known, "$"))
}

/// Decimal places for a ratio asked without any: two, or as many as show two significant
/// digits of a small one (at most six), so that -0.002 is not shown as "0.00".
fn ratio_places(v: f64) -> u32 {
    if v == 0.0 || !v.is_finite() || v.abs() >= 0.1 {
        return 2;
    }
    ((-v.abs().log10()).ceil() as u32 + 1).clamp(2, 6)
}

fn problem_text(e: &EvalError, cat: &Catalogue) -> String {
    match e {
        EvalError::Missing(item, y) => format!("not found: {}, FY{y}", cat.item_name(item)),
        EvalError::DivisionByZero(what) => format!("division by zero: {what} is 0"),
        EvalError::Overflow => "the numbers are too large to compute exactly".into(),
    }
}

/// What worked answers read, not the whole [`Library`]: the retrieval's sources (they run
/// searches of their own), the statement-table cache, the metric catalogue and the judgement
/// rules. Made once per calculation by [`Context::of`].
pub struct Context<'a> {
    pub sources: crate::retrieve::Sources<'a>,
    pub tables: &'a crate::library::TableCache,
    pub metrics: &'a Catalogue,
    pub judgements: &'a crate::question::Judgements,
    pub checks: &'a checks::Rules,
}

impl<'a> Context<'a> {
    pub fn of(lib: &'a Library) -> Context<'a> {
        Context { sources: crate::retrieve::Sources::of(lib), tables: &lib.tables, metrics: lib.metrics(), judgements: lib.judgements(), checks: lib.checks() }
    }

    fn search(&self, req: &SearchRequest) -> Result<crate::retrieve::SearchResponse> {
        crate::retrieve::search_in(&self.sources, req)
    }

    fn page_tables(&self, p: &PageRef) -> crate::library::PageTables {
        self.tables.get(self.sources.store, p)
    }

    fn document(&self, id: &str) -> Result<crate::store::Document> {
        self.sources.store.document(id)
    }

    fn page_profile(&self, key: i64, page: u32) -> Result<std::sync::Arc<crate::rank::PageProfile>> {
        self.sources.profiles.get(self.sources.store, self.sources.lexicon, key, page)
    }

    fn store(&self) -> &crate::store::Store {
        self.sources.store
    }

    fn metrics(&self) -> &'a Catalogue {
        self.metrics
    }

    fn judgements(&self) -> &'a crate::question::Judgements {
        self.judgements
    }
}

/// The worked answer to a question from `pages` (and the rest of their filings), or `None` when
/// it asks for no figure the catalogue knows.
pub fn work(lib: &Library, q: &Question, pages: &[PageRef]) -> Result<Option<Calculation>> {
    work_in(&Context::of(lib), q, pages)
}

/// [`work`] over the parts of a library it reads.
pub fn work_in(lib: &Context, q: &Question, pages: &[PageRef]) -> Result<Option<Calculation>> {
    if q.operation == crate::question::Operation::Rank {
        return Ok(rank::rank(lib, q, pages));
    }
    // a figure of each member asked ("net sales by segment"): the members' table
    if q.per_member().is_some() {
        if let Some(c) = members::list(lib, q, pages).or_else(|| rank::list_groups(lib, q, pages)) {
            return Ok(Some(c));
        }
    }
    // line items the question names that the catalogue does not list but the filings print
    let ext = printed_items(lib, q, pages);
    let with_printed;
    let lib = match &ext {
        Some(cat) => {
            with_printed = Context { sources: lib.sources.clone(), metrics: cat, ..*lib };
            &with_printed
        }
        None => lib,
    };
    let cat = lib.metrics();
    // a judgement or comparison that names no year ("Are Best Buy's gross margins historically
    // consistent?") is about the filing read: its fiscal year
    let with_year;
    let q = match (q.operation, q.years.is_empty(), pages.first().and_then(|p| lib.document(&p.doc_id).ok()).and_then(|d| d.year)) {
        (crate::question::Operation::Judgement | crate::question::Operation::Compare, true, Some(y)) => {
            with_year = Question { years: vec![y], ..q.clone() };
            &with_year
        }
        _ => q,
    };
    // a figure of a part of the filer ("How much revenue did MGM China generate in 2018?"):
    // the part's row in the filing's members' tables, not the company's line item
    let filer = filer_of(lib, pages);
    if let Some(c) = member_figure(lib, q, pages, &filer) {
        return Ok(Some(c));
    }
    let plan = match plan::plan(q, cat, lib.judgements()) {
        None => return Ok(None),
        Some(Err(problem)) => return Ok(Some(Calculation::problem(String::new(), problem))),
        Some(Ok(p)) => p,
    };
    // the line item named as the question names it ("net sales"), where the statement prints
    // that row beside the catalogue's first choice ("Total revenue", with membership fees)
    let as_named;
    let with_named;
    let lib = match asked_label_first(cat, q, &plan) {
        Some(named) => {
            as_named = named;
            with_named = Context { sources: lib.sources.clone(), metrics: &as_named, ..*lib };
            &with_named
        }
        None => lib,
    };
    let cat = lib.metrics();
    // a metric the filing prints ("Effective tax rate 24.6%") is used as printed when every
    // year is there; computed from its parts only when it is not
    // (the metric the plan works, not one named inside a ratio the question states: "total
    // liabilities to total assets" is no total liabilities; nor one whose formula the question
    // writes out: "FCF is defined as cash from operations - capex" is that formula, not the
    // filing's own free cash flow, net of incentives)
    if let Some(printed) = (!plan.defined && plan.unread.is_none())
        .then(|| cat.metric_in(&q.text).or_else(|| cat.metric_in(&q.expanded)))
        .flatten()
        .filter(|(id, _)| plan.id.as_deref() == Some(*id))
        .and_then(|(_, m)| m.printed.clone())
        .filter(|p| cat.items.contains_key(p))
    {
        let as_printed = Plan { expr: Expr::Item(printed, formula::Year::Rel(0)), as_printed: true, ..plan.clone() };
        let c = work_checked(lib, q, &as_printed, pages, &filer);
        if c.result.is_some() && !checks::any_failed(&c.checks) {
            return Ok(Some(Calculation { formula: format!("{} (as printed)", c.formula), ..printed_precision(&plan, c) }));
        }
    }
    Ok(Some(work_checked(lib, q, &plan, pages, &filer)))
}

/// A rate used as printed ("Gross margin 33 %", "11.13 %") is said to the places it is printed
/// to, not to the one place a computed rate is: "33%", not "33.0%" (unless the question asks
/// for places).
fn printed_precision(plan: &Plan, mut c: Calculation) -> Calculation {
    let ([o], Some(result), true, None) = (c.operands.as_slice(), c.result.clone(), plan.format.percent, plan.format.decimals) else { return c };
    let places = o.value.split_once('.').map_or(0, |(_, d)| d.len());
    if places > 2 || o.value.parse::<f64>().is_err() {
        return c;
    }
    let printed = format!("{}%", o.value);
    if printed != result {
        c.display = c.display.replacen(&result, &printed, 1);
        c.result = Some(printed);
    }
    c
}

/// The facts' period length (`crate::facts::Period::duration`) of an item asked over a period
/// of `months`: a balance's is a point in time; `None` for a length the facts do not name.
fn facts_duration(balance: bool, months: u8) -> Option<&'static str> {
    match (balance, months) {
        (true, _) => Some("instant"),
        (false, 12) => Some("fiscal year"),
        (false, 3) => Some("3 months"),
        (false, 6) => Some("6 months year to date"),
        (false, 9) => Some("9 months year to date"),
        _ => None,
    }
}

/// The names a document's filer goes by (squashed to letters and digits), once each.
fn filer_names_of(lib: &Context, d: &crate::store::Document) -> Vec<String> {
    let Some(company) = d.company.as_deref().filter(|c| !c.trim().is_empty()) else { return Vec::new() };
    let mut names = vec![crate::text::normalize_name(company)];
    names.extend(lib.sources.companies.extra_aliases(&[], Some(company)));
    let mut out: Vec<String> = names.iter().map(|n| squash(n)).filter(|n| n.len() >= 2).collect();
    out.dedup();
    out
}

/// The names of the filers of `pages` ([`filer_names_of`]), each filing read once.
fn filer_of(lib: &Context, pages: &[PageRef]) -> Vec<String> {
    let mut docs: Vec<&str> = Vec::new();
    let mut filer: Vec<String> = Vec::new();
    for p in pages {
        if docs.contains(&p.doc_id.as_str()) {
            continue;
        }
        docs.push(&p.doc_id);
        if let Ok(d) = lib.document(&p.doc_id) {
            filer.extend(filer_names_of(lib, &d));
        }
    }
    filer
}

/// The catalogue with the line items the question names that the filings of `pages` print
/// and the catalogue does not list ([`printed`]); `None` when there are none.
fn printed_items(lib: &Context, q: &Question, pages: &[PageRef]) -> Option<Catalogue> {
    let mut labels = Vec::new();
    let mut sectioned = Vec::new();
    let mut docs: Vec<&str> = Vec::new();
    let mut filers: Vec<String> = Vec::new();
    for p in pages {
        if docs.contains(&p.doc_id.as_str()) {
            continue;
        }
        docs.push(&p.doc_id);
        let Ok(d) = lib.document(&p.doc_id) else { continue };
        labels.extend(crate::facts::stored::labels(lib.store(), d.key).unwrap_or_default());
        sectioned.extend(crate::facts::stored::section_labels(lib.store(), d.key).unwrap_or_default());
        filers.extend(filer_names_of(lib, &d));
    }
    printed::extended(lib.metrics(), &q.text, &labels, &sectioned, &filers)
}

/// The measure's name as the question says it: the longest of its names (and, for a line
/// item, its labels) in the question.
fn asked_as(cat: &Catalogue, q: &Question, plan: &Plan) -> Option<String> {
    let id = plan.id.as_deref()?;
    let text = norm(&q.text);
    let names: Vec<&String> = match (cat.metrics.get(id), cat.items.get(id.trim_end_matches("_margin"))) {
        (Some(m), _) => m.names.iter().collect(),
        (None, Some(i)) => i.names.iter().chain(&i.labels).collect(),
        (None, None) => return None,
    };
    names.into_iter().map(|n| norm(n)).filter(|n| catalogue::has_words(&text, n)).max_by_key(|n| n.len())
}

/// The catalogue with the label the question names its line item by put first among the
/// item's labels ("How much did Costco's net sales grow?": "net sales" before "total revenue"),
/// when the name is two words or more, one of the item's labels, and no label before it starts
/// with it ("net income" stays after "net income attributable to"). `None` otherwise.
fn asked_label_first(cat: &Catalogue, q: &Question, plan: &Plan) -> Option<Catalogue> {
    let id = plan.id.as_deref().filter(|i| cat.items.contains_key(*i))?;
    let said = asked_as(cat, q, plan).filter(|s| s.split_whitespace().count() >= 2)?;
    let item = &cat.items[id];
    let at = item.labels.iter().position(|l| norm(l) == said)?;
    if at == 0 || item.labels[..at].iter().any(|l| norm(l).starts_with(&said)) {
        return None;
    }
    let mut named = cat.clone();
    let labels = &mut named.items.get_mut(id)?.labels;
    let label = labels.remove(at);
    labels.insert(0, label);
    Some(named)
}

/// Most readings a calculation tries when a check refuses one.
const MAX_TRIES: usize = 4;

/// [`work_plan`] with the verifier's checks ([`checks`]); when a check fails in a way another
/// reading may mend (not the type asked, not the question's own words), the calculation is
/// made again with each operand's row put aside in turn (then all of them), and the first
/// reading every check passes is kept, saying what was put aside. Otherwise the first reading
/// is kept with its failed checks.
fn work_checked(lib: &Context, q: &Question, plan: &Plan, pages: &[PageRef], filer: &[String]) -> Calculation {
    let said = asked_as(lib.metrics(), q, plan);
    // a question asking of a part of the filer ("MGM China")
    let part = checks::part_named(&q.text, filer, said.as_deref());
    let run = |excluded: &[(PageRef, String)]| {
        let mut c = work_plan(lib, plan, pages, excluded, q.as_of.as_deref());
        c.asked_as = said.clone();
        c.checks = checks::of_calculation(&c, &q.text, q.asks_percent(), plan.format.scale.is_some(), lib.checks);
        if let (Some(part), Some(_)) = (&part, &c.result) {
            let failed = checks::of_part(part, &c.metric);
            match c.checks.iter_mut().find(|k| k.name == "concept") {
                Some(k) if !k.failed() => *k = failed,
                Some(_) => {}
                None => c.checks.push(failed),
            }
        }
        c
    };
    let first = run(&[]);
    if !checks::any_failed(&first.checks) || !checks::another_reading_may_help(&first.checks) {
        return first;
    }
    let mut rows: Vec<(PageRef, String)> = Vec::new();
    for o in &first.operands {
        let r = (o.page.clone(), o.read.row.clone());
        if !rows.contains(&r) {
            rows.push(r);
        }
    }
    let mut tries: Vec<Vec<(PageRef, String)>> = rows.iter().map(|r| vec![r.clone()]).collect();
    if rows.len() > 1 {
        tries.push(rows.clone());
    }
    let why = |c: &Calculation| c.checks.iter().filter(|k| k.failed()).map(|k| k.detail.clone()).collect::<Vec<_>>().join("; ");
    for ex in tries.into_iter().take(MAX_TRIES) {
        let c = run(&ex);
        if c.result.is_some() && !checks::any_failed(&c.checks) {
            let put_aside: Vec<String> = ex.iter().map(|(p, r)| format!("\"{r}\" on {p}")).collect();
            let mut c = c;
            c.tried.push(format!(
                "first read as {} ({}): {}; read instead without {}",
                first.result.clone().unwrap_or_default(),
                first.metric,
                why(&first),
                put_aside.join(", ")
            ));
            return c;
        }
    }
    first
}

/// `as_of`: the date the question names ("at June 30, 2023"), if any.
fn work_plan(lib: &Context, plan: &Plan, pages: &[PageRef], excluded: &[(PageRef, String)], as_of: Option<&str>) -> Calculation {
    let cat = lib.metrics();
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
        sign_unread: Vec::new(),
        statements: HashMap::new(),
        months: plan.months,
        anchors: HashMap::new(),
        excluded,
        filers: HashMap::new(),
        zeroed: Vec::new(),
    };
    let name = |i: &str| cat.item_name(i);
    let years: Vec<i32> = match plan.shape {
        Shape::One(y) => vec![y],
        Shape::Average(a, b) | Shape::Series(a, b) => (a..=b).collect(),
        Shape::Growth(a, b) | Shape::Difference(a, b) | Shape::Cagr(a, b) | Shape::Compare(a, b) => vec![a, b],
    };
    let mut values: Vec<Ratio> = Vec::new();
    let mut value: Option<f64> = None;
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
        Shape::Compare(a, b) => format!("[{}] against [{}]", per_year(b), per_year(a)),
        Shape::Series(a, b) => format!("[{}] for each year FY{a}–FY{b}", per_year(b)),
    };
    let units_known = f.found.iter().all(|o| o.unit != "units");
    let mut result = None;
    let mut verdict = None;
    if problem.is_none() {
        if let Some(v) = &plan.verdict {
            match verdict_of(plan, v, &years, &values, units_known) {
                Ok((word, text)) => {
                    verdict = Some(word);
                    result = Some(text);
                }
                Err(p) => problem = Some(p),
            }
        }
    }
    if problem.is_none() && plan.verdict.is_none() {
        let exact: std::result::Result<Option<Ratio>, String> = match plan.shape {
            Shape::One(_) => Ok(Some(values[0])),
            Shape::Average(..) => {
                let sum = values.iter().try_fold(Ratio::ZERO, |a, v| a.checked_add(*v));
                Ok(sum.and_then(|s| s.checked_div(Ratio::int(values.len() as i64))))
            }
            Shape::Growth(..) if values[0].is_zero() => Err("division by zero: the first year's value is 0".into()),
            // over a negative base (a loss) the change is read over its size: a loss that
            // widens is a fall ([`negative_base`] says so under the answer)
            Shape::Growth(..) => {
                let base = if values[0].to_f64() < 0.0 { Ratio::ZERO.checked_sub(values[0]) } else { Some(values[0]) };
                Ok(values[1].checked_sub(values[0]).and_then(|d| base.and_then(|b| d.checked_div(b))))
            }
            Shape::Difference(..) => Ok(values[1].checked_sub(values[0])),
            Shape::Cagr(..) | Shape::Compare(..) | Shape::Series(..) => Ok(None),
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
                    value = Some(v);
                    result = Some(match plan.shape {
                        // a change of a rate: both rates, and the change in points
                        Shape::Difference(a, b) if plan.unit == Unit::Percent => {
                            let one = |r: Ratio| format_result(&Plan { shape: Shape::One(b), ..plan.clone() }, r.to_f64(), Some(r), units_known);
                            format!(
                                "{} points (from {} in FY{a} to {} in FY{b})",
                                signed(
                                    &exact
                                        .and_then(|r| r.checked_mul(Ratio::int(100)))
                                        .map(|r| r.round_str(plan.format.decimals.unwrap_or(1)))
                                        .unwrap_or_else(|| format!("{:.1}", v * 100.0))
                                ),
                                one(values[0]),
                                one(values[1])
                            )
                        }
                        _ => format_result(plan, v, exact, units_known),
                    });
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
    // operands read from different filings (a 10-K's inventory, an earnings release's cost of
    // sales) may be of different periods: shown, never as supported
    let mut docs: Vec<&str> = f.found.iter().map(|o| o.page.doc_id.as_str()).collect();
    docs.sort_unstable();
    docs.dedup();
    let warning = (result.is_some() && docs.len() > 1)
        .then(|| Warning::new("mixed_filings", vec![docs.join(", ")]))
        .or_else(|| {
            // an expense read in parentheses, its sign unsettled, for a chosen operand
            let chosen = |(label, p): &(String, PageRef)| f.found.iter().any(|o| o.read.row == *label && o.page == *p);
            f.sign_unread
                .iter()
                .find(|w| chosen(w))
                .map(|(label, p)| Warning::new("sign_unread", vec![label.clone(), p.to_string()]))
                .filter(|_| result.is_some())
        })
        .or_else(|| (result.is_some() && !f.zeroed.is_empty()).then(|| Warning::new("zeroed_items", f.zeroed.iter().flat_map(|z| z.iter().cloned()).collect())))
        .or_else(|| {
            (result.is_some() && matches!(plan.shape, Shape::Growth(..) | Shape::Cagr(..)) && values.first().is_some_and(|v| v.to_f64() < 0.0))
                .then(|| Warning::new("negative_base", Vec::new()))
        })
        .or_else(|| {
            // a tax rate over a pretax loss (AMD's -2.2%) is a sign, not a rate
            let loss = f.found.iter().find(|o| o.name == "pretax income" && o.value.starts_with('-'));
            (result.is_some() && plan.id.as_deref() == Some("effective_tax_rate"))
                .then_some(loss)
                .flatten()
                .map(|o| Warning::new("loss_tax_rate", vec![o.period.clone(), o.value.clone()]))
        })
        .or_else(|| {
            // total liabilities worked as liabilities and equity less equity, on a balance sheet
            // that prints redeemable (temporary) equity between the two: counted as a liability
            let derived = result.is_some() && plan.id.as_deref() == Some("total_liabilities") && matches!(plan.expr, Expr::Bin(..));
            let temporary = |l: &str| {
                let l = l.to_lowercase();
                l.contains("redeemable") || l.contains("temporary equity") || l.contains("mezzanine")
            };
            f.found
                .iter()
                .filter(|_| derived)
                .find(|o| lib.page_tables(&o.page).iter().any(|t| t.rows.iter().any(|r| temporary(&r.label))))
                .map(|o| Warning::new("temporary_equity", vec![o.page.to_string()]))
        })
        .or_else(|| {
            // a fiscal year's figure asked, read from a quarterly report: its balance is at a date
            // inside the year (a part-year flow is the periods check's); no stand-in for the
            // year's end when its column is the date the question names ("total deposits at
            // June 30, 2023")
            let dated = |o: &Operand| as_of.is_some_and(|d| squash(&o.read.column).contains(&squash(d)));
            let quarterly = |o: &&Operand| !dated(o) && lib.document(&o.page.doc_id).is_ok_and(|d| d.form.as_deref() == Some("10-Q"));
            f.found
                .iter()
                .filter(|_| result.is_some() && plan.months == 12)
                .find(quarterly)
                .map(|o| Warning::new("interim_balance", vec![o.name.clone(), o.read.column.trim().to_string(), o.page.doc_id.clone()]))
        });
    let shape = match plan.shape {
        Shape::One(_) => "one",
        Shape::Average(..) => "average",
        Shape::Growth(..) => "growth",
        Shape::Difference(..) => "difference",
        Shape::Cagr(..) => "cagr",
        Shape::Compare(..) => "compare",
        Shape::Series(..) => "series",
    };
    Calculation {
        metric: plan.metric.clone(),
        formula,
        operands: f.found,
        result,
        display,
        problem,
        verdict,
        caveat: None,
        warning,
        measure: plan.id.clone(),
        unit: plan.unit.name().to_string(),
        shape: shape.to_string(),
        months: plan.months,
        value,
        values: values.iter().map(|v| v.to_f64()).collect(),
        asked_as: None,
        checks: Vec::new(),
        tried: Vec::new(),
        defined: plan.defined,
        unread_definition: plan.unread.clone(),
        as_printed: plan.as_printed,
    }
}

/// "+3.0" / "-2.2" / "0.0".
fn signed(s: &str) -> String {
    if s.starts_with('-') || s.trim_start_matches(['0', '.']).is_empty() {
        s.to_string()
    } else {
        format!("+{s}")
    }
}

/// The verdict of a compare or judgement plan: the word ("Yes", "No", "Improved", ...) and the
/// sentence with every value and, for a judgement, the rule and its threshold.
fn verdict_of(plan: &Plan, v: &plan::Verdict, years: &[i32], values: &[Ratio], units_known: bool) -> std::result::Result<(String, String), String> {
    use crate::question::{Direction, ValueType};
    let show = |r: Ratio| format_result(&Plan { shape: Shape::One(0), ..plan.clone() }, r.to_f64(), Some(r), units_known);
    let period = |y: i32| match plan.months {
        12 => format!("FY{y}"),
        m => format!("the {m} months of FY{y}"),
    };
    let listed: Vec<String> = years.iter().zip(values).map(|(y, r)| format!("{} in {}", show(*r), period(*y))).collect();
    let change = |a: Ratio, b: Ratio| -> String {
        let d = b.to_f64() - a.to_f64();
        match plan.unit {
            Unit::Percent => format!("{} points", signed(&format!("{:.1}", d * 100.0))),
            _ if a.to_f64() != 0.0 => format!("{}%", signed(&format!("{:.1}", d / a.to_f64().abs() * 100.0))),
            _ => format!("{} change", signed(&format!("{d:.2}"))),
        }
    };
    match v {
        plan::Verdict::Direction { direction, asks, words } => {
            let (a, b) = (values[0], values[1]);
            let d = b.to_f64() - a.to_f64();
            let word = match (asks, direction) {
                (ValueType::Choice, _) if d > 0.0 => words.0,
                (ValueType::Choice, _) if d < 0.0 => words.1,
                (ValueType::Choice, _) => "Unchanged",
                (_, Direction::Up) => {
                    if d > 0.0 {
                        "Yes"
                    } else {
                        "No"
                    }
                }
                (_, Direction::Down) => {
                    if d < 0.0 {
                        "Yes"
                    } else {
                        "No"
                    }
                }
                (_, Direction::Either) => {
                    if d != 0.0 {
                        "Yes"
                    } else {
                        "No"
                    }
                }
            };
            Ok((word.to_string(), format!("{word}: {} {} ({})", plan.metric, listed.join(", "), change(a, b))))
        }
        plan::Verdict::Rule(r) => {
            let t = r.threshold;
            let thr = match plan.unit {
                Unit::Percent => format!("{}%", t * 100.0),
                _ => format!("{t}"),
            };
            let (ok, measured) = if r.test.starts_with("change") {
                let moves: Vec<f64> = values.windows(2).map(|w| (w[1].to_f64() - w[0].to_f64()).abs()).collect();
                let most = moves.iter().cloned().fold(0.0, f64::max);
                let m = match plan.unit {
                    Unit::Percent => format!("largest yearly change {:.1} points (threshold {:.1} points)", most * 100.0, t * 100.0),
                    _ => format!("largest yearly change {most:.2} (threshold {t})"),
                };
                (most <= t + 1e-12, m)
            } else {
                let x = values[values.len() - 1].to_f64();
                let ok = match r.test.as_str() {
                    ">=" => x >= t,
                    ">" => x > t,
                    "<=" => x <= t,
                    "<" => x < t,
                    other => return Err(format!("judgement rule test `{other}` is not one of >=, >, <=, <, change<=")),
                };
                (ok, format!("{} {} the {thr} threshold", if ok { "meets" } else { "does not meet" }, r.test))
            };
            let word = if ok { "Yes" } else { "No" };
            Ok((word.to_string(), format!("{word}: {} {}; {measured} (rule: {})", plan.metric, listed.join(", "), r.rule)))
        }
    }
}

impl Calculation {
    /// A calculation that could not start (an unreadable definition, no year named).
    pub fn problem(metric: String, problem: String) -> Calculation {
        Calculation { metric, display: problem.clone(), problem: Some(problem), ..Default::default() }
    }
}

#[cfg(test)]
mod tests {

    /// A count is said in the scale an amount is, with no currency: "52.81 million", not
    /// "$52.81 million" (Netflix's paid memberships, printed in thousands).
    #[test]
    fn a_count_is_said_without_a_currency() {
        let count = Ratio::int(52_810_000);
        assert_eq!(amount_text(count.to_f64(), Some(count), None, None, true, ""), "52.81 million");
        assert_eq!(amount_text(count.to_f64(), Some(count), None, None, true, "$"), "$52.81 million");
    }

    /// "How much did Costco's net sales grow in fiscal 2021?" read the total revenue (with
    /// membership fees, green and wrong: 29,168 for 28,832): the label the question names is
    /// read first; "net income" stays after "net income attributable to", and a one-word name
    /// ("revenue") changes nothing.
    #[test]
    fn the_label_a_question_names_is_read_first() {
        let cat = Catalogue::builtin();
        let judged = crate::question::Judgements::builtin();
        let first = |text: &str| {
            let q = Question::parse(text);
            let p = plan::plan(&q, &cat, &judged).expect("a plan").expect("a plan");
            asked_label_first(&cat, &q, &p).map(|c| c.items[p.id.as_deref().unwrap()].labels[0].clone())
        };
        assert_eq!(first("How much did Costco's net sales grow in fiscal 2021?").as_deref(), Some("net sales"));
        assert_eq!(first("What were Costco's net sales in fiscal 2021?").as_deref(), Some("net sales"));
        assert_eq!(first("What was Verizon's net income in 2022?"), None);
        assert_eq!(first("What was Costco's revenue in fiscal 2021?"), None);
    }

    #[test]
    fn a_note_reference_is_no_part_of_a_label() {
        let labels = vec!["long-term debt".to_string()];
        assert_eq!(labels_score("Long-term debt (Note 12)", &labels), labels_score("Long-term debt", &labels));
        assert_eq!(without_note_reference("inventories (notes 4 and 5)"), "inventories");
        assert_eq!(without_note_reference("goodwill (see note 7)"), "goodwill");
        // a qualifier in parentheses is kept
        assert_eq!(without_note_reference("long-term debt (excluding capital leases)"), "long-term debt (excluding capital leases)");
    }

    #[test]
    fn a_whole_total_is_never_the_company_share_row() {
        let cat = Catalogue::builtin();
        let filer = vec![squash("Corning Incorporated"), squash("Corning")];
        let (whole, share) = (&cat.items["total_equity_all"], &cat.items["total_equity"]);
        // the company's share: first for shareholders' equity, never for the whole total
        assert!(label_score("Total Corning Incorporated shareholders’ equity", share, &filer).is_some());
        assert_eq!(label_score("Total Corning Incorporated shareholders’ equity", whole, &filer), None);
        assert_eq!(label_score("TOTAL EQUITY ATTRIBUTABLE TO SHAREOWNERS OF THE COCA-COLA COMPANY", whole, &filer), None);
        assert!(label_score("Total equity", whole, &filer).is_some());
    }

    #[test]
    fn a_small_ratio_keeps_two_significant_digits() {
        assert_eq!([0.52, 0.1, 0.07, -0.00198, 0.0, 0.000_01].map(ratio_places), [2, 2, 3, 4, 2, 6]);
    }

    #[test]
    fn a_line_item_qualified_at_length_is_not_a_sentence_read_with_the_table() {
        // Coca-Cola's income statement: its discontinued operations' row does not make the
        // statement a table about discontinued operations
        assert!(!is_prose("Income from discontinued operations (net of income taxes of $47, $0 and $0, respectively)"));
        assert!(is_prose(
            "percent, 20 percent, 28 percent, 23 percent, and 17 percent, respectively, of these companies' outstanding shares. As of December 31, 2017, our investment in our equity method investees"
        ));
        assert!(!is_prose("Net income attributable to common shareowners"));
        let eps = catalogue::Catalogue::builtin();
        let diluted = &eps.items["diluted_eps"];
        assert_eq!(per_share_row("Diluted", Some("NET INCOME PER COMMON SHARE ATTRIBUTABLE TO COSTCO:"), diluted), Some(900));
        assert_eq!(per_share_row("Basic", Some("NET INCOME PER COMMON SHARE ATTRIBUTABLE TO COSTCO:"), diluted), None);
        assert_eq!(per_share_row("Diluted", Some("Weighted-average shares outstanding"), diluted), None);
        assert_eq!(per_share_row("Diluted", Some("Dividends declared per share"), diluted), None);
        assert!(is_bullet("• Other liabilities increased and deferred income taxes decreased primarily due to the Tax Reform Act"));
    }

    #[test]
    fn a_row_naming_only_a_loss_is_a_loss() {
        assert!(names_only_a_loss("Net loss") && names_only_a_loss("Net loss attributable to common stockholders"));
        assert!(
            !names_only_a_loss("Net income (loss)")
                && !names_only_a_loss("Net (loss) income")
                && !names_only_a_loss("Net loss per share, basic and diluted and earnings")
        );
    }
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

    /// The company's share named by the filer ("Net income attributable to MGM Resorts
    /// International") beats the total with the noncontrolling interests ("Net income"), which a
    /// cash flow statement prints alone (MGM's FY2018 net income was read as $584 million, not
    /// $467 million).
    #[test]
    fn the_filer_named_as_the_party_is_the_company_share() {
        let def = Catalogue::builtin().items["net_income"].clone();
        let filer = vec![squash("MGM Resorts International"), squash("MGM Resorts")];
        assert!(company_share("Net income attributable to MGM Resorts International", &def.labels, &filer).is_some());
        assert!(company_share("Net income", &def.labels, &filer).is_none());
        assert!(label_score("Net income attributable to MGM Resorts International", &def, &filer) > label_score("Net income", &def, &filer));
        assert_eq!(label_score("Net income attributable to noncontrolling interests", &def, &filer), None);
    }

    #[test]
    fn members_printed_as_column_groups_are_ranked_by_the_row_naming_the_measure() {
        let lib = library_with(table::tests::SEGMENTS);
        let read = [PageRef::new("ACME_2019_10K", 1)];
        let ask = |q: &str| work(&lib, &lib.read_question(q), &read).unwrap().unwrap();
        let c = ask("Which of ACME's business segments had the lowest net revenue in 2021 Q1?");
        assert_eq!(c.result.as_deref(), Some("Corporate (-473 million)"), "{c:#?}");
        assert_eq!(c.verdict.as_deref(), Some("Corporate"));
        // the total's column is not a member; it makes the ranking sure
        assert!(c.warning.is_none(), "{:?}", c.warning);
        assert_eq!(c.operands.len(), 2);
        assert_eq!((c.operands[1].name.as_str(), c.operands[1].value.as_str()), ("Commercial Banking: Total net revenue", "2393"));
        let c = ask("Which of ACME's segments had the highest net income in Q1 2021?");
        assert_eq!(c.result.as_deref(), Some("Consumer & Community Banking (6,728 million)"), "{c:#?}");
        // by change: the same column of the year before, member by member
        let c = ask("Which of ACME's segments had the biggest growth in net revenue in Q1 2021?");
        assert_eq!(c.verdict.as_deref(), Some("Corporate & Investment Bank"), "{c:#?}");
        // a figure of each member asked: every column group's, the total's group left out
        let c = ask("What was ACME's net revenue by segment in the first quarter of 2021?");
        assert_eq!(c.shape, "list", "{c:#?}");
        let r = c.result.as_deref().unwrap_or_default();
        assert!(
            r.starts_with("Consumer & Community Banking ") && r.contains("Commercial Banking 2,393 million") && r.ends_with("Corporate -473 million"),
            "{r}"
        );
        assert!(c.operands.iter().all(|o| o.boxes.len() == 2) && c.operands.len() >= 4, "{:#?}", c.operands);
    }

    #[test]
    fn a_reading_a_check_refuses_is_put_aside_and_the_next_one_kept() {
        // page 1 prints current assets in a table that states no unit (it wins by its size);
        // page 2 is the balance sheet in millions
        let mut lib = Library::in_memory().unwrap();
        let mut p1: Vec<(&str, f32, f32)> = vec![("2019", 300.0, 700.0), ("2018", 400.0, 700.0)];
        let rows = [("Cash", "100", "90"), ("Receivables", "200", "180"), ("Inventories", "300", "280"), ("Other", "50", "40"), ("Prepaid", "20", "10")];
        let mut y = 690.0;
        for (l, a, b) in rows {
            p1.extend([(l, 50.0, y), (a, 300.0, y), (b, 400.0, y)]);
            y -= 10.0;
        }
        p1.extend([("Total current assets", 50.0, y), ("5,000", 300.0, y), ("4,000", 400.0, y)]);
        let p2 = [
            ("(in millions)", 50.0, 720.0),
            ("2019", 300.0, 700.0),
            ("2018", 400.0, 700.0),
            ("Total current assets", 50.0, 690.0),
            ("5,000", 300.0, 690.0),
            ("4,000", 400.0, 690.0),
            ("Total current liabilities", 50.0, 680.0),
            ("2,500", 300.0, 680.0),
            ("2,000", 400.0, 680.0),
        ];
        let (t1, b1) = table::tests::page(&p1);
        let (t2, b2) = table::tests::page(&p2);
        let pages = [
            NewPage { page: 1, text: &t1, heading: "", boxes: &b1, width: 612.0, height: 792.0, needs_ocr: false, label: None },
            NewPage { page: 2, text: &t2, heading: "", boxes: &b2, width: 612.0, height: 792.0, needs_ocr: false, label: None },
        ];
        let key = lib.store_mut().insert_pending("ACME_2019_10K", "/x.pdf", 2, "sha", &Default::default(), &pages).unwrap();
        lib.store_mut().publish(key, &[]).unwrap();
        let read = [PageRef::new("ACME_2019_10K", 1), PageRef::new("ACME_2019_10K", 2)];
        let c = work(&lib, &lib.read_question("What is ACME's FY2019 current ratio?"), &read).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("2.00"), "{c:#?}");
        assert!(!checks::any_failed(&c.checks), "{:?}", c.checks);
        assert_eq!(c.operands[0].page, read[1], "current assets from the statement in millions");
        assert_eq!(c.tried.len(), 1, "{:?}", c.tried);
        assert!(
            c.tried[0].contains("states no unit") && c.tried[0].contains("read instead without \"Total current assets\" on ACME_2019_10K#1"),
            "{}",
            c.tried[0]
        );
    }

    /// `ACME_2019_10K` of `pages` (each page's text and boxes, in order), published in `lib`.
    fn publish(lib: &mut Library, pages: &[(String, Vec<crate::boxes::CharBox>)], meta: &crate::meta::DocMeta) {
        let new: Vec<NewPage> = pages
            .iter()
            .enumerate()
            .map(|(i, (t, b))| NewPage { page: i as u32 + 1, text: t, heading: "", boxes: b, width: 612.0, height: 792.0, needs_ocr: false, label: None })
            .collect();
        let key = lib.store_mut().insert_pending("ACME_2019_10K", "/x.pdf", pages.len() as u64, "sha", meta, &new).unwrap();
        lib.store_mut().publish(key, &[]).unwrap();
    }

    /// One page laid out from a title and rows of (label, FY2019, FY2018) cells, in millions.
    fn statement(title: &str, rows: &[(&str, &str, &str)]) -> (String, Vec<crate::boxes::CharBox>) {
        let mut cells: Vec<(&str, f32, f32)> = vec![(title, 50.0, 740.0), ("(in millions)", 50.0, 725.0), ("2019", 300.0, 700.0), ("2018", 400.0, 700.0)];
        let mut y = 690.0;
        for (l, a, b) in rows {
            cells.extend([(*l, 50.0, y), (*a, 300.0, y), (*b, 400.0, y)]);
            y -= 10.0;
        }
        table::tests::page(&cells)
    }

    /// Corning's 10-K prints its equity-method investees' balance sheet ("Long-term debt 58")
    /// beside its own ("Long-term debt (Note 12) 6,989"): the investees' figure is never shown as
    /// the company's long-term debt.
    #[test]
    fn a_balance_the_balance_sheet_prints_otherwise_is_not_green() {
        let mut lib = Library::in_memory().unwrap();
        let pages = [
            statement(
                "CONSOLIDATED BALANCE SHEETS",
                &[
                    ("Total current assets", "5,000", "4,500"),
                    ("Total assets", "20,000", "19,000"),
                    ("Total current liabilities", "3,000", "2,800"),
                    ("Long-term debt (Note 12)", "6,989", "7,000"),
                    ("Total liabilities", "12,000", "11,500"),
                    ("Total equity", "8,000", "7,500"),
                    ("Total liabilities and equity", "20,000", "19,000"),
                ],
            ),
            statement("Balance sheet", &[("Current assets", "648", "534"), ("Long-term debt", "58", "60"), ("Other long-term liabilities", "66", "11")]),
        ];
        publish(&mut lib, &pages, &crate::meta::DocMeta { company: Some("Acme".into()), year: Some(2019), ..Default::default() });
        lib.build_facts(&mut |_| {}).unwrap();
        let q = lib.read_question("What was ACME's long-term debt at the end of FY2019 in USD millions?");
        // the investees' page alone: read, with the balance sheet's reading, which disagrees
        let c = work(&lib, &q, &[PageRef::new("ACME_2019_10K", 2)]).unwrap().unwrap();
        assert_eq!(c.operands[0].value, "58", "{c:#?}");
        assert!(checks::any_failed(&c.checks), "{:?}", c.checks);
        assert!(c.operands[0].read.readings.iter().any(|r| !r.agrees && r.value == "6989" && r.page.page == 1), "{:#?}", c.operands[0].read);
        // both pages: the balance sheet's row, its note reference no part of its label
        let c = work(&lib, &q, &[PageRef::new("ACME_2019_10K", 1), PageRef::new("ACME_2019_10K", 2)]).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("$6,989 million"), "{c:#?}");
        assert!(!checks::any_failed(&c.checks), "{:?}", c.checks);
    }

    #[test]
    fn balances_the_company_attributable_and_the_filers_own_statements_are_read() {
        let mut lib = Library::in_memory().unwrap();
        let pages = [
            statement(
                "CONSOLIDATED STATEMENTS OF CASH FLOWS",
                &[
                    ("Net income including noncontrolling interest", "5,363", "4,869"),
                    ("Depreciation and amortization", "1,488", "1,544"),
                    ("Inventories", "332", "387"),
                    ("Accounts payable", "(20)", "24"),
                    ("Net cash provided by operating activities", "6,439", "6,240"),
                    ("Cash paid for income taxes, net of refunds", "1,200", "1,100"),
                ],
            ),
            statement(
                "CONSOLIDATED STATEMENT OF INCOME",
                &[
                    ("Net sales", "32,765", "31,657"),
                    ("Cost of sales", "16,682", "16,055"),
                    ("Net income including noncontrolling interest", "5,363", "4,869"),
                    ("Net income attributable to noncontrolling interest", "14", "11"),
                    ("Net income attributable to Acme", "5,349", "4,858"),
                ],
            ),
            statement(
                "CONSOLIDATED BALANCE SHEET",
                &[
                    ("Cash and cash equivalents", "2,853", "3,053"),
                    ("Accounts receivable", "5,020", "4,911"),
                    ("Inventories", "4,366", "4,034"),
                    ("Property, plant and equipment, net of accumulated depreciation", "8,738", "8,866"),
                    ("Total assets", "36,500", "37,987"),
                    ("Total Acme Company shareholders' equity", "9,796", "10,407"),
                    ("Equity attributable to noncontrolling interests", "52", "59"),
                    ("Total equity", "9,848", "10,466"),
                ],
            ),
            // an investee's statements printed in the filing, with more rows than the filer's
            statement(
                "OTHERCO HOLDINGS, LLC CONSOLIDATED BALANCE SHEETS",
                &[
                    ("Cash and cash equivalents", "50", "40"),
                    ("Accounts receivable", "60", "55"),
                    ("Inventories", "9,000", "8,000"),
                    ("Prepaid", "5", "4"),
                    ("Other", "5", "4"),
                    ("Property", "700", "650"),
                    ("Total assets", "9,820", "8,753"),
                ],
            ),
            // a note's table about the leases: its "Property and equipment, net" is the leased
            // assets', under the exact label
            statement(
                "Supplemental balance sheet information related to leases was as follows",
                &[
                    ("Operating lease right-of-use assets", "680", "504"),
                    ("Operating lease liabilities", "633", "450"),
                    ("Property and equipment, at cost", "184", "294"),
                    ("Accumulated depreciation", "(27)", "(52)"),
                    ("Property and equipment, net", "157", "242"),
                    ("Long-term debt", "163", "271"),
                ],
            ),
        ];
        publish(&mut lib, &pages, &crate::meta::DocMeta { company: Some("Acme".into()), year: Some(2019), ..Default::default() });
        let read: Vec<PageRef> = (1..=5).map(|p| PageRef::new("ACME_2019_10K", p)).collect();
        // inventory is the balance sheet's, not the cash flow statement's change in it, nor the
        // investee's
        let c = work(
            &lib,
            &lib.read_question("What is ACME's FY2019 inventory turnover ratio? Inventory turnover ratio is defined as: (FY2019 COGS) / (average inventory between FY2018 and FY2019)."),
            &read,
        )
        .unwrap()
        .unwrap();
        let inv: Vec<(&str, u32)> = c.operands.iter().filter(|o| o.name == "inventory").map(|o| (o.value.as_str(), o.page.page)).collect();
        assert_eq!(inv, vec![("4034", 3), ("4366", 3)], "{c:#?}");
        assert_eq!(c.result.as_deref(), Some("3.97"));
        // the company's own net income, not the total with the noncontrolling share, nor that share
        let c = work(&lib, &lib.read_question("What is ACME's FY2019 net income attributable to shareholders (in USD millions)?"), &read).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("$5,349 million"), "{c:#?}");
        assert!(!checks::any_failed(&c.checks), "{:?}", c.checks);
        // total assets of the filer only
        let c = work(&lib, &lib.read_question("What is ACME's FY2019 total assets (in USD millions)?"), &read).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("$36,500 million"), "{c:#?}");
        // the company's shareholders' equity, printed with its name, not the total with the
        // noncontrolling interest
        let c = work(&lib, &lib.read_question("What was ACME's total stockholders' equity at the end of FY2019 in USD millions?"), &read).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("$9,796 million"), "{c:#?}");
        assert!(!checks::any_failed(&c.checks), "{:?}", c.checks);
        // income tax "paid" is the cash flow statement's payment, not the expense
        let c = work(&lib, &lib.read_question("How much cash did ACME pay for income taxes in FY2019, in USD millions?"), &read).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("$1,200 million"), "{c:#?}");
        // PP&E from the balance sheet's row (its label goes on "of accumulated depreciation"),
        // not the lease note's
        let c = work(&lib, &lib.read_question("What is the year end FY2019 net PP&E for ACME? Answer in USD millions."), &read).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("$8,738 million"), "{c:#?}");
        assert!(!checks::any_failed(&c.checks), "{:?}", c.checks);
    }

    #[test]
    fn a_dash_under_a_total_that_is_never_zero_is_another_columns() {
        // a statement of equity prints "Net income —" under a column where nothing moved; the
        // income statement prints the year's net income
        let mut lib = Library::in_memory().unwrap();
        let pages = [
            statement(
                "CONSOLIDATED STATEMENTS OF STOCKHOLDERS' EQUITY",
                &[
                    ("Balance, beginning", "9,000", "8,000"),
                    ("Net income", "—", "—"),
                    ("Dividends", "(200)", "(150)"),
                    ("Other", "10", "5"),
                    ("Balance, end", "9,300", "9,000"),
                ],
            ),
            statement("CONSOLIDATED STATEMENTS OF INCOME", &[("Revenues", "5,000", "4,500"), ("Net income", "490", "400")]),
        ];
        publish(&mut lib, &pages, &Default::default());
        let read: Vec<PageRef> = (1..=2).map(|p| PageRef::new("ACME_2019_10K", p)).collect();
        let c = work(&lib, &lib.read_question("What is ACME's FY2019 net profit margin in percent?"), &read).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("9.8%"), "{c:#?}");
    }

    #[test]
    fn an_income_tax_in_parentheses_is_an_expense_only_where_the_statement_adds_signed_amounts() {
        // Amazon's style: income before taxes + (tax) = net income: the tax is an expense of 769
        let mut lib = Library::in_memory().unwrap();
        let pages = [statement(
            "CONSOLIDATED STATEMENTS OF OPERATIONS",
            &[
                ("Total net sales", "177,866", "135,987"),
                ("Income before income taxes", "3,806", "3,892"),
                ("Provision for income taxes", "(769)", "(1,425)"),
                ("Net income", "3,033", "2,371"),
            ],
        )];
        publish(&mut lib, &pages, &Default::default());
        let read = [PageRef::new("ACME_2019_10K", 1)];
        let c = work(&lib, &lib.read_question("What was ACME's income tax expense in FY2019, in USD millions?"), &read).unwrap().unwrap();
        assert_eq!((c.result.as_deref(), c.warning.as_ref()), (Some("$769 million"), None), "{c:#?}");
        // a table without the rows to settle it: read as printed, and said
        let mut lib = Library::in_memory().unwrap();
        let pages = [statement("Income taxes", &[("Provision for income taxes", "(491)", "(111)"), ("Effective tax rate", "19.8", "21.0")])];
        publish(&mut lib, &pages, &Default::default());
        let c = work(&lib, &lib.read_question("What was ACME's income tax expense in FY2019, in USD millions?"), &read).unwrap().unwrap();
        assert_eq!(c.warning.as_ref().map(|w| (w.rule.as_str(), w.words.len())), Some(("sign_unread", 2)), "{c:#?}");
    }

    /// "What was Costco's gross margin percentage in fiscal 2021?" was worked from total revenue
    /// and merchandise costs (12.9%, green) where the filing prints its own "Gross margin
    /// percentage 11.13 %" (over net sales): the printed rate is the answer, said to its
    /// printed places.
    #[test]
    fn a_gross_margin_the_filing_prints_is_read_as_printed_to_its_places() {
        let mut lib = Library::in_memory().unwrap();
        let pages = [
            statement(
                "CONSOLIDATED STATEMENTS OF INCOME",
                &[
                    ("Net sales", "192,052", "163,220"),
                    ("Membership fees", "3,877", "3,541"),
                    ("Total revenue", "195,929", "166,761"),
                    ("Merchandise costs", "170,684", "144,939"),
                ],
            ),
            statement(
                "Gross Margin",
                &[("Net sales", "192,052", "163,220"), ("Gross margin", "21,368", "18,281"), ("Gross margin percentage", "11.13", "11.20")],
            ),
        ];
        publish(&mut lib, &pages, &Default::default());
        let read = [PageRef::new("ACME_2019_10K", 1), PageRef::new("ACME_2019_10K", 2)];
        let c = work(&lib, &lib.read_question("What was ACME's gross margin percentage in FY2019?"), &read).unwrap().unwrap();
        assert_eq!((c.result.as_deref(), c.operands.len()), (Some("11.13%"), 1), "{c:#?}");
        assert!(c.formula.ends_with("(as printed)"), "{c:#?}");
        // places asked are given
        let c = work(&lib, &lib.read_question("What was ACME's gross margin in FY2019, in percent to one decimal place?"), &read).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("11.1%"), "{c:#?}");
        // without the printed rate, it is worked from the statement
        let c = work(&lib, &lib.read_question("What was ACME's gross margin in FY2019?"), &read[..1]).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("12.9%"), "{c:#?}");
    }

    /// "What was Amazon's free cash flow in 2017?" was worked as operating cash flow less gross
    /// purchases of property (6,479, green) where the filing prints its own "Free cash flow
    /// 8,376" (net of incentives): the printed figure is the answer; a question that writes out
    /// the formula gets that formula.
    #[test]
    fn a_free_cash_flow_the_filing_prints_is_read_unless_the_question_defines_it() {
        let mut lib = Library::in_memory().unwrap();
        let pages = [
            statement(
                "CONSOLIDATED STATEMENTS OF CASH FLOWS",
                &[("Net cash provided by (used in) operating activities", "18,434", "17,272"), ("Purchases of property and equipment", "(11,955)", "(7,804)")],
            ),
            statement(
                "Free Cash Flow",
                &[
                    ("Net cash provided by (used in) operating activities", "18,434", "17,272"),
                    ("Purchases of property and equipment, net of proceeds from incentives", "(10,058)", "(6,737)"),
                    ("Free cash flow", "8,376", "10,535"),
                ],
            ),
        ];
        publish(&mut lib, &pages, &Default::default());
        let read = [PageRef::new("ACME_2019_10K", 1), PageRef::new("ACME_2019_10K", 2)];
        let c = work(&lib, &lib.read_question("What was ACME's free cash flow in FY2019?"), &read).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("$8,376 million"), "{c:#?}");
        assert!(c.formula.ends_with("(as printed)"), "{c:#?}");
        let defined = "What is ACME's FY2019 free cash flow? Free cash flow is defined as cash from operations minus capital expenditures.";
        let c = work(&lib, &lib.read_question(defined), &read).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("$6,479 million"), "{c:#?}");
    }

    #[test]
    fn a_quarter_is_not_read_from_an_annual_reports_unheaded_year_column() {
        let mut lib = Library::in_memory().unwrap();
        let pages = [statement("CONSOLIDATED STATEMENT OF INCOME", &[("Net sales", "32,765", "31,657"), ("Operating income", "6,539", "7,369")])];
        publish(&mut lib, &pages, &crate::meta::DocMeta { form: Some("10-K".into()), year: Some(2019), ..Default::default() });
        let read = [PageRef::new("ACME_2019_10K", 1)];
        let c = work(&lib, &lib.read_question("What was ACME's operating income in the fourth quarter of FY2019, in USD millions?"), &read).unwrap().unwrap();
        assert_eq!(c.result, None, "{c:#?}");
        // the year asked of it is read
        let c = work(&lib, &lib.read_question("What was ACME's operating income in FY2019, in USD millions?"), &read).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("$6,539 million"), "{c:#?}");
    }

    #[test]
    fn a_releases_unheaded_year_column_is_not_a_quarters_flow() {
        // a fourth-quarter release prints the quarter and the year side by side: a flow's column
        // headed by the year alone is not the quarter (MGM's "Diluted earnings per share 3.49"
        // under "2022" was green as the fourth quarter's); a balance at the year's end is
        let mut lib = Library::in_memory().unwrap();
        let pages = [statement("RECONCILIATION", &[("Net income", "1,473", "1,254"), ("Total assets", "45,692", "44,000")])];
        publish(&mut lib, &pages, &crate::meta::DocMeta { form: Some("earnings".into()), year: Some(2019), ..Default::default() });
        let read = [PageRef::new("ACME_2019_10K", 1)];
        let c = work(&lib, &lib.read_question("What was ACME's net income in Q4 2019, in USD millions?"), &read).unwrap().unwrap();
        assert_eq!(c.result, None, "{c:#?}");
        let c = work(&lib, &lib.read_question("What were ACME's total assets at the end of Q4 2019, in USD millions?"), &read).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("$45,692 million"), "{c:#?}");
    }

    #[test]
    fn a_statement_titled_for_another_entity_is_told_from_the_filers() {
        let filer = vec!["mgmresorts".to_string(), "mgm".to_string()];
        assert_eq!(other_entity("CITYCENTER HOLDINGS, LLC CONSOLIDATED STATEMENTS OF CASH FLOWS", &filer).as_deref(), Some("CITYCENTER HOLDINGS, LLC"));
        assert_eq!(other_entity("MGM RESORTS INTERNATIONAL AND SUBSIDIARIES CONSOLIDATED STATEMENTS OF CASH FLOWS", &filer), None);
        assert_eq!(other_entity("CONSOLIDATED STATEMENTS OF CASH FLOWS", &filer), None, "no entity named");
        assert_eq!(other_entity("Year ended December 31 Consolidated balance sheet", &filer), None, "words, not a company's name");
        assert_eq!(other_entity("THE COCA-COLA COMPANY AND SUBSIDIARIES CONSOLIDATED BALANCE SHEETS", &["cocacola".to_string()]), None);
        assert_eq!(other_entity("CITYCENTER HOLDINGS, LLC CONSOLIDATED BALANCE SHEETS", &[]), None, "the filer is not known");
        let ko = "Overview of Financial Position The following table illustrates the change in the individual line items of the Company's consolidated balance sheet (in millions): Increase";
        assert_eq!(other_entity(ko, &["cocacola".to_string()]), None, "the Company is the filer");
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
        let c = work(&lib, &lib.read_question("What is ACME's FY2019 total revenue in USD millions?"), std::slice::from_ref(&p)).unwrap().unwrap();
        assert_eq!(c.result, None);
        let why = c.problem.unwrap();
        assert!(why.starts_with("not found: revenue, FY2019 (\"Total revenues\" on ACME_2019_10K#1 has 2 figures for FY2019"), "{why}");
        assert!(why.contains("(1,000 and 1,050, under \"2019\" and \"2019\") and the page does not say which is meant)"), "{why}");
        assert_eq!(why.matches("has 2 figures").count(), 1, "said once: {why}");
        // the same figure in both columns is no ambiguity
        let c = work(&lib, &lib.read_question("What is ACME's FY2019 COGS in USD millions?"), std::slice::from_ref(&p)).unwrap().unwrap();
        assert_eq!(c.result.as_deref(), Some("$600 million"));
        // a zero divisor is said, not computed
        let c = work(
            &lib,
            &lib.read_question("What is ACME's FY2019 inventory turnover ratio? Inventory turnover ratio is defined as: (FY2019 COGS) / (FY2019 inventory)."),
            std::slice::from_ref(&p),
        )
        .unwrap()
        .unwrap();
        assert_eq!(c.result, None);
        assert!(c.problem.as_deref().unwrap().starts_with("division by zero"), "{c:?}");
        assert!(!c.display.contains(" = "), "no number is shown without its operands: {}", c.display);
    }
}
