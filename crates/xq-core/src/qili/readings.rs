//! The readings of the rulebook behind the judge's rules, as switches, so that the choice
//! of each can be measured by cross-validation on the rulebook's cases
//! (`tests/qili_folds.rs`, docs/QILI.md "Cross-validation").
//!
//! Each [`Reading`] names a rule of the judge, the article it implements and how directly
//! the article gives it ([`Source`]). Every rule the judge applies is one of these readings
//! or follows from the articles without a choice (check, the values of 25.3, the search
//! for captures). The switches live in a thread-local word: a test may judge under other
//! readings on its own thread without touching any other thread's judgements, and every
//! other caller gets [`DEFAULT`], every reading on. Reading a switch costs one
//! thread-local load, and nothing is allocated.

use std::cell::Cell;

/// How directly the text gives a reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The article (or an illustrated case of the seeds' chapter) states it.
    Text,
    /// The article read for a shape its words do not spell out; the rulebook cases that
    /// decided between the possible readings are named in `source`.
    Reading,
}

/// One switchable reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    /// Its bit in the switch word.
    pub bit: u32,
    /// A short name.
    pub name: &'static str,
    /// The article it implements, and for a [`Source::Reading`] the cases that chose it.
    pub source: &'static str,
    /// How directly the text gives it.
    pub kind: Source,
}

macro_rules! readings {
    ($($(#[$doc:meta])* $id:ident = $bit:expr, $name:expr, $kind:ident, $source:expr;)*) => {
        $($(#[$doc])* pub const $id: Reading =
            Reading { bit: $bit, name: $name, source: $source, kind: Source::$kind };)*
        /// Every switchable reading.
        pub const ALL: &[Reading] = &[$($id),*];
    };
}

readings! {
    /// 29.4: a capture after which the opponent mates in one is no chase.
    NOT_MATED_AFTER = 0, "not_mated_after", Text, "29.4; seeds case 7";
    /// 假根: a recapture after which the capturer mates by consecutive checks (two) does
    /// not protect.
    FALSE_ROOT_BY_MATE = 1, "false_root_by_mate", Text, "28.16 假根; 000 terms 9, 13";
    /// 暗根: a recapture through a check protects.
    HIDDEN_PROTECTION = 2, "hidden_protection", Text, "28.16 暗根; 000 term 8";
    /// Chases through up to two consecutive checks (one when off).
    TWO_CHECKS = 3, "two_checks", Text, "29.1 连续照将";
    /// 26.1.4: a move answering a check chases only what did not stand before the check.
    ANSWER_TO_CHECK_NEW = 4, "answer_to_check_new", Text, "2020 26.1.4";
    /// What the moved piece attacks from its new square is made by the move.
    MOVED_PIECE_ATTACK_NEW = 5, "moved_piece_attack_new", Text, "29.2; 2020 26.1.4";
    /// 27.3: a defending side with one attacking piece that attacks only advisors and
    /// elephants is idle.
    KEY_POINT = 6, "key_point", Text, "27.3; 2020 26.2";
    /// 27.3's defending side is outnumbered in attacking pieces.
    KEY_POINT_DEFENDER = 7, "key_point_defender", Text, "27.3 防守要点";
    /// 兑 trades equal material: horse for cannon, advisor for elephant too.
    EQUAL_MATERIAL_TRADE = 8, "equal_material_trade", Text, "28.5 同等子力; 25.3";
    /// What the piece moved to attack stops guarding is not counted against its capture.
    MOVED_ROOT = 9, "moved_root", Text, "seeds case 4 (凡用作为根的子捉吃对方的子, 也按捉处理)";
    /// 26.5: an answer elsewhere that the chaser made possible by leaving its square need
    /// only be matched (even is a chase).
    EVEN_TRADE_26_5 = 10, "even_trade_26_5", Text, "2020 26.5";
    /// A piece that can trade itself off against a piece of equal material that wins it
    /// is offered an exchange, not chased; nor may a mate rest on taking it.
    TRADE_OFF = 11, "trade_off", Reading, "28.5, 000 term 3; figures 2, 9, 17, 21, 29, references 4, 9, 22";
    /// A capture must not lose material counting the opponent's best answer anywhere, a
    /// piece of the mover's hanging anyway included (even is enough against that).
    HANGING_ANYWAY = 12, "hanging_anyway", Reading, "25.3 (value decides a chase), 29.1 得子; figure 8, reference 28";
    /// A root overloaded with another piece to guard protects in form only.
    OVERLOADED_ROOT = 13, "overloaded_root", Reading, "28.16 形式上是根; reference 13 (no pawns: 25.3, references 16, 31, 33)";
    /// A capture that uncovers another capture wins as a two-move exchange.
    COMBINATION = 14, "combination", Reading, "29.1 完整的交换过程得子; reference 1";
    /// A chase the opponent's last move handed over is not made by the answer.
    GIVEN_BY_OPPONENT = 15, "given_by_opponent", Reading, "29.2; reference 21 (against figure 9, reference 34)";
    /// An answer to a check does not make a chase only the check stopped.
    STOOD_BUT_FOR_CHECK = 16, "stood_but_for_check", Reading, "2020 26.1.4; reference 19 (against reference 28)";
    /// A standing chase by other pieces, of an advisor or elephant or of a piece with too
    /// few roots, is not made by the move: idle.
    STANDING_CHASE_NOT_MADE = 17, "standing_chase_not_made", Reading, "29.2, 27.3; references 6, 37 (against figure 3, references 18, 28, 34)";
    /// A chase stood before the move only if it stood in earnest (26.9's 从捉到捉).
    CONTINUING_IN_EARNEST = 18, "continuing_in_earnest", Reading, "29.2, 25.3; reference 49";
    /// 26.9 grade A is a plain chase only: by one piece, made by the move, of a rook or of
    /// a piece with no root even in form (a root pinned, or hobbled by its own side); a
    /// chase through a check, of a falsely protected piece or that only continues is B.
    GRADE_A_PLAIN = 19, "grade_a_plain", Reading, "2020 26.9; figure 3, references 34, 36, 39, 40 (against figure 26, reference 45)";
    /// A crossed pawn given up in a line of checks is worth a minor piece.
    PAWN_GIVEN_AS_MINOR = 20, "pawn_given_as_minor", Reading, "25.3 (过河兵价值浮动); figure 24 = seeds case 10";
    /// A win through checks pays for what its checks left hanging.
    CHECKS_PAY_THEIR_COST = 21, "checks_pay_their_cost", Reading, "29.1, 25.3; reference 33";
    /// 29.1 first form: the plain capture of a piece with no root is a chase whatever else of
    /// the mover's hangs; only the other forms (checks, exchange) weigh the balance.
    PLAIN_CAPTURE_CHASES = 22, "plain_capture_chases", Text, "29.1 能够直接吃子 (a plain capture of a piece with no root chases whatever else hangs)";
    /// A line of checks whose first check takes a piece that can first trade itself off
    /// wins nothing: the opponent, to move, exchanges (兑).
    TRADED_FIRST_CHECK = 23, "traded_first_check", Reading, "28.5 兑, 29.1 连续照将; figure 13";
    /// A combination's follow-up may take a piece whose root the exchange took (去根).
    ROOT_TAKEN = 24, "root_taken", Reading, "29.1 完整的交换过程得子; figure 4";
    /// A combination's follow-up by the king, or by a pawn alone, does not make a chase.
    OWN_FOLLOW_UP = 25, "own_follow_up", Text, "27.1 帅(将)本身, 27.2 兵(卒)本身; reference 32";
}

/// The switch word every thread starts with: every reading the judge applies.
pub const DEFAULT: u64 = {
    let mut word = 0u64;
    let mut i = 0;
    while i < ALL.len() {
        word |= 1 << ALL[i].bit;
        i += 1;
    }
    word
};

thread_local! {
    static WORD: Cell<u64> = const { Cell::new(DEFAULT) };
}

/// The switch word of this thread.
pub fn word() -> u64 {
    WORD.with(Cell::get)
}

/// Sets this thread's switch word (bit `r.bit` set = reading `r` applied).
pub fn set_word(word: u64) {
    WORD.with(|w| w.set(word));
}

/// Whether this thread applies `r`.
#[inline]
pub(crate) fn on(r: Reading) -> bool {
    (word() >> r.bit) & 1 == 1
}
