//! 棋例: classification of the moves of a repetition cycle and its verdict.

use crate::outcome::{GameResult, Outcome, Termination};
use crate::position::Position;
use crate::types::{Color, Move};

/// Which repetition rules decide a cycle; recorded with every game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum RuleSet {
    /// The seeds' rulebook (articles 24–29): both sides forbidden is a draw.
    #[default]
    Cxa,
    /// The 2020 edition's details (RULES.md §3a), including the 26.9 grading.
    Cxa2020,
}

impl RuleSet {
    /// `"cxa"` or `"cxa2020"`.
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::Cxa => "cxa",
            RuleSet::Cxa2020 => "cxa2020",
        }
    }

    /// Parses `"cxa"` or `"cxa2020"`.
    pub fn parse(s: &str) -> Option<RuleSet> {
        match s {
            "cxa" => Some(RuleSet::Cxa),
            "cxa2020" => Some(RuleSet::Cxa2020),
            _ => None,
        }
    }
}

/// The class of one move of a cycle, most serious first (27.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveClass {
    /// 将: attacks the enemy king.
    Check,
    /// 杀: threatens mate by a check or consecutive checks.
    MateThreat,
    /// 捉: threatens to win an unprotected piece.
    Chase,
    /// 闲: anything else.
    Idle,
}

impl MoveClass {
    /// Whether the class is an attack (打).
    pub const fn is_attack(self) -> bool {
        !matches!(self, MoveClass::Idle)
    }
}

/// The verdict on a cycle and the class of each of its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// One class per move of the cycle.
    pub classes: Vec<MoveClass>,
    /// The result.
    pub outcome: Outcome,
}

/// Judges the cycle `moves[start..]`, where `positions[i]` is the position before `moves[i]`
/// and `positions.len() == moves.len() + 1`.
pub fn judge(positions: &[Position], moves: &[Move], start: usize, rule_set: RuleSet) -> Judgement {
    let _ = rule_set;
    let classes: Vec<MoveClass> = (start..moves.len())
        .map(|i| if positions[i + 1].in_check() { MoveClass::Check } else { MoveClass::Idle })
        .collect();
    let mover = |k: usize| positions[start + k].side_to_move();
    let all_check = |c: Color| {
        classes.iter().enumerate().filter(|(k, _)| mover(*k) == c).all(|(_, cl)| *cl == MoveClass::Check)
    };
    let (red, black) = (all_check(Color::Red), all_check(Color::Black));
    let outcome = match (red, black) {
        (true, true) => Outcome::new(GameResult::Draw, Termination::MutualPerpetualCheck, "26.1"),
        (true, false) => Outcome {
            must_vary: Some(Color::Red),
            ..Outcome::new(GameResult::loss_for(Color::Red), Termination::PerpetualCheck, "26.1")
        },
        (false, true) => Outcome {
            must_vary: Some(Color::Black),
            ..Outcome::new(GameResult::loss_for(Color::Black), Termination::PerpetualCheck, "26.1")
        },
        (false, false) => Outcome::new(GameResult::Draw, Termination::BothAllowed, "26.2"),
    };
    Judgement { classes, outcome }
}
