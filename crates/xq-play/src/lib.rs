//! # xq-play: one game runner for self-play and evaluation
//!
//! - [`Player`]: anything that chooses moves, told the whole [`xq_core::Game`] (history
//!   included) and [`SearchLimits`] (depth, nodes, movetime, visits).
//! - [`play_game`]: plays one game from an [`Opening`]; xq-core is the arbiter. A player's
//!   illegal move, crash, hang or overtime is a recorded loss, never a panic.
//! - Baselines: [`RandomPlayer`], [`GreedyPlayer`], [`AlphaBetaPlayer`].
//! - [`MctsPlayer`]: xq-mcts's search over any evaluator at a fixed number of visits.
//! - External engines in subprocesses: [`Engine`] speaking UCI (Pikafish, Fairy-Stockfish)
//!   or UCCI (ElephantEye), and the other way round, any player served as an engine
//!   ([`EngineServer`], behind `xq engine`).
//!
//! ## A tree-search player
//! An MCTS player fits the same trait: [`Player::new_game`] hands it a per-game seed (noise,
//! temperature), [`Player::choose_move`] the whole game (for the 棋例 history and for tree reuse
//! after the opponent's reply, `game.moves()`) and [`SearchLimits::visits`]; it reports
//! [`Score::Value`] and the visit distribution in [`MoveChoice::policy`], which the record
//! keeps per move ([`MoveInfo::policy`]) as training targets. Games that share one batched
//! evaluator run on threads of their own, each player searching through a handle on it
//! (xq-mcts's `SharedEvaluator`; xq-eval's event runner does this).
//!
//! ```
//! use xq_core::{GameRules, Termination};
//! use xq_play::{AlphaBetaPlayer, GameOptions, Opening, RandomPlayer, SearchLimits, play_game};
//!
//! let mut red = AlphaBetaPlayer::with_depth(2);
//! let mut black = RandomPlayer::new(7);
//! let options = GameOptions { max_plies: Some(200), seed: 1, ..GameOptions::default() };
//! let record = play_game(&mut red, &mut black, &Opening::startpos(), GameRules::default(), &options);
//! assert_eq!(record.red, "alphabeta-d2");
//! assert!(record.plies() <= 200);
//! println!("{} after {} plies: {}", record.outcome.result.pgn(), record.plies(), record.outcome.reason);
//! ```

mod baseline;
mod book;
mod clock;
pub mod engine;
pub mod epd;
mod mcts;
mod opening;
mod player;
mod runner;

pub use baseline::{AlphaBetaConfig, AlphaBetaPlayer, GreedyPlayer, RandomPlayer};
pub use book::{BOOK_PATH, Book, BookEntry, BookError};
pub use clock::{Clock, Clocks, OutOfTime, RunningClock, TimeControl, TimeControlError};
pub use engine::{Coordinates, Engine, EngineConfig, EngineServer, Protocol, ServerConfig};
pub use mcts::MctsPlayer;
pub use opening::{Opening, OpeningError};
pub use player::{
    GameStart, MATE_CENTIPAWNS, MoveChoice, Player, PlayerError, Score, SearchLimits, StopSignal,
};
pub use runner::{
    DEFAULT_MAX_PLIES, DrawAdjudication, GameOptions, GameRecord, MoveInfo, ReplayError, ResignAdjudication,
    play_game,
};
/// Every game and player seed derives from a base seed and an index (xq-core's one seed module).
pub use xq_core::seed::derive_seed;
