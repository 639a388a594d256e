//! The policy index: a fixed numbering of every move that can ever be legal, seen from the side
//! to move.
//!
//! Moves are numbered in the side to move's frame (see [`crate::encoding`]): red's moves as they
//! are, black's moves rotated 180° ([`Move::flip`]), so that the mover always plays "up" from
//! ranks 0–4. In that frame a move is in the index when its from→to pair is one of
//!
//! - a rook/cannon line: same rank or same file, any distance (this also covers every king step
//!   and every pawn step),
//! - a horse jump (two along one axis, one along the other), from any point,
//! - an elephant step between two of the mover's seven elephant points,
//! - an advisor step between the palace centre and a palace corner of the mover's palace.
//!
//! Entries are sorted by `(from, to)` square index, which makes the numbering independent of how
//! the table is built. Left–right mirroring maps the set onto itself ([`mirror_index`]).
//!
//! ```
//! use xq_core::{Color, Move, Square};
//! use xq_nn::policy::{policy_index, policy_move, POLICY_SIZE};
//! let m = Move::new(Square::parse("h2").unwrap(), Square::parse("e2").unwrap());
//! let i = policy_index(m, Color::Red).unwrap();
//! assert!(i < POLICY_SIZE);
//! assert_eq!(policy_move(i, Color::Red), Some(m));
//! // Black's move is numbered as the same move rotated into red's frame.
//! assert_eq!(policy_index(m.flip(), Color::Black), Some(i));
//! ```

use xq_core::{Color, Move, Square};

const NONE: u16 = u16::MAX;

/// Whether `from → to` (square indices, mover's frame) can ever be a legal move.
const fn is_indexed(from: usize, to: usize) -> bool {
    if from == to {
        return false;
    }
    let (ff, fr) = ((from % 9) as i32, (from / 9) as i32);
    let (tf, tr) = ((to % 9) as i32, (to / 9) as i32);
    let df = tf - ff;
    let dr = tr - fr;
    // Rook and cannon lines; king and pawn steps are among them.
    if df == 0 || dr == 0 {
        return true;
    }
    let (adf, adr) = (df.abs(), dr.abs());
    // Horse jumps.
    if (adf == 1 && adr == 2) || (adf == 2 && adr == 1) {
        return true;
    }
    // Elephant steps between its seven points on the mover's half.
    if adf == 2 && adr == 2 {
        return is_elephant_point(ff, fr) && is_elephant_point(tf, tr);
    }
    // Advisor steps inside the mover's palace: centre e1 to a corner and back.
    if adf == 1 && adr == 1 {
        return is_advisor_point(ff, fr)
            && is_advisor_point(tf, tr)
            && ((ff == 4 && fr == 1) || (tf == 4 && tr == 1));
    }
    false
}

const fn is_elephant_point(file: i32, rank: i32) -> bool {
    matches!((file, rank), (2 | 6, 0) | (0 | 4 | 8, 2) | (2 | 6, 4))
}

const fn is_advisor_point(file: i32, rank: i32) -> bool {
    file >= 3 && file <= 5 && rank <= 2 && (file + rank) % 2 == 1
}

const fn count_indexed() -> usize {
    let mut n = 0;
    let mut from = 0;
    while from < 90 {
        let mut to = 0;
        while to < 90 {
            if is_indexed(from, to) {
                n += 1;
            }
            to += 1;
        }
        from += 1;
    }
    n
}

/// Number of entries in the policy index (the width of the policy head).
pub const POLICY_SIZE: usize = count_indexed();

/// `INDEX_OF[from * 90 + to]`: the index of the move, or `NONE`.
static INDEX_OF: [u16; 90 * 90] = build_index_of();
/// `MOVES[i]`: `(from, to)` square indices of entry `i`, mover's frame.
static MOVES: [(u8, u8); POLICY_SIZE] = build_moves();
/// `MIRROR[i]`: the index of entry `i` mirrored left–right.
static MIRROR: [u16; POLICY_SIZE] = build_mirror();

const fn build_index_of() -> [u16; 90 * 90] {
    let mut table = [NONE; 90 * 90];
    let mut n = 0u16;
    let mut from = 0;
    while from < 90 {
        let mut to = 0;
        while to < 90 {
            if is_indexed(from, to) {
                table[from * 90 + to] = n;
                n += 1;
            }
            to += 1;
        }
        from += 1;
    }
    table
}

const fn build_moves() -> [(u8, u8); POLICY_SIZE] {
    let mut moves = [(0u8, 0u8); POLICY_SIZE];
    let mut n = 0;
    let mut from = 0;
    while from < 90 {
        let mut to = 0;
        while to < 90 {
            if is_indexed(from, to) {
                moves[n] = (from as u8, to as u8);
                n += 1;
            }
            to += 1;
        }
        from += 1;
    }
    moves
}

const fn mirror_square(sq: usize) -> usize {
    (sq / 9) * 9 + (8 - sq % 9)
}

const fn build_mirror() -> [u16; POLICY_SIZE] {
    let index_of = build_index_of();
    let moves = build_moves();
    let mut mirror = [NONE; POLICY_SIZE];
    let mut i = 0;
    while i < POLICY_SIZE {
        let (from, to) = moves[i];
        let m = index_of[mirror_square(from as usize) * 90 + mirror_square(to as usize)];
        // The geometry above is symmetric in files, so every entry has a mirror image; a broken
        // symmetry fails the build here rather than at run time.
        assert!(m != NONE, "policy index is not closed under mirroring");
        mirror[i] = m;
        i += 1;
    }
    mirror
}

/// The move in the mover's frame: unchanged for red, rotated 180° for black.
#[inline]
pub const fn to_mover_frame(mv: Move, side: Color) -> Move {
    match side {
        Color::Red => mv,
        Color::Black => mv.flip(),
    }
}

/// The policy index of `mv` played by `side`, or `None` if no legal move has that geometry.
#[inline]
pub fn policy_index(mv: Move, side: Color) -> Option<usize> {
    let m = to_mover_frame(mv, side);
    let i = INDEX_OF[m.from().index() * 90 + m.to().index()];
    (i != NONE).then_some(i as usize)
}

/// The move of entry `index` when `side` is to move, or `None` if `index ≥ POLICY_SIZE`.
#[inline]
pub fn policy_move(index: usize, side: Color) -> Option<Move> {
    let &(from, to) = MOVES.get(index)?;
    let m = Move::new(Square::from_index(from as usize)?, Square::from_index(to as usize)?);
    Some(to_mover_frame(m, side))
}

/// The index of entry `index` mirrored left–right, or `None` if `index ≥ POLICY_SIZE`.
///
/// Mirroring commutes with the 180° turn used for black, so for either side
/// `policy_index(mv.mirror(), side) == mirror_index(policy_index(mv, side))`.
#[inline]
pub fn mirror_index(index: usize) -> Option<usize> {
    MIRROR.get(index).map(|&m| m as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_is_the_sum_of_the_move_families() {
        // 90 points × (8 along the rank + 9 along the file) lines, the horse jumps that stay on
        // the board, 16 elephant steps and 8 advisor steps.
        let mut horse = 0;
        for sq in 0..90i32 {
            let (f, r) = (sq % 9, sq / 9);
            for (df, dr) in [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)] {
                if (0..9).contains(&(f + df)) && (0..10).contains(&(r + dr)) {
                    horse += 1;
                }
            }
        }
        assert_eq!(POLICY_SIZE, 90 * 17 + horse + 16 + 8);
    }

    #[test]
    fn index_and_move_round_trip_for_both_sides() {
        for side in Color::ALL {
            for i in 0..POLICY_SIZE {
                let m = policy_move(i, side).unwrap();
                assert_eq!(policy_index(m, side), Some(i));
            }
        }
        assert_eq!(policy_move(POLICY_SIZE, Color::Red), None);
    }

    #[test]
    fn mirror_is_an_involution_consistent_with_moves() {
        for side in Color::ALL {
            for i in 0..POLICY_SIZE {
                let j = mirror_index(i).unwrap();
                assert_eq!(mirror_index(j), Some(i));
                let m = policy_move(i, side).unwrap();
                assert_eq!(policy_index(m.mirror(), side), Some(j));
            }
        }
        assert_eq!(mirror_index(POLICY_SIZE), None);
    }

    #[test]
    fn impossible_geometry_is_not_indexed() {
        let sq = |s: &str| Square::parse(s).unwrap();
        // A knight-less diagonal, an elephant step across the river, an advisor step outside.
        assert_eq!(policy_index(Move::new(sq("a0"), sq("c2")), Color::Red), None);
        assert_eq!(policy_index(Move::new(sq("c4"), sq("e6")), Color::Red), None);
        assert_eq!(policy_index(Move::new(sq("d7"), sq("e8")), Color::Red), None);
        // The same advisor step is black's own palace, so it is indexed for black.
        assert!(policy_index(Move::new(sq("d7"), sq("e8")), Color::Black).is_some());
    }
}
