//! # xq-data: versioned Parquet tables for self-play samples and game records
//!
//! Two tables, each a directory of numbered Parquet shards:
//!
//! - **samples** ([`Sample`]): one row per position searched in self-play — the board (FEN and
//!   a 90-byte encoding), the policy target as parallel lists of moves (`u16`, [`move_from_raw`])
//!   and probabilities, root WDL and visits, the move played, the game's result from the mover's
//!   view, how the game ended, and provenance (model id, config hash, seed).
//! - **games** ([`GameRecord`]): one row per game — moves in ICCS and Chinese, opening, start
//!   FEN, result, termination and article, rule set, models, seed.
//!
//! `docs/DATA.md` documents every column, the versioning and the file rules, and shows how to
//! read the tables with pandas and polars.
//!
//! Shards are written atomically (hidden `.samples-000042.parquet.tmp`, fsync, rename) with a
//! hidden CRC-32 sidecar (`.samples-000042.parquet.crc32`; hidden so pyarrow/pandas/polars skip
//! them when reading a directory), named `samples-000042.parquet` so a restarted writer continues the
//! numbering, and are byte-identical for identical rows. Each file records its table and schema
//! version ([`SAMPLES_SCHEMA_VERSION`], [`GAMES_SCHEMA_VERSION`]) in its key-value metadata;
//! reading another version is a [`DataError::SchemaVersion`] naming both. Directory readers
//! ([`read_samples_dir`], [`iter_shards`], [`ReplayWindow`]) skip truncated or corrupt shards and
//! return them as warnings ([`SkippedShard`]) rather than logging, so the caller decides how to
//! report them.
//!
//! ```
//! # fn main() -> Result<(), xq_data::DataError> {
//! use xq_core::{Color, Position, Termination};
//! use xq_data::{Sample, SampleWriter, WriterOptions, read_samples_dir};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let pos = Position::startpos();
//! let moves = pos.legal_moves();
//! let sample = Sample {
//!     game_id: 7,
//!     ply: 0,
//!     fen: pos.fen(),
//!     board: *pos.board_codes(),
//!     side_to_move: pos.side_to_move(),
//!     policy: moves.iter().map(|&m| (m, 1.0 / moves.len() as f32)).collect(),
//!     full_search: true,
//!     root_wdl: [0.4, 0.3, 0.3],
//!     root_visits: 800,
//!     move_played: moves[0],
//!     result: 0,
//!     wdl_target: [0.0, 1.0, 0.0],
//!     termination: Termination::MoveLimit,
//!     article: String::new(),
//!     repetitions: 1,
//!     plies_since_capture: 0,
//!     limit_plies: 0,
//!     move_limit_plies: 120,
//!     model_id: "m0".into(),
//!     config_hash: "c0".into(),
//!     seed: 42,
//! };
//! let mut writer = SampleWriter::create(dir.path(), WriterOptions::default())?;
//! writer.push(sample.clone())?;
//! let shards = writer.finish()?;
//! assert!(shards[0].file.path.ends_with("samples-000000.parquet"));
//!
//! let read = read_samples_dir(dir.path())?;
//! assert!(read.skipped.is_empty());
//! assert_eq!(read.rows, vec![sample]);
//! assert_eq!(read.rows[0].position().unwrap().fen(), pos.fen());
//! # Ok(()) }
//! ```

mod codec;
mod error;
mod game;
mod sample;
mod shard;
pub mod stats;
mod table;
mod window;

pub use codec::{color_code, color_from_code, move_from_raw, position_from_board, raw_move_to_iccs};
pub use error::{DataError, Result};
pub use game::{GAMES_SCHEMA_VERSION, GameRecord};
pub use sample::{SAMPLES_SCHEMA_VERSION, Sample};
pub use shard::{
    CHECKSUM_SUFFIX, CREATED_BY, DirContents, GameWriter, KEY_SCHEMA_VERSION, KEY_TABLE, SampleWriter,
    ShardFile, ShardIter, ShardWriter, SkippedShard, TMP_SUFFIX, WriterOptions, WrittenShard, checksum_path,
    iter_shards, list_shards, parse_shard_index, read_dir, read_games_dir, read_samples_dir, read_shard,
    shard_file_name, shard_row_count, shard_tmp_path, write_shard,
};
pub use table::Table;
pub use window::{ReplayWindow, WindowShard};
