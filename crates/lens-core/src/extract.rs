//! Parallel text extraction with independent pdfium instances.
//!
//! pdfium keeps global state and is not thread-safe, and pdfium-render binds one library per
//! process (serialising every call). Text extraction is the slow part of ingest (~6-13 ms a page
//! in `FPDF_LoadPage` + `FPDFText_LoadPage`), so each extraction thread loads its **own copy** of
//! `libpdfium.so` (copied to a temp file and opened `RTLD_LOCAL`, so the copies share no state)
//! and calls the handful of C functions it needs directly. Rendering stays on pdfium-render's
//! process-wide binding of the original file.

use crate::boxes::CharBox;
use crate::error::{LensError, Result};
use crate::pdf::{sniff, PageText, OCR_MIN_CHARS};
use libloading::Library;
use std::os::raw::{c_double, c_float, c_int, c_uint, c_ulong, c_void};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

type Doc = *mut c_void;
type Page = *mut c_void;
type TextPage = *mut c_void;

/// Most pages one document may have (a 10-K has ~150; the largest real filings ~3,000): a
/// longer one is refused before its pages are read.
pub const MAX_PAGES: usize = 25_000;
/// Most text characters one document may hold (a 300-page 10-K has ~1.5 M).
pub const MAX_CHARS: usize = 30_000_000;

/// One private pdfium instance; use it from one thread at a time.
pub struct Extractor {
    _lib: Library,
    load_mem: unsafe extern "C" fn(*const c_void, usize, *const i8) -> Doc,
    last_error: unsafe extern "C" fn() -> c_ulong,
    page_count: unsafe extern "C" fn(Doc) -> c_int,
    load_page: unsafe extern "C" fn(Doc, c_int) -> Page,
    page_width: unsafe extern "C" fn(Page) -> c_float,
    page_height: unsafe extern "C" fn(Page) -> c_float,
    text_load: unsafe extern "C" fn(Page) -> TextPage,
    count_chars: unsafe extern "C" fn(TextPage) -> c_int,
    get_unicode: unsafe extern "C" fn(TextPage, c_int) -> c_uint,
    is_generated: unsafe extern "C" fn(TextPage, c_int) -> c_int,
    char_box: unsafe extern "C" fn(TextPage, c_int, *mut c_double, *mut c_double, *mut c_double, *mut c_double) -> c_int,
    text_close: unsafe extern "C" fn(TextPage),
    close_page: unsafe extern "C" fn(Page),
    close_doc: unsafe extern "C" fn(Doc),
    /// `FPDF_GetPageLabel(doc, index, buffer, bytes)`: UTF-16LE with a terminating NUL; returns
    /// the bytes needed (0 when the page has no label).
    page_label: unsafe extern "C" fn(Doc, c_int, *mut c_void, c_ulong) -> c_ulong,
}

// Each Extractor owns a private library instance; moving it to another thread is fine as long
// as only one thread uses it at a time (`&mut self` on every call enforces that).
unsafe impl Send for Extractor {}

static COPIES: AtomicUsize = AtomicUsize::new(0);

impl Extractor {
    /// Load a private copy of the pdfium library found by [`crate::paths::pdfium_candidates`].
    pub fn new() -> Result<Extractor> {
        let src = &crate::paths::find_pdfium()?;
        let n = COPIES.fetch_add(1, Ordering::Relaxed);
        // a private folder (unique name, 0700) so no other user can swap the copy before dlopen
        let dir = crate::paths::private_temp_dir("lens-pdfium-")?;
        let copy = dir.path().join(format!("libpdfium-{n}.so"));
        std::fs::copy(src, &copy).map_err(|e| LensError::io(&copy, e))?;
        let lib = unsafe { Library::new(&copy) };
        drop(dir); // the copy is removed; the mapping stays valid
        let lib = lib.map_err(|e| LensError::PdfiumLoad { path: src.clone(), reason: e.to_string() })?;
        macro_rules! sym {
            ($name:literal) => {
                *unsafe { lib.get($name) }.map_err(|e| LensError::PdfiumLoad { path: src.clone(), reason: e.to_string() })?
            };
        }
        let init: unsafe extern "C" fn() = sym!(b"FPDF_InitLibrary\0");
        let ex = Extractor {
            load_mem: sym!(b"FPDF_LoadMemDocument64\0"),
            last_error: sym!(b"FPDF_GetLastError\0"),
            page_count: sym!(b"FPDF_GetPageCount\0"),
            load_page: sym!(b"FPDF_LoadPage\0"),
            page_width: sym!(b"FPDF_GetPageWidthF\0"),
            page_height: sym!(b"FPDF_GetPageHeightF\0"),
            text_load: sym!(b"FPDFText_LoadPage\0"),
            count_chars: sym!(b"FPDFText_CountChars\0"),
            get_unicode: sym!(b"FPDFText_GetUnicode\0"),
            is_generated: sym!(b"FPDFText_IsGenerated\0"),
            char_box: sym!(b"FPDFText_GetCharBox\0"),
            text_close: sym!(b"FPDFText_ClosePage\0"),
            close_page: sym!(b"FPDF_ClosePage\0"),
            close_doc: sym!(b"FPDF_CloseDocument\0"),
            page_label: sym!(b"FPDF_GetPageLabel\0"),
            _lib: lib,
        };
        unsafe { init() };
        Ok(ex)
    }

    /// The label the PDF gives page `i` (0-based) in its /PageLabels tree, if any (at most 32
    /// characters; blank labels are none).
    unsafe fn label(&self, doc: Doc, i: c_int) -> Option<String> {
        let need = (self.page_label)(doc, i, std::ptr::null_mut(), 0);
        if need <= 2 || need > 66 {
            return None;
        }
        let mut buf = vec![0u16; need as usize / 2];
        (self.page_label)(doc, i, buf.as_mut_ptr() as *mut c_void, need);
        let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
        let s = String::from_utf16_lossy(&buf[..end]).trim().to_string();
        (!s.is_empty()).then_some(s)
    }

    /// Every page's text and character boxes. `path` is used for messages only.
    pub fn extract(&mut self, path: &Path, bytes: &[u8]) -> Result<Vec<PageText>> {
        sniff(path, bytes)?;
        unsafe {
            let doc = (self.load_mem)(bytes.as_ptr() as *const c_void, bytes.len(), std::ptr::null());
            if doc.is_null() {
                return Err(crate::pdf::load_error(path, (self.last_error)() as u32));
            }
            let n = (self.page_count)(doc);
            if n <= 0 {
                (self.close_doc)(doc);
                return Err(LensError::NoPages { path: path.to_path_buf() });
            }
            // bounds, checked as the document is read (a small file can expand enormously)
            let too_big =
                |what: String| LensError::BadInput(format!("{}: {what} (limits: {} pages, {} characters of text)", path.display(), MAX_PAGES, MAX_CHARS));
            if n as usize > MAX_PAGES {
                (self.close_doc)(doc);
                return Err(too_big(format!("{n} pages")));
            }
            let mut chars = 0usize;
            let mut out = Vec::with_capacity(n as usize);
            for i in 0..n {
                let page = (self.load_page)(doc, i);
                if page.is_null() {
                    (self.close_doc)(doc);
                    return Err(LensError::CorruptPdf { path: path.to_path_buf(), reason: format!("page {} cannot be loaded", i + 1) });
                }
                let width = (self.page_width)(page);
                let height = (self.page_height)(page);
                let tp = (self.text_load)(page);
                let (text, boxes) = if tp.is_null() { (String::new(), Vec::new()) } else { self.read_text_page(tp) };
                if !tp.is_null() {
                    (self.text_close)(tp);
                }
                (self.close_page)(page);
                chars += text.len();
                if chars > MAX_CHARS {
                    (self.close_doc)(doc);
                    return Err(too_big(format!("more than {} characters of text by page {}", MAX_CHARS, i + 1)));
                }
                let visible = text.chars().filter(|c| !c.is_whitespace()).count();
                let label = self.label(doc, i);
                out.push(PageText { page: i as u32 + 1, text, boxes, width, height, needs_ocr: visible < OCR_MIN_CHARS, label });
            }
            (self.close_doc)(doc);
            Ok(out)
        }
    }

    unsafe fn read_text_page(&self, tp: TextPage) -> (String, Vec<CharBox>) {
        let n = (self.count_chars)(tp).max(0);
        let mut text = String::with_capacity(n as usize);
        let mut boxes = Vec::with_capacity(n as usize);
        let mut prev = CharBox::default();
        let mut i = 0;
        while i < n {
            let u = (self.get_unicode)(tp, i);
            let c = match u {
                0x0D => {
                    // "\r\n" -> "\n"
                    if i + 1 < n && (self.get_unicode)(tp, i + 1) == 0x0A {
                        i += 1;
                    }
                    Some('\n')
                }
                0x02 | 0xAD => Some('-'), // soft hyphen at a line break
                0 | 0xFFFE | 0xFFFF => None,
                u if u < 0x20 && u != 0x0A && u != 0x09 => None,
                u => char::from_u32(u),
            };
            if let Some(c) = c {
                let (mut l, mut r, mut bo, mut t) = (0f64, 0f64, 0f64, 0f64);
                let generated = (self.is_generated)(tp, i) == 1;
                let ok = !generated && c != '\n' && (self.char_box)(tp, i, &mut l, &mut r, &mut bo, &mut t) != 0;
                let bx = if ok && r > l { CharBox { l: l as f32, b: bo as f32, r: r as f32, t: t as f32 } } else { CharBox::empty_after(&prev) };
                text.push(if c == '\t' { ' ' } else { c });
                boxes.push(bx);
                prev = bx;
            }
            i += 1;
        }
        (text, boxes)
    }
}

/// Extract every page's text and character boxes with a shared private pdfium instance
/// ([`Extractor`]; ingest runs one instance per core instead).
pub fn extract(path: &Path, bytes: &[u8]) -> Result<Vec<PageText>> {
    static SHARED: std::sync::OnceLock<std::sync::Mutex<Extractor>> = std::sync::OnceLock::new();
    if SHARED.get().is_none() {
        let ex = Extractor::new()?;
        let _ = SHARED.set(std::sync::Mutex::new(ex));
    }
    let mut ex = SHARED.get().expect("set above").lock().unwrap_or_else(|p| p.into_inner());
    ex.extract(path, bytes)
}
