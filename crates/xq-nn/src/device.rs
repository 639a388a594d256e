//! Which device a network runs on, as a config setting: the CPU (burn's `flex` backend, always
//! built) or a GPU through wgpu/Vulkan (only in builds with the `gpu` cargo feature). The model
//! code never asks which one it got.

use burn::tensor::Device;
use serde::{Deserialize, Serialize};

/// A device named in a config (`device = "cpu"` or `"gpu"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceSetting {
    /// burn's `flex` CPU backend.
    #[default]
    Cpu,
    /// The default wgpu adapter (Vulkan on Linux); needs a build with `--features gpu`.
    Gpu,
}

/// The device cannot be had in this build.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// `gpu` asked of a build without the `gpu` feature.
    #[error("device \"gpu\" needs a build with the GPU backend: cargo build --release --features xq-nn/gpu")]
    GpuNotBuilt,
}

impl DeviceSetting {
    /// The burn device for this setting (without autodiff).
    ///
    /// # Errors
    /// [`DeviceError::GpuNotBuilt`] for `gpu` in a CPU-only build.
    pub fn device(self) -> Result<Device, DeviceError> {
        match self {
            DeviceSetting::Cpu => Ok(Device::flex()),
            #[cfg(feature = "gpu")]
            DeviceSetting::Gpu => Ok(Device::wgpu(burn::tensor::DeviceKind::DefaultDevice)),
            #[cfg(not(feature = "gpu"))]
            DeviceSetting::Gpu => Err(DeviceError::GpuNotBuilt),
        }
    }
}
