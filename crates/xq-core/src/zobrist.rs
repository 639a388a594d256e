//! Zobrist keys, generated at compile time from a fixed seed so hashes are stable across runs
//! and builds (data sets record them).

use crate::seed::splitmix64;

/// `PIECE_KEYS[code][square]` for piece codes 1..=14 (row 0 is unused and zero).
pub(crate) static PIECE_KEYS: [[u64; 90]; 15] = {
    let mut keys = [[0u64; 90]; 15];
    let mut state = 0x5851_F42D_4C95_7F2D_u64;
    let mut code = 1;
    while code < 15 {
        let mut s = 0;
        while s < 90 {
            let (next, value) = splitmix64(state);
            state = next;
            keys[code][s] = value;
            s += 1;
        }
        code += 1;
    }
    keys
};

/// XORed in when black is to move.
pub(crate) const BLACK_TO_MOVE: u64 = 0xF3B5_4E1D_88A7_62C9;
