//! The rule book's case tables: `tests/rules/<id>.jsonl`, one file per rule of
//! `lens_core::judge::RULES`, each line a case: a question, the answer and the line it rests on
//! (and the page, the years named, what the library says ...), whether the rule fires on it and,
//! where given, the label the whole judgement gives. Every rule has a file with at least one
//! case where it fires and one where it does not; cases match rule ids, never the reasons' words.
//!
//! A case's fields: `question`, `answer`, `quote` (the line; null or absent: none), `page` (the
//! cited page's text; absent: the quote, else the answer), `doc` ("DOC#page", the page cited),
//! `found_by` (quote, numbers, calculation, none), `years` (named by the filter), `in_scope`,
//! `unnamed_among`, `companies` (named, lower case), `names_library`, `calc_warning` ({rule,
//! words}), `calc_caveat`, `calc_problem`, `operands` (a worked answer's, as `calc::Operand`),
//! `unquoted`, `computed`, `doc_year`, `list_complete`, `not_found`, `uncited`, `support` (the
//! label before a refusal), `lookups` (`larger_elsewhere`: [label, "DOC#page"], `part_year_months`,
//! `later_filing`: [year, later doc, its year], `absent_company`: [name, [companies held]],
//! `row_years`: [years of the quoted row's columns], `flagged_facts`: [[label, value, printed,
//! identity], ...]); then `fires`, `label` (optional) and `why`.

use lens_core::evidence::FoundBy;
use lens_core::judge::{self, Claim, Effect, Lookups};
use lens_core::pageref::PageRef;
use lens_core::question::Question;
use lens_core::support::Support;
use serde_json::Value;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/rules")
}

/// What a case says the library answers.
struct CaseLookups(Value);

impl Lookups for CaseLookups {
    fn larger_elsewhere(&self, _: &PageRef, _: &str) -> Option<(String, PageRef)> {
        let v = self.0.get("larger_elsewhere")?;
        Some((v[0].as_str()?.to_string(), v[1].as_str()?.parse().ok()?))
    }
    fn part_year_months(&self, _: &PageRef, _: &str) -> Option<u8> {
        self.0.get("part_year_months")?.as_u64().map(|m| m as u8)
    }
    fn later_filing(&self, _: &str) -> Option<(i32, String, i32)> {
        let v = self.0.get("later_filing")?;
        Some((v[0].as_i64()? as i32, v[1].as_str()?.to_string(), v[2].as_i64()? as i32))
    }
    fn flagged_facts(&self, _: &PageRef) -> Vec<lens_core::facts::FlaggedFact> {
        let rows = self.0.get("flagged_facts").and_then(Value::as_array).cloned().unwrap_or_default();
        rows.iter()
            .map(|r| {
                let s = |i: usize| r[i].as_str().unwrap_or_default().to_string();
                lens_core::facts::FlaggedFact { label: s(0), value: s(1), printed: s(2), identity: s(3) }
            })
            .collect()
    }
    fn absent_company(&self) -> Option<(String, Vec<String>)> {
        let v = self.0.get("absent_company")?;
        let held = v[1].as_array()?.iter().filter_map(|n| n.as_str().map(str::to_string)).collect();
        Some((v[0].as_str()?.to_string(), held))
    }
    fn row_years(&self, _: &PageRef, _: &str) -> Vec<i32> {
        let years = self.0.get("row_years").and_then(Value::as_array).cloned().unwrap_or_default();
        years.iter().filter_map(|y| y.as_i64().map(|y| y as i32)).collect()
    }
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key).and_then(Value::as_array).map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The rule's verdict on one case: whether it fired, and the label of the whole judgement
/// (for a refusal: none when refused, else the label the case gives).
fn run(rule: &judge::Rule, case: &Value) -> (bool, Support, Vec<String>) {
    let question = Question::parse(text(case, "question").expect("a case has a question"));
    let answer = text(case, "answer").unwrap_or("");
    let quote = text(case, "quote");
    let page = text(case, "page").or(quote).unwrap_or(answer);
    let cited: PageRef = text(case, "doc").unwrap_or("3M_2018_10K#60").parse().expect("doc is DOC#page");
    let years: Vec<i32> =
        case.get("years").and_then(Value::as_array).map(|a| a.iter().filter_map(|y| y.as_i64().map(|y| y as i32)).collect()).unwrap_or_default();
    let unnamed = strings(case, "unnamed_among");
    let companies = strings(case, "companies");
    let lookups = CaseLookups(case.get("lookups").cloned().unwrap_or(Value::Null));
    let warning: Option<lens_core::calc::Warning> = case.get("calc_warning").map(|w| serde_json::from_value(w.clone()).expect("calc_warning is {rule, words}"));
    let operands: Vec<lens_core::calc::Operand> =
        case.get("operands").map(|o| serde_json::from_value(o.clone()).expect("operands are calc::Operand")).unwrap_or_default();
    let mut c = Claim::new(&question, answer, page, &cited);
    c.operands = &operands;
    c.quote = quote;
    c.found_by = match text(case, "found_by").unwrap_or("quote") {
        "quote" => FoundBy::Quote,
        "numbers" => FoundBy::Numbers,
        "calculation" => FoundBy::Calculation,
        "none" => FoundBy::None,
        other => panic!("found_by {other}"),
    };
    c.years = &years;
    c.in_scope = case.get("in_scope").and_then(Value::as_bool);
    c.unnamed_among = &unnamed;
    c.companies_named = &companies;
    c.names_library = case.get("names_library").and_then(Value::as_bool).unwrap_or(true);
    c.calc_warning = warning.as_ref();
    c.calc_caveat = text(case, "calc_caveat");
    c.calc_problem = text(case, "calc_problem");
    c.calc_shape = text(case, "calc_shape");
    c.unquoted = flag(case, "unquoted");
    c.computed = flag(case, "computed") || c.found_by == FoundBy::Calculation;
    c.doc_year = case.get("doc_year").and_then(Value::as_i64).map(|y| y as i32);
    c.list_complete = flag(case, "list_complete");
    c.not_found = flag(case, "not_found");
    if flag(case, "uncited") {
        c.cited = None;
    }
    c.lookups = &lookups;
    if rule.effect == Effect::Refuse {
        c.support = text(case, "support").map(|s| s.parse().expect("a support label")).unwrap_or(Support::Weak);
        let refused = judge::refusal(&c);
        let label = if refused.is_some() { Support::None } else { c.support };
        return (refused.as_ref().is_some_and(|r| r.name == rule.id), label, refused.into_iter().map(|r| r.name).collect());
    }
    let (support, checks) = judge::judge(&c);
    let ids: Vec<String> = checks.into_iter().map(|c| c.name).collect();
    (ids.iter().any(|id| id == rule.id), support, ids)
}

#[test]
fn every_rule_has_its_cases_and_each_case_holds() {
    let mut failures = Vec::new();
    let mut total = 0;
    for rule in judge::RULES {
        let path = dir().join(format!("{}.jsonl", rule.id));
        let body = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (every rule has a case file)", path.display()));
        let cases: Vec<Value> = body.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("a case is JSON")).collect();
        let fires = cases.iter().filter(|c| c["fires"].as_bool() == Some(true)).count();
        assert!(fires >= 1 && cases.len() > fires, "{}: needs a case where it fires and one where it does not ({fires} of {})", rule.id, cases.len());
        for (i, case) in cases.iter().enumerate() {
            total += 1;
            let (fired, label, ids) = run(rule, case);
            let want = case["fires"].as_bool().expect("fires is true or false");
            let label_ok = case.get("label").and_then(Value::as_str).is_none_or(|l| l == label.to_string());
            if fired != want || !label_ok {
                failures.push(format!("{} case {} ({}): fired {fired} (want {want}), label {label}, rules {ids:?}", rule.id, i + 1, case["why"]));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {total} cases failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn no_case_file_names_a_rule_that_is_not_in_the_book() {
    for entry in std::fs::read_dir(dir()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        let id = name.strip_suffix(".jsonl").unwrap_or_else(|| panic!("{name}: case files end in .jsonl"));
        assert!(judge::rule(id).is_some(), "{name} names no rule of the book");
    }
}
