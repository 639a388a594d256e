//! `xq eval`: a tiny SPRT from a config file writes every output, resumes, and bad input
//! exits with code 2.

use std::process::{Command, Output};

const XQ: &str = env!("CARGO_BIN_EXE_xq");

fn tiny_sprt() -> String {
    xq_testkit::sprt_greedy_vs_random("cli sprt", 2, 3, 50, 120)
}

fn xq(args: &[&str]) -> Output {
    Command::new(XQ).args(args).output().expect("run the xq binary")
}

#[test]
fn eval_sprt_runs_a_config_and_writes_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("eval-tiny.toml");
    std::fs::write(&config, tiny_sprt()).unwrap();
    let out = dir.path().join("out");
    let args =
        ["eval", "sprt", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
    let run = xq(&args);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "stderr: {}", String::from_utf8_lossy(&run.stderr));
    assert!(stdout.contains("# cli sprt") && stdout.contains("6 games"), "{stdout}");
    for file in ["journal.jsonl", "games.pgn", "report.json", "report.md", "ladder.svg", "ladder.png"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 6);
    // A second run resumes the finished event and plays nothing.
    let again = xq(&args);
    assert!(String::from_utf8_lossy(&again.stdout).contains("6 resumed from the journal, 0 played now"));
}

#[test]
fn eval_rejects_a_format_mismatch_and_bad_configs_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("eval-tiny.toml");
    std::fs::write(&config, tiny_sprt()).unwrap();
    let out = dir.path().join("out");
    let run = xq(&["eval", "gauntlet", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("sprt event, not gauntlet"), "{stderr}");

    std::fs::write(&config, tiny_sprt().replace("seed = 2", "seed = 2\nsed = 3")).unwrap();
    let run = xq(&["eval", "sprt", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("sed") && !stderr.contains("panicked"), "{stderr}");
}

#[test]
fn timed_games_played_at_once_are_warned_about_and_untimed_ones_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let event = |concurrency: usize, limits: &str| {
        format!(
            "name = \"timed\"\nseed = 5\nconcurrency = {concurrency}\n[format]\nkind = \"gauntlet\"\npairs = 1\n\
             [limits]\n{limits}\n[adjudication]\nmax_plies = 6\n\
             [[players]]\nkind = \"greedy\"\nname = \"greedy\"\n[[players]]\nkind = \"random\"\nname = \"random\"\n"
        )
    };
    let stderr_of = |name: &str, text: String| {
        let (run, _) = xq_testkit::run_xq_eval(XQ, dir.path(), name, "gauntlet", &text);
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        assert!(run.status.success(), "{name}: {stderr}");
        stderr
    };
    let warned = stderr_of("two-timed", event(2, "movetime_ms = 5"));
    assert!(warned.contains("warning: the event plays 2 timed games at once"), "{warned}");
    let clocked = stderr_of("two-clocked", event(2, "tc = \"5+0.05\""));
    assert!(clocked.contains("timed games at once"), "{clocked}");
    for (name, text) in [("one-timed", event(1, "movetime_ms = 5")), ("two-by-depth", event(2, "depth = 1"))]
    {
        let quiet = stderr_of(name, text);
        assert!(!quiet.contains("warning"), "{name}: {quiet}");
    }
}

/// The moves of every game in an event's PGN, without the headers that may differ between runs.
fn pgn_moves(out: &std::path::Path) -> Vec<String> {
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    pgn.lines().filter(|l| !l.starts_with('[') && !l.trim().is_empty()).map(str::to_string).collect()
}

#[test]
fn an_event_plays_again_from_its_own_record() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("eval-tiny.toml");
    std::fs::write(&config, tiny_sprt()).unwrap();
    let first = dir.path().join("first");
    let run = xq(&[
        "eval",
        "sprt",
        "--config",
        config.to_str().unwrap(),
        "--out",
        first.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(run.status.success(), "stderr: {}", String::from_utf8_lossy(&run.stderr));

    // The event directory, and the config.json in it, name the same event: played again at
    // another concurrency, it plays the same games.
    let record = first.join("config.json");
    for (source, out) in [(first.clone(), "again-from-dir"), (record.clone(), "again-from-json")] {
        let out = dir.path().join(out);
        let args = [
            "eval",
            "sprt",
            "--config",
            source.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--concurrency",
            "2",
            "--quiet",
        ];
        let run = xq(&args);
        assert!(run.status.success(), "{}: {}", source.display(), String::from_utf8_lossy(&run.stderr));
        assert_eq!(pgn_moves(&out), pgn_moves(&first), "{}", source.display());
        assert!(!pgn_moves(&out).is_empty());
    }

    // Without --out, a record plays into data/runs/<its event name as one directory name>:
    // "cli sprt" has a space, which the directory does not.
    let run = Command::new(XQ)
        .args(["eval", "sprt", "--config", record.to_str().unwrap(), "--quiet"])
        .current_dir(dir.path())
        .output()
        .expect("run the xq binary");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(pgn_moves(&dir.path().join("data/runs/cli-sprt")), pgn_moves(&first));

    // A record is held to the same rules as a TOML file: an unknown key is named, exit code 2.
    let text = std::fs::read_to_string(&record).unwrap().replacen('{', "{\n  \"sed\": 3,", 1);
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, text).unwrap();
    let run = xq(&[
        "eval",
        "sprt",
        "--config",
        edited.to_str().unwrap(),
        "--out",
        dir.path().join("x").to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("sed") && !stderr.contains("panicked"), "{stderr}");
    let zero = xq(&["eval", "sprt", "--config", record.to_str().unwrap(), "--concurrency", "0"]);
    assert_eq!(zero.status.code(), Some(2), "{}", String::from_utf8_lossy(&zero.stderr));
}
