//! Step 2: BM25 per document group, with the lexicon's line items and statement headings as
//! extra weighted terms, then statement/table-aware reranking of the top candidates
//! ([`crate::rank`]).

use super::{Query, SearchRequest, Sources};
use crate::error::Result;
use crate::filter::DocFilter;
use crate::index::IndexHit;
use crate::rank;
use std::collections::{HashMap, HashSet};

/// One ranked list per group; each holds at most `max(rank depth, k)` pages.
pub fn ranked(
    src: &Sources,
    q: &Query,
    applied: Option<&DocFilter>,
    groups: &[Option<Vec<i64>>],
    complete: &HashMap<i64, String>,
    req: &SearchRequest,
    k: usize,
) -> Result<Vec<Vec<IndexHit>>> {
    // Once the filter has picked a company's filings, its name only matches the pages that
    // repeat it (exhibit lists of subsidiaries, signatures): drop it from the query.
    let mut name_terms: HashSet<String> = HashSet::new();
    if let Some(f) = applied {
        if req.params.drop_company_terms {
            for a in &f.companies {
                name_terms.extend(src.index.query_terms(a));
            }
        }
    }
    let kept: Vec<&String> = q.terms.iter().filter(|t| !name_terms.contains(*t)).collect();
    let kept: Vec<&String> = if kept.is_empty() { q.terms.iter().collect() } else { kept };
    let mut weighted: Vec<(String, f32)> = kept.iter().map(|t| ((*t).clone(), 1.0)).collect();
    let mut heading_extra: Vec<(String, f32)> = Vec::new();
    // one lexicon pass serves the query expansion and the reranker's intent
    let e = src.lexicon.expand(&q.text);
    if req.params.expansion_weight > 0.0 {
        for t in src.index.query_terms(&e.line_items.join(" ")) {
            if !q.terms.contains(&t) {
                weighted.push((t, req.params.expansion_weight));
            }
        }
        for t in src.index.query_terms(&e.headings.join(" ")) {
            heading_extra.push((t, req.params.expansion_weight * req.params.heading_boost));
        }
    }
    if req.params.topic_weight > 0.0 {
        for t in src.index.query_terms(&rank::topics().terms_for(&q.text).join(" ")) {
            if !weighted.iter().any(|(w, _)| *w == t) {
                weighted.push((t, req.params.topic_weight));
            }
        }
    }
    let intent = rank::intent_of(&q.text, e);
    let mut lists = Vec::with_capacity(groups.len());
    for g in groups {
        let hits = src.index.search_weighted(&weighted, &heading_extra, g.as_deref(), (k + 8).max(req.rank.depth), req.params)?;
        let mut hits: Vec<IndexHit> = hits.into_iter().filter(|h| complete.contains_key(&h.doc_key)).collect();
        // equal scores are ordered by document id and page, so rankings do not depend on the
        // order documents happened to be ingested in
        let order =
            |a: &IndexHit, b: &IndexHit| b.score.total_cmp(&a.score).then_with(|| complete[&a.doc_key].cmp(&complete[&b.doc_key])).then(a.page.cmp(&b.page));
        hits.sort_by(order);
        if req.rank.depth > 0 && !hits.is_empty() {
            let top = hits[0].score.max(f32::MIN_POSITIVE);
            let n = req.rank.depth.max(k).min(hits.len());
            for h in &mut hits[..n] {
                let prof = src.profiles.get(src.store, src.lexicon, h.doc_key, h.page)?;
                h.score = rank::score(h.score / top, &prof, &intent, &req.rank);
            }
            hits[..n].sort_by(order);
            hits.truncate(n);
        }
        lists.push(hits);
    }
    Ok(lists)
}
