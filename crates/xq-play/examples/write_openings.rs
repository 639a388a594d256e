//! Recomputes the FEN of every entry of `data/openings/openings.json` from its moves and
//! writes the book back: `cargo run --release -p xq-play --example write_openings [PATH]`.
//! Edit names and moves by hand, then run this; `tests/openings_book.rs` checks the result.

use std::path::PathBuf;
use std::process::ExitCode;
use xq_play::{BOOK_PATH, Book};

fn main() -> ExitCode {
    let path = std::env::args().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(BOOK_PATH),
        PathBuf::from,
    );
    let result = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))
        .and_then(|text| serde_json::from_str::<Book>(&text).map_err(|e| e.to_string()))
        .and_then(|mut book| {
            book.fill_fens().map_err(|e| e.to_string())?;
            let json = book.to_json().map_err(|e| e.to_string())?;
            std::fs::write(&path, json).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            Ok(book.openings.len())
        });
    match result {
        Ok(n) => {
            println!("wrote {n} openings to {}", path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("write_openings: {e}");
            ExitCode::FAILURE
        }
    }
}
