//! Realistic rows for the tests: random games played with xq-core, from an explicit seed.

#![allow(dead_code)]

use xq_core::{Color, Game, GameResult, GameRules, Move, Outcome, Position, RuleSet, Termination};
use xq_data::{GameRecord, Sample};

use xq_testkit::SplitMix64;

/// What the game loop records per position: FEN, policy, move played, repetitions, full
/// search, root visits.
type Step = (String, Vec<(Move, f32)>, Move, u8, bool, u32);

/// One random game (at most `max_plies`) and its samples.
pub fn random_game(game_id: u64, seed: u64, max_plies: usize) -> (GameRecord, Vec<Sample>) {
    let mut rng = SplitMix64::new(seed);
    let mut game = Game::new(Position::startpos(), GameRules::default());
    let mut steps: Vec<Step> = Vec::new();
    let outcome = loop {
        if let Some(outcome) = game.outcome() {
            break outcome;
        }
        if game.ply() >= max_plies {
            break Outcome::new(GameResult::Draw, Termination::MaxLength, "");
        }
        let moves = game.position().legal_moves();
        let weights: Vec<f32> = moves.iter().map(|_| rng.unit_f32() + 0.01).collect();
        let total: f32 = weights.iter().sum();
        let policy: Vec<(Move, f32)> = moves.iter().zip(&weights).map(|(&m, &w)| (m, w / total)).collect();
        let played = moves[rng.below(moves.len())];
        let full_search = rng.below(4) == 0;
        let visits = if full_search { 800 } else { 100 };
        steps.push((game.fen(), policy, played, game.occurrences() as u8, full_search, visits));
        game.play_unchecked(played);
    };
    let samples = steps
        .into_iter()
        .enumerate()
        .map(|(ply, (fen, policy, move_played, repetitions, full_search, root_visits))| {
            let pos = game.positions()[ply];
            let mover = pos.side_to_move();
            let result = outcome.result.score_for(mover);
            let w = rng.unit_f32();
            Sample {
                game_id,
                ply: ply as u16,
                fen,
                board: *pos.board_codes(),
                side_to_move: mover,
                policy,
                full_search,
                root_wdl: [w * 0.5, 0.5, 0.5 - w * 0.5],
                root_visits,
                move_played,
                result,
                wdl_target: [f32::from(result == 1), f32::from(result == 0), f32::from(result == -1)],
                termination: outcome.reason,
                article: outcome.article.to_string(),
                repetitions,
                plies_since_capture: (rng.below(60)) as u16,
                limit_plies: (rng.below(60)) as u16,
                move_limit_plies: 120,
                model_id: "model-3f2a".to_string(),
                config_hash: "cfg-91c0".to_string(),
                seed,
            }
        })
        .collect();
    let moves = game.moves().to_vec();
    let record = GameRecord {
        game_id,
        moves_chinese: moves
            .iter()
            .enumerate()
            .map(|(i, m)| format!("{}{}", ["炮二平五", "马8进7"][i % 2], m))
            .collect(),
        moves_wxf: moves
            .iter()
            .enumerate()
            .map(|(i, m)| format!("{}{}", ["C2=5", "H8+7"][i % 2], m))
            .collect(),
        moves,
        opening: game_id.is_multiple_of(2).then(|| "中炮对屏风马".to_string()),
        start_fen: game.start().fen(),
        result: outcome.result,
        termination: outcome.reason,
        article: outcome.article.to_string(),
        must_vary: outcome.must_vary.or(game_id.is_multiple_of(3).then_some(Color::Black)),
        rule_set: if game_id.is_multiple_of(2) { RuleSet::Cxa } else { RuleSet::Cxa2020 },
        model_red: "model-3f2a".to_string(),
        model_black: if game_id.is_multiple_of(2) { "model-3f2a" } else { "model-77aa" }.to_string(),
        seed,
        config_hash: "cfg-91c0".to_string(),
    };
    (record, samples)
}

/// `games` random games with their samples.
pub fn random_games(games: u64, seed: u64, max_plies: usize) -> (Vec<GameRecord>, Vec<Sample>) {
    let mut records = Vec::new();
    let mut samples = Vec::new();
    for id in 0..games {
        let (record, mut rows) = random_game(id, seed.wrapping_add(id), max_plies);
        records.push(record);
        samples.append(&mut rows);
    }
    (records, samples)
}
