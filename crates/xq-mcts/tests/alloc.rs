//! The hot path allocates nothing: once the buffers have grown, a whole search (gather,
//! evaluate, apply) runs without touching the allocator.

#[path = "../../xq-core/tests/counting_alloc/mod.rs"]
mod counting_alloc;

use counting_alloc::allocations;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use xq_core::{Game, GameRules, Position};
use xq_mcts::{
    Algorithm, EvalBatch, EvalResults, MaterialEvaluator, Search, SearchParams, Step, evaluate_batch,
};

/// Runs one search by steps and returns the allocations made between start and done.
fn allocations_in_one_search(
    search: &mut Search,
    batch: &mut EvalBatch,
    results: &mut EvalResults,
    leaves: usize,
) -> usize {
    let mut evaluator = MaterialEvaluator::default();
    let before = allocations();
    search.start().unwrap();
    loop {
        batch.clear();
        match search.gather(batch, leaves).unwrap() {
            Step::Evaluate(_) => {
                evaluate_batch(&mut evaluator, batch, results).unwrap();
                search.apply(results).unwrap();
            }
            Step::Wait => unreachable!("nothing is pending after apply"),
            Step::Done => break,
        }
    }
    allocations() - before
}

#[test]
fn a_warm_search_does_not_allocate() {
    let game = Game::new(Position::startpos(), GameRules::default());
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        for leaves in [1, 8] {
            let params = SearchParams { algorithm, visits: 400, ..SearchParams::default() };
            let mut search = Search::new(params, &game, ChaCha8Rng::seed_from_u64(3)).unwrap();
            let (mut batch, mut results) = (EvalBatch::new(), EvalResults::new());
            // The first search grows the arena and the buffers.
            let first = allocations_in_one_search(&mut search, &mut batch, &mut results, leaves);
            assert!(first > 0, "the counter sees the arena grow");
            // The same search again from scratch: same seed, same tree, no growth.
            search.reset(&game);
            *search.rng_mut() = ChaCha8Rng::seed_from_u64(3);
            let n = allocations_in_one_search(&mut search, &mut batch, &mut results, leaves);
            assert_eq!(n, 0, "{algorithm:?}, {leaves} leaves per step");
        }
    }
}
