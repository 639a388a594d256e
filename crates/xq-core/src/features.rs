//! What a position's history adds to its board: the one definition that self-play, search,
//! training and the network's encoder all use.

use crate::game::Game;

/// The parts of a game's history that change what a position is worth, as an evaluator sees
/// them: how often the position occurred before (a repetition is near), and how far the
/// natural move limit has run (a draw is near).
///
/// Self-play stores exactly these values with every sample, the trainer encodes them back,
/// and the search computes them along its lines the way [`Game::history_features`] does, so a
/// network sees the same inputs in training and in play.
///
/// ```
/// use xq_core::{Game, GameRules, HistoryFeatures, Position};
/// let game = Game::new(Position::startpos(), GameRules::default());
/// let features = game.history_features();
/// assert_eq!(features, HistoryFeatures { earlier_occurrences: 0, limit_plies: 0, move_limit_plies: 120 });
/// assert_eq!(features.limit_fraction(), 0.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HistoryFeatures {
    /// How many times the current position occurred earlier in the game (0 = never).
    pub earlier_occurrences: u8,
    /// Plies counted toward the natural move limit ([`Game::limit_plies`]: the capture clock,
    /// or fewer when article 23.3's ten-check count is on).
    pub limit_plies: u32,
    /// The natural move limit of the game's rules, in plies; 0 means no limit.
    pub move_limit_plies: u32,
}

impl HistoryFeatures {
    /// The share of the natural move limit used, in `[0, 1]` (0 when there is no limit).
    #[inline]
    pub fn limit_fraction(&self) -> f32 {
        if self.move_limit_plies == 0 {
            0.0
        } else {
            (self.limit_plies as f32 / self.move_limit_plies as f32).min(1.0)
        }
    }

    /// Plies left before the natural move limit draws the game (0 once it is reached).
    #[inline]
    pub fn plies_to_limit(&self) -> u32 {
        self.move_limit_plies.saturating_sub(self.limit_plies)
    }
}

impl Game {
    /// The history features of the current position.
    pub fn history_features(&self) -> HistoryFeatures {
        HistoryFeatures {
            earlier_occurrences: self.occurrences().saturating_sub(1).min(usize::from(u8::MAX)) as u8,
            limit_plies: self.limit_plies(),
            move_limit_plies: self.rules().move_limit_plies,
        }
    }
}
