//! FEN in and out.
//!
//! Ranks are listed from black's back rank (rank 9) to red's (rank 0); red pieces are
//! uppercase `K A B N R C P`, black lowercase; `H` (horse) and `E` (elephant) are accepted on
//! input. The side to move is `w` or `r` for red, `b` for black. The castling and en-passant
//! fields of chess FEN (`- -`) are accepted and ignored, and the two clocks are optional.

use crate::position::{Position, PositionError, Setup};
use crate::types::{Color, Piece, Square};
use thiserror::Error;

/// Why a FEN could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FenError {
    /// The string is empty.
    #[error("empty FEN")]
    Empty,
    /// The board field does not have ten ranks.
    #[error("FEN board has {0} ranks, expected 10")]
    WrongRankCount(usize),
    /// A rank does not describe exactly nine points.
    #[error("FEN rank {rank} describes {points} points, expected 9")]
    WrongRankLength {
        /// The rank (9 = first listed).
        rank: u8,
        /// How many points it described.
        points: usize,
    },
    /// A character that is neither a piece letter nor a digit 1–9.
    #[error("invalid character {0:?} in FEN board")]
    InvalidChar(char),
    /// The side-to-move field is not `w`, `r` or `b`.
    #[error("invalid side to move {0:?} (expected w, r or b)")]
    InvalidSide(String),
    /// A clock field is not a number.
    #[error("invalid {field} {value:?} in FEN")]
    InvalidNumber {
        /// Which field.
        field: &'static str,
        /// What was there.
        value: String,
    },
    /// Fields after the clocks.
    #[error("unexpected trailing FEN field {0:?}")]
    TrailingField(String),
    /// The board reads fine but is not a legal position.
    // Not marked as the error's source: the message already includes it, and error-chain
    // printers would otherwise say it twice.
    #[error("illegal position: {0}")]
    Position(PositionError),
}

impl From<PositionError> for FenError {
    fn from(e: PositionError) -> Self {
        FenError::Position(e)
    }
}

/// Reads a FEN into an unvalidated [`Setup`].
pub fn parse_setup(fen: &str) -> Result<Setup, FenError> {
    let mut fields = fen.split_ascii_whitespace();
    let board = fields.next().ok_or(FenError::Empty)?;
    let mut setup = Setup::empty();
    let rows: Vec<&str> = board.split('/').collect();
    if rows.len() != 10 {
        return Err(FenError::WrongRankCount(rows.len()));
    }
    for (i, row) in rows.iter().enumerate() {
        let rank = 9 - i as u8;
        let mut file = 0usize;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10).filter(|d| (1..=9).contains(d)) {
                file += d as usize;
            } else if let Some(piece) = Piece::from_fen_char(c) {
                if file < 9 {
                    setup.board[rank as usize * 9 + file] = Some(piece);
                }
                file += 1;
            } else {
                return Err(FenError::InvalidChar(c));
            }
            if file > 9 {
                break;
            }
        }
        if file != 9 {
            return Err(FenError::WrongRankLength { rank, points: file });
        }
    }
    setup.side_to_move = match fields.next() {
        None | Some("w" | "r" | "W" | "R") => Color::Red,
        Some("b" | "B") => Color::Black,
        Some(other) => return Err(FenError::InvalidSide(other.to_string())),
    };
    // Castling and en-passant placeholders, as Xiangqi FENs copy them from chess.
    let mut rest: Vec<&str> = fields.collect();
    while rest.first().is_some_and(|f| *f == "-") {
        rest.remove(0);
    }
    let mut numbers = rest.into_iter();
    if let Some(v) = numbers.next() {
        setup.halfmove_clock = v
            .parse()
            .map_err(|_| FenError::InvalidNumber { field: "halfmove clock", value: v.to_string() })?;
    }
    if let Some(v) = numbers.next() {
        setup.fullmove_number = v
            .parse()
            .map_err(|_| FenError::InvalidNumber { field: "fullmove number", value: v.to_string() })?;
    }
    if let Some(v) = numbers.next() {
        return Err(FenError::TrailingField(v.to_string()));
    }
    Ok(setup)
}

/// Writes the FEN of a position with the given clocks.
pub fn write_fen(pos: &Position, halfmove_clock: u32, fullmove_number: u32) -> String {
    let mut s = String::with_capacity(90);
    for rank in (0..10u8).rev() {
        let mut empty = 0;
        for file in 0..9u8 {
            let sq = Square::new(file, rank).expect("on board");
            match pos.piece_at(sq) {
                Some(p) => {
                    if empty > 0 {
                        s.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    s.push(p.fen_char());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            s.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s.push_str(match pos.side_to_move() {
        Color::Red => " w",
        Color::Black => " b",
    });
    s.push_str(&format!(" - - {halfmove_clock} {fullmove_number}"));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::START_FEN;

    #[test]
    fn start_fen_round_trips() {
        assert_eq!(Position::startpos().fen(), START_FEN);
    }

    #[test]
    fn accepts_variants() {
        let a = Position::from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r").unwrap();
        assert_eq!(a, Position::startpos());
        let s = parse_setup("4k4/9/9/9/9/9/9/9/9/4K4 b - - 12 30").unwrap();
        assert_eq!((s.side_to_move, s.halfmove_clock, s.fullmove_number), (Color::Black, 12, 30));
    }

    #[test]
    fn rejects_malformed() {
        assert_eq!(parse_setup(""), Err(FenError::Empty));
        assert!(matches!(parse_setup("9/9"), Err(FenError::WrongRankCount(2))));
        assert!(matches!(parse_setup("4k5/9/9/9/9/9/9/9/9/4K4"), Err(FenError::WrongRankLength { .. })));
        assert!(matches!(parse_setup("4k3/9/9/9/9/9/9/9/9/4K4"), Err(FenError::WrongRankLength { .. })));
        assert!(matches!(parse_setup("4x4/9/9/9/9/9/9/9/9/4K4"), Err(FenError::InvalidChar('x'))));
        assert!(matches!(parse_setup("4k4/9/9/9/9/9/9/9/9/4K4 x"), Err(FenError::InvalidSide(_))));
        assert!(matches!(
            parse_setup("4k4/9/9/9/9/9/9/9/9/4K4 w - - a"),
            Err(FenError::InvalidNumber { .. })
        ));
        assert!(matches!(parse_setup("40k4/9/9/9/9/9/9/9/9/4K4"), Err(FenError::InvalidChar('0'))));
    }
}
