//! The audit trail of a library's records (`lens log --export FILE`): who asked what, the answer
//! and the label it was shown with, who said it was right or wrong, and who graded which page
//! of which gold question, with times, as JSON lines an admin can hand over. The EU AI Act's
//! record-keeping asks this of tools used in regulated work; the team's copy is the one in
//! PostgreSQL (`--database`).

use crate::error::Result;
use crate::labels;
use crate::log::Records;
use serde_json::{json, Value};

/// Every logged question (oldest first), then every gold-set grade, one JSON object each.
pub fn trail(r: &dyn Records) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    let mut log = r.question_log(usize::MAX)?;
    log.reverse();
    for e in &log {
        let shown = e.shown.as_ref();
        out.push(json!({
            "kind": "asked",
            "id": e.id,
            "time": e.time,
            "asked_by": e.asked_by,
            "question": e.question,
            "follow_up_of": shown.and_then(|s| s.follow_up.as_ref()).map(|f| f.of),
            "answer": e.answer.answer,
            "not_found": e.answer.not_found,
            "shown_as": shown.map(|s| s.support.name()),
            "why": shown.map(|s| s.support_reasons.clone()).unwrap_or_default(),
            "answered_by": e.answer.answerer.name(),
            "citations": e.answer.citations.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            "quote": e.answer.quote,
            "cancelled": e.cancelled,
            "feedback": e.feedbacks.iter().map(|f| json!({ "user": f.user, "value": f.value, "note": f.note, "at": f.at })).collect::<Vec<_>>(),
        }));
    }
    for set in labels::sets(r)? {
        for q in labels::questions(r, &set.name)? {
            for g in &q.grades {
                out.push(json!({
                    "kind": "graded",
                    "set": set.name,
                    "qid": q.qid,
                    "page": g.page,
                    "annotator": g.annotator,
                    "grade": g.grade,
                    "time": g.at,
                }));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::{Answer, AnswererKind};
    use crate::log::LogEntry;
    use crate::store::Store;

    #[test]
    fn the_trail_names_who_asked_what_was_shown_who_judged_and_who_graded() {
        let s = Store::open_in_memory().unwrap();
        let mut a = Answer::not_found(AnswererKind::Extractive, 1.0);
        a.answer = "$1,577 million".into();
        a.not_found = false;
        let e = LogEntry {
            id: 0,
            time: String::new(),
            question: "What was 3M's FY2018 capex?".into(),
            scope: vec![],
            pages: vec![],
            answer: a,
            retrieve_ms: 1.0,
            retriever: Default::default(),
            feedback: None,
            feedback_note: None,
            cancelled: false,
            shown: None,
            asked_by: Some("rob".into()),
            feedback_by: None,
            feedbacks: vec![],
        };
        let id = Records::log_question(&s, &e).unwrap();
        Records::set_feedback(&s, id, -1, Some("wrong year"), Some("ana")).unwrap();
        labels::add_question(&s, "gold", "What was capex?", Some("q1"), None).unwrap();
        labels::grade(&s, "gold", "q1", "3M_2018_10K#60", "bea", Some(2)).unwrap();
        let t = trail(&s).unwrap();
        assert_eq!(t.len(), 2, "{t:?}");
        assert_eq!((t[0]["kind"].as_str(), t[0]["asked_by"].as_str(), t[0]["answer"].as_str()), (Some("asked"), Some("rob"), Some("$1,577 million")));
        assert_eq!(t[0]["feedback"][0]["user"], "ana");
        assert_eq!((t[1]["kind"].as_str(), t[1]["annotator"].as_str(), t[1]["grade"].as_u64()), (Some("graded"), Some("bea"), Some(2)));
    }
}
