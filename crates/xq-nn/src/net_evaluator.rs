//! The network as the search's evaluator: [`NetEvaluator`] implements [`xq_mcts::Evaluator`]
//! over a shared [`BatchEvaluator`], so self-play, matches and the engine all search with a
//! checkpoint through the same narrow interface.
//!
//! ```no_run
//! use std::path::Path;
//! use burn::tensor::Device;
//! use xq_core::HistoryFeatures;
//! use xq_mcts::{EvalBatch, EvalResults, evaluate_batch};
//! use xq_nn::{DEFAULT_CACHE_POSITIONS, NetEvaluator};
//!
//! // A checkpoint stem, its .json/.bpk, or a directory (its newest checkpoint).
//! let mut net = NetEvaluator::from_checkpoint(Path::new("models/run/accepted"), Device::flex(), DEFAULT_CACHE_POSITIONS)?;
//! let start = xq_core::Position::startpos();
//! let moves = start.legal_moves();
//! let mut batch = EvalBatch::new();
//! batch.push(&start, HistoryFeatures::default(), &moves);
//! let mut out = EvalResults::new();
//! evaluate_batch(&mut net, &batch, &mut out).unwrap();
//! println!("{} to move: {:?}", net.model_id(), out.wdl(0));
//! # Ok::<(), xq_nn::CheckpointError>(())
//! ```

use std::path::Path;
use std::sync::Arc;

use burn::tensor::Device;
use xq_core::Move;
use xq_mcts::{EvalBatch, EvalResults, Evaluator, Wdl};

use crate::checkpoint::{CheckpointError, load_checkpoint, resolve_checkpoint};
use crate::evaluator::{BatchEvaluator, EvalRequest};

/// Batch size a network evaluator asks drivers for unless told otherwise: large enough to
/// amortise a forward pass on a CPU, small enough that a few concurrent games fill it.
pub const DEFAULT_EVAL_BATCH: usize = 32;

/// Positions a network's evaluation cache holds unless told otherwise (self-play, matches and
/// the engine alike).
pub const DEFAULT_CACHE_POSITIONS: usize = 1 << 18;

/// A network behind the [`Evaluator`] contract: priors are the policy logits masked to each
/// position's legal moves and softmaxed over them; the value is the network's WDL.
///
/// The network itself is shared ([`Arc`]): many games or players can hold a `NetEvaluator` each
/// over one set of weights and one evaluation cache.
pub struct NetEvaluator {
    network: Arc<BatchEvaluator>,
    model_id: String,
    batch_size: usize,
}

impl std::fmt::Debug for NetEvaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetEvaluator")
            .field("model_id", &self.model_id)
            .field("batch_size", &self.batch_size)
            .finish()
    }
}

impl NetEvaluator {
    /// Evaluates with `network`; `batch_size` is what drivers are asked to gather (at least 1).
    /// The history features reach the network as the search computed them.
    pub fn new(network: Arc<BatchEvaluator>, batch_size: usize) -> NetEvaluator {
        NetEvaluator { network, model_id: String::new(), batch_size: batch_size.max(1) }
    }

    /// Loads the checkpoint `path` names (see [`resolve_checkpoint`]) onto `device`, with
    /// `cache_capacity` cache slots (0 for none).
    ///
    /// # Errors
    /// [`CheckpointError`] when there is no checkpoint at `path` or it cannot be loaded.
    pub fn from_checkpoint(
        path: &Path,
        device: Device,
        cache_capacity: usize,
    ) -> Result<NetEvaluator, CheckpointError> {
        let stem = resolve_checkpoint(path)?;
        let (net, meta) = load_checkpoint(&stem, None, &device)?;
        let network = BatchEvaluator::new(net, device, cache_capacity)
            .map_err(|source| CheckpointError::Network { path: stem.clone(), source })?;
        let network = Arc::new(network);
        Ok(NetEvaluator::new(network, DEFAULT_EVAL_BATCH).with_model_id(&meta.model_id))
    }

    /// The same evaluator under model id `id` (what data and reports record).
    pub fn with_model_id(mut self, id: &str) -> NetEvaluator {
        self.model_id = id.to_string();
        self
    }

    /// The same evaluator asking drivers for batches of `batch_size` (at least 1).
    pub fn with_batch_size(mut self, batch_size: usize) -> NetEvaluator {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Another evaluator over the same network and cache (for another game or player).
    pub fn share(&self) -> NetEvaluator {
        NetEvaluator {
            network: Arc::clone(&self.network),
            model_id: self.model_id.clone(),
            batch_size: self.batch_size,
        }
    }

    /// The checkpoint's model id (empty for a network not loaded from a checkpoint).
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// The shared network.
    pub fn network(&self) -> &Arc<BatchEvaluator> {
        &self.network
    }
}

impl Evaluator for NetEvaluator {
    fn preferred_batch_size(&self) -> usize {
        self.batch_size
    }

    fn evaluate(&mut self, batch: &EvalBatch, out: &mut EvalResults) -> Result<(), xq_mcts::EvalError> {
        // A few small vectors per batch; the forward pass they feed costs orders of magnitude more.
        let requests: Vec<EvalRequest<'_>> =
            batch.iter().map(|r| EvalRequest { position: r.position, history: r.history }).collect();
        let legal: Vec<&[Move]> = batch.iter().map(|r| r.moves).collect();
        let evaluations = self
            .network
            .evaluate_batch(&requests, &legal)
            .map_err(|e| xq_mcts::EvalError::Backend(Box::new(e)))?;
        for (index, evaluation) in evaluations.iter().enumerate() {
            let (wdl, priors) = out.slot_mut(index);
            *wdl = Wdl::new(evaluation.wdl[0], evaluation.wdl[1], evaluation.wdl[2]);
            priors.copy_from_slice(&evaluation.priors);
        }
        Ok(())
    }
}
