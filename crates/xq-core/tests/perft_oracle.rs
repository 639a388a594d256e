//! Every perft count in `data/oracles/perft_positions.json` (copied from the project's shared
//! oracles: Pikafish and Fairy-Stockfish counts), to depth 4; the start position also to 5.

use serde_json::Value;
use xq_core::{Position, perft::perft};

fn oracle() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/oracles/perft_positions.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("oracle file")).expect("oracle JSON")
}

fn check(fen: &str, depth: u32, expected: u64) {
    let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert_eq!(perft(&pos, depth), expected, "perft({depth}) of {fen}");
}

#[test]
fn pikafish_bench_positions_to_depth_4() {
    let o = oracle();
    let positions = o["pikafish_bench"]["positions"].as_array().expect("positions");
    assert_eq!(positions.len(), 49);
    for p in positions {
        let fen = p["fen"].as_str().unwrap();
        for (i, c) in p["counts"].as_array().unwrap().iter().enumerate() {
            check(fen, i as u32 + 1, c.as_u64().unwrap());
        }
    }
}

#[test]
fn fairy_stockfish_positions() {
    let o = oracle();
    for p in o["fsf_perft_sh"]["positions"].as_array().unwrap() {
        check(p["fen"].as_str().unwrap(), p["depth"].as_u64().unwrap() as u32, p["nodes"].as_u64().unwrap());
    }
}

#[test]
fn start_position_to_depth_5() {
    let o = oracle();
    let fen = o["startpos"]["fen"].as_str().unwrap();
    let counts = o["startpos"]["counts"].as_array().unwrap();
    // Depth 5 takes seconds in release; depth 6 (5.4 billion) is checked by hand with
    // `xq perft --depth 6` and written down in the README.
    let max = if cfg!(debug_assertions) { 4 } else { 5 };
    for d in 1..=max {
        check(fen, d, counts[d as usize - 1].as_u64().unwrap());
    }
}
