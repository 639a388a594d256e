//! Piece values for deciding whether a capture or an exchange wins material (25.3).
//!
//! The rulebook gives relations, not numbers: a rook is worth two minor pieces (trading a
//! rook for horse + cannon is not a gain), horse = cannon, advisor = elephant, and giving
//! one piece for several weak pieces (advisors, elephants, pawns) is never a gain. The
//! numbers below encode exactly those relations: a minor (9) is worth more than any four
//! weak pieces (4 × 2), and a rook (18) is exactly two minors.

use crate::types::{Piece, PieceKind, Square};

/// Value of a rook: two minor pieces.
pub const ROOK: i32 = 18;
/// Value of a horse or a cannon.
pub const MINOR: i32 = 9;
/// Value of an advisor, an elephant or a pawn that has crossed the river.
pub const WEAK: i32 = 2;
/// Value of a pawn on its own side of the river (never a target of a chase).
pub const HOME_PAWN: i32 = 1;

/// The material value of `piece` standing on `square`. The king has no material value:
/// it can never be captured by a legal move, so exchanges never count it.
pub fn value(piece: Piece, square: Square) -> i32 {
    match piece.kind {
        PieceKind::Rook => ROOK,
        PieceKind::Horse | PieceKind::Cannon => MINOR,
        PieceKind::Advisor | PieceKind::Elephant => WEAK,
        PieceKind::Pawn if square.on_own_side(piece.color) => HOME_PAWN,
        PieceKind::Pawn => WEAK,
        PieceKind::King => 0,
    }
}

/// Whether `piece` on `square` is a piece with value that can be chased (25.3): never the
/// king, never a pawn that has not crossed the river.
pub fn chaseable(piece: Piece, square: Square) -> bool {
    match piece.kind {
        PieceKind::King => false,
        PieceKind::Pawn => !square.on_own_side(piece.color),
        _ => true,
    }
}
