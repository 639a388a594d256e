//! Finished games as serializable records, and the tallies a set of records gives.
//!
//! A [`GameRecord`] is what a game runner hands back for a [`crate::events::ScheduledGame`];
//! one record per line (JSONL) is a journal from which an event can be rebuilt with
//! [`crate::events::Event::replay`].

use crate::stats::{ColourSplit, Pentanomial};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use xq_core::{Color, GameResult, Outcome};

/// The result of one game, spelled in JSON as in PGN: `"1-0"`, `"0-1"`, `"1/2-1/2"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameScore {
    /// Red won.
    #[serde(rename = "1-0")]
    RedWins,
    /// Black won.
    #[serde(rename = "0-1")]
    BlackWins,
    /// Drawn.
    #[serde(rename = "1/2-1/2")]
    Draw,
}

impl GameScore {
    /// Half points (2 win, 1 draw, 0 loss) for the side playing `color`.
    pub const fn half_points(self, color: Color) -> u8 {
        match (self, color) {
            (GameScore::Draw, _) => 1,
            (GameScore::RedWins, Color::Red) | (GameScore::BlackWins, Color::Black) => 2,
            _ => 0,
        }
    }

    /// The PGN result token.
    pub const fn pgn(self) -> &'static str {
        match self {
            GameScore::RedWins => "1-0",
            GameScore::BlackWins => "0-1",
            GameScore::Draw => "1/2-1/2",
        }
    }

    /// Parses a PGN result token (`*` is not a result and gives `None`).
    pub fn from_pgn(token: &str) -> Option<GameScore> {
        match token {
            "1-0" => Some(GameScore::RedWins),
            "0-1" => Some(GameScore::BlackWins),
            "1/2-1/2" => Some(GameScore::Draw),
            _ => None,
        }
    }
}

impl From<GameResult> for GameScore {
    fn from(r: GameResult) -> GameScore {
        match r {
            GameResult::RedWins => GameScore::RedWins,
            GameResult::BlackWins => GameScore::BlackWins,
            GameResult::Draw => GameScore::Draw,
        }
    }
}

impl From<GameScore> for GameResult {
    fn from(r: GameScore) -> GameResult {
        match r {
            GameScore::RedWins => GameResult::RedWins,
            GameScore::BlackWins => GameResult::BlackWins,
            GameScore::Draw => GameResult::Draw,
        }
    }
}

/// The termination name that counts as a rule violation (犯规) for the tie-break of 第15条:
/// a player that broke the protocol (illegal move, crash, hang) and lost by forfeit.
pub const VIOLATION_TERMINATION: &str = "forfeit";

/// One finished game of an event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRecord {
    /// The game's number in the event's schedule.
    pub game: u64,
    /// The event round (1-based).
    pub round: u32,
    /// The game pair: both games of an opening played with colours swapped share it.
    pub pair: u64,
    /// Index of the player with red.
    pub red: usize,
    /// Index of the player with black.
    pub black: usize,
    /// Index of the opening in the book, if the game started from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening: Option<usize>,
    /// The result.
    pub result: GameScore,
    /// Why the game ended ([`xq_core::Termination::name`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination: Option<String>,
    /// The rulebook article behind the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub article: Option<String>,
    /// Plies played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plies: Option<u32>,
}

impl GameRecord {
    /// Fills result, termination and article from an xq-core outcome.
    pub fn set_outcome(&mut self, outcome: &Outcome) {
        self.result = outcome.result.into();
        self.termination = Some(outcome.reason.name().to_string());
        self.article = Some(outcome.article.to_string());
    }

    /// Half points (2, 1, 0) that `player` scored, or `None` if it did not play this game.
    pub fn half_points_of(&self, player: usize) -> Option<u8> {
        if player == self.red {
            Some(self.result.half_points(Color::Red))
        } else if player == self.black {
            Some(self.result.half_points(Color::Black))
        } else {
            None
        }
    }

    /// The other player of this game.
    pub fn opponent_of(&self, player: usize) -> Option<usize> {
        if player == self.red {
            Some(self.black)
        } else if player == self.black {
            Some(self.red)
        } else {
            None
        }
    }

    /// Whether `player` lost this game by a rule violation ([`VIOLATION_TERMINATION`]).
    pub fn is_violation_by(&self, player: usize) -> bool {
        self.termination.as_deref() == Some(VIOLATION_TERMINATION) && self.half_points_of(player) == Some(0)
    }
}

/// Results of one player against another: W/D/L from the first player's view, split by colour,
/// and the pentanomial counts of the complete game pairs between them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairTally {
    /// Games from the first player's point of view, overall and by its colour.
    pub games: ColourSplit,
    /// Complete game pairs (same pair id, colours swapped) from the first player's view.
    pub pentanomial: Pentanomial,
}

/// Each player's W/D/L overall and by colour.
pub fn player_tallies(records: &[GameRecord], players: usize) -> Vec<ColourSplit> {
    let mut out = vec![ColourSplit::default(); players];
    for r in records {
        if let Some(t) = out.get_mut(r.red) {
            t.add(true, r.result.half_points(Color::Red));
        }
        if let Some(t) = out.get_mut(r.black) {
            t.add(false, r.result.half_points(Color::Black));
        }
    }
    out
}

/// The tally of every pair of players that met, keyed `(a, b)` with `a < b`, from `a`'s view.
pub fn pair_tallies(records: &[GameRecord]) -> BTreeMap<(usize, usize), PairTally> {
    let mut out: BTreeMap<(usize, usize), PairTally> = BTreeMap::new();
    let mut by_pair: BTreeMap<u64, Vec<&GameRecord>> = BTreeMap::new();
    for r in records {
        let (a, b) = (r.red.min(r.black), r.red.max(r.black));
        let a_is_red = a == r.red;
        let half = r.half_points_of(a).unwrap_or(0);
        out.entry((a, b)).or_default().games.add(a_is_red, half);
        by_pair.entry(r.pair).or_default().push(r);
    }
    for games in by_pair.values() {
        if let [g1, g2] = games.as_slice()
            && g1.red == g2.black
            && g1.black == g2.red
        {
            let (a, b) = (g1.red.min(g1.black), g1.red.max(g1.black));
            let (h1, h2) = (g1.half_points_of(a).unwrap_or(0), g2.half_points_of(a).unwrap_or(0));
            out.entry((a, b)).or_default().pentanomial.add_pair(h1, h2);
        }
    }
    out
}

/// The pentanomial counts of every complete pair, from `player`'s view against anyone.
pub fn pentanomial_of(records: &[GameRecord], player: usize) -> Pentanomial {
    let mut p = Pentanomial::default();
    for ((a, b), tally) in pair_tallies(records) {
        let view = if a == player {
            tally.pentanomial
        } else if b == player {
            tally.pentanomial.flipped()
        } else {
            continue;
        };
        for (slot, count) in p.counts.iter_mut().zip(view.counts) {
            *slot += count;
        }
    }
    p
}

/// Parses a JSONL journal: one [`GameRecord`] per non-empty line.
pub fn parse_journal(text: &str) -> Result<Vec<GameRecord>, JournalError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| JournalError { line: i + 1, message: e.to_string() })
        })
        .collect()
}

/// A journal line that is not a game record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("journal line {line}: {message}")]
pub struct JournalError {
    /// 1-based line number.
    pub line: usize,
    /// What the JSON parser said.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Wdl;

    fn game(game: u64, pair: u64, red: usize, black: usize, result: GameScore) -> GameRecord {
        GameRecord {
            game,
            round: 1,
            pair,
            red,
            black,
            opening: None,
            result,
            termination: None,
            article: None,
            plies: None,
        }
    }

    #[test]
    fn tallies_and_pentanomial() {
        let records = vec![
            game(0, 0, 0, 1, GameScore::RedWins),   // 0 wins as red
            game(1, 0, 1, 0, GameScore::Draw),      // draw, 0 black
            game(2, 1, 1, 0, GameScore::RedWins),   // 1 wins as red
            game(3, 1, 0, 1, GameScore::BlackWins), // 1 wins as black
            game(4, 2, 0, 1, GameScore::Draw),      // incomplete pair
        ];
        let t = player_tallies(&records, 2);
        assert_eq!(t[0].total, Wdl::new(1, 2, 2));
        assert_eq!(t[0].as_red, Wdl::new(1, 1, 1));
        assert_eq!(t[0].as_black, Wdl::new(0, 1, 1));
        assert_eq!(t[1].total, t[0].total.flipped());
        let pairs = pair_tallies(&records);
        assert_eq!(pairs[&(0, 1)].pentanomial.counts, [1, 0, 0, 1, 0]);
        assert_eq!(pentanomial_of(&records, 1).counts, [0, 1, 0, 0, 1]);
    }

    #[test]
    fn journal_round_trip_and_errors() {
        let mut g = game(7, 3, 2, 5, GameScore::Draw);
        g.termination = Some("perpetual_check".into());
        let line = serde_json::to_string(&g).unwrap();
        assert!(line.contains("\"result\":\"1/2-1/2\""));
        let text = format!("{line}\n\n{line}\n");
        assert_eq!(parse_journal(&text).unwrap(), vec![g.clone(), g]);
        let err = parse_journal("{\"game\": 1}\n").unwrap_err();
        assert_eq!(err.line, 1);
    }
}
