//! Real PDFs from the corpus through ingest -> store -> index -> search.
mod common;
use common::*;
use lens_core::ingest::{ingest, IngestEvent, IngestOptions, Outcome};
use lens_core::{LensError, Library, SearchRequest};
use std::sync::atomic::AtomicBool;

fn run_ingest(lib: &mut Library, paths: &[std::path::PathBuf]) -> (lens_core::ingest::IngestSummary, Vec<IngestEvent>) {
    let mut events = Vec::new();
    let s = ingest(lib, paths, &IngestOptions::default(), &AtomicBool::new(false), &mut |e| events.push(e.clone())).unwrap();
    (s, events)
}

#[test]
fn ten_k_page_text_boxes_metadata_and_search() {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    let (s, _) = run_ingest(&mut lib, &[fb("3M_2018_10K"), fb("AMCOR_2022_8K_dated-2022-07-01")]);
    assert_eq!((s.added, s.failed, s.pages), (2, 0, 169));

    let d = lib.document("3M_2018_10K").unwrap();
    assert_eq!((d.pages, d.company.as_deref(), d.year, d.form.as_deref()), (160, Some("3M"), Some(2018), Some("10-K")));
    assert_eq!(d.sha256.len(), 64);
    let amcor = lib.document("AMCOR_2022_8K_dated-2022-07-01").unwrap();
    assert_eq!(amcor.form.as_deref(), Some("8-K"));

    // Page 60 is the cash flow statement; its heading is found and each char has a box.
    let p = lib.store().page("3M_2018_10K", 60).unwrap();
    assert!(p.text.contains("Purchases of property, plant and equipment"), "{}", &p.text[..300]);
    assert!(p.heading.contains("Consolidated Statement of Cash Flow"), "heading: {}", p.heading);
    let boxes = lib.store().page_boxes(&d, 60).unwrap();
    assert_eq!(boxes.len(), p.text.chars().count());
    // The box of the "P" of "Purchases" lies on the page, left of the numbers.
    let idx = p.text.find("Purchases of property").unwrap();
    let ci = p.text[..idx].chars().count();
    let b = boxes[ci];
    assert!(b.l > 0.0 && b.r < p.width && b.b > 0.0 && b.t < p.height && b.r > b.l, "{b:?}");

    // The classic metrics question: the filter picks the 3M 2018 10-K, the statement ranks high.
    let q = "What is the FY2018 capital expenditure amount (in USD millions) for 3M? Give a response to the question by relying on the details shown in the cash flow statement.";
    let r = lib.search(&SearchRequest::new(q)).unwrap();
    let f = r.filter.as_ref().expect("filter applied");
    assert_eq!(f.groups, vec![vec!["3M_2018_10K".to_string()]]);
    let pos = r.hits.iter().position(|h| h.doc_id == "3M_2018_10K" && h.page == 60).expect("cash flow statement in the top 10");
    assert!(pos < 5, "cash flow statement at rank {}", pos + 1);
    assert!(!r.hits[0].snippet.is_empty());

    // Explicit scope and unknown documents
    let mut req = SearchRequest::new("supplemental indenture guaranteed senior notes");
    req.docs = vec!["AMCOR_2022_8K_dated-2022-07-01".into()];
    let r = lib.search(&req).unwrap();
    assert!(r.hits.iter().all(|h| h.doc_id.starts_with("AMCOR")) && !r.hits.is_empty());
    req.docs = vec!["NOPE".into()];
    assert!(matches!(lib.search(&req), Err(LensError::UnknownDocument(_))));
}

#[test]
fn reingest_is_noop_and_changed_file_replaces_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    let f = src.path().join("REPORT_2023_10K.pdf");
    std::fs::copy(fb("ULTABEAUTY_2023Q4_EARNINGS"), &f).unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    let (s, _) = run_ingest(&mut lib, std::slice::from_ref(&f));
    assert_eq!(s.added, 1);
    let (s, ev) = run_ingest(&mut lib, std::slice::from_ref(&f));
    assert_eq!((s.added, s.unchanged), (0, 1));
    assert!(matches!(ev[0], IngestEvent::Unchanged { .. }));

    // Same name, other content: replaced; old pages gone from search, new ones present.
    std::fs::copy(fb("AMCOR_2022_8K_dated-2022-07-01"), &f).unwrap();
    let (s, ev) = run_ingest(&mut lib, std::slice::from_ref(&f));
    assert_eq!(s.replaced, 1);
    assert!(ev.iter().any(|e| matches!(e, IngestEvent::Stored { outcome: Outcome::Replaced, .. })));
    assert_eq!(lib.documents().unwrap().len(), 1);
    assert_eq!(lib.document("REPORT_2023_10K").unwrap().pages, 9);
    assert_eq!(lib.num_indexed_pages(), 9);
    let mut req = SearchRequest::new("Ulta Beauty net sales comparable sales");
    req.filter = false;
    assert!(lib.search(&req).unwrap().hits.iter().all(|h| h.page <= 9));
    let r = lib.search(&SearchRequest::new("supplemental indenture")).unwrap();
    assert!(!r.hits.is_empty());

    // Remove: gone from documents, pages and search
    lib.remove("REPORT_2023_10K").unwrap();
    assert!(lib.documents().unwrap().is_empty());
    assert_eq!(lib.num_indexed_pages(), 0);
    assert!(lib.search(&SearchRequest::new("supplemental indenture")).unwrap().hits.is_empty());
    assert!(matches!(lib.store().page("REPORT_2023_10K", 1), Err(LensError::UnknownDocument(_))));
}

#[test]
fn bad_files_get_one_clear_line_and_good_ones_land() {
    let dir = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    let d = src.path();
    std::fs::write(d.join("empty.pdf"), b"").unwrap();
    std::fs::write(d.join("notes.pdf"), b"these are meeting notes, not a PDF at all\n").unwrap();
    let good = std::fs::read(fb("AMCOR_2022_8K_dated-2022-07-01")).unwrap();
    std::fs::write(d.join("truncated.pdf"), &good[..good.len() / 3]).unwrap();
    std::fs::copy(fixture("encrypted.pdf"), d.join("locked.pdf")).unwrap();
    std::fs::write(d.join("good.pdf"), &good).unwrap();
    std::fs::write(d.join("readme.txt"), b"not scanned").unwrap();

    let mut lib = Library::open(dir.path()).unwrap();
    let (s, ev) = run_ingest(&mut lib, &[d.to_path_buf()]);
    let failed: Vec<(String, String)> = ev
        .iter()
        .filter_map(|e| match e {
            IngestEvent::Failed { path, code, .. } => Some((std::path::Path::new(path).file_name().unwrap().to_string_lossy().to_string(), code.clone())),
            _ => None,
        })
        .collect();
    let mut failed_sorted = failed.clone();
    failed_sorted.sort();
    // pdfium repairs some truncated files (the xref is rebuilt); either way it is one line.
    let truncated_code = failed.iter().find(|f| f.0 == "truncated.pdf").map(|f| f.1.clone());
    assert!(failed_sorted.contains(&("empty.pdf".into(), "pdf_empty".into())), "{failed:?}");
    assert!(failed_sorted.contains(&("notes.pdf".into(), "not_pdf".into())), "{failed:?}");
    assert!(failed_sorted.contains(&("locked.pdf".into(), "pdf_encrypted".into())), "{failed:?}");
    assert_eq!(failed.iter().filter(|f| f.0 == "locked.pdf").count(), 1);
    assert_eq!(s.skipped_non_pdf, 1);
    assert!(lib.document("good").is_ok());
    match truncated_code {
        Some(c) => assert_eq!(c, "pdf_corrupt"),
        None => assert!(lib.document("truncated").is_ok(), "truncated neither failed nor stored"),
    }
    // The messages name the file and the reason.
    for e in &ev {
        if let IngestEvent::Failed { path, message, .. } = e {
            assert!(message.contains(path.as_str()), "{message}");
        }
    }
    // Library consistent: every document's pages are stored and indexed.
    let docs = lib.documents().unwrap();
    let pages: u64 = docs.iter().map(|d| d.pages as u64).sum();
    assert_eq!(lib.num_indexed_pages(), pages);
    // Failed jobs are recorded with their reason.
    let n: i64 = lib.store().conn().query_row("SELECT count(*) FROM ingest_jobs WHERE status='failed' AND error_code IS NOT NULL", [], |r| r.get(0)).unwrap();
    assert!(n >= 3);
}

#[test]
fn interrupted_ingest_leaves_nothing_half_visible() {
    // Simulate a crash after a document was stored and indexed but before it was published.
    let dir = tempfile::tempdir().unwrap();
    {
        let mut lib = Library::open(dir.path()).unwrap();
        run_ingest(&mut lib, &[fb("AMCOR_2022_8K_dated-2022-07-01")]);
        let pages = lens_core::extract::extract(&fb("ULTABEAUTY_2023Q4_EARNINGS"), &std::fs::read(fb("ULTABEAUTY_2023Q4_EARNINGS")).unwrap()).unwrap();
        let new: Vec<lens_core::store::NewPage> = pages
            .iter()
            .map(|p| lens_core::store::NewPage {
                page: p.page,
                text: &p.text,
                heading: "",
                boxes: &p.boxes,
                width: p.width,
                height: p.height,
                needs_ocr: false,
                label: None,
            })
            .collect();
        let meta = lens_core::meta::guess("ULTABEAUTY_2023Q4_EARNINGS", &[]);
        let (mut w, _) = lib.writer().unwrap();
        let key = lib.store_mut().insert_pending("ULTABEAUTY_2023Q4_EARNINGS", "x", 1, "abc", &meta, &new).unwrap();
        for p in &pages {
            w.add_page(key, p.page, &p.text, "").unwrap();
        }
        w.commit().unwrap();
        // "killed" here: never published
    }
    let mut lib = Library::open(dir.path()).unwrap();
    // Readers never see the pending document.
    assert_eq!(lib.documents().unwrap().len(), 1);
    let mut req = SearchRequest::new("Ulta Beauty net sales");
    req.filter = false;
    assert!(lib.search(&req).unwrap().hits.iter().all(|h| h.doc_id.starts_with("AMCOR")));
    // The next writer rolls it back, and the next ingest finishes the job.
    let (s, _) = run_ingest(&mut lib, &[fb("ULTABEAUTY_2023Q4_EARNINGS")]);
    assert_eq!((s.recovered_pending, s.added), (1, 1));
    assert_eq!(lib.num_indexed_pages(), 9 + 9);
}

#[test]
fn ask_streams_pages_then_text_then_the_response() {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    run_ingest(&mut lib, &[fb("3M_2018_10K")]);
    let req = lens_core::ask::AskRequest::new("What is the FY2018 capital expenditure amount (in USD millions) for 3M? Use the cash flow statement.");
    let mut events = Vec::new();
    let answerer = lens_core::answer::builtin(req.answerer).unwrap();
    let r = lib
        .ask_with(&req, answerer.as_ref(), &mut |e| {
            events.push(serde_json::to_value(&e).unwrap());
            true
        })
        .unwrap();
    let kinds: Vec<&str> = events.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"pages"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"done"));
    assert!(kinds[1..kinds.len() - 1].iter().all(|k| *k == "text"), "{kinds:?}");
    let text: String = events.iter().filter(|e| e["event"] == "text").map(|e| e["text"].as_str().unwrap()).collect();
    assert_eq!(text, r.answer.answer);
    assert_eq!(events[0]["pages"].as_array().unwrap().len(), r.pages.len());
    assert!(r.pages.contains(&lens_core::PageRef::new("3M_2018_10K", 60)), "{:?}", r.pages);
    assert_eq!(events.last().unwrap()["response"]["log_id"], r.log_id);
}

/// A stand-in for a model answerer: cites P1 with a fixed answer and quote.
struct Scripted {
    answer: &'static str,
    quote: &'static str,
}

impl lens_core::answer::Answerer for Scripted {
    fn kind(&self) -> lens_core::answer::AnswererKind {
        lens_core::answer::AnswererKind::Qwen
    }
    fn answer(&self, _q: &lens_core::question::Question, pages: &[lens_core::answer::PageInput]) -> lens_core::Result<lens_core::answer::Answer> {
        let mut a = lens_core::answer::Answer::not_found(self.kind(), 1.0);
        a.answer = self.answer.into();
        a.not_found = false;
        a.citations = vec![pages[0].page_ref()];
        a.quote = Some(self.quote.into());
        a.model = Some(Default::default());
        Ok(a)
    }
}

#[test]
fn a_model_quote_is_boxed_where_it_is_and_a_made_up_one_nowhere() {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    run_ingest(&mut lib, &[fb("3M_2018_10K")]);
    let mut req = lens_core::ask::AskRequest::new("Which cash flows from operating activities did 3M report in 2018?");
    req.docs = vec!["3M_2018_10K".into()];
    // a quote that is on the page: boxed, found by quote
    let probe = lib.retrieve_for(&req).unwrap();
    let page_text = &probe.pages[0].text;
    let line = page_text.lines().map(str::trim).find(|l| l.split_whitespace().count() >= 4).unwrap().to_string();
    let quote: &'static str = Box::leak(line.into_boxed_str());
    let r = lib.ask_with(&req, &Scripted { answer: "see the page", quote }, &mut |_| true).unwrap();
    assert_eq!(r.answer.found_by, lens_core::evidence::FoundBy::Quote, "{:?}", r.notes);
    assert!(!r.boxes.is_empty());
    // a made-up quote, and an answer whose number is printed on the page: nothing boxed, said
    let number = page_text.split_whitespace().find(|w| w.len() >= 5 && w.chars().all(|c| c.is_ascii_digit() || c == ',')).unwrap_or("2018").to_string();
    let answer: &'static str = Box::leak(format!("It was {number} million").into_boxed_str());
    let r = lib.ask_with(&req, &Scripted { answer, quote: "words that appear on no page of this filing" }, &mut |_| true).unwrap();
    assert!(r.boxes.is_empty(), "a made-up quote is not replaced by the answer's numbers: {:?}", r.boxes);
    assert_eq!(r.answer.found_by, lens_core::evidence::FoundBy::None);
    // said in a user's words; the note as written (the quote, the page id) behind Details
    assert!(r.notes.iter().any(|n| n == "The model's quote is not printed on the page it cites: nothing is highlighted, check the page."), "{:?}", r.notes);
    assert!(r.details.iter().any(|n| n.contains("is not on 3M_2018_10K#") && n.contains("nothing is boxed")), "{:?}", r.details);

    // a model chosen, the calculator answers a figure it works out: the answer says so
    let req = lens_core::ask::AskRequest::new("What is the FY2018 capital expenditure amount (in USD millions) for 3M?");
    let r = lib.ask_with(&req, &Scripted { answer: "unused", quote: "unused" }, &mut |_| true).unwrap();
    assert_eq!(r.answer.calculation.as_ref().and_then(|c| c.result.as_deref()), Some("$1,577 million"));
    // in a user's words (no answerer's name), the note as written under Details
    assert!(
        r.notes.iter().any(|n| n.starts_with("Worked out by the calculator from the statements' figures, not written by the language model: ")),
        "{:?}",
        r.notes
    );
    assert!(
        r.details.iter().any(|n| n.starts_with("worked out by the calculator from the statements' figures, not written by the language model (qwen)")),
        "{:?}",
        r.details
    );
}

#[test]
fn the_pdfs_own_page_labels_are_kept_and_shown_beside_the_index() {
    // an annual report whose /PageLabels number the cover pages A and B, then 1, 2, ...
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    let doc = "a69ebee82a9acd54117407ca3697db0d7bfbfdac";
    run_ingest(&mut lib, &[corpus().join(format!("erc_round2/pdfs/{doc}.pdf"))]);
    let label = |p: u32| lib.store().page(doc, p).unwrap().pdf_label;
    assert_eq!((label(1).as_deref(), label(2).as_deref(), label(3).as_deref(), label(132).as_deref()), (Some("A"), Some("B"), Some("1"), Some("130")));
    let p = lib.store().page(doc, 3).unwrap();
    let shown = lens_core::pagelabel::describe(lens_core::pagelabel::label(p.pdf_label.as_deref(), &p.text, 3).as_deref(), 3);
    assert_eq!(shown, "p. 1 (PDF page 3)");
    // a PDF without labels: none stored (the printed number is read instead)
    run_ingest(&mut lib, &[fb("AMCOR_2022_8K_dated-2022-07-01")]);
    assert_eq!(lib.store().page("AMCOR_2022_8K_dated-2022-07-01", 1).unwrap().pdf_label, None);
}
