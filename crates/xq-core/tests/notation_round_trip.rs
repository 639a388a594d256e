//! Every move written in ICCS, WXF and Chinese reads back as the same move, and as exactly one
//! legal move, over seeded random games and over random crowded positions (many pawns and
//! doubled pieces, where the tandem forms are needed).

use xq_core::notation::{ChineseMove, IccsMove, WxfMove, chinese, parse_move, wxf};
use xq_core::{Color, Move, Piece, PieceKind, Position, Setup, Square};

use xq_testkit::SplitMix64;

/// Checks that `m` survives every notation and that each rendering names exactly one move.
fn check_move(pos: &Position, m: Move) {
    let ctx = || format!("{} in {}", m.iccs(), pos.fen());

    let iccs = IccsMove::from(m).to_string();
    assert_eq!(iccs.parse::<IccsMove>().unwrap().to_move(pos), Ok(m), "ICCS {iccs}: {}", ctx());

    let w = wxf(pos, m);
    let parsed: WxfMove = w.parse().unwrap_or_else(|e| panic!("WXF {w} does not parse ({e}): {}", ctx()));
    assert_eq!(parsed.to_string(), w, "WXF {w} is not canonical: {}", ctx());
    assert_eq!(parsed.0.candidates(pos), vec![m], "WXF {w}: {}", ctx());
    assert_eq!(parsed.to_move(pos), Ok(m), "WXF {w}: {}", ctx());

    let c = chinese(pos, m);
    let parsed: ChineseMove =
        c.parse().unwrap_or_else(|e| panic!("Chinese {c} does not parse ({e}): {}", ctx()));
    assert_eq!(parsed.to_string(), c, "Chinese {c} is not canonical: {}", ctx());
    assert_eq!(parsed.description.candidates(pos), vec![m], "Chinese {c}: {}", ctx());
    assert_eq!(parsed.to_move(pos), Ok(m), "Chinese {c}: {}", ctx());

    for text in [&iccs, &w, &c] {
        assert_eq!(parse_move(pos, text), Ok(m), "parse_move {text}: {}", ctx());
    }
}

#[test]
fn random_games_round_trip() {
    let mut rng = SplitMix64::new(0x5EED_0001);
    let (mut moves_checked, mut plies) = (0usize, 0usize);
    for game in 0..2000 {
        let mut pos = Position::startpos();
        for ply in 0..200 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            // Every move of every 32nd position, and the move played everywhere.
            if (game + ply) % 32 == 0 {
                for &m in legal.iter() {
                    check_move(&pos, m);
                    moves_checked += 1;
                }
            }
            let m = legal[rng.below(legal.len())];
            check_move(&pos, m);
            moves_checked += 1;
            plies += 1;
            pos.make(m);
        }
    }
    eprintln!("random games: {plies} plies, {moves_checked} moves checked");
    assert!(plies > 100_000, "only {plies} plies played");
    assert!(moves_checked > plies);
}

/// Red's advisor and elephant points; black's are their top–bottom mirrors.
const ADVISOR_POINTS: [&str; 5] = ["d0", "f0", "e1", "d2", "f2"];
const ELEPHANT_POINTS: [&str; 7] = ["c0", "g0", "a2", "e2", "i2", "c4", "g4"];

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

/// A random legal position crowded onto few files: pawns across the river on two or three
/// files, rooks, horses and cannons often sharing a file.
fn crowded_position(rng: &mut SplitMix64) -> Option<Position> {
    let mut setup = Setup::empty();
    setup.side_to_move = if rng.below(2) == 0 { Color::Red } else { Color::Black };
    let free = |setup: &mut Setup, square: Square, piece: Piece| {
        if setup.board[square.index()].is_none() {
            setup.put(square, piece);
        }
    };
    for color in Color::ALL {
        let own = |s: Square| if color == Color::Red { s } else { s.flip_rank() };
        let piece = |kind| Piece::new(color, kind);
        let king = Square::new(3 + rng.below(3) as u8, rng.below(3) as u8)?;
        free(&mut setup, own(king), piece(PieceKind::King));
        for _ in 0..rng.below(3) {
            free(&mut setup, own(sq(ADVISOR_POINTS[rng.below(5)])), piece(PieceKind::Advisor));
        }
        for _ in 0..rng.below(3) {
            free(&mut setup, own(sq(ELEPHANT_POINTS[rng.below(7)])), piece(PieceKind::Elephant));
        }
        let shared_file = rng.below(9) as u8;
        for kind in [PieceKind::Rook, PieceKind::Horse, PieceKind::Cannon] {
            for _ in 0..rng.below(3) {
                let file = if rng.below(2) == 0 { shared_file } else { rng.below(9) as u8 };
                free(&mut setup, Square::new(file, rng.below(10) as u8)?, piece(kind));
            }
        }
        let pawn_files = [rng.below(9) as u8, rng.below(9) as u8, rng.below(9) as u8];
        for _ in 0..rng.below(6) {
            let files_used = if rng.below(4) == 0 { 3 } else { 2 };
            let file = pawn_files[rng.below(files_used)];
            let across = Square::new(file, 5 + rng.below(5) as u8)?;
            free(&mut setup, own(across), piece(PieceKind::Pawn));
        }
    }
    Position::from_setup(&setup).ok()
}

#[test]
fn crowded_positions_round_trip() {
    let mut rng = SplitMix64::new(0x5EED_0002);
    let (mut positions, mut moves, mut tandem) = (0usize, 0usize, 0usize);
    while positions < 5000 {
        let Some(pos) = crowded_position(&mut rng) else { continue };
        positions += 1;
        for &m in pos.legal_moves().iter() {
            check_move(&pos, m);
            moves += 1;
            let w = wxf(&pos, m);
            tandem += usize::from(!w.starts_with(|c: char| c.is_ascii_alphabetic()));
        }
    }
    eprintln!("crowded positions: {positions} positions, {moves} moves, {tandem} in tandem form");
    assert!(moves > 50_000, "only {moves} moves");
    // The point of these positions: plenty of moves need the tandem forms.
    assert!(tandem > 5_000, "only {tandem} tandem moves");
}
