//! `lens labels ...`: gold sets from the command line (printing only; `lens_core::labels` does
//! the work).

use anyhow::{Context, Result};
use clap::Subcommand;
use lens_core::labels::{self, jsonl};
use lens_core::labelstore::LabelStore;
use lens_core::Library;
use std::io::Write;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum LabelsCmd {
    /// Import a JSONL label file (the eval format) into a set; all lines or none
    Import {
        file: PathBuf,
        #[arg(long)]
        set: String,
        /// Record the grades under this annotator (default: "imported")
        #[arg(long)]
        annotator: Option<String>,
    },
    /// Write a set as JSONL in the eval format (`lens eval --labels FILE` reads it)
    Export {
        set: String,
        #[arg(long)]
        out: PathBuf,
    },
    /// List the sets
    List {
        #[arg(long)]
        json: bool,
    },
    /// Agreement between annotators of a set (Cohen's kappa on page grades, answer agreement)
    Agreement {
        set: String,
        #[arg(long)]
        json: bool,
    },
}

fn pct(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.3}")).unwrap_or_else(|| "n/a".into())
}

/// Run a labels command on the sets of `store` (the library's file or the team's database); gold
/// pages are checked against the library `lib`.
pub fn run(lib: &Library, store: &dyn LabelStore, what: LabelsCmd) -> Result<()> {
    match what {
        LabelsCmd::Import { file, set, annotator } => {
            let text = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
            let lines = jsonl::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            let r = labels::import(lib, store, &set, &lines, annotator.as_deref())?;
            let n = |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
            println!("set `{}`: {} added, {} updated, {} recorded", r.set, n(r.added, "question", "questions"), r.updated, n(r.grades, "grade", "grades"));
            if !r.missing.is_empty() {
                println!("{} gold pages are not in this library (kept; add their documents to score them):", r.missing.len());
                for m in r.missing.iter().take(20) {
                    println!("  {m}");
                }
                if r.missing.len() > 20 {
                    println!("  ... and {} more", r.missing.len() - 20);
                }
            }
        }
        LabelsCmd::Export { set, out } => {
            let lines = labels::export(store, &set)?;
            let mut f = std::io::BufWriter::new(std::fs::File::create(&out).with_context(|| format!("writing {}", out.display()))?);
            for l in &lines {
                writeln!(f, "{l}")?;
            }
            f.flush()?;
            println!("wrote {} questions of `{}` to {}", lines.len(), set.trim(), out.display());
        }
        LabelsCmd::List { json } => {
            let sets = labels::sets(store)?;
            if json {
                println!("{}", serde_json::to_string(&sets)?);
            } else if sets.is_empty() {
                println!("no label sets (`lens labels import FILE --set NAME`, or the Label view in the app)");
            } else {
                for s in sets {
                    println!(
                        "{:<24} {:>4} questions, {:>4} with gold pages  annotators: {}",
                        s.name,
                        s.questions,
                        s.with_gold,
                        if s.annotators.is_empty() { "imported".into() } else { s.annotators.join(", ") }
                    );
                }
            }
        }
        LabelsCmd::Agreement { set, json } => {
            let a = labels::agreement(store, &set)?;
            if json {
                println!("{}", serde_json::to_string(&a)?);
                return Ok(());
            }
            println!("set `{}`: annotators {}", a.set, a.annotators.join(", "));
            if a.pairs.is_empty() {
                println!("  one annotator only: nothing to compare");
            }
            for p in &a.pairs {
                println!(
                    "  {} vs {}: {} pages graded by both, same grade {:.3}, kappa {}, weighted kappa {}; {} questions answered by both, answers agree {}",
                    p.a,
                    p.b,
                    p.pages,
                    p.observed,
                    pct(p.kappa),
                    pct(p.weighted_kappa),
                    p.answered,
                    pct(p.answers_agree)
                );
            }
            println!("  {} disagreements to resolve", a.disagreements.len());
            for d in &a.disagreements {
                match &d.page {
                    Some(page) => println!("    {} {}: {}", d.qid, page, d.grades.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")),
                    None => println!("    {} answer: {}", d.qid, d.answers.iter().map(|(k, v)| format!("{k}: {v:?}")).collect::<Vec<_>>().join(" / ")),
                }
            }
        }
    }
    Ok(())
}
