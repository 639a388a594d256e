//! The shipped opening book replays legally and its stored FENs match (data/openings/openings.json).

use std::collections::BTreeSet;
use xq_play::Book;

const BOOK: &str = include_str!("../../../data/openings/openings.json");
#[test]
fn book_replays_and_fens_match() {
    let book = Book::from_json(BOOK).expect("the shipped book verifies");
    assert!(book.openings.len() >= 20, "only {} openings", book.openings.len());
    let mut lines = BTreeSet::new();
    for o in &book.openings {
        assert!((2..=6).contains(&o.moves.len()), "{}: {} plies", o.id, o.moves.len());
        assert!(!o.name_zh.is_empty() && !o.pinyin.is_empty() && !o.name_en.is_empty(), "{}", o.id);
        assert!(lines.insert(o.moves.clone()), "{}: same moves as another entry", o.id);
        assert_eq!(o.replay().unwrap().fen(), o.fen);
    }
}

#[test]
fn a_changed_fen_is_caught() {
    let tampered = BOOK.replacen("w - - 2 2\"", "w - - 3 2\"", 1);
    assert!(tampered != BOOK, "the pattern to tamper with is in the book");
    assert!(Book::from_json(&tampered).is_err());
}

#[test]
fn the_bundled_book_is_the_shipped_file() {
    assert_eq!(Book::bundled(), Book::from_json(BOOK).unwrap());
}
