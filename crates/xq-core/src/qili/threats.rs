//! What a side threatens to win if it were to move (29.1): pieces won by a direct capture,
//! through consecutive checks or through an exchange, split the ways the classification
//! and the 26.9 grading need (by the moved piece, joint, by exchange, by a pawn or the
//! king alone, offered in exchange).

use super::classify::SquareSet;
use super::readings::{self, on};
use super::tactics::{
    Budget, CHASE_CHECKS, CaptureVerdict, Capturer, FALSE_ROOT_MATE_CHECKS, MAX_EXCHANGE_CAPTURES, Standing,
    checking_move, exchange_gain, judge_capture_with, mates_by_checks,
};
use super::values::{ROOK, chaseable, equal_material, given_value, value};
use crate::movelist::MoveList;
use crate::position::Position;
use crate::tables::{ELEPHANT_MOVES, HORSE_ATTACKERS, Targets};
use crate::types::{Color, Move, PieceKind, Square};

/// What one side threatens to win, if it were to move in a position.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Threats {
    /// Pieces won by some piece other than the king or a pawn on its own (or by checks).
    pub(super) chased: SquareSet,
    /// Of those, pieces whose every win is a grade-B win (joint, or insufficient protection).
    pub(super) grade_b: SquareSet,
    /// Of those, pieces won only through a check (抽将).
    pub(super) by_checks: SquareSet,
    /// Of those, pieces won only through an exchange (cheaper attacker).
    pub(super) by_exchange: SquareSet,
    /// Of those, pieces won only jointly.
    pub(super) joint: SquareSet,
    /// Pieces whose direct winner includes the piece standing on `mover_square`.
    pub(super) by_mover: SquareSet,
    /// Pieces won by a pawn alone.
    pub(super) pawn_only: SquareSet,
    /// Pieces won by the king alone.
    pub(super) king_only: SquareSet,
    /// Pieces that would be won but can first trade themselves off (兑 offered).
    pub(super) traded: SquareSet,
}

/// The pieces among `mask` the side to move of `pos` wins by a direct capture (29.1), with
/// the answers that stood before each capture weighed as `standing` says
/// ([`judge_capture_with`]).
///
/// With `target_may_trade`, a target that can first trade itself off against its attacker
/// ([`target_trades_off`]) is not counted: that holds in the position "if the mover moved
/// again", where the opponent is really to move. After a check and its answer the
/// opponent has spent its move, so the target can no longer trade itself off.
pub(super) fn direct_threats_with(
    pos: &Position,
    mover_square: Option<Square>,
    mask: SquareSet,
    target_may_trade: bool,
    standing: Standing<'_>,
    budget: &mut Budget,
) -> Threats {
    let me = pos.side_to_move();
    let mut t = Threats::default();
    let mut a_grade = SquareSet::EMPTY;
    let mut plain = SquareSet::EMPTY;
    let mut moves = MoveList::new();
    pos.generate_pseudo(me, &mut moves);
    for &m in moves.iter() {
        let Some(target) = pos.piece_at(m.to()) else { continue };
        if !mask.contains(m.to())
            || target.color == me
            || !chaseable(target, m.to())
            || !pos.pseudo_move_is_legal(m)
        {
            continue;
        }
        let Some(attacker) = pos.piece_at(m.from()) else { continue };
        let capturer = if Some(m.from()) == mover_square && on(readings::MOVED_ROOT) {
            Capturer::MovedPiece
        } else {
            Capturer::Other
        };
        let verdict = judge_capture_with(pos, m, standing, capturer, budget);
        if verdict == CaptureVerdict::NoGain {
            continue;
        }
        if target_may_trade && target_trades_off(pos, m, capturer, budget) {
            if !matches!(attacker.kind, PieceKind::King | PieceKind::Pawn) {
                t.traded.insert(m.to());
            }
            continue;
        }
        match attacker.kind {
            PieceKind::King => t.king_only.insert(m.to()),
            PieceKind::Pawn if !uncovers_check(pos, m) => t.pawn_only.insert(m.to()),
            _ => {
                t.chased.insert(m.to());
                if Some(m.from()) == mover_square {
                    t.by_mover.insert(m.to());
                }
                match verdict {
                    CaptureVerdict::Unprotected => {
                        // Grade A only when no piece guards the target even nominally: a
                        // falsely protected piece (假根) grades like an insufficiently
                        // protected one (26.9).
                        if value(target, m.to()) >= ROOK
                            || !on(readings::GRADE_A_PLAIN)
                            || !nominally_guarded(pos, m)
                        {
                            a_grade.insert(m.to());
                        }
                        plain.insert(m.to());
                    }
                    CaptureVerdict::CheaperAttacker | CaptureVerdict::EvenTrade => {
                        if value(target, m.to()) >= ROOK {
                            a_grade.insert(m.to());
                        }
                        t.by_exchange.insert(m.to());
                    }
                    CaptureVerdict::WinsExchange => t.joint.insert(m.to()),
                    CaptureVerdict::Combination { rook } => {
                        if rook {
                            a_grade.insert(m.to());
                        }
                        t.joint.insert(m.to());
                    }
                    CaptureVerdict::NoGain => {}
                }
            }
        }
    }
    t.grade_b = SquareSet(t.chased.0 & !a_grade.0);
    t.by_exchange = SquareSet(t.by_exchange.0 & !plain.0);
    t.joint = SquareSet(t.joint.0 & !plain.0 & !t.by_exchange.0);
    t.pawn_only = SquareSet(t.pawn_only.0 & !t.chased.0);
    t.king_only = SquareSet(t.king_only.0 & !t.chased.0 & !t.pawn_only.0);
    t
}

/// 26.8 (2020): a pawn capture that uncovers a check by another piece is a chase. The
/// pawn does not attack alone (27.2): the piece behind it takes part, as the king or a
/// pawn lending its power to another piece makes a chase (27.1, 26.1.1). A check the pawn
/// gives itself from its new square does not count: that is still the pawn alone.
/// Classification is shared by both rule sets (the book's labels), so this applies under
/// `cxa` too, where 27.2's "alone" reads the same way.
pub(super) fn uncovers_check(pos: &Position, capture: Move) -> bool {
    let Some(pawn) = pos.piece_at(capture.from()) else { return false };
    let after = pos.after(capture);
    let enemy = pawn.color.opponent();
    if !after.is_king_attacked(enemy) {
        return false;
    }
    let mut own = MoveList::new();
    after.generate_pseudo_from(capture.to(), pawn, &mut own);
    let king = after.king_square(enemy);
    !own.iter().any(|r| r.to() == king)
}

/// Whether the target of `capture` can first trade itself off (兑): it can take the
/// capturer, or another piece of its own kind standing face to face with it (two cannons
/// through a single screen) on which the capture's win rests, without losing material and
/// without being mated at once. Then the attack is an exchange offer or an offer, not a
/// chase. When the trade would cost the target's side material (a rook taking a protected
/// horse) the chase stands: a chase that also offers an exchange is a chase.
///
/// A trade against a piece other than the capturer dissolves the win only when the win
/// needs that piece (the capture gains nothing with it off the board): figure 21 m1
/// (车四退二: rook and horse against the guarded horse on h6, which can take the red horse:
/// 兑) and reference figure 4 (马1进3 becomes the screen that lets the black cannon join
/// the rook against the guarded red cannon: 兑), against reference figure 49 (车3平2:
/// cannon and rook win the horse on b6 without the black horse it could take: 捉), figure
/// 11 and reference figure 43 (a rook alone wins an unguarded cannon; that cannon facing
/// another through a screen does not save it: 捉).
fn target_trades_off(pos: &Position, capture: Move, capturer: Capturer, budget: &mut Budget) -> bool {
    on(readings::TRADE_OFF) && trades_off(pos, capture.to(), Some((capture, capturer)), budget)
}

/// The points of the enemy pieces that the piece on `from` attacks and that could first
/// trade themselves off against it ([`target_trades_off`]), as a bit mask.
pub(super) fn exchange_partners(pos: &Position, from: Square, budget: &mut Budget) -> u128 {
    let Some(piece) = pos.piece_at(from) else { return 0 };
    let mut moves = MoveList::new();
    pos.generate_pseudo_from(from, piece, &mut moves);
    let mut mask = 0u128;
    for &c in moves.iter() {
        if pos.piece_at(c.to()).is_some_and(|p| p.color != piece.color)
            && pos.pseudo_move_is_legal(c)
            && target_trades_off(pos, c, Capturer::MovedPiece, budget)
        {
            mask |= 1u128 << c.to().index();
        }
    }
    mask
}

/// Whether the piece on `target_square` can trade itself off (see [`target_trades_off`])
/// against the capturer of `capture`, or against an enemy piece of its kind face to face
/// with it on which `capture`'s win rests; without a capture, against any enemy piece of
/// its kind face to face with it.
fn trades_off(
    pos: &Position,
    target_square: Square,
    capture: Option<(Move, Capturer)>,
    budget: &mut Budget,
) -> bool {
    trade_off_move(pos, target_square, capture, budget).is_some()
}

/// The move by which the piece on `target_square` trades itself off ([`trades_off`]), if
/// there is one (the first found).
fn trade_off_move(
    pos: &Position,
    target_square: Square,
    capture: Option<(Move, Capturer)>,
    budget: &mut Budget,
) -> Option<Move> {
    let capturer_square = capture.map(|(c, _)| c.from());
    let target = pos.piece_at(target_square)?;
    let them = pos.with_side_to_move(target.color);
    let mut moves = MoveList::new();
    them.generate_pseudo_from(target_square, target, &mut moves);
    moves.iter().copied().find(|&back| {
        let Some(victim) = pos.piece_at(back.to()) else { return false };
        if victim.color == target.color
            || !equal_material(victim.kind, target.kind)
            || !them.pseudo_move_is_legal(back)
        {
            return false;
        }
        if Some(back.to()) != capturer_square {
            // Another piece of the same kind: only one that meets the target face to face,
            // and only when the capture's win rests on it (see the function's doc).
            let mover = pos.with_side_to_move(victim.color);
            if !mover.is_legal(Move::new(back.to(), target_square))
                || capture.is_some_and(|(c, by)| wins_without(pos, c, by, back.to(), budget))
            {
                return false;
            }
        }
        let next = them.after(back);
        // 28.5 / 000 term 3 (兑): the side taking the offered piece must neither lose material
        // nor be mated at once ("既不能立即被将死"; at once = by consecutive checks, as in
        // 000 term 13). Figure 29's variant: after 车五平二, 车8进6 (taking the rook on h3)
        // allows 车一进六 check, 车8退6 the only block, 车一平二 mate; so the trade is no
        // way out and red's mate threat stands (draw).
        value(victim, back.to()) - exchange_gain(&next, back.to(), MAX_EXCHANGE_CAPTURES, budget) >= 0
            && !mates_by_checks(&next, FALSE_ROOT_MATE_CHECKS, budget)
    })
}

/// Whether `capture` still wins material with the piece on `partner` taken off the board.
fn wins_without(
    pos: &Position,
    capture: Move,
    capturer: Capturer,
    partner: Square,
    budget: &mut Budget,
) -> bool {
    let mut setup = pos.to_setup();
    setup.remove(partner);
    Position::from_setup(&setup).is_ok_and(|without| {
        judge_capture_with(&without, capture, Standing::BeforeCapture, capturer, budget)
            != CaptureVerdict::NoGain
    })
}

/// Whether, after `capture`, the target is at least nominally protected (in form, 28.16
/// "形式上是根"): a piece of the victim's side could move onto the square by the piece
/// rules alone (pins and mate threats ignored), or a horse or an elephant of that side
/// would but for a piece of its own on its leg or eye ([`hobbled_root`]).
fn nominally_guarded(pos: &Position, capture: Move) -> bool {
    let after = pos.after(capture);
    let guard = after.side_to_move();
    let mut moves = MoveList::new();
    after.generate_pseudo_to(guard, capture.to(), &mut moves);
    !moves.is_empty() || (on(readings::GRADE_A_PLAIN) && hobbled_root(&after, guard, capture.to()))
}

/// Whether a horse or an elephant of `guard` would guard `to` but for a piece of its own
/// side on the horse's leg (蹩马腿) or the elephant's eye (塞象眼). Such a root guards in
/// form only (假根): its own side hampers it and could free it, so the chase of the piece
/// it stands behind grades B like that of a falsely protected one (26.9). Reference figure
/// 39: 车三进一 attacks the elephant on e7, which the elephant on g9 would guard but for
/// black's own rook on f8, its eye; red is B and black, chasing the rook with a horse (A),
/// must vary. A piece of the chaser's side on the leg or eye cuts the root altogether:
/// reference figure 45, where red's rook on f6 blocks the eye of the elephant on e7 that
/// would guard g5, and the horse's chase of the elephant on g5 grades A (a draw, both A).
fn hobbled_root(pos: &Position, guard: Color, to: Square) -> bool {
    // The elephant's steps are symmetric (the points it reaches `to` from are those it
    // reaches from `to`, with the same eye), and a side's elephants never cross the river.
    hobbled(pos, guard, &HORSE_ATTACKERS[to.index()], PieceKind::Horse)
        || hobbled(pos, guard, &ELEPHANT_MOVES[to.index()], PieceKind::Elephant)
}

/// Whether a piece of `guard` of `kind` stands on one of `roots`' points with a piece of
/// its own side on the matching leg or eye.
fn hobbled<const N: usize>(pos: &Position, guard: Color, roots: &Targets<N>, kind: PieceKind) -> bool {
    let own = |point: u8| {
        Square::from_index(usize::from(point)).and_then(|sq| pos.piece_at(sq)).filter(|p| p.color == guard)
    };
    (0..usize::from(roots.len))
        .any(|i| own(roots.to[i]).is_some_and(|p| p.kind == kind) && own(roots.block[i]).is_some())
}

/// The pieces (among `mask`) that a piece other than the king or a pawn of the side to
/// move can legally capture, worth more than `lost`: a cheap superset of what it wins.
fn capturable(pos: &Position, mask: SquareSet, lost: i32) -> SquareSet {
    let me = pos.side_to_move();
    let mut set = SquareSet::EMPTY;
    let mut moves = MoveList::new();
    pos.generate_pseudo(me, &mut moves);
    for &m in moves.iter() {
        let (Some(target), Some(attacker)) = (pos.piece_at(m.to()), pos.piece_at(m.from())) else { continue };
        if mask.contains(m.to())
            && !set.contains(m.to())
            && target.color != me
            && !matches!(attacker.kind, PieceKind::King | PieceKind::Pawn)
            && chaseable(target, m.to())
            && value(target, m.to()) > lost
            && pos.pseudo_move_is_legal(m)
        {
            set.insert(m.to());
        }
    }
    set
}

/// The pieces (among `mask`) the side to move wins after a check, whatever the answer
/// (抽将, 29.1 "after consecutive checks"; up to [`CHASE_CHECKS`] checks are searched).
fn check_threats(
    pos: &Position,
    mover_square: Option<Square>,
    mask: SquareSet,
    budget: &mut Budget,
) -> SquareSet {
    // Only pieces of the opponent that stand in `pos` can be chased.
    let them = pos.side_to_move().opponent();
    let mut pieces = SquareSet::EMPTY;
    for (sq, p) in pos.pieces() {
        if p.color == them && chaseable(p, sq) && mask.contains(sq) {
            pieces.insert(sq);
        }
    }
    let checks = if on(readings::TWO_CHECKS) { CHASE_CHECKS } else { 1 };
    wins_through_checks(pos, pos, pieces, checks, 0, LineStart::Top { mover_square }, budget)
}

/// Where a line of checks is searched from (see [`for_each_answerable_check`]).
#[derive(Clone, Copy, Debug)]
enum LineStart {
    /// The position the line starts from, "if the mover moved again": the opponent is
    /// really to move there. `mover_square` is where the piece just moved stands.
    Top {
        /// The square of the piece the classified move moved, if any.
        mover_square: Option<Square>,
    },
    /// After a check and its answer: the opponent has spent its move.
    Inside,
}

/// `set` with the piece the answer `r` moved followed to its new square.
fn follow(set: SquareSet, r: Move) -> SquareSet {
    let mut out = set;
    if set.contains(r.from()) {
        out.0 &= !(1u128 << r.from().index());
        out.insert(r.to());
    }
    out
}

/// The inverse of [`follow`]: `set` (squares after the answer `r`) seen from before it.
fn unfollow(set: SquareSet, r: Move) -> SquareSet {
    let mut out = set;
    out.0 &= !(1u128 << r.from().index());
    if set.contains(r.to()) {
        out.0 &= !(1u128 << r.to().index());
        out.insert(r.from());
    }
    out
}

/// Of `candidates` (pieces of the side not to move in `pos`), those its opponent still wins
/// after `trade` (a piece of theirs trading itself off, played from `pos` with them to
/// move): directly or through checks, the trade's side having spent its move.
fn still_won_after_trade(
    pos: &Position,
    trade: Move,
    candidates: SquareSet,
    budget: &mut Budget,
) -> SquareSet {
    let them = pos.side_to_move().opponent();
    let next = pos.with_side_to_move(them).after(trade);
    let direct = direct_threats_with(&next, None, candidates, false, Standing::BeforeCapture, budget).chased;
    let rest = SquareSet(candidates.0 & !direct.0);
    if rest.is_empty() {
        return direct;
    }
    let checks = if on(readings::TWO_CHECKS) { CHASE_CHECKS } else { 1 };
    let by_checks = wins_through_checks(&next, &next, rest, checks, 0, LineStart::Inside, budget);
    SquareSet(direct.0 | by_checks.0)
}

/// A cheap superset of [`wins_through_checks`]: the pieces among `mask` that, after a check
/// and every answer, some piece other than the king or a pawn can legally capture (worth
/// more than what the answers took), directly or after at most `checks - 1` further checks.
/// Only move generation, no judgement of the captures.
fn capturable_through_checks(
    pos: &Position,
    mask: SquareSet,
    checks: u32,
    lost: i32,
    budget: &mut Budget,
) -> SquareSet {
    for_each_answerable_check(pos, mask, LineStart::Inside, budget, |checked, replies, candidates, budget| {
        capturable_after_every_answer(checked, replies, candidates, checks, lost, budget)
    })
}

/// Runs `win` on every check of the side to move of `pos` that the opponent can answer,
/// while pieces of `mask` are left to win and the budget lasts: `win` gets the position
/// after the check, its legal answers and the pieces still to win (less the checking
/// piece's square), and returns those it wins. Returns every piece won.
///
/// At the top of a line (`LineStart::Top`, the opponent really to move), a check that
/// captures a piece able to trade itself off first ([`target_trades_off`]) wins only the
/// pieces that are still won after that trade (directly or through checks): the line rests
/// on taking that piece, and the opponent, to move, exchanges it (兑, 28.5 "凡走子可与同等子力
/// 互换吃去者"; reading `traded_first_check`, as `trade_off` does for a mate resting on
/// taking it and for a direct capture whose win rests on the piece traded). 2020 figure 13:
/// 车六平五 puts the rook between the two cannons; 炮五进二 (taking the cannon on e7, a check
/// over the advisor) would win the rook on e4, but black, to move, takes the red cannon
/// first and the rook on e4 is safe: the rook's return offers the cannons' exchange (兑).
/// Against it figure 17: 后车退一 attacks the pinned rook on c7, whose check-capture
/// 车七进一+ (taking it) wins the rook on h7; the c7 rook could trade itself off for the
/// rook on b7, but 车九进二 retakes with check and the h7 rook falls all the same: a chase.
fn for_each_answerable_check(
    pos: &Position,
    mask: SquareSet,
    start: LineStart,
    budget: &mut Budget,
    mut win: impl FnMut(&Position, &MoveList, SquareSet, &mut Budget) -> SquareSet,
) -> SquareSet {
    let mut won = SquareSet::EMPTY;
    let mut moves = MoveList::new();
    pos.generate_pseudo(pos.side_to_move(), &mut moves);
    let mut replies = MoveList::new();
    for &k in moves.iter() {
        if mask.0 & !won.0 == 0 {
            break;
        }
        let Some(checked) = checking_move(pos, k) else { continue };
        if !budget.spend() {
            break;
        }
        let mut candidates = SquareSet(mask.0 & !won.0 & !(1u128 << k.to().index()));
        if let LineStart::Top { mover_square } = start
            && on(readings::TRADED_FIRST_CHECK)
            && on(readings::TRADE_OFF)
            && pos.piece_at(k.to()).is_some()
        {
            let capturer = if Some(k.from()) == mover_square && on(readings::MOVED_ROOT) {
                Capturer::MovedPiece
            } else {
                Capturer::Other
            };
            if let Some(back) = trade_off_move(pos, k.to(), Some((k, capturer)), budget) {
                candidates.0 &= still_won_after_trade(pos, back, candidates, budget).0;
                if candidates.is_empty() {
                    continue;
                }
            }
        }
        checked.generate_legal(&mut replies);
        if replies.is_empty() {
            continue;
        }
        won.0 |= win(&checked, &replies, candidates, budget).0;
    }
    won
}

/// Of `candidates` (squares in the position before the check), those that some piece other
/// than the king or a pawn can capture after every answer in `replies` to the check that led
/// to `checked` (followed when an answer moves them), directly or after `checks - 1` further
/// checks; worth more than `lost` plus what the answer took. Move generation only.
fn capturable_after_every_answer(
    checked: &Position,
    replies: &MoveList,
    candidates: SquareSet,
    checks: u32,
    lost: i32,
    budget: &mut Budget,
) -> SquareSet {
    let mut common = candidates;
    for &r in replies.iter() {
        let answered = checked.after(r);
        let mapped = follow(common, r);
        let lost_r = lost + checked.piece_at(r.to()).map_or(0, |p| given_value(p, r.to()));
        let mut may = capturable(&answered, mapped, lost_r);
        if checks > 1 && mapped.0 & !may.0 != 0 {
            may.0 |= capturable_through_checks(
                &answered,
                SquareSet(mapped.0 & !may.0),
                checks - 1,
                lost_r,
                budget,
            )
            .0;
        }
        common.0 &= unfollow(may, r).0;
        if common.is_empty() {
            break;
        }
    }
    common
}

/// The pieces among `mask` (enemy pieces standing in `pos`) the side to move wins with a
/// check after which, whatever the answer, it wins the piece directly, or (with `checks`
/// above one) through further checks. A piece that an answer moves (a block) is followed
/// to its new square. `lost` is what the opponent's answers have already taken; a crossed
/// pawn they take is valued at its upper floating value ([`given_value`]). `root` is the
/// position the line of checks started from: the final capture's standing answers are
/// weighed against it ([`Standing::Since`]).
fn wins_through_checks(
    root: &Position,
    pos: &Position,
    mask: SquareSet,
    checks: u32,
    lost: i32,
    start: LineStart,
    budget: &mut Budget,
) -> SquareSet {
    for_each_answerable_check(pos, mask, start, budget, |checked, replies, candidates, budget| {
        let lost_by = |r: Move| lost + checked.piece_at(r.to()).map_or(0, |p| given_value(p, r.to()));
        // First the cheap question (can something be taken after every answer, directly or
        // after further checks?), then the full judgement of those captures only.
        let mut common = capturable_after_every_answer(checked, replies, candidates, checks, lost, budget);
        if common.is_empty() {
            return common;
        }
        for &r in replies.iter() {
            let answered = checked.after(r);
            let lost_r = lost_by(r);
            let mapped = follow(common, r);
            let mut got = SquareSet::EMPTY;
            let cheap = capturable(&answered, mapped, lost_r);
            if !cheap.is_empty() {
                let threats =
                    direct_threats_with(&answered, None, cheap, false, Standing::Since(root), budget);
                for sq in threats.chased.iter() {
                    if answered.piece_at(sq).is_some_and(|p| value(p, sq) > lost_r) {
                        got.insert(sq);
                    }
                }
            }
            if checks > 1 {
                let rest = SquareSet(mapped.0 & !got.0);
                if !rest.is_empty() {
                    got.0 |= wins_through_checks(
                        root,
                        &answered,
                        rest,
                        checks - 1,
                        lost_r,
                        LineStart::Inside,
                        budget,
                    )
                    .0;
                }
            }
            common.0 &= unfollow(got, r).0;
            if common.is_empty() {
                break;
            }
        }
        common
    })
}

/// What the side to move threatens among the pieces on `mask`.
pub(super) fn threats(
    pos: &Position,
    mover_square: Option<Square>,
    mask: SquareSet,
    budget: &mut Budget,
) -> Threats {
    threats_with(pos, mover_square, mask, Standing::BeforeCapture, budget)
}

/// [`threats`], with the answers that stood before each direct capture weighed as `standing`
/// says ([`judge_capture_with`]).
pub(super) fn threats_with(
    pos: &Position,
    mover_square: Option<Square>,
    mask: SquareSet,
    standing: Standing<'_>,
    budget: &mut Budget,
) -> Threats {
    if mask.is_empty() {
        return Threats::default();
    }
    let mut t = direct_threats_with(pos, mover_square, mask, true, standing, budget);
    let mut by_checks = check_threats(pos, mover_square, mask, budget);
    // A target that can trade itself off now (the opponent is really to move) is offered an
    // exchange, not chased, however the mover would win it if it moved again: the book's
    // figure 9 (马二进三 guards the rook facing the enemy rook: 兑, though a check would
    // then win that rook). When a piece stands between (figure 2: the horse blocks the
    // file until its check opens it) no trade is possible and the win through the check
    // is a chase.
    for sq in by_checks.iter() {
        if !t.chased.contains(sq) && on(readings::TRADE_OFF) && trades_off(pos, sq, None, budget) {
            by_checks.0 &= !(1u128 << sq.index());
        }
    }
    t.by_checks = SquareSet(by_checks.0 & !t.chased.0);
    // 26.9: a piece won only through a check (要抽吃子) is not won by a single piece's
    // plain attack: grade B, unless it is a rook (chasing a rook grades A however it is
    // done). Reference figures 34 and 40 (the side chasing through checks does not have
    // to vary against simple chases) against figure 26 (a rook won through a check).
    for sq in t.by_checks.iter() {
        if on(readings::GRADE_A_PLAIN) && pos.piece_at(sq).is_some_and(|p| value(p, sq) < ROOK) {
            t.grade_b.insert(sq);
        }
    }
    t.chased.0 |= by_checks.0;
    t.pawn_only.0 &= !t.chased.0;
    t.king_only.0 &= !t.chased.0;
    t
}
