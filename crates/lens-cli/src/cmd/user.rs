//! `lens user`: the library's team users (`lens serve --team`): add one (its token is printed
//! once; only its hash is stored), list them, remove one (its token stops working).

use crate::*;
use lens_core::users::Role;

#[derive(clap::Subcommand)]
pub enum Args {
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
    let lib = open(&cli.library)?;
    match args {
        Args::Add { name, role } => {
            let token = lib.add_user(&name, role)?;
            println!("added {name} ({role}); token (shown once): {token}");
        }
        Args::List { json } => {
            let users = lib.users()?;
            if json {
                println!("{}", serde_json::to_string(&users)?);
            } else if users.is_empty() {
                println!("no users: the library is served to one person (`lens serve`)");
            } else {
                for u in users {
                    println!("{:<24} {:<10} added {}{}", u.name, u.role, u.created_at, u.removed_at.map(|r| format!(", removed {r}")).unwrap_or_default());
                }
            }
        }
        Args::Remove { name } => {
            lib.remove_user(&name)?;
            println!("removed {name}: its token no longer works");
        }
    }
    Ok(())
}
