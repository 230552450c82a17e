//! The question, read once into its shape: the periods it names, the measure (a line item or
//! metric, short forms written out), the operation (a value, a change, a comparison, a ranking,
//! a judgement, a ratio or a narrative), the form of the answer asked for and its content words.
//!
//! Every stage that used to read the question text with its own rules (the calculator's plan,
//! support, the extractive answerer, the model's prompt) reads a [`Question`] instead. It is
//! pure: the companies come from the document filter ([`Question::with_companies`]), and the
//! measure from the metric catalogue the caller passes in. `lens ask --json` carries it as
//! `question`, and the UI shows [`Question::reading`] under the question, so a wrong reading is
//! seen.

use crate::figures::catalogue::{has_words, norm, Catalogue};
use crate::text::{is_stop_word, tokenize};
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::LazyLock;

named_enum!(
    /// What the question asks to be done.
    pub enum Operation("operation") {
        /// One figure in one period ("What is FY2018 capex?").
        Value = "value",
        /// The change between two periods ("How much has the effective tax rate changed ...?").
        Change = "change",
        /// A yes/no about a direction ("Does Adobe have an improving operating margin?").
        Compare = "compare",
        /// The largest or smallest row of a table column ("Which segment had the highest ...?").
        Rank = "rank",
        /// A yes/no from a metric and a stated rule ("Is 3M capital-intensive?").
        Judgement = "judgement",
        /// A ratio, margin, rate or turnover in one period.
        Ratio = "ratio",
        /// Sentences from the page ("What drove ...?", "Who are the primary customers?").
        Narrative = "narrative",
    }
);

named_enum!(
    /// The type of value a right answer has.
    pub enum ValueType("value type") {
        Number = "number",
        /// A name: a row, a segment, a region ("Which region ...?").
        Name = "name",
        YesNo = "yes/no",
        /// One of the directions the question offers ("improved or declined?").
        Choice = "choice",
        Sentence = "sentence",
    }
);

named_enum!(
    /// The direction a comparison asks about.
    pub enum Direction("direction") {
        Up = "up",
        Down = "down",
        /// "any change", "improved or declined": either way, the answer says which.
        Either = "either",
    }
);

named_enum!(
    /// Which end of a ranking.
    pub enum Extreme("extreme") {
        Largest = "largest",
        Smallest = "smallest",
    }
);

/// The form of the answer asked for.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Form {
    pub percent: bool,
    /// A change of a rate, in percentage points.
    pub points: bool,
    pub decimals: Option<u32>,
    /// "million", "billion", "thousand" ("in USD millions").
    pub scale: Option<String>,
}

/// A question, read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// As asked.
    pub text: String,
    /// With short forms followed by their long forms ("net PPNE" -> "net PPNE (property, plant
    /// and equipment, net)"); what retrieval and the calculator read.
    pub expanded: String,
    /// Fiscal years named, as written (FY2018, 2019-2021 ...).
    pub years: Vec<i32>,
    pub quarters: Vec<u8>,
    /// Halves ("H1 FY2023", "first half"): 1 or 2.
    pub halves: Vec<u8>,
    /// An "as of" date as written ("May 26, 2023").
    pub as_of: Option<String>,
    /// Companies the document filter found named (filled in after filtering).
    pub companies: Vec<String>,
    /// The measure: a catalogue metric or line item id when one is named, else the phrase.
    pub measure: Option<String>,
    /// The measure as said ("operating margin").
    pub measure_name: Option<String>,
    pub operation: Operation,
    pub asks: ValueType,
    pub direction: Option<Direction>,
    pub extreme: Option<Extreme>,
    /// For a ranking: what is ranked, by what, over which kind of row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranking: Option<Ranking>,
    /// The judgement rule named ("capital_intensive"), for [`Operation::Judgement`].
    pub rule: Option<String>,
    pub form: Form,
    /// Content words: lower case, no stop words, no numbers.
    pub terms: Vec<String>,
    /// The short forms written out ("PPNE -> property, plant and equipment, net").
    pub short_forms: Vec<String>,
    /// [`Question::reading`], kept for the UI.
    pub reading: String,
    /// Its words as the judging rules read them ([`Question::wording`]), read once.
    #[serde(skip)]
    pub wording: WordingCell,
}

/// A question's [`Wording`], read from its text the first time a rule asks. Two cells are
/// always equal: the wording follows from the text, which the question compares.
#[derive(Debug, Clone, Default)]
pub struct WordingCell(std::sync::OnceLock<Wording>);

impl PartialEq for WordingCell {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// A question's words as the judging rules read them ([`crate::judge`]), read once when it is
/// parsed: no rule reads the question's text itself.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Wording {
    /// The text in lower case, a typographic apostrophe as a plain one.
    pub lower: String,
    /// The text as the catalogue compares names ([`norm`]: lower case, apostrophes plain, one
    /// space between words).
    pub norm: String,
    /// Its words in order: letters, digits and hyphens.
    pub words: Vec<String>,
    /// The terms of art it writes with capitals ([`terms_of_art`]: "RevPAR", "ARR").
    pub terms_of_art: Vec<String>,
}

impl Wording {
    pub fn read(text: &str) -> Wording {
        let lower = text.to_lowercase().replace('’', "'");
        Wording { words: hyphened_words(&lower), terms_of_art: terms_of_art(text), norm: norm(text), lower }
    }
}

/// A text's words as the judging rules compare them: runs of letters, digits and hyphens
/// ("stock-based" stays one word), as written (no case change).
pub fn hyphened_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '-').filter(|w| !w.is_empty()).map(str::to_string).collect()
}

/// The terms of art a question writes with capitals inside or throughout ("RevPAR", "ARR",
/// "EBITDAR"), three letters or more, not units or periods ("USD", "FY").
pub fn terms_of_art(question: &str) -> Vec<String> {
    const COMMON: [&str; 8] = ["USD", "GAAP", "FY", "YOY", "US", "USA", "EUR", "GBP"];
    let mut out: Vec<String> = Vec::new();
    for w in question.split(|c: char| !c.is_alphanumeric() && c != '&') {
        let w = w.trim_end_matches("s").trim_end_matches('\'');
        let upper = w.chars().filter(|c| c.is_ascii_uppercase()).count();
        if w.len() >= 3 && w.chars().all(|c| c.is_ascii_alphabetic()) && upper >= 2 && !COMMON.contains(&w) && !out.iter().any(|o| o == w) {
            out.push(w.to_string());
        }
    }
    out
}

/// How a ranking question ranks ("Which region had the worst topline performance?").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Ranking {
    /// What is ranked: the words after "highest", "largest" ... (words of change left out),
    /// else the measure's words ("topline", "revenue").
    pub by: Vec<String>,
    /// By the change from the year before ("performance", "growth", "the biggest drop").
    pub change: bool,
    /// The kinds of row asked for, as label stems ("region", "segment").
    pub kinds: Vec<String>,
    /// The content words that name what to look in, without the words of ranking and the
    /// companies ("liability", "balance", "sheet").
    pub terms: Vec<String>,
}

/// Words of a ranking question that say how to rank, not what: they are not matched to tables.
const RANK_WORDS: &[&str] = &[
    "which",
    "what",
    "highest",
    "largest",
    "biggest",
    "most",
    "greatest",
    "top",
    "best",
    "maximum",
    "lowest",
    "smallest",
    "least",
    "worst",
    "minimum",
    "had",
    "received",
    "among",
    "type",
    "during",
    "year",
    "fiscal",
    "quarter",
    "half",
    "company",
    "company's",
    "segment",
    "segments",
    "business",
    "region",
];

/// Words of a ranking by change ("the worst topline performance", "the biggest drop").
const RANK_CHANGE_WORDS: &[&str] =
    &["performance", "growth", "grew", "growing", "fastest", "slowest", "drop", "decline", "increase", "decrease", "change", "improvement"];

/// Kinds of rows a ranking asks for, as label stems ("which region" - "Regional Operations").
const RANK_KINDS: &[&str] = &["region", "segment", "geograph", "countr", "market", "brand", "product", "division", "categor"];

/// The words a ranking ranks by: those after "highest", "largest", ... up to a preposition
/// ("the highest net income in 2022" -> "net", "income"), stop words left out.
fn ranked_words(text: &str) -> Vec<String> {
    const EXTREMES: &[&str] =
        &["highest", "largest", "biggest", "most", "greatest", "maximum", "lowest", "smallest", "least", "worst", "minimum", "fastest", "slowest"];
    const ENDS: &[&str] = &["or", "in", "for", "during", "among", "of", "as", "at", "by", "from", "between", "on", "within"];
    let words: Vec<String> = text.to_lowercase().split(|c: char| !c.is_alphanumeric() && c != '&').filter(|w| !w.is_empty()).map(str::to_string).collect();
    let Some(at) = words.iter().position(|w| EXTREMES.contains(&w.as_str())) else { return Vec::new() };
    words[at + 1..].iter().take_while(|w| !ENDS.contains(&w.as_str())).filter(|w| w.len() > 2 && !is_stop_word(w)).cloned().collect()
}

/// The kind of member a question asks a figure of each of ("net sales by segment", "revenue
/// for each region", "each of its segments' operating income"): the kind's stem, as
/// [`RANK_KINDS`] has it.
pub fn per_member(text: &str) -> Option<&'static str> {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)\b(?:by|each|per|every|all)\s+(?:of\s+(?:its|their|the|[a-z&.'’-]+'s?)\s+)?(?:(?:business|operating|reportable|geographic|product)\s+)?([a-z]+)")
            .expect("per-member pattern")
    });
    RE.captures_iter(text).find_map(|c| {
        let w = c.get(1)?.as_str().to_lowercase();
        RANK_KINDS.iter().copied().find(|k| w.starts_with(k))
    })
}

impl Ranking {
    fn read(expanded: &str, measure_name: Option<&str>, terms: &[String]) -> Ranking {
        let lower = expanded.to_lowercase();
        let mut by: Vec<String> = ranked_words(expanded).into_iter().filter(|w| !RANK_CHANGE_WORDS.contains(&w.as_str())).collect();
        if by.is_empty() {
            by = measure_name.map(|m| m.split_whitespace().filter(|w| w.len() > 2 && !is_stop_word(w)).map(str::to_string).collect()).unwrap_or_default();
        }
        Ranking {
            by,
            change: RANK_CHANGE_WORDS.iter().any(|w| has_words(&lower, w)),
            kinds: RANK_KINDS.iter().filter(|k| lower.contains(*k)).map(|k| k.to_string()).collect(),
            terms: terms.iter().filter(|t| !RANK_WORDS.contains(&t.as_str()) && !is_stop_word(t)).cloned().collect(),
        }
    }
}

/// Short forms as data (`resources/shortforms.json`, extended per library).
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
pub struct ShortForms {
    pub shortforms: BTreeMap<String, String>,
}

const BUILTIN_SHORT: &str = include_str!("../../../resources/shortforms.json");

impl ShortForms {
    pub fn builtin() -> ShortForms {
        serde_json::from_str(BUILTIN_SHORT).expect("resources/shortforms.json is valid")
    }

    /// The built-in short forms plus `<library>/shortforms.json` when it exists.
    pub fn with_user_file(path: &std::path::Path) -> crate::error::Result<ShortForms> {
        let mut s = Self::builtin();
        if let Some(extra) = crate::lexicon::read_user_json::<ShortForms>(path)? {
            s.shortforms.extend(extra.shortforms.into_iter().map(|(k, v)| (k.to_lowercase(), v)));
        }
        Ok(s)
    }

    /// `text` with each short form followed by its long form in brackets, and what was written
    /// out. A short form already followed by its long form is left alone.
    pub fn expand(&self, text: &str) -> (String, Vec<String>) {
        let mut out = String::with_capacity(text.len() + 32);
        let mut done = Vec::new();
        // ASCII lower case keeps byte offsets the same as the text's
        let lower = text.to_ascii_lowercase();
        let mut i = 0;
        let bytes = text.as_bytes();
        while i < text.len() {
            let at_word_start = i == 0 || !(bytes[i - 1] as char).is_alphanumeric();
            let mut matched = None;
            if at_word_start && (bytes[i] as char).is_alphabetic() {
                for (short, long) in &self.shortforms {
                    let end = i + short.len();
                    if end <= lower.len() && lower.is_char_boundary(end) && &lower[i..end] == short.as_str() {
                        let ok_after = lower[end..].chars().next().is_none_or(|c| !c.is_alphanumeric());
                        if ok_after && matched.as_ref().is_none_or(|(s, _): &(&String, &String)| s.len() < short.len()) {
                            matched = Some((short, long));
                        }
                    }
                }
            }
            match matched {
                Some((short, long)) => {
                    let end = i + short.len();
                    out.push_str(&text[i..end]);
                    if !lower[end..].trim_start().trim_start_matches('(').starts_with(&long.to_lowercase()) && !lower.contains(&long.to_lowercase()) {
                        out.push_str(" (");
                        out.push_str(long);
                        out.push(')');
                        done.push(format!("{} -> {long}", &text[i..end]));
                    }
                    i = end;
                }
                None => {
                    let c = text[i..].chars().next().expect("in bounds");
                    out.push(c);
                    i += c.len_utf8();
                }
            }
        }
        (out, done)
    }
}

/// Judgement rules as data (`resources/judgements.json`, extended per library).
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
pub struct Judgements {
    pub rules: BTreeMap<String, Rule>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Rule {
    /// Phrases that name it (whole words).
    pub names: Vec<String>,
    /// Words one of which must also be in the question ("healthy", "liquidity").
    #[serde(default)]
    pub requires: Vec<String>,
    /// A metric id of the catalogue.
    pub metric: String,
    /// ">=", ">", "<=", "<", or "change<=" (the largest year-on-year change).
    pub test: String,
    /// In the metric's unit (a percent as a fraction).
    pub threshold: f64,
    /// Years the "change<=" test looks at.
    #[serde(default)]
    pub years: Option<u32>,
    /// The rule in words.
    pub rule: String,
}

const BUILTIN_RULES: &str = include_str!("../../../resources/judgements.json");

impl Judgements {
    pub fn builtin() -> Judgements {
        serde_json::from_str(BUILTIN_RULES).expect("resources/judgements.json is valid")
    }

    /// The built-in rules plus `<library>/judgements.json` when it exists.
    pub fn with_user_file(path: &std::path::Path) -> crate::error::Result<Judgements> {
        let mut j = Self::builtin();
        if let Some(extra) = crate::lexicon::read_user_json::<Judgements>(path)? {
            j.rules.extend(extra.rules);
        }
        Ok(j)
    }

    /// The rule a question names (the longest name wins).
    pub fn rule_in(&self, question: &str) -> Option<(&str, &Rule)> {
        let t = norm(question);
        let mut best: Option<(&str, &Rule, usize)> = None;
        for (id, r) in &self.rules {
            if !r.requires.is_empty() && !r.requires.iter().any(|w| has_words(&t, w)) {
                continue;
            }
            for n in &r.names {
                let n = norm(n);
                if n.len() > best.map_or(0, |b| b.2) && has_words(&t, &n) {
                    best = Some((id, r, n.len()));
                }
            }
        }
        best.map(|b| (b.0, b.1))
    }
}

/// A question's text with the slips of typing that hide a measure's name undone: an id's
/// underscores ("cash_ratio" -> "cash ratio") and a preposition run into the name before it
/// ("Current Liabilitiesfor COSTCO" -> "Current Liabilities for COSTCO"), where what comes
/// before it is a word of the catalogue's names; and a long word of the catalogue's names
/// misspelt by a letter dropped or two swapped ("liabilites").
pub fn tidy(text: &str, cat: &Catalogue) -> String {
    let chars: Vec<char> = text.chars().collect();
    let unscored: String = chars
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let between = i > 0 && i + 1 < chars.len() && chars[i - 1].is_alphabetic() && chars[i + 1].is_alphabetic();
            if c == '_' && between {
                ' '
            } else {
                c
            }
        })
        .collect();
    let vocabulary: std::collections::HashSet<String> = cat
        .items
        .values()
        .flat_map(|i| i.names.iter().chain(&i.labels))
        .chain(cat.metrics.values().flat_map(|m| m.names.iter()))
        .flat_map(|n| norm(n).split(|c: char| !c.is_alphanumeric()).map(str::to_string).collect::<Vec<_>>())
        .filter(|w| w.len() >= 5)
        .collect();
    let glued = |w: &str| -> Option<(String, String)> {
        let lw = w.to_lowercase();
        if lw.len() < 8 || !lw.chars().all(|c| c.is_ascii_alphabetic()) || vocabulary.contains(&lw) {
            return None;
        }
        ["for", "in", "of"].iter().find_map(|p| {
            let head = lw.strip_suffix(p)?;
            vocabulary.contains(head).then(|| (w[..head.len()].to_string(), w[head.len()..].to_string()))
        })
    };
    // a catalogue word of eight letters or more misspelt by a letter dropped or two swapped
    // ("liabilites"), its first letter right, when one word of the catalogue is that near and it is no inflection
    // of one ("revenues")
    let misspelt = |w: &str| -> Option<String> {
        let lw = w.to_lowercase();
        if lw.len() < 8 || !lw.chars().all(|c| c.is_ascii_alphabetic()) || vocabulary.contains(&lw) {
            return None;
        }
        let near: Vec<&String> = vocabulary
            .iter()
            .filter(|v| v.len() >= 8 && v.chars().next() == lw.chars().next() && !v.starts_with(&lw) && !lw.starts_with(v.as_str()))
            // (a letter dropped or two swapped: a letter changed often makes another word,
            // "employee" for "employed")
            .filter(|v| {
                let mut a: Vec<char> = lw.chars().collect();
                let mut b: Vec<char> = v.chars().collect();
                a.sort_unstable();
                b.sort_unstable();
                crate::text::one_edit(&lw, v) && (lw.len() + 1 == v.len() || a == b)
            })
            .collect();
        let [v] = near.as_slice() else { return None };
        Some(if w.starts_with(char::is_uppercase) { v[..1].to_uppercase() + &v[1..] } else { v.to_string() })
    };
    unscored
        .split(' ')
        .map(|w| match (glued(w), misspelt(w)) {
            (Some((head, p)), _) => format!("{head} {p}"),
            (None, Some(fixed)) => fixed,
            (None, None) => w.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

const YES_NO_STARTS: &[&str] = &["is", "are", "was", "were", "does", "do", "did", "has", "have", "had", "can", "could", "will", "would", "should"];

/// Whether the question asks for a figure: "How many ...", "How much ...", "What percentage ...",
/// "... in USD millions", "Round your answer ...", "what is the total amount ...".
/// The words a question puts after its first possessor, up to the first of `stops` ("What
/// was MGM Resorts's operating lease expense in FY2018?" with " in " -> "operating lease
/// expense"), lower case and trimmed; None without a possessor.
pub(crate) fn after_possessor(text: &str, stops: &[&str]) -> Option<String> {
    let text = text.to_lowercase().replace('’', "'");
    let at = text.find("'s ")?;
    let rest = &text[at + 3..];
    let end = stops.iter().filter_map(|m| rest.find(m)).min().unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

/// Where a question's next definition of a measure starts at or after `from` in `lower` (its
/// text in lower case): (the index of the marker, the index where the expression starts).
/// "Free cash flow is defined as ...", "is calculated as", "is computed as", "equals", "=", and
/// "Quick ratio is (current assets minus inventory) divided by ..." (an expression that opens
/// with a parenthesis).
pub(crate) fn definition_at(lower: &str, from: usize) -> Option<(usize, usize)> {
    const MARKERS: [&str; 10] = [
        " is defined as",
        " are defined as",
        " is calculated as",
        " is computed as",
        " is measured as",
        " is defined by",
        " is calculated by",
        " is computed by",
        " equals ",
        " = ",
    ];
    // the plainer forms only after the question's own sentence ("What is (in USD millions) ...")
    let asked_end = lower.find('?').or_else(|| lower.find(". ")).unwrap_or(0);
    let find = |m: &str| -> Option<usize> {
        let mut at = from;
        while let Some(i) = lower.get(at..)?.find(m) {
            let i = at + i;
            if m.starts_with(" is defined") || m.starts_with(" are defined") || i > asked_end {
                return Some(i);
            }
            at = i + m.len();
        }
        None
    };
    let mut best: Option<(usize, usize)> = MARKERS.iter().filter_map(|m| find(m).map(|i| (i, i + m.len()))).min();
    if let Some(i) = find(" is (") {
        if best.is_none_or(|b| i < b.0) {
            best = Some((i, i + " is".len()));
        }
    }
    best
}

/// Whether a question asks for the parent company alone (see [`Question::asks_parent_only`]).
/// "What were/are <company>'s ..." or "What were/are (the) total ...": a plural asked of the
/// company's own figures or a total, as a line item's value is.
fn plural_of_a_total(l: &str) -> bool {
    let Some(rest) = l.strip_prefix("what were ").or_else(|| l.strip_prefix("what are ")) else { return false };
    let rest = rest.strip_prefix("the ").unwrap_or(rest);
    let possessive = |w: &str| w.ends_with("'s") || w.ends_with("’s") || w.ends_with("s'");
    // a company of several words ("General Mills' restructuring charges", "Johnson &
    // Johnson's sales") is as much the company's own as one of one word
    rest.split_whitespace().next() == Some("total") || rest.split_whitespace().take(4).any(possessive)
}

pub fn asks_parent_only(question: &str) -> bool {
    let l = norm(question);
    ["parent company", "parent-company", "parent only", "parent-only", "registrant only", "registrant's own", "standalone parent", "holding company level"]
        .iter()
        .any(|w| l.contains(w))
}

pub fn asks_for_figure(question: &str) -> bool {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\W*(?:in\s+|by\s+)?how\s+(?:many|much|long|old|often)\b|\bwhat\s+(?:percentage|percent|proportion|share|fraction)\b|\bwhat\s+(?:is|was|are|were)\s+the\s+(?:total\s+|net\s+)?(?:amount|number|value|percentage|sum)\s+of\b|\bwhat\s+(?:is|was|are|were)\s+the\s+total\s+(?:amount|number|value|sum)\b|\bin\s+(?:usd\s+|\$\s*)?(?:millions|billions|thousands)\b|\bround\s+your\s+answer\b").expect("valid regex")
    });
    RE.is_match(question)
}

/// Whether the question asks for a ratio, a rate or a figure to some decimal places: "current
/// ratio", "X as a % of Y", "operating margin", "return on equity", "inventory turnover",
/// "... round your answer to three decimal places".
pub fn asks_for_ratio(question: &str) -> bool {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\bratio\b|\bas\s+an?\s+(?:%|percent(?:age)?)\s+of\b|\bmargin\b|\breturn\s+on\s+(?:assets|equity|capital|invested)\b|\bturnover\b|\b(?:roa|roe|roic|roce)\b|\bround\w*\b[^.?]*\b(?:one|two|three|four|[1-4])\s+decimal").expect("valid regex")
    });
    RE.is_match(question)
}

/// Decimal places asked for ("round to two decimal places").
pub fn decimals_asked(q: &str) -> Option<u32> {
    let l = q.to_lowercase();
    for (w, n) in [
        ("zero decimal", 0),
        ("no decimal", 0),
        ("nearest integer", 0),
        ("nearest whole", 0),
        ("one decimal", 1),
        ("1 decimal", 1),
        ("two decimal", 2),
        ("2 decimal", 2),
        ("three decimal", 3),
        ("3 decimal", 3),
    ] {
        if l.contains(w) {
            return Some(n);
        }
    }
    None
}

/// The scale amounts are asked in ("in USD millions" -> "million").
pub fn scale_asked(q: &str) -> Option<&'static str> {
    let l = q.to_lowercase();
    ["billion", "million", "thousand"]
        .into_iter()
        .find(|w| l.contains(&format!("usd {w}")) || l.contains(&format!("in {w}")) || l.contains(&format!("$ {w}")) || l.contains(&format!("${w}")))
}

fn halves(q: &str) -> Vec<u8> {
    static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\bh([12])\b|\b(first|second)\s+half\b|\b([12])h\s*'?[0-9]{2}\b").expect("valid regex"));
    let mut out = Vec::new();
    for c in RE.captures_iter(q) {
        let n = match (c.get(1).or(c.get(3)), c.get(2)) {
            (Some(m), _) => m.as_str().parse().unwrap_or(1),
            (None, Some(m)) if m.as_str().eq_ignore_ascii_case("second") => 2,
            _ => 1,
        };
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

fn as_of(q: &str) -> Option<String> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:as\s+of|as\s+at|at|on|dated)\s+((?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*,?\s+\d{4})").expect("valid regex")
    });
    RE.captures(q).map(|c| c[1].to_string())
}

fn direction_of(l: &str) -> Option<Direction> {
    let up = ["improv", "increas", "grow", "rise", "rising", "rose", "accelerat", "expand", "higher", "gain"];
    let down = ["declin", "decreas", "drop", "fall", "fell", "lower", "shrink", "deteriorat", "weaken", "decelerat", "reduc"];
    let has = |stems: &[&str]| l.split(|c: char| !c.is_alphanumeric()).any(|w| stems.iter().any(|s| w.starts_with(s)));
    let (u, d) = (has(&up), has(&down));
    if (u && d) || has_words(l, "change") || has_words(l, "changed") {
        return Some(Direction::Either);
    }
    if u {
        return Some(Direction::Up);
    }
    if d {
        return Some(Direction::Down);
    }
    None
}

fn extreme_of(l: &str) -> Option<Extreme> {
    // not "best" or "top": they are also names ("Best Buy")
    // ("grew the fastest": the largest growth)
    let most = ["highest", "largest", "biggest", "most", "greatest", "maximum", "strongest", "fastest"];
    let least = ["lowest", "smallest", "least", "worst", "weakest", "minimum", "fewest", "slowest"];
    let words: Vec<&str> = l.split(|c: char| !c.is_alphanumeric()).collect();
    // "the biggest drop" ranks by the smallest change
    let drop = words.iter().any(|w| ["drop", "decline", "decrease", "fall"].contains(w));
    if words.iter().any(|w| most.contains(w)) {
        return Some(if drop { Extreme::Smallest } else { Extreme::Largest });
    }
    if words.iter().any(|w| least.contains(w)) {
        return Some(Extreme::Smallest);
    }
    None
}

/// A percent change asked in words: "the percentage increase in", "percent change", "what
/// percentage did X increase", "X grew by what percent from 2018 to 2019", or a move between two
/// years ("increase from 2014 to 2015"). (A question of "why" or "did" is read before this.)
fn moved_by_percent(l: &str) -> bool {
    static NAMED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:percent(?:age)?|%)\s+(?:increase|decrease|change|growth|decline|rise|drop|fall|gain|reduction)\b").expect("valid regex")
    });
    static VERB: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bwhat\s+percent(?:age)?\b.*\b(?:increas|decreas|grow|grew|rise|rose|fall|fell|declin|drop|chang|gain)\w*").expect("valid regex")
    });
    static BETWEEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:increas|decreas|grow|grew|rise|rose|risen|fall|fell|declin|drop|gain)\w*\b.{0,40}?\bfrom\s+(?:fy\s*|fiscal\s+(?:year\s+)?)?\d{4}\s+(?:to|through)\s+(?:fy\s*|fiscal\s+(?:year\s+)?)?\d{4}")
            .expect("valid regex")
    });
    NAMED.is_match(l) || VERB.is_match(l) || BETWEEN.is_match(l)
}

/// Whether a question asks for a change in points ("in percentage points", "by how many
/// basis points"), which a percent sign elsewhere in it does not make a percent change.
pub fn points_asked(text: &str) -> bool {
    let l = text.to_lowercase();
    l.contains("percentage point") || l.contains("percent point") || l.contains("basis point") || has_words(&l, "pp") || has_words(&l, "points")
}

/// The content words of a text: lower case, no stop words, no numbers, longer than two letters.
pub fn content_terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in tokenize(text) {
        if !t.is_number && t.text.len() > 2 && !is_stop_word(&t.text) && !out.contains(&t.text) {
            out.push(t.text);
        }
    }
    out
}

impl Question {
    /// Read `text` with the built-in short forms, catalogue and judgement rules.
    pub fn parse(text: &str) -> Question {
        Self::parse_with(text, &ShortForms::builtin(), &Catalogue::builtin(), &Judgements::builtin())
    }

    /// Read `text` with a library's short forms, metric catalogue and judgement rules.
    pub fn parse_with(text: &str, short: &ShortForms, cat: &Catalogue, rules: &Judgements) -> Question {
        let text = tidy(text.trim(), cat);
        let (expanded, short_forms) = short.expand(&text);
        let l = norm(&expanded);
        let first = l.split_whitespace().next().unwrap_or("").to_string();
        let years = crate::filter::question_years(&expanded);
        let quarters = crate::filter::question_quarters(&expanded);
        let halves = halves(&expanded);
        // names as written first: a short form written out can split a metric's name ("capex as a
        // % of revenue")
        // and the question's own words before its definitions: "What is 3M's free cash flow? Free
        // cash flow is defined as cash from operations minus capital expenditures" asks for free
        // cash flow, not for the longer name its definition uses
        let own_words = |t: &str| -> String {
            let lower = t.to_lowercase();
            match definition_at(&lower, 0).map(|(at, _)| at) {
                // the sentence that defines it starts after the question's "?" or "."
                Some(at) => {
                    let head = &t[..at];
                    let cut = head.rfind(['?', '.']).map(|i| i + 1).unwrap_or(at);
                    t[..cut].to_string()
                }
                None => t.to_string(),
            }
        };
        let (text_own, expanded_own) = (own_words(&text), own_words(&expanded));
        let metric = cat
            .metric_in(&text_own)
            .or_else(|| cat.metric_in(&expanded_own))
            .or_else(|| cat.metric_in(&text))
            .or_else(|| cat.metric_in(&expanded))
            .map(|(id, m)| (id.to_string(), m.names.first().cloned().unwrap_or_default()));
        let item = cat
            .item_in(&text_own)
            .or_else(|| cat.item_in(&expanded_own))
            .or_else(|| cat.item_in(&text))
            .or_else(|| cat.item_in(&expanded))
            .map(|id| (id.to_string(), cat.item_name(id)));
        let (measure, measure_name) = match metric.or(item) {
            Some((id, name)) => (Some(id), Some(name)),
            None => (None, None),
        };
        let rule = rules.rule_in(&expanded).map(|(id, _)| id.to_string());
        // "As of Q2'2023, is Pfizer spinning off ...?": the question starts after a leading phrase
        let after_comma = l.split_once(", ").filter(|(head, _)| head.len() <= 40).and_then(|(_, rest)| rest.split_whitespace().next()).unwrap_or("");
        let yes_no = YES_NO_STARTS.contains(&first.as_str()) || YES_NO_STARTS.contains(&after_comma);
        let direction = direction_of(&l);
        let extreme = extreme_of(&l);
        // the question proper is its first sentence: what follows is instructions ("If the quick
        // ratio is not relevant ..., state that and explain why")
        let proper = {
            let end = l.find("? ").map(|i| i + 1).unwrap_or(l.len());
            l[..end].to_string()
        };
        let narrative_cue = [
            "what drove",
            "what caused",
            "what led",
            "what factors",
            "factors drove",
            "what contributed",
            "drivers of",
            "driven by",
            "the reason",
            "reasons for",
            "why ",
            "explain",
            "describe",
            "key agenda",
            "primary customers",
            "who are",
            "what are the main",
            "what were the main",
        ]
        .iter()
        .any(|w| proper.contains(w))
            || first == "why";
        let or_choice = {
            static RE: LazyLock<Regex> = LazyLock::new(|| {
                Regex::new(r"(?i)\b(?:improv\w*|increas\w*|ris\w*|grow\w*)\s+or\s+(?:declin\w*|decreas\w*|fall\w*|drop\w*)\b|\b(?:declin\w*|decreas\w*)\s+or\s+(?:improv\w*|increas\w*)\b").expect("valid regex")
            });
            RE.is_match(&l)
        };
        // the question's own words, not its definitions ("DPO is defined as: ... change in inventory")
        let asked = definition_at(&l, 0).map_or(l.as_str(), |(at, _)| &l[..at]).to_string();
        let l_all = l.clone();
        let l = asked;
        let change_words = l.contains("how much has") && l.contains("change")
            || has_words(&l, "change in")
            || l.contains("year-over-year")
            || has_words(&l, "yoy")
            || has_words(&l, "growth")
            || (l.contains("change") && (l.contains("between") || l.contains(" from ")) && !yes_no)
            // "How does Boeing's effective tax rate in FY2022 compare to FY2021?"
            || (l.contains("compare") && years.len() >= 2 && !yes_no)
            // "What was the percentage increase in net sales ...", "By what percentage did global
            // streaming memberships increase from 2014 to 2015?"
            || moved_by_percent(&l)
            // "By how much did Pepsico increase its credit agreement?"
            || ((l.starts_with("by how much") || l.contains("how much did") || l.contains("how much has"))
                && ["increase", "decrease", "grow", "rise", "fall", "decline", "drop", "raise", "reduce", "change"].iter().any(|w| l.contains(w)));
        let (operation, asks) = if narrative_cue && !asks_for_figure(&text) {
            (Operation::Narrative, ValueType::Sentence)
        } else if let (Some(_), true) = (&rule, yes_no) {
            (Operation::Judgement, ValueType::YesNo)
        } else if or_choice {
            (Operation::Compare, ValueType::Choice)
        } else if yes_no && direction.is_some() {
            (Operation::Compare, ValueType::YesNo)
        } else if yes_no {
            (Operation::Narrative, ValueType::YesNo)
        } else if extreme.is_some() && (first == "which" || first == "what" || l.contains("which")) && !asks_for_figure(&text) {
            (Operation::Rank, ValueType::Name)
        } else if change_words && (measure.is_some() || asks_for_figure(&text)) {
            (Operation::Change, ValueType::Number)
        } else if asks_for_ratio(&text) && measure.is_some() {
            (Operation::Ratio, ValueType::Number)
        } else if asks_for_figure(&text)
            || measure.is_some() && first == "what"
            // "What is total liabilities for Costco in FY 2021?": a "what is/was" of a fiscal year
            || (l.starts_with("what is ") || l.starts_with("what was ")) && !years.is_empty()
            // ... and its plural of the company's own or a total ("What were Coca-Cola's total
            // liabilities at the end of 2017?"), not "what were the risks ... in 2022"
            || plural_of_a_total(&l) && !years.is_empty()
            // a terse query: a measure and a period, no question word ("year end FY2018 net PPNE for 3M")
            || measure.is_some() && !years.is_empty() && !["which", "who", "why", "when", "where"].contains(&first.as_str())
        {
            (Operation::Value, ValueType::Number)
        } else if first == "which" || first == "who" || l.starts_with("what is the name") {
            (Operation::Narrative, ValueType::Name)
        } else {
            (Operation::Narrative, ValueType::Sentence)
        };
        let rate_measure = measure.as_deref().is_some_and(|m| cat.metrics.get(m).is_some_and(|d| d.unit == crate::figures::catalogue::Unit::Percent))
            || has_words(&l, "rate")
            || has_words(&l, "margin");
        // "in percentage points": a change of a rate by points, not a percent change of it
        let points_asked = points_asked(&l_all);
        let percent = !points_asked && (l_all.contains('%') || l_all.contains("percent"));
        let form = Form {
            percent,
            points: operation == Operation::Change && (rate_measure || points_asked) && !percent,
            decimals: decimals_asked(&text),
            scale: scale_asked(&text).map(str::to_string),
        };
        let mut q = Question {
            wording: WordingCell::default(),
            reading: String::new(),
            terms: content_terms(&text),
            text,
            expanded,
            years,
            quarters,
            halves,
            as_of: as_of(&l_all),
            companies: Vec::new(),
            measure,
            measure_name,
            operation,
            asks,
            direction: if matches!(operation, Operation::Compare) { direction } else { None },
            extreme: if operation == Operation::Rank { extreme } else { None },
            ranking: None,
            rule: if operation == Operation::Judgement { rule } else { None },
            form,
            short_forms,
        };
        if q.operation == Operation::Rank {
            q.ranking = Some(Ranking::read(&q.expanded, q.measure_name.as_deref(), &q.terms));
        }
        q.reading = q.reading();
        q
    }

    /// The question with the companies the document filter found named.
    pub fn with_companies(mut self, companies: Vec<String>) -> Question {
        self.companies = companies;
        self.reading = self.reading();
        self
    }

    /// Its words as the judging rules read them, read once.
    /// The kind of member the question asks a figure of each of ([`per_member`]).
    pub fn per_member(&self) -> Option<&'static str> {
        per_member(&self.text)
    }

    pub fn wording(&self) -> &Wording {
        self.wording.0.get_or_init(|| Wording::read(&self.text))
    }

    pub fn asks_yes_no(&self) -> bool {
        self.asks == ValueType::YesNo
    }

    /// Asks for a total of several things ("the total amount", "in total", "combined"), not
    /// for a line item named "Total ..." ("total assets").
    pub fn asks_total(&self) -> bool {
        let l = self.text.to_lowercase();
        ["total amount", "total number", "in total", "combined", "total value", "aggregate amount"].iter().any(|w| l.contains(w))
    }

    pub fn asks_figure(&self) -> bool {
        self.asks == ValueType::Number
    }

    /// Whether it asks for the parent company alone ("at the parent company level",
    /// "parent-only", "the registrant's own"): its own condensed statements, not the
    /// consolidated ones.
    pub fn asks_parent_only(&self) -> bool {
        asks_parent_only(&self.text)
    }

    /// Whether it is a search rather than a question: a few words with no question word, no verb
    /// of a request and no question mark ("3M long-term debt 2018"). A sentence found for it may
    /// not be what is wanted.
    pub fn is_search(&self) -> bool {
        let t = self.text.trim();
        if t.ends_with('?') {
            return false;
        }
        let asking = [
            "what",
            "which",
            "who",
            "whom",
            "whose",
            "why",
            "how",
            "when",
            "where",
            "is",
            "are",
            "was",
            "were",
            "does",
            "do",
            "did",
            "has",
            "have",
            "had",
            "can",
            "could",
            "should",
            "will",
            "would",
            "list",
            "describe",
            "explain",
            "tell",
            "give",
            "name",
            "show",
            "summarize",
            "summarise",
            "find",
            "identify",
            "compare",
            "calculate",
            "compute",
            "state",
            "please",
        ];
        !crate::text::plain_words(t).iter().any(|w| asking.contains(&w.as_str()))
    }

    pub fn asks_ratio(&self) -> bool {
        self.asks == ValueType::Number && asks_for_ratio(&self.text)
    }

    /// Whether it asks for a percent ("%", "percent", "in units of percents").
    pub fn asks_percent(&self) -> bool {
        let l = self.text.to_lowercase();
        self.form.percent || l.contains('%') || l.contains("percent")
    }

    /// The reading in one line, as the UI shows it: "change · effective tax rate · FY2021,
    /// FY2022 · American Express · answer in points".
    pub fn reading(&self) -> String {
        let mut parts = vec![self.operation.name().to_string()];
        match (self.operation, self.direction, self.extreme) {
            (Operation::Compare, Some(d), _) => parts[0] = format!("compare ({d})"),
            (Operation::Rank, _, Some(e)) => {
                parts[0] = format!("rank ({e})");
                if let Some(r) = self.ranking.as_ref().filter(|r| !r.by.is_empty()) {
                    parts.push(format!("by {}{}", r.by.join(" "), if r.change { " change" } else { "" }));
                }
            }
            _ => {}
        }
        if let Some(m) = &self.measure_name {
            parts.push(m.clone());
        }
        if let Some(r) = &self.rule {
            parts.push(format!("rule: {}", r.replace('_', " ")));
        }
        let mut when: Vec<String> = self.years.iter().map(|y| format!("FY{y}")).collect();
        when.extend(self.quarters.iter().map(|q| format!("Q{q}")));
        when.extend(self.halves.iter().map(|h| format!("H{h}")));
        if let Some(d) = &self.as_of {
            when.push(format!("as of {d}"));
        }
        if !when.is_empty() {
            parts.push(when.join(", "));
        }
        if !self.companies.is_empty() {
            parts.push(self.companies.join(", "));
        }
        let form = match self.asks {
            ValueType::YesNo => "answer yes or no, with the figures".to_string(),
            ValueType::Choice => "answer which way, with the figures".to_string(),
            ValueType::Name => "answer a name".to_string(),
            ValueType::Sentence => "answer in sentences".to_string(),
            ValueType::Number if self.form.points => "answer in points".to_string(),
            ValueType::Number if self.form.percent => "answer in percent".to_string(),
            ValueType::Number => match &self.form.scale {
                Some(s) => format!("answer in USD {s}s"),
                None => "answer a figure".to_string(),
            },
        };
        parts.push(form);
        if !self.short_forms.is_empty() {
            parts.push(format!("read {}", self.short_forms.join(", ")));
        }
        parts.join(" · ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "What is cash_ratio in FY2021 for Nike?", "Operating cash flow to Current
    /// Liabilitiesfor COSTCO": the measure's name is read as if typed cleanly.
    #[test]
    fn slips_of_typing_do_not_hide_the_measure() {
        let cat = Catalogue::builtin();
        assert_eq!(tidy("What is cash_ratio in FY2021 for Nike?", &cat), "What is cash ratio in FY2021 for Nike?");
        assert_eq!(tidy("Operating cash flow to Current Liabilitiesfor COSTCO", &cat), "Operating cash flow to Current Liabilities for COSTCO");
        assert_eq!(tidy("What were Costco's total liabilites in FY2021?", &cat), "What were Costco's total liabilities in FY2021?");
        assert_eq!(tidy("What was the Depreciaton of 3M?", &cat), "What was the Depreciation of 3M?");
        // an inflection is no slip ("revenues"), nor a word far from every name, nor one a
        // letter changed makes ("employee" is no "employed")
        assert_eq!(tidy("What was AMD's revenue per employee in FY2015?", &cat), "What was AMD's revenue per employee in FY2015?");
        assert_eq!(tidy("What were total revenues and Receivables?", &cat), "What were total revenues and Receivables?");
        // words that end so on their own, and ids, are kept
        assert_eq!(tidy("What is the margin within the LENS_2 plan for Information?", &cat), "What is the margin within the LENS_2 plan for Information?");
        assert_eq!(Question::parse("What is cash_ratio in FY2021 for Nike?").measure.as_deref(), Some("cash_ratio"));
    }

    #[test]
    fn the_fastest_growing_member_is_a_ranking_by_change() {
        let q = Question::parse("Which 3M segment grew its revenue the fastest in FY2018?");
        let r = q.ranking.clone().unwrap_or_default();
        assert_eq!((q.operation, q.extreme, r.change, r.kinds.as_slice()), (Operation::Rank, Some(Extreme::Largest), true, &["segment".to_string()][..]));
        let q = Question::parse("Which of Nike's regions was the slowest growing in 2021?");
        assert_eq!((q.operation, q.extreme, q.ranking.unwrap_or_default().change), (Operation::Rank, Some(Extreme::Smallest), true));
    }

    #[test]
    fn a_figure_of_each_member_is_asked_by_kind() {
        for (q, kind) in [
            ("What were General Mills' net sales by segment in fiscal 2022?", Some("segment")),
            ("What was 3M's operating income for each of its business segments in 2018?", Some("segment")),
            ("Show Nike's revenues by geographic region for FY2021", Some("region")),
            ("What was Amazon's revenue per segment?", Some("segment")),
            ("What was 3M's total revenue in 2018?", None),
            ("Which segment had the highest operating income?", None),
            ("How did revenue change by 10%?", None),
        ] {
            assert_eq!(per_member(q), kind, "{q}");
        }
    }

    #[test]
    fn terms_of_art_are_the_words_written_with_capitals_inside() {
        assert_eq!(terms_of_art("What was MGM's Las Vegas Strip RevPAR in 2022?"), vec!["MGM", "RevPAR"]);
        assert_eq!(terms_of_art("What was Adobe's Digital Media ARR at the end of fiscal 2016, in USD?"), vec!["ARR"]);
        assert!(terms_of_art("What is the FY2019 revenue of Costco in USD millions (GAAP)?").is_empty());
        let w = Question::parse("Which segment’s RevPAR grew the fastest?").wording().clone();
        assert_eq!(
            (w.lower.as_str(), w.words[1].as_str(), w.terms_of_art),
            ("which segment's revpar grew the fastest?", "segment", vec!["RevPAR".to_string()])
        );
    }

    #[test]
    fn shapes_of_analyst_questions() {
        let q = Question::parse("How much has the effective tax rate of American Express changed between FY2021 and FY2022?");
        assert_eq!((q.operation, q.asks, q.form.points), (Operation::Change, ValueType::Number, true), "{q:?}");
        assert_eq!(q.years, vec![2021, 2022]);
        assert_eq!(q.measure.as_deref(), Some("effective_tax_rate"));

        let q = Question::parse("Does Adobe have an improving operating margin profile as of FY2022?");
        assert_eq!((q.operation, q.asks, q.direction), (Operation::Compare, ValueType::YesNo, Some(Direction::Up)));
        assert_eq!(q.measure.as_deref(), Some("operating_margin"));

        let q = Question::parse("Has AMCOR's quick ratio improved or declined between FY2023 and FY2022?");
        assert_eq!((q.operation, q.asks), (Operation::Compare, ValueType::Choice));

        let q = Question::parse("Which type of debt received the largest investment among the short term investments for MGM in H1 FY2023?");
        assert_eq!((q.operation, q.asks, q.extreme), (Operation::Rank, ValueType::Name, Some(Extreme::Largest)));
        assert_eq!(q.halves, vec![1]);
        let q = Question::parse("For Pfizer, which geographic region had the biggest drop in Q22023 year over year revenues?");
        assert_eq!(q.extreme, Some(Extreme::Smallest), "the biggest drop is the smallest change");

        let q = Question::parse("Is 3M a capital-intensive business based on FY2022 data?");
        assert_eq!((q.operation, q.rule.as_deref()), (Operation::Judgement, Some("capital_intensive")));
        // "Did Coca-Cola make a profit in 2017?": net income above zero, not a sentence that
        // says "profit" (one about another company's payments was green)
        for t in ["Did Coca-Cola make a profit in 2017?", "Was Block profitable in 2016?"] {
            let q = Question::parse(t);
            assert_eq!((q.operation, q.rule.as_deref()), (Operation::Judgement, Some("profitable")), "{t}");
        }
        assert_ne!(Question::parse("How profitable was 3M in 2018?").operation, Operation::Judgement);
        let q = Question::parse("Does Verizon have a reasonably healthy liquidity profile based on its quick ratio for FY 2022?");
        assert_eq!((q.operation, q.rule.as_deref()), (Operation::Judgement, Some("healthy_quick_ratio")));

        let q = Question::parse("What drove operating margin change as of FY2022 for 3M?");
        assert_eq!((q.operation, q.asks), (Operation::Narrative, ValueType::Sentence));
        // a plural figure of the company's own, in a year, is a value
        let q = Question::parse("What were Coca-Cola's total liabilities at the end of 2017?");
        assert_eq!((q.operation, q.asks), (Operation::Value, ValueType::Number));
        assert_eq!(Question::parse("What were the total liabilities of Coca-Cola in 2017?").operation, Operation::Value);
        assert_ne!(Question::parse("What were the risks Coca-Cola named in 2017?").operation, Operation::Value);
        // ... of a company named in several words (plain set 12: read as a narrative question)
        let q = Question::parse("What were General Mills' restructuring charges in fiscal 2020?");
        assert_eq!((q.operation, q.asks), (Operation::Value, ValueType::Number));

        let q = Question::parse("What is the FY2018 capital expenditure amount (in USD millions) for 3M?");
        assert_eq!((q.operation, q.asks, q.form.scale.as_deref()), (Operation::Value, ValueType::Number, Some("million")));
        let q = Question::parse("What is the FY2019 fixed asset turnover ratio for Activision Blizzard? Round your answer to two decimal places.");
        assert_eq!((q.operation, q.form.decimals), (Operation::Ratio, Some(2)));

        let q = Question::parse("By how much did Pepsico increase its unsecured five year revolving credit agreement on May 26, 2023?");
        assert_eq!(q.as_of.as_deref(), Some("may 26, 2023"));
        assert_eq!(Question::parse("What were JPMorgan's total deposits at June 30, 2023?").as_of.as_deref(), Some("june 30, 2023"));
        assert_eq!(q.asks, ValueType::Number);
        let q = Question::parse("Is Pfizer spinning off any large business segments?");
        assert_eq!((q.operation, q.asks), (Operation::Narrative, ValueType::YesNo));
    }

    /// "What was the percentage increase in Amazon's net sales from 2018 to 2019?" was read as
    /// a value and answered with 2019's net sales.
    #[test]
    fn a_percent_change_asked_in_words_is_a_change() {
        for t in [
            "What was the percentage increase in Amazon's net sales from 2018 to 2019?",
            "By what percentage did Amazon's net sales increase from 2018 to 2019?",
            "what percentage did Global streaming memberships increase from 2014 to 2015?",
            "How much did Amazon's net sales rise from 2018 to 2019 in percent?",
            "What was Amazon's percent change in operating income in 2019?",
        ] {
            let q = Question::parse(t);
            assert_eq!(q.operation, Operation::Change, "{t}");
            assert!(q.form.percent, "{t}");
        }
        // a cause of the move, or whether it moved, is asked in words
        assert_eq!(Question::parse("Why did Amazon's net sales increase from 2018 to 2019?").operation, Operation::Narrative);
        assert_ne!(Question::parse("Did Amazon's net sales increase from 2018 to 2019?").operation, Operation::Change);
    }

    #[test]
    fn a_change_asked_in_percentage_points_is_a_change_in_points() {
        let q = Question::parse("What is 3M's FY2021 to FY2022 change in unadjusted operating income margin (in percentage points, one decimal place)?");
        assert!(q.form.points && !q.form.percent, "{q:?}");
        let q = Question::parse("What is 3M's year-over-year change in revenue from FY2017 to FY2018 (in units of percents and round to one decimal place)?");
        assert!(q.form.percent && !q.form.points, "{q:?}");
    }

    #[test]
    fn the_measure_asked_is_read_from_the_question_not_its_definition() {
        // the definition names a longer measure ("capital expenditures"): the question asks for
        // free cash flow
        let q = Question::parse(
            "What is 3M's FY2018 free cash flow? Free cash flow is defined as cash from operations minus capital expenditures. Answer in USD millions.",
        );
        assert_eq!(q.measure.as_deref(), Some("free_cash_flow"), "{q:?}");
        // a definition that only restates the question's measure changes nothing
        let q = Question::parse("What is the FY2018 fixed asset turnover ratio for Adobe? Fixed asset turnover ratio is defined as: FY2018 revenue / (average PP&E between FY2017 and FY2018).");
        assert_eq!(q.measure.as_deref(), Some("fixed_asset_turnover"));
        // a question whose own words name no measure still takes its definition's
        let q = Question::parse("What is the FY2018 figure for Adobe? The figure is defined as: FY2018 revenue / (average PP&E between FY2017 and FY2018).");
        assert!(q.measure.is_some(), "{q:?}");
    }

    #[test]
    fn short_forms_are_written_out_once() {
        let q = Question::parse("year end FY2018 net PPNE for 3M");
        assert_eq!(q.expanded, "year end FY2018 net PPNE (property, plant and equipment, net) for 3M");
        assert_eq!((q.measure.as_deref(), q.operation), (Some("ppe"), Operation::Value), "{q:?}");
        assert_eq!(q.short_forms, vec!["PPNE -> property, plant and equipment, net"]);
        let (s, done) = ShortForms::builtin().expand("capex (capital expenditure) and D&A");
        assert_eq!(s, "capex (capital expenditure) and D&A (depreciation and amortization)");
        assert_eq!(done.len(), 1);
        // inside a word nothing is expanded
        assert_eq!(ShortForms::builtin().expand("Variance and warehouses").0, "Variance and warehouses");
    }

    #[test]
    fn the_reading_in_one_line() {
        let q = Question::parse("How much has the effective tax rate of American Express changed between FY2021 and FY2022?")
            .with_companies(vec!["American Express".into()]);
        assert_eq!(q.reading(), "change · effective tax rate · FY2021, FY2022 · American Express · answer in points");
    }
}
