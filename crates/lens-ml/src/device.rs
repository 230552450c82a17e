//! Where a model runs: `--device auto|cpu|cuda|metal` and the Settings choice.
//!
//! Shared by the models: the CPU runs each model crate's own kernels; a GPU runs its
//! device-generic candle pass (`lens-llm`'s `gpu.rs`, `lens-vision`'s model on candle's ops).
//! CUDA and Metal differ only in the device constructor and the cargo feature (`cuda`, `metal`;
//! off by default: `scripts/build-cuda` builds the CUDA one). A GPU asked for and not usable is
//! an error with the reason; `auto` falls back to the CPU and says why.

use lens_core::error::{LensError, Result};

lens_core::named_enum!(
    /// Where a model answerer runs.
    #[derive(Default)]
    pub enum DeviceChoice("device") {
        #[default]
        Auto = "auto",
        Cpu = "cpu",
        Metal = "metal",
        Cuda = "cuda",
    }
);

/// The device chosen, and why the CPU was used when `auto` found no GPU.
#[derive(Debug, Clone)]
pub struct Selected {
    pub device: candle_core::Device,
    /// `cpu`, `cuda:0`, `metal:0`.
    pub name: String,
    /// Why `auto` runs on the CPU ("this build has no CUDA support ...").
    pub fallback: Option<String>,
}

impl Selected {
    pub fn is_gpu(&self) -> bool {
        !self.device.is_cpu()
    }
}

fn cuda() -> std::result::Result<candle_core::Device, String> {
    if !cfg!(feature = "cuda") {
        return Err("this build has no CUDA support (build it with scripts/build-cuda)".into());
    }
    // candle's error carries a backtrace: its first line is the reason
    candle_core::Device::new_cuda(0).map_err(|e| format!("no usable CUDA device or driver: {}", e.to_string().lines().next().unwrap_or_default()))
}

fn metal() -> std::result::Result<candle_core::Device, String> {
    if !cfg!(feature = "metal") {
        return Err("this build has no Metal support (Metal builds are made on macOS with --features metal)".into());
    }
    candle_core::Device::new_metal(0).map_err(|e| format!("no usable Metal device: {}", e.to_string().lines().next().unwrap_or_default()))
}

/// The device `choice` names: a GPU asked for by name must initialise (else the error says
/// why); `auto` takes CUDA, then Metal, then the CPU, keeping the reasons.
pub fn select(choice: DeviceChoice) -> Result<Selected> {
    let cpu = |fallback| Selected { device: candle_core::Device::Cpu, name: "cpu".into(), fallback };
    match choice {
        DeviceChoice::Cpu => Ok(cpu(None)),
        DeviceChoice::Cuda => {
            cuda().map(|device| Selected { device, name: "cuda:0".into(), fallback: None }).map_err(|why| LensError::BadInput(format!("--device cuda: {why}")))
        }
        DeviceChoice::Metal => metal()
            .map(|device| Selected { device, name: "metal:0".into(), fallback: None })
            .map_err(|why| LensError::BadInput(format!("--device metal: {why}"))),
        DeviceChoice::Auto if !cfg!(feature = "cuda") && !cfg!(feature = "metal") => Ok(cpu(Some("on the CPU: this build has no GPU support".into()))),
        DeviceChoice::Auto => {
            let mut failures = Vec::new();
            match cuda() {
                Ok(device) => return Ok(Selected { device, name: "cuda:0".into(), fallback: None }),
                Err(w) => failures.push(format!("CUDA: {w}")),
            }
            match metal() {
                Ok(device) => return Ok(Selected { device, name: "metal:0".into(), fallback: None }),
                Err(w) => failures.push(format!("Metal: {w}")),
            }
            Ok(cpu(Some(format!("on the CPU: no GPU ({})", failures.join("; ")))))
        }
    }
}

/// One device this build knows of: can it be used, and if not, why.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DeviceInfo {
    pub name: String,
    pub usable: bool,
    pub detail: String,
}

/// What `lens devices` lists: the CPU (`cpu_detail`: its kernels), CUDA and Metal.
pub fn devices(cpu_detail: String) -> Vec<DeviceInfo> {
    let mut out = vec![DeviceInfo { name: "cpu".into(), usable: true, detail: cpu_detail }];
    for (name, r) in [("cuda", cuda()), ("metal", metal())] {
        out.push(match r {
            Ok(d) => DeviceInfo { name: name.into(), usable: true, detail: format!("{d:?}") },
            Err(why) => DeviceInfo { name: name.into(), usable: false, detail: why },
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_this_build_lacks_is_refused_with_the_reason_and_auto_falls_back() {
        assert_eq!("cuda".parse::<DeviceChoice>().unwrap(), DeviceChoice::Cuda);
        assert!("tpu".parse::<DeviceChoice>().unwrap_err().to_string().contains("available: auto, cpu, metal, cuda"));
        let cpu = select(DeviceChoice::Cpu).unwrap();
        assert!(!cpu.is_gpu() && cpu.fallback.is_none());
        if !cfg!(feature = "cuda") {
            let e = select(DeviceChoice::Cuda).unwrap_err().to_string();
            assert!(e.contains("no CUDA support") && e.contains("scripts/build-cuda"), "{e}");
            let d = devices(String::new());
            assert!(d.iter().any(|x| x.name == "cuda" && !x.usable && x.detail.contains("no CUDA support")), "{d:?}");
        }
        if !cfg!(feature = "cuda") && !cfg!(feature = "metal") {
            let a = select(DeviceChoice::Auto).unwrap();
            assert_eq!(a.name, "cpu");
            assert_eq!(a.fallback.as_deref(), Some("on the CPU: this build has no GPU support"));
        }
    }
}
