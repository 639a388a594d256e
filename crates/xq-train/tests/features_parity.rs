//! The network sees the same input in training as in play: every position of a game, encoded
//! through the training path (a `Sample` written to a Parquet shard, read back by the
//! `Dataset`, encoded by `Dataset::batch`) and through the play path (the search's request to
//! its evaluator, encoded as `NetEvaluator` encodes it), is the same tensor, bit for bit.
//!
//! The game repeats positions (the repetition plane is set) and its limit clock runs; the rules
//! count checks toward the move limit (`limit_counts_ten_checks`), where the training path
//! once fed the capture clock instead of the limit clock.

mod common;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use xq_core::{Game, GameRules, Move, Position, RuleSet};
use xq_mcts::{EvalBatch, EvalResults, Evaluator, HistoryFeatures, Search, SearchParams, UniformEvaluator};
use xq_nn::{INPUT_SIZE, encode_position};
use xq_train::{DataSection, Dataset};

/// Records the root request (the first position evaluated) and answers uniformly.
#[derive(Default)]
struct RootRecorder {
    root: Option<(Position, HistoryFeatures)>,
}

impl Evaluator for RootRecorder {
    fn evaluate(&mut self, batch: &EvalBatch, out: &mut EvalResults) -> Result<(), xq_mcts::EvalError> {
        if self.root.is_none() {
            let request = batch.get(0);
            self.root = Some((*request.position, request.history));
        }
        UniformEvaluator.evaluate(batch, out)
    }
}

fn play_path_input(game: &Game) -> [f32; INPUT_SIZE] {
    let params = SearchParams { visits: 4, ..SearchParams::default() };
    let mut search = Search::new(params, game, ChaCha8Rng::seed_from_u64(0)).unwrap();
    let mut recorder = RootRecorder::default();
    search.run(&mut recorder).unwrap();
    let (position, history) = recorder.root.expect("the search evaluated its root");
    assert_eq!(position, *game.position());
    let mut planes = [0.0f32; INPUT_SIZE];
    encode_position(&position, &history, &mut planes);
    planes
}

#[test]
fn training_and_play_encode_every_position_identically() {
    let rules = GameRules {
        rule_set: RuleSet::Cxa,
        move_limit_plies: 40,
        limit_counts_ten_checks: true,
        ..GameRules::default()
    };
    let mut game = Game::new(Position::startpos(), rules);
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    // Horses out and back twice: the start position comes round again.
    let shuffle: Vec<Move> = ["h0g2", "h9g7", "g2h0", "g7h9", "h0g2", "h9g7", "g2h0", "g7h9"]
        .iter()
        .map(|m| m.parse().unwrap())
        .collect();
    let mut samples = Vec::new();
    let mut play_inputs = Vec::new();
    let mut saw_repetition = false;
    let mut saw_clock = false;
    for ply in 0..160 {
        if game.outcome().is_some() {
            break;
        }
        let legal = game.position().legal_moves();
        if legal.is_empty() {
            break;
        }
        let features = game.history_features();
        saw_repetition |= features.earlier_occurrences > 0;
        saw_clock |= features.limit_plies > 0;
        play_inputs.push(play_path_input(&game));
        let mv = shuffle.get(ply).copied().unwrap_or_else(|| legal[rng.random_range(0..legal.len())]);
        let mut sample = xq_testkit::sample_at(&game, mv, samples.len() as u64);
        sample.set_history(&game);
        samples.push(sample);
        game.play(mv).unwrap();
    }
    assert!(saw_repetition, "the game repeats a position");
    assert!(saw_clock, "the limit clock runs");

    let dir = tempfile::tempdir().unwrap();
    common::write_shards(dir.path(), &samples, 64);
    let data = DataSection { mirror: false, ..DataSection::default() };
    let dataset = Dataset::load(&[dir.path().to_path_buf()], &data).unwrap();
    assert_eq!(dataset.len(), samples.len());
    for (index, play) in play_inputs.iter().enumerate() {
        let batch = dataset.batch(&[(index, false)]);
        let trained = batch.inputs.as_slice().expect("a contiguous batch");
        let same = trained.iter().zip(play.iter()).all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "ply {index}: the training input differs from the play input");
    }
}
