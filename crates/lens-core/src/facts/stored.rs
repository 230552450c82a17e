//! A library's facts in SQLite (migration 012): written per document in one transaction, read
//! per document, and looked up by page and row for the judge.

use super::{Fact, Identity, Period, VERSION};
use crate::error::Result;
use crate::evidence::EvidenceBox;
use crate::store::{Document, Store};
use rusqlite::{params, OptionalExtension};

/// How many characters a document's stored page text has (what its facts were read from).
fn text_chars(store: &Store, key: i64) -> Result<i64> {
    Ok(store.conn().query_row("SELECT COALESCE(SUM(LENGTH(text)),0) FROM pages WHERE doc_key=?1", [key], |r| r.get(0))?)
}

/// Complete documents whose facts are missing, from an older [`VERSION`], or read from other
/// text than they have now; with the text size to record once read.
pub fn stale(store: &Store) -> Result<Vec<(Document, i64)>> {
    let mut out = Vec::new();
    for d in store.documents()? {
        let chars = text_chars(store, d.key)?;
        let built: Option<(i64, i64)> =
            store.conn().query_row("SELECT version,text_chars FROM fact_docs WHERE doc_key=?1", [d.key], |r| Ok((r.get(0)?, r.get(1)?))).optional()?;
        if built != Some((VERSION, chars)) {
            out.push((d, chars));
        }
    }
    Ok(out)
}

/// Boxes and fact places as JSON (plain data: writing it cannot fail).
fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Replace a document's facts and identities.
pub fn save(store: &mut Store, key: i64, chars: i64, facts: &[Fact], ids: &[Identity]) -> Result<()> {
    let tx = store.conn.get_mut().transaction()?;
    tx.execute("DELETE FROM facts WHERE doc_key=?1", [key])?;
    tx.execute("DELETE FROM fact_identities WHERE doc_key=?1", [key])?;
    {
        let mut st = tx.prepare_cached(
            "INSERT OR REPLACE INTO facts(doc_key,page,tbl,row,col,statement,label,concept,section,member,year,duration,months,period_end,header,\
             printed,value,unit,scale,currency,label_box,cell_box,flagged) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23)",
        )?;
        for f in facts {
            st.execute(params![
                key,
                f.page,
                f.table,
                f.row,
                f.col,
                f.statement,
                f.label,
                f.concept,
                f.section,
                f.member,
                f.period.year,
                f.period.duration,
                f.period.months,
                f.period.end,
                f.period.header,
                f.printed,
                f.value,
                f.unit,
                f.scale,
                f.currency,
                json(&f.label_box),
                json(&f.cell_box),
                f.flagged,
            ])?;
        }
        let mut st = tx.prepare_cached("INSERT INTO fact_identities(doc_key,seq,name,page,period,passed,detail,facts) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)")?;
        for (i, id) in ids.iter().enumerate() {
            st.execute(params![key, i as i64, id.name, id.page, id.period, id.passed, id.detail, json(&id.facts)])?;
        }
    }
    tx.execute("INSERT OR REPLACE INTO fact_docs(doc_key,version,text_chars,facts) VALUES(?1,?2,?3,?4)", params![key, VERSION, chars, facts.len() as i64])?;
    tx.commit()?;
    Ok(())
}

fn fact_of(r: &rusqlite::Row) -> rusqlite::Result<Fact> {
    let boxed = |i: usize| -> rusqlite::Result<EvidenceBox> {
        let s: String = r.get(i)?;
        serde_json::from_str(&s).map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e)))
    };
    Ok(Fact {
        page: r.get(0)?,
        table: r.get(1)?,
        row: r.get(2)?,
        col: r.get(3)?,
        statement: r.get(4)?,
        label: r.get(5)?,
        concept: r.get(6)?,
        section: r.get(7)?,
        member: r.get(8)?,
        period: Period { year: r.get(9)?, duration: r.get(10)?, months: r.get(11)?, end: r.get(12)?, header: r.get(13)? },
        printed: r.get(14)?,
        value: r.get(15)?,
        unit: r.get(16)?,
        scale: r.get(17)?,
        currency: r.get(18)?,
        label_box: boxed(19)?,
        cell_box: boxed(20)?,
        flagged: r.get(21)?,
    })
}

const FACT_COLS: &str =
    "page,tbl,row,col,statement,label,concept,section,member,year,duration,months,period_end,header,printed,value,unit,scale,currency,label_box,cell_box,flagged";

/// A document's facts in page, table, row, column order.
pub fn facts(store: &Store, key: i64) -> Result<Vec<Fact>> {
    let c = store.conn();
    let mut st = c.prepare_cached(&format!("SELECT {FACT_COLS} FROM facts WHERE doc_key=?1 ORDER BY page,tbl,row,col"))?;
    let v = st.query_map([key], fact_of)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(v)
}

/// A document's identities as tested.
pub fn identities(store: &Store, key: i64) -> Result<Vec<Identity>> {
    let c = store.conn();
    let mut st = c.prepare_cached("SELECT name,page,period,passed,detail,facts FROM fact_identities WHERE doc_key=?1 ORDER BY seq")?;
    let v = st
        .query_map([key], |r| {
            let ids: String = r.get(5)?;
            Ok(Identity {
                name: r.get(0)?,
                page: r.get(1)?,
                period: r.get(2)?,
                passed: r.get(3)?,
                detail: r.get(4)?,
                facts: serde_json::from_str(&ids).unwrap_or_default(),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(v)
}

/// Whether a document's facts were read (by this [`VERSION`]).
pub fn is_built(store: &Store, key: i64) -> Result<bool> {
    let v: Option<i64> = store.conn().query_row("SELECT version FROM fact_docs WHERE doc_key=?1", [key], |r| r.get(0)).optional()?;
    Ok(v == Some(VERSION))
}

/// The facts of a page inside an identity that did not hold (the judge's `identity_failed`).
pub fn flagged_on(store: &Store, key: i64, page: u32) -> Result<Vec<super::FlaggedFact>> {
    let c = store.conn();
    let mut st = c.prepare_cached("SELECT label,value,printed,flagged FROM facts WHERE doc_key=?1 AND page=?2 AND flagged IS NOT NULL ORDER BY tbl,row,col")?;
    let v = st
        .query_map(params![key, page], |r| Ok(super::FlaggedFact { label: r.get(0)?, value: r.get(1)?, printed: r.get(2)?, identity: r.get(3)? }))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(v)
}

/// The pages where a document's facts print `concept` for `year` on one of `statements` for a
/// period of one of `durations`, none of those facts flagged, each with the row label printed;
/// first page first.
pub fn pages_with(store: &Store, key: i64, concept: &str, year: i32, statements: &[&str], durations: &[&str]) -> Result<Vec<(u32, String)>> {
    let c = store.conn();
    let mut st = c.prepare_cached(
        "SELECT page,statement,duration,MIN(label) FROM facts WHERE doc_key=?1 AND concept=?2 AND year=?3 GROUP BY page,statement,duration \
         HAVING SUM(flagged IS NOT NULL)=0 ORDER BY page",
    )?;
    let rows =
        st.query_map(params![key, concept, year], |r| Ok((r.get::<_, u32>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?)))?;
    let mut out: Vec<(u32, String)> = Vec::new();
    for r in rows {
        let (page, statement, duration, label) = r?;
        if statements.contains(&statement.as_str()) && durations.contains(&duration.as_str()) && !out.iter().any(|(p, _)| *p == page) {
            out.push((page, label));
        }
    }
    Ok(out)
}

/// The row labels a document's facts print amounts under (a table's thousands, millions or
/// billions: not a count, a percent or an unscaled figure), each once with the statement and
/// period length it is most often printed under (the plan's line items the catalogue does not list:
/// `calc::printed`).
pub fn labels(store: &Store, key: i64) -> Result<Vec<(String, String, String)>> {
    let c = store.conn();
    let mut st = c.prepare_cached(
        "SELECT label,statement,duration FROM facts WHERE doc_key=?1 AND label<>'' AND unit IN ('thousands','millions','billions') \
         GROUP BY label,statement,duration ORDER BY label,COUNT(*) DESC",
    )?;
    let rows = st.query_map([key], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)))?;
    let mut out: Vec<(String, String, String)> = Vec::new();
    for r in rows {
        let r = r?;
        if out.last().is_none_or(|l| l.0 != r.0) {
            out.push(r);
        }
    }
    Ok(out)
}

/// The labels a document's facts print under a section's heading, with it: (label, section,
/// statement, duration), one row per label and section, for amounts ("Subscription" under
/// "Revenue" on an income statement).
pub fn section_labels(store: &Store, key: i64) -> Result<Vec<(String, String, String, String)>> {
    let c = store.conn();
    let mut st = c.prepare_cached(
        "SELECT label,section,statement,duration FROM facts WHERE doc_key=?1 AND label<>'' AND section IS NOT NULL AND section<>'' \
         AND unit IN ('thousands','millions','billions') GROUP BY label,section ORDER BY label,section",
    )?;
    let rows = st.query_map([key], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?)))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// A document's facts for one year (any period ending in it), in page order.
pub fn of_year(store: &Store, key: i64, year: i32) -> Result<Vec<Fact>> {
    let c = store.conn();
    let mut st = c.prepare_cached(&format!("SELECT {FACT_COLS} FROM facts WHERE doc_key=?1 AND year=?2 ORDER BY page,tbl,row,col"))?;
    let v = st.query_map(params![key, year], fact_of)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(v)
}

/// [`pages_with`] for a line item known by its printed labels (compared lowercased, as
/// [`crate::figures::catalogue::norm`] writes them) rather than by a catalogue concept.
pub fn pages_labelled(store: &Store, key: i64, labels: &[String], year: i32, statements: &[&str], durations: &[&str]) -> Result<Vec<(u32, String)>> {
    let mut out: Vec<(u32, String)> = Vec::new();
    let mut flagged: Vec<u32> = Vec::new();
    for f in of_year(store, key, year)? {
        if !labels.contains(&crate::figures::catalogue::norm(&f.label))
            || !statements.contains(&f.statement.as_str())
            || !durations.contains(&f.period.duration.as_str())
        {
            continue;
        }
        if f.flagged.is_some() {
            flagged.push(f.page);
        } else if !out.iter().any(|(p, _)| *p == f.page) {
            out.push((f.page, f.label));
        }
    }
    out.retain(|(p, _)| !flagged.contains(p));
    Ok(out)
}

/// The failed identity of the fact printed on `page` under `label` as `printed`, when there is
/// one (the judge's `identity_failed`).
pub fn flag_of(store: &Store, key: i64, page: u32, label: &str, printed: &str) -> Result<Option<String>> {
    let c = store.conn();
    let mut st = c.prepare_cached("SELECT flagged FROM facts WHERE doc_key=?1 AND page=?2 AND label=?3 AND printed=?4 AND flagged IS NOT NULL LIMIT 1")?;
    Ok(st.query_row(params![key, page, label, printed], |r| r.get(0)).optional()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::read_page;
    use crate::figures::catalogue::Catalogue;

    #[test]
    fn facts_and_identities_round_trip_and_a_flag_is_found_by_row() {
        let mut store = Store::open_in_memory().unwrap();
        let (text, boxes) = crate::figures::table::tests::page(&[
            ("Balance Sheet (In millions)", 50.0, 760.0),
            ("2018", 300.0, 740.0),
            ("2017", 400.0, 740.0),
            ("Cash", 50.0, 720.0),
            ("10", 300.0, 720.0),
            ("9", 400.0, 720.0),
            ("Receivables", 50.0, 710.0),
            ("5", 300.0, 710.0),
            ("4", 400.0, 710.0),
            ("Total current assets", 50.0, 700.0),
            ("20", 300.0, 700.0),
            ("13", 400.0, 700.0),
        ]);
        let mut facts = read_page(1, "", &text, &boxes, &Catalogue::builtin(), false);
        let ids = crate::facts::identity::test(&facts);
        crate::facts::identity::flag(&mut facts, &ids);
        save(&mut store, 7, 123, &facts, &ids).unwrap();
        assert_eq!(super::facts(&store, 7).unwrap(), facts);
        assert_eq!(identities(&store, 7).unwrap(), ids);
        assert!(is_built(&store, 7).unwrap());
        let flag = flag_of(&store, 7, 1, "Total current assets", "20").unwrap();
        assert_eq!(flag.as_deref(), Some("subtotal: Total current assets 20 ≠ 10 + 5"));
        assert_eq!(flag_of(&store, 7, 1, "Total current assets", "13").unwrap(), None);
    }
}
