//! Financial-statement tables recovered from a page's stored text and character boxes.
//!
//! Words are grouped into visual rows by their vertical position (pdfium's text order puts each
//! cell on its own line, so the text's lines are not rows); a row is a label (its text on the
//! left) and the numbers to its right. Header rows are rows whose cells hold years ("2018 2017",
//! "December 31, 2019"), with the period above them ("Three Months Ended", "Six Months Ended");
//! each number is put in the column whose header is nearest horizontally. Parentheses are
//! negative, dashes zero, `$` signs and footnote marks are dropped, labels that wrap onto a second
//! line are joined, and the page's unit ("in millions", "(Thousands)") scales every value.

use super::ratio::Ratio;
use crate::boxes::CharBox;
use crate::evidence::EvidenceBox;
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
    #[serde(skip)]
    x: (f32, f32),
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
}

#[derive(Debug, Clone, Serialize)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// Multiplier from the table's unit to units (1e6 for "in millions"); 1 when unstated.
    #[serde(skip)]
    pub scale: Ratio,
    pub unit: String,
}

/// What a page's unit line says: ("in millions", 1e6).
pub fn page_unit(text: &str) -> (String, Ratio) {
    let t = text.to_lowercase();
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
        if words.iter().any(|w| t.contains(w)) {
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

/// The tables of a page. Rows before the first header row are kept only if the page has no
/// header at all (then there is one column per number position).
pub fn tables(text: &str, boxes: &[CharBox]) -> Vec<Table> {
    let (unit, scale) = page_unit(text);
    let rows = visual_rows(words(text, boxes));
    let mut out: Vec<Table> = Vec::new();
    let mut pending_label: Option<(String, CharBox)> = None;
    let mut period_spans: Vec<(f32, f32, u8)> = Vec::new();
    for (ri, row) in rows.iter().enumerate() {
        let segs = segments(row);
        // period headings ("Three Months Ended ... Six Months Ended") for the next header row
        let spans: Vec<(f32, f32, u8)> = segs.iter().filter_map(|s| months_in(&s.text).map(|m| (s.b.l, s.b.r, m))).collect();
        if !spans.is_empty() && segs.iter().all(|s| number_of(&s.text).is_none()) {
            period_spans = spans;
            continue;
        }
        // a header row: two or more cells, each holding one year, and nothing else numeric
        let year_cells: Vec<(&Segment, i32)> = segs.iter().filter_map(|s| year_in(&s.text).map(|y| (s, y))).collect();
        let is_header = year_cells.len() >= 2
            && segs.iter().all(|s| year_in(&s.text).is_some() || number_of(&s.text).is_none())
            && year_cells.iter().all(|(s, _)| s.text.chars().filter(|c| c.is_ascii_digit()).count() <= 6);
        if is_header {
            let columns = year_cells
                .iter()
                .map(|(s, y)| {
                    let cx = (s.b.l + s.b.r) / 2.0;
                    let months = period_spans.iter().find(|(l, r, _)| cx >= *l - 40.0 && cx <= *r + 40.0).map(|p| p.2);
                    Column { year: *y, months, header: s.text.clone(), x: (s.b.l, s.b.r) }
                })
                .collect();
            period_spans.clear();
            pending_label = None;
            out.push(Table { columns, rows: Vec::new(), scale, unit: unit.clone() });
            continue;
        }
        let _ = ri;
        let Some(table) = out.last_mut() else { continue };
        // label = the text before the first number; values = numbers after it
        let first_num = segs.iter().position(|s| number_of(&s.text).is_some());
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
        let mut row_box = label_box.unwrap_or(values[0].b);
        let mut label_only = row_box;
        if let Some((prev, pb)) = pending_label.take() {
            let continues = label.chars().next().is_some_and(|c| c.is_lowercase())
                || label.is_empty()
                || prev.trim_end().ends_with([',', '-'])
                || prev.split_whitespace().last().is_some_and(|w| ["and", "of", "for", "in", "on", "to", "from", "the"].contains(&w));
            if continues && !prev.trim_end().ends_with(':') {
                label = clean_label(&format!("{prev} {label}"));
                row_box = row_box.union(&pb);
                label_only = label_only.union(&pb);
            }
        }
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
            if let Some((i, d)) = best {
                if d < 60.0 && cells[i].is_none() {
                    let value = number_of(&v.text).expect("numeric segment");
                    cells[i] = Some(Cell { value, text: v.text.clone(), rect: rect(&v.b, &v.text) });
                }
            }
            row_box = row_box.union(&v.b);
        }
        if cells.iter().any(Option::is_some) {
            table.rows.push(Row { rect: rect(&row_box, &label), label_rect: rect(&label_only, &label), label, cells });
        }
    }
    out.retain(|t| !t.rows.is_empty());
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
