//! The training loop: [`train`].

use burn::tensor::Device;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;
use xq_nn::{PolicyValueNet, Trainer, load_checkpoint, save_checkpoint};

use crate::config::TrainConfig;
use crate::csv_log;
use crate::dataset::{Dataset, Sampler};
use crate::error::{TrainError, io_err};
use crate::metrics::{self, Accumulator, MetricsRow};
use crate::state::{RunLayout, STATE_FORMAT, TrainState};
use crate::validation::{self, ValidationScore, ValidationSet};
use xq_core::GameRules;
use xq_core::seed::fnv1a64_hex;

/// What to train on and where to write.
#[derive(Clone, Debug, Default)]
pub struct TrainRun {
    /// Directories of `samples-*.parquet` shards, oldest first; the window takes the newest
    /// samples across them.
    pub data_dirs: Vec<PathBuf>,
    /// The run directory (layout in [`crate::state`]).
    pub out_dir: PathBuf,
    /// A checkpoint stem to start the weights from (its shape must be the config's); `None`
    /// starts from the config's initialisation.
    pub init_from: Option<PathBuf>,
    /// Continue the run in `out_dir` from its newest checkpoint. Without it an `out_dir` that
    /// holds a run is an error; with it an `out_dir` without a saved state starts afresh.
    pub resume: bool,
    /// Show a progress bar on stderr (warnings are printed either way).
    pub progress: bool,
    /// Stop after this many steps (counted from step 0, like `train.steps`) as if killed there:
    /// the state on disk is that of the newest checkpoint at or before it, and the summary names
    /// that checkpoint (an empty path if there is none yet). For tests of resume.
    pub stop_after_steps: Option<u64>,
    /// The rules the samples were played under. They are recorded in every checkpoint, so that
    /// a player built from it (`xq engine`) plays the rules its features were normalised by.
    pub rules: Option<GameRules>,
    /// Directories of samples never trained on, scored at every checkpoint (`validation.csv`)
    /// beside the games of the newest data directory that `data.holdout_games` holds back.
    pub validation_dirs: Vec<PathBuf>,
}

/// The outcome of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainSummary {
    /// The final checkpoint's stem (`OUT/checkpoints/step-NNNNNNNN`).
    pub checkpoint: PathBuf,
    /// Its model id.
    pub model_id: String,
    /// Steps taken in the run (all invocations).
    pub steps: u64,
    /// Samples drawn from (the window, less samples of weight 0).
    pub samples: usize,
    /// Policy cross-entropy of the last metrics interval.
    pub policy_loss: f32,
    /// WDL cross-entropy of the last metrics interval.
    pub value_loss: f32,
    /// Policy top-1 agreement of the last metrics interval.
    pub policy_top1: f32,
    /// Value accuracy of the last metrics interval.
    pub value_accuracy: f32,
    /// Training samples per second of this invocation.
    pub samples_per_sec: f64,
    /// The validation scores of the final checkpoint, one per set.
    pub validation: Vec<ValidationScore>,
    /// The metrics file.
    pub metrics_csv: PathBuf,
    /// Corrupt shards and unusable samples skipped.
    pub warnings: Vec<String>,
}

impl std::fmt::Display for TrainSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "training: {} steps on {} samples", self.steps, self.samples)?;
        writeln!(
            f,
            "  loss: policy {:.4}, value {:.4}; policy top-1 {:.1}%, value accuracy {:.1}%",
            self.policy_loss,
            self.value_loss,
            100.0 * self.policy_top1,
            100.0 * self.value_accuracy
        )?;
        writeln!(f, "  speed: {:.0} samples/s", self.samples_per_sec)?;
        for score in &self.validation {
            writeln!(f, "  {score}")?;
        }
        writeln!(f, "  checkpoint: {} (model {})", self.checkpoint.display(), self.model_id)?;
        writeln!(f, "  metrics: {}", self.metrics_csv.display())?;
        if !self.warnings.is_empty() {
            writeln!(f, "  warnings: {}", self.warnings.len())?;
        }
        Ok(())
    }
}

/// Trains the network of `config` on the newest samples of `run.data_dirs`, writing
/// checkpoints, the resume state and metrics to `run.out_dir`; with `run.resume`, continues an
/// interrupted run exactly (same weights as an uninterrupted one).
///
/// # Errors
/// [`TrainError`]: bad config, no data, a run already in `out_dir` without `resume`, a resume
/// whose config, data or start differ (naming what), unreadable checkpoints or I/O failures.
pub fn train(config: &TrainConfig, run: &TrainRun) -> Result<TrainSummary, TrainError> {
    config
        .validate()
        .map_err(|message| TrainError::Config { path: run.out_dir.join("config.toml"), message })?;
    if run.data_dirs.is_empty() {
        return Err(TrainError::NoDataDirs);
    }
    if config.train.threads == 0 {
        return train_in_pool(config, run);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.train.threads)
        .build()
        .map_err(|e| TrainError::Threads(e.to_string()))?;
    pool.install(|| train_in_pool(config, run))
}

/// A run set up to take its next step.
struct Session {
    trainer: Trainer,
    sampler: Sampler,
    dataset: Dataset,
    elapsed_s: f64,
    last_metrics: Option<MetricsRow>,
    /// Metrics of the steps since the last row.
    interval: Accumulator,
    /// The optimiser file of the newest state, removed once a newer state is committed.
    previous_optimizer: Option<PathBuf>,
    checkpoint: Option<(PathBuf, String)>,
    /// The sets scored at every checkpoint.
    validation: Vec<ValidationSet>,
}

fn train_in_pool(config: &TrainConfig, run: &TrainRun) -> Result<TrainSummary, TrainError> {
    let layout = RunLayout::new(&run.out_dir);
    let device = Device::flex();
    let state_path = layout.state();
    let saved = if state_path.exists() {
        if !run.resume {
            return Err(TrainError::RunExists { path: run.out_dir.clone() });
        }
        Some(TrainState::load(&state_path)?)
    } else {
        if layout.holds_run() && !run.resume {
            return Err(TrainError::RunExists { path: run.out_dir.clone() });
        }
        None
    };
    for dir in [layout.dir.clone(), layout.checkpoints(), layout.optimizer_dir()] {
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    }
    let mut session = match &saved {
        Some(state) => resume_session(config, run, &layout, state, &device)?,
        None => fresh_session(config, run, &layout, &device)?,
    };
    let progress = progress_bar(run.progress, config.train.steps, session.trainer.steps());
    for warning in &session.dataset.warnings {
        progress.println(format!("warning: {warning}"));
        if progress.is_hidden() {
            eprintln!("warning: {warning}");
        }
    }

    let csv = layout.metrics_csv();
    let mut rows: Vec<MetricsRow> = csv_log::truncate_after(&csv, session.trainer.steps())?;
    let validation_csv = layout.validation_csv();
    csv_log::truncate_after::<ValidationScore>(&validation_csv, session.trainer.steps())?;
    let stop = run.stop_after_steps.unwrap_or(u64::MAX).min(config.train.steps);
    let (mut trained, mut trained_seconds) = (0usize, 0.0f64);
    while session.trainer.steps() < stop {
        let step = session.trainer.steps();
        let lr = config.optimizer.learning_rate_at(step, config.train.steps);
        let started = Instant::now();
        let items = session.sampler.next_batch(config.data.batch_size);
        let batch = session.dataset.batch(&items);
        let step_metrics = session.trainer.train_step(&batch, lr)?;
        let seconds = started.elapsed().as_secs_f64();
        session.elapsed_s += seconds;
        trained += batch.len();
        trained_seconds += seconds;
        session.interval.add(&step_metrics, batch.len(), seconds);
        let done = step + 1;
        let last = done == config.train.steps;
        if done % config.train.log_every == 0 || last {
            let row = session.interval.row(done, lr, session.elapsed_s);
            csv_log::append_rows(&csv, &[row])?;
            rows.push(row);
            session.last_metrics = Some(row);
            session.interval = Accumulator::default();
            progress.set_message(format!(
                "policy {:.3} value {:.3} top-1 {:.0}% acc {:.0}% {:.0}/s",
                row.policy_loss,
                row.value_loss,
                100.0 * row.policy_top1,
                100.0 * row.value_accuracy,
                row.samples_per_sec
            ));
        }
        progress.set_position(done);
        if done % config.train.checkpoint_every == 0 || last {
            save_state(config, run, &layout, &mut session)?;
            metrics::plot_losses(&rows, &plot_title(config), &layout.metrics_svg())?;
            let net = session.trainer.inference_net();
            let mut scores = Vec::with_capacity(session.validation.len());
            for set in &session.validation {
                let score = set.score(&net, done, &device)?;
                if !progress.is_hidden() {
                    progress.println(score.to_string());
                }
                scores.push(score);
            }
            csv_log::append_rows(&validation_csv, &scores)?;
        }
    }
    progress.finish_and_clear();
    if !rows.is_empty() {
        metrics::plot_losses(&rows, &plot_title(config), &layout.metrics_svg())?;
    }
    let (checkpoint, model_id) = match session.checkpoint.clone() {
        Some(c) => c,
        // Stopped early (`stop_after_steps`) before the first checkpoint: like a kill, nothing
        // is saved.
        None if session.trainer.steps() < config.train.steps => (PathBuf::new(), String::new()),
        None => save_state(config, run, &layout, &mut session)?,
    };
    let last = session.last_metrics.unwrap_or(MetricsRow {
        step: session.trainer.steps(),
        lr: 0.0,
        policy_loss: f32::NAN,
        value_loss: f32::NAN,
        total_loss: f32::NAN,
        policy_top1: 0.0,
        value_accuracy: 0.0,
        samples_per_sec: 0.0,
        elapsed_s: session.elapsed_s,
    });
    let final_step = session.trainer.steps();
    let validation = validation::read_scores(&validation_csv)?
        .into_iter()
        .filter(|score| score.step == final_step)
        .collect();
    Ok(TrainSummary {
        validation,
        checkpoint,
        model_id,
        steps: session.trainer.steps(),
        samples: session.dataset.len(),
        policy_loss: last.policy_loss,
        value_loss: last.value_loss,
        policy_top1: last.policy_top1,
        value_accuracy: last.value_accuracy,
        samples_per_sec: if trained_seconds > 0.0 { trained as f64 / trained_seconds } else { 0.0 },
        metrics_csv: csv,
        warnings: session.dataset.warnings.clone(),
    })
}

fn plot_title(config: &TrainConfig) -> String {
    format!("training loss ({}x{} net)", config.model.blocks, config.model.channels)
}

fn progress_bar(show: bool, total: u64, at: u64) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("train [{elapsed_precise}] {bar:30} {pos}/{len} steps (eta {eta}) {msg}")
    {
        bar.set_style(style);
    }
    bar.set_position(at);
    bar
}

/// The run's validation sets: its fixed directories and the held-back games of its newest data
/// directory.
fn validation_sets(config: &TrainConfig, run: &TrainRun) -> Result<Vec<ValidationSet>, TrainError> {
    validation::load_sets(&run.validation_dirs, run.data_dirs.last().map(PathBuf::as_path), &config.data)
}

fn fresh_session(
    config: &TrainConfig,
    run: &TrainRun,
    layout: &RunLayout,
    device: &Device,
) -> Result<Session, TrainError> {
    let dataset = Dataset::load(&run.data_dirs, &config.data)?;
    let net = match &run.init_from {
        Some(stem) => load_checkpoint(stem, Some(&config.model), device)?.0,
        None => PolicyValueNet::new(&config.model, device)?,
    };
    let trainer = Trainer::new(net, config.optimizer.optimizer_config(), &device.clone().autodiff())?
        .with_gradients(config.train.gradients);
    let sampler = Sampler::new(dataset.len(), config.train.seed, config.data.mirror);
    let validation = validation_sets(config, run)?;
    let text = toml::to_string_pretty(config)
        .map_err(|e| TrainError::Config { path: layout.config(), message: e.to_string() })?;
    let path = layout.config();
    xq_files::write_atomic(&path, text.as_bytes()).map_err(io_err(&path))?;
    Ok(Session {
        trainer,
        sampler,
        dataset,
        elapsed_s: 0.0,
        last_metrics: None,
        interval: Accumulator::default(),
        previous_optimizer: None,
        checkpoint: None,
        validation,
    })
}

fn resume_session(
    config: &TrainConfig,
    run: &TrainRun,
    layout: &RunLayout,
    state: &TrainState,
    device: &Device,
) -> Result<Session, TrainError> {
    let mismatch = |detail: String| TrainError::ResumeMismatch { path: run.out_dir.clone(), detail };
    let differences = state.config.resume_differences(config);
    if !differences.is_empty() {
        return Err(mismatch(format!("the config changed (run vs now): {}", differences.join(", "))));
    }
    if state.config_hash != config.hash() {
        return Err(mismatch(format!(
            "the config hashes to {}, the run's to {} (another build?)",
            config.hash(),
            state.config_hash
        )));
    }
    if state.data_dirs != run.data_dirs {
        return Err(mismatch(format!(
            "--data changed: the run used {:?}, now {:?}",
            state.data_dirs, run.data_dirs
        )));
    }
    if state.init_from != run.init_from {
        return Err(mismatch(format!(
            "--init changed: the run used {:?}, now {:?}",
            state.init_from, run.init_from
        )));
    }
    let dataset = Dataset::load_recorded(&state.window, &config.data)?;
    if dataset.fingerprint != state.data_fingerprint || dataset.len() != state.samples {
        return Err(mismatch(format!(
            "the run's shards changed: {} samples (fingerprint {}), the run had {} ({})",
            dataset.len(),
            dataset.fingerprint,
            state.samples,
            state.data_fingerprint
        )));
    }
    let stem = layout.dir.join(&state.checkpoint);
    let (net, meta) = load_checkpoint(&stem, Some(&config.model), device)?;
    if meta.model_id != state.model_id {
        return Err(TrainError::State {
            path: layout.state(),
            message: format!(
                "checkpoint {} has model id {}, the state names {}",
                stem.display(),
                meta.model_id,
                state.model_id
            ),
        });
    }
    let optimizer_path = layout.dir.join(&state.optimizer_file);
    let optimizer = fs::read(&optimizer_path).map_err(io_err(&optimizer_path))?;
    let hash = fnv1a64_hex(&optimizer);
    if hash != state.optimizer_hash {
        return Err(TrainError::State {
            path: optimizer_path,
            message: format!(
                "hash {hash} does not match the recorded {}; the file is truncated or corrupt",
                state.optimizer_hash
            ),
        });
    }
    let mut trainer = Trainer::new(net, config.optimizer.optimizer_config(), &device.clone().autodiff())?
        .with_gradients(config.train.gradients);
    trainer.restore(optimizer, state.step)?;
    let sampler =
        Sampler::resume(dataset.len(), config.train.seed, config.data.mirror, state.cursor, &state.rng)
            .map_err(|message| TrainError::State { path: layout.state(), message })?;
    Ok(Session {
        trainer,
        sampler,
        dataset,
        elapsed_s: state.elapsed_s,
        last_metrics: state.last_metrics,
        interval: state.interval.clone(),
        previous_optimizer: Some(optimizer_path),
        checkpoint: Some((stem, state.model_id.clone())),
        validation: validation_sets(config, run)?,
    })
}

/// Saves the checkpoint of the current step, its optimiser state and then the resume state
/// (the commit point); removes the previous optimiser file once the new state is in place.
fn save_state(
    config: &TrainConfig,
    run: &TrainRun,
    layout: &RunLayout,
    session: &mut Session,
) -> Result<(PathBuf, String), TrainError> {
    let step = session.trainer.steps();
    let stem = layout.checkpoint_stem(step);
    let meta = save_checkpoint(&session.trainer.inference_net(), &stem, step, run.rules)?;
    let optimizer = session.trainer.optimizer_state()?;
    let optimizer_path = layout.optimizer_file(step);
    xq_files::write_atomic(&optimizer_path, &optimizer).map_err(io_err(&optimizer_path))?;
    let relative =
        |p: &Path| p.strip_prefix(&layout.dir).map(Path::to_path_buf).unwrap_or_else(|_| p.to_path_buf());
    let state = TrainState {
        format: STATE_FORMAT,
        step,
        checkpoint: relative(&stem),
        model_id: meta.model_id.clone(),
        optimizer_file: relative(&optimizer_path),
        optimizer_hash: fnv1a64_hex(&optimizer),
        cursor: session.sampler.cursor(),
        rng: session.sampler.rng_state(),
        config_hash: config.hash(),
        config: config.clone(),
        data_dirs: run.data_dirs.clone(),
        init_from: run.init_from.clone(),
        window: session.dataset.window.clone(),
        samples: session.dataset.len(),
        data_fingerprint: session.dataset.fingerprint.clone(),
        elapsed_s: session.elapsed_s,
        last_metrics: session.last_metrics,
        interval: session.interval.clone(),
    };
    state.save(&layout.state())?;
    if let Some(previous) = session.previous_optimizer.replace(optimizer_path.clone())
        && previous != optimizer_path
    {
        // The state no longer names it; a leftover file would only take space.
        let _ = fs::remove_file(previous);
    }
    session.checkpoint = Some((stem.clone(), meta.model_id.clone()));
    Ok((stem, meta.model_id))
}
