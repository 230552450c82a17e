//! What a user reads for each note and reason the service writes: one table
//! (`resources/wording.json`) from the words a developer wrote ("the model cited P2.S4 which
//! name no passage given to it (dropped)") to a user's ("The model pointed to lines it had not
//! been given; they were left out."). The note as written is kept for Details. A note no rule
//! matches is shown as written, with passage ids ("P1.S11, P3.R5") said as "lines of the
//! pages". Pure; tests beside.

use regex::Regex;
use serde::Deserialize;
use std::sync::LazyLock;

const TABLE: &str = include_str!("../../../resources/wording.json");

#[derive(Deserialize)]
struct Table {
    rules: Vec<RuleText>,
    /// Each judging rule's reason by its id (`crate::judge`), `{0}`, `{1}` ... its words.
    reasons: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct RuleText {
    when: String,
    say: String,
}

struct Rule {
    when: Regex,
    say: String,
}

static TABLE_READ: LazyLock<Table> = LazyLock::new(|| serde_json::from_str(TABLE).expect("resources/wording.json is valid (tested)"));

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    TABLE_READ.rules.iter().map(|r| Rule { when: Regex::new(&r.when).expect("a wording rule is a valid regex (tested)"), say: r.say.clone() }).collect()
});

/// Whether the table words the judging rule `id`'s reason.
pub fn has_reason(id: &str) -> bool {
    TABLE_READ.reasons.contains_key(id)
}

/// The reason of the judging rule `id`, its `{0}`, `{1}` ... filled with `words` in one pass (a
/// word that holds "{1}" is not filled again). A rule with no wording (a test catches it) is
/// said by its id.
pub fn reason(id: &str, words: &[String]) -> String {
    let Some(t) = TABLE_READ.reasons.get(id) else { return id.to_string() };
    let mut out = String::with_capacity(t.len());
    let mut rest = t.as_str();
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}').and_then(|close| after[..close].parse::<usize>().ok().map(|i| (close, i))) {
            Some((close, i)) => {
                out.push_str(words.get(i).map(String::as_str).unwrap_or(""));
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Passage ids as the model sees them ("P2.S14", "P1.R7"), alone or in a list.
static IDS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bP\d+\.[SR]\d+(?:(?:, | and |, and )P\d+\.[SR]\d+)*\b").expect("valid regex"));

/// `note` in a user's words, and whether that differs from the note as written (then the
/// written one belongs behind Details).
pub fn say(note: &str) -> (String, bool) {
    let n = note.trim();
    for r in RULES.iter() {
        if let Some(c) = r.when.captures(n) {
            let mut out = String::new();
            c.expand(&r.say, &mut out);
            return (out, true);
        }
    }
    if IDS.is_match(n) {
        return (IDS.replace_all(n, "lines of the pages").to_string(), true);
    }
    (n.to_string(), false)
}

/// Notes in a user's words, each once (two notes that read the same are one), and the notes as
/// written that were reworded (for Details).
pub fn say_all(notes: &[String]) -> (Vec<String>, Vec<String>) {
    let mut shown: Vec<String> = Vec::new();
    let mut details: Vec<String> = Vec::new();
    for n in notes {
        let (s, reworded) = say(n);
        if reworded && !details.contains(n) {
            details.push(n.clone());
        }
        if !shown.contains(&s) {
            shown.push(s);
        }
    }
    (shown, details)
}

/// A model's reply cut at its length limit, ending at its last whole sentence when that keeps
/// most of it, else at a word boundary with an ellipsis; a reply already ending a sentence is
/// kept.
pub fn whole_sentences(text: &str) -> String {
    let t = text.trim_end();
    if t.is_empty() || t.ends_with(['.', '!', '?', '"', '\u{201d}', ')']) {
        return t.to_string();
    }
    let ends: Vec<usize> = t.match_indices(['.', '!', '?']).filter(|(i, _)| t[i + 1..].starts_with(char::is_whitespace)).map(|(i, _)| i + 1).collect();
    if let Some(&e) = ends.last().filter(|&&e| e * 2 >= t.len()) {
        return t[..e].to_string();
    }
    match t.rfind(char::is_whitespace) {
        Some(i) if i > 0 => format!("{}…", t[..i].trim_end_matches([',', ';', ':', ' '])),
        _ => format!("{t}…"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_filled_once_with_its_words() {
        assert_eq!(reason("other_years", &["2016, 2015".into(), "2017".into()]), "the quoted line is about 2016, 2015, not 2017 as asked");
        assert_eq!(
            reason("label_line", &["a {0} b".into()]),
            "the quoted line (\"a {0} b\") is a heading or label naming what was asked, not a statement of it"
        );
        assert_eq!(reason("no_such_rule", &[]), "no_such_rule");
    }

    #[test]
    fn every_rule_compiles_and_developer_words_are_reworded() {
        assert!(RULES.len() >= 10);
        let (s, re) = say("the model cited P2.S4 which name no passage given to it (dropped)");
        assert!(re && s.starts_with("The model pointed to lines it had not been given"), "{s}");
        let (s, _) = say("12 of the 240 sentences and rows of the 3 pages read were given to the model: P1.S1, P1.S11, P2.R4, P3.R5");
        assert_eq!(s, "The model read the 12 sentences and table rows (of 240) closest to the question.");
        assert_eq!(say("on the CPU: this build has no GPU support").0, "The model ran on the processor.");
        // no rule: ids said in words, anything else as written
        let (s, re) = say("the answer leans on P1.S3, P1.S4 and P2.R1 only");
        assert!(re && s == "the answer leans on lines of the pages only", "{s}");
        assert_eq!(say("searched 3M_2018_10K"), ("searched 3M_2018_10K".to_string(), false));
        // the same user sentence once; the notes as written kept for Details
        let (shown, details) =
            say_all(&["on the CPU: this build has no GPU support".into(), "on the CPU: this build has no GPU support".into(), "plain".into()]);
        assert_eq!(shown, vec!["The model ran on the processor.".to_string(), "plain".to_string()]);
        assert_eq!(details.len(), 1);
        // no rule's words leak passage ids or build words
        for r in RULES.iter() {
            assert!(!IDS.is_match(&r.say) && !r.say.contains("GPU support") && !r.say.contains("tokens"), "{}", r.say);
        }
    }

    #[test]
    fn a_cut_reply_ends_at_a_sentence_or_a_word() {
        // the last word may be cut itself: it goes
        assert_eq!(whole_sentences("Revenue rose 5%. Costs fell as the company cut"), "Revenue rose 5%. Costs fell as the company…");
        assert_eq!(whole_sentences("Revenue rose 5% on higher volumes in every segment. Costs fe"), "Revenue rose 5% on higher volumes in every segment.");
        assert_eq!(whole_sentences("It ended."), "It ended.");
        assert_eq!(whole_sentences("word"), "word…");
    }
}
