//! The answer contract shared by every answerer, and the extractive answerer (no model): the
//! line or sentence of the retrieved pages that best supports the question, quoted verbatim.
//!
//! Pages are shown to answerers as P1..Pn (with document and page in the label) and citations
//! come back as those labels, mapped to page ids here: small models copy long ids badly.

use crate::calc::Calculation;
use crate::error::{LensError, Result};
use crate::evidence::FoundBy;
use crate::pageref::PageRef;
use crate::question::{Operation, Question, ValueType};
use crate::text::{is_stop_word, tokenize};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

pub const NOT_FOUND: &str = "Not found in the provided pages.";

/// A page given to an answerer.
#[derive(Debug, Clone, Serialize)]
pub struct PageInput {
    /// "P1", "P2", ...
    pub label: String,
    pub doc_id: String,
    pub page: u32,
    pub heading: String,
    pub text: String,
}

impl PageInput {
    /// The label with its source, as shown in prompts: `P1 (3M_2018_10K, page 60)`.
    pub fn page_ref(&self) -> PageRef {
        PageRef::new(self.doc_id.clone(), self.page)
    }

    pub fn header(&self) -> String {
        format!("{} ({}, page {})", self.label, self.doc_id, self.page)
    }
}

/// Label pages P1..Pn in rank order.
pub fn label_pages(pages: Vec<(String, u32, String, String)>) -> Vec<PageInput> {
    pages.into_iter().enumerate().map(|(i, (doc_id, page, heading, text))| PageInput { label: format!("P{}", i + 1), doc_id, page, heading, text }).collect()
}

/// Map labels an answerer cited ("P2", "p2", "[P2]") back to page ids; unknown labels dropped.
pub fn map_citations(labels: &[String], pages: &[PageInput]) -> Vec<PageRef> {
    let mut out: Vec<PageRef> = Vec::new();
    for l in labels {
        let l = l.trim().trim_matches(|c| c == '[' || c == ']').to_uppercase();
        if let Some(p) = pages.iter().find(|p| p.label == l) {
            let id = p.page_ref();
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    out
}

/// A passage given to a model: its id, the index of its page among the pages given, its text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GivenPassage {
    pub id: String,
    pub page: usize,
    pub text: String,
}

/// What a model answerer cited, for the ask phases to locate ([`crate::cite::locate`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Cited {
    /// The model read passages with ids (else whole pages).
    pub passages: bool,
    /// Passage ids the reply cited (passages mode).
    pub ids: Vec<String>,
    /// Page labels the reply cited ("P2").
    pub labels: Vec<String>,
    /// The reply's own quote (pages mode).
    pub quote: Option<String>,
    /// The passages the model was given (empty when it read whole pages).
    pub given: Vec<GivenPassage>,
}

named_enum!(
    /// Which answerer writes the answer.
    #[derive(Default)]
    pub enum AnswererKind("answerer") {
        /// The best supporting line of the pages, quoted (no model).
        #[default]
        Extractive = "extractive",
        /// An on-device Qwen model ([`crate::llm`]) writes the answer from the pages.
        Qwen = "qwen",
    }
);

/// What a model answerer did for one answer: which model, where, how fast, and its raw reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ModelRun {
    pub model: String,
    /// Where it really ran: `cpu (avx512vnni, 2 threads)`.
    pub device: String,
    pub prompt_tokens: usize,
    pub new_tokens: usize,
    pub prefill_tps: f64,
    pub decode_tps: f64,
    /// Seconds before the first token (the prompt's prefill).
    pub first_token_s: f64,
    /// The model's whole reply, before parsing.
    pub reply: String,
    /// What was cut or dropped on the way (pages cut to fit, labels naming no page).
    pub notes: Vec<String>,
}

/// One answer, as every layer records it: the ask response, the question log and the eval rows
/// all embed this (flattened), so its fields have one name and one type everywhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub answer: String,
    /// Pages the answer cites, in the answerer's order.
    pub citations: Vec<PageRef>,
    /// A short verbatim quote from the first cited page.
    pub quote: Option<String>,
    pub not_found: bool,
    /// How the evidence was located on the first cited page (set after answering).
    pub found_by: FoundBy,
    pub answer_ms: f64,
    pub answerer: AnswererKind,
    /// The worked calculation, when the question asks for a figure the calculator knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calculation: Option<Calculation>,
    /// The model's run, for model answerers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelRun>,
    /// How well the cited page supports the answer (set after answering, with the evidence).
    #[serde(default)]
    pub support: crate::support::Support,
    /// Why the support is not strong.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub support_reasons: Vec<String>,
    /// The id of the rule behind each reason, one for one ([`crate::judge::RULES`], or a
    /// verifier check's name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub support_rules: Vec<String>,
    /// The verifier's checks ([`crate::judge::form`]): name, passed (true, false, or null when it
    /// could not run) and detail. A failed one keeps the answer from being shown as supported.
    #[serde(default)]
    pub checks: Vec<crate::figures::rules::Check>,
    /// What a model answerer cited, until the ask phases locate it ([`crate::cite::locate`]
    /// sets `quote` and `citations` from it); never stored.
    #[serde(skip)]
    pub cited: Option<Cited>,
}

impl Answer {
    pub fn not_found(answerer: AnswererKind, ms: f64) -> Answer {
        Answer {
            answer: NOT_FOUND.into(),
            citations: Vec::new(),
            quote: None,
            not_found: true,
            found_by: FoundBy::None,
            answer_ms: ms,
            answerer,
            calculation: None,
            model: None,
            support: Default::default(),
            support_reasons: Vec::new(),
            support_rules: Vec::new(),
            checks: Vec::new(),
            cited: None,
        }
    }

    /// An answer resting on a line of one page: `quote` is located and boxed there.
    pub fn quoted(answerer: AnswererKind, answer: String, quote: String, page: PageRef, ms: f64) -> Answer {
        Answer { answer, citations: vec![page], quote: Some(quote), not_found: false, ..Answer::not_found(answerer, ms) }
    }

    /// The answer a computed result gives: the result and what it is, citing every operand's
    /// page, quoting the first operand's row.
    pub fn from_calculation(answerer: AnswererKind, c: Calculation, ms: f64) -> Answer {
        let mut citations: Vec<PageRef> = Vec::new();
        for o in &c.operands {
            if !citations.contains(&o.page) {
                citations.push(o.page.clone());
            }
        }
        let answer = match &c.verdict {
            // "No: operating margin 36.8% in FY2021, 34.6% in FY2022 (-2.2 points)" says what it is
            Some(_) => c.result.clone().unwrap_or_default(),
            // the period it is for, when its figures are all of one ("$16,525 million (total
            // current assets, FY2019)"): the year belongs in the answer
            None => {
                let mut periods: Vec<&str> = Vec::new();
                for p in c.operands.iter().map(|o| o.period.as_str()).filter(|p| !p.is_empty()) {
                    if !periods.contains(&p) {
                        periods.push(p);
                    }
                }
                match periods.as_slice() {
                    [p] if !c.metric.contains(p) => format!("{} ({}, {p})", c.result.clone().unwrap_or_default(), c.metric),
                    _ => format!("{} ({})", c.result.clone().unwrap_or_default(), c.metric),
                }
            }
        };
        Answer {
            answer,
            citations,
            quote: c.operands.first().map(|o| o.quote.clone()),
            not_found: false,
            found_by: FoundBy::Calculation,
            answer_ms: ms,
            answerer,
            calculation: Some(c),
            model: None,
            support: Default::default(),
            support_reasons: Vec::new(),
            support_rules: Vec::new(),
            checks: Vec::new(),
            cited: None,
        }
    }
}

/// Every answerer (extractive, Qwen, ...) implements this. Answerers run without the library:
/// they get the page texts and nothing else, so an ask never holds the library while a model
/// generates.
pub trait Answerer: Send + Sync {
    fn kind(&self) -> AnswererKind;
    /// What was loaded, for a front end to say once (`qwen2.5 (qwen2, 0.8 s to load, ...)`);
    /// `None` for answerers without a model.
    fn describe(&self) -> Option<String> {
        None
    }
    fn answer(&self, question: &Question, pages: &[PageInput]) -> Result<Answer>;
    /// Answer, handing the answer text to `on_text` as it is produced (a model answerer calls
    /// it per token; one that answers at once, once). The pieces concatenate to `answer`.
    /// `on_text` returns false to stop: the answerer then returns [`LensError::Cancelled`].
    fn answer_stream(&self, question: &Question, pages: &[PageInput], on_text: &mut dyn FnMut(&str) -> bool) -> Result<Answer> {
        let a = self.answer(question, pages)?;
        if !on_text(&a.answer) {
            return Err(LensError::Cancelled);
        }
        Ok(a)
    }
}

/// The built-in answerer of a kind. A model answerer needs its model loaded
/// (the `lens-llm` crate's `QwenAnswerer`): asking for one here says so.
pub fn builtin(kind: AnswererKind) -> Result<Box<dyn Answerer>> {
    match kind {
        AnswererKind::Extractive => Ok(Box::new(Extractive::default())),
        AnswererKind::Qwen => Err(LensError::ModelMissing {
            what: "a Qwen model".into(),
            dir: crate::paths::default_models_dir(),
            hint: "the qwen answerer loads a model (a Qwen .gguf file or model folder): see docs/models.md".into(),
        }),
    }
}

/// The extractive answerer.
#[derive(Debug, Clone)]
pub struct Extractive {
    /// Minimum share of the question's (weighted) terms a line must cover.
    pub min_coverage: f64,
    pub lexicon: crate::lexicon::Lexicon,
}

impl Default for Extractive {
    fn default() -> Self {
        Extractive { min_coverage: 0.34, lexicon: crate::lexicon::Lexicon::builtin() }
    }
}

fn stems_of(s: &str) -> Vec<String> {
    stem_all(&tokenize(s).into_iter().map(|t| t.text).filter(|w| !is_stop_word(w)).collect::<Vec<_>>())
}

const NEGATIONS: &[&str] = &["not", "no", "never", "none", "neither", "nor", "without", "didn't", "doesn't", "isn't", "wasn't"];

fn stem_all(words: &[String]) -> Vec<String> {
    use tantivy::tokenizer::{Language, Stemmer, TextAnalyzer, WhitespaceTokenizer};
    let mut a = TextAnalyzer::builder(WhitespaceTokenizer::default()).filter(Stemmer::new(Language::English)).build();
    words
        .iter()
        .map(|w| {
            let mut ts = a.token_stream(w);
            ts.next().map(|t| t.text.clone()).unwrap_or_else(|| w.clone())
        })
        .collect()
}

use crate::causes::{has_cue, CUES};

/// The sentence before unit `i` on its page (table rows and short lines passed over).
fn previous_sentence<T>(all: &[(usize, String, T)], i: usize) -> Option<usize> {
    (0..i)
        .rev()
        .take_while(|&j| all[j].0 == all[i].0)
        .find(|&j| !crate::support::is_table_row(&all[j].1) && all[j].1.split_whitespace().count() >= 6 && all[j].1 != all[i].1)
}

/// The non-empty lines of `page` after the line that `unit`, a line ending in ':', ends on;
/// `None` when `unit` ends otherwise or is not found on the page.
fn lines_introduced<'a>(page: &'a str, unit: &str) -> Option<Vec<&'a str>> {
    if !unit.trim_end().ends_with(':') {
        return None;
    }
    let lines: Vec<&str> = page.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let tail = unit.split_whitespace().rev().take(6).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(" ");
    let at = lines.iter().position(|l| l.split_whitespace().collect::<Vec<_>>().join(" ").ends_with(&tail))?;
    Some(lines[at + 1..].to_vec())
}

/// The figure a "respectively" sentence gives for `year`: its years and its amounts (a dollar
/// or percent figure, or one with its scale word) paired in the order printed ("Rent expense for
/// 2015, 2014 and 2013 was $47 million, $59 million and $64 million, respectively." gives
/// "$59 million" for 2014); `None` unless the sentence says "respectively" and prints as many
/// amounts as years, two or more, the year among them.
pub fn respectively_for(sentence: &str, year: i32) -> Option<String> {
    static YEAR: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| regex::Regex::new(r"\b(?:19|20)\d{2}\b").expect("valid regex"));
    static AMOUNT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)(?:\$\s?\(?\d[\d,]*(?:\.\d+)?\)?(?:\s+(?:million|billion|thousand))?|\b\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b)|\b\d[\d,]*(?:\.\d+)?\s+(?:million|billion|thousand)\b)")
            .expect("valid regex")
    });
    let lower = sentence.to_lowercase();
    let at = lower.find("respectively")?;
    let head = &sentence[..at];
    // the years as a run ("2015, 2014 and 2013"), each once; the amounts, years left out
    let mut years: Vec<i32> = Vec::new();
    for m in YEAR.find_iter(head) {
        let y: i32 = m.as_str().parse().ok()?;
        if !years.contains(&y) {
            years.push(y);
        }
    }
    let amounts: Vec<&str> = AMOUNT.find_iter(head).map(|m| m.as_str().trim()).filter(|a| !YEAR.is_match(a) || a.starts_with('$')).collect();
    if years.len() < 2 || amounts.len() != years.len() {
        return None;
    }
    let i = years.iter().position(|y| *y == year)?;
    Some(amounts[i].split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The rows a line ending in ':' introduces that name a year the question asks about (at
/// most three, within the 12 lines after it), and the column-head line above them.
fn rows_introduced(q: &Question, page: &str, unit: &str) -> Option<(Option<String>, Vec<String>)> {
    if q.years.is_empty() {
        return None;
    }
    let lines = lines_introduced(page, unit)?;
    let after = &lines[..lines.len().min(12)];
    let in_intro: Vec<i32> = crate::filter::question_years(unit);
    let wanted: Vec<String> = q.years.iter().filter(|y| !in_intro.contains(y)).map(|y| y.to_string()).collect();
    let rows: Vec<String> = after
        .iter()
        .filter(|l| crate::support::is_table_row(l) && wanted.iter().any(|y| l.split_whitespace().next() == Some(y.as_str())))
        .take(3)
        .map(|l| l.to_string())
        .collect();
    if rows.is_empty() {
        return None;
    }
    // the column heads: the nearest line above the first row with words and no figures
    let first = after.iter().position(|l| *l == rows[0])?;
    let head = after[..first].iter().rev().find(|l| l.chars().any(char::is_alphabetic) && !l.chars().any(|c| c.is_ascii_digit())).map(|l| l.to_string());
    Some((head, rows))
}

/// Characters that start a bullet line.
const BULLETS: &[char] = &['•', '◦', '▪', '●', '○', '–', '-', '*'];

/// The bullet lines a line ending in ':' introduces ("... driven by:" then "• Currency impacts"),
/// with the short joining lines between them ("partially offset by"), as written without their
/// bullet marks; `None` when no bullet follows.
fn bullets_introduced(page: &str, unit: &str) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for l in lines_introduced(page, unit)? {
        if let Some(rest) = l.strip_prefix(BULLETS).map(str::trim).filter(|r| !r.is_empty()) {
            out.push(rest.to_string());
        } else if !out.is_empty() && is_joining_line(l) {
            out.push(l.to_string());
        } else {
            break;
        }
        if out.len() >= 12 {
            break;
        }
    }
    while out.last().is_some_and(|l| is_joining_line(l)) {
        out.pop();
    }
    (!out.is_empty()).then_some(out)
}

/// A short lower-case line between bullets: "partially offset by", "and".
fn is_joining_line(l: &str) -> bool {
    l.starts_with(char::is_lowercase) && l.split_whitespace().count() <= 4
}

/// Bullets as one line: "A; B; partially offset by C" (a joining line leads the next bullet).
fn join_bullets(items: &[String]) -> String {
    let mut out = String::new();
    let mut joined = false;
    for it in items {
        let connector = is_joining_line(it);
        if !out.is_empty() && !joined {
            out.push_str("; ");
        } else if joined {
            out.push(' ');
        }
        out.push_str(it);
        joined = connector;
    }
    out
}

/// `unit` with the sentence before it when that sentence holds question words `unit` lacks.
fn with_subject(q: &Question, page: &str, unit: &str) -> String {
    let all: Vec<(usize, String, ())> = units(page).into_iter().map(|u| (0, u, ())).collect();
    let Some(i) = all.iter().position(|(_, u, _)| u == unit) else { return unit.to_string() };
    let Some(j) = previous_sentence(&all, i) else { return unit.to_string() };
    let stems = |s: &str| -> HashSet<String> { stems_of(s).into_iter().collect() };
    let (own, prev) = (stems(unit), stems(&all[j].1));
    let adds = stems_of(&q.text).iter().any(|w| prev.contains(w) && !own.contains(w) && !q.companies.iter().any(|c| c.contains(w.as_str())));
    if adds && all[j].1.len() + unit.len() < 700 {
        format!("{} {}", all[j].1, unit)
    } else {
        unit.to_string()
    }
}

/// How well a unit fits a narrative answer: a sentence with a cue phrase gains, a heading, a
/// label or a table row loses.
fn sentence_fit(u: &str) -> f64 {
    let l = u.to_lowercase();
    let cue = if CUES.iter().any(|c| l.contains(c)) { 0.15 } else { 0.0 };
    let words = u.split_whitespace().count();
    let not_sentence = if crate::support::is_label(u) || crate::support::is_table_row(u) || words < 6 { 0.25 } else { 0.0 };
    cue - not_sentence
}

pub use crate::text::units;

impl Extractive {
    /// Score every unit of every page; best first: (score, coverage, page index, unit).
    pub fn rank_units(&self, q: &Question, pages: &[PageInput]) -> Vec<(f64, f64, usize, String)> {
        let question = q.expanded.as_str();
        let q_words: Vec<String> = tokenize(question).into_iter().map(|t| t.text).filter(|w| !is_stop_word(w)).collect();
        let q_stems: Vec<String> = {
            let mut v = stem_all(&q_words);
            let mut seen = HashSet::new();
            v.retain(|s| seen.insert(s.clone()));
            v
        };
        if q_stems.is_empty() {
            return Vec::new();
        }
        let wants_number = matches!(q.asks, ValueType::Number) || matches!(q.operation, Operation::Compare | Operation::Judgement);
        // a narrative wants a sentence that explains, not a heading, a column header or a row
        let wants_sentence = q.operation == Operation::Narrative && q.asks == ValueType::Sentence;
        // unit-level document frequency for IDF
        let mut all: Vec<(usize, String, HashSet<String>)> = Vec::new();
        for (pi, p) in pages.iter().enumerate() {
            for u in units(&p.text) {
                let words: Vec<String> = tokenize(&u).into_iter().map(|t| t.text).collect();
                let stems: HashSet<String> = stem_all(&words).into_iter().collect();
                all.push((pi, u, stems));
            }
        }
        let n = all.len().max(1) as f64;
        let mut df: HashMap<&str, usize> = HashMap::new();
        for (_, _, s) in &all {
            for q in &q_stems {
                if s.contains(q) {
                    *df.entry(q.as_str()).or_default() += 1;
                }
            }
        }
        // terms no unit contains (vocabulary the pages do not use) weigh little
        let weight = |q: &str| match df.get(q) {
            Some(&d) if d > 0 => (1.0 + n / (1.0 + d as f64)).ln(),
            _ => std::f64::consts::LN_2,
        };
        let expansion = self.lexicon.expand(question);
        let line_items: Vec<Vec<String>> = expansion.line_items.iter().map(|l| stems_of(l)).filter(|v| !v.is_empty()).collect();
        let headings: Vec<Vec<String>> = expansion.headings.iter().map(|l| stems_of(l)).filter(|v| !v.is_empty()).collect();
        let total: f64 = q_stems.iter().map(|q| weight(q)).sum();
        // a narrative's explaining sentence often leaves its subject to the sentence before
        // ("Merchandise inventories totaled $1.6 billion ... The $104.2 million increase was
        // primarily due to ..."): that sentence's words count at half weight
        let context: Vec<f64> = (0..all.len())
            .map(|i| {
                if !wants_sentence || !has_cue(&all[i].1) {
                    return 0.0;
                }
                let Some(j) = previous_sentence(&all, i) else { return 0.0 };
                let own: f64 = q_stems.iter().filter(|q| all[i].2.contains(*q)).map(|q| weight(q)).sum();
                let both: f64 = q_stems.iter().filter(|q| all[i].2.contains(*q) || all[j].2.contains(*q)).map(|q| weight(q)).sum();
                0.5 * (both - own) / total
            })
            .collect();
        let mut scored: Vec<(f64, f64, usize, String)> = all
            .into_iter()
            .enumerate()
            .map(|(ui, (pi, u, stems))| {
                let covered: f64 = q_stems.iter().filter(|q| stems.contains(*q)).map(|q| weight(q)).sum::<f64>() + context[ui] * total;
                // a line item the question's metric maps to counts as covering half the question
                let item_bonus = if line_items.iter().any(|li| li.iter().all(|w| stems.contains(w))) { 0.5 } else { 0.0 };
                let coverage = covered / total + item_bonus;
                let heading_bonus = {
                    let h = pages[pi].heading.to_lowercase();
                    let hs: HashSet<String> = stems_of(&h).into_iter().collect();
                    q_stems.iter().filter(|q| hs.contains(*q)).count() as f64 * 0.03
                        + if headings.iter().any(|hd| hd.iter().all(|w| hs.contains(w))) { 0.1 } else { 0.0 }
                };
                let has_num = crate::evidence::numbers(&u).iter().any(|(n, _, _)| n.salient);
                let num_bonus = if wants_number && has_num { 0.12 } else { 0.0 };
                let len_pen = (u.len() as f64 / 400.0).min(0.3);
                let rank_prior = 0.04 / (1.0 + pi as f64);
                let shape = if wants_sentence { sentence_fit(&u) } else { 0.0 };
                let boiler = if crate::support::is_boilerplate(&u) { 0.3 } else { 0.0 };
                (coverage + heading_bonus + num_bonus + rank_prior + shape - len_pen - boiler, coverage, pi, u)
            })
            .collect();
        scored.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        scored
    }
}

impl Answerer for Extractive {
    fn kind(&self) -> AnswererKind {
        AnswererKind::Extractive
    }

    fn answer(&self, question: &Question, pages: &[PageInput]) -> Result<Answer> {
        let a = self.answer_from(question, pages)?;
        // more pages read never lose an answer found with fewer: words the extra pages share
        // weigh less, so the best line of the first pages can fall under the coverage asked;
        // then the first pages alone answer, down to the default three
        if a.not_found {
            for n in (MIN_PAGES_KEPT..pages.len()).rev() {
                let b = self.answer_from(question, &pages[..n])?;
                if !b.not_found {
                    return Ok(b);
                }
            }
        }
        Ok(a)
    }
}

/// Sentences of a list answer's quote, at most (each boxed).
const LIST_QUOTE_UNITS: usize = 5;

/// A list question's answer ([`crate::lists`]): the items of the kind asked from the page read
/// that names most of them, the sentences they come from as the quote, in pieces.
fn list_answer(question: &Question, pages: &[PageInput]) -> Option<Answer> {
    let kind = crate::lists::list_kind(question)?;
    let texts: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
    let (pi, items) = crate::lists::best_page(kind, &texts, &question.years)?;
    let mut quote_units: Vec<&str> = Vec::new();
    for (_, u) in &items {
        if !quote_units.contains(&u.as_str()) && quote_units.len() < LIST_QUOTE_UNITS {
            quote_units.push(u);
        }
    }
    // items whose sentence is past the quote's last are left out: every item shown is boxed
    let shown: Vec<&str> = items.iter().filter(|(_, u)| quote_units.contains(&u.as_str())).map(|(i, _)| i.as_str()).collect();
    Some(Answer::quoted(AnswererKind::Extractive, shown.join("; "), quote_units.join(crate::evidence::QUOTE_GAP), pages[pi].page_ref(), 0.0))
}

/// A question asking why a measure changed ([`crate::causes`]): the sentence that says why the
/// company's measure changed (with the sentence before it when that holds its subject), and
/// the bullets it introduces ("... due to:"), each boxed.
fn cause_answer(question: &Question, pages: &[PageInput]) -> Option<Answer> {
    let asked = crate::causes::asked(question)?;
    let texts: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
    let c = crate::causes::read(&asked, &texts)?;
    let mut answer = c.answer.clone();
    let mut quote = c.quote.clone();
    if let Some(bullets) = c.quote.last().and_then(|u| bullets_introduced(&pages[c.page].text, u)) {
        answer = format!("{} {}", answer.trim_end(), join_bullets(&bullets));
        quote.extend(bullets);
    }
    Some(Answer::quoted(AnswererKind::Extractive, answer, quote.join(crate::evidence::QUOTE_GAP), pages[c.page].page_ref(), 0.0))
}

/// A "who is the CEO" question's answer ([`crate::officers`]): the name a signature block or the
/// executive officers' table prints for the office, with the position as printed; the lines
/// that say so are the quote.
fn officer_answer(question: &Question, pages: &[PageInput]) -> Option<Answer> {
    let office = crate::officers::office_asked(&question.text)?;
    let texts: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
    let h = crate::officers::holder(office, &texts)?;
    let quote = h.quote.join(crate::evidence::QUOTE_GAP);
    Some(Answer::quoted(AnswererKind::Extractive, format!("{} ({})", h.name, h.position), quote, pages[h.page].page_ref(), 0.0))
}

/// A question asking a fact of the filer ([`crate::cover`]): its headquarters or state of
/// incorporation as the cover page prints them, or the firm signing the auditor's report; the
/// lines that say so are the quote.
fn cover_answer(question: &Question, pages: &[PageInput]) -> Option<Answer> {
    let asked = crate::cover::asked(&question.text)?;
    let texts: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
    let r = crate::cover::read(asked, &texts)?;
    Some(Answer::quoted(AnswererKind::Extractive, r.answer, r.quote.join(crate::evidence::QUOTE_GAP), pages[r.page].page_ref(), 0.0))
}

/// A "how many <things>" question ([`crate::counts`]): the count with its noun from the sentence
/// that counts the things asked, the sentence quoted.
fn count_answer(question: &Question, pages: &[PageInput]) -> Option<Answer> {
    let asked = crate::counts::asked(question)?;
    let texts: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
    let r = crate::counts::read(&asked, question, &texts)?;
    Some(Answer::quoted(AnswererKind::Extractive, r.answer, r.quote, pages[r.page].page_ref(), 0.0))
}

/// A figure of a schedule by year ([`crate::schedules`]): its total, or the line of the year
/// asked, the schedule quoted in pieces.
fn schedule_answer(question: &Question, pages: &[PageInput]) -> Option<Answer> {
    let texts: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
    let r = crate::schedules::answer(question, &texts)?;
    Some(Answer::quoted(AnswererKind::Extractive, r.answer, r.quote, pages[r.page].page_ref(), 0.0))
}

/// What stating the thing as a fact adds to a sentence's rank (tuned on half a's companies).
const STATED: f64 = 0.3;

impl Extractive {
    /// A narrative yes/no about a thing the filing names ([`crate::stance`]): yes or no and the
    /// best-ranked sentence that names it (not a heading, a row or a pointer elsewhere), from
    /// the units [`Self::rank_units`] ranked.
    fn stance_answer(&self, question: &Question, pages: &[PageInput], ranked: &[(f64, f64, usize, String)]) -> Option<Answer> {
        if !question.asks_yes_no() || question.operation != Operation::Narrative {
            return None;
        }
        let says = crate::rank::topics().says_for(&question.text);
        if says.is_empty() {
            return None;
        }
        // the sentences that name the thing, by rank; one stating it as a fact gains
        // the first of the best, as ranked
        let (_, word, pi, u) = ranked
            .iter()
            .filter(|(_, _, _, u)| {
                crate::stance::is_prose(u) && !crate::support::is_label(u) && !crate::support::is_table_row(u) && !crate::support::is_boilerplate(u)
            })
            .filter_map(|(score, _, pi, u)| {
                let word = crate::stance::stance(u, &says)?;
                Some((score + if crate::stance::states(u) { STATED } else { 0.0 }, word, *pi, u))
            })
            .min_by(|a, b| b.0.total_cmp(&a.0))?;
        Some(Answer::quoted(self.kind(), format!("{word} — {u}"), u.clone(), pages[pi].page_ref(), 0.0))
    }
}

/// The fewest pages read whose answer more pages never lose ([`Extractive`]'s `answer`, the
/// calculator in `ask`): the default number of pages read.
pub const MIN_PAGES_KEPT: usize = 3;

impl Extractive {
    /// The answer the filing's own lines give a question a reader checks item by item: a list
    /// of the items of the kind asked ("which acquisitions", "what segments"), a count ("how
    /// many warehouses"), or "Yes — / No
    /// — " with the sentence that says so; `None` for any other question. A model answerer is
    /// given these in its place, as the calculator answers for a figure ([`crate::ask`]).
    pub fn structured(&self, question: &Question, pages: &[PageInput]) -> Option<Answer> {
        if question.text.trim().is_empty() {
            return None;
        }
        officer_answer(question, pages)
            .or_else(|| cover_answer(question, pages))
            .or_else(|| count_answer(question, pages))
            .or_else(|| schedule_answer(question, pages))
            .or_else(|| list_answer(question, pages))
            .or_else(|| cause_answer(question, pages))
            .or_else(|| self.stance_answer(question, pages, &self.rank_units(question, pages)))
    }

    /// The answer from the best line of `pages`, or "Not found".
    fn answer_from(&self, question: &Question, pages: &[PageInput]) -> Result<Answer> {
        let t0 = Instant::now();
        if question.text.trim().is_empty() {
            return Err(LensError::BadInput("the question is empty".into()));
        }
        let ms = || t0.elapsed().as_secs_f64() * 1000.0;
        if let Some(a) = officer_answer(question, pages)
            .or_else(|| cover_answer(question, pages))
            .or_else(|| count_answer(question, pages))
            .or_else(|| schedule_answer(question, pages))
            .or_else(|| list_answer(question, pages))
            .or_else(|| cause_answer(question, pages))
        {
            return Ok(Answer { answer_ms: ms(), ..a });
        }
        let ranked = self.rank_units(question, pages);
        if let Some(a) = self.stance_answer(question, pages, &ranked) {
            return Ok(Answer { answer_ms: ms(), ..a });
        }
        let Some((_, coverage, pi, unit)) = ranked.into_iter().next() else {
            return Ok(Answer::not_found(self.kind(), ms()));
        };
        if coverage < self.min_coverage {
            return Ok(Answer::not_found(self.kind(), ms()));
        }
        // a narrative answered by an explaining sentence that leaves its subject to the sentence
        // before: both sentences are the answer (and the quote)
        let unit = match question.operation == Operation::Narrative && question.asks == ValueType::Sentence && has_cue(&unit) {
            true => with_subject(question, &pages[pi].text, &unit),
            false => unit,
        };
        let mut answer = unit.clone();
        if question.asks_yes_no() && coverage >= 0.6 {
            let words: Vec<String> = tokenize(&unit).into_iter().map(|t| t.text).collect();
            let negated = words.iter().any(|w| NEGATIONS.contains(&w.as_str()));
            answer = format!("{} — {}", if negated { "No" } else { "Yes" }, unit);
        }
        // a figure of one year asked, and a sentence that gives several years' "respectively":
        // the year's figure first, the sentence after it
        if question.asks == ValueType::Number && !question.asks_yes_no() && question.years.len() == 1 {
            if let Some(v) = respectively_for(&unit, question.years[0]) {
                answer = format!("{v} in {} — {unit}", question.years[0]);
            }
        }
        let p = &pages[pi];
        // a narrative's line that introduces bullets ("... driven by:"): the bullets are the
        // answer, each boxed
        if question.operation == Operation::Narrative {
            if let Some(bullets) = bullets_introduced(&p.text, &unit) {
                let answer = format!("{} {}", unit.trim_end(), join_bullets(&bullets));
                let quote = std::iter::once(unit.as_str()).chain(bullets.iter().map(String::as_str)).collect::<Vec<_>>().join(crate::evidence::QUOTE_GAP);
                return Ok(Answer::quoted(self.kind(), answer, quote, p.page_ref(), ms()));
            }
        }
        // a line that introduces a table ("... are expected to be paid as follows:"): the answer is
        // the row below it for the period asked, given with the table's column heads
        let (answer, unit) = match rows_introduced(question, &p.text, &unit) {
            Some((head, rows)) => (format!("{}{}", head.map(|h| format!("{h} — ")).unwrap_or_default(), rows.join("; ")), rows[0].clone()),
            None => (answer, unit),
        };
        Ok(Answer::quoted(self.kind(), answer, unit, p.page_ref(), ms()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn pages() -> Vec<PageInput> {
        label_pages(vec![
            ("A".into(), 3, "Overview".into(), "We sell adhesives and tapes in many markets.\nOur people are our strength.".into()),
            (
                "A".into(),
                60,
                "Consolidated Statement of Cash Flows".into(),
                "Cash Flows from Investing Activities\nPurchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)\nProceeds from sale of PP&E 262 49 58\n".into(),
            ),
        ])
    }
    #[test]
    fn labels_and_citation_mapping() {
        let p = pages();
        assert_eq!(p[1].header(), "P2 (A, page 60)");
        assert_eq!(map_citations(&["[p2]".into(), "P9".into(), "P2".into()], &p), vec![PageRef::new("A", 60)]);
    }
    #[test]
    fn a_respectively_sentence_gives_the_year_asked() {
        let s = "Rent expense for 2015, 2014 and 2013 was $47 million, $59 million and $64 million, respectively.";
        assert_eq!(respectively_for(s, 2014).as_deref(), Some("$59 million"));
        assert_eq!(respectively_for(s, 2012), None);
        let s = "Research and development expense included bid and proposal costs of $234 , $288 and $311 in 2018 , 2017 and 2016 , respectively.";
        assert_eq!(respectively_for(s, 2016).as_deref(), Some("$311"));
        let s = "Total  amortization  expense  was  $194  million,  $192  million  and  $176  million  for  2020,  2019,  and  2018,  respectively.";
        assert_eq!(respectively_for(s, 2019).as_deref(), Some("$192 million"));
        let s = "Gross margin was 11.2% and 11.0% in fiscal 2021 and 2020, respectively.";
        assert_eq!(respectively_for(s, 2020).as_deref(), Some("11.0%"));
        // as many amounts as years, or nothing
        assert_eq!(respectively_for("In 2022 and 2021 we paid $5 million, $6 million and $7 million, respectively.", 2021), None);
        assert_eq!(respectively_for("Rent expense was $47 million in 2015 and $59 million in 2014.", 2014), None);
        let a = Extractive::default()
            .answer(
                &Question::parse("What was AMD's rent expense in 2014?"),
                &label_pages(vec![(
                    "A".into(),
                    87,
                    "Leases".into(),
                    "Leases\nRent expense for 2015, 2014 and 2013 was $47 million, $59 million and $64 million, respectively.\n".into(),
                )]),
            )
            .unwrap();
        assert!(a.answer.starts_with("$59 million in 2014 — Rent expense for 2015"), "{}", a.answer);
    }
    #[test]
    fn picks_the_table_row() {
        let a = Extractive::default()
            .answer(&Question::parse("What were purchases of property, plant and equipment in the cash flow statement?"), &pages())
            .unwrap();
        assert!(!a.not_found);
        assert!(a.answer.starts_with("Purchases of property"), "{}", a.answer);
        assert_eq!(a.citations, vec![PageRef::new("A", 60)]);
    }
    #[test]
    fn refuses_when_unsupported() {
        let a = Extractive::default().answer(&Question::parse("Who is the chief executive officer of Boeing?"), &pages()).unwrap();
        assert!(a.not_found);
        assert_eq!(a.answer, NOT_FOUND);
        assert!(a.citations.is_empty());
    }

    #[test]
    fn a_line_introducing_bullets_is_answered_by_the_bullets() {
        let page = "Cost of products sold increased as a percent to sales driven by:\n• One-time vaccine exit costs\n• Currency impacts\npartially offset by\n• Supply chain benefits\nThe amortization expense was $4.3 billion.";
        let b = bullets_introduced(page, "Cost of products sold increased as a percent to sales driven by:").unwrap();
        assert_eq!(b, vec!["One-time vaccine exit costs", "Currency impacts", "partially offset by", "Supply chain benefits"]);
        assert_eq!(join_bullets(&b), "One-time vaccine exit costs; Currency impacts; partially offset by Supply chain benefits");
        assert!(bullets_introduced(page, "The amortization expense was $4.3 billion.").is_none());
        assert!(bullets_introduced("Revenue was driven by:\nHigher volumes in all regions.", "Revenue was driven by:").is_none(), "no bullet follows");
    }

    #[test]
    fn a_line_introducing_a_table_is_answered_by_the_row_for_the_year_asked() {
        let page = "Other matters\nThe benefit payments to retirees are expected to be paid as follows:\n(dollars in millions)\nYear Pension Benefits Health Care and Life\n2022 $ 2,049 $ 906\n2023 1,648 883\n2024 1,097 862\n2025 1,066 850";
        let pages = label_pages(vec![("V".into(), 94, String::new(), page.into())]);
        let q = Question::parse("As of FY 2021, how much did Verizon expect to pay for its retirees in 2024?");
        let a = Extractive::default().answer(&q, &pages).unwrap();
        assert_eq!(a.answer, "Year Pension Benefits Health Care and Life — 2024 1,097 862");
        assert_eq!(a.quote.as_deref(), Some("2024 1,097 862"), "the quote is the row, boxed on the page");
        // no year asked: the introducing line stays the answer (and support calls it a lead-in)
        let q = Question::parse("How are the benefit payments to retirees expected to be paid?");
        let a = Extractive::default().answer(&q, &pages).unwrap();
        assert!(a.answer.ends_with("as follows:"), "{}", a.answer);
    }
}
