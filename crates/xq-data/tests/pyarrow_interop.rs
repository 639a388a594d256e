//! pyarrow reads our shards: column names, types, row counts, metadata and decoded values.
//!
//! Needs a Python with pyarrow: `$XQ_PYTHON`, else `<workspace>/.venv/bin/python` (created by
//! `bash scripts/setup-python.sh`). Without it the test fails and says so.

mod common;

use std::process::Command;

use xq_data::{GameWriter, SampleWriter, WriterOptions};

#[test]
fn pyarrow_reads_both_tables() {
    let Some(python) = xq_testkit::test_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (games, samples) = common::random_games(3, 77, 40);
    // Separate directories: pyarrow reads the samples directory as a whole too.
    let mut writer = SampleWriter::create(dir.path().join("samples"), WriterOptions::default()).unwrap();
    writer.extend(samples.iter().cloned()).unwrap();
    let sample_shard = writer.finish().unwrap().remove(0);
    let mut writer = GameWriter::create(dir.path().join("games"), WriterOptions::default()).unwrap();
    writer.extend(games.iter().cloned()).unwrap();
    let game_shard = writer.finish().unwrap().remove(0);

    let script = xq_testkit::workspace_file("scripts/check_parquet.py");
    let output = Command::new(&python)
        .arg(&script)
        .arg(&sample_shard.file.path)
        .arg(samples.len().to_string())
        .arg(&game_shard.file.path)
        .arg(games.len().to_string())
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} ({e}): run `bash scripts/setup-python.sh` or set XQ_PYTHON",
                python.display()
            )
        });
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.code() != Some(3), "{stderr}");
    assert!(output.status.success(), "{} failed: {stderr}", script.display());

    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let first = &samples[0];
    assert_eq!(summary["fen"], first.fen.as_str());
    assert_eq!(summary["board_len"], 90);
    assert_eq!(summary["board_sum"], first.board.iter().map(|&b| u64::from(b)).sum::<u64>());
    let policy: Vec<String> = first.policy.iter().map(|(m, _)| m.iccs()).collect();
    assert_eq!(summary["policy_iccs"], serde_json::json!(policy));
    let sum: f32 = first.policy.iter().map(|(_, p)| p).sum();
    assert!((summary["policy_sum"].as_f64().unwrap() - f64::from(sum)).abs() < 1e-4);
    assert_eq!(summary["move_played"], first.move_played.iccs());
    assert_eq!(summary["result_sum"], samples.iter().map(|s| i64::from(s.result)).sum::<i64>());
    let moves: Vec<String> = games[0].moves.iter().map(|m| m.iccs()).collect();
    assert_eq!(summary["moves_iccs"], serde_json::json!(moves));
    assert_eq!(summary["moves_chinese"], serde_json::json!(games[0].moves_chinese));
    assert_eq!(summary["moves_wxf"], serde_json::json!(games[0].moves_wxf));
    assert_eq!(summary["termination"], games[0].termination.name());
    let openings: Vec<Option<&str>> = games.iter().map(|g| g.opening.as_deref()).collect();
    assert_eq!(summary["openings"], serde_json::json!(openings));
}
