//! Writes the opening book of the strength scale (`data/scale/openings-v1.json`):
//!
//! ```sh
//! cargo run --release -p xq-eval --example scale_openings > data/scale/openings-v1.json
//! ```
//!
//! Most anchors are deterministic (alpha-beta at a fixed depth, MCTS at fixed visits): two of
//! them replay the same game from the same opening with the same colours, so the bundled book's
//! 27 lines give at most 54 different games per pair, too few for a ±40 Elo interval. This
//! extends every bundled line by two plies, each a move alpha-beta at depth 3 rates within
//! [`MARGIN_CP`] of the best, so the positions stay balanced and recognisably those of the
//! named opening; then keeps a seeded sample of [`SUITE_SIZE`] distinct positions. Everything
//! is deterministic: the same build writes the same file.

use xq_core::seed::SplitMix64;
use xq_core::{Game, GameRules, Move};
use xq_play::{AlphaBetaConfig, AlphaBetaPlayer, Book, BookEntry, SearchLimits};

/// A continuation is kept when its score is within this many centipawns of the best move's.
const MARGIN_CP: i32 = 25;
/// Plies added to every bundled line.
const EXTRA_PLIES: usize = 2;
/// Lines in the suite.
const SUITE_SIZE: usize = 240;
/// Seed of the sample.
const SEED: u64 = 2026;
/// Depth of the search that scores each reply to a candidate move (depth 3 for the move).
const REPLY_DEPTH: u32 = 2;

/// The moves within [`MARGIN_CP`] of the best for the side to move, in move order.
fn good_moves(game: &mut Game) -> Vec<Move> {
    let moves = game.position().legal_moves();
    let mut scored = Vec::new();
    for &mv in moves.iter() {
        game.play_unchecked(mv);
        if game.outcome().is_none() {
            // A fresh player each time: a search's tables must not depend on the one before.
            let mut player =
                AlphaBetaPlayer::new(AlphaBetaConfig { default_depth: REPLY_DEPTH, tt_bits: 14 });
            if let Ok(reply) =
                player.search(game, &SearchLimits { depth: Some(REPLY_DEPTH), ..SearchLimits::NONE })
                && let Some(score) = reply.score
            {
                scored.push((mv, -score.centipawns()));
            }
        }
        game.undo();
    }
    let best = scored.iter().map(|s| s.1).max().unwrap_or(0);
    scored.into_iter().filter(|s| s.1 >= best - MARGIN_CP).map(|s| s.0).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bundled = Book::bundled();
    let mut lines: Vec<(String, Vec<String>, String)> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (entry, opening) in bundled.openings.iter().zip(bundled.playable()?) {
        let mut frontier: Vec<Vec<Move>> = vec![Vec::new()];
        for _ in 0..EXTRA_PLIES {
            let mut next = Vec::new();
            for extra in &frontier {
                let mut game = opening.game(GameRules::default());
                for &mv in extra {
                    game.play_unchecked(mv);
                }
                for mv in good_moves(&mut game) {
                    let mut longer = extra.clone();
                    longer.push(mv);
                    next.push(longer);
                }
            }
            frontier = next;
        }
        for extra in frontier {
            let mut game = opening.game(GameRules::default());
            for &mv in &extra {
                game.play_unchecked(mv);
            }
            if game.outcome().is_some() || !seen.insert(game.fen()) {
                continue;
            }
            let moves: Vec<String> =
                entry.moves.iter().cloned().chain(extra.iter().map(ToString::to_string)).collect();
            let id = format!(
                "{}-{}",
                entry.id,
                extra.iter().map(ToString::to_string).collect::<Vec<_>>().join("-")
            );
            lines.push((id, moves, entry.id.clone()));
        }
    }
    // A seeded partial Fisher–Yates shuffle picks the sample; the suite is then sorted by id so
    // the file reads in opening order.
    let mut rng = SplitMix64::new(SEED);
    let take = SUITE_SIZE.min(lines.len());
    for i in 0..take {
        let j = i + rng.below(lines.len() - i);
        lines.swap(i, j);
    }
    lines.truncate(take);
    lines.sort();
    let mut book = Book {
        openings: lines
            .into_iter()
            .map(|(id, moves, parent)| {
                let named = bundled.openings.iter().find(|o| o.id == parent);
                BookEntry {
                    id,
                    name_zh: named.map(|o| o.name_zh.clone()).unwrap_or_default(),
                    pinyin: named.map(|o| o.pinyin.clone()).unwrap_or_default(),
                    name_en: named.map(|o| o.name_en.clone()).unwrap_or_default(),
                    start_fen: None,
                    moves,
                    fen: String::new(),
                }
            })
            .collect(),
    };
    book.fill_fens()?;
    book.verify()?;
    print!("{}", book.to_json()?);
    eprintln!("{} lines (of {} distinct candidates)", book.openings.len(), seen.len());
    Ok(())
}
