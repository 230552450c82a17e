//! GGUF block-quantised weights used as stored, and the integer kernels that multiply them.
//!
//! A weight matrix `[rows][cols]` keeps the GGUF file's bytes: Q8_0 and Q5_0 (blocks of 32),
//! Q4_K, Q5_K and Q6_K (super-blocks of 256). A matrix of any other type (F16, Q4_0, Q2_K, or the
//! f32 of a safetensors checkpoint) is quantised once to Q8_0 at load: the generic path, said
//! in `lens models`.
//!
//! Every type is read the same way: a row is unpacked into unsigned bytes `u` (0..255) with an
//! affine map per 16 columns, `w = a·u + b` (Q8_0: `u = q + 128`, `b = -128·d`; Q5_0:
//! `b = -16·d`; Q4_K/Q5_K: `a = d·scale`, `b = -dmin·min`; Q6_K: `a = d·scale`, `b = -32·a`).
//! Activations are quantised per 32 columns to `x ≈ dx·xq` (int8), with `Σ xq` kept per 16. So
//! `w·x = Σ_h dx·(a_h·Σ u·xq + b_h·Σ xq)`, and the inner `Σ u·xq` is one VNNI `dpbusd` (unsigned
//! times signed bytes) per 64 columns. Unpacking reads each stored weight once per tile of
//! activation rows (a decoded token: once), so decoding reads 5.5 bits per weight for Q5_0
//! instead of 9 for int8 blocks with an f32 scale.
//!
//! Kernels are chosen at run time (`is_x86_feature_detected!`): AVX-512 VNNI, else AVX2, else
//! portable code, `LENS_Q8_KERNEL=avx2|portable` forcing one. All give the same integers up to
//! float summation order; the tests check each against candle's dequantisation.

use rayon::prelude::*;
use std::sync::OnceLock;

/// Columns per activation block (and per Q8_0 / Q5_0 block).
pub const BLOCK: usize = 32;
/// Columns per affine map of an unpacked row.
const HALF: usize = 16;

/// The GGUF block types read as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Q8_0,
    Q5_0,
    Q4K,
    Q5K,
    Q6K,
}

impl Kind {
    /// The type of a GGUF tensor, when it has a kernel here.
    pub fn of(t: candle_core::quantized::GgmlDType) -> Option<Kind> {
        use candle_core::quantized::GgmlDType as G;
        Some(match t {
            G::Q8_0 => Kind::Q8_0,
            G::Q5_0 => Kind::Q5_0,
            G::Q4K => Kind::Q4K,
            G::Q5K => Kind::Q5K,
            G::Q6K => Kind::Q6K,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Q8_0 => "Q8_0",
            Kind::Q5_0 => "Q5_0",
            Kind::Q4K => "Q4_K",
            Kind::Q5K => "Q5_K",
            Kind::Q6K => "Q6_K",
        }
    }

    /// Columns per stored block.
    pub fn block_cols(self) -> usize {
        match self {
            Kind::Q8_0 | Kind::Q5_0 => 32,
            _ => 256,
        }
    }

    /// The constant `k` with `b = -k·a` in every 16 columns (Q8_0 128, Q5_0 16, Q6_K 32), so
    /// the offsets are integers taken off the dot product; `None` for Q4_K / Q5_K, whose `b`
    /// is its own (`-dmin·min`).
    pub fn offset(self) -> Option<i32> {
        match self {
            Kind::Q8_0 => Some(128),
            Kind::Q5_0 => Some(16),
            Kind::Q6K => Some(32),
            Kind::Q4K | Kind::Q5K => None,
        }
    }

    /// Bytes per stored block (GGML's layouts).
    pub fn block_bytes(self) -> usize {
        match self {
            Kind::Q8_0 => 34,
            Kind::Q5_0 => 22,
            Kind::Q4K => 144,
            Kind::Q5K => 176,
            Kind::Q6K => 210,
        }
    }
}

/// A block-quantised weight matrix, the bytes as a GGUF file stores them.
pub struct QMatrix {
    pub kind: Kind,
    pub rows: usize,
    pub cols: usize,
    data: Vec<u8>,
}

/// One row unpacked: `w[c] = a[c / 16] · u[c] + b[c / 16]`.
struct Unpacked {
    u: Vec<u8>,
    a: Vec<f32>,
    b: Vec<f32>,
    /// `a` spread to the 16 lanes of each 64-column step's `dpbusd` (lanes 4h..4h+3: `a_h`),
    /// for the VNNI kernel.
    al: Vec<f32>,
}

impl Unpacked {
    fn new(cols: usize) -> Unpacked {
        Unpacked { u: vec![0; cols], a: vec![0.0; cols / HALF], b: vec![0.0; cols / HALF], al: vec![0.0; cols.div_ceil(64) * 16] }
    }

    fn spread(&mut self) {
        for (lanes, a) in self.al.chunks_exact_mut(4).zip(&self.a) {
            lanes.fill(*a);
        }
        // the lanes of a last half step stay 0 (set once, at new)
    }
}

#[inline(always)]
fn f16(b: &[u8]) -> f32 {
    // the software conversion inlines (half's `to_f32` calls out to detect F16C each time)
    half::f16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32_const()
}

/// [`f16`] by the CPU's F16C instruction, for the AVX-512 kernels (every CPU with AVX-512F has
/// F16C, and Rust's `avx512f` implies it): the software conversion cost the decode kernels
/// about a third of their time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "f16c")]
#[inline]
unsafe fn f16_hw(b: &[u8]) -> f32 {
    use std::arch::x86_64::*;
    _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(u16::from_le_bytes([b[0], b[1]]) as i32)))
}

/// Q4_K / Q5_K: the 6-bit scale and min of sub-block `j` (0..8) from the 12 packed bytes.
fn scale_min_k4(j: usize, q: &[u8]) -> (f32, f32) {
    if j < 4 {
        ((q[j] & 63) as f32, (q[j + 4] & 63) as f32)
    } else {
        (((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4)) as f32, ((q[j + 4] >> 4) | ((q[j] >> 6) << 4)) as f32)
    }
}

/// Unpacks one stored row. Written as plain loops over fixed-size chunks; compiled inside the
/// AVX2 entry below, LLVM vectorises them.
#[inline(always)]
fn unpack_body(kind: Kind, row: &[u8], out: &mut Unpacked) {
    let bb = kind.block_bytes();
    match kind {
        Kind::Q8_0 => {
            for (i, blk) in row.chunks_exact(bb).enumerate() {
                let d = f16(blk);
                let u = &mut out.u[i * 32..i * 32 + 32];
                for (o, &q) in u.iter_mut().zip(&blk[2..34]) {
                    *o = q ^ 0x80;
                }
                out.a[2 * i..2 * i + 2].fill(d);
                out.b[2 * i..2 * i + 2].fill(-128.0 * d);
            }
        }
        Kind::Q5_0 => {
            for (i, blk) in row.chunks_exact(bb).enumerate() {
                let d = f16(blk);
                let qh = u32::from_le_bytes([blk[2], blk[3], blk[4], blk[5]]);
                let qs = &blk[6..22];
                let u = &mut out.u[i * 32..i * 32 + 32];
                for j in 0..16 {
                    u[j] = (qs[j] & 0xF) | ((((qh >> j) & 1) as u8) << 4);
                    u[j + 16] = (qs[j] >> 4) | ((((qh >> (j + 16)) & 1) as u8) << 4);
                }
                out.a[2 * i..2 * i + 2].fill(d);
                out.b[2 * i..2 * i + 2].fill(-16.0 * d);
            }
        }
        Kind::Q4K | Kind::Q5K => {
            for (i, blk) in row.chunks_exact(bb).enumerate() {
                let (d, dmin) = (f16(blk), f16(&blk[2..]));
                let sc = &blk[4..16];
                let (qh, qs) = if kind == Kind::Q5K { (Some(&blk[16..48]), &blk[48..176]) } else { (None, &blk[16..144]) };
                let u = &mut out.u[i * 256..i * 256 + 256];
                for j in 0..4 {
                    let q = &qs[32 * j..32 * j + 32];
                    let (lo, hi) = u[64 * j..64 * j + 64].split_at_mut(32);
                    for l in 0..32 {
                        lo[l] = q[l] & 0xF;
                        hi[l] = q[l] >> 4;
                    }
                    if let Some(qh) = qh {
                        for l in 0..32 {
                            lo[l] |= ((qh[l] >> (2 * j)) & 1) << 4;
                            hi[l] |= ((qh[l] >> (2 * j + 1)) & 1) << 4;
                        }
                    }
                    let h = i * 16 + 4 * j;
                    let (s1, m1) = scale_min_k4(2 * j, sc);
                    let (s2, m2) = scale_min_k4(2 * j + 1, sc);
                    out.a[h..h + 2].fill(d * s1);
                    out.b[h..h + 2].fill(-dmin * m1);
                    out.a[h + 2..h + 4].fill(d * s2);
                    out.b[h + 2..h + 4].fill(-dmin * m2);
                }
            }
        }
        Kind::Q6K => {
            for (i, blk) in row.chunks_exact(bb).enumerate() {
                let (ql, qh, sc) = (&blk[..128], &blk[128..192], &blk[192..208]);
                let d = f16(&blk[208..]);
                let u = &mut out.u[i * 256..i * 256 + 256];
                for n in 0..2 {
                    let (ql, qh) = (&ql[64 * n..64 * n + 64], &qh[32 * n..32 * n + 32]);
                    let u = &mut u[128 * n..128 * n + 128];
                    for l in 0..32 {
                        u[l] = (ql[l] & 0xF) | ((qh[l] & 3) << 4);
                        u[l + 32] = (ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4);
                        u[l + 64] = (ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4);
                        u[l + 96] = (ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4);
                    }
                }
                for (h, &s) in sc.iter().enumerate() {
                    let a = d * (s as i8) as f32;
                    out.a[i * 16 + h] = a;
                    out.b[i * 16 + h] = -32.0 * a;
                }
            }
        }
    }
}

fn unpack_portable(kind: Kind, row: &[u8], out: &mut Unpacked) {
    unpack_body(kind, row, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn unpack_avx2(kind: Kind, row: &[u8], out: &mut Unpacked) {
    unpack_body(kind, row, out)
}

/// One Q8_0 or Q5_0 block (`blk`, its stored bytes) unpacked in a register: the 32 bytes `u`
/// and the scale `d` (Q8_0's sign bit flipped, Q5_0's nibbles split and fifth bits set from a
/// mask). The unpack below and the decode kernel both read blocks through it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma,f16c")]
#[inline]
unsafe fn block32_avx512(kind: Kind, blk: &[u8]) -> (std::arch::x86_64::__m256i, f32) {
    use std::arch::x86_64::*;
    let d = f16_hw(blk);
    if kind == Kind::Q8_0 {
        (_mm256_xor_si256(_mm256_loadu_si256(blk.as_ptr().add(2) as *const __m256i), _mm256_set1_epi8(-128)), d)
    } else {
        let low = _mm_set1_epi8(0x0F);
        let qh = u32::from_le_bytes([blk[2], blk[3], blk[4], blk[5]]);
        let qs = _mm_loadu_si128(blk.as_ptr().add(6) as *const __m128i);
        let (lo, hi) = (_mm_and_si128(qs, low), _mm_and_si128(_mm_srli_epi16(qs, 4), low));
        (_mm256_or_si256(_mm256_set_m128i(hi, lo), _mm256_maskz_mov_epi8(qh, _mm256_set1_epi8(0x10))), d)
    }
}

/// Q8_0 and Q5_0 with AVX-512 (their 32-column blocks are too short for LLVM to vectorise
/// well), a block at a time through [`block32_avx512`]; other kinds as [`unpack_body`] does.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma,f16c")]
unsafe fn unpack_avx512(kind: Kind, row: &[u8], out: &mut Unpacked) {
    use std::arch::x86_64::*;
    let Some(k) = kind.offset().filter(|_| kind.block_cols() == 32) else { return unpack_body(kind, row, out) };
    for (i, blk) in row.chunks_exact(kind.block_bytes()).enumerate() {
        let (u, d) = block32_avx512(kind, blk);
        _mm256_storeu_si256(out.u.as_mut_ptr().add(i * 32) as *mut __m256i, u);
        out.a[2 * i..2 * i + 2].fill(d);
        out.b[2 * i..2 * i + 2].fill(-(k as f32) * d);
    }
}

fn unpack(k: &Kernel, kind: Kind, row: &[u8], out: &mut Unpacked) {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the avx512vnni kernel is chosen only when the CPU reports avx512f, bw, vl,
        // avx2 and fma, the avx2 kernel only with avx2 and fma
        if k.name == "avx512vnni" {
            unsafe { unpack_avx512(kind, row, out) };
            return out.spread();
        }
        if k.name != "portable" {
            return unsafe { unpack_avx2(kind, row, out) };
        }
    }
    let _ = k;
    unpack_portable(kind, row, out)
}

impl QMatrix {
    /// A matrix from a GGUF tensor's bytes (`rows` rows of `cols / block_cols` blocks).
    pub fn from_bytes(kind: Kind, rows: usize, cols: usize, data: Vec<u8>) -> Result<QMatrix, String> {
        if !cols.is_multiple_of(kind.block_cols()) {
            return Err(format!("{} rows of {cols} columns: not a whole number of {}-column blocks", kind.name(), kind.block_cols()));
        }
        let want = rows * cols / kind.block_cols() * kind.block_bytes();
        if data.len() != want {
            return Err(format!("{} {rows}x{cols}: {} bytes where {want} were expected", kind.name(), data.len()));
        }
        Ok(QMatrix { kind, rows, cols, data })
    }

    /// Quantise a row-major f32 matrix to Q8_0 (the generic path). `cols` must be a multiple of
    /// [`BLOCK`].
    pub fn quantize_q8_0(w: &[f32], rows: usize, cols: usize) -> QMatrix {
        assert!(cols.is_multiple_of(BLOCK) && w.len() == rows * cols, "a {rows}x{cols} matrix in blocks of {BLOCK}");
        let mut data = vec![0u8; rows * cols / BLOCK * 34];
        data.par_chunks_mut(34).zip(w.par_chunks(BLOCK)).for_each(|(out, x)| {
            let mut q = [0i8; BLOCK];
            let d = half::f16::from_f32(quantize_block(x, &mut q));
            out[..2].copy_from_slice(&d.to_bits().to_le_bytes());
            for (o, v) in out[2..].iter_mut().zip(q) {
                *o = v as u8;
            }
        });
        QMatrix { kind: Kind::Q8_0, rows, cols, data }
    }

    /// The rows of `parts`, one after another (all of one kind and width).
    pub fn stack(parts: Vec<QMatrix>) -> QMatrix {
        let mut it = parts.into_iter();
        let mut m = it.next().expect("at least one part");
        for p in it {
            assert!(p.cols == m.cols && p.kind == m.kind, "stacked matrices share their kind and columns");
            m.rows += p.rows;
            m.data.extend_from_slice(&p.data);
        }
        m
    }

    pub fn bytes(&self) -> usize {
        self.data.len()
    }

    fn row_bytes(&self, r: usize) -> &[u8] {
        let per = self.cols / self.kind.block_cols() * self.kind.block_bytes();
        &self.data[r * per..(r + 1) * per]
    }

    /// Row `r`, dequantised (embedding lookups).
    pub fn row(&self, r: usize) -> Vec<f32> {
        self.row_with(kernel(), r)
    }

    fn row_with(&self, k: &Kernel, r: usize) -> Vec<f32> {
        let mut un = Unpacked::new(self.cols);
        unpack(k, self.kind, self.row_bytes(r), &mut un);
        un.u.iter().enumerate().map(|(c, &u)| un.a[c / HALF] * u as f32 + un.b[c / HALF]).collect()
    }

    /// `x [n][cols] · selfᵀ → [n][rows]`. A prompt of at least [`BF16_ROWS`] rows on a CPU with a
    /// bf16 GEMM ([`lens_ml::bf16::kernel`]: AMX or AVX-512 BF16) runs there, each weight row dequantised as it is
    /// packed; otherwise (a decoded token, a short prompt, neither) the int8 kernels.
    pub fn matmul(&self, x: &[f32], n: usize) -> Vec<f32> {
        match lens_ml::bf16::kernel() {
            Some(b) if n >= BF16_ROWS => self.matmul_bf16(b, x, n),
            _ => self.matmul_with(kernel(), &Acts::quantize(x, n, self.cols, self.kind.offset().unwrap_or(0))),
        }
    }

    fn matmul_bf16(&self, b: lens_ml::bf16::Kernel, x: &[f32], n: usize) -> Vec<f32> {
        let k = kernel();
        let mut out = vec![0f32; n * self.rows];
        lens_ml::bf16::matmul_columns(
            b,
            x,
            n,
            self.rows,
            self.cols,
            |r, dst| {
                let mut un = Unpacked::new(self.cols);
                unpack(k, self.kind, self.row_bytes(r), &mut un);
                dequantise(&un, dst);
            },
            &mut out,
        );
        out
    }

    fn matmul_with(&self, k: &Kernel, x: &Acts) -> Vec<f32> {
        assert_eq!(x.cols, self.cols, "activation width");
        let (n, cols) = (x.rows, self.cols);
        let mut out = vec![0f32; n * self.rows];
        // weight rows unpacked a chunk at a time (about 64 KB of bytes, in L2), each chunk
        // against every activation row in tiles that stay in L1
        // (a decoded token, one activation row: one weight row at a time, through L1)
        let chunk = if n < 4 { 1 } else { (65536 / cols).clamp(4, 64) };
        let per_task = (self.rows / (rayon::current_num_threads() * 8)).max(chunk).next_multiple_of(chunk);
        let tile_rows = (32_768 / cols).next_multiple_of(4).clamp(4, 64);
        let parts: Vec<(usize, Vec<f32>)> = (0..self.rows.div_ceil(per_task))
            .into_par_iter()
            .map(|t| {
                let r0 = t * per_task;
                let r1 = (r0 + per_task).min(self.rows);
                // this task's columns of the output, [n][r1 - r0]
                let rt = r1 - r0;
                let mut part = vec![0f32; rt * n];
                let mut un: Vec<Unpacked> = (0..chunk.min(r1 - r0)).map(|_| Unpacked::new(cols)).collect();
                #[cfg(target_arch = "x86_64")]
                if n < 4 && k.name == "avx512vnni" && self.kind != Kind::Q5K {
                    // a decoded token: rows read straight from the stored bytes (Q5_K: unpacked
                    // below)
                    for r in r0..r1 {
                        for a in 0..n {
                            let row = self.row_bytes(r);
                            // SAFETY: the avx512vnni kernel implies avx512f/bw/vl, avx2 and fma;
                            // the row and the activations have the same width
                            part[a * rt + r - r0] = unsafe {
                                match self.kind {
                                    Kind::Q8_0 | Kind::Q5_0 => dot_stored_vnni(self.kind, row, x, a),
                                    Kind::Q4K | Kind::Q6K => dot_stored_k_vnni(self.kind, row, x, a),
                                    Kind::Q5K => unreachable!("Q5_K rows are unpacked"),
                                }
                            };
                        }
                    }
                    return (r0, part);
                }
                for c0 in (r0..r1).step_by(chunk) {
                    let c1 = (c0 + chunk).min(r1);
                    for (r, u) in (c0..c1).zip(un.iter_mut()) {
                        if n < 4 && r + 1 < r1 {
                            // a decoded token reads each row once: ask for the next one ahead
                            prefetch(self.row_bytes(r + 1));
                        }
                        unpack(k, self.kind, self.row_bytes(r), u);
                    }
                    for a0 in (0..n).step_by(tile_rows) {
                        let a1 = (a0 + tile_rows).min(n);
                        // two weight rows by four activation rows a call; the output row
                        // of each activation row is written along, weight row by weight row
                        for g in (a0..a1).step_by(4) {
                            let m = (a1 - g).min(4);
                            for r in (c0..c1).step_by(2) {
                                let pair = (c1 - r).min(2);
                                let ws = [&un[r - c0], &un[r - c0 + pair - 1]];
                                let v = (k.dot)(&ws[..pair], x, g, m);
                                for (i, vi) in v.iter().enumerate().take(pair) {
                                    for (j, x) in vi[..m].iter().enumerate() {
                                        part[(g + j) * rt + r + i - r0] = *x;
                                    }
                                }
                            }
                        }
                    }
                }
                (r0, part)
            })
            .collect();
        for (r0, part) in parts {
            let rt = part.len() / n.max(1);
            for (a, row) in part.chunks(rt.max(1)).enumerate() {
                out[a * self.rows + r0..a * self.rows + r0 + rt].copy_from_slice(row);
            }
        }
        out
    }
}

lens_ml::simd_fn! {
    /// `dst = a · u + b` per 16 columns: an unpacked row in f32.
    fn dequantise(un: &Unpacked, dst: &mut [f32]) {
        for (((d, u), a), b) in dst.chunks_mut(HALF).zip(un.u.chunks(HALF)).zip(&un.a).zip(&un.b) {
            for (d, u) in d.iter_mut().zip(u) {
                *d = a * *u as f32 + b;
            }
        }
    }
}

/// The fewest activation rows that go through the bf16 GEMM: below, dequantising every weight
/// costs more than the int8 kernels save.
pub const BF16_ROWS: usize = 64;

/// Asks the CPU to bring `bytes` into cache (a hint; nothing on other targets).
#[inline(always)]
fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    for line in bytes.chunks(64) {
        // SAFETY: a prefetch reads nothing architecturally and cannot fault
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(line.as_ptr() as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

fn quantize_block(x: &[f32], q: &mut [i8]) -> f32 {
    let amax = x.iter().fold(0f32, |m, v| m.max(v.abs()));
    if amax == 0.0 || !amax.is_finite() {
        q.iter_mut().for_each(|v| *v = 0);
        return 0.0;
    }
    let d = amax / 127.0;
    let id = 1.0 / d;
    for (o, v) in q.iter_mut().zip(x) {
        // round half away from zero without a libm call (`f32::round` is one on baseline x86_64)
        let t = v * id;
        *o = (t + 0.5f32.copysign(t)).clamp(-127.0, 127.0) as i8;
    }
    d
}

/// Activation rows quantised per [`BLOCK`], laid out for the weights' kind (its offset `k`):
/// `q` int8; per 16 columns (padded to whole 64-column steps) `d` the block's scale, `corr`
/// `-k · Σ q` (the integer offsets, 0 when `k` is 0) and `xs` `d · Σ q` (what the weights' own
/// offsets `b` multiply when `k` is 0).
pub struct Acts {
    rows: usize,
    cols: usize,
    k: i32,
    q: Vec<i8>,
    d: Vec<f32>,
    /// `d` spread to lanes as [`Unpacked::al`] is.
    dl: Vec<f32>,
    corr: Vec<i32>,
    xs: Vec<f32>,
}

impl Acts {
    pub fn quantize(x: &[f32], rows: usize, cols: usize, k: i32) -> Acts {
        assert!(cols.is_multiple_of(BLOCK) && x.len() == rows * cols, "activations of {cols} columns in blocks of {BLOCK}");
        let nb = cols / BLOCK;
        let nh = Acts::halves(cols);
        let mut q = vec![0i8; rows * cols];
        let mut d = vec![0f32; rows * nh];
        let mut corr = vec![0i32; rows * nh];
        let mut xs = vec![0f32; rows * nh];
        for r in 0..rows {
            for b in 0..nb {
                let at = r * cols + b * BLOCK;
                let qb = &mut q[at..at + BLOCK];
                let db = quantize_block(&x[at..at + BLOCK], qb);
                for h in 0..2 {
                    let sum: i32 = qb[h * HALF..(h + 1) * HALF].iter().map(|&v| v as i32).sum();
                    let i = r * nh + 2 * b + h;
                    d[i] = db;
                    corr[i] = -k * sum;
                    xs[i] = db * sum as f32;
                }
            }
        }
        let dl = d.iter().flat_map(|&v| [v; 4]).collect();
        Acts { rows, cols, k, q, d, dl, corr, xs }
    }

    /// 16-column groups per row, padded to whole 64-column steps.
    fn halves(cols: usize) -> usize {
        cols.div_ceil(64) * 4
    }

    fn q(&self, r: usize) -> &[i8] {
        &self.q[r * self.cols..(r + 1) * self.cols]
    }

    fn per_half<'a, T>(&self, v: &'a [T], r: usize) -> &'a [T] {
        let nh = Acts::halves(self.cols);
        &v[r * nh..(r + 1) * nh]
    }

    fn lanes(&self, r: usize) -> &[f32] {
        let nl = Acts::halves(self.cols) * 4;
        &self.dl[r * nl..(r + 1) * nl]
    }
}

/// One or two unpacked weight rows against `m` (1..=4) activation rows starting at `a0`.
type Dot = fn(&[&Unpacked], &Acts, usize, usize) -> [[f32; 4]; 2];

/// A one-row kernel made a [`Dot`].
fn rows_of(w: &[&Unpacked], one: impl Fn(&Unpacked) -> [f32; 4]) -> [[f32; 4]; 2] {
    let mut out = [[0f32; 4]; 2];
    for (o, w) in out.iter_mut().zip(w) {
        *o = one(w);
    }
    out
}

pub struct Kernel {
    pub name: &'static str,
    dot: Dot,
}

/// The kernel this CPU runs, chosen once (`LENS_Q8_KERNEL` or `LENS_KERNEL` = `avx2` or
/// `portable` forces one; see [`lens_ml::choose_kernel`]).
fn kernel() -> &'static Kernel {
    static K: OnceLock<Kernel> = OnceLock::new();
    K.get_or_init(|| {
        let mut ks = kernels();
        let names: Vec<(&str, bool)> = ks.iter().map(|k| (k.name, true)).collect();
        let chosen = lens_ml::choose_kernel("LENS_Q8_KERNEL", &names).unwrap_or("portable");
        let i = ks.iter().position(|k| k.name == chosen).unwrap_or(ks.len() - 1);
        ks.swap_remove(i)
    })
}

/// How the matrices run, for `lens models` and the benches: the int8 kernel, and the bf16 GEMM
/// prompts of [`BF16_ROWS`] tokens or more take where the CPU has one.
pub fn kernels_summary() -> String {
    match lens_ml::bf16::kernel() {
        Some(b) => format!("kernel {} (decoding), prompts of {BF16_ROWS}+ tokens in bf16 ({})", kernel_name(), b.name()),
        None => format!("kernel {}", kernel_name()),
    }
}

/// The name of the kernel in use: `avx512vnni`, `avx2` or `portable`.
pub fn kernel_name() -> &'static str {
    kernel().name
}

/// Every kernel this CPU can run, fastest first.
fn kernels() -> Vec<Kernel> {
    let mut ks = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        let has = |f: &[bool]| f.iter().all(|&b| b);
        if has(&[
            is_x86_feature_detected!("avx512f"),
            is_x86_feature_detected!("avx512bw"),
            is_x86_feature_detected!("avx512vl"),
            is_x86_feature_detected!("avx512vnni"),
            is_x86_feature_detected!("avx2"),
            is_x86_feature_detected!("fma"),
        ]) {
            ks.push(Kernel { name: "avx512vnni", dot: dot_vnni_entry });
        }
        if has(&[is_x86_feature_detected!("avx2"), is_x86_feature_detected!("fma")]) {
            ks.push(Kernel { name: "avx2", dot: dot_avx2_entry });
        }
    }
    ks.push(Kernel { name: "portable", dot: dot_portable });
    ks
}

/// The weights' own offsets, `Σ_h b_h · xs_h` (Q4_K / Q5_K; kinds with an integer offset have
/// it in `corr` instead).
#[inline(always)]
fn offsets(w: &Unpacked, x: &Acts, r: usize) -> f32 {
    if x.k != 0 {
        return 0.0;
    }
    w.b.iter().zip(x.per_half(&x.xs, r)).map(|(b, x)| b * x).sum()
}

fn dot_portable(w: &[&Unpacked], x: &Acts, a0: usize, m: usize) -> [[f32; 4]; 2] {
    rows_of(w, |w| dot_portable_row(w, x, a0, m))
}

fn dot_portable_row(w: &Unpacked, x: &Acts, a0: usize, m: usize) -> [f32; 4] {
    let mut out = [0f32; 4];
    for (i, o) in out.iter_mut().enumerate().take(m) {
        let (xq, d, corr) = (x.q(a0 + i), x.per_half(&x.d, a0 + i), x.per_half(&x.corr, a0 + i));
        let mut s = 0f32;
        for (h, (u, q)) in w.u.chunks(HALF).zip(xq.chunks(HALF)).enumerate() {
            let dot: i32 = u.iter().zip(q).map(|(&u, &q)| u as i32 * q as i32).sum();
            s += w.a[h] * d[h] * (dot + corr[h]) as f32;
        }
        *o = s + offsets(w, x, a0 + i);
    }
    out
}

#[cfg(target_arch = "x86_64")]
fn dot_avx2_entry(w: &[&Unpacked], x: &Acts, a0: usize, m: usize) -> [[f32; 4]; 2] {
    // SAFETY: chosen only when the CPU reports avx2 and fma
    rows_of(w, |w| unsafe { dot_avx2(w, x, a0, m) })
}

/// 16 columns at a time: bytes widened to i16, `madd` to eight i32 lanes, scaled by
/// `a_h · dx` (AVX2's `maddubs` would saturate on Q8_0's unsigned bytes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_avx2(w: &Unpacked, x: &Acts, a0: usize, m: usize) -> [f32; 4] {
    use std::arch::x86_64::*;
    let mut out = [0f32; 4];
    let halves = w.a.len();
    for (i, o) in out.iter_mut().enumerate().take(m) {
        let (xq, d, corr) = (x.q(a0 + i).as_ptr(), x.per_half(&x.d, a0 + i), x.per_half(&x.corr, a0 + i));
        let mut acc = _mm256_setzero_ps();
        for h in 0..halves {
            let u = _mm256_cvtepu8_epi16(_mm_loadu_si128(w.u.as_ptr().add(h * HALF) as *const __m128i));
            let q = _mm256_cvtepi8_epi16(_mm_loadu_si128(xq.add(h * HALF) as *const __m128i));
            // the integer offset goes into lane 0
            let p = _mm256_add_epi32(_mm256_madd_epi16(u, q), _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, *corr.get_unchecked(h)));
            let s = _mm256_set1_ps(*w.a.get_unchecked(h) * *d.get_unchecked(h));
            acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), s, acc);
        }
        *o = hsum256(acc) + offsets(w, x, a0 + i);
    }
    out
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn hsum256(v: std::arch::x86_64::__m256) -> f32 {
    use std::arch::x86_64::*;
    let lo = _mm256_castps256_ps128(v);
    let hi = _mm256_extractf128_ps(v, 1);
    let s = _mm_add_ps(lo, hi);
    let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    let s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    _mm_cvtss_f32(s)
}

#[cfg(target_arch = "x86_64")]
fn dot_vnni_entry(w: &[&Unpacked], x: &Acts, a0: usize, m: usize) -> [[f32; 4]; 2] {
    // SAFETY: chosen only when the CPU reports avx512f, avx512bw, avx512vnni, avx2 and fma; the
    // rows and the activations have the same width (checked by matmul), and rows a0..a0+m exist
    unsafe {
        match (w.len(), m) {
            (1, 1) => dot_vnni::<1, 1>(w, x, a0),
            (1, 2) => dot_vnni::<1, 2>(w, x, a0),
            (1, 3) => dot_vnni::<1, 3>(w, x, a0),
            (1, _) => dot_vnni::<1, 4>(w, x, a0),
            (_, 1) => dot_vnni::<2, 1>(w, x, a0),
            (_, 2) => dot_vnni::<2, 2>(w, x, a0),
            (_, 3) => dot_vnni::<2, 3>(w, x, a0),
            _ => dot_vnni::<2, 4>(w, x, a0),
        }
    }
}

/// 64 columns per step: `dpbusd(corr, u, xq)` sums four products per lane (lanes 4h..4h+3:
/// the step's 16-column group h) onto the group's integer offset (lane 4h); the lanes are
/// scaled by `a_h · d_h` (both spread to lanes beforehand) and summed in f32. `R` weight rows
/// by `M` activation rows share their loads: each weight step is read once for the `M` rows
/// and each activation step once for the `R` rows. An odd last 32 columns are read with
/// masked loads.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni,avx2,fma")]
unsafe fn dot_vnni<const R: usize, const M: usize>(w: &[&Unpacked], x: &Acts, a0: usize) -> [[f32; 4]; 2] {
    use std::arch::x86_64::*;
    let cols = w[0].u.len();
    let spread = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
    let xq: [*const i8; M] = std::array::from_fn(|r| x.q(a0 + r).as_ptr());
    let xd: [*const f32; M] = std::array::from_fn(|r| x.lanes(a0 + r).as_ptr());
    let xc: [*const i32; M] = std::array::from_fn(|r| x.per_half(&x.corr, a0 + r).as_ptr());
    let up: [*const u8; R] = std::array::from_fn(|i| w[i].u.as_ptr());
    let ap: [*const f32; R] = std::array::from_fn(|i| w[i].al.as_ptr());
    let mut acc = [[_mm512_setzero_ps(); M]; R];
    let mut c = 0;
    while c < cols {
        let full = c + 64 <= cols;
        let (h, l) = (c / HALF, c / 4);
        let u: [__m512i; R] = std::array::from_fn(|i| {
            if full {
                _mm512_loadu_si512(up[i].add(c) as *const _)
            } else {
                _mm512_maskz_loadu_epi8(0xFFFF_FFFF, up[i].add(c) as *const _)
            }
        });
        let al: [__m512; R] = std::array::from_fn(|i| _mm512_loadu_ps(ap[i].add(l)));
        for r in 0..M {
            let q = if full { _mm512_loadu_si512(xq[r].add(c) as *const _) } else { _mm512_maskz_loadu_epi8(0xFFFF_FFFF, xq[r].add(c) as *const _) };
            let init = _mm512_maskz_permutexvar_epi32(0x1111, spread, _mm512_castsi128_si512(_mm_loadu_si128(xc[r].add(h) as *const _)));
            let d = _mm512_loadu_ps(xd[r].add(l));
            for i in 0..R {
                let p = _mm512_dpbusd_epi32(init, u[i], q);
                acc[i][r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(p), _mm512_mul_ps(al[i], d), acc[i][r]);
            }
        }
        c += 64;
    }
    let mut out = [[0f32; 4]; 2];
    for i in 0..R {
        for r in 0..M {
            out[i][r] = _mm512_reduce_add_ps(acc[i][r]) + if x.k == 0 { offsets_avx512(&w[i].b, x.per_half(&x.xs, a0 + r)) } else { 0.0 };
        }
    }
    out
}

/// One Q8_0 / Q5_0 row as stored against activation row `a`, 64 columns a step, each block
/// unpacked in a register as [`unpack_avx512`] does, then summed as [`dot_vnni`] does.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
unsafe fn dot_stored_vnni(kind: Kind, row: &[u8], x: &Acts, a: usize) -> f32 {
    use std::arch::x86_64::*;
    let bb = kind.block_bytes();
    let nb = row.len() / bb;
    let spread = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
    let (xq, xd, xc) = (x.q(a).as_ptr(), x.per_half(&x.d, a).as_ptr(), x.per_half(&x.corr, a).as_ptr());
    let rp = row.as_ptr();
    let block = |b: usize| block32_avx512(kind, &row[b * bb..(b + 1) * bb]);
    let mut acc = _mm512_setzero_ps();
    let mut b = 0;
    while b < nb {
        let two = b + 1 < nb;
        // the stored row is read once, straight from memory: ask for it ahead
        _mm_prefetch::<_MM_HINT_T0>(rp.wrapping_add(b * bb + 2048) as *const i8);
        let (u0, _) = block(b);
        let u1 = if two { block(b + 1).0 } else { _mm256_setzero_si256() };
        let u = _mm512_inserti64x4(_mm512_castsi256_si512(u0), u1, 1);
        let (c, h) = (b * BLOCK, 2 * b);
        let q = if two { _mm512_loadu_si512(xq.add(c) as *const _) } else { _mm512_maskz_loadu_epi8(0xFFFF_FFFF, xq.add(c) as *const _) };
        let init = _mm512_maskz_permutexvar_epi32(0x1111, spread, _mm512_castsi128_si512(_mm_loadu_si128(xc.add(h) as *const _)));
        let p = _mm512_dpbusd_epi32(init, u, q);
        // the two blocks' f16 scales converted together (F16C), as d0 d0 d1 d1
        let bits0 = (rp.add(b * bb) as *const u16).read_unaligned() as i32;
        let bits1 = if two { (rp.add((b + 1) * bb) as *const u16).read_unaligned() as i32 } else { 0 };
        let dd = _mm_cvtph_ps(_mm_cvtsi32_si128(bits0 | (bits1 << 16)));
        let a4 = _mm_shuffle_ps::<0x50>(dd, dd);
        let sc = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_mul_ps(a4, _mm_loadu_ps(xd.add(h)))));
        acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(p), sc, acc);
        b += 2;
    }
    _mm512_reduce_add_ps(acc)
}

/// One Q4_K / Q6_K row as stored against activation row `a`: each 256-column super-block's
/// 64-column steps unpacked in registers (Q4_K: nibbles; Q6_K: nibbles and two high bits), its
/// scales read once per super-block, then summed as [`dot_vnni`] does; Q4_K's mins go through
/// the activation sums (`xs`), Q6_K's offset of 32 through the integer correction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
unsafe fn dot_stored_k_vnni(kind: Kind, row: &[u8], x: &Acts, a: usize) -> f32 {
    use std::arch::x86_64::*;
    let bb = kind.block_bytes();
    let spread = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
    let (xq, xd, xc, xs) = (x.q(a).as_ptr(), x.per_half(&x.d, a).as_ptr(), x.per_half(&x.corr, a).as_ptr(), x.per_half(&x.xs, a).as_ptr());
    let low = _mm256_set1_epi8(0x0F);
    let three = _mm256_set1_epi8(3);
    let mut acc = _mm512_setzero_ps();
    let mut offs = _mm_setzero_ps();
    for (i, blk) in row.chunks_exact(bb).enumerate() {
        let p = blk.as_ptr();
        _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(2 * bb) as *const i8);
        // per 16 columns of the super-block: the scale a, and (Q4_K) the offset b
        let mut av = [0f32; 16];
        let mut bv = [0f32; 16];
        let mut us = [_mm512_setzero_si512(); 4];
        if kind == Kind::Q4K {
            let (d, dmin) = (f16_hw(blk), f16_hw(&blk[2..]));
            let sc = &blk[4..16];
            for j in 0..4 {
                let (s1, m1) = scale_min_k4(2 * j, sc);
                let (s2, m2) = scale_min_k4(2 * j + 1, sc);
                av[4 * j..4 * j + 2].fill(d * s1);
                av[4 * j + 2..4 * j + 4].fill(d * s2);
                bv[4 * j..4 * j + 2].fill(-dmin * m1);
                bv[4 * j + 2..4 * j + 4].fill(-dmin * m2);
                let q = _mm256_loadu_si256(p.add(16 + 32 * j) as *const __m256i);
                let lo = _mm256_and_si256(q, low);
                let hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), low);
                us[j] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
            }
        } else {
            let d = f16_hw(&blk[208..]);
            for (h, v) in av.iter_mut().enumerate() {
                *v = d * (blk[192 + h] as i8) as f32;
            }
            for n in 0..2 {
                let ql0 = _mm256_loadu_si256(p.add(64 * n) as *const __m256i);
                let ql1 = _mm256_loadu_si256(p.add(64 * n + 32) as *const __m256i);
                let qh = _mm256_loadu_si256(p.add(128 + 32 * n) as *const __m256i);
                let hbits = |shift: i32| -> __m256i {
                    let h = match shift {
                        0 => qh,
                        2 => _mm256_srli_epi16(qh, 2),
                        4 => _mm256_srli_epi16(qh, 4),
                        _ => _mm256_srli_epi16(qh, 6),
                    };
                    _mm256_slli_epi16(_mm256_and_si256(h, three), 4)
                };
                let u0 = _mm256_or_si256(_mm256_and_si256(ql0, low), hbits(0));
                let u1 = _mm256_or_si256(_mm256_and_si256(ql1, low), hbits(2));
                let u2 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), low), hbits(4));
                let u3 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), low), hbits(6));
                us[2 * n] = _mm512_inserti64x4(_mm512_castsi256_si512(u0), u1, 1);
                us[2 * n + 1] = _mm512_inserti64x4(_mm512_castsi256_si512(u2), u3, 1);
            }
        }
        for (j, u) in us.iter().enumerate() {
            let (c, h) = (i * 256 + 64 * j, i * 16 + 4 * j);
            let q = _mm512_loadu_si512(xq.add(c) as *const _);
            let init = _mm512_maskz_permutexvar_epi32(0x1111, spread, _mm512_castsi128_si512(_mm_loadu_si128(xc.add(h) as *const _)));
            let pr = _mm512_dpbusd_epi32(init, *u, q);
            let a4 = _mm_loadu_ps(av.as_ptr().add(4 * j));
            let sc = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_mul_ps(a4, _mm_loadu_ps(xd.add(h)))));
            acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(pr), sc, acc);
            if kind == Kind::Q4K {
                offs = _mm_fmadd_ps(_mm_loadu_ps(bv.as_ptr().add(4 * j)), _mm_loadu_ps(xs.add(h)), offs);
            }
        }
    }
    let o = _mm_add_ps(offs, _mm_movehl_ps(offs, offs));
    let o = _mm_add_ss(o, _mm_shuffle_ps(o, o, 1));
    _mm512_reduce_add_ps(acc) + _mm_cvtss_f32(o)
}

/// `Σ b_h · xs_h`, 16 at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn offsets_avx512(b: &[f32], xs: &[f32]) -> f32 {
    use std::arch::x86_64::*;
    let n = b.len();
    let mut acc = _mm512_setzero_ps();
    let mut i = 0;
    while i + 16 <= n {
        acc = _mm512_fmadd_ps(_mm512_loadu_ps(b.as_ptr().add(i)), _mm512_loadu_ps(xs.as_ptr().add(i)), acc);
        i += 16;
    }
    _mm512_reduce_add_ps(acc) + b[i..].iter().zip(&xs[i..]).map(|(a, b)| a * b).sum::<f32>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::pseudo;
    use candle_core::quantized::{GgmlDType, QTensor};
    use candle_core::{Device, Tensor};

    /// A `rows x cols` matrix quantised by candle to `t`, with candle's dequantisation of it.
    fn candle_quantised(t: GgmlDType, rows: usize, cols: usize, seed: u64) -> (QMatrix, Vec<f32>) {
        let w = Tensor::from_vec(pseudo(rows * cols, seed), (rows, cols), &Device::Cpu).unwrap();
        let q = QTensor::quantize(&w, t).unwrap();
        let deq = q.dequantize(&Device::Cpu).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let m = QMatrix::from_bytes(Kind::of(t).unwrap(), rows, cols, q.data().unwrap().into_owned()).unwrap();
        (m, deq)
    }

    const TYPES: [GgmlDType; 5] = [GgmlDType::Q8_0, GgmlDType::Q5_0, GgmlDType::Q4K, GgmlDType::Q5K, GgmlDType::Q6K];

    #[test]
    fn unpacked_rows_are_candles_dequantisation() {
        for t in TYPES {
            let (m, deq) = candle_quantised(t, 5, 512, 7);
            for k in kernels() {
                for r in 0..5 {
                    let got = m.row_with(&k, r);
                    for (c, (g, e)) in got.iter().zip(&deq[r * 512..(r + 1) * 512]).enumerate() {
                        assert!((g - e).abs() <= 1e-5 * (1.0 + e.abs()), "{t:?} {} row {r} col {c}: {g} vs candle {e}", k.name);
                    }
                }
            }
        }
    }

    #[test]
    fn every_kernel_multiplies_every_type_like_the_dequantised_matrix() {
        // 3 x 256 + 32 columns: Q8_0 / Q5_0 end on an odd 32-column block (the masked tail)
        for t in TYPES {
            let cols = if Kind::of(t).unwrap().block_cols() == 32 { 800 } else { 768 };
            // 1 and 7 activation rows: every group size of the VNNI kernel (4 + 3, 1)
            for n in [1, 2, 7] {
                let rows = 37;
                let (m, deq) = candle_quantised(t, rows, cols, 11);
                let x = pseudo(n * cols, 12);
                let acts = Acts::quantize(&x, n, cols, Kind::of(t).unwrap().offset().unwrap_or(0));
                let port = m.matmul_with(&Kernel { name: "portable", dot: dot_portable }, &acts);
                for k in kernels() {
                    let got = m.matmul_with(&k, &acts);
                    for a in 0..n {
                        for r in 0..rows {
                            let exact: f32 = (0..cols).map(|c| deq[r * cols + c] * x[a * cols + c]).sum();
                            let (g, p) = (got[a * rows + r], port[a * rows + r]);
                            assert!((g - p).abs() <= 1e-4 * (1.0 + p.abs()), "{t:?} {}: {g} vs portable {p}", k.name);
                            // int8 activations: ~1% of the magnitude of the terms
                            assert!((g - exact).abs() < 0.02 * (cols as f32).sqrt(), "{t:?} {}: {g} vs exact {exact}", k.name);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_prompt_through_the_bf16_gemm_multiplies_every_type_like_the_dequantised_matrix() {
        let Some(b) = lens_ml::bf16::kernel() else {
            eprintln!("no bf16 kernel on this CPU: the int8 kernels run every prompt");
            return;
        };
        for t in TYPES {
            let cols = if Kind::of(t).unwrap().block_cols() == 32 { 800 } else { 768 };
            let (rows, n) = (37, BF16_ROWS + 6);
            let (m, deq) = candle_quantised(t, rows, cols, 11);
            let x = pseudo(n * cols, 12);
            let got = m.matmul_bf16(b, &x, n);
            assert_eq!(got, m.matmul(&x, n), "{t:?}: a prompt of {n} rows takes the bf16 GEMM");
            for a in 0..n {
                for r in 0..rows {
                    let exact: f32 = (0..cols).map(|c| deq[r * cols + c] * x[a * cols + c]).sum();
                    // weights and activations rounded to bf16: ~0.4% of each term
                    assert!((got[a * rows + r] - exact).abs() < 0.02 * (cols as f32).sqrt(), "{t:?} {}: {} vs exact {exact}", b.name(), got[a * rows + r]);
                }
            }
        }
    }

    #[test]
    fn q8_0_generic_path_round_trips_and_zero_rows_stay_zero() {
        let m = QMatrix::quantize_q8_0(&[0f32; 64], 2, 32);
        assert_eq!(m.row(1), vec![0f32; 32]);
        let w = pseudo(64, 3);
        let m = QMatrix::quantize_q8_0(&w, 1, 64);
        for (a, b) in m.row(0).iter().zip(&w) {
            assert!((a - b).abs() <= 1.0 / 127.0 / 2.0 + 2e-3, "{a} vs {b}");
        }
    }

    #[test]
    fn wrong_sizes_are_refused() {
        assert!(QMatrix::from_bytes(Kind::Q4K, 2, 100, vec![0; 10]).err().unwrap().contains("256-column"));
        assert!(QMatrix::from_bytes(Kind::Q5_0, 2, 64, vec![0; 10]).err().unwrap().contains("88 were expected"));
    }
}
