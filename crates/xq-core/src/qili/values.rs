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

/// The value of `piece` on `square` when its own side gives it up to win something else
/// through checks (25.3: "过河兵(卒)价值浮动,一兵换取数子……不算得子" — a crossed pawn's value
/// floats; a pawn given for pieces is no gain). A crossed pawn given up counts as a minor
/// piece: sacrificing it to win a horse or a cannon wins nothing, to win a rook still
/// wins. 2020 figure 24 (the seeds' 图十二): 车一进四 threatens 兵七平六+ 将5平4 车一平四,
/// the horse for the pawn (idle); 车一退四 threatens 车一平五+ 车6平5 兵七平六+ 将5平4 车五进三,
/// the rook for the pawn (a chase). Where a crossed pawn is won it keeps its value as a
/// weak piece ([`value`]).
pub fn given_value(piece: Piece, square: Square) -> i32 {
    match piece.kind {
        PieceKind::Pawn
            if !square.on_own_side(piece.color)
                && super::readings::on(super::readings::PAWN_GIVEN_AS_MINOR) =>
        {
            MINOR
        }
        _ => value(piece, square),
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

/// Whether a piece of kind `a` and one of kind `b` are equal material, what an exchange
/// offer (兑) trades (28.5 "可与同等子力互换"): the same kind, or by 25.3's relations a horse
/// and a cannon ("马炮相等") or an advisor and an elephant ("士相(象)相等"). A pawn trades
/// evenly only with a pawn (25.3: its value floats).
pub fn equal_material(a: PieceKind, b: PieceKind) -> bool {
    use PieceKind::{Advisor, Cannon, Elephant, Horse};
    a == b
        || (super::readings::on(super::readings::EQUAL_MATERIAL_TRADE)
            && matches!(
                (a, b),
                (Horse, Cannon) | (Cannon, Horse) | (Advisor, Elephant) | (Elephant, Advisor)
            ))
}
