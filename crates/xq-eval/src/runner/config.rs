//! An event's configuration (`configs/eval-*.toml`): the format, the rules, adjudication, the
//! players' limits and the outputs.

use crate::events::{Event, EventConfig, Format};
use crate::pgn::PgnMovetext;
use crate::runner::RunError;
use crate::runner::players::PlayerSpec;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;
use xq_core::GameRules;
use xq_play::{Book, DrawAdjudication, GameOptions, ResignAdjudication, SearchLimits, TimeControl};

/// `[adjudication]`: how the runner ends games the rules have not ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Adjudication {
    /// Games still running after this many plies, counted from the start position (an
    /// opening's moves included), are drawn (`max_length`); 0 for no cap. Default
    /// [`xq_play::DEFAULT_MAX_PLIES`].
    pub max_plies: u32,
    /// Resign adjudication, off when absent.
    pub resign: Option<ResignAdjudication>,
    /// Draw adjudication, off when absent.
    pub draw: Option<DrawAdjudication>,
    /// Margin over a `movetime` limit before an in-process player loses on time, in ms; never
    /// when absent. At a time control (`tc`) it is the time a move may run past an empty
    /// clock (cutechess-cli's `timemargin`); 0 when absent.
    pub time_margin_ms: Option<u64>,
}

impl Default for Adjudication {
    fn default() -> Self {
        Adjudication { max_plies: xq_play::DEFAULT_MAX_PLIES, resign: None, draw: None, time_margin_ms: None }
    }
}

impl Adjudication {
    /// The runner's options (limits, seed and index are set per game).
    pub fn options(&self) -> GameOptions {
        GameOptions {
            max_plies: (self.max_plies > 0).then_some(self.max_plies),
            resign: self.resign,
            draw: self.draw,
            time_margin: self.time_margin_ms.map(Duration::from_millis),
            ..GameOptions::default()
        }
    }
}

/// How much a player may search per move: `[limits]` for every player of an event, and the
/// same keys on a `[[players]]` entry for that player alone (the player's own win). Each
/// player uses those that apply to it: tree search visits and time, alpha-beta depth, nodes
/// and time, engines depth, nodes and time. Equal `movetime_ms` for everyone is how strength
/// is compared at equal time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Tree-search visits per move.
    pub visits: Option<u32>,
    /// Milliseconds per move.
    pub movetime_ms: Option<u64>,
    /// Search depth in plies.
    pub depth: Option<u32>,
    /// Nodes per move.
    pub nodes: Option<u64>,
    /// A time control, `tc = "10+0.1"` (cutechess-cli's `[moves/]seconds[+increment]`): the
    /// player's clock runs through the game and a move past the time left loses on time.
    /// Engines are sent both clocks; in-process players search each move for the clock's
    /// share ([`xq_play::Clock::move_time`]), or `movetime_ms` when that is shorter.
    pub tc: Option<TimeControl>,
}

/// `800 visits, 200 ms/move, tc 10+0.1`; `no limit` when none is set.
impl std::fmt::Display for Limits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if let Some(v) = self.visits {
            parts.push(format!("{v} visits"));
        }
        if let Some(ms) = self.movetime_ms {
            parts.push(format!("{ms} ms/move"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth {d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("{n} nodes"));
        }
        if let Some(tc) = self.tc {
            parts.push(format!("tc {tc}"));
        }
        if parts.is_empty() { f.write_str("no limit") } else { f.write_str(&parts.join(", ")) }
    }
}

impl Limits {
    /// Whether a move's budget is wall time (`movetime_ms` or `tc`). Timed games that run at
    /// once share the CPU and slow each other's searches, so their players no longer get the
    /// time they are given.
    ///
    /// ```
    /// use xq_eval::runner::Limits;
    /// assert!(Limits { movetime_ms: Some(100), ..Limits::default() }.is_timed());
    /// assert!(!Limits { visits: Some(64), ..Limits::default() }.is_timed());
    /// ```
    pub fn is_timed(&self) -> bool {
        self.movetime_ms.is_some() || self.tc.is_some()
    }

    /// These limits, with `defaults` where these leave a key unset.
    pub fn or(self, defaults: Limits) -> Limits {
        Limits {
            visits: self.visits.or(defaults.visits),
            movetime_ms: self.movetime_ms.or(defaults.movetime_ms),
            depth: self.depth.or(defaults.depth),
            nodes: self.nodes.or(defaults.nodes),
            tc: self.tc.or(defaults.tc),
        }
    }

    /// As the runner gives them to a player.
    pub fn search_limits(self) -> SearchLimits {
        SearchLimits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.movetime_ms.map(Duration::from_millis),
            visits: self.visits,
            ..SearchLimits::NONE
        }
    }

    fn check(&self, whose: &str) -> Result<(), String> {
        if self.visits == Some(0)
            || self.movetime_ms == Some(0)
            || self.depth == Some(0)
            || self.nodes == Some(0)
        {
            return Err(format!("{whose}: visits, movetime_ms, depth and nodes must be at least 1"));
        }
        Ok(())
    }
}

/// What the PGN writes as a comment after each move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveComments {
    /// The move in Chinese notation (炮二平五).
    Chinese,
    /// No comments: the default, because simple PGN readers (the `cchess` Python package)
    /// stop at the first comment.
    #[default]
    None,
}

/// `[output]`: output settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputSettings {
    /// Move comments in the PGN.
    pub pgn_comments: MoveComments,
    /// The PGN's movetext: `iccs` (the default), `wxf`, `chinese` or `fairy`
    /// (Fairy-Stockfish coordinates, ranks 1–10, under `[Variant "xiangqi"]`).
    pub pgn_movetext: PgnMovetext,
    /// The PGN `Site` tag.
    pub site: String,
}

impl Default for OutputSettings {
    fn default() -> Self {
        OutputSettings {
            pgn_comments: MoveComments::None,
            pgn_movetext: PgnMovetext::Iccs,
            site: "xq eval".to_string(),
        }
    }
}

fn default_concurrency() -> usize {
    1
}

/// An event's whole configuration, as read from `configs/eval-*.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// The event's name (PGN `Event`).
    pub name: String,
    /// Seed of the opening order and of every game.
    #[serde(default)]
    pub seed: u64,
    /// Games played at once.
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// Openings of the book to use (`0`: the initial position only); the whole book when absent.
    #[serde(default)]
    pub openings: Option<usize>,
    /// An opening book file; the bundled `data/openings/openings.json` when absent.
    #[serde(default)]
    pub book: Option<PathBuf>,
    /// The format.
    pub format: Format,
    /// `[rules]`: xq-core's rules.
    #[serde(default)]
    pub rules: GameRules,
    /// `[adjudication]`.
    #[serde(default)]
    pub adjudication: Adjudication,
    /// `[limits]`: every player's limits per move, unless its own entry sets them.
    #[serde(default)]
    pub limits: Limits,
    /// `[output]`.
    #[serde(default)]
    pub output: OutputSettings,
    /// The players, in event order (player 0 is the candidate of an SPRT, gate or gauntlet).
    pub players: Vec<PlayerSpec>,
}

impl RunConfig {
    /// Whether any player's moves are budgeted in wall time ([`Limits::is_timed`]), by the
    /// event's `[limits]` or by the player's own entry.
    pub fn is_timed(&self) -> bool {
        self.limits.is_timed() || self.players.iter().any(|p| p.own_limits().is_timed())
    }

    /// Parses and checks a TOML configuration. Unknown keys are errors naming the key. A network
    /// player held to a clock with no `search` of its own gets the play-time search
    /// ([`PlayerSpec::with_play_time_search`]), which the event's record then names.
    pub fn from_toml(text: &str) -> Result<RunConfig, RunError> {
        let mut config: RunConfig = toml::from_str(text).map_err(|e| RunError::Config(e.to_string()))?;
        let limits = config.limits;
        config.players = config.players.into_iter().map(|p| p.with_play_time_search(limits)).collect();
        config.validate()?;
        Ok(config)
    }

    /// Parses and checks the JSON record of an event's configuration: the `config.json` that
    /// every event directory holds ([`CONFIG_FILE`](crate::runner::CONFIG_FILE)), so an event
    /// can be played again, or varied, from its own record. Unknown keys are errors.
    pub fn from_json(text: &str) -> Result<RunConfig, RunError> {
        let config: RunConfig = serde_json::from_str(text).map_err(|e| RunError::Config(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// Loads and checks a configuration: a TOML file (`configs/eval-*.toml`), a `.json` record,
    /// or an event directory, whose recorded `config.json` is read. The record holds
    /// `concurrency = 1` (the one setting a resumed event may change), so a caller that
    /// replays it sets the concurrency it wants.
    ///
    /// ```no_run
    /// # use xq_eval::runner::RunConfig;
    /// // The gate the loop played for generation 15, to replay or vary.
    /// let gate = RunConfig::load("models/loop-small/gates/g015".as_ref())?;
    /// # Ok::<(), xq_eval::runner::RunError>(())
    /// ```
    pub fn load(path: &Path) -> Result<RunConfig, RunError> {
        let record = RunConfig::is_record(path);
        let in_dir = path.join(crate::runner::CONFIG_FILE);
        let path = if path.is_dir() { in_dir.as_path() } else { path };
        let text = std::fs::read_to_string(path).map_err(crate::runner::io_error(path))?;
        let parsed = if record { RunConfig::from_json(&text) } else { RunConfig::from_toml(&text) };
        parsed.map_err(|e| match e {
            RunError::Config(m) => RunError::Config(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// Whether [`RunConfig::load`] reads `path` as an event's JSON record (an event directory or
    /// a `.json` file) rather than as a TOML file.
    pub fn is_record(path: &Path) -> bool {
        path.is_dir() || path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"))
    }

    /// Checks what serde cannot: unique names, positive budgets, a consistent event.
    pub fn validate(&self) -> Result<(), RunError> {
        let bad = |m: String| Err(RunError::Config(m));
        if self.concurrency == 0 {
            return bad("concurrency must be at least 1".into());
        }
        self.limits.check("limits").map_err(RunError::Config)?;
        let mut names = BTreeSet::new();
        for p in &self.players {
            if p.name().is_empty() {
                return bad("a player has an empty name".into());
            }
            if !names.insert(p.name()) {
                return bad(format!("player name {:?} appears twice", p.name()));
            }
            p.validate().map_err(RunError::Config)?;
        }
        self.rules.validate().map_err(|e| RunError::Config(e.to_string()))?;
        // The format and players only: the book is read when the event runs.
        Event::new(self.event_config(1))?;
        Ok(())
    }

    /// The event's configuration with a book of `book_len` openings.
    pub fn event_config(&self, book_len: usize) -> EventConfig {
        EventConfig {
            name: self.name.clone(),
            players: self.players.iter().map(|p| p.name().to_string()).collect(),
            format: self.format.clone(),
            openings: self.openings.unwrap_or(book_len).min(book_len),
            seed: self.seed,
        }
    }

    /// The most games the event can have (SPRT: its maximum; Swiss: every round full).
    pub fn max_games(&self) -> usize {
        let n = self.players.len();
        match &self.format {
            Format::Gauntlet { pairs, until_decided } => {
                let most = until_decided.map_or(*pairs, |until| until.max_pairs.max(*pairs));
                2 * most as usize * n.saturating_sub(1)
            }
            Format::RoundRobin { cycles } => *cycles as usize * n * n.saturating_sub(1),
            Format::Swiss { rounds, paired } => *rounds as usize * (n / 2) * if *paired { 2 } else { 1 },
            Format::Sprt { max_pairs, .. } => 2 * *max_pairs as usize,
            Format::Gate { pairs, .. } => 2 * *pairs as usize,
        }
    }

    /// The opening book: the configured file, or the bundled one.
    pub(crate) fn load_book(&self) -> Result<Book, RunError> {
        Ok(match &self.book {
            Some(path) => Book::load(path)?,
            None => Book::bundled(),
        })
    }
}
