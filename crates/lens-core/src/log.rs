//! The question log: every ask, its answer and the user's feedback (`question_log`, the next
//! eval set). Above the store: it keeps answers, the store keeps rows.

use crate::answer::Answer;
use crate::error::{LensError, Result};
use crate::pageref::PageRef;
use crate::retrieve::Retriever;
use crate::store::Store;
use rusqlite::params;
use serde::{Deserialize, Serialize};

/// One row of the question log.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LogEntry {
    pub id: i64,
    pub time: String,
    pub question: String,
    pub scope: Vec<String>,
    pub pages: Vec<PageRef>,
    #[serde(flatten)]
    pub answer: Answer,
    pub retrieve_ms: f64,
    pub retriever: Retriever,
    pub feedback: Option<i32>,
    pub feedback_note: Option<String>,
    /// Stopped before the answer was finished (the answer holds what was written by then).
    #[serde(default)]
    pub cancelled: bool,
    /// What the user was shown when it was asked; `None` for entries logged before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<Shown>,
    /// The team user who asked (`lens serve --team`); `None` on a one-person library.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_by: Option<String>,
    /// The team user who gave the feedback.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback_by: Option<String>,
}

/// The answer as shown when asked: its label and why, the verifier's checks, the question as
/// read, the notes. A reopened answer and a workpaper show this, never a new judgement.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Shown {
    pub support: crate::support::Support,
    #[serde(default)]
    pub support_reasons: Vec<String>,
    #[serde(default)]
    pub checks: Vec<crate::figures::rules::Check>,
    pub question: crate::question::Question,
    #[serde(default)]
    pub notes: Vec<String>,
}

impl Store {
    /// Append to the question log; returns the entry id.
    pub fn log_question(&self, e: &LogEntry) -> Result<i64> {
        self.conn.execute(
            "INSERT INTO question_log(question,scope,pages,answer,citations,quote,not_found,found_by,retrieve_ms,answer_ms,answerer,retriever,calculation,model,cancelled,shown,asked_by) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)",
            params![
                e.question,
                serde_json::to_string(&e.scope).expect("strings serialise"),
                serde_json::to_string(&e.pages).expect("page refs serialise"),
                e.answer.answer,
                serde_json::to_string(&e.answer.citations).expect("page refs serialise"),
                e.answer.quote,
                e.answer.not_found,
                e.answer.found_by.name(),
                e.retrieve_ms,
                e.answer.answer_ms,
                e.answer.answerer.name(),
                e.retriever.name(),
                e.answer.calculation.as_ref().map(|c| serde_json::to_string(c).expect("calculations serialise")),
                e.answer.model.as_ref().map(|m| serde_json::to_string(m).expect("model runs serialise")),
                e.cancelled,
                e.shown.as_ref().map(|s| serde_json::to_string(s).expect("the shown record serialises")),
                e.asked_by
            ],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Thumbs up (+1) or down (-1) with an optional note, and the team user who gave it.
    pub(crate) fn set_feedback(&self, id: i64, value: i32, note: Option<&str>, by: Option<&str>) -> Result<()> {
        if value != 1 && value != -1 {
            return Err(LensError::BadInput("feedback is +1 (thumbs up) or -1 (thumbs down)".into()));
        }
        let n = self.conn.execute("UPDATE question_log SET feedback=?2, feedback_note=?3, feedback_by=?4 WHERE id=?1", params![id, value, note, by])?;
        if n == 0 {
            return Err(LensError::NotFound(format!("no logged question with id {id}")));
        }
        Ok(())
    }

    /// Most recent log entries first.
    pub fn question_log(&self, limit: usize) -> Result<Vec<LogEntry>> {
        self.log_rows("ORDER BY id DESC LIMIT ?1", limit.min(i64::MAX as usize) as i64)
    }

    /// One logged question.
    /// The time now, UTC (`2026-12-01T10:00:00Z`).
    pub fn now(&self) -> Result<String> {
        Ok(self.conn.query_row("SELECT strftime('%Y-%m-%dT%H:%M:%SZ','now')", [], |r| r.get(0))?)
    }

    pub fn log_entry(&self, id: i64) -> Result<LogEntry> {
        self.log_rows("WHERE id=?1", id)?.pop().ok_or_else(|| LensError::NotFound(format!("no logged question with id {id}")))
    }

    fn log_rows(&self, tail: &str, arg: i64) -> Result<Vec<LogEntry>> {
        let mut st = self.conn.prepare(&format!(
            "SELECT id,time,question,scope,pages,answer,citations,quote,not_found,found_by,retrieve_ms,answer_ms,answerer,retriever,feedback,feedback_note,calculation,model,cancelled,shown,asked_by,feedback_by FROM question_log {tail}"
        ))?;
        // rows are read leniently: a value this build does not know reads as its default
        fn list<T: serde::de::DeserializeOwned>(s: String) -> Vec<T> {
            serde_json::from_str(&s).unwrap_or_default()
        }
        fn named<T: std::str::FromStr + Default>(s: Option<String>) -> T {
            s.and_then(|s| s.parse().ok()).unwrap_or_default()
        }
        let rows = st
            .query_map([arg], |r| {
                let shown: Option<Shown> = r.get::<_, Option<String>>(19)?.and_then(|c| serde_json::from_str(&c).ok());
                Ok(LogEntry {
                    id: r.get(0)?,
                    time: r.get(1)?,
                    question: r.get(2)?,
                    scope: list(r.get(3)?),
                    pages: list(r.get(4)?),
                    answer: Answer {
                        answer: r.get(5)?,
                        citations: list(r.get(6)?),
                        quote: r.get(7)?,
                        not_found: r.get(8)?,
                        found_by: named(r.get(9)?),
                        answer_ms: r.get(11)?,
                        answerer: named(r.get(12)?),
                        calculation: r.get::<_, Option<String>>(16)?.and_then(|c| serde_json::from_str(&c).ok()),
                        model: r.get::<_, Option<String>>(17)?.and_then(|c| serde_json::from_str(&c).ok()),
                        support: shown.as_ref().map(|s| s.support).unwrap_or_default(),
                        support_reasons: shown.as_ref().map(|s| s.support_reasons.clone()).unwrap_or_default(),
                        checks: shown.as_ref().map(|s| s.checks.clone()).unwrap_or_default(),
                        cited: None,
                    },
                    retrieve_ms: r.get(10)?,
                    retriever: named(r.get(13)?),
                    feedback: r.get(14)?,
                    feedback_note: r.get(15)?,
                    cancelled: r.get(18)?,
                    shown,
                    asked_by: r.get(20)?,
                    feedback_by: r.get(21)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }
}

/// The question log as the front ends read and mark it.
impl crate::library::Library {
    /// Most recent log entries first.
    pub fn question_log(&self, limit: usize) -> Result<Vec<LogEntry>> {
        self.store().question_log(limit)
    }

    /// One logged question.
    pub fn log_entry(&self, id: i64) -> Result<LogEntry> {
        self.store().log_entry(id)
    }

    /// Thumbs up (+1) or down (-1) on a logged answer, with an optional note and the team user
    /// who gave it.
    pub fn set_feedback(&self, id: i64, value: i32, note: Option<&str>, by: Option<&str>) -> Result<()> {
        self.store().set_feedback(id, value, note, by)
    }
}
