//! Gold question sets built in the app: named sets of questions, page grades (0 = not relevant,
//! 1 = holds part of the answer, 2 = holds the whole answer) by named annotators, reference
//! answers, evidence boxes, agreement between annotators, and scoring a set in place.
//!
//! Storage ([`crate::labelstore`], the SQLite file or a team's PostgreSQL; migration 6): a
//! question keeps its label line's fields as JSON, so an imported line
//! exports unchanged; grades, answers and boxes are append-only events carrying annotator and
//! time. An annotator's current grade of a page is their latest event (`NULL` = cleared, which is
//! how an undo back to "ungraded" is stored); two annotators never write the same row, so grading
//! at once loses nothing. The exported grade of a page is the one every annotator gave, or, where
//! they disagree, the latest (the disagreement stays listed by [`agreement`] until resolved).
//!
//! File format: [`jsonl`]. Kappa: [`agreement`](mod@agreement).

pub mod agreement;
pub mod jsonl;

use crate::error::{LensError, Result};
use crate::eval::{self, EvalOptions, Label, Summary};
use crate::labelstore::{no_question, no_set, LabelOp, LabelStore, StoredQuestion};
pub use crate::labelstore::{AnswerEntry, GradeEntry, LabelBox};
use crate::library::Library;
use crate::pageref::PageRef;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The question types the panel offers (others found in imported lines are kept).
pub const QUERY_TYPES: &[&str] = &["numerical", "boolean", "extractive", "compare-contrast", "multi-hop"];
/// The content types the panel offers.
pub const CONTENT_TYPES: &[&str] = &["text", "table", "chart"];

/// How grades from an import without `--annotator` are recorded (shown as "imported").
pub const IMPORTED: &str = "";

#[derive(Debug, Clone, Serialize)]
pub struct SetInfo {
    pub name: String,
    pub questions: usize,
    /// Questions with at least one page graded 1 or 2.
    pub with_gold: usize,
    pub annotators: Vec<String>,
    pub created_at: String,
}

/// One question of a set, as the panel shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Question {
    pub set: String,
    pub qid: String,
    pub query: String,
    /// The reference answer (the `answer` field, as text).
    pub answer: String,
    pub answerable: bool,
    pub query_types: Vec<String>,
    pub content_type: Vec<String>,
    /// Where it came from (a log entry: its id, answer, feedback and pages), when known.
    pub origin: Option<Value>,
    /// Every annotator's current grade of every page they graded.
    pub grades: Vec<GradeEntry>,
    /// The grades the export writes.
    pub gold: BTreeMap<String, u8>,
    /// Pages annotators grade differently.
    pub disagreements: Vec<String>,
    /// Each annotator's latest answer.
    pub answers: Vec<AnswerEntry>,
    pub boxes: Vec<LabelBox>,
    /// Other fields of the label line (kept, exported unchanged).
    pub fields: Map<String, Value>,
}

/// What an annotator saves besides grades.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SaveAnswer {
    pub answer: String,
    #[serde(default = "yes")]
    pub answerable: bool,
    /// None leaves the stored types as they are.
    #[serde(default)]
    pub query_types: Option<Vec<String>>,
    #[serde(default)]
    pub content_type: Option<Vec<String>>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Serialize)]
pub struct ImportReport {
    pub set: String,
    pub added: usize,
    pub updated: usize,
    pub grades: usize,
    /// `QID: DOC#PAGE` for gold pages that are not in the library (kept, but they cannot be
    /// scored until the document is added).
    pub missing: Vec<String>,
}

fn valid_name(kind: &str, s: &str) -> Result<String> {
    let s = s.trim();
    if s.is_empty() {
        return Err(LensError::BadInput(format!("the {kind} is empty")));
    }
    if s.chars().count() > 100 || s.chars().any(char::is_control) {
        return Err(LensError::BadInput(format!("the {kind} must be one line of at most 100 characters")));
    }
    Ok(s.to_string())
}

/// Annotator names are free text; empty means "imported" only on import.
fn annotator_name(a: &str) -> Result<String> {
    valid_name("annotator name", a)
}

/// Every set with its size.
pub fn sets(r: &dyn LabelStore) -> Result<Vec<SetInfo>> {
    let mut out = Vec::new();
    for row in r.label_sets()? {
        // a set removed meanwhile is left out
        let Some(qs) = r.label_questions(&row.name, None)? else { continue };
        let mut with_gold = 0;
        let mut annotators = BTreeSet::new();
        for q in &qs {
            if q.grades.iter().any(|e| e.grade > 0) {
                with_gold += 1;
            }
            annotators.extend(q.grades.iter().map(|e| e.annotator.clone()).filter(|a| !a.is_empty()));
            annotators.extend(q.answers.iter().map(|e| e.annotator.clone()).filter(|a| !a.is_empty()));
        }
        out.push(SetInfo { name: row.name, questions: qs.len(), with_gold, annotators: annotators.into_iter().collect(), created_at: row.created_at });
    }
    Ok(out)
}

/// Create a set (an existing one is left as it is).
pub fn create_set(r: &dyn LabelStore, name: &str) -> Result<String> {
    let name = valid_name("set name", name)?;
    r.apply_label_ops(&name, true, &[])?;
    Ok(name)
}

/// Remove a set and everything graded in it.
pub fn remove_set(r: &dyn LabelStore, name: &str) -> Result<()> {
    r.remove_label_set(name.trim())
}

/// The exported grade per page: the grade all annotators agree on, else the latest one (grades
/// come in event order); and the pages where they disagree.
pub fn resolve(grades: &[GradeEntry]) -> (BTreeMap<String, u8>, Vec<String>) {
    let mut by_page: BTreeMap<&str, Vec<u8>> = BTreeMap::new();
    for g in grades {
        by_page.entry(&g.page).or_default().push(g.grade);
    }
    let mut gold = BTreeMap::new();
    let mut split = Vec::new();
    for (page, gs) in by_page {
        if gs.iter().any(|g| *g != gs[0]) {
            split.push(page.to_string());
        }
        gold.insert(page.to_string(), *gs.last().expect("a page in the map has a grade"));
    }
    (gold, split)
}

fn text_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn list_of(v: Option<&Value>) -> Vec<String> {
    v.map(crate::eval::str_list).unwrap_or_default()
}

/// A stored question as the panel shows it.
fn load(set_name: &str, q: StoredQuestion) -> Result<Question> {
    let qid = q.qid;
    let fields: Map<String, Value> =
        serde_json::from_str(&q.fields).map_err(|e| LensError::BadInput(format!("question `{qid}`: stored fields unreadable ({e})")))?;
    let (gold, disagreements) = resolve(&q.grades);
    Ok(Question {
        set: set_name.to_string(),
        query: text_of(fields.get("query")),
        answer: text_of(fields.get("answer")),
        answerable: fields.get("answerable").and_then(Value::as_bool).unwrap_or(true),
        query_types: list_of(fields.get("query_types")),
        content_type: list_of(fields.get("content_type")),
        origin: q.origin.and_then(|o| serde_json::from_str(&o).ok()),
        grades: q.grades,
        gold,
        disagreements,
        answers: q.answers,
        boxes: q.boxes,
        fields,
        qid,
    })
}

/// Every question of a set, in the order they were added.
pub fn questions(r: &dyn LabelStore, set: &str) -> Result<Vec<Question>> {
    let set = set.trim();
    r.label_questions(set, None)?.ok_or_else(|| no_set(set))?.into_iter().map(|q| load(set, q)).collect()
}

pub fn question(r: &dyn LabelStore, set: &str, qid: &str) -> Result<Question> {
    let set = set.trim();
    let q = r.label_questions(set, Some(qid))?.ok_or_else(|| no_set(set))?.pop().ok_or_else(|| no_question(set, qid))?;
    load(set, q)
}

/// Add a typed (or promoted) question; the set is created if needed. Returns it.
pub fn add_question(r: &dyn LabelStore, set: &str, query: &str, qid: Option<&str>, origin: Option<Value>) -> Result<Question> {
    let query = query.trim();
    if query.is_empty() {
        return Err(LensError::BadInput("the question is empty".into()));
    }
    let set = valid_name("set name", set)?;
    let origin = origin.map(|o| o.to_string());
    let add = |qid: &str| {
        let fields = json!({ "id": qid, "query": query, "answer": "", "query_types": [], "content_type": [] });
        r.apply_label_ops(&set, true, &[LabelOp::AddQuestion { qid: qid.to_string(), fields: fields.to_string(), origin: origin.clone() }])
    };
    let qid = match qid {
        Some(q) => {
            let q = valid_name("question id", q)?;
            add(&q)?;
            q
        }
        // the next free number; another annotator adding at the same moment takes it first:
        // the one after
        None => {
            let prefix: String = set.chars().map(|c| if c.is_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
            let taken: BTreeSet<String> = r.label_questions(&set, None)?.unwrap_or_default().into_iter().map(|q| q.qid).collect();
            let mut n = taken.len();
            let mut tries = 0;
            loop {
                n += 1;
                let q = format!("{prefix}-{n:04}");
                if taken.contains(&q) {
                    continue;
                }
                match add(&q) {
                    Ok(_) => break q,
                    Err(e) if e.code() == "bad_input" && tries < 20 => tries += 1,
                    Err(e) => return Err(e),
                }
            }
        }
    };
    question(r, &set, &qid)
}

/// Promote a logged question (with its answer, feedback and pages) to a set.
pub fn add_from_log(r: &dyn crate::log::Records, set: &str, log_id: i64) -> Result<Question> {
    let e = r.log_entry(log_id)?;
    let origin = json!({
        "log": e.id,
        "time": e.time,
        "answer": e.answer.answer,
        "citations": e.answer.citations.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
        "pages": e.pages.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
        "feedback": e.feedback,
        "note": e.feedback_note,
        "answerer": e.answer.answerer.name(),
    });
    add_question(r, set, &e.question, Some(&format!("log-{}", e.id)), Some(origin))
}

/// A page as annotators type it (`DOC#PAGE`), or a message saying so.
pub fn page_ref(page: &str) -> Result<PageRef> {
    page.trim().parse().map_err(|_| LensError::BadInput(format!("`{page}` is not a page (DOC#PAGE, e.g. 3M_2018_10K#60)")))
}

fn page_key(page: &str) -> Result<String> {
    Ok(page_ref(page)?.to_string())
}

/// Record an annotator's grade of a page (`None` clears it: an undo back to ungraded).
pub fn grade(r: &dyn LabelStore, set: &str, qid: &str, page: &str, annotator: &str, grade: Option<u8>) -> Result<Question> {
    if grade.is_some_and(|g| g > 2) {
        return Err(LensError::BadInput("a grade is 0 (not relevant), 1 (holds part of the answer) or 2 (holds all of it)".into()));
    }
    let annotator = annotator_name(annotator)?;
    let page = page_key(page)?;
    r.apply_label_ops(set.trim(), false, &[LabelOp::Grade { qid: qid.to_string(), page, annotator, grade }])?;
    question(r, set, qid)
}

/// Save an annotator's reference answer and the question's types.
pub fn save_answer(r: &dyn LabelStore, set: &str, qid: &str, annotator: &str, a: &SaveAnswer) -> Result<Question> {
    let annotator = annotator_name(annotator)?;
    let mut q = question(r, set, qid)?;
    let f = &mut q.fields;
    f.insert("answer".into(), Value::String(a.answer.trim().to_string()));
    if !a.answerable || f.contains_key("answerable") {
        f.insert("answerable".into(), Value::Bool(a.answerable));
    }
    if let Some(v) = &a.query_types {
        set_list(f, "query_types", v);
    }
    if let Some(v) = &a.content_type {
        set_list(f, "content_type", v);
    }
    let ops = [
        LabelOp::SetFields { qid: qid.to_string(), fields: Value::Object(q.fields.clone()).to_string() },
        LabelOp::Answer { qid: qid.to_string(), annotator, answer: a.answer.trim().to_string(), answerable: a.answerable },
    ];
    r.apply_label_ops(set.trim(), false, &ops)?;
    question(r, set, qid)
}

/// A list field: written when it says something, or when it replaces a non-empty one (an empty
/// list does not turn an imported `null` into `[]`).
fn set_list(f: &mut Map<String, Value>, key: &str, v: &[String]) {
    let had = !list_of(f.get(key)).is_empty();
    if !v.is_empty() || had {
        f.insert(key.into(), Value::Array(v.iter().map(|s| Value::String(s.clone())).collect()));
    }
}

/// Store an evidence box an annotator drew; returns its id.
pub fn add_box(r: &dyn LabelStore, set: &str, qid: &str, annotator: &str, b: &LabelBox) -> Result<i64> {
    let annotator = annotator_name(annotator)?;
    let page = page_key(&b.page)?;
    if ![b.l, b.b, b.r, b.t].iter().all(|x| x.is_finite()) || b.r <= b.l || b.t <= b.b {
        return Err(LensError::BadInput("an evidence box needs l < r and b < t, in page points".into()));
    }
    let b = LabelBox { id: 0, page, annotator, ..b.clone() };
    let ids = r.apply_label_ops(set.trim(), false, &[LabelOp::AddBox { qid: qid.to_string(), b }])?;
    ids.first().copied().ok_or_else(|| LensError::Database("the store returned no id for the box it added".into()))
}

/// Remove a box; with `by` (a team's caller) only one that `by` drew.
pub fn remove_box(r: &dyn LabelStore, set: &str, qid: &str, box_id: i64, by: Option<&str>) -> Result<()> {
    r.apply_label_ops(set.trim(), false, &[LabelOp::RemoveBox { qid: qid.to_string(), id: box_id, by: by.map(str::to_string) }]).map(|_| ())
}

/// Gold pages whose document is not in the library or whose page number is past its end.
pub fn missing_pages(lib: &Library, gold: impl IntoIterator<Item = String>) -> Result<Vec<String>> {
    let store = lib.store();
    let docs: HashMap<String, u32> = store.documents()?.into_iter().map(|d| (d.id, d.pages)).collect();
    Ok(gold
        .into_iter()
        .filter(|k| match k.parse::<PageRef>() {
            Ok(p) => docs.get(&p.doc_id).is_none_or(|n| p.page == 0 || p.page > *n),
            Err(_) => true,
        })
        .collect())
}

/// Import parsed label lines into a set of `r`, all in one transaction: a question id already in
/// the set is updated (its fields replaced, the annotator's grades set to the file's). Gold pages
/// are checked against the library `lib`.
pub fn import(lib: &Library, r: &dyn LabelStore, set: &str, lines: &[jsonl::LabelLine], annotator: Option<&str>) -> Result<ImportReport> {
    let named = annotator.is_some();
    let annotator = match annotator {
        Some(a) => annotator_name(a)?,
        None => IMPORTED.to_string(),
    };
    let set = valid_name("set name", set)?;
    // what the set holds now: this annotator's grades of each question
    let mut held: HashMap<String, Vec<GradeEntry>> = r
        .label_questions(&set, None)?
        .unwrap_or_default()
        .into_iter()
        .map(|q| (q.qid, q.grades.into_iter().filter(|g| g.annotator == annotator).collect()))
        .collect();
    let (mut added, mut updated, mut grades) = (0, 0, 0);
    let mut missing = Vec::new();
    let mut ops = Vec::new();
    for l in lines {
        let mut fields = l.fields.clone();
        let labeler = fields.remove("labeler");
        let origin = labeler.as_ref().and_then(|x| x.get("source")).filter(|s| !s.is_null()).map(|s| s.to_string());
        let mine = match held.get(&l.id) {
            Some(m) => {
                updated += 1;
                m.clone()
            }
            None => {
                added += 1;
                Vec::new()
            }
        };
        let qid = l.id.clone();
        ops.push(LabelOp::PutQuestion { qid: qid.clone(), fields: Value::Object(fields).to_string(), origin });
        // this annotator's grades become the file's: pages no longer in it are cleared
        for g in &mine {
            if !l.gold.contains_key(&g.page) {
                ops.push(LabelOp::Grade { qid: qid.clone(), page: g.page.clone(), annotator: annotator.clone(), grade: None });
            }
        }
        for (page, grade) in &l.gold {
            if mine.iter().any(|g| &g.page == page && g.grade == *grade) {
                continue;
            }
            ops.push(LabelOp::Grade { qid: qid.clone(), page: page.clone(), annotator: annotator.clone(), grade: Some(*grade) });
            grades += 1;
        }
        // a later line of the same id sees this one's grades
        held.insert(
            qid.clone(),
            l.gold.iter().map(|(p, g)| GradeEntry { page: p.clone(), annotator: annotator.clone(), grade: *g, at: String::new() }).collect(),
        );
        // the file's boxes replace the importer's own (a named importer: each box is theirs,
        // whatever name the file gives it), or, imported by the library's owner, every box with
        // the names in the file
        if let Some(bs) = labeler.as_ref().and_then(|x| x.get("evidence_boxes")).and_then(Value::as_array) {
            ops.push(LabelOp::ClearBoxes { qid: qid.clone(), by: named.then(|| annotator.clone()) });
            for (i, b) in bs.iter().enumerate() {
                let b: LabelBox =
                    serde_json::from_value(b.clone()).map_err(|e| LensError::BadInput(format!("line {}: evidence box {}: {e}", l.line, i + 1)))?;
                let who = if named || b.annotator.is_empty() { annotator.clone() } else { b.annotator.clone() };
                ops.push(LabelOp::AddBox { qid: qid.clone(), b: LabelBox { id: 0, page: page_key(&b.page)?, annotator: who, ..b } });
            }
        }
        missing.extend(missing_pages(lib, l.gold.iter().filter(|(_, g)| **g > 0).map(|(k, _)| k.clone()))?.into_iter().map(|p| format!("{}: {p}", l.id)));
    }
    r.apply_label_ops(&set, true, &ops)?;
    Ok(ImportReport { set, added, updated, grades, missing })
}

/// The set as label lines (the eval format), one JSON object per question.
pub fn export(r: &dyn LabelStore, set: &str) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    for q in questions(r, set)? {
        let mut labeler = Map::new();
        let names: BTreeSet<&str> =
            q.grades.iter().map(|g| g.annotator.as_str()).chain(q.answers.iter().map(|a| a.annotator.as_str())).filter(|a| !a.is_empty()).collect();
        if !names.is_empty() {
            labeler.insert("annotators".into(), json!(names));
        }
        if !q.boxes.is_empty() {
            let bs: Vec<Value> = q.boxes.iter().map(|b| json!({"page": b.page, "l": b.l, "b": b.b, "r": b.r, "t": b.t, "annotator": b.annotator})).collect();
            labeler.insert("evidence_boxes".into(), Value::Array(bs));
        }
        if let Some(o) = &q.origin {
            labeler.insert("source".into(), o.clone());
        }
        out.push(jsonl::line(&q.fields, &q.gold, labeler));
    }
    Ok(out)
}

/// The set as eval labels.
pub fn eval_labels(r: &dyn LabelStore, set: &str) -> Result<Vec<Label>> {
    export(r, set)?.into_iter().map(|v| serde_json::from_value(v).map_err(|e| LensError::BadInput(format!("set `{set}`: {e}")))).collect()
}

/// Two annotators' agreement on one set.
#[derive(Debug, Clone, Serialize)]
pub struct PairAgreement {
    pub a: String,
    pub b: String,
    /// Pages both graded.
    pub pages: usize,
    /// Share of those pages given the same grade.
    pub observed: f64,
    pub kappa: Option<f64>,
    /// Linearly weighted kappa (the 0/1/2 scale is ordered).
    pub weighted_kappa: Option<f64>,
    /// Questions both answered, and the share whose answers agree.
    pub answered: usize,
    pub answers_agree: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Disagreement {
    pub qid: String,
    pub query: String,
    /// The page graded differently; None for an answer disagreement.
    pub page: Option<String>,
    pub grades: BTreeMap<String, u8>,
    pub answers: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Agreement {
    pub set: String,
    pub annotators: Vec<String>,
    pub pairs: Vec<PairAgreement>,
    pub disagreements: Vec<Disagreement>,
}

/// An annotator as shown: imported grades have no name.
pub fn who(a: &str) -> String {
    if a.is_empty() {
        "imported".into()
    } else {
        a.to_string()
    }
}

/// Agreement between every two annotators of a set, and the pages and answers they disagree on.
pub fn agreement(r: &dyn LabelStore, set: &str) -> Result<Agreement> {
    let qs = questions(r, set)?;
    let mut names = BTreeSet::new();
    for q in &qs {
        names.extend(q.grades.iter().map(|g| who(&g.annotator)));
        names.extend(q.answers.iter().map(|a| who(&a.annotator)));
    }
    let names: Vec<String> = names.into_iter().collect();
    let mut pairs = Vec::new();
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            let mut grades = Vec::new();
            let (mut answered, mut agree) = (0, 0);
            for q in &qs {
                let of = |n: &str| -> HashMap<&str, u8> { q.grades.iter().filter(|g| who(&g.annotator) == n).map(|g| (g.page.as_str(), g.grade)).collect() };
                let (ga, gb) = (of(a), of(b));
                for (page, x) in &ga {
                    if let Some(y) = gb.get(page) {
                        grades.push((*x, *y));
                    }
                }
                let ans = |n: &str| q.answers.iter().find(|e| who(&e.annotator) == n);
                if let (Some(x), Some(y)) = (ans(a), ans(b)) {
                    answered += 1;
                    if x.answerable == y.answerable && (!x.answerable || agreement::answers_agree(&x.answer, &y.answer)) {
                        agree += 1;
                    }
                }
            }
            let t = agreement::table(&grades);
            pairs.push(PairAgreement {
                a: a.clone(),
                b: b.clone(),
                pages: grades.len(),
                observed: agreement::observed(&t, agreement::Weights::Plain),
                kappa: agreement::kappa(&t, agreement::Weights::Plain),
                weighted_kappa: agreement::kappa(&t, agreement::Weights::Linear),
                answered,
                answers_agree: (answered > 0).then(|| agree as f64 / answered as f64),
            });
        }
    }
    let mut disagreements = Vec::new();
    for q in &qs {
        for page in &q.disagreements {
            let grades = q.grades.iter().filter(|g| &g.page == page).map(|g| (who(&g.annotator), g.grade)).collect();
            disagreements.push(Disagreement { qid: q.qid.clone(), query: q.query.clone(), page: Some(page.clone()), grades, answers: BTreeMap::new() });
        }
        let ans: Vec<&AnswerEntry> = q.answers.iter().collect();
        let split = ans
            .iter()
            .enumerate()
            .any(|(i, x)| ans[i + 1..].iter().any(|y| x.answerable != y.answerable || (x.answerable && !agreement::answers_agree(&x.answer, &y.answer))));
        if split {
            let answers = ans.iter().map(|e| (who(&e.annotator), if e.answerable { e.answer.clone() } else { "(not answerable)".into() })).collect();
            disagreements.push(Disagreement { qid: q.qid.clone(), query: q.query.clone(), page: None, grades: BTreeMap::new(), answers });
        }
    }
    Ok(Agreement { set: set.trim().to_string(), annotators: names, pairs, disagreements })
}

/// A question whose gold pages are not in the top 3.
#[derive(Debug, Clone, Serialize)]
pub struct Miss {
    pub qid: String,
    pub query: String,
    pub top: Vec<String>,
    pub gold: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Score {
    pub set: String,
    #[serde(flatten)]
    pub summary: Summary,
    pub misses: Vec<Miss>,
}

/// Run the retrieval eval on a set (as `lens eval --labels` would on its export).
/// The set is read from `r`, its pages searched in `lib`.
pub fn score(lib: &Library, r: &dyn LabelStore, set: &str, opts: &EvalOptions) -> Result<Score> {
    let labels = eval_labels(r, set)?;
    let (rows, summary) = eval::run(lib, &labels, opts)?;
    let misses = rows
        .iter()
        .filter(|r| r.m.hit3 == 0.0)
        .map(|r| Miss {
            qid: r.id.clone(),
            query: r.query.clone(),
            top: r.ranked.iter().take(3).cloned().collect(),
            gold: r.gold.iter().filter(|(_, g)| **g > 0.0).map(|(k, _)| k.clone()).collect(),
        })
        .collect();
    Ok(Score { set: set.trim().to_string(), summary, misses })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> Library {
        Library::in_memory().unwrap()
    }

    #[test]
    fn grades_are_events_and_the_export_resolves_them() {
        let lib = store();
        let s = lib.store();
        let q = add_question(s, "Dev set", "What was capex?", None, None).unwrap();
        assert_eq!(q.qid, "dev-set-0001");
        grade(s, "Dev set", &q.qid, "A#3", "ann", Some(2)).unwrap();
        grade(s, "Dev set", &q.qid, "A#4", "ann", Some(1)).unwrap();
        // undo: back to ungraded
        let q2 = grade(s, "Dev set", &q.qid, "A#4", "ann", None).unwrap();
        assert_eq!(q2.gold, BTreeMap::from([("A#3".to_string(), 2)]));
        // a second annotator disagrees: listed, and the latest grade is exported
        let q3 = grade(s, "Dev set", &q.qid, "A#3", "bob", Some(1)).unwrap();
        assert_eq!(q3.disagreements, vec!["A#3".to_string()]);
        assert_eq!(q3.gold["A#3"], 1);
        let a = agreement(s, "Dev set").unwrap();
        assert_eq!(a.annotators, vec!["ann", "bob"]);
        assert_eq!(a.pairs[0].pages, 1);
        assert_eq!(a.disagreements.len(), 1);
        // resolved: the same grade again
        let q4 = grade(s, "Dev set", &q.qid, "A#3", "ann", Some(1)).unwrap();
        assert!(q4.disagreements.is_empty());
        // every event is kept
        let n: i64 = s.conn().query_row("SELECT count(*) FROM label_grades", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 5);
        let e = grade(s, "Dev set", &q.qid, "A#3", "ann", Some(3)).unwrap_err();
        assert_eq!(e.code(), "bad_input");
        assert!(grade(s, "Dev set", &q.qid, "nope", "ann", Some(1)).unwrap_err().to_string().contains("not a page"));
        assert!(grade(s, "Dev set", &q.qid, "A#1", " ", Some(1)).unwrap_err().to_string().contains("annotator name is empty"));
        assert_eq!(grade(s, "Other", &q.qid, "A#1", "ann", Some(1)).unwrap_err().code(), "not_found");
        assert!(add_question(s, "Dev set", "  ", None, None).unwrap_err().to_string().contains("question is empty"));
    }

    #[test]
    fn answers_keep_imported_fields() {
        let lib = store();
        let s = lib.store();
        let lines = jsonl::parse(
            "{\"id\":\"x\",\"query\":\"q\",\"answer\":\"old\",\"query_types\":[\"Information extraction\"],\"content_type\":null,\"gold\":{\"A#1\":1}}",
        )
        .unwrap();
        let r = import(&lib, s, "fb", &lines, None).unwrap();
        assert_eq!((r.added, r.grades, r.missing.len()), (1, 1, 1), "A is not in the library: flagged");
        let q = save_answer(
            s,
            "fb",
            "x",
            "ann",
            &SaveAnswer {
                answer: "new".into(),
                answerable: true,
                query_types: Some(vec!["Information extraction".into(), "numerical".into()]),
                content_type: Some(vec![]),
            },
        )
        .unwrap();
        assert_eq!(q.fields["content_type"], Value::Null, "an empty list leaves null alone");
        assert_eq!(q.fields["answer"], "new");
        assert!(!q.fields.contains_key("answerable"));
        let q = save_answer(s, "fb", "x", "bob", &SaveAnswer { answer: "".into(), answerable: false, ..Default::default() }).unwrap();
        assert_eq!(q.fields["answerable"], false);
        assert_eq!(q.query_types, ["Information extraction", "numerical"]);
        let a = agreement(s, "fb").unwrap();
        let p = a.pairs.iter().find(|p| p.a == "ann" && p.b == "bob").unwrap();
        assert_eq!((p.answered, p.answers_agree), (1, Some(0.0)));
        let out = export(s, "fb").unwrap();
        assert_eq!(out[0]["labeler"]["annotators"], json!(["ann", "bob"]));
    }

    #[test]
    fn concurrent_annotators_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lib");
        {
            let s = Library::open(&path).unwrap();
            add_question(s.store(), "s", "q", Some("q1"), None).unwrap();
        }
        let threads: Vec<_> = ["ann", "bob"]
            .into_iter()
            .map(|who| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let s = Library::open(&path).unwrap();
                    for p in 1..=60 {
                        grade(s.store(), "s", "q1", &format!("D#{p}"), who, Some((p % 3) as u8)).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let s = Library::open(&path).unwrap();
        let q = question(s.store(), "s", "q1").unwrap();
        assert_eq!(q.grades.len(), 120);
        assert!(q.disagreements.is_empty());
    }
}
