//! Document metadata guessed from the file name and the first pages: company, fiscal year,
//! form, title, and the aliases the document filter matches questions against.

use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct DocMeta {
    pub title: String,
    pub company: Option<String>,
    pub year: Option<i32>,
    pub form: Option<String>,
    /// Normalised aliases (lowercase words joined by single spaces).
    pub aliases: Vec<String>,
}

/// Words dropped from company names to form the short alias ("3M Company" -> "3m").
const CORP_SUFFIXES: &[&str] = &[
    "inc",
    "incorporated",
    "corporation",
    "corp",
    "company",
    "co",
    "ltd",
    "limited",
    "plc",
    "llc",
    "lp",
    "the",
    "holdings",
    "group",
    "international",
    "n.v",
    "nv",
    "sa",
    "ag",
    "se",
];

fn re(cell: &'static OnceLock<Regex>, pat: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pat).expect("valid regex"))
}

/// Normalise a name for alias matching: lowercase words, no punctuation.
pub fn normalize_name(s: &str) -> String {
    crate::text::plain_words(s).join(" ")
}

fn strip_suffixes(name: &str) -> String {
    let mut words: Vec<&str> = name.split(' ').collect();
    while words.len() > 1 && CORP_SUFFIXES.contains(words.last().unwrap()) {
        words.pop();
    }
    while words.len() > 1 && CORP_SUFFIXES.contains(&words[0]) {
        words.remove(0);
    }
    words.join(" ")
}

/// Form names as the filter uses them.
pub fn normalize_form(s: &str) -> Option<&'static str> {
    let l = s.to_lowercase().replace([' ', '_'], "-");
    match l.as_str() {
        "10k" | "10-k" | "annual-report" | "annualreport" => Some("10-K"),
        "10q" | "10-q" | "quarterly-report" => Some("10-Q"),
        "8k" | "8-k" => Some("8-K"),
        "earnings" | "earnings-release" => Some("earnings"),
        _ => None,
    }
}

/// Guess metadata. `stem` is the file name without `.pdf`; `first_pages` the text of the first pages.
pub fn guess(stem: &str, first_pages: &[&str]) -> DocMeta {
    static YEAR: OnceLock<Regex> = OnceLock::new();
    static FORM_FILE: OnceLock<Regex> = OnceLock::new();
    static FY_TEXT: OnceLock<Regex> = OnceLock::new();
    static REGISTRANT: OnceLock<Regex> = OnceLock::new();
    static FORM_TEXT: OnceLock<Regex> = OnceLock::new();
    let year_re = re(&YEAR, r"(?:^|[^0-9])((?:19|20)[0-9]{2})(?:Q[1-4])?(?:[^0-9]|$)");
    let form_file = re(&FORM_FILE, r"(?i)(?:^|[_\- ])(10-?K|10-?Q|8-?K|EARNINGS|ANNUAL[_ -]?REPORT)(?:[_\- .]|$)");
    let fy_text = re(
        &FY_TEXT,
        r"(?i)fiscal\s+year\s+ended\s+[A-Za-z]+\s+[0-9]{1,2}\s*,\s*((?:19|20)[0-9]{2})|quarterly\s+period\s+ended\s+[A-Za-z]+\s+[0-9]{1,2}\s*,\s*((?:19|20)[0-9]{2})",
    );
    let registrant = re(&REGISTRANT, r"(?i)exact\s+name\s+of\s+registrant");
    let form_text = re(&FORM_TEXT, r"(?i)\bFORM\s+(10-K|10-Q|8-K)\b");

    let mut meta = DocMeta { title: stem.replace('_', " "), ..Default::default() };

    // File name: COMPANY_YEAR[Qn]_FORM[...]
    let parts: Vec<&str> = stem.split('_').collect();
    let year_idx = parts.iter().position(|p| year_re.is_match(p) && p.len() <= 7 && p.chars().take(4).all(|c| c.is_ascii_digit()));
    if let Some(yi) = year_idx {
        if yi > 0 {
            let company = parts[..yi].join(" ");
            meta.company = Some(title_case(&company));
        }
        meta.year = parts[yi][..4].parse().ok();
    }
    if let Some(c) = form_file.captures(stem) {
        meta.form = normalize_form(&c[1]).map(str::to_string);
    }

    // First pages: form, fiscal year, registrant name.
    let head: String = first_pages.iter().take(3).copied().collect::<Vec<_>>().join("\n");
    if meta.form.is_none() {
        if let Some(c) = form_text.captures(&head) {
            meta.form = normalize_form(&c[1]).map(str::to_string);
        } else if head.to_lowercase().contains("annual report") {
            meta.form = Some("annual report".into());
        }
    }
    if meta.year.is_none() {
        if let Some(c) = fy_text.captures(&head) {
            meta.year = c.get(1).or(c.get(2)).and_then(|m| m.as_str().parse().ok());
        }
    }
    let mut registrant_name = None;
    if let Some(m) = registrant.find(&head) {
        // The registrant's name is the last non-empty line before the "(Exact name ...)" caption.
        let before = &head[..m.start()];
        registrant_name = before
            .lines()
            .rev()
            .map(|l| l.trim().trim_start_matches('(').trim())
            .find(|l| l.chars().filter(|c| c.is_alphabetic()).count() >= 2 && !l.to_lowercase().contains("commission file"))
            .map(|l| l.to_string());
    }
    if meta.company.is_none() {
        meta.company = registrant_name.clone().map(|n| title_case(&n));
    }

    let mut aliases: Vec<String> = Vec::new();
    let mut add = |s: &str| {
        let n = normalize_name(s);
        if n.len() >= 2 && !aliases.contains(&n) {
            aliases.push(n);
        }
    };
    for name in meta.company.iter().chain(registrant_name.iter()) {
        let n = normalize_name(name);
        add(&n);
        let short = strip_suffixes(&n);
        add(&short);
        add(&short.replace(' ', ""));
    }
    meta.aliases = aliases;
    if let Some(c) = &meta.company {
        let mut t = c.clone();
        if let Some(y) = meta.year {
            t.push_str(&format!(" {y}"));
        }
        if let Some(f) = &meta.form {
            t.push_str(&format!(" {f}"));
        }
        meta.title = t;
    }
    meta
}

fn title_case(s: &str) -> String {
    s.split([' ', '_'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            if w.chars().all(|c| c.is_uppercase() || !c.is_alphabetic()) && w.len() > 3 {
                let mut cs = w.chars();
                let first = cs.next().unwrap();
                first.to_uppercase().collect::<String>() + &cs.as_str().to_lowercase()
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn from_file_names() {
        let m = guess("3M_2018_10K", &[]);
        assert_eq!((m.company.as_deref(), m.year, m.form.as_deref()), (Some("3M"), Some(2018), Some("10-K")));
        let m = guess("JOHNSON_JOHNSON_2023Q2_EARNINGS", &[]);
        assert_eq!((m.company.as_deref(), m.year, m.form.as_deref()), (Some("Johnson Johnson"), Some(2023), Some("earnings")));
        let m = guess("AMCOR_2022_8K_dated-2022-07-01", &[]);
        assert_eq!((m.year, m.form.as_deref()), (Some(2022), Some("8-K")));
        assert!(m.aliases.contains(&"amcor".to_string()));
    }
    #[test]
    fn from_cover_page() {
        let cover = "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\nFor the fiscal year ended December 31, 2018\nCommission file number 1-3285\n3M COMPANY\n(Exact name of registrant as specified in its charter)\n";
        let m = guess("report", &[cover]);
        assert_eq!(m.form.as_deref(), Some("10-K"));
        assert_eq!(m.year, Some(2018));
        assert!(m.aliases.contains(&"3m".to_string()), "{:?}", m.aliases);
        assert!(m.aliases.contains(&"3m company".to_string()));
    }
}
