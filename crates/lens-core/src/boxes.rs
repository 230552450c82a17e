//! Character boxes in PDF points (origin bottom-left) and their compact per-page encoding.
//!
//! Encoding: each coordinate quantised to 1/20 pt, delta-coded against the previous character
//! (consecutive characters share a baseline and abut), zig-zag varints, then deflate.
//! A 10-K page of ~4,000 characters takes a few KiB instead of 64 KiB of raw f32s.

use flate2::{read::DeflateDecoder, write::DeflateEncoder, Compression};
use std::io::{Read, Write};

const Q: f32 = 20.0;

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CharBox {
    pub l: f32,
    pub b: f32,
    pub r: f32,
    pub t: f32,
}

impl CharBox {
    /// A zero-width box placed after `prev`: used for characters with no glyph (generated
    /// spaces, line breaks), so they never contribute area to a highlight.
    pub fn empty_after(prev: &CharBox) -> CharBox {
        CharBox { l: prev.r, b: prev.b, r: prev.r, t: prev.t }
    }
    pub fn is_empty(&self) -> bool {
        self.r <= self.l || self.t <= self.b
    }
    pub fn union(&self, o: &CharBox) -> CharBox {
        CharBox { l: self.l.min(o.l), b: self.b.min(o.b), r: self.r.max(o.r), t: self.t.max(o.t) }
    }
    pub fn height(&self) -> f32 {
        self.t - self.b
    }
}

fn zigzag(v: i32) -> u32 {
    ((v << 1) ^ (v >> 31)) as u32
}
fn unzigzag(v: u32) -> i32 {
    ((v >> 1) as i32) ^ -((v & 1) as i32)
}

pub fn encode(boxes: &[CharBox]) -> Vec<u8> {
    let mut raw = Vec::with_capacity(boxes.len() * 5 + 4);
    raw.extend_from_slice(&(boxes.len() as u32).to_le_bytes());
    let mut prev = [0i32; 4];
    for b in boxes {
        let cur = [b.l, b.b, b.r, b.t].map(|v| (v * Q).round() as i32);
        for k in 0..4 {
            let mut z = zigzag(cur[k].wrapping_sub(prev[k]));
            loop {
                let byte = (z & 0x7f) as u8;
                z >>= 7;
                if z == 0 {
                    raw.push(byte);
                    break;
                }
                raw.push(byte | 0x80);
            }
        }
        prev = cur;
    }
    let mut enc = DeflateEncoder::new(Vec::with_capacity(raw.len() / 2), Compression::fast());
    enc.write_all(&raw).expect("deflate into memory");
    enc.finish().expect("deflate into memory")
}

pub fn decode(data: &[u8]) -> Option<Vec<CharBox>> {
    let mut raw = Vec::new();
    DeflateDecoder::new(data).read_to_end(&mut raw).ok()?;
    if raw.len() < 4 {
        return None;
    }
    let n = u32::from_le_bytes(raw[..4].try_into().ok()?) as usize;
    let mut out = Vec::with_capacity(n);
    let mut pos = 4;
    let mut prev = [0i32; 4];
    for _ in 0..n {
        let mut cur = [0i32; 4];
        for k in 0..4 {
            let mut z: u32 = 0;
            let mut shift = 0;
            loop {
                let byte = *raw.get(pos)?;
                pos += 1;
                z |= ((byte & 0x7f) as u32) << shift;
                if byte & 0x80 == 0 {
                    break;
                }
                shift += 7;
                if shift > 28 {
                    return None;
                }
            }
            cur[k] = prev[k].wrapping_add(unzigzag(z));
        }
        out.push(CharBox { l: cur[0] as f32 / Q, b: cur[1] as f32 / Q, r: cur[2] as f32 / Q, t: cur[3] as f32 / Q });
        prev = cur;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn roundtrip_within_quantum() {
        let boxes = vec![
            CharBox { l: 72.0, b: 700.1, r: 78.3, t: 710.9 },
            CharBox { l: 78.3, b: 700.1, r: 84.77, t: 710.9 },
            CharBox::empty_after(&CharBox { l: 78.3, b: 700.1, r: 84.77, t: 710.9 }),
            CharBox { l: 10.0, b: 20.0, r: 15.0, t: 30.0 },
        ];
        let back = decode(&encode(&boxes)).unwrap();
        assert_eq!(back.len(), 4);
        for (a, b) in boxes.iter().zip(&back) {
            assert!((a.l - b.l).abs() <= 0.5 / Q && (a.t - b.t).abs() <= 0.5 / Q, "{a:?} vs {b:?}");
        }
        assert!(back[2].is_empty());
        assert!(decode(b"garbage").is_none());
    }
}
