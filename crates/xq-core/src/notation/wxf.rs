//! WXF notation: `C2=5`, `H8+7`, `R1+3`, `+R=4`.
//!
//! A move is a piece letter, the file it stands on (1–9 from the mover's right), an action
//! (`+` advance, `-` retreat, `=` traverse) and a number (steps for K R C P moving along the
//! file, otherwise the destination file); see [`super::descriptive`] for the shared rules.
//!
//! Piece letters: `K A B N R C P`; `E` (elephant) and `H` (horse) are accepted on input, in
//! either case. Full-width forms of these ASCII characters are accepted too, and `.` for `=`.
//!
//! Several pieces of one kind on one file (tandem pieces) are named by their place from the
//! mover's front instead of the file:
//!
//! | on the file | written (canonical) | also accepted |
//! |---|---|---|
//! | two | `+R=4` front, `-R+1` rear | `R+=4`, `R-+1` |
//! | three or more pawns | `1P=4` … `5P+1`, numbered from the front | `+P` (front), `-P` (rear) |
//! | two files each with several pawns | the file after the letter: `+P7=6`, `2P3+1` | |
//!
//! Advisors and elephants are always written with their file (`A6+5`, `B3-5`) even when two
//! stand on one file: they can only move in opposite directions, so the move is unique. A
//! tandem prefix is still accepted for them on input.

use super::descriptive::{Action, DescriptiveMove, Origin, ResolveError, Tandem};
use crate::position::Position;
use crate::types::{Move, PieceKind};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// WXF numbers tandem pieces from three on a file (two use `+`/`-`).
const NUMBERED_FROM: usize = 3;

/// A WXF move as written, not yet checked against a position.
///
/// ```
/// use xq_core::{Position, notation::WxfMove};
/// let pos = Position::startpos();
/// let m: WxfMove = "C2=5".parse().unwrap();
/// assert_eq!(m.to_move(&pos).unwrap().iccs(), "h2e2");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WxfMove(pub DescriptiveMove);

/// Why text is not a WXF move.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum WxfError {
    /// The text does not have the shape of a WXF move.
    #[error("malformed WXF move {text:?}: {why}")]
    Malformed {
        /// The text as given.
        text: String,
        /// What is wrong.
        why: &'static str,
    },
}

/// Maps a full-width ASCII form (`Ｃ２＝５`) to plain ASCII and upper-cases it.
fn normalize(c: char) -> char {
    let c = match u32::from(c) {
        code @ 0xFF01..=0xFF5E => char::from_u32(code - 0xFEE0).unwrap_or(c),
        _ => c,
    };
    c.to_ascii_uppercase()
}

fn digit(c: char) -> Option<u8> {
    c.to_digit(10).and_then(|d| u8::try_from(d).ok()).filter(|d| (1..=9).contains(d))
}

fn action(c: char) -> Option<Action> {
    match c {
        '+' => Some(Action::Advance),
        '-' => Some(Action::Retreat),
        '=' | '.' => Some(Action::Traverse),
        _ => None,
    }
}

fn tandem(c: char) -> Option<Tandem> {
    match c {
        '+' => Some(Tandem::Front),
        '-' => Some(Tandem::Rear),
        '1'..='5' => digit(c).map(Tandem::Nth),
        _ => None,
    }
}

fn kind(c: char) -> Option<PieceKind> {
    PieceKind::from_fen_char(c)
}

impl FromStr for WxfMove {
    type Err = WxfError;

    fn from_str(s: &str) -> Result<WxfMove, WxfError> {
        let bad = |why| WxfError::Malformed { text: s.to_string(), why };
        let c: Vec<char> = s.trim().chars().map(normalize).collect();
        // The last two characters are always the action and the number; what precedes them
        // names the piece in one of four shapes.
        let [head @ .., act, num] = c.as_slice() else { return Err(bad("too short")) };
        let action = action(*act).ok_or_else(|| bad("expected +, - or = before the number"))?;
        let number = digit(*num).ok_or_else(|| bad("expected a number 1-9 at the end"))?;
        let (kind, origin) = match head {
            [p, f] if kind(*p).is_some() && digit(*f).is_some() => (kind(*p), digit(*f).map(Origin::File)),
            [p, t @ ('+' | '-')] => (kind(*p), tandem(*t).map(|which| Origin::Tandem { which, file: None })),
            [t, p] => (kind(*p), tandem(*t).map(|which| Origin::Tandem { which, file: None })),
            [t, p, f] => (
                kind(*p),
                tandem(*t).zip(digit(*f)).map(|(which, f)| Origin::Tandem { which, file: Some(f) }),
            ),
            _ => return Err(bad("wrong length")),
        };
        let kind = kind.ok_or_else(|| bad("expected a piece letter K A B N R C P (or E, H)"))?;
        let origin = origin.ok_or_else(|| bad("expected a file 1-9 or a tandem mark (+, -, 1-5)"))?;
        Ok(WxfMove(DescriptiveMove { kind, origin, action, number }))
    }
}

impl fmt::Display for WxfMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.0;
        let letter = d.kind.fen_char();
        match d.origin {
            Origin::File(file) => write!(f, "{letter}{file}")?,
            Origin::Tandem { which, file } => {
                match which {
                    Tandem::Front => f.write_str("+")?,
                    Tandem::Rear => f.write_str("-")?,
                    Tandem::Middle => f.write_str("2")?,
                    Tandem::Nth(n) => write!(f, "{n}")?,
                }
                write!(f, "{letter}")?;
                if let Some(file) = file {
                    write!(f, "{file}")?;
                }
            }
        }
        let action = match d.action {
            Action::Advance => '+',
            Action::Retreat => '-',
            Action::Traverse => '=',
        };
        write!(f, "{action}{}", d.number)
    }
}

impl WxfMove {
    /// The canonical WXF description of `m` in `pos`, or `None` if no piece stands on its origin.
    pub fn describe(pos: &Position, m: Move) -> Option<WxfMove> {
        DescriptiveMove::describe(pos, m, NUMBERED_FROM).map(WxfMove)
    }

    /// The one legal move of the side to move in `pos` that this text names.
    pub fn to_move(&self, pos: &Position) -> Result<Move, ResolveError> {
        self.0.resolve(pos, || self.to_string())
    }
}

/// Writes `m` (a move of the piece on its origin, normally a legal move of `pos`) in canonical
/// WXF. If the origin is empty there is nothing to describe and the ICCS coordinates are
/// returned instead.
///
/// ```
/// use xq_core::{Position, notation::{wxf, parse_move}};
/// let pos = Position::startpos();
/// assert_eq!(wxf(&pos, parse_move(&pos, "h2e2").unwrap()), "C2=5");
/// ```
pub fn wxf(pos: &Position, m: Move) -> String {
    WxfMove::describe(pos, m).map_or_else(|| m.iccs(), |w| w.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(fen: &str, text: &str) -> Result<String, ResolveError> {
        let pos = Position::from_fen(fen).unwrap();
        text.parse::<WxfMove>().unwrap().to_move(&pos).map(|m| m.iccs())
    }

    fn write(fen: &str, iccs: &str) -> String {
        let pos = Position::from_fen(fen).unwrap();
        let m = iccs.parse::<super::super::IccsMove>().unwrap().to_move(&pos).unwrap();
        wxf(&pos, m)
    }

    #[test]
    fn opening_moves_both_sides() {
        let start = crate::START_FEN;
        assert_eq!(play(start, "C2=5").unwrap(), "h2e2");
        assert_eq!(play(start, "H2+3").unwrap(), "h0g2");
        assert_eq!(play(start, "R1+1").unwrap(), "i0i1");
        assert_eq!(play(start, "P7+1").unwrap(), "c3c4");
        assert_eq!(play(start, "E3+5").unwrap(), "g0e2");
        assert_eq!(play(start, "a4+5").unwrap(), "f0e1");
        assert_eq!(play(start, "ｃ２．５").unwrap(), "h2e2");
        let black = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1";
        // Black counts from its own right: file a is 1, file i is 9.
        assert_eq!(play(black, "H8+7").unwrap(), "h9g7");
        assert_eq!(play(black, "C8=5").unwrap(), "h7e7");
        assert_eq!(play(black, "R9+2").unwrap(), "i9i7");
        assert_eq!(play(black, "K5-1").unwrap_err(), ResolveError::NoMove("K5-1".into()));
        assert_eq!(write(black, "b9c7"), "N2+3");
        assert_eq!(write(black, "a6a5"), "P1+1");
        assert_eq!(write(start, "e0e1"), "K5+1");
    }

    #[test]
    fn tandem_rooks_and_horses() {
        // Red rooks on e4 and e1, black rooks on d9 and d5.
        let fen = "3k5/9/9/9/3r5/4R4/9/9/4R4/5K3 w - - 0 1";
        assert_eq!(write(fen, "e4c4"), "+R=7");
        assert_eq!(write(fen, "e1e3"), "-R+2");
        assert_eq!(play(fen, "+R=7").unwrap(), "e4c4");
        assert_eq!(play(fen, "R+=7").unwrap(), "e4c4");
        assert_eq!(play(fen, "R-+2").unwrap(), "e1e3");
        // The file form fits both rooks for a step sideways: ambiguous.
        assert!(matches!(play(fen, "R5=4"), Err(ResolveError::Ambiguous { .. })));
        // Black's front is towards red: the rook on d5 is in front of the one on d8.
        let fen = "3k5/3r5/9/9/3r5/9/9/9/9/4K4 b - - 0 1";
        assert_eq!(write(fen, "d5e5"), "+R=5");
        assert_eq!(write(fen, "d8e8"), "-R=5");
        assert_eq!(play(fen, "-R=5").unwrap(), "d8e8");
    }

    #[test]
    fn tandem_pawns_numbered() {
        // Three red pawns on file c (7), one on file g (3).
        let fen = "3k5/9/2P6/2P6/2P3P2/9/9/9/9/4K4 w - - 0 1";
        assert_eq!(write(fen, "c7b7"), "1P=8");
        assert_eq!(write(fen, "c6d6"), "2P=6");
        assert_eq!(write(fen, "c5b5"), "3P=8");
        assert_eq!(write(fen, "g5g6"), "P3+1");
        assert_eq!(play(fen, "+P=8").unwrap(), "c7b7");
        assert_eq!(play(fen, "-P=8").unwrap(), "c5b5");
        assert!(matches!(play(fen, "4P=8"), Err(ResolveError::NoMove(_))));
        // Two files with several pawns each: the file follows the letter.
        let fen = "3k5/9/2P3P2/2P3P2/9/9/9/9/9/4K4 w - - 0 1";
        assert_eq!(write(fen, "c7d7"), "+P7=6");
        assert_eq!(write(fen, "g6h6"), "-P3=2");
        assert_eq!(play(fen, "+P7=6").unwrap(), "c7d7");
        assert_eq!(play(fen, "-P3=2").unwrap(), "g6h6");
        assert!(matches!(play(fen, "+P+1"), Err(ResolveError::Ambiguous { .. })));
    }

    #[test]
    fn advisors_on_one_file_need_no_tandem_mark() {
        // Red advisors on d0 and d2, both on file 6.
        let fen = "3k5/9/9/9/9/9/9/3A5/9/3AK4 w - - 0 1";
        assert_eq!(write(fen, "d0e1"), "A6+5");
        assert_eq!(write(fen, "d2e1"), "A6-5");
        assert_eq!(play(fen, "A6+5").unwrap(), "d0e1");
        assert_eq!(play(fen, "A6-5").unwrap(), "d2e1");
        assert_eq!(play(fen, "-A+5").unwrap(), "d0e1");
    }

    #[test]
    fn malformed_text() {
        for bad in
            ["", "C", "C2=", "C2=0", "X2=5", "C0=5", "C2*5", "++C=5", "C22=5", "6P+1", "+P77+1", "炮二平五"]
        {
            assert!(matches!(bad.parse::<WxfMove>(), Err(WxfError::Malformed { .. })), "{bad}");
        }
    }
}
