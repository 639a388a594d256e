//! `xq import` and `xq data stats` end to end: a PGN collection becomes judged games and
//! samples, a rerun resumes without duplicates, and the statistics count what was written.

use serde_json::Value;
use std::process::Command;

const XQ: &str = env!("CARGO_BIN_EXE_xq");

fn xq_json(args: &[&str]) -> Value {
    let out = Command::new(XQ).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "xq {args:?} failed: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("xq {args:?}: {e}"))
}

/// Four games: a perpetual check the collection scored as a draw and played on past the third
/// repetition, a resignation in WXF movetext, an unfinished game and one with an illegal move.
const COLLECTION: &str = r#"[Event "imported"]
[Red "checker"]
[Black "defender"]
[Result "1/2-1/2"]
[FEN "2b6/4k4/9/9/9/9/9/9/2p6/3K1RBc1 w - - 0 1"]

1. f0e0 e8f8 2. e0f0 f8e8 3. f0e0 e8f8 4. e0f0 f8e8 5. f0e0 e8f8 6. e0f0 f8e8 1/2-1/2

[Event "imported"]
[Red "a"]
[Black "b"]
[Result "1-0"]
[Format "WXF"]

1. C2.5 H8+7 2. H2+3 R9.8 1-0

[Event "imported"]
[Result "*"]

1. h2e2 h9g7 *

[Event "imported"]
[Result "0-1"]

1. h2e2 h2e2 0-1

"#;

#[test]
fn a_pgn_collection_becomes_judged_data_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("collection.pgn");
    std::fs::write(&pgn, COLLECTION).unwrap();
    let out = dir.path().join("imported");
    let args = ["import", "--pgn", pgn.to_str().unwrap(), "--out", out.to_str().unwrap(), "--json"];
    let summary = xq_json(&args);
    assert_eq!(summary["read"], 4, "{summary}");
    assert_eq!(summary["games"], 2, "{summary}");
    assert_eq!(summary["unfinished"], 1);
    assert_eq!(summary["rejected"].as_array().unwrap().len(), 1, "{summary}");
    assert!(summary["rejected"][0].as_str().unwrap().contains("h2e2"), "{summary}");
    // The rules end the first game at the third repetition: a loss for the checking side, not
    // the draw the collection recorded, and the moves after it are cut.
    assert_eq!((summary["cut_by_rules"].as_u64(), summary["result_changed"].as_u64()), (Some(1), Some(1)));
    assert_eq!(summary["endings"]["perpetual_check"], 1);
    assert_eq!(summary["endings"]["resignation"], 1);
    assert_eq!(summary["positions"], 8 + 4, "{summary}");

    let games = xq_data::read_games_dir(&out).unwrap().rows;
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].result, xq_core::GameResult::BlackWins);
    assert_eq!((games[0].article.as_str(), games[0].plies()), ("26.1", 8));
    assert_eq!((games[1].model_red.as_str(), games[1].article.as_str()), ("a", "4.1.9"));
    let samples = xq_data::read_samples_dir(&out).unwrap().rows;
    assert_eq!(samples.len(), 12);
    for s in &samples {
        assert_eq!(s.policy, vec![(s.move_played, 1.0)], "the move played is the policy target");
        assert!(s.full_search);
    }
    // Red (the checker) lost: its positions are labelled losses, black's wins.
    assert!(
        samples[..8].iter().all(|s| s.result == if s.side_to_move == xq_core::Color::Red { -1 } else { 1 })
    );

    // A rerun writes nothing twice.
    let again = xq_json(&args);
    assert_eq!((again["resumed"].as_u64(), again["positions"].as_u64()), (Some(2), Some(0)), "{again}");
    assert_eq!(xq_data::read_samples_dir(&out).unwrap().rows.len(), 12);

    let stats = xq_json(&["data", "stats", dir.path().to_str().unwrap(), "--json"]);
    assert_eq!((stats["games"].as_u64(), stats["positions"].as_u64()), (Some(2), Some(12)), "{stats}");
    assert_eq!((stats["red_wins"].as_u64(), stats["black_wins"].as_u64()), (Some(1), Some(1)));
    assert_eq!(stats["directories"], serde_json::json!(["imported"]));
    assert_eq!(stats["endings"]["perpetual_check"]["articles"]["26.1"], 1);
    assert_eq!((stats["min_plies"].as_u64(), stats["max_plies"].as_u64()), (Some(4), Some(8)));
    assert_eq!(stats["length_histogram"], serde_json::json!([2]));
    let text = Command::new(XQ).args(["data", "stats", out.to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.starts_with("2 games, 12 positions in 1 directories"), "{text}");
    assert!(text.contains("perpetual_check"), "{text}");
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let missing = Command::new(XQ).args(["data", "stats", "/nonexistent/xq-data"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let garbage = dir.path().join("garbage.pgn");
    std::fs::write(&garbage, "[Event \"x\"\n\n1. h2e2 *\n").unwrap();
    let out = dir.path().join("out");
    let run = Command::new(XQ)
        .args(["import", "--pgn", garbage.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("not PGN"));
}

/// A position suite: a mate on the board, a best move with a `c9` result, a variation with a
/// tuning-set `[0.5]` label, a position without a label, and a broken line.
const SUITE: &str = r#"# labelled positions
3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - id "mated";
rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - id "opening"; bm h2e2; c9 "1-0";
rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 pv h2e2 H8+7; [0.5]
rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - bm h2e2;
3k5/9 w - - bm h2e2;
"#;

#[test]
fn an_epd_suite_becomes_judged_games_and_samples() {
    let dir = tempfile::tempdir().unwrap();
    let epd = dir.path().join("suite.epd");
    std::fs::write(&epd, SUITE).unwrap();
    let out = dir.path().join("positions");
    let args = ["import", "--epd", epd.to_str().unwrap(), "--out", out.to_str().unwrap(), "--json"];
    let summary = xq_json(&args);
    assert_eq!((summary["read"].as_u64(), summary["games"].as_u64()), (Some(5), Some(3)), "{summary}");
    assert_eq!(summary["unfinished"], 1, "a position without a label or an ending: {summary}");
    assert_eq!(summary["rejected"].as_array().unwrap().len(), 1, "{summary}");
    assert!(summary["rejected"][0].as_str().unwrap().contains("line 6"), "{summary}");
    assert_eq!(summary["endings"]["checkmate"], 1, "{summary}");
    assert_eq!(summary["endings"]["resignation"], 1, "{summary}");
    assert_eq!(summary["endings"]["draw_adjudication"], 1, "{summary}");
    assert_eq!(summary["positions"], 1 + 2, "{summary}");

    let games = xq_data::read_games_dir(&out).unwrap().rows;
    let mated = games.iter().find(|g| g.opening.as_deref() == Some("mated")).unwrap();
    assert_eq!((mated.result, mated.plies()), (xq_core::GameResult::RedWins, 0));
    let opening = games.iter().find(|g| g.opening.as_deref() == Some("opening")).unwrap();
    assert_eq!(
        (opening.moves_wxf.as_slice(), opening.article.as_str()),
        (&["C2=5".to_string()][..], "4.1.9")
    );
    let drawn = games.iter().find(|g| g.plies() == 2).unwrap();
    assert_eq!(drawn.result, xq_core::GameResult::Draw);
    assert_eq!(drawn.moves_wxf, ["C2=5", "N8+7"]);
    let samples = xq_data::read_samples_dir(&out).unwrap().rows;
    assert_eq!(samples.len(), 3);
    assert!(samples.iter().all(|s| s.policy == vec![(s.move_played, 1.0)]));

    // PGN and EPD in one import; a rerun resumes.
    let pgn = dir.path().join("collection.pgn");
    std::fs::write(&pgn, COLLECTION).unwrap();
    let both = dir.path().join("both");
    let args = [
        "import",
        "--pgn",
        pgn.to_str().unwrap(),
        "--epd",
        epd.to_str().unwrap(),
        "--out",
        both.to_str().unwrap(),
        "--json",
    ];
    let summary = xq_json(&args);
    assert_eq!((summary["read"].as_u64(), summary["games"].as_u64()), (Some(9), Some(5)), "{summary}");
    let again = xq_json(&args);
    assert_eq!((again["resumed"].as_u64(), again["positions"].as_u64()), (Some(5), Some(0)), "{again}");
}
