//! Time pdfium extraction alone: `cargo run --release --example extract_timing -- FILE.pdf`
fn main() {
    for a in std::env::args().skip(1) {
        let p = std::path::PathBuf::from(&a);
        let bytes = std::fs::read(&p).unwrap();
        let t = std::time::Instant::now();
        let pages = lens_core::extract::extract(&p, &bytes).unwrap();
        let e = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let mut n = 0;
        for pg in &pages {
            n += lens_core::boxes::encode(&pg.boxes).len();
        }
        let enc = t.elapsed().as_secs_f64();
        let chars: usize = pages.iter().map(|p| p.boxes.len()).sum();
        println!(
            "{a}: {} pages, {chars} chars, extract {e:.2}s ({:.0} pages/s), encode {enc:.3}s, {} bytes boxes ({:.2} B/char)",
            pages.len(),
            pages.len() as f64 / e,
            n,
            n as f64 / chars as f64
        );
    }
}
