//! A game: the start position, the moves played, and everything that depends on history
//! (clocks, repetitions, the outcome).

use crate::outcome::{GameResult, Outcome, Termination};
use crate::position::Position;
use crate::qili::RuleSet;
use crate::types::{Color, Move, PieceKind};
use thiserror::Error;

/// The rules a game is played under; recorded with every game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameRules {
    /// Which 棋例 rule set decides repetitions.
    pub rule_set: RuleSet,
    /// The natural move limit in plies without a capture (自然限着, 4.2.4). 120 = 60 moves.
    pub move_limit_plies: u32,
    /// Article 23.3: when counting the natural limit, count at most 10 checks of each side.
    pub limit_counts_ten_checks: bool,
    /// A repetition is adjudicated when a position occurs this many times (3 by default:
    /// the cycle has been played twice).
    pub repetition_count: u8,
}

/// A rule setting out of its range.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("rules.{key} = {value}: expected {expected}")]
pub struct RulesError {
    /// The setting, as configuration files name it.
    pub key: &'static str,
    /// Its value, printed.
    pub value: String,
    /// What it must be.
    pub expected: &'static str,
}

impl GameRules {
    /// Checks every setting's range: the one validation of rules that every configuration
    /// goes through (deserialising `GameRules` calls it).
    ///
    /// ```
    /// use xq_core::GameRules;
    /// assert!(GameRules::default().validate().is_ok());
    /// let bad = GameRules { repetition_count: 1, ..GameRules::default() };
    /// assert_eq!(bad.validate().unwrap_err().to_string(), "rules.repetition_count = 1: expected at least 2");
    /// ```
    pub fn validate(&self) -> Result<(), RulesError> {
        if self.move_limit_plies == 0 {
            return Err(RulesError { key: "move_limit_plies", value: "0".into(), expected: "at least 1" });
        }
        if self.repetition_count < 2 {
            return Err(RulesError {
                key: "repetition_count",
                value: self.repetition_count.to_string(),
                expected: "at least 2",
            });
        }
        Ok(())
    }
}

impl Default for GameRules {
    fn default() -> Self {
        GameRules {
            rule_set: RuleSet::Cxa,
            move_limit_plies: 120,
            limit_counts_ten_checks: false,
            repetition_count: 3,
        }
    }
}

/// Length of the 9-round rule's window (参考图8): nine rounds of both sides.
pub const SPREAD_PLIES: usize = 18;

/// In the 9-round rule's window, the most distinct squares one side's moves may land on
/// for the play to count as a cycle: nine moves onto at most four squares return to them
/// again and again (three for the spread chase, one more for a piece that joins it).
pub const SPREAD_MAX_SQUARES: u32 = 4;

/// A stretch of moves that returns to the position it started from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cycle {
    /// Index of the first move of the cycle (the position before it is `positions[start_ply]`).
    pub start_ply: usize,
    /// Number of moves in the cycle.
    pub plies: usize,
}

/// A move that is not legal in the current position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("illegal move {mv} in {fen}")]
pub struct IllegalMove {
    /// The move, in ICCS.
    pub mv: String,
    /// The position it was tried in.
    pub fen: String,
}

/// A game with its history.
///
/// ```
/// use xq_core::{Game, GameRules, Position};
/// let mut game = Game::new(Position::startpos(), GameRules::default());
/// let m = xq_core::notation::parse_move(game.position(), "h2e2").unwrap();
/// game.play(m).unwrap();
/// assert_eq!(game.ply(), 1);
/// assert!(game.outcome().is_none());
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    rules: GameRules,
    fullmove_at_start: u32,
    /// `positions[i]` is the position before `moves[i]`; one more position than moves.
    positions: Vec<Position>,
    moves: Vec<Move>,
    /// Plies since the last capture, for each position.
    capture_clock: Vec<u32>,
    /// Whether the side to move is in check, for each position.
    in_check: Vec<bool>,
}

impl Game {
    /// A new game from a position.
    pub fn new(start: Position, rules: GameRules) -> Game {
        Game::with_clocks(start, rules, 0, 1)
    }

    /// A new game from a position with the FEN's clocks.
    pub fn with_clocks(start: Position, rules: GameRules, capture_clock: u32, fullmove: u32) -> Game {
        Game {
            rules,
            fullmove_at_start: fullmove.max(1),
            in_check: vec![start.in_check()],
            positions: vec![start],
            moves: Vec::new(),
            capture_clock: vec![capture_clock],
        }
    }

    /// A game from a FEN, keeping its clocks.
    pub fn from_fen(fen: &str, rules: GameRules) -> Result<Game, crate::FenError> {
        let setup = crate::fen::parse_setup(fen)?;
        let pos = Position::from_setup(&setup)?;
        Ok(Game::with_clocks(pos, rules, setup.halfmove_clock, setup.fullmove_number))
    }

    /// The rules.
    pub fn rules(&self) -> &GameRules {
        &self.rules
    }

    /// The current position.
    #[inline]
    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game has a position")
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// Every position from the start to now (one more than [`Game::moves`]).
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The moves played.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Plies played in this game.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// Plies since the last capture (including those before the start FEN).
    pub fn capture_clock(&self) -> u32 {
        *self.capture_clock.last().expect("clock")
    }

    /// The FEN of the current position with its clocks.
    pub fn fen(&self) -> String {
        let black_moves_before = u32::from(self.positions[0].side_to_move() == Color::Black);
        let fullmove = self.fullmove_at_start + (self.moves.len() as u32 + black_moves_before) / 2;
        crate::fen::write_fen(self.position(), self.capture_clock(), fullmove)
    }

    /// Plays a move after checking it is legal.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        if !self.position().is_legal(m) {
            return Err(IllegalMove { mv: m.iccs(), fen: self.position().fen() });
        }
        self.play_unchecked(m);
        Ok(())
    }

    /// Plays a move known to be legal.
    pub fn play_unchecked(&mut self, m: Move) {
        let pos = *self.position();
        let capture = pos.piece_at(m.to()).is_some();
        let next = pos.after(m);
        self.capture_clock.push(if capture { 0 } else { self.capture_clock() + 1 });
        self.in_check.push(next.in_check());
        self.positions.push(next);
        self.moves.push(m);
    }

    /// Takes back the last move; `None` at the start.
    pub fn undo(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.positions.pop();
        self.capture_clock.pop();
        self.in_check.pop();
        Some(m)
    }

    /// Whether the move that led to position `ply` gave check (`ply` ≥ 1).
    pub fn gave_check(&self, ply: usize) -> bool {
        self.in_check[ply]
    }

    /// How many times the current position has occurred (1 = only now). Positions before
    /// the last capture cannot recur, so the search stops there.
    pub fn occurrences(&self) -> usize {
        self.previous_occurrences().count() + 1
    }

    /// Indices of earlier positions equal to the current one, newest first.
    fn previous_occurrences(&self) -> impl Iterator<Item = usize> + '_ {
        let n = self.positions.len() - 1;
        let cur = self.positions[n];
        let window = (self.capture_clock[n] as usize).min(n);
        // Same side to move only: step back two plies at a time.
        (2..=window)
            .step_by(2)
            .map(move |back| n - back)
            .filter(move |&i| self.positions[i].hash() == cur.hash() && self.positions[i] == cur)
    }

    /// The last cycle, if the current position repeats an earlier one.
    pub fn last_cycle(&self) -> Option<Cycle> {
        let n = self.positions.len() - 1;
        self.previous_occurrences().next().map(|i| Cycle { start_ply: i, plies: n - i })
    }

    /// The cycle to adjudicate, once the current position has occurred
    /// [`GameRules::repetition_count`] times (rules that skipped [`GameRules::validate`] with a
    /// count below 2 still need a repeat: a cycle has two ends).
    pub fn repetition(&self) -> Option<Cycle> {
        if self.occurrences() >= usize::from(self.rules.repetition_count) { self.last_cycle() } else { None }
    }

    /// The 9-round rule of the 2020 edition (参考图8, `cxa2020` only): the last nine rounds
    /// (18 plies, no capture among them) in which one side attacked on every move, spread
    /// over three or more squares, count as a repetition although no position repeats
    /// exactly (a chaser that shuttles over three squares against a defender shuttling over
    /// two never repeats a position three times within nine rounds).
    ///
    /// The rulebook describes the shape, not a test for it; the test here is: no capture
    /// in the window; each side moved onto at most [`SPREAD_MAX_SQUARES`] distinct squares
    /// (both keep returning to the same few squares, which is what makes it a cycle rather
    /// than ordinary manoeuvring); one side's moves land on three or more; and, classified
    /// as a cycle, at least one side's every move in the window is an attack (the article
    /// is about forbidden moves: a shuffle of allowed moves waits for an exact
    /// repetition). Returns the window as a [`Cycle`], judged by [`Game::judge_cycle`].
    pub fn spread_repetition(&self) -> Option<Cycle> {
        if self.rules.rule_set != crate::qili::RuleSet::Cxa2020 {
            return None;
        }
        let n = self.moves.len();
        if n < SPREAD_PLIES || (self.capture_clock() as usize) < SPREAD_PLIES {
            return None;
        }
        let start = n - SPREAD_PLIES;
        // Distinct destination squares of each side in the window (a bit set per side).
        let mut squares = [0u128; 2];
        for i in start..n {
            let side = self.positions[i].side_to_move().index();
            squares[side] |= 1u128 << self.moves[i].to().index();
        }
        let counts = squares.map(u128::count_ones);
        if counts.iter().any(|&c| c > SPREAD_MAX_SQUARES) || counts.iter().all(|&c| c < 3) {
            return None;
        }
        let cycle = Cycle { start_ply: start, plies: SPREAD_PLIES };
        let judgement = self.judge_cycle(cycle);
        let mut attacks_only = [true; 2];
        for (i, info) in judgement.moves.iter().enumerate() {
            if !info.class.is_attack() {
                attacks_only[self.positions[start + i].side_to_move().index()] = false;
            }
        }
        attacks_only.contains(&true).then_some(cycle)
    }

    /// Plies counted toward the natural move limit.
    pub fn limit_plies(&self) -> u32 {
        let clock = self.capture_clock();
        if !self.rules.limit_counts_ten_checks {
            return clock;
        }
        let n = self.positions.len() - 1;
        let window = (clock as usize).min(n);
        // Plies before the start FEN are counted as non-checks: their history is unknown.
        let unknown = clock - window as u32;
        let mut checks = [0u32; 2];
        let mut others = 0u32;
        for ply in n - window + 1..=n {
            if self.in_check[ply] {
                checks[self.positions[ply - 1].side_to_move().index()] += 1;
            } else {
                others += 1;
            }
        }
        unknown + others + checks[0].min(10) + checks[1].min(10)
    }

    /// Whether neither side has a rook, horse, cannon or pawn: nobody can ever mate.
    pub fn insufficient_material(&self) -> bool {
        insufficient_material(self.position())
    }

    /// The outcome, if the game is over.
    ///
    /// Order: no legal move (mate or stalemate) first, since a move that mates ends the game
    /// whatever it repeats; then a completed repetition (the 棋例 verdict); then insufficient
    /// material; then the natural move limit.
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = self.position();
        let side = pos.side_to_move();
        if pos.count_legal() == 0 {
            return Some(if self.in_check[self.positions.len() - 1] {
                Outcome::new(GameResult::loss_for(side), Termination::Checkmate, "4.1.1")
            } else {
                Outcome::new(GameResult::loss_for(side), Termination::Stalemate, "4.1.3")
            });
        }
        if let Some(cycle) = self.repetition().or_else(|| self.spread_repetition()) {
            return Some(self.judge_cycle(cycle).outcome);
        }
        if insufficient_material(pos) {
            return Some(Outcome::new(GameResult::Draw, Termination::InsufficientMaterial, "4.2.1"));
        }
        if self.limit_plies() >= self.rules.move_limit_plies {
            return Some(Outcome::new(GameResult::Draw, Termination::MoveLimit, "4.2.4"));
        }
        None
    }

    /// Classifies the moves of a cycle and decides it under this game's rule set.
    pub fn judge_cycle(&self, cycle: Cycle) -> crate::qili::Judgement {
        let end = cycle.start_ply + cycle.plies;
        crate::qili::judge(&self.positions[..=end], &self.moves[..end], cycle.start_ply, self.rules.rule_set)
    }
}

/// Whether neither side has a rook, horse, cannon or pawn.
///
/// Kings, advisors and elephants alone can never give mate, so the game is a draw (4.2.1).
/// Other dead positions (for example a lone pawn that has reached the last rank against a full
/// defence) are left to the natural move limit, since deciding them needs judgement.
pub fn insufficient_material(pos: &Position) -> bool {
    pos.board_codes().iter().all(|&c| match crate::types::Piece::from_code(c) {
        None => true,
        Some(p) => matches!(p.kind, PieceKind::King | PieceKind::Advisor | PieceKind::Elephant),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_move;

    fn play(game: &mut Game, moves: &[&str]) {
        for m in moves {
            let mv = parse_move(game.position(), m)
                .unwrap_or_else(|e| panic!("{m} in {}: {e}", game.position().fen()));
            game.play(mv).unwrap();
        }
    }

    #[test]
    fn checkmate_and_stalemate_lose() {
        // Black king e9 in check from the rook on d9, which the red king guards by the
        // facing-kings rule; the rook on a8 covers e8.
        let g = Game::from_fen("3Rk4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1", GameRules::default()).unwrap();
        let o = g.outcome().unwrap();
        assert_eq!((o.result, o.reason), (GameResult::RedWins, Termination::Checkmate));
        // Black king d9 not in check with no move (困毙): black loses.
        let g = Game::from_fen("3k5/R8/9/9/9/9/9/9/4R4/5K3 b - - 0 1", GameRules::default()).unwrap();
        assert!(!g.position().in_check());
        let o = g.outcome().unwrap();
        assert_eq!((o.result, o.reason), (GameResult::RedWins, Termination::Stalemate));
    }

    #[test]
    fn insufficient_material_draws() {
        let g = Game::from_fen("3ak4/4a4/9/9/9/9/9/9/4A4/3K1A3 w", GameRules::default()).unwrap();
        assert_eq!(g.outcome().unwrap().reason, Termination::InsufficientMaterial);
        let g = Game::from_fen("3ak4/4a4/9/9/9/9/9/9/4A4/3KRA3 w", GameRules::default()).unwrap();
        assert!(g.outcome().is_none());
    }

    #[test]
    fn move_limit_counts_plies_without_capture() {
        let rules = GameRules { move_limit_plies: 4, ..GameRules::default() };
        let mut g = Game::from_fen("3k5/9/9/9/9/9/9/9/9/4K3R w", rules).unwrap();
        play(&mut g, &["i0i1", "d9d8", "i1i2"]);
        assert!(g.outcome().is_none());
        play(&mut g, &["d8d9"]);
        assert_eq!(g.outcome().unwrap().reason, Termination::MoveLimit);
        // The clock in the FEN counts.
        let g = Game::from_fen("3k5/9/9/9/9/9/9/9/9/4K3R w - - 4 1", rules).unwrap();
        assert_eq!(g.outcome().unwrap().reason, Termination::MoveLimit);
    }

    #[test]
    fn ten_checks_option_discounts_extra_checks() {
        let rules =
            GameRules { move_limit_plies: 100, limit_counts_ten_checks: true, ..GameRules::default() };
        let mut g = Game::from_fen("4k4/9/9/9/9/9/9/9/9/R2K5 w", rules).unwrap();
        play(&mut g, &["a0a9"]);
        for _ in 0..6 {
            play(&mut g, &["e9e8", "a9a8", "e8e9", "a8a9"]);
        }
        // 13 red checks count as 10; black's 12 plies count in full.
        assert_eq!(g.capture_clock(), 25);
        assert_eq!(g.limit_plies(), 22);
        let plain = Game::from_fen("4k4/9/9/9/9/9/9/9/9/R2K5 w", GameRules::default()).unwrap();
        assert_eq!(plain.limit_plies(), 0);
    }

    #[test]
    fn repetition_exposes_the_cycle() {
        let mut g = Game::new(Position::startpos(), GameRules::default());
        play(&mut g, &["h0g2", "h9g7", "g2h0", "g7h9"]);
        assert_eq!(g.occurrences(), 2);
        assert_eq!(g.last_cycle(), Some(Cycle { start_ply: 0, plies: 4 }));
        assert!(g.repetition().is_none());
        play(&mut g, &["h0g2", "h9g7", "g2h0", "g7h9"]);
        assert_eq!(g.occurrences(), 3);
        assert_eq!(g.repetition(), Some(Cycle { start_ply: 4, plies: 4 }));
        let o = g.outcome().unwrap();
        assert_eq!((o.result, o.reason), (GameResult::Draw, Termination::BothAllowed));
    }

    #[test]
    fn nine_round_rule_spread_over_three_squares_counts_as_a_repetition() {
        // The rook chases the loose horse from e1, e2 and e3 in turn; the black king shuffles
        // between d9 and d8. The cycles (3 and 2 moves) meet only every 12 plies, so no
        // position occurs three times within 9 rounds; under cxa2020 the 9 rounds of chases
        // spread over three squares count as a repetition (参考图8): red must vary and loses.
        let fen = "3k5/9/9/9/4n4/9/9/9/4R4/5K3 w";
        let (red, black) = (["e1e2", "e2e3", "e3e1"], ["d9d8", "d8d9"]);
        let plies: Vec<&str> = (0..9).flat_map(|r| [red[r % 3], black[r % 2]]).collect();
        let rules = GameRules { rule_set: crate::qili::RuleSet::Cxa2020, ..GameRules::default() };
        let mut g = Game::from_fen(fen, rules).unwrap();
        for (i, m) in plies.iter().enumerate() {
            play(&mut g, &[m]);
            assert!(g.occurrences() < 3);
            if i + 1 < plies.len() {
                assert!(g.outcome().is_none(), "{} plies are not 9 rounds", i + 1);
            }
        }
        assert_eq!(g.spread_repetition(), Some(Cycle { start_ply: 0, plies: 18 }));
        let o = g.outcome().unwrap();
        assert_eq!((o.result, o.reason), (GameResult::BlackWins, Termination::PerpetualChase));
        // The seeds' rules (cxa) know no such rule: play goes on.
        let mut g = Game::from_fen(fen, GameRules::default()).unwrap();
        play(&mut g, &plies);
        assert!(g.spread_repetition().is_none() && g.outcome().is_none());
        // Without the horse the rook attacks nothing: 9 rounds of allowed moves wait for an
        // exact repetition.
        let mut g = Game::from_fen("3k5/9/9/9/9/9/9/9/4R4/5K3 w", rules).unwrap();
        play(&mut g, &plies);
        assert!(g.spread_repetition().is_none() && g.outcome().is_none());
    }

    #[test]
    fn fen_tracks_clocks() {
        let mut g = Game::new(Position::startpos(), GameRules::default());
        play(&mut g, &["h2e2", "h9g7"]);
        assert!(g.fen().ends_with(" w - - 2 2"));
        play(&mut g, &["e2e6"]);
        assert!(g.fen().ends_with(" b - - 0 2"));
        g.undo();
        assert!(g.fen().ends_with(" w - - 2 2"));
    }
}
