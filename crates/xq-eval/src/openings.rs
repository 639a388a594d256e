//! The opening book (`data/openings/openings.json`) and the seeded opening order of an event.
//!
//! Each entry is a short line (2–6 plies in ICCS) with its Chinese, pinyin and English names and
//! the FEN after the moves. [`Book::verify`] replays every line with xq-core and checks the
//! stored FEN; `cargo run -p xq-eval --example write_openings` recomputes the FENs.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::path::Path;
use thiserror::Error;
use xq_core::notation::parse_move;
use xq_core::{Game, GameRules, Position};

/// The book's path relative to the repository root.
pub const BOOK_PATH: &str = "data/openings/openings.json";

/// Why a book could not be loaded or does not verify.
#[derive(Debug, Error)]
pub enum OpeningError {
    /// The file could not be read.
    #[error("cannot read opening book {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The JSON is not a book.
    #[error("opening book is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A move does not parse or is illegal.
    #[error("opening {id}: move {ply} ({mv}): {why}")]
    IllegalMove {
        /// The opening's id.
        id: String,
        /// 1-based ply.
        ply: usize,
        /// The move text.
        mv: String,
        /// What is wrong.
        why: String,
    },
    /// The stored FEN differs from the position the moves reach.
    #[error("opening {id}: stored FEN {stored:?} but the moves reach {actual:?}")]
    FenMismatch {
        /// The opening's id.
        id: String,
        /// The FEN in the book.
        stored: String,
        /// The FEN after the moves.
        actual: String,
    },
    /// Two entries share an id.
    #[error("opening id {0} appears twice")]
    DuplicateId(String),
    /// An entry has no moves.
    #[error("opening {0} has no moves")]
    Empty(String),
    /// The game runner rejects a line.
    #[error("opening {id} cannot be played: {why}")]
    Unplayable {
        /// The opening's id.
        id: String,
        /// The runner's reason.
        why: String,
    },
}

/// One named opening.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Opening {
    /// Short ASCII id.
    pub id: String,
    /// Chinese name.
    pub name_zh: String,
    /// Pinyin of the Chinese name.
    pub pinyin: String,
    /// English name.
    pub name_en: String,
    /// Moves in ICCS.
    pub moves: Vec<String>,
    /// FEN after the moves, with clocks.
    pub fen: String,
}

impl Opening {
    /// Replays the moves from the initial position.
    pub fn replay(&self) -> Result<Game, OpeningError> {
        if self.moves.is_empty() {
            return Err(OpeningError::Empty(self.id.clone()));
        }
        let mut game = Game::new(Position::startpos(), GameRules::default());
        for (i, text) in self.moves.iter().enumerate() {
            let illegal = |why: String| OpeningError::IllegalMove {
                id: self.id.clone(),
                ply: i + 1,
                mv: text.clone(),
                why,
            };
            let m = parse_move(game.position(), text).map_err(|e| illegal(e.to_string()))?;
            game.play(m).map_err(|e| illegal(e.to_string()))?;
        }
        Ok(game)
    }
}

/// The opening book.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Book {
    /// The openings, in book order (indices are used by events and game records).
    pub openings: Vec<Opening>,
}

impl Book {
    /// Parses a book from JSON and verifies it.
    pub fn from_json(text: &str) -> Result<Book, OpeningError> {
        let book: Book = serde_json::from_str(text)?;
        book.verify()?;
        Ok(book)
    }

    /// Loads and verifies a book file.
    pub fn load(path: &Path) -> Result<Book, OpeningError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| OpeningError::Io { path: path.display().to_string(), source })?;
        Book::from_json(&text)
    }

    /// Checks ids are unique, every line replays legally and every stored FEN matches.
    pub fn verify(&self) -> Result<(), OpeningError> {
        let mut ids = std::collections::BTreeSet::new();
        for o in &self.openings {
            if !ids.insert(o.id.as_str()) {
                return Err(OpeningError::DuplicateId(o.id.clone()));
            }
            let actual = o.replay()?.fen();
            if actual != o.fen {
                return Err(OpeningError::FenMismatch { id: o.id.clone(), stored: o.fen.clone(), actual });
            }
        }
        Ok(())
    }

    /// Recomputes every FEN from the moves (for the book-writing tool).
    pub fn fill_fens(&mut self) -> Result<(), OpeningError> {
        for o in &mut self.openings {
            o.fen = o.replay()?.fen();
        }
        Ok(())
    }

    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> Result<String, OpeningError> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }

    /// The book's lines as openings the game runner plays from (named in Chinese).
    ///
    /// # Errors
    /// [`OpeningError::Unplayable`] for a line the runner rejects.
    pub fn playable(&self) -> Result<Vec<xq_play::Opening>, OpeningError> {
        self.openings
            .iter()
            .map(|o| {
                let moves: Vec<&str> = o.moves.iter().map(String::as_str).collect();
                xq_play::Opening::new(&o.name_zh, xq_core::START_FEN, &moves)
                    .map_err(|e| OpeningError::Unplayable { id: o.id.clone(), why: e.to_string() })
            })
            .collect()
    }

    /// The opening at an index.
    pub fn get(&self, index: usize) -> Option<&Opening> {
        self.openings.get(index)
    }
}

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

    fn opening(moves: &[&str], fen: &str) -> Opening {
        Opening {
            id: "t".into(),
            name_zh: "中炮".into(),
            pinyin: "zhong pao".into(),
            name_en: "Central Cannon".into(),
            moves: moves.iter().map(|s| s.to_string()).collect(),
            fen: fen.into(),
        }
    }

    #[test]
    fn verify_catches_errors() {
        let mut book = Book { openings: vec![opening(&["h2e2"], "")] };
        assert!(matches!(book.verify(), Err(OpeningError::FenMismatch { .. })));
        book.fill_fens().unwrap();
        book.verify().unwrap();
        let bad = Book { openings: vec![opening(&["a0a5"], "")] };
        assert!(matches!(bad.verify(), Err(OpeningError::IllegalMove { ply: 1, .. })));
        let bad = Book { openings: vec![opening(&["zz"], "")] };
        assert!(matches!(bad.verify(), Err(OpeningError::IllegalMove { .. })));
        let dup = Book { openings: vec![book.openings[0].clone(), book.openings[0].clone()] };
        assert!(matches!(dup.verify(), Err(OpeningError::DuplicateId(_))));
        assert!(matches!(Book::from_json("{\"openings\": 3}"), Err(OpeningError::Json(_))));
    }

    #[test]
    fn different_seeds_differ() {
        assert_ne!(OpeningOrder::new(20, 1), OpeningOrder::new(20, 2));
    }
}
