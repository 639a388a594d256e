//! WXF: any UTF-8 text into `WxfMove`; an accepted move re-parses from its canonical text,
//! and a resolved move is legal and written back to text that names it again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xq_core::Position;
use xq_core::notation::{WxfMove, wxf};

/// The start and a crowded ending (tandem pawns and rooks), black to move.
const FENS: [&str; 2] = [xq_core::START_FEN, "3k5/3r5/9/2p3p2/2p3p2/2p6/4R4/9/4R4/5K3 b - - 0 1"];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(w) = text.parse::<WxfMove>() else { return };
    assert_eq!(w.to_string().parse::<WxfMove>().ok(), Some(w));
    for fen in FENS {
        let Ok(pos) = Position::from_fen(fen) else { return };
        for side in [pos, pos.with_side_to_move(pos.side_to_move().opponent())] {
            if let Ok(m) = w.to_move(&side) {
                assert!(side.is_legal(m));
                assert_eq!(wxf(&side, m).parse::<WxfMove>().ok().map(|c| c.to_move(&side)), Some(Ok(m)));
            }
        }
    }
});
