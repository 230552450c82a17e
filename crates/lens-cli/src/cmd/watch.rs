//! `lens watch`: Watched folders: new/changed PDFs are ingested, deleted ones removed

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub what: WatchCmd,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { what } = args;
    let api = lens_api::Api::new(lens_core::paths::library_dir(cli.library.as_deref()));
    match what {
        WatchCmd::Add { folder } => println!("watching {}", api.add_watch(&folder)?),
        WatchCmd::Remove { folder } => {
            if api.remove_watch(&folder)? {
                println!("no longer watching {folder}");
            } else {
                println!("{folder} was not watched");
            }
        }
        WatchCmd::List => {
            for w in api.watches()? {
                println!("{w}");
            }
        }
        WatchCmd::Run => {
            let folders = api.watches()?;
            if folders.is_empty() {
                return Err(lens_core::LensError::BadInput("no watched folders: add one with `lens watch add DIR`".into()).into());
            }
            println!("watching {} (Ctrl-C to stop)", folders.join(", "));
            api.follow_watched(std::sync::Arc::new(|e| println!("{}", serde_json::to_string(&e).unwrap())))?;
            loop {
                std::thread::park();
            }
        }
    }
    Ok(())
}

#[derive(Subcommand)]
pub enum WatchCmd {
    /// Add a folder to the watch list (kept in the library)
    Add { folder: PathBuf },
    /// Remove a folder from the watch list
    Remove { folder: String },
    /// List watched folders
    List,
    /// Follow the watched folders until interrupted
    Run,
}
