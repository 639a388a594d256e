//! Why a training run cannot start or continue.

use std::path::PathBuf;
use thiserror::Error;

/// A training run that cannot start or continue.
#[derive(Debug, Error)]
pub enum TrainError {
    /// The config file cannot be read.
    #[error("cannot read config {path}")]
    ConfigRead {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The config is malformed, has an unknown key or a value out of range.
    #[error("config {path}: {message}")]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong (names the key).
        message: String,
    },
    /// No data directory was given.
    #[error("no data directory given")]
    NoDataDirs,
    /// Reading the samples failed (other than a corrupt shard, which is skipped).
    #[error("reading samples: {0}")]
    Data(#[from] xq_data::DataError),
    /// No usable samples in the window.
    #[error("no training samples in {dirs} ({detail})")]
    NoSamples {
        /// The data directories.
        dirs: String,
        /// Why (empty window, every sample dropped ...).
        detail: String,
    },
    /// A stored sample that cannot be trained on.
    #[error("sample {index} of {shard} (game {game_id}, ply {ply}): {detail}")]
    BadSample {
        /// The shard.
        shard: String,
        /// Row in the window.
        index: usize,
        /// The sample's game.
        game_id: u64,
        /// The sample's ply.
        ply: u16,
        /// What is wrong.
        detail: String,
    },
    /// The output directory already holds a run and `--resume` was not given.
    #[error("{path} already holds a training run; pass --resume to continue it, or choose another --out")]
    RunExists {
        /// The output directory.
        path: PathBuf,
    },
    /// The run cannot be resumed with these settings.
    #[error("cannot resume the run in {path}: {detail}")]
    ResumeMismatch {
        /// The output directory.
        path: PathBuf,
        /// What changed.
        detail: String,
    },
    /// The saved training state is unreadable.
    #[error("training state {path}: {message}")]
    State {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A file cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A checkpoint cannot be written or read.
    #[error(transparent)]
    Checkpoint(#[from] xq_nn::CheckpointError),
    /// An optimisation step failed.
    #[error("training step: {0}")]
    Step(#[from] xq_nn::TrainError),
    /// A frozen network's forward pass failed.
    #[error("forward pass: {0}")]
    Evaluate(#[from] xq_nn::EvalError),
    /// The model config is unusable.
    #[error("model: {0}")]
    Model(#[from] xq_nn::ConfigError),
    /// The thread pool cannot be built.
    #[error("thread pool: {0}")]
    Threads(String),
    /// The metrics plot cannot be drawn.
    #[error("metrics plot {path}: {message}")]
    Plot {
        /// The SVG file (or the PNG beside it).
        path: PathBuf,
        /// The backend's message.
        message: String,
    },
}

/// `map_err` helper for I/O errors on `path`.
pub(crate) fn io_err(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |source| TrainError::Io { path: path.to_path_buf(), source }
}
