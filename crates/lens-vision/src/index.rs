//! The multivector index: one file per document version, memory-mapped, and a resumable
//! per-page staging file while a document is being embedded.
//!
//! `DOCKEY.lvx`, little-endian:
//!
//! ```text
//! "LENSVX01"            8 bytes magic
//! header length         u64
//! header                JSON: {model, edge, dim, pooled, pages: [[page, vectors, offset]...], elems}
//! zero padding          to a multiple of 64 bytes
//! vectors               `elems` f16, each page in the blocked layout of `maxsim` at `offset`
//! "LVXEND01"            8 bytes: a file cut short is detected on open
//! ```
//!
//! A document is embedded page by page into `DOCKEY.partial`: records of
//! `[page u32][vectors u32][vectors × dim f16, row-major][fnv1a-32 of the record]`, appended and
//! flushed one page at a time, so a killed build loses at most the page it was on: on resume the
//! records are read back up to the first torn or corrupt one, the file is cut there, and embedding
//! goes on from the next page. When every page is in, the `.lvx` is written to a temporary name
//! and renamed into place (the publish step; the caller then records it in the library), and the
//! staging file is removed.

use crate::maxsim::{self, LANES};
use half::f16;
use lens_core::error::{LensError, Result};
use memmap2::Mmap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"LENSVX01";
const END: &[u8; 8] = b"LVXEND01";

/// What an index was built with: a query must be encoded by the same model at the same edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Built {
    pub model: String,
    /// Longest image edge the pages were rendered to, in pixels.
    pub edge: u32,
    pub dim: u32,
    /// Vectors pooled per page (k-means, ×3 fewer).
    pub pooled: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Header {
    #[serde(flatten)]
    built: Built,
    /// `[page, vectors, offset in f16 elements]`
    pages: Vec<(u32, u32, u64)>,
    elems: u64,
}

fn index_err(path: &Path, why: impl std::fmt::Display) -> LensError {
    LensError::Index(format!("vision index {}: {why}", path.display()))
}

/// One document's vectors, memory-mapped.
pub struct DocIndex {
    path: PathBuf,
    map: Mmap,
    header: Header,
    data_start: usize,
}

impl DocIndex {
    /// Open and check a `.lvx` file; with `expect`, refuse one built differently.
    pub fn open(path: &Path, expect: Option<&Built>) -> Result<DocIndex> {
        let file = std::fs::File::open(path).map_err(|e| LensError::io(path, e))?;
        // SAFETY: index files are written once under a temporary name and renamed into place;
        // nothing writes to a published file while it is mapped.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| LensError::io(path, e))?;
        if map.len() < 8 || &map[..8] != MAGIC {
            return Err(index_err(path, "not a 10-K Lens vision index (bad magic)"));
        }
        if map.len() < 16 {
            return Err(index_err(path, "truncated (header cut short): rebuild it with `lens vision build`"));
        }
        let hlen = u64::from_le_bytes(map[8..16].try_into().expect("8 bytes")) as usize;
        if 16 + hlen > map.len() {
            return Err(index_err(path, "truncated (header cut short): rebuild it with `lens vision build`"));
        }
        let header: Header = serde_json::from_slice(&map[16..16 + hlen]).map_err(|e| index_err(path, format!("unreadable header ({e})")))?;
        let data_start = (16 + hlen).div_ceil(64) * 64;
        let want = data_start as u64 + header.elems * 2 + 8;
        if map.len() as u64 != want || &map[map.len() - 8..] != END {
            return Err(index_err(path, format!("truncated or damaged ({} bytes, {} expected): rebuild it with `lens vision build`", map.len(), want)));
        }
        let dim = header.built.dim as usize;
        for &(page, n, off) in &header.pages {
            if off + maxsim::blocked_len(n as usize, dim) as u64 > header.elems {
                return Err(index_err(path, format!("page {page} points past the end")));
            }
        }
        if let Some(e) = expect {
            if &header.built != e {
                let b = &header.built;
                return Err(LensError::Index(format!(
                    "the vision index {} was built with {} at {} px{} (dim {}); the current vision model is {} at {} px{}: rebuild it with `lens vision build --rebuild` (or the Library view's Build vision index)",
                    path.display(),
                    b.model,
                    b.edge,
                    if b.pooled { ", pooled" } else { "" },
                    b.dim,
                    e.model,
                    e.edge,
                    if e.pooled { ", pooled" } else { "" }
                )));
            }
        }
        Ok(DocIndex { path: path.to_path_buf(), map, header, data_start })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn built(&self) -> &Built {
        &self.header.built
    }

    pub fn dim(&self) -> usize {
        self.header.built.dim as usize
    }

    pub fn num_pages(&self) -> usize {
        self.header.pages.len()
    }

    pub fn num_vectors(&self) -> u64 {
        self.header.pages.iter().map(|p| p.1 as u64).sum()
    }

    pub fn bytes(&self) -> u64 {
        self.map.len() as u64
    }

    fn data(&self) -> &[u16] {
        let bytes = &self.map[self.data_start..self.map.len() - 8];
        // SAFETY: `data_start` is 64-byte aligned within a page-aligned map, the length is even
        // (checked on open), and f16 bits are plain u16 (little-endian targets only).
        unsafe { std::slice::from_raw_parts(bytes.as_ptr() as *const u16, bytes.len() / 2) }
    }

    /// Where page number `page` is stored (pages are stored in ascending order).
    pub fn find(&self, page: u32) -> Option<usize> {
        self.header.pages.binary_search_by_key(&page, |p| p.0).ok()
    }

    /// The `i`-th stored page: its number, vector count and blocked vectors.
    pub fn page(&self, i: usize) -> (u32, usize, &[u16]) {
        let (page, n, off) = self.header.pages[i];
        let len = maxsim::blocked_len(n as usize, self.dim());
        (page, n as usize, &self.data()[off as usize..off as usize + len])
    }

    /// MaxSim of `q` (`nq × dim`) against every page, into `out` (one score per page, in order).
    pub fn score_into(&self, q: &[f32], out: &mut [f32]) {
        for (i, o) in out.iter_mut().enumerate().take(self.num_pages()) {
            let (_, n, v) = self.page(i);
            *o = maxsim::score(q, self.dim(), v, n);
        }
    }
}

/// Score every page of every document with all cores; returns `(document index, page, score)`.
/// Work is split by page ranges, not documents, so one large filing does not leave cores idle;
/// the only allocation is the result.
pub fn score_all(q: &[f32], docs: &[&DocIndex]) -> Vec<(usize, u32, f32)> {
    use rayon::prelude::*;
    let mut items: Vec<(usize, u32, f32)> = Vec::with_capacity(docs.iter().map(|d| d.num_pages()).sum());
    for (di, d) in docs.iter().enumerate() {
        for i in 0..d.num_pages() {
            items.push((di, i as u32, 0.0));
        }
    }
    let chunk = (items.len() / (rayon::current_num_threads() * 8)).max(8);
    items.par_chunks_mut(chunk).for_each(|part| {
        for it in part {
            let d = docs[it.0];
            let (page, n, v) = d.page(it.1 as usize);
            it.2 = maxsim::score(q, d.dim(), v, n);
            it.1 = page;
        }
    });
    items
}

fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c9dc5;
    for b in bytes {
        h ^= *b as u32;
        h = h.wrapping_mul(0x01000193);
    }
    h
}

const STAGE_MAGIC: &[u8; 8] = b"LVXP0001";

/// What a staging file was started for: the model, edge and dimension (pooling happens at
/// publish, so it is not part of it).
fn stage_header(built: &Built) -> Vec<u8> {
    let b = Built { pooled: false, ..built.clone() };
    let json = serde_json::to_vec(&b).expect("headers serialise");
    let mut h = STAGE_MAGIC.to_vec();
    h.extend_from_slice(&(json.len() as u32).to_le_bytes());
    h.extend_from_slice(&json);
    h
}

/// The staging file's header (what it was started for) and where its records begin.
fn read_stage_header(buf: &[u8]) -> Option<(Built, usize)> {
    if buf.len() < 12 || &buf[..8] != STAGE_MAGIC {
        return None;
    }
    let n = u32::from_le_bytes(buf[8..12].try_into().expect("4 bytes")) as usize;
    let b: Built = serde_json::from_slice(buf.get(12..12 + n)?).ok()?;
    Some((b, 12 + n))
}

/// Walk whole, intact records from `at`: `on_record(page, vector bytes)` for each; returns
/// where the intact part ends (a torn or corrupt record and all after it are not walked).
fn walk_records(buf: &[u8], mut at: usize, dim: usize, mut on_record: impl FnMut(u32, &[u8])) -> usize {
    while at + 8 <= buf.len() {
        let page = u32::from_le_bytes(buf[at..at + 4].try_into().expect("4 bytes"));
        let n = u32::from_le_bytes(buf[at + 4..at + 8].try_into().expect("4 bytes")) as usize;
        let end = at + 8 + n * dim * 2;
        if end + 4 > buf.len() || fnv1a(&buf[at..end]) != u32::from_le_bytes(buf[end..end + 4].try_into().expect("4 bytes")) {
            break;
        }
        on_record(page, &buf[at + 8..end]);
        at = end + 4;
    }
    at
}

/// A document being embedded: pages already done (from an earlier, interrupted run) and the
/// staging file new pages are appended to. The file starts with a header naming the model,
/// edge and dimension it was started for: one started for another is begun again, never mixed.
pub struct Partial {
    path: PathBuf,
    file: std::fs::File,
    dim: usize,
    pages: BTreeMap<u32, Vec<u16>>,
    /// Bytes dropped when reopened: a torn tail, or a whole file started for another model or edge.
    pub dropped_bytes: u64,
}

/// A published index's size.
#[derive(Debug, Clone, Copy)]
pub struct Published {
    pub bytes: u64,
    pub pages: u32,
    pub vectors: u64,
}

impl Partial {
    /// Open (or start) the staging file of a document for `built`'s model and edge, keeping
    /// every whole record.
    pub fn open(path: &Path, built: &Built) -> Result<Partial> {
        let dim = built.dim as usize;
        let mut file = std::fs::OpenOptions::new().read(true).append(true).create(true).open(path).map_err(|e| LensError::io(path, e))?;
        let mut buf = Vec::new();
        file.read_to_end(&mut buf).map_err(|e| LensError::io(path, e))?;
        let header = stage_header(built);
        let mut pages = BTreeMap::new();
        let keep = match read_stage_header(&buf) {
            Some((b, start)) if buf[..start] == header[..] && b.dim == built.dim => walk_records(&buf, start, dim, |page, v| {
                pages.insert(page, v.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect());
            }),
            // empty, foreign, or started for another model / edge: begin again
            _ => 0,
        };
        let dropped = (buf.len() - keep) as u64;
        if dropped > 0 {
            file.set_len(keep as u64).map_err(|e| LensError::io(path, e))?;
            file.seek(SeekFrom::End(0)).map_err(|e| LensError::io(path, e))?;
        }
        if keep == 0 {
            file.write_all(&header).map_err(|e| LensError::io(path, e))?;
        }
        Ok(Partial { path: path.to_path_buf(), file, dim, pages, dropped_bytes: dropped })
    }

    /// Pages already in a staging file (for progress display; the build reopens it with
    /// [`Partial::open`]). Only the record headers are read.
    pub fn count(path: &Path) -> Result<usize> {
        let buf = std::fs::read(path).map_err(|e| LensError::io(path, e))?;
        let Some((b, start)) = read_stage_header(&buf) else { return Ok(0) };
        let mut n = 0;
        walk_records(&buf, start, b.dim as usize, |_, _| n += 1);
        Ok(n)
    }

    pub fn has(&self, page: u32) -> bool {
        self.pages.contains_key(&page)
    }

    pub fn done(&self) -> usize {
        self.pages.len()
    }

    /// Append one page's vectors (`n × dim`, row-major f32), flushed to disk before returning.
    pub fn add(&mut self, page: u32, vecs: &[f32]) -> Result<()> {
        assert_eq!(vecs.len() % self.dim, 0);
        let n = vecs.len() / self.dim;
        let bits: Vec<u16> = vecs.iter().map(|x| f16::from_f32(*x).to_bits()).collect();
        let mut rec = Vec::with_capacity(12 + bits.len() * 2);
        rec.extend_from_slice(&page.to_le_bytes());
        rec.extend_from_slice(&(n as u32).to_le_bytes());
        for b in &bits {
            rec.extend_from_slice(&b.to_le_bytes());
        }
        let h = fnv1a(&rec);
        rec.extend_from_slice(&h.to_le_bytes());
        self.file.write_all(&rec).map_err(|e| LensError::io(&self.path, e))?;
        self.file.sync_data().map_err(|e| LensError::io(&self.path, e))?;
        self.pages.insert(page, bits);
        Ok(())
    }

    /// Write the finished index to `dest` (via a temporary name), pooling each page if asked;
    /// removes the staging file. Returns what was written.
    pub fn finish(self, dest: &Path, built: &Built) -> Result<Published> {
        let dim = self.dim;
        let mut pages = Vec::with_capacity(self.pages.len());
        let mut data: Vec<u16> = Vec::new();
        for (page, bits) in &self.pages {
            let mut rows: Vec<f32> = bits.iter().map(|b| f16::from_bits(*b).to_f32()).collect();
            if built.pooled {
                rows = crate::pool::pool(&rows, dim, 3);
            }
            let n = rows.len() / dim;
            pages.push((*page, n as u32, data.len() as u64));
            data.extend(maxsim::to_blocked(&rows, dim));
        }
        let published = Published { bytes: 0, pages: pages.len() as u32, vectors: pages.iter().map(|p| p.1 as u64).sum() };
        let bytes = write_index(dest, built, pages, &data)?;
        drop(self.file);
        std::fs::remove_file(&self.path).map_err(|e| LensError::io(&self.path, e))?;
        Ok(Published { bytes, ..published })
    }
}

/// Write a whole index (pages already blocked) to `dest` through a temporary file + rename.
pub fn write_index(dest: &Path, built: &Built, pages: Vec<(u32, u32, u64)>, data: &[u16]) -> Result<u64> {
    debug_assert!(pages.iter().all(|p| (p.2 as usize).is_multiple_of(LANES * built.dim as usize)));
    let header = serde_json::to_vec(&Header { built: built.clone(), pages, elems: data.len() as u64 }).expect("headers serialise");
    let tmp = dest.with_extension("lvx.tmp");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(|e| LensError::io(&tmp, e))?);
    let mut written = 0u64;
    let mut put = |f: &mut std::io::BufWriter<std::fs::File>, b: &[u8]| -> Result<()> {
        written += b.len() as u64;
        f.write_all(b).map_err(|e| LensError::io(&tmp, e))
    };
    put(&mut f, MAGIC)?;
    put(&mut f, &(header.len() as u64).to_le_bytes())?;
    put(&mut f, &header)?;
    let pad = (16 + header.len()).div_ceil(64) * 64 - (16 + header.len());
    put(&mut f, &vec![0u8; pad])?;
    let mut bytes = Vec::with_capacity(data.len() * 2);
    for x in data {
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    put(&mut f, &bytes)?;
    put(&mut f, END)?;
    let file = f.into_inner().map_err(|e| LensError::io(&tmp, e.into_error()))?;
    file.sync_all().map_err(|e| LensError::io(&tmp, e))?;
    std::fs::rename(&tmp, dest).map_err(|e| LensError::io(dest, e))?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(pooled: bool) -> Built {
        Built { model: "test".into(), edge: 512, dim: 8, pooled }
    }

    fn vecs(n: usize, dim: usize, seed: u32) -> Vec<f32> {
        (0..n * dim).map(|i| (((i as u32).wrapping_mul(2654435761).wrapping_add(seed)) % 1000) as f32 / 1000.0 - 0.5).collect()
    }

    #[test]
    fn partial_resumes_after_a_torn_write_and_publishes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("7.partial");
        let mut part = Partial::open(&p, &built(false)).unwrap();
        part.add(1, &vecs(20, 8, 1)).unwrap();
        part.add(2, &vecs(5, 8, 2)).unwrap();
        drop(part);
        // a kill in the middle of page 3's record
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(&[3, 0, 0, 0, 9, 0, 0, 0, 1, 2, 3]).unwrap();
        drop(f);
        let mut part = Partial::open(&p, &built(false)).unwrap();
        assert_eq!(part.done(), 2);
        assert_eq!(part.dropped_bytes, 11);
        assert!(part.has(2) && !part.has(3));
        part.add(3, &vecs(33, 8, 3)).unwrap();
        assert_eq!(Partial::count(&p).unwrap(), 3);
        let dest = dir.path().join("7.lvx");
        part.finish(&dest, &built(false)).unwrap();
        assert!(!p.exists());
        let idx = DocIndex::open(&dest, Some(&built(false))).unwrap();
        assert_eq!(idx.num_pages(), 3);
        assert_eq!(idx.num_vectors(), 58);
        let (page, n, v) = idx.page(2);
        assert_eq!((page, n), (3, 33));
        let back = maxsim::from_blocked(v, n, 8);
        for (a, b) in back.iter().zip(vecs(33, 8, 3)) {
            assert!((a - b).abs() < 1e-3);
        }
        // a different model or edge is refused, saying how to rebuild
        let mut other = built(false);
        other.edge = 1024;
        let e = DocIndex::open(&dest, Some(&other)).err().unwrap().to_string();
        assert!(e.contains("built with test at 512 px") && e.contains("lens vision build --rebuild"), "{e}");
    }

    #[test]
    fn a_staging_file_of_another_model_or_edge_is_begun_again() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("9.partial");
        let mut part = Partial::open(&p, &built(false)).unwrap();
        part.add(1, &vecs(20, 8, 1)).unwrap();
        drop(part);
        // the same model and edge, pooled or not: resumed
        assert_eq!(Partial::open(&p, &built(true)).unwrap().done(), 1);
        // another edge: its vectors are not mixed in
        let other = Built { edge: 1024, ..built(false) };
        let part = Partial::open(&p, &other).unwrap();
        assert_eq!(part.done(), 0);
        assert!(part.dropped_bytes > 0);
        drop(part);
        assert_eq!(Partial::count(&p).unwrap(), 0);
        // a file without the header (not a staging file): begun again too
        std::fs::write(&p, b"junk").unwrap();
        assert_eq!(Partial::open(&p, &built(false)).unwrap().done(), 0);
    }

    #[test]
    fn a_truncated_or_foreign_file_is_detected_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("1.lvx");
        let data = maxsim::to_blocked(&vecs(40, 8, 1), 8);
        write_index(&dest, &built(false), vec![(1, 40, 0)], &data).unwrap();
        let full = std::fs::read(&dest).unwrap();
        for cut in [full.len() - 1, full.len() - 9, 100, 12] {
            std::fs::write(&dest, &full[..cut]).unwrap();
            let e = DocIndex::open(&dest, None).err().unwrap().to_string();
            assert!(e.contains("truncated"), "cut at {cut}: {e}");
        }
        std::fs::write(&dest, b"%PDF-1.7 not an index at all").unwrap();
        assert!(DocIndex::open(&dest, None).err().unwrap().to_string().contains("bad magic"));
    }

    #[test]
    fn score_all_matches_page_by_page() {
        let dir = tempfile::tempdir().unwrap();
        let mut docs = Vec::new();
        for d in 0..3u32 {
            let mut part = Partial::open(&dir.path().join(format!("{d}.partial")), &built(d == 2)).unwrap();
            for p in 1..=(5 + d) {
                part.add(p, &vecs(10 + p as usize * 3, 8, p + d * 100)).unwrap();
            }
            let dest = dir.path().join(format!("{d}.lvx"));
            part.finish(&dest, &built(d == 2)).unwrap();
            docs.push(DocIndex::open(&dest, None).unwrap());
        }
        let q = vecs(4, 8, 77);
        let refs: Vec<&DocIndex> = docs.iter().collect();
        let all = score_all(&q, &refs);
        assert_eq!(all.len(), 5 + 6 + 7);
        for (di, page, s) in all {
            let d = &docs[di];
            let i = (0..d.num_pages()).find(|i| d.page(*i).0 == page).unwrap();
            let (_, n, v) = d.page(i);
            assert_eq!(s, maxsim::score(&q, 8, v, n));
        }
        // the pooled document holds about a third of the vectors
        assert!(docs[2].num_vectors() * 3 <= (13..=31).step_by(3).sum::<u64>() + 7 * 2);
    }
}
