//! The typed vocabulary of the board: colours, piece kinds, pieces, squares and moves.

use std::fmt;

/// One of the two sides. Red moves first and sits on ranks 0–4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// 红方, moves first, uppercase in FEN.
    Red = 0,
    /// 黑方, lowercase in FEN.
    Black = 1,
}

impl Color {
    /// Both colours, red first.
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    /// The other side.
    #[inline]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }

    /// 0 for red, 1 for black; for indexing per-colour tables.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `"red"` or `"black"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Black => "black",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The seven kinds of pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceKind {
    /// 帅/将, FEN `K`.
    King = 0,
    /// 仕/士, FEN `A`.
    Advisor = 1,
    /// 相/象, FEN `B` (also `E` on input).
    Elephant = 2,
    /// 马, FEN `N` (also `H` on input).
    Horse = 3,
    /// 车, FEN `R`.
    Rook = 4,
    /// 炮, FEN `C`.
    Cannon = 5,
    /// 兵/卒, FEN `P`.
    Pawn = 6,
}

impl PieceKind {
    /// All kinds, in index order.
    pub const ALL: [PieceKind; 7] = [
        PieceKind::King,
        PieceKind::Advisor,
        PieceKind::Elephant,
        PieceKind::Horse,
        PieceKind::Rook,
        PieceKind::Cannon,
        PieceKind::Pawn,
    ];

    /// 0..7, for indexing per-kind tables.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind with the given index, if any.
    #[inline]
    pub const fn from_index(i: usize) -> Option<PieceKind> {
        if i < 7 { Some(Self::ALL[i]) } else { None }
    }

    /// Uppercase FEN letter (`K A B N R C P`).
    pub const fn fen_char(self) -> char {
        match self {
            PieceKind::King => 'K',
            PieceKind::Advisor => 'A',
            PieceKind::Elephant => 'B',
            PieceKind::Horse => 'N',
            PieceKind::Rook => 'R',
            PieceKind::Cannon => 'C',
            PieceKind::Pawn => 'P',
        }
    }

    /// Parses a FEN letter of either case; accepts `H` for horse and `E` for elephant.
    pub fn from_fen_char(c: char) -> Option<PieceKind> {
        Some(match c.to_ascii_uppercase() {
            'K' => PieceKind::King,
            'A' => PieceKind::Advisor,
            'B' | 'E' => PieceKind::Elephant,
            'N' | 'H' => PieceKind::Horse,
            'R' => PieceKind::Rook,
            'C' => PieceKind::Cannon,
            'P' => PieceKind::Pawn,
            _ => return None,
        })
    }

    /// The most of this kind one side can have on the board.
    pub const fn max_count(self) -> u8 {
        match self {
            PieceKind::King => 1,
            PieceKind::Pawn => 5,
            _ => 2,
        }
    }

    /// English name, lowercase.
    pub const fn name(self) -> &'static str {
        match self {
            PieceKind::King => "king",
            PieceKind::Advisor => "advisor",
            PieceKind::Elephant => "elephant",
            PieceKind::Horse => "horse",
            PieceKind::Rook => "rook",
            PieceKind::Cannon => "cannon",
            PieceKind::Pawn => "pawn",
        }
    }
}

/// A piece: a kind and a colour. Stored as one byte `1 + colour * 7 + kind`, so that
/// a board square holding `0` is empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece {
    /// Whose piece.
    pub color: Color,
    /// What piece.
    pub kind: PieceKind,
}

impl Piece {
    /// Builds a piece.
    #[inline]
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece { color, kind }
    }

    /// The one-byte code used on the board (1..=14).
    #[inline]
    pub const fn code(self) -> u8 {
        1 + self.color as u8 * 7 + self.kind as u8
    }

    /// Decodes a board byte; `0` and anything above 14 are `None`.
    #[inline]
    pub const fn from_code(code: u8) -> Option<Piece> {
        if code == 0 || code > 14 {
            return None;
        }
        let c = code - 1;
        let color = if c >= 7 { Color::Black } else { Color::Red };
        match PieceKind::from_index((c % 7) as usize) {
            Some(kind) => Some(Piece { color, kind }),
            None => None,
        }
    }

    /// FEN letter: uppercase for red, lowercase for black.
    pub const fn fen_char(self) -> char {
        let c = self.kind.fen_char();
        match self.color {
            Color::Red => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }

    /// Parses a FEN letter (case gives the colour; `H`/`E` accepted).
    pub fn from_fen_char(c: char) -> Option<Piece> {
        let kind = PieceKind::from_fen_char(c)?;
        let color = if c.is_ascii_uppercase() { Color::Red } else { Color::Black };
        Some(Piece { color, kind })
    }

    /// The Chinese character for this piece (帅仕相马车炮兵 for red, 将士象马车炮卒 for black).
    pub const fn chinese(self) -> char {
        match (self.color, self.kind) {
            (Color::Red, PieceKind::King) => '帅',
            (Color::Red, PieceKind::Advisor) => '仕',
            (Color::Red, PieceKind::Elephant) => '相',
            (Color::Red, PieceKind::Pawn) => '兵',
            (Color::Black, PieceKind::King) => '将',
            (Color::Black, PieceKind::Advisor) => '士',
            (Color::Black, PieceKind::Elephant) => '象',
            (Color::Black, PieceKind::Pawn) => '卒',
            (_, PieceKind::Horse) => '马',
            (_, PieceKind::Rook) => '车',
            (_, PieceKind::Cannon) => '炮',
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.fen_char())
    }
}

/// A point of the board: file `a`–`i` (0–8) from red's left, rank 0–9 from red's side.
/// The index is `rank * 9 + file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Number of points on the board.
    pub const COUNT: usize = 90;

    /// Builds a square from file (0–8) and rank (0–9); `None` off the board.
    #[inline]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < 9 && rank < 10 { Some(Square(rank * 9 + file)) } else { None }
    }

    /// Builds a square from an index 0..90; `None` otherwise.
    #[inline]
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < 90 { Some(Square(index as u8)) } else { None }
    }

    /// Builds a square from an index already known to be below 90.
    #[inline]
    pub(crate) const fn from_index_unchecked(index: u8) -> Square {
        debug_assert!(index < 90);
        Square(index)
    }

    /// The index 0..90.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File 0–8 (`a`–`i`).
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 % 9
    }

    /// Rank 0–9, red's back rank is 0.
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 / 9
    }

    /// The same point seen from the other side (rotated 180°).
    #[inline]
    pub const fn flip(self) -> Square {
        Square(89 - self.0)
    }

    /// Mirrored left–right (file `a` ↔ `i`).
    #[inline]
    pub const fn mirror(self) -> Square {
        Square(self.rank() * 9 + (8 - self.file()))
    }

    /// Mirrored top–bottom (rank 0 ↔ 9); maps red's half onto black's.
    #[inline]
    pub const fn flip_rank(self) -> Square {
        Square((9 - self.rank()) * 9 + self.file())
    }

    /// Whether this point lies on `color`'s own half (red: ranks 0–4).
    #[inline]
    pub const fn on_own_side(self, color: Color) -> bool {
        match color {
            Color::Red => self.rank() <= 4,
            Color::Black => self.rank() >= 5,
        }
    }

    /// Whether this point is inside `color`'s palace (files d–f, three ranks at its end).
    #[inline]
    pub const fn in_palace(self, color: Color) -> bool {
        let f = self.file();
        let r = self.rank();
        f >= 3
            && f <= 5
            && match color {
                Color::Red => r <= 2,
                Color::Black => r >= 7,
            }
    }

    /// Parses `"e0"` style coordinates.
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let file = b[0].wrapping_sub(b'a');
        let rank = b[1].wrapping_sub(b'0');
        Square::new(file, rank)
    }

    /// All 90 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..90u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank())
    }
}

/// A move from one point to another. It carries no piece: it is meaningful against a position.
/// Packed in 16 bits (`from | to << 8`) so move lists stay small.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(u16);

impl Move {
    /// Builds a move.
    #[inline]
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from.0 as u16 | (to.0 as u16) << 8)
    }

    /// Where the moving piece stands.
    #[inline]
    pub const fn from(self) -> Square {
        Square((self.0 & 0xff) as u8)
    }

    /// Where it goes.
    #[inline]
    pub const fn to(self) -> Square {
        Square((self.0 >> 8) as u8)
    }

    /// The raw 16-bit value.
    #[inline]
    pub const fn raw(self) -> u16 {
        self.0
    }

    /// The move seen from the other side (both squares rotated 180°).
    #[inline]
    pub const fn flip(self) -> Move {
        Move::new(self.from().flip(), self.to().flip())
    }

    /// The move mirrored left–right.
    #[inline]
    pub const fn mirror(self) -> Move {
        Move::new(self.from().mirror(), self.to().mirror())
    }

    /// The move with both squares mirrored top–bottom.
    #[inline]
    pub const fn flip_rank(self) -> Move {
        Move::new(self.from().flip_rank(), self.to().flip_rank())
    }

    /// ICCS coordinates, e.g. `h2e2`.
    pub fn iccs(self) -> String {
        format!("{}{}", self.from(), self.to())
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({}{})", self.from(), self.to())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_codes_round_trip() {
        for color in Color::ALL {
            for kind in PieceKind::ALL {
                let p = Piece::new(color, kind);
                assert_eq!(Piece::from_code(p.code()), Some(p));
                assert_eq!(Piece::from_fen_char(p.fen_char()), Some(p));
            }
        }
        assert_eq!(Piece::from_code(0), None);
        assert_eq!(Piece::from_code(15), None);
    }

    #[test]
    fn square_geometry() {
        let e0 = Square::parse("e0").unwrap();
        assert_eq!(e0.to_string(), "e0");
        assert!(e0.in_palace(Color::Red));
        assert!(!e0.in_palace(Color::Black));
        assert_eq!(e0.flip().to_string(), "e9");
        assert_eq!(Square::parse("a3").unwrap().mirror().to_string(), "i3");
        assert!(Square::parse("j0").is_none());
        assert!(Square::parse("a").is_none());
        let m = Move::new(Square::parse("h2").unwrap(), Square::parse("e2").unwrap());
        assert_eq!(m.iccs(), "h2e2");
        assert_eq!(m.flip().iccs(), "b7e7");
    }
}
