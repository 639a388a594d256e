//! ICCS coordinates: `h2e2` (files a–i from red's left, ranks 0–9 from red's side).

use crate::position::Position;
use crate::types::{Move, Square};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// An ICCS move as written: two squares, not yet checked against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IccsMove {
    /// Origin.
    pub from: Square,
    /// Destination.
    pub to: Square,
}

/// Why ICCS text does not parse, or is not legal in a position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum IccsError {
    /// Not four characters `[a-i][0-9][a-i][0-9]` (a `-` between the squares is allowed).
    #[error("malformed ICCS move {0:?}")]
    Malformed(String),
    /// No piece of the side to move on the origin.
    #[error("no piece of the side to move on {0}")]
    NoPiece(Square),
    /// The piece cannot move there, or the move leaves its king attacked.
    #[error("{0} is not a legal move")]
    Illegal(IccsMove),
}

impl FromStr for IccsMove {
    type Err = IccsError;

    fn from_str(s: &str) -> Result<IccsMove, IccsError> {
        let malformed = || IccsError::Malformed(s.to_string());
        let lower = s.to_ascii_lowercase();
        let t = lower.replace('-', "");
        if !t.is_ascii() || t.len() != 4 {
            return Err(malformed());
        }
        let from = Square::parse(&t[0..2]).ok_or_else(malformed)?;
        let to = Square::parse(&t[2..4]).ok_or_else(malformed)?;
        Ok(IccsMove { from, to })
    }
}

impl fmt::Display for IccsMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

impl From<Move> for IccsMove {
    fn from(m: Move) -> Self {
        IccsMove { from: m.from(), to: m.to() }
    }
}

impl IccsMove {
    /// The legal move these coordinates name in `pos`.
    pub fn to_move(self, pos: &Position) -> Result<Move, IccsError> {
        match pos.piece_at(self.from) {
            Some(p) if p.color == pos.side_to_move() => {}
            _ => return Err(IccsError::NoPiece(self.from)),
        }
        let m = Move::new(self.from, self.to);
        if pos.is_legal(m) { Ok(m) } else { Err(IccsError::Illegal(self)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_check() {
        let pos = Position::startpos();
        assert_eq!("h2e2".parse::<IccsMove>().unwrap().to_move(&pos).unwrap().iccs(), "h2e2");
        assert_eq!("H2-E2".parse::<IccsMove>().unwrap().to_string(), "h2e2");
        assert!(matches!("h2e".parse::<IccsMove>(), Err(IccsError::Malformed(_))));
        assert!(matches!("j2e2".parse::<IccsMove>(), Err(IccsError::Malformed(_))));
        assert!(matches!("炮二平五".parse::<IccsMove>(), Err(IccsError::Malformed(_))));
        let e = "e5e6".parse::<IccsMove>().unwrap().to_move(&pos);
        assert!(matches!(e, Err(IccsError::NoPiece(_))));
        let e = "h2h7".parse::<IccsMove>().unwrap().to_move(&pos);
        assert!(matches!(e, Err(IccsError::Illegal(_))));
    }
}
