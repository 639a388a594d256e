//! Playing an event: games dispatched to threads, results taken back in game order, the
//! journal written as they come, and the outputs at the end.

use crate::events::{Event, EventError, ScheduledGame};
use crate::record::{GameRecord, player_tallies};
use crate::report::EventReport;
use crate::runner::config::RunConfig;
use crate::runner::journal::{
    CONFIG_FILE, JOURNAL_FILE, JournalEntry, PlayerUsage, check_same_config, read_journal,
};
use crate::runner::output::write_outputs;
use crate::runner::{RunError, io_error};
use crate::stats::{EloEstimate, SprtResult, SprtState, Wdl};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};
use xq_core::{Color, GameResult, Outcome, Termination};
use xq_mcts::{SharedEvaluator, SharedStats};
use xq_play::{GameOptions, Opening, Player, PlayerError, SearchLimits, TimeControl, derive_seed, play_game};

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
    /// Player 0's Elo against the field, from the same games as `first_wdl` (trinomial).
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
    /// batched (one entry per network player that played).
    pub networks: Vec<(String, SharedStats)>,
    /// The output directory.
    pub out_dir: PathBuf,
}

/// Mixed into the event seed for the players' own seeds, so they differ from the games'.
const PLAYER_SEED_SALT: u64 = 0x91A7_E5EE_D000_0001;

/// Everything a game thread needs, shared read-only.
struct GameContext<'a> {
    config: &'a RunConfig,
    /// Per player, its network (tree search over a checkpoint), loaded by the first game that
    /// needs it and shared by all game threads; the error text when it could not be loaded.
    networks: Vec<OnceLock<Result<Option<SharedEvaluator>, String>>>,
    openings: Vec<Opening>,
    options: GameOptions,
    limits: Vec<SearchLimits>,
    /// Each player's time control.
    clocks: Vec<Option<TimeControl>>,
}

impl GameContext<'_> {
    /// Plays a scheduled game with the thread's players (built on first use, rebuilt after a
    /// forfeit so a crashed engine gets a fresh process).
    fn play(&self, players: &mut [Option<Box<dyn Player>>], g: &ScheduledGame) -> xq_play::GameRecord {
        let startpos = Opening::startpos();
        let opening = g.opening.and_then(|i| self.openings.get(i)).unwrap_or(&startpos);
        let seed = derive_seed(self.config.seed, g.game);
        let mut take = |color: Color, index: usize| match players[index].take() {
            Some(p) => Ok(p),
            None => {
                let spec = &self.config.players[index];
                let network =
                    self.networks[index].get_or_init(|| spec.load_network().map_err(|e| e.to_string()));
                let player_seed = derive_seed(self.config.seed ^ PLAYER_SEED_SALT, index as u64);
                match network {
                    Ok(network) => spec.build(player_seed, network.as_ref()),
                    Err(message) => Err(PlayerError::Crashed(message.clone())),
                }
                .map_err(|e| {
                    Box::new(forfeit_before_start(opening, self.config, spec.name(), color, &e, seed, g))
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
            red_limits: self.limits[g.red].clone(),
            black_limits: self.limits[g.black].clone(),
            red_clock: self.clocks[g.red],
            black_clock: self.clocks[g.black],
            seed,
            game_index: g.game as usize,
            ..self.options
        };
        let record = play_game(red.as_mut(), black.as_mut(), opening, self.config.rules, &options);
        if !matches!(record.outcome.reason, Termination::Forfeit | Termination::TimeForfeit) {
            players[g.red] = Some(red);
            players[g.black] = Some(black);
        }
        record
    }
}

/// The record of a game lost by `color` because its player could not be started.
fn forfeit_before_start(
    opening: &Opening,
    config: &RunConfig,
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
        rules: config.rules,
        red: String::new(),
        black: String::new(),
        note: Some(format!("{color} ({name}) forfeits: {error}")),
        seed,
        game_index: g.game as usize,
    }
}

fn journal_entry(ctx: &GameContext<'_>, g: &ScheduledGame, played: &xq_play::GameRecord) -> JournalEntry {
    let mut record = g.finish(played.outcome.result);
    record.set_outcome(played.outcome);
    record.plies = Some(played.plies() as u32);
    JournalEntry {
        record,
        red: ctx.config.players[g.red].name().to_string(),
        black: ctx.config.players[g.black].name().to_string(),
        opening_name: g.opening.and_then(|i| ctx.openings.get(i)).map(|o| o.name().to_string()),
        start_fen: played.start_fen.clone(),
        moves: played.moves.clone(),
        opening_plies: played.opening_plies,
        note: played.note.clone(),
        seed: played.seed,
        usage: PlayerUsage::of_game(played),
    }
}

fn progress_of(event: &Event, config: &RunConfig, resumed: usize) -> Progress {
    let records = event.records();
    let first_wdl =
        player_tallies(&records, config.players.len()).first().map(|t| t.total).unwrap_or_default();
    Progress {
        finished: records.len(),
        max_games: config.max_games(),
        resumed,
        first_player: config.players.first().map(|p| p.name().to_string()).unwrap_or_default(),
        first_wdl,
        elo: first_wdl.estimate().ok(),
        sprt: event.sprt_result(),
    }
}

fn sprt_decided(event: &Event) -> bool {
    event.sprt_result().is_some_and(|r| r.state != SprtState::Continue)
}

/// Runs (or resumes) the event of `config` with outputs in `out_dir`, calling `progress` after
/// every recorded game. Returns when the event is finished or `max_games_this_run` new games
/// are recorded; either way the outputs reflect every game in the journal.
///
/// Game `g` is seeded with `derive_seed(seed, g)` and results are taken into the event in game
/// order, whatever thread finished first, so an SPRT is decided at the same pair in every run;
/// games in flight past the decision are dropped ([`Event::withdraw_unfinished`]), not counted.
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
    let ctx = GameContext {
        config,
        networks: config.players.iter().map(|_| OnceLock::new()).collect(),
        openings: book.playable()?,
        options: config.adjudication.options(),
        limits: config.players.iter().map(|p| p.own_limits().or(config.limits).search_limits()).collect(),
        clocks: config.players.iter().map(|p| p.own_limits().or(config.limits).tc).collect(),
    };

    std::fs::create_dir_all(out_dir).map_err(io_error(out_dir))?;
    let journal_path = out_dir.join(JOURNAL_FILE);
    let mut entries = read_journal(&journal_path)?;
    check_same_config(config, &out_dir.join(CONFIG_FILE), !entries.is_empty())?;
    for e in &entries {
        let (red, black) = (config.players.get(e.record.red), config.players.get(e.record.black));
        if red.map(|p| p.name()) != Some(e.red.as_str()) || black.map(|p| p.name()) != Some(e.black.as_str())
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

    if !waiting.is_empty() || !event.is_finished() {
        // A network that cannot be loaded (a wrong path, a precision this CPU lacks) is a
        // mistake in the config, not a game forfeited by the player: say so before playing.
        for (spec, network) in config.players.iter().zip(&ctx.networks) {
            if let Err(message) = network.get_or_init(|| spec.load_network().map_err(|e| e.to_string())) {
                return Err(RunError::Config(format!("player {:?}: {message}", spec.name())));
            }
        }
    }
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

    let report = write_outputs(config, &event, &entries, out_dir)?;
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
