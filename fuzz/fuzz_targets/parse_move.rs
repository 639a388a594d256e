//! `parse_move` on random positions: the first byte picks one of 256 positions reached by
//! seeded random play from the start (built once), the rest is the move text. Whatever is
//! accepted must be legal.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use xq_core::Position;
use xq_core::notation::parse_move;

/// Position `i` is the start after `i % 120` random plies chosen by splitmix64 seeded with `i`.
fn positions() -> &'static [Position] {
    static POSITIONS: OnceLock<Vec<Position>> = OnceLock::new();
    POSITIONS.get_or_init(|| {
        (0..256u64)
            .map(|i| {
                let mut state = i;
                let mut pos = Position::startpos();
                for _ in 0..i % 120 {
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
            })
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let [index, rest @ ..] = data else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let Some(pos) = positions().get(usize::from(*index)) else { return };
    if let Ok(m) = parse_move(pos, text) {
        assert!(pos.is_legal(m));
    }
});
