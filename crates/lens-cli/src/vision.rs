//! `lens vision build|status`: the vision index from the command line (printing only).

use anyhow::Result;
use clap::Subcommand;
use lens_core::settings::Settings;
use lens_core::Library;
use lens_vision::library::{self, BuildOptions};
use std::sync::atomic::AtomicBool;

#[derive(Subcommand)]
pub enum VisionCmd {
    /// Embed page images for the vision index (resumable page by page; scans first)
    Build {
        /// Only these documents (repeatable), in this order
        #[arg(long = "doc")]
        docs: Vec<String>,
        /// Embed again documents already indexed with this model and edge
        #[arg(long)]
        rebuild: bool,
        /// Longest edge pages are read at (saved in the library's settings): 512 = one tile
        #[arg(long)]
        edge: Option<u32>,
        /// Pool each page's vectors x3 (saved in the library's settings)
        #[arg(long)]
        pool: Option<bool>,
        #[arg(long)]
        json: bool,
    },
    /// Which documents have a vision index, and its size
    Status {
        #[arg(long)]
        json: bool,
    },
}

pub fn run(lib: &Library, mut st: Settings, what: VisionCmd) -> Result<()> {
    match what {
        VisionCmd::Build { docs, rebuild, edge, pool, json } => {
            if edge.is_some() || pool.is_some() {
                let mut saved = lib.settings()?;
                if let Some(e) = edge {
                    saved.vision_edge = e;
                    st.vision_edge = e;
                }
                if let Some(p) = pool {
                    saved.vision_pooled = p;
                    st.vision_pooled = p;
                }
                lib.save_settings(&saved)?;
            }
            let enc = library::encoder(&st)?;
            println!(
                "vision model {} at {} px (tiles of {} px, {} vectors of {} per tile){}",
                enc.name,
                enc.edge,
                enc.tile(),
                enc.model.cfg.image_seq_len(),
                enc.dim(),
                if st.vision_pooled { ", pooled x3" } else { "" }
            );
            let opts = BuildOptions { docs: (!docs.is_empty()).then_some(docs), rebuild, pooled: st.vision_pooled };
            let mut last = String::new();
            let r = library::build(lib, &enc, &opts, &AtomicBool::new(false), &mut |p| {
                if json {
                    return;
                }
                let line = format!(
                    "  {} page {}/{} (documents {}/{}; {} pages this run, {:.1} s/page)",
                    p.doc_id,
                    p.doc_pages_done,
                    p.doc_pages,
                    p.docs_done,
                    p.docs_total,
                    p.pages,
                    if p.pages > 0 { p.seconds / p.pages as f64 } else { 0.0 }
                );
                if line != last {
                    println!("{line}");
                    last = line;
                }
            })?;
            if json {
                println!("{}", serde_json::to_string(&r)?);
            } else {
                println!(
                    "built {} documents ({} already done), {} pages embedded ({} resumed from an earlier run), {} stale files swept, {:.1} s",
                    r.docs_built, r.docs_skipped, r.pages, r.resumed_pages, r.swept_files, r.seconds
                );
            }
        }
        VisionCmd::Status { json } => {
            let cov = library::coverage(lib)?;
            if json {
                println!("{}", serde_json::to_string(&cov)?);
                return Ok(());
            }
            let done = cov.iter().filter(|c| c.published).count();
            println!(
                "vision index: {done} of {} documents (settings: model {}, edge {} px{})",
                cov.len(),
                st.vision_model,
                st.vision_edge,
                if st.vision_pooled { ", pooled" } else { "" }
            );
            for c in cov {
                let what = if c.published {
                    format!(
                        "{} pages, {} at {} px, {:.1} MB ({:.0} KB per page)",
                        c.vision_pages,
                        c.model.unwrap_or_default(),
                        c.edge.unwrap_or(0),
                        c.bytes as f64 / 1e6,
                        c.bytes as f64 / 1e3 / c.vision_pages.max(1) as f64
                    )
                } else if c.vision_pages > 0 {
                    format!("{} of {} pages embedded (resumes on the next build)", c.vision_pages, c.pages)
                } else {
                    "none".into()
                };
                println!("  {:<44} {}", c.doc, what);
            }
        }
    }
    Ok(())
}
