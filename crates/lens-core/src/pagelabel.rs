//! The page number a reader sees printed on a page ("p. 41"), as opposed to its index in the
//! PDF (page 44): an auditor cites the printed one. The PDF's own page labels (its /PageLabels
//! tree, read at ingest) come first ([`label`]); else the number is read from the page's text: a footer (the
//! last line) or else a header (the first line, after a "Table of Contents" link line) that is
//! only a page number: `41`, `- 41 -`, `Page 41`, `41 | Annual Report`, `Annual Report | 41`,
//! or a roman numeral (`xii`) for front matter. A number larger than the index plus 20 is not
//! taken for one (a table's last figure, a year). Pure; tests beside.

/// The label to show for a page: the PDF's own (/PageLabels, `pdf_label`) when it defines one,
/// else the number printed on the page ([`printed`]), else none (the index is shown alone).
pub fn label(pdf_label: Option<&str>, text: &str, index: u32) -> Option<String> {
    match pdf_label.map(str::trim).filter(|l| !l.is_empty()) {
        Some(l) => Some(l.to_string()),
        None => printed(text, index),
    }
}

/// The printed page label of a page with `text`, at PDF index `index`, when it prints one.
pub fn printed(text: &str, index: u32) -> Option<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let last = lines.last().copied();
    let first = lines.iter().copied().find(|l| !l.eq_ignore_ascii_case("table of contents"));
    [last, first].into_iter().flatten().find_map(|l| label_of(l, index))
}

fn label_of(line: &str, index: u32) -> Option<String> {
    if line.chars().count() > 60 {
        return None;
    }
    let lower = line.to_lowercase();
    let core = lower.strip_prefix("page ").unwrap_or(&lower);
    // `41 | Annual Report` or `Annual Report | 41`
    let parts: Vec<&str> = core.split('|').map(str::trim).collect();
    let cands: Vec<&str> = if parts.len() == 2 { vec![parts[0], parts[1]] } else { vec![core] };
    cands.into_iter().find_map(|c| {
        let c = c.trim_matches(|ch: char| ch == '-' || ch == '–' || ch == '—' || ch.is_whitespace());
        if !c.is_empty() && c.len() <= 4 && c.chars().all(|ch| ch.is_ascii_digit()) {
            let n: u32 = c.parse().ok()?;
            return (n >= 1 && n <= index + 20).then(|| n.to_string());
        }
        if !c.is_empty() && c.len() <= 6 && c.chars().all(|ch| "ivxlc".contains(ch)) && index <= 40 {
            return Some(c.to_string());
        }
        None
    })
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
}
