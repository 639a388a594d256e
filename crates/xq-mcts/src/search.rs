//! The steppable search: gather leaves, evaluate them elsewhere, apply the results.

use crate::evaluator::{EvalBatch, EvalError, EvalResults, Evaluator, Wdl, evaluate_batch};
use crate::line::Line;
use crate::params::{Algorithm, MAX_LEAVES_PER_STEP, ParamsError, SearchParams};
use crate::tree::{
    EXPANDED, Node, PENDING, ROOT, TERMINAL_DRAW, TERMINAL_LOSS, TERMINAL_WIN, Tree, UNEXPANDED,
};
use rand::{Rng, RngExt};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Gamma};
use thiserror::Error;
use xq_core::{Game, Move, MoveList, Position};

/// Why a search could not go on.
#[derive(Debug, Error)]
pub enum SearchError {
    /// The parameters are out of range.
    #[error(transparent)]
    Params(#[from] ParamsError),
    /// The evaluator failed.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// The root position has no legal move or is drawn by rule: there is nothing to search.
    #[error("the game is over at the root ({0}): nothing to search")]
    GameOver(&'static str),
    /// [`Search::gather`] or [`Search::apply`] was called with no search started.
    #[error("no search is running: call Search::start first")]
    NotStarted,
    /// The results do not match the leaves this search requested.
    #[error("evaluation result {slot} is unusable: {why}")]
    BadEvaluation {
        /// The batch slot.
        slot: usize,
        /// What is wrong with it.
        why: &'static str,
    },
    /// [`Search::result`] was called before the budget was spent.
    #[error("the search has not finished")]
    Unfinished,
    /// The move given to [`Search::advance`] is not legal at the root.
    #[error("move {0} is not legal at the root")]
    IllegalMove(String),
    /// The tree outgrew its 32-bit node indices.
    #[error("the search tree is full")]
    TreeFull,
}

/// What [`Search::gather`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// This many leaf requests were appended to the batch; evaluate it and call
    /// [`Search::apply`].
    Evaluate(usize),
    /// Nothing new can be gathered until the pending requests are applied.
    Wait,
    /// The budget is spent and every result applied: call [`Search::result`].
    Done,
}

/// The outcome of one search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The root's legal moves, in generation order.
    pub moves: Vec<Move>,
    /// Visits of each move (including visits kept from tree reuse).
    pub visits: Vec<u32>,
    /// The policy target, aligned with `moves`: the visit distribution under PUCT, the
    /// completed-Q improved policy under Gumbel.
    pub policy: Vec<f32>,
    /// The evaluator's priors at the root, before noise.
    pub prior: Vec<f32>,
    /// Mean value of each move for the side to move at the root (`None` if unvisited).
    pub q: Vec<Option<f32>>,
    /// The move chosen to play.
    pub chosen: Move,
    /// Index of `chosen` in `moves`.
    pub chosen_index: usize,
    /// Root WDL for the side to move, averaged over every visit of the root.
    pub root_wdl: Wdl,
    /// `root_wdl.value()`.
    pub root_value: f32,
    /// Whether this was a full search (its policy is a training target) rather than a fast,
    /// value-only one under playout-cap randomisation.
    pub full_search: bool,
    /// New simulations run by this search.
    pub simulations: u32,
}

/// A leaf awaiting its evaluation.
#[derive(Clone, Copy, Debug)]
struct PendingLeaf {
    /// Index in the batch the leaf was pushed to.
    slot: u32,
    node: u32,
    /// `paths[path_start..path_start + path_len]` leads from the root to the leaf.
    path_start: u32,
    path_len: u32,
}

/// What one descent found.
enum Descent {
    /// A terminal node, already backed up.
    Terminal,
    /// A new leaf, pushed to the batch.
    Request,
    /// A leaf that is already awaiting evaluation.
    Collision,
}

/// One game's search tree and the state of the search in progress.
///
/// The search owns the random number generator it is given, so a seeded generator makes
/// every choice (noise, playout cap, Gumbel sample, temperature) reproducible.
///
/// ```
/// use rand::SeedableRng;
/// use rand_chacha::ChaCha8Rng;
/// use xq_core::{Game, GameRules};
/// use xq_mcts::{Algorithm, Search, SearchParams, UniformEvaluator};
///
/// // Red to move mates with i0i9.
/// let mut game = Game::from_fen("4k4/R8/9/9/9/9/9/9/9/3K4R w", GameRules::default()).unwrap();
/// let params = SearchParams { algorithm: Algorithm::Gumbel, visits: 32, ..SearchParams::default() };
/// let mut search = Search::new(params.for_evaluation(), &game, ChaCha8Rng::seed_from_u64(7)).unwrap();
/// let result = search.run(&mut UniformEvaluator).unwrap();
/// assert_eq!(result.chosen.iccs(), "i0i9");
/// game.play(result.chosen).unwrap();
/// assert!(game.outcome().is_some());
/// ```
#[derive(Clone, Debug)]
pub struct Search<R = ChaCha8Rng> {
    params: SearchParams,
    rng: R,
    tree: Tree,
    line: Line,
    /// Positions on the line up to and including the root.
    root_line_len: usize,
    /// Plies played in the game before the root (for the temperature schedule).
    game_ply: u32,

    running: bool,
    full: bool,
    budget: u32,
    /// Simulations started (leaves requested or terminals visited) in this search.
    started: u32,
    /// The longest path from the root a simulation of this search walked (plies).
    seldepth: u32,
    /// The root moves searches may consider ([`Search::restrict_root`]); empty for all.
    root_allowed: Vec<Move>,
    /// The root's legal moves that pass `root_allowed`, when it is set.
    root_moves: Vec<Move>,
    /// Whether noise or the Gumbel sample has been set up for this search's root.
    root_prepared: bool,
    /// Root priors before noise, to undo it if the same root is searched again.
    clean_root_priors: Vec<f32>,
    /// Gumbel: per root child, `gumbel_scale · g + log prior`.
    gumbel_base: Vec<f32>,
    /// Gumbel: simulations of this search through each root child.
    gumbel_visits: Vec<u32>,
    /// Gumbel: the sequential-halving schedule (visit count each simulation goes to).
    gumbel_schedule: Vec<u32>,

    pending: Vec<PendingLeaf>,
    pending_paths: Vec<u32>,
    path: Vec<u32>,
    movelist: MoveList,
    scratch: Vec<f32>,
    sync_batch: EvalBatch,
    sync_results: EvalResults,
}

impl<R: Rng> Search<R> {
    /// A search rooted at the game's current position, with the game's history and rules.
    pub fn new(params: SearchParams, game: &Game, rng: R) -> Result<Search<R>, SearchError> {
        params.validate()?;
        let line = Line::from_game(game);
        Ok(Search {
            params,
            rng,
            tree: Tree::new(),
            root_line_len: line.len(),
            line,
            game_ply: game.ply() as u32,
            running: false,
            full: true,
            budget: 0,
            started: 0,
            seldepth: 0,
            root_allowed: Vec::new(),
            root_moves: Vec::new(),
            root_prepared: false,
            clean_root_priors: Vec::new(),
            gumbel_base: Vec::new(),
            gumbel_visits: Vec::new(),
            gumbel_schedule: Vec::new(),
            pending: Vec::new(),
            pending_paths: Vec::new(),
            path: Vec::new(),
            movelist: MoveList::new(),
            scratch: Vec::new(),
            sync_batch: EvalBatch::new(),
            sync_results: EvalResults::new(),
        })
    }

    /// Forgets the tree and roots the search at `game`'s current position.
    pub fn reset(&mut self, game: &Game) {
        self.line = Line::from_game(game);
        self.root_line_len = self.line.len();
        self.game_ply = game.ply() as u32;
        self.tree.reset();
        self.clear_search_state();
    }

    fn clear_search_state(&mut self) {
        self.running = false;
        self.root_prepared = false;
        self.started = 0;
        self.seldepth = 0;
        self.budget = 0;
        self.clean_root_priors.clear();
        self.pending.clear();
        self.pending_paths.clear();
    }

    /// The parameters.
    pub fn params(&self) -> &SearchParams {
        &self.params
    }

    /// Sets the visit budget of the next full search (at least 1), keeping the tree: a player
    /// given a new budget per move, or one derived from its clock, reuses its subtree.
    pub fn set_visits(&mut self, visits: u32) {
        self.params.visits = visits.max(1);
    }

    /// Ends the running search now, as if its budget were spent: requests not yet applied are
    /// cancelled, and [`Search::result`] answers from the visits made so far (Gumbel: the best
    /// candidate among the most visited of the current phase). The root must have been
    /// evaluated; before that this does nothing.
    pub fn stop(&mut self) {
        if !self.running || self.tree.nodes[ROOT].state != EXPANDED {
            return;
        }
        self.cancel_pending();
        self.budget = self.started;
    }

    /// The random number generator.
    pub fn rng_mut(&mut self) -> &mut R {
        &mut self.rng
    }

    /// The root position.
    pub fn root_position(&self) -> &Position {
        self.line.position(self.root_line_len - 1)
    }

    fn line_root(&self) -> Position {
        *self.root_position()
    }

    /// Number of nodes in the tree.
    pub fn tree_size(&self) -> usize {
        self.tree.nodes.len()
    }

    /// Completed visits of the root (including its own evaluation and reused visits).
    pub fn root_visits(&self) -> u32 {
        self.tree.nodes[ROOT].visits
    }

    /// Visits of each root move, in move-generation order (empty before the root is
    /// evaluated).
    pub fn root_child_visits(&self) -> Vec<(Move, u32)> {
        let root = &self.tree.nodes[ROOT];
        root.children().map(|i| (self.tree.nodes[i].mv, self.tree.nodes[i].visits)).collect()
    }

    /// Limits the next searches to the root moves in `allowed` (UCI `searchmoves`, UCCI
    /// `banmoves` as their complement); an empty slice lifts the limit. The other moves are not
    /// children of the root at all, so no visit, prior or Gumbel sample goes to them. A root
    /// already expanded with other moves is expanded again at the next [`Search::start`].
    pub fn restrict_root(&mut self, allowed: &[Move]) {
        self.root_allowed.clear();
        self.root_allowed.extend_from_slice(allowed);
    }

    /// The root's moves for its children: `self.movelist` (the root's legal moves) less those
    /// the restriction leaves out.
    fn root_moves(&mut self) -> &[Move] {
        if self.root_allowed.is_empty() {
            return &self.movelist;
        }
        self.root_moves.clear();
        let allowed = &self.root_allowed;
        self.root_moves.extend(self.movelist.iter().copied().filter(|m| allowed.contains(m)));
        &self.root_moves
    }

    /// The longest line from the root, in plies, that a simulation of the current (or last)
    /// search walked: UCI's `seldepth`.
    pub fn seldepth(&self) -> u32 {
        self.seldepth
    }

    /// The principal variation starting with the root move `first`: from there, each ply
    /// follows the child with the most completed visits (the higher Q on a tie), for as long
    /// as the tree has a visited child. Empty when `first` is not a root move.
    ///
    /// Its length is the depth a tree search reports: how far the search has looked along
    /// the line it believes in.
    pub fn principal_variation(&self, first: Move) -> Vec<Move> {
        let nodes = &self.tree.nodes;
        let Some(mut node) = nodes[ROOT].children().find(|&i| nodes[i].mv == first) else {
            return Vec::new();
        };
        let mut line = vec![first];
        while let Some(child) = self.most_visited_child(node) {
            line.push(nodes[child].mv);
            node = child;
        }
        line
    }

    /// The length of the principal variation from the most visited root move (see
    /// [`Search::principal_variation`]), without building it: 0 before any root move has a
    /// visit. A depth limit for a tree search compares against this.
    pub fn principal_depth(&self) -> u32 {
        let mut node = ROOT;
        let mut depth = 0;
        while let Some(child) = self.most_visited_child(node) {
            depth += 1;
            node = child;
        }
        depth
    }

    fn most_visited_child(&self, node: usize) -> Option<usize> {
        let nodes = &self.tree.nodes;
        if nodes[node].state != EXPANDED {
            return None;
        }
        let key = |i: usize| (nodes[i].visits, nodes[i].q().unwrap_or(f32::NEG_INFINITY));
        nodes[node].children().filter(|&i| nodes[i].visits > 0).max_by(|&a, &b| {
            let ((va, qa), (vb, qb)) = (key(a), key(b));
            va.cmp(&vb).then(qa.total_cmp(&qb))
        })
    }

    /// Whether the running search has spent its budget and applied every result.
    pub fn is_finished(&self) -> bool {
        self.running
            && self.pending.is_empty()
            && self.tree.nodes[ROOT].state == EXPANDED
            && self.started >= self.budget
    }

    /// Starts a search from the current root: decides full or fast (playout cap), and sets
    /// up root noise (PUCT, full searches) or the Gumbel sample once the root is evaluated.
    /// Requests still pending from an abandoned search are cancelled.
    pub fn start(&mut self) -> Result<(), SearchError> {
        self.cancel_pending();
        self.line.truncate(self.root_line_len);
        let root = self.line_root();
        root.generate_legal(&mut self.movelist);
        if self.movelist.is_empty() {
            return Err(SearchError::GameOver("no legal move"));
        }
        if self.line.terminal(self.movelist.len(), false).is_some() {
            return Err(SearchError::GameOver("drawn by rule"));
        }
        let wanted = self.root_moves().len();
        if wanted == 0 {
            return Err(SearchError::GameOver("no legal move is allowed by the root restriction"));
        }
        // A root expanded under another restriction (or none) has the wrong children: expand
        // it again rather than search moves the caller excluded or miss ones it allows.
        let root = &self.tree.nodes[ROOT];
        if root.state == EXPANDED {
            let children = root.children();
            let wanted_moves: &[Move] =
                if self.root_allowed.is_empty() { &self.movelist } else { &self.root_moves };
            let matches = children.len() == wanted
                && children.clone().all(|i| wanted_moves.contains(&self.tree.nodes[i].mv));
            if !matches {
                self.tree.reset();
                self.root_prepared = false;
                self.clean_root_priors.clear();
            }
        }
        // Undo the previous search's noise if this root is searched again.
        if self.root_prepared && !self.clean_root_priors.is_empty() {
            let range = self.tree.nodes[ROOT].children();
            for (i, &p) in range.zip(&self.clean_root_priors) {
                self.tree.nodes[i].prior = p;
            }
        }
        self.clean_root_priors.clear();
        self.root_prepared = false;
        let p = self.params.full_search_probability;
        self.full = p >= 1.0 || self.rng.random::<f32>() < p;
        self.budget = if self.full { self.params.visits } else { self.params.fast_visits };
        self.started = 0;
        self.running = true;
        if self.tree.nodes[ROOT].state == EXPANDED {
            self.prepare_root()?;
        }
        Ok(())
    }

    /// Takes back the virtual loss and pending state of requests never applied.
    fn cancel_pending(&mut self) {
        for k in 0..self.pending.len() {
            let leaf = self.pending[k];
            let (a, b) = (leaf.path_start as usize, (leaf.path_start + leaf.path_len) as usize);
            for &n in &self.pending_paths[a..b] {
                let node = &mut self.tree.nodes[n as usize];
                node.in_flight = node.in_flight.saturating_sub(1);
            }
            let node = &mut self.tree.nodes[leaf.node as usize];
            node.state = UNEXPANDED;
            // The children stay in the arena unreferenced until the next compaction.
            node.n_children = 0;
        }
        self.pending.clear();
        self.pending_paths.clear();
    }

    /// Noise (PUCT) or the Gumbel sample and schedule (Gumbel) for the evaluated root.
    fn prepare_root(&mut self) -> Result<(), SearchError> {
        self.root_prepared = true;
        let range = self.tree.nodes[ROOT].children();
        match self.params.algorithm {
            Algorithm::Puct => {
                if self.full && self.params.dirichlet_fraction > 0.0 && range.len() > 1 {
                    let gamma = Gamma::new(self.params.dirichlet_alpha, 1.0).map_err(|_| ParamsError {
                        name: "dirichlet_alpha",
                        value: self.params.dirichlet_alpha.to_string(),
                        expected: "a positive number",
                    })?;
                    self.scratch.clear();
                    let mut sum = 0.0f32;
                    for _ in range.clone() {
                        let x: f32 = gamma.sample(&mut self.rng);
                        sum += x;
                        self.scratch.push(x);
                    }
                    if sum > 0.0 && sum.is_finite() {
                        let eps = self.params.dirichlet_fraction;
                        for (k, i) in range.enumerate() {
                            let node = &mut self.tree.nodes[i];
                            self.clean_root_priors.push(node.prior);
                            node.prior = (1.0 - eps) * node.prior + eps * self.scratch[k] / sum;
                        }
                    }
                }
            }
            Algorithm::Gumbel => {
                self.gumbel_base.clear();
                self.gumbel_visits.clear();
                for i in range.clone() {
                    // Gumbel(0, 1) by inversion; keep u inside (0, 1).
                    let u = self.rng.random::<f64>().clamp(1e-12, 1.0 - 1e-12);
                    let g = -(-u.ln()).ln() as f32;
                    let logit = self.tree.nodes[i].prior.max(1e-30).ln();
                    self.gumbel_base.push(self.params.gumbel_scale * g + logit);
                    self.gumbel_visits.push(0);
                }
                let m = (self.params.gumbel_m as usize).min(range.len());
                halving_schedule(m, self.budget as usize, &mut self.gumbel_schedule);
            }
        }
        Ok(())
    }

    /// Appends up to `max_leaves` leaf requests to `batch` (at least one when it returns
    /// [`Step::Evaluate`]). Terminal nodes met on the way are scored at once and count as
    /// simulations. With more than one leaf, virtual loss steers the later descents away
    /// from the earlier ones; a descent that reaches a leaf already pending stops the
    /// gathering. `max_leaves` is clamped to 1..=[`MAX_LEAVES_PER_STEP`]. Every [`Step::Evaluate`] must be answered by one [`Search::apply`] with
    /// the evaluated batch before the next gather.
    pub fn gather(&mut self, batch: &mut EvalBatch, max_leaves: usize) -> Result<Step, SearchError> {
        if !self.running {
            return Err(SearchError::NotStarted);
        }
        let mut pushed = 0;
        let max_leaves = max_leaves.clamp(1, MAX_LEAVES_PER_STEP);
        while pushed < max_leaves {
            match self.tree.nodes[ROOT].state {
                UNEXPANDED => {
                    // The root's own evaluation: not a simulation.
                    self.line.truncate(self.root_line_len);
                    self.path.clear();
                    self.path.push(ROOT as u32);
                    self.request_leaf(ROOT, batch)?;
                    pushed += 1;
                    break;
                }
                EXPANDED => {}
                _ => break,
            }
            if self.started >= self.budget {
                break;
            }
            let descent = self.descend(batch)?;
            self.seldepth = self.seldepth.max(self.path.len() as u32 - 1);
            match descent {
                Descent::Terminal => self.started += 1,
                Descent::Request => {
                    self.started += 1;
                    pushed += 1;
                }
                Descent::Collision => break,
            }
        }
        Ok(if pushed > 0 {
            Step::Evaluate(pushed)
        } else if !self.pending.is_empty() {
            Step::Wait
        } else {
            Step::Done
        })
    }

    /// Walks from the root to a leaf by the selection rule, playing the moves on the line.
    fn descend(&mut self, batch: &mut EvalBatch) -> Result<Descent, SearchError> {
        self.line.truncate(self.root_line_len);
        self.path.clear();
        self.path.push(ROOT as u32);
        let mut node = ROOT;
        loop {
            match self.tree.nodes[node].state {
                EXPANDED => {
                    let child = if node == ROOT {
                        match self.params.algorithm {
                            Algorithm::Puct => self.select_puct(ROOT, self.params.root_fpu_reduction),
                            Algorithm::Gumbel => self.select_gumbel_root(),
                        }
                    } else {
                        match self.params.algorithm {
                            Algorithm::Puct => self.select_puct(node, self.params.fpu_reduction),
                            Algorithm::Gumbel => self.select_gumbel_interior(node),
                        }
                    };
                    if node == ROOT && self.params.algorithm == Algorithm::Gumbel {
                        let k = child - self.tree.nodes[ROOT].first_child as usize;
                        self.gumbel_visits[k] += 1;
                    }
                    self.path.push(child as u32);
                    self.line.push(self.tree.nodes[child].mv);
                    node = child;
                }
                PENDING => {
                    // No simulation happens: take back the schedule count of the root move.
                    if self.params.algorithm == Algorithm::Gumbel && self.path.len() > 1 {
                        let k = self.path[1] as usize - self.tree.nodes[ROOT].first_child as usize;
                        self.gumbel_visits[k] -= 1;
                    }
                    return Ok(Descent::Collision);
                }
                UNEXPANDED => {
                    self.line.last().generate_legal(&mut self.movelist);
                    if let Some(wdl) = self.line.terminal(self.movelist.len(), true) {
                        self.tree.nodes[node].state = match wdl.value() {
                            v if v > 0.0 => TERMINAL_WIN,
                            v if v < 0.0 => TERMINAL_LOSS,
                            _ => TERMINAL_DRAW,
                        };
                        self.backup(wdl, false);
                        return Ok(Descent::Terminal);
                    }
                    self.request_leaf(node, batch)?;
                    return Ok(Descent::Request);
                }
                terminal => {
                    let wdl = match terminal {
                        TERMINAL_WIN => Wdl::WIN,
                        TERMINAL_LOSS => Wdl::LOSS,
                        _ => Wdl::DRAW,
                    };
                    self.backup(wdl, false);
                    return Ok(Descent::Terminal);
                }
            }
        }
    }

    /// Allocates the children of the leaf at the end of `self.path` (its legal moves are in
    /// `self.movelist`), pushes its request and adds virtual loss along the path.
    fn request_leaf(&mut self, node: usize, batch: &mut EvalBatch) -> Result<(), SearchError> {
        if self.tree.nodes[node].state == UNEXPANDED {
            if node == ROOT {
                self.line.last().generate_legal(&mut self.movelist);
                self.root_moves();
            }
            let moves: &[Move] =
                if node == ROOT && !self.root_allowed.is_empty() { &self.root_moves } else { &self.movelist };
            if !self.tree.add_children(node, moves) {
                return Err(SearchError::TreeFull);
            }
        }
        self.tree.nodes[node].state = PENDING;
        let moves: &[Move] =
            if node == ROOT && !self.root_allowed.is_empty() { &self.root_moves } else { &self.movelist };
        let slot = batch.push(self.line.last(), self.line.features(), moves);
        let path_start = self.pending_paths.len() as u32;
        for &n in &self.path {
            self.tree.nodes[n as usize].in_flight += 1;
        }
        self.pending_paths.extend_from_slice(&self.path);
        self.pending.push(PendingLeaf {
            slot: slot as u32,
            node: node as u32,
            path_start,
            path_len: self.path.len() as u32,
        });
        Ok(())
    }

    /// Adds `wdl` (for the side to move at the end of `self.path`) to every node on it.
    fn backup(&mut self, wdl: Wdl, remove_virtual_loss: bool) {
        let mut v = wdl;
        for k in (0..self.path.len()).rev() {
            let node = &mut self.tree.nodes[self.path[k] as usize];
            // Node statistics are the mover's: the side to move one ply up.
            v = v.flip();
            node.win_sum += v.win;
            node.draw_sum += v.draw;
            node.visits += 1;
            if remove_virtual_loss {
                node.in_flight = node.in_flight.saturating_sub(1);
            }
        }
    }

    /// Applies the evaluated batch to every leaf this search requested since the last
    /// apply. Every result is checked before any is used, so a bad batch leaves the search
    /// untouched (and its requests pending).
    pub fn apply(&mut self, results: &EvalResults) -> Result<(), SearchError> {
        if !self.running {
            return Err(SearchError::NotStarted);
        }
        for leaf in &self.pending {
            let slot = leaf.slot as usize;
            if slot >= results.len() {
                return Err(SearchError::BadEvaluation { slot, why: "missing from the results" });
            }
            let n = self.tree.nodes[leaf.node as usize].n_children as usize;
            check_evaluation(results.wdl(slot), results.priors(slot), n)
                .map_err(|why| SearchError::BadEvaluation { slot, why })?;
        }
        for k in 0..self.pending.len() {
            let leaf = self.pending[k];
            let slot = leaf.slot as usize;
            let raw = results.wdl(slot);
            let total = raw.win + raw.draw + raw.loss;
            let wdl = Wdl::new(raw.win / total, raw.draw / total, raw.loss / total);
            let priors = results.priors(slot);
            let sum: f32 = priors.iter().sum();
            let node = leaf.node as usize;
            let range = self.tree.nodes[node].children();
            for (i, &p) in range.zip(priors) {
                self.tree.nodes[i].prior = p / sum;
            }
            let n = &mut self.tree.nodes[node];
            n.raw_value = wdl.value();
            n.state = EXPANDED;
            self.path.clear();
            let (a, b) = (leaf.path_start as usize, (leaf.path_start + leaf.path_len) as usize);
            self.path.extend_from_slice(&self.pending_paths[a..b]);
            self.backup(wdl, true);
        }
        self.pending.clear();
        self.pending_paths.clear();
        if !self.root_prepared && self.tree.nodes[ROOT].state == EXPANDED {
            self.prepare_root()?;
        }
        Ok(())
    }

    /// PUCT with first-play urgency and virtual loss (each in-flight visit counts as a loss).
    #[inline]
    fn select_puct(&self, parent: usize, fpu_reduction: f32) -> usize {
        let nodes = &self.tree.nodes;
        let p = &nodes[parent];
        let n_parent = (p.visits + p.in_flight as u32) as f32;
        let c = self.params.c_puct_init
            + ((n_parent + self.params.c_puct_base + 1.0) / self.params.c_puct_base).ln();
        let c_sqrt = c * n_parent.sqrt();
        // The parent's value for its own side to move.
        let parent_q = -p.q().unwrap_or(0.0);
        let range = p.children();
        // One pass: visited children are scored directly; unvisited ones share the FPU
        // value, so the best of them is the one with the largest prior (the first on ties).
        let mut visited_prior = 0.0f32;
        let mut best_visited = range.start;
        let mut best_visited_score = f32::NEG_INFINITY;
        let mut best_unvisited = usize::MAX;
        let mut best_unvisited_prior = f32::NEG_INFINITY;
        for (i, child) in nodes[range.clone()].iter().enumerate() {
            let vl = child.in_flight as u32;
            let n = child.visits + vl;
            if n == 0 {
                if child.prior > best_unvisited_prior {
                    best_unvisited_prior = child.prior;
                    best_unvisited = range.start + i;
                }
                continue;
            }
            visited_prior += child.prior;
            let q = (child.value_sum() - vl as f32) / n as f32;
            let score = q + c_sqrt * child.prior / (1 + n) as f32;
            if score > best_visited_score {
                best_visited_score = score;
                best_visited = range.start + i;
            }
        }
        if best_unvisited != usize::MAX {
            let fpu = parent_q - fpu_reduction * visited_prior.sqrt();
            if fpu + c_sqrt * best_unvisited_prior > best_visited_score {
                return best_unvisited;
            }
        }
        best_visited
    }

    /// Completed Q values σ(q̂) of `parent`'s children into `self.scratch`: visited children
    /// keep their mean value, unvisited ones get the mixed value approximation; the values
    /// are rescaled to [0, 1] over the children and scaled by `(c_visit + max N)·c_scale`.
    fn completed_sigma(&mut self, parent: usize) {
        let nodes = &self.tree.nodes;
        let p = &nodes[parent];
        let range = p.children();
        let mut sum_n = 0u32;
        let mut max_n = 0u32;
        let mut visited_prior = 0.0f32;
        let mut weighted_q = 0.0f32;
        for child in &nodes[range.clone()] {
            if let Some(q) = child.q() {
                sum_n += child.visits;
                max_n = max_n.max(child.visits);
                visited_prior += child.prior;
                weighted_q += child.prior * q;
            }
        }
        let mixed = if visited_prior > 0.0 {
            (p.raw_value + sum_n as f32 * weighted_q / visited_prior) / (sum_n + 1) as f32
        } else {
            p.raw_value
        };
        self.scratch.clear();
        let mut lo = f32::INFINITY;
        let mut hi = f32::NEG_INFINITY;
        for child in &nodes[range] {
            let q = child.q().unwrap_or(mixed);
            lo = lo.min(q);
            hi = hi.max(q);
            self.scratch.push(q);
        }
        let scale = (self.params.gumbel_c_visit + max_n as f32) * self.params.gumbel_c_scale;
        let span = (hi - lo).max(1e-8);
        for q in &mut self.scratch {
            *q = scale * (*q - lo) / span;
        }
    }

    /// Gumbel root: the candidate whose visits match the sequential-halving schedule with
    /// the best `g + logit + σ(q̂)`.
    fn select_gumbel_root(&mut self) -> usize {
        self.completed_sigma(ROOT);
        let first = self.tree.nodes[ROOT].first_child as usize;
        let sim: usize = self.gumbel_visits.iter().map(|&v| v as usize).sum();
        let target = self.gumbel_schedule.get(sim).or(self.gumbel_schedule.last()).copied().unwrap_or(0);
        let mut best = None;
        let mut best_score = f32::NEG_INFINITY;
        let mut fallback = 0;
        let mut fallback_key = (u32::MAX, f32::NEG_INFINITY);
        for k in 0..self.gumbel_visits.len() {
            let score = self.gumbel_base[k] + self.scratch[k];
            let visits = self.gumbel_visits[k];
            if visits == target && (best.is_none() || score > best_score) {
                best = Some(k);
                best_score = score;
            }
            // Should the schedule ever find no candidate, take the least visited best move.
            if visits < fallback_key.0 || (visits == fallback_key.0 && score > fallback_key.1) {
                fallback = k;
                fallback_key = (visits, score);
            }
        }
        first + best.unwrap_or(fallback)
    }

    /// Below the root: argmax of `π'(a) − N(a) / (1 + Σ N)`, with π' = softmax(logits + σ(q̂)).
    fn select_gumbel_interior(&mut self, parent: usize) -> usize {
        self.completed_sigma(parent);
        let nodes = &self.tree.nodes;
        let range = nodes[parent].children();
        let max_sigma = self.scratch.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut z = 0.0f32;
        let mut total_n = 0u32;
        for (k, child) in nodes[range.clone()].iter().enumerate() {
            let w = child.prior * (self.scratch[k] - max_sigma).exp();
            self.scratch[k] = w;
            z += w;
            total_n += child.visits + child.in_flight as u32;
        }
        let inv_z = if z > 0.0 { 1.0 / z } else { 0.0 };
        let inv_n = 1.0 / (1 + total_n) as f32;
        let mut best = range.start;
        let mut best_score = f32::NEG_INFINITY;
        for (k, child) in nodes[range.clone()].iter().enumerate() {
            let n = child.visits + child.in_flight as u32;
            let score = self.scratch[k] * inv_z - n as f32 * inv_n;
            if score > best_score {
                best_score = score;
                best = range.start + k;
            }
        }
        best
    }

    /// The result of the finished search: policy target, root value and the move to play
    /// (PUCT: sampled from the visits with the temperature of [`SearchParams::temperature_at`];
    /// Gumbel: the best sampled candidate among the most visited).
    pub fn result(&mut self) -> Result<SearchResult, SearchError> {
        let temperature = self.params.temperature_at(self.game_ply);
        self.result_with_temperature(temperature)
    }

    /// [`Search::result`] with an explicit move-choice temperature (PUCT only), for callers
    /// with their own schedule.
    pub fn result_with_temperature(&mut self, temperature: f32) -> Result<SearchResult, SearchError> {
        if !self.is_finished() {
            return Err(SearchError::Unfinished);
        }
        let root = self.tree.nodes[ROOT];
        let range = root.children();
        let children = &self.tree.nodes[range.clone()];
        let moves: Vec<Move> = children.iter().map(|c| c.mv).collect();
        let visits: Vec<u32> = children.iter().map(|c| c.visits).collect();
        let q: Vec<Option<f32>> = children.iter().map(Node::q).collect();
        let prior: Vec<f32> = if self.clean_root_priors.len() == children.len() {
            self.clean_root_priors.clone()
        } else {
            children.iter().map(|c| c.prior).collect()
        };
        let total_visits: u32 = visits.iter().sum();
        let (policy, chosen_index) = match self.params.algorithm {
            Algorithm::Puct => {
                let policy: Vec<f32> = if total_visits > 0 {
                    visits.iter().map(|&v| v as f32 / total_visits as f32).collect()
                } else {
                    prior.clone()
                };
                let index = self.choose_by_visits(&visits, &q, temperature);
                (policy, index)
            }
            Algorithm::Gumbel => {
                self.completed_sigma(ROOT);
                let mut logits: Vec<f32> =
                    prior.iter().zip(&self.scratch).map(|(&p, &s)| p.max(1e-30).ln() + s).collect();
                let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let mut z = 0.0;
                for l in &mut logits {
                    *l = (*l - max).exp();
                    z += *l;
                }
                for l in &mut logits {
                    *l /= z;
                }
                let most = self.gumbel_visits.iter().copied().max().unwrap_or(0);
                let mut index = 0;
                let mut best = f32::NEG_INFINITY;
                for k in 0..self.gumbel_visits.len() {
                    let score = self.gumbel_base[k] + self.scratch[k];
                    if self.gumbel_visits[k] == most && score > best {
                        best = score;
                        index = k;
                    }
                }
                (logits, index)
            }
        };
        // The root's statistics are its parent's mover's: flip to the side to move.
        let root_wdl = if root.visits > 0 {
            let n = root.visits as f32;
            let win = root.win_sum / n;
            let draw = root.draw_sum / n;
            Wdl::new(win, draw, (1.0 - win - draw).max(0.0)).flip()
        } else {
            Wdl::DRAW
        };
        let q = q.into_iter().map(|v| v.map(|x| x.clamp(-1.0, 1.0))).collect();
        Ok(SearchResult {
            chosen: moves[chosen_index],
            chosen_index,
            moves,
            visits,
            policy,
            prior,
            q,
            root_wdl,
            root_value: root_wdl.value(),
            full_search: self.full,
            simulations: self.started,
        })
    }

    /// Temperature 0: most visits (ties to the better Q, then the first). Otherwise
    /// sampled with probability ∝ visits^(1/T).
    fn choose_by_visits(&mut self, visits: &[u32], q: &[Option<f32>], temperature: f32) -> usize {
        let most = visits.iter().copied().max().unwrap_or(0);
        if temperature <= 1e-3 || most == 0 {
            let mut best = 0;
            for k in 0..visits.len() {
                let better_q = q[k].unwrap_or(-2.0) > q[best].unwrap_or(-2.0);
                if visits[k] > visits[best] || (visits[k] == visits[best] && better_q) {
                    best = k;
                }
            }
            return best;
        }
        let inv_t = 1.0 / temperature as f64;
        let weight = |v: u32| (v as f64 / most as f64).powf(inv_t);
        let total: f64 = visits.iter().map(|&v| weight(v)).sum();
        let mut x = self.rng.random::<f64>() * total;
        let mut last_visited = 0;
        for (k, &v) in visits.iter().enumerate() {
            if v == 0 {
                continue;
            }
            last_visited = k;
            x -= weight(v);
            if x < 0.0 {
                return k;
            }
        }
        last_visited
    }

    /// Plays `m` at the root (a move of either side) and keeps its subtree when
    /// `reuse_tree` is set; the search is ready for the next [`Search::start`].
    pub fn advance(&mut self, m: Move) -> Result<(), SearchError> {
        self.cancel_pending();
        self.line.truncate(self.root_line_len);
        let root = self.line_root();
        root.generate_legal(&mut self.movelist);
        if !self.movelist.contains(&m) {
            return Err(SearchError::IllegalMove(m.iccs()));
        }
        let child = self.tree.nodes[ROOT].children().find(|&i| self.tree.nodes[i].mv == m);
        match child {
            Some(child) if self.params.reuse_tree && self.tree.nodes[child].state == EXPANDED => {
                self.tree.promote(child);
            }
            _ => self.tree.reset(),
        }
        self.line.push(m);
        self.line.forget_irreversible();
        self.root_line_len = self.line.len();
        self.game_ply += 1;
        self.clear_search_state();
        Ok(())
    }

    /// Runs a whole search with `evaluator` on this thread: [`Search::start`], then
    /// [`Search::gather`] (`leaves_per_step` leaves) / evaluate / [`Search::apply`] until
    /// done, then [`Search::result`].
    pub fn run<E: Evaluator + ?Sized>(&mut self, evaluator: &mut E) -> Result<SearchResult, SearchError> {
        self.run_until(evaluator, None)
    }

    /// [`Search::run`], stopped at `deadline` if the budget is not spent by then ([`Search::stop`]).
    /// The root is always evaluated, so a search answers however short its time.
    pub fn run_until<E: Evaluator + ?Sized>(
        &mut self,
        evaluator: &mut E,
        deadline: Option<std::time::Instant>,
    ) -> Result<SearchResult, SearchError> {
        self.run_while(evaluator, |_| deadline.is_none_or(|d| std::time::Instant::now() < d))
    }

    /// [`Search::run`], stopped ([`Search::stop`]) as soon as `go_on` says no. It is asked
    /// after each evaluated batch, with the search as it stands, so a caller can stop on a
    /// clock, a depth ([`Search::principal_depth`]) or an outside signal.
    pub fn run_while<E: Evaluator + ?Sized>(
        &mut self,
        evaluator: &mut E,
        mut go_on: impl FnMut(&Self) -> bool,
    ) -> Result<SearchResult, SearchError> {
        self.start()?;
        let leaves = self.params.leaves_per_step as usize;
        let mut batch = std::mem::take(&mut self.sync_batch);
        let mut results = std::mem::take(&mut self.sync_results);
        let outcome = (|| loop {
            batch.clear();
            match self.gather(&mut batch, leaves)? {
                Step::Evaluate(_) => {
                    evaluate_batch(evaluator, &batch, &mut results)?;
                    self.apply(&results)?;
                    if !go_on(self) {
                        self.stop();
                    }
                }
                Step::Wait => return Err(SearchError::Unfinished),
                Step::Done => return self.result(),
            }
        })();
        self.sync_batch = batch;
        self.sync_results = results;
        outcome
    }
}

/// Checks one evaluation: WDL and priors finite and non-negative with positive sums, one
/// prior per legal move.
fn check_evaluation(wdl: Wdl, priors: &[f32], n_moves: usize) -> Result<(), &'static str> {
    let parts = [wdl.win, wdl.draw, wdl.loss];
    if parts.iter().any(|x| !x.is_finite() || *x < 0.0) {
        return Err("WDL has a negative or non-finite part");
    }
    if parts.iter().sum::<f32>() <= 0.0 {
        return Err("WDL sums to zero");
    }
    if priors.len() != n_moves {
        return Err("prior count differs from the number of legal moves");
    }
    if priors.iter().any(|x| !x.is_finite() || *x < 0.0) {
        return Err("a prior is negative or not finite");
    }
    if priors.iter().sum::<f32>() <= 0.0 {
        return Err("priors sum to zero");
    }
    Ok(())
}

/// Sequential halving over `n` simulations and `m` candidates (mctx's
/// `get_sequence_of_considered_visits`): for each simulation, the visit count a root
/// candidate must have to receive it. Each phase gives every remaining candidate
/// `max(1, ⌊n / (⌈log2 m⌉ · remaining)⌋)` visits, then halves the candidates (down to two).
pub(crate) fn halving_schedule(m: usize, n: usize, out: &mut Vec<u32>) {
    out.clear();
    if m <= 1 {
        out.extend(0..n as u32);
        return;
    }
    let log2m = (usize::BITS - (m - 1).leading_zeros()) as usize;
    let mut considered = m;
    let mut visits = 0u32;
    while out.len() < n {
        let extra = (n / (log2m * considered)).max(1);
        for _ in 0..extra {
            out.extend(std::iter::repeat_n(visits, considered));
            visits += 1;
        }
        considered = (considered / 2).max(2);
    }
    out.truncate(n);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_schedule_matches_mctx() {
        let mut s = Vec::new();
        halving_schedule(4, 16, &mut s);
        assert_eq!(s, vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
        halving_schedule(1, 3, &mut s);
        assert_eq!(s, vec![0, 1, 2]);
        halving_schedule(16, 8, &mut s);
        assert_eq!(s, vec![0; 8]);
        halving_schedule(3, 6, &mut s);
        // ⌈log2 3⌉ = 2: each of 3 gets one visit, then 2 candidates get 1 more each …
        assert_eq!(s, vec![0, 0, 0, 1, 1, 2]);
    }
}
