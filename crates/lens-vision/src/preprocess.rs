//! Page images and queries as ColModernVBERT reads them, exactly as the reference processor
//! (transformers' `ColModernVBertProcessor` with Idefics3's PIL image processor) makes them.
//!
//! Image: resize so the longest edge is `edge` (the other edge keeps the aspect ratio, rounded
//! up to even), resize again up to multiples of the tile size (512 for the real model), cut into
//! tiles row by row, add the whole image resized to one tile (the global image), scale by 1/255
//! and normalise with mean = std = 0.5. Every resize is PIL's LANCZOS on 8-bit RGB, reproduced
//! here to the bit ([`resize_lanczos`]: the same support, coefficients, 22-bit fixed point and
//! rounding, horizontal pass then vertical, each clipped to 8 bits). An image no larger than one
//! tile is not split: one image, no row/column tags.
//!
//! Text: the document prompt `<|begin_of_text|>User:<image>Describe the image.<end_of_utterance>
//! \nAssistant:` with `<image>` expanded to, per tile, `<fake_token_around_image><row_r_col_c>`
//! and `image_seq_len` `<image>` tokens (a newline after each row), then `\n<fake_token_around_image>
//! <global-img>`, the global image's tokens and `<fake_token_around_image>`. A query is its text
//! followed by ten `<end_of_utterance>` (the reference's query augmentation).

/// An 8-bit RGB image, row-major, 3 bytes per pixel.
#[derive(Debug, Clone, PartialEq)]
pub struct Rgb {
    pub width: usize,
    pub height: usize,
    pub data: Vec<u8>,
}

impl Rgb {
    pub fn new(width: usize, height: usize, data: Vec<u8>) -> Rgb {
        assert_eq!(data.len(), width * height * 3, "RGB data size");
        Rgb { width, height, data }
    }
}

const PRECISION_BITS: u32 = 32 - 8 - 2;

fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        let x = x * std::f64::consts::PI;
        x.sin() / x
    }
}

fn lanczos(x: f64) -> f64 {
    // PIL: lanczos3, support 3
    if (-3.0..3.0).contains(&x) {
        sinc(x) * sinc(x / 3.0)
    } else {
        0.0
    }
}

/// PIL's `precompute_coeffs` for one axis: per output pixel, the first input pixel, the tap
/// count, and `ksize` fixed-point weights.
fn coefficients(in_size: usize, out_size: usize) -> (usize, Vec<(usize, usize)>, Vec<i32>) {
    let scale = in_size as f64 / out_size as f64;
    let filterscale = scale.max(1.0);
    let support = 3.0 * filterscale;
    let ksize = support.ceil() as usize * 2 + 1;
    let mut bounds = Vec::with_capacity(out_size);
    let mut kk = vec![0i32; out_size * ksize];
    let mut k = vec![0f64; ksize];
    for xx in 0..out_size {
        let center = (xx as f64 + 0.5) * scale;
        let ss = 1.0 / filterscale;
        // C casts truncate toward zero
        let xmin = ((center - support + 0.5) as i64).max(0) as usize;
        let xmax = ((center + support + 0.5) as i64).min(in_size as i64) as usize - xmin;
        let mut ww = 0.0;
        for (x, kx) in k.iter_mut().enumerate().take(xmax) {
            let w = lanczos((x as f64 + xmin as f64 - center + 0.5) * ss);
            *kx = w;
            ww += w;
        }
        for (x, kx) in k.iter_mut().enumerate().take(xmax) {
            if ww != 0.0 {
                *kx /= ww;
            }
            let v = *kx * (1u32 << PRECISION_BITS) as f64;
            kk[xx * ksize + x] = if v < 0.0 { (v - 0.5) as i32 } else { (v + 0.5) as i32 };
        }
        for kx in k.iter_mut() {
            *kx = 0.0;
        }
        bounds.push((xmin, xmax));
    }
    (ksize, bounds, kk)
}

fn clip8(v: i32) -> u8 {
    (v >> PRECISION_BITS).clamp(0, 255) as u8
}

/// Resize with PIL's LANCZOS filter (`Image.resize(size, Image.LANCZOS)` on an RGB image).
pub fn resize_lanczos(img: &Rgb, width: usize, height: usize) -> Rgb {
    let mut cur = img.clone();
    if width != cur.width {
        let (ksize, bounds, kk) = coefficients(cur.width, width);
        let mut out = vec![0u8; width * cur.height * 3];
        for y in 0..cur.height {
            let row = &cur.data[y * cur.width * 3..(y + 1) * cur.width * 3];
            for (xx, &(xmin, n)) in bounds.iter().enumerate() {
                let k = &kk[xx * ksize..xx * ksize + n];
                for c in 0..3 {
                    let mut ss: i32 = 1 << (PRECISION_BITS - 1);
                    for (x, w) in k.iter().enumerate() {
                        ss = ss.wrapping_add(row[(xmin + x) * 3 + c] as i32 * w);
                    }
                    out[(y * width + xx) * 3 + c] = clip8(ss);
                }
            }
        }
        cur = Rgb::new(width, cur.height, out);
    }
    if height != cur.height {
        let (ksize, bounds, kk) = coefficients(cur.height, height);
        let mut out = vec![0u8; cur.width * height * 3];
        for (yy, &(ymin, n)) in bounds.iter().enumerate() {
            let k = &kk[yy * ksize..yy * ksize + n];
            for x in 0..cur.width * 3 {
                let mut ss: i32 = 1 << (PRECISION_BITS - 1);
                for (y, w) in k.iter().enumerate() {
                    ss = ss.wrapping_add(cur.data[(ymin + y) * cur.width * 3 + x] as i32 * w);
                }
                out[yy * cur.width * 3 + x] = clip8(ss);
            }
        }
        cur = Rgb::new(cur.width, height, out);
    }
    cur
}

/// Idefics3's `get_resize_output_image_size`: longest edge to `edge`, the other kept in
/// proportion and rounded up to even (then capped at 4096).
pub fn longest_edge_size(width: usize, height: usize, edge: usize) -> (usize, usize) {
    let aspect = width as f64 / height as f64;
    let (mut w, mut h);
    if width >= height {
        w = edge;
        h = (w as f64 / aspect) as usize;
        if h % 2 != 0 {
            h += 1;
        }
    } else {
        h = edge;
        w = (h as f64 * aspect) as usize;
        if w % 2 != 0 {
            w += 1;
        }
    }
    h = h.max(1);
    w = w.max(1);
    // scale below 4096
    let aspect = w as f64 / h as f64;
    if w >= h && w > 4096 {
        w = 4096;
        h = (w as f64 / aspect) as usize;
    } else if h > w && h > 4096 {
        h = 4096;
        w = (h as f64 * aspect) as usize;
    }
    (w.max(1), h.max(1))
}

/// Idefics3's `resize_for_vision_encoder`: up to multiples of the tile size.
pub fn tile_multiple_size(width: usize, height: usize, tile: usize) -> (usize, usize) {
    let aspect = width as f64 / height as f64;
    if width >= height {
        let w = width.div_ceil(tile) * tile;
        let h = (w as f64 / aspect) as usize;
        (w, h.div_ceil(tile) * tile)
    } else {
        let h = height.div_ceil(tile) * tile;
        let w = (h as f64 * aspect) as usize;
        (w.div_ceil(tile) * tile, h)
    }
}

/// A page ready for the model: tiles (row by row, then the global image), each `3 × tile × tile`
/// f32 in channel-first order, and the grid (0 × 0 when not split).
#[derive(Debug, Clone)]
pub struct PageInput {
    pub tile: usize,
    pub rows: usize,
    pub cols: usize,
    pub pixels: Vec<Vec<f32>>,
}

fn normalise(img: &Rgb) -> Vec<f32> {
    let n = img.width * img.height;
    let mut out = vec![0f32; 3 * n];
    for (i, px) in img.data.chunks_exact(3).enumerate() {
        for c in 0..3 {
            // rescale in f64, as numpy does, then normalise in f32
            let x = (px[c] as f64 * (1.0 / 255.0)) as f32;
            out[c * n + i] = (x - 0.5) / 0.5;
        }
    }
    out
}

fn crop(img: &Rgb, x0: usize, y0: usize, w: usize, h: usize) -> Rgb {
    let mut data = Vec::with_capacity(w * h * 3);
    for y in y0..y0 + h {
        data.extend_from_slice(&img.data[(y * img.width + x0) * 3..(y * img.width + x0 + w) * 3]);
    }
    Rgb::new(w, h, data)
}

/// The reference processor's pixel values for one page image.
pub fn page_input(img: &Rgb, edge: usize, tile: usize) -> PageInput {
    let (w, h) = longest_edge_size(img.width, img.height, edge);
    let img = resize_lanczos(img, w, h);
    let (w, h) = tile_multiple_size(img.width, img.height, tile);
    let img = resize_lanczos(&img, w, h);
    if img.width > tile || img.height > tile {
        let rows = (img.height - tile) / tile + 1;
        let cols = (img.width - tile) / tile + 1;
        let mut pixels = Vec::with_capacity(rows * cols + 1);
        for r in 0..rows {
            for c in 0..cols {
                pixels.push(normalise(&crop(&img, c * tile, r * tile, tile, tile)));
            }
        }
        pixels.push(normalise(&resize_lanczos(&img, tile, tile)));
        PageInput { tile, rows, cols, pixels }
    } else {
        PageInput { tile, rows: 0, cols: 0, pixels: vec![normalise(&img)] }
    }
}

/// The document prompt for a page split `rows × cols` (0 × 0: one image).
pub fn document_prompt(rows: usize, cols: usize, image_seq_len: usize) -> String {
    let img = "<image>".repeat(image_seq_len);
    let fake = "<fake_token_around_image>";
    let mut s = String::new();
    if rows == 0 && cols == 0 {
        s += &format!("{fake}<global-img>{img}{fake}");
    } else {
        for r in 0..rows {
            for c in 0..cols {
                s += &format!("{fake}<row_{}_col_{}>{img}", r + 1, c + 1);
            }
            s.push('\n');
        }
        s += &format!("\n{fake}<global-img>{img}{fake}");
    }
    format!("<|begin_of_text|>User:{s}Describe the image.<end_of_utterance>\nAssistant:")
}

/// The query text the model encodes.
pub fn query_text(q: &str) -> String {
    format!("{q}{}", "<end_of_utterance>".repeat(10))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_reference() {
        assert_eq!(longest_edge_size(70, 50, 64), (64, 46));
        assert_eq!(longest_edge_size(50, 70, 64), (46, 64));
        assert_eq!(longest_edge_size(1700, 2200, 1024), (792, 1024));
        assert_eq!(tile_multiple_size(64, 46, 32), (64, 64));
        assert_eq!(tile_multiple_size(792, 1024, 512), (1024, 1024));
        assert_eq!(tile_multiple_size(1024, 792, 512), (1024, 1024));
    }

    #[test]
    fn prompt_shape() {
        let p = document_prompt(1, 2, 2);
        assert_eq!(
            p,
            "<|begin_of_text|>User:<fake_token_around_image><row_1_col_1><image><image><fake_token_around_image><row_1_col_2><image><image>\n\n<fake_token_around_image><global-img><image><image><fake_token_around_image>Describe the image.<end_of_utterance>\nAssistant:"
        );
    }
}
