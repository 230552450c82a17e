//! Answer scoring on labelled questions, given the pages a retrieval run ranked: yes/no
//! accuracy, number recall across unit scales, token F1, citation precision, evidence shown,
//! evidence precision against the annotators' evidence text, refusals, latency.

use crate::answer::{Answer, Answerer, AnswererKind};
use crate::ask::{self, page_inputs, Retrieved};
use crate::error::Result;
use crate::eval::{percentile, Label, Row};
use crate::evidence::{normalized_string, numbers, same_number, FoundBy};
use crate::library::Library;
use crate::pageref::PageRef;
use crate::retrieve::SearchRequest;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct AnswerRow {
    pub id: String,
    pub query: String,
    /// The label's first query type ("metrics-generated", ...), for breakdowns.
    pub query_type: String,
    pub reference: String,
    #[serde(flatten)]
    pub answer: Answer,
    pub yes_no: Option<bool>,
    /// For a yes/no reference: does the answer's word rest on a cited gold page or on worked
    /// figures? (A yes/no answer counts as right only then.)
    pub yes_no_grounded: Option<bool>,
    pub number_recall: Option<f64>,
    pub token_f1: f64,
    pub citation_precision: Option<f64>,
    pub evidence_precision: Option<f64>,
    /// A computed result: is it the reference's figure (within 1%, or the rounding asked)?
    pub calc_correct: Option<bool>,
    /// See [`AnswerSummary::strong_right`].
    pub right: bool,
    /// The question as read ([`crate::question::Question::reading`]).
    pub reading: String,
    /// Its operation (value, change, compare, rank, judgement, ratio, narrative).
    pub shape: String,
    /// Is a gold page among the pages read?
    pub gold_read: bool,
    /// The verifier's checks that kept an answer from being shown as supported (the answer
    /// would have been strong without them): their names.
    pub demoted_by: Vec<String>,
    pub seconds: f64,
    /// Model answerers: prompt tokens per second (prefill) and new tokens per second.
    pub prefill_tps: Option<f64>,
    pub decode_tps: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AnswerSummary {
    pub n: usize,
    pub answerer: AnswererKind,
    pub yes_no: Option<f64>,
    pub yes_no_n: usize,
    pub number_recall: Option<f64>,
    pub number_recall_n: usize,
    pub token_f1: Option<f64>,
    pub citation_precision: Option<f64>,
    pub evidence_shown: Option<f64>,
    pub evidence_precision: Option<f64>,
    pub evidence_precision_n: usize,
    pub not_found_rate: Option<f64>,
    /// Unanswerable questions (empty gold) answered "Not found".
    pub refusal_rate: Option<f64>,
    pub refusal_n: usize,
    pub p50_s: f64,
    pub p95_s: f64,
    /// Model answerers: median prompt and decode tokens per second, median seconds to the
    /// first token, and the process's peak resident memory.
    pub prefill_tps: Option<f64>,
    pub decode_tps: Option<f64>,
    pub first_token_p50_s: Option<f64>,
    pub peak_rss_mb: Option<f64>,
    /// Answers by support level, and the share of each that is right (`right`: the computed
    /// result matches, or yes/no matches, or every reference figure is in the answer, or, for
    /// a reference without figures, token F1 >= 0.5).
    pub strong_n: usize,
    pub strong_right: Option<f64>,
    pub weak_n: usize,
    pub weak_right: Option<f64>,
    /// Unanswerable questions given a strong-support answer (should be 0).
    pub unanswerable_strong: usize,
    /// Share of questions answered right ([`AnswerRow::right`]).
    pub right: Option<f64>,
    /// Answers shown as supported (strong) that are not right: the green wrong answers.
    pub confident_wrong: usize,
    /// Questions answered with a computed result, and how many of those match the reference.
    pub calc_answered: usize,
    pub calc_correct: usize,
    /// Per query type: (questions, number recall over those with numbers, computed, correct).
    pub by_query_type: std::collections::BTreeMap<String, TypeScores>,
    /// Per support level (strong, weak, none): answers, the share right, and its 90% Wilson
    /// interval.
    pub reliability: Vec<Reliability>,
    /// Per check: the answers it alone kept from green, and how many of those were right (its
    /// cost).
    pub check_costs: std::collections::BTreeMap<String, (usize, usize)>,
    /// Per question shape (the operation read): questions, how often a gold page was among the
    /// pages read, and the share right.
    pub by_shape: std::collections::BTreeMap<String, ShapeScores>,
    /// Per rule of the rule book (and verifier check) that gave a reason: the answers it fired
    /// on, and how many of those were right and wrong by the reference. A green wrong answer
    /// names no rule (none fired): see `confident_wrong`.
    pub by_rule: std::collections::BTreeMap<String, RuleScores>,
    /// Risk against coverage: the answers kept at each strictness of the label, from green
    /// alone (no rule fired) to every answer given, and the share of them right.
    pub risk_coverage: Vec<RiskPoint>,
}

/// One strictness of the label: the answers with at most `max_reasons` reasons against them
/// (0: green only; "Not found" never counts as an answer).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RiskPoint {
    pub max_reasons: usize,
    /// Answers kept.
    pub answered: usize,
    /// Their share of the questions.
    pub coverage: f64,
    /// How many of them are right, and the share.
    pub right: usize,
    pub precision: Option<f64>,
}

/// The risk-coverage points of scored rows: one per number of reasons seen, the strictest first,
/// the last keeping every answer given.
pub fn risk_coverage(rows: &[AnswerRow]) -> Vec<RiskPoint> {
    let answered: Vec<&AnswerRow> = rows.iter().filter(|r| !r.answer.not_found && r.answer.support != crate::support::Support::None).collect();
    let most = answered.iter().map(|r| r.answer.support_reasons.len()).max().unwrap_or(0);
    (0..=most)
        .map(|t| {
            let kept: Vec<&&AnswerRow> = answered.iter().filter(|r| r.answer.support_reasons.len() <= t).collect();
            let right = kept.iter().filter(|r| r.right).count();
            RiskPoint {
                max_reasons: t,
                answered: kept.len(),
                coverage: if rows.is_empty() { 0.0 } else { kept.len() as f64 / rows.len() as f64 },
                right,
                precision: (!kept.is_empty()).then(|| right as f64 / kept.len() as f64),
            }
        })
        .collect()
}

/// How a rule did on a set of questions.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct RuleScores {
    pub fires: usize,
    pub right: usize,
    pub wrong: usize,
}

/// Per rule id in the rows' answers: fires, and of those right and wrong.
pub fn by_rule(rows: &[AnswerRow]) -> std::collections::BTreeMap<String, RuleScores> {
    let mut m: std::collections::BTreeMap<String, RuleScores> = Default::default();
    for r in rows {
        let mut seen: Vec<&String> = Vec::new();
        for id in &r.answer.support_rules {
            if seen.contains(&id) {
                continue;
            }
            seen.push(id);
            let e = m.entry(id.clone()).or_default();
            e.fires += 1;
            if r.right {
                e.right += 1;
            } else {
                e.wrong += 1;
            }
        }
    }
    m
}

/// The checks that alone made an answer weak: every reason it shows is a failed check's.
pub fn demoted_by(checks: &[crate::figures::rules::Check], reasons: &[String], support: crate::support::Support) -> Vec<String> {
    let failed: Vec<&crate::figures::rules::Check> = checks.iter().filter(|c| c.failed()).collect();
    if support != crate::support::Support::Weak || failed.is_empty() || !reasons.iter().all(|r| failed.iter().any(|c| c.detail == *r)) {
        return Vec::new();
    }
    failed.iter().map(|c| c.name.clone()).collect()
}

/// One support level's answers and how often they are right.
#[derive(Debug, Clone, Serialize)]
pub struct Reliability {
    pub support: crate::support::Support,
    pub n: usize,
    pub right: usize,
    pub share: Option<f64>,
    /// The 90% Wilson score interval of the share right.
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// The Wilson score interval of `k` successes in `n` at z (1.645 for 90%).
pub fn wilson(k: usize, n: usize, z: f64) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let d = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / d;
    let half = z * ((p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt()) / d;
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct ShapeScores {
    pub n: usize,
    pub gold_read: Option<f64>,
    pub right: Option<f64>,
    pub strong_n: usize,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct TypeScores {
    pub n: usize,
    pub right: Option<f64>,
    pub strong_n: usize,
    pub strong_right: Option<f64>,
    pub number_recall: Option<f64>,
    pub number_recall_n: usize,
    pub token_f1: Option<f64>,
    pub calc_answered: usize,
    pub calc_correct: usize,
}

/// Is a computed result the reference's figure? Within 1% relative, or within half a unit of the
/// reference's last printed decimal (a rounded reference).
pub fn calc_correct(result: &str, reference: &str) -> bool {
    let Some((got, ..)) = numbers(result).into_iter().next() else { return false };
    numbers(reference).into_iter().filter(|(n, ..)| !n.is_year).any(|(want, s, e)| {
        let printed = &reference[s..e];
        let places = printed.split_once('.').map_or(0, |(_, f)| f.trim_end_matches('%').len() as i32);
        same_number(got.value, want.value, 0.01) || (got.value.abs() - want.value.abs()).abs() <= 0.5 * 10f64.powi(-places) + 1e-9
    })
}

fn answer_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        o => o.to_string(),
    }
}

/// SQuAD-style token F1 on lowercase alphanumeric tokens.
pub fn token_f1(pred: &str, reference: &str) -> f64 {
    let toks = |s: &str| crate::text::plain_words(s);
    let (p, r) = (toks(pred), toks(reference));
    if p.is_empty() || r.is_empty() {
        return if p == r { 1.0 } else { 0.0 };
    }
    let mut counts: HashMap<&str, i32> = HashMap::new();
    for t in &r {
        *counts.entry(t).or_default() += 1;
    }
    let mut common = 0;
    for t in &p {
        if let Some(c) = counts.get_mut(t.as_str()) {
            if *c > 0 {
                *c -= 1;
                common += 1;
            }
        }
    }
    if common == 0 {
        return 0.0;
    }
    let prec = common as f64 / p.len() as f64;
    let rec = common as f64 / r.len() as f64;
    2.0 * prec * rec / (prec + rec)
}

/// Share of the reference's numbers (years excluded, unless the reference is nothing but a year:
/// "Since what year ...?" "1954") found in the prediction within 1%, in any unit scale; None
/// when the reference has no numbers.
pub fn number_recall(pred: &str, reference: &str) -> Option<f64> {
    let only_numbers = !reference.chars().any(char::is_alphabetic);
    let want: Vec<(f64, bool)> = numbers(reference).into_iter().filter(|(n, _, _)| !n.is_year || only_numbers).map(|(n, _, _)| (n.value, n.is_year)).collect();
    if want.is_empty() {
        return None;
    }
    let have: Vec<f64> = numbers(pred).into_iter().map(|(n, _, _)| n.value).collect();
    // a year is the same year or not (1960 is within 1% of 1954)
    let found = want.iter().filter(|(w, year)| have.iter().any(|h| if *year { h == w } else { same_number(*w, *h, 0.01) })).count();
    Some(found as f64 / want.len() as f64)
}

/// Yes/no reference ("True"/"False" read as yes/no)? Then did the prediction start with the
/// same word?
pub fn yes_no(pred: &str, reference: &str) -> Option<bool> {
    let first = |s: &str| {
        let w = crate::text::plain_words(s).into_iter().next().unwrap_or_default();
        match w.as_str() {
            "true" => "yes".to_string(),
            "false" => "no".to_string(),
            _ => w,
        }
    };
    let r = first(reference);
    if r != "yes" && r != "no" {
        return None;
    }
    Some(first(pred) == r)
}

/// The company a labelled question is about: its `company` field (financebench), else its
/// document's (the `doc` field, or the first gold page's) name before the first `_`
/// ("3M_2018_10K" -> "3m"), lowercased. A document with no `_` is its own company.
pub fn company_of(l: &Label) -> String {
    if let Some(c) = l.extra.get("company").and_then(|v| v.as_str()).filter(|c| !c.trim().is_empty()) {
        return c.trim().to_lowercase();
    }
    let doc = l.extra.get("doc").and_then(|v| v.as_str()).map(str::to_string).or_else(|| l.gold_pages().first().map(|(r, _)| r.doc_id.clone()));
    let doc = doc.unwrap_or_else(|| l.id.clone());
    doc.split('_').next().unwrap_or(&doc).to_lowercase()
}

/// FNV-1a: the same on every machine and run.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// Which half ('a' or 'b') each company of a label set falls in: no company (and so no
/// filing) is in both. Companies are taken in the order of a stable hash of their name, each
/// to the half with fewer questions so far, so the halves are of about the same size. Tune
/// rules on half a; report half b (and other sets) untouched.
pub fn halves(labels: &[Label]) -> HashMap<String, char> {
    let mut count: HashMap<String, usize> = HashMap::new();
    for l in labels {
        *count.entry(company_of(l)).or_default() += 1;
    }
    let mut companies: Vec<(&String, &usize)> = count.iter().collect();
    companies.sort_by_key(|(c, _)| (fnv(c), c.to_string()));
    let (mut a, mut b) = (0, 0);
    let mut out = HashMap::new();
    for (c, n) in companies {
        let half = if a <= b { 'a' } else { 'b' };
        if half == 'a' {
            a += n;
        } else {
            b += n;
        }
        out.insert(c.clone(), half);
    }
    out
}

/// The questions of one half ([`halves`]).
pub fn half(labels: Vec<Label>, which: char) -> Vec<Label> {
    let h = halves(&labels);
    labels.into_iter().filter(|l| h.get(&company_of(l)) == Some(&which)).collect()
}

pub struct AnswerEvalOptions {
    pub k: usize,
    /// Only the first N questions (a quick check of a slow answerer).
    pub limit: Option<usize>,
    /// Answer off-topic questions "Not found" as the app does ([`crate::ask::refuse_off_topic`]);
    /// off to measure what the rule changes.
    pub refuse_off_topic: bool,
}

/// The process's peak resident memory (Linux: VmHWM), in MB.
pub fn peak_rss_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    Some(percentile(&v, 50.0))
}

/// Answer every labelled question (or the first `limit`) from the run's top-k pages with
/// `answerer`; `on_row` sees each scored row as it is done.
pub fn run(
    lib: &Library,
    labels: &[Label],
    run_rows: &[Row],
    opts: &AnswerEvalOptions,
    answerer: &dyn Answerer,
    on_row: &mut dyn FnMut(&AnswerRow),
) -> Result<(Vec<AnswerRow>, AnswerSummary)> {
    let by_id: HashMap<&str, &Row> = run_rows.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut unanswerable_strong = 0;
    let mut rows = Vec::new();
    let mut refusals = Vec::new();
    for l in labels {
        if opts.limit.is_some_and(|n| rows.len() + refusals.len() >= n) {
            break;
        }
        let gold = l.gold_pages();
        let t0 = Instant::now();
        // what the question names (the app's filter), and the pages the app would read
        let read = lib.read_question(&l.query);
        let mut req = SearchRequest::new(read.expanded.clone());
        req.k = opts.k;
        let searched = lib.search(&req)?;
        let filter = searched.filter.clone();
        let read = read.with_companies(filter.as_ref().map(|f| f.companies.clone()).unwrap_or_default());
        let ids: Vec<PageRef> = match by_id.get(l.id.as_str()) {
            Some(r) => r.ranked.iter().take(opts.k).filter_map(|k| k.parse().ok()).collect(),
            // unanswerable: retrieve as the app would, to test refusal
            None if gold.is_empty() => searched.hits.iter().map(|h| h.page_ref()).collect(),
            None => continue,
        };
        let mut ids: Vec<PageRef> = ids.into_iter().filter(|r| lib.check_page(&r.doc_id, r.page).is_ok()).collect();
        // the ask's phases 1 and 2 on the run's pages: the page a question of a known shape is
        // answered from read first, as the app does; the calculator, else the answerer
        let mut pages = page_inputs(lib, &ids)?;
        if !ids.is_empty() {
            lib.read_first(&read, &req, &mut ids, &mut pages, opts.k)?;
        }
        let calculation = if ids.is_empty() { None } else { crate::calc::work(lib, &read, &ids)? };
        let mut r = Retrieved {
            question: l.query.clone(),
            read: read.clone(),
            scope: Vec::new(),
            pages,
            filter: filter.clone(),
            notes: Vec::new(),
            retriever: Default::default(),
            retrieve_ms: 0.0,
            calculation,
            asked_by: None,
            follow_up: None,
        };
        // and phase 3's judgement, as the app makes it
        let mut a = ask::answer_pages(answerer, &r, &mut |_| true)?;
        let boxes = ask::settle(lib, &mut r, &mut a, opts.refuse_off_topic)?;
        let seconds = t0.elapsed().as_secs_f64();
        if gold.is_empty() {
            refusals.push(a.not_found);
            unanswerable_strong += usize::from(a.support == crate::support::Support::Strong);
            continue;
        }
        let reference = answer_text(&l.answer);
        let gold_set: HashSet<&PageRef> = gold.iter().map(|(r, _)| r).collect();
        let citations = &a.citations;
        let citation_precision =
            if citations.is_empty() { None } else { Some(citations.iter().filter(|c| gold_set.contains(c)).count() as f64 / citations.len() as f64) };
        // annotators' evidence text per gold page (financebench)
        let evidence_text: HashMap<PageRef, String> = l
            .extra
            .get("evidence")
            .and_then(|v| v.as_array())
            .map(|arr| {
                let mut m: HashMap<PageRef, String> = HashMap::new();
                for e in arr {
                    if let (Some(d), Some(p), Some(t)) = (e["doc"].as_str(), e["page"].as_u64(), e["text"].as_str()) {
                        m.entry(PageRef::new(d, p as u32)).or_default().push_str(&normalized_string(t));
                    }
                }
                m
            })
            .unwrap_or_default();
        // the share of drawn boxes that lie in the annotators' evidence on a gold page
        let evidence_precision = if evidence_text.is_empty() || boxes.is_empty() {
            None
        } else {
            let inside = boxes
                .iter()
                .filter(|b| {
                    let page = PageRef::new(b.doc_id.clone(), b.page);
                    gold_set.contains(&page) && evidence_text.get(&page).is_some_and(|t| t.contains(&normalized_string(&b.rect.text)))
                })
                .count();
            Some(inside as f64 / boxes.len() as f64)
        };
        let calc_correct = a.calculation.as_ref().and_then(|c| c.result.as_deref()).map(|res| calc_correct(res, &reference));
        let demoted = demoted_by(&a.checks, &a.support_reasons, a.support);
        rows.push(AnswerRow {
            id: l.id.clone(),
            query: l.query.clone(),
            calc_correct,
            query_type: l.types().into_iter().next().unwrap_or_else(|| "none".into()),
            yes_no: yes_no(&a.answer, &reference),
            yes_no_grounded: None,
            number_recall: number_recall(&a.answer, &reference),
            token_f1: token_f1(&a.answer, &reference),
            reference,
            answer: a,
            citation_precision,
            evidence_precision,
            right: false,
            reading: read.reading(),
            shape: read.operation.name().to_string(),
            gold_read: ids.iter().any(|r| gold_set.contains(r)),
            demoted_by: demoted,
            seconds,
            prefill_tps: None,
            decode_tps: None,
        });
        let row = rows.last_mut().expect("just pushed");
        // a yes/no reference is right only with the same yes or no, and only when that word
        // rests on something: a cited gold page, or worked figures that decide it (a bare "Yes"
        // over an unrelated row is a coin flip, and the references lean yes)
        let decided = row.answer.citations.iter().any(|c| gold_set.contains(c))
            || row.answer.calculation.as_ref().is_some_and(|c| c.verdict.is_some() && c.result.is_some());
        row.yes_no_grounded = row.yes_no.map(|_| decided);
        row.right = match row.yes_no {
            Some(same) => same && decided,
            None => row.calc_correct == Some(true) || row.number_recall.map_or(row.token_f1 >= 0.5, |r| r >= 1.0),
        };
        if let Some(m) = &row.answer.model {
            row.prefill_tps = Some(m.prefill_tps);
            row.decode_tps = Some(m.decode_tps);
        }
        on_row(row);
    }
    let mean_opt = |v: Vec<f64>| if v.is_empty() { None } else { Some(v.iter().sum::<f64>() / v.len() as f64) };
    let yn: Vec<f64> = rows.iter().filter_map(|r| r.yes_no.map(|b| b as u8 as f64)).collect();
    let nr: Vec<f64> = rows.iter().filter_map(|r| r.number_recall).collect();
    let ep: Vec<f64> = rows.iter().filter_map(|r| r.evidence_precision).collect();
    let answered: Vec<&AnswerRow> = rows.iter().filter(|r| !r.answer.not_found).collect();
    let mut secs: Vec<f64> = rows.iter().map(|r| r.seconds).collect();
    secs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let summary = AnswerSummary {
        n: rows.len(),
        answerer: answerer.kind(),
        strong_n: rows.iter().filter(|r| r.answer.support == crate::support::Support::Strong).count(),
        strong_right: mean_opt(rows.iter().filter(|r| r.answer.support == crate::support::Support::Strong).map(|r| r.right as u8 as f64).collect()),
        weak_n: rows.iter().filter(|r| r.answer.support == crate::support::Support::Weak).count(),
        weak_right: mean_opt(rows.iter().filter(|r| r.answer.support == crate::support::Support::Weak).map(|r| r.right as u8 as f64).collect()),
        unanswerable_strong,
        right: mean_opt(rows.iter().map(|r| r.right as u8 as f64).collect()),
        confident_wrong: rows.iter().filter(|r| r.answer.support == crate::support::Support::Strong && !r.right).count(),
        prefill_tps: median(rows.iter().filter_map(|r| r.prefill_tps).collect()),
        decode_tps: median(rows.iter().filter_map(|r| r.decode_tps).collect()),
        first_token_p50_s: median(rows.iter().filter_map(|r| r.answer.model.as_ref().map(|m| m.first_token_s)).collect()),
        peak_rss_mb: peak_rss_mb(),
        yes_no_n: yn.len(),
        yes_no: mean_opt(yn),
        number_recall_n: nr.len(),
        number_recall: mean_opt(nr),
        token_f1: mean_opt(rows.iter().map(|r| r.token_f1).collect()),
        citation_precision: mean_opt(rows.iter().filter_map(|r| r.citation_precision).collect()),
        evidence_shown: mean_opt(answered.iter().map(|r| (r.answer.found_by != FoundBy::None) as u8 as f64).collect()),
        evidence_precision_n: ep.len(),
        evidence_precision: mean_opt(ep),
        not_found_rate: mean_opt(rows.iter().map(|r| r.answer.not_found as u8 as f64).collect()),
        refusal_n: refusals.len(),
        refusal_rate: mean_opt(refusals.iter().map(|b| *b as u8 as f64).collect()),
        p50_s: percentile(&secs, 50.0),
        p95_s: percentile(&secs, 95.0),
        by_query_type: {
            let mut m: std::collections::BTreeMap<String, TypeScores> = Default::default();
            for t in rows.iter().map(|r| r.query_type.clone()).collect::<std::collections::BTreeSet<_>>() {
                let of: Vec<&AnswerRow> = rows.iter().filter(|r| r.query_type == t).collect();
                let nr: Vec<f64> = of.iter().filter_map(|r| r.number_recall).collect();
                m.insert(
                    t,
                    TypeScores {
                        n: of.len(),
                        right: mean_opt(of.iter().map(|r| r.right as u8 as f64).collect()),
                        strong_n: of.iter().filter(|r| r.answer.support == crate::support::Support::Strong).count(),
                        strong_right: mean_opt(
                            of.iter().filter(|r| r.answer.support == crate::support::Support::Strong).map(|r| r.right as u8 as f64).collect(),
                        ),
                        number_recall_n: nr.len(),
                        number_recall: mean_opt(nr),
                        token_f1: mean_opt(of.iter().map(|r| r.token_f1).collect()),
                        calc_answered: of.iter().filter(|r| r.calc_correct.is_some()).count(),
                        calc_correct: of.iter().filter(|r| r.calc_correct == Some(true)).count(),
                    },
                );
            }
            m
        },
        reliability: [crate::support::Support::Strong, crate::support::Support::Weak, crate::support::Support::None]
            .into_iter()
            .map(|level| {
                let of: Vec<&AnswerRow> = rows.iter().filter(|r| r.answer.support == level).collect();
                let right = of.iter().filter(|r| r.right).count();
                let ci = wilson(right, of.len(), 1.645);
                Reliability {
                    support: level,
                    n: of.len(),
                    right,
                    share: mean_opt(of.iter().map(|r| r.right as u8 as f64).collect()),
                    low: ci.map(|c| c.0),
                    high: ci.map(|c| c.1),
                }
            })
            .collect(),
        check_costs: {
            let mut m: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
            for r in &rows {
                for n in &r.demoted_by {
                    let e = m.entry(n.clone()).or_default();
                    e.0 += 1;
                    e.1 += usize::from(r.right);
                }
            }
            m
        },
        by_shape: {
            let mut m: std::collections::BTreeMap<String, ShapeScores> = Default::default();
            for r in &rows {
                m.entry(r.shape.clone()).or_default().n += 1;
            }
            for (shape, sc) in m.iter_mut() {
                let of: Vec<&AnswerRow> = rows.iter().filter(|r| r.shape == *shape).collect();
                sc.gold_read = mean_opt(of.iter().map(|r| r.gold_read as u8 as f64).collect());
                sc.right = mean_opt(of.iter().map(|r| r.right as u8 as f64).collect());
                sc.strong_n = of.iter().filter(|r| r.answer.support == crate::support::Support::Strong).count();
            }
            m
        },
        by_rule: by_rule(&rows),
        risk_coverage: risk_coverage(&rows),
        calc_answered: rows.iter().filter(|r| r.calc_correct.is_some()).count(),
        calc_correct: rows.iter().filter(|r| r.calc_correct == Some(true)).count(),
    };
    Ok((rows, summary))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(id: &str, extra: serde_json::Value) -> Label {
        let mut v = serde_json::json!({"id": id, "query": "q"});
        v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn halves_split_by_company_never_by_question() {
        let mut ls = Vec::new();
        for (i, c) in ["3M", "Adobe", "Nike", "PepsiCo", "Corning", "Boeing"].iter().enumerate() {
            for j in 0..=i {
                ls.push(label(&format!("q{i}-{j}"), serde_json::json!({"company": c})));
            }
        }
        // a label with no company field takes its document's name
        ls.push(label("x", serde_json::json!({"gold": {"NIKE_2019_10K#3": 1}})));
        ls.push(label("y", serde_json::json!({"doc": "3M_2022_10K"})));
        assert_eq!(company_of(&ls[ls.len() - 2]), "nike");
        assert_eq!(company_of(&ls[ls.len() - 1]), "3m");
        let h = halves(&ls);
        for l in &ls {
            let other = ls.iter().filter(|m| company_of(m) == company_of(l)).all(|m| h[&company_of(m)] == h[&company_of(l)]);
            assert!(other);
        }
        let a = half(ls.clone(), 'a');
        let b = half(ls.clone(), 'b');
        assert_eq!(a.len() + b.len(), ls.len());
        assert!(a.len().abs_diff(b.len()) <= 6, "about even: {} / {}", a.len(), b.len());
        let ca: HashSet<String> = a.iter().map(company_of).collect();
        assert!(b.iter().all(|l| !ca.contains(&company_of(l))), "no company in both halves");
        // the same split on every run
        assert_eq!(halves(&ls), h);
    }
    fn row(support: crate::support::Support, rules: &[&str], right: bool) -> AnswerRow {
        let mut a = Answer::quoted(AnswererKind::Extractive, "x".into(), "x".into(), PageRef::new("D", 1), 0.0);
        a.support = support;
        a.support_rules = rules.iter().map(|r| r.to_string()).collect();
        a.support_reasons = rules.iter().map(|r| format!("reason of {r}")).collect();
        AnswerRow {
            id: "q".into(),
            query: "q".into(),
            query_type: "t".into(),
            reference: "x".into(),
            answer: a,
            yes_no: None,
            yes_no_grounded: None,
            number_recall: None,
            token_f1: 0.0,
            citation_precision: None,
            evidence_precision: None,
            calc_correct: None,
            right,
            reading: String::new(),
            shape: "value".into(),
            gold_read: true,
            demoted_by: Vec::new(),
            seconds: 0.0,
            prefill_tps: None,
            decode_tps: None,
        }
    }

    #[test]
    fn rules_are_counted_and_risk_follows_coverage() {
        use crate::support::Support;
        let mut nf = row(Support::None, &["not_found"], false);
        nf.answer.not_found = true;
        let rows = vec![
            row(Support::Strong, &[], true),
            row(Support::Strong, &[], false),
            row(Support::Weak, &["line_share"], true),
            row(Support::Weak, &["line_share", "years_absent"], false),
            nf,
        ];
        let m = by_rule(&rows);
        assert_eq!(m["line_share"], RuleScores { fires: 2, right: 1, wrong: 1 });
        assert_eq!(m["not_found"], RuleScores { fires: 1, right: 0, wrong: 1 });
        let rc = risk_coverage(&rows);
        let got: Vec<(usize, usize, usize)> = rc.iter().map(|p| (p.max_reasons, p.answered, p.right)).collect();
        assert_eq!(got, vec![(0, 2, 1), (1, 3, 2), (2, 4, 2)], "\"Not found\" is no answer at any strictness");
        assert_eq!(rc[0].coverage, 0.4);
    }

    #[test]
    fn scoring_by_hand() {
        assert_eq!(token_f1("the cat sat", "the cat"), 2.0 * (2.0 / 3.0) * 1.0 / (2.0 / 3.0 + 1.0));
        assert_eq!(number_recall("Purchases of PP&E (1,577) (1,373)", "$1577.00"), Some(1.0));
        assert_eq!(number_recall("$1.58 billion", "$1577.00 million"), Some(1.0)); // 0.2% apart
        assert_eq!(number_recall("1,600", "$1577.00"), Some(0.0));
        assert_eq!(number_recall("in 2018", "FY2018"), None);
        // a reference that is a year is a figure to find
        assert_eq!(number_recall("involved with child nutrition since about 1954, when I became a teacher", "1954"), Some(1.0));
        assert_eq!(number_recall("since 1960", "1954"), Some(0.0));
        assert_eq!(yes_no("Yes — it did", "Yes, the margin improved"), Some(true));
        assert_eq!(yes_no("Revenue rose", "No."), Some(false));
        assert_eq!(yes_no("x", "1,234"), None);
        assert_eq!(yes_no("Yes — the report names two acquisitions", "True"), Some(true));
        assert_eq!(yes_no("No", "False"), Some(true));
        // 3 of 4 right: the 90% interval by hand (p = 0.75, z = 1.645)
        let (lo, hi) = wilson(3, 4, 1.645).unwrap();
        assert!((lo - 0.3561).abs() < 1e-3 && (hi - 0.9421).abs() < 1e-3, "{lo} {hi}");
        assert_eq!(wilson(0, 0, 1.645), None);
    }
}
