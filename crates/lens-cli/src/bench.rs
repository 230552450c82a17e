//! `lens bench`: speed and memory figures, printed beside the reference figures they are
//! judged against. Benchmarks print; they never assert on time.

use anyhow::{Context, Result};
use clap::Subcommand;
use lens_core::dense::TextEmbedder;
use lens_core::{eval, Library, SearchRequest};
use std::path::{Path, PathBuf};
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
    /// Load test of `lens serve` on this library: CLIENTS ask and search labelled questions and
    /// grade pages of a gold set over HTTP while one client ingests the PDFs of a folder one by
    /// one, for SECONDS (use a copy of a library: the PDFs are added to it)
    Serve {
        #[arg(long)]
        labels: PathBuf,
        #[arg(long, default_value_t = 8)]
        clients: usize,
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// A folder of PDFs to ingest during the run
        #[arg(long)]
        ingest: Option<PathBuf>,
        /// Another `lens` binary: its `serve` is loaded the same way first, each server on its own
        /// copy of the library, and the throughputs are compared
        #[arg(long)]
        against: Option<PathBuf>,
        /// The retriever each ask names (default: the library's setting)
        #[arg(long)]
        retriever: Option<String>,
        /// Log the asks to this PostgreSQL database (postgres://…) instead of the library's file
        #[arg(long)]
        database: Option<String>,
        /// Serve as a team (`serve --team`): the clients call as a team user, whose token each
        /// call checks against the records (the library's file, or the database)
        #[arg(long)]
        team: bool,
        /// With --against: load the two servers in turn this many times (ABBA), both kept
        /// running, and print each round's ratio and their median
        #[arg(long, default_value_t = 1)]
        rounds: usize,
    },
    /// Language-model speed: prefill and decode tokens/s, first token, peak RSS, on a prompt of
    /// filing text; with --python, the transformers reference (CPU, f32, and bf16 under autocast
    /// where the CPU has AMX or AVX-512 BF16) on the same tokens; with
    /// --llama-cpp, llama.cpp on the same GGUF
    Llm {
        #[arg(long)]
        model: PathBuf,
        #[arg(long, default_value_t = 2000)]
        prompt_tokens: usize,
        #[arg(long, default_value_t = 32)]
        new_tokens: usize,
        /// 0: the default thread count
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// A Python with torch + transformers + gguf: runs scripts/llm_reference.py on the same tokens
        #[arg(long)]
        python: Option<PathBuf>,
        /// A Python with llama-cpp-python: runs scripts/llama_cpp_reference.py (llama.cpp on the
        /// same GGUF, tokens and threads)
        #[arg(long)]
        llama_cpp: Option<PathBuf>,
        /// cpu (this crate's kernels), cuda or metal (the device-generic pass; a build with the feature)
        #[arg(long, default_value = "cpu")]
        device: String,
    },
    /// MaxSim over a 2,942-page multivector index (1,044,410 x 128 f16, memory-mapped) with a
    /// 20-token query, and over the same pooled x3; with --python, numpy on the same vectors
    Maxsim {
        #[arg(long, default_value_t = 30)]
        runs: usize,
        #[arg(long)]
        json: bool,
        /// A Python with numpy: runs scripts/maxsim_reference.py on the same vectors
        #[arg(long)]
        python: Option<PathBuf>,
        /// cpu (the CPU kernels), or cuda / metal: MaxSim from candle's ops on that device too
        #[arg(long, default_value = "cpu")]
        device: String,
    },
    /// ColModernVBERT page and query embedding at the real size with random weights: seconds
    /// per page at each --edge; with --python, PyTorch (transformers) on the same shapes
    Vision {
        #[arg(long = "edge", default_values_t = [512usize, 1024])]
        edges: Vec<usize>,
        #[arg(long, default_value_t = 2)]
        runs: usize,
        /// A Python with torch + transformers: runs scripts/vision_reference.py speed
        #[arg(long)]
        python: Option<PathBuf>,
        /// cpu (the CPU kernels), or cuda / metal: the device-generic pass on that device
        #[arg(long, default_value = "cpu")]
        device: String,
    },
    /// Embedding throughput (dense index build) on the pages of some documents, nothing stored
    Dense {
        #[arg(long = "doc", required = true)]
        docs: Vec<String>,
        /// At most this many pages
        #[arg(long, default_value_t = 200)]
        pages: usize,
        /// A Python with torch + transformers: embed the same windows with PyTorch (f32 and
        /// bf16) beside lens's bf16 and f32 paths, and print the largest vector differences
        #[arg(long)]
        python: Option<PathBuf>,
    },
}

/// Peak resident set size of this process, in MiB (Linux: VmHWM).
pub fn peak_rss_mib() -> f64 {
    peak_rss_at("/proc/self/status")
}

/// Peak RSS (MiB) from a `/proc/…/status` file's `VmHWM` line; NaN where there is none.
fn peak_rss_at(status: &str) -> f64 {
    std::fs::read_to_string(status)
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<f64>().ok()))
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

/// Text for the speed prompt: a filing's cash-flow discussion, repeated to length.
const FILING_TEXT: &str = "Cash flows from operating activities were $6,439 million in 2018 compared with $6,240 million in 2017. \
Purchases of property, plant and equipment (PP&E) were $1,577 million, and proceeds from sale of PP&E and other assets were $262 million. \
The Company's net debt position increased, reflecting commercial paper issuance and long-term debt of $13,411 million. \
Working capital (current assets less current liabilities) was $3,677 million at December 31, 2018.\n";

/// A reference run beside lens: its label, its script under scripts/, and the Python to run it.
type Reference = (&'static str, &'static str, Option<PathBuf>);

fn bench_llm(model: &Path, prompt_tokens: usize, new_tokens: usize, threads: usize, refs: &[Reference], device: lens_llm::DeviceChoice) -> Result<()> {
    let threads = if threads == 0 { lens_llm::default_threads() } else { threads };
    let chosen = lens_llm::device::select(device)?;
    let lm = lens_llm::LanguageModel::load_on(model, None, threads, Some(&chosen))?;
    let runs_on = match lm.model.gpu_name() {
        Some(g) => format!("{g} (candle, {})", lm.model.gpu_form().unwrap_or_default()),
        None => format!("{}, {threads} threads", lens_llm::blocks::kernels_summary()),
    };
    println!(
        "bench llm: {} ({}), {:.0} MB of weights, loaded in {:.1} s; {runs_on}",
        lm.name(),
        lm.model.cfg.arch.name(),
        lm.model.weight_bytes() as f64 / 1e6,
        lm.load_s,
    );
    let mut ids = Vec::new();
    let unit = lm.encode(FILING_TEXT)?;
    while ids.len() < prompt_tokens {
        ids.extend_from_slice(&unit);
    }
    ids.truncate(prompt_tokens);
    let on_gpu = lm.model.gpu_name().is_some();
    if on_gpu {
        // one untimed pass first: the device's kernels load on their first use (the reference
        // on the GPU warms up the same way)
        lm.model.generate(&ids[..ids.len().min(16)], 1, &[], &mut || true, &mut |_| true)?;
    }
    let (_, st) = lm.model.generate(&ids, new_tokens, &[], &mut || true, &mut |_| true)?;
    let rss = peak_rss_mib();
    println!(
        "  {:<18} prefill {:>7.1} tok/s  decode {:>6.1} tok/s  first token {:>6.2} s  peak RSS {:>6.0} MiB",
        format!("lens ({})", chosen.name),
        st.prefill_tps(),
        st.decode_tps(),
        st.prefill_s,
        rss
    );
    if let Some(g) = lm.model.gpu_name() {
        // the same weights on the CPU kernels: how far the GPU's logits and tokens agree
        let cpu = lens_llm::LanguageModel::load(model, None, threads)?;
        let head = &ids[..ids.len().min(256)];
        let a = lens_llm::model::agreement(&lm.model, &cpu.model, head, 16)?;
        println!(
            "  {g} vs CPU kernels on a {}-token prompt: last logits within {:.4} ({:.2}% of the largest, {:.3}); {} of {} greedy tokens the same",
            head.len(),
            a.max_diff,
            100.0 * a.max_diff / a.scale.max(1e-9),
            a.scale,
            a.greedy_same,
            a.greedy
        );
    }
    let mut ids_file = None;
    for (label, script, py) in refs {
        let Some(py) = py else { continue };
        let script = crate::reference::script(script);
        let ids_path: &PathBuf = ids_file.get_or_insert_with(|| std::env::temp_dir().join(format!("lens-bench-ids-{}.json", std::process::id())));
        std::fs::write(ids_path, serde_json::to_string(&ids)?)?;
        let mut cmd = std::process::Command::new(py);
        cmd.arg(&script).arg("speed").arg(model).arg(ids_path).arg(new_tokens.to_string()).arg(threads.to_string());
        if on_gpu && script.ends_with("llm_reference.py") {
            // transformers on the same GPU, in bf16 as the folder pass holds its matrices
            cmd.env("LENS_REF_DEVICE", "cuda");
        }
        let out = cmd.output()?;
        if !out.status.success() {
            let _ = std::fs::remove_file(ids_path);
            anyhow::bail!("the {label} run ({}) failed: {}", script.display(), String::from_utf8_lossy(&out.stderr));
        }
        let v: serde_json::Value = serde_json::from_slice(out.stdout.split(|b| *b == b'\n').rfind(|l| !l.is_empty()).unwrap_or(b"{}"))?;
        let f = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
        let label = match v["device"].as_str() {
            Some(d) => format!("transformers ({}, {d})", v["precision"].as_str().unwrap_or("?")),
            None => label.to_string(),
        };
        println!(
            "  {label:<18} prefill {:>7.1} tok/s  decode {:>6.1} tok/s  first token {:>6.2} s  peak RSS {:>6.0} MiB",
            f("prefill_tps"),
            f("decode_tps"),
            f("prefill_s"),
            f("peak_rss_mib")
        );
        println!("  ratio lens / {label}: prefill {:.2}x, decode {:.2}x", st.prefill_tps() / f("prefill_tps"), st.decode_tps() / f("decode_tps"));
        // transformers again in bf16 (torch.autocast) where the CPU has a bf16 matrix unit
        if let (Some(unit), Some(b)) = (v["bf16_unit"].as_str(), v.get("bf16")) {
            let g = |k: &str| b[k].as_f64().unwrap_or(f64::NAN);
            let name = format!("{} (bf16, {unit})", label.trim_end_matches(" (f32)"));
            println!("  {name:<18} prefill {:>7.1} tok/s  decode {:>6.1} tok/s  first token {:>6.2} s", g("prefill_tps"), g("decode_tps"), g("prefill_s"));
            println!("  ratio lens / {name}: prefill {:.2}x, decode {:.2}x", st.prefill_tps() / g("prefill_tps"), st.decode_tps() / g("decode_tps"));
        } else if script.ends_with("llm_reference.py") && !on_gpu {
            println!("  (no bf16 run of {label}: this CPU has no AMX or AVX-512 BF16)");
        }
    }
    if let Some(p) = ids_file {
        let _ = std::fs::remove_file(p);
    }
    Ok(())
}

pub fn run(cmd: BenchCmd, library: Option<PathBuf>, models: Option<PathBuf>) -> Result<()> {
    match cmd {
        BenchCmd::Vision { edges, runs, python, device } => crate::bench_vision::run(&edges, runs, python.as_deref(), device.parse()?)?,
        BenchCmd::Maxsim { runs, json, python, device } => crate::bench_maxsim::run(runs, json, python.as_deref(), device.parse()?)?,
        BenchCmd::Llm { model, prompt_tokens, new_tokens, threads, python, llama_cpp, device } => {
            let refs = [("transformers (f32)", "llm_reference.py", python), ("llama.cpp", "llama_cpp_reference.py", llama_cpp)];
            bench_llm(&model, prompt_tokens, new_tokens, threads, &refs, device.parse()?)?
        }
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
                let a = answerer.answer(&lib.read_question(&l.query), &inputs)?;
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
                let (bytes, dp) = lib.dense_size(e.name())?;
                if dp > 0 {
                    println!("  dense vectors ({}): {} bytes over {} pages = {:.0} bytes/page", e.name(), bytes, dp, bytes as f64 / dp as f64);
                }
            }
        }
        BenchCmd::Serve { labels, clients, seconds, ingest, against, retriever, database, team, rounds } => {
            load_test(library, &labels, clients, seconds, ingest, against, retriever, database, team, rounds)?
        }
        BenchCmd::Dense { docs, pages, python } => {
            let dir = lens_core::paths::library_dir(library.as_deref());
            let lib = Library::open(&dir)?;
            let st = crate::settings(&lib, &models)?;
            let model_dir = Path::new(&st.models_dir).join(&st.embedder);
            let emb = lens_ml::minilm::Embedder::load(&model_dir)?;
            let mut texts = Vec::new();
            for id in &docs {
                let d = lib.document(id)?;
                texts.extend(lib.page_texts(d.key)?.into_iter().map(|(_, t)| t));
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
            println!(
                "bench dense: {} pages, {} windows, {} tokens ({}, device {}, {} threads, linear layers in {})",
                texts.len(),
                v.len(),
                tokens,
                emb.name(),
                emb.device(),
                rayon::current_num_threads(),
                emb.precision()
            );
            println!("  tokenise + window: {:.2}s; embed: {:.2}s", tok_s, emb_s);
            println!("  {:.2} pages/s, {:.1} windows/s, {:.0} tokens/s", texts.len() as f64 / total, v.len() as f64 / total, tokens as f64 / total);
            println!("  peak RSS: {:.0} MiB", peak_rss_mib());
            if let Some(py) = python {
                dense_beside_pytorch(&py, &model_dir, &windows, &v, emb_s, texts.len())?;
            }
        }
    }
    Ok(())
}

/// `lens bench dense --python`: lens's f32 path and PyTorch (f32 and bf16) on the same windows,
/// seconds and pages/s side by side, and the largest component difference between each pair of
/// vector sets that matters (lens bf16 and lens f32 against PyTorch f32, PyTorch bf16 against
/// PyTorch f32 for scale).
fn dense_beside_pytorch(py: &Path, model_dir: &Path, windows: &[Vec<u32>], lens_bf16: &[Vec<f32>], lens_s: f64, pages: usize) -> Result<()> {
    let f32_emb = lens_ml::minilm::Embedder::load_with(model_dir, None)?;
    let t = Instant::now();
    let lens_f32 = f32_emb.embed_windows(windows)?;
    let lens_f32_s = t.elapsed().as_secs_f64();
    let tmp = tempfile::tempdir()?;
    let wj = tmp.path().join("windows.json");
    std::fs::write(&wj, serde_json::to_vec(windows)?)?;
    let prefix = tmp.path().join("torch");
    let script = crate::reference::script("dense_reference.py");
    let o =
        std::process::Command::new(py).arg(&script).arg("speed").arg(model_dir).arg(&wj).arg(&prefix).arg(rayon::current_num_threads().to_string()).output()?;
    if !o.status.success() {
        anyhow::bail!("the PyTorch reference failed: {}", String::from_utf8_lossy(&o.stderr));
    }
    let r: serde_json::Value = serde_json::from_slice(o.stdout.split(|b| *b == b'\n').rfind(|l| !l.is_empty()).unwrap_or(b"{}"))?;
    let read = |name: &str| -> Result<Vec<f32>> {
        let b = std::fs::read(tmp.path().join(format!("torch.{name}.bin")))?;
        Ok(b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    };
    let (t32, t16) = (read("f32")?, read("bf16")?);
    let dim = lens_bf16.first().map(Vec::len).unwrap_or(0);
    let worst = |a: &mut dyn Iterator<Item = f32>, b: &[f32]| a.zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
    let cos_min = |a: &[Vec<f32>], b: &[f32]| {
        a.iter().zip(b.chunks_exact(dim.max(1))).map(|(x, y)| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>()).fold(1f32, f32::min)
    };
    let (pt32, pt16) = (r["f32_s"].as_f64().unwrap_or(f64::NAN), r["bf16_s"].as_f64().unwrap_or(f64::NAN));
    let ps = |s: f64| pages as f64 / s;
    println!(
        "  beside PyTorch {} (transformers BertModel, sdpa attention, batches of 32 padded windows, {} threads), embedding only:",
        r["torch"].as_str().unwrap_or("?"),
        r["threads"]
    );
    println!(
        "    bf16: lens {lens_s:.2} s ({:.1} pages/s), PyTorch {pt16:.2} s ({:.1} pages/s): lens at {:.2}x PyTorch's pages/s",
        ps(lens_s),
        ps(pt16),
        pt16 / lens_s
    );
    println!(
        "    f32:  lens {lens_f32_s:.2} s ({:.1} pages/s), PyTorch {pt32:.2} s ({:.1} pages/s): lens at {:.2}x PyTorch's pages/s",
        ps(lens_f32_s),
        ps(pt32),
        pt32 / lens_f32_s
    );
    println!(
        "    largest difference from PyTorch f32's vectors: lens bf16 {:.2e} (lowest cosine {:.5}), lens f32 {:.2e}, PyTorch bf16 {:.2e} (lowest cosine {:.5})",
        worst(&mut lens_bf16.iter().flatten().copied(), &t32),
        cos_min(lens_bf16, &t32),
        worst(&mut lens_f32.iter().flatten().copied(), &t32),
        worst(&mut t16.iter().copied(), &t32),
        cos_min(&t16.chunks_exact(dim.max(1)).map(<[f32]>::to_vec).collect::<Vec<_>>(), &t32),
    );
    Ok(())
}

/// One HTTP/1.1 POST of JSON to the local server: (status, body, milliseconds).
fn post(port: u16, token: &str, path: &str, body: &str) -> (u16, String, f64) {
    use std::io::{Read, Write};
    let t = Instant::now();
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return (0, String::new(), 0.0) };
    let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(120)));
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nx-lens-token: {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    if s.write_all(req.as_bytes()).is_err() {
        return (0, String::new(), 0.0);
    }
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, text.split("\r\n\r\n").nth(1).unwrap_or("").to_string(), t.elapsed().as_secs_f64() * 1000.0)
}

/// What one kind of request saw in a load run: each call's (status, ms, error body).
#[derive(Default)]
struct Calls(Vec<(u16, f64, String)>);

impl Calls {
    fn ok_ms(&self) -> Vec<f64> {
        let mut ms: Vec<f64> = self.0.iter().filter(|a| a.0 == 200).map(|a| a.1).collect();
        ms.sort_by(|a, b| a.total_cmp(b));
        ms
    }
    fn errors(&self) -> impl Iterator<Item = &(u16, f64, String)> {
        self.0.iter().filter(|a| a.0 != 200)
    }
}

/// What one load run saw: the asks, searches and label calls, each ingest's (ok, seconds).
#[derive(Default)]
struct Load {
    asks: Calls,
    searches: Calls,
    labels: Calls,
    ingests: Vec<(bool, f64)>,
    /// CPU seconds used during the run: by the server's process, by PostgreSQL's processes
    /// (every process of the machine named `postgres`), by the clients (this process).
    cpu: [f64; 3],
}

/// CPU seconds (user and system) `pid` has used so far; 0 when it cannot be read.
fn cpu_seconds(pid: u32) -> f64 {
    let Ok(st) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return 0.0 };
    // the fields after the command's closing parenthesis: utime and stime are the 12th and 13th
    let Some(rest) = st.rsplit_once(')').map(|x| x.1) else { return 0.0 };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = [11, 12].iter().filter_map(|i| f.get(*i)?.parse::<f64>().ok()).sum();
    // the kernel's USER_HZ, 100 on Linux
    ticks / 100.0
}

/// CPU seconds used so far by the machine's PostgreSQL processes (by name; 0 without any).
fn postgres_cpu_seconds() -> f64 {
    let Ok(rd) = std::fs::read_dir("/proc") else { return 0.0 };
    rd.filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "postgres"))
        .map(cpu_seconds)
        .sum()
}

/// A server under load: where it listens and the token its clients send.
struct Target {
    name: String,
    port: u16,
    token: String,
    /// its process
    pid: u32,
    /// the labelled questions' ids in the server's gold set "load", with a page to grade
    graded: Vec<(String, String)>,
}

/// The gold set the labelling clients grade in: created on `t`, one question per labelled
/// question that names a gold page.
fn label_setup(t: &mut Target, labels: &[eval::Label]) -> Result<()> {
    let (st, body, _) = post(t.port, &t.token, "/api/label_create_set", &serde_json::json!({ "set": "load" }).to_string());
    anyhow::ensure!(st == 200, "{}: label_create_set answered {st}: {body}", t.name);
    for l in labels.iter().take(20) {
        let Some(page) = l.gold.keys().next() else { continue };
        let (st, body, _) = post(t.port, &t.token, "/api/label_add", &serde_json::json!({ "set": "load", "query": l.query }).to_string());
        anyhow::ensure!(st == 200, "{}: label_add answered {st}: {body}", t.name);
        let v: serde_json::Value = serde_json::from_str(&body)?;
        let qid = v["qid"].as_str().or(v["id"].as_str()).with_context(|| format!("{}: label_add gave no question id: {body}", t.name))?;
        t.graded.push((qid.to_string(), page.clone()));
    }
    anyhow::ensure!(!t.graded.is_empty(), "no labelled question names a gold page");
    Ok(())
}

/// CLIENTS at `t` for `seconds`, each going round asking a labelled question, searching for
/// another, asking again and a label call (grading a page of the gold set "load", or reading
/// a question of it, in turn), while one client ingests the PDFs of `ingest` one at a time,
/// waiting for each job to finish.
fn load_run(t: &Target, questions: &std::sync::Arc<Vec<String>>, clients: usize, seconds: u64, ingest: &[PathBuf], retriever: Option<&str>) -> Load {
    use std::sync::{Arc, Mutex};
    let deadline = Instant::now() + std::time::Duration::from_secs(seconds);
    let load: Arc<Mutex<Load>> = Arc::default();
    let cpu_at = |pid: u32| [cpu_seconds(pid), postgres_cpu_seconds(), cpu_seconds(std::process::id())];
    let before = cpu_at(t.pid);
    let mut handles = Vec::new();
    for c in 0..clients {
        let (load, questions, token, retriever, graded, port) =
            (load.clone(), questions.clone(), t.token.clone(), retriever.map(str::to_string), t.graded.clone(), t.port);
        handles.push(std::thread::spawn(move || {
            let (mut i, mut step) = (c, c);
            while Instant::now() < deadline {
                let q = &questions[i % questions.len()];
                let (status, body, ms) = match step % 4 {
                    0 | 2 => post(port, &token, "/api/ask", &serde_json::json!({ "question": q, "retriever": retriever }).to_string()),
                    1 => post(port, &token, "/api/search", &serde_json::json!({ "query": q, "retriever": retriever }).to_string()),
                    _ => {
                        let (qid, page) = &graded[i % graded.len()];
                        if (step / 4) % 2 == 0 {
                            let grade = (i % 3) as u8;
                            let b = serde_json::json!({ "set": "load", "qid": qid, "page": page, "grade": grade, "annotator": "load" });
                            post(port, &token, "/api/label_grade", &b.to_string())
                        } else {
                            post(port, &token, "/api/label_question", &serde_json::json!({ "set": "load", "qid": qid }).to_string())
                        }
                    }
                };
                let row = (status, ms, if status == 200 { String::new() } else { body });
                let mut g = load.lock().unwrap();
                match step % 4 {
                    0 | 2 => g.asks.0.push(row),
                    1 => g.searches.0.push(row),
                    _ => g.labels.0.push(row),
                }
                drop(g);
                step += 1;
                if step % 2 == 1 {
                    i += clients;
                }
            }
        }));
    }
    if !ingest.is_empty() {
        let (load, token, pdfs, port) = (load.clone(), t.token.clone(), ingest.to_vec(), t.port);
        handles.push(std::thread::spawn(move || {
            for p in pdfs {
                if Instant::now() >= deadline {
                    break;
                }
                let t = Instant::now();
                let (status, ..) = post(port, &token, "/api/ingest_paths", &serde_json::json!({ "paths": [p] }).to_string());
                let mut ok = status == 200;
                while ok {
                    std::thread::sleep(std::time::Duration::from_millis(200));
                    let (st, body, _) = post(port, &token, "/api/ingest_status", "{}");
                    let v: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
                    if st != 200 {
                        ok = false;
                    } else if v["running"] == false {
                        ok = v["files"].as_array().is_some_and(|f| f.iter().all(|f| f["status"] != "failed"));
                        break;
                    }
                }
                load.lock().unwrap().ingests.push((ok, t.elapsed().as_secs_f64()));
            }
        }));
    }
    for h in handles {
        let _ = h.join();
    }
    let after = cpu_at(t.pid);
    let mut seen = std::mem::take(&mut *load.lock().unwrap());
    drop(load);
    seen.cpu = [0, 1, 2].map(|i| after[i] - before[i]);
    seen
}

/// Print one run; its throughput (requests answered per second, all kinds).
fn load_report(name: &str, l: &Load, seconds: u64) -> f64 {
    println!("  {name}:");
    let mut answered = 0;
    for (kind, calls) in [("asks", &l.asks), ("searches", &l.searches), ("label calls", &l.labels)] {
        let ms = calls.ok_ms();
        answered += ms.len();
        println!(
            "    {kind}: {} answered, {} errors; latency p50 {:.1} ms  p95 {:.1} ms  max {:.1} ms; {:.1}/s",
            ms.len(),
            calls.errors().count(),
            eval::percentile(&ms, 50.0),
            eval::percentile(&ms, 95.0),
            ms.last().copied().unwrap_or(0.0),
            ms.len() as f64 / seconds as f64
        );
    }
    if !l.ingests.is_empty() {
        println!(
            "    meanwhile: {} PDFs ingested ({} failed), {:.1} s each on average",
            l.ingests.len(),
            l.ingests.iter().filter(|x| !x.0).count(),
            l.ingests.iter().map(|x| x.1).sum::<f64>() / l.ingests.len() as f64
        );
    }
    for e in l.asks.errors().chain(l.searches.errors()).chain(l.labels.errors()).take(5) {
        println!("    error {}: {}", e.0, e.2.chars().take(200).collect::<String>());
    }
    let rate = answered as f64 / seconds as f64;
    println!("    throughput {rate:.1} requests/s");
    let per = |s: f64| 1000.0 * s / answered.max(1) as f64;
    println!(
        "    CPU: the server {:.1} s ({:.1} ms a request), PostgreSQL {:.1} s ({:.1} ms), the clients {:.1} s ({:.1} ms)",
        l.cpu[0],
        per(l.cpu[0]),
        l.cpu[1],
        per(l.cpu[1]),
        l.cpu[2],
        per(l.cpu[2])
    );
    rate
}

/// A copy of a library folder (files copied, links kept as links), for a run that adds to it.
fn copy_library(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let kind = e.file_type()?;
        if kind.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(std::fs::read_link(&src)?, &dst)?;
            #[cfg(not(unix))]
            std::fs::copy(&src, &dst)?;
        } else if kind.is_dir() {
            copy_library(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// Peak RSS of another process (MiB).
fn peak_rss_of(pid: u32) -> f64 {
    peak_rss_at(&format!("/proc/{pid}/status"))
}

/// `bin serve` (as a team with a user `load`, an admin, when `team`; its records in `database`
/// when given) on library `lib`: the server to load, and its process.
fn spawn_server(what: &str, bin: &Path, lib: &Path, team: bool, database: Option<&str>) -> Result<(Target, std::process::Child)> {
    use std::io::BufRead;
    let with_db = |c: &mut std::process::Command| {
        if let Some(db) = database {
            c.args(["--database", db]);
        }
    };
    let mut user_token = None;
    if team {
        let mut add = std::process::Command::new(bin);
        add.arg("--library").arg(lib).args(["user", "add", "load", "--role", "admin", "--never"]);
        with_db(&mut add);
        let out = add.output().with_context(|| format!("{} user add", bin.display()))?;
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        user_token = text.split("(shown once): ").nth(1).map(|t| t.trim().to_string());
        anyhow::ensure!(user_token.is_some(), "{} user add printed no token: {text}{}", bin.display(), String::from_utf8_lossy(&out.stderr));
    }
    let mut cmd = std::process::Command::new(bin);
    cmd.arg("--library").arg(lib).args(["serve", "--port", "0"]);
    if team {
        cmd.arg("--team");
    }
    with_db(&mut cmd);
    let mut child =
        cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::null()).spawn().with_context(|| format!("starting {} serve", bin.display()))?;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().context("the server's output")?).read_line(&mut line)?;
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or("");
    let port: Option<u16> = url.split(':').nth(2).and_then(|p| p.split(['/', '?']).next()).and_then(|p| p.parse().ok());
    let token = user_token.or_else(|| url.split("token=").nth(1).map(|t| t.trim().to_string()));
    let (Some(port), Some(token)) = (port, token) else {
        let _ = child.kill();
        anyhow::bail!("{} serve printed no URL with a token: {line:?}", bin.display());
    };
    let place = match database {
        Some(db) => format!("PostgreSQL at {}", db.rsplit('@').next().unwrap_or(db)),
        None => "the library's SQLite file".to_string(),
    };
    let name = format!("{what}: {} serve{} (127.0.0.1:{port}), the log in {place}", bin.display(), if team { " --team" } else { "" });
    Ok((Target { name, port, token, pid: child.id(), graded: Vec::new() }, child))
}

#[allow(clippy::too_many_arguments)]
fn load_test(
    library: Option<PathBuf>,
    labels: &std::path::Path,
    clients: usize,
    seconds: u64,
    ingest: Option<PathBuf>,
    against: Option<PathBuf>,
    retriever: Option<String>,
    database: Option<String>,
    team: bool,
    rounds: usize,
) -> Result<()> {
    let dir = lens_core::paths::library_dir(library.as_deref());
    let mut pdfs: Vec<PathBuf> = Vec::new();
    if let Some(f) = &ingest {
        // the API adds files only from allowed folders: this one is (set before any thread starts;
        // a server started from another binary inherits it)
        let mut roots: Vec<PathBuf> = std::env::var_os("LENS_INGEST_ROOTS").map(|v| std::env::split_paths(&v).collect()).unwrap_or_default();
        roots.push(f.clone());
        std::env::set_var("LENS_INGEST_ROOTS", std::env::join_paths(roots)?);
        pdfs = std::fs::read_dir(f)?.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| lens_core::ingest::is_pdf_name(p)).collect();
        pdfs.sort();
    }
    let labelled = eval::read_labels(labels)?;
    let questions: std::sync::Arc<Vec<String>> = std::sync::Arc::new(labelled.iter().map(|l| l.query.clone()).collect());
    anyhow::ensure!(!questions.is_empty(), "no questions in {}", labels.display());
    let rounds = rounds.max(1);
    println!(
        "bench serve: {clients} clients for {seconds} s over HTTP{}, each asking, searching, asking and labelling in turn ({} questions), retriever {}{}{}",
        if team { " as a team user (admin), the token checked on every call" } else { "" },
        questions.len(),
        retriever.as_deref().unwrap_or("of the library's settings"),
        if ingest.is_some() { ", one client ingesting" } else { "" },
        if against.is_some() && rounds > 1 { format!("; {rounds} rounds, the two servers loaded in turn (ABBA)") } else { String::new() }
    );
    // each server is a process of its own on its own copy of the library as it is now (the
    // PDFs to ingest are split between the rounds, so that each round adds new ones); the
    // clients are threads of this one
    let copies = tempfile::Builder::new().prefix("lens-bench-serve-").tempdir()?;
    let mut reference = None;
    if let Some(bin) = &against {
        let lib = copies.path().join("reference");
        copy_library(&dir, &lib)?;
        reference = Some(spawn_server("reference", bin, &lib, team, None)?);
    }
    let lib = copies.path().join("this");
    copy_library(&dir, &lib)?;
    let mut this = spawn_server("this build", &std::env::current_exe()?, &lib, team, database.as_deref())?;
    label_setup(&mut this.0, &labelled)?;
    if let Some((r, _)) = reference.as_mut() {
        label_setup(r, &labelled)?;
    }
    let per_round = pdfs.len().div_ceil(rounds);
    let mut ratios = Vec::new();
    for round in 0..rounds {
        let share = pdfs.chunks(per_round.max(1)).nth(round).unwrap_or(&[]);
        if rounds > 1 {
            println!("round {} of {rounds}:", round + 1);
        }
        let Some((r, _)) = &reference else {
            let run = load_run(&this.0, &questions, clients, seconds, share, retriever.as_deref());
            load_report(&this.0.name, &run, seconds);
            continue;
        };
        // ABBA: the reference first in even rounds, this build first in odd ones
        let order: [&Target; 2] = if round % 2 == 0 { [r, &this.0] } else { [&this.0, r] };
        let mut rates = [0.0; 2];
        for t in order {
            let run = load_run(t, &questions, clients, seconds, share, retriever.as_deref());
            let rate = load_report(&t.name, &run, seconds);
            rates[usize::from(std::ptr::eq(t, &this.0))] = rate;
        }
        let ratio = rates[1] / rates[0].max(f64::MIN_POSITIVE);
        println!("  throughput, this build / reference: {ratio:.2}x");
        ratios.push(ratio);
    }
    let mut rss = vec![format!("this build's server {:.0} MiB", peak_rss_of(this.1.id()))];
    if let Some((_, child)) = &reference {
        rss.push(format!("the reference server {:.0} MiB", peak_rss_of(child.id())));
    }
    println!("  peak RSS: {}; the clients (this process) {:.0} MiB", rss.join(", "), peak_rss_mib());
    for (_, mut child) in [Some(this), reference].into_iter().flatten() {
        let _ = child.kill();
        let _ = child.wait();
    }
    if ratios.len() > 1 {
        let mut sorted = ratios.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let list: Vec<String> = ratios.iter().map(|r| format!("{r:.2}x")).collect();
        let n = sorted.len();
        let median = (sorted[(n - 1) / 2] + sorted[n / 2]) / 2.0;
        println!(
            "throughput, this build / reference, over {} rounds: median {median:.2}x (rounds: {}; lowest {:.2}x, highest {:.2}x)",
            ratios.len(),
            list.join(", "),
            sorted[0],
            sorted[sorted.len() - 1]
        );
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
