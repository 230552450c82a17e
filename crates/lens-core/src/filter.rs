//! The document filter: find the companies, fiscal years and forms a question names and turn
//! them into groups of documents to search. Several companies (or several years of one) give
//! several groups, which search ranks separately and interleaves so none crowds out another.

use crate::text::plain_words;
use regex::Regex;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// What the filter knows about one complete document.
#[derive(Debug, Clone)]
pub struct DocInfo {
    pub key: i64,
    pub id: String,
    pub company: Option<String>,
    pub year: Option<i32>,
    pub form: Option<String>,
    pub aliases: Vec<String>,
    /// Fiscal quarter of a quarterly filing or release (from its name: `2023Q2`, `Q2 2023`).
    pub quarter: Option<u8>,
}

/// The quarter a document id names: `AMCOR_2023Q2_10Q` -> 2.
pub fn id_quarter(id: &str) -> Option<u8> {
    static RE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)(?:(?:19|20)[0-9]{2}[ _-]?q([1-4])(?:[^a-z0-9]|$)|(?:^|[^a-z0-9])q([1-4])[ _-]?(?:19|20)[0-9]{2})").unwrap());
    let re = &*RE;
    re.captures(id).and_then(|c| c.get(1).or(c.get(2))).and_then(|m| m.as_str().parse().ok())
}

/// Quarters a question names: Q2, Q2'23, 2Q23, second quarter.
pub fn question_quarters(q: &str) -> Vec<u8> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\bq([1-4])(?:\b|(?:19|20)[0-9]{2}\b)|\bq([1-4])\s*'|\b([1-4])q\s*'?[0-9]{2}\b|\b(first|second|third|fourth)\s+(?:fiscal\s+)?quarter")
            .unwrap()
    });
    let re = &*RE;
    let mut out = Vec::new();
    for c in re.captures_iter(q) {
        let n = if let Some(m) = c.get(1).or(c.get(2)).or(c.get(3)) {
            m.as_str().parse().unwrap_or(0)
        } else {
            match c.get(4).map(|m| m.as_str().to_lowercase()).as_deref() {
                Some("first") => 1,
                Some("second") => 2,
                Some("third") => 3,
                _ => 4,
            }
        };
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
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

const COMPANIES: &str = include_str!("../../../resources/companies.json");

/// Tickers and short forms of company names (`resources/companies.json`, extended by
/// `<library>/companies.json`): "JnJ", "JPM" and "AMEX" find Johnson & Johnson, JPMorgan and
/// American Express filings.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct Companies {
    #[serde(default)]
    pub companies: Vec<CompanyEntry>,
}

#[derive(Debug, Clone, serde::Deserialize)]
pub struct CompanyEntry {
    pub names: Vec<String>,
    pub aliases: Vec<String>,
}

impl Companies {
    pub fn builtin() -> Companies {
        let c: Companies = serde_json::from_str(COMPANIES).expect("resources/companies.json is valid");
        c.normalized()
    }

    /// Names and aliases in the filter's normal form (lower-case words), once.
    fn normalized(mut self) -> Companies {
        for e in &mut self.companies {
            for v in [&mut e.names, &mut e.aliases] {
                for x in v.iter_mut() {
                    *x = crate::text::normalize_name(x);
                }
                v.retain(|x| !x.is_empty());
            }
        }
        self
    }

    /// The built-in list plus the entries of `extra` (a user file), if it exists.
    pub fn with_user_file(extra: &std::path::Path) -> crate::error::Result<Companies> {
        let mut c = Companies::builtin();
        if let Some(user) = crate::lexicon::read_user_json::<Companies>(extra)? {
            c.companies.extend(user.normalized().companies);
        }
        Ok(c)
    }

    /// Extra aliases for a document known by `aliases` (normalised names) and `company`.
    pub fn extra_aliases(&self, aliases: &[String], company: Option<&str>) -> Vec<String> {
        let mut known: Vec<String> = aliases.to_vec();
        if let Some(c) = company {
            known.push(crate::text::normalize_name(c));
        }
        let mut out = Vec::new();
        for e in &self.companies {
            if e.names.iter().any(|n| known.contains(n)) {
                for a in e.names.iter().chain(&e.aliases) {
                    if !known.contains(a) && !out.contains(a) {
                        out.push(a.clone());
                    }
                }
            }
        }
        out
    }
}

/// Years a question names: 2018, FY2018, FY 2018, FY'18, FY18, fiscal 2022, 2019-2021.
pub fn question_years(q: &str) -> Vec<i32> {
    static FULL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)(?:\bfy\s*'?|\bq[1-4]|\b)((?:19|20)[0-9]{2})\b").unwrap());
    static SHORT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\bfy\s*'?([0-9]{2})\b").unwrap());
    static RANGE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b((?:19|20)[0-9]{2})\s*(?:-|–|to|through)\s*((?:19|20)[0-9]{2})\b").unwrap());
    // "FY2018", "2018", and a quarter glued to its year ("Q22023")
    let full = &*FULL;
    let short = &*SHORT;
    let range = &*RANGE;
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

/// The capitalised words of a question after its first (names as a user writes them), lower
/// case: where a company's one-word name of six letters or more is misspelt by one edit, the
/// word that stands for it.
fn misspelt_names(question: &str) -> Vec<String> {
    question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .skip(1)
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase) && w.chars().count() >= 5)
        .map(str::to_lowercase)
        .collect()
}

/// An alias of one word (six letters or more) that a capitalised word of the question misspells
/// by one edit, its first letter right.
fn alias_misspelt(alias: &str, names: &[String]) -> bool {
    !alias.contains(' ') && alias.chars().count() >= 6 && names.iter().any(|w| w.chars().next() == alias.chars().next() && crate::text::one_edit(w, alias))
}

/// Detect the filter for `question` over `docs`; `None` when the question names no company.
pub fn detect(question: &str, docs: &[DocInfo]) -> Option<DocFilter> {
    detect_with(question, docs, &FilterOptions::default())
}

/// Parts of the filter that evals can switch off (ablations).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FilterOptions {
    /// Narrow to the quarter a question names.
    pub quarters: bool,
    /// Several years of one company: the latest year's group first.
    pub latest_first: bool,
    /// Tickers and short forms from the company list (JnJ, AMEX) as aliases.
    pub tickers: bool,
    /// One search per named company, interleaved; off: one search over them all.
    pub decompose: bool,
    /// Also one search per named year of one company.
    pub split_years: bool,
}

impl Default for FilterOptions {
    fn default() -> Self {
        FilterOptions { quarters: true, latest_first: true, tickers: true, decompose: true, split_years: false }
    }
}

/// Does the question ask what is expected, guided or forecast (not what was reported)?
fn forward_looking(words: &[String]) -> bool {
    words
        .iter()
        .any(|w| matches!(w.as_str(), "expected" | "expect" | "expects" | "guidance" | "outlook" | "forecast" | "forecasted" | "projected" | "anticipated"))
}

pub fn detect_with<'a>(question: &str, docs: &'a [DocInfo], opts: &FilterOptions) -> Option<DocFilter> {
    let words = plain_words(question);
    let mut companies: Vec<String> = Vec::new();
    let mut by_company: BTreeMap<String, Vec<&DocInfo>> = BTreeMap::new();
    // a company named word for word; where none is, one whose name a capitalised word
    // misspells by one letter ("Neflix"): the reading shows the company taken
    let exact = docs.iter().any(|d| d.aliases.iter().any(|a| alias_matches(a, &words)));
    let names = if exact { Vec::new() } else { misspelt_names(question) };
    for d in docs {
        let hit = d.aliases.iter().filter(|a| alias_matches(a, &words) || alias_misspelt(a, &names)).max_by_key(|a| a.len());
        if let Some(a) = hit {
            if !companies.contains(a) {
                companies.push(a.clone());
            }
            // one company however its filings spell it ("Best Buy", "Bestbuy" where a cover
            // could not be read)
            let company = d.company.as_deref().map(|c| crate::text::normalize_name(c).replace(' ', "")).unwrap_or_else(|| d.id.clone());
            by_company.entry(company).or_default().push(d);
        }
    }
    if by_company.is_empty() {
        return None;
    }
    let mut years = question_years(question);
    // what a company expects for a year it says in the filings of the year before (guidance
    // for 2023 is in the 2022 year-end release and 10-K): search those too
    if forward_looking(&words) {
        let before: Vec<i32> = years.iter().map(|y| y - 1).filter(|y| !years.contains(y)).collect();
        years.extend(before);
    }
    let forms = question_forms(question);
    let quarters = if opts.quarters { question_quarters(question) } else { Vec::new() };
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
        // several named years of one company: one group per year, the latest first (a later
        // annual filing restates the earlier years, so it answers comparisons best)
        let distinct_years: Vec<i32> = {
            let mut v: Vec<i32> = ds.iter().filter_map(|d| d.year).filter(|y| years.contains(y)).collect();
            v.sort_by(|a, b| if opts.latest_first { b.cmp(a) } else { a.cmp(b) });
            v.dedup();
            v
        };
        // a named quarter narrows each group to that quarter's filings, where it has any
        let narrow = |g: Vec<&'a DocInfo>| -> Vec<&'a DocInfo> {
            if quarters.is_empty() {
                return g;
            }
            let q: Vec<&DocInfo> = g.iter().copied().filter(|d| d.quarter.is_some_and(|dq| quarters.contains(&dq))).collect();
            if q.is_empty() {
                g
            } else {
                q
            }
        };
        if distinct_years.len() > 1 {
            let per_year: Vec<Vec<&DocInfo>> = distinct_years.iter().map(|y| narrow(ds.iter().copied().filter(|d| d.year == Some(*y)).collect())).collect();
            if opts.split_years {
                groups.extend(per_year);
            } else {
                // one search over the company's named years: its later filing restates the
                // earlier year, and the best pages should not be forced to alternate
                groups.push(per_year.concat());
            }
        } else {
            groups.push(narrow(ds));
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
        DocInfo {
            key,
            id: id.into(),
            company: Some(company.into()),
            year: Some(year),
            form: Some(form.into()),
            aliases: aliases.iter().map(|s| s.to_string()).collect(),
            quarter: id_quarter(id),
        }
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
        // a quarter glued to its year
        assert_eq!(question_years("the biggest drop in Q22023 year over year revenues"), vec![2023]);
        assert_eq!(question_quarters("the biggest drop in Q22023 year over year revenues"), vec![2]);
    }
    #[test]
    fn a_company_name_misspelt_by_one_letter_is_the_company() {
        let d = vec![doc(1, "NETFLIX_2015_10K", "Netflix", 2015, "10-K", &["netflix"]), doc(2, "BOEING_2022_10K", "Boeing", 2022, "10-K", &["boeing"])];
        for q in [
            "what is advertsing expense of Neflix in FY 2015?",
            "what is operating leases occurred in FY 2015 for Netfilx?",
            "What did Netflixx spend on marketing in 2015?",
        ] {
            let f = detect(q, &d).unwrap_or_else(|| panic!("{q}"));
            assert_eq!(f.groups, vec![vec!["NETFLIX_2015_10K".to_string()]], "{q}");
        }
        // a common word one letter from a name, a lower-case word, two edits, or another first
        // letter names nothing
        for q in ["What is being done about pricing?", "what did neflix spend?", "What did Ntefilx spend?", "What did Neftlx spend?"] {
            assert!(detect(q, &d).is_none(), "{q}");
        }
        // a name written right is read before any near one
        let f = detect("How did Boeing and Netflixx compare?", &d).unwrap();
        assert_eq!(f.companies, vec!["boeing".to_string()]);
        assert!(
            crate::text::one_edit("netflix", "neflix")
                && crate::text::one_edit("netflix", "netfilx")
                && crate::text::one_edit("netflix", "netflox")
                && crate::text::one_edit("netflix", "netflixs")
        );
        assert!(!crate::text::one_edit("netflix", "netflix") && !crate::text::one_edit("netflix", "nteflxi"));
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
        // one company however its filings spell it: one group, not one per spelling
        let mut d = docs();
        d[3].company = Some("Pepsi Co".into());
        let f = detect("Pepsico in 2023: revenue?", &d).unwrap();
        assert_eq!(f.groups, vec![vec!["PEPSICO_2023Q1_10Q".to_string(), "PEPSICO_2023_8K".to_string()]]);
    }
    #[test]
    fn several_companies_or_years_make_groups() {
        let f = detect("Compare 3M and PepsiCo revenue", &docs()).unwrap();
        assert_eq!(f.groups.len(), 2);
        // one company, two years: one search, the later filing first (it restates the
        // earlier year); one search per year on request
        let f = detect("3M revenue in FY2018 vs FY2022", &docs()).unwrap();
        assert_eq!(f.key_groups, vec![vec![2, 1]]);
        let opts = FilterOptions { split_years: true, ..Default::default() };
        let f = detect_with("3M revenue in FY2018 vs FY2022", &docs(), &opts).unwrap();
        assert_eq!(f.key_groups, vec![vec![2], vec![1]]);
    }

    #[test]
    fn what_is_expected_for_a_year_is_searched_in_the_year_before_too() {
        let d = vec![
            doc(1, "JOHNSON_JOHNSON_2022Q4_EARNINGS", "Johnson", 2022, "earnings", &["jnj"]),
            doc(2, "JOHNSON_JOHNSON_2023Q2_EARNINGS", "Johnson", 2023, "earnings", &["jnj"]),
            doc(3, "JOHNSON_JOHNSON_2021_10K", "Johnson", 2021, "10-K", &["jnj"]),
        ];
        let f = detect("Is growth in JnJ's adjusted EPS expected to accelerate in FY2023?", &d).unwrap();
        assert_eq!(f.key_groups, vec![vec![2, 1]], "the 2023 filing first, the 2022 release's guidance beside it");
        // what was reported in 2023 is searched in 2023's filings only
        let f = detect("What was JnJ's adjusted EPS growth in FY2023?", &d).unwrap();
        assert_eq!(f.key_groups, vec![vec![2]]);
    }

    #[test]
    fn quarters_narrow_to_quarterly_filings() {
        assert_eq!(id_quarter("AMCOR_2023Q2_10Q"), Some(2));
        assert_eq!(id_quarter("Q3 2021 results"), Some(3));
        assert_eq!(id_quarter("3M_2018_10K"), None);
        assert_eq!(question_quarters("In 2022 Q2, which segment ..."), vec![2]);
        assert_eq!(question_quarters("As of Q2'2023, is Pfizer ..."), vec![2]);
        assert_eq!(question_quarters("results for the first quarter and 4Q22"), vec![1, 4]);
        assert!(question_quarters("Quarterly dividends of 3M").is_empty());
        let f = detect("PepsiCo revenue in Q1 of 2023", &docs()).unwrap();
        assert_eq!(f.key_groups, vec![vec![4]]);
        let f = detect("PepsiCo revenue in 2023", &docs()).unwrap();
        assert_eq!(f.key_groups, vec![vec![4, 5]]);
    }

    #[test]
    fn tickers_and_short_forms_from_the_company_list() {
        let c = Companies::builtin();
        let extra = c.extra_aliases(&["johnson johnson".into()], Some("Johnson Johnson"));
        assert!(extra.contains(&"jnj".to_string()) && extra.contains(&"j j".to_string()), "{extra:?}");
        let mut d = docs();
        let extra = c.extra_aliases(&d[2].aliases, d[2].company.as_deref());
        d[2].aliases.extend(extra);
        let f = detect("Does AMEX have an improving operating margin profile as of 2022?", &d).unwrap();
        assert_eq!(f.key_groups, vec![vec![3]]);
    }
}
