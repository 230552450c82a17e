//! The section each page of a filing belongs to, read from the headings its pages print:
//! a 10-K / 10-Q item ("Item 3. Legal Proceedings"), a note to the statements ("Note 21 –
//! Legal Proceedings", "16. Commitments and Contingencies" under Item 8). Regulation S-K fixes
//! where each kind of answer lives (the business and its customers in Item 1, risks in 1A, legal
//! proceedings in Item 3 and the contingencies note, the drivers of a change in Item 7), so a
//! question's topic ([`Topics`], `resources/sections.json`) points retrieval at a section
//! before it reads any page. A page carries the section running at its top and those that begin
//! on it (a page in two sections has both); a table of contents sets none; a filing without
//! item headings (an annual report, a release, a scan whose OCR missed them) has no sections
//! and is searched as before. Pure; tests beside.

use regex::Regex;
use serde::Deserialize;
use std::sync::LazyLock;

/// An item heading: "Item 1A. Risk Factors", "ITEM 7 - MANAGEMENT'S DISCUSSION ...".
static ITEM: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)^item\s+(\d{1,2}[a-c]?)\s*[.:\-–—]?\s+(\S.{2,110})$").expect("valid regex"));
/// A note heading: "Note 13 – Liabilities, Commitments and Contingencies", "NOTE 4. DEBT".
static NOTE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)^note\s+(\d{1,2})\s*[.:\-–—]?\s+(\S.{2,90})$").expect("valid regex"));
/// A numbered note title under Item 8: "16. Commitments and Contingencies".
static NUMBERED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(\d{1,2})\.\s+([A-Z][A-Za-z,'’&\- ]{3,80})$").expect("valid regex"));

/// A heading line's section, if the line is one: ("item", "Item 3. Legal Proceedings") or
/// ("note", "Note 21 – Legal Proceedings"); `in_statements` allows numbered note titles.
fn heading(line: &str, in_statements: bool) -> Option<(&'static str, String)> {
    let l = line.split_whitespace().collect::<Vec<_>>().join(" ");
    // a table-of-contents entry ends in its page number; a reference names where to look
    let ends_in_number = l.rsplit(' ').next().is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()) && l.contains(' '));
    let low = l.to_lowercase();
    if ends_in_number || low.contains(" of this ") || low.contains("included in") || low.contains(" see ") {
        return None;
    }
    let title = |t: &str| t.trim().trim_end_matches(['.', ':']).to_string();
    if let Some(c) = ITEM.captures(&l) {
        return Some(("item", format!("Item {}. {}", c[1].to_uppercase(), title(&c[2]))));
    }
    if let Some(c) = NOTE.captures(&l) {
        return Some(("note", format!("Note {} – {}", &c[1], title(&c[2]))));
    }
    if in_statements {
        if let Some(c) = NUMBERED.captures(&l) {
            let t = title(&c[2]);
            // a title: words in capitals, no sentence
            let capitalised = t.split_whitespace().filter(|w| w.len() > 3).all(|w| w.starts_with(|ch: char| ch.is_uppercase()));
            if capitalised && !t.ends_with(',') {
                return Some(("note", format!("Note {} – {}", &c[1], t)));
            }
        }
    }
    None
}

/// The sections of each page of a document, in page order (`pages`: each page's text): the
/// item and note running at the page's top, then those beginning on it. A page of four or more
/// item headings is a table of contents: it has no section and sets none.
pub fn of_document(pages: &[&str]) -> Vec<Vec<String>> {
    let mut item: Option<String> = None;
    let mut note: Option<String> = None;
    let mut out = Vec::with_capacity(pages.len());
    for text in pages {
        let in_statements = item.as_deref().is_some_and(|i| i.starts_with("Item 8.") || i.starts_with("Item 1. Financial Statements"));
        let found: Vec<(&str, String)> = text.lines().map(str::trim).filter(|l| !l.is_empty()).filter_map(|l| heading(l, in_statements)).collect();
        // item lines as a table of contents lists them (with their page numbers) count too
        let listed = text.lines().filter(|l| ITEM.is_match(&l.split_whitespace().collect::<Vec<_>>().join(" "))).count();
        if listed >= 4 {
            out.push(Vec::new());
            continue;
        }
        let mut here: Vec<String> = item.iter().chain(note.iter()).cloned().collect();
        for (kind, name) in found {
            if kind == "item" {
                item = Some(name.clone());
                note = None;
            } else {
                note = Some(name.clone());
            }
            if !here.contains(&name) {
                here.push(name);
            }
        }
        out.push(here);
    }
    out
}

/// A question topic and where a filing answers it.
#[derive(Debug, Clone, Deserialize)]
pub struct Topic {
    pub topic: String,
    /// Phrases of a question that ask about it (lower case, matched in the question).
    pub cues: Vec<String>,
    /// Words of the sections that answer it (lower case, matched in a section's name).
    pub sections: Vec<String>,
    /// Words a page that answers it uses where the question's own may not ("litigation" for
    /// "legal battles", "guidance" for "expected"): searched beside the question's, at a lower
    /// weight ([`crate::index::Bm25Params::topic_weight`]).
    #[serde(default)]
    pub terms: Vec<String>,
}

/// A thing a narrative yes/no asks about ("any ongoing legal battles?") and how a filing's
/// sentence names it ([`crate::stance`]).
#[derive(Debug, Clone, Deserialize)]
pub struct StanceTopic {
    /// Phrases of a question that ask about it (lower case, as [`Topic::cues`]).
    pub cues: Vec<String>,
    /// Phrases a sentence that answers it uses (lower case, matched at a word's start).
    pub says: Vec<String>,
}

/// The topic -> section priors (`resources/sections.json`).
#[derive(Debug, Clone, Deserialize)]
pub struct Topics {
    pub topics: Vec<Topic>,
    #[serde(default)]
    pub stances: Vec<StanceTopic>,
}

const BUILTIN: &str = include_str!("../../../resources/sections.json");

impl Topics {
    pub fn builtin() -> Topics {
        serde_json::from_str(BUILTIN).expect("resources/sections.json is valid (tested)")
    }

    /// The phrases a sentence answering a narrative yes/no about `question`'s thing uses (empty:
    /// the question names none of the things known).
    pub fn says_for(&self, question: &str) -> Vec<String> {
        let q = format!(" {} ", question.to_lowercase());
        once_each(self.stances.iter().filter(|t| t.cues.iter().any(|c| q.contains(c.as_str()))).flat_map(|t| &t.says))
    }

    /// The words of every topic `question` asks about ([`Topic::terms`]), in order, once each.
    pub fn terms_for(&self, question: &str) -> Vec<String> {
        let q = format!(" {} ", question.to_lowercase());
        once_each(self.topics.iter().filter(|t| t.cues.iter().any(|c| q.contains(c.as_str()))).flat_map(|t| &t.terms))
    }

    /// The section words of every topic `question` asks about (empty: no topic).
    pub fn sections_for(&self, question: &str) -> Vec<String> {
        let q = format!(" {} ", question.to_lowercase());
        once_each(self.topics.iter().filter(|t| t.cues.iter().any(|c| q.contains(c.as_str()))).flat_map(|t| &t.sections))
    }
}

/// The strings in order, each once.
fn once_each<'a>(all: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in all {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    out
}

/// Does a page in `sections` lie in a section named by any of `wanted` (section words)?
pub fn matches(sections: &[String], wanted: &[String]) -> bool {
    sections.iter().any(|s| {
        let l = s.to_lowercase();
        wanted.iter().any(|w| l.contains(w.as_str()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_and_notes_carry_over_pages_and_a_contents_page_sets_none() {
        let toc = "TABLE OF CONTENTS\nItem 1. Business 1\nItem 1A. Risk Factors 6\nItem 3. Legal Proceedings 18\nItem 7. Management's Discussion 22\nItem 8. Financial Statements 52";
        let pages = [
            "Cover page",
            toc,
            "PART I\nItem 1. Business\nWe make airplanes.",
            "Our customers include airlines.",
            "more risk text\nItem 1A. Risk Factors\nOur business depends on",
            "Item 3. Legal Proceedings\nVarious legal proceedings are pending.",
            "Item 8. Financial Statements and Supplementary Data\nbalance sheet",
            "Note 13 – Liabilities, Commitments and Contingencies\nwarranties",
            "16. Commitments and Contingencies\nlawsuits; see Note 21 included in Item 8 of this 10-K",
            "1. I have reviewed this annual report on Form 10-K;",
        ];
        let s = of_document(&pages);
        assert!(s[0].is_empty() && s[1].is_empty(), "{:?}", &s[..2]);
        assert_eq!(s[2], vec!["Item 1. Business"]);
        assert_eq!(s[3], vec!["Item 1. Business"], "carried over");
        assert_eq!(s[4], vec!["Item 1. Business", "Item 1A. Risk Factors"], "a page in two sections");
        assert_eq!(s[5], vec!["Item 1A. Risk Factors", "Item 3. Legal Proceedings"]);
        assert_eq!(s[7], vec!["Item 8. Financial Statements and Supplementary Data", "Note 13 – Liabilities, Commitments and Contingencies"]);
        assert_eq!(s[8].last().map(String::as_str), Some("Note 16 – Commitments and Contingencies"));
        // a numbered sentence is no note title
        assert_eq!(s[9], vec![s[8][0].clone(), s[8][2].clone()]);
        // a filing with no item headings has no sections
        assert!(of_document(&["Annual Report 2022", "Chairman's letter"]).iter().all(Vec::is_empty));
    }

    #[test]
    fn a_scanned_page_whose_heading_ocr_missed_stays_in_the_section_before() {
        // page 2 not read yet (a scan waiting for OCR), page 3 read with its heading garbled
        let pages = [
            "PART I\nItem 1. Business\nWe make airplanes.",
            "",
            "ltem 3. Lega1 Proceedlngs\nVarious legal proceedings are pending.",
            "Item 7. Management's Discussion and Analysis\nSales rose.",
        ];
        let s = of_document(&pages);
        assert_eq!(s[1], vec!["Item 1. Business"]);
        assert_eq!(s[2], vec!["Item 1. Business"], "no section is made up from a misread heading");
        assert_eq!(s[3], vec!["Item 1. Business", "Item 7. Management's Discussion and Analysis"]);
    }

    #[test]
    fn topics_point_at_their_sections() {
        let t = Topics::builtin();
        let legal = t.sections_for("Has CVS Health reported any materially important ongoing legal battles from 2022?");
        assert!(legal.contains(&"legal proceedings".to_string()) && legal.contains(&"contingencies".to_string()), "{legal:?}");
        let customers = t.sections_for("Who are the primary customers of Boeing as of FY2022?");
        assert!(matches(&["Item 1. Business".to_string()], &customers), "{customers:?}");
        assert!(t.sections_for("What is 3M's FY2018 capital expenditure?").is_empty());
        assert!(!matches(&["Item 7. Management's Discussion".to_string()], &legal));
    }

    #[test]
    fn a_topic_brings_the_words_its_pages_use() {
        let t = Topics::builtin();
        let legal = t.terms_for("Has CVS Health reported any materially important ongoing legal battles from 2022?");
        assert!(legal.contains(&"litigation".to_string()) && legal.contains(&"lawsuits".to_string()), "{legal:?}");
        let ahead = t.terms_for("Is growth in JnJ's adjusted EPS expected to accelerate in FY2023?");
        assert!(ahead.contains(&"guidance".to_string()), "{ahead:?}");
        // a figure asked for brings none; two topics bring the words of both
        assert!(t.terms_for("What is 3M's FY2018 capital expenditure?").is_empty());
        let both = t.terms_for("Which acquisitions and what legal proceedings did it have?");
        assert!(both.contains(&"acquired".to_string()) && both.contains(&"litigation".to_string()), "{both:?}");
    }
}
