//! `xq selfplay` killed with SIGKILL part way and run again with the same command ends with
//! the same games and samples as a run that was never interrupted: nothing lost, nothing
//! written twice.
//!
//! The driver guarantees, per game id, the same record and the same samples (every game is
//! seeded from its id alone); which games share a shard depends on the order games finish in,
//! so a resumed directory is compared with an uninterrupted one game by game, not file by file.

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use xq_data::{GameRecord, Sample, read_games_dir, read_samples_dir, shard_file_name};

const XQ: &str = env!("CARGO_BIN_EXE_xq");
const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/selfplay-tiny.toml");

/// SIGKILL's number: `Child::kill` sends it on Unix.
const SIGKILL: i32 = 9;

fn selfplay(games: u64, out: &Path) -> Command {
    let mut command = Command::new(XQ);
    command.args(["selfplay", "--config", CONFIG, "--games", &games.to_string(), "--json", "--out"]);
    command.arg(out);
    command
}

/// Starts the run, waits until its first games shard (the commit marker of a shard pair)
/// exists, and kills it. Returns whether the kill landed; `false` means the run finished
/// first, which only a run too short for the machine does.
fn start_and_kill(games: u64, out: &Path) -> bool {
    let mut child = selfplay(games, out).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let first_shard = out.join(shard_file_name("games", 0));
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "self-play failed before it could be killed: {status}");
            return false;
        }
        if first_shard.exists() {
            child.kill().unwrap();
            let status = child.wait().unwrap();
            // Between the check and the kill the run may have ended on its own.
            if status.signal() == Some(SIGKILL) {
                return true;
            }
            assert!(status.success(), "{status}");
            return false;
        }
        // Polling, not a guess at timing: the loop ends on the shard or on the exit.
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs to completion and returns the JSON summary.
fn run_to_end(games: u64, out: &Path) -> serde_json::Value {
    let run = selfplay(games, out).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    serde_json::from_slice(&run.stdout).unwrap()
}

/// Every game of a directory by id, checking none is written twice or unreadable.
fn games(dir: &Path) -> BTreeMap<u64, GameRecord> {
    let contents = read_games_dir(dir).unwrap();
    assert!(contents.skipped.is_empty(), "{:?}", contents.skipped);
    let mut by_id = BTreeMap::new();
    for g in contents.rows {
        let id = g.game_id;
        assert!(by_id.insert(id, g).is_none(), "game {id} was written twice");
    }
    by_id
}

/// Every sample of a directory by (game id, ply), checking none is written twice.
fn samples(dir: &Path) -> BTreeMap<(u64, u16), Sample> {
    let contents = read_samples_dir(dir).unwrap();
    assert!(contents.skipped.is_empty(), "{:?}", contents.skipped);
    let mut by_key = BTreeMap::new();
    for s in contents.rows {
        let key = (s.game_id, s.ply);
        assert!(by_key.insert(key, s).is_none(), "sample {key:?} was written twice");
    }
    by_key
}

#[test]
fn a_killed_selfplay_run_resumes_to_the_same_games() {
    // The config writes a shard pair per 4 games with 8 in flight, so with 16 games the first
    // pair lands long before the end. Should a machine ever finish first, try a longer run.
    let mut attempt = None;
    for games in [16, 64, 256, 1024] {
        let dir = tempfile::tempdir().unwrap();
        if start_and_kill(games, dir.path()) {
            attempt = Some((games, dir));
            break;
        }
    }
    let (total, resumed) = attempt.expect("the kill landed while self-play was running");
    let before = games(resumed.path()).len() as u64;
    assert!(before >= 4 && before < total, "{before} of {total} games committed before the kill");

    let summary = run_to_end(total, resumed.path());
    assert_eq!(summary["games_before"], before);
    assert_eq!(summary["games_played"].as_u64().unwrap() + before, total);

    let whole = tempfile::tempdir().unwrap();
    let summary = run_to_end(total, whole.path());
    assert_eq!(summary["games_played"], total);

    let (resumed_games, whole_games) = (games(resumed.path()), games(whole.path()));
    assert_eq!(resumed_games.len() as u64, total);
    assert_eq!(resumed_games, whole_games);
    let (resumed_samples, whole_samples) = (samples(resumed.path()), samples(whole.path()));
    assert_eq!(resumed_samples.len(), whole_samples.len());
    assert_eq!(resumed_samples, whole_samples);
    // A rerun of the finished command adds nothing.
    let again = run_to_end(total, resumed.path());
    assert_eq!((again["games_before"].as_u64(), again["games_played"].as_u64()), (Some(total), Some(0)));
    assert_eq!(games(resumed.path()), whole_games);
}
