//! The self-play configuration: a TOML file with `[selfplay]`, `[rules]` and `[search]`
//! sections. Unknown keys are errors that name the key.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use thiserror::Error;
use xq_core::{GameRules, RuleSet};
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

/// The rules games are played under, as written in a config's `[rules]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RulesConfig {
    /// `"cxa"` (default) or `"cxa2020"`.
    pub rule_set: String,
    /// Natural move limit in plies without a capture (default 120).
    pub move_limit_plies: u32,
    /// Article 23.3: count at most 10 checks of each side toward the limit (default false).
    pub limit_counts_ten_checks: bool,
    /// A repetition is adjudicated when a position occurs this many times (default 3).
    pub repetition_count: u8,
}

impl Default for RulesConfig {
    fn default() -> Self {
        let d = GameRules::default();
        RulesConfig {
            rule_set: d.rule_set.name().to_string(),
            move_limit_plies: d.move_limit_plies,
            limit_counts_ten_checks: d.limit_counts_ten_checks,
            repetition_count: d.repetition_count,
        }
    }
}

impl RulesConfig {
    /// The xq-core rules, or a message naming the bad value.
    pub fn game_rules(&self) -> Result<GameRules, String> {
        let rule_set = RuleSet::parse(&self.rule_set).ok_or_else(|| {
            format!("rules.rule_set = {:?}: expected \"cxa\" or \"cxa2020\"", self.rule_set)
        })?;
        if self.repetition_count < 2 {
            return Err(format!("rules.repetition_count = {}: expected at least 2", self.repetition_count));
        }
        if self.move_limit_plies == 0 {
            return Err("rules.move_limit_plies must be at least 1".to_string());
        }
        Ok(GameRules {
            rule_set,
            move_limit_plies: self.move_limit_plies,
            limit_counts_ten_checks: self.limit_counts_ten_checks,
            repetition_count: self.repetition_count,
        })
    }
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
    pub concurrent_games: usize,
    /// Leaves each game contributes per batch (virtual loss above 1; default 1).
    pub leaves_per_game: usize,
    /// The seed every random choice derives from (default 1).
    pub seed: u64,
    /// Evaluator used when no model is given (default `material`).
    pub evaluator: BuiltinEvaluator,
    /// Games longer than this many plies are stopped and drawn (default 400).
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
            concurrent_games: 16,
            leaves_per_game: 1,
            seed: 1,
            evaluator: BuiltinEvaluator::Material,
            max_plies: 400,
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
    /// `[rules]`.
    pub rules: RulesConfig,
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
        if s.concurrent_games == 0 {
            return Err("selfplay.concurrent_games must be at least 1".into());
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
        self.rules.game_rules()?;
        self.search.validate().map_err(|e| format!("search: {e}"))?;
        Ok(())
    }

    /// A stable hash of the effective configuration (hex), recorded with every sample so a
    /// data set can be split by the settings that made it.
    pub fn hash(&self) -> String {
        let text = serde_json::to_string(self).expect("configs serialize");
        format!("{:016x}", fnv1a64(text.as_bytes()))
    }
}

/// FNV-1a: a small, stable, dependency-free hash for identifiers (not for security).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325_u64;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
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
    fn shipped_configs_parse() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
        let mut found = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("selfplay-") && name.ends_with(".toml") {
                SelfplayConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
                found += 1;
            }
        }
        assert!(found > 0, "no selfplay-*.toml in {}", dir.display());
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
