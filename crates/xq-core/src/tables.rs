//! Move tables computed at compile time, so move generation only reads memory.
//!
//! Every table is indexed by square index (`rank * 9 + file`). Entries are square indices.

/// Up to `N` target squares, with an optional blocking square each (horse leg, elephant eye).
#[derive(Clone, Copy)]
pub(crate) struct Targets<const N: usize> {
    pub len: u8,
    pub to: [u8; N],
    /// The square that must be empty for the move; unused for kings and advisors.
    pub block: [u8; N],
}

impl<const N: usize> Targets<N> {
    const EMPTY: Self = Targets { len: 0, to: [0; N], block: [0; N] };

    const fn push(mut self, to: u8, block: u8) -> Self {
        self.to[self.len as usize] = to;
        self.block[self.len as usize] = block;
        self.len += 1;
        self
    }

    /// The target squares, blocked or not.
    #[inline]
    pub fn targets(&self) -> &[u8] {
        &self.to[..self.len as usize]
    }

    /// The target squares whose blocking square is empty on `board`.
    #[inline]
    pub fn unblocked<'a>(&'a self, board: &'a [u8; 90]) -> impl Iterator<Item = u8> + 'a {
        (0..self.len as usize).filter(|&i| board[self.block[i] as usize] == 0).map(|i| self.to[i])
    }
}

const fn sq(file: i32, rank: i32) -> i32 {
    if file < 0 || file > 8 || rank < 0 || rank > 9 { -1 } else { rank * 9 + file }
}

const fn in_palace(file: i32, rank: i32) -> bool {
    file >= 3 && file <= 5 && (rank <= 2 || rank >= 7) && rank >= 0 && rank <= 9
}

const fn same_half(r1: i32, r2: i32) -> bool {
    (r1 <= 4) == (r2 <= 4)
}

const ORTHO: [(i32, i32); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const DIAG: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// One orthogonal step inside the palace the square belongs to.
pub(crate) static KING_MOVES: [Targets<4>; 90] = {
    let mut t = [Targets::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        if in_palace(f, r) {
            let mut d = 0;
            while d < 4 {
                let (nf, nr) = (f + ORTHO[d].0, r + ORTHO[d].1);
                if in_palace(nf, nr) && same_half(r, nr) {
                    t[s] = t[s].push(sq(nf, nr) as u8, 0);
                }
                d += 1;
            }
        }
        s += 1;
    }
    t
};

/// One diagonal step inside the palace the square belongs to.
pub(crate) static ADVISOR_MOVES: [Targets<4>; 90] = {
    let mut t = [Targets::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        if in_palace(f, r) {
            let mut d = 0;
            while d < 4 {
                let (nf, nr) = (f + DIAG[d].0, r + DIAG[d].1);
                if in_palace(nf, nr) && same_half(r, nr) {
                    t[s] = t[s].push(sq(nf, nr) as u8, 0);
                }
                d += 1;
            }
        }
        s += 1;
    }
    t
};

/// Two diagonal steps on the same side of the river; `block` is the eye.
pub(crate) static ELEPHANT_MOVES: [Targets<4>; 90] = {
    let mut t = [Targets::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (nf, nr) = (f + 2 * DIAG[d].0, r + 2 * DIAG[d].1);
            let to = sq(nf, nr);
            if to >= 0 && same_half(r, nr) {
                t[s] = t[s].push(to as u8, sq(f + DIAG[d].0, r + DIAG[d].1) as u8);
            }
            d += 1;
        }
        s += 1;
    }
    t
};

/// Horse moves; `block` is the leg (the orthogonal neighbour in the long direction).
pub(crate) static HORSE_MOVES: [Targets<8>; 90] = {
    let mut t = [Targets::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = ORTHO[d];
            let leg = sq(f + df, r + dr);
            if leg >= 0 {
                let mut side = -1;
                while side <= 1 {
                    // Perpendicular offset of one.
                    let (pf, pr) = (dr * side, df * side);
                    let to = sq(f + 2 * df + pf, r + 2 * dr + pr);
                    if to >= 0 {
                        t[s] = t[s].push(to as u8, leg as u8);
                    }
                    side += 2;
                }
            }
            d += 1;
        }
        s += 1;
    }
    t
};

/// For a target square: the squares a horse may attack it from, with the leg that must be
/// empty (always a diagonal neighbour of the target).
pub(crate) static HORSE_ATTACKERS: [Targets<8>; 90] = {
    let mut t = [Targets::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let mut from = 0;
        while from < 90 {
            let m = &HORSE_MOVES[from];
            let mut i = 0;
            while i < m.len as usize {
                if m.to[i] as usize == s {
                    t[s] = t[s].push(from as u8, m.block[i]);
                }
                i += 1;
            }
            from += 1;
        }
        s += 1;
    }
    t
};

/// Pawn moves per colour: forward, and sideways once across the river. Backward never.
pub(crate) static PAWN_MOVES: [[Targets<3>; 90]; 2] = {
    let mut t = [[Targets::EMPTY; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let fwd = if c == 0 { 1 } else { -1 };
        let mut s = 0;
        while s < 90 {
            let (f, r) = ((s % 9) as i32, (s / 9) as i32);
            let crossed = if c == 0 { r >= 5 } else { r <= 4 };
            let to = sq(f, r + fwd);
            if to >= 0 {
                t[c][s] = t[c][s].push(to as u8, 0);
            }
            if crossed {
                if f > 0 {
                    t[c][s] = t[c][s].push(sq(f - 1, r) as u8, 0);
                }
                if f < 8 {
                    t[c][s] = t[c][s].push(sq(f + 1, r) as u8, 0);
                }
            }
            s += 1;
        }
        c += 1;
    }
    t
};

/// Direction indices into [`RAYS`]: north is towards black (rank + 1).
pub(crate) const NORTH: usize = 0;
pub(crate) const SOUTH: usize = 1;
pub(crate) const EAST: usize = 2;
pub(crate) const WEST: usize = 3;

/// For each square and direction, the squares from the nearest outward to the edge.
pub(crate) static RAYS: [[Targets<9>; 4]; 90] = {
    let mut t = [[Targets::EMPTY; 4]; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = ORTHO[d];
            let mut k = 1;
            while sq(f + k * df, r + k * dr) >= 0 {
                t[s][d] = t[s][d].push(sq(f + k * df, r + k * dr) as u8, 0);
                k += 1;
            }
            d += 1;
        }
        s += 1;
    }
    t
};

/// The four diagonal neighbours of each square, as a bit set over squares, used to find
/// moves that can open a horse check on a king (the horse's leg is always a diagonal
/// neighbour of the king it attacks).
pub(crate) static DIAG_NEIGHBOURS: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let n = sq(f + DIAG[d].0, r + DIAG[d].1);
            if n >= 0 {
                t[s] |= 1u128 << n;
            }
            d += 1;
        }
        s += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_sizes() {
        // Horse in the centre has 8 moves, in the corner 2.
        assert_eq!(HORSE_MOVES[4 * 9 + 4].len, 8);
        assert_eq!(HORSE_MOVES[0].len, 2);
        // Elephant on c0 reaches a2 and e2 only.
        assert_eq!(ELEPHANT_MOVES[2].len, 2);
        // Elephants cannot cross: from c4 only back to a2/e2 squares.
        assert_eq!(ELEPHANT_MOVES[4 * 9 + 2].len, 2);
        assert_eq!(KING_MOVES[4].len, 3); // e0
        assert_eq!(KING_MOVES[9 + 4].len, 4); // e1
        assert_eq!(ADVISOR_MOVES[9 + 4].len, 4); // e1
        assert_eq!(ADVISOR_MOVES[3].len, 1); // d0
        assert_eq!(PAWN_MOVES[0][3 * 9].len, 1); // uncrossed red pawn
        assert_eq!(PAWN_MOVES[0][5 * 9 + 4].len, 3); // crossed red pawn
        assert_eq!(PAWN_MOVES[0][9 * 9 + 4].len, 2); // red pawn on the last rank
        assert_eq!(RAYS[0][NORTH].len, 9);
        assert_eq!(RAYS[0][EAST].len, 8);
        assert_eq!(RAYS[0][SOUTH].len + RAYS[0][WEST].len, 0);
        // Every horse move is attacked back from the target.
        let total: u32 = HORSE_ATTACKERS.iter().map(|t| t.len as u32).sum();
        let total2: u32 = HORSE_MOVES.iter().map(|t| t.len as u32).sum();
        assert_eq!(total, total2);
    }
}
