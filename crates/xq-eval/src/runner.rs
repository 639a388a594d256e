//! Runs an event end to end: players built from a TOML configuration, games on many threads
//! with xq-core as the arbiter (through [`xq_play::play_game`]), a JSONL journal that lets a
//! killed event resume, and the outputs (PGN, JSON report, Markdown summary, SVG ladder).
//!
//! ```toml
//! name = "greedy vs random"
//! seed = 1
//! concurrency = 2
//! [format]
//! kind = "sprt"
//! max_pairs = 100
//! sprt = { elo0 = 0, elo1 = 50, alpha = 0.05, beta = 0.05, model = "logistic", method = "exact" }
//! [[players]]
//! kind = "greedy"
//! name = "greedy"
//! [[players]]
//! kind = "random"
//! name = "random"
//! ```
//!
//! **Reproducibility.** Game `g` is seeded with `derive_seed(seed, g)` and results are taken
//! into the event in game order, whatever thread finished first. An SPRT is therefore decided
//! at the same pair in every run; games that were in flight past the decision are dropped
//! ([`Event::withdraw_unfinished`]), not counted.
//!
//! **Resuming.** Every finished game is one line of `journal.jsonl` in the output directory,
//! flushed as it is written. A rerun with the same configuration and directory reads the
//! journal, rebuilds the event ([`Event::replay`]) and plays only the games still missing, so
//! the totals equal those of an uninterrupted run. A half-written last line (the process was
//! killed while writing it) is dropped and its game played again.

use crate::events::{Event, EventConfig, EventError, Format, ScheduledGame};
use crate::openings::{Book, OpeningError};
use crate::pgn::{PgnGame, PgnHeader};
use crate::plot::{PlotError, rating_ladder_svg};
use crate::record::{GameRecord, GameScore, player_tallies};
use crate::report::EventReport;
use crate::stats::{EloEstimate, SprtResult, SprtState, Wdl};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};
use thiserror::Error;
use xq_core::{Color, GameResult, GameRules, Outcome, RuleSet, Termination};
use xq_mcts::{SearchParams, SharedEvaluator, SharedStats};
use xq_play::{
    AlphaBetaPlayer, DrawAdjudication, Engine, EngineConfig, GameOptions, GreedyPlayer, MctsPlayer,
    Opening as PlayOpening, Player, PlayerError, Protocol, RandomPlayer, ResignAdjudication, SearchLimits,
    derive_seed, play_game,
};

/// The opening book shipped with the repository, used when the configuration names none.
const BUNDLED_BOOK: &str = include_str!("../../../data/openings/openings.json");

/// File names in the output directory.
pub const JOURNAL_FILE: &str = "journal.jsonl";
/// The games in Xiangqi PGN.
pub const PGN_FILE: &str = "games.pgn";
/// The JSON report.
pub const REPORT_JSON_FILE: &str = "report.json";
/// The Markdown summary.
pub const REPORT_MD_FILE: &str = "report.md";
/// The rating ladder chart.
pub const LADDER_SVG_FILE: &str = "ladder.svg";
/// The configuration the journal was written under, checked when an event resumes.
pub const CONFIG_FILE: &str = "config.json";

/// Why an event could not be run.
#[derive(Debug, Error)]
pub enum RunError {
    /// The configuration does not parse or is inconsistent (the message names the key).
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
    /// A journal line is not a journal entry.
    #[error("journal {path} line {line}: {message}")]
    Journal {
        /// The journal.
        path: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The journal was written by a different event configuration.
    #[error("journal does not belong to this event: {0}")]
    JournalMismatch(String),
    /// The event rejected the configuration or a result.
    #[error(transparent)]
    Event(#[from] EventError),
    /// The opening book is unreadable or inconsistent.
    #[error(transparent)]
    Book(#[from] OpeningError),
    /// The chart could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// A game thread stopped without a result (a panic outside any player).
    #[error("a game thread stopped: {0}")]
    Worker(String),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io { path: path.display().to_string(), source }
}

/// The 棋例 rule set, by name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleSetName {
    /// The seeds' rulebook (articles 24–29).
    #[default]
    Cxa,
    /// The 2020 edition's details.
    Cxa2020,
}

/// Resign adjudication settings (see [`ResignAdjudication`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResignSettings {
    /// Threshold in centipawns.
    pub score_cp: i32,
    /// Moves per side the threshold must hold for.
    pub moves: u32,
}

/// Draw adjudication settings (see [`DrawAdjudication`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawSettings {
    /// Plies before draw adjudication may happen.
    pub min_plies: u32,
    /// Threshold in centipawns.
    pub score_cp: i32,
    /// Moves per side the threshold must hold for.
    pub moves: u32,
}

/// How every game is conducted and adjudicated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GameSettings {
    /// The 棋例 rule set deciding repetitions.
    pub rule_set: RuleSetName,
    /// The natural move limit in plies without a capture (120 = 60 moves, 4.2.4).
    pub move_limit_plies: u32,
    /// Count at most ten checks of each side toward the natural limit (article 23.3).
    pub limit_counts_ten_checks: bool,
    /// Repetitions of a position that make a cycle adjudicated.
    pub repetition_count: u8,
    /// Games still running after this many plies are drawn (`max_length`); 0 for no cap.
    pub max_plies: u32,
    /// Resign adjudication, off when absent.
    pub resign: Option<ResignSettings>,
    /// Draw adjudication, off when absent.
    pub draw: Option<DrawSettings>,
    /// Margin over a `movetime` limit before an in-process player loses on time, in ms.
    pub time_margin_ms: Option<u64>,
}

impl Default for GameSettings {
    fn default() -> Self {
        let rules = GameRules::default();
        GameSettings {
            rule_set: RuleSetName::Cxa,
            move_limit_plies: rules.move_limit_plies,
            limit_counts_ten_checks: rules.limit_counts_ten_checks,
            repetition_count: rules.repetition_count,
            max_plies: 400,
            resign: None,
            draw: None,
            time_margin_ms: None,
        }
    }
}

impl GameSettings {
    /// The xq-core rules.
    pub fn rules(&self) -> GameRules {
        GameRules {
            rule_set: match self.rule_set {
                RuleSetName::Cxa => RuleSet::Cxa,
                RuleSetName::Cxa2020 => RuleSet::Cxa2020,
            },
            move_limit_plies: self.move_limit_plies,
            limit_counts_ten_checks: self.limit_counts_ten_checks,
            repetition_count: self.repetition_count,
        }
    }

    /// The runner's options (limits, seed and index are set per game).
    pub fn options(&self) -> GameOptions {
        GameOptions {
            max_plies: (self.max_plies > 0).then_some(self.max_plies),
            resign: self.resign.map(|r| ResignAdjudication { score_cp: r.score_cp, moves: r.moves }),
            draw: self.draw.map(|d| DrawAdjudication {
                min_plies: d.min_plies,
                score_cp: d.score_cp,
                moves: d.moves,
            }),
            time_margin: self.time_margin_ms.map(Duration::from_millis),
            ..GameOptions::default()
        }
    }
}

/// What the PGN writes as a comment after each move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveComments {
    /// The move in Chinese notation (炮二平五).
    #[default]
    Chinese,
    /// No comments.
    None,
}

/// Output settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputSettings {
    /// Move comments in the PGN.
    pub pgn_comments: MoveComments,
    /// The PGN `Site` tag.
    pub site: String,
}

impl Default for OutputSettings {
    fn default() -> Self {
        OutputSettings { pgn_comments: MoveComments::Chinese, site: "xq eval".to_string() }
    }
}

/// The built-in evaluators an MCTS player can search with.
pub use xq_mcts::BuiltinEvaluator;

/// An external engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    /// The player's name in the event.
    pub name: String,
    /// The program.
    pub command: PathBuf,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// `setoption` name/value pairs.
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    /// `UCI_Variant` to select (UCI), e.g. `xiangqi`.
    #[serde(default)]
    pub variant: Option<String>,
    /// Depth per move.
    #[serde(default)]
    pub depth: Option<u32>,
    /// Nodes per move.
    #[serde(default)]
    pub nodes: Option<u64>,
    /// Milliseconds per move.
    #[serde(default)]
    pub movetime_ms: Option<u64>,
}

/// One `[[players]]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PlayerSpec {
    /// Uniformly random legal moves.
    Random {
        /// The player's name in the event.
        name: String,
    },
    /// One-ply material greedy ([`GreedyPlayer`]).
    Greedy {
        /// The player's name in the event.
        name: String,
    },
    /// The alpha-beta baseline ([`AlphaBetaPlayer`]).
    Alphabeta {
        /// The player's name in the event.
        name: String,
        /// Depth per move (the player's default when absent).
        #[serde(default)]
        depth: Option<u32>,
        /// Nodes per move.
        #[serde(default)]
        nodes: Option<u64>,
        /// Milliseconds per move.
        #[serde(default)]
        movetime_ms: Option<u64>,
    },
    /// Tree search over a built-in evaluator at a fixed number of visits ([`MctsPlayer`]).
    Mcts {
        /// The player's name in the event.
        name: String,
        /// The evaluator.
        evaluator: BuiltinEvaluator,
        /// Visits per move.
        visits: u32,
    },
    /// Tree search over a trained network at a fixed number of visits: an [`MctsPlayer`] with
    /// a [`xq_nn::NetEvaluator`].
    Checkpoint {
        /// The player's name in the event.
        name: String,
        /// A checkpoint stem, its `.json` or `.bpk` file, or a directory (its newest checkpoint).
        path: PathBuf,
        /// Visits per move.
        visits: u32,
        /// Where the network runs (`cpu`, or `gpu` in builds with the GPU backend).
        #[serde(default)]
        device: xq_nn::DeviceSetting,
    },
    /// An engine speaking UCI.
    Uci(EngineSpec),
    /// An engine speaking UCCI.
    Ucci(EngineSpec),
}

impl PlayerSpec {
    /// The player's name.
    pub fn name(&self) -> &str {
        match self {
            PlayerSpec::Random { name }
            | PlayerSpec::Greedy { name }
            | PlayerSpec::Alphabeta { name, .. }
            | PlayerSpec::Mcts { name, .. }
            | PlayerSpec::Checkpoint { name, .. } => name,
            PlayerSpec::Uci(e) | PlayerSpec::Ucci(e) => &e.name,
        }
    }

    /// The limits the runner gives this player on each move.
    pub fn limits(&self) -> SearchLimits {
        let ms = |m: &Option<u64>| m.map(Duration::from_millis);
        match self {
            PlayerSpec::Random { .. } | PlayerSpec::Greedy { .. } => SearchLimits::NONE,
            PlayerSpec::Alphabeta { depth, nodes, movetime_ms, .. } => {
                SearchLimits { depth: *depth, nodes: *nodes, movetime: ms(movetime_ms), visits: None }
            }
            PlayerSpec::Mcts { visits, .. } | PlayerSpec::Checkpoint { visits, .. } => {
                SearchLimits::visits(*visits)
            }
            PlayerSpec::Uci(e) | PlayerSpec::Ucci(e) => {
                SearchLimits { depth: e.depth, nodes: e.nodes, movetime: ms(&e.movetime_ms), visits: None }
            }
        }
    }

    /// Builds the player for games under `rules`; `seed` is its own seed (games mix in theirs).
    /// A checkpoint player loads its network for itself; an event's game threads share one
    /// instead ([`PlayerSpec::load_network`], [`PlayerSpec::build_shared`]).
    pub fn build(&self, seed: u64, rules: &GameRules) -> Result<Box<dyn Player>, PlayerError> {
        let network = self.load_network(rules)?;
        self.build_shared(seed, network.as_ref())
    }

    /// For a checkpoint player, its network on an evaluation thread of its own, to be shared by
    /// every game thread of an event: their positions are evaluated together in batches.
    /// `None` for players without a network.
    ///
    /// # Errors
    /// [`PlayerError::Crashed`] when the checkpoint or the device cannot be loaded.
    pub fn load_network(&self, rules: &GameRules) -> Result<Option<SharedEvaluator>, PlayerError> {
        let PlayerSpec::Checkpoint { path, device, .. } = self else { return Ok(None) };
        let device = device.device().map_err(|e| PlayerError::Crashed(e.to_string()))?;
        let evaluator = xq_nn::NetEvaluator::from_checkpoint(path, device, 1 << 16, rules.move_limit_plies)
            .map_err(|e| PlayerError::Crashed(e.to_string()))?;
        let shared = SharedEvaluator::spawn(evaluator, SHARED_MAX_BATCH)
            .map_err(|e| PlayerError::Crashed(format!("starting the evaluation thread: {e}")))?;
        Ok(Some(shared))
    }

    /// Builds the player as [`PlayerSpec::build`] does, a checkpoint player evaluating through
    /// `network` (from [`PlayerSpec::load_network`]).
    ///
    /// # Errors
    /// As [`PlayerSpec::build`]; a checkpoint player without `network` is
    /// [`PlayerError::Crashed`].
    pub fn build_shared(
        &self,
        seed: u64,
        network: Option<&SharedEvaluator>,
    ) -> Result<Box<dyn Player>, PlayerError> {
        Ok(match self {
            PlayerSpec::Random { .. } => Box::new(Named::new(RandomPlayer::new(seed), self.name())),
            PlayerSpec::Greedy { .. } => Box::new(Named::new(GreedyPlayer::new(seed), self.name())),
            PlayerSpec::Alphabeta { name, depth, .. } => {
                let player = match depth {
                    Some(d) => AlphaBetaPlayer::with_depth(*d),
                    None => AlphaBetaPlayer::new(xq_play::AlphaBetaConfig::default()),
                };
                Box::new(player.named(name))
            }
            PlayerSpec::Mcts { name, evaluator, visits } => {
                let player = MctsPlayer::new(name, evaluator.build(), SearchParams::default(), *visits)
                    .map_err(|e| PlayerError::Crashed(e.to_string()))?;
                Box::new(player)
            }
            PlayerSpec::Checkpoint { name, path, visits, .. } => {
                let network = network.ok_or_else(|| {
                    PlayerError::Crashed(format!("{name}: network of {} not loaded", path.display()))
                })?;
                let player =
                    MctsPlayer::new(name, Box::new(network.handle()), SearchParams::default(), *visits)
                        .map_err(|e| PlayerError::Crashed(e.to_string()))?;
                Box::new(player)
            }
            PlayerSpec::Uci(e) | PlayerSpec::Ucci(e) => {
                let protocol =
                    if matches!(self, PlayerSpec::Uci(_)) { Protocol::Uci } else { Protocol::Ucci };
                let mut config = EngineConfig::new(&e.command, protocol);
                config.name = Some(e.name.clone());
                config.args = e.args.clone();
                config.variant = e.variant.clone();
                config.options = e.options.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                Box::new(Engine::start(config)?)
            }
        })
    }
}

/// A player under the name the event gives it (the baselines name themselves).
struct Named<P> {
    inner: P,
    name: String,
}

impl<P> Named<P> {
    fn new(inner: P, name: &str) -> Named<P> {
        Named { inner, name: name.to_string() }
    }
}

impl<P: Player> Player for Named<P> {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, game: &xq_core::Game, start: xq_play::GameStart) -> Result<(), PlayerError> {
        self.inner.new_game(game, start)
    }

    fn choose_move(
        &mut self,
        game: &xq_core::Game,
        limits: &SearchLimits,
    ) -> Result<xq_play::MoveChoice, PlayerError> {
        self.inner.choose_move(game, limits)
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
    /// Rules and adjudication.
    #[serde(default)]
    pub game: GameSettings,
    /// Output settings.
    #[serde(default)]
    pub output: OutputSettings,
    /// The players, in event order (player 0 is the candidate of an SPRT, gate or gauntlet).
    pub players: Vec<PlayerSpec>,
}

impl RunConfig {
    /// Parses and checks a TOML configuration. Unknown keys are errors naming the key.
    pub fn from_toml(text: &str) -> Result<RunConfig, RunError> {
        let config: RunConfig = toml::from_str(text).map_err(|e| RunError::Config(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// Loads and checks a TOML configuration file.
    pub fn load(path: &Path) -> Result<RunConfig, RunError> {
        let text = std::fs::read_to_string(path).map_err(io_error(path))?;
        RunConfig::from_toml(&text).map_err(|e| match e {
            RunError::Config(m) => RunError::Config(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// Checks what serde cannot: unique names, positive budgets, a consistent event.
    pub fn validate(&self) -> Result<(), RunError> {
        let bad = |m: String| Err(RunError::Config(m));
        if self.concurrency == 0 {
            return bad("concurrency must be at least 1".into());
        }
        let mut names = BTreeSet::new();
        for p in &self.players {
            if p.name().is_empty() {
                return bad("a player has an empty name".into());
            }
            if !names.insert(p.name()) {
                return bad(format!("player name {:?} appears twice", p.name()));
            }
            if let PlayerSpec::Mcts { name, visits: 0, .. } | PlayerSpec::Checkpoint { name, visits: 0, .. } =
                p
            {
                return bad(format!("player {name:?}: visits must be at least 1"));
            }
        }
        if self.game.move_limit_plies == 0 || self.game.repetition_count < 2 {
            return bad("game.move_limit_plies must be positive and game.repetition_count at least 2".into());
        }
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
            Format::Gauntlet { pairs } => 2 * *pairs as usize * n.saturating_sub(1),
            Format::RoundRobin { cycles } => *cycles as usize * n * n.saturating_sub(1),
            Format::Swiss { rounds, paired } => *rounds as usize * (n / 2) * if *paired { 2 } else { 1 },
            Format::Sprt { max_pairs, .. } => 2 * *max_pairs as usize,
            Format::Gate { pairs, .. } => 2 * *pairs as usize,
        }
    }

    fn load_book(&self) -> Result<Book, RunError> {
        Ok(match &self.book {
            Some(path) => Book::load(path)?,
            None => Book::from_json(BUNDLED_BOOK)?,
        })
    }
}

/// One journal line: the event's record of a game plus what the PGN needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalEntry {
    /// The game's record as the event takes it.
    pub record: GameRecord,
    /// Red's name.
    pub red: String,
    /// Black's name.
    pub black: String,
    /// The opening's name, if the game started from the book.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_name: Option<String>,
    /// The start FEN (before the opening's moves).
    pub start_fen: String,
    /// Every move in ICCS, the opening's included.
    pub moves: Vec<String>,
    /// How many of the moves came from the opening.
    pub opening_plies: usize,
    /// How the runner ended the game when it did (forfeits, adjudications).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The game's seed.
    pub seed: u64,
}

/// The state of a running event, for a progress line.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Games finished (journal included).
    pub finished: usize,
    /// The most games the event can have.
    pub max_games: usize,
    /// Games read back from the journal at the start of this run.
    pub resumed: usize,
    /// Player 0's name.
    pub first_player: String,
    /// Player 0's W/D/L against the field.
    pub first_wdl: Wdl,
    /// Player 0's Elo against the field: pentanomial when it has complete pairs, else trinomial.
    pub elo: Option<EloEstimate>,
    /// The SPRT so far (SPRT events).
    pub sprt: Option<SprtResult>,
}

/// Knobs of one run that are not part of the event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Stop after recording this many new games (the rest on a later run).
    pub max_games_this_run: Option<usize>,
}

/// What a run did.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    /// The event's report (also in `report.json`).
    pub report: EventReport,
    /// Games read back from the journal.
    pub resumed: usize,
    /// Games played and recorded in this run.
    pub played: usize,
    /// Wall time of this run.
    pub wall_time: Duration,
    /// Each network player's shared evaluation in this run: its name and how its positions were
    /// batched (one entry per checkpoint player that played).
    pub networks: Vec<(String, SharedStats)>,
    /// The output directory.
    pub out_dir: PathBuf,
}

/// Mixed into the event seed for the players' own seeds, so they differ from the games'.
const PLAYER_SEED_SALT: u64 = 0x91A7_E5EE_D000_0001;

/// Most positions one shared network evaluates at once.
const SHARED_MAX_BATCH: usize = 256;

/// Everything a game thread needs, shared read-only.
struct GameContext<'a> {
    config: &'a RunConfig,
    /// Per player, its network (checkpoint players), loaded by the first game that needs it and
    /// shared by all game threads; the error text when it could not be loaded.
    networks: Vec<OnceLock<Result<Option<SharedEvaluator>, String>>>,
    openings: Vec<PlayOpening>,
    opening_names: Vec<String>,
    rules: GameRules,
    options: GameOptions,
    limits: Vec<SearchLimits>,
}

impl GameContext<'_> {
    fn opening(&self, index: Option<usize>) -> Option<&PlayOpening> {
        index.and_then(|i| self.openings.get(i))
    }

    /// Plays a scheduled game with the thread's players (built on first use, rebuilt after a
    /// forfeit so a crashed engine gets a fresh process).
    fn play(&self, players: &mut [Option<Box<dyn Player>>], g: &ScheduledGame) -> xq_play::GameRecord {
        let startpos = PlayOpening::startpos();
        let opening = self.opening(g.opening).unwrap_or(&startpos);
        let seed = derive_seed(self.config.seed, g.game);
        let mut take = |color: Color, index: usize| match players[index].take() {
            Some(p) => Ok(p),
            None => {
                let spec = &self.config.players[index];
                let network = self.networks[index]
                    .get_or_init(|| spec.load_network(&self.rules).map_err(|e| e.to_string()));
                let seed = derive_seed(self.config.seed ^ PLAYER_SEED_SALT, index as u64);
                match network {
                    Ok(network) => spec.build_shared(seed, network.as_ref()),
                    Err(message) => Err(PlayerError::Crashed(message.clone())),
                }
                .map_err(|e| {
                    Box::new(forfeit_before_start(opening, self.rules, spec.name(), color, &e, seed, g))
                })
            }
        };
        let mut red = match take(Color::Red, g.red) {
            Ok(p) => p,
            Err(record) => return *record,
        };
        let mut black = match take(Color::Black, g.black) {
            Ok(p) => p,
            Err(record) => {
                players[g.red] = Some(red);
                return *record;
            }
        };
        let options = GameOptions {
            red_limits: self.limits[g.red],
            black_limits: self.limits[g.black],
            seed,
            game_index: g.game as usize,
            ..self.options
        };
        let record = play_game(red.as_mut(), black.as_mut(), opening, self.rules, &options);
        if !matches!(record.outcome.reason, Termination::Forfeit | Termination::TimeForfeit) {
            players[g.red] = Some(red);
            players[g.black] = Some(black);
        }
        record
    }
}

/// The record of a game lost by `color` because its player could not be started.
fn forfeit_before_start(
    opening: &PlayOpening,
    rules: GameRules,
    name: &str,
    color: Color,
    error: &PlayerError,
    seed: u64,
    g: &ScheduledGame,
) -> xq_play::GameRecord {
    let outcome = Outcome::new(GameResult::loss_for(color), error.forfeit_kind(), error.article());
    xq_play::GameRecord {
        start_fen: opening.fen().to_string(),
        opening: opening.name().to_string(),
        opening_plies: opening.moves().len(),
        moves: opening.moves().to_vec(),
        info: vec![None; opening.moves().len()],
        outcome,
        rules,
        red: String::new(),
        black: String::new(),
        note: Some(format!("{color} ({name}) forfeits: {error}")),
        seed,
        game_index: g.game as usize,
    }
}

fn journal_entry(ctx: &GameContext<'_>, g: &ScheduledGame, played: &xq_play::GameRecord) -> JournalEntry {
    let mut record = g.finish(GameScore::from(played.outcome.result));
    record.set_outcome(&played.outcome);
    record.plies = Some(played.plies() as u32);
    if played.outcome.article.is_empty() {
        record.article = None;
    }
    JournalEntry {
        record,
        red: ctx.config.players[g.red].name().to_string(),
        black: ctx.config.players[g.black].name().to_string(),
        opening_name: g.opening.and_then(|i| ctx.opening_names.get(i).cloned()),
        start_fen: played.start_fen.clone(),
        moves: played.iccs(),
        opening_plies: played.opening_plies,
        note: played.note.clone(),
        seed: played.seed,
    }
}

/// On a fresh event writes the configuration next to the journal; on a resumed one refuses a
/// configuration that differs in anything but `concurrency` (which does not change results).
fn check_same_config(config: &RunConfig, path: &Path, resuming: bool) -> Result<(), RunError> {
    let canonical = |c: &RunConfig| {
        serde_json::to_string_pretty(&RunConfig { concurrency: 1, ..c.clone() })
            .map_err(|e| RunError::Config(format!("cannot serialize the configuration: {e}")))
    };
    let ours = canonical(config)?;
    if resuming && let Ok(text) = std::fs::read_to_string(path) {
        let theirs: RunConfig = serde_json::from_str(&text)
            .map_err(|e| RunError::JournalMismatch(format!("{}: {e}", path.display())))?;
        if canonical(&theirs)? != ours {
            return Err(RunError::JournalMismatch(format!(
                "the configuration differs from the one in {} (only concurrency may change on resume)",
                path.display()
            )));
        }
        return Ok(());
    }
    xq_files::write_atomic(path, (ours + "\n").as_bytes()).map_err(io_error(path))
}

/// Reads a journal, dropping (and cutting from the file) a last line without its newline.
fn read_journal(path: &Path) -> Result<Vec<JournalEntry>, RunError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error(path)(e)),
    };
    let complete = match text.rfind('\n') {
        Some(end) => &text[..=end],
        None => "",
    };
    if complete.len() != text.len() {
        // Atomic: a kill during this rewrite must not cost the games already recorded.
        xq_files::write_atomic(path, complete.as_bytes()).map_err(io_error(path))?;
    }
    complete
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| RunError::Journal {
                path: path.display().to_string(),
                line: i + 1,
                message: e.to_string(),
            })
        })
        .collect()
}

fn progress_of(event: &Event, config: &RunConfig, resumed: usize) -> Progress {
    let records = event.records();
    let first_wdl =
        player_tallies(&records, config.players.len()).first().map(|t| t.total).unwrap_or_default();
    let penta = event.pentanomial();
    let elo = if penta.pairs() > 0 { penta.estimate().ok() } else { first_wdl.estimate().ok() };
    Progress {
        finished: records.len(),
        max_games: config.max_games(),
        resumed,
        first_player: config.players.first().map(|p| p.name().to_string()).unwrap_or_default(),
        first_wdl,
        elo,
        sprt: event.sprt_result(),
    }
}

fn sprt_decided(event: &Event) -> bool {
    event.sprt_result().is_some_and(|r| r.state != SprtState::Continue)
}

/// Runs (or resumes) the event of `config` with outputs in `out_dir`, calling `progress` after
/// every recorded game. Returns when the event is finished or `max_games_this_run` new games
/// are recorded; either way the outputs reflect every game in the journal.
pub fn run_event(
    config: &RunConfig,
    out_dir: &Path,
    options: &RunOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<RunSummary, RunError> {
    let started = Instant::now();
    config.validate()?;
    let book = config.load_book()?;
    let event_config = config.event_config(book.openings.len());
    let mut openings = Vec::with_capacity(event_config.openings);
    for o in &book.openings {
        let moves: Vec<&str> = o.moves.iter().map(String::as_str).collect();
        let opening = PlayOpening::new(&o.id, xq_core::START_FEN, &moves)
            .map_err(|e| RunError::Config(format!("opening {}: {e}", o.id)))?;
        openings.push(opening);
    }
    let ctx = GameContext {
        config,
        networks: config.players.iter().map(|_| OnceLock::new()).collect(),
        opening_names: book.openings.iter().map(|o| format!("{} ({})", o.name_zh, o.name_en)).collect(),
        openings,
        rules: config.game.rules(),
        options: config.game.options(),
        limits: config.players.iter().map(PlayerSpec::limits).collect(),
    };

    std::fs::create_dir_all(out_dir).map_err(io_error(out_dir))?;
    let journal_path = out_dir.join(JOURNAL_FILE);
    let mut entries = read_journal(&journal_path)?;
    check_same_config(config, &out_dir.join(CONFIG_FILE), !entries.is_empty())?;
    for e in &entries {
        let (red, black) = (config.players.get(e.record.red), config.players.get(e.record.black));
        if red.map(PlayerSpec::name) != Some(e.red.as_str())
            || black.map(PlayerSpec::name) != Some(e.black.as_str())
        {
            return Err(RunError::JournalMismatch(format!(
                "game {} was {} vs {}, which this configuration's players do not match",
                e.record.game, e.red, e.black
            )));
        }
    }
    let records: Vec<GameRecord> = entries.iter().map(|e| e.record.clone()).collect();
    let mut event = Event::replay(event_config, &records).map_err(|e| match e {
        EventError::Mismatch { .. } | EventError::UnknownGame(_) | EventError::DuplicateResult(_) => {
            RunError::JournalMismatch(e.to_string())
        }
        other => RunError::Event(other),
    })?;
    let resumed = entries.len();
    if sprt_decided(&event) {
        event.withdraw_unfinished();
    }
    let recorded: BTreeSet<u64> = records.iter().map(|r| r.game).collect();
    let mut waiting: VecDeque<ScheduledGame> =
        event.issued().iter().filter(|g| !recorded.contains(&g.game)).copied().collect();
    waiting.make_contiguous().sort_by_key(|g| g.game);

    let mut journal = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&journal_path)
        .map_err(io_error(&journal_path))?;
    let window = (2 * config.concurrency).max(2);
    let limit = options.max_games_this_run.unwrap_or(usize::MAX);
    let mut played = 0usize;
    progress(&progress_of(&event, config, resumed));

    let (job_tx, job_rx) = mpsc::channel::<ScheduledGame>();
    let job_rx = Mutex::new(job_rx);
    let (result_tx, result_rx) = mpsc::channel::<(u64, xq_play::GameRecord)>();
    let outcome: Result<(), RunError> = std::thread::scope(|scope| {
        for _ in 0..config.concurrency {
            let (job_rx, result_tx, ctx) = (&job_rx, result_tx.clone(), &ctx);
            scope.spawn(move || {
                let mut players: Vec<Option<Box<dyn Player>>> =
                    (0..ctx.config.players.len()).map(|_| None).collect();
                loop {
                    let job = job_rx.lock().map_err(|_| ()).and_then(|rx| rx.recv().map_err(|_| ()));
                    let Ok(g) = job else { break };
                    let record = ctx.play(&mut players, &g);
                    if result_tx.send((g.game, record)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(result_tx);
        // Games sent to threads, in the order their results are taken.
        let mut dispatched: VecDeque<ScheduledGame> = VecDeque::new();
        let mut finished: BTreeMap<u64, xq_play::GameRecord> = BTreeMap::new();
        let result = loop {
            while played + dispatched.len() < limit && dispatched.len() < window {
                if waiting.is_empty() {
                    waiting.extend(event.next_games((window - dispatched.len()).max(2)));
                }
                let Some(g) = waiting.pop_front() else { break };
                if job_tx.send(g).is_err() {
                    break;
                }
                dispatched.push_back(g);
            }
            if dispatched.is_empty() {
                break Ok(());
            }
            let Ok((game, record)) = result_rx.recv() else {
                break Err(RunError::Worker("every game thread exited with games outstanding".into()));
            };
            finished.insert(game, record);
            while let Some(g) = dispatched.front().copied() {
                let Some(record) = finished.remove(&g.game) else { break };
                dispatched.pop_front();
                let entry = journal_entry(&ctx, &g, &record);
                let line = match serde_json::to_string(&entry) {
                    Ok(l) => l,
                    Err(e) => return Err(RunError::Worker(format!("journal entry: {e}"))),
                };
                writeln!(journal, "{line}")
                    .and_then(|()| journal.flush())
                    .map_err(io_error(&journal_path))?;
                event.record(entry.record.clone())?;
                entries.push(entry);
                played += 1;
                progress(&progress_of(&event, config, resumed));
                if sprt_decided(&event) {
                    // Decided at this game: later games in flight are dropped, not counted.
                    dispatched.clear();
                    waiting.clear();
                    event.withdraw_unfinished();
                }
            }
        };
        drop(job_tx);
        result
    });
    outcome?;

    let report = write_outputs(config, &ctx, &event, &entries, out_dir)?;
    let networks = config
        .players
        .iter()
        .zip(&ctx.networks)
        .filter_map(|(spec, network)| match network.get() {
            Some(Ok(Some(shared))) => Some((spec.name().to_string(), shared.stats())),
            _ => None,
        })
        .collect();
    Ok(RunSummary {
        report,
        resumed,
        played,
        wall_time: started.elapsed(),
        networks,
        out_dir: out_dir.to_path_buf(),
    })
}

/// Writes `games.pgn`, `report.json`, `report.md` and `ladder.svg`.
fn write_outputs(
    config: &RunConfig,
    ctx: &GameContext<'_>,
    event: &Event,
    entries: &[JournalEntry],
    out_dir: &Path,
) -> Result<EventReport, RunError> {
    let mut sorted: Vec<&JournalEntry> = entries.iter().collect();
    sorted.sort_by_key(|e| e.record.game);
    let date = today();
    let mut pgn = String::new();
    for e in sorted {
        pgn.push_str(&pgn_of(config, ctx.rules, e, &date)?.write());
    }
    let write = |name: &str, text: &str| {
        let path = out_dir.join(name);
        xq_files::write_atomic(&path, text.as_bytes()).map_err(io_error(&path))
    };
    write(PGN_FILE, &pgn)?;
    let report = EventReport::from_event(event);
    let json = serde_json::to_string_pretty(&report).map_err(|e| RunError::Worker(format!("report: {e}")))?;
    write(REPORT_JSON_FILE, &(json + "\n"))?;
    write(REPORT_MD_FILE, &report.to_markdown())?;
    let ladder = report.ladder();
    if !ladder.is_empty() {
        rating_ladder_svg(
            &ladder,
            &format!("{}: Elo against the field (95%)", config.name),
            &out_dir.join(LADDER_SVG_FILE),
        )?;
    }
    Ok(report)
}

/// A journal entry as a PGN game, moves replayed by xq-core for the Chinese comments.
pub fn pgn_of(
    config: &RunConfig,
    rules: GameRules,
    e: &JournalEntry,
    date: &str,
) -> Result<PgnGame, RunError> {
    let bad = |m: String| RunError::Journal {
        path: JOURNAL_FILE.into(),
        line: e.record.game as usize + 1,
        message: m,
    };
    let mut game = xq_core::Game::from_fen(&e.start_fen, rules).map_err(|x| bad(x.to_string()))?;
    let mut comments = Vec::with_capacity(e.moves.len());
    for text in &e.moves {
        let mv = xq_core::notation::parse_move(game.position(), text).map_err(|x| bad(x.to_string()))?;
        comments.push(xq_core::notation::chinese(game.position(), mv));
        game.play(mv).map_err(|x| bad(x.to_string()))?;
    }
    if config.output.pgn_comments == MoveComments::None {
        comments.clear();
    }
    let header = PgnHeader {
        event: config.name.clone(),
        site: config.output.site.clone(),
        date: date.to_string(),
        round: e.record.round.to_string(),
        red: e.red.clone(),
        black: e.black.clone(),
        fen: Some(e.start_fen.clone()),
        termination: e.record.termination.clone(),
        article: e.record.article.clone(),
        opening: e.opening_name.clone(),
    };
    let mut pgn = PgnGame::from_game(&header, &game, &comments, Some(e.record.result));
    pgn.tags.push(("GameNumber".into(), e.record.game.to_string()));
    if let Some(note) = &e.note {
        pgn.tags.push(("TerminationDetails".into(), note.clone()));
    }
    Ok(pgn)
}

/// Today's UTC date as `YYYY.MM.DD` (civil-from-days, Howard Hinnant's algorithm).
fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}
