//! The structure WXF and Chinese notation share: *which piece*, *which way*, *how far or where*.
//!
//! Both notations name a move relative to the mover, never by absolute coordinates:
//!
//! * **files** are numbered 1–9 from the mover's own right (red: file `i` = 1 … `a` = 9;
//!   black: file `a` = 1 … `i` = 9);
//! * **advance** means towards the opponent, **retreat** towards the mover's own back rank,
//!   **traverse** along the rank;
//! * for pieces that move straight (king, rook, cannon, pawn) an advance or retreat is followed
//!   by the number of steps and a traverse by the destination file; pieces that move
//!   diagonally (advisor, elephant, horse) always give the destination file.
//!
//! The piece is named by its kind and the file it stands on ([`Origin::File`]). When two or
//! more pieces of one kind stand on one file the file no longer tells them apart, so the piece
//! is named by its place in that column counted from the mover's front ([`Origin::Tandem`]).
//! If the mover has two files that each hold several pawns, the pawn's file is given as well.
//! Advisors and elephants are the traditional exception: two of them on one file always move in
//! opposite directions (one can only advance, the other only retreat), so the file form
//! already names exactly one move and the writers never use the tandem form for them.
//!
//! [`DescriptiveMove`] is that structure. [`super::WxfMove`] and [`super::ChineseMove`] spell
//! it two ways; both resolve it against a position through [`DescriptiveMove::candidates`],
//! which keeps every legal move the description fits. A well-formed text therefore fails in
//! one of two ways ([`ResolveError`]): it fits no legal move, or it fits several.

use crate::position::Position;
use crate::types::{Color, Move, Piece, PieceKind, Square};
use thiserror::Error;

/// Which way a piece moves, seen from the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Towards the opponent (WXF `+`, 进).
    Advance,
    /// Towards the mover's own back rank (WXF `-`, 退).
    Retreat,
    /// Along the rank (WXF `=`, 平).
    Traverse,
}

/// One of several pieces of a kind standing on one file, counted from the mover's front
/// (for red the front is the higher rank, for black the lower).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tandem {
    /// The front piece (WXF `+`, 前).
    Front,
    /// The middle one of three (中; WXF writes `2`).
    Middle,
    /// The rear piece (WXF `-`, 后).
    Rear,
    /// The n-th piece from the front, 1-based (WXF `1`…`5`, 一…五).
    Nth(u8),
}

impl Tandem {
    /// The canonical name of the piece at `index` (0 = front) among `count` on a file.
    /// Counts from `numbered_from` up are numbered ([`Tandem::Nth`]); smaller ones use
    /// front/rear and, for three, middle.
    pub fn canonical(index: usize, count: usize, numbered_from: usize) -> Tandem {
        if count >= numbered_from {
            Tandem::Nth(index.saturating_add(1).min(usize::from(u8::MAX)) as u8)
        } else if index == 0 {
            Tandem::Front
        } else if index + 1 == count {
            Tandem::Rear
        } else {
            Tandem::Middle
        }
    }

    /// Whether this names the piece at `index` (0 = front) among `count` on a file.
    /// `Front` and `Rear` fit any count, `Middle` only the second of three.
    pub fn selects(self, index: usize, count: usize) -> bool {
        match self {
            Tandem::Front => index == 0,
            Tandem::Rear => index + 1 == count,
            Tandem::Middle => count == 3 && index == 1,
            Tandem::Nth(n) => index + 1 == usize::from(n),
        }
    }
}

/// How a description picks the moving piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The piece of the kind on this file (1–9 from the mover's right).
    File(u8),
    /// One of several pieces of the kind on one file.
    Tandem {
        /// Which one, from the front.
        which: Tandem,
        /// The file (1–9), given only for pawns when two files each hold several of them.
        file: Option<u8>,
    },
}

/// A move described relative to the mover: piece, origin, action and number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DescriptiveMove {
    /// The kind of the moving piece.
    pub kind: PieceKind,
    /// Which piece of that kind.
    pub origin: Origin,
    /// Which way it moves.
    pub action: Action,
    /// Steps (straight movers advancing or retreating) or destination file, 1–9.
    pub number: u8,
}

/// Why a well-formed WXF or Chinese move cannot be played in a position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ResolveError {
    /// No legal move of the side to move fits the text.
    #[error("{0} names no legal move here")]
    NoMove(String),
    /// Several legal moves fit the text.
    #[error("{text} is ambiguous here: it fits {}", list(.candidates))]
    Ambiguous {
        /// The text as written.
        text: String,
        /// Every legal move it fits.
        candidates: Vec<Move>,
    },
}

fn list(moves: &[Move]) -> String {
    moves.iter().map(|m| m.iccs()).collect::<Vec<_>>().join(", ")
}

/// The file number 1–9 of a square, counted from `color`'s right.
pub fn file_number(color: Color, sq: Square) -> u8 {
    match color {
        Color::Red => 9 - sq.file(),
        Color::Black => sq.file() + 1,
    }
}

/// How far towards the opponent a square lies for `color` (0 = own back rank).
fn depth(color: Color, sq: Square) -> u8 {
    match color {
        Color::Red => sq.rank(),
        Color::Black => 9 - sq.rank(),
    }
}

/// Whether a kind always moves diagonally, so that its number is always a destination file.
fn moves_diagonally(kind: PieceKind) -> bool {
    matches!(kind, PieceKind::Advisor | PieceKind::Elephant | PieceKind::Horse)
}

/// The action and number of `piece` going from `from` to `to`.
fn motion(piece: Piece, from: Square, to: Square) -> (Action, u8) {
    let (a, b) = (depth(piece.color, from), depth(piece.color, to));
    let action = match b.cmp(&a) {
        std::cmp::Ordering::Greater => Action::Advance,
        std::cmp::Ordering::Less => Action::Retreat,
        std::cmp::Ordering::Equal => Action::Traverse,
    };
    let number = if action == Action::Traverse || moves_diagonally(piece.kind) {
        file_number(piece.color, to)
    } else {
        a.abs_diff(b)
    };
    (action, number)
}

/// The squares on `file` (0–8) holding `piece`, front first as `piece.color` sees it.
fn column(pos: &Position, piece: Piece, file: u8) -> Vec<Square> {
    let mut squares: Vec<Square> = (0..10)
        .filter_map(|rank| Square::new(file, rank))
        .filter(|&sq| pos.piece_at(sq) == Some(piece))
        .collect();
    squares.sort_by_key(|&sq| std::cmp::Reverse(depth(piece.color, sq)));
    squares
}

/// How many files hold two or more of `piece`.
fn crowded_files(pos: &Position, piece: Piece) -> usize {
    (0..9).filter(|&file| column(pos, piece, file).len() >= 2).count()
}

impl DescriptiveMove {
    /// Describes `m` in `pos`, or `None` if its origin is empty.
    ///
    /// The description is canonical: advisors and elephants always by file, other pieces by
    /// file when alone on it, otherwise by [`Tandem::canonical`] with `numbered_from`
    /// (a notation's choice of where numbering starts), plus the file for pawns when two
    /// files each hold several pawns.
    pub fn describe(pos: &Position, m: Move, numbered_from: usize) -> Option<DescriptiveMove> {
        let piece = pos.piece_at(m.from())?;
        let (action, number) = motion(piece, m.from(), m.to());
        let from_file = file_number(piece.color, m.from());
        let origin = if matches!(piece.kind, PieceKind::Advisor | PieceKind::Elephant) {
            Origin::File(from_file)
        } else {
            let col = column(pos, piece, m.from().file());
            match col.iter().position(|&sq| sq == m.from()) {
                Some(index) if col.len() >= 2 => Origin::Tandem {
                    which: Tandem::canonical(index, col.len(), numbered_from),
                    file: (piece.kind == PieceKind::Pawn && crowded_files(pos, piece) > 1)
                        .then_some(from_file),
                },
                _ => Origin::File(from_file),
            }
        };
        Some(DescriptiveMove { kind: piece.kind, origin, action, number })
    }

    /// Whether this description fits the move `m` of the side to move in `pos` (legality is
    /// not checked here).
    pub fn fits(&self, pos: &Position, m: Move) -> bool {
        let piece = Piece::new(pos.side_to_move(), self.kind);
        if pos.piece_at(m.from()) != Some(piece)
            || motion(piece, m.from(), m.to()) != (self.action, self.number)
        {
            return false;
        }
        let from_file = file_number(piece.color, m.from());
        match self.origin {
            Origin::File(file) => file == from_file,
            Origin::Tandem { which, file } => {
                if file.is_some_and(|f| f != from_file) {
                    return false;
                }
                let col = column(pos, piece, m.from().file());
                col.len() >= 2
                    && col.iter().position(|&sq| sq == m.from()).is_some_and(|i| which.selects(i, col.len()))
            }
        }
    }

    /// Every legal move of the side to move in `pos` that this description fits.
    pub fn candidates(&self, pos: &Position) -> Vec<Move> {
        pos.legal_moves().iter().copied().filter(|&m| self.fits(pos, m)).collect()
    }

    /// The one legal move this description names; `text` is how it was written, for errors.
    pub(crate) fn resolve(&self, pos: &Position, text: impl Fn() -> String) -> Result<Move, ResolveError> {
        match self.candidates(pos).as_slice() {
            [] => Err(ResolveError::NoMove(text())),
            [m] => Ok(*m),
            many => Err(ResolveError::Ambiguous { text: text(), candidates: many.to_vec() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_tandem_names() {
        assert_eq!(Tandem::canonical(0, 2, 4), Tandem::Front);
        assert_eq!(Tandem::canonical(1, 2, 4), Tandem::Rear);
        assert_eq!(Tandem::canonical(1, 3, 4), Tandem::Middle);
        assert_eq!(Tandem::canonical(3, 4, 4), Tandem::Nth(4));
        assert_eq!(Tandem::canonical(1, 3, 3), Tandem::Nth(2));
        assert!(Tandem::Rear.selects(3, 4));
        assert!(!Tandem::Middle.selects(1, 4));
        assert!(Tandem::Nth(2).selects(1, 2));
    }

    #[test]
    fn file_numbers_from_the_movers_right() {
        let a0 = Square::parse("a0").unwrap();
        assert_eq!(file_number(Color::Red, a0), 9);
        assert_eq!(file_number(Color::Black, a0), 1);
    }
}
