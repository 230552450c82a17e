//! `lens bench`: speed and memory figures, printed beside the reference figures they are
//! judged against. Benchmarks print; they never assert on time.

use anyhow::Result;
use clap::Subcommand;
use lens_core::{eval, Library, SearchRequest};
use std::path::PathBuf;
use std::time::Instant;

/// Reference figures measured for the design we follow (issue #2), on this kind of machine.
const PYMUPDF_PAGES_PER_S: f64 = 125.0;
const RANK_BM25_P50_MS: f64 = 175.0;
const RANK_BM25_P95_MS: f64 = 400.0;

#[derive(Subcommand)]
pub enum BenchCmd {
    /// Ingest PDFs into a fresh library (a temp dir unless --library is given) and time it
    Ingest {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Locate evidence + render the page with boxes (110 DPI) for labelled questions' gold pages
    Render {
        #[arg(long)]
        labels: PathBuf,
        #[arg(long, default_value_t = 110.0)]
        dpi: f32,
    },
    /// OCR a whole image-only PDF in a fresh temp library: seconds per page and pages/s
    Ocr {
        pdf: PathBuf,
        #[arg(long, default_value_t = 300.0)]
        dpi: f32,
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Query latency over labelled questions against the current library
    Search {
        #[arg(long)]
        labels: PathBuf,
        #[arg(long, default_value_t = 5)]
        repeat: usize,
        #[arg(long)]
        no_filter: bool,
        /// bm25, dense or hybrid
        #[arg(long, default_value = "bm25")]
        retriever: String,
    },
    /// Embedding throughput (dense index build) on the pages of some documents, nothing stored
    Dense {
        #[arg(long = "doc", required = true)]
        docs: Vec<String>,
        /// At most this many pages
        #[arg(long, default_value_t = 200)]
        pages: usize,
    },
}

/// Peak resident set size of this process, in MiB (Linux: VmHWM).
pub fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<f64>().ok()))
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

pub fn run(cmd: BenchCmd, library: Option<PathBuf>, models: Option<PathBuf>) -> Result<()> {
    match cmd {
        BenchCmd::Ingest { paths } => {
            let tmp;
            let dir = match library {
                Some(d) => d,
                None => {
                    tmp = std::env::temp_dir().join(format!("lens-bench-{}", std::process::id()));
                    let _ = std::fs::remove_dir_all(&tmp);
                    tmp.clone()
                }
            };
            let mut lib = Library::open(&dir)?;
            let t0 = Instant::now();
            let (s, _) = crate::ingest_paths(&mut lib, &paths, 1024, None, false)?;
            let secs = t0.elapsed().as_secs_f64();
            let rate = s.pages as f64 / secs;
            let db = dir_size(&dir.join("lens.sqlite")) + dir_size(&dir.join("lens.sqlite-wal"));
            let idx = dir_size(&dir.join("index"));
            println!("bench ingest: {} pages from {} files in {:.2}s", s.pages, s.files, secs);
            println!("  end to end (text + char boxes + SQLite + tantivy): {:.0} pages/s", rate);
            println!("  reference: PyMuPDF text extraction alone ~{PYMUPDF_PAGES_PER_S:.0} pages/s -> ratio {:.2}x (target >= 3x)", rate / PYMUPDF_PAGES_PER_S);
            println!(
                "  storage: SQLite {:.1} MiB ({:.1} KiB/page), index {:.1} MiB",
                db as f64 / 1048576.0,
                db as f64 / 1024.0 / s.pages.max(1) as f64,
                idx as f64 / 1048576.0
            );
            println!("  peak RSS (ingest process): {:.0} MiB", peak_rss_mib());
            if library_was_temp(&dir) {
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
        BenchCmd::Render { labels, dpi } => {
            use lens_core::answer::Answerer;
            let dir = lens_core::paths::library_dir(library.as_deref());
            let lib = Library::open(&dir)?;
            let labels = eval::read_labels(&labels)?;
            let answerer = lens_core::answer::Extractive::default();
            let (mut locate_ms, mut render_ms, mut total_ms) = (Vec::new(), Vec::new(), Vec::new());
            let mut found = 0;
            for l in &labels {
                let Some((page, _)) = l.gold_pages().into_iter().next() else { continue };
                if lib.check_page(&page.doc_id, page.page).is_err() {
                    continue;
                }
                let inputs = lens_core::ask::page_inputs(&lib, std::slice::from_ref(&page))?;
                let a = answerer.answer(&l.query, &inputs)?;
                let t = Instant::now();
                let ev = lib.evidence(&page, a.quote.as_deref(), Some(&a.answer))?;
                let t_loc = t.elapsed().as_secs_f64() * 1000.0;
                let t2 = Instant::now();
                std::hint::black_box(lib.render_png(&page, dpi, &ev.boxes)?);
                let t_ren = t2.elapsed().as_secs_f64() * 1000.0;
                if !ev.boxes.is_empty() {
                    found += 1;
                }
                locate_ms.push(t_loc);
                render_ms.push(t_ren);
                total_ms.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            for v in [&mut locate_ms, &mut render_ms, &mut total_ms] {
                v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            }
            let pct = |v: &Vec<f64>| (eval::percentile(v, 50.0), eval::percentile(v, 95.0));
            println!("bench render: {} pages at {dpi} DPI ({} with evidence boxes)", total_ms.len(), found);
            println!("  locate (boxes from SQLite + match): p50 {:.2} ms  p95 {:.2} ms", pct(&locate_ms).0, pct(&locate_ms).1);
            println!("  render + draw + PNG encode: p50 {:.2} ms  p95 {:.2} ms", pct(&render_ms).0, pct(&render_ms).1);
            println!("  whole step: p50 {:.2} ms  p95 {:.2} ms  (target p95 <= 100 ms)", pct(&total_ms).0, pct(&total_ms).1);
        }
        BenchCmd::Ocr { pdf, dpi, threads } => {
            let dir = std::env::temp_dir().join(format!("lens-bench-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let mut lib = Library::open(&dir)?;
            let never = std::sync::atomic::AtomicBool::new(false);
            lens_core::ingest::ingest(&mut lib, std::slice::from_ref(&pdf), &Default::default(), &never, &mut |_| {})?;
            let mut opts = lens_core::ocr::OcrOptions { dpi, ..Default::default() };
            if let Some(t) = threads {
                opts.threads = t;
            }
            let s = lens_core::ocr::run(&mut lib, &opts, &never, &mut |_| {})?;
            let mut secs = s.page_seconds.clone();
            secs.sort_by(|a, b| a.partial_cmp(b).unwrap());
            println!("bench ocr: {} ({} pages, {} failed) at {dpi} DPI on {} threads", pdf.display(), s.pages, s.failed, opts.threads);
            println!(
                "  per page (render + Tesseract): p50 {:.2} s  p95 {:.2} s  (reference design: ~1.5 s/page on a laptop)",
                eval::percentile(&secs, 50.0),
                eval::percentile(&secs, 95.0)
            );
            println!("  whole document: {:.1} s, {:.2} pages/s", s.seconds, s.pages as f64 / s.seconds.max(1e-6));
            println!("  peak RSS: {:.0} MiB (Tesseract runs as child processes)", peak_rss_mib());
            let _ = std::fs::remove_dir_all(&dir);
        }
        BenchCmd::Search { labels, repeat, no_filter, retriever } => {
            let dir = lens_core::paths::library_dir(library.as_deref());
            let lib = Library::open(&dir)?;
            let retriever = crate::retriever(&lib, Some(&retriever), &models, true)?;
            let labels = eval::read_labels(&labels)?;
            let mut lat = Vec::new();
            let (mut filt, mut rank, mut snip) = (Vec::new(), Vec::new(), Vec::new());
            // warm-up pass
            for l in &labels {
                let mut r = SearchRequest::new(l.query.clone());
                r.filter = !no_filter;
                r.retriever = retriever;
                lib.search(&r)?;
            }
            for _ in 0..repeat.max(1) {
                for l in &labels {
                    let mut r = SearchRequest::new(l.query.clone());
                    r.filter = !no_filter;
                    r.retriever = retriever;
                    let t = Instant::now();
                    let resp = lib.search(&r)?;
                    lat.push(t.elapsed().as_secs_f64() * 1000.0);
                    filt.push(resp.filter_ms);
                    rank.push(resp.filter_ms + resp.rank_ms);
                    snip.push(resp.snippet_ms);
                }
            }
            for v in [&mut lat, &mut filt, &mut rank, &mut snip] {
                v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            }
            let (p50, p95) = (eval::percentile(&rank, 50.0), eval::percentile(&rank, 95.0));
            println!(
                "bench search: {} queries x {} over {} pages ({} mode, retriever {})",
                labels.len(),
                repeat,
                lib.num_indexed_pages(),
                if no_filter { "global" } else { "filter" },
                retriever.name()
            );
            println!(
                "  query (filter + rank{}): p50 {:.2} ms  p95 {:.2} ms  (BM25 target p95 <= 5 ms)",
                if retriever.name() == "bm25" { "" } else { " + query embedding + vectors" },
                p50,
                p95
            );
            println!("    of which document filter: p50 {:.2} ms  p95 {:.2} ms", eval::percentile(&filt, 50.0), eval::percentile(&filt, 95.0));
            println!("  snippets for 10 hits: p50 {:.2} ms  p95 {:.2} ms", eval::percentile(&snip, 50.0), eval::percentile(&snip, 95.0));
            println!("  whole search call: p50 {:.2} ms  p95 {:.2} ms", eval::percentile(&lat, 50.0), eval::percentile(&lat, 95.0));
            println!(
                "  reference rank_bm25: p50 ~{RANK_BM25_P50_MS:.0} ms, p95 ~{RANK_BM25_P95_MS:.0} ms -> {:.0}x / {:.0}x faster",
                RANK_BM25_P50_MS / p50,
                RANK_BM25_P95_MS / p95
            );
            println!("  peak RSS (search process): {:.0} MiB", peak_rss_mib());
            let pages = lib.num_indexed_pages().max(1);
            println!("  BM25 index: {} bytes = {:.0} bytes/page", dir_size(&dir.join("index")), dir_size(&dir.join("index")) as f64 / pages as f64);
            if let Some(e) = lib.embedder() {
                let (bytes, dp) = lib.store().dense_size(e.name())?;
                if dp > 0 {
                    println!("  dense vectors ({}): {} bytes over {} pages = {:.0} bytes/page", e.name(), bytes, dp, bytes as f64 / dp as f64);
                }
            }
        }
        BenchCmd::Dense { docs, pages } => {
            let dir = lens_core::paths::library_dir(library.as_deref());
            let lib = Library::open(&dir)?;
            let emb = crate::embedder(&lib, &models)?;
            let mut texts = Vec::new();
            for id in &docs {
                let d = lib.document(id)?;
                texts.extend(lib.store().page_texts_by_key(d.key)?.into_iter().map(|(_, t)| t));
            }
            texts.truncate(pages);
            let t0 = Instant::now();
            let mut windows = Vec::new();
            for t in &texts {
                windows.extend(emb.windows(t)?);
            }
            let tok_s = t0.elapsed().as_secs_f64();
            let tokens: usize = windows.iter().map(Vec::len).sum();
            let t1 = Instant::now();
            let v = emb.embed_windows(&windows)?;
            let emb_s = t1.elapsed().as_secs_f64();
            let total = tok_s + emb_s;
            println!("bench dense: {} pages, {} windows, {} tokens ({}, device {})", texts.len(), v.len(), tokens, emb.name(), lens_core::dense::device().1);
            println!("  tokenise + window: {:.2}s; embed: {:.2}s", tok_s, emb_s);
            println!("  {:.2} pages/s, {:.1} windows/s, {:.0} tokens/s", texts.len() as f64 / total, v.len() as f64 / total, tokens as f64 / total);
            println!("  peak RSS: {:.0} MiB", peak_rss_mib());
        }
    }
    Ok(())
}

fn library_was_temp(dir: &std::path::Path) -> bool {
    dir.starts_with(std::env::temp_dir()) && dir.file_name().is_some_and(|n| n.to_string_lossy().starts_with("lens-bench-"))
}

fn dir_size(p: &std::path::Path) -> u64 {
    if p.is_file() {
        return p.metadata().map(|m| m.len()).unwrap_or(0);
    }
    std::fs::read_dir(p).map(|rd| rd.filter_map(|e| e.ok()).map(|e| dir_size(&e.path())).sum()).unwrap_or(0)
}
