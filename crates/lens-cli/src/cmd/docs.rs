//! `lens docs`: List documents in the library

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { json } = args;
    let lib = open(&cli.library)?;
    let docs = lib.documents()?;
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
