//! The event's journal: one JSON line per finished game, flushed as it is written, from which a
//! killed event resumes; and the configuration the journal belongs to.

use crate::events::{Format, UntilDecided};
use crate::record::GameRecord;
use crate::runner::config::RunConfig;
use crate::runner::{RunError, io_error};
use serde::{Deserialize, Serialize};
use std::path::Path;
use xq_core::{Color, Move};

/// The journal's file name in the output directory.
pub const JOURNAL_FILE: &str = "journal.jsonl";
/// The configuration the journal was written under, checked when an event resumes.
pub const CONFIG_FILE: &str = "config.json";

/// What one player spent in one game: how the report compares players' speed, and what a
/// time control is checked against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerUsage {
    /// Moves the player chose (the opening's are nobody's).
    pub moves: u32,
    /// Wall time the player took for them, in seconds.
    pub seconds: f64,
    /// Nodes or tree-search visits it reported for them (0 when it reports none).
    pub nodes: u64,
}

impl PlayerUsage {
    /// Adds another game's usage.
    pub fn add(&mut self, other: &PlayerUsage) {
        self.moves += other.moves;
        self.seconds += other.seconds;
        self.nodes += other.nodes;
    }

    /// Nodes (or visits) per second, when any time was spent.
    pub fn nodes_per_second(&self) -> Option<f64> {
        (self.seconds > 0.0 && self.nodes > 0).then(|| self.nodes as f64 / self.seconds)
    }

    /// Each side's usage in a played game, red first.
    pub fn of_game(played: &xq_play::GameRecord) -> [PlayerUsage; 2] {
        let mut usage = [PlayerUsage::default(); 2];
        let first = xq_core::parse_setup(&played.start_fen).map(|s| s.side_to_move).unwrap_or(Color::Red);
        for (ply, info) in played.info.iter().enumerate() {
            let Some(info) = info else { continue };
            let mover = if ply % 2 == 0 { first } else { first.opponent() };
            let u = &mut usage[mover.index()];
            u.moves += 1;
            u.seconds += info.time.as_secs_f64();
            u.nodes += info.nodes.or(info.visits.map(u64::from)).unwrap_or(0);
        }
        usage
    }
}

/// One journal line: the event's record of a game plus what the PGN and the report need.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalEntry {
    /// The game's record as the event takes it.
    pub record: GameRecord,
    /// Red's name.
    pub red: String,
    /// Black's name.
    pub black: String,
    /// The opening's id, if the game started from the book.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_name: Option<String>,
    /// The start FEN (before the opening's moves).
    pub start_fen: String,
    /// Every move (ICCS in the file), the opening's included.
    pub moves: Vec<Move>,
    /// How many of the moves came from the opening.
    pub opening_plies: usize,
    /// How the runner ended the game when it did (forfeits, adjudications).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The game's seed.
    pub seed: u64,
    /// What red and black spent (red first).
    pub usage: [PlayerUsage; 2],
}

/// On a fresh event writes the configuration next to the journal; on a resumed one refuses a
/// configuration that differs in anything but `concurrency` (which does not change results)
/// and a sequential test's most pairs (an SPRT's `max_pairs`, a gauntlet's
/// `until_decided.max_pairs`), which may grow: pair `n` is the same game whatever the maximum,
/// so the games played are the first games of the longer event. A grown maximum is written
/// back, so the record always names the event as it stands.
pub(crate) fn check_same_config(config: &RunConfig, path: &Path, resuming: bool) -> Result<(), RunError> {
    let record = |c: &RunConfig| {
        serde_json::to_string_pretty(&RunConfig { concurrency: 1, ..c.clone() })
            .map_err(|e| RunError::Config(format!("cannot serialize the configuration: {e}")))
    };
    let canonical =
        |c: &RunConfig| record(&RunConfig { format: with_max_pairs(c.format.clone(), 0), ..c.clone() });
    let ours = record(config)?;
    if resuming && let Ok(text) = std::fs::read_to_string(path) {
        let theirs: RunConfig = serde_json::from_str(&text)
            .map_err(|e| RunError::JournalMismatch(format!("{}: {e}", path.display())))?;
        if canonical(&theirs)? != canonical(config)? {
            return Err(RunError::JournalMismatch(format!(
                "the configuration differs from the one in {} (only concurrency may change on resume, \
                 and a sequential test's max_pairs may grow)",
                path.display()
            )));
        }
        if let (Some(old), Some(new)) = (max_pairs(&theirs.format), max_pairs(&config.format)) {
            if new < old {
                return Err(RunError::JournalMismatch(format!(
                    "max_pairs {new} is below the {old} of the event in {} (it may only grow on resume)",
                    path.display()
                )));
            }
            if new > old {
                return xq_files::write_atomic(path, (ours + "\n").as_bytes()).map_err(io_error(path));
            }
        }
        return Ok(());
    }
    xq_files::write_atomic(path, (ours + "\n").as_bytes()).map_err(io_error(path))
}

/// The most pairs of a format that plays pairs until a sequential test decides: the number a
/// resumed event may raise.
fn max_pairs(format: &Format) -> Option<u64> {
    match format {
        Format::Sprt { max_pairs, .. } => Some(*max_pairs),
        Format::Gauntlet { until_decided: Some(until), .. } => Some(u64::from(until.max_pairs)),
        _ => None,
    }
}

/// `format` with its sequential test's most pairs set to `most` (unchanged without one).
fn with_max_pairs(format: Format, most: u64) -> Format {
    match format {
        Format::Sprt { sprt, .. } => Format::Sprt { sprt, max_pairs: most },
        Format::Gauntlet { pairs, until_decided: Some(until) } => Format::Gauntlet {
            pairs,
            until_decided: Some(UntilDecided { max_pairs: u32::try_from(most).unwrap_or(u32::MAX), ..until }),
        },
        other => other,
    }
}

/// Reads a journal, dropping (and cutting from the file) a last line without its newline.
pub(crate) fn read_journal(path: &Path) -> Result<Vec<JournalEntry>, RunError> {
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
