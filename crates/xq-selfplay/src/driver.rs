//! The self-play driver: many games at once, one batched evaluator, shards on disk.

use crate::config::{ResignConfig, SelfplayConfig};
use crate::summary::{GameTally, Summary};
use indicatif::{ProgressBar, ProgressStyle};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;
use thiserror::Error;
use xq_core::{Color, Game, GameResult, Outcome, Termination};
use xq_data::{GameRecord, Sample, WriterOptions};
use xq_mcts::{EvalBatch, EvalResults, Evaluator, Search, SearchResult, Step, evaluate_batch};
use xq_play::{Opening, derive_seed};

/// Why self-play stopped.
#[derive(Debug, Error)]
pub enum SelfplayError {
    /// The configuration is unusable.
    #[error("invalid self-play configuration: {0}")]
    Config(String),
    /// The search failed (an evaluator returned bad output, or a bug).
    #[error("search failed in game {game_id}")]
    Search {
        /// The game.
        game_id: u64,
        /// What went wrong.
        source: xq_mcts::SearchError,
    },
    /// The evaluator failed.
    #[error("evaluator failed: {0}")]
    Evaluator(#[from] xq_mcts::EvalError),
    /// Reading or writing shards failed.
    #[error(transparent)]
    Data(#[from] xq_data::DataError),
    /// The output directory cannot be prepared.
    #[error("output directory {path}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Where and how a self-play run writes, beyond its configuration.
#[derive(Clone, Debug)]
pub struct SelfplayRun {
    /// Directory for the `samples-*.parquet` and `games-*.parquet` shards.
    pub out_dir: PathBuf,
    /// The id of the model (or built-in evaluator) that plays, recorded in every row.
    pub model_id: String,
    /// Openings to start games from (chosen per game from its seed); empty = start position.
    pub openings: Vec<Opening>,
    /// Show an indicatif progress bar (hidden anyway when stderr is not a terminal).
    pub progress: bool,
    /// Stop after writing this many shard pairs in this invocation (as if killed right
    /// after); `None` plays to the end. Used to test resumption.
    pub stop_after_shards: Option<u64>,
}

/// One game in flight.
struct Slot {
    game_id: u64,
    seed: u64,
    game: Game,
    search: Search<ChaCha8Rng>,
    searching: bool,
    opening: Option<String>,
    samples: Vec<Sample>,
    resign: ResignWatch,
}

/// A game's start, drawn from its own generator: the position (an opening of the book, or the
/// start position) and whether it may resign. Self-play and teacher games draw in this order.
pub(crate) fn open_game(
    config: &SelfplayConfig,
    run: &SelfplayRun,
    rng: &mut ChaCha8Rng,
) -> (Game, Option<String>, ResignWatch) {
    let rules = config.rules;
    let (game, opening) = if run.openings.is_empty() {
        (Game::new(xq_core::Position::startpos(), rules), None)
    } else {
        let o = &run.openings[rng.random_range(0..run.openings.len())];
        (o.game(rules), Some(o.name().to_string()))
    };
    let resign = &config.selfplay.resign;
    let allowed = resign.enabled && rng.random::<f32>() >= resign.no_resign_fraction;
    (game, opening, ResignWatch { allowed, low_value_streak: [0; 2], would_have_resigned: None })
}

/// Resignation in one game: each side's run of searched values below the threshold.
pub(crate) struct ResignWatch {
    /// Whether this game may end by resignation (`no_resign_fraction` of games may not).
    allowed: bool,
    low_value_streak: [u32; 2],
    /// The first side that would have resigned in a game that may not: its result tells
    /// whether the resignation would have been false.
    pub(crate) would_have_resigned: Option<Color>,
}

impl ResignWatch {
    /// Takes the searched `value` of `side` to move at `ply`; true when that side resigns now.
    pub(crate) fn resigns(&mut self, resign: &ResignConfig, ply: usize, side: Color, value: f32) -> bool {
        if !resign.enabled || (ply as u32) < resign.min_ply {
            return false;
        }
        let streak = &mut self.low_value_streak[side.index()];
        *streak = if value < -resign.threshold { *streak + 1 } else { 0 };
        if *streak < resign.consecutive_moves {
            return false;
        }
        if !self.allowed {
            self.would_have_resigned.get_or_insert(side);
        }
        self.allowed
    }
}

/// Plays the configured number of games (continuing from what `run.out_dir` already holds)
/// and returns a summary.
///
/// Games are numbered `0..games`; game `i` draws every random choice from
/// `derive_seed(seed, i)`, so its moves do not depend on which other games run beside it.
/// Finished games are buffered and written `games_per_shard` at a time as a pair of shards
/// with the same index: `samples-NNNNNN.parquet` first, then `games-NNNNNN.parquet`. The
/// games shard commits the pair: on restart, games listed in games shards are done, a samples
/// shard without its games shard is an interrupted write and is removed, and every other game
/// is played again from its seed — so a killed run loses nothing and writes nothing twice.
pub fn run_selfplay(
    config: &SelfplayConfig,
    evaluator: &mut dyn Evaluator,
    run: &SelfplayRun,
) -> Result<Summary, SelfplayError> {
    config.validate().map_err(SelfplayError::Config)?;
    std::fs::create_dir_all(&run.out_dir).map_err(io_error(&run.out_dir))?;
    let resume = ResumeState::scan(&run.out_dir)?;
    let pending: Vec<u64> = (0..config.selfplay.games).filter(|id| !resume.done.contains(id)).collect();

    let config_hash = config.hash();
    let mut summary = Summary::new(config.selfplay.games, resume.done.len() as u64);
    let bar = progress_bar(run.progress, config.selfplay.games, resume.done.len() as u64);
    let started = Instant::now();

    let mut queue = pending.into_iter();
    let mut slots: Vec<Option<Slot>> = (0..config.selfplay.concurrency).map(|_| None).collect();
    let mut finished: Vec<(GameRecord, Vec<Sample>)> = Vec::new();
    let mut next_shard = resume.next_shard;
    let mut shards_written = 0u64;
    let (mut batch, mut results) = (EvalBatch::new(), EvalResults::new());
    let writer = WriterOptions::default();
    let leaves = config.selfplay.leaves_per_game;

    loop {
        for slot in slots.iter_mut().filter(|s| s.is_none()) {
            if let Some(id) = queue.next() {
                *slot = Some(new_slot(config, run, id)?);
            }
        }
        if slots.iter().all(Option::is_none) {
            break;
        }
        batch.clear();
        for slot in slots.iter_mut() {
            let Some(s) = slot else { continue };
            if !s.searching {
                s.search.start().map_err(|source| SelfplayError::Search { game_id: s.game_id, source })?;
                s.searching = true;
            }
            let step = s
                .search
                .gather(&mut batch, leaves)
                .map_err(|source| SelfplayError::Search { game_id: s.game_id, source })?;
            if let Step::Done = step {
                let result = s
                    .search
                    .result()
                    .map_err(|source| SelfplayError::Search { game_id: s.game_id, source })?;
                if let Some(outcome) =
                    play_searched_move(config, s, &result, &model_and_hash(run, &config_hash))?
                {
                    let done = slot.take().expect("slot is occupied");
                    let record = finish_game(done, outcome, run, &config_hash, &mut summary);
                    summary.positions += record.1.len() as u64;
                    finished.push(record);
                    bar.inc(1);
                    bar.set_message(summary.progress_message(started.elapsed()));
                }
            }
        }
        if !batch.is_empty() {
            let asked = Instant::now();
            evaluate_batch(evaluator, &batch, &mut results)?;
            summary.evaluator_seconds += asked.elapsed().as_secs_f64();
            summary.evaluations += batch.len() as u64;
            summary.evaluator_batches += 1;
            // Slots that just played their move have no search running until the next round.
            for s in slots.iter_mut().flatten().filter(|s| s.searching) {
                s.search
                    .apply(&results)
                    .map_err(|source| SelfplayError::Search { game_id: s.game_id, source })?;
            }
        }
        let all_done = slots.iter().all(Option::is_none) && queue.len() == 0;
        // Several games can finish in one round (games cut at max_plies end together), so
        // write every full shard, and the rest once nothing is left to play.
        let mut stop = false;
        while finished.len() >= config.selfplay.games_per_shard || (all_done && !finished.is_empty()) {
            let take = finished.len().min(config.selfplay.games_per_shard);
            let chunk: Vec<_> = finished.drain(..take).collect();
            write_shard_pair(&run.out_dir, next_shard, chunk, &writer)?;
            next_shard += 1;
            shards_written += 1;
            if run.stop_after_shards.is_some_and(|n| shards_written >= n) {
                summary.interrupted = true;
                stop = true;
                break;
            }
        }
        if stop {
            break;
        }
    }
    // Whatever is still buffered belongs to an interrupted run and will be replayed.
    summary.seconds = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    Ok(summary)
}

/// An I/O error on `path`.
pub(crate) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> SelfplayError + use<> {
    let path = path.to_path_buf();
    move |source| SelfplayError::Io { path, source }
}

/// The model id and config hash recorded in every sample.
struct Provenance<'a> {
    model_id: &'a str,
    config_hash: &'a str,
}

fn model_and_hash<'a>(run: &'a SelfplayRun, config_hash: &'a str) -> Provenance<'a> {
    Provenance { model_id: &run.model_id, config_hash }
}

pub(crate) fn progress_bar(show: bool, total: u64, done: u64) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("selfplay {bar:30} {pos}/{len} games {elapsed_precise} eta {eta} {msg}")
            .expect("valid template"),
    );
    bar.set_position(done);
    bar
}

fn new_slot(config: &SelfplayConfig, run: &SelfplayRun, game_id: u64) -> Result<Slot, SelfplayError> {
    let seed = derive_seed(config.selfplay.seed, game_id);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (game, opening, resign) = open_game(config, run, &mut rng);
    let search_rng = ChaCha8Rng::seed_from_u64(rng.random());
    let search = Search::new(config.search.clone(), &game, search_rng)
        .map_err(|source| SelfplayError::Search { game_id, source })?;
    Ok(Slot { game_id, seed, game, search, searching: false, opening, samples: Vec::new(), resign })
}

/// Records the searched position, plays the chosen move and says whether the game is over.
fn play_searched_move(
    config: &SelfplayConfig,
    s: &mut Slot,
    result: &SearchResult,
    provenance: &Provenance<'_>,
) -> Result<Option<Outcome>, SelfplayError> {
    let pos = *s.game.position();
    let side = pos.side_to_move();
    // The labels are filled in when the game ends (`finish_game_record`).
    s.samples.push(Sample {
        policy: result.moves.iter().copied().zip(result.policy.iter().copied()).collect(),
        full_search: result.full_search,
        root_wdl: [result.root_wdl.win, result.root_wdl.draw, result.root_wdl.loss],
        root_visits: result.visits.iter().sum(),
        model_id: provenance.model_id.to_string(),
        config_hash: provenance.config_hash.to_string(),
        ..Sample::unlabelled(&s.game, s.game_id, s.seed, result.chosen)
    });

    let resigned = s.resign.resigns(&config.selfplay.resign, s.game.ply(), side, result.root_value);
    if resigned {
        return Ok(Some(Outcome::new(GameResult::loss_for(side), Termination::Resignation, "4.1.9")));
    }

    s.game.play(result.chosen).map_err(|e| SelfplayError::Search {
        game_id: s.game_id,
        source: xq_mcts::SearchError::IllegalMove(e.mv),
    })?;
    if let Some(outcome) = s.game.outcome() {
        return Ok(Some(outcome));
    }
    if s.game.ply() >= config.selfplay.max_plies as usize {
        return Ok(Some(Outcome::new(GameResult::Draw, Termination::MaxLength, "")));
    }
    s.search.advance(result.chosen).map_err(|source| SelfplayError::Search { game_id: s.game_id, source })?;
    s.searching = false;
    Ok(None)
}

/// A game that has ended, with the samples of its searched positions.
pub(crate) struct FinishedGame {
    pub(crate) game_id: u64,
    pub(crate) seed: u64,
    pub(crate) game: Game,
    pub(crate) opening: Option<String>,
    pub(crate) samples: Vec<Sample>,
    /// The side that would have resigned in a game where resigning was not allowed.
    pub(crate) would_have_resigned: Option<Color>,
}

fn finish_game(
    s: Slot,
    outcome: Outcome,
    run: &SelfplayRun,
    config_hash: &str,
    summary: &mut Summary,
) -> (GameRecord, Vec<Sample>) {
    let Slot { game_id, seed, game, samples, opening, resign, .. } = s;
    let finished = FinishedGame {
        game_id,
        seed,
        game,
        opening,
        samples,
        would_have_resigned: resign.would_have_resigned,
    };
    finish_game_record(finished, outcome, run, config_hash, summary)
}

/// Labels the game's samples with its result and builds its record.
/// Labels a game's samples with its outcome: each one's result and WDL target from its side
/// to move's point of view, and the termination and article.
pub(crate) fn label_samples(samples: &mut [Sample], outcome: &Outcome) {
    for sample in samples {
        let score = outcome.result.score_for(sample.side_to_move);
        sample.result = score;
        sample.wdl_target = match score {
            1 => [1.0, 0.0, 0.0],
            0 => [0.0, 1.0, 0.0],
            _ => [0.0, 0.0, 1.0],
        };
        sample.termination = outcome.reason;
        sample.article = outcome.article.to_string();
    }
}

pub(crate) fn finish_game_record(
    finished: FinishedGame,
    outcome: Outcome,
    run: &SelfplayRun,
    config_hash: &str,
    summary: &mut Summary,
) -> (GameRecord, Vec<Sample>) {
    let FinishedGame { game_id, seed, game, mut samples, opening, would_have_resigned } = finished;
    label_samples(&mut samples, &outcome);
    let start_fen = xq_core::write_fen(game.start(), 0, 1);
    // The game's moves are legal by construction, so both renderings are there.
    let (moves_chinese, moves_wxf) = GameRecord::render_moves(&start_fen, game.moves()).unwrap_or_default();
    let record = GameRecord {
        game_id,
        moves: game.moves().to_vec(),
        moves_chinese,
        moves_wxf,
        opening,
        start_fen,
        result: outcome.result,
        termination: outcome.reason,
        article: outcome.article.to_string(),
        must_vary: outcome.must_vary,
        rule_set: game.rules().rule_set,
        model_red: run.model_id.clone(),
        model_black: run.model_id.clone(),
        seed,
        config_hash: config_hash.to_string(),
    };
    summary.record(&GameTally {
        result: outcome.result,
        termination: outcome.reason,
        plies: game.ply(),
        false_resignation: would_have_resigned.map(|side| outcome.result != GameResult::loss_for(side)),
    });
    (record, samples)
}

pub(crate) fn write_shard_pair(
    dir: &Path,
    index: u64,
    mut chunk: Vec<(GameRecord, Vec<Sample>)>,
    options: &WriterOptions,
) -> Result<(), SelfplayError> {
    chunk.sort_by_key(|(g, _)| g.game_id);
    let samples: Vec<Sample> = chunk.iter().flat_map(|(_, s)| s.iter().cloned()).collect();
    let games: Vec<GameRecord> = chunk.into_iter().map(|(g, _)| g).collect();
    xq_data::write_shard(&dir.join(xq_data::shard_file_name("samples", index)), &samples, options)?;
    xq_data::write_shard(&dir.join(xq_data::shard_file_name("games", index)), &games, options)?;
    Ok(())
}

/// What an output directory already holds.
pub(crate) struct ResumeState {
    pub(crate) done: BTreeSet<u64>,
    pub(crate) next_shard: u64,
}

impl ResumeState {
    pub(crate) fn scan(dir: &Path) -> Result<ResumeState, SelfplayError> {
        let games = xq_data::read_games_dir(dir)?;
        let done: BTreeSet<u64> = games.rows.iter().map(|g| g.game_id).collect();
        let game_shards = xq_data::list_shards::<GameRecord>(dir)?;
        let next_shard = game_shards.iter().map(|s| s.index + 1).max().unwrap_or(0);
        // A samples shard at or past `next_shard` was written by a run killed before it could
        // commit the matching games shard: its games will be played again.
        for shard in xq_data::list_shards::<Sample>(dir)? {
            if shard.index >= next_shard {
                std::fs::remove_file(&shard.path)
                    .map_err(|source| SelfplayError::Io { path: shard.path.clone(), source })?;
            }
        }
        Ok(ResumeState { done, next_shard })
    }
}
