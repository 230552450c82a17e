//! Who holds an office: "Who is the CEO of Pfizer?", "Who was Boeing's chief financial officer in
//! 2022?". A filing names its officers in two fixed layouts: a signature or certification block
//! (the name on one line, the office on the next: "Albert Bourla / Chairman and Chief Executive
//! Officer") and the table of executive officers ("Jeffrey P. Bezos 54 President, Chief Executive
//! Officer, and Chairman of the Board"). The answer is the name, with the position as printed,
//! and those lines as the quote. An office of a part of the company ("Chief Financial Officer of
//! Boeing Commercial Airplanes", "CEO Amazon Web Services") is another office.

use crate::figures::catalogue::norm;

/// Offices a question may ask the holder of: the name shown, then the ways it is written.
const OFFICES: &[(&str, &[&str])] = &[
    ("chief executive officer", &["chief executive officer", "ceo"]),
    ("chief financial officer", &["chief financial officer", "cfo"]),
    ("chief operating officer", &["chief operating officer", "coo"]),
    ("chief accounting officer", &["chief accounting officer", "principal accounting officer"]),
    ("general counsel", &["general counsel"]),
    ("chairman of the board", &["chairman of the board", "chairman", "chair of the board", "chairperson", "chairwoman"]),
    ("controller", &["controller"]),
    ("treasurer", &["treasurer"]),
];

/// Words every part of a printed position holds one of (so "President, Commercial Airplanes"
/// is a division's head, not the company's president).
const OFFICE_WORDS: &[&str] = &[
    "officer",
    "president",
    "chairman",
    "chair",
    "chairperson",
    "chairwoman",
    "counsel",
    "secretary",
    "controller",
    "treasurer",
    "director",
    "ceo",
    "cfo",
    "coo",
];

/// The office a "who" question asks the holder of: its index in [`OFFICES`].
pub fn office_asked(question: &str) -> Option<usize> {
    let q = norm(question);
    let words: Vec<&str> = q.split(|c: char| !c.is_alphanumeric() && c != '\'').filter(|w| !w.is_empty()).collect();
    if words.first() != Some(&"who") {
        return None;
    }
    let text = format!(" {} ", words.join(" "));
    // the longest way of writing an office the question holds ("chairman of the board" over
    // "chairman")
    OFFICES
        .iter()
        .enumerate()
        .flat_map(|(i, (_, ways))| ways.iter().map(move |w| (i, *w)))
        .filter(|(_, w)| text.contains(&format!(" {w} ")))
        .max_by_key(|(_, w)| w.len())
        .map(|(i, _)| i)
}

/// The office's name as shown.
pub fn office_name(i: usize) -> &'static str {
    OFFICES[i].0
}

/// The parts of a printed position ("President, Chief Executive Officer, and Chairman of the
/// Board" -> president, chief executive officer, chairman of the board), each an office, else
/// `None`.
fn parts(position: &str) -> Option<Vec<String>> {
    let p = norm(position).replace(" and ", ", ").replace('&', ",");
    let parts: Vec<String> = p.split([',', ';']).map(|s| s.trim().trim_start_matches("and ").trim().to_string()).filter(|s| !s.is_empty()).collect();
    let office_like = |s: &str| s.split_whitespace().any(|w| OFFICE_WORDS.contains(&w));
    (!parts.is_empty() && parts.iter().all(|s| office_like(s))).then_some(parts)
}

/// Whether a printed position holds the office: one of its parts is written as the office is.
fn holds(position: &str, office: usize) -> bool {
    parts(position).is_some_and(|ps| ps.iter().any(|p| OFFICES[office].1.contains(&p.as_str())))
}

/// Whether a line is a person's name alone: two to five words, each starting with a capital,
/// letters, periods, hyphens and apostrophes only, not all in capitals (a heading).
fn is_name(line: &str) -> bool {
    let w: Vec<&str> = line.split_whitespace().collect();
    (2..=5).contains(&w.len())
        && w.iter().all(|t| t.starts_with(|c: char| c.is_uppercase()) && t.chars().all(|c| c.is_alphabetic() || matches!(c, '.' | '-' | '\'' | ',')))
        && line.chars().any(|c| c.is_lowercase())
        && !w.iter().any(|t| OFFICE_WORDS.contains(&norm(t).trim_end_matches(',')) || ["Inc.", "Company", "Corporation", "Board", "Report"].contains(t))
}

/// A holder found: the name, the position as printed, the lines quoted and the page's index.
#[derive(Debug, Clone, PartialEq)]
pub struct Holder {
    pub name: String,
    pub position: String,
    pub quote: Vec<String>,
    pub page: usize,
}

/// The holder of the office on the pages read (in their order): a name line above a position
/// line that holds it, or a row of the executive officers' table (name, age, position).
pub fn holder(office: usize, pages: &[&str]) -> Option<Holder> {
    for (pi, text) in pages.iter().enumerate() {
        let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        for (i, line) in lines.iter().enumerate() {
            // a signature or certification block
            if i > 0 && is_name(lines[i - 1]) && !line.chars().any(|c| c.is_ascii_digit()) && holds(line, office) {
                return Some(Holder {
                    name: lines[i - 1].to_string(),
                    position: line.to_string(),
                    quote: vec![lines[i - 1].to_string(), line.to_string()],
                    page: pi,
                });
            }
            // a row of the executive officers' table printed over two lines: the name, then
            // "64 Executive Vice President and Chief Financial Officer since August 2021. ..."
            if i > 0 && is_name(lines[i - 1]) {
                let w: Vec<&str> = line.split_whitespace().collect();
                if w.len() > 1 && w[0].len() == 2 && w[0].chars().all(|c| c.is_ascii_digit()) {
                    let rest = w[1..].join(" ");
                    let cut = [" since ", ". ", " from "].iter().filter_map(|m| rest.find(m)).min().unwrap_or(rest.len());
                    let position = rest[..cut].trim_end_matches('.').to_string();
                    if holds(&position, office) {
                        return Some(Holder { name: lines[i - 1].to_string(), position, quote: vec![lines[i - 1].to_string(), line.to_string()], page: pi });
                    }
                }
            }
            // a row of the executive officers' table: "Name 54 Position"
            let w: Vec<&str> = line.split_whitespace().collect();
            if let Some(age) = w.iter().position(|t| t.len() == 2 && t.chars().all(|c| c.is_ascii_digit())) {
                let name = w[..age].join(" ");
                // the position held now: a table with the positions of the past five years
                // goes on after it from a year ("Executive Chairman of the Board 2018 Chairman
                // of the Board, President and Chief Executive Officer, 2012-2018")
                let rest = &w[age + 1..];
                let now = rest.iter().position(|t| t.len() >= 4 && t[..4].chars().all(|c| c.is_ascii_digit())).unwrap_or(rest.len());
                let position = rest[..now].join(" ");
                if is_name(&name) && !position.is_empty() && holds(&position, office) {
                    return Some(Holder { name, position, quote: vec![line.to_string()], page: pi });
                }
            }
        }
    }
    None
}

/// For a "who" question about an office: whether the quote names its holder (a name and a
/// position holding the office, laid out as [`holder`] reads them; the quote's pieces are
/// separated by [`crate::evidence::QUOTE_GAP`]) and the answer says that name. `None` when the
/// question asks no office's holder.
pub fn quote_holds(question: &str, quote: Option<&str>, answer: &str) -> Option<bool> {
    let office = office_asked(question)?;
    let Some(q) = quote else { return Some(false) };
    let lines = q.replace(crate::evidence::QUOTE_GAP, "\n");
    Some(holder(office, &[lines.as_str()]).is_some_and(|h| answer.contains(&h.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_who_question_names_the_office_it_asks_the_holder_of() {
        assert_eq!(office_asked("Who is the CEO of Pfizer?").map(office_name), Some("chief executive officer"));
        assert_eq!(office_asked("Who was Boeing's chief financial officer in 2022?").map(office_name), Some("chief financial officer"));
        assert_eq!(office_asked("who is the chairman of the board at Amazon").map(office_name), Some("chairman of the board"));
        assert_eq!(office_asked("What did the CEO say about margins?"), None, "not a who question");
        assert_eq!(office_asked("Who are Boeing's primary customers?"), None, "no office");
    }

    #[test]
    fn the_holder_is_read_from_a_signature_block_or_the_officers_table() {
        let cert = "EXHIBIT 32.1\nCertification by the Chief Executive Officer\n/s/ ALBERT BOURLA\nAlbert Bourla\nChairman and Chief Executive Officer\nFebruary 24, 2022";
        let h = holder(0, &[cert]).unwrap();
        assert_eq!((h.name.as_str(), h.position.as_str()), ("Albert Bourla", "Chairman and Chief Executive Officer"));
        assert_eq!(holder(5, &[cert]).unwrap().name, "Albert Bourla", "the chairman too");
        assert_eq!(holder(1, &[cert]), None, "no chief financial officer signs it");
        let table = "Name Age Position\nJeffrey P. Bezos 54 President, Chief Executive Officer, and Chairman of the Board\nAndrew R. Jassy 50 CEO Amazon Web Services\nBrian T. Olsavsky 54 Senior Vice President and Chief Financial Officer";
        assert_eq!(holder(0, &["no officers here", table]).map(|h| (h.name, h.page)), Some(("Jeffrey P. Bezos".into(), 1)));
        assert_eq!(holder(1, &[table]).unwrap().name, "Brian T. Olsavsky");
        // a division's officer is not the company's
        let division = "Stephanie F. Pope\nChief Financial Officer of Boeing Commercial Airplanes\nJane Doe 51 President, Commercial Airplanes";
        assert_eq!(holder(1, &[division]), None);
        assert_eq!(holder(0, &["Andrew R. Jassy 50 CEO Amazon Web Services"]), None);
        let boeing = "Name Age Principal Occupation\nGregory L. Hyslop\n64 Chief Engineer and Executive Vice President, Engineering, Test & Technology since December\nBrian J. West\n54 Executive Vice President and Chief Financial Officer since August 2021. Mr. West";
        assert_eq!(
            holder(1, &[boeing]).map(|h| (h.name, h.position)),
            Some(("Brian J. West".into(), "Executive Vice President and Chief Financial Officer".into()))
        );
        assert_eq!(holder(0, &[boeing]), None);
        // the position held now, not those of the past five years after it
        let past = "Inge. G. Thulin 65 Executive Chairman of the Board 2018 Chairman of the Board, President and Chief Executive Officer, 2012-2018\nMichael F. Roman 59 Chief Executive Officer 2018 Chief Operating Officer 2017-2018";
        assert_eq!(holder(0, &[past]).map(|h| (h.name, h.position)), Some(("Michael F. Roman".into(), "Chief Executive Officer".into())));
    }

    #[test]
    fn a_quote_holds_the_office_when_it_names_the_holder_the_answer_says() {
        let q = "Who is the CEO of Pfizer?";
        let quote = "Albert Bourla … Chairman and Chief Executive Officer";
        assert_eq!(quote_holds(q, Some(quote), "Albert Bourla (Chairman and Chief Executive Officer)"), Some(true));
        assert_eq!(quote_holds(q, Some(quote), "Frank D'Amelio"), Some(false), "another name than the quote's");
        assert_eq!(quote_holds(q, Some("and Chief Executive Officer of Pfizer Biopharmaceuticals from 2016 to 2018;"), "and Chief ..."), Some(false));
        assert_eq!(quote_holds("Who are Pfizer's customers?", Some(quote), "Albert Bourla"), None);
    }
}
