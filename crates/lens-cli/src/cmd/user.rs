//! `lens user`: the library's team users (`lens serve --team`): add one (its token is printed
//! once; only its hash is stored), list them, remove one (its token stops working). Kept in the
//! library's file, or in the team's PostgreSQL database with `--database`.

use crate::*;
use lens_core::log::Records;
use lens_core::users::Role;

#[derive(clap::Args)]
pub struct Args {
    /// The team's PostgreSQL database (postgres://USER@HOST:PORT/DB; default $LENS_DATABASE_URL,
    /// else the library's file)
    #[arg(long, env = "LENS_DATABASE_URL", global = true)]
    pub database: Option<String>,
    #[command(flatten)]
    pub db: crate::DbArgs,
    #[command(subcommand)]
    pub what: What,
}

#[derive(clap::Subcommand)]
pub enum What {
    /// Add a user and print its token (hand it over; it is not shown again)
    Add {
        name: String,
        /// reader (asks, exports), annotator (also labels), admin (also adds and removes filings)
        #[arg(long, default_value = "reader")]
        role: Role,
    },
    /// List the users and their roles
    List {
        #[arg(long)]
        json: bool,
    },
    /// Remove a user: its token stops working; its name stays on what it asked and labelled
    Remove { name: String },
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    match &args.database {
        Some(url) => act(&lens_pg::PgRecords::connect_with(url, &args.db.options()?)?, args.what),
        None => act(open(&cli.library)?.store(), args.what),
    }
}

fn act(records: &dyn Records, what: What) -> Result<()> {
    match what {
        What::Add { name, role } => {
            let token = records.add_user(&name, role)?;
            println!("added {name} ({role}); token (shown once): {token}");
        }
        What::List { json } => {
            let users = records.users()?;
            if json {
                println!("{}", serde_json::to_string(&users)?);
            } else if users.is_empty() {
                println!("no users in {}: the library is served to one person (`lens serve`)", records.place());
            } else {
                for u in users {
                    println!("{:<24} {:<10} added {}{}", u.name, u.role, u.created_at, u.removed_at.map(|r| format!(", removed {r}")).unwrap_or_default());
                }
            }
        }
        What::Remove { name } => {
            records.remove_user(&name)?;
            println!("removed {name}: its token no longer works");
        }
    }
    Ok(())
}
