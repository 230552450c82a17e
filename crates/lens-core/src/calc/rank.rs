//! Rankings: "Which segment had the highest net income?", "What was the largest liability?" —
//! the largest or smallest row of a table column, read from the retrieved pages' tables. The
//! column is the period asked (else the table's first); the rows are those a total names
//! ("Total liabilities" sums the liabilities) or, without one, every row that is not a total.
//! The winner and the runner-up are the operands, each boxed; a table of one row says so.

use super::ranked::{adds_up, holds, is_total, listed_calculation, months_asked, ranked_calculation, scale_word, stem, with_lookups};
use super::Context;
use super::{Calculation, Operand};
use crate::figures::table::{Cell, Row, Table};
use crate::pageref::PageRef;
use crate::question::{Extreme, Question};

/// A table to rank: (score, sure (a total names what is ranked), page, table index, column, the
/// prior year's column when ranking by change, rows).
type Choice = (f64, bool, PageRef, usize, usize, Option<usize>, Vec<Row>);

/// The rows a "total <words>" row sums: those since the previous total. A total the table does
/// not print a label for (named from its section's heading) names nothing a ranking asks for.
fn section<'a>(t: &'a Table, words: &[String]) -> Option<Vec<&'a Row>> {
    let at = t.rows.iter().position(|r| {
        let l = r.label.to_lowercase();
        !r.named_from_section && l.starts_with("total") && words.iter().any(|w| w.len() > 3 && l.contains(&stem(w)))
    })?;
    let start = t.rows[..at].iter().rposition(|r| is_total(&r.label)).map_or(0, |i| i + 1);
    Some(t.rows[start..at].iter().filter(|r| !is_total(&r.label)).collect())
}

/// Words of a table's title or total row that make its rows part of something narrower than a
/// ranking asks about ("biggest expense" answered from a table of restructuring charges by
/// segment, or of research and development by segment, or of non-operating items).
const NARROWING: [&str; 16] = [
    "restructuring",
    "research and development",
    "amortization",
    "impairment",
    "acquisition",
    "integration",
    "litigation",
    "severance",
    "lease",
    "stock-based",
    "share-based",
    "pension",
    "income tax",
    "non-operating",
    "nonoperating",
    "other (income)",
];

/// The narrowing word ([`NARROWING`]) of `t`'s title or total rows that the question `q`
/// (lower case) does not say, if any; or a word of the total naming what is ranked (`measure`)
/// beyond the measure itself ("Total selling and administrative expense" for "the biggest
/// expense": a part of the expenses).
fn narrowed(t: &Table, q: &str, measure: &[String]) -> Option<String> {
    let title = t.title.to_lowercase();
    let totals: Vec<String> = t.rows.iter().filter(|r| is_total(&r.label)).map(|r| r.label.to_lowercase()).collect();
    if let Some(w) = NARROWING.into_iter().find(|w| !q.contains(w) && (title.contains(w) || totals.iter().any(|l| l.contains(w)))) {
        return Some(w.to_string());
    }
    const PLAIN: [&str; 10] = ["total", "and", "cost", "costs", "expense", "expenses", "operating", "net", "other", "of"];
    let named = totals.iter().find(|l| measure.iter().any(|m| m.len() > 3 && l.contains(&stem(m))))?;
    named
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !PLAIN.contains(w) && !measure.iter().any(|m| stem(m) == stem(w)) && !q.contains(*w))
        .map(str::to_string)
        .next()
}

/// Whether a table's title (lower case) says its rows are of the kind `kind` ("net sales by
/// segment", "revenues by geographic area", "segment information"); a title that only mentions
/// the kind ("by product category, similar to the reportable segment disclosure") does not.
fn by_kind(title: &str, kind: &str) -> bool {
    let words: Vec<&str> = title.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    words.iter().enumerate().any(|(i, w)| {
        let before = &words[i.saturating_sub(3)..i];
        w.starts_with(kind)
            && (before.contains(&"by")
                || i == 0
                || words.get(i + 1).is_some_and(|n| ["information", "results", "data", "reporting", "disclosures"].contains(n)))
            && !before.contains(&"similar")
    })
}

/// Whether `t` prints a row naming `measure` (a word of it, by stem), not one of `rows`, whose
/// figure in `col` is the sum of `rows`' (each rounded as printed: off by half a unit each).
fn sums_to_measure_row(t: &Table, rows: &[Row], col: usize, measure: &[String]) -> bool {
    let value = |r: &Row| r.cells.get(col).cloned().flatten().map(|c| c.value.to_f64());
    let Some(sum) = rows.iter().map(value).sum::<Option<f64>>() else { return false };
    t.rows.iter().any(|r| {
        let l = r.label.to_lowercase();
        !rows.iter().any(|m| m.label == r.label)
            && measure.iter().any(|m| m.len() > 3 && l.contains(&stem(m)))
            && value(r).is_some_and(|v| adds_up(v, sum, rows.len()))
    })
}

/// Whether ranking `measure` ("expense", "cost") leaves out a row of income (a statement's
/// "Operating revenues" above its expenses): costs are not ranked beside revenues.
fn other_side(measure: &[String], label: &str) -> bool {
    let l = label.to_lowercase();
    let costs = measure.iter().any(|m| ["expense", "expenses", "cost", "costs", "spending"].contains(&m.as_str()));
    if !costs || ["cost", "expense"].iter().any(|w| l.contains(w)) {
        return false;
    }
    // "Operating revenues", "Net sales", "Interest income", not "Sales and marketing"
    let words: Vec<&str> = l.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let first = words.iter().position(|w| !["net", "total", "operating", "other", "interest"].contains(w));
    let head = first.and_then(|i| words.get(i)).copied().unwrap_or("");
    ["revenue", "revenues", "sales", "income", "gain", "gains"].contains(&head) && !words.contains(&"and")
}

/// A row of shares of something ("Percentage of total revenue", "% of sales") or of percents:
/// not an amount to rank beside amounts.
fn is_share_row(r: &Row) -> bool {
    let l = r.label.to_lowercase();
    l.starts_with("percentage")
        || l.starts_with("percent ")
        || l.starts_with("% ")
        || l.contains("as a percent")
        || l.contains("% of")
        || r.cells.iter().flatten().any(|c| c.text.trim_end().ends_with('%'))
}

/// The ranking a question asks for over `pages`, or a calculation naming why there is none.
pub fn rank(lib: &Context, q: &Question, pages: &[PageRef]) -> Option<Calculation> {
    let extreme = q.extreme?;
    let ranking = q.ranking.clone().unwrap_or_default();
    // the question's words of what to look in, less the companies it names
    let terms: Vec<String> = ranking.terms.iter().filter(|t| !q.companies.iter().any(|c| c.to_lowercase().contains(t.as_str()))).cloned().collect();
    let year = q.years.iter().max().copied();
    let (measure, by_change, kinds) = (&ranking.by, ranking.change, &ranking.kinds);
    let months = months_asked(q);
    // the pages read, then the filings' pages BM25 finds for what is ranked (a ranking's table
    // is often not among the three pages read)
    let mut words = terms.clone();
    words.extend(measure.iter().filter(|m| !terms.contains(m)).cloned());
    let mut queries = vec![words.join(" ")];
    // and the note measuring the kind of member asked ("segment"): its table is often titled by
    // the kind and the measures, not by the question's words
    if !kinds.is_empty() {
        let mut words = kinds.clone();
        words.extend(super::members::measure_words(lib.metrics, q.measure.as_deref(), measure));
        queries.push(words.join(" "));
    }
    let candidates = with_lookups(lib, pages, &queries, 8);
    let asks_which = q.text.to_lowercase().contains("which");
    let mut best: Option<Choice> = None;
    let mut best_groups: Option<(f64, Groups)> = None;
    let mut one_row = None;
    for (rank, p) in candidates.iter().enumerate() {
        let text = lib.store().page(&p.doc_id, p.page).map(|pg| pg.text.to_lowercase()).unwrap_or_default();
        // the page's tables that print the period once per member (segments over their columns)
        if let Some(g) = groups_on(p, &lib.page_tables(p), measure, year, months, by_change) {
            let page_penalty = if rank < pages.len() { 0.2 * rank as f64 } else { 0.6 + 0.05 * (rank - pages.len()) as f64 };
            // the kind of member asked for ("which segment") named on the page or in the table's
            // title: the groups are those members
            let kind_named = kinds.iter().any(|k| text.contains(k.as_str()) || g.title.to_lowercase().contains(k.as_str()));
            let score = 0.5 * holds(&text, &terms) as f64
                + 2.0
                + if kind_named {
                    2.0
                } else if asks_which {
                    0.5
                } else {
                    0.0
                }
                + if g.total { 1.0 } else { 0.0 }
                + 0.1 * (g.members.len().min(10) as f64)
                - page_penalty;
            if best_groups.as_ref().is_none_or(|b| score > b.0) {
                best_groups = Some((score, g));
            }
        }
        for (ti, t) in lib.page_tables(p).iter().enumerate() {
            let col = match year {
                Some(y) => {
                    let of_year: Vec<usize> = t.columns.iter().enumerate().filter(|(_, c)| c.year == y).map(|(i, _)| i).collect();
                    let fit =
                        of_year.iter().copied().find(|i| t.columns[*i].months == months || months.is_none() && t.columns[*i].months.is_none_or(|m| m == 12));
                    match fit.or(of_year.first().copied()) {
                        Some(c) => c,
                        None => continue,
                    }
                }
                None => 0,
            };
            // ranked by change: the same period a year before
            let prior = t.columns.iter().position(|c| c.year == t.columns[col].year - 1 && c.months == t.columns[col].months && c.part == t.columns[col].part);
            if by_change && prior.is_none() {
                continue;
            }
            let named = section(t, &terms);
            let named_total = named.is_some();
            let rows: Vec<&Row> = match named {
                Some(r) => r,
                None => t.rows.iter().filter(|r| !is_total(&r.label)).collect(),
            };
            // a row is a short label with a figure in the column: prose the table reader took in
            // ("... which range from 3 10") is not a row to rank
            let rows: Vec<Row> = rows
                .into_iter()
                .filter(|r| r.cells.get(col).is_some_and(Option::is_some) && !r.label.trim().is_empty() && r.label.split_whitespace().count() <= 10)
                .filter(|r| !is_share_row(r) && !other_side(measure, &r.label))
                .filter(|r| !by_change || prior.and_then(|c| r.cells.get(c)).is_some_and(|c| c.as_ref().is_some_and(|c| c.value.to_f64() != 0.0)))
                // a footnote the reader took in ("(2)Three months ended December 31, $5")
                .filter(|r| {
                    !(r.label.starts_with('(')
                        && r.label[1..].starts_with(|c: char| c.is_ascii_digit() || c.is_ascii_lowercase())
                        && r.label.len() > 4
                        && r.label[..4].contains(')'))
                })
                .cloned()
                .collect();
            // a row that names the measure itself ("Reportable segment Adjusted Property EBITDAR"
            // among the regions' EBITDAR) is their sum, not one of them
            let parts: Vec<Row> = rows.iter().filter(|r| !measure.iter().any(|m| r.label.to_lowercase().contains(m.as_str()))).cloned().collect();
            // two or more rows naming the measure: a reconciliation printing it beside other line
            // items (MGM's "Las Vegas Strip Resorts net revenues ... Adjusted Property EBITDAR"),
            // whose other rows are not what is ranked
            let mixed = rows.len() - parts.len() >= 2;
            let rows = if parts.len() >= 2 { parts } else { rows };
            if rows.len() < 2 {
                if rows.len() == 1 {
                    one_row = Some(p.clone());
                }
                continue;
            }
            // a period printed in several column groups (worldwide, U.S., international) the
            // reader cannot name: which group a cell is in is unknown
            let grouped =
                t.columns.iter().enumerate().any(|(i, a)| t.columns[..i].iter().any(|b| b.year == a.year && b.months == a.months && b.part == a.part));
            if grouped {
                continue;
            }
            // what the question names, on the page and in the rows' labels
            let labels = rows.iter().map(|r| r.label.to_lowercase()).collect::<Vec<_>>().join(" ");
            let on_page = holds(&text, &terms) as f64;
            let in_rows = holds(&labels, &terms) as f64;
            // what is ranked, named in the table's title ("SUPPLEMENTAL DATA – ADJUSTED PROPERTY
            // EBITDAR" for "the highest EBITDAR")
            let title = t.title.to_lowercase();
            let in_title = if measure.is_empty() { 0.0 } else { holds(&title, measure) as f64 / measure.len() as f64 };
            // sure only when a total row names what is ranked ("Total liabilities" for "the
            // largest liability"): the rows are then its parts
            // ... and the question names no other kind of row ("which of JPM's segments": the parts
            // of "Total net revenue" are revenue lines, not segments)
            let measure_total = section(t, measure).is_some();
            // a table naming what is ranked nowhere (title, rows, a total) ranks something else
            let measure_unnamed = !measure.is_empty() && in_title == 0.0 && holds(&labels, measure) == 0 && !measure_total;
            // the kind of row asked for ("which region": "Regional Operations")
            let kind_rows = kinds.iter().any(|k| labels.contains(k.as_str()) || title.contains(k.as_str()));
            // "the lowest quarterly revenue" ranks quarters (columns), not the rows of a table
            let over_quarters = q.quarters.is_empty() && q.text.to_lowercase().contains("quarter");
            // ... or, "which" asked, the rows add up to a row naming the measure ("Revenues" under
            // Pfizer's regions) in a table whose title says it is by the kind asked ("revenues by
            // geographic area"): the rows are the measure's members of that kind
            let summed = asks_which && kinds.iter().any(|k| by_kind(&title, k)) && sums_to_measure_row(t, &rows, col, measure);
            let total_of_measure = (measure_total && !asks_which || summed) && !over_quarters && narrowed(t, &q.text.to_lowercase(), measure).is_none();
            let score = 0.5 * on_page
                + in_rows
                + if named_total { 1.0 } else { 0.0 }
                + if measure_total { 2.0 } else { 0.0 }
                + 2.0 * in_title
                - if measure_unnamed { 1.0 } else { 0.0 }
                - if mixed { 1.0 } else { 0.0 }
                + if kind_rows { 0.5 } else { 0.0 }
                + 0.1 * (rows.len().min(10) as f64)
                // the pages read first, in their order; then the pages found for the ranking
                - if rank < pages.len() { 0.2 * rank as f64 } else { 0.6 + 0.05 * (rank - pages.len()) as f64 };
            if best.as_ref().is_none_or(|b| score > b.0) {
                best = Some((score, total_of_measure, p.clone(), ti, col, prior, rows));
            }
        }
    }
    let what = match extreme {
        Extreme::Largest => "largest",
        Extreme::Smallest => "smallest",
    };
    let metric = format!("{what} row: {}", terms.join(" "));
    // a table whose own heads name the measure (a column group or a heading over the members'
    // rows), ranked by it or by a measure computed per member from two of them
    if let Some(m) = super::members::rank(lib, q, &candidates, pages.len(), months) {
        if best.as_ref().is_none_or(|b| m.score > b.0) && best_groups.as_ref().is_none_or(|g| m.score > g.0) {
            return Some(m.calculation);
        }
    }
    if let Some((score, g)) = best_groups {
        if best.as_ref().is_none_or(|b| score > b.0) {
            return Some(rank_groups(g, extreme, what, metric));
        }
    }
    let Some((_, sure, page, ti, col, prior, rows)) = best else {
        let why = match one_row {
            Some(p) => format!("the table on {p} has one row: there is nothing to rank"),
            None => "no table on the pages read has rows to rank for the period asked".to_string(),
        };
        return Some(Calculation::problem(metric, why));
    };
    let t = &lib.page_tables(&page)[ti];
    let header = &t.columns[col].header;
    let unit = scale_word;
    let operand = |r: &Row, c: &Cell, period: &str| Operand {
        name: r.label.clone(),
        period: period.to_string(),
        value: c.value.to_string(),
        unit: t.unit.clone(),
        page: page.clone(),
        quote: format!("{} {}", r.label, c.text),
        boxes: vec![r.label_rect.clone(), c.rect.clone()],
        read: crate::calc::OperandRead { row: r.label.clone(), column: period.to_string(), table: t.title.clone(), ..Default::default() },
    };
    // (row, the cell ranked, the prior year's cell, the figure ranked by)
    let mut ranked: Vec<(&Row, &Cell, Option<&Cell>, f64)> = rows
        .iter()
        .filter_map(|r| {
            let c = r.cells[col].as_ref()?;
            match prior {
                Some(pc) if by_change => {
                    let p = r.cells[pc].as_ref()?;
                    let base = p.value.to_f64();
                    Some((r, c, Some(p), (c.value.to_f64() - base) / base.abs()))
                }
                _ => Some((r, c, None, c.value.to_f64())),
            }
        })
        .collect();
    // costs a statement prints in parentheses ("Cost of products (53,969)") rank by their size
    if !by_change && ranked.iter().all(|r| r.3 <= 0.0) {
        for r in &mut ranked {
            r.3 = r.3.abs();
        }
    }
    ranked.sort_by(|a, b| a.3.partial_cmp(&b.3).unwrap_or(std::cmp::Ordering::Equal));
    if extreme == Extreme::Largest {
        ranked.reverse();
    }
    let prior_header = prior.map(|c| t.columns[c].header.clone()).unwrap_or_default();
    let mut operands: Vec<Operand> = Vec::new();
    for (r, c, p, _) in ranked.iter().take(2) {
        operands.push(operand(r, c, header));
        if let Some(p) = p {
            operands.push(operand(r, p, &prior_header));
        }
    }
    let said = |r: &Row, c: &Cell, p: Option<&Cell>, v: f64| match p {
        Some(_) => format!("{} ({:+.1}%)", r.label, v * 100.0),
        None => format!("{} ({}{})", r.label, c_text(c), unit(&t.unit)),
    };
    let (win, cell, win_prior, win_v) = ranked[0];
    let result = said(win, cell, win_prior, win_v);
    let runner = ranked.get(1).map(|(r, c, p, v)| format!("; runner-up {}", said(r, c, *p, *v))).unwrap_or_default();
    let formula = match win_prior {
        Some(p) => format!(
            "the {what} change from \"{prior_header}\" to \"{header}\" of {} rows on {page} ({}: {} to {}{})",
            ranked.len(),
            win.label,
            c_text(p),
            c_text(cell),
            unit(&t.unit)
        ),
        _ => format!("the {what} of {} rows in the column \"{header}\" on {page}", ranked.len()),
    };
    Some(ranked_calculation(metric, formula, operands, format!("{result}{runner}"), result, win.label.clone(), sure))
}

/// One member's figure in a table that prints the period once per member.
struct Member {
    /// The member as its column group's head names it.
    name: String,
    /// The row naming the measure.
    row: Row,
    /// The cell of the period asked, and its column's header.
    cell: Cell,
    header: String,
    /// The prior year's cell when ranked by change, and its column's header.
    prior: Option<Cell>,
    prior_header: String,
    /// Whether the column is of the period length asked.
    fits: bool,
}

/// The members of a page's column groups ranked by one row ("Total net revenue" under
/// "Consumer & Community Banking", "Corporate & Investment Bank", ... "Corporate").
struct Groups {
    page: PageRef,
    unit: String,
    title: String,
    /// Whether a group is the members' total ("Total", "Consolidated"): the others are then its parts.
    total: bool,
    members: Vec<Member>,
}

/// Whether a column group's head names the members' total, not a member.
fn is_total_group(head: &str) -> bool {
    let l = head.to_lowercase();
    l.starts_with("total") || l.contains("consolidated") || l.contains("elimination") || l.contains("reconcil")
}

/// The row of `t` that names the measure ranked: every word of it in the label (by stem), the
/// shortest such label (the measure itself, not a line item naming it among other words).
fn measure_row<'a>(t: &'a Table, measure: &[String]) -> Option<&'a Row> {
    if measure.is_empty() {
        return None;
    }
    t.rows
        .iter()
        .filter(|r| !is_share_row(r) && holds(&r.label.to_lowercase(), measure) == measure.len())
        .min_by_key(|r| r.label.split_whitespace().filter(|w| !["total", "net"].contains(&w.to_lowercase().as_str())).count())
}

/// The members a page's tables print as column groups, each with its figure in the row naming
/// the measure, for the year (and period length) asked: tables of the page whose every column has
/// a group head are read together (a page printing three segments, then two and the total).
fn groups_on(p: &PageRef, tables: &[Table], measure: &[String], year: Option<i32>, months: Option<u8>, by_change: bool) -> Option<Groups> {
    let mut members: Vec<Member> = Vec::new();
    let mut total = false;
    let (mut unit, mut title) = (String::new(), String::new());
    for t in tables.iter().filter(|t| t.columns.len() >= 2 && t.columns.iter().all(|c| c.group.is_some())) {
        let Some(row) = measure_row(t, measure) else { continue };
        let mut heads: Vec<&str> = Vec::new();
        for c in &t.columns {
            let h = c.group.as_deref().unwrap_or("");
            if !heads.contains(&h) {
                heads.push(h);
            }
        }
        for h in heads {
            if is_total_group(h) {
                total = true;
                continue;
            }
            let in_group: Vec<usize> = (0..t.columns.len()).filter(|i| t.columns[*i].group.as_deref() == Some(h)).collect();
            let y = year.unwrap_or_else(|| in_group.iter().map(|i| t.columns[*i].year).max().unwrap_or(0));
            let of_year: Vec<usize> = in_group.iter().copied().filter(|i| t.columns[*i].year == y).collect();
            let Some(col) = of_year.iter().copied().find(|i| t.columns[*i].months == months).or(of_year.first().copied()) else { continue };
            let Some(cell) = row.cells.get(col).cloned().flatten() else { continue };
            let prior = by_change
                .then(|| {
                    in_group
                        .iter()
                        .copied()
                        .find(|i| t.columns[*i].year == y - 1 && t.columns[*i].months == t.columns[col].months && t.columns[*i].part == t.columns[col].part)
                })
                .flatten()
                .and_then(|i| row.cells.get(i).cloned().flatten());
            if by_change && prior.as_ref().is_none_or(|c| c.value.to_f64() == 0.0) {
                continue;
            }
            let prior_header = prior.as_ref().map(|_| (y - 1).to_string()).unwrap_or_default();
            // a member printed again for another period length (a six months' table under the
            // three months') keeps the column of the length asked
            let fits = t.columns[col].months == months;
            let m = Member { name: h.to_string(), row: row.clone(), cell, header: t.columns[col].header.clone(), prior, prior_header, fits };
            match members.iter().position(|m| m.name == h) {
                Some(i) if fits && !members[i].fits => members[i] = m,
                Some(_) => {}
                None => members.push(m),
            }
        }
        if unit.is_empty() {
            unit = t.unit.clone();
            title = t.title.clone();
        }
    }
    (members.len() >= 2).then(|| Groups { page: p.clone(), unit, title, total, members })
}

/// The ranking of column groups' members ([`groups_on`]) as a calculation: the winner and the
/// runner-up as operands, each boxed in the row that names the measure.
fn rank_groups(g: Groups, extreme: Extreme, what: &str, metric: String) -> Calculation {
    let unit = scale_word(&g.unit);
    let by = |m: &Member| match &m.prior {
        Some(p) => (m.cell.value.to_f64() - p.value.to_f64()) / p.value.to_f64().abs(),
        None => m.cell.value.to_f64(),
    };
    let mut ranked: Vec<(&Member, f64)> = g.members.iter().map(|m| (m, by(m))).collect();
    ranked.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
    if extreme == Extreme::Largest {
        ranked.reverse();
    }
    let operand = |m: &Member, c: &Cell, period: &str| Operand {
        name: format!("{}: {}", m.name, m.row.label),
        period: period.to_string(),
        value: c.value.to_string(),
        unit: g.unit.clone(),
        page: g.page.clone(),
        quote: format!("{} {}", m.row.label, c.text),
        boxes: vec![m.row.label_rect.clone(), c.rect.clone()],
        read: crate::calc::OperandRead { row: m.row.label.clone(), column: format!("{} {}", m.name, period), table: g.title.clone(), ..Default::default() },
    };
    let mut operands = Vec::new();
    for (m, _) in ranked.iter().take(2) {
        operands.push(operand(m, &m.cell, &m.header));
        if let Some(p) = &m.prior {
            operands.push(operand(m, p, &m.prior_header));
        }
    }
    let said = |m: &Member, v: f64| match m.prior {
        Some(_) => format!("{} ({:+.1}%)", m.name, v * 100.0),
        None => format!("{} ({}{})", m.name, signed(&c_text(&m.cell)), unit),
    };
    let (win, win_v) = ranked[0];
    let result = said(win, win_v);
    let runner = ranked.get(1).map(|(m, v)| format!("; runner-up {}", said(m, *v))).unwrap_or_default();
    let formula = format!(
        "the {what} \"{}\" of {} column groups ({}) in the column \"{}\" on {}",
        win.row.label,
        ranked.len(),
        ranked.iter().map(|(m, _)| m.name.as_str()).collect::<Vec<_>>().join(", "),
        win.header,
        g.page
    );
    // sure only when the table prints the members' total beside them: they are its parts
    ranked_calculation(metric, formula, operands, format!("{result}{runner}"), result, win.name.clone(), g.total)
}

/// A figure of each member asked ("net revenue by segment", [`Question::per_member`]) where the
/// members are column groups (a bank's segments, each over its own columns): each member's
/// figure in the row naming the measure, for the period asked, boxed. `None` when no page read,
/// nor one its filing's BM25 finds for the kind and the measure, prints such groups.
pub fn list_groups(lib: &Context, q: &Question, pages: &[PageRef]) -> Option<Calculation> {
    let kind = q.per_member()?;
    let measure: Vec<String> = q.measure_name.as_deref().unwrap_or("").split_whitespace().filter(|w| w.len() > 2).map(str::to_lowercase).collect();
    if measure.is_empty() {
        return None;
    }
    let year = q.years.iter().max().copied();
    let months = months_asked(q);
    let candidates = with_lookups(lib, pages, &[format!("{kind} {}", measure.join(" "))], 8);
    let mut best: Option<(f64, bool, Groups)> = None;
    for (rank, p) in candidates.iter().enumerate() {
        let Some(g) = groups_on(p, &lib.page_tables(p), &measure, year, months, false) else { continue };
        let (text, heading) = lib.store().page(&p.doc_id, p.page).map(|pg| (pg.text.to_lowercase(), pg.heading.to_lowercase())).unwrap_or_default();
        let titled = g.title.to_lowercase().contains(kind) || heading.contains(kind);
        if !titled && !text.contains(kind) {
            continue;
        }
        let penalty = if rank < pages.len() { 0.2 * rank as f64 } else { 0.6 + 0.05 * (rank - pages.len()) as f64 };
        let score = if titled { 2.0 } else { 0.0 } + if g.total { 1.0 } else { 0.0 } + 0.1 * g.members.len().min(10) as f64 - penalty;
        if best.as_ref().is_none_or(|b| score > b.0) {
            best = Some((score, titled && g.total, g));
        }
    }
    let (_, sure, g) = best?;
    let unit = scale_word(&g.unit);
    let said: Vec<String> = g.members.iter().map(|m| format!("{} {}{unit}", m.name, signed(&c_text(&m.cell)))).collect();
    let operands: Vec<Operand> = g
        .members
        .iter()
        .map(|m| Operand {
            name: format!("{}: {}", m.name, m.row.label),
            period: m.header.clone(),
            value: m.cell.value.to_string(),
            unit: g.unit.clone(),
            page: g.page.clone(),
            quote: format!("{} {}", m.row.label, m.cell.text),
            boxes: vec![m.row.label_rect.clone(), m.cell.rect.clone()],
            read: crate::calc::OperandRead {
                row: m.row.label.clone(),
                column: format!("{} {}", m.name, m.header),
                table: g.title.clone(),
                ..Default::default()
            },
        })
        .collect();
    let metric = format!("{} by {kind}", q.measure_name.clone().unwrap_or_default());
    let row = g.members.first().map(|m| m.row.label.clone()).unwrap_or_default();
    let formula = format!("\"{row}\" of each of {} column groups on {}", said.len(), g.page);
    Some(listed_calculation(metric, formula, operands, &said, months, sure))
}

/// A figure printed in parentheses as a negative number ("(473)" -> "-473").
fn signed(text: &str) -> String {
    match text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        Some(inner) => format!("-{inner}"),
        None => text.to_string(),
    }
}

/// A cell's figure as printed, without currency signs.
fn c_text(c: &Cell) -> String {
    c.text.trim_start_matches('$').trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_are_not_ranked_beside_revenues() {
        let m = vec!["expense".to_string()];
        assert!(other_side(&m, "Operating revenues") && other_side(&m, "Net sales") && other_side(&m, "Interest income"));
        assert!(!other_side(&m, "Sales and marketing") && !other_side(&m, "Cost of sales") && !other_side(&m, "Operation and maintenance"));
        assert!(!other_side(&["liability".to_string()], "Operating revenues"));
    }

    /// Pfizer's revenues by geographic area: four regions and "Revenues", their sum as printed
    /// (12,734 against 12,733 of the rounded parts).
    #[test]
    fn rows_that_add_up_to_a_row_naming_the_measure() {
        let cells: &[(&str, f32, f32)] = &[
            ("(millions)", 50.0, 780.0),
            ("2023", 300.0, 760.0),
            ("2022", 400.0, 760.0),
            ("United States", 50.0, 740.0),
            ("6,185", 300.0, 740.0),
            ("11,222", 400.0, 740.0),
            ("Developed Europe", 50.0, 730.0),
            ("2,415", 300.0, 730.0),
            ("5,480", 400.0, 730.0),
            ("Developed Rest of World", 50.0, 720.0),
            ("1,305", 300.0, 720.0),
            ("5,034", 400.0, 720.0),
            ("Emerging Markets", 50.0, 710.0),
            ("2,828", 300.0, 710.0),
            ("6,006", 400.0, 710.0),
            ("Revenues", 50.0, 700.0),
            ("12,734", 300.0, 700.0),
            ("27,742", 400.0, 700.0),
        ];
        let (text, boxes) = crate::figures::table::tests::page(cells);
        let t = crate::figures::table::tables(&text, &boxes).remove(0);
        let regions: Vec<Row> = t.rows.iter().filter(|r| r.label != "Revenues").cloned().collect();
        let revenue = ["revenues".to_string()];
        assert!(sums_to_measure_row(&t, &regions, 0, &revenue), "{:?}", t.rows);
        assert!(sums_to_measure_row(&t, &regions, 1, &revenue));
        // a row naming another measure, or parts that do not add up, make no total
        assert!(!sums_to_measure_row(&t, &regions, 0, &["income".to_string()]));
        assert!(!sums_to_measure_row(&t, &regions[..3], 0, &revenue));
        // the table is by the kind asked only when its title says so
        assert!(by_kind("b. geographic information the following summarizes revenues by geographic area:", "geograph"));
        assert!(by_kind("net sales by segment were (in millions):", "segment"));
        assert!(!by_kind("revenue by product category is as follows, similar to the reportable segment disclosure", "segment"));
        assert!(!by_kind("disaggregated revenue the following table summarizes net sales by merchandise category", "segment"));
    }
}
