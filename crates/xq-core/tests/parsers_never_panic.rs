//! No text makes a parser panic: arbitrary Unicode strings and near-valid strings (valid
//! alphabets, mutated FENs) go into the FEN parser, the three move notations and
//! `parse_move` on random positions. Where a parse succeeds, its result must be consistent
//! (re-parsing the canonical form gives the same value; an accepted move is legal).

use proptest::prelude::*;
use xq_core::notation::{ChineseMove, IccsMove, WxfMove, chinese, parse_move, wxf};
use xq_core::{Position, parse_setup};

/// FENs to mutate: the start, a middlegame, and a sparse ending with black to move.
const FENS: [&str; 3] = [
    xq_core::START_FEN,
    "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 4 3",
    "3k5/9/2P3P2/2P3P2/9/9/9/9/4A4/3AK4 b - - 0 60",
];

/// Characters of every notation and of FEN, plus a few that are close but wrong.
const NEAR_CHARS: &str = "abcdefghijABCDEFGHIJKNRPkabenhrcp0123456789+-=./ wr前中后後一二三四五六七八九十零帅帥将將仕士相象马馬傌车車俥炮砲包兵卒进進退平１２３４５６７８９０＋－＝ＣＲ王";

fn near_char() -> impl Strategy<Value = char> {
    let chars: Vec<char> = NEAR_CHARS.chars().collect();
    prop::sample::select(chars)
}

fn near_string(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(near_char(), 0..max).prop_map(|v| v.into_iter().collect())
}

/// A FEN from [`FENS`] with a few characters replaced, inserted or deleted.
fn mutated_fen() -> impl Strategy<Value = String> {
    (0..FENS.len(), prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, near_char()), 0..4))
        .prop_map(|(i, edits)| {
            let mut chars: Vec<char> = FENS[i].chars().collect();
            for (at, op, c) in edits {
                let at = at.index(chars.len() + 1);
                match op {
                    0 if at < chars.len() => chars[at] = c,
                    1 => chars.insert(at, c),
                    _ if at < chars.len() => {
                        chars.remove(at);
                    }
                    _ => {}
                }
            }
            chars.into_iter().collect()
        })
}

/// The position after `plies` random legal moves from the start (splitmix64 on `seed`).
fn random_position(seed: u64, plies: usize) -> Position {
    let mut state = seed;
    let mut pos = Position::startpos();
    for _ in 0..plies {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        pos.make(legal[(z % legal.len() as u64) as usize]);
    }
    pos
}

fn check_fen(text: &str) {
    let _ = parse_setup(text);
    if let Ok(pos) = Position::from_fen(text) {
        let again = Position::from_fen(&pos.fen());
        assert_eq!(again.as_ref().ok(), Some(&pos), "{text:?} -> {}", pos.fen());
    }
}

fn check_move_text(pos: &Position, text: &str) {
    if let Ok(iccs) = text.parse::<IccsMove>() {
        assert_eq!(iccs.to_string().parse::<IccsMove>().ok(), Some(iccs));
        let _ = iccs.to_move(pos);
    }
    if let Ok(w) = text.parse::<WxfMove>() {
        assert_eq!(w.to_string().parse::<WxfMove>().ok(), Some(w), "{text:?}");
        if let Ok(m) = w.to_move(pos) {
            assert!(pos.is_legal(m));
            assert_eq!(wxf(pos, m).parse::<WxfMove>().ok().map(|c| c.to_move(pos)), Some(Ok(m)));
        }
    }
    if let Ok(c) = text.parse::<ChineseMove>() {
        assert_eq!(c.to_string().parse::<ChineseMove>().ok(), Some(c), "{text:?}");
        if let Ok(m) = c.to_move(pos) {
            assert!(pos.is_legal(m));
            assert_eq!(chinese(pos, m).parse::<ChineseMove>().ok().map(|c| c.to_move(pos)), Some(Ok(m)));
        }
    }
    if let Ok(m) = parse_move(pos, text) {
        assert!(pos.is_legal(m), "{text:?} gave illegal {m:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn fen_arbitrary(text in any::<String>()) {
        check_fen(&text);
    }

    #[test]
    fn fen_near_valid(text in mutated_fen()) {
        check_fen(&text);
    }

    #[test]
    fn fen_near_alphabet(text in near_string(100)) {
        check_fen(&text);
    }

    #[test]
    fn moves_arbitrary(seed in any::<u64>(), plies in 0usize..120, text in any::<String>()) {
        check_move_text(&random_position(seed, plies), &text);
    }

    #[test]
    fn moves_near_alphabet(seed in any::<u64>(), plies in 0usize..120, text in near_string(7)) {
        check_move_text(&random_position(seed, plies), &text);
    }

    #[test]
    fn moves_near_wxf(
        seed in any::<u64>(),
        plies in 0usize..120,
        text in "[-+0-6]?[KABENHRCPkabenhrcpXＣ][0-9+=-]?[0-9]?[-+=.*][0-9０-９]",
    ) {
        check_move_text(&random_position(seed, plies), &text);
    }

    #[test]
    fn moves_near_chinese(
        seed in any::<u64>(),
        plies in 0usize..120,
        text in "[前中后後一二三四五六0-9]?[帅将仕士相象马傌车炮包兵卒王]?[一二三四五六七八九十1-9０-９]?[进進退平跳][一二三四五六七八九零0-9１-９]",
    ) {
        check_move_text(&random_position(seed, plies), &text);
    }

    #[test]
    fn moves_near_iccs(seed in any::<u64>(), plies in 0usize..120, text in "[a-jA-J]?[0-9]?-?[a-j]?[0-9]{0,2}") {
        check_move_text(&random_position(seed, plies), &text);
    }
}
