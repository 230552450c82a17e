//! Line items the catalogue does not list, taken from the filing itself: the row labels its
//! facts print (`crate::facts`, read at ingest from every table) that the question names
//! ("total liabilities", "advertising expense", "long-term debt"). Each becomes a line item of
//! the catalogue for this one calculation, read like any other: by its printed labels, from the
//! pages retrieval gave, the filing's statements, and the pages the facts print it on.

use crate::facts::{BALANCE_SHEET, CASH_FLOW, INCOME_STATEMENT};
use crate::figures::catalogue::{has_words, norm, Catalogue, ItemDef, Unit};

/// Item ids of printed line items start with this; the rest is the label's core.
pub const PRINTED: &str = "printed:";

/// Single words too vague to be a line item asked for ("Total", "Other", "Net").
const VAGUE: &[&str] = &[
    "total",
    "other",
    "net",
    "balance",
    "balances",
    "adjustments",
    "amount",
    "amounts",
    "cash",
    "income",
    "expense",
    "expenses",
    "assets",
    "liabilities",
    "equity",
    // where a flow comes from, not what it is ("cash generated from operations")
    "operations",
    "activities",
    // a period, not a line item ("Fiscal" heading a column of years)
    "fiscal",
    "quarter",
    "annual",
];

/// The words a printed label names its line item by: lowercase, cut at a comma, parenthesis,
/// colon or dash that qualifies it ("Intangible assets — net" -> "intangible assets"), without a
/// leading "less:" or "add:"; `None` for a line of prose the table reader took in (it starts in
/// lowercase or runs long), a label with figures in it, or one too vague to be asked for.
pub fn core(label: &str) -> Option<String> {
    let t = label.trim();
    if !t.starts_with(|c: char| c.is_uppercase()) || t.split_whitespace().count() > 8 {
        return None;
    }
    // a parenthesis qualifies what it follows and the name goes on after it ("Comprehensive
    // income (loss) attributable to noncontrolling interests"); an unclosed one ends the name
    let mut l = String::new();
    let mut depth = 0;
    let mut rest = norm(t);
    if let Some(open) = rest.find('(').filter(|&o| !rest[o..].contains(')')) {
        rest.truncate(open);
    }
    for ch in rest.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => l.push(ch),
            _ => {}
        }
    }
    let mut l = norm(&l);
    for lead in ["less: ", "less ", "add: ", "plus "] {
        if let Some(r) = l.strip_prefix(lead) {
            l = r.to_string();
        }
    }
    // a comma qualifies the item only when a qualifier follows ("Inventories, net", "Long-term
    // debt, excluding current portion"); "Selling, general and administrative" is one name
    let comma = l.match_indices(',').map(|(i, _)| i).find(|&i| {
        let rest = l[i + 1..].trim_start();
        QUALIFIERS.iter().any(|q| rest.starts_with(q)) || rest.split_whitespace().count() <= 1
    });
    // a closing phrase of its period qualifies it too ("Paid memberships at end of period")
    let period = PERIOD_TAILS.iter().filter_map(|t| l.find(t)).filter(|&i| i > 0);
    let cut = [":", " —", " –", " - ", "—", "–"].iter().filter_map(|c| l.find(c)).chain(comma).chain(period).min().unwrap_or(l.len());
    let c = l[..cut].trim().trim_matches(|ch: char| !ch.is_alphanumeric()).to_string();
    let words = c.split_whitespace().count();
    if c.chars().any(|ch| ch.is_ascii_digit()) || words == 0 || (words == 1 && (c.len() < 6 || VAGUE.contains(&c.as_str()))) {
        return None;
    }
    if words == 2 && c.starts_with("total ") && VAGUE.contains(&&c[6..]) && !matches!(&c[6..], "assets" | "liabilities" | "equity" | "expenses") {
        return None;
    }
    Some(c)
}

/// Phrases that close a label with its period rather than name its item.
const PERIOD_TAILS: &[&str] =
    &[" at end of ", " at the end of ", " at period end", " at year end", " at year-end", " as of ", " end of period", " end of year"];

/// Things a filing counts in its tables ("Paid memberships", "Stores at end of year"): a line
/// item whose name ends in one is a number of them, not an amount of money.
const COUNTED: &[&str] = &[
    "memberships",
    "members",
    "subscribers",
    "subscriptions",
    "customers",
    "accounts",
    "employees",
    "associates",
    "stores",
    "locations",
    "warehouses",
    "restaurants",
    "clubs",
    "units",
    "vehicles",
    "aircraft",
    "airplanes",
    "deliveries",
    "users",
    "households",
    "connections",
    "rooms",
    "properties",
    "hotels",
    "homes",
    "patients",
    "visits",
    "transactions",
];

/// Whether a line item's core names things counted ([`COUNTED`]), not money.
fn counted(core: &str) -> bool {
    core.split_whitespace().last().is_some_and(|w| COUNTED.contains(&w))
}

/// Words after a comma that qualify a label's line item rather than continue its name.
const QUALIFIERS: &[&str] =
    &["net", "less", "excluding", "including", "after", "before", "at ", "of ", "end ", "current", "non-current", "noncurrent", "beginning", "gross"];

/// A name as words compared: lowercase letters and digits (a hyphen or ampersand kept inside a
/// word), each word without a plural "s" ("Selling, general and administrative expenses" and
/// "selling general and administrative expense" are one key).
pub fn key(s: &str) -> String {
    norm(s)
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '&' || c == '\''))
        .map(|w| w.trim_matches(['-', '\'']))
        .filter(|w| !w.is_empty())
        .map(|w| if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") { &w[..w.len() - 1] } else { w })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether the catalogue already knows the line item or metric a core names (the same name or
/// label, with or without a leading "total").
fn listed(cat: &Catalogue, core: &str) -> bool {
    let bare = |s: &str| {
        let k = key(s);
        k.strip_prefix("total ").map(str::to_string).unwrap_or(k)
    };
    let c = bare(core);
    cat.items.values().flat_map(|i| i.names.iter().chain(&i.labels)).chain(cat.metrics.values().flat_map(|m| m.names.iter())).any(|n| bare(n) == c)
}

/// The catalogue with the line items the question names that the filings' facts print and the
/// catalogue does not list; `None` when there are none. `labels` are (label, statement, period
/// length) as [`crate::facts::stored::labels`] gives them, for the filings in scope.
/// `filers` are the filers' names squashed ([`super::squash`]): a row named for the company
/// ("Best Buy", a segment's or a brand's row) is a member of a table, not a line item.
/// `sectioned` are (label, section, statement, period length) as
/// [`crate::facts::stored::section_labels`] gives them: a row named by its label and the heading
/// it is printed under ("Subscription" under "Revenue": "subscription revenue") is a line item
/// too, read only from rows under that heading.
pub fn extended(
    cat: &Catalogue,
    question: &str,
    labels: &[(String, String, String)],
    sectioned: &[(String, String, String, String)],
    filers: &[String],
) -> Option<Catalogue> {
    // a plural possessive ("General Mills' restructuring charges") is a possessive, as
    // "Coca-Cola's" is: its apostrophe kept
    let q = key(&question.replace("s' ", "s's ").replace("s’ ", "s's "));
    // the catalogue's own names the question says: a printed item inside one of them is that
    // one's word ("Interest" in "interest expense"), not a line item of its own
    let said: Vec<String> = cat
        .items
        .values()
        .flat_map(|i| i.names.iter().chain(&i.labels))
        .chain(cat.metrics.values().flat_map(|m| m.names.iter()))
        .map(|n| key(n))
        .filter(|n| !n.is_empty() && has_words(&q, n))
        .collect();
    let mut all_labels: Vec<&str> = labels.iter().map(|l| l.0.as_str()).collect();
    all_labels.dedup();
    // core -> (labels printed, on a balance sheet, on an income statement, printed as deducted)
    let mut found: Vec<Found> = Vec::new();
    for (label, statement, duration) in labels {
        let Some(c) = core(label) else { continue };
        // "Research and development expense, net" is the research and development the question
        // asks for, printed with the word its statement adds
        let c = match expense_stem(&c) {
            Some(stem) if !stands_alone(&q, &key(&c)) && stands_alone(&q, &key(stem)) => stem.to_string(),
            _ => c,
        };
        let sq = super::squash(&c);
        let k = key(&c);
        if !stands_alone(&q, &k)
            || said.iter().any(|n| n.len() > k.len() && has_words(n, &k))
            || listed(cat, &c)
            || filers.iter().any(|f| sq.starts_with(f.as_str()) || f.starts_with(sq.as_str()))
        {
            continue;
        }
        // (a label printed with an expense's word is an expense, whatever the name it is asked by)
        let deducted = norm(label).starts_with("less") || core(label).is_some_and(|full| full != c && outflow(&full));
        add_found(&mut found, c, label, statement, duration, deducted);
    }
    // a label under its heading: "Subscription" under "Revenue" is the "subscription revenue"
    // the question asks for
    let mut under: Vec<(String, Vec<String>)> = Vec::new();
    for (label, section, statement, duration) in sectioned {
        let (Some(lc), Some(sc)) = (core(label).or_else(|| short_core(label)), core(section).or_else(|| short_core(section))) else { continue };
        let c = format!("{lc} {sc}");
        let k = key(&c);
        if lc == sc || !stands_alone(&q, &k) || listed(cat, &c) || filers.iter().any(|f| super::squash(&lc).starts_with(f.as_str())) {
            continue;
        }
        add_found(&mut found, c.clone(), label, statement, duration, norm(label).starts_with("less"));
        match under.iter_mut().find(|u| u.0 == c) {
            Some(u) if !u.1.contains(&norm(section)) => u.1.push(norm(section)),
            Some(_) => {}
            None => under.push((c, vec![norm(section)])),
        }
    }
    // "total deposits" asked, where the balance sheet prints the total as "Deposits" and a
    // note as "Total deposits": one item, read under either label (a balance only: a flow's
    // bare label, "Operating expenses", is as often a part's row, a segment's)
    let bare: Vec<Found> = found.clone();
    for f in found.iter_mut() {
        let Some(rest) = f.0.strip_prefix("total ") else { continue };
        if let Some(b) = bare.iter().find(|b| b.0 == rest && b.2 && !b.3) {
            for l in &b.1 {
                if !f.1.contains(l) {
                    f.1.push(l.clone());
                }
            }
            (f.2, f.3, f.4) = (f.2 | b.2, f.3 | b.3, f.4 | b.4);
        }
    }
    // the longest name the question says wins: "long-term debt" is not also "debt"
    let cores: Vec<String> = found.iter().map(|f| f.0.clone()).collect();
    found.retain(|f| !cores.iter().any(|o| o.len() > f.0.len() && has_words(&key(o), &key(&f.0))));
    if found.is_empty() {
        return None;
    }
    let mut out = cat.clone();
    for (c, mut labels, balance, income, deducted) in found {
        let sections = under.iter().find(|u| u.0 == c).map(|u| u.1.clone()).unwrap_or_default();
        // a row that adds another item to this one is not it ("Total liabilities and equity"
        // for "total liabilities", where a balance sheet prints no total of its liabilities)
        let excludes: Vec<String> = all_labels
            .iter()
            .filter_map(|l| {
                let k = norm(l);
                let rest = k.strip_prefix(&c)?;
                // nor is the noncontrolling interests' share of it ("Consolidated net income
                // attributable to noncontrolling interest" for "consolidated net income"),
                // unless the question asks for theirs
                let minority = NONCONTROLLING.iter().any(|w| rest.contains(w)) && !NONCONTROLLING.iter().any(|w| q.contains(&key(w)));
                (rest.starts_with(" and ") || minority).then(|| k.clone())
            })
            .collect();
        // the label printed as the core itself first
        labels.sort_by_key(|l| (l != &c, l.len()));
        // the item under the words the question says it with, too ("selling, general and
        // administrative expense" for the printed "... expenses")
        let mut names = vec![c.clone()];
        if let Some(said) = said_as(question, &c).filter(|s| *s != c) {
            names.insert(0, said);
        }
        let def = ItemDef {
            names,
            labels,
            unit: counted(&c).then_some(Unit::Count),
            positive: false,
            // "Less: Accumulated depreciation (4,913)", "Research and development expense
            // (3,269)", "Acquisitions, net of cash acquired (13,972)": the size of what is
            // deducted, spent or paid out
            cost: deducted || outflow(&c),
            rate_of: Vec::new(),
            balance,
            nonzero: false,
            excludes,
            signed_by_statement: false,
            absent_is_zero: false,
            expensed: income && !balance,
            whole: false,
            sections,
        };
        out.items.insert(format!("{PRINTED}{c}"), def);
    }
    Some(out)
}

/// Words naming the owners of a subsidiary's minority share.
const NONCONTROLLING: &[&str] = &["noncontrolling", "non-controlling", "minority interest"];

/// A printed item found: (core, labels printed, on a balance sheet, on an income statement,
/// printed as deducted).
type Found = (String, Vec<String>, bool, bool, bool);

/// Adds a label printed on `statement` for a period of `duration` to the item `c` found.
fn add_found(found: &mut Vec<Found>, c: String, label: &str, statement: &str, duration: &str, deducted: bool) {
    let balance = statement == BALANCE_SHEET || duration == "instant";
    let income = statement == INCOME_STATEMENT;
    match found.iter_mut().find(|f| f.0 == c) {
        Some(f) => {
            if !f.1.contains(&norm(label)) {
                f.1.push(norm(label));
            }
            f.2 |= balance;
            f.3 |= income;
            f.4 |= deducted;
        }
        None => found.push((c, vec![norm(label)], balance, income, deducted)),
    }
}

/// A label of one short word as its core ("Product", "Services" under "Revenue"), which
/// [`core`] leaves out as too little to be asked alone; `None` for the vague words.
fn short_core(label: &str) -> Option<String> {
    let c = norm(label.trim().trim_end_matches(':'));
    let one = c.split_whitespace().count() == 1 && c.len() >= 4 && c.chars().all(char::is_alphabetic);
    (one && !VAGUE.contains(&c.as_str()) && label.trim().starts_with(|ch: char| ch.is_uppercase())).then_some(c)
}

/// Words that may come before a line item's name in a question without making it another
/// measure ("What was 3M's goodwill", "How much did it spend on acquisitions").
const BEFORE: &[&str] = &[
    "what", "wa", "were", "is", "are", "the", "it", "it'", "its", "their", "of", "in", "on", "for", "did", "much", "how", "to", "at", "by", "and", "total",
    "from", "many",
];
/// Words that may follow it ("goodwill at the end of FY2018", "total liabilities to total
/// assets"), but not another noun of the measure ("goodwill impairment").
const AFTER: &[&str] = &[
    "in",
    "at",
    "for",
    "of",
    "to",
    "during",
    "from",
    "as",
    "wa",
    "were",
    "is",
    "are",
    "end",
    "by",
    "on",
    "ratio",
    "over",
    "between",
    "reported",
    "recorded",
    "did",
    "had",
    "compared",
    "excluding",
    "including",
    "net",
    "le",
    "change",
    "changed",
    "increase",
    "decrease",
    "grow",
    "grew",
    "growth",
    "divided",
    "minu",
    "plu",
    "round",
    "answer",
    "per",
    "year",
    "fiscal",
    "fy",
];
/// A word before "to" that makes the phrase after it a party, not a measure ("net income
/// attributable to noncontrolling interests").
pub const PARTY: &[&str] = &["attributable", "related", "due", "applicable", "allocated", "relating", "belonging", "paid", "owed"];

/// Whether the question (as [`key`]) says the name `k` as a measure of its own: after a word of
/// [`BEFORE`] or a possessive and before a word of [`AFTER`] or its end.
fn stands_alone(q: &str, k: &str) -> bool {
    let words: Vec<&str> = q.split_whitespace().collect();
    let name: Vec<&str> = k.split_whitespace().collect();
    if name.is_empty() || name.len() > words.len() {
        return false;
    }
    (0..=words.len() - name.len()).any(|i| {
        if words[i..i + name.len()] != name[..] {
            return false;
        }
        let before = i.checked_sub(1).map(|j| words[j]);
        let party = before == Some("to") && i >= 2 && PARTY.contains(&words[i - 2]);
        let before_ok = before.is_none_or(|w| w.ends_with('\'') || BEFORE.contains(&w) || w.starts_with("fy") || w.chars().all(|c| c.is_ascii_digit()));
        let after_ok = words.get(i + name.len()).is_none_or(|w| AFTER.contains(w) || w.starts_with("fy") || w.chars().all(|c| c.is_ascii_digit()));
        before_ok && after_ok && !party
    })
}

/// The question's own words for a name (the run of its words whose [`key`] is the name's).
fn said_as(question: &str, name: &str) -> Option<String> {
    let q = norm(question);
    let words: Vec<&str> = q.split_whitespace().collect();
    let want = key(name);
    let n = want.split_whitespace().count();
    (0..words.len()).find_map(|i| {
        (n..=(n + 2).min(words.len() - i)).find_map(|m| {
            let w = words[i..i + m].join(" ");
            let w = w.trim_matches(|c: char| !c.is_alphanumeric()).to_string();
            (key(&w) == want).then_some(w)
        })
    })
}

/// A core's name without the trailing word that says it is an expense ("research and development
/// expense" -> "research and development"), when at least two words are left: one word left
/// ("interest", "rent") names too little to be the item alone.
fn expense_stem(core: &str) -> Option<&str> {
    let (stem, last) = core.rsplit_once(' ')?;
    (["expense", "expenses", "cost", "costs"].contains(&last) && stem.split_whitespace().count() >= 2).then_some(stem.trim_end_matches(','))
}

/// Whether a core names an expense or an outflow, whose size is asked whatever sign a
/// statement prints it with.
fn outflow(core: &str) -> bool {
    let last = core.split_whitespace().last().unwrap_or("");
    let first = core.split_whitespace().next().unwrap_or("");
    // (accumulated depreciation and amortization are deducted from what they are printed under)
    core.starts_with("accumulated depreciation")
        || core.starts_with("accumulated amortization")
        || ["expense", "expenses", "costs", "charges", "losses"].contains(&last)
        || ["purchases", "purchase", "payments", "repayments", "acquisitions", "additions", "repurchases"].contains(&first)
}

/// The statements a printed line item's pages are looked up on: a balance on balance sheets and
/// note tables, a flow on the income and cash flow statements and note tables.
pub fn statements(balance: bool) -> &'static [&'static str] {
    if balance {
        &[BALANCE_SHEET, crate::facts::OTHER_TABLE]
    } else {
        &[INCOME_STATEMENT, CASH_FLOW, crate::facts::OTHER_TABLE]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(label: &str, statement: &str, duration: &str) -> (String, String, String) {
        (label.into(), statement.into(), duration.into())
    }

    #[test]
    fn a_label_is_named_by_its_core() {
        assert_eq!(core("Intangible assets — net").as_deref(), Some("intangible assets"));
        assert_eq!(core("Long-term debt, excluding current portion").as_deref(), Some("long-term debt"));
        assert_eq!(core("Less: Accumulated depreciation").as_deref(), Some("accumulated depreciation"));
        assert_eq!(core("Total liabilities").as_deref(), Some("total liabilities"));
        assert_eq!(core("Goodwill").as_deref(), Some("goodwill"));
        assert_eq!(
            core("Less: Comprehensive income (loss) attributable to noncontrolling interests").as_deref(),
            Some("comprehensive income attributable to noncontrolling interests")
        );
        assert_eq!(core("Long-term debt (excluding capital leases)").as_deref(), Some("long-term debt"));
        assert_eq!(core("Selling, general and administrative expenses").as_deref(), Some("selling, general and administrative expenses"));
        assert_eq!(core("Inventories, net").as_deref(), Some("inventories"));
        // a closing phrase of the period is no part of the name
        assert_eq!(core("Paid memberships at end of period").as_deref(), Some("paid memberships"));
        assert_eq!(core("Stores at the end of year").as_deref(), Some("stores"));
        assert_eq!(key("Selling, general and administrative expenses"), key("selling general and administrative expense"));
        // prose, figures, vague words
        assert_eq!(core("million. The Company recorded a pre-tax gain of"), None);
        assert_eq!(core("Accounts receivable increased $109 million from December 31, 2017, primarily due to increased sales"), None);
        assert_eq!(core("Expense incurred in the second quarter of 2018"), None);
        assert_eq!(core("Other"), None);
        assert_eq!(core("Total"), None);
        assert_eq!(core("Total other"), None);
        assert_eq!(core("Land"), None);
    }

    #[test]
    fn the_question_names_printed_items_the_catalogue_lacks() {
        let cat = Catalogue::builtin();
        let labels = vec![
            l("Total liabilities", BALANCE_SHEET, "instant"),
            l("Total current liabilities", BALANCE_SHEET, "instant"),
            l("Operating lease liabilities", BALANCE_SHEET, "instant"),
            l("Operating lease liabilities, excluding current portion", BALANCE_SHEET, "instant"),
            l("Advertising expense", crate::facts::OTHER_TABLE, "fiscal year"),
            l("Research and development", INCOME_STATEMENT, "fiscal year"),
        ];
        let ext = extended(&cat, "What is Costco's ratio of operating lease liabilities to total assets in FY2021?", &labels, &[], &[]).unwrap();
        let added: Vec<&String> = ext.items.keys().filter(|k| k.starts_with(PRINTED)).collect();
        // "total assets" is the catalogue's own; "operating lease liabilities" is printed
        assert_eq!(added, vec!["printed:operating lease liabilities"]);
        assert!(ext.items["printed:operating lease liabilities"].balance);
        // a source of revenue earned "from" it is the item; where a flow comes from is none
        let fees = [l("Membership fees", INCOME_STATEMENT, "fiscal year"), l("Operations", INCOME_STATEMENT, "fiscal year")];
        let ext = extended(&cat, "How much did Costco earn from membership fees in fiscal 2021?", &fees, &[], &[]).unwrap();
        assert!(ext.items.contains_key("printed:membership fees"));
        assert!(extended(&cat, "How much cash did Costco generate from operations in 2021?", &fees, &[], &[])
            .is_none_or(|e| !e.items.contains_key("printed:operations")));
        // long-term debt is the catalogue's now
        assert!(extended(&cat, "What is Costco's ratio of long-term debt to total assets in FY2021?", &labels, &[], &[])
            .is_none_or(|e| !e.items.keys().any(|k| k.starts_with(PRINTED))));
        // total liabilities is the catalogue's now: no printed item of it is made
        assert!(extended(&cat, "What were Coca-Cola's total liabilities in FY2017?", &labels, &[], &[])
            .is_none_or(|e| !e.items.contains_key("printed:total liabilities")));
        // the noncontrolling interests' share is not the item, unless theirs is asked for
        let consolidated = [
            l("Consolidated net income", INCOME_STATEMENT, "fiscal year"),
            l("Consolidated net income attributable to noncontrolling interest", INCOME_STATEMENT, "fiscal year"),
        ];
        let ext = extended(&cat, "What was Walmart's consolidated net income in fiscal 2018?", &consolidated, &[], &[]).unwrap();
        assert!(ext.items["printed:consolidated net income"].excluded_in("consolidated net income attributable to noncontrolling interest"));
        let ext = extended(&cat, "What was the consolidated net income attributable to noncontrolling interest in fiscal 2018?", &consolidated, &[], &[]);
        assert!(ext.is_none_or(|e| e.items.get("printed:consolidated net income").is_none_or(|d| d.excludes.is_empty())));
        // a deduction is read as its size
        let ext =
            extended(&cat, "What was 3M's accumulated depreciation in FY2018?", &[l("Less: Accumulated depreciation", BALANCE_SHEET, "instant")], &[], &[])
                .unwrap();
        assert!(ext.items["printed:accumulated depreciation"].cost);
        let ext = extended(&cat, "What were Netflix's operating lease liabilities at the end of FY2015?", &labels, &[], &[]).unwrap();
        let d = &ext.items["printed:operating lease liabilities"];
        assert_eq!(d.labels, vec!["operating lease liabilities", "operating lease liabilities, excluding current portion"]);
        let ext = extended(&cat, "How much did 3M spend on research and development in FY2018?", &labels, &[], &[]).unwrap();
        let d = &ext.items["printed:research and development"];
        assert!(d.expensed && !d.balance);
        // the statement's "Research and development expense, net" is the same item: a segment
        // table's "Research and development" row is not the only one it is read from
        let boeing = vec![
            l("Research and development", crate::facts::OTHER_TABLE, "fiscal year"),
            l("Research and development expense, net", INCOME_STATEMENT, "fiscal year"),
        ];
        let ext = extended(&cat, "How much did Boeing spend on research and development in 2018?", &boeing, &[], &[]).unwrap();
        let d = &ext.items["printed:research and development"];
        assert_eq!(d.labels, vec!["research and development", "research and development expense, net"]);
        assert!(d.cost && d.expensed);
        // asked with the expense's word, the longer name is the item
        let ext = extended(&cat, "What was Boeing's research and development expense in 2018?", &boeing, &[], &[]).unwrap();
        assert!(ext.items.contains_key("printed:research and development expense"));
        // one word left is too little: "Rent expense" is not "rent"
        assert_eq!(expense_stem("rent expense"), None);
        let sga = vec![l("Selling, general and administrative expenses", INCOME_STATEMENT, "fiscal year")];
        let ext = extended(&cat, "What was 3M's selling, general and administrative expense in FY2018?", &sga, &[], &[]).unwrap();
        let d = &ext.items["printed:selling, general and administrative expenses"];
        assert_eq!(d.names[0], "selling, general and administrative expense");
        // a count of things is no amount of money
        let members = vec![l("Paid memberships at end of period", crate::facts::OTHER_TABLE, "instant")];
        let ext = extended(&cat, "How many paid memberships did Netflix have at the end of 2017?", &members, &[], &[]).unwrap();
        assert_eq!(ext.items["printed:paid memberships"].unit, Some(Unit::Count));
        assert!(!counted("research and development") && counted("stores"));
        // a word of a listed name is not a printed item ("Interest" in "interest expense")
        let interest = vec![l("Interest", INCOME_STATEMENT, "fiscal year")];
        let q = "What was Costco's interest coverage ratio in FY2021? Interest coverage is operating income divided by interest expense.";
        assert!(extended(&cat, q, &interest, &[], &[]).is_none());
        // a name inside a longer measure the question asks is not that measure
        let gw = vec![l("Goodwill", BALANCE_SHEET, "instant"), l("Noncontrolling interests", BALANCE_SHEET, "instant")];
        assert!(extended(&cat, "How much goodwill impairment did 3M record in FY2018?", &gw, &[], &[]).is_none());
        assert!(extended(&cat, "What was 3M's goodwill at the end of FY2018?", &gw, &[], &[]).is_some());
        assert!(extended(&cat, "What was MGM's net income attributable to noncontrolling interests in FY2022?", &gw, &[], &[]).is_none());
        // a row named for the company is a member, not a line item
        let brand = vec![l("Best Buy", crate::facts::OTHER_TABLE, "3 months")];
        assert!(extended(&cat, "Did the number of Best Buy stores change from FY2023 to FY2024?", &brand, &[], &["bestbuy".into()]).is_none());
        // "total deposits" asked: the balance sheet's "Deposits" is read too (plain set 12:
        // JPMorgan's was not found); a flow's bare label is not ("Operating expenses" is a
        // segment's row in Amazon's notes)
        let bank = vec![l("Total deposits", crate::facts::OTHER_TABLE, "instant"), l("Deposits", BALANCE_SHEET, "instant")];
        let ext = extended(&cat, "What were JPMorgan's total deposits at June 30, 2023?", &bank, &[], &[]).unwrap();
        assert_eq!(ext.items["printed:total deposits"].labels, vec!["total deposits", "deposits"]);
        let opex = vec![l("Total operating expenses", INCOME_STATEMENT, "fiscal year"), l("Operating expenses", crate::facts::OTHER_TABLE, "fiscal year")];
        let ext = extended(&cat, "What was Amazon's total operating expenses in 2017?", &opex, &[], &[]).unwrap();
        assert_eq!(ext.items["printed:total operating expenses"].labels, vec!["total operating expenses"]);
        // after a plural possessive (plain set 12: General Mills' restructuring charges)
        let gis = vec![l("Restructuring charges", crate::facts::OTHER_TABLE, "fiscal year")];
        assert!(extended(&cat, "What were General Mills' restructuring charges in fiscal 2020?", &gis, &[], &[]).is_some());
        // nothing the question names, or only what the catalogue lists
        assert!(extended(&cat, "What was 3M's revenue in FY2018?", &labels, &[], &[]).is_none());
        assert!(extended(&cat, "What were total current liabilities in FY2018?", &labels, &[], &[]).is_none());
    }

    #[test]
    fn a_label_under_its_heading_is_named_by_both() {
        let cat = Catalogue::builtin();
        let s = |label: &str, section: &str| (label.to_string(), section.to_string(), INCOME_STATEMENT.to_string(), "fiscal year".to_string());
        let adobe = vec![s("Subscription", "Revenue"), s("Product", "Revenue"), s("Subscription", "Cost of revenue")];
        let ext = extended(&cat, "What was Adobe's subscription revenue in fiscal 2016?", &[], &adobe, &[]).unwrap();
        let d = &ext.items["printed:subscription revenue"];
        assert_eq!(d.labels, vec!["subscription"]);
        assert_eq!(d.sections, vec!["revenue"], "read under Revenue only, not under Cost of revenue");
        // the question's own words name it ("membership fee" for the printed "Membership fees")
        let costco = vec![s("Membership fees", "REVENUE")];
        let ext = extended(&cat, "What was Costco's membership fee revenue in FY2021?", &[], &costco, &[]).unwrap();
        assert_eq!(ext.items["printed:membership fees revenue"].names[0], "membership fee revenue");
        // the label alone, or the heading alone, is not it
        assert!(extended(&cat, "What was Adobe's revenue in fiscal 2016?", &[], &adobe, &[]).is_none());
        assert!(extended(&cat, "How many subscription products does Adobe sell?", &[], &adobe, &[]).is_none());
    }
}
