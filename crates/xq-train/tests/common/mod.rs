//! Seeded synthetic training samples written as shards, for the tests.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;
use xq_core::{Color, Game, GameRules, Position};
use xq_data::{Sample, SampleWriter, WriterOptions};

/// Samples of `games` random games of at most `plies` plies each: policy 0.8 on one random
/// legal move and 0.2 on another, WDL one-hot of a random result, every fourth sample a fast
/// search.
#[allow(dead_code)] // each test binary uses its own part of this module
pub fn synthetic_samples(seed: u64, games: usize, plies: usize) -> Vec<Sample> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for game_id in 0..games as u64 {
        let red_result: i8 = rng.random_range(-1..=1);
        let mut game = Game::new(Position::startpos(), GameRules::default());
        for _ in 0..plies {
            if game.outcome().is_some() {
                break;
            }
            let pos = *game.position();
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let side = pos.side_to_move();
            let first = rng.random_range(0..moves.len());
            let mut policy = vec![(moves[first], 0.8f32)];
            if moves.len() > 1 {
                policy.push((moves[(first + 1) % moves.len()], 0.2));
            } else {
                policy[0].1 = 1.0;
            }
            let result = if side == Color::Red { red_result } else { -red_result };
            let mut wdl = [0.0f32; 3];
            wdl[(1 - result) as usize] = 1.0;
            let mut sample = xq_testkit::sample_at(&game, moves[first], game_id);
            sample.policy = policy;
            sample.full_search = out.len() % 4 != 3;
            sample.result = result;
            sample.wdl_target = wdl;
            sample.seed = seed;
            out.push(sample);
            game.play_unchecked(moves[first]);
        }
    }
    out
}

/// Writes `samples` to `dir` as shards of `rows_per_shard` rows.
pub fn write_shards(dir: &Path, samples: &[Sample], rows_per_shard: usize) {
    let options = WriterOptions { rows_per_shard, ..WriterOptions::default() };
    let mut writer = SampleWriter::create(dir, options).unwrap();
    writer.extend(samples.iter().cloned()).unwrap();
    writer.finish().unwrap();
}
