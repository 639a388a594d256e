//! # xq-train: the trainer
//!
//! Trains xq-nn's policy + WDL network on the self-play samples written by xq-selfplay:
//!
//! - [`dataset`]: the newest `window_samples` samples of one or more shard directories (corrupt
//!   shards skipped with a warning), a seeded permutation per epoch, left–right mirroring,
//!   batches as [`xq_nn::TrainBatch`] with per-sample weights (full vs fast search).
//! - [`config`]: the TOML configuration ([`TrainConfig`]; unknown keys are errors naming the key).
//! - [`run`]: the loop ([`train`]): AdamW or SGD with momentum, warm-up and a schedule,
//!   checkpoints every K steps, an exact resume (optimiser state, step, data cursor, generator
//!   state), metrics to CSV and an SVG plot, a progress bar and a summary.
//! - [`state`]: the run directory's layout and the resume state.
//! - [`csv_log`]: `metrics.csv` and `validation.csv`, cut back to the checkpoint on resume.
//! - [`validation`]: fixed and held-back validation sets scored at every checkpoint, next to
//!   the draw-rate and material-sign baselines.
//!
//! `docs/TRAIN.md` (in the repository) documents the configuration, the layout and the figures.

pub mod config;
pub mod csv_log;
pub mod dataset;
pub mod error;
pub mod metrics;
pub mod run;
pub mod state;
pub mod validation;

pub use config::{DataSection, OptimizerSection, ScheduleKind, TrainConfig, TrainSection};
pub use csv_log::CsvRow;
pub use dataset::{DataCursor, Dataset, RecordedShard, RngState, Sampler};
pub use error::TrainError;
pub use metrics::MetricsRow;
pub use run::{TrainRun, TrainSummary, train};
pub use state::{RunLayout, TrainState};
pub use validation::{BaselineScore, ValidationScore, ValidationSet};
