//! Property tests of the 棋例 judge on seeded random game histories: classification never
//! panics, and a verdict never names a side that did not move in the judged cycle.

use proptest::prelude::*;
use xq_core::qili::{RuleSet, judge_outcome, try_judge};
use xq_core::{Color, Move, Position};

/// A small deterministic generator (xorshift64*), so each case is reproducible from its seed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// A random game of up to `plies` moves, then a back-and-forth shuffle of two pieces when
/// possible (so the history ends in a real repetition). Returns positions and moves.
fn random_history(seed: u64, plies: usize) -> (Vec<Position>, Vec<Move>) {
    let mut rng = Rng::new(seed);
    let mut pos = Position::startpos();
    let mut positions = vec![pos];
    let mut moves = Vec::new();
    let push = |pos: &mut Position, m: Move, positions: &mut Vec<Position>, moves: &mut Vec<Move>| {
        *pos = pos.after(m);
        positions.push(*pos);
        moves.push(m);
    };
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return (positions, moves);
        }
        let m = legal[rng.below(legal.len())];
        push(&mut pos, m, &mut positions, &mut moves);
    }
    // Shuffle: a move, a reply, and both taken back by the reverse moves, if legal.
    let legal = pos.legal_moves();
    let quiet: Vec<Move> = legal.iter().copied().filter(|m| pos.piece_at(m.to()).is_none()).collect();
    if quiet.is_empty() {
        return (positions, moves);
    }
    let a = quiet[rng.below(quiet.len())];
    let after_a = pos.after(a);
    let replies: Vec<Move> =
        after_a.legal_moves().iter().copied().filter(|m| after_a.piece_at(m.to()).is_none()).collect();
    if replies.is_empty() {
        return (positions, moves);
    }
    let b = replies[rng.below(replies.len())];
    for m in [a, b, Move::new(a.to(), a.from()), Move::new(b.to(), b.from())] {
        if !pos.is_legal(m) {
            break;
        }
        push(&mut pos, m, &mut positions, &mut moves);
    }
    (positions, moves)
}

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
