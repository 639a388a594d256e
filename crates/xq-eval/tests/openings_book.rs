//! Events walk the opening book in a seeded permutation.

use xq_eval::openings::OpeningOrder;
use xq_play::Book;

#[test]
fn book_order_is_a_seeded_permutation() {
    let book = Book::bundled();
    let n = book.openings.len();
    let order = OpeningOrder::new(n, 2026);
    let mut seen: Vec<usize> = order.as_slice().to_vec();
    seen.sort_unstable();
    assert_eq!(seen, (0..n).collect::<Vec<_>>());
    assert_eq!(order, OpeningOrder::new(n, 2026));
}
