//! The seeded opening order of an event; the book itself is xq-play's ([`xq_play::Book`]).

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// The order in which an event uses the book: a permutation of `0..count` drawn from a seed
/// (ChaCha8), cycled when the event needs more openings than the book has. Each slot is played
/// as a game pair (colours swapped) by the event.
///
/// ```
/// use xq_eval::openings::OpeningOrder;
/// let order = OpeningOrder::new(5, 42);
/// assert_eq!(order, OpeningOrder::new(5, 42)); // same seed, same order
/// let mut first: Vec<usize> = (0..5).map(|s| order.opening(s).unwrap()).collect();
/// first.sort();
/// assert_eq!(first, vec![0, 1, 2, 3, 4]);
/// assert_eq!(order.opening(5), order.opening(0));
/// assert_eq!(OpeningOrder::new(0, 42).opening(3), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningOrder {
    order: Vec<usize>,
}

impl OpeningOrder {
    /// A seeded permutation of `count` openings.
    pub fn new(count: usize, seed: u64) -> OpeningOrder {
        let mut order: Vec<usize> = (0..count).collect();
        order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        OpeningOrder { order }
    }

    /// The opening for a slot, or `None` for an empty book (start from the initial position).
    pub fn opening(&self, slot: usize) -> Option<usize> {
        if self.order.is_empty() { None } else { Some(self.order[slot % self.order.len()]) }
    }

    /// The permutation.
    pub fn as_slice(&self) -> &[usize] {
        &self.order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn different_seeds_differ() {
        assert_ne!(OpeningOrder::new(20, 1), OpeningOrder::new(20, 2));
    }
}
