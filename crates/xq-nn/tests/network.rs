//! The network: overfitting a fixed batch, checkpoints, batched evaluation.

mod common;

use burn::tensor::Device;
use ndarray::{Array2, Array4};
use xq_nn::checkpoint::checkpoint_paths;
use xq_nn::encoding::encode_batch;
use xq_nn::{
    BatchEvaluator, CheckpointError, ENCODING_VERSION, EvalError, EvalRequest, ModelConfig, OptimizerConfig,
    OptimizerKind, POLICY_SIZE, PolicyValueNet, TrainBatch, TrainError, Trainer, TrunkNorm, load_checkpoint,
    policy_index, save_checkpoint,
};

/// A fixed batch from random games: one-hot policy on a legal move, one-hot WDL.
fn fixed_batch(size: usize, seed: u64) -> TrainBatch {
    let positions = common::random_positions(seed, 4, 60);
    let step = positions.len() / size;
    let chosen: Vec<_> = positions.iter().step_by(step.max(1)).take(size).collect();
    let inputs = encode_batch(chosen.iter().map(|(p, h)| (p, *h)));
    let mut policy = Array2::<f32>::zeros((chosen.len(), POLICY_SIZE));
    let mut wdl = Array2::<f32>::zeros((chosen.len(), 3));
    for (k, (pos, _)) in chosen.iter().enumerate() {
        let moves = pos.legal_moves();
        let mv = moves[(k * 7) % moves.len()];
        policy[[k, policy_index(mv, pos.side_to_move()).unwrap()]] = 1.0;
        wdl[[k, k % 3]] = 1.0;
    }
    TrainBatch::new(inputs, policy, wdl)
}

fn tiny(norm: TrunkNorm) -> ModelConfig {
    let mut config = ModelConfig::new(1, 16).with_trunk_norm(norm);
    config.seed = 7;
    config
}

fn overfit(norm: TrunkNorm) {
    let batch = fixed_batch(16, 11);
    let device = Device::flex();
    let net = PolicyValueNet::new(&tiny(norm), &device).unwrap();
    let optim = OptimizerConfig { learning_rate: 3e-3, weight_decay: 0.0, ..OptimizerConfig::default() };
    let mut trainer = Trainer::new(net, optim, &device.autodiff()).unwrap();
    let first = trainer.step(&batch).unwrap();
    // Uniform guesses cost ln(POLICY_SIZE) + ln 3 ≈ 8.7.
    assert!(first.total > 6.0, "initial loss {first:?}");
    let mut last = first;
    for _ in 0..150 {
        last = trainer.step(&batch).unwrap();
    }
    assert!(last.total < 0.5, "{norm:?}: loss {:.3} after 151 steps (from {:.3})", last.total, first.total);
}

#[test]
fn tiny_batch_norm_net_overfits_a_fixed_batch() {
    overfit(TrunkNorm::BatchNorm);
}

#[test]
fn tiny_skip_init_net_overfits_a_fixed_batch() {
    overfit(TrunkNorm::SkipInit);
}

#[test]
fn sgd_with_momentum_overfits_and_the_metrics_follow() {
    let batch = fixed_batch(16, 11);
    let device = Device::flex();
    let net = PolicyValueNet::new(&tiny(TrunkNorm::SkipInit), &device).unwrap();
    let optim = OptimizerConfig {
        kind: OptimizerKind::Sgd,
        learning_rate: 0.05,
        momentum: 0.9,
        weight_decay: 0.0,
        value_loss_weight: 1.0,
    };
    let mut trainer = Trainer::new(net, optim, &device.autodiff()).unwrap();
    let first = trainer.train_step(&batch, 0.05).unwrap();
    assert!(first.policy_top1 < 0.3, "{first:?}");
    assert_eq!((first.policy_samples, first.value_samples), (16, 16));
    let mut last = first;
    for _ in 0..150 {
        last = trainer.train_step(&batch, 0.05).unwrap();
    }
    assert!(
        last.losses.total < 0.5,
        "SGD: loss {:.3} after 151 steps (from {:.3})",
        last.losses.total,
        first.losses.total
    );
    assert_eq!(last.policy_top1, 1.0, "{last:?}");
    assert_eq!(last.value_accuracy, 1.0, "{last:?}");
}

#[test]
fn a_sample_of_weight_zero_does_not_count() {
    let device = Device::flex();
    // Batch norm mixes every sample into its statistics, weighted or not: compare without it.
    let mut config = tiny(TrunkNorm::SkipInit);
    config.head_batch_norm = false;
    let net = PolicyValueNet::new(&config, &device).unwrap();
    let full = fixed_batch(8, 11);
    // The first four samples alone, and the eight with the last four weighted 0.
    let mut half = TrainBatch::new(
        full.inputs.slice(ndarray::s![..4, .., .., ..]).to_owned(),
        full.policy.slice(ndarray::s![..4, ..]).to_owned(),
        full.wdl.slice(ndarray::s![..4, ..]).to_owned(),
    );
    let mut weighted = full.clone();
    let mask = ndarray::Array1::from_vec(vec![2.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0]);
    weighted.policy_weight = Some(mask.clone());
    weighted.value_weight = Some(mask);
    let optim = OptimizerConfig {
        kind: OptimizerKind::Sgd,
        momentum: 0.0,
        weight_decay: 0.0,
        ..OptimizerConfig::default()
    };
    let mut a = Trainer::new(net.clone(), optim.clone(), &device.clone().autodiff()).unwrap();
    let mut b = Trainer::new(net, optim, &device.clone().autodiff()).unwrap();
    let ma = a.train_step(&half, 0.1).unwrap();
    let mb = b.train_step(&weighted, 0.1).unwrap();
    assert!((ma.losses.total - mb.losses.total).abs() < 1e-5, "{ma:?} vs {mb:?}");
    assert_eq!((mb.policy_samples, mb.value_samples), (4, 4));
    half.policy_weight = None;
    let (la, _) = logits(&a.inference_net(), &half.inputs);
    let (lb, _) = logits(&b.inference_net(), &half.inputs);
    let worst = la.iter().zip(lb.iter()).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
    assert!(worst < 1e-5, "the updates differ by {worst}");
    // A negative weight is refused.
    weighted.value_weight = Some(ndarray::Array1::from_vec(vec![-1.0; 8]));
    assert!(matches!(b.train_step(&weighted, 0.1), Err(TrainError::BadWeight { .. })));
}

#[test]
fn restoring_the_optimizer_state_continues_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let batch = fixed_batch(8, 11);
    let device = Device::flex();
    let config = tiny(TrunkNorm::BatchNorm);
    let net = PolicyValueNet::new(&config, &device).unwrap();
    let mut whole =
        Trainer::new(net.clone(), OptimizerConfig::default(), &device.clone().autodiff()).unwrap();
    let mut part = Trainer::new(net, OptimizerConfig::default(), &device.clone().autodiff()).unwrap();
    for _ in 0..3 {
        whole.step(&batch).unwrap();
        part.step(&batch).unwrap();
    }
    let stem = dir.path().join("ckpt");
    save_checkpoint(&part.inference_net(), &stem, part.steps(), None).unwrap();
    let state = part.optimizer_state().unwrap();
    drop(part);
    let (loaded, _) = load_checkpoint(&stem, Some(&config), &device).unwrap();
    let mut resumed = Trainer::new(loaded, OptimizerConfig::default(), &device.clone().autodiff()).unwrap();
    resumed.restore(state, 3).unwrap();
    assert_eq!(resumed.steps(), 3);
    for _ in 0..3 {
        let a = whole.step(&batch).unwrap();
        let b = resumed.step(&batch).unwrap();
        assert_eq!(a, b);
    }
    assert_eq!(
        logits(&whole.inference_net(), &batch.inputs),
        logits(&resumed.inference_net(), &batch.inputs)
    );

    // Another network's state is refused at the next step.
    let other = PolicyValueNet::new(&config, &device).unwrap();
    let mut stranger = Trainer::new(other, OptimizerConfig::default(), &device.clone().autodiff()).unwrap();
    stranger.restore(resumed.optimizer_state().unwrap(), 6).unwrap();
    assert!(matches!(stranger.step(&batch), Err(TrainError::OptimizerState(_))));
    assert!(stranger.restore(vec![1, 2, 3], 0).is_err());
}

fn trained_net() -> (PolicyValueNet, ModelConfig, TrainBatch) {
    let config = ModelConfig::new(2, 8);
    let device = Device::flex();
    let net = PolicyValueNet::new(&config, &device).unwrap();
    let batch = fixed_batch(8, 12);
    let mut trainer = Trainer::new(net, OptimizerConfig::default(), &device.autodiff()).unwrap();
    // A few steps so weights and batch-norm running statistics differ from the initial ones.
    for _ in 0..3 {
        trainer.step(&batch).unwrap();
    }
    (trainer.inference_net(), config, batch)
}

fn logits(net: &PolicyValueNet, inputs: &Array4<f32>) -> (Array2<f32>, Array2<f32>) {
    BatchEvaluator::new(net.clone(), Device::flex(), 0).unwrap().forward_logits(inputs).unwrap()
}

#[test]
fn checkpoint_round_trip_gives_identical_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let (net, config, batch) = trained_net();
    let stem = dir.path().join("net-000003");
    let meta = save_checkpoint(&net, &stem, 3, None).unwrap();
    assert_eq!(meta.training_step, 3);
    assert_eq!(meta.model_id.len(), 16);
    assert!(meta.weights_sha256.starts_with(&meta.model_id));
    let (loaded, meta2) = load_checkpoint(&stem, Some(&config), &Device::flex()).unwrap();
    assert_eq!(meta, meta2);
    assert_eq!(logits(&net, &batch.inputs), logits(&loaded, &batch.inputs));
    // A fresh network of the same shape answers differently: the weights really were loaded.
    let fresh = PolicyValueNet::new(&config, &Device::flex()).unwrap();
    assert_ne!(logits(&fresh, &batch.inputs).0, logits(&loaded, &batch.inputs).0);
    // The id names the weights file: the metadata's hash is the file's.
    let weights = std::fs::read(checkpoint_paths(&stem).1).unwrap();
    let hash: String = {
        use sha2::Digest;
        sha2::Sha256::digest(&weights).iter().map(|b| format!("{b:02x}")).collect()
    };
    assert_eq!(hash, meta.weights_sha256);
}

#[test]
fn bad_checkpoints_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (net, config, _) = trained_net();
    let stem = dir.path().join("ckpt");
    save_checkpoint(&net, &stem, 3, None).unwrap();
    let (meta_path, weights_path) = checkpoint_paths(&stem);
    let device = Device::flex();

    // Another shape than expected.
    let other = ModelConfig::new(2, 16);
    let err = load_checkpoint(&stem, Some(&other), &device).unwrap_err();
    assert!(matches!(err, CheckpointError::ShapeMismatch { .. }), "{err}");
    assert!(err.to_string().contains("channels: 16 vs 8"), "{err}");

    // Another encoding version.
    let original = std::fs::read_to_string(&meta_path).unwrap();
    let bumped =
        original.replace(&format!("\"encoding_version\": {ENCODING_VERSION}"), "\"encoding_version\": 99");
    assert_ne!(bumped, original);
    std::fs::write(&meta_path, &bumped).unwrap();
    let err = load_checkpoint(&stem, Some(&config), &device).unwrap_err();
    assert!(matches!(err, CheckpointError::EncodingVersion { found: 99, .. }), "{err}");
    assert!(err.to_string().contains("encoding version 99"), "{err}");
    std::fs::write(&meta_path, &original).unwrap();

    // Truncated weights.
    let weights = std::fs::read(&weights_path).unwrap();
    std::fs::write(&weights_path, &weights[..weights.len() / 2]).unwrap();
    let err = load_checkpoint(&stem, None, &device).unwrap_err();
    assert!(matches!(err, CheckpointError::WeightsHash { .. }), "{err}");
    assert!(err.to_string().contains("truncated or corrupt"), "{err}");

    // Corrupt weights whose hash was updated to match: burn's decoder refuses them.
    let garbage = vec![0xA5u8; 4096];
    std::fs::write(&weights_path, &garbage).unwrap();
    let hash: String = {
        use sha2::Digest;
        sha2::Sha256::digest(&garbage).iter().map(|b| format!("{b:02x}")).collect()
    };
    let meta: serde_json::Value = serde_json::from_str(&original).unwrap();
    let old_hash = meta["weights_sha256"].as_str().unwrap();
    std::fs::write(&meta_path, original.replace(old_hash, &hash)).unwrap();
    let err = load_checkpoint(&stem, None, &device).unwrap_err();
    assert!(matches!(err, CheckpointError::Record { .. }), "{err}");

    // Weights of another shape behind metadata that claims this shape.
    let small = PolicyValueNet::new(&ModelConfig::new(1, 4), &device).unwrap();
    let small_stem = dir.path().join("small");
    let small_meta = save_checkpoint(&small, &small_stem, 0, None).unwrap();
    std::fs::copy(checkpoint_paths(&small_stem).1, &weights_path).unwrap();
    std::fs::write(&meta_path, original.replace(old_hash, &small_meta.weights_sha256)).unwrap();
    let err = load_checkpoint(&stem, None, &device).unwrap_err();
    assert!(matches!(err, CheckpointError::Record { .. }), "{err}");
    assert!(err.to_string().contains("shape"), "{err}");

    // Malformed metadata, and a missing checkpoint.
    std::fs::write(&meta_path, "{\"format\": 1,").unwrap();
    let err = load_checkpoint(&stem, None, &device).unwrap_err();
    assert!(matches!(err, CheckpointError::Metadata { .. }), "{err}");
    let err = load_checkpoint(&dir.path().join("missing"), None, &device).unwrap_err();
    assert!(matches!(err, CheckpointError::Io { .. }), "{err}");
}

#[test]
fn evaluate_batch_gives_normalised_priors_and_caches() {
    let device = Device::flex();
    let net = PolicyValueNet::new(&ModelConfig::new(1, 8), &device).unwrap();
    let evaluator = BatchEvaluator::new(net.clone(), device.clone(), 1024).unwrap();
    let uncached = BatchEvaluator::new(net, device, 0).unwrap();
    let positions = common::random_positions(13, 2, 20);
    let legal: Vec<_> = positions.iter().map(|(p, _)| p.legal_moves()).collect();
    let legal_refs: Vec<&[xq_core::Move]> = legal.iter().map(|l| &l[..]).collect();
    let requests: Vec<EvalRequest<'_>> =
        positions.iter().map(|(p, h)| EvalRequest { position: p, history: *h }).collect();

    let out = evaluator.evaluate_batch(&requests, &legal_refs).unwrap();
    assert_eq!(out.len(), requests.len());
    for (eval, moves) in out.iter().zip(&legal) {
        assert_eq!(eval.priors.len(), moves.len());
        assert!((eval.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!((eval.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(eval.priors.iter().chain(&eval.wdl).all(|p| p.is_finite() && *p >= 0.0));
    }
    assert_eq!(evaluator.cache_stats().hits, 0);
    // Second time from the cache, same answers.
    let again = evaluator.evaluate_batch(&requests, &legal_refs).unwrap();
    assert_eq!(again, out);
    assert_eq!(evaluator.cache_stats().hits, requests.len() as u64);
    // One at a time through an uncached evaluator: the same up to float rounding.
    for (k, request) in requests.iter().enumerate().step_by(5) {
        let single = uncached.evaluate_batch(std::slice::from_ref(request), &legal_refs[k..k + 1]).unwrap();
        for (a, b) in single[0].priors.iter().zip(&out[k].priors) {
            assert!((a - b).abs() < 1e-4, "{a} vs {b}");
        }
    }
    // Bad input is an error, not a panic.
    let err = evaluator.evaluate_batch(&requests, &legal_refs[..1]).unwrap_err();
    assert!(matches!(err, EvalError::LengthMismatch { .. }));
    let bogus =
        [xq_core::Move::new(xq_core::Square::parse("a0").unwrap(), xq_core::Square::parse("c2").unwrap())];
    let err = evaluator.evaluate_batch(&requests[..1], &[&bogus[..]]).unwrap_err();
    assert!(matches!(err, EvalError::MoveNotIndexed { .. }), "{err}");
}

#[test]
fn configs_are_checked() {
    assert!(ModelConfig::from_json(r#"{"blocks": 6, "channels": 64, "trunk_norm": "skip_init"}"#).is_ok());
    assert!(ModelConfig::from_json(r#"{"blocks": 6, "channels": 64, "width": 3}"#).is_err());
    assert!(ModelConfig::from_json(r#"{"blocks": 6, "channels": 0}"#).is_err());
    assert!(ModelConfig::from_json(r#"{"blocks": 6, "channels": 64, "trunk_norm": "layer_norm"}"#).is_err());
    let err = PolicyValueNet::new(&ModelConfig::new(100_000, 64), &Device::flex()).unwrap_err();
    assert!(err.to_string().contains("blocks"), "{err}");
}

#[test]
fn metrics_from_a_frozen_networks_logits_equal_the_validation_pass() {
    let (net, _, mut batch) = trained_net();
    batch.value_weight = Some(ndarray::Array1::from_vec(vec![1.0, 0.0, 2.0, 1.0, 1.0, 0.5, 1.0, 1.0]));
    let device = Device::flex();
    let burn = xq_nn::evaluate_batch(&net, &batch, 1.0, &device).unwrap();
    let (policy, wdl) = logits(&net, &batch.inputs);
    let host = xq_nn::metrics_from_logits(&policy, &wdl, &batch).unwrap();
    assert!((burn.losses.policy - host.losses.policy).abs() < 1e-4, "{burn:?} vs {host:?}");
    assert!((burn.losses.value - host.losses.value).abs() < 1e-4, "{burn:?} vs {host:?}");
    assert_eq!((burn.policy_top1, burn.value_accuracy), (host.policy_top1, host.value_accuracy));
    assert_eq!((burn.policy_samples, burn.value_samples), (8, 7));
    let short = policy.slice(ndarray::s![..3, ..]).to_owned();
    assert!(matches!(xq_nn::metrics_from_logits(&short, &wdl, &batch), Err(TrainError::BatchShape { .. })));
}
