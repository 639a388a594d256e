//! External engines, exercised against `xq-fake-engine` (built with this crate).

use std::time::{Duration, Instant};
use xq_core::{Color, GameResult, GameRules, Termination};
use xq_play::{
    Engine, EngineConfig, GameOptions, GameRecord, Opening, Player, PlayerError, Protocol, RandomPlayer,
    Score, SearchLimits, play_game,
};

const FAKE: &str = env!("CARGO_BIN_EXE_xq-fake-engine");

/// A config for the fake engine with short timeouts.
fn fake(protocol: Protocol, mode: &str) -> EngineConfig {
    let mut config = EngineConfig::new(FAKE, protocol);
    let dialect = if protocol == Protocol::Uci { "uci" } else { "ucci" };
    config.args = vec!["--protocol".into(), dialect.into(), "--mode".into(), mode.into()];
    config.startup_timeout = Duration::from_millis(2_000);
    config.ready_timeout = Duration::from_millis(1_000);
    config.move_margin = Duration::from_millis(300);
    config.search_timeout = Duration::from_millis(300);
    config.default_limits = SearchLimits::depth(1);
    config
}

fn options() -> GameOptions {
    GameOptions { max_plies: Some(30), seed: 4, ..GameOptions::default() }
}

/// The engine plays red against a random black.
fn engine_game(engine: &mut Engine) -> GameRecord {
    let mut black = RandomPlayer::new(1);
    play_game(engine, &mut black, &Opening::startpos(), GameRules::default(), &options())
}

#[test]
fn uci_game_completes() {
    let mut engine = Engine::start(fake(Protocol::Uci, "first")).unwrap();
    assert_eq!(engine.name(), "xq-fake-engine");
    let r = engine_game(&mut engine);
    assert_eq!(r.outcome.reason, Termination::MaxLength, "{:?}", r.note);
    assert_eq!(r.plies(), 30);
    let info = r.info[0].clone().unwrap();
    assert_eq!((info.depth, info.score), (Some(1), Some(Score::Centipawns(12))));
    // The engine played the first legal move every time.
    let game = r.replay().unwrap();
    for ply in (0..30).step_by(2) {
        assert_eq!(r.moves[ply], game.positions()[ply].legal_moves()[0]);
    }
}

#[test]
fn ucci_and_shifted_ranks_work() {
    let mut config = fake(Protocol::Ucci, "first");
    config.name = Some("eleeye".into());
    let mut engine = Engine::start(config).unwrap();
    assert_eq!(engine.name(), "eleeye");
    let r = engine_game(&mut engine);
    assert_eq!(r.outcome.reason, Termination::MaxLength, "{:?}", r.note);
    assert_eq!(r.info[0].as_ref().unwrap().score, Some(Score::Centipawns(12)));

    let mut config = fake(Protocol::Uci, "first");
    config.args.extend(["--rank-offset".into(), "1".into()]);
    config.rank_offset = 1;
    config.variant = Some("xiangqi".into());
    config.options = vec![("Threads".into(), "1".into())];
    let mut engine = Engine::start(config).unwrap();
    let r = engine_game(&mut engine);
    assert_eq!(r.outcome.reason, Termination::MaxLength, "{:?}", r.note);
}

fn assert_engine_lost(r: &GameRecord, reason: Termination, note_has: &str) {
    assert_eq!(
        (r.outcome.result, r.outcome.reason),
        (GameResult::loss_for(Color::Red), reason),
        "{:?}",
        r.note
    );
    let note = r.note.as_deref().unwrap_or_default();
    assert!(note.starts_with("red (xq-fake-engine) forfeits") && note.contains(note_has), "{note}");
}

#[test]
fn bad_answers_forfeit() {
    for (protocol, mode, note) in [
        (Protocol::Uci, "illegal", "illegal move"),
        (Protocol::Ucci, "illegal", "illegal move"),
        (Protocol::Uci, "garbage", "unparsable bestmove \"xyzzy\""),
        (Protocol::Uci, "nomove", "bestmove (none)"),
        (Protocol::Ucci, "nomove", "without a move"),
    ] {
        let mut engine = Engine::start(fake(protocol, mode)).unwrap();
        let r = engine_game(&mut engine);
        assert_engine_lost(&r, Termination::Forfeit, note);
        assert_eq!(r.plies(), 0);
    }
}

#[test]
fn crashes_forfeit_and_the_engine_restarts_for_the_next_game() {
    let mut engine = Engine::start(fake(Protocol::Uci, "crash-after:2")).unwrap();
    for _ in 0..2 {
        let r = engine_game(&mut engine);
        assert_engine_lost(&r, Termination::Forfeit, "crashed");
        assert_eq!(r.outcome.article, "4.1.10");
        // Two engine moves and two replies, then the crash on red's third turn.
        assert_eq!(r.plies(), 4);
    }
}

#[test]
fn hangs_lose_on_time_within_the_timeout() {
    let mut engine = Engine::start(fake(Protocol::Uci, "hang")).unwrap();
    for _ in 0..2 {
        let started = Instant::now();
        let r = engine_game(&mut engine);
        assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
        assert_engine_lost(&r, Termination::TimeForfeit, "no answer within 300ms");
        assert_eq!(r.outcome.article, "4.1.4");
    }
    // With a move time the wait is the move time plus the margin.
    let mut engine = Engine::start(fake(Protocol::Ucci, "slow:700")).unwrap();
    let mut black = RandomPlayer::new(1);
    let timed = GameOptions { red_limits: SearchLimits::movetime(Duration::from_millis(50)), ..options() };
    let r = play_game(&mut engine, &mut black, &Opening::startpos(), GameRules::default(), &timed);
    assert_engine_lost(&r, Termination::TimeForfeit, "350ms");
}

#[test]
fn slow_answers_within_the_time_are_fine() {
    let mut engine = Engine::start(fake(Protocol::Uci, "slow:20")).unwrap();
    let mut black = RandomPlayer::new(1);
    let timed = GameOptions {
        red_limits: SearchLimits::movetime(Duration::from_millis(10)),
        max_plies: Some(6),
        ..options()
    };
    let r = play_game(&mut engine, &mut black, &Opening::startpos(), GameRules::default(), &timed);
    assert_eq!(r.outcome.reason, Termination::MaxLength, "{:?}", r.note);
}

#[test]
fn engines_that_do_not_start_are_errors() {
    let started = Instant::now();
    let e = Engine::start(fake(Protocol::Uci, "mute")).err().unwrap();
    assert!(matches!(e, PlayerError::Timeout { .. }), "{e}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let e = Engine::start(EngineConfig::new("/nonexistent/engine", Protocol::Uci)).err().unwrap();
    assert!(matches!(e, PlayerError::Spawn { .. }), "{e}");
    let mut config = fake(Protocol::Uci, "first");
    config.args.push("--bogus".into());
    assert!(Engine::start(config).is_err());
}

#[test]
fn games_go_on_past_failing_engines() {
    let mut random = RandomPlayer::new(3);
    for game in 0..4u64 {
        // A crashed engine is started afresh for the next game, as the event runner does.
        let mut engine = Engine::start(fake(Protocol::Uci, "crash-after:1")).unwrap();
        let options = GameOptions { max_plies: Some(20), seed: 2 + game, ..GameOptions::default() };
        let (red, black): (&mut dyn Player, &mut dyn Player) =
            if game % 2 == 0 { (&mut engine, &mut random) } else { (&mut random, &mut engine) };
        let record = play_game(red, black, &Opening::startpos(), GameRules::default(), &options);
        assert_eq!(record.outcome.reason, Termination::Forfeit, "game {game}");
        let engine_color = if game % 2 == 0 { Color::Red } else { Color::Black };
        assert_eq!(record.outcome.result, GameResult::loss_for(engine_color));
    }
}
