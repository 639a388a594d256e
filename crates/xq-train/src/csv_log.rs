//! The CSV logs of a training run (`metrics.csv`, `validation.csv`): a header line, then one
//! row per line in step order. A resumed run redoes the steps after its checkpoint, so it first
//! cuts its logs back to that step ([`truncate_after`]) and then appends ([`append_rows`]).

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::error::{TrainError, io_err};

/// A row of one of a run's CSV logs.
pub trait CsvRow: Sized {
    /// The log's header line (no newline).
    const HEADER: &'static str;

    /// The training step the row belongs to.
    fn step(&self) -> u64;

    /// The row as a CSV line (no newline).
    fn csv(&self) -> String;

    /// Parses a line written by [`CsvRow::csv`]; `None` for a malformed one.
    fn parse(line: &str) -> Option<Self>;
}

/// Reads the rows of a log (a missing file has none; malformed lines, such as one cut short
/// by a kill, are dropped).
///
/// # Errors
/// [`TrainError::Io`] when the file exists but cannot be read.
pub fn read_rows<R: CsvRow>(path: &Path) -> Result<Vec<R>, TrainError> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(text.lines().skip(1).filter_map(R::parse).collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// Rewrites the log (through a temporary file and a rename) with only its rows up to `step`,
/// creating it with its header when missing, and returns those rows.
///
/// # Errors
/// [`TrainError::Io`] when the file cannot be read or written.
pub fn truncate_after<R: CsvRow>(path: &Path, step: u64) -> Result<Vec<R>, TrainError> {
    let rows: Vec<R> = read_rows::<R>(path)?.into_iter().filter(|r| r.step() <= step).collect();
    let mut text = format!("{}\n", R::HEADER);
    for row in &rows {
        text.push_str(&row.csv());
        text.push('\n');
    }
    xq_files::write_atomic(path, text.as_bytes()).map_err(io_err(path))?;
    Ok(rows)
}

/// Appends rows to a log that exists with its header (see [`truncate_after`]).
///
/// # Errors
/// [`TrainError::Io`] when the file cannot be opened or written.
pub fn append_rows<R: CsvRow>(path: &Path, rows: &[R]) -> Result<(), TrainError> {
    let mut file = fs::OpenOptions::new().append(true).open(path).map_err(io_err(path))?;
    for row in rows {
        writeln!(file, "{}", row.csv()).map_err(io_err(path))?;
    }
    file.flush().map_err(io_err(path))
}
