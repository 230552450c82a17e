//! What the library says of an answer, for the rule book's rules that read it
//! ([`crate::judge::Lookups`]): the quoted row printed larger elsewhere in the filing, a figure
//! printed only under part-year columns, a later filing of the company, a company named that the
//! library holds no filing of. A lookup that fails keeps its error, which the ask returns after
//! judging ([`LibraryLookups::error`]).

use crate::error::{LensError, Result};
use crate::filter::DocFilter;
use crate::library::Library;
use crate::pageref::PageRef;
use crate::question::Question;
use crate::retrieve::SearchRequest;
use std::cell::RefCell;

/// The library's answers to the rules' lookups, for one question.
pub struct LibraryLookups<'a> {
    lib: &'a Library,
    question: &'a Question,
    filter: Option<&'a DocFilter>,
    failed: RefCell<Option<LensError>>,
}

impl<'a> LibraryLookups<'a> {
    pub fn new(lib: &'a Library, question: &'a Question, filter: Option<&'a DocFilter>) -> LibraryLookups<'a> {
        LibraryLookups { lib, question, filter, failed: RefCell::new(None) }
    }

    /// The first lookup's error, if one failed.
    pub fn error(&self) -> Result<()> {
        match self.failed.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn kept<T>(&self, r: Result<Option<T>>) -> Option<T> {
        match r {
            Ok(v) => v,
            Err(e) => {
                self.failed.borrow_mut().get_or_insert(e);
                None
            }
        }
    }
}

impl crate::judge::Lookups for LibraryLookups<'_> {
    fn larger_elsewhere(&self, page: &PageRef, quote: &str) -> Option<(String, PageRef)> {
        self.kept(larger_elsewhere(self.lib, page, quote))
    }

    fn part_year_months(&self, page: &PageRef, answer: &str) -> Option<u8> {
        only_in_part_year_columns(&self.lib.page_tables(page), answer)
    }

    fn later_filing(&self, doc_id: &str) -> Option<(i32, String, i32)> {
        let f = self.filter.filter(|f| !f.companies.is_empty())?;
        let year_of = |d: &str| self.lib.document(d).ok().and_then(|d| d.year);
        let mine = year_of(doc_id)?;
        let (later, year) = f.groups.iter().flatten().filter_map(|d| year_of(d).map(|y| (d.clone(), y))).max_by_key(|(_, y)| *y)?;
        Some((mine, later, year))
    }

    fn flagged_facts(&self, page: &PageRef) -> Vec<crate::facts::FlaggedFact> {
        let Ok(doc) = self.lib.document(&page.doc_id) else { return Vec::new() };
        self.kept(crate::facts::stored::flagged_on(self.lib.store(), doc.key, page.page).map(Some)).unwrap_or_default()
    }

    fn absent_company(&self) -> Option<(String, Vec<String>)> {
        let company = self.kept(company_not_held(self.lib, self.question))?;
        let names = self.kept(self.lib.company_names().map(Some))?;
        Some((company, names))
    }

    fn row_years(&self, page: &PageRef, quote: &str) -> Vec<i32> {
        let tables = self.lib.page_tables(page);
        let Some((t, row)) = crate::figures::shown::row_of(&tables, quote) else { return Vec::new() };
        let mut years: Vec<i32> = Vec::new();
        for y in crate::figures::shown::filled_columns(t, row).map(|i| t.columns[i].year) {
            if !years.contains(&y) {
                years.push(y);
            }
        }
        years
    }
}

/// When every cell of `tables` holding one of the answer's figures lies in a column of part of
/// a year ("Three Months Ended"), that column's months; None when a figure is in a year's
/// column or nowhere in the tables.
fn only_in_part_year_columns(tables: &[crate::figures::table::Table], answer: &str) -> Option<u8> {
    let stated: Vec<f64> = crate::evidence::numbers(answer).into_iter().filter(|(n, ..)| n.salient && !n.is_year).map(|(n, ..)| n.value).collect();
    let mut months: Vec<u8> = Vec::new();
    for t in tables {
        for r in &t.rows {
            for (i, c) in r.cells.iter().enumerate() {
                let Some(c) = c else { continue };
                if stated.iter().any(|v| (c.value.to_f64() - v).abs() <= 0.005 * v.abs().max(1.0)) {
                    match t.columns.get(i).and_then(|col| col.months).filter(|m| *m < 12) {
                        Some(m) => months.push(m),
                        None => return None,
                    }
                }
            }
        }
    }
    months.first().copied()
}

/// The largest figure (in units) of the rows labelled `label` in `tables`; None when no row
/// has that label.
fn row_sizes(tables: &[crate::figures::table::Table], label: &str) -> Option<f64> {
    let want = crate::figures::catalogue::norm(label);
    let want = want.as_str();
    tables
        .iter()
        .flat_map(|t| t.rows.iter().filter(move |r| crate::figures::catalogue::norm(&r.label) == want).map(move |r| (t, r)))
        .filter_map(|(t, r)| r.cells.iter().flatten().filter_map(|c| c.value.checked_mul(t.scale)).map(|v| v.to_f64().abs()).reduce(f64::max))
        .reduce(f64::max)
}

/// When the row quoted on `page` is printed under the same label elsewhere in the filing with
/// figures at least three times as large, the row's label and that page: the quoted row is
/// likely a part's (a segment's, a subsidiary's), not the company's.
fn larger_elsewhere(lib: &Library, page: &PageRef, quote: &str) -> Result<Option<(String, PageRef)>> {
    if !crate::support::is_table_row(quote) {
        return Ok(None);
    }
    // the row's label: its words before the first figure
    let label: String = quote
        .split_whitespace()
        .take_while(|w| {
            let t = w.trim_start_matches(['(', '$', '-', '—', '–']);
            !t.is_empty() && !t.starts_with(|c: char| c.is_ascii_digit())
        })
        .collect::<Vec<_>>()
        .join(" ");
    // a footnote mark is not part of the label ("Total Operating Revenues(1)")
    let label = match label.rfind('(') {
        Some(i) if label.ends_with(')') && label.len() - i <= 4 => label[..i].trim_end().to_string(),
        _ => label,
    };
    if label.split_whitespace().count() < 2 {
        return Ok(None);
    }
    // the row as the page's tables read it, else the quote's own figures in the page's unit
    let from_quote = || -> Result<Option<f64>> {
        let text = lib.store().page(&page.doc_id, page.page)?.text;
        let (_, scale) = crate::figures::table::page_unit(&text);
        let biggest = crate::evidence::numbers(quote).into_iter().filter(|(n, ..)| n.salient && !n.is_year).map(|(n, ..)| n.value.abs()).reduce(f64::max);
        Ok(biggest.map(|v| v * scale.to_f64()))
    };
    let mine = match row_sizes(&lib.page_tables(page), &label) {
        Some(v) => Some(v),
        None => from_quote()?,
    };
    let Some(mine) = mine.filter(|v| *v > 0.0) else { return Ok(None) };
    let req = SearchRequest::lookup(label.clone(), &page.doc_id, 10);
    for h in lib.search(&req)?.hits {
        let other = h.page_ref();
        if other == *page {
            continue;
        }
        if let Some(theirs) = row_sizes(&lib.page_tables(&other), &label) {
            if theirs >= 3.0 * mine {
                return Ok(Some((label, other)));
            }
        }
    }
    Ok(None)
}

/// A company the question names as a possessor ("What was Intel's net income?") that the
/// company list knows (`resources/companies.json`) and the library holds no filing of: its name
/// as written. None when the possessor is a company of the library, or not a known company (a
/// segment, a product: "AWS's operating income").
pub fn company_not_held(lib: &Library, question: &Question) -> Result<Option<String>> {
    let text = question.text.replace('’', "'");
    let mut held: Option<Vec<String>> = None;
    let pieces: Vec<&str> = text.split("'s ").collect();
    for head in &pieces[..pieces.len().saturating_sub(1)] {
        // the capitalised words before "'s", back to a lower-case word: "Bank of America"
        let words: Vec<&str> = head.split_whitespace().collect();
        let mut start = words.len();
        while start > 0 {
            let w = words[start - 1];
            let joins = ["of", "&", "and", "the"].contains(&w) && start >= 2 && start < words.len();
            if w.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit()) || joins {
                start -= 1;
            } else {
                break;
            }
        }
        // the sentence's first word is capitalised anyway ("Management's discussion")
        if start >= words.len() || (start == 0 && words.len() == 1) {
            continue;
        }
        let name = words[start..].join(" ");
        let norm = crate::text::normalize_name(&name);
        let Some(entry) = lib.companies.companies.iter().find(|e| e.names.iter().chain(&e.aliases).any(|n| *n == norm)) else { continue };
        let held = match &mut held {
            Some(h) => h,
            None => {
                let mut names = Vec::new();
                for c in lib.company_names()? {
                    names.push(crate::text::normalize_name(&c));
                    names.extend(lib.companies.extra_aliases(&[], Some(&c)));
                }
                held.insert(names)
            }
        };
        if !entry.names.iter().chain(&entry.aliases).any(|n| held.contains(n)) {
            return Ok(Some(name));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Lookups;

    #[test]
    fn the_latest_filing_of_the_companies_named_is_found() {
        let mut lib = Library::in_memory().unwrap();
        for (id, year) in [("ACME_2018_10K", 2018), ("ACME_2022_10K", 2022)] {
            let page = crate::store::NewPage {
                page: 1,
                text: "Cash and cash equivalents 3,300",
                heading: "",
                boxes: &[],
                width: 612.0,
                height: 792.0,
                needs_ocr: false,
                label: None,
            };
            let meta = crate::meta::DocMeta { company: Some("Acme".into()), year: Some(year), form: Some("10-K".into()), ..Default::default() };
            let key = lib.store_mut().insert_pending(id, "/x.pdf", 1, id, &meta, &[page]).unwrap();
            lib.store_mut().publish(key, &[]).unwrap();
        }
        let filter = DocFilter {
            companies: vec!["acme".into()],
            years: Vec::new(),
            forms: Vec::new(),
            groups: vec![vec!["ACME_2018_10K".into(), "ACME_2022_10K".into()]],
            key_groups: Vec::new(),
        };
        let q = lib.read_question("How much cash does ACME have?");
        let look = LibraryLookups::new(&lib, &q, Some(&filter));
        assert_eq!(look.later_filing("ACME_2018_10K"), Some((2018, "ACME_2022_10K".to_string(), 2022)));
        assert_eq!(look.later_filing("ACME_2022_10K"), Some((2022, "ACME_2022_10K".to_string(), 2022)));
        assert_eq!(LibraryLookups::new(&lib, &q, None).later_filing("ACME_2018_10K"), None, "no company named: no filing is later");
        assert!(look.error().is_ok());
    }

    #[test]
    fn a_figure_printed_only_under_a_quarters_column_is_found() {
        let (text, boxes) = crate::figures::table::tests::page(&[
            ("Three Months Ended", 280.0, 710.0),
            ("2022", 300.0, 700.0),
            ("2021", 400.0, 700.0),
            ("Research and development expense", 50.0, 690.0),
            ("3,841", 300.0, 690.0),
            ("4,720", 400.0, 690.0),
        ]);
        let tables = crate::figures::table::tables(&text, &boxes);
        assert_eq!(only_in_part_year_columns(&tables, "3,841"), Some(3), "{tables:?}");
        assert_eq!(only_in_part_year_columns(&tables, "14,603"), None, "not on the page: another check's business");
    }
}
