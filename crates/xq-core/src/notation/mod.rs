//! Move notation: ICCS coordinates, WXF and Chinese.
//!
//! Each notation is a syntax type that parses without a position and becomes a [`Move`] only
//! against one, so a malformed string and an illegal move are different errors.

mod iccs;

pub use iccs::{IccsError, IccsMove};

use crate::position::Position;
use crate::types::Move;
use thiserror::Error;

/// Why a move in some notation could not be played.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum NotationError {
    /// The text is not a move in any supported notation.
    #[error("cannot parse move {0:?} (expected ICCS like h2e2, WXF like C2=5, or Chinese like 炮二平五)")]
    Unparsable(String),
    /// The text is a well-formed move but not a legal one here.
    #[error("illegal move {text:?} in {fen}: {why}")]
    Illegal {
        /// The text as given.
        text: String,
        /// The position.
        fen: String,
        /// What is wrong.
        why: String,
    },
}

/// Parses a move in any supported notation and checks it against the position.
///
/// ```
/// use xq_core::{Position, notation::parse_move};
/// let pos = Position::startpos();
/// assert_eq!(parse_move(&pos, "h2e2").unwrap().iccs(), "h2e2");
/// assert!(parse_move(&pos, "h2h7").is_err()); // no screen, no capture
/// ```
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let text = text.trim();
    if let Ok(iccs) = text.parse::<IccsMove>() {
        return iccs.to_move(pos).map_err(|why| NotationError::Illegal {
            text: text.to_string(),
            fen: pos.fen(),
            why: why.to_string(),
        });
    }
    Err(NotationError::Unparsable(text.to_string()))
}
