//! What a data set holds: games, positions, how the games ended, the result balance and the
//! game lengths, over a directory tree of shards (`xq data stats DIR`).
//!
//! Games are read one shard at a time; samples are only counted, from the Parquet footers, so
//! the statistics of a large data set cost little memory.

use crate::shard::{iter_shards, list_shards, shard_row_count};
use crate::{DataError, GameRecord, Result, Sample};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use xq_core::GameResult;

/// Width of a bucket of the game-length histogram, in plies.
pub const LENGTH_BUCKET_PLIES: usize = 20;

/// How many games ended one way, with the rulebook articles they ended under.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Ending {
    /// Games.
    pub games: u64,
    /// Games per article (an empty string for endings without one).
    pub articles: BTreeMap<String, u64>,
}

/// The statistics of a data set.
///
/// ```
/// use xq_data::stats::DataStats;
/// let dir = tempfile::tempdir().unwrap();
/// let stats = DataStats::of_tree(dir.path()).unwrap();
/// assert_eq!((stats.games, stats.positions), (0, 0));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DataStats {
    /// Directories holding shards, relative to the root (`.` for the root itself).
    pub directories: Vec<PathBuf>,
    /// Games shards read.
    pub games_shards: u64,
    /// Samples shards counted.
    pub samples_shards: u64,
    /// Shards skipped as truncated or corrupt, with the reason.
    pub skipped: Vec<String>,
    /// Games.
    pub games: u64,
    /// Positions (rows of the samples table).
    pub positions: u64,
    /// Red wins, draws and black wins.
    pub red_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Black wins.
    pub black_wins: u64,
    /// How the games ended, by termination name (`checkmate`, `perpetual_check`, …).
    pub endings: BTreeMap<String, Ending>,
    /// Shortest game, in plies (0 without games).
    pub min_plies: u64,
    /// Median game length, in plies.
    pub median_plies: f64,
    /// Mean game length, in plies.
    pub mean_plies: f64,
    /// Longest game, in plies.
    pub max_plies: u64,
    /// Games per length bucket: entry `k` counts games of `k·20 … k·20+19` plies.
    pub length_histogram: Vec<u64>,
}

impl DataStats {
    /// The statistics of every shard under `root`: the directory itself and all directories
    /// below it (a run's `data/<run>` holds one directory per generation).
    ///
    /// # Errors
    /// An unreadable directory, or a shard that is neither readable nor merely damaged (a
    /// damaged shard is listed in [`DataStats::skipped`] and the rest is counted).
    pub fn of_tree(root: &Path) -> Result<DataStats> {
        if !root.is_dir() {
            return Err(DataError::Io {
                path: root.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "not a directory"),
            });
        }
        let mut stats = DataStats::default();
        let mut lengths = Vec::new();
        let mut pending = vec![root.to_path_buf()];
        let mut dirs = Vec::new();
        while let Some(dir) = pending.pop() {
            let entries =
                std::fs::read_dir(&dir).map_err(|source| DataError::Io { path: dir.clone(), source })?;
            for entry in entries {
                let entry = entry.map_err(|source| DataError::Io { path: dir.clone(), source })?;
                if entry.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                    pending.push(entry.path());
                }
            }
            dirs.push(dir);
        }
        dirs.sort();
        for dir in dirs {
            let samples = list_shards::<Sample>(&dir)?;
            let mut found = !samples.is_empty();
            for shard in samples {
                match shard_row_count::<Sample>(&shard.path) {
                    Ok(rows) => {
                        stats.positions += rows;
                        stats.samples_shards += 1;
                    }
                    Err(e) if e.is_corruption() => {
                        stats.skipped.push(format!("{}: {e}", shard.path.display()))
                    }
                    Err(e) => return Err(e),
                }
            }
            for (shard, rows) in iter_shards::<GameRecord>(&dir)? {
                found = true;
                match rows {
                    Ok(rows) => {
                        stats.games_shards += 1;
                        for game in &rows {
                            stats.add_game(game);
                            lengths.push(game.plies() as u64);
                        }
                    }
                    Err(e) if e.is_corruption() => {
                        stats.skipped.push(format!("{}: {e}", shard.path.display()))
                    }
                    Err(e) => return Err(e),
                }
            }
            if found {
                let relative = dir.strip_prefix(root).unwrap_or(&dir);
                stats.directories.push(if relative.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    relative.to_path_buf()
                });
            }
        }
        stats.set_lengths(&mut lengths);
        Ok(stats)
    }

    fn add_game(&mut self, game: &GameRecord) {
        self.games += 1;
        match game.result {
            GameResult::RedWins => self.red_wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::BlackWins => self.black_wins += 1,
        }
        let ending = self.endings.entry(game.termination.name().to_string()).or_default();
        ending.games += 1;
        *ending.articles.entry(game.article.clone()).or_default() += 1;
    }

    fn set_lengths(&mut self, lengths: &mut [u64]) {
        if lengths.is_empty() {
            return;
        }
        lengths.sort_unstable();
        let n = lengths.len();
        self.min_plies = lengths[0];
        self.max_plies = lengths[n - 1];
        self.median_plies = if n % 2 == 1 {
            lengths[n / 2] as f64
        } else {
            (lengths[n / 2 - 1] + lengths[n / 2]) as f64 / 2.0
        };
        self.mean_plies = lengths.iter().sum::<u64>() as f64 / n as f64;
        let buckets = self.max_plies as usize / LENGTH_BUCKET_PLIES + 1;
        self.length_histogram = vec![0; buckets];
        for &plies in lengths.iter() {
            self.length_histogram[plies as usize / LENGTH_BUCKET_PLIES] += 1;
        }
    }

    /// Red's score per game (a win 1, a draw ½), `None` without games.
    pub fn red_score(&self) -> Option<f64> {
        (self.games > 0).then(|| (self.red_wins as f64 + 0.5 * self.draws as f64) / self.games as f64)
    }

    /// A plain-text report: totals, result balance, endings and the length histogram.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let pct = |n: u64| if self.games == 0 { 0.0 } else { 100.0 * n as f64 / self.games as f64 };
        out.push_str(&format!(
            "{} games, {} positions in {} directories ({} games shards, {} samples shards)\n",
            self.games,
            self.positions,
            self.directories.len(),
            self.games_shards,
            self.samples_shards
        ));
        for skipped in &self.skipped {
            out.push_str(&format!("skipped: {skipped}\n"));
        }
        if self.games == 0 {
            return out;
        }
        out.push_str(&format!(
            "results: red wins {} ({:.1}%), draws {} ({:.1}%), black wins {} ({:.1}%); red scores {:.3}\n",
            self.red_wins,
            pct(self.red_wins),
            self.draws,
            pct(self.draws),
            self.black_wins,
            pct(self.black_wins),
            self.red_score().unwrap_or(0.0)
        ));
        out.push_str("endings:\n");
        let mut endings: Vec<(&String, &Ending)> = self.endings.iter().collect();
        endings.sort_by(|a, b| b.1.games.cmp(&a.1.games).then(a.0.cmp(b.0)));
        for (name, ending) in endings {
            let articles: Vec<String> = ending
                .articles
                .iter()
                .filter(|(a, _)| !a.is_empty())
                .map(|(a, n)| format!("{a}: {n}"))
                .collect();
            let articles = if articles.is_empty() {
                String::new()
            } else {
                format!("  (articles {})", articles.join(", "))
            };
            out.push_str(&format!(
                "  {name:<24} {:>8} {:>6.1}%{articles}\n",
                ending.games,
                pct(ending.games)
            ));
        }
        out.push_str(&format!(
            "length (plies): min {}, median {}, mean {:.1}, max {}\n",
            self.min_plies, self.median_plies, self.mean_plies, self.max_plies
        ));
        let widest = self.length_histogram.iter().copied().max().unwrap_or(1).max(1);
        for (k, &n) in self.length_histogram.iter().enumerate() {
            let bar = "#".repeat(((n * 40).div_ceil(widest)) as usize);
            let from = k * LENGTH_BUCKET_PLIES;
            out.push_str(&format!("  {from:>4}-{:<4} {n:>8} {bar}\n", from + LENGTH_BUCKET_PLIES - 1));
        }
        out
    }
}
