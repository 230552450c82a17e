//! Candidate survival: BM25 picks the top B pages, the vision index reranks them by MaxSim.
//! Per budget B: how many gold pages survive into the candidates (candidate recall), and how
//! the reranked list does (Recall@5, nDCG@5), with a paired bootstrap CI of its Recall@5 against
//! BM25's own top 5 on the same questions.

use crate::error::{LensError, Result};
use crate::eval::{metrics, paired_bootstrap, Comparison, Label, Mode};
use crate::library::Library;
use crate::retrieve::{Retriever, SearchRequest};
use serde::Serialize;
use std::collections::HashMap;

#[derive(Debug, Clone, Serialize)]
pub struct Budget {
    pub budget: usize,
    pub n: usize,
    /// Share of gold pages among the BM25 top B.
    pub candidate_recall: f64,
    /// After the MaxSim rerank of those B.
    pub recall5: f64,
    pub ndcg5: f64,
    /// Reranked Recall@5 against BM25's Recall@5, paired.
    pub vs_bm25: Comparison,
}

#[derive(Debug, Clone, Serialize)]
pub struct Survival {
    pub vision: String,
    pub mode: Mode,
    pub bm25_recall5: f64,
    pub bm25_ndcg5: f64,
    pub budgets: Vec<Budget>,
    /// Questions skipped: no gold page.
    pub skipped: usize,
}

type ById = HashMap<String, f64>;

pub fn run(lib: &Library, labels: &[Label], budgets: &[usize], mode: Mode) -> Result<Survival> {
    let vis = lib.vision().ok_or_else(|| LensError::ModelMissing {
        what: "a vision model".into(),
        dir: "(none loaded)".into(),
        hint: "candidate survival reranks by MaxSim: put a ColModernVBERT model in the models folder and run `lens vision build`".into(),
    })?;
    let keys: HashMap<String, i64> = lib.documents()?.into_iter().map(|d| (d.id, d.key)).collect();
    let max_b = budgets.iter().copied().max().unwrap_or(10).max(5);
    let (mut bm_r, mut bm_n) = (HashMap::new(), HashMap::new());
    // per budget: candidate recall, reranked Recall@5, reranked nDCG@5, by question
    let mut per: Vec<[ById; 3]> = budgets.iter().map(|_| Default::default()).collect();
    let mut skipped = 0;
    for l in labels {
        let gold: HashMap<String, f64> = l.gold.iter().map(|(k, v)| (k.clone(), *v)).collect();
        let positives = gold.values().filter(|v| **v > 0.0).count();
        if positives == 0 {
            skipped += 1;
            continue;
        }
        let mut req = SearchRequest::new(l.query.clone());
        req.k = max_b;
        req.retriever = Retriever::Bm25;
        req.filter = mode != Mode::Global;
        if mode == Mode::Oracle {
            req.docs = l.gold_pages().into_iter().map(|(p, _)| p.doc_id).collect();
            req.filter = false;
        }
        let hits = lib.search(&req)?.hits;
        let ranked: Vec<String> = hits.iter().map(|h| h.page_ref().to_string()).collect();
        let m = metrics(&ranked, &gold);
        bm_r.insert(l.id.clone(), m.recall5);
        bm_n.insert(l.id.clone(), m.ndcg5);
        let qv = vis.embed_query(&l.query)?;
        let pages: Vec<(i64, u32)> = hits.iter().map(|h| (keys.get(&h.doc_id).copied().unwrap_or(-1), h.page)).collect();
        let scores = vis.score(lib.store(), &qv, &pages)?;
        for (bi, &b) in budgets.iter().enumerate() {
            let cand = &ranked[..b.min(ranked.len())];
            let found = cand.iter().filter(|p| gold.get(*p).is_some_and(|g| *g > 0.0)).count();
            // pages without vision vectors keep their BM25 order after the scored ones
            let mut order: Vec<usize> = (0..cand.len()).collect();
            order.sort_by(|a, c| match (scores[*a], scores[*c]) {
                (Some(x), Some(y)) => y.total_cmp(&x),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => a.cmp(c),
            });
            let reranked: Vec<String> = order.into_iter().map(|i| cand[i].clone()).collect();
            let m = metrics(&reranked, &gold);
            per[bi][0].insert(l.id.clone(), found as f64 / positives as f64);
            per[bi][1].insert(l.id.clone(), m.recall5);
            per[bi][2].insert(l.id.clone(), m.ndcg5);
        }
    }
    let mean = |m: &HashMap<String, f64>| m.values().sum::<f64>() / m.len().max(1) as f64;
    let out = budgets
        .iter()
        .zip(&per)
        .map(|(b, [c, r, n])| Budget {
            budget: *b,
            n: r.len(),
            candidate_recall: mean(c),
            recall5: mean(r),
            ndcg5: mean(n),
            vs_bm25: paired_bootstrap(&format!("B={b}"), &bm_r, r, 1000, 42),
        })
        .collect();
    Ok(Survival { vision: vis.name(), mode, bm25_recall5: mean(&bm_r), bm25_ndcg5: mean(&bm_n), budgets: out, skipped })
}
