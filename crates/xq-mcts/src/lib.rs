//! # xq-mcts: Monte Carlo tree search for Xiangqi, generic over an evaluator
//!
//! ## Design
//!
//! * **Evaluator contract** ([`Evaluator`]): a batch of positions in ([`EvalBatch`]: the
//!   [`xq_core::Position`], [`HistoryFeatures`] such as repetitions and plies since capture,
//!   and the legal moves), and for each a [`Wdl`] for the side to move plus priors written
//!   into a slice aligned with the legal-move list ([`EvalResults`]). Both buffers belong to
//!   the caller and are reused, so evaluating allocates nothing once they have grown.
//!   [`UniformEvaluator`] and [`MaterialEvaluator`] need no network.
//! * **Tree**: one arena (`Vec` of 32-byte nodes) per game; a node's children are a
//!   contiguous index range created when the node is first reached, each carrying its move
//!   and prior. Statistics are win and draw sums from the mover's point of view. On a root
//!   change ([`Search::advance`]) the kept subtree is compacted breadth-first into a second,
//!   reused buffer.
//! * **Selection**: PUCT with first-play urgency and root Dirichlet noise, or Gumbel root
//!   search (Gumbel-top-k, sequential halving, completed-Q improved policy, deterministic
//!   improved-policy selection below the root), chosen by [`SearchParams::algorithm`].
//! * **Terminal nodes** follow xq-core, so search and game never disagree: no legal move
//!   loses for the side to move, a repeat of any earlier position on the line (game history
//!   since the last capture plus the tree path) ends the line at once with the 棋例 judge's
//!   verdict on the cycle, then insufficient material and the natural move limit (the
//!   game's capture clock is carried into the tree) draw. The search root itself is never
//!   ended by repetition: the game decides that.
//! * **Playout-cap randomisation**: with probability
//!   [`SearchParams::full_search_probability`] a search is full (noise, full budget, its
//!   policy a training target, [`SearchResult::full_search`]); otherwise fast and value-only.
//! * **Reproducibility**: each [`Search`] owns the random generator it is given (seed a
//!   `ChaCha8Rng` per game).
//!
//! ## Batching many games
//!
//! A driver owns one [`Search`] per game and one evaluator. Each step it asks every running
//! search for leaves ([`Search::gather`]; more than one per game uses virtual loss), evaluates
//! the whole batch at once, and hands the results back ([`Search::apply`]); each search
//! remembers which batch slots are its own. [`Search::run`] is the same loop for one game.
//!
//! ```
//! use rand::SeedableRng;
//! use rand_chacha::ChaCha8Rng;
//! use xq_core::{Game, GameRules, Position};
//! use xq_mcts::{EvalBatch, EvalResults, MaterialEvaluator, Search, SearchParams, Step, evaluate_batch};
//!
//! let params = SearchParams { visits: 64, ..SearchParams::default() };
//! let mut games: Vec<Game> = (0..4).map(|_| Game::new(Position::startpos(), GameRules::default())).collect();
//! let mut searches: Vec<Search> = games
//!     .iter()
//!     .enumerate()
//!     .map(|(i, g)| Search::new(params.clone(), g, ChaCha8Rng::seed_from_u64(i as u64)).unwrap())
//!     .collect();
//! let mut evaluator = MaterialEvaluator::default();
//! let (mut batch, mut results) = (EvalBatch::new(), EvalResults::new());
//!
//! for s in &mut searches {
//!     s.start().unwrap();
//! }
//! loop {
//!     batch.clear();
//!     let mut waiting = false;
//!     for s in &mut searches {
//!         match s.gather(&mut batch, 2).unwrap() {
//!             Step::Evaluate(_) | Step::Wait => waiting = true,
//!             Step::Done => {}
//!         }
//!     }
//!     if !waiting {
//!         break;
//!     }
//!     evaluate_batch(&mut evaluator, &batch, &mut results).unwrap();
//!     for s in &mut searches {
//!         s.apply(&results).unwrap();
//!     }
//! }
//! for (s, g) in searches.iter_mut().zip(&mut games) {
//!     let result = s.result().unwrap();
//!     assert_eq!(result.simulations, 64);
//!     g.play(result.chosen).unwrap();
//!     s.advance(result.chosen).unwrap(); // keeps the chosen subtree for the next search
//! }
//! ```

mod evaluator;
mod line;
mod params;
mod search;
mod shared;
mod tree;

pub use evaluator::{
    BuiltinEvaluator, EvalBatch, EvalError, EvalRequest, EvalResults, Evaluator, MaterialEvaluator,
    UniformEvaluator, Wdl, evaluate_batch,
};
pub use params::{Algorithm, MAX_LEAVES_PER_STEP, ParamsError, SearchParams};
pub use search::{Search, SearchError, SearchResult, Step};
pub use shared::{SharedEvaluator, SharedHandle, SharedStats};
/// The history features of the evaluator contract are xq-core's own.
pub use xq_core::HistoryFeatures;
