//! FEN: any UTF-8 text into `parse_setup` and `Position::from_fen`; an accepted FEN must
//! survive writing and reading back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_core::{Position, parse_setup};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = parse_setup(text);
    if let Ok(pos) = Position::from_fen(text) {
        assert_eq!(Position::from_fen(&pos.fen()).ok(), Some(pos));
    }
});
