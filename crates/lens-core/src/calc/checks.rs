//! The verifier's checks of a worked answer: each compares the calculation with what accounting
//! and the form of the question allow (rules as data: `resources/checks.json`, extended per
//! library by `<library>/checks.json`), never with examples. A check passes, fails, or says it
//! could not run (a statement with no unit line, a metric with no range listed): only a failed
//! check keeps an answer from being shown as supported.
//!
//! - `type`: the result is of the type asked (a percent, an amount in the unit asked, days);
//! - `range`: the value is possible for its measure (a gross margin at most 100%, a growth
//!   above -100%, days within bounds);
//! - `scale`: each operand agrees with its statement's unit and with the other figures of its
//!   table (0.03 in a statement in millions is a misread);
//! - `periods`: the operands are of the period asked (a quarter's column is not a fiscal year)
//!   and the years of a change come from the same statement;
//! - `concept`: each operand's row is the line item asked, not a row that only begins with its
//!   name, and the question's line item is not part of a longer one ("cash dividends");
//! - `readings`: where the filing prints the same figure on another statement, the two agree;
//! - `definition`: a metric with more than one definition in use is asked with its formula.
//!
//! Pure functions: tests beside.

use super::Calculation;
use crate::figures::catalogue::{has_words, norm};
pub use crate::figures::rules::{any_failed, Bound, Check, Rules};

/// "181.5%" for a percent measure, "4.18 days", "2.50" otherwise.
fn show_value(c: &Calculation, v: f64) -> String {
    match c.unit.as_str() {
        "percent" => format!("{:.1}%", v * 100.0),
        "days" => format!("{v:.1} days"),
        _ if c.shape == "growth" || c.shape == "cagr" => format!("{:.1}%", v * 100.0),
        _ => format!("{v:.2}"),
    }
}

/// The bound a calculation's value is held to, and the name it is said under.
fn bound_of<'r>(c: &Calculation, rules: &'r Rules) -> Option<&'r Bound> {
    if let Some(b) = rules.shapes.get(&c.shape) {
        return Some(b);
    }
    let id = c.measure.as_deref()?;
    rules
        .ranges
        .get(id)
        .or_else(|| if id.ends_with("_margin") && c.unit == "percent" { rules.item_margin.as_ref() } else { None })
        .or_else(|| rules.units.get(&c.unit))
}

/// `range`: the value (and, for a verdict, each year's value) within the measure's bounds.
fn range(c: &Calculation, rules: &Rules) -> Check {
    let Some(b) = bound_of(c, rules) else {
        return Check::not_run("range", format!("no range is listed for {}", c.metric));
    };
    let mut values: Vec<f64> = Vec::new();
    match c.shape.as_str() {
        "growth" | "cagr" => values.extend(c.value),
        // a verdict's or a series' values are the metric's at each year
        _ => {
            values.extend(c.values.iter().copied());
            if values.is_empty() {
                values.extend(c.value);
            }
        }
    }
    if values.is_empty() {
        return Check::not_run("range", "no value to check");
    }
    for v in values {
        if !v.is_finite() || v < b.min || v > b.max {
            return Check::fail("range", format!("{} of {} is not possible: {}; check the operands", c.metric, show_value(c, v), b.says));
        }
    }
    Check::pass("range", format!("{} is within the possible range", c.metric))
}

/// `scale`: each amount operand agrees with its statement's unit and its table's other figures.
fn scale(c: &Calculation) -> Check {
    // (a figure per share is printed in dollars, whatever its statement's unit)
    let amounts: Vec<&super::Operand> = c.operands.iter().filter(|o| o.unit != "percent" && o.unit != "per share").collect();
    if amounts.is_empty() {
        return Check::not_run("scale", "no amount was read");
    }
    let units: Vec<&str> = {
        let mut u: Vec<&str> = amounts.iter().map(|o| o.unit.as_str()).collect();
        u.sort_unstable();
        u.dedup();
        u
    };
    // a ratio of amounts read in different units, one of them unstated, is off by the unit
    if units.len() > 1 && units.contains(&"units") && c.unit != "amount" {
        let o = amounts.iter().find(|o| o.unit == "units").expect("an unstated unit");
        return Check::fail(
            "scale",
            format!(
                "{} on {} comes from a table that states no unit, the others are in {}: the ratio may be off by the unit",
                o.name,
                o.page,
                units.iter().filter(|u| **u != "units").cloned().collect::<Vec<_>>().join(", ")
            ),
        );
    }
    for o in &amounts {
        let v: f64 = o.value.parse().unwrap_or(f64::NAN);
        // a fraction of a unit in a statement in millions or thousands is a per-share figure or
        // a rate read as an amount
        if (o.unit == "millions" || o.unit == "thousands") && v.abs() < 1.0 && v != 0.0 {
            return Check::fail(
                "scale",
                format!("{} of {} on {} is a misread: the statement is in {}, where a line item is not a fraction of one", o.name, o.value, o.page, o.unit),
            );
        }
        // nil (a dash) where the statement's other figures are not: another row's, or a line
        // the company does not report
        if v == 0.0 && o.read.typical.is_some_and(|t| t > 0.0) && c.operands.len() == 1 {
            return Check::fail(
                "scale",
                format!("{} {} is printed as nil on {} (\"{}\"): check that the row is the one meant", o.name, o.period, o.page, o.quote),
            );
        }
        if let Some(t) = o.read.typical.filter(|t| *t > 0.0) {
            if v.abs() > 0.0 && (v.abs() * 10_000.0 < t || v.abs() > t * 10_000.0) {
                return Check::fail(
                    "scale",
                    format!(
                        "{} of {} on {} is many orders of magnitude from the other figures of its table (typically {}): a misread",
                        o.name,
                        o.value,
                        o.page,
                        super::group(&format!("{t:.0}"))
                    ),
                );
            }
        }
    }
    if let Some(o) = amounts.iter().find(|o| o.unit == "units") {
        return Check::not_run("scale", format!("the table {} was read from states no unit (\"in millions\"): the figure is shown as printed", o.page));
    }
    Check::pass("scale", format!("the figures are in {} as their statements state", units.join(" and ")))
}

/// `periods`: the operands' columns are of the period asked, and a change reads its years from
/// one statement.
fn periods(c: &Calculation, rules: &Rules) -> Check {
    if c.operands.is_empty() {
        return Check::not_run("periods", "no operand was read");
    }
    for o in &c.operands {
        if let Some(m) = o.read.months.filter(|m| *m != c.months && c.months != 0) {
            return Check::fail(
                "periods",
                format!("{} {} was read from a column of {m} months (\"{}\" on {}), not the period asked", o.name, o.period, o.read.column, o.page),
            );
        }
        if c.months == 12 {
            let text = norm(&format!("{} {}", o.read.column, o.read.table));
            if let Some(w) = rules.quarter_words.iter().find(|w| has_words(&text, w)) {
                return Check::fail(
                    "periods",
                    format!(
                        "{} {} was read from a column of part of a year (\"{w}\" in \"{}\" on {}), not a fiscal year",
                        o.name,
                        o.period,
                        o.read.column.trim(),
                        o.page
                    ),
                );
            }
        }
    }
    // two columns that both print their length and differ ("Three Months" and "Six Months")
    let mut months: Vec<u8> = c.operands.iter().filter_map(|o| o.read.months).collect();
    months.sort_unstable();
    months.dedup();
    if months.len() > 1 {
        return Check::fail(
            "periods",
            format!("the operands are of periods of different lengths ({} months)", months.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" and ")),
        );
    }
    // a change's two years of one item read from two pages of the same filing are two tables
    if matches!(c.shape.as_str(), "growth" | "difference" | "cagr" | "compare") {
        for o in &c.operands {
            if let Some(p) = c.operands.iter().find(|p| p.name == o.name && p.period != o.period && p.page.doc_id == o.page.doc_id && p.page != o.page) {
                return Check::fail(
                    "periods",
                    format!(
                        "{} {} ({}) and {} ({}) come from two tables of one filing: check that they are the same measure",
                        o.name, o.period, o.page, p.period, p.page
                    ),
                );
            }
        }
    }
    Check::pass("periods", if c.months == 12 { "every operand is a fiscal year's".to_string() } else { format!("every operand is of {} months", c.months) })
}

/// `concept`: the rows are the line items asked, and the question's line item is not part of a
/// longer name.
fn concept(c: &Calculation, question: &str, rules: &Rules) -> Check {
    if let Some(asked) = c.asked_as.as_deref() {
        let q = norm(question);
        let words: Vec<&str> = q.split(|ch: char| !ch.is_alphanumeric() && ch != '-' && ch != '&').filter(|w| !w.is_empty()).collect();
        let name: Vec<&str> = asked.split(|ch: char| !ch.is_alphanumeric() && ch != '-' && ch != '&').filter(|w| !w.is_empty()).collect();
        if !name.is_empty() {
            for at in (0..words.len()).filter(|&i| words[i..].starts_with(&name)) {
                let next = words.get(at + name.len()).copied();
                let before = at.checked_sub(1).map(|i| words[i]);
                if let Some(w) = next.filter(|w| rules.compound_heads.iter().any(|h| h == w)) {
                    return Check::fail("concept", format!("the question asks for \"{asked} {w}\", another line item than {}", c.metric));
                }
                if let Some(w) = before.filter(|w| rules.concept_modifiers.iter().any(|m| m == w)) {
                    return Check::fail("concept", format!("the question asks for \"{w} {asked}\", another line item than {}", c.metric));
                }
            }
        }
    }
    // "how much cash did it pay for income taxes": the expense recognised is not what was paid
    let q = norm(question);
    let own = q.split('?').next().unwrap_or(&q);
    if has_words(own, "pay") || has_words(own, "paid") || has_words(own, "payments") {
        if let Some(o) = c.operands.iter().find(|o| {
            let r = norm(&o.read.row);
            !["paid", "payment", "payments", "pay", "dividends", "repurchase", "purchases", "capital expenditure", "additions"].iter().any(|w| r.contains(w))
        }) {
            return Check::fail(
                "concept",
                format!(
                    "the question asks what was paid; the row \"{}\" on {} is not a payment (an expense recognised is not the cash paid)",
                    o.read.row, o.page
                ),
            );
        }
    }
    // "net income attributable to shareholders": a row that includes the noncontrolling
    // interests' share is the consolidated total, another line item
    if q.contains("attributable") && !q.contains("noncontrolling") && !q.contains("non-controlling") {
        if let Some(o) = c.operands.iter().find(|o| {
            let r = norm(&o.read.row);
            r.contains("including") && (r.contains("noncontrolling") || r.contains("non-controlling") || r.contains("minority"))
        }) {
            return Check::fail(
                "concept",
                format!(
                    "the question asks for the amount attributable to the company; the row \"{}\" on {} includes the noncontrolling interests' share",
                    o.read.row, o.page
                ),
            );
        }
    }
    // a part of the measure asked ("membership fee revenue", "AWS operating income", "revenue
    // from its Whole Foods stores"): the company's whole measure does not answer it. Read in the
    // question's own words (before its first "?"), not its definitions or instructions.
    if let Some(asked) = c.asked_as.as_deref() {
        // a plural possessive ("MGM Resorts' total revenue") is a possessive; an opening
        // parenthesis ("return on common equity (ROE)") leads a short form of what precedes it
        let own = norm(question.split('?').next().unwrap_or(question)).replace("' ", " 's ");
        let spaced: String = own.chars().map(|ch| if ch.is_alphanumeric() || ch == '-' || ch == '&' || ch == '(' { ch } else { ' ' }).collect();
        let spaced = spaced.replace('(', " ( ");
        let words: Vec<&str> = spaced.split_whitespace().collect();
        let name: Vec<&str> = asked.split(|ch: char| !ch.is_alphanumeric() && ch != '-' && ch != '&').filter(|w| !w.is_empty()).collect();
        // the company's own name ("Netflix working capital"), as its filings are named
        let docs: Vec<String> = c.operands.iter().map(|o| o.page.doc_id.to_lowercase()).collect();
        let lead = |w: &str| {
            w == "("
                || w.chars().any(|ch| ch.is_ascii_digit())
                || rules.lead_words.iter().any(|l| l == w)
                || (w.len() >= 3 && docs.iter().any(|d| d.contains(w)))
        };
        if !name.is_empty() {
            for at in (0..words.len()).filter(|&i| words[i..].starts_with(&name)) {
                if let Some(w) = at.checked_sub(1).map(|i| words[i]).filter(|w| !lead(w)) {
                    return Check::fail(
                        "concept",
                        format!("the question asks for \"{w} {asked}\", a part of {} or another line item, not the company's {}", c.metric, c.metric),
                    );
                }
                let after = (words.get(at + name.len()).copied(), words.get(at + name.len() + 1).copied());
                if let (Some("from"), Some(w @ ("its" | "their" | "our"))) = after {
                    return Check::fail("concept", format!("the question asks for \"{asked} from {w} …\", a part of {}, not the company's", c.metric));
                }
            }
        }
    }
    for o in &c.operands {
        if o.read.label_match == "partial" {
            return Check::fail(
                "concept",
                format!("the row \"{}\" on {} only begins with a name of {}: it may be another line item", o.read.row, o.page, o.name),
            );
        }
    }
    if c.operands.iter().all(|o| o.read.label_match.is_empty()) {
        return Check::not_run("concept", "the rows' labels were not recorded");
    }
    Check::pass("concept", "each operand's row is labelled as the line item")
}

/// Words a company's name may end with that no filer name need hold ("The Coca-Cola Company").
const NAME_SUFFIXES: [&str; 14] =
    ["the", "inc", "corp", "corporation", "company", "companies", "co", "ltd", "plc", "llc", "group", "holdings", "incorporated", "limited"];

/// The part of the filer a question names (a segment, a region, a subsidiary: "How much revenue
/// did MGM China generate in 2018?", "Walmart International's net sales"): a run of capitalised
/// words holding a name of the filer (`filer`, squashed to letters and digits) and other words
/// no name of it holds, or a run after "from" that holds none of the filer's ("How much revenue
/// did Pfizer get from Comirnaty?"). `None` when the filer is not known or the question names
/// it alone. The question's own words are read (before its first "?"); a run's opening question
/// word ("Did Amazon ...") and the measure asked (`asked`, in a title-cased question) are not
/// names.
pub fn part_named(question: &str, filer: &[String], asked: Option<&str>) -> Option<String> {
    if filer.is_empty() {
        return None;
    }
    let asked = asked_words(asked);
    name_runs(question).into_iter().find_map(|r| {
        let (held, extra) = split_run(&r.words, filer, &asked);
        match (held, r.after_from) {
            (true, _) if !extra.is_empty() => Some(r.words.join(" ")),
            (false, true) if !extra.is_empty() => Some(extra.join(" ")),
            _ => None,
        }
    })
}

/// The names of the part of the filer a question asks a figure of, in the order to look for
/// them: a run naming the filer and more, whole ("MGM China") and less the filer's words
/// ("China"); a capitalised name before "segment", "division" or "business" ("Adobe's Digital
/// Media segment revenue") or after "from" ("revenue from Comirnaty"). Empty when the filer is
/// not known or the question names no part.
pub fn members_asked(question: &str, filer: &[String], asked: Option<&str>) -> Vec<String> {
    if filer.is_empty() {
        return Vec::new();
    }
    let asked = asked_words(asked);
    let mut out: Vec<String> = Vec::new();
    for r in name_runs(question) {
        let (held, extra) = split_run(&r.words, filer, &asked);
        if held && !extra.is_empty() {
            out.push(r.words.join(" "));
            out.push(extra.join(" "));
        } else if !held
            && !extra.is_empty()
            && (r.after_from || r.next.as_deref().is_some_and(|n| ["segment", "segments", "division", "business", "unit"].contains(&n)))
        {
            out.push(extra.join(" "));
        }
    }
    out.dedup();
    out
}

fn asked_words(asked: Option<&str>) -> Vec<String> {
    asked.map(|a| a.split_whitespace().map(super::squash).collect()).unwrap_or_default()
}

/// Whether a run of a question's capitalised words holds a name of the filer, and its words
/// that are not the filer's (nor a company's suffix, nor the measure asked).
fn split_run<'a>(words: &'a [String], filer: &[String], asked: &[String]) -> (bool, Vec<&'a str>) {
    let is_filers = |w: &str| w.len() >= 2 && filer.iter().any(|f| f.contains(w));
    let held = words.iter().any(|w| is_filers(&super::squash(w)));
    let extra = words
        .iter()
        .map(String::as_str)
        .filter(|w| {
            let s = super::squash(w);
            !s.is_empty() && !is_filers(&s) && !NAME_SUFFIXES.contains(&s.as_str()) && !asked.contains(&s)
        })
        .collect();
    (held, extra)
}

/// The runs of capitalised words of a question's own words (before its first "?"), each with
/// the word after it (lower case) and whether "from" is before it: a run's opening question
/// word ("Did Amazon ...") left out, a possessive or a comma ending it, periods ("FY2018",
/// "Q2") and months no part of one.
fn name_runs(question: &str) -> Vec<NameRun> {
    const MONTHS: [&str; 12] = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
    let own = question.split('?').next().unwrap_or(question);
    let name_word = |w: &str| {
        let digits = w.chars().filter(char::is_ascii_digit).count();
        let first = w.chars().next();
        (first.is_some_and(char::is_uppercase) || first.is_some_and(|c| c.is_ascii_digit()) && w.chars().any(char::is_alphabetic))
            && digits < 4
            // "FY2018", "Q2": a period, not a name
            && !(w.starts_with("FY") || w.len() <= 3 && w.starts_with('Q') && digits > 0)
            && !MONTHS.contains(&w.to_lowercase().as_str())
    };
    let new_run = || NameRun { words: Vec::new(), next: None, after_from: false };
    let mut runs: Vec<NameRun> = vec![new_run()];
    let mut before = "";
    for raw in own.split_whitespace() {
        let ends =
            raw.ends_with([',', ';', ':', '.']) && !raw.ends_with("S.") && raw.len() > 2 || raw.ends_with("'s") || raw.ends_with("’s") || raw.ends_with("s'");
        let w = raw.trim_end_matches([',', ';', ':', '.', ')', '"', '”']).trim_end_matches("'s").trim_end_matches("’s").trim_end_matches('\'');
        let w = w.trim_start_matches(['(', '"', '“']);
        let open = runs.last().is_some_and(|r| !r.words.is_empty());
        if name_word(w) || (w == "&" && open) {
            let run = runs.last_mut().expect("a run");
            if run.words.is_empty() {
                // a run right after a lowercase "from" (a title-cased "From" says nothing)
                run.after_from = before == "from";
            }
            run.words.push(w.to_string());
        } else if open {
            runs.last_mut().expect("a run").next = Some(w.to_lowercase());
            runs.push(new_run());
        }
        if ends && runs.last().is_some_and(|r| !r.words.is_empty()) {
            runs.push(new_run());
        }
        before = if before == "from" && raw == "the" { "from" } else { raw };
    }
    runs.into_iter()
        .map(|r| {
            let words: Vec<String> = r
                .words
                .into_iter()
                .skip_while(|w| crate::text::is_stop_word(&w.to_lowercase()) || QUESTION_OPENERS.contains(&w.to_lowercase().as_str()))
                .collect();
            NameRun { words, ..r }
        })
        .filter(|r| !r.words.is_empty())
        .collect()
}

/// A run of a question's capitalised words ([`name_runs`]).
struct NameRun {
    words: Vec<String>,
    /// The word after it, lowercase.
    next: Option<String>,
    /// It follows "from" (or "from the"): "revenue from Comirnaty", "sales from the Americas".
    after_from: bool,
}

/// Words that open a question with a capital and are no part of a name ("Did Amazon ...").
const QUESTION_OPENERS: [&str; 24] = [
    "what",
    "how",
    "which",
    "who",
    "why",
    "when",
    "where",
    "did",
    "does",
    "do",
    "is",
    "was",
    "were",
    "has",
    "have",
    "had",
    "can",
    "could",
    "would",
    "should",
    "will",
    "are",
    "based",
    "according",
];

/// The `concept` check of a figure of the whole company asked of a part of it ([`part_named`]).
pub fn of_part(part: &str, metric: &str) -> Check {
    Check::fail(
        "concept",
        format!("the question asks for \"{part}\"'s {metric}, a part of the company (a segment, region or subsidiary), and this is the company's"),
    )
}

/// `readings`: another statement of the same filing prints the same item and year alike.
fn readings(c: &Calculation) -> Check {
    let mut compared = 0;
    for o in &c.operands {
        for r in &o.read.readings {
            compared += 1;
            if !r.agrees {
                return Check::fail(
                    "readings",
                    format!(
                        "{} {} reads {} on {} (\"{}\") and {} on {} (\"{}\"): the two differ",
                        o.name,
                        o.period,
                        super::group(&o.value),
                        o.page,
                        o.read.row,
                        super::group(&r.value),
                        r.page,
                        r.row
                    ),
                );
            }
        }
    }
    if compared == 0 {
        return Check::not_run("readings", "no other statement of the filing prints these figures");
    }
    Check::pass("readings", format!("{compared} other reading(s) in the filing agree"))
}

/// `type`: a percent asked is a percent, an amount asked in a unit is an amount, days are days.
fn value_type(c: &Calculation, question: &str, percent_asked: bool, scale_asked: bool) -> Check {
    let Some(result) = c.result.as_deref() else { return Check::not_run("type", "no result") };
    if c.verdict.is_some() {
        return Check::pass("type", "a verdict with its figures");
    }
    let is_percent = result.trim_end().ends_with('%') || result.contains(" points");
    let is_amount = result.contains('$') || result.contains("unstated unit");
    let q = norm(question);
    if percent_asked && !is_percent && c.unit != "ratio" && c.unit != "days" {
        return Check::fail("type", format!("the question asks for a percent and the result is {result}"));
    }
    if scale_asked && !percent_asked && !is_amount && c.unit != "ratio" {
        return Check::fail("type", format!("the question asks for an amount and the result is {result}"));
    }
    // "How much did revenues grow in fiscal 2018?" is answered by two years' figures, never one
    let mut periods: Vec<&str> = c.operands.iter().map(|o| o.period.as_str()).collect();
    periods.sort_unstable();
    periods.dedup();
    if c.shape == "one" && periods.len() == 1 && crate::question::Question::parse(question).operation == crate::question::Operation::Change {
        return Check::fail("type", format!("the question asks how much a figure changed and the result is one period's figure, {result}"));
    }
    if has_words(&q, "days") && c.unit != "days" {
        return Check::fail("type", format!("the question asks for days and the result is {result}"));
    }
    Check::pass("type", "the result is of the type asked")
}

/// `definition`: a metric computed in more than one way in practice (return on equity over
/// average or year-end equity), asked without its formula, is answered in one of them: said,
/// never shown as supported.
fn definition(c: &Calculation, rules: &Rules) -> Check {
    // a formula the question writes in words that was not read as its definition ("Use total
    // debt divided by total equity"): the catalogue's may be another
    if !c.defined {
        if let Some(sentence) = &c.unread_definition {
            return Check::fail(
                "definition",
                format!("the question writes its own formula (\"{sentence}\"), which was not read as one: this is {}", c.formula),
            );
        }
    }
    let Some(id) = c.measure.as_deref() else { return Check::not_run("definition", "not a catalogue metric") };
    // the figure the filing prints under the metric's name is the filing's own definition
    if c.as_printed {
        return Check::pass("definition", format!("the filing prints {} itself", c.metric));
    }
    match rules.definitions.get(id) {
        Some(ways) if !c.defined => Check::fail(
            "definition",
            format!(
                "{} is computed in more than one way ({ways}) and the question does not say which: this is {}; write out the formula to have it checked",
                c.metric, c.formula
            ),
        ),
        Some(_) => Check::pass("definition", "the question writes out the formula"),
        None => Check::pass("definition", format!("{} has one definition in use", c.metric)),
    }
}

/// `years`: a question naming two or more fiscal years ("total assets end of 2015 vs 2014")
/// answered with one year's figure alone is not answered whole.
fn years_asked(c: &Calculation, question: &str) -> Check {
    let asked = crate::filter::question_years(question);
    let mut read: Vec<&str> = c.operands.iter().map(|o| o.period.as_str()).collect();
    read.sort_unstable();
    read.dedup();
    if c.shape == "one" && !c.defined && c.verdict.is_none() && asked.len() >= 2 && read.len() == 1 {
        let shown: Vec<String> = asked.iter().map(|y| format!("FY{y}")).collect();
        return Check::fail("years", format!("the question names {}; the answer gives {} alone", shown.join(" and "), read[0]));
    }
    Check::pass("years", "the years asked are answered")
}

/// Every check of a worked answer with a result (none without one). `percent_asked`: the
/// question asks for a percent ("%", "percent"); `scale_asked`: it names a unit ("in USD
/// millions").
pub fn of_calculation(c: &Calculation, question: &str, percent_asked: bool, scale_asked: bool, rules: &Rules) -> Vec<Check> {
    if c.result.is_none() {
        return Vec::new();
    }
    vec![
        value_type(c, question, percent_asked, scale_asked),
        range(c, rules),
        scale(c),
        periods(c, rules),
        concept(c, question, rules),
        readings(c),
        definition(c, rules),
        years_asked(c, question),
    ]
}

/// Whether a failed check may pass with another reading (another row, table or page): the type
/// asked and the question's own words do not change with the reading, and two readings that
/// disagree are not mended by choosing the other: which is meant is for the reader to see.
pub fn another_reading_may_help(checks: &[Check]) -> bool {
    checks.iter().filter(|c| c.failed()).all(|c| c.name != "type" && c.name != "readings" && c.name != "definition" && c.name != "years")
        && !checks.iter().any(|c| c.failed() && c.detail.starts_with("the question asks for \""))
}

#[cfg(test)]
mod tests {
    use super::super::{Operand, OperandRead, Reading};
    use super::*;
    use crate::pageref::PageRef;

    fn op(name: &str, period: &str, value: &str, unit: &str, page: u32, row: &str) -> Operand {
        Operand {
            name: name.into(),
            period: period.into(),
            value: value.into(),
            unit: unit.into(),
            page: PageRef::new("ACME_2022_10K", page),
            quote: format!("{row} {value}"),
            boxes: Vec::new(),
            read: OperandRead { row: row.into(), label_match: "exact".into(), column: period.trim_start_matches("FY").into(), ..Default::default() },
        }
    }

    fn calc(metric: &str, measure: &str, unit: &str, shape: &str, value: f64, result: &str, operands: Vec<Operand>) -> Calculation {
        Calculation {
            metric: metric.into(),
            formula: String::new(),
            operands,
            result: Some(result.into()),
            display: String::new(),
            problem: None,
            verdict: None,
            caveat: None,
            measure: Some(measure.into()),
            unit: unit.into(),
            shape: shape.into(),
            months: 12,
            value: Some(value),
            values: vec![value],
            ..Default::default()
        }
    }

    fn rules() -> Rules {
        Rules::builtin()
    }

    fn get<'a>(checks: &'a [Check], name: &str) -> &'a Check {
        checks.iter().find(|c| c.name == name).unwrap()
    }

    #[test]
    fn an_impossible_margin_fails_its_range_and_says_why() {
        let c = calc(
            "gross margin",
            "gross_margin",
            "percent",
            "one",
            1.815,
            "181.5%",
            vec![op("revenue", "FY2023", "14694", "millions", 50, "Net sales"), op("cost of sales", "FY2023", "-11969", "millions", 50, "Cost of sales")],
        );
        let ch = of_calculation(&c, "What is Amcor's FY2023 gross margin in percent?", true, false, &rules());
        let r = get(&ch, "range");
        assert_eq!(r.passed, Some(false));
        assert!(r.detail.contains("181.5% is not possible") && r.detail.contains("above 100% of revenue"), "{}", r.detail);
        assert!(another_reading_may_help(&ch));
        let ok = calc("gross margin", "gross_margin", "percent", "one", 0.19, "19.0%", c.operands.clone());
        assert_eq!(get(&of_calculation(&ok, "What is Amcor's FY2023 gross margin in percent?", true, false, &rules()), "range").passed, Some(true));
    }

    #[test]
    fn a_measure_with_no_range_listed_cannot_run_the_range_check() {
        let c = calc(
            "net PPNE",
            "ppe",
            "amount",
            "one",
            8.7e9,
            "$8,738 million",
            vec![op("ppe", "FY2022", "8738", "millions", 40, "Property, plant and equipment, net")],
        );
        let r = range(&c, &rules());
        assert_eq!(r.passed, None, "{r:?}");
        assert!(r.detail.contains("no range is listed"));
    }

    #[test]
    fn a_fraction_of_a_million_is_a_misread_and_an_unstated_unit_cannot_run() {
        let c = calc(
            "accounts payable",
            "accounts_payable",
            "amount",
            "one",
            30000.0,
            "$0.03 million",
            vec![op("accounts payable", "FY2022", "0.03", "millions", 40, "Accounts payable")],
        );
        let s = scale(&c);
        assert_eq!(s.passed, Some(false));
        assert!(s.detail.contains("misread") && s.detail.contains("in millions"), "{}", s.detail);
        let c = calc("cash", "cash", "amount", "one", 5596.0, "5,596 (in the table's unstated unit)", vec![op("cash", "FY2022", "5596", "units", 40, "Cash")]);
        let s = scale(&c);
        assert_eq!(s.passed, None, "{s:?}");
        assert!(s.detail.contains("states no unit"));
        // a ratio of an unstated-unit figure over one in millions is off by the unit
        let c = calc(
            "current ratio",
            "current_ratio",
            "ratio",
            "one",
            0.001,
            "0.00",
            vec![
                op("current assets", "FY2022", "5596", "units", 40, "Total current assets"),
                op("current liabilities", "FY2022", "4000", "millions", 41, "Total current liabilities"),
            ],
        );
        assert_eq!(scale(&c).passed, Some(false));
        // a single line item read as nil where its table's figures are not
        let mut nil = op("net income", "FY2020", "0", "thousands", 68, "Net income");
        nil.read.typical = Some(650_000.0);
        let c = calc("net income", "net_income", "amount", "one", 0.0, "$0.00 million", vec![nil]);
        assert!(scale(&c).detail.contains("printed as nil"), "{:?}", scale(&c));
    }

    #[test]
    fn a_quarter_over_a_full_year_fails_the_periods_check() {
        let mut q4 = op("revenue", "FY2023", "3500", "millions", 3, "Net sales");
        q4.read.column = "Three Months Ended December 31, 2023".into();
        let fy = op("revenue", "FY2022", "13800", "millions", 3, "Net sales");
        let c = calc("revenue growth", "revenue_growth", "percent", "one", -0.747, "-74.7%", vec![q4, fy.clone()]);
        let p = periods(&c, &rules());
        assert_eq!(p.passed, Some(false));
        assert!(p.detail.contains("part of a year") && p.detail.contains("three months"), "{}", p.detail);
        // a title that names the quarter counts too
        let mut q = fy.clone();
        q.read.table = "Fourth Quarter".into();
        let c = calc("revenue", "revenue", "amount", "one", 1.0, "$1 million", vec![q]);
        assert_eq!(periods(&c, &rules()).passed, Some(false));
        // two years of one statement pass; two pages of one filing for a growth do not
        let a = op("revenue", "FY2023", "14000", "millions", 3, "Net sales");
        let c = calc("revenue", "revenue", "percent", "growth", 0.01, "1.4%", vec![a.clone(), fy.clone()]);
        assert_eq!(periods(&c, &rules()).passed, Some(true));
        let b = op("revenue", "FY2022", "13800", "millions", 9, "Net sales");
        let c = calc("revenue", "revenue", "percent", "growth", 0.01, "1.4%", vec![a, b]);
        assert_eq!(periods(&c, &rules()).passed, Some(false));
    }

    #[test]
    fn a_row_that_only_begins_with_the_name_and_a_longer_line_item_fail_the_concept_check() {
        let mut sales = op("revenue", "FY2019", "2072", "millions", 55, "Sales of short-term investments");
        sales.read.label_match = "partial".into();
        let c = calc(
            "capex as a % of revenue",
            "capex_to_revenue",
            "percent",
            "one",
            0.54,
            "54.0%",
            vec![op("capex", "FY2019", "-1119", "millions", 55, "Additions to PP&E"), sales],
        );
        let k = concept(&c, "What is Nike's FY2019 capital expenditure as a % of revenue?", &rules());
        assert_eq!(k.passed, Some(false));
        assert!(k.detail.contains("Sales of short-term investments"), "{}", k.detail);
        let mut c = calc(
            "cash and cash equivalents",
            "cash",
            "amount",
            "one",
            2.853e9,
            "$2,853 million",
            vec![op("cash", "FY2018", "2853", "millions", 60, "Cash and cash equivalents")],
        );
        c.asked_as = Some("cash".into());
        let k = concept(&c, "How much did 3M pay in cash dividends in FY2018 in USD millions?", &rules());
        assert_eq!(k.passed, Some(false));
        assert!(k.detail.contains("\"cash dividends\""), "{}", k.detail);
        let ch = of_calculation(&c, "How much did 3M pay in cash dividends in FY2018 in USD millions?", false, true, &rules());
        assert!(!another_reading_may_help(&ch), "another row does not change what was asked");
        c.asked_as = Some("cash and cash equivalents".into());
        let k = concept(&c, "What were 3M's cash and cash equivalents in FY2018 in USD millions?", &rules());
        assert_eq!(k.passed, Some(true), "{k:?}");
        c.asked_as = Some("cash".into());
        assert_eq!(concept(&c, "What was 3M's restricted cash in FY2018?", &rules()).passed, Some(false));
    }

    #[test]
    fn a_part_of_the_measure_asked_is_not_answered_by_the_whole() {
        let rules = rules();
        let mut c = calc(
            "revenue",
            "revenue",
            "amount",
            "value",
            195929.0,
            "$195,929 million",
            vec![op("revenue", "FY2021", "195929", "millions", 36, "Total revenue")],
        );
        c.asked_as = Some("revenue".into());
        for q in [
            "What was Costco's membership fee revenue in FY2021 in USD millions?",
            "What was Amazon's revenue from its Whole Foods stores in 2019 in USD millions?",
            "What was Block's bitcoin revenue in 2020 in USD millions?",
        ] {
            let got = get(&of_calculation(&c, q, false, true, &rules), "concept").clone();
            assert_eq!(got.passed, Some(false), "{q}: {got:?}");
            assert!(got.detail.contains("a part of revenue"), "{}", got.detail);
        }
        for q in [
            "What was Costco's total revenue in FY2021 in USD millions?",
            "What was Costcos' total revenue in FY2021 in USD millions?",
            "What is Acme revenue in FY2021?",
            "What is the return on common equity (revenue) of Acme?",
            "What is the FY2021 revenue for Costco? Revenue is defined as membership fee revenue plus net sales.",
            "Using the income statement, what is Costco's FY 2021 net revenue (in USD millions)?",
        ] {
            let got = get(&of_calculation(&c, q, false, true, &rules), "concept").clone();
            assert_ne!(got.passed, Some(false), "{q}: {got:?}");
        }
    }

    #[test]
    fn a_total_with_the_noncontrolling_share_is_not_the_amount_attributable() {
        let rules = rules();
        let mut ni = op("net income", "FY2018", "5363", "millions", 60, "Net income including noncontrolling interest");
        ni.read.label_match = "exact".into();
        let c = calc("net income", "net_income", "amount", "value", 5363.0, "$5,363 million", vec![ni.clone()]);
        let asked = "What is 3M's FY2018 net income attributable to shareholders (in USD millions)?";
        let got = get(&of_calculation(&c, asked, false, true, &rules), "concept").clone();
        assert_eq!(got.passed, Some(false), "{got:?}");
        assert!(got.detail.contains("includes the noncontrolling interests' share"), "{}", got.detail);
        // asked for net income alone, the consolidated total is a reading of it
        let got = get(&of_calculation(&c, "What is 3M's FY2018 net income (in USD millions)?", false, true, &rules), "concept").clone();
        assert_eq!(got.passed, Some(true), "{got:?}");
        // the row attributable to the company passes
        ni.read.row = "Net income attributable to 3M".into();
        let c = calc("net income", "net_income", "amount", "value", 5349.0, "$5,349 million", vec![ni]);
        assert_eq!(get(&of_calculation(&c, asked, false, true, &rules), "concept").passed, Some(true));
    }

    #[test]
    fn two_readings_that_disagree_fail_and_show_both() {
        let mut r = op("revenue", "FY2018", "32765", "millions", 60, "Net sales");
        r.read.readings = vec![Reading {
            page: PageRef::new("ACME_2022_10K", 75),
            row: "Total net sales".into(),
            value: "22221".into(),
            unit: "millions".into(),
            agrees: false,
        }];
        let c = calc("revenue", "revenue", "amount", "one", 3.2765e10, "$32,765 million", vec![r.clone()]);
        let k = readings(&c);
        assert_eq!(k.passed, Some(false));
        assert!(k.detail.contains("32,765") && k.detail.contains("22,221") && k.detail.contains("ACME_2022_10K#75"), "{}", k.detail);
        r.read.readings[0].value = "32765".into();
        r.read.readings[0].agrees = true;
        assert_eq!(readings(&calc("revenue", "revenue", "amount", "one", 1.0, "$1", vec![r])).passed, Some(true));
        assert_eq!(
            readings(&calc("revenue", "revenue", "amount", "one", 1.0, "$1", vec![op("revenue", "FY2018", "1", "millions", 1, "Net sales")])).passed,
            None
        );
    }

    #[test]
    fn two_years_asked_one_answered_is_not_whole() {
        let c = calc(
            "total assets",
            "total_assets",
            "amount",
            "one",
            11726.0,
            "$11,726 million",
            vec![op("total assets", "FY2015", "11726", "millions", 59, "Total assets")],
        );
        assert_eq!(years_asked(&c, "Adobe total assets end of 2015 vs 2014").passed, Some(false));
        assert_eq!(years_asked(&c, "Adobe total assets at the end of 2015").passed, Some(true));
    }

    #[test]
    fn the_expense_is_not_what_was_paid() {
        let mut c = calc(
            "income tax expense",
            "income_tax",
            "amount",
            "one",
            1637.0,
            "$1,637 million",
            vec![op("income tax expense", "FY2019", "1637", "millions", 56, "Provision for income taxes")],
        );
        let r = concept(&c, "How much cash did 3M pay for income taxes in FY2019?", &rules());
        assert_eq!(r.passed, Some(false), "{}", r.detail);
        assert!(r.detail.contains("not a payment"), "{}", r.detail);
        c.operands[0].read.row = "Cash paid for income taxes, net of refunds".into();
        assert_ne!(concept(&c, "How much cash did 3M pay for income taxes in FY2019?", &rules()).passed, Some(false));
    }

    #[test]
    fn a_metric_of_several_definitions_asked_without_its_formula_is_not_green() {
        let mut c = calc("return on equity", "roe", "ratio", "one", 0.129, "0.129", vec![op("net income", "FY2017", "3033", "millions", 38, "Net income")]);
        c.formula = "net income FY2017 ÷ average shareholders equity FY2016–FY2017".into();
        let d = definition(&c, &rules());
        assert_eq!(d.passed, Some(false));
        assert!(d.detail.contains("average or year-end") && d.detail.contains("average shareholders equity"), "{}", d.detail);
        c.defined = true;
        assert_eq!(definition(&c, &rules()).passed, Some(true));
        c.measure = Some("current_ratio".into());
        c.defined = false;
        assert_eq!(definition(&c, &rules()).passed, Some(true));
        // total debt is summed in more than one way, but the filing's own "Total debt" row is
        // the filing's definition
        let mut t = calc(
            "total debt",
            "total_debt",
            "amount",
            "one",
            150868.0,
            "$150,868 million",
            vec![op("total debt as printed", "FY2021", "150868", "millions", 76, "Total debt")],
        );
        assert_eq!(definition(&t, &rules()).passed, Some(false));
        t.as_printed = true;
        let d = definition(&t, &rules());
        assert_eq!(d.passed, Some(true));
        assert!(d.detail.contains("prints total debt itself"), "{}", d.detail);
    }

    #[test]
    fn a_percent_asked_and_an_amount_given_fails_the_type_check() {
        let c = calc("cost of sales", "cogs", "amount", "one", 1e9, "$1,000 million", vec![op("cogs", "FY2022", "1000", "millions", 40, "Cost of sales")]);
        let t = value_type(&c, "What is the FY2022 cost of sales as a percent of revenue?", true, false);
        assert_eq!(t.passed, Some(false));
        assert!(!another_reading_may_help(&[t]));
    }

    /// "How much did Walmart's total revenues grow in fiscal 2018?" answered with FY2018's
    /// revenue was green (a new user's question): a change needs two periods' figures.
    #[test]
    fn a_change_asked_and_one_periods_figure_given_fails_the_type_check() {
        let q = "How much did Walmart's total revenues grow in fiscal 2018?";
        let c = calc(
            "revenue",
            "revenue",
            "amount",
            "one",
            500343e6,
            "$500,343 million",
            vec![op("revenue", "FY2018", "500343", "millions", 57, "Total revenues")],
        );
        let t = value_type(&c, q, false, false);
        assert_eq!(t.passed, Some(false), "{}", t.detail);
        let two =
            vec![op("revenue", "FY2017", "485873", "millions", 57, "Total revenues"), op("revenue", "FY2018", "500343", "millions", 57, "Total revenues")];
        let d = calc("revenue", "revenue", "amount", "difference", 14470e6, "$14,470 million", two);
        assert_eq!(value_type(&d, q, false, false).passed, Some(true));
        assert_eq!(value_type(&c, "What were Walmart's total revenues in fiscal 2018?", false, false).passed, Some(true));
    }

    /// A figure of the whole company asked of a part of it ("How much revenue did MGM China
    /// generate in 2018?" was answered green with MGM Resorts' revenue: new plain questions).
    #[test]
    fn a_part_of_the_company_named_is_no_question_about_the_company() {
        let mgm = ["mgmresortsinternational".to_string(), "mgm".to_string()];
        let part = |q: &str, filer: &[String]| part_named(q, filer, Some("revenue"));
        assert_eq!(part("How much revenue did MGM China generate in 2018?", &mgm).as_deref(), Some("MGM China"));
        assert_eq!(part("What was MGM China's revenue in 2018?", &mgm).as_deref(), Some("MGM China"));
        for q in [
            "What was MGM Resorts' total revenue in 2018?",
            "How much revenue did MGM Resorts International generate in 2018?",
            "Did MGM's revenue grow in FY2018?",
            "As of December 31, 2018, what was MGM's revenue?",
            "What Was MGM Revenue In 2018?",
        ] {
            assert_eq!(part(q, &mgm), None, "{q}");
        }
        let walmart = ["walmartinc".to_string(), "walmart".to_string(), "wmt".to_string()];
        assert_eq!(part("What were Walmart International's net sales in fiscal 2018?", &walmart).as_deref(), Some("Walmart International"));
        assert_eq!(part("What were Walmart U.S. net sales in fiscal 2018?", &walmart).as_deref(), Some("Walmart U.S"));
        let coke = ["thecocacolacompany".to_string(), "cocacola".to_string()];
        assert_eq!(part("What was The Coca-Cola Company's net income in 2017?", &coke), None);
        let jnj = ["johnsonjohnson".to_string()];
        assert_eq!(part("What is Johnson & Johnson's FY2022 revenue?", &jnj), None);
        // a filer not known: nothing is said
        assert_eq!(part("How much revenue did MGM China generate in 2018?", &[]), None);
        assert_eq!(of_part("MGM China", "revenue").passed, Some(false));
        // the names a part's figure is looked up by
        assert_eq!(members_asked("How much revenue did MGM China generate in 2018?", &mgm, Some("revenue")), ["MGM China", "China"]);
        let adobe = ["adobeinc".to_string(), "adobe".to_string()];
        assert_eq!(members_asked("What was Adobe's Digital Media segment revenue in fiscal 2022?", &adobe, Some("revenue")), ["Digital Media"]);
        assert!(members_asked("What was Adobe's revenue in fiscal 2022?", &adobe, Some("revenue")).is_empty());
        assert!(members_asked("As of December 31, 2022, what was Adobe's Total Revenue?", &adobe, Some("total revenue")).is_empty());
        assert!(!another_reading_may_help(&[of_part("MGM China", "revenue")]));
        // a product or region the revenue comes from (plain set 12: Pfizer's total revenue was
        // green for "revenue from Comirnaty")
        let pfizer = ["pfizerinc".to_string(), "pfizer".to_string()];
        assert_eq!(part("How much revenue did Pfizer get from Comirnaty in 2021?", &pfizer).as_deref(), Some("Comirnaty"));
        assert_eq!(members_asked("How much revenue did Pfizer get from Comirnaty in 2021?", &pfizer, Some("revenue")), ["Comirnaty"]);
        assert_eq!(part("What were Pfizer's revenues from the Americas in 2021?", &pfizer).as_deref(), Some("Americas"));
        for q in [
            "How much did Pfizer's revenue grow from 2020 to 2021?",
            "How much revenue did Pfizer get from its customers in 2021?",
            "What was Pfizer's revenue in the quarter from April to June 2023?",
            "What was Pfizer's revenue from Q1 2023 to Q2 2023?",
        ] {
            assert_eq!(part(q, &pfizer), None, "{q}");
        }
    }

    #[test]
    fn a_library_file_adds_and_replaces_rules_and_a_bad_one_is_refused() {
        // (the rules live in figures/rules.rs; their loading is tested here beside their use)
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("checks.json");
        std::fs::write(&p, r#"{"ranges": {"gross_margin": {"min": 0.0, "max": 0.9, "says": "house rule"}}, "compound_heads": ["backlog"]}"#).unwrap();
        let r = Rules::with_user_file(&p).unwrap();
        assert_eq!(r.ranges["gross_margin"].max, 0.9);
        assert!(r.ranges.contains_key("current_ratio") && r.compound_heads.iter().any(|h| h == "backlog") && r.compound_heads.iter().any(|h| h == "dividends"));
        std::fs::write(&p, r#"{"ranges": {"x": {"min": 2.0, "max": 1.0, "says": ""}}}"#).unwrap();
        assert!(Rules::with_user_file(&p).unwrap_err().to_string().contains("min 2 above max 1"));
        std::fs::write(&p, "{").unwrap();
        assert!(Rules::with_user_file(&p).is_err());
    }
}
