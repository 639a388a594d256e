//! Chess clocks: a [`TimeControl`] (`"40/60+0.5"`, the syntax of cutechess-cli and fastchess)
//! and a side's [`Clock`] as a game runs, with the one rule that turns a clock into the time
//! for one move ([`Clock::move_time`]), shared by the game runner and the engine server.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;
use thiserror::Error;

/// Moves to go assumed for a clock that names none (sudden death or increment only).
pub const DEFAULT_MOVES_TO_GO: u32 = 30;

/// A time control: `base` for the first `moves` moves (for the whole game when `None`), the
/// same again for each further `moves`, and `increment` after every move.
///
/// Text form, as cutechess-cli and fastchess write `tc=`: `[moves/]seconds[+increment]`, the
/// seconds possibly fractional or as `minutes:seconds`.
///
/// ```
/// use std::time::Duration;
/// use xq_play::TimeControl;
///
/// let tc: TimeControl = "10+0.1".parse().unwrap();
/// assert_eq!((tc.base, tc.increment, tc.moves), (Duration::from_secs(10), Duration::from_millis(100), None));
/// let classical: TimeControl = "40/1:30".parse().unwrap();
/// assert_eq!((classical.moves, classical.base), (Some(40), Duration::from_secs(90)));
/// assert_eq!(classical.to_string(), "40/90");
/// assert!("0+1".parse::<TimeControl>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeControl {
    /// Moves per period; `None` for one period that lasts the game.
    pub moves: Option<u32>,
    /// Time for each period.
    pub base: Duration,
    /// Time added after each move.
    pub increment: Duration,
}

/// Why a time control does not parse.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("time control {text:?}: {why} (expected [moves/]seconds[+increment], e.g. \"10+0.1\" or \"40/60\")")]
pub struct TimeControlError {
    text: String,
    why: &'static str,
}

/// Seconds as `12`, `0.5` or `1:30` (minutes:seconds), to the millisecond.
fn parse_seconds(text: &str) -> Option<Duration> {
    let (minutes, seconds) = match text.split_once(':') {
        Some((m, s)) => (m.parse::<u64>().ok()?, s),
        None => (0, text),
    };
    let seconds: f64 = seconds.parse().ok()?;
    if !seconds.is_finite() || seconds < 0.0 || text.starts_with(['+', '-']) {
        return None;
    }
    let ms = (minutes as f64 * 60_000.0 + seconds * 1000.0).round();
    (ms <= 1e12).then(|| Duration::from_millis(ms as u64))
}

/// Seconds with up to three decimals, no trailing zeros: `10`, `0.1`, `2.25`.
fn format_seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        return (ms / 1000).to_string();
    }
    format!("{}.{:03}", ms / 1000, ms % 1000).trim_end_matches('0').to_string()
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let error = |why| TimeControlError { text: text.to_string(), why };
        let trimmed = text.trim();
        let (moves, rest) = match trimmed.split_once('/') {
            Some((m, rest)) => {
                let moves = m.parse::<u32>().map_err(|_| error("the moves per period are not a number"))?;
                if moves == 0 {
                    return Err(error("a period needs at least one move"));
                }
                (Some(moves), rest)
            }
            None => (None, trimmed),
        };
        let (base, increment) = match rest.split_once('+') {
            Some((b, i)) => (b, Some(i)),
            None => (rest, None),
        };
        let base = parse_seconds(base).ok_or_else(|| error("the time is not a number of seconds"))?;
        let increment = match increment {
            Some(i) => parse_seconds(i).ok_or_else(|| error("the increment is not a number of seconds"))?,
            None => Duration::ZERO,
        };
        if base.is_zero() {
            return Err(error("the time must be positive"));
        }
        Ok(TimeControl { moves, base, increment })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(moves) = self.moves {
            write!(f, "{moves}/")?;
        }
        f.write_str(&format_seconds(self.base))?;
        if !self.increment.is_zero() {
            write!(f, "+{}", format_seconds(self.increment))?;
        }
        Ok(())
    }
}

impl serde::Serialize for TimeControl {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for TimeControl {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<TimeControl, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl TimeControl {
    /// A side's clock at the start of a game.
    pub fn start(&self) -> Clock {
        Clock { remaining: self.base, increment: self.increment, moves_to_go: self.moves }
    }
}

/// One side's clock at a move: what a player managing its own time is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Clock {
    /// Time left on the clock.
    pub remaining: Duration,
    /// Time added after each move.
    pub increment: Duration,
    /// Moves until the next period adds time; `None` when no period ends.
    pub moves_to_go: Option<u32>,
}

impl Clock {
    /// The time to spend on this move: the remaining time shared over the moves to go
    /// ([`DEFAULT_MOVES_TO_GO`] when unknown) plus the increment, never more than nine tenths
    /// of the remaining time (at least 1 ms), in whole milliseconds.
    ///
    /// ```
    /// use std::time::Duration;
    /// use xq_play::Clock;
    ///
    /// let clock = Clock { remaining: Duration::from_secs(10), increment: Duration::from_millis(100), moves_to_go: None };
    /// assert_eq!(clock.move_time(), Duration::from_millis(433));
    /// ```
    pub fn move_time(&self) -> Duration {
        let moves = u128::from(self.moves_to_go.unwrap_or(DEFAULT_MOVES_TO_GO).max(1));
        let remaining = self.remaining.as_millis();
        let share = (remaining / moves + self.increment.as_millis()).min(remaining * 9 / 10).max(1);
        Duration::from_millis(u64::try_from(share).unwrap_or(u64::MAX))
    }
}

/// Both clocks of a game as the side to move sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Clocks {
    /// The mover's clock.
    pub own: Clock,
    /// The opponent's clock.
    pub opponent: Clock,
}

/// A side's clock during a game: charged after each move, refilled by the increment and by
/// each new period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunningClock {
    control: TimeControl,
    clock: Clock,
}

/// A move took longer than the time left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("used {used:?} with {left:?} left on the clock")]
pub struct OutOfTime {
    /// Time the move took.
    pub used: Duration,
    /// Time that was left.
    pub left: Duration,
}

impl RunningClock {
    /// A clock at the start of a game.
    pub fn new(control: TimeControl) -> RunningClock {
        RunningClock { control, clock: control.start() }
    }

    /// The clock as it stands before the next move.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// Charges a move that took `used`: fails when that is more than the time left plus
    /// `margin`, else takes it off, adds the increment and, at the end of a period, the next
    /// period's time.
    pub fn charge(&mut self, used: Duration, margin: Duration) -> Result<(), OutOfTime> {
        if used > self.clock.remaining + margin {
            return Err(OutOfTime { used, left: self.clock.remaining });
        }
        self.clock.remaining = self.clock.remaining.saturating_sub(used) + self.control.increment;
        if let Some(to_go) = self.clock.moves_to_go {
            if to_go <= 1 {
                self.clock.remaining += self.control.base;
                self.clock.moves_to_go = self.control.moves;
            } else {
                self.clock.moves_to_go = Some(to_go - 1);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn time_controls_parse_as_cutechess_writes_them() {
        let cases = [
            ("10+0.1", None, ms(10_000), ms(100)),
            ("60", None, ms(60_000), ms(0)),
            ("40/60", Some(40), ms(60_000), ms(0)),
            ("40/1:30+2", Some(40), ms(90_000), ms(2_000)),
            ("0.5+0.05", None, ms(500), ms(50)),
        ];
        for (text, moves, base, increment) in cases {
            let tc: TimeControl = text.parse().unwrap();
            assert_eq!(tc, TimeControl { moves, base, increment }, "{text}");
            assert_eq!(tc.to_string().parse::<TimeControl>().unwrap(), tc, "{text} round trips");
        }
        assert_eq!("40/1:30+2".parse::<TimeControl>().unwrap().to_string(), "40/90+2");
        for bad in ["", "+1", "0", "0/10", "x/10", "10+", "10+x", "-5", "10+-1", "inf", "NaN", "1e300"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_running_clock_charges_adds_increments_and_periods() {
        let mut clock = RunningClock::new("2/1+0.1".parse().unwrap());
        assert_eq!(clock.clock().moves_to_go, Some(2));
        clock.charge(ms(300), Duration::ZERO).unwrap();
        assert_eq!(clock.clock(), Clock { remaining: ms(800), increment: ms(100), moves_to_go: Some(1) });
        clock.charge(ms(800), Duration::ZERO).unwrap();
        // The period ends: a new second, two more moves.
        assert_eq!(clock.clock().remaining, ms(1100));
        assert_eq!(clock.clock().moves_to_go, Some(2));
        let late = clock.charge(ms(1200), ms(50)).unwrap_err();
        assert_eq!(late, OutOfTime { used: ms(1200), left: ms(1100) });
        clock.charge(ms(1140), ms(50)).unwrap();
        assert_eq!(clock.clock().remaining, ms(100), "a move within the margin empties the clock");
    }
}
