//! The policy + WDL network: a residual convolutional trunk, a policy head over the
//! [policy index](crate::policy) and a win/draw/loss value head.
//!
//! The model code is device-agnostic: it runs on whatever [`Device`] its tensors live on (flex on
//! the CPU, wgpu/vulkan behind the `gpu` feature), with or without autodiff.

use burn::module::Param;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Initializer, Linear, LinearConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::activation::relu;
use serde::{Deserialize, Serialize};
use xq_core::seed::SplitMix64;

use crate::encoding::{INPUT_PLANES, PLANE_SIZE};
use crate::policy::POLICY_SIZE;

/// How the residual trunk is normalised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrunkNorm {
    /// Batch normalisation after every convolution (the AlphaZero block).
    #[default]
    BatchNorm,
    /// No normalisation in the trunk: each block's branch is scaled by a learnable scalar that
    /// starts at 0 (SkipInit, De & Smith 2020), so every block starts as the identity.
    SkipInit,
}

/// Shape and initialisation of a [`PolicyValueNet`]. Unknown fields are an error.
///
/// ```
/// let config: xq_nn::ModelConfig = serde_json::from_str(r#"{"blocks": 4, "channels": 32}"#).unwrap();
/// assert_eq!(config.trunk_norm, xq_nn::TrunkNorm::BatchNorm);
/// assert!(serde_json::from_str::<xq_nn::ModelConfig>(r#"{"blocks": 4, "channels": 32, "depth": 3}"#).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Residual blocks in the trunk.
    pub blocks: usize,
    /// Channels of every trunk convolution.
    pub channels: usize,
    /// Normalisation of the trunk.
    #[serde(default)]
    pub trunk_norm: TrunkNorm,
    /// Batch normalisation after the 1×1 convolutions of the two heads.
    #[serde(default = "default_true")]
    pub head_batch_norm: bool,
    /// Channels of the policy head's 1×1 convolution (then a linear layer to the index).
    #[serde(default = "default_policy_channels")]
    pub policy_channels: usize,
    /// Channels of the value head's 1×1 convolution.
    #[serde(default = "default_value_channels")]
    pub value_channels: usize,
    /// Width of the value head's hidden linear layer.
    #[serde(default = "default_value_hidden")]
    pub value_hidden: usize,
    /// Seed of the weight initialisation.
    #[serde(default)]
    pub seed: u64,
}

fn default_true() -> bool {
    true
}
fn default_policy_channels() -> usize {
    4
}
fn default_value_channels() -> usize {
    2
}
fn default_value_hidden() -> usize {
    64
}

/// Limits that keep a config from asking for an absurd allocation.
const MAX_BLOCKS: usize = 64;
pub(crate) const MAX_CHANNELS: usize = 1024;

impl ModelConfig {
    /// A config with the given trunk and every other field at its default.
    pub fn new(blocks: usize, channels: usize) -> ModelConfig {
        ModelConfig {
            blocks,
            channels,
            trunk_norm: TrunkNorm::default(),
            head_batch_norm: true,
            policy_channels: default_policy_channels(),
            value_channels: default_value_channels(),
            value_hidden: default_value_hidden(),
            seed: 0,
        }
    }

    /// The same config with another trunk normalisation.
    pub fn with_trunk_norm(mut self, trunk_norm: TrunkNorm) -> ModelConfig {
        self.trunk_norm = trunk_norm;
        self
    }

    /// Checks that every size is usable.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let check = |field: &'static str, value: usize, min: usize, max: usize| {
            if (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(ConfigError::OutOfRange { field, value, min, max })
            }
        };
        check("blocks", self.blocks, 0, MAX_BLOCKS)?;
        check("channels", self.channels, 1, MAX_CHANNELS)?;
        check("policy_channels", self.policy_channels, 1, MAX_CHANNELS)?;
        check("value_channels", self.value_channels, 1, MAX_CHANNELS)?;
        check("value_hidden", self.value_hidden, 1, 4 * MAX_CHANNELS)?;
        Ok(())
    }

    /// Parses a JSON config.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] for malformed JSON or unknown fields, or a range error.
    pub fn from_json(text: &str) -> Result<ModelConfig, ConfigError> {
        let config: ModelConfig =
            serde_json::from_str(text).map_err(|e| ConfigError::Parse(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// The fields in which `other` differs from `self`, as `field: self vs other`, for errors.
    pub fn differences(&self, other: &ModelConfig) -> Vec<String> {
        let mut out = Vec::new();
        let mut cmp = |name: &str, a: String, b: String| {
            if a != b {
                out.push(format!("{name}: {a} vs {b}"));
            }
        };
        cmp("blocks", self.blocks.to_string(), other.blocks.to_string());
        cmp("channels", self.channels.to_string(), other.channels.to_string());
        cmp("trunk_norm", format!("{:?}", self.trunk_norm), format!("{:?}", other.trunk_norm));
        cmp("head_batch_norm", self.head_batch_norm.to_string(), other.head_batch_norm.to_string());
        cmp("policy_channels", self.policy_channels.to_string(), other.policy_channels.to_string());
        cmp("value_channels", self.value_channels.to_string(), other.value_channels.to_string());
        cmp("value_hidden", self.value_hidden.to_string(), other.value_hidden.to_string());
        out
    }

    /// Whether `other` has the same layers and sizes (the seed may differ).
    pub fn same_shape(&self, other: &ModelConfig) -> bool {
        self.differences(other).is_empty()
    }

    /// Multiply–accumulates of one forward pass for one position (convolutions and linear
    /// layers), for reporting FLOP rates.
    pub fn macs_per_position(&self) -> u64 {
        let c = self.channels as u64;
        let board = PLANE_SIZE as u64;
        let stem = INPUT_PLANES as u64 * c * 9 * board;
        let trunk = self.blocks as u64 * 2 * c * c * 9 * board;
        let policy = c * self.policy_channels as u64 * board
            + self.policy_channels as u64 * board * POLICY_SIZE as u64;
        let value = c * self.value_channels as u64 * board
            + self.value_channels as u64 * board * self.value_hidden as u64
            + self.value_hidden as u64 * 3;
        stem + trunk + policy + value
    }
}

/// A model config that cannot be used.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum ConfigError {
    /// A size outside its allowed range.
    #[error("model config: {field} = {value} is outside {min}..={max}")]
    OutOfRange {
        /// The field.
        field: &'static str,
        /// Its value.
        value: usize,
        /// Smallest allowed.
        min: usize,
        /// Largest allowed.
        max: usize,
    },
    /// Malformed text or an unknown field.
    #[error("model config: {0}")]
    Parse(String),
}

/// A seeded generator (SplitMix64), so that initial weights depend on the config's seed alone
/// and not on a backend's global RNG shared between threads.
struct WeightRng(SplitMix64);

impl WeightRng {
    /// Uniform in `[-bound, bound)`.
    fn uniform(&mut self, bound: f32) -> f32 {
        (2.0 * self.0.unit_f32() - 1.0) * bound
    }

    /// A parameter of `shape` drawn uniformly in `±1/√fan_in` (PyTorch's default for conv and
    /// linear layers, so the PyTorch benchmark starts from the same distribution).
    fn param<const D: usize>(
        &mut self,
        shape: [usize; D],
        fan_in: usize,
        device: &Device,
    ) -> Param<Tensor<D>> {
        let bound = 1.0 / (fan_in.max(1) as f32).sqrt();
        let values: Vec<f32> = (0..shape.iter().product()).map(|_| self.uniform(bound)).collect();
        Param::from_tensor(Tensor::from_data(TensorData::new(values, shape), device))
    }
}

/// A convolution with optional batch norm (no bias when normalised: BN's shift replaces it).
#[derive(Module, Debug)]
pub(crate) struct ConvNorm {
    pub(crate) conv: Conv2d,
    pub(crate) norm: Option<BatchNorm>,
}

impl ConvNorm {
    fn new(
        rng: &mut WeightRng,
        channels: [usize; 2],
        kernel: usize,
        batch_norm: bool,
        device: &Device,
    ) -> ConvNorm {
        let mut conv = Conv2dConfig::new(channels, [kernel, kernel])
            .with_padding(PaddingConfig2d::Same)
            .with_bias(!batch_norm)
            .with_initializer(Initializer::Zeros)
            .init(device);
        let fan_in = channels[0] * kernel * kernel;
        conv.weight = rng.param([channels[1], channels[0], kernel, kernel], fan_in, device);
        if !batch_norm {
            conv.bias = Some(rng.param([channels[1]], fan_in, device));
        }
        let norm = batch_norm.then(|| BatchNormConfig::new(channels[1]).init(device));
        ConvNorm { conv, norm }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let y = self.conv.forward(x);
        match &self.norm {
            Some(norm) => norm.forward(y),
            None => y,
        }
    }
}

fn linear(rng: &mut WeightRng, d_input: usize, d_output: usize, device: &Device) -> Linear {
    let mut layer = LinearConfig::new(d_input, d_output).with_initializer(Initializer::Zeros).init(device);
    layer.weight = rng.param([d_input, d_output], d_input, device);
    layer.bias = Some(rng.param([d_output], d_input, device));
    layer
}

/// `relu(x + gain · conv2(relu(conv1(x))))`; `gain` is absent (1) with batch norm.
#[derive(Module, Debug)]
pub(crate) struct ResidualBlock {
    pub(crate) conv1: ConvNorm,
    pub(crate) conv2: ConvNorm,
    pub(crate) skip_gain: Option<Param<Tensor<1>>>,
}

impl ResidualBlock {
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let branch = self.conv2.forward(relu(self.conv1.forward(x.clone())));
        let branch = match &self.skip_gain {
            Some(gain) => branch.mul(gain.val().reshape([1, 1, 1, 1])),
            None => branch,
        };
        relu(x.add(branch))
    }
}

/// The network. Input `[batch, INPUT_PLANES, 10, 9]`; outputs policy logits
/// `[batch, POLICY_SIZE]` and WDL logits `[batch, 3]` (win, draw, loss for the side to move).
#[derive(Module, Debug)]
pub struct PolicyValueNet {
    pub(crate) stem: ConvNorm,
    pub(crate) blocks: Vec<ResidualBlock>,
    pub(crate) policy_conv: ConvNorm,
    pub(crate) policy_fc: Linear,
    pub(crate) value_conv: ConvNorm,
    pub(crate) value_fc1: Linear,
    pub(crate) value_fc2: Linear,
    #[module(skip)]
    config: ModelConfig,
}

impl PolicyValueNet {
    /// A freshly initialised network (weights drawn from `config.seed`).
    ///
    /// # Errors
    /// [`ConfigError`] if the config is out of range.
    pub fn new(config: &ModelConfig, device: &Device) -> Result<PolicyValueNet, ConfigError> {
        config.validate()?;
        let mut rng = WeightRng(SplitMix64::new(config.seed));
        let c = config.channels;
        let trunk_bn = config.trunk_norm == TrunkNorm::BatchNorm;
        let stem = ConvNorm::new(&mut rng, [INPUT_PLANES, c], 3, trunk_bn, device);
        let blocks = (0..config.blocks)
            .map(|_| ResidualBlock {
                conv1: ConvNorm::new(&mut rng, [c, c], 3, trunk_bn, device),
                conv2: ConvNorm::new(&mut rng, [c, c], 3, trunk_bn, device),
                skip_gain: (!trunk_bn).then(|| Param::from_tensor(Tensor::zeros([1], device))),
            })
            .collect();
        let head_bn = config.head_batch_norm;
        let policy_conv = ConvNorm::new(&mut rng, [c, config.policy_channels], 1, head_bn, device);
        let policy_fc = linear(&mut rng, config.policy_channels * PLANE_SIZE, POLICY_SIZE, device);
        let value_conv = ConvNorm::new(&mut rng, [c, config.value_channels], 1, head_bn, device);
        let value_fc1 = linear(&mut rng, config.value_channels * PLANE_SIZE, config.value_hidden, device);
        let value_fc2 = linear(&mut rng, config.value_hidden, 3, device);
        Ok(PolicyValueNet {
            stem,
            blocks,
            policy_conv,
            policy_fc,
            value_conv,
            value_fc1,
            value_fc2,
            config: config.clone(),
        })
    }

    /// The config this network was built from.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// Policy logits `[batch, POLICY_SIZE]` and WDL logits `[batch, 3]`.
    pub fn forward(&self, input: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let mut x = relu(self.stem.forward(input));
        for block in &self.blocks {
            x = block.forward(x);
        }
        let policy = relu(self.policy_conv.forward(x.clone()));
        let [batch, channels, rows, cols] = policy.dims();
        let policy = self.policy_fc.forward(policy.reshape([batch, channels * rows * cols]));
        let value = relu(self.value_conv.forward(x));
        let [batch, channels, rows, cols] = value.dims();
        let value = relu(self.value_fc1.forward(value.reshape([batch, channels * rows * cols])));
        let value = self.value_fc2.forward(value);
        (policy, value)
    }
}
