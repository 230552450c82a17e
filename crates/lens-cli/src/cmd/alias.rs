//! `lens alias`: Add an alias (another name the filter should recognise) to a document

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    pub doc: String,
    pub alias: String,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { doc, alias } = args;
    let lib = open(&cli.library)?;
    let a = lib.add_alias(&doc, &alias)?;
    println!("{doc}: alias \"{a}\" added");
    Ok(())
}
