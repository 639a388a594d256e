//! Teacher games: the same seed gives the same files whatever the thread count, a killed run
//! resumes to the same games, and every sample's target is the teacher's legal move with the
//! game's result.

use std::collections::BTreeMap;
use std::path::Path;
use xq_core::{Game, Position};
use xq_data::{read_games_dir, read_samples_dir};
use xq_selfplay::{SelfplayConfig, SelfplayRun, TeacherConfig, run_teacher_selfplay};

fn config() -> SelfplayConfig {
    let text = r#"
[selfplay]
games = 6
seed = 11
max_plies = 80
games_per_shard = 2
[selfplay.resign]
enabled = true
min_ply = 10
no_resign_fraction = 0.5
[search]
temperature_plies = 12
"#;
    SelfplayConfig::from_toml(text, Path::new("teacher.toml")).unwrap()
}

const TEACHER: TeacherConfig = TeacherConfig { depth: 2, random_move_probability: 0.3 };

fn play(dir: &Path, threads: usize, stop_after_shards: Option<u64>) -> xq_selfplay::Summary {
    let run = SelfplayRun {
        out_dir: dir.to_path_buf(),
        model_id: TEACHER.model_id(),
        openings: Vec::new(),
        progress: false,
        stop_after_shards,
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| run_teacher_selfplay(&config(), &TEACHER, &run)).unwrap()
}

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

#[test]
fn same_seed_same_files_whatever_the_threads_and_a_kill_loses_nothing() {
    let root = tempfile::tempdir().unwrap();
    let (one, two, killed) = (root.path().join("one"), root.path().join("two"), root.path().join("killed"));
    let summary = play(&one, 1, None);
    assert_eq!(summary.games_played, 6);
    assert_eq!(
        (summary.evaluations, summary.outside_evaluator_share()),
        (0, 0.0),
        "no evaluator in teacher games"
    );
    play(&two, 2, None);
    assert_eq!(files(&one), files(&two));

    let first = play(&killed, 2, Some(1));
    assert!(first.interrupted);
    assert_eq!(read_games_dir(&killed).unwrap().rows.len(), 2);
    let rest = play(&killed, 2, None);
    assert_eq!(rest.games_played, 4);
    assert_eq!(files(&one), files(&killed));
}

#[test]
fn samples_target_the_teachers_move_and_carry_the_result() {
    let root = tempfile::tempdir().unwrap();
    play(root.path(), 2, None);
    let games = read_games_dir(root.path()).unwrap().rows;
    let samples = read_samples_dir(root.path()).unwrap().rows;
    assert_eq!(games.len(), 6);
    let mut random_moves = 0;
    for record in &games {
        // The record replays, and its result is what xq-core or the adjudication says.
        let mut game = Game::new(Position::startpos(), config().rules);
        for &mv in &record.moves {
            game.play(mv).unwrap();
        }
        if let Some(outcome) = game.outcome() {
            assert_eq!(outcome.result, record.result);
        }
        let own: Vec<_> = samples.iter().filter(|s| s.game_id == record.game_id).collect();
        assert_eq!(own.len(), record.moves.len() + usize::from(record.termination.name() == "resignation"));
        for (ply, sample) in own.iter().enumerate() {
            assert_eq!(sample.ply as usize, ply);
            assert_eq!(sample.model_id, "alphabeta-d2");
            assert_eq!(sample.policy.len(), 1);
            let (target, p) = sample.policy[0];
            assert_eq!(p, 1.0);
            let position = sample.position().unwrap();
            assert!(position.legal_moves().contains(&target));
            if ply < record.moves.len() {
                assert_eq!(sample.move_played, record.moves[ply]);
            }
            if sample.move_played != target {
                random_moves += 1;
                assert!(ply < 12, "random moves only in the first temperature_plies plies");
            }
            assert_eq!(sample.result, record.result.score_for(sample.side_to_move));
            let root: f32 = sample.root_wdl.iter().sum();
            assert!((root - 1.0).abs() < 1e-5, "{:?}", sample.root_wdl);
        }
    }
    assert!(random_moves > 0, "some opening moves are random");
}
