//! Behaviour of the search on small positions, checked against xq-core.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use xq_core::notation::parse_move;
use xq_core::{Game, GameResult, GameRules, Move, Position, Termination};
use xq_mcts::{
    Algorithm, EvalBatch, EvalError, EvalResults, Evaluator, MaterialEvaluator, Search, SearchError,
    SearchParams, SearchResult, Step, UniformEvaluator, Wdl, evaluate_batch,
};

/// Red rooks a8 and i0 against the bare black king on e9: i0i9 mates.
const MATE_IN_ONE: &str = "4k4/R8/9/9/9/9/9/9/9/3K4R w";
/// Red rooks a1 and i0: no mate in one, but a1a8 leaves only Kf9, then i0i9 mates.
const MATE_IN_TWO: &str = "4k4/9/9/9/9/9/9/9/R8/3K4R w";

fn game(fen: &str) -> Game {
    Game::from_fen(fen, GameRules::default()).unwrap()
}

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn params(algorithm: Algorithm, visits: u32) -> SearchParams {
    SearchParams { algorithm, visits, ..SearchParams::default() }.for_evaluation()
}

fn search(fen: &str, p: SearchParams, seed: u64) -> SearchResult {
    let g = game(fen);
    let mut s = Search::new(p, &g, rng(seed)).unwrap();
    s.run(&mut UniformEvaluator).unwrap()
}

/// Whether the side to move can force a win (the opponent left without a legal move, which
/// loses in Xiangqi whether in check or not) within `moves` of its own moves.
fn forced_win(pos: &Position, moves: u32) -> bool {
    if moves == 0 {
        return false;
    }
    pos.legal_moves().iter().any(|&m| {
        let next = pos.after(m);
        let replies = next.legal_moves();
        replies.is_empty() || replies.iter().all(|&r| forced_win(&next.after(r), moves - 1))
    })
}

fn mv(pos: &Position, text: &str) -> Move {
    parse_move(pos, text).unwrap()
}

#[test]
fn searches_and_evaluators_can_move_to_a_driver_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<Search>();
    assert_send::<UniformEvaluator>();
    assert_send::<MaterialEvaluator>();
    assert_send::<Box<dyn Evaluator>>();
}

#[test]
fn the_test_positions_are_what_they_claim() {
    let p1 = Position::from_fen(MATE_IN_ONE).unwrap();
    assert!(forced_win(&p1, 1));
    let p2 = Position::from_fen(MATE_IN_TWO).unwrap();
    assert!(!forced_win(&p2, 1));
    assert!(forced_win(&p2, 2));
}

#[test]
fn finds_mate_in_one_with_puct_and_gumbel() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let r = search(MATE_IN_ONE, params(algorithm, 200), 1);
        let mut g = game(MATE_IN_ONE);
        g.play(r.chosen).unwrap();
        let outcome = g.outcome().expect("the chosen move ends the game");
        assert_eq!(
            (outcome.result, outcome.reason),
            (GameResult::RedWins, Termination::Checkmate),
            "{algorithm:?}"
        );
        assert!(r.root_value > 0.5, "{algorithm:?}: root value {}", r.root_value);
    }
}

#[test]
fn finds_mate_in_two_with_puct_and_gumbel() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let r = search(MATE_IN_TWO, params(algorithm, 3000), 2);
        let pos = Position::from_fen(MATE_IN_TWO).unwrap();
        let after = pos.after(r.chosen);
        let replies = after.legal_moves();
        assert!(
            replies.iter().all(|&reply| forced_win(&after.after(reply), 1)),
            "{algorithm:?} chose {} which does not force mate",
            r.chosen
        );
        assert!(r.q[r.chosen_index].unwrap() > 0.5, "{algorithm:?}");
    }
}

#[test]
fn search_improves_on_the_uniform_prior() {
    let pos = Position::from_fen(MATE_IN_ONE).unwrap();
    let mate = mv(&pos, "i0i9");
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let r = search(MATE_IN_ONE, params(algorithm, 64), 3);
        let k = r.moves.iter().position(|&m| m == mate).unwrap();
        let uniform = 1.0 / r.moves.len() as f32;
        assert!((r.prior[k] - uniform).abs() < 1e-6);
        assert!(r.policy[k] > 4.0 * uniform, "{algorithm:?}: policy {} vs prior {uniform}", r.policy[k]);
        let total: f32 = r.policy.iter().sum();
        assert!((total - 1.0).abs() < 1e-4);
    }
}

#[test]
fn perpetual_check_inside_the_tree_loses_for_the_checker() {
    // Red's rook checks from a9, black steps e9e8, the rook checks from a8, black steps
    // back. Red to move: a8a9 would repeat the position after a0a9, a cycle of checks.
    let mut g = game("4k4/9/9/9/9/9/9/9/9/R2K5 w");
    for m in ["a0a9", "e9e8", "a9a8", "e8e9"] {
        let m = mv(g.position(), m);
        g.play(m).unwrap();
    }
    let repeat = mv(g.position(), "a8a9");
    // The judge's verdict on that cycle, straight from xq-core.
    let mut judged = g.clone();
    judged.play(repeat).unwrap();
    let cycle = judged.last_cycle().expect("a8a9 repeats a position");
    let verdict = judged.judge_cycle(cycle).outcome;
    assert_eq!(verdict.reason, Termination::PerpetualCheck);
    assert_eq!(verdict.result, GameResult::BlackWins);

    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let mut s = Search::new(params(algorithm, 300), &g, rng(4)).unwrap();
        let r = s.run(&mut UniformEvaluator).unwrap();
        let k = r.moves.iter().position(|&m| m == repeat).unwrap();
        assert!(r.visits[k] > 0, "{algorithm:?}");
        // Every visit of a8a9 scored the verdict: a loss for red.
        assert_eq!(r.q[k], Some(-1.0), "{algorithm:?}");
        assert_ne!(r.chosen, repeat, "{algorithm:?}");
    }
}

#[test]
fn a_repeat_the_judge_calls_a_draw_scores_a_draw() {
    // Horses out and back: no checks, so the judge allows both sides: a draw.
    let mut g = Game::new(Position::startpos(), GameRules::default());
    for m in ["h0g2", "h9g7", "g2h0"] {
        let m = mv(g.position(), m);
        g.play(m).unwrap();
    }
    let back = mv(g.position(), "g7h9");
    let mut s = Search::new(params(Algorithm::Puct, 400), &g, rng(5)).unwrap();
    let r = s.run(&mut MaterialEvaluator::default()).unwrap();
    let k = r.moves.iter().position(|&m| m == back).unwrap();
    assert!(r.visits[k] > 0);
    assert_eq!(r.q[k], Some(0.0));
}

#[test]
fn tree_reuse_keeps_the_chosen_childs_visits() {
    let g = Game::new(Position::startpos(), GameRules::default());
    let mut s = Search::new(params(Algorithm::Puct, 400), &g, rng(6)).unwrap();
    let r = s.run(&mut MaterialEvaluator::default()).unwrap();
    let kept = r.visits[r.chosen_index];
    assert!(kept > 1);
    s.advance(r.chosen).unwrap();
    assert_eq!(s.root_visits(), kept);
    let child_visits: u32 = s.root_child_visits().iter().map(|(_, v)| v).sum();
    assert_eq!(child_visits + 1, kept, "the root's own evaluation plus its children's visits");
    let r2 = s.run(&mut MaterialEvaluator::default()).unwrap();
    assert_eq!(r2.visits.iter().sum::<u32>(), child_visits + 400);
    assert_eq!(r2.simulations, 400);

    // Without reuse the tree starts over.
    let p = SearchParams { reuse_tree: false, ..params(Algorithm::Puct, 400) };
    let mut s = Search::new(p, &g, rng(6)).unwrap();
    let r = s.run(&mut MaterialEvaluator::default()).unwrap();
    s.advance(r.chosen).unwrap();
    assert_eq!(s.root_visits(), 0);
    assert_eq!(s.tree_size(), 1);
}

#[test]
fn advancing_by_an_unsearched_or_illegal_move() {
    let g = Game::new(Position::startpos(), GameRules::default());
    let mut s = Search::new(params(Algorithm::Puct, 50), &g, rng(7)).unwrap();
    let start = Position::startpos();
    assert!(matches!(
        s.advance(Move::new(start.king_square(xq_core::Color::Red), start.king_square(xq_core::Color::Red))),
        Err(SearchError::IllegalMove(_))
    ));
    s.advance(mv(&start, "h2e2")).unwrap();
    assert_eq!(s.root_position(), &start.after(mv(&start, "h2e2")));
    let r = s.run(&mut UniformEvaluator).unwrap();
    assert_eq!(r.moves.len(), start.after(mv(&start, "h2e2")).legal_moves().len());
}

#[test]
fn same_seed_same_result() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        // Self-play settings: noise, temperature, Gumbel sampling, playout cap.
        let p = SearchParams {
            algorithm,
            visits: 200,
            fast_visits: 50,
            full_search_probability: 0.5,
            ..SearchParams::default()
        };
        let run = |seed: u64| {
            let mut g = Game::new(Position::startpos(), GameRules::default());
            let mut s = Search::new(p.clone(), &g, rng(seed)).unwrap();
            let mut out = Vec::new();
            for _ in 0..4 {
                let r = s.run(&mut MaterialEvaluator::default()).unwrap();
                g.play(r.chosen).unwrap();
                s.advance(r.chosen).unwrap();
                out.push(r);
            }
            out
        };
        assert_eq!(run(11), run(11), "{algorithm:?}");
        assert_ne!(run(11), run(12), "{algorithm:?}");
    }
}

/// Drives a search by hand, as a self-play driver does, `leaves` at a time.
fn stepped(s: &mut Search, evaluator: &mut impl Evaluator, leaves: usize) -> SearchResult {
    let mut batch = EvalBatch::new();
    let mut results = EvalResults::new();
    s.start().unwrap();
    loop {
        batch.clear();
        match s.gather(&mut batch, leaves).unwrap() {
            Step::Evaluate(n) => {
                assert!(n >= 1 && n <= leaves && n == batch.len());
                evaluate_batch(evaluator, &batch, &mut results).unwrap();
                s.apply(&results).unwrap();
            }
            Step::Wait => panic!("nothing pending after apply"),
            Step::Done => return s.result().unwrap(),
        }
    }
}

#[test]
fn stepping_and_sync_apis_agree() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        for leaves in [1u32, 4] {
            let p =
                SearchParams { algorithm, visits: 300, leaves_per_step: leaves, ..SearchParams::default() };
            let g = Game::new(Position::startpos(), GameRules::default());
            let mut a = Search::new(p.clone(), &g, rng(8)).unwrap();
            let mut b = Search::new(p, &g, rng(8)).unwrap();
            let ra = a.run(&mut MaterialEvaluator::default()).unwrap();
            let rb = stepped(&mut b, &mut MaterialEvaluator::default(), leaves as usize);
            assert_eq!(ra, rb, "{algorithm:?} with {leaves} leaves per step");
            assert_eq!(ra.simulations, 300);
            assert_eq!(ra.visits.iter().sum::<u32>(), 300);
        }
    }
}

#[test]
fn many_games_share_one_batch() {
    let p = SearchParams { visits: 100, ..params(Algorithm::Gumbel, 100) };
    let g = game(MATE_IN_ONE);
    let mut searches: Vec<Search> = (0..8).map(|i| Search::new(p.clone(), &g, rng(i)).unwrap()).collect();
    let mut evaluator = UniformEvaluator;
    let (mut batch, mut results) = (EvalBatch::new(), EvalResults::new());
    for s in &mut searches {
        s.start().unwrap();
    }
    let mut max_batch = 0;
    loop {
        batch.clear();
        let mut busy = false;
        for s in &mut searches {
            busy |= s.gather(&mut batch, 3).unwrap() != Step::Done;
        }
        if !busy {
            break;
        }
        max_batch = max_batch.max(batch.len());
        evaluate_batch(&mut evaluator, &batch, &mut results).unwrap();
        for s in &mut searches {
            s.apply(&results).unwrap();
        }
    }
    assert!(max_batch > 8, "several leaves per game per step");
    let pos = Position::from_fen(MATE_IN_ONE).unwrap();
    for s in &mut searches {
        assert_eq!(s.result().unwrap().chosen, mv(&pos, "i0i9"));
    }
}

#[test]
fn playout_cap_mixes_full_and_fast_searches() {
    let p =
        SearchParams { visits: 64, fast_visits: 8, full_search_probability: 0.5, ..SearchParams::default() };
    let g = Game::new(Position::startpos(), GameRules::default());
    let mut s = Search::new(p, &g, rng(9)).unwrap();
    let (mut full, mut fast) = (0, 0);
    for _ in 0..20 {
        s.reset(&g);
        let r = s.run(&mut UniformEvaluator).unwrap();
        if r.full_search {
            assert_eq!(r.simulations, 64);
            full += 1;
        } else {
            assert_eq!(r.simulations, 8);
            // No noise on fast searches: the root priors stay the evaluator's.
            fast += 1;
        }
    }
    assert!(full > 0 && fast > 0, "{full} full, {fast} fast");
}

#[test]
fn noise_only_on_full_puct_searches() {
    let g = Game::new(Position::startpos(), GameRules::default());
    let noisy = SearchParams { visits: 400, temperature: 0.0, ..SearchParams::default() };
    let quiet = SearchParams { dirichlet_fraction: 0.0, ..noisy.clone() };
    let fast_only = SearchParams { full_search_probability: 0.0, fast_visits: 400, ..noisy.clone() };
    let visits = |p: &SearchParams, seed| {
        let mut s = Search::new(p.clone(), &g, rng(seed)).unwrap();
        s.run(&mut UniformEvaluator).unwrap().visits
    };
    // Uniform values and priors: without noise the visits do not depend on the seed.
    assert_eq!(visits(&quiet, 1), visits(&quiet, 2));
    assert_eq!(visits(&fast_only, 1), visits(&quiet, 2));
    assert_ne!(visits(&noisy, 1), visits(&noisy, 2));
}

#[test]
fn history_features_reach_the_evaluator() {
    let mut g = Game::from_fen(
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 7 1",
        GameRules::default(),
    )
    .unwrap();
    for m in ["h0g2", "h9g7", "g2h0", "g7h9"] {
        let m = mv(g.position(), m);
        g.play(m).unwrap();
    }
    let mut s = Search::new(params(Algorithm::Puct, 1), &g, rng(10)).unwrap();
    s.start().unwrap();
    let mut batch = EvalBatch::new();
    assert_eq!(s.gather(&mut batch, 8).unwrap(), Step::Evaluate(1));
    let root = batch.get(0);
    assert_eq!(root.history.earlier_occurrences, 1);
    assert_eq!(root.history.limit_plies, 11);
    assert_eq!(root.history.plies_to_limit(), 120 - 11);
    assert_eq!(root.history, g.history_features());
    assert_eq!(root.moves.len(), 44);
}

#[test]
fn game_over_at_the_root_is_an_error() {
    let g = game("3Rk4/R8/9/9/9/9/9/9/9/3K5 b");
    let mut s = Search::new(SearchParams::default(), &g, rng(0)).unwrap();
    assert!(matches!(s.start(), Err(SearchError::GameOver(_))));
    let mut gather_first = Search::new(SearchParams::default(), &g, rng(0)).unwrap();
    assert!(matches!(gather_first.gather(&mut EvalBatch::new(), 1), Err(SearchError::NotStarted)));
}

struct BrokenEvaluator;

impl Evaluator for BrokenEvaluator {
    fn evaluate(&mut self, batch: &EvalBatch, out: &mut EvalResults) -> Result<(), EvalError> {
        for i in 0..batch.len() {
            let (wdl, priors) = out.slot_mut(i);
            *wdl = Wdl::new(f32::NAN, 0.0, 0.0);
            priors.fill(1.0);
        }
        Ok(())
    }
}

#[test]
fn bad_evaluations_are_errors_not_panics() {
    let g = Game::new(Position::startpos(), GameRules::default());
    let mut s = Search::new(SearchParams::default(), &g, rng(0)).unwrap();
    let err = s.run(&mut BrokenEvaluator).unwrap_err();
    assert!(err.to_string().contains("WDL"), "{err}");
    // The search recovers with a working evaluator.
    let r = s.run(&mut UniformEvaluator).unwrap();
    assert_eq!(r.simulations, 800);
    let bad = SearchParams { gumbel_m: 0, ..SearchParams::default() };
    assert!(matches!(Search::new(bad, &g, rng(0)), Err(SearchError::Params(_))));
}

#[test]
fn a_restricted_root_searches_only_the_allowed_moves() {
    let g = game(MATE_IN_ONE);
    let mate = parse_move(g.position(), "i0i9").unwrap();
    let others: Vec<Move> =
        g.position().legal_moves().iter().copied().filter(|&m| m != mate).take(3).collect();
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let mut s = Search::new(params(algorithm, 64), &g, rng(3)).unwrap();
        // The mate is not allowed: the search never looks at it.
        s.restrict_root(&others);
        let restricted = s.run(&mut UniformEvaluator).unwrap();
        let mut moves = restricted.moves.clone();
        moves.sort_by_key(|m| m.iccs());
        let mut expected = others.clone();
        expected.sort_by_key(|m| m.iccs());
        assert_eq!(moves, expected, "{algorithm:?}: only the allowed moves are root children");
        assert!(others.contains(&restricted.chosen));
        // Lifted: the same root is expanded again with every move, and the mate is found.
        s.restrict_root(&[]);
        let free = s.run(&mut UniformEvaluator).unwrap();
        assert_eq!(free.moves.len(), g.position().legal_moves().len());
        assert_eq!(free.chosen, mate, "{algorithm:?}");
        // Nothing allowed is legal: a clear error, not a search over nothing.
        s.restrict_root(&[Move::new(
            xq_core::Square::parse("e4").unwrap(),
            xq_core::Square::parse("e5").unwrap(),
        )]);
        assert!(matches!(s.run(&mut UniformEvaluator), Err(SearchError::GameOver(_))));
    }
}
