//! Move notation: ICCS coordinates, WXF and Chinese.
//!
//! Each notation is a syntax type that parses without a position and becomes a [`Move`] only
//! against one, so a malformed string and an illegal move are different errors.
//!
//! * [`IccsMove`]: coordinates, `h2e2`.
//! * [`WxfMove`]: `C2=5`, `+R=4`; written by [`wxf()`].
//! * [`ChineseMove`]: 炮二平五, 马8进7, 前车平四; written by [`chinese()`].
//!
//! WXF and Chinese share one structure, [`DescriptiveMove`] (piece, origin, action, number;
//! see [`descriptive`] for the rules they share, including tandem pieces), and differ only in
//! spelling. [`parse_move`] accepts any of the three.
//!
//! ```
//! use xq_core::{Position, notation::{chinese, parse_move, wxf}};
//! let pos = Position::startpos();
//! let m = parse_move(&pos, "炮二平五").unwrap();
//! assert_eq!((m.iccs(), wxf(&pos, m), chinese(&pos, m)), ("h2e2".into(), "C2=5".into(), "炮二平五".into()));
//! ```

mod chinese;
pub mod descriptive;
mod iccs;
mod wxf;

pub use chinese::{ChineseError, ChineseMove, chinese};
pub use descriptive::{Action, DescriptiveMove, Origin, ResolveError, Tandem};
pub use iccs::{IccsError, IccsMove};
pub use wxf::{WxfError, WxfMove, wxf};

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

/// Parses a move in any supported notation (ICCS, WXF or Chinese, tried in that order; no text
/// is valid in two of them) and checks it against the position. A text that fits several
/// legal moves is [`NotationError::Illegal`] too, with the candidates in `why`.
///
/// ```
/// use xq_core::{Position, notation::parse_move};
/// let pos = Position::startpos();
/// assert_eq!(parse_move(&pos, "h2e2").unwrap().iccs(), "h2e2");
/// assert_eq!(parse_move(&pos, "C2=5").unwrap().iccs(), "h2e2");
/// assert_eq!(parse_move(&pos, "炮二平五").unwrap().iccs(), "h2e2");
/// assert!(parse_move(&pos, "h2h7").is_err()); // no screen, no capture
/// ```
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let text = text.trim();
    let illegal = |why: String| NotationError::Illegal { text: text.to_string(), fen: pos.fen(), why };
    if let Ok(iccs) = text.parse::<IccsMove>() {
        return iccs.to_move(pos).map_err(|why| illegal(why.to_string()));
    }
    if let Ok(wxf) = text.parse::<WxfMove>() {
        return wxf.to_move(pos).map_err(|why| illegal(why.to_string()));
    }
    if let Ok(chinese) = text.parse::<ChineseMove>() {
        return chinese.to_move(pos).map_err(|why| illegal(why.to_string()));
    }
    Err(NotationError::Unparsable(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_move_tells_unparsable_from_illegal() {
        let pos = Position::startpos();
        for text in ["h2e2", "C2=5", "c2.5", "炮二平五", "砲２平５", " +C=5 "] {
            let m = parse_move(&pos, text);
            // `+C=5` names a tandem cannon the start position does not have.
            if text.trim() == "+C=5" {
                assert!(matches!(m, Err(NotationError::Illegal { .. })), "{text}");
            } else {
                assert_eq!(m.unwrap().iccs(), "h2e2", "{text}");
            }
        }
        for text in ["", "h2", "C2=0", "炮二平", "xyz", "前前前前"] {
            assert!(matches!(parse_move(&pos, text), Err(NotationError::Unparsable(_))), "{text}");
        }
        for text in ["h2h7", "C2+9", "炮二进九", "P5=4"] {
            assert!(matches!(parse_move(&pos, text), Err(NotationError::Illegal { .. })), "{text}");
        }
    }
}
