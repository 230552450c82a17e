//! The page number a reader sees printed on a page ("p. 41"), as opposed to its index in the
//! PDF (page 44): an auditor cites the printed one. The PDF's own page labels (its /PageLabels
//! tree, read at ingest) come first ([`label`]); else the number is read from the page's text: a footer (the
//! last line) or else a header (the first line, after a "Table of Contents" link line) that is
//! only a page number: `41`, `- 41 -`, `Page 41`, `41 | Annual Report`, `Annual Report | 41`,
//! or a roman numeral (`xii`) for front matter. A number larger than the index plus 20 is not
//! taken for one (a table's last figure, a year). Also: a number just above or below a running
//! title's lines, a running title ending or starting with the number ("2019 FORM 10-K 3", "16
//! NIKE, INC."), "Page 3 of 15", and an exhibit's own numbering ("A-22"). Pure; tests beside.

use regex::Regex;
use std::sync::LazyLock;

/// The label to show for a page: the PDF's own (/PageLabels, `pdf_label`) when it defines one,
/// else the number printed on the page ([`printed`]), else none (the index is shown alone).
pub fn label(pdf_label: Option<&str>, text: &str, index: u32) -> Option<String> {
    match pdf_label.map(str::trim).filter(|l| !l.is_empty()) {
        Some(l) => Some(l.to_string()),
        None => printed(text, index),
    }
}

/// The printed page label of a page with `text`, at PDF index `index`, when it prints one:
/// the footer's last line, then the header's first (after a "Table of Contents" link line);
/// then a number printed just above or below a running title ("5" over "Verizon 2021 Annual
/// Report on Form 10-K", "- 51 -" over a plan's name), or under a header's title lines.
pub fn printed(text: &str, index: u32) -> Option<String> {
    // no-break spaces and runs of spaces read as one space ("Page\u{a0}38")
    let lines: Vec<String> = text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|l| !l.is_empty()).collect();
    let n = lines.len();
    let head = lines.iter().position(|l| !l.eq_ignore_ascii_case("table of contents")).unwrap_or(n);
    // the last line and the first, as always read
    let plain = [lines.last(), lines.get(head)].into_iter().flatten().find_map(|l| label_of(l, index));
    if plain.is_some() {
        return plain;
    }
    // a footer's number with only running-title lines under it, a header's with only title
    // lines above it (three lines at most each way)
    let footer = (1..3.min(n)).map(|k| n - 1 - k).filter(|&i| lines[i + 1..].iter().all(|l| running_title(l)));
    // (a header's title is in capitals: a table's label over its figure, one cell a line as
    // the text layer gives them, is not a title)
    let capitals = |l: &str| {
        let letters: Vec<char> = l.chars().filter(|c| c.is_alphabetic()).collect();
        letters.len() >= 8 && letters.iter().filter(|c| c.is_uppercase()).count() * 5 >= letters.len() * 4
    };
    let header = (head + 1..(head + 3).min(n)).filter(|&i| lines[head..i].iter().all(|l| running_title(l)) && lines[head..i].iter().any(|l| capitals(l)));
    footer.chain(header).find_map(|i| label_of(&lines[i], index))
}

/// A line of a running head or foot: words (four letters at least: a lone "ii" is a page
/// number itself), short, no figure but a year, no amount or percent.
fn running_title(l: &str) -> bool {
    l.chars().filter(|c| c.is_alphabetic()).count() >= 4
        && l.chars().count() <= 80
        && !l.contains(['$', '%'])
        && l.split_whitespace().all(|w| {
            let d = w.trim_matches(|c: char| !c.is_ascii_alphanumeric());
            !(!d.is_empty() && d.chars().all(|c| c.is_ascii_digit() || c == ',') && !(d.len() == 4 && (d.starts_with("19") || d.starts_with("20"))))
        })
}

/// The page number a running title ends or begins with: "2019 FORM 10-K 3", "Pfizer Inc. 2021
/// Form 10-K 34" (also glued to the sentence before it by the text layer), "16 NIKE, INC.".
fn in_running_title(line: &str) -> Option<&str> {
    static END: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\b(?:form 10-[kq]|annual report|quarterly report)\s+(\d{1,4}|[ivxlc]{1,6})$").expect("valid regex"));
    static START: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(\d{1,4})\s+[^\d]{0,40}\b(?:inc|corporation|company|co|plc|ltd|form 10-[kq]|annual report)\b\.?$").expect("valid regex")
    });
    END.captures(line).or_else(|| START.captures(line).filter(|_| line.chars().count() <= 60)).and_then(|c| c.get(1)).map(|m| m.as_str())
}

fn label_of(line: &str, index: u32) -> Option<String> {
    static APPENDIX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[A-Z]{1,4}-\d{1,3}(?:-\d{1,3})?$").expect("valid regex"));
    static OF: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(\d{1,4}) of \d{1,4}$").expect("valid regex"));
    // a number in a running title, however long the line (the text layer may glue it on)
    if let Some(c) = in_running_title(line) {
        return number_or_roman(&c.to_lowercase(), index, true);
    }
    if line.chars().count() > 60 {
        return None;
    }
    // an exhibit's or appendix's own numbering ("A-22", "APP-4-2"), as printed
    if APPENDIX.is_match(line) {
        return Some(line.to_string());
    }
    let lower = line.to_lowercase();
    let core = lower.strip_prefix("page ").unwrap_or(&lower);
    // "Page 3 of 15"
    let core = OF.captures(core).and_then(|c| c.get(1)).map_or(core, |m| m.as_str());
    // `41 | Annual Report` or `Annual Report | 41`
    let parts: Vec<&str> = core.split('|').map(str::trim).collect();
    let cands: Vec<&str> = if parts.len() == 2 { vec![parts[0], parts[1]] } else { vec![core] };
    cands.into_iter().find_map(|c| {
        let c = c.trim_matches(|ch: char| ch == '-' || ch == '–' || ch == '—' || ch.is_whitespace());
        number_or_roman(c, index, index <= 40)
    })
}

/// `c` as a page number: digits no larger than the index plus 20 (a table's last figure, a
/// year are not), or a roman numeral where `roman` allows one (front matter).
fn number_or_roman(c: &str, index: u32, roman: bool) -> Option<String> {
    if !c.is_empty() && c.len() <= 4 && c.chars().all(|ch| ch.is_ascii_digit()) {
        let n: u32 = c.parse().ok()?;
        return (n >= 1 && n <= index + 20).then(|| n.to_string());
    }
    if roman && !c.is_empty() && c.len() <= 6 && c.chars().all(|ch| "ivxlc".contains(ch)) {
        return Some(c.to_string());
    }
    None
}

/// "p. 41 (PDF page 44)", or "PDF page 44" when the page prints no number (or the same one).
pub fn describe(label: Option<&str>, index: u32) -> String {
    match label {
        Some(l) if l != index.to_string() => format!("p. {l} (PDF page {index})"),
        Some(_) => format!("p. {index}"),
        None => format!("PDF page {index}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pdfs_own_label_comes_first() {
        assert_eq!(label(Some("iv"), "Annual report\n12", 6).as_deref(), Some("iv"));
        assert_eq!(label(Some("  "), "Annual report\n12", 14).as_deref(), Some("12"));
        assert_eq!(label(None, "no number here", 3), None);
        assert_eq!(describe(label(Some("A-3"), "", 40).as_deref(), 40), "p. A-3 (PDF page 40)");
    }

    #[test]
    fn footers_headers_and_what_is_not_a_page_number() {
        // as financebench pages end (text extracted by pdfium)
        assert_eq!(printed("Table of Contents\nTABLE 1: SUMMARY\n...\n(d)\n41", 44).as_deref(), Some("41"));
        assert_eq!(printed("Table of Contents\n3M Company\nstatement.\n60\n", 60).as_deref(), Some("60"));
        assert_eq!(printed("Table of Contents\nsome text\n- 12 -", 14).as_deref(), Some("12"));
        assert_eq!(printed("Page 7\nRisk factors\nmore text here", 9).as_deref(), Some("7"));
        assert_eq!(printed("body\nAmerican Express | 97", 100).as_deref(), Some("97"));
        assert_eq!(printed("Contents\nbody\nxii", 14).as_deref(), Some("xii"));
        // a year or a table total is not a page number; nor is a long line
        assert_eq!(printed("Revenue\n2022", 30), None);
        assert_eq!(printed("Total\n1,577", 30), None);
        assert_eq!(printed("The accompanying notes are an integral part of these statements 12", 30), None);
        assert_eq!(printed("", 3), None);
        assert_eq!(describe(Some("41"), 44), "p. 41 (PDF page 44)");
        assert_eq!(describe(Some("60"), 60), "p. 60");
        assert_eq!(describe(None, 5), "PDF page 5");
    }

    #[test]
    fn more_footer_and_header_layouts_from_financebench() {
        // a number over a running foot (Verizon), over a plan's name (PepsiCo's exhibits)
        assert_eq!(printed("services for small businesses.\n5\nVerizon 2021 Annual Report on Form 10-K", 5).as_deref(), Some("5"));
        assert_eq!(printed("Average Monthly Earnings\n- 51 -\nPepsiCo Pension Equalization Plan – Pre-409A Program", 296).as_deref(), Some("51"));
        // running titles ending or starting with the number (Nike, Pfizer), one glued to a sentence
        assert_eq!(printed("No customer accounted for 10%\n2019 FORM 10-K 3", 5).as_deref(), Some("3"));
        assert_eq!(printed("on that brand and on us.\n16 NIKE, INC.", 20).as_deref(), Some("16"));
        assert_eq!(printed("see Note 1H. Pfizer Inc. 2021 Form 10-K 34", 40).as_deref(), Some("34"));
        assert_eq!(printed("FFDCA U.S. Federal Food, Drug and Cosmetic Act\nPfizer Inc. 2021 Form 10-K i", 3).as_deref(), Some("i"));
        // no-break spaces (CVS), "Page 3 of 15" (MGM's release), a header under its titles (Adobe)
        assert_eq!(printed("chronic disease management.\nPage\u{a0}38", 40).as_deref(), Some("38"));
        assert_eq!(printed("Page 3 of 15\nAdjusted EPS\nThe following table", 3).as_deref(), Some("3"));
        assert_eq!(printed("ADOBE SYSTEMS INCORPORATED\nNOTES TO CONSOLIDATED FINANCIAL STATEMENTS (Continued)\n72\nbody", 72).as_deref(), Some("72"));
        // an exhibit's own numbering
        assert_eq!(printed("Retirement Factors attached to this Plan as Table 1.\nAPP-4-2", 263).as_deref(), Some("APP-4-2"));
        // not page numbers: a figure over a line with figures, a table's last cells, a long line
        assert_eq!(printed("Segment income\n52\nTotal $ 1,011 $ 685", 60), None);
        assert_eq!(printed("Apparel\n4%\nEquipment 68%\nFootwear", 37), None);
        assert_eq!(printed("Slots win $ 676 $ 652 4 %\nSlots win % 9.6 % 9.6 %", 5), None);
        assert_eq!(printed("Revenue\n2022\nbody", 30), None);
        // a table of contents in an exhibit: its entries' numbers over the page's own roman one
        assert_eq!(printed("Section 6.2 Participation\n22\ni", 185), None);
        assert_eq!(printed("NOTE\n19\n—\nbody", 102), None);
    }
}
