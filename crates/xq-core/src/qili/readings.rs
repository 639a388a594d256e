//! The readings of the rulebook that the judge could make otherwise, as switches, so that
//! the choice between them can be measured by cross-validation (`tests/qili_folds.rs`).
//!
//! Each [`Reading`] names a rule of the judge, the article it reads (or the case it was
//! fitted to) and whether the judge applies it by default. The switches live in a
//! thread-local word, so a test can judge under other readings on its own thread without
//! touching the judgements of any other thread; the default word is what every caller
//! gets. Reading a switch costs one thread-local load, and nothing is allocated.

use std::cell::Cell;

/// One switchable reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    /// Its bit in the switch word.
    pub bit: u32,
    /// A short name.
    pub name: &'static str,
    /// The article it reads, or `"fitted: …"` with the case(s) it was made for.
    pub source: &'static str,
    /// Whether the article text supports it (the prior of the cross-validation: a reading
    /// from the text stays unless the training cases strictly prefer the other way; a
    /// fitted one is adopted only if they strictly prefer it).
    pub from_text: bool,
}

macro_rules! readings {
    ($($(#[$doc:meta])* $id:ident = $bit:expr, $name:expr, $source:expr, $text:expr;)*) => {
        $($(#[$doc])* pub const $id: Reading = Reading { bit: $bit, name: $name, source: $source, from_text: $text };)*
        /// Every switchable reading.
        pub const ALL: &[Reading] = &[$($id),*];
    };
}

readings! {
    /// A capture need only break even against a piece of the mover's that hangs anyway,
    /// and loses when a bigger one hangs (`Standing::BeforeCapture`).
    HANGING_ANYWAY = 0, "hanging_anyway", "fitted: figure 8, reference 28", false;
    /// What the piece just moved stops guarding is not counted against its capture.
    MOVED_ROOT = 1, "moved_root", "fitted: seeds case 4 (moved piece only), reference 46", false;
    /// A recapture costs what the recapturing root stops guarding (no pawns).
    OVERLOADED_ROOT = 2, "overloaded_root", "fitted: reference 13", false;
    /// 26.5: an answer elsewhere that the chaser made possible need only be matched.
    EVEN_TRADE_26_5 = 3, "even_trade_26_5", "2020 26.5 (RULES.md 3a)", true;
    /// Two-move combinations through an uncovered capture.
    COMBINATION = 4, "combination", "fitted: reference 1", false;
    /// A target that can take its attacker of its own kind evenly is offered (兑).
    TRADE_OFF_ATTACKER = 5, "trade_off_attacker", "28.5, 000 term 3", true;
    /// … or another piece of its kind face to face with it on which the win rests.
    TRADE_OFF_PARTNER = 6, "trade_off_partner", "fitted: figure 21, reference 4", false;
    /// A target that can trade itself off now is not chased through checks either.
    TRADE_OFF_BEFORE_CHECKS = 7, "trade_off_before_checks", "fitted: figure 9", false;
    /// A mate may not rest on capturing a piece that can trade itself off.
    MATE_AVOIDS_OFFERED = 8, "mate_avoids_offered", "fitted: figure 29", false;
    /// A chase the opponent's last move handed over is not made by the answer.
    GIVEN_BY_OPPONENT = 9, "given_by_opponent", "fitted: reference 21", false;
    /// An answer to a check does not make a chase only the check stopped.
    STOOD_BUT_FOR_CHECK = 10, "stood_but_for_check", "fitted: reference 19", false;
    /// A standing chase by other pieces, of an advisor or elephant or of a piece with too
    /// few roots, is not made by the move: idle (29.2; 27.3 for advisors and elephants).
    STANDING_CHASE_NOT_MADE = 11, "standing_chase_not_made", "29.2, 27.3; references 6, 37", true;
    /// 27.3 key point: a lone attacking piece chasing advisors/elephants only is idle.
    KEY_POINT = 13, "key_point", "27.3, 2020 26.2", true;
    /// A chase continues (for 26.9) only if it stood in earnest.
    CONTINUING_IN_EARNEST = 14, "continuing_in_earnest", "fitted: reference 49", false;
    /// 暗根: a recapture through a check protects.
    HIDDEN_PROTECTION = 15, "hidden_protection", "28.16, 000 term 8", true;
    /// A horse or elephant hobbled by its own side guards in form (grade B).
    HOBBLED_ROOT = 16, "hobbled_root", "fitted: reference 39 against 45", false;
    /// A falsely protected target (some piece guards it in form) grades B.
    NOMINAL_GUARD_B = 17, "nominal_guard_b", "26.9 (少根/假根 as B)", true;
    /// A crossed pawn given up in a line of checks is worth a minor piece.
    PAWN_GIVEN_AS_MINOR = 18, "pawn_given_as_minor", "25.3 (floating pawn), seeds case 10", true;
    /// A win through checks pays for what its checks left hanging (`Standing::Since`).
    CHECKS_PAY_THEIR_COST = 19, "checks_pay_their_cost", "fitted: reference 33", false;
    /// A recapture that lets the capturer mate by two checks does not protect (假根).
    FALSE_ROOT_BY_MATE = 20, "false_root_by_mate", "000 terms 9, 13", true;
    /// 29.4: a capture after which the opponent mates in one is no chase.
    NOT_MATED_AFTER = 21, "not_mated_after", "29.4, seeds case 7", true;
    /// A side whose every chase only continues grades B (26.9).
    CONTINUING_GRADES_B = 22, "continuing_grades_b", "fitted: figure 3 (从捉到捉 under 26.9)", false;
    /// A chase through a check of a piece other than a rook grades B.
    CHECKS_GRADE_B = 23, "checks_grade_b", "fitted: reference 34, 40 against figure 26", false;
    /// Chases through up to two checks (one when off).
    TWO_CHECKS = 24, "two_checks", "29.1 (连续照将)", true;
    /// 26.1.4: a move answering a check is compared with the position before the check.
    ANSWER_TO_CHECK_NEW = 25, "answer_to_check_new", "2020 26.1.4", true;
    /// The moved piece's attack from its new square is made by the move (26.1.4, 29.2).
    MOVED_PIECE_ATTACK_NEW = 26, "moved_piece_attack_new", "29.2, 2020 26.1.4", true;
    /// 27.3 applies only to the weaker side (the opponent has more attacking pieces).
    KEY_POINT_DEFENDER = 27, "key_point_defender", "27.3 (防守要点), 2020 26.2 (defending side)", true;
    /// 兑 is an exchange of equal material (28.5 同等子力): horse for cannon too.
    EQUAL_MATERIAL_TRADE = 28, "equal_material_trade", "28.5 (同等子力)", true;
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
