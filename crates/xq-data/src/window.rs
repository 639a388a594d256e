//! The replay window: the newest N samples of a run, chosen from shard footers alone.

use crate::error::Result;
use crate::sample::Sample;
use crate::shard::{DirContents, ShardFile, SkippedShard, list_shards, read_shard_from, shard_row_count};
use std::path::{Path, PathBuf};

/// One shard's share of a window: its newest `rows - skip` rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowShard {
    /// The shard.
    pub file: ShardFile,
    /// Rows in the shard (from its footer).
    pub rows: u64,
    /// Its oldest rows left out of the window (non-zero only for the oldest shard taken).
    pub skip: u64,
}

impl WindowShard {
    /// Rows of this shard inside the window.
    pub fn taken(&self) -> u64 {
        self.rows - self.skip
    }
}

/// The newest samples of a run, as a list of shard slices, newest shard first.
///
/// Directories are given oldest first (e.g. one `selfplay/<model_id>/` per generation, in the
/// order the models were accepted); within a directory shards are ordered by index. Rows within
/// a shard are in the order they were written, so a shard's newest rows are its last ones.
///
/// ```
/// # fn main() -> Result<(), xq_data::DataError> {
/// # let dir = tempfile::tempdir().unwrap();
/// let window = xq_data::ReplayWindow::newest(&[dir.path()], 500_000)?;
/// assert_eq!(window.rows(), 0); // an empty run
/// let samples = window.read()?; // oldest first; corrupt shards in samples.skipped
/// assert!(samples.rows.is_empty());
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct ReplayWindow {
    /// The chosen shards, newest first.
    pub shards: Vec<WindowShard>,
    /// Shards whose footer could not be read (truncated or corrupt): warnings.
    pub skipped: Vec<SkippedShard>,
}

impl ReplayWindow {
    /// Picks the newest `max_rows` samples across `dirs` (oldest directory first), reading only
    /// shard footers. Corrupt shards are skipped and reported in [`ReplayWindow::skipped`].
    pub fn newest<P: AsRef<Path>>(dirs: &[P], max_rows: u64) -> Result<ReplayWindow> {
        let mut shards = Vec::new();
        let mut skipped = Vec::new();
        let mut remaining = max_rows;
        'dirs: for dir in dirs.iter().rev() {
            for file in list_shards::<Sample>(dir.as_ref())?.into_iter().rev() {
                if remaining == 0 {
                    break 'dirs;
                }
                let rows = match shard_row_count::<Sample>(&file.path) {
                    Ok(rows) => rows,
                    Err(error) if error.is_corruption() => {
                        skipped.push(SkippedShard { path: file.path, error });
                        continue;
                    }
                    Err(error) => return Err(error),
                };
                if rows == 0 {
                    continue;
                }
                let taken = rows.min(remaining);
                remaining -= taken;
                shards.push(WindowShard { file, rows, skip: rows - taken });
            }
        }
        Ok(ReplayWindow { shards, skipped })
    }

    /// Samples in the window.
    pub fn rows(&self) -> u64 {
        self.shards.iter().map(WindowShard::taken).sum()
    }

    /// The shard paths, newest first.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.shards.iter().map(|s| s.file.path.clone()).collect()
    }

    /// Reads the window's samples, oldest first. A shard that turns out corrupt when read
    /// (checksum, truncated data) is skipped and reported in [`DirContents::skipped`].
    pub fn read(&self) -> Result<DirContents<Sample>> {
        let mut contents = DirContents {
            rows: Vec::with_capacity(self.rows() as usize),
            shards: Vec::new(),
            skipped: Vec::new(),
        };
        for shard in self.shards.iter().rev() {
            let skip = usize::try_from(shard.skip).unwrap_or(usize::MAX);
            match read_shard_from::<Sample>(&shard.file.path, skip) {
                Ok(mut rows) => {
                    contents.rows.append(&mut rows);
                    contents.shards.push(shard.file.clone());
                }
                Err(error) if error.is_corruption() => {
                    contents.skipped.push(SkippedShard { path: shard.file.path.clone(), error })
                }
                Err(error) => return Err(error),
            }
        }
        Ok(contents)
    }
}
