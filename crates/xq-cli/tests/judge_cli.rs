//! `xq judge`: the JSON interface other tools read, and exit status 2 on bad input.

use std::process::Command;

fn xq(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xq")).args(args).output().expect("xq runs")
}

/// `xq judge` on book figure 6: the red rook checks on every move, black only answers.
fn judge_perpetual_check(extra: &[&str]) -> std::process::Output {
    let moves = ["f0e0", "e8f8", "e0f0", "f8e8"];
    let mut args = vec!["judge", "--fen", "2b6/4k4/9/9/9/9/9/9/2p6/3K1RBc1 w - - 0 1", "--moves"];
    args.extend(moves);
    args.extend(extra);
    xq(&args)
}

#[test]
fn json_reports_every_move_and_the_verdict() {
    let out = judge_perpetual_check(&["--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["rules"], "cxa");
    assert_eq!(v["moves"].as_array().map(Vec::len), Some(4));
    assert_eq!(v["moves"][0]["move"], "f0e0");
    assert_eq!(v["moves"][0]["side"], "red");
    assert_eq!(v["moves"][0]["class"], "check");
    assert_eq!(v["moves"][1]["class"], "idle");
    assert!(v["moves"][0]["targets"].is_array());
    assert_eq!(v["cycle"]["start_ply"], 0);
    assert_eq!(v["cycle"]["plies"], 4);
    assert_eq!(v["verdict"], "red_loses");
    assert_eq!(v["reason"], "perpetual_check");
    assert_eq!(v["article"], "26.1");
    assert_eq!(v["must_vary"], "red");
}

#[test]
fn no_repetition_means_no_verdict() {
    let out = xq(&["judge", "--moves", "h2e2", "h9g7", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["verdict"], "none");
    assert!(v["cycle"].is_null());
    assert!(v["must_vary"].is_null());
}

#[test]
fn bad_input_exits_with_status_2() {
    assert_eq!(xq(&["judge", "--moves", "z9z9"]).status.code(), Some(2));
    assert_eq!(xq(&["judge", "--moves", "h2e2", "--rules", "fide"]).status.code(), Some(2));
    assert_eq!(xq(&["judge", "--fen", "not a fen", "--moves", "h2e2"]).status.code(), Some(2));
}

#[test]
fn the_table_lines_up_chinese_moves_and_names_the_verdict() {
    let out = judge_perpetual_check(&[]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "rules: cxa");
    // Header and four moves, each with ICCS and Chinese notation and both labels.
    assert!(lines[2].contains("f0e0 车四平五") && lines[2].contains("*将 check"), "{text}");
    assert!(lines[3].contains("*闲 idle"), "{text}");
    // The class column starts at the same terminal column on every row (a Chinese
    // character is two columns wide).
    let column = |line: &str| {
        let at = line.find(" class").or_else(|| line.find('*')).expect("class column");
        unicode_width::UnicodeWidthStr::width(&line[..at])
    };
    let first = column(lines[1]);
    assert!(lines[1..6].iter().all(|l| column(l) == first), "{text}");
    assert!(text.contains("verdict: red_loses (perpetual_check, article 26.1, red must vary)"), "{text}");
}
