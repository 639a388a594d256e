//! A classical alpha-beta searcher: the strongest rung of the network-free ladder.

use super::eval::{MATERIAL, delta_red, evaluate_red};
use crate::player::{GameStart, MoveChoice, Player, PlayerError, Score, SearchLimits, StopSignal};
use std::time::Instant;
use xq_core::{Color, Game, MAX_MOVES, Move, MoveList, Piece, PieceKind, Position, Square};

/// Above any evaluation: the bounds of the search window.
const INFINITY: i32 = 32_000;
/// The score of mating now; mate in `n` plies scores `MATE - n`.
const MATE: i32 = 30_000;
/// Deepest ply the search reaches (main search, extensions and quiescence together).
const MAX_PLY: usize = 96;
/// Scores beyond this are mates.
const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// The score of winning by the opponent's forbidden repetition (perpetual check) now: decisive
/// but below the mate scores, so that path-dependent repetition verdicts stored in the
/// transposition table are never mistaken for mates.
const REPETITION_WIN: i32 = 20_000;
/// Quiescence plies during which a side in check searches every evasion; deeper, it only
/// looks at captures, which keeps check sequences from exploding.
const QUIESCENCE_CHECK_PLIES: u32 = 4;
/// Margin over the captured piece's value below which a capture in quiescence is not tried.
const DELTA_MARGIN: i32 = 200;
/// How often (in nodes) the clock is read.
const CLOCK_INTERVAL: u64 = 1024;

/// Settings of an [`AlphaBetaPlayer`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlphaBetaConfig {
    /// Depth searched when the limits name neither depth, nodes nor time.
    pub default_depth: u32,
    /// The transposition table has `2^tt_bits` entries of 16 bytes.
    pub tt_bits: u32,
}

impl Default for AlphaBetaConfig {
    fn default() -> Self {
        AlphaBetaConfig { default_depth: 4, tt_bits: 18 }
    }
}

#[derive(Clone, Copy, Default)]
struct TtEntry {
    key: u64,
    score: i32,
    /// `Move::raw`, 0 for none (no legal move goes from a0 to a0).
    mv: u16,
    depth: u8,
    bound: u8,
}

const BOUND_EXACT: u8 = 1;
const BOUND_LOWER: u8 = 2;
const BOUND_UPPER: u8 = 3;

fn move_from_raw(raw: u16) -> Option<Move> {
    if raw == 0 {
        return None;
    }
    let from = Square::from_index(usize::from(raw & 0xff))?;
    let to = Square::from_index(usize::from(raw >> 8))?;
    Some(Move::new(from, to))
}

/// Mate scores are stored relative to the node so they stay right at other depths.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Whether `side` has a rook, horse or cannon.
fn has_attackers(pos: &Position, side: Color) -> bool {
    let codes = [PieceKind::Rook, PieceKind::Horse, PieceKind::Cannon].map(|k| Piece::new(side, k).code());
    pos.board_codes().iter().any(|c| codes.contains(c))
}

/// Index 0..7 of the kind of a non-empty board code.
#[inline]
fn kind_index(code: u8) -> usize {
    (code as usize - 1) % 7
}

/// Iterative-deepening negamax alpha-beta with principal variation search.
///
/// - Evaluation: material plus piece-square tables (see the crate's `eval` tables), updated
///   incrementally with each move.
/// - Quiescence on captures with delta pruning; a side in check searches all evasions for the
///   first few quiescence plies, then only captures, so the search is always bounded.
/// - Ordering: transposition-table move, captures by MVV-LVA, two killers per ply, history.
/// - Transposition table keyed by [`Position::hash`], depth-preferred replacement, mate
///   scores stored relative to the node.
/// - Null-move pruning (reduction 2, or 3 from depth 6) when not in check and the side to move
///   has a rook, horse or cannon.
/// - Check extension; mate scored by distance; no legal move is a loss (mate or 困毙).
/// - A position that repeats an earlier one on the line (game history since the last capture
///   included) ends the line at its first repetition, as RULES.md allows, with a simplified
///   棋例 verdict: a side that checked on every one of its moves of the cycle while the other
///   did not loses (a decisive score below the mate scores); any other repetition is a draw. Chases
///   and mate threats are not classified: the arbiter judges the real game, the search only
///   avoids or seeks repetitions.
///
/// Limits: `depth`, `nodes` and `movetime` (whichever comes first), and the
/// [`SearchLimits::stop`] signal; the config's default depth when none is given, unless the
/// search is [`SearchLimits::infinite`] (then it deepens until stopped). The inner loop does not allocate: moves live in fixed arrays on
/// the stack, and the line's hashes in a vector reserved before the search.
pub struct AlphaBetaPlayer {
    name: String,
    config: AlphaBetaConfig,
    tt: Vec<TtEntry>,
    killers: [[Option<Move>; 2]; MAX_PLY],
    history: [[i32; 90]; 15],
    /// The positions on the current line, game history first: their hash and whether the
    /// move into them gave check.
    line: Vec<(u64, bool)>,
    nodes: u64,
    /// The deepest ply any node of the current search reached, quiescence included.
    seldepth: u32,
    node_limit: u64,
    deadline: Option<Instant>,
    /// [`SearchLimits::stop`] of the running search.
    stop: Option<StopSignal>,
    stopped: bool,
}

impl AlphaBetaPlayer {
    /// A player with the given settings, named `alphabeta-d<default_depth>`.
    pub fn new(config: AlphaBetaConfig) -> AlphaBetaPlayer {
        let size = 1usize << config.tt_bits.clamp(4, 30);
        AlphaBetaPlayer {
            name: format!("alphabeta-d{}", config.default_depth),
            config,
            tt: vec![TtEntry::default(); size],
            killers: [[None; 2]; MAX_PLY],
            history: [[0; 90]; 15],
            line: Vec::new(),
            nodes: 0,
            seldepth: 0,
            node_limit: u64::MAX,
            deadline: None,
            stop: None,
            stopped: false,
        }
    }

    /// A player with default settings searching `depth` plies when not told otherwise.
    pub fn with_depth(depth: u32) -> AlphaBetaPlayer {
        AlphaBetaPlayer::new(AlphaBetaConfig { default_depth: depth, ..AlphaBetaConfig::default() })
    }

    /// Renames the player.
    pub fn named(mut self, name: &str) -> AlphaBetaPlayer {
        self.name = name.to_string();
        self
    }

    fn clear(&mut self) {
        self.tt.fill(TtEntry::default());
        self.killers = [[None; 2]; MAX_PLY];
        self.history = [[0; 90]; 15];
    }

    /// Searches `game`'s current position within `limits`.
    pub fn search(&mut self, game: &Game, limits: &SearchLimits) -> Result<MoveChoice, PlayerError> {
        let started = Instant::now();
        let mut pos = *game.position();
        let mut root_moves = MoveList::new();
        pos.generate_legal(&mut root_moves);
        let Some(&first) = root_moves.first() else {
            return Err(PlayerError::NoMove(format!("no legal move in {}", game.fen())));
        };
        let max_depth = match (limits.depth, limits.nodes, limits.movetime) {
            (Some(d), _, _) => d.clamp(1, MAX_PLY as u32 / 2),
            (None, None, None) if !limits.infinite => self.config.default_depth.clamp(1, MAX_PLY as u32 / 2),
            (None, _, _) => MAX_PLY as u32 / 2,
        };
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.deadline = limits.movetime.map(|t| started + t);
        self.stop = limits.stop.clone();
        self.nodes = 0;
        self.seldepth = 0;
        self.stopped = false;
        for row in self.history.iter_mut() {
            for h in row.iter_mut() {
                *h /= 8;
            }
        }

        // The line starts with the positions since the last capture: only those can recur.
        let positions = game.positions();
        let now = positions.len() - 1;
        let window = (game.capture_clock() as usize).min(now);
        self.line.clear();
        self.line.reserve(window + MAX_PLY + 1);
        self.line.extend((now - window..=now).map(|ply| (positions[ply].hash(), game.gave_check(ply))));

        let eval = evaluate_red(&pos);
        let mut best = (first, 0i32, 0u32);
        for depth in 1..=max_depth {
            let (score, mv) = self.root(&mut pos, depth as i32, eval);
            if self.stopped {
                break;
            }
            if let Some(mv) = mv {
                best = (mv, score, depth);
            }
            if score.abs() >= MATE_BOUND {
                break;
            }
        }
        let (mv, score, depth) = best;
        let pv = self.principal_variation(&pos, mv, depth.max(1) as usize);
        let score = if score >= MATE_BOUND {
            Score::Mate((MATE - score + 1) / 2)
        } else if score <= -MATE_BOUND {
            Score::Mate(-(MATE + score + 1) / 2)
        } else {
            Score::Centipawns(score)
        };
        Ok(MoveChoice {
            mv,
            score: (depth > 0).then_some(score),
            depth: Some(depth),
            seldepth: Some(self.seldepth),
            nodes: Some(self.nodes),
            visits: None,
            policy: Vec::new(),
            pv,
        })
    }

    /// The line the search expects: `first`, then the transposition table's best moves, as
    /// long as each is stored for the position, legal there and does not repeat a position of
    /// the line (at most `max_len` moves).
    fn principal_variation(&self, root: &Position, first: Move, max_len: usize) -> Vec<Move> {
        let mut pos = *root;
        let mut line = Vec::with_capacity(max_len);
        let mut seen = vec![pos.hash()];
        let mut next = Some(first);
        while let Some(mv) = next {
            if line.len() >= max_len || !pos.is_legal(mv) {
                break;
            }
            pos.make(mv);
            if seen.contains(&pos.hash()) {
                break;
            }
            seen.push(pos.hash());
            line.push(mv);
            let entry = self.tt[self.tt_index(pos.hash())];
            next = if entry.key == pos.hash() { move_from_raw(entry.mv) } else { None };
        }
        line
    }

    fn root(&mut self, pos: &mut Position, depth: i32, eval_red: i32) -> (i32, Option<Move>) {
        let score = self.negamax(pos, depth, -INFINITY, INFINITY, 0, eval_red, 0, true);
        let entry = self.tt[self.tt_index(pos.hash())];
        let mv = if entry.key == pos.hash() { move_from_raw(entry.mv) } else { None };
        (score, mv)
    }

    #[inline]
    fn tt_index(&self, key: u64) -> usize {
        (key as usize) & (self.tt.len() - 1)
    }

    fn tt_store(&mut self, key: u64, depth: i32, score: i32, bound: u8, mv: Option<Move>, ply: usize) {
        let index = self.tt_index(key);
        let old = self.tt[index];
        if old.key == key || depth as u8 >= old.depth || old.bound == 0 || ply == 0 {
            let mv = mv.map_or(if old.key == key { old.mv } else { 0 }, Move::raw);
            self.tt[index] =
                TtEntry { key, score: score_to_tt(score, ply), mv, depth: depth.max(0) as u8, bound };
        }
    }

    #[inline]
    fn out_of_budget(&mut self) -> bool {
        let checkpoint = self.nodes.is_multiple_of(CLOCK_INTERVAL);
        if self.nodes >= self.node_limit
            || (checkpoint
                && (self.deadline.is_some_and(|deadline| Instant::now() >= deadline)
                    || self.stop.as_ref().is_some_and(StopSignal::is_stopped)))
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// If the last position on the line occurred before (since `reversible_from`), the
    /// repetition's score for the side to move.
    fn repetition_score(&self, reversible_from: usize, ply: usize) -> Option<i32> {
        let now = self.line.len() - 1;
        let current = self.line[now].0;
        // Same side to move only, and a position cannot recur after two plies.
        let mut back = 4;
        while back <= now - reversible_from {
            if self.line[now - back].0 == current {
                // Moves into positions now, now-2, … were the opponent's; the others ours.
                let cycle = &self.line[now - back + 1..=now];
                let checked_all = |parity: usize| {
                    cycle
                        .iter()
                        .rev()
                        .enumerate()
                        .filter(|(k, _)| k % 2 == parity)
                        .all(|(_, &(_, check))| check)
                };
                let win = REPETITION_WIN - ply as i32;
                return Some(match (checked_all(0), checked_all(1)) {
                    (true, false) => win,
                    (false, true) => -win,
                    _ => 0,
                });
            }
            back += 2;
        }
        None
    }

    /// Orders moves in place by a score: the best first is picked lazily by the caller.
    fn score_moves(
        &self,
        pos: &Position,
        list: &MoveList,
        tt_move: Option<Move>,
        ply: usize,
        moves: &mut [Move; MAX_MOVES],
        scores: &mut [i32; MAX_MOVES],
    ) -> usize {
        let board = pos.board_codes();
        let killers = self.killers[ply.min(MAX_PLY - 1)];
        for (i, &m) in list.iter().enumerate() {
            let moving = board[m.from().index()];
            let captured = board[m.to().index()];
            moves[i] = m;
            scores[i] = if Some(m) == tt_move {
                1 << 30
            } else if captured != 0 {
                (1 << 24) + MATERIAL[kind_index(captured)] * 16 - MATERIAL[kind_index(moving)] / 16
            } else if Some(m) == killers[0] {
                1 << 22
            } else if Some(m) == killers[1] {
                (1 << 22) - 1
            } else {
                self.history[moving as usize][m.to().index()]
            };
        }
        list.len()
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        pos: &mut Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        eval_red: i32,
        reversible_from: usize,
        allow_null: bool,
    ) -> i32 {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply as u32);
        if self.out_of_budget() {
            return 0;
        }
        let in_check = pos.in_check();
        if ply > 0 {
            if let Some(last) = self.line.last_mut() {
                last.1 = in_check;
            }
            if let Some(score) = self.repetition_score(reversible_from, ply) {
                return score;
            }
        }
        let depth = if in_check && ply < MAX_PLY / 2 { depth + 1 } else { depth };
        if depth <= 0 || ply >= MAX_PLY / 2 {
            return self.quiesce(pos, alpha, beta, ply, eval_red, 0);
        }
        // Mate-distance pruning: no line from here beats a mate already found nearer the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        let key = pos.hash();
        let entry = self.tt[self.tt_index(key)];
        let mut tt_move = None;
        if entry.key == key && entry.bound != 0 {
            tt_move = move_from_raw(entry.mv);
            if ply > 0 && i32::from(entry.depth) >= depth {
                let score = score_from_tt(entry.score, ply);
                let cut = match entry.bound {
                    BOUND_EXACT => true,
                    BOUND_LOWER => score >= beta,
                    _ => score <= alpha,
                };
                if cut {
                    return score;
                }
            }
        }

        // Null move: if passing still holds beta at reduced depth, a real move will too. Not in
        // check, not twice in a row, not near mate scores, and only with a rook, horse or cannon
        // left (with fewer pieces zugzwang, and so 困毙, becomes likely).
        let side = pos.side_to_move();
        let stand_pat = if side == Color::Red { eval_red } else { -eval_red };
        if allow_null
            && !in_check
            && ply > 0
            && depth >= 3
            && beta.abs() < REPETITION_WIN - MAX_PLY as i32
            && stand_pat >= beta
            && has_attackers(pos, side)
        {
            let reduction = if depth >= 6 { 3 } else { 2 };
            let mut passed = pos.with_side_to_move(side.opponent());
            self.line.push((passed.hash(), false));
            // No repetition reaches back across a pass.
            let from = self.line.len() - 1;
            let score = -self.negamax(
                &mut passed,
                depth - 1 - reduction,
                -beta,
                -beta + 1,
                ply + 1,
                eval_red,
                from,
                false,
            );
            self.line.pop();
            if self.stopped {
                return 0;
            }
            if score >= beta {
                return beta;
            }
        }

        let mut list = MoveList::new();
        pos.generate_legal(&mut list);
        if list.is_empty() {
            // Checkmate and 困毙 both lose.
            return -MATE + ply as i32;
        }
        let mut moves = [Move::new(pos.king_square(Color::Red), pos.king_square(Color::Red)); MAX_MOVES];
        let mut scores = [0i32; MAX_MOVES];
        let count = self.score_moves(pos, &list, tt_move, ply, &mut moves, &mut scores);

        let alpha_start = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        for n in 0..count {
            // Selection sort step: bring the best remaining move to position n.
            let mut pick = n;
            for j in n + 1..count {
                if scores[j] > scores[pick] {
                    pick = j;
                }
            }
            moves.swap(n, pick);
            scores.swap(n, pick);
            let m = moves[n];

            let board = pos.board_codes();
            let moving = board[m.from().index()];
            let captured = board[m.to().index()];
            let child_eval = eval_red + delta_red(moving, captured, m.from(), m.to());
            let undo = pos.make(m);
            self.line.push((pos.hash(), false));
            let child_reversible = if captured != 0 { self.line.len() - 1 } else { reversible_from };
            let score = if n == 0 {
                -self.negamax(pos, depth - 1, -beta, -alpha, ply + 1, child_eval, child_reversible, true)
            } else {
                let probe = -self.negamax(
                    pos,
                    depth - 1,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    child_eval,
                    child_reversible,
                    true,
                );
                if probe > alpha && probe < beta {
                    -self.negamax(pos, depth - 1, -beta, -alpha, ply + 1, child_eval, child_reversible, true)
                } else {
                    probe
                }
            };
            self.line.pop();
            pos.unmake(m, undo);
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        if captured == 0 {
                            let k = &mut self.killers[ply];
                            if k[0] != Some(m) {
                                k[1] = k[0];
                                k[0] = Some(m);
                            }
                            let h = &mut self.history[moving as usize][m.to().index()];
                            *h = (*h + depth * depth).min(1 << 20);
                        }
                        break;
                    }
                }
            }
        }
        let bound = if best_score >= beta {
            BOUND_LOWER
        } else if best_score > alpha_start {
            BOUND_EXACT
        } else {
            BOUND_UPPER
        };
        self.tt_store(key, depth, best_score, bound, best_move, ply);
        best_score
    }

    fn quiesce(
        &mut self,
        pos: &mut Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        eval_red: i32,
        qply: u32,
    ) -> i32 {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply as u32);
        if self.out_of_budget() {
            return 0;
        }
        let side = pos.side_to_move();
        let stand_pat = if side == Color::Red { eval_red } else { -eval_red };
        if ply >= MAX_PLY - 1 {
            return stand_pat;
        }
        let evading = qply < QUIESCENCE_CHECK_PLIES && pos.in_check();
        let mut list = MoveList::new();
        let mut best = -INFINITY;
        if evading {
            pos.generate_legal(&mut list);
            if list.is_empty() {
                return -MATE + ply as i32;
            }
        } else {
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
            pos.generate_pseudo(side, &mut list);
        }
        let board = *pos.board_codes();
        let mut moves = [Move::new(pos.king_square(Color::Red), pos.king_square(Color::Red)); MAX_MOVES];
        let mut scores = [0i32; MAX_MOVES];
        let mut count = 0;
        for &m in list.iter() {
            let captured = board[m.to().index()];
            if captured == 0 && !evading {
                continue;
            }
            if !evading && stand_pat + MATERIAL[kind_index(captured)] + DELTA_MARGIN < alpha {
                continue;
            }
            let moving = board[m.from().index()];
            moves[count] = m;
            scores[count] = if captured == 0 {
                0
            } else {
                (1 << 24) + MATERIAL[kind_index(captured)] * 16 - MATERIAL[kind_index(moving)] / 16
            };
            count += 1;
        }
        for n in 0..count {
            let mut pick = n;
            for j in n + 1..count {
                if scores[j] > scores[pick] {
                    pick = j;
                }
            }
            moves.swap(n, pick);
            scores.swap(n, pick);
            let m = moves[n];
            let moving = board[m.from().index()];
            let captured = board[m.to().index()];
            let child_eval = eval_red + delta_red(moving, captured, m.from(), m.to());
            let undo = pos.make(m);
            if !evading && pos.is_king_attacked(side) {
                pos.unmake(m, undo);
                continue;
            }
            let score = -self.quiesce(pos, -beta, -alpha, ply + 1, child_eval, qply + 1);
            pos.unmake(m, undo);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

impl Player for AlphaBetaPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, _game: &Game, _start: GameStart) -> Result<(), PlayerError> {
        // A fresh table per game: a game's moves depend only on the game, not on which games
        // this player happened to play before.
        self.clear();
        Ok(())
    }

    fn choose_move(&mut self, game: &Game, limits: &SearchLimits) -> Result<MoveChoice, PlayerError> {
        self.search(game, limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repetitions_are_judged_by_checks() {
        let mut ab = AlphaBetaPlayer::new(AlphaBetaConfig { tt_bits: 4, ..AlphaBetaConfig::default() });
        // Positions 1 2 3 4 1: the last move (into the repeat) and the one two plies before were
        // the opponent's; `true` marks a move that gave check.
        let line = |checks: [bool; 4]| {
            vec![(1, false), (2, checks[0]), (3, checks[1]), (4, checks[2]), (1, checks[3])]
        };
        ab.line = line([true, false, true, false]);
        assert_eq!(ab.repetition_score(0, 4), Some(-(REPETITION_WIN - 4)), "we checked every move");
        ab.line = line([false, true, false, true]);
        assert_eq!(ab.repetition_score(0, 4), Some(REPETITION_WIN - 4), "they checked every move");
        ab.line = line([true, true, true, true]);
        assert_eq!(ab.repetition_score(0, 4), Some(0), "both checked");
        ab.line = line([false, false, false, false]);
        assert_eq!(ab.repetition_score(0, 4), Some(0));
        // A capture inside the window (reversible from index 1) rules the repetition out.
        assert_eq!(ab.repetition_score(1, 4), None);
        ab.line.push((5, false));
        assert_eq!(ab.repetition_score(0, 5), None);
    }
}
