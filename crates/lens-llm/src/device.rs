//! Where the language model runs: the choice itself is shared with the vision model
//! ([`lens_ml::device`]); this adds what `lens devices` says of the CPU (this crate's kernels).

pub use lens_ml::device::{select, DeviceChoice, DeviceInfo, Selected};

/// What `lens devices` lists: the CPU with the block kernels it runs, CUDA and Metal.
pub fn devices() -> Vec<DeviceInfo> {
    lens_ml::device::devices(format!("{} kernels, {} threads by default", crate::blocks::kernel_name(), crate::default_threads()))
}
