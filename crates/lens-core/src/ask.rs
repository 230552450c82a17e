//! Ask, in three phases so that no lock is held while an answerer runs:
//!
//! 1. [`Library::retrieve_for`] (reads the library): validate, search, load the page texts;
//! 2. [`answer_pages`] (no library): the answerer reads the pages and streams its text;
//! 3. [`Library::finish_ask`] (reads and appends): locate the evidence on the cited page, log.
//!
//! [`Library::ask_with`] runs the three in a row for callers that own the library (the CLI,
//! evals); the service layer runs phase 2 between two short holds of its library lock.

use crate::answer::{self, Answer, Answerer, AnswererKind, PageInput};
use crate::calc::Calculation;
use crate::error::{LensError, Result};
use crate::evidence::FoundBy;
use crate::evidence::{Evidence, EvidenceBox};
use crate::filter::DocFilter;
use crate::library::Library;
use crate::log::LogEntry;
use crate::pageref::PageRef;
use crate::question::{Operation, Question, ValueType};
use crate::retrieve::{Retriever, SearchRequest};
use crate::support::Support;
use serde::Serialize;
use std::time::Instant;

/// Most pages an answerer is given.
pub const MAX_K: usize = 20;

#[derive(Debug, Clone)]
pub struct AskRequest {
    pub question: String,
    pub docs: Vec<String>,
    pub filter: bool,
    /// Pages given to the answerer.
    pub k: usize,
    pub answerer: AnswererKind,
    pub retriever: Retriever,
    /// The team user asking (logged with the question); `None` on a one-person library.
    pub asked_by: Option<String>,
}

impl AskRequest {
    pub fn new(q: impl Into<String>) -> Self {
        AskRequest {
            question: q.into(),
            docs: Vec::new(),
            filter: true,
            k: 3,
            answerer: AnswererKind::default(),
            retriever: Retriever::default(),
            asked_by: None,
        }
    }
}

/// What an ask reports while it works: the pages it will read, the answer text as it is
/// produced, and the whole response at the end.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "lowercase")]
pub enum AskEvent {
    Pages { pages: Vec<PageRef>, filter: Option<DocFilter>, retrieve_ms: f64, retriever: Retriever },
    Text { text: String },
    Done { response: Box<AskResponse> },
}

/// A highlighted line on a page: the evidence box (PDF points) and where it is.
#[derive(Debug, Clone, Serialize)]
pub struct PageBox {
    pub doc_id: String,
    pub page: u32,
    #[serde(flatten)]
    pub rect: EvidenceBox,
}

#[derive(Debug, Clone, Serialize)]
pub struct AskResponse {
    pub log_id: i64,
    /// The question as read ([`Question`]): its text, shape and the reading shown in one line.
    pub question: Question,
    #[serde(flatten)]
    pub answer: Answer,
    pub boxes: Vec<PageBox>,
    /// Pages read, in rank order.
    pub pages: Vec<PageRef>,
    /// The same pages with their heading and the stretch holding the most question terms (empty
    /// for a page no longer in the library).
    pub page_info: Vec<PageInfo>,
    /// The cited pages with their printed labels (search and evals use the PDF index).
    pub cited: Vec<PageInfo>,
    pub filter: Option<DocFilter>,
    pub retrieve_ms: f64,
    pub retriever: Retriever,
    /// Where the answerer ran (`cpu` for the extractive answerer).
    pub device: String,
    /// What retrieval and the answerer had to say (fallbacks, cut questions), in a user's
    /// words ([`crate::wording`]).
    pub notes: Vec<String>,
    /// The notes and reasons as the service wrote them, where they were reworded (Details).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
}

/// `notes` and `a`'s reasons in a user's words ([`crate::wording`]); what was reworded, as
/// written, is returned for Details.
fn in_user_words(notes: &mut Vec<String>, a: &mut Answer) -> Vec<String> {
    let (shown, mut details) = crate::wording::say_all(notes);
    *notes = shown;
    let (reasons, more) = crate::wording::say_all(&a.support_reasons);
    a.support_reasons = reasons;
    details.extend(more.into_iter().filter(|d| !details.contains(d)).collect::<Vec<_>>());
    details
}

/// A page read, as the answer lists it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PageInfo {
    pub page: PageRef,
    pub heading: String,
    pub snippet: String,
    /// The number printed on the page, when it prints one ([`crate::pagelabel`]).
    pub page_label: Option<String>,
    /// "p. 41 (PDF page 44)", or "PDF page 44".
    pub shown: String,
    /// The section the page is in, the one beginning latest on it ("Item 3. Legal
    /// Proceedings"; [`crate::sections`]), when the filing prints item headings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
}

/// Phase 1's result: everything the answerer needs, and what the log will record.
#[derive(Debug, Clone)]
pub struct Retrieved {
    pub question: String,
    /// The question read once: every later stage reads this.
    pub read: Question,
    pub scope: Vec<String>,
    /// The pages, labelled P1..Pn in rank order.
    pub pages: Vec<PageInput>,
    pub filter: Option<DocFilter>,
    pub notes: Vec<String>,
    pub retriever: Retriever,
    pub retrieve_ms: f64,
    /// The worked calculation, when the question asks for a figure the calculator knows
    /// ([`crate::calc`]); answerers use its result instead of doing arithmetic.
    pub calculation: Option<Calculation>,
    /// The team user asking ([`AskRequest::asked_by`]).
    pub asked_by: Option<String>,
}

impl Retrieved {
    pub fn page_refs(&self) -> Vec<PageRef> {
        self.pages.iter().map(PageInput::page_ref).collect()
    }
}

/// Pages as answerer input, labelled P1..Pn.
pub fn page_inputs(lib: &Library, ids: &[PageRef]) -> Result<Vec<PageInput>> {
    let mut v = Vec::new();
    for r in ids {
        let pg = lib.store().page(&r.doc_id, r.page)?;
        v.push((r.doc_id.clone(), r.page, pg.heading, pg.text));
    }
    Ok(answer::label_pages(v))
}

/// Locate an answer's evidence on its first cited page (quote, then numbers). A model's quote
/// that is not on the page is not replaced by the answer's numbers: nothing is boxed, and
/// `finish_ask` says the quote was not found.
pub fn locate_answer(lib: &Library, a: &Answer) -> Result<(Evidence, Vec<PageBox>)> {
    let Some(c) = a.citations.first() else { return Ok((Evidence::none(), Vec::new())) };
    let numbers_too = a.model.is_none() || a.quote.is_none();
    let ev = lib.evidence(c, a.quote.as_deref(), numbers_too.then_some(a.answer.as_str()))?;
    let pb = ev.boxes.iter().map(|b| PageBox { doc_id: c.doc_id.clone(), page: c.page, rect: b.clone() }).collect();
    Ok((ev, pb))
}

/// The evidence of an answer: a worked answer's operand cells, else the quote (or the answer's
/// numbers) located on the first cited page.
pub fn evidence_for(lib: &Library, a: &Answer) -> Result<(Evidence, Vec<PageBox>)> {
    match a.calculation.as_ref().filter(|c| c.result.is_some()) {
        Some(c) => Ok((Evidence { found_by: crate::evidence::FoundBy::Calculation, boxes: Vec::new(), matched: String::new() }, calculation_boxes(c))),
        None => locate_answer(lib, a),
    }
}

/// How well the first cited page supports `a` (see [`crate::support`]); `filter` is what the
/// question names (years, companies and the documents that are theirs).
pub fn judge_support(lib: &Library, question: &Question, filter: Option<&DocFilter>, scope: &[String], a: &Answer) -> Result<(Support, Vec<String>)> {
    let page_text = match a.citations.first() {
        Some(c) => match lib.store().page(&c.doc_id, c.page) {
            Ok(p) => p.text,
            Err(LensError::UnknownDocument(_) | LensError::UnknownPage { .. }) => String::new(),
            Err(e) => return Err(e),
        },
        None => String::new(),
    };
    let in_scope = match (filter, a.citations.first()) {
        (Some(f), Some(c)) if !f.companies.is_empty() => Some(f.groups.iter().flatten().any(|d| *d == c.doc_id)),
        _ => None,
    };
    let years = filter.map(|f| f.years.clone()).unwrap_or_default();
    // a question naming no company, asked of a library of several companies' filings, is
    // answered from one of them: it is never shown as supported, and the reason names the others
    // documents picked by hand name the filing
    let names_none = scope.is_empty() && filter.is_none_or(|f| f.companies.is_empty());
    let unnamed_among = match names_none {
        true if !a.citations.is_empty() && !a.not_found && !question.text.is_empty() => {
            let names = lib.company_names()?;
            if names.len() > 1 {
                names
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    };
    // a model's answer that quotes no line of the pages (it cited no passage) is tied to nothing
    let unquoted = a.model.is_some() && a.quote.is_none() && !a.not_found && a.calculation.as_ref().is_none_or(|c| c.result.is_none());
    // the checks that read the library, in order; only the first that applies is said, so
    // each runs only when those before it found nothing (one searches the filing)
    let calc_caveat = a.calculation.as_ref().and_then(|c| c.caveat.as_deref());
    let read = if calc_caveat.is_some() || unquoted {
        None
    } else {
        match missed_row(question, a) {
            Some(w) => Some(w),
            None => match part_row(lib, question, a)? {
                Some(w) => Some(w),
                None => match unnamed_term(question, filter, a).or_else(|| quarter_only(lib, question, a)) {
                    Some(w) => Some(w),
                    None => later_filing(lib, question, filter, a),
                },
            },
        }
    };
    let caveat = match calc_caveat {
        Some(c) => Some(c),
        None if unquoted => Some("the model cited no sentence or row of the pages read: check the page"),
        None => read.as_deref(),
    };
    let doc_year = match a.citations.first() {
        Some(c) => lib.document(&c.doc_id).ok().and_then(|d| d.year),
        None => None,
    };
    let list_complete = a.quote.as_deref().is_some_and(|q| a.model.is_none() && crate::lists::list_complete(question, &a.answer, q));
    Ok(crate::support::judge(&crate::support::Claim {
        list_complete,
        doc_year,
        unnamed_among: &unnamed_among,
        caveat,
        question,
        answer: &a.answer,
        not_found: a.not_found,
        cited: !a.citations.is_empty(),
        found_by: a.found_by,
        page_text: &page_text,
        quote: a.quote.as_deref(),
        years: &years,
        in_scope,
    }))
}

/// A figure the worked answer looked for on the filing's statements and found no row of,
/// answered instead by a quoted row: the row is labelled otherwise ("Interest rate contracts",
/// "Boeing Capital interest expense" for "interest expense"), so it may be another line item.
fn missed_row(question: &Question, a: &Answer) -> Option<String> {
    let c = a.calculation.as_ref()?;
    if a.found_by == FoundBy::Calculation || c.result.is_some() || question.asks != ValueType::Number {
        return None;
    }
    let item = c.problem.as_deref()?.strip_prefix("not found: ")?;
    Some(format!("the worked answer found no row labelled as {item} on the pages it read: the quoted row may be another line item"))
}

/// A figure asked, a table row quoted: the same label printed elsewhere in the filing with
/// figures several times larger makes this row a part's (a segment's "Total noninterest
/// expense 969" where the firm's is 17,948).
fn part_row(lib: &Library, question: &Question, a: &Answer) -> Result<Option<String>> {
    match (a.found_by, a.quote.as_deref(), a.citations.first()) {
        (FoundBy::Quote, Some(q), Some(p)) if question.asks == ValueType::Number && question.operation == Operation::Value => larger_elsewhere(lib, p, q),
        _ => Ok(None),
    }
}

/// A figure asked by a term of art the question writes as one ("RevPAR", "ARR"): a quoted line
/// that never names it states another figure ("rooms revenue was $2.7 billion").
/// A question that names no period ("How much cash does 3M have?") answered from a filing when
/// the library holds a later one of the company: the answer may be out of date; said.
fn later_filing(lib: &Library, question: &Question, filter: Option<&DocFilter>, a: &Answer) -> Option<String> {
    // a value asked as of now, not a judgement over the years ("are its margins historically
    // consistent?")
    if !question.years.is_empty() || !question.quarters.is_empty() || a.not_found || question.operation != crate::question::Operation::Value {
        return None;
    }
    let f = filter.filter(|f| !f.companies.is_empty())?;
    let cited = a.citations.first()?;
    let year_of = |d: &str| lib.document(d).ok().and_then(|d| d.year);
    let mine = year_of(&cited.doc_id)?;
    let (later, year) = f.groups.iter().flatten().filter_map(|d| year_of(d).map(|y| (d.clone(), y))).max_by_key(|(_, y)| *y)?;
    (year > mine).then(|| {
        format!("the question names no year; this is from {} (FY{mine}), and the library holds a later filing ({later}, FY{year}): name the year", cited.doc_id)
    })
}

fn unnamed_term(question: &Question, filter: Option<&DocFilter>, a: &Answer) -> Option<String> {
    let (FoundBy::Quote, Some(q), Some(p)) = (a.found_by, a.quote.as_deref(), a.citations.first()) else { return None };
    if question.asks != ValueType::Number {
        return None;
    }
    let names: Vec<String> = filter.map(|f| f.companies.iter().map(|c| c.to_lowercase()).collect()).unwrap_or_default();
    let line = q.to_lowercase();
    terms_of_art(&question.text)
        .into_iter()
        .find(|t| {
            let l = t.to_lowercase();
            !line.contains(&l) && !p.doc_id.to_lowercase().contains(&l) && !names.iter().any(|n| n.contains(&l) || l.contains(n.as_str()))
        })
        .map(|t| format!("the quoted line does not name {t}, which the question asks for: it may state another figure"))
}

/// A fiscal year's figure asked, a quarter's given: the cited page prints the answer's figures
/// only under columns of three, six or nine months.
fn quarter_only(lib: &Library, question: &Question, a: &Answer) -> Option<String> {
    let p = a.citations.first()?;
    if a.found_by == FoundBy::Calculation || question.asks != ValueType::Number || !question.quarters.is_empty() || !question.halves.is_empty() {
        return None;
    }
    only_in_part_year_columns(&lib.page_tables(p), &a.answer)
}

/// When every cell of `tables` holding one of the answer's figures lies in a column of part of
/// a year ("Three Months Ended"), the reason to say so; None when a figure is in a year's column
/// or nowhere in the tables.
fn only_in_part_year_columns(tables: &[crate::figures::table::Table], answer: &str) -> Option<String> {
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
    let m = *months.first()?;
    Some(format!("the answer's figure is printed under a column of {m} months, not a fiscal year's: it may be a quarter's"))
}

/// The terms of art a question writes with capitals inside or throughout ("RevPAR", "ARR",
/// "EBITDAR"), three letters or more, not units or periods ("USD", "FY").
pub fn terms_of_art(question: &str) -> Vec<String> {
    const COMMON: [&str; 8] = ["USD", "GAAP", "FY", "YOY", "US", "USA", "EUR", "GBP"];
    let mut out: Vec<String> = Vec::new();
    for w in question.split(|c: char| !c.is_alphanumeric() && c != '&') {
        let w = w.trim_end_matches("s").trim_end_matches('\'');
        let upper = w.chars().filter(|c| c.is_ascii_uppercase()).count();
        if w.len() >= 3 && w.chars().all(|c| c.is_ascii_alphabetic()) && upper >= 2 && !COMMON.contains(&w) && !out.iter().any(|o| o == w) {
            out.push(w.to_string());
        }
    }
    out
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
/// figures at least three times as large, the reason to say so: the quoted row is likely a
/// part's (a segment's, a subsidiary's), not the company's.
fn larger_elsewhere(lib: &Library, page: &PageRef, quote: &str) -> Result<Option<String>> {
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
                return Ok(Some(format!(
                    "\"{label}\" is printed on {other} with figures at least three times as large: the row quoted may be a part's (a segment's), not the company's"
                )));
            }
        }
    }
    Ok(None)
}

/// Replace an answer to an off-topic question by "Not found" ([`crate::support::off_topic`]):
/// `named` says whether the question names a company or document of the library, or the user
/// picked the documents. A computed result is never replaced. True when it was replaced.
pub fn refuse_off_topic(question: &Question, named: bool, a: &mut Answer) -> bool {
    if a.not_found || a.citations.is_empty() || a.calculation.as_ref().is_some_and(|c| c.result.is_some()) || a.support == Support::Strong {
        return false;
    }
    let line = a.quote.clone().unwrap_or_else(|| a.answer.clone());
    if !crate::support::off_topic(named, question, &line) {
        return false;
    }
    let mut refused = Answer::not_found(a.answerer, a.answer_ms);
    refused.model = a.model.take();
    refused.calculation = a.calculation.take();
    refused.support_reasons = vec![format!(
        "the question names no document of the library and the best line found (\"{}\") does not answer it: name the company and period, or pick documents in Search in",
        line.chars().take(120).collect::<String>()
    )];
    *a = refused;
    true
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

/// Replace an answer by "Not found" because the library holds no filing of `company`.
fn refuse_absent_company(lib: &Library, company: &str, a: &mut Answer) -> Result<()> {
    let names = lib.company_names()?;
    let shown: Vec<&str> = names.iter().take(6).map(String::as_str).collect();
    let more = if names.len() > shown.len() { format!(" and {} more", names.len() - shown.len()) } else { String::new() };
    let mut refused = Answer::not_found(a.answerer, a.answer_ms);
    refused.model = a.model.take();
    refused.support_reasons =
        vec![format!("the library holds no filing of {company}: add its filings, or ask about a company it holds ({}{more})", shown.join(", "))];
    *a = refused;
    Ok(())
}

/// Whether a question names something of the library: documents picked by hand, or a company
/// (alias) the document filter found.
pub fn names_library(scope: &[String], filter: Option<&DocFilter>) -> bool {
    !scope.is_empty() || filter.is_some_and(|f| !f.companies.is_empty())
}

/// Phase 2: the answerer reads the retrieved pages. `on_event` gets the `pages` event first,
/// then each piece of text; returning false stops the answerer ([`LensError::Cancelled`]).
pub fn answer_pages(answerer: &dyn Answerer, r: &Retrieved, on_event: &mut dyn FnMut(AskEvent) -> bool) -> Result<Answer> {
    if !on_event(AskEvent::Pages { pages: r.page_refs(), filter: r.filter.clone(), retrieve_ms: r.retrieve_ms, retriever: r.retriever }) {
        return Err(LensError::Cancelled);
    }
    if r.pages.is_empty() {
        let a = Answer::not_found(answerer.kind(), 0.0);
        on_event(AskEvent::Text { text: a.answer.clone() });
        return Ok(a);
    }
    // a computed result is the answer; without one, the answerer's, with the calculation's
    // problem (an operand not found) attached for the reader
    if let Some(c) = r.calculation.as_ref().filter(|c| c.result.is_some()) {
        let a = Answer::from_calculation(answerer.kind(), c.clone(), 0.0);
        // (phase 3 says, when a model was chosen, that the calculator answered in its place)
        if !on_event(AskEvent::Text { text: a.answer.clone() }) {
            return Err(LensError::Cancelled);
        }
        return Ok(a);
    }
    // a list of the kind asked or a yes/no the filing's own lines give is answered from those
    // lines for a model answerer too: each item or the deciding sentence boxed (phase 3 says so)
    if answerer.kind() != AnswererKind::Extractive {
        if let Some(mut a) = crate::answer::Extractive::default().structured(&r.read, &r.pages) {
            a.answerer = answerer.kind();
            if !on_event(AskEvent::Text { text: a.answer.clone() }) {
                return Err(LensError::Cancelled);
            }
            return Ok(a);
        }
    }
    let mut a = answerer.answer_stream(&r.read, &r.pages, &mut |t| on_event(AskEvent::Text { text: t.to_string() }))?;
    // a model's answer says what it cited; where that is on the pages is decided here, once,
    // for every model answerer (then phase 3 locates, checks and labels it as any answer)
    let mut notes = Vec::new();
    crate::cite::locate(&mut a, &r.pages, &mut notes);
    if let Some(m) = a.model.as_mut() {
        m.notes.extend(notes);
        // a reply cut at the model's length limit ends at its last whole sentence (the whole
        // reply stays in the model's run)
        if m.notes.iter().any(|n| n.starts_with("the reply was cut at")) {
            let whole = crate::wording::whole_sentences(&a.answer);
            if whole != a.answer {
                m.notes.push(format!("the reply as written: {}", a.answer));
                a.answer = whole;
            }
        }
    }
    a.calculation = r.calculation.clone();
    Ok(a)
}

/// The boxes of a worked answer: each operand's row label and cell, on its own page.
/// Phase 3's judgement, shared by the ask and the answer evals (so an eval scores what the app
/// shows): the evidence located on the cited page (a cited document gone since the pages were
/// read leaves a note and no box), a quote that is not on its page said, support judged, and
/// an off-topic question refused ("Not found") when `refuse`. Returns the boxes to draw.
pub fn settle(lib: &Library, r: &mut Retrieved, a: &mut Answer, refuse: bool) -> Result<Vec<PageBox>> {
    // the library may have changed while the answerer ran
    let (ev, boxes) = lib.evidence_if_there(a, &mut r.notes, " (it changed while the answer was written)")?.unwrap_or((Evidence::none(), Vec::new()));
    a.found_by = ev.found_by;
    // a model's quote that is not on the page it cites is said, never boxed elsewhere
    if let (Some(q), Some(c)) = (&a.quote, a.citations.first()) {
        if a.calculation.is_none() && ev.found_by != crate::evidence::FoundBy::Quote {
            r.notes.push(if a.model.is_some() {
                format!("the model's quote \"{q}\" is not on {c}: nothing is boxed, check the page")
            } else {
                format!("the quoted words \"{q}\" are not on {c}: check the page (boxes, if any, mark the answer's numbers)")
            });
        }
    }
    if !a.not_found && a.citations.is_empty() {
        r.notes.push("the answer cites no page: nothing on a page supports it, check before using it".into());
    }
    (a.support, a.support_reasons) = judge_support(lib, &r.read, r.filter.as_ref(), &r.scope, a)?;
    if refuse && !names_library(&r.scope, r.filter.as_ref()) {
        if let Some(absent) = company_not_held(lib, &r.read)? {
            refuse_absent_company(lib, &absent, a)?;
            return Ok(Vec::new());
        }
    }
    if refuse && refuse_off_topic(&r.read, names_library(&r.scope, r.filter.as_ref()), a) {
        return Ok(Vec::new());
    }
    verify_answer(lib, &r.read, a);
    if let Some(c) = &a.calculation {
        r.notes.extend(c.tried.iter().cloned());
    }
    name_periods(lib, &r.read, a);
    Ok(boxes)
}

/// An extractive answer that is a statement row as printed ("Total current assets 16,525
/// 15,134") names each figure's period and unit ("Total current assets — FY2019: $16,525
/// million; FY2018: $15,134 million", [`crate::figures::shown`]), the years asked first. The
/// quote stays the row as printed (it is what is boxed); a line that is no row of the cited
/// page's tables is left as it is.
fn name_periods(lib: &Library, question: &Question, a: &mut Answer) {
    if a.model.is_some() || a.not_found || a.calculation.as_ref().is_some_and(|c| c.result.is_some()) {
        return;
    }
    let (Some(quote), Some(c)) = (a.quote.as_deref(), a.citations.first()) else { return };
    if a.answer != quote {
        return;
    }
    let tables = lib.page_tables(c);
    if let Some((t, row)) = crate::figures::shown::row_of(&tables, quote) {
        let money = lib.store().page(&c.doc_id, c.page).is_ok_and(|p| p.text.contains('$'));
        a.answer = crate::figures::shown::row_with_periods(t, row, &question.years, money);
    }
}

/// The verifier's stage ([`crate::verify`]): the answer's checks, and a failed one keeps it
/// from being shown as supported, its detail the reason shown.
pub fn verify_answer(lib: &Library, question: &Question, a: &mut Answer) {
    a.checks = crate::verify::verify(question, a, lib.checks());
    let failed: Vec<String> = a.checks.iter().filter(|c| c.failed()).map(|c| c.detail.clone()).collect();
    if failed.is_empty() {
        return;
    }
    if a.support == Support::Strong {
        a.support = Support::Weak;
    }
    for d in failed {
        if !a.support_reasons.contains(&d) {
            a.support_reasons.push(d);
        }
    }
}

pub fn calculation_boxes(c: &Calculation) -> Vec<PageBox> {
    c.operands.iter().flat_map(|o| o.boxes.iter().map(|b| PageBox { doc_id: o.page.doc_id.clone(), page: o.page.page, rect: b.clone() })).collect()
}

impl Library {
    /// Phase 1: check the request, retrieve, and read the pages. Rejected input is never logged.
    pub fn retrieve_for(&self, req: &AskRequest) -> Result<Retrieved> {
        if req.question.trim().is_empty() {
            return Err(LensError::BadInput("the question is empty".into()));
        }
        if req.k == 0 || req.k > MAX_K {
            return Err(LensError::BadInput(format!("k must be between 1 and {MAX_K} pages (got {})", req.k)));
        }
        let t0 = Instant::now();
        let read = self.read_question(&req.question);
        // the search reads the short forms written out ("PPNE (property, plant and equipment, net)")
        let mut sreq = SearchRequest::new(read.expanded.clone());
        sreq.docs = req.docs.clone();
        sreq.filter = req.filter;
        sreq.k = req.k;
        sreq.retriever = req.retriever;
        let sr = self.search(&sreq)?;
        let ids: Vec<PageRef> = sr.hits.iter().map(|h| h.page_ref()).collect();
        let pages = page_inputs(self, &ids)?;
        let read = read.with_companies(sr.filter.as_ref().map(|f| f.companies.clone()).unwrap_or_default());
        let mut calculation = if ids.is_empty() { None } else { crate::calc::work(self, &read, &ids)? };
        // more pages read never lose a result worked out from fewer (the first pages alone,
        // down to the default three, when all of them give none)
        for n in (answer::MIN_PAGES_KEPT..ids.len()).rev() {
            if calculation.as_ref().is_none_or(|c| c.result.is_some()) {
                break;
            }
            if let Some(c) = crate::calc::work(self, &read, &ids[..n])?.filter(|c| c.result.is_some()) {
                calculation = Some(c);
            }
        }
        Ok(Retrieved {
            read,
            // the log keeps what was searched: a question is cut where search cuts it
            question: req.question.trim().chars().take(crate::retrieve::MAX_QUESTION_CHARS).collect(),
            scope: req.docs.clone(),
            pages,
            filter: sr.filter,
            notes: sr.notes,
            retriever: sr.retriever,
            retrieve_ms: t0.elapsed().as_secs_f64() * 1000.0,
            calculation,
            asked_by: req.asked_by.clone(),
        })
    }

    /// Phase 3: locate the evidence for `a` and log the question; the response to show.
    pub fn finish_ask(&self, r: Retrieved, a: Answer) -> Result<AskResponse> {
        self.finish_ask_in(r, a, self.store())
    }

    /// [`Library::finish_ask`], logging to `records` (a team's shared log).
    pub fn finish_ask_in(&self, mut r: Retrieved, mut a: Answer, records: &dyn crate::log::Records) -> Result<AskResponse> {
        let boxes = settle(self, &mut r, &mut a, true)?;
        let device = a.model.as_ref().map(|m| m.device.clone()).unwrap_or_else(|| "cpu".into());
        if let Some(m) = &a.model {
            r.notes.extend(m.notes.iter().cloned());
        }
        // a model was chosen but the calculator answered: say so and why
        let calculated = a.calculation.as_ref().is_some_and(|c| c.result.is_some());
        if a.answerer != AnswererKind::Extractive && calculated {
            r.notes.push(format!(
                "worked out by the calculator from the statements' figures, not written by the {} model: a computed figure is exact and traced to its cells",
                a.answerer
            ));
        } else if a.answerer != AnswererKind::Extractive && a.model.is_none() && !a.not_found {
            r.notes.push(format!(
                "taken from the filing's own lines, not written by the {} model: each item, or the sentence that says yes or no, is boxed on its page",
                a.answerer
            ));
        }
        let details = in_user_words(&mut r.notes, &mut a);
        let log_id = self.log_ask(&r, &a, false, records)?;
        let pages = r.page_refs();
        let page_info = self.page_info(&r.question, &pages);
        let cited = self.page_info(&r.question, &a.citations);
        Ok(AskResponse {
            log_id,
            question: r.read,
            answer: a,
            boxes,
            pages,
            page_info,
            cited,
            filter: r.filter,
            retrieve_ms: r.retrieve_ms,
            retriever: r.retriever,
            device,
            notes: r.notes,
            details,
        })
    }

    /// Heading and snippet of each page read (empty for a page no longer in the library).
    fn page_info(&self, question: &str, pages: &[PageRef]) -> Vec<PageInfo> {
        let terms = self.index.query_terms(question);
        let wanted = crate::rank::topics().sections_for(question);
        pages
            .iter()
            .map(|p| {
                let (label, heading, snippet) = match self.store.page(&p.doc_id, p.page) {
                    Ok(pg) => (pg.label(), pg.heading, self.snippet(p, &terms).unwrap_or_default()),
                    Err(_) => (None, String::new(), String::new()),
                };
                let shown = crate::pagelabel::describe(label.as_deref(), p.page);
                let section = self
                    .store
                    .document(&p.doc_id)
                    .ok()
                    .and_then(|d| self.profiles.sections_of(&self.store, d.key).ok())
                    // the section the question's topic points at when the page is in it, else
                    // the one beginning latest on the page
                    .and_then(|s| {
                        let v = s.get(&p.page)?;
                        v.iter().rev().find(|x| crate::sections::matches(std::slice::from_ref(*x), &wanted)).or(v.last()).cloned()
                    });
                PageInfo { page: p.clone(), heading, snippet, page_label: label, shown, section }
            })
            .collect()
    }

    /// [`evidence_for`], or `None` with a note (ending in `why`) when the cited document or page
    /// is no longer in the library.
    fn evidence_if_there(&self, a: &Answer, notes: &mut Vec<String>, why: &str) -> Result<Option<(Evidence, Vec<PageBox>)>> {
        match evidence_for(self, a) {
            Ok(found) => Ok(Some(found)),
            Err(e @ (LensError::UnknownDocument(_) | LensError::UnknownPage { .. })) => {
                notes.push(format!("the evidence was not located: {e}{why}"));
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// A logged answer as the ask showed it: its evidence located again on the cited page (the
    /// log keeps the answer, quote and calculation, not the boxes), its label, reasons, checks
    /// and reading as recorded when it was asked (an entry logged before that record was kept
    /// is judged again, and says so).
    pub fn reopen(&self, id: i64) -> Result<AskResponse> {
        self.reopen_in(id, self.store())
    }

    /// [`Library::reopen`] of an entry of `records`.
    pub fn reopen_in(&self, id: i64, records: &dyn crate::log::Records) -> Result<AskResponse> {
        let e = records.log_entry(id)?;
        let asked = format!("reopened from the log (asked {})", e.time);
        let mut r = self.reopen_entry(e)?;
        r.notes.insert(0, asked);
        Ok(r)
    }

    /// [`Library::reopen`] of a log entry already read; its notes are only what locating the
    /// evidence again had to say.
    pub fn reopen_entry(&self, e: LogEntry) -> Result<AskResponse> {
        let mut a = e.answer;
        let mut notes = Vec::new();
        let boxes = match self.evidence_if_there(&a, &mut notes, "")? {
            Some((ev, boxes)) => {
                a.found_by = ev.found_by;
                boxes
            }
            None => Vec::new(),
        };
        let read = match &e.shown {
            // as shown: the label, its reasons and checks came back with the entry
            Some(s) => {
                notes.extend(s.notes.iter().cloned());
                s.question.clone()
            }
            None => {
                let read = self.read_question(&e.question);
                (a.support, a.support_reasons) = judge_support(self, &read, None, &e.scope, &a)?;
                verify_answer(self, &read, &mut a);
                notes.push("this entry was logged before the app kept what it showed: its label is judged again now".to_string());
                read
            }
        };
        let device = a.model.as_ref().map(|m| m.device.clone()).unwrap_or_else(|| "cpu".into());
        let details = in_user_words(&mut notes, &mut a);
        let page_info = self.page_info(&e.question, &e.pages);
        let cited = self.page_info(&e.question, &a.citations);
        Ok(AskResponse {
            log_id: e.id,
            question: read,
            answer: a,
            boxes,
            pages: e.pages,
            page_info,
            cited,
            filter: None,
            retrieve_ms: e.retrieve_ms,
            retriever: e.retriever,
            device,
            notes,
            details,
        })
    }

    /// Log an ask stopped mid-answer: the row is marked cancelled and keeps what was written.
    pub fn log_cancelled(&self, r: &Retrieved, answerer: AnswererKind, partial: &str, records: &dyn crate::log::Records) -> Result<i64> {
        let mut a = Answer::not_found(answerer, 0.0);
        a.answer = partial.to_string();
        a.not_found = false;
        self.log_ask(r, &a, true, records)
    }

    fn log_ask(&self, r: &Retrieved, a: &Answer, cancelled: bool, records: &dyn crate::log::Records) -> Result<i64> {
        let entry = LogEntry {
            id: 0,
            time: String::new(),
            question: r.question.clone(),
            scope: r.scope.clone(),
            pages: r.page_refs(),
            answer: a.clone(),
            retrieve_ms: r.retrieve_ms,
            retriever: r.retriever,
            feedback: None,
            feedback_note: None,
            cancelled,
            asked_by: r.asked_by.clone(),
            feedback_by: None,
            shown: Some(crate::log::Shown {
                support: a.support,
                support_reasons: a.support_reasons.clone(),
                checks: a.checks.clone(),
                question: r.read.clone(),
                notes: r.notes.clone(),
            }),
        };
        records.log_question(&entry)
    }

    /// Retrieve, answer with the request's built-in answerer, locate, and log.
    pub fn ask(&self, req: &AskRequest) -> Result<AskResponse> {
        self.ask_with(req, answer::builtin(req.answerer)?.as_ref(), &mut |_| true)
    }

    /// The three phases in a row with `answerer`, reporting progress (ending with `done`).
    pub fn ask_with(&self, req: &AskRequest, answerer: &dyn Answerer, on_event: &mut dyn FnMut(AskEvent) -> bool) -> Result<AskResponse> {
        let r = self.retrieve_for(req)?;
        let a = answer_pages(answerer, &r, on_event)?;
        let resp = self.finish_ask(r, a)?;
        on_event(AskEvent::Done { response: Box::new(resp.clone()) });
        Ok(resp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_naming_no_year_answered_from_an_older_filing_is_said() {
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
        let a = Answer::quoted(
            AnswererKind::Extractive,
            "Cash and cash equivalents 3,300".into(),
            "Cash and cash equivalents 3,300".into(),
            PageRef::new("ACME_2018_10K", 1),
            0.0,
        );
        let w = later_filing(&lib, &lib.read_question("How much cash does ACME have?"), Some(&filter), &a);
        assert!(w.as_deref().is_some_and(|w| w.contains("ACME_2022_10K, FY2022")), "{w:?}");
        // a year asked, or the latest filing cited: nothing to say
        assert_eq!(later_filing(&lib, &lib.read_question("How much cash did ACME have at the end of 2018?"), Some(&filter), &a), None);
        let latest = Answer::quoted(AnswererKind::Extractive, "x".into(), "x".into(), PageRef::new("ACME_2022_10K", 1), 0.0);
        assert_eq!(later_filing(&lib, &lib.read_question("How much cash does ACME have?"), Some(&filter), &latest), None);
    }

    #[test]
    fn a_figure_printed_only_under_a_quarters_column_is_said() {
        let (text, boxes) = crate::figures::table::tests::page(&[
            ("Three Months Ended", 280.0, 710.0),
            ("2022", 300.0, 700.0),
            ("2021", 400.0, 700.0),
            ("Research and development expense", 50.0, 690.0),
            ("3,841", 300.0, 690.0),
            ("4,720", 400.0, 690.0),
        ]);
        let tables = crate::figures::table::tables(&text, &boxes);
        assert!(only_in_part_year_columns(&tables, "3,841").is_some_and(|w| w.contains("3 months")), "{tables:?}");
        assert_eq!(only_in_part_year_columns(&tables, "14,603"), None, "not on the page: another check's business");
    }

    #[test]
    fn terms_of_art_are_the_words_written_with_capitals_inside() {
        assert_eq!(terms_of_art("What was MGM's Las Vegas Strip RevPAR in 2022?"), vec!["MGM", "RevPAR"]);
        assert_eq!(terms_of_art("What was Adobe's Digital Media ARR at the end of fiscal 2016, in USD?"), vec!["ARR"]);
        assert!(terms_of_art("What is the FY2019 revenue of Costco in USD millions (GAAP)?").is_empty());
    }
}
