//! The labeler's file round trip on the corpus's own label files, and an import that fails
//! part-way storing nothing.
mod common;

use lens_core::labels::{self, jsonl};
use lens_core::Library;
use serde_json::Value;

#[test]
fn import_then_export_round_trips_every_field() {
    for set in ["financebench", "mmlongbench_doc", "erc_round2"] {
        let text = std::fs::read_to_string(common::corpus().join(set).join("labels.jsonl")).unwrap();
        let s = Library::in_memory().unwrap();
        let lines = jsonl::parse(&text).unwrap();
        let r = labels::import(&s, s.store(), set, &lines, None).unwrap();
        assert_eq!(r.added, lines.len());
        // nothing is in this library: every gold page is flagged, none dropped
        let gold_pages: usize = lines.iter().map(|l| l.gold.values().filter(|g| **g > 0).count()).sum();
        assert_eq!(r.missing.len(), gold_pages, "{set}");
        let want: Vec<Value> = text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect();
        let got = labels::export(s.store(), set).unwrap();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            // serde_json's Value compares objects as maps: key order aside, the same object
            assert_eq!(g, w, "{set}: {}", w["id"]);
        }
        // importing the same file again changes nothing
        let again = labels::import(&s, s.store(), set, &lines, None).unwrap();
        assert_eq!((again.added, again.updated, again.grades), (0, lines.len(), 0));
        assert_eq!(labels::export(s.store(), set).unwrap(), got);
    }
}

#[test]
fn a_malformed_line_imports_nothing() {
    let good = std::fs::read_to_string(common::corpus().join("financebench/labels.jsonl")).unwrap();
    let mut text: Vec<&str> = good.lines().take(5).collect();
    text.push("{\"id\": \"broken\", \"query\": ");
    let e = jsonl::parse(&text.join("\n")).unwrap_err();
    assert!(e.to_string().starts_with("line 6: not JSON"), "{e}");
    // a line that parses but fails while storing (a bad evidence box) rolls the whole file back
    let s = Library::in_memory().unwrap();
    let bad =
        format!("{}\n{{\"id\":\"b\",\"query\":\"q\",\"gold\":{{}},\"labeler\":{{\"evidence_boxes\":[{{\"page\":\"X#1\"}}]}}}}", good.lines().next().unwrap());
    let lines = jsonl::parse(&bad).unwrap();
    let e = labels::import(&s, s.store(), "fb", &lines, Some("ann")).unwrap_err();
    assert!(e.to_string().contains("line 2: evidence box 1"), "{e}");
    let n: i64 = s.store().conn().query_row("SELECT count(*) FROM label_questions", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 0);
}
