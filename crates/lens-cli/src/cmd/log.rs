//! `lens log`: The question log, newest first

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    #[arg(long)]
    pub json: bool,
    /// Write the whole audit trail to FILE as JSON lines: every question with who asked, the
    /// answer and the label shown, each user's feedback, and every gold-set grade with its
    /// annotator
    #[arg(long, value_name = "FILE")]
    pub export: Option<PathBuf>,
    /// The team's PostgreSQL database whose records to read (postgres://USER@HOST:PORT/DB;
    /// default $LENS_DATABASE_URL, else the library's file)
    #[arg(long, env = "LENS_DATABASE_URL")]
    pub database: Option<String>,
    #[command(flatten)]
    pub db: crate::DbArgs,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    if let Some(out) = &args.export {
        let lines = match &args.database {
            Some(url) => lens_core::audit::trail(&lens_pg::PgRecords::connect_with(url, &args.db.options()?)?)?,
            None => lens_core::audit::trail(open(&cli.library)?.store())?,
        };
        let mut text = String::new();
        for l in &lines {
            text.push_str(&serde_json::to_string(l)?);
            text.push('\n');
        }
        std::fs::write(out, text).map_err(|e| lens_core::LensError::io(out, e))?;
        let asked = lines.iter().filter(|l| l["kind"] == "asked").count();
        println!("wrote {}: {asked} questions asked, {} grades", out.display(), lines.len() - asked);
        return Ok(());
    }
    let Args { limit, json, database, .. } = args;
    if let Some(url) = database {
        let r = lens_pg::PgRecords::connect_with(&url, &args.db.options()?)?;
        return print_log(&lens_core::log::Records::question_log(&r, limit)?, json);
    }
    let lib = open(&cli.library)?;
    print_log(&lib.question_log(limit)?, json)
}

fn print_log(log: &[lens_core::log::LogEntry], json: bool) -> Result<()> {
    if json {
        for e in log {
            println!("{}", serde_json::to_string(e)?);
        }
    } else {
        for e in log {
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
