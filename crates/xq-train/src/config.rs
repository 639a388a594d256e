//! The training configuration: a TOML file with `[model]`, `[optimizer]`, `[data]` and
//! `[train]` sections. Unknown keys are errors that name the key.

use serde::{Deserialize, Serialize};
use std::path::Path;
use xq_nn::{GradientEngine, ModelConfig, OptimizerKind};

use crate::error::TrainError;

/// How the learning rate changes after the warm-up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleKind {
    /// `learning_rate` throughout.
    #[default]
    Constant,
    /// Half a cosine from `learning_rate` down to `final_learning_rate` at the last step.
    Cosine,
    /// Multiplied by `decay_factor` every `decay_every` steps.
    Step,
}

/// The `[optimizer]` section: optimiser, learning-rate schedule and loss weighting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OptimizerSection {
    /// `"adamw"` (default) or `"sgd"`.
    pub kind: OptimizerKind,
    /// Peak learning rate, reached at the end of the warm-up (default 1e-3).
    pub learning_rate: f64,
    /// SGD momentum (default 0.9; ignored by AdamW).
    pub momentum: f64,
    /// Weight decay: decoupled for AdamW, L2 for SGD (default 1e-4).
    pub weight_decay: f32,
    /// Steps of linear warm-up from 0 to `learning_rate` (default 0).
    pub warmup_steps: u64,
    /// `"constant"` (default), `"cosine"` or `"step"`.
    pub schedule: ScheduleKind,
    /// Cosine: the learning rate at the last step (default 0).
    pub final_learning_rate: f64,
    /// Step: steps between two decays, counted after the warm-up (default 1000).
    pub decay_every: u64,
    /// Step: the factor applied at each decay (default 0.1).
    pub decay_factor: f64,
    /// Weight of the value loss relative to the policy loss (default 1).
    pub value_loss_weight: f32,
}

impl Default for OptimizerSection {
    fn default() -> Self {
        OptimizerSection {
            kind: OptimizerKind::Adamw,
            learning_rate: 1e-3,
            momentum: 0.9,
            weight_decay: 1e-4,
            warmup_steps: 0,
            schedule: ScheduleKind::Constant,
            final_learning_rate: 0.0,
            decay_every: 1000,
            decay_factor: 0.1,
            value_loss_weight: 1.0,
        }
    }
}

impl OptimizerSection {
    /// The xq-nn optimiser settings.
    pub fn optimizer_config(&self) -> xq_nn::OptimizerConfig {
        xq_nn::OptimizerConfig {
            kind: self.kind,
            learning_rate: self.learning_rate,
            momentum: self.momentum,
            weight_decay: self.weight_decay,
            value_loss_weight: self.value_loss_weight,
        }
    }

    /// The learning rate of step `step` (0-based) of a run of `total_steps`: linear warm-up
    /// over `warmup_steps` (step `s` of the warm-up uses `(s + 1) / warmup_steps` of the peak),
    /// then the schedule over the remaining steps.
    pub fn learning_rate_at(&self, step: u64, total_steps: u64) -> f64 {
        let peak = self.learning_rate;
        if step < self.warmup_steps {
            return peak * (step + 1) as f64 / self.warmup_steps as f64;
        }
        let after = step - self.warmup_steps;
        match self.schedule {
            ScheduleKind::Constant => peak,
            ScheduleKind::Cosine => {
                let span = total_steps.saturating_sub(self.warmup_steps).saturating_sub(1);
                let progress = if span == 0 { 1.0 } else { (after.min(span) as f64) / span as f64 };
                let end = self.final_learning_rate;
                end + (peak - end) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos())
            }
            ScheduleKind::Step => {
                let decays = after / self.decay_every.max(1);
                peak * self.decay_factor.powi(i32::try_from(decays).unwrap_or(i32::MAX))
            }
        }
    }
}

/// The `[data]` section: which samples are trained on and how they are presented.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DataSection {
    /// Train on the newest this many samples of the data directories (default 500,000).
    pub window_samples: u64,
    /// Samples per optimisation step (default 256).
    pub batch_size: usize,
    /// Mirror each sample left–right with probability ½ (default true).
    pub mirror: bool,
    /// Weight of samples searched with the full budget (default 1; 0 drops them).
    pub full_search_weight: f32,
    /// Weight of samples from the cheap searches of playout-cap randomisation (default 1; 0
    /// drops them).
    pub fast_search_weight: f32,
    /// Whether fast-search samples also train the policy head (default false: their policy
    /// target comes from a search too small to be a good target, so they train only the value
    /// head, as `docs/DATA.md` specifies).
    pub fast_search_policy: bool,
    /// Hold one game in this many back from training (0: none, the default). The held-back
    /// games of the newest data directory are the run's `recent` validation set; the choice
    /// hashes the game id, so it does not depend on the window or the shard boundaries.
    pub holdout_games: u32,
    /// Share of the root search's WDL in the value target, the rest being the game's result
    /// (default 0; lc0's `q_ratio`). The search's estimate is less noisy than one game's
    /// result but carries the evaluator's bias. Validation always scores against the result.
    pub value_target_root_q: f32,
}

impl Default for DataSection {
    fn default() -> Self {
        DataSection {
            window_samples: 500_000,
            batch_size: 256,
            mirror: true,
            full_search_weight: 1.0,
            fast_search_weight: 1.0,
            fast_search_policy: false,
            holdout_games: 0,
            value_target_root_q: 0.0,
        }
    }
}

/// The `[train]` section: length, cadence, seed and threads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainSection {
    /// Optimisation steps in the run (default 1000).
    pub steps: u64,
    /// Save a checkpoint (and the state to resume from) every this many steps (default 500);
    /// the last step always gets one.
    pub checkpoint_every: u64,
    /// Append a metrics row every this many steps (default 10).
    pub log_every: u64,
    /// Seed of the shuffling and mirroring (default 1). The weight initialisation has its own,
    /// `model.seed`.
    pub seed: u64,
    /// Threads for the tensor kernels; 0 = rayon's default (`RAYON_NUM_THREADS` or one per
    /// core). Default 0.
    pub threads: usize,
    /// How a step computes its gradients: `auto` (default: the host pass on the CPU, burn's
    /// autodiff on a GPU), `host` or `burn`. Both give the same step to float rounding.
    pub gradients: GradientEngine,
}

impl Default for TrainSection {
    fn default() -> Self {
        TrainSection {
            steps: 1000,
            checkpoint_every: 500,
            log_every: 10,
            seed: 1,
            threads: 0,
            gradients: GradientEngine::Auto,
        }
    }
}

/// A whole training configuration file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    /// `[model]`: the network's shape ([`ModelConfig`]; `blocks` and `channels` are required).
    pub model: ModelConfig,
    /// `[optimizer]`.
    #[serde(default)]
    pub optimizer: OptimizerSection,
    /// `[data]`.
    #[serde(default)]
    pub data: DataSection,
    /// `[train]`.
    #[serde(default)]
    pub train: TrainSection,
}

/// Keys that may change between a run and its resumption: they change how often things are
/// written or how fast they run, not what is computed.
pub const RESUMABLE_KEYS: [&str; 4] =
    ["train.checkpoint_every", "train.log_every", "train.threads", "train.gradients"];

impl TrainConfig {
    /// A config with the given model and every other section at its defaults.
    pub fn new(model: ModelConfig) -> TrainConfig {
        TrainConfig {
            model,
            optimizer: OptimizerSection::default(),
            data: DataSection::default(),
            train: TrainSection::default(),
        }
    }

    /// Reads and validates a TOML file.
    ///
    /// # Errors
    /// [`TrainError::ConfigRead`], [`TrainError::Config`] (malformed, unknown key — named —, or
    /// out of range).
    pub fn load(path: &Path) -> Result<TrainConfig, TrainError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| TrainError::ConfigRead { path: path.to_path_buf(), source })?;
        Self::from_toml(&text, path)
    }

    /// Parses and validates TOML text; `path` only names the source in errors.
    ///
    /// # Errors
    /// [`TrainError::Config`] naming the key or value at fault.
    pub fn from_toml(text: &str, path: &Path) -> Result<TrainConfig, TrainError> {
        let config: TrainConfig = toml::from_str(text)
            .map_err(|e| TrainError::Config { path: path.to_path_buf(), message: e.to_string() })?;
        config.validate().map_err(|message| TrainError::Config { path: path.to_path_buf(), message })?;
        Ok(config)
    }

    /// Checks every value's range; the message names the key.
    ///
    /// # Errors
    /// A message naming the first bad value.
    pub fn validate(&self) -> Result<(), String> {
        self.model.validate().map_err(|e| format!("model: {e}"))?;
        self.optimizer.optimizer_config().validate().map_err(|e| e.to_string())?;
        let o = &self.optimizer;
        if !(o.final_learning_rate.is_finite() && o.final_learning_rate >= 0.0) {
            return Err(format!("optimizer.final_learning_rate = {}: expected >= 0", o.final_learning_rate));
        }
        if o.decay_every == 0 {
            return Err("optimizer.decay_every must be at least 1".into());
        }
        if !(o.decay_factor.is_finite() && o.decay_factor > 0.0 && o.decay_factor <= 1.0) {
            return Err(format!("optimizer.decay_factor = {}: expected 0 < factor <= 1", o.decay_factor));
        }
        let d = &self.data;
        if d.window_samples == 0 {
            return Err("data.window_samples must be at least 1".into());
        }
        if d.batch_size == 0 || d.batch_size > 65_536 {
            return Err(format!("data.batch_size = {}: expected 1..=65536", d.batch_size));
        }
        for (key, w) in [
            ("data.full_search_weight", d.full_search_weight),
            ("data.fast_search_weight", d.fast_search_weight),
        ] {
            if !(w.is_finite() && w >= 0.0) {
                return Err(format!("{key} = {w}: expected a finite weight >= 0"));
            }
        }
        if !(d.value_target_root_q.is_finite() && (0.0..=1.0).contains(&d.value_target_root_q)) {
            return Err(format!("data.value_target_root_q = {}: expected 0..=1", d.value_target_root_q));
        }
        if d.holdout_games == 1 {
            return Err("data.holdout_games = 1 would hold back every game: use 0 (none) or 2 and up".into());
        }
        if d.full_search_weight == 0.0 && d.fast_search_weight == 0.0 {
            return Err(
                "data.full_search_weight and data.fast_search_weight are both 0: nothing to train on".into(),
            );
        }
        let t = &self.train;
        if t.steps == 0 {
            return Err("train.steps must be at least 1".into());
        }
        if t.checkpoint_every == 0 {
            return Err("train.checkpoint_every must be at least 1".into());
        }
        if t.log_every == 0 {
            return Err("train.log_every must be at least 1".into());
        }
        Ok(())
    }

    /// The config as flat `section.key = value` pairs (JSON values), for comparisons.
    pub fn flat(&self) -> Vec<(String, String)> {
        let value = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        let mut out = Vec::new();
        flatten("", &value, &mut out);
        out
    }

    /// The keys whose values differ between `self` (the run's) and `other` (now), as
    /// `key: run vs now`, leaving out [`RESUMABLE_KEYS`].
    pub fn resume_differences(&self, other: &TrainConfig) -> Vec<String> {
        let mine = self.flat();
        let theirs: std::collections::BTreeMap<String, String> = other.flat().into_iter().collect();
        let mut out = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for (key, value) in &mine {
            seen.insert(key.clone());
            if RESUMABLE_KEYS.contains(&key.as_str()) {
                continue;
            }
            let now = theirs.get(key).map(String::as_str).unwrap_or("(absent)");
            if now != value {
                out.push(format!("{key}: {value} vs {now}"));
            }
        }
        for (key, value) in &theirs {
            if !seen.contains(key) && !RESUMABLE_KEYS.contains(&key.as_str()) {
                out.push(format!("{key}: (absent) vs {value}"));
            }
        }
        out
    }

    /// A stable hash (hex) of everything but [`RESUMABLE_KEYS`]: two configs with the same
    /// hash train the same weights from the same data.
    pub fn hash(&self) -> String {
        let mut text = String::new();
        for (key, value) in self.flat() {
            if !RESUMABLE_KEYS.contains(&key.as_str()) {
                text.push_str(&key);
                text.push('=');
                text.push_str(&value);
                text.push('\n');
            }
        }
        xq_core::seed::fnv1a64_hex(text.as_bytes())
    }
}

fn flatten(prefix: &str, value: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, v) in map {
                let key = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
                flatten(&key, v, out);
            }
        }
        other => out.push((prefix.to_string(), other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = "[model]\nblocks = 1\nchannels = 8\n";

    #[test]
    fn unknown_keys_are_named() {
        for (text, key) in [
            (format!("{MINIMAL}[optimizer]\nlearning_rat = 0.1\n"), "learning_rat"),
            (format!("{MINIMAL}[data]\nbatchsize = 3\n"), "batchsize"),
            (format!("{MINIMAL}[train]\nstep = 3\n"), "step"),
            (format!("{MINIMAL}depth = 3\n"), "depth"),
            (format!("{MINIMAL}[trainer]\nsteps = 3\n"), "trainer"),
        ] {
            let err = TrainConfig::from_toml(&text, Path::new("x.toml")).unwrap_err().to_string();
            assert!(err.contains(key), "{key}: {err}");
            assert!(err.contains("x.toml"), "{err}");
        }
    }

    #[test]
    fn bad_values_are_named() {
        for (text, key) in [
            (format!("{MINIMAL}[optimizer]\nkind = \"adam\"\n"), "adam"),
            (format!("{MINIMAL}[optimizer]\nschedule = \"linear\"\n"), "linear"),
            (format!("{MINIMAL}[optimizer]\nmomentum = 1.5\n"), "momentum"),
            (format!("{MINIMAL}[data]\nbatch_size = 0\n"), "data.batch_size"),
            (format!("{MINIMAL}[data]\nfast_search_weight = -1\n"), "data.fast_search_weight"),
            (format!("{MINIMAL}[train]\nsteps = 0\n"), "train.steps"),
            ("[model]\nblocks = 1\n".to_string(), "channels"),
        ] {
            let err = TrainConfig::from_toml(&text, Path::new("x.toml")).unwrap_err().to_string();
            assert!(err.contains(key), "{key}: {err}");
        }
    }

    #[test]
    fn schedules() {
        let mut o = OptimizerSection { learning_rate: 1.0, warmup_steps: 4, ..OptimizerSection::default() };
        let lr = |o: &OptimizerSection, s| o.learning_rate_at(s, 14);
        assert_eq!(lr(&o, 0), 0.25);
        assert_eq!(lr(&o, 3), 1.0);
        assert_eq!(lr(&o, 13), 1.0);
        o.schedule = ScheduleKind::Cosine;
        o.final_learning_rate = 0.5;
        assert_eq!(lr(&o, 4), 1.0);
        assert!((lr(&o, 13) - 0.5).abs() < 1e-12);
        let mid = lr(&o, 8) + lr(&o, 9);
        assert!((mid - 1.5).abs() < 1e-12, "cosine is symmetric about its middle: {mid}");
        o.schedule = ScheduleKind::Step;
        o.decay_every = 3;
        o.decay_factor = 0.5;
        assert_eq!(lr(&o, 6), 1.0);
        assert_eq!(lr(&o, 7), 0.5);
        assert_eq!(lr(&o, 13), 0.125);
    }

    #[test]
    fn resume_differences_name_the_key_and_ignore_cadence() {
        let a = TrainConfig::from_toml(MINIMAL, Path::new("a")).unwrap();
        let mut b = a.clone();
        b.train.log_every = 1;
        b.train.checkpoint_every = 1;
        b.train.threads = 1;
        assert!(a.resume_differences(&b).is_empty());
        assert_eq!(a.hash(), b.hash());
        b.optimizer.learning_rate = 0.5;
        b.model.channels = 4;
        let diff = a.resume_differences(&b);
        assert_eq!(
            diff,
            vec!["model.channels: 8 vs 4".to_string(), "optimizer.learning_rate: 0.001 vs 0.5".to_string()]
        );
        assert_ne!(a.hash(), b.hash());
    }
}
