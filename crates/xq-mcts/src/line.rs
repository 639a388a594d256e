//! The line a search node lies on: the game's recent history followed by the tree path,
//! with the clocks and the repetition test that decide terminal positions.

use crate::evaluator::Wdl;
use xq_core::qili::RuleSet;
use xq_core::{Game, GameRules, HistoryFeatures, Move, Position};

/// Per-position bookkeeping along the line.
#[derive(Clone, Copy, Debug, Default)]
struct PlyInfo {
    /// Plies since the last capture.
    capture_clock: u32,
    /// Index of the first position that can recur with this one: the position right after
    /// the last capture, or the first position of the line.
    reversible_from: u32,
    /// For article 23.3's option: checks given by red and by black since the last capture.
    checks: [u32; 2],
    /// Plies since the last capture that gave no check, plus those before the line whose
    /// history is unknown (counted as non-checks, as [`Game::limit_plies`] does).
    others: u32,
}

/// Positions and moves of the line: `positions[i]` stands before `moves[i]`, and there is
/// always one more position than moves, the shape [`xq_core::qili::judge`] wants.
///
/// Only history since the last capture is kept (earlier positions can never recur), so the
/// buffers stay near the natural move limit plus the tree depth and are reused for every
/// simulation.
#[derive(Clone, Debug)]
pub(crate) struct Line {
    positions: Vec<Position>,
    moves: Vec<Move>,
    info: Vec<PlyInfo>,
    rules: GameRules,
}

/// Room reserved for the tree path on top of the history, so descents do not reallocate.
const PATH_RESERVE: usize = 512;

impl Line {
    /// The line of a game's current position: its history since the last capture.
    pub(crate) fn from_game(game: &Game) -> Line {
        let rules = *game.rules();
        let n = game.ply();
        let clock = game.capture_clock();
        let window = (clock as usize).min(n);
        let first = n - window;
        let capacity = window + 1 + PATH_RESERVE;
        let mut line = Line {
            positions: Vec::with_capacity(capacity),
            moves: Vec::with_capacity(capacity),
            info: Vec::with_capacity(capacity),
            rules,
        };
        let unknown = clock - window as u32;
        line.positions.push(game.positions()[first]);
        line.info.push(PlyInfo {
            capture_clock: unknown,
            reversible_from: 0,
            checks: [0, 0],
            others: unknown,
        });
        for &m in &game.moves()[first..n] {
            line.push(m);
        }
        line
    }

    /// Number of positions on the line.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.positions.len()
    }

    /// Position `index` of the line.
    #[inline]
    pub(crate) fn position(&self, index: usize) -> &Position {
        &self.positions[index]
    }

    /// The last position.
    #[inline]
    pub(crate) fn last(&self) -> &Position {
        // A line always holds at least its first position.
        &self.positions[self.positions.len() - 1]
    }

    /// Plays `m` (legal in the last position) at the end of the line.
    #[inline]
    pub(crate) fn push(&mut self, m: Move) {
        let last = *self.last();
        let prev = self.info[self.info.len() - 1];
        let capture = last.piece_at(m.to()).is_some();
        let next = last.after(m);
        let info = if capture {
            PlyInfo {
                capture_clock: 0,
                reversible_from: self.positions.len() as u32,
                checks: [0, 0],
                others: 0,
            }
        } else {
            let mut info = PlyInfo { capture_clock: prev.capture_clock + 1, ..prev };
            // Only article 23.3's option needs to know which plies were checks.
            if self.rules.limit_counts_ten_checks && next.in_check() {
                info.checks[last.side_to_move().index()] += 1;
            } else {
                info.others += 1;
            }
            info
        };
        self.positions.push(next);
        self.moves.push(m);
        self.info.push(info);
    }

    /// Drops everything after the first `len` positions.
    #[inline]
    pub(crate) fn truncate(&mut self, len: usize) {
        self.positions.truncate(len);
        self.moves.truncate(len - 1);
        self.info.truncate(len);
    }

    /// Forgets history that can no longer recur: everything before the last position's
    /// last capture. Called when the game moves on, never during a descent.
    pub(crate) fn forget_irreversible(&mut self) {
        let from = self.info[self.info.len() - 1].reversible_from as usize;
        if from == 0 {
            return;
        }
        self.positions.drain(..from);
        self.moves.drain(..from);
        self.info.drain(..from);
        for info in &mut self.info {
            info.reversible_from = info.reversible_from.saturating_sub(from as u32);
        }
    }

    /// Plies counted toward the natural move limit at the last position.
    #[inline]
    fn limit_plies(&self) -> u32 {
        let info = &self.info[self.info.len() - 1];
        if self.rules.limit_counts_ten_checks {
            info.others + info.checks[0].min(10) + info.checks[1].min(10)
        } else {
            info.capture_clock
        }
    }

    /// Indices of earlier positions equal to the last one, newest first.
    #[inline]
    fn earlier_occurrences(&self) -> impl Iterator<Item = usize> + '_ {
        let n = self.positions.len() - 1;
        let from = self.info[n].reversible_from as usize;
        let current = &self.positions[n];
        // Same side to move only: step back two plies at a time.
        (from..n.saturating_sub(1))
            .rev()
            .step_by(2)
            .filter(move |&i| self.positions[i].hash() == current.hash() && self.positions[i] == *current)
    }

    /// The history features of the last position, as [`Game::history_features`] computes
    /// them for a game.
    pub(crate) fn features(&self) -> HistoryFeatures {
        HistoryFeatures {
            earlier_occurrences: self.earlier_occurrences().count().min(usize::from(u8::MAX)) as u8,
            limit_plies: self.limit_plies(),
            move_limit_plies: self.rules.move_limit_plies,
        }
    }

    /// The exact result for the side to move at the last position if the game ends there, in
    /// the order of [`Game::outcome`]: no legal move (mate or stalemate: the side to move
    /// loses), a repeat of an earlier position on the line (the 棋例 verdict on the cycle; only
    /// when `repetition_ends` — a search root is never ended by repetition), insufficient
    /// material, then the natural move limit.
    pub(crate) fn terminal(&self, legal_moves: usize, repetition_ends: bool) -> Option<Wdl> {
        if legal_moves == 0 {
            return Some(Wdl::LOSS);
        }
        if repetition_ends && let Some(start) = self.earlier_occurrences().next() {
            let side = self.last().side_to_move();
            let result = judge_repetition(&self.positions, &self.moves, start, self.rules.rule_set);
            return Some(match result.score_for(side) {
                1 => Wdl::WIN,
                0 => Wdl::DRAW,
                _ => Wdl::LOSS,
            });
        }
        if xq_core::insufficient_material(self.last()) || self.limit_plies() >= self.rules.move_limit_plies {
            return Some(Wdl::DRAW);
        }
        None
    }
}

/// The one place the search asks the 棋例 judge for a verdict on the cycle `moves[start..]`
/// (`positions[i]` before `moves[i]`), so a cheaper judge can be swapped in here.
pub(crate) fn judge_repetition(
    positions: &[Position],
    moves: &[Move],
    start: usize,
    rule_set: RuleSet,
) -> xq_core::GameResult {
    match xq_core::qili::judge_outcome(positions, moves, start, rule_set) {
        Ok(outcome) => outcome.result,
        // The line is built from legal moves, so the judge cannot reject it; a draw is the
        // neutral answer should that ever change.
        Err(e) => {
            debug_assert!(false, "judge rejected a search line: {e}");
            xq_core::GameResult::Draw
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xq_core::notation::parse_move;

    fn play(game: &mut Game, moves: &[&str]) {
        for m in moves {
            let mv = parse_move(game.position(), m).unwrap();
            game.play(mv).unwrap();
        }
    }

    #[test]
    fn clocks_and_repetitions_follow_the_game() {
        let mut game = Game::new(Position::startpos(), GameRules::default());
        play(&mut game, &["h0g2", "h9g7", "g2h0", "g7h9"]);
        let line = Line::from_game(&game);
        assert_eq!(line.len(), 5);
        assert_eq!(line.features().earlier_occurrences, 1);
        assert_eq!(line.features().limit_plies, 4);
        assert_eq!(line.features().plies_to_limit(), 116);
        assert_eq!(line.features(), game.history_features());
        // The current position repeats the start: terminal when repetition ends lines.
        assert_eq!(line.terminal(44, true), Some(Wdl::DRAW));
        assert_eq!(line.terminal(44, false), None);
    }

    #[test]
    fn a_repeat_inside_the_path_is_terminal() {
        let game = Game::new(Position::startpos(), GameRules::default());
        let mut line = Line::from_game(&game);
        for m in ["h0g2", "h9g7", "g2h0"] {
            let m = parse_move(line.last(), m).unwrap();
            line.push(m);
            assert_eq!(line.terminal(40, true), None);
        }
        let m = parse_move(line.last(), "g7h9").unwrap();
        line.push(m);
        assert_eq!(line.terminal(44, true), Some(Wdl::DRAW));
        line.truncate(4);
        assert_eq!(line.terminal(40, true), None);
    }

    #[test]
    fn a_capture_forgets_history() {
        let mut game = Game::new(Position::startpos(), GameRules::default());
        play(&mut game, &["h2e2", "h9g7", "e2e6"]);
        let mut line = Line::from_game(&game);
        assert_eq!(line.len(), 1);
        let m = parse_move(line.last(), "g7e6").unwrap();
        line.push(m);
        assert_eq!(line.features().limit_plies, 0);
        line.forget_irreversible();
        assert_eq!(line.len(), 1);
    }

    #[test]
    fn ten_checks_option_matches_the_game() {
        let rules =
            GameRules { move_limit_plies: 100, limit_counts_ten_checks: true, ..GameRules::default() };
        let mut game = Game::from_fen("4k4/9/9/9/9/9/9/9/9/R2K5 w - - 3 1", rules).unwrap();
        play(&mut game, &["a0a9"]);
        for _ in 0..6 {
            play(&mut game, &["e9e8", "a9a8", "e8e9", "a8a9"]);
        }
        let line = Line::from_game(&game);
        assert_eq!(line.features().plies_to_limit(), 100 - game.limit_plies());
        assert_ne!(game.limit_plies(), game.capture_clock());
        assert_eq!(line.features(), game.history_features());
    }

    #[test]
    fn move_limit_and_material_are_draws() {
        let rules = GameRules { move_limit_plies: 4, ..GameRules::default() };
        let game = Game::from_fen("3k5/9/9/9/9/9/9/9/9/4K3R w - - 4 1", rules).unwrap();
        assert_eq!(Line::from_game(&game).terminal(10, true), Some(Wdl::DRAW));
        let game = Game::from_fen("3ak4/4a4/9/9/9/9/9/9/4A4/3K1A3 w", GameRules::default()).unwrap();
        assert_eq!(Line::from_game(&game).terminal(3, true), Some(Wdl::DRAW));
        assert_eq!(Line::from_game(&game).terminal(0, true), Some(Wdl::LOSS));
    }
}
