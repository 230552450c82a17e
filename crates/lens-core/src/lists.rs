//! List answers: "Which acquisitions ...?", "What are the segments ...?", "What are the
//! geographies ...?" are answered with the items of the kind asked, each taken from a sentence
//! or row of one page read, and those sentences as the quote (in pieces, each boxed: see
//! [`crate::evidence::QUOTE_GAP`]). Pure: the question and page texts in, items out.
//!
//! - **acquisitions**: the capitalised name after "acquisition of", "acquired", "merger with"
//!   (a list of subsidiaries names no acquisition verb, so it gives none);
//! - **segments**: the names before "segment" and the names a sentence about segments lists;
//! - **geographies**: region and country names of a fixed list, as the page writes them.

use crate::figures::catalogue::find_words;
use crate::question::{Operation, Question};
use crate::text::units;
use regex::Regex;
use std::sync::LazyLock;

named_enum!(
    /// The kind of item a list question asks for.
    pub enum ListKind("list kind") {
        Acquisitions = "acquisitions",
        Segments = "segments",
        Geographies = "geographies",
    }
);

/// The kind of list `q` asks for: a narrative "which / what are / list / name" question about
/// acquisitions, segments or geographies. A ranking ("which segment had the highest ...") is not
/// a list.
pub fn list_kind(q: &Question) -> Option<ListKind> {
    if q.operation != Operation::Narrative {
        return None;
    }
    let t = q.text.to_lowercase();
    let first = t.split_whitespace().next().unwrap_or("");
    let asks_list = matches!(first, "which" | "what" | "list" | "name") || t.contains("what are") || t.contains("which are");
    if !asks_list {
        return None;
    }
    if t.contains("acquisitions") || t.contains("acquired") || t.contains("companies did") && t.contains("acquir") {
        Some(ListKind::Acquisitions)
    } else if t.contains("segments") {
        Some(ListKind::Segments)
    } else if t.contains("geograph") || t.contains("regions") || t.contains("countries") {
        Some(ListKind::Geographies)
    } else {
        None
    }
}

/// Whether a list answer is the whole list by the filing's own count: segments asked, and the
/// quoted sentence counts them ("the Company's three business segments: Consumer Health,
/// Pharmaceutical and MedTech") as many as the answer names.
pub fn list_complete(question: &Question, answer: &str, line: &str) -> bool {
    // the segments themselves asked ("What are ...", "List ..."), not a choice among them ("Which
    // of Amazon's segments had an operating loss?")
    static WHAT_ARE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:what|which)\s+(?:are|were)\b|^(?:list|name)\b|\bwhat\s+(?:\w+\s+)?segments\s+(?:does|did)\b").expect("valid regex")
    });
    static CHOICE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\b(?:had|has|have|with|whose|reported|grew|declined)\b").expect("valid regex"));
    if list_kind(question) != Some(ListKind::Segments) || !WHAT_ARE.is_match(&question.text) || CHOICE.is_match(&question.text) {
        return false;
    }
    let Some(n) = segments_counted(line) else {
        return false;
    };
    let items = answer.split("; ").flat_map(|i| i.split(" and ")).filter(|i| !i.trim().is_empty()).count();
    items == n
}

/// How many segments a sentence says the company has ("the Company's three business segments",
/// "We have two reportable segments").
fn segments_counted(line: &str) -> Option<usize> {
    static COUNTED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\b(two|three|four|five|six|seven|2|3|4|5|6|7)\s+(?:\w+\s+){0,2}segments\b").expect("valid regex"));
    COUNTED.captures(line).map(|c| match c[1].to_lowercase().as_str() {
        "two" | "2" => 2,
        "three" | "3" => 3,
        "four" | "4" => 4,
        "five" | "5" => 5,
        "six" | "6" => 6,
        _ => 7,
    })
}

/// The names a sentence lists after its words about segments and a colon or a dash ("three
/// business segments: Consumer Health, Pharmaceutical and MedTech"; "two reportable segments
/// ... - Verizon Consumer Group (Consumer) and Verizon Business Group (Business)"), each part
/// as printed, a name's short form in parentheses left out. A name may hold "and" ("Safety and
/// Industrial"): the last part is split at its "and" only when the sentence counts one segment
/// more than its parts, or where the page prints each half elsewhere on its own ("Regional
/// Operations and MGM China" where "Regional Operations" and "MGM China" head the segment
/// table's rows).
fn listed_segments(u: &str, page: &str) -> Vec<String> {
    let cut = [":", " - ", " – ", " — "].iter().filter_map(|m| u.find(m).map(|i| (i, m.len()))).min();
    let Some((at, len)) = cut.filter(|(i, _)| u[..*i].to_lowercase().contains("segments")) else { return Vec::new() };
    let (head, after) = (&u[..at], &u[at + len..]);
    // "(Consumer)": a short form beside the name
    static PARENS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s*\([^)]*\)").expect("valid regex"));
    let after = PARENS.replace_all(after, "");
    let mut parts: Vec<String> =
        after.split([';', ',']).map(|p| p.trim().trim_start_matches("and ").trim_end_matches('.').trim().to_string()).filter(|p| !p.is_empty()).collect();
    let elsewhere = page.replace(u, " ");
    let stand_alone =
        |l: &str| l.split_once(" and ").is_some_and(|(a, b)| find_words(&elsewhere, a.trim()).is_some() && find_words(&elsewhere, b.trim()).is_some());
    if segments_counted(head).is_some_and(|n| n == parts.len() + 1) || parts.len() >= 2 && parts.last().is_some_and(|l| stand_alone(l)) {
        if let Some((a, b)) = parts.last().and_then(|l| l.split_once(" and ")).map(|(a, b)| (a.to_string(), b.to_string())) {
            parts.pop();
            parts.push(a);
            parts.push(b);
        }
    }
    parts.into_iter().filter(|p| LISTED.find(p).is_some_and(|m| m.start() == 0 && m.end() == p.len())).collect()
}

/// A capitalised name: words that start with a capital or a digit, joined by "and", "&", "of",
/// "de", "the" inside.
const NAME: &str =
    r"(?:[A-Z][\w'’.&-]*|\d[\w-]*)(?:,? (?:Inc\.|LLC|Ltd\.?|Corp\.?|S\.A\.|N\.V\.|plc|AG|GmbH)|\s+(?:(?:and|&|of|de|the|for)\s+)?(?:[A-Z][\w'’.&-]*))*";

static ACQUIRED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?:acquisitions? of|acquired|acquire|acquiring|merger with|merged with|purchase of|purchased)\s+(?:(?:all|substantially all|a majority|\d+(?:\.\d+)?%)\s+of\s+)?(?:the\s+)?(?:(?:outstanding|issued|remaining)\s+)*(?:(?:shares|stock|equity interests?|ownership interests?|assets|capital stock|common stock)\s+(?:of|in)\s+)?({NAME})"
    ))
    .expect("acquisition pattern")
});

static SEGMENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"\b({NAME})\s+(?:business\s+|reportable\s+|operating\s+)?segments?\b")).expect("segment pattern"));

static LISTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(NAME).expect("name pattern"));

/// Words a name may not be (or start with) — sentence openers, generic nouns, months.
const NOT_NAMES: &[&str] = &[
    "The",
    "This",
    "These",
    "Our",
    "We",
    "In",
    "On",
    "As",
    "At",
    "For",
    "Of",
    "Company",
    "Corporation",
    "Total",
    "Other",
    "Each",
    "All",
    "Business",
    "Reportable",
    "Operating",
    "Segment",
    "Segments",
    "Corporate",
    "Unallocated",
    "During",
    "Fiscal",
    "Note",
    "Item",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Such",
    "Its",
    "Their",
    "Certain",
    "Following",
    "Acquisition",
    "Acquisitions",
    "A",
    "An",
    "U.S.",
    "Consolidated",
    "Net",
    "Sales",
    "Revenue",
    "Revenues",
    "Income",
    "Three",
    "Two",
    "Four",
    "Five",
    "Six",
    "Both",
    "Any",
    "Those",
    "Which",
    "Including",
    "Table",
    "See",
];

/// Regions and countries as filings write them (read longest first, so "North America" is
/// taken before "America").
const PLACES: &[&str] = &[
    "Europe, the Middle East and Africa",
    "Asia Pacific, Latin America and Canada",
    "Latin America and Canada",
    "Greater China",
    "Asia Pacific",
    "Asia-Pacific",
    "North America",
    "Latin America",
    "South America",
    "Central America",
    "Middle East",
    "United States",
    "United Kingdom",
    "Rest of World",
    "Rest of the World",
    "Developed Europe",
    "Developed Rest of World",
    "Emerging Markets",
    "EMEA",
    "APAC",
    "LACC",
    "Americas",
    "Europe",
    "Asia",
    "Africa",
    "China",
    "Japan",
    "Canada",
    "Mexico",
    "Brazil",
    "India",
    "Australia",
    "Germany",
    "France",
    "Macau",
    "International",
];

/// Items of a page: (item, the sentence or row it came from).
pub type Items = Vec<(String, String)>;

/// The items of one page, in the page's order, each item once.
pub fn items(kind: ListKind, page: &str) -> Items {
    let mut out: Items = Vec::new();
    // an item once: a name that starts another ("Blue Buffalo", "Blue Buffalo Pet Products,
    // Inc.") is the same item, kept as first written
    // ... and a segment's short form ("Consumer" for "Verizon Consumer Group (Consumer)") is it
    let mut push = |item: String, unit: &str| {
        let key = item.to_lowercase();
        let same = |i: &String| {
            let k = i.to_lowercase();
            k == key
                || k.starts_with(&format!("{key} "))
                || key.starts_with(&format!("{k} "))
                || (kind == ListKind::Segments && (find_words(&k, &key).is_some() || find_words(&key, &k).is_some()))
        };
        if !out.iter().any(|(i, _)| same(i)) {
            out.push((item, unit.to_string()));
        }
    };
    for u in units(page) {
        match kind {
            ListKind::Acquisitions => {
                for c in ACQUIRED.captures_iter(&u) {
                    if let Some(n) = clean(&c[1]) {
                        push(n, &u);
                    }
                }
            }
            ListKind::Segments => {
                if !u.to_lowercase().contains("segment") || crate::support::is_table_row(&u) {
                    continue;
                }
                for c in SEGMENT.captures_iter(&u) {
                    if let Some(n) = clean(&c[1]) {
                        push(n, &u);
                    }
                }
                // "... segments: Safety and Industrial; Transportation and Electronics; ..."
                for part in listed_segments(&u, page) {
                    if let Some(n) = clean(&part) {
                        push(n, &u);
                    }
                }
            }
            ListKind::Geographies => {
                let mut rest = u.clone();
                let mut found = Vec::new();
                // longest first: "Developed Rest of World" is taken before "Rest of World"
                let mut places = PLACES.to_vec();
                places.sort_by_key(|p| std::cmp::Reverse(p.len()));
                for p in &places {
                    if let Some(at) = find_words(&rest, p) {
                        found.push((at, *p));
                        // taken: "North America" leaves no "America" behind
                        rest.replace_range(at..at + p.len(), &" ".repeat(p.len()));
                    }
                }
                found.sort();
                for (_, p) in found {
                    push(p.to_string(), &u);
                }
            }
        }
    }
    out
}

/// Words ending in a full stop that do not end a name's sentence.
const ABBREVIATIONS: &[&str] = &["Inc.", "Corp.", "Co.", "Ltd.", "N.V.", "S.A.", "L.P.", "U.S.", "St.", "Mr.", "Dr."];

/// A captured name without trailing joiners or punctuation, or `None` for a generic word. A
/// word ending in a full stop (not an abbreviation or an initial) ends the name.
fn clean(raw: &str) -> Option<String> {
    let mut words: Vec<&str> = Vec::new();
    for w in raw.split_whitespace() {
        words.push(w);
        let initial = w.len() == 2 && w.ends_with('.');
        if w.ends_with('.') && !initial && !ABBREVIATIONS.contains(&w) {
            break;
        }
    }
    while let Some(last) = words.last() {
        if matches!(*last, "and" | "&" | "of" | "de" | "the" | "for") {
            words.pop();
        } else {
            break;
        }
    }
    let name = words.join(" ").trim_end_matches([',', '.', ';', ':']).to_string();
    let name = if name.ends_with("Inc") || name.ends_with("Corp") || name.ends_with("Ltd") { format!("{name}.") } else { name };
    let first = name.split_whitespace().next()?;
    // ("Company's reportable segment": a possessive of a generic word is no name either)
    let bare = first.trim_end_matches("'s").trim_end_matches("’s");
    if NOT_NAMES.contains(&first)
        || NOT_NAMES.contains(&bare)
        || name.chars().filter(|c| c.is_alphabetic()).count() < 3
        || name.chars().all(|c| !c.is_lowercase()) && name.len() > 6
    {
        return None;
    }
    Some(name)
}

/// The page of `pages` (texts, in the order read) with the most items of `kind` — at least one
/// acquisition, at least two segments or geographies — an item whose sentence names a year of
/// `years` counting twice; ties go to the page read first. An item whose sentence names years,
/// none of them asked, is left out ("completed the acquisition of Momenta" in 2020 is no answer
/// to "which acquisitions in 2022?").
pub fn best_page(kind: ListKind, pages: &[&str], years: &[i32]) -> Option<(usize, Items)> {
    let least = if kind == ListKind::Acquisitions { 1 } else { 2 };
    let score = |it: &[(String, String)]| -> usize { it.iter().map(|(_, u)| 1 + years.iter().any(|y| u.contains(&y.to_string())) as usize).sum() };
    let of_other_years = |u: &str| {
        let named = crate::filter::question_years(u);
        !years.is_empty() && !named.is_empty() && !years.iter().any(|y| named.contains(y))
    };
    let mut best: Option<(usize, usize, Items)> = None;
    for (i, p) in pages.iter().enumerate() {
        let mut it = items(kind, p);
        it.retain(|(_, u)| !of_other_years(u));
        let s = score(&it);
        if it.len() >= least && best.as_ref().is_none_or(|(_, b, _)| s > *b) {
            best = Some((i, s, it));
        }
    }
    best.map(|(i, _, it)| (i, it))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Question {
        Question::parse(s)
    }

    #[test]
    fn a_list_of_segments_is_whole_when_the_filing_counts_them_as_many() {
        let line = "This Committee oversees the activities of the Company's three business segments: Consumer Health, Pharmaceutical and MedTech.";
        let asked = &q("What are the business segments of Johnson & Johnson in FY2022?");
        assert!(list_complete(asked, "Consumer Health; Pharmaceutical and MedTech", line));
        assert!(!list_complete(asked, "Consumer Health; Pharmaceutical", line), "two named, three counted");
        // a choice among them is not the list
        let line = "We have organized our operations into three segments: North America, International, and AWS.";
        assert!(!list_complete(&q("Which of Amazon's segments had an operating loss in 2019?"), "North America; International; AWS", line));
    }

    #[test]
    fn list_questions_are_told_from_rankings_and_figures() {
        assert_eq!(list_kind(&q("Which acquisitions did Johnson & Johnson complete in 2022?")), Some(ListKind::Acquisitions));
        assert_eq!(list_kind(&q("What are the reportable segments of 3M in 2022?")), Some(ListKind::Segments));
        assert_eq!(list_kind(&q("What are the geographies that Boeing operates in?")), Some(ListKind::Geographies));
        assert_eq!(list_kind(&q("Which of JPM's business segments had the lowest net revenue in 2021 Q1?")), None);
        assert_eq!(list_kind(&q("What is the FY2018 capital expenditure amount for 3M?")), None);
    }

    #[test]
    fn acquired_companies_are_named_and_subsidiaries_are_not() {
        let page = "On December 22, 2022, the Company completed the acquisition of Abiomed, Inc., a leading provider of heart pumps.\n\
                    In October 2020 the Company acquired all of the outstanding shares of Momenta Pharmaceuticals, Inc. for $6.1 billion.\n\
                    The Company may acquire businesses in the future.";
        let got: Vec<String> = items(ListKind::Acquisitions, page).into_iter().map(|(i, _)| i).collect();
        assert_eq!(got, vec!["Abiomed, Inc.".to_string(), "Momenta Pharmaceuticals, Inc.".to_string()]);
        let page = "In fiscal 2018 we completed the acquisition of Blue Buffalo. For more information see Note 3.";
        assert_eq!(items(ListKind::Acquisitions, page)[0].0, "Blue Buffalo");
        let page = "We acquired Blue Buffalo Pet Products, Inc. in fiscal 2018. Results as if we had acquired Blue Buffalo earlier.";
        assert_eq!(items(ListKind::Acquisitions, page).len(), 1, "one company, written two ways");
        // the year asked decides between two pages of one acquisition each
        let (a, b) =
            ("The Company completed the acquisition of Momenta in October 2020.", "In December 2022 the Company completed the acquisition of Abiomed.");
        assert_eq!(best_page(ListKind::Acquisitions, &[a, b], &[2022]).unwrap().0, 1);
        assert_eq!(best_page(ListKind::Acquisitions, &[a, b], &[]).unwrap().0, 0);
        // an acquisition of another year is no answer to the year asked
        assert!(best_page(ListKind::Acquisitions, &[a], &[2022]).is_none());
        let subsidiaries = "Subsidiaries of the Registrant\nJanssen Biotech, Inc. Pennsylvania\nEthicon LLC Delaware\nDePuy Synthes, Inc. Delaware";
        assert!(items(ListKind::Acquisitions, subsidiaries).is_empty());
    }

    #[test]
    fn segments_and_geographies_are_read_as_written() {
        let page =
            "The Company manages its operations in four business segments: Safety and Industrial; Transportation and Electronics; Health Care; and Consumer.";
        let got: Vec<String> = items(ListKind::Segments, page).into_iter().map(|(i, _)| i).collect();
        assert_eq!(got, vec!["Safety and Industrial", "Transportation and Electronics", "Health Care", "Consumer"]);
        // a name starts at a word's start: "3M’sfour business segments" (a space lost in the
        // text layer) names no segment "M’sfour" (a new user's question, green with it)
        let glued = format!("{page}\n3M’sfour business segments bring together common or related 3M technologies.");
        let got: Vec<String> = items(ListKind::Segments, &glued).into_iter().map(|(i, _)| i).collect();
        assert_eq!(got, vec!["Safety and Industrial", "Transportation and Electronics", "Health Care", "Consumer"]);
        // a list with no comma before its last "and", counted by the sentence (J&J); after a dash,
        // short forms in parentheses (Verizon)
        let names = |page: &str| items(ListKind::Segments, page).into_iter().map(|(i, _)| i).collect::<Vec<_>>();
        assert_eq!(
            names("The Company is organized into three business segments: Consumer Health, Pharmaceutical and MedTech."),
            ["Consumer Health", "Pharmaceutical", "MedTech"]
        );
        assert_eq!(
            names("We have two reportable segments that we operate and manage as strategic business units - Verizon Consumer Group (Consumer) and Verizon Business Group (Business)."),
            ["Verizon Consumer Group", "Verizon Business Group"]
        );
        // uncounted, a name holding "and" stays whole, unless the page prints each half on its own
        assert_eq!(names("Its segments: Health Care, Safety and Industrial."), ["Health Care", "Safety and Industrial"]);
        assert_eq!(
            names("The Company has aggregated its operating segments into the following reportable segments: Las Vegas Strip Resorts, Regional Operations and MGM China.\nLas Vegas Strip Resorts 1,234\nRegional Operations 567\nMGM China 89\nThe Company’s reportable segment measure is EBITDAR."),
            ["Las Vegas Strip Resorts", "Regional Operations", "MGM China"]
        );
        let page = "Revenues by region: United States, EMEA, APAC and LACC. Sales in North America rose.";
        let got: Vec<String> = items(ListKind::Geographies, page).into_iter().map(|(i, _)| i).collect();
        assert_eq!(got, vec!["United States", "EMEA", "APAC", "LACC", "North America"]);
        // a longer name holding a shorter one is one place (Pfizer's regions)
        let page = "Revenues by geographic area: United States, Developed Europe, Developed Rest of World and Emerging Markets.";
        let got: Vec<String> = items(ListKind::Geographies, page).into_iter().map(|(i, _)| i).collect();
        assert_eq!(got, vec!["United States", "Developed Europe", "Developed Rest of World", "Emerging Markets"]);
    }
}
