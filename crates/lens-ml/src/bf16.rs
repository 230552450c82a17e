//! A bf16 GEMM for the models' linear layers: `out [m][n] = x [m][k] · W + bias`, with `x` in
//! f32 (rounded to bf16 on the way in), `W` packed once in bf16, products summed in f32.
//!
//! Two kernels, chosen at run time ([`kernel`]): AMX (`tdpbf16ps`, 16 × 16 × 32 products per
//! instruction, on CPUs with AMX-BF16 and a kernel that grants the tile state), and AVX-512 BF16
//! (`vdpbf16ps`, on CPUs with AVX-512 BF16 but no AMX: AMD Zen 4 and later, Cooper Lake). Both read the same packing: the weight matrix in panels of 16 output columns,
//! each panel `k / 2` rows of 64 bytes holding, for each of its 16 columns, the pair
//! `W[2r][c], W[2r + 1][c]` — one AMX `B` tile per 32 rows of `k`, and one AVX-512 register per
//! row pair. `LENS_BF16_KERNEL` (or `LENS_KERNEL`) = `amx` | `avx512bf16` | `f32` forces one the
//! CPU can run; `f32` means none: the caller keeps its f32 path.
//!
//! Each input is rounded to bf16 (8 bits of mantissa: about 3 significant digits kept); sums
//! stay in f32. The models' parity tests state the tolerance this gives.

use rayon::prelude::*;
use std::sync::OnceLock;

/// The bf16 kernel this CPU runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    Amx,
    Avx512Bf16,
}

impl Kernel {
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Amx => "amx",
            Kernel::Avx512Bf16 => "avx512bf16",
        }
    }
}

/// The bf16 kernel to use, or `None` (no bf16 kernel on this CPU, or `f32` forced).
pub fn kernel() -> Option<Kernel> {
    static K: OnceLock<Option<Kernel>> = OnceLock::new();
    *K.get_or_init(|| {
        // AMX first, then AVX-512 BF16, then none. Measured on 2 cores: on Sapphire Rapids AMX
        // runs (AVX-512 BF16 there was no faster than the f32 GEMM, 224 vs 220 GFLOP/s); on an
        // AMD EPYC without AMX, AVX-512 BF16 ran prompts at 236.8 tokens/s against the int8
        // kernels' 120.7, and a 512-px page in 1.11 s against f32's 2.32
        let names = [("amx", amx_usable()), ("avx512bf16", avx512bf16()), ("f32", true)];
        match crate::choose_kernel("LENS_BF16_KERNEL", &names) {
            Some("amx") => Some(Kernel::Amx),
            Some("avx512bf16") => Some(Kernel::Avx512Bf16),
            _ => None,
        }
    })
}

/// What [`kernel`] chose, for `lens models` and the benches: `amx`, `avx512bf16` or `f32`.
pub fn kernel_name() -> &'static str {
    kernel().map(Kernel::name).unwrap_or("f32")
}

fn avx512bf16() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// AMX-TILE and AMX-BF16 reported by CPUID, the tile state enabled by the OS (XCR0 bits 17
/// and 18), and this process granted it (Linux `arch_prctl(ARCH_REQ_XCOMP_PERM)`).
fn amx_usable() -> bool {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        static OK: OnceLock<bool> = OnceLock::new();
        *OK.get_or_init(amx::request)
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    {
        false
    }
}

/// f32 to bf16, rounding to nearest even (NaN stays NaN).
#[inline(always)]
pub fn to_bf16(x: f32) -> u16 {
    let b = x.to_bits();
    // a select, not a branch, so loops over it vectorise
    let rounded = (b.wrapping_add(0x7fff + ((b >> 16) & 1)) >> 16) as u16;
    let nan = ((b >> 16) | 0x40) as u16;
    if x.is_nan() {
        nan
    } else {
        rounded
    }
}

/// `dst[i] = to_bf16(src[i])`: with the CPU's own conversion (`vcvtneps2bf16`, 16 at a
/// time, rounding to nearest even) where it has AVX-512 BF16, else the bit arithmetic of
/// [`to_bf16`], vectorised. The one difference: the instruction takes subnormal inputs as 0.
pub fn convert(src: &[f32], dst: &mut [u16]) {
    assert!(dst.len() >= src.len(), "a bf16 slot for every value");
    #[cfg(target_arch = "x86_64")]
    if convert_natively() {
        // SAFETY: the CPU has AVX-512F, BW, VL and BF16 (checked once); sizes asserted above
        return unsafe { avx512::convert(src, dst) };
    }
    convert_portable(src, dst)
}

/// Whether [`convert`] runs on `vcvtneps2bf16` (AVX-512 BF16 with BW and VL for the tail).
fn convert_natively() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            avx512bf16() && is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("avx512vl") && crate::simd_level() == 2
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

crate::simd_fn! {
    /// [`convert`] by bit arithmetic.
    fn convert_portable(src: &[f32], dst: &mut [u16]) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = to_bf16(*s);
        }
    }
}

#[inline(always)]
pub fn from_bf16(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

const PANEL: usize = 16;
/// Rows of `k` per AMX tile (32 bf16 = 64 bytes).
const KB: usize = 32;

/// Fills one panel (`kp / 2` rows of 64 bytes) from up to 16 columns' weights, `col(c, dst)`
/// giving column `c`'s `k` values: each column rounded to bf16 in a row of its own
/// (vectorised), then the rows' 32-bit pairs transposed into the panel's layout.
fn fill_panel(panel: &mut [u16], kp: usize, k: usize, cols: usize, mut col: impl FnMut(usize, &mut [f32])) {
    let mut buf = vec![0f32; k];
    let mut rows = vec![0u16; PANEL * kp];
    for c in 0..cols {
        col(c, &mut buf);
        convert(&buf, &mut rows[c * kp..c * kp + k]);
    }
    transpose_pairs(&rows, panel, kp);
}

crate::simd_fn! {
    /// `panel[r][c] = rows[c][r]`, as 32-bit pairs: 16 rows of `kp / 2` pairs in, `kp / 2` rows
    /// of 16 pairs out.
    fn transpose_pairs(rows: &[u16], panel: &mut [u16], kp: usize) {
        let half = kp / 2;
        for r in 0..half {
            for c in 0..PANEL {
                let at = c * kp + 2 * r;
                panel[r * 2 * PANEL + 2 * c] = rows[at];
                panel[r * 2 * PANEL + 2 * c + 1] = rows[at + 1];
            }
        }
    }
}

fn round_up(x: usize, to: usize) -> usize {
    x.div_ceil(to) * to
}

/// A weight matrix with `n` output columns over `k` inputs, packed for both kernels
/// (see the module doc); `k` padded to 32 and `n` to 32 with zeros.
pub struct Packed {
    k: usize,
    n: usize,
    kp: usize,
    np: usize,
    data: Vec<u16>,
}

impl Packed {
    /// Packs column by column: `col(j, dst)` fills `dst` (`k` values) with output column `j`'s
    /// weights (for a layer stored `[out][in]`, row `j`). Panels are packed in parallel.
    pub fn from_columns(n: usize, k: usize, col: impl Fn(usize, &mut [f32]) + Sync) -> Packed {
        let (kp, np) = (round_up(k.max(1), KB), round_up(n.max(1), 2 * PANEL));
        let mut data = vec![0u16; kp * np];
        let fill = |(p, panel): (usize, &mut [u16])| {
            let cols = PANEL.min(n.saturating_sub(p * PANEL));
            fill_panel(panel, kp, k, cols, |c, dst| col(p * PANEL + c, dst));
        };
        if data.len() < SERIAL_ELEMENTS {
            data.chunks_mut(kp * PANEL).enumerate().for_each(fill);
        } else {
            data.par_chunks_mut(kp * PANEL).enumerate().for_each(fill);
        }
        Packed { k, n, kp, np, data }
    }

    /// From a row-major `[out][in]` matrix (the layout PyTorch and GGUF store).
    pub fn from_out_in(w: &[f32], n: usize, k: usize) -> Packed {
        assert_eq!(w.len(), n * k, "a [{n}][{k}] weight matrix");
        Packed::from_columns(n, k, |j, dst| dst.copy_from_slice(&w[j * k..(j + 1) * k]))
    }

    pub fn k(&self) -> usize {
        self.k
    }

    pub fn n(&self) -> usize {
        self.n
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.data.len() * 2
    }

    /// The weight at input `i`, output column `j`, as packed (bf16).
    pub fn get(&self, i: usize, j: usize) -> f32 {
        let (p, c) = (j / PANEL, j % PANEL);
        from_bf16(self.data[p * self.kp * PANEL + (i / 2) * 2 * PANEL + c * 2 + (i & 1)])
    }
}

/// Conversions and packings of fewer elements than this run on the calling thread.
const SERIAL_ELEMENTS: usize = 1 << 16;

/// Products of fewer multiply-adds than this (rows × columns × depth, padded) run on the
/// calling thread.
const SERIAL_BELOW: usize = 1 << 22;

/// `out [m][n] = x [m][k] · W (+ bias)` with `kernel`. `x` and `out` are row-major.
///
/// # Panics
/// When the slices do not have the sizes `m`, `w.k()` and `w.n()` give, or the CPU cannot run
/// `kernel`.
pub fn matmul(kernel: Kernel, x: &[f32], m: usize, w: &Packed, bias: Option<&[f32]>, out: &mut [f32]) {
    matmul_then(kernel, x, m, w, bias, Then::Nothing, out)
}

/// What is done to each output after the bias, while its block is still in cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    Nothing,
    /// The exact GELU ([`crate::math::gelu_erf`]).
    Gelu,
}

/// [`matmul`] followed by `then` on every output.
pub fn matmul_then(kernel: Kernel, x: &[f32], m: usize, w: &Packed, bias: Option<&[f32]>, then: Then, out: &mut [f32]) {
    let (k, n) = (w.k, w.n);
    check(kernel, x, m, k, n, out);
    if m == 0 || n == 0 {
        return;
    }
    let (a, _) = activations(x, m, k, w.kp);
    product(kernel, &a, m, w, bias, then, Sink::F32(SendPtr(out.as_mut_ptr())));
    keep_activations(a);
}

/// Activations already in bf16, laid out as the kernels read them: rows padded to a multiple
/// of 32 (the padding rows zero), each row `k` values then zeros to a multiple of 32. A layer
/// that writes its output here (a norm, a GEMM with [`matmul_rows_into`]) spares the next
/// product converting it, and half the bytes move.
#[derive(Default)]
pub struct Rows {
    data: Vec<u16>,
    m: usize,
    k: usize,
    kp: usize,
}

impl Rows {
    /// Made ready for `m` rows of `k`: the padding (columns past `k`, rows past `m`) zeroed;
    /// the rows themselves are for the caller to write.
    pub fn shape(&mut self, m: usize, k: usize) {
        let (mp, kp) = (round_up(m, 32), round_up(k.max(1), KB));
        self.data.truncate(mp * kp);
        self.data.resize(mp * kp, 0);
        if kp > k {
            self.data[..m * kp].chunks_exact_mut(kp).for_each(|r| r[k..].fill(0));
        }
        self.data[m * kp..].fill(0);
        (self.m, self.k, self.kp) = (m, k, kp);
    }

    pub fn m(&self) -> usize {
        self.m
    }

    /// The values and the row width (`kp`).
    pub(crate) fn raw(&self) -> (&[u16], usize) {
        (&self.data, self.kp)
    }

    /// The buffer and the row width, for writers that fill disjoint parts in parallel.
    pub(crate) fn raw_mut(&mut self) -> (*mut u16, usize) {
        (self.data.as_mut_ptr(), self.kp)
    }

    /// The rows, each `kp` wide (its first `k` values the row's), to be written in parallel.
    pub fn rows_mut(&mut self) -> std::slice::ChunksExactMut<'_, u16> {
        let (m, kp) = (self.m, self.kp);
        self.data[..m * kp].chunks_exact_mut(kp)
    }

    /// `x` (`m` rows of `k` f32) rounded into these rows.
    pub fn fill(&mut self, x: &[f32], m: usize, k: usize) {
        assert_eq!(x.len(), m * k, "x is [{m}][{k}]");
        self.shape(m, k);
        let kp = self.kp;
        self.data[..m * kp].par_chunks_mut(64 * kp).zip(x.par_chunks(64 * k.max(1))).for_each(|(d, x)| {
            for (d, x) in d.chunks_exact_mut(kp).zip(x.chunks_exact(k.max(1))) {
                convert(x, &mut d[..k]);
            }
        });
    }
}

/// [`matmul_then`] on activations already in bf16.
///
/// # Panics
/// When `a`'s width is not `w.k()`, `out` is not `a.m() × w.n()`, or the CPU cannot run `kernel`.
pub fn matmul_rows(kernel: Kernel, a: &Rows, w: &Packed, bias: Option<&[f32]>, then: Then, out: &mut [f32]) {
    assert!(a.k == w.k && a.kp == w.kp, "the activations are {} wide, the weights {}", a.k, w.k);
    assert_eq!(out.len(), a.m * w.n, "out is [{}][{}]", a.m, w.n);
    assert!(runs(kernel), "the {} kernel does not run on this CPU", kernel.name());
    if a.m > 0 && w.n > 0 {
        product(kernel, &a.data, a.m, w, bias, then, Sink::F32(SendPtr(out.as_mut_ptr())));
    }
}

/// [`matmul_rows`] with the output rounded to bf16 into `out` (shaped `a.m() × w.n()` here),
/// ready to be the next product's activations.
pub fn matmul_rows_into(kernel: Kernel, a: &Rows, w: &Packed, bias: Option<&[f32]>, then: Then, out: &mut Rows) {
    assert!(a.k == w.k && a.kp == w.kp, "the activations are {} wide, the weights {}", a.k, w.k);
    assert!(runs(kernel), "the {} kernel does not run on this CPU", kernel.name());
    out.shape(a.m, w.n);
    if a.m > 0 && w.n > 0 {
        product(kernel, &a.data, a.m, w, bias, then, Sink::Bf16(SendPtr16(out.data.as_mut_ptr()), out.kp));
    }
}

/// Where a product's outputs go: f32 rows of `n`, or bf16 rows `kp` wide.
#[derive(Clone, Copy)]
enum Sink {
    F32(SendPtr),
    Bf16(SendPtr16, usize),
}

#[derive(Clone, Copy)]
struct SendPtr16(*mut u16);
// SAFETY: the tasks write disjoint parts of the buffer behind it
unsafe impl Send for SendPtr16 {}
unsafe impl Sync for SendPtr16 {}

/// `a` (bf16, rows padded to 32, `w.kp` wide) times `w`, plus the bias, then `then`, into `sink`.
fn product(kernel: Kernel, a: &[u16], m: usize, w: &Packed, bias: Option<&[f32]>, then: Then, sink: Sink) {
    let n = w.n;
    if let Some(b) = bias {
        assert_eq!(b.len(), n, "one bias per output column");
    }
    let mp = round_up(m, 32);
    assert!(a.len() >= mp * w.kp, "the activations hold every padded row");
    // tasks: 128-row chunks × 32-column blocks; consecutive tasks share the activation chunk
    const MC: usize = 128;
    let nblocks = w.np / (2 * PANEL);
    let mchunks = mp.div_ceil(MC);
    let task = |t: usize| {
        let (mc, nb) = (t / nblocks, t % nblocks);
        let mut c = [0f32; 32 * 32];
        let j0 = nb * 32;
        for r0 in (mc * MC..((mc + 1) * MC).min(mp)).step_by(32) {
            let b = &w.data[(2 * nb) * w.kp * PANEL..(2 * nb + 2) * w.kp * PANEL];
            let a = &a[r0 * w.kp..(r0 + 32) * w.kp];
            // SAFETY: each task writes its own rows × columns of the output; a whole f32 block
            // is stored there directly, an edge one (and a bf16 one) through `c`
            unsafe {
                match sink {
                    Sink::F32(out) if r0 + 32 <= m && j0 + 32 <= n => {
                        let at = out.get().add(r0 * n + j0);
                        block_into(kernel, a, w.kp, b, at, n);
                        finish(at, n, 32, 32, bias.map(|b| &b[j0..j0 + 32]), then);
                    }
                    Sink::F32(out) => {
                        block(kernel, a, w.kp, b, &mut c);
                        write_block(&c, out, m, n, r0, j0, bias, then);
                    }
                    #[cfg(target_arch = "x86_64")]
                    Sink::Bf16(out, kp) if convert_natively() => {
                        // the bias, the GELU and the rounding to bf16 in one pass over the block
                        block(kernel, a, w.kp, b, &mut c);
                        let (rows, cols) = (32.min(m.saturating_sub(r0)), n.saturating_sub(j0).min(32));
                        avx512::finish_to_bf16(&c, rows, cols, bias.map(|b| &b[j0..j0 + cols]), then == Then::Gelu, out.0.add(r0 * kp + j0), kp);
                    }
                    Sink::Bf16(out, kp) => {
                        block(kernel, a, w.kp, b, &mut c);
                        let (rows, cols) = (32.min(m.saturating_sub(r0)), n.saturating_sub(j0).min(32));
                        finish(c.as_mut_ptr(), 32, rows, cols, bias.map(|b| &b[j0..j0 + cols]), then);
                        for i in 0..rows {
                            convert(&c[i * 32..i * 32 + cols], std::slice::from_raw_parts_mut(out.0.add((r0 + i) * kp + j0), cols));
                        }
                    }
                }
            }
        }
    };
    // a small product (attention's, per head) costs less than handing its tasks to other threads
    if mp * w.np * w.kp < SERIAL_BELOW {
        (0..mchunks * nblocks).for_each(task);
    } else {
        (0..mchunks * nblocks).into_par_iter().for_each(task);
    }
}

/// [`matmul`] with the weights made as they are used: `col(j, dst)` fills output column `j`'s
/// `k` weights (a quantised row dequantised, say). Each task packs 128 columns into a buffer
/// that stays in L2 and runs every activation row against it, so the matrix is never held
/// whole in bf16.
pub fn matmul_columns(kernel: Kernel, x: &[f32], m: usize, n: usize, k: usize, col: impl Fn(usize, &mut [f32]) + Sync, out: &mut [f32]) {
    check(kernel, x, m, k, n, out);
    if m == 0 || n == 0 {
        return;
    }
    let kp = round_up(k.max(1), KB);
    let (a, mp) = activations(x, m, k, kp);
    let out = SendPtr(out.as_mut_ptr());
    const GROUP: usize = 128;
    (0..n.div_ceil(GROUP)).into_par_iter().for_each(|g| {
        let mut panels = vec![0u16; kp * GROUP];
        let cols = GROUP.min(n - g * GROUP);
        for (p, panel) in panels.chunks_mut(kp * PANEL).enumerate().take(cols.div_ceil(PANEL)) {
            let j0 = g * GROUP + p * PANEL;
            fill_panel(panel, kp, k, PANEL.min(cols - p * PANEL), |c, dst| col(j0 + c, dst));
        }
        let mut c = [0f32; 32 * 32];
        for r0 in (0..mp).step_by(32) {
            for nb in 0..cols.div_ceil(32) {
                block(kernel, &a[r0 * kp..(r0 + 32) * kp], kp, &panels[nb * 2 * kp * PANEL..(nb + 1) * 2 * kp * PANEL], &mut c);
                // SAFETY: each task writes its own columns of `out`
                unsafe { write_block(&c, out, m, n, r0, g * GROUP + nb * 32, None, Then::Nothing) };
            }
        }
    });
    keep_activations(a);
}

fn check(kernel: Kernel, x: &[f32], m: usize, k: usize, n: usize, out: &[f32]) {
    assert_eq!(x.len(), m * k, "x is [{m}][{k}]");
    assert_eq!(out.len(), m * n, "out is [{m}][{n}]");
    // the tile state is granted per process on first use (an AMX instruction before it faults)
    assert!(runs(kernel), "the {} kernel does not run on this CPU", kernel.name());
}

thread_local! {
    /// The last activation buffer this thread converted into, kept for the next product (a
    /// fresh buffer of a few MB costs a page fault per 4 KB). Taken out while in use, so a
    /// nested product on the same thread (rayon runs other tasks while one waits) gets its own.
    static ACTIVATIONS: std::cell::Cell<Vec<u16>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The activations in bf16, rows padded to 32 (an AMX tile pair) and `k` to `kp`; hand the
/// buffer back with [`keep_activations`].
fn activations(x: &[f32], m: usize, k: usize, kp: usize) -> (Vec<u16>, usize) {
    let mp = round_up(m, 32);
    let mut a = ACTIVATIONS.with(std::cell::Cell::take);
    // every element is written below: the rows' values, their padding to `kp`, the padding rows
    a.truncate(mp * kp);
    a.resize(mp * kp, 0);
    let row = |(i, dst): (usize, &mut [u16])| {
        if i < m {
            convert(&x[i * k..(i + 1) * k], &mut dst[..k]);
            dst[k..].fill(0);
        } else {
            dst.fill(0);
        }
    };
    if a.len() < SERIAL_ELEMENTS {
        a.chunks_mut(kp).enumerate().for_each(row);
    } else {
        a.par_chunks_mut(kp).enumerate().for_each(row);
    }
    (a, mp)
}

fn keep_activations(a: Vec<u16>) {
    ACTIVATIONS.with(|c| {
        let old = c.take();
        c.set(if old.capacity() > a.capacity() { old } else { a });
    });
}

/// One 32 × 32 block of products: rows `a` (32 of `kp`), two panels `b`.
fn block(kernel: Kernel, a: &[u16], kp: usize, b: &[u16], c: &mut [f32; 1024]) {
    // SAFETY: `c` holds 32 rows of 32
    unsafe { block_into(kernel, a, kp, b, c.as_mut_ptr(), 32) }
}

/// [`block`] written straight into 32 rows of 32 floats at `c`, rows `ldc` apart.
///
/// # Safety
/// `c` reaches 32 rows of 32 floats `ldc` apart, written by no other thread meanwhile; the
/// CPU runs `kernel`.
pub(crate) unsafe fn block_into(kernel: Kernel, a: &[u16], kp: usize, b: &[u16], c: *mut f32, ldc: usize) {
    assert!(a.len() >= 32 * kp && b.len() >= 2 * PANEL * kp && kp.is_multiple_of(KB) && ldc >= 32, "a block's operands");
    match kernel {
        // SAFETY: the operands' sizes are checked above; the caller saw that the CPU runs it
        #[cfg(target_arch = "x86_64")]
        Kernel::Amx => unsafe { amx::block(a, kp, b, c, ldc) },
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512Bf16 => unsafe { avx512::block(a, kp, b, c, ldc) },
        #[cfg(not(target_arch = "x86_64"))]
        _ => unreachable!("no bf16 kernel off x86_64"),
    }
}

/// Whether the CPU runs `kernel` (the tile state requested on first use for AMX).
pub(crate) fn runs(kernel: Kernel) -> bool {
    match kernel {
        Kernel::Amx => amx_usable(),
        Kernel::Avx512Bf16 => avx512bf16(),
    }
}

/// The valid part of block `c` (rows from `r0`, columns from `j0`) into `out [m][n]`, plus the
/// bias, then `then`.
///
/// # Safety
/// `out` points at `m × n` floats, and no other thread writes these rows × columns.
#[allow(clippy::too_many_arguments)]
unsafe fn write_block(c: &[f32; 1024], out: SendPtr, m: usize, n: usize, r0: usize, j0: usize, bias: Option<&[f32]>, then: Then) {
    let jn = n.saturating_sub(j0).min(32);
    let rows = 32.min(m.saturating_sub(r0));
    for i in 0..rows {
        let dst = std::slice::from_raw_parts_mut(out.get().add((r0 + i) * n + j0), jn);
        dst.copy_from_slice(&c[i * 32..i * 32 + jn]);
    }
    finish(out.get().add(r0 * n + j0), n, rows, jn, bias.map(|b| &b[j0..j0 + jn]), then);
}

/// `rows × cols` outputs at `at` (rows `ld` apart): plus the bias, then `then`.
///
/// # Safety
/// `at` reaches those rows × columns, and no other thread touches them meanwhile.
unsafe fn finish(at: *mut f32, ld: usize, rows: usize, cols: usize, bias: Option<&[f32]>, then: Then) {
    if bias.is_none() && then == Then::Nothing {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if then == Then::Gelu && crate::math::avx512::usable() {
        finish_rows(SendPtr(at), ld, rows, cols, bias, false);
        for i in 0..rows {
            // SAFETY: the caller's rows × columns; AVX-512F checked
            unsafe { crate::math::avx512::gelu_in_place(std::slice::from_raw_parts_mut(at.add(i * ld), cols)) };
        }
        return;
    }
    finish_rows(SendPtr(at), ld, rows, cols, bias, then == Then::Gelu)
}

crate::simd_fn! {
    /// [`finish`]'s loops, vectorised.
    fn finish_rows(at: SendPtr, ld: usize, rows: usize, cols: usize, bias: Option<&[f32]>, gelu: bool) {
        for i in 0..rows {
            // SAFETY: the caller's rows × columns
            let row = unsafe { std::slice::from_raw_parts_mut(at.get().add(i * ld), cols) };
            if let Some(b) = bias {
                row.iter_mut().zip(b).for_each(|(o, b)| *o += b);
            }
            if gelu {
                row.iter_mut().for_each(|v| *v = crate::math::gelu(*v));
            }
        }
    }
}

#[derive(Clone, Copy)]
struct SendPtr(*mut f32);
// SAFETY: the tasks write disjoint parts of the buffer behind it
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}
impl SendPtr {
    fn get(self) -> *mut f32 {
        self.0
    }
}

#[cfg(target_arch = "x86_64")]
mod amx {
    use std::arch::asm;
    use std::cell::Cell;

    /// The tile configuration: palette 1, all eight tiles 16 rows × 64 bytes.
    #[repr(C, align(64))]
    struct Config {
        palette: u8,
        start_row: u8,
        reserved: [u8; 14],
        colsb: [u16; 16],
        rows: [u8; 16],
    }

    static CONFIG: Config = Config {
        palette: 1,
        start_row: 0,
        reserved: [0; 14],
        colsb: [64, 64, 64, 64, 64, 64, 64, 64, 0, 0, 0, 0, 0, 0, 0, 0],
        rows: [16, 16, 16, 16, 16, 16, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0],
    };

    thread_local! {
        static CONFIGURED: Cell<bool> = const { Cell::new(false) };
    }

    #[cfg(target_os = "linux")]
    pub fn request() -> bool {
        // CPUID.(7,0):EDX bit 22 AMX-BF16, bit 24 AMX-TILE; CPUID.1:ECX bit 27 OSXSAVE
        let l1 = std::arch::x86_64::__cpuid(1);
        if l1.ecx & (1 << 27) == 0 {
            return false;
        }
        let l7 = std::arch::x86_64::__cpuid_count(7, 0);
        if l7.edx & (1 << 22) == 0 || l7.edx & (1 << 24) == 0 {
            return false;
        }
        // XCR0 bits 17 (XTILECFG) and 18 (XTILEDATA): the OS saves the tile state
        let (lo, _hi): (u32, u32);
        unsafe { asm!("xgetbv", in("ecx") 0u32, out("eax") lo, out("edx") _hi, options(nomem, nostack)) };
        if lo & (3 << 17) != 3 << 17 {
            return false;
        }
        // arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA): Linux grants the tile data per process
        let ret: i64;
        unsafe {
            asm!("syscall", inlateout("rax") 158i64 => ret, in("rdi") 0x1023i64, in("rsi") 18i64, lateout("rcx") _, lateout("r11") _, options(nostack));
        }
        ret == 0
    }

    /// One 32 × 32 block: `c = a[0..32][..kp] · b` (two panels), `a` rows `kp` bf16 apart,
    /// `c`'s rows `ldc` floats apart.
    ///
    /// # Safety
    /// AMX usable ([`request`] true); `a` holds 32 rows of `kp` (a multiple of 32), `b` two
    /// panels of `kp / 2` rows of 64 bytes; `c` reaches 32 rows of 32 floats `ldc` apart.
    pub unsafe fn block(a: &[u16], kp: usize, b: &[u16], c: *mut f32, ldc: usize) {
        debug_assert!(a.len() >= 32 * kp && b.len() >= 2 * 16 * kp && kp.is_multiple_of(32));
        CONFIGURED.with(|done| {
            if !done.get() {
                asm!("ldtilecfg [{}]", in(reg) &CONFIG as *const Config, options(nostack));
                done.set(true);
            }
        });
        let lda = kp * 2;
        let (a0, a1) = (a.as_ptr(), a.as_ptr().add(16 * kp));
        let (b0, b1) = (b.as_ptr(), b.as_ptr().add(16 * kp));
        asm!("tilezero tmm0", "tilezero tmm1", "tilezero tmm2", "tilezero tmm3", options(nostack));
        for kb in 0..kp / 32 {
            // a: 16 rows × 32 bf16 at column kb·32; b: 16 row pairs × 16 columns at kb·1024 bytes
            asm!(
                "tileloadd tmm4, [{a0} + {lda}*1]",
                "tileloadd tmm5, [{a1} + {lda}*1]",
                "tileloadd tmm6, [{b0} + {s}*1]",
                "tileloadd tmm7, [{b1} + {s}*1]",
                "tdpbf16ps tmm0, tmm4, tmm6",
                "tdpbf16ps tmm1, tmm4, tmm7",
                "tdpbf16ps tmm2, tmm5, tmm6",
                "tdpbf16ps tmm3, tmm5, tmm7",
                a0 = in(reg) a0.add(kb * 32),
                a1 = in(reg) a1.add(kb * 32),
                b0 = in(reg) b0.add(kb * 512),
                b1 = in(reg) b1.add(kb * 512),
                lda = in(reg) lda,
                s = in(reg) 64usize,
                options(nostack, readonly),
            );
        }
        let cp = c;
        asm!(
            "tilestored [{c0} + {s}*1], tmm0",
            "tilestored [{c1} + {s}*1], tmm1",
            "tilestored [{c2} + {s}*1], tmm2",
            "tilestored [{c3} + {s}*1], tmm3",
            c0 = in(reg) cp,
            c1 = in(reg) cp.add(16),
            c2 = in(reg) cp.add(16 * ldc),
            c3 = in(reg) cp.add(16 * ldc + 16),
            s = in(reg) ldc * 4,
            options(nostack),
        );
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// `dst[i] = bf16(src[i])` with `vcvtneps2bf16`, 16 at a time, the tail masked.
    ///
    /// # Safety
    /// AVX-512F, BW, VL and BF16; `dst` at least as long as `src`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
    pub unsafe fn convert(src: &[f32], dst: &mut [u16]) {
        debug_assert!(dst.len() >= src.len());
        let n = src.len();
        let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
        let mut i = 0;
        while i + 32 <= n {
            let lo = _mm512_cvtneps_pbh(_mm512_loadu_ps(s.add(i)));
            let hi = _mm512_cvtneps_pbh(_mm512_loadu_ps(s.add(i + 16)));
            _mm256_storeu_si256(d.add(i) as *mut __m256i, std::mem::transmute::<__m256bh, __m256i>(lo));
            _mm256_storeu_si256(d.add(i + 16) as *mut __m256i, std::mem::transmute::<__m256bh, __m256i>(hi));
            i += 32;
        }
        while i < n {
            let left = (n - i).min(16);
            let mask: __mmask16 = if left == 16 { 0xffff } else { (1u16 << left) - 1 };
            let v = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(mask, s.add(i)));
            _mm256_mask_storeu_epi16(d.add(i) as *mut i16, mask, std::mem::transmute::<__m256bh, __m256i>(v));
            i += left;
        }
    }

    /// `rows × cols` of a 32-wide f32 block `c`, plus `bias`, through the GELU when `gelu`,
    /// rounded to bf16 into `out` (rows `ldo` apart): one pass, 16 values at a time.
    ///
    /// # Safety
    /// AVX-512F, BW, VL and BF16; `cols ≤ 32`, `rows ≤ 32`; `out` holds `rows` rows of `cols`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
    pub unsafe fn finish_to_bf16(c: &[f32; 32 * 32], rows: usize, cols: usize, bias: Option<&[f32]>, gelu: bool, out: *mut u16, ldo: usize) {
        for i in 0..rows {
            let mut j = 0;
            while j < cols {
                let left = (cols - j).min(16);
                let k: __mmask16 = if left == 16 { 0xffff } else { (1u16 << left) - 1 };
                let mut v = _mm512_maskz_loadu_ps(k, c.as_ptr().add(i * 32 + j));
                if let Some(b) = bias {
                    v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(k, b.as_ptr().add(j)));
                }
                if gelu {
                    v = crate::math::avx512::gelu_for_bf16(v);
                }
                let h = _mm512_cvtneps_pbh(v);
                _mm256_mask_storeu_epi16(out.add(i * ldo + j) as *mut i16, k, std::mem::transmute::<__m256bh, __m256i>(h));
                j += 16;
            }
        }
    }

    /// One 32 × 32 block with `vdpbf16ps`, 8 rows × 32 columns at a time.
    ///
    /// # Safety
    /// AVX-512F and AVX-512 BF16; sizes as [`super::amx::block`].
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub unsafe fn block(a: &[u16], kp: usize, b: &[u16], c: *mut f32, ldc: usize) {
        debug_assert!(a.len() >= 32 * kp && b.len() >= 2 * 16 * kp);
        let (b0, b1) = (b.as_ptr(), b.as_ptr().add(16 * kp));
        for r in (0..32).step_by(8) {
            let mut acc = [[_mm512_setzero_ps(); 2]; 8];
            let ap = a.as_ptr().add(r * kp);
            for kq in 0..kp / 2 {
                let w0 = _mm512_loadu_ps(b0.add(kq * 32) as *const f32);
                let w1 = _mm512_loadu_ps(b1.add(kq * 32) as *const f32);
                for (i, acc) in acc.iter_mut().enumerate() {
                    // the pair x[i][2kq], x[i][2kq + 1] in every lane
                    let x = _mm512_set1_epi32((ap.add(i * kp + 2 * kq) as *const i32).read_unaligned());
                    acc[0] = _mm512_dpbf16_ps(acc[0], std::mem::transmute::<__m512i, __m512bh>(x), std::mem::transmute::<__m512, __m512bh>(w0));
                    acc[1] = _mm512_dpbf16_ps(acc[1], std::mem::transmute::<__m512i, __m512bh>(x), std::mem::transmute::<__m512, __m512bh>(w1));
                }
            }
            for (i, acc) in acc.iter().enumerate() {
                _mm512_storeu_ps(c.add((r + i) * ldc), acc[0]);
                _mm512_storeu_ps(c.add((r + i) * ldc + 16), acc[1]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernels() -> Vec<Kernel> {
        let mut k = Vec::new();
        if amx_usable() {
            k.push(Kernel::Amx);
        }
        if avx512bf16() {
            k.push(Kernel::Avx512Bf16);
        }
        k
    }

    #[test]
    fn bf16_rounds_to_nearest_even() {
        assert_eq!(to_bf16(1.0), 0x3f80);
        assert_eq!(from_bf16(to_bf16(1.0 + 1.0 / 256.0)), 1.0, "a tie goes to the even mantissa");
        assert_eq!(from_bf16(to_bf16(1.0 + 3.0 / 256.0)), 1.0 + 4.0 / 256.0);
        assert!(from_bf16(to_bf16(f32::NAN)).is_nan());
        assert_eq!(from_bf16(to_bf16(-2.5)), -2.5);
    }

    #[test]
    fn every_kernel_matches_the_product_of_the_rounded_inputs() {
        // odd sizes: row, column and k tails inside the padding
        for (m, k, n) in [(1, 7, 3), (37, 70, 45), (130, 96, 64), (33, 768, 97)] {
            let x: Vec<f32> = (0..m * k).map(|i| ((i * 7919 % 1000) as f32 / 500.0) - 1.0).collect();
            let w: Vec<f32> = (0..n * k).map(|i| ((i * 104_729 % 997) as f32 / 498.5) - 1.0).collect();
            let bias: Vec<f32> = (0..n).map(|j| j as f32 * 0.01).collect();
            let p = Packed::from_out_in(&w, n, k);
            // the reference: the same bf16-rounded inputs, products summed in f64
            let mut want = vec![0f32; m * n];
            for i in 0..m {
                for j in 0..n {
                    let s: f64 = (0..k).map(|t| from_bf16(to_bf16(x[i * k + t])) as f64 * p.get(t, j) as f64).sum();
                    want[i * n + j] = (s + bias[j] as f64) as f32;
                }
            }
            for kern in kernels() {
                let mut out = vec![f32::NAN; m * n];
                matmul(kern, &x, m, &p, Some(&bias), &mut out);
                let d = out.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
                assert!(d < 1e-3, "{kern:?} {m}x{k}x{n}: {d}");
                // the same weights made column by column as they are used
                let mut out = vec![f32::NAN; m * n];
                matmul_columns(kern, &x, m, n, k, |j, dst| dst.copy_from_slice(&w[j * k..(j + 1) * k]), &mut out);
                let worst = (0..m * n).map(|i| (out[i] - (want[i] - bias[i % n])).abs()).fold(0.0, f32::max);
                assert!(worst < 1e-3, "{kern:?} columns {m}x{k}x{n}: {worst}");
            }
        }
    }

    #[test]
    fn the_native_conversion_rounds_as_to_bf16_does() {
        // every length up to two vectors and a tail, ties, signs and large values; NaN stays NaN
        let vals: Vec<f32> =
            (0..77).map(|i| [1.0 + 1.0 / 256.0, 1.0 + 3.0 / 256.0, -2.5, 3.0e38, -1.0e-3, 0.1 * i as f32][i % 6] * (1.0 + i as f32 / 1000.0)).collect();
        for n in [0, 1, 15, 16, 17, 31, 32, 33, 77] {
            let mut got = vec![0xdead_u16; n + 1];
            convert(&vals[..n], &mut got);
            for i in 0..n {
                assert_eq!(got[i], to_bf16(vals[i]), "value {} of {n}", vals[i]);
            }
            assert_eq!(got[n], 0xdead, "nothing written past the end");
        }
        let mut nan = [0u16; 1];
        convert(&[f32::NAN], &mut nan);
        assert!(from_bf16(nan[0]).is_nan());
    }

    /// A 70 × 64 by 64 × 80 product with a bias: whole 32 × 32 blocks and edge ones.
    fn product_case() -> ((usize, usize, usize), Vec<f32>, Vec<f32>, Packed) {
        let (m, k, n) = (70, 64, 80);
        let x: Vec<f32> = (0..m * k).map(|i| ((i * 31 % 200) as f32 / 100.0) - 1.0).collect();
        let w: Vec<f32> = (0..n * k).map(|i| ((i * 17 % 300) as f32 / 150.0) - 1.0).collect();
        let bias: Vec<f32> = (0..n).map(|j| j as f32 * 0.02 - 0.5).collect();
        ((m, k, n), x, bias, Packed::from_out_in(&w, n, k))
    }

    #[test]
    fn gelu_after_the_product_is_the_gelu_of_the_product() {
        // whole blocks (finished in place) and edge blocks (through the block buffer)
        let ((m, _, n), x, bias, p) = product_case();
        for kern in kernels() {
            let mut want = vec![0f32; m * n];
            matmul(kern, &x, m, &p, Some(&bias), &mut want);
            crate::math::gelu_erf(&mut want);
            let mut got = vec![f32::NAN; m * n];
            matmul_then(kern, &x, m, &p, Some(&bias), Then::Gelu, &mut got);
            let d = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
            assert!(d < 1e-5, "{kern:?}: {d}");
        }
    }

    #[test]
    fn a_product_written_in_bf16_is_its_f32_result_rounded() {
        // bias and GELU then bf16, in one pass: within one bf16 rounding of the f32 path's
        let ((m, k, n), x, bias, p) = product_case();
        let mut a = Rows::default();
        a.shape(m, k);
        for (i, r) in a.rows_mut().take(m).enumerate() {
            convert(&x[i * k..(i + 1) * k], &mut r[..k]);
        }
        for kern in kernels() {
            for then in [Then::Nothing, Then::Gelu] {
                let mut want = vec![0f32; m * n];
                matmul_rows(kern, &a, &p, Some(&bias), then, &mut want);
                let mut got = Rows::default();
                matmul_rows_into(kern, &a, &p, Some(&bias), then, &mut got);
                let (data, kp) = got.raw();
                for i in 0..m {
                    for j in 0..n {
                        let (g, w) = (from_bf16(data[i * kp + j]), want[i * n + j]);
                        assert!((g - w).abs() <= 4e-3 * w.abs().max(1e-2), "{kern:?} {then:?} [{i}][{j}]: {g} against {w}");
                    }
                }
            }
        }
    }

    #[test]
    fn packing_keeps_every_weight_in_its_place() {
        let (n, k) = (35, 9);
        let w: Vec<f32> = (0..n * k).map(|i| i as f32).collect();
        let p = Packed::from_out_in(&w, n, k);
        for j in 0..n {
            for i in 0..k {
                assert_eq!(p.get(i, j), from_bf16(to_bf16(w[j * k + i])));
            }
        }
        assert_eq!(p.bytes(), 32 * 64 * 2, "k padded to 32, n to 64");
    }
}
