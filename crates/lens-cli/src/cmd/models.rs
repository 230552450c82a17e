//! `lens models`: Language models found (models folder, Hugging Face cache, or --model): name, architecture, size, quantisation, context

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub model: ModelArgs,
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { model, json } = args;
    let models_dir = match &cli.models {
        Some(m) => m.clone(),
        None => match open(&cli.library) {
            Ok(lib) => PathBuf::from(lib.settings()?.models_dir),
            Err(_) => lens_core::settings::default_models_dir(),
        },
    };
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
