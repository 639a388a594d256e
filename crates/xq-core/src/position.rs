//! Unvalidated setups, validated positions, legal move generation and make/unmake.

use crate::movelist::MoveList;
use crate::tables::{
    ADVISOR_MOVES, DIAG_NEIGHBOURS, EAST, ELEPHANT_MOVES, HORSE_ATTACKERS, HORSE_MOVES, KING_MOVES, NORTH,
    PAWN_MOVES, RAYS, SOUTH, WEST,
};
use crate::types::{Color, Move, Piece, PieceKind, Square};
use crate::zobrist::{BLACK_TO_MOVE, PIECE_KEYS};
use thiserror::Error;

/// The FEN of the standard starting position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// A board as given, not yet checked: built from a FEN or by code, then validated with
/// [`Position::from_setup`].
///
/// ```
/// use xq_core::{Color, Piece, PieceKind, Position, Setup, Square};
/// let mut setup = Setup::empty();
/// setup.put(Square::parse("e0").unwrap(), Piece::new(Color::Red, PieceKind::King));
/// setup.put(Square::parse("d9").unwrap(), Piece::new(Color::Black, PieceKind::King));
/// let position = Position::from_setup(&setup).unwrap();
/// assert_eq!(position.legal_moves().len(), 2); // e0e1 and e0f0; d0 faces the black king
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The 90 points, indexed by [`Square::index`].
    pub board: [Option<Piece>; 90],
    /// Whose move it is.
    pub side_to_move: Color,
    /// Plies since the last capture, as the FEN's fifth field gives it.
    pub halfmove_clock: u32,
    /// The FEN's full-move number (starts at 1, grows after black's move).
    pub fullmove_number: u32,
}

impl Setup {
    /// An empty board with red to move.
    pub fn empty() -> Setup {
        Setup { board: [None; 90], side_to_move: Color::Red, halfmove_clock: 0, fullmove_number: 1 }
    }

    /// Places a piece (or replaces what stands there).
    pub fn put(&mut self, square: Square, piece: Piece) {
        self.board[square.index()] = Some(piece);
    }

    /// Empties a point.
    pub fn remove(&mut self, square: Square) {
        self.board[square.index()] = None;
    }
}

/// Why a setup is not a legal Xiangqi position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PositionError {
    /// A side has no king.
    #[error("{0} has no king")]
    NoKing(Color),
    /// A side has more than one king.
    #[error("{0} has {1} kings")]
    TooManyKings(Color, u8),
    /// A piece stands on a point it can never reach.
    #[error("{} {} cannot stand on {square}: {why}", piece.color, piece.kind.name())]
    InvalidSquare {
        /// The piece.
        piece: Piece,
        /// Where it stands.
        square: Square,
        /// The rule it breaks.
        why: &'static str,
    },
    /// More pieces of a kind than a side starts with.
    #[error("{color} has {count} pieces of kind {kind} (at most {max})")]
    TooManyPieces {
        /// Whose pieces.
        color: Color,
        /// Which kind.
        kind: &'static str,
        /// How many stand on the board.
        count: u8,
        /// The most allowed.
        max: u8,
    },
    /// The two kings face each other on an open file.
    #[error("the kings face each other on an open file")]
    KingsFacing,
    /// The side that just moved left its king attacked.
    #[error("the side not to move ({0}) is in check")]
    OpponentInCheck(Color),
}

/// What `make` needs to undo a move: the captured piece code (0 for none) and the old hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    captured: u8,
    hash: u64,
}

impl Undo {
    /// The piece the move captured, if any.
    pub fn captured(self) -> Option<Piece> {
        Piece::from_code(self.captured)
    }
}

/// A legal position: the board and the side to move. History (earlier positions, clocks)
/// lives in [`crate::Game`], so a `Position` is cheap to copy (about a hundred bytes).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    board: [u8; 90],
    side: Color,
    kings: [u8; 2],
    hash: u64,
    /// Occupancy kept with the board, by file (bit `r`: rank `r` occupied) and by rank (bit
    /// `f`: file `f` occupied), so that the first and second pieces along a line (rook,
    /// cannon and king attacks) are a bit scan instead of a walk.
    files: [u16; 9],
    ranks: [u16; 10],
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}

impl Default for Position {
    fn default() -> Self {
        Self::startpos()
    }
}

impl Position {
    /// The standard starting position.
    pub fn startpos() -> Position {
        let setup = crate::fen::parse_setup(START_FEN).expect("start FEN parses");
        Position::from_setup(&setup).expect("start position is legal")
    }

    /// Parses and validates a FEN (board and side; clocks are ignored here).
    pub fn from_fen(fen: &str) -> Result<Position, crate::FenError> {
        let setup = crate::fen::parse_setup(fen)?;
        Ok(Position::from_setup(&setup)?)
    }

    /// Validates a setup: one king each in its palace, every piece on a point it can reach,
    /// no more pieces of a kind than the game starts with, kings not facing, and the side
    /// that is not to move not in check.
    pub fn from_setup(setup: &Setup) -> Result<Position, PositionError> {
        let mut board = [0u8; 90];
        let mut counts = [[0u8; 7]; 2];
        let mut kings = [u8::MAX; 2];
        for sq in Square::all() {
            let Some(piece) = setup.board[sq.index()] else { continue };
            if let Some(why) = invalid_square_reason(piece, sq) {
                return Err(PositionError::InvalidSquare { piece, square: sq, why });
            }
            counts[piece.color.index()][piece.kind.index()] += 1;
            if piece.kind == PieceKind::King {
                kings[piece.color.index()] = sq.index() as u8;
            }
            board[sq.index()] = piece.code();
        }
        for color in Color::ALL {
            let c = &counts[color.index()];
            match c[PieceKind::King.index()] {
                0 => return Err(PositionError::NoKing(color)),
                1 => {}
                n => return Err(PositionError::TooManyKings(color, n)),
            }
            for kind in PieceKind::ALL {
                let n = c[kind.index()];
                if n > kind.max_count() {
                    return Err(PositionError::TooManyPieces {
                        color,
                        kind: kind.name(),
                        count: n,
                        max: kind.max_count(),
                    });
                }
            }
        }
        let mut pos =
            Position { board, side: setup.side_to_move, kings, hash: 0, files: [0; 9], ranks: [0; 10] };
        pos.hash = pos.compute_hash();
        pos.compute_occupancy();
        if pos.kings_facing() {
            return Err(PositionError::KingsFacing);
        }
        let other = setup.side_to_move.opponent();
        if pos.is_king_attacked(other) {
            return Err(PositionError::OpponentInCheck(other));
        }
        Ok(pos)
    }

    /// Back to an unvalidated setup (clocks zero, move number one).
    pub fn to_setup(&self) -> Setup {
        let mut setup = Setup::empty();
        for sq in Square::all() {
            setup.board[sq.index()] = self.piece_at(sq);
        }
        setup.side_to_move = self.side;
        setup
    }

    /// The FEN of this position with `- - 0 1` clocks.
    pub fn fen(&self) -> String {
        crate::fen::write_fen(self, 0, 1)
    }

    /// Whose move it is.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The piece on a point.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.board[sq.index()])
    }

    /// The raw board bytes (0 empty, otherwise [`Piece::code`]), indexed by square.
    #[inline]
    pub fn board_codes(&self) -> &[u8; 90] {
        &self.board
    }

    /// Where a side's king stands.
    #[inline]
    pub fn king_square(&self, color: Color) -> Square {
        Square::from_index_unchecked(self.kings[color.index()])
    }

    /// The Zobrist hash of board and side to move, kept incrementally.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Every piece with its point, in square order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|sq| self.piece_at(sq).map(|p| (sq, p)))
    }

    /// How many pieces of a kind a side has.
    pub fn count(&self, piece: Piece) -> usize {
        let code = piece.code();
        self.board.iter().filter(|&&c| c == code).count()
    }

    fn compute_occupancy(&mut self) {
        self.files = [0; 9];
        self.ranks = [0; 10];
        for (i, &c) in self.board.iter().enumerate() {
            if c != 0 {
                self.files[i % 9] |= 1 << (i / 9);
                self.ranks[i / 9] |= 1 << (i % 9);
            }
        }
    }

    #[inline]
    fn occupy(&mut self, i: usize) {
        self.files[i % 9] |= 1 << (i / 9);
        self.ranks[i / 9] |= 1 << (i % 9);
    }

    #[inline]
    fn vacate(&mut self, i: usize) {
        self.files[i % 9] &= !(1 << (i / 9));
        self.ranks[i / 9] &= !(1 << (i % 9));
    }

    /// The first and second occupied points from `s` (exclusive) in direction `dir` of
    /// [`RAYS`], as board indices.
    #[inline]
    fn line_pieces(&self, s: usize, dir: usize) -> (Option<usize>, Option<usize>) {
        let (f, r) = (s % 9, s / 9);
        // The occupied points of the line beyond `s`, as bits of its file or rank; going up
        // (north, east) the nearest is the lowest bit, going down the highest.
        let (bits, up) = match dir {
            NORTH => (u32::from(self.files[f]) & !((2 << r) - 1), true),
            SOUTH => (u32::from(self.files[f]) & ((1 << r) - 1), false),
            EAST => (u32::from(self.ranks[r]) & !((2 << f) - 1), true),
            _ => (u32::from(self.ranks[r]) & ((1 << f) - 1), false),
        };
        let nearest = |bits: u32| if up { bits.trailing_zeros() } else { 31 - bits.leading_zeros() };
        let point = |b: u32| if dir <= SOUTH { b as usize * 9 + f } else { r * 9 + b as usize };
        if bits == 0 {
            return (None, None);
        }
        let first = nearest(bits);
        let rest = bits & !(1 << first);
        (Some(point(first)), (rest != 0).then(|| point(nearest(rest))))
    }

    fn compute_hash(&self) -> u64 {
        let mut h = if self.side == Color::Black { BLACK_TO_MOVE } else { 0 };
        for (i, &c) in self.board.iter().enumerate() {
            if c != 0 {
                h ^= PIECE_KEYS[c as usize][i];
            }
        }
        h
    }

    /// Whether the two kings stand on one file with nothing between them.
    pub fn kings_facing(&self) -> bool {
        let (r, b) = (self.kings[0] as usize, self.kings[1] as usize);
        if r % 9 != b % 9 {
            return false;
        }
        let mut s = r + 9;
        while s < b {
            if self.board[s] != 0 {
                return false;
            }
            s += 9;
        }
        true
    }

    /// Whether the side to move is in check (facing kings count as check).
    #[inline]
    pub fn in_check(&self) -> bool {
        self.is_king_attacked(self.side)
    }

    /// Whether `color`'s king is attacked by the other side, or faces the other king.
    pub fn is_king_attacked(&self, color: Color) -> bool {
        let k = self.kings[color.index()] as usize;
        let enemy = color.opponent();
        let horse = Piece::new(enemy, PieceKind::Horse).code();
        let ha = &HORSE_ATTACKERS[k];
        for i in 0..ha.len as usize {
            if self.board[ha.to[i] as usize] == horse && self.board[ha.block[i] as usize] == 0 {
                return true;
            }
        }
        if self.pawn_attacks(k, color) {
            return true;
        }
        let rook = Piece::new(enemy, PieceKind::Rook).code();
        let cannon = Piece::new(enemy, PieceKind::Cannon).code();
        let king = Piece::new(enemy, PieceKind::King).code();
        for dir in [NORTH, SOUTH, EAST, WEST] {
            let (first, second) = self.line_pieces(k, dir);
            let Some(first) = first else { continue };
            let first = self.board[first];
            if first == rook || (first == king && dir <= SOUTH) {
                return true;
            }
            if second.is_some_and(|s| self.board[s] == cannon) {
                return true;
            }
        }
        false
    }

    /// Whether an enemy pawn attacks `color`'s king on `k`.
    #[inline]
    fn pawn_attacks(&self, k: usize, color: Color) -> bool {
        let pawn = Piece::new(color.opponent(), PieceKind::Pawn).code();
        // An enemy pawn attacks the king from the point in front of the king (seen from the
        // king's side) or beside it; beside is always across the river, since kings stay home.
        let front = match color {
            Color::Red => k + 9,
            Color::Black => k.wrapping_sub(9),
        };
        let file = k % 9;
        (front < 90 && self.board[front] == pawn)
            || (file > 0 && self.board[k - 1] == pawn)
            || (file < 8 && self.board[k + 1] == pawn)
    }

    /// All legal moves of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_legal(&mut list);
        list
    }

    /// Fills `out` with the legal moves of the side to move (clearing it first).
    pub fn generate_legal(&self, out: &mut MoveList) {
        out.clear();
        self.generate_pseudo(self.side, out);
        let k = self.kings[self.side.index()] as usize;
        let mut scratch = *self;
        let Some(exposure) = self.exposure(k) else {
            // In check: every move must be tried.
            out.retain(|m| scratch.leaves_king_safe(m));
            return;
        };
        out.retain(|m| {
            let (f, t) = (m.from().index(), m.to().index());
            if f == k {
                return scratch.leaves_king_safe(m);
            }
            if exposure.is_safe(f, t) {
                return true;
            }
            !self.non_king_move_exposes_king(k, f, t)
        });
    }

    /// Marks the squares where a move of a piece other than the king could expose the king on
    /// `k`, or `None` when the king is in check. Walking the four lines from the king once per
    /// position spares walking them again for every move.
    #[inline]
    fn exposure(&self, k: usize) -> Option<Exposure> {
        let enemy = self.side.opponent();
        let rook = Piece::new(enemy, PieceKind::Rook).code();
        let cannon = Piece::new(enemy, PieceKind::Cannon).code();
        let king = Piece::new(enemy, PieceKind::King).code();
        let mut flags = [0u8; 90];
        for dir in [NORTH, SOUTH, EAST, WEST] {
            let ray = &RAYS[k][dir];
            let line = Exposure::line_flag(dir);
            // The ray positions of the first three pieces along the line.
            let mut found = [0usize; 3];
            let mut count = 0;
            for i in 0..ray.len as usize {
                let sq = ray.to[i] as usize;
                flags[sq] = line;
                if count < 3 && self.board[sq] != 0 {
                    found[count] = i;
                    count += 1;
                }
            }
            let code = |nth: usize| if nth < count { self.board[ray.to[found[nth]] as usize] } else { 0 };
            let slider = |c: u8| c == rook || (c == king && dir <= SOUTH);
            if slider(code(0)) || code(1) == cannon {
                return None;
            }
            // Vacating the first piece makes the second the attacker or the third the cannon
            // target; vacating the second makes the third the cannon target.
            if count >= 2 && (slider(code(1)) || code(2) == cannon) {
                flags[ray.to[found[0]] as usize] |= Exposure::VACATE;
            }
            if count >= 3 && code(2) == cannon {
                flags[ray.to[found[1]] as usize] |= Exposure::VACATE;
            }
            // Stepping in front of an enemy cannon gives it a screen.
            if count >= 1 && code(0) == cannon {
                for &sq in &ray.to[..found[0]] {
                    flags[sq as usize] |= Exposure::OCCUPY;
                }
            }
        }
        // Vacating a horse's leg next to the king lets the horse attack.
        let horse = Piece::new(enemy, PieceKind::Horse).code();
        let ha = &HORSE_ATTACKERS[k];
        for i in 0..ha.len as usize {
            if self.board[ha.to[i] as usize] == horse {
                if self.board[ha.block[i] as usize] == 0 {
                    return None;
                }
                flags[ha.block[i] as usize] |= Exposure::VACATE;
            }
        }
        if self.pawn_attacks(k, self.side) {
            return None;
        }
        Some(Exposure { flags })
    }

    /// Whether moving a piece other than the king from `f` to `t` leaves the king on `k`
    /// attacked, given that it is not attacked now. Only what the move changes can create an
    /// attack: the lines through the king that contain `f` or `t` (rooks, cannons, the facing
    /// king) and, when `f` is a diagonal neighbour of the king, the horses whose leg it was.
    #[inline]
    fn non_king_move_exposes_king(&self, k: usize, f: usize, t: usize) -> bool {
        let enemy = self.side.opponent();
        let from_dir = line_direction(k, f);
        if from_dir.is_some_and(|d| self.ray_attacked_after(k, d, f, t, enemy)) {
            return true;
        }
        if let Some(d) = line_direction(k, t)
            && from_dir != Some(d)
            && self.ray_attacked_after(k, d, f, t, enemy)
        {
            return true;
        }
        if (DIAG_NEIGHBOURS[k] >> f) & 1 == 1 {
            let horse = Piece::new(enemy, PieceKind::Horse).code();
            let ha = &HORSE_ATTACKERS[k];
            for i in 0..ha.len as usize {
                let src = ha.to[i] as usize;
                if ha.block[i] as usize == f && src != t && self.board[src] == horse {
                    return true;
                }
            }
        }
        false
    }

    /// Whether, after a piece of the side to move goes from `f` to `t`, an enemy rook, cannon
    /// or (on a file) the enemy king attacks `k` along direction `dir`. The board is read as
    /// it will be: `f` empty, `t` holding the mover's piece.
    #[inline]
    fn ray_attacked_after(&self, k: usize, dir: usize, f: usize, t: usize, enemy: Color) -> bool {
        let ray = &RAYS[k][dir];
        let n = ray.len as usize;
        let code_after = |s: usize| -> u8 {
            if s == t {
                // Ours, whatever it captured: never an attacker, always a blocker.
                u8::MAX
            } else if s == f {
                0
            } else {
                self.board[s]
            }
        };
        let mut i = 0;
        while i < n && code_after(ray.to[i] as usize) == 0 {
            i += 1;
        }
        if i == n {
            return false;
        }
        let first = code_after(ray.to[i] as usize);
        let rook = Piece::new(enemy, PieceKind::Rook).code();
        let king = Piece::new(enemy, PieceKind::King).code();
        if first == rook || (first == king && dir <= SOUTH) {
            return true;
        }
        i += 1;
        while i < n && code_after(ray.to[i] as usize) == 0 {
            i += 1;
        }
        i < n && code_after(ray.to[i] as usize) == Piece::new(enemy, PieceKind::Cannon).code()
    }

    /// Plays `m` on this (scratch) position, tests the mover's king and takes it back.
    #[inline]
    fn leaves_king_safe(&mut self, m: Move) -> bool {
        let mover = self.side;
        let undo = self.make(m);
        let safe = !self.is_king_attacked(mover);
        self.unmake(m, undo);
        safe
    }

    /// The number of legal moves, without building a list for the caller.
    pub fn count_legal(&self) -> usize {
        let mut list = MoveList::new();
        self.generate_legal(&mut list);
        list.len()
    }

    /// Whether `m` is a legal move here.
    pub fn is_legal(&self, m: Move) -> bool {
        let Some(p) = self.piece_at(m.from()) else { return false };
        if p.color != self.side {
            return false;
        }
        let mut list = MoveList::new();
        self.generate_pseudo_from(m.from(), p, &mut list);
        if !list.contains(&m) {
            return false;
        }
        let mut scratch = *self;
        scratch.leaves_king_safe(m)
    }

    /// Every move of `color`'s pieces that follows the piece rules, ignoring whether it leaves
    /// its own king attacked. `color` need not be the side to move (the 棋例 judge asks what
    /// the other side attacks).
    pub fn generate_pseudo(&self, color: Color, out: &mut MoveList) {
        // `color`'s codes are `first .. first + 7`, in kind order.
        let first = Piece::new(color, PieceKind::King).code();
        for s in 0..90 {
            if let Some(kind) = PieceKind::from_index(self.board[s].wrapping_sub(first) as usize) {
                self.generate_pseudo_from(
                    Square::from_index_unchecked(s as u8),
                    Piece::new(color, kind),
                    out,
                );
            }
        }
    }

    /// The moves of [`Position::generate_pseudo`] for `color` that land on `to`: the
    /// pseudo-legal captures of (or moves onto) one point, ordered by the square they come
    /// from. The pieces that reach `to` are found from `to` itself: along its four lines
    /// (rooks, cannons), through the horse and elephant tables read backwards, and among
    /// its neighbours (king, advisors, pawns), which is what makes the exchange searches of
    /// the 棋例 judge cheap.
    pub fn generate_pseudo_to(&self, color: Color, to: Square, out: &mut MoveList) {
        let t = to.index();
        let occupant = self.board[t];
        if occupant != 0 && (occupant > 7) == (color == Color::Black) {
            return;
        }
        let code = |kind: PieceKind| Piece::new(color, kind).code();
        // At most 2 rooks, 2 cannons, 2 horses, 2 advisors, 2 elephants, 1 king and the 3
        // neighbouring pawns reach one point; sorting a handful of squares keeps the order
        // of a scan over the board.
        let mut from = [0u8; 16];
        let mut n = 0;
        let mut add = |s: u8| {
            debug_assert!(n < from.len(), "more pieces reach one point than a position holds");
            if n < from.len() {
                from[n] = s;
                n += 1;
            }
        };
        for dir in [NORTH, SOUTH, EAST, WEST] {
            let (first, second) = self.line_pieces(t, dir);
            if let Some(f) = first {
                let piece = self.board[f];
                if piece == code(PieceKind::Rook) || (occupant == 0 && piece == code(PieceKind::Cannon)) {
                    add(f as u8);
                }
            }
            if occupant != 0
                && let Some(s) = second
                && self.board[s] == code(PieceKind::Cannon)
            {
                add(s as u8);
            }
        }
        let horses = &HORSE_ATTACKERS[t];
        for i in 0..horses.len as usize {
            if self.board[horses.to[i] as usize] == code(PieceKind::Horse)
                && self.board[horses.block[i] as usize] == 0
            {
                add(horses.to[i]);
            }
        }
        // King, advisor and elephant steps are symmetric: the points they reach `to` from
        // are the points they reach from `to`, with the same elephant eye.
        let elephants = &ELEPHANT_MOVES[t];
        for i in 0..elephants.len as usize {
            if self.board[elephants.to[i] as usize] == code(PieceKind::Elephant)
                && self.board[elephants.block[i] as usize] == 0
            {
                add(elephants.to[i]);
            }
        }
        for (table, kind) in [(&KING_MOVES[t], PieceKind::King), (&ADVISOR_MOVES[t], PieceKind::Advisor)] {
            for i in 0..table.len as usize {
                if self.board[table.to[i] as usize] == code(kind) {
                    add(table.to[i]);
                }
            }
        }
        let pawn = code(PieceKind::Pawn);
        for ray in &RAYS[t] {
            if ray.len == 0 || self.board[ray.to[0] as usize] != pawn {
                continue;
            }
            let steps = &PAWN_MOVES[color.index()][ray.to[0] as usize];
            if steps.targets().contains(&(t as u8)) {
                add(ray.to[0]);
            }
        }
        let from = &mut from[..n];
        from.sort_unstable();
        for &s in from.iter() {
            out.push(Move::new(Square::from_index_unchecked(s), to));
        }
    }

    /// The pseudo-legal moves of the piece `p` standing on `from`.
    pub fn generate_pseudo_from(&self, from: Square, p: Piece, out: &mut MoveList) {
        let s = from.index();
        let own = |code: u8| code != 0 && (code > 7) == (p.color == Color::Black);
        match p.kind {
            PieceKind::King => {
                let t = &KING_MOVES[s];
                for i in 0..t.len as usize {
                    let to = t.to[i];
                    if !own(self.board[to as usize]) {
                        out.push(Move::new(from, Square::from_index_unchecked(to)));
                    }
                }
            }
            PieceKind::Advisor => {
                let t = &ADVISOR_MOVES[s];
                for i in 0..t.len as usize {
                    let to = t.to[i];
                    if !own(self.board[to as usize]) {
                        out.push(Move::new(from, Square::from_index_unchecked(to)));
                    }
                }
            }
            PieceKind::Elephant => {
                let t = &ELEPHANT_MOVES[s];
                for i in 0..t.len as usize {
                    let to = t.to[i];
                    if self.board[t.block[i] as usize] == 0 && !own(self.board[to as usize]) {
                        out.push(Move::new(from, Square::from_index_unchecked(to)));
                    }
                }
            }
            PieceKind::Horse => {
                let t = &HORSE_MOVES[s];
                for i in 0..t.len as usize {
                    let to = t.to[i];
                    if self.board[t.block[i] as usize] == 0 && !own(self.board[to as usize]) {
                        out.push(Move::new(from, Square::from_index_unchecked(to)));
                    }
                }
            }
            PieceKind::Pawn => {
                let t = &PAWN_MOVES[p.color.index()][s];
                for i in 0..t.len as usize {
                    let to = t.to[i];
                    if !own(self.board[to as usize]) {
                        out.push(Move::new(from, Square::from_index_unchecked(to)));
                    }
                }
            }
            PieceKind::Rook => {
                for ray in &RAYS[s] {
                    for i in 0..ray.len as usize {
                        let to = ray.to[i];
                        let c = self.board[to as usize];
                        if c == 0 {
                            out.push(Move::new(from, Square::from_index_unchecked(to)));
                        } else {
                            if !own(c) {
                                out.push(Move::new(from, Square::from_index_unchecked(to)));
                            }
                            break;
                        }
                    }
                }
            }
            PieceKind::Cannon => {
                for ray in &RAYS[s] {
                    let n = ray.len as usize;
                    let mut i = 0;
                    while i < n {
                        let to = ray.to[i];
                        if self.board[to as usize] != 0 {
                            break;
                        }
                        out.push(Move::new(from, Square::from_index_unchecked(to)));
                        i += 1;
                    }
                    // Jump the screen at `i` and capture the first piece beyond it.
                    i += 1;
                    while i < n {
                        let to = ray.to[i];
                        let c = self.board[to as usize];
                        if c != 0 {
                            if !own(c) {
                                out.push(Move::new(from, Square::from_index_unchecked(to)));
                            }
                            break;
                        }
                        i += 1;
                    }
                }
            }
        }
    }

    /// How many of `color`'s pieces bear on each point (indexed by [`Square::index`]): the
    /// pieces that could capture an enemy piece standing there, or recapture on it when it
    /// holds one of their own. This is what makes a piece hanging or defended, so the network
    /// gets it as input planes instead of rebuilding cannon screens and horse legs from the
    /// piece planes. Unlike [`Position::generate_pseudo`], a cannon's quiet slides do not count
    /// (it attacks only beyond its screen) and pieces of `color`'s own are counted as
    /// defended; pins are ignored, as in an exchange count.
    ///
    /// ```
    /// use xq_core::{Color, Position, Square};
    /// let p = Position::startpos();
    /// let b9 = Square::new(1, 9).unwrap();
    /// assert_eq!(p.control(Color::Red)[b9.index()], 1); // the cannon on b2, over the b7 screen
    /// assert_eq!(p.control(Color::Black)[b9.index()], 1); // the rook on a9 defends it
    /// ```
    pub fn control(&self, color: Color) -> [u8; 90] {
        let mut counts = [0u8; 90];
        let first = Piece::new(color, PieceKind::King).code();
        for s in 0..90 {
            let Some(kind) = PieceKind::from_index(self.board[s].wrapping_sub(first) as usize) else {
                continue;
            };
            let mut hit = |to: u8| counts[to as usize] += 1;
            match kind {
                PieceKind::King => KING_MOVES[s].targets().iter().for_each(|&to| hit(to)),
                PieceKind::Advisor => ADVISOR_MOVES[s].targets().iter().for_each(|&to| hit(to)),
                PieceKind::Pawn => PAWN_MOVES[color.index()][s].targets().iter().for_each(|&to| hit(to)),
                PieceKind::Horse => HORSE_MOVES[s].unblocked(&self.board).for_each(hit),
                PieceKind::Elephant => ELEPHANT_MOVES[s].unblocked(&self.board).for_each(hit),
                PieceKind::Rook => {
                    for ray in &RAYS[s] {
                        for &to in ray.targets() {
                            hit(to);
                            if self.board[to as usize] != 0 {
                                break;
                            }
                        }
                    }
                }
                PieceKind::Cannon => {
                    for ray in &RAYS[s] {
                        let line = ray.targets();
                        let Some(screen) = line.iter().position(|&to| self.board[to as usize] != 0) else {
                            continue;
                        };
                        if let Some(&target) =
                            line[screen + 1..].iter().find(|&&to| self.board[to as usize] != 0)
                        {
                            hit(target);
                        }
                    }
                }
            }
        }
        counts
    }

    /// Plays a move known to be pseudo-legal for the side to move, returning what
    /// [`Position::unmake`] needs. Playing anything else corrupts the position.
    #[inline]
    pub fn make(&mut self, m: Move) -> Undo {
        let (f, t) = (m.from().index(), m.to().index());
        let piece = self.board[f];
        let captured = self.board[t];
        let undo = Undo { captured, hash: self.hash };
        let mut h = self.hash ^ BLACK_TO_MOVE;
        h ^= PIECE_KEYS[piece as usize][f] ^ PIECE_KEYS[piece as usize][t];
        if captured != 0 {
            h ^= PIECE_KEYS[captured as usize][t];
        }
        self.hash = h;
        self.board[t] = piece;
        self.board[f] = 0;
        self.vacate(f);
        self.occupy(t);
        if piece == 1 || piece == 8 {
            self.kings[self.side.index()] = t as u8;
        }
        self.side = self.side.opponent();
        undo
    }

    /// Takes back a move played with [`Position::make`].
    #[inline]
    pub fn unmake(&mut self, m: Move, undo: Undo) {
        let (f, t) = (m.from().index(), m.to().index());
        self.side = self.side.opponent();
        let piece = self.board[t];
        self.board[f] = piece;
        self.board[t] = undo.captured;
        self.occupy(f);
        if undo.captured == 0 {
            self.vacate(t);
        }
        if piece == 1 || piece == 8 {
            self.kings[self.side.index()] = f as u8;
        }
        self.hash = undo.hash;
    }

    /// The position after a legal move (copy-make). The move is not checked.
    #[inline]
    pub fn after(&self, m: Move) -> Position {
        let mut p = *self;
        p.make(m);
        p
    }

    /// The side to move passes (used by the 棋例 judge to ask "what would the mover threaten
    /// if it moved again"). The result may have the side to move's opponent in check.
    pub fn with_side_to_move(&self, color: Color) -> Position {
        let mut p = *self;
        if p.side != color {
            p.side = color;
            p.hash ^= BLACK_TO_MOVE;
        }
        p
    }

    /// The position mirrored left–right (same side to move).
    pub fn mirror(&self) -> Position {
        let mut p = *self;
        for s in Square::all() {
            p.board[s.mirror().index()] = self.board[s.index()];
        }
        for c in 0..2 {
            p.kings[c] = Square::from_index_unchecked(self.kings[c]).mirror().index() as u8;
        }
        p.hash = p.compute_hash();
        p.compute_occupancy();
        p
    }
}

/// Per square, whether a move of a piece other than the king could expose its own (unchecked)
/// king (see [`Position::exposure`]): by leaving the square (`VACATE`), by entering it
/// (`OCCUPY`), or by moving along the line through the king that the square lies on (the
/// line's flag). Moves that touch none of these cannot expose the king.
struct Exposure {
    flags: [u8; 90],
}

impl Exposure {
    const VACATE: u8 = 1;
    const OCCUPY: u8 = 2;
    /// Bits 2–4 hold the king line's direction plus one (zero: on no line through the king).
    const LINE_SHIFT: u32 = 2;

    const fn line_flag(dir: usize) -> u8 {
        ((dir + 1) as u8) << Self::LINE_SHIFT
    }

    /// Whether a non-king move from `f` to `t` surely keeps the king safe. Leaving one line and
    /// entering another are independent; sliding along one line needs the exact test.
    #[inline]
    fn is_safe(&self, f: usize, t: usize) -> bool {
        let (from, to) = (self.flags[f], self.flags[t]);
        let from_line = from >> Self::LINE_SHIFT;
        (from & Self::VACATE) | (to & Self::OCCUPY) == 0
            && (from_line == 0 || from_line != to >> Self::LINE_SHIFT)
    }
}

/// The direction of [`RAYS`] that leads from `k` to `s`, if they share a file or rank.
#[inline]
fn line_direction(k: usize, s: usize) -> Option<usize> {
    if s == k {
        None
    } else if s % 9 == k % 9 {
        Some(if s > k { NORTH } else { SOUTH })
    } else if s / 9 == k / 9 {
        Some(if s > k { EAST } else { WEST })
    } else {
        None
    }
}

fn invalid_square_reason(piece: Piece, sq: Square) -> Option<&'static str> {
    let c = piece.color;
    let f = sq.file();
    // Rank counted from the piece's own back rank.
    let r = match c {
        Color::Red => sq.rank(),
        Color::Black => 9 - sq.rank(),
    };
    match piece.kind {
        PieceKind::King if !sq.in_palace(c) => Some("a king stays in its palace"),
        PieceKind::Advisor if !(sq.in_palace(c) && (f + r) % 2 == 1) => {
            Some("an advisor stands only on the five diagonal points of its palace")
        }
        PieceKind::Elephant if !matches!((f, r), (2 | 6, 0) | (0 | 4 | 8, 2) | (2 | 6, 4)) => {
            Some("an elephant stands only on its seven points on its own side of the river")
        }
        PieceKind::Pawn if r < 3 || (r < 5 && f % 2 == 1) => {
            Some("a pawn never stands behind or beside its starting points before the river")
        }
        _ => None,
    }
}

/// Queries the 棋例 judge needs (kept apart from move generation so both can change freely).
impl Position {
    /// Whether the pseudo-legal move `m` of the side to move leaves the mover's king safe
    /// (neither attacked nor facing the other king), i.e. whether it is legal. Cheaper than
    /// [`Position::is_legal`] when `m` is known to follow the piece rules.
    pub fn pseudo_move_is_legal(&self, m: Move) -> bool {
        let mut scratch = *self;
        scratch.leaves_king_safe(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    #[test]
    fn start_position_has_44_moves() {
        assert_eq!(Position::startpos().legal_moves().len(), 44);
    }

    #[test]
    fn validation_errors_are_specific() {
        let err = |fen: &str| Position::from_fen(fen).unwrap_err().to_string();
        assert!(err("9/9/9/9/9/9/9/9/9/4K4 w").contains("black has no king"));
        assert!(err("3k5/9/9/9/9/9/9/9/9/9 w").contains("red has no king"));
        assert!(err("3k5/9/9/9/9/9/9/9/9/3KK4 w").contains("2 kings"));
        assert!(err("3k5/9/9/9/9/9/9/9/9/A3K4 w").contains("advisor"));
        assert!(err("3k5/9/9/9/9/B8/9/9/9/4K4 w").contains("elephant"));
        assert!(err("3k5/9/9/9/9/9/9/9/P8/4K4 w").contains("pawn"));
        assert!(err("3k5/9/9/9/9/9/9/1P7/9/4K4 w").contains("pawn"));
        assert!(err("4k4/9/9/9/9/9/9/9/9/4K4 w").contains("face"));
        assert!(err("3k5/3R5/9/9/9/9/9/9/9/4K4 w").contains("black) is in check"));
        assert!(err("3k5/9/9/RRR6/9/9/9/9/9/4K4 w").contains("at most 2"));
    }

    #[test]
    fn cannon_needs_a_screen_and_horse_a_free_leg() {
        // Red cannon e2 behind the pawn e3 checks nothing on its own file until the screen is right.
        let p = pos("3kr4/9/9/9/9/4p4/9/4C4/9/5K3 w");
        let caps: Vec<String> = p.legal_moves().iter().map(|m| m.iccs()).filter(|m| m == "e2e9").collect();
        assert_eq!(caps, vec!["e2e9"]);
        // Horse on b0 with its leg b1 blocked cannot go to a2/c2.
        let p = pos("4k4/9/9/9/9/9/9/9/1R7/1N1K5 w");
        assert!(p.legal_moves().iter().all(|m| m.from().to_string() != "b0" || m.to().to_string() == "d1"));
    }

    #[test]
    fn moving_a_screen_onto_the_kings_line_is_illegal() {
        // A red rook moving onto e4 becomes the screen for the black cannon on e9 and
        // exposes the red king on e0.
        let p = pos("3kc4/9/9/9/9/2R6/9/9/9/4K4 w");
        assert!(!p.legal_moves().iter().any(|m| m.iccs() == "c4e4"));
        assert!(p.legal_moves().iter().any(|m| m.iccs() == "c4c5"));
    }

    #[test]
    fn make_unmake_restores_hash() {
        let mut p = Position::startpos();
        let orig = p;
        for m in orig.legal_moves().iter() {
            let u = p.make(*m);
            assert_eq!(p.hash(), p.compute_hash());
            p.unmake(*m, u);
            assert_eq!(p, orig);
        }
    }
}
