//! Evaluation on human-labelled questions: retrieval metrics (nDCG@5 with graded gains,
//! Recall@5, Hit@3, MRR), breakdowns, latency, per-question rows, and paired bootstrap
//! confidence intervals between runs.

use crate::error::{LensError, Result};
use crate::index::Bm25Params;
use crate::library::Library;
use crate::pageref::PageRef;
use crate::rank::RankParams;
use crate::retrieve::{Fusion, Retriever, SearchRequest};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// One labelled question (extra fields are kept in `extra`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Label {
    pub id: String,
    pub query: String,
    #[serde(default)]
    pub answer: serde_json::Value,
    #[serde(default)]
    pub query_types: serde_json::Value,
    #[serde(default)]
    pub content_type: serde_json::Value,
    #[serde(default)]
    pub gold: BTreeMap<String, f64>,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl Label {
    pub fn types(&self) -> Vec<String> {
        str_list(&self.query_types)
    }
    pub fn content_types(&self) -> Vec<String> {
        let v = str_list(&self.content_type);
        if v.is_empty() {
            vec!["none".into()]
        } else {
            v
        }
    }
    /// Gold pages with their grade (> 0); keys that are not `DOC#PAGE` are skipped.
    pub fn gold_pages(&self) -> Vec<(PageRef, f64)> {
        self.gold.iter().filter(|(_, s)| **s > 0.0).filter_map(|(k, s)| k.parse::<PageRef>().ok().map(|r| (r, *s))).collect()
    }
}

/// A label field that is one string or a list of strings, as a list.
pub(crate) fn str_list(v: &serde_json::Value) -> Vec<String> {
    match v {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(a) => a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect(),
        _ => Vec::new(),
    }
}

pub fn read_labels(path: &Path) -> Result<Vec<Label>> {
    let text = std::fs::read_to_string(path).map_err(|e| LensError::io(path, e))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let l: Label = serde_json::from_str(line).map_err(|e| LensError::BadInput(format!("{}:{}: not a label line: {e}", path.display(), i + 1)))?;
        out.push(l);
    }
    Ok(out)
}

/// Retrieval metrics of one ranked list against graded gold.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct Metrics {
    pub ndcg5: f64,
    pub recall5: f64,
    pub hit3: f64,
    pub mrr: f64,
}

pub fn metrics(ranked: &[String], gold: &HashMap<String, f64>) -> Metrics {
    let gain = |k: &String| gold.get(k).copied().unwrap_or(0.0).max(0.0);
    let dcg: f64 = ranked.iter().take(5).enumerate().map(|(i, k)| gain(k) / ((i + 2) as f64).log2()).sum();
    let mut ideal: Vec<f64> = gold.values().copied().filter(|s| *s > 0.0).collect();
    ideal.sort_by(|a, b| b.partial_cmp(a).unwrap());
    let idcg: f64 = ideal.iter().take(5).enumerate().map(|(i, g)| g / ((i + 2) as f64).log2()).sum();
    let relevant = ideal.len();
    let found5 = ranked.iter().take(5).filter(|k| gain(k) > 0.0).count();
    let first = ranked.iter().position(|k| gain(k) > 0.0);
    Metrics {
        ndcg5: if idcg > 0.0 { dcg / idcg } else { 0.0 },
        recall5: if relevant > 0 { found5 as f64 / relevant as f64 } else { 0.0 },
        hit3: if first.is_some_and(|r| r < 3) { 1.0 } else { 0.0 },
        mrr: first.map(|r| 1.0 / (r + 1) as f64).unwrap_or(0.0),
    }
}

named_enum!(
    /// Which documents a question is searched in: all, those its filter names, or its gold
    /// documents (an upper bound on retrieval).
    pub enum Mode("mode") {
        Global = "global",
        Filter = "filter",
        Oracle = "oracle",
    }
);

/// One question's result, as written to `runs/RUN/retrieval.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    pub id: String,
    pub query: String,
    pub mode: Mode,
    pub ranked: Vec<String>,
    pub gold: BTreeMap<String, f64>,
    #[serde(flatten)]
    pub m: Metrics,
    pub ms: f64,
    pub query_types: Vec<String>,
    pub content_type: Vec<String>,
    #[serde(default)]
    pub filter: Option<Vec<Vec<String>>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub n: usize,
    #[serde(flatten)]
    pub m: Metrics,
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub n: usize,
    pub skipped_no_gold: usize,
    pub missing_gold_docs: usize,
    pub mode: Mode,
    pub ndcg5: f64,
    pub recall5: f64,
    pub hit3: f64,
    pub mrr: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub by_query_type: BTreeMap<String, Group>,
    pub by_content_type: BTreeMap<String, Group>,
}

pub struct EvalOptions {
    pub mode: Mode,
    pub k: usize,
    pub params: Bm25Params,
    pub rank: RankParams,
    pub retriever: Retriever,
    pub fusion: Fusion,
    pub filter: crate::filter::FilterOptions,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            mode: Mode::Filter,
            k: 10,
            params: Bm25Params::default(),
            rank: RankParams::default(),
            retriever: Retriever::default(),
            fusion: Fusion::default(),
            filter: Default::default(),
        }
    }
}

impl EvalOptions {
    /// Set one retrieval knob by name (`lens eval --set NAME=VALUE`), for ablations.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        let f = || value.parse::<f32>().map_err(|_| LensError::BadInput(format!("--set {name}: `{value}` is not a number")));
        match name {
            "heading_boost" => self.params.heading_boost = f()?,
            "expansion_weight" => self.params.expansion_weight = f()?,
            "rank_depth" => self.rank.depth = f()? as usize,
            "drop_company_terms" => self.params.drop_company_terms = f()? != 0.0,
            "statement_weight" => self.rank.statement = f()?,
            "numeric_weight" => self.rank.numeric = f()?,
            "toc_weight" => self.rank.toc = f()?,
            "item_weight" => self.rank.item = f()?,
            "boilerplate_weight" => self.rank.boilerplate = f()?,
            "dense_weight" => self.fusion.dense_weight = f()?,
            "vision_weight" => self.fusion.vision_weight = f()?,
            "quarters" => self.filter.quarters = f()? != 0.0,
            "latest_first" => self.filter.latest_first = f()? != 0.0,
            "tickers" => self.filter.tickers = f()? != 0.0,
            "decompose" => self.filter.decompose = f()? != 0.0,
            "split_years" => self.filter.split_years = f()? != 0.0,
            "rrf_k" => self.fusion.k0 = f()?,
            "topic_weight" => self.params.topic_weight = f()?,
            "fusion_mix" => self.fusion.mix = f()? != 0.0,
            _ => {
                return Err(LensError::BadInput(format!(
                    "unknown knob `{name}` (known: heading_boost, expansion_weight, drop_company_terms, rank_depth, statement_weight, numeric_weight, toc_weight, item_weight, boilerplate_weight, dense_weight, vision_weight, rrf_k, fusion_mix, topic_weight, quarters, latest_first, tickers, decompose, split_years)"
                )))
            }
        }
        Ok(())
    }
}

fn mean(ms: &[Metrics]) -> Metrics {
    let n = ms.len().max(1) as f64;
    // `+ 0.0` turns the -0.0 an empty f64 sum starts from into 0.0
    let avg = |f: fn(&Metrics) -> f64| ms.iter().map(f).sum::<f64>() / n + 0.0;
    Metrics { ndcg5: avg(|m| m.ndcg5), recall5: avg(|m| m.recall5), hit3: avg(|m| m.hit3), mrr: avg(|m| m.mrr) }
}

pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

/// Run retrieval for every labelled question; rows for questions with gold, plus a summary.
pub fn run(lib: &Library, labels: &[Label], opts: &EvalOptions) -> Result<(Vec<Row>, Summary)> {
    let docs: std::collections::HashSet<String> = lib.documents()?.into_iter().map(|d| d.id).collect();
    let mut rows = Vec::new();
    let mut skipped = 0;
    let mut missing = 0;
    for l in labels {
        let gold = l.gold_pages();
        if gold.is_empty() {
            skipped += 1;
            continue;
        }
        let gold_docs: Vec<String> = {
            let mut v: Vec<String> = gold.iter().map(|g| g.0.doc_id.clone()).collect();
            v.sort();
            v.dedup();
            v
        };
        if gold_docs.iter().any(|d| !docs.contains(d)) {
            missing += 1;
        }
        let mut req = SearchRequest::new(l.query.clone());
        req.k = opts.k;
        req.params = opts.params;
        req.rank = opts.rank;
        req.retriever = opts.retriever;
        req.fusion = opts.fusion;
        req.filter_opts = opts.filter;
        match opts.mode {
            Mode::Global => req.filter = false,
            Mode::Filter => req.filter = true,
            Mode::Oracle => {
                req.docs = gold_docs.into_iter().filter(|d| docs.contains(d)).collect();
                req.filter = false;
            }
        }
        let (ranked, ms, filter) = if opts.mode == Mode::Oracle && req.docs.is_empty() {
            (Vec::new(), 0.0, None)
        } else {
            let resp = lib.search(&req)?;
            (resp.hits.iter().map(|h| h.page_ref().to_string()).collect(), resp.elapsed_ms, resp.filter.map(|f| f.groups))
        };
        let g: HashMap<String, f64> = l.gold.iter().map(|(k, v)| (k.clone(), *v)).collect();
        let m = metrics(&ranked, &g);
        rows.push(Row {
            id: l.id.clone(),
            query: l.query.clone(),
            mode: opts.mode,
            ranked,
            gold: l.gold.clone(),
            m,
            ms,
            query_types: l.types(),
            content_type: l.content_types(),
            filter,
        });
    }
    let summary = summarize(&rows, opts.mode, skipped, missing);
    Ok((rows, summary))
}

pub fn summarize(rows: &[Row], mode: Mode, skipped: usize, missing: usize) -> Summary {
    let all: Vec<Metrics> = rows.iter().map(|r| r.m).collect();
    let m = mean(&all);
    let mut lat: Vec<f64> = rows.iter().map(|r| r.ms).collect();
    lat.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let group = |key: &dyn Fn(&Row) -> Vec<String>| {
        let mut g: BTreeMap<String, Vec<Metrics>> = BTreeMap::new();
        for r in rows {
            for k in key(r) {
                g.entry(k).or_default().push(r.m);
            }
        }
        g.into_iter().map(|(k, v)| (k, Group { n: v.len(), m: mean(&v) })).collect::<BTreeMap<_, _>>()
    };
    Summary {
        n: rows.len(),
        skipped_no_gold: skipped,
        missing_gold_docs: missing,
        mode,
        ndcg5: m.ndcg5,
        recall5: m.recall5,
        hit3: m.hit3,
        mrr: m.mrr,
        p50_ms: percentile(&lat, 50.0),
        p95_ms: percentile(&lat, 95.0),
        by_query_type: group(&|r: &Row| r.query_types.clone()),
        by_content_type: group(&|r: &Row| r.content_type.clone()),
    }
}

pub fn write_rows(dir: &Path, rows: &[Row], summary: &Summary) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| LensError::io(dir, e))?;
    let mut s = String::new();
    for r in rows {
        s.push_str(&serde_json::to_string(r).expect("rows serialise"));
        s.push('\n');
    }
    let f = dir.join("retrieval.jsonl");
    std::fs::write(&f, s).map_err(|e| LensError::io(&f, e))?;
    let f = dir.join("summary.json");
    std::fs::write(&f, serde_json::to_string_pretty(summary).expect("summary serialises")).map_err(|e| LensError::io(&f, e))
}

pub fn read_rows(path: &Path) -> Result<Vec<Row>> {
    let text = std::fs::read_to_string(path).map_err(|e| LensError::io(path, e))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| LensError::BadInput(format!("{}: bad row: {e}", path.display()))))
        .collect()
}

/// Deterministic PRNG (splitmix64) so bootstrap CIs are reproducible.
pub struct SplitMix(u64);
impl SplitMix {
    pub fn new(seed: u64) -> Self {
        SplitMix(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub run: String,
    pub n: usize,
    pub base_mean: f64,
    pub run_mean: f64,
    pub delta: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// "real" when the 95% CI excludes zero, else "could be luck".
    pub verdict: String,
}

/// Paired bootstrap (1000 resamples, fixed seed) of mean(b - a) over questions both runs share.
pub fn paired_bootstrap(name: &str, a: &HashMap<String, f64>, b: &HashMap<String, f64>, resamples: usize, seed: u64) -> Comparison {
    let mut ids: Vec<&String> = a.keys().filter(|k| b.contains_key(*k)).collect();
    ids.sort();
    let diffs: Vec<f64> = ids.iter().map(|k| b[*k] - a[*k]).collect();
    let n = diffs.len();
    let base_mean = ids.iter().map(|k| a[*k]).sum::<f64>() / n.max(1) as f64;
    let run_mean = ids.iter().map(|k| b[*k]).sum::<f64>() / n.max(1) as f64;
    let delta = diffs.iter().sum::<f64>() / n.max(1) as f64;
    let mut rng = SplitMix::new(seed);
    let mut means = Vec::with_capacity(resamples);
    if n > 0 {
        for _ in 0..resamples {
            let s: f64 = (0..n).map(|_| diffs[rng.below(n)]).sum();
            means.push(s / n as f64);
        }
    }
    means.sort_by(|x, y| x.partial_cmp(y).unwrap());
    let lo = percentile_linear(&means, 2.5);
    let hi = percentile_linear(&means, 97.5);
    let verdict = if n > 0 && (lo > 0.0 || hi < 0.0) { "real" } else { "could be luck" };
    Comparison { run: name.into(), n, base_mean, run_mean, delta, ci_low: lo, ci_high: hi, verdict: verdict.into() }
}

fn percentile_linear(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let pos = p / 100.0 * (sorted.len() - 1) as f64;
    let (i, f) = (pos.floor() as usize, pos - pos.floor());
    if i + 1 < sorted.len() {
        sorted[i] * (1.0 - f) + sorted[i + 1] * f
    } else {
        sorted[i]
    }
}

pub fn metric_of(m: &Metrics, name: &str) -> Result<f64> {
    Ok(match name {
        "ndcg5" => m.ndcg5,
        "recall5" => m.recall5,
        "hit3" => m.hit3,
        "mrr" => m.mrr,
        o => return Err(LensError::BadInput(format!("unknown metric `{o}` (ndcg5, recall5, hit3, mrr)"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    fn g(pairs: &[(&str, f64)]) -> HashMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }
    fn r(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }
    #[test]
    fn perfect_and_empty() {
        let gold = g(&[("D#1", 1.0)]);
        assert_eq!(metrics(&r(&["D#1", "D#2"]), &gold), Metrics { ndcg5: 1.0, recall5: 1.0, hit3: 1.0, mrr: 1.0 });
        assert_eq!(metrics(&r(&[]), &gold), Metrics::default());
    }
    #[test]
    fn by_hand_binary() {
        // gold at rank 2 of one relevant page: DCG = 1/log2(3) = 0.6309, IDCG = 1
        let gold = g(&[("D#7", 1.0)]);
        let m = metrics(&r(&["D#1", "D#7", "D#3"]), &gold);
        assert!((m.ndcg5 - 0.630_929_753_6).abs() < 1e-9);
        assert_eq!((m.recall5, m.hit3, m.mrr), (1.0, 1.0, 0.5));
        // rank 4: outside Hit@3, inside Recall@5
        let m = metrics(&r(&["a", "b", "c", "D#7"]), &gold);
        assert_eq!((m.recall5, m.hit3, m.mrr), (1.0, 0.0, 0.25));
        assert!((m.ndcg5 - 1.0 / 5f64.log2()).abs() < 1e-12);
        // rank 6: nothing but MRR
        let m = metrics(&r(&["a", "b", "c", "d", "e", "D#7"]), &gold);
        assert_eq!((m.ndcg5, m.recall5, m.hit3), (0.0, 0.0, 0.0));
        assert!((m.mrr - 1.0 / 6.0).abs() < 1e-12);
    }
    #[test]
    fn by_hand_graded() {
        // gold A=2, B=1; ranked [B, A]: DCG = 1/1 + 2/log2(3); IDCG = 2/1 + 1/log2(3)
        let gold = g(&[("A#1", 2.0), ("B#1", 1.0)]);
        let m = metrics(&r(&["B#1", "A#1"]), &gold);
        let l3 = 3f64.log2();
        assert!((m.ndcg5 - (1.0 + 2.0 / l3) / (2.0 + 1.0 / l3)).abs() < 1e-12);
        assert_eq!(m.recall5, 1.0);
        // half the relevant pages found
        let m = metrics(&r(&["x", "B#1"]), &gold);
        assert_eq!(m.recall5, 0.5);
        assert_eq!(m.mrr, 0.5);
    }
    #[test]
    fn bootstrap_is_seeded_and_sensible() {
        let a: HashMap<String, f64> = (0..50).map(|i| (format!("q{i}"), 0.2)).collect();
        let b: HashMap<String, f64> = (0..50).map(|i| (format!("q{i}"), if i % 5 == 0 { 0.2 } else { 0.8 })).collect();
        let c1 = paired_bootstrap("b", &a, &b, 1000, 7);
        let c2 = paired_bootstrap("b", &a, &b, 1000, 7);
        assert_eq!(c1.ci_low, c2.ci_low);
        assert!((c1.delta - 0.48).abs() < 1e-9);
        assert!(c1.ci_low > 0.3 && c1.ci_high <= 0.6 + 1e-9, "{c1:?}");
        assert_eq!(c1.verdict, "real");
        let same = paired_bootstrap("a", &a, &a, 1000, 7);
        assert_eq!(same.verdict, "could be luck");
    }
}
