//! The trainer end to end on small seeded data sets: overfitting, exact resume, corrupt shards,
//! mirroring, and refusing runs that cannot continue.

mod common;

use burn::tensor::Device;
use std::path::{Path, PathBuf};
use xq_nn::{
    BatchEvaluator, ModelConfig, OptimizerKind, POLICY_SIZE, TrunkNorm, load_checkpoint, policy_index,
};
use xq_train::{DataSection, Dataset, ScheduleKind, TrainConfig, TrainError, TrainRun, train};

fn config(blocks: usize, channels: usize, norm: TrunkNorm) -> TrainConfig {
    let mut model = ModelConfig::new(blocks, channels).with_trunk_norm(norm);
    model.seed = 3;
    let mut config = TrainConfig::new(model);
    config.train.log_every = 2;
    config
}

fn run(data: &Path, out: &Path) -> TrainRun {
    TrainRun { data_dirs: vec![data.to_path_buf()], out_dir: out.to_path_buf(), ..TrainRun::default() }
}

#[test]
fn a_tiny_net_overfits_a_tiny_fixed_data_set() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // 64 distinct positions (the games' first plies repeat across games, and a position with two
    // targets cannot be fitted).
    let mut seen = std::collections::HashSet::new();
    let mut samples: Vec<_> = common::synthetic_samples(1, 12, 10)
        .into_iter()
        .filter(|s| seen.insert((s.board, s.side_to_move)))
        .take(64)
        .collect();
    for s in &mut samples {
        s.full_search = true;
    }
    assert_eq!(samples.len(), 64);
    common::write_shards(&data, &samples, 32);
    let mut config = config(2, 16, TrunkNorm::SkipInit);
    config.data.batch_size = 64;
    config.data.mirror = false;
    config.optimizer.learning_rate = 5e-3;
    config.optimizer.weight_decay = 0.0;
    config.train.steps = 100;
    config.train.checkpoint_every = 100;
    config.train.log_every = 1;
    let summary = train(&config, &run(&data, &dir.path().join("run"))).unwrap();
    let rows = xq_train::metrics::read_rows(&summary.metrics_csv).unwrap();
    let first = rows.first().unwrap();
    // Start: uniform guesses cost ln(2062) ≈ 7.6 (policy) and ln 3 ≈ 1.1 (value).
    assert!(first.step == 1 && first.policy_loss > 7.0 && first.value_loss > 0.9, "{first:?}");
    // The policy targets are (0.8, 0.2) pairs, whose entropy is the floor of the policy loss;
    // the WDL targets are one-hot (floor 0). Measured (docs/TRAIN.md): policy 0.5035 and value
    // 6e-5 after 100 steps (floor reached by step ~75); the bounds leave room for rounding
    // across machines, not for a net that failed to learn.
    let floor = -(0.8f32 * 0.8f32.ln() + 0.2 * 0.2f32.ln());
    assert!(summary.policy_loss < floor + 0.02, "policy loss {} (floor {floor})", summary.policy_loss);
    assert!(summary.value_loss < 0.01, "value loss {}", summary.value_loss);
    assert_eq!(summary.policy_top1, 1.0);
    assert_eq!(summary.value_accuracy, 1.0);
}

/// Policy and WDL logits of a checkpoint on a fixed batch of the data.
fn outputs(stem: &Path, dataset: &Dataset) -> (Vec<u32>, Vec<u32>) {
    let (net, _) = load_checkpoint(stem, None, &Device::flex()).unwrap();
    let items: Vec<(usize, bool)> = (0..dataset.len()).map(|i| (i, false)).collect();
    let batch = dataset.batch(&items);
    let (p, v) = BatchEvaluator::new(net, Device::flex(), 0).unwrap().forward_logits(&batch.inputs).unwrap();
    (p.iter().map(|x| x.to_bits()).collect(), v.iter().map(|x| x.to_bits()).collect())
}

fn loss_columns(csv: &Path) -> Vec<(u64, String)> {
    // Everything but samples_per_sec and elapsed_s, which measure time.
    xq_train::metrics::read_rows(csv)
        .unwrap()
        .iter()
        .map(|r| {
            (
                r.step,
                format!(
                    "{} {} {} {} {} {}",
                    r.lr, r.policy_loss, r.value_loss, r.total_loss, r.policy_top1, r.value_accuracy
                ),
            )
        })
        .collect()
}

fn resume_equals_uninterrupted(kind: OptimizerKind, norm: TrunkNorm) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let samples = common::synthetic_samples(2, 6, 8);
    common::write_shards(&data, &samples, 16);
    let mut config = config(1, 8, norm);
    config.optimizer.kind = kind;
    config.optimizer.learning_rate = 0.01;
    config.optimizer.warmup_steps = 3;
    config.optimizer.schedule = ScheduleKind::Cosine;
    // 20 does not divide the sample count, so batches straddle epochs.
    config.data.batch_size = 20;
    config.train.steps = 12;
    config.train.checkpoint_every = 5;

    let whole = dir.path().join("whole");
    let a = train(&config, &run(&data, &whole)).unwrap();
    assert_eq!(a.steps, 12);

    let parts = dir.path().join("parts");
    // Killed after step 7: the newest checkpoint is step 5, metrics rows 2, 4, 6 are on disk.
    let stopped = train(&config, &TrainRun { stop_after_steps: Some(7), ..run(&data, &parts) }).unwrap();
    assert_eq!(stopped.steps, 7);
    assert!(stopped.checkpoint.ends_with("step-00000005"), "{:?}", stopped.checkpoint);
    let rows: Vec<u64> = loss_columns(&parts.join("metrics.csv")).iter().map(|r| r.0).collect();
    assert_eq!(rows, [2, 4, 6]);
    let b = train(&config, &TrainRun { resume: true, ..run(&data, &parts) }).unwrap();
    assert_eq!(b.steps, 12);

    let dataset = Dataset::from_samples(samples, &config.data).unwrap();
    let (pa, va) = outputs(&a.checkpoint, &dataset);
    let (pb, vb) = outputs(&b.checkpoint, &dataset);
    assert!(pa == pb && va == vb, "{kind:?} {norm:?}: resumed outputs differ from the uninterrupted run's");
    // Each step's metrics once, equal to the uninterrupted run's.
    assert_eq!(loss_columns(&whole.join("metrics.csv")), loss_columns(&parts.join("metrics.csv")));
    // Only the newest optimiser state is kept.
    assert_eq!(std::fs::read_dir(parts.join("optimizer")).unwrap().count(), 1);
}

#[test]
fn resume_equals_uninterrupted_adamw_batch_norm() {
    resume_equals_uninterrupted(OptimizerKind::Adamw, TrunkNorm::BatchNorm);
}

#[test]
fn resume_equals_uninterrupted_sgd_skip_init() {
    resume_equals_uninterrupted(OptimizerKind::Sgd, TrunkNorm::SkipInit);
}

#[test]
fn a_corrupt_shard_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let samples = common::synthetic_samples(3, 6, 8);
    assert_eq!(samples.len(), 48);
    common::write_shards(&data, &samples, 16);
    let middle = data.join("samples-000001.parquet");
    let bytes = std::fs::read(&middle).unwrap();
    std::fs::write(&middle, &bytes[..bytes.len() / 2]).unwrap();
    let mut config = config(1, 8, TrunkNorm::SkipInit);
    config.data.batch_size = 8;
    config.train.steps = 2;
    let summary = train(&config, &run(&data, &dir.path().join("run"))).unwrap();
    assert_eq!(summary.samples, 32, "the two intact shards");
    assert_eq!(summary.warnings.len(), 1, "{:?}", summary.warnings);
    assert!(summary.warnings[0].contains("samples-000001.parquet"), "{:?}", summary.warnings);
}

#[test]
fn the_window_takes_the_newest_samples() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    let samples = common::synthetic_samples(4, 6, 8);
    common::write_shards(&old, &samples[..24], 16);
    common::write_shards(&new, &samples[24..], 16);
    let data = DataSection { window_samples: 30, ..DataSection::default() };
    let dataset = Dataset::load(&[old.clone(), new.clone()], &data).unwrap();
    assert_eq!(dataset.window_samples, 30);
    let expected = Dataset::from_samples(samples[18..].to_vec(), &data).unwrap();
    assert_eq!(dataset.fingerprint, expected.fingerprint);
    let recorded: Vec<PathBuf> = dataset.window.iter().map(|s| s.path.clone()).collect();
    assert_eq!(recorded[0], new.join("samples-000001.parquet"), "newest first");
}

#[test]
fn mirroring_keeps_the_policy_on_legal_moves_of_the_mirrored_position() {
    let samples = common::synthetic_samples(5, 4, 30);
    let data = DataSection { fast_search_policy: true, ..DataSection::default() };
    let dataset = Dataset::from_samples(samples.clone(), &data).unwrap();
    assert_eq!(dataset.len(), samples.len());
    for mirrored in [false, true] {
        let items: Vec<(usize, bool)> = (0..dataset.len()).map(|i| (i, mirrored)).collect();
        let batch = dataset.batch(&items);
        for (k, &(i, _)) in items.iter().enumerate() {
            let original = dataset.position(i).unwrap();
            let pos = if mirrored { original.mirror() } else { *original };
            let legal: Vec<usize> =
                pos.legal_moves().iter().map(|&m| policy_index(m, pos.side_to_move()).unwrap()).collect();
            let row = batch.policy.row(k);
            let mass: f32 = row.iter().sum();
            assert!((mass - 1.0).abs() < 1e-5, "row {k} sums to {mass}");
            for index in 0..POLICY_SIZE {
                if row[index] > 0.0 {
                    assert!(
                        legal.contains(&index),
                        "sample {i} mirrored={mirrored}: mass on illegal index {index}"
                    );
                }
            }
            // The inputs are the mirrored position's encoding.
            let mut planes = [0.0f32; xq_nn::INPUT_SIZE];
            let history = samples[i].history_features();
            xq_nn::encode_position(&pos, &history, &mut planes);
            let encoded = batch.inputs.index_axis(ndarray::Axis(0), k);
            assert!(encoded.iter().zip(planes.iter()).all(|(a, b)| a == b), "sample {i} mirrored={mirrored}");
        }
    }
}

#[test]
fn an_existing_run_needs_resume_and_a_changed_config_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    common::write_shards(&data, &common::synthetic_samples(6, 2, 10), 32);
    let out = dir.path().join("run");
    let mut config = config(1, 4, TrunkNorm::SkipInit);
    config.data.batch_size = 4;
    config.train.steps = 2;
    train(&config, &run(&data, &out)).unwrap();
    let err = train(&config, &run(&data, &out)).unwrap_err();
    assert!(matches!(err, TrainError::RunExists { .. }), "{err}");
    assert!(err.to_string().contains("--resume"), "{err}");

    let mut changed = config.clone();
    changed.data.batch_size = 8;
    changed.optimizer.kind = OptimizerKind::Sgd;
    let err = train(&changed, &TrainRun { resume: true, ..run(&data, &out) }).unwrap_err().to_string();
    assert!(err.contains("data.batch_size: 4 vs 8"), "{err}");
    assert!(err.contains("optimizer.kind"), "{err}");

    // Cadence may change; a finished run then just reports its checkpoint.
    let mut cadence = config.clone();
    cadence.train.log_every = 1;
    let summary = train(&cadence, &TrainRun { resume: true, ..run(&data, &out) }).unwrap();
    assert_eq!(summary.steps, 2);

    let other = dir.path().join("other");
    common::write_shards(&other, &common::synthetic_samples(7, 2, 10), 32);
    let err = train(&config, &TrainRun { resume: true, ..run(&other, &out) }).unwrap_err().to_string();
    assert!(err.contains("--data"), "{err}");
}

#[test]
fn init_from_a_checkpoint_of_another_shape_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    common::write_shards(&data, &common::synthetic_samples(8, 2, 10), 32);
    let mut config = config(1, 4, TrunkNorm::SkipInit);
    config.data.batch_size = 4;
    config.train.steps = 1;
    let first = train(&config, &run(&data, &dir.path().join("a"))).unwrap();
    let mut wider = config.clone();
    wider.model.channels = 8;
    let err = train(
        &wider,
        &TrainRun { init_from: Some(first.checkpoint.clone()), ..run(&data, &dir.path().join("b")) },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("channels: 8 vs 4"), "{err}");
}
