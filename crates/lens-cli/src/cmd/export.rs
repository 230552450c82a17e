//! `lens export`: logged answers as a spreadsheet: each operand of a worked calculation (else
//! the quoted line) with its period, value, unit, page, box and the file's sha256

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    /// Log ids (`lens log` lists them)
    #[arg(required = true)]
    pub ids: Vec<i64>,
    /// csv (the evidence rows) or xlsx (answers and evidence, two sheets); default: the
    /// extension of --out
    #[arg(long)]
    pub format: Option<String>,
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { ids, format, out } = args;
    let format = sheet_format(format.as_deref(), &out)?;
    let api = lens_api::Api::new(lens_core::paths::library_dir(cli.library.as_deref()));
    let f = api.workpaper(&lens_api::WorkpaperArgs { ids: ids.clone(), format })?;
    std::fs::write(&out, &f.bytes).map_err(|e| lens_core::LensError::Io { path: out.clone(), source: e })?;
    println!("wrote {} ({} KB, {} answer{})", out.display(), f.bytes.len().div_ceil(1024), ids.len(), if ids.len() == 1 { "" } else { "s" });
    Ok(())
}

/// The spreadsheet format asked (`--format`), else the one `out`'s extension names.
pub fn sheet_format(format: Option<&str>, out: &Path) -> Result<lens_api::WorkpaperFormat> {
    let f = match format.map(|f| f.to_ascii_lowercase()) {
        Some(f) if f == "csv" => Some(lens_api::WorkpaperFormat::Csv),
        Some(f) if f == "xlsx" || f == "excel" => Some(lens_api::WorkpaperFormat::Xlsx),
        Some(f) => return Err(lens_core::LensError::BadInput(format!("unknown format `{f}`: csv or xlsx")).into()),
        None => lens_api::WorkpaperFormat::from_path(out).filter(|f| f.is_sheet()),
    };
    f.ok_or_else(|| lens_core::LensError::BadInput(format!("{}: name a .csv or .xlsx file, or say --format csv|xlsx", out.display())).into())
}
