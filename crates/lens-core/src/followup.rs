//! Follow-up questions: "and in FY2018?" or "what drove it?" asked after an answer is read in
//! the thread of the question it follows. What the follow-up does not say (the company, the
//! period, the measure) is kept from its parent; what it says wins. The question asked is
//! rewritten into one that stands on its own ("What was Nike's revenue in FY2018?"), which is
//! what is searched, answered and logged, so the log stays an eval set of whole questions; the
//! words typed and what was kept go with it ([`FollowUp`]).

use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

/// How a follow-up was read: the question it follows, the words asked, and what it kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FollowUp {
    /// The log id of the question it follows.
    pub of: i64,
    /// The words asked ("and in FY2018?").
    pub asked: String,
    /// What was kept from the question it follows, each as "company: Nike", "period: FY2019",
    /// "measure: revenue", "question: What was Nike's revenue in FY2019?", "filings: ...".
    pub kept: Vec<String>,
}

/// A period as a question writes it: "FY2019", "FY 19", "fiscal 2022", "Q3 2023",
/// "third quarter of 2021", "H1 FY2023", "2020"; a quarter or half alone ("Q3").
static PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)\b(?:
            (?:(?:q[1-4]|h[12]|(?:first|second|third|fourth)\s+quarter(?:\s+of)?|(?:first|second)\s+half(?:\s+of)?)\s+)?
            (?:(?:fy\s*'?|fiscal\s+(?:year\s+)?|calendar\s+(?:year\s+)?)?(?:19|20)\d{2}|fy\s*'?\d{2})
          | q[1-4] | h[12] | (?:first|second|third|fourth)\s+quarter
        )\b",
    )
    .expect("valid regex")
});

/// Words that carry no content of their own in a follow-up ("and what about in 2021?").
const FILLER: &[&str] = &[
    "and", "what", "whats", "about", "how", "hows", "for", "in", "the", "same", "then", "now", "of", "at", "during", "year", "years", "fiscal", "please", "ok",
    "okay", "so", "it", "that", "this", "was", "is", "were", "did", "do", "does", "again", "instead", "also", "with", "as", "s", "one", "ones", "on", "to",
    "vs", "versus", "compared", "or", "but", "quarter", "half", "previous", "prior", "before", "its", "their", "there",
];

/// Pronouns that stand for the measure asked before ("what drove it?").
const STAND_INS: &[&str] = &["it", "this", "that", "this figure", "that figure", "this number", "that number"];

/// The period phrases of `text`, as written, with their spans.
fn periods(text: &str) -> Vec<(usize, usize)> {
    PERIOD.find_iter(text).map(|m| (m.start(), m.end())).collect()
}

/// Where `alias` (normalised words, [`crate::text::plain_words`]) is written in `text`, with a
/// possessive after it ("Nike's"); the span and whether the possessive was there.
fn company_span(text: &str, alias: &str) -> Option<(usize, usize, bool)> {
    let words: Vec<String> = alias.split(' ').filter(|w| !w.is_empty()).map(regex::escape).collect();
    if words.is_empty() {
        return None;
    }
    let re = Regex::new(&format!(r"(?i)\b{}\b(['’]s\b)?", words.join(r"[^\p{L}\p{N}]*"))).ok()?;
    let c = re.captures(text)?;
    let m = c.get(0)?;
    Some((m.start(), m.end(), c.get(1).is_some()))
}

/// The company named in `text` (the longest alias found, as written there, without a
/// possessive) and its span.
fn named_company(text: &str, aliases: &[String]) -> Option<(String, usize, usize, bool)> {
    let mut best: Option<(String, usize, usize, bool)> = None;
    for a in aliases {
        if let Some((s, e, poss)) = company_span(text, a) {
            let name_end = if poss { e - text[..e].chars().rev().take(2).map(char::len_utf8).sum::<usize>() } else { e };
            if best.as_ref().is_none_or(|b| name_end - s > b.2 - b.1) {
                best = Some((text[s..name_end].to_string(), s, e, poss));
            }
        }
    }
    best
}

/// Replace spans (sorted, not overlapping) of `text` with the strings given.
fn replace_spans(text: &str, mut edits: Vec<(usize, usize, String)>) -> String {
    edits.sort_by_key(|e| e.0);
    let mut out = String::new();
    let mut at = 0;
    for (s, e, with) in edits {
        if s < at {
            continue;
        }
        out.push_str(&text[at..s]);
        out.push_str(&with);
        at = e;
    }
    out.push_str(&text[at..]);
    out
}

/// `text` without its closing question mark and spaces.
fn open_end(text: &str) -> &str {
    text.trim().trim_end_matches(['?', '.', '!']).trim_end()
}

/// The question it follows, as [`resolve`] reads it.
#[derive(Debug, Clone)]
pub struct Parent {
    pub id: i64,
    /// The question as it was answered (itself rewritten when it was a follow-up).
    pub question: String,
    /// The measure as it was said ("revenue"), when the question named one.
    pub measure: Option<String>,
}

/// A follow-up read in its parent's thread: the question to ask and what was kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub question: String,
    pub kept: Vec<String>,
    /// The follow-up names a company of its own (the parent's filings are not kept).
    pub own_company: bool,
}

/// Read `asked` after `parent`. `aliases(text)` gives the companies' aliases the library finds
/// named in a text (the document filter's). An elliptical follow-up (nothing but a period or a
/// company: "and in FY2018?", "what about Adidas?") is the parent question with that part
/// replaced; a follow-up with words of its own ("what drove it?") is asked as written, with the
/// parent's company and period added where it names none, and "it" standing for the parent's
/// measure written out.
pub fn resolve(parent: &Parent, asked: &str, aliases: &dyn Fn(&str) -> Vec<String>) -> Resolved {
    let asked_t = asked.trim();
    let p_aliases = aliases(&parent.question);
    let a_aliases = aliases(asked_t);
    let p_company = named_company(&parent.question, &p_aliases);
    let a_company = named_company(asked_t, &a_aliases);
    let p_periods = periods(&parent.question);
    let a_periods = periods(asked_t);
    let a_period_text: Vec<&str> = a_periods.iter().map(|&(s, e)| &asked_t[s..e]).collect();
    let p_period_text: Vec<&str> = p_periods.iter().map(|&(s, e)| &parent.question[s..e]).collect();
    // the follow-up's own words, without its periods and company
    let mut rest = replace_spans(asked_t, a_periods.iter().map(|&(s, e)| (s, e, " ".to_string())).collect());
    if let Some((name, ..)) = &a_company {
        if let Some((s, e, _)) = company_span(&rest, &crate::text::plain_words(name).join(" ")) {
            rest.replace_range(s..e, " ");
        }
    }
    let content: Vec<String> = crate::text::plain_words(&rest).into_iter().filter(|w| !FILLER.contains(&w.as_str())).collect();
    let mut kept = Vec::new();
    if content.is_empty() && (!a_periods.is_empty() || a_company.is_some()) {
        // elliptical: the parent question with the named parts replaced
        let mut edits: Vec<(usize, usize, String)> = Vec::new();
        let mut tail = String::new();
        if !a_period_text.is_empty() {
            let with = a_period_text.join(" and ");
            match p_periods.as_slice() {
                [] => tail.push_str(&format!(" in {with}")),
                // one period named for a comparison of several: the latest one moves
                [.., last] => edits.push((last.0, last.1, with)),
            }
        } else if !p_period_text.is_empty() {
            kept.push(format!("period: {}", p_period_text.join(", ")));
        }
        match (&a_company, &p_company) {
            (Some((name, ..)), Some((_, s, e, poss))) => edits.push((*s, *e, if *poss { possessive(name) } else { name.clone() })),
            (Some((name, ..)), None) => tail.push_str(&format!(" for {name}")),
            (None, Some((name, ..))) => kept.push(format!("company: {name}")),
            (None, None) => {}
        }
        let body = replace_spans(&parent.question, edits);
        let question = if tail.is_empty() { body } else { format!("{}{tail}?", open_end(&body)) };
        kept.push(format!("question: {}", parent.question));
        return Resolved { question, kept, own_company: a_company.is_some() };
    }
    // words of its own: asked as written (without a leading "and"), in the parent's company
    // and period
    static LEAD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)^(?:and|also|so|then|now|ok|okay)\b[,\s]*").expect("valid regex"));
    let mut question = LEAD.replace(asked_t, "").to_string();
    if let Some(c) = question.chars().next() {
        question.replace_range(..c.len_utf8(), &c.to_uppercase().to_string());
    }
    if let Some(m) = parent.measure.as_deref().filter(|m| !m.trim().is_empty()) {
        let l = question.to_lowercase();
        let words = crate::text::plain_words(&l);
        let names_measure = crate::text::plain_words(m).iter().all(|w| words.contains(w));
        if !names_measure {
            for s in STAND_INS.iter().rev() {
                let re = Regex::new(&format!(r"(?i)\b{}\b", s.replace(' ', r"\s+"))).expect("valid regex");
                if let Some(hit) = re.find(&question) {
                    question.replace_range(hit.start()..hit.end(), m);
                    kept.push(format!("measure: {m}"));
                    break;
                }
            }
        }
    }
    let mut tail = String::new();
    if a_company.is_none() {
        if let Some((name, ..)) = &p_company {
            tail.push_str(&format!(" for {name}"));
            kept.push(format!("company: {name}"));
        }
    }
    if a_periods.is_empty() && !p_period_text.is_empty() {
        tail.push_str(&format!(" in {}", p_period_text.join(" and ")));
        kept.push(format!("period: {}", p_period_text.join(", ")));
    }
    if !tail.is_empty() {
        let end = if asked_t.ends_with('?') || !asked_t.ends_with('.') { "?" } else { "." };
        question = format!("{}{tail}{end}", open_end(&question));
    }
    Resolved { question, kept, own_company: a_company.is_some() }
}

/// "Nike's", "Adidas's" (one form the company reader always reads).
fn possessive(name: &str) -> String {
    format!("{name}'s")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The companies a small library knows: Nike, Adidas, 3M, Johnson & Johnson.
    fn aliases(text: &str) -> Vec<String> {
        let words = crate::text::plain_words(text);
        ["nike", "adidas", "3m", "johnson johnson"]
            .iter()
            .filter(|a| {
                let aw: Vec<&str> = a.split(' ').collect();
                words.windows(aw.len()).any(|w| w.iter().zip(&aw).all(|(x, y)| x == y))
            })
            .map(|a| a.to_string())
            .collect()
    }

    fn parent(q: &str, measure: Option<&str>) -> Parent {
        Parent { id: 7, question: q.into(), measure: measure.map(str::to_string) }
    }

    /// One case: (question followed, its measure, follow-up, question asked, kept).
    type Case = (&'static str, Option<&'static str>, &'static str, &'static str, &'static [&'static str]);

    const CASES: &[Case] = &[
        // a period alone replaces the period
        ("What was Nike's revenue in FY2019?", Some("revenue"), "and in FY2018?", "What was Nike's revenue in FY2018?", &["company: Nike"]),
        ("What was Nike's revenue in FY2019?", Some("revenue"), "What about fiscal 2017?", "What was Nike's revenue in fiscal 2017?", &["company: Nike"]),
        // a company alone replaces the company, possessive kept
        ("What was Nike's revenue in FY2019?", Some("revenue"), "and Adidas?", "What was Adidas's revenue in FY2019?", &["period: FY2019"]),
        ("What was the revenue of Nike in FY2019?", Some("revenue"), "How about 3M in 2018?", "What was the revenue of 3M in 2018?", &[]),
        // the parent named no period: the follow-up's is added
        ("What is 3M's quick ratio?", Some("quick ratio"), "and in Q2 2023?", "What is 3M's quick ratio in Q2 2023?", &["company: 3M"]),
        // a comparison: the latest period moves
        (
            "How did Nike's revenue change from FY2018 to FY2019?",
            Some("revenue"),
            "and FY2020?",
            "How did Nike's revenue change from FY2018 to FY2020?",
            &["company: Nike"],
        ),
        // words of its own: the company and period added, "it" written out
        (
            "What was Nike's revenue in FY2019?",
            Some("revenue"),
            "What drove it?",
            "What drove revenue for Nike in FY2019?",
            &["measure: revenue", "company: Nike", "period: FY2019"],
        ),
        (
            "What was Nike's revenue in FY2019?",
            Some("revenue"),
            "What was the gross margin?",
            "What was the gross margin for Nike in FY2019?",
            &["company: Nike", "period: FY2019"],
        ),
        // its own period and company win
        ("What was Nike's revenue in FY2019?", Some("revenue"), "What was Adidas's gross margin in 2021?", "What was Adidas's gross margin in 2021?", &[]),
        // a measure named is not replaced by the parent's
        (
            "What was Nike's revenue in FY2019?",
            Some("revenue"),
            "Why did revenue grow?",
            "Why did revenue grow for Nike in FY2019?",
            &["company: Nike", "period: FY2019"],
        ),
        // a leading "and" goes
        (
            "What are 3M's total current assets at the end of FY2018?",
            Some("total current assets"),
            "and total current liabilities?",
            "Total current liabilities for 3M in FY2018?",
            &["company: 3M", "period: FY2018"],
        ),
    ];

    #[test]
    fn follow_ups_keep_what_they_do_not_say() {
        for (p, m, asked, want, kept) in CASES {
            let r = resolve(&parent(p, *m), asked, &aliases);
            assert_eq!(r.question, *want, "{asked} after {p}");
            let mut want_kept: Vec<String> = kept.iter().map(|s| s.to_string()).collect();
            if r.kept.iter().any(|k| k.starts_with("question: ")) {
                want_kept.push(format!("question: {p}"));
            }
            assert_eq!(r.kept, want_kept, "{asked} after {p}");
        }
    }

    #[test]
    fn a_follow_up_naming_a_company_does_not_keep_the_parents_filings() {
        assert!(resolve(&parent("What was Nike's revenue in FY2019?", None), "and Adidas?", &aliases).own_company);
        assert!(!resolve(&parent("What was Nike's revenue in FY2019?", None), "and in 2018?", &aliases).own_company);
    }

    #[test]
    fn periods_are_read_as_written() {
        let t = "FY2019, FY 19, fiscal 2022, Q3 2023, third quarter of 2021, H1 FY2023, 2020, Q4";
        let found: Vec<&str> = periods(t).into_iter().map(|(s, e)| &t[s..e]).collect();
        assert_eq!(found, ["FY2019", "FY 19", "fiscal 2022", "Q3 2023", "third quarter of 2021", "H1 FY2023", "2020", "Q4"]);
    }
}
