//! The calibrated strength scale: a fixed set of anchor players rated once among themselves
//! ([`calibrate`]), saved with their intervals in a versioned file ([`ScaleFile`],
//! `data/scale/anchors-v1.json`), and any player placed on it by playing the anchors nearest
//! to its strength until its interval is narrow enough ([`rate`]).
//!
//! **Calibration.** The anchors are listed weakest first. Each plays the `neighbours` anchors
//! after it in the list `pairs` game pairs (colours swapped within a pair), one event per
//! meeting under `<out>/meetings/`, so a killed calibration resumes meeting by meeting and game
//! by game. The ratings are fitted over every game at once by maximum likelihood
//! ([`fit_ratings`]) and pinned at one named anchor. Neighbours in the list should be within
//! some 400 Elo of each other: the information a game carries falls off quickly with the gap.
//!
//! **Placing a player.** [`rate`] starts at the anchor whose rating is the median of the scale
//! and then, step by step, plays `pairs_per_step` game pairs against the anchor nearest to the
//! player's current estimate ([`place_against_anchors`], the anchors held at their ratings),
//! until the estimate's 95% half-width is under the target or the games run out. Each step is
//! an event of its own under `<out>/steps/`; the choice of the next anchor depends only on the
//! games before it, so a rerun replays the finished steps from their journals and goes on.
//!
//! ```
//! use xq_eval::scale::ScaleConfig;
//! let config = ScaleConfig::from_toml(r#"
//!     name = "tiny"
//!     pin = "random"
//!     pairs = 2
//!     [[anchors]]
//!     kind = "random"
//!     name = "random"
//!     [[anchors]]
//!     kind = "greedy"
//!     name = "greedy"
//! "#).unwrap();
//! assert_eq!(config.meetings(), vec![(0, 1)]);
//! ```

use crate::events::Format;
use crate::rating::{
    AnchorGames, DEFAULT_PRIOR_DRAWS, FitOptions, PairwiseResults, Placement, RatingError, fit_ratings,
    place_against_anchors,
};
use crate::report::{EventReport, PlayerSpeed};
use crate::runner::{
    Adjudication, Limits, OutputSettings, PlayerSpec, RunConfig, RunError, RunOptions, run_event,
};
use crate::stats::Wdl;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use thiserror::Error;
use xq_core::GameRules;
use xq_play::derive_seed;

/// The layout version of [`ScaleFile`]; a file of another version is refused.
pub const SCALE_FILE_VERSION: u32 = 1;

/// The 95% half-width [`rate`] plays down to unless told otherwise.
pub const DEFAULT_TARGET_HALF_WIDTH: f64 = 50.0;

/// Mixed into the scale's seed for the seeds of a rating's steps, so they differ from the
/// calibration's meetings.
const RATE_SEED_SALT: u64 = 0x5CA1_E0F0_0000_0001;

/// Why a scale could not be calibrated, read or used.
#[derive(Debug, Error)]
pub enum ScaleError {
    /// The scale or rating configuration is inconsistent (the message says how).
    #[error("config: {0}")]
    Config(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A scale file that does not parse, or of another layout version.
    #[error("{path}: {message}")]
    BadFile {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A meeting or step could not be played.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The games could not be rated.
    #[error(transparent)]
    Rating(#[from] RatingError),
}

fn default_neighbours() -> usize {
    2
}

fn default_prior_draws() -> f64 {
    DEFAULT_PRIOR_DRAWS
}

/// A scale's configuration (`configs/scale-v1.toml`): the anchors, weakest first, and how
/// they meet. Unknown keys are errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleConfig {
    /// The scale's name and version, e.g. `xq-scale-v1`.
    pub name: String,
    /// Seed of every meeting's openings and games.
    #[serde(default)]
    pub seed: u64,
    /// The anchor whose rating is fixed.
    pub pin: String,
    /// Its rating (0 unless given).
    #[serde(default)]
    pub pin_elo: f64,
    /// Game pairs per meeting.
    pub pairs: u32,
    /// How many of the next anchors in the list each anchor meets.
    #[serde(default = "default_neighbours")]
    pub neighbours: usize,
    /// Virtual draws per pair that met ([`crate::rating`]).
    #[serde(default = "default_prior_draws")]
    pub prior_draws: f64,
    /// An opening book file; the bundled one when absent. Deterministic anchors replay the
    /// same game from the same opening, so a book with many lines gives more distinct games.
    #[serde(default)]
    pub book: Option<PathBuf>,
    /// Openings of the book to use; the whole book when absent.
    #[serde(default)]
    pub openings: Option<usize>,
    /// `[rules]`.
    #[serde(default)]
    pub rules: GameRules,
    /// `[adjudication]`.
    #[serde(default)]
    pub adjudication: Adjudication,
    /// The anchors, weakest first, each with its own budget (depth, nodes or movetime).
    pub anchors: Vec<PlayerSpec>,
}

impl ScaleConfig {
    /// Parses and checks a TOML configuration.
    ///
    /// # Errors
    /// [`ScaleError::Config`] naming the unknown key or the inconsistency.
    pub fn from_toml(text: &str) -> Result<ScaleConfig, ScaleError> {
        let config: ScaleConfig = toml::from_str(text).map_err(|e| ScaleError::Config(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// Reads and checks a TOML configuration file.
    ///
    /// # Errors
    /// [`ScaleError::Io`] when unreadable, [`ScaleError::Config`] as [`ScaleConfig::from_toml`].
    pub fn load(path: &Path) -> Result<ScaleConfig, ScaleError> {
        let text = std::fs::read_to_string(path).map_err(io_error(path))?;
        ScaleConfig::from_toml(&text).map_err(|e| match e {
            ScaleError::Config(m) => ScaleError::Config(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// Checks what serde cannot.
    ///
    /// # Errors
    /// [`ScaleError::Config`].
    pub fn validate(&self) -> Result<(), ScaleError> {
        let bad = |m: String| Err(ScaleError::Config(m));
        if self.anchors.len() < 2 {
            return bad("a scale needs at least two anchors".into());
        }
        if self.pairs == 0 || self.neighbours == 0 {
            return bad("pairs and neighbours must be at least 1".into());
        }
        if !(self.pin_elo.is_finite() && self.prior_draws.is_finite() && self.prior_draws >= 0.0) {
            return bad("pin_elo must be a number and prior_draws a number ≥ 0".into());
        }
        let mut names = BTreeSet::new();
        for anchor in &self.anchors {
            if !names.insert(anchor.name()) {
                return bad(format!("anchor name {:?} appears twice", anchor.name()));
            }
        }
        if !names.contains(self.pin.as_str()) {
            return bad(format!("the pin {:?} is not an anchor", self.pin));
        }
        // Every meeting must make a valid event (the players' own budgets included).
        for (i, j) in self.meetings() {
            self.meeting_config(i, j).validate().map_err(|e| ScaleError::Config(e.to_string()))?;
        }
        Ok(())
    }

    /// The meetings `(i, j)`, `i < j` indices into the anchors, in the order they are played.
    pub fn meetings(&self) -> Vec<(usize, usize)> {
        let n = self.anchors.len();
        let mut meetings = Vec::new();
        for gap in 1..=self.neighbours.min(n - 1) {
            for i in 0..n - gap {
                meetings.push((i, i + gap));
            }
        }
        meetings
    }

    /// The event of anchors `i` and `j`: a gauntlet of `pairs` pairs, the weaker anchor first.
    pub fn meeting_config(&self, i: usize, j: usize) -> RunConfig {
        let (a, b) = (&self.anchors[i], &self.anchors[j]);
        RunConfig {
            name: format!("{} {} vs {}", self.name, a.name(), b.name()),
            seed: derive_seed(self.seed, (i * self.anchors.len() + j) as u64),
            concurrency: 1,
            openings: self.openings,
            book: self.book.clone(),
            format: Format::Gauntlet { pairs: self.pairs, until_decided: None },
            rules: self.rules,
            adjudication: self.adjudication,
            limits: Limits::default(),
            output: OutputSettings::default(),
            players: vec![a.clone(), b.clone()],
        }
    }
}

/// One anchor of a calibrated scale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    /// The player, with its own budget: what [`rate`] plays.
    pub player: PlayerSpec,
    /// Its Elo on the scale.
    pub elo: f64,
    /// Half-width of its 95% interval relative to the pin.
    pub half_width: f64,
    /// Its games in the calibration, from its view.
    pub wdl: Wdl,
    /// Measured seconds a move over the calibration.
    pub seconds_per_move: Option<f64>,
    /// Measured search nodes a move (players that count them).
    pub nodes_per_move: Option<f64>,
}

impl Anchor {
    /// The anchor's name.
    pub fn name(&self) -> &str {
        self.player.name()
    }
}

/// The games of two anchors in the calibration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meeting {
    /// The weaker-listed anchor.
    pub a: String,
    /// The other.
    pub b: String,
    /// Results from `a`'s view.
    pub wdl: Wdl,
}

/// A calibrated scale as saved (`data/scale/anchors-v1.json`): everything needed to play its
/// anchors again and to place a player on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleFile {
    /// [`SCALE_FILE_VERSION`].
    pub version: u32,
    /// The scale's name.
    pub name: String,
    /// The command that made the file.
    pub command: String,
    /// Where and how it was made (machine, threads), free text.
    pub note: String,
    /// The pinned anchor and its rating.
    pub pin: String,
    /// The pinned anchor's rating.
    pub pin_elo: f64,
    /// Virtual draws per pair in the fit.
    pub prior_draws: f64,
    /// The seed of the calibration (a rating's steps derive theirs from it).
    pub seed: u64,
    /// The opening book the games used (the bundled one when absent).
    pub book: Option<PathBuf>,
    /// Openings of the book used.
    pub openings: Option<usize>,
    /// The rules of every game.
    pub rules: GameRules,
    /// The adjudication of every game.
    pub adjudication: Adjudication,
    /// The anchors, weakest first as configured.
    pub anchors: Vec<Anchor>,
    /// Every meeting's games.
    pub meetings: Vec<Meeting>,
}

impl ScaleFile {
    /// Reads a scale file.
    ///
    /// # Errors
    /// [`ScaleError::Io`], or [`ScaleError::BadFile`] for a file that does not parse or has
    /// another version.
    pub fn load(path: &Path) -> Result<ScaleFile, ScaleError> {
        let text = std::fs::read_to_string(path).map_err(io_error(path))?;
        let bad = |message: String| ScaleError::BadFile { path: path.display().to_string(), message };
        let file: ScaleFile = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if file.version != SCALE_FILE_VERSION {
            return Err(bad(format!(
                "scale file version {} (this build reads {SCALE_FILE_VERSION})",
                file.version
            )));
        }
        if file.anchors.is_empty() {
            return Err(bad("no anchors".into()));
        }
        if let Some(a) = file.anchors.iter().find(|a| !a.elo.is_finite() || !a.half_width.is_finite()) {
            return Err(bad(format!("anchor {:?} has no finite rating", a.name())));
        }
        Ok(file)
    }

    /// Writes the file atomically (a temporary name, then a rename).
    ///
    /// # Errors
    /// [`ScaleError::Io`].
    pub fn save(&self, path: &Path) -> Result<(), ScaleError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        }
        let text = serde_json::to_string_pretty(self).expect("a scale serializes") + "\n";
        xq_files::write_atomic(path, text.as_bytes()).map_err(io_error(path))
    }

    /// An anchor by name.
    pub fn anchor(&self, name: &str) -> Option<&Anchor> {
        self.anchors.iter().find(|a| a.name() == name)
    }

    /// The anchors as a Markdown table, weakest first.
    pub fn to_markdown(&self) -> String {
        let mut text = format!(
            "# {}\n\nPinned: {} = {:.0}. Elo with 95% intervals relative to the pin.\n\n\
             | Anchor | Budget | Elo | ± | Games | Score | ms/move | nodes/move |\n\
             |---|---|---:|---:|---:|---:|---:|---:|\n",
            self.name, self.pin, self.pin_elo
        );
        for a in &self.anchors {
            let score = a.wdl.score().map_or_else(|_| "–".to_string(), |s| format!("{:.1}%", 100.0 * s));
            text.push_str(&format!(
                "| {} | {} | {:.0} | {:.0} | {} | {score} | {} | {} |\n",
                a.name(),
                a.player.own_limits(),
                a.elo,
                a.half_width,
                a.wdl.games(),
                a.seconds_per_move.map_or_else(|| "–".to_string(), |s| format!("{:.1}", 1000.0 * s)),
                a.nodes_per_move.map_or_else(|| "–".to_string(), |n| format!("{n:.0}")),
            ));
        }
        text.push_str(
            "\n## Meetings\n\nEach pair's games (from the first-named anchor's view) and the gap the fit puts \
             between them.\n\n| Anchors | +/=/− | Score | Elo gap |\n|---|---:|---:|---:|\n",
        );
        for m in &self.meetings {
            let score = m.wdl.score().map_or_else(|_| "–".to_string(), |s| format!("{:.1}%", 100.0 * s));
            let gap = match (self.anchor(&m.a), self.anchor(&m.b)) {
                (Some(a), Some(b)) => format!("{:+.0}", a.elo - b.elo),
                _ => "–".to_string(),
            };
            text.push_str(&format!(
                "| {} – {} | +{} ={} −{} | {score} | {gap} |\n",
                m.a, m.b, m.wdl.wins, m.wdl.draws, m.wdl.losses
            ));
        }
        if !self.command.is_empty() {
            text.push_str(&format!("\nMade by `{}` ({}).\n", self.command, self.note));
        }
        text
    }
}

/// How a calibration or a rating plays its events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayOptions {
    /// Games at once (1 unless given; timed players need a core each).
    pub concurrency: Option<usize>,
    /// Stop after this many new games in this run (the rest on a rerun).
    pub max_new_games: Option<usize>,
}

/// What a calibration or a rating is doing, for a progress line.
#[derive(Clone, Debug, PartialEq)]
pub struct ScaleProgress {
    /// The event being played.
    pub event: String,
    /// Its games finished.
    pub finished: usize,
    /// Its games in all.
    pub of: usize,
    /// Games finished in earlier events of this calibration or rating.
    pub before: usize,
}

/// Moves, seconds and nodes summed over events, to give a player's speed over all of them.
#[derive(Clone, Copy, Debug, Default)]
struct SpeedSum {
    moves: f64,
    seconds: f64,
    nodes: f64,
    moves_with_nodes: f64,
}

impl SpeedSum {
    fn add(&mut self, speed: &PlayerSpeed) {
        let moves = f64::from(speed.moves);
        if let Some(s) = speed.seconds_per_move {
            self.moves += moves;
            self.seconds += s * moves;
        }
        if let Some(n) = speed.nodes_per_move {
            self.nodes += n * moves;
            self.moves_with_nodes += moves;
        }
    }

    fn seconds_per_move(&self) -> Option<f64> {
        (self.moves > 0.0).then(|| self.seconds / self.moves)
    }

    fn nodes_per_move(&self) -> Option<f64> {
        (self.moves_with_nodes > 0.0).then(|| self.nodes / self.moves_with_nodes)
    }
}

/// Plays one event to its end (or to the run's game limit), returning its report and the
/// games it played now; `None` when the limit left no games for it.
fn play_event(
    config: &mut RunConfig,
    out: &Path,
    options: &PlayOptions,
    played_so_far: usize,
    before: usize,
    progress: &mut dyn FnMut(&ScaleProgress),
) -> Result<(EventReport, usize), ScaleError> {
    if let Some(c) = options.concurrency {
        config.concurrency = c.max(1);
    }
    let left = options.max_new_games.map(|m| m.saturating_sub(played_so_far));
    let of = config.max_games();
    let event = config.name.clone();
    let summary = run_event(config, out, &RunOptions { max_games_this_run: left }, &mut |p| {
        progress(&ScaleProgress { event: event.clone(), finished: p.finished, of, before })
    })?;
    Ok((summary.report, summary.played))
}

fn pair_wdl(report: &EventReport, a: &str, b: &str) -> Wdl {
    report
        .pairs
        .iter()
        .find_map(|p| {
            if p.a == a && p.b == b {
                Some(p.games.total)
            } else if p.a == b && p.b == a {
                Some(p.games.total.flipped())
            } else {
                None
            }
        })
        .unwrap_or_default()
}

/// A calibration's outcome: the scale (complete or not) and whether every meeting finished.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// The scale fitted over the games so far.
    pub scale: ScaleFile,
    /// Whether every meeting has all its games.
    pub complete: bool,
    /// Games played in this run.
    pub played: usize,
}

/// Plays (or resumes) every meeting of `config` under `out/meetings/` and fits the scale over
/// all their games. `command` and `note` are recorded in the file.
///
/// # Errors
/// [`ScaleError::Run`] when a meeting cannot be played, [`ScaleError::Rating`] when the games
/// so far do not link every anchor to the pin.
pub fn calibrate(
    config: &ScaleConfig,
    out: &Path,
    options: &PlayOptions,
    command: &str,
    note: &str,
    progress: &mut dyn FnMut(&ScaleProgress),
) -> Result<Calibration, ScaleError> {
    config.validate()?;
    let mut results = PairwiseResults::new();
    for anchor in &config.anchors {
        results.add_player(anchor.name());
    }
    let mut speeds = vec![SpeedSum::default(); config.anchors.len()];
    let mut meetings = Vec::new();
    let (mut played, mut before, mut complete) = (0, 0, true);
    for (i, j) in config.meetings() {
        let mut event = config.meeting_config(i, j);
        let dir = out.join("meetings").join(format!(
            "{}--{}",
            slug(config.anchors[i].name()),
            slug(config.anchors[j].name())
        ));
        let (report, now) = play_event(&mut event, &dir, options, played, before, progress)?;
        played += now;
        before += report.games;
        complete &= report.finished;
        let (a, b) = (config.anchors[i].name(), config.anchors[j].name());
        let wdl = pair_wdl(&report, a, b);
        if wdl.games() > 0 {
            results.add(a, b, wdl)?;
        }
        for speed in &report.speed {
            if let Some(k) = config.anchors.iter().position(|p| p.name() == speed.name) {
                speeds[k].add(speed);
            }
        }
        meetings.push(Meeting { a: a.to_string(), b: b.to_string(), wdl });
    }
    let fit = fit_ratings(
        &results,
        &FitOptions { pin: config.pin.clone(), pin_elo: config.pin_elo, prior_draws: config.prior_draws },
    )?;
    let anchors = config
        .anchors
        .iter()
        .zip(&speeds)
        .map(|(player, speed)| {
            let rating = fit.get(player.name()).expect("every anchor was added");
            Anchor {
                player: player.clone(),
                elo: rating.elo,
                half_width: rating.half_width,
                wdl: rating.wdl,
                seconds_per_move: speed.seconds_per_move(),
                nodes_per_move: speed.nodes_per_move(),
            }
        })
        .collect();
    let scale = ScaleFile {
        version: SCALE_FILE_VERSION,
        name: config.name.clone(),
        command: command.to_string(),
        note: note.to_string(),
        pin: config.pin.clone(),
        pin_elo: config.pin_elo,
        prior_draws: config.prior_draws,
        seed: config.seed,
        book: config.book.clone(),
        openings: config.openings,
        rules: config.rules,
        adjudication: config.adjudication,
        anchors,
        meetings,
    };
    Ok(Calibration { scale, complete, played })
}

/// `[rate]` of a rating configuration (`configs/rate-*.toml`): the player and how far to go.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateConfig {
    /// The player to place, with its own budget (`movetime_ms = 100` for equal time with the
    /// scale's 100 ms anchors).
    pub player: PlayerSpec,
    /// Game pairs against one anchor before the next anchor is chosen.
    #[serde(default = "default_pairs_per_step")]
    pub pairs_per_step: u32,
    /// Stop once the 95% half-width (anchors fixed) is under this many Elo.
    #[serde(default = "default_target")]
    pub target_half_width: f64,
    /// Stop after this many games even if the interval is wider.
    #[serde(default = "default_max_games")]
    pub max_games: usize,
}

fn default_pairs_per_step() -> u32 {
    10
}

fn default_target() -> f64 {
    DEFAULT_TARGET_HALF_WIDTH
}

fn default_max_games() -> usize {
    600
}

impl RateConfig {
    /// A rating of `player` with the default steps, target and game limit.
    pub fn new(player: PlayerSpec) -> RateConfig {
        RateConfig {
            player,
            pairs_per_step: default_pairs_per_step(),
            target_half_width: default_target(),
            max_games: default_max_games(),
        }
    }

    /// Parses and checks a TOML rating configuration.
    ///
    /// # Errors
    /// [`ScaleError::Config`].
    pub fn from_toml(text: &str) -> Result<RateConfig, ScaleError> {
        let config: RateConfig = toml::from_str(text).map_err(|e| ScaleError::Config(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// Reads and checks a TOML rating configuration file.
    ///
    /// # Errors
    /// [`ScaleError::Io`], [`ScaleError::Config`].
    pub fn load(path: &Path) -> Result<RateConfig, ScaleError> {
        let text = std::fs::read_to_string(path).map_err(io_error(path))?;
        RateConfig::from_toml(&text).map_err(|e| match e {
            ScaleError::Config(m) => ScaleError::Config(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// Checks the values.
    ///
    /// # Errors
    /// [`ScaleError::Config`].
    pub fn validate(&self) -> Result<(), ScaleError> {
        if self.pairs_per_step == 0 || self.max_games == 0 {
            return Err(ScaleError::Config("pairs_per_step and max_games must be at least 1".into()));
        }
        if !(self.target_half_width.is_finite() && self.target_half_width > 0.0) {
            return Err(ScaleError::Config("target_half_width must be a positive number".into()));
        }
        Ok(())
    }
}

/// One step of a rating: pairs against one anchor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RateStep {
    /// The anchor played.
    pub anchor: String,
    /// Its rating on the scale.
    pub anchor_elo: f64,
    /// The player's results, from its view.
    pub wdl: Wdl,
}

/// Where a rating stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The player.
    pub player: String,
    /// The scale.
    pub scale: String,
    /// The placement over every step so far (none before the first game).
    pub placement: Option<Placement>,
    /// The steps, in order.
    pub steps: Vec<RateStep>,
    /// Whether the interval reached the target.
    pub reached_target: bool,
    /// Whether the rating stopped (target reached or games used up); false when this run's
    /// game limit cut it short.
    pub finished: bool,
    /// The player's measured seconds a move.
    pub seconds_per_move: Option<f64>,
    /// Its measured nodes a move.
    pub nodes_per_move: Option<f64>,
}

impl Rating {
    /// A one-paragraph summary.
    pub fn to_markdown(&self) -> String {
        let mut text = format!("# {} on {}\n\n", self.player, self.scale);
        match &self.placement {
            Some(p) => text.push_str(&format!(
                "Elo **{:.0} ± {:.0}** (95%, anchors fixed; ± {:.0} with the anchors' own intervals) from \
                 {} games (+{} ={} −{}){}.\n",
                p.elo,
                p.half_width,
                p.scale_half_width,
                p.wdl.games(),
                p.wdl.wins,
                p.wdl.draws,
                p.wdl.losses,
                if self.reached_target { "" } else { "; the interval did not reach its target" }
            )),
            None => text.push_str("No games yet.\n"),
        }
        if let Some(s) = self.seconds_per_move {
            text.push_str(&format!("\nMeasured {:.1} ms a move", 1000.0 * s));
            if let Some(n) = self.nodes_per_move {
                text.push_str(&format!(", {n:.0} nodes a move"));
            }
            text.push_str(".\n");
        }
        text.push_str("\n| Step | Anchor | Anchor Elo | W | D | L |\n|---:|---|---:|---:|---:|---:|\n");
        for (k, s) in self.steps.iter().enumerate() {
            text.push_str(&format!(
                "| {} | {} | {:.0} | {} | {} | {} |\n",
                k + 1,
                s.anchor,
                s.anchor_elo,
                s.wdl.wins,
                s.wdl.draws,
                s.wdl.losses
            ));
        }
        text
    }
}

/// The anchor a rating plays next: the one nearest `estimate` (the lower on a tie).
fn nearest_anchor(scale: &ScaleFile, estimate: f64) -> usize {
    let mut best = 0;
    for (k, a) in scale.anchors.iter().enumerate() {
        if (a.elo - estimate).abs() < (scale.anchors[best].elo - estimate).abs() {
            best = k;
        }
    }
    best
}

/// The median anchor rating: where a rating starts.
fn median_elo(scale: &ScaleFile) -> f64 {
    let mut elos: Vec<f64> = scale.anchors.iter().map(|a| a.elo).collect();
    elos.sort_by(f64::total_cmp);
    elos[elos.len() / 2]
}

/// The placement over the steps so far.
fn placement_of(steps: &[RateStep], scale: &ScaleFile) -> Result<Option<Placement>, ScaleError> {
    let mut games: Vec<AnchorGames> = Vec::new();
    for s in steps.iter().filter(|s| s.wdl.games() > 0) {
        match games.iter_mut().find(|g| g.anchor == s.anchor) {
            Some(g) => g.wdl.add(s.wdl),
            None => {
                let anchor = scale.anchor(&s.anchor).expect("steps play the scale's anchors");
                games.push(AnchorGames {
                    anchor: s.anchor.clone(),
                    anchor_elo: anchor.elo,
                    anchor_half_width: anchor.half_width,
                    wdl: s.wdl,
                });
            }
        }
    }
    if games.is_empty() {
        return Ok(None);
    }
    Ok(Some(place_against_anchors(&games, scale.prior_draws)?))
}

/// Places `config.player` on `scale`, playing (or resuming) its steps under `out/steps/`.
///
/// # Errors
/// [`ScaleError::Config`] when the player's name is an anchor's, [`ScaleError::Run`] when a
/// step cannot be played (a journal from another player is refused, not mixed in).
pub fn rate(
    scale: &ScaleFile,
    config: &RateConfig,
    out: &Path,
    options: &PlayOptions,
    progress: &mut dyn FnMut(&ScaleProgress),
) -> Result<Rating, ScaleError> {
    config.validate()?;
    let name = config.player.name().to_string();
    if scale.anchor(&name).is_some() {
        return Err(ScaleError::Config(format!("the player {name:?} has an anchor's name; rename it")));
    }
    let mut steps: Vec<RateStep> = Vec::new();
    let mut speed = SpeedSum::default();
    let (mut played, mut games, mut finished, mut reached_target) = (0, 0, false, false);
    let mut placement = None;
    loop {
        let estimate = placement.as_ref().map_or_else(|| median_elo(scale), |p: &Placement| p.elo);
        if placement.as_ref().is_some_and(|p| p.half_width < config.target_half_width) {
            reached_target = true;
            finished = true;
            break;
        }
        if games >= config.max_games {
            finished = true;
            break;
        }
        let k = steps.len();
        let anchor = &scale.anchors[nearest_anchor(scale, estimate)];
        let pairs = config.pairs_per_step.min(((config.max_games - games) / 2).max(1) as u32);
        let mut event = RunConfig {
            name: format!("rate {name} on {} step {} vs {}", scale.name, k + 1, anchor.name()),
            seed: derive_seed(scale.seed ^ RATE_SEED_SALT, k as u64),
            concurrency: 1,
            openings: scale.openings,
            book: scale.book.clone(),
            format: Format::Gauntlet { pairs, until_decided: None },
            rules: scale.rules,
            adjudication: scale.adjudication,
            limits: Limits::default(),
            output: OutputSettings::default(),
            players: vec![config.player.clone(), anchor.player.clone()],
        };
        let dir = out.join("steps").join(format!("{:03}-{}", k + 1, slug(anchor.name())));
        let (report, now) = play_event(&mut event, &dir, options, played, games, progress)?;
        played += now;
        games += report.games;
        if let Some(s) = report.speed.iter().find(|s| s.name == name) {
            speed.add(s);
        }
        steps.push(RateStep {
            anchor: anchor.name().to_string(),
            anchor_elo: anchor.elo,
            wdl: pair_wdl(&report, &name, anchor.name()),
        });
        placement = placement_of(&steps, scale)?;
        if !report.finished {
            break;
        }
    }
    Ok(Rating {
        player: name,
        scale: scale.name.clone(),
        placement,
        steps,
        reached_target,
        finished,
        seconds_per_move: speed.seconds_per_move(),
        nodes_per_move: speed.nodes_per_move(),
    })
}

/// A player name as one directory name: ASCII letters, digits, `-` and `_` kept, anything else
/// one `-`.
fn slug(name: &str) -> String {
    let slug: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' })
        .collect();
    if slug.trim_matches('-').is_empty() { "player".to_string() } else { slug }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ScaleError + '_ {
    move |source| ScaleError::Io { path: path.display().to_string(), source }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scale_of(elos: &[f64]) -> ScaleFile {
        ScaleFile {
            version: SCALE_FILE_VERSION,
            name: "t".into(),
            command: String::new(),
            note: String::new(),
            pin: "a0".into(),
            pin_elo: 0.0,
            prior_draws: 1.0,
            seed: 0,
            book: None,
            openings: None,
            rules: GameRules::default(),
            adjudication: Adjudication::default(),
            anchors: elos
                .iter()
                .enumerate()
                .map(|(k, &elo)| Anchor {
                    player: PlayerSpec::Random { name: format!("a{k}") },
                    elo,
                    half_width: 10.0,
                    wdl: Wdl::default(),
                    seconds_per_move: None,
                    nodes_per_move: None,
                })
                .collect(),
            meetings: Vec::new(),
        }
    }

    #[test]
    fn meetings_link_each_anchor_to_its_next_neighbours() {
        let mut config = ScaleConfig::from_toml(
            "name = \"s\"\npin = \"r\"\npairs = 1\nneighbours = 2\n\
             [[anchors]]\nkind = \"random\"\nname = \"r\"\n[[anchors]]\nkind = \"greedy\"\nname = \"g\"\n\
             [[anchors]]\nkind = \"alphabeta\"\nname = \"d1\"\ndepth = 1\n[[anchors]]\nkind = \"alphabeta\"\nname = \"d2\"\ndepth = 2\n",
        )
        .unwrap();
        assert_eq!(config.meetings(), vec![(0, 1), (1, 2), (2, 3), (0, 2), (1, 3)]);
        config.neighbours = 9;
        assert_eq!(config.meetings().len(), 6);
    }

    #[test]
    fn a_scale_config_with_a_bad_pin_or_key_is_refused() {
        let anchors =
            "[[anchors]]\nkind = \"random\"\nname = \"r\"\n[[anchors]]\nkind = \"greedy\"\nname = \"g\"\n";
        let missing_pin = format!("name = \"s\"\npin = \"x\"\npairs = 1\n{anchors}");
        assert!(ScaleConfig::from_toml(&missing_pin).unwrap_err().to_string().contains("not an anchor"));
        let unknown = format!("name = \"s\"\npin = \"r\"\npairs = 1\nsped = 3\n{anchors}");
        assert!(ScaleConfig::from_toml(&unknown).unwrap_err().to_string().contains("sped"));
        let twice = "name = \"s\"\npin = \"r\"\npairs = 1\n[[anchors]]\nkind = \"random\"\nname = \"r\"\n\
                     [[anchors]]\nkind = \"greedy\"\nname = \"r\"\n";
        assert!(ScaleConfig::from_toml(twice).unwrap_err().to_string().contains("twice"));
    }

    #[test]
    fn a_rating_starts_at_the_median_and_follows_its_estimate() {
        let scale = scale_of(&[0.0, 300.0, 700.0, 1000.0]);
        assert_eq!(median_elo(&scale), 700.0);
        assert_eq!(nearest_anchor(&scale, 820.0), 2);
        assert_eq!(nearest_anchor(&scale, 860.0), 3);
        assert_eq!(nearest_anchor(&scale, -500.0), 0);
        // A sweep of the 700 anchor moves the estimate above it.
        let steps = [RateStep { anchor: "a2".into(), anchor_elo: 700.0, wdl: Wdl::new(10, 0, 0) }];
        let placed = placement_of(&steps, &scale).unwrap().unwrap();
        assert!(placed.elo > 900.0, "{placed:?}");
        assert_eq!(nearest_anchor(&scale, placed.elo), 3);
    }

    #[test]
    fn a_scale_file_of_another_version_is_refused() {
        let dir = std::env::temp_dir().join(format!("xq-scale-test-{}", std::process::id()));
        let path = dir.join("anchors.json");
        let mut scale = scale_of(&[0.0, 100.0]);
        scale.save(&path).unwrap();
        assert_eq!(ScaleFile::load(&path).unwrap(), scale);
        scale.version = 99;
        scale.save(&path).unwrap();
        assert!(ScaleFile::load(&path).unwrap_err().to_string().contains("version 99"));
        std::fs::write(&path, "{\"version\": 1").unwrap();
        assert!(matches!(ScaleFile::load(&path), Err(ScaleError::BadFile { .. })));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
