//! `xq engine` as an external engine: xq-play's engine client (the one xq-eval runs `uci` and
//! `ucci` players with) plays games against it in both protocols, and `xq eval` runs it in a
//! gauntlet.

use std::process::Command;
use std::time::Duration;
use xq_core::{Color, GameRules, Termination};
use xq_play::{
    Engine, EngineConfig, GameOptions, GameRecord, Opening, Player, Protocol, RandomPlayer, Score,
    SearchLimits, play_game,
};

const XQ: &str = env!("CARGO_BIN_EXE_xq");

/// `xq engine --evaluator material --visits 16` in `protocol`, searching 16 nodes a move.
fn xq_engine(protocol: Protocol) -> Engine {
    let dialect = if protocol == Protocol::Uci { "uci" } else { "ucci" };
    let mut config = EngineConfig::new(XQ, protocol);
    config.args = ["engine", "--protocol", dialect, "--evaluator", "material", "--visits", "16"]
        .map(String::from)
        .to_vec();
    // Node searches wait for the search timeout rather than a move time, so a busy machine
    // cannot turn a slow answer into a time forfeit.
    config.default_limits = SearchLimits::nodes(16);
    config.startup_timeout = Duration::from_secs(60);
    config.ready_timeout = Duration::from_secs(60);
    Engine::start(config).expect("xq engine starts and completes the handshake")
}

fn options(seed: u64) -> GameOptions {
    GameOptions { max_plies: Some(24), seed, ..GameOptions::default() }
}

/// Checks a game the engine played as `color` went to its end without a forfeit, with the
/// engine's search reported on each of its moves.
fn assert_clean_game(record: &GameRecord, color: Color) {
    assert!(
        !matches!(record.outcome.reason, Termination::Forfeit | Termination::TimeForfeit),
        "{:?}: {:?}",
        record.outcome,
        record.note
    );
    assert_eq!(record.player(color), "xq material");
    let game = record.replay().expect("the game replays legally");
    assert!(game.moves().len() >= 2, "{record:?}");
    let first = if color == Color::Red { 0 } else { 1 };
    for info in record.info.iter().skip(first).step_by(2) {
        let info = info.as_ref().expect("the engine's moves carry its report");
        assert_eq!(info.nodes, Some(16), "the visits are reported as nodes");
        assert!(matches!(info.score, Some(Score::Centipawns(_))), "{:?}", info.score);
    }
}

#[test]
fn the_engine_client_plays_xq_engine_in_both_protocols() {
    for protocol in [Protocol::Uci, Protocol::Ucci] {
        let mut engine = xq_engine(protocol);
        assert_eq!(engine.name(), "xq material");
        let mut random = RandomPlayer::new(9);
        let as_red =
            play_game(&mut engine, &mut random, &Opening::startpos(), GameRules::default(), &options(1));
        assert_clean_game(&as_red, Color::Red);
        // The same process plays a second game, as black.
        let as_black =
            play_game(&mut random, &mut engine, &Opening::startpos(), GameRules::default(), &options(2));
        assert_clean_game(&as_black, Color::Black);
    }
}

#[test]
fn xq_eval_runs_xq_engine_as_a_uci_player() {
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        r#"
name = "xq engine gauntlet"
seed = 4
concurrency = 1
[format]
kind = "gauntlet"
pairs = 1
[adjudication]
max_plies = 40
[[players]]
kind = "uci"
name = "xq-engine"
command = "{XQ}"
args = ["engine", "--evaluator", "material", "--visits", "16"]
nodes = 16
[[players]]
kind = "random"
name = "random"
"#
    );
    let (run, out) = xq_testkit::run_xq_eval(XQ, dir.path(), "eval-engine", "gauntlet", &config);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "stdout: {stdout}\nstderr: {}", String::from_utf8_lossy(&run.stderr));
    assert!(stdout.contains("2 games"), "{stdout}");
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 2);
    // Both games were played to a result by the rules, not forfeited by a broken engine.
    assert!(!journal.contains("forfeit"), "{journal}");
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("xq-engine").count(), 2, "{pgn}");
}

#[test]
fn xq_engine_keeps_to_a_real_clock() {
    // Before: the engine searched its whole visit budget whatever the clock said, so at a
    // time control it lost every game on time. Here its budget (a million visits) is far
    // beyond the clock, and it must manage the clock it is sent.
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        r#"
name = "xq engine at a clock"
seed = 9
concurrency = 1
[format]
kind = "gauntlet"
pairs = 1
[limits]
tc = "2+0.05"
[adjudication]
max_plies = 24
[[players]]
kind = "uci"
name = "xq-engine"
command = "{XQ}"
args = ["engine", "--evaluator", "material", "--visits", "1000000"]
[[players]]
kind = "alphabeta"
name = "alphabeta"
"#
    );
    let path = dir.path().join("eval-clock.toml");
    std::fs::write(&path, config).unwrap();
    let out = dir.path().join("out");
    let args =
        ["eval", "gauntlet", "--config", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
    let run = Command::new(XQ).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "stdout: {stdout}\nstderr: {}", String::from_utf8_lossy(&run.stderr));
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 2);
    assert!(!journal.contains("forfeit"), "nobody loses on time at 2+0.05: {journal}");
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[TimeControl \"2+0.05\"]").count(), 2, "{pgn}");
}

#[test]
fn xq_engine_without_a_usable_model_exits_with_code_2() {
    let missing = Command::new(XQ).args(["engine", "--model", "/nonexistent/xq-model"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.starts_with("error: ") && stderr.contains("/nonexistent/xq-model"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(missing.stdout.is_empty(), "no protocol output before the model loads");
    // Neither a model nor an evaluator: a usage error.
    let neither = Command::new(XQ).args(["engine"]).output().unwrap();
    assert_eq!(neither.status.code(), Some(2));
    let both = Command::new(XQ).args(["engine", "--model", "m", "--evaluator", "uniform"]).output().unwrap();
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn xq_engine_plays_with_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let mut model = xq_nn::ModelConfig::new(1, 16);
    model.seed = 11;
    let net = xq_nn::PolicyValueNet::new(&model, &burn::tensor::Device::flex()).unwrap();
    let meta = xq_nn::save_checkpoint(&net, &dir.path().join("step-000001"), 1, None).unwrap();
    let mut config = EngineConfig::new(XQ, Protocol::Uci);
    // A directory stands for its newest checkpoint.
    config.args =
        ["engine", "--model", dir.path().to_str().unwrap(), "--visits", "8"].map(String::from).to_vec();
    config.default_limits = SearchLimits::nodes(8);
    config.startup_timeout = Duration::from_secs(60);
    config.ready_timeout = Duration::from_secs(60);
    let mut engine = Engine::start(config).expect("xq engine loads the checkpoint");
    assert_eq!(engine.name(), format!("xq {}", meta.model_id));
    let mut random = RandomPlayer::new(3);
    let options = GameOptions { max_plies: Some(8), seed: 5, ..GameOptions::default() };
    let record = play_game(&mut engine, &mut random, &Opening::startpos(), GameRules::default(), &options);
    assert_eq!(record.outcome.reason, Termination::MaxLength, "{:?}", record.note);
    for info in record.info.iter().step_by(2) {
        assert_eq!(info.as_ref().unwrap().nodes, Some(8));
    }
}

#[test]
fn xq_engine_analyses_until_stop() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    // Before: `go infinite` searched the `--visits` budget and held its answer; `stop` could
    // only release it. Now the search runs until `stop`, and `isready` is answered during it.
    let mut engine = Command::new(XQ)
        .args(["engine", "--evaluator", "material", "--visits", "16"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = engine.stdin.take().unwrap();
    let (sender, answers) = std::sync::mpsc::channel();
    let output = engine.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let read_until = |prefix: &str| -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = answers.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("{lines:?}"));
            let done = line.starts_with(prefix);
            lines.push(line);
            if done {
                return lines;
            }
        }
    };
    writeln!(input, "uci").unwrap();
    read_until("uciok");
    writeln!(input, "position startpos\ngo infinite").unwrap();
    input.flush().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    writeln!(input, "isready").unwrap();
    input.flush().unwrap();
    let searching = read_until("readyok");
    assert!(!searching.iter().any(|l| l.starts_with("bestmove")), "{searching:?}");
    writeln!(input, "stop").unwrap();
    input.flush().unwrap();
    let answer = read_until("bestmove");
    let info = answer.iter().find(|l| l.starts_with("info depth")).unwrap();
    let nodes: u64 = info.split_whitespace().skip_while(|w| *w != "nodes").nth(1).unwrap().parse().unwrap();
    assert!(nodes > 16, "it searched past its visit budget until stop: {info}");
    writeln!(input, "quit").unwrap();
    drop(input);
    assert!(engine.wait().unwrap().success());
}

/// An engine that writes ranks 1–10 (Fairy-Stockfish's notation, here `xq engine
/// --coordinates fairy`) plays clean games when the event says so, and forfeits when it does
/// not: the notation is what the moves mean, not a cosmetic.
#[test]
fn xq_eval_speaks_an_engines_coordinates() {
    let dir = tempfile::tempdir().unwrap();
    let event = |coordinates: &str| {
        format!(
            r#"
name = "fairy coordinates"
seed = 4
concurrency = 1
[format]
kind = "gauntlet"
pairs = 1
[adjudication]
max_plies = 30
[[players]]
kind = "uci"
name = "ranks-from-one"
command = "{XQ}"
args = ["engine", "--evaluator", "material", "--visits", "8", "--coordinates", "fairy"]
variant = "xiangqi"
{coordinates}
nodes = 8
[[players]]
kind = "random"
name = "random"
"#
        )
    };
    for (name, coordinates, forfeits) in [
        ("implied", "", false),
        ("fairy", "coordinates = \"fairy\"", false),
        ("iccs", "coordinates = \"iccs\"", true),
    ] {
        let (run, out) = xq_testkit::run_xq_eval(XQ, dir.path(), name, "gauntlet", &event(coordinates));
        assert!(run.status.success(), "{name}: {}", String::from_utf8_lossy(&run.stderr));
        let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
        assert_eq!(journal.lines().count(), 2, "{name}");
        assert_eq!(journal.contains("forfeit"), forfeits, "{name}: {journal}");
    }
}
