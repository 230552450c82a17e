//! `lens feedback`: Thumbs up (+1) or down (-1) on a logged answer

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    pub id: i64,
    #[arg(allow_hyphen_values = true)]
    pub value: i32,
    #[arg(long)]
    pub note: Option<String>,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { id, value, note } = args;
    let lib = open(&cli.library)?;
    lib.set_feedback(id, value, note.as_deref(), None)?;
    println!("feedback recorded on #{id}");
    Ok(())
}
