//! The players of an event (`[[players]]`) and how they are built: baselines, tree search over
//! any [`EvaluatorSpec`] with any [`SearchParams`], and external engines.

use crate::runner::config::Limits;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use xq_mcts::{SearchParams, SharedEvaluator};
use xq_nn::EvaluatorSpec;
use xq_play::{
    AlphaBetaConfig, AlphaBetaPlayer, Coordinates, Engine, EngineConfig, GreedyPlayer, MctsPlayer, Player,
    PlayerError, Protocol, RandomPlayer, TimeControl,
};

/// Leaves a network's tree search gathers a step (virtual loss), evaluated as one batch over
/// the thread pool, when it plays against a clock and its entry names no `search`. At 100 ms a
/// move that beat one leaf at a time on a generation-0 and a late model, and at 512 visits it
/// cost nothing measurable a node (docs/results/play-time-search/README.md); `xq engine`
/// searches so too.
pub const TIMED_NETWORK_LEAVES_PER_STEP: u32 = 16;

/// An external engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    /// The player's name in the event.
    pub name: String,
    /// The program.
    pub command: PathBuf,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// `setoption` name/value pairs.
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    /// `UCI_Variant` to select (UCI), e.g. `xiangqi`.
    #[serde(default)]
    pub variant: Option<String>,
    /// How the engine writes squares: `iccs` (ranks 0–9, Pikafish) or `fairy` (ranks 1–10,
    /// Fairy-Stockfish). When absent: `fairy` for an engine given a `variant` (Fairy-Stockfish
    /// is the engine that takes one), else `iccs`.
    #[serde(default)]
    pub coordinates: Option<Coordinates>,
    /// Depth per move.
    #[serde(default)]
    pub depth: Option<u32>,
    /// Nodes per move.
    #[serde(default)]
    pub nodes: Option<u64>,
    /// Milliseconds per move.
    #[serde(default)]
    pub movetime_ms: Option<u64>,
    /// A time control (`"10+0.1"`); the engine is sent both clocks.
    #[serde(default)]
    pub tc: Option<TimeControl>,
}

impl EngineSpec {
    fn apply_default_limits(&mut self, defaults: Limits) {
        self.depth = self.depth.or(defaults.depth);
        self.nodes = self.nodes.or(defaults.nodes);
        self.movetime_ms = self.movetime_ms.or(defaults.movetime_ms);
        self.tc = self.tc.or(defaults.tc);
    }

    /// The engine's move notation: as configured, else `fairy` when a `variant` is given.
    pub fn coordinates(&self) -> Coordinates {
        self.coordinates.unwrap_or(if self.variant.is_some() {
            Coordinates::Fairy
        } else {
            Coordinates::Iccs
        })
    }
}

/// One `[[players]]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PlayerSpec {
    /// Uniformly random legal moves.
    Random {
        /// The player's name in the event.
        name: String,
    },
    /// One-ply material greedy ([`GreedyPlayer`]).
    Greedy {
        /// The player's name in the event.
        name: String,
    },
    /// The alpha-beta baseline ([`AlphaBetaPlayer`]).
    Alphabeta {
        /// The player's name in the event.
        name: String,
        /// Depth per move (the player's default when absent).
        #[serde(default)]
        depth: Option<u32>,
        /// Nodes per move.
        #[serde(default)]
        nodes: Option<u64>,
        /// Milliseconds per move.
        #[serde(default)]
        movetime_ms: Option<u64>,
        /// A time control (`"10+0.1"`).
        #[serde(default)]
        tc: Option<TimeControl>,
    },
    /// Tree search ([`MctsPlayer`]) over a built-in evaluator or a trained network, searching
    /// as `search` says: the `[search]` table self-play uses, so a network is judged with the
    /// search that made its data.
    Mcts {
        /// The player's name in the event.
        name: String,
        /// `"uniform"`, `"material"` or `{ kind = "checkpoint", path = "…", device = "cpu" }`.
        evaluator: EvaluatorSpec,
        /// The search (xq-mcts's parameters; made deterministic for matches). Defaults to
        /// `SearchParams::default()`.
        #[serde(default)]
        search: Option<SearchParams>,
        /// Visits per move (`search.visits` when absent).
        #[serde(default)]
        visits: Option<u32>,
        /// Milliseconds per move.
        #[serde(default)]
        movetime_ms: Option<u64>,
        /// A time control (`"10+0.1"`).
        #[serde(default)]
        tc: Option<TimeControl>,
    },
    /// An engine speaking UCI.
    Uci(EngineSpec),
    /// An engine speaking UCCI.
    Ucci(EngineSpec),
}

impl PlayerSpec {
    /// A tree-search player over `evaluator` with `search`.
    pub fn mcts(name: impl Into<String>, evaluator: EvaluatorSpec, search: SearchParams) -> PlayerSpec {
        PlayerSpec::Mcts {
            name: name.into(),
            evaluator,
            search: Some(search),
            visits: None,
            movetime_ms: None,
            tc: None,
        }
    }

    /// The player's name.
    pub fn name(&self) -> &str {
        match self {
            PlayerSpec::Random { name }
            | PlayerSpec::Greedy { name }
            | PlayerSpec::Alphabeta { name, .. }
            | PlayerSpec::Mcts { name, .. } => name,
            PlayerSpec::Uci(e) | PlayerSpec::Ucci(e) => &e.name,
        }
    }

    /// The limits the player's own entry sets.
    pub fn own_limits(&self) -> Limits {
        match self {
            PlayerSpec::Random { .. } | PlayerSpec::Greedy { .. } => Limits::default(),
            PlayerSpec::Alphabeta { depth, nodes, movetime_ms, tc, .. } => {
                Limits { depth: *depth, nodes: *nodes, movetime_ms: *movetime_ms, visits: None, tc: *tc }
            }
            PlayerSpec::Mcts { visits, movetime_ms, tc, .. } => {
                Limits { visits: *visits, movetime_ms: *movetime_ms, tc: *tc, ..Limits::default() }
            }
            PlayerSpec::Uci(e) | PlayerSpec::Ucci(e) => {
                Limits { depth: e.depth, nodes: e.nodes, movetime_ms: e.movetime_ms, visits: None, tc: e.tc }
            }
        }
    }

    /// The player with `defaults` made its own wherever its entry sets no limit of that kind
    /// (the kinds it has: an alpha-beta player takes no visits, a random one nothing): the same
    /// budget in an event with no limits of its own as in one whose limits are `defaults`.
    ///
    /// ```
    /// use xq_eval::runner::{Limits, PlayerSpec};
    /// let player: PlayerSpec = toml::from_str("kind = \"alphabeta\"\nname = \"ab\"\ndepth = 3").unwrap();
    /// let limits = Limits { movetime_ms: Some(100), depth: Some(9), ..Limits::default() };
    /// let own = player.with_default_limits(limits).own_limits();
    /// assert_eq!((own.depth, own.movetime_ms), (Some(3), Some(100)));
    /// ```
    pub fn with_default_limits(self, defaults: Limits) -> PlayerSpec {
        match self {
            PlayerSpec::Alphabeta { name, depth, nodes, movetime_ms, tc } => PlayerSpec::Alphabeta {
                name,
                depth: depth.or(defaults.depth),
                nodes: nodes.or(defaults.nodes),
                movetime_ms: movetime_ms.or(defaults.movetime_ms),
                tc: tc.or(defaults.tc),
            },
            PlayerSpec::Mcts { name, evaluator, search, visits, movetime_ms, tc } => PlayerSpec::Mcts {
                name,
                evaluator,
                search,
                visits: visits.or(defaults.visits),
                movetime_ms: movetime_ms.or(defaults.movetime_ms),
                tc: tc.or(defaults.tc),
            },
            PlayerSpec::Uci(mut e) => {
                e.apply_default_limits(defaults);
                PlayerSpec::Uci(e)
            }
            PlayerSpec::Ucci(mut e) => {
                e.apply_default_limits(defaults);
                PlayerSpec::Ucci(e)
            }
            other @ (PlayerSpec::Random { .. } | PlayerSpec::Greedy { .. }) => other,
        }
    }

    /// A tree-search player over a network, held to a clock (its own `movetime_ms` or `tc`, or
    /// the event's `limits`), and given no `search`: searches with
    /// [`TIMED_NETWORK_LEAVES_PER_STEP`] leaves a step instead of one. Any other player is
    /// returned as it is; a `search` given is never changed.
    ///
    /// ```
    /// use xq_eval::runner::{Limits, PlayerSpec};
    /// let text = "kind = \"mcts\"\nname = \"net\"\nevaluator = { kind = \"checkpoint\", path = \"m\" }";
    /// let player: PlayerSpec = toml::from_str(text).unwrap();
    /// let clock = Limits { movetime_ms: Some(100), ..Limits::default() };
    /// assert_eq!(player.clone().with_play_time_search(clock).search().unwrap().leaves_per_step, 16);
    /// assert_eq!(player.with_play_time_search(Limits::default()).search().unwrap().leaves_per_step, 1);
    /// ```
    pub fn with_play_time_search(self, event_limits: Limits) -> PlayerSpec {
        let timed = self.own_limits().is_timed() || event_limits.is_timed();
        match self {
            PlayerSpec::Mcts { name, evaluator, search: None, visits, movetime_ms, tc }
                if timed && evaluator.is_network() =>
            {
                let search = Some(SearchParams {
                    leaves_per_step: TIMED_NETWORK_LEAVES_PER_STEP,
                    ..SearchParams::default()
                });
                PlayerSpec::Mcts { name, evaluator, search, visits, movetime_ms, tc }
            }
            other => other,
        }
    }

    /// The search of a tree-search player.
    pub fn search(&self) -> Option<SearchParams> {
        match self {
            PlayerSpec::Mcts { search, .. } => Some(search.clone().unwrap_or_default()),
            _ => None,
        }
    }

    /// Checks the entry's own values.
    pub(crate) fn validate(&self) -> Result<(), String> {
        let name = self.name();
        if let Some(search) = self.search() {
            search.validate().map_err(|e| format!("player {name:?}: search: {e}"))?;
        }
        let own = self.own_limits();
        if own.visits == Some(0) || own.movetime_ms == Some(0) || own.depth == Some(0) || own.nodes == Some(0)
        {
            return Err(format!("player {name:?}: visits, movetime_ms, depth and nodes must be at least 1"));
        }
        Ok(())
    }

    /// For a tree search over a network, its network on an evaluation thread of its own, to be
    /// shared by every game thread of an event: their positions are evaluated together in
    /// batches. `None` for players without a network.
    ///
    /// # Errors
    /// [`PlayerError::Crashed`] when the checkpoint or the device cannot be loaded.
    pub fn load_network(&self) -> Result<Option<SharedEvaluator>, PlayerError> {
        match self {
            PlayerSpec::Mcts { evaluator, .. } if evaluator.is_network() => {
                let (shared, _) =
                    evaluator.build_shared().map_err(|e| PlayerError::Crashed(e.to_string()))?;
                Ok(Some(shared))
            }
            _ => Ok(None),
        }
    }

    /// Builds the player; `seed` is its own seed (games mix in theirs). A network player
    /// evaluates through `network` (from [`PlayerSpec::load_network`]), or loads its own when
    /// none is given.
    ///
    /// # Errors
    /// [`PlayerError`] when the player cannot be started.
    pub fn build(
        &self,
        seed: u64,
        network: Option<&SharedEvaluator>,
    ) -> Result<Box<dyn Player>, PlayerError> {
        let crashed = |e: &dyn std::fmt::Display| PlayerError::Crashed(format!("{}: {e}", self.name()));
        Ok(match self {
            PlayerSpec::Random { .. } => Box::new(Named::new(RandomPlayer::new(seed), self.name())),
            PlayerSpec::Greedy { .. } => Box::new(Named::new(GreedyPlayer::new(seed), self.name())),
            PlayerSpec::Alphabeta { name, depth, .. } => {
                let player = match depth {
                    Some(d) => AlphaBetaPlayer::with_depth(*d),
                    None => AlphaBetaPlayer::new(AlphaBetaConfig::default()),
                };
                Box::new(player.named(name))
            }
            PlayerSpec::Mcts { name, evaluator, .. } => {
                let evaluator: Box<dyn xq_mcts::Evaluator> = match (network, evaluator) {
                    (Some(shared), _) => Box::new(shared.handle()),
                    (None, spec) => spec.build().map_err(|e| crashed(&e))?.evaluator,
                };
                let search = self.search().unwrap_or_default();
                Box::new(MctsPlayer::new(name, evaluator, search).map_err(|e| crashed(&e))?)
            }
            PlayerSpec::Uci(e) | PlayerSpec::Ucci(e) => {
                let protocol =
                    if matches!(self, PlayerSpec::Uci(_)) { Protocol::Uci } else { Protocol::Ucci };
                let mut config = EngineConfig::new(&e.command, protocol);
                config.name = Some(e.name.clone());
                config.args = e.args.clone();
                config.variant = e.variant.clone();
                config.rank_offset = e.coordinates().rank_offset();
                config.options = e.options.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                Box::new(Engine::start(config)?)
            }
        })
    }
}

/// A player under the name the event gives it (the baselines name themselves).
struct Named<P> {
    inner: P,
    name: String,
}

impl<P> Named<P> {
    fn new(inner: P, name: &str) -> Named<P> {
        Named { inner, name: name.to_string() }
    }
}

impl<P: Player> Player for Named<P> {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, game: &xq_core::Game, start: xq_play::GameStart) -> Result<(), PlayerError> {
        self.inner.new_game(game, start)
    }

    fn choose_move(
        &mut self,
        game: &xq_core::Game,
        limits: &xq_play::SearchLimits,
    ) -> Result<xq_play::MoveChoice, PlayerError> {
        self.inner.choose_move(game, limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mcts_entry_carries_its_search_and_limits() {
        let spec: PlayerSpec = toml::from_str(
            r#"
            kind = "mcts"
            name = "net"
            evaluator = { kind = "checkpoint", path = "models/x" }
            search = { algorithm = "gumbel", visits = 32, gumbel_m = 8 }
            movetime_ms = 50
            "#,
        )
        .unwrap();
        assert_eq!(spec.search().unwrap().algorithm, xq_mcts::Algorithm::Gumbel);
        assert_eq!(spec.own_limits(), Limits { movetime_ms: Some(50), ..Limits::default() });
        let bad = toml::from_str::<PlayerSpec>(
            "kind = \"mcts\"\nname = \"x\"\nevaluator = \"uniform\"\nsearch = { simulations = 3 }\n",
        );
        assert!(bad.unwrap_err().to_string().contains("simulations"));
    }
}
