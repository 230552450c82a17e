use pdfium_render::prelude::*;
fn main() {
    let a = std::env::args().nth(1).unwrap();
    let bytes = std::fs::read(&a).unwrap();
    let p = lens_core::pdf::pdfium().unwrap();
    let b = p.bindings();
    unsafe {
        let doc = b.FPDF_LoadMemDocument64(&bytes, None);
        let n = b.FPDF_GetPageCount(doc);
        let (mut t_load, mut t_text, mut t_uni, mut t_box) = (0.0, 0.0, 0.0, 0.0);
        for i in 0..n {
            let t = std::time::Instant::now();
            let page = b.FPDF_LoadPage(doc, i);
            t_load += t.elapsed().as_secs_f64();
            let t = std::time::Instant::now();
            let tp = b.FPDFText_LoadPage(page);
            t_text += t.elapsed().as_secs_f64();
            let c = b.FPDFText_CountChars(tp);
            let t = std::time::Instant::now();
            let mut s = 0u64;
            for j in 0..c {
                s += b.FPDFText_GetUnicode(tp, j) as u64;
            }
            t_uni += t.elapsed().as_secs_f64();
            let t = std::time::Instant::now();
            for j in 0..c {
                let (mut l, mut r, mut bo, mut tt) = (0.0, 0.0, 0.0, 0.0);
                b.FPDFText_GetCharBox(tp, j, &mut l, &mut r, &mut bo, &mut tt);
                s += l as u64;
            }
            t_box += t.elapsed().as_secs_f64();
            std::hint::black_box(s);
            b.FPDFText_ClosePage(tp);
            b.FPDF_ClosePage(page);
        }
        println!("{n} pages: load_page {t_load:.2}s text_load {t_text:.2}s unicode {t_uni:.2}s charbox {t_box:.2}s");
    }
}
