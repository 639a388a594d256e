//! ICCS: any UTF-8 text into `IccsMove`; an accepted move re-parses from its own text and
//! resolves to a legal move or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_core::Position;
use xq_core::notation::IccsMove;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(m) = text.parse::<IccsMove>() {
        assert_eq!(m.to_string().parse::<IccsMove>().ok(), Some(m));
        if let Ok(legal) = m.to_move(&Position::startpos()) {
            assert!(Position::startpos().is_legal(legal));
        }
    }
});
