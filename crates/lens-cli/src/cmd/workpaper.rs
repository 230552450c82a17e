//! `lens workpaper`: answerer and feedback, as one self-contained HTML file or a PDF

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[arg(required = true)]
    pub ids: Vec<i64>,
    /// Output file; its extension (.html or .pdf) picks the format
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { ids, out } = args;
    let format = match lens_api::WorkpaperFormat::from_path(&out) {
        Some(f) => f,
        None => {
            return Err(lens_core::LensError::BadInput(format!(
                "{}: the workpaper is written as .html or .pdf (or its figures as .csv or .xlsx); name the file with one of those",
                out.display()
            ))
            .into())
        }
    };
    let api = lens_api::Api::new(lens_core::paths::library_dir(cli.library.as_deref()));
    let f = api.workpaper(&lens_api::WorkpaperArgs { ids: ids.clone(), format })?;
    std::fs::write(&out, &f.bytes).map_err(|e| lens_core::LensError::Io { path: out.clone(), source: e })?;
    println!("wrote {} ({} KB, {} answer{})", out.display(), f.bytes.len().div_ceil(1024), ids.len(), if ids.len() == 1 { "" } else { "s" });
    Ok(())
}
