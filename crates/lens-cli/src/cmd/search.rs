//! `lens search`: Ranked pages for a question

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    pub query: String,
    /// Search only these documents (repeatable)
    #[arg(long = "doc")]
    pub docs: Vec<String>,
    #[arg(long, default_value_t = 10)]
    pub k: usize,
    /// Do not restrict to the companies/years/forms the question names
    #[arg(long)]
    pub no_filter: bool,
    /// bm25, dense or hybrid (default: the library's setting)
    #[arg(long)]
    pub retriever: Option<String>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { query, docs, k, no_filter, retriever: rflag, json } = args;
    let lib = open(&cli.library)?;
    let mut req = SearchRequest::new(query);
    req.retriever = retriever(&lib, rflag.as_deref(), &cli.models, false)?;
    req.docs = docs;
    req.k = k;
    req.filter = !no_filter;
    let resp = lib.search(&req)?;
    if json {
        println!("{}", serde_json::to_string(&resp)?);
    } else {
        for n in &resp.notes {
            println!("note: {n}");
        }
        if let Some(f) = &resp.filter {
            println!("filter: companies {:?} years {:?} forms {:?} -> {:?}", f.companies, f.years, f.forms, f.groups);
        }
        for h in &resp.hits {
            println!("{:>2}. {}#{}  score {:.2}\n    {}", h.rank, h.doc_id, h.page, h.score, h.snippet);
        }
        if resp.hits.is_empty() {
            println!("no matching pages");
        }
        println!("({:.1} ms)", resp.elapsed_ms);
    }
    Ok(())
}
