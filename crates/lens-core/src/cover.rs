//! What a filing states of its filer in fixed places: where its principal executive offices are
//! and where it is incorporated (the cover page prints each above its caption: "999 Lake Drive,
//! Issaquah, WA 98027 / (Address of principal executive offices)"), and who audits it (the
//! auditor's report is signed "/s/ KPMG LLP", then "We have served as the Company's auditor
//! since 1983."), and how many people it employs (Item 1's human capital sentence: "At the end
//! of 2021, we employed 288,000 employees worldwide."). "Where is Costco headquartered?", "Who
//! is Adobe's auditor?", "In which state is Boeing incorporated?", "How many employees does 3M
//! have?" are answered from those lines, quoted as printed.

use crate::figures::catalogue::norm;
use regex::Regex;
use std::sync::LazyLock;

/// A fact of the filer a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// The address of the principal executive offices.
    Headquarters,
    /// The state or other jurisdiction of incorporation.
    Incorporation,
    /// The independent registered public accounting firm that signs the auditor's report.
    Auditor,
    /// How many people the filer employs.
    Employees,
    /// The exchanges its securities are listed on (the cover page's "Name of each exchange on
    /// which registered").
    Exchange,
    /// The shares of its common stock outstanding at the date the cover page gives.
    SharesOutstanding,
}

impl Asked {
    /// The words a page search for the fact adds to the question's.
    pub fn search_words(self) -> &'static str {
        match self {
            Asked::Headquarters => "address of principal executive offices registrant",
            Asked::Incorporation => "state or other jurisdiction of incorporation or organization registrant",
            Asked::Auditor => "report of independent registered public accounting firm served as the company's auditor since",
            Asked::Employees => "employees employed people human capital workforce",
            Asked::Exchange => "name of each exchange on which registered trading symbol securities registered pursuant to section 12(b)",
            Asked::SharesOutstanding => "number of shares of the registrant's common stock outstanding as of",
        }
    }

    /// The fact's name as an answer says it.
    pub fn name(self) -> &'static str {
        match self {
            Asked::Headquarters => "principal executive offices",
            Asked::Incorporation => "state of incorporation",
            Asked::Auditor => "auditor",
            Asked::Employees => "number of employees",
            Asked::Exchange => "stock exchange",
            Asked::SharesOutstanding => "shares outstanding",
        }
    }
}

/// The fact of the filer a question asks for: where it is headquartered or incorporated, or who
/// its auditor is; `None` for any other question (a question about an audit's findings, or the
/// auditor's fees, is not one).
pub fn asked(question: &str) -> Option<Asked> {
    let q = norm(&without_name_suffix(question)).replace(['?', '.'], " ");
    let w: Vec<&str> = q.split_whitespace().collect();
    let has = |x: &str| w.contains(&x);
    let first = *w.first()?;
    // "How many employees (people) does it have?", "What is its headcount?"
    let staff = ["employees", "employee", "people", "workers", "staff", "associates", "headcount", "workforce"].iter().any(|x| has(x));
    if staff
        && (w.windows(2).any(|p| p == ["how", "many"])
            || q.contains("number of employees")
            || has("headcount")
            || (has("workforce") && (has("size") || has("large") || has("big"))))
    {
        // (a part of the workforce asked, unions, a country, women, is not the whole)
        let part = ["union", "unions", "women", "represented", "outside", "percent", "percentage", "%"].iter().any(|x| has(x));
        return (!part).then_some(Asked::Employees);
    }
    // "How many shares of common stock were outstanding?": the cover page's count (not a
    // weighted average of the year, a part of them, nor shares bought back or granted; nor the
    // count at a fiscal year's end, which the balance sheet gives: the cover's is dated weeks
    // after it)
    let year_end = q.contains("end of") || q.contains("year end") || q.contains("year-end") || has("fiscal") || w.iter().any(|x| x.starts_with("fy"));
    let shares = (has("shares") || has("share")) && has("outstanding") && !year_end;
    let part = [
        "weighted",
        "average",
        "diluted",
        "basic",
        "repurchased",
        "repurchase",
        "bought",
        "authorized",
        "options",
        "restricted",
        "units",
        "per",
        "held",
        "float",
        "preferred",
        "treasury",
        "granted",
        "vested",
    ]
    .iter()
    .any(|x| has(x));
    if shares && !part && ((first == "how" && has("many")) || q.contains("number of") || first == "what") {
        return Some(Asked::SharesOutstanding);
    }
    // "On which stock exchange is it listed?", "Which exchange lists its shares?", "Where are
    // its shares traded?": the exchange is the thing asked (not "which debt securities are
    // registered to trade on a national securities exchange", nor a foreign exchange)
    let listed = has("listed") || has("traded") || has("trade") || has("list");
    let exchange_at = |i: usize| matches!((w.get(i), w.get(i + 1)), (Some(&"exchange" | &"exchanges"), _) | (Some(&"stock"), Some(&"exchange" | &"exchanges")));
    let on_which = ["on", "in", "at"].contains(&first) && w.get(1) == Some(&"which") && exchange_at(2);
    let which_exchange = ["which", "what"].contains(&first) && exchange_at(1);
    let where_traded = first == "where" && listed && (has("stock") || has("shares") || has("securities"));
    if on_which || which_exchange || where_traded {
        return Some(Asked::Exchange);
    }
    // "what/which/who/where" asked of one fact, not a figure about it ("how much did it pay its
    // auditor", "audit fees")
    if !["who", "which", "what", "where", "in"].contains(&first) || has("fee") || has("fees") || has("much") || has("many") {
        return None;
    }
    let auditor = has("auditor") || has("auditors") || has("audits") || has("audited") || q.contains("accounting firm");
    if auditor && ["who", "which", "what"].contains(&first) && !has("opinion") && !has("matters") && !has("matter") {
        return Some(Asked::Auditor);
    }
    if has("incorporated") || q.contains("state of incorporation") || q.contains("jurisdiction of incorporation") {
        return Some(Asked::Incorporation);
    }
    let hq = has("headquartered")
        || has("headquarters")
        || has("hq")
        || q.contains("head office")
        || q.contains("principal executive office")
        || (first == "where" && (has("based") || has("located")));
    hq.then_some(Asked::Headquarters)
}

/// The question without "Incorporated" where it ends a company's name ("Ritchie Bros.
/// Auctioneers Incorporated"): capitalised after a capitalised word, it names the filer and asks
/// nothing of where it is incorporated. The question's last word is its verb ("In which state is
/// Boeing Incorporated?").
fn without_name_suffix(question: &str) -> String {
    let words: Vec<&str> = question.split_whitespace().collect();
    let capital = |w: &str| w.chars().next().is_some_and(|c| c.is_uppercase());
    let mut kept = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let name_end = i > 0 && i + 1 < words.len() && w.trim_end_matches(|c: char| !c.is_alphanumeric()) == "Incorporated" && capital(words[i - 1]);
        if !name_end {
            kept.push(*w);
        }
    }
    kept.join(" ")
}

/// A fact read: the answer, the lines quoted (as printed) and the index of the page read.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    pub answer: String,
    pub quote: Vec<String>,
    pub page: usize,
}

/// The fact on the pages read (in their order), laid out as a cover page or an auditor's report
/// prints it.
pub fn read(asked: Asked, pages: &[&str]) -> Option<Read> {
    // (a headcount said with a verb of employing on any page read comes before one said only
    // as "we have N employees")
    for strict in [true, false] {
        for (pi, text) in pages.iter().enumerate() {
            let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
            let found = match asked {
                Asked::Headquarters => headquarters(&lines),
                Asked::Incorporation => incorporation(&lines),
                Asked::Auditor => auditor(&lines),
                Asked::Employees => employees(text, strict),
                Asked::Exchange => exchanges(&lines),
                Asked::SharesOutstanding => shares_outstanding(text),
            };
            if let Some((answer, quote)) = found {
                return Some(Read { answer, quote, page: pi });
            }
        }
        if asked != Asked::Employees {
            break;
        }
    }
    None
}

/// The caption a cover page prints under the incorporation's jurisdiction, lower case.
const INC_CAPTION: &str = "(state or other jurisdiction";

/// Whether a line is a cover page's caption (in parentheses), not a fact.
fn is_caption(line: &str) -> bool {
    line.trim_start().starts_with('(')
}

/// An employer identification number ("91-1223280") or a commission file number: not a
/// jurisdiction's word.
fn is_id_number(w: &str) -> bool {
    let d: String = w.chars().filter(|c| c.is_ascii_digit()).collect();
    d.len() >= 7 && w.chars().all(|c| c.is_ascii_digit() || c == '-')
}

/// A telephone number alone on its line ("(206) 266-1000").
fn is_phone(line: &str) -> bool {
    let digits = line.chars().filter(|c| c.is_ascii_digit()).count();
    digits >= 7 && line.chars().all(|c| c.is_ascii_digit() || " ()-.+".contains(c))
}

/// The text after a label printed inline ("Principal executive offices: 3M Center, St. Paul,
/// Minnesota 55144"), `labels` lower case with their colon.
fn after_label<'a>(line: &'a str, labels: &[&str]) -> Option<&'a str> {
    let low = line.to_lowercase();
    labels.iter().find_map(|l| low.find(l).map(|i| line[i + l.len()..].trim())).filter(|r| !r.is_empty())
}

/// The address of the principal executive offices: printed inline after its label, or on the
/// line (two lines, a street apart from its city) above its caption, a telephone number between
/// them passed over ("410 Terry Avenue North / Seattle, Washington 98109-5210 / (206) 266-1000 /
/// (Address and telephone number ... of registrant's principal executive offices)").
fn headquarters(lines: &[&str]) -> Option<(String, Vec<String>)> {
    if let Some((l, rest)) =
        lines.iter().find_map(|l| after_label(l, &["principal executive offices:", "address of principal executive offices:"]).map(|r| (l, r)))
    {
        return Some((rest.to_string(), vec![l.to_string()]));
    }
    let at = lines.iter().position(|l| is_caption(l) && l.to_lowercase().contains("principal executive office"))?;
    let mut i = at.checked_sub(1)?;
    while is_phone(lines[i]) {
        i = i.checked_sub(1)?;
    }
    let line = lines[i];
    if is_caption(line) || !line.chars().any(char::is_alphabetic) {
        return None;
    }
    let mut address = vec![line.to_string()];
    // a street line above a "City, State ZIP" line: a number first, no caption
    if let Some(above) = i.checked_sub(1).map(|j| lines[j]) {
        let numbered = |l: &str| l.split_whitespace().next().is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()));
        if numbered(above) && !is_caption(above) && !numbered(line) && !is_id_number(above.split_whitespace().next().unwrap_or("")) {
            address.insert(0, above.to_string());
        }
    }
    let answer = address.join(", ");
    let mut quote = address;
    quote.extend(lines[i + 1..=at].iter().map(|l| l.to_string()));
    Some((answer, quote))
}

/// A state's name: one to three capitalised words.
fn jurisdiction(words: &[&str]) -> Option<String> {
    (!words.is_empty()
        && words.len() <= 3
        && words.iter().all(|w| w.starts_with(|c: char| c.is_uppercase()) && w.chars().all(|c| c.is_alphabetic() || c == '.')))
    .then(|| words.join(" "))
}

/// The jurisdiction of incorporation: printed inline after its label ("State of Incorporation:
/// Delaware I.R.S. ..."), or above its caption, before the employer identification number
/// printed beside it ("Washington 91-1223280"); the caption's lines are quoted to its close.
fn incorporation(lines: &[&str]) -> Option<(String, Vec<String>)> {
    for l in lines {
        if let Some(rest) = after_label(l, &["state of incorporation:", "jurisdiction of incorporation:"]) {
            let words: Vec<&str> = rest.split_whitespace().take_while(|w| !is_id_number(w) && !w.starts_with("I.R.S") && *w != "IRS").collect();
            if let Some(j) = jurisdiction(&words) {
                return Some((j, vec![l.to_string()]));
            }
        }
    }
    let at = lines.iter().position(|l| l.to_lowercase().starts_with(INC_CAPTION))?;
    let line = *lines.get(at.checked_sub(1)?)?;
    // (a caption alone above it: nothing printed for the state)
    if is_caption(line) && !line.rsplit(')').next().is_some_and(|after| after.chars().any(char::is_alphabetic)) {
        return None;
    }
    // the words before the number, after any rule or caption printed on the same line
    // ("(Exact name of registrant ...) ______ Delaware 71-0415188")
    let before: Vec<&str> = line.split_whitespace().take_while(|w| !is_id_number(w)).collect();
    let from = before.iter().rposition(|w| w.contains(')') || w.contains('_')).map_or(0, |i| i + 1);
    let j = jurisdiction(&before[from..])?;
    let mut quote = vec![line.to_string()];
    for l in &lines[at..] {
        quote.push(l.to_string());
        if l.contains(')') || quote.len() >= 4 {
            break;
        }
    }
    Some((j, quote))
}

/// The firm that signs the auditor's report: "/s/ <firm>" where the report says the firm has
/// served as the company's auditor, or the firm's name ends as an accounting firm's does.
fn auditor(lines: &[&str]) -> Option<(String, Vec<String>)> {
    let served =
        lines.iter().position(|l| l.to_lowercase().contains("served as the company's auditor") || l.to_lowercase().contains("served as the company’s auditor"));
    for (i, l) in lines.iter().enumerate() {
        let Some(firm) = l.strip_prefix("/s/").map(str::trim) else { continue };
        let firm_like = ["LLP", "LLP.", "L.L.P.", "LLC", "& Co.", "AG", "GmbH", "S.A."].iter().any(|e| firm.ends_with(e));
        let near_served = served.is_some_and(|s| s.abs_diff(i) <= 2);
        if !firm.is_empty() && firm.split_whitespace().count() <= 6 && (firm_like || near_served) && (near_served || served.is_none()) {
            let mut quote = vec![l.to_string()];
            if let Some(s) = served.filter(|_| near_served) {
                quote.push(lines[s].to_string());
            }
            return Some((firm.trim_end_matches('.').to_string(), quote));
        }
    }
    None
}

/// The exchanges the cover page names under its caption "Name of each exchange on which
/// registered" (its words may wrap over lines): each exchange once, in the order printed ("New
/// York Stock Exchange", "The NASDAQ Global Select Market", "Chicago Stock Exchange, Inc."),
/// the lines naming them quoted. `None` for a page without the caption, or with "None" under it.
fn exchanges(lines: &[&str]) -> Option<(String, Vec<String>)> {
    // (title-case words before the exchange's own, not a ticker printed beside it: "GIS New
    // York Stock Exchange")
    static EXCHANGE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:The )?(?:(?:[A-Z][a-z]+|NASDAQ|NYSE) )*?(?:Stock Exchange|Stock Market|Global Select Market|Global Market|Capital Market|NYSE(?: American| Arca)?)(?:,? (?:Inc|LLC)\.?)?")
            .expect("exchange pattern")
    });
    // the caption, on one line or wrapped over two ("Name of each exchange / on which registered")
    const CAPTION: &str = "exchange on which";
    let (first, last) = (0..lines.len()).find_map(|i| {
        if lines[i].to_lowercase().contains(CAPTION) {
            return Some((i, i));
        }
        let next = lines.get(i + 1)?;
        let wrapped = !next.to_lowercase().contains(CAPTION) && format!("{} {}", lines[i], next).to_lowercase().contains(CAPTION);
        wrapped.then_some((i, i + 1))
    })?;
    let mut names: Vec<String> = Vec::new();
    // (the caption quoted with the lines under it, so that the quote reads as the cover does)
    let mut quote: Vec<String> = lines[first..=last].iter().map(|l| l.to_string()).collect();
    let caption_lines = quote.len();
    for l in lines.iter().skip(last + 1).take(16) {
        let low = l.to_lowercase();
        if low.contains("section 12(g)") || low.starts_with("indicate by check mark") {
            break;
        }
        let mut named = false;
        for m in EXCHANGE.find_iter(l) {
            let n = m.as_str().trim().to_string();
            named = true;
            if !names.iter().any(|x| x.trim_end_matches('.') == n.trim_end_matches('.')) {
                names.push(n);
            }
        }
        if named && !quote.contains(&l.to_string()) && quote.len() < caption_lines + 3 {
            quote.push(l.to_string());
        }
    }
    (!names.is_empty()).then(|| (names.join("; "), quote))
}

/// The shares of common stock outstanding the cover page states: the first count of shares (in
/// full, "497,810,444", or in millions, "457.8 million") in a sentence or line that says shares
/// are outstanding as of a date ("Number of shares of common stock outstanding as of January 22,
/// 2020 497,810,444", "The registrant had 2,832,277,220 shares of common stock outstanding as of
/// March 18, 2020."); a sentence about the shares non-affiliates hold, or their market value, is
/// not it. The answer is the count with "shares", the sentence the quote.
fn shares_outstanding(text: &str) -> Option<(String, Vec<String>)> {
    static COUNT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:^|[^$\d.,])(\d{1,3}(?:,\d{3}){2,}|\d+(?:\.\d+)?\s+(?:million|billion))\b").expect("share count pattern"));
    for u in crate::text::units(text) {
        let l = u.to_lowercase();
        let dated = l.contains(" as of ") || l.starts_with("as of ") || l.starts_with("at ") || l.contains(" at ");
        if !l.contains("outstanding")
            || !l.contains("share")
            || !dated
            || l.contains("affiliates")
            || l.contains("market value")
            || u.split_whitespace().count() > 60
        {
            continue;
        }
        if let Some(c) = COUNT.captures(&u) {
            return Some((format!("{} shares", c[1].split_whitespace().collect::<Vec<_>>().join(" ")), vec![u.clone()]));
        }
    }
    None
}

/// How many people the filer employs, from the first sentence that says it: "we employed
/// approximately 798,000 full-time and part-time employees", "the Company employed 93,516
/// people", "approximately 117,100 employees on a full-time equivalent basis", "total
/// workforce was approximately 156,000". A count of a part ("17,000 employees are represented by
/// unions", "50,000 union members") is not it. The answer is the count with its noun, the
/// sentence the quote. `strict`: only a verb of employing or the workforce's size, not "we have
/// N employees".
fn employees(text: &str, strict: bool) -> Option<(String, Vec<String>)> {
    const ABOUT: &str = r"(?:(?:approximately|about|around|over|more than|nearly|some)\s+)?";
    // (thousands grouped, or millions: "approximately 66.5% male" is no count)
    const COUNT: &str = r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?\s+million)";
    const NOUN: &str = r"(?:full-time(?:\s+and\s+part-time)?\s+|part-time\s+and\s+full-time\s+)?(?:employees|people|associates|persons|team\s+members|individuals|professionals|colleagues|workers|staff)";
    static EMPLOYED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(&format!(r"(?i)\bemploy(?:ed|s|)\s+(?:a\s+total\s+of\s+)?({ABOUT}{COUNT}\s+{NOUN})")).expect("employed pattern"));
    static COUNTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!(r"(?i)(\w*)\s+({ABOUT}{COUNT}\s+{NOUN})\b(.{{0,16}})")).expect("count pattern"));
    static WORKFORCE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r"(?i)\bworkforce\s+(?:was|of|totaled|totalled|numbered|consisted\s+of|(?:made\s+up|comprised|composed|consisting)\s+of)\s+({ABOUT}{COUNT})(\s+{NOUN})?"
        ))
        .expect("workforce pattern")
    });
    // what follows a count that makes it a part's ("... employees are represented by unions")
    let part_after = |rest: &str| {
        let r = rest.trim_start().to_lowercase();
        ["are ", "were ", "who ", "represented", "in the ", "located", "based", "and approximately", "and retirees"].iter().any(|w| r.starts_with(w))
    };
    let units = crate::text::units(text);
    for u in &units {
        // said of the company: not of a segment or division ("With approximately 35,000
        // employees ..., the Flexibles Segment is ...")
        let l = u.to_lowercase();
        if l.contains("union") || l.contains("segment") || l.contains("division") {
            continue;
        }
        if let Some(c) = EMPLOYED.captures(u) {
            return Some((c[1].split_whitespace().collect::<Vec<_>>().join(" "), vec![u.clone()]));
        }
        if let Some(c) = WORKFORCE.captures(u) {
            // (the noun the sentence counts them by, else "people")
            let noun = c.get(3).map_or("people".to_string(), |m| m.as_str().split_whitespace().collect::<Vec<_>>().join(" "));
            return Some((format!("{} {noun}", c[1].split_whitespace().collect::<Vec<_>>().join(" ")), vec![u.clone()]));
        }
        if strict {
            continue;
        }
        // "we had approximately 9,100 employees", "With approximately 117,100 employees": had,
        // have or with the count (not people served, "services to over 15 million people", nor
        // a passing "our more than 2.2 million associates")
        for c in COUNTED.captures_iter(u) {
            let before = c[1].to_lowercase();
            if !part_after(&c[4]) && ["have", "had", "has", "with"].contains(&before.as_str()) {
                return Some((c[2].split_whitespace().collect::<Vec<_>>().join(" "), vec![u.clone()]));
            }
        }
    }
    None
}

/// For a question asking a fact of the filer: whether the quote holds it as [`read`] reads it
/// (the quote's pieces separated by [`crate::evidence::QUOTE_GAP`]) and the answer says it.
/// `None` when the question asks none.
pub fn quote_holds(question: &str, quote: Option<&str>, answer: &str) -> Option<bool> {
    let asked = asked(question)?;
    let Some(q) = quote else { return Some(false) };
    let lines = q.replace(crate::evidence::QUOTE_GAP, "\n");
    Some(read(asked, &[lines.as_str()]).is_some_and(|r| !r.answer.is_empty() && answer.contains(&r.answer)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const COVER: &str = "FORM 10-K\nCostco Wholesale Corporation\n(Exact name of registrant as specified in its charter)\nWashington 91-1223280\n(State or other jurisdiction of\nincorporation or organization)\n(I.R.S. Employer Identification No.)\n999 Lake Drive, Issaquah, WA 98027\n(Address of principal executive offices) (Zip Code)\nRegistrant's telephone number";

    #[test]
    fn questions_ask_for_the_filers_facts() {
        assert_eq!(asked("Where is Costco headquartered?"), Some(Asked::Headquarters));
        assert_eq!(asked("Where are Boeing's headquarters?"), Some(Asked::Headquarters));
        assert_eq!(asked("Where is 3M based?"), Some(Asked::Headquarters));
        assert_eq!(asked("In which state is Costco incorporated?"), Some(Asked::Incorporation));
        assert_eq!(asked("What is Adobe's state of incorporation?"), Some(Asked::Incorporation));
        // a company's name ending in "Incorporated" asks nothing of its incorporation
        assert_eq!(asked("What was the Dividend per share for Ritchie Bros. Auctioneers Incorporated according to the report?"), None);
        assert_eq!(asked("Where is Acme Widgets Incorporated incorporated?"), Some(Asked::Incorporation));
        assert_eq!(asked("Where is Acme Incorporated headquartered?"), Some(Asked::Headquarters));
        assert_eq!(asked("In which state is Boeing Incorporated?"), Some(Asked::Incorporation));
        assert_eq!(asked("Who is Adobe's independent auditor?"), Some(Asked::Auditor));
        assert_eq!(asked("Which accounting firm audits Pfizer?"), Some(Asked::Auditor));
        assert_eq!(asked("How much did Adobe pay its auditor in fees?"), None, "a figure");
        assert_eq!(asked("What critical audit matters did the auditor report?"), None, "the audit's findings");
        assert_eq!(asked("Where is Costco's revenue growth coming from?"), None);
        assert_eq!(asked("What was Costco's revenue in 2021?"), None);
        assert_eq!(asked("How many employees did Costco have at the end of fiscal 2021?"), Some(Asked::Employees));
        assert_eq!(asked("What is 3M's headcount?"), Some(Asked::Employees));
        assert_eq!(asked("How many people does Adobe employ?"), Some(Asked::Employees));
        assert_eq!(asked("About how many people did Lockheed Martin employ at the end of 2021?"), Some(Asked::Employees));
        assert_eq!(asked("How many of Costco's employees are represented by unions?"), None, "a part");
        assert_eq!(asked("How many shares did Adobe buy back?"), None);
        assert_eq!(asked("On which stock exchange is General Mills' common stock listed?"), Some(Asked::Exchange));
        assert_eq!(asked("Where is Costco's stock traded?"), Some(Asked::Exchange));
        assert_eq!(asked("Which exchange are 3M's shares listed on?"), Some(Asked::Exchange));
        assert_eq!(asked("What was the foreign exchange loss in 2021?"), None);
        assert_eq!(asked("Which debt securities are registered to trade on a national securities exchange under 3M's name?"), None, "the securities asked");
        assert_eq!(asked("How did exchange rates affect Costco's sales?"), None);
        assert_eq!(asked("How many shares of common stock did Amazon have outstanding?"), Some(Asked::SharesOutstanding));
        assert_eq!(asked("What was the number of Costco shares outstanding in 2021?"), Some(Asked::SharesOutstanding));
        assert_eq!(asked("How many diluted weighted average shares were outstanding in 2021?"), None, "a year's average");
        assert_eq!(asked("How many shares of common stock did Costco have outstanding at the end of FY2021?"), None, "the balance sheet's");
    }

    #[test]
    fn the_shares_outstanding_are_the_cover_pages_dated_count() {
        let n = |t: &str| read(Asked::SharesOutstanding, &[t]).map(|r| r.answer);
        assert_eq!(n("Number of shares of common stock outstanding as of January 22, 2020 497,810,444"), Some("497,810,444 shares".into()));
        assert_eq!(
            n("As of January 6, 2023, 457.8 million shares of the registrant's common stock, $0.0001 par value per share, were issued and outstanding."),
            Some("457.8 million shares".into())
        );
        // the non-affiliates' shares, or their value, are not the count
        let boeing = "As of June 30, 2022, there were 593,451,225 common shares outstanding held by nonaffiliates of the registrant, and the aggregate market value was approximately $81.1 billion.\nThe number of shares of the registrant's common stock outstanding as of January 20, 2023 was 598,239,585.";
        assert_eq!(n(boeing), Some("598,239,585 shares".into()));
        assert_eq!(
            n("The aggregate market value of the voting stock held by non-affiliates of the registrant as of February 14, 2021 was $155,810,963,274."),
            None
        );
    }

    #[test]
    fn the_exchanges_are_those_named_under_the_cover_pages_caption() {
        let gis = "Securities registered pursuant to Section 12(b) of the Act:\nTitle of each class Trading Symbol(s)\nName of each exchange\non which registered\nCommon Stock, $.10 par value GIS New York Stock Exchange\n1.000% Notes due 2023 GIS23A New York Stock Exchange\nSecurities registered pursuant to Section 12(g) of the Act: None";
        let r = read(Asked::Exchange, &[gis]).unwrap();
        assert_eq!(r.answer, "New York Stock Exchange");
        assert_eq!(
            r.quote,
            [
                "Name of each exchange",
                "on which registered",
                "Common Stock, $.10 par value GIS New York Stock Exchange",
                "1.000% Notes due 2023 GIS23A New York Stock Exchange"
            ]
        );
        let cost = "Title of each class Trading Symbol\nName of each exchange on\nwhich registered\nCommon Stock, $.01 Par Value COST The NASDAQ Global Select Market\nSecurities registered pursuant to Section 12(g) of the Act: None";
        assert_eq!(read(Asked::Exchange, &[cost]).unwrap().answer, "The NASDAQ Global Select Market");
        let amzn = "Title of Each Class Trading Symbol(s) Name of Each Exchange on Which Registered\nCommon Stock, par value $.01 per share AMZN Nasdaq Global Select Market";
        let r = read(Asked::Exchange, &[&format!("(Address of principal executive offices)\n{amzn}")]).unwrap();
        assert_eq!(r.answer, "Nasdaq Global Select Market");
        assert_eq!(r.quote.len(), 2, "the caption's own line, not the one above it");
        let mmm = "Name of each exchange\non which registered\nCommon Stock, Par Value $.01 Per Share\n1.500% Notes due 2026\nNew York Stock Exchange, Inc.\nChicago Stock Exchange, Inc.\nNew York Stock Exchange, Inc.";
        assert_eq!(read(Asked::Exchange, &[mmm]).unwrap().answer, "New York Stock Exchange, Inc.; Chicago Stock Exchange, Inc.");
        // the Securities Exchange Act is no exchange; a page without the caption reads none
        assert_eq!(read(Asked::Exchange, &["registered under Section 12 of the Securities Exchange Act of 1934: Common Stock"]), None);
    }

    #[test]
    fn the_cover_page_prints_each_fact_above_its_caption() {
        let hq = read(Asked::Headquarters, &["no cover here", COVER]).unwrap();
        assert_eq!((hq.answer.as_str(), hq.page), ("999 Lake Drive, Issaquah, WA 98027", 1));
        assert_eq!(hq.quote, ["999 Lake Drive, Issaquah, WA 98027", "(Address of principal executive offices) (Zip Code)"]);
        assert_eq!(read(Asked::Incorporation, &[COVER]).unwrap().answer, "Washington");
        // a street printed apart from its city
        let two = "Delaware 88-0215232\n(State or other jurisdiction of incorporation or organization)\n3600 Las Vegas Boulevard South\nLas Vegas, Nevada 89109\n(Address of principal executive offices)";
        assert_eq!(read(Asked::Headquarters, &[two]).unwrap().answer, "3600 Las Vegas Boulevard South, Las Vegas, Nevada 89109");
        assert_eq!(read(Asked::Incorporation, &[two]).unwrap().answer, "Delaware");
        // printed inline after their labels (3M)
        let inline = "3M COMPANY\nState of Incorporation: Delaware I.R.S. Employer Identification No. 41-0417775\nPrincipal executive offices: 3M Center, St. Paul, Minnesota 55144\nTelephone number: (651) 733-1110";
        assert_eq!(read(Asked::Incorporation, &[inline]).unwrap().answer, "Delaware");
        assert_eq!(read(Asked::Headquarters, &[inline]).unwrap().answer, "3M Center, St. Paul, Minnesota 55144");
        // a telephone number between the address and its caption (Amazon); a rule before the
        // state (Walmart)
        let amazon = "(Exact name of registrant as specified in its charter) ______ Delaware 91-1646860\n(State or other jurisdiction of\nincorporation or organization)\n(I.R.S. Employer\nIdentification No.)\n410 Terry Avenue North\nSeattle, Washington 98109-5210\n(206) 266-1000\n(Address and telephone number, including area code, of registrant’s principal executive offices)";
        assert_eq!(read(Asked::Headquarters, &[amazon]).unwrap().answer, "410 Terry Avenue North, Seattle, Washington 98109-5210");
        let inc = read(Asked::Incorporation, &[amazon]).unwrap();
        assert_eq!(inc.answer, "Delaware");
        assert_eq!(inc.quote.last().map(String::as_str), Some("incorporation or organization)"));
        // a caption with nothing above it reads nothing
        assert_eq!(read(Asked::Headquarters, &["(Address of principal executive offices)"]), None);
    }

    #[test]
    fn the_auditor_is_the_firm_signing_its_report() {
        let report = "integrated offering.\n/s/ KPMG LLP\nWe have served as the Company’s auditor since 1983.\nSanta Clara, California";
        let a = read(Asked::Auditor, &[report]).unwrap();
        assert_eq!(a.answer, "KPMG LLP");
        assert_eq!(a.quote.len(), 2);
        assert_eq!(read(Asked::Auditor, &["/s/ Ernst & Young LLP\nBoston, Massachusetts"]).unwrap().answer, "Ernst & Young LLP");
        // an officer's signature is no auditor's
        assert_eq!(read(Asked::Auditor, &["/s/ Albert Bourla\nChairman and Chief Executive Officer"]), None);
    }

    #[test]
    fn the_headcount_is_the_sentence_that_counts_the_people_employed() {
        let n = |t: &str| read(Asked::Employees, &[t]).map(|r| r.answer);
        assert_eq!(
            n("Human Capital\nAt the end of 2021, we employed 288,000 employees worldwide. Approximately 17,000 employees are represented by unions."),
            Some("288,000 employees".into())
        );
        assert_eq!(n("At December 31, 2018, the Company employed 93,516 people (full-time equivalents)."), Some("93,516 people".into()));
        assert_eq!(
            n("We employed approximately 798,000 full-time and part-time employees as of December 31, 2019."),
            Some("approximately 798,000 full-time and part-time employees".into())
        );
        assert_eq!(
            n("With approximately 117,100 employees on a full-time equivalent basis as of December 31, 2022, 89% of whom are based in the U.S."),
            Some("approximately 117,100 employees".into())
        );
        assert_eq!(
            n("As of December 31, 2022 and 2021, Boeing’s total workforce was approximately 156,000 and 142,000."),
            Some("approximately 156,000 people".into())
        );
        assert_eq!(
            n("As of December 31, 2021, we had a highly skilled workforce made up of approximately 114,000 employees, including approximately 59,000 engineers."),
            Some("approximately 114,000 employees".into())
        );
        assert_eq!(n("Walmart employs approximately 2.2 million associates worldwide."), Some("approximately 2.2 million associates".into()));
        // people served, a segment's employees and a part of the workforce are no headcount
        assert_eq!(
            n("American Water employs approximately 7,000 professionals who provide services to over 15 million people in 46 states."),
            Some("approximately 7,000 professionals".into())
        );
        assert_eq!(n("With approximately 35,000 employees at 166 facilities, the Flexibles Segment is one of the largest suppliers."), None);
        assert_eq!(n("Approximately 2,000 employees are located in Canada."), None);
        assert_eq!(n("As of December 31, 2022, Verizon's global workforce was approximately 66.5% male."), None);
        assert_eq!(n("As of December 26, 2015, we had approximately 9,100 employees."), Some("approximately 9,100 employees".into()));
        // a sentence with a verb of employing, on any page read, before a passing mention
        let passing = "our stores combined with our more than 2.2 million associates to better serve our customers.";
        let employed = "Walmart Inc. and our subsidiaries employed more than 2.2 million employees worldwide.";
        assert_eq!(n(passing), None);
        assert_eq!(read(Asked::Employees, &[passing, employed]).map(|r| r.page), Some(1));
        assert_eq!(n("Approximately 17,000 employees are represented by unions. Our workforce included approximately 50,000 union members."), None);
    }

    #[test]
    fn a_quote_holds_the_fact_when_the_answer_says_what_it_reads() {
        let q = "Where is Costco headquartered?";
        let quote = "999 Lake Drive, Issaquah, WA 98027 … (Address of principal executive offices) (Zip Code)";
        assert_eq!(quote_holds(q, Some(quote), "999 Lake Drive, Issaquah, WA 98027"), Some(true));
        assert_eq!(quote_holds(q, Some("Our headquarters are in a leased building."), "a leased building"), Some(false));
        assert_eq!(quote_holds("What was Costco's revenue?", Some(quote), "x"), None);
    }
}
