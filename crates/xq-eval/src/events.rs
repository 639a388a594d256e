//! Event formats: who plays whom, with which colours and openings, and when the event is over.
//!
//! An [`Event`] issues [`ScheduledGame`]s and takes [`GameRecord`]s back. A runner loops:
//!
//! ```
//! use xq_eval::events::{Event, EventConfig, Format};
//! use xq_core::GameResult;
//! let config = EventConfig {
//!     name: "demo".into(),
//!     players: vec!["a".into(), "b".into(), "c".into()],
//!     format: Format::RoundRobin { cycles: 1 },
//!     openings: 4,
//!     seed: 7,
//! };
//! let mut event = Event::new(config).unwrap();
//! loop {
//!     let batch = event.next_games(8);
//!     if batch.is_empty() {
//!         assert!(event.is_finished()); // nothing in flight here, so empty means finished
//!         break;
//!     }
//!     for game in batch {
//!         event.record(game.finish(GameResult::Draw)).unwrap(); // a game runner plays it here
//!     }
//! }
//! assert_eq!(event.records().len(), 6); // 3 encounters × 1 opening pair × 2 games
//! ```
//!
//! Every encounter is played as game pairs: one opening, twice, colours swapped, so that the
//! pentanomial statistics apply. The Swiss system can instead play single games with colours
//! allocated by the pairing ([`Format::Swiss`] with `paired: false`).

use crate::openings::OpeningOrder;
use crate::record::{GameRecord, pentanomial_of};
use crate::standings::{Standing, TieBreakRule, standings};
use crate::stats::{SprtConfig, SprtResult, SprtState, sprt};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;
use xq_core::GameResult;

/// Why an event cannot be built or a result cannot be taken.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum EventError {
    /// The configuration is inconsistent.
    #[error("invalid event configuration: {0}")]
    InvalidConfig(String),
    /// A result for a game the event never issued.
    #[error("game {0} was not scheduled")]
    UnknownGame(u64),
    /// A second result for the same game.
    #[error("game {0} already has a result")]
    DuplicateResult(u64),
    /// A result whose players or round differ from the scheduled game.
    #[error("result for game {game} does not match its schedule: {why}")]
    Mismatch {
        /// The game number.
        game: u64,
        /// What differs.
        why: String,
    },
    /// No Swiss pairing satisfies the constraints (too many rounds for the players).
    #[error("no Swiss pairing for round {0} without repeat opponents and within the colour rules")]
    NoPairing(u32),
}

/// What a gate compares against its threshold.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum GateThreshold {
    /// Promote when the candidate's score per game is at least `min` (e.g. 0.55).
    Score {
        /// Minimum score per game, in [0, 1].
        min: f64,
    },
    /// Promote when the lower end of the candidate's 95% Elo interval (pentanomial) is at least
    /// `min`.
    EloLowerBound {
        /// Minimum lower bound, in logistic Elo.
        min: f64,
    },
    /// Promote when, after all pairs, the candidate's likelihood of superiority (pentanomial)
    /// is at least `min` (e.g. 0.95).
    Los {
        /// Minimum LOS, in [0, 1].
        min: f64,
    },
    /// A GSPRT of the candidate against the accepted model, stopped as soon as it decides:
    /// promote when it accepts H1 (`elo1`), reject when it accepts H0 (`elo0`); when the
    /// gate's `pairs` are played without a decision, `undecided` says what follows. Logistic
    /// Elo, exact pentanomial LLR (it stays defined for the lopsided results early pairs give).
    Sprt {
        /// Elo under H0.
        elo0: f64,
        /// Elo under H1 (greater than `elo0`).
        elo1: f64,
        /// Type I error (promoting a candidate no better than `elo0`).
        alpha: f64,
        /// Type II error (rejecting a candidate as good as `elo1`).
        beta: f64,
        /// The verdict when the pairs run out before the test decides (default: reject).
        #[serde(default)]
        undecided: Undecided,
    },
}

/// What an SPRT threshold concludes when its pairs run out before the test decides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Undecided {
    /// Not met: only an accepted H1 counts (the strict reading, for claims of strength).
    #[default]
    Reject,
    /// A truncated SPRT (Wald): met when the LLR is above 0, that is when the results so far
    /// are likelier under `elo1` than under `elo0` (a performance above about their midpoint).
    /// A gate that rejects every undecided test throws away candidates that are better but
    /// not by enough to prove it in the pairs it can afford; this one promotes them, and a
    /// wrong promotion costs at most a candidate near `(elo0 + elo1) / 2` below the last.
    LlrSign,
}

impl GateThreshold {
    /// The sequential test of a [`GateThreshold::Sprt`] threshold.
    pub fn sprt(&self) -> Option<SprtConfig> {
        match *self {
            GateThreshold::Sprt { elo0, elo1, alpha, beta, .. } => Some(SprtConfig {
                elo0,
                elo1,
                alpha,
                beta,
                model: crate::stats::EloModel::Logistic,
                method: crate::stats::LlrMethod::Exact,
            }),
            _ => None,
        }
    }

    /// Whether a player's results, once all its games are played, meet the threshold: `score`
    /// is its score per game over all its games (`None` before any), `pentanomial` its complete
    /// game pairs. An SPRT is met when its LLR over those pairs has reached the upper bound
    /// (H1 accepted); a test still undecided is met only with [`Undecided::LlrSign`] and an
    /// LLR above 0.
    ///
    /// ```
    /// use xq_eval::events::{GateThreshold, Undecided};
    /// use xq_eval::stats::Pentanomial;
    /// let strict = GateThreshold::Sprt { elo0: 0.0, elo1: 60.0, alpha: 0.1, beta: 0.2, undecided: Undecided::Reject };
    /// assert!(strict.is_met(Some(1.0), &Pentanomial::new([0, 0, 0, 0, 20])));
    /// let leaning_up = Pentanomial::new([0, 0, 1, 0, 1]);
    /// assert!(!strict.is_met(Some(0.75), &leaning_up));
    /// let truncated = GateThreshold::Sprt { elo0: 0.0, elo1: 60.0, alpha: 0.1, beta: 0.2, undecided: Undecided::LlrSign };
    /// assert!(truncated.is_met(Some(0.75), &leaning_up));
    /// assert!(!truncated.is_met(Some(0.25), &Pentanomial::new([1, 0, 1, 0, 0])));
    /// assert!(GateThreshold::Score { min: 0.55 }.is_met(Some(0.6), &Pentanomial::default()));
    /// ```
    pub fn is_met(&self, score: Option<f64>, pentanomial: &crate::stats::Pentanomial) -> bool {
        match *self {
            GateThreshold::Score { min } => score.is_some_and(|s| s >= min),
            GateThreshold::EloLowerBound { min } => pentanomial.estimate().is_ok_and(|e| e.elo.lower >= min),
            GateThreshold::Los { min } => pentanomial.estimate().is_ok_and(|e| e.los >= min),
            GateThreshold::Sprt { undecided, .. } => {
                self.sprt().and_then(|test| sprt(pentanomial, &test).ok()).is_some_and(|r| match r.state {
                    SprtState::AcceptH1 => true,
                    SprtState::AcceptH0 => false,
                    SprtState::Continue => undecided == Undecided::LlrSign && r.llr > 0.0,
                })
            }
        }
    }
}

/// The event format.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Format {
    /// Player 0 against every other player, `pairs` game pairs each. All opponents play the
    /// same opening in the same repetition, so they are compared on equal terms.
    Gauntlet {
        /// Game pairs per opponent.
        pairs: u32,
        /// When given, an opponent whose test is still undecided after its `pairs` plays on, one
        /// pair at a time, until the test decides or it has played the most pairs allowed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until_decided: Option<UntilDecided>,
    },
    /// Every pair of players meets once per cycle (Berger tables by the circle method; with an
    /// odd count one player sits out each round), each meeting one game pair.
    RoundRobin {
        /// Cycles through the table.
        cycles: u32,
    },
    /// Swiss system (积分编排制): rounds paired by score groups with no repeat opponents.
    Swiss {
        /// Rounds; at most players − 1 (players for an odd count) so no pairing repeats.
        rounds: u32,
        /// Each pairing plays a game pair (colours swapped) instead of one game.
        paired: bool,
    },
    /// Head-to-head GSPRT of player 0 (the candidate) against player 1 (the base): game pairs
    /// until the test decides or `max_pairs` have been played.
    Sprt {
        /// The test.
        sprt: SprtConfig,
        /// The most game pairs.
        max_pairs: u64,
    },
    /// Candidate (player 0) against the accepted player (player 1) for `pairs` game pairs;
    /// promoted when it meets the threshold.
    Gate {
        /// Game pairs.
        pairs: u64,
        /// The promotion threshold.
        threshold: GateThreshold,
    },
}

/// A gauntlet's sequential extension: each opponent's game pairs (all of them, from the first)
/// are an SPRT of player 0 against it, and an opponent the test has not decided after the
/// gauntlet's `pairs` meets player 0 again, one pair at a time, up to `max_pairs`.
///
/// Checking a sequential test only from the `pairs`-th pair on is still a valid SPRT (a test
/// looked at less often errs less, not more), so "beaten" can be read off at any stop. Every
/// extra pair has the number, round and opening the gauntlet would have given it with more
/// `pairs`, so an event rebuilt from its journal issues the same games whatever order they
/// finished in.
///
/// ```
/// use xq_eval::events::{Event, EventConfig, Format, UntilDecided};
/// use xq_eval::stats::SprtConfig;
/// use xq_core::GameResult;
/// let until_decided = UntilDecided { sprt: SprtConfig::normalized(0.0, 10.0, 0.05, 0.05), max_pairs: 5 };
/// let config = EventConfig {
///     name: "demo".into(),
///     players: vec!["a".into(), "b".into()],
///     format: Format::Gauntlet { pairs: 2, until_decided: Some(until_decided) },
///     openings: 4,
///     seed: 7,
/// };
/// let mut event = Event::new(config).unwrap();
/// loop {
///     let games = event.next_games(8);
///     if games.is_empty() {
///         break;
///     }
///     for game in games {
///         // "a" wins both games of even pairs and loses both of odd ones: even, undecided.
///         let winner = if game.pair % 2 == 0 { 0 } else { 1 };
///         let result = if game.red == winner { GameResult::RedWins } else { GameResult::BlackWins };
///         event.record(game.finish(result)).unwrap();
///     }
/// }
/// assert!(event.is_finished());
/// assert_eq!(event.records().len(), 2 * 5); // so "b" plays all 5 pairs
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UntilDecided {
    /// The test run on player 0's pairs against each opponent.
    pub sprt: SprtConfig,
    /// The most game pairs against one opponent, the gauntlet's `pairs` included.
    pub max_pairs: u32,
}

/// An event's configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventConfig {
    /// The event's name (PGN `Event`).
    pub name: String,
    /// Player names; their indices are used everywhere else.
    pub players: Vec<String>,
    /// The format.
    pub format: Format,
    /// Openings in the book to draw from (0: every game starts from the initial position).
    pub openings: usize,
    /// Seed of the opening order.
    pub seed: u64,
}

/// A game the event wants played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduledGame {
    /// The game's number (unique in the event).
    pub game: u64,
    /// The round (1-based).
    pub round: u32,
    /// The game pair this game belongs to.
    pub pair: u64,
    /// Player with red.
    pub red: usize,
    /// Player with black.
    pub black: usize,
    /// Opening index in the book, if any.
    pub opening: Option<usize>,
}

impl ScheduledGame {
    /// A record of this game with the given result and no further details.
    pub fn finish(&self, result: GameResult) -> GameRecord {
        GameRecord {
            game: self.game,
            round: self.round,
            pair: self.pair,
            red: self.red,
            black: self.black,
            opening: self.opening,
            result,
            outcome: None,
            plies: None,
        }
    }
}

/// The verdict of a gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateVerdict {
    /// Games are still to be played.
    Pending,
    /// The candidate met the threshold.
    Promote,
    /// It did not.
    Reject,
}

/// A running event.
#[derive(Clone, Debug)]
pub struct Event {
    config: EventConfig,
    order: OpeningOrder,
    /// Fixed schedules (gauntlet, round robin, gate) are built up front.
    planned: Vec<ScheduledGame>,
    /// How many of `planned` are issued (a gauntlet's extra pairs are issued beside them).
    planned_issued: usize,
    issued: Vec<ScheduledGame>,
    records: BTreeMap<u64, GameRecord>,
    byes: Vec<(u32, usize)>,
    swiss_round: u32,
    next_pair: u64,
    pairing_error: Option<EventError>,
}

impl Event {
    /// Checks the configuration and plans fixed schedules.
    pub fn new(config: EventConfig) -> Result<Event, EventError> {
        let n = config.players.len();
        let bad = |why: String| Err(EventError::InvalidConfig(why));
        if n < 2 {
            return bad(format!("{n} players; an event needs at least 2"));
        }
        match &config.format {
            Format::Sprt { sprt, max_pairs } => {
                sprt.validate().map_err(|e| EventError::InvalidConfig(e.to_string()))?;
                if *max_pairs == 0 {
                    return bad("max_pairs must be positive".into());
                }
                if n != 2 {
                    return bad(format!("an SPRT is between 2 players, not {n}"));
                }
            }
            Format::Gate { pairs, threshold } => {
                if n != 2 {
                    return bad(format!("a gate is between 2 players, not {n}"));
                }
                if *pairs == 0 {
                    return bad("a gate needs at least one pair".into());
                }
                match threshold {
                    GateThreshold::Score { min } | GateThreshold::Los { min }
                        if !(0.0..=1.0).contains(min) =>
                    {
                        return bad(format!("threshold {min} outside [0, 1]"));
                    }
                    GateThreshold::Sprt { .. } => {
                        if let Some(test) = threshold.sprt() {
                            test.validate().map_err(|e| EventError::InvalidConfig(e.to_string()))?;
                        }
                    }
                    _ => {}
                }
            }
            Format::Swiss { rounds, .. } => {
                let most = if n.is_multiple_of(2) { n - 1 } else { n };
                if *rounds == 0 || *rounds as usize > most {
                    return bad(format!("{rounds} Swiss rounds for {n} players (1 to {most})"));
                }
            }
            Format::Gauntlet { pairs: 0, .. } => return bad("pairs must be positive".into()),
            Format::Gauntlet { pairs, until_decided: Some(until) } => {
                until.sprt.validate().map_err(|e| EventError::InvalidConfig(e.to_string()))?;
                if until.max_pairs < *pairs {
                    return bad(format!(
                        "until_decided.max_pairs ({}) is below the gauntlet's pairs ({pairs})",
                        until.max_pairs
                    ));
                }
            }
            Format::RoundRobin { cycles } if *cycles == 0 => return bad("cycles must be positive".into()),
            _ => {}
        }
        let order = OpeningOrder::new(config.openings, config.seed);
        let mut event = Event {
            config,
            order,
            planned: Vec::new(),
            planned_issued: 0,
            issued: Vec::new(),
            records: BTreeMap::new(),
            byes: Vec::new(),
            swiss_round: 0,
            next_pair: 0,
            pairing_error: None,
        };
        event.plan();
        Ok(event)
    }

    /// Rebuilds an event from its configuration and a journal of finished games: the schedule
    /// is issued again (it is deterministic given the results) and each record is matched to
    /// its game. Records for games the rebuilt schedule does not reach are an error.
    pub fn replay(config: EventConfig, journal: &[GameRecord]) -> Result<Event, EventError> {
        let mut event = Event::new(config)?;
        let mut pending: BTreeMap<u64, &GameRecord> = journal.iter().map(|r| (r.game, r)).collect();
        if pending.len() != journal.len() {
            let mut seen = BTreeSet::new();
            let dup = journal.iter().find(|r| !seen.insert(r.game)).map_or(0, |r| r.game);
            return Err(EventError::DuplicateResult(dup));
        }
        loop {
            let batch = event.next_games(usize::MAX);
            let mut progressed = false;
            for game in batch {
                if let Some(r) = pending.remove(&game.game) {
                    event.record(r.clone())?;
                    progressed = true;
                }
            }
            if !progressed {
                break;
            }
        }
        match pending.keys().next() {
            Some(&game) => Err(EventError::UnknownGame(game)),
            None => Ok(event),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &EventConfig {
        &self.config
    }

    /// Finished games in game order.
    pub fn records(&self) -> Vec<GameRecord> {
        self.records.values().cloned().collect()
    }

    /// Swiss byes as `(round, player)`.
    pub fn byes(&self) -> &[(u32, usize)] {
        &self.byes
    }

    /// Why a Swiss event ended before its last round: late rounds of a short event can have no
    /// pairing without a repeat opponent (for example near players − 1 rounds).
    pub fn pairing_error(&self) -> Option<&EventError> {
        self.pairing_error.as_ref()
    }

    /// Games issued so far (finished or not).
    pub fn issued(&self) -> &[ScheduledGame] {
        &self.issued
    }

    /// Games issued whose results are not in yet.
    pub fn in_flight(&self) -> usize {
        self.issued.len() - self.records.len()
    }

    /// Up to `max` games that can be played now. Empty when the event is finished, or when it
    /// waits for results (a Swiss round in progress, an SPRT with pairs in flight at its
    /// maximum, or a gauntlet's extra pairs in flight). An SPRT's pairs and a gauntlet's extra
    /// pairs are issued whole, so a `max` below 2 issues none of them.
    pub fn next_games(&mut self, max: usize) -> Vec<ScheduledGame> {
        let mut out = Vec::new();
        if let Some((cfg, max_pairs)) = self.sequential_test() {
            let decided = sprt(&self.pentanomial(), &cfg).is_ok_and(|r| r.state != SprtState::Continue);
            while !decided && out.len() + 2 <= max && self.next_pair < max_pairs {
                let pair = self.next_pair;
                out.extend(self.game_pair(1, pair, 0, 1, pair as usize));
                self.next_pair += 1;
            }
            self.issued.extend_from_slice(&out);
            return out;
        }
        if let Format::Swiss { rounds, paired } = self.config.format {
            let round_done = self.in_flight() == 0;
            if self.planned_issued == self.planned.len() && round_done && self.swiss_round < rounds {
                // A round that cannot be paired ends the event early; `pairing_error` says so.
                if let Err(e) = self.plan_swiss_round(paired) {
                    self.pairing_error = Some(e);
                    self.swiss_round = rounds;
                }
            }
        }
        let end = self.planned_issued.saturating_add(max).min(self.planned.len());
        out.extend_from_slice(&self.planned[self.planned_issued..end]);
        self.planned_issued = end;
        self.issued.extend_from_slice(&out);
        if let Format::Gauntlet { until_decided: Some(until), .. } = self.config.format {
            for opponent in 1..self.config.players.len() {
                if out.len() + 2 > max {
                    break;
                }
                if let Some(repetition) = self.extra_pair_due(opponent, &until) {
                    let pair = self.gauntlet_pair(repetition, opponent);
                    self.issued.extend_from_slice(&pair);
                    out.extend(pair);
                }
            }
        }
        out
    }

    /// The repetition of the gauntlet's next extra pair against `opponent`: once every planned
    /// game is issued, when all its games have results, its test is undecided and it has
    /// played fewer than `max_pairs` pairs.
    fn extra_pair_due(&self, opponent: usize, until: &UntilDecided) -> Option<u32> {
        if self.planned_issued < self.planned.len() {
            return None;
        }
        let against = |red: usize, black: usize| red == opponent || black == opponent;
        let issued = self.issued.iter().filter(|g| against(g.red, g.black)).count();
        let records: Vec<GameRecord> =
            self.records.values().filter(|r| against(r.red, r.black)).cloned().collect();
        let played_pairs = u32::try_from(issued / 2).unwrap_or(u32::MAX);
        let undecided =
            sprt(&pentanomial_of(&records, 0), &until.sprt).is_ok_and(|r| r.state == SprtState::Continue);
        (records.len() == issued && played_pairs < until.max_pairs && undecided).then_some(played_pairs)
    }

    /// The game pair of a gauntlet's `repetition` against `opponent`, numbered as the planned
    /// schedule numbers it: repetition by repetition, opponent by opponent.
    fn gauntlet_pair(&mut self, repetition: u32, opponent: usize) -> [ScheduledGame; 2] {
        let opponents = self.config.players.len() as u64 - 1;
        let pair = u64::from(repetition) * opponents + opponent as u64 - 1;
        self.game_pair(repetition + 1, pair, 0, opponent, repetition as usize)
    }

    /// Withdraws every issued game that has no result yet and returns them, in issue order.
    ///
    /// For a runner that stops playing once the event is decided: an SPRT that reached a bound
    /// while later pairs were already issued drops them, so the event finishes on the results
    /// in game order whatever games happened to be in flight. Only SPRT events withdraw (the
    /// other formats count their schedules by the games issued); they return nothing.
    pub fn withdraw_unfinished(&mut self) -> Vec<ScheduledGame> {
        if self.sequential_test().is_none() {
            return Vec::new();
        }
        let (kept, withdrawn): (Vec<ScheduledGame>, Vec<ScheduledGame>) =
            self.issued.iter().partition(|g| self.records.contains_key(&g.game));
        self.issued = kept;
        withdrawn
    }

    /// Takes a finished game's result.
    pub fn record(&mut self, record: GameRecord) -> Result<(), EventError> {
        let Some(game) = self.issued.iter().find(|g| g.game == record.game) else {
            return Err(EventError::UnknownGame(record.game));
        };
        if self.records.contains_key(&record.game) {
            return Err(EventError::DuplicateResult(record.game));
        }
        let mismatch = |why: String| Err(EventError::Mismatch { game: record.game, why });
        if (game.red, game.black) != (record.red, record.black) {
            return mismatch(format!(
                "scheduled red {} black {}, got red {} black {}",
                game.red, game.black, record.red, record.black
            ));
        }
        if (game.round, game.pair, game.opening) != (record.round, record.pair, record.opening) {
            return mismatch("round, pair or opening differs".into());
        }
        self.records.insert(record.game, record);
        Ok(())
    }

    /// Whether every game the event will ever issue has a result.
    pub fn is_finished(&self) -> bool {
        if self.in_flight() > 0 {
            return false;
        }
        if let Some((cfg, max_pairs)) = self.sequential_test() {
            return self.next_pair >= max_pairs
                || sprt(&self.pentanomial(), &cfg).is_ok_and(|r| r.state != SprtState::Continue);
        }
        match &self.config.format {
            Format::Swiss { rounds, .. } => {
                self.swiss_round >= *rounds && self.planned_issued == self.planned.len()
            }
            Format::Gauntlet { until_decided: Some(until), .. } => {
                self.planned_issued == self.planned.len()
                    && (1..self.config.players.len()).all(|o| self.extra_pair_due(o, until).is_none())
            }
            _ => self.planned_issued == self.planned.len(),
        }
    }

    /// Standings with the tie-break order of the format (Swiss: 15.2, otherwise 15.1).
    pub fn standings(&self) -> Vec<Standing> {
        let rule = match self.config.format {
            Format::Swiss { .. } => TieBreakRule::Swiss,
            _ => TieBreakRule::RoundRobin,
        };
        let byes: Vec<usize> = self.byes.iter().map(|&(_, p)| p).collect();
        standings(&self.records(), &byes, self.config.players.len(), rule)
    }

    /// Pentanomial counts of player 0 (the candidate in an SPRT or gate) from complete pairs.
    pub fn pentanomial(&self) -> crate::stats::Pentanomial {
        pentanomial_of(&self.records(), 0)
    }

    /// The SPRT result so far (SPRT events and SPRT gates only).
    pub fn sprt_result(&self) -> Option<SprtResult> {
        self.sequential_test().and_then(|(cfg, _)| sprt(&self.pentanomial(), &cfg).ok())
    }

    /// The test and the most pairs of an event that plays pairs until a sequential test
    /// decides: an SPRT event, or a gate with an SPRT threshold.
    fn sequential_test(&self) -> Option<(SprtConfig, u64)> {
        match &self.config.format {
            Format::Sprt { sprt, max_pairs } => Some((*sprt, *max_pairs)),
            Format::Gate { pairs, threshold } => threshold.sprt().map(|test| (test, *pairs)),
            _ => None,
        }
    }

    /// The gate's verdict (gate events only).
    pub fn gate_verdict(&self) -> Option<GateVerdict> {
        let Format::Gate { threshold, .. } = self.config.format else { return None };
        if !self.is_finished() {
            return Some(GateVerdict::Pending);
        }
        let score = crate::record::player_tallies(&self.records(), 2)[0].total.score().ok();
        let promote = threshold.is_met(score, &self.pentanomial());
        Some(if promote { GateVerdict::Promote } else { GateVerdict::Reject })
    }

    /// Two games of one opening with colours swapped; the first has `first_red` as red.
    fn game_pair(
        &mut self,
        round: u32,
        pair: u64,
        first_red: usize,
        first_black: usize,
        slot: usize,
    ) -> [ScheduledGame; 2] {
        let opening = self.order.opening(slot);
        let base = pair * 2;
        let g =
            |game: u64, red: usize, black: usize| ScheduledGame { game, round, pair, red, black, opening };
        [g(base, first_red, first_black), g(base + 1, first_black, first_red)]
    }

    fn plan(&mut self) {
        let n = self.config.players.len();
        match self.config.format.clone() {
            Format::Gauntlet { pairs, .. } => {
                for repetition in 0..pairs {
                    for opponent in 1..n {
                        let games = self.gauntlet_pair(repetition, opponent);
                        self.planned.extend(games);
                    }
                }
            }
            Format::RoundRobin { cycles } => {
                let table = berger_rounds(n);
                for cycle in 0..cycles as usize {
                    for (r, round) in table.iter().enumerate() {
                        let slot = cycle * table.len() + r;
                        for &(red, black) in round {
                            let pair = self.next_pair;
                            self.next_pair += 1;
                            let games = self.game_pair(slot as u32 + 1, pair, red, black, slot);
                            self.planned.extend(games);
                        }
                    }
                }
            }
            Format::Gate { threshold: GateThreshold::Sprt { .. }, .. } => {}
            Format::Gate { pairs, .. } => {
                for pair in 0..pairs {
                    let games = self.game_pair(1, pair, 0, 1, pair as usize);
                    self.planned.extend(games);
                }
                self.next_pair = pairs;
            }
            Format::Sprt { .. } | Format::Swiss { .. } => {}
        }
    }

    fn plan_swiss_round(&mut self, paired: bool) -> Result<(), EventError> {
        let n = self.config.players.len();
        let round = self.swiss_round + 1;
        let records = self.records();
        let byes: Vec<usize> = self.byes.iter().map(|&(_, p)| p).collect();
        let table = standings(&records, &byes, n, TieBreakRule::Swiss);
        let mut players: Vec<SwissPlayer> = (0..n)
            .map(|id| SwissPlayer {
                id,
                half_points: 0,
                colours: Vec::new(),
                opponents: BTreeSet::new(),
                had_bye: byes.contains(&id),
            })
            .collect();
        for s in &table {
            players[s.player].half_points = (s.points * 2.0).round() as u64;
        }
        // Colour history from the first game of each pairing (the pairing's allocation).
        for r in records.iter().filter(|r| !paired || r.game % 2 == 0) {
            players[r.red].colours.push(true);
            players[r.black].colours.push(false);
        }
        for r in &records {
            players[r.red].opponents.insert(r.black);
            players[r.black].opponents.insert(r.red);
        }
        let more_rounds = match self.config.format {
            Format::Swiss { rounds, .. } => round < rounds,
            _ => false,
        };
        let pairing = pair_swiss(&players, more_rounds).ok_or(EventError::NoPairing(round))?;
        if let Some(bye) = pairing.bye {
            self.byes.push((round, bye));
        }
        let slot = self.swiss_round as usize;
        for (red, black) in pairing.pairs {
            let pair = self.next_pair;
            self.next_pair += 1;
            let games = self.game_pair(round, pair, red, black, slot);
            if paired {
                self.planned.extend(games);
            } else {
                // Single games keep the even number (the pairing's allocation) of the pair.
                self.planned.push(games[0]);
            }
        }
        self.swiss_round = round;
        Ok(())
    }
}

/// Round-robin rounds for `n` players by the circle method (Berger tables): `n − 1` rounds for
/// even `n`, `n` for odd (one player sits out each round). The first of each pair has red in
/// the pair's first game (13.1: "每轮号码列前者执红棋").
///
/// ```
/// let rounds = xq_eval::events::berger_rounds(4);
/// assert_eq!(rounds.len(), 3);
/// assert!(rounds.iter().all(|r| r.len() == 2));
/// ```
pub fn berger_rounds(n: usize) -> Vec<Vec<(usize, usize)>> {
    if n < 2 {
        return Vec::new();
    }
    let m = if n.is_multiple_of(2) { n } else { n + 1 }; // a dummy player `n` marks the sit-out
    let fixed = m - 1;
    let mut rounds = Vec::with_capacity(m - 1);
    for r in 0..m - 1 {
        let mut round = Vec::with_capacity(m / 2);
        // The fixed player meets r; it alternates colours so it is not always red.
        let (a, b) = if r % 2 == 0 { (r, fixed) } else { (fixed, r) };
        round.push((a, b));
        for i in 1..m / 2 {
            let x = (r + i) % (m - 1);
            let y = (r + m - 1 - i) % (m - 1);
            round.push(if i % 2 == 1 { (y, x) } else { (x, y) });
        }
        round.retain(|&(a, b)| a < n && b < n);
        rounds.push(round);
    }
    rounds
}

/// A player as the Swiss pairing sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwissPlayer {
    /// Player index.
    pub id: usize,
    /// Points so far, in half points.
    pub half_points: u64,
    /// Colours of earlier pairings, in order (`true` = red).
    pub colours: Vec<bool>,
    /// Opponents met.
    pub opponents: BTreeSet<usize>,
    /// Whether the player already had a bye.
    pub had_bye: bool,
}

impl SwissPlayer {
    fn colour_difference(&self) -> i64 {
        self.colours.iter().map(|&red| if red { 1 } else { -1 }).sum()
    }

    /// Whether taking `red` keeps the colour rule: |reds − blacks| ≤ `limit` and (when
    /// `no_three`) not the same colour three times running.
    fn accepts(&self, red: bool, limit: i64, no_three: bool) -> bool {
        let diff = self.colour_difference() + if red { 1 } else { -1 };
        if diff.abs() > limit {
            return false;
        }
        let n = self.colours.len();
        !(no_three && n >= 2 && self.colours[n - 1] == red && self.colours[n - 2] == red)
    }
}

/// One Swiss round: `(red, black)` pairs and the player with the bye.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwissPairing {
    /// Pairs, red first.
    pub pairs: Vec<(usize, usize)>,
    /// The player without an opponent (odd counts).
    pub bye: Option<usize>,
}

/// Pairs a Swiss round (积分编排制).
///
/// The rulebook's appendix 2 (编排原则) is not among the seeds, so the rules are the usual ones
/// of the Dutch system, in priority order:
/// 1. no two players meet twice, and no player gets a second bye (absolute);
/// 2. colours: after the round every player has |reds − blacks| ≤ 1; if no pairing allows it,
///    |reds − blacks| ≤ 2 and never the same colour three times running (FIDE C.04 absolute
///    colour criteria); if none allows even that, colours are unconstrained (completing the
///    round matters more than colours, and a game pair evens them out anyway);
/// 3. players are paired inside their score group, top half against bottom half in ranking
///    order (score, then index); a player who cannot be paired in its group floats down to
///    the next group (the search tries the nearest scores first);
/// 4. the bye goes to the lowest-ranked player who has not had one.
///
/// Colours: the player with the larger colour difference (reds − blacks) gets black; when
/// equal, the one whose last colour was red gets black; otherwise the higher ranked gets the
/// colour opposite to its last, red in its first game.
///
/// With `look_ahead` (more rounds follow), a pairing is taken only if the next round can still
/// be paired without repeats (a greedy Swiss can otherwise paint itself into a corner, e.g. six
/// players whose unplayed games after three rounds form two triangles); when no such pairing
/// exists the round is paired without the look-ahead.
///
/// Returns `None` when no pairing satisfies rule 1.
pub fn pair_swiss(players: &[SwissPlayer], look_ahead: bool) -> Option<SwissPairing> {
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by(|&a, &b| {
        players[b].half_points.cmp(&players[a].half_points).then(players[a].id.cmp(&players[b].id))
    });
    let bye_candidates: Vec<Option<usize>> = if players.len() % 2 == 1 {
        order.iter().rev().filter(|&&i| !players[i].had_bye).map(|&i| Some(i)).collect()
    } else {
        vec![None]
    };
    let look_aheads: &[bool] = if look_ahead { &[true, false] } else { &[false] };
    for (&look_ahead, (limit, no_three)) in
        look_aheads.iter().flat_map(|l| [(1, true), (2, true), (i64::MAX, false)].map(move |c| (l, c)))
    {
        for &bye in &bye_candidates {
            let rest: Vec<usize> = order.iter().copied().filter(|&i| Some(i) != bye).collect();
            let mut search = PairingConstraints { limit, no_three, budget: 200_000, look_ahead, bye };
            let mut pairs = Vec::new();
            if match_dfs(players, &rest, &mut vec![false; players.len()], &mut pairs, &mut search) {
                return Some(SwissPairing {
                    pairs: pairs.into_iter().map(|(r, b)| (players[r].id, players[b].id)).collect(),
                    bye: bye.map(|i| players[i].id),
                });
            }
        }
    }
    None
}

/// Colours for a pairing of `a` (ranked higher) and `b`: `true` when `a` gets red.
fn a_gets_red(a: &SwissPlayer, b: &SwissPlayer) -> bool {
    let (da, db) = (a.colour_difference(), b.colour_difference());
    if da != db {
        return da < db;
    }
    match (a.colours.last(), b.colours.last()) {
        (Some(&la), Some(&lb)) if la != lb => !la,
        (Some(&la), _) => !la,
        (None, Some(&lb)) => lb,
        (None, None) => true,
    }
}

// The colour constraints and node budget of one depth-first pairing search.
struct PairingConstraints {
    /// Largest |reds − blacks| allowed after the round.
    limit: i64,
    /// Forbid the same colour three times running.
    no_three: bool,
    /// Nodes left to visit.
    budget: u64,
    /// Require the next round to stay pairable.
    look_ahead: bool,
    /// This round's bye (index into the players).
    bye: Option<usize>,
}

/// Whether a round after this one (`pairs`, `bye`) can be paired without repeats, ignoring
/// scores and colours.
fn next_round_pairable(players: &[SwissPlayer], pairs: &[(usize, usize)], bye: Option<usize>) -> bool {
    let n = players.len();
    let mut met: Vec<Vec<bool>> =
        players.iter().map(|p| players.iter().map(|q| p.opponents.contains(&q.id)).collect()).collect();
    for &(a, b) in pairs {
        met[a][b] = true;
        met[b][a] = true;
    }
    let candidates: Vec<Option<usize>> = if n % 2 == 1 {
        (0..n).filter(|&i| !players[i].had_bye && Some(i) != bye).map(Some).collect()
    } else {
        vec![None]
    };
    fn matchable(met: &[Vec<bool>], used: &mut [bool], budget: &mut u64) -> bool {
        let Some(p) = used.iter().position(|&u| !u) else { return true };
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        used[p] = true;
        for q in 0..used.len() {
            if !used[q] && !met[p][q] {
                used[q] = true;
                if matchable(met, used, budget) {
                    return true;
                }
                used[q] = false;
            }
        }
        used[p] = false;
        false
    }
    let mut budget = 100_000u64;
    candidates.into_iter().any(|next_bye| {
        let mut used = vec![false; n];
        if let Some(b) = next_bye {
            used[b] = true;
        }
        matchable(&met, &mut used, &mut budget)
    })
}

fn match_dfs(
    players: &[SwissPlayer],
    order: &[usize],
    used: &mut Vec<bool>,
    pairs: &mut Vec<(usize, usize)>,
    search: &mut PairingConstraints,
) -> bool {
    let Some(pos) = order.iter().position(|&i| !used[i]) else {
        return !search.look_ahead || next_round_pairable(players, pairs, search.bye);
    };
    if search.budget == 0 {
        return false;
    }
    search.budget -= 1;
    let (limit, no_three) = (search.limit, search.no_three);
    let p = order[pos];
    used[p] = true;
    // Candidates: nearest score first; inside the score group, the Dutch partner (the player
    // half a group below) first.
    let free: Vec<usize> = order.iter().copied().filter(|&i| !used[i]).collect();
    let group: Vec<usize> =
        free.iter().copied().filter(|&i| players[i].half_points == players[p].half_points).collect();
    let dutch_offset = group.len().div_ceil(2).saturating_sub(1);
    let mut candidates: Vec<(u64, usize, usize)> = free
        .iter()
        .enumerate()
        .map(|(rank, &q)| {
            let gap = players[p].half_points.abs_diff(players[q].half_points);
            let in_group =
                group.iter().position(|&g| g == q).map_or(usize::MAX, |k| k.abs_diff(dutch_offset));
            (gap, in_group, rank)
        })
        .collect();
    candidates.sort_unstable();
    for (_, _, rank) in candidates {
        let q = free[rank];
        if players[p].opponents.contains(&players[q].id) {
            continue;
        }
        let p_red = a_gets_red(&players[p], &players[q]);
        let ok = |red_for_p: bool| {
            players[p].accepts(red_for_p, limit, no_three) && players[q].accepts(!red_for_p, limit, no_three)
        };
        // Prefer the allocation rule; take the other colours when only they keep the limits.
        let Some(red_for_p) = [p_red, !p_red].into_iter().find(|&c| ok(c)) else { continue };
        used[q] = true;
        pairs.push(if red_for_p { (p, q) } else { (q, p) });
        if match_dfs(players, order, used, pairs, search) {
            return true;
        }
        pairs.pop();
        used[q] = false;
    }
    used[p] = false;
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn berger_covers_every_pair_once() {
        for n in 2..=11 {
            let rounds = berger_rounds(n);
            let mut seen = BTreeSet::new();
            for round in &rounds {
                let mut in_round = BTreeSet::new();
                for &(a, b) in round {
                    assert!(a != b && a < n && b < n);
                    assert!(in_round.insert(a) && in_round.insert(b), "a player twice in a round");
                    assert!(seen.insert((a.min(b), a.max(b))), "pair repeated");
                }
            }
            assert_eq!(seen.len(), n * (n - 1) / 2, "n = {n}");
        }
    }
}
