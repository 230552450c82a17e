//! A table's members (its rows: segments, regions, product lines) measured by the table's own
//! heads: a column group's head over its years ("Net Sales | Operating Income", each over
//! "2018 2017 2016", one row per segment), or a heading over a run of rows ("Net sales", the
//! segments' rows, their total; then "Operating profit", the same segments). Rankings read them
//! to rank members by a printed measure ("which segment had the highest operating income") or
//! by one computed per member from two of them ("the highest operating margin": each
//! segment's operating income over its own net sales).

use super::ranked::{adds_up, holds, is_total, listed_calculation, months_asked, ranked_calculation, scale_word, with_lookups};
use super::{Calculation, Context, Operand, OperandRead};
use crate::facts::concept_of;
use crate::figures::catalogue::Catalogue;
use crate::figures::table::{Cell, Row, Table};
use crate::pageref::PageRef;
use crate::question::{Extreme, Question};

/// One measure printed for a table's members, for one period.
#[derive(Debug, Clone)]
pub struct Block {
    /// The head naming the measure, as printed ("Operating Income").
    pub name: String,
    /// The column of the period asked, and of the period a year before.
    pub col: usize,
    pub prior: Option<usize>,
    /// The members' rows (indices into the table's rows), totals and reconciling rows left out.
    pub rows: Vec<usize>,
    /// Whether the table prints the members' total (in the block's rows or the table's).
    pub total: bool,
}

/// Rows that reconcile the members to the total, not members themselves.
fn reconciling(label: &str) -> bool {
    let l = label.to_lowercase();
    ["unallocated", "elimination", "intersegment", "inter-segment", "reconcil", "adjustment", "consolidated"].iter().any(|w| l.contains(w))
        // ("Corporate and Unallocated", "Corporate and support"; a bank's "Corporate" segment is one)
        || l.starts_with("corporate") && l.trim() != "corporate"
        || l.starts_with("other")
        || l.starts_with("all other")
        || l.starts_with("less")
        || ["items", "charges", "costs"].iter().any(|w| l.ends_with(w))
}

/// A row that is a member: a short label with a figure in `col`, not a total, a rate, a
/// reconciling row or prose.
fn member_row(r: &Row, col: usize) -> bool {
    let l = r.label.trim();
    r.cells.get(col).is_some_and(Option::is_some)
        && !l.is_empty()
        && l.split_whitespace().count() <= 8
        && !is_total(l)
        && !reconciling(l)
        && !l.ends_with(':')
        && !r.cells.iter().flatten().any(|c| c.text.trim_end().ends_with('%'))
        // (a reconciling item's dash: "Certain significant items —")
        && r.cells.get(col).cloned().flatten().is_some_and(|c| !c.text.trim().trim_start_matches('$').trim().starts_with(['—', '–', '-']) || c.value.to_f64() != 0.0)
}

/// The column of `year` among `cols` (the period length asked first, else a year's), and the
/// column of the year before of the same length and part.
fn year_col(t: &Table, cols: &[usize], year: Option<i32>, months: Option<u8>) -> Option<(usize, Option<usize>)> {
    let y = year.unwrap_or_else(|| cols.iter().map(|i| t.columns[*i].year).max().unwrap_or(0));
    let of_year: Vec<usize> = cols.iter().copied().filter(|i| t.columns[*i].year == y).collect();
    let col = of_year
        .iter()
        .copied()
        .find(|i| t.columns[*i].months == months || months.is_none() && t.columns[*i].months.is_none_or(|m| m == 12))
        .or(of_year.first().copied())?;
    let c = &t.columns[col];
    let prior = cols.iter().copied().find(|i| t.columns[*i].year == y - 1 && t.columns[*i].months == c.months && t.columns[*i].part == c.part);
    Some((col, prior))
}

/// `rows` (indices into `t`'s rows) less a row whose figure in `col` is the sum of the rows
/// kept before it, two or more ("Segment earnings before tax" under J&J's segments' sales, and
/// "Worldwide income before tax" after it): a total the table does not label "Total". Also
/// whether such a row was found (the members add up to a printed figure).
fn without_sums(t: &Table, col: usize, rows: Vec<usize>) -> (Vec<usize>, bool) {
    let value = |i: usize| t.rows[i].cells.get(col).cloned().flatten().map(|c| c.value.to_f64());
    let (mut kept, mut sum, mut summed): (Vec<usize>, f64, bool) = (Vec::new(), 0.0, false);
    for i in rows {
        let Some(v) = value(i) else { continue };
        // (each member rounded as printed: the sum may be off by half a unit per member)
        if adds_up(v, sum, kept.len()) {
            summed = true;
            continue;
        }
        sum += v;
        kept.push(i);
    }
    (kept, summed)
}

/// The measures `t` prints for its members, for the period asked: one block per column group
/// when every column has a group head, else one per run of rows under a heading (ended by a
/// total, a new heading or the table's end). A block of fewer than two members is left out.
pub fn blocks(t: &Table, year: Option<i32>, months: Option<u8>) -> Vec<Block> {
    let mut out = Vec::new();
    if t.columns.len() >= 2 && t.columns.iter().all(|c| c.group.is_some()) {
        let mut heads: Vec<&str> = Vec::new();
        for c in &t.columns {
            let h = c.group.as_deref().unwrap_or("");
            if !heads.contains(&h) {
                heads.push(h);
            }
        }
        // (a table printing one head over every column has no groups to tell apart)
        if heads.len() < 2 {
            return out;
        }
        for h in heads {
            let cols: Vec<usize> = (0..t.columns.len()).filter(|i| t.columns[*i].group.as_deref() == Some(h)).collect();
            let Some((col, prior)) = year_col(t, &cols, year, months) else { continue };
            let (rows, summed) = without_sums(t, col, (0..t.rows.len()).filter(|i| member_row(&t.rows[*i], col)).collect());
            // a total printed: labelled so, or a row the members add up to
            let total = summed || t.rows.iter().any(|r| is_total(&r.label) && r.cells.get(col).is_some_and(Option::is_some));
            if rows.len() >= 2 {
                out.push(Block { name: h.to_string(), col, prior, rows, total });
            }
        }
        return out;
    }
    let all: Vec<usize> = (0..t.columns.len()).collect();
    let Some((col, prior)) = year_col(t, &all, year, months) else { return out };
    let mut i = 0;
    while i < t.rows.len() {
        let Some(head) = t.rows[i].section.clone() else {
            i += 1;
            continue;
        };
        let (mut rows, mut total) = (Vec::new(), false);
        while i < t.rows.len() && t.rows[i].section.as_deref() == Some(head.as_str()) {
            let r = &t.rows[i];
            i += 1;
            if is_total(&r.label) || r.named_from_section {
                total = true;
                break;
            }
            if member_row(r, col) {
                rows.push(i - 1);
            }
        }
        if rows.len() >= 2 && !head.to_lowercase().starts_with("total") {
            out.push(Block { name: head, col, prior, rows, total });
        }
    }
    out
}

/// A table whose row headings are its members, each heading the same measures' rows (Amazon's
/// segment note: "North America", "International", "AWS", "Consolidated", each over its "Net
/// sales", "Operating expenses" and "Operating income"), turned so that each measure heads its
/// members' rows and [`blocks`] reads it as any members' table: a row per member, labelled with
/// the member's heading ("Consolidated" or "Total ..." as the total), under the measure's label
/// as first printed. `None` for a table with fewer than two headings or no measure printed under
/// two of them ("Operating income (loss)" and "Operating income" are one measure).
pub fn transposed(t: &Table) -> Option<Table> {
    let key = |l: &str| super::outside_parentheses(l).split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    let mut sections: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, r) in t.rows.iter().enumerate() {
        let Some(h) = r.section.clone().filter(|_| !r.named_from_section) else { continue };
        match sections.last_mut() {
            Some((last, rows)) if *last == h => rows.push(i),
            _ => sections.push((h, vec![i])),
        }
    }
    if sections.len() < 2 {
        return None;
    }
    // headings that are periods ("Fiscal 2019", "Three months ended ...") or qualifiers of the
    // same figures ("Including Fuel", "Excluding Fuel") are not members
    let not_member = |h: &str| {
        let l = h.trim().to_lowercase();
        l.split(|c: char| !c.is_ascii_digit()).any(|d| d.len() == 4)
            || ["including", "excluding", "fiscal", "year", "three months", "six months", "nine months", "quarter", "as of", "as reported", "adjusted"]
                .iter()
                .any(|w| l.starts_with(w))
            || h.trim().starts_with(char::is_lowercase)
    };
    if sections.iter().any(|(h, _)| not_member(h)) {
        return None;
    }
    // the measures: labels printed under at least two headings, in the order first printed
    let mut measures: Vec<(String, String)> = Vec::new();
    for (_, rows) in &sections {
        for &ri in rows {
            let k = key(&t.rows[ri].label);
            let under = sections.iter().filter(|(_, rs)| rs.iter().any(|&r| key(&t.rows[r].label) == k)).count();
            if under >= 2 && !k.is_empty() && !measures.iter().any(|m| m.0 == k) {
                measures.push((k, t.rows[ri].label.clone()));
            }
        }
    }
    if measures.is_empty() {
        return None;
    }
    let mut rows = Vec::new();
    for (k, printed) in &measures {
        let mut members = Vec::new();
        let mut total = None;
        for (h, rs) in &sections {
            let Some(&ri) = rs.iter().find(|&&r| key(&t.rows[r].label) == *k) else { continue };
            let r = &t.rows[ri];
            let l = h.to_lowercase();
            let row = Row { label: h.clone(), section: Some(printed.clone()), named_from_section: false, ..r.clone() };
            if l.starts_with("consolidated") || l.starts_with("total") {
                total = Some(Row { label: format!("Total ({h})"), ..row });
            } else {
                members.push(row);
            }
        }
        rows.extend(members);
        rows.extend(total);
    }
    Some(Table { rows, ..t.clone() })
}

/// A page's tables as [`blocks`] may read them: each as printed, then turned when its row
/// headings are its members ([`transposed`]).
fn readings(tables: &[Table]) -> Vec<Table> {
    tables.iter().flat_map(|t| std::iter::once(t.clone()).chain(transposed(t))).collect()
}

/// A head naming shares of something ("Percentage of Revenues", "% of total"), not a measure.
fn is_share(name: &str) -> bool {
    let l = name.to_lowercase();
    l.starts_with("percent") || l.starts_with('%') || l.contains("% of") || l.contains("as a percent") || l.contains("change")
}

/// Whether a block's members are printed again in another block of the table (a members'
/// table prints the same segments under each measure): the rows of a block of row headings
/// alone may be line items ("Net revenue": principal transactions, lending fees ...).
fn recur(t: &Table, bs: &[Block], i: usize) -> bool {
    let labels = |b: &Block| b.rows.iter().map(|r| t.rows[*r].label.trim().to_lowercase()).collect::<Vec<_>>();
    let mine = labels(&bs[i]);
    bs.iter().enumerate().any(|(j, b)| j != i && labels(b).iter().filter(|l| mine.contains(l)).count() >= 2)
}

/// What a block measures, as the catalogue's line item its head prints ("Net Sales" is
/// revenue), else `None`.
fn concept(b: &Block, cat: &Catalogue) -> Option<String> {
    concept_of(&b.name, cat)
}

/// How the members are ranked: by one block's figure, or by a ratio of two blocks' figures for
/// the same member (the catalogue metric's `a / b` asked: "operating margin").
enum By {
    Printed(usize),
    Ratio(usize, usize),
}

/// The metric's formula as the quotient of two line items ("operating_income / revenue").
fn quotient(cat: &Catalogue, measure: &str) -> Option<(String, String)> {
    let m = cat.metrics.get(measure)?;
    let (a, b) = m.formula.split_once('/')?;
    let plain = |s: &str| {
        let s = s.trim();
        (!s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c == '_') && cat.items.contains_key(s)).then(|| s.to_string())
    };
    Some((plain(a)?, plain(b)?))
}

/// The words a members' table names its measures by: the metric's two line items' first names
/// when it is a quotient of them ("operating income", "revenue" for "operating margin"), else
/// the words ranked by.
pub fn measure_words(cat: &Catalogue, measure: Option<&str>, by: &[String]) -> Vec<String> {
    match measure.and_then(|m| quotient(cat, m)) {
        Some((a, b)) => [a, b].iter().filter_map(|i| cat.items.get(i).and_then(|d| d.names.first().cloned())).collect(),
        None => by.to_vec(),
    }
}

/// The blocks of `bs` the question's measure is read from: a block whose head holds every word
/// of what is ranked, or prints the line item asked; else the two blocks whose heads print the
/// numerator and denominator of the metric asked.
fn by_of(t: &Table, bs: &[Block], q: &Question, words: &[String], cat: &Catalogue) -> Option<By> {
    let item = q.measure.as_deref().filter(|m| cat.items.contains_key(*m));
    if let Some(i) = (0..bs.len()).find(|i| {
        let b = &bs[*i];
        let h = b.name.to_lowercase();
        let names = (!words.is_empty() && holds(&h, words) == words.len())
            || item.is_some_and(|m| concept(b, cat).as_deref() == Some(m) || head_names_item(&h, m, cat));
        names && !is_share(&h) && recur(t, bs, *i)
    }) {
        return Some(By::Printed(i));
    }
    let (a, b) = quotient(cat, q.measure.as_deref()?)?;
    let ia = bs.iter().position(|x| concept(x, cat).as_deref() == Some(a.as_str()) && !is_share(&x.name))?;
    let ib = bs.iter().position(|x| concept(x, cat).as_deref() == Some(b.as_str()) && !is_share(&x.name))?;
    Some(By::Ratio(ia, ib))
}

/// Whether a block's head (lower case) is a name of the line item `item` but for words a
/// members' table adds ("Segment Sales" is "sales", a name of revenue; "Cost of sales" is not).
fn head_names_item(head: &str, item: &str, cat: &Catalogue) -> bool {
    const ADDED: [&str; 7] = ["segment", "segments", "total", "reportable", "consolidated", "worldwide", "business"];
    let words: Vec<&str> = head.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty() && !ADDED.contains(w)).collect();
    !words.is_empty() && cat.items.get(item).is_some_and(|d| d.names.iter().any(|n| n.to_lowercase().split_whitespace().eq(words.iter().copied())))
}

/// A ranking of a table's members by the measure its own heads name, and its score beside the
/// rankings of rows and column groups (`calc::rank`).
pub struct Ranked {
    pub score: f64,
    pub calculation: Calculation,
}

/// The best ranking over `candidates` (the pages read first, `read` of them) of members measured
/// by a table's heads ([`blocks`]), if any table names the measure asked.
pub fn rank(lib: &Context, q: &Question, candidates: &[PageRef], read: usize, months: Option<u8>) -> Option<Ranked> {
    let extreme = q.extreme?;
    let ranking = q.ranking.clone().unwrap_or_default();
    let year = q.years.iter().max().copied();
    let by_change = ranking.change;
    // members are what a question asks for by kind ("which segment", "which region"); "the
    // largest liability" ranks a statement's line items
    if ranking.kinds.is_empty() {
        return None;
    }
    let mut best: Option<Ranked> = None;
    for (rank, p) in candidates.iter().enumerate() {
        let tables = readings(&lib.page_tables(p));
        let (text, heading) = lib.store().page(&p.doc_id, p.page).map(|pg| (pg.text.to_lowercase(), pg.heading.to_lowercase())).unwrap_or_default();
        for t in tables.iter() {
            let bs = blocks(t, year, months);
            // one run of rows under a heading is a table's section, not one of its measures
            if bs.len() < 2 {
                continue;
            }
            let Some(by) = by_of(t, &bs, q, &ranking.by, lib.metrics) else { continue };
            if by_change && matches!(by, By::Ratio(..)) {
                continue;
            }
            if let By::Printed(i) = by {
                if by_change && bs[i].prior.is_none() {
                    continue;
                }
            }
            // the kind of member asked for ("which segment") named by the table or its page
            let title = t.title.to_lowercase();
            // the kind of member asked ("segment") named by the table's title or the page's
            // heading; named only elsewhere on the page, the table may be of the page's other
            // members (a geographic table beside the segments' note): ranked, never sure
            let titled = ranking.kinds.iter().any(|k| title.contains(k.as_str()) || heading.contains(k.as_str()));
            if !titled && !ranking.kinds.iter().any(|k| text.contains(k.as_str())) {
                continue;
            }
            let total = match by {
                By::Printed(i) => bs[i].total,
                By::Ratio(a, b) => bs[a].total && bs[b].total,
            };
            let page_penalty = if rank < read { 0.2 * rank as f64 } else { 0.6 + 0.05 * (rank - read) as f64 };
            let score = 5.0 + if titled { 2.0 } else { 0.0 } + if total { 1.0 } else { 0.0 } + 0.5 * holds(&text, &ranking.terms) as f64 - page_penalty;
            if best.as_ref().is_none_or(|b| score > b.score) {
                let sure = total && titled;
                let calculation = ranked(t, p, &bs, &by, extreme, by_change, sure, &ranking.terms);
                // a table that measures fewer than two members for the period ranks nothing
                if calculation.result.is_some() {
                    best = Some(Ranked { score, calculation });
                }
            }
        }
    }
    best
}

/// A figure for each member asked ("net sales by segment", [`Question::per_member`]): every
/// member of the table that measures them by the measure asked, for the period asked, each
/// boxed; the members' total said when the table prints one. `None` when no table of the pages
/// read, or of the pages their filings' BM25 finds for the kind and the measure, does.
pub fn list(lib: &Context, q: &Question, pages: &[PageRef]) -> Option<Calculation> {
    let kind = q.per_member()?;
    let cat = lib.metrics;
    let words: Vec<String> = q.measure_name.as_deref().unwrap_or("").split_whitespace().filter(|w| w.len() > 2).map(str::to_lowercase).collect();
    if words.is_empty() && q.measure.is_none() {
        return None;
    }
    let year = q.years.iter().max().copied();
    let months = months_asked(q);
    let mut look = vec![kind.to_string()];
    look.extend(measure_words(cat, q.measure.as_deref(), &words));
    let candidates = with_lookups(lib, pages, &[look.join(" ")], 8);
    // (score, sure, page, table, blocks, by)
    let mut best: Option<(f64, bool, PageRef, Table, Vec<Block>, By)> = None;
    for (rank, p) in candidates.iter().enumerate() {
        let (text, heading) = lib.store().page(&p.doc_id, p.page).map(|pg| (pg.text.to_lowercase(), pg.heading.to_lowercase())).unwrap_or_default();
        for t in readings(&lib.page_tables(p)) {
            let bs = blocks(&t, year, months);
            if bs.len() < 2 {
                continue;
            }
            let Some(by) = by_of(&t, &bs, q, &words, cat) else { continue };
            let title = t.title.to_lowercase();
            let titled = title.contains(kind) || heading.contains(kind);
            if !titled && !text.contains(kind) {
                continue;
            }
            let total = match by {
                By::Printed(i) => bs[i].total,
                By::Ratio(a, b) => bs[a].total && bs[b].total,
            };
            let penalty = if rank < pages.len() { 0.2 * rank as f64 } else { 0.6 + 0.05 * (rank - pages.len()) as f64 };
            let score = if titled { 2.0 } else { 0.0 } + if total { 1.0 } else { 0.0 } - penalty;
            if best.as_ref().is_none_or(|b| score > b.0) {
                best = Some((score, total && titled, p.clone(), t.clone(), bs, by));
            }
        }
    }
    let (_, sure, page, t, bs, by) = best?;
    let t = &t;
    let cell = |ri: usize, col: usize| t.rows[ri].cells.get(col).cloned().flatten();
    let unit = scale_word(&t.unit);
    let members = measured(t, &page, &bs, &by, false);
    let said: Vec<String> = members
        .iter()
        .map(|(ri, v, _)| match by {
            By::Printed(i) => {
                let text = cell(*ri, bs[i].col).map(|c| c.text).unwrap_or_default();
                format!("{} {}{unit}", t.rows[*ri].label, text.trim_start_matches('$').trim())
            }
            By::Ratio(..) => format!("{} {:.1}%", t.rows[*ri].label, v * 100.0),
        })
        .collect();
    let operands: Vec<Operand> = members.into_iter().flat_map(|m| m.2).collect();
    let (name, header) = match by {
        By::Printed(i) => (bs[i].name.clone(), t.columns[bs[i].col].header.clone()),
        By::Ratio(a, b) => (format!("{} ÷ {}", bs[a].name, bs[b].name), t.columns[bs[a].col].header.clone()),
    };
    if said.len() < 2 {
        return None;
    }
    let metric = format!("{} by {kind}", q.measure_name.clone().unwrap_or_else(|| name.to_lowercase()));
    let formula = format!("\"{name}\" of each of {} members in the column \"{header}\" on {page}", said.len());
    Some(listed_calculation(metric, formula, operands, &said, months, sure))
}

/// A part of the filer's figure of a line item (`item`), asked by one of `names` ("How much
/// revenue did MGM China generate in 2018?"): the member's row under the measure's head in the
/// filing's members' tables ([`blocks`]), for the year and period length asked, from the pages
/// read and the pages BM25 finds in their filings for the name and the measure. Every table
/// that prints it is a reading: two or more that agree make it sure; one alone is warned of
/// (`member_once`); readings that differ fail the `readings` check. `None` when no table prints
/// the member under the measure.
pub fn one(lib: &Context, q: &Question, pages: &[PageRef], item: &str, names: &[String], format: impl Fn(f64, bool) -> String) -> Option<Calculation> {
    let cat = lib.metrics;
    let year = q.years.iter().max().copied()?;
    let months = months_asked(q);
    let measure = cat.item_name(item);
    let plain = |s: &str| s.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
    let wanted: Vec<String> = names.iter().map(|n| plain(n)).filter(|n| !n.is_empty()).collect();
    let queries: Vec<String> = names.iter().map(|n| format!("{n} {measure}")).collect();
    let candidates = with_lookups(lib, pages, &queries, 8);
    // (the name's place in `names`, the operand, its value in units, where it was read)
    let mut found: Vec<(usize, Operand, f64, (PageRef, usize))> = Vec::new();
    for p in &candidates {
        for (ti, t) in readings(&lib.page_tables(p)).iter().enumerate() {
            for b in blocks(t, Some(year), months) {
                let c = &t.columns[b.col];
                let period_fits = c.year == year && (c.months == months || months.is_none() && c.months.is_none_or(|m| m == 12));
                if !period_fits || is_share(&b.name) || !(concept(&b, cat).as_deref() == Some(item) || head_names_item(&b.name.to_lowercase(), item, cat)) {
                    continue;
                }
                for &ri in &b.rows {
                    let r = &t.rows[ri];
                    let label = plain(&r.label);
                    let Some(at) = wanted.iter().position(|w| label == *w || label == format!("{w} segment")) else { continue };
                    let Some(cell) = r.cells.get(b.col).cloned().flatten() else { continue };
                    let units = cell.value.checked_mul(t.scale).map_or(cell.value.to_f64() * t.scale.to_f64(), |v| v.to_f64());
                    found.push((at, operand(t, p, &b, r, &cell, b.col), units, (p.clone(), ti)));
                }
            }
        }
    }
    // the first name found (the whole run before its shorter form), the pages read first
    let best = found.iter().map(|f| f.0).min()?;
    found.retain(|f| f.0 == best);
    let (_, first, v, _) = found[0].clone();
    let mut tables: Vec<&(PageRef, usize)> = Vec::new();
    let mut differ: Option<&Operand> = None;
    for (_, o, u, at) in &found {
        if (u - v).abs() > 0.5e-3 * v.abs().max(1.0) {
            differ.get_or_insert(o);
        } else if !tables.contains(&at) {
            tables.push(at);
        }
    }
    let member = first.read.row.clone();
    let readings = match differ {
        Some(o) => super::checks::Check::fail(
            "readings",
            format!("{member}'s {measure} reads {} on {} and {} on {}: the two differ", super::group(&first.value), first.page, super::group(&o.value), o.page),
        ),
        None if tables.len() >= 2 => super::checks::Check::pass("readings", format!("{} tables of the filing print it alike", tables.len())),
        None => super::checks::Check::not_run("readings", "one table of the filing prints it"),
    };
    // a table that states no unit shows its figure as printed
    let result = format(v, first.unit != "units");
    let header = first.period.clone();
    Some(Calculation {
        metric: format!("{measure} of {member}, FY{year}"),
        formula: format!("\"{}\" of {member} in the column \"{header}\" on {}", first.read.column, first.page),
        display: format!("{measure} of {member} = {result}"),
        result: Some(result),
        warning: (tables.len() < 2 && differ.is_none()).then(|| super::Warning { rule: "member_once".into(), words: vec![member.clone()] }),
        measure: Some(item.to_string()),
        unit: "amount".into(),
        shape: "one".into(),
        months: months.unwrap_or(12),
        value: Some(v),
        values: vec![v],
        checks: vec![readings],
        operands: vec![first],
        ..Default::default()
    })
}

fn operand(t: &Table, page: &PageRef, b: &Block, r: &Row, c: &Cell, col: usize) -> Operand {
    let header = &t.columns[col].header;
    Operand {
        name: format!("{}: {}", r.label, b.name),
        period: header.clone(),
        value: c.value.to_string(),
        unit: t.unit.clone(),
        page: page.clone(),
        quote: format!("{} {}", r.label, c.text),
        boxes: vec![r.label_rect.clone(), c.rect.clone()],
        read: OperandRead { row: r.label.clone(), column: format!("{} {header}", b.name), table: t.title.clone(), ..Default::default() },
    }
}

/// Each member of `bs` measured by `by`: its row, the figure (its change from the year before
/// when `by_change`, a quotient for [`By::Ratio`]) and its operands, boxed. A member without
/// the cells it needs, or with a zero or negative base, is left out.
fn measured(t: &Table, page: &PageRef, bs: &[Block], by: &By, by_change: bool) -> Vec<(usize, f64, Vec<Operand>)> {
    let cell = |ri: usize, col: usize| t.rows[ri].cells.get(col).cloned().flatten();
    let mut members: Vec<(usize, f64, Vec<Operand>)> = Vec::new();
    match *by {
        By::Printed(i) => {
            let b = &bs[i];
            for &ri in &b.rows {
                let Some(c) = cell(ri, b.col) else { continue };
                let mut ops = vec![operand(t, page, b, &t.rows[ri], &c, b.col)];
                let v = match (by_change, b.prior.and_then(|pc| cell(ri, pc).map(|p| (pc, p)))) {
                    (true, Some((pc, p))) if p.value.to_f64() != 0.0 => {
                        ops.push(operand(t, page, b, &t.rows[ri], &p, pc));
                        (c.value.to_f64() - p.value.to_f64()) / p.value.to_f64().abs()
                    }
                    (true, _) => continue,
                    (false, _) => c.value.to_f64(),
                };
                members.push((ri, v, ops));
            }
        }
        By::Ratio(a, b) => {
            let (ba, bb) = (&bs[a], &bs[b]);
            for &ri in &ba.rows {
                let label = t.rows[ri].label.trim().to_lowercase();
                // the same member's row in the denominator's block (the same row when the blocks are column groups)
                let Some(rj) = bb.rows.iter().copied().find(|rj| t.rows[*rj].label.trim().to_lowercase() == label) else { continue };
                let (Some(ca), Some(cb)) = (cell(ri, ba.col), cell(rj, bb.col)) else { continue };
                let d = cb.value.to_f64();
                if d <= 0.0 {
                    continue;
                }
                let ops = vec![operand(t, page, ba, &t.rows[ri], &ca, ba.col), operand(t, page, bb, &t.rows[rj], &cb, bb.col)];
                members.push((ri, ca.value.to_f64() / d, ops));
            }
        }
    }
    members
}

/// The members of `bs` ranked by `by`, as a calculation: the winner and the runner-up with
/// their operands boxed.
#[allow(clippy::too_many_arguments)]
fn ranked(t: &Table, page: &PageRef, bs: &[Block], by: &By, extreme: Extreme, by_change: bool, sure: bool, terms: &[String]) -> Calculation {
    let what = match extreme {
        Extreme::Largest => "largest",
        Extreme::Smallest => "smallest",
    };
    let metric = format!("{what} row: {}", terms.join(" "));
    let mut members = measured(t, page, bs, by, by_change);
    if members.len() < 2 {
        return Calculation::problem(metric, format!("the table on {page} measures fewer than two members for the period asked"));
    }
    members.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
    if extreme == Extreme::Largest {
        members.reverse();
    }
    let unit = scale_word(&t.unit);
    let said = |(ri, v, ops): &(usize, f64, Vec<Operand>)| {
        let label = &t.rows[*ri].label;
        match by {
            By::Ratio(a, b) => format!(
                "{label} ({:.1}%: {} {} / {} {})",
                v * 100.0,
                c_text_of(&ops[0]),
                bs[*a].name.to_lowercase(),
                c_text_of(&ops[1]),
                bs[*b].name.to_lowercase()
            ),
            By::Printed(_) if by_change => format!("{label} ({:+.1}%)", v * 100.0),
            By::Printed(_) => format!("{label} ({}{unit})", c_text_of(&ops[0])),
        }
    };
    let result = said(&members[0]);
    let runner = members.get(1).map(|m| format!("; runner-up {}", said(m))).unwrap_or_default();
    let names: Vec<&str> = members.iter().map(|m| t.rows[m.0].label.as_str()).collect();
    let formula = match by {
        By::Printed(i) if by_change => format!(
            "the {what} change in \"{}\" from the column \"{}\" to \"{}\" of {} members ({}) on {page}",
            bs[*i].name,
            bs[*i].prior.map(|c| t.columns[c].header.as_str()).unwrap_or_default(),
            t.columns[bs[*i].col].header,
            members.len(),
            names.join(", ")
        ),
        By::Printed(i) => format!(
            "the {what} \"{}\" of {} members ({}) in the column \"{}\" on {page}",
            bs[*i].name,
            members.len(),
            names.join(", "),
            t.columns[bs[*i].col].header
        ),
        By::Ratio(a, b) => format!(
            "the {what} \"{}\" ÷ \"{}\" of {} members ({}), each over its own row, in the columns \"{}\" on {page}",
            bs[*a].name,
            bs[*b].name,
            members.len(),
            names.join(", "),
            t.columns[bs[*a].col].header
        ),
    };
    let winner = t.rows[members[0].0].label.clone();
    let mut operands: Vec<Operand> = Vec::new();
    for m in members.iter().take(2) {
        operands.extend(m.2.iter().cloned());
    }
    ranked_calculation(metric, formula, operands, format!("{result}{runner}"), result, winner, sure)
}

/// An operand's figure as printed.
fn c_text_of(o: &Operand) -> String {
    o.quote.rsplit(' ').next().map(|s| s.trim_start_matches('$').to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::table::tests::page;

    /// Amazon's segment note: each segment a row heading over its measures' rows.
    #[test]
    fn members_printed_as_row_headings_over_their_measures_are_turned_into_blocks() {
        let mut cells = vec![("(in millions)", 50.0, 780.0), ("2018", 300.0, 760.0), ("2019", 400.0, 760.0)];
        let mut y = 740.0;
        for (seg, sales, income) in [
            ("North America", ("141,366", "170,773"), ("7,267", "7,033")),
            ("International", ("65,866", "74,723"), ("(2,142)", "(1,693)")),
            ("AWS", ("25,655", "35,026"), ("7,296", "9,201")),
            ("Consolidated", ("232,887", "280,522"), ("12,421", "14,541")),
        ] {
            cells.push((seg, 50.0, y));
            cells.extend([("Net sales", 60.0, y - 10.0), (sales.0, 300.0, y - 10.0), (sales.1, 400.0, y - 10.0)]);
            let label = if seg == "International" { "Operating income (loss)" } else { "Operating income" };
            cells.extend([(label, 60.0, y - 20.0), (income.0, 300.0, y - 20.0), (income.1, 400.0, y - 20.0)]);
            y -= 40.0;
        }
        let (text, boxes) = page(&cells);
        let t = &crate::figures::table::tables(&text, &boxes)[0];
        let turned = transposed(t).expect("members over measures");
        let bs = blocks(&turned, Some(2019), None);
        assert_eq!(bs.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), vec!["Net sales", "Operating income"]);
        let income = &bs[1];
        let members: Vec<&str> = income.rows.iter().map(|r| turned.rows[*r].label.as_str()).collect();
        assert_eq!(members, vec!["North America", "International", "AWS"]);
        assert!(income.total, "Consolidated is the members' total");
        let aws = &turned.rows[income.rows[2]];
        assert_eq!(aws.cells[income.col].as_ref().map(|c| c.text.as_str()), Some("9,201"));
        // headings that are periods or qualifiers are not members
        let fuel: Vec<(&str, f32, f32)> = cells.iter().map(|(t, x, y)| (if *t == "North America" { "Including Fuel" } else { *t }, *x, *y)).collect();
        let (text, boxes) = page(&fuel);
        assert!(transposed(&crate::figures::table::tables(&text, &boxes)[0]).is_none());
        // a table whose headings share no row is not turned
        let (text, boxes) = page(&[
            ("2019", 300.0, 760.0),
            ("Assets", 50.0, 740.0),
            ("Cash", 60.0, 730.0),
            ("5", 300.0, 730.0),
            ("Liabilities", 50.0, 720.0),
            ("Debt", 60.0, 710.0),
            ("7", 300.0, 710.0),
        ]);
        assert!(crate::figures::table::tables(&text, &boxes).first().and_then(transposed).is_none());
    }

    /// 3M's segment note: the measures are column groups, the segments rows.
    const GROUPED: &[(&str, f32, f32)] = &[
        ("Business Segment Information", 50.0, 780.0),
        ("(Millions)", 50.0, 770.0),
        ("Net Sales", 280.0, 750.0),
        ("Operating Income", 430.0, 750.0),
        ("2018", 250.0, 740.0),
        ("2017", 310.0, 740.0),
        ("2018", 400.0, 740.0),
        ("2017", 460.0, 740.0),
        ("Industrial", 50.0, 720.0),
        ("12,267", 250.0, 720.0),
        ("11,866", 310.0, 720.0),
        ("2,737", 400.0, 720.0),
        ("2,490", 460.0, 720.0),
        ("Health Care", 50.0, 710.0),
        ("6,021", 250.0, 710.0),
        ("5,853", 310.0, 710.0),
        ("1,799", 400.0, 710.0),
        ("1,764", 460.0, 710.0),
        ("Electronics and Energy", 50.0, 700.0),
        ("5,472", 250.0, 700.0),
        ("5,501", 310.0, 700.0),
        ("2,055", 400.0, 700.0),
        ("1,377", 460.0, 700.0),
        ("Corporate and Unallocated", 50.0, 690.0),
        ("50", 250.0, 690.0),
        ("3", 310.0, 690.0),
        ("(1,465)", 400.0, 690.0),
        ("(395)", 460.0, 690.0),
        ("Total Company", 50.0, 680.0),
        ("32,765", 250.0, 680.0),
        ("31,657", 310.0, 680.0),
        ("7,207", 400.0, 680.0),
        ("7,692", 460.0, 680.0),
    ];

    fn table() -> Table {
        let (text, boxes) = page(GROUPED);
        crate::figures::table::tables(&text, &boxes).remove(0)
    }

    #[test]
    fn column_groups_are_measures_of_the_rows_members() {
        let t = table();
        let bs = blocks(&t, Some(2018), None);
        let names: Vec<&str> = bs.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["Net Sales", "Operating Income"], "{:?}", t.columns);
        let rows: Vec<&str> = bs[1].rows.iter().map(|i| t.rows[*i].label.as_str()).collect();
        assert_eq!(rows, ["Industrial", "Health Care", "Electronics and Energy"], "corporate and the total are not members");
        assert!(bs[1].total && bs[1].prior.is_some());
        assert_eq!(t.rows[bs[1].rows[0]].cells[bs[1].col].as_ref().map(|c| c.text.as_str()), Some("2,737"));
    }

    /// J&J's segment note prints its segments' sales, then "Segment earnings before tax" and
    /// "Worldwide income before tax" rows the sales add up to: totals, not segments (they were
    /// listed and ranked as segments), and a total the members add up to makes the block whole.
    #[test]
    fn a_row_the_members_add_up_to_is_their_total_not_a_member() {
        let rows: Vec<(String, f32, f32)> = GROUPED.iter().map(|(t, x, y)| (t.to_string(), *x, *y)).collect();
        let mut cells: Vec<(String, f32, f32)> = rows.into_iter().filter(|(_, _, y)| *y > 695.0).collect();
        // the members' sums, neither labelled "Total"
        for (label, y) in [("Segment sales and earnings", 680.0), ("Worldwide sales and earnings", 670.0)] {
            cells.extend([
                (label.to_string(), 50.0, y),
                ("23,760".into(), 250.0, y),
                ("23,220".into(), 310.0, y),
                ("6,591".into(), 400.0, y),
                ("5,631".into(), 460.0, y),
            ]);
        }
        let cells: Vec<(&str, f32, f32)> = cells.iter().map(|(t, x, y)| (t.as_str(), *x, *y)).collect();
        let (text, boxes) = page(&cells);
        let t = crate::figures::table::tables(&text, &boxes).remove(0);
        let bs = blocks(&t, Some(2018), None);
        let rows: Vec<&str> = bs[0].rows.iter().map(|i| t.rows[*i].label.as_str()).collect();
        assert_eq!(rows, ["Industrial", "Health Care", "Electronics and Energy"], "{:?}", t.rows.iter().map(|r| &r.label).collect::<Vec<_>>());
        assert!(bs[0].total, "the members add up to a printed row");
    }

    #[test]
    fn members_rank_by_a_printed_measure_or_one_computed_per_member() {
        let t = table();
        let p = PageRef::new("3M_2018_10K", 126);
        let bs = blocks(&t, Some(2018), None);
        let cat = Catalogue::builtin();
        let q = Question::parse("Which 3M segment had the highest operating income in 2018?");
        let by = by_of(&t, &bs, &q, &q.ranking.clone().unwrap_or_default().by, &cat).expect("a block names operating income");
        let c = ranked(&t, &p, &bs, &by, Extreme::Largest, false, true, &[]);
        assert_eq!(c.verdict.as_deref(), Some("Industrial"), "{c:?}");
        // operating margin: each segment's operating income over its own net sales
        let q = Question::parse("Which 3M segment had the highest operating margin in 2018?");
        let by = by_of(&t, &bs, &q, &q.ranking.clone().unwrap_or_default().by, &cat).expect("margin is operating income over net sales");
        assert!(matches!(by, By::Ratio(1, 0)));
        let c = ranked(&t, &p, &bs, &by, Extreme::Largest, false, true, &[]);
        assert_eq!(c.verdict.as_deref(), Some("Electronics and Energy"), "2,055 / 5,472 = 37.6%: {c:?}");
        assert!(c.result.as_deref().is_some_and(|r| r.contains("37.6%")), "{:?}", c.result);
        assert_eq!(c.operands.len(), 4, "winner and runner-up, each with both figures");
        let q = Question::parse("Which 3M segment had the lowest operating margin in 2018?");
        let by = by_of(&t, &bs, &q, &q.ranking.clone().unwrap_or_default().by, &cat).expect("margin");
        let c = ranked(&t, &p, &bs, &by, Extreme::Smallest, false, true, &[]);
        assert_eq!(c.verdict.as_deref(), Some("Industrial"), "2,737 / 12,267 = 22.3%, not Corporate: {c:?}");
    }
}
