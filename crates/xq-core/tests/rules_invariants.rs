//! Invariants of the rules engine checked along seeded random games: make/unmake restores
//! the position exactly, the incremental hash equals a from-scratch hash, FEN round-trips,
//! `is_legal` agrees with `legal_moves`, and the left–right mirror has the same perft.

use std::collections::BTreeSet;
use xq_core::{Color, Move, MoveList, Position, Square, perft::perft};

const GAMES: u64 = 60;
const MAX_PLIES: usize = 150;

/// Every position of `GAMES` random games (random legal moves until none or `MAX_PLIES`).
/// Odd games prefer captures, so sparse boards and endgames are covered too.
fn random_positions() -> Vec<Position> {
    random_games(GAMES)
}

fn random_games(games: u64) -> Vec<Position> {
    xq_testkit::random_positions(games, 0xC0FFEE, MAX_PLIES)
}

fn from_scratch(pos: &Position) -> Position {
    Position::from_fen(&pos.fen()).unwrap_or_else(|e| panic!("{}: {e}", pos.fen()))
}

#[test]
fn make_unmake_restores_position_and_hash_is_incremental() {
    for pos in random_positions() {
        let mut scratch = pos;
        for &m in pos.legal_moves().iter() {
            let undo = scratch.make(m);
            let rebuilt = from_scratch(&scratch);
            assert_eq!(scratch.hash(), rebuilt.hash(), "incremental hash after {m} from {}", pos.fen());
            assert_eq!(scratch, rebuilt, "position after {m} from {}", pos.fen());
            assert_eq!(scratch, pos.after(m), "make and after agree for {m} from {}", pos.fen());
            scratch.unmake(m, undo);
            assert_eq!(scratch, pos, "unmake of {m} from {}", pos.fen());
            assert_eq!(scratch.hash(), pos.hash());
        }
    }
}

#[test]
fn fen_round_trips() {
    for pos in random_positions() {
        assert_eq!(from_scratch(&pos), pos, "{}", pos.fen());
        assert_eq!(from_scratch(&pos).fen(), pos.fen());
    }
}

#[test]
fn is_legal_agrees_with_legal_moves() {
    for (i, pos) in random_positions().iter().enumerate() {
        let legal: BTreeSet<Move> = pos.legal_moves().iter().copied().collect();
        let mut pseudo = MoveList::new();
        pos.generate_pseudo(pos.side_to_move(), &mut pseudo);
        for &m in pseudo.iter() {
            assert_eq!(pos.is_legal(m), legal.contains(&m), "is_legal({m}) in {}", pos.fen());
        }
        assert!(
            legal.iter().all(|m| pseudo.contains(m)),
            "a legal move that is not pseudo-legal in {}",
            pos.fen()
        );
        // Every from/to pair, including empty squares, the opponent's pieces and no-moves,
        // on a sample of positions.
        if i % 10 == 0 {
            for from in Square::all() {
                for to in Square::all() {
                    let m = Move::new(from, to);
                    assert_eq!(pos.is_legal(m), legal.contains(&m), "is_legal({m}) in {}", pos.fen());
                }
            }
        }
    }
}

#[test]
fn mirror_has_the_same_perft_and_mirrored_moves() {
    for (i, pos) in random_positions().iter().enumerate() {
        let mirror = pos.mirror();
        assert_eq!(mirror.mirror(), *pos, "mirroring twice is the identity: {}", pos.fen());
        assert_eq!(mirror.in_check(), pos.in_check(), "{}", pos.fen());
        let ours: BTreeSet<Move> = pos.legal_moves().iter().map(|m| m.mirror()).collect();
        let theirs: BTreeSet<Move> = mirror.legal_moves().iter().copied().collect();
        assert_eq!(ours, theirs, "mirrored legal moves of {}", pos.fen());
        let depth = if i % 25 == 0 { 3 } else { 2 };
        assert_eq!(
            perft(pos, depth),
            perft(&mirror, depth),
            "perft({depth}) of {} and its mirror",
            pos.fen()
        );
    }
}

#[test]
fn legal_moves_equal_pseudo_moves_that_keep_the_king_safe() {
    // The generator's shortcuts (exposure flags from the king's lines and horse legs) against
    // the definition: a pseudo-legal move is legal when, after it, the mover's king is not
    // attacked and the kings do not face each other.
    for pos in random_games(400) {
        let mut pseudo = MoveList::new();
        pos.generate_pseudo(pos.side_to_move(), &mut pseudo);
        let mut scratch = pos;
        let by_definition: Vec<Move> = pseudo
            .iter()
            .copied()
            .filter(|&m| {
                let undo = scratch.make(m);
                let safe = !scratch.is_king_attacked(pos.side_to_move());
                scratch.unmake(m, undo);
                safe
            })
            .collect();
        assert_eq!(pos.legal_moves().to_vec(), by_definition, "{}", pos.fen());
    }
}

#[test]
fn moves_onto_a_point_are_the_pseudo_moves_that_end_there() {
    // `generate_pseudo_to` finds the pieces from the target point (lines, horse and
    // elephant tables read backwards, neighbours); the definition filters every pseudo move.
    // Both colours, every point: empty points (quiet moves, a cannon sliding), enemy pieces
    // (captures, a cannon jumping a screen) and own pieces (no move).
    for pos in random_games(200) {
        for color in [Color::Red, Color::Black] {
            let mut all = MoveList::new();
            pos.generate_pseudo(color, &mut all);
            for to in Square::all() {
                let mut onto = MoveList::new();
                pos.generate_pseudo_to(color, to, &mut onto);
                let expected: Vec<Move> = all.iter().copied().filter(|m| m.to() == to).collect();
                assert_eq!(onto.to_vec(), expected, "{} {color:?} onto {to}", pos.fen());
            }
        }
    }
}

/// `control` counts, for every point, the pieces of a side that could capture there: on an
/// enemy piece the pseudo-legal captures, on an empty point the pseudo-legal moves less the
/// cannons' quiet slides, and on one of the side's own pieces the captures it would have if
/// that piece were the enemy's.
#[test]
fn control_counts_the_pieces_that_could_capture_on_each_point() {
    let mut defended_checked = 0;
    for pos in random_positions().into_iter().step_by(7) {
        for color in [Color::Red, Color::Black] {
            let control = pos.control(color);
            for (index, &count) in control.iter().enumerate() {
                let sq = Square::from_index(index).unwrap();
                let mut reaching = MoveList::new();
                pos.generate_pseudo_to(color, sq, &mut reaching);
                let expected = match pos.piece_at(sq) {
                    Some(p) if p.color != color => reaching.len(),
                    None => reaching
                        .iter()
                        .filter(|m| pos.piece_at(m.from()).unwrap().kind != xq_core::PieceKind::Cannon)
                        .count(),
                    Some(own) => {
                        let Some(swapped) = as_enemy(&pos, sq, own.color.opponent()) else { continue };
                        let mut captures = MoveList::new();
                        swapped.generate_pseudo_to(color, sq, &mut captures);
                        defended_checked += 1;
                        captures.len()
                    }
                };
                assert_eq!(usize::from(count), expected, "{color:?} on {sq} in {}", pos.fen());
            }
        }
    }
    assert!(defended_checked > 1000, "only {defended_checked} defended points checked");
}

/// `pos` with the piece on `sq` replaced by one of `enemy`'s (the first kind that makes a
/// valid position), or `None` for a king or when no kind fits.
fn as_enemy(pos: &Position, sq: Square, enemy: Color) -> Option<Position> {
    use xq_core::{Piece, PieceKind};
    if pos.piece_at(sq)?.kind == PieceKind::King {
        return None;
    }
    [
        PieceKind::Rook,
        PieceKind::Horse,
        PieceKind::Cannon,
        PieceKind::Pawn,
        PieceKind::Advisor,
        PieceKind::Elephant,
    ]
    .into_iter()
    .find_map(|kind| {
        let mut setup = pos.to_setup();
        setup.put(sq, Piece::new(enemy, kind));
        Position::from_setup(&setup).ok()
    })
}
