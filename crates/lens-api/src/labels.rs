//! The labeler's commands: gold sets, a question with its candidate pages, grades, answers,
//! evidence boxes, import / export, agreement and scoring in place. The work is done by
//! `lens_core::labels`; this adds the candidates (the retriever's top pages, pages already graded,
//! the pages a promoted log entry read, pages the annotator added), each with heading and snippet.

use crate::Api;
use lens_core::error::{LensError, Result};
use lens_core::eval::{EvalOptions, Mode};
use lens_core::labels::{self, jsonl, Agreement, ImportReport, LabelBox, Question, SaveAnswer, Score, SetInfo};
use lens_core::pageref::PageRef;
use lens_core::retrieve::{Retriever, SearchRequest};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

fn eight() -> usize {
    8
}

#[derive(Debug, Clone, Deserialize)]
pub struct SetArgs {
    pub set: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct QuestionArgs {
    pub set: String,
    pub qid: String,
    /// Default: the library's setting.
    #[serde(default)]
    pub retriever: Option<Retriever>,
    /// How many of the retriever's pages to offer.
    #[serde(default = "eight")]
    pub k: usize,
    /// Pages the annotator added by id or from a search in the panel.
    #[serde(default)]
    pub extra: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AddQuestionArgs {
    pub set: String,
    pub query: String,
    #[serde(default)]
    pub qid: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct FromLogArgs {
    pub set: String,
    pub log_id: i64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct GradeArgs {
    pub set: String,
    pub qid: String,
    pub page: String,
    /// 0, 1, 2, or null to clear (undo back to ungraded).
    pub grade: Option<u8>,
    pub annotator: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SaveArgs {
    pub set: String,
    pub qid: String,
    pub annotator: String,
    #[serde(flatten)]
    pub save: SaveAnswer,
}

#[derive(Debug, Clone, Deserialize)]
pub struct BoxArgs {
    pub set: String,
    pub qid: String,
    pub annotator: String,
    #[serde(flatten)]
    pub rect: LabelBox,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RemoveBoxArgs {
    pub set: String,
    pub qid: String,
    pub id: i64,
    /// Who removes it (the team server puts the caller here): only their own box.
    #[serde(default)]
    pub annotator: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ImportArgs {
    pub set: String,
    /// The JSONL file's contents.
    pub text: String,
    #[serde(default)]
    pub annotator: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ScoreArgs {
    pub set: String,
    #[serde(default)]
    pub retriever: Option<Retriever>,
    #[serde(default)]
    pub mode: Option<Mode>,
}

/// A page offered for grading.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub page: String,
    pub doc_id: String,
    pub page_no: u32,
    pub heading: String,
    /// "p. 41 (PDF page 44)": the page's label beside its index.
    pub shown: String,
    pub snippet: String,
    /// Rank in the retriever's list, when it is there.
    pub rank: Option<usize>,
    /// Page size in points (for drawing evidence boxes).
    pub width: f32,
    pub height: f32,
    /// Current grades by annotator.
    pub grades: BTreeMap<String, u8>,
    /// Why it is offered: `retriever`, `graded`, `log`, `added`.
    pub from: Vec<&'static str>,
    /// False when the document or page is not in the library (the grade is kept, flagged).
    pub in_library: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct QuestionView {
    #[serde(flatten)]
    pub question: Question,
    pub candidates: Vec<Candidate>,
    /// The question's search terms (the UI marks them in snippets).
    pub terms: Vec<String>,
    pub retriever: Retriever,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Export {
    pub set: String,
    pub file_name: String,
    pub questions: usize,
    pub jsonl: String,
}

impl Api {
    pub fn label_sets(&self) -> Result<Vec<SetInfo>> {
        self.with_records_only(|r| labels::sets(r))
    }

    pub fn label_create_set(&self, set: &str) -> Result<String> {
        self.with_records_only(|r| labels::create_set(r, set))
    }

    pub fn label_remove_set(&self, set: &str) -> Result<()> {
        self.with_records_only(|r| labels::remove_set(r, set))
    }

    pub fn label_questions(&self, set: &str) -> Result<Vec<Question>> {
        self.with_records_only(|r| labels::questions(r, set))
    }

    /// A question with the pages to grade.
    pub fn label_question(&self, a: &QuestionArgs) -> Result<QuestionView> {
        // the question from the records first, without holding the library
        let q = self.with_records_only(|r| labels::question(r, &a.set, &a.qid))?;
        self.with_library(|l| {
            let st = l.settings()?;
            let mut notes = Vec::new();
            let mut req = SearchRequest::new(q.query.clone());
            req.k = a.k.clamp(1, 50);
            let (mut hits, mut terms, mut used) = (Vec::new(), Vec::new(), st.retriever);
            match crate::choose_retriever(l, &st, a.retriever, false).and_then(|r| {
                req.retriever = r;
                l.search(&req)
            }) {
                Ok(r) => {
                    used = r.retriever;
                    terms = r.terms;
                    notes.extend(r.notes);
                    hits = r.hits;
                }
                Err(e) => notes.push(format!("no candidates from the retriever: {e}")),
            }
            // the candidate list: retriever's order, then graded, log, added pages
            let mut order: Vec<(String, &'static str, Option<usize>)> = Vec::new();
            for h in &hits {
                order.push((h.page_ref().to_string(), "retriever", Some(h.rank)));
            }
            for g in &q.grades {
                order.push((g.page.clone(), "graded", None));
            }
            if let Some(o) = &q.origin {
                for key in ["citations", "pages"] {
                    for p in o.get(key).and_then(|v| v.as_array()).into_iter().flatten().filter_map(|v| v.as_str()) {
                        order.push((p.to_string(), "log", None));
                    }
                }
            }
            for p in &a.extra {
                let key = labels::page_ref(p)?;
                l.check_page(&key.doc_id, key.page)?;
                order.push((key.to_string(), "added", None));
            }
            let mut candidates: Vec<Candidate> = Vec::new();
            for (page, from, rank) in order {
                if let Some(c) = candidates.iter_mut().find(|c| c.page == page) {
                    if !c.from.contains(&from) {
                        c.from.push(from);
                    }
                    continue;
                }
                let Ok(key) = page.parse::<PageRef>() else { continue };
                let stored = l.page(&key.doc_id, key.page).ok();
                let snippet = if stored.is_some() { l.snippet(&key, &terms).unwrap_or_default() } else { String::new() };
                candidates.push(Candidate {
                    doc_id: key.doc_id.clone(),
                    page_no: key.page,
                    heading: stored.as_ref().map(|p| p.heading.clone()).unwrap_or_default(),
                    shown: stored.as_ref().map(|p| p.shown()).unwrap_or_else(|| lens_core::pagelabel::describe(None, key.page)),
                    snippet,
                    rank,
                    width: stored.as_ref().map(|p| p.width).unwrap_or(0.0),
                    height: stored.as_ref().map(|p| p.height).unwrap_or(0.0),
                    grades: q.grades.iter().filter(|g| g.page == page).map(|g| (labels::who(&g.annotator), g.grade)).collect(),
                    from: vec![from],
                    in_library: stored.is_some(),
                    page,
                });
            }
            let missing = candidates.iter().filter(|c| !c.in_library).count();
            if missing > 0 {
                notes.push(format!(
                    "{missing} graded page{} not in the library (kept; add the document to view and score {})",
                    if missing == 1 { " is" } else { "s are" },
                    if missing == 1 { "it" } else { "them" }
                ));
            }
            Ok(QuestionView { question: q, candidates, terms, retriever: used, notes })
        })
    }

    pub fn label_add(&self, a: &AddQuestionArgs) -> Result<Question> {
        self.with_records_only(|r| labels::add_question(r, &a.set, &a.query, a.qid.as_deref(), None))
    }

    pub fn label_from_log(&self, a: &FromLogArgs) -> Result<Question> {
        self.with_records_only(|r| labels::add_from_log(r, &a.set, a.log_id))
    }

    pub fn label_grade(&self, a: &GradeArgs) -> Result<Question> {
        self.with_records_only(|r| labels::grade(r, &a.set, &a.qid, &a.page, &a.annotator, a.grade))
    }

    pub fn label_save(&self, a: &SaveArgs) -> Result<Question> {
        self.with_records_only(|r| labels::save_answer(r, &a.set, &a.qid, &a.annotator, &a.save))
    }

    pub fn label_add_box(&self, a: &BoxArgs) -> Result<i64> {
        self.with_records_only(|r| labels::add_box(r, &a.set, &a.qid, &a.annotator, &a.rect))
    }

    pub fn label_remove_box(&self, a: &RemoveBoxArgs) -> Result<()> {
        self.with_records_only(|r| labels::remove_box(r, &a.set, &a.qid, a.id, a.annotator.as_deref().filter(|s| !s.trim().is_empty())))
    }

    pub fn label_import(&self, a: &ImportArgs) -> Result<ImportReport> {
        let lines = jsonl::parse(&a.text)?;
        if lines.is_empty() {
            return Err(LensError::BadInput("the file holds no label lines".into()));
        }
        self.with_records(|l, r| labels::import(l, r, &a.set, &lines, a.annotator.as_deref().filter(|s| !s.trim().is_empty())))
    }

    pub fn label_export(&self, set: &str) -> Result<Export> {
        let lines = self.with_records_only(|r| labels::export(r, set))?;
        let jsonl: String = lines.iter().map(|v| format!("{v}\n")).collect();
        let stem: String = set.trim().chars().map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
        Ok(Export { set: set.trim().to_string(), file_name: format!("{stem}.labels.jsonl"), questions: lines.len(), jsonl })
    }

    pub fn label_agreement(&self, set: &str) -> Result<Agreement> {
        self.with_records_only(|r| labels::agreement(r, set))
    }

    /// The retrieval eval on a set, with the options `lens eval --labels` uses by default.
    pub fn label_score(&self, a: &ScoreArgs) -> Result<Score> {
        self.with_records(|l, r| {
            let st = l.settings()?;
            let retriever = crate::choose_retriever(l, &st, Some(a.retriever.unwrap_or(Retriever::Bm25)), true)?;
            let opts = EvalOptions { mode: a.mode.unwrap_or(Mode::Filter), retriever, ..Default::default() };
            labels::score(l, r, &a.set, &opts)
        })
    }
}
