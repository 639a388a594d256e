//! `parse_move` on random positions: the first two bytes choose the position (a seed and a
//! number of random plies from the start), the rest is the move text. Whatever is accepted
//! must be legal.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_core::Position;
use xq_core::notation::parse_move;

fuzz_target!(|data: &[u8]| {
    let [seed, plies, rest @ ..] = data else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let mut state = u64::from(*seed) << 8 | u64::from(*plies);
    let mut pos = Position::startpos();
    for _ in 0..*plies % 120 {
        // splitmix64
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
    if let Ok(m) = parse_move(&pos, text) {
        assert!(pos.is_legal(m));
    }
});
