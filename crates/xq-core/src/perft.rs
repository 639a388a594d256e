//! Perft: the number of leaf nodes of the legal move tree, the standard move-generator check.

use crate::movelist::MoveList;
use crate::position::Position;
use crate::types::Move;

/// Leaf count at `depth` (depth 0 is 1). The last ply is counted in bulk.
///
/// ```
/// use xq_core::{Position, perft::perft};
/// assert_eq!(perft(&Position::startpos(), 2), 1920);
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let mut scratch = *pos;
    perft_inner(&mut scratch, depth)
}

fn perft_inner(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut nodes = 0;
    for &m in list.iter() {
        let undo = pos.make(m);
        nodes += perft_inner(pos, depth - 1);
        pos.unmake(m, undo);
    }
    nodes
}

/// Leaf counts below each legal move at `depth` (≥ 1), in generation order.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    let depth = depth.max(1);
    pos.legal_moves().iter().map(|&m| (m, perft(&pos.after(m), depth - 1))).collect()
}
