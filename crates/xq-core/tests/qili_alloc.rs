//! `qili::judge_outcome` is called by the search at repeated positions inside its tree, so
//! it must not touch the allocator: every rulebook case is judged under a counting
//! allocator and must cost zero allocations.

use serde_json::Value;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use xq_core::qili::{RuleSet, judge_outcome};
use xq_core::{Move, Position, notation::parse_move};

struct Counting;

thread_local! {
    /// Allocations made by this thread: the test harness's own threads (its output
    /// capture, its timers) allocate too and must not be counted against the judge.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: the thread-local may already be gone while a thread shuts down.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: forwards to the system allocator; only counts calls.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The cases of `data/qili/cases.json`: positions before every move, moves, cycle start.
fn cases() -> Vec<(Vec<Position>, Vec<Move>, usize)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/qili/cases.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("JSON");
    json["cases"]
        .as_array()
        .expect("a cases array")
        .iter()
        .map(|c| {
            let mut pos = Position::from_fen(c["fen"].as_str().expect("fen")).expect("valid FEN");
            let (mut positions, mut moves) = (vec![pos], Vec::new());
            for m in c["moves"].as_array().expect("moves") {
                let mv = parse_move(&pos, m.as_str().expect("move text")).expect("legal move");
                pos = pos.after(mv);
                positions.push(pos);
                moves.push(mv);
            }
            (positions, moves, c["cycle_start_ply"].as_u64().expect("start") as usize)
        })
        .collect()
}

#[test]
fn judging_a_cycle_does_not_allocate() {
    let cases = cases();
    assert!(cases.len() >= 50);
    for rules in [RuleSet::Cxa, RuleSet::Cxa2020] {
        let before = allocations();
        let mut judged = 0;
        for (positions, moves, start) in &cases {
            judged += usize::from(judge_outcome(positions, moves, *start, rules).is_ok());
        }
        let allocations = allocations() - before;
        assert_eq!(judged, cases.len());
        assert_eq!(allocations, 0, "{rules:?}: judge_outcome allocated");
    }
}
