//! Teacher games: alpha-beta plays both sides and its choices become training samples.
//!
//! Bootstrap data from MCTS over the material evaluator is cheap but weak: its games are
//! decided by blunders, so the value target says little about the positions. A shallow
//! alpha-beta search sees the captures and mates a few plies ahead, and costs little more per
//! game. Each searched position becomes a sample whose policy target is the teacher's move
//! (one-hot) and whose root WDL is its score through the same squashing as the material
//! evaluator's; the value target is the game's result, as in self-play.
//!
//! Variety comes from the opening book and from random moves: in each game's first
//! `search.temperature_plies` plies, a move is replaced by a uniformly random legal one with
//! probability `random_move_probability` (the sample still records the teacher's move as the
//! target). Games are played `games_per_shard` at a time in parallel (rayon), each from its own
//! seed with a fresh player, and written in game order, so the same seed gives the same files
//! whatever the thread count, and a killed run resumes like self-play.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::time::Instant;
use xq_core::{GameResult, Outcome, Termination};
use xq_data::{Sample, WriterOptions};
use xq_mcts::Wdl;
use xq_play::{AlphaBetaPlayer, GameStart, Player, Score, SearchLimits, derive_seed};

use crate::config::SelfplayConfig;
use crate::driver::{
    FinishedGame, ResumeState, SelfplayError, SelfplayRun, finish_game_record, io_error, open_game,
    progress_bar, write_shard_pair,
};
use crate::summary::Summary;

/// The teacher: alpha-beta at a fixed depth.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TeacherConfig {
    /// Plies searched per move (iterative deepening to this depth, plus quiescence).
    pub depth: u32,
    /// Chance that a move of the first `search.temperature_plies` plies is a random legal
    /// move instead of the teacher's.
    pub random_move_probability: f32,
}

impl Default for TeacherConfig {
    fn default() -> Self {
        TeacherConfig { depth: 2, random_move_probability: 0.2 }
    }
}

impl TeacherConfig {
    /// The model id recorded in the samples: `alphabeta-d<depth>`.
    pub fn model_id(&self) -> String {
        format!("alphabeta-d{}", self.depth)
    }

    /// Checks the ranges.
    ///
    /// # Errors
    /// A message naming the value.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=8).contains(&self.depth) {
            return Err(format!("teacher depth {}: expected 1..=8", self.depth));
        }
        if !(0.0..=1.0).contains(&self.random_move_probability) {
            return Err(format!("random_move_probability {}: expected 0..=1", self.random_move_probability));
        }
        Ok(())
    }
}

/// Centipawns that squash to a value of tanh(1) ≈ 0.76: the material evaluator's scale (8
/// pawns of 100).
const VALUE_SCALE_CP: f32 = 800.0;
/// Draw probability of a level position, as the material evaluator gives it.
const LEVEL_DRAW: f32 = 0.3;

/// The teacher's score as a WDL for the side to move.
fn score_wdl(score: Option<Score>) -> Wdl {
    let cp = score.map_or(0, Score::centipawns) as f32;
    let value = (cp / VALUE_SCALE_CP).tanh();
    Wdl::from_value(value, LEVEL_DRAW * (1.0 - value.abs()))
}

/// Plays the configured number of teacher games into `run.out_dir` (continuing what it holds).
///
/// # Errors
/// [`SelfplayError`] for a bad configuration, a failed search or unwritable shards.
pub fn run_teacher_selfplay(
    config: &SelfplayConfig,
    teacher: &TeacherConfig,
    run: &SelfplayRun,
) -> Result<Summary, SelfplayError> {
    config.validate().map_err(SelfplayError::Config)?;
    teacher.validate().map_err(SelfplayError::Config)?;
    std::fs::create_dir_all(&run.out_dir).map_err(io_error(&run.out_dir))?;
    let resume = ResumeState::scan(&run.out_dir)?;
    let pending: Vec<u64> = (0..config.selfplay.games).filter(|id| !resume.done.contains(id)).collect();
    let config_hash = format!("{}-{}", config.hash(), teacher.model_id());
    let mut summary = Summary::new(config.selfplay.games, resume.done.len() as u64);
    let bar = progress_bar(run.progress, config.selfplay.games, resume.done.len() as u64);
    let started = Instant::now();
    let writer = WriterOptions::default();
    for (written, (shard, chunk)) in
        (resume.next_shard..).zip(pending.chunks(config.selfplay.games_per_shard)).enumerate()
    {
        let played: Vec<Result<(FinishedGame, Outcome), SelfplayError>> = chunk
            .par_iter()
            .map(|&game_id| play_teacher_game(config, teacher, run, game_id, &config_hash))
            .collect();
        let mut finished = Vec::with_capacity(played.len());
        for game in played {
            let (game, outcome) = game?;
            let (record, samples) = finish_game_record(game, outcome, run, &config_hash, &mut summary);
            summary.positions += samples.len() as u64;
            finished.push((record, samples));
            bar.inc(1);
        }
        bar.set_message(summary.progress_message(started.elapsed()));
        write_shard_pair(&run.out_dir, shard, finished, &writer)?;
        if run.stop_after_shards.is_some_and(|n| written as u64 + 1 >= n) {
            summary.interrupted = true;
            break;
        }
    }
    summary.seconds = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    Ok(summary)
}

/// One game of the teacher against itself, from the game's own seed.
fn play_teacher_game(
    config: &SelfplayConfig,
    teacher: &TeacherConfig,
    run: &SelfplayRun,
    game_id: u64,
    config_hash: &str,
) -> Result<(FinishedGame, Outcome), SelfplayError> {
    let seed = derive_seed(config.selfplay.seed, game_id);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut game, opening, mut resign) = open_game(config, run, &mut rng);
    let mut player = AlphaBetaPlayer::with_depth(teacher.depth);
    let search_error = |e: xq_play::PlayerError| {
        SelfplayError::Config(format!("teacher search failed in game {game_id}: {e}"))
    };
    player
        .new_game(&game, GameStart { color: game.position().side_to_move(), seed, game_index: 0 })
        .map_err(search_error)?;
    let limits = SearchLimits::depth(teacher.depth);
    let model_id = teacher.model_id();
    let mut samples = Vec::new();
    let outcome = loop {
        let pos = *game.position();
        let side = pos.side_to_move();
        let choice = player.choose_move(&game, &limits).map_err(search_error)?;
        let wdl = score_wdl(choice.score);
        let mut played = choice.mv;
        if (game.ply() as u32) < config.search.temperature_plies
            && rng.random::<f32>() < teacher.random_move_probability
        {
            let moves = pos.legal_moves();
            played = moves[rng.random_range(0..moves.len())];
        }
        samples.push(Sample {
            policy: vec![(choice.mv, 1.0)],
            root_wdl: [wdl.win, wdl.draw, wdl.loss],
            root_visits: choice.nodes.map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX)),
            model_id: model_id.clone(),
            config_hash: config_hash.to_string(),
            ..Sample::unlabelled(&game, game_id, seed, played)
        });
        if resign.resigns(&config.selfplay.resign, game.ply(), side, wdl.value()) {
            break Outcome::new(GameResult::loss_for(side), Termination::Resignation, "4.1.9");
        }
        game.play(played)
            .map_err(|e| SelfplayError::Config(format!("teacher played an illegal move {}", e.mv)))?;
        if let Some(outcome) = game.outcome() {
            break outcome;
        }
        if game.ply() >= config.selfplay.max_plies as usize {
            break Outcome::new(GameResult::Draw, Termination::MaxLength, "");
        }
    };
    let would_have_resigned = resign.would_have_resigned;
    Ok((FinishedGame { game_id, seed, game, opening, samples, would_have_resigned }, outcome))
}
