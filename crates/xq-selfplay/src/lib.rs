//! # xq-selfplay: self-play data generation
//!
//! Many games at once, each with its own MCTS tree ([`xq_mcts::Search`]), their leaves
//! evaluated together in one batch by one [`xq_mcts::Evaluator`]; every searched position
//! becomes a [`xq_data::Sample`] and every game a [`xq_data::GameRecord`], written as Parquet
//! shards. Results come only from xq-core ([`xq_core::Game::outcome`], including the 棋例
//! verdict), resignation and the maximum game length.
//!
//! Reproducible (every random choice derives from the config's seed and the game's index)
//! and resumable (see [`run_selfplay`]).
//!
//! [`run_teacher_selfplay`] writes the same tables from games of an alpha-beta teacher, the
//! stronger and still cheap bootstrap data for a run's first networks.

mod config;
mod driver;
mod import;
mod summary;
mod teacher;

pub use config::{BuiltinEvaluator, ConfigError, ResignConfig, SelfplayConfig, SelfplaySection};
pub use driver::{SelfplayError, SelfplayRun, run_selfplay};
pub use import::{IMPORT_CONFIG_HASH, ImportOptions, ImportSummary, ImportedGame, import_games};
pub use summary::Summary;
pub use teacher::{TeacherConfig, run_teacher_selfplay};
