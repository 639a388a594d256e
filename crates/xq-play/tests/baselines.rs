//! The baseline players: tactics they must see and limits they must keep.

use xq_core::{Game, GameRules, notation::parse_move};
use xq_play::{AlphaBetaPlayer, GameStart, GreedyPlayer, Player, RandomPlayer, Score, SearchLimits};

fn game(fen: &str) -> Game {
    Game::from_fen(fen, GameRules::default()).unwrap()
}

fn start(player: &mut dyn Player, game: &Game) {
    let color = game.position().side_to_move();
    player.new_game(game, GameStart { color, seed: 1, game_index: 0 }).unwrap();
}

#[test]
fn alphabeta_finds_mate_and_stalemate_wins() {
    // i0i9 mates (the rook on a8 covers rank 8 and the red king holds the e-file); quiet moves
    // that keep the black king without a move win as well (困毙).
    let g = game("3k5/R8/9/9/9/9/9/9/9/4K3R w");
    let mut ab = AlphaBetaPlayer::with_depth(4);
    start(&mut ab, &g);
    let choice = ab.choose_move(&g, &SearchLimits::NONE).unwrap();
    assert_eq!(choice.score, Some(Score::Mate(1)));
    assert_eq!(g.position().after(choice.mv).count_legal(), 0);
    // With one rook on the back rank: a0a8 or i1i8 leaves the black king no move (困毙).
    let g = game("3k5/9/9/9/9/9/9/9/8R/R3K4 w");
    let choice = ab.choose_move(&g, &SearchLimits::NONE).unwrap();
    assert_eq!(choice.score, Some(Score::Mate(1)));
    assert_eq!(g.position().after(choice.mv).count_legal(), 0);
}

#[test]
fn alphabeta_sees_tactics() {
    let mut ab = AlphaBetaPlayer::with_depth(4);
    // Black takes the undefended red rook, with check.
    let g = game("3k5/9/9/9/r8/9/9/9/9/R3K4 b");
    start(&mut ab, &g);
    assert_eq!(ab.choose_move(&g, &SearchLimits::NONE).unwrap().mv.iccs(), "a5a0");
    // Red, rather than take the rook at once, mates in two: a0d0+ a5d5 (forced) d0d5#.
    let g = game("3k5/9/9/9/r8/9/9/9/9/R3K4 w");
    start(&mut ab, &g);
    let choice = ab.choose_move(&g, &SearchLimits::NONE).unwrap();
    assert_eq!((choice.mv.iccs().as_str(), choice.score), ("a0d0", Some(Score::Mate(2))));
}

#[test]
fn alphabeta_respects_node_and_time_limits() {
    let g = Game::new(xq_core::Position::startpos(), GameRules::default());
    let mut ab = AlphaBetaPlayer::with_depth(30);
    start(&mut ab, &g);
    let choice = ab.choose_move(&g, &SearchLimits::nodes(2_000)).unwrap();
    assert!(choice.nodes.unwrap() <= 2_000);
    assert!(g.position().is_legal(choice.mv));
    let started = std::time::Instant::now();
    let choice = ab.choose_move(&g, &SearchLimits::movetime(std::time::Duration::from_millis(50))).unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert!(g.position().is_legal(choice.mv));
    assert!(choice.depth.unwrap() >= 1);
}

#[test]
fn alphabeta_is_deterministic() {
    let mut g = Game::new(xq_core::Position::startpos(), GameRules::default());
    for m in ["h2e2", "h9g7", "h0g2", "i9h9"] {
        let mv = parse_move(g.position(), m).unwrap();
        g.play(mv).unwrap();
    }
    let mut a = AlphaBetaPlayer::with_depth(4);
    let mut b = AlphaBetaPlayer::with_depth(4);
    start(&mut a, &g);
    start(&mut b, &g);
    assert_eq!(
        a.choose_move(&g, &SearchLimits::NONE).unwrap(),
        b.choose_move(&g, &SearchLimits::NONE).unwrap()
    );
}

#[test]
fn greedy_grabs_the_most_material() {
    // The red rook on c4 can take the black rook on c7 or the black horse on g4.
    let g = game("3k5/9/2r6/9/9/2R3n2/9/9/9/4K4 w");
    let mut greedy = GreedyPlayer::new(3);
    start(&mut greedy, &g);
    let choice = greedy.choose_move(&g, &SearchLimits::NONE).unwrap();
    assert_eq!(choice.mv.iccs(), "c4c7");
    // Rook for nothing: the black horse remains.
    assert_eq!(choice.score, Some(Score::Centipawns(1_050 - 480)));
}

#[test]
fn greedy_dodges_mate_in_one() {
    // Black's rook on a1 could take the red cannon on a2, but then i0i9 mates (the rook on a8
    // covers rank 8, the red king the e-file); on rank 1 it can still block the i-file. Every
    // seed must decline the bait.
    let g = game("3k5/R8/9/9/9/9/9/C8/r8/4K3R b");
    for seed in 0..8 {
        let mut greedy = GreedyPlayer::new(seed);
        start(&mut greedy, &g);
        let mv = greedy.choose_move(&g, &SearchLimits::NONE).unwrap().mv;
        assert_ne!(mv.iccs(), "a1a2");
        let after = g.position().after(mv);
        let mated_next = after.legal_moves().iter().any(|&reply| after.after(reply).count_legal() == 0);
        assert!(!mated_next, "greedy played {mv} allowing mate in one");
    }
}

#[test]
fn random_player_plays_legal_moves_from_its_seed() {
    let g = Game::new(xq_core::Position::startpos(), GameRules::default());
    let mut a = RandomPlayer::new(5);
    let mut b = RandomPlayer::new(5);
    start(&mut a, &g);
    start(&mut b, &g);
    for _ in 0..10 {
        let (x, y) = (
            a.choose_move(&g, &SearchLimits::NONE).unwrap(),
            b.choose_move(&g, &SearchLimits::NONE).unwrap(),
        );
        assert_eq!(x, y);
        assert!(g.position().is_legal(x.mv));
    }
}
