//! # xq-core: the rules of Xiangqi
//!
//! Typed vocabulary ([`Color`], [`PieceKind`], [`Piece`], [`Square`], [`Move`]), a validated
//! [`Position`] built from a [`Setup`] or FEN, allocation-free legal move generation with
//! make/unmake and incremental Zobrist hashing, notation (ICCS, WXF, Chinese), a [`Game`]
//! with history and outcomes, the 棋例 repetition judge ([`qili`]) and perft.
//!
//! This crate has no I/O and knows nothing about networks or files. With the `serde` feature
//! its types serialise in their text forms ([`text`]): configuration files, journals and data
//! sets use them directly.
//!
//! ```
//! use xq_core::{Position, perft::perft};
//! let start = Position::startpos();
//! assert_eq!(start.legal_moves().len(), 44);
//! assert_eq!(perft(&start, 3), 79_666);
//! ```

mod features;
mod fen;
mod game;
mod movelist;
pub mod notation;
mod outcome;
pub mod perft;
mod position;
pub mod qili;
pub mod seed;
#[cfg(feature = "serde")]
mod serde_impls;
mod tables;
pub mod text;
mod types;
mod zobrist;

pub use features::HistoryFeatures;
pub use fen::{FenError, parse_setup, write_fen};
pub use game::{
    Cycle, Game, GameRules, IllegalMove, RulesError, SPREAD_MAX_SQUARES, SPREAD_PLIES, insufficient_material,
};
pub use movelist::{MAX_MOVES, MoveList};
pub use outcome::{GameResult, Outcome, Termination};
pub use position::{Position, PositionError, START_FEN, Setup, Undo};
pub use qili::RuleSet;
pub use text::ParseError;
pub use types::{Color, Move, Piece, PieceKind, Square};
