//! Text analysis shared by the index, the document filter and snippets.
//!
//! The tokenizer keeps financial tokens whole: numbers with thousands separators and decimals
//! (`18,841` -> `18841`, `12.5%` -> `12.5%`, `(1,234)` -> `1234`), form names (`10-K` -> `10-k`),
//! abbreviations with digits (`CET1`), dotted abbreviations (`U.S.` -> `us`) and `AT&T`.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// A token with its byte span in the source text.
#[derive(Debug, Clone, PartialEq)]
pub struct Tok {
    pub text: String,
    pub start: usize,
    pub end: usize,
    pub is_number: bool,
}

/// Whether `a` and `b` differ by one edit: a letter changed, added or dropped, or two neighbours
/// swapped ("Neflix", "Netfilx" for "netflix").
pub fn one_edit(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (short, long) = if a.len() <= b.len() { (&a, &b) } else { (&b, &a) };
    let Some(i) = short.iter().zip(long.iter()).position(|(x, y)| x != y) else { return long.len() - short.len() == 1 };
    match long.len() - short.len() {
        0 => short[i + 1..] == long[i + 1..] || (i + 1 < short.len() && short[i] == long[i + 1] && short[i + 1] == long[i] && short[i + 2..] == long[i + 2..]),
        1 => short[i..] == long[i + 1..],
        _ => false,
    }
}

/// Split `s` into lowercase tokens (no stemming, no stop-word removal).
pub fn tokenize(s: &str) -> Vec<Tok> {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let n = chars.len();
    let end_of = |i: usize| if i < n { chars[i].0 } else { s.len() };
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        let c = chars[i].1;
        if c.is_ascii_digit() {
            // number: digits with internal , or . followed by a digit, optional %
            let start = i;
            let mut j = i;
            let mut tok = String::new();
            while j < n {
                let cj = chars[j].1;
                if cj.is_ascii_digit() {
                    tok.push(cj);
                    j += 1;
                } else if (cj == ',' || cj == '.') && j + 1 < n && chars[j + 1].1.is_ascii_digit() {
                    if cj == '.' {
                        tok.push('.');
                    }
                    j += 1;
                } else {
                    break;
                }
            }
            if j < n && chars[j].1 == '%' {
                tok.push('%');
                j += 1;
                out.push(Tok { text: tok, start: chars[start].0, end: end_of(j), is_number: true });
                i = j;
                continue;
            }
            // form names and alphanumerics: 10-K, 8-K, 10-Q, 3M, 2Q23
            if j + 1 < n && chars[j].1 == '-' && chars[j + 1].1.is_alphabetic() {
                let mut k = j + 1;
                while k < n && chars[k].1.is_alphanumeric() {
                    k += 1;
                }
                if k - (j + 1) <= 2 {
                    let word: String = chars[j + 1..k].iter().map(|x| x.1).collect::<String>().to_lowercase();
                    out.push(Tok { text: format!("{tok}-{word}"), start: chars[start].0, end: end_of(k), is_number: false });
                    i = k;
                    continue;
                }
            }
            if j < n && chars[j].1.is_alphabetic() {
                let mut k = j;
                while k < n && chars[k].1.is_alphanumeric() {
                    k += 1;
                }
                let word: String = chars[start..k].iter().map(|x| x.1).collect::<String>().to_lowercase();
                out.push(Tok { text: word, start: chars[start].0, end: end_of(k), is_number: false });
                i = k;
                continue;
            }
            out.push(Tok { text: tok, start: chars[start].0, end: end_of(j), is_number: true });
            i = j;
        } else if c.is_alphabetic() {
            let start = i;
            let mut j = i;
            let mut tok = String::new();
            while j < n {
                let cj = chars[j].1;
                if cj.is_alphanumeric() {
                    tok.extend(cj.to_lowercase());
                    j += 1;
                } else if (cj == '&' || cj == '.')
                    && j + 1 < n
                    && chars[j + 1].1.is_alphabetic()
                    && tok.chars().count() <= 3
                    && (cj == '&' || j + 2 >= n || !chars[j + 2].1.is_alphabetic() || chars[j + 2].1 == '.')
                {
                    // AT&T, S&P, U.S., U.K. (short parts only, so sentences are not glued)
                    if cj == '&' {
                        tok.push('&');
                    }
                    j += 1;
                } else {
                    break;
                }
            }
            // fiscal years: FY2018 / FY18 -> 2018, as filings print them
            if let Some(y) = tok.strip_prefix("fy").filter(|d| (d.len() == 2 || d.len() == 4) && d.chars().all(|c| c.is_ascii_digit())) {
                let year = if y.len() == 2 { format!("20{y}") } else { y.to_string() };
                out.push(Tok { text: year, start: chars[start].0, end: end_of(j), is_number: true });
                i = j;
                continue;
            }
            out.push(Tok { text: tok, start: chars[start].0, end: end_of(j), is_number: false });
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// English stop words plus the filler words of analyst questions; dropped from queries only.
pub const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "being",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "more",
    "most",
    "my",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    // question boilerplate
    "give",
    "response",
    "question",
    "answer",
    "relying",
    "details",
    "shown",
    "based",
    "using",
    "please",
    "provide",
    "according",
    "round",
    "decimal",
    "places",
    "place",
    "calculate",
    "calculated",
    "show",
    "shows",
    "tell",
    "much",
    "many",
    "us",
    "usd",
    "value",
    "amount",
    "figure",
    "figures",
    "reported",
    "report",
    "reporting",
    "s",
];

/// A plural's stem, which its singular shares: "liabilities" and "liability" -> "liabilit",
/// "warehouses" -> "warehouse", "assets" -> "asset".
pub fn plural_stem(w: &str) -> String {
    w.trim_end_matches("ies").trim_end_matches('y').trim_end_matches('s').to_string()
}

pub fn is_stop_word(t: &str) -> bool {
    STOP_WORDS.contains(&t)
}

/// Tantivy tokenizer over [`tokenize`].
#[derive(Clone, Default)]
pub struct LensTokenizer {
    tokens: Vec<Token>,
}

pub struct LensTokenStream<'a> {
    tokens: &'a mut Vec<Token>,
    idx: usize,
    started: bool,
}

impl Tokenizer for LensTokenizer {
    type TokenStream<'a> = LensTokenStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> LensTokenStream<'a> {
        self.tokens.clear();
        for (pos, t) in tokenize(text).into_iter().enumerate() {
            self.tokens.push(Token { offset_from: t.start, offset_to: t.end, position: pos, text: t.text, position_length: 1 });
        }
        LensTokenStream { tokens: &mut self.tokens, idx: 0, started: false }
    }
}

impl TokenStream for LensTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.started {
            self.idx += 1;
        } else {
            self.started = true;
        }
        self.idx < self.tokens.len()
    }
    fn token(&self) -> &Token {
        &self.tokens[self.idx]
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.idx]
    }
}

/// Heading lines of a page: short title-like lines near the top, and statement titles anywhere.
pub fn heading_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = 0;
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        seen += 1;
        let lower = l.to_lowercase();
        let statement = is_statement_title(&lower);
        if (statement || (seen <= 10 && looks_like_heading(l))) && lower != "table of contents" && !lower.starts_with("page ") {
            out.push(l.to_string());
        }
        if seen > 60 && !out.is_empty() {
            break;
        }
    }
    out
}

fn looks_like_heading(l: &str) -> bool {
    let len = l.chars().count();
    if !(4..=110).contains(&len) {
        return false;
    }
    let letters = l.chars().filter(|c| c.is_alphabetic()).count();
    let digits = l.chars().filter(|c| c.is_ascii_digit()).count();
    let nonspace = l.chars().filter(|c| !c.is_whitespace()).count().max(1);
    if letters * 10 < nonspace * 7 || digits * 5 > nonspace {
        return false;
    }
    // Title case or upper case: most words start with an upper-case letter.
    let words: Vec<&str> = l.split_whitespace().filter(|w| w.chars().next().is_some_and(|c| c.is_alphabetic())).collect();
    if words.is_empty() || words.len() > 14 {
        return false;
    }
    let caps = words.iter().filter(|w| w.chars().next().is_some_and(|c| c.is_uppercase())).count();
    caps * 3 >= words.len() * 2 && !l.ends_with('.')
}

fn is_statement_title(lower: &str) -> bool {
    if lower.len() > 120 {
        return false;
    }
    const TITLES: &[&str] = &[
        "consolidated statement",
        "consolidated balance sheet",
        "statements of cash flow",
        "statement of cash flow",
        "statements of operations",
        "statement of operations",
        "statements of income",
        "statement of income",
        "statements of earnings",
        "statement of earnings",
        "comprehensive income",
        "balance sheets",
        "statements of financial position",
        "statement of financial position",
        "shareholders' equity",
        "stockholders' equity",
        "shareholders’ equity",
        "stockholders’ equity",
        "selected financial data",
        "segment information",
        "notes to consolidated financial statements",
    ];
    TITLES.iter().any(|t| lower.contains(t))
}

/// A name compared as words: lower case, punctuation dropped ("AMAZON.COM, INC." -> "amazon com inc").
pub fn normalize_name(s: &str) -> String {
    plain_words(s).join(" ")
}

/// Lowercase alphanumeric words of `s` (used for alias matching).
pub fn plain_words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(|w| w.to_lowercase()).collect()
}

/// Marks a list item starts with.
const BULLETS: [char; 6] = ['•', '●', '▪', '◦', '■', '➢'];

/// Characters a paragraph of lines that never end a sentence runs to before it is cut at a line.
const MAX_PARAGRAPH: usize = 1000;

/// Candidate answer units of a page: table rows / lines, and sentences of prose.
pub fn units(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut para = String::new();
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    for (i, l) in lines.iter().enumerate() {
        let l = *l;
        // a list item starts anew: bullets printed without a full stop are items, not one
        // sentence run on through the list
        if l.starts_with(BULLETS) && !para.is_empty() {
            split_sentences(&para, &mut out);
            para.clear();
        }
        let letters = l.chars().filter(|c| c.is_alphabetic()).count();
        let digits = l.chars().filter(|c| c.is_ascii_digit()).count();
        let next_starts = lines.get(i + 1).and_then(|n| n.chars().next()).is_none_or(|c| !c.is_lowercase());
        // table rows (label + numbers) and short lines stand alone; a line of prose that runs on
        // into the next ("... compared to $2,726 million in fiscal 2021, primarily" / "driven
        // by ...") is only part of its sentence, which the paragraph gives whole
        // (a line ending in a comma runs on whatever starts the next: "... were approximately
        // $154 million," / "$194 million and $210 million, respectively.")
        let runs_on = l.ends_with(',') || !next_starts && l.ends_with(|c: char| c.is_alphabetic());
        if digits >= 3 && letters >= 3 && l.len() < 200 && !runs_on {
            out.push(l.to_string());
        }
        if !para.is_empty() {
            if para.ends_with('-') {
                para.pop();
            } else {
                para.push(' ');
            }
        }
        para.push_str(l);
        // a short line (a heading, a paragraph's last) ends a paragraph when the line after it
        // starts anew (a capital, a bullet, a figure); a short line inside a sentence (a narrow
        // column's) does not: the sentence goes on and is never quoted cut mid-clause
        // (and a run of lines that never ends a sentence is cut at a line once it is long)
        if l.ends_with('.') || l.ends_with(':') || (l.len() < 40 && next_starts) {
            split_sentences(&para, &mut out);
            para.clear();
        } else if para.len() > MAX_PARAGRAPH {
            // a long paragraph's whole sentences are units now; its last, unfinished one goes on
            // into the next line (and is cut only once it is itself too long)
            let mut done = Vec::new();
            split_sentences(&para, &mut done);
            let open = match done.pop() {
                Some(last) if !last.ends_with(['.', ':']) && last.len() <= MAX_PARAGRAPH => last,
                last => {
                    done.extend(last);
                    String::new()
                }
            };
            out.extend(done);
            para = open;
        }
    }
    split_sentences(&para, &mut out);
    out.retain(|u| u.chars().filter(|c| c.is_alphanumeric()).count() >= 8);
    out.dedup();
    out
}

/// Words a sentence often starts with: after an abbreviation with inner periods ("in the U.S.
/// The company ..."), one of these starts a new sentence; any other capital goes on with a name
/// ("U.S. Cellular").
const SENTENCE_STARTS: &[&str] = &[
    "The",
    "This",
    "These",
    "That",
    "Those",
    "There",
    "We",
    "Our",
    "Us",
    "It",
    "Its",
    "In",
    "On",
    "At",
    "As",
    "For",
    "A",
    "An",
    "If",
    "However",
    "Additionally",
    "Also",
    "During",
    "Such",
    "Since",
    "While",
    "When",
    "Although",
    "Accordingly",
    "Further",
    "Furthermore",
    "Moreover",
    "Other",
    "Each",
    "All",
    "No",
    "Not",
    "See",
    "Refer",
    "Net",
    "Total",
    "Revenue",
    "Sales",
    "Management",
    "He",
    "She",
    "They",
    "Their",
    "Following",
    "Prior",
    "Previously",
];

/// Whether the period at byte `i` of `p` (followed by a space and a capital) ends an
/// abbreviation, not a sentence: a title or initial ("Mr.", "Dr.", "No.", "J. Smith"), or a word
/// of inner periods ("U.S.", "N.A.") before a capital that does not start a sentence ("U.S.
/// Cellular", but "in the U.S. The company ..." ends one).
fn abbreviation_at(p: &str, i: usize) -> bool {
    const TITLES: &[&str] =
        &["mr", "mrs", "ms", "dr", "st", "no", "nos", "messrs", "jr", "sr", "vs", "approx", "fig", "mt", "prof", "gen", "gov", "sen", "rep"];
    let word = p[..i].rsplit(|c: char| c.is_whitespace() || c == '(' || c == '"' || c == '\u{201c}').next().unwrap_or("");
    if word.is_empty() {
        return false;
    }
    let letters: Vec<char> = word.chars().filter(|c| c.is_alphabetic()).collect();
    if TITLES.contains(&word.to_lowercase().as_str()) || (letters.len() == 1 && word.len() == 1 && letters[0].is_uppercase()) {
        return true;
    }
    let next: &str = p[i + 1..].trim_start_matches([' ', '\u{a0}']).split(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
    word.contains('.') && letters.len() <= 4 && !SENTENCE_STARTS.contains(&next)
}

/// Split a paragraph into sentences: at a period (and the closing quotes after it: `."`, `.”`)
/// followed by a space and a capital or an opening quote (`“We are ...`), unless the period
/// ends an abbreviation ([`abbreviation_at`]).
fn split_sentences(p: &str, out: &mut Vec<String>) {
    const CLOSING: [char; 4] = ['"', '\u{201d}', '\u{2019}', '\''];
    let mut start = 0;
    for (i, c) in p.char_indices() {
        if c != '.' || i < start {
            continue;
        }
        let after = &p[i + 1..];
        let closed = after.trim_start_matches(CLOSING);
        let end = i + 1 + (after.len() - closed.len());
        let Some(next) = closed.strip_prefix(' ') else { continue };
        let starts = next.chars().next().is_some_and(|n| n.is_uppercase() || n == '\u{201c}' || n == '"');
        if !starts || (end == i + 1 && next.starts_with(|n: char| n.is_ascii_uppercase()) && abbreviation_at(p, i)) {
            continue;
        }
        let s = p[start..end].trim();
        if !s.is_empty() {
            out.push(s.to_string());
        }
        start = end + (closed.len() - next.len());
    }
    let s = p[start..].trim();
    if !s.is_empty() {
        out.push(s.to_string());
    }
}

/// Bytes as lower-case hex digits.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    fn texts(s: &str) -> Vec<String> {
        tokenize(s).into_iter().map(|t| t.text).collect()
    }
    #[test]
    fn keeps_financial_tokens_whole() {
        assert_eq!(texts("Revenue was $18,841 million, up 12.5% (1,234)"), ["revenue", "was", "18841", "million", "up", "12.5%", "1234"]);
        assert_eq!(texts("Form 10-K and 8-K; CET1 ratio"), ["form", "10-k", "and", "8-k", "cet1", "ratio"]);
        assert_eq!(texts("U.S. sales of AT&T and S&P 500."), ["us", "sales", "of", "at&t", "and", "s&p", "500"]);
        assert_eq!(texts("3M Company, FY2018 and FY19"), ["3m", "company", "2018", "and", "2019"]);
        assert_eq!(texts("end of sentence.Next"), ["end", "of", "sentence", "next"]);
    }
    #[test]
    fn offsets_point_at_source() {
        let s = "Net income: 5,363";
        let t = tokenize(s);
        assert_eq!(&s[t[2].start..t[2].end], "5,363");
    }
    #[test]
    fn a_line_ending_in_a_comma_is_no_unit_of_its_own() {
        let page = "Marketing, communications and advertising expenses for 2015, 2014 and 2013 were approximately $154 million,\n$194 million and $210 million, respectively.\n";
        let u = units(page);
        assert!(!u.iter().any(|s| s.ends_with("$154 million,")), "{u:?}");
        assert!(u.iter().any(|s| s.starts_with("Marketing, communications") && s.ends_with("respectively.")), "{u:?}");
    }
    #[test]
    fn a_sentence_over_two_lines_is_one_unit_and_rows_stand_alone() {
        let page = "Segment operating profit decreased 1 percent to $2,700 million in fiscal 2022 compared to $2,726 million in fiscal 2021, primarily\ndriven by higher input costs, partially offset by favorable net price realization.\nNet sales 18,992 18,127\nINTERNATIONAL SEGMENT\nNet sales increased 9 percent\nin fiscal 2022.\n";
        let u = units(page);
        assert!(u.iter().any(|s| s.starts_with("Segment operating profit") && s.ends_with("net price realization.")), "{u:?}");
        assert!(!u.iter().any(|s| s.ends_with("primarily")), "{u:?}");
        assert!(u.contains(&"Net sales 18,992 18,127".to_string()), "{u:?}");
        assert!(u.contains(&"Net sales increased 9 percent in fiscal 2022.".to_string()), "{u:?}");
        // an abbreviation does not end a sentence; a sentence after it does
        let page = "Previously, Dillon served as CEO of U.S. Cellular, the Global Chief Marketing Officer of McDonald's Corp., and held roles at PepsiCo. She received a degree.\nSales grew in the U.S. The company opened stores. Mr. J. Smith joined. Dr. Lee left.\n";
        let u = units(page);
        assert!(
            u.contains(
                &"Previously, Dillon served as CEO of U.S. Cellular, the Global Chief Marketing Officer of McDonald's Corp., and held roles at PepsiCo."
                    .to_string()
            ),
            "{u:?}"
        );
        assert!(u.contains(&"Sales grew in the U.S.".to_string()) && u.contains(&"Mr. J. Smith joined.".to_string()), "{u:?}");
        assert!(u.contains(&"Dr. Lee left.".to_string()), "{u:?}");
        // a quotation's sentences end inside its closing quotes, and one may open with a quote
        let page = "“We are proud of this milestone.” As previously announced, the Company completed the separation. “The completion positions us well,” said the CEO.\n";
        let u = units(page);
        assert_eq!(
            u,
            [
                "“We are proud of this milestone.”",
                "As previously announced, the Company completed the separation.",
                "“The completion positions us well,” said the CEO."
            ],
            "{u:?}"
        );
        // list items printed without a full stop are items of their own, each whole
        let page = "• Company reduced its share count by 191 million\n• Company secured $13.2 billion in cash proceeds and maintains 9.5%\nof equity stake in Kenvue\n• Company maintains its dividend\n";
        let u = units(page);
        assert!(u.contains(&"• Company secured $13.2 billion in cash proceeds and maintains 9.5% of equity stake in Kenvue".to_string()), "{u:?}");
        assert!(u.contains(&"• Company reduced its share count by 191 million".to_string()), "{u:?}");
        // lines that never end a sentence are cut once long
        let run_on = units(&"revenue grew by ten percent in the year\n".repeat(300));
        assert!(!run_on.is_empty() && run_on.iter().all(|s| s.len() <= MAX_PARAGRAPH + 60), "{run_on:?}");
        // a long paragraph is never cut inside a sentence (MGM's 900-character one, then "These
        // factors resulted in ..." ran past the cut)
        let first = format!("Consolidated net revenues decreased due to {}closures.", "temporary closures at our properties and restrictions, ".repeat(16));
        let wrapped = format!("{first} These factors resulted in a 77% decrease in net revenues at MGM China, a 61% decrease in net revenues at our Las Vegas Strip Resorts, and a\n45% decrease in net revenues at our Regional Operations.\n");
        let u = units(&wrapped);
        assert!(u.iter().any(|s| s.starts_with("These factors") && s.ends_with("Regional Operations.")), "{u:?}");
        assert!(u.iter().any(|s| s.starts_with("Consolidated net revenues") && s.ends_with("closures.")), "{u:?}");
    }
    #[test]
    fn headings_found() {
        let page = "Table of Contents\n3M Company and Subsidiaries\nConsolidated Statement of Cash Flows\nYears ended December 31\n(Millions) 2018 2017\nNet income 5,363 4,869\n";
        let h = heading_lines(page);
        assert!(h.iter().any(|l| l.contains("Consolidated Statement of Cash Flows")), "{h:?}");
        assert!(!h.iter().any(|l| l == "Table of Contents"));
        assert!(!h.iter().any(|l| l.contains("5,363")));
    }
}
