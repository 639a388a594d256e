//! The self-play configuration: a TOML file with `[selfplay]`, `[rules]` and `[search]`
//! sections. Unknown keys are errors that name the key.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use thiserror::Error;
use xq_core::GameRules;
use xq_mcts::SearchParams;

/// Why a configuration cannot be used.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("cannot read config {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The TOML is malformed, has an unknown key or a value of the wrong type.
    #[error("config {path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message (names the key and line).
        message: String,
    },
    /// A value is out of range.
    #[error("config {path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Which built-in evaluator plays when no model is given.
pub use xq_mcts::BuiltinEvaluator;

/// Resignation: a side resigns when its root value stays below `-threshold` for
/// `consecutive_moves` of its own moves, after `min_ply`. A fraction of games never resign, so
/// the rate of false resignations (the side that would have resigned did not lose) is
/// measured and reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ResignConfig {
    /// Whether resignation is on at all (default false).
    pub enabled: bool,
    /// Resign when the value for the side to move is below `-threshold` (default 0.9).
    pub threshold: f32,
    /// Own moves in a row below the threshold (default 3).
    pub consecutive_moves: u32,
    /// No resignation before this game ply (default 20).
    pub min_ply: u32,
    /// Share of games that never resign (default 0.2).
    pub no_resign_fraction: f32,
}

impl Default for ResignConfig {
    fn default() -> Self {
        ResignConfig {
            enabled: false,
            threshold: 0.9,
            consecutive_moves: 3,
            min_ply: 20,
            no_resign_fraction: 0.2,
        }
    }
}

/// The `[selfplay]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfplaySection {
    /// Games to play in total (default 16). A rerun with the same output continues to this.
    pub games: u64,
    /// Games played at once, their leaves evaluated in one batch (default 16).
    pub concurrency: usize,
    /// Leaves each game contributes per batch (virtual loss above 1; default 1).
    pub leaves_per_game: usize,
    /// The seed every random choice derives from (default 1).
    pub seed: u64,
    /// Evaluator used when no model is given (default `material`).
    pub evaluator: BuiltinEvaluator,
    /// Games still running after this many plies, counted from the start position (an
    /// opening's moves included), are stopped and drawn (default 400).
    pub max_plies: u32,
    /// Finished games per Parquet shard pair (default 16).
    pub games_per_shard: usize,
    /// An opening book (JSON, see `data/openings/openings.json`); empty = start position.
    pub opening_book: String,
    /// Resignation settings.
    pub resign: ResignConfig,
}

impl Default for SelfplaySection {
    fn default() -> Self {
        SelfplaySection {
            games: 16,
            concurrency: 16,
            leaves_per_game: 1,
            seed: 1,
            evaluator: BuiltinEvaluator::Material,
            max_plies: xq_play::DEFAULT_MAX_PLIES,
            games_per_shard: 16,
            opening_book: String::new(),
            resign: ResignConfig::default(),
        }
    }
}

/// A whole self-play configuration file.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfplayConfig {
    /// `[selfplay]`.
    pub selfplay: SelfplaySection,
    /// `[rules]`: xq-core's rules, validated as they are read.
    pub rules: GameRules,
    /// `[search]`: xq-mcts's parameters.
    pub search: SearchParams,
}

impl SelfplayConfig {
    /// Reads and validates a TOML file.
    pub fn load(path: &Path) -> Result<SelfplayConfig, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
        Self::from_toml(&text, path)
    }

    /// Parses and validates TOML text; `path` only names the source in errors.
    pub fn from_toml(text: &str, path: &Path) -> Result<SelfplayConfig, ConfigError> {
        let config: SelfplayConfig = toml::from_str(text)
            .map_err(|e| ConfigError::Parse { path: path.to_path_buf(), message: e.to_string() })?;
        config.validate().map_err(|message| ConfigError::Invalid { path: path.to_path_buf(), message })?;
        Ok(config)
    }

    /// Checks every value's range.
    pub fn validate(&self) -> Result<(), String> {
        let s = &self.selfplay;
        if s.concurrency == 0 {
            return Err("selfplay.concurrency must be at least 1".into());
        }
        if s.leaves_per_game == 0 || s.leaves_per_game > xq_mcts::MAX_LEAVES_PER_STEP {
            return Err(format!("selfplay.leaves_per_game must be 1..={}", xq_mcts::MAX_LEAVES_PER_STEP));
        }
        if s.games_per_shard == 0 {
            return Err("selfplay.games_per_shard must be at least 1".into());
        }
        if s.max_plies == 0 {
            return Err("selfplay.max_plies must be at least 1".into());
        }
        let r = &s.resign;
        if !(r.threshold.is_finite() && (0.0..=1.0).contains(&r.threshold)) {
            return Err(format!("selfplay.resign.threshold = {}: expected 0..=1", r.threshold));
        }
        if !(0.0..=1.0).contains(&r.no_resign_fraction) {
            return Err(format!(
                "selfplay.resign.no_resign_fraction = {}: expected 0..=1",
                r.no_resign_fraction
            ));
        }
        self.rules.validate().map_err(|e| e.to_string())?;
        self.search.validate().map_err(|e| format!("search: {e}"))?;
        Ok(())
    }

    /// A stable hash of the effective configuration (hex), recorded with every sample so a
    /// data set can be split by the settings that made it.
    pub fn hash(&self) -> String {
        let text = serde_json::to_string(self).expect("configs serialize");
        xq_core::seed::fnv1a64_hex(text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_named() {
        let err = SelfplayConfig::from_toml("[selfplay]\ngamez = 3\n", Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("gamez"), "{err}");
        let err = SelfplayConfig::from_toml("[search]\nsimulation = 3\n", Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("simulation"), "{err}");
        let err =
            SelfplayConfig::from_toml("[rules]\nrule_set = \"axf\"\n", Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("axf"), "{err}");
    }

    #[test]
    fn hash_depends_on_values() {
        let a = SelfplayConfig::default();
        let mut b = a.clone();
        b.selfplay.seed = 2;
        assert_ne!(a.hash(), b.hash());
        assert_eq!(a.hash(), SelfplayConfig::default().hash());
    }
}
