//! Static evaluation for the baseline players: material plus piece-square tables.
//!
//! The tables follow the shape of the classic ElephantEye middlegame tables (in its units, a
//! rook is about 200 and a pawn before the river about 10), scaled by 5 so that numbers read
//! as centipawns: pawns gain much after crossing the river and most near the enemy palace,
//! horses want the centre and the enemy half, cannons the central file and their own back
//! ranks, rooks open files and the enemy's second rank, advisors and elephants their central
//! points. Every table is symmetric left–right.

use xq_core::{Color, Piece, PieceKind, Position, Square};

/// Scale from the table units to centipawns.
const SCALE: i32 = 5;

/// Red's view, written as the board is drawn: the first row is rank 9 (black's back rank),
/// the last row rank 0 (red's back rank).
type Table = [[i16; 9]; 10];

const KING: Table = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 1, 1, 1, 0, 0, 0],
    [0, 0, 0, 2, 2, 2, 0, 0, 0],
    [0, 0, 0, 11, 15, 11, 0, 0, 0],
];

const ADVISOR: Table = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 18, 0, 18, 0, 0, 0],
    [0, 0, 0, 0, 23, 0, 0, 0, 0],
    [0, 0, 0, 20, 0, 20, 0, 0, 0],
];

const ELEPHANT: Table = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 18, 0, 0, 0, 18, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [18, 0, 0, 0, 23, 0, 0, 0, 18],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 20, 0, 0, 0, 20, 0, 0],
];

const HORSE: Table = [
    [90, 90, 90, 96, 90, 96, 90, 90, 90],
    [90, 96, 103, 97, 94, 97, 103, 96, 90],
    [92, 98, 99, 103, 99, 103, 99, 98, 92],
    [93, 108, 100, 107, 100, 107, 100, 108, 93],
    [90, 100, 99, 103, 104, 103, 99, 100, 90],
    [90, 98, 101, 102, 103, 102, 101, 98, 90],
    [92, 94, 98, 95, 98, 95, 98, 94, 92],
    [93, 92, 94, 95, 92, 95, 94, 92, 93],
    [85, 90, 92, 93, 78, 93, 92, 90, 85],
    [88, 85, 90, 88, 90, 88, 90, 85, 88],
];

const ROOK: Table = [
    [206, 208, 207, 213, 214, 213, 207, 208, 206],
    [206, 212, 209, 216, 233, 216, 209, 212, 206],
    [206, 208, 207, 214, 216, 214, 207, 208, 206],
    [206, 213, 213, 216, 216, 216, 213, 213, 206],
    [208, 211, 211, 214, 215, 214, 211, 211, 208],
    [208, 212, 212, 214, 215, 214, 212, 212, 208],
    [204, 209, 204, 212, 214, 212, 204, 209, 204],
    [198, 208, 204, 212, 212, 212, 204, 208, 198],
    [200, 208, 206, 212, 200, 212, 206, 208, 200],
    [194, 206, 204, 212, 200, 212, 204, 206, 194],
];

const CANNON: Table = [
    [100, 100, 96, 91, 90, 91, 96, 100, 100],
    [98, 98, 96, 92, 89, 92, 96, 98, 98],
    [97, 97, 96, 91, 92, 91, 96, 97, 97],
    [96, 99, 99, 98, 100, 98, 99, 99, 96],
    [96, 96, 96, 96, 100, 96, 96, 96, 96],
    [95, 96, 99, 96, 100, 96, 99, 96, 95],
    [96, 96, 96, 96, 96, 96, 96, 96, 96],
    [97, 96, 100, 99, 101, 99, 100, 96, 97],
    [96, 97, 98, 98, 98, 98, 98, 97, 96],
    [96, 96, 97, 99, 99, 99, 97, 96, 96],
];

const PAWN: Table = [
    [9, 9, 9, 11, 13, 11, 9, 9, 9],
    [19, 24, 34, 42, 44, 42, 34, 24, 19],
    [19, 24, 32, 37, 37, 37, 32, 24, 19],
    [19, 23, 27, 29, 30, 29, 27, 23, 19],
    [14, 18, 20, 27, 29, 27, 20, 18, 14],
    [7, 0, 13, 0, 16, 0, 13, 0, 7],
    [7, 0, 7, 0, 15, 0, 7, 0, 7],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],
];

/// The base value of each kind for the piece-square tables above (the table already holds
/// the material for horses, rooks, cannons and pawns); the king's is 0 since it is never
/// captured.
const BASE: [i16; 7] = [0, 100, 100, 0, 0, 0, 0];

/// Nominal material values in centipawns, for move ordering and the greedy player:
/// king (never captured, large for ordering only), advisor, elephant, horse, rook, cannon, pawn.
pub(crate) const MATERIAL: [i32; 7] = [10_000, 110, 110, 480, 1_050, 490, 100];

const fn table(kind: PieceKind) -> &'static Table {
    match kind {
        PieceKind::King => &KING,
        PieceKind::Advisor => &ADVISOR,
        PieceKind::Elephant => &ELEPHANT,
        PieceKind::Horse => &HORSE,
        PieceKind::Rook => &ROOK,
        PieceKind::Cannon => &CANNON,
        PieceKind::Pawn => &PAWN,
    }
}

/// `SIGNED[code][square]`: the value of the piece with board code `code` on `square`, positive
/// for red pieces and negative for black ones (black reads red's table upside down).
pub(crate) static SIGNED: [[i32; 90]; 15] = {
    let mut out = [[0i32; 90]; 15];
    let mut code = 1;
    while code < 15 {
        let color_is_black = code > 7;
        let kind_index = (code - 1) % 7;
        let kind = match PieceKind::from_index(kind_index) {
            Some(kind) => kind,
            None => PieceKind::King,
        };
        let t = table(kind);
        let mut sq = 0;
        while sq < 90 {
            let (file, rank) = (sq % 9, sq / 9);
            // Row 0 of a table is rank 9 from red's side; black sees the board flipped.
            let row = if color_is_black { rank } else { 9 - rank };
            let value = (t[row][file] + BASE[kind_index]) as i32 * SCALE;
            out[code][sq] = if color_is_black { -value } else { value };
            sq += 1;
        }
        code += 1;
    }
    out
};

/// The evaluation from red's point of view (positive: red is better).
pub(crate) fn evaluate_red(pos: &Position) -> i32 {
    pos.board_codes().iter().enumerate().map(|(sq, &code)| SIGNED[code as usize][sq]).sum()
}

/// How a move changes [`evaluate_red`]: the mover's piece leaves `from` for `to`, and a
/// captured piece leaves the board.
#[inline]
pub(crate) fn delta_red(moving: u8, captured: u8, from: Square, to: Square) -> i32 {
    let m = &SIGNED[moving as usize];
    m[to.index()] - m[from.index()] - SIGNED[captured as usize][to.index()]
}

/// Material only (no placement) from `color`'s point of view, for the greedy player: the
/// nominal values, with a pawn that has crossed the river counted double.
pub(crate) fn material_for(pos: &Position, color: Color) -> i32 {
    pos.pieces()
        .map(|(sq, p): (Square, Piece)| {
            let v = match p.kind {
                PieceKind::King => 0,
                PieceKind::Pawn if !sq.on_own_side(p.color) => 2 * MATERIAL[PieceKind::Pawn.index()],
                kind => MATERIAL[kind.index()],
            };
            if p.color == color { v } else { -v }
        })
        .sum()
}
