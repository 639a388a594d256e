//! EPD records: one position a line with its operations, the format of position suites (test
//! positions, opening suites) and of labelled position sets.
//!
//! A line is a FEN (`board side`, optionally `- -` and the two move clocks) followed by
//! operations `opcode operand…;`. The opcodes xq reads:
//! - `id "name"`: the position's name;
//! - `bm M…`: best moves, `pv M…`: a variation played from the position (moves in ICCS, WXF
//!   or Chinese notation);
//! - `result "1-0"` or `c9 "1-0"` (the labelled sets' convention): the result of the game the
//!   position comes from, red's score first (`1-0`, `0-1`, `1/2-1/2`); a trailing `[1.0]`,
//!   `[0.5]` or `[0.0]` (red's score, the tuning sets' form) says the same.
//!
//! Other opcodes are kept and ignored.

use thiserror::Error;
use xq_core::notation::parse_move;
use xq_core::{GameResult, Move, Position};

/// Why an EPD line could not be read.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum EpdError {
    /// The line does not start with a board and a side to move.
    #[error("expected a board and a side to move")]
    NoPosition,
    /// The FEN is not a position.
    #[error("bad FEN: {0}")]
    BadFen(String),
    /// An operand string is not closed.
    #[error("unclosed quote in operation {0:?}")]
    UnclosedQuote(String),
    /// A result operand is not `1-0`, `0-1` or `1/2-1/2`.
    #[error("result {0:?} is not 1-0, 0-1 or 1/2-1/2")]
    BadResult(String),
    /// A move of `bm` or `pv` does not parse or is illegal where it is played.
    #[error("{opcode} move {index}: {why}")]
    BadMove {
        /// `bm` or `pv`.
        opcode: String,
        /// The move's number in the operation, from 1.
        index: usize,
        /// What is wrong with it.
        why: String,
    },
}

/// One operation: its opcode and operands (quotes removed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdOperation {
    /// `id`, `bm`, `pv`, `c0`…
    pub opcode: String,
    /// The operands in order.
    pub operands: Vec<String>,
}

/// One EPD (or plain FEN) line.
///
/// ```
/// use xq_core::GameResult;
/// use xq_play::epd::EpdRecord;
///
/// let line = r#"3k5/9/9/9/9/9/9/9/9/R3K4 w - - id "rook mates"; bm a0a9; c9 "1-0";"#;
/// let record = EpdRecord::parse(line).unwrap();
/// assert_eq!(record.fen, "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1");
/// assert_eq!(record.id(), Some("rook mates"));
/// assert_eq!(record.result().unwrap(), Some(GameResult::RedWins));
/// let moves = record.moves().unwrap();
/// assert_eq!(moves[0].iccs(), "a0a9");
///
/// let tuning = EpdRecord::parse("3k5/9/9/9/9/9/9/9/9/R3K4 b - - [0.5]").unwrap();
/// assert_eq!(tuning.result().unwrap(), Some(GameResult::Draw));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdRecord {
    /// The position as a six-field FEN (move clocks `0 1` when the line gives none); not yet
    /// checked against the rules.
    pub fen: String,
    /// The operations in order.
    pub operations: Vec<EpdOperation>,
    /// A trailing `[score]` label, as written.
    pub bracket_label: Option<String>,
}

impl EpdRecord {
    /// Reads one line (not blank, not a comment).
    ///
    /// # Errors
    /// [`EpdError`] when the line has no position or an unclosed quote.
    pub fn parse(line: &str) -> Result<EpdRecord, EpdError> {
        let (fen, mut rest) = split_fen(line.trim())?;
        let mut bracket_label = None;
        if let Some(open) = rest.rfind('[')
            && rest.ends_with(']')
            && !rest[open..].contains('"')
        {
            bracket_label = Some(rest[open + 1..rest.len() - 1].trim().to_string());
            rest = rest[..open].trim_end();
        }
        Ok(EpdRecord { fen, operations: parse_operations(rest)?, bracket_label })
    }

    /// The operands of the first operation with this opcode.
    pub fn operands(&self, opcode: &str) -> Option<&[String]> {
        self.operations.iter().find(|op| op.opcode == opcode).map(|op| op.operands.as_slice())
    }

    /// The `id` operation's name.
    pub fn id(&self) -> Option<&str> {
        self.operands("id").and_then(|o| o.first()).map(String::as_str).filter(|id| !id.is_empty())
    }

    /// The labelled result: a `result` or `c9` operation, else the bracket label.
    ///
    /// # Errors
    /// [`EpdError::BadResult`] for a label that is not a result.
    pub fn result(&self) -> Result<Option<GameResult>, EpdError> {
        let operand = ["result", "c9"].iter().find_map(|op| self.operands(op).and_then(|o| o.first()));
        let Some(text) = operand.or(self.bracket_label.as_ref()) else { return Ok(None) };
        let result = match text.trim() {
            "1-0" | "1.0" | "1" => GameResult::RedWins,
            "0-1" | "0.0" | "0" => GameResult::BlackWins,
            "1/2-1/2" | "0.5" | "½-½" => GameResult::Draw,
            other => return Err(EpdError::BadResult(other.to_string())),
        };
        Ok(Some(result))
    }

    /// The moves played from the position: the `pv` variation, else the first `bm` move, else
    /// none. Each is read in any notation on the position it is played in.
    ///
    /// # Errors
    /// [`EpdError::BadFen`] for a FEN that is not a position, [`EpdError::BadMove`] for a
    /// move that does not parse or is illegal.
    pub fn moves(&self) -> Result<Vec<Move>, EpdError> {
        let mut pos = Position::from_fen(&self.fen).map_err(|e| EpdError::BadFen(e.to_string()))?;
        let (opcode, texts) = match (self.operands("pv"), self.operands("bm")) {
            (Some(pv), _) if !pv.is_empty() => ("pv", pv),
            (_, Some(bm)) if !bm.is_empty() => ("bm", &bm[..1]),
            _ => return Ok(Vec::new()),
        };
        let mut moves = Vec::with_capacity(texts.len());
        for (index, text) in texts.iter().enumerate() {
            let bad = |why: String| EpdError::BadMove { opcode: opcode.to_string(), index: index + 1, why };
            let mv = parse_move(&pos, text).map_err(|e| bad(e.to_string()))?;
            pos.make(mv);
            moves.push(mv);
        }
        Ok(moves)
    }
}

/// The line's FEN (clocks `0 1` when absent) and the text after it.
fn split_fen(line: &str) -> Result<(String, &str), EpdError> {
    let mut words = line.split_whitespace();
    let (Some(board), Some(side)) = (words.next(), words.next()) else {
        return Err(EpdError::NoPosition);
    };
    let mut rest = line.trim_start()[board.len()..].trim_start()[side.len()..].trim_start();
    // Castling and en passant, which Xiangqi leaves as `-`, then the optional clocks.
    for _ in 0..2 {
        if let Some(after) = rest.strip_prefix('-')
            && (after.is_empty() || after.starts_with(char::is_whitespace))
        {
            rest = after.trim_start();
        }
    }
    let clocks: Vec<&str> = rest.split_whitespace().take(2).collect();
    let (halfmove, fullmove) = if clocks.len() == 2 && clocks.iter().all(|w| w.parse::<u32>().is_ok()) {
        rest = rest[clocks[0].len()..].trim_start()[clocks[1].len()..].trim_start();
        (clocks[0], clocks[1])
    } else {
        ("0", "1")
    };
    Ok((format!("{board} {side} - - {halfmove} {fullmove}"), rest.trim()))
}

/// `opcode operand…;` operations; operands are words or `"quoted strings"`.
fn parse_operations(text: &str) -> Result<Vec<EpdOperation>, EpdError> {
    let mut operations = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut finish = |words: &mut Vec<String>| {
        if !words.is_empty() {
            let opcode = words.remove(0);
            operations.push(EpdOperation { opcode, operands: std::mem::take(words) });
        }
    };
    while let Some((start, c)) = chars.next() {
        match c {
            ';' => finish(&mut words),
            '"' => {
                let mut word = String::new();
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, c)) => word.push(c),
                        None => return Err(EpdError::UnclosedQuote(text[start..].to_string())),
                    }
                }
                words.push(word);
            }
            c if c.is_whitespace() => {}
            _ => {
                let mut end = start + c.len_utf8();
                while let Some(&(i, c)) = chars.peek() {
                    if c.is_whitespace() || c == ';' || c == '"' {
                        break;
                    }
                    end = i + c.len_utf8();
                    chars.next();
                }
                words.push(text[start..end].to_string());
            }
        }
    }
    finish(&mut words);
    Ok(operations)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_fens_and_full_fens_read_with_their_clocks() {
        let plain = EpdRecord::parse("3k5/9/9/9/9/9/9/9/9/R3K4 w").unwrap();
        assert_eq!(plain.fen, "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1");
        assert!(plain.operations.is_empty());
        let full = EpdRecord::parse("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 12 40 id x;").unwrap();
        assert_eq!(full.fen, "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 12 40");
        assert_eq!(full.id(), Some("x"));
        assert_eq!(EpdRecord::parse("3k5/9/9").unwrap_err(), EpdError::NoPosition);
    }

    #[test]
    fn operations_keep_quoted_operands_whole() {
        let record =
            EpdRecord::parse(r#"4k4/9/9/9/9/9/9/9/9/4K4 w - - c0 "a; b"; id "two words";bm e0d0;"#).unwrap();
        assert_eq!(record.operands("c0").unwrap(), ["a; b"]);
        assert_eq!(record.id(), Some("two words"));
        assert_eq!(record.operands("bm").unwrap(), ["e0d0"]);
        assert!(matches!(
            EpdRecord::parse(r#"4k4/9/9/9/9/9/9/9/9/4K4 w - - id "open"#),
            Err(EpdError::UnclosedQuote(_))
        ));
    }

    #[test]
    fn results_come_from_operations_or_a_bracket() {
        let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - -";
        let result = |ops: &str| EpdRecord::parse(&format!("{fen} {ops}")).unwrap().result();
        assert_eq!(result(r#"result "0-1";"#).unwrap(), Some(GameResult::BlackWins));
        assert_eq!(result(r#"c9 "1/2-1/2";"#).unwrap(), Some(GameResult::Draw));
        assert_eq!(result("[1.0]").unwrap(), Some(GameResult::RedWins));
        assert_eq!(result("bm h2e2;").unwrap(), None);
        assert_eq!(result(r#"c9 "won";"#).unwrap_err(), EpdError::BadResult("won".into()));
    }

    #[test]
    fn a_variation_is_read_move_by_move_in_any_notation() {
        let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - -";
        let record = EpdRecord::parse(&format!("{fen} pv h2e2 h9g7 C5+4; bm b0c2;")).unwrap();
        let moves: Vec<String> = record.moves().unwrap().iter().map(|m| m.iccs()).collect();
        assert_eq!(moves, ["h2e2", "h9g7", "e2e6"]);
        let best = EpdRecord::parse(&format!("{fen} bm b0c2 h2e2;")).unwrap();
        assert_eq!(best.moves().unwrap().len(), 1, "only the first best move is played");
        let illegal = EpdRecord::parse(&format!("{fen} pv h2e2 h2e2;")).unwrap();
        assert!(matches!(illegal.moves(), Err(EpdError::BadMove { index: 2, .. })));
    }
}
