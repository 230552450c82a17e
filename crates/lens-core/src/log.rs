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
    /// The team user who gave the feedback (the latest of all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback_by: Option<String>,
    /// Each user's own feedback (their latest), by name; one user's never replaces another's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub feedbacks: Vec<Feedback>,
}

/// One user's feedback on a logged answer.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Feedback {
    /// The team user; empty on a one-person library.
    pub user: String,
    /// +1 right, -1 wrong.
    pub value: i32,
    pub note: Option<String>,
    /// When it was given (UTC).
    pub at: String,
}

/// `fb` (log id, feedback) put on the entries they belong to, each entry's by user name.
pub fn attach_feedback(entries: &mut [LogEntry], fb: Vec<(i64, Feedback)>) {
    for (id, f) in fb {
        if let Some(e) = entries.iter_mut().find(|e| e.id == id) {
            e.feedbacks.push(f);
        }
    }
    for e in entries {
        e.feedbacks.sort_by(|a, b| a.user.cmp(&b.user));
    }
}

/// The stores' feedback rows for log ids `lo..=hi`.
pub const FEEDBACK_ROWS: &str = "SELECT log_id, user_name, value, note, at FROM feedback WHERE log_id BETWEEN ?1 AND ?2";

/// The answer as shown when asked: its label and why, the verifier's checks, the question as
/// read, the notes. A reopened answer and a workpaper show this, never a new judgement.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Shown {
    pub support: crate::support::Support,
    #[serde(default)]
    pub support_reasons: Vec<String>,
    /// The rule behind each reason (empty in entries logged before rules had ids).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub support_rules: Vec<String>,
    #[serde(default)]
    pub checks: Vec<crate::figures::rules::Check>,
    pub question: crate::question::Question,
    #[serde(default)]
    pub notes: Vec<String>,
    /// A follow-up's thread ([`crate::followup::FollowUp`]): the question it follows and what
    /// it kept from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_up: Option<crate::followup::FollowUp>,
}

/// The records a team shares, wherever they are kept: the question log with its feedback, the
/// users, and the gold sets ([`crate::labelstore::LabelStore`]). The library's SQLite store
/// keeps them by default ([`Store`]); a team server can keep them in PostgreSQL (`lens-pg`). One
/// contract test suite runs on both (`crates/lens-pg/tests/contract.rs`).
pub trait Records: crate::labelstore::LabelStore {
    /// Append to the question log; the entry's id.
    fn log_question(&self, e: &LogEntry) -> Result<i64>;
    /// Most recent entries first.
    fn question_log(&self, limit: usize) -> Result<Vec<LogEntry>>;
    fn log_entry(&self, id: i64) -> Result<LogEntry>;
    /// +1 or -1, an optional note, and who gave it.
    fn set_feedback(&self, id: i64, value: i32, note: Option<&str>, by: Option<&str>) -> Result<()>;
    /// A new user; its token (only its hash is kept), ending as `expiry` says.
    fn add_user(&self, name: &str, role: crate::users::Role, expiry: &crate::users::Expiry) -> Result<String>;
    /// A new token for a user, ending as `expiry` says; the old one stops working.
    fn new_user_token(&self, name: &str, expiry: &crate::users::Expiry) -> Result<String>;
    fn remove_user(&self, name: &str) -> Result<()>;
    fn users(&self) -> Result<Vec<crate::users::User>>;
    /// The user a token belongs to, removed or not.
    fn user_by_token(&self, token: &str) -> Result<Option<crate::users::User>>;
    /// Where the records are kept, for messages ("the library's SQLite file", "PostgreSQL at
    /// db.example:5432/lens").
    fn place(&self) -> String;
}

impl Records for Store {
    fn log_question(&self, e: &LogEntry) -> Result<i64> {
        Store::log_question(self, e)
    }
    fn question_log(&self, limit: usize) -> Result<Vec<LogEntry>> {
        Store::question_log(self, limit)
    }
    fn log_entry(&self, id: i64) -> Result<LogEntry> {
        Store::log_entry(self, id)
    }
    fn set_feedback(&self, id: i64, value: i32, note: Option<&str>, by: Option<&str>) -> Result<()> {
        Store::set_feedback(self, id, value, note, by)
    }
    fn add_user(&self, name: &str, role: crate::users::Role, expiry: &crate::users::Expiry) -> Result<String> {
        Store::add_user(self, name, role, expiry)
    }
    fn new_user_token(&self, name: &str, expiry: &crate::users::Expiry) -> Result<String> {
        Store::new_user_token(self, name, expiry)
    }
    fn remove_user(&self, name: &str) -> Result<()> {
        Store::remove_user(self, name)
    }
    fn users(&self) -> Result<Vec<crate::users::User>> {
        Store::users(self)
    }
    fn user_by_token(&self, token: &str) -> Result<Option<crate::users::User>> {
        Store::user_by_token(self, token)
    }
    fn place(&self) -> String {
        "the library's SQLite file".into()
    }
}

/// A log row as both stores keep it, column by column (the same columns in SQLite and
/// PostgreSQL): lists and records as JSON text, names as text. [`LogColumns::entry`] reads one
/// leniently: a value this build does not know reads as its default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogColumns {
    pub id: i64,
    pub time: String,
    pub question: String,
    pub scope: String,
    pub pages: String,
    pub answer: String,
    pub citations: String,
    pub quote: Option<String>,
    pub not_found: bool,
    pub found_by: Option<String>,
    pub retrieve_ms: f64,
    pub answer_ms: f64,
    pub answerer: Option<String>,
    pub retriever: Option<String>,
    pub feedback: Option<i32>,
    pub feedback_note: Option<String>,
    pub calculation: Option<String>,
    pub model: Option<String>,
    pub cancelled: bool,
    pub shown: Option<String>,
    pub asked_by: Option<String>,
    pub feedback_by: Option<String>,
}

/// The columns a store reads, in [`LogColumns`]' order.
pub const LOG_COLUMNS: &str =
    "id,time,question,scope,pages,answer,citations,quote,not_found,found_by,retrieve_ms,answer_ms,answerer,retriever,feedback,feedback_note,calculation,model,cancelled,shown,asked_by,feedback_by";

impl LogColumns {
    /// The columns of an entry to write (id and time are the store's).
    pub fn of(e: &LogEntry) -> LogColumns {
        LogColumns {
            id: e.id,
            time: e.time.clone(),
            question: e.question.clone(),
            scope: serde_json::to_string(&e.scope).expect("strings serialise"),
            pages: serde_json::to_string(&e.pages).expect("page refs serialise"),
            answer: e.answer.answer.clone(),
            citations: serde_json::to_string(&e.answer.citations).expect("page refs serialise"),
            quote: e.answer.quote.clone(),
            not_found: e.answer.not_found,
            found_by: Some(e.answer.found_by.name().to_string()),
            retrieve_ms: e.retrieve_ms,
            answer_ms: e.answer.answer_ms,
            answerer: Some(e.answer.answerer.name().to_string()),
            retriever: Some(e.retriever.name().to_string()),
            feedback: e.feedback,
            feedback_note: e.feedback_note.clone(),
            calculation: e.answer.calculation.as_ref().map(|c| serde_json::to_string(c).expect("calculations serialise")),
            model: e.answer.model.as_ref().map(|m| serde_json::to_string(m).expect("model runs serialise")),
            cancelled: e.cancelled,
            shown: e.shown.as_ref().map(|s| serde_json::to_string(s).expect("the shown record serialises")),
            asked_by: e.asked_by.clone(),
            feedback_by: e.feedback_by.clone(),
        }
    }

    /// The entry these columns hold.
    pub fn entry(self) -> LogEntry {
        fn list<T: serde::de::DeserializeOwned>(s: &str) -> Vec<T> {
            serde_json::from_str(s).unwrap_or_default()
        }
        fn named<T: std::str::FromStr + Default>(s: Option<String>) -> T {
            s.and_then(|s| s.parse().ok()).unwrap_or_default()
        }
        let shown: Option<Shown> = self.shown.as_deref().and_then(|c| serde_json::from_str(c).ok());
        LogEntry {
            id: self.id,
            time: self.time,
            question: self.question,
            scope: list(&self.scope),
            pages: list(&self.pages),
            answer: Answer {
                answer: self.answer,
                citations: list(&self.citations),
                quote: self.quote,
                not_found: self.not_found,
                found_by: named(self.found_by),
                answer_ms: self.answer_ms,
                answerer: named(self.answerer),
                calculation: self.calculation.as_deref().and_then(|c| serde_json::from_str(c).ok()),
                model: self.model.as_deref().and_then(|c| serde_json::from_str(c).ok()),
                support: shown.as_ref().map(|s| s.support).unwrap_or_default(),
                support_reasons: shown.as_ref().map(|s| s.support_reasons.clone()).unwrap_or_default(),
                support_rules: shown.as_ref().map(|s| s.support_rules.clone()).unwrap_or_default(),
                checks: shown.as_ref().map(|s| s.checks.clone()).unwrap_or_default(),
                cited: None,
            },
            retrieve_ms: self.retrieve_ms,
            retriever: named(self.retriever),
            feedback: self.feedback,
            feedback_note: self.feedback_note,
            cancelled: self.cancelled,
            shown,
            asked_by: self.asked_by,
            feedback_by: self.feedback_by,
            feedbacks: Vec::new(),
        }
    }
}

/// Feedback is +1 or -1.
pub fn check_feedback(value: i32) -> Result<()> {
    if value != 1 && value != -1 {
        return Err(LensError::BadInput("feedback is +1 (thumbs up) or -1 (thumbs down)".into()));
    }
    Ok(())
}

impl Store {
    /// Append to the question log; returns the entry id.
    pub fn log_question(&self, e: &LogEntry) -> Result<i64> {
        let c = LogColumns::of(e);
        self.conn().execute(
            "INSERT INTO question_log(question,scope,pages,answer,citations,quote,not_found,found_by,retrieve_ms,answer_ms,answerer,retriever,calculation,model,cancelled,shown,asked_by) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)",
            params![
                c.question,
                c.scope,
                c.pages,
                c.answer,
                c.citations,
                c.quote,
                c.not_found,
                c.found_by,
                c.retrieve_ms,
                c.answer_ms,
                c.answerer,
                c.retriever,
                c.calculation,
                c.model,
                c.cancelled,
                c.shown,
                c.asked_by
            ],
        )?;
        Ok(self.conn().last_insert_rowid())
    }

    /// Thumbs up (+1) or down (-1) with an optional note, and the team user who gave it.
    /// A user's feedback: kept as theirs (another user's stays), and as the log row's latest.
    pub(crate) fn set_feedback(&self, id: i64, value: i32, note: Option<&str>, by: Option<&str>) -> Result<()> {
        check_feedback(value)?;
        let c = self.conn();
        let tx = c.unchecked_transaction()?;
        let n = tx.execute("UPDATE question_log SET feedback=?2, feedback_note=?3, feedback_by=?4 WHERE id=?1", params![id, value, note, by])?;
        if n == 0 {
            return Err(LensError::NotFound(format!("no logged question with id {id}")));
        }
        tx.execute(
            "INSERT INTO feedback(log_id, user_name, value, note) VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT(log_id, user_name) DO UPDATE SET value=excluded.value, note=excluded.note, at=strftime('%Y-%m-%dT%H:%M:%SZ','now')",
            params![id, by.unwrap_or(""), value, note],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Most recent log entries first.
    pub fn question_log(&self, limit: usize) -> Result<Vec<LogEntry>> {
        self.log_rows("ORDER BY id DESC LIMIT ?1", limit.min(i64::MAX as usize) as i64)
    }

    /// One logged question.
    /// The time now, UTC (`2026-12-01T10:00:00Z`).
    pub fn now(&self) -> Result<String> {
        Ok(self.conn().query_row("SELECT strftime('%Y-%m-%dT%H:%M:%SZ','now')", [], |r| r.get(0))?)
    }

    pub fn log_entry(&self, id: i64) -> Result<LogEntry> {
        self.log_rows("WHERE id=?1", id)?.pop().ok_or_else(|| LensError::NotFound(format!("no logged question with id {id}")))
    }

    fn log_rows(&self, tail: &str, arg: i64) -> Result<Vec<LogEntry>> {
        let c = self.conn();
        let mut st = c.prepare(&format!("SELECT {LOG_COLUMNS} FROM question_log {tail}"))?;
        let rows = st
            .query_map([arg], |r| {
                Ok(LogColumns {
                    id: r.get(0)?,
                    time: r.get(1)?,
                    question: r.get(2)?,
                    scope: r.get(3)?,
                    pages: r.get(4)?,
                    answer: r.get(5)?,
                    citations: r.get(6)?,
                    quote: r.get(7)?,
                    not_found: r.get(8)?,
                    found_by: r.get(9)?,
                    retrieve_ms: r.get(10)?,
                    answer_ms: r.get(11)?,
                    answerer: r.get(12)?,
                    retriever: r.get(13)?,
                    feedback: r.get(14)?,
                    feedback_note: r.get(15)?,
                    calculation: r.get(16)?,
                    model: r.get(17)?,
                    cancelled: r.get(18)?,
                    shown: r.get(19)?,
                    asked_by: r.get(20)?,
                    feedback_by: r.get(21)?,
                }
                .entry())
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut rows = rows;
        if let (Some(lo), Some(hi)) = (rows.iter().map(|e| e.id).min(), rows.iter().map(|e| e.id).max()) {
            let c = self.conn();
            let mut st = c.prepare(FEEDBACK_ROWS)?;
            let fb = st
                .query_map(params![lo, hi], |r| Ok((r.get(0)?, Feedback { user: r.get(1)?, value: r.get(2)?, note: r.get(3)?, at: r.get(4)? })))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            attach_feedback(&mut rows, fb);
        }
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
