//! Where the labeler's gold sets are kept: the rows of named sets, their questions (each keeping
//! its label line's fields as JSON), and the append-only grade, answer and box events of the
//! annotators (migration 6). [`LabelStore`] is the seam: the library's SQLite file keeps them by
//! default ([`Store`]); a team server keeps them in PostgreSQL beside its question log
//! (`lens-pg`). What the rows mean (the exported grade, agreement, import and export) is
//! `labels/`, above every store; one contract suite runs on both stores
//! (`crates/lens-pg/tests/contract.rs`).
//!
//! Writes come as [`LabelOp`]s on one set, applied in one transaction: an import of a whole
//! file is all there or not there, and two annotators writing at once never overwrite each
//! other's events.

use crate::error::{LensError, Result};
use crate::store::Store;
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// An annotator's current grade of a page.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GradeEntry {
    pub page: String,
    pub annotator: String,
    pub grade: u8,
    pub at: String,
}

/// An annotator's latest answer to a question.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct AnswerEntry {
    pub annotator: String,
    pub answer: String,
    pub answerable: bool,
    pub at: String,
}

/// An evidence box an annotator drew, in PDF points (origin bottom left), like evidence boxes.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LabelBox {
    #[serde(default)]
    pub id: i64,
    pub page: String,
    #[serde(default)]
    pub annotator: String,
    pub l: f32,
    pub b: f32,
    pub r: f32,
    pub t: f32,
}

/// A set as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct SetRow {
    pub name: String,
    pub created_at: String,
}

/// A question as stored: its label line's fields (JSON text), where it came from, and the
/// annotators' current grades (latest event per page and annotator, cleared ones left out),
/// latest answers (per annotator) and boxes not removed, each in event order.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredQuestion {
    pub qid: String,
    pub fields: String,
    pub origin: Option<String>,
    pub grades: Vec<GradeEntry>,
    pub answers: Vec<AnswerEntry>,
    pub boxes: Vec<LabelBox>,
}

/// One write to a set, by question id.
#[derive(Debug, Clone, PartialEq)]
pub enum LabelOp {
    /// A new question; refused when the set has one with this id.
    AddQuestion { qid: String, fields: String, origin: Option<String> },
    /// A question added, or its fields (and its origin, when one is given) replaced.
    PutQuestion { qid: String, fields: String, origin: Option<String> },
    /// The question's fields replaced.
    SetFields { qid: String, fields: String },
    /// A grade event (`None` clears the page: an undo back to ungraded).
    Grade { qid: String, page: String, annotator: String, grade: Option<u8> },
    /// An answer event.
    Answer { qid: String, annotator: String, answer: String, answerable: bool },
    /// A box drawn (its `id` is ignored; the new one is returned).
    AddBox { qid: String, b: LabelBox },
    /// A box removed; refused when the question has no such box, or (`by` given) when the box
    /// is another annotator's.
    RemoveBox { qid: String, id: i64, by: Option<String> },
    /// The question's boxes removed (an import's boxes replace them): `by`'s only, or every
    /// annotator's when `None` (the library's owner restoring a set).
    ClearBoxes { qid: String, by: Option<String> },
}

impl LabelOp {
    pub fn qid(&self) -> &str {
        match self {
            LabelOp::AddQuestion { qid, .. }
            | LabelOp::PutQuestion { qid, .. }
            | LabelOp::SetFields { qid, .. }
            | LabelOp::Grade { qid, .. }
            | LabelOp::Answer { qid, .. }
            | LabelOp::AddBox { qid, .. }
            | LabelOp::RemoveBox { qid, .. }
            | LabelOp::ClearBoxes { qid, .. } => qid,
        }
    }
}

/// The gold sets' rows, wherever they are kept.
pub trait LabelStore {
    /// Every set, by name.
    fn label_sets(&self) -> Result<Vec<SetRow>>;
    /// The set's questions in the order they were added (only `qid`, when given); `None` when
    /// there is no such set.
    fn label_questions(&self, set: &str, qid: Option<&str>) -> Result<Option<Vec<StoredQuestion>>>;
    /// Apply `ops` to set `set` in one transaction (the set made first when `create`): all or
    /// nothing. The ids of the boxes added, in order.
    fn apply_label_ops(&self, set: &str, create: bool, ops: &[LabelOp]) -> Result<Vec<i64>>;
    /// Remove a set and everything graded in it.
    fn remove_label_set(&self, set: &str) -> Result<()>;
}

/// No set of that name.
pub fn no_set(set: &str) -> LensError {
    LensError::NotFound(format!("no label set named `{set}` (`lens labels list` shows the sets)"))
}

/// No question of that id in the set (another annotator may have removed the set).
pub fn no_question(set: &str, qid: &str) -> LensError {
    LensError::NotFound(format!("no question `{qid}` in label set `{set}` (it may have been removed meanwhile): nothing was written"))
}

/// The question id taken already.
pub fn question_taken(set: &str, qid: &str) -> LensError {
    LensError::BadInput(format!("set `{set}` already has a question `{qid}`"))
}

/// No box of that id on the question.
/// A box another annotator drew: only they remove it.
pub fn not_yours(id: i64, owner: &str) -> LensError {
    LensError::BadInput(format!("box {id} was drawn by `{owner}`: only its annotator removes it"))
}

pub fn no_box(qid: &str, id: i64) -> LensError {
    LensError::NotFound(format!("no evidence box {id} on question `{qid}`"))
}

/// Events grouped by question key, in event order.
fn grouped<T>(rows: Vec<(i64, T)>) -> HashMap<i64, Vec<T>> {
    let mut m: HashMap<i64, Vec<T>> = HashMap::new();
    for (k, v) in rows {
        m.entry(k).or_default().push(v);
    }
    m
}

/// Put the events read for a set's questions together (`questions`: key, qid, fields, origin).
pub fn assemble(
    questions: Vec<(i64, String, String, Option<String>)>,
    grades: Vec<(i64, GradeEntry)>,
    answers: Vec<(i64, AnswerEntry)>,
    boxes: Vec<(i64, LabelBox)>,
) -> Vec<StoredQuestion> {
    let (mut g, mut a, mut b) = (grouped(grades), grouped(answers), grouped(boxes));
    questions
        .into_iter()
        .map(|(key, qid, fields, origin)| StoredQuestion {
            qid,
            fields,
            origin,
            grades: g.remove(&key).unwrap_or_default(),
            answers: a.remove(&key).unwrap_or_default(),
            boxes: b.remove(&key).unwrap_or_default(),
        })
        .collect()
}

/// The SQL both stores run to read a set's current events (`?1` the set's id, `?2` a question
/// id or NULL for all), with the placeholders each dialect writes.
pub mod sql {
    pub const QUESTIONS: &str = "SELECT id, qid, fields, origin FROM label_questions WHERE set_id=?1 AND (?2 IS NULL OR qid=?2) ORDER BY id";
    pub const GRADES: &str = "SELECT g.question, g.page, g.annotator, g.grade, g.at FROM label_grades g JOIN label_questions q ON q.id=g.question \
         WHERE q.set_id=?1 AND (?2 IS NULL OR q.qid=?2) AND g.id = \
         (SELECT MAX(h.id) FROM label_grades h WHERE h.question=g.question AND h.page=g.page AND h.annotator=g.annotator) ORDER BY g.id";
    pub const ANSWERS: &str = "SELECT a.question, a.annotator, a.answer, a.answerable, a.at FROM label_answers a JOIN label_questions q ON q.id=a.question \
         WHERE q.set_id=?1 AND (?2 IS NULL OR q.qid=?2) AND a.id = \
         (SELECT MAX(b.id) FROM label_answers b WHERE b.question=a.question AND b.annotator=a.annotator) ORDER BY a.id";
    pub const BOXES: &str = "SELECT x.question, x.id, x.page, x.annotator, x.l, x.b, x.r, x.t FROM label_boxes x JOIN label_questions q ON q.id=x.question \
         WHERE q.set_id=?1 AND (?2 IS NULL OR q.qid=?2) AND NOT x.removed ORDER BY x.id";
}

impl LabelStore for Store {
    fn label_sets(&self) -> Result<Vec<SetRow>> {
        let c = self.conn();
        let mut st = c.prepare_cached("SELECT name, created_at FROM label_sets ORDER BY name")?;
        let v = st.query_map([], |r| Ok(SetRow { name: r.get(0)?, created_at: r.get(1)? }))?.collect::<rusqlite::Result<_>>()?;
        Ok(v)
    }

    fn label_questions(&self, set: &str, qid: Option<&str>) -> Result<Option<Vec<StoredQuestion>>> {
        let c = self.conn();
        let Some(sid) = c.query_row("SELECT id FROM label_sets WHERE name=?1", [set], |r| r.get::<_, i64>(0)).optional()? else {
            return Ok(None);
        };
        // one read transaction: the four reads see the same moment
        let tx = c.unchecked_transaction()?;
        let questions = tx
            .prepare_cached(sql::QUESTIONS)?
            .query_map(params![sid, qid], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let grades = tx
            .prepare_cached(sql::GRADES)?
            .query_map(params![sid, qid], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, Option<u8>>(3)?, r.get::<_, String>(4)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?
            .into_iter()
            .filter_map(|(k, page, annotator, g, at)| g.map(|grade| (k, GradeEntry { page, annotator, grade, at })))
            .collect();
        let answers = tx
            .prepare_cached(sql::ANSWERS)?
            .query_map(params![sid, qid], |r| Ok((r.get(0)?, AnswerEntry { annotator: r.get(1)?, answer: r.get(2)?, answerable: r.get(3)?, at: r.get(4)? })))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let boxes = tx
            .prepare_cached(sql::BOXES)?
            .query_map(params![sid, qid], |r| {
                Ok((r.get(0)?, LabelBox { id: r.get(1)?, page: r.get(2)?, annotator: r.get(3)?, l: r.get(4)?, b: r.get(5)?, r: r.get(6)?, t: r.get(7)? }))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        tx.finish()?;
        Ok(Some(assemble(questions, grades, answers, boxes)))
    }

    fn apply_label_ops(&self, set: &str, create: bool, ops: &[LabelOp]) -> Result<Vec<i64>> {
        // a write transaction from the start: one that reads first and writes later cannot wait
        // for another writer (SQLite refuses the upgrade at once)
        let c = self.conn();
        let tx = rusqlite::Transaction::new_unchecked(&c, rusqlite::TransactionBehavior::Immediate)?;
        if create {
            tx.execute("INSERT OR IGNORE INTO label_sets(name) VALUES(?1)", [set])?;
        }
        let sid: i64 = tx.query_row("SELECT id FROM label_sets WHERE name=?1", [set], |r| r.get(0)).optional()?.ok_or_else(|| no_set(set))?;
        let key = |qid: &str| -> Result<i64> {
            tx.query_row("SELECT id FROM label_questions WHERE set_id=?1 AND qid=?2", params![sid, qid], |r| r.get(0))
                .optional()?
                .ok_or_else(|| no_question(set, qid))
        };
        let mut ids = Vec::new();
        for op in ops {
            match op {
                LabelOp::AddQuestion { qid, fields, origin } => {
                    let n = tx.execute(
                        "INSERT OR IGNORE INTO label_questions(set_id, qid, fields, origin) VALUES(?1, ?2, ?3, ?4)",
                        params![sid, qid, fields, origin],
                    )?;
                    if n == 0 {
                        return Err(question_taken(set, qid));
                    }
                }
                LabelOp::PutQuestion { qid, fields, origin } => {
                    tx.execute(
                        "INSERT INTO label_questions(set_id, qid, fields, origin) VALUES(?1, ?2, ?3, ?4) \
                         ON CONFLICT(set_id, qid) DO UPDATE SET fields=excluded.fields, origin=COALESCE(excluded.origin, origin)",
                        params![sid, qid, fields, origin],
                    )?;
                }
                LabelOp::SetFields { qid, fields } => {
                    tx.execute("UPDATE label_questions SET fields=?2 WHERE id=?1", params![key(qid)?, fields])?;
                }
                LabelOp::Grade { qid, page, annotator, grade } => {
                    tx.execute(
                        "INSERT INTO label_grades(question, page, annotator, grade) VALUES(?1, ?2, ?3, ?4)",
                        params![key(qid)?, page, annotator, grade],
                    )?;
                }
                LabelOp::Answer { qid, annotator, answer, answerable } => {
                    tx.execute(
                        "INSERT INTO label_answers(question, annotator, answer, answerable) VALUES(?1, ?2, ?3, ?4)",
                        params![key(qid)?, annotator, answer, answerable],
                    )?;
                }
                LabelOp::AddBox { qid, b } => {
                    tx.execute(
                        "INSERT INTO label_boxes(question, page, annotator, l, b, r, t) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                        params![key(qid)?, b.page, b.annotator, b.l, b.b, b.r, b.t],
                    )?;
                    ids.push(tx.last_insert_rowid());
                }
                LabelOp::RemoveBox { qid, id, by } => {
                    let owner: Option<String> = tx
                        .query_row("SELECT annotator FROM label_boxes WHERE id=?1 AND question=?2 AND removed=0", params![id, key(qid)?], |r| r.get(0))
                        .optional()?;
                    match owner {
                        None => return Err(no_box(qid, *id)),
                        Some(o) if by.as_ref().is_some_and(|b| *b != o) => return Err(not_yours(*id, &o)),
                        Some(_) => {
                            tx.execute("UPDATE label_boxes SET removed=1 WHERE id=?1", [id])?;
                        }
                    }
                }
                LabelOp::ClearBoxes { qid, by } => match by {
                    Some(b) => {
                        tx.execute("UPDATE label_boxes SET removed=1 WHERE question=?1 AND annotator=?2", params![key(qid)?, b])?;
                    }
                    None => {
                        tx.execute("UPDATE label_boxes SET removed=1 WHERE question=?1", [key(qid)?])?;
                    }
                },
            }
        }
        tx.commit()?;
        Ok(ids)
    }

    fn remove_label_set(&self, set: &str) -> Result<()> {
        let n = self.conn().execute("DELETE FROM label_sets WHERE name=?1", [set])?;
        if n == 0 {
            return Err(no_set(set));
        }
        Ok(())
    }
}
