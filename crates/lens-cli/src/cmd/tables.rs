//! `lens tables`: worked answers and rankings read

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    pub page: String,
    #[arg(long)]
    pub json: bool,
    /// Also write the tables' figures (one row each, with page, box and file sha256) as CSV
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also write the tables as printed and their figures as an Excel workbook
    #[arg(long, value_name = "FILE")]
    pub xlsx: Option<PathBuf>,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { page, json, csv, xlsx } = args;
    let lib = open(&cli.library)?;
    let p: lens_core::PageRef = page.parse()?;
    lib.check_page(&p.doc_id, p.page)?;
    let book = if csv.is_some() || xlsx.is_some() { Some(lib.tables_book(&p)?) } else { None };
    for (out, excel) in [(csv, false), (xlsx, true)] {
        let (Some(out), Some(book)) = (out, &book) else { continue };
        let bytes = lens_core::export::bytes(book, excel)?;
        std::fs::write(&out, &bytes).map_err(|e| lens_core::LensError::Io { path: out.clone(), source: e })?;
        eprintln!("wrote {} ({} rows of figures)", out.display(), book.sheets[book.figures].rows.len() - 1);
    }
    let tables = lib.page_tables(&p);
    if json {
        println!("{}", serde_json::to_string(&*tables)?);
    } else if tables.is_empty() {
        println!("{p}: no table with year or period columns");
    }
    if !json {
        for (i, t) in tables.iter().enumerate() {
            let cols: Vec<String> = t
                .columns
                .iter()
                .map(|c| {
                    let group = c.group.as_deref().map(|g| format!("{g}: ")).unwrap_or_default();
                    format!("{group}{} [{}{}]", c.header, c.year, c.months.map(|m| format!(", {m} months")).unwrap_or_default())
                })
                .collect();
            println!("table {} ({}): {}", i + 1, t.unit, cols.join(" | "));
            if !t.title.is_empty() {
                println!("  title: {}", t.title);
            }
            for r in &t.rows {
                let cells: Vec<&str> = r.cells.iter().map(|c| c.as_ref().map_or("·", |c| c.text.as_str())).collect();
                println!("  {} | {}", r.label, cells.join(" | "));
            }
        }
    }
    Ok(())
}
