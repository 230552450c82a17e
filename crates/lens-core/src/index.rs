//! BM25 page index on tantivy: one tantivy document per page, with a boosted heading field.
//! Lives on disk (mmap) in a library, or in RAM for tests (`PageIndex::in_ram`).

use crate::error::{LensError, Result};
use crate::text::{is_stop_word, LensTokenizer};
use std::collections::HashSet;
use std::path::Path;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery, TermSetQuery};
use tantivy::schema::{Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, Value};
use tantivy::tokenizer::{Language, Stemmer, TextAnalyzer};
use tantivy::{DocAddress, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

pub const TOKENIZER: &str = "lens";

/// Ranking knobs, so evals can ablate them.
#[derive(Debug, Clone, Copy)]
pub struct Bm25Params {
    /// Boost of the heading field (a page's first lines, and the lexicon's statement titles searched
    /// there); 0 leaves the field out. 0.25 (was 1.5): tuned on financebench half a with the
    /// dense fusion; BM25 alone gained too (half a nDCG@5 0.605 -> 0.638).
    pub heading_boost: f32,
    /// Weight of lexicon expansion terms (metric names -> line items); 0 disables expansion.
    pub expansion_weight: f32,
    /// Drop the words of the company the filter matched from the query.
    pub drop_company_terms: bool,
    /// Weight of the words of the question's topic ([`crate::sections::Topic::terms`]); 0
    /// leaves them out.
    pub topic_weight: f32,
}

impl Default for Bm25Params {
    fn default() -> Self {
        Bm25Params { heading_boost: 0.25, expansion_weight: 0.5, drop_company_terms: true, topic_weight: 1.0 }
    }
}

#[derive(Clone, Copy)]
struct Fields {
    doc_key: Field,
    /// (doc_key << 20) | page: lets one page be replaced (after OCR).
    page_key: Field,
    page: Field,
    text: Field,
    heading: Field,
}

pub struct PageIndex {
    index: Index,
    reader: IndexReader,
    f: Fields,
}

/// A scored page from the index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndexHit {
    pub doc_key: i64,
    pub page: u32,
    pub score: f32,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let num = NumericOptions::default().set_indexed().set_fast().set_stored();
    let doc_key = b.add_u64_field("doc_key", num.clone());
    let page_key = b.add_u64_field("page_key", NumericOptions::default().set_indexed());
    let page = b.add_u64_field("page", NumericOptions::default().set_fast().set_stored());
    let idx = TextFieldIndexing::default().set_tokenizer(TOKENIZER).set_index_option(IndexRecordOption::WithFreqs);
    let text = b.add_text_field("text", TextOptions::default().set_indexing_options(idx.clone()));
    let heading = b.add_text_field("heading", TextOptions::default().set_indexing_options(idx));
    (b.build(), Fields { doc_key, page_key, page, text, heading })
}

fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(LensTokenizer::default()).filter(Stemmer::new(Language::English)).build()
}

impl PageIndex {
    /// Open or create the index in `dir`.
    pub fn open_in_dir(dir: &Path) -> Result<PageIndex> {
        std::fs::create_dir_all(dir).map_err(|e| LensError::io(dir, e))?;
        let (schema, f) = schema();
        let mmap = tantivy::directory::MmapDirectory::open(dir).map_err(|e| LensError::Index(e.to_string()))?;
        let index = Index::open_or_create(mmap, schema).map_err(|e| match e {
            tantivy::TantivyError::SchemaError(_) => LensError::Index(format!(
                "the search index in {} was made by another version of 10-K Lens; move the library aside and ingest again ({e})",
                dir.display()
            )),
            other => other.into(),
        })?;
        Self::finish(index, f)
    }

    /// An index held in memory (tests, scratch evals).
    pub fn in_ram() -> Result<PageIndex> {
        let (schema, f) = schema();
        Self::finish(Index::create_in_ram(schema), f)
    }

    fn finish(index: Index, f: Fields) -> Result<PageIndex> {
        index.tokenizers().register(TOKENIZER, analyzer());
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok(PageIndex { index, reader, f })
    }

    pub fn writer(&self) -> Result<PageWriter> {
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).clamp(1, 4);
        let w: IndexWriter = self.index.writer_with_num_threads(threads, 48_000_000 * threads)?;
        Ok(PageWriter { w, f: self.f })
    }

    pub fn reload(&self) -> Result<()> {
        self.reader.reload()?;
        Ok(())
    }

    pub fn num_pages(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// The stemmed form of one surface token (None for stop words).
    pub fn stem_tokens<'a>(&self, toks: impl Iterator<Item = &'a str>) -> Vec<Option<String>> {
        let mut a = analyzer();
        toks.map(|t| {
            if is_stop_word(t) {
                return None;
            }
            let mut ts = a.token_stream(t);
            ts.next().map(|tok| tok.text.clone())
        })
        .collect()
    }

    /// Query terms after analysis (stemmed, stop words removed, deduplicated, in order).
    pub fn query_terms(&self, query: &str) -> Vec<String> {
        let mut a = analyzer();
        let mut out: Vec<String> = Vec::new();
        // stop words are judged on the surface form, before stemming
        for t in crate::text::tokenize(query) {
            if is_stop_word(&t.text) {
                continue;
            }
            let mut ts = a.token_stream(&t.text);
            while let Some(tok) = ts.next() {
                if !out.contains(&tok.text) {
                    out.push(tok.text.clone());
                }
            }
        }
        out
    }

    /// BM25 search over `terms` (with `extra` expansion terms at their own weights, and
    /// `heading_extra` terms matched in headings only), restricted to `keys` when given.
    pub fn search(&self, terms: &[String], keys: Option<&[i64]>, k: usize, p: Bm25Params) -> Result<Vec<IndexHit>> {
        self.search_weighted(&terms.iter().map(|t| (t.clone(), 1.0)).collect::<Vec<_>>(), &[], keys, k, p)
    }

    pub fn search_weighted(
        &self,
        terms: &[(String, f32)],
        heading_extra: &[(String, f32)],
        keys: Option<&[i64]>,
        k: usize,
        p: Bm25Params,
    ) -> Result<Vec<IndexHit>> {
        if terms.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::with_capacity(terms.len() * 2);
        let boosted = |q: TermQuery, w: f32| -> Box<dyn Query> {
            if w == 1.0 {
                Box::new(q)
            } else {
                Box::new(BoostQuery::new(Box::new(q), w))
            }
        };
        for (t, w) in terms {
            should.push((Occur::Should, boosted(TermQuery::new(Term::from_field_text(self.f.text, t), IndexRecordOption::WithFreqs), *w)));
            if p.heading_boost > 0.0 {
                let hq = TermQuery::new(Term::from_field_text(self.f.heading, t), IndexRecordOption::WithFreqs);
                should.push((Occur::Should, boosted(hq, p.heading_boost * w)));
            }
        }
        for (t, w) in heading_extra {
            let hq = TermQuery::new(Term::from_field_text(self.f.heading, t), IndexRecordOption::WithFreqs);
            should.push((Occur::Should, boosted(hq, *w)));
        }
        let text_q: Box<dyn Query> = Box::new(BooleanQuery::new(should));
        let query: Box<dyn Query> = match keys {
            Some(keys) => {
                let set = TermSetQuery::new(keys.iter().map(|k| Term::from_field_u64(self.f.doc_key, *k as u64)));
                Box::new(BooleanQuery::new(vec![(Occur::Must, text_q), (Occur::Must, Box::new(BoostQuery::new(Box::new(set), 0.0)))]))
            }
            None => text_q,
        };
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(k))?;
        let mut out = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let (doc_key, page) = self.key_page(&searcher, addr)?;
            out.push(IndexHit { doc_key, page, score });
        }
        Ok(out)
    }

    fn key_page(&self, searcher: &tantivy::Searcher, addr: DocAddress) -> Result<(i64, u32)> {
        let seg = searcher.segment_reader(addr.segment_ord);
        let ff = seg.fast_fields();
        let key = ff.u64("doc_key")?.first(addr.doc_id);
        let page = ff.u64("page")?.first(addr.doc_id);
        match (key, page) {
            (Some(k), Some(p)) => Ok((k as i64, p as u32)),
            _ => {
                // fall back to the stored document
                let d: TantivyDocument = searcher.doc(addr)?;
                let k = d.get_first(self.f.doc_key).and_then(|v| v.as_u64()).unwrap_or(0);
                let p = d.get_first(self.f.page).and_then(|v| v.as_u64()).unwrap_or(0);
                Ok((k as i64, p as u32))
            }
        }
    }

    /// Document keys present in the index (for consistency checks).
    pub fn keys(&self) -> Result<HashSet<i64>> {
        let searcher = self.reader.searcher();
        let mut out = HashSet::new();
        for seg in searcher.segment_readers() {
            let col = seg.fast_fields().u64("doc_key")?;
            let alive = seg.alive_bitset();
            for d in 0..seg.max_doc() {
                if alive.is_none_or(|a| a.is_alive(d)) {
                    if let Some(k) = col.first(d) {
                        out.insert(k as i64);
                    }
                }
            }
        }
        Ok(out)
    }
}

fn page_key(doc_key: i64, page: u32) -> u64 {
    ((doc_key as u64) << 20) | page as u64
}

pub struct PageWriter {
    w: IndexWriter,
    f: Fields,
}

impl PageWriter {
    pub fn add_page(&mut self, doc_key: i64, page: u32, text: &str, heading: &str) -> Result<()> {
        let mut d = TantivyDocument::default();
        d.add_u64(self.f.doc_key, doc_key as u64);
        d.add_u64(self.f.page_key, page_key(doc_key, page));
        d.add_u64(self.f.page, page as u64);
        d.add_text(self.f.text, text);
        d.add_text(self.f.heading, heading);
        self.w.add_document(d)?;
        Ok(())
    }

    /// Replace one page's entry (delete + add; visible after the next commit).
    pub fn replace_page(&mut self, doc_key: i64, page: u32, text: &str, heading: &str) -> Result<()> {
        self.w.delete_term(Term::from_field_u64(self.f.page_key, page_key(doc_key, page)));
        self.add_page(doc_key, page, text, heading)
    }

    pub fn delete_doc(&mut self, doc_key: i64) {
        self.w.delete_term(Term::from_field_u64(self.f.doc_key, doc_key as u64));
    }

    pub fn commit(&mut self) -> Result<()> {
        self.w.commit()?;
        Ok(())
    }

    pub fn rollback(&mut self) -> Result<()> {
        self.w.rollback()?;
        Ok(())
    }

    pub fn wait_merging_threads(self) -> Result<()> {
        self.w.wait_merging_threads()?;
        Ok(())
    }
}
