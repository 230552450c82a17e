//! The passages a model reads instead of whole pages: the sentences and table rows of the
//! pages read that best fit the question, each with an id (`P2.S14` is page P2's fourteenth
//! sentence, `P1.R7` its seventh table row). The model cites ids, and the quote shown and boxed
//! is the cited passage's text, so it is on the cited page by construction.
//!
//! Units and their scores come from the extractive answerer ([`lens_core::answer::units`],
//! [`Extractive::rank_units`]), so both answerers read a page the same way.

use lens_core::answer::{units, Extractive, PageInput};
use lens_core::question::Question;
use lens_core::support::is_table_row;
use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

/// Most passages given to the model for one question.
pub const MAX_PASSAGES: usize = 24;

#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// `P2.S14` or `P1.R7`.
    pub id: String,
    /// Index of its page in the pages given.
    pub page: usize,
    /// The unit as the page prints it (lines of a sentence joined).
    pub text: String,
    /// For a table row, the nearest line above it naming periods (its column heads).
    pub columns: Option<String>,
    /// Place on its page, to list passages in page order.
    order: usize,
}

impl Passage {
    /// The line the prompt shows: `P1.R7 [columns: 2022 2021] Total assets 1,234 1,100`.
    pub fn line(&self) -> String {
        match &self.columns {
            Some(c) => format!("{} [columns: {c}] {}", self.id, self.text),
            None => format!("{} {}", self.id, self.text),
        }
    }
}

fn year_re() -> &'static Regex {
    static R: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(?:19|20)\d\d\b").unwrap());
    &R
}

fn id_re() -> &'static Regex {
    static R: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\bP\s?(\d{1,3})\s?[.\-]\s?([SR])\s?(\d{1,4})\b").unwrap());
    &R
}

/// Every passage of every page, with its id, in page order.
pub fn all(pages: &[PageInput]) -> Vec<Passage> {
    let mut out = Vec::new();
    for (pi, p) in pages.iter().enumerate() {
        let lines: Vec<&str> = p.text.lines().map(str::trim).collect();
        let (mut s, mut r) = (0, 0);
        for (order, u) in units(&p.text).into_iter().enumerate() {
            let row = is_table_row(&u);
            let id = if row {
                r += 1;
                format!("{}.R{r}", p.label)
            } else {
                s += 1;
                format!("{}.S{s}", p.label)
            };
            let columns = if row { column_heads(&lines, &u) } else { None };
            out.push(Passage { id, page: pi, text: u, columns, order });
        }
    }
    out
}

/// The nearest line above `row` with two or more years in it (within 40 lines), cut to 100
/// characters: what its figures are columns of.
fn column_heads(lines: &[&str], row: &str) -> Option<String> {
    let at = lines.iter().position(|l| *l == row)?;
    lines[at.saturating_sub(40)..at].iter().rev().find(|l| year_re().find_iter(l).count() >= 2 && l.len() < 200).map(|l| {
        let l = l.trim();
        match l.char_indices().nth(100) {
            Some((i, _)) => format!("{}…", &l[..i]),
            None => l.to_string(),
        }
    })
}

/// The passages that best fit `q`, within `budget` tokens, in page order.
pub fn select(q: &Question, pages: &[PageInput], budget: usize, count: &dyn Fn(&str) -> usize) -> Vec<Passage> {
    let every = all(pages);
    let by_text: HashMap<(usize, &str), usize> = every.iter().enumerate().rev().map(|(i, p)| ((p.page, p.text.as_str()), i)).collect();
    let ranked = Extractive::default().rank_units(q, pages);
    let mut chosen: Vec<usize> = Vec::new();
    let mut used = 0;
    for (_, coverage, pi, u) in ranked {
        if chosen.len() >= MAX_PASSAGES {
            break;
        }
        // past the first few, a unit sharing none of the question's words adds only tokens
        if coverage <= 0.0 && chosen.len() >= 4 {
            break;
        }
        let Some(&i) = by_text.get(&(pi, u.as_str())) else { continue };
        if chosen.contains(&i) {
            continue;
        }
        let cost = count(&every[i].line()) + 1;
        if used + cost > budget && !chosen.is_empty() {
            continue;
        }
        used += cost;
        chosen.push(i);
    }
    chosen.sort_by_key(|&i| (every[i].page, every[i].order));
    chosen.into_iter().map(|i| every[i].clone()).collect()
}

/// The passage ids a reply cites (`P2.S14`, `p2-r7`, `P2.S 14`), normalised, in order, without
/// repeats.
pub fn cited_ids(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in id_re().captures_iter(text) {
        let id = format!("P{}.{}{}", &c[1], c[2].to_uppercase(), &c[3]);
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

/// `text` without the passage ids in it.
pub fn strip_ids(text: &str) -> String {
    id_re().replace_all(text, "").to_string()
}

/// The user message: each page's header and its passages, then the question.
pub fn build(question: &str, pages: &[PageInput], passages: &[Passage]) -> String {
    let mut user = String::new();
    for (pi, p) in pages.iter().enumerate() {
        let mine: Vec<&Passage> = passages.iter().filter(|x| x.page == pi).collect();
        if mine.is_empty() {
            continue;
        }
        user.push_str(&p.header());
        if !p.heading.trim().is_empty() {
            user.push_str(&format!(": {}", p.heading.trim()));
        }
        user.push('\n');
        for x in mine {
            user.push_str(&x.line());
            user.push('\n');
        }
        user.push('\n');
    }
    user.push_str(&format!("Question: {}\n", question.trim()));
    user
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> usize {
        s.split_whitespace().count()
    }

    fn pages() -> Vec<PageInput> {
        lens_core::answer::label_pages(vec![
            ("D1".into(), 3, "Notes".into(), "The weather was mild this year and nothing else happened at all.\n".repeat(3)),
            (
                "D2".into(),
                9,
                "Consolidated Statements of Cash Flows".into(),
                "Years ended December 31 2018 2017 2016\nNet income 5,363 4,869 5,058\nPurchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)\nCapital spending rose in 2018, driven by investments in new plants.\n".into(),
            ),
        ])
    }

    #[test]
    fn rows_and_sentences_get_ids_and_rows_their_column_heads() {
        let all = all(&pages());
        let ids: Vec<&str> = all.iter().map(|p| p.id.as_str()).collect();
        assert!(ids.contains(&"P2.R1") && ids.contains(&"P2.S1"), "{ids:?}");
        let capex = all.iter().find(|p| p.text.starts_with("Purchases of property")).unwrap();
        assert!(capex.id.starts_with("P2.R"), "{capex:?}");
        assert_eq!(capex.columns.as_deref(), Some("Years ended December 31 2018 2017 2016"));
        assert_eq!(
            capex.line(),
            format!("{} [columns: Years ended December 31 2018 2017 2016] Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)", capex.id)
        );
    }

    #[test]
    fn the_question_picks_the_passages_within_the_budget() {
        let q = Question::parse("What was 3M's FY2018 capital expenditure (purchases of property, plant and equipment)?");
        let chosen = select(&q, &pages(), 1000, &words);
        assert!(chosen.iter().any(|p| p.text.starts_with("Purchases of property")), "{chosen:?}");
        // page order: P1's passages (if any) before P2's
        assert!(chosen.windows(2).all(|w| w[0].page <= w[1].page));
        let tight = select(&q, &pages(), 20, &words);
        assert_eq!(tight.len(), 1, "{tight:?}");
        assert!(tight[0].text.starts_with("Purchases of property"), "the best passage is kept first: {tight:?}");
        let user = build(&q.text, &pages(), &chosen);
        assert!(user.contains("P2 (D2, page 9): Consolidated Statements of Cash Flows\n"), "{user}");
        assert!(user.ends_with(&format!("Question: {}\n", q.text)));
    }

    #[test]
    fn cited_ids_are_read_however_written() {
        assert_eq!(cited_ids("Cite: P2.R7, p1.s3 and P2.R7; P3-S 12"), ["P2.R7", "P1.S3", "P3.S12"]);
        assert!(cited_ids("Pages: P2").is_empty());
        assert_eq!(strip_ids("Yes (P1.S2)").trim(), "Yes ()");
    }
}
