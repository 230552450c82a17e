//! The document filter: find the companies, fiscal years and forms a question names and turn
//! them into groups of documents to search. Several companies (or several years of one) give
//! several groups, which search ranks separately and interleaves so none crowds out another.

use crate::text::plain_words;
use regex::Regex;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// What the filter knows about one complete document.
#[derive(Debug, Clone)]
pub struct DocInfo {
    pub key: i64,
    pub id: String,
    pub company: Option<String>,
    pub year: Option<i32>,
    pub form: Option<String>,
    pub aliases: Vec<String>,
}

/// The filter applied to one question.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DocFilter {
    /// Aliases found in the question.
    pub companies: Vec<String>,
    pub years: Vec<i32>,
    pub forms: Vec<String>,
    /// Document ids searched, grouped; groups are ranked separately and interleaved.
    pub groups: Vec<Vec<String>>,
    #[serde(skip)]
    pub key_groups: Vec<Vec<i64>>,
}

/// Years a question names: 2018, FY2018, FY 2018, FY'18, FY18, fiscal 2022, 2019-2021.
pub fn question_years(q: &str) -> Vec<i32> {
    static FULL: OnceLock<Regex> = OnceLock::new();
    static SHORT: OnceLock<Regex> = OnceLock::new();
    static RANGE: OnceLock<Regex> = OnceLock::new();
    let full = FULL.get_or_init(|| Regex::new(r"(?i)(?:\bfy\s*'?|\b)((?:19|20)[0-9]{2})\b").unwrap());
    let short = SHORT.get_or_init(|| Regex::new(r"(?i)\bfy\s*'?([0-9]{2})\b").unwrap());
    let range = RANGE.get_or_init(|| Regex::new(r"\b((?:19|20)[0-9]{2})\s*(?:-|–|to|through)\s*((?:19|20)[0-9]{2})\b").unwrap());
    let mut out: Vec<i32> = Vec::new();
    let mut push = |y: i32| {
        if !out.contains(&y) {
            out.push(y)
        }
    };
    for c in range.captures_iter(q) {
        let (a, b): (i32, i32) = (c[1].parse().unwrap(), c[2].parse().unwrap());
        if a < b && b - a <= 10 {
            (a..=b).for_each(&mut push);
        }
    }
    for c in full.captures_iter(q) {
        push(c[1].parse().unwrap());
    }
    for c in short.captures_iter(q) {
        push(2000 + c[1].parse::<i32>().unwrap());
    }
    out
}

/// Forms a question names.
pub fn question_forms(q: &str) -> Vec<String> {
    let l = q.to_lowercase();
    let mut out = Vec::new();
    let mut add = |f: &str| {
        if !out.iter().any(|x: &String| x == f) {
            out.push(f.to_string())
        }
    };
    if l.contains("10-k") || l.contains("10k") || l.contains("annual report") {
        add("10-K");
        add("annual report");
    }
    if l.contains("10-q") || l.contains("10q") || l.contains("quarterly report") {
        add("10-Q");
    }
    if l.contains("8-k") || l.contains("8k") {
        add("8-K");
    }
    if l.contains("earnings release") || l.contains("earnings report") || l.contains("press release") {
        add("earnings");
    }
    out
}

/// Does `alias` (normalised words) occur in `words`, either word for word or glued
/// ("americanexpress" matches "American Express")?
fn alias_matches(alias: &str, words: &[String]) -> bool {
    let aw: Vec<&str> = alias.split(' ').collect();
    if aw.len() <= words.len() && words.windows(aw.len()).any(|w| w.iter().zip(&aw).all(|(a, b)| a == b)) {
        return true;
    }
    if !alias.contains(' ') && alias.len() >= 5 {
        for i in 0..words.len() {
            let mut acc = String::new();
            for w in &words[i..] {
                acc.push_str(w);
                if acc.len() >= alias.len() {
                    break;
                }
            }
            if acc == alias && words[i].len() < alias.len() {
                return true;
            }
        }
    }
    false
}

/// Detect the filter for `question` over `docs`; `None` when the question names no company.
pub fn detect(question: &str, docs: &[DocInfo]) -> Option<DocFilter> {
    let words = plain_words(question);
    let mut companies: Vec<String> = Vec::new();
    let mut by_company: BTreeMap<String, Vec<&DocInfo>> = BTreeMap::new();
    for d in docs {
        let hit = d.aliases.iter().filter(|a| alias_matches(a, &words)).max_by_key(|a| a.len());
        if let Some(a) = hit {
            if !companies.contains(a) {
                companies.push(a.clone());
            }
            let company = d.company.clone().map(|c| c.to_lowercase()).unwrap_or_else(|| d.id.clone());
            by_company.entry(company).or_default().push(d);
        }
    }
    if by_company.is_empty() {
        return None;
    }
    let years = question_years(question);
    let forms = question_forms(question);
    let mut groups: Vec<Vec<&DocInfo>> = Vec::new();
    for (_, mut ds) in by_company {
        if !years.is_empty() {
            let y: Vec<&DocInfo> = ds.iter().copied().filter(|d| d.year.is_some_and(|dy| years.contains(&dy))).collect();
            if !y.is_empty() {
                ds = y;
            }
        }
        if !forms.is_empty() {
            let f: Vec<&DocInfo> = ds.iter().copied().filter(|d| d.form.as_ref().is_some_and(|df| forms.contains(df))).collect();
            if !f.is_empty() {
                ds = f;
            }
        }
        // several named years of one company: one group per year
        let distinct_years: Vec<i32> = {
            let mut v: Vec<i32> = ds.iter().filter_map(|d| d.year).filter(|y| years.contains(y)).collect();
            v.sort();
            v.dedup();
            v
        };
        if distinct_years.len() > 1 {
            for y in distinct_years {
                groups.push(ds.iter().copied().filter(|d| d.year == Some(y)).collect());
            }
        } else {
            groups.push(ds);
        }
    }
    Some(DocFilter {
        companies,
        years,
        forms,
        groups: groups.iter().map(|g| g.iter().map(|d| d.id.clone()).collect()).collect(),
        key_groups: groups.iter().map(|g| g.iter().map(|d| d.key).collect()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    fn doc(key: i64, id: &str, company: &str, year: i32, form: &str, aliases: &[&str]) -> DocInfo {
        DocInfo { key, id: id.into(), company: Some(company.into()), year: Some(year), form: Some(form.into()), aliases: aliases.iter().map(|s| s.to_string()).collect() }
    }
    fn docs() -> Vec<DocInfo> {
        vec![
            doc(1, "3M_2018_10K", "3M", 2018, "10-K", &["3m", "3m company"]),
            doc(2, "3M_2022_10K", "3M", 2022, "10-K", &["3m", "3m company"]),
            doc(3, "AMERICANEXPRESS_2022_10K", "Americanexpress", 2022, "10-K", &["americanexpress"]),
            doc(4, "PEPSICO_2023Q1_10Q", "Pepsico", 2023, "10-Q", &["pepsico"]),
            doc(5, "PEPSICO_2023_8K", "Pepsico", 2023, "8-K", &["pepsico"]),
        ]
    }
    #[test]
    fn years_in_many_forms() {
        assert_eq!(question_years("What was FY2018 capex?"), vec![2018]);
        assert_eq!(question_years("FY 2019 and FY'20 and FY21"), vec![2019, 2020, 2021]);
        assert_eq!(question_years("from 2019 to 2021"), vec![2019, 2020, 2021]);
        assert!(question_years("$1,577 million").is_empty());
    }
    #[test]
    fn company_year_and_form() {
        let f = detect("What is the FY2018 capital expenditure for 3M?", &docs()).unwrap();
        assert_eq!(f.groups, vec![vec!["3M_2018_10K".to_string()]]);
        let f = detect("Did American Express grow in 2022?", &docs()).unwrap();
        assert_eq!(f.groups, vec![vec!["AMERICANEXPRESS_2022_10K".to_string()]]);
        let f = detect("PepsiCo 8-K in 2023: who resigned?", &docs()).unwrap();
        assert_eq!(f.groups, vec![vec!["PEPSICO_2023_8K".to_string()]]);
        assert!(detect("What is a balance sheet?", &docs()).is_none());
    }
    #[test]
    fn several_companies_or_years_make_groups() {
        let f = detect("Compare 3M and PepsiCo revenue", &docs()).unwrap();
        assert_eq!(f.groups.len(), 2);
        let f = detect("3M revenue in FY2018 vs FY2022", &docs()).unwrap();
        assert_eq!(f.key_groups, vec![vec![1], vec![2]]);
    }
}
