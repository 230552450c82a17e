//! The model's reply into answer, cited labels and quote. Small models stray from the format:
//! fields may be missing, reordered, lower-case, bulleted, or wrapped in a thinking block;
//! labels may be out of range (dropped, and reported). Nothing here trusts the reply.

use lens_core::answer::NOT_FOUND;
use regex::Regex;
use std::sync::LazyLock;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    pub answer: String,
    /// Labels in range, in the reply's order, without repeats ("P1", "P3").
    pub labels: Vec<String>,
    /// Labels the reply gave that name no page.
    pub dropped: Vec<String>,
    pub quote: Option<String>,
    pub not_found: bool,
    /// Passage ids cited (`P2.R7`), in the reply's order ([`crate::passages`]).
    pub ids: Vec<String>,
}

fn field_re() -> &'static Regex {
    static R: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?im)^[\s*\-#>]*\**\s*(answer|pages?|citations?|cited pages?|cite|sources?|quote|evidence)\s*\**\s*[:：]\**").unwrap());
    &R
}

fn space_punct_re() -> &'static Regex {
    static R: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s+([.,;:])").unwrap());
    &R
}

fn label_re() -> &'static Regex {
    static R: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\bP\s?(\d{1,3})\b").unwrap());
    &R
}

/// Where the answer's text ends in a reply written so far (the next field's label), so a
/// stream can show the answer alone; `None` before `Answer:` has been written.
pub fn answer_so_far(partial: &str) -> Option<&str> {
    let partial = strip_thinking(partial);
    let fields: Vec<_> = field_re().captures_iter(partial).collect();
    let (start, rest_from) = match fields.first() {
        Some(c) if c[1].eq_ignore_ascii_case("answer") => (c.get(0).unwrap().end(), 1),
        // no field yet: wait; a reply that skips `Answer:` is shown when it is parsed
        _ => return None,
    };
    let end = fields.get(rest_from).map(|c| c.get(0).unwrap().start()).unwrap_or(partial.len());
    let mut s = &partial[start..end];
    // hold back a last line that may be the start of the next field's label
    if fields.len() <= rest_from {
        if let Some(nl) = s.rfind('\n') {
            s = &s[..nl];
        }
    }
    Some(s.trim_start())
}

fn strip_thinking(s: &str) -> &str {
    match s.find("</think>") {
        Some(i) => &s[i + "</think>".len()..],
        None if s.trim_start().starts_with("<think>") => "",
        None => s,
    }
}

fn clean_quote(q: &str) -> Option<String> {
    let q = q.trim().trim_matches(|c: char| c == '"' || c == '“' || c == '”' || c == '\'' || c == '`').trim();
    if q.is_empty() || q.eq_ignore_ascii_case("none") || q.eq_ignore_ascii_case("n/a") {
        return None;
    }
    // a quote is a short span: past 30 words the model is pasting, keep the start
    let words: Vec<&str> = q.split_whitespace().collect();
    Some(if words.len() > 30 { words[..30].join(" ") } else { words.join(" ") })
}

/// Parse a whole reply; `n_pages` pages were labelled P1..Pn.
pub fn parse(reply: &str, n_pages: usize) -> Reply {
    let text = strip_thinking(reply).trim();
    let caps: Vec<(String, usize, usize)> =
        field_re().captures_iter(text).map(|c| (c[1].to_lowercase(), c.get(0).unwrap().start(), c.get(0).unwrap().end())).collect();
    let body = |i: usize| -> &str {
        let end = caps.get(i + 1).map(|c| c.1).unwrap_or(text.len());
        text[caps[i].2..end].trim()
    };
    let mut answer = String::new();
    let mut pages_field = None;
    let mut quote = None;
    for (i, (name, _, _)) in caps.iter().enumerate() {
        match name.as_str() {
            "answer" if answer.is_empty() => answer = body(i).to_string(),
            "quote" | "evidence" if quote.is_none() => quote = clean_quote(body(i)),
            n if n != "answer" && n != "quote" && n != "evidence" && pages_field.is_none() => pages_field = Some(body(i).to_string()),
            _ => {}
        }
    }
    if caps.is_empty() || (answer.is_empty() && caps.first().is_some_and(|c| c.1 > 0)) {
        // no `Answer:` label: the text before the first field (or all of it)
        let end = caps.first().map(|c| c.1).unwrap_or(text.len());
        answer = text[..end].trim().to_string();
    }
    // the answer is one paragraph; labels in it ("[P2]") count as citations when no Pages field
    let answer_line = answer.split("\n\n").next().unwrap_or("").trim().to_string();
    let label_source = pages_field.clone().unwrap_or_else(|| answer_line.clone());
    let mut ids = crate::passages::cited_ids(&label_source);
    if ids.is_empty() {
        ids = crate::passages::cited_ids(&answer_line);
    }
    let answer_line = crate::passages::strip_ids(&answer_line);
    let mut labels = Vec::new();
    let mut dropped = Vec::new();
    for c in label_re().captures_iter(&label_source) {
        let n: usize = c[1].parse().unwrap_or(0);
        let l = format!("P{n}");
        if n >= 1 && n <= n_pages {
            if !labels.contains(&l) {
                labels.push(l);
            }
        } else if !dropped.contains(&l) {
            dropped.push(l);
        }
    }
    let stripped = label_re().replace_all(&answer_line, "").replace("[]", "").replace("()", "");
    let mut answer = space_punct_re().replace_all(&stripped, "$1").trim().trim_end_matches([',', ';']).trim().to_string();
    // the refusal, also when a small model garbles its start ("No found in the provided pages")
    let lower = answer.to_lowercase();
    let not_found = lower.contains("found in the provided pages") || lower.contains("not found in the pages") || answer.is_empty();
    if not_found {
        answer = NOT_FOUND.to_string();
        labels.clear();
        ids.clear();
        quote = None;
    }
    Reply { answer, labels, dropped, quote, not_found, ids }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_asked_format() {
        let r = parse("Answer: $1,234 million\nPages: P2, P1\nQuote: \"Net revenue 1,234\"", 3);
        assert_eq!(r.answer, "$1,234 million");
        assert_eq!(r.labels, ["P2", "P1"]);
        assert_eq!(r.quote.as_deref(), Some("Net revenue 1,234"));
        assert!(!r.not_found);
    }

    #[test]
    fn strays_from_the_format() {
        // bold labels, lower case, out-of-range and repeated labels, a thinking block
        let r = parse("<think>\nhmm\n</think>\n**Answer:** Yes, it grew. [P1]\n- pages: p1, P1, P7\nquote: none", 3);
        assert_eq!(r.answer, "Yes, it grew.");
        assert_eq!(r.labels, ["P1"]);
        assert_eq!(r.dropped, ["P7"]);
        assert_eq!(r.quote, None);
        // no labels at all: the whole reply is the answer, citations from the text
        let r = parse("The ratio was 1.5 (P3).", 3);
        assert_eq!((r.answer.as_str(), r.labels.clone()), ("The ratio was 1.5.", vec!["P3".to_string()]));
        // the refusal, however phrased around
        let r = parse("Answer: Not found in the provided pages.\nPages: P1\nQuote: \"x y z\"", 3);
        assert!(r.not_found && r.labels.is_empty() && r.quote.is_none());
        assert_eq!(r.answer, NOT_FOUND);
        assert!(parse("", 3).not_found);
        assert!(parse("Answer: No found in the provided pages.", 3).not_found);
        // a long quote is cut to its start
        let long = format!("Answer: a\nQuote: \"{}\"", "w ".repeat(50));
        assert_eq!(parse(&long, 1).quote.unwrap().split_whitespace().count(), 30);
    }

    #[test]
    fn passage_ids_are_citations() {
        let r = parse("Answer: $1,577 million (P2.R3)\nCite: P2.R3, P1.S4", 3);
        assert_eq!(r.answer, "$1,577 million");
        assert_eq!(r.ids, ["P2.R3", "P1.S4"]);
        assert_eq!(r.labels, ["P2", "P1"]);
        // ids in the answer when there is no Cite field
        let r = parse("Answer: Yes, it rose [P1.S2].", 3);
        assert_eq!((r.answer.as_str(), r.ids.clone()), ("Yes, it rose.", vec!["P1.S2".to_string()]));
    }

    #[test]
    fn the_stream_shows_the_answer_alone() {
        assert_eq!(answer_so_far("Ans"), None);
        assert_eq!(answer_so_far("Answer: $1,2"), Some("$1,2"));
        assert_eq!(answer_so_far("Answer: $1,234 million\nPa"), Some("$1,234 million"));
        assert_eq!(answer_so_far("Answer: $1,234 million\nPages: P1\nQuote: \"x"), Some("$1,234 million\n"));
    }
}
