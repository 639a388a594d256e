//! Encodings shared by both tables: moves as `u16`, colours as `u8`, and the compact board.
//! Names (terminations, results, rule sets, ICCS moves) are xq-core's own text forms
//! (`FromStr`/`Display`).

use xq_core::{Color, Move, Piece, Position, PositionError, Setup, Square};

/// Decodes a move stored as `u16` ([`Move::raw`]: origin square index in the low byte,
/// destination in the high byte, square index = `rank * 9 + file`). `None` when either square
/// is off the board.
///
/// ```
/// use xq_core::{Move, Square};
/// let m = Move::new(Square::parse("h2").unwrap(), Square::parse("e2").unwrap());
/// assert_eq!(xq_data::move_from_raw(m.raw()), Some(m));
/// assert_eq!(m.raw(), 25 | (22 << 8));
/// assert_eq!(xq_data::move_from_raw(90), None);
/// ```
pub fn move_from_raw(raw: u16) -> Option<Move> {
    let from = Square::from_index(usize::from(raw & 0xff))?;
    let to = Square::from_index(usize::from(raw >> 8))?;
    Some(Move::new(from, to))
}

/// The ICCS text (`h2e2`) of a move stored as `u16`, or `None` when the code is off the board.
pub fn raw_move_to_iccs(raw: u16) -> Option<String> {
    move_from_raw(raw).map(Move::iccs)
}

/// `0` for red, `1` for black: the `side_to_move` column.
pub const fn color_code(color: Color) -> u8 {
    color.index() as u8
}

/// Inverse of [`color_code`].
pub const fn color_from_code(code: u8) -> Option<Color> {
    match code {
        0 => Some(Color::Red),
        1 => Some(Color::Black),
        _ => None,
    }
}

/// The index of the first byte of a board that is not a piece code (0 empty, 1..=14 pieces).
pub(crate) fn invalid_board_byte(board: &[u8]) -> Option<usize> {
    board.iter().position(|&b| b > 14)
}

/// Rebuilds a validated position from the compact encoding (90 piece codes indexed by
/// `rank * 9 + file`, 0 empty, otherwise [`Piece::code`]) and the side to move.
pub fn position_from_board(
    board: &[u8; 90],
    side_to_move: Color,
    plies_since_capture: u32,
) -> Result<Position, PositionError> {
    let mut setup = Setup::empty();
    for (index, &code) in board.iter().enumerate() {
        setup.board[index] = Piece::from_code(code);
    }
    setup.side_to_move = side_to_move;
    setup.halfmove_clock = plies_since_capture;
    Position::from_setup(&setup)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_move_code_on_the_board_round_trips() {
        for from in Square::all() {
            for to in Square::all() {
                let m = Move::new(from, to);
                assert_eq!(move_from_raw(m.raw()), Some(m));
            }
        }
        assert_eq!(move_from_raw(90 << 8), None);
    }

    #[test]
    fn board_encoding_round_trips_the_start_position() {
        let start = Position::startpos();
        let pos = position_from_board(start.board_codes(), Color::Red, 0).unwrap();
        assert_eq!(pos.fen(), start.fen());
        assert_eq!(invalid_board_byte(start.board_codes()), None);
        assert_eq!(invalid_board_byte(&[0, 14, 15]), Some(2));
        assert_eq!(color_from_code(color_code(Color::Black)), Some(Color::Black));
    }
}
