//! Statement- and table-aware reranking of BM25 candidates.
//!
//! A question like "FY2018 capital expenditure ... cash flow statement" wants the page that *is*
//! the cash flow statement: a page titled with the statement's heading and full of numbers.
//! BM25 alone prefers pages that merely mention it (the table of contents names every
//! statement; the MD&A repeats the question's words). This stage reads the candidate pages'
//! text, profiles them (statement title, share of numbers, table-of-contents shape) and
//! re-scores them. The statement names and headings it knows come from the lexicon (data).

use crate::lexicon::Lexicon;
use serde::Serialize;

/// Weights of the reranking features (relative to the best BM25 score of the list, 1.0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankParams {
    /// Bonus for a page titled with a statement the question asks for.
    pub statement: f32,
    /// Bonus (scaled by number density) for table pages when the question asks for a figure.
    pub numeric: f32,
    /// Penalty for table-of-contents and index pages.
    pub toc: f32,
    /// Bonus for a current report's item page ("Item 8.01. Other Events."), which states what
    /// the report is about, over its exhibits.
    pub item: f32,
    /// Penalty for a page of legal form text (an exhibit's notes and agreements).
    pub boilerplate: f32,
    /// Bonus for a page in a section the question's topic points at ([`crate::sections`]:
    /// legal proceedings, the business, risk factors, ...).
    pub section: f32,
    /// How many BM25 candidates are re-scored (and fused with the dense list); 0 turns reranking
    /// off. 60 (was 40): tuned on financebench half a with the score fusion.
    pub depth: usize,
}

impl Default for RankParams {
    fn default() -> Self {
        RankParams { statement: 0.6, numeric: 0.2, toc: 0.6, item: 0.4, boilerplate: 0.2, section: SECTION_WEIGHT, depth: 60 }
    }
}

/// The section prior's weight (tuned on financebench half a only).
pub const SECTION_WEIGHT: f32 = 0.3;

impl RankParams {
    pub fn off() -> Self {
        RankParams { depth: 0, ..Default::default() }
    }
}

/// What a page looks like to the reranker.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PageProfile {
    /// Ids of the statements whose title heads the page.
    pub statements: Vec<String>,
    /// Share of the page's tokens that are numbers (0..1).
    pub numeric: f32,
    /// Share of the page's lines that look like table-of-contents entries ("Item 7. ... 32").
    pub toc: f32,
    /// An 8-K item heads the page ("Item 1.01 Entry into a Material Definitive Agreement").
    pub item: bool,
    /// The page reads as legal form text: four or more of its phrases
    /// ([`crate::support::boilerplate_markers`]).
    pub boilerplate: bool,
    /// The sections the page belongs to ("Item 3. Legal Proceedings"; [`crate::sections`]).
    pub sections: Vec<String>,
}

fn item_re() -> &'static regex::Regex {
    static R: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| regex::Regex::new(r"(?i)^item\s+\d{1,2}\.\d{2}\b").expect("valid regex"));
    &R
}

/// What the question asks for.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Intent {
    pub statements: Vec<String>,
    /// Words of the sections the question's topic is answered in ([`crate::sections::Topics`]).
    pub sections: Vec<String>,
    /// Asks for a figure (an amount, a ratio, a change).
    pub quantitative: bool,
}

/// Lower-case letters only, statements -> statement: "Consolidated Statement of Cash Flow s"
/// and "CONSOLIDATED STATEMENTS OF CASH FLOWS" squash to the same string.
fn squash(s: &str) -> String {
    let l: String = s.chars().filter(|c| c.is_alphabetic()).flat_map(char::to_lowercase).collect();
    l.replace("statements", "statement")
}

const FIGURE_WORDS: &[&str] = &[
    "how much",
    "how many",
    "amount",
    "ratio",
    "margin",
    "usd",
    "million",
    "billion",
    "percent",
    "%",
    "$",
    "growth",
    "change in",
    "increase",
    "decrease",
    "rate",
    "total",
    "turnover",
    "per share",
    "round",
];

/// Words of a question that wants the narrative (the MD&A's explanation), not the table.
const NARRATIVE_WORDS: &[&str] = &["what drove", "drove the", "drivers of", "driven by", "what caused", "reasons for", "reason for"];

/// The built-in topic -> section priors, read once.
pub fn topics() -> &'static crate::sections::Topics {
    static T: std::sync::LazyLock<crate::sections::Topics> = std::sync::LazyLock::new(crate::sections::Topics::builtin);
    &T
}

pub fn intent(question: &str, lexicon: &Lexicon) -> Intent {
    intent_of(question, lexicon.expand(question))
}

/// The intent of a question whose lexicon expansion is already at hand.
pub fn intent_of(question: &str, mut e: crate::lexicon::Expansion) -> Intent {
    let l = question.to_lowercase();
    if NARRATIVE_WORDS.iter().any(|w| l.contains(w)) {
        // keep only statements named outright; a metric's statement is not where its drivers are
        e.statements.truncate(e.named_statements);
        return Intent { quantitative: false, statements: e.statements, sections: topics().sections_for(question) };
    }
    let quantitative = !e.line_items.is_empty() || FIGURE_WORDS.iter().any(|w| l.contains(w));
    Intent { statements: e.statements, quantitative, sections: topics().sections_for(question) }
}

fn is_number_token(t: &str) -> bool {
    let core = t.trim_matches(|c: char| "$()%,.;:€£".contains(c));
    !core.is_empty() && core.chars().all(|c| c.is_ascii_digit() || c == ',' || c == '.') && core.chars().any(|c| c.is_ascii_digit())
}

/// The page number a table-of-contents entry ends with: words, then 1-3 digits (or "F-12").
fn toc_page_number(l: &str) -> Option<u32> {
    let l = l.trim();
    let (head, last) = l.rsplit_once(char::is_whitespace)?;
    let last = last.trim_start_matches("F-").trim_start_matches("f-");
    if last.is_empty() || last.len() > 3 || !last.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let letters = head.chars().filter(|c| c.is_alphabetic()).count();
    let digits = head.chars().filter(|c| c.is_ascii_digit()).count();
    if letters >= 6 && digits <= 3 && !head.contains('$') {
        last.parse().ok()
    } else {
        None
    }
}

fn is_toc_line(l: &str) -> bool {
    toc_page_number(l).is_some()
}

/// Share of lines that are table-of-contents entries, when their page numbers mostly run
/// upwards (a statement's rows of small amounts, "Income taxes 120", do not).
fn toc_share(lines: &[&str]) -> f32 {
    let nums: Vec<u32> = lines.iter().filter_map(|l| toc_page_number(l)).collect();
    if nums.len() < 5 || lines.is_empty() {
        return 0.0;
    }
    let rising = nums.windows(2).filter(|w| w[1] >= w[0]).count();
    if (rising as f32) < 0.7 * (nums.len() - 1) as f32 {
        return 0.0;
    }
    nums.len() as f32 / lines.len() as f32
}

/// Rerank profiles of the pages seen so far, made on first use (a page's text never changes
/// under its key; OCR replaces a page in place, so it clears the cache).
/// Each page's sections, by page ([`crate::sections::of_document`]), of one document.
pub type DocSections = std::sync::Arc<std::collections::HashMap<u32, Vec<String>>>;

/// Each page's sections ([`crate::sections::of_document`]) are read once per document.
#[derive(Default)]
pub struct ProfileCache {
    pages: std::sync::RwLock<std::collections::HashMap<(i64, u32), std::sync::Arc<PageProfile>>>,
    sections: std::sync::RwLock<std::collections::HashMap<i64, DocSections>>,
}

impl ProfileCache {
    pub fn get(&self, store: &crate::store::Store, lexicon: &Lexicon, key: i64, page: u32) -> crate::error::Result<std::sync::Arc<PageProfile>> {
        if let Some(p) = self.pages.read().unwrap_or_else(|p| p.into_inner()).get(&(key, page)) {
            return Ok(p.clone());
        }
        let text = store.page_text_by_key(key, page)?.unwrap_or_default();
        let mut prof = profile(&text, lexicon);
        prof.sections = self.sections_of(store, key)?.get(&page).cloned().unwrap_or_default();
        let p = std::sync::Arc::new(prof);
        self.pages.write().unwrap_or_else(|p| p.into_inner()).insert((key, page), p.clone());
        Ok(p)
    }

    /// The sections of every page of the document `key`, read on first use.
    pub fn sections_of(&self, store: &crate::store::Store, key: i64) -> crate::error::Result<DocSections> {
        if let Some(s) = self.sections.read().unwrap_or_else(|p| p.into_inner()).get(&key) {
            return Ok(s.clone());
        }
        let pages = store.page_texts_by_key(key)?;
        let texts: Vec<&str> = pages.iter().map(|(_, t)| t.as_str()).collect();
        let map: std::collections::HashMap<u32, Vec<String>> = pages.iter().map(|(p, _)| *p).zip(crate::sections::of_document(&texts)).collect();
        let s = std::sync::Arc::new(map);
        self.sections.write().unwrap_or_else(|p| p.into_inner()).insert(key, s.clone());
        Ok(s)
    }

    pub fn clear(&self) {
        self.pages.write().unwrap_or_else(|p| p.into_inner()).clear();
        self.sections.write().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

/// The statements a page's opening names when its title is printed a word or a few a line
/// ("CONSOLIDATED\nSTATEMENTS\nOF\nOPERATIONS", as MGM's are): its first lines joined.
pub fn title_statements(text: &str, lexicon: &Lexicon) -> Vec<String> {
    let head: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).take(16).filter(|l| !is_toc_line(l)).collect();
    let sq = squash(&head.join(" "));
    lexicon.statements.iter().filter(|s| s.headings.iter().any(|h| !squash(h).is_empty() && sq.contains(&squash(h)))).map(|s| s.id.clone()).collect()
}

/// Profile one page's text against the lexicon's statements.
pub fn profile(text: &str, lexicon: &Lexicon) -> PageProfile {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let mut statements = Vec::new();
    let headings: Vec<(String, Vec<String>)> = lexicon.statements.iter().map(|s| (s.id.clone(), s.headings.iter().map(|h| squash(h)).collect())).collect();
    for l in lines.iter().take(12) {
        // a title, not a table-of-contents entry pointing at it
        if l.chars().count() > 90 || is_toc_line(l) {
            continue;
        }
        let low = l.to_lowercase();
        if low.starts_with("notes to") || low.starts_with("see ") || low.starts_with("the accompanying") || low.contains("notes to consolidated") {
            continue;
        }
        let sq = squash(l);
        for (id, hs) in &headings {
            if hs.iter().any(|h| !h.is_empty() && sq.contains(h.as_str())) && !statements.contains(id) {
                statements.push(id.clone());
            }
        }
    }
    let mut toks = 0usize;
    let mut nums = 0usize;
    for t in text.split_whitespace() {
        toks += 1;
        if is_number_token(t) {
            nums += 1;
        }
    }
    let numeric = if toks == 0 { 0.0 } else { nums as f32 / toks as f32 };
    let toc = toc_share(&lines);
    // a statement page is a table: a title without numbers is a divider or an index entry
    if numeric < 0.12 || toc >= 0.2 {
        statements.clear();
    }
    // a current report's items (N.NN) head its own pages; a 10-K's items are "Item 7."
    let item = lines.iter().take(4).any(|l| item_re().is_match(l)) && toc < 0.2;
    // a page of form text: its phrases throughout, not one "forward-looking statements"
    let boilerplate = crate::support::boilerplate_markers(text) >= 4;
    PageProfile { statements, numeric, toc, item, boilerplate, sections: Vec::new() }
}

/// The reranked score of one candidate, given its BM25 score relative to the list's best.
pub fn score(relative_bm25: f32, p: &PageProfile, intent: &Intent, w: &RankParams) -> f32 {
    let mut s = relative_bm25;
    if intent.statements.iter().any(|id| p.statements.contains(id)) {
        s += w.statement;
    }
    if intent.quantitative {
        s += w.numeric * (p.numeric / 0.35).min(1.0);
    }
    if p.toc >= 0.2 {
        s -= w.toc * (p.toc / 0.5).min(1.0);
    }
    if p.item {
        s += w.item;
    }
    if p.boilerplate {
        s -= w.boilerplate;
    }
    if !intent.sections.is_empty() && crate::sections::matches(&p.sections, &intent.sections) {
        s += w.section;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_pages_and_tocs_are_recognised() {
        let lx = Lexicon::builtin();
        let cf = "Table of Contents\n3M Company and Subsidiaries\nConsolidated Statement of Cash Flow s\nYears ended December 31\n(Millions)\n2018\n2017\nNet income\n$\n5,363\n$\n4,869\nDepreciation and amortization\n1,488\n1,544\nPurchases of property, plant and equipment (PP&E)\n(1,577)\n(1,373)";
        let p = profile(cf, &lx);
        assert_eq!(p.statements, vec!["cash_flow".to_string()]);
        assert!(p.numeric > 0.2, "{p:?}");
        assert_eq!(p.toc, 0.0);
        let toc = "Table of Contents\nItem 1. Business 4\nItem 1A. Risk Factors 12\nItem 2. Properties 20\nItem 7. Management's Discussion 24\nItem 8. Financial Statements 50\nConsolidated Statement of Cash Flows 60\nConsolidated Balance Sheet 58\nItem 9. Changes in Accountants 110";
        let t = profile(toc, &lx);
        assert!(t.toc > 0.5, "{t:?}");
        assert!(t.statements.is_empty(), "a TOC is not a statement: {t:?}");
        // a title printed a word a line (MGM's): named by the opening lines joined
        let mgm = "MGM\nRESORTS\nINTERNATIONAL\nAND\nSUBSIDIARIES\nCONSOLIDATED\nSTATEMENTS\nOF\nOPERATIONS\n(In thousands)\nNet income 583,894";
        assert_eq!(title_statements(mgm, &lx), vec!["income".to_string()]);
        assert!(title_statements("Table of Contents\nItem 7. Management's Discussion 24", &lx).is_empty());
        let i = intent("What is the FY2018 capital expenditure amount (in USD millions) for 3M? Use the cash flow statement.", &lx);
        assert_eq!(i.statements, vec!["cash_flow".to_string()]);
        assert!(i.quantitative);
        let w = RankParams::default();
        assert!(score(0.6, &p, &i, &w) > score(1.0, &t, &i, &w));
        assert!(!intent("Who is the CEO of 3M?", &lx).quantitative);
        // a statement whose rows end in small amounts is not a table of contents
        let is = "Consolidated Statements of Income\n(In millions)\nNet sales 18,841\nCost of sales 9,120\nResearch 812\nSelling 655\nInterest expense 120\nOther income 45\nIncome taxes 310\nNet income 2,140";
        let p = profile(is, &lx);
        assert_eq!(p.toc, 0.0, "{p:?}");
        assert_eq!(p.statements, vec!["income".to_string()]);
        // a current report's item page, not a 10-K's item line
        assert!(profile("Item 8.01. Other Events.\nEffective May 26, 2023, PepsiCo terminated the credit agreement.", &lx).item);
        assert!(!profile("Item 7. Management's Discussion and Analysis\nRevenue rose.", &lx).item);
        let why = intent("What drove operating margin change as of FY2022 for 3M?", &lx);
        assert!(why.statements.is_empty() && !why.quantitative, "{why:?}");
    }
}
