//! `lens facts`: a filing's facts and the identities checked over them

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    /// The document (its id, as `lens docs` lists it)
    pub doc: String,
    /// Only the facts of one statement: balance, income, cash, equity, comprehensive, or table
    /// (note and other tables)
    #[arg(long)]
    pub statement: Option<String>,
    /// Only facts and identities for this year
    #[arg(long)]
    pub year: Option<i32>,
    #[arg(long)]
    pub json: bool,
}

fn statement_named(s: &str) -> Result<&'static str> {
    use lens_core::facts::*;
    Ok(match s {
        "balance" | "balance sheet" => BALANCE_SHEET,
        "income" | "income statement" => INCOME_STATEMENT,
        "cash" | "cash flow" => CASH_FLOW,
        "equity" => EQUITY_STATEMENT,
        "comprehensive" => COMPREHENSIVE_INCOME,
        "table" | "note" => OTHER_TABLE,
        other => {
            return Err(
                lens_core::LensError::BadInput(format!("unknown statement \"{other}\": say balance, income, cash, equity, comprehensive or table")).into()
            )
        }
    })
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let mut lib = open(&cli.library)?;
    // the library's filings not read yet (ingested before facts existed) are read first
    let json = args.json;
    lib.build_facts(&mut |p| {
        if !json {
            eprintln!("reading facts: {} ({} figures) {}/{}", p.doc_id, p.facts, p.done, p.total);
        }
    })?;
    let mut f = lib.facts(&args.doc)?;
    let keep = args.statement.as_deref().map(statement_named).transpose()?;
    f.facts.retain(|x| keep.is_none_or(|s| x.statement == s) && args.year.is_none_or(|y| x.period.year == y));
    let pages: std::collections::HashSet<u32> = f.facts.iter().map(|x| x.page).collect();
    f.identities.retain(|i| (keep.is_none() || pages.contains(&i.page)) && args.year.is_none_or(|y| i.period.contains(&y.to_string())));
    if json {
        println!("{}", serde_json::to_string(&f)?);
        return Ok(());
    }
    println!("{}: {} facts shown; identities {} held, {} did not ({} facts flagged in the filing)", f.doc_id, f.facts.len(), f.passed, f.failed, f.flagged);
    let mut last = (u32::MAX, u32::MAX);
    for x in &f.facts {
        if (x.page, x.table) != last {
            last = (x.page, x.table);
            println!(
                "\np.{} table {} ({}, {}{})",
                x.page,
                x.table + 1,
                x.statement,
                x.unit,
                x.currency.as_deref().map(|c| format!(", {c}")).unwrap_or_default()
            );
        }
        let concept = x.concept.as_deref().map(|c| format!(" [{c}]")).unwrap_or_default();
        let member = x.member.as_deref().map(|m| format!(" <{m}>")).unwrap_or_default();
        let flag = x.flagged.as_deref().map(|m| format!("  ✗ {m}")).unwrap_or_default();
        println!("  {}{concept}{member} | {} | {}{flag}", x.label, x.period.shown(), x.printed);
    }
    if !f.identities.is_empty() {
        println!("\nidentities:");
    }
    for i in &f.identities {
        println!("  {} {:<8} p.{} {}: {}", if i.passed { "✓" } else { "✗" }, i.name, i.page, i.period, i.detail);
    }
    Ok(())
}
