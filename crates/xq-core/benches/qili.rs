//! 棋例 judge speed: one judgement is the allocation-free [`judge_outcome`] of a cycle
//! (every move classified, verdict).
//!
//! Prints the median and the worst time of a single judgement (each timed as the median
//! of several runs) over the rulebook's cases of `data/qili/cases.json` and over random
//! games ending in a repetition (what self-play meets), then criterion's figure for
//! judging all the cases.

#[path = "../tests/common/mod.rs"]
mod common;

use common::{load_rulebook_cases, random_history};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Instant;
use xq_core::qili::{RuleSet, judge_outcome};
use xq_core::{Move, Position};

/// Random games judged for the summary; each ends with a two-move shuffle played twice.
const RANDOM_GAMES: u64 = 400;

struct Cycle {
    name: String,
    positions: Vec<Position>,
    moves: Vec<Move>,
    start: usize,
}

fn rulebook_cycles() -> Vec<Cycle> {
    load_rulebook_cases()
        .into_iter()
        .map(|c| Cycle { name: c.id, positions: c.positions, moves: c.moves, start: c.start })
        .collect()
}

/// Random games of 20 to 119 plies whose last four moves return to the position before
/// them (the games whose shuffle could not be completed are left out).
fn random_cycles() -> Vec<Cycle> {
    (0..RANDOM_GAMES)
        .filter_map(|seed| {
            let (positions, moves) = random_history(seed, 20 + (seed as usize * 37) % 100);
            let start = moves.len().checked_sub(4)?;
            (positions[start] == positions[moves.len()]).then(|| Cycle {
                name: format!("random game {seed}"),
                positions,
                moves,
                start,
            })
        })
        .collect()
}

fn judge(cycle: &Cycle, rules: RuleSet) {
    let outcome = judge_outcome(black_box(&cycle.positions), &cycle.moves, cycle.start, rules);
    black_box(outcome).expect("judgeable");
}

/// Times every cycle (the median of `runs` judgements under `cxa2020`) and prints the
/// median and the worst over them.
fn summary(what: &str, cycles: &[Cycle], runs: usize) {
    let mut times: Vec<(f64, &str)> = cycles
        .iter()
        .map(|cycle| {
            let mut samples: Vec<f64> = (0..runs)
                .map(|_| {
                    let t = Instant::now();
                    judge(cycle, RuleSet::Cxa2020);
                    t.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            samples.sort_by(f64::total_cmp);
            (samples[samples.len() / 2], cycle.name.as_str())
        })
        .collect();
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (median, worst) = (times[times.len() / 2], times[times.len() - 1]);
    let plies: usize = cycles.iter().map(|c| c.moves.len() - c.start).sum();
    println!(
        "qili judge over {} {what} ({plies} classified moves): median {:.1} µs per judgement, \
         worst {:.1} µs ({})",
        cycles.len(),
        median.0,
        worst.0,
        worst.1
    );
}

fn bench(c: &mut Criterion) {
    let cases = rulebook_cycles();
    summary("rulebook cases", &cases, 15);
    summary("random games", &random_cycles(), 5);
    let mut g = c.benchmark_group("qili");
    g.sample_size(20);
    for rules in [RuleSet::Cxa, RuleSet::Cxa2020] {
        g.bench_function(format!("judge_all_cases_{}", rules.name()), |b| {
            b.iter(|| cases.iter().for_each(|case| judge(case, rules)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
