//! The loop end to end on a tiny configuration: two generations leave valid shards, checkpoints,
//! a decided candidate and a report; a run stopped after one generation continues where it
//! stopped; a changed configuration is refused.

use std::path::Path;

use xq_eval::events::GateThreshold;
use xq_eval::runner::{Limits, PlayerSpec};
use xq_loop::{LadderSection, LoopConfig, LoopError, LoopOptions, ModelSearch, RunPaths, run_loop};

/// A loop small enough for a test: a few short self-play games, a few training steps, a
/// two-pair gate and a one-pair ladder, all at a handful of visits.
fn tiny_config(root: &Path) -> LoopConfig {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/loop-tiny.toml"))
        .expect("configs/loop-tiny.toml");
    let mut config = LoopConfig::from_toml(&text).expect("loop-tiny.toml parses");
    config.run.name = "test".into();
    config.run.generations = 2;
    config.run.time_budget_minutes = 0.0;
    config.run.data_root = root.join("data");
    config.run.models_root = root.join("models");
    config.selfplay.games = 4;
    config.bootstrap.games = 6;
    config.selfplay.concurrency = 4;
    config.selfplay.max_plies = 60;
    config.selfplay.games_per_shard = 2;
    config.selfplay.opening_book = String::new();
    config.search.visits = 8;
    config.train.train.steps = 4;
    config.train.train.checkpoint_every = 2;
    config.train.data.batch_size = 16;
    config.train.data.holdout_games = 3;
    config.validation.games = 4;
    config.gate.pairs = 1;
    config.gate.limits = Limits { visits: Some(4), ..Limits::default() };
    config.gate.max_plies = 40;
    config.gate.openings = 0;
    config.ladder.pairs = 1;
    config.ladder.limits = Limits { visits: Some(4), ..Limits::default() };
    config.ladder.opponents = vec![
        PlayerSpec::Greedy { name: "greedy".into() },
        PlayerSpec::Alphabeta {
            name: "alphabeta-d1".into(),
            depth: Some(1),
            nodes: None,
            movetime_ms: None,
            tc: None,
        },
    ];
    config.ladder.max_plies = 40;
    config.ladder.openings = 0;
    config
}

fn quiet() -> LoopOptions {
    LoopOptions { progress: false, max_generations_this_run: None }
}

fn checkpoint_in(dir: &Path) -> bool {
    xq_nn::resolve_checkpoint(dir).is_ok()
}

#[test]
fn two_generations_leave_shards_checkpoints_decisions_and_a_report() {
    let root = tempfile::tempdir().unwrap();
    let config = tiny_config(root.path());
    let paths = RunPaths::new(&config);

    // Stop after one generation, as a kill between generations would.
    let first = run_loop(&config, &LoopOptions { max_generations_this_run: Some(1), ..quiet() }).unwrap();
    assert_eq!(first.generations_this_run, 1);
    assert_eq!(first.state.generations.len(), 1);
    let gen0 = first.state.generations[0].clone();
    let bootstrap_player = config
        .bootstrap
        .teacher
        .map_or_else(|| config.selfplay.evaluator.name().to_string(), |teacher| teacher.model_id());

    // The same command continues with generation 1 and leaves generation 0 as it was.
    let second = run_loop(&config, &quiet()).unwrap();
    assert_eq!(second.generations_this_run, 1);
    let state = &second.state;
    assert_eq!(state.generations.len(), 2);
    assert_eq!(state.generations[0].selfplay, gen0.selfplay);
    assert_eq!(state.generations[0].train, gen0.train);
    assert_eq!(state.generations[0].gate, gen0.gate);

    for g in &state.generations {
        let selfplay = g.selfplay.as_ref().expect("self-play recorded");
        // Until a network is accepted the built-in evaluator plays the bootstrap's game count.
        let games = if g.player == bootstrap_player { 6 } else { 4 };
        assert_eq!(selfplay.games, games, "generation {}: {g:?}", g.generation);
        assert_eq!(selfplay.red_wins + selfplay.black_wins + selfplay.draws, games);
        assert_eq!(selfplay.terminations.values().sum::<u64>(), games);
        assert!(selfplay.positions >= games);
        let shards = config.run.data_root.join(&selfplay.dir);
        let games_read = xq_data::read_games_dir(&shards).unwrap();
        assert_eq!(games_read.rows.len() as u64, games);
        assert!(games_read.skipped.is_empty());
        let samples = xq_data::read_samples_dir(&shards).unwrap();
        assert_eq!(samples.rows.len() as u64, selfplay.positions);

        let train = g.train.as_ref().expect("training recorded");
        assert_eq!(train.steps, 4);
        // Scored on the fixed set (and on its generation's held-back games, when it has any).
        let fixed = train.validation.iter().find(|v| v.set == "fixed").expect("fixed set scored");
        assert_eq!(fixed.step, 4);
        assert_eq!(fixed.samples as u64, state.validation_set.as_ref().unwrap().positions);
        assert!(fixed.value_loss.is_finite() && fixed.draw_rate.value_loss.is_finite());
        let held_back = xq_data::read_games_dir(&shards)
            .unwrap()
            .rows
            .iter()
            .any(|game| xq_train::dataset::is_held_out(game.game_id, 3));
        assert_eq!(train.validation.iter().any(|v| v.set == "recent"), held_back);
        assert!(train.policy_loss.is_finite() && train.value_loss.is_finite());
        let gate = g.gate.as_ref().expect("gate recorded");
        assert_eq!(gate.wins + gate.draws + gate.losses, 2);
        let promoted = g.promoted.expect("candidate decided");
        assert_eq!(promoted, gate.verdict == "promote");
        let (kept, other) = if promoted {
            (paths.accepted(g.generation), paths.rejected(g.generation))
        } else {
            (paths.rejected(g.generation), paths.accepted(g.generation))
        };
        assert!(checkpoint_in(&kept), "{} holds the candidate", kept.display());
        assert!(!other.exists() && !paths.candidate(g.generation).exists());
        assert_eq!(g.ladder.is_some(), promoted);
    }
    // Generation 1's self-play is played by the accepted model, if generation 0 was promoted.
    let expected_player = if state.generations[0].promoted == Some(true) {
        state.generations[0].train.as_ref().unwrap().model_id.clone()
    } else {
        bootstrap_player.clone()
    };
    assert_eq!(state.generations[1].player, expected_player);
    assert!(state.baseline_ladder.is_some());
    let validation_set = state.validation_set.as_ref().expect("fixed validation set played");
    assert_eq!(validation_set.games, 4);
    assert!(validation_set.positions > 0);
    assert_eq!(xq_data::read_games_dir(&paths.validation()).unwrap().rows.len(), 4);

    let report = std::fs::read_to_string(paths.report()).unwrap();
    assert!(report.contains("| g000 |") && report.contains("| g001 |"), "{report}");
    assert!(paths.models.join("loss.svg").is_file());
    assert!(paths.models.join("elo.svg").is_file());
    for png in ["loss.png", "elo.png"] {
        let bytes = std::fs::read(paths.models.join(png)).unwrap();
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{png} is not a PNG");
    }
    assert!(paths.config().is_file());
    assert!(report.contains("## Validation"), "{report}");
    let csv = std::fs::read_to_string(paths.models.join("validation.csv")).unwrap();
    assert!(csv.lines().count() > 2 && csv.lines().skip(1).all(|l| l.split(',').count() == 13), "{csv}");

    // Nothing left to do: a third invocation changes nothing on disk.
    let saved = std::fs::read(paths.state()).unwrap();
    let third = run_loop(&config, &quiet()).unwrap();
    assert_eq!(third.generations_this_run, 0);
    assert_eq!(third.state.generations.len(), 2);
    assert_eq!(std::fs::read(paths.state()).unwrap(), saved);

    // A changed configuration is refused, naming the section.
    let mut changed = config.clone();
    changed.gate.pairs = 7;
    let err = run_loop(&changed, &quiet()).unwrap_err();
    assert!(matches!(err, LoopError::ConfigChanged { .. }), "{err}");
    assert!(err.to_string().contains("gate"), "{err}");
}

#[test]
fn unknown_keys_name_the_key() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/loop-tiny.toml"))
        .unwrap();
    let err = LoopConfig::from_toml(&text.replace("[gate]", "[gate]\nvisitz = 3")).unwrap_err();
    assert!(err.to_string().contains("visitz"), "{err}");
    let bad = text.replace("[ladder]", "[ladder]\nopponents = 3");
    let err = LoopConfig::from_toml(&bad).unwrap_err();
    assert!(err.to_string().contains("opponents"), "{err}");
}

#[test]
fn shipped_loop_configs_parse() {
    for name in ["loop-tiny", "loop-small", "loop-gpu"] {
        let path = format!("{}/../../configs/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        LoopConfig::load(Path::new(&path)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn a_teacher_plays_the_bootstrap_generations() {
    let root = tempfile::tempdir().unwrap();
    let mut config = tiny_config(root.path());
    config.run.generations = 1;
    config.bootstrap.teacher = Some(xq_selfplay::TeacherConfig { depth: 1, random_move_probability: 0.5 });
    let summary = run_loop(&config, &quiet()).unwrap();
    let g0 = &summary.state.generations[0];
    assert_eq!(g0.player, "alphabeta-d1");
    let selfplay = g0.selfplay.as_ref().unwrap();
    assert_eq!(selfplay.games, 6, "the bootstrap's game count");
    let samples = xq_data::read_samples_dir(&config.run.data_root.join(&selfplay.dir)).unwrap();
    assert!(samples.rows.iter().all(|s| s.model_id == "alphabeta-d1" && s.policy.len() == 1));
    assert!(g0.train.is_some() && g0.promoted.is_some());
    let validation = xq_data::read_samples_dir(&RunPaths::new(&config).validation()).unwrap();
    assert!(
        validation.rows.iter().all(|s| s.model_id == "alphabeta-d1"),
        "the teacher plays the fixed set too"
    );

    let mut bad = config.clone();
    bad.bootstrap.teacher = Some(xq_selfplay::TeacherConfig { depth: 0, random_move_probability: 0.5 });
    let err = bad.validate().unwrap_err();
    assert!(err.to_string().contains("bootstrap.teacher"), "{err}");

    // `xq loop --generations 2` extends the finished run: generation 0 stays as it was, one
    // more is played, and the saved configuration records the new count. Before, the changed
    // count was refused as a changed configuration.
    let mut extended = config.clone();
    extended.run.generations = 2;
    let more = run_loop(&extended, &quiet()).unwrap();
    assert_eq!(more.generations_this_run, 1);
    assert_eq!(more.state.generations.len(), 2);
    assert_eq!(more.state.generations[0].selfplay, summary.state.generations[0].selfplay);
    assert_eq!(more.state.generations[0].train, summary.state.generations[0].train);
    let saved = std::fs::read_to_string(RunPaths::new(&config).config()).unwrap();
    assert_eq!(LoopConfig::from_toml(&saved).unwrap().run.generations, 2);
}

#[test]
fn the_teacher_keeps_playing_after_the_first_promotion_when_asked() {
    let root = tempfile::tempdir().unwrap();
    let mut config = tiny_config(root.path());
    config.bootstrap.teacher = Some(xq_selfplay::TeacherConfig { depth: 1, random_move_probability: 0.5 });
    config.bootstrap.games_after_promotion = 3;
    // Every candidate is promoted, so generation 1 is played by a network.
    config.gate.threshold = GateThreshold::Score { min: 0.0 };
    let summary = run_loop(&config, &quiet()).unwrap();
    let [g0, g1] = &summary.state.generations[..] else { panic!("two generations") };
    assert_eq!(g0.player, "alphabeta-d1");
    assert!(g0.teacher.is_none(), "before the first promotion the teacher plays the self-play itself");
    assert_ne!(g1.player, "alphabeta-d1", "a network plays generation 1");
    let teacher = g1.teacher.as_ref().expect("the teacher's games of generation 1");
    assert_eq!(teacher.games, 3);
    let samples = xq_data::read_samples_dir(&config.run.data_root.join(&teacher.dir)).unwrap();
    assert_eq!(samples.rows.len() as u64, teacher.positions);
    assert!(samples.rows.iter().all(|s| s.model_id == "alphabeta-d1"));
    assert_eq!(g1.selfplay.as_ref().unwrap().games, 4, "the network's own self-play is unchanged");
    let report = std::fs::read_to_string(RunPaths::new(&config).report()).unwrap();
    assert!(report.contains("alphabeta-d1 (teacher)"), "{report}");
}

#[test]
fn the_final_rating_rates_the_last_accepted_model_once_the_run_is_over() {
    let root = tempfile::tempdir().unwrap();
    let mut config = tiny_config(root.path());
    config.run.generations = 1;
    // Every candidate is promoted, so the run has a model to rate.
    config.gate.threshold = GateThreshold::Score { min: 0.0 };
    config.final_rating = LadderSection {
        pairs: 2,
        limits: Limits { visits: Some(4), ..Limits::default() },
        opponents: vec![
            PlayerSpec::Random { name: "random".into() },
            PlayerSpec::Greedy { name: "greedy".into() },
        ],
        max_plies: 40,
        openings: 0,
        threshold: Some(GateThreshold::Score { min: 0.5 }),
        model_search: Some(ModelSearch { leaves_per_step: Some(4), precision: None }),
        ..LadderSection::default()
    };
    let paths = RunPaths::new(&config);

    // An invocation that stops before the run is over rates nothing.
    let cut = run_loop(&config, &LoopOptions { max_generations_this_run: Some(0), ..quiet() }).unwrap();
    assert!(cut.state.final_rating.is_none());

    let summary = run_loop(&config, &quiet()).unwrap();
    assert_eq!(summary.state.generations[0].promoted, Some(true));
    let record = summary.state.final_rating.as_ref().expect("the run is over: its model is rated");
    assert_eq!(record.generation, 0);
    assert_eq!(record.section, config.final_rating);
    let rating = record.rating.as_ref().expect("rating finished");
    let names: Vec<&str> = rating.opponents.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["random", "greedy"]);
    assert_eq!(rating.beats.len(), 2, "one verdict per opponent");
    for ((name, [w, d, l]), beaten) in rating.opponents.iter().zip(&rating.beats) {
        assert_eq!(w + d + l, 4, "{name}: two pairs");
        let score = (*w as f64 + 0.5 * *d as f64) / 4.0;
        assert_eq!(*beaten, score >= 0.5, "{name}: +{w}={d}-{l}");
    }
    let model_speed = rating.speed.iter().find(|p| p.name == rating.model).expect("the model's speed");
    assert!(model_speed.moves > 0 && model_speed.nodes_per_move.is_some_and(|n| n > 0.0), "{model_speed:?}");
    let report = std::fs::read_to_string(paths.report()).unwrap();
    assert!(report.contains("## Final rating") && report.contains("| greedy | 4 |"), "{report}");
    // The model searched as `model_search` says, the run's self-play as before.
    let event = xq_eval::runner::RunConfig::load(&paths.ladder("final-g000")).unwrap();
    assert_eq!(event.players[0].search().unwrap().leaves_per_step, 4);
    assert_eq!(config.search.leaves_per_step, 1);

    // Nothing left to do: the next invocation changes nothing on disk.
    let saved = std::fs::read(paths.state()).unwrap();
    run_loop(&config, &quiet()).unwrap();
    assert_eq!(std::fs::read(paths.state()).unwrap(), saved);

    // Another final section is not another run: the finished run's model is rated again.
    let mut one_pair = config.clone();
    one_pair.final_rating.pairs = 1;
    let again = run_loop(&one_pair, &quiet()).unwrap();
    assert_eq!(again.generations_this_run, 0);
    let rating = again.state.final_rating.as_ref().and_then(|r| r.rating.as_ref()).unwrap();
    assert!(rating.opponents.iter().all(|(_, [w, d, l])| w + d + l == 2), "{rating:?}");
}

#[test]
fn a_ladder_with_a_scale_places_each_accepted_model_on_it_and_plots_it_over_hours() {
    let root = tempfile::tempdir().unwrap();
    // A small scale of its own: three quick anchors a few games apart.
    let scale_config = xq_eval::scale::ScaleConfig::from_toml(
        r#"
        name = "test-scale"
        seed = 5
        pin = "greedy"
        pin_elo = 1000
        pairs = 2
        [adjudication]
        max_plies = 40
        [[anchors]]
        kind = "random"
        name = "random"
        [[anchors]]
        kind = "greedy"
        name = "greedy"
        [[anchors]]
        kind = "alphabeta"
        name = "alphabeta-d1"
        depth = 1
        "#,
    )
    .unwrap();
    let options = xq_eval::scale::PlayOptions { concurrency: Some(2), max_new_games: None };
    let calibration = xq_eval::scale::calibrate(
        &scale_config,
        &root.path().join("scale"),
        &options,
        "test",
        "",
        &mut |_| {},
    )
    .unwrap();
    let scale_file = root.path().join("scale.json");
    calibration.scale.save(&scale_file).unwrap();

    let mut config = tiny_config(root.path());
    config.run.generations = 1;
    config.gate.threshold = GateThreshold::Score { min: 0.0 };
    let section = xq_loop::ScaleRating {
        file: scale_file.clone(),
        pairs_per_step: 1,
        target_half_width: 50.0,
        max_games: 4,
    };
    config.ladder.scale = Some(section.clone());
    let paths = RunPaths::new(&config);
    let summary = run_loop(&config, &quiet()).unwrap();
    assert_eq!(summary.state.generations[0].promoted, Some(true));
    for ladder in [summary.state.baseline_ladder.as_ref(), summary.state.generations[0].ladder.as_ref()] {
        let ladder = ladder.expect("rated");
        let rating = ladder.scale.as_ref().expect("placed on the scale");
        assert_eq!(rating.scale, "test-scale");
        let placement = rating.placement.as_ref().expect("games were played");
        assert_eq!(placement.wdl.games(), 4, "max_games, the interval being wider than 50");
        assert!(placement.elo.is_finite() && placement.half_width > 0.0, "{placement:?}");
        assert!(rating.steps.iter().all(|s| calibration.scale.anchor(&s.anchor).is_some()), "{rating:?}");
    }
    let report = std::fs::read_to_string(paths.report()).unwrap();
    assert!(
        report.contains("| scale Elo |") && report.contains("(4 games, wider than its target)"),
        "{report}"
    );
    for chart in ["elo.svg", "elo-hours.svg"] {
        let svg = std::fs::read_to_string(paths.models.join(chart)).unwrap();
        assert!(svg.contains("on the scale test-scale"), "{chart}");
    }

    // A scale file that is not there is a clear error, not a panic.
    let mut missing = tiny_config(&root.path().join("other"));
    missing.run.generations = 1;
    missing.ladder.scale = Some(xq_loop::ScaleRating { file: root.path().join("nowhere.json"), ..section });
    let err = run_loop(&missing, &quiet()).unwrap_err();
    assert!(
        err.to_string().contains("ladder.scale: the scale") && err.to_string().contains("nowhere.json"),
        "{err}"
    );
    assert!(!RunPaths::new(&missing).state().exists(), "refused before anything ran");
}
