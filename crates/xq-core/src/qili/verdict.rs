//! The verdict on a cycle from the classes of its moves (24, 26, 000 第三节 二), streaming:
//! each side's moves are tallied, so no list of classes is needed.

use super::classify::MoveInfo;
use super::{MoveClass, RuleSet};
use crate::outcome::{GameResult, Outcome, Termination};
use crate::types::Color;

/// What one side did over the cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideTally {
    /// Moves the side played in the cycle.
    pub moves: u32,
    /// Of those, checks.
    pub checks: u32,
    /// Of those, mate threats.
    pub mate_threats: u32,
    /// Of those, chases.
    pub chases: u32,
    /// Whether some chase is graded B (26.9: joint, through checks, or of an insufficiently
    /// protected piece).
    pub grade_b: bool,
    /// Of the chases, those that chase some piece not chased before the move.
    pub new_chases: u32,
}

impl SideTally {
    /// Adds one classified move.
    pub fn add(&mut self, info: &MoveInfo) {
        self.moves += 1;
        match info.class {
            MoveClass::Check => self.checks += 1,
            MoveClass::MateThreat => self.mate_threats += 1,
            MoveClass::Chase => {
                self.chases += 1;
                self.grade_b |= info.grade_b;
                self.new_chases += u32::from(!info.continuing);
            }
            MoveClass::Idle => {}
        }
    }

    /// The 26.9 grade is B: some chase is graded B, or every chase only continues a chase
    /// that stood before the move (从捉到捉; 2020 figure 3: the side that merely keeps a
    /// chase while the other side chases anew does not have to vary, as the seeds' cases
    /// 6 and 7 decide such positions).
    pub fn grade_b(&self) -> bool {
        self.grade_b
            || (super::readings::on(super::readings::GRADE_A_PLAIN)
                && self.chases > 0
                && self.new_chases == 0)
    }

    fn attacks(&self) -> u32 {
        self.checks + self.mate_threats + self.chases
    }

    /// Every move checked (长将).
    pub fn perpetual_check(&self) -> bool {
        self.moves > 0 && self.checks == self.moves
    }

    /// Every move attacked (禁止着法).
    pub fn forbidden(&self) -> bool {
        self.moves > 0 && self.attacks() == self.moves
    }

    /// The reason a forbidden side loses: chases only, mate threats only, or a mix.
    fn reason(&self) -> Termination {
        if self.chases == self.moves {
            Termination::PerpetualChase
        } else if self.mate_threats == self.moves {
            Termination::PerpetualMateThreat
        } else {
            Termination::PerpetualAttack
        }
    }
}

fn loses(side: Color, reason: Termination, article: &'static str) -> Outcome {
    Outcome { must_vary: Some(side), ..Outcome::new(GameResult::loss_for(side), reason, article) }
}

/// Decides a cycle from the two sides' tallies.
///
/// Articles: 26.1 (perpetual check loses even against another forbidden pattern, principle
/// 二), principle 六 / 26.1 (both check on every move: draw), 26.4 (forbidden against
/// allowed), 26.2 (both allowed), 26.3 (both forbidden; under `cxa2020` graded by 26.9).
pub fn decide(red: &SideTally, black: &SideTally, rules: RuleSet) -> Outcome {
    match (red.perpetual_check(), black.perpetual_check()) {
        (true, true) => return Outcome::new(GameResult::Draw, Termination::MutualPerpetualCheck, "26.1"),
        (true, false) => return loses(Color::Red, Termination::PerpetualCheck, "26.1"),
        (false, true) => return loses(Color::Black, Termination::PerpetualCheck, "26.1"),
        (false, false) => {}
    }
    // A pawn alone attacking stays idle under both rule sets, also in a mutual 长打: the
    // seeds' 27.2 exception is a classification rule that the 2020 edition dropped (its
    // figure 14), and both rule sets share the 2020 classification (see `RuleSet::Cxa`).
    match (red.forbidden(), black.forbidden()) {
        (true, false) => loses(Color::Red, red.reason(), "26.4"),
        (false, true) => loses(Color::Black, black.reason(), "26.4"),
        (false, false) => Outcome::new(GameResult::Draw, Termination::BothAllowed, "26.2"),
        (true, true) => {
            if rules == RuleSet::Cxa2020 {
                // 26.9: grade A (single-piece chases of a rook or an unprotected piece,
                // checks, mate threats) against grade B: the A side must vary.
                match (red.grade_b(), black.grade_b()) {
                    (false, true) => return loses(Color::Red, Termination::BothForbidden, "26.9"),
                    (true, false) => return loses(Color::Black, Termination::BothForbidden, "26.9"),
                    _ => return Outcome::new(GameResult::Draw, Termination::BothForbidden, "26.9"),
                }
            }
            Outcome::new(GameResult::Draw, Termination::BothForbidden, "26.3")
        }
    }
}
