//! The `samples` table: one row per position seen in self-play.

use crate::codec::{color_code, color_from_code, invalid_board_byte, move_from_raw, position_from_board};
use crate::table::{CodecError, Table, arc, bad, column, list_field, list_item, no_nulls, private::Codec};
use arrow_array::builder::{
    BooleanBuilder, FixedSizeBinaryBuilder, Float32Builder, Int8Builder, ListBuilder, StringBuilder,
    UInt8Builder, UInt16Builder, UInt32Builder, UInt64Builder,
};
use arrow_array::{
    Array, BooleanArray, FixedSizeBinaryArray, Float32Array, Int8Array, ListArray, RecordBatch, StringArray,
    UInt8Array, UInt16Array, UInt32Array, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};
use xq_core::{Color, Game, HistoryFeatures, Move, Position, PositionError, Termination};

/// The schema version of the `samples` table this build writes and reads. Version 2 added
/// `limit_plies` and `move_limit_plies`, the history features the network saw.
pub const SAMPLES_SCHEMA_VERSION: u32 = 2;

/// One training position: the board, the search's policy and value at the root, the move
/// played and the game's final outcome. Every field is one column of the `samples` table
/// (`docs/DATA.md` documents each column).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The game this position belongs to (joins with [`crate::GameRecord::game_id`]).
    pub game_id: u64,
    /// Plies played before this position in its game (0 for the start position).
    pub ply: u16,
    /// The position as FEN (clocks included as the game had them).
    pub fen: String,
    /// The position compactly: 90 piece codes indexed by `rank * 9 + file` (0 empty, otherwise
    /// [`xq_core::Piece::code`]: 1–7 red K A B N R C P, 8–14 black); `*pos.board_codes()`.
    pub board: [u8; 90],
    /// Whose move it is.
    pub side_to_move: Color,
    /// The policy target: legal moves with their probability (visit share or Gumbel improved
    /// policy), in the order the search gave them. Moves are stored as [`Move::raw`].
    pub policy: Vec<(Move, f32)>,
    /// Whether the position got the full search budget (playout-cap randomization): `false`
    /// rows come from a cheap search and train only the value head.
    pub full_search: bool,
    /// The root's value after search as win / draw / loss probabilities for the side to move.
    pub root_wdl: [f32; 3],
    /// Visits (simulations) the root received.
    pub root_visits: u32,
    /// The move actually played from this position.
    pub move_played: Move,
    /// The game's final result for the side to move: +1 win, 0 draw, -1 loss.
    pub result: i8,
    /// The value target as win / draw / loss probabilities for the side to move (one-hot of
    /// `result` unless the producer smooths it).
    pub wdl_target: [f32; 3],
    /// Why the game ended.
    pub termination: Termination,
    /// The rulebook article of the game's end (e.g. `"26.1"`), empty when none applies.
    pub article: String,
    /// How many times this position (same board and side) had occurred in the game, this
    /// occurrence included (1 = first time).
    pub repetitions: u8,
    /// Plies since the last capture (the FEN's half-move clock).
    pub plies_since_capture: u16,
    /// Plies counted toward the natural move limit ([`xq_core::Game::limit_plies`]): the
    /// capture clock, or fewer under article 23.3's ten-check count.
    pub limit_plies: u16,
    /// The natural move limit of the game's rules, in plies.
    pub move_limit_plies: u16,
    /// The model that searched this position (content hash / id).
    pub model_id: String,
    /// Hash of the self-play configuration.
    pub config_hash: String,
    /// The game's seed.
    pub seed: u64,
}

impl Sample {
    /// A sample of `game`'s current position from which `move_played` is played: the position
    /// and history columns from the game, every other column empty. The producer fills in the
    /// search's columns (policy, root WDL and visits, provenance) and, once the game has ended,
    /// the labels (`result`, `wdl_target`, `termination`, `article`).
    pub fn unlabelled(game: &Game, game_id: u64, seed: u64, move_played: Move) -> Sample {
        let position = game.position();
        let mut sample = Sample {
            game_id,
            ply: u16::try_from(game.ply()).unwrap_or(u16::MAX),
            fen: game.fen(),
            board: *position.board_codes(),
            side_to_move: position.side_to_move(),
            policy: Vec::new(),
            full_search: true,
            root_wdl: [0.0; 3],
            root_visits: 0,
            move_played,
            result: 0,
            wdl_target: [0.0; 3],
            termination: Termination::MaxLength,
            article: String::new(),
            repetitions: 0,
            plies_since_capture: 0,
            limit_plies: 0,
            move_limit_plies: 0,
            model_id: String::new(),
            config_hash: String::new(),
            seed,
        };
        sample.set_history(game);
        sample
    }

    /// The history features the network saw at this position in play, exactly: the trainer
    /// encodes them, so training and play see the same inputs.
    pub fn history_features(&self) -> HistoryFeatures {
        HistoryFeatures {
            earlier_occurrences: self.repetitions.saturating_sub(1),
            limit_plies: u32::from(self.limit_plies),
            move_limit_plies: u32::from(self.move_limit_plies),
        }
    }

    /// Sets the history columns (`repetitions`, `plies_since_capture`, `limit_plies`,
    /// `move_limit_plies`) from `game`'s current position: the one place they are derived, so
    /// [`Sample::history_features`] gives back what [`Game::history_features`] gave in play.
    pub fn set_history(&mut self, game: &Game) {
        let clamp = |v: u32| v.min(u32::from(u16::MAX)) as u16;
        let features = game.history_features();
        self.repetitions = features.earlier_occurrences.saturating_add(1);
        self.plies_since_capture = clamp(game.capture_clock());
        self.limit_plies = clamp(features.limit_plies);
        self.move_limit_plies = clamp(features.move_limit_plies);
    }

    /// Rebuilds the position from [`Sample::board`] and [`Sample::side_to_move`].
    pub fn position(&self) -> Result<Position, PositionError> {
        position_from_board(&self.board, self.side_to_move, u32::from(self.plies_since_capture))
    }
}

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    use DataType::{Boolean, Float32, Int8, UInt8, UInt16, UInt32, UInt64, Utf8};
    let scalar = |name: &str, ty: DataType| Field::new(name, ty, false);
    Arc::new(Schema::new(vec![
        scalar("game_id", UInt64),
        scalar("ply", UInt16),
        scalar("fen", Utf8),
        scalar("board", DataType::FixedSizeBinary(90)),
        scalar("side_to_move", UInt8),
        list_field("policy_moves", UInt16),
        list_field("policy_probs", Float32),
        scalar("full_search", Boolean),
        scalar("root_win", Float32),
        scalar("root_draw", Float32),
        scalar("root_loss", Float32),
        scalar("root_visits", UInt32),
        scalar("move_played", UInt16),
        scalar("result", Int8),
        scalar("target_win", Float32),
        scalar("target_draw", Float32),
        scalar("target_loss", Float32),
        scalar("termination", Utf8),
        scalar("article", Utf8),
        scalar("repetitions", UInt8),
        scalar("plies_since_capture", UInt16),
        scalar("limit_plies", UInt16),
        scalar("move_limit_plies", UInt16),
        scalar("model_id", Utf8),
        scalar("config_hash", Utf8),
        scalar("seed", UInt64),
    ]))
});

impl Table for Sample {
    const NAME: &'static str = "samples";
    const SCHEMA_VERSION: u32 = SAMPLES_SCHEMA_VERSION;

    fn arrow_schema() -> SchemaRef {
        SCHEMA.clone()
    }
}

impl Codec for Sample {
    fn check(r: &Sample) -> Result<(), (&'static str, String)> {
        if !(-1..=1).contains(&r.result) {
            return Err(("result", format!("{} is not -1, 0 or 1", r.result)));
        }
        if let Some(at) = invalid_board_byte(&r.board) {
            return Err(("board", format!("byte {at} is {}, piece codes are 0..=14", r.board[at])));
        }
        Ok(())
    }

    fn to_batch(rows: &[Sample]) -> Result<RecordBatch, CodecError> {
        let n = rows.len();
        let policy_len: usize = rows.iter().map(|r| r.policy.len()).sum();
        let mut game_id = UInt64Builder::with_capacity(n);
        let mut ply = UInt16Builder::with_capacity(n);
        let mut fen = StringBuilder::with_capacity(n, rows.iter().map(|r| r.fen.len()).sum());
        let mut board = FixedSizeBinaryBuilder::with_capacity(n, 90);
        let mut side = UInt8Builder::with_capacity(n);
        let mut policy_moves = ListBuilder::with_capacity(UInt16Builder::with_capacity(policy_len), n)
            .with_field(list_item(DataType::UInt16));
        let mut policy_probs = ListBuilder::with_capacity(Float32Builder::with_capacity(policy_len), n)
            .with_field(list_item(DataType::Float32));
        let mut full_search = BooleanBuilder::with_capacity(n);
        let mut root = [(); 3].map(|_| Float32Builder::with_capacity(n));
        let mut root_visits = UInt32Builder::with_capacity(n);
        let mut move_played = UInt16Builder::with_capacity(n);
        let mut result = Int8Builder::with_capacity(n);
        let mut target = [(); 3].map(|_| Float32Builder::with_capacity(n));
        let mut termination = StringBuilder::with_capacity(n, 16 * n);
        let mut article = StringBuilder::with_capacity(n, 4 * n);
        let mut repetitions = UInt8Builder::with_capacity(n);
        let mut since_capture = UInt16Builder::with_capacity(n);
        let mut limit_plies = UInt16Builder::with_capacity(n);
        let mut move_limit_plies = UInt16Builder::with_capacity(n);
        let mut model_id = StringBuilder::with_capacity(n, rows.iter().map(|r| r.model_id.len()).sum());
        let mut config_hash = StringBuilder::with_capacity(n, rows.iter().map(|r| r.config_hash.len()).sum());
        let mut seed = UInt64Builder::with_capacity(n);

        for (i, r) in rows.iter().enumerate() {
            Sample::check(r).map_err(|(column, detail)| bad(i, column, detail))?;
            game_id.append_value(r.game_id);
            ply.append_value(r.ply);
            fen.append_value(&r.fen);
            board.append_value(r.board)?;
            side.append_value(color_code(r.side_to_move));
            for &(m, p) in &r.policy {
                policy_moves.values().append_value(m.raw());
                policy_probs.values().append_value(p);
            }
            policy_moves.append(true);
            policy_probs.append(true);
            full_search.append_value(r.full_search);
            for k in 0..3 {
                root[k].append_value(r.root_wdl[k]);
                target[k].append_value(r.wdl_target[k]);
            }
            root_visits.append_value(r.root_visits);
            move_played.append_value(r.move_played.raw());
            result.append_value(r.result);
            termination.append_value(r.termination.name());
            article.append_value(&r.article);
            repetitions.append_value(r.repetitions);
            since_capture.append_value(r.plies_since_capture);
            limit_plies.append_value(r.limit_plies);
            move_limit_plies.append_value(r.move_limit_plies);
            model_id.append_value(&r.model_id);
            config_hash.append_value(&r.config_hash);
            seed.append_value(r.seed);
        }
        let [root_w, root_d, root_l] = root.map(|mut b| arc(b.finish()));
        let [target_w, target_d, target_l] = target.map(|mut b| arc(b.finish()));
        let columns = vec![
            arc(game_id.finish()),
            arc(ply.finish()),
            arc(fen.finish()),
            arc(board.finish()),
            arc(side.finish()),
            arc(policy_moves.finish()),
            arc(policy_probs.finish()),
            arc(full_search.finish()),
            root_w,
            root_d,
            root_l,
            arc(root_visits.finish()),
            arc(move_played.finish()),
            arc(result.finish()),
            target_w,
            target_d,
            target_l,
            arc(termination.finish()),
            arc(article.finish()),
            arc(repetitions.finish()),
            arc(since_capture.finish()),
            arc(limit_plies.finish()),
            arc(move_limit_plies.finish()),
            arc(model_id.finish()),
            arc(config_hash.finish()),
            arc(seed.finish()),
        ];
        Ok(RecordBatch::try_new(Sample::arrow_schema(), columns)?)
    }

    fn from_batch(batch: &RecordBatch, first: usize, out: &mut Vec<Sample>) -> Result<(), CodecError> {
        for (field, c) in batch.schema().fields().iter().zip(batch.columns()) {
            no_nulls(c.as_ref(), field.name(), first)?;
        }
        let game_id = column::<UInt64Array>(batch, "game_id", first)?;
        let ply = column::<UInt16Array>(batch, "ply", first)?;
        let fen = column::<StringArray>(batch, "fen", first)?;
        let board = column::<FixedSizeBinaryArray>(batch, "board", first)?;
        let side = column::<UInt8Array>(batch, "side_to_move", first)?;
        let policy_moves = column::<ListArray>(batch, "policy_moves", first)?;
        let policy_probs = column::<ListArray>(batch, "policy_probs", first)?;
        let full_search = column::<BooleanArray>(batch, "full_search", first)?;
        let root_w = column::<Float32Array>(batch, "root_win", first)?;
        let root_d = column::<Float32Array>(batch, "root_draw", first)?;
        let root_l = column::<Float32Array>(batch, "root_loss", first)?;
        let root_visits = column::<UInt32Array>(batch, "root_visits", first)?;
        let move_played = column::<UInt16Array>(batch, "move_played", first)?;
        let result = column::<Int8Array>(batch, "result", first)?;
        let target_w = column::<Float32Array>(batch, "target_win", first)?;
        let target_d = column::<Float32Array>(batch, "target_draw", first)?;
        let target_l = column::<Float32Array>(batch, "target_loss", first)?;
        let termination = column::<StringArray>(batch, "termination", first)?;
        let article = column::<StringArray>(batch, "article", first)?;
        let repetitions = column::<UInt8Array>(batch, "repetitions", first)?;
        let since_capture = column::<UInt16Array>(batch, "plies_since_capture", first)?;
        let limit_plies = column::<UInt16Array>(batch, "limit_plies", first)?;
        let move_limit_plies = column::<UInt16Array>(batch, "move_limit_plies", first)?;
        let model_id = column::<StringArray>(batch, "model_id", first)?;
        let config_hash = column::<StringArray>(batch, "config_hash", first)?;
        let seed = column::<UInt64Array>(batch, "seed", first)?;

        let move_values = policy_moves
            .values()
            .as_any()
            .downcast_ref::<UInt16Array>()
            .ok_or_else(|| bad(first, "policy_moves", "list items are not uint16"))?;
        let prob_values = policy_probs
            .values()
            .as_any()
            .downcast_ref::<Float32Array>()
            .ok_or_else(|| bad(first, "policy_probs", "list items are not float32"))?;
        no_nulls(move_values, "policy_moves", first)?;
        no_nulls(prob_values, "policy_probs", first)?;
        let (move_values, prob_values) = (move_values.values(), prob_values.values());
        let (move_offsets, prob_offsets) = (policy_moves.value_offsets(), policy_probs.value_offsets());

        // A single memoised termination lookup: the column is the same within a game.
        let mut last_termination: Option<(String, Termination)> = None;
        out.reserve(batch.num_rows());
        for i in 0..batch.num_rows() {
            let row = first + i;
            let board_bytes: [u8; 90] =
                board.value(i).try_into().map_err(|_| bad(row, "board", "not 90 bytes"))?;
            if let Some(at) = invalid_board_byte(&board_bytes) {
                return Err(bad(
                    row,
                    "board",
                    format!("byte {at} is {}, piece codes are 0..=14", board_bytes[at]),
                ));
            }
            let side_to_move = color_from_code(side.value(i)).ok_or_else(|| {
                bad(row, "side_to_move", format!("{} is not 0 (red) or 1 (black)", side.value(i)))
            })?;
            let (m0, m1) = (move_offsets[i] as usize, move_offsets[i + 1] as usize);
            let (p0, p1) = (prob_offsets[i] as usize, prob_offsets[i + 1] as usize);
            if m1 - m0 != p1 - p0 {
                return Err(bad(
                    row,
                    "policy_probs",
                    format!("{} probabilities for {} moves", p1 - p0, m1 - m0),
                ));
            }
            let mut policy = Vec::with_capacity(m1 - m0);
            for (&raw, &p) in move_values[m0..m1].iter().zip(&prob_values[p0..p1]) {
                let m = move_from_raw(raw)
                    .ok_or_else(|| bad(row, "policy_moves", format!("move code {raw} off the board")))?;
                policy.push((m, p));
            }
            let played = move_played.value(i);
            let move_played = move_from_raw(played)
                .ok_or_else(|| bad(row, "move_played", format!("move code {played} off the board")))?;
            let r = result.value(i);
            if !(-1..=1).contains(&r) {
                return Err(bad(row, "result", format!("{r} is not -1, 0 or 1")));
            }
            let term_name = termination.value(i);
            let term = match &last_termination {
                Some((name, t)) if name == term_name => *t,
                _ => {
                    let t: Termination = term_name
                        .parse()
                        .map_err(|e: xq_core::ParseError| bad(row, "termination", e.to_string()))?;
                    last_termination = Some((term_name.to_string(), t));
                    t
                }
            };
            out.push(Sample {
                game_id: game_id.value(i),
                ply: ply.value(i),
                fen: fen.value(i).to_string(),
                board: board_bytes,
                side_to_move,
                policy,
                full_search: full_search.value(i),
                root_wdl: [root_w.value(i), root_d.value(i), root_l.value(i)],
                root_visits: root_visits.value(i),
                move_played,
                result: r,
                wdl_target: [target_w.value(i), target_d.value(i), target_l.value(i)],
                termination: term,
                article: article.value(i).to_string(),
                repetitions: repetitions.value(i),
                plies_since_capture: since_capture.value(i),
                limit_plies: limit_plies.value(i),
                move_limit_plies: move_limit_plies.value(i),
                model_id: model_id.value(i).to_string(),
                config_hash: config_hash.value(i).to_string(),
                seed: seed.value(i),
            });
        }
        Ok(())
    }
}
