//! A small PDF writer for the reports the app makes (the workpaper): pages of text in the
//! standard Helvetica fonts, filled or stroked rectangles, and JPEG images. Pure: bytes in,
//! bytes out, no pdfium (which reads PDFs; it is used in the tests to read these back).
//!
//! Format written (PDF 1.4): catalog (object 1), page tree (2), fonts F1 = Helvetica and
//! F2 = Helvetica-Bold in WinAnsiEncoding (3, 4), then per page its page object, its content
//! stream (Flate) and its images (DCTDecode, DeviceRGB); a cross-reference table and trailer
//! with `/Info` (title, producer). Coordinates are PDF points with the origin at the bottom
//! left, as everywhere in the app. Text is converted to WinAnsi: Latin-1 as is, curly quotes,
//! dashes, bullets, the euro sign and ellipsis mapped, anything else written as `?`.

use std::fmt::Write as _;
use std::io::Write as _;

/// US Letter, in points.
pub const LETTER: (f32, f32) = (612.0, 792.0);

/// One of the two fonts every PDF reader has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Font {
    Regular,
    Bold,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rgb(pub f32, pub f32, pub f32);

enum Op {
    Text { x: f32, y: f32, size: f32, font: Font, color: Rgb, bytes: Vec<u8> },
    Rect { x: f32, y: f32, w: f32, h: f32, fill: Option<Rgb>, stroke: Option<Rgb> },
    Image { x: f32, y: f32, w: f32, h: f32, image: usize },
}

/// A baseline JPEG (RGB) and its size in pixels.
pub struct Jpeg {
    pub data: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

/// A page being drawn.
pub struct Page {
    size: (f32, f32),
    ops: Vec<Op>,
    images: Vec<Jpeg>,
}

impl Page {
    /// One line of text with its baseline at `y`.
    pub fn text(&mut self, x: f32, y: f32, size: f32, font: Font, color: Rgb, s: &str) {
        self.ops.push(Op::Text { x, y, size, font, color, bytes: win_ansi(s) });
    }

    pub fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, fill: Option<Rgb>, stroke: Option<Rgb>) {
        self.ops.push(Op::Rect { x, y, w, h, fill, stroke });
    }

    /// A JPEG drawn into the `w` x `h` box whose lower left corner is (`x`, `y`).
    pub fn jpeg(&mut self, x: f32, y: f32, w: f32, h: f32, image: Jpeg) {
        self.images.push(image);
        self.ops.push(Op::Image { x, y, w, h, image: self.images.len() - 1 });
    }

    fn content(&self, first_image: usize) -> Vec<u8> {
        let mut s = String::new();
        for op in &self.ops {
            match op {
                Op::Text { x, y, size, font, color, bytes } => {
                    let f = if *font == Font::Bold { "F2" } else { "F1" };
                    let _ =
                        writeln!(s, "{} {} {} rg BT /{f} {} Tf {} {} Td {} Tj ET", n(color.0), n(color.1), n(color.2), n(*size), n(*x), n(*y), literal(bytes));
                }
                Op::Rect { x, y, w, h, fill, stroke } => {
                    s.push_str("q ");
                    if let Some(c) = fill {
                        let _ = write!(s, "{} {} {} rg ", n(c.0), n(c.1), n(c.2));
                    }
                    if let Some(c) = stroke {
                        let _ = write!(s, "{} {} {} RG 0.75 w ", n(c.0), n(c.1), n(c.2));
                    }
                    let paint = match (fill, stroke) {
                        (Some(_), Some(_)) => "B",
                        (Some(_), None) => "f",
                        _ => "S",
                    };
                    let _ = writeln!(s, "{} {} {} {} re {paint} Q", n(*x), n(*y), n(*w), n(*h));
                }
                Op::Image { x, y, w, h, image } => {
                    let _ = writeln!(s, "q {} 0 0 {} {} {} cm /Im{} Do Q", n(*w), n(*h), n(*x), n(*y), first_image + image);
                }
            }
        }
        s.into_bytes()
    }
}

/// A PDF under construction: add pages, draw on them, then [`Writer::finish`].
pub struct Writer {
    title: String,
    pages: Vec<Page>,
}

impl Writer {
    pub fn new(title: &str) -> Writer {
        Writer { title: title.to_string(), pages: Vec::new() }
    }

    /// A new page of `size` points; the page to draw on.
    pub fn page(&mut self, size: (f32, f32)) -> &mut Page {
        self.pages.push(Page { size, ops: Vec::new(), images: Vec::new() });
        self.pages.last_mut().expect("just pushed")
    }

    pub fn pages(&self) -> usize {
        self.pages.len()
    }

    /// The page `i` (0-based), to draw on it again (page numbers once the count is known).
    pub fn page_mut(&mut self, i: usize) -> &mut Page {
        &mut self.pages[i]
    }

    /// The file's bytes.
    pub fn finish(self) -> Vec<u8> {
        let mut out: Vec<u8> = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
        let mut offsets: Vec<usize> = Vec::new();
        // object numbers: 1 catalog, 2 pages, 3-4 fonts, 5 info, then per page: page, content, images
        let n_pages = self.pages.len();
        let mut page_objs = Vec::with_capacity(n_pages);
        let mut next = 6;
        for p in &self.pages {
            page_objs.push(next);
            next += 2 + p.images.len();
        }
        let obj = |out: &mut Vec<u8>, offsets: &mut Vec<usize>, num: usize, body: &[u8]| {
            debug_assert_eq!(offsets.len() + 1, num);
            offsets.push(out.len());
            out.extend_from_slice(format!("{num} 0 obj\n").as_bytes());
            out.extend_from_slice(body);
            out.extend_from_slice(b"\nendobj\n");
        };
        obj(&mut out, &mut offsets, 1, b"<< /Type /Catalog /Pages 2 0 R >>");
        let kids: Vec<String> = page_objs.iter().map(|o| format!("{o} 0 R")).collect();
        obj(&mut out, &mut offsets, 2, format!("<< /Type /Pages /Count {n_pages} /Kids [{}] >>", kids.join(" ")).as_bytes());
        for (num, name) in [(3, "Helvetica"), (4, "Helvetica-Bold")] {
            obj(&mut out, &mut offsets, num, format!("<< /Type /Font /Subtype /Type1 /BaseFont /{name} /Encoding /WinAnsiEncoding >>").as_bytes());
        }
        obj(&mut out, &mut offsets, 5, format!("<< /Producer (10-K Lens) /Title {} >>", literal(&win_ansi(&self.title))).as_bytes());
        let mut image_no = 0;
        for (p, &num) in self.pages.iter().zip(&page_objs) {
            let xobjects: Vec<String> = (0..p.images.len()).map(|i| format!("/Im{} {} 0 R", image_no + i, num + 2 + i)).collect();
            let page = format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {} {}] /Contents {} 0 R /Resources << /Font << /F1 3 0 R /F2 4 0 R >> /XObject << {} >> >> >>",
                n(p.size.0),
                n(p.size.1),
                num + 1,
                xobjects.join(" ")
            );
            obj(&mut out, &mut offsets, num, page.as_bytes());
            let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            z.write_all(&p.content(image_no)).expect("writing to memory");
            let content = z.finish().expect("writing to memory");
            let mut body = format!("<< /Length {} /Filter /FlateDecode >>\nstream\n", content.len()).into_bytes();
            body.extend_from_slice(&content);
            body.extend_from_slice(b"\nendstream");
            obj(&mut out, &mut offsets, num + 1, &body);
            for (i, im) in p.images.iter().enumerate() {
                let mut body = format!(
                    "<< /Type /XObject /Subtype /Image /Width {} /Height {} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length {} >>\nstream\n",
                    im.width,
                    im.height,
                    im.data.len()
                )
                .into_bytes();
                body.extend_from_slice(&im.data);
                body.extend_from_slice(b"\nendstream");
                obj(&mut out, &mut offsets, num + 2 + i, &body);
            }
            image_no += p.images.len();
        }
        let xref = out.len();
        let mut t = format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1);
        for o in &offsets {
            let _ = writeln!(t, "{o:010} 00000 n ");
        }
        let _ = write!(t, "trailer\n<< /Size {} /Root 1 0 R /Info 5 0 R >>\nstartxref\n{xref}\n%%EOF\n", offsets.len() + 1);
        out.extend_from_slice(t.as_bytes());
        out
    }
}

/// A number as PDF writes it: at most two decimals, no exponent.
fn n(v: f32) -> String {
    let s = format!("{:.2}", if v.is_finite() { v } else { 0.0 });
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// A literal string `( ... )` of WinAnsi bytes: parentheses and backslashes escaped, bytes
/// outside printable ASCII as octal escapes.
fn literal(bytes: &[u8]) -> String {
    let mut out = String::from("(");
    for &b in bytes {
        match b {
            b'(' | b')' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push(')');
    out
}

/// `s` in WinAnsiEncoding (the standard fonts' encoding); control characters become spaces.
pub fn win_ansi(s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => b' ',
            c if (c as u32) < 0x20 => b' ',
            c if (c as u32) < 0x7f => c as u8,
            '\u{a0}'..='\u{ff}' => c as u32 as u8,
            '€' => 0x80,
            '‚' => 0x82,
            '„' => 0x84,
            '…' => 0x85,
            '‘' => 0x91,
            '’' => 0x92,
            '“' => 0x93,
            '”' => 0x94,
            '•' => 0x95,
            '–' => 0x96,
            '—' => 0x97,
            '™' => 0x99,
            '−' => b'-',
            _ => b'?',
        })
        .collect()
}

/// Helvetica's advance widths (thousandths of the font size) for printable ASCII, from its AFM.
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space ! " # $ % & ' ( ) * + , - . /
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0-9
    278, 278, 584, 584, 584, 556, 1015, // : ; < = > ? @
    667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, // A-Z
    278, 278, 278, 469, 556, 333, // [ \ ] ^ _ `
    556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, // a-z
    334, 260, 334, 584, // { | } ~
];

/// The width of `s` in points at `size` (bold is taken as 6% wider: close enough to wrap).
pub fn width(s: &str, size: f32, font: Font) -> f32 {
    let units: u32 = win_ansi(s).iter().map(|&b| if (0x20..0x7f).contains(&b) { HELVETICA[(b - 0x20) as usize] as u32 } else { 556 }).sum();
    let w = units as f32 * size / 1000.0;
    if font == Font::Bold {
        w * 1.06
    } else {
        w
    }
}

/// `s` broken into lines no wider than `max` points, at spaces; a word longer than a line is
/// cut. Line breaks in `s` are kept.
pub fn wrap(s: &str, size: f32, font: Font, max: f32) -> Vec<String> {
    let mut lines = Vec::new();
    for para in s.split('\n') {
        let mut line = String::new();
        for word in para.split_whitespace() {
            let candidate = if line.is_empty() { word.to_string() } else { format!("{line} {word}") };
            if width(&candidate, size, font) <= max {
                line = candidate;
                continue;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            // a word wider than the line: cut it (at char boundaries, one char at least a line)
            let mut rest = word.to_string();
            while width(&rest, size, font) > max {
                let mut cut = 0;
                for (i, ch) in rest.char_indices() {
                    let end = i + ch.len_utf8();
                    if cut > 0 && width(&rest[..end], size, font) > max {
                        break;
                    }
                    cut = end;
                }
                if cut >= rest.len() {
                    break;
                }
                lines.push(rest[..cut].to_string());
                rest = rest[cut..].to_string();
            }
            line = rest;
        }
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_text_are_written_as_pdf_expects() {
        assert_eq!(n(1.0), "1");
        assert_eq!(n(0.126), "0.13");
        assert_eq!(n(-0.001), "0");
        assert_eq!(n(f32::NAN), "0");
        assert_eq!(win_ansi("a’b—c€ 中"), vec![b'a', 0x92, b'b', 0x97, b'c', 0x80, b' ', b'?']);
        assert_eq!(literal(&win_ansi("(x) \\")).as_bytes(), b"(\\(x\\) \\\\)");
        assert_eq!(literal(&win_ansi("é")), "(\\351)");
    }

    #[test]
    fn widths_and_wrapping() {
        // "Hi" = H 722 + i 222 at 10 pt
        assert!((width("Hi", 10.0, Font::Regular) - 9.44).abs() < 1e-4);
        let lines = wrap("the quick brown fox jumps over the lazy dog", 10.0, Font::Regular, 60.0);
        assert!(lines.len() > 2, "{lines:?}");
        assert!(lines.iter().all(|l| width(l, 10.0, Font::Regular) <= 60.0), "{lines:?}");
        assert_eq!(lines.join(" "), "the quick brown fox jumps over the lazy dog");
        // a long word is cut; paragraphs kept; empty stays one empty line
        let lines = wrap("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nb", 10.0, Font::Regular, 50.0);
        assert!(lines.len() >= 3 && lines.last().unwrap() == "b", "{lines:?}");
        assert_eq!(wrap("", 10.0, Font::Regular, 50.0), vec![String::new()]);
        // multi-byte characters and a line narrower than one character never panic or loop
        assert_eq!(wrap("中中中", 10.0, Font::Regular, 1.0), vec!["中", "中", "中"]);
        assert!(wrap("ééééééééééééééééééééé", 10.0, Font::Bold, 30.0).len() > 2);
    }

    #[test]
    fn the_file_has_a_consistent_cross_reference_table() {
        let mut w = Writer::new("Test (1)");
        let p = w.page(LETTER);
        p.text(72.0, 700.0, 12.0, Font::Bold, Rgb(0.0, 0.0, 0.0), "Hello (world)");
        p.rect(72.0, 600.0, 100.0, 20.0, Some(Rgb(1.0, 1.0, 0.0)), Some(Rgb(1.0, 0.0, 0.0)));
        w.page(LETTER).text(72.0, 700.0, 10.0, Font::Regular, Rgb(0.0, 0.0, 0.0), "second");
        let pdf = w.finish();
        assert!(pdf.starts_with(b"%PDF-1.4"));
        let find = |pat: &[u8]| pdf.windows(pat.len()).rposition(|w| w == pat).unwrap();
        assert!(pdf.windows(8).any(|w| w == b"/Count 2"));
        // every offset in the xref table points at "N 0 obj"
        let tail = String::from_utf8(pdf[find(b"\nxref\n") + 1..].to_vec()).unwrap();
        let xref_at: usize = tail.rsplit("startxref\n").next().unwrap().lines().next().unwrap().parse().unwrap();
        assert_eq!(xref_at, find(b"\nxref\n") + 1);
        let entries: Vec<&str> = tail.lines().skip(3).take_while(|l| l.ends_with(" n ")).collect();
        assert_eq!(entries.len(), 9, "5 fixed objects + 2 per page");
        for (i, line) in entries.iter().enumerate() {
            let off: usize = line[..10].parse().unwrap();
            let head = format!("{} 0 obj", i + 1);
            assert!(pdf[off..].starts_with(head.as_bytes()), "object {} not at {off}", i + 1);
        }
    }
}
