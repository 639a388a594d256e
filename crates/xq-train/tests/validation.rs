//! Validation sets: held-back games never reach training, every checkpoint is scored on the
//! fixed and held-back sets with their baselines, a resumed run scores the same, and the
//! root-Q blend of the value target.

mod common;

use std::path::Path;
use xq_nn::{ModelConfig, TrunkNorm};
use xq_train::dataset::{Selection, is_held_out};
use xq_train::validation::{RECENT_SET, read_scores};
use xq_train::{DataSection, Dataset, TrainConfig, TrainRun, ValidationSet, train};

fn config() -> TrainConfig {
    let mut model = ModelConfig::new(1, 8).with_trunk_norm(TrunkNorm::SkipInit);
    model.seed = 5;
    let mut config = TrainConfig::new(model);
    config.data.batch_size = 16;
    config.data.holdout_games = 4;
    config.train.steps = 6;
    config.train.checkpoint_every = 3;
    config.train.log_every = 3;
    config
}

#[test]
fn held_back_games_never_train_and_form_the_recent_set() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let samples = common::synthetic_samples(3, 40, 6);
    common::write_shards(&data_dir, &samples, 50);
    let data = DataSection { holdout_games: 4, ..DataSection::default() };
    let held: Vec<u64> = (0..40).filter(|&g| is_held_out(g, 4)).collect();
    assert!(!held.is_empty() && held.len() < 40, "one game in about four is held back: {held:?}");
    let held_samples = samples.iter().filter(|s| held.contains(&s.game_id)).count();

    let training = Dataset::load(std::slice::from_ref(&data_dir), &data).unwrap();
    assert_eq!(training.len(), samples.len() - held_samples);
    assert_eq!(training.dropped, held_samples);
    let recent = ValidationSet::held_out(&data_dir, &data).unwrap().unwrap();
    assert_eq!(recent.len(), held_samples);
    assert_eq!(recent.name, RECENT_SET);
    let every = Dataset::load_selected(std::slice::from_ref(&data_dir), &data, Selection::All).unwrap();
    assert_eq!(every.len(), samples.len());

    // Without a holdout nothing is held back, and there is no recent set.
    let none = DataSection::default();
    assert_eq!(Dataset::load(std::slice::from_ref(&data_dir), &none).unwrap().len(), samples.len());
    assert!(ValidationSet::held_out(&data_dir, &none).unwrap().is_none());
}

fn run(data: &Path, fixed: &Path, out: &Path) -> TrainRun {
    TrainRun {
        data_dirs: vec![data.to_path_buf()],
        out_dir: out.to_path_buf(),
        validation_dirs: vec![fixed.to_path_buf()],
        ..TrainRun::default()
    }
}

#[test]
fn every_checkpoint_is_scored_and_a_resumed_run_scores_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let (data, fixed) = (dir.path().join("data"), dir.path().join("fixed"));
    common::write_shards(&data, &common::synthetic_samples(7, 24, 8), 64);
    common::write_shards(&fixed, &common::synthetic_samples(8, 10, 8), 64);
    let config = config();

    let whole = train(&config, &run(&data, &fixed, &dir.path().join("whole"))).unwrap();
    let scores = read_scores(&dir.path().join("whole").join("validation.csv")).unwrap();
    let keys: Vec<(u64, &str)> = scores.iter().map(|s| (s.step, s.set.as_str())).collect();
    assert_eq!(keys, [(3, "fixed"), (3, RECENT_SET), (6, "fixed"), (6, RECENT_SET)]);
    assert_eq!(whole.validation, scores[2..].to_vec(), "the summary carries the final checkpoint's scores");
    let fixed_set = ValidationSet::fixed(&fixed, &config.data).unwrap();
    for score in scores.iter().filter(|s| s.set == "fixed") {
        assert_eq!(score.samples, fixed_set.len(), "a fixed set is scored whole");
        assert_eq!(score.draw_rate, fixed_set.draw_rate_baseline());
        assert_eq!(score.material, fixed_set.material_baseline());
        assert!(score.value_loss.is_finite() && score.value_loss > 0.0, "{score:?}");
        assert!((0.0..=1.0).contains(&score.value_accuracy));
    }
    assert_ne!(scores[0].value_loss, scores[2].value_loss, "training moved the network");

    let parts = dir.path().join("parts");
    train(&config, &TrainRun { stop_after_steps: Some(4), ..run(&data, &fixed, &parts) }).unwrap();
    let resumed = train(&config, &TrainRun { resume: true, ..run(&data, &fixed, &parts) }).unwrap();
    assert_eq!(read_scores(&parts.join("validation.csv")).unwrap(), scores);
    assert_eq!(resumed.validation, whole.validation);
}

#[test]
fn root_q_blends_into_the_value_target_but_not_into_validation() {
    let mut samples = common::synthetic_samples(9, 2, 3);
    for s in &mut samples {
        s.wdl_target = [1.0, 0.0, 0.0];
        s.root_wdl = [0.2, 0.5, 0.3];
    }
    let data = DataSection { value_target_root_q: 0.25, mirror: false, ..DataSection::default() };
    let dataset = Dataset::from_samples(samples.clone(), &data).unwrap();
    let batch = dataset.batch(&[(0, false)]);
    let expected = [0.75 + 0.25 * 0.2, 0.25 * 0.5, 0.25 * 0.3];
    for (k, want) in expected.iter().enumerate() {
        assert!((batch.wdl[[0, k]] - want).abs() < 1e-6, "{:?}", batch.wdl);
    }
    let validation = ValidationSet::from_dataset(
        "v".into(),
        Dataset::from_samples(samples, &DataSection { value_target_root_q: 0.0, ..data.clone() }).unwrap(),
    );
    assert_eq!(validation.draw_rate_baseline().value_accuracy, 1.0, "every result is a win");

    let mut bad = TrainConfig::new(ModelConfig::new(1, 8));
    bad.data.value_target_root_q = 1.5;
    assert!(bad.validate().unwrap_err().contains("data.value_target_root_q"));
    bad.data.value_target_root_q = 0.0;
    bad.data.holdout_games = 1;
    assert!(bad.validate().unwrap_err().contains("data.holdout_games"));
}
