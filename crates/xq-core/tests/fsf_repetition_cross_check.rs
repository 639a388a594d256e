//! Cross-check against an independent implementation: Fairy-Stockfish's repetition tests
//! (`data/oracles/fsf_repetition_cases.json`, from its test.py). Fairy-Stockfish follows the
//! Asian (AXF) rules, which agree with the Chinese rules on perpetual check, plain chases,
//! mutual checks and protection, and differ elsewhere. Every case where the two rule books
//! agree must get Fairy-Stockfish's result; the cases where they differ are listed below
//! with the reason, and must keep differing for that reason (the test checks the labels
//! that make the difference, so a list entry cannot hide an unrelated change).
//!
//! Each case is judged as a game would judge it: the cycle runs from the first occurrence
//! of the final position, under the default rule set (`cxa`).

mod common;

use common::replay;
use serde_json::Value;
use xq_core::qili::{MoveClass, RuleSet, try_judge};
use xq_core::{Color, GameResult};

/// A case whose Chinese ruling differs from Fairy-Stockfish's AXF ruling.
struct Difference {
    label: &'static str,
    /// Our result for the side to move after the last move.
    ours: &'static str,
    /// The classes (as named by [`MoveClass::name`]) of the cycle's moves that decide it.
    classes: &'static [&'static str],
    why: &'static str,
}

const DIFFERENCES: &[Difference] = &[
    Difference {
        label: "Discovered chase by cannon (incl. pawn capture)",
        ours: "draw",
        classes: &["chase", "chase", "chase", "chase", "chase", "chase", "chase", "chase"],
        why: "black's rook, escaping, attacks an unprotected cannon on every move (b0, a0): a chase \
              by the chased side counts (seeds case 11, mutual attacks), so both sides are \
              forbidden and the game is drawn (26.3)",
    },
    Difference {
        label: "Mutual perpetual check (5)",
        ours: "loss",
        classes: &[
            "mate_threat",
            "chase",
            "mate_threat",
            "idle",
            "mate_threat",
            "chase",
            "mate_threat",
            "idle",
            "mate_threat",
            "chase",
            "mate_threat",
            "idle",
            "mate_threat",
            "chase",
            "mate_threat",
            "idle",
        ],
        why: "black's two rooks threaten mate of the bare red king on every move (长杀, forbidden); \
              red's cannon chases every other move (allowed): black must vary (26.4)",
    },
    Difference {
        label: "D106: chariot 'chases' cannon but attack unchanged (draw)",
        ours: "loss",
        classes: &["chase", "idle", "chase", "idle", "chase", "idle", "chase", "idle"],
        why: "the rook keeps attacking the unprotected cannon; the 2020 book labels a chase that \
              continues a chase (figure 3, references 28 and 39), so red chases perpetually",
    },
    Difference {
        label: "D39: chased chariot pinned by horse + mutual chase",
        ours: "draw",
        classes: &["chase", "chase", "chase", "chase", "chase", "chase", "chase", "chase"],
        why: "the pinned black rook may still take the horse that pins it, and black's advisor \
              moves leave the horse on g8 unprotected in turn: both sides chase, draw (26.3)",
    },
    Difference {
        label: "D39 variant: chased chariot pinned by horse",
        ours: "draw",
        classes: &["chase", "chase", "chase", "chase", "chase", "chase", "chase", "chase"],
        why: "here red's rook is the pinned piece and may still take the horse that pins it: \
              red's advisor moves keep that chase (a continuing chase counts), while black's rook \
              and cannon take turns to attack the pinned rook: both sides forbidden, draw (26.3)",
    },
    Difference {
        label: "Discovered check capture threat by rook",
        ours: "draw",
        classes: &["chase", "chase", "chase", "chase", "chase", "chase", "chase", "chase"],
        why: "when the horse returns to b4 the elephant on e2 still attacks the rook on c0 (a \
              continuing chase, a chase in the 2020 book), so red chases on every move too: both \
              forbidden, draw (26.3)",
    },
];

#[test]
fn chinese_rulings_agree_with_fairy_stockfish_where_the_rule_books_agree() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/oracles/fsf_repetition_cases.json");
    let text = std::fs::read_to_string(path).expect("the oracle file is readable");
    let json: Value = serde_json::from_str(&text).expect("the oracle file is JSON");
    let cases = json["cases"].as_array().expect("a cases array");
    assert!(cases.len() >= 30, "the file holds Fairy-Stockfish's repetition tests");

    let (mut agreeing, mut differing) = (0, 0);
    let mut failures = Vec::new();
    for case in cases {
        let label = case["label"].as_str().expect("label");
        let Some(expected) = case["expected_for_side_to_move"].as_str() else {
            continue; // test.py leaves this one unchecked
        };
        let (positions, moves) = replay(case["fen"].as_str().expect("fen"), &case["moves_iccs"]);
        let last = *positions.last().expect("a position");
        let start = positions.iter().position(|p| *p == last).expect("the final position");
        assert!(start < moves.len(), "{label}: the moves end in a repetition");
        let judgement = try_judge(&positions, &moves, start, RuleSet::Cxa).expect("judgeable");
        let ours = match (judgement.outcome.result, last.side_to_move()) {
            (GameResult::Draw, _) => "draw",
            (GameResult::RedWins, Color::Red) | (GameResult::BlackWins, Color::Black) => "win",
            _ => "loss",
        };
        let classes: Vec<&str> = judgement.moves.iter().map(|i| i.class.name()).collect();
        match DIFFERENCES.iter().find(|d| d.label == label) {
            None if ours == expected => agreeing += 1,
            None => failures.push(format!(
                "{label}: Fairy-Stockfish {expected}, ours {ours} ({}, {classes:?})",
                judgement.outcome.reason
            )),
            Some(d) if ours == d.ours && ours != expected && classes == d.classes => {
                eprintln!("{label}: Fairy-Stockfish {expected}, ours {ours}: {}", d.why);
                differing += 1;
            }
            Some(d) => failures.push(format!(
                "{label}: listed as differing ({}), now ours {ours} with {classes:?}; Fairy-Stockfish {expected}",
                d.ours
            )),
        }
    }
    eprintln!("{agreeing} cases agree with Fairy-Stockfish, {differing} differ by the rules");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(differing, DIFFERENCES.len(), "every listed difference was met");
    // Guards against MoveClass::name drifting from the names used above.
    assert_eq!(MoveClass::MateThreat.name(), "mate_threat");
}
