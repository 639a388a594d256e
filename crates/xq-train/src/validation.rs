//! Validation: the network measured on samples it never trains on, next to two trivial
//! predictors, so that a value loss means something.
//!
//! A run has up to two kinds of validation set:
//! - fixed sets (`TrainRun::validation_dirs`, `xq train --validation DIR`): whole directories
//!   of samples, the same at every checkpoint and in every generation of a loop;
//! - `recent`: the games of the newest data directory that `data.holdout_games` holds back.
//!
//! Each is scored at every checkpoint and appended to `validation.csv` in the run directory.
//!
//! The baselines are fitted on the set itself, so they are the best their kind can do:
//! - `draw_rate`: always `[(1 − d)/2, d, (1 − d)/2]`, `d` the share of drawn outcomes;
//! - `material`: the sign of the material balance for the side to move (ahead by half a pawn
//!   or more: win, behind: loss, else draw) for the accuracy; for the loss, each sign's own
//!   outcome frequencies in the set.

use std::path::{Path, PathBuf};

use burn::tensor::Device;
use serde::{Deserialize, Serialize};
use xq_core::Position;
use xq_mcts::MaterialEvaluator;
use xq_nn::{CpuNet, PolicyValueNet, StepMetrics, evaluate_batch, metrics_from_logits};

use crate::config::DataSection;
use crate::csv_log::{self, CsvRow};
use crate::dataset::{Dataset, Selection};
use crate::error::TrainError;

/// The name of the held-back set of the newest data directory.
pub const RECENT_SET: &str = "recent";

/// Positions evaluated per forward pass.
const EVAL_BATCH: usize = 256;

/// A material balance (in pawns) smaller than this counts as even.
const EVEN_MATERIAL: f32 = 0.5;

/// The header of `validation.csv`.
pub const VALIDATION_CSV_HEADER: &str = "step,set,samples,policy_loss,value_loss,policy_top1,value_accuracy,\
draw_rate_value_loss,draw_rate_value_accuracy,material_value_loss,material_value_accuracy";

/// The value loss and accuracy of a trivial predictor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BaselineScore {
    /// WDL cross-entropy.
    pub value_loss: f32,
    /// Share of samples whose most likely outcome is the target's.
    pub value_accuracy: f32,
}

/// The network's scores on one validation set at one step, with the set's baselines.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ValidationScore {
    /// The training step.
    pub step: u64,
    /// The set: a directory's name, or [`RECENT_SET`].
    pub set: String,
    /// Samples scored.
    pub samples: usize,
    /// Policy cross-entropy over the full-search samples.
    pub policy_loss: f32,
    /// WDL cross-entropy against the game results.
    pub value_loss: f32,
    /// Policy top-1 agreement with the search target.
    pub policy_top1: f32,
    /// WDL argmax agreement with the result.
    pub value_accuracy: f32,
    /// Always predicting the set's draw rate.
    pub draw_rate: BaselineScore,
    /// The sign of the material balance.
    pub material: BaselineScore,
}

/// Numbers are written in their shortest exact form, so a line reads back to the same score.
impl CsvRow for ValidationScore {
    const HEADER: &'static str = VALIDATION_CSV_HEADER;

    fn step(&self) -> u64 {
        self.step
    }

    fn csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{}",
            self.step,
            self.set,
            self.samples,
            self.policy_loss,
            self.value_loss,
            self.policy_top1,
            self.value_accuracy,
            self.draw_rate.value_loss,
            self.draw_rate.value_accuracy,
            self.material.value_loss,
            self.material.value_accuracy
        )
    }

    fn parse(line: &str) -> Option<ValidationScore> {
        let f: Vec<&str> = line.trim().split(',').collect();
        if f.len() != 11 {
            return None;
        }
        Some(ValidationScore {
            step: f[0].parse().ok()?,
            set: f[1].to_string(),
            samples: f[2].parse().ok()?,
            policy_loss: f[3].parse().ok()?,
            value_loss: f[4].parse().ok()?,
            policy_top1: f[5].parse().ok()?,
            value_accuracy: f[6].parse().ok()?,
            draw_rate: BaselineScore { value_loss: f[7].parse().ok()?, value_accuracy: f[8].parse().ok()? },
            material: BaselineScore { value_loss: f[9].parse().ok()?, value_accuracy: f[10].parse().ok()? },
        })
    }
}

impl std::fmt::Display for ValidationScore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "validation {} ({} samples): value loss {:.4} (draw rate {:.4}, material {:.4}), \
             accuracy {:.1}% (draw rate {:.1}%, material {:.1}%), policy loss {:.4}, top-1 {:.1}%",
            self.set,
            self.samples,
            self.value_loss,
            self.draw_rate.value_loss,
            self.material.value_loss,
            100.0 * self.value_accuracy,
            100.0 * self.draw_rate.value_accuracy,
            100.0 * self.material.value_accuracy,
            self.policy_loss,
            100.0 * self.policy_top1
        )
    }
}

/// A validation set, loaded once and scored at every checkpoint.
#[derive(Debug)]
pub struct ValidationSet {
    /// Its name in `validation.csv`.
    pub name: String,
    dataset: Dataset,
    draw_rate: BaselineScore,
    material: BaselineScore,
}

/// The data settings of a validation set: every sample counts once, value targets are the
/// results, fast-search samples score only the value (as they train only it by default).
fn validation_data(data: &DataSection) -> DataSection {
    DataSection {
        window_samples: u64::MAX,
        mirror: false,
        full_search_weight: 1.0,
        fast_search_weight: 1.0,
        fast_search_policy: false,
        value_target_root_q: 0.0,
        ..data.clone()
    }
}

impl ValidationSet {
    /// Every sample of `dir`, named after the directory.
    ///
    /// # Errors
    /// [`TrainError::Data`] or [`TrainError::NoSamples`] as [`Dataset::load`].
    pub fn fixed(dir: &Path, data: &DataSection) -> Result<ValidationSet, TrainError> {
        let name =
            dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
        let dataset = Dataset::load_selected(&[dir.to_path_buf()], &validation_data(data), Selection::All)?;
        Ok(Self::from_dataset(name, dataset))
    }

    /// The games of `dir` held back from training by `data.holdout_games`; `None` when it holds
    /// none back (or `dir` has no such game).
    ///
    /// # Errors
    /// [`TrainError::Data`] for unreadable shards.
    pub fn held_out(dir: &Path, data: &DataSection) -> Result<Option<ValidationSet>, TrainError> {
        if data.holdout_games < 2 {
            return Ok(None);
        }
        match Dataset::load_selected(&[dir.to_path_buf()], &validation_data(data), Selection::HeldOut) {
            Ok(dataset) => Ok(Some(Self::from_dataset(RECENT_SET.to_string(), dataset))),
            Err(TrainError::NoSamples { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// A set of the given data set (for tests and tools).
    pub fn from_dataset(name: String, dataset: Dataset) -> ValidationSet {
        let targets: Vec<(&Position, [f32; 3])> = dataset.value_targets().collect();
        let draw_rate = draw_rate_baseline(targets.iter().map(|(_, t)| *t));
        let material = material_baseline(targets.iter().map(|(p, t)| (MaterialEvaluator::balance(p), *t)));
        ValidationSet { name, dataset, draw_rate, material }
    }

    /// Samples in the set.
    pub fn len(&self) -> usize {
        self.dataset.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.dataset.is_empty()
    }

    /// The draw-rate baseline.
    pub fn draw_rate_baseline(&self) -> BaselineScore {
        self.draw_rate
    }

    /// The material-sign baseline.
    pub fn material_baseline(&self) -> BaselineScore {
        self.material
    }

    /// Scores `net` (an inference network on the plain `device`) on the whole set.
    ///
    /// # Errors
    /// [`TrainError::Step`] if a forward pass fails.
    pub fn score(
        &self,
        net: &PolicyValueNet,
        step: u64,
        device: &Device,
    ) -> Result<ValidationScore, TrainError> {
        self.score_batches(step, |batch| Ok(evaluate_batch(net, batch, 1.0, device)?))
    }

    /// Scores a network frozen for the CPU, at whatever precision it runs: what search sees.
    ///
    /// # Errors
    /// [`TrainError::Evaluate`] if a forward pass fails.
    pub fn score_frozen(&self, net: &CpuNet, step: u64) -> Result<ValidationScore, TrainError> {
        self.score_batches(step, |batch| {
            let inputs = batch.inputs.as_standard_layout();
            // Standard layout always has a slice; an empty one would be refused as a shape below.
            let (policy, wdl) = net.forward(inputs.as_slice().unwrap_or_default())?;
            Ok(metrics_from_logits(&policy, &wdl, batch)?)
        })
    }

    fn score_batches(
        &self,
        step: u64,
        mut metrics: impl FnMut(&xq_nn::TrainBatch) -> Result<StepMetrics, TrainError>,
    ) -> Result<ValidationScore, TrainError> {
        let mut sums = Sums::default();
        let indices: Vec<(usize, bool)> = (0..self.dataset.len()).map(|i| (i, false)).collect();
        for chunk in indices.chunks(EVAL_BATCH) {
            let batch = self.dataset.batch(chunk);
            sums.add(&metrics(&batch)?);
        }
        Ok(ValidationScore {
            step,
            set: self.name.clone(),
            samples: self.dataset.len(),
            policy_loss: sums.policy_loss(),
            value_loss: sums.value_loss(),
            policy_top1: sums.share(sums.policy_hits, sums.policy_samples),
            value_accuracy: sums.share(sums.value_hits, sums.value_samples),
            draw_rate: self.draw_rate,
            material: self.material,
        })
    }
}

/// Sample-weighted sums over batches (each batch's losses are means over its weighted samples).
#[derive(Default)]
struct Sums {
    policy_loss: f64,
    policy_samples: usize,
    policy_hits: f64,
    value_loss: f64,
    value_samples: usize,
    value_hits: f64,
}

impl Sums {
    fn add(&mut self, m: &StepMetrics) {
        self.policy_loss += f64::from(m.losses.policy) * m.policy_samples as f64;
        self.policy_hits += f64::from(m.policy_top1) * m.policy_samples as f64;
        self.policy_samples += m.policy_samples;
        self.value_loss += f64::from(m.losses.value) * m.value_samples as f64;
        self.value_hits += f64::from(m.value_accuracy) * m.value_samples as f64;
        self.value_samples += m.value_samples;
    }

    fn share(&self, sum: f64, count: usize) -> f32 {
        if count == 0 { 0.0 } else { (sum / count as f64) as f32 }
    }

    fn policy_loss(&self) -> f32 {
        self.share(self.policy_loss, self.policy_samples)
    }

    fn value_loss(&self) -> f32 {
        self.share(self.value_loss, self.value_samples)
    }
}

/// Probabilities this small are clamped before the logarithm, so a class the fitted predictor
/// never saw costs a finite amount.
const MIN_PROBABILITY: f64 = 1e-4;

fn cross_entropy(prediction: &[f64; 3], target: &[f32; 3]) -> f64 {
    -(0..3).map(|k| f64::from(target[k]) * prediction[k].max(MIN_PROBABILITY).ln()).sum::<f64>()
}

fn argmax(values: &[f64; 3]) -> usize {
    let mut best = 0;
    for k in 1..3 {
        if values[k] > values[best] {
            best = k;
        }
    }
    best
}

fn target_class(target: &[f32; 3]) -> usize {
    argmax(&target.map(f64::from))
}

/// Always `[(1 − d)/2, d, (1 − d)/2]` with `d` the mean draw target.
fn draw_rate_baseline(targets: impl Iterator<Item = [f32; 3]>) -> BaselineScore {
    let targets: Vec<[f32; 3]> = targets.collect();
    if targets.is_empty() {
        return BaselineScore::default();
    }
    let n = targets.len() as f64;
    let draw = targets.iter().map(|t| f64::from(t[1])).sum::<f64>() / n;
    let prediction = [(1.0 - draw) / 2.0, draw, (1.0 - draw) / 2.0];
    // Ties between win and loss go to the first, like any argmax; with d ≥ ⅓ it is a draw.
    let predicted = argmax(&prediction);
    let loss = targets.iter().map(|t| cross_entropy(&prediction, t)).sum::<f64>() / n;
    let hits = targets.iter().filter(|t| target_class(t) == predicted).count();
    BaselineScore { value_loss: loss as f32, value_accuracy: (hits as f64 / n) as f32 }
}

/// The class of a material balance: 0 ahead (predicts a win), 1 even (a draw), 2 behind.
fn material_class(balance: f32) -> usize {
    if balance >= EVEN_MATERIAL {
        0
    } else if balance <= -EVEN_MATERIAL {
        2
    } else {
        1
    }
}

/// The sign of the material balance: its class for the accuracy, each class's outcome
/// frequencies in the set for the loss.
fn material_baseline(items: impl Iterator<Item = (f32, [f32; 3])>) -> BaselineScore {
    let items: Vec<(usize, [f32; 3])> = items.map(|(b, t)| (material_class(b), t)).collect();
    if items.is_empty() {
        return BaselineScore::default();
    }
    let mut frequencies = [[0.0f64; 3]; 3];
    let mut counts = [0usize; 3];
    for (class, target) in &items {
        counts[*class] += 1;
        for k in 0..3 {
            frequencies[*class][k] += f64::from(target[k]);
        }
    }
    for (row, &count) in frequencies.iter_mut().zip(&counts) {
        if count > 0 {
            row.iter_mut().for_each(|v| *v /= count as f64);
        }
    }
    let n = items.len() as f64;
    let loss = items.iter().map(|(class, t)| cross_entropy(&frequencies[*class], t)).sum::<f64>() / n;
    let hits = items.iter().filter(|(class, t)| target_class(t) == *class).count();
    BaselineScore { value_loss: loss as f32, value_accuracy: (hits as f64 / n) as f32 }
}

/// Reads the scores of a `validation.csv` (a missing file has none; malformed lines are
/// dropped).
///
/// # Errors
/// [`TrainError::Io`] when the file exists but cannot be read.
pub fn read_scores(path: &Path) -> Result<Vec<ValidationScore>, TrainError> {
    csv_log::read_rows(path)
}

/// The validation sets of a run: the fixed directories, then the held-back games of the newest
/// data directory.
///
/// # Errors
/// [`TrainError`] for an unreadable or empty fixed set.
pub fn load_sets(
    fixed: &[PathBuf],
    newest_data: Option<&Path>,
    data: &DataSection,
) -> Result<Vec<ValidationSet>, TrainError> {
    let mut sets = Vec::new();
    for dir in fixed {
        sets.push(ValidationSet::fixed(dir, data)?);
    }
    if let Some(dir) = newest_data
        && let Some(set) = ValidationSet::held_out(dir, data)?
    {
        sets.push(set);
    }
    Ok(sets)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIN: [f32; 3] = [1.0, 0.0, 0.0];
    const DRAW: [f32; 3] = [0.0, 1.0, 0.0];
    const LOSS: [f32; 3] = [0.0, 0.0, 1.0];

    #[test]
    fn draw_rate_baseline_is_the_entropy_of_the_symmetric_constant() {
        let targets = [WIN, DRAW, DRAW, LOSS];
        let b = draw_rate_baseline(targets.into_iter());
        // d = ½: predicts [¼, ½, ¼]; loss = −(ln ¼ + 2 ln ½ + ln ¼)/4 = 1.5 ln 2.
        assert!((f64::from(b.value_loss) - 1.5 * 2f64.ln()).abs() < 1e-6, "{b:?}");
        assert_eq!(b.value_accuracy, 0.5);
    }

    #[test]
    fn material_baseline_predicts_the_sign_and_is_calibrated_per_sign() {
        let items = [(3.0, WIN), (3.0, WIN), (0.0, DRAW), (-4.5, LOSS), (-4.5, DRAW), (0.2, WIN)];
        let b = material_baseline(items.into_iter());
        // Hits: both aheads, the even draw, the behind loss: 4 of 6.
        assert!((b.value_accuracy - 4.0 / 6.0).abs() < 1e-6, "{b:?}");
        // Ahead: certain win (cost ~0); even: ½ draw ½ win (ln 2 each); behind: ½ ½ (ln 2 each).
        let expected = 4.0 * 2f64.ln() / 6.0;
        assert!((f64::from(b.value_loss) - expected).abs() < 1e-3, "{b:?}");
    }

    #[test]
    fn scores_round_trip_through_csv() {
        let score = ValidationScore {
            step: 200,
            set: "fixed".into(),
            samples: 1234,
            policy_loss: 3.5,
            value_loss: 0.9,
            policy_top1: 0.25,
            value_accuracy: 0.6,
            draw_rate: BaselineScore { value_loss: 1.0, value_accuracy: 0.5 },
            material: BaselineScore { value_loss: 0.95, value_accuracy: 0.55 },
        };
        assert_eq!(ValidationScore::parse(&score.csv()), Some(score));
        assert_eq!(VALIDATION_CSV_HEADER.split(',').count(), 11);
    }
}
