//! What the models share (`lens-llm`, `lens-vision`): one f32 GEMM wrapper over `gemm` with
//! strided operands ([`sgemm`]), and the run-time choice of CPU kernels ([`choose_kernel`]),
//! which every kernel family makes the same way: the fastest the CPU reports, unless one
//! override (`LENS_KERNEL`, or the family's own variable) names another it can run; and where
//! a model runs ([`device`]: `--device auto|cpu|cuda|metal`); and a bf16 GEMM for linear layers
//! on AMX or AVX-512 BF16 ([`bf16`]).

pub mod attention;
pub mod bert;
pub mod bf16;
pub mod device;
pub mod math;
pub mod minilm;

/// `dst [m][n] = lhs [m][k] · rhs [k][n]`, each operand given by (row stride, column stride).
/// `parallel`: split over rayon's threads when the product is large enough to pay for it.
///
/// # Panics
/// When a stride/size pair reaches outside its slice (checked for each operand's last element).
#[allow(clippy::too_many_arguments)]
pub fn sgemm(
    m: usize,
    n: usize,
    k: usize,
    lhs: &[f32],
    ls: (isize, isize),
    rhs: &[f32],
    rs: (isize, isize),
    dst: &mut [f32],
    ds: (isize, isize),
    parallel: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    let last = |rows: usize, cols: usize, s: (isize, isize)| (rows.saturating_sub(1) as isize * s.0 + cols.saturating_sub(1) as isize * s.1) as usize;
    assert!(k == 0 || (last(m, k, ls) < lhs.len() && last(k, n, rs) < rhs.len()), "gemm operands inside their slices");
    assert!(last(m, n, ds) < dst.len(), "gemm output inside its slice");
    let par = if parallel && m * n * k > 1 << 18 { gemm::Parallelism::Rayon(rayon::current_num_threads()) } else { gemm::Parallelism::None };
    // SAFETY: every element the strides reach is inside its slice (asserted above)
    unsafe {
        gemm::gemm(m, n, k, dst.as_mut_ptr(), ds.1, ds.0, false, lhs.as_ptr(), ls.1, ls.0, rhs.as_ptr(), rs.1, rs.0, 0.0f32, 1.0f32, false, false, false, par);
    }
}

/// The widest vectors element-wise loops run at: 2 = AVX-512 (F, BW, DQ, VL), 1 = AVX2 + FMA,
/// 0 = the build's baseline; the best this CPU has, unless `LENS_SIMD_KERNEL` or `LENS_KERNEL`
/// names another it can run (`avx512`, `avx2`, `portable`: see [`choose_kernel`]). For
/// [`simd_fn!`].
pub fn simd_level() -> u8 {
    static LEVEL: std::sync::OnceLock<u8> = std::sync::OnceLock::new();
    *LEVEL.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        let (wide, mid) = (
            is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512dq")
                && is_x86_feature_detected!("avx512vl"),
            is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
        );
        #[cfg(not(target_arch = "x86_64"))]
        let (wide, mid) = (false, false);
        match choose_kernel("LENS_SIMD_KERNEL", &[("avx512", wide), ("avx2", mid), ("portable", true)]) {
            Some("avx512") => 2,
            Some("avx2") => 1,
            _ => 0,
        }
    })
}

/// A function whose body is compiled three times — for AVX-512, for AVX2 + FMA and for the
/// build's baseline — and run in the widest the CPU has ([`simd_level`]). The release build
/// targets plain x86-64, so a loop the compiler vectorises runs 4 lanes wide unless it sits
/// in a function built for more; the body's callees should be `#[inline(always)]`.
#[macro_export]
macro_rules! simd_fn {
    ($(#[$m:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$m])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[inline(always)]
            fn body($($arg: $ty),*) $(-> $ret)? $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
                unsafe fn wide($($arg: $ty),*) $(-> $ret)? { body($($arg),*) }
                #[target_feature(enable = "avx2,fma")]
                unsafe fn mid($($arg: $ty),*) $(-> $ret)? { body($($arg),*) }
                // SAFETY: each runs only where the CPU reports the features it is built for
                match $crate::simd_level() {
                    2 => unsafe { wide($($arg),*) },
                    1 => unsafe { mid($($arg),*) },
                    _ => body($($arg),*),
                }
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                body($($arg),*)
            }
        }
    };
}

/// The kernel to run among `candidates` (name, can this CPU run it), fastest first: the one
/// `LENS_KERNEL` or `family_var` names when the CPU can run it (the family's own variable wins),
/// else the first the CPU can run. `None` only when none can (a portable one always can).
pub fn choose_kernel<'a>(family_var: &str, candidates: &[(&'a str, bool)]) -> Option<&'a str> {
    let forced = std::env::var(family_var).ok().or_else(|| std::env::var("LENS_KERNEL").ok());
    pick(forced.as_deref(), candidates)
}

fn pick<'a>(forced: Option<&str>, candidates: &[(&'a str, bool)]) -> Option<&'a str> {
    if let Some(f) = forced {
        if let Some((name, _)) = candidates.iter().find(|(n, ok)| *n == f && *ok) {
            return Some(name);
        }
    }
    candidates.iter().find(|(_, ok)| *ok).map(|(n, _)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgemm_matches_a_plain_product_with_strides() {
        // lhs 2x3 row-major, rhs given transposed (3x2 read through column strides)
        let lhs = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let rhs_t = [7.0, 9.0, 11.0, 8.0, 10.0, 12.0]; // rhs = [[7, 8], [9, 10], [11, 12]]
        let mut out = [0f32; 4];
        sgemm(2, 2, 3, &lhs, (3, 1), &rhs_t, (1, 3), &mut out, (2, 1), false);
        assert_eq!(out, [58.0, 64.0, 139.0, 154.0]);
    }

    #[test]
    #[should_panic(expected = "inside their slices")]
    fn sgemm_refuses_strides_outside_the_slices() {
        let mut out = [0f32; 4];
        sgemm(2, 2, 3, &[0.0; 5], (3, 1), &[0.0; 6], (2, 1), &mut out, (2, 1), false);
    }

    #[test]
    fn the_override_wins_only_when_the_cpu_can_run_it() {
        let c = [("avx512", false), ("avx2", true), ("portable", true)];
        assert_eq!(pick(None, &c), Some("avx2"));
        assert_eq!(pick(Some("portable"), &c), Some("portable"));
        assert_eq!(pick(Some("avx512"), &c), Some("avx2"), "a kernel the CPU lacks is not forced");
        assert_eq!(pick(Some("nonsense"), &c), Some("avx2"));
        assert_eq!(pick(None, &[("x", false)]), None);
    }
}
