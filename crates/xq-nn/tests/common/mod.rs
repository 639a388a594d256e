//! Seeded random games for the tests.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use xq_core::HistoryFeatures;
use xq_core::{Game, GameRules, Position};

/// Positions (with history features) of `games` random games of at most `max_plies` plies,
/// every game from `seed`. The networks' overfitting tests are tuned to these positions, so
/// they keep this generator rather than xq-testkit's.
pub fn random_positions(seed: u64, games: usize, max_plies: usize) -> Vec<(Position, HistoryFeatures)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut game = Game::new(Position::startpos(), GameRules::default());
        for _ in 0..max_plies {
            out.push((*game.position(), game.history_features()));
            if game.outcome().is_some() {
                break;
            }
            let moves = game.position().legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            game.play_unchecked(mv);
        }
    }
    out
}
