//! pdfium: the process-wide pdfium-render binding (rendering), the page text type, input checks.
//! Text extraction runs on private pdfium instances: see the `extract` module.

use crate::boxes::CharBox;
use crate::error::{LensError, Result};
use pdfium_render::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

static PDFIUM: OnceLock<std::result::Result<(Pdfium, PathBuf), LensError>> = OnceLock::new();

/// Pages with fewer non-space characters than this in their text layer need OCR.
pub const OCR_MIN_CHARS: usize = 50;

/// The process-wide pdfium handle (bound on first use).
pub fn pdfium() -> Result<&'static Pdfium> {
    match PDFIUM.get_or_init(bind) {
        Ok((p, _)) => Ok(p),
        Err(e) => Err(clone_bind_error(e)),
    }
}

/// Where pdfium was loaded from, if it was.
pub fn pdfium_path() -> Option<PathBuf> {
    match PDFIUM.get() {
        Some(Ok((_, p))) => Some(p.clone()),
        _ => None,
    }
}

fn clone_bind_error(e: &LensError) -> LensError {
    match e {
        LensError::PdfiumMissing { searched } => LensError::PdfiumMissing { searched: searched.clone() },
        LensError::PdfiumLoad { path, reason } => LensError::PdfiumLoad { path: path.clone(), reason: reason.clone() },
        other => LensError::PdfiumLoad { path: PathBuf::new(), reason: other.to_string() },
    }
}

fn bind() -> std::result::Result<(Pdfium, PathBuf), LensError> {
    let path = crate::paths::find_pdfium()?;
    let bindings = Pdfium::bind_to_library(&path).map_err(|e| LensError::PdfiumLoad { path: path.clone(), reason: e.to_string() })?;
    Ok((Pdfium::new(bindings), path))
}

/// One page's text layer: the text (one `char` per entry of `boxes`) and page size in points.
#[derive(Debug, Clone)]
pub struct PageText {
    /// 1-based page number.
    pub page: u32,
    pub text: String,
    /// One box per `char` of `text`; zero-width boxes for characters pdfium generated.
    pub boxes: Vec<CharBox>,
    pub width: f32,
    pub height: f32,
    pub needs_ocr: bool,
    /// The PDF's own label for the page (/PageLabels), when it defines one.
    pub label: Option<String>,
}

/// Cheap checks before pdfium sees the bytes, so bad files get precise messages.
pub fn sniff(path: &Path, bytes: &[u8]) -> Result<()> {
    if bytes.is_empty() {
        return Err(LensError::EmptyFile { path: path.to_path_buf() });
    }
    let head = &bytes[..bytes.len().min(1024)];
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err(LensError::NotPdf { path: path.to_path_buf() });
    }
    Ok(())
}

// FPDF_GetLastError codes (fpdfview.h)
const ERR_FILE: u32 = 2;
const ERR_FORMAT: u32 = 3;
const ERR_PASSWORD: u32 = 4;
const ERR_SECURITY: u32 = 5;

pub(crate) fn load_error(path: &Path, code: u32) -> LensError {
    let path = path.to_path_buf();
    match code {
        ERR_PASSWORD | ERR_SECURITY => LensError::Encrypted { path },
        ERR_FORMAT => LensError::CorruptPdf { path, reason: "pdfium could not parse the file".into() },
        ERR_FILE => LensError::CorruptPdf { path, reason: "file could not be read or is truncated".into() },
        other => LensError::CorruptPdf { path, reason: format!("pdfium error {other}") },
    }
}

/// A rendered page: RGBA pixels plus the scale used (pixels per point; lower than asked when the
/// page would exceed [`MAX_PIXELS`]).
pub struct Rendered {
    pub image: image::RgbaImage,
    pub scale: f32,
    pub page_width: f32,
    pub page_height: f32,
}

pub const MIN_DPI: f32 = 20.0;
pub const MAX_DPI: f32 = 600.0;
/// Most pixels one rendered page may have (a letter page at 600 DPI is 33.7 M); larger pages
/// are rendered at a lower scale so that they fit.
pub const MAX_PIXELS: f32 = 36_000_000.0;

/// The scale (pixels per point) for a `w` × `h` pt page at `dpi`, capped to [`MAX_PIXELS`].
pub fn capped_scale(w: f32, h: f32, dpi: f32) -> f32 {
    let want = dpi / 72.0;
    let fit = (MAX_PIXELS / (w.max(1.0) * h.max(1.0))).sqrt();
    want.min(fit)
}

/// Render one page (1-based) of the PDF at `path` at `dpi`.
pub fn render(path: &Path, page: u32, dpi: f32) -> Result<Rendered> {
    if !(MIN_DPI..=MAX_DPI).contains(&dpi) || !dpi.is_finite() {
        return Err(LensError::BadInput(format!("DPI {dpi} is out of range ({MIN_DPI}..={MAX_DPI})")));
    }
    let pdfium = pdfium()?;
    let doc = pdfium.load_pdf_from_file(path, None).map_err(|e| match e {
        PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::PasswordError) => LensError::Encrypted { path: path.to_path_buf() },
        other => LensError::CorruptPdf { path: path.to_path_buf(), reason: other.to_string() },
    })?;
    let pages = doc.pages();
    let count = pages.len() as u32;
    if page == 0 || page > count {
        return Err(LensError::UnknownPage { doc: path.display().to_string(), page, pages: count });
    }
    let p = pages.get((page - 1) as _).map_err(|e| LensError::CorruptPdf { path: path.to_path_buf(), reason: e.to_string() })?;
    // a 14,400 pt page at 110 DPI would be 484 M pixels (5.8 GB): the scale is capped instead
    let scale = capped_scale(p.width().value, p.height().value, dpi);
    let cfg = PdfRenderConfig::new().scale_page_by_factor(scale).render_form_data(true);
    let bitmap = p.render_with_config(&cfg).map_err(|e| LensError::Image(e.to_string()))?;
    let image = bitmap.as_image().map_err(|e| LensError::Image(e.to_string()))?.to_rgba8();
    Ok(Rendered { image, scale, page_width: p.width().value, page_height: p.height().value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_pages_render_within_the_pixel_cap() {
        // letter at 110 DPI: as asked
        assert_eq!(capped_scale(612.0, 792.0, 110.0), 110.0 / 72.0);
        // a 14,400 pt square page at 110 DPI would be 22,000 px square: capped to 36 M pixels
        let s = capped_scale(14_400.0, 14_400.0, 110.0);
        assert!((14_400.0 * s).powi(2) <= MAX_PIXELS * 1.0001);
        assert!(s < 110.0 / 72.0);
    }
}
