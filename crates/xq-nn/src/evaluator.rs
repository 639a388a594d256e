//! Batched evaluation for search: positions in, WDL and priors over each position's legal moves
//! out, with an optional cache.
//!
//! ```no_run
//! use burn::tensor::Device;
//! use xq_core::Position;
//! use xq_core::HistoryFeatures;
//! use xq_nn::{BatchEvaluator, EvalRequest, ModelConfig, PolicyValueNet};
//! let device = Device::flex();
//! let net = PolicyValueNet::new(&ModelConfig::new(4, 32), &device).unwrap();
//! let evaluator = BatchEvaluator::new(net, device, 1 << 16).unwrap();
//! let pos = Position::startpos();
//! let legal = pos.legal_moves();
//! let out = evaluator
//!     .evaluate_batch(&[EvalRequest { position: &pos, history: HistoryFeatures::default() }], &[&legal])
//!     .unwrap();
//! assert_eq!(out[0].priors.len(), legal.len());
//! ```

use std::sync::Mutex;

use burn::module::Module;
use burn::prelude::*;
use ndarray::{Array2, Array4};
use xq_core::{Move, Position};

use crate::cpu_inference::CpuNet;
use crate::encoding::{BOARD_COLS, BOARD_ROWS, INPUT_PLANES, INPUT_SIZE, encode_position};
use crate::model::PolicyValueNet;
use crate::policy::{POLICY_SIZE, policy_index};
use crate::train::array_to_tensor;
use xq_core::HistoryFeatures;

/// One position to evaluate.
#[derive(Clone, Copy, Debug)]
pub struct EvalRequest<'a> {
    /// The position.
    pub position: &'a Position,
    /// Its history features (repetitions, limit clock).
    pub history: HistoryFeatures,
}

/// The network's verdict on one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Probabilities of win, draw, loss for the side to move.
    pub wdl: [f32; 3],
    /// Prior of each legal move, in the order given; sums to 1 (empty without legal moves).
    pub priors: Vec<f32>,
}

/// Inputs the evaluator cannot handle.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum EvalError {
    /// `positions` and `legal` differ in length.
    #[error("evaluate_batch: {positions} positions but {legal} legal-move lists")]
    LengthMismatch {
        /// Positions given.
        positions: usize,
        /// Move lists given.
        legal: usize,
    },
    /// Encoded inputs of the wrong shape.
    #[error(
        "network input has shape {found:?}, expected [batch, {INPUT_PLANES}, {BOARD_ROWS}, {BOARD_COLS}]"
    )]
    InputShape {
        /// The shape given.
        found: Vec<usize>,
    },
    /// The backend returned something unreadable.
    #[error("backend: {0}")]
    Backend(String),
    /// A move whose geometry no legal move has (so it is not legal in that position).
    #[error("move {mv} in position {fen} is not in the policy index, so it cannot be legal")]
    MoveNotIndexed {
        /// The move, ICCS.
        mv: String,
        /// The position.
        fen: String,
    },
}

/// Cache key: everything the encoding depends on.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct CacheKey {
    hash: u64,
    history: HistoryFeatures,
}

/// A direct-mapped cache: one slot per `hash % capacity`, newest wins. Bounded, no allocation
/// after start beyond the stored priors.
struct EvalCache {
    slots: Vec<Option<(CacheKey, Evaluation)>>,
    hits: u64,
    misses: u64,
}

impl EvalCache {
    fn slot(&self, key: &CacheKey) -> usize {
        (key.hash % self.slots.len() as u64) as usize
    }

    fn get(&mut self, key: &CacheKey, legal_moves: usize) -> Option<Evaluation> {
        let slot = self.slot(key);
        match &self.slots[slot] {
            // The move count is a cheap guard against a 64-bit hash collision.
            Some((k, eval)) if k == key && eval.priors.len() == legal_moves => {
                self.hits += 1;
                Some(eval.clone())
            }
            _ => {
                self.misses += 1;
                None
            }
        }
    }

    fn put(&mut self, key: CacheKey, eval: &Evaluation) {
        let slot = self.slot(&key);
        self.slots[slot] = Some((key, eval.clone()));
    }
}

/// Cache counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that went to the network.
    pub misses: u64,
}

/// A network in inference mode with an optional evaluation cache. `Sync`: several search
/// threads may share one (the cache is behind a mutex; the network call itself is not).
///
/// On the CPU (burn's flex device) the forward pass runs in [`CpuNet`], the same network
/// frozen for inference outside burn; on other devices burn runs it.
pub struct BatchEvaluator {
    net: PolicyValueNet,
    device: Device,
    cpu: Option<CpuNet>,
    cache: Option<Mutex<EvalCache>>,
}

impl BatchEvaluator {
    /// Wraps `net` (moved to `device` and put in inference mode). `cache_capacity` slots of
    /// cache, 0 for none.
    ///
    /// # Errors
    /// [`EvalError::Backend`] on the CPU if the network's weights cannot be read back to
    /// freeze it into a [`CpuNet`].
    pub fn new(
        net: PolicyValueNet,
        device: Device,
        cache_capacity: usize,
    ) -> Result<BatchEvaluator, EvalError> {
        let net = net.valid().to_device(&device);
        let cpu = if device == Device::flex() { Some(CpuNet::from_net(&net)?) } else { None };
        let cache = (cache_capacity > 0)
            .then(|| Mutex::new(EvalCache { slots: vec![None; cache_capacity], hits: 0, misses: 0 }));
        Ok(BatchEvaluator { net, device, cpu, cache })
    }

    /// The same evaluator with [`CpuNet`]'s products on `kernel` (a comparison; the default is
    /// the fastest this CPU runs). Nothing changes on a device burn runs.
    ///
    /// # Errors
    /// [`EvalError::Backend`] if this CPU lacks the kernel's instructions.
    pub fn with_cpu_kernel(mut self, kernel: crate::CpuKernel) -> Result<BatchEvaluator, EvalError> {
        if let Some(cpu) = self.cpu.take() {
            self.cpu = Some(cpu.with_kernel(kernel)?);
        }
        Ok(self)
    }

    /// The same evaluator with [`CpuNet`]'s products in `precision`. Nothing changes on a
    /// device burn runs.
    ///
    /// # Errors
    /// [`EvalError::Backend`] if this CPU lacks the precision's instructions.
    pub fn with_cpu_precision(mut self, precision: crate::CpuPrecision) -> Result<BatchEvaluator, EvalError> {
        if let Some(cpu) = self.cpu.take() {
            self.cpu = Some(cpu.with_precision(precision)?);
        }
        Ok(self)
    }

    /// The precision of [`CpuNet`]'s products, `None` where burn runs the pass.
    pub fn cpu_precision(&self) -> Option<crate::CpuPrecision> {
        self.cpu.as_ref().map(CpuNet::precision)
    }

    /// The kernel of [`CpuNet`]'s products, `None` where burn runs the pass.
    pub fn cpu_kernel(&self) -> Option<crate::CpuKernel> {
        self.cpu.as_ref().map(CpuNet::kernel)
    }

    /// Whether the forward pass runs in [`CpuNet`] rather than burn.
    pub fn runs_outside_burn(&self) -> bool {
        self.cpu.is_some()
    }

    /// The network.
    pub fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    /// Cache hits and misses so far (zeros without a cache).
    pub fn cache_stats(&self) -> CacheStats {
        self.cache
            .as_ref()
            .and_then(|c| c.lock().ok().map(|c| CacheStats { hits: c.hits, misses: c.misses }))
            .unwrap_or_default()
    }

    /// Raw network outputs for encoded inputs `[batch, INPUT_PLANES, 10, 9]`: policy logits
    /// `[batch, POLICY_SIZE]` and WDL logits `[batch, 3]`.
    ///
    /// # Errors
    /// [`EvalError::InputShape`] for inputs of another shape, [`EvalError::Backend`] if the
    /// outputs cannot be read back as `f32`.
    pub fn forward_logits(&self, inputs: &Array4<f32>) -> Result<(Array2<f32>, Array2<f32>), EvalError> {
        match (&self.cpu, inputs.as_slice()) {
            (Some(cpu), Some(flat)) if inputs.shape()[1..] == [INPUT_PLANES, BOARD_ROWS, BOARD_COLS] => {
                cpu.forward(flat)
            }
            _ => self.burn_forward_logits(inputs),
        }
    }

    /// [`BatchEvaluator::forward_logits`] run by burn on the evaluator's device, whatever the
    /// device (for comparisons with [`CpuNet`]).
    ///
    /// # Errors
    /// As [`BatchEvaluator::forward_logits`].
    pub fn burn_forward_logits(&self, inputs: &Array4<f32>) -> Result<(Array2<f32>, Array2<f32>), EvalError> {
        let shape = inputs.shape();
        if shape[1..] != [INPUT_PLANES, BOARD_ROWS, BOARD_COLS] {
            return Err(EvalError::InputShape { found: shape.to_vec() });
        }
        let batch = shape[0];
        let input: Tensor<4> = array_to_tensor(inputs, &self.device);
        let (policy, wdl) = self.net.forward(input);
        let to_host = |t: Tensor<2>, width: usize| {
            let values =
                t.into_data().try_into_vec::<f32>().map_err(|e| EvalError::Backend(format!("{e:?}")))?;
            Array2::from_shape_vec((batch, width), values).map_err(|e| EvalError::Backend(e.to_string()))
        };
        Ok((to_host(policy, POLICY_SIZE)?, to_host(wdl, 3)?))
    }

    /// Evaluates a batch: WDL probabilities and priors over `legal[i]` for each position (the
    /// policy logits masked to the legal moves and softmaxed over them).
    ///
    /// # Errors
    /// [`EvalError`] if the slices differ in length or a move cannot be legal.
    pub fn evaluate_batch(
        &self,
        positions: &[EvalRequest<'_>],
        legal: &[&[Move]],
    ) -> Result<Vec<Evaluation>, EvalError> {
        if positions.len() != legal.len() {
            return Err(EvalError::LengthMismatch { positions: positions.len(), legal: legal.len() });
        }
        // Map the moves first, so a bad move is reported before any work.
        let mut indices: Vec<Vec<usize>> = Vec::with_capacity(positions.len());
        for (request, moves) in positions.iter().zip(legal) {
            let side = request.position.side_to_move();
            let row = moves
                .iter()
                .map(|&mv| {
                    policy_index(mv, side).ok_or_else(|| EvalError::MoveNotIndexed {
                        mv: mv.iccs(),
                        fen: request.position.fen(),
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            indices.push(row);
        }

        let mut results: Vec<Option<Evaluation>> = vec![None; positions.len()];
        let keys: Vec<CacheKey> =
            positions.iter().map(|r| CacheKey { hash: r.position.hash(), history: r.history }).collect();
        if let Some(cache) = &self.cache
            && let Ok(mut cache) = cache.lock()
        {
            for (i, key) in keys.iter().enumerate() {
                results[i] = cache.get(key, legal[i].len());
            }
        }
        let misses: Vec<usize> = (0..positions.len()).filter(|&i| results[i].is_none()).collect();
        if !misses.is_empty() {
            let mut inputs = Array4::<f32>::zeros((misses.len(), INPUT_PLANES, BOARD_ROWS, BOARD_COLS));
            if let Some(flat) = inputs.as_slice_mut() {
                let (chunks, _) = flat.as_chunks_mut::<INPUT_SIZE>();
                for (&i, chunk) in misses.iter().zip(chunks) {
                    encode_position(positions[i].position, &positions[i].history, chunk);
                }
            }
            let (policy, wdl) = self.forward_logits(&inputs)?;
            for (row, &i) in misses.iter().enumerate() {
                let logits = policy.row(row);
                let priors = softmax_over(indices[i].iter().map(|&k| logits[k]));
                let wdl_probs = softmax_over(wdl.row(row).iter().copied());
                let eval = Evaluation { wdl: [wdl_probs[0], wdl_probs[1], wdl_probs[2]], priors };
                results[i] = Some(eval);
            }
            if let Some(cache) = &self.cache
                && let Ok(mut cache) = cache.lock()
            {
                for &i in &misses {
                    if let Some(eval) = &results[i] {
                        cache.put(keys[i], eval);
                    }
                }
            }
        }
        // Every slot is filled: from the cache, or from the network just above.
        Ok(results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| unreachable!("every position was evaluated")))
            .collect())
    }
}

/// Numerically stable softmax of a short sequence.
fn softmax_over(logits: impl Iterator<Item = f32> + Clone) -> Vec<f32> {
    let max = logits.clone().fold(f32::NEG_INFINITY, f32::max);
    let mut out: Vec<f32> = logits.map(|x| (x - max).exp()).collect();
    let sum: f32 = out.iter().sum();
    if sum > 0.0 {
        for p in &mut out {
            *p /= sum;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::softmax_over;

    #[test]
    fn softmax_is_stable_and_normalised() {
        let p = softmax_over([1000.0f32, 1000.0, 999.0].into_iter());
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!((p[0] - p[1]).abs() < 1e-7 && p[2] < p[0]);
        assert!(softmax_over(std::iter::empty()).is_empty());
    }
}
