//! The opening book (`data/openings/openings.json`): the one opening type of self-play and
//! events.
//!
//! Each entry is a short line (2–6 plies in ICCS) with its Chinese, pinyin and English names and
//! the FEN after the moves; an entry may also start from a position of its own (`start_fen`),
//! with or without moves, for endgame and position suites. [`Book::verify`] replays every line
//! with xq-core and checks the stored FEN; `cargo run -p xq-play --example write_openings`
//! recomputes the FENs. Games name their opening by the entry's `id`.
//!
//! A position suite is a book too: [`Book::load`] reads a `.fen` or `.epd` file (one position
//! a line, EPD operations such as `id "name";` allowed) into entries that start from those
//! positions, so endgame tests and opening suites run in every event format, in self-play and
//! in the loop.

use crate::epd::EpdRecord;
use crate::opening::Opening;
use serde::{Deserialize, Serialize};
use std::path::Path;
use thiserror::Error;
use xq_core::notation::parse_move;
use xq_core::{Game, GameRules, Position, START_FEN};

/// The book shipped with the repository (`data/openings/openings.json`), built in.
const BUNDLED_BOOK: &str = include_str!("../../../data/openings/openings.json");

/// The book's path relative to the repository root.
pub const BOOK_PATH: &str = "data/openings/openings.json";

/// Why a book could not be loaded or does not verify.
#[derive(Debug, Error)]
pub enum BookError {
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
    /// An entry has neither moves nor a position of its own.
    #[error("opening {0} has no moves, no start_fen and no fen")]
    Empty(String),
    /// A line of a position suite is not a position.
    #[error("position suite line {line}: {why}")]
    SuiteLine {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// A position suite has no position.
    #[error("position suite {0} has no positions")]
    EmptySuite(String),
    /// An entry's start position is not a legal position.
    #[error("opening {id}: bad start_fen: {source}")]
    StartFen {
        /// The opening's id.
        id: String,
        /// What is wrong with it.
        source: xq_core::FenError,
    },
    /// The game runner rejects a line.
    #[error("opening {id} cannot be played: {why}")]
    Unplayable {
        /// The opening's id.
        id: String,
        /// The runner's reason.
        why: String,
    },
}

/// One named line of the book.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BookEntry {
    /// Short ASCII id.
    pub id: String,
    /// Chinese name.
    pub name_zh: String,
    /// Pinyin of the Chinese name.
    pub pinyin: String,
    /// English name.
    pub name_en: String,
    /// The position the line starts from, with clocks; the initial position when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_fen: Option<String>,
    /// Moves in ICCS (may be empty when `start_fen` is given).
    #[serde(default)]
    pub moves: Vec<String>,
    /// FEN after the moves, with clocks.
    pub fen: String,
}

impl BookEntry {
    /// The start FEN: the entry's `start_fen`; else, for an entry without moves, its `fen` (a
    /// position to play from); else the initial position.
    pub fn start(&self) -> &str {
        match (&self.start_fen, self.moves.is_empty()) {
            (Some(start), _) => start,
            (None, true) if !self.fen.is_empty() => &self.fen,
            (None, _) => START_FEN,
        }
    }

    /// Replays the moves from the start position.
    pub fn replay(&self) -> Result<Game, BookError> {
        if self.moves.is_empty() && self.start_fen.is_none() && self.fen.is_empty() {
            return Err(BookError::Empty(self.id.clone()));
        }
        let start = self.start();
        let mut game = if start == START_FEN {
            Game::new(Position::startpos(), GameRules::default())
        } else {
            Game::from_fen(start, GameRules::default())
                .map_err(|source| BookError::StartFen { id: self.id.clone(), source })?
        };
        for (i, text) in self.moves.iter().enumerate() {
            let illegal = |why: String| BookError::IllegalMove {
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
    pub openings: Vec<BookEntry>,
}

impl Book {
    /// Parses a book from JSON and verifies it.
    pub fn from_json(text: &str) -> Result<Book, BookError> {
        let book: Book = serde_json::from_str(text)?;
        book.verify()?;
        Ok(book)
    }

    /// The book shipped with xq (27 named openings).
    pub fn bundled() -> Book {
        Book::from_json(BUNDLED_BOOK).expect("the bundled book verifies (tested)")
    }

    /// The playable openings of the book file a config names: none (games start from the
    /// initial position) for an empty path.
    ///
    /// # Errors
    /// As [`Book::load`] and [`Book::playable`].
    pub fn openings_at(path: &str) -> Result<Vec<Opening>, BookError> {
        if path.is_empty() {
            return Ok(Vec::new());
        }
        Book::load(Path::new(path))?.playable()
    }

    /// Loads and verifies a book file: a position suite ([`Book::from_positions`]) when its
    /// name ends in `.epd` or `.fen`, else a JSON book.
    pub fn load(path: &Path) -> Result<Book, BookError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| BookError::Io { path: path.display().to_string(), source })?;
        let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("epd" | "fen") => {
                let book = Book::from_positions(&text)?;
                if book.openings.is_empty() {
                    return Err(BookError::EmptySuite(path.display().to_string()));
                }
                Ok(book)
            }
            _ => Book::from_json(&text),
        }
    }

    /// A position suite: one position a line as FEN (`board side [- - [halfmove fullmove]]`)
    /// or EPD (`board side - -` then operations), blank lines and `#` comments skipped. Each
    /// position becomes an entry without moves, named by its EPD `id` operation, else
    /// `pos-<line>`; the move clocks default to `0 1`.
    ///
    /// ```
    /// use xq_play::Book;
    ///
    /// let suite = "# two endgames\n\
    ///     3k5/9/9/9/9/9/9/9/9/R3K4 w - - id \"rook-wins\"; bm a0a9;\n\
    ///     3k5/9/9/9/9/9/9/9/3p5/4K4 b - - 0 1\n";
    /// let book = Book::from_positions(suite).unwrap();
    /// assert_eq!(book.openings[0].id, "rook-wins");
    /// assert_eq!(book.openings[1].id, "pos-3");
    /// assert_eq!(book.openings[0].start(), "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1");
    /// assert!(Book::from_positions("3k5/9 w - -\n").is_err());
    /// ```
    pub fn from_positions(text: &str) -> Result<Book, BookError> {
        let mut openings = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |why: String| BookError::SuiteLine { line: index + 1, why };
            let record = EpdRecord::parse(line).map_err(|e| bad(e.to_string()))?;
            let game = Game::from_fen(&record.fen, GameRules::default()).map_err(|e| bad(e.to_string()))?;
            let id = record.id().map_or_else(|| format!("pos-{}", index + 1), str::to_string);
            let fen = record.fen;
            openings.push(BookEntry {
                id,
                name_zh: String::new(),
                pinyin: String::new(),
                name_en: String::new(),
                start_fen: Some(fen),
                moves: Vec::new(),
                fen: game.fen(),
            });
        }
        let book = Book { openings };
        book.verify()?;
        Ok(book)
    }

    /// Checks ids are unique, every line replays legally and every stored FEN matches.
    pub fn verify(&self) -> Result<(), BookError> {
        let mut ids = std::collections::BTreeSet::new();
        for o in &self.openings {
            if !ids.insert(o.id.as_str()) {
                return Err(BookError::DuplicateId(o.id.clone()));
            }
            let actual = o.replay()?.fen();
            if actual != o.fen {
                return Err(BookError::FenMismatch { id: o.id.clone(), stored: o.fen.clone(), actual });
            }
        }
        Ok(())
    }

    /// Recomputes every FEN from the moves (for the book-writing tool).
    pub fn fill_fens(&mut self) -> Result<(), BookError> {
        for o in &mut self.openings {
            o.fen = o.replay()?.fen();
        }
        Ok(())
    }

    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> Result<String, BookError> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }

    /// The book's lines as openings the game runner plays from, named by their `id`.
    ///
    /// # Errors
    /// [`BookError::Unplayable`] for a line the runner rejects.
    pub fn playable(&self) -> Result<Vec<Opening>, BookError> {
        self.openings
            .iter()
            .map(|o| {
                let moves: Vec<&str> = o.moves.iter().map(String::as_str).collect();
                Opening::new(&o.id, o.start(), &moves)
                    .map_err(|e| BookError::Unplayable { id: o.id.clone(), why: e.to_string() })
            })
            .collect()
    }

    /// The opening at an index.
    pub fn get(&self, index: usize) -> Option<&BookEntry> {
        self.openings.get(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opening(moves: &[&str], fen: &str) -> BookEntry {
        BookEntry {
            id: "t".into(),
            name_zh: "中炮".into(),
            pinyin: "zhong pao".into(),
            name_en: "Central Cannon".into(),
            start_fen: None,
            moves: moves.iter().map(|s| s.to_string()).collect(),
            fen: fen.into(),
        }
    }

    #[test]
    fn verify_catches_errors() {
        let mut book = Book { openings: vec![opening(&["h2e2"], "")] };
        assert!(matches!(book.verify(), Err(BookError::FenMismatch { .. })));
        book.fill_fens().unwrap();
        book.verify().unwrap();
        let bad = Book { openings: vec![opening(&["a0a5"], "")] };
        assert!(matches!(bad.verify(), Err(BookError::IllegalMove { ply: 1, .. })));
        let bad = Book { openings: vec![opening(&["zz"], "")] };
        assert!(matches!(bad.verify(), Err(BookError::IllegalMove { .. })));
        let dup = Book { openings: vec![book.openings[0].clone(), book.openings[0].clone()] };
        assert!(matches!(dup.verify(), Err(BookError::DuplicateId(_))));
        assert!(matches!(Book::from_json("{\"openings\": 3}"), Err(BookError::Json(_))));
    }

    #[test]
    fn an_entry_may_start_from_its_own_position_without_moves() {
        let mut entry = opening(&[], "");
        assert!(matches!(Book { openings: vec![entry.clone()] }.verify(), Err(BookError::Empty(_))));
        entry.start_fen = Some("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1".into());
        let mut book = Book { openings: vec![entry] };
        book.fill_fens().unwrap();
        book.verify().unwrap();
        let opening = &book.playable().unwrap()[0];
        assert_eq!(opening.name(), "t");
        assert!(opening.moves().is_empty());
        assert_eq!(opening.fen(), "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1");
    }

    #[test]
    fn the_bundled_book_names_openings_by_id() {
        let book = Book::bundled();
        assert_eq!(book.playable().unwrap()[0].name(), book.openings[0].id);
    }
}
