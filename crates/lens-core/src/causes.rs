//! Cause answers: "Why did Amazon's operating income increase in 2019?", "What drove MGM's
//! revenue decline in 2020?", "What drove gross margin change as of FY2022 for J&J?" are
//! answered by the filing's own sentence that says why **that measure of the whole company**
//! changed: the measure named before its cause ("Revenues increased by $4,322 million in 2022
//! compared with 2021 driven by higher revenues at BCA and BGS ..."), quoted whole. A sentence
//! about a part ("BCA revenues increased ...", "The decrease in North America operating income
//! ...") answers only a question that names the part; a sentence whose subject is left to the
//! sentence before ("The $104.2 million increase was primarily due to ...") is read with it.
//! Pure: the question and page texts in, the sentence out.

use crate::question::{Direction, Operation, Question};
use crate::text::units;

/// Phrases of a sentence that states a cause ("driven by", "due to", "primarily").
pub const CUES: &[&str] = &[
    "driven by",
    "due to",
    "primarily",
    "as a result of",
    "because",
    "reflect",
    "attributable to",
    "resulting from",
    "result of",
    "offset by",
    "partially offset",
    "led by",
    "owing to",
    "mainly",
    "largely",
];

/// Whether a text holds a cause phrase.
pub fn has_cue(u: &str) -> bool {
    let l = u.to_lowercase();
    CUES.iter().any(|c| l.contains(c))
}

/// Where the first cause phrase of a lower-case text starts.
/// (what offsets a change is not its cause: "The decrease was partially offset by ...")
fn cue_at(l: &str) -> Option<usize> {
    CUES.iter().filter(|c| !c.contains("offset")).filter_map(|c| l.find(c)).min()
}

/// How a question asks for a cause ("why did ...", "what drove ...").
const ASKS: &[&str] = &[
    "why ",
    "what drove",
    "what drives",
    "what caused",
    "what led to",
    "what explains",
    "what contributed to",
    "what factors",
    "what were the drivers",
    "what are the drivers",
    "drivers of",
    "reasons for",
    "reason for",
    "explain the",
];

/// Words of a cause question that are not its measure: asking, change, period and filler words.
const NOT_MEASURE: &[&str] = &[
    "why",
    "what",
    "drove",
    "drive",
    "drives",
    "driven",
    "caused",
    "cause",
    "causes",
    "led",
    "lead",
    "to",
    "did",
    "does",
    "do",
    "was",
    "were",
    "is",
    "are",
    "has",
    "have",
    "had",
    "been",
    "the",
    "a",
    "an",
    "of",
    "in",
    "for",
    "at",
    "as",
    "on",
    "by",
    "during",
    "from",
    "compared",
    "with",
    "versus",
    "vs",
    "and",
    "its",
    "their",
    "change",
    "changes",
    "changed",
    "increase",
    "increased",
    "increases",
    "decrease",
    "decreased",
    "decreases",
    "decline",
    "declined",
    "declines",
    "rise",
    "rose",
    "risen",
    "fall",
    "fell",
    "drop",
    "dropped",
    "growth",
    "grow",
    "grew",
    "improve",
    "improved",
    "improvement",
    "deteriorate",
    "deteriorated",
    "deterioration",
    "higher",
    "lower",
    "year",
    "years",
    "fiscal",
    "fy",
    "quarter",
    "end",
    "balance",
    "explain",
    "explains",
    "reason",
    "reasons",
    "behind",
    "main",
    "primary",
    "key",
    "factors",
    "factor",
    "drivers",
    "driver",
    "contributed",
    "contribute",
    "significant",
    "significantly",
    "so",
    "much",
    "this",
    "that",
    "company",
    "companies",
    "go",
    "went",
    "up",
    "down",
    "over",
    "between",
    "prior",
    "previous",
    "last",
    "annual",
    "full",
    "same",
    "period",
    "q1",
    "q2",
    "q3",
    "q4",
    "h1",
    "h2",
    "first",
    "second",
    "third",
    "fourth",
    "half",
    "ended",
    "ending",
    "movement",
    "move",
    "moved",
    "swing",
    "jump",
    "jumped",
    "surge",
    "there",
    "such",
    "large",
    "big",
    "sharp",
    "sharply",
    "strong",
    "weak",
    "overall",
    "year-over-year",
    "yoy",
    "percent",
    "points",
    "basis",
    "billion",
    "million",
];

/// Words that may head a measure's name in a sentence and leave it the whole company's
/// ("Consolidated net revenues", "Total revenue"); any other capitalised word there names a
/// part ("BCA revenues", "North America operating income").
const WHOLE: &[&str] = &[
    "consolidated",
    "total",
    "net",
    "the",
    "our",
    "company",
    "company's",
    "worldwide",
    "overall",
    "reported",
    "gross",
    "operating",
    "fiscal",
    "this",
    "these",
    "a",
    "an",
    "and",
    "full-year",
    "annual",
    "gaap",
    "higher",
    "lower",
    "strong",
    "stronger",
    "weaker",
    "increased",
    "decreased",
    "improved",
    "record",
    "its",
    "their",
    "global",
    "company-wide",
    "combined",
    "aggregate",
    "year-over-year",
];

/// Words that say a measure changed.
const CHANGE: &[&str] = &[
    "increased",
    "increase",
    "increases",
    "decreased",
    "decrease",
    "decreases",
    "grew",
    "growth",
    "rose",
    "declined",
    "decline",
    "declines",
    "fell",
    "improved",
    "improvement",
    "dropped",
    "change",
    "changes",
    "changed",
    "higher",
    "lower",
    "up",
    "down",
    "compared",
];

/// Words that make a measure's name another item's when they follow it ("sales tax", "revenue
/// recognition", "cost of sales").
const ITEM_HEADS: &[&str] =
    &["expenses", "expense", "costs", "cost", "tax", "taxes", "recognition", "deductions", "per", "multiple", "allowance", "returns", "reserve"];

/// Prepositions: they end a measure's name read backwards.
const PREPOSITIONS: &[&str] = &["in", "of", "for", "at", "from", "on", "by", "to", "with", "during", "within"];

/// Months, as a name after a measure begins ("revenue in January").
const MONTHS: &[&str] = &["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/// Words a measure may be said in instead ("sales" for "revenue", "profit" for "income",
/// "rate" for "margin": Walmart's "gross profit rate").
fn same_word(asked: &str, word: &str) -> bool {
    let stem = |w: &str| -> String {
        let w = w.trim_end_matches("'s");
        w.strip_suffix('s').unwrap_or(w).chars().take(6).collect()
    };
    let (a, w) = (stem(asked), stem(word));
    if a == w {
        return true;
    }
    let class = |x: &str| -> u8 {
        match x {
            "revenu" | "sale" => 1,
            "income" | "profit" | "earnin" => 2,
            "margin" => 3,
            _ => 0,
        }
    };
    let (ca, cw) = (class(&a), class(&w));
    ca != 0 && (ca == cw || ca == 3 && matches!(w.as_str(), "rate" | "percen"))
}

/// What a cause question asks about: the measure's words (lower case), the years, and the
/// direction of the change asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    pub measure: Vec<String>,
    pub years: Vec<i32>,
    /// Quarters the question names (a quarter's cause, not the year to date's).
    pub quarters: Vec<u8>,
    pub direction: Option<Direction>,
    /// The question as asked, lower case (a part it names is its own).
    lower: String,
}

impl Asked {
    /// The measure as the question says it ("operating income").
    pub fn name(&self) -> String {
        self.measure.join(" ")
    }

    /// Whether the gross margin is asked (its cause may be said of the cost of sales' share).
    fn gross_margin(&self) -> bool {
        self.measure.iter().any(|m| m == "gross") && self.measure.iter().any(|m| matches!(m.as_str(), "margin" | "margins" | "rate"))
    }

    /// Words a search for a page saying the cause adds to the question's.
    pub fn search_words(&self) -> String {
        let mut w = String::from("increased decreased compared primarily due to driven by");
        if self.gross_margin() {
            w.push_str(" cost of sales products sold as a percent to sales");
        }
        w
    }
}

/// The measure a question asks the cause of a change in, or `None` for any other question.
pub fn asked(q: &Question) -> Option<Asked> {
    if q.operation != Operation::Narrative {
        return None;
    }
    // the question proper: its first sentence (what follows is instructions)
    let proper = q.text.split_inclusive(['?', '\n']).next().unwrap_or(&q.text).trim();
    let lower = proper.to_lowercase();
    if !ASKS.iter().any(|a| lower.starts_with(a) || lower.contains(&format!(" {a}"))) {
        return None;
    }
    let companies: Vec<String> = q.companies.iter().flat_map(|c| c.to_lowercase().split_whitespace().map(str::to_string).collect::<Vec<_>>()).collect();
    let mut measure: Vec<String> = Vec::new();
    for (i, raw) in proper.split(|c: char| c.is_whitespace() || matches!(c, ',' | '?' | '(' | ')' | '"' | ':' | ';')).filter(|w| !w.is_empty()).enumerate() {
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        let w = w.strip_suffix("'s").or_else(|| w.strip_suffix("\u{2019}s")).unwrap_or(&w).to_string();
        let capital = i > 0 && raw.starts_with(char::is_uppercase);
        let possessive = raw.contains("'s") || raw.contains('\u{2019}');
        if w.is_empty()
            || w.chars().any(|c| c.is_ascii_digit())
            || NOT_MEASURE.contains(&w.as_str())
            || companies.contains(&w)
            || capital && (possessive || !MEASURE_WORDS.contains(&w.as_str()))
        {
            continue;
        }
        measure.push(w);
    }
    // the direction the question says the measure moved
    let said = |ws: &[&str]| lower.split(|c: char| !c.is_alphabetic()).any(|w| ws.contains(&w));
    let up = said(&["increase", "increased", "rise", "rose", "grow", "grew", "growth", "improve", "improved", "higher", "up"]);
    let down = said(&["decrease", "decreased", "decline", "declined", "fall", "fell", "drop", "dropped", "lower", "down", "deteriorate", "deteriorated"]);
    let direction = match (up, down) {
        (true, false) => Some(Direction::Up),
        (false, true) => Some(Direction::Down),
        _ => None,
    };
    (!measure.is_empty() && measure.len() <= 5).then(|| Asked { measure, years: q.years.clone(), quarters: q.quarters.clone(), direction, lower })
}

/// Words of a measure's name a question may capitalise ("What drove Operating Income ...").
const MEASURE_WORDS: &[&str] = &[
    "revenue",
    "revenues",
    "sales",
    "net",
    "gross",
    "operating",
    "income",
    "margin",
    "margins",
    "profit",
    "cash",
    "tax",
    "rate",
    "expenses",
    "expense",
    "earnings",
    "eps",
    "ebitda",
    "inventory",
    "inventories",
    "costs",
    "cost",
    "debt",
    "capital",
    "free",
    "flow",
];

/// A sentence that says why the measure changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Cause {
    /// Index of the page among those read.
    pub page: usize,
    /// The answer: the sentence, with the sentence before it when that holds its subject.
    pub answer: String,
    /// The sentences as printed, each to be boxed.
    pub quote: Vec<String>,
    /// The sentence's measure is a part's (a segment's, a region's) the question does not name.
    pub part: bool,
    score: f64,
}

/// What a text says of the measure asked: `None` when it does not name the measure before a
/// cause; else whether it is a part's, and the words that make it one.
fn says(a: &Asked, text: &str) -> Option<Option<String>> {
    if let Some(said) = says_in_order(a, text) {
        return Some(said);
    }
    // the cause said first ("Due to higher volumes, net sales increased 5%"): read as the
    // clause after it followed by the cause
    says_in_order(a, &cause_last(text)?)
}

/// "Due to X, Y changed." as "Y changed due to X.": the clause the sentence opens with, when it
/// is a cause ending in a comma, put after the rest; `None` for a sentence that does not open
/// with a cause.
fn cause_last(text: &str) -> Option<String> {
    const OPENS: &[&str] = &[
        "due to ",
        "primarily due to ",
        "mainly due to ",
        "largely due to ",
        "driven by ",
        "primarily driven by ",
        "as a result of ",
        "because of ",
        "owing to ",
        "reflecting ",
        "led by ",
    ];
    let t = text.trim();
    let l = t.to_lowercase();
    OPENS.iter().find(|o| l.starts_with(*o))?;
    let comma = t.find(", ")?;
    let rest = t[comma + 2..].trim().trim_end_matches('.');
    // (the rest a clause of its own: a word of change in it)
    if rest.split_whitespace().count() < 3 {
        return None;
    }
    let mut cause = t[..comma].to_string();
    // (a cause that only points elsewhere says none: "As a result of the factors discussed
    // above, ...")
    let lc = cause.to_lowercase();
    if ["above", "below", "foregoing", "these factors", "those factors"].iter().any(|w| lc.contains(w)) {
        return None;
    }
    if let Some(first) = cause.get(..1) {
        cause.replace_range(..1, &first.to_lowercase());
    }
    Some(format!("{rest} {cause}."))
}

fn says_in_order(a: &Asked, text: &str) -> Option<Option<String>> {
    if let Some(said) = says_as(a, &a.measure, text) {
        return Some(said);
    }
    // a gross margin moves as the cost of sales as a percent of sales moves the other way ("Cost
    // of products sold increased as a percent to sales driven by: ...")
    if !a.gross_margin() {
        return None;
    }
    let l = text.to_lowercase();
    let share = l[..cue_at(&l)?].contains("percent");
    COST_OF_SALES.iter().filter(|_| share).find_map(|c| says_as(a, &c.split(' ').map(str::to_string).collect::<Vec<_>>(), text))
}

/// Names of the cost of sales, whose share of sales is the gross margin's other side.
const COST_OF_SALES: &[&str] = &["cost products sold", "cost sales", "cost goods sold", "cost revenue", "cost revenues"];

fn says_as(a: &Asked, measure: &[String], text: &str) -> Option<Option<String>> {
    let l = text.to_lowercase();
    let cue = cue_at(&l)?;
    // (a sentence of what offset the change names the offset's cause: "the increase in net
    // sales was partially offset by a reduction ... due to divesting ...")
    if l[..cue].contains("offset") {
        return None;
    }
    // the words as printed, and where each starts in the lower-case text (the same words)
    let printed: Vec<&str> = text.split_whitespace().collect();
    let starts: Vec<usize> = l
        .split_whitespace()
        .scan(0usize, |at, w| {
            let start = l[*at..].find(w).map(|i| i + *at).unwrap_or(*at);
            *at = start + w.len();
            Some(start)
        })
        .collect();
    let words: Vec<(usize, &str)> = starts.into_iter().zip(printed).collect();
    let clean = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'').to_lowercase();
    let cleaned: Vec<String> = words.iter().map(|(_, w)| clean(w)).collect();
    // the first word of change: the measure is its subject ("Revenues increased ...", "The
    // increase in net sales ..."), not its object ("... impacted net sales by $2,759")
    // ... said before the cause ("... (a 1.9 percent impact on our effective tax rate) primarily
    // related to ... changes to our tax positions" says no change of the rate)
    let change = cleaned.iter().position(|w| CHANGE.contains(&w.as_str())).filter(|&k| words[k].0 < cue)?;
    let n = measure.len();
    let at = (0..words.len()).find_map(|i| {
        if words[i].0 >= cue || !measure.iter().any(|m| same_word(m, &cleaned[i])) {
            return None;
        }
        // the measure's words together, from here (a cost "of sales" is no sales)
        // (a measure after a preposition is an object, "recognized in loss from operations",
        // but for the change in it: "the increase in net sales")
        if i > 0 && PREPOSITIONS.contains(&cleaned[i - 1].as_str()) && !(cleaned[i - 1] == "in" && i >= 2 && CHANGE.contains(&cleaned[i - 2].as_str())) {
            let the_change_in = cleaned[i - 1] == "in" && (i.saturating_sub(4)..i - 1).any(|k| CHANGE.contains(&cleaned[k].as_str()));
            if !the_change_in {
                return None;
            }
        }
        let window = i..words.len().min(i + n + 2);
        let end = measure.iter().map(|m| window.clone().find(|&j| same_word(m, &cleaned[j]))).collect::<Option<Vec<usize>>>()?.into_iter().max()?;
        // ... and not the head of another item ("sales and marketing expenses", "sales tax")
        let next = |k: usize| cleaned.get(end + k).map(String::as_str).unwrap_or("");
        if ITEM_HEADS.contains(&next(1)) || next(1) == "and" && matches!(next(2), "marketing" | "administrative" | "general") {
            return None;
        }
        // ... nor its margin or rate when the measure itself is asked ("operating profit margin"
        // for operating profit)
        if matches!(next(1), "margin" | "margins" | "rate" | "ratio" | "percentage") && !measure.iter().any(|m| same_word(m, next(1))) {
            return None;
        }
        let subject = end < change || i > change && i <= change + 5 && cleaned.get(change + 1).is_some_and(|w| w == "in");
        subject.then_some((i, end))
    })?;
    let (at, last) = at;
    // the words heading the measure's name: a part's name, unless the question names it
    let mut part: Vec<&str> = Vec::new();
    for j in (at.saturating_sub(3)..at).rev() {
        let w = words[j].1;
        let c = clean(w);
        if w.ends_with([',', '.', ';', ':', ')']) || w.starts_with('(') || c.is_empty() || c.chars().all(|c| c.is_ascii_digit()) {
            break;
        }
        // (a word of change or a preposition ends the measure's name: "the decrease in the gross
        // profit rate")
        if CHANGE.contains(&c.as_str()) || PREPOSITIONS.contains(&c.as_str()) {
            break;
        }
        if WHOLE.contains(&c.as_str()) || measure.iter().any(|m| same_word(m, &c)) {
            if j + 1 < at && !part.is_empty() {
                break;
            }
            continue;
        }
        // a capitalised name or a lower-case kind ("casino revenue", "service revenue")
        part.push(w);
    }
    part.reverse();
    // ... or the words after it: "Revenue from Digital Experience", "net sales in North America"
    if part.is_empty() && matches!(cleaned.get(last + 1).map(String::as_str), Some("from" | "at" | "in" | "of" | "for")) {
        // the capitalised run after the preposition (a date or a period is none)
        for (_, name) in words.iter().skip(last + 2).take(3) {
            let c = clean(name);
            if !name.starts_with(char::is_uppercase)
                || MONTHS.iter().any(|m| c.starts_with(m))
                || matches!(c.as_str(), "fiscal" | "the" | "our" | "q1" | "q2" | "q3" | "q4" | "fy")
            {
                break;
            }
            part.push(name);
            if name.ends_with([',', '.', ';', ':']) {
                break;
            }
        }
    }
    let near_segment = words[at..words.len().min(at + 4)].iter().any(|(_, w)| clean(w).starts_with("segment"));
    let named = |p: &str| a.lower.contains(&p.to_lowercase());
    let part = if !part.is_empty() && !part.iter().all(|p| named(p)) {
        Some(part.join(" "))
    } else if near_segment && !a.lower.contains("segment") {
        Some("segment".to_string())
    } else {
        None
    };
    Some(part)
}

/// Years (19xx, 20xx) a text names.
fn years_in(text: &str) -> Vec<i32> {
    text.split(|c: char| !c.is_ascii_digit()).filter(|w| w.len() == 4 && (w.starts_with("19") || w.starts_with("20"))).filter_map(|w| w.parse().ok()).collect()
}

/// The direction a sentence says the measure moved, from its first word of change.
fn moved(text: &str) -> Option<Direction> {
    for w in text.to_lowercase().split(|c: char| !c.is_alphabetic()) {
        match w {
            "increased" | "increase" | "grew" | "rose" | "higher" | "improved" | "up" | "growth" => return Some(Direction::Up),
            "decreased" | "decrease" | "declined" | "decline" | "fell" | "lower" | "down" | "dropped" => return Some(Direction::Down),
            _ => {}
        }
    }
    None
}

/// A unit's sentence without the table rows run into it before it ("Total revenue $ 17,606 $
/// 15,785 12 % Overall revenue during fiscal 2022 increased ..."): the text from the last
/// capitalised word after a run of figures that still holds a sentence.
fn after_rows(u: &str) -> &str {
    let figure = |w: &str| !w.is_empty() && w.chars().any(|c| c.is_ascii_digit() || c == '%') && !w.chars().any(char::is_alphabetic);
    let mut prev_figure = false;
    let mut figures = 0;
    let mut best = u;
    for (i, w) in u.split_whitespace().map(|w| (w.as_ptr() as usize - u.as_ptr() as usize, w)) {
        if prev_figure && figures >= 4 && w.starts_with(char::is_uppercase) && u[i..].split_whitespace().count() >= 6 {
            best = &u[i..];
        }
        prev_figure = figure(w) || w == "$";
        figures += figure(w) as usize;
    }
    best
}

/// A unit in the pieces a cause is read from: its sentences where a no-break space follows the
/// full stop (some filings print every space as one, and the unit runs on: "... business
/// volume.\u{a0}These factors ..."), and a heading run into its sentence by a dash
/// ("Performance Revenues––Revenues decreased ...") apart from it.
fn pieces(u: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes: Vec<(usize, char)> = u.char_indices().collect();
    for (k, &(i, c)) in bytes.iter().enumerate() {
        let next = bytes.get(k + 1).map(|x| x.1);
        let after = bytes.get(k + 2).map(|x| x.1);
        let nbsp_end = c == '.' && next == Some('\u{a0}') && after.is_some_and(char::is_uppercase);
        let dash = matches!(c, '\u{2013}' | '\u{2014}')
            && next.is_some_and(char::is_uppercase)
            && u[..i].trim_end_matches(['\u{2013}', '\u{2014}']).ends_with(char::is_alphabetic);
        if nbsp_end || dash {
            let end = if nbsp_end { i + 1 } else { i };
            let piece = u[start..end].trim_end_matches(['\u{2013}', '\u{2014}']).trim();
            if !piece.is_empty() {
                out.push(piece.to_string());
            }
            start = if nbsp_end { i + 1 + '\u{a0}'.len_utf8() } else { i + c.len_utf8() };
        }
    }
    let rest = u[start..].trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    // the tail of a parenthesis opened on an earlier line ("... total sales) Cost of products
    // sold increased ...") is no part of the sentence after it
    out.into_iter()
        .map(|p| match p.find(") ") {
            Some(i) if !p[..i].contains('(') && p[i + 2..].starts_with(char::is_uppercase) => p[i + 2..].to_string(),
            _ => p,
        })
        .collect()
}

/// Whether a unit holds a sentence end before its last: ". " then a capital.
fn two_sentences(u: &str) -> bool {
    let t = u.trim_end();
    t.char_indices()
        .any(|(i, c)| c == '.' && t[i + 1..].starts_with(' ') && t[i + 2..].starts_with(char::is_uppercase) && !t[..i].ends_with(|c: char| c.is_uppercase()))
}

/// A sentence that leaves its subject to the one before ("The increase was primarily due to",
/// "These factors resulted in ...").
fn refers_back(u: &str) -> bool {
    let l = u.to_lowercase();
    let mut w = l.split_whitespace();
    if !matches!(w.next(), Some("the" | "this" | "these" | "such" | "that")) {
        return false;
    }
    // ("The decrease in International operating loss ..." names its own subject)
    let rest: Vec<&str> = w.take(5).collect();
    rest.iter()
        .enumerate()
        .take(4)
        .any(|(i, x)| (moved(x).is_some() || matches!(*x, "change" | "changes" | "factors" | "variance")) && !matches!(rest.get(i + 1), Some(&("in" | "of"))))
}

/// The sentence of `pages` that best says why the measure asked changed: the whole company's
/// before a part's, the year asked before none before another's, the direction asked first.
pub fn read(a: &Asked, pages: &[&str]) -> Option<Cause> {
    let mut best: Option<Cause> = None;
    for (pi, text) in pages.iter().enumerate() {
        let all: Vec<String> = units(text).iter().flat_map(|u| pieces(u)).collect();
        for (i, u) in all.iter().enumerate() {
            // (a short printed line of two sentences is read as its sentences)
            if crate::support::is_table_row(u) || u.split_whitespace().count() < 6 || !has_cue(u) || two_sentences(u) {
                continue;
            }
            // the sentence, or the sentence before it and it when it refers back
            let prev = (0..i).rev().find(|&j| !crate::support::is_table_row(&all[j]) && all[j].split_whitespace().count() >= 6);
            let (quote, said) = match says(a, after_rows(u)) {
                Some(p) => (vec![after_rows(u).to_string()], p),
                None => {
                    let Some(j) = prev.filter(|_| refers_back(u)) else { continue };
                    let both = format!("{} {}", all[j], u);
                    let Some(p) = says(a, &both) else { continue };
                    (vec![all[j].clone(), u.clone()], p)
                }
            };
            let text = quote.join(" ");
            let years = years_in(&text);
            let mut score = if said.is_some() { 0.0 } else { 2.0 };
            if !a.years.is_empty() {
                score += if years.iter().any(|y| a.years.contains(y)) {
                    1.0
                } else if years.is_empty() {
                    0.3
                } else {
                    -1.0
                };
            }
            match (a.direction, moved(&text)) {
                (Some(Direction::Up), Some(Direction::Up)) | (Some(Direction::Down), Some(Direction::Down)) => score += 0.5,
                (Some(Direction::Up), Some(Direction::Down)) | (Some(Direction::Down), Some(Direction::Up)) => score -= 0.5,
                _ => {}
            }
            if !a.quarters.is_empty() && part_year(&text) {
                score -= 1.0;
            }
            let l = text.to_lowercase();
            if l.contains("consolidated") || l.contains("total ") {
                score += 0.2;
            }
            score -= 0.05 * pi as f64;
            if best.as_ref().is_none_or(|b| score > b.score) {
                best = Some(Cause { page: pi, answer: text, quote, part: said.is_some(), score });
            }
        }
    }
    best
}

/// Whether a quote says why the measure a cause question asks about changed, for the whole
/// company or a part the question names: `None` when the question asks no cause of a measure.
pub fn quote_holds(q: &Question, quote: Option<&str>, page: &str) -> Option<bool> {
    Some(unsaid(q, quote, page).is_none()).filter(|_| asked(q).is_some())
}

/// Why a quote does not say the cause asked, in words: the measure asked and what the quote
/// does instead ("does not name <measure> before a cause", "is about a part's <measure>", ...);
/// `None` when it says it (or no cause of a measure is asked).
pub fn unsaid(q: &Question, quote: Option<&str>, page: &str) -> Option<(String, String)> {
    let a = asked(q)?;
    let text = quote.unwrap_or_default().split(crate::evidence::QUOTE_GAP).collect::<Vec<_>>().join(" ");
    let name = a.name();
    let why = match says(&a, &text) {
        None => format!("does not name {name} before a cause"),
        Some(Some(part)) => format!("is about a part's {name} (\"{part}\"), not the company's"),
        Some(None) => {
            if let Some(part) = page_part(&a, page) {
                format!("is on the page of a part of the company (\"{part}\"), not about its whole {name}")
            } else if !a.years.is_empty() && !dated(&a, &text) {
                "names neither the year asked nor a change against an earlier period (a general statement)".to_string()
            } else if !q.quarters.is_empty() && part_year(&text) {
                "is about the year to date, and the question asks about a quarter".to_string()
            } else if opposite(a.direction, subject_moved(&text).map(|d| if says_as(&a, &a.measure, &text).is_none() { flip(d) } else { d })) {
                format!("says {name} moved the other way than the question says")
            } else {
                return None;
            }
        }
    };
    Some((name, why))
}

/// The part of the company a page is about, by its heading: a first line in capitals that is no
/// statement's or section's title and names nothing the question names ("COMMERCIAL BANKING").
fn page_part(a: &Asked, page: &str) -> Option<String> {
    const TITLES: &[&str] = &[
        "CONSOLIDATED",
        "RESULTS",
        "MANAGEMENT",
        "DISCUSSION",
        "ANALYSIS",
        "OVERVIEW",
        "FINANCIAL",
        "STATEMENTS",
        "ITEM",
        "PART",
        "TABLE",
        "CONTENTS",
        "NOTES",
        "EXECUTIVE",
        "SUMMARY",
        "OPERATIONS",
        "LIQUIDITY",
        "CRITICAL",
        "ACCOUNTING",
        "HIGHLIGHTS",
        "OUTLOOK",
        "RISK",
        "CAPITAL",
        "INDEX",
        "FORM",
        "QUARTERLY",
        "ANNUAL",
        "REPORT",
        "SELECTED",
        "DATA",
        "SUPPLEMENTARY",
        "INFORMATION",
        "BUSINESS",
    ];
    let first = page.lines().map(str::trim).find(|l| !l.is_empty())?;
    let words: Vec<&str> = first.split_whitespace().collect();
    let letters: Vec<char> = first.chars().filter(|c| c.is_alphabetic()).collect();
    let capitals = letters.len() >= 6 && letters.iter().all(|c| c.is_uppercase()) && !first.chars().any(|c| c.is_ascii_digit());
    if !capitals || words.len() > 5 || words.iter().any(|w| TITLES.contains(&w.trim_matches(|c: char| !c.is_alphabetic()))) {
        return None;
    }
    (!words.iter().any(|w| a.lower.contains(&w.to_lowercase()))).then(|| first.to_string())
}

/// Whether a cause sentence is dated: it names a year asked, or compares with an earlier period
/// ("compared to the prior year", "year-over-year", "the increase", "increased 18%"), rather than
/// saying what moves the measure in general ("Increases in operating income primarily result
/// from ...").
fn dated(a: &Asked, text: &str) -> bool {
    const COMPARED: &[&str] = &[
        "prior year",
        "previous year",
        "year-over-year",
        "year over year",
        "year-on-year",
        "last year",
        "compared to",
        "compared with",
        "versus",
        "from the prior",
        "prior-year",
        "same period",
        "a year ago",
        "year-ago",
    ];
    let l = text.to_lowercase();
    if years_in(text).iter().any(|y| a.years.contains(y)) || COMPARED.iter().any(|c| l.contains(c)) {
        return true;
    }
    // a change said in the past tense before its cause is an event of the filing's period
    // ("Cost of products sold increased as a percent to sales driven by: ...")
    const PAST: &[&str] = &["increased", "decreased", "declined", "grew", "rose", "fell", "improved", "dropped", "changed"];
    let before = &l[..cue_at(&l).unwrap_or(l.len())];
    if before.split(|c: char| !c.is_alphabetic()).any(|x| PAST.contains(&x)) {
        return true;
    }
    // ... or named as "the increase", or with its size ("increased 18%"), before the cause (what
    // follows is the cause's: "attributable to the increase (decrease) in volume")
    let w: Vec<&str> = before.split_whitespace().collect();
    w.windows(2).any(|p| matches!(p[0], "the" | "this" | "these") && CHANGE.contains(&p[1].trim_matches(|c: char| !c.is_alphabetic())))
        || w.windows(3).any(|p| CHANGE.contains(&p[0]) && p[1..].iter().any(|x| x.chars().any(|c| c.is_ascii_digit())))
}

/// Whether a text is about a part of the year to date ("the first six months").
fn part_year(text: &str) -> bool {
    let l = text.to_lowercase();
    ["six months", "nine months", "year to date", "year-to-date", "first half"].iter().any(|p| l.contains(p))
        && !l.contains("three months")
        && !l.contains("quarter")
}

/// The direction the measure moved: the first word of change before the cause.
fn subject_moved(text: &str) -> Option<Direction> {
    // (before the cause: "The 5 percent increase in net sales ... reflects ..., partially offset
    // by a decrease in ...")
    let l = text.to_lowercase();
    moved(&l[..cue_at(&l).unwrap_or(l.len())])
}

/// The other direction (the cost of sales' share moves against the gross margin).
fn flip(d: Direction) -> Direction {
    match d {
        Direction::Up => Direction::Down,
        Direction::Down => Direction::Up,
        Direction::Either => Direction::Either,
    }
}

fn opposite(asked: Option<Direction>, said: Option<Direction>) -> bool {
    matches!((asked, said), (Some(Direction::Up), Some(Direction::Down)) | (Some(Direction::Down), Some(Direction::Up)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Question {
        let mut q = Question::parse(text);
        q.companies = vec!["Boeing".into(), "MGM Resorts".into(), "Amazon".into(), "Johnson & Johnson".into()];
        q
    }

    #[test]
    fn the_measure_asked_is_the_question_less_its_asking_words() {
        assert_eq!(asked(&q("What drove MGM Resorts' revenue decline in 2020?")).unwrap().measure, ["revenue"]);
        assert_eq!(asked(&q("Why did Amazon's operating income increase in 2019?")).unwrap().measure, ["operating", "income"]);
        let a = asked(&q("What drove gross margin change as of FY2022 for JnJ? If gross margin is not a useful metric, say why.")).unwrap();
        assert_eq!(a.measure, ["gross", "margin"]);
        assert_eq!(
            asked(&q("What drove the increase in Ulta Beauty's merchandise inventories balance at end of FY2023?")).unwrap().measure,
            ["merchandise", "inventories"]
        );
        assert!(asked(&q("What was Boeing's revenue in 2022?")).is_none());
    }

    #[test]
    fn the_whole_company_before_a_part_and_the_subject_from_the_sentence_before() {
        let page = "Revenues increased by $4,322 million in 2022 compared with 2021 driven by higher revenues at BCA and BGS, partially offset by lower revenues at BDS. BCA revenues increased by $6,374 million primarily driven by higher 737 and 787 deliveries.\n";
        let a = asked(&q("What drove Boeing's revenue increase in 2022?")).unwrap();
        let c = read(&a, &[page]).unwrap();
        assert!(c.answer.starts_with("Revenues increased by $4,322") && !c.part, "{c:?}");
        // a part's sentence alone is a part's
        let c = read(&a, &["BCA revenues increased by $6,374 million primarily driven by higher 737 and 787 deliveries.\n"]).unwrap();
        assert!(c.part, "{c:?}");
        // ... unless the question names the part
        let bca = asked(&q("What drove BCA revenues up in 2022?")).unwrap();
        assert!(!read(&bca, &["BCA revenues increased by $6,374 million primarily driven by higher 737 and 787 deliveries.\n"]).unwrap().part);
        let page = "Merchandise inventories, net at the end of the fourth quarter of fiscal 2022 totaled $1.6 billion compared to $1.5 billion at the end of the fourth quarter of fiscal 2021. The $104.2 million increase was primarily due to the opening of 47 new stores.\n";
        let a = asked(&q("What drove the increase in Ulta Beauty's merchandise inventories balance at end of FY2023?")).unwrap();
        let c = read(&a, &[page]).unwrap();
        assert_eq!(c.quote.len(), 2, "{c:?}");
        assert!(!c.part);
    }

    #[test]
    fn a_cause_said_before_the_measure_is_read() {
        let rev = q("What drove Boeing's revenue increase in 2022?");
        let first = "Due to higher commercial deliveries, revenues increased by $4,322 million in 2022 compared with 2021.";
        assert_eq!(quote_holds(&rev, Some(first), ""), Some(true));
        let c = read(&asked(&rev).unwrap(), &[first]).unwrap();
        assert_eq!(c.answer, first);
        assert!(!c.part);
        // the measure in the cause, not in the clause that changed
        assert_eq!(quote_holds(&rev, Some("Due to higher revenues at BCA, operating income increased by $3 billion."), ""), Some(false));
        // a cause first and no change after it
        assert_eq!(quote_holds(&rev, Some("Due to the adoption of the new standard, revenue is recognized over time."), ""), Some(false));
        // a cause that only points to others is none
        assert_eq!(quote_holds(&rev, Some("As a result of the factors discussed above, revenues increased by $4,322 million in 2022."), ""), Some(false));
        // a part's
        let bca = "As a result of higher 737 deliveries, BCA revenues increased by $6,374 million.";
        assert!(read(&asked(&rev).unwrap(), &[bca]).unwrap().part);
    }

    #[test]
    fn a_sentence_of_another_measure_or_a_segment_says_nothing_of_the_whole() {
        let q3m = q("Why did 3M's operating margin decline in 2022?");
        let growth =
            "Growth from continued improving general industrial manufacturing activity was partially offset by the disposable respirator sales decline.";
        assert_eq!(quote_holds(&q3m, Some(growth), ""), Some(false));
        let seg = "Business segment operating income margins decreased year-on-year due to special item costs for significant litigation.";
        assert_eq!(quote_holds(&q3m, Some(seg), ""), Some(false));
        assert!(unsaid(&q3m, Some(seg), "").unwrap().1.contains("part"));
        let whole = "Operating income margins decreased in 2022 primarily due to special item costs for significant litigation.";
        assert_eq!(quote_holds(&q3m, Some(whole), ""), Some(true));
        let amzn = q("Why did Amazon's operating income increase in 2019?");
        let na = "The decrease in North America operating income in absolute dollars in 2019, compared to the prior year, is primarily due to increased shipping costs.";
        assert_eq!(quote_holds(&amzn, Some(na), ""), Some(false));
        // the measure named only after the cause is the cause, not the subject
        let rev = q("What drove Boeing's revenue increase in 2022?");
        assert_eq!(quote_holds(&rev, Some("Operating income increased primarily due to higher revenues at BCA."), ""), Some(false));
        assert_eq!(quote_holds(&q("What was Boeing's revenue in 2022?"), Some("x"), ""), None);
        // a measure that is the object of the change, a cost "of sales", a kind of the measure
        let costco = q("What drove Costco's net sales growth in fiscal 2021?");
        let fx = "Changes in foreign currencies relative to the U.S. dollar positively impacted net sales by approximately $2,759, compared to 2020, attributable to our Canadian operations.";
        assert_eq!(quote_holds(&costco, Some(fx), ""), Some(false));
        assert_eq!(quote_holds(&costco, Some("Net sales increased 18% to $192,052 driven by a 16% increase in comparable sales."), ""), Some(true));
        let cost = "Cost of sales, for both products and services, increased primarily due to raw materials.";
        assert_eq!(quote_holds(&rev, Some(cost), ""), Some(false));
        let mgm = q("What drove MGM Resorts' revenue decline in 2020?");
        let casino = "Las Vegas Strip Resorts casino revenue decreased 44% in 2020 compared to 2019 due primarily to the impact of COVID-19.";
        assert_eq!(quote_holds(&mgm, Some(casino), ""), Some(false));
        let whole = "Consolidated net revenues in 2020 decreased 60% compared to 2019 due primarily to the impact of COVID-19.";
        assert_eq!(quote_holds(&mgm, Some(whole), ""), Some(true));
        let wmt = q("Why did Walmart's gross profit rate change in fiscal 2018?");
        let intl = "Overall gross profit rate for Walmart International is lower than that of Walmart U.S. primarily because of its merchandise mix.";
        assert_eq!(quote_holds(&wmt, Some(intl), ""), Some(false));
        let wmt_whole = "For fiscal 2018, the decrease in the gross profit rate was primarily due to strategic price investments in certain markets.";
        assert_eq!(quote_holds(&wmt, Some(wmt_whole), ""), Some(true));
        let gis = q("Why did General Mills' net sales change in fiscal 2019?");
        let organic = "Organic net sales in fiscal 2019 were flat compared to fiscal 2018, as favorable organic net price realization and mix was offset by declining contributions.";
        assert_eq!(quote_holds(&gis, Some(organic), ""), Some(false));
        assert_eq!(quote_holds(&gis, Some("The 7 percent increase in net sales in fiscal 2019 reflects the addition of Blue Buffalo."), ""), Some(true));
        let rows = "Percentage of total revenue 16 % 16 % 16 % Total revenue $ 17,606 $ 15,785 $ 12,868 12 % Overall revenue during fiscal 2022 increased in all geographic regions primarily due to increases in Digital Media revenue.";
        assert!(read(&asked(&q("What drove Adobe's revenue growth in 2022?")).unwrap(), &[rows]).unwrap().answer.starts_with("Overall revenue during"));
        let definition = "1 Represents the percent change in net operating revenues attributable to the increase (decrease) in concentrate sales volume.";
        assert!(unsaid(&q("Why did Coca-Cola's net operating revenues decline in 2017?"), Some(definition), "").unwrap().1.contains("general"));
        // (a loss is not read as the income asked: a part's "earnings from operations" would be
        // taken for the company's operating loss)
        let mgm = q("Why did MGM's operating income decline in 2020?");
        let loss = "Consolidated operating loss was $642 million for the year ended December 31, 2020 compared to operating income of $3.9 billion in 2019, due primarily to the impact of COVID-19.";
        assert_eq!(quote_holds(&mgm, Some(loss), ""), Some(false));
        let sales = "Net sales were $5.2 billion compared to $4.9 billion in 2020, due primarily to higher volume.";
        assert_eq!(quote_holds(&q("Why did Boeing's net sales change in 2020?"), Some(sales), ""), Some(true));
        let wmt = q("What drove the change in Walmart's net sales in fiscal 2018?");
        let offset = "Additionally, for fiscal 2018, the increase in net sales was partially offset by a reduction in net sales of $1.9 billion due to divesting our Yihaodian business.";
        assert_eq!(quote_holds(&wmt, Some(offset), ""), Some(false));
        let gis = q("What drove General Mills' operating profit change in fiscal 2019?");
        let margin = "Operating profit margin of 14.9 percent was down 50 basis points from year-ago levels primarily driven by impairment charges.";
        assert_eq!(quote_holds(&gis, Some(margin), ""), Some(false));
        assert!(asked(&q("What factors drove Verizon's revenue change in 2021?")).is_some());
        let jnj = q("What drove gross margin change as of FY2022 for JnJ?");
        let cogs = "Cost of products sold increased as a percent to sales driven by: one-time COVID-19 vaccine manufacturing exit related costs.";
        assert_eq!(quote_holds(&jnj, Some(cogs), ""), Some(true));
        assert_eq!(quote_holds(&q("Why did J&J's gross margin decline in 2022?"), Some(cogs), ""), Some(true));
        assert!(unsaid(&q("Why did J&J's gross margin improve in 2022?"), Some(cogs), "").unwrap().1.contains("other way"));
        assert_eq!(quote_holds(&jnj, Some("Cost of products sold increased by $1.2 billion driven by higher volume."), ""), Some(false));
        let ko = q("Why did Coca-Cola's effective tax rate rise in 2017?");
        let note = "Includes tax expense of $157 million (or a 1.9 percent impact on our effective tax rate) primarily related to amounts recorded for changes to our uncertain tax positions.";
        assert_eq!(quote_holds(&ko, Some(note), ""), Some(false));
        let adbe = q("What drove Adobe's revenue growth in 2022?");
        assert_eq!(quote_holds(&adbe, Some("Sales and marketing expenses increased due to the following:"), ""), Some(false));
        // a sentence naming its own subject does not take the one before as its subject
        let page = "Changes in foreign exchange rates impacted operating income by $17 million and $23 million for 2018 and 2019. The decrease in International operating loss in absolute dollars in 2019 is primarily due to increased unit sales.\n";
        assert!(read(&amzn_asked(), &[page]).is_none_or(|c| c.part));
    }

    #[test]
    fn a_general_statement_a_part_s_page_a_year_to_date_or_the_other_way_is_not_the_cause_asked() {
        let amzn = q("Why did Amazon's operating income increase in 2019?");
        let general = "Increases in operating income primarily result from increases in sales of products and services.";
        assert!(unsaid(&amzn, Some(general), "").unwrap().1.contains("general statement"));
        let jpm = q("Why did JPMorgan's net income change in the first quarter of 2021?");
        let line = "Net income was $1.2 billion, up $1.0 billion, predominantly driven by a decrease in the provision for credit losses.";
        assert!(unsaid(&jpm, Some(line), "COMMERCIAL BANKING\nSelected income statement data\n").unwrap().1.contains("COMMERCIAL BANKING"));
        assert_eq!(quote_holds(&jpm, Some(line), "Management's discussion and analysis\n"), Some(true));
        let pfe = q("Why did Pfizer's revenues fall in the second quarter of 2023?");
        let ytd = "Revenues decreased $22.4 billion, or 42%, in the first six months of 2023, reflecting an operational decrease.";
        assert!(unsaid(&pfe, Some(ytd), "").unwrap().1.contains("year to date"));
        let q2 = "Revenues decreased $15.0 billion, or 54%, in the second quarter of 2023 to $12.7 billion, reflecting an operational decrease.";
        let c = read(&asked(&pfe).unwrap(), &[&format!("{ytd}\n{q2}\n")]).unwrap();
        assert!(c.answer.contains("second quarter"), "{c:?}");
        let amd = q("Why did AMD's net revenue increase in 2015?");
        let down = "Net revenue decreased 28% in 2015 compared to 2014 primarily due to lower client processor sales.";
        assert!(unsaid(&amd, Some(down), "").unwrap().1.contains("other way"));
        // what offsets a decrease is not its cause; a measure after a preposition is an object
        assert_eq!(
            quote_holds(&amd, Some("The decrease in net revenue was partially offset by an increase in net revenue from SoC products."), ""),
            Some(false)
        );
        let ba = q("What drove Boeing's operating loss in 2022?");
        let pension =
            "The pension FAS/CAS service cost adjustment recognized in Loss from operations in 2022 decreased by $33 million due to lower pension cost.";
        assert_eq!(quote_holds(&ba, Some(pension), ""), Some(false));
    }

    fn amzn_asked() -> Asked {
        asked(&q("Why did Amazon's operating income increase in 2019?")).unwrap()
    }

    #[test]
    fn sentences_run_on_by_no_break_spaces_or_a_heading_s_dash_are_read_apart() {
        let u =
            "Consolidated\u{a0}net revenues decreased 60% due primarily to closures.\u{a0}These\u{a0}factors resulted in a 77% decrease at MGM China, and a";
        assert_eq!(pieces(u).len(), 2, "{:?}", pieces(u));
        assert!(pieces(u)[0].ends_with("closures."));
        let u = "Our Second Quarter 2023 Performance Revenues\u{2013}\u{2013}Revenues decreased $15.0 billion in the second quarter of 2023, reflecting lower sales.";
        assert_eq!(pieces(u).last().unwrap(), "Revenues decreased $15.0 billion in the second quarter of 2023, reflecting lower sales.");
        assert_eq!(
            pieces("Percentages are as a percent to total sales) Cost of products sold increased driven by:"),
            ["Cost of products sold increased driven by:"]
        );
    }

    #[test]
    fn the_year_asked_before_another_year() {
        let page = "For fiscal 2018, the gross profit rate decreased primarily due to strategic price investments. For fiscal 2017, the gross profit rate increased primarily due to improved margin in food.\n";
        let a = asked(&q("Why did Walmart's gross profit rate change in fiscal 2017?")).unwrap();
        assert!(read(&a, &[page]).unwrap().answer.starts_with("For fiscal 2017"));
    }
}
