//! `lens ablate`: Paired bootstrap 95% CIs of runs against the first

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[arg(required = true, num_args = 2..)]
    pub runs: Vec<String>,
    #[arg(long, default_value = "ndcg5")]
    pub metric: String,
    #[arg(long, default_value = "runs")]
    pub runs_dir: PathBuf,
    #[arg(long)]
    pub json: bool,
}

pub fn run(_cli: &Global, args: Args) -> Result<()> {
    let Args { runs, metric, runs_dir, json } = args;
    let load = |r: &str| -> Result<HashMap<String, f64>> {
        let p = if Path::new(r).is_file() { PathBuf::from(r) } else { runs_dir.join(r).join("retrieval.jsonl") };
        let rows = eval::read_rows(&p).with_context(|| format!("run `{r}`"))?;
        rows.iter().map(|row| Ok((row.id.clone(), eval::metric_of(&row.m, &metric)?))).collect()
    };
    let base = load(&runs[0])?;
    let mut out = Vec::new();
    println!("{metric}: each run against `{}` (paired bootstrap, 1000 resamples, seed 42)", runs[0]);
    for r in &runs[1..] {
        let c = eval::paired_bootstrap(r, &base, &load(r)?, 1000, 42);
        println!(
            "  {:<32} n={:<4} base {:.3} -> {:.3}  delta {:+.3}  95% CI [{:+.3}, {:+.3}]  {}",
            c.run, c.n, c.base_mean, c.run_mean, c.delta, c.ci_low, c.ci_high, c.verdict
        );
        out.push(c);
    }
    if json {
        println!("{}", serde_json::to_string(&out)?);
    }
    Ok(())
}
