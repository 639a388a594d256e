//! Seeded synthetic training samples written as shards, for the tests.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;
use xq_core::{Color, Game, GameRules, Position, Termination};
use xq_data::{Sample, SampleWriter, WriterOptions};

/// Samples of `games` random games of at most `plies` plies each: policy 0.8 on one random
/// legal move and 0.2 on another, WDL one-hot of a random result, every fourth sample a fast
/// search.
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
            out.push(Sample {
                game_id,
                ply: game.ply() as u16,
                fen: game.fen(),
                board: *pos.board_codes(),
                side_to_move: side,
                policy,
                full_search: out.len() % 4 != 3,
                root_wdl: [0.3, 0.4, 0.3],
                root_visits: 32,
                move_played: moves[first],
                result,
                wdl_target: wdl,
                termination: Termination::MaxLength,
                article: String::new(),
                repetitions: game.occurrences().min(255) as u8,
                plies_since_capture: game.capture_clock().min(u32::from(u16::MAX)) as u16,
                model_id: "synthetic".into(),
                config_hash: "test".into(),
                seed,
            });
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
