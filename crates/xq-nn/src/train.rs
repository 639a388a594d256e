//! One optimisation step: policy cross-entropy against a target distribution over the index
//! plus WDL cross-entropy, AdamW (decoupled weight decay) on an autodiff device.

use burn::module::Module;
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::prelude::*;
use burn::tensor::activation::log_softmax;
use ndarray::{Array2, Array4};
use serde::{Deserialize, Serialize};

use crate::encoding::{BOARD_COLS, BOARD_ROWS, INPUT_PLANES};
use crate::model::PolicyValueNet;
use crate::policy::POLICY_SIZE;

/// Optimiser settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimizerConfig {
    /// AdamW learning rate.
    pub learning_rate: f64,
    /// AdamW decoupled weight decay.
    pub weight_decay: f32,
    /// Weight of the value loss relative to the policy loss.
    pub value_loss_weight: f32,
}

impl Default for OptimizerConfig {
    fn default() -> Self {
        OptimizerConfig { learning_rate: 1e-3, weight_decay: 1e-4, value_loss_weight: 1.0 }
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
}

impl TrainBatch {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.inputs.shape()[0]
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks the three arrays' shapes agree.
    ///
    /// # Errors
    /// [`TrainError::BatchShape`] naming the array at fault.
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
        if n == 0 {
            return Err(TrainError::Empty);
        }
        Ok(())
    }
}

/// A batch that cannot be trained on.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
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
    /// The device is not an autodiff device.
    #[error("training needs an autodiff device (use `device.autodiff()`)")]
    NotAutodiff,
}

/// Losses of one step (means over the batch).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepLosses {
    /// Policy cross-entropy.
    pub policy: f32,
    /// WDL cross-entropy.
    pub value: f32,
    /// `policy + value_loss_weight · value`, what was minimised.
    pub total: f32,
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

/// The loss of a forward pass against targets: `(policy CE, WDL CE)`, each `[1]`.
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

/// A network being trained, with its optimiser state.
pub struct Trainer {
    net: Option<PolicyValueNet>,
    optimizer: ModuleOptimizer,
    config: OptimizerConfig,
    device: Device,
    steps: u64,
}

impl Trainer {
    /// Starts training `net`; it is moved to `device`, which must be an autodiff device.
    ///
    /// # Errors
    /// [`TrainError::NotAutodiff`] for a plain device.
    pub fn new(net: PolicyValueNet, config: OptimizerConfig, device: &Device) -> Result<Trainer, TrainError> {
        if !device.is_autodiff() {
            return Err(TrainError::NotAutodiff);
        }
        let optimizer = AdamWConfig::new().with_weight_decay(config.weight_decay).init();
        Ok(Trainer {
            net: Some(net.fork(device).train()),
            optimizer,
            config,
            device: device.clone(),
            steps: 0,
        })
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The network being trained (on the autodiff device).
    pub fn net(&self) -> &PolicyValueNet {
        // Only `step` takes the network out, and it always puts one back.
        self.net.as_ref().unwrap_or_else(|| unreachable!("the trainer always holds a network between steps"))
    }

    /// A snapshot for inference or saving: no autodiff, batch norm on running statistics.
    pub fn inference_net(&self) -> PolicyValueNet {
        self.net().valid()
    }

    /// One optimisation step on `batch`.
    ///
    /// # Errors
    /// [`TrainError`] if the batch's shapes disagree.
    pub fn step(&mut self, batch: &TrainBatch) -> Result<StepLosses, TrainError> {
        batch.validate()?;
        let Some(net) = self.net.take() else {
            unreachable!("the trainer always holds a network between steps")
        };
        let inputs: Tensor<4> = array_to_tensor(&batch.inputs, &self.device);
        let policy_target: Tensor<2> = array_to_tensor(&batch.policy, &self.device);
        let wdl_target: Tensor<2> = array_to_tensor(&batch.wdl, &self.device);
        let (policy_logits, wdl_logits) = net.forward(inputs);
        let (policy_loss, value_loss) = losses(policy_logits, wdl_logits, policy_target, wdl_target);
        let total = policy_loss.clone().add(value_loss.clone().mul_scalar(self.config.value_loss_weight));
        let grads = GradientsParams::from_grads(total.backward(), &net);
        let net = self.optimizer.step(self.config.learning_rate, net, grads);
        self.net = Some(net);
        self.steps += 1;
        Ok(StepLosses {
            policy: policy_loss.into_scalar::<f32>(),
            value: value_loss.into_scalar::<f32>(),
            total: total.into_scalar::<f32>(),
        })
    }
}
