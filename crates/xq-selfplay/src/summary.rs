//! Counts kept while self-play runs, shown in the progress line and printed at the end.

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;
use xq_core::{GameResult, Termination};

/// How one finished game counts.
pub(crate) struct GameTally {
    pub result: GameResult,
    pub termination: Termination,
    pub plies: usize,
    /// For games that were not allowed to resign but would have: whether that would have
    /// been wrong (the side that would have resigned did not lose).
    pub false_resignation: Option<bool>,
}

/// What a self-play invocation did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Games the configuration asks for.
    pub games_total: u64,
    /// Games already on disk when this invocation started.
    pub games_before: u64,
    /// Games finished by this invocation.
    pub games_played: u64,
    /// Positions (samples) from those games.
    pub positions: u64,
    /// Plies of those games.
    pub plies: u64,
    /// Wall time of this invocation.
    pub seconds: f64,
    /// Red wins, black wins, draws.
    pub red_wins: u64,
    /// Black wins.
    pub black_wins: u64,
    /// Draws.
    pub draws: u64,
    /// How games ended, by termination name.
    pub terminations: BTreeMap<String, u64>,
    /// Games that were not allowed to resign but reached the resignation threshold.
    pub resign_checks: u64,
    /// Of those, how many the would-be resigner did not lose.
    pub false_resignations: u64,
    /// Whether the invocation stopped before finishing (`stop_after_shards`).
    pub interrupted: bool,
    /// Evaluator calls (batches).
    pub evaluator_batches: u64,
    /// Positions sent to the evaluator (search leaves; 0 for teacher games, which have none).
    pub evaluations: u64,
    /// Wall time spent inside the evaluator. The rest of `seconds` is tree search, rules,
    /// sample building and shard writing: the part a faster network cannot shorten.
    pub evaluator_seconds: f64,
}

impl Summary {
    pub(crate) fn new(total: u64, before: u64) -> Summary {
        Summary { games_total: total, games_before: before, ..Summary::default() }
    }

    pub(crate) fn record(&mut self, t: &GameTally) {
        self.games_played += 1;
        self.plies += t.plies as u64;
        match t.result {
            GameResult::RedWins => self.red_wins += 1,
            GameResult::BlackWins => self.black_wins += 1,
            GameResult::Draw => self.draws += 1,
        }
        *self.terminations.entry(t.termination.name().to_string()).or_default() += 1;
        if let Some(wrong) = t.false_resignation {
            self.resign_checks += 1;
            self.false_resignations += u64::from(wrong);
        }
    }

    /// Games per hour of this invocation.
    pub fn games_per_hour(&self) -> f64 {
        if self.seconds > 0.0 { self.games_played as f64 * 3600.0 / self.seconds } else { 0.0 }
    }

    /// Positions the evaluator scored per second of its own time.
    pub fn evaluations_per_second(&self) -> f64 {
        if self.evaluator_seconds > 0.0 { self.evaluations as f64 / self.evaluator_seconds } else { 0.0 }
    }

    /// Share of the wall time spent outside the evaluator (0 when nothing was evaluated).
    pub fn outside_evaluator_share(&self) -> f64 {
        if self.seconds > 0.0 && self.evaluations > 0 {
            (1.0 - self.evaluator_seconds / self.seconds).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// Mean positions per evaluator call.
    pub fn mean_batch(&self) -> f64 {
        if self.evaluator_batches > 0 { self.evaluations as f64 / self.evaluator_batches as f64 } else { 0.0 }
    }

    /// Positions per second of this invocation.
    pub fn positions_per_second(&self) -> f64 {
        if self.seconds > 0.0 { self.positions as f64 / self.seconds } else { 0.0 }
    }

    pub(crate) fn progress_message(&self, elapsed: Duration) -> String {
        let minutes = elapsed.as_secs_f64() / 60.0;
        let per_min = if minutes > 0.0 { self.games_played as f64 / minutes } else { 0.0 };
        let ends: Vec<String> = self.terminations.iter().map(|(k, v)| format!("{k} {v}")).collect();
        format!("{} positions, {per_min:.1} games/min | {}", self.positions, ends.join(", "))
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "self-play: {} games this run ({} already on disk, {} asked), {} positions, {:.1} s",
            self.games_played, self.games_before, self.games_total, self.positions, self.seconds
        )?;
        writeln!(
            f,
            "  {:.0} games/hour, {:.1} positions/s, mean length {:.1} plies",
            self.games_per_hour(),
            self.positions_per_second(),
            if self.games_played > 0 { self.plies as f64 / self.games_played as f64 } else { 0.0 }
        )?;
        if self.evaluations > 0 {
            writeln!(
                f,
                "  evaluator: {} positions in {:.1} s ({:.0} positions/s, mean batch {:.1}); {:.1}% of the wall time outside it",
                self.evaluations,
                self.evaluator_seconds,
                self.evaluations_per_second(),
                self.mean_batch(),
                100.0 * self.outside_evaluator_share()
            )?;
        }
        writeln!(f, "  results: red {} / black {} / draw {}", self.red_wins, self.black_wins, self.draws)?;
        let ends: Vec<String> = self.terminations.iter().map(|(k, v)| format!("{k} {v}")).collect();
        writeln!(f, "  endings: {}", ends.join(", "))?;
        if self.resign_checks > 0 {
            writeln!(
                f,
                "  false resignations: {} of {} no-resign games that reached the threshold",
                self.false_resignations, self.resign_checks
            )?;
        }
        if self.interrupted {
            writeln!(f, "  stopped early; rerun the same command to continue")?;
        }
        Ok(())
    }
}
