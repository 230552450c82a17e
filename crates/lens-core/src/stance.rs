//! Narrative yes/no questions ("Has 3M reported any materially important ongoing legal
//! battles?", "Is Boeing's business subject to cyclicality?"): the sentence that names the
//! thing asked, and whether it says yes or no. Pure: a sentence and the phrases of the thing
//! asked in, a word out; the extractive answerer picks the sentence ([`crate::answer`]).
//!
//! A sentence that names the thing says yes ("The Company and some of its subsidiaries are
//! involved in numerous claims and lawsuits"); one with a negation in the few words before the
//! name says no ("We are not a party to any material legal proceedings"). A negated belief
//! ("we do not believe these proceedings will have a material adverse effect") still names
//! proceedings the company is in: it says yes. A sentence that only points elsewhere ("see Note
//! 16") or names the thing as a heading or an accounting estimate does not answer.

/// Words that turn a statement about the thing to no.
const NEGATIONS: &[&str] = &["not", "no", "never", "none", "neither", "nor", "without", "isn't", "aren't", "doesn't", "don't", "wasn't", "hasn't", "haven't"];

/// Words after a negation that make it about a belief or an outcome, not about the thing.
const BELIEFS: &[&str] = &["believe", "believes", "expect", "expects", "anticipate", "anticipates", "think", "predict", "assure", "guarantee"];

/// How many words before the thing's name a negation may stand (within its clause).
const NEGATION_REACH: usize = 8;

/// Words that begin another clause: a negation before one is about something else.
const CLAUSE_WORDS: &[&str] = &["but", "although", "though", "while", "however", "whereas", "and"];

/// Phrases of a sentence that only points to another place in the filing.
const POINTERS: &[&str] = &[
    "see note",
    "refer to",
    "incorporated by reference",
    "see the discussion",
    "see part",
    "see item",
    "for a more detailed discussion",
    "for additional information",
    "critical accounting estimate",
];

/// Phrases of a sentence that states the thing as a fact of the company ("are involved in",
/// "a party to", "served as", "declared"): such a sentence is preferred to one that only
/// weighs an outcome.
const STATES: &[&str] = &["involved in", "party to", "parties to", "defendant", "named as", "served as", "serves as", "declared", "paid", "pays"];

/// Does `sentence` state the thing as a fact of the company ([`STATES`])?
pub fn states(sentence: &str) -> bool {
    let l = sentence.to_lowercase();
    STATES.iter().any(|p| l.contains(p))
}

/// Is `sentence` prose: most of its words are not figures (a table row read as one line is
/// not)?
pub fn is_prose(sentence: &str) -> bool {
    let ws = words(sentence);
    let figures = ws.iter().filter(|(_, _, w)| w.chars().next().is_some_and(|c| c.is_ascii_digit())).count();
    ws.len() >= 6 && figures * 6 <= ws.len()
}

/// The words of `s`, lower case, with the byte offsets where they start and end.
fn words(s: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        let part = c.is_alphanumeric() || c == '\'' || c == '’';
        match (part, start) {
            (true, None) => start = Some(i),
            (false, Some(b)) => {
                out.push((b, i, s[b..i].to_lowercase().replace('’', "'")));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Where `sentence` names one of `says` (a phrase matched at a word's start; a trailing space
/// asks for the word's end): the index of the first word of the first one named.
pub fn names(sentence: &str, says: &[String]) -> Option<usize> {
    let ws = words(sentence);
    let mut best: Option<usize> = None;
    for phrase in says {
        let whole_last = phrase.ends_with(' ');
        let pw: Vec<String> = words(phrase).into_iter().map(|(_, _, w)| w).collect();
        if pw.is_empty() || pw.len() > ws.len() {
            continue;
        }
        for i in 0..=ws.len() - pw.len() {
            let hit = pw.iter().enumerate().all(|(k, p)| {
                let w = &ws[i + k].2;
                let last = k + 1 == pw.len();
                if last && !whole_last {
                    w.starts_with(p.as_str())
                } else {
                    w == p
                }
            });
            if hit {
                best = Some(best.map_or(i, |b| b.min(i)));
                break;
            }
        }
    }
    best
}

/// Does `sentence` say no about the thing it names at word `at`: a negation within
/// [`NEGATION_REACH`] words before it in the same clause (no comma, semicolon or "but" between),
/// not one about a belief?
pub fn says_no(sentence: &str, at: usize) -> bool {
    let ws = words(sentence);
    let at = at.min(ws.len());
    let mut i = at;
    while i > 0 && at - i < NEGATION_REACH {
        i -= 1;
        let (_, end, w) = &ws[i];
        // a clause ends between this word and the next
        let next_start = ws.get(i + 1).map_or(sentence.len(), |x| x.0);
        if i + 1 < at && (sentence[*end..next_start].contains([',', ';', ':']) || CLAUSE_WORDS.contains(&ws[i + 1].2.as_str())) {
            return false;
        }
        if NEGATIONS.contains(&w.as_str()) && ws.get(i + 1).is_none_or(|x| !BELIEFS.contains(&x.2.as_str())) {
            return true;
        }
    }
    false
}

/// A sentence that only points elsewhere or names the thing as an accounting estimate.
pub fn is_pointer(sentence: &str) -> bool {
    let l = sentence.to_lowercase();
    POINTERS.iter().any(|p| l.contains(p))
}

/// "Yes" or "No", when `sentence` answers a narrative yes/no about the thing `says` names; `None`
/// when it does not name it or only points elsewhere.
pub fn stance(sentence: &str, says: &[String]) -> Option<&'static str> {
    if is_pointer(sentence) {
        return None;
    }
    let at = names(sentence, says)?;
    Some(if says_no(sentence, at) { "No" } else { "Yes" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn legal() -> Vec<String> {
        crate::sections::Topics::builtin().says_for("Has 3M reported any materially important ongoing legal battles?")
    }

    #[test]
    fn the_question_names_the_thing() {
        let t = crate::sections::Topics::builtin();
        assert!(legal().contains(&"lawsuit".to_string()));
        assert_eq!(t.says_for("Is Boeing's business subject to cyclicality?"), ["cyclical", "cyclicality", "cycles"]);
        assert!(t.says_for("Does Foot Locker's new CEO have previous CEO experience?").contains(&"chief executive officer".to_string()));
        assert!(t.says_for("What is the FY2018 capital expenditure?").is_empty());
    }

    #[test]
    fn a_sentence_naming_the_thing_says_yes() {
        // 3M's 2018 10-K, Note 16
        assert_eq!(stance("Legal Proceedings: The Company and some of its subsidiaries are involved in numerous claims and lawsuits, principally in the United States, and regulatory proceedings worldwide.", &legal()), Some("Yes"));
        // Boeing's 2018 10-K, Item 1A
        let cyc = vec!["cyclical".to_string(), "cyclicality".to_string()];
        assert_eq!(
            stance("Traditionally, the airline industry has been cyclical and very competitive and has experienced significant profit swings.", &cyc),
            Some("Yes")
        );
    }

    #[test]
    fn a_negation_before_the_thing_says_no_a_negated_belief_does_not() {
        assert_eq!(stance("We are not currently a party to any material legal proceedings.", &legal()), Some("No"));
        assert_eq!(stance("There is no pending litigation against the Company.", &legal()), Some("No"));
        let seas = vec!["seasonal".to_string()];
        assert_eq!(stance("Our business is not seasonal in nature.", &seas), Some("No"));
        assert_eq!(stance("We do not believe that the outcome of these legal proceedings will have a material adverse effect.", &legal()), Some("Yes"));
        // a negation far from the thing is about something else
        assert_eq!(
            stance("No single customer accounted for more than 10% of sales, and the Company is subject to various legal proceedings.", &legal()),
            Some("Yes")
        );
    }

    #[test]
    fn a_stated_fact_and_prose_are_told() {
        assert!(states("She previously served as Chief Executive Officer of Ulta from July 2013 through June 2021."));
        assert!(!states("The ultimate outcome of legal proceedings would not have a material adverse effect."));
        assert!(is_prose("The Company and some of its subsidiaries are involved in numerous claims and lawsuits."));
        assert!(!is_prose("Less: Preferred stock dividends net of tax 22,414 6,630 10,708 Net income 21,979 9,159 16,025"));
    }

    #[test]
    fn a_pointer_or_an_unnamed_thing_does_not_answer() {
        assert_eq!(stance("For a more detailed discussion of the legal proceedings involving the Company, see Note 16.", &legal()), None);
        assert_eq!(stance("The Company believes its most critical accounting estimates relate to legal proceedings.", &legal()), None);
        assert_eq!(stance("Revenue rose 4% on higher volumes.", &legal()), None);
        // a phrase with a trailing space matches whole words only
        assert_eq!(names("We acquired Abiomed.", &["acquire ".to_string()]), None);
        assert_eq!(names("We acquire companies.", &["acquire ".to_string()]), Some(1));
    }
}
