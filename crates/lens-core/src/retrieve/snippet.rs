//! Step 5: snippets. The stretch of a page holding the most distinct query terms, shown under
//! each hit.

use crate::error::Result;
use crate::index::PageIndex;
use crate::library::Library;
use crate::pageref::PageRef;
use std::collections::HashSet;

impl Library {
    /// The stretch of a page holding the most of `terms` (as search hits show it).
    pub fn snippet(&self, page: &PageRef, terms: &[String]) -> Result<String> {
        let p = self.store.page(&page.doc_id, page.page)?;
        Ok(snippet(&self.index, &p.text, terms, 220))
    }
}

/// The ~`width`-character stretch of `text` holding the most distinct query terms.
pub fn snippet(index: &PageIndex, text: &str, terms: &[String], width: usize) -> String {
    let toks = crate::text::tokenize(text);
    let term_set: HashSet<&str> = terms.iter().map(String::as_str).collect();
    // Stems are (nearly always) prefixes of their words: stem only tokens sharing a
    // 3-character prefix with some query term.
    let prefixes: HashSet<&str> = terms.iter().map(|t| &t[..t.char_indices().nth(3).map(|(i, _)| i).unwrap_or(t.len())]).collect();
    let candidate = |t: &str| prefixes.contains(&t[..t.char_indices().nth(3).map(|(i, _)| i).unwrap_or(t.len())]);
    let stems: Vec<Option<String>> = toks
        .iter()
        .map(|t| {
            if !candidate(&t.text) {
                return None;
            }
            index.stem_tokens(std::iter::once(t.text.as_str())).pop().flatten().filter(|s| term_set.contains(s.as_str()))
        })
        .collect();
    let (mut best, mut best_start) = (0usize, 0usize);
    for i in 0..toks.len() {
        if stems[i].is_none() {
            continue;
        }
        let mut seen = HashSet::new();
        let mut j = i;
        while j < toks.len() && toks[j].end - toks[i].start <= width {
            if let Some(s) = &stems[j] {
                seen.insert(s.as_str());
            }
            j += 1;
        }
        if seen.len() > best {
            best = seen.len();
            best_start = toks[i].start;
        }
    }
    // back off a few characters so the snippet starts before the first match
    let start = text[..best_start].char_indices().rev().nth(30).map(|(i, _)| i).unwrap_or(0);
    let s: String = text[start..].chars().take(width).collect();
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
