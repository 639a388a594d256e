//! The network's input: feature planes of a position seen from the side to move.
//!
//! Layout (version [`ENCODING_VERSION`], documented in `docs/MODEL.md`): [`INPUT_PLANES`] planes
//! of 10 rows × 9 columns, row-major, `planes[p][row][col]`. Row 0 is the mover's back rank and
//! column 0 the mover's left file *in red's orientation*: for red the board is as it is
//! (row = rank, col = file); for black it is rotated 180° ([`Square::flip`]), the same turn the
//! policy index uses, so the mover always plays up the board.
//!
//! | planes | content |
//! |---|---|
//! | 0–6 | the mover's pieces: king, advisor, elephant, horse, rook, cannon, pawn (1.0 where one stands) |
//! | 7–13 | the opponent's pieces, same order |
//! | 14 | all 1.0 if the current position occurred before in the game |
//! | 15 | all 1.0 if it occurred at least twice before |
//! | 16 | natural-limit clock: plies counted toward the move limit ÷ the limit, capped at 1 |
//! | 17 | all 1.0 if the mover is in check |
//! | 18 | all 1.0 (lets zero-padded convolutions find the board's edge) |
//! | 19 | the mover's control: how many of its pieces could capture on the point ([`Position::control`]), ½ per piece, capped at 1 |
//! | 20 | the opponent's control, the same |
//!
//! Version 2 added planes 19–20: with them a small network sees which pieces hang and which
//! are defended without rebuilding cannon screens and horse legs from the piece planes
//! (docs/results/ablations.md).

use ndarray::{Array4, ArrayViewMut4};
use xq_core::{Color, HistoryFeatures, PieceKind, Position, Square};

/// Version of the input layout and the policy index; stored in every checkpoint.
pub const ENCODING_VERSION: u32 = 2;
/// Board rows (ranks).
pub const BOARD_ROWS: usize = 10;
/// Board columns (files).
pub const BOARD_COLS: usize = 9;
/// Points per plane.
pub const PLANE_SIZE: usize = BOARD_ROWS * BOARD_COLS;
/// Number of input planes.
pub const INPUT_PLANES: usize = 21;
/// Floats in one encoded position.
pub const INPUT_SIZE: usize = INPUT_PLANES * PLANE_SIZE;

const PLANE_REPEATED_ONCE: usize = 14;
const PLANE_REPEATED_TWICE: usize = 15;
const PLANE_LIMIT_CLOCK: usize = 16;
const PLANE_IN_CHECK: usize = 17;
const PLANE_ONES: usize = 18;
const PLANE_MOVER_CONTROL: usize = 19;
const PLANE_OPPONENT_CONTROL: usize = 20;

/// The square of the board that lands on plane point `row * 9 + col` for `side`.
#[inline]
pub const fn oriented_square(square: Square, side: Color) -> Square {
    match side {
        Color::Red => square,
        Color::Black => square.flip(),
    }
}

/// Writes the planes of `position` (with `history`) into `out`, overwriting all of it.
///
/// Allocation-free: the caller owns the buffer (for a batch, see [`encode_batch_into`]).
pub fn encode_position(position: &Position, history: &HistoryFeatures, out: &mut [f32; INPUT_SIZE]) {
    let side = position.side_to_move();
    let (pieces, rest) = out.split_at_mut(14 * PLANE_SIZE);
    pieces.fill(0.0);
    for (index, &code) in position.board_codes().iter().enumerate() {
        let Some(piece) = xq_core::Piece::from_code(code) else { continue };
        let Some(square) = Square::from_index(index) else { continue };
        let owner = usize::from(piece.color != side);
        let plane = owner * 7 + piece.kind.index();
        pieces[plane * PLANE_SIZE + oriented_square(square, side).index()] = 1.0;
    }
    let constant = |plane: usize| (plane - 14) * PLANE_SIZE..(plane - 13) * PLANE_SIZE;
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    rest[constant(PLANE_REPEATED_ONCE)].fill(flag(history.earlier_occurrences >= 1));
    rest[constant(PLANE_REPEATED_TWICE)].fill(flag(history.earlier_occurrences >= 2));
    rest[constant(PLANE_LIMIT_CLOCK)].fill(history.limit_fraction());
    rest[constant(PLANE_IN_CHECK)].fill(flag(position.in_check()));
    rest[constant(PLANE_ONES)].fill(1.0);
    for (plane, color) in [(PLANE_MOVER_CONTROL, side), (PLANE_OPPONENT_CONTROL, side.opponent())] {
        let out = &mut rest[constant(plane)];
        for (index, &count) in position.control(color).iter().enumerate() {
            let Some(square) = Square::from_index(index) else { continue };
            out[oriented_square(square, side).index()] = f32::from(count.min(2)) * 0.5;
        }
    }
}

/// Encodes a batch into `out`, shaped `[batch, INPUT_PLANES, 10, 9]` (standard layout).
///
/// # Errors
/// [`EncodeError::BatchShape`] if `out` does not have that shape and layout.
pub fn encode_batch_into<'a>(
    items: impl ExactSizeIterator<Item = (&'a Position, HistoryFeatures)>,
    mut out: ArrayViewMut4<'_, f32>,
) -> Result<(), EncodeError> {
    let expected = [items.len(), INPUT_PLANES, BOARD_ROWS, BOARD_COLS];
    if out.shape() != expected {
        return Err(EncodeError::BatchShape { expected, found: out.shape().to_vec() });
    }
    let Some(flat) = out.as_slice_mut() else {
        return Err(EncodeError::NotContiguous);
    };
    let (chunks, _) = flat.as_chunks_mut::<INPUT_SIZE>();
    for ((position, history), chunk) in items.zip(chunks) {
        encode_position(position, &history, chunk);
    }
    Ok(())
}

/// Encodes a batch into a new array `[batch, INPUT_PLANES, 10, 9]`.
pub fn encode_batch<'a>(
    items: impl ExactSizeIterator<Item = (&'a Position, HistoryFeatures)>,
) -> Array4<f32> {
    let mut out = Array4::zeros((items.len(), INPUT_PLANES, BOARD_ROWS, BOARD_COLS));
    // A freshly allocated array is always contiguous in standard layout.
    if let Some(flat) = out.as_slice_mut() {
        let (chunks, _) = flat.as_chunks_mut::<INPUT_SIZE>();
        for ((position, history), chunk) in items.zip(chunks) {
            encode_position(position, &history, chunk);
        }
    }
    out
}

/// Mirrors encoded planes left–right in place (column `c` ↔ `8 − c`): the encoding of the
/// mirrored position, since mirroring commutes with the 180° turn used for black.
pub fn mirror_planes(planes: &mut [f32; INPUT_SIZE]) {
    for row in planes.chunks_exact_mut(BOARD_COLS) {
        row.reverse();
    }
}

/// The piece kind of plane `plane` and whether it is the mover's, for planes 0–13.
pub fn piece_plane(plane: usize) -> Option<(bool, PieceKind)> {
    if plane >= 14 {
        return None;
    }
    Some((plane < 7, PieceKind::from_index(plane % 7)?))
}

/// A batch buffer of the wrong shape.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EncodeError {
    /// The output array's shape does not match the batch.
    #[error("batch buffer has shape {found:?}, expected {expected:?}")]
    BatchShape {
        /// `[batch, planes, rows, cols]` wanted.
        expected: [usize; 4],
        /// The buffer's shape.
        found: Vec<usize>,
    },
    /// The output array is not in standard (row-major, contiguous) layout.
    #[error("batch buffer is not contiguous in standard layout")]
    NotContiguous,
}
