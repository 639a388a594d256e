//! The two weakest rungs of the ladder: a random mover and a one-ply material grabber.

use super::eval::material_for;
use crate::player::{GameStart, MoveChoice, Player, PlayerError, Score, SearchLimits};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use xq_core::seed::derive_seed;
use xq_core::{Game, GameResult, MoveList};

fn no_move(game: &Game) -> PlayerError {
    PlayerError::NoMove(format!("no legal move in {}", game.fen()))
}

/// Plays a uniformly random legal move. Its stream of choices comes from its own seed mixed
/// with the seed of each game, so games are reproducible.
#[derive(Debug)]
pub struct RandomPlayer {
    name: String,
    seed: u64,
    rng: ChaCha8Rng,
}

impl RandomPlayer {
    /// A random player with a seed of its own.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer { name: "random".to_string(), seed, rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, _game: &Game, start: GameStart) -> Result<(), PlayerError> {
        self.rng = ChaCha8Rng::seed_from_u64(derive_seed(self.seed, start.seed));
        Ok(())
    }

    fn choose_move(&mut self, game: &Game, _limits: &SearchLimits) -> Result<MoveChoice, PlayerError> {
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            return Err(no_move(game));
        }
        Ok(MoveChoice::new(moves[self.rng.random_range(0..moves.len())]))
    }
}

/// Value of an immediate win or loss for the greedy player, beyond any material.
const DECIDED: i32 = 100_000;

/// Plays the move with the best material balance after it (one ply, no look at the reply),
/// with these refinements, all cheap:
/// - a move that ends the game is judged by the arbiter's verdict ([`Game::outcome`]): an
///   immediate win (mate, stalemate, the opponent's forbidden repetition) is taken, an
///   immediate loss (its own forbidden repetition) avoided, and a draw scores 0;
/// - a move after which the opponent has a reply that leaves it without a legal move (mate in
///   one, or stalemate, which also loses) is avoided when any other move is not.
///
/// Ties are broken at random from its seed mixed with each game's seed. The reported score
/// is the material balance after the move, in centipawns (pawn 100, crossed pawn 200).
#[derive(Debug)]
pub struct GreedyPlayer {
    name: String,
    seed: u64,
    rng: ChaCha8Rng,
}

impl GreedyPlayer {
    /// A greedy player with a seed of its own for tie-breaks.
    pub fn new(seed: u64) -> GreedyPlayer {
        GreedyPlayer { name: "greedy".to_string(), seed, rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

impl Player for GreedyPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, _game: &Game, start: GameStart) -> Result<(), PlayerError> {
        self.rng = ChaCha8Rng::seed_from_u64(derive_seed(self.seed, start.seed));
        Ok(())
    }

    fn choose_move(&mut self, game: &Game, _limits: &SearchLimits) -> Result<MoveChoice, PlayerError> {
        let me = game.position().side_to_move();
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            return Err(no_move(game));
        }
        let mut scratch = game.clone();
        let mut replies = MoveList::new();
        let mut best: Vec<(xq_core::Move, Score)> = Vec::with_capacity(moves.len());
        let mut best_score = i32::MIN;
        for &mv in &moves {
            scratch.play_unchecked(mv);
            let (score, reported) = match scratch.outcome() {
                Some(o) if o.result == GameResult::Draw => (0, Score::Centipawns(0)),
                Some(o) if o.result == GameResult::win_for(me) => (DECIDED, Score::Mate(1)),
                Some(_) => (-DECIDED, Score::Mate(-1)),
                None => {
                    let after = *scratch.position();
                    after.generate_legal(&mut replies);
                    let allows_mate = replies.iter().any(|&r| after.after(r).count_legal() == 0);
                    let material = material_for(&after, me);
                    if allows_mate {
                        (material - DECIDED / 2, Score::Mate(-1))
                    } else {
                        (material, Score::Centipawns(material))
                    }
                }
            };
            scratch.undo();
            if score > best_score {
                best_score = score;
                best.clear();
            }
            if score == best_score {
                best.push((mv, reported));
            }
        }
        let (mv, score) = best[self.rng.random_range(0..best.len())];
        Ok(MoveChoice::new(mv).with_score(score))
    }
}
