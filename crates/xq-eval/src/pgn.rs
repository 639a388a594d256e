//! Xiangqi PGN: a writer whose files other Xiangqi tools load as they are, and a parser that
//! reads them back (and PGN from elsewhere in ICCS, WXF, Chinese or Fairy-Stockfish moves).
//!
//! ```text
//! [Event "gate 12"]
//! [Site "local"]
//! [Date "2026.11.29"]
//! [Round "3"]
//! [Red "gen-12"]
//! [Black "gen-11"]
//! [Result "1-0"]
//! [Game "Chinese Chess"]
//! [Format "ICCS"]
//! [Termination "checkmate"]
//! [TerminationArticle "4.1.1"]
//! [Opening "中炮对屏风马"]
//!
//! 1. h2e2 h9g7 2. h0g2 b9c7 1-0
//! ```
//!
//! The movetext is one of [`PgnMovetext`], and the tags say which, the way the tools that read
//! it expect:
//! - ICCS (`h2e2`, ranks 0–9) with `[Format "ICCS"]`, WXF (`C2.5`) with `[Format "WXF"]` and
//!   Chinese (`炮二平五`) with `[Format "Chinese"]`: the `cchess` Python package reads the
//!   ICCS form (and takes movetext without a `Format` tag for Chinese);
//! - Fairy-Stockfish coordinates (`h3e3`, ranks 1–10) with `[Variant "xiangqi"]` and no `Format`
//!   tag: what Fairy-Stockfish, pyffish and pychess-variants mean by that tag.
//!
//! A comment after a move is any text in braces (the caller passes, for example, the Chinese
//! notation of the move); simple readers such as cchess stop at the first comment, so writers
//! leave them out by default. A `FEN` tag is written when the game does not start from the
//! initial position; black-to-move starts are numbered `1...`.

use std::fmt::Write as _;
use thiserror::Error;
use xq_core::GameResult;
use xq_core::notation::parse_move;
use xq_core::{Color, Game, GameRules, Position, START_FEN};

/// Why PGN text could not be read or replayed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PgnError {
    /// A tag line is not `[Name "value"]`.
    #[error("line {line}: malformed tag {text:?}")]
    BadTag {
        /// 1-based line.
        line: usize,
        /// The line.
        text: String,
    },
    /// A comment is not closed by `}`.
    #[error("line {line}: comment not closed")]
    UnclosedComment {
        /// 1-based line where it opened.
        line: usize,
    },
    /// A movetext token is neither a move number, an ICCS move, a comment nor a result.
    #[error("line {line}: unexpected token {token:?} in movetext")]
    BadToken {
        /// 1-based line.
        line: usize,
        /// The token.
        token: String,
    },
    /// A comment before any move.
    #[error("line {line}: comment before the first move")]
    CommentBeforeMove {
        /// 1-based line.
        line: usize,
    },
    /// The movetext ends without a result token.
    #[error("game {game}: movetext has no result token (1-0, 0-1, 1/2-1/2 or *)")]
    MissingResult {
        /// 1-based game in the text.
        game: usize,
    },
    /// The `Result` tag disagrees with the result token.
    #[error("game {game}: Result tag {tag:?} but movetext ends with {token:?}")]
    ResultMismatch {
        /// 1-based game.
        game: usize,
        /// The tag's value.
        tag: String,
        /// The token.
        token: String,
    },
    /// The `FEN` tag is not a legal position.
    #[error("bad FEN tag: {0}")]
    BadFen(String),
    /// A move is illegal when replayed.
    #[error("ply {ply} ({mv}): {why}")]
    IllegalMove {
        /// 1-based ply.
        ply: usize,
        /// The move.
        mv: String,
        /// What is wrong.
        why: String,
    },
}

/// The notation of a PGN's moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PgnMovetext {
    /// ICCS coordinates, ranks 0–9 (`h2e2`), tagged `[Format "ICCS"]`.
    #[default]
    Iccs,
    /// WXF (`C2.5`), tagged `[Format "WXF"]`.
    Wxf,
    /// Chinese notation (`炮二平五`), tagged `[Format "Chinese"]`.
    Chinese,
    /// Fairy-Stockfish's coordinates, ranks 1–10 (`h3e3`), tagged `[Variant "xiangqi"]`.
    Fairy,
}

impl PgnMovetext {
    /// The move `mv` in `position` in this notation.
    pub fn write(self, position: &Position, mv: xq_core::Move) -> String {
        match self {
            PgnMovetext::Iccs => mv.iccs(),
            PgnMovetext::Wxf => xq_core::notation::wxf(position, mv),
            PgnMovetext::Chinese => xq_core::notation::chinese(position, mv),
            PgnMovetext::Fairy => xq_play::engine::format_move(mv, 1),
        }
    }

    /// The `Format` tag's value, `None` for Fairy-Stockfish coordinates.
    pub fn format_tag(self) -> Option<&'static str> {
        match self {
            PgnMovetext::Iccs => Some("ICCS"),
            PgnMovetext::Wxf => Some("WXF"),
            PgnMovetext::Chinese => Some("Chinese"),
            PgnMovetext::Fairy => None,
        }
    }
}

/// A move with an optional comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnMove {
    /// The move as written: ICCS (`h2e2`), WXF (`C2.5`), Chinese (`炮二平五`) or
    /// Fairy-Stockfish coordinates (`h3e3`), as the game's tags say.
    pub text: String,
    /// Comment written in braces after the move (no `}` inside).
    pub comment: Option<String>,
}

/// A game as PGN sees it: ordered tags, moves and a result (`None` for `*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnGame {
    /// Tags in order, including the seven-tag roster and `Result`.
    pub tags: Vec<(String, String)>,
    /// The moves.
    pub moves: Vec<PgnMove>,
    /// The result, or `None` for an unfinished game.
    pub result: Option<GameResult>,
}

/// Header values for [`PgnGame::new`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnHeader {
    /// Event name.
    pub event: String,
    /// Site.
    pub site: String,
    /// Date as `YYYY.MM.DD` (`????.??.??` when unknown).
    pub date: String,
    /// Round.
    pub round: String,
    /// Red player.
    pub red: String,
    /// Black player.
    pub black: String,
    /// Start FEN when not the initial position.
    pub fen: Option<String>,
    /// Termination name (e.g. `checkmate`).
    pub termination: Option<String>,
    /// The rulebook article of the termination.
    pub article: Option<String>,
    /// Opening name.
    pub opening: Option<String>,
    /// The movetext's notation, which decides the `Format` and `Variant` tags.
    pub movetext: PgnMovetext,
    /// The time control (`TimeControl` tag, e.g. `10+0.1`).
    pub time_control: Option<String>,
}

fn or_unknown(s: &str, unknown: &str) -> String {
    if s.is_empty() { unknown.to_string() } else { s.to_string() }
}

impl PgnGame {
    /// A game with the standard tags; the start FEN is written only when it is not the initial
    /// position.
    pub fn new(header: &PgnHeader, moves: Vec<PgnMove>, result: Option<GameResult>) -> PgnGame {
        let mut tags = vec![
            ("Event".to_string(), or_unknown(&header.event, "?")),
            ("Site".to_string(), or_unknown(&header.site, "?")),
            ("Date".to_string(), or_unknown(&header.date, "????.??.??")),
            ("Round".to_string(), or_unknown(&header.round, "-")),
            ("Red".to_string(), or_unknown(&header.red, "?")),
            ("Black".to_string(), or_unknown(&header.black, "?")),
            ("Result".to_string(), result.map_or("*", GameResult::pgn).to_string()),
            ("Game".to_string(), "Chinese Chess".to_string()),
        ];
        match header.movetext.format_tag() {
            Some(format) => tags.push(("Format".to_string(), format.to_string())),
            None => tags.push(("Variant".to_string(), "xiangqi".to_string())),
        }
        if let Some(fen) = header.fen.as_ref().filter(|f| f.as_str() != START_FEN) {
            tags.push(("FEN".to_string(), fen.clone()));
        }
        for (name, value) in [
            ("Termination", &header.termination),
            ("TerminationArticle", &header.article),
            ("Opening", &header.opening),
            ("TimeControl", &header.time_control),
        ] {
            if let Some(v) = value {
                tags.push((name.to_string(), v.clone()));
            }
        }
        PgnGame { tags, moves, result }
    }

    /// A game record from an xq-core game: its start FEN (in the header unless it is the initial
    /// position) and moves in the header's movetext, with `comments[i]` after move `i`.
    pub fn from_game(
        header: &PgnHeader,
        game: &Game,
        comments: &[String],
        result: Option<GameResult>,
    ) -> PgnGame {
        let start = game.positions().first().map(Position::fen);
        let header = PgnHeader { fen: header.fen.clone().or(start), ..header.clone() };
        let moves = game
            .moves()
            .iter()
            .enumerate()
            .map(|(i, &m)| PgnMove {
                text: header.movetext.write(&game.positions()[i], m),
                comment: comments.get(i).cloned(),
            })
            .collect();
        PgnGame::new(&header, moves, result)
    }

    /// A tag's value.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The start position's FEN (`FEN` tag or the initial position).
    pub fn start_fen(&self) -> &str {
        self.tag("FEN").unwrap_or(START_FEN)
    }

    /// Writes the game: tags, a blank line, movetext wrapped near 80 columns, a blank line.
    pub fn write(&self) -> String {
        let mut out = String::new();
        for (name, value) in &self.tags {
            let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
            let _ = writeln!(out, "[{name} \"{escaped}\"]");
        }
        out.push('\n');
        let black_first =
            Position::from_fen(self.start_fen()).is_ok_and(|p| p.side_to_move() == Color::Black);
        let mut tokens = Vec::new();
        for (i, m) in self.moves.iter().enumerate() {
            let ply = i + usize::from(black_first);
            if ply % 2 == 0 {
                tokens.push(format!("{}.", ply / 2 + 1));
            } else if i == 0 {
                tokens.push(format!("{}...", ply / 2 + 1));
            }
            tokens.push(m.text.clone());
            if let Some(c) = &m.comment {
                tokens.push(format!("{{{}}}", c.replace('}', ")").replace('\n', " ")));
            }
        }
        tokens.push(self.result.map_or("*", GameResult::pgn).to_string());
        let mut width = 0;
        for (i, t) in tokens.iter().enumerate() {
            let len = t.chars().count();
            if i > 0 {
                if width + 1 + len > 80 {
                    out.push('\n');
                    width = 0;
                } else {
                    out.push(' ');
                    width += 1;
                }
            }
            out.push_str(t);
            width += len;
        }
        out.push_str("\n\n");
        out
    }

    /// The movetext's notation as the tags say: the `Format` tag, else Fairy-Stockfish
    /// coordinates under `[Variant "xiangqi"]`; `None` when neither tag says (any of ICCS,
    /// WXF and Chinese is then read).
    pub fn movetext(&self) -> Option<PgnMovetext> {
        match self.tag("Format").map(str::to_ascii_lowercase).as_deref() {
            Some("iccs") => Some(PgnMovetext::Iccs),
            Some("wxf") => Some(PgnMovetext::Wxf),
            Some("chinese") => Some(PgnMovetext::Chinese),
            Some(_) => None,
            None if self.tag("Variant").is_some_and(|v| v.eq_ignore_ascii_case("xiangqi")) => {
                Some(PgnMovetext::Fairy)
            }
            None => None,
        }
    }

    /// Replays the moves from the start position with xq-core, reading them in the notation
    /// the tags give ([`PgnGame::movetext`]). Files that xq wrote before it had a `Format` tag
    /// (`Variant "xiangqi"` over ICCS moves) replay too: when Fairy-Stockfish coordinates do
    /// not replay, ICCS is tried.
    pub fn replay(&self, rules: GameRules) -> Result<Game, PgnError> {
        let moves = self.moves()?;
        let mut game =
            Game::from_fen(self.start_fen(), rules).map_err(|e| PgnError::BadFen(e.to_string()))?;
        for (i, (&mv, written)) in moves.iter().zip(&self.moves).enumerate() {
            game.play(mv).map_err(|e| PgnError::IllegalMove {
                ply: i + 1,
                mv: written.text.clone(),
                why: e.to_string(),
            })?;
        }
        Ok(game)
    }

    /// The start FEN and the moves, each checked legal in its position but not judged: a game
    /// that goes on after the rules would have ended it (a repetition the collection's arbiter
    /// did not stop) still reads to its last move, for an importer to judge. Notation as in
    /// [`PgnGame::replay`].
    pub fn moves(&self) -> Result<Vec<xq_core::Move>, PgnError> {
        let fairy = self.movetext() == Some(PgnMovetext::Fairy);
        match self.moves_as(fairy) {
            Err(PgnError::IllegalMove { .. }) if fairy => self.moves_as(false),
            moves => moves,
        }
    }

    fn moves_as(&self, fairy: bool) -> Result<Vec<xq_core::Move>, PgnError> {
        let mut position =
            Position::from_fen(self.start_fen()).map_err(|e| PgnError::BadFen(e.to_string()))?;
        let mut moves = Vec::with_capacity(self.moves.len());
        for (i, m) in self.moves.iter().enumerate() {
            let illegal = |why: String| PgnError::IllegalMove { ply: i + 1, mv: m.text.clone(), why };
            let mv = if fairy {
                xq_play::engine::parse_move(&m.text, 1)
                    .filter(|&mv| position.is_legal(mv))
                    .ok_or_else(|| illegal("not a legal move in Fairy-Stockfish coordinates".to_string()))?
            } else {
                parse_move(&position, &m.text).map_err(|e| illegal(e.to_string()))?
            };
            position = position.after(mv);
            moves.push(mv);
        }
        Ok(moves)
    }
}

/// Parses every game in the text.
pub fn parse_pgn(text: &str) -> Result<Vec<PgnGame>, PgnError> {
    let mut games = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut moves: Vec<PgnMove> = Vec::new();
    let mut in_movetext = false;
    let mut comment: Option<(usize, String)> = None;
    let lines: Vec<&str> = text.lines().collect();
    let mut finish =
        |tags: &mut Vec<(String, String)>, moves: &mut Vec<PgnMove>, token: &str| -> Result<(), PgnError> {
            let game_no = games.len() + 1;
            let result = token.parse::<GameResult>().ok();
            let tagged = tags.iter().find(|(n, _)| n == "Result").map(|(_, v)| v.clone());
            if let Some(tag) = tagged
                && tag != token
            {
                return Err(PgnError::ResultMismatch { game: game_no, tag, token: token.to_string() });
            }
            games.push(PgnGame { tags: std::mem::take(tags), moves: std::mem::take(moves), result });
            Ok(())
        };
    for (index, raw) in lines.iter().enumerate() {
        let line_no = index + 1;
        let line = raw.trim();
        if let Some((_, text)) = comment.as_mut() {
            // Inside a multi-line comment.
            match line.find('}') {
                Some(end) => {
                    text.push(' ');
                    text.push_str(&line[..end]);
                    let (_, c) = comment.take().unwrap_or_default();
                    attach_comment(&mut moves, c, line_no)?;
                    let rest = &line[end + 1..];
                    if let Some(token) = movetext(rest, line_no, &mut moves, &mut comment)? {
                        finish(&mut tags, &mut moves, &token)?;
                        in_movetext = false;
                    }
                }
                None => {
                    text.push(' ');
                    text.push_str(line);
                }
            }
            continue;
        }
        if line.is_empty() || line.starts_with('%') || line.starts_with(';') {
            continue;
        }
        if line.starts_with('[') && !in_movetext {
            tags.push(
                parse_tag(line).ok_or_else(|| PgnError::BadTag { line: line_no, text: line.to_string() })?,
            );
            continue;
        }
        in_movetext = true;
        if let Some(token) = movetext(line, line_no, &mut moves, &mut comment)? {
            finish(&mut tags, &mut moves, &token)?;
            in_movetext = false;
        }
    }
    if let Some((line, _)) = comment {
        return Err(PgnError::UnclosedComment { line });
    }
    if in_movetext || !tags.is_empty() || !moves.is_empty() {
        return Err(PgnError::MissingResult { game: games.len() + 1 });
    }
    Ok(games)
}

fn attach_comment(moves: &mut [PgnMove], text: String, line: usize) -> Result<(), PgnError> {
    let last = moves.last_mut().ok_or(PgnError::CommentBeforeMove { line })?;
    let text = text.trim().to_string();
    last.comment = Some(match last.comment.take() {
        Some(prev) => format!("{prev} {text}"),
        None => text,
    });
    Ok(())
}

/// Reads movetext tokens of one line; returns the result token when the game ends on it.
fn movetext(
    line: &str,
    line_no: usize,
    moves: &mut Vec<PgnMove>,
    comment: &mut Option<(usize, String)>,
) -> Result<Option<String>, PgnError> {
    let mut rest = line;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Ok(None);
        }
        if let Some(body) = rest.strip_prefix('{') {
            match body.find('}') {
                Some(end) => {
                    attach_comment(moves, body[..end].to_string(), line_no)?;
                    rest = &body[end + 1..];
                    continue;
                }
                None => {
                    *comment = Some((line_no, body.to_string()));
                    return Ok(None);
                }
            }
        }
        let end = rest.find(|c: char| c.is_whitespace() || c == '{').unwrap_or(rest.len());
        let token = &rest[..end];
        rest = &rest[end..];
        if matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*") {
            if !rest.trim().is_empty() {
                return Err(PgnError::BadToken { line: line_no, token: rest.trim().to_string() });
            }
            return Ok(Some(token.to_string()));
        }
        let number = token.trim_end_matches('.');
        if number.len() < token.len() && !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if token.parse::<xq_core::notation::IccsMove>().is_ok() {
            moves.push(PgnMove { text: token.to_ascii_lowercase().replace('-', ""), comment: None });
            continue;
        }
        // Fairy-Stockfish coordinates reach rank 10, which ICCS does not have.
        if xq_play::engine::parse_move(token, 1).is_some()
            || token.parse::<xq_core::notation::WxfMove>().is_ok()
            || token.parse::<xq_core::notation::ChineseMove>().is_ok()
        {
            moves.push(PgnMove { text: token.to_string(), comment: None });
            continue;
        }
        return Err(PgnError::BadToken { line: line_no, token: token.to_string() });
    }
}

/// `[Name "value"]` with `\"` and `\\` escapes.
fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?.trim();
    let space = inner.find(char::is_whitespace)?;
    let name = &inner[..space];
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let quoted = inner[space..].trim();
    let body = quoted.strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.push(chars.next()?),
            '"' => return None,
            c => value.push(c),
        }
    }
    Some((name.to_string(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PgnGame {
        let header = PgnHeader {
            event: "test \"quoted\" event".into(),
            site: "local".into(),
            date: "2026.11.29".into(),
            round: "3".into(),
            red: "gen-12".into(),
            black: "gen-11".into(),
            fen: None,
            termination: Some("checkmate".into()),
            article: Some("4.1.1".into()),
            opening: Some("中炮对屏风马".into()),
            movetext: PgnMovetext::Iccs,
            time_control: None,
        };
        let mv = |s: &str, c: Option<&str>| PgnMove { text: s.into(), comment: c.map(String::from) };
        let moves = vec![
            mv("h2e2", Some("炮二平五")),
            mv("h9g7", Some("马8进7")),
            mv("h0g2", None),
            mv("b9c7", None),
        ];
        PgnGame::new(&header, moves, Some(GameResult::RedWins))
    }

    #[test]
    fn round_trip() {
        let g = sample();
        let text = g.write();
        assert!(text.contains("[Game \"Chinese Chess\"]"));
        assert!(text.contains("1. h2e2 {炮二平五} h9g7 {马8进7} 2. h0g2 b9c7 1-0"));
        assert!(!text.contains("[FEN"));
        let parsed = parse_pgn(&(text.clone() + &text)).unwrap();
        assert_eq!(parsed, vec![g.clone(), g.clone()]);
        assert_eq!(parsed[0].tag("Event"), Some("test \"quoted\" event"));
        parsed[0].replay(GameRules::default()).unwrap();
    }

    #[test]
    fn black_to_move_start_and_unfinished() {
        let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 0 1";
        let header = PgnHeader { fen: Some(fen.into()), ..PgnHeader::default() };
        let g = PgnGame::new(&header, vec![PgnMove { text: "h7e7".into(), comment: None }], None);
        let text = g.write();
        assert!(text.contains("1... h7e7 *"), "{text}");
        let back = parse_pgn(&text).unwrap();
        assert_eq!(back, vec![g]);
        assert_eq!(back[0].replay(GameRules::default()).unwrap().ply(), 1);
    }

    #[test]
    fn malformed_input_is_reported() {
        let good = sample().write();
        let e = parse_pgn("[Event \"x\"\n\n1. h2e2 *\n");
        assert!(matches!(e, Err(PgnError::BadTag { line: 1, .. })), "{e:?}");
        let e = parse_pgn("[Event \"x\"]\n\n1. h2e2 {never closed\n");
        assert!(matches!(e, Err(PgnError::UnclosedComment { line: 3 })), "{e:?}");
        let e = parse_pgn("[Event \"x\"]\n\n1. h2e2 h9g7\n");
        assert!(matches!(e, Err(PgnError::MissingResult { game: 1 })), "{e:?}");
        let e = parse_pgn("1. h2e2 Nf3 *\n");
        assert!(matches!(e, Err(PgnError::BadToken { .. })), "{e:?}");
        let e = parse_pgn(&good.replace(" 1-0\n", " 0-1\n"));
        assert!(matches!(e, Err(PgnError::ResultMismatch { .. })), "{e:?}");
        let e = parse_pgn("{early} 1. h2e2 *\n");
        assert!(matches!(e, Err(PgnError::CommentBeforeMove { .. })), "{e:?}");
        let illegal = parse_pgn("1. h2e2 h2e2 *\n").unwrap();
        let e = illegal[0].replay(GameRules::default());
        assert!(matches!(e, Err(PgnError::IllegalMove { ply: 2, .. })), "{e:?}");
    }

    #[test]
    fn from_game_writes_and_replays() {
        let mut game = Game::new(Position::startpos(), GameRules::default());
        for text in ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "h0h6", "h7i7", "h6g6", "i7h7"] {
            let m = parse_move(game.position(), text).unwrap();
            game.play(m).unwrap();
        }
        let comments = vec!["炮二平五".to_string(), "马8进7".to_string()];
        let pgn = PgnGame::from_game(&PgnHeader::default(), &game, &comments, Some(GameResult::Draw));
        assert_eq!(pgn.tag("FEN"), None, "the initial position needs no FEN tag");
        let back = &parse_pgn(&pgn.write()).unwrap()[0];
        assert_eq!(back, &pgn);
        let replayed = back.replay(GameRules::default()).unwrap();
        assert_eq!(replayed.fen(), game.fen());
        assert_eq!(back.moves[1].comment.as_deref(), Some("马8进7"));
        assert_eq!(back.moves[2].comment, None);
    }

    #[test]
    fn multi_line_comment() {
        let text = "1. h2e2 {a long\ncomment} h9g7 1/2-1/2\n";
        let g = parse_pgn(text).unwrap();
        assert_eq!(g[0].moves[0].comment.as_deref(), Some("a long comment"));
        assert_eq!(g[0].result, Some(GameResult::Draw));
    }
}
