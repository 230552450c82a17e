//! Spreadsheets of what an auditor checks: logged answers with every operand of their worked
//! calculation (or their quote), and the tables read from a page. Each figure goes with its
//! period, value, unit, page (PDF index and printed label), box in PDF points, document, file
//! and the file's sha256, so a reviewer can trace it without the app.
//!
//! A workbook is a list of [`Sheet`]s; [`csv`] writes one (the sheet of figures, one row each),
//! [`xlsx`] writes them all as an Excel workbook (through `rust_xlsxwriter`).

use crate::error::{LensError, Result};
use crate::evidence::EvidenceBox;
use crate::pageref::PageRef;
use crate::workpaper::Workpaper;
use crate::Library;

/// One cell of a sheet.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Text(String),
    Number(f64),
    Empty,
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Text(s)
    }
}

impl From<f64> for Value {
    fn from(n: f64) -> Value {
        Value::Number(n)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Number(n as f64)
    }
}

/// A sheet: its name and rows, the first row its header.
#[derive(Debug, Clone, PartialEq)]
pub struct Sheet {
    pub name: String,
    pub rows: Vec<Vec<Value>>,
}

/// Sheets to write; `figures` is the one a CSV holds (one row per figure).
#[derive(Debug, Clone, PartialEq)]
pub struct Book {
    pub sheets: Vec<Sheet>,
    pub figures: usize,
}

/// The columns that trace a figure to its page: page, printed page, box, document, file, sha256.
const TRACE: [&str; 9] = ["Page", "Printed page", "Box left (pt)", "Box bottom (pt)", "Box right (pt)", "Box top (pt)", "Document", "File", "sha256"];

fn trace(page: &PageRef, shown: &str, b: Option<&EvidenceBox>, doc: &DocNames) -> Vec<Value> {
    let mut row: Vec<Value> = vec![page.to_string().into(), shown.into()];
    match b {
        Some(b) => row.extend([b.l, b.b, b.r, b.t].map(|x| Value::Number((x as f64 * 10.0).round() / 10.0))),
        None => row.extend([Value::Empty, Value::Empty, Value::Empty, Value::Empty]),
    }
    row.extend([doc.name.clone().into(), doc.file.clone().into(), doc.sha256.clone().into()]);
    row
}

/// What names a document in a sheet.
#[derive(Debug, Clone, Default)]
struct DocNames {
    name: String,
    file: String,
    sha256: String,
}

/// "(1,577)", "-1577", "$1,577.5" as a number; `None` for anything else.
pub fn number(printed: &str) -> Option<f64> {
    let t = printed.trim();
    let negative = t.starts_with('(') && t.ends_with(')') || t.starts_with('-') || t.starts_with('−');
    let digits: String = t.chars().filter(|c| c.is_ascii_digit() || *c == '.').collect();
    if digits.is_empty() || digits.chars().filter(|c| *c == '.').count() > 1 || t.chars().any(|c| c.is_alphabetic()) {
        return None;
    }
    let v: f64 = digits.parse().ok()?;
    Some(if negative { -v } else { v })
}

/// The answers of a workpaper (not rendered: pages are not needed) as two sheets: the answers,
/// and their evidence, one row per operand of a worked calculation, else per quoted line.
pub fn answers(w: &Workpaper) -> Book {
    let mut answers = Sheet {
        name: "Answers".into(),
        rows: vec![["Log id", "Asked (UTC)", "Question", "Answer", "Label", "Result", "Formula", "Cited pages", "Quote", "Feedback note"]
            .map(Value::from)
            .to_vec()],
    };
    let mut header: Vec<Value> = ["Log id", "Question", "Kind", "Item", "Period", "Value", "As printed", "Unit"].map(Value::from).to_vec();
    header.extend(TRACE.map(Value::from));
    let mut evidence = Sheet { name: "Evidence".into(), rows: vec![header] };
    for e in &w.entries {
        let a = &e.answer;
        let calc = a.calculation.as_ref();
        let label = if a.not_found {
            "not found"
        } else {
            match a.support {
                crate::support::Support::Strong => "supported",
                crate::support::Support::Weak => "low confidence",
                crate::support::Support::None => "",
            }
        };
        answers.rows.push(vec![
            e.log_id.into(),
            e.time.as_str().into(),
            e.question.as_str().into(),
            a.answer.as_str().into(),
            label.into(),
            calc.and_then(|c| c.result.clone()).map_or(Value::Empty, Value::Text),
            calc.map_or(Value::Empty, |c| c.formula.as_str().into()),
            a.citations.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ").into(),
            a.quote.clone().map_or(Value::Empty, Value::Text),
            e.feedback_note.clone().map_or(Value::Empty, Value::Text),
        ]);
        let doc_of = |p: &PageRef| -> (DocNames, String) {
            match e.exhibits.iter().find(|x| &x.page == p) {
                Some(x) => (DocNames { name: x.document.clone(), file: x.file_name.clone(), sha256: x.sha256.clone() }, x.shown.clone()),
                None => (DocNames { name: p.doc_id.clone(), ..Default::default() }, format!("PDF page {}", p.page)),
            }
        };
        match calc.filter(|c| !c.operands.is_empty()) {
            Some(c) => {
                for o in &c.operands {
                    let (doc, shown) = doc_of(&o.page);
                    let mut row: Vec<Value> = vec![
                        e.log_id.into(),
                        e.question.as_str().into(),
                        "operand".into(),
                        o.name.as_str().into(),
                        o.period.as_str().into(),
                        number(&o.value).map_or_else(|| Value::Text(o.value.clone()), Value::Number),
                        o.quote.as_str().into(),
                        o.unit.as_str().into(),
                    ];
                    // the cell's box (the last: the row label's comes first)
                    row.extend(trace(&o.page, &shown, o.boxes.last(), &doc));
                    evidence.rows.push(row);
                }
            }
            None if !a.not_found => {
                for p in &a.citations {
                    let (doc, shown) = doc_of(p);
                    let boxes: Vec<&EvidenceBox> = e.exhibits.iter().filter(|x| &x.page == p).flat_map(|x| &x.boxes).collect();
                    let mut row: Vec<Value> = vec![
                        e.log_id.into(),
                        e.question.as_str().into(),
                        "quote".into(),
                        Value::Empty,
                        Value::Empty,
                        Value::Empty,
                        a.quote.clone().unwrap_or_else(|| a.answer.clone()).into(),
                        Value::Empty,
                    ];
                    row.extend(trace(p, &shown, boxes.first().copied(), &doc));
                    evidence.rows.push(row);
                }
            }
            None => {}
        }
    }
    Book { sheets: vec![answers, evidence], figures: 1 }
}

impl Library {
    /// The tables read from `page` ([`Library::page_tables`]): one sheet per table as printed
    /// (rows by columns), and a sheet of its figures, one row each with its trace.
    pub fn tables_book(&self, page: &PageRef) -> Result<Book> {
        self.check_page(&page.doc_id, page.page)?;
        let tables = self.page_tables(page);
        if tables.is_empty() {
            return Err(LensError::NotFound(format!("{page}: no table with year or period columns was read from this page")));
        }
        let view = self.document_view(self.document(&page.doc_id)?);
        let doc = DocNames { name: view.name.clone(), file: crate::workpaper::file_name(&view.doc.path), sha256: view.doc.sha256.clone() };
        let shown = self.page_shown(page);
        let mut sheets = Vec::new();
        let mut header: Vec<Value> = ["Table", "Row", "Column", "Year", "Months", "Value", "As printed", "Unit"].map(Value::from).to_vec();
        header.extend(TRACE.map(Value::from));
        let mut figures = Sheet { name: "Figures".into(), rows: vec![header] };
        for (i, t) in tables.iter().enumerate() {
            let col_name = |c: &crate::figures::table::Column| -> String {
                let mut s = c.group.as_deref().map(|g| format!("{g}: ")).unwrap_or_default();
                s.push_str(&c.header);
                if let Some(p) = &c.part {
                    s.push_str(&format!(" ({p})"));
                }
                s
            };
            let mut rows: Vec<Vec<Value>> = Vec::new();
            rows.push(vec![format!("{} · {} · {}", view.name, shown, t.unit).into()]);
            if !t.title.is_empty() {
                rows.push(vec![t.title.as_str().into()]);
            }
            let mut head: Vec<Value> = vec!["Row".into()];
            head.extend(t.columns.iter().map(|c| Value::from(col_name(c))));
            rows.push(head);
            for r in &t.rows {
                let mut row: Vec<Value> = vec![r.label.as_str().into()];
                for (j, c) in r.cells.iter().enumerate() {
                    let Some(c) = c else {
                        row.push(Value::Empty);
                        continue;
                    };
                    let v = number(&c.text).unwrap_or_else(|| c.value.to_f64());
                    row.push(v.into());
                    let col = &t.columns[j.min(t.columns.len() - 1)];
                    let mut f: Vec<Value> = vec![
                        ((i + 1) as i64).into(),
                        r.label.as_str().into(),
                        col_name(col).into(),
                        (col.year as i64).into(),
                        col.months.map_or(Value::Empty, |m| (m as i64).into()),
                        v.into(),
                        c.text.as_str().into(),
                        t.unit.as_str().into(),
                    ];
                    f.extend(trace(page, &shown, Some(&c.rect), &doc));
                    figures.rows.push(f);
                }
                rows.push(row);
            }
            sheets.push(Sheet { name: format!("Table {}", i + 1), rows });
        }
        let at = sheets.len();
        sheets.push(figures);
        Ok(Book { sheets, figures: at })
    }
}

/// The book as a file's bytes: a CSV of its sheet of figures, or the whole Excel workbook.
pub fn bytes(book: &Book, excel: bool) -> Result<Vec<u8>> {
    if excel {
        xlsx(book)
    } else {
        Ok(csv(&book.sheets[book.figures]).into_bytes())
    }
}

/// One sheet as CSV (RFC 4180: fields with a comma, quote or line break quoted, quotes doubled).
pub fn csv(sheet: &Sheet) -> String {
    let mut out = String::new();
    for row in &sheet.rows {
        let fields: Vec<String> = row
            .iter()
            .map(|v| match v {
                Value::Text(s) if s.contains([',', '"', '\n', '\r']) => format!("\"{}\"", s.replace('"', "\"\"")),
                Value::Text(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Empty => String::new(),
            })
            .collect();
        out.push_str(&fields.join(","));
        out.push_str("\r\n");
    }
    out
}

/// The book as an Excel workbook (.xlsx): each sheet with its header bold and frozen.
pub fn xlsx(book: &Book) -> Result<Vec<u8>> {
    use rust_xlsxwriter::{Format, Workbook};
    let err = |e: rust_xlsxwriter::XlsxError| LensError::Export(e.to_string());
    let mut wb = Workbook::new();
    let bold = Format::new().set_bold();
    for s in &book.sheets {
        let ws = wb.add_worksheet();
        ws.set_name(sheet_name(&s.name)).map_err(err)?;
        // a table's sheet opens with lines naming it: its header is the row starting "Row"
        let header_at = s.rows.iter().position(|r| matches!(r.first(), Some(Value::Text(t)) if t == "Row")).unwrap_or(0);
        for (i, row) in s.rows.iter().enumerate() {
            for (j, v) in row.iter().enumerate() {
                let (r, c) = (i as u32, j as u16);
                match v {
                    Value::Text(t) if i == header_at => ws.write_string_with_format(r, c, t, &bold).map(|_| ()),
                    Value::Text(t) => ws.write_string(r, c, t).map(|_| ()),
                    Value::Number(n) => ws.write_number(r, c, *n).map(|_| ()),
                    Value::Empty => Ok(()),
                }
                .map_err(err)?;
            }
        }
        ws.set_freeze_panes((header_at + 1) as u32, 0).map_err(err)?;
        ws.set_autofit_max_width(480);
        ws.autofit();
    }
    wb.save_to_buffer().map_err(err)
}

/// A name Excel takes for a sheet: at most 31 characters, none of `[]:*?/\`.
fn sheet_name(name: &str) -> String {
    let clean: String = name.chars().map(|c| if "[]:*?/\\".contains(c) { ' ' } else { c }).collect();
    clean.chars().take(31).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_figures_are_read_as_numbers() {
        for (printed, want) in [
            ("(1,577)", Some(-1577.0)),
            ("-1577", Some(-1577.0)),
            ("$1,577.5", Some(1577.5)),
            ("36,500", Some(36500.0)),
            ("n/a", None),
            ("", None),
            ("1.2.3", None),
        ] {
            assert_eq!(number(printed), want, "{printed}");
        }
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let s = Sheet {
            name: "x".into(),
            rows: vec![
                vec!["Item".into(), "Value".into()],
                vec!["Property, plant and \"equipment\"".into(), Value::Number(-1577.0)],
                vec![Value::Empty, 2.5.into()],
            ],
        };
        assert_eq!(csv(&s), "Item,Value\r\n\"Property, plant and \"\"equipment\"\"\",-1577\r\n,2.5\r\n");
    }

    #[test]
    fn a_workbook_is_a_zip_of_sheets() {
        let book = Book {
            sheets: vec![
                Sheet { name: "Evidence: a/b".into(), rows: vec![vec!["Item".into()], vec![1.0.into()]] },
                Sheet { name: "Answers".into(), rows: vec![] },
            ],
            figures: 0,
        };
        let bytes = xlsx(&book).unwrap();
        assert_eq!(&bytes[..2], b"PK");
        assert_eq!(sheet_name("Evidence: a/b"), "Evidence  a b");
    }
}
