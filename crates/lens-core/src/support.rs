//! How well the cited page supports an answer, judged from the page itself, and when a question
//! is off the library's topic. Pure functions: the caller gives texts, this says `strong`,
//! `weak` or `none` with the reasons, which the app shows so that a weak answer never looks
//! like a supported one.
//!
//! An answer is **strong** when its evidence was found on the cited page (its quote, its
//! computed operands, or every figure it states), the page mentions the fiscal years the
//! question names, the cited document is one the question names (when it names one), and the
//! page holds a fair share of the question's words, on the line the answer rests on, which is a
//! statement or a row with figures, not a label that only names them ([`is_label`]). Anything
//! less is **weak** ("Best match, low
//! confidence: check the page"); an answer that cites nothing, or "Not found", has **none**.
//!
//! An answer to a question that names nothing of the library and whose best line does not hold
//! it is off-topic ([`off_topic`]) and is shown as "Not found". (How much of the question the
//! pages read hold, alone, does not separate off-topic questions: BM25 finds pages with a
//! question's rare words; see README, Honest confidence.)

use crate::evidence::{numbers, same_number, FoundBy};
use crate::figures::catalogue::{has_words, norm};
use crate::figures::table::MONTHS;
use crate::question::{Operation, Question, ValueType};
use crate::text::tokenize;
use regex::Regex;
use std::collections::HashSet;
use std::sync::LazyLock;

named_enum!(
    /// How well the cited page supports the answer.
    #[derive(Default)]
    pub enum Support("support") {
        Strong = "strong",
        Weak = "weak",
        #[default]
        None = "none",
    }
);

/// Share of the question's content words the quoted line must hold.
pub const MIN_LINE_SHARE: f64 = 0.6;

/// Share of the question's content words below which the cited page is weak support.
pub const MIN_TERM_SHARE: f64 = 0.3;

/// What the judgement looks at.
pub struct Claim<'a> {
    pub question: &'a Question,
    pub answer: &'a str,
    pub not_found: bool,
    pub cited: bool,
    pub found_by: FoundBy,
    /// The first cited page's text.
    pub page_text: &'a str,
    /// The quoted (or boxed) line the answer rests on.
    pub quote: Option<&'a str>,
    /// Fiscal years the question names (from the document filter).
    pub years: &'a [i32],
    /// Whether the cited document is among those the question names (None: it names none).
    pub in_scope: Option<bool>,
    /// When the question names no company and the library holds several: their names.
    pub unnamed_among: &'a [String],
    /// What a worked answer says to check (its calculation's caveat).
    pub caveat: Option<&'a str>,
    /// The fiscal year of the cited document, when known: a narrative answer from the filing of
    /// the year asked need not name the year on its page.
    pub doc_year: Option<i32>,
    /// The answer is a whole list by the filing's own count (`crate::lists::list_complete`):
    /// the line need not hold the question's words.
    pub list_complete: bool,
}

/// Share of `terms` that occur in `text` (1.0 when there are none).
pub fn term_share(terms: &HashSet<String>, text: &str) -> f64 {
    if terms.is_empty() {
        return 1.0;
    }
    let toks: HashSet<String> = tokenize(text).into_iter().map(|t| t.text).collect();
    terms.iter().filter(|t| toks.contains(*t)).count() as f64 / terms.len() as f64
}

/// Whether a text states a ratio-like figure: a percentage, a multiple ("3.2x") or a number with
/// decimals below 100 ("1.02", "0.715").
pub fn states_ratio(text: &str) -> bool {
    static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\d\s*%|\d(?:\.\d+)?x\b|\bpercent").expect("valid regex"));
    RE.is_match(text) || tokenize(text).iter().any(|t| t.is_number && t.text.contains('.') && t.text.parse::<f64>().is_ok_and(|v| v.abs() < 100.0))
}

/// The years a line names (1990-2059 as whole words: "fiscal 2016", "December 31, 2022",
/// "FY2017"), each once, in order.
pub fn years_named(line: &str) -> Vec<i32> {
    static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?:\b|fy|FY)((?:19|20)\d{2})\b").expect("valid regex"));
    let mut out: Vec<i32> = Vec::new();
    for c in RE.captures_iter(line) {
        if let Ok(y) = c[1].parse::<i32>() {
            if (1990..2060).contains(&y) && !out.contains(&y) {
                out.push(y);
            }
        }
    }
    out
}

/// Whether a line is a table row: a short label followed by two or more figures.
pub fn is_table_row(line: &str) -> bool {
    let figures = numbers(line).iter().filter(|(n, ..)| n.salient && !n.is_year).count();
    let words = tokenize(line).into_iter().filter(|t| !t.is_number).count();
    figures >= 2 && words <= 10
}

/// Most words a line may have and still be a label ([`is_label`]).
pub const LABEL_MAX_WORDS: usize = 6;

/// Whether a line is a label rather than a statement: a heading, a table row's name or a list
/// entry ("Capital Safety Group EMEA France", "United States: State Activity", "Mtre Laurent
/// Nahmiash"): at most [`LABEL_MAX_WORDS`] words, no figure but years, no sentence end and no
/// auxiliary verb ("is", "was", "has", ...: "Paris is the capital of France" says something). Such a
/// line that holds the question's words names what was asked; it does not say it, so it is not a
/// supported answer.
pub fn is_label(line: &str) -> bool {
    const AUXILIARIES: [&str; 16] = ["is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "will", "would", "can", "may", "does", "did"];
    let line = line.trim();
    let words: Vec<String> = tokenize(line).into_iter().filter(|t| !t.is_number).map(|t| t.text).collect();
    let words_n = words.len();
    words_n > 0
        && words_n <= LABEL_MAX_WORDS
        && !words.iter().any(|w| AUXILIARIES.contains(&w.as_str()))
        && !numbers(line).iter().any(|(n, ..)| !n.is_year)
        && !line.ends_with(['.', '!', '?'])
}

/// Whether an answer is to a question off the library's topic: the question names nothing the
/// library holds (no company or document of it, none picked by hand: `named` is false) and the
/// line the answer rests on does not answer it: it holds less than [`MIN_LINE_SHARE`] of the
/// question's words, or it is a label ([`is_label`]) that merely names them. Such a best match
/// ("What is the capital of France?" answered from an exhibit's "Capital Safety Group EMEA
/// France") is shown as "Not found", with the pages read still listed.
pub fn off_topic(named: bool, question: &Question, line: &str) -> bool {
    !named && (term_share(&question.terms.iter().cloned().collect(), line) < MIN_LINE_SHARE || is_label(line))
}

/// A word's first six letters: how a measure's words are matched ("interest" is not
/// "International", "liabilities" is "liability").
fn stem(w: &str) -> String {
    w.chars().take(6).collect()
}

/// Words that, right after a measure's name, make it another item: "goodwill impairment" is a
/// charge, not the goodwill held.
const ANOTHER_ITEM_AFTER: [&str; 8] = ["impairment", "impairments", "amortization", "write-down", "write-off", "writedown", "charge", "charges"];

/// What a quoted line `l` (lower case) lacks of what the question names, each said: the measure
/// asked only as part of another item ("How much goodwill does 3M have?" answered by "a goodwill
/// impairment charge of $0.3 billion"); a period's boundary asked ("When does Adobe's fiscal
/// year end?") and no month named; the thing a "What is X's <thing>?" asks in words ("credit
/// rating") not named; a "which <kind>" asked ("Which segment ...") and no such kind named.
fn named_as_asked(q: &Question, l: &str) -> Vec<String> {
    let mut why = Vec::new();
    let text = q.text.to_lowercase().replace('’', "'");
    let words = |s: &str| -> Vec<String> { s.split(|c: char| !c.is_alphanumeric() && c != '-').filter(|w| !w.is_empty()).map(str::to_string).collect() };
    let line_words = words(l);
    let q_words = words(&text);
    if let Some(head) = measure_head(q) {
        let after: Vec<&str> = line_words.windows(2).filter(|w| w[0] == head).map(|w| w[1].as_str()).collect();
        if !after.is_empty() && after.iter().all(|a| ANOTHER_ITEM_AFTER.contains(a) && !q_words.iter().any(|w| w == a)) {
            why.push(format!("the quoted line names {head} only as another item (\"{head} {}\")", after[0]));
        }
    }
    if text.starts_with("when ") && ["end", "ends", "begin", "begins", "start", "starts"].iter().any(|w| q_words.iter().any(|q| q == w)) {
        let month = crate::figures::table::MONTHS
            .iter()
            .any(|m| line_words.iter().any(|w| w == m || (w.len() >= 3 && m.starts_with(w.as_str()) && w.len() < m.len() && w.len() <= 4)));
        if !month {
            why.push("the question asks when a period ends or begins and the quoted line names no month".to_string());
        }
    }
    // "What is AMD's credit rating?": the thing asked in words, named on the line
    if q.operation == crate::question::Operation::Narrative && text.starts_with("what is ") {
        let phrase = measure_phrase(q);
        if let Some(w) = phrase.iter().find(|m| !line_words.iter().any(|w| w.starts_with(&stem(m)))) {
            why.push(format!("the quoted line does not name \"{w}\", of what was asked"));
        }
    }
    // "Which segment grew the fastest?" answered by a sentence: the sentence must make the
    // comparison, not only name a segment (a ranking worked from a table is checked elsewhere)
    if q.operation == crate::question::Operation::Narrative {
        if let Some(sup) = q_words.iter().find(|w| SUPERLATIVES.contains(&w.as_str())).filter(|_| !text.contains("most recent")) {
            if !line_words.iter().any(|w| SUPERLATIVES.contains(&w.as_str()) || COMPARING.contains(&w.as_str())) {
                why.push(format!("the question asks which is {sup} and the quoted line compares nothing"));
            }
        }
    }
    // "Who are the primary customers of Boeing?": a line that says who they are ("revenues
    // from a limited number of commercial airlines", "customers include"), not one that only
    // mentions customers ("Boeing customers have the financing they need")
    if text.starts_with("who ") {
        if let Some((kind, says)) = WHO_SAYS.iter().find(|(k, _)| q_words.iter().any(|w| w.trim_end_matches('s') == *k)) {
            if !says.iter().any(|p| l.contains(p)) {
                why.push(format!("the question asks who the {kind}s are and the quoted line does not say"));
            }
        }
    }
    if let Some(kind) = text.strip_prefix("which ").and_then(|r| r.split_whitespace().next()).map(|k| k.trim_matches(|c: char| !c.is_alphanumeric())) {
        if kind.len() > 3
            && !["of", "one", "the", "year", "years"].contains(&kind)
            && !line_words.iter().any(|w| w.starts_with(&stem(kind).trim_end_matches('s').to_string()))
        {
            why.push(format!("the question asks which {kind} and the quoted line names none"));
        }
    }
    why
}

/// For "who are the customers / competitors / suppliers": the phrases of a line that says who.
const WHO_SAYS: &[(&str, &[&str])] = &[
    (
        "customer",
        &[
            "customers include",
            "customers are",
            "customer is",
            "customers consist",
            "customers such as",
            "customers were",
            "sales to",
            "revenues from",
            "revenue from",
            "accounted for",
            "largest customer",
            "major customer",
            "principal customer",
            "significant customer",
            "sell to",
            "sells to",
            "sold to",
        ],
    ),
    ("competitor", &["compete with", "competes with", "competitors include", "competitors are", "competition from", "compete against", "competitors such as"]),
    (
        "supplier",
        &["suppliers include", "suppliers are", "supplied by", "purchase from", "purchases from", "sole source", "single source", "suppliers such as"],
    ),
];

/// Words of a question that ask for the first or last of several.
const SUPERLATIVES: &[&str] =
    &["fastest", "slowest", "highest", "lowest", "largest", "biggest", "greatest", "smallest", "strongest", "weakest", "best", "worst", "most", "least"];
/// Words of a line that compare (with the superlatives): "led by", "outpaced", "more than".
const COMPARING: &[&str] = &["led", "leading", "outpaced", "outperformed", "exceeded", "ahead", "more", "less", "higher", "lower", "larger", "faster"];

/// Seven green and wrong after retrieval changed (the batteries of half a): what a quoted line
/// must hold to answer the question as asked, beyond naming its measure. Empty: nothing amiss.
fn says_what_was_asked(q: &Question, line: &str) -> Vec<String> {
    let mut why = Vec::new();
    let l = line.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    let text = q.text.to_lowercase().replace('’', "'");
    let line_words: Vec<&str> = l.split(|c: char| !c.is_alphanumeric() && c != '-').filter(|w| !w.is_empty()).collect();
    // "... filed as Exhibit 10.66 to AMD's Annual Report ... for the fiscal year ended December
    // 27, 2014, is hereby incorporated by reference": a pointer to another document
    if l.contains("incorporated by reference") || l.contains("incorporated herein by reference") {
        why.push("the quoted line points to another document (incorporated by reference)".to_string());
    }
    // "What is Johnson & Johnson's credit rating?": a grade (AA-, Aaa, Baa2), not a sentence
    // about others' ratings
    if text.contains("credit rating") || text.contains("debt rating") {
        static GRADE: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"\b(?:AAA|AA[+-]?|A[+-]|BBB[+-]?|BB[+-]?|Aaa|Aa[1-3]|A[1-3]|Baa[1-3]|Ba[1-3]|P-[1-3])(?:\W|$)").expect("valid regex"));
        if !GRADE.is_match(line) {
            why.push("the question asks for a credit rating and the quoted line states no rating grade".to_string());
        }
    }
    // "What did Verizon pay in dividends per share?": a per-share figure, not a preferred
    // share's 8.25% per annum
    if text.contains("per share") && !l.contains("per share") && !l.contains("per common share") {
        why.push("the question asks for a figure per share and the quoted line states none".to_string());
    }
    // "How much debt does Pfizer have?": what is held, not what was issued or repaid in a quarter
    let held = [" have", " hold", " held", " outstanding", " owe"].iter().any(|w| text.contains(w)) && !text.contains(" issue") && !text.contains(" repa");
    if held {
        if let Some(v) = ["issued", "repaid", "redeemed", "borrowed", "retired"].iter().find(|v| line_words.contains(v)) {
            why.push(format!("the question asks what is held and the quoted line states what was {v}"));
        }
    }
    // "how much money did AMD make in 2015": a figure on a line that holds none of the question's
    // own words (a credit agreement's $1.5 billion of liens) answers nothing asked
    if q.operation == crate::question::Operation::Value && q.measure.is_none() {
        // (words that name no measure: "how much money did it make")
        const VAGUE: [&str; 12] = ["make", "made", "much", "many", "money", "does", "did", "have", "has", "get", "got", "how"];
        let own: Vec<&String> = q
            .terms
            .iter()
            .filter(|t| {
                t.len() > 2
                    && !VAGUE.contains(&t.as_str())
                    && !t.chars().all(|c| c.is_ascii_digit())
                    && !q.companies.iter().any(|c| c.to_lowercase().contains(t.as_str()))
            })
            .collect();
        if !own.iter().any(|t| line_words.iter().any(|w| w.starts_with(&stem(t)))) {
            why.push("the question names no measure and the quoted line holds none of its words".to_string());
        }
    }
    // "Which year had higher revenue for MGM Resorts, FY2017 or FY2018?" answered in words: the
    // line names each year asked, and the measure as the company's ("Fios service revenue" is a part)
    if q.operation == crate::question::Operation::Narrative && q.years.len() >= 2 && q.measure.is_some() {
        if let Some(y) = q.years.iter().find(|y| !l.contains(&y.to_string())) {
            why.push(format!("the question compares years and the quoted line does not name {y}"));
        }
        let head = q.measure_name.as_deref().or(q.measure.as_deref()).and_then(|m| m.split(['_', ' ']).next_back()).map(str::to_string);
        if let Some(head) = head {
            let before: Vec<&str> = line_words.windows(2).filter(|w| w[1].starts_with(&stem(&head))).map(|w| w[0]).collect();
            if !before.is_empty() && before.iter().all(|b| !LINE_LEADS.contains(b)) {
                why.push(format!("the quoted line states a part's {head} (\"{} {head}\"), not the company's", before[0]));
            }
        }
    }
    why
}

/// Words that may stand before a measure on a line and leave it the company's whole measure.
const LINE_LEADS: &[&str] =
    &["total", "net", "consolidated", "our", "the", "its", "company", "overall", "worldwide", "annual", "reported", "in", "of", "and", "that", "which", "gaap"];

/// A sentence that says tables follow ("The following tables show the significant transactions
/// ... during the year ended December 31, 2022."): what it introduces answers, not it.
fn introduces_tables(line: &str) -> bool {
    let l = line.trim().to_lowercase();
    ["the following table", "the tables below", "the table below", "the following schedule"].iter().any(|p| l.starts_with(p))
}

/// Whether the number at byte `at` of `text` is the day of a date: right after a month's name
/// ("June 15, 2020", "Dec. 31").
fn is_date_day(text: &str, at: usize) -> bool {
    let before = text[..at].trim_end().trim_end_matches('.').to_lowercase();
    let word = before.rsplit(|c: char| !c.is_alphabetic()).next().unwrap_or("");
    word.len() >= 3 && crate::figures::table::MONTHS.iter().any(|m| m.starts_with(word))
}

/// Whether a paragraph is legal boilerplate (a form of note, an indenture's standard terms, a
/// signature block): such text never supports a figure or a fact asked about.
pub fn is_boilerplate(text: &str) -> bool {
    let markers = boilerplate_markers(text);
    markers >= 2 || (markers >= 1 && text.split_whitespace().count() > 60)
}

/// How many phrases of legal form text (`hereby`, `for value received`, `whereas` ...) `text`
/// holds.
pub fn boilerplate_markers(text: &str) -> usize {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\bfor value received\b|\bhereby\b|\bherein(?:after)?\b|\bhereof\b|\bhereto\b|\bhereunder\b|\bthereof\b|\bthereto\b|\bwhereas\b|\bin witness whereof\b|\bpursuant to (?:section|the terms)\b|\bthe undersigned\b|\bshall be deemed\b|\bnotwithstanding\b|\bforward-looking statements?\b|\bsafe harbor\b|\bpromises to pay\b").expect("valid regex")
    });
    let l = text.to_lowercase();
    RE.find_iter(&l).count()
}

/// Whether a page is the parent company's own statement (or a note about it): "Parent Company",
/// "Condensed Financial Information of Registrant", "parent-only" in its first lines.
pub fn is_parent_only_page(page: &str) -> bool {
    let head = page.lines().take(8).collect::<Vec<_>>().join(" ");
    crate::question::asks_parent_only(&head) || norm(&head).contains("condensed financial information of registrant")
}

/// Most words a quoted line for a figure may run before its first figure (a year aside): a row's
/// label, a sentence's opening; more is a table's column heads.
const LEAD_WORDS: usize = 20;

/// Words of a line that make its rate the law's, not the company's.
const STATUTORY_WORDS: &[&str] =
    &["statutory", "u.s. tax rate", "federal tax rate", "federal income tax rate", "corporate tax rate", "corporate income tax rate"];

/// Words that make a measure the company's own (non-GAAP) one: a line that does not say them
/// states the reported figure.
const OWN_MEASURE_WORDS: &[&str] = &["adjusted", "non-gaap", "core", "comparable", "organic", "operational", "underlying", "pro forma", "constant currency"];

/// Word starts that say a figure is a change ("increased", "growth", "lower").
const CHANGE_WORDS: &[&str] = &[
    "increas", "decreas", "grew", "grow", "growth", "rose", "rise", "risen", "fell", "fall", "fallen", "declin", "dropped", "drop", "chang", "higher", "lower",
    "up", "down", "reduc", "improv",
];

/// Whether a line says a figure is a change: one of [`CHANGE_WORDS`] (a short one whole, a longer
/// one as a word's start).
fn says_change(line: &str) -> bool {
    crate::text::plain_words(line).iter().any(|w| CHANGE_WORDS.iter().any(|c| if c.len() <= 4 { w == c } else { w.starts_with(c) }))
}

/// Words of a line that make its figure one not yet reported: an amount still to be recognized,
/// or a forecast ("expected", "estimated", "outlook").
const PENDING_WORDS: &[&str] = &[
    "yet to be recognized",
    "not yet recognized",
    "unrecognized",
    "expected to be recognized",
    "remaining to be recognized",
    "we expect",
    "is expected",
    "are expected",
    "we anticipate",
    "anticipated",
    "estimated",
    "forecast",
    "projected",
    "outlook",
    "guidance",
];

/// Words of a line that make its figure a measure after tax, or the tax on it.
const AFTER_TAX_WORDS: &[&str] = &["after-tax", "after tax", "net of tax", "net of taxes", "tax benefit", "tax effect"];

/// Words of a question that name no measure: the head of "What was X's dividends declared per
/// share" is "dividends", not "what" nor "total".
const NOT_A_HEAD: &[&str] = &[
    "what",
    "was",
    "were",
    "is",
    "are",
    "the",
    "how",
    "much",
    "many",
    "did",
    "does",
    "total",
    "net",
    "annual",
    "year",
    "years",
    "fiscal",
    "fy",
    "end",
    "reported",
    "company",
    "company's",
    "amount",
    "value",
    "usd",
    "million",
    "millions",
    "billion",
    "billions",
    "thousand",
    "thousands",
    "in",
    "of",
];

/// The first word of the measure a figure question asks for, its company names and years
/// aside: "What were AMD's dividends declared per share in FY2015?" -> "dividends".
fn measure_head(q: &Question) -> Option<String> {
    let mut companies: Vec<String> = q.companies.iter().flat_map(|c| crate::text::plain_words(c)).collect();
    // a possessor is the company, named or not ("AMD's dividends")
    let text = q.text.to_lowercase().replace('’', "'");
    let pieces: Vec<&str> = text.split("'s ").collect();
    companies.extend(
        pieces[..pieces.len() - 1].iter().filter_map(|head| head.split_whitespace().last()).map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string()),
    );
    q.terms
        .iter()
        .find(|t| {
            !companies.contains(t)
                && !NOT_A_HEAD.contains(&t.as_str())
                && !t.chars().any(|c| c.is_ascii_digit())
                && t.chars().all(|c| c.is_alphabetic() || c == '-')
                && t.len() > 2
        })
        .cloned()
}

/// The words of the measure a figure question names after its possessor, up to the period or
/// a preposition ("What was MGM Resorts's operating lease expense in FY2018?" -> operating,
/// lease, expense), words that name no measure aside; empty without a possessor.
fn measure_phrase(q: &Question) -> Vec<String> {
    const STOPS: [&str; 11] = [" in ", " at ", " for ", " during ", " as of ", " of fy", " from ", " between ", "?", ",", ";"];
    let Some(phrase) = crate::question::after_possessor(&q.text, &STOPS) else { return Vec::new() };
    // a compound's first part names it ("stock-based" -> "stock": "stock incentive plans")
    phrase
        .split_whitespace()
        .filter_map(|w| crate::text::plain_words(w).into_iter().next())
        .filter(|w| {
            !NOT_A_HEAD.contains(&w.as_str())
                && w.len() > 2
                && !w.chars().any(|c| c.is_ascii_digit())
                && !["per", "the", "and", "outstanding"].contains(&w.as_str())
        })
        .collect()
}

/// Whether a word is a year a filing's columns head ("2018"): neither a figure nor a label's
/// word.
fn is_year(t: &str) -> bool {
    t.len() == 4 && t.parse::<u32>().is_ok_and(|y| (1990..2060).contains(&y))
}

/// A table row's label: the words before its figures, when two figures of its columns follow
/// them ("Total liabilities and equity $ 379,680 $ 366,596" -> "Total liabilities and equity").
/// A sentence ("For the fiscal years ended May 31, 2023, 2022 ...") is no row: a year is not a
/// column's figure.
fn row_label(line: &str) -> Option<&str> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^([A-Za-z][^\d$()]*?)\s+(\(?\$?\s?\d[\d,]*(?:\.\d+)?\)?)\s+(\(?\$?\s?\d[\d,]*(?:\.\d+)?\)?)(?:\s|$)").expect("valid regex")
    });
    let c = RE.captures(line.trim())?;
    if [2, 3].iter().any(|&i| c.get(i).is_some_and(|m| is_year(m.as_str().trim_end_matches(',')))) {
        return None;
    }
    c.get(1).map(|m| m.as_str()).filter(|s| s.split_whitespace().count() <= 10)
}

/// The subject of a line that states a figure ("Other operating expense, net was $171 million
/// ..." -> "Other operating expense, net"), when it says "was", "were", "totaled" or "amounted
/// to" before its first figure.
fn subject_of(line: &str) -> Option<&str> {
    static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)^(.*?)\s+(?:was|were|totaled|totalled|amounted to)\s+\(?\$?\s?\d").expect("valid regex"));
    RE.captures(line).and_then(|c| c.get(1)).map(|m| m.as_str()).filter(|s| s.split_whitespace().count() <= 40)
}

/// How many table rows a quoted text runs over: runs of words each followed by two or more
/// figures in a row ("Las Vegas Strip Resorts 70,975 70,975 Regional Operations 386,892
/// 386,892" is two).
fn rows_run_over(line: &str) -> usize {
    let toks = tokenize(line);
    let mut rows = 0;
    let mut words = 0;
    let mut figures = 0;
    for t in &toks {
        // a year is a column's head, neither a figure nor a label's word
        if is_year(&t.text) {
            continue;
        }
        if t.is_number {
            figures += 1;
        } else {
            if words > 0 && figures >= 2 {
                rows += 1;
            }
            if figures > 0 {
                words = 0;
                figures = 0;
            }
            words += 1;
        }
    }
    if words > 0 && figures >= 2 {
        rows += 1;
    }
    rows
}

/// The support level and, when it is not strong, why.
pub fn judge(c: &Claim) -> (Support, Vec<String>) {
    if c.not_found || !c.cited {
        let why = if c.not_found { "no answer was found on the pages read" } else { "the answer cites no page" };
        return (Support::None, vec![why.to_string()]);
    }
    let mut why = Vec::new();
    match c.found_by {
        FoundBy::Calculation | FoundBy::Quote => {}
        FoundBy::Numbers => {}
        FoundBy::None => why.push("the answer's words were not found on the cited page".to_string()),
    }
    // every figure the answer states is printed on the page (a computed result is not)
    if c.found_by != FoundBy::Calculation {
        let page: Vec<f64> = numbers(c.page_text).into_iter().map(|(n, ..)| n.value).collect();
        let stated: Vec<f64> = numbers(c.answer).into_iter().filter(|(n, ..)| !n.is_year).map(|(n, ..)| n.value).collect();
        let missing = stated.iter().filter(|v| !page.iter().any(|p| same_number(**v, *p, 0.005))).count();
        if missing > 0 {
            why.push(format!("{missing} of the {} figures in the answer are not on the cited page", stated.len()));
        }
        // and on the line the answer rests on: a model's "13.5%" citing a sentence that states
        // no figure took it from elsewhere on the page (another year's requirement)
        if let Some(line) = c.quote.filter(|l| *l != c.answer) {
            let on_line: Vec<f64> = numbers(line).into_iter().map(|(n, ..)| n.value).collect();
            if missing == 0 && !stated.is_empty() && !stated.iter().any(|v| on_line.iter().any(|p| same_number(*v, *p, 0.005))) {
                why.push("the figures of the answer are not on the line it rests on".to_string());
            }
        }
    }
    // a figure asked for, a line without one given ("How many appendices?" answered by a heading)
    if c.found_by != FoundBy::Calculation && c.question.asks_figure() {
        let years_count = c.question.text.to_lowercase().contains("year");
        // a number that is part of a code ("101.INS", an exhibit's number) is not a figure
        let in_code = |end: usize| c.answer[end..].strip_prefix('.').is_some_and(|r| r.starts_with(char::is_alphabetic));
        // nor is a date's day ("On June 15, 2020, the Comptroller informed ..." states no tax paid)
        if !numbers(c.answer).iter().any(|(n, at, end)| (!n.is_year || years_count) && !in_code(*end) && !is_date_day(c.answer, *at)) {
            why.push("the question asks for a figure and the answer states none".to_string());
        }
    }
    // a count asked, only shares of something stated ("How many shares ... outstanding?"
    // answered by "... anywhere from 0% to 200% of each performance share granted")
    if c.found_by != FoundBy::Calculation && c.question.asks_figure() && c.question.text.to_lowercase().contains("how many") {
        let figures: Vec<(usize, usize)> = numbers(c.answer).into_iter().filter(|(n, ..)| !n.is_year).map(|(_, at, end)| (at, end)).collect();
        let percent_at = |(at, end): (usize, usize)| {
            let rest = c.answer[end..].trim_start().to_lowercase();
            c.answer[at..end].ends_with('%') || rest.starts_with('%') || rest.starts_with("percent")
        };
        if !figures.is_empty() && figures.iter().all(|&f| percent_at(f)) {
            why.push("the question asks how many, and the answer states only percents".to_string());
        }
    }
    // a ratio asked, whole amounts quoted ("current liabilities to total liabilities? round your
    // answer to three decimal" answered by the row "Total current liabilities 29,441 24,844")
    if c.found_by != FoundBy::Calculation && c.question.asks_ratio() && !states_ratio(c.answer) {
        why.push("the question asks for a ratio and the answer quotes only amounts".to_string());
    }
    // the answer must be of the type asked
    let line = c.quote.unwrap_or(c.answer);
    // the line and the question in lower case, a run of white space (no-break spaces too) as one
    let l = line.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    let q = c.question.text.to_lowercase();
    match c.question.asks {
        ValueType::YesNo | ValueType::Choice if c.found_by != FoundBy::Calculation => {
            let first = crate::text::plain_words(c.answer).into_iter().next().unwrap_or_default();
            if c.question.asks == ValueType::YesNo && first != "yes" && first != "no" {
                why.push("the question asks yes or no and the answer does not say which".to_string());
            } else if c.question.operation == Operation::Compare {
                why.push("the question compares two periods and the answer is one line, not both values".to_string());
            }
        }
        // a change asked, one line with one figure and no word of change: a level, not the change
        ValueType::Number if c.question.operation == Operation::Change && c.found_by != FoundBy::Calculation => {
            // amounts, not the days of dates ("May 26, 2023")
            let figures = numbers(c.answer).into_iter().filter(|(n, ..)| n.salient && !n.is_year).count();
            if figures < 2 && !says_change(line) {
                why.push("the question asks for a change and the answer states one figure, not the two it is between or the difference".to_string());
            }
        }
        // "the total amount Pepsico may borrow under its agreements": a sum over several, which one
        // line states only when it says so
        ValueType::Number
            if c.found_by != FoundBy::Calculation
                && c.question.asks_total()
                && !["total", "aggregate", "combined", "in all", "together", "sum"].iter().any(|w| l.contains(w)) =>
        {
            why.push("the question asks for a total and the quoted line states no total: it may be one part of it".to_string());
        }
        ValueType::Sentence if c.question.operation == Operation::Narrative && is_table_row(line) => {
            why.push("the question asks for an explanation and the answer is a table row".to_string());
        }
        _ => {}
    }
    // words asked, a table's figures given ("What are 3M's business segments?" answered by a
    // segment table's run of amounts): the figures are not the names or the sentence asked
    if c.found_by != FoundBy::Calculation && c.question.operation == Operation::Narrative && matches!(c.question.asks, ValueType::Sentence | ValueType::Name) {
        let figures = numbers(line).iter().filter(|(n, ..)| n.salient && !n.is_year).count();
        let words = tokenize(line).into_iter().filter(|t| !t.is_number).count();
        if figures >= 6 && figures * 2 >= words {
            why.push("the question asks in words and the answer is a run of a table's figures, not the names or sentence asked".to_string());
        }
    }
    // the line names other years than the question: "What drove Adobe's revenue growth in
    // FY2017?" answered by "Revenue ... increased during fiscal 2016, as compared to fiscal 2015"
    if c.found_by != FoundBy::Calculation && !c.years.is_empty() {
        let named = years_named(line);
        if !named.is_empty() && !named.iter().any(|y| c.years.contains(y)) {
            let show = |v: &[i32]| v.iter().map(|y| y.to_string()).collect::<Vec<_>>().join(", ");
            why.push(format!("the quoted line is about {}, not {} as asked", show(&named), show(c.years)));
        }
    }
    // a growth rate asked ("unit case volume growth"), levels quoted: no rate and no word of
    // change on the line
    if c.found_by != FoundBy::Calculation && c.question.asks == ValueType::Number {
        let asks_growth = crate::figures::catalogue::has_words(&q, "growth");
        let rate = line.contains('%') || line.to_lowercase().contains("percent");
        if asks_growth && !rate && !says_change(line) {
            why.push("the question asks for a growth rate and the line states levels, with no rate or change".to_string());
        }
    }
    // the parent company alone asked, a page that is not its statement quoted: the consolidated
    // figure is the group's
    if c.question.asks_parent_only() && !is_parent_only_page(c.page_text) {
        why.push(
            "the question asks for the parent company alone and the cited page is not its own statement: the figure may be the consolidated group's"
                .to_string(),
        );
    }
    // the company's own measure asked ("adjusted operating income", "organic growth", "core
    // earnings"), a line that never says it quoted: the reported figure is another one
    if c.found_by != FoundBy::Calculation && c.question.asks == ValueType::Number {
        let q = q.replace("unadjusted", "");
        if let Some(w) = OWN_MEASURE_WORDS.iter().find(|w| crate::figures::catalogue::has_words(&q, w) && !l.contains(*w)) {
            why.push(format!("the question asks for the company's own \"{w}\" measure and the quoted line does not say {w}: it may be the reported figure"));
        }
    }
    // a figure asked, a quoted line that is not about it: one that never names the measure asked
    // ("dividends declared per share" answered by a net income per share row), one that runs
    // over several table rows (which figure answers?), one whose figure is not yet reported
    // ("compensation expense that has yet to be recognized" for the year's expense)
    if c.found_by != FoundBy::Calculation && c.question.asks == ValueType::Number {
        let toks = tokenize(line);
        let words: HashSet<String> = toks.iter().filter(|t| !t.is_number).map(|t| t.text.clone()).collect();
        let phrase = measure_phrase(c.question);
        let named: Vec<String> = if phrase.is_empty() { measure_head(c.question).into_iter().collect() } else { phrase };
        if let Some(w) = named.iter().find(|m| !words.iter().any(|w| w.starts_with(&stem(m)))) {
            why.push(format!("the quoted line does not name \"{w}\", of the measure asked"));
        } else if let (Some(head), Some(subject)) = (named.first(), subject_of(line).or_else(|| row_label(line))) {
            // ... and the figure it states is of what it names: "Other operating expense, net
            // was $171 million ..., primarily related to the amortization of intangible assets"
            let subject_words = crate::text::plain_words(subject);
            if !subject_words.iter().any(|w| w.starts_with(&stem(head))) {
                why.push(format!("the figure the quoted line states is of \"{}\", not of \"{head}\" as asked", subject.trim()));
            } else {
                // "Total depreciation and amortization expense ... was $11.0 billion" for the
                // amortization asked: a total of more than the measure
                let asked: Vec<String> = crate::text::plain_words(&c.question.text);
                // ("property, plant and equipment" is one item, whichever of its words is asked)
                let is_named = |w: &str| w == "plant" || named.iter().any(|m| w.starts_with(&stem(m)));
                let in_question = |w: &str| asked.iter().any(|a| stem(a) == stem(w));
                if let Some(pair) = subject_words
                    .windows(3)
                    .find(|t| t[1] == "and" && (is_named(&t[0]) != is_named(&t[2])) && !in_question(if is_named(&t[0]) { &t[2] } else { &t[0] }))
                {
                    why.push(format!("the figure the quoted line states is of \"{} and {}\" together, more than the measure asked", pair[0], pair[2]));
                }
            }
        }
        let rows = rows_run_over(line);
        if rows >= 2 {
            why.push(format!("the quoted text runs over {rows} table rows: which figure answers is not clear"));
        }
        // a table's column heads quoted down to its first figures ("Gain (Loss) on Derivative
        // Gain (Loss) on Hedged Item Year ended December 31, 2018 Recognized in ..."): many
        // words before any figure that is not a date's, in a text that is no sentence (a long
        // sentence may state its figure late)
        let date_part = |i: usize| {
            let t = &toks[i].text;
            let day = i > 0 && MONTHS.contains(&toks[i - 1].text.to_lowercase().as_str()) && t.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d));
            is_year(t) || day
        };
        let lead = (0..toks.len()).take_while(|&i| !toks[i].is_number || date_part(i)).filter(|&i| !toks[i].is_number).count();
        if lead > LEAD_WORDS && !line.trim_end().ends_with(['.', ';']) {
            why.push(format!("the quoted text runs {lead} words before its first figure (a table's column heads?): which figure answers is not clear"));
        }
        // the country's tax rate for the company's: "The lower U.S. tax rate of 21.0% was
        // effective for all of 2021"
        if let Some(w) = STATUTORY_WORDS.iter().find(|w| l.contains(*w) && !q.contains(*w)) {
            if has_words(&q, "rate") {
                why.push(format!("the quoted line states a \"{w}\" rate, not the company's own"));
            }
        }
        if let Some(w) = PENDING_WORDS.iter().find(|w| l.contains(*w) && !q.contains(w.split_whitespace().last().unwrap_or(w))) {
            why.push(format!("the quoted line states an amount not yet reported (\"{w}\"), not the figure of the period asked"));
        }
        // "After-tax compensation expense for stock-based compensation", "The income tax benefit
        // related to stock-based compensation expense": the measure after its tax, or its tax
        if let Some(w) = AFTER_TAX_WORDS.iter().find(|w| l.contains(*w) && !q.contains(*w)) {
            why.push(format!("the quoted line states the measure's \"{w}\" figure, not the measure asked"));
        }
        // a level asked, a change stated: "Research and development expense in 2018 increased
        // by $90 million"
        static CHANGE_BY: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"(?i)\b(?:increas|decreas|grew|rose|fell|declin|grow|reduc)\w*\s+(?:by\s+)?(?:approximately\s+|about\s+)?\$?\s?\d")
                .expect("valid regex")
        });
        let level_asked = c.question.operation != Operation::Change && !has_words(&q, "growth") && !has_words(&q, "change");
        if level_asked && CHANGE_BY.is_match(line) {
            why.push("the question asks for a level and the quoted line states a change in it".to_string());
        }
    }
    // for any answer quoted from a line (figure or words):
    if c.found_by != FoundBy::Calculation {
        // "Absent the exemption ..., net income would have increased by $4 million": what a figure
        // would have been, not what it was
        if let Some(w) = ["would have been", "would have increased", "would have decreased", "would have", "absent the"].iter().find(|w| l.contains(*w)) {
            why.push(format!("the quoted line states what a figure would have been (\"{w}\"), not what it was"));
        }
        // a person's words quoted in a filing or release ("“What we accomplished in 2022 is
        // nothing short of remarkable ..."), not a statement of the figure
        static QUOTED_PERSON: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"“\s*(?:We|Our|I|What we)\b").expect("valid regex"));
        if QUOTED_PERSON.is_match(line) || (line.contains('“') && has_words(&l, "said")) {
            why.push("the quoted line is a person's words quoted in the document, not a statement of the figure".to_string());
        }
    }
    if c.found_by != FoundBy::Calculation {
        why.extend(named_as_asked(c.question, &l));
        why.extend(says_what_was_asked(c.question, line));
    }
    // cash burned asked ("How much cash did Verizon burn in 2022?"), a line that never says a
    // burn quoted: a payment or a balance is not the cash burned
    if c.found_by != FoundBy::Calculation && ["burn", "burned", "burnt", "burning"].iter().any(|w| has_words(&q, w)) && !l.contains("burn") {
        why.push("the question asks how much was burned and the quoted line does not say a burn".to_string());
    }
    // ... and stock bought back ("How much stock did Best Buy buy back in 2019?"), a line that
    // never says a repurchase (a stock performance graph, an incentive plan)
    let bought_back =
        ["buy back", "bought back", "buyback", "buybacks", "buy-back", "repurchase", "repurchased", "repurchases"].iter().any(|w| has_words(&q, w));
    if c.found_by != FoundBy::Calculation
        && bought_back
        && !["repurchas", "buyback", "buy back", "bought back", "buy-back", "treasury"].iter().any(|w| l.contains(w))
    {
        why.push("the question asks what was bought back and the quoted line does not say a repurchase".to_string());
    }
    if c.found_by != FoundBy::Calculation && is_boilerplate(line) {
        why.push("the quoted paragraph is legal boilerplate (a form or standard terms), not a statement of what was asked".to_string());
    }
    if let Some(w) = c.caveat {
        why.push(w.to_string());
    }
    if !c.unnamed_among.is_empty() {
        let shown: Vec<&str> = c.unnamed_among.iter().take(6).map(String::as_str).collect();
        let more = if c.unnamed_among.len() > shown.len() { format!(" and {} more", c.unnamed_among.len() - shown.len()) } else { String::new() };
        why.push(format!(
            "which company? The question names none and the library holds filings of {} companies ({}{more}): name the company, or pick documents in Search in",
            c.unnamed_among.len(),
            shown.join(", ")
        ));
    }
    let lower = c.page_text.to_lowercase();
    let filing_of_the_year = c.question.operation == Operation::Narrative && c.doc_year.is_some_and(|y| c.years.contains(&y));
    let absent: Vec<String> = c.years.iter().filter(|y| !filing_of_the_year && !lower.contains(&y.to_string())).map(|y| y.to_string()).collect();
    if !absent.is_empty() {
        why.push(format!("the cited page does not mention {}", absent.join(", ")));
    }
    if c.in_scope == Some(false) {
        why.push("the cited document is not one the question names".into());
    }
    let terms: HashSet<String> = c.question.terms.iter().cloned().collect();
    let share = term_share(&terms, c.page_text);
    if c.found_by == FoundBy::Calculation {
        // a computed answer rests on operand cells matched to the metric's line items: the
        // question's other words (its instructions) need not be on those pages
    } else if share < MIN_TERM_SHARE {
        why.push(format!("only {:.0}% of the question's words are on the cited page", share * 100.0));
    } else if c.found_by != FoundBy::Calculation {
        // the line the answer rests on must be about what was asked, not merely on the page
        let line = c.quote.unwrap_or(c.answer);
        let on_line = term_share(&terms, line);
        if on_line < MIN_LINE_SHARE && !c.list_complete {
            why.push(format!("the quoted line holds {:.0}% of the question's words", on_line * 100.0));
        } else if line.trim_end().ends_with(':') || introduces_tables(line) {
            why.push("the quoted line introduces a list or table: the answer is in what follows it".to_string());
        } else if is_label(line) {
            why.push(format!("the quoted line (\"{}\") is a heading or label naming what was asked, not a statement of it", line.trim()));
        }
    }
    if why.is_empty() {
        (Support::Strong, why)
    } else {
        (Support::Weak, why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::{asks_for_figure, asks_for_ratio};

    fn q(s: &str) -> &'static Question {
        Box::leak(Box::new(Question::parse(s)))
    }

    fn claim<'a>(answer: &'a str, found_by: FoundBy, page: &'a str, years: &'a [i32], in_scope: Option<bool>) -> Claim<'a> {
        Claim {
            question: q("What was 3M's capital expenditure in FY2018?"),
            answer,
            not_found: false,
            cited: true,
            found_by,
            page_text: page,
            quote: Some("3M capital expenditure (1,577)"),
            years,
            in_scope,
            unnamed_among: &[],
            caveat: None,
            doc_year: None,
            list_complete: false,
        }
    }

    const PAGE: &str = "3M Company Consolidated Statement of Cash Flows Years ended December 31 2018 2017\nPurchases of property, plant and equipment (PP&E) (1,577) (1,373)\ncapital expenditure";

    #[test]
    fn a_figure_asked_and_none_given_is_weak() {
        assert!(asks_for_figure("How many more debit card users in millions were there in India in 2015?"));
        assert!(asks_for_figure("What is the FY2018 capital expenditure amount (in USD millions) for 3M?"));
        assert!(asks_for_figure("what is Amazon's FY2017 effective tax rate? round your answer to three decimal"));
        assert!(asks_for_figure("What percentage of respondents use tablets?"));
        assert!(!asks_for_figure("Which notes are covered by Amcor's supplemental indentures?"));
        assert!(!asks_for_figure("Does 3M have a healthy quick ratio?"));
        let page = "Number of Debit Card users in India\n2014 399\n2015 491";
        let mut c = claim("Number of Debit Card users in India", FoundBy::Quote, page, &[], None);
        c.question = q("How many debit card users were there in India?");
        c.quote = Some("Number of Debit Card users in India");
        let (s, why) = judge(&c);
        assert_eq!(s, Support::Weak);
        assert!(why.iter().any(|w| w.contains("asks for a figure")), "{why:?}");
        // an exhibit's code is not a count
        c.question = q("How many appendices appear in the document?");
        c.answer = "101.INS Inline XBRL Instance Document";
        c.quote = Some("101.INS Inline XBRL Instance Document");
        assert!(judge(&c).1.iter().any(|w| w.contains("asks for a figure")), "{:?}", judge(&c).1);
        c.question = q("How many debit card users were there in India?");
        c.answer = "2015 491";
        c.quote = Some("2015 491");
        assert!(!judge(&c).1.iter().any(|w| w.contains("asks for a figure")));
        // a date's day is no figure of the tax paid (this sentence was green in the
        // twenty-first battery)
        c.question = q("How much tax did Block pay in 2020?");
        c.answer = "On June 15, 2020, the Texas Comptroller's Office informed the Company that it had completed its sales and use tax audit for the period from January 1, 2015 through April 30, 2018";
        c.quote = Some(c.answer);
        assert!(judge(&c).1.iter().any(|w| w.contains("asks for a figure")), "{:?}", judge(&c).1);
        assert!(is_date_day("on Dec. 31, 2020", 8) && is_date_day("June 15", 5) && !is_date_day("paid 15", 5));
    }

    /// Four green and wrong in the twenty-second battery: goodwill asked, an impairment charge
    /// quoted; a fiscal year's end asked, no month; a credit rating asked, a loan agreement.
    #[test]
    fn a_line_must_name_what_was_asked_as_asked() {
        let said = |question: &str, line: &str| named_as_asked(q(question), &line.to_lowercase());
        assert!(said("How much goodwill does 3M have?", "3M recorded a goodwill impairment charge of $0.3 billion").iter().any(|w| w.contains("another item")));
        assert!(said("How much goodwill does 3M have?", "Goodwill 12,790 13,486").is_empty());
        assert!(said("How much goodwill impairment did 3M record?", "3M recorded a goodwill impairment charge of $0.3 billion").is_empty());
        let fy = "When does Adobe's fiscal year end?";
        assert!(said(fy, "fiscal 2016 is a 53-week year compared with fiscal 2015 and 2014").iter().any(|w| w.contains("no month")));
        assert!(said(fy, "Our fiscal year is a 52- or 53-week year that ends on the Friday closest to November 30").is_empty());
        assert!(said("What is AMD's credit rating?", "We entered into a loan and security agreement on November 12, 2013")
            .iter()
            .any(|w| w.contains("of what was asked")));
        assert!(said("What is AMD's credit rating?", "Our credit rating from Moody's is B1").is_empty());
        assert!(said("Which acquisitions did Adobe make in 2018?", "We completed our acquisition of Magento").is_empty());
        assert!(said("Which acquisitions did Adobe make in 2018?", "Our subsidiaries are listed in Exhibit 21")
            .iter()
            .any(|w| w.contains("which acquisitions")));
        // the twenty-second battery's last green and wrong: a sentence naming segments, comparing none
        let fastest = "Which segment of General Mills grew the fastest in 2019?";
        let unallocated = "Unallocated corporate items include corporate overhead expenses and other items that are not part of our measurement of segment operating performance.";
        assert!(said(fastest, unallocated).iter().any(|w| w.contains("compares nothing")), "{:?}", said(fastest, unallocated));
        assert!(said(fastest, "Net sales for our Pet segment grew 8 percent, the fastest of our segments").is_empty());
        assert!(said("What is Adobe's most recent acquisition?", "We completed our acquisition of Magento in 2018").is_empty());
        // who the customers are: a line that says who, not one that mentions them
        let who = "Who are the primary customers of Boeing as of FY2022?";
        let financing = "BCC seeks to ensure that Boeing customers have the financing they need to buy and take delivery of their Boeing product";
        assert!(said(who, financing).iter().any(|w| w.contains("who the customers are")), "{:?}", said(who, financing));
        assert!(said(who, "We derive a significant portion of our revenues from a limited number of commercial airlines.").is_empty());
        assert!(said(who, "The U.S. government accounted for 40% of our revenues in 2022").is_empty());
    }

    /// Seven green and wrong in the batteries of half a once retrieval read other pages.
    #[test]
    fn a_quoted_line_must_say_what_was_asked() {
        let said = |question: &str, line: &str| says_what_was_asked(q(question), line);
        let has = |w: Vec<String>, part: &str| w.iter().any(|x| x.contains(part));
        assert!(has(said("When does AMD's fiscal year end?", "Norrod, dated October 20, 2014, filed as Exhibit 10.66 to AMD's Annual Report on Form 10-K for the fiscal year ended December 27, 2014, is hereby incorporated by reference."), "incorporated"));
        let rating = "What is Johnson & Johnson's credit rating?";
        assert!(has(
            said(rating, "the Company primarily enters into agreements with commercial institutions that have at least an investment grade credit rating."),
            "no rating grade"
        ));
        assert!(said(rating, "Our long-term debt is rated AAA by S&P and Aaa by Moody's.").is_empty());
        assert!(has(
            said("What did Verizon pay in dividends per share in 2021?", "The preferred shares pay cumulative dividends of 8.25% per annum."),
            "per share"
        ));
        assert!(said("What did Verizon pay in dividends per share in 2021?", "Cash dividends declared per common share $2.54").is_empty());
        assert!(has(said("How much debt does Pfizer have?", "Total long-term debt issued in the second quarter of 2023 $ 31,000"), "issued"));
        assert!(said("How much debt does Pfizer have?", "Total long-term debt $ 61,538").is_empty());
        assert!(has(said("how much money did AMD make in 2015", "liens on up to $1.5 billion of secured credit facilities debt"), "no measure"));
        let which = "Which year had higher revenue for MGM Resorts, FY2017 or FY2018?";
        assert!(has(said(which, "Consolidated net revenues for 2017 increased 14% compared to 2016"), "does not name 2018"));
        let fios = "For the year ended December 31, 2021, Fios service revenue totaled $10.8 billion, an increase compared to 2020";
        assert!(has(said("Which year had higher revenue for Verizon, FY2020 or FY2021?", fios), "a part's"));
        assert!(said(which, "Consolidated net revenues for 2018 increased 6% compared to 2017").is_empty());
    }

    /// A flow asked by its verb (cash burned, stock bought back), a line that never says it.
    #[test]
    fn a_flow_asked_by_its_verb_needs_the_verb_on_the_line() {
        let mut c = claim("Best Buy Stock Comparative Performance Graph 2017 $100", FoundBy::Quote, PAGE, &[], None);
        c.question = q("How much stock did Best Buy buy back in 2017?");
        c.quote = Some(c.answer);
        assert!(judge(&c).1.iter().any(|w| w.contains("bought back")), "{:?}", judge(&c).1);
        c.answer = "We repurchased 17.6 million shares for $1.0 billion in fiscal 2017";
        c.quote = Some(c.answer);
        assert!(!judge(&c).1.iter().any(|w| w.contains("bought back")), "{:?}", judge(&c).1);
        c.question = q("How much cash did Verizon burn in 2022?");
        assert!(judge(&c).1.iter().any(|w| w.contains("burned")), "{:?}", judge(&c).1);
    }

    #[test]
    fn a_ratio_asked_and_amounts_quoted_is_weak() {
        let qs = "what is current liabilities to total liabilities for COSTCO in FY2021? Round your answer to three decimal places.";
        assert!(asks_for_ratio(qs));
        assert!(asks_for_ratio("What is the FY2017 - FY2019 3 year average of capex as a % of revenue?"));
        assert!(asks_for_ratio("What is current ratio in FY2021 for Nike?"));
        assert!(!asks_for_ratio("What is total liabilities for costco in FY 2021?"));
        assert!(!asks_for_ratio("What is the FY2018 capital expenditure amount (in USD millions) for 3M?"));
        for t in ["Current ratio 1.02", "Operating income margin 19.1 % 20.8 %", "Net debt to EBITDA 2.5x", "0.715"] {
            assert!(states_ratio(t), "{t}");
        }
        for t in ["Total current liabilities 29,441 24,844", "Cash and equivalents $ 9,889 $ 8,348", "in 2021"] {
            assert!(!states_ratio(t), "{t}");
        }
        let page = "Total current liabilities 29,441 24,844\nTOTAL LIABILITIES 41,190 36,851\n2021 2020";
        let row = "Total current liabilities 29,441 24,844";
        let c = Claim { question: q(qs), quote: Some(row), ..claim(row, FoundBy::Quote, page, &[2021], Some(true)) };
        let (s, why) = judge(&c);
        assert_eq!(s, Support::Weak, "{why:?}");
        assert!(why.iter().any(|w| w.contains("asks for a ratio")), "{why:?}");
    }

    #[test]
    fn a_line_about_other_years_or_a_run_of_figures_does_not_answer_words() {
        let line = "Revenue from Digital Marketing increased $227.7 million during fiscal 2016, as compared to fiscal 2015 primarily due to continued revenue growth associated with our Adobe Experience Cloud.";
        let page = "Fiscal 2017 fiscal 2016 revenue growth Adobe Experience Cloud digital marketing drove";
        let c =
            Claim { question: q("What drove Adobe's revenue growth in FY2017?"), quote: Some(line), ..claim(line, FoundBy::Quote, page, &[2017], Some(true)) };
        let (s, why) = judge(&c);
        assert_eq!(s, Support::Weak, "{why:?}");
        assert!(why.iter().any(|w| w.contains("about 2016, 2015, not 2017")), "{why:?}");
        assert_eq!(years_named("in FY2017 and December 31, 2018 (2,017 units)"), vec![2017, 2018]);
        // the year asked among those named is no mismatch
        let line = "Consolidated net revenues in 2020 decreased 60% compared to 2019 due primarily to the impact of COVID-19.";
        let c = Claim {
            question: q("What drove the decline in MGM Resorts' revenues in 2020?"),
            quote: Some(line),
            ..claim(line, FoundBy::Quote, line, &[2020], Some(true))
        };
        assert!(!judge(&c).1.iter().any(|w| w.contains("the quoted line is about")), "{:?}", judge(&c).1);
        // a figure given, a line quoted that states none of it
        let line = "Under the risk-based capital guidelines of the Federal Reserve, JPMorgan Chase is required to maintain minimum ratios for CET1 capital.";
        let page = "CET1 capital ratio requirements were 12.0%, 13.5% and 15.5% for 2023. Under the risk-based capital guidelines of the Federal Reserve, JPMorgan Chase is required to maintain minimum ratios for CET1 capital.";
        let c = Claim {
            question: q("What was JPMorgan's CET1 capital ratio at the end of Q2 2023?"),
            quote: Some(line),
            ..claim("13.5%", FoundBy::Quote, page, &[2023], Some(true))
        };
        assert!(judge(&c).1.iter().any(|w| w.contains("not on the line it rests on")), "{:?}", judge(&c).1);
        // the company's own measure asked, the reported row quoted
        let row = "Operating income 6,539 7,369 7,161";
        let c =
            Claim { question: q("What was 3M's adjusted operating income in 2022?"), quote: Some(row), ..claim(row, FoundBy::Quote, row, &[2022], Some(true)) };
        assert!(judge(&c).1.iter().any(|w| w.contains("own \"adjusted\" measure")), "{:?}", judge(&c).1);
        let c = Claim {
            question: q("What was 3M's unadjusted operating income in 2022?"),
            quote: Some(row),
            ..claim(row, FoundBy::Quote, row, &[2022], Some(true))
        };
        assert!(!judge(&c).1.iter().any(|w| w.contains("own \"")), "{:?}", judge(&c).1);
        // a row of two items for one asked: "Total liabilities and equity" for the liabilities
        // (seen in the sixteenth battery); a row of the item alone is not flagged, nor a
        // sentence that opens before its figure
        let row = "Total liabilities and equity $ 379,680 $ 366,596";
        let ask = q("What were Verizon's total liabilities at the end of FY2022, in USD millions?");
        let c = Claim { question: ask, quote: Some(row), ..claim(row, FoundBy::Quote, row, &[2022], Some(true)) };
        assert!(judge(&c).1.iter().any(|w| w.contains("\"liabilities and equity\" together")), "{:?}", judge(&c).1);
        let row = "Total liabilities 301,084 285,538";
        let c = Claim { question: ask, quote: Some(row), ..claim(row, FoundBy::Quote, row, &[2022], Some(true)) };
        assert!(!judge(&c).1.iter().any(|w| w.contains("together")), "{:?}", judge(&c).1);
        assert_eq!(row_label("For the fiscal years ended May 31, 2023, 2022 and 2021, lease expense was $585 million"), None);
        assert_eq!(row_label("Property, plant and equipment, net 12,645 12,672"), Some("Property, plant and equipment, net"));
        // seventeenth battery: "International" is no "interest"; a derivatives table's column
        // heads down to its first figure; the country's tax rate for the company's
        let row = "Net income attributable to MGM Resorts International 1,668,214";
        let ask = q("What was MGM Resorts's interest income in FY2022, in USD millions?");
        let c = Claim { question: ask, quote: Some(row), ..claim(row, FoundBy::Quote, row, &[2022], Some(true)) };
        assert!(judge(&c).1.iter().any(|w| w.contains("does not name \"interest\"")), "{:?}", judge(&c).1);
        let heads = "Gain (Loss) on Derivative Gain (Loss) on Hedged Item Year ended December 31, 2018 Recognized in Income Recognized in Income (Millions) Location Amount Location Amount Interest rate swap contracts Interest expense $ (5) Interest expense $ 5 Total $ (5) $ 5";
        let ask = q("What was 3M's interest income in FY2018, in USD millions?");
        let c = Claim { question: ask, quote: Some(heads), ..claim(heads, FoundBy::Quote, heads, &[2018], Some(true)) };
        assert!(judge(&c).1.iter().any(|w| w.contains("words before its first figure")), "{:?}", judge(&c).1);
        let line = "The lower U.S. tax rate of 21.0% was effective for all of 2021, 2020, and 2019.";
        let c = Claim { question: q("What was Costco's tax rate in FY2021?"), quote: Some(line), ..claim(line, FoundBy::Quote, line, &[2021], Some(true)) };
        assert!(judge(&c).1.iter().any(|w| w.contains("not the company's own")), "{:?}", judge(&c).1);
        // a count asked, only percents stated
        let line = "The number of shares of 3M common stock that could be delivered may be anywhere from 0% to 200% of each performance share granted";
        let c = Claim {
            question: q("How many shares of common stock did 3M have outstanding at the end of FY2018?"),
            quote: Some(line),
            ..claim(line, FoundBy::Quote, line, &[2018], Some(true))
        };
        assert!(judge(&c).1.iter().any(|w| w.contains("only percents")), "{:?}", judge(&c).1);
        // the parent company alone asked: the consolidated balance sheet's row is the group's
        // (seen: "3M's total cash at the parent company level" answered with 3M's consolidated
        // cash, 14 times in the fifteenth battery); the parent company's own statement is its
        let row = "Cash and cash equivalents 2,853 3,053";
        let consolidated = "Consolidated Balance Sheet\n3M Company and Subsidiaries\nCash and cash equivalents 2,853 3,053";
        let parent = "NOTE 25\nPARENT COMPANY\nPARENT COMPANY – CONDENSED BALANCE SHEETS\nCash and cash equivalents 2,853 3,053";
        let ask = q("What was 3M's total cash at the parent company level at the end of FY2018, in USD millions?");
        let c = Claim { question: ask, quote: Some(row), ..claim(row, FoundBy::Quote, consolidated, &[2018], Some(true)) };
        assert!(judge(&c).1.iter().any(|w| w.contains("parent company alone")), "{:?}", judge(&c).1);
        let c = Claim { question: ask, quote: Some(row), ..claim(row, FoundBy::Quote, parent, &[2018], Some(true)) };
        assert!(!judge(&c).1.iter().any(|w| w.contains("parent company alone")), "{:?}", judge(&c).1);
        assert!(!q("What was 3M's total cash at the end of FY2018?").asks_parent_only());
        // a growth asked, levels quoted
        let line = "The Coca-Cola system sold 29.2 billion, 29.3 billion and 29.2 billion unit cases of our products in 2017, 2016 and 2015, respectively.";
        let c = Claim {
            question: q("What was Coca-Cola's unit case volume growth in 2017?"),
            quote: Some(line),
            ..claim(line, FoundBy::Quote, line, &[2017], Some(true))
        };
        assert!(judge(&c).1.iter().any(|w| w.contains("asks for a growth rate")), "{:?}", judge(&c).1);
        let line = "Unit case volume grew 1% in 2017.";
        let c = Claim {
            question: q("What was Coca-Cola's unit case volume growth in 2017?"),
            quote: Some(line),
            ..claim(line, FoundBy::Quote, line, &[2017], Some(true))
        };
        assert!(!judge(&c).1.iter().any(|w| w.contains("asks for a growth rate")), "{:?}", judge(&c).1);
        // segments asked, a segment table's figures given
        let row =
            "Income before income taxes $ 6,392 $ 7,204 $ 6,795 Assets (Millions) 2022 2021 Safety and Industrial $ 11,730 $ 11,744 $ 566 $ 593 $ 562 $ 512";
        let c = Claim {
            question: q("What are the business segments of 3M as of FY2022?"),
            quote: Some(row),
            ..claim(row, FoundBy::Quote, row, &[2022], Some(true))
        };
        let (s, why) = judge(&c);
        assert_eq!(s, Support::Weak, "{why:?}");
        assert!(why.iter().any(|w| w.contains("run of a table's figures")), "{why:?}");
    }

    #[test]
    fn a_figure_line_that_does_not_name_the_measure_runs_over_rows_or_is_not_yet_reported_is_weak() {
        let why = |question: &str, line: &'static str| {
            let c = Claim { question: q(question), quote: Some(line), ..claim(line, FoundBy::Quote, line, &[2015], Some(true)) };
            judge(&c).1
        };
        // AMD's net income per share row for its dividends per share (it pays none)
        let w = why(
            "What were AMD's dividends declared per share in FY2015?",
            "Net income (loss) attributable to AMD common stockholders $ (660) $ (403) per common share 2015",
        );
        assert!(w.iter().any(|w| w.contains("does not name \"dividends\"") || w.contains("does not name \"declared\"")), "{w:?}");
        // MGM's goodwill by segment: several rows, none the total
        let w = why(
            "What was MGM Resorts's goodwill at the end of FY2015 in USD millions?",
            "Las Vegas Strip Resorts $ 70,975 $ 70,975 Regional Operations 386,892 386,892 Goodwill was recognized by MGP in 2015.",
        );
        assert!(w.iter().any(|w| w.contains("runs over 2 table rows")), "{w:?}");
        // 3M's unrecognized compensation for the year's expense
        let w = why(
            "What was 3M's stock-based compensation expense in FY2015 in USD millions?",
            "As of December 31, 2015, there was $66 million of compensation expense that has yet to be recognized related to stock awards.",
        );
        assert!(w.iter().any(|w| w.contains("not yet reported")), "{w:?}");
        // the measure after tax, or its tax benefit
        let w = why(
            "What was Verizon's stock-based compensation expense in FY2015, in USD millions?",
            "After-tax compensation expense for stock-based compensation related to RSUs was $300 million in 2015.",
        );
        assert!(w.iter().any(|w| w.contains("\"after-tax\" figure")), "{w:?}");
        // a change for a level
        let w = why(
            "What was Boeing's research and development expense in FY2015, in USD millions?",
            "Research and development expense in 2015 increased by $90 million compared with 2014.",
        );
        assert!(w.iter().any(|w| w.contains("states a change")), "{w:?}");
        // a line stating another measure's figure, the one asked named later
        let w = why(
            "What was Amazon's amortization expense of intangible assets in FY2015, in USD millions?",
            "Other operating expense, net was $171 million during 2015, and was primarily related to the amortization of intangible assets.",
        );
        assert!(w.iter().any(|w| w.contains("is of \"Other operating expense, net\"")), "{w:?}");
        // every word of the measure asked: "operating lease expense" is not "operating services"
        let w = why(
            "What was MGM Resorts's operating lease expense in FY2015, in USD millions?",
            "As of December 31, 2015, the Company owed MGM Resorts $85 million for operating services.",
        );
        assert!(w.iter().any(|w| w.contains("does not name \"lease\"")), "{w:?}");
        // a total of more than asked: Walmart's depreciation and amortization for its amortization
        let w = why(
            "What was Walmart's amortization expense of intangible assets in FY2015, in USD millions?",
            "Total depreciation and amortization expense for property and equipment and intangible assets for fiscal 2015 was $11.0 billion.",
        );
        assert!(w.iter().any(|w| w.contains("\"depreciation and amortization\" together")), "{w:?}");
        // what a figure would have been; a person's words quoted
        let w = why(
            "What did MGM Resorts earn in 2015?",
            "Absent the exemption, “Net income attributable to MGM Resorts International” would have increased by $4 million in 2015.",
        );
        assert!(w.iter().any(|w| w.contains("would have been")), "{w:?}");
        let w = why(
            "What did MGM Resorts earn in 2015?",
            "of MGM Resorts. “What we accomplished in 2015 is nothing short of remarkable, with earnings of $1.2 billion",
        );
        assert!(w.iter().any(|w| w.contains("a person's words")), "{w:?}");
        // a compound's first part names it: Walmart's "stock incentive plans"
        let w = why(
            "What was Walmart's stock-based compensation expense in FY2015, in USD millions?",
            "The compensation expense recognized for all stock incentive plans was $854 million for fiscal 2015.",
        );
        assert!(w.is_empty(), "{w:?}");
        // the year's row, named: none of these
        let w = why("What was Costco's stock-based compensation expense in FY2015 in USD millions?", "Stock-based compensation expense $ 665 $ 619 $ 595 2015");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(rows_run_over("Total net sales 280,522 232,887 177,866"), 1);
        assert_eq!(rows_run_over("Revenue was $5.2 billion in 2020, up 3% from $5.0 billion"), 0);
    }

    #[test]
    fn a_line_that_introduces_a_table_is_weak() {
        let line = "Expected future amortization expense of acquired intangible assets as of December 31, 2017 is as follows (in millions):";
        let c = Claim {
            question: q("What is the total amount of expected future amortization expense of acquired intangible assets as of December 31, 2017?"),
            quote: Some(line),
            ..claim(line, FoundBy::Quote, line, &[2017], Some(true))
        };
        let (s, why) = judge(&c);
        assert_eq!(s, Support::Weak, "{why:?}");
        assert!(why.iter().any(|w| w.contains("introduces a list or table")), "{why:?}");
        // ... or says tables follow (a "Yes" to "Did Verizon's debt go up?" rested on one)
        assert!(introduces_tables("The following tables show the significant transactions involving the senior unsecured debt securities of Verizon."));
        assert!(!introduces_tables("Total debt increased to $150.6 billion."));
    }

    #[test]
    fn off_topic_needs_both_no_named_document_and_no_words_on_the_line() {
        let qq = q("What is the capital of France?");
        assert!(off_topic(false, qq, "Subsidiaries: 3M France S.A.S."));
        assert!(!off_topic(true, qq, "Subsidiaries: 3M France S.A.S."), "a question naming a library document is answered");
        assert!(!off_topic(false, qq, "Paris is the capital of France"), "a line about the question is kept");
        // every word of the question on a label that only names them (3M's list of subsidiaries)
        assert!(off_topic(false, qq, "Capital Safety Group EMEA France"));
        assert!(!off_topic(true, qq, "Capital Safety Group EMEA France"), "a question naming the library is answered");
    }

    #[test]
    fn a_label_holding_the_question_words_is_weak_a_statement_or_a_row_with_figures_is_not() {
        for l in ["Capital Safety Group EMEA France", "United States: State Activity", "Mtre Laurent Nahmiash", "Net sales 2018"] {
            assert!(is_label(l), "{l}");
        }
        for l in [
            "Paris is the capital of France.",
            "Total current assets 8,802 10,539",
            "Purchases of property, plant and equipment (PP&E) (1,577)",
            "We manage our commercial operations through two operating segments",
        ] {
            assert!(!is_label(l), "{l}");
        }
        let page = "Subsidiaries of the registrant\nCapital Safety Group EMEA France\n3M France S.A.S. France";
        let c = Claim {
            question: q("What is the capital of France?"),
            quote: Some("Capital Safety Group EMEA France"),
            ..claim("Capital Safety Group EMEA France", FoundBy::Quote, page, &[], None)
        };
        let (s, why) = judge(&c);
        assert_eq!(s, Support::Weak, "{why:?}");
        assert!(why[0].contains("heading or label"), "{why:?}");
        // the figure on the row is what was asked: strong
        let (s, why) = judge(&claim("$1,577 million", FoundBy::Quote, PAGE, &[2018], Some(true)));
        assert_eq!(s, Support::Strong, "{why:?}");
    }

    #[test]
    fn a_quoted_row_of_the_right_year_and_company_is_strong() {
        let (s, why) = judge(&claim("$1,577 million", FoundBy::Quote, PAGE, &[2018], Some(true)));
        assert_eq!((s, why.len()), (Support::Strong, 0), "{why:?}");
    }

    #[test]
    fn each_shortfall_makes_it_weak_and_says_so() {
        let (s, why) = judge(&claim("$1,600 million", FoundBy::Numbers, PAGE, &[2018], Some(true)));
        assert_eq!(s, Support::Weak);
        assert!(why[0].contains("1 of the 1 figures"), "{why:?}");
        let (s, why) = judge(&claim("$1,577 million", FoundBy::Quote, PAGE, &[2019], Some(true)));
        assert_eq!(s, Support::Weak);
        assert!(why[0].contains("does not mention 2019"), "{why:?}");
        let (s, why) = judge(&claim("$1,577 million", FoundBy::Quote, PAGE, &[2018], Some(false)));
        assert!(s == Support::Weak && why[0].contains("not one the question names"), "{why:?}");
        let (s, why) = judge(&claim("$1,577 million", FoundBy::None, PAGE, &[], None));
        assert!(s == Support::Weak && why[0].contains("not found on the cited page"), "{why:?}");
        let c = Claim { question: q("Which planet is closest to the sun?"), ..claim("Paris", FoundBy::Quote, PAGE, &[], None) };
        let (s, why) = judge(&c);
        assert!(s == Support::Weak && why.iter().any(|w| w.contains("question's words")), "{why:?}");
    }

    #[test]
    fn nothing_cited_or_not_found_is_none() {
        let c = Claim { cited: false, ..claim("x", FoundBy::None, PAGE, &[], None) };
        assert_eq!(judge(&c).0, Support::None);
        let c = Claim { not_found: true, ..claim("x", FoundBy::None, PAGE, &[], None) };
        assert_eq!(judge(&c).0, Support::None);
    }

    #[test]
    fn a_boilerplate_paragraph_never_supports_an_answer() {
        let note = "FOR VALUE RECEIVED, the undersigned, PEPSICO, INC., a North Carolina corporation (the \u{201c}Borrower\u{201d}), HEREBY PROMISES TO PAY to the order of the Lender the principal amount of the Revolving Credit Advances made pursuant to the Five-Year Credit Agreement dated as of May 26, 2023.";
        assert!(is_boilerplate(note));
        assert!(!is_boilerplate(
            "On May 26, 2023, PepsiCo entered into a new five-year unsecured revolving credit agreement which enables it to borrow up to $5.0 billion."
        ));
        let page = format!("Exhibit 10.1 Form of Note {note}");
        let qq = q("By how much did Pepsico increase its unsecured five year revolving credit agreement on May 26, 2023?");
        let c = Claim { question: qq, quote: Some(note), ..claim(note, FoundBy::Quote, &page, &[2023], Some(true)) };
        let (s, why) = judge(&c);
        assert_eq!(s, Support::Weak, "{why:?}");
        assert!(why.iter().any(|w| w.contains("boilerplate")), "{why:?}");
    }

    #[test]
    fn a_question_naming_no_company_in_a_library_of_several_is_never_supported() {
        let companies = ["3M Company".to_string(), "Corning".to_string(), "PepsiCo".to_string()];
        let c =
            Claim { question: q("How did the company do last year?"), unnamed_among: &companies, ..claim("$1,577 million", FoundBy::Quote, PAGE, &[], None) };
        let (s, why) = judge(&c);
        assert_eq!(s, Support::Weak);
        assert!(why.iter().any(|w| w.starts_with("which company?") && w.contains("3 companies (3M Company, Corning, PepsiCo)")), "{why:?}");
    }
}
