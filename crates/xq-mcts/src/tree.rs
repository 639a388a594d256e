//! The search tree: an arena of nodes, each node's children a contiguous index range.

use xq_core::{Move, Square};

/// A move that is never played: the root's incoming move.
const NO_MOVE: Move = {
    let Some(a0) = Square::new(0, 0) else { panic!("a0 is on the board") };
    Move::new(a0, a0)
};

/// Not yet reached by a simulation: no children, no evaluation.
pub(crate) const UNEXPANDED: u8 = 0;
/// Children allocated, evaluation requested and not yet applied.
pub(crate) const PENDING: u8 = 1;
/// Evaluated; children carry priors.
pub(crate) const EXPANDED: u8 = 2;
/// The game ends here; the side to move wins.
pub(crate) const TERMINAL_WIN: u8 = 3;
/// The game ends here in a draw.
pub(crate) const TERMINAL_DRAW: u8 = 4;
/// The game ends here; the side to move loses.
pub(crate) const TERMINAL_LOSS: u8 = 5;

/// One node: the edge that leads to it (move and prior) and the statistics of its subtree.
///
/// Statistics are kept from the point of view of the side that played `mv` (the parent's
/// side to move), so a parent maximises its children's values directly. The loss sum is
/// implied: `visits − win_sum − draw_sum`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    /// Sum of win probabilities backed up through this node.
    pub win_sum: f32,
    /// Sum of draw probabilities backed up through this node.
    pub draw_sum: f32,
    /// The parent's (normalised, possibly noised) prior for `mv`.
    pub prior: f32,
    /// The evaluator's value of this node for its own side to move (Gumbel's mixed value).
    pub raw_value: f32,
    /// Index of the first child.
    pub first_child: u32,
    /// Completed simulations through this node.
    pub visits: u32,
    /// Simulations through this node awaiting evaluation (virtual loss).
    pub in_flight: u16,
    /// The move from the parent.
    pub mv: Move,
    /// Number of children (legal moves), at most [`xq_core::MAX_MOVES`].
    pub n_children: u8,
    /// One of the state constants above.
    pub state: u8,
}

impl Node {
    pub(crate) const fn new(mv: Move) -> Node {
        Node {
            win_sum: 0.0,
            draw_sum: 0.0,
            prior: 0.0,
            raw_value: 0.0,
            first_child: 0,
            visits: 0,
            in_flight: 0,
            mv,
            n_children: 0,
            state: UNEXPANDED,
        }
    }

    /// Sum of values (win − loss) from the mover's point of view.
    #[inline]
    pub(crate) fn value_sum(&self) -> f32 {
        2.0 * self.win_sum + self.draw_sum - self.visits as f32
    }

    /// Mean value from the mover's point of view (`None` before the first visit).
    #[inline]
    pub(crate) fn q(&self) -> Option<f32> {
        if self.visits == 0 { None } else { Some(self.value_sum() / self.visits as f32) }
    }

    /// The children's index range.
    #[inline]
    pub(crate) fn children(&self) -> std::ops::Range<usize> {
        let first = self.first_child as usize;
        first..first + self.n_children as usize
    }
}

/// The arena. Node 0 is always the root.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tree {
    pub nodes: Vec<Node>,
    /// Second buffer for compaction on root change, kept to reuse its memory.
    spare: Vec<Node>,
}

/// Index of the root in the arena.
pub(crate) const ROOT: usize = 0;

impl Tree {
    /// A tree with a fresh, unexpanded root.
    pub(crate) fn new() -> Tree {
        let mut tree = Tree::default();
        tree.reset();
        tree
    }

    /// Drops every node but a fresh root.
    pub(crate) fn reset(&mut self) {
        self.nodes.clear();
        self.nodes.push(Node::new(NO_MOVE));
    }

    /// Appends children for `moves` under `parent`. Returns false when the arena's `u32`
    /// indices would overflow.
    #[inline]
    pub(crate) fn add_children(&mut self, parent: usize, moves: &[Move]) -> bool {
        let first = self.nodes.len();
        if first + moves.len() > u32::MAX as usize {
            return false;
        }
        self.nodes.extend(moves.iter().map(|&m| Node::new(m)));
        let p = &mut self.nodes[parent];
        p.first_child = first as u32;
        p.n_children = moves.len() as u8;
        true
    }

    /// Makes `child` (a child of the root) the new root, keeping its subtree and dropping
    /// the rest. Copies the subtree breadth-first into the spare buffer so that children
    /// stay contiguous and the arena holds no dead nodes.
    pub(crate) fn promote(&mut self, child: usize) {
        self.spare.clear();
        let mut root = self.nodes[child];
        root.prior = 1.0;
        self.spare.push(root);
        let mut i = 0;
        while i < self.spare.len() {
            let node = self.spare[i];
            if node.n_children > 0 {
                let first = self.spare.len();
                self.spare.extend_from_slice(&self.nodes[node.children()]);
                self.spare[i].first_child = first as u32;
            }
            i += 1;
        }
        std::mem::swap(&mut self.nodes, &mut self.spare);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promote_keeps_the_subtree_contiguous() {
        let moves = xq_core::Position::startpos().legal_moves();
        let mut tree = Tree::new();
        assert!(tree.add_children(ROOT, &moves[..3]));
        assert!(tree.add_children(2, &moves[3..5]));
        assert!(tree.add_children(4, &moves[5..6]));
        tree.nodes[2].visits = 7;
        tree.nodes[4].visits = 3;
        tree.promote(2);
        assert_eq!(tree.nodes.len(), 4);
        assert_eq!(tree.nodes[ROOT].visits, 7);
        assert_eq!(tree.nodes[ROOT].mv, moves[1]);
        let kids: Vec<Move> = tree.nodes[ROOT].children().map(|i| tree.nodes[i].mv).collect();
        assert_eq!(kids, moves[3..5].to_vec());
        let grandchild = tree.nodes[ROOT].children().next().unwrap();
        let g = tree.nodes[grandchild].children().next().unwrap();
        assert_eq!(tree.nodes[g].mv, moves[5]);
        assert_eq!(tree.nodes[grandchild].visits, 3);
    }
}
