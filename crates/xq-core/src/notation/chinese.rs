//! Chinese notation: 炮二平五, 马8进7.
//!
//! Four characters: the piece, the file it stands on, the action (进 advance, 退 retreat,
//! 平 traverse) and a number (steps for 帅车炮兵 moving along the file, otherwise the
//! destination file). Files are counted from the mover's right (see
//! [`super::descriptive`]). Red writes files and steps in Chinese numerals 一…九, black in
//! digits 1…9, and the piece characters differ by side: red 帅仕相马车炮兵, black 将士象马车炮卒.
//!
//! Several pieces of one kind on one file are named by their place from the mover's front,
//! in place of the file, following the competition rules' 记录 conventions:
//!
//! | on the file | written (canonical) | also accepted |
//! |---|---|---|
//! | two | 前车平四, 后马进7 | 後 |
//! | three pawns | 前兵, 中兵, 后兵 | 一兵 二兵 三兵 |
//! | four or five pawns | 一兵, 二兵, 三兵, 四兵, 五兵 (from the front) | 前兵 for 一, 后兵 for the last, digits `2卒` |
//! | two files each with several pawns | the file replaces the piece: 前七进一, 后3平4 | 前兵七进一 |
//!
//! Advisors and elephants are always written with their file (仕六进五, 相三退五) even when two
//! stand on one file: they can only move in opposite directions, so the move is unique.
//!
//! Input is tolerant: traditional and variant characters (帥 將 傌 馬 俥 車 砲 包 進 後),
//! ASCII, full-width or Chinese numerals for either side, and the piece character's colour is
//! not checked (many records write 士 for both sides); the side to move decides. Output is
//! the canonical simplified form.

use super::descriptive::{Action, DescriptiveMove, Origin, ResolveError, Tandem};
use crate::position::Position;
use crate::types::{Color, Move, Piece, PieceKind};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// Chinese records use 前/中/后 up to three on a file and number from four.
const NUMBERED_FROM: usize = 4;

const NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// A Chinese move as written, not yet checked against a position.
///
/// ```
/// use xq_core::{Position, notation::ChineseMove};
/// let pos = Position::startpos();
/// let m: ChineseMove = "炮二平五".parse().unwrap();
/// assert_eq!(m.to_move(&pos).unwrap().iccs(), "h2e2");
/// assert_eq!(m.to_string(), "炮二平五");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChineseMove {
    /// The description.
    pub description: DescriptiveMove,
    /// Whose spelling to write (piece characters and numerals). When parsing it is guessed
    /// from the numerals (digits: black) and piece characters (将象卒: black); it never affects
    /// which move the text names.
    pub color: Color,
}

/// Why text is not a Chinese move.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ChineseError {
    /// The text does not have the shape of a Chinese move.
    #[error("malformed Chinese move {text:?}: {why}")]
    Malformed {
        /// The text as given.
        text: String,
        /// What is wrong.
        why: &'static str,
    },
}

/// A piece character and the colour it implies, if any.
fn piece(c: char) -> Option<(PieceKind, Option<Color>)> {
    use PieceKind::*;
    let (red, black) = (Some(Color::Red), Some(Color::Black));
    Some(match c {
        '帅' | '帥' => (King, red),
        '将' | '將' => (King, black),
        '仕' | '士' => (Advisor, None),
        '相' => (Elephant, red),
        '象' => (Elephant, black),
        '马' | '馬' => (Horse, None),
        '傌' => (Horse, red),
        '车' | '車' => (Rook, None),
        '俥' => (Rook, red),
        '炮' | '砲' | '包' => (Cannon, None),
        '兵' => (Pawn, red),
        '卒' => (Pawn, black),
        _ => return None,
    })
}

/// A number 1–9 and whether it was written as a digit (ASCII or full-width), black's style.
fn numeral(c: char) -> Option<(u8, bool)> {
    if let Some(i) = NUMERALS.iter().position(|&n| n == c) {
        return u8::try_from(i + 1).ok().map(|n| (n, false));
    }
    let ascii = match u32::from(c) {
        code @ 0xFF10..=0xFF19 => char::from_u32(code - 0xFF10 + u32::from(b'0'))?,
        _ => c,
    };
    let d = u8::try_from(ascii.to_digit(10)?).ok()?;
    (1..=9).contains(&d).then_some((d, true))
}

/// 一…九 for 1–9 (other values, which no parsed move holds, as digits).
fn chinese_numeral(n: u8) -> String {
    NUMERALS.get(usize::from(n).wrapping_sub(1)).map_or_else(|| n.to_string(), |c| c.to_string())
}

fn action(c: char) -> Option<Action> {
    match c {
        '进' | '進' => Some(Action::Advance),
        '退' => Some(Action::Retreat),
        '平' => Some(Action::Traverse),
        _ => None,
    }
}

fn tandem(c: char) -> Option<Tandem> {
    match c {
        '前' => Some(Tandem::Front),
        '中' => Some(Tandem::Middle),
        '后' | '後' => Some(Tandem::Rear),
        _ => numeral(c).filter(|&(n, _)| n <= 5).map(|(n, _)| Tandem::Nth(n)),
    }
}

impl FromStr for ChineseMove {
    type Err = ChineseError;

    fn from_str(s: &str) -> Result<ChineseMove, ChineseError> {
        let bad = |why| ChineseError::Malformed { text: s.to_string(), why };
        let c: Vec<char> = s.trim().chars().collect();
        let [head @ .., act, num] = c.as_slice() else { return Err(bad("too short")) };
        let action = action(*act).ok_or_else(|| bad("expected 进, 退 or 平 before the number"))?;
        let number = numeral(*num).ok_or_else(|| bad("expected a number 1-9 at the end"))?.0;
        let file = |f: char| numeral(f).map(|(n, _)| n).ok_or_else(|| bad("expected a file 1-9"));
        // The piece character is absent only in 前七进一, where the file stands in for it.
        let (piece_char, origin) = match *head {
            [p, f] if piece(p).is_some() => (Some(p), Origin::File(file(f)?)),
            [t, p] => {
                let which = tandem(t).ok_or_else(|| bad("expected a piece or 前, 中, 后, 一-五 first"))?;
                match numeral(p) {
                    Some((f, _)) => (None, Origin::Tandem { which, file: Some(f) }),
                    None => (Some(p), Origin::Tandem { which, file: None }),
                }
            }
            [t, p, f] => {
                let which = tandem(t).ok_or_else(|| bad("expected 前, 中, 后 or 一-五 first"))?;
                (Some(p), Origin::Tandem { which, file: Some(file(f)?) })
            }
            _ => return Err(bad("wrong length")),
        };
        let (kind, piece_color) = match piece_char {
            None => (PieceKind::Pawn, None),
            Some(p) => {
                piece(p).ok_or_else(|| bad("expected a piece character 帅仕相马车炮兵 or 将士象马车炮卒"))?
            }
        };
        let digits = c.iter().any(|&ch| numeral(ch).is_some_and(|(_, digit)| digit));
        let color = piece_color.unwrap_or(if digits { Color::Black } else { Color::Red });
        Ok(ChineseMove { description: DescriptiveMove { kind, origin, action, number }, color })
    }
}

impl fmt::Display for ChineseMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.description;
        let piece = Piece::new(self.color, d.kind).chinese();
        let num = |n: u8| match self.color {
            Color::Red => chinese_numeral(n),
            Color::Black => n.to_string(),
        };
        match d.origin {
            Origin::File(file) => write!(f, "{piece}{}", num(file))?,
            Origin::Tandem { which, file } => {
                match which {
                    Tandem::Front => f.write_str("前")?,
                    Tandem::Middle => f.write_str("中")?,
                    Tandem::Rear => f.write_str("后")?,
                    // Chinese numerals whichever the side: 二卒 reads as a rank, not a file.
                    Tandem::Nth(n) => f.write_str(&chinese_numeral(n))?,
                }
                match file {
                    Some(file) if d.kind == PieceKind::Pawn => f.write_str(&num(file))?,
                    Some(file) => write!(f, "{piece}{}", num(file))?,
                    None => write!(f, "{piece}")?,
                }
            }
        }
        let action = match d.action {
            Action::Advance => '进',
            Action::Retreat => '退',
            Action::Traverse => '平',
        };
        write!(f, "{action}{}", num(d.number))
    }
}

impl ChineseMove {
    /// The canonical Chinese description of `m` in `pos`, spelled for the moving piece's
    /// side, or `None` if no piece stands on its origin.
    pub fn describe(pos: &Position, m: Move) -> Option<ChineseMove> {
        let color = pos.piece_at(m.from())?.color;
        DescriptiveMove::describe(pos, m, NUMBERED_FROM).map(|description| ChineseMove { description, color })
    }

    /// The one legal move of the side to move in `pos` that this text names.
    pub fn to_move(&self, pos: &Position) -> Result<Move, ResolveError> {
        self.description.resolve(pos, || self.to_string())
    }
}

/// Writes `m` (a move of the piece on its origin, normally a legal move of `pos`) in
/// canonical simplified Chinese notation. If the origin is empty there is nothing to describe
/// and the ICCS coordinates are returned instead.
///
/// ```
/// use xq_core::{Position, notation::{chinese, parse_move}};
/// let pos = Position::startpos();
/// assert_eq!(chinese(&pos, parse_move(&pos, "h2e2").unwrap()), "炮二平五");
/// ```
pub fn chinese(pos: &Position, m: Move) -> String {
    ChineseMove::describe(pos, m).map_or_else(|| m.iccs(), |c| c.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(fen: &str, text: &str) -> Result<String, ResolveError> {
        let pos = Position::from_fen(fen).unwrap();
        text.parse::<ChineseMove>().unwrap().to_move(&pos).map(|m| m.iccs())
    }

    fn write(fen: &str, iccs: &str) -> String {
        let pos = Position::from_fen(fen).unwrap();
        let m = iccs.parse::<super::super::IccsMove>().unwrap().to_move(&pos).unwrap();
        chinese(&pos, m)
    }

    const BLACK: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1";

    #[test]
    fn opening_moves_both_sides() {
        let start = crate::START_FEN;
        assert_eq!(play(start, "炮二平五").unwrap(), "h2e2");
        assert_eq!(play(start, "马二进三").unwrap(), "h0g2");
        assert_eq!(play(start, "傌二進三").unwrap(), "h0g2");
        assert_eq!(play(start, "車一進一").unwrap(), "i0i1");
        assert_eq!(play(start, "相三进五").unwrap(), "g0e2");
        assert_eq!(play(start, "仕四进五").unwrap(), "f0e1");
        assert_eq!(play(start, "帥五進一").unwrap(), "e0e1");
        assert_eq!(play(start, "兵七进一").unwrap(), "c3c4");
        assert_eq!(play(start, "砲2平5").unwrap(), "h2e2");
        assert_eq!(write(start, "h2e2"), "炮二平五");
        assert_eq!(write(start, "e0e1"), "帅五进一");
        assert_eq!(write(start, "g0e2"), "相三进五");
        assert_eq!(play(BLACK, "马8进7").unwrap(), "h9g7");
        assert_eq!(play(BLACK, "馬８進７").unwrap(), "h9g7");
        assert_eq!(play(BLACK, "包8平5").unwrap(), "h7e7");
        assert_eq!(play(BLACK, "將5进1").unwrap(), "e9e8");
        assert_eq!(play(BLACK, "象3进5").unwrap(), "c9e7");
        assert_eq!(play(BLACK, "士4进5").unwrap(), "d9e8");
        assert_eq!(play(BLACK, "卒1进1").unwrap(), "a6a5");
        assert_eq!(write(BLACK, "h9g7"), "马8进7");
        assert_eq!(write(BLACK, "a6a5"), "卒1进1");
        assert_eq!(write(BLACK, "c9e7"), "象3进5");
        assert_eq!(write(BLACK, "i9i7"), "车9进2");
        assert!(matches!(play(BLACK, "将5退1"), Err(ResolveError::NoMove(_))));
    }

    #[test]
    fn two_on_a_file() {
        let fen = "3k5/9/9/9/3r5/4R4/9/9/4R4/5K3 w - - 0 1";
        assert_eq!(write(fen, "e4c4"), "前车平七");
        assert_eq!(write(fen, "e1e3"), "后车进二");
        assert_eq!(play(fen, "前車平七").unwrap(), "e4c4");
        assert_eq!(play(fen, "後俥進二").unwrap(), "e1e3");
        assert!(matches!(play(fen, "车五平六"), Err(ResolveError::Ambiguous { .. })));
        let fen = "3k5/3r5/9/9/3r5/9/9/9/9/4K4 b - - 0 1";
        assert_eq!(write(fen, "d5e5"), "前车平5");
        assert_eq!(write(fen, "d8e8"), "后车平5");
        assert_eq!(play(fen, "后车平5").unwrap(), "d8e8");
    }

    #[test]
    fn three_to_five_pawns_on_a_file() {
        let fen = "3k5/9/2P6/2P6/2P3P2/9/9/9/9/4K4 w - - 0 1";
        assert_eq!(write(fen, "c7b7"), "前兵平八");
        assert_eq!(write(fen, "c6d6"), "中兵平六");
        assert_eq!(write(fen, "c5b5"), "后兵平八");
        assert_eq!(write(fen, "g5g6"), "兵三进一");
        assert_eq!(play(fen, "二兵平六").unwrap(), "c6d6");
        assert_eq!(play(fen, "中兵平六").unwrap(), "c6d6");
        // Black: four pawns on file 5, counted from black's front (the lower rank).
        let fen = "3k5/9/9/9/9/4p4/4p4/4p4/4p4/5K3 b - - 0 1";
        assert_eq!(write(fen, "e1d1"), "一卒平4");
        assert_eq!(write(fen, "e2f2"), "二卒平6");
        assert_eq!(write(fen, "e4d4"), "四卒平4");
        assert_eq!(play(fen, "前卒平4").unwrap(), "e1d1");
        assert_eq!(play(fen, "后卒平4").unwrap(), "e4d4");
        assert_eq!(play(fen, "4卒平6").unwrap(), "e4f4");
        assert_eq!(play(fen, "四卒平6").unwrap(), "e4f4");
        assert!(matches!(play(fen, "中卒平6"), Err(ResolveError::NoMove(_))));
    }

    #[test]
    fn two_files_with_several_pawns() {
        let fen = "3k5/9/2P3P2/2P3P2/9/9/9/9/9/4K4 w - - 0 1";
        assert_eq!(write(fen, "c7d7"), "前七平六");
        assert_eq!(write(fen, "g6h6"), "后三平二");
        assert_eq!(play(fen, "前七平六").unwrap(), "c7d7");
        assert_eq!(play(fen, "前兵七平六").unwrap(), "c7d7");
        assert!(matches!(play(fen, "前兵进一"), Err(ResolveError::Ambiguous { .. })));
        let fen = "3k5/9/9/9/9/2p3p2/2p3p2/2p6/9/4K4 b - - 0 1";
        assert_eq!(write(fen, "c2b2"), "前3平2");
        assert_eq!(write(fen, "c3b3"), "中3平2");
        assert_eq!(write(fen, "g3h3"), "前7平8");
        assert_eq!(write(fen, "g4h4"), "后7平8");
        assert_eq!(play(fen, "后7平8").unwrap(), "g4h4");
    }

    #[test]
    fn elephants_on_one_file() {
        // Red elephants on c0 and c4 (file 7): one can only advance, the other only retreat.
        let fen = "3k5/9/9/9/9/2B6/9/9/9/2B1K4 w - - 0 1";
        assert_eq!(write(fen, "c0e2"), "相七进五");
        assert_eq!(write(fen, "c4e2"), "相七退五");
        assert_eq!(play(fen, "相七进五").unwrap(), "c0e2");
        assert_eq!(play(fen, "相七退九").unwrap(), "c4a2");
    }

    #[test]
    fn malformed_text() {
        for bad in [
            "",
            "炮",
            "炮二平",
            "炮二平十",
            "炮零平五",
            "马二跳三",
            "王五进一",
            "前七八进一",
            "六兵进一",
            "C2=5",
            "h2e2",
        ] {
            assert!(matches!(bad.parse::<ChineseMove>(), Err(ChineseError::Malformed { .. })), "{bad}");
        }
    }
}
