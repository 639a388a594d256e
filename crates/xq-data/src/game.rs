//! The `games` table: one row per finished game.

use crate::table::{CodecError, Table, arc, bad, column, list_field, list_item, no_nulls, private::Codec};
use arrow_array::builder::{ListBuilder, StringBuilder, UInt32Builder, UInt64Builder};
use arrow_array::{Array, ListArray, RecordBatch, StringArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, LazyLock};
use xq_core::{Color, GameResult, Move, Position, RuleSet, Termination, notation};

/// The schema version of the `games` table this build writes and reads. Version 2 added
/// `moves_wxf`; version 1 shards are still read, their WXF moves rendered from the ICCS ones.
pub const GAMES_SCHEMA_VERSION: u32 = 2;

/// One finished game: its moves, how it started and ended, and who played it. Every field is
/// one column of the `games` table (`docs/DATA.md`); the `plies` column is written from
/// `moves.len()`.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The game's id (the `game_id` of its samples).
    pub game_id: u64,
    /// The moves played, stored as ICCS strings (`h2e2`).
    pub moves: Vec<Move>,
    /// The same moves in Chinese notation (炮二平五), rendered by the caller; either empty or
    /// exactly one entry per move.
    pub moves_chinese: Vec<String>,
    /// The same moves in WXF notation (`C2=5`), rendered by the caller; either empty or
    /// exactly one entry per move.
    pub moves_wxf: Vec<String>,
    /// The opening's name, if the game started from a named opening.
    pub opening: Option<String>,
    /// The FEN the game started from.
    pub start_fen: String,
    /// The result.
    pub result: GameResult,
    /// Why the game ended.
    pub termination: Termination,
    /// The rulebook article of the game's end, empty when none applies.
    pub article: String,
    /// For repetition verdicts: the side that had to vary.
    pub must_vary: Option<Color>,
    /// The repetition rule set the game was judged under.
    pub rule_set: RuleSet,
    /// The model (or player) that played red.
    pub model_red: String,
    /// The model (or player) that played black; equal to `model_red` in self-play.
    pub model_black: String,
    /// The game's seed.
    pub seed: u64,
    /// Hash of the configuration that produced the game.
    pub config_hash: String,
}

impl GameRecord {
    /// The number of plies played.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// The moves in Chinese and in WXF notation, played from `start_fen`; `None` when the
    /// FEN or a move is not legal.
    ///
    /// ```
    /// use xq_core::{Move, START_FEN};
    /// use xq_data::GameRecord;
    ///
    /// let moves: Vec<Move> = ["h2e2", "h9g7"].iter().map(|m| m.parse().unwrap()).collect();
    /// let (chinese, wxf) = GameRecord::render_moves(START_FEN, &moves).unwrap();
    /// assert_eq!(chinese, ["炮二平五", "马8进7"]);
    /// assert_eq!(wxf, ["C2=5", "N8+7"]);
    /// ```
    pub fn render_moves(start_fen: &str, moves: &[Move]) -> Option<(Vec<String>, Vec<String>)> {
        let mut position = Position::from_fen(start_fen).ok()?;
        let mut chinese = Vec::with_capacity(moves.len());
        let mut wxf = Vec::with_capacity(moves.len());
        for &mv in moves {
            if !position.is_legal(mv) {
                return None;
            }
            chinese.push(notation::chinese(&position, mv));
            wxf.push(notation::wxf(&position, mv));
            position.make(mv);
        }
        Some((chinese, wxf))
    }
}

/// The columns through `moves_chinese`, which every version has.
fn leading_columns() -> Vec<Field> {
    use DataType::{UInt32, UInt64, Utf8};
    vec![
        Field::new("game_id", UInt64, false),
        Field::new("plies", UInt32, false),
        list_field("moves_iccs", Utf8),
        list_field("moves_chinese", Utf8),
    ]
}

/// The columns after the move lists, which every version has.
fn trailing_columns() -> Vec<Field> {
    use DataType::{UInt64, Utf8};
    let required = |name: &str, ty: DataType| Field::new(name, ty, false);
    vec![
        Field::new("opening", Utf8, true),
        required("start_fen", Utf8),
        required("result", Utf8),
        required("termination", Utf8),
        required("article", Utf8),
        Field::new("must_vary", Utf8, true),
        required("rule_set", Utf8),
        required("model_red", Utf8),
        required("model_black", Utf8),
        required("seed", UInt64),
        required("config_hash", Utf8),
    ]
}

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = leading_columns();
    fields.push(list_field("moves_wxf", DataType::Utf8));
    fields.extend(trailing_columns());
    Arc::new(Schema::new(fields))
});

/// Version 1: no `moves_wxf`.
static SCHEMA_V1: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = leading_columns();
    fields.extend(trailing_columns());
    Arc::new(Schema::new(fields))
});

impl Table for GameRecord {
    const NAME: &'static str = "games";
    const SCHEMA_VERSION: u32 = GAMES_SCHEMA_VERSION;

    fn arrow_schema() -> SchemaRef {
        SCHEMA.clone()
    }

    fn older_schema(version: u32) -> Option<SchemaRef> {
        (version == 1).then(|| SCHEMA_V1.clone())
    }
}

fn strings(rows: &[GameRecord], f: impl Fn(&GameRecord) -> &str) -> StringArray {
    let mut b = StringBuilder::with_capacity(rows.len(), rows.iter().map(|r| f(r).len()).sum());
    for r in rows {
        b.append_value(f(r));
    }
    b.finish()
}

impl Codec for GameRecord {
    fn check(r: &GameRecord) -> Result<(), (&'static str, String)> {
        if !r.moves_chinese.is_empty() && r.moves_chinese.len() != r.moves.len() {
            let (chinese, moves) = (r.moves_chinese.len(), r.moves.len());
            return Err((
                "moves_chinese",
                format!("{chinese} Chinese moves for {moves} moves (give one per move or none)"),
            ));
        }
        if !r.moves_wxf.is_empty() && r.moves_wxf.len() != r.moves.len() {
            let (wxf, moves) = (r.moves_wxf.len(), r.moves.len());
            return Err((
                "moves_wxf",
                format!("{wxf} WXF moves for {moves} moves (give one per move or none)"),
            ));
        }
        if u32::try_from(r.moves.len()).is_err() {
            return Err(("plies", format!("{} plies", r.moves.len())));
        }
        Ok(())
    }

    fn to_batch(rows: &[GameRecord]) -> Result<RecordBatch, CodecError> {
        let n = rows.len();
        let mut game_id = UInt64Builder::with_capacity(n);
        let mut plies = UInt32Builder::with_capacity(n);
        let mut iccs = ListBuilder::new(StringBuilder::new()).with_field(list_item(DataType::Utf8));
        let mut chinese = ListBuilder::new(StringBuilder::new()).with_field(list_item(DataType::Utf8));
        let mut wxf = ListBuilder::new(StringBuilder::new()).with_field(list_item(DataType::Utf8));
        let mut opening = StringBuilder::new();
        let mut must_vary = StringBuilder::new();
        let mut seed = UInt64Builder::with_capacity(n);
        for (i, r) in rows.iter().enumerate() {
            GameRecord::check(r).map_err(|(column, detail)| bad(i, column, detail))?;
            let ply_count = u32::try_from(r.moves.len()).unwrap_or(u32::MAX);
            game_id.append_value(r.game_id);
            plies.append_value(ply_count);
            for m in &r.moves {
                iccs.values().append_value(m.iccs());
            }
            iccs.append(true);
            for text in &r.moves_chinese {
                chinese.values().append_value(text);
            }
            chinese.append(true);
            for text in &r.moves_wxf {
                wxf.values().append_value(text);
            }
            wxf.append(true);
            opening.append_option(r.opening.as_deref());
            must_vary.append_option(r.must_vary.map(Color::name));
            seed.append_value(r.seed);
        }
        let columns = vec![
            arc(game_id.finish()),
            arc(plies.finish()),
            arc(iccs.finish()),
            arc(chinese.finish()),
            arc(wxf.finish()),
            arc(opening.finish()),
            arc(strings(rows, |r| &r.start_fen)),
            arc(strings(rows, |r| r.result.pgn())),
            arc(strings(rows, |r| r.termination.name())),
            arc(strings(rows, |r| &r.article)),
            arc(must_vary.finish()),
            arc(strings(rows, |r| r.rule_set.name())),
            arc(strings(rows, |r| &r.model_red)),
            arc(strings(rows, |r| &r.model_black)),
            arc(seed.finish()),
            arc(strings(rows, |r| &r.config_hash)),
        ];
        Ok(RecordBatch::try_new(GameRecord::arrow_schema(), columns)?)
    }

    fn from_batch(batch: &RecordBatch, first: usize, out: &mut Vec<GameRecord>) -> Result<(), CodecError> {
        let schema = batch.schema();
        for (field, c) in schema.fields().iter().zip(batch.columns()) {
            if !field.is_nullable() {
                no_nulls(c.as_ref(), field.name(), first)?;
            }
        }
        let game_id = column::<UInt64Array>(batch, "game_id", first)?;
        let iccs = column::<ListArray>(batch, "moves_iccs", first)?;
        let chinese = column::<ListArray>(batch, "moves_chinese", first)?;
        // Absent from version 1 shards: rendered from the moves instead.
        let wxf = match schema.column_with_name("moves_wxf") {
            Some(_) => Some(column::<ListArray>(batch, "moves_wxf", first)?),
            None => None,
        };
        let opening = column::<StringArray>(batch, "opening", first)?;
        let start_fen = column::<StringArray>(batch, "start_fen", first)?;
        let result = column::<StringArray>(batch, "result", first)?;
        let termination = column::<StringArray>(batch, "termination", first)?;
        let article = column::<StringArray>(batch, "article", first)?;
        let must_vary = column::<StringArray>(batch, "must_vary", first)?;
        let rule_set = column::<StringArray>(batch, "rule_set", first)?;
        let model_red = column::<StringArray>(batch, "model_red", first)?;
        let model_black = column::<StringArray>(batch, "model_black", first)?;
        let seed = column::<UInt64Array>(batch, "seed", first)?;
        let config_hash = column::<StringArray>(batch, "config_hash", first)?;
        let list_strings =
            |list: &ListArray, name: &str, row: usize, i: usize| -> Result<Vec<String>, CodecError> {
                let values = list.value(i);
                let values = values
                    .as_any()
                    .downcast_ref::<StringArray>()
                    .ok_or_else(|| bad(row, name, "list items are not strings"))?;
                no_nulls(values, name, row)?;
                Ok(values.iter().map(|v| v.unwrap_or_default().to_string()).collect())
            };
        for i in 0..batch.num_rows() {
            let row = first + i;
            let moves = list_strings(iccs, "moves_iccs", row, i)?
                .iter()
                .map(|t| t.parse::<Move>().map_err(|e| bad(row, "moves_iccs", e.to_string())))
                .collect::<Result<Vec<Move>, _>>()?;
            let moves_chinese = list_strings(chinese, "moves_chinese", row, i)?;
            let moves_wxf = match wxf {
                Some(wxf) => list_strings(wxf, "moves_wxf", row, i)?,
                None => GameRecord::render_moves(start_fen.value(i), &moves)
                    .map(|(_, wxf)| wxf)
                    .unwrap_or_default(),
            };
            let text = result.value(i);
            let result: GameResult =
                text.parse().map_err(|e: xq_core::ParseError| bad(row, "result", e.to_string()))?;
            let text = termination.value(i);
            let termination: Termination =
                text.parse().map_err(|e: xq_core::ParseError| bad(row, "termination", e.to_string()))?;
            let must_vary = match must_vary.is_null(i) {
                true => None,
                false => Some(
                    must_vary.value(i).parse::<Color>().map_err(|e| bad(row, "must_vary", e.to_string()))?,
                ),
            };
            let text = rule_set.value(i);
            let rule_set: RuleSet =
                text.parse().map_err(|e: xq_core::ParseError| bad(row, "rule_set", e.to_string()))?;
            out.push(GameRecord {
                game_id: game_id.value(i),
                moves,
                moves_chinese,
                moves_wxf,
                opening: (!opening.is_null(i)).then(|| opening.value(i).to_string()),
                start_fen: start_fen.value(i).to_string(),
                result,
                termination,
                article: article.value(i).to_string(),
                must_vary,
                rule_set,
                model_red: model_red.value(i).to_string(),
                model_black: model_black.value(i).to_string(),
                seed: seed.value(i),
                config_hash: config_hash.value(i).to_string(),
            });
        }
        Ok(())
    }
}
