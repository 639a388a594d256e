//! xq's PGN loads as it is in the Xiangqi tools people use: the `cchess` package reads the
//! ICCS movetext (`[Format "ICCS"]`), and pyffish (Fairy-Stockfish) replays the Fairy movetext
//! (`[Variant "xiangqi"]`, ranks 1–10) move by move to the same position. Before, cchess read 0
//! moves (no `Format` tag, then Chinese comments) and pyffish 0 of 342 games (ICCS ranks under
//! Fairy-Stockfish's variant tag).
//!
//! Needs a Python with cchess and pyffish: `$XQ_PYTHON`, else `<workspace>/.venv/bin/python`
//! (created by `bash scripts/setup-python.sh`). Without one the test skips, unless
//! `XQ_REQUIRE_PYTHON` is set (as `scripts/test.sh` does).

use std::path::{Path, PathBuf};
use std::process::Command;
use xq_core::{Game, GameResult, GameRules};
use xq_eval::pgn::{PgnGame, PgnHeader, PgnMovetext, parse_pgn};

/// A seeded game of random legal moves (captures preferred, so the board empties and the
/// notation has to tell tandem pieces apart), to its end or `plies` moves.
fn random_game(fen: &str, seed: u64, plies: usize) -> Game {
    let mut game = Game::from_fen(fen, GameRules::default()).unwrap();
    let mut state = seed;
    while game.ply() < plies && game.outcome().is_none() {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let moves = game.position().legal_moves();
        let captures: Vec<_> =
            moves.iter().copied().filter(|&m| game.position().piece_at(m.to()).is_some()).collect();
        let pool: Vec<_> = if !captures.is_empty() && state >> 62 != 0 { captures } else { moves.to_vec() };
        game.play(pool[(state >> 33) as usize % pool.len()]).unwrap();
    }
    game
}

fn games() -> Vec<Game> {
    let black_first = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 0 1";
    let mut games: Vec<Game> = (0..6).map(|seed| random_game(xq_core::START_FEN, seed, 120)).collect();
    games.push(random_game(black_first, 99, 80));
    games
}

fn write(dir: &Path, name: &str, game: &Game, movetext: PgnMovetext) -> PathBuf {
    let header = PgnHeader {
        event: "interop".into(),
        red: "红方".into(),
        black: "黑方".into(),
        opening: Some("中炮".into()),
        movetext,
        time_control: Some("10+0.1".into()),
        ..PgnHeader::default()
    };
    let pgn = PgnGame::from_game(&header, game, &[], Some(GameResult::Draw));
    let path = dir.join(name);
    std::fs::write(&path, pgn.write()).unwrap();
    path
}

#[test]
fn cchess_and_pyffish_load_xq_pgn_unchanged() {
    let Some(python) = xq_testkit::test_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let games = games();
    let mut requests = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let iccs = write(dir.path(), &format!("iccs-{i}.pgn"), game, PgnMovetext::Iccs);
        let fairy = write(dir.path(), &format!("fairy-{i}.pgn"), game, PgnMovetext::Fairy);
        requests.push(serde_json::json!({"path": iccs, "reader": "cchess"}));
        requests.push(serde_json::json!({"path": fairy, "reader": "pyffish"}));
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/pgn_readers.py");
    let output = Command::new(&python)
        .arg(&script)
        .arg(serde_json::Value::from(requests).to_string())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let answers: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout).unwrap();
    for (i, game) in games.iter().enumerate() {
        let iccs: Vec<String> = game.moves().iter().map(|m| m.iccs()).collect();
        let fairy: Vec<String> = game.moves().iter().map(|&m| xq_play::engine::format_move(m, 1)).collect();
        let read_by_cchess: Vec<String> = serde_json::from_value(answers[2 * i]["moves"].clone()).unwrap();
        assert_eq!(read_by_cchess, iccs, "game {i}: cchess reads every move");
        let by_pyffish = &answers[2 * i + 1];
        let read_by_pyffish: Vec<String> = serde_json::from_value(by_pyffish["moves"].clone()).unwrap();
        assert_eq!(read_by_pyffish, fairy, "game {i}: pyffish replays every move: {by_pyffish}");
        // Fairy-Stockfish writes the board the same way (its clocks differ).
        let board = |fen: &str| fen.split(' ').take(2).collect::<Vec<_>>().join(" ");
        assert_eq!(board(by_pyffish["fen"].as_str().unwrap()), board(&game.fen()), "game {i}");
    }
}

#[test]
fn every_movetext_reads_back_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    for (i, game) in games().iter().enumerate() {
        for movetext in [PgnMovetext::Iccs, PgnMovetext::Wxf, PgnMovetext::Chinese, PgnMovetext::Fairy] {
            let path = write(dir.path(), &format!("{i}-{movetext:?}.pgn"), game, movetext);
            let text = std::fs::read_to_string(path).unwrap();
            let parsed = parse_pgn(&text).unwrap();
            assert_eq!(parsed.len(), 1);
            assert_eq!(parsed[0].movetext(), Some(movetext));
            assert_eq!(parsed[0].tag("TimeControl"), Some("10+0.1"));
            let replayed = parsed[0].replay(GameRules::default()).unwrap();
            assert_eq!(replayed.moves(), game.moves(), "game {i} in {movetext:?}");
        }
    }
}

#[test]
fn pgn_written_before_the_format_tag_still_replays() {
    // xq's old files: `[Variant "xiangqi"]` over ICCS ranks 0-9.
    let old = "[Event \"old\"]\n[Result \"*\"]\n[Variant \"xiangqi\"]\n\n1. h2e2 h9g7 2. h0g2 *\n";
    let game = parse_pgn(old).unwrap()[0].replay(GameRules::default()).unwrap();
    let iccs: Vec<String> = game.moves().iter().map(|m| m.iccs()).collect();
    assert_eq!(iccs, ["h2e2", "h9g7", "h0g2"]);
    // The same moves in Fairy-Stockfish coordinates.
    let fairy = "[Variant \"xiangqi\"]\n\n1. h3e3 h10g8 2. h1g3 *\n";
    let game = parse_pgn(fairy).unwrap()[0].replay(GameRules::default()).unwrap();
    assert_eq!(game.moves().iter().map(|m| m.iccs()).collect::<Vec<_>>(), iccs);
}
