//! `lens remove`: Remove a document

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    pub doc: String,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { doc } = args;
    let mut lib = open(&cli.library)?;
    lib.remove(&doc)?;
    println!("removed {doc}");
    Ok(())
}
