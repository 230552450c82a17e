//! Document metadata guessed from the file name and the first pages: company, fiscal year,
//! form, title, and the aliases the document filter matches questions against.

use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

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

/// Normalise a name for alias matching: lowercase words, no punctuation.
pub use crate::text::normalize_name;

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
    static YEAR: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?:^|[^0-9])((?:19|20)[0-9]{2})(?:Q[1-4])?(?:[^0-9]|$)").expect("valid regex"));
    static FORM_FILE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)(?:^|[_\- ])(10-?K|10-?Q|8-?K|EARNINGS|ANNUAL[_ -]?REPORT)(?:[_\- .]|$)").expect("valid regex"));
    static FY_TEXT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)fiscal\s+year\s+ended\s+[A-Za-z]+\s+[0-9]{1,2}\s*,\s*((?:19|20)[0-9]{2})|quarterly\s+period\s+ended\s+[A-Za-z]+\s+[0-9]{1,2}\s*,\s*((?:19|20)[0-9]{2})").expect("valid regex")
    });
    static FORM_TEXT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\bFORM\s+(10-K|10-Q|8-K)\b").expect("valid regex"));
    let year_re = &*YEAR;
    let form_file = &*FORM_FILE;
    let fy_text = &*FY_TEXT;
    let form_text = &*FORM_TEXT;

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
    // a release's title names its quarter and fiscal year ("Fourth Quarter Fiscal 2022
    // Results" in ULTABEAUTY_2023Q4_EARNINGS, whose fiscal 2022 ended in January 2023): the
    // cover's year wins over the file name's when the quarters agree
    if let Some((q, y)) = first_pages.first().and_then(|p| release_period(p)) {
        let file_q = crate::filter::id_quarter(stem);
        if meta.form.as_deref() == Some("earnings") && file_q.is_none_or(|fq| fq == q) {
            meta.year = Some(y);
        }
    }
    if meta.year.is_none() {
        if let Some(c) = fy_text.captures(&head) {
            meta.year = c.get(1).or(c.get(2)).and_then(|m| m.as_str().parse().ok());
        }
    }
    if meta.year.is_none() {
        meta.year = report_year(&head);
    }
    // no SEC cover: the name an annual report gives itself ("Acme Holdings plc")
    let registrant_name = registrant_in(&head).or_else(|| cover_company(first_pages));
    let from_file = meta.company.clone();
    if meta.company.is_none() {
        meta.company = registrant_name.clone().map(|n| title_case(&n));
    }

    // a name from the file name is written as the filing writes it ("Best Buy" for BESTBUY);
    // the file name's form stays an alias
    if let Some(written) = from_file.as_deref().and_then(|c| company_as_written(c, first_pages, &crate::filter::Companies::builtin())) {
        meta.company = Some(written);
    }

    let mut aliases: Vec<String> = Vec::new();
    let mut add = |s: &str| {
        let n = normalize_name(s);
        if n.len() >= 2 && !aliases.contains(&n) {
            aliases.push(n);
        }
    };
    for name in meta.company.iter().chain(registrant_name.iter()).chain(from_file.iter()) {
        let n = normalize_name(name);
        add(&n);
        let short = strip_suffixes(&n);
        add(&short);
        // the glued form ("americanexpress") is matched from the spaced one already
        // (filter::alias_matches): it is not stored as a name of its own
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

/// The quarter and fiscal year a results release's title names, in its first lines: "Fourth
/// Quarter Fiscal 2022 Results" -> (4, 2022), "Reports 2023 Second-Quarter Results" -> (2,
/// 2023), "Q1 2023 results" -> (1, 2023).
pub fn release_period(first_page: &str) -> Option<(u8, i32)> {
    static QY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(first|second|third|fourth|q[1-4])[\s-]+(?:quarter\s+)?(?:of\s+)?(?:fiscal\s+(?:year\s+)?|fy\s*)?((?:19|20)[0-9]{2})\b[^\n]{0,40}\bresults\b")
            .expect("valid regex")
    });
    static YQ: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:fiscal\s+(?:year\s+)?|fy\s*)?((?:19|20)[0-9]{2})[\s-]+(first|second|third|fourth)[\s-]+quarter\b[^\n]{0,40}\bresults\b")
            .expect("valid regex")
    });
    let quarter = |w: &str| -> Option<u8> {
        match w.to_lowercase().as_str() {
            "first" | "q1" => Some(1),
            "second" | "q2" => Some(2),
            "third" | "q3" => Some(3),
            "fourth" | "q4" => Some(4),
            _ => None,
        }
    };
    let head: String = first_page.lines().take(15).collect::<Vec<_>>().join("\n");
    if let Some(c) = QY.captures(&head) {
        return Some((quarter(&c[1])?, c[2].parse().ok()?));
    }
    let c = YQ.captures(&head)?;
    Some((quarter(&c[2])?, c[1].parse().ok()?))
}

/// The registrant's name on an SEC cover page: the last line with letters before the
/// "(Exact name of registrant as specified in its charter)" caption.
pub fn registrant_in(head: &str) -> Option<String> {
    static REGISTRANT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)exact\s+name\s+of\s+registrant").expect("valid regex"));
    let m = REGISTRANT.find(head)?;
    head[..m.start()]
        .lines()
        .rev()
        .map(|l| clean_name(l.trim().trim_start_matches('(')))
        .find(|l| l.chars().filter(|c| c.is_alphabetic()).count() >= 2 && !l.to_lowercase().contains("commission file"))
}

/// Legal forms that end a company's name as a report prints it ("Acme Holdings plc", "Globex
/// Limited", "Initech AG", "Umbrella S.p.A."): what tells a name from a heading.
const LEGAL_FORM: &str = r"plc|PLC|p\.l\.c\.|Limited|LIMITED|Ltd\.?|LTD\.?|Inc\.|INC\.|Inc\b|INC\b|Incorporated|INCORPORATED|Corporation|CORPORATION|Corp\.|CORP\.|AG|SE|S\.A\.|N\.V\.|NV|ASA|AB|Oyj|S\.p\.A\.|SpA|GmbH|Berhad|BERHAD|Bhd\.?|BHD\.?|LLC|L\.P\.";

/// Words a sentence starts with that are never the first word of a name ("In 2022 Acme plc").
const NOT_A_NAME_START: &[&str] = &[
    "the",
    "in",
    "at",
    "of",
    "on",
    "for",
    "by",
    "from",
    "to",
    "and",
    "our",
    "this",
    "that",
    "with",
    "as",
    "during",
    "its",
    "his",
    "her",
    "their",
    "is",
    "was",
    "a",
    "an",
    "all",
    "each",
    "both",
    "under",
    "between",
    "within",
    "about",
    "copyright",
    "©",
];

/// Words that name a kind of company, not one ("Investment Trust plc").
const GENERIC_NAME_WORDS: &[&str] =
    &["investment", "investments", "trust", "fund", "capital", "bank", "global", "financial", "services", "partners", "resources", "industries", "the"];

/// The company an annual report without an SEC cover names itself, read from its first pages:
/// the name with a legal form ([`LEGAL_FORM`]) said most often there (the earliest of equals),
/// else the name its title line gives ("Acme Annual Report 2022", "Acme Integrated Report").
/// Names are read within a line; leading sentence words ("In", "The") are not part of them.
pub fn cover_company(first_pages: &[&str]) -> Option<String> {
    static NAMED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r"((?:[A-Z0-9][\w&'’.\-]*)(?:[ \t]+(?:[A-Z0-9][\w&'’.\-]*|&|of|and|de|du|la|von|van|der))*?)[ \t]*,?[ \t]+(?:{LEGAL_FORM})(?:[\s,;:)]|$)"
        ))
        .expect("valid regex")
    });
    static TITLED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^((?:[A-Z0-9][\w&'’.\-]*)(?:[ \t]+(?:[A-Z0-9][\w&'’.\-]*|&|of|and)){0,4})[ \t]+(?:(?:19|20)\d{2}[ \t]+)?(?:Annual|ANNUAL|Integrated|INTEGRATED)[ \t]+(?:Report|REPORT)\b")
            .expect("valid regex")
    });
    let mut seen: Vec<(String, String, usize)> = Vec::new();
    let mut count = |name: &str| {
        let words: Vec<&str> = name.split_whitespace().collect();
        // a sentence's first words and a year before the name are not part of it ("In 2023 Acme plc")
        let start =
            words.iter().position(|w| !NOT_A_NAME_START.contains(&w.to_lowercase().as_str()) && w.chars().any(char::is_alphabetic)).unwrap_or(words.len());
        let words = &words[start..];
        // a name is a few words, with letters, not a year or a figure
        if words.is_empty() || words.len() > 6 || !words.iter().any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2) {
            return;
        }
        // a report's parts ("Independent Auditor's Report ... Limited") and generic words alone
        // ("Investment Trust plc" cut from a lower-case brand) do not name a company
        let plain: Vec<String> = words.iter().map(|w| normalize_name(w)).collect();
        if plain.iter().flat_map(|w| w.split(' ')).any(|w| ["auditor", "auditors", "report", "directors", "statement", "statements", "contents"].contains(&w))
            || plain.iter().all(|w| GENERIC_NAME_WORDS.contains(&w.as_str()) || CORP_SUFFIXES.contains(&w.as_str()))
        {
            return;
        }
        let n = words.join(" ");
        let key = normalize_name(&n);
        match seen.iter_mut().find(|(k, ..)| *k == key) {
            Some(e) => e.2 += 1,
            None => seen.push((key, n, 1)),
        }
    };
    for page in first_pages.iter().take(3) {
        for line in page.lines() {
            for c in NAMED.captures_iter(line) {
                // the name as printed, its comma before the form kept ("Acme, Inc.")
                let m = c.get(0).expect("a match");
                let full = m.as_str();
                // "Documents incorporated by reference", "incorporated in Delaware": a verb
                let after = line[m.end()..].split_whitespace().next().unwrap_or("").to_lowercase();
                if full.trim_end().to_lowercase().ends_with("incorporated") && ["by", "in", "herein", "under", "into"].contains(&after.as_str()) {
                    continue;
                }
                // the exchanges a cover lists its shares on are not the company
                let lower = full.to_lowercase();
                if ["exchange", "nasdaq", "nyse", "stock market"].iter().any(|w| lower.contains(w)) {
                    continue;
                }
                count(full.trim_end_matches(|ch: char| ch.is_whitespace() || ch == ',' || ch == ';' || ch == ':' || ch == ')'));
            }
        }
    }
    if let Some(best) = seen.iter().enumerate().max_by_key(|(i, (_, _, n))| (*n, std::cmp::Reverse(*i))).map(|(_, e)| e.1.clone()) {
        return Some(best);
    }
    first_pages.iter().take(3).flat_map(|p| p.lines()).map(str::trim).find_map(|l| {
        let c = TITLED.captures(l)?;
        let words: Vec<&str> = c[1].split_whitespace().collect();
        let start = words.iter().position(|w| !NOT_A_NAME_START.contains(&w.to_lowercase().as_str()))?;
        let name = words[start..].iter().filter(|w| !w.chars().all(|ch| ch.is_ascii_digit())).copied().collect::<Vec<_>>().join(" ");
        (name.chars().filter(|ch| ch.is_alphabetic()).count() >= 2).then_some(name)
    })
}

/// The fiscal year an annual report's first pages give it where no SEC cover does: "Annual
/// Report 2022", "2022 Annual Report", "Annual Report and Accounts 2022/23" (the year it ends),
/// "for the year ended 31 March 2023", "year ended December 31, 2022".
pub fn report_year(head: &str) -> Option<i32> {
    static TITLE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:annual|integrated)\s+report(?:\s+(?:and|&)\s+(?:accounts|financial\s+statements))?\s+((?:19|20)\d{2})(?:\s*[/–-]\s*(\d{2}|(?:19|20)\d{2}))?\b|\b((?:19|20)\d{2})(?:\s*[/–-]\s*(\d{2}|(?:19|20)\d{2}))?\s+(?:annual|integrated)\s+report\b")
            .expect("valid regex")
    });
    static ENDED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\byear\s+ended\s+(?:\d{1,2}(?:st|nd|rd|th)?\s+)?(?:january|february|march|april|may|june|july|august|september|october|november|december)\s+(?:\d{1,2}(?:st|nd|rd|th)?,?\s+)?((?:19|20)\d{2})\b")
            .expect("valid regex")
    });
    if let Some(c) = TITLE.captures(head) {
        let (start, end) = if c.get(1).is_some() { (c.get(1), c.get(2)) } else { (c.get(3), c.get(4)) };
        let start: i32 = start?.as_str().parse().ok()?;
        return Some(match end.map(|e| e.as_str()) {
            // "2022/23": the year it ends
            Some(e) if e.len() == 2 => (start / 100) * 100 + e.parse::<i32>().ok()?,
            Some(e) => e.parse().ok()?,
            None => start,
        })
        .filter(|y| (*y - start) <= 1 && *y >= start);
    }
    ENDED.captures(head).and_then(|c| c[1].parse().ok())
}

/// A name as printed, without the rules, leaders and stray punctuation around it
/// ("____________ AMAZON.COM, INC." -> "AMAZON.COM, INC."; "Acme Corp ....." -> "Acme Corp").
pub fn clean_name(s: &str) -> String {
    // words that are only rules or leaders go
    // words that are only rules or leaders go; an ampersand between words stays ("Johnson & Johnson")
    let words: Vec<&str> = s.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric) || *w == "&").collect();
    let t = words.join(" ");
    // leaders glued to the name, and punctuation left at either end
    let t = t.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '(');
    let t = match t.find("..") {
        Some(i) if i > 0 => &t[..i],
        _ => t,
    };
    t.trim_end_matches(|c: char| !(c.is_alphanumeric() || c == '.' || c == ')')).trim().to_string()
}

/// The name to show for a document's company: the registrant printed on its cover page when
/// that is the same company (its letters hold the stored name's: "AMERICAN EXPRESS COMPANY"
/// for "Americanexpress"), else a first-page line that is the name and a corporate suffix ("3M
/// COMPANY"), else the company list's spelling of the same name with its spaces ("American
/// Express"), else the stored name. A name the user typed in is kept unless the cover page
/// spells out the same name.
pub fn display_name(company: &str, cover: &[&str], companies: &crate::filter::Companies) -> String {
    respell(&shown_name(company, cover, companies), cover)
}

/// [`display_name`] before its capitals are taken from the cover's prose.
fn shown_name(company: &str, cover: &[&str], companies: &crate::filter::Companies) -> String {
    let squash = |s: &str| normalize_name(s).replace(' ', "");
    let key = squash(company);
    if key.is_empty() {
        return company.to_string();
    }
    let head = cover.iter().take(3).copied().collect::<Vec<_>>().join("\n");
    if let Some(r) = registrant_in(&head).filter(|r| r.len() <= 80 && squash(r).contains(&key)) {
        return pretty_name(&r);
    }
    // a cover without the caption: a line that is the name plus a corporate suffix ("3M
    // COMPANY"), or the name as printed with what a file name cannot hold ("Johnson & Johnson"
    // for JOHNSON_JOHNSON)
    const SUFFIXES: [&str; 9] = ["company", "inc", "incorporated", "corporation", "corp", "co", "plc", "ltd", "limited"];
    let named = cover.first().into_iter().flat_map(|p| p.lines().take(40)).map(str::trim).find(|l| {
        let sq = squash(l);
        let printed_more = sq == key && l.chars().any(|c| "&'.-".contains(c)) && !company.chars().any(|c| "&'.-".contains(c));
        l.len() <= 80 && (printed_more || sq.strip_prefix(&key).is_some_and(|rest| SUFFIXES.contains(&rest)))
    });
    if let Some(l) = named {
        return pretty_name(l);
    }
    // the name printed with an ampersand its stored form lost, in a sentence of the first page
    // ("Johnson & Johnson intends to ..." for JOHNSON_JOHNSON)
    let words: Vec<String> = company.split_whitespace().map(regex::escape).collect();
    if words.len() >= 2 && !company.contains('&') {
        let re = Regex::new(&format!(r"(?i)\b{}\b", words.join(r"\s*&\s*"))).ok();
        if let Some(m) = re.as_ref().and_then(|re| cover.first().and_then(|p| re.find(p))) {
            return pretty_name(m.as_str());
        }
    }
    // the name printed glued on the cover, as it is ("WALMART INC." for Walmart: not the
    // list's "Wal Mart")
    if let Ok(re) = Regex::new(&format!(r"(?i)\b{}\b", regex::escape(&key))) {
        if let Some(m) = cover.iter().take(3).find_map(|p| re.find(p)) {
            if company.split_whitespace().count() == 1 {
                // initials stay initials ("AMD")
                let t = m.as_str();
                return if t.len() <= 4 && !t.chars().any(char::is_lowercase) { t.to_string() } else { pretty_name(t) };
            }
        }
    }
    // the company list's spelling of the same name with its spaces ("american express")
    let spaced = companies.companies.iter().flat_map(|e| &e.names).filter(|n| n.contains(' ') && n.replace(' ', "") == key).max_by_key(|n| n.len());
    if let Some(best) = spaced {
        if company.split(' ').count() < best.split(' ').count() {
            return pretty_name(best);
        }
    }
    company.to_string()
}

/// The company as the filing writes it, when the name read from the file name is the same
/// name with its spaces, ampersand or capitals lost: "Bestbuy" -> "Best Buy", "Johnson Johnson"
/// -> "Johnson & Johnson", "Pepsico" -> "PepsiCo", "Mgmresorts" -> "MGM Resorts" (the leading
/// words of the name the cover prints, [`display_name`], that spell the same letters, without a
/// legal form). `None` when the cover does not print it, or prints it the same way.
pub fn company_as_written(company: &str, cover: &[&str], companies: &crate::filter::Companies) -> Option<String> {
    let squash = |s: &str| normalize_name(s).replace(' ', "");
    let key = squash(company);
    if key.is_empty() {
        return None;
    }
    let shown = display_name(company, cover, companies);
    let mut acc = String::new();
    let mut words: Vec<&str> = Vec::new();
    for w in shown.split_whitespace() {
        acc.push_str(&squash(w));
        words.push(w);
        if acc.len() >= key.len() {
            break;
        }
    }
    if acc != key {
        return None;
    }
    let core = words.join(" ").trim_end_matches([',', '.', ';']).to_string();
    // only a spelling the filing prints (not the company list's)
    let printed: Vec<String> =
        core.split_whitespace().map(|w| regex::escape(w.trim_matches(|c: char| !c.is_alphanumeric() && c != '&'))).filter(|w| !w.is_empty()).collect();
    let re = Regex::new(&format!(r"(?i)\b{}\b", printed.join(r"[\s\-]*"))).ok()?;
    if !cover.iter().take(3).any(|p| re.is_match(p)) {
        return None;
    }
    // the same letters in other capitals only where the filing writes more of them ("PepsiCo"),
    // never fewer ("AMD" stays)
    if core.to_lowercase() == company.to_lowercase() && capitals(&core) <= capitals(company) {
        return None;
    }
    (core != company).then_some(core)
}

/// `shown` with its first part (before a comma: the name without its legal form) written as the
/// cover's prose writes it, when that has more capitals and is not all capitals ("Pepsico,
/// Inc." -> "PepsiCo, Inc." where the filing writes "PepsiCo"; "Mgm Resorts" -> "MGM
/// Resorts"); else as it is.
fn respell(shown: &str, cover: &[&str]) -> String {
    let (head, tail) = match shown.find(',') {
        Some(i) => (&shown[..i], &shown[i..]),
        None => (shown, ""),
    };
    let words: Vec<String> = head.split_whitespace().map(regex::escape).collect();
    if words.is_empty() {
        return shown.to_string();
    }
    let Ok(re) = Regex::new(&format!(r"(?i)\b{}\b", words.join(r"\s+"))) else { return shown.to_string() };
    for page in cover {
        for m in re.find_iter(page) {
            let t = m.as_str();
            if capitals(t) > capitals(head) && t.chars().any(char::is_lowercase) && normalize_name(t) == normalize_name(head) {
                return format!("{}{tail}", t.split_whitespace().collect::<Vec<_>>().join(" "));
            }
        }
    }
    shown.to_string()
}

/// How many capital letters `t` has.
fn capitals(t: &str) -> usize {
    t.chars().filter(|c| c.is_uppercase()).count()
}

/// A company name in title case: "AMERICAN EXPRESS COMPANY" -> "American Express Company",
/// "american express" -> "American Express", "BEST BUY CO., INC." -> "Best Buy Co., Inc.";
/// joining words are lower case ("Procter & Gamble", "Bank of America"). Short all-capital
/// words that read as initials stay: with a digit or '&' ("3M", "AT&T"), with no vowel ("MGM",
/// "CVS"), or leading the name ("AES Corporation"), unless a common word ("New").
fn pretty_name(s: &str) -> String {
    const WORDS: &[&str] = &["new", "old", "one", "all", "big", "red", "the", "buy", "gap", "fox", "air", "sun", "oil", "gas", "car", "art"];
    let s = clean_name(s);
    let words: Vec<&str> = s.split_whitespace().collect();
    words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let lower = w.to_lowercase();
            let bare: String = lower.chars().filter(|c| c.is_alphanumeric() || *c == '&').collect();
            let letters = w.chars().filter(|c| c.is_alphabetic()).count();
            let initials =
                w.chars().any(|c| c.is_ascii_digit() || c == '&') || !bare.chars().any(|c| "aeiouy".contains(c)) || (i == 0 && !WORDS.contains(&bare.as_str()));
            if i > 0 && ["of", "and", "the", "for", "de", "plc"].contains(&lower.as_str()) {
                lower
            } else if letters <= 3
                && w.chars().all(|c| !c.is_lowercase())
                && !["inc", "co", "plc", "ltd", "llc", "lp"].contains(&bare.as_str())
                && i + 1 < words.len()
                && initials
            {
                w.to_string()
            } else {
                let mut cs = lower.chars();
                cs.next().map(|f| f.to_uppercase().collect::<String>() + cs.as_str()).unwrap_or_default()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A document's names as a user reads them, for the Library's alias chips: the company as its
/// cover prints it ("Johnson & Johnson") first, then the stored aliases (normalised words)
/// and the company list's short forms (`listed`: "jnj", "j&j"), each once, in capitals when
/// they are initials or a ticker ("JNJ", "J&J"); a glued form of another ("johnsonjohnson")
/// is matched without being shown. Each with whether it comes from the list alone.
pub fn shown_aliases(display: Option<&str>, stored: &[String], listed: &[String]) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    let mut push = |shown: String, from_list: bool| {
        let key = normalize_name(&shown);
        if !key.is_empty() && !keys.contains(&key) {
            keys.push(key);
            out.push((shown, from_list));
        }
    };
    if let Some(d) = display {
        push(d.to_string(), false);
    }
    let spaced: Vec<String> = stored.iter().chain(listed).filter(|a| a.contains(' ')).map(|a| a.replace(' ', "")).collect();
    for (i, a) in stored.iter().chain(listed).enumerate() {
        if !a.contains(' ') && spaced.contains(a) {
            continue;
        }
        let short = a.chars().filter(|c| c.is_alphanumeric()).count() <= 4 && !a.contains(' ');
        // initials the list keeps normalised ("j&j" is "j j"): written as they are printed
        let letters: Vec<&str> = a.split(' ').collect();
        let initials = letters.len() >= 2 && letters.iter().all(|w| w.chars().count() == 1);
        let shown = match (short, initials) {
            (_, true) => letters.join(if letters.len() == 2 { "&" } else { "" }).to_uppercase(),
            (true, false) => a.to_uppercase(),
            (false, false) => a.clone(),
        };
        push(shown, i >= stored.len());
    }
    out
}

/// The period a document covers, as an analyst names it: "FY2022" (annual report), "Q2 FY2023"
/// (quarterly filing or release), "8-K, 2022-07-01" (a current report with its date), or the year.
pub fn period(id: &str, year: Option<i32>, form: Option<&str>) -> Option<String> {
    static DATED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)dated[-_ ]?((?:19|20)[0-9]{2}-[01][0-9]-[0-3][0-9])").expect("valid regex"));
    if let Some(c) = DATED.captures(id) {
        return Some(c[1].to_string());
    }
    let y = year?;
    Some(match (crate::filter::id_quarter(id), form) {
        (Some(q), _) => format!("Q{q} FY{y}"),
        (None, Some("10-K" | "annual report")) => format!("FY{y}"),
        _ => y.to_string(),
    })
}

fn title_case(s: &str) -> String {
    clean_name(s)
        .split([' ', '_'])
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
    fn display_names_and_periods() {
        let c = crate::filter::Companies::builtin();
        let cover = "FORM 10-K\nAMERICAN EXPRESS COMPANY\n(Exact name of registrant as specified in its charter)";
        assert_eq!(display_name("Americanexpress", &[cover], &c), "American Express Company");
        // rules printed around the registrant's name are not part of it (Amazon's 2017 10-K)
        let amazon =
            "Commission File No. 000-22513\n____________________________________ AMAZON.COM, INC.\n(Exact name of registrant as specified in its charter)";
        assert_eq!(display_name("Amazon", &[amazon], &c), "Amazon.com, Inc.");
        assert_eq!(clean_name("Acme Widgets Corp ......"), "Acme Widgets Corp");
        assert_eq!(clean_name("— 3M COMPANY —"), "3M COMPANY");
        let cover = "MGM RESORTS INTERNATIONAL\n(Exact name of registrant as specified in its charter)";
        assert_eq!(display_name("Mgmresorts", &["", cover], &c), "MGM Resorts International");
        // no cover page: the company list's fuller name; an unknown name is kept
        assert_eq!(display_name("Americanexpress", &["Fourth quarter results"], &c), "American Express");
        assert_eq!(display_name("Acme Widgets", &[], &c), "Acme Widgets");
        // no caption: the cover line that is the name and a suffix; never an older name of the list
        let cover = "FORM 10-K\nCommission file number 1-3285\n3M COMPANY\nState of Incorporation: Delaware";
        assert_eq!(display_name("3M", &[cover], &c), "3M Company");
        assert_eq!(display_name("3M", &["FORM 10-K"], &c), "3M");
        assert_eq!(display_name("Amcor", &["AMCOR PLC\n(Exact name of registrant as specified in its charter)"], &c), "Amcor plc");
        // a name the user typed that is not the registrant's stays
        assert_eq!(display_name("Amex Europe", &[cover], &c), "Amex Europe");
        assert_eq!(period("AMCOR_2023Q2_10Q", Some(2023), Some("10-Q")).as_deref(), Some("Q2 FY2023"));
        assert_eq!(period("3M_2018_10K", Some(2018), Some("10-K")).as_deref(), Some("FY2018"));
        assert_eq!(period("AMCOR_2022_8K_dated-2022-07-01", Some(2022), Some("8-K")).as_deref(), Some("2022-07-01"));
        assert_eq!(period("report", None, None), None);
    }

    #[test]
    fn a_name_from_the_file_name_is_written_as_the_filing_writes_it() {
        let c = crate::filter::Companies::builtin();
        let caption = "\n(Exact name of registrant as specified in its charter)";
        // (company from the file name, cover page, as written)
        let cases: &[(&str, String, Option<&str>)] = &[
            ("Bestbuy", format!("BEST BUY CO., INC.{caption}"), Some("Best Buy")),
            ("Mgmresorts", format!("MGM RESORTS INTERNATIONAL{caption}"), Some("MGM Resorts")),
            ("Johnson Johnson", "Johnson & Johnson Reports 2023 Second-Quarter Results".into(), Some("Johnson & Johnson")),
            // capitals inside a word, as the prose writes the name
            ("Pepsico", format!("PEPSICO, INC.{caption}\nPepsiCo, Inc. (PepsiCo) was incorporated in 1919"), Some("PepsiCo")),
            ("Ultabeauty", "Ulta Beauty Announces Fourth Quarter Fiscal 2022 Results".into(), Some("Ulta Beauty")),
            // already as printed, or a cover that does not print it: nothing to change
            ("3M", format!("3M COMPANY{caption}"), None),
            ("Acme", "Quarterly results".into(), None),
            ("Acmewidgets", format!("ACME WIDGETS CORP{caption}"), Some("Acme Widgets")),
            ("Acmewidgets", format!("BEST WESTERN INC.{caption}"), None),
            // the cover prints it glued: not the company list's "Wal Mart"
            ("Walmart", "FORM 10-K\nWALMART INC.\nDelaware".into(), None),
            ("AMD", "FORM 10-K\nADVANCED MICRO DEVICES, INC.\nAMD reported".into(), None),
        ];
        for (company, cover, want) in cases {
            assert_eq!(company_as_written(company, &[cover.as_str()], &c).as_deref(), *want, "{company}");
        }
        assert_eq!(display_name("Walmart", &["FORM 10-K\nWALMART INC.\nDelaware"], &c), "Walmart Inc.");
        assert_eq!(display_name("Walmart", &["Walmart reported"], &c), "Walmart");
        assert_eq!(display_name("AMD", &["AMD reported"], &c), "AMD");
        assert_eq!(display_name("Pepsico", &[&format!("PEPSICO, INC.{caption}\nPepsiCo, Inc. (PepsiCo) was incorporated")], &c), "PepsiCo, Inc.");
        assert_eq!(display_name("Mgmresorts", &["MGM Resorts International Reports Fourth Quarter Results"], &c), "MGM Resorts");
        // a release's title names its quarter and fiscal year: it wins over the file name's year
        assert_eq!(release_period("Ulta Beauty Announces Fourth Quarter Fiscal 2022 Results\nNet Sales of $3.2 Billion"), Some((4, 2022)));
        assert_eq!(release_period("Johnson & Johnson Reports 2023 Second-Quarter Results"), Some((2, 2023)));
        assert_eq!(release_period("Amcor reports Q4 FY2023 results"), Some((4, 2023)));
        assert_eq!(release_period("Net sales rose compared to the fourth quarter of 2021"), None);
        let m = guess("ULTABEAUTY_2023Q4_EARNINGS", &["March 9, 2023\nUlta Beauty Announces Fourth Quarter Fiscal 2022 Results"]);
        assert_eq!((m.company.as_deref(), m.year, m.form.as_deref()), (Some("Ulta Beauty"), Some(2022), Some("earnings")));
        assert_eq!(period("ULTABEAUTY_2023Q4_EARNINGS", m.year, m.form.as_deref()).as_deref(), Some("Q4 FY2022"));
        // a 10-K's year stays its file name's
        assert_eq!(guess("ACME_2023_10K", &["Fourth Quarter Fiscal 2022 Results"]).year, Some(2023));
        // ingested: the company as written, the file name's spelling kept as an alias
        let m = guess("BESTBUY_2019_10K", &[&format!("FORM 10-K\nBEST BUY CO., INC.{caption}")]);
        assert_eq!(m.company.as_deref(), Some("Best Buy"));
        assert!(m.aliases.contains(&"bestbuy".to_string()) && m.aliases.contains(&"best buy".to_string()), "{:?}", m.aliases);
    }

    #[test]
    fn names_as_printed_and_aliases_a_user_knows() {
        let c = crate::filter::Companies::builtin();
        // all capitals on the cover: words in title case, initials kept
        let cover = "BEST BUY CO., INC.\n(Exact name of registrant as specified in its charter)";
        assert_eq!(display_name("Best Buy", &[cover], &c), "Best Buy Co., Inc.");
        assert_eq!(pretty_name("AT&T INC."), "AT&T Inc.");
        assert_eq!(pretty_name("CVS HEALTH CORPORATION"), "CVS Health Corporation");
        assert_eq!(pretty_name("NEW YORK TIMES CO"), "New York Times Co");
        // an earnings release names the company with its ampersand; the file name cannot
        let release = "Johnson & Johnson Reports 2023 Second-Quarter Results\nJohnson & Johnson\nNew Brunswick, N.J.";
        assert_eq!(display_name("Johnson Johnson", &[release], &c), "Johnson & Johnson");
        let release = "FOR IMMEDIATE RELEASE\n• Johnson & Johnson intends to \"split off\" Kenvue shares";
        assert_eq!(display_name("Johnson Johnson", &[release], &c), "Johnson & Johnson");
        // a cover page that cannot be read keeps the stored name
        assert_eq!(display_name("Johnson Johnson", &["\u{fffd}\u{fffd}"], &c), "Johnson Johnson");
        // aliases: no glued duplicate, the name as printed first, short forms in capitals
        let m = guess("ADOBE_SYSTEMS_2017_10K", &[]);
        assert!(!m.aliases.contains(&"adobesystems".to_string()), "{:?}", m.aliases);
        let listed = c.extra_aliases(&["johnson johnson".into()], Some("Johnson Johnson"));
        let shown: Vec<String> =
            shown_aliases(Some("Johnson & Johnson"), &["johnson johnson".into(), "johnsonjohnson".into()], &listed).into_iter().map(|(a, _)| a).collect();
        assert_eq!(shown[0], "Johnson & Johnson");
        assert!(shown.contains(&"JNJ".to_string()) && shown.contains(&"J&J".to_string()), "{shown:?}");
        assert!(!shown.iter().any(|a| a == "johnsonjohnson" || a == "johnson johnson"), "{shown:?}");
    }

    #[test]
    fn annual_reports_without_an_sec_cover() {
        // the name with its legal form, said most often on the first pages
        let cover = "Annual Report and Accounts 2022/23\nDelivering growth\n";
        let intro = "Highlights\nIn 2023 Northwind Traders plc grew revenue by 8%.\nNorthwind Traders plc (the Company) and its subsidiaries\nAuditor: Contoso LLP\nSubsidiary: Northwind Logistics Limited\n";
        let m = guess("0a61a353b1ea", &[cover, intro]);
        assert_eq!(m.company.as_deref(), Some("Northwind Traders plc"));
        assert_eq!(m.year, Some(2023), "the year 2022/23 ends");
        assert_eq!(m.form.as_deref(), Some("annual report"));
        assert!(m.aliases.contains(&"northwind traders".to_string()), "{:?}", m.aliases);
        // all capitals, a comma before the form, a year that the report's title gives
        let m = guess("report", &["FABRIKAM HOLDINGS BERHAD\n2022 ANNUAL REPORT\n"]);
        assert_eq!((m.company.as_deref(), m.year), (Some("Fabrikam Holdings Berhad"), Some(2022)));
        let m = guess("report", &["Tailspin Toys, Inc.\nFor the year ended 31 March 2021\n"]);
        assert_eq!((m.company.as_deref(), m.year), (Some("Tailspin Toys, Inc."), Some(2021)));
        // no legal form: the title line's name
        assert_eq!(cover_company(&["Woodgrove Bank Annual Report 2021\nContents\n"]).as_deref(), Some("Woodgrove Bank"));
        // none of these is a company
        assert_eq!(cover_company(&["Annual Report 2021\nContents\nThe year in review\n"]), None);
        assert_eq!(report_year("Revenue 2021 2020\n"), None);
        assert_eq!(cover_company(&["Independent Auditor’s Limited\nby lower-case Investment Trust plc"]), None);
        assert_eq!(cover_company(&["Independent Auditor's Report Limited\nby lower-case Investment Trust plc"]), None);
        assert_eq!(cover_company(&["DOCUMENTS INCORPORATED BY REFERENCE\nNew York Stock Exchange, Inc.\nThe Nasdaq Stock Market LLC\n"]), None);
        // a file name's company and year are kept
        let m = guess("3M_2018_10K", &["Annual Report 2017\nGlobex Limited"]);
        assert_eq!((m.company.as_deref(), m.year), (Some("3M"), Some(2018)));
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
