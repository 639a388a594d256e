//! The network-free ladder: Greedy against Random and AlphaBeta against Greedy, over paired
//! games (each opening played once with each colour), with W/D/L and timings.
//!
//! ```text
//! cargo run --release -p xq-play --example ladder -- [GAMES] [DEPTH] [THREADS] [SEED]
//! ```
//! Defaults: 40 games, depth 3, 2 threads, seed 1. Openings are 2 random plies from the start
//! position, one per pair of games, drawn from the seed.

use std::time::Instant;
use xq_core::GameRules;
use xq_play::{
    AlphaBetaPlayer, GameOptions, GreedyPlayer, MatchConfig, Opening, Player, PlayerError, RandomPlayer,
    SearchLimits, run_match,
};

type Factory = Box<dyn Fn() -> Result<Box<dyn Player>, PlayerError> + Sync>;

fn arg(index: usize, default: u64) -> Result<u64, String> {
    match std::env::args().nth(index) {
        None => Ok(default),
        Some(text) => text.parse().map_err(|e| format!("argument {index} ({text:?}): {e}")),
    }
}

fn run() -> Result<(), String> {
    let games = arg(1, 40)? as usize;
    let depth = arg(2, 3)? as u32;
    let threads = arg(3, 2)? as usize;
    let seed = arg(4, 1)?;
    let config = MatchConfig {
        games,
        threads,
        openings: Opening::random_set(games.div_ceil(2), 2, seed),
        rules: GameRules::default(),
        options: GameOptions { max_plies: Some(400), ..GameOptions::default() },
        limits_a: SearchLimits::NONE,
        limits_b: SearchLimits::NONE,
        seed,
    };
    let random: Factory = Box::new(move || Ok(Box::new(RandomPlayer::new(seed)) as Box<dyn Player>));
    let greedy: Factory = Box::new(move || Ok(Box::new(GreedyPlayer::new(seed)) as Box<dyn Player>));
    let alphabeta: Factory =
        Box::new(move || Ok(Box::new(AlphaBetaPlayer::with_depth(depth)) as Box<dyn Player>));
    let shallow_depth = depth.saturating_sub(1).max(1);
    let shallow: Factory = Box::new(move || {
        Ok(Box::new(AlphaBetaPlayer::with_depth(shallow_depth).named("alphabeta-shallow")) as Box<dyn Player>)
    });
    let pairs = [
        ("greedy", "random", &greedy, &random),
        ("alphabeta", "greedy", &alphabeta, &greedy),
        ("alphabeta", "alphabeta(depth - 1)", &alphabeta, &shallow),
    ];
    println!("{games} paired games per match, {threads} threads, seed {seed}, alphabeta depth {depth}");
    for (a_name, b_name, make_a, make_b) in pairs {
        let started = Instant::now();
        let result = run_match(&config, make_a, make_b).map_err(|e| e.to_string())?;
        let seconds = started.elapsed().as_secs_f64();
        let plies: usize = result.records.iter().map(|r| r.plies()).sum();
        let mut reasons = std::collections::BTreeMap::new();
        for r in &result.records {
            *reasons.entry(r.outcome.reason.name()).or_insert(0u32) += 1;
        }
        // Search speed of the alpha-beta player(s), over the moves that report nodes.
        let (mut nodes, mut micros) = (0u64, 0u128);
        for info in result.records.iter().flat_map(|r| r.info.iter().flatten()) {
            if let Some(n) = info.nodes {
                nodes += n;
                micros += info.time.as_micros();
            }
        }
        let speed = if micros > 0 {
            format!(", {:.0} k nodes/s", nodes as f64 * 1e3 / micros as f64)
        } else {
            String::new()
        };
        println!(
            "{a_name} vs {b_name}: W/D/L {}/{}/{} (score {:.3}), {:.1} s, {:.2} s per game ({} plies), endings {:?}{speed}",
            result.tally_a.wins,
            result.tally_a.draws,
            result.tally_a.losses,
            result.tally_a.score(),
            seconds,
            seconds * threads.min(games.max(1)) as f64 / games.max(1) as f64,
            plies / games.max(1),
            reasons
        );
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("ladder: {e}");
        std::process::exit(2);
    }
}
