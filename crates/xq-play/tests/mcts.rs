//! The MCTS player: reproducible games, the visit budget, and play against a baseline.

use xq_core::GameRules;
use xq_mcts::{MaterialEvaluator, SearchParams, UniformEvaluator};
use xq_play::{GameOptions, MctsPlayer, Opening, Player, RandomPlayer, SearchLimits, play_game};

fn material(visits: u32) -> MctsPlayer {
    MctsPlayer::new(
        "mcts",
        Box::new(MaterialEvaluator::default()),
        SearchParams { visits, ..SearchParams::default() },
    )
    .unwrap()
}

#[test]
fn same_seed_same_game_and_visits_as_asked() {
    let options = GameOptions { max_plies: Some(40), seed: 11, ..GameOptions::default() };
    let play = |opts: &GameOptions| {
        let (mut a, mut b) = (material(24), RandomPlayer::new(5));
        play_game(&mut a, &mut b, &Opening::startpos(), GameRules::default(), opts)
    };
    let first = play(&options);
    assert_eq!(first.moves, play(&options).moves);
    // Every one of the MCTS player's moves reports the fixed budget.
    for info in first.info.iter().step_by(2).flatten() {
        assert_eq!(info.visits, Some(24));
    }
    // The runner's visits limit overrides the player's own budget.
    let limited = GameOptions { red_limits: SearchLimits::visits(8), ..options };
    let record = play(&limited);
    assert!(record.info.iter().step_by(2).flatten().all(|i| i.visits == Some(8)));
}

#[test]
fn a_player_reused_across_games_repeats_itself() {
    // Tree reuse must not leak from one game into the next.
    let options = GameOptions { max_plies: Some(30), seed: 2, ..GameOptions::default() };
    let mut mcts = material(16);
    let mut random = RandomPlayer::new(1);
    let a = play_game(&mut mcts, &mut random, &Opening::startpos(), GameRules::default(), &options);
    let b = play_game(&mut mcts, &mut random, &Opening::startpos(), GameRules::default(), &options);
    assert_eq!(a.moves, b.moves);
    let fresh = play_game(
        &mut material(16),
        &mut RandomPlayer::new(1),
        &Opening::startpos(),
        GameRules::default(),
        &options,
    );
    assert_eq!(a.moves, fresh.moves);
}

#[test]
fn material_search_beats_random() {
    let mut points = 0.0;
    for seed in 0..4u64 {
        let options = GameOptions { max_plies: Some(160), seed, ..GameOptions::default() };
        let (mut mcts, mut random) = (material(64), RandomPlayer::new(seed));
        let red = seed % 2 == 0;
        let record = if red {
            play_game(&mut mcts, &mut random, &Opening::startpos(), GameRules::default(), &options)
        } else {
            play_game(&mut random, &mut mcts, &Opening::startpos(), GameRules::default(), &options)
        };
        let colour = if red { xq_core::Color::Red } else { xq_core::Color::Black };
        points += f64::from(record.outcome.result.score_for(colour) + 1) / 2.0;
    }
    assert!(points >= 3.0, "MCTS with a material evaluator scored {points}/4 against random");
}

#[test]
fn uniform_evaluator_plays_legal_games() {
    let mut p = MctsPlayer::new(
        "u",
        Box::new(UniformEvaluator),
        SearchParams { visits: 8, ..SearchParams::default() },
    )
    .unwrap();
    assert_eq!(p.name(), "u");
    let options = GameOptions { max_plies: Some(20), seed: 4, ..GameOptions::default() };
    let record =
        play_game(&mut p, &mut RandomPlayer::new(3), &Opening::startpos(), GameRules::default(), &options);
    assert!(record.replay().is_ok());
    assert!(
        MctsPlayer::new(
            "bad",
            Box::new(UniformEvaluator),
            SearchParams { visits: 0, ..SearchParams::default() }
        )
        .is_err()
    );
}

#[test]
fn a_timed_puct_search_uses_its_whole_move_time() {
    // Before: the visit budget of a timed search was the last moves' speed times the time, so a
    // search that ran faster or slower than its estimate stopped at a third of its time
    // (`xq engine --evaluator material` answered `go movetime 100` after 37 ms). The search
    // now runs to its deadline: each move takes at least its time less the small safety margin
    // (5 ms), however loaded the machine; only the upper end depends on the load.
    let movetime = std::time::Duration::from_millis(40);
    let options = GameOptions {
        max_plies: Some(12),
        seed: 4,
        red_limits: SearchLimits::movetime(movetime),
        black_limits: SearchLimits::movetime(movetime),
        ..GameOptions::default()
    };
    let (mut a, mut b) = (material(200), material(200));
    let record = play_game(&mut a, &mut b, &Opening::startpos(), GameRules::default(), &options);
    assert_eq!(record.plies(), 12, "{:?}", record.outcome);
    for info in record.info.iter().flatten() {
        assert!(info.time >= movetime - std::time::Duration::from_millis(6), "{:?}", info.time);
        // The player's 200 visits are not a cap under a move time.
        assert!(info.visits.is_some_and(|v| v > 200), "{:?}", info.visits);
    }
}
