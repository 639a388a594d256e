//! Property tests of the 棋例 judge on seeded random game histories: classification never
//! panics, and a verdict never names a side that did not move in the judged cycle.

mod common;

use common::random_history;
use proptest::prelude::*;
use xq_core::Color;
use xq_core::qili::{RuleSet, judge_outcome, try_judge};

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn classification_never_panics_and_verdicts_name_only_movers(
        seed in any::<u64>(),
        plies in 0usize..160,
        cycle_len in 1usize..9,
    ) {
        let (positions, moves) = random_history(seed, plies);
        prop_assume!(!moves.is_empty());
        let start = moves.len().saturating_sub(cycle_len);
        for rules in [RuleSet::Cxa, RuleSet::Cxa2020] {
            let j = try_judge(&positions, &moves, start, rules).expect("a legal history is judgeable");
            prop_assert_eq!(j.classes.len(), moves.len() - start);
            let movers: Vec<Color> = (start..moves.len()).map(|i| positions[i].side_to_move()).collect();
            if let Some(loser) = j.outcome.result.winner().map(Color::opponent) {
                prop_assert!(movers.contains(&loser), "the loser {:?} did not move in the cycle", loser);
            }
            if let Some(side) = j.outcome.must_vary {
                prop_assert!(movers.contains(&side), "{:?} must vary but did not move", side);
            }
            // The allocation-free query agrees with the full judgement.
            let o = judge_outcome(&positions, &moves, start, rules).expect("judgeable");
            prop_assert_eq!(o, j.outcome);
        }
    }
}

#[test]
fn inconsistent_histories_are_errors_not_panics() {
    let (positions, moves) = random_history(7, 10);
    assert!(try_judge(&positions, &moves, moves.len(), RuleSet::Cxa).is_err());
    assert!(try_judge(&positions[..2], &moves, 0, RuleSet::Cxa).is_err());
    // A move that is not legal where it stands.
    let mut wrong = moves.clone();
    wrong[3] = wrong[2];
    assert!(try_judge(&positions, &wrong, 0, RuleSet::Cxa).is_err());
}
