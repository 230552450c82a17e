//! Schedules by year: "Expected future amortization expense of acquired intangible assets as of
//! December 31, 2017 is as follows (in millions):" and then one line per year ("2018 $ 377"),
//! "Thereafter 1,998" and the total on the last line, labelled "Total" or not ("$ 3,362"). The
//! table reader takes no table of one column of figures, so a maturity or commitments schedule
//! printed this way is read here: the total asked ("What is the total amount of expected
//! future amortization expense ...?"), or one year's line ("... in 2019"). A schedule whose total
//! is not the sum of its lines is not read. Pure: the question and page texts in.

use crate::question::Question;
use crate::text::{is_stop_word, plain_words};
use regex::Regex;
use std::sync::LazyLock;

/// A schedule read from a page: what it schedules, its lines and its total.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// The sentence that introduces it, without its closing colon.
    pub intro: String,
    /// Each line: its label ("2018", "Thereafter") and figure as printed ("$ 377").
    pub lines: Vec<(String, String)>,
    /// The total line as printed ("$ 3,362", "Total $ 3,362").
    pub total: String,
    /// The total's value.
    pub sum: f64,
    /// The scale the intro states ("millions"), if any.
    pub scale: Option<&'static str>,
}

/// A figure as printed: "$ 377", "1,998", "(12)".
const FIGURE: &str = r"\$?\s?\(?\d[\d,]*(?:\.\d+)?\)?";

fn value(printed: &str) -> Option<f64> {
    crate::figures::table::number_of(printed).map(|r| r.to_f64())
}

/// The schedules of a page's text.
pub fn read(text: &str) -> Vec<Schedule> {
    static ROW: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(&format!(r"^((?:19|20)\d\d|[Tt]hereafter|[Tt]otal[\w ,]*|[Ll]ater years)\s+({FIGURE})$")).expect("row pattern"));
    static BARE: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!(r"^({FIGURE})$")).expect("total pattern"));
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if !l.ends_with(':') {
            continue;
        }
        // the introducing sentence: from the last sentence end of this line and the one before
        let joined = match i.checked_sub(1) {
            Some(p) if !lines[p].ends_with(':') => format!("{} {l}", lines[p]),
            _ => l.to_string(),
        };
        let start = joined.rfind(". ").map_or(0, |at| at + 2);
        let intro = joined[start..].trim_end_matches(':').trim().to_string();
        // a heading line or two ("Year Ended December 31,") before the lines
        let mut j = i + 1;
        while j < lines.len() && j <= i + 2 && !ROW.is_match(lines[j]) && !BARE.is_match(lines[j]) {
            j += 1;
        }
        let mut rows: Vec<(String, String)> = Vec::new();
        let mut total: Option<(String, f64)> = None;
        while j < lines.len() {
            if let Some(c) = ROW.captures(lines[j]) {
                let label = c[1].to_string();
                if label.to_lowercase().starts_with("total") {
                    total = value(&c[2]).map(|v| (lines[j].to_string(), v));
                    break;
                }
                rows.push((label, c[2].to_string()));
            } else if let Some(c) = BARE.captures(lines[j]) {
                total = value(&c[1]).map(|v| (lines[j].to_string(), v));
                break;
            } else {
                break;
            }
            j += 1;
        }
        let years = rows.iter().filter(|(l, _)| l.chars().all(|c| c.is_ascii_digit())).count();
        let Some((total, sum)) = total else { continue };
        if years < 3 {
            continue;
        }
        // the schedule adds up, or it is not read (a line lost, or another table's figure)
        let added: f64 = rows.iter().filter_map(|(_, f)| value(f)).sum();
        if (added - sum).abs() > 1.0 + sum.abs() * 1e-6 {
            continue;
        }
        // (its scale stated by the intro or by a heading line above its lines)
        let lower =
            format!("{} {}", intro, lines[i + 1..].iter().take_while(|l| !ROW.is_match(l)).take(2).cloned().collect::<Vec<_>>().join(" ")).to_lowercase();
        let scale =
            [("in millions", "million"), ("in thousands", "thousand"), ("in billions", "billion")].iter().find(|(w, _)| lower.contains(w)).map(|(_, s)| *s);
        out.push(Schedule { intro, lines: rows, total, sum, scale });
    }
    out
}

/// An answer from a schedule: what is said, its quote (the intro and the lines read, in
/// pieces), and the page it is on.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    pub answer: String,
    pub quote: String,
    pub page: usize,
}

/// The question's words a schedule's intro must share (most of them): its content words,
/// the company's name, the years and the words of asking aside.
fn asked_words(q: &Question) -> Vec<String> {
    let companies: Vec<String> = q.companies.iter().flat_map(|c| plain_words(c)).collect();
    plain_words(&q.text)
        .into_iter()
        .filter(|w| w.len() > 2 && !is_stop_word(w) && !w.chars().any(|c| c.is_ascii_digit()))
        .filter(|w| !companies.contains(w) && !ASKING.contains(&w.as_str()))
        .collect()
}

/// Words of asking, of a date or of a total, which no schedule's intro needs to say.
const ASKING: &[&str] = &[
    "what",
    "total",
    "amount",
    "sum",
    "answer",
    "million",
    "millions",
    "billion",
    "thousands",
    "round",
    "december",
    "june",
    "september",
    "march",
    "end",
    "year",
    "fiscal",
    "many",
    "much",
    "how",
    "did",
    "does",
    "the",
    "for",
    "company",
    "company's",
];

/// Words that say a figure is scheduled ahead: a question must say one, as the schedule's
/// intro does ("What was Amazon's amortization expense in FY2017?" asks the year's expense, not
/// the amortization expected after it).
const AHEAD: &[&str] = &["future", "expect", "estimat", "maturit", "mature", "maturing", "due", "remaining", "next", "thereafter", "schedul", "upcoming"];

fn says_ahead(words: &[String]) -> bool {
    words.iter().any(|w| AHEAD.iter().any(|a| w.starts_with(a)))
}

/// The schedule on `pages` the question asks of, when the question asks what is scheduled
/// ahead ([`AHEAD`]): its total (asked as a total), the line of the year named, or the first
/// line ("next year").
pub fn answer(q: &Question, pages: &[&str]) -> Option<Read> {
    let asked = plain_words(&q.text);
    if !q.asks_figure() || !says_ahead(&asked) {
        return None;
    }
    let next_year = q.text.to_lowercase().contains("next year") || q.text.to_lowercase().contains("coming year");
    let want = asked_words(q);
    if want.len() < 3 {
        return None;
    }
    let mut best: Option<(f64, Read)> = None;
    for (pi, text) in pages.iter().enumerate() {
        for s in read(text) {
            let intro = plain_words(&s.intro);
            let shared = want.iter().filter(|w| intro.iter().any(|i| i == *w || i.starts_with(w.as_str()) || w.starts_with(i.as_str()) && i.len() > 3)).count();
            let share = shared as f64 / want.len() as f64;
            if share < 0.75 {
                continue;
            }
            if !says_ahead(&intro) {
                continue;
            }
            let line = q.years.iter().find_map(|y| s.lines.iter().find(|(l, _)| *l == y.to_string())).or(next_year.then(|| s.lines.first()).flatten());
            let (said, of) = match line {
                Some((label, figure)) if !q.asks_total() => (figure.clone(), label.clone()),
                _ if q.asks_total() || asked.iter().any(|w| w == "total") => {
                    (s.total.trim_start_matches(|c: char| c.is_alphabetic() || c == ' ' || c == ',').to_string(), "total".to_string())
                }
                _ => continue,
            };
            // (dollars when the schedule prints them, on its first line or its total)
            let dollars = s.lines.first().is_some_and(|l| l.1.contains('$')) || s.total.contains('$');
            let figure = said.replace([' ', '$'], "");
            let figure = if dollars { format!("${figure}") } else { figure };
            let answer = match s.scale {
                Some(w) => format!("{figure} {w} ({of})"),
                None => format!("{figure} ({of})"),
            };
            let mut pieces = vec![s.intro.clone()];
            pieces.extend(s.lines.iter().map(|(l, f)| format!("{l} {f}")));
            pieces.push(s.total.clone());
            let read = Read { answer, quote: pieces.join(crate::evidence::QUOTE_GAP), page: pi };
            if best.as_ref().is_none_or(|b| share > b.0) {
                best = Some((share, read));
            }
        }
    }
    best.map(|b| b.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const AMAZON: &str = "Amortization expense for acquired intangibles was $270 million , $287 million , and $366 million in 2015 , 2016 , and 2017 . Expected future amortization\nexpense of acquired intangible assets as of December 31, 2017 is as follows (in millions):\nYear Ended December 31,\n2018 $ 377\n2019 337\n2020 258\n2021 214\n2022 178\nThereafter 1,998\n$ 3,362\n55";

    #[test]
    fn a_schedule_is_read_with_its_total_when_its_lines_add_up() {
        let s = read(AMAZON);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].intro, "Expected future amortization expense of acquired intangible assets as of December 31, 2017 is as follows (in millions)");
        assert_eq!((s[0].lines.len(), s[0].sum, s[0].scale), (6, 3362.0, Some("million")));
        // the scale on a heading line of its own
        let msft = "Maturities of our long-term debt for each of the next five years and thereafter are as follows:\n(In millions)\nYear Ending June 30,\n2017 $ 0\n2018 1,050\n2019 4,000\n2020 1,500\n2021 3,750\nThereafter 30,649\nTotal $ 40,949";
        assert_eq!(read(msft).first().map(|s| (s.sum, s.scale)), Some((40949.0, Some("million"))));
        // a line lost: the total does not add up, and nothing is read
        assert!(read(&AMAZON.replace("2020 258\n", "")).is_empty());
    }

    #[test]
    fn the_total_or_the_years_line_is_the_answer() {
        let q = Question::parse("What is the total amount of expected future amortization expense of acquired intangible assets as of December 31, 2017 for Amazon? Answer in million");
        let r = answer(&q, &[AMAZON]).expect("read");
        assert_eq!(r.answer, "$3,362 million (total)");
        assert!(r.quote.starts_with("Expected future amortization expense") && r.quote.ends_with("$ 3,362"));
        let q = Question::parse("How much amortization expense of acquired intangible assets is expected in 2019, in millions?");
        assert_eq!(answer(&q, &[AMAZON]).map(|r| r.answer).as_deref(), Some("$337 million (2019)"));
        // another measure's question does not read it, nor the year's own expense, nor a
        // schedule's figure asked neither as its total nor of one of its years
        for q in [
            "What were Amazon's expected future lease payments as of December 31, 2017?",
            "What was Amazon's amortization expense of intangible assets in FY2017, in USD millions?",
            "What is the expected future amortization expense of acquired intangible assets as of December 31, 2017?",
        ] {
            assert_eq!(answer(&Question::parse(q), &[AMAZON]), None, "{q}");
        }
        let q = Question::parse("What are the total expected future amortization expenses of acquired intangible assets at the end of 2017?");
        assert_eq!(answer(&q, &[AMAZON]).map(|r| r.answer).as_deref(), Some("$3,362 million (total)"));
        let q = Question::parse("How much amortization expense of acquired intangible assets is expected next year, in millions?");
        assert_eq!(answer(&q, &[AMAZON]).map(|r| r.answer).as_deref(), Some("$377 million (2018)"));
    }
}
