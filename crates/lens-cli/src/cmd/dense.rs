//! `lens dense`: Dense (embedding) vectors for the dense and hybrid retrievers

use crate::*;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub what: DenseCmd,
}

pub fn run(cli: &Global, args: Args) -> Result<()> {
    let Args { what } = args;
    let mut lib = open(&cli.library)?;
    match what {
        DenseCmd::Build { docs, json } => {
            let emb = embedder(&lib, &cli.models)?;
            let cancel = std::sync::atomic::AtomicBool::new(false);
            let only = if docs.is_empty() { None } else { Some(docs.as_slice()) };
            let rep = lib.build_dense(&*emb, only, &cancel, &mut |p| {
                if !json {
                    println!(
                        "dense     {} ({}/{}): {} pages, {} windows in {:.1}s ({:.1} pages/s)",
                        p.doc_id,
                        p.docs_done,
                        p.docs_total,
                        p.pages,
                        p.windows,
                        p.seconds,
                        p.pages as f64 / p.seconds.max(1e-9)
                    );
                }
            })?;
            if json {
                println!("{}", serde_json::to_string(&rep)?);
            } else {
                println!(
                    "dense: {} documents ({} already done), {} pages, {} windows in {:.1}s = {:.2} pages/s (model {})",
                    rep.docs, rep.skipped_done, rep.pages, rep.windows, rep.seconds, rep.pages_per_s, rep.model
                );
            }
        }
        DenseCmd::Status { json } => {
            let st = lib.settings()?;
            let done = lib.dense_doc_keys(&st.embedder)?;
            let docs = lib.documents()?;
            let (bytes, pages) = lib.dense_size(&st.embedder)?;
            let with: Vec<&str> = docs.iter().filter(|d| done.contains(&d.key)).map(|d| d.id.as_str()).collect();
            let per_page = if pages > 0 { bytes as f64 / pages as f64 } else { 0.0 };
            if json {
                println!(
                    "{}",
                    serde_json::json!({"model": st.embedder, "documents": docs.len(), "with_vectors": with, "pages": pages, "bytes": bytes, "bytes_per_page": per_page})
                );
            } else {
                println!(
                    "model {}: {} of {} documents have vectors; {} pages, {} bytes ({:.0} bytes/page)",
                    st.embedder,
                    with.len(),
                    docs.len(),
                    pages,
                    bytes,
                    per_page
                );
            }
        }
    }
    Ok(())
}

#[derive(Subcommand)]
pub enum DenseCmd {
    /// Embed every document that has no vectors yet (resumable; per document)
    Build {
        /// Only these documents (repeatable)
        #[arg(long = "doc")]
        docs: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Which documents have vectors, and their size
    Status {
        #[arg(long)]
        json: bool,
    },
}
