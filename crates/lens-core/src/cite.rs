//! Where a model's answer rests, decided once in the ask phases for every model answerer: the
//! answerer hands back its text with what it cited ([`Cited`]: the passage ids, the page
//! labels, its quote, and the passages it was given), and [`locate`] turns that into the
//! answer's quote and cited pages. Then the evidence is located on the page, checked and
//! labelled as for any other answer (`ask::settle`). Pure: tests beside.
//!
//! - Passages given (ids such as `P2.S14`): the quote is the cited passage holding the
//!   answer's figures (else the first cited), so it is on its page by construction; a reply
//!   that cites no given passage but repeats one's words cites that one; one that cites none is
//!   tied to no line (found pages only, nothing quoted, so never shown as supported).
//! - Whole pages given: the pages are where the model's quote is printed (a small model often
//!   names the wrong label for a line it copied right), else the labels it gave, else the one
//!   page printing every figure of the answer.

use crate::answer::{map_citations, Answer, PageInput};
pub use crate::answer::{Cited, GivenPassage};
use crate::evidence::{normalized_string, numbers, same_number};
use std::collections::HashSet;

/// The figures an answer states (years left out).
fn answer_figures(answer: &str) -> Vec<f64> {
    numbers(answer).into_iter().filter(|(n, ..)| !n.is_year).map(|(n, ..)| n.value).collect()
}

/// Does `text` print every one of `figures`?
pub fn prints_all(text: &str, figures: &[f64]) -> bool {
    let on: Vec<f64> = numbers(text).into_iter().map(|(n, ..)| n.value).collect();
    figures.iter().all(|f| on.iter().any(|v| same_number(*f, *v, 0.005)))
}

/// The given passage whose words the answer repeats: at least 60% of the answer's words (and
/// 4 or more) are in it; the one holding most.
fn copied_passage<'a>(answer: &str, given: &'a [GivenPassage]) -> Option<&'a GivenPassage> {
    let words = |s: &str| -> HashSet<String> { crate::text::plain_words(s).into_iter().filter(|w| !crate::text::is_stop_word(w)).collect() };
    let a = words(answer);
    if a.len() < 4 {
        return None;
    }
    given.iter().map(|p| (a.intersection(&words(&p.text)).count(), p)).filter(|(n, _)| *n * 10 >= a.len() * 6).max_by_key(|(n, _)| *n).map(|(_, p)| p)
}

/// The quote and the page labels of the passages a reply cites. `None` when no cited id names
/// a passage given and the answer repeats none.
fn cited_passages(ids: &[String], answer: &str, given: &[GivenPassage], pages: &[PageInput], notes: &mut Vec<String>) -> Option<(String, Vec<String>)> {
    let valid: Vec<&GivenPassage> = ids.iter().filter_map(|id| given.iter().find(|p| p.id == *id)).collect();
    let unknown: Vec<&str> = ids.iter().filter(|id| !given.iter().any(|p| p.id == **id)).map(String::as_str).collect();
    if !unknown.is_empty() {
        notes.push(format!("the model cited {} which name no passage given to it (dropped)", unknown.join(", ")));
    }
    let first = match valid.first() {
        Some(f) => *f,
        None => {
            // a small model often names the wrong page for a passage it copied: the given
            // passage holding most of the answer's words, when it holds most of them
            let p = copied_passage(answer, given)?;
            notes.push(format!(
                "the model cited {} but its answer is the words of {}: {} is cited",
                if ids.is_empty() { "no passage".to_string() } else { ids.join(", ") },
                p.id,
                p.id
            ));
            return Some((p.text.clone(), vec![pages[p.page].label.clone()]));
        }
    };
    let figures = answer_figures(answer);
    let holding = valid.iter().find(|p| !figures.is_empty() && prints_all(&p.text, &figures));
    let quote = holding.copied().unwrap_or(first);
    let mut labels: Vec<String> = vec![pages[quote.page].label.clone()];
    for p in &valid {
        let l = &pages[p.page].label;
        if !labels.contains(l) {
            labels.push(l.clone());
        }
    }
    Some((quote.text.clone(), labels))
}

/// The pages to cite from a reply's labels and quote (see the module's notes).
fn pages_to_cite(labels: &[String], quote: Option<&str>, answer: &str, pages: &[PageInput], notes: &mut Vec<String>) -> Vec<String> {
    let norm: Vec<String> = pages.iter().map(|p| normalized_string(&p.text)).collect();
    if let Some(q) = quote.map(normalized_string).filter(|q| q.chars().filter(|c| c.is_alphanumeric()).count() >= 8) {
        let holding: Vec<usize> = (0..pages.len()).filter(|&i| norm[i].contains(&q)).collect();
        if let Some(&first) = holding.first() {
            if labels.iter().any(|l| holding.iter().any(|&i| pages[i].label == *l)) {
                return labels.to_vec();
            }
            let l = pages[first].label.clone();
            notes.push(if labels.is_empty() {
                format!("the model cited no page; its quote is on {l}")
            } else {
                format!("the model cited {} but its quote is on {l}: {l} is cited", labels.join(", "))
            });
            return vec![l];
        }
    }
    if !labels.is_empty() {
        return labels.to_vec();
    }
    // no citation: the page printing every figure of the answer, when exactly one does
    let figures = answer_figures(answer);
    if figures.is_empty() {
        return Vec::new();
    }
    let printing: Vec<usize> = (0..pages.len()).filter(|&i| prints_all(&pages[i].text, &figures)).collect();
    if let [only] = printing[..] {
        let l = pages[only].label.clone();
        notes.push(format!("the model cited no page; {l} prints the answer's figures"));
        return vec![l];
    }
    Vec::new()
}

/// Set a model answer's quote and cited pages from what it cited (`a.cited`, taken), saying
/// what was changed in `notes`. An answer without `cited` (the extractive answerer, a worked
/// result) is left as it is.
pub fn locate(a: &mut Answer, pages: &[PageInput], notes: &mut Vec<String>) {
    let Some(c) = a.cited.take() else { return };
    if a.not_found {
        a.quote = None;
        a.citations = Vec::new();
        return;
    }
    let (quote, labels) = if !c.passages {
        (c.quote.clone(), pages_to_cite(&c.labels, c.quote.as_deref(), &a.answer, pages, notes))
    } else {
        match cited_passages(&c.ids, &a.answer, &c.given, pages, notes) {
            Some((q, l)) => (Some(q), l),
            None => {
                // no passage cited: the page is found as before, but nothing is quoted, so the
                // answer is not shown as supported
                notes.push("the model cited no passage id: its answer is tied to no line".to_string());
                (None, pages_to_cite(&c.labels, None, &a.answer, pages, notes))
            }
        }
    };
    a.quote = quote;
    a.citations = map_citations(&labels, pages);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::{label_pages, AnswererKind};

    fn pages() -> Vec<PageInput> {
        label_pages(vec![
            ("ACME_2022_10K".into(), 40, String::new(), "Net sales 1,200 1,100\nCost of sales 700 650".into()),
            ("ACME_2022_10K".into(), 41, String::new(), "Total assets 9,000 8,500\nCash and cash equivalents 300 250".into()),
        ])
    }

    fn model_answer(text: &str, cited: Cited) -> Answer {
        let mut a = Answer::not_found(AnswererKind::Qwen, 0.0);
        a.answer = text.into();
        a.not_found = false;
        a.cited = Some(cited);
        a
    }

    #[test]
    fn a_cited_passage_is_the_quote_and_its_page_is_cited() {
        let ps = pages();
        let given = vec![
            GivenPassage { id: "P1.R1".into(), page: 0, text: "Net sales 1,200 1,100".into() },
            GivenPassage { id: "P2.R1".into(), page: 1, text: "Total assets 9,000 8,500".into() },
        ];
        let mut notes = Vec::new();
        // the figures' passage is the quote, whichever was cited first
        let mut a =
            model_answer("$9,000 million", Cited { passages: true, ids: vec!["P1.R1".into(), "P2.R1".into()], given: given.clone(), ..Default::default() });
        locate(&mut a, &ps, &mut notes);
        assert_eq!(a.quote.as_deref(), Some("Total assets 9,000 8,500"));
        assert_eq!(a.citations[0].page, 41);
        // an unknown id is dropped and said; no passage at all ties the answer to no line
        let mut a = model_answer("$9,000 million", Cited { passages: true, ids: vec!["P9.S1".into()], given, ..Default::default() });
        locate(&mut a, &ps, &mut notes);
        assert_eq!(a.quote, None);
        assert!(notes.iter().any(|n| n.contains("P9.S1 which name no passage")) && notes.iter().any(|n| n.contains("tied to no line")), "{notes:?}");
        // the page printing the figures is still found
        assert_eq!(a.citations.first().map(|c| c.page), Some(41));
    }

    #[test]
    fn a_quote_on_another_page_than_the_label_cites_where_it_is_printed() {
        let ps = pages();
        let mut notes = Vec::new();
        let mut a = model_answer("300", Cited { labels: vec!["P1".into()], quote: Some("Cash and cash equivalents 300 250".into()), ..Default::default() });
        locate(&mut a, &ps, &mut notes);
        assert_eq!(a.citations.iter().map(|c| c.page).collect::<Vec<_>>(), vec![41]);
        assert!(notes[0].contains("but its quote is on P2"), "{notes:?}");
        // an answer without what it cited is left alone (the extractive answerer's)
        let mut e = model_answer("x", Cited::default());
        e.cited = None;
        e.citations = vec![crate::PageRef::new("ACME_2022_10K", 40)];
        locate(&mut e, &ps, &mut notes);
        assert_eq!(e.citations.len(), 1);
    }
}
