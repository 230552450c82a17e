//! Step 1: which documents a question is searched in. The user's explicit pick wins; else the
//! filter finds companies, years and forms named in the question and returns one group of
//! document keys per company (searched separately, then interleaved); else everything.

use super::{SearchRequest, Sources};
use crate::error::Result;
use crate::filter::{self, DocFilter};

/// Document key groups to search (`None`: the whole library) and the filter that made them.
pub struct Scope {
    pub groups: Vec<Option<Vec<i64>>>,
    pub filter: Option<DocFilter>,
}

pub fn scope(src: &Sources, question: &str, req: &SearchRequest) -> Result<Scope> {
    if !req.docs.is_empty() {
        let mut keys = Vec::new();
        for id in &req.docs {
            keys.push(src.store.document(id)?.key);
        }
        return Ok(Scope { groups: vec![Some(keys)], filter: None });
    }
    if req.filter {
        let infos = src.store.doc_infos(src.companies, req.filter_opts.tickers)?;
        if let Some(f) = filter::detect_with(question, &infos, &req.filter_opts) {
            let groups = if req.filter_opts.decompose { f.key_groups.iter().cloned().map(Some).collect() } else { vec![Some(f.key_groups.concat())] };
            return Ok(Scope { groups, filter: Some(f) });
        }
    }
    Ok(Scope { groups: vec![None], filter: None })
}
