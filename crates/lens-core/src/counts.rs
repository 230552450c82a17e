//! "How many warehouses did Costco operate at the end of fiscal 2021?": a count of things the
//! filing states in a sentence, the count printed before the thing's name ("At August 29, 2021,
//! we operated 815 membership warehouses"). The sentence that counts the thing asked, names the
//! year asked and shares most of the question's words is the answer; the count with its noun is
//! said, the sentence quoted. A headcount is the cover's ([`crate::cover`]); counts a table or a
//! figure holds ("how many shares", "how many times") are not read here.

use crate::question::Question;
use crate::text::{is_stop_word, tokenize};
use regex::Regex;

/// The thing counted: its noun as the question says it, plural.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub noun: String,
}

/// Words that end the thing's name in "how many <thing> did/does ...".
const VERBS: &[&str] = &["did", "does", "do", "were", "are", "was", "is", "has", "have", "had", "will", "can", "could", "would", "in", "at", "as", "of", "for"];

/// Things a count sentence does not hold: figures of tables ("shares"), of rates ("times",
/// "points"), of periods ("days", "years"), amounts ("dollars", "million"), or the headcount.
const NOT_COUNTED: &[&str] = &[
    "shares",
    "times",
    "days",
    "years",
    "months",
    "weeks",
    "hours",
    "percent",
    "percentage",
    "points",
    "basis",
    "dollars",
    "million",
    "millions",
    "billion",
    "billions",
    "thousand",
    "more",
    "less",
    "fewer",
    "units",
    "employees",
    "people",
    "workers",
    "staff",
    "associates",
    "persons",
    "pages",
    "figures",
    "tables",
    "charts",
    "images",
    "pictures",
    "colors",
    "colours",
    "lines",
    "words",
];

/// The thing a "how many" question counts; `None` for any other question, or one whose thing is
/// a table's or a figure's.
pub fn asked(q: &Question) -> Option<Asked> {
    let lower = q.text.to_lowercase();
    let rest = lower.trim_start().strip_prefix("how many ")?;
    let words: Vec<&str> = rest.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-')).collect();
    let name: Vec<&str> = words.iter().take_while(|w| !VERBS.contains(w)).take(4).copied().collect();
    let noun = *name.last()?;
    if name.len() == words.len()
        || noun.len() < 4
        || !noun.ends_with('s')
        || !noun.chars().all(|c| c.is_alphabetic() || c == '-')
        || NOT_COUNTED.contains(&noun)
    {
        return None;
    }
    Some(Asked { noun: noun.to_string() })
}

/// A count read: the count with its noun as printed, the sentence, the index of its page.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    pub answer: String,
    pub quote: String,
    pub page: usize,
}

/// The sentence on the pages read that counts the thing asked, best first by the question's
/// words it holds and the year asked: "<count> [up to two words] <thing>", the count a whole
/// number (not an amount, a percentage or a year).
pub fn read(asked: &Asked, question: &Question, pages: &[&str]) -> Option<Read> {
    // (the stem a printed name starts with: "warehouses" -> "warehouse", "facilities" -> "facilit")
    let want = crate::text::plural_stem(&asked.noun);
    // (the words lowercase, as prose prints them: "178,000 Discount stores" heads a table's row;
    // nor a figure just before the count, a table's)
    let count = Regex::new(&format!(r"(?:^|[^$\w.,%)])(\d{{1,3}}(?:,\d{{3}})+|\d+)((?:\s+[a-z][\w-]*){{0,2}}?)\s+({}[\w-]*)", regex::escape(&want))).ok()?;
    let q_words: Vec<String> = tokenize(&question.text)
        .into_iter()
        .map(|t| t.text)
        .filter(|w| !is_stop_word(w) && w.len() > 2 && !w.chars().all(|c| c.is_ascii_digit()) && *w != asked.noun && w != "many")
        .map(|w| w.chars().take(5).collect())
        .collect();
    let mut best: Option<(f64, Read)> = None;
    for (pi, text) in pages.iter().enumerate() {
        for u in crate::text::units(text) {
            // (a sentence, not a table's row: "Total paid members 61,700 58,100")
            if u.split_whitespace().count() > 80 || crate::support::is_table_row(&u) {
                continue;
            }
            let Some(found) = count.captures_iter(&u).find_map(|c| {
                let n = &c[1];
                let year_like = !n.contains(',') && n.len() == 4 && n.parse::<u32>().is_ok_and(|y| (1900..=2100).contains(&y));
                let between = c[2].to_lowercase();
                let amount = ["million", "billion", "thousand", "percent", "square"].iter().any(|w| between.contains(w));
                (!year_like && !amount).then(|| format!("{n}{} {}", c[2].trim_end(), &c[3]).split_whitespace().collect::<Vec<_>>().join(" "))
            }) else {
                continue;
            };
            let lu = u.to_lowercase();
            let words: Vec<String> = tokenize(&lu).into_iter().map(|t| t.text.chars().take(5).collect()).collect();
            let shared = q_words.iter().filter(|w| words.contains(w)).count() as f64 / q_words.len().max(1) as f64;
            let year = question.years.iter().any(|y| lu.contains(&y.to_string()));
            let score = shared + if year { 0.5 } else { 0.0 } - 0.01 * pi as f64;
            if best.as_ref().is_none_or(|b| score > b.0) {
                best = Some((score, Read { answer: found, quote: u.clone(), page: pi }));
            }
        }
    }
    best.map(|b| b.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(t: &str) -> Question {
        Question::parse(t)
    }

    #[test]
    fn a_how_many_question_counts_its_noun() {
        assert_eq!(asked(&q("How many warehouses did Costco operate at the end of fiscal 2021?")).map(|a| a.noun), Some("warehouses".into()));
        assert_eq!(asked(&q("How many retail stores does Walmart have?")).map(|a| a.noun), Some("stores".into()));
        // a table's figures, a rate, a headcount and a figure's contents are not read here
        assert_eq!(asked(&q("How many shares did Adobe repurchase in 2017?")), None);
        assert_eq!(asked(&q("How many times did JnJ turn its inventory in 2022?")), None);
        assert_eq!(asked(&q("How many employees did Boeing have?")), None);
        assert_eq!(asked(&q("What was Costco's revenue in 2021?")), None);
    }

    #[test]
    fn the_sentence_that_counts_the_thing_in_the_year_asked_is_read() {
        let question = q("How many warehouses did Costco operate at the end of fiscal 2021?");
        let a = asked(&question).unwrap();
        let floor = "At the end of 2021, our warehouses contained approximately 118.9 million square feet of operating floor space.";
        let count = "Item 2—Properties Warehouse Properties At August 29, 2021, we operated 815 membership warehouses:";
        let before = "At August 30, 2020, we operated 795 membership warehouses.";
        let r = read(&a, &question, &[floor, before, count]).unwrap();
        assert_eq!((r.answer.as_str(), r.page), ("815 membership warehouses", 2));
        // a table's row is no sentence that counts, nor a label heading one
        let row = "Supercenters (general merchandise and grocery) 69,000 260,000 178,000 Discount warehouses (general merchandise) 30,000";
        assert_eq!(read(&a, &question, &[row]), None);
        assert_eq!(read(&a, &question, &["Business, including affiliates 11,500 11,300 11,000 Total paid warehouses 61,700 58,100 53,900"]), None);
        // a square footage, an amount or a year is no count
        assert_eq!(read(&a, &question, &[floor]), None);
        assert_eq!(read(&a, &question, &["In 2021 warehouses earned $1,000 warehouse fees."]), None);
        // the verb asked weighs: the warehouses opened are not those operated
        let opened = q("How many warehouses did Costco open in fiscal 2021?");
        let r = read(&asked(&opened).unwrap(), &opened, &["In 2021, we opened 22 new warehouses.", count]).unwrap();
        assert_eq!(r.answer, "22 new warehouses");
    }
}
