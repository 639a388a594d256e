//! Optimisation steps: policy cross-entropy against a target distribution over the index plus
//! WDL cross-entropy, each a weighted mean over the batch's samples, minimised by AdamW
//! (decoupled weight decay) or SGD with momentum (L2 weight decay) on an autodiff device, at a
//! learning rate the caller chooses per step.

use burn::module::Module;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use burn::prelude::*;
use burn::tensor::Bytes;
use burn::tensor::activation::log_softmax;
use ndarray::{Array1, Array2, Array4};
use serde::{Deserialize, Serialize};

use crate::encoding::{BOARD_COLS, BOARD_ROWS, INPUT_PLANES};
use crate::host_gradients::{Workspace, host_gradients};
use crate::model::PolicyValueNet;
use crate::policy::POLICY_SIZE;

/// Which optimiser updates the weights.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptimizerKind {
    /// Adam with decoupled weight decay (Loshchilov & Hutter); β = (0.9, 0.999), ε = 1e-5.
    #[default]
    Adamw,
    /// Stochastic gradient descent with heavy-ball momentum (no dampening) and L2 weight decay
    /// added to the gradient.
    Sgd,
}

/// Optimiser settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimizerConfig {
    /// `adamw` (default) or `sgd`.
    #[serde(default)]
    pub kind: OptimizerKind,
    /// Learning rate of [`Trainer::step`] (a schedule passes its own to [`Trainer::train_step`]).
    pub learning_rate: f64,
    /// SGD momentum factor (ignored by AdamW).
    #[serde(default = "default_momentum")]
    pub momentum: f64,
    /// Weight decay: decoupled for AdamW, an L2 penalty for SGD.
    pub weight_decay: f32,
    /// Weight of the value loss relative to the policy loss.
    pub value_loss_weight: f32,
}

fn default_momentum() -> f64 {
    0.9
}

impl Default for OptimizerConfig {
    fn default() -> Self {
        OptimizerConfig {
            kind: OptimizerKind::Adamw,
            learning_rate: 1e-3,
            momentum: default_momentum(),
            weight_decay: 1e-4,
            value_loss_weight: 1.0,
        }
    }
}

impl OptimizerConfig {
    /// Checks every value's range.
    ///
    /// # Errors
    /// [`TrainError::Config`] naming the field.
    pub fn validate(&self) -> Result<(), TrainError> {
        let bad = |message: String| Err(TrainError::Config(message));
        if !(self.learning_rate.is_finite() && self.learning_rate >= 0.0) {
            return bad(format!("learning_rate = {}: expected a finite value >= 0", self.learning_rate));
        }
        if !(self.momentum.is_finite() && (0.0..1.0).contains(&self.momentum)) {
            return bad(format!("momentum = {}: expected 0 <= momentum < 1", self.momentum));
        }
        if !(self.weight_decay.is_finite() && self.weight_decay >= 0.0) {
            return bad(format!("weight_decay = {}: expected a finite value >= 0", self.weight_decay));
        }
        if !(self.value_loss_weight.is_finite() && self.value_loss_weight >= 0.0) {
            return bad(format!(
                "value_loss_weight = {}: expected a finite value >= 0",
                self.value_loss_weight
            ));
        }
        Ok(())
    }

    fn build(&self) -> ModuleOptimizer {
        match self.kind {
            OptimizerKind::Adamw => AdamWConfig::new().with_weight_decay(self.weight_decay).init(),
            OptimizerKind::Sgd => {
                let momentum = (self.momentum > 0.0)
                    .then(|| MomentumConfig::new().with_momentum(self.momentum).with_dampening(0.0));
                let weight_decay =
                    (self.weight_decay > 0.0).then(|| WeightDecayConfig::new(self.weight_decay));
                SgdConfig::new().with_momentum(momentum).with_weight_decay(weight_decay).init()
            }
        }
    }
}

/// How a training step computes its gradients. Either way burn's optimiser applies them, so
/// checkpoints and optimiser state are the same; the two differ by float rounding only (tested).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GradientEngine {
    /// [`GradientEngine::Host`] on the CPU device, [`GradientEngine::Burn`] on a GPU.
    #[default]
    Auto,
    /// The forward and backward pass as large matrix products on the host
    /// (`host_gradients.rs`), several times faster than burn's autodiff on the CPU.
    Host,
    /// burn's autodiff on the training device.
    Burn,
}

impl GradientEngine {
    /// The engine that runs on `device`: `Auto` resolved.
    pub fn resolve(self, device: &Device) -> GradientEngine {
        match self {
            GradientEngine::Auto if device.clone().inner() == Device::flex() => GradientEngine::Host,
            GradientEngine::Auto => GradientEngine::Burn,
            engine => engine,
        }
    }
}

/// A training batch on the host.
#[derive(Clone, Debug)]
pub struct TrainBatch {
    /// Encoded positions `[batch, INPUT_PLANES, 10, 9]`.
    pub inputs: Array4<f32>,
    /// Target move distribution `[batch, POLICY_SIZE]` (rows sum to 1; zero off the legal moves).
    pub policy: Array2<f32>,
    /// Target `[win, draw, loss]` for the side to move, `[batch, 3]`.
    pub wdl: Array2<f32>,
    /// Each sample's weight in the policy loss, `[batch]` (non-negative); `None` = all 1.
    pub policy_weight: Option<Array1<f32>>,
    /// Each sample's weight in the value loss, `[batch]` (non-negative); `None` = all 1.
    pub value_weight: Option<Array1<f32>>,
}

impl TrainBatch {
    /// A batch in which every sample weighs 1 in both losses.
    pub fn new(inputs: Array4<f32>, policy: Array2<f32>, wdl: Array2<f32>) -> TrainBatch {
        TrainBatch { inputs, policy, wdl, policy_weight: None, value_weight: None }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.inputs.shape()[0]
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks the arrays' shapes agree and the weights are usable.
    ///
    /// # Errors
    /// [`TrainError::BatchShape`] naming the array at fault, [`TrainError::Empty`], or
    /// [`TrainError::BadWeight`].
    pub fn validate(&self) -> Result<(), TrainError> {
        let n = self.len();
        let check = |name: &'static str, found: &[usize], expected: Vec<usize>| {
            if found == expected.as_slice() {
                Ok(())
            } else {
                Err(TrainError::BatchShape { array: name, expected, found: found.to_vec() })
            }
        };
        check("inputs", self.inputs.shape(), vec![n, INPUT_PLANES, BOARD_ROWS, BOARD_COLS])?;
        check("policy", self.policy.shape(), vec![n, POLICY_SIZE])?;
        check("wdl", self.wdl.shape(), vec![n, 3])?;
        for (name, weights) in [("policy_weight", &self.policy_weight), ("value_weight", &self.value_weight)]
        {
            if let Some(w) = weights {
                check(name, w.shape(), vec![n])?;
                if let Some(&bad) = w.iter().find(|w| !(w.is_finite() && **w >= 0.0)) {
                    return Err(TrainError::BadWeight { array: name, value: bad });
                }
            }
        }
        if n == 0 {
            return Err(TrainError::Empty);
        }
        Ok(())
    }

    /// The weights of one loss as a vector (all 1 when not given).
    pub(crate) fn weights(&self, weights: &Option<Array1<f32>>) -> Vec<f32> {
        match weights {
            Some(w) => w.to_vec(),
            None => vec![1.0; self.len()],
        }
    }
}

/// A batch or optimiser state that cannot be used.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum TrainError {
    /// An array of the wrong shape.
    #[error("training batch: {array} has shape {found:?}, expected {expected:?}")]
    BatchShape {
        /// Which array.
        array: &'static str,
        /// Wanted.
        expected: Vec<usize>,
        /// Given.
        found: Vec<usize>,
    },
    /// No samples.
    #[error("training batch is empty")]
    Empty,
    /// A negative or non-finite sample weight.
    #[error("training batch: {array} holds {value}, weights must be finite and >= 0")]
    BadWeight {
        /// Which weights.
        array: &'static str,
        /// The offending value.
        value: f32,
    },
    /// The device is not an autodiff device.
    #[error("training needs an autodiff device (use `device.autodiff()`)")]
    NotAutodiff,
    /// An optimiser setting out of range.
    #[error("optimizer config: {0}")]
    Config(String),
    /// A learning rate that is negative or not finite.
    #[error("learning rate {0} is not a finite value >= 0")]
    LearningRate(f64),
    /// The optimiser state could not be encoded or decoded.
    #[error("optimizer state: {0}")]
    OptimizerState(String),
    /// A weight could not be read back from the backend as `f32`.
    #[error("reading the network's weights: {0}")]
    Backend(String),
}

/// Losses of one step (weighted means over the batch).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepLosses {
    /// Policy cross-entropy.
    pub policy: f32,
    /// WDL cross-entropy.
    pub value: f32,
    /// `policy + value_loss_weight · value`, what was minimised.
    pub total: f32,
}

/// Losses and accuracies of one step, measured on the batch before the update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepMetrics {
    /// The losses that were minimised.
    pub losses: StepLosses,
    /// Share of samples with a policy weight > 0 whose highest logit is the target's argmax.
    pub policy_top1: f32,
    /// Share of samples with a value weight > 0 whose most likely WDL outcome is the target's.
    pub value_accuracy: f32,
    /// Samples counted in `policy_top1` (policy weight > 0).
    pub policy_samples: usize,
    /// Samples counted in `value_accuracy` (value weight > 0).
    pub value_samples: usize,
}

/// Host array to a tensor on `device` (copies once).
pub(crate) fn array_to_tensor<const D: usize, S: ndarray::Data<Elem = f32>, Dim: ndarray::Dimension>(
    array: &ndarray::ArrayBase<S, Dim>,
    device: &Device,
) -> Tensor<D> {
    let shape: Vec<usize> = array.shape().to_vec();
    let values: Vec<f32> = match array.as_slice() {
        Some(slice) => slice.to_vec(),
        None => array.iter().copied().collect(),
    };
    Tensor::from_data(TensorData::new(values, shape), device)
}

/// The loss of a forward pass against targets: `(policy CE, WDL CE)`, each `[1]`, plain means
/// over the batch.
pub fn losses(
    policy_logits: Tensor<2>,
    wdl_logits: Tensor<2>,
    policy_target: Tensor<2>,
    wdl_target: Tensor<2>,
) -> (Tensor<1>, Tensor<1>) {
    let policy = log_softmax(policy_logits, 1).mul(policy_target).sum_dim(1).mean().neg();
    let value = log_softmax(wdl_logits, 1).mul(wdl_target).sum_dim(1).mean().neg();
    (policy, value)
}

/// Cross-entropy per sample `[batch, 1]`, weighted and divided by the weights' sum (a weighted
/// mean); a batch whose weights are all 0 contributes 0.
fn weighted_cross_entropy(
    logits: Tensor<2>,
    target: Tensor<2>,
    weights: &[f32],
    device: &Device,
) -> Tensor<1> {
    let total: f64 = weights.iter().map(|&w| f64::from(w)).sum();
    let scale = if total > 0.0 { (1.0 / total) as f32 } else { 0.0 };
    let weights: Tensor<2> = Tensor::from_data(TensorData::new(weights.to_vec(), [weights.len(), 1]), device);
    log_softmax(logits, 1).mul(target).sum_dim(1).mul(weights).sum().mul_scalar(-scale)
}

/// Index of the first largest value of `row`.
fn argmax(row: &[f32]) -> usize {
    let mut best = 0;
    for (i, &v) in row.iter().enumerate() {
        if v > row[best] {
            best = i;
        }
    }
    best
}

/// Share of rows (with weight > 0) whose argmax agrees between `logits` and `target`, and how
/// many rows were counted.
fn agreement(logits: &[f32], target: &ndarray::ArrayView2<'_, f32>, weights: &[f32]) -> (f32, usize) {
    let width = target.shape()[1];
    let (mut hits, mut counted) = (0usize, 0usize);
    for (k, (out, tgt)) in logits.chunks_exact(width).zip(target.rows()).enumerate() {
        if weights[k] <= 0.0 {
            continue;
        }
        counted += 1;
        let tgt: Vec<f32> = tgt.iter().copied().collect();
        if argmax(out) == argmax(&tgt) {
            hits += 1;
        }
    }
    let share = if counted == 0 { 0.0 } else { hits as f32 / counted as f32 };
    (share, counted)
}

fn tensor_values<const D: usize>(tensor: Tensor<D>) -> Vec<f32> {
    // The logits are plain f32 tensors, so the conversion cannot fail on a working backend;
    // an empty vector then just makes the accuracies 0.
    tensor.into_data().try_into_vec::<f32>().unwrap_or_default()
}

/// The losses and accuracies of `net` on `batch`, without updating it: a validation pass.
/// `net` should be an inference network ([`Trainer::inference_net`]) on the plain `device`;
/// the total weighs the value loss by `value_loss_weight` as training does.
///
/// # Errors
/// [`TrainError`] if the batch is malformed.
pub fn evaluate_batch(
    net: &PolicyValueNet,
    batch: &TrainBatch,
    value_loss_weight: f32,
    device: &Device,
) -> Result<StepMetrics, TrainError> {
    batch.validate()?;
    let policy_weight = batch.weights(&batch.policy_weight);
    let value_weight = batch.weights(&batch.value_weight);
    let inputs: Tensor<4> = array_to_tensor(&batch.inputs, device);
    let policy_target: Tensor<2> = array_to_tensor(&batch.policy, device);
    let wdl_target: Tensor<2> = array_to_tensor(&batch.wdl, device);
    let (policy_logits, wdl_logits) = net.forward(inputs);
    let policy = weighted_cross_entropy(policy_logits.clone(), policy_target, &policy_weight, device)
        .into_scalar::<f32>();
    let value =
        weighted_cross_entropy(wdl_logits.clone(), wdl_target, &value_weight, device).into_scalar::<f32>();
    let (policy_top1, policy_samples) =
        agreement(&tensor_values(policy_logits), &batch.policy.view(), &policy_weight);
    let (value_accuracy, value_samples) =
        agreement(&tensor_values(wdl_logits), &batch.wdl.view(), &value_weight);
    Ok(StepMetrics {
        losses: StepLosses { policy, value, total: policy + value_loss_weight * value },
        policy_top1,
        value_accuracy,
        policy_samples,
        value_samples,
    })
}

/// The metrics of [`evaluate_batch`] from logits computed elsewhere (by [`crate::CpuNet`] at
/// any precision), on the host in `f64`: a validation pass of a frozen network.
///
/// # Errors
/// [`TrainError`] if the batch is malformed or the logits do not match it.
pub fn metrics_from_logits(
    policy_logits: &ndarray::Array2<f32>,
    wdl_logits: &ndarray::Array2<f32>,
    batch: &TrainBatch,
) -> Result<StepMetrics, TrainError> {
    batch.validate()?;
    for (array, logits, target) in
        [("policy logits", policy_logits, &batch.policy), ("wdl logits", wdl_logits, &batch.wdl)]
    {
        if logits.dim() != target.dim() {
            return Err(TrainError::BatchShape {
                array,
                found: logits.shape().to_vec(),
                expected: target.shape().to_vec(),
            });
        }
    }
    let cross_entropy = |logits: &ndarray::Array2<f32>, target: &ndarray::Array2<f32>, weights: &[f32]| {
        let total: f64 = weights.iter().map(|&w| f64::from(w)).sum();
        if total <= 0.0 {
            return 0.0;
        }
        let mut sum = 0.0f64;
        for ((row, target), &w) in logits.outer_iter().zip(target.outer_iter()).zip(weights) {
            let max = row.iter().fold(f32::MIN, |m, &v| m.max(v));
            let log_total = row.iter().map(|&v| f64::from(v - max).exp()).sum::<f64>().ln();
            let dot: f64 =
                row.iter().zip(target).map(|(&v, &t)| f64::from(t) * (f64::from(v - max) - log_total)).sum();
            sum -= f64::from(w) * dot;
        }
        (sum / total) as f32
    };
    let policy_weight = batch.weights(&batch.policy_weight);
    let value_weight = batch.weights(&batch.value_weight);
    let policy = cross_entropy(policy_logits, &batch.policy, &policy_weight);
    let value = cross_entropy(wdl_logits, &batch.wdl, &value_weight);
    let flat = |a: &ndarray::Array2<f32>| a.iter().copied().collect::<Vec<f32>>();
    let (policy_top1, policy_samples) = agreement(&flat(policy_logits), &batch.policy.view(), &policy_weight);
    let (value_accuracy, value_samples) = agreement(&flat(wdl_logits), &batch.wdl.view(), &value_weight);
    Ok(StepMetrics {
        losses: StepLosses { policy, value, total: policy + value },
        policy_top1,
        value_accuracy,
        policy_samples,
        value_samples,
    })
}

/// A network being trained, with its optimiser state.
pub struct Trainer {
    net: Option<PolicyValueNet>,
    optimizer: ModuleOptimizer,
    config: OptimizerConfig,
    device: Device,
    steps: u64,
    /// State tensors right after [`Trainer::restore`], checked after the next step.
    restored_tensors: Option<usize>,
    /// [`GradientEngine::Host`] or [`GradientEngine::Burn`] (resolved).
    gradients: GradientEngine,
    workspace: Workspace,
}

impl Trainer {
    /// Starts training `net`; it is moved to `device`, which must be an autodiff device.
    ///
    /// # Errors
    /// [`TrainError::NotAutodiff`] for a plain device, [`TrainError::Config`] for an
    /// out-of-range setting.
    pub fn new(net: PolicyValueNet, config: OptimizerConfig, device: &Device) -> Result<Trainer, TrainError> {
        if !device.is_autodiff() {
            return Err(TrainError::NotAutodiff);
        }
        config.validate()?;
        Ok(Trainer {
            net: Some(net.fork(device).train()),
            optimizer: config.build(),
            config,
            device: device.clone(),
            steps: 0,
            restored_tensors: None,
            gradients: GradientEngine::Auto.resolve(device),
            workspace: Workspace::default(),
        })
    }

    /// The same trainer computing its gradients with `engine` (`Auto`: the host pass on the
    /// CPU, burn's autodiff on a GPU, which is also what [`Trainer::new`] chooses).
    pub fn with_gradients(mut self, engine: GradientEngine) -> Trainer {
        self.gradients = engine.resolve(&self.device);
        self
    }

    /// The engine the steps compute their gradients with (never `Auto`).
    pub fn gradients(&self) -> GradientEngine {
        self.gradients
    }

    /// Steps taken (including those before a [`Trainer::restore`]).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The optimiser settings.
    pub fn config(&self) -> &OptimizerConfig {
        &self.config
    }

    /// The network being trained (on the autodiff device).
    pub fn net(&self) -> &PolicyValueNet {
        // Only `train_step` takes the network out, and it always puts one back.
        self.net.as_ref().unwrap_or_else(|| unreachable!("the trainer always holds a network between steps"))
    }

    /// A snapshot for inference or saving: no autodiff, batch norm on running statistics.
    pub fn inference_net(&self) -> PolicyValueNet {
        self.net().valid()
    }

    /// One optimisation step on `batch` at the configured learning rate.
    ///
    /// # Errors
    /// [`TrainError`] if the batch's shapes disagree.
    pub fn step(&mut self, batch: &TrainBatch) -> Result<StepLosses, TrainError> {
        Ok(self.train_step(batch, self.config.learning_rate)?.losses)
    }

    /// One optimisation step on `batch` at `learning_rate`, with the batch's sample weights;
    /// returns the losses and accuracies of the forward pass before the update.
    ///
    /// # Errors
    /// [`TrainError`] if the batch is malformed or the learning rate unusable.
    pub fn train_step(&mut self, batch: &TrainBatch, learning_rate: f64) -> Result<StepMetrics, TrainError> {
        batch.validate()?;
        if !(learning_rate.is_finite() && learning_rate >= 0.0) {
            return Err(TrainError::LearningRate(learning_rate));
        }
        let Some(net) = self.net.take() else {
            unreachable!("the trainer always holds a network between steps")
        };
        let policy_weight = batch.weights(&batch.policy_weight);
        let value_weight = batch.weights(&batch.value_weight);
        let (net, losses, policy_logits, wdl_logits) = if self.gradients == GradientEngine::Host {
            let vlw = self.config.value_loss_weight;
            let (grads, step) = match host_gradients(&net, batch, vlw, &mut self.workspace, &self.device) {
                Ok(result) => result,
                Err(error) => {
                    self.net = Some(net);
                    return Err(error);
                }
            };
            let net = self.optimizer.step(learning_rate, net, grads);
            let losses = StepLosses {
                policy: step.policy_loss,
                value: step.value_loss,
                total: step.policy_loss + vlw * step.value_loss,
            };
            (net, losses, step.policy_logits, step.wdl_logits)
        } else {
            let inputs: Tensor<4> = array_to_tensor(&batch.inputs, &self.device);
            let policy_target: Tensor<2> = array_to_tensor(&batch.policy, &self.device);
            let wdl_target: Tensor<2> = array_to_tensor(&batch.wdl, &self.device);
            let (policy_logits, wdl_logits) = net.forward(inputs);
            let policy_loss =
                weighted_cross_entropy(policy_logits.clone(), policy_target, &policy_weight, &self.device);
            let value_loss =
                weighted_cross_entropy(wdl_logits.clone(), wdl_target, &value_weight, &self.device);
            let total = policy_loss.clone().add(value_loss.clone().mul_scalar(self.config.value_loss_weight));
            let grads = GradientsParams::from_grads(total.backward(), &net);
            let net = self.optimizer.step(learning_rate, net, grads);
            let losses = StepLosses {
                policy: policy_loss.into_scalar::<f32>(),
                value: value_loss.into_scalar::<f32>(),
                total: total.into_scalar::<f32>(),
            };
            (net, losses, tensor_values(policy_logits.detach()), tensor_values(wdl_logits.detach()))
        };
        self.net = Some(net);
        self.steps += 1;
        if let Some(restored) = self.restored_tensors.take() {
            // burn keys optimiser state by parameter id and silently starts fresh state for a
            // parameter it has none for: a record of another network would show up here as new
            // state tensors next to the restored ones.
            let now = self.optimizer.to_record().len();
            if now != restored {
                return Err(TrainError::OptimizerState(format!(
                    "the restored state does not belong to this network ({restored} state tensors restored, {now} after one step)"
                )));
            }
        }
        let (policy_top1, policy_samples) = agreement(&policy_logits, &batch.policy.view(), &policy_weight);
        let (value_accuracy, value_samples) = agreement(&wdl_logits, &batch.wdl.view(), &value_weight);
        Ok(StepMetrics { losses, policy_top1, value_accuracy, policy_samples, value_samples })
    }

    /// The optimiser's state (moments, step counts) as a burnpack byte buffer, keyed by the
    /// network's parameter ids, which checkpoints preserve.
    ///
    /// # Errors
    /// [`TrainError::OptimizerState`] if burn cannot encode it.
    pub fn optimizer_state(&self) -> Result<Vec<u8>, TrainError> {
        let bytes =
            self.optimizer.to_record().into_bytes().map_err(|e| TrainError::OptimizerState(e.to_string()))?;
        Ok(bytes.to_vec())
    }

    /// Continues a run: replaces the optimiser state by one saved with
    /// [`Trainer::optimizer_state`] and sets the step count. The network must be the one saved
    /// with that state (loaded from its checkpoint, which keeps the parameter ids).
    ///
    /// # Errors
    /// [`TrainError::OptimizerState`] if the bytes are not an optimiser record; a record whose
    /// parameters are not this network's is reported by the next [`Trainer::train_step`].
    pub fn restore(&mut self, optimizer_state: Vec<u8>, steps: u64) -> Result<(), TrainError> {
        let record = burn::optim::OptimizerRecord::from_bytes(Bytes::from_bytes_vec(optimizer_state))
            .map_err(|e| TrainError::OptimizerState(e.to_string()))?;
        let restored = self.config.build().load_record(record);
        self.restored_tensors = Some(restored.to_record().len());
        self.optimizer = restored;
        self.steps = steps;
        Ok(())
    }
}
