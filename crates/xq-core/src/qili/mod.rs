//! 棋例: classification of the moves of a repetition cycle and its verdict.
//!
//! Each move of a cycle is classified, most serious effect first (27.4): check, mate
//! threat, chase or idle ([`classify_move`]); then each side's pattern (forbidden when every
//! move attacks, allowed otherwise) decides the cycle ([`judge`], [`judge_outcome`]). The
//! choices the rulebook leaves open (search depths, piece values, what "new" means) are
//! documented on the constants of [`tactics`] and [`values`] and in `docs/QILI.md`.
//!
//! ```
//! use xq_core::{Game, GameRules, GameResult, Termination};
//! // The red rook checks on every move; black only answers: red loses (26.1).
//! let mut g = Game::from_fen("4k4/9/9/9/9/9/9/9/9/R2K5 w", GameRules::default()).unwrap();
//! for m in ["a0a9", "e9e8", "a9a8", "e8e9", "a8a9", "e9e8", "a9a8", "e8e9", "a8a9"] {
//!     g.play(xq_core::notation::parse_move(g.position(), m).unwrap()).unwrap();
//! }
//! let o = g.outcome().unwrap();
//! assert_eq!((o.result, o.reason), (GameResult::BlackWins, Termination::PerpetualCheck));
//! ```

mod classify;
#[doc(hidden)]
pub mod readings;
pub mod tactics;
mod threats;
pub mod values;
mod verdict;

pub use classify::{ChaseHow, Detail, IdleKind, MoveInfo, SquareSet, classify_move};
pub use verdict::{SideTally, decide};

use crate::outcome::Outcome;
use crate::position::Position;
use crate::types::{Color, Move};
use thiserror::Error;

/// Which repetition rules decide a cycle; recorded with every game.
///
/// Both rule sets classify moves alike (the 2020 book's labels, which the rulebook cases'
/// verdicts under both sets rest on); they differ in the verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum RuleSet {
    /// The seeds' verdict articles (26.1–26.4): both sides forbidden is a draw.
    ///
    /// They are applied to the shared (2020) classification, as the rulebook cases'
    /// `verdict_seed_rules` are. Where the seeds' own illustrated cases rest on
    /// classification rules the 2020 edition changed — 从捉到捉 idle (seeds case 6) and a
    /// pawn's attacks as chases in a mutual 长打 (27.2, seeds case 11) — `Cxa` follows the
    /// 2020 classification (docs/QILI.md, "One classification, two verdicts").
    #[default]
    Cxa,
    /// The 2020 edition's verdict (RULES.md §3a): both sides forbidden is graded by 26.9.
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

    /// Snake-case name: `check`, `mate_threat`, `chase`, `idle`.
    pub const fn name(self) -> &'static str {
        match self {
            MoveClass::Check => "check",
            MoveClass::MateThreat => "mate_threat",
            MoveClass::Chase => "chase",
            MoveClass::Idle => "idle",
        }
    }

    /// The Chinese term: 将 杀 捉 闲.
    pub const fn chinese(self) -> char {
        match self {
            MoveClass::Check => '将',
            MoveClass::MateThreat => '杀',
            MoveClass::Chase => '捉',
            MoveClass::Idle => '闲',
        }
    }
}

/// Why a cycle could not be judged.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum JudgeError {
    /// `positions` must hold the position before every move (`moves.len() + 1` entries or
    /// at least `moves.len()`), and `start` must lie inside `moves`.
    #[error("inconsistent history: {positions} positions, {moves} moves, cycle start {start}")]
    Inconsistent {
        /// Number of positions given.
        positions: usize,
        /// Number of moves given.
        moves: usize,
        /// The cycle start given.
        start: usize,
    },
    /// A move is not legal in the position before it.
    #[error("move {ply} ({iccs}) is not legal in its position")]
    IllegalMove {
        /// Its index in `moves`.
        ply: usize,
        /// The move in ICCS.
        iccs: String,
    },
}

/// The verdict on a cycle and the classification of each of its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// One class per move of the cycle.
    pub classes: Vec<MoveClass>,
    /// One full classification (class, detail, targets) per move of the cycle.
    pub moves: Vec<MoveInfo>,
    /// The result.
    pub outcome: Outcome,
}

fn check_history(positions: &[Position], moves: &[Move], start: usize) -> Result<(), JudgeError> {
    if positions.len() < moves.len() || start >= moves.len() {
        return Err(JudgeError::Inconsistent { positions: positions.len(), moves: moves.len(), start });
    }
    Ok(())
}

/// Classifies every move of `moves[start..]` into `visit` and returns the verdict, without
/// allocating. `positions[i]` is the position before `moves[i]`. With `lenient`, an
/// inconsistent history is judged up to its first inconsistency instead of failing.
fn judge_with(
    positions: &[Position],
    moves: &[Move],
    start: usize,
    rules: RuleSet,
    lenient: bool,
    mut visit: impl FnMut(MoveInfo),
) -> Result<Outcome, JudgeError> {
    if !lenient {
        check_history(positions, moves, start)?;
    }
    let mut tally = [SideTally::default(); 2];
    for i in start..moves.len().min(positions.len()) {
        let (before, m) = (&positions[i], moves[i]);
        if !before.is_legal(m) {
            if lenient {
                break;
            }
            return Err(JudgeError::IllegalMove { ply: i, iccs: m.iccs() });
        }
        let computed;
        let after = match positions.get(i + 1) {
            Some(p) => p,
            None => {
                computed = before.after(m);
                &computed
            }
        };
        let previous = if i > 0 { Some((moves[i - 1], &positions[i - 1])) } else { None };
        let info = classify::classify(before, m, after, previous);
        tally[before.side_to_move().index()].add(&info);
        visit(info);
    }
    Ok(decide(&tally[Color::Red.index()], &tally[Color::Black.index()], rules))
}

fn collect(
    positions: &[Position],
    moves: &[Move],
    start: usize,
    rules: RuleSet,
    lenient: bool,
) -> Result<Judgement, JudgeError> {
    let mut infos = Vec::with_capacity(moves.len().saturating_sub(start));
    let outcome = judge_with(positions, moves, start, rules, lenient, |info| infos.push(info))?;
    Ok(Judgement { classes: infos.iter().map(|i| i.class).collect(), moves: infos, outcome })
}

/// Judges the cycle `moves[start..]`, where `positions[i]` is the position before `moves[i]`
/// (`positions.len()` is `moves.len() + 1`, or `moves.len()`; the last position is only
/// read when present). The cycle need not return exactly to its first position (the
/// rulebook also judges a cycle spread over several squares).
pub fn try_judge(
    positions: &[Position],
    moves: &[Move],
    start: usize,
    rules: RuleSet,
) -> Result<Judgement, JudgeError> {
    collect(positions, moves, start, rules, false)
}

/// [`try_judge`] for a trusted history (a [`crate::Game`]'s, always consistent): an
/// inconsistent history is judged up to its first inconsistency rather than failing.
pub fn judge(positions: &[Position], moves: &[Move], start: usize, rules: RuleSet) -> Judgement {
    match collect(positions, moves, start, rules, true) {
        Ok(j) => j,
        // The lenient walk never fails; an empty judgement (both allowed) is its only
        // possible shape if it did.
        Err(_) => Judgement {
            classes: Vec::new(),
            moves: Vec::new(),
            outcome: decide(&SideTally::default(), &SideTally::default(), rules),
        },
    }
}

/// The verdict alone, for the search: classifies the cycle `moves[start..]` on the stack
/// and returns its [`Outcome`] without allocating, whatever the cycle's length (each side's
/// moves are tallied as they are classified). Costs one classification per move of the
/// cycle; each classification is bounded by [`tactics::NODE_BUDGET`].
pub fn judge_outcome(
    positions: &[Position],
    moves: &[Move],
    start: usize,
    rules: RuleSet,
) -> Result<Outcome, JudgeError> {
    judge_with(positions, moves, start, rules, false, |_| {})
}
