//! Finished games as serializable records, and the tallies a set of records gives.
//!
//! A [`GameRecord`] is what a game runner hands back for a [`crate::events::ScheduledGame`];
//! one record per line (JSONL) is a journal from which an event can be rebuilt with
//! [`crate::events::Event::replay`].

use crate::stats::{ColourSplit, Pentanomial};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use xq_core::{Color, GameResult, Outcome, Termination};

/// Half points (2 win, 1 draw, 0 loss) a result gives the side playing `color` (第14条's
/// 2-1-0 scoring).
pub const fn half_points(result: GameResult, color: Color) -> u8 {
    (result.score_for(color) + 1) as u8
}

/// The termination that counts as a rule violation (犯规) for the tie-break of 第15条: a player
/// that broke the protocol (illegal move, crash, hang) and lost by forfeit.
pub const VIOLATION_TERMINATION: Termination = Termination::Forfeit;

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
    /// The result (in JSON as in PGN: `"1-0"`, `"0-1"`, `"1/2-1/2"`).
    pub result: GameResult,
    /// How the game ended: reason, rulebook article and the side that had to vary; absent for
    /// a result recorded without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// Plies played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plies: Option<u32>,
}

impl GameRecord {
    /// Sets the result and how the game ended from an xq-core outcome.
    pub fn set_outcome(&mut self, outcome: Outcome) {
        self.result = outcome.result;
        self.outcome = Some(outcome);
    }

    /// Why the game ended, when known.
    pub fn termination(&self) -> Option<Termination> {
        self.outcome.map(|o| o.reason)
    }

    /// Half points (2, 1, 0) that `player` scored, or `None` if it did not play this game.
    pub fn half_points_of(&self, player: usize) -> Option<u8> {
        if player == self.red {
            Some(half_points(self.result, Color::Red))
        } else if player == self.black {
            Some(half_points(self.result, Color::Black))
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
        self.termination() == Some(VIOLATION_TERMINATION) && self.half_points_of(player) == Some(0)
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
            t.add(true, half_points(r.result, Color::Red));
        }
        if let Some(t) = out.get_mut(r.black) {
            t.add(false, half_points(r.result, Color::Black));
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

    fn game(game: u64, pair: u64, red: usize, black: usize, result: GameResult) -> GameRecord {
        GameRecord { game, round: 1, pair, red, black, opening: None, result, outcome: None, plies: None }
    }

    #[test]
    fn tallies_and_pentanomial() {
        let records = vec![
            game(0, 0, 0, 1, GameResult::RedWins),   // 0 wins as red
            game(1, 0, 1, 0, GameResult::Draw),      // draw, 0 black
            game(2, 1, 1, 0, GameResult::RedWins),   // 1 wins as red
            game(3, 1, 0, 1, GameResult::BlackWins), // 1 wins as black
            game(4, 2, 0, 1, GameResult::Draw),      // incomplete pair
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
        let mut g = game(7, 3, 2, 5, GameResult::Draw);
        g.set_outcome(Outcome::new(GameResult::Draw, Termination::MutualPerpetualCheck, "26.1"));
        let line = serde_json::to_string(&g).unwrap();
        assert!(line.contains("\"result\":\"1/2-1/2\""));
        let text = format!("{line}\n\n{line}\n");
        assert_eq!(parse_journal(&text).unwrap(), vec![g.clone(), g]);
        let err = parse_journal("{\"game\": 1}\n").unwrap_err();
        assert_eq!(err.line, 1);
    }
}
