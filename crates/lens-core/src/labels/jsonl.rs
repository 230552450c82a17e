//! The label line format, read and written. One JSON object per line, the eval format:
//! `id, query, answer, query_types, content_type, gold {"<doc>#<page>": grade}` and any other
//! fields, which are kept as they came. The labeler adds, only when it has them, a `labeler`
//! object: `annotators` (who graded), `evidence_boxes` (`{page, l, b, r, t, annotator}` in PDF
//! points, origin bottom left) and `source` (the log entry a question was promoted from).
//!
//! Reading is all or nothing: every line is checked before anything is stored, and an error
//! names its line.

use crate::error::{LensError, Result};
use crate::pageref::PageRef;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One parsed label line.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelLine {
    /// 1-based line number in the file.
    pub line: usize,
    pub id: String,
    /// Every field but `gold`, as it came.
    pub fields: Map<String, Value>,
    /// Page grades, 0, 1 or 2.
    pub gold: BTreeMap<String, u8>,
}

/// Parse a whole label file; the first bad line is an error naming it, and nothing is returned.
pub fn parse(text: &str) -> Result<Vec<LabelLine>> {
    let mut out: Vec<LabelLine> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let bad = |why: String| LensError::BadInput(format!("line {line}: {why}"));
        let v: Value = serde_json::from_str(raw).map_err(|e| bad(format!("not JSON ({e})")))?;
        let Value::Object(mut fields) = v else { return Err(bad("not a JSON object".into())) };
        let id = match fields.get("id") {
            Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return Err(bad("no `id`".into())),
        };
        match fields.get("query") {
            Some(Value::String(s)) if !s.trim().is_empty() => {}
            _ => return Err(bad(format!("question `{id}` has no `query`"))),
        }
        if !seen.insert(id.clone()) {
            return Err(bad(format!("id `{id}` appears twice")));
        }
        let mut gold = BTreeMap::new();
        match fields.remove("gold") {
            None | Some(Value::Null) => {}
            Some(Value::Object(g)) => {
                for (k, v) in g {
                    k.parse::<PageRef>().map_err(|_| bad(format!("gold key `{k}` is not DOC#PAGE")))?;
                    let grade = v
                        .as_f64()
                        .filter(|x| x.fract() == 0.0 && (0.0..=2.0).contains(x))
                        .ok_or_else(|| bad(format!("gold `{k}`: grade {v} is not 0, 1 or 2")))?;
                    gold.insert(k, grade as u8);
                }
            }
            Some(other) => return Err(bad(format!("`gold` is {other}, not an object"))),
        }
        if let Some(l) = fields.get("labeler") {
            if !l.is_object() {
                return Err(bad("`labeler` is not an object".into()));
            }
        }
        out.push(LabelLine { line, id, fields, gold });
    }
    Ok(out)
}

/// The exported line: the stored fields, `gold` from the grades, and `labeler` when there is
/// anything to say in it.
pub fn line(fields: &Map<String, Value>, gold: &BTreeMap<String, u8>, labeler: Map<String, Value>) -> Value {
    let mut o = fields.clone();
    o.remove("labeler");
    o.insert("gold".into(), Value::Object(gold.iter().map(|(k, g)| (k.clone(), Value::from(*g))).collect()));
    if !labeler.is_empty() {
        o.insert("labeler".into(), Value::Object(labeler));
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_keeps_fields_and_reads_grades() {
        let t = "{\"id\":\"a\",\"query\":\"q?\",\"answer\":\"$1\",\"content_type\":null,\"doc\":\"X\",\"gold\":{\"X#3\":1,\"X#4\":2.0}}\n\n{\"id\":7,\"query\":\"r\"}\n";
        let v = parse(t).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].gold.get("X#4"), Some(&2));
        assert_eq!(v[0].fields.get("content_type"), Some(&Value::Null));
        assert!(!v[0].fields.contains_key("gold"));
        assert_eq!((v[1].id.as_str(), v[1].line), ("7", 3));
        // written back: the same object
        let back = line(&v[0].fields, &v[0].gold, Map::new());
        let orig: Value = serde_json::from_str(t.lines().next().unwrap()).unwrap();
        assert_eq!(back["gold"]["X#3"], orig["gold"]["X#3"]);
        assert_eq!(back.as_object().unwrap().len(), orig.as_object().unwrap().len());
    }

    #[test]
    fn bad_lines_are_named() {
        for (t, want) in [
            ("{\"id\":\"a\",\"query\":\"q\"}\nnot json\n", "line 2: not JSON"),
            ("{\"id\":\"a\",\"query\":\"q\"}\n{\"id\":\"a\",\"query\":\"q\"}", "line 2: id `a` appears twice"),
            ("{\"query\":\"q\"}", "line 1: no `id`"),
            ("{\"id\":\"a\"}", "line 1: question `a` has no `query`"),
            ("{\"id\":\"a\",\"query\":\"q\",\"gold\":{\"X#1\":3}}", "grade 3 is not 0, 1 or 2"),
            ("{\"id\":\"a\",\"query\":\"q\",\"gold\":{\"X\":1}}", "gold key `X` is not DOC#PAGE"),
            ("[1]", "line 1: not a JSON object"),
        ] {
            let e = parse(t).unwrap_err().to_string();
            assert!(e.contains(want), "{t}: {e}");
        }
    }
}
