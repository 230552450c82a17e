//! Evidence located on real corpus pages from the stored character boxes, and drawn on the
//! rendered page.
mod common;
use common::*;
use lens_core::evidence::{locate, FoundBy};
use lens_core::pdf::PageText;

fn page(path: &std::path::Path, n: u32) -> PageText {
    let bytes = std::fs::read(path).unwrap();
    lens_core::extract::extract(path, &bytes).unwrap().into_iter().nth(n as usize - 1).unwrap()
}

fn chars_in(p: &PageText, b: &lens_core::evidence::EvidenceBox) -> String {
    // the page characters whose box centre lies inside the highlight
    p.text
        .chars()
        .zip(&p.boxes)
        .filter(|(_, cb)| {
            !cb.is_empty() && (cb.l + cb.r) / 2.0 >= b.l && (cb.l + cb.r) / 2.0 <= b.r && (cb.b + cb.t) / 2.0 >= b.b && (cb.b + cb.t) / 2.0 <= b.t
        })
        .map(|(c, _)| c)
        .collect()
}

#[test]
fn quote_on_a_ten_k_page_and_a_table_row() {
    let p = page(&fb("3M_2018_10K"), 60);
    let ev = locate(&p.text, &p.boxes, Some("Purchases of property, plant and equipment (PP&E)"), None);
    assert_eq!(ev.found_by, FoundBy::Quote);
    assert_eq!(ev.boxes.len(), 1, "one line: {:?}", ev.boxes);
    let b = &ev.boxes[0];
    assert!(b.l > 0.0 && b.r < p.width && b.b > 0.0 && b.t < p.height && b.t - b.b < 20.0, "{b:?}");
    // (spaces have no glyph box, so they are not among the covered characters)
    assert!(chars_in(&p, b).starts_with("Purchasesofproperty"), "{}", chars_in(&p, b));

    // A table row: label and numbers, with the PDF's own spacing.
    let ev = locate(&p.text, &p.boxes, Some("Depreciation and amortization 1,488 1,544 1,474"), None);
    assert_eq!(ev.found_by, FoundBy::Quote);
    assert_eq!(ev.boxes.len(), 1);
    assert!(ev.boxes[0].text.contains("1,488") && ev.boxes[0].text.contains("1,474"), "{:?}", ev.boxes);
}

#[test]
fn curly_apostrophe_and_hyphenated_line_break() {
    // 3M page 4 prints "The Company’s ticker symbol" with a curly apostrophe.
    let p = page(&fb("3M_2018_10K"), 4);
    assert!(p.text.contains("Company’s ticker"));
    let ev = locate(&p.text, &p.boxes, Some("The Company's ticker symbol is MMM"), None);
    assert_eq!(ev.found_by, FoundBy::Quote);
    assert_eq!(ev.boxes.len(), 2, "the quote spans two lines: {:?}", ev.boxes);
    assert!(ev.boxes[1].text.starts_with("MMM"), "{:?}", ev.boxes);

    // General Mills FY2020 page 36 breaks "constant-currency" across lines.
    let p = page(&fb("GENERALMILLS_2020_10K"), 36);
    assert!(p.text.contains("constant-\n"), "the page has the hyphenated break");
    let ev = locate(&p.text, &p.boxes, Some("earnings per share growth, on a constant-currency basis"), None);
    assert_eq!(ev.found_by, FoundBy::Quote);
    assert_eq!(ev.boxes.len(), 2, "{:?}", ev.boxes);
    assert!(ev.boxes[1].text.starts_with("currency basis"), "{:?}", ev.boxes);
}

#[test]
fn numbers_in_another_scale_and_absent_quotes() {
    let p = page(&fb("3M_2018_10K"), 60);
    // The statement prints (1,577) in millions; the answer says $1.577 billion.
    let ev = locate(&p.text, &p.boxes, Some("capital spending was one and a half billion"), Some("$1.577 billion"));
    assert_eq!(ev.found_by, FoundBy::Numbers);
    assert_eq!(ev.boxes.len(), 1, "{:?}", ev.boxes);
    assert_eq!(ev.boxes[0].text, "1,577");
    // A quote that is not on the page, and no numbers: none, not an error.
    let ev = locate(&p.text, &p.boxes, Some("Revenue from the sale of spaceships to Mars"), Some("many"));
    assert_eq!(ev.found_by, FoundBy::None);
    assert!(ev.boxes.is_empty());
    // A year alone is never matched as a number.
    assert_eq!(locate(&p.text, &p.boxes, None, Some("in 2018")).found_by, FoundBy::None);
}

#[test]
fn rendered_box_lies_on_the_line() {
    let path = fb("3M_2018_10K");
    let p = page(&path, 60);
    let ev = locate(&p.text, &p.boxes, Some("Purchases of property, plant and equipment (PP&E)"), None);
    let plain = lens_core::pdf::render(&path, 60, 110.0).unwrap();
    let img = lens_core::render::render_page(&path, 60, 110.0, &ev.boxes).unwrap();
    assert_eq!((img.width(), img.height()), (plain.image.width(), plain.image.height()));
    let scale = 110.0 / 72.0;
    let (x0, y0, x1, y1) = lens_core::render::to_pixels(&ev.boxes[0], plain.page_height, scale);
    // Inside the box: the text is still there (dark pixels) and the paper turned yellow.
    let mut dark_before = 0;
    let mut yellow = 0;
    for y in (y0 + 3)..(y1 - 2) {
        for x in (x0 + 3)..(x1 - 2) {
            let a = plain.image.get_pixel(x as u32, y as u32).0;
            let b = img.get_pixel(x as u32, y as u32).0;
            if a[0] < 100 && a[1] < 100 && a[2] < 100 {
                dark_before += 1;
            }
            if b[2] < 200 && b[0] > 200 && b[1] > 200 {
                yellow += 1;
            }
        }
    }
    assert!(dark_before > 100, "the box covers printed text ({dark_before} dark pixels)");
    assert!(yellow > 500, "the box is filled ({yellow} yellow pixels)");
    // Outline drawn; pixels well outside the box untouched.
    assert_eq!(&img.get_pixel(x0 as u32, ((y0 + y1) / 2) as u32).0[..3], &[230, 110, 0]);
    assert_eq!(img.get_pixel(5, 5), plain.image.get_pixel(5, 5));
    // DPI out of range is a clear error.
    assert!(matches!(lens_core::pdf::render(&path, 60, 900.0), Err(lens_core::LensError::BadInput(_))));
    assert!(matches!(lens_core::pdf::render(&path, 999, 110.0), Err(lens_core::LensError::UnknownPage { .. })));
}
