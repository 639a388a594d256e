//! The run directory and the state a run resumes from.
//!
//! ```text
//! OUT/
//!   config.toml                    the effective configuration (for people; resume checks train-state.json)
//!   train-state.json               what a resumed run continues from (written last, by rename)
//!   checkpoints/step-00000100.json checkpoint metadata (xq_nn::save_checkpoint)
//!   checkpoints/step-00000100.bpk  weights (burnpack)
//!   optimizer/step-00000100.bpk    optimiser state of the newest checkpoint (burnpack)
//!   metrics.csv, metrics.svg/.png  metrics every log_every steps and the loss curves (SVG, PNG)
//!   validation.csv                 each validation set's scores at every checkpoint
//! ```

use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};

use crate::config::TrainConfig;
use crate::dataset::{DataCursor, RecordedShard, RngState};
use crate::error::{TrainError, io_err};
use crate::metrics::{Accumulator, MetricsRow};

/// Version of `train-state.json`.
pub const STATE_FORMAT: u32 = 1;

/// The files of a run directory.
#[derive(Clone, Debug)]
pub struct RunLayout {
    /// The run directory.
    pub dir: PathBuf,
}

impl RunLayout {
    /// The layout of `dir`.
    pub fn new(dir: &Path) -> RunLayout {
        RunLayout { dir: dir.to_path_buf() }
    }

    /// `train-state.json`.
    pub fn state(&self) -> PathBuf {
        self.dir.join("train-state.json")
    }

    /// `config.toml`.
    pub fn config(&self) -> PathBuf {
        self.dir.join("config.toml")
    }

    /// `checkpoints/`.
    pub fn checkpoints(&self) -> PathBuf {
        self.dir.join("checkpoints")
    }

    /// `optimizer/`.
    pub fn optimizer_dir(&self) -> PathBuf {
        self.dir.join("optimizer")
    }

    /// The checkpoint stem of step `step`: `checkpoints/step-00000100`.
    pub fn checkpoint_stem(&self, step: u64) -> PathBuf {
        self.checkpoints().join(step_name(step))
    }

    /// The optimiser state of step `step`: `optimizer/step-00000100.bpk`.
    pub fn optimizer_file(&self, step: u64) -> PathBuf {
        self.optimizer_dir().join(format!("{}.bpk", step_name(step)))
    }

    /// `metrics.csv`.
    pub fn metrics_csv(&self) -> PathBuf {
        self.dir.join("metrics.csv")
    }

    /// `metrics.svg`.
    pub fn metrics_svg(&self) -> PathBuf {
        self.dir.join("metrics.svg")
    }

    /// `validation.csv`.
    pub fn validation_csv(&self) -> PathBuf {
        self.dir.join("validation.csv")
    }

    /// Whether the directory holds (part of) a run: a state, a checkpoint or metrics.
    pub fn holds_run(&self) -> bool {
        let non_empty = |dir: PathBuf| fs::read_dir(dir).map(|mut d| d.next().is_some()).unwrap_or(false);
        self.state().exists() || self.metrics_csv().exists() || non_empty(self.checkpoints())
    }
}

/// `step-00000100`.
pub fn step_name(step: u64) -> String {
    format!("step-{step:08}")
}

/// Everything a killed run needs to continue exactly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainState {
    /// [`STATE_FORMAT`].
    pub format: u32,
    /// Steps taken when saved.
    pub step: u64,
    /// The checkpoint of that step, relative to the run directory (a stem).
    pub checkpoint: PathBuf,
    /// Its model id.
    pub model_id: String,
    /// The optimiser state file, relative to the run directory.
    pub optimizer_file: PathBuf,
    /// FNV-1a of the optimiser state file (hex), to refuse a damaged one.
    pub optimizer_hash: String,
    /// Where the data order was.
    pub cursor: DataCursor,
    /// The shuffling/mirroring generator.
    pub rng: RngState,
    /// [`TrainConfig::hash`] of the run's config.
    pub config_hash: String,
    /// The run's config (to name what changed when a resume's config hashes differently).
    pub config: TrainConfig,
    /// The data directories as given.
    pub data_dirs: Vec<PathBuf>,
    /// The checkpoint the weights started from, if any.
    pub init_from: Option<PathBuf>,
    /// The shard slices of the window, newest first.
    pub window: Vec<RecordedShard>,
    /// Samples drawn from (after dropping weight-0 samples).
    pub samples: usize,
    /// Hash of the window's samples.
    pub data_fingerprint: String,
    /// Training seconds so far.
    pub elapsed_s: f64,
    /// The newest metrics row, if one was written.
    pub last_metrics: Option<MetricsRow>,
    /// Metrics of the steps after that row.
    pub interval: Accumulator,
}

impl TrainState {
    /// Reads `train-state.json`.
    ///
    /// # Errors
    /// [`TrainError::State`] if it is unreadable or of another format.
    pub fn load(path: &Path) -> Result<TrainState, TrainError> {
        let text = fs::read(path).map_err(io_err(path))?;
        let state: TrainState = serde_json::from_slice(&text)
            .map_err(|e| TrainError::State { path: path.to_path_buf(), message: e.to_string() })?;
        if state.format != STATE_FORMAT {
            return Err(TrainError::State {
                path: path.to_path_buf(),
                message: format!("format {}, this build reads format {STATE_FORMAT}", state.format),
            });
        }
        Ok(state)
    }

    /// Writes it through a temporary file and a rename.
    ///
    /// # Errors
    /// [`TrainError::Io`].
    pub fn save(&self, path: &Path) -> Result<(), TrainError> {
        let json = serde_json::to_vec_pretty(self)
            .map_err(|e| TrainError::State { path: path.to_path_buf(), message: e.to_string() })?;
        xq_files::write_atomic(path, &json).map_err(io_err(path))
    }
}
