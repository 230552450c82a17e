//! Render a page with pdfium and draw evidence boxes on it (translucent fill plus outline).
//! Points to pixels: x_px = x_pt * dpi / 72, y_px = (page_height - y_top) * dpi / 72.

use crate::error::{LensError, Result};
use crate::evidence::EvidenceBox;
use image::{Rgba, RgbaImage};
use std::path::Path;

const FILL: [u8; 3] = [255, 214, 0];
const FILL_ALPHA: f32 = 0.35;
const OUTLINE: [u8; 3] = [230, 110, 0];

/// Pixel rectangle (x0, y0, x1, y1) of a box in points on a page of `page_height` points.
pub fn to_pixels(b: &EvidenceBox, page_height: f32, scale: f32) -> (i64, i64, i64, i64) {
    let x0 = (b.l * scale).floor() as i64 - 2;
    let x1 = (b.r * scale).ceil() as i64 + 2;
    let y0 = ((page_height - b.t) * scale).floor() as i64 - 2;
    let y1 = ((page_height - b.b) * scale).ceil() as i64 + 2;
    (x0, y0, x1, y1)
}

pub fn draw_boxes(img: &mut RgbaImage, boxes: &[EvidenceBox], page_height: f32, scale: f32) {
    let (w, h) = (img.width() as i64, img.height() as i64);
    for b in boxes {
        let (x0, y0, x1, y1) = to_pixels(b, page_height, scale);
        let (x0, y0, x1, y1) = (x0.clamp(0, w - 1), y0.clamp(0, h - 1), x1.clamp(0, w - 1), y1.clamp(0, h - 1));
        for y in y0..=y1 {
            for x in x0..=x1 {
                let edge = x - x0 < 2 || x1 - x < 2 || y - y0 < 2 || y1 - y < 2;
                let p = img.get_pixel_mut(x as u32, y as u32);
                if edge {
                    *p = Rgba([OUTLINE[0], OUTLINE[1], OUTLINE[2], 255]);
                } else {
                    for (c, f) in p.0.iter_mut().zip(FILL) {
                        *c = (*c as f32 * (1.0 - FILL_ALPHA) + f as f32 * FILL_ALPHA).round() as u8;
                    }
                }
            }
        }
    }
}

/// Render page `page` of the PDF at `pdf` with `boxes` drawn on it.
pub fn render_page(pdf: &Path, page: u32, dpi: f32, boxes: &[EvidenceBox]) -> Result<RgbaImage> {
    let r = crate::pdf::render(pdf, page, dpi)?;
    let mut img = r.image;
    draw_boxes(&mut img, boxes, r.page_height, r.scale);
    Ok(img)
}

/// [`render_page`], encoded as PNG bytes.
pub fn page_png(pdf: &Path, page: u32, dpi: f32, boxes: &[EvidenceBox]) -> Result<Vec<u8>> {
    png_bytes(&render_page(pdf, page, dpi, boxes)?)
}

pub fn save_png(img: &RgbaImage, out: &Path) -> Result<()> {
    img.save_with_format(out, image::ImageFormat::Png).map_err(|e| LensError::Image(format!("{}: {e}", out.display())))
}

/// `img` as a baseline JPEG (RGB, alpha dropped) at `quality` (1-100).
pub fn jpeg_bytes(img: &RgbaImage, quality: u8) -> Result<Vec<u8>> {
    let rgb = image::DynamicImage::ImageRgba8(img.clone()).to_rgb8();
    let mut buf = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut buf, quality).encode_image(&rgb).map_err(|e| LensError::Image(e.to_string()))?;
    Ok(buf)
}

pub fn png_bytes(img: &RgbaImage) -> Result<Vec<u8>> {
    let mut buf = std::io::Cursor::new(Vec::new());
    img.write_to(&mut buf, image::ImageFormat::Png).map_err(|e| LensError::Image(e.to_string()))?;
    Ok(buf.into_inner())
}
