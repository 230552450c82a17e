//! `lens user`: the library's team users (`lens serve --team`): add one (its token is printed
//! once; only its hash is stored), list them, remove one (its token stops working). Kept in the
//! library's file, or in the team's PostgreSQL database with `--database`.

use crate::*;
use lens_core::log::Records;
use lens_core::users::{utc_now, Expiry, Role, User, TOKEN_DAYS};

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
        #[command(flatten)]
        ends: Ends,
    },
    /// A new token for a user (printed once); the old one stops working at once
    Token {
        name: String,
        #[command(flatten)]
        ends: Ends,
    },
    /// List the users and their roles
    List {
        #[arg(long)]
        json: bool,
    },
    /// Remove a user: its token stops working; its name stays on what it asked and labelled
    Remove { name: String },
}

/// When a token handed out stops working.
#[derive(clap::Args)]
pub struct Ends {
    /// Days the token works (default 180)
    #[arg(long, conflicts_with_all = ["until", "never"])]
    days: Option<u32>,
    /// The day (YYYY-MM-DD, UTC) the token stops working
    #[arg(long, conflicts_with = "never")]
    until: Option<String>,
    /// The token never stops working (a service account)
    #[arg(long)]
    never: bool,
}

impl Ends {
    fn expiry(self) -> Expiry {
        match (self.days, self.until, self.never) {
            (_, _, true) => Expiry::Never,
            (_, Some(day), _) => Expiry::On(day),
            (days, None, false) => Expiry::Days(days.unwrap_or(TOKEN_DAYS)),
        }
    }
}

/// "until 2027-06-04T09:30:00Z", "ended 2000-01-01T00:00:00Z", or "no end".
fn ends_text(u: &User, now: &str) -> String {
    match &u.token_expires_at {
        Some(e) if u.expired_at(now) => format!("token ended {e}"),
        Some(e) => format!("token until {e}"),
        None => "token without end".into(),
    }
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    match &args.database {
        Some(url) => act(&lens_pg::PgRecords::connect_with(url, &args.db.options()?)?, args.what),
        None => act(open(&cli.library)?.store(), args.what),
    }
}

fn act(records: &dyn Records, what: What) -> Result<()> {
    match what {
        What::Add { name, role, ends } => {
            let token = records.add_user(&name, role, &ends.expiry())?;
            let u = records.users()?.into_iter().find(|u| u.name == name);
            let until = u.map(|u| format!(", {}", ends_text(&u, &utc_now()))).unwrap_or_default();
            println!("added {name} ({role}{until}); token (shown once): {token}");
        }
        What::Token { name, ends } => {
            let token = records.new_user_token(&name, &ends.expiry())?;
            let u = records.users()?.into_iter().find(|u| u.name == name);
            let until = u.map(|u| format!(" ({})", ends_text(&u, &utc_now()))).unwrap_or_default();
            println!("new token for {name}{until}; the old one no longer works; token (shown once): {token}");
        }
        What::List { json } => {
            let users = records.users()?;
            if json {
                println!("{}", serde_json::to_string(&users)?);
            } else if users.is_empty() {
                println!("no users in {}: the library is served to one person (`lens serve`)", records.place());
            } else {
                for u in users {
                    let state = match &u.removed_at {
                        Some(r) => format!("removed {r}"),
                        None => ends_text(&u, &utc_now()),
                    };
                    println!("{:<24} {:<10} added {}, {state}", u.name, u.role, u.created_at);
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
