//! Financial-statement tables recovered from a page's stored text and character boxes.
//!
//! Words are grouped into visual rows by their vertical position (pdfium's text order puts each
//! cell on its own line, so the text's lines are not rows); a row is a label (its text on the
//! left) and the numbers to its right. Header rows are rows whose cells hold years ("2018 2017",
//! "December 31, 2019"), with the period above them ("Three Months Ended", "Six Months Ended");
//! each number is put in the column whose header is nearest horizontally. Parentheses are
//! negative, dashes zero, `$` signs and footnote marks are dropped, labels that wrap onto a second
//! line are joined, and the page's unit ("in millions", "(Thousands)") scales every value.

use crate::boxes::CharBox;
use crate::evidence::EvidenceBox;
use crate::figures::ratio::Ratio;
use serde::Serialize;

/// A word of the page and the box around its glyphs (PDF points).
#[derive(Debug, Clone)]
struct Word {
    text: String,
    b: CharBox,
}

/// One column of a table: the fiscal year (or balance-sheet date year) and the period length.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Column {
    pub year: i32,
    /// 3, 6, 9 or 12 when the header says "Three Months Ended" etc.; `None` for years and dates.
    pub months: Option<u8>,
    pub header: String,
    /// A sub-column's head under the period ("amount", "rate", "% of total"), when the table
    /// prints two or more columns per period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// The head printed over a group of columns ("Consumer & Community Banking" over its
    /// "2021 2020 Change"), when the table prints the same periods once per segment, region or
    /// other member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(skip)]
    x: (f32, f32),
}

/// The heads printed over groups of columns (`heads`, a row of words above the header) given to
/// `columns`: each column takes the head nearest above it; kept only when two or more heads
/// each take a run of adjacent columns, left to right, and every column has one. A head left
/// of every column (the label column's "Three months ended March 31,") is not a group's.
fn name_groups(columns: &mut [Column], heads: &[Segment]) {
    let Some(first) = columns.iter().map(|c| c.x.0).reduce(f32::min) else { return };
    let heads: Vec<&Segment> = heads.iter().filter(|h| h.b.r > first - 10.0 && !is_title_filler(&h.text.to_lowercase())).collect();
    if heads.len() < 2 {
        return;
    }
    let mut order: Vec<usize> = (0..columns.len()).collect();
    order.sort_by(|a, b| columns[*a].x.0.total_cmp(&columns[*b].x.0));
    let centre = |l: f32, r: f32| (l + r) / 2.0;
    let nearest: Vec<usize> = order
        .iter()
        .map(|&i| {
            let cx = centre(columns[i].x.0, columns[i].x.1);
            (0..heads.len())
                .min_by(|a, b| (centre(heads[*a].b.l, heads[*a].b.r) - cx).abs().total_cmp(&(centre(heads[*b].b.l, heads[*b].b.r) - cx).abs()))
                .unwrap_or(0)
        })
        .collect();
    // left to right, each head once, every head used
    let monotone = nearest.windows(2).all(|w| w[0] <= w[1]);
    let mut used = nearest.clone();
    used.dedup();
    if !monotone || used.len() != heads.len() {
        return;
    }
    for (&i, &h) in order.iter().zip(&nearest) {
        columns[i].group = Some(heads[h].text.clone());
    }
}

impl Column {
    /// A sub-column of rates or percents ("Rate", "%", "% of total").
    pub fn is_rate(&self) -> bool {
        self.part.as_deref().is_some_and(|p| p.contains("rate") || p.contains('%') || p.contains("percent"))
    }
}

/// Words a sub-column head is made of ("Amount Rate Amount Rate", "$ % of total").
const PART_WORDS: &[&str] =
    &["amount", "amounts", "rate", "rates", "%", "percent", "percentage", "of", "total", "sales", "revenue", "revenues", "net", "change", "dollars", "$"];

/// The sub-column heads of a row printed under a header of `n` periods: every word is a
/// [`PART_WORDS`] word, one names an amount or a rate, and the heads are a multiple of `n`
/// (two or more per period), left to right.
fn part_heads(segs: &[Segment], row: &[Word], n: usize) -> Option<Vec<Segment>> {
    let clean = |w: &str| w.trim_matches(|c: char| c == '(' || c == ')' || c == ',' || c == ':').to_lowercase();
    if n == 0 || !row.iter().all(|w| PART_WORDS.contains(&clean(&w.text).as_str())) {
        return None;
    }
    if !row.iter().any(|w| ["amount", "amounts", "rate", "rates", "%", "percent"].contains(&clean(&w.text).as_str())) {
        return None;
    }
    // heads glued into one run ("Amount Rate") are split into their words when that makes the count
    let fits = |v: &[Segment]| v.len() >= 2 * n && v.len().is_multiple_of(n);
    if fits(segs) {
        return Some(segs.to_vec());
    }
    let words: Vec<Segment> = row.iter().map(|w| Segment { text: w.text.clone(), b: w.b }).collect();
    fits(&words).then_some(words)
}

/// A number in a table cell, in the page's unit.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// The value in the table's unit (before scaling).
    #[serde(skip)]
    pub value: Ratio,
    pub text: String,
    pub rect: EvidenceBox,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The label as printed (wrapped lines joined, footnote marks and leaders dropped).
    pub label: String,
    /// One cell per column (`None`: that column is empty in this row).
    pub cells: Vec<Option<Cell>>,
    /// The box around the whole row (label and numbers).
    pub rect: EvidenceBox,
    /// The box around the label alone.
    pub label_rect: EvidenceBox,
    /// The label was not printed: it is the section's total, named from its heading ("Total
    /// revenues" under "Revenues").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub named_from_section: bool,
    /// The heading of the rows it is printed under ("Current assets", "Americas"), when a label
    /// alone was printed above them since the table's header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// Multiplier from the table's unit to units (1e6 for "in millions"); 1 when unstated.
    #[serde(skip)]
    pub scale: Ratio,
    pub unit: String,
    /// The lines of words above its header since the table before ("SUPPLEMENTAL DATA –
    /// ADJUSTED PROPERTY EBITDAR", "(In thousands)"), the last six, joined.
    pub title: String,
}

/// What a page's unit line says: ("in millions", 1e6).
pub fn page_unit(text: &str) -> (String, Ratio) {
    // words of the unit line may be split over lines ("(Dollars\nin\nmillions") or joined by
    // no-break spaces ("(In\u{a0}millions"): any run of white space is one space
    let t = text.to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ");
    for (words, scale, name) in [
        (&["in billions", "(billions", "billions of"][..], 1_000_000_000i64, "billions"),
        (
            &[
                "in millions",
                "(millions",
                "millions of",
                "in million",
                "$ millions",
                "$ million",
                "$million",
                "(dollars in millions",
                "($ in millions",
                "us$ million",
                "usd million",
                "in $m",
                "($m)",
                "(€ million",
                "€ million",
            ][..],
            1_000_000,
            "millions",
        ),
        (&["in thousands", "(thousands", "thousands of", "000s", "(in 000"][..], 1_000, "thousands"),
    ] {
        // a count's unit ("Number of Units (in 000's)", "Shares (in thousands)") is not the
        // page's unit for amounts
        let of_counts = |at: usize| {
            let before = &t[t.floor_char_boundary(at.saturating_sub(24))..at];
            ["units", "shares", "number of", "options"].iter().any(|c| before.contains(c)) && !before.contains("dollars") && !before.contains('$')
        };
        if words.iter().any(|w| t.match_indices(w).any(|(at, _)| !of_counts(at))) {
            return (name.to_string(), Ratio::int(scale));
        }
    }
    ("units".into(), Ratio::int(1))
}

fn words(text: &str, boxes: &[CharBox]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut bb: Option<CharBox> = None;
    let flush = |cur: &mut String, bb: &mut Option<CharBox>, out: &mut Vec<Word>| {
        if let Some(b) = bb.take() {
            if !cur.is_empty() {
                out.push(Word { text: std::mem::take(cur), b });
            }
        }
        cur.clear();
    };
    for (c, b) in text.chars().zip(boxes.iter().chain(std::iter::repeat(&CharBox::default()))) {
        if c.is_whitespace() {
            flush(&mut cur, &mut bb, &mut out);
            continue;
        }
        // a large jump to the left or down inside a "word" is a new word (pdfium joins cells)
        if let (Some(prev), false) = (bb, b.is_empty()) {
            if b.l < prev.l - 1.0 || b.t < prev.b - 1.0 || b.l > prev.r + 0.6 * prev.height().max(4.0) {
                flush(&mut cur, &mut bb, &mut out);
            }
        }
        cur.push(c);
        if !b.is_empty() {
            bb = Some(bb.map_or(*b, |x| x.union(b)));
        }
    }
    flush(&mut cur, &mut bb, &mut out);
    out
}

/// Words grouped into visual rows, top to bottom, each left to right.
fn visual_rows(mut ws: Vec<Word>) -> Vec<Vec<Word>> {
    ws.sort_by(|a, b| (b.b.b + b.b.t).total_cmp(&(a.b.b + a.b.t)));
    let mut rows: Vec<(f32, f32, Vec<Word>)> = Vec::new(); // (center, height, words)
    for w in ws {
        let c = (w.b.b + w.b.t) / 2.0;
        let h = w.b.height().max(1.0);
        match rows.last_mut() {
            Some((rc, rh, r)) if (c - *rc).abs() <= 0.45 * rh.max(h) => {
                r.push(w);
                // keep the centre of the row's first words: long rows must not drift
                *rh = rh.max(h);
                let _ = rc;
            }
            _ => rows.push((c, h, vec![w])),
        }
    }
    rows.into_iter()
        .map(|(_, _, mut r)| {
            r.sort_by(|a, b| a.b.l.total_cmp(&b.b.l));
            r
        })
        .collect()
}

/// A run of words of one row separated by small gaps.
#[derive(Debug, Clone)]
struct Segment {
    text: String,
    b: CharBox,
}

fn segments(row: &[Word]) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    for w in row {
        let gap_ok = out.last().is_some_and(|s| w.b.l - s.b.r <= 0.9 * s.b.height().max(w.b.height()).max(4.0));
        // numbers never glue onto what is before them (a label's last word, another number)
        let starts_number = number_of(&w.text).is_some() || w.text == "$";
        match out.last_mut() {
            Some(s) if gap_ok && !starts_number && number_of(&s.text).is_none() => {
                s.text.push(' ');
                s.text.push_str(&w.text);
                s.b = s.b.union(&w.b);
            }
            _ => out.push(Segment { text: w.text.clone(), b: w.b }),
        }
    }
    out
}

/// The value of a numeric cell: `1,577`, `(1,577)`, `$5,363`, `-12.5`, `12.5%`, `—` (zero).
pub fn number_of(s: &str) -> Option<Ratio> {
    let t = s.trim().trim_start_matches('$').trim();
    if t.is_empty() {
        return None;
    }
    if ["—", "–", "-", "—%", "-%", "— %"].contains(&t) {
        return Some(Ratio::ZERO);
    }
    let t = t.trim_end_matches('%');
    let (neg, inner) = if let Some(x) = t.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
        (true, x.trim().trim_start_matches('$').trim())
    } else if let Some(x) = t.strip_prefix('(') {
        // "(1,234" with the closing parenthesis in the next word
        (true, x.trim_start_matches('$'))
    } else {
        (false, t.trim_end_matches(')'))
    };
    if !inner.chars().next()?.is_ascii_digit() && !inner.starts_with('-') && !inner.starts_with('.') {
        return None;
    }
    // commas must group thousands
    let digits_ok = inner.split(',').enumerate().all(|(i, g)| {
        if i == 0 {
            !g.is_empty()
        } else {
            g.len() == 3 || g.starts_with(|c: char| c.is_ascii_digit()) && g.contains('.') && g.find('.') == Some(3)
        }
    });
    if !digits_ok {
        return None;
    }
    let v = Ratio::parse(inner)?;
    Some(if neg { Ratio::ZERO.checked_sub(v)? } else { v })
}

/// A head of a header row that names a column of its own, not a period: words, not a month,
/// a day or a unit ("Acquisitions", "Other(1)", "% Change").
fn is_other_head(s: &str) -> bool {
    let low = s.to_lowercase();
    let words: Vec<&str> = low.split(|c: char| !c.is_alphabetic()).filter(|w| w.len() >= 2).collect();
    !words.is_empty()
        && !words.iter().any(|w| {
            MONTHS.contains(w)
                || ["fiscal", "fy", "year", "years", "ended", "ending", "as", "of", "at", "in", "millions", "thousands", "unaudited", "restated", "actual"]
                    .contains(w)
        })
}

/// A date's month and day in `s` ("December 31", "31 March"), as printed.
pub fn month_day(s: &str) -> Option<String> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        let m = "january|february|march|april|may|june|july|august|september|october|november|december";
        regex::Regex::new(&format!(r"(?i)\b(?:({m})\s+(\d{{1,2}})\b|(\d{{1,2}})\s+({m})\b)")).expect("date pattern")
    });
    let c = re.captures(s)?;
    Some(match (c.get(1), c.get(2), c.get(3), c.get(4)) {
        (Some(m), Some(d), _, _) => format!("{} {}", title_case(m.as_str()), d.as_str()),
        (_, _, Some(d), Some(m)) => format!("{} {}", d.as_str(), title_case(m.as_str())),
        _ => return None,
    })
}

fn title_case(w: &str) -> String {
    let w = w.to_lowercase();
    let mut c = w.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

fn year_in(s: &str) -> Option<i32> {
    let ys: Vec<i32> = crate::text::tokenize(s)
        .into_iter()
        .filter(|t| t.is_number && t.text.len() == 4)
        .filter_map(|t| t.text.parse::<i32>().ok())
        .filter(|y| (1990..=2100).contains(y))
        .collect();
    match ys.as_slice() {
        [y] => Some(*y),
        _ => None,
    }
}

fn months_in(s: &str) -> Option<u8> {
    let t = s.to_lowercase();
    if !(t.contains("months") || t.contains("weeks") || t.contains("quarter")) {
        return None;
    }
    for (w, m) in [
        ("three", 3),
        ("3 months", 3),
        ("13 weeks", 3),
        ("quarter", 3),
        ("six", 6),
        ("6 months", 6),
        ("26 weeks", 6),
        ("nine", 9),
        ("9 months", 9),
        ("39 weeks", 9),
        ("twelve", 12),
        ("12 months", 12),
        ("52 weeks", 12),
        ("53 weeks", 12),
    ] {
        if t.contains(w) {
            return Some(m);
        }
    }
    None
}

fn rect(b: &CharBox, text: &str) -> EvidenceBox {
    EvidenceBox { l: b.l, b: b.b, r: b.r, t: b.t, text: text.to_string() }
}

fn clean_label(s: &str) -> String {
    let mut l = s.trim().trim_end_matches(['.', ':', ' ', '$']).to_string();
    // dot leaders and footnote marks: "Net sales ....", "Revenue (1)", "Revenue(a)"
    while let Some(i) = l.rfind(['(', '[']) {
        let tail = &l[i..];
        if tail.len() <= 4 && tail[1..].trim_end_matches([')', ']']).chars().all(|c| c.is_ascii_alphanumeric()) && tail.ends_with([')', ']']) {
            l.truncate(i);
            l = l.trim_end().to_string();
        } else {
            break;
        }
    }
    l.trim_end_matches(['.', ':', ' ', '$', '…']).split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) const MONTHS: &[&str] = &["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/// Words of the lines between a table's title and its header: units, dates, "unaudited".
const FILLER_WORDS: &[&str] =
    &["in", "thousands", "millions", "billions", "unaudited", "ended", "as", "of", "year", "years", "except", "per", "share", "data", "amounts", "dollars"];

/// A line that is not part of a table's title: a period head ("Three months ended"), or only
/// dates, units and the like ("December 31,", "(In thousands)", "(Unaudited)"); `low` is lower case.
fn is_title_filler(low: &str) -> bool {
    months_in(low).is_some()
        || low
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .all(|w| MONTHS.contains(&w) || w.chars().all(|c| c.is_ascii_digit()) || FILLER_WORDS.contains(&w))
}

/// Is segment `i` the day of a date whose month ends the segment before ("December" "31")?
fn is_day_after_month(segs: &[Segment], i: usize) -> bool {
    let day = segs[i].text.trim_end_matches(',').parse::<u32>().is_ok_and(|d| (1..=31).contains(&d));
    day && i > 0 && segs[i - 1].text.split_whitespace().last().is_some_and(|w| MONTHS.contains(&w.to_lowercase().trim_end_matches(',')))
}

/// The tables of a page. Rows before the first header row are kept only if the page has no
/// header at all (then there is one column per number position).
pub fn tables(text: &str, boxes: &[CharBox]) -> Vec<Table> {
    let (unit, scale) = page_unit(text);
    let rows = visual_rows(words(text, boxes));
    let mut out: Vec<Table> = Vec::new();
    let mut pending_label: Option<(String, CharBox)> = None;
    // the heading of the section the rows are under ("Revenues", "Expenses"): a total row
    // printed with no label of its own is that section's total
    let mut section: Option<String> = None;
    let mut period_spans: Vec<(f32, f32, u8)> = Vec::new();
    // the heads of a row of words alone right above a header, in two or more runs (segments,
    // regions over their periods' columns)
    let mut group_heads: Vec<Segment> = Vec::new();
    // rows of words alone (titles, headings) since the last row with figures
    let mut words_above: Vec<String> = Vec::new();
    // the spans of the current header's heads that are not periods ("2020 Acquisitions
    // Other 2021 ...", a roll-forward's movements; "2018 2017 Change"): a figure under one of
    // them is that column's, never the nearest year's
    let mut other_heads: Vec<(f32, f32)> = Vec::new();
    for (ri, row) in rows.iter().enumerate() {
        let segs = segments(row);
        // a dash is a zero in a cell but a dash in a title ("SUPPLEMENTAL DATA – NET REVENUES")
        let figure = |s: &Segment| number_of(&s.text).is_some() && s.text.chars().any(|c| c.is_ascii_digit());
        // a sentence leading into a table, a figure inside it ("Summary combined financial
        // information for the joint ventures on a 100 percent basis is as follows:"): the next
        // table's title, not a row
        let line = segs.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join(" ");
        let words = line.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count();
        if line.trim_end().ends_with(':') && words >= 5 && segs.iter().filter(|s| figure(s)).count() == 1 {
            words_above.push(line);
            pending_label = None;
            continue;
        }
        if segs.iter().all(|s| !figure(s) && year_in(&s.text).is_none()) {
            // a title's words, not the period heads, dates and unit lines between it and the header
            let title_words = line.chars().any(char::is_alphabetic) && !is_title_filler(&line.to_lowercase());
            if title_words {
                words_above.push(line);
            }
            let heads: Vec<Segment> = segs.iter().filter(|s| s.text.chars().any(char::is_alphabetic) && months_in(&s.text).is_none()).cloned().collect();
            // a head's second line ("Corporate &" / "Investment Bank") joins the head above it;
            // a head of one line beside it ("Commercial Banking") joins the row of heads
            let below = |h: &Segment, g: &Segment| h.b.l < g.b.r && h.b.r > g.b.l && g.b.b - h.b.t < 2.0 * h.b.height().max(4.0);
            let continues = !group_heads.is_empty() && heads.iter().any(|h| group_heads.iter().any(|g| below(h, g)));
            if continues {
                for h in heads {
                    match group_heads.iter_mut().find(|g| below(&h, g)) {
                        Some(g) => {
                            g.text = format!("{} {}", g.text, h.text);
                            g.b = g.b.union(&h.b);
                        }
                        None => group_heads.push(h),
                    }
                }
                group_heads.sort_by(|a, b| a.b.l.total_cmp(&b.b.l));
            } else if heads.len() >= 2 || (heads.len() == 1 && segs.iter().any(|s| months_in(&s.text).is_some())) {
                // two or more heads, or one beside the period heading ("Three months ended
                // March 31," then "Corporate &" over the columns, its second line below)
                group_heads = heads;
            } else if title_words {
                group_heads.clear();
            }
        } else if segs.iter().enumerate().any(|(i, s)| figure(s) && year_in(&s.text).is_none() && !is_day_after_month(&segs, i)) {
            words_above.clear();
            group_heads.clear();
        }
        // period headings ("Three Months Ended ... Six Months Ended") for the next header row
        let spans: Vec<(f32, f32, u8)> = segs.iter().filter_map(|s| months_in(&s.text).map(|m| (s.b.l, s.b.r, m))).collect();
        if !spans.is_empty() && segs.iter().all(|s| number_of(&s.text).is_none()) {
            period_spans = spans;
            continue;
        }
        // a header row: two or more cells, each holding one year, and nothing else numeric
        let year_cells: Vec<(&Segment, i32)> = segs.iter().filter_map(|s| year_in(&s.text).map(|y| (s, y))).collect();
        let is_header = year_cells.len() >= 2
            && segs.iter().enumerate().all(|(i, s)| year_in(&s.text).is_some() || number_of(&s.text).is_none() || is_day_after_month(&segs, i))
            && year_cells.iter().all(|(s, _)| s.text.chars().filter(|c| c.is_ascii_digit()).count() <= 6);
        if is_header {
            let mut columns: Vec<Column> = year_cells
                .iter()
                .map(|(s, y)| {
                    let cx = (s.b.l + s.b.r) / 2.0;
                    let months = period_spans.iter().find(|(l, r, _)| cx >= *l - 40.0 && cx <= *r + 40.0).map(|p| p.2);
                    Column { year: *y, months, header: s.text.clone(), part: None, group: None, x: (s.b.l, s.b.r) }
                })
                .collect();
            // one period heading that no column sits under (printed left, over the labels:
            // "Three months ended June 30,"): every column is of that length
            if let [(_, _, m)] = period_spans[..] {
                if columns.iter().all(|c| c.months.is_none()) {
                    for c in &mut columns {
                        c.months = Some(m);
                    }
                }
            }
            // a date's month and day printed on the line above its year, one for each column,
            // not all the same ("March 31," over "2021", "December 31," over "2020"): the
            // column's header, not a group's head (the same date over every column, "December
            // 31," over "2018" and "2017", is the table's, which its context gives)
            let dated = |h: &Segment| month_day(&h.text).is_some() && h.text.split_whitespace().count() <= 3;
            let dates: Vec<Option<String>> = group_heads.iter().map(|h| month_day(&h.text)).collect();
            if group_heads.len() == columns.len() && columns.len() >= 2 && group_heads.iter().all(dated) && dates.iter().any(|d| *d != dates[0]) {
                for c in &mut columns {
                    let cx = (c.x.0 + c.x.1) / 2.0;
                    let above = group_heads
                        .iter()
                        .filter(|h| h.b.l - 40.0 <= cx && cx <= h.b.r + 40.0)
                        .min_by(|a, b| ((a.b.l + a.b.r) / 2.0 - cx).abs().total_cmp(&((b.b.l + b.b.r) / 2.0 - cx).abs()));
                    if let Some(h) = above.filter(|_| month_day(&c.header).is_none()) {
                        c.header = format!("{} {}", h.text.trim(), c.header);
                    }
                }
                group_heads.clear();
            }
            name_groups(&mut columns, &group_heads);
            let first_year = year_cells.iter().map(|(s, _)| (s.b.l + s.b.r) / 2.0).fold(f32::INFINITY, f32::min);
            other_heads = segs
                .iter()
                .filter(|s| year_in(&s.text).is_none() && is_other_head(&s.text) && (s.b.l + s.b.r) / 2.0 > first_year)
                .map(|s| (s.b.l, s.b.r))
                .collect();
            group_heads.clear();
            period_spans.clear();
            pending_label = None;
            section = None;
            let title = words_above.iter().rev().take(6).rev().cloned().collect::<Vec<_>>().join(" ");
            words_above.clear();
            out.push(Table { columns, rows: Vec::new(), scale, unit: unit.clone(), title });
            continue;
        }
        let _ = ri;
        let Some(table) = out.last_mut() else { continue };
        // sub-column heads right under the header ("Amount Rate Amount Rate"): each period's
        // column becomes its parts, left to right
        if table.rows.is_empty() && table.columns.iter().all(|c| c.part.is_none()) {
            if let Some(heads) = part_heads(&segs, row, table.columns.len()) {
                let k = heads.len() / table.columns.len();
                let mut cols = table.columns.clone();
                cols.sort_by(|a, b| a.x.0.total_cmp(&b.x.0));
                table.columns = cols
                    .iter()
                    .enumerate()
                    .flat_map(|(i, c)| {
                        heads[i * k..(i + 1) * k].iter().map(move |h| Column {
                            year: c.year,
                            months: c.months,
                            header: format!("{} {}", c.header, h.text),
                            part: Some(h.text.to_lowercase()),
                            group: c.group.clone(),
                            x: (h.b.l, h.b.r),
                        })
                    })
                    .collect();
                continue;
            }
        }
        // label = the text before the first number under a column; values = numbers after it.
        // A figure left of every column is the label's ("Common stock — par value $1.00 ...;
        // issued" / "3,119,843,000 shares) 3,120"), not a cell
        let under_a_column = |v: &Segment| {
            let cx = (v.b.l + v.b.r) / 2.0;
            table.columns.iter().any(|c| (cx >= c.x.0 && cx <= c.x.1) || (v.b.r - c.x.1).abs().min((cx - (c.x.0 + c.x.1) / 2.0).abs()) < 60.0)
        };
        let first_num = segs.iter().position(|s| number_of(&s.text).is_some() && under_a_column(s));
        let label_segs = &segs[..first_num.unwrap_or(segs.len())];
        let label_text: String = label_segs.iter().map(|s| s.text.as_str()).filter(|t| *t != "$").collect::<Vec<_>>().join(" ");
        let label_box = label_segs.iter().map(|s| s.b).reduce(|a, b| a.union(&b));
        let values: Vec<&Segment> = first_num.map(|i| segs[i..].iter().filter(|s| number_of(&s.text).is_some()).collect()).unwrap_or_default();
        if values.is_empty() {
            // a label alone: a heading, or the first line of a wrapped label
            pending_label = label_box.filter(|_| !label_text.is_empty()).map(|b| (label_text, b));
            continue;
        }
        let mut label = clean_label(&label_text);
        let mut named_from_section = false;
        let mut row_box = label_box.unwrap_or(values[0].b);
        let mut label_only = row_box;
        if let Some((prev, pb)) = pending_label.take() {
            let continues = label.chars().next().is_some_and(|c| c.is_lowercase() || c.is_ascii_digit())
                || label.is_empty()
                || prev.trim_end().ends_with([',', '-'])
                || prev.split_whitespace().last().is_some_and(|w| ["and", "of", "for", "in", "on", "to", "from", "the"].contains(&w));
            if continues && !prev.trim_end().ends_with(':') {
                label = clean_label(&format!("{prev} {label}"));
                row_box = row_box.union(&pb);
                label_only = label_only.union(&pb);
            } else {
                section = Some(clean_label(prev.trim_end_matches(':')));
            }
        } else if label.is_empty() {
            // an unlabelled row after a section's rows: the section's total
            if let Some(h) = section.take().filter(|h| !h.is_empty() && h.chars().any(char::is_alphabetic)) {
                label = if h.to_lowercase().starts_with("total") { h } else { format!("Total {}", h.to_lowercase()) };
                named_from_section = true;
            }
        }
        let under = if named_from_section { Some(label.clone()) } else { section.clone() };
        let mut cells: Vec<Option<Cell>> = vec![None; table.columns.len()];
        for v in values {
            let cx = (v.b.l + v.b.r) / 2.0;
            // the header whose span is nearest: right edges align in statements
            let best = table
                .columns
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let d = if cx >= c.x.0 && cx <= c.x.1 { 0.0 } else { (v.b.r - c.x.1).abs().min((cx - (c.x.0 + c.x.1) / 2.0).abs()) };
                    (i, d)
                })
                .min_by(|a, b| a.1.total_cmp(&b.1));
            let nearer_other = other_heads.iter().any(|&(l, r)| {
                let d = if cx >= l && cx <= r { 0.0 } else { (v.b.r - r).abs().min((cx - (l + r) / 2.0).abs()) };
                best.is_some_and(|(_, bd)| d < bd)
            });
            if let Some((i, d)) = best.filter(|_| !nearer_other) {
                if d < 60.0 && cells[i].is_none() {
                    let value = number_of(&v.text).expect("numeric segment");
                    cells[i] = Some(Cell { value, text: v.text.clone(), rect: rect(&v.b, &v.text) });
                }
            }
            row_box = row_box.union(&v.b);
        }
        if cells.iter().any(Option::is_some) {
            table.rows.push(Row { rect: rect(&row_box, &label), label_rect: rect(&label_only, &label), label, cells, named_from_section, section: under });
        }
    }
    out.retain(|t| !t.rows.is_empty());
    // an unlabelled row named as its section's total, where the table prints that total under
    // its own label further on, is a subtotal (J&J's equity before treasury stock): unnamed
    for t in &mut out {
        let printed: Vec<String> = t.rows.iter().filter(|r| !r.named_from_section).map(|r| r.label.to_lowercase()).collect();
        for r in t.rows.iter_mut().filter(|r| r.named_from_section) {
            if printed.contains(&r.label.to_lowercase()) {
                r.label.clear();
                r.label_rect.text.clear();
                r.rect.text.clear();
                r.named_from_section = false;
            }
        }
    }
    // a period heading that spans the whole header ("Fourth Quarter ... Three Months Ended")
    // but was matched to one column only: every column of the table is of that length
    for t in &mut out {
        let mut lengths: Vec<u8> = t.columns.iter().filter_map(|c| c.months).collect();
        lengths.sort_unstable();
        lengths.dedup();
        if let [m] = lengths[..] {
            for c in &mut t.columns {
                c.months.get_or_insert(m);
            }
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A page laid out from (text, x, y) cells with 6 pt wide characters, 8 pt tall.
    pub(crate) fn page(cells: &[(&str, f32, f32)]) -> (String, Vec<CharBox>) {
        let mut text = String::new();
        let mut boxes = Vec::new();
        for (s, x, y) in cells {
            for (i, c) in s.chars().enumerate() {
                text.push(c);
                let l = x + 6.0 * i as f32;
                boxes.push(if c == ' ' { CharBox::default() } else { CharBox { l, b: *y, r: l + 5.0, t: y + 8.0 } });
            }
            text.push('\n');
            boxes.push(CharBox::default());
        }
        (text, boxes)
    }

    /// A segment table as a bank's 10-Q prints it: one period heading left of the columns, three
    /// segments over their "2021 2020" columns, two of them on two lines, a second table on the
    /// same page with two segments and their total.
    pub(crate) const SEGMENTS: &[(&str, f32, f32)] = &[
        ("Segment results (in millions)", 30.0, 770.0),
        ("Three months ended March 31,", 10.0, 755.0),
        ("Consumer &", 200.0, 755.0),
        ("Corporate &", 330.0, 755.0),
        ("Community Banking", 200.0, 745.0),
        ("Investment Bank", 330.0, 745.0),
        ("Commercial Banking", 460.0, 745.0),
        ("(in millions, except ratios)", 30.0, 730.0),
        ("2021", 200.0, 730.0),
        ("2020", 250.0, 730.0),
        ("2021", 330.0, 730.0),
        ("2020", 380.0, 730.0),
        ("2021", 460.0, 730.0),
        ("2020", 510.0, 730.0),
        ("Total net revenue", 30.0, 715.0),
        ("12,517", 200.0, 715.0),
        ("13,287", 250.0, 715.0),
        ("14,605", 330.0, 715.0),
        ("10,003", 380.0, 715.0),
        ("2,393", 460.0, 715.0),
        ("2,165", 510.0, 715.0),
        ("Net income/(loss)", 30.0, 705.0),
        ("6,728", 200.0, 705.0),
        ("197", 250.0, 705.0),
        ("5,740", 330.0, 705.0),
        ("1,985", 380.0, 705.0),
        ("1,168", 460.0, 705.0),
        ("139", 510.0, 705.0),
        ("Three months ended March 31,", 10.0, 680.0),
        ("Asset Management", 200.0, 680.0),
        ("Corporate", 330.0, 680.0),
        ("Total", 460.0, 680.0),
        ("(in millions, except ratios)", 30.0, 665.0),
        ("2021", 200.0, 665.0),
        ("2020", 250.0, 665.0),
        ("2021", 330.0, 665.0),
        ("2020", 380.0, 665.0),
        ("2021", 460.0, 665.0),
        ("2020", 510.0, 665.0),
        ("Total net revenue", 30.0, 650.0),
        ("4,077", 200.0, 650.0),
        ("3,389", 250.0, 650.0),
        ("(473)", 330.0, 650.0),
        ("166", 380.0, 650.0),
        ("33,119", 460.0, 650.0),
        ("29,010", 510.0, 650.0),
        ("Net income/(loss)", 30.0, 640.0),
        ("1,244", 200.0, 640.0),
        ("669", 250.0, 640.0),
        ("(580)", 330.0, 640.0),
        ("(125)", 380.0, 640.0),
        ("14,300", 460.0, 640.0),
        ("2,865", 510.0, 640.0),
    ];

    #[test]
    fn heads_over_groups_of_columns_name_the_columns_members() {
        let (text, boxes) = page(SEGMENTS);
        let t = tables(&text, &boxes);
        assert_eq!(t.len(), 2, "{t:#?}");
        let groups: Vec<(Option<&str>, i32, Option<u8>)> = t[0].columns.iter().map(|c| (c.group.as_deref(), c.year, c.months)).collect();
        assert_eq!(
            groups,
            [
                (Some("Consumer & Community Banking"), 2021, Some(3)),
                (Some("Consumer & Community Banking"), 2020, Some(3)),
                (Some("Corporate & Investment Bank"), 2021, Some(3)),
                (Some("Corporate & Investment Bank"), 2020, Some(3)),
                (Some("Commercial Banking"), 2021, Some(3)),
                (Some("Commercial Banking"), 2020, Some(3)),
            ]
        );
        assert_eq!(
            t[1].columns.iter().map(|c| c.group.as_deref().unwrap_or("")).collect::<Vec<_>>(),
            ["Asset Management", "Asset Management", "Corporate", "Corporate", "Total", "Total"]
        );
        // a statement's plain header has no groups, and a title above it is not one
        let (text, boxes) = page(&[
            ("Consolidated Statement of Income", 50.0, 740.0),
            ("(in millions)", 50.0, 725.0),
            ("2019", 300.0, 700.0),
            ("2018", 400.0, 700.0),
            ("Net sales", 50.0, 690.0),
            ("5,000", 300.0, 690.0),
            ("4,000", 400.0, 690.0),
        ]);
        assert!(tables(&text, &boxes)[0].columns.iter().all(|c| c.group.is_none()));
    }

    #[test]
    fn a_date_printed_above_its_year_is_the_columns_header() {
        // JPMorgan's 10-Q: "March 31," over "2021", "December 31," over "2020"
        let (text, boxes) = page(&[
            ("(in millions)", 50.0, 740.0),
            ("March 31,", 300.0, 730.0),
            ("December 31,", 380.0, 730.0),
            ("2021", 312.0, 720.0),
            ("2020", 398.0, 720.0),
            ("Deposits", 50.0, 700.0),
            ("2,278,112", 290.0, 700.0),
            ("2,144,257", 380.0, 700.0),
        ]);
        let t = &tables(&text, &boxes)[0];
        let heads: Vec<&str> = t.columns.iter().map(|c| c.header.as_str()).collect();
        assert_eq!(heads, ["March 31, 2021", "December 31, 2020"]);
        assert!(t.columns.iter().all(|c| c.group.is_none()));
        // one date over every column, or the same date over each, is the table's: the headers
        // stay the years
        for heads in [&[("December 31", 340.0, 730.0)][..], &[("December 31,", 300.0, 730.0), ("December 31,", 380.0, 730.0)][..]] {
            let mut cells = heads.to_vec();
            cells.extend([("2018", 312.0, 720.0), ("2017", 398.0, 720.0), ("Total assets", 50.0, 700.0), ("36,500", 300.0, 700.0), ("37,987", 386.0, 700.0)]);
            let (text, boxes) = page(&cells);
            let t = &tables(&text, &boxes)[0];
            assert_eq!(t.columns.iter().map(|c| c.header.as_str()).collect::<Vec<_>>(), ["2018", "2017"]);
        }
    }

    #[test]
    fn a_roll_forwards_movement_columns_are_not_its_years() {
        // Adobe's goodwill note: balances at three year ends, the year's acquisitions and other
        // movements between them
        let mut cells = vec![
            ("(in millions)", 50.0, 720.0),
            ("2020", 200.0, 720.0),
            ("Acquisitions", 240.0, 720.0),
            ("Other(1)", 320.0, 720.0),
            ("2021", 380.0, 720.0),
            ("Acquisitions", 420.0, 720.0),
            ("Other(1)", 500.0, 720.0),
            ("2022", 560.0, 720.0),
        ];
        cells.extend([
            ("Goodwill", 50.0, 700.0),
            ("10,742", 194.0, 700.0),
            ("1,960", 264.0, 700.0),
            ("(34)", 334.0, 700.0),
            ("12,668", 374.0, 700.0),
            ("161", 450.0, 700.0),
            ("(42)", 514.0, 700.0),
            ("12,787", 554.0, 700.0),
        ]);
        let (text, boxes) = page(&cells);
        let t = &tables(&text, &boxes)[0];
        let read: Vec<(i32, String)> =
            t.columns.iter().zip(&t.rows[0].cells).map(|(c, v)| (c.year, v.as_ref().map(|v| v.text.clone()).unwrap_or_default())).collect();
        assert_eq!(read, [(2020, "10,742".to_string()), (2021, "12,668".to_string()), (2022, "12,787".to_string())]);
        // a change column beside two years is not the second year's
        let (text, boxes) = page(&[
            ("2019", 300.0, 700.0),
            ("2018", 360.0, 700.0),
            ("% Change", 420.0, 700.0),
            ("Net sales", 50.0, 690.0),
            ("5,000", 300.0, 690.0),
            ("12%", 432.0, 690.0),
        ]);
        let t = &tables(&text, &boxes)[0];
        assert!(t.rows[0].cells[1].is_none(), "{t:#?}");
        // a header's month words are not columns of their own
        assert!(!is_other_head("December 31,") && !is_other_head("Fiscal") && is_other_head("Acquisitions"));
    }

    #[test]
    fn a_unit_line_split_over_lines_or_by_no_break_spaces_is_read() {
        // Boeing's statement of financial position, Corning's balance sheet (as pdfium gives them)
        assert_eq!(page_unit("Consolidated Statements of Financial Position \n(Dollars\nin\nmillions,\nexcept\nper\nshare\ndata)").0, "millions");
        assert_eq!(page_unit("December\u{a0}31,\n(In\u{a0}millions,\u{a0}except\u{a0}share amounts) 2020 2019").0, "millions");
        assert_eq!(page_unit("BALANCE\nSHEETS\n(In\u{a0}thousands,\u{a0}except\u{a0}share\u{a0}data)").0, "thousands");
        assert_eq!(page_unit("Balance Sheet 2021 2020 Trade receivables 7,172").0, "units");
        // a count's unit is not the amounts' (Costco's RSU table above its expense table)
        assert_eq!(page_unit("Number of\nUnits\n(in 000's)\nOutstanding 5,174\nStock-based compensation expense $ 665").0, "units");
        assert_eq!(page_unit("Shares (in thousands) 12 Revenue (in thousands) 5").0, "thousands");
        assert_eq!(page_unit("(Dollars and Shares in Millions Except Per Share Amounts)").0, "millions");
    }

    #[test]
    fn an_unlabelled_total_row_is_its_sections_total() {
        // MGM's statement of operations prints its revenue total with no label under "Revenues"
        let (text, boxes) = page(&[
            ("(In thousands)", 50.0, 740.0),
            ("2020", 300.0, 720.0),
            ("2019", 400.0, 720.0),
            ("Revenues", 50.0, 700.0),
            ("Casino", 60.0, 690.0),
            ("2,871,720", 300.0, 690.0),
            ("6,517,759", 400.0, 690.0),
            ("Rooms", 60.0, 680.0),
            ("830,382", 300.0, 680.0),
            ("2,322,579", 400.0, 680.0),
            ("5,162,082", 300.0, 670.0),
            ("12,899,672", 400.0, 670.0),
            ("Expenses", 50.0, 650.0),
            ("Casino", 60.0, 640.0),
            ("1,701,783", 300.0, 640.0),
            ("3,623,899", 400.0, 640.0),
            ("5,847,454", 300.0, 630.0),
            ("9,078,978", 400.0, 630.0),
        ]);
        let t = &tables(&text, &boxes)[0];
        let labels: Vec<&str> = t.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, vec!["Casino", "Rooms", "Total revenues", "Casino", "Total expenses"]);
    }

    #[test]
    fn a_sentence_leading_into_a_table_is_its_title_not_a_row() {
        // General Mills' note: its joint ventures' combined statement, led in by a sentence with
        // a figure in it
        let (text, boxes) = page(&[
            ("Summary combined information for the joint ventures on a", 10.0, 730.0),
            ("100", 360.0, 730.0),
            ("percent basis is as follows:", 385.0, 730.0),
            ("2022", 400.0, 720.0),
            ("2021", 460.0, 720.0),
            ("Gross margin", 50.0, 700.0),
            ("803.1", 400.0, 700.0),
            ("882.9", 460.0, 700.0),
        ]);
        let t = tables(&text, &boxes);
        assert_eq!(t.len(), 1, "{t:?}");
        assert!(t[0].title.contains("joint ventures"), "{}", t[0].title);
        assert_eq!(t[0].rows.iter().map(|r| r.label.as_str()).collect::<Vec<_>>(), vec!["Gross margin"]);
    }

    #[test]
    fn a_figure_left_of_the_columns_is_the_labels_and_a_printed_total_wins_over_a_subtotal() {
        // J&J's balance sheet: a label wrapped over a share count, an unlabelled subtotal before
        // treasury stock, then the equity total under its own label
        let (text, boxes) = page(&[
            ("2022", 400.0, 720.0),
            ("2021", 460.0, 720.0),
            ("Shareholders' equity", 50.0, 700.0),
            ("Common stock — par value", 50.0, 690.0),
            ("$1.00", 200.0, 690.0),
            ("per share; issued", 240.0, 690.0),
            ("3,119,843,000", 50.0, 680.0),
            ("shares)", 140.0, 680.0),
            ("3,120", 400.0, 680.0),
            ("3,120", 460.0, 680.0),
            ("Retained earnings", 50.0, 670.0),
            ("128,345", 400.0, 670.0),
            ("123,060", 460.0, 670.0),
            ("118,498", 400.0, 660.0),
            ("113,122", 460.0, 660.0),
            ("Less: common stock held in treasury", 50.0, 650.0),
            ("41,694", 400.0, 650.0),
            ("39,099", 460.0, 650.0),
            ("Total shareholders' equity", 50.0, 640.0),
            ("76,804", 400.0, 640.0),
            ("74,023", 460.0, 640.0),
        ]);
        let t = &tables(&text, &boxes)[0];
        let labels: Vec<&str> = t.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            vec![
                "Common stock — par value $1.00 per share; issued 3,119,843,000 shares)",
                "Retained earnings",
                "",
                "Less: common stock held in treasury",
                "Total shareholders' equity"
            ]
        );
        assert_eq!(t.rows[0].cells[0].as_ref().map(|c| c.text.as_str()), Some("3,120"));
    }

    #[test]
    fn rows_columns_negatives_units_and_wrapped_labels() {
        let (text, boxes) = page(&[
            ("(Millions)", 50.0, 700.0),
            ("Six Months Ended", 300.0, 690.0),
            ("2023", 300.0, 680.0),
            ("2022", 400.0, 680.0),
            ("Net income including", 50.0, 660.0),
            ("noncontrolling interest", 50.0, 650.0),
            ("$", 280.0, 650.0),
            ("5,363", 300.0, 650.0),
            ("4,869", 400.0, 650.0),
            ("Purchases of PP&E (1)", 50.0, 640.0),
            ("(1,577)", 294.0, 640.0),
            ("(1,373)", 394.0, 640.0),
            ("Other", 50.0, 630.0),
            ("—", 318.0, 630.0),
            ("12.5", 400.0, 630.0),
        ]);
        let t = tables(&text, &boxes);
        assert_eq!(t.len(), 1, "{t:#?}");
        let t = &t[0];
        assert_eq!(t.unit, "millions");
        assert_eq!(t.columns.iter().map(|c| (c.year, c.months)).collect::<Vec<_>>(), vec![(2023, Some(6)), (2022, Some(6))]);
        let labels: Vec<&str> = t.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, vec!["Net income including noncontrolling interest", "Purchases of PP&E", "Other"]);
        let v = |r: usize, c: usize| t.rows[r].cells[c].as_ref().map(|x| x.value.to_string());
        assert_eq!((v(0, 0), v(0, 1)), (Some("5363".into()), Some("4869".into())));
        assert_eq!((v(1, 0), v(1, 1)), (Some("-1577".into()), Some("-1373".into())));
        assert_eq!((v(2, 0), v(2, 1)), (Some("0".into()), Some("12.5".into())));
        assert_eq!(t.rows[1].cells[0].as_ref().unwrap().rect.text, "(1,577)");
    }

    #[test]
    fn amount_and_rate_columns_under_each_year() {
        // a tax reconciliation: each year prints an amount and a rate (Boeing's 10-K)
        let (text, boxes) = page(&[
            ("Years ended December 31,", 50.0, 700.0),
            ("2022", 310.0, 700.0),
            ("2021", 430.0, 700.0),
            ("Amount", 280.0, 690.0),
            ("Rate", 340.0, 690.0),
            ("Amount", 400.0, 690.0),
            ("Rate", 460.0, 690.0),
            ("U.S. federal statutory tax", 50.0, 680.0),
            ("($1,054)", 274.0, 680.0),
            ("21.0 %", 340.0, 680.0),
            ("($1,057)", 394.0, 680.0),
            ("21.0 %", 460.0, 680.0),
            ("Income tax expense/(benefit)", 50.0, 670.0),
            ("$31", 292.0, 670.0),
            ("(0.6)%", 340.0, 670.0),
            ("($743)", 400.0, 670.0),
            ("14.7 %", 460.0, 670.0),
        ]);
        let t = &tables(&text, &boxes)[0];
        let heads: Vec<(i32, Option<&str>)> = t.columns.iter().map(|c| (c.year, c.part.as_deref())).collect();
        assert_eq!(heads, vec![(2022, Some("amount")), (2022, Some("rate")), (2021, Some("amount")), (2021, Some("rate"))]);
        assert!(t.columns[1].is_rate() && !t.columns[0].is_rate());
        let row = t.rows.iter().find(|r| r.label == "Income tax expense/(benefit)").unwrap();
        let cells: Vec<Option<&str>> = row.cells.iter().map(|c| c.as_ref().map(|c| c.text.as_str())).collect();
        // "14.7 %" prints its sign apart: the cell is the figure, read as a rate by its column
        assert_eq!(cells, vec![Some("$31"), Some("(0.6)%"), Some("($743)"), Some("14.7")]);
    }

    #[test]
    fn numbers_as_printed() {
        let n = |s| number_of(s).map(|r| r.to_string());
        assert_eq!(n("$1,577"), Some("1577".into()));
        assert_eq!(n("(370)"), Some("-370".into()));
        assert_eq!(n("($ 12.5)"), Some("-12.5".into()));
        assert_eq!(n("—"), Some("0".into()));
        assert_eq!(n("45.3%"), Some("45.3".into()));
        assert_eq!(n("Net"), None);
        assert_eq!(n("1,57"), None);
        assert_eq!(n("(a)"), None);
        assert_eq!(clean_label("Revenue (1)"), "Revenue");
        assert_eq!(clean_label("Total assets ......"), "Total assets");
        assert_eq!(page_unit("(in thousands, except per share data)").0, "thousands");
    }
}
