//! # xq-loop: the AlphaZero-style training loop
//!
//! One generation is: self-play with the accepted model (the built-in evaluator in generation
//! 0) → train a candidate (continuing from the previous candidate's weights) on the newest window of
//! samples → gate the candidate against the
//! accepted model → promote it (atomic rename into `accepted/`) or reject it (into
//! `rejected/`) → rate a promoted model against a fixed ladder → refresh the run report.
//!
//! Stages talk only through directories, as in KataGo:
//! ```text
//! <data_root>/<run>/selfplay/gNNN-<player>/   samples-*.parquet, games-*.parquet
//! <models_root>/<run>/config.toml              the effective configuration
//! <models_root>/<run>/loop.json                what has finished (rewritten after each stage)
//! <models_root>/<run>/candidates/gNNN/         the trainer's output for generation NNN
//! <models_root>/<run>/accepted/gNNN/           … moved here when promoted
//! <models_root>/<run>/rejected/gNNN/           … or here when rejected
//! <models_root>/<run>/gates/gNNN/              the gate's games, journal and report
//! <models_root>/<run>/ladder/{baseline,gNNN}/  ladder gauntlets
//! <models_root>/<run>/report.md, elo.svg, loss.svg (and elo.png, loss.png beside them)
//! ```
//! Every stage resumes from what is on disk (self-play shards, the trainer's state, the eval
//! journal) and `loop.json` records a stage only once it has finished, so the same command
//! continues a killed run with nothing lost or counted twice.

mod config;
pub mod remote;
mod report;
mod run;
mod state;
mod worker;

use std::path::{Path, PathBuf};

pub use config::{
    BootstrapSection, GateSection, LadderSection, LoopConfig, ModelSearch, RunSection, ScaleRating,
    TeacherPhaseOut,
};
pub use remote::RemoteRun;
pub use report::write_report;
pub use run::{LoopOptions, LoopSummary, RunPaths, run_distributed, run_loop};
pub use state::{
    FinalRatingRecord, GateRecord, GenerationRecord, LadderRecord, LoopState, STATE_FORMAT, SelfplayRecord,
    TrainRecord,
};
pub use worker::{WorkerOptions, WorkerSummary, default_worker_id, run_worker};

/// Why the loop stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// The configuration is malformed or out of range.
    #[error("loop config: {0}")]
    Config(String),
    /// The run directory holds a run made with another configuration.
    #[error(
        "run {run}: the configuration differs from the one the run started with ({sections}); use another run.name or restore {saved}"
    )]
    ConfigChanged {
        /// The run's name.
        run: String,
        /// Sections that differ.
        sections: String,
        /// The saved configuration.
        saved: PathBuf,
    },
    /// `loop.json` cannot be read.
    #[error("loop state: {0}")]
    State(String),
    /// A file or directory operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Self-play failed.
    #[error("self-play, generation {generation}: {source}")]
    Selfplay {
        /// The generation.
        generation: u32,
        /// The cause.
        source: xq_selfplay::SelfplayError,
    },
    /// Training failed.
    #[error("training, generation {generation}: {source}")]
    Train {
        /// The generation.
        generation: u32,
        /// The cause.
        source: xq_train::TrainError,
    },
    /// A gate or ladder event failed.
    #[error("{stage}, generation {generation}: {source}")]
    Eval {
        /// `gate` or `ladder`.
        stage: &'static str,
        /// The generation.
        generation: u32,
        /// The cause.
        source: xq_eval::runner::RunError,
    },
    /// A model could not be placed on the calibrated scale (`[ladder.scale]`).
    #[error("{stage} on the scale, generation {generation}: {source}")]
    Scale {
        /// `ladder` or `final rating`.
        stage: &'static str,
        /// The generation.
        generation: u32,
        /// The cause.
        source: xq_eval::scale::ScaleError,
    },
    /// A model could not be loaded.
    #[error("model {path}: {message}")]
    Model {
        /// The checkpoint path.
        path: PathBuf,
        /// The cause.
        message: String,
    },
    /// Reading shards back failed.
    #[error("data {path}: {message}")]
    Data {
        /// The directory.
        path: PathBuf,
        /// The cause.
        message: String,
    },
    /// The report or its plots could not be written.
    #[error("report: {0}")]
    Report(String),
    /// The run's storage failed (after the client's retries) or holds something unexpected.
    #[error("storage: {0}")]
    Store(#[from] xq_store::StoreError),
    /// A distributed run's workers or their setup.
    #[error("workers: {0}")]
    Workers(String),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> LoopError + '_ {
    move |source| LoopError::Io { path: path.to_path_buf(), source }
}
