//! Search speed: simulations per second on one thread with the uniform evaluator, so the
//! figure is the cost of the tree alone (selection, move generation, terminal checks,
//! expansion, backup and the batch plumbing).
//!
//! Each iteration is one fresh 800-simulation search; criterion's throughput line gives
//! simulations per second of wall time (median in the middle of the bracket). Before
//! criterion runs, a table of simulations per second of the thread's own CPU time is
//! printed (median of several runs), which stays meaningful on a busy, shared machine.

use criterion::{Criterion, Throughput, criterion_group};
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
            let params = SearchParams { algorithm, visits: SIMULATIONS, ..SearchParams::default() };
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

/// CPU time of the calling thread in nanoseconds (Linux), or `None` where unavailable.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Prints the median simulations per CPU-second over `RUNS` runs of `SEARCHES` searches.
fn cpu_time_report() {
    const RUNS: usize = 7;
    const SEARCHES: usize = 100;
    if thread_cpu_ns().is_none() {
        println!(
            "thread CPU time unavailable (no /proc/thread-self/schedstat); see criterion's wall-time figures"
        );
        return;
    }
    println!(
        "simulations per second of thread CPU time, uniform evaluator, {SIMULATIONS} sims/search, median of {RUNS}:"
    );
    for (name, fen) in [("startpos", START_FEN), ("midgame", MIDGAME)] {
        let game = Game::from_fen(fen, GameRules::default()).expect("bench FEN");
        for (alg_name, algorithm) in [("puct", Algorithm::Puct), ("gumbel", Algorithm::Gumbel)] {
            let params = SearchParams { algorithm, visits: SIMULATIONS, ..SearchParams::default() };
            let mut search = Search::new(params, &game, ChaCha8Rng::seed_from_u64(1)).expect("params");
            let mut rates = Vec::with_capacity(RUNS);
            for _ in 0..RUNS {
                let t0 = thread_cpu_ns().unwrap_or(0);
                for _ in 0..SEARCHES {
                    search.reset(&game);
                    black_box(search.run(&mut UniformEvaluator).expect("search").chosen);
                }
                let ns = thread_cpu_ns().unwrap_or(0).saturating_sub(t0).max(1);
                rates.push((SEARCHES as u64 * SIMULATIONS as u64) as f64 * 1e9 / ns as f64);
            }
            rates.sort_by(f64::total_cmp);
            println!(
                "  {alg_name:<6} {name:<8} median {:>9.0} sims/s  (min {:.0}, max {:.0})",
                rates[RUNS / 2],
                rates[0],
                rates[RUNS - 1]
            );
        }
    }
}

criterion_group!(benches, bench);

fn main() {
    cpu_time_report();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
