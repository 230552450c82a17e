//! End-to-end tests of the `lens` binary on real corpus PDFs.
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn corpus() -> PathBuf {
    let p = std::env::var_os("LENS_CORPUS").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    assert!(p.join("financebench/pdfs").is_dir(), "corpus not found at {} (set LENS_CORPUS)", p.display());
    p
}

fn lens(lib: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lens")).arg("--library").arg(lib).args(args).output().expect("lens runs")
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "lens failed: {}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn last_json(s: &str) -> Value {
    serde_json::from_str(s.lines().last().expect("output")).expect("last line is JSON")
}

/// A folder of small real filings (symlinks into the read-only corpus).
fn small_set(dir: &Path) {
    let c = corpus();
    for f in ["AMCOR_2022_8K_dated-2022-07-01", "ULTABEAUTY_2023Q4_EARNINGS", "AMCOR_2023Q4_EARNINGS", "MGMRESORTS_2022Q4_EARNINGS"] {
        std::os::unix::fs::symlink(c.join("financebench/pdfs").join(format!("{f}.pdf")), dir.join(format!("{f}.pdf"))).unwrap();
    }
    for f in ["7c3f6204b3241f142f0f8eb8e1fefe7a", "936c0e2c2e6c8e0c07c51bfaf7fd0a83"] {
        std::os::unix::fs::symlink(c.join("mmlongbench_doc/pdfs").join(format!("{f}.pdf")), dir.join(format!("{f}.pdf"))).unwrap();
    }
}

/// Every listed document has all its pages stored; the index holds exactly those pages.
fn assert_consistent(lib: &Path) -> usize {
    let l = lens_core::Library::open(lib).unwrap();
    let docs = l.documents().unwrap();
    let mut total = 0u64;
    for d in &docs {
        let n: i64 = l.store().conn().query_row("SELECT count(*) FROM pages WHERE doc_key=?1", [d.key], |r| r.get(0)).unwrap();
        assert_eq!(n as u32, d.pages, "{} has {} of {} pages", d.id, n, d.pages);
        total += d.pages as u64;
    }
    // pending rows may exist (a killed run); they are invisible and purged by the next writer
    assert!(l.num_indexed_pages() >= total);
    docs.len()
}

#[test]
fn killed_ingest_is_finished_by_the_next_one() {
    let src = tempfile::tempdir().unwrap();
    small_set(src.path());
    let lib = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_lens"))
        .arg("--library")
        .arg(lib.path())
        .arg("ingest")
        .arg(src.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(250));
    let _ = child.kill();
    let _ = child.wait();
    assert_consistent(lib.path());
    let out = ok(&lens(lib.path(), &["ingest", src.path().to_str().unwrap(), "--json"]));
    let summary = last_json(&out);
    assert_eq!(summary["failed"], 0);
    assert_eq!(assert_consistent(lib.path()), 6);
    let l = lens_core::Library::open(lib.path()).unwrap();
    let pages: u64 = l.documents().unwrap().iter().map(|d| d.pages as u64).sum();
    assert_eq!(l.num_indexed_pages(), pages, "index holds exactly the complete documents' pages");
}

#[test]
fn search_eval_and_ablate_on_real_labels() {
    let src = tempfile::tempdir().unwrap();
    small_set(src.path());
    let lib = tempfile::tempdir().unwrap();
    ok(&lens(lib.path(), &["ingest", src.path().to_str().unwrap()]));

    let out = ok(&lens(lib.path(), &["search", "What was the key agenda of the AMCOR's 8k filing dated 1st July 2022?", "--json", "--k", "3"]));
    let v = last_json(&out);
    assert_eq!(v["hits"][0]["doc_id"], "AMCOR_2022_8K_dated-2022-07-01");
    assert_eq!(v["filter"]["forms"][0], "8-K");

    // Labels of the ingested documents only: a small real eval.
    let docs = [
        "AMCOR_2022_8K_dated-2022-07-01",
        "ULTABEAUTY_2023Q4_EARNINGS",
        "AMCOR_2023Q4_EARNINGS",
        "MGMRESORTS_2022Q4_EARNINGS",
        "7c3f6204b3241f142f0f8eb8e1fefe7a",
        "936c0e2c2e6c8e0c07c51bfaf7fd0a83",
    ];
    let mut subset = String::new();
    for set in ["financebench", "mmlongbench_doc"] {
        for line in std::fs::read_to_string(corpus().join(set).join("labels.jsonl")).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            if docs.contains(&v["doc"].as_str().unwrap_or("")) {
                subset.push_str(line);
                subset.push('\n');
            }
        }
    }
    let labels = lib.path().join("labels.jsonl");
    std::fs::write(&labels, &subset).unwrap();
    let runs = lib.path().join("runs");
    let mut results = Vec::new();
    for mode in ["global", "filter", "oracle"] {
        let out = ok(&lens(
            lib.path(),
            &["eval", "--labels", labels.to_str().unwrap(), "--mode", mode, "--name", mode, "--runs-dir", runs.to_str().unwrap(), "--json", "--misses", "2"],
        ));
        let s = last_json(&out);
        for key in ["n", "ndcg5", "recall5", "hit3", "mrr", "p50_ms", "p95_ms"] {
            assert!(s.get(key).is_some(), "{key} missing in {s}");
        }
        assert!(s["skipped_no_gold"].as_u64().unwrap() > 0, "unanswerable questions are skipped and counted");
        let rows = std::fs::read_to_string(runs.join(mode).join("retrieval.jsonl")).unwrap();
        assert_eq!(rows.lines().count() as u64, s["n"].as_u64().unwrap());
        println!("{mode}: {s}");
        results.push(s);
    }
    // hybrid runs with the embedding model alone: no vision model is installed (the tiny random
    // BERT stands in for MiniLM under the default model's folder name)
    let models = lib.path().join("models");
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tiny-bert");
    let folder = models.join(lens_core::dense::DEFAULT_MODEL);
    std::fs::create_dir_all(&folder).unwrap();
    for f in ["config.json", "model.safetensors", "tokenizer.json"] {
        std::fs::copy(tiny.join(f), folder.join(f)).unwrap();
    }
    let m = models.to_str().unwrap();
    ok(&lens(lib.path(), &["--models", m, "dense", "build"]));
    let out = ok(&lens(
        lib.path(),
        &[
            "--models",
            m,
            "eval",
            "--labels",
            labels.to_str().unwrap(),
            "--mode",
            "filter",
            "--retriever",
            "hybrid",
            "--name",
            "hybrid",
            "--runs-dir",
            runs.to_str().unwrap(),
            "--json",
        ],
    ));
    assert!(out.contains("hybrid: bm25 + dense"), "{out}");
    assert!(last_json(&out)["n"].as_u64().unwrap() > 0, "{out}");
    // Oracle search inside the gold documents must find gold pages for most questions here.
    assert!(results[2]["hit3"].as_f64().unwrap() > 0.4, "{}", results[2]);
    let out = ok(&lens(lib.path(), &["ablate", "global", "filter", "oracle", "--runs-dir", runs.to_str().unwrap()]));
    assert!(out.contains("95% CI"), "{out}");
    assert!(out.lines().filter(|l| l.contains("real") || l.contains("could be luck")).count() == 2, "{out}");
}

#[test]
fn clear_errors_for_bad_requests() {
    let lib = tempfile::tempdir().unwrap();
    let o = lens(lib.path(), &["search", "   "]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("error [bad_input]: the question is empty"));
    let o = lens(lib.path(), &["search", "revenue", "--doc", "NOPE"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("[unknown_document]"));
    // A question with no usable words answers, with a note, instead of failing.
    let out = ok(&lens(lib.path(), &["search", "???"]));
    assert!(out.contains("no searchable words"), "{out}");
    // A 10,000-character question is cut, not rejected.
    let long = "revenue ".repeat(1250);
    let out = ok(&lens(lib.path(), &["search", &long]));
    assert!(out.contains("was cut"), "{out}");
    // Missing pdfium: one clear message saying what to run.
    let o = Command::new(env!("CARGO_BIN_EXE_lens"))
        .env("PDFIUM_LIB_DIR", lib.path().join("nowhere"))
        .arg("--library")
        .arg(lib.path())
        .args(["ingest", corpus().join("financebench/pdfs/AMCOR_2022_8K_dated-2022-07-01.pdf").to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("[pdfium_missing]") && err.contains("scripts/setup"), "{err}");
    // Nonexistent input path
    let o = lens(lib.path(), &["ingest", "/nonexistent/file.pdf"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("no such file"), "{}", String::from_utf8_lossy(&o.stdout));
}

#[test]
fn ask_cites_quotes_highlights_and_logs() {
    let src = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(corpus().join("financebench/pdfs/3M_2018_10K.pdf"), src.path().join("3M_2018_10K.pdf")).unwrap();
    let lib = tempfile::tempdir().unwrap();
    ok(&lens(lib.path(), &["ingest", src.path().to_str().unwrap()]));
    let png = lib.path().join("answer.png");
    let q = "What is the FY2018 capital expenditure amount (in USD millions) for 3M? Give a response to the question by relying on the details shown in the cash flow statement.";
    let out = ok(&lens(lib.path(), &["ask", q, "--json", "--render", png.to_str().unwrap()]));
    let v = last_json(&out);
    for key in ["answer", "citations", "quote", "not_found", "found_by", "boxes", "retrieve_ms", "answer_ms"] {
        assert!(v.get(key).is_some(), "{key} missing: {v}");
    }
    assert_eq!(v["not_found"], false);
    assert_eq!(v["citations"][0], "3M_2018_10K#60", "{v}");
    // each citation with the page number printed on it (the footer of PDF page 60 prints 60)
    assert_eq!(v["cited"][0]["page"], "3M_2018_10K#60", "{v}");
    assert_eq!(v["cited"][0]["page_label"], "60", "{v}");
    assert_eq!(v["cited"][0]["shown"], "p. 60");
    assert!(v["answer"].as_str().unwrap().contains("1,577"), "{v}");
    // a figure the calculator knows: the answer is worked from the statement's cell
    assert_eq!(v["found_by"], "calculation", "{v}");
    assert_eq!(v["calculation"]["operands"][0]["page"], "3M_2018_10K#60", "{v}");
    assert_eq!(v["calculation"]["result"], "$1,577 million", "{v}");
    assert!(!v["boxes"].as_array().unwrap().is_empty());
    let png_bytes = std::fs::read(&png).unwrap();
    assert_eq!(&png_bytes[..4], b"\x89PNG");

    // Not in the pages: the refusal string, no citation.
    let out = ok(&lens(lib.path(), &["ask", "Who won the 1998 FIFA World Cup final in Paris?", "--json"]));
    let v = last_json(&out);
    assert_eq!(v["answer"], "Not found in the provided pages.");
    assert_eq!(v["not_found"], true);
    // Off-topic (names nothing of the library, the best line does not hold it): "Not found", the
    // pages read still listed, and why.
    let out = ok(&lens(lib.path(), &["ask", "Who wrote the novel Pride and Prejudice?", "--json"]));
    let v = last_json(&out);
    assert_eq!((v["not_found"].as_bool(), v["support"].as_str()), (Some(true), Some("none")), "{v}");
    assert_eq!(v["support_rules"][0], "off_topic", "{v}");
    assert!(v["support_reasons"][0].as_str().is_some_and(|w| !w.is_empty()), "and its reason: {v}");
    assert!(!v["pages"].as_array().unwrap().is_empty());
    // ...also when every word of it sits on one line of the filing: 3M's list of subsidiaries
    // says "Capital Safety Group EMEA France", a label naming the words, not an answer
    let out = ok(&lens(lib.path(), &["ask", "What is the capital of France?", "--json"]));
    let v = last_json(&out);
    assert_eq!((v["not_found"].as_bool(), v["support"].as_str()), (Some(true), Some("none")), "{v}");

    // Rejected input is answered clearly and never logged.
    let before = ok(&lens(lib.path(), &["log", "--json"])).lines().count();
    assert_eq!(before, 4);
    let o = lens(lib.path(), &["ask", "  "]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("[bad_input]"));
    let o = lens(lib.path(), &["ask", "revenue", "--answerer", "oracle-of-delphi"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("answerer `oracle-of-delphi` is not available"));
    assert_eq!(ok(&lens(lib.path(), &["log", "--json"])).lines().count(), before);

    // Feedback lands on the logged answer.
    let first: Value = serde_json::from_str(ok(&lens(lib.path(), &["log", "--json"])).lines().last().unwrap()).unwrap();
    let id = first["id"].as_i64().unwrap().to_string();
    ok(&lens(lib.path(), &["feedback", &id, "-1", "--note", "wrong line"]));
    let first: Value = serde_json::from_str(ok(&lens(lib.path(), &["log", "--json"])).lines().last().unwrap()).unwrap();
    assert_eq!(first["feedback"], -1);
    assert_eq!(first["feedback_note"], "wrong line");

    // The workpaper of that answer, as a PDF and as HTML; a bad name or id is refused clearly.
    let wp = lib.path().join("wp.pdf");
    let out = ok(&lens(lib.path(), &["workpaper", &id, "--out", wp.to_str().unwrap()]));
    assert!(out.starts_with(&format!("wrote {}", wp.display())) && out.contains("1 answer)"), "{out}");
    assert_eq!(&std::fs::read(&wp).unwrap()[..5], b"%PDF-");
    let html = lib.path().join("wp.html");
    ok(&lens(lib.path(), &["workpaper", &id, "--out", html.to_str().unwrap()]));
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(h.contains("marked wrong: wrong line") && h.contains("p. 60") && h.contains("data:image/png;base64,"));
    let o = lens(lib.path(), &["workpaper", &id, "--out", "wp.txt"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains(".html or .pdf"));
    let o = lens(lib.path(), &["workpaper", "999999", "--out", html.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("[not_found]"), "{}", String::from_utf8_lossy(&o.stderr));

    // render: the box, and clear errors for bad pages and DPI.
    let out = ok(&lens(lib.path(), &["render", "3M_2018_10K#60", "--quote", "Purchases of property, plant and equipment", "--out", png.to_str().unwrap()]));
    assert!(out.contains("found by quote, 1 box"), "{out}");
    let o = lens(lib.path(), &["render", "3M_2018_10K#999", "--out", png.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("[unknown_page]") && String::from_utf8_lossy(&o.stderr).contains("160 pages"));
    let o = lens(lib.path(), &["render", "NOPE#1", "--out", png.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("[unknown_document]"));
    let o = lens(lib.path(), &["render", "3M_2018_10K#60", "--dpi", "900", "--out", png.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("out of range"));

    // facts: read at ingest; the balance sheet's, with their periods, and its identities held
    let v: Value = serde_json::from_str(&ok(&lens(lib.path(), &["facts", "3M_2018_10K", "--statement", "balance", "--json"]))).unwrap();
    assert_eq!(v["built"], true, "{v}");
    let facts = v["facts"].as_array().unwrap();
    let assets =
        facts.iter().find(|f| f["page"] == 58 && f["label"] == "Total assets" && f["period"]["year"] == 2018).expect("total assets at the end of 2018");
    assert_eq!((assets["printed"].as_str(), assets["concept"].as_str(), assets["unit"].as_str()), (Some("36,500"), Some("total_assets"), Some("millions")));
    assert_eq!((assets["period"]["duration"].as_str(), assets["period"]["end"].as_str()), (Some("instant"), Some("December 31")));
    assert!(assets.get("flagged").is_none(), "{assets}");
    let held = |name: &str, starts: &str| {
        v["identities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["name"] == name && i["passed"] == true && i["page"] == 58 && i["detail"].as_str().unwrap().starts_with(starts))
    };
    assert!(held("balance", "Total assets 36,500 = Total liabilities and equity 36,500"), "{}", v["identities"]);
    assert!(held("subtotal", "Total current assets 13,709 = "), "{}", v["identities"]);
    // a filing read before facts existed is read by the next `lens facts` (the migration)
    {
        let l = lens_core::Library::open(lib.path()).unwrap();
        l.store().conn().execute_batch("DELETE FROM facts; DELETE FROM fact_identities; DELETE FROM fact_docs;").unwrap();
    }
    let o = lens(lib.path(), &["facts", "3M_2018_10K", "--statement", "income", "--year", "2018"]);
    let out = ok(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("reading facts: 3M_2018_10K"), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.lines().any(|l| l.starts_with("  Net sales [revenue] | FY2018") && l.ends_with("32,765")), "{out}");
    let o = lens(lib.path(), &["facts", "3M_2018_10K", "--statement", "notes"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown statement"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = lens(lib.path(), &["facts", "NOPE"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("[unknown_document]"));

    // a follow-up keeps what it does not name from the answer it follows, and its JSON and log
    // entry name that answer; an unknown one is refused clearly and nothing is logged
    let out = ok(&lens(lib.path(), &["ask", "and in FY2017?", "--follow-up", &id, "--json"]));
    let v = last_json(&out);
    assert_eq!(v["follow_up"]["of"].as_i64(), id.parse::<i64>().ok(), "{v}");
    assert_eq!(v["follow_up"]["asked"], "and in FY2017?");
    assert!(v["question"]["text"].as_str().unwrap().starts_with("What is the FY2017 capital expenditure amount (in USD millions) for 3M?"), "{v}");
    assert!(v["answer"].as_str().unwrap().contains("1,373"), "3M's 2017 capital expenditure: {v}");
    let logged: Value = serde_json::from_str(ok(&lens(lib.path(), &["log", "--json"])).lines().next().unwrap()).unwrap();
    assert_eq!(logged["shown"]["follow_up"]["of"].as_i64(), id.parse::<i64>().ok(), "{logged}");
    let before = ok(&lens(lib.path(), &["log", "--json"])).lines().count();
    let o = lens(lib.path(), &["ask", "and in FY2016?", "--follow-up", "999999"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("no question #999999 in the log"), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(ok(&lens(lib.path(), &["log", "--json"])).lines().count(), before);

    // the two worked answers as a spreadsheet: each operand with its period, value, unit, page,
    // box and the file's sha256, read back as a spreadsheet tool reads it (openpyxl)
    let follow = logged["id"].as_i64().unwrap().to_string();
    let sha = last_json(&ok(&lens(lib.path(), &["docs", "--json"])))[0]["sha256"].as_str().unwrap().to_string();
    let xlsx = lib.path().join("answers.xlsx");
    let out = ok(&lens(lib.path(), &["export", &id, &follow, "--out", xlsx.to_str().unwrap()]));
    assert!(out.contains("2 answers"), "{out}");
    let sheets = read_workbook(&xlsx);
    assert_eq!(sheets.as_object().unwrap().keys().collect::<Vec<_>>(), ["Answers", "Evidence"]);
    let evidence = sheets["Evidence"].as_array().unwrap();
    let header: Vec<&str> = evidence[0].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("{name} column: {header:?}"));
    let rows: Vec<&Value> = evidence[1..].iter().filter(|r| r[col("Kind")] == "operand").collect();
    assert_eq!(rows.len(), 2, "{evidence:?}");
    for (r, period, value) in [(rows[0], "FY2018", -1577.0), (rows[1], "FY2017", -1373.0)] {
        assert_eq!((r[col("Period")].as_str(), r[col("Value")].as_f64(), r[col("Unit")].as_str()), (Some(period), Some(value), Some("millions")), "{r}");
        assert_eq!((r[col("Page")].as_str(), r[col("sha256")].as_str()), (Some("3M_2018_10K#60"), Some(sha.as_str())), "{r}");
        assert!(r[col("Box left (pt)")].as_f64().unwrap() < r[col("Box right (pt)")].as_f64().unwrap(), "{r}");
    }
    let csv_out = lib.path().join("answers.csv");
    ok(&lens(lib.path(), &["export", &id, &follow, "--format", "csv", "--out", csv_out.to_str().unwrap()]));
    let csv = std::fs::read_to_string(&csv_out).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(
        csv.lines().nth(2).unwrap().contains(",FY2017,-1373,\"Purchases of property, plant and equipment (PP&E) (1,373)\",millions,3M_2018_10K#60,"),
        "{csv}"
    );
    assert!(csv.contains(&sha));
    let o = lens(lib.path(), &["export", &id, "--out", "answers.txt"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("name a .csv or .xlsx file"), "{}", String::from_utf8_lossy(&o.stderr));

    // a page's tables: as printed, and every figure with its trace
    let t = lib.path().join("p60.xlsx");
    ok(&lens(lib.path(), &["tables", "3M_2018_10K#60", "--xlsx", t.to_str().unwrap()]));
    let sheets = read_workbook(&t);
    let figures = sheets["Figures"].as_array().unwrap();
    assert!(
        figures
            .iter()
            .any(|r| r[1] == "Purchases of property, plant and equipment (PP&E)" && r[3] == 2018 && r[5].as_f64() == Some(-1577.0) && r[16] == sha.as_str()),
        "{figures:?}"
    );
    assert!(sheets["Table 1"].as_array().unwrap().iter().any(|r| r[0] == "Purchases of property, plant and equipment (PP&E)"));
}

/// Every sheet of a workbook as rows of values, read by openpyxl (Debian's python3-openpyxl,
/// which `scripts/setup` installs).
fn read_workbook(path: &Path) -> Value {
    let py = if Path::new("/usr/bin/python3").exists() { "/usr/bin/python3" } else { "python3" };
    let script = "import json, sys, openpyxl\nwb = openpyxl.load_workbook(sys.argv[1])\nprint(json.dumps({ws.title: [list(r) for r in ws.iter_rows(values_only=True)] for ws in wb}))";
    let o = std::process::Command::new(py).args(["-c", script, path.to_str().unwrap()]).output().expect("python3 runs");
    assert!(o.status.success(), "openpyxl could not read {} (scripts/setup installs python3-openpyxl): {}", path.display(), String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// `lens serve ARGS --port 0` started: (child, the line it printed first, the port in it).
fn start_serve(lib: &Path, args: &[&str]) -> (std::process::Child, String, u16) {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_lens"))
        .arg("--library")
        .arg(lib)
        .args(["serve", "--port", "0"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let port: u16 = line.split("127.0.0.1:").nth(1).unwrap().split('/').next().unwrap().parse().unwrap();
    (child, line, port)
}

/// `lens serve` on a free port: (child, port, token).
fn serve(lib: &Path) -> (std::process::Child, u16, String) {
    let (child, line, port) = start_serve(lib, &[]);
    let token = line.split("token=").nth(1).unwrap().trim().to_string();
    (child, port, token)
}

/// One raw HTTP/1.1 exchange; the status code and the body.
fn http(port: u16, head: &str, body: &[u8]) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
    let req = format!("{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
    // a server may answer (413, 503) and close before the body is all sent: the answer is what
    // counts, not the write
    let _ = s.write_all(req.as_bytes()).and_then(|_| s.write_all(body));
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, text.split("\r\n\r\n").nth(1).unwrap_or("").to_string())
}

#[test]
fn serve_refuses_hostile_requests() {
    let lib = tempfile::tempdir().unwrap();
    let (mut child, port, token) = serve(lib.path());
    let host = format!("Host: 127.0.0.1:{port}");
    let post = |path: &str, extra: &str, body: &[u8]| http(port, &format!("POST {path} HTTP/1.1\r\n{host}\r\n{extra}"), body);
    // the good request works
    let (st, body) = post("/api/documents", &format!("x-lens-token: {token}"), b"{}");
    assert_eq!((st, body.as_str()), (200, "[]"));
    // DNS rebinding: another Host is refused
    let (st, _) = http(port, &format!("POST /api/documents HTTP/1.1\r\nHost: evil.example:{port}\r\nx-lens-token: {token}"), b"{}");
    assert_eq!(st, 403);
    // the token in a POST's URL is not enough (a cross-site form could carry it)
    let (st, _) = post(&format!("/api/documents?token={token}"), "Content-Type: text/plain", b"{}");
    assert_eq!(st, 401);
    // a wrong token of the same length
    let (st, _) = post("/api/documents", &format!("x-lens-token: {}", "0".repeat(token.len())), b"{}");
    assert_eq!(st, 401);
    // another origin cannot change anything
    let (st, _) = post("/api/remove", &format!("x-lens-token: {token}\r\nOrigin: http://evil.example"), b"{\"doc\":\"x\"}");
    assert_eq!(st, 403);
    // a body over 1 MiB: 413 with a message, not a silent cut
    let big = format!("{{\"query\":\"{}\"}}", "a".repeat(1 << 20));
    let (st, body) = post("/api/search", &format!("x-lens-token: {token}"), big.as_bytes());
    assert_eq!(st, 413, "{body}");
    assert!(body.contains("larger than"), "{body}");
    // a body that is not UTF-8
    let (st, body) = post("/api/search", &format!("x-lens-token: {token}"), &[0xff, 0xfe, b'{', b'}']);
    assert_eq!(st, 400);
    assert!(body.contains("not UTF-8"), "{body}");
    // a header bomb: an endless header line gets 431 and the server lives (it grew to 895 MB)
    {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
        s.write_all(format!("GET / HTTP/1.1\r\n{host}\r\nX-Bomb: ").as_bytes()).unwrap();
        let chunk = vec![b'a'; 64 * 1024];
        for _ in 0..64 {
            if s.write_all(&chunk).is_err() {
                break; // the server closed the connection: fine
            }
        }
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        assert!(String::from_utf8_lossy(&out).starts_with("HTTP/1.1 431"), "{}", String::from_utf8_lossy(&out).chars().take(200).collect::<String>());
    }
    // idle connections hold at most a bounded number of threads, and go away
    let idle: Vec<std::net::TcpStream> = (0..200).map(|_| std::net::TcpStream::connect(("127.0.0.1", port)).unwrap()).collect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let threads = |pid: u32| -> usize {
        let st = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        st.lines().find(|l| l.starts_with("Threads:")).unwrap().split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let busy = threads(child.id());
    assert!(busy < 100, "{busy} threads for 200 idle connections");
    // over the connection cap: 503 at once, with a message
    let (st, body) = post("/api/documents", &format!("x-lens-token: {token}"), b"{}");
    assert_eq!(st, 503, "{body}");
    assert!(body.contains("too many connections"), "{body}");
    // a slow head (half a request line, then nothing): the connection is closed in time
    {
        use std::io::{Read, Write};
        let mut first = &idle[0];
        let _ = first.write_all(b"GET / HT");
        first.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
        let t0 = std::time::Instant::now();
        let mut buf = [0u8; 64];
        let n = first.read(&mut buf).unwrap_or(0);
        assert!(!buf[..n].starts_with(b"HTTP/1.1 503"), "the first idle connection was served, not refused");
        let waited = t0.elapsed();
        assert!(waited > std::time::Duration::from_secs(5) && waited < std::time::Duration::from_secs(20), "a stalled head held its connection {waited:?}");
    }
    drop(idle);
    std::thread::sleep(std::time::Duration::from_millis(500));
    // two uploads whose bodies are still coming hold the two upload slots: a third is shed with
    // 503 at once, with a message; when they go, uploads are taken again
    {
        use std::io::Write;
        let stalled: Vec<std::net::TcpStream> = (0..2)
            .map(|_| {
                let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
                let head = format!("POST /api/upload?name=slow.pdf HTTP/1.1\r\n{host}\r\nx-lens-token: {token}\r\nContent-Length: 100000\r\n\r\n%PDF-1.7\n");
                s.write_all(head.as_bytes()).unwrap();
                s
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(500));
        let (st, body) = post("/api/upload?name=third.pdf", &format!("x-lens-token: {token}"), b"%PDF-1.7");
        assert_eq!(st, 503, "{body}");
        assert!(body.contains("\"code\":\"busy\"") && body.contains("2 uploads are running"), "{body}");
        drop(stalled);
        std::thread::sleep(std::time::Duration::from_millis(500));
        let (st, body) = post("/api/upload?name=notes.pdf", &format!("x-lens-token: {token}"), b"not a pdf");
        assert_eq!(st, 200, "{body}");
        assert!(body.contains("\"name\":\"notes.pdf\"") && body.contains("queued"), "{body}");
    }
    // the URL's token becomes a cookie and leaves the address bar; the cookie then authorises
    let (st, _) = http(port, &format!("GET /?token={token} HTTP/1.1\r\n{host}"), b"");
    assert_eq!(st, 302);
    {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.write_all(format!("GET /?token={token} HTTP/1.1\r\n{host}\r\n\r\n").as_bytes()).unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        // header names compare case-insensitively (hyper writes them in lower case)
        assert!(out.to_ascii_lowercase().contains(&format!("set-cookie: lens_token={token}; httponly; samesite=strict")), "{out}");
    }
    assert_eq!(post("/api/documents", &format!("Cookie: lens_token={token}"), b"{}").0, 200);
    assert_eq!(post("/api/documents", "Cookie: lens_token=nope", b"{}").0, 401);
    // the server is still up
    assert_eq!(post("/api/documents", &format!("x-lens-token: {token}"), b"{}").0, 200);
    child.kill().unwrap();
    let _ = child.wait();
}

/// `lens serve --team` on a free port, its records in `db` when given: (child, port).
fn serve_team(lib: &Path, db: Option<&str>) -> (std::process::Child, u16) {
    let (child, line, port) = start_serve(lib, &[&["--team"][..], &db.map(|u| vec!["--database", u]).unwrap_or_default()].concat());
    assert!(line.contains("team users"), "{line}");
    (child, port)
}

#[test]
fn team_users_ask_and_label_as_their_roles_allow() {
    team_users(None);
}

/// The same on a real PostgreSQL (`LENS_TEST_DATABASE_URL`, started by `scripts/test`): the log,
/// feedback, users, gold sets and filings in the database; a second server's empty library
/// folder rebuilt from it.
#[test]
fn team_users_on_postgresql() {
    let Ok(admin) = std::env::var("LENS_TEST_DATABASE_URL") else {
        assert!(std::env::var("LENS_REQUIRE_POSTGRES").is_err(), "LENS_REQUIRE_POSTGRES is set but LENS_TEST_DATABASE_URL is not");
        eprintln!("skipped: no PostgreSQL (set LENS_TEST_DATABASE_URL; scripts/test starts one)");
        return;
    };
    let name = format!("lens_test_cli_{}", std::process::id());
    let mut c = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
    c.batch_execute(&format!("DROP DATABASE IF EXISTS {name}")).unwrap();
    c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    let url = format!("{}/{name}", admin.rsplit_once('/').unwrap().0);
    team_users(Some(&url));
    // the records are in the database, not in the library's file
    let mut db = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let asked: i64 = db.query_one("SELECT count(*) FROM question_log WHERE asked_by = 'rob'", &[]).unwrap().get(0);
    assert_eq!(asked, 3);
    // and so are the gold sets: the two annotators' six grades
    let graded: i64 = db.query_one("SELECT count(*) FROM label_grades g JOIN label_questions q ON q.id = g.question WHERE q.qid = 'q1'", &[]).unwrap().get(0);
    assert_eq!(graded, 6);
    // the audit trail, exported by an admin from the database: who asked what and how it was
    // shown, who said what of it, who graded which page
    let any = tempfile::tempdir().unwrap();
    let trail = any.path().join("audit.jsonl");
    let out = ok(&lens(any.path(), &["log", "--export", trail.to_str().unwrap(), "--database", &url]));
    assert!(out.contains("3 questions asked, 6 grades"), "{out}");
    let lines: Vec<Value> = std::fs::read_to_string(&trail).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.iter().filter(|l| l["kind"] == "asked").all(|l| l["asked_by"] == "rob" && l["shown_as"].is_string()), "{lines:?}");
    assert!(lines.iter().any(|l| l["kind"] == "asked" && l["feedback"].as_array().is_some_and(|f| f.len() == 2)), "{lines:?}");
    let graders: std::collections::BTreeSet<&str> = lines.iter().filter(|l| l["kind"] == "graded").filter_map(|l| l["annotator"].as_str()).collect();
    assert_eq!(graders.into_iter().collect::<Vec<_>>(), ["ana", "bea"]);
    // and so is the filing ingested into the first server's folder (put there when it started)
    let filings: Vec<String> = db.query("SELECT id FROM filings", &[]).unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(filings, ["3M_2018_10K"]);
    drop(db);
    // a second server with an empty library folder on the same database: the filing is rebuilt
    // there from the database (no PDF given to it) and answered from, with the team's users
    let lib2 = tempfile::tempdir().unwrap();
    let carl = ok(&lens(lib2.path(), &["user", "add", "carl", "--role", "reader", "--database", &url])).trim().rsplit(' ').next().unwrap().to_string();
    let (mut child, port) = serve_team(lib2.path(), Some(&url));
    let (st, body) = http(
        port,
        &format!("POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nx-lens-token: {carl}"),
        br#"{"question":"What was 3M's FY2018 capital expenditure?"}"#,
    );
    assert_eq!(st, 200, "{body}");
    assert!(body.contains("3M_2018_10K#"), "{body}");
    child.kill().unwrap();
    let _ = child.wait();
    // a server with one connection to its database, held by a request waiting on a lock (another
    // session holds the users table): the next request is refused at once with 503 "busy" and
    // its reason, not left hanging; the first is answered once the lock goes
    let (mut child, _, port) = start_serve(lib2.path(), &["--team", "--database", &url, "--db-pool", "1", "--db-wait", "0.5"]);
    let mut locker = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let mut tx = locker.transaction().unwrap();
    tx.batch_execute("LOCK TABLE users IN ACCESS EXCLUSIVE MODE").unwrap();
    let head = format!("POST /api/documents HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nx-lens-token: {carl}");
    let first = {
        let head = head.clone();
        std::thread::spawn(move || http(port, &head, b"{}"))
    };
    let mut watch = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let t0 = std::time::Instant::now();
    while watch
        .query_one("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'", &[])
        .unwrap()
        .get::<_, i64>(0)
        < 1
    {
        assert!(t0.elapsed().as_secs() < 20, "the first request never reached the lock");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let (st, body) = http(port, &head, b"{}");
    assert_eq!(st, 503, "{body}");
    assert!(body.contains("\"code\":\"busy\"") && body.contains("all 1 connections to the team database"), "{body}");
    tx.commit().unwrap();
    assert_eq!(first.join().unwrap().0, 200);
    // the database restarted while the server is idle: the next HTTP call is answered (its dead
    // connection replaced), not refused (scripts/test says how to stop and start it)
    if let (Ok(stop), Ok(start)) = (std::env::var("LENS_TEST_PG_STOP"), std::env::var("LENS_TEST_PG_START")) {
        drop((locker, watch));
        for cmd in [stop, start] {
            assert!(Command::new("sh").arg("-c").arg(&cmd).status().unwrap().success(), "{cmd}");
        }
        let (st, body) = http(port, &head, b"{}");
        assert_eq!(st, 200, "after a restart while idle: {body}");
    } else {
        assert!(std::env::var("LENS_REQUIRE_POSTGRES").is_err(), "LENS_REQUIRE_POSTGRES is set but LENS_TEST_PG_STOP / LENS_TEST_PG_START are not");
    }
    child.kill().unwrap();
    let _ = child.wait();
    // a wrong database URL: a clear message, nothing served
    let lib = tempfile::tempdir().unwrap();
    let o = lens(lib.path(), &["serve", "--port", "0", "--team", "--database", "postgres://lens:pw@127.0.0.1:1/nope"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("cannot be reached") && !err.contains(":pw@"), "{err}");
    let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
}

/// A self-signed certificate for 127.0.0.1 and its key, in `dir` (openssl, from Debian's
/// packages): (cert.pem, key.pem).
fn self_signed(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let st = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            // a server's certificate, not a CA's (openssl's default): rustls refuses a CA
            // certificate as the server's own
            "-addext",
            "basicConstraints=critical,CA:FALSE",
            "-keyout",
        ])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    (cert, key)
}

/// The desktop app's way to a team library (`lens_client::Remote`, what the window calls when
/// Settings names a team server): over TLS checked against the server's certificate, a PDF
/// uploaded, an ask streamed with its events, the cited page drawn, a reader refused a label;
/// an untrusted certificate, a wrong token and a stopped server each a clear failure.
#[test]
fn the_desktop_client_works_on_a_team_library() {
    use lens_client::{Remote, Team};
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    let (cert, key) = self_signed(dir.path());
    let token = |name: &str, role: &str| ok(&lens(&lib, &["user", "add", name, "--role", role])).trim().rsplit(' ').next().unwrap().to_string();
    let (ana, rob) = (token("ana", "admin"), token("rob", "reader"));
    let (mut child, _, port) = start_serve(&lib, &["--team", "--tls-cert", cert.to_str().unwrap(), "--tls-key", key.to_str().unwrap()]);
    let url = format!("https://127.0.0.1:{port}");
    let team = |tok: &str, certificate: Option<&Path>| Team { url: url.clone(), token: tok.into(), certificate: certificate.map(Path::to_path_buf) };
    // a self-signed certificate not given: refused as untrusted, and said so
    let e = Remote::connect(&team(&ana, None)).err().unwrap();
    assert_eq!(e.code, "tls", "{e:?}");
    // a wrong token: the server's own refusal
    let e = Remote::connect(&team("nope", Some(&cert))).err().unwrap();
    assert_eq!(e.code, "unauthorized", "{e:?}");
    let admin = Remote::connect(&team(&ana, Some(&cert))).unwrap();
    // the same filing sent by two admins at once: ingested there as one document, no file failed
    let cy = token("cy", "admin");
    let pdf = corpus().join("financebench/pdfs/3M_2018_10K.pdf");
    std::thread::scope(|s| {
        for tok in [&ana, &cy] {
            let (team, pdf) = (team(tok, Some(&cert)), &pdf);
            s.spawn(move || Remote::connect(&team).unwrap().upload(pdf).unwrap());
        }
    });
    let t0 = std::time::Instant::now();
    loop {
        let st = admin.call("ingest_status", &serde_json::json!({})).unwrap();
        if st["running"] == false && !admin.call("documents", &serde_json::json!({})).unwrap().as_array().unwrap().is_empty() {
            let failed: Vec<_> = st["files"].as_array().unwrap().iter().filter(|f| f["status"] == "failed").collect();
            assert!(failed.is_empty(), "{st}");
            break;
        }
        assert!(t0.elapsed().as_secs() < 120, "the upload was not ingested");
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    assert_eq!(admin.call("documents", &serde_json::json!({})).unwrap().as_array().unwrap().len(), 1, "one document");
    // a reader asks, streamed: pages first, then the answer
    let reader = Remote::connect(&team(&rob, Some(&cert))).unwrap();
    let mut events = Vec::new();
    let r = reader
        .stream("ask_stream", &serde_json::json!({ "question": "What was 3M's total revenue in 2018?" }), &mut |e| {
            events.push(e["event"].as_str().unwrap_or_default().to_string());
            true
        })
        .unwrap();
    assert_eq!(events.first().map(String::as_str), Some("pages"), "{events:?}");
    assert!(r["answer"].as_str().is_some_and(|a| !a.is_empty()), "{r}");
    let (doc, page) = r["citations"][0].as_str().unwrap().split_once('#').unwrap();
    let png = reader.page_png(doc, page.parse().unwrap(), &r["boxes"], 72.0).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG came back");
    // the reader's role holds: labelling refused with the server's 403
    let e = reader.call("label_create_set", &serde_json::json!({ "set": "x" })).err().unwrap();
    assert_eq!(e.code, "forbidden", "{e:?}");
    child.kill().unwrap();
    let _ = child.wait();
    // the server gone: offline, with its address
    let e = reader.call("documents", &serde_json::json!({})).err().unwrap();
    assert_eq!(e.code, "offline", "{e:?}");
    assert!(e.message.contains(&url));
}

#[test]
fn a_team_server_beyond_loopback_only_over_tls() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    let (cert, key) = self_signed(dir.path());
    let token = ok(&lens(&lib, &["user", "add", "ana", "--role", "admin"])).trim().rsplit(' ').next().unwrap().to_string();
    let err = |args: &[&str]| String::from_utf8_lossy(&lens(&lib, args).stderr).to_string();
    // beyond loopback: never without TLS, never for one person's printed token
    assert!(err(&["serve", "--port", "0", "--team", "--listen", "0.0.0.0"]).contains("give --tls-cert and --tls-key"));
    assert!(err(&["serve", "--port", "0", "--listen", "0.0.0.0", "--tls-cert", cert.to_str().unwrap(), "--tls-key", key.to_str().unwrap()])
        .contains("only in team mode"));
    // a file that is not a certificate: named in the message
    assert!(err(&["serve", "--port", "0", "--team", "--tls-cert", key.to_str().unwrap(), "--tls-key", key.to_str().unwrap()])
        .contains("key.pem: no certificate in it"));
    // --name only for a server reached over TLS by that name
    assert!(err(&["serve", "--port", "0", "--team", "--name", "lens.firm.test"]).contains("--tls-cert"));
    let (mut child, line, port) =
        start_serve(&lib, &["--team", "--tls-cert", cert.to_str().unwrap(), "--tls-key", key.to_str().unwrap(), "--name", "lens.firm.test"]);
    assert!(line.contains("https://127.0.0.1:"), "{line}");
    // the DNS name given is a name of this server; another is refused (the certificate is not
    // checked here: it names 127.0.0.1 only)
    let named = |host: &str| {
        let o = Command::new("curl")
            .args([
                "-s",
                "-k",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "-X",
                "POST",
                "-H",
                &format!("x-lens-token: {token}"),
                "-H",
                &format!("Host: {host}:{port}"),
            ])
            .args(["-d", "{}", &format!("https://127.0.0.1:{port}/api/documents")])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    assert_eq!(named("lens.firm.test"), "200");
    assert_eq!(named("evil.example"), "403");
    let curl = |scheme: &str, tok: &str| {
        let o = Command::new("curl")
            .args(["-s", "-o", "-", "-w", "\n%{http_code}", "--cacert"])
            .arg(&cert)
            .args(["-X", "POST", "-H", &format!("x-lens-token: {tok}"), "-d", "{}", &format!("{scheme}://127.0.0.1:{port}/api/documents")])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    // over TLS, checked against the certificate: the user's token works, another does not
    assert_eq!(curl("https", &token), "[]\n200");
    assert!(curl("https", "nope").ends_with("401"));
    // plain HTTP to the TLS port gets no answer
    assert!(!curl("http", &token).contains("200"));
    // the token in the URL becomes a Secure, host-only cookie (a browser never sends it over
    // plain HTTP or to another host), and that cookie is a token
    let o = Command::new("curl")
        .args(["-s", "-D", "-", "-o", "/dev/null", "--cacert"])
        .arg(&cert)
        .arg(format!("https://127.0.0.1:{port}/?token={token}"))
        .output()
        .unwrap();
    let head = String::from_utf8_lossy(&o.stdout).to_ascii_lowercase();
    assert!(head.contains(&format!("set-cookie: __host-lens_token={token}; httponly; samesite=strict; secure; path=/")), "{head}");
    let o = Command::new("curl")
        .args(["-s", "-o", "-", "-w", "\n%{http_code}", "--cacert"])
        .arg(&cert)
        .args(["-X", "POST", "-H", &format!("Cookie: __Host-lens_token={token}"), "-d", "{}", &format!("https://127.0.0.1:{port}/api/documents")])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "[]\n200");
    child.kill().unwrap();
    let _ = child.wait();
}

fn team_users(db: Option<&str>) {
    let lib = tempfile::tempdir().unwrap();
    let with_db = |args: &[&str]| -> Vec<String> {
        args.iter().map(|s| s.to_string()).chain(db.map(|u| vec!["--database".to_string(), u.to_string()]).unwrap_or_default()).collect()
    };
    let run = |args: &[&str]| {
        let a = with_db(args);
        lens(lib.path(), &a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    // no users yet: the team server does not start
    let o = run(&["serve", "--port", "0", "--team"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("no users in this library"), "{}", String::from_utf8_lossy(&o.stderr));
    ok(&lens(lib.path(), &["ingest", "--ocr", "off", corpus().join("financebench/pdfs/3M_2018_10K.pdf").to_str().unwrap()]));
    let token = |name: &str, role: &str| ok(&run(&["user", "add", name, "--role", role])).trim().rsplit(' ').next().unwrap().to_string();
    let (rob, ana, bea) = (token("rob", "reader"), token("ana", "annotator"), token("bea", "annotator"));
    let (mut child, port) = serve_team(lib.path(), db);
    let host = format!("Host: 127.0.0.1:{port}");
    let call = |tok: &str, cmd: &str, body: &str| http(port, &format!("POST /api/{cmd} HTTP/1.1\r\n{host}\r\nx-lens-token: {tok}"), body.as_bytes());
    // no token, an unknown token
    let (st, body) = http(port, &format!("POST /api/documents HTTP/1.1\r\n{host}"), b"{}");
    assert_eq!(st, 401, "{body}");
    let (st, body) = call(&"0".repeat(32), "documents", "{}");
    assert_eq!(st, 401, "{body}");
    assert!(body.contains("unknown token"), "{body}");
    // a reader asks; it may not label or add filings
    let (st, body) = call(&rob, "label_create_set", r#"{"set":"gold"}"#);
    assert_eq!(st, 403, "{body}");
    assert!(body.contains("`rob` is a reader: `label_create_set` needs the annotator role"), "{body}");
    assert_eq!(call(&rob, "ingest_paths", r#"{"paths":[]}"#).0, 403);
    assert_eq!(call(&ana, "label_create_set", r#"{"set":"gold"}"#).0, 200);
    let q = r#"{"id":"q1","query":"What was 3M's FY2018 capital expenditure?","gold":{}}"#;
    let (st, body) = call(&ana, "label_import", &serde_json::json!({ "set": "gold", "text": q }).to_string());
    assert_eq!(st, 200, "{body}");
    // one reader asking while two annotators grade the same question, at once; the annotator
    // named in a request is the caller, whatever the body says
    std::thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..3 {
                let (st, body) = call(&rob, "ask", r#"{"question":"What was 3M's FY2018 capital expenditure?","user":"mallory"}"#);
                assert_eq!(st, 200, "{body}");
            }
        });
        for (tok, grade) in [(&ana, 2), (&bea, 1)] {
            s.spawn(move || {
                for page in [60u32, 61, 62] {
                    let g = serde_json::json!({ "set": "gold", "qid": "q1", "page": format!("3M_2018_10K#{page}"), "grade": grade, "annotator": "mallory" });
                    let (st, body) = call(tok, "label_grade", &g.to_string());
                    assert_eq!(st, 200, "{body}");
                }
            });
        }
    });
    let (st, body) = call(&rob, "label_agreement", r#"{"set":"gold"}"#);
    assert_eq!(st, 200, "{body}");
    let agreement: Value = serde_json::from_str(&body).unwrap();
    let names: Vec<&str> = agreement["annotators"].as_array().unwrap().iter().filter_map(|a| a.as_str()).collect();
    assert!(names.contains(&"ana") && names.contains(&"bea") && !names.contains(&"mallory"), "{body}");
    // a box is its annotator's: bea cannot remove ana's, whatever name her request gives; ana can
    let (st, body) = call(&ana, "label_add_box", r#"{"set":"gold","qid":"q1","annotator":"mallory","page":"3M_2018_10K#60","l":10,"b":20,"r":110,"t":32}"#);
    assert_eq!(st, 200, "{body}");
    let id: i64 = serde_json::from_str::<Value>(&body).unwrap()["id"].as_i64().unwrap_or_else(|| panic!("{body}"));
    let (st, body) = call(&bea, "label_remove_box", &format!(r#"{{"set":"gold","qid":"q1","id":{id},"annotator":"ana"}}"#));
    assert_eq!(st, 400, "{body}");
    assert!(body.contains("drawn by `ana`: only its annotator removes it"), "{body}");
    assert_eq!(call(&ana, "label_remove_box", &format!(r#"{{"set":"gold","qid":"q1","id":{id}}}"#)).0, 200);
    // the log records who asked, never the name a body claims
    let (st, body) = call(&rob, "log", r#"{"limit":5}"#);
    assert_eq!(st, 200, "{body}");
    let log: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(log.as_array().unwrap().len(), 3);
    assert!(log.as_array().unwrap().iter().all(|e| e["asked_by"] == "rob"), "{body}");
    // two users' feedback on one answer: each kept under its giver, neither over the other
    let id = log[0]["id"].as_i64().unwrap();
    assert_eq!(call(&ana, "feedback", &format!(r#"{{"id":{id},"value":-1,"note":"wrong year","user":"mallory"}}"#)).0, 200);
    assert_eq!(call(&bea, "feedback", &format!(r#"{{"id":{id},"value":1}}"#)).0, 200);
    let (_, body) = call(&rob, "log", r#"{"limit":5}"#);
    let row = serde_json::from_str::<Value>(&body).unwrap().as_array().unwrap().iter().find(|e| e["id"] == id).cloned().unwrap();
    let given: Vec<(String, i64)> =
        row["feedbacks"].as_array().unwrap().iter().map(|f| (f["user"].as_str().unwrap().to_string(), f["value"].as_i64().unwrap())).collect();
    assert_eq!(given, [("ana".to_string(), -1), ("bea".to_string(), 1)], "{row}");
    // a removed user's token gets a clear refusal; what it asked keeps its name
    ok(&run(&["user", "remove", "rob"]));
    let (st, body) = call(&rob, "documents", "{}");
    assert_eq!(st, 401, "{body}");
    assert!(body.contains("`rob` was removed"), "{body}");
    let log: Value = serde_json::from_str(&call(&ana, "log", r#"{"limit":5}"#).1).unwrap();
    assert_eq!(log[0]["asked_by"], "rob");
    child.kill().unwrap();
    let _ = child.wait();
}

#[test]
fn ingest_returns_while_ocr_goes_on_in_the_background() {
    let work = tempfile::tempdir().unwrap();
    let scan = work.path().join("scan.pdf");
    lens_core::scan::make_image_only(&corpus().join("financebench/pdfs/3M_2018_10K.pdf"), &[60], 150.0, &scan).unwrap();
    let lib = work.path().join("lib");
    let out = ok(&lens(&lib, &["ingest", "--ocr", "background", scan.to_str().unwrap()]));
    assert!(out.contains("continues in the background"), "{out}");
    // the text layer is published at once; the page becomes searchable when OCR is done
    let t0 = std::time::Instant::now();
    loop {
        let docs: Value = serde_json::from_str(&ok(&lens(&lib, &["docs", "--json"]))).unwrap();
        if docs[0]["needs_ocr_pages"] == 0 {
            break;
        }
        assert!(t0.elapsed() < std::time::Duration::from_secs(180), "OCR did not finish: {docs}");
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    let found = ok(&lens(&lib, &["search", "purchases of property plant and equipment", "--no-filter", "--retriever", "bm25"]));
    assert!(found.contains("scan#1"), "{found}");
    // the background run writes its summary once it has also read the cover and the facts
    // again, which is after the page was published: wait for it, within the same limit
    loop {
        let log = std::fs::read_to_string(lib.join("ocr.log")).unwrap_or_default();
        if log.contains("OCR: 1 pages read") {
            break;
        }
        assert!(t0.elapsed() < std::time::Duration::from_secs(180), "the background OCR run wrote no summary: {log}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

#[test]
fn labels_import_export_round_trip_and_refuse_a_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    let src = corpus().join("financebench/labels.jsonl");
    let out = ok(&lens(&lib, &["labels", "import", src.to_str().unwrap(), "--set", "fb"]));
    assert!(out.contains("65 questions added"), "{out}");
    assert!(out.contains("86 gold pages are not in this library"), "{out}");
    let exported = dir.path().join("fb.jsonl");
    ok(&lens(&lib, &["labels", "export", "fb", "--out", exported.to_str().unwrap()]));
    let read = |p: &Path| -> Vec<Value> { std::fs::read_to_string(p).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect() };
    assert_eq!(read(&exported), read(&src));
    let list = last_json(&ok(&lens(&lib, &["labels", "list", "--json"])));
    assert_eq!(list[0]["questions"], 65);
    // a malformed line: its number in the error, nothing stored
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"id\":\"a\",\"query\":\"q\",\"gold\":{\"X#1\":1}}\n{\"id\":\"b\",\"query\":\"r\",\"gold\":{\"X#2\":5}}\n").unwrap();
    let o = lens(&lib, &["labels", "import", bad.to_str().unwrap(), "--set", "bad"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("line 2: gold `X#2`: grade 5 is not 0, 1 or 2"), "{err}");
    let list = last_json(&ok(&lens(&lib, &["labels", "list", "--json"])));
    assert_eq!(list.as_array().unwrap().len(), 1, "no half-imported set");
    let o = lens(&lib, &["labels", "agreement", "nope"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("no label set named `nope`"));
}

#[test]
fn a_killed_vision_build_resumes_where_it_stopped() {
    use std::io::BufRead;
    // the tiny random ColModernVBERT fixture stands in for the real model
    let models = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../lens-vision/tests/fixtures/tiny-colmodernvbert"),
        models.path().join("colmodernvbert"),
    )
    .unwrap();
    let doc = corpus().join("financebench/pdfs/AMCOR_2022_8K_dated-2022-07-01.pdf");
    let build = |lib: &Path| {
        ok(&lens(lib, &["ingest", "--ocr", "off", doc.to_str().unwrap()]));
        Command::new(env!("CARGO_BIN_EXE_lens"))
            .arg("--library")
            .arg(lib)
            .arg("--models")
            .arg(models.path())
            .args(["vision", "build", "--edge", "256"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = tempfile::tempdir().unwrap();
    let mut child = build(a.path());
    // killed (SIGKILL) once its third page is written
    let out = std::io::BufReader::new(child.stdout.take().unwrap());
    for line in out.lines() {
        if line.unwrap().contains("page 3/9") {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let key = lens_core::Library::open(a.path()).unwrap().document("AMCOR_2022_8K_dated-2022-07-01").unwrap().key;
    let again = |lib: &Path| {
        ok(&Command::new(env!("CARGO_BIN_EXE_lens"))
            .arg("--library")
            .arg(lib)
            .arg("--models")
            .arg(models.path())
            .args(["vision", "build", "--json"])
            .output()
            .unwrap())
    };
    let r = last_json(&again(a.path()));
    // at least the three pages reported written were kept; the rest embedded now
    let resumed = r["resumed_pages"].as_u64().unwrap();
    assert!(resumed >= 3 || r["docs_built"] == 0, "{r}");
    // the same file as a build never interrupted
    let b = tempfile::tempdir().unwrap();
    let child = build(b.path());
    let _ = child.wait_with_output();
    let key_b = lens_core::Library::open(b.path()).unwrap().document("AMCOR_2022_8K_dated-2022-07-01").unwrap().key;
    assert_eq!(std::fs::read(a.path().join(format!("vision/{key}.lvx"))).unwrap(), std::fs::read(b.path().join(format!("vision/{key_b}.lvx"))).unwrap());
    let status = ok(&Command::new(env!("CARGO_BIN_EXE_lens"))
        .arg("--library")
        .arg(a.path())
        .arg("--models")
        .arg(models.path())
        .args(["vision", "status"])
        .output()
        .unwrap());
    assert!(status.contains("9 pages, colmodernvbert at 256 px"), "{status}");
}

/// Every route of a team server, called by each kind of caller: no token, a removed user's and
/// an ended token get 401; a role below the call's (`lens_api::access`) gets 403; a role that suffices
/// is let through (whatever the call then says of its empty arguments: never 401 or 403).
#[test]
fn every_route_answers_each_caller_as_the_access_table_says() {
    use lens_core::users::Role;
    let lib = tempfile::tempdir().unwrap();
    let token = |name: &str, role: &str| ok(&lens(lib.path(), &["user", "add", name, "--role", role])).trim().rsplit(' ').next().unwrap().to_string();
    let ended = ok(&lens(lib.path(), &["user", "add", "old", "--role", "admin", "--until", "2000-01-01"]));
    assert!(ended.contains("token ended 2000-01-01T00:00:00Z"), "{ended}");
    let callers: Vec<(&str, Option<String>, Option<Role>)> = vec![
        ("no token", None, None),
        ("removed", Some(token("gone", "admin")), None),
        ("expired", Some(ended.trim().rsplit(' ').next().unwrap().to_string()), None),
        ("reader", Some(token("rob", "reader")), Some(Role::Reader)),
        ("annotator", Some(token("ana", "annotator")), Some(Role::Annotator)),
        ("admin", Some(token("adi", "admin")), Some(Role::Admin)),
    ];
    ok(&lens(lib.path(), &["user", "remove", "gone"]));
    let (mut child, port) = serve_team(lib.path(), None);
    let rank = |r: Role| match r {
        Role::Reader => 0,
        Role::Annotator => 1,
        Role::Admin => 2,
    };
    let mut wrong = Vec::new();
    let calls: Vec<&str> = lens_api::dispatch::COMMANDS.iter().chain(lens_api::access::SERVER_CALLS).copied().collect();
    for call in &calls {
        let need = lens_api::access::required_role(call).unwrap();
        for (who, tok, role) in &callers {
            let auth = tok.as_ref().map(|t| format!("\r\nx-lens-token: {t}")).unwrap_or_default();
            let (st, body) = match *call {
                "page.png" => http(port, &format!("GET /api/page.png?doc=NOPE&page=1 HTTP/1.1\r\nHost: 127.0.0.1:{port}{auth}"), b""),
                "upload" => http(port, &format!("POST /api/upload?name=x.pdf HTTP/1.1\r\nHost: 127.0.0.1:{port}{auth}"), b"not a pdf"),
                _ => http(port, &format!("POST /api/{call} HTTP/1.1\r\nHost: 127.0.0.1:{port}{auth}"), b"{}"),
            };
            let want = match role {
                None => "401",
                Some(r) if rank(*r) < rank(need) => "403",
                Some(_) => "let through",
            };
            let fine = match want {
                "401" => st == 401,
                "403" => st == 403,
                _ => st != 401 && st != 403 && st != 0,
            };
            if !fine {
                wrong.push(format!("{call} by {who}: {st}, wanted {want}: {}", body.chars().take(160).collect::<String>()));
            }
        }
    }
    // an ended token says why; a new one (`lens user token`) works and the old one stops
    let post = |tok: &str| http(port, &format!("POST /api/documents HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nx-lens-token: {tok}"), b"{}");
    let (st, body) = post(callers[2].1.as_deref().unwrap());
    assert!(st == 401 && body.contains("the token of `old` ended 2000-01-01T00:00:00Z") && body.contains("lens user token old"), "{st} {body}");
    let rob_before = callers[3].1.clone().unwrap();
    let out = ok(&lens(lib.path(), &["user", "token", "rob", "--days", "30"]));
    assert!(out.contains("new token for rob (token until ") && out.contains("the old one no longer works"), "{out}");
    let rob_now = out.trim().rsplit(' ').next().unwrap().to_string();
    assert_eq!(post(&rob_now).0, 200);
    assert_eq!(post(&rob_before).0, 401);
    let listed = ok(&lens(lib.path(), &["user", "list"]));
    assert!(listed.lines().any(|l| l.starts_with("old ") && l.contains("token ended 2000-01-01")), "{listed}");
    assert!(listed.lines().any(|l| l.starts_with("gone ") && l.contains("removed ")), "{listed}");
    child.kill().unwrap();
    let _ = child.wait();
    assert!(wrong.is_empty(), "{} of {} calls answered against the access table:\n{}", wrong.len(), calls.len() * callers.len(), wrong.join("\n"));
}
