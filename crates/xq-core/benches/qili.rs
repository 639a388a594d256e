//! 棋例 judge speed on every rulebook case of `data/qili/cases.json`: one judgement is the
//! allocation-free [`judge_outcome`] of a case's cycle (every move classified, verdict).
//!
//! Besides criterion's figure for judging all cases, prints the median and the worst time
//! of a single judgement over the cases (each case timed as the median of 15 runs).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Instant;
use xq_core::qili::{RuleSet, judge_outcome};
use xq_core::{Move, Position, notation::parse_move};

struct Case {
    id: String,
    positions: Vec<Position>,
    moves: Vec<Move>,
    start: usize,
}

fn load() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/qili/cases.json");
    let text = std::fs::read_to_string(path).expect("data/qili/cases.json is readable");
    let json: serde_json::Value = serde_json::from_str(&text).expect("cases.json is JSON");
    let cases = json["cases"].as_array().expect("a cases array");
    cases
        .iter()
        .map(|c| {
            let mut pos = Position::from_fen(c["fen"].as_str().expect("fen")).expect("valid FEN");
            let mut positions = vec![pos];
            let mut moves = Vec::new();
            for m in c["moves"].as_array().expect("moves") {
                let mv = parse_move(&pos, m.as_str().expect("move")).expect("legal move");
                pos = pos.after(mv);
                positions.push(pos);
                moves.push(mv);
            }
            let start = c["cycle_start_ply"].as_u64().expect("cycle start") as usize;
            Case { id: c["id"].as_str().expect("id").to_string(), positions, moves, start }
        })
        .collect()
}

fn judge(case: &Case, rules: RuleSet) {
    let outcome = judge_outcome(black_box(&case.positions), &case.moves, case.start, rules);
    black_box(outcome).expect("judgeable");
}

fn per_case_summary(cases: &[Case]) {
    let mut times: Vec<(f64, &str)> = cases
        .iter()
        .map(|case| {
            let mut runs: Vec<f64> = (0..15)
                .map(|_| {
                    let t = Instant::now();
                    judge(case, RuleSet::Cxa2020);
                    t.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            runs.sort_by(f64::total_cmp);
            (runs[runs.len() / 2], case.id.as_str())
        })
        .collect();
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (median, worst) = (times[times.len() / 2], times[times.len() - 1]);
    let plies: usize = cases.iter().map(|c| c.moves.len() - c.start).sum();
    println!(
        "qili judge over {} cases ({plies} classified moves): median {:.1} µs per judgement, \
         worst {:.1} µs ({})",
        cases.len(),
        median.0,
        worst.0,
        worst.1
    );
}

fn bench(c: &mut Criterion) {
    let cases = load();
    per_case_summary(&cases);
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
