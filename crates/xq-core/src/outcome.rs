//! How a game ended: the result, the reason and the rule article it rests on.

use crate::types::Color;
use std::fmt;

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// Red won.
    RedWins,
    /// Black won.
    BlackWins,
    /// Drawn.
    Draw,
}

impl GameResult {
    /// The win for `color`.
    pub const fn win_for(color: Color) -> GameResult {
        match color {
            Color::Red => GameResult::RedWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    /// The loss for `color` (the win for the other side).
    pub const fn loss_for(color: Color) -> GameResult {
        GameResult::win_for(color.opponent())
    }

    /// +1 win, 0 draw, -1 loss, from `color`'s point of view.
    pub const fn score_for(self, color: Color) -> i8 {
        match (self, color) {
            (GameResult::Draw, _) => 0,
            (GameResult::RedWins, Color::Red) | (GameResult::BlackWins, Color::Black) => 1,
            _ => -1,
        }
    }

    /// The winner, if any.
    pub const fn winner(self) -> Option<Color> {
        match self {
            GameResult::RedWins => Some(Color::Red),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Draw => None,
        }
    }

    /// PGN-style result: `1-0`, `0-1` or `1/2-1/2`.
    pub const fn pgn(self) -> &'static str {
        match self {
            GameResult::RedWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// The 棋例 verdict spelling used by the CLI and data sets: `red_loses`, `black_loses`, `draw`.
    pub const fn verdict_name(self) -> &'static str {
        match self {
            GameResult::RedWins => "black_loses",
            GameResult::BlackWins => "red_loses",
            GameResult::Draw => "draw",
        }
    }
}

/// Why a game ended. Repetition reasons come from the 棋例 judge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// The side to move is in check with no legal move (将死).
    Checkmate,
    /// The side to move is not in check and has no legal move (困毙): it loses.
    Stalemate,
    /// The natural move limit: too many plies without a capture (自然限着).
    MoveLimit,
    /// Neither side has a piece that can give mate.
    InsufficientMaterial,
    /// Repetition: one side checked on every move of the cycle and the other did not (长将).
    PerpetualCheck,
    /// Repetition: one side was forbidden by chasing (长捉 …) and the other was allowed.
    PerpetualChase,
    /// Repetition: one side was forbidden by mate threats (长杀 …) and the other was allowed.
    PerpetualMateThreat,
    /// Repetition: one side was forbidden by a mix of attacks (一将一捉, 一杀一捉 …) and the
    /// other was allowed.
    PerpetualAttack,
    /// Repetition: both sides checked on every move: draw.
    MutualPerpetualCheck,
    /// Repetition: both sides forbidden: draw (or, under `cxa2020`, graded by 26.9).
    BothForbidden,
    /// Repetition: both sides allowed: draw.
    BothAllowed,
    /// A side resigned.
    Resignation,
    /// A game runner stopped a game at its maximum length and adjudicated a draw.
    MaxLength,
    /// A player broke the protocol: an illegal move, a crash or a hang.
    Forfeit,
    /// A player ran out of time.
    TimeForfeit,
    /// The players agreed a draw, or an adjudicator declared one.
    DrawAdjudication,
}

impl Termination {
    /// Every termination, in declaration order.
    pub const ALL: [Termination; 16] = [
        Termination::Checkmate,
        Termination::Stalemate,
        Termination::MoveLimit,
        Termination::InsufficientMaterial,
        Termination::PerpetualCheck,
        Termination::PerpetualChase,
        Termination::PerpetualMateThreat,
        Termination::PerpetualAttack,
        Termination::MutualPerpetualCheck,
        Termination::BothForbidden,
        Termination::BothAllowed,
        Termination::Resignation,
        Termination::MaxLength,
        Termination::Forfeit,
        Termination::TimeForfeit,
        Termination::DrawAdjudication,
    ];

    /// Snake-case name used in JSON and Parquet.
    pub const fn name(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::MoveLimit => "move_limit",
            Termination::InsufficientMaterial => "insufficient_material",
            Termination::PerpetualCheck => "perpetual_check",
            Termination::PerpetualChase => "perpetual_chase",
            Termination::PerpetualMateThreat => "perpetual_mate_threat",
            Termination::PerpetualAttack => "perpetual_attack",
            Termination::MutualPerpetualCheck => "mutual_perpetual_check",
            Termination::BothForbidden => "both_forbidden",
            Termination::BothAllowed => "both_allowed",
            Termination::Resignation => "resignation",
            Termination::MaxLength => "max_length",
            Termination::Forfeit => "forfeit",
            Termination::TimeForfeit => "time_forfeit",
            Termination::DrawAdjudication => "draw_adjudication",
        }
    }

    /// Whether this reason comes from a repetition verdict.
    pub const fn is_repetition(self) -> bool {
        matches!(
            self,
            Termination::PerpetualCheck
                | Termination::PerpetualChase
                | Termination::PerpetualMateThreat
                | Termination::PerpetualAttack
                | Termination::MutualPerpetualCheck
                | Termination::BothForbidden
                | Termination::BothAllowed
        )
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A finished game: who won, why, and by which article.
///
/// ```
/// use xq_core::{Color, GameResult, Outcome, Termination};
/// let o = Outcome::new(GameResult::loss_for(Color::Red), Termination::Checkmate, "4.1.1");
/// assert_eq!(o.result, GameResult::BlackWins);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// Win, loss or draw.
    pub result: GameResult,
    /// Why the game ended.
    pub reason: Termination,
    /// The rulebook article (of the seeds' rulebook, or the 2020 edition under `cxa2020`).
    pub article: &'static str,
    /// For repetitions: the side that had to vary (the one that loses when it does not).
    pub must_vary: Option<Color>,
}

impl Outcome {
    /// An outcome without a side that had to vary.
    pub const fn new(result: GameResult, reason: Termination, article: &'static str) -> Outcome {
        Outcome { result, reason, article, must_vary: None }
    }
}
