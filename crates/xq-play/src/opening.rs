//! Openings: a named start position and moves played before the players take over.

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use thiserror::Error;
use xq_core::notation::parse_move;
use xq_core::{Game, GameRules, Move, Position, START_FEN};

/// Why an opening cannot be built.
#[derive(Debug, Error)]
pub enum OpeningError {
    /// The FEN does not parse or is not a legal position.
    #[error("opening {name:?}: bad FEN: {source}")]
    Fen {
        /// The opening's name.
        name: String,
        /// What is wrong with the FEN.
        source: xq_core::FenError,
    },
    /// A move is malformed or illegal.
    #[error("opening {name:?}: move {index} ({text:?}): {why}")]
    Move {
        /// The opening's name.
        name: String,
        /// Index of the move in the list.
        index: usize,
        /// The move as given.
        text: String,
        /// What is wrong.
        why: String,
    },
    /// The opening's moves end the game before the players move.
    #[error("opening {name:?} ends the game ({reason}) before the players move")]
    Finished {
        /// The opening's name.
        name: String,
        /// How the game ended.
        reason: xq_core::Termination,
    },
}

/// A start position with clocks and moves already checked for legality, so a game can always
/// be set up from it.
///
/// ```
/// use xq_play::Opening;
/// let o = Opening::new("central cannon", xq_core::START_FEN, &["h2e2", "h9g7"]).unwrap();
/// assert_eq!(o.moves().len(), 2);
/// assert!(Opening::new("bad", xq_core::START_FEN, &["h2h8"]).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    name: String,
    fen: String,
    start: Position,
    halfmove_clock: u32,
    fullmove_number: u32,
    moves: Vec<Move>,
}

impl Opening {
    /// The standard start position with no moves, named `startpos`.
    pub fn startpos() -> Opening {
        Opening {
            name: "startpos".to_string(),
            fen: START_FEN.to_string(),
            start: Position::startpos(),
            halfmove_clock: 0,
            fullmove_number: 1,
            moves: Vec::new(),
        }
    }

    /// An opening from a FEN and moves in any notation xq-core parses (ICCS, …). The moves
    /// must be legal and must not end the game.
    pub fn new(name: &str, fen: &str, moves: &[&str]) -> Result<Opening, OpeningError> {
        let setup = xq_core::parse_setup(fen)
            .map_err(|source| OpeningError::Fen { name: name.to_string(), source })?;
        let start = Position::from_setup(&setup)
            .map_err(|e| OpeningError::Fen { name: name.to_string(), source: e.into() })?;
        let mut game =
            Game::with_clocks(start, GameRules::default(), setup.halfmove_clock, setup.fullmove_number);
        let mut parsed = Vec::with_capacity(moves.len());
        for (index, text) in moves.iter().enumerate() {
            let mv = parse_move(game.position(), text).map_err(|e| OpeningError::Move {
                name: name.to_string(),
                index,
                text: text.to_string(),
                why: e.to_string(),
            })?;
            game.play_unchecked(mv);
            parsed.push(mv);
        }
        if let Some(outcome) = game.outcome() {
            return Err(OpeningError::Finished { name: name.to_string(), reason: outcome.reason });
        }
        Ok(Opening {
            name: name.to_string(),
            fen: fen.trim().to_string(),
            start,
            halfmove_clock: setup.halfmove_clock,
            fullmove_number: setup.fullmove_number,
            moves: parsed,
        })
    }

    /// `count` openings of up to `plies` random legal moves each from the start position,
    /// drawn from `seed`, named `random-<seed>-<i>`. Useful to vary games between deterministic
    /// players. A drawn move that would end the game is taken back and the opening stops there.
    pub fn random_set(count: usize, plies: usize, seed: u64) -> Vec<Opening> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..count)
            .map(|index| {
                let mut game = Game::new(Position::startpos(), GameRules::default());
                for _ in 0..plies {
                    let moves = game.position().legal_moves();
                    game.play_unchecked(moves[rng.random_range(0..moves.len())]);
                    if game.outcome().is_some() {
                        game.undo();
                        break;
                    }
                }
                Opening {
                    name: format!("random-{seed}-{index}"),
                    fen: START_FEN.to_string(),
                    start: *game.start(),
                    halfmove_clock: 0,
                    fullmove_number: 1,
                    moves: game.moves().to_vec(),
                }
            })
            .collect()
    }

    /// The opening's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The start FEN as given.
    pub fn fen(&self) -> &str {
        &self.fen
    }

    /// The moves played before the players take over.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// A game at the start position with the opening's moves played, under `rules`.
    pub fn game(&self, rules: GameRules) -> Game {
        let mut game = Game::with_clocks(self.start, rules, self.halfmove_clock, self.fullmove_number);
        for &mv in &self.moves {
            game.play_unchecked(mv);
        }
        game
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_are_validated() {
        assert!(matches!(Opening::new("x", "not a fen", &[]), Err(OpeningError::Fen { .. })));
        assert!(matches!(Opening::new("x", START_FEN, &["zz"]), Err(OpeningError::Move { index: 0, .. })));
        // Black is mated: the opening may not end the game.
        let mated = "3Rk4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1";
        assert!(matches!(Opening::new("x", mated, &[]), Err(OpeningError::Finished { .. })));
        let o = Opening::new("clocks", "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 7 12", &["a0a1"]).unwrap();
        assert!(o.game(GameRules::default()).fen().ends_with("b - - 8 12"));
    }

    #[test]
    fn startpos_is_the_start() {
        assert_eq!(Opening::startpos(), Opening::new("startpos", START_FEN, &[]).unwrap());
    }

    #[test]
    fn random_openings_are_reproducible() {
        let a = Opening::random_set(5, 4, 9);
        assert_eq!(a, Opening::random_set(5, 4, 9));
        assert_ne!(a, Opening::random_set(5, 4, 10));
        assert!(a.iter().all(|o| o.moves().len() == 4));
    }
}
