//! The sections every stage shares, read from any xq config file: `xq engine --config` and
//! `xq train --rules-from` take them from the config a run or a data set was made with.

use anyhow::{Context, Result};
use std::path::Path;
use xq_core::GameRules;
use xq_mcts::SearchParams;

/// The `[search]` and `[rules]` sections of an xq config file, each checked as strictly as
/// its own stage checks it; the file's other sections are not read.
pub fn search_and_rules(path: &Path) -> Result<(Option<SearchParams>, Option<GameRules>)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut table: toml::Table =
        toml::from_str(&text).with_context(|| format!("config {}", path.display()))?;
    let mut section = |name: &str| table.remove(name);
    let search = section("search")
        .map(|v| v.try_into::<SearchParams>())
        .transpose()
        .with_context(|| format!("config {}: [search]", path.display()))?;
    let rules = section("rules")
        .map(|v| v.try_into::<GameRules>())
        .transpose()
        .with_context(|| format!("config {}: [rules]", path.display()))?;
    if let Some(search) = &search {
        search.validate().with_context(|| format!("config {}: [search]", path.display()))?;
    }
    Ok((search, rules))
}
