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
//! [limits]              # every player's budget per move unless its entry sets its own
//! movetime_ms = 100
//! [[players]]
//! kind = "greedy"
//! name = "greedy"
//! [[players]]
//! kind = "random"
//! name = "random"
//! ```
//!
//! The parts: [`config`](RunConfig) (the schema), [`players`](PlayerSpec) (building players),
//! the journal ([`JournalEntry`]), the run ([`run_event`]) and the outputs ([`pgn_of`]).
//!
//! **Reproducibility.** Game `g` is seeded with `derive_seed(seed, g)` and results are taken
//! into the event in game order, whatever thread finished first. An SPRT is therefore decided
//! at the same pair in every run; games that were in flight past the decision are dropped
//! ([`crate::events::Event::withdraw_unfinished`]), not counted. Games on a time budget depend
//! on the machine's speed and are not reproducible move for move.
//!
//! **Resuming.** Every finished game is one line of `journal.jsonl` in the output directory,
//! flushed as it is written. A rerun with the same configuration and directory reads the
//! journal, rebuilds the event ([`crate::events::Event::replay`]) and plays only the games
//! still missing, so the totals equal those of an uninterrupted run. A half-written last line
//! (the process was killed while writing it) is dropped and its game played again.

mod config;
mod journal;
mod output;
mod players;
mod run;

pub use config::{Adjudication, Limits, MoveComments, OutputSettings, RunConfig};
pub use journal::{CONFIG_FILE, JOURNAL_FILE, JournalEntry, PlayerUsage};
pub use output::{LADDER_PNG_FILE, LADDER_SVG_FILE, PGN_FILE, REPORT_JSON_FILE, REPORT_MD_FILE, pgn_of};
pub use players::{EngineSpec, PlayerSpec, TIMED_NETWORK_LEAVES_PER_STEP};
pub use run::{Progress, RunOptions, RunSummary, run_event};

use crate::events::EventError;
use crate::plot::PlotError;
use std::path::Path;
use thiserror::Error;

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
    Book(#[from] xq_play::BookError),
    /// The chart could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// A game thread stopped without a result (a panic outside any player).
    #[error("a game thread stopped: {0}")]
    Worker(String),
}

pub(crate) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io { path: path.display().to_string(), source }
}
