//! A generator of hostile inputs for ingest: malformed, encrypted, empty, huge and bomb PDFs,
//! special files and a symlink loop, beside two good filings. Used by `tests/hostile.rs` and by
//! `cargo run -p lens-core --example hostile_corpus -- DIR` (to probe the app by hand).
#![allow(dead_code)]
use std::io::Write;
use std::path::{Path, PathBuf};

/// A PDF from object bodies (numbered from 1; object 1 is the catalog), with a correct xref.
pub fn pdf(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.5\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1).as_bytes());
    for o in &offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", offsets.len() + 1).as_bytes());
    out
}

/// `pages` empty pages of `w` × `h` points.
pub fn blank(w: f32, h: f32, pages: usize) -> Vec<u8> {
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", i + 3)).collect();
    let mut objs = vec![b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(), format!("<< /Type /Pages /Kids [{}] /Count {pages} >>", kids.join(" ")).into_bytes()];
    for _ in 0..pages {
        objs.push(format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w} {h}] >>").into_bytes());
    }
    pdf(&objs)
}

/// One page whose content stream is `content` (deflated when `deflate`), with Helvetica as F1.
pub fn one_page(content: &[u8], deflate: bool) -> Vec<u8> {
    let (data, filter) = if deflate {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(content).unwrap();
        (e.finish().unwrap(), " /Filter /FlateDecode")
    } else {
        (content.to_vec(), "")
    };
    let mut stream = format!("<< /Length {}{filter} >>\nstream\n", data.len()).into_bytes();
    stream.extend_from_slice(&data);
    stream.extend_from_slice(b"\nendstream");
    pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".to_vec(),
        stream,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ])
}

/// Write the hostile set into `dir` (created); `good` are real PDFs copied in. Returns the PDF
/// files a folder walk should find (everything named `.pdf`, special files included).
pub fn generate(dir: &Path, good: &[PathBuf], encrypted: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    let real = std::fs::read(&good[0]).unwrap();
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("empty.pdf".into(), Vec::new()),
        ("not-a-pdf.pdf".into(), b"just some text, not a PDF at all\n".to_vec()),
        ("truncated.pdf".into(), real[..real.len() / 2].to_vec()),
        ("header-only.pdf".into(), b"%PDF-1.7\n".to_vec()),
        ("zero-pages.pdf".into(), pdf(&[b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(), b"<< /Type /Pages /Kids [] /Count 0 >>".to_vec()])),
        ("huge-page.pdf".into(), blank(14_400.0, 14_400.0, 1)),
        ("many-blank-pages.pdf".into(), blank(612.0, 792.0, 3_000)),
        ("deep-nesting.pdf".into(), {
            let deep = format!("<< /Type /Catalog /Pages 2 0 R /Junk {}{} >>", "[".repeat(20_000), "]".repeat(20_000));
            pdf(&[
                deep.into_bytes(),
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>".to_vec(),
            ])
        }),
        // 64 MB of spaces deflated to ~64 KB
        ("deflate-bomb.pdf".into(), one_page(&vec![b' '; 64 << 20], true)),
        // one page drawing a 200,000-character string
        ("text-bomb.pdf".into(), one_page(format!("BT /F1 2 Tf 10 700 Td ({}) Tj ET", "revenue ".repeat(25_000)).as_bytes(), false)),
    ];
    // bit flips through a real filing
    let mut flipped = real.clone();
    for i in (2_000..flipped.len()).step_by(997) {
        flipped[i] ^= 0x5a;
    }
    files.push(("bit-flips.pdf".into(), flipped));
    // a damaged cross-reference table (pdfium may repair it)
    let broken = String::from_utf8_lossy(&real).replace("startxref", "startxrfe").into_bytes();
    files.push(("broken-xref.pdf".into(), broken));
    let mut out = Vec::new();
    for (name, bytes) in files {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        out.push(p);
    }
    let enc = dir.join("encrypted.pdf");
    std::fs::copy(encrypted, &enc).unwrap();
    out.push(enc);
    for g in good {
        let p = dir.join(g.file_name().unwrap());
        std::fs::copy(g, &p).unwrap();
        out.push(p);
    }
    // special files and a loop
    let fifo = dir.join("pipe.pdf");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    out.push(fifo);
    let zero = dir.join("zero.pdf");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    out.push(zero);
    std::os::unix::fs::symlink(".", dir.join("loop")).unwrap();
    out.sort();
    out
}
