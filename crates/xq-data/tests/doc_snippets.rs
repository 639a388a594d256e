//! The Python snippets of README.md ("Read the data …") and docs/DATA.md ("Reading from
//! Python") run as written, against a self-play directory holding both tables with their
//! sidecars, and read the right table: every sample row with the samples columns, every game.
//! Before, the README read the bare directory with pandas and got the games columns with the
//! samples rows as nulls.
//!
//! Needs a Python with polars, pandas and duckdb: `$XQ_PYTHON`, else
//! `<workspace>/.venv/bin/python` (created by `bash scripts/setup-python.sh`). Without one the
//! test skips, unless `XQ_REQUIRE_PYTHON` is set (as `scripts/test.sh` does).

mod common;

use std::process::Command;
use xq_data::{GameWriter, SampleWriter, WriterOptions};

/// The first ```python block after the line containing `marker` in `file`.
fn snippet(file: &str, marker: &str) -> String {
    let text = std::fs::read_to_string(xq_testkit::workspace_file(file)).unwrap();
    let after = &text[text.find(marker).unwrap_or_else(|| panic!("{file}: no {marker:?}"))..];
    let start = after.find("```python\n").expect("a python block") + "```python\n".len();
    let end = after[start..].find("```").expect("a closed block");
    after[start..start + end].to_string()
}

/// The quoted directory the snippet assigns to `shards`.
fn shards_dir(code: &str) -> String {
    let line = code.lines().find(|l| l.trim_start().starts_with("shards = ")).expect("a shards = line");
    line.split('"').nth(1).expect("a quoted path").to_string()
}

#[test]
fn the_documented_python_snippets_read_the_right_tables() {
    let Some(python) = xq_testkit::test_python() else { return };
    let (games, samples) = common::random_games(3, 11, 30);
    for (file, marker) in [("README.md", "Read the data with"), ("docs/DATA.md", "## Reading from Python")] {
        let code = snippet(file, marker);
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join(shards_dir(&code));
        // Both tables in one directory, as self-play writes them.
        let mut writer = SampleWriter::create(&dir, WriterOptions::default()).unwrap();
        writer.extend(samples.iter().cloned()).unwrap();
        writer.finish().unwrap();
        let mut writer = GameWriter::create(&dir, WriterOptions::default()).unwrap();
        writer.extend(games.iter().cloned()).unwrap();
        writer.finish().unwrap();
        let checks = format!(
            "\nassert len(samples) == {}, len(samples)\n\
             assert 'fen' in samples.columns and 'moves_iccs' not in samples.columns, samples.columns\n\
             assert len(games) == {}, len(games)\n\
             assert 'board' not in games.columns\n",
            samples.len(),
            games.len()
        );
        let output = Command::new(&python)
            .current_dir(root.path())
            .arg("-c")
            .arg(format!("{code}{checks}"))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{file}'s snippet:\n{code}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
