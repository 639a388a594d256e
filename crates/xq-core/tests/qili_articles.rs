//! The 棋例 articles as tests: for every article and sub-clause the judge implements, three
//! or more positions built from the text alone (none is taken from `data/qili/cases.json`),
//! each with the label the article implies and one line of reasoning. Every position is
//! also judged mirrored left–right and with the colours swapped (the board turned 180°,
//! red and black exchanged), and must be judged alike.
//!
//! Labels are those of the case file (`check`, `mate_threat`, `chase`, `exchange_offer`,
//! `idle`); `idle:offer`, `idle:block`, `idle:follow` also name the kind of idle move
//! (28.6–28.8), and `-` leaves a move unchecked. Verdicts, where given, are those of the
//! cycle of all the moves under `cxa` and `cxa2020`. Articles are those of the seeds'
//! rulebook (`003`), "2020 26.x" those of the 2020 edition (RULES.md §3a), "000 term n"
//! the terms of the intro text (`000`).

mod common;

use common::colour_swapped_fen;
use xq_core::qili::{Detail, IdleKind, Judgement, MoveClass, MoveInfo, RuleSet, try_judge};
use xq_core::{GameResult, Move, Position, notation::parse_move};

/// One position from the text.
struct Item {
    /// The article (and sub-clause) it illustrates.
    article: &'static str,
    fen: &'static str,
    /// The moves played from it (ICCS).
    moves: &'static [&'static str],
    /// The label the article implies for each move.
    labels: &'static [&'static str],
    /// The verdicts of the whole line as a cycle, under `cxa` and `cxa2020`.
    verdicts: Option<(&'static str, &'static str)>,
    /// Why, in one line.
    why: &'static str,
}

const ITEMS: &[Item] = &[
    Item {
        article: "28.1",
        fen: "4k4/9/9/9/9/9/9/9/R8/3K5 w",
        moves: &["a1a9"],
        labels: &["check"],
        verdicts: None,
        why: "the rook reaches rank 9 and attacks the king",
    },
    Item {
        article: "28.1",
        fen: "4k4/4a4/9/9/9/9/9/1C7/9/3K5 w",
        moves: &["b2e2"],
        labels: &["check"],
        verdicts: None,
        why: "the cannon on the e-file jumps the advisor on e8 onto the king",
    },
    Item {
        article: "28.1",
        fen: "4k4/9/9/9/2N6/9/9/9/9/3K5 w",
        moves: &["c5d7"],
        labels: &["check"],
        verdicts: None,
        why: "from d7 the horse, its leg d8 free, attacks the king on e9",
    },
    Item {
        article: "28.2",
        fen: "4k4/9/9/9/9/9/9/9/R7R/3K5 w",
        moves: &["a1a8"],
        labels: &["mate_threat"],
        verdicts: None,
        why: "with rank 8 held, 车i9 next is mate: d9 and f9 lie on the checking rank, e8 on the held one",
    },
    Item {
        article: "28.2",
        fen: "3k1a3/9/9/9/9/9/9/9/R7R/4K4 w",
        moves: &["a1a8"],
        labels: &["mate_threat"],
        verdicts: None,
        why: "with rank 8 held, 车i9 next mates: the king may not step to e9, facing the red king",
    },
    Item {
        article: "28.2",
        fen: "3k5/9/9/9/6N2/9/9/9/R8/5K3 w",
        moves: &["g5f7"],
        labels: &["mate_threat"],
        verdicts: None,
        why: "the horse on f7 takes d8 and e9 from the king, so 车a9 next is mate",
    },
    Item {
        article: "29.1 direct",
        fen: "5k3/9/9/9/4n4/9/9/9/R8/3K5 w",
        moves: &["a1a5"],
        labels: &["chase"],
        verdicts: None,
        why: "the rook can take the unprotected horse on e5 next move",
    },
    Item {
        article: "29.1 direct",
        fen: "5k3/9/9/6c2/9/9/3N5/9/9/3K5 w",
        moves: &["d3f4"],
        labels: &["chase"],
        verdicts: None,
        why: "from f4 the horse, its leg f5 free, can take the unprotected cannon on g6",
    },
    Item {
        article: "29.1 direct",
        fen: "5k3/9/9/2P1r4/9/9/9/C8/9/3K5 w",
        moves: &["a2a6"],
        labels: &["chase"],
        verdicts: None,
        why: "on a6 the cannon jumps the pawn on c6 onto the unprotected rook on e6",
    },
    Item {
        article: "29.1 direct",
        fen: "5k3/9/9/8r/4n4/9/8R/9/R8/3K5 w",
        moves: &["a1a5"],
        labels: &["chase"],
        verdicts: None,
        why: "the plain capture of the loose horse is a chase (29.1 能够直接吃子), though black's rook may take red's rook on i3",
    },
    Item {
        article: "25.3 balance",
        fen: "3rk4/1R7/9/n2r5/9/9/6N2/9/9/5K3 w",
        moves: &["g3e4"],
        labels: &["chase"],
        verdicts: None,
        why: "horse takes the guarded rook; black's best answer takes the rook on b8 instead of the horse: even on balance against a piece hanging anyway, still a chase (2020 figure 8's reading)",
    },
    Item {
        article: "25.3 balance",
        fen: "3rk4/1N7/9/n2r5/9/9/6N2/9/9/5K3 w",
        moves: &["g3e4"],
        labels: &["chase"],
        verdicts: None,
        why: "horse for the guarded rook wins a horse's worth; black's horse may take the horse on b8, an even balance: still a chase (2020 figure 8's reading)",
    },
    Item {
        article: "25.3 balance",
        fen: "2r2k3/R8/9/1n7/9/2n6/9/9/9/3K2B2 w",
        moves: &["g0e2"],
        labels: &["idle"],
        verdicts: None,
        why: "elephant for the guarded horse wins by exchange (得子), but black's horse on b6 takes the rook on a8: a loss on balance",
    },
    Item {
        article: "29.1 checks",
        fen: "3k5/9/9/6r2/9/7N1/9/9/9/5K3 w",
        moves: &["h4f5"],
        labels: &["chase"],
        verdicts: None,
        why: "next 马f5-e7 checks and forks the unprotected rook on g6, which can neither block nor take the horse",
    },
    Item {
        article: "29.1 checks",
        fen: "9/2n2k3/9/9/9/9/9/R8/9/3K5 w",
        moves: &["a2i2"],
        labels: &["chase"],
        verdicts: None,
        why: "next 车i8 checks along rank 8; the king must leave the rank and the rook takes the unprotected horse behind it",
    },
    Item {
        article: "29.1 checks",
        fen: "4k4/9/c8/9/4N4/9/9/9/R8/3K5 w",
        moves: &["a1e1"],
        labels: &["chase"],
        verdicts: None,
        why: "next 马e5-c6 uncovers the rook's check and attacks a7; whatever answers (the cannon may block on e7) the horse takes the cannon",
    },
    Item {
        article: "29.1 exchange",
        fen: "3rk4/9/9/3r5/9/9/6N2/9/9/5K3 w",
        moves: &["g3e4"],
        labels: &["chase"],
        verdicts: None,
        why: "horse for rook: taking the rook on d6 and losing the horse to the rook on d9 wins material (25.3)",
    },
    Item {
        article: "29.1 exchange",
        fen: "4k2n1/9/6r2/9/6P2/9/9/1C7/9/3K5 w",
        moves: &["b2g2"],
        labels: &["chase"],
        verdicts: None,
        why: "the cannon jumps the pawn on g5 onto the rook on g7; the horse takes back, but cannon for rook is a gain",
    },
    Item {
        article: "29.1 exchange",
        fen: "2r2k3/9/9/9/9/2n6/9/9/9/3K2B2 w",
        moves: &["g0e2"],
        labels: &["chase"],
        verdicts: None,
        why: "the elephant attacks the horse on c4; the rook on c9 takes back, but elephant for horse is a gain",
    },
    Item {
        article: "28.16 joint",
        fen: "2bkrab2/9/3a5/9/R3n4/9/9/9/8R/5K3 w",
        moves: &["i1i5"],
        labels: &["chase"],
        verdicts: None,
        why: "two rooks against the horse on e5 that one rook guards: the complete exchange wins the horse",
    },
    Item {
        article: "28.16 joint",
        fen: "2r1k4/9/9/R1c6/9/9/1N7/9/9/3K5 w",
        moves: &["b3d4"],
        labels: &["chase"],
        verdicts: None,
        why: "horse and rook against the cannon on c6 that one rook guards: the exchange wins it",
    },
    Item {
        article: "28.16 joint",
        fen: "4k1r2/9/9/R5n2/9/9/6P2/9/2C6/3K5 w",
        moves: &["c1g1"],
        labels: &["chase"],
        verdicts: None,
        why: "cannon (over the pawn on g3) and rook against the horse on g6 that one rook guards: the exchange wins it",
    },
    Item {
        article: "29.2 discovered",
        fen: "5k3/9/n8/9/9/9/N8/9/R8/3K5 w",
        moves: &["a3c4"],
        labels: &["chase"],
        verdicts: None,
        why: "the horse leaves the a-file and the rook behind it now attacks the unprotected horse on a7",
    },
    Item {
        article: "29.2 discovered",
        fen: "5k3/9/4r4/9/9/9/9/9/9/3KC1B2 w",
        moves: &["g0e2"],
        labels: &["chase"],
        verdicts: None,
        why: "the elephant becomes the cannon's screen: the cannon now attacks the unprotected rook on e7",
    },
    Item {
        article: "29.2 discovered",
        fen: "5k3/9/9/3c5/2R6/2N6/9/9/9/3K5 w",
        moves: &["c5a5"],
        labels: &["chase"],
        verdicts: None,
        why: "the rook frees the horse's leg c5, and the horse now attacks the unprotected cannon on d6",
    },
    Item {
        article: "26.1.4",
        fen: "3k5/9/9/9/9/9/7n1/9/8R/4K4 b",
        moves: &["h3f2", "i1f1"],
        labels: &["check", "chase"],
        verdicts: None,
        why: "the rook blocks the horse's leg f1 and from there newly attacks the unprotected checking horse",
    },
    Item {
        article: "26.1.4",
        fen: "3k5/7r1/9/9/C5Pc1/9/9/9/9/4K4 b",
        moves: &["h8e8", "a5e5"],
        labels: &["check", "idle"],
        verdicts: None,
        why: "the cannon blocks the check; its attack over the pawn on g5 on the cannon h5 stood before the check, so the answer makes no chase",
    },
    Item {
        article: "26.1.4",
        fen: "3k5/7r1/9/9/9/9/R1N3c2/9/9/4K4 b",
        moves: &["h8e8", "c3e4"],
        labels: &["check", "chase"],
        verdicts: None,
        why: "the horse blocks on e4 and so uncovers the rook on a3, which now attacks the unprotected cannon on g3: a chase the answer made",
    },
    Item {
        article: "29.3 value",
        fen: "5k3/9/9/4p4/9/9/9/9/R8/3K5 w",
        moves: &["a1a6"],
        labels: &["idle"],
        verdicts: None,
        why: "a pawn on its own side of the river has no value as a target (25.3)",
    },
    Item {
        article: "29.3 value",
        fen: "5k3/9/9/9/9/9/4p4/9/R8/3K5 w",
        moves: &["a1a3"],
        labels: &["chase"],
        verdicts: None,
        why: "a pawn that has crossed the river is a piece with value, here unprotected",
    },
    Item {
        article: "29.3 value",
        fen: "5k3/9/3a5/9/9/9/9/9/R8/3K5 w",
        moves: &["a1a7"],
        labels: &["chase"],
        verdicts: None,
        why: "an advisor is a piece with value (25.3, 000 principle 18), and the one on d7 is unprotected",
    },
    Item {
        article: "29.3 value",
        fen: "5k3/9/9/9/6b2/9/9/9/R8/3K5 w",
        moves: &["a1a5"],
        labels: &["chase"],
        verdicts: None,
        why: "an elephant is a piece with value, and the one on g5 is unprotected",
    },
    Item {
        article: "28.16 protected",
        fen: "5k3/9/3n5/9/4n4/9/9/9/R8/3K5 w",
        moves: &["a1a5"],
        labels: &["idle"],
        verdicts: None,
        why: "the horse on d7 guards e5: rook for horse loses material",
    },
    Item {
        article: "28.16 protected",
        fen: "5k3/9/4b4/9/6c2/9/9/9/R8/3K5 w",
        moves: &["a1a5"],
        labels: &["idle"],
        verdicts: None,
        why: "the elephant on e7 guards g5: rook for cannon loses material",
    },
    Item {
        article: "28.16 protected",
        fen: "4k4/4a4/9/9/9/9/9/9/R8/3K5 w",
        moves: &["a1a8"],
        labels: &["idle"],
        verdicts: None,
        why: "the king guards the advisor on e8",
    },
    Item {
        article: "28.16 false root",
        fen: "9/4k4/4n4/9/3c5/9/9/9/R3R4/3K5 w",
        moves: &["a1a5"],
        labels: &["chase"],
        verdicts: None,
        why: "the horse on e7 guards d5 but may not leave the e-file, where the rook on e1 would then check",
    },
    Item {
        article: "28.16 false root",
        fen: "4k4/9/4b4/9/6n2/9/4P4/9/R3C4/3K5 w",
        moves: &["a1a5"],
        labels: &["chase"],
        verdicts: None,
        why: "the elephant on e7 guards g5 but may not leave: the cannon on e1 would then check over the pawn on e3",
    },
    Item {
        article: "28.16 false root",
        fen: "4k4/9/9/2c6/4n4/9/9/9/R8/4K4 w",
        moves: &["a1a6"],
        labels: &["chase"],
        verdicts: None,
        why: "the horse on e5 guards c6 but may not leave: the kings would face (000 term 9)",
    },
    Item {
        article: "28.16 hidden root",
        fen: "2bk5/9/3a5/9/9/4c4/7n1/9/R8/4K4 w",
        moves: &["a1a4"],
        labels: &["idle"],
        verdicts: None,
        why: "after 车xe4 the horse checks from f2 and then takes the rook on e4: the cannon is protected",
    },
    Item {
        article: "28.16 hidden root",
        fen: "3k5/9/9/9/9/5c1n1/9/9/R8/5K3 w",
        moves: &["a1a4"],
        labels: &["idle"],
        verdicts: None,
        why: "after 车xf4 the horse checks from g2 and then takes the rook on f4: the cannon is protected",
    },
    Item {
        article: "28.16 hidden root",
        fen: "2bk5/9/3a5/9/9/1n7/4c4/9/8R/3K5 w",
        moves: &["i1i3"],
        labels: &["idle"],
        verdicts: None,
        why: "after 车xe3 the horse checks from c2 and then takes the rook on e3: the cannon is protected",
    },
    Item {
        article: "29.4",
        fen: "2b1kab2/4a4/9/9/8r/9/9/2c1N2Rn/r8/3AKA3 w",
        moves: &["e2c3"],
        labels: &["idle"],
        verdicts: None,
        why: "车xc2 would free the leg h2, and 马i2-g1 mates (e1 is the rook's, d0 and f0 the advisors'); 车xi2 loses the rook to the rook on i5",
    },
    Item {
        article: "29.4",
        fen: "5k3/9/9/9/7C1/9/9/2r1B3n/r8/3AKA3 w",
        moves: &["h5h2"],
        labels: &["idle"],
        verdicts: None,
        why: "炮xc2 over the elephant would free the leg h2, and 马i2-g1 mates",
    },
    Item {
        article: "29.4",
        fen: "5k3/9/9/9/9/6c2/9/8n/r4N3/3AKA3 w",
        moves: &["f1h2"],
        labels: &["idle"],
        verdicts: None,
        why: "马xg4 would free the leg h2 again, and 马i2-g1 mates",
    },
    Item {
        article: "25.3 rook",
        fen: "5k3/9/9/4p4/4n4/9/9/9/R8/3K5 w",
        moves: &["a1a5"],
        labels: &["idle"],
        verdicts: None,
        why: "a rook is worth two minor pieces: rook for a guarded horse loses",
    },
    Item {
        article: "25.3 rook",
        fen: "5k3/9/9/4p4/4r4/9/9/1N7/9/3K5 w",
        moves: &["b2c4"],
        labels: &["chase"],
        verdicts: None,
        why: "horse for a guarded rook is a gain: a chase by exchange",
    },
    Item {
        article: "25.3 rook",
        fen: "4k4/4a4/3c5/9/9/9/9/9/R8/3K5 w",
        moves: &["a1a7"],
        labels: &["idle"],
        verdicts: None,
        why: "rook for a cannon that the advisor guards loses",
    },
    Item {
        article: "25.3 even",
        fen: "5k3/9/4b4/9/6n2/6p2/9/9/6N2/3K5 w",
        moves: &["g1h3"],
        labels: &["idle"],
        verdicts: None,
        why: "horse for a guarded horse is even: no gain",
    },
    Item {
        article: "25.3 even",
        fen: "2r1k4/9/9/2n6/9/9/2P6/9/C8/3K5 w",
        moves: &["a1c1"],
        labels: &["idle"],
        verdicts: None,
        why: "cannon for a guarded horse is even (马炮相等): no gain",
    },
    Item {
        article: "25.3 even",
        fen: "5k3/9/9/4p4/4c4/9/9/7N1/9/3K5 w",
        moves: &["h2g4"],
        labels: &["idle"],
        verdicts: None,
        why: "horse for a guarded cannon is even: no gain",
    },
    Item {
        article: "25.3 pawn",
        fen: "5k3/9/9/9/9/4p2N1/4p4/9/9/3K5 w",
        moves: &["h4g2"],
        labels: &["idle"],
        verdicts: None,
        why: "horse for a crossed pawn that a pawn guards: one piece for pawns is no gain",
    },
    Item {
        article: "25.3 pawn",
        fen: "5k3/9/9/9/3n5/9/2p6/9/R8/3K5 w",
        moves: &["a1a3"],
        labels: &["idle"],
        verdicts: None,
        why: "rook for a crossed pawn that a horse guards loses",
    },
    Item {
        article: "25.3 pawn",
        fen: "5k3/9/6c2/9/6p2/9/6p2/9/R8/3K5 w",
        moves: &["a1a3"],
        labels: &["idle"],
        verdicts: None,
        why: "rook for a crossed pawn that the cannon guards over g5 loses",
    },
    Item {
        article: "27.1",
        fen: "5k3/9/9/9/9/9/9/9/3n5/4K4 w",
        moves: &["e0d0"],
        labels: &["idle"],
        verdicts: None,
        why: "the king alone attacks the horse: idle",
    },
    Item {
        article: "27.1",
        fen: "5k3/9/9/9/9/9/2n6/1N7/3c5/4K4 w",
        moves: &["e0e1"],
        labels: &["chase"],
        verdicts: None,
        why: "king and horse together against the cannon that the black horse guards: a chase (27.1, second sentence)",
    },
    Item {
        article: "27.1",
        fen: "5k3/9/9/9/9/9/9/9/9/R2K2n2 w",
        moves: &["d0d1"],
        labels: &["chase"],
        verdicts: None,
        why: "the king steps off rank 0 and the rook on a0 now attacks the horse on g0: the king makes another piece chase",
    },
    Item {
        article: "27.2",
        fen: "5k3/9/9/2P1n4/9/9/9/9/9/3K5 w",
        moves: &["c6d6"],
        labels: &["idle"],
        verdicts: None,
        why: "the pawn alone attacks the horse: idle",
    },
    Item {
        article: "27.2",
        fen: "5k3/9/9/9/RP2c4/9/9/9/9/3K5 w",
        moves: &["b5b6"],
        labels: &["chase"],
        verdicts: None,
        why: "the pawn's step uncovers the rook's attack on the unprotected cannon: the rook chases",
    },
    Item {
        article: "27.2",
        fen: "4rk3/9/9/4n4/3P5/9/9/9/4R4/3K5 w",
        moves: &["d5d6"],
        labels: &["chase"],
        verdicts: None,
        why: "pawn and rook together win the horse that one rook guards: other pieces with a pawn chase",
    },
    Item {
        article: "27.3",
        fen: "5k3/4a4/b3b4/9/9/3R5/6n2/7r1/4A4/3AK4 w",
        moves: &["d4e4"],
        labels: &["idle"],
        verdicts: None,
        why: "a lone rook returning to guard its king's file against rook and horse attacks the elephant on e7 only incidentally",
    },
    Item {
        article: "27.3",
        fen: "2b2k3/9/3a5/9/9/9/3R2n2/7r1/4A4/3AK4 w",
        moves: &["d3d5"],
        labels: &["idle"],
        verdicts: None,
        why: "a lone rook on its defensive post attacks the loose advisor on d7 only incidentally",
    },
    Item {
        article: "27.3",
        fen: "3k5/4a4/9/9/6b2/5R3/2n6/1r7/4A4/4KA3 w",
        moves: &["f4f5"],
        labels: &["idle"],
        verdicts: None,
        why: "a lone rook shifting on its defensive file attacks the elephant on g5 only incidentally",
    },
    Item {
        article: "27.4",
        fen: "4k4/5r3/9/9/2N6/9/9/9/9/3K5 w",
        moves: &["c5d7"],
        labels: &["check"],
        verdicts: None,
        why: "the horse checks and attacks the rook on f8: a check",
    },
    Item {
        article: "27.4",
        fen: "n3k4/9/9/9/9/9/9/9/R7R/3K5 w",
        moves: &["a1a8"],
        labels: &["mate_threat"],
        verdicts: None,
        why: "the rook threatens 车i9 mate and attacks the horse on a9: a mate threat",
    },
    Item {
        article: "27.4",
        fen: "5k3/9/9/4p4/7n1/9/9/9/4R4/3K5 w",
        moves: &["e1e5"],
        labels: &["chase"],
        verdicts: None,
        why: "the rook attacks the loose horse on h5 though the pawn on e6 can take it: a chase that also gives a piece away is a chase (seeds case 5, 12)",
    },
    Item {
        article: "28.5",
        fen: "5k3/4n4/2r6/1N7/9/9/9/9/3R5/4K4 w",
        moves: &["d1d7"],
        labels: &["exchange_offer"],
        verdicts: None,
        why: "the rooks face each other, each guarded: an even exchange offered",
    },
    Item {
        article: "28.5",
        fen: "4rk3/9/9/4n4/9/9/7N1/9/6R2/3K5 w",
        moves: &["h3g5"],
        labels: &["exchange_offer"],
        verdicts: None,
        why: "the horses face each other, each guarded: an even exchange offered",
    },
    Item {
        article: "28.5",
        fen: "5k3/4c4/9/4p4/9/9/2N6/9/4R4/3K5 w",
        moves: &["c3e4"],
        labels: &["exchange_offer"],
        verdicts: None,
        why: "the cannon may take the horse, which the rook guards: horse for cannon is equal material (同等子力)",
    },
    Item {
        article: "28.6",
        fen: "5k3/4n4/2r6/9/9/9/9/9/3R5/4K4 w",
        moves: &["d1d7"],
        labels: &["idle:offer"],
        verdicts: None,
        why: "the unprotected rook is offered to the guarded black rook",
    },
    Item {
        article: "28.6",
        fen: "4rk3/9/9/4n4/9/9/7N1/9/9/3K5 w",
        moves: &["h3g5"],
        labels: &["idle:offer"],
        verdicts: None,
        why: "the unprotected horse is offered to the guarded black horse",
    },
    Item {
        article: "28.6",
        fen: "3k5/4c4/5a3/4p4/9/C8/9/9/9/5K3 w",
        moves: &["a4e4"],
        labels: &["idle:offer"],
        verdicts: None,
        why: "the unprotected cannon is offered to the guarded black cannon over the pawn",
    },
    Item {
        article: "28.7",
        fen: "2b1kab2/4a4/9/6n2/9/5R3/7N1/9/9/4K4 w",
        moves: &["h3g5"],
        labels: &["idle:block"],
        verdicts: None,
        why: "the horse on g5 blocks the leg of the black horse's attack on the rook",
    },
    Item {
        article: "28.7",
        fen: "5k3/9/9/9/9/9/9/9/2N5r/3AK4 w",
        moves: &["d0e1"],
        labels: &["idle:block"],
        verdicts: None,
        why: "the advisor cuts the rook's attack on the horse; the king guards it",
    },
    Item {
        article: "28.7",
        fen: "5k3/9/4c4/9/2N1p4/9/9/4R4/9/3K5 w",
        moves: &["c5e6"],
        labels: &["idle:block"],
        verdicts: None,
        why: "the horse becomes a second screen and the cannon no longer attacks the rook",
    },
    Item {
        article: "28.8",
        fen: "5k3/4a4/2c6/9/9/9/9/9/R8/4K4 b",
        moves: &["c7d7", "a1d1"],
        labels: &["-", "idle:follow"],
        verdicts: None,
        why: "the rook follows the cannon that the advisor guards",
    },
    Item {
        article: "28.8",
        fen: "4rk3/9/6n2/9/9/9/9/9/R8/3K5 b",
        moves: &["g7e6", "a1a6"],
        labels: &["-", "idle:follow"],
        verdicts: None,
        why: "the rook follows the horse that the rook on e9 guards",
    },
    Item {
        article: "28.8",
        fen: "5k3/9/4b3b/9/9/9/9/9/R8/3K5 b",
        moves: &["e7g5", "a1a5"],
        labels: &["-", "idle:follow"],
        verdicts: None,
        why: "the rook follows the elephant that the other elephant guards",
    },
    Item {
        article: "26.1",
        fen: "9/1R1k5/9/9/9/9/9/9/9/4K4 b",
        moves: &["d8d9", "b8b9", "d9d8", "b9b8"],
        labels: &["idle", "check", "idle", "check"],
        verdicts: Some(("red_loses", "red_loses")),
        why: "red checks on every move, black only answers: red must vary",
    },
    Item {
        article: "26.2",
        fen: "5k3/9/9/9/8r/9/9/9/R8/3K1A3 w",
        moves: &["a1a2", "i5i4", "a2a1", "i4i5"],
        labels: &["idle", "idle", "idle", "idle"],
        verdicts: Some(("draw", "draw")),
        why: "neither side attacks: a draw",
    },
    Item {
        article: "26.4",
        fen: "5k3/9/9/9/9/R1c6/9/9/9/3K5 b",
        moves: &["c4c5", "a4a5", "c5c4", "a5a4"],
        labels: &["idle", "chase", "idle", "chase"],
        verdicts: Some(("red_loses", "red_loses")),
        why: "red chases the fleeing cannon on every move, black's moves are idle: red must vary",
    },
    Item {
        article: "26.3, 26.9",
        fen: "5k3/4a4/9/1N6r/1N7/R6n1/7n1/9/4A4/3K5 w",
        moves: &["a4a3", "i6i5", "a3a4", "i5i6"],
        labels: &["chase", "chase", "chase", "chase"],
        verdicts: Some(("draw", "draw")),
        why: "both sides chase unprotected horses with single rooks on every move: both forbidden, a draw (26.3; both graded A by 26.9)",
    },
    Item {
        article: "26.3, 26.9",
        fen: "4ck3/9/9/4p4/9/4N3r/9/7n1/R3R2n1/3K5 w",
        moves: &["a1a2", "e9e8", "a2a1", "e8e9"],
        labels: &["chase", "chase", "chase", "chase"],
        verdicts: Some(("draw", "red_loses")),
        why: "red chases unprotected horses with a single rook (A), black the horse on e4 jointly (B): both forbidden, a draw under cxa, red must vary under cxa2020",
    },
    Item {
        article: "26.1",
        fen: "5k3/9/9/9/9/9/9/9/5R3/3K5 b",
        moves: &["f9e9", "f1e1", "e9f9", "e1f1"],
        labels: &["idle", "check", "idle", "check"],
        verdicts: Some(("red_loses", "red_loses")),
        why: "the rook checks on the f- and e-files in turn, the king only steps aside: red must vary",
    },
    Item {
        article: "26.1",
        fen: "9/R2k5/9/9/9/9/9/9/9/5K3 b",
        moves: &["d8d7", "a8a7", "d7d8", "a7a8"],
        labels: &["idle", "check", "idle", "check"],
        verdicts: Some(("red_loses", "red_loses")),
        why: "the rook follows the king from rank 8 to rank 7 and back, checking every time: red must vary",
    },
    Item {
        article: "26.2",
        fen: "5k3/4a4/9/9/9/9/9/9/9/3AK4 w",
        moves: &["d0e1", "e8d9", "e1d0", "d9e8"],
        labels: &["idle", "idle", "idle", "idle"],
        verdicts: Some(("draw", "draw")),
        why: "advisors shuffle, nothing is attacked: a draw",
    },
    Item {
        article: "26.2",
        fen: "5k2c/9/9/9/9/9/9/9/9/N2K5 w",
        moves: &["a0b2", "i9i8", "b2a0", "i8i9"],
        labels: &["idle", "idle", "idle", "idle"],
        verdicts: Some(("draw", "draw")),
        why: "a horse and a cannon shuffle without attacking anything: a draw",
    },
    Item {
        article: "26.4",
        fen: "5k3/9/9/9/R3n4/9/9/9/9/3K5 b",
        moves: &["e5g4", "a5a4", "g4e5", "a4a5"],
        labels: &["idle", "chase", "idle", "chase"],
        verdicts: Some(("red_loses", "red_loses")),
        why: "the rook follows the fleeing horse along ranks 4 and 5: red chases on every move, black only flees",
    },
    Item {
        article: "26.4",
        fen: "3k5/9/9/2c5R/9/9/9/9/9/5K3 b",
        moves: &["c6c7", "i6i7", "c7c6", "i7i6"],
        labels: &["idle", "chase", "idle", "chase"],
        verdicts: Some(("red_loses", "red_loses")),
        why: "the rook follows the fleeing cannon: red chases on every move, black only flees",
    },
    Item {
        article: "26.3, 26.9",
        fen: "5k3/7n1/9/8C/4C4/4c4/c8/9/1N7/3K5 w",
        moves: &["b1c3", "h8g6", "c3b1", "g6h8"],
        labels: &["chase", "chase", "chase", "chase"],
        verdicts: Some(("draw", "draw")),
        why: "each horse attacks a loose cannon on every move: both forbidden, a draw (both A under 26.9)",
    },
    Item {
        article: "27.3",
        fen: "5k3/4a4/b3b4/9/9/3R5/9/7r1/4A4/3AK4 w",
        moves: &["d4e4"],
        labels: &["chase"],
        verdicts: None,
        why: "rook against rook: red is not the outnumbered, defending side, so the attack on the loose elephant is a chase",
    },
    Item {
        article: "29.1 exchange, root taken",
        fen: "5k3/9/r1n6/4c4/2P6/9/7N1/2C6/9/3K5 w",
        moves: &["h3g5"],
        labels: &["chase"],
        verdicts: None,
        why: "炮c2 takes the horse on c7 (the rook retakes), and the cannon on e6 it guarded falls to the horse: the complete exchange wins a cannon",
    },
    Item {
        article: "29.1 exchange, root taken",
        fen: "4k4/9/4b4/9/6n2/4c4/6P2/9/1N4C2/3K5 w",
        moves: &["b1c3"],
        labels: &["chase"],
        verdicts: None,
        why: "the horse attacks the cannon on e4, whose root is the horse on g5; 炮g1 takes that horse over the pawn, the elephant retakes, and the cannon falls",
    },
    Item {
        article: "29.1 exchange, root taken",
        fen: "5k3/9/r1n6/4c4/2P3N2/9/9/7C1/9/3K5 w",
        moves: &["h2c2"],
        labels: &["chase"],
        verdicts: None,
        why: "the cannon comes behind the screen on c5 onto the horse that alone guards the cannon the red horse attacks: cannon for horse, then the cannon is won",
    },
    Item {
        article: "29.1 exchange, root taken",
        fen: "5k3/9/r1n6/4c4/2P3N2/2B6/9/2C6/9/3K5 w",
        moves: &["c4e2"],
        labels: &["chase"],
        verdicts: None,
        why: "the elephant opens the c-file: the cannon takes the root of the cannon on e6, and the exchange ends with the red horse taking it",
    },
    Item {
        article: "29.1 exchange, root taken",
        fen: "5k3/4r4/r1n6/4c4/2P6/9/7N1/2C6/9/3K5 w",
        moves: &["h3g5"],
        labels: &["idle"],
        verdicts: None,
        why: "the rook on e8 also guards the cannon on e6: taking the horse on c7 takes only one of its roots, and the exchange wins nothing (25.3)",
    },
    Item {
        article: "28.5, 29.1 checks",
        fen: "4k4/9/3n5/1r7/9/4P4/5N3/9/9/5K3 w",
        moves: &["f3e5"],
        labels: &["exchange_offer"],
        verdicts: None,
        why: "马xd7+ would fork the rook on b6, but black, to move, trades the d7 horse for the guarded horse on e5: an exchange offered (兑), not a chase",
    },
    Item {
        article: "28.5, 29.1 checks",
        fen: "4k4/9/9/9/n3r4/9/9/9/R8/3A1K3 w",
        moves: &["a1e1"],
        labels: &["exchange_offer"],
        verdicts: None,
        why: "车xe5+ and 车xa5 would win the horse, but the rook on e5 takes the guarded rook on e1 first: the rooks are offered for exchange",
    },
    Item {
        article: "28.5, 29.1 checks",
        fen: "R8/2r2k3/9/9/9/9/P1n6/9/9/C3K4 w",
        moves: &["a9a8"],
        labels: &["exchange_offer"],
        verdicts: None,
        why: "车xc8+ would win the horse on c3 down the file, but the rook on c8 may take the rook the cannon guards: an even exchange, after which nothing is won",
    },
    Item {
        article: "28.5, 29.1 checks",
        fen: "4k4/9/3n5/1r7/4N4/9/9/7N1/9/5K3 w",
        moves: &["h2g4"],
        labels: &["exchange_offer"],
        verdicts: None,
        why: "the horse now guards the horse on e5 that faces the black horse: the line 马xd7+ and 马xb6 rests on a horse that trades itself off first (兑)",
    },
    Item {
        article: "28.5, 29.1 checks",
        fen: "R8/2r2k1n1/9/9/R8/9/9/9/9/4K4 w",
        moves: &["a5a8"],
        labels: &["chase"],
        verdicts: None,
        why: "the pinned rook may trade itself for the rook on a8, but 车a9xa8 retakes with check and the horse on h8 falls all the same: the trade is no way out",
    },
    Item {
        article: "27.1, 27.2 follow-up",
        fen: "2b2k3/9/4c4/4p4/9/7N1/9/4n4/4K4/9 w",
        moves: &["h4g6"],
        labels: &["idle"],
        verdicts: None,
        why: "马xe7 is cannon for horse; only the king could then take the horse on e2, and the king taking a piece by itself is idle (27.1)",
    },
    Item {
        article: "27.1, 27.2 follow-up",
        fen: "5k3/9/r1n6/4c4/2P1P4/9/9/7C1/9/3K5 w",
        moves: &["h2c2"],
        labels: &["idle"],
        verdicts: None,
        why: "taking the root on c7 leaves the cannon on e6 to the pawn on e5 alone: a pawn taking a piece by itself is idle (27.2)",
    },
    Item {
        article: "27.1, 27.2 follow-up",
        fen: "3a5/4ck3/9/9/3nP2N1/9/9/9/4A4/4K4 w",
        moves: &["h5g7"],
        labels: &["idle"],
        verdicts: None,
        why: "马xe8 frees the pinned pawn on e5 to take the horse on d5, an even trade first and then the pawn's own capture: idle (27.2)",
    },
    Item {
        article: "27.1, 27.2 follow-up",
        fen: "9/4kc3/5a3/4p4/9/7N1/9/9/4Kn3/9 w",
        moves: &["h4g6"],
        labels: &["idle"],
        verdicts: None,
        why: "马xf8 is horse for cannon; the horse on f1 is then the king's alone to take: the king's own capture is idle (27.1)",
    },
    Item {
        article: "27.1, 27.2 follow-up",
        fen: "5k3/2c6/9/2p6/9/9/2n3P2/9/3cK4/8C w",
        moves: &["i0i3"],
        labels: &["idle"],
        verdicts: None,
        why: "炮xc3 takes the horse that guards d1, the cannon on c8 retakes, and only the red king could take the cannon on d1: idle (27.1)",
    },
];

/// The label of a classified move, with the kind of idle move after a colon.
fn label(info: &MoveInfo) -> String {
    match (info.class, info.detail) {
        (MoveClass::Idle, Detail::Idle(IdleKind::ExchangeOffer)) => "exchange_offer".to_string(),
        (MoveClass::Idle, Detail::Idle(kind @ (IdleKind::Offer | IdleKind::Block | IdleKind::Follow))) => {
            format!("idle:{}", kind.name())
        }
        (c, _) => c.name().to_string(),
    }
}

/// Whether `got` is the label `want` asks for (`idle` accepts any kind of idle move).
fn agrees(want: &str, got: &str) -> bool {
    want == "-" || want == got || (want == "idle" && got.starts_with("idle"))
}

fn judge(start: Position, moves: &[Move], rules: RuleSet) -> Judgement {
    let mut positions = vec![start];
    for &m in moves {
        let next = positions.last().expect("a position").after(m);
        positions.push(next);
    }
    try_judge(&positions, moves, 0, rules).expect("a legal line")
}

fn swap(verdict: &str) -> &str {
    match verdict {
        "red_loses" => "black_loses",
        "black_loses" => "red_loses",
        other => other,
    }
}

/// The differences between what the item asks for and what the judge says, for the
/// position as given, mirrored and colour-swapped.
fn check(item: &Item) -> Vec<String> {
    let start = Position::from_fen(item.fen)
        .unwrap_or_else(|e| panic!("{}: bad FEN {}: {e}", item.article, item.fen));
    let mut moves = Vec::new();
    let mut pos = start;
    for text in item.moves {
        let m = parse_move(&pos, text)
            .unwrap_or_else(|e| panic!("{} {}: {text} is not legal: {e}", item.article, item.fen));
        assert!(pos.is_legal(m), "{} {}: {text} is not legal", item.article, item.fen);
        pos = pos.after(m);
        moves.push(m);
    }
    let mirrored: Vec<Move> = moves.iter().map(|m| m.mirror()).collect();
    let swapped: Vec<Move> = moves.iter().map(|m| m.flip()).collect();
    let swapped_start = Position::from_fen(&colour_swapped_fen(item.fen)).expect("swapped FEN");
    let mut out = Vec::new();
    for (twin, start, moves, colours_swapped) in [
        ("as given", start, &moves, false),
        ("mirrored", start.mirror(), &mirrored, false),
        ("colour-swapped", swapped_start, &swapped, true),
    ] {
        let j = judge(start, moves, RuleSet::Cxa2020);
        let got: Vec<String> = j.moves.iter().map(label).collect();
        let labels_ok = item.labels.iter().zip(&got).all(|(w, g)| agrees(w, g));
        let mut verdicts_ok = true;
        let mut verdicts = String::new();
        if let Some((cxa, cxa2020)) = item.verdicts {
            let v = |rules| {
                let r: GameResult = judge(start, moves, rules).outcome.result;
                let name = r.verdict_name();
                if colours_swapped { swap(name).to_string() } else { name.to_string() }
            };
            let (a, b) = (v(RuleSet::Cxa), v(RuleSet::Cxa2020));
            verdicts_ok = a == cxa && b == cxa2020;
            verdicts = format!("; verdicts {a} {b} (text: {cxa} {cxa2020})");
        }
        if !labels_ok || !verdicts_ok {
            out.push(format!(
                "{} [{twin}] {} {:?}: text {:?}, judge {got:?}{verdicts} — {}",
                item.article, item.fen, item.moves, item.labels, item.why
            ));
        }
    }
    out
}

#[test]
fn the_articles_positions_are_judged_as_the_text_implies() {
    let mut per_article: Vec<(&str, usize)> = Vec::new();
    for item in ITEMS {
        match per_article.iter_mut().find(|(a, _)| *a == item.article) {
            Some((_, n)) => *n += 1,
            None => per_article.push((item.article, 1)),
        }
    }
    let mut failures = Vec::new();
    for item in ITEMS {
        failures.extend(check(item));
    }
    eprintln!(
        "{} positions over {} articles and sub-clauses, each also mirrored and colour-swapped",
        ITEMS.len(),
        per_article.len()
    );
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} judgements differ from the text", failures.len());
}

#[test]
fn every_article_has_three_positions() {
    let mut per_article: Vec<(&str, usize)> = Vec::new();
    for item in ITEMS {
        match per_article.iter_mut().find(|(a, _)| *a == item.article) {
            Some((_, n)) => *n += 1,
            None => per_article.push((item.article, 1)),
        }
    }
    let thin: Vec<String> =
        per_article.iter().filter(|(_, n)| *n < 3).map(|(a, n)| format!("{a} ({n})")).collect();
    assert!(thin.is_empty(), "articles with fewer than three positions: {thin:?}");
}
