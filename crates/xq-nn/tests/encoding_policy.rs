//! Encoding and policy index: symmetry and coverage over seeded random games.

mod common;

use xq_core::HistoryFeatures;
use xq_core::{Color, Position, Square};
use xq_nn::encoding::{
    INPUT_SIZE, PLANE_SIZE, encode_batch, encode_position, mirror_planes, oriented_square,
};
use xq_nn::{POLICY_SIZE, mirror_index, policy_index, policy_move};

fn encode(pos: &Position, history: &HistoryFeatures) -> Box<[f32; INPUT_SIZE]> {
    let mut out = Box::new([f32::NAN; INPUT_SIZE]);
    encode_position(pos, history, &mut out);
    out
}

#[test]
fn every_legal_move_of_random_games_is_indexed_for_both_colours() {
    let positions = common::random_positions(0x5eed_0001, 60, 200);
    assert!(positions.len() > 5_000, "only {} positions", positions.len());
    let mut seen = [0usize; 2];
    let mut used = vec![false; POLICY_SIZE];
    for (pos, _) in &positions {
        let side = pos.side_to_move();
        seen[side.index()] += 1;
        let moves = pos.legal_moves();
        let mut indices = Vec::with_capacity(moves.len());
        for &mv in moves.iter() {
            let Some(i) = policy_index(mv, side) else {
                panic!("{mv} in {} is not indexed", pos.fen());
            };
            assert_eq!(policy_move(i, side), Some(mv));
            // Mirroring the position mirrors the move and its index.
            let mirrored = pos.mirror();
            assert!(mirrored.is_legal(mv.mirror()));
            assert_eq!(policy_index(mv.mirror(), side), mirror_index(i));
            used[i] = true;
            indices.push(i);
        }
        indices.sort_unstable();
        indices.dedup();
        assert_eq!(indices.len(), moves.len(), "two legal moves share an index in {}", pos.fen());
    }
    assert!(seen[0] > 2_000 && seen[1] > 2_000, "positions per colour: {seen:?}");
    // Random games reach most of the index; the rest is geometry random play rarely finds.
    let coverage = used.iter().filter(|&&u| u).count();
    assert!(coverage > POLICY_SIZE / 2, "random games used only {coverage} of {POLICY_SIZE} entries");
}

#[test]
fn black_sees_the_board_rotated() {
    // The start position is symmetric under the 180° turn with colours swapped, so both sides
    // see the same planes.
    let red = Position::startpos();
    let black = red.with_side_to_move(Color::Black);
    let h = HistoryFeatures::default();
    assert_eq!(encode(&red, &h)[..], encode(&black, &h)[..]);
    // Red's king on e0 is the mover's king at row 0, column 4; for black, its king on e9 is.
    let e0 = Square::parse("e0").unwrap();
    let e9 = Square::parse("e9").unwrap();
    assert_eq!(oriented_square(e0, Color::Red).index(), 4);
    assert_eq!(oriented_square(e9, Color::Black).index(), 4);
    let planes = encode(&black, &h);
    assert_eq!(planes[4], 1.0, "mover's king plane");
    assert_eq!(planes[7 * PLANE_SIZE + 85], 1.0, "opponent's king at row 9, column 4");
}

#[test]
fn encoding_of_the_mirrored_position_is_the_mirrored_encoding() {
    for (pos, history) in common::random_positions(0x5eed_0002, 10, 150) {
        let mut mirrored = encode(&pos, &history);
        mirror_planes(&mut mirrored);
        assert_eq!(encode(&pos.mirror(), &history)[..], mirrored[..], "{}", pos.fen());
    }
}

#[test]
fn encoding_is_exact_and_overwrites_the_buffer() {
    let positions = common::random_positions(0x5eed_0003, 5, 120);
    let mut buffer = Box::new([7.0f32; INPUT_SIZE]);
    for (pos, history) in &positions {
        encode_position(pos, history, &mut buffer);
        let side = pos.side_to_move();
        // One 1.0 per piece on planes 0–13, nothing else there.
        let ones = buffer[..14 * PLANE_SIZE].iter().filter(|&&v| v == 1.0).count();
        let zeros = buffer[..14 * PLANE_SIZE].iter().filter(|&&v| v == 0.0).count();
        assert_eq!(ones, pos.pieces().count());
        assert_eq!(ones + zeros, 14 * PLANE_SIZE);
        for (sq, piece) in pos.pieces() {
            let plane = usize::from(piece.color != side) * 7 + piece.kind.index();
            assert_eq!(buffer[plane * PLANE_SIZE + oriented_square(sq, side).index()], 1.0);
        }
        let constant = |plane: usize| {
            let values = &buffer[plane * PLANE_SIZE..(plane + 1) * PLANE_SIZE];
            assert!(values.iter().all(|&v| v == values[0]), "plane {plane} not constant");
            values[0]
        };
        assert_eq!(constant(14), if history.earlier_occurrences >= 1 { 1.0 } else { 0.0 });
        assert_eq!(constant(15), if history.earlier_occurrences >= 2 { 1.0 } else { 0.0 });
        assert_eq!(constant(16), history.limit_fraction());
        assert_eq!(constant(17), if pos.in_check() { 1.0 } else { 0.0 });
        assert_eq!(constant(18), 1.0);
    }
    // The batch encoder writes the same planes.
    let batch = encode_batch(positions.iter().take(4).map(|(p, h)| (p, *h)));
    for (k, (pos, history)) in positions.iter().take(4).enumerate() {
        let flat = batch.as_slice().unwrap();
        assert_eq!(&flat[k * INPUT_SIZE..(k + 1) * INPUT_SIZE], &encode(pos, history)[..]);
    }
}

#[test]
fn history_features_follow_the_game() {
    use xq_core::{Game, GameRules, notation::parse_move};
    let mut game = Game::new(Position::startpos(), GameRules::default());
    for m in ["b0c2", "b9c7", "c2b0", "c7b9"] {
        let mv = parse_move(game.position(), m).unwrap();
        game.play(mv).unwrap();
    }
    let h = game.history_features();
    assert_eq!(h.earlier_occurrences, 1);
    assert_eq!(h.limit_plies, 4);
    assert!((h.limit_fraction() - 4.0 / game.rules().move_limit_plies as f32).abs() < 1e-6);
    let planes = encode(game.position(), &h);
    assert_eq!(planes[14 * PLANE_SIZE], 1.0);
    assert_eq!(planes[15 * PLANE_SIZE], 0.0);
}
