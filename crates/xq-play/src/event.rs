//! Many games at once: a deterministic parallel map over game indices, and two-player matches
//! with paired colours.

use crate::opening::Opening;
use crate::player::{Player, PlayerError, SearchLimits};
use crate::runner::{GameOptions, GameRecord, derive_seed, play_game};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use xq_core::{Color, GameRules};

/// Runs `job(worker_state, index)` for every index in `0..count` on `threads` OS threads and
/// returns the results in index order, whatever thread ran each one.
///
/// Each thread builds its own state once with `init(thread_index)` (players, engine processes,
/// a handle on a shared batched evaluator …) and reuses it for the games it takes. Threads take
/// the next index from a shared counter, so a slow game does not hold up the rest.
///
/// Plain threads (not a work-stealing pool) are deliberate: players may block, waiting for an
/// engine process or for a batched network evaluation shared by many games, and a batch fills
/// only if that many games run at once. So `threads` may well exceed the number of cores.
/// Results are reproducible when `job` depends only on its index (derive seeds from it).
pub fn run_parallel<W, T, I, F>(count: usize, threads: usize, init: I, job: F) -> Vec<T>
where
    I: Fn(usize) -> W + Sync,
    F: Fn(&mut W, usize) -> T + Sync,
    T: Send,
{
    let threads = threads.clamp(1, count.max(1));
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, T)>> = Mutex::new(Vec::with_capacity(count));
    std::thread::scope(|scope| {
        for thread_index in 0..threads {
            let (next, done, init, job) = (&next, &done, &init, &job);
            scope.spawn(move || {
                let mut state: Option<W> = None;
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= count {
                        break;
                    }
                    let state = state.get_or_insert_with(|| init(thread_index));
                    let result = job(state, index);
                    // A poisoned lock only means another worker panicked; its panic is
                    // re-raised when the scope joins, so keep the results consistent here.
                    done.lock().unwrap_or_else(|p| p.into_inner()).push((index, result));
                }
            });
        }
    });
    let mut results = done.into_inner().unwrap_or_else(|p| p.into_inner());
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, r)| r).collect()
}

/// Wins, draws and losses from one player's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Tally {
    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points per game (win 1, draw ½), 0.5 for no games.
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(self.games())
    }

    /// Counts a result for a player of `color`.
    pub fn add(&mut self, result: xq_core::GameResult, color: Color) {
        match result.score_for(color) {
            1 => self.wins += 1,
            0 => self.draws += 1,
            _ => self.losses += 1,
        }
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "+{} ={} -{}", self.wins, self.draws, self.losses)
    }
}

/// A match between two players, A and B, over paired games: game `2k` has A as red and game
/// `2k + 1` has B as red, both from opening `k mod openings.len()`.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Number of games (an odd last game has A as red).
    pub games: usize,
    /// Games played at once.
    pub threads: usize,
    /// Openings, used in turn by pairs of games; the start position when empty.
    pub openings: Vec<Opening>,
    /// The rules.
    pub rules: GameRules,
    /// Options for every game; its limits, seed and index are set per game.
    pub options: GameOptions,
    /// Limits for A.
    pub limits_a: SearchLimits,
    /// Limits for B.
    pub limits_b: SearchLimits,
    /// Base seed; game `i` gets `derive_seed(seed, i)`.
    pub seed: u64,
}

/// Every game of a match, in order, and A's tally.
#[derive(Clone, Debug)]
pub struct MatchResult {
    /// The games, game `i` at index `i`.
    pub records: Vec<GameRecord>,
    /// Wins, draws and losses of A.
    pub tally_a: Tally,
}

/// Plays a match between players built by `make_a` and `make_b` (once per thread, reused
/// across that thread's games). A player's failures inside games are recorded losses; only a
/// failure to build a player at all is an error.
pub fn run_match<A, B>(config: &MatchConfig, make_a: A, make_b: B) -> Result<MatchResult, PlayerError>
where
    A: Fn() -> Result<Box<dyn Player>, PlayerError> + Sync,
    B: Fn() -> Result<Box<dyn Player>, PlayerError> + Sync,
{
    let default_openings = [Opening::startpos()];
    let openings: &[Opening] = if config.openings.is_empty() { &default_openings } else { &config.openings };
    let results = run_parallel(
        config.games,
        config.threads,
        |_| None::<(Box<dyn Player>, Box<dyn Player>)>,
        |players, index| -> Result<GameRecord, PlayerError> {
            let (mut a, mut b) = match players.take() {
                Some(built) => built,
                None => (make_a()?, make_b()?),
            };
            let a_is_red = index % 2 == 0;
            let opening = &openings[(index / 2) % openings.len()];
            let (red_limits, black_limits) = if a_is_red {
                (config.limits_a, config.limits_b)
            } else {
                (config.limits_b, config.limits_a)
            };
            let options = GameOptions {
                red_limits,
                black_limits,
                seed: derive_seed(config.seed, index as u64),
                game_index: index,
                ..config.options
            };
            let record = if a_is_red {
                play_game(a.as_mut(), b.as_mut(), opening, config.rules, &options)
            } else {
                play_game(b.as_mut(), a.as_mut(), opening, config.rules, &options)
            };
            *players = Some((a, b));
            Ok(record)
        },
    );
    let mut records = Vec::with_capacity(results.len());
    let mut tally_a = Tally::default();
    for (index, result) in results.into_iter().enumerate() {
        let record = result?;
        tally_a.add(record.outcome.result, if index % 2 == 0 { Color::Red } else { Color::Black });
        records.push(record);
    }
    Ok(MatchResult { records, tally_a })
}
