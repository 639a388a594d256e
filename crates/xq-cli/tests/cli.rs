//! End-to-end tests of the `xq` binary: `xq perft` and `xq moves`, their JSON output, and
//! their behaviour on bad input (exit code 2 and a one-line error, never a panic).

use serde_json::Value;
use std::process::{Command, Output};

const XQ: &str = env!("CARGO_BIN_EXE_xq");

fn xq(args: &[&str]) -> Output {
    Command::new(XQ).args(args).output().expect("run the xq binary")
}

/// Runs `xq`, expects success and parses its standard output as one JSON object.
fn xq_json(args: &[&str]) -> Value {
    let out = xq(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "xq {args:?} failed: {stderr}");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    assert_eq!(stdout.trim_end().lines().count(), 1, "one JSON line: {stdout}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("xq {args:?} printed {stdout:?}: {e}"))
}

/// Runs `xq`, expects exit code 2 and returns its single stderr line.
fn xq_error(args: &[&str]) -> String {
    let out = xq(args);
    let stderr = String::from_utf8(out.stderr).expect("UTF-8 errors");
    assert_eq!(out.status.code(), Some(2), "xq {args:?} exit status; stderr: {stderr}");
    assert!(out.stdout.is_empty(), "nothing on stdout: {}", String::from_utf8_lossy(&out.stdout));
    assert!(!stderr.contains("panicked"), "xq {args:?} panicked: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one error line: {stderr:?}");
    assert!(stderr.starts_with("error: "), "{stderr:?}");
    stderr
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().expect("a JSON object").keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn perft_json_has_exactly_the_documented_keys() {
    let v = xq_json(&["perft", "--depth", "3", "--json"]);
    assert_eq!(keys(&v), ["depth", "fen", "nodes", "nodes_per_second", "seconds"]);
    assert_eq!(v["nodes"], 79_666);
    assert_eq!(v["depth"], 3);
    assert_eq!(v["fen"], xq_core::START_FEN);
    assert!(v["seconds"].as_f64().is_some_and(|s| s >= 0.0));
    assert!(v["nodes_per_second"].as_f64().is_some_and(|r| r >= 0.0));
}

#[test]
fn perft_divide_sums_to_the_total() {
    let v = xq_json(&["perft", "--depth", "3", "--divide", "--json"]);
    let divide = v["divide"].as_object().expect("divide object");
    assert_eq!(divide.len(), 44, "one entry per legal move of the start position");
    let sum: u64 = divide.values().map(|n| n.as_u64().expect("count")).sum();
    assert_eq!(sum, 79_666);
    assert_eq!(v["nodes"], 79_666);
    // Each entry is the depth-2 count below that move.
    let start = xq_core::Position::startpos();
    for m in start.legal_moves().iter() {
        assert_eq!(divide[&m.iccs()], xq_core::perft::perft(&start.after(*m), 2), "divide entry {m}");
    }
}

#[test]
fn perft_text_output() {
    let out = xq(&["perft", "--depth", "2"]);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(stdout.starts_with("depth 2 nodes 1920 "), "{stdout}");
}

#[test]
fn moves_json_lists_sorted_legal_moves() {
    let v = xq_json(&["moves", "--moves", "h2e2", "h9g7", "--json"]);
    assert_eq!(keys(&v), ["fen", "in_check", "legal", "status"]);
    assert_eq!(v["fen"], "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2");
    assert_eq!(v["in_check"], false);
    assert_eq!(v["status"], "ongoing");
    let legal: Vec<&str> =
        v["legal"].as_array().expect("legal array").iter().map(|m| m.as_str().unwrap()).collect();
    let mut sorted = legal.clone();
    sorted.sort_unstable();
    assert_eq!(legal, sorted, "legal moves are sorted");
    // The position's moves, computed independently by the library.
    let pos = xq_core::Position::from_fen(v["fen"].as_str().unwrap()).unwrap();
    let mut expected: Vec<String> = pos.legal_moves().iter().map(|m| m.iccs()).collect();
    expected.sort_unstable();
    assert_eq!(legal, expected);
    assert_eq!(legal.len(), 35);
    assert!(legal.contains(&"e2e6"), "the central cannon takes the pawn e6");
}

#[test]
fn mate_gives_checkmate() {
    // Rook a0 to a9 checks along the back rank; the rook on i8 covers d8 and e9 faces the red king.
    let v = xq_json(&["moves", "--fen", "3k5/8R/9/9/9/9/9/9/9/R3K4 w - - 0 1", "--moves", "a0a9", "--json"]);
    assert_eq!(v["status"], "checkmate");
    assert_eq!(v["in_check"], true);
    assert_eq!(v["legal"], serde_json::json!([]));
    // A finished game says who won and by which article (before: only the status).
    assert_eq!(keys(&v), ["article", "fen", "in_check", "legal", "reason", "result", "status"]);
    assert_eq!((v["result"].as_str(), v["article"].as_str()), (Some("1-0"), Some("4.1.1")));
}

#[test]
fn perft_json_echoes_the_fen_with_its_clocks() {
    let fen = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2";
    let v = xq_json(&["perft", "--fen", fen, "--depth", "1", "--json"]);
    assert_eq!(v["fen"], fen, "before: the clocks came back as 0 1");
}

#[test]
fn wxf_moves_with_a_leading_minus_are_moves_not_flags() {
    // Two red rooks on one file: -R+1 is the rear one advancing.
    let fen = "3k5/9/9/9/9/R8/9/R8/9/4K4 w - - 0 1";
    let v = xq_json(&["moves", "--fen", fen, "--moves", "-R+1", "--json"]);
    assert_eq!(v["fen"], "3k5/9/9/9/9/R8/R8/9/9/4K4 b - - 1 1");
}

#[test]
fn no_move_out_of_check_gives_stalemate() {
    // After e7e8 the black king on d9 is not in check, but d8 and e9 are covered by the rook.
    let v = xq_json(&["moves", "--fen", "3k5/9/4R4/9/9/9/9/9/9/5K3 w - - 0 1", "--moves", "e7e8", "--json"]);
    assert_eq!(v["status"], "stalemate");
    assert_eq!(v["in_check"], false);
    assert_eq!(v["legal"], serde_json::json!([]));
}

#[test]
fn repeated_sequence_gives_repetition() {
    let shuffle = ["h0g2", "h9g7", "g2h0", "g7h9"];
    let mut args = vec!["moves", "--json", "--moves"];
    args.extend(shuffle);
    let once = xq_json(&args);
    assert_eq!(once["status"], "ongoing", "the start position has occurred twice");
    args.extend(shuffle);
    let twice = xq_json(&args);
    assert_eq!(twice["status"], "repetition", "the start position has occurred three times");
}

#[test]
fn bad_fen_is_an_error_naming_the_fen() {
    let e = xq_error(&["moves", "--fen", "not a fen"]);
    assert!(e.contains("bad FEN") && e.contains("not a fen"), "{e}");
    let e = xq_error(&[
        "perft",
        "--depth",
        "1",
        "--fen",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x",
    ]);
    assert!(e.contains("bad FEN") && e.contains("side to move"), "{e}");
    // Well formed but not a legal position: the kings face each other.
    let e = xq_error(&["perft", "--depth", "1", "--fen", "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1"]);
    assert!(e.contains("kings face each other"), "{e}");
}

#[test]
fn illegal_move_is_an_error_naming_the_move() {
    // The rook on a0 cannot jump the pawn on a3.
    let e = xq_error(&["moves", "--moves", "a0a5"]);
    assert!(e.contains("a0a5") && e.contains("illegal"), "{e}");
    // The second move is black's, and h9 is empty after the red cannon took the horse there.
    let e = xq_error(&["moves", "--moves", "h2h9", "h9g7", "--json"]);
    assert!(e.contains("move 2") && e.contains("h9g7"), "{e}");
}

#[test]
fn unparsable_move_is_an_error_naming_the_text() {
    let e = xq_error(&["moves", "--moves", "zz99"]);
    assert!(e.contains("zz99") && e.contains("cannot parse"), "{e}");
}

/// A reader that hangs up (`xq perft --divide | head -1`, a GUI closing `xq engine`) ends the
/// process quietly, as it ends `cat`: no panic from the next write.
#[cfg(unix)]
#[test]
fn a_closed_stdout_ends_the_process_without_a_panic() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let mut child = Command::new(XQ)
        .args(["perft", "--depth", "3", "--divide"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the xq binary");
    // Hang up before xq writes its first line (it has a tree to count first).
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("wait for xq");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        output.status.success() || output.status.signal() == Some(libc::SIGPIPE),
        "{:?}: {stderr}",
        output.status
    );
}
