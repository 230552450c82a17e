//! Locate evidence on a page from its stored character boxes: the quote (whole, then its longest
//! matching run of words), failing that the answer's numbers in any scale; merge the matched
//! characters' boxes into one rectangle per line.

use crate::boxes::CharBox;
use serde::{Deserialize, Serialize};

named_enum!(
    /// How evidence was located: the quote, else the answer's numbers, else not at all.
    #[derive(Default)]
    pub enum FoundBy("evidence match") {
        Quote = "quote",
        Numbers = "numbers",
        /// the boxes are the operands' cells of a worked calculation
        Calculation = "calculation",
        #[default]
        None = "none",
    }
);

/// One highlighted line: rectangle in PDF points (origin bottom-left) and the text under it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceBox {
    pub l: f32,
    pub b: f32,
    pub r: f32,
    pub t: f32,
    #[serde(default)]
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Evidence {
    pub found_by: FoundBy,
    pub boxes: Vec<EvidenceBox>,
    /// The page text that was matched (verbatim, whitespace collapsed).
    pub matched: String,
}

impl Evidence {
    pub fn none() -> Evidence {
        Evidence { found_by: FoundBy::None, boxes: Vec::new(), matched: String::new() }
    }
}

/// Characters compared after normalisation: lowercase, no whitespace, no hyphens or dashes
/// (so line-break hyphenation and spacing artefacts vanish), curly quotes straightened,
/// ligatures expanded.
fn push_norm(c: char, orig: usize, out: &mut Vec<char>, map: &mut Vec<usize>) {
    let mut emit = |x: char| {
        for l in x.to_lowercase() {
            out.push(l);
            map.push(orig);
        }
    };
    match c {
        c if c.is_whitespace() => {}
        '-' | '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2212}' | '\u{00AD}' => {}
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '`' => emit('\''),
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{2033}' => emit('"'),
        '\u{FB00}' => "ff".chars().for_each(emit),
        '\u{FB01}' => "fi".chars().for_each(emit),
        '\u{FB02}' => "fl".chars().for_each(emit),
        '\u{FB03}' => "ffi".chars().for_each(emit),
        '\u{FB04}' => "ffl".chars().for_each(emit),
        c => emit(c),
    }
}

/// Normalised characters of `s` and, for each, the index of the source `char` it came from.
pub fn normalize(s: &str) -> (Vec<char>, Vec<usize>) {
    let mut out = Vec::with_capacity(s.len());
    let mut map = Vec::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        push_norm(c, i, &mut out, &mut map);
    }
    (out, map)
}

pub fn normalized_string(s: &str) -> String {
    normalize(s).0.into_iter().collect()
}

fn find(hay: &[char], needle: &[char]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    let first = needle[0];
    (0..=hay.len() - needle.len()).find(|&i| hay[i] == first && hay[i..i + needle.len()] == *needle)
}

/// What separates the pieces of a quote taken from several places of one page (a list
/// answer's sentences): each piece is located and boxed.
pub const QUOTE_GAP: &str = " … ";

/// Locate `quote` (then `answer`'s numbers) on a page. A quote in pieces ([`QUOTE_GAP`]) is
/// found when every piece is.
pub fn locate(page_text: &str, boxes: &[CharBox], quote: Option<&str>, answer: Option<&str>) -> Evidence {
    let (norm, map) = normalize(page_text);
    let chars: Vec<char> = page_text.chars().collect();
    if let Some(q) = quote.map(str::trim).filter(|q| !q.is_empty()) {
        let found: Option<Vec<Vec<usize>>> = q.split(QUOTE_GAP).map(str::trim).filter(|p| !p.is_empty()).map(|p| find_quote(&norm, &map, p)).collect();
        if let Some(mut idx) = found.map(|v| v.concat()).filter(|v| !v.is_empty()) {
            idx.sort_unstable();
            idx.dedup();
            return build(FoundBy::Quote, &idx, &chars, boxes);
        }
    }
    if let Some(a) = answer {
        let idx = find_numbers(page_text, a);
        if !idx.is_empty() {
            return build(FoundBy::Numbers, &idx, &chars, boxes);
        }
    }
    Evidence::none()
}

/// Source char indices covered by the quote, or by its longest matching run of words.
fn find_quote(norm: &[char], map: &[usize], quote: &str) -> Option<Vec<usize>> {
    let span = |start: usize, len: usize| -> Vec<usize> { (map[start]..=map[start + len - 1]).collect() };
    let (qn, _) = normalize(quote);
    if let Some(s) = find(norm, &qn) {
        return Some(span(s, qn.len()));
    }
    let words: Vec<&str> = quote.split_whitespace().take(80).collect();
    for len in (2..words.len()).rev() {
        for s in 0..=words.len() - len {
            let (wn, _) = normalize(&words[s..s + len].join(" "));
            if wn.len() < 12 {
                continue;
            }
            if let Some(p) = find(norm, &wn) {
                return Some(span(p, wn.len()));
            }
        }
    }
    None
}

/// A number written in text, with its value and the scale words after it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Num {
    pub value: f64,
    pub is_year: bool,
    /// Significant enough to match on its own (not a small bare integer).
    pub salient: bool,
}

/// Numbers in `s`: `1,577`, `$18.8 billion`, `(1,234)` (negative), `12.5%`; scale words applied.
pub fn numbers(s: &str) -> Vec<(Num, usize, usize)> {
    let toks = crate::text::tokenize(s);
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if !t.is_number {
            continue;
        }
        let raw = t.text.trim_end_matches('%');
        let Ok(mut v) = raw.parse::<f64>() else { continue };
        let src = &s[t.start..t.end];
        let before = s[..t.start].trim_end();
        let negative = before.ends_with('(') || before.ends_with("($") || before.ends_with("-$") || (before.ends_with('-') && !before.ends_with("--"));
        let is_year = !src.contains(',') && !src.contains('.') && (1900.0..=2100.0).contains(&v) && !t.text.ends_with('%');
        let mut scaled = false;
        if let Some(next) = toks.get(i + 1) {
            let m = match next.text.as_str() {
                "thousand" | "k" => 1e3,
                "million" | "millions" | "mm" | "mn" | "m" => 1e6,
                "billion" | "billions" | "bn" | "b" => 1e9,
                "trillion" => 1e12,
                _ => 1.0,
            };
            if m != 1.0 && next.start - t.end <= 2 {
                v *= m;
                scaled = true;
            }
        }
        if negative {
            v = -v;
        }
        let salient = !is_year && (src.contains(',') || src.contains('.') || t.text.ends_with('%') || scaled || v.abs() >= 100.0);
        out.push((Num { value: v, is_year, salient }, t.start, t.end));
    }
    out
}

/// Do two numbers agree within `tol` (relative) in some unit scale? Signs are ignored:
/// statements print outflows in parentheses that answers state as positive amounts.
pub fn same_number(a: f64, b: f64, tol: f64) -> bool {
    let (a, b) = (a.abs(), b.abs());
    if a == 0.0 || b == 0.0 {
        return a == b;
    }
    const SCALES: [f64; 7] = [1.0, 1e3, 1e6, 1e9, 1e-3, 1e-6, 1e-9];
    SCALES.iter().any(|s| ((a * s) - b).abs() <= tol * b.abs())
}

fn find_numbers(page_text: &str, answer: &str) -> Vec<usize> {
    let wanted: Vec<Num> = numbers(answer).into_iter().map(|x| x.0).filter(|n| n.salient).collect();
    if wanted.is_empty() {
        return Vec::new();
    }
    // char index of every byte offset
    let mut char_at = vec![0usize; page_text.len() + 1];
    let mut ci = 0;
    for (b, c) in page_text.char_indices() {
        char_at[b..b + c.len_utf8()].fill(ci);
        ci += 1;
    }
    char_at[page_text.len()] = ci;
    let mut idx = Vec::new();
    for (n, start, end) in numbers(page_text) {
        if n.is_year || !n.salient {
            continue;
        }
        if wanted.iter().any(|w| same_number(w.value, n.value, 0.005)) {
            idx.extend(char_at[start]..char_at[end]);
        }
    }
    idx
}

/// Merge the boxes of the given source chars into one rectangle per line.
fn build(found_by: FoundBy, idx: &[usize], chars: &[char], boxes: &[CharBox]) -> Evidence {
    let mut out: Vec<EvidenceBox> = Vec::new();
    let mut matched = String::new();
    let mut prev: Option<usize> = None;
    for &i in idx {
        let Some(b) = boxes.get(i) else { continue };
        let c = chars.get(i).copied().unwrap_or(' ');
        let gap = prev.is_some_and(|p| i > p + 1);
        if gap && !matched.ends_with(' ') {
            matched.push(' ');
        }
        matched.push(if c.is_whitespace() { ' ' } else { c });
        prev = Some(i);
        // whitespace and glyph-less characters never contribute area (some PDFs give spaces
        // degenerate boxes)
        if b.is_empty() || c.is_whitespace() || b.height() < 0.5 {
            if let Some(last) = out.last_mut() {
                if c == ' ' {
                    last.text.push(' ');
                }
            }
            continue;
        }
        let same_line = out.last().is_some_and(|l| {
            let mid = (b.b + b.t) / 2.0;
            let h = (l.t - l.b).max(1.0);
            mid > l.b - 0.15 * h && mid < l.t + 0.15 * h && b.l >= l.l - 2.0
        });
        if same_line && !gap {
            let l = out.last_mut().unwrap();
            l.l = l.l.min(b.l);
            l.r = l.r.max(b.r);
            l.b = l.b.min(b.b);
            l.t = l.t.max(b.t);
            l.text.push(c);
        } else {
            out.push(EvidenceBox { l: b.l, b: b.b, r: b.r, t: b.t, text: c.to_string() });
        }
    }
    for b in &mut out {
        b.text = b.text.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    let matched = matched.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.is_empty() {
        return Evidence { found_by: FoundBy::None, boxes: out, matched };
    }
    Evidence { found_by, boxes: out, matched }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn normalisation_folds_typography() {
        assert_eq!(normalized_string("The Company’s long-\nterm “ﬁnancing”"), "thecompany'slongterm\"financing\"");
    }
    #[test]
    fn numbers_with_scales_and_signs() {
        let v: Vec<f64> = numbers("Capex was $1,577 million; cash (1,234); margin 12.5%; in 2018; $18.8 billion").iter().map(|x| x.0.value).collect();
        assert_eq!(v, vec![1_577e6, -1234.0, 12.5, 2018.0, 18.8e9]);
        assert!(same_number(18_841.0, 18.841e9, 0.005));
        assert!(same_number(18.8e9, 18_841.0 * 1e6, 0.005));
        assert!(!same_number(1577.0, 1578.0 * 1.01, 0.005));
    }

    /// A page of three lines, each character 6 units wide, lines 20 units apart.
    fn page() -> (String, Vec<CharBox>) {
        let text = "We acquired Abiomed in December.\nSales rose 5% on volume.\nWe also acquired Momenta in October.";
        let (mut x, mut y) = (0.0f32, 100.0f32);
        let boxes = text
            .chars()
            .map(|c| {
                if c == '\n' {
                    let b = CharBox { l: x, b: y, r: x, t: y + 10.0 };
                    x = 0.0;
                    y -= 20.0;
                    return b;
                }
                let b = CharBox { l: x, b: y, r: x + 6.0, t: y + 10.0 };
                x += 6.0;
                b
            })
            .collect();
        (text.to_string(), boxes)
    }

    #[test]
    fn a_quote_in_pieces_boxes_each_piece_and_nothing_between() {
        let (text, boxes) = page();
        let q = format!("We acquired Abiomed in December.{QUOTE_GAP}We also acquired Momenta in October.");
        let ev = locate(&text, &boxes, Some(&q), None);
        assert_eq!(ev.found_by, FoundBy::Quote);
        assert_eq!(ev.boxes.len(), 2, "{:?}", ev.boxes);
        assert!(ev.boxes.iter().all(|b| b.b != 80.0), "the line between is not boxed: {:?}", ev.boxes);
        // a piece that is not on the page: the quote is not found
        let q = format!("We acquired Abiomed in December.{QUOTE_GAP}We acquired Seagen.");
        assert_eq!(locate(&text, &boxes, Some(&q), None).found_by, FoundBy::None);
    }
}
