//! `qili::judge_outcome` is called by the search at repeated positions inside its tree, so
//! it must not touch the allocator: every rulebook case is judged under a counting
//! allocator and must cost zero allocations.

mod common;
mod counting_alloc;

use common::load_rulebook_cases;
use counting_alloc::allocations;
use xq_core::qili::{RuleSet, judge_outcome};

#[test]
fn judging_a_cycle_does_not_allocate() {
    let cases = load_rulebook_cases();
    assert!(cases.len() >= 50);
    for rules in [RuleSet::Cxa, RuleSet::Cxa2020] {
        let before = allocations();
        let mut judged = 0;
        for case in &cases {
            judged += usize::from(judge_outcome(&case.positions, &case.moves, case.start, rules).is_ok());
        }
        let allocations = allocations() - before;
        assert_eq!(judged, cases.len());
        assert_eq!(allocations, 0, "{rules:?}: judge_outcome allocated");
    }
}
