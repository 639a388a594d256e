//! Game collections as labelled data: games played elsewhere (PGN, read by the caller) and
//! position sets (EPD or FEN, [`ImportedGame::from_epd`]) become
//! rows of the games and samples tables, every ending judged by xq-core's rules, so a trainer
//! can start from them (`xq import`, then `xq train --data`).
//!
//! Each game is replayed move by move under the rules. Where the rules end it (mate,
//! stalemate, a 棋例 repetition verdict, the move limit), that is its ending, and moves the
//! collection has after it are cut. A game the rules leave open takes the collection's result:
//! a decisive one as a resignation (4.1.9), a draw as a declared draw (`draw_adjudication`,
//! 4.2.2); an open game without a result is left out. Every position gets a sample whose
//! policy target is the move played and whose value target is the judged result.

use crate::driver::{ResumeState, SelfplayError, label_samples, write_shard_pair};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use xq_core::{Color, Game, GameResult, GameRules, Move, Outcome, Termination};
use xq_data::{GameRecord, Sample, WriterOptions};
use xq_play::epd::{EpdError, EpdRecord};

/// The `config_hash` of imported rows: they come from no configuration.
pub const IMPORT_CONFIG_HASH: &str = "import";

/// One game of a collection, as its file gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedGame {
    /// The start position's FEN.
    pub start_fen: String,
    /// The moves, already parsed (their legality is checked on replay).
    pub moves: Vec<Move>,
    /// The result the collection records; `None` for an unfinished game (`*`).
    pub declared: Option<GameResult>,
    /// The red player's name (the samples' `model_id` for red's moves).
    pub red: String,
    /// The black player's name.
    pub black: String,
    /// The opening's name, if the collection gives one.
    pub opening: Option<String>,
}

impl ImportedGame {
    /// A position of an EPD or FEN file as a game that starts there: its moves are the
    /// record's `pv` (or its first `bm`), its declared result the record's label (`result`,
    /// `c9` or a `[score]` bracket), its opening name the record's `id`. The judge then ends
    /// it as it ends any game: a mate or stalemate on the board (or after the moves) is its
    /// result whatever the label says, an open position takes the label, and an open position
    /// without a label is left out as unfinished. Each position from which a move is played
    /// becomes a sample; a position without a move gives its games row only (a sample needs
    /// the move played from it).
    ///
    /// # Errors
    /// [`EpdError`] for a bad label or an unreadable move.
    pub fn from_epd(record: &EpdRecord) -> Result<ImportedGame, EpdError> {
        Ok(ImportedGame {
            start_fen: record.fen.clone(),
            moves: record.moves()?,
            declared: record.result()?,
            red: "?".to_string(),
            black: "?".to_string(),
            opening: record.id().map(str::to_string),
        })
    }
}

/// How to import.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportOptions {
    /// The rules every game is judged under.
    pub rules: GameRules,
    /// Games per shard pair.
    pub games_per_shard: usize,
    /// Shard layout.
    pub writer: WriterOptions,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions { rules: GameRules::default(), games_per_shard: 1000, writer: WriterOptions::default() }
    }
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ImportSummary {
    /// Games in the input.
    pub read: u64,
    /// Games written (this run and, on a resumed import, before).
    pub games: u64,
    /// Games already in the output directory from an earlier run, not written again.
    pub resumed: u64,
    /// Positions written in this run.
    pub positions: u64,
    /// Games the rules ended before the collection's last move (moves after it cut).
    pub cut_by_rules: u64,
    /// Games whose judged result differs from the one the collection records.
    pub result_changed: u64,
    /// Unfinished games without a result, left out.
    pub unfinished: u64,
    /// Games with an illegal move or a bad start position, left out, with the reason.
    pub rejected: Vec<String>,
    /// Written games by ending (`checkmate`, `perpetual_check`, `resignation`, …).
    pub endings: BTreeMap<String, u64>,
}

/// A game judged: its record and samples, or why it is left out.
enum Judged {
    Kept { record: Box<GameRecord>, samples: Vec<Sample>, cut: bool, changed: bool },
    Unfinished,
    Rejected(String),
}

fn judge(imported: &ImportedGame, game_id: u64, rules: GameRules) -> Judged {
    let mut game = match Game::from_fen(&imported.start_fen, rules) {
        Ok(game) => game,
        Err(e) => return Judged::Rejected(format!("game {game_id}: bad start position: {e}")),
    };
    let mut samples = Vec::with_capacity(imported.moves.len());
    let mut cut = false;
    for (ply, &mv) in imported.moves.iter().enumerate() {
        if game.outcome().is_some() {
            cut = true;
            break;
        }
        let mover =
            if game.position().side_to_move() == Color::Red { &imported.red } else { &imported.black };
        let sample = Sample {
            policy: vec![(mv, 1.0)],
            full_search: true,
            model_id: mover.clone(),
            config_hash: IMPORT_CONFIG_HASH.to_string(),
            ..Sample::unlabelled(&game, game_id, 0, mv)
        };
        if let Err(e) = game.play(mv) {
            return Judged::Rejected(format!("game {game_id}: move {} ({}): {e}", ply + 1, mv.iccs()));
        }
        samples.push(sample);
    }
    let outcome = match (game.outcome(), imported.declared) {
        (Some(outcome), _) => outcome,
        (None, Some(GameResult::Draw)) => {
            Outcome::new(GameResult::Draw, Termination::DrawAdjudication, "4.2.2")
        }
        (None, Some(result)) => Outcome::new(result, Termination::Resignation, "4.1.9"),
        (None, None) => return Judged::Unfinished,
    };
    let changed = imported.declared.is_some_and(|declared| declared != outcome.result);
    label_samples(&mut samples, &outcome);
    for sample in &mut samples {
        // No search stands behind the move: the root value is the judged result, so blending
        // it into the value target changes nothing.
        sample.root_wdl = sample.wdl_target;
    }
    let start_fen = xq_core::write_fen(game.start(), 0, 1);
    let (moves_chinese, moves_wxf) = GameRecord::render_moves(&start_fen, game.moves()).unwrap_or_default();
    let record = GameRecord {
        game_id,
        moves: game.moves().to_vec(),
        moves_chinese,
        moves_wxf,
        opening: imported.opening.clone(),
        start_fen,
        result: outcome.result,
        termination: outcome.reason,
        article: outcome.article.to_string(),
        must_vary: outcome.must_vary,
        rule_set: rules.rule_set,
        model_red: imported.red.clone(),
        model_black: imported.black.clone(),
        seed: 0,
        config_hash: IMPORT_CONFIG_HASH.to_string(),
    };
    Judged::Kept { record: Box::new(record), samples, cut, changed }
}

/// Imports `games` into `out` as shard pairs of [`ImportOptions::games_per_shard`] games. Game
/// ids are the games' positions in the input (0, 1, …), so a rerun into the same directory
/// skips the games already written and writes the rest: an import killed at any point resumes
/// without a duplicate.
///
/// # Errors
/// The output directory cannot be created or read, or a shard cannot be written.
pub fn import_games(
    games: impl IntoIterator<Item = ImportedGame>,
    out: &Path,
    options: &ImportOptions,
) -> Result<ImportSummary, SelfplayError> {
    if options.games_per_shard == 0 {
        return Err(SelfplayError::Config("games_per_shard must be at least 1".into()));
    }
    std::fs::create_dir_all(out).map_err(crate::driver::io_error(out))?;
    let resume = ResumeState::scan(out)?;
    let mut summary = ImportSummary { resumed: resume.done.len() as u64, ..ImportSummary::default() };
    let mut next_shard = resume.next_shard;
    let mut chunk = Vec::with_capacity(options.games_per_shard);
    for (index, imported) in games.into_iter().enumerate() {
        summary.read += 1;
        let game_id = index as u64;
        match judge(&imported, game_id, options.rules) {
            Judged::Kept { record, samples, cut, changed } => {
                summary.cut_by_rules += u64::from(cut);
                summary.result_changed += u64::from(changed);
                *summary.endings.entry(record.termination.name().to_string()).or_default() += 1;
                if resume.done.contains(&game_id) {
                    continue;
                }
                summary.positions += samples.len() as u64;
                chunk.push((*record, samples));
            }
            Judged::Unfinished => summary.unfinished += 1,
            Judged::Rejected(why) => summary.rejected.push(why),
        }
        if chunk.len() == options.games_per_shard {
            write_shard_pair(out, next_shard, std::mem::take(&mut chunk), &options.writer)?;
            next_shard += 1;
        }
    }
    if !chunk.is_empty() {
        write_shard_pair(out, next_shard, chunk, &options.writer)?;
    }
    summary.games = summary.endings.values().sum();
    Ok(summary)
}
