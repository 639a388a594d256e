//! `NetEvaluator`: the network behind the search's `Evaluator` contract, loaded from a checkpoint.

use std::path::Path;
use std::sync::Arc;

use burn::tensor::Device;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use xq_core::HistoryFeatures;
use xq_core::{Game, GameRules, Position};
use xq_mcts::{EvalBatch, EvalResults, Search, SearchParams, evaluate_batch};
use xq_nn::{
    BatchEvaluator, CheckpointError, EvalRequest, ModelConfig, NetEvaluator, PolicyValueNet,
    resolve_checkpoint, save_checkpoint,
};

fn tiny_net(seed: u64) -> PolicyValueNet {
    let mut config = ModelConfig::new(1, 16);
    config.seed = seed;
    PolicyValueNet::new(&config, &Device::flex()).unwrap()
}

#[test]
fn priors_and_values_are_the_batch_evaluators_over_the_legal_moves() {
    let net = tiny_net(3);
    let direct = BatchEvaluator::new(net.clone(), Device::flex(), 0).unwrap();
    let mut evaluator = NetEvaluator::new(Arc::new(BatchEvaluator::new(net, Device::flex(), 0).unwrap()), 8);

    let start = Position::startpos();
    let after = {
        let mut game = Game::new(start, GameRules::default());
        game.play(start.legal_moves()[5]).unwrap();
        *game.position()
    };
    let mut batch = EvalBatch::new();
    let history = HistoryFeatures { earlier_occurrences: 1, limit_plies: 30, move_limit_plies: 120 };
    let start_moves = start.legal_moves();
    let after_moves = after.legal_moves();
    batch.push(&start, HistoryFeatures { move_limit_plies: 120, ..Default::default() }, &start_moves);
    batch.push(&after, history, &after_moves[..7]);
    let mut out = EvalResults::new();
    evaluate_batch(&mut evaluator, &batch, &mut out).unwrap();

    let expected = direct
        .evaluate_batch(
            &[
                EvalRequest { position: &start, history: batch.get(0).history },
                EvalRequest { position: &after, history },
            ],
            &[&start_moves, &after_moves[..7]],
        )
        .unwrap();
    for (i, eval) in expected.iter().enumerate() {
        assert_eq!(out.priors(i), &eval.priors[..]);
        let wdl = out.wdl(i);
        assert_eq!([wdl.win, wdl.draw, wdl.loss], eval.wdl);
        let sum: f32 = out.priors(i).iter().sum();
        assert!((sum - 1.0).abs() < 1e-4, "priors of entry {i} sum to {sum}");
    }
}

#[test]
fn a_checkpoint_directory_loads_its_newest_checkpoint_and_searches() {
    let dir = tempfile::tempdir().unwrap();
    let older = save_checkpoint(&tiny_net(1), &dir.path().join("step-000010"), 10, None).unwrap();
    let newer = save_checkpoint(&tiny_net(2), &dir.path().join("step-000020"), 20, None).unwrap();
    assert_ne!(older.model_id, newer.model_id);

    assert_eq!(resolve_checkpoint(dir.path()).unwrap(), dir.path().join("step-000020"));
    // A training run's directory: checkpoints one level down.
    let run = tempfile::tempdir().unwrap();
    std::fs::create_dir(run.path().join("checkpoints")).unwrap();
    save_checkpoint(&tiny_net(1), &run.path().join("checkpoints/step-000005"), 5, None).unwrap();
    assert_eq!(resolve_checkpoint(run.path()).unwrap(), run.path().join("checkpoints/step-000005"));
    assert_eq!(
        resolve_checkpoint(&dir.path().join("step-000010.json")).unwrap(),
        dir.path().join("step-000010")
    );
    let mut evaluator = NetEvaluator::from_checkpoint(dir.path(), Device::flex(), 1024).unwrap();
    assert_eq!(evaluator.model_id(), newer.model_id);

    let game = Game::new(Position::startpos(), GameRules::default());
    let params = SearchParams { visits: 48, ..SearchParams::default() }.for_evaluation();
    let mut search = Search::new(params, &game, ChaCha8Rng::seed_from_u64(5)).unwrap();
    let result = search.run(&mut evaluator).unwrap();
    assert!(game.position().legal_moves().contains(&result.chosen));
    assert!(evaluator.network().cache_stats().misses > 0);
}

#[test]
fn a_path_without_a_checkpoint_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = NetEvaluator::from_checkpoint(dir.path(), Device::flex(), 0).unwrap_err();
    assert!(matches!(err, CheckpointError::NotFound { .. }), "{err}");
    assert!(err.to_string().contains("holds no checkpoint"), "{err}");
    let err = NetEvaluator::from_checkpoint(Path::new("/nonexistent/model"), Device::flex(), 0).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/model"), "{err}");
}

/// Positions of a short random game, for batches of varied content.
fn game_positions(count: usize, seed: u64) -> Vec<Position> {
    use rand::RngExt;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(Position::startpos(), GameRules::default());
    let mut positions = vec![*game.position()];
    while positions.len() < count {
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            break;
        }
        game.play(moves[rng.random_range(0..moves.len())]).unwrap();
        positions.push(*game.position());
    }
    positions
}

/// Shared evaluation merges the requests of several games into one batch, so what a position
/// is worth must not depend on the batch it lands in, or games would depend on thread timing.
#[test]
fn a_positions_evaluation_does_not_depend_on_its_batch() {
    let mut config = ModelConfig::new(2, 32);
    config.seed = 5;
    let net = PolicyValueNet::new(&config, &Device::flex()).unwrap();
    let evaluator = BatchEvaluator::new(net, Device::flex(), 0).unwrap();
    let positions = game_positions(40, 9);
    let moves: Vec<_> = positions.iter().map(|p| p.legal_moves()).collect();
    let request = |i: usize| EvalRequest { position: &positions[i], history: Default::default() };
    let alone: Vec<_> = (0..positions.len())
        .map(|i| evaluator.evaluate_batch(&[request(i)], &[&moves[i]]).unwrap())
        .collect();
    for size in [2usize, 3, 7, 16, 33, 40] {
        for start in [0usize, 5] {
            let indices: Vec<usize> = (0..size).map(|k| (start + k * 7) % positions.len()).collect();
            let requests: Vec<_> = indices.iter().map(|&i| request(i)).collect();
            let legal: Vec<&[xq_core::Move]> = indices.iter().map(|&i| &moves[i][..]).collect();
            let batched = evaluator.evaluate_batch(&requests, &legal).unwrap();
            for (k, &i) in indices.iter().enumerate() {
                let single = &alone[i][0];
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&batched[k].wdl),
                    bits(&single.wdl),
                    "value of position {i} in a batch of {size}"
                );
                assert_eq!(
                    bits(&batched[k].priors),
                    bits(&single.priors),
                    "priors of position {i} in a batch of {size}"
                );
            }
        }
    }
}
