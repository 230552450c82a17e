//! Workpapers made from logged answers on a real filing: the worked capital expenditure of 3M's
//! FY2018 10-K (a calculation traced to its cell) and an extractive answer; read back as a user
//! would: the HTML's text and inline page image, the PDF's text through pdfium.
mod common;
use common::*;
use lens_core::ask::AskRequest;
use lens_core::workpaper;
use lens_core::Library;
use std::sync::atomic::AtomicBool;

fn library() -> (tempfile::TempDir, Library) {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    lens_core::ingest::ingest(&mut lib, &[fb("3M_2018_10K")], &Default::default(), &AtomicBool::new(false), &mut |_| {}).unwrap();
    (dir, lib)
}

#[test]
fn a_workpaper_holds_the_answer_its_calculation_and_the_boxed_pages() {
    let (dir, lib) = library();
    let calc = lib.ask(&AskRequest::new("What is the FY2018 capital expenditure amount (in USD millions) for 3M? Use the cash flow statement.")).unwrap();
    assert!(calc.answer.calculation.as_ref().and_then(|c| c.result.as_ref()).is_some(), "computed: {:?}", calc.answer.answer);
    lib.set_feedback(calc.log_id, 1, Some("tied to the 10-K cash flow statement"), None).unwrap();
    let plain = lib.ask(&AskRequest::new("Where is 3M's principal executive office?")).unwrap();
    let doc = lib.document("3M_2018_10K").unwrap();

    let mut w = lib.workpaper(&[calc.log_id, plain.log_id]).unwrap();
    assert_eq!(w.entries.len(), 2);
    let e = &w.entries[0];
    let op = &e.answer.calculation.as_ref().unwrap().operands[0];
    let x = e.exhibits.iter().find(|x| x.page == op.page).expect("the operand's page is an exhibit");
    assert!(x.role.contains("operand"), "{}", x.role);
    assert!(!x.boxes.is_empty(), "the operand's cell is boxed");
    assert_eq!(x.sha256, doc.sha256);
    assert_eq!(x.file_name, "3M_2018_10K.pdf");
    assert!(x.shown.contains(&format!("PDF page {}", op.page.page)) || x.shown == format!("p. {}", op.page.page), "{}", x.shown);
    assert!(x.document.starts_with("3M"), "{}", x.document);
    w.render(workpaper::DPI);
    assert!(w.entries.iter().flat_map(|e| &e.exhibits).all(|x| x.image.is_some()), "every page rendered");

    let html = workpaper::html(&w).unwrap();
    for want in [
        calc.question.text.as_str(),
        calc.answer.answer.as_str(),
        doc.sha256.as_str(),
        "tied to the 10-K cash flow statement",
        "marked right",
        "Worked calculation",
        "Purchases of property",
        "Checks:",
        "<strong>periods passed</strong>",
        plain.question.text.as_str(),
    ] {
        let want = want.replace('&', "&amp;").replace('\'', "&#39;");
        assert!(html.contains(&want), "the HTML workpaper lacks {want:?}");
    }
    assert!(html.matches("data:image/png;base64,").count() >= 2, "pages inline");
    assert!(!html.contains("<script"));

    // the PDF, read back with pdfium: the same facts, a page image per exhibit
    let pdf = workpaper::pdf(&w).unwrap();
    let path = dir.path().join("wp.pdf");
    std::fs::write(&path, &pdf).unwrap();
    let pages = lens_core::extract::extract(&path, &pdf).expect("pdfium reads the workpaper");
    assert!(pages.len() >= 2, "one answer per page at least: {}", pages.len());
    let text: String = pages.iter().map(|p| p.text.replace("\r\n", " ").replace('\n', " ")).collect::<Vec<_>>().join(" ");
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = squash(&text);
    for want in [
        "capital expenditure",
        "Purchases of property",
        "Supported by the cited page",
        "check concept passed",
        "marked right: tied to the 10-K cash flow statement",
        doc.sha256.as_str(),
        &format!("page 1 of {}", pages.len()),
    ] {
        assert!(text.contains(want), "the PDF workpaper lacks {want:?}");
    }
    let images = String::from_utf8_lossy(&pdf).matches("/Subtype /Image").count();
    assert_eq!(images, w.entries.iter().map(|e| e.exhibits.len()).sum::<usize>());
}

#[test]
fn bad_requests_are_refused_and_a_removed_document_is_named() {
    let (_dir, mut lib) = library();
    assert_eq!(lib.workpaper(&[]).unwrap_err().code(), "bad_input");
    assert_eq!(lib.workpaper(&[4242]).unwrap_err().code(), "not_found");
    assert_eq!(lib.workpaper(&vec![1; workpaper::MAX_ENTRIES + 1]).unwrap_err().code(), "bad_input");
    let r = lib.ask(&AskRequest::new("Where is 3M's principal executive office?")).unwrap();
    assert!(!r.answer.citations.is_empty());
    lib.remove("3M_2018_10K").unwrap();
    let mut w = lib.workpaper(&[r.log_id]).unwrap();
    w.render(workpaper::DPI);
    let x = &w.entries[0].exhibits[0];
    assert!(x.document.contains("no longer in the library") && x.image.is_none(), "{}", x.document);
    let html = workpaper::html(&w).unwrap();
    assert!(html.contains("page image not available") && html.contains(&r.question.text.replace('\'', "&#39;")));
    assert!(workpaper::pdf(&w).is_ok());
}
