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
use crate::evidence::{Evidence, EvidenceBox};
use crate::filter::DocFilter;
use crate::library::Library;
use crate::log::LogEntry;
use crate::lookups::LibraryLookups;
use crate::pageref::PageRef;
use crate::question::Question;
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
    /// Set by [`Library::follow_up`]: the question this one follows and what it kept.
    pub follow_up: Option<crate::followup::FollowUp>,
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
            follow_up: None,
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
    /// A follow-up's thread: the question it follows, the words asked and what was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_up: Option<crate::followup::FollowUp>,
}

/// `notes` and `a`'s reasons in a user's words ([`crate::wording`]); what was reworded, as
/// written, is returned for Details.
fn in_user_words(notes: &mut Vec<String>, a: &mut Answer) -> Vec<String> {
    let (shown, mut details) = crate::wording::say_all(notes);
    *notes = shown;
    // each reason in a user's words, its rule's id kept beside it (two that read the same are one)
    let mut reasons: Vec<String> = Vec::new();
    let mut rules: Vec<String> = Vec::new();
    for (i, r) in a.support_reasons.iter().enumerate() {
        let (said, reworded) = crate::wording::say(r);
        if reworded && !details.contains(r) {
            details.push(r.clone());
        }
        if !reasons.contains(&said) {
            reasons.push(said);
            if let Some(id) = a.support_rules.get(i) {
                rules.push(id.clone());
            }
        }
    }
    (a.support_reasons, a.support_rules) = (reasons, rules);
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
    /// [`AskRequest::follow_up`].
    pub follow_up: Option<crate::followup::FollowUp>,
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

/// How well the first cited page supports `a`, by the rule book ([`crate::judge`]); `filter`
/// is what the question names (years, companies and the documents that are theirs). The
/// label, the reasons and their rules' ids.
pub fn judge_support(lib: &Library, question: &Question, filter: Option<&DocFilter>, scope: &[String], a: &Answer) -> Result<Judged> {
    judge_seen(lib, question, filter, &Seen::of(lib, question, filter, scope, a)?, a)
}

/// [`judge_support`] on what was already read of the library for `a`.
fn judge_seen(lib: &Library, question: &Question, filter: Option<&DocFilter>, seen: &Seen, a: &Answer) -> Result<Judged> {
    let lookups = LibraryLookups::new(lib, question, filter);
    let (support, checks) = crate::judge::judge(&seen.claim(question, a, &lookups));
    lookups.error()?;
    let (reasons, rules) = crate::judge::split(checks);
    Ok(Judged { support, reasons, rules })
}

/// An answer's label, its reasons and the id of the rule behind each.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub support: Support,
    pub reasons: Vec<String>,
    pub rules: Vec<String>,
}

impl Judged {
    /// Set on the answer.
    pub fn set(self, a: &mut Answer) {
        (a.support, a.support_reasons, a.support_rules) = (self.support, self.reasons, self.rules);
    }
}

/// What the judgement reads of the library for one answer: the page cited, the years and
/// companies named, the companies held when none is named.
struct Seen {
    page_text: String,
    in_scope: Option<bool>,
    years: Vec<i32>,
    unnamed_among: Vec<String>,
    companies: Vec<String>,
    names_library: bool,
    doc_year: Option<i32>,
    list_complete: bool,
}

impl Seen {
    fn of(lib: &Library, question: &Question, filter: Option<&DocFilter>, scope: &[String], a: &Answer) -> Result<Seen> {
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
        // a question naming no company, asked of a library of several companies' filings, is
        // answered from one of them: it is never shown as supported, and the reason names the
        // others; documents picked by hand name the filing
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
        let doc_year = match a.citations.first() {
            Some(c) => lib.document(&c.doc_id).ok().and_then(|d| d.year),
            None => None,
        };
        Ok(Seen {
            page_text,
            in_scope,
            years: filter.map(|f| f.years.clone()).unwrap_or_default(),
            unnamed_among,
            companies: filter.map(|f| f.companies.iter().map(|c| c.to_lowercase()).collect()).unwrap_or_default(),
            names_library: names_library(scope, filter),
            doc_year,
            list_complete: a.quote.as_deref().is_some_and(|q| a.model.is_none() && crate::lists::list_complete(question, &a.answer, q)),
        })
    }

    fn claim<'a>(&'a self, question: &'a Question, a: &'a Answer, lookups: &'a dyn crate::judge::Lookups) -> crate::judge::Claim<'a> {
        let computed = a.calculation.as_ref().is_some_and(|c| c.result.is_some());
        crate::judge::Claim {
            question,
            answer: &a.answer,
            not_found: a.not_found,
            cited: a.citations.first(),
            found_by: a.found_by,
            page_text: &self.page_text,
            quote: a.quote.as_deref(),
            years: &self.years,
            in_scope: self.in_scope,
            unnamed_among: &self.unnamed_among,
            companies_named: &self.companies,
            names_library: self.names_library,
            calc_warning: a.calculation.as_ref().and_then(|c| c.warning.as_ref()),
            calc_caveat: a.calculation.as_ref().and_then(|c| c.caveat.as_deref()),
            calc_problem: a.calculation.as_ref().filter(|c| c.result.is_none()).and_then(|c| c.problem.as_deref()),
            calc_shape: a.calculation.as_ref().filter(|_| computed).map(|c| c.shape.as_str()),
            operands: a.calculation.as_ref().filter(|_| computed).map_or(&[], |c| c.operands.as_slice()),
            // a model's answer that quotes no line of the pages (it cited no passage) is tied to nothing
            unquoted: a.model.is_some() && a.quote.is_none() && !a.not_found && !computed,
            computed,
            doc_year: self.doc_year,
            list_complete: self.list_complete,
            support: a.support,
            lookups,
        }
    }
}

/// The refusals of the rule book ([`crate::judge::refusal`]) on a judged answer: a company the
/// library holds no filing of, or a question off the library's topic. The answer becomes "Not
/// found" with the reason; true when it did.
pub fn refuse(lib: &Library, question: &Question, filter: Option<&DocFilter>, scope: &[String], a: &mut Answer) -> Result<bool> {
    let seen = Seen::of(lib, question, filter, scope, a)?;
    refuse_seen(lib, question, filter, &seen, a)
}

/// [`refuse`] on what was already read of the library for `a` (judging changes only its label).
fn refuse_seen(lib: &Library, question: &Question, filter: Option<&DocFilter>, seen: &Seen, a: &mut Answer) -> Result<bool> {
    let lookups = LibraryLookups::new(lib, question, filter);
    let refused = crate::judge::refusal(&seen.claim(question, a, &lookups));
    lookups.error()?;
    let Some(check) = refused else { return Ok(false) };
    let mut out = Answer::not_found(a.answerer, a.answer_ms);
    out.model = a.model.take();
    // an off-topic answer keeps the calculation tried (for Details)
    if check.name == "off_topic" {
        out.calculation = a.calculation.take();
    }
    out.support_reasons = vec![check.detail];
    out.support_rules = vec![check.name];
    *a = out;
    Ok(true)
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
    // what the judgement reads of the library, read once for the label and the refusals
    let seen = Seen::of(lib, &r.read, r.filter.as_ref(), &r.scope, a)?;
    judge_seen(lib, &r.read, r.filter.as_ref(), &seen, a)?.set(a);
    if refuse && refuse_seen(lib, &r.read, r.filter.as_ref(), &seen, a)? {
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

/// The verifier's stage ([`crate::judge::form`]): the answer's checks, and a failed one keeps it
/// from being shown as supported, its detail the reason shown.
pub fn verify_answer(lib: &Library, question: &Question, a: &mut Answer) {
    a.checks = crate::judge::form::verify(question, a, lib.checks());
    let failed: Vec<(String, String)> = a.checks.iter().filter(|c| c.failed()).map(|c| (c.detail.clone(), c.name.clone())).collect();
    if failed.is_empty() {
        return;
    }
    if a.support == Support::Strong {
        a.support = Support::Weak;
    }
    for (d, name) in failed {
        if !a.support_reasons.contains(&d) {
            a.support_reasons.push(d);
            a.support_rules.push(name);
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
        let mut ids: Vec<PageRef> = sr.hits.iter().map(|h| h.page_ref()).collect();
        let mut pages = page_inputs(self, &ids)?;
        // who holds an office: a page naming its holder (a signature block, the executive
        // officers' table) is read first when the pages found name none; so is the cover page
        // or the auditor's report for a fact of the filer, a page listing the items of a list
        // question, and a page saying why the company's measure changed for a "why" question
        self.read_first(&read, &sreq, &mut ids, &mut pages, req.k)?;
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
            follow_up: req.follow_up.clone(),
        })
    }

    /// The page a question of a known shape is answered from, read first when the pages found
    /// lack it (at most `k` pages kept): a page naming the holder of the office asked, the cover
    /// page or the auditor's report for a fact of the filer, a page counting the things a "how
    /// many" question asks, a page listing the items of a list question, a page saying why the
    /// company's measure changed. The ask's phase 1 and the answer evals (on a run's pages) both
    /// read it, so the evals score what a user gets.
    pub fn read_first(&self, read: &Question, sreq: &SearchRequest, ids: &mut Vec<PageRef>, pages: &mut Vec<PageInput>, k: usize) -> Result<()> {
        type Finder = fn(&Library, &Question, &SearchRequest, &[PageInput]) -> Result<Option<PageInput>>;
        let finders: [Finder; 5] = [Self::office_page, Self::cover_page, Self::count_page, Self::list_page, Self::cause_page];
        let mut first = None;
        for find in finders {
            first = find(self, read, sreq, pages)?;
            if first.is_some() {
                break;
            }
        }
        if let Some(p) = first {
            ids.insert(0, p.page_ref());
            pages.insert(0, p);
            ids.truncate(k);
            pages.truncate(k);
        }
        Ok(())
    }

    /// The ten pages a search of the question's words and `words` brings up, in the same scope
    /// (the filter, the documents) as the question's own search.
    fn pages_also(&self, read: &Question, sreq: &SearchRequest, words: &str) -> Result<Vec<PageRef>> {
        let mut more = sreq.clone();
        more.query = format!("{} {words}", read.expanded);
        more.k = 10;
        Ok(self.search(&more)?.hits.iter().map(|h| h.page_ref()).collect())
    }

    /// The first page of `ids` not among `pages` (each tried once, loaded one at a time) whose
    /// text `holds`; a page the filing does not have (a short filing's page 3) is passed over.
    fn first_page_where(&self, ids: Vec<PageRef>, pages: &[PageInput], holds: impl Fn(&str) -> bool) -> Result<Option<PageInput>> {
        let mut tried: Vec<PageRef> = pages.iter().map(|p| p.page_ref()).collect();
        for id in ids {
            if tried.contains(&id) {
                continue;
            }
            tried.push(id.clone());
            let p = match page_inputs(self, std::slice::from_ref(&id)) {
                Ok(p) => p,
                Err(LensError::UnknownPage { .. }) => continue,
                Err(e) => return Err(e),
            };
            if let Some(p) = p.into_iter().next().filter(|p| holds(&p.text)) {
                return Ok(Some(p));
            }
        }
        Ok(None)
    }

    /// For a question asking who holds an office ([`crate::officers`]) whose pages name no
    /// holder: the page of the same filings, among those the question's words and the places
    /// officers are named bring up, that names one.
    fn office_page(&self, read: &Question, sreq: &SearchRequest, pages: &[PageInput]) -> Result<Option<PageInput>> {
        let Some(office) = crate::officers::office_asked(&read.text) else { return Ok(None) };
        let texts: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
        if crate::officers::holder(office, &texts).is_some() {
            return Ok(None);
        }
        let words = format!("{} executive officers of the registrant signatures", crate::officers::office_name(office));
        let ids = self.pages_also(read, sreq, &words)?;
        self.first_page_where(ids, pages, |t| crate::officers::holder(office, &[t]).is_some())
    }

    /// For a question asking a fact of the filer ([`crate::cover`]) that the pages found do not
    /// print: the page of the same filings that does, among their first pages (the cover) and
    /// those the question's words and the fact's own bring up (the auditor's report).
    fn cover_page(&self, read: &Question, sreq: &SearchRequest, pages: &[PageInput]) -> Result<Option<PageInput>> {
        let Some(asked) = crate::cover::asked(&read.text) else { return Ok(None) };
        let texts: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
        if crate::cover::read(asked, &texts).is_some() {
            return Ok(None);
        }
        let hits = self.pages_also(read, sreq, asked.search_words())?;
        let mut ids: Vec<PageRef> = Vec::new();
        if matches!(
            asked,
            crate::cover::Asked::Headquarters | crate::cover::Asked::Incorporation | crate::cover::Asked::Exchange | crate::cover::Asked::SharesOutstanding
        ) {
            // the cover page: the first pages of the filings found, the best-ranked filing first
            let mut docs: Vec<&str> = Vec::new();
            for h in pages.iter().map(|p| p.doc_id.as_str()).chain(hits.iter().map(|h| h.doc_id.as_str())) {
                if !docs.contains(&h) && docs.len() < 2 {
                    docs.push(h);
                }
            }
            for d in docs {
                ids.extend((1..=3).map(|page| PageRef { doc_id: d.to_string(), page }));
            }
        }
        ids.extend(hits);
        self.first_page_where(ids, pages, |t| crate::cover::read(asked, &[t]).is_some())
    }

    /// For a list question ([`crate::lists`]) whose pages list none of the items asked: the page
    /// of the same filings, among those the question's words and the kind's own bring up
    /// ("reportable segments"), that lists them.
    fn list_page(&self, read: &Question, sreq: &SearchRequest, pages: &[PageInput]) -> Result<Option<PageInput>> {
        use crate::lists::{best_page, list_kind, ListKind};
        let Some(kind) = list_kind(read) else { return Ok(None) };
        let texts: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
        if best_page(kind, &texts, &read.years).is_some() {
            return Ok(None);
        }
        let words = match kind {
            ListKind::Segments => "we have reportable segments organized managed",
            ListKind::Acquisitions => "acquisition of acquired completed",
            ListKind::Geographies => "geographic areas regions",
        };
        let ids = self.pages_also(read, sreq, words)?;
        self.first_page_where(ids, pages, |t| best_page(kind, &[t], &read.years).is_some())
    }

    /// For a "how many <things>" question ([`crate::counts`]) whose pages count none: the page of
    /// the same filings, among those the question's words and the thing's bring up, that does.
    fn count_page(&self, read: &Question, sreq: &SearchRequest, pages: &[PageInput]) -> Result<Option<PageInput>> {
        let Some(asked) = crate::counts::asked(read) else { return Ok(None) };
        let texts: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
        if crate::counts::read(&asked, read, &texts).is_some() {
            return Ok(None);
        }
        let ids = self.pages_also(read, sreq, &format!("{} total number of", asked.noun))?;
        self.first_page_where(ids, pages, |t| crate::counts::read(&asked, read, &[t]).is_some())
    }

    /// For a question asking why a measure changed ([`crate::causes`]) whose pages say it only
    /// of a part, or not at all: the page of the same filings, among those the question's words
    /// and the words of a cause bring up, that says why the company's measure changed.
    fn cause_page(&self, read: &Question, sreq: &SearchRequest, pages: &[PageInput]) -> Result<Option<PageInput>> {
        let Some(asked) = crate::causes::asked(read) else { return Ok(None) };
        let texts: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
        if crate::causes::read(&asked, &texts).is_some_and(|c| !c.part) {
            return Ok(None);
        }
        let ids = self.pages_also(read, sreq, &asked.search_words())?;
        self.first_page_where(ids, pages, |t| crate::causes::read(&asked, &[t]).is_some_and(|c| !c.part))
    }

    /// Phase 3: locate the evidence for `a` and log the question; the response to show.
    pub fn finish_ask(&self, r: Retrieved, a: Answer) -> Result<AskResponse> {
        self.finish_ask_in(r, a, self.store())
    }

    /// [`Library::finish_ask`], logging to `records` (a team's shared log).
    pub fn finish_ask_in(&self, r: Retrieved, a: Answer, records: &dyn crate::log::Records) -> Result<AskResponse> {
        let (mut resp, entry) = self.finish_ask_unlogged(r, a)?;
        resp.log_id = records.log_question(&entry)?;
        Ok(resp)
    }

    /// Phase 3 without the log's write: the response (its `log_id` 0) and the log entry to write,
    /// so that a server can write it to a team's database without holding the library.
    pub fn finish_ask_unlogged(&self, mut r: Retrieved, mut a: Answer) -> Result<(AskResponse, LogEntry)> {
        let boxes = settle(self, &mut r, &mut a, true)?;
        let device = a.model.as_ref().map(|m| m.device.clone()).unwrap_or_else(|| "cpu".into());
        if let Some(m) = &a.model {
            r.notes.extend(m.notes.iter().cloned());
        }
        // a model was chosen but the calculator answered: say so and why
        let calculated = a.calculation.as_ref().is_some_and(|c| c.result.is_some());
        if a.answerer != AnswererKind::Extractive && calculated {
            r.notes.push(format!(
                "worked out by the calculator from the statements' figures, not written by the language model ({}): a computed figure is exact and traced to its cells",
                a.answerer
            ));
        } else if a.answerer != AnswererKind::Extractive && a.model.is_none() && !a.not_found {
            r.notes.push(format!(
                "taken from the filing's own lines, not written by the language model ({}): each item, or the sentence that says yes or no, is boxed on its page",
                a.answerer
            ));
        }
        let details = in_user_words(&mut r.notes, &mut a);
        let entry = log_entry(&r, &a, false);
        let pages = r.page_refs();
        let page_info = self.page_info(&r.question, &pages);
        let cited = self.page_info(&r.question, &a.citations);
        let resp = AskResponse {
            log_id: 0,
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
            follow_up: r.follow_up,
        };
        Ok((resp, entry))
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
        let follow_up = e.shown.as_ref().and_then(|s| s.follow_up.clone());
        let read = match &e.shown {
            // as shown: the label, its reasons and checks came back with the entry
            Some(s) => {
                notes.extend(s.notes.iter().cloned());
                s.question.clone()
            }
            None => {
                let read = self.read_question(&e.question);
                judge_support(self, &read, None, &e.scope, &a)?.set(&mut a);
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
            follow_up,
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
        records.log_question(&log_entry(r, a, cancelled))
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

/// Follow-ups ([`crate::followup`]): a question read after the logged one it follows.
impl Library {
    /// `req` read as a follow-up of the logged question `of` (kept in `records`): its question
    /// rewritten to stand alone, the parent's chosen filings kept unless it names a company, and
    /// [`FollowUp`] set. An unknown id is a clear error.
    pub fn follow_up(&self, req: &mut AskRequest, of: i64, records: &dyn crate::log::Records) -> Result<()> {
        if req.question.trim().is_empty() {
            return Err(LensError::BadInput("the question is empty".into()));
        }
        let parent = records.log_entry(of).map_err(|e| match e {
            LensError::NotFound(_) => LensError::NotFound(format!("no question #{of} in the log to follow up")),
            e => e,
        })?;
        let measure = parent.shown.as_ref().and_then(|s| s.question.measure_name.clone()).or_else(|| self.read_question(&parent.question).measure_name);
        let p = crate::followup::Parent { id: of, question: parent.question.clone(), measure };
        // the filter's reading of which companies a text names, over the documents read once
        let infos = self.doc_infos_with(true)?;
        let r = crate::followup::resolve(&p, &req.question, &|t| crate::filter::detect(t, &infos).map(|f| f.companies).unwrap_or_default());
        let mut kept = r.kept;
        if !r.own_company && req.docs.is_empty() && !parent.scope.is_empty() {
            req.docs = parent.scope.clone();
            kept.push(format!("filings: {}", parent.scope.join(", ")));
        }
        req.follow_up = Some(crate::followup::FollowUp { of, asked: req.question.trim().to_string(), kept });
        req.question = r.question;
        Ok(())
    }
}
/// An ask's row of the question log (its id 0 until written).
fn log_entry(r: &Retrieved, a: &Answer, cancelled: bool) -> LogEntry {
    LogEntry {
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
        feedbacks: Vec::new(),
        shown: Some(crate::log::Shown {
            support: a.support,
            support_reasons: a.support_reasons.clone(),
            support_rules: a.support_rules.clone(),
            checks: a.checks.clone(),
            question: r.read.clone(),
            notes: r.notes.clone(),
            follow_up: r.follow_up.clone(),
        }),
    }
}
