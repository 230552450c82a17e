//! Ask: retrieve pages, answer from them, locate the evidence on the cited page, log it.

use crate::answer::{self, Answer, PageInput};
use crate::error::{LensError, Result};
use crate::evidence::{self, Evidence, FoundBy};
use crate::library::{Library, Retriever, SearchRequest};
use crate::store::LogEntry;
use serde::Serialize;
use std::time::Instant;

#[derive(Debug, Clone)]
pub struct AskRequest {
    pub question: String,
    pub docs: Vec<String>,
    pub filter: bool,
    /// Pages given to the answerer.
    pub k: usize,
    pub answerer: String,
    pub retriever: Retriever,
}

impl AskRequest {
    pub fn new(q: impl Into<String>) -> Self {
        AskRequest { question: q.into(), docs: Vec::new(), filter: true, k: 3, answerer: "extractive".into(), retriever: Retriever::default() }
    }
}

/// What `Library::ask_with` reports while it works: the pages it will read, the answer text
/// as it is produced, and the whole response at the end.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "lowercase")]
pub enum AskEvent {
    Pages { pages: Vec<String>, filter: Option<crate::filter::DocFilter>, retrieve_ms: f64, retriever: String },
    Text { text: String },
    Done { response: Box<AskResponse> },
}

/// A highlighted line on a page: the evidence box (PDF points) and where it is.
#[derive(Debug, Clone, Serialize)]
pub struct PageBox {
    pub doc_id: String,
    pub page: u32,
    #[serde(flatten)]
    pub rect: evidence::EvidenceBox,
}

#[derive(Debug, Clone, Serialize)]
pub struct AskResponse {
    pub log_id: i64,
    pub question: String,
    pub answer: String,
    pub citations: Vec<String>,
    pub quote: Option<String>,
    pub not_found: bool,
    pub found_by: FoundBy,
    pub boxes: Vec<PageBox>,
    /// Pages read, in rank order, as `DOC#PAGE`.
    pub pages: Vec<String>,
    pub filter: Option<crate::filter::DocFilter>,
    pub retrieve_ms: f64,
    pub answer_ms: f64,
    pub answerer: String,
    pub retriever: String,
    /// Where the answerer ran (`cpu` for the extractive answerer).
    pub device: String,
    /// What retrieval had to say (fallbacks, cut questions).
    pub notes: Vec<String>,
}

/// Locate an answer's evidence on its first cited page (quote, then numbers).
pub fn locate_answer(lib: &Library, a: &Answer) -> Result<(Evidence, Vec<PageBox>)> {
    let Some(c) = a.citations.first() else { return Ok((Evidence::none(), Vec::new())) };
    let doc = lib.check_page(&c.doc_id, c.page)?;
    let page = lib.store().page_of(&doc, c.page)?;
    let boxes = lib.store().page_boxes(&doc, c.page)?;
    let ev = evidence::locate(&page.text, &boxes, a.quote.as_deref(), Some(&a.answer));
    let pb = ev.boxes.iter().map(|b| PageBox { doc_id: doc.id.clone(), page: c.page, rect: b.clone() }).collect();
    Ok((ev, pb))
}

/// Pages (by `DOC#PAGE`) as answerer input, labelled P1..Pn.
pub fn page_inputs(lib: &Library, ids: &[(String, u32)]) -> Result<Vec<PageInput>> {
    let mut v = Vec::new();
    for (d, p) in ids {
        let pg = lib.store().page(d, *p)?;
        v.push((d.clone(), *p, pg.heading, pg.text));
    }
    Ok(answer::label_pages(v))
}

impl Library {
    /// Retrieve, answer, locate, and log. Rejected input is never logged.
    pub fn ask(&self, req: &AskRequest) -> Result<AskResponse> {
        self.ask_with(req, &mut |_| {})
    }

    /// [`Library::ask`], reporting progress as it goes (the UI's streamed answer).
    pub fn ask_with(&self, req: &AskRequest, on_event: &mut dyn FnMut(AskEvent)) -> Result<AskResponse> {
        if req.question.trim().is_empty() {
            return Err(LensError::BadInput("the question is empty".into()));
        }
        if req.k == 0 || req.k > 20 {
            return Err(LensError::BadInput(format!("k must be between 1 and 20 pages (got {})", req.k)));
        }
        let answerer = answer::by_name(&req.answerer)?;
        let t0 = Instant::now();
        let mut sreq = SearchRequest::new(req.question.clone());
        sreq.docs = req.docs.clone();
        sreq.filter = req.filter;
        sreq.k = req.k;
        sreq.retriever = req.retriever;
        let sr = self.search(&sreq)?;
        let ids: Vec<(String, u32)> = sr.hits.iter().map(|h| (h.doc_id.clone(), h.page)).collect();
        let inputs = page_inputs(self, &ids)?;
        let retrieve_ms = t0.elapsed().as_secs_f64() * 1000.0;
        on_event(AskEvent::Pages { pages: ids.iter().map(|(d, p)| format!("{d}#{p}")).collect(), filter: sr.filter.clone(), retrieve_ms, retriever: sr.retriever.name().into() });
        let a = if inputs.is_empty() {
            let a = Answer::not_found(answerer.name(), 0.0);
            on_event(AskEvent::Text { text: a.answer.clone() });
            a
        } else {
            answerer.answer_stream(&req.question, &inputs, &mut |t| on_event(AskEvent::Text { text: t.to_string() }))?
        };
        let (ev, boxes) = locate_answer(self, &a)?;
        let pages: Vec<String> = ids.iter().map(|(d, p)| format!("{d}#{p}")).collect();
        let citations: Vec<String> = a.citations.iter().map(|c| c.to_string()).collect();
        let retriever = sr.retriever.name().to_string();
        let entry = LogEntry {
            id: 0,
            time: String::new(),
            question: req.question.clone(),
            scope: req.docs.clone(),
            pages: pages.clone(),
            answer: a.answer.clone(),
            citations: citations.clone(),
            quote: a.quote.clone(),
            not_found: a.not_found,
            found_by: Some(format!("{:?}", ev.found_by).to_lowercase()),
            retrieve_ms,
            answer_ms: a.answer_ms,
            answerer: a.answerer.clone(),
            retriever: retriever.clone(),
            feedback: None,
            feedback_note: None,
        };
        let log_id = self.store().log_question(&entry)?;
        let resp = AskResponse {
            log_id,
            question: req.question.clone(),
            answer: a.answer,
            citations,
            quote: a.quote,
            not_found: a.not_found,
            found_by: ev.found_by,
            boxes,
            pages,
            filter: sr.filter,
            retrieve_ms,
            answer_ms: a.answer_ms,
            answerer: a.answerer,
            retriever,
            device: "cpu".into(),
            notes: sr.notes,
        };
        on_event(AskEvent::Done { response: Box::new(resp.clone()) });
        Ok(resp)
    }
}
