//! Search speed: simulations per second on one thread with the uniform evaluator, so the
//! figure is the cost of the tree alone (selection, move generation, terminal checks,
//! expansion, backup and the batch plumbing).
//!
//! Each iteration is one fresh 800-simulation search; criterion's throughput line gives
//! simulations per second (median in the middle of the bracket).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use xq_core::{Game, GameRules, START_FEN};
use xq_mcts::{Algorithm, Search, SearchParams, UniformEvaluator};

/// The same middlegame as xq-core's move generation benchmark.
const MIDGAME: &str = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";
const SIMULATIONS: u32 = 800;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(20);
    group.throughput(Throughput::Elements(SIMULATIONS as u64));
    for (name, fen) in [("startpos", START_FEN), ("midgame", MIDGAME)] {
        let game = Game::from_fen(fen, GameRules::default()).expect("bench FEN");
        for (alg_name, algorithm) in [("puct", Algorithm::Puct), ("gumbel", Algorithm::Gumbel)] {
            let params = SearchParams { algorithm, simulations: SIMULATIONS, ..SearchParams::default() };
            let mut search = Search::new(params, &game, ChaCha8Rng::seed_from_u64(1)).expect("params");
            let mut evaluator = UniformEvaluator;
            group.bench_function(format!("{alg_name}_{name}_{SIMULATIONS}"), |b| {
                b.iter(|| {
                    search.reset(&game);
                    let result = search.run(&mut evaluator).expect("search");
                    black_box(result.chosen)
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
