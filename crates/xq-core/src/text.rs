//! The text forms of the vocabulary: every type that configuration files, data sets, journals
//! and the CLI spell out parses back with [`FromStr`] from what its `Display` writes.
//!
//! ```
//! use xq_core::{Color, GameResult, Move, RuleSet, Termination};
//! assert_eq!("cxa2020".parse::<RuleSet>().unwrap(), RuleSet::Cxa2020);
//! assert_eq!("perpetual_chase".parse::<Termination>().unwrap(), Termination::PerpetualChase);
//! assert_eq!("0-1".parse::<GameResult>().unwrap(), GameResult::BlackWins);
//! assert_eq!("black".parse::<Color>().unwrap(), Color::Black);
//! assert_eq!("h2e2".parse::<Move>().unwrap().to_string(), "h2e2");
//! assert!("axf".parse::<RuleSet>().unwrap_err().to_string().contains("cxa2020"));
//! ```

use crate::outcome::{GameResult, Termination};
use crate::qili::RuleSet;
use crate::types::{Color, Move, Square};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// Text that names none of a type's values.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{text:?} is not a {what}: expected {expected}")]
pub struct ParseError {
    /// What was being parsed (`"rule set"`, `"termination"` …).
    pub what: &'static str,
    /// The text.
    pub text: String,
    /// The accepted spellings.
    pub expected: &'static str,
}

impl ParseError {
    fn new(what: &'static str, text: &str, expected: &'static str) -> ParseError {
        ParseError { what, text: text.to_string(), expected }
    }
}

impl FromStr for Color {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Color, ParseError> {
        Color::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| ParseError::new("colour", s, "red or black"))
    }
}

impl FromStr for RuleSet {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<RuleSet, ParseError> {
        RuleSet::parse(s).ok_or_else(|| ParseError::new("rule set", s, "cxa or cxa2020"))
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Termination {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Termination, ParseError> {
        Termination::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| ParseError::new("termination", s, "a Termination::name, e.g. checkmate"))
    }
}

impl FromStr for GameResult {
    type Err = ParseError;

    /// The PGN tokens `1-0`, `0-1` and `1/2-1/2`.
    fn from_str(s: &str) -> Result<GameResult, ParseError> {
        [GameResult::RedWins, GameResult::BlackWins, GameResult::Draw]
            .into_iter()
            .find(|r| r.pgn() == s)
            .ok_or_else(|| ParseError::new("result", s, "1-0, 0-1 or 1/2-1/2"))
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.pgn())
    }
}

impl FromStr for Square {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Square, ParseError> {
        Square::parse(s).ok_or_else(|| ParseError::new("square", s, "a file a-i and a rank 0-9, e.g. e0"))
    }
}

impl FromStr for Move {
    type Err = ParseError;

    /// ICCS coordinates (`h2e2`; case-insensitive, `h2-e2` too), checked for shape only:
    /// legality needs a position ([`crate::notation::parse_move`] reads every notation against
    /// one).
    fn from_str(s: &str) -> Result<Move, ParseError> {
        let bad = || ParseError::new("move", s, "ICCS coordinates, e.g. h2e2");
        let iccs: crate::notation::IccsMove = s.parse().map_err(|_| bad())?;
        if iccs.from == iccs.to {
            return Err(bad());
        }
        Ok(Move::new(iccs.from, iccs.to))
    }
}

/// Every rulebook article an [`crate::Outcome`] of xq can cite: the ends of a game (articles
/// 4.x of the seeds' rulebook) and the 棋例 verdicts (26.x). Reading an outcome back from a
/// file looks its article up here.
pub const ARTICLES: &[&str] = &[
    "4.1.1", "4.1.2", "4.1.3", "4.1.4", "4.1.5", "4.1.6", "4.1.7", "4.1.8", "4.1.9", "4.1.10", "4.2.1",
    "4.2.2", "4.2.3", "4.2.4", "23.3", "24", "24.3", "25.2", "26.1", "26.2", "26.3", "26.4", "26.5", "26.6",
    "26.7", "26.8", "26.9", "27.1", "27.2", "27.3", "27.4",
];

/// The static spelling of `article` if it is one of [`ARTICLES`] (the empty string, "no
/// article", included).
pub fn known_article(article: &str) -> Option<&'static str> {
    if article.is_empty() {
        return Some("");
    }
    ARTICLES.iter().copied().find(|a| *a == article)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back() {
        for t in Termination::ALL {
            assert_eq!(t.name().parse::<Termination>().unwrap(), t);
        }
        for r in [GameResult::RedWins, GameResult::BlackWins, GameResult::Draw] {
            assert_eq!(r.to_string().parse::<GameResult>().unwrap(), r);
        }
        for r in [RuleSet::Cxa, RuleSet::Cxa2020] {
            assert_eq!(r.to_string().parse::<RuleSet>().unwrap(), r);
        }
        for c in Color::ALL {
            assert_eq!(c.to_string().parse::<Color>().unwrap(), c);
        }
        for s in Square::all() {
            assert_eq!(s.to_string().parse::<Square>().unwrap(), s);
        }
    }

    #[test]
    fn bad_text_is_named() {
        let e = "bored".parse::<Termination>().unwrap_err();
        assert_eq!(e.what, "termination");
        assert!("h2".parse::<Move>().is_err());
        assert!("h2h2".parse::<Move>().is_err());
        assert!("z2e2".parse::<Move>().is_err());
        assert!("红2e2".parse::<Move>().is_err());
        assert_eq!("H2-E2".parse::<Move>().unwrap().to_string(), "h2e2");
        assert!("1-1".parse::<GameResult>().is_err());
    }

    #[test]
    fn articles_are_unique_and_known() {
        let mut sorted = ARTICLES.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), ARTICLES.len());
        assert_eq!(known_article("26.1"), Some("26.1"));
        assert_eq!(known_article(""), Some(""));
        assert_eq!(known_article("99.9"), None);
    }
}
