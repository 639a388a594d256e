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
concurrent_games = 3
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
simulations = 16
gumbel_m = 4
full_search_probability = 0.5
fast_simulations = 4
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
    let rules = config.rules.game_rules().unwrap();
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
