//! OCR on a real scan: an image-only PDF made from a corpus page is ingested, OCR'd, found by
//! search, and highlighted where the words are.
mod common;
use common::*;
use lens_core::evidence::{locate, FoundBy};
use lens_core::ingest::{ingest, IngestOptions};
use lens_core::ocr::{self, OcrOptions};
use lens_core::{Library, SearchRequest};
use std::sync::atomic::AtomicBool;

fn iou(a: (f32, f32, f32, f32), b: (f32, f32, f32, f32)) -> f32 {
    let ix = (a.2.min(b.2) - a.0.max(b.0)).max(0.0);
    let iy = (a.3.min(b.3) - a.1.max(b.1)).max(0.0);
    let inter = ix * iy;
    inter / ((a.2 - a.0) * (a.3 - a.1) + (b.2 - b.0) * (b.3 - b.1) - inter)
}

#[test]
fn scanned_page_is_searchable_and_highlighted_on_the_word() {
    let work = tempfile::tempdir().unwrap();
    let scan = work.path().join("scanned_cash_flows.pdf");
    // a real "scan": 3M's cash flow statement rendered to a 150 DPI JPEG, no text layer
    assert_eq!(lens_core::scan::make_image_only(&fb("3M_2018_10K"), &[60], 150.0, &scan).unwrap(), 1);
    let mut lib = Library::open(&work.path().join("lib")).unwrap();
    let never = AtomicBool::new(false);
    let s = ingest(&mut lib, std::slice::from_ref(&scan), &IngestOptions::default(), &never, &mut |_| {}).unwrap();
    assert_eq!((s.added, s.needs_ocr_pages), (1, 1), "an image-only page has no text layer");
    let mut req = SearchRequest::new("purchases of property plant and equipment");
    req.filter = false;
    assert!(lib.search(&req).unwrap().hits.is_empty(), "invisible to search before OCR");

    let mut events = Vec::new();
    let o = ocr::run(&mut lib, &OcrOptions::default(), &never, &mut |e| events.push(e.clone())).unwrap();
    assert_eq!((o.pages, o.failed), (1, 0));
    let page = lib.store().page("scanned_cash_flows", 1).unwrap();
    assert_eq!(page.source, "ocr");
    assert!(!page.needs_ocr);
    assert!(page.text.contains("Purchases of property"), "{}", &page.text[..page.text.len().min(600)]);

    // Found by search...
    let hits = lib.search(&req).unwrap().hits;
    assert_eq!((hits[0].doc_id.as_str(), hits[0].page), ("scanned_cash_flows", 1));
    // ...and highlighted where the words are: the OCR box matches the born-digital text layer's.
    let doc = lib.document("scanned_cash_flows").unwrap();
    let boxes = lib.store().page_boxes(&doc, 1).unwrap();
    let ev = locate(&page.text, &boxes, Some("Purchases of property, plant and equipment"), None);
    assert_eq!(ev.found_by, FoundBy::Quote);
    assert_eq!(ev.boxes.len(), 1);
    let original = lens_core::extract::extract(&fb("3M_2018_10K"), &std::fs::read(fb("3M_2018_10K")).unwrap()).unwrap().swap_remove(59);
    let truth = locate(&original.text, &original.boxes, Some("Purchases of property, plant and equipment"), None);
    let (a, b) = (&ev.boxes[0], &truth.boxes[0]);
    let overlap = iou((a.l, a.b, a.r, a.t), (b.l, b.b, b.r, b.t));
    assert!(overlap > 0.5, "OCR box {a:?} vs text-layer box {b:?}: IoU {overlap}");

    // Nothing left to do: a second run is a no-op (resumable).
    let again = ocr::run(&mut lib, &OcrOptions::default(), &never, &mut |_| {}).unwrap();
    assert_eq!(again.pages, 0);
}

#[test]
fn missing_tesseract_or_failing_pages_are_reported_and_ingest_goes_on() {
    let work = tempfile::tempdir().unwrap();
    let scan = work.path().join("scan.pdf");
    lens_core::scan::make_image_only(&fb("AMCOR_2022_8K_dated-2022-07-01"), &[1, 2], 72.0, &scan).unwrap();
    let mut lib = Library::open(&work.path().join("lib")).unwrap();
    let never = AtomicBool::new(false);
    ingest(&mut lib, &[scan, fb("ULTABEAUTY_2023Q4_EARNINGS")], &IngestOptions::default(), &never, &mut |_| {}).unwrap();
    assert_eq!(lib.documents().unwrap().len(), 2);

    // No Tesseract at all: a clear error saying what to install.
    let none = OcrOptions { tesseract: "/nonexistent/tesseract".into(), ..Default::default() };
    let e = ocr::run(&mut lib, &none, &never, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("install the Debian packages tesseract-ocr"), "{e}");
    // A language pack that is not installed: one clear error naming the package.
    let bad = OcrOptions { langs: "eng+xyz".into(), ..Default::default() };
    let e = ocr::run(&mut lib, &bad, &never, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("tesseract-ocr-xyz"), "{e}");

    // A Tesseract that fails on every page: each page recorded as failed with the reason.
    let fake = work.path().join("fake-tesseract");
    std::fs::write(
        &fake,
        "#!/bin/sh\nif [ \"$1\" = --list-langs ]; then printf 'List of available languages (1):\\neng\\n'; exit 0; fi\necho 'simulated crash' >&2\nexit 3\n",
    )
    .unwrap();
    std::process::Command::new("chmod").arg("+x").arg(&fake).status().unwrap();
    let failing = OcrOptions { tesseract: fake.display().to_string(), ..Default::default() };
    let o = ocr::run(&mut lib, &failing, &never, &mut |_| {}).unwrap();
    assert_eq!((o.pages, o.failed), (0, 2));
    let n: i64 = lib.store().conn().query_row("SELECT count(*) FROM pages WHERE ocr_error LIKE '%simulated crash%'", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 2);
    // The text-layer document is untouched and searchable.
    let mut req = SearchRequest::new("Ulta Beauty net sales");
    req.filter = false;
    assert!(lib.search(&req).unwrap().hits.iter().any(|h| h.doc_id == "ULTABEAUTY_2023Q4_EARNINGS"));
    // Failed pages are skipped next time unless retried.
    assert!(lib.store().ocr_todo(None, false).unwrap().is_empty());
    assert_eq!(lib.store().ocr_todo(None, true).unwrap().len(), 2);
}

#[test]
fn rotated_scan_is_read_upright() {
    // A page scanned sideways: the rendered page turned 90 degrees, on a landscape page.
    let work = tempfile::tempdir().unwrap();
    let r = lens_core::pdf::render(&fb("3M_2018_10K"), 60, 150.0).unwrap();
    let rot = image::imageops::rotate90(&image::DynamicImage::ImageRgba8(r.image).to_rgb8());
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 85).encode_image(&rot).unwrap();
    let page = lens_core::scan::ImagePage { jpeg, px_w: rot.width(), px_h: rot.height(), pt_w: r.page_height, pt_h: r.page_width };
    let pdf = work.path().join("sideways.pdf");
    std::fs::write(&pdf, lens_core::scan::images_to_pdf(vec![page])).unwrap();
    let mut lib = Library::open(&work.path().join("lib")).unwrap();
    let never = AtomicBool::new(false);
    ingest(&mut lib, &[pdf], &IngestOptions::default(), &never, &mut |_| {}).unwrap();
    let o = ocr::run(&mut lib, &OcrOptions::default(), &never, &mut |_| {}).unwrap();
    assert_eq!(o.pages, 1);
    let p = lib.store().page("sideways", 1).unwrap();
    assert!(p.text.contains("Purchases of property"), "read upright: {}", &p.text[..p.text.len().min(400)]);
    // and the words' boxes still lie on the (landscape) page
    let doc = lib.document("sideways").unwrap();
    let boxes = lib.store().page_boxes(&doc, 1).unwrap();
    let ev = locate(&p.text, &boxes, Some("Purchases of property, plant and equipment"), None);
    assert_eq!(ev.found_by, FoundBy::Quote);
    for b in &ev.boxes {
        assert!(b.l >= 0.0 && b.r <= p.width + 1.0 && b.b >= 0.0 && b.t <= p.height + 1.0, "{b:?} outside {}x{}", p.width, p.height);
    }
}
