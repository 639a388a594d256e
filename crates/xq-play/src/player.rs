//! The [`Player`] trait, what a player is asked ([`SearchLimits`]) and what it answers
//! ([`MoveChoice`]), and how it can fail ([`PlayerError`]).

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use thiserror::Error;
use xq_core::{Color, Game, Move};

/// How much a player may search for one move. Every field is optional; each player uses those
/// that apply to it (alpha-beta: depth, nodes, movetime; MCTS: visits, movetime; engines:
/// depth, nodes, movetime) and falls back to its own default when none does.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SearchLimits {
    /// Maximum search depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes searched.
    pub nodes: Option<u64>,
    /// Time for this move.
    pub movetime: Option<Duration>,
    /// Tree-search visits (simulations) for this move.
    pub visits: Option<u32>,
    /// Both clocks, when the game is played at a time control. The runner also sets
    /// `movetime` from the mover's clock ([`crate::Clock::move_time`]) for players that do not
    /// manage a clock; a player that does (an engine, which is sent `wtime`/`btime`) reads
    /// this instead.
    pub clocks: Option<crate::Clocks>,
    /// Search until stopped (`go infinite`, `go ponder`): the player's own default budget does
    /// not apply, only the other limits, [`SearchLimits::stop`] and the bounds of its memory.
    pub infinite: bool,
    /// Ends the search early when signalled from another thread; players that search for long
    /// (MCTS, alpha-beta) check it, the others finish too quickly to need it.
    pub stop: Option<StopSignal>,
}

impl SearchLimits {
    /// No limit given: each player uses its default.
    pub const NONE: SearchLimits = SearchLimits {
        depth: None,
        nodes: None,
        movetime: None,
        visits: None,
        clocks: None,
        infinite: false,
        stop: None,
    };

    /// Limits the depth.
    pub const fn depth(depth: u32) -> SearchLimits {
        SearchLimits { depth: Some(depth), ..SearchLimits::NONE }
    }

    /// Limits the nodes.
    pub const fn nodes(nodes: u64) -> SearchLimits {
        SearchLimits { nodes: Some(nodes), ..SearchLimits::NONE }
    }

    /// Limits the time per move.
    pub const fn movetime(movetime: Duration) -> SearchLimits {
        SearchLimits { movetime: Some(movetime), ..SearchLimits::NONE }
    }

    /// Limits the tree-search visits.
    pub const fn visits(visits: u32) -> SearchLimits {
        SearchLimits { visits: Some(visits), ..SearchLimits::NONE }
    }
}

/// Ends a running search from another thread: at once ([`StopSignal::stop`], a GUI's
/// `stop`) or after a time from now ([`StopSignal::stop_after`]: `ponderhit` turns a ponder
/// search into a timed one). Clones share one signal; a search sees it through
/// [`SearchLimits::stop`] and checks [`StopSignal::is_stopped`] as it goes.
///
/// ```
/// use std::time::Duration;
/// use xq_play::StopSignal;
///
/// let signal = StopSignal::new();
/// let seen_by_search = signal.clone();
/// assert!(!seen_by_search.is_stopped());
/// signal.stop_after(Duration::from_secs(3600));
/// assert!(!seen_by_search.is_stopped());
/// signal.stop();
/// assert!(seen_by_search.is_stopped());
/// signal.reset();
/// assert!(!seen_by_search.is_stopped());
/// ```
#[derive(Clone, Debug)]
pub struct StopSignal(Arc<StopState>);

#[derive(Debug)]
struct StopState {
    created: Instant,
    /// Microseconds after `created` from which the search is stopped; `NEVER` when not.
    stop_at_micros: AtomicU64,
}

impl StopSignal {
    const NEVER: u64 = u64::MAX;

    /// A signal not given yet.
    pub fn new() -> StopSignal {
        StopSignal(Arc::new(StopState {
            created: Instant::now(),
            stop_at_micros: AtomicU64::new(Self::NEVER),
        }))
    }

    /// Stops the search now.
    pub fn stop(&self) {
        self.0.stop_at_micros.store(0, Ordering::Release);
    }

    /// Stops the search `time` from now, or sooner when it was already due to stop sooner.
    pub fn stop_after(&self, time: Duration) {
        let at = self.micros_now().saturating_add(u64::try_from(time.as_micros()).unwrap_or(u64::MAX - 1));
        self.0.stop_at_micros.fetch_min(at.min(Self::NEVER - 1), Ordering::AcqRel);
    }

    /// Withdraws the signal, for the next search.
    pub fn reset(&self) {
        self.0.stop_at_micros.store(Self::NEVER, Ordering::Release);
    }

    /// Whether the search must stop now.
    pub fn is_stopped(&self) -> bool {
        match self.0.stop_at_micros.load(Ordering::Acquire) {
            Self::NEVER => false,
            0 => true,
            at => self.micros_now() >= at,
        }
    }

    fn micros_now(&self) -> u64 {
        u64::try_from(self.0.created.elapsed().as_micros()).unwrap_or(Self::NEVER - 1)
    }
}

impl Default for StopSignal {
    fn default() -> StopSignal {
        StopSignal::new()
    }
}

/// Two handles are equal when they share one signal.
impl PartialEq for StopSignal {
    fn eq(&self, other: &StopSignal) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for StopSignal {}

impl std::hash::Hash for StopSignal {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::ptr::hash(Arc::as_ptr(&self.0), state);
    }
}

/// An evaluation reported with a move, from the point of view of the side that moved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Score {
    /// Centipawns: a pawn before the river is roughly 100 for the built-in players; engines
    /// report their own scale.
    Centipawns(i32),
    /// Mate in this many moves (full moves, as UCI reports them): positive when the mover
    /// mates, negative when it is mated.
    Mate(i32),
    /// An expected result in [-1, 1] (loss … win), as value networks report it.
    Value(f32),
}

/// Centipawns a mate score converts to in [`Score::centipawns`], less the moves to mate.
pub const MATE_CENTIPAWNS: i32 = 30_000;

impl Score {
    /// The score on one centipawn scale, so adjudication can compare players of different
    /// kinds: a mate in `n` is `±(30000 - n)`, and a value `v` maps through the logistic
    /// curve of the Elo model, `400·log10((1+v)/(1-v))`, clamped to ±20000.
    pub fn centipawns(self) -> i32 {
        match self {
            Score::Centipawns(cp) => cp,
            Score::Mate(n) if n > 0 => MATE_CENTIPAWNS - n,
            Score::Mate(n) => -MATE_CENTIPAWNS - n,
            Score::Value(v) => {
                let v = f64::from(v).clamp(-0.999_999, 0.999_999);
                let cp = 400.0 * ((1.0 + v) / (1.0 - v)).log10();
                cp.clamp(-20_000.0, 20_000.0).round() as i32
            }
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Centipawns(cp) => write!(f, "cp {cp}"),
            Score::Mate(n) => write!(f, "mate {n}"),
            Score::Value(v) => write!(f, "value {v:.3}"),
        }
    }
}

/// A player's answer: the move and what it knows about it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveChoice {
    /// The move (checked by the runner, never trusted).
    pub mv: Move,
    /// The evaluation after the search, for the side that moves.
    pub score: Option<Score>,
    /// Depth reached (plies): alpha-beta's last completed iteration, a tree search's
    /// principal-variation length.
    pub depth: Option<u32>,
    /// The longest line searched (plies), when the player knows it.
    pub seldepth: Option<u32>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Tree-search visits.
    pub visits: Option<u32>,
    /// The search's distribution over moves (for a tree search, each root move's share of the
    /// visits), kept in the record as a training target; empty when the player has none.
    pub policy: Vec<(Move, f32)>,
    /// The principal variation, starting with `mv`; empty when the player has none.
    pub pv: Vec<Move>,
}

impl MoveChoice {
    /// A bare move with no search information.
    pub const fn new(mv: Move) -> MoveChoice {
        MoveChoice {
            mv,
            score: None,
            depth: None,
            seldepth: None,
            nodes: None,
            visits: None,
            policy: Vec::new(),
            pv: Vec::new(),
        }
    }

    /// The same choice with a score.
    pub fn with_score(mut self, score: Score) -> MoveChoice {
        self.score = Some(score);
        self
    }
}

/// What the runner tells a player when a game starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameStart {
    /// The colour this player has.
    pub color: Color,
    /// A seed for every random choice the player makes in this game. The runner derives it
    /// from the game's seed, so a game replays identically whatever thread plays it.
    pub seed: u64,
    /// The game's index in its event (0 for a single game).
    pub game_index: usize,
}

/// Why a player could not give a move. In a game each of these is a loss for that player
/// ([`PlayerError::forfeit_kind`] says which [`xq_core::Termination`]).
#[derive(Debug, Error)]
pub enum PlayerError {
    /// The player named a move that is not legal in the position.
    #[error("illegal move {mv} in {fen}")]
    IllegalMove {
        /// The move as the player gave it.
        mv: String,
        /// The position.
        fen: String,
    },
    /// The player answered something that is not a move, or broke its protocol.
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The player said it has no move although the position has legal moves.
    #[error("no move given ({0})")]
    NoMove(String),
    /// The player stopped working: an engine process exited, or in-process code panicked.
    #[error("crashed: {0}")]
    Crashed(String),
    /// The player did not answer in time (it was stopped).
    #[error("no answer within {waited:?} ({context})")]
    Timeout {
        /// How long the runner waited.
        waited: Duration,
        /// What it was waiting for.
        context: String,
    },
    /// The player took longer than the time limit allowed.
    #[error("used {used:?} for a move with {allowed:?} allowed")]
    OverTime {
        /// Time used.
        used: Duration,
        /// Time allowed, margin included.
        allowed: Duration,
    },
    /// An engine program could not be started.
    #[error("cannot start engine {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Reading from or writing to the player failed.
    #[error("i/o error talking to the player: {0}")]
    Io(#[from] std::io::Error),
}

impl PlayerError {
    /// How a game ends when this error happens on a player's turn: a time forfeit for timeouts
    /// and overtime, a forfeit for everything else.
    pub fn forfeit_kind(&self) -> xq_core::Termination {
        match self {
            PlayerError::Timeout { .. } | PlayerError::OverTime { .. } => xq_core::Termination::TimeForfeit,
            _ => xq_core::Termination::Forfeit,
        }
    }

    /// The rulebook article for the loss: 4.1.4 (time), 4.1.6 (an illegal move) or 4.1.10
    /// (not abiding by the rules: crashes and protocol breaches).
    pub fn article(&self) -> &'static str {
        match self {
            PlayerError::Timeout { .. } | PlayerError::OverTime { .. } => "4.1.4",
            PlayerError::IllegalMove { .. } => "4.1.6",
            _ => "4.1.10",
        }
    }
}

/// Anything that plays Xiangqi: a baseline, a tree search over a network, or an engine in
/// another process.
///
/// The runner calls [`Player::new_game`] once per game and then [`Player::choose_move`] on
/// each of the player's turns with the whole [`Game`], so a player sees the history (to avoid
/// or seek repetitions, or to reuse a search tree after the opponent's reply). A player may
/// be reused for many games; it must not let one game influence the next beyond what
/// `new_game` resets (reproducibility).
pub trait Player {
    /// A name for records and tables.
    fn name(&self) -> &str;

    /// Prepares for a new game starting at `game` (the opening's moves already played).
    fn new_game(&mut self, game: &Game, start: GameStart) -> Result<(), PlayerError>;

    /// Chooses a move for the side to move in `game`, within `limits`. The game is not over.
    fn choose_move(&mut self, game: &Game, limits: &SearchLimits) -> Result<MoveChoice, PlayerError>;

    /// [`Player::choose_move`] among the legal moves in `allowed` only (UCI `searchmoves`, UCCI
    /// `banmoves`): a player that can restrict its search overrides this, so its whole budget
    /// goes to the allowed moves. The default searches every move; the caller then replaces a
    /// choice outside `allowed`.
    fn choose_move_among(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        allowed: &[Move],
    ) -> Result<MoveChoice, PlayerError> {
        let _ = allowed;
        self.choose_move(game, limits)
    }
}

impl<P: Player + ?Sized> Player for Box<P> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn new_game(&mut self, game: &Game, start: GameStart) -> Result<(), PlayerError> {
        (**self).new_game(game, start)
    }

    fn choose_move(&mut self, game: &Game, limits: &SearchLimits) -> Result<MoveChoice, PlayerError> {
        (**self).choose_move(game, limits)
    }

    fn choose_move_among(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        allowed: &[Move],
    ) -> Result<MoveChoice, PlayerError> {
        (**self).choose_move_among(game, limits, allowed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_share_one_scale() {
        assert_eq!(Score::Centipawns(-35).centipawns(), -35);
        assert_eq!(Score::Mate(3).centipawns(), 29_997);
        assert_eq!(Score::Mate(-2).centipawns(), -29_998);
        assert_eq!(Score::Value(0.0).centipawns(), 0);
        // Expected score 0.909 = 10:1 odds = 400 Elo.
        assert_eq!(Score::Value(0.818_181_8).centipawns(), 400);
        assert!(Score::Value(-1.0).centipawns() <= -2_000);
    }
}
