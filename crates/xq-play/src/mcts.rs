//! The MCTS player: xq-mcts's tree search over any [`Evaluator`], on a budget of visits, of
//! time, or both.

use crate::player::{GameStart, MoveChoice, Player, PlayerError, Score, SearchLimits};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};
use xq_core::{Game, Move, Position};
use xq_mcts::{Algorithm, Evaluator, Search, SearchParams};

/// Plays the move xq-mcts chooses within its budget.
///
/// * **Reproducible**: the parameters are passed through [`SearchParams::for_evaluation`] (no
///   root noise, temperature 0, deterministic Gumbel), and the search's generator is seeded
///   from each game's seed, so a game on a visit budget replays move for move.
/// * **Budget**: visits are [`SearchLimits::visits`] when the runner gives them, else the
///   parameters' `visits` (the one place a visit budget comes from). With
///   [`SearchLimits::movetime`] the search also stops at that time (less a small safety
///   margin): a PUCT search without a visit cap runs until then, and a Gumbel search's visit
///   budget is what the last searches' speed fits into the time, so it still runs its whole
///   sequential-halving schedule. With
///   [`SearchLimits::depth`] it stops once its principal variation (the most visited line,
///   [`Search::principal_depth`]) is that many plies long. It stops when
///   [`SearchLimits::stop`] is signalled, and an [`SearchLimits::infinite`] search without
///   visits gets the largest budget the tree's memory allows. Nodes do not apply to it.
/// * **Report**: the move comes with the root value, the principal variation (its length is
///   the depth), the longest line searched (seldepth) and the visits.
/// * **Tree reuse**: when the game continued from the position of its last search by the
///   move it chose and the opponent's reply, the search keeps that subtree
///   ([`Search::advance`]); after anything else (a new game, a take-back, an unexpected history)
///   it starts a fresh tree from the game.
/// * **Evaluation**: the player owns its evaluator (the built-in [`xq_mcts::UniformEvaluator`] or
///   [`xq_mcts::MaterialEvaluator`], a network later), so each game thread of an event has its
///   own. Batching across concurrent games is left to an evaluator that wants it: a network
///   evaluator can implement [`Evaluator`] as a handle on a shared batching queue without any
///   change here.
///
/// ```
/// use xq_core::GameRules;
/// use xq_mcts::{MaterialEvaluator, SearchParams};
/// use xq_play::{GameOptions, MctsPlayer, Opening, RandomPlayer, play_game};
///
/// let params = SearchParams { visits: 32, ..SearchParams::default() };
/// let mut mcts = MctsPlayer::new("mcts-material", Box::new(MaterialEvaluator::default()), params).unwrap();
/// let mut random = RandomPlayer::new(1);
/// let options = GameOptions { max_plies: Some(20), seed: 3, ..GameOptions::default() };
/// let record = play_game(&mut mcts, &mut random, &Opening::startpos(), GameRules::default(), &options);
/// assert!(record.plies() <= 20);
/// ```
pub struct MctsPlayer {
    name: String,
    evaluator: Box<dyn Evaluator>,
    params: SearchParams,
    search: Option<Search<ChaCha8Rng>>,
    /// The game's start position and moves at the search's current root, to tell whether a
    /// later position continues the same game.
    root_start: Option<Position>,
    root_moves: Vec<Move>,
    /// Simulations per second of the searches so far (an exponential average), to size the
    /// visit budget of a timed move; `None` before the first search.
    speed: Option<f64>,
}

/// Time kept back from a `movetime` for the move to reach the runner.
const TIME_SAFETY: Duration = Duration::from_millis(5);

/// The largest visit budget a timed search is given (the tree's memory bounds it).
const MAX_TIMED_VISITS: u32 = 1 << 20;

impl std::fmt::Debug for MctsPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MctsPlayer").field("name", &self.name).field("visits", &self.params.visits).finish()
    }
}

impl MctsPlayer {
    /// A player searching with `params` (made deterministic with
    /// [`SearchParams::for_evaluation`]), `params.visits` per move unless the runner's limits
    /// say otherwise. Fails on parameters out of range.
    pub fn new(
        name: &str,
        evaluator: Box<dyn Evaluator>,
        params: SearchParams,
    ) -> Result<MctsPlayer, xq_mcts::ParamsError> {
        let params = params.for_evaluation();
        params.validate()?;
        Ok(MctsPlayer {
            name: name.to_string(),
            evaluator,
            params,
            search: None,
            root_start: None,
            root_moves: Vec::new(),
            speed: None,
        })
    }

    /// The search parameters in use.
    pub fn params(&self) -> &SearchParams {
        &self.params
    }

    /// Brings the search's root to `game`'s position: by advancing through the moves played
    /// since the last search when the game continued it, otherwise by a fresh tree.
    fn sync_root(&mut self, game: &Game) -> Result<(), PlayerError> {
        let Some(search) = self.search.as_mut() else {
            return Err(PlayerError::Crashed("choose_move before new_game".into()));
        };
        let moves = game.moves();
        let continues = self.root_start.as_ref() == Some(game.start())
            && moves.len() >= self.root_moves.len()
            && moves[..self.root_moves.len()] == self.root_moves[..];
        let mut synced = continues;
        if continues {
            for &m in &moves[self.root_moves.len()..] {
                if search.advance(m).is_err() {
                    synced = false;
                    break;
                }
            }
        }
        if !synced {
            search.reset(game);
        }
        self.root_start = Some(*game.start());
        self.root_moves.clear();
        self.root_moves.extend_from_slice(moves);
        Ok(())
    }
}

impl Player for MctsPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, game: &Game, start: GameStart) -> Result<(), PlayerError> {
        let rng = ChaCha8Rng::seed_from_u64(start.seed);
        let search = Search::new(self.params.clone(), game, rng)
            .map_err(|e| PlayerError::Crashed(format!("search: {e}")))?;
        self.search = Some(search);
        self.root_start = Some(*game.start());
        self.root_moves = game.moves().to_vec();
        Ok(())
    }

    fn choose_move(&mut self, game: &Game, limits: &SearchLimits) -> Result<MoveChoice, PlayerError> {
        self.choose_move_among(game, limits, &[])
    }

    /// Searches only the allowed root moves ([`Search::restrict_root`]); an empty `allowed`
    /// searches them all.
    fn choose_move_among(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        allowed: &[Move],
    ) -> Result<MoveChoice, PlayerError> {
        let started = Instant::now();
        let crashed = |e: xq_mcts::SearchError| PlayerError::Crashed(format!("search: {e}"));
        let visits = limits.visits.unwrap_or(self.params.visits).max(1);
        let deadline = limits.movetime.map(|t| started + t.saturating_sub(TIME_SAFETY));
        // PUCT needs no budget in advance, so a timed search without a visit cap runs to its
        // deadline. Gumbel's sequential halving is planned for a budget, so it gets what the
        // last searches' speed fits into the time, and a finished schedule ends the move.
        let planned = self.params.algorithm == Algorithm::Gumbel;
        let cap = if limits.visits.is_some() { visits } else { MAX_TIMED_VISITS };
        let budget = match (limits.movetime, self.speed) {
            (Some(time), Some(speed)) if planned => {
                let fit = (speed * time.saturating_sub(TIME_SAFETY).as_secs_f64()).max(1.0);
                (fit.min(f64::from(cap))) as u32
            }
            (Some(_), _) => cap,
            (None, _) if limits.infinite && limits.visits.is_none() => MAX_TIMED_VISITS,
            _ => visits,
        };
        self.sync_root(game)?;
        // The speed is the search's own: the tree's compaction in `sync_root` is not a cost
        // that grows with the visits.
        let searching = Instant::now();
        let Some(search) = self.search.as_mut() else {
            return Err(PlayerError::Crashed("choose_move before new_game".into()));
        };
        search.set_visits(budget);
        search.restrict_root(allowed);
        let depth = limits.depth;
        let stop = limits.stop.as_ref();
        let result = search
            .run_while(self.evaluator.as_mut(), |s| {
                deadline.is_none_or(|d| Instant::now() < d)
                    && depth.is_none_or(|d| s.principal_depth() < d)
                    && stop.is_none_or(|signal| !signal.is_stopped())
            })
            .map_err(crashed)?;
        let seconds = searching.elapsed().as_secs_f64();
        if result.simulations > 0 && seconds > 0.0 {
            let now = f64::from(result.simulations) / seconds;
            self.speed = Some(self.speed.map_or(now, |old| 0.5 * old + 0.5 * now));
        }
        let pv = search.principal_variation(result.chosen);
        // The tree is not advanced past the chosen move here: the next search does it (in
        // `sync_root`), on its own clock, so a large tree's compaction never delays the answer.
        Ok(MoveChoice {
            mv: result.chosen,
            score: Some(Score::Value(result.root_value)),
            depth: Some(pv.len() as u32),
            seldepth: Some(search.seldepth()),
            nodes: None,
            visits: Some(result.simulations),
            policy: result.moves.iter().copied().zip(result.policy.iter().copied()).collect(),
            pv,
        })
    }
}
