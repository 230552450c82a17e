//! `lens docs`: List documents in the library

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    pub json: bool,
    /// Per document, the pages shown with a printed page label (the PDF's own page labels, else
    /// the number printed in the footer or header), and the share over the library; with
    /// --json, each page's label too
    #[arg(long)]
    pub page_labels: bool,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { json, page_labels } = args;
    let lib = open(&cli.library)?;
    let docs = lib.documents()?;
    if page_labels {
        let (mut labelled, mut total) = (0usize, 0usize);
        for d in &docs {
            let labels: Vec<Option<String>> = (1..=d.pages).map(|p| lib.store().page(&d.id, p).ok().and_then(|pg| pg.label())).collect();
            if json {
                // one line a page: what each page is labelled, for checking the reader
                for (i, l) in labels.iter().enumerate() {
                    println!("{}", serde_json::json!({ "doc": d.id, "page": i + 1, "label": l }));
                }
            }
            let n = labels.iter().filter(|l| l.is_some()).count();
            println!("{:<44} {:>5} of {:>5} pages labelled ({:.1}%)", d.id, n, d.pages, 100.0 * n as f64 / d.pages.max(1) as f64);
            labelled += n;
            total += d.pages as usize;
        }
        println!("all: {labelled} of {total} pages labelled ({:.1}%)", 100.0 * labelled as f64 / total.max(1) as f64);
        return Ok(());
    }
    if json {
        println!("{}", serde_json::to_string(&docs)?);
    } else {
        for d in docs {
            println!(
                "{:<40} {:>5} pages  {:<24} {:>6} {:<14} ocr-needed {}",
                d.id,
                d.pages,
                d.company.unwrap_or_default(),
                d.year.map(|y| y.to_string()).unwrap_or_default(),
                d.form.unwrap_or_default(),
                d.needs_ocr_pages
            );
        }
    }
    Ok(())
}
