//! # xq-nn: the network side of xq
//!
//! - [`encoding`]: feature planes of a position from the side to move's point of view
//!   (allocation-free, into a caller buffer), versioned by [`ENCODING_VERSION`].
//! - [`policy`]: the fixed index of every move that can ever be legal ([`POLICY_SIZE`] entries)
//!   and its left–right mirror.
//! - [`model`]: the residual policy + WDL network in burn, shaped by a serde [`ModelConfig`].
//! - [`train`]: optimisation steps (AdamW or SGD with momentum, per-step learning rate, sample
//!   weights) on policy and WDL cross-entropy, with accuracies and a resumable state ([`Trainer`]).
//! - [`evaluator`]: batched inference with priors over legal moves and a cache
//!   ([`BatchEvaluator`]).
//! - [`checkpoint`]: burnpack weights plus JSON metadata, with clear errors on mismatch.
//! - [`device`]: the CPU or GPU device as a config setting ([`DeviceSetting`]).
//! - [`net_evaluator`]: [`NetEvaluator`], the network behind xq-mcts's `Evaluator` trait.
//! - [`spec`]: [`EvaluatorSpec`], which evaluator a search runs on (built-in or checkpoint) as
//!   configs name it, and the one place every stage builds it.
//!
//! The layout, the index and the measurements are documented in `docs/MODEL.md`.

pub mod checkpoint;
pub mod cpu_inference;
pub mod device;
pub mod encoding;
pub mod evaluator;
mod host_gradients;
pub mod model;
pub mod net_evaluator;
pub mod policy;
pub mod spec;
pub mod train;

pub use checkpoint::{
    CheckpointError, CheckpointMeta, load_checkpoint, read_metadata, resolve_checkpoint, save_checkpoint,
};
pub use cpu_inference::{CpuNet, Kernel as CpuKernel, Precision as CpuPrecision};
pub use device::{DeviceError, DeviceSetting};
pub use encoding::{ENCODING_VERSION, INPUT_PLANES, INPUT_SIZE, encode_position};
pub use evaluator::{BatchEvaluator, CacheStats, EvalError, EvalRequest, Evaluation};
pub use model::{ConfigError, ModelConfig, PolicyValueNet, TrunkNorm};
pub use net_evaluator::{DEFAULT_CACHE_POSITIONS, DEFAULT_EVAL_BATCH, NetEvaluator};
pub use policy::{POLICY_SIZE, mirror_index, policy_index, policy_move};
pub use spec::{BuiltEvaluator, EvaluatorSpec, SHARED_MAX_BATCH, SpecError};
pub use train::{
    GradientEngine, OptimizerConfig, OptimizerKind, StepLosses, StepMetrics, TrainBatch, TrainError, Trainer,
    evaluate_batch, metrics_from_logits,
};
