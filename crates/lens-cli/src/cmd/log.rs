//! `lens log`: The question log, newest first

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { limit, json } = args;
    let lib = open(&cli.library)?;
    let log = lib.question_log(limit)?;
    if json {
        for e in &log {
            println!("{}", serde_json::to_string(e)?);
        }
    } else {
        for e in &log {
            let fb = match e.feedback {
                Some(1) => " [right]",
                Some(-1) => " [wrong]",
                _ => "",
            };
            println!("#{} {} [{}] {}\n    -> {}{}", e.id, e.time, e.answer.answerer, e.question, e.answer.answer, fb);
        }
    }
    Ok(())
}
