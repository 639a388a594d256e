//! The bounded searches behind the classification: mate by consecutive checks, legal
//! captures onto a square, exchange sequences and the protection of a piece.
//!
//! Every search is bounded twice: by a depth (documented on each constant) and by a node
//! budget shared by one classification ([`Budget`]), so a pathological position costs at
//! most a known amount of work. Everything lives on the stack: no allocation.

use super::readings::{self, on};
use super::values::{ROOK, value};
use crate::movelist::MoveList;
use crate::position::Position;
use crate::types::{Color, Move, PieceKind, Square};

/// Mate threat (28.2): the mover, moving again, mates with at most this many consecutive
/// checks of its own (the opponent's replies in between are searched in full, so this is
/// a mate in up to 7 plies). Four checks reproduce more of the rulebook's mate threats
/// than three (measured on data/qili/cases.json: 24 against 22 cases in full); deeper
/// combinations are not what an arbiter calls a threat "on the next move".
pub const MATE_THREAT_CHECKS: u32 = 4;

/// Mate threat, deeper: when no mate by [`MATE_THREAT_CHECKS`] checks exists, a mate by up
/// to this many consecutive checks still counts if a search of at most
/// [`DEEP_MATE_THREAT_NODES`] nodes finds it. The rulebook bounds neither (28.2 "连续照将"),
/// and its figure 17 calls a mate by seven checks of two rooks and a cannon against a bare
/// king a threat (将４退１: 杀); the node bound keeps the cost of the deeper search to a known
/// amount per move in crowded positions, where long sequences of checks are many.
pub const DEEP_MATE_THREAT_CHECKS: u32 = 7;

/// Nodes the deeper mate-threat search ([`DEEP_MATE_THREAT_CHECKS`]) may spend per move, of
/// the [`NODE_BUDGET`] of the classification. Figure 17's seven-check mate takes about
/// 1,700, but how many nodes a search needs to find a mate depends on the order the moves
/// are tried in, which follows the board's squares: with a tight bound the same position
/// seen mirrored, or with the colours swapped, could be a mate threat one way and not the
/// other (the symmetry property test found such games with 2,500 and with 20,000 nodes).
/// At 150,000 nodes 6,000 random games and their images were judged alike; the bound is
/// then a guard against pathological positions, not a part of the rule. Cost against
/// 2,500: +13 % instructions over the rulebook's cases, +15 % over random games.
pub const DEEP_MATE_THREAT_NODES: u32 = 150_000;

/// 29.4 (a capture that walks into mate is no chase): the opponent, after the capture,
/// mates with at most this many consecutive checks. The article says "mated next" (不致被
/// 将死), so one check: mate in one. Longer mating answers are still seen when they win
/// the capturer back by check (hidden protection).
pub const REPLY_MATE_CHECKS: u32 = 1;

/// False protection (假根): a recapture after which the capturer's side mates with at most
/// this many consecutive checks does not protect (000 term 13: a piece that, leaving its
/// post, "is mated at once by a check or consecutive checks" has lost its freedom).
pub const FALSE_ROOT_MATE_CHECKS: u32 = 2;

/// Chase through checks (抽将, 29.1 "能够通过连续照将吃子"): the mover wins the target after
/// at most this many consecutive checks, every answer searched, the target followed when an
/// answer moves it (a block).
pub const CHASE_CHECKS: u32 = 2;

/// The longest exchange sequence on one square that is searched (captures, both sides).
pub const MAX_EXCHANGE_CAPTURES: u32 = 10;

/// Nodes (positions generated) one move classification may spend in all its searches;
/// when it runs out the searches answer "no mate" / "no gain", i.e. the move is judged
/// more leniently. The rulebook's cases use well under a tenth of it.
pub const NODE_BUDGET: u32 = 200_000;

/// A node counter shared by the searches of one classification, and the pieces those
/// searches may not count on capturing in a mating line (see [`Budget::trading_off`]).
#[derive(Debug)]
pub struct Budget {
    left: u32,
    /// Points of enemy pieces that the side `mater` may not capture in a mating line.
    traded: u128,
    mater: Option<Color>,
    /// Answers of [`mates_by_checks_avoiding`] already computed in this classification: its
    /// searches ask the same question of the same position many times (every capture is
    /// tested for walking into mate, every recapture for allowing one).
    mates: MateCache,
}

/// A direct-mapped cache of mate-search answers, keyed by position hash, depth and the
/// points to avoid; a fixed array, so that a classification allocates nothing.
struct MateCache {
    keys: [u64; MATE_CACHE_SIZE],
    mated: [bool; MATE_CACHE_SIZE],
}

const MATE_CACHE_SIZE: usize = 256;

impl std::fmt::Debug for MateCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let used = self.keys.iter().filter(|&&k| k != 0).count();
        write!(f, "MateCache({used} of {MATE_CACHE_SIZE} entries)")
    }
}

impl MateCache {
    const fn new() -> MateCache {
        MateCache { keys: [0; MATE_CACHE_SIZE], mated: [false; MATE_CACHE_SIZE] }
    }

    /// The key of a query; never 0, the mark of an empty entry.
    fn key(pos: &Position, checks: u32, avoid: u128) -> u64 {
        let folded = (avoid as u64) ^ ((avoid >> 64) as u64).rotate_left(29);
        let mixed = pos.hash()
            ^ folded.wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ u64::from(checks).wrapping_mul(0xd6e8_feb8_6659_fd93);
        mixed | 1
    }

    fn get(&self, key: u64) -> Option<bool> {
        let slot = (key >> 7) as usize % MATE_CACHE_SIZE;
        (self.keys[slot] == key).then_some(self.mated[slot])
    }

    fn put(&mut self, key: u64, mated: bool) {
        let slot = (key >> 7) as usize % MATE_CACHE_SIZE;
        self.keys[slot] = key;
        self.mated[slot] = mated;
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new()
    }
}

impl Budget {
    /// A fresh budget of [`NODE_BUDGET`] nodes.
    pub fn new() -> Budget {
        Budget { left: NODE_BUDGET, traded: 0, mater: None, mates: MateCache::new() }
    }

    /// From now on, mates of `mater` ([`mates_by_checks`]) may not rest on capturing the
    /// enemy pieces standing on the points of `traded` (bit `i` = the point with index `i`):
    /// those pieces can first trade themselves off (兑), so no threat can count on taking
    /// them. `traded == 0` ends it.
    pub fn trading_off(&mut self, mater: Color, traded: u128) {
        self.traded = traded;
        self.mater = (traded != 0).then_some(mater);
    }

    /// Runs `search` with at most `nodes` of the budget left to it, then charges what it
    /// spent to the whole budget.
    pub fn within<T>(&mut self, nodes: u32, search: impl FnOnce(&mut Budget) -> T) -> T {
        let rest = self.left.saturating_sub(nodes);
        self.left -= rest;
        let result = search(self);
        self.left += rest;
        result
    }

    /// Spends one node; false when the budget is exhausted.
    #[inline]
    pub(crate) fn spend(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        true
    }
}

/// Whether the side to move mates with a sequence of at most `checks` consecutive checks
/// (every move of the mating side checks; the defender may answer anything legal).
///
/// Mates of the side named in [`Budget::trading_off`] avoid capturing the pieces named there.
pub fn mates_by_checks(pos: &Position, checks: u32, budget: &mut Budget) -> bool {
    let avoid = if budget.mater == Some(pos.side_to_move()) { budget.traded } else { 0 };
    mates_by_checks_avoiding(pos, checks, budget, avoid)
}

/// Mate threat (28.2): whether the side to move of `pos` mates by consecutive checks: by up
/// to [`MATE_THREAT_CHECKS`] checks, or by up to [`DEEP_MATE_THREAT_CHECKS`] when a search of
/// [`DEEP_MATE_THREAT_NODES`] nodes finds it. The deep search runs first: when it finishes
/// within its nodes its answer covers the shallow one, which then need not run (most
/// positions have few checks, and this is the cheaper order).
pub fn threatens_mate(pos: &Position, budget: &mut Budget) -> bool {
    let (mated, complete) = budget.within(DEEP_MATE_THREAT_NODES, |b| {
        let mated = mates_by_checks(pos, DEEP_MATE_THREAT_CHECKS, b);
        (mated, b.left > 0)
    });
    mated || (!complete && mates_by_checks(pos, MATE_THREAT_CHECKS, budget))
}

/// [`mates_by_checks`] where the mating side never captures a piece standing on one of the
/// points of `avoid` (bit `i` = the point with index `i`), at any check of the sequence:
/// the mate must not rest on taking those pieces. A piece that has moved off its point (a
/// defender interposing) may be taken where it stands.
pub fn mates_by_checks_avoiding(pos: &Position, checks: u32, budget: &mut Budget, avoid: u128) -> bool {
    if checks == 0 {
        return false;
    }
    let key = MateCache::key(pos, checks, avoid);
    if let Some(mated) = budget.mates.get(key) {
        return mated;
    }
    let mated = search_mate_by_checks(pos, checks, budget, avoid);
    // An answer cut short by the budget is "no mate found", not "no mate": not kept.
    if budget.left > 0 {
        budget.mates.put(key, mated);
    }
    mated
}

/// [`mates_by_checks_avoiding`] without the cache.
fn search_mate_by_checks(pos: &Position, checks: u32, budget: &mut Budget, avoid: u128) -> bool {
    let me = pos.side_to_move();
    let mut moves = MoveList::new();
    pos.generate_pseudo(me, &mut moves);
    let king = pos.king_square(me.opponent());
    let in_check_already = pos.is_king_attacked(me.opponent());
    // One scratch position, made and unmade, instead of a copy per move.
    let mut next = *pos;
    for &m in moves.iter() {
        if !in_check_already && !can_bear_on(king, m.from()) && !can_bear_on(king, m.to()) {
            // The move changes no square the king's safety depends on: it cannot check.
            continue;
        }
        if (avoid >> m.to().index()) & 1 == 1 && pos.piece_at(m.to()).is_some() {
            continue;
        }
        if !budget.spend() {
            return false;
        }
        let undo = next.make(m);
        let mates = next.is_king_attacked(me.opponent())
            && !next.is_king_attacked(me)
            && every_reply_is_mated(&next, checks - 1, budget, avoid);
        next.unmake(m, undo);
        if mates {
            return true;
        }
    }
    false
}

/// Whether a change on `square` can change whether the king on `king` is attacked: the
/// square shares the king's file or rank (rooks, cannons and their screens, the facing
/// kings), or lies within two files and two ranks of it (horses and their legs, pawns).
/// A move touching neither of its squares so cannot give check; skipping such moves
/// before making them is what keeps the mate-threat search cheap.
#[inline]
fn can_bear_on(king: Square, square: Square) -> bool {
    king.file() == square.file()
        || king.rank() == square.rank()
        || (king.file().abs_diff(square.file()) <= 2 && king.rank().abs_diff(square.rank()) <= 2)
}

/// The position after `m` (a pseudo-legal move of the side to move) when `m` is legal and
/// gives check; `None` otherwise. A move that touches no square bearing on the enemy king
/// ([`can_bear_on`]) is rejected without being made: the searches through checks try
/// every move of a side, and most of them cannot check.
#[inline]
pub(crate) fn checking_move(pos: &Position, m: Move) -> Option<Position> {
    let me = pos.side_to_move();
    let king = pos.king_square(me.opponent());
    if !can_bear_on(king, m.from()) && !can_bear_on(king, m.to()) {
        return None;
    }
    let next = pos.after(m);
    (next.is_king_attacked(me.opponent()) && !next.is_king_attacked(me)).then_some(next)
}

/// The side to move is in check: whether every legal reply still loses to further checks
/// (or there is no legal reply at all).
fn every_reply_is_mated(pos: &Position, checks: u32, budget: &mut Budget, avoid: u128) -> bool {
    // Legality is tested reply by reply, so the search stops at the first escape (with no
    // check left, at the first legal reply) instead of generating every legal reply first.
    // The king's own moves first: they are the likeliest escapes.
    let me = pos.side_to_move();
    let king = pos.king_square(me);
    let mut replies = MoveList::new();
    pos.generate_pseudo(me, &mut replies);
    let king_first =
        replies.iter().filter(|r| r.from() == king).chain(replies.iter().filter(|r| r.from() != king));
    let mut next = *pos;
    for &r in king_first {
        // A reply other than the king's that touches no square bearing on the king leaves
        // it attacked: illegal, known without making it.
        if r.from() != king && !can_bear_on(king, r.from()) && !can_bear_on(king, r.to()) {
            continue;
        }
        let undo = next.make(r);
        if next.is_king_attacked(me) {
            next.unmake(r, undo);
            continue;
        }
        if checks == 0 || !budget.spend() {
            return false;
        }
        let mated = mates_by_checks_avoiding(&next, checks, budget, avoid);
        next.unmake(r, undo);
        if !mated {
            return false;
        }
    }
    // No legal reply, or every one of them mated.
    true
}

/// Fills `out` with the legal moves of the side to move that capture on `to`.
pub fn legal_captures_to(pos: &Position, to: Square, out: &mut MoveList) {
    out.clear();
    let mut onto = MoveList::new();
    pos.generate_pseudo_to(pos.side_to_move(), to, &mut onto);
    for &m in onto.iter() {
        if pos.pseudo_move_is_legal(m) {
            out.push(m);
        }
    }
}

/// Whether the side to move has a legal capture on `to`.
pub fn can_capture(pos: &Position, to: Square) -> bool {
    let mut caps = MoveList::new();
    legal_captures_to(pos, to, &mut caps);
    !caps.is_empty()
}

/// What the side to move gains at best by starting (or declining) a sequence of captures
/// on `to`: the static exchange value, every capturer tried, each side free to stop.
pub fn exchange_gain(pos: &Position, to: Square, depth: u32, budget: &mut Budget) -> i32 {
    if depth == 0 {
        return 0;
    }
    let Some(victim) = pos.piece_at(to) else { return 0 };
    let victim_value = value(victim, to);
    let mut caps = MoveList::new();
    legal_captures_to(pos, to, &mut caps);
    let mut best = 0;
    for &m in caps.iter() {
        if !budget.spend() {
            break;
        }
        let gain = victim_value - exchange_gain(&pos.after(m), to, depth - 1, budget);
        best = best.max(gain);
    }
    best
}

/// How the capturing side fares after `capture` (a legal capture by the side to move of
/// `pos`): the facts the chase rules (29.1, 29.4, 假根, 少根, 暗根) are decided on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureVerdict {
    /// The capture walks into mate (29.4) or loses material: no chase.
    NoGain,
    /// No valid recapture: the target is unprotected, or falsely protected (假根).
    Unprotected,
    /// Protected, but the capturer is cheaper than the target (少根 by a cheaper attacker).
    CheaperAttacker,
    /// Protected, but the full exchange on the square still wins material (少根: more
    /// attackers than defenders; a joint chase).
    WinsExchange,
    /// 26.5 (2020): the capture costs the capturer's side as much elsewhere as it wins (the
    /// capturing piece shielded another piece or pinned the answering piece, or, when it is
    /// not the piece just moved, guarded another piece; see [`Capturer`]): in these shapes
    /// an even balance is a chase. Not a chase of an unprotected piece in the plain sense,
    /// so it grades B (26.9) unless the target is a rook.
    EvenTrade,
    /// Protected, but taking it uncovers a capture by another piece of the capturer's side
    /// (a line or a horse's leg opened), and the two together win material whatever the
    /// opponent answers. `rook` says the uncovered capture is of a rook: 26.9 grades such a
    /// chase by the piece it is really after.
    Combination {
        /// The uncovered capture takes a rook.
        rook: bool,
    },
}

/// What the capturer's opponent wins back at best after a capture, by one capture anywhere
/// followed by the exchange on that square (0 when every answer loses or there is none),
/// split by where the answer comes from. See [`answers_to_capture`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Answers {
    /// The best answer the capture made possible or better: a recapture, or a piece the
    /// capturing piece stopped guarding or shielding.
    pub caused: i32,
    /// The best of the answers elsewhere than on the capture square that the capturing
    /// piece made possible by leaving its square (26.5's shapes, see
    /// `chaser_made_possible`).
    pub elsewhere: i32,
    /// The best answer that already won as much before the capture (a piece of the
    /// capturer's that was hanging anyway).
    pub standing: i32,
    /// Whether a counted answer recaptures on the capture square.
    pub recaptured: bool,
}

/// The answers of the side to move of `after` to `capture`, which has just been played.
/// `earlier` is the position before that capture, this side to move; `standing_base`, when
/// given, replaces it for telling the answers that stood before (a line of checks started
/// there). Answers after which the capturer mates with consecutive checks
/// ([`FALSE_ROOT_MATE_CHECKS`]) do not count (a defender that cannot leave, 假根). With
/// `weigh_overload`, a recapture costs what the recapturing piece stops guarding. When the
/// `capturer` is the piece just moved, answers that take a piece it guarded from its
/// square are not answers at all (see [`Capturer::MovedPiece`]).
pub fn answers_to_capture(
    after: &Position,
    capture: Move,
    earlier: &Position,
    standing_base: Option<&Position>,
    weigh_overload: bool,
    capturer: Capturer,
    budget: &mut Budget,
) -> Answers {
    let me = after.side_to_move();
    let mut moves = MoveList::new();
    after.generate_pseudo(me, &mut moves);
    let mut answers = Answers::default();
    for &r in moves.iter() {
        let Some(victim) = after.piece_at(r.to()) else { continue };
        if victim.color == me || !after.pseudo_move_is_legal(r) || !budget.spend() {
            continue;
        }
        let next = after.after(r);
        let mut back = exchange_gain(&next, r.to(), MAX_EXCHANGE_CAPTURES, budget);
        let is_recapture = r.to() == capture.to();
        if weigh_overload && on(readings::OVERLOADED_ROOT) && is_recapture && value(victim, r.to()) > back {
            // The recapturing piece (the target's root) may also have been guarding another
            // piece: what its leaving lets the capturer's side take instead is the
            // recapture's cost. An overloaded root protects in form only (28.16 "形式上是根,
            // 实际上起不到充分保护作用, 称为假根"; 000 term 9: a root that cannot leave without
            // another piece being taken). Reference figure 13: 车2平4 makes the advisor on
            // e1 guard both d2 and d0, and the cannon's capture of d0 wins the advisor.
            back = back.max(left_unguarded(after, &next, r, budget));
        }
        let gain = value(victim, r.to()) - back;
        let slot = if is_recapture {
            &mut answers.caused
        } else if gain <= capture_gain(standing_base.unwrap_or(earlier), r, budget) {
            &mut answers.standing
        } else if let Some(freed) = chaser_made_possible(earlier, r, capture.from()) {
            if freed == Freed::Guarded && capturer == Capturer::MovedPiece && on(readings::MOVED_ROOT) {
                continue;
            }
            &mut answers.elsewhere
        } else {
            &mut answers.caused
        };
        // The mate test is the expensive part: only run it when the answer would count
        // (it is a first recapture, or raises its slot's best).
        let counts = gain > *slot || (is_recapture && !answers.recaptured);
        if !counts {
            continue;
        }
        if on(readings::FALSE_ROOT_BY_MATE) && mates_by_checks(&next, FALSE_ROOT_MATE_CHECKS, budget) {
            continue;
        }
        *slot = (*slot).max(gain);
        answers.recaptured |= is_recapture;
    }
    answers
}

/// How the chaser, by leaving its square, made an answer elsewhere possible (26.5's
/// shapes, see [`chaser_made_possible`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Freed {
    /// The answer takes a piece the chaser guarded from its square.
    Guarded,
    /// The answer could not be played while the chaser stood there: the chaser shielded
    /// the piece it takes, or pinned the answering piece.
    Unblocked,
}

/// 26.5's shapes: whether the answer `r` elsewhere takes a piece the chaser guarded from
/// its square `from` (the chaser also protecting), or could not be played while the
/// chaser stood there (it shielded the piece, or pinned the answering piece); `None` when
/// the chaser's leaving has nothing to do with it. `earlier` is the position before the
/// chaser's capture, the answering side to move.
fn chaser_made_possible(earlier: &Position, r: Move, from: Square) -> Option<Freed> {
    if !earlier.is_legal(r) {
        return Some(Freed::Unblocked);
    }
    let next = earlier.after(r);
    let chaser = next.with_side_to_move(next.side_to_move());
    chaser.is_legal(Move::new(from, r.to())).then_some(Freed::Guarded)
}

/// After the answer `r` (from `pos`, giving `next`), the best the other side (to move in
/// `next`) wins by a capture elsewhere than on `r`'s square that did not win as much before
/// the answer: a piece the answering piece was guarding or shielding.
fn left_unguarded(pos: &Position, next: &Position, r: Move, budget: &mut Budget) -> i32 {
    let me = next.side_to_move();
    let was = pos.with_side_to_move(me);
    let mut moves = MoveList::new();
    next.generate_pseudo(me, &mut moves);
    let mut best = 0;
    for &w in moves.iter() {
        if w.to() == r.to() {
            continue;
        }
        let (Some(victim), Some(taker)) = (next.piece_at(w.to()), next.piece_at(w.from())) else { continue };
        if victim.color == me
            || victim.kind == PieceKind::Pawn
            || taker.kind == PieceKind::Pawn
            || value(victim, w.to()) <= best
            || !next.pseudo_move_is_legal(w)
            || !budget.spend()
        {
            continue;
        }
        let gain =
            value(victim, w.to()) - exchange_gain(&next.after(w), w.to(), MAX_EXCHANGE_CAPTURES, budget);
        if gain > best && gain > capture_gain(&was, w, budget) {
            best = gain;
        }
    }
    best
}

/// What the side to move of `pos` wins by the capture `r` and the exchange that follows
/// on its square, or `i32::MIN` when `r` is not a legal capture there.
fn capture_gain(pos: &Position, r: Move, budget: &mut Budget) -> i32 {
    let (Some(piece), Some(victim)) = (pos.piece_at(r.from()), pos.piece_at(r.to())) else { return i32::MIN };
    let me = pos.side_to_move();
    if piece.color != me || victim.color == me || !pos.is_legal(r) {
        return i32::MIN;
    }
    value(victim, r.to()) - exchange_gain(&pos.after(r), r.to(), MAX_EXCHANGE_CAPTURES, budget)
}

/// Judges one capture; see [`CaptureVerdict`]. The capture wins when the target's value
/// exceeds what the victim's side wins back by its best answer anywhere: a recapture, or
/// taking a piece the capturer stopped guarding or shielding. Threats that stood before
/// the capture count too, so a capture that leaves another piece hanging is no gain: the
/// rulebook asks whether the capture itself wins material.
pub fn judge_capture(pos: &Position, capture: Move, budget: &mut Budget) -> CaptureVerdict {
    judge_capture_with(pos, capture, Standing::BeforeCapture, Capturer::Other, budget)
}

/// How [`judge_capture_with`] weighs the opponent's answers that won as much before the
/// capture as after it (a piece of the capturer's that hangs anyway).
#[derive(Clone, Copy, Debug)]
pub enum Standing<'a> {
    /// Against the position before the capture, for what the move threatens: a piece of
    /// the capturer's hanging anyway is weighed apart (against it the capture need only
    /// break even; 25.3, see `judge_capture_with`), except for the plain capture of a
    /// piece without a root, which 29.1's first form makes a chase whatever else hangs.
    BeforeCapture,
    /// As `BeforeCapture`, for whether a chase already stood before the move (29.2): a
    /// capture that would then have lost material on balance, a bigger piece of the
    /// capturer's hanging, did not stand: the opponent's counter-threat suspended it.
    StoodBefore,
    /// Against an earlier position, the capturer's side to move there: the capture ends a
    /// line of checks from that position, and a win through checks is one combination
    /// (29.1), so what the checks themselves left hanging is a full cost of it (reference
    /// figure 33: 士5退4 uncovers a cannon check that wins the advisor on d2, but the
    /// advisor's move unguards f7, which the red pawn then takes: an even trade, idle).
    Since(&'a Position),
    /// Not weighed: whether the capture would win were the capturer's side not under a
    /// threat of its own.
    Ignored,
    /// Weighed in full: a piece hanging anyway costs the capture as much as one the
    /// capture leaves hanging.
    Full,
}

/// Which piece makes the capture under judgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capturer {
    /// The piece the classified move has just moved. What it stops guarding by leaving
    /// its square does not count against the capture: the seeds' case 4 ("凡用作为根的子
    /// 捉吃对方的子, 也按捉处理": a rook that guards a horse and attacks a crossed pawn
    /// chases it, "尽管红车吃卒要丢马"), which the 2020 book follows in reference figure 46
    /// (车一平二: the rook guarding the horse on g6 attacks the pawn on h3, a chase). What
    /// it shielded or pinned there still counts (26.5).
    MovedPiece,
    /// Any other piece: every piece its capture leaves to the opponent counts (26.5). A
    /// king move that lets a root take a crossed pawn, leaving the piece it guards, makes
    /// no chase (reference figure 30: 将5平6 frees the elephant on a7 to take the pawn on
    /// c5, but the elephant on c9 it guards would fall).
    Other,
}

/// [`judge_capture`], with the standing answers weighed as `standing` says and the
/// capture made by `capturer`.
pub fn judge_capture_with(
    pos: &Position,
    capture: Move,
    standing: Standing<'_>,
    capturer: Capturer,
    budget: &mut Budget,
) -> CaptureVerdict {
    let weigh_standing = !matches!(standing, Standing::Ignored);
    let to = capture.to();
    let (Some(attacker), Some(target)) = (pos.piece_at(capture.from()), pos.piece_at(to)) else {
        return CaptureVerdict::NoGain;
    };
    let target_value = value(target, to);
    let attacker_value = value(attacker, capture.from());
    let after = pos.after(capture);
    let earlier = pos.with_side_to_move(target.color);
    let since = match standing {
        Standing::Since(root) if on(readings::CHECKS_PAY_THEIR_COST) => {
            Some(root.with_side_to_move(target.color))
        }
        Standing::Since(_) => None,
        Standing::BeforeCapture | Standing::StoodBefore | Standing::Ignored | Standing::Full => None,
    };
    // An overloaded defender is weighed only when no pawn takes part: a crossed pawn's
    // value floats (25.3), so no gain computed through one is a gain.
    let overload = target.kind != PieceKind::Pawn && attacker.kind != PieceKind::Pawn;
    let answers = answers_to_capture(&after, capture, &earlier, since.as_ref(), overload, capturer, budget);
    let (mut answer, elsewhere, hanging_anyway, mut recaptured) =
        (answers.caused, answers.elsewhere, answers.standing, answers.recaptured);
    if matches!(standing, Standing::Full) {
        answer = answer.max(hanging_anyway);
    }
    if !recaptured && on(readings::HIDDEN_PROTECTION) && hidden_protection(&after, to, budget) {
        // 暗根: protected by a recapture through check.
        recaptured = true;
        answer = answer.max(attacker_value);
    }
    // 29.3 / 28.16: the target is unprotected (or protected too little) when the capture
    // wins more than anything it lets the opponent win back (a recapture and the exchange
    // that follows, or a piece the capturing piece stops guarding or shielding). 25.3
    // ("子力价值…也是判断是否'捉子'的依据之一"; 29.1 得子): nor may the capture lose
    // material on balance, counting a piece of the mover's that hangs anyway; against that
    // an even trade is enough (two rooks each attacking a loose pawn both chase, 2020
    // figure 8), a smaller piece for a bigger one is not (reference figure 28: taking an
    // advisor while a horse hangs wins nothing).
    // 26.5 (2020): when the capture's cost is elsewhere (the capturing piece guarded or
    // shielded another piece from its square: mutual captures of different pieces), the
    // balance of the complete exchange decides and even is a chase. Not for a pawn target:
    // a crossed pawn's value floats (25.3), so no trade against it is even. What the piece
    // just moved stops guarding is not counted at all (`Capturer::MovedPiece`, seeds'
    // case 4).
    let even_elsewhere = target.kind != PieceKind::Pawn && on(readings::EVEN_TRADE_26_5);
    let elsewhere_loses =
        if even_elsewhere { target_value - elsewhere < 0 } else { target_value - elsewhere <= 0 };
    // 29.1's first form ("能够直接吃子") makes the plain capture of a piece without a root a
    // chase whatever else of the mover's hangs; its other forms (through checks, through a
    // complete exchange: "得子") and the question whether a chase stood before the move
    // (29.2, `Standing::StoodBefore`) weigh the material on balance.
    let plain_capture = !recaptured && matches!(standing, Standing::BeforeCapture);
    let hanging_loses = weigh_standing
        && on(readings::HANGING_ANYWAY)
        && !(on(readings::PLAIN_CAPTURE_CHASES) && plain_capture)
        && target_value - hanging_anyway < 0;
    let mut combination = None;
    if target_value - answer <= 0 || elsewhere_loses || hanging_loses {
        // A capture that loses on the square may still win as a combination; only at the
        // top of a chase test (not inside lines of checks, where it finds wins the book
        // does not name: figure 26).
        if matches!(standing, Standing::BeforeCapture | Standing::StoodBefore)
            && on(readings::COMBINATION)
            && !elsewhere_loses
            && !hanging_loses
        {
            combination = wins_with_uncovered_capture(pos, capture, &after, target_value, budget);
        }
        if combination.is_none() {
            return CaptureVerdict::NoGain;
        }
    }
    // 29.4: a capture that lets the mover be mated next is no gain. Tested last: it is the
    // dearest test, and most captures are already no gain by material.
    if on(readings::NOT_MATED_AFTER) && mates_by_checks(&after, REPLY_MATE_CHECKS, budget) {
        return CaptureVerdict::NoGain;
    }
    if let Some(rook) = combination {
        CaptureVerdict::Combination { rook }
    } else if target_value - elsewhere == 0 {
        CaptureVerdict::EvenTrade
    } else if !recaptured {
        CaptureVerdict::Unprotected
    } else if attacker_value < target_value {
        CaptureVerdict::CheaperAttacker
    } else {
        CaptureVerdict::WinsExchange
    }
}

/// 29.1 ("能够通过完整的交换过程得子": winning material through a complete exchange):
/// `Some(rook)` when `capture` wins material as a two-move combination: the capturing
/// piece, leaving its square, uncovers a capture by another piece (opens a line, a screen
/// or a horse's leg), so that whatever the opponent answers, the capture plus that
/// follow-up outweigh what the answer takes; `rook` says the uncovered capture takes a
/// rook. Reference figure 1: 马二退四 puts a second horse behind the one on f5; Nf5xe7 takes
/// the guarded elephant, and the elephant's recapture lets the horse on f4, its leg freed,
/// take the rook on g6. One uncovered capture is looked at, one answer deep: bounded by
/// the answers' count times one move generation each.
fn wins_with_uncovered_capture(
    pos: &Position,
    capture: Move,
    after: &Position,
    target_value: i32,
    budget: &mut Budget,
) -> Option<bool> {
    let me = pos.side_to_move();
    // Cheap test first: some capture uncovered at all.
    let again = after.with_side_to_move(me);
    let (first, victim) = uncovered_gain(pos, capture, &again, budget);
    if first <= 0 {
        return None;
    }
    let mut replies = MoveList::new();
    after.generate_legal(&mut replies);
    let mut worst = i32::MIN;
    for &r in replies.iter() {
        if !budget.spend() {
            return None;
        }
        let next = after.after(r);
        let taken = after
            .piece_at(r.to())
            .map_or(0, |v| value(v, r.to()) - exchange_gain(&next, r.to(), MAX_EXCHANGE_CAPTURES, budget));
        let (follow_up, _) = uncovered_gain(pos, capture, &next, budget);
        worst = worst.max(taken - follow_up);
        if target_value - worst <= 0 {
            return None;
        }
    }
    (worst != i32::MIN).then_some(victim >= ROOK)
}

/// The best gain of the side to move of `now` by a capture that `capture` uncovered or made
/// winning, valued by the exchange on its square; with the value of its victim.
///
/// A follow-up counts when `capture` (with the answer that led to `now`) opened it or raised
/// what it wins: it was not legal in `pos` (before the capture: a line, a screen or a
/// horse's leg opened), or it takes the same piece and wins more than it would have in
/// `pos` (reading `root_taken`: the exchange took that piece's root). 29.1 "能够通过完整的
/// 交换过程得子": the complete exchange is the whole process, and a piece whose only root the
/// exchange takes is won in it (2020 figure 4: 马六进四 attacks the pawn on e4, whose root is
/// the horse on c5; the cannon on i5, its screen the elephant on g5, takes that horse, the
/// elephant retakes, and the red horse takes the pawn: a chase).
///
/// Neither the capturing piece nor the king nor a pawn (unless its capture uncovers a check,
/// 26.8) makes the follow-up: a win the follow-up alone brings is that piece's, and the king
/// or a pawn taking a piece by itself is idle (27.1 "帅(将)本身…按闲着处理", 27.2; reading
/// `own_follow_up`; reference figure 32: 马三进二 takes the cannon on f9 back for the horse,
/// and only the red king could then take the horse on f2: idle).
fn uncovered_gain(pos: &Position, capture: Move, now: &Position, budget: &mut Budget) -> (i32, i32) {
    let me = now.side_to_move();
    let mut moves = MoveList::new();
    now.generate_pseudo(me, &mut moves);
    let (mut best, mut best_victim) = (0, 0);
    for &w in moves.iter() {
        let Some(victim) = now.piece_at(w.to()) else { continue };
        if victim.color == me
            || w.from() == capture.to()
            || !super::values::chaseable(victim, w.to())
            || value(victim, w.to()) <= best
            || !now.pseudo_move_is_legal(w)
        {
            continue;
        }
        let legal_before = pos.is_legal(w);
        if legal_before && !(on(readings::ROOT_TAKEN) && pos.piece_at(w.to()) == Some(victim)) {
            continue;
        }
        if on(readings::OWN_FOLLOW_UP) && !own_follow_up_counts(now, w) {
            continue;
        }
        if !budget.spend() {
            continue;
        }
        let gain =
            value(victim, w.to()) - exchange_gain(&now.after(w), w.to(), MAX_EXCHANGE_CAPTURES, budget);
        if gain > best && (!legal_before || gain > capture_gain(pos, w, budget)) {
            (best, best_victim) = (gain, value(victim, w.to()));
        }
    }
    (best, best_victim)
}

/// Whether the capture `w` of the side to move of `now` may be a combination's follow-up:
/// not a capture by the king, nor by a pawn unless it uncovers a check by another piece
/// (27.1, 27.2, 2020 26.8; see [`uncovered_gain`]).
fn own_follow_up_counts(now: &Position, w: Move) -> bool {
    match now.piece_at(w.from()).map(|p| p.kind) {
        Some(PieceKind::King) => false,
        Some(PieceKind::Pawn) => super::threats::uncovers_check(now, w),
        _ => true,
    }
}

/// 暗根 hidden protection: after a capture landing on `to` (the victim's side to move), the
/// victim's side checks and, whatever the answer, wins back the capturing piece. One check
/// is searched (the rulebook's cases need no more); the capturing piece is followed if the
/// answer moves it.
///
/// A win-back after which the capturer's side mates with [`FALSE_ROOT_MATE_CHECKS`] checks
/// does not count: a protection must protect in fact (28.16: "形式上是根, 实际上起不到充分
/// 保护作用, 称为假根"; 000 term 9: a root that cannot leave without being mated), as for
/// an ordinary recapture (see [`answers_to_capture`]). What the check itself costs is not
/// weighed: the book's definition (000 term 8) asks only whether the capturing piece is
/// won back, and its figure 9 (a discovered check by a rook that can be taken) counts such
/// a protection.
pub fn hidden_protection(after: &Position, to: Square, budget: &mut Budget) -> bool {
    let me = after.side_to_move();
    let mut moves = MoveList::new();
    after.generate_pseudo(me, &mut moves);
    for &c in moves.iter() {
        let Some(checked) = checking_move(after, c) else { continue };
        if !budget.spend() {
            return false;
        }
        // The checking move itself captured the capturer: an ordinary recapture, not hidden.
        if c.to() == to {
            continue;
        }
        let mut replies = MoveList::new();
        checked.generate_legal(&mut replies);
        if replies.is_empty() {
            return true;
        }
        let wins_back = replies.iter().all(|&r| {
            let piece_at = if r.from() == to { r.to() } else { to };
            let next = checked.after(r);
            let mut caps = MoveList::new();
            legal_captures_to(&next, piece_at, &mut caps);
            caps.iter().any(|&w| {
                budget.spend()
                    && !(on(readings::FALSE_ROOT_BY_MATE)
                        && mates_by_checks(&next.after(w), FALSE_ROOT_MATE_CHECKS, budget))
            })
        });
        if wins_back {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `can_bear_on` never hides a check: along deterministic pseudo-random games, every
    /// move that gives check touches a square that can bear on the enemy king.
    #[test]
    fn moves_skipped_by_the_mate_search_never_give_check() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut checks_seen = 0;
        for _game in 0..40 {
            let mut pos = Position::startpos();
            for _ply in 0..120 {
                let me = pos.side_to_move();
                let king = pos.king_square(me.opponent());
                let mut moves = MoveList::new();
                pos.generate_pseudo(me, &mut moves);
                for &m in moves.iter() {
                    let next = pos.after(m);
                    if next.is_king_attacked(me.opponent()) && !pos.is_king_attacked(me.opponent()) {
                        checks_seen += 1;
                        assert!(
                            can_bear_on(king, m.from()) || can_bear_on(king, m.to()),
                            "{} gives check in {}",
                            m.iccs(),
                            pos.fen()
                        );
                    }
                }
                let mut legal = MoveList::new();
                pos.generate_legal(&mut legal);
                if legal.is_empty() {
                    break;
                }
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let pick = (seed >> 33) as usize % legal.len();
                pos = pos.after(legal.iter().copied().nth(pick).expect("in range"));
            }
        }
        assert!(checks_seen > 100, "the games must contain checks to test ({checks_seen})");
    }

    /// The definition `every_reply_is_mated` implements with early exits: no legal reply,
    /// or (with checks left) every legal reply mated again.
    fn every_reply_is_mated_by_definition(pos: &Position, checks: u32, budget: &mut Budget) -> bool {
        let mut replies = MoveList::new();
        pos.generate_legal(&mut replies);
        if replies.is_empty() {
            return true;
        }
        checks > 0
            && replies.iter().all(|&r| budget.spend() && mates_by_checks(&pos.after(r), checks, budget))
    }

    #[test]
    fn early_exit_mate_test_agrees_with_its_definition() {
        let mut seed: u64 = 1;
        for _game in 0..40 {
            let mut pos = Position::startpos();
            for _ply in 0..120 {
                let mut legal = MoveList::new();
                pos.generate_legal(&mut legal);
                if legal.is_empty() {
                    break;
                }
                for checks in 0..2 {
                    let expected = every_reply_is_mated_by_definition(&pos, checks, &mut Budget::new());
                    let got = every_reply_is_mated(&pos, checks, &mut Budget::new(), 0);
                    assert_eq!(got, expected, "{} with {checks} checks", pos.fen());
                }
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let pick = (seed >> 33) as usize % legal.len();
                pos = pos.after(legal.iter().copied().nth(pick).expect("in range"));
            }
        }
    }
}
