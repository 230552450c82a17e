//! The prompt: rules, the pages labelled P1..Pn, the question, and the reply format.
//!
//! Each page gets a token budget. A page over it keeps the passages that matter: its first
//! lines (the heading), and the lines holding the question's terms with the line above each
//! (a table row's label or column heads), in page order, `…` marking what was left out. What was
//! cut is reported in the answer's notes. Page text beat page images for sub-1B models in the
//! design this follows, so pages go in as text.

use lens_core::answer::PageInput;
use lens_core::text::{is_stop_word, tokenize};
use std::collections::HashSet;

/// The rules the model is given (system message).
pub const SYSTEM: &str = "You answer questions about company filings using only the numbered pages you are given.
Rules:
- Use only what is printed on the pages. If they do not hold the answer, the answer is exactly: Not found in the provided pages.
- A yes/no question is answered Yes or No first, then the reason.
- Copy numbers exactly as printed, with their units (for example $1,234 million or 12.5%).
- Keep the answer short: one sentence.
Reply in exactly this format, three lines:
Answer: <the answer>
Pages: <the labels of the pages you used, for example P1>
Quote: \"<3 to 12 words copied exactly from that page>\"
For example:
Answer: $1,577 million
Pages: P2
Quote: \"Purchases of property, plant and equipment (PP&E) (1,577)\"";

/// The rules when the model reads passages with ids ([`crate::passages`]) rather than pages.
pub const SYSTEM_PASSAGES: &str = "You answer questions about company filings using only the numbered passages you are given.
Each passage has an id: P2.S4 is sentence 4 of page P2, P1.R7 is row 7 of a table on page P1 (its column heads are in brackets).
Rules:
- Use only what the passages say. If they do not hold the answer, the answer is exactly: Not found in the provided pages.
- A yes/no question is answered Yes or No first, then the reason.
- Copy numbers exactly as printed, with their units (for example $1,234 million or 12.5%).
- Keep the answer short: one sentence.
- Cite the ids of the passages the answer comes from; cite only ids that are listed.
Reply in exactly this format, two lines:
Answer: <the answer>
Cite: <the ids of those passages>";

/// How pages are given to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptMode {
    /// The sentences and rows that fit the question, with ids ([`crate::passages`]).
    Passages,
    /// Whole pages, cut to a budget around the lines with the question's terms ([`passages`]).
    Pages,
}

#[derive(Debug, Clone)]
pub struct PromptOptions {
    pub mode: PromptMode,
    /// Most tokens of the passages (passages mode).
    pub passage_tokens: usize,
    /// The rules (system message); [`SYSTEM_PASSAGES`] (or [`SYSTEM`] for pages) unless
    /// replaced (`--system-prompt FILE`).
    pub system: String,
    /// Most tokens of one page's text.
    pub page_tokens: usize,
    /// Most tokens of the whole prompt (pages are cut further to fit).
    pub prompt_tokens: usize,
}

impl Default for PromptOptions {
    fn default() -> Self {
        PromptOptions { mode: PromptMode::Passages, passage_tokens: 900, system: SYSTEM_PASSAGES.to_string(), page_tokens: 700, prompt_tokens: 3000 }
    }
}

/// The user message and what had to be cut.
#[derive(Debug, Clone)]
pub struct Prompt {
    pub user: String,
    pub notes: Vec<String>,
}

/// Lines of `text` within `budget` tokens (see the module docs); and whether it was cut.
pub fn passages(question: &str, text: &str, budget: usize, count: &dyn Fn(&str) -> usize) -> (String, bool) {
    let lines: Vec<&str> = text.lines().map(str::trim_end).filter(|l| !l.trim().is_empty()).collect();
    let costs: Vec<usize> = lines.iter().map(|l| count(l) + 1).collect();
    if costs.iter().sum::<usize>() <= budget {
        return (lines.join("\n"), false);
    }
    let terms: HashSet<String> = tokenize(question).into_iter().map(|t| t.text).filter(|t| t.len() > 1 && !is_stop_word(t)).collect();
    let score = |l: &str| -> usize {
        let toks: HashSet<String> = tokenize(l).into_iter().map(|t| t.text).collect();
        terms.iter().filter(|t| toks.contains(*t)).count()
    };
    let mut order: Vec<(usize, usize)> = lines.iter().enumerate().map(|(i, l)| (score(l), i)).filter(|(s, _)| *s > 0).collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut keep = vec![false; lines.len()];
    let mut used = 0;
    let take = |i: usize, keep: &mut Vec<bool>, used: &mut usize| -> bool {
        if keep[i] {
            return true;
        }
        if *used + costs[i] > budget {
            return false;
        }
        keep[i] = true;
        *used += costs[i];
        true
    };
    for i in 0..lines.len().min(2) {
        take(i, &mut keep, &mut used);
    }
    for (_, i) in order {
        if !take(i, &mut keep, &mut used) {
            continue;
        }
        if i > 0 {
            take(i - 1, &mut keep, &mut used);
        }
    }
    // room left: the lines after kept ones, then from the top
    for i in 1..lines.len() {
        if keep[i - 1] && !keep[i] {
            take(i, &mut keep, &mut used);
        }
    }
    let mut out = Vec::new();
    let mut gap = false;
    for (i, l) in lines.iter().enumerate() {
        if keep[i] {
            if gap && !out.is_empty() {
                out.push("…");
            }
            out.push(l);
            gap = false;
        } else {
            gap = true;
        }
    }
    if gap {
        out.push("…");
    }
    (out.join("\n"), true)
}

/// The user message for `question` over `pages`.
pub fn build(question: &str, pages: &[PageInput], opts: &PromptOptions, count: &dyn Fn(&str) -> usize) -> Prompt {
    let overhead = count(&opts.system) + count(question) + 40;
    let room = opts.prompt_tokens.saturating_sub(overhead);
    let per_page = opts.page_tokens.min(room / pages.len().max(1)).max(32);
    let mut notes = Vec::new();
    let mut user = String::new();
    for p in pages {
        let (text, cut) = passages(question, &p.text, per_page, count);
        if cut {
            notes.push(format!("{} ({} page {}) was cut to {per_page} tokens: the lines with the question's terms were kept", p.label, p.doc_id, p.page));
        }
        user.push_str(&format!("{}\n{}\n\n", p.header(), text));
    }
    user.push_str(&format!("Question: {}\n", question.trim()));
    Prompt { user, notes }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> usize {
        s.split_whitespace().count()
    }

    #[test]
    fn a_short_page_is_kept_whole() {
        let (t, cut) = passages("revenue 2019", "Income statement\nRevenue 100 200\nCost 50 60", 100, &words);
        assert!(!cut);
        assert_eq!(t, "Income statement\nRevenue 100 200\nCost 50 60");
    }

    #[test]
    fn a_long_page_keeps_heading_matching_lines_and_the_line_above() {
        let mut text = String::from("ACME Corp\nConsolidated Statements of Operations\n");
        for i in 0..50 {
            text.push_str(&format!("filler line number {i} about nothing\n"));
        }
        text.push_str("In millions 2019 2018\nNet revenue 1,234 1,100\n");
        for i in 0..50 {
            text.push_str(&format!("more filler {i} here\n"));
        }
        let (t, cut) = passages("What was ACME's net revenue in 2019?", &text, 30, &words);
        assert!(cut);
        assert!(t.starts_with("ACME Corp\nConsolidated Statements of Operations"), "{t}");
        assert!(t.contains("In millions 2019 2018\nNet revenue 1,234 1,100"), "{t}");
        assert!(t.contains('…'));
        assert!(words(&t) <= 32, "{t}");
    }

    #[test]
    fn pages_are_labelled_and_cuts_reported() {
        let pages = lens_core::answer::label_pages(vec![
            ("D1".into(), 3, String::new(), "alpha beta\n".repeat(400)),
            ("D2".into(), 9, String::new(), "short page".into()),
        ]);
        let p = build("alpha?", &pages, &PromptOptions { page_tokens: 50, prompt_tokens: 3000, mode: PromptMode::Pages, ..Default::default() }, &words);
        assert!(p.user.starts_with("P1 (D1, page 3)\n"), "{}", p.user);
        assert!(p.user.contains("P2 (D2, page 9)\nshort page"));
        assert!(p.user.ends_with("Question: alpha?\n"));
        assert_eq!(p.notes.len(), 1);
        assert!(p.notes[0].starts_with("P1 (D1 page 3) was cut to 50 tokens"), "{:?}", p.notes);
    }
}
