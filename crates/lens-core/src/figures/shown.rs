//! A statement row as a reader wants it in an answer: every figure with the period it is for
//! and its unit ("Total current assets — FY2019: $16,525 million; FY2018: $15,134 million"),
//! instead of the row as printed ("Total current assets 16,525 15,134"), where nobody can tell
//! which figure is which year. Pure; tests beside.

use crate::figures::ratio::{grouped, Ratio};
use crate::figures::table::{Column, Row, Table};

/// The row of `tables` that `line` (an answer's quoted line) prints: its label begins the line
/// and every figure of the row is in it, in order. `None` when no row is that line.
pub fn row_of<'a>(tables: &'a [Table], line: &str) -> Option<(&'a Table, &'a Row)> {
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    let line = squash(line);
    let digits = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
    tables.iter().filter(|t| t.columns.len() >= 2).find_map(|t| {
        let r = t.rows.iter().find(|r| {
            let label = squash(&r.label);
            let Some(rest) = (label.len() >= 3).then(|| line.strip_prefix(&label)).flatten() else { return false };
            let cells: Vec<String> = r.cells.iter().flatten().map(|c| digits(&c.text)).filter(|d| !d.is_empty()).collect();
            // the figures printed after the label are the row's, the same count in the same order
            let printed: Vec<String> = rest.split_whitespace().map(digits).filter(|d| !d.is_empty()).collect();
            cells.len() >= 2 && printed == cells
        })?;
        Some((t, r))
    })
}

/// The period a column is for, as an answer names it: "FY2019", a balance-sheet date as
/// printed ("May 31, 2019"), "3 months of FY2019" (the calculator's words for a quarter's
/// column), with the sub-column's head when the period has several ("FY2019 (% of revenue)").
pub fn period_name(c: &Column) -> String {
    let header = c.header.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower = header.to_lowercase();
    let base = match c.months {
        Some(m) if m != 12 => format!("{m} months of FY{}", c.year),
        _ if crate::figures::table::MONTHS.iter().any(|m| lower.contains(&m[..3])) && header.len() <= 24 => {
            header.trim_end_matches(|ch: char| !ch.is_alphanumeric()).to_string()
        }
        _ => format!("FY{}", c.year),
    };
    match c.part.as_deref().map(|p| p.trim_start_matches(&*header).trim()).filter(|p| !p.is_empty()) {
        Some(part) => format!("{base} ({part})"),
        None => base,
    }
}

/// The unit word of a table's scale: "thousand", "million", "billion", or none.
fn scale_word(scale: Ratio) -> Option<&'static str> {
    [(1_000i64, "thousand"), (1_000_000, "million"), (1_000_000_000, "billion")].into_iter().find(|(n, _)| scale == Ratio::int(*n)).map(|(_, w)| w)
}

/// One figure of `row` in `t`, with its unit: "$16,525 million", "-$1,577 million", "$2.48" (a
/// per-share row, never scaled), "1,245 million" (shares, or a page that prints no dollar
/// sign: `money` false), "23.5%" (a rate), or the figure as printed when its table states no
/// unit.
pub fn figure(t: &Table, row: &Row, col: usize, money: bool) -> Option<String> {
    let cell = row.cells.get(col)?.as_ref()?;
    let printed = cell.text.trim();
    if printed.ends_with('%') || t.columns.get(col).is_some_and(Column::is_rate) {
        let v = grouped(&cell.value.to_string());
        return Some(format!("{v}%"));
    }
    let label = row.label.to_lowercase();
    // a row of rates whose cells print no % ("Effective income tax rate 30.4 30.3"): a rate,
    // never an amount in the table's unit
    let label_t = label.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '%');
    if label_t.ends_with(" rate")
        || label.contains("tax rate")
        || label.contains("percent")
        || label.contains('%')
        || label.ends_with("margin")
        || label.starts_with("return on")
    {
        return Some(format!("{}%", grouped(&cell.value.to_string())));
    }
    // a ratio, a turnover or a coverage is a plain number, in no currency or unit
    if ["ratio", "turnover", "coverage"].iter().any(|w| label.split(|c: char| !c.is_alphanumeric()).any(|x| x == *w)) {
        return Some(grouped(&cell.value.to_string()));
    }
    // a count of shares names them ("Weighted-average shares used to compute basic net income
    // per share" is a number of shares, not an amount per share)
    let shares = label.split(|c: char| !c.is_alphanumeric()).any(|w| w == "shares");
    let per_share =
        !shares && (label.contains("per share") || label.contains("per common share") || label.contains("per diluted") || label.contains("per basic"));
    let money = money && !shares;
    let v = grouped(&cell.value.to_string());
    let (sign, v) = match v.strip_prefix('-') {
        Some(pos) => ("-", pos.to_string()),
        None => ("", v),
    };
    let dollar = if money { "$" } else { "" };
    let unit = if per_share { None } else { scale_word(t.scale) };
    Some(match unit {
        Some(w) => format!("{sign}{dollar}{v} {w}"),
        None => format!("{sign}{dollar}{v}"),
    })
}

/// The columns of `t` in which `row` prints a figure, in the table's order.
pub fn filled_columns<'a>(t: &'a Table, row: &'a Row) -> impl Iterator<Item = usize> + 'a {
    (0..t.columns.len()).filter(|&i| row.cells.get(i).is_some_and(Option::is_some))
}

/// `row` with each figure named by its period ([`period_name`], [`figure`]): "Total current
/// assets — FY2019: $16,525 million; FY2018: $15,134 million". The years in `first` (those the
/// question asks about) lead; the others follow in the table's order. `money`: the page prints
/// its amounts in dollars (a `$` on it).
pub fn row_with_periods(t: &Table, row: &Row, first: &[i32], money: bool) -> String {
    let mut cols: Vec<usize> = filled_columns(t, row).collect();
    cols.sort_by_key(|&i| !first.contains(&t.columns[i].year));
    let parts: Vec<String> = cols.iter().filter_map(|&i| figure(t, row, i, money).map(|f| format!("{}: {f}", period_name(&t.columns[i])))).collect();
    format!("{} — {}", row.label, parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables of a page laid out from rows of (text, x) cells, one row every 14 pt.
    fn table_of(lines: &[&[(&str, f32)]]) -> Vec<Table> {
        let cells: Vec<(&str, f32, f32)> = lines.iter().enumerate().flat_map(|(i, l)| l.iter().map(move |(t, x)| (*t, *x, 740.0 - 14.0 * i as f32))).collect();
        let (text, boxes) = crate::figures::table::tests::page(&cells);
        crate::figures::table::tables(&text, &boxes)
    }

    #[test]
    fn a_balance_sheet_row_names_its_years_and_unit() {
        let tables = table_of(&[
            &[("NIKE, INC. CONSOLIDATED BALANCE SHEETS", 50.0)],
            &[("(In millions)", 50.0)],
            &[("2019", 400.0), ("2018", 480.0)],
            &[("Cash and equivalents", 50.0), ("$", 390.0), ("4,466", 400.0), ("$", 470.0), ("4,249", 480.0)],
            &[("Total current assets", 50.0), ("16,525", 400.0), ("15,134", 480.0)],
            &[("Accrued liabilities", 50.0), ("(1,577)", 395.0), ("(1,200)", 475.0)],
        ]);
        let (t, r) = row_of(&tables, "Total current assets 16,525 15,134").expect("the row of the line");
        assert_eq!(r.label, "Total current assets");
        assert_eq!(row_with_periods(t, r, &[], true), "Total current assets — FY2019: $16,525 million; FY2018: $15,134 million");
        // the year asked leads
        assert_eq!(row_with_periods(t, r, &[2018], true), "Total current assets — FY2018: $15,134 million; FY2019: $16,525 million");
        let (t, r) = row_of(&tables, "Accrued liabilities (1,577) (1,200)").unwrap();
        assert_eq!(row_with_periods(t, r, &[], true), "Accrued liabilities — FY2019: -$1,577 million; FY2018: -$1,200 million");
        // a line that is not a row of the table, or prints other figures, is none
        assert!(row_of(&tables, "Total current assets were 16,525 at year end").is_none());
        assert!(row_of(&tables, "Total current assets 16,525 14,000").is_none());
    }

    #[test]
    fn per_share_rows_shares_and_tables_without_a_unit() {
        let tables = table_of(&[
            &[("(In millions, except per share data)", 50.0)],
            &[("2019", 400.0), ("2018", 480.0)],
            &[("Revenues", 50.0), ("$", 390.0), ("39,117", 400.0), ("$", 470.0), ("36,397", 480.0)],
            &[("Diluted earnings per common share", 50.0), ("2.49", 400.0), ("1.17", 480.0)],
            &[("Weighted average common shares outstanding", 50.0), ("1,618.4", 400.0), ("1,659.1", 480.0)],
            &[("Shares used in per share amounts", 50.0), ("443,126", 400.0), ("424,999", 480.0)],
            &[("Return on invested capital", 50.0), ("22.2", 400.0), ("21.3", 480.0)],
            &[("Current ratio", 50.0), ("1.4", 400.0), ("1.9", 480.0)],
        ]);
        let (t, r) = row_of(&tables, "Shares used in per share amounts 443,126 424,999").unwrap();
        assert_eq!(row_with_periods(t, r, &[], true), "Shares used in per share amounts — FY2019: 443,126 million; FY2018: 424,999 million");
        let (t, r) = row_of(&tables, "Return on invested capital 22.2 21.3").unwrap();
        assert_eq!(row_with_periods(t, r, &[], true), "Return on invested capital — FY2019: 22.2%; FY2018: 21.3%");
        let (t, r) = row_of(&tables, "Current ratio 1.4 1.9").unwrap();
        assert_eq!(row_with_periods(t, r, &[], true), "Current ratio — FY2019: 1.4; FY2018: 1.9");
        let (t, r) = row_of(&tables, "Diluted earnings per common share 2.49 1.17").unwrap();
        assert_eq!(row_with_periods(t, r, &[], true), "Diluted earnings per common share — FY2019: $2.49; FY2018: $1.17");
        let (t, r) = row_of(&tables, "Weighted average common shares outstanding 1,618.4 1,659.1").unwrap();
        assert_eq!(row_with_periods(t, r, &[], true), "Weighted average common shares outstanding — FY2019: 1,618.4 million; FY2018: 1,659.1 million");
        // a rate row printed without % is a rate (seen: "Effective income tax rate — FY2018:
        // $30.4 million"); an "interest rate swap" row is an amount
        let mut rate = r.clone();
        rate.label = "Effective income tax rate".into();
        assert!(row_with_periods(t, &rate, &[], true).starts_with("Effective income tax rate — FY2019: 1,618.4%"), "{}", row_with_periods(t, &rate, &[], true));
        rate.label = "Interest rate swap contracts".into();
        assert!(row_with_periods(t, &rate, &[], true).contains("$1,618.4 million"), "{}", row_with_periods(t, &rate, &[], true));
        // no unit line: the figures as printed, still with their years
        let bare = table_of(&[&[("2019", 400.0), ("2018", 480.0)], &[("Employees", 50.0), ("76,700", 400.0), ("73,100", 480.0)]]);
        let (t, r) = row_of(&bare, "Employees 76,700 73,100").unwrap();
        assert_eq!(row_with_periods(t, r, &[], false), "Employees — FY2019: 76,700; FY2018: 73,100");
    }
}
