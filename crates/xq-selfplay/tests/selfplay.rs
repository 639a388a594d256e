//! Self-play end to end: reproducible files, kill-and-resume, and results that xq-core
//! confirms on replay.

use std::collections::BTreeMap;
use std::path::Path;
use xq_core::{Game, GameResult, Position, Termination};
use xq_data::{GameRecord, read_games_dir, read_samples_dir};
use xq_mcts::MaterialEvaluator;
use xq_selfplay::{SelfplayConfig, SelfplayRun, run_selfplay};

fn tiny_config() -> SelfplayConfig {
    let text = r#"
[selfplay]
games = 6
concurrency = 3
seed = 7
evaluator = "material"
max_plies = 120
games_per_shard = 2
[selfplay.resign]
enabled = true
min_ply = 10
no_resign_fraction = 0.5
[search]
algorithm = "gumbel"
visits = 16
gumbel_m = 4
full_search_probability = 0.5
fast_visits = 4
"#;
    SelfplayConfig::from_toml(text, Path::new("test.toml")).unwrap()
}

fn run(config: &SelfplayConfig, dir: &Path, stop_after_shards: Option<u64>) -> xq_selfplay::Summary {
    let run = SelfplayRun {
        out_dir: dir.to_path_buf(),
        model_id: "material".into(),
        openings: Vec::new(),
        progress: false,
        stop_after_shards,
    };
    run_selfplay(config, &mut MaterialEvaluator::default(), &run).unwrap()
}

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

fn games_by_id(dir: &Path) -> BTreeMap<u64, GameRecord> {
    let contents = read_games_dir(dir).unwrap();
    assert!(contents.skipped.is_empty());
    let mut map = BTreeMap::new();
    for g in contents.rows {
        assert!(map.insert(g.game_id, g).is_none(), "a game was written twice");
    }
    map
}

#[test]
fn the_same_seed_gives_identical_files() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let config = tiny_config();
    run(&config, a.path(), None);
    run(&config, b.path(), None);
    let (fa, fb) = (files(a.path()), files(b.path()));
    assert!(fa.keys().any(|k| k.starts_with("samples-")));
    assert_eq!(fa, fb);
    let mut other = config.clone();
    other.selfplay.seed = 8;
    let c = tempfile::tempdir().unwrap();
    run(&other, c.path(), None);
    assert_ne!(games_by_id(a.path()), games_by_id(c.path()));
}

#[test]
fn games_that_end_in_the_same_round_are_all_written() {
    // Every game is cut at the same ply, so all of them finish together: more than one shard's
    // worth at once, which must all reach the disk.
    let mut config = tiny_config();
    config.selfplay.games = 5;
    config.selfplay.concurrency = 5;
    config.selfplay.max_plies = 12;
    config.selfplay.resign.enabled = false;
    let dir = tempfile::tempdir().unwrap();
    let summary = run(&config, dir.path(), None);
    assert_eq!(summary.games_played, 5);
    let games = games_by_id(dir.path());
    assert_eq!(games.keys().copied().collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
    let samples = xq_data::read_samples_dir(dir.path()).unwrap().rows;
    assert_eq!(samples.len() as u64, summary.positions);

    // The evaluator's share of the time: every searched move sent at least one position and
    // at most a full search's visits plus its root; one game's leaf per round and slot.
    let moves = summary.positions;
    assert!(summary.evaluations >= moves, "{} evaluations for {moves} moves", summary.evaluations);
    assert!(summary.evaluations <= moves * 17, "{} evaluations for {moves} moves", summary.evaluations);
    assert!(
        summary.mean_batch() >= 1.0 && summary.mean_batch() <= 5.0,
        "mean batch {}",
        summary.mean_batch()
    );
    assert!(summary.evaluator_seconds > 0.0 && summary.evaluator_seconds <= summary.seconds);
    let outside = summary.outside_evaluator_share();
    assert!((0.0..=1.0).contains(&outside), "{outside}");
    assert!(summary.to_string().contains("outside it"), "{summary}");
}

#[test]
fn a_killed_run_resumes_without_losing_or_repeating_games() {
    let config = tiny_config();
    let whole = tempfile::tempdir().unwrap();
    run(&config, whole.path(), None);

    let resumed = tempfile::tempdir().unwrap();
    let first = run(&config, resumed.path(), Some(1));
    assert!(first.interrupted);
    assert!(games_by_id(resumed.path()).len() < 6);
    // An interrupted shard write: a samples shard whose games shard never appeared.
    let orphan = resumed.path().join(xq_data::shard_file_name("samples", 99));
    std::fs::copy(resumed.path().join(xq_data::shard_file_name("samples", 0)), &orphan).unwrap();
    let second = run(&config, resumed.path(), None);
    assert_eq!(second.games_before + second.games_played, 6);
    assert!(!orphan.exists(), "the orphaned samples shard is removed");

    assert_eq!(games_by_id(whole.path()), games_by_id(resumed.path()));
    let count = |dir: &Path| read_samples_dir(dir).unwrap().rows.len();
    assert_eq!(count(whole.path()), count(resumed.path()));
}

#[test]
fn every_game_replays_legally_and_its_result_is_the_rules_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let config = tiny_config();
    let summary = run(&config, dir.path(), None);
    assert_eq!(summary.games_played, 6);
    let rules = config.rules;
    let samples = read_samples_dir(dir.path()).unwrap().rows;
    for record in games_by_id(dir.path()).values() {
        let start = Position::from_fen(&record.start_fen).unwrap();
        let mut game = Game::new(start, rules);
        for &m in &record.moves {
            assert!(game.outcome().is_none(), "game {} went on after it ended", record.game_id);
            game.play(m).unwrap();
        }
        match record.termination {
            Termination::Resignation | Termination::MaxLength => assert!(game.outcome().is_none()),
            _ => {
                let o = game.outcome().expect("the rules end the game");
                assert_eq!(
                    (o.result, o.reason, o.article),
                    (record.result, record.termination, record.article.as_str())
                );
            }
        }
        assert_eq!(record.moves_chinese.len(), record.moves.len());
        assert_eq!(record.moves_wxf.len(), record.moves.len());
        // Every sample of the game carries the game's result from its mover's view.
        for s in samples.iter().filter(|s| s.game_id == record.game_id) {
            assert_eq!(s.result, record.result.score_for(s.side_to_move));
            let pos = s.position().unwrap();
            assert!(pos.is_legal(s.move_played));
            let total: f32 = s.policy.iter().map(|(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-3, "policy sums to {total}");
        }
    }
    let decisive = summary.red_wins + summary.black_wins;
    assert_eq!(decisive + summary.draws, 6);
    let _ = GameResult::Draw;
}

/// A case of `data/qili/cases.json`: a book position, its repeating cycle (ICCS) and the
/// book's verdict under the seeds' rules (the `cxa` rule set).
struct QiliCase {
    fen: String,
    cycle: Vec<String>,
    verdict: String,
}

fn qili_case(id: &str) -> QiliCase {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/qili/cases.json");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let case = json["cases"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap();
    assert_eq!(case["cycle_start_ply"], 0, "{id}: the cycle starts at the book position");
    QiliCase {
        fen: case["fen"].as_str().unwrap().to_string(),
        cycle: case["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect(),
        verdict: case["verdict_seed_rules"].as_str().unwrap().to_string(),
    }
}

/// Self-play from the book position of `case` with an opening that plays its cycle once and
/// then all of it again but the last move, so the position of the case occurs for the third
/// time when the side that does nothing forbidden completes the cycle — a move the search
/// sees end the game in its favour. Returns the one game written and its samples.
fn play_into_repetition(case: &QiliCase) -> (GameRecord, Vec<xq_data::Sample>) {
    let text = r#"
[selfplay]
games = 1
concurrency = 1
seed = 5
evaluator = "material"
max_plies = 40
games_per_shard = 1
[search]
algorithm = "puct"
visits = 64
dirichlet_fraction = 0.0
temperature_plies = 0
"#;
    let config = SelfplayConfig::from_toml(text, Path::new("repetition.toml")).unwrap();
    let mut moves: Vec<&str> = case.cycle.iter().chain(&case.cycle).map(String::as_str).collect();
    moves.pop();
    let opening = xq_play::Opening::new("book cycle", &case.fen, &moves).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = SelfplayRun {
        out_dir: dir.path().to_path_buf(),
        model_id: "material".into(),
        openings: vec![opening],
        progress: false,
        stop_after_shards: None,
    };
    run_selfplay(&config, &mut MaterialEvaluator::default(), &run).unwrap();
    let mut games = games_by_id(dir.path());
    assert_eq!(games.len(), 1);
    let record = games.remove(&0).unwrap();
    (record, read_samples_dir(dir.path()).unwrap().rows)
}

/// Checks a game ended by the repetition of `case`: the record's result, reason and article
/// are what xq-core's 棋例 judge says of the cycle on replay, that is the book's verdict, and
/// every sample is labelled with it.
fn assert_adjudicated_as_the_book_says(
    case: &QiliCase,
    record: &GameRecord,
    samples: &[xq_data::Sample],
    reason: Termination,
) {
    let cycle = case.cycle.len();
    assert_eq!(record.moves.len(), 2 * cycle, "the game ends as the cycle completes twice");
    let played: Vec<String> = record.moves.iter().map(|m| m.iccs()).collect();
    assert_eq!(played[cycle..], case.cycle[..], "the search completed the cycle");
    let book = match case.verdict.as_str() {
        "red_loses" => GameResult::loss_for(xq_core::Color::Red),
        "black_loses" => GameResult::loss_for(xq_core::Color::Black),
        other => panic!("a decisive case, not {other}"),
    };
    assert_eq!((record.result, record.termination), (book, reason));

    // The judge's own verdict on the second cycle, from the replayed positions.
    let rules = xq_core::GameRules::default();
    let mut game = Game::new(Position::from_fen(&record.start_fen).unwrap(), rules);
    for &m in &record.moves {
        game.play(m).unwrap();
    }
    let judgement = xq_core::qili::judge(game.positions(), game.moves(), cycle, rules.rule_set);
    assert_eq!(judgement.outcome.result, record.result);
    assert_eq!(judgement.outcome.reason, record.termination);
    assert_eq!(judgement.outcome.article, record.article);
    assert_eq!(judgement.outcome.must_vary, record.must_vary);
    assert_eq!(game.outcome(), Some(judgement.outcome));

    // Samples start after the opening: only the completing move was searched.
    assert_eq!(samples.len(), 1);
    for s in samples {
        assert_eq!((s.termination, s.article.as_str()), (reason, record.article.as_str()));
        assert_eq!(s.result, record.result.score_for(s.side_to_move));
        assert_eq!(s.result, 1, "the side that completes the cycle is the one that wins");
    }
}

#[test]
fn a_perpetual_check_in_the_data_set_is_a_loss_for_the_checker() {
    // Figure 6 of the 2020 rulebook: red's rook checks on every move, black's king steps
    // aside each time; red must vary and loses.
    let case = qili_case("CXA2020-fig06");
    let (record, samples) = play_into_repetition(&case);
    assert_adjudicated_as_the_book_says(&case, &record, &samples, Termination::PerpetualCheck);
    assert_eq!(record.must_vary, Some(xq_core::Color::Red));
}

#[test]
fn a_perpetual_chase_in_the_data_set_is_a_loss_for_the_chaser() {
    // Figure 15 of the 2020 rulebook: red chases on every move, black's replies are idle;
    // red must vary and loses.
    let case = qili_case("CXA2020-fig15");
    let (record, samples) = play_into_repetition(&case);
    assert_adjudicated_as_the_book_says(&case, &record, &samples, Termination::PerpetualChase);
    assert_eq!(record.must_vary, Some(xq_core::Color::Red));
}
