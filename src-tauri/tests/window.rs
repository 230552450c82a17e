//! The real desktop window: start the app binary on a display (Xvfb in CI), check it stays up,
//! and screenshot it when ImageMagick's `import` is available; then add PDFs as a user does, through
//! the native file dialog (typed into with xdotool) and by dragging a file onto the window from a
//! GTK drag source (a real X11 drag-and-drop).
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One app window on the display at a time.
static DISPLAY_LOCK: Mutex<()> = Mutex::new(());

fn screenshots() -> PathBuf {
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/screenshots");
    std::fs::create_dir_all(&out).unwrap();
    out
}

fn screenshot(name: &str) {
    if Command::new("import").arg("-version").output().is_ok_and(|o| o.status.success()) {
        let png = screenshots().join(name);
        assert!(Command::new("import").args(["-window", "root"]).arg(&png).status().unwrap().success());
        println!("screenshot: {}", png.display());
    }
}

/// Kills the app (and anything else started) when the test ends, pass or fail.
struct Killed(Vec<Child>);
impl Drop for Killed {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The app on library `lib`, with `home` as its home folder, where the file dialogs open. Not the
/// library: GTK's file chooser reads the files it lists, and closing them drops this process's
/// POSIX locks on the library's SQLite files, so another process (this test's reads) could take
/// the database for unused and delete its write-ahead log under the app.
fn start_app(lib: &Path, home: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_lens-app"))
        .env("LENS_LIBRARY", lib)
        .env("WEBKIT_DISABLE_COMPOSITING_MODE", "1")
        // no session bus on a bare display: keep GTK settings in memory
        .env("GSETTINGS_BACKEND", "memory")
        // the dialog opens at a known folder with no recent files
        .env("HOME", home)
        .spawn()
        .expect("app starts")
}

fn xdotool(args: &[&str]) -> String {
    let o = Command::new("xdotool").args(args).output().expect("xdotool runs (scripts/setup installs it)");
    assert!(o.status.success(), "xdotool {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// The first window whose title is `name`, waiting up to `secs`.
fn window(name: &str, secs: u64) -> String {
    let t0 = Instant::now();
    loop {
        let o = Command::new("xdotool").args(["search", "--onlyvisible", "--name", name]).output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        if let Some(id) = out.lines().next().filter(|l| !l.is_empty()) {
            return id.to_string();
        }
        assert!(t0.elapsed().as_secs() < secs, "no window named {name:?} after {secs}s");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Document names in the library, read from its database (the app keeps running).
fn documents(lib: &Path) -> Vec<String> {
    // never create the database here: the app makes it on its first ingest
    if !lib.join("lens.sqlite").is_file() {
        return Vec::new();
    }
    match lens_core::store::Store::open(&lib.join("lens.sqlite")).and_then(|s| s.documents()) {
        Ok(d) => d.into_iter().filter_map(|d| Path::new(&d.path).file_name().map(|n| n.to_string_lossy().to_string())).collect(),
        Err(_) => Vec::new(),
    }
}

fn wait_documents(lib: &Path, n: usize, what: &str) -> Vec<String> {
    let t0 = Instant::now();
    loop {
        let d = documents(lib);
        if d.len() >= n {
            return d;
        }
        if t0.elapsed().as_secs() > 60 {
            screenshot(&format!("failed-{what}.png"));
            panic!("{what}: {n} documents expected in the library after 60s, found {d:?}");
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// In the GTK open dialog titled `title`: the path typed into its location field (Ctrl+L), then
/// Return.
fn open_in_dialog(title: &str, path: &str) {
    let dialog = window(title, 20);
    xdotool(&["windowfocus", "--sync", &dialog]);
    std::thread::sleep(Duration::from_millis(500));
    xdotool(&["key", "--clearmodifiers", "ctrl+l"]);
    std::thread::sleep(Duration::from_millis(700));
    xdotool(&["type", "--delay", "15", path]);
    std::thread::sleep(Duration::from_millis(500));
    xdotool(&["key", "Return"]);
}

/// In the GTK save dialog titled `title`: `path` typed over the proposed name (a bare file name
/// is saved in the folder the dialog opened at), then Return; the saved file's text once it is
/// at `path` (`failed` is the screenshot taken when it never is).
fn save_in_dialog(title: &str, typed: &str, path: &Path, failed: &str) -> String {
    String::from_utf8(saved_in_dialog(title, typed, path, failed)).expect("a text file was saved")
}

/// As `save_in_dialog`, the saved file's bytes (a workbook).
fn saved_in_dialog(title: &str, typed: &str, path: &Path, failed: &str) -> Vec<u8> {
    let dialog = window(title, 20);
    xdotool(&["windowfocus", "--sync", &dialog]);
    std::thread::sleep(Duration::from_millis(700));
    xdotool(&["key", "--clearmodifiers", "ctrl+a"]);
    xdotool(&["type", "--delay", "15", typed]);
    std::thread::sleep(Duration::from_millis(300));
    xdotool(&["key", "Return"]);
    let t0 = Instant::now();
    while !path.is_file() {
        if t0.elapsed().as_secs() > 30 {
            screenshot(failed);
            panic!("nothing was saved to {} through the \"{title}\" dialog", path.display());
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    std::thread::sleep(Duration::from_millis(500)); // written whole
    std::fs::read(path).unwrap()
}

/// Every cell of a workbook, sheet by sheet, as openpyxl reads it (Debian's python3-openpyxl,
/// which `scripts/setup` installs): one line per row, cells separated by tabs.
fn workbook_text(path: &Path) -> String {
    let script = "import sys, openpyxl\nwb = openpyxl.load_workbook(sys.argv[1])\nfor ws in wb:\n    print('# ' + ws.title)\n    for r in ws.iter_rows(values_only=True):\n        print('\\t'.join('' if v is None else str(v) for v in r))";
    let py = if Path::new("/usr/bin/python3").exists() { "/usr/bin/python3" } else { "python3" };
    let o = Command::new(py).args(["-c", script]).arg(path).output().expect("python3 runs");
    assert!(o.status.success(), "openpyxl could not read {}: {}", path.display(), String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A file's sha256 in hex, by coreutils' sha256sum.
fn sha256_of(path: &str) -> String {
    let o = Command::new("sha256sum").arg(path).output().expect("sha256sum runs");
    String::from_utf8_lossy(&o.stdout).split_whitespace().next().unwrap().to_string()
}

fn corpus_pdf(name: &str) -> String {
    let corpus = std::env::var("LENS_CORPUS").unwrap_or_else(|_| format!("{}/../../shared/corpus", env!("CARGO_MANIFEST_DIR")));
    let p = format!("{corpus}/financebench/pdfs/{name}.pdf");
    assert!(Path::new(&p).is_file(), "corpus file {p} missing");
    p
}

#[test]
fn add_pdfs_through_the_native_dialog_and_by_dropping_a_file_then_file_a_workpaper() {
    let _display = DISPLAY_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    assert!(std::env::var("DISPLAY").is_ok_and(|d| !d.is_empty()), "no DISPLAY: run the suite with scripts/test, which starts Xvfb");
    let lib = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut procs = Killed(vec![start_app(lib.path(), home.path())]);
    let app = window("10-K Lens", 30);
    std::thread::sleep(Duration::from_secs(3)); // the UI lists the (empty) library

    // Ctrl+O is the "Add PDFs" button's shortcut: both open the native dialog
    xdotool(&["windowfocus", "--sync", &app]);
    xdotool(&["key", "--clearmodifiers", "ctrl+o"]);
    open_in_dialog("Add PDFs to the library", &corpus_pdf("AMCOR_2022_8K_dated-2022-07-01"));
    let docs = wait_documents(lib.path(), 1, "dialog");
    assert_eq!(docs, vec!["AMCOR_2022_8K_dated-2022-07-01.pdf"]);
    screenshot("app-added-by-dialog.png");

    // drag a second filing from a GTK window onto the app
    let second = corpus_pdf("PEPSICO_2023_8K_dated-2023-05-05");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/drag_source.py");
    let mut src = Command::new("/usr/bin/python3").arg(&script).args(["900", "600", &second]).stdout(Stdio::piped()).spawn().expect("drag source starts");
    let mut line = String::new();
    std::io::BufReader::new(src.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready", "the drag source did not start (python3-gi and GTK 3 are needed)");
    procs.0.push(src);
    let source = window("drag source", 10);
    let geo = xdotool(&["getwindowgeometry", "--shell", &source]);
    let val = |k: &str| geo.lines().find_map(|l| l.strip_prefix(&format!("{k}="))).and_then(|v| v.parse::<i32>().ok()).unwrap();
    let (sx, sy) = (val("X") + val("WIDTH") / 2, val("Y") + val("HEIGHT") / 2);
    xdotool(&["mousemove", "--sync", &sx.to_string(), &sy.to_string()]);
    xdotool(&["mousedown", "1"]);
    // move in steps, as a hand does, so GTK starts the drag and the target sees it enter
    for i in 1..=20 {
        let (x, y) = (sx - (sx - 400) * i / 20, sy - (sy - 300) * i / 20);
        xdotool(&["mousemove", &x.to_string(), &y.to_string()]);
        std::thread::sleep(Duration::from_millis(60));
    }
    std::thread::sleep(Duration::from_millis(400));
    xdotool(&["mouseup", "1"]);
    let mut docs = wait_documents(lib.path(), 2, "drop");
    docs.sort();
    assert_eq!(docs, vec!["AMCOR_2022_8K_dated-2022-07-01.pdf", "PEPSICO_2023_8K_dated-2023-05-05.pdf"]);
    std::thread::sleep(Duration::from_secs(1));
    screenshot("app-added-by-drop.png");
    let mut source = procs.0.pop().expect("the drag source");
    let _ = source.kill();
    let _ = source.wait();

    // ask in the window, then save the answer's workpaper through the native save dialog (Ctrl+S)
    let geo = xdotool(&["getwindowgeometry", "--shell", &app]);
    let val = |k: &str| geo.lines().find_map(|l| l.strip_prefix(&format!("{k}="))).and_then(|v| v.parse::<i32>().ok()).unwrap();
    xdotool(&["mousemove", "--sync", &(val("X") + 165).to_string(), &(val("Y") + 28).to_string()]); // the Ask tab
    xdotool(&["click", "1"]);
    std::thread::sleep(Duration::from_millis(500));
    let question = "Which notes are covered by Amcor's supplemental indentures?";
    xdotool(&["type", "--delay", "10", question]);
    xdotool(&["key", "Return"]);
    let t0 = Instant::now();
    while logged(lib.path()) == 0 {
        assert!(t0.elapsed().as_secs() < 60, "the question typed in the window was not answered");
        std::thread::sleep(Duration::from_millis(300));
    }
    std::thread::sleep(Duration::from_secs(2)); // the answer and its page are drawn
    screenshot("app-answer.png");
    xdotool(&["key", "--clearmodifiers", "ctrl+s"]);
    // only a bare name typed: it is saved where the dialog opened, the home folder (not the
    // folder the app was started from, nor the one the filings were added from), with the
    // filter's extension added
    let html = save_in_dialog("Save workpaper", "filed-workpaper", &home.path().join("filed-workpaper.html"), "failed-save.png");
    assert!(!home.path().join("filed-workpaper").exists(), "the workpaper was saved without its extension");
    assert!(!Path::new("filed-workpaper.html").exists(), "the save dialog opened in the app's working folder");
    assert!(
        html.contains(&question.replace('\'', "&#39;")) && html.contains("data:image/png;base64,") && html.contains("AMCOR_2022_8K_dated-2022-07-01.pdf"),
        "the saved workpaper lacks the question, page or file"
    );
    screenshot("app-workpaper-saved.png");

    // the Log (Alt+3) exports its rows through the native save dialog too (Ctrl+E): a webview
    // saves no downloads
    xdotool(&["windowfocus", "--sync", &app]);
    xdotool(&["key", "--clearmodifiers", "alt+3"]);
    std::thread::sleep(Duration::from_millis(1500)); // the Log loads
    xdotool(&["key", "--clearmodifiers", "ctrl+e"]);
    // the next save dialog opens where the last file was saved
    let jsonl = save_in_dialog("Export", "question-log.jsonl", &home.path().join("question-log.jsonl"), "failed-export.png");
    // the save folder is kept in the library for the next start
    let kept = std::fs::read_to_string(lib.path().join("dialogs.json")).expect("the dialogs' folders are kept");
    assert!(kept.contains(&*home.path().to_string_lossy()), "{kept}");
    let rows: Vec<serde_json::Value> = jsonl.lines().map(|l| serde_json::from_str(l).expect("each exported line is JSON")).collect();
    assert_eq!(rows.len(), 1, "one question was asked: {jsonl}");
    assert_eq!(rows[0]["question"], question, "{jsonl}");
    std::thread::sleep(Duration::from_millis(500));
    screenshot("app-log-exported.png");

    // the labeler (Alt+4) imports a question set through the native open dialog (Ctrl+I); the
    // set is on disk for another process at once
    let labels = home.path().join("window-labels.jsonl");
    std::fs::write(
        &labels,
        "{\"id\": \"w1\", \"query\": \"Which notes are covered by the supplemental indentures?\", \"answer\": \"3.625% notes due 2026 and 4.500% notes due 2028\", \"query_types\": [], \"content_type\": null, \"gold\": {\"AMCOR_2022_8K_dated-2022-07-01#4\": 2}}\n",
    )
    .unwrap();
    xdotool(&["windowfocus", "--sync", &app]);
    xdotool(&["key", "--clearmodifiers", "alt+4"]);
    std::thread::sleep(Duration::from_millis(1500)); // the labeler loads
    xdotool(&["key", "--clearmodifiers", "ctrl+i"]);
    open_in_dialog("Import labels", &labels.display().to_string());
    let t0 = Instant::now();
    loop {
        let opened = lens_core::Library::open(lib.path()).unwrap();
        let sets = lens_core::labels::sets(opened.store()).unwrap();
        if sets.iter().any(|s| s.questions == 1 && s.with_gold == 1) {
            break;
        }
        if t0.elapsed().as_secs() > 30 {
            screenshot("failed-import.png");
            panic!("the label file was not imported: {:?}", sets.iter().map(|s| (&s.name, s.questions)).collect::<Vec<_>>());
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    std::thread::sleep(Duration::from_millis(1000));
    screenshot("app-labels-imported.png");
}

/// Questions in the library's log (0 before the first ask).
fn logged(lib: &Path) -> usize {
    if !lib.join("lens.sqlite").is_file() {
        return 0;
    }
    lens_core::store::Store::open(&lib.join("lens.sqlite")).and_then(|s| s.question_log(10)).map(|l| l.len()).unwrap_or(0)
}

#[test]
fn app_window_starts_and_stays_up() {
    let _display = DISPLAY_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let display = std::env::var("DISPLAY").unwrap_or_default();
    assert!(!display.is_empty(), "no DISPLAY: run the suite with scripts/test, which starts Xvfb");
    let lib = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_lens-app")).env("LENS_LIBRARY", lib.path()).env("WEBKIT_DISABLE_COMPOSITING_MODE", "1").spawn().expect("app starts");
    std::thread::sleep(Duration::from_secs(5));
    let status = child.try_wait().unwrap();
    assert!(status.is_none(), "the app exited early: {status:?}");
    screenshot("app-window.png");
    println!("window up after {:.1}s", t0.elapsed().as_secs_f64());
    child.kill().unwrap();
    let _ = child.wait();
}

#[test]
fn no_word_is_broken_in_the_window_in_any_view_at_four_widths() {
    let _display = DISPLAY_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    assert!(std::env::var("DISPLAY").is_ok_and(|d| !d.is_empty()), "no DISPLAY: run the suite with scripts/test, which starts Xvfb");
    // a library as a user's grows: filings with long names and aliases, answers in the log
    let lib = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    library_with(
        lib.path(),
        &["AMCOR_2022_8K_dated-2022-07-01", "JOHNSON_JOHNSON_2023Q2_EARNINGS", "PEPSICO_2023_8K_dated-2023-05-05"],
        &[
            "Which notes are covered by Amcor's supplemental indentures?",
            "What does Johnson & Johnson say about its 2023 full-year guidance for adjusted operational sales?",
        ],
    );
    let (_procs, rx) = start_probed(lib.path(), home.path());
    let app = window("10-K Lens", 30);
    std::thread::sleep(Duration::from_secs(3));
    // an answer in the Ask view, asked in the window
    ask_in_window(&app, lib.path(), "What were Amcor's notes covered by the supplemental indentures in 2022?");
    let mut broken = Vec::new();
    for width in [1280, 1024, 800, 480] {
        xdotool(&["windowsize", &app, &width.to_string(), "800"]);
        std::thread::sleep(Duration::from_millis(800));
        for (i, view) in ["ask", "library", "log", "label", "settings"].iter().enumerate() {
            xdotool(&["windowfocus", "--sync", &app]);
            xdotool(&["key", "--clearmodifiers", &format!("alt+{}", i + 1)]);
            std::thread::sleep(Duration::from_millis(1200));
            let r = probe(&app, &rx);
            let report = r.to_string();
            assert_eq!(r["view"], *view, "{report}");
            let shown = r["width"].as_i64().unwrap();
            assert!((shown - width as i64).abs() <= 20, "the window is {shown} px wide, not {width}: {report}");
            if r["broken"].as_array().is_some_and(|b| !b.is_empty()) || r["sideways"].as_i64().unwrap_or(0) > 1 {
                screenshot(&format!("failed-layout-{view}-{width}.png"));
                broken.push(report);
            }
        }
        if width == 480 {
            screenshot("app-settings-480.png");
        }
    }
    assert!(broken.is_empty(), "words broken across lines, or a view wider than the window: {broken:#?}");
}

/// A library in `lib` holding these financebench filings, with these questions asked of it (in
/// the log), made before the app opens it.
fn library_with(lib: &Path, filings: &[&str], questions: &[&str]) {
    let mut l = lens_core::Library::open(lib).unwrap();
    let files: Vec<PathBuf> = filings.iter().map(|n| PathBuf::from(corpus_pdf(n))).collect();
    lens_core::ingest::ingest(&mut l, &files, &Default::default(), &std::sync::atomic::AtomicBool::new(false), &mut |_| {}).unwrap();
    for q in questions {
        l.ask(&lens_core::ask::AskRequest::new(*q)).unwrap();
    }
}

/// `question` typed into the Ask view (Alt+1) of the window `app` on `lib`, once it is answered
/// (in the log) and drawn.
fn ask_in_window(app: &str, lib: &Path, question: &str) {
    let before = logged(lib);
    xdotool(&["windowfocus", "--sync", app]);
    xdotool(&["key", "--clearmodifiers", "alt+1"]);
    std::thread::sleep(Duration::from_millis(500));
    xdotool(&["type", "--delay", "10", question]);
    xdotool(&["key", "Return"]);
    let t0 = Instant::now();
    while logged(lib) == before {
        assert!(t0.elapsed().as_secs() < 60, "the question typed in the window was not answered");
        std::thread::sleep(Duration::from_millis(300));
    }
    std::thread::sleep(Duration::from_secs(2));
}

/// The app on `lib` (home folder `home`) started with the layout probe on: its reports
/// (ui/probe.js, Ctrl+Alt+Shift+L) arrive on the channel.
fn start_probed(lib: &Path, home: &Path) -> (Killed, std::sync::mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lens-app"))
        .env("LENS_LIBRARY", lib)
        .env("WEBKIT_DISABLE_COMPOSITING_MODE", "1")
        .env("GSETTINGS_BACKEND", "memory")
        .env("HOME", home)
        .env("LENS_LAYOUT_PROBE", "1")
        .stdout(Stdio::piped())
        .spawn()
        .expect("app starts");
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            if let Some(report) = line.strip_prefix("layout ") {
                let _ = tx.send(report.to_string());
            }
        }
    });
    (Killed(vec![child]), rx)
}

/// What the window shows now, as ui/probe.js reports it.
fn probe(app: &str, rx: &std::sync::mpsc::Receiver<String>) -> serde_json::Value {
    while rx.try_recv().is_ok() {}
    xdotool(&["windowfocus", "--sync", app]);
    xdotool(&["key", "--clearmodifiers", "ctrl+alt+shift+l"]);
    let report = rx.recv_timeout(Duration::from_secs(10)).unwrap_or_else(|_| {
        screenshot("failed-probe.png");
        panic!("no report from the window's probe")
    });
    serde_json::from_str(&report).unwrap()
}

/// A click at a point of the page (CSS pixels from the window's top left, as the probe gives).
fn click_at(app: &str, at: &serde_json::Value) {
    let geo = xdotool(&["getwindowgeometry", "--shell", app]);
    let val = |k: &str| geo.lines().find_map(|l| l.strip_prefix(&format!("{k}="))).and_then(|v| v.parse::<i64>().ok()).unwrap();
    let (x, y) = (val("X") + at["x"].as_i64().expect("a point"), val("Y") + at["y"].as_i64().expect("a point"));
    xdotool(&["mousemove", "--sync", &x.to_string(), &y.to_string()]);
    xdotool(&["click", "1"]);
}

#[test]
fn what_the_window_shows_is_what_is_filed() {
    let _display = DISPLAY_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    assert!(std::env::var("DISPLAY").is_ok_and(|d| !d.is_empty()), "no DISPLAY: run the suite with scripts/test, which starts Xvfb");
    let lib = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    library_with(lib.path(), &["NIKE_2019_10K", "JOHNSON_JOHNSON_2023Q2_EARNINGS"], &[]);
    let (_procs, rx) = start_probed(lib.path(), home.path());
    let app = window("10-K Lens", 30);
    // tall enough that the answer's buttons (exports, follow-up) are on screen to be clicked
    xdotool(&["windowsize", &app, "1280", "1300"]);
    std::thread::sleep(Duration::from_secs(3));
    let question = "What are Nike's total current assets at the end of FY2019?";
    ask_in_window(&app, lib.path(), question);
    // the answer names each figure's year and unit; the page its printed number
    let asked = probe(&app, &rx);
    assert_eq!(asked["answer"], "Total current assets — FY2019: $16,525 million; FY2018: $15,134 million", "{asked}");
    assert_eq!(asked["support"], "Supported by the cited page", "{asked}");
    assert!(asked["viewer"].as_str().unwrap().ends_with("p. 52 (PDF page 54)"), "{asked}");
    screenshot("app-answer-years.png");
    // the answer's evidence as a workbook (Export (Excel)) and the page's tables (Tables
    // (Excel)), each saved through the native dialog and read back by openpyxl: the figures with
    // their page, box and the filing's sha256
    let on = |what: &str| {
        let at = &asked["at"][what];
        assert!(at["y"].as_i64().is_some_and(|y| (0..1300).contains(&y)), "{what} is not on screen: {asked}");
        at.clone()
    };
    click_at(&app, &on("export_xlsx"));
    saved_in_dialog("Save spreadsheet", "nike-evidence", &home.path().join("nike-evidence.xlsx"), "failed-save-xlsx.png");
    let book = workbook_text(&home.path().join("nike-evidence.xlsx"));
    let sha = sha256_of(&corpus_pdf("NIKE_2019_10K"));
    assert!(book.contains("# Answers") && book.contains("# Evidence"), "{book}");
    // (this answer quotes its line, both years: the line as printed, its box, page and file)
    assert!(book.lines().any(|l| l.contains("Total current assets 16,525") && l.contains("NIKE_2019_10K#54") && l.contains(&sha)), "{book}");
    xdotool(&["windowfocus", "--sync", &app]);
    std::thread::sleep(Duration::from_millis(500));
    click_at(&app, &on("tables_xlsx"));
    saved_in_dialog("Save the page's tables", "nike-tables", &home.path().join("nike-tables.xlsx"), "failed-save-tables.png");
    let tables = workbook_text(&home.path().join("nike-tables.xlsx"));
    assert!(tables.lines().any(|l| l == "Total current assets\t16525\t15134"), "{tables}");
    // letters typed outside the page viewer never turn pages; on the page they do
    click_at(&app, &asked["at"]["answer"]);
    xdotool(&["type", "n"]);
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(probe(&app, &rx)["viewer"], asked["viewer"], "n typed outside the viewer turned the page");
    click_at(&app, &asked["at"]["page"]);
    xdotool(&["type", "n"]);
    std::thread::sleep(Duration::from_millis(1200));
    let turned = probe(&app, &rx);
    assert!(turned["viewer"].as_str().unwrap().contains("PDF page 55"), "n on the page turns it: {turned}");
    // the workpaper, saved by typing a bare name, ends in .html and states the label shown
    xdotool(&["key", "--clearmodifiers", "ctrl+s"]);
    let first = save_in_dialog("Save workpaper", "as-asked", &home.path().join("as-asked.html"), "failed-save-as-asked.png");
    assert!(first.contains("Supported by the cited page") && first.contains("FY2019: $16,525 million"), "the workpaper states the answer and label shown");

    // the Log reopens the answer with the question as asked, the same answer and label
    xdotool(&["windowfocus", "--sync", &app]);
    xdotool(&["key", "--clearmodifiers", "alt+3"]);
    std::thread::sleep(Duration::from_millis(1500));
    let log = probe(&app, &rx);
    click_at(&app, &log["at"]["reopen"]);
    std::thread::sleep(Duration::from_secs(2));
    let reopened = probe(&app, &rx);
    assert_eq!(reopened["view"], "ask", "{reopened}");
    assert_eq!(reopened["question"], question, "the question box holds the question as asked: {reopened}");
    assert_eq!((&reopened["answer"], &reopened["support"]), (&asked["answer"], &asked["support"]), "{reopened}");
    xdotool(&["key", "--clearmodifiers", "ctrl+s"]);
    let again = save_in_dialog("Save workpaper", "reopened", &home.path().join("reopened.html"), "failed-save-reopened.png");
    assert!(
        again.contains("Supported by the cited page") && again.contains("FY2019: $16,525 million"),
        "the reopened answer's workpaper states the same label"
    );

    // the Library names each company as its filing prints it
    xdotool(&["key", "--clearmodifiers", "alt+2"]);
    std::thread::sleep(Duration::from_millis(1500));
    let companies = probe(&app, &rx)["companies"].clone();
    assert!(companies.as_array().unwrap().iter().any(|c| c == "Johnson & Johnson"), "{companies}");

    // a follow-up in the window: "Ask a follow-up" under the reopened answer, then only the
    // period typed; Nike and the figure are kept, and the line above the answer says so
    xdotool(&["key", "--clearmodifiers", "alt+1"]);
    std::thread::sleep(Duration::from_millis(1000));
    let shown = probe(&app, &rx);
    click_at(&app, &shown["at"]["follow_up"]);
    std::thread::sleep(Duration::from_millis(500));
    let before = logged(lib.path());
    xdotool(&["type", "--delay", "10", "and in FY2018?"]);
    xdotool(&["key", "Return"]);
    let t0 = Instant::now();
    while logged(lib.path()) == before {
        assert!(t0.elapsed().as_secs() < 60, "the follow-up typed in the window was not answered");
        std::thread::sleep(Duration::from_millis(300));
    }
    std::thread::sleep(Duration::from_secs(2));
    let followed = probe(&app, &rx);
    assert!(followed["answer"].as_str().unwrap().contains("15,134"), "{followed}");
    assert!(followed["reading"].as_str().unwrap().starts_with("Follow-up of #"), "{followed}");
    screenshot("app-follow-up.png");
}
