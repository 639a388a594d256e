//! Helpers shared by the 棋例 judge's test files.
#![allow(dead_code)] // each test file uses a part

use serde_json::Value;
use xq_core::qili::Judgement;
use xq_core::{GameResult, Move, Position, Square, notation::parse_move};

/// A small deterministic generator (xorshift64*), so each case is reproducible from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// A random game of up to `plies` moves, then a back-and-forth shuffle of two pieces when
/// possible (so the history ends in a real repetition). Returns positions and moves.
pub fn random_history(seed: u64, plies: usize) -> (Vec<Position>, Vec<Move>) {
    let mut rng = Rng::new(seed);
    let mut pos = Position::startpos();
    let mut positions = vec![pos];
    let mut moves = Vec::new();
    let push = |pos: &mut Position, m: Move, positions: &mut Vec<Position>, moves: &mut Vec<Move>| {
        *pos = pos.after(m);
        positions.push(*pos);
        moves.push(m);
    };
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return (positions, moves);
        }
        let m = legal[rng.below(legal.len())];
        push(&mut pos, m, &mut positions, &mut moves);
    }
    // Shuffle: a move, a reply, and both taken back by the reverse moves, if legal.
    let legal = pos.legal_moves();
    let quiet: Vec<Move> = legal.iter().copied().filter(|m| pos.piece_at(m.to()).is_none()).collect();
    if quiet.is_empty() {
        return (positions, moves);
    }
    let a = quiet[rng.below(quiet.len())];
    let after_a = pos.after(a);
    let replies: Vec<Move> =
        after_a.legal_moves().iter().copied().filter(|m| after_a.piece_at(m.to()).is_none()).collect();
    if replies.is_empty() {
        return (positions, moves);
    }
    let b = replies[rng.below(replies.len())];
    for m in [a, b, Move::new(a.to(), a.from()), Move::new(b.to(), b.from())] {
        if !pos.is_legal(m) {
            break;
        }
        push(&mut pos, m, &mut positions, &mut moves);
    }
    (positions, moves)
}

/// The FEN with the board turned 180° and the colours exchanged; the other side moves.
pub fn colour_swapped_fen(fen: &str) -> String {
    let mut fields = fen.split_whitespace();
    let board = fields.next().expect("a board field");
    let side = fields.next().unwrap_or("w");
    let turned: Vec<String> = board
        .split('/')
        .rev()
        .map(|rank| {
            rank.chars()
                .rev()
                .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                .collect()
        })
        .collect();
    let side = if side == "b" { "w" } else { "b" };
    format!("{} {side} - - 0 1", turned.join("/"))
}

/// Describes a judgement with squares mapped by `map` and the result by `result`, so the
/// transformed case's description equals the original's.
pub fn describe(
    j: &Judgement,
    map: impl Fn(Square) -> Square,
    result: impl Fn(GameResult) -> GameResult,
) -> String {
    let mut lines: Vec<String> = j
        .moves
        .iter()
        .map(|i| {
            let mut targets: Vec<String> = i.targets.iter().map(|s| map(s).to_string()).collect();
            targets.sort();
            format!(
                "{:?} {:?} [{}] b={} cont={}",
                i.class,
                i.detail,
                targets.join(","),
                i.grade_b,
                i.continuing,
            )
        })
        .collect();
    // `must_vary` is the loser of a lost cycle and empty otherwise, so the result covers it.
    lines.push(format!("{:?} {:?} {}", result(j.outcome.result), j.outcome.reason, j.outcome.article));
    lines.join("\n")
}

/// The result with the colours exchanged.
pub fn swap(r: GameResult) -> GameResult {
    match r {
        GameResult::RedWins => GameResult::BlackWins,
        GameResult::BlackWins => GameResult::RedWins,
        GameResult::Draw => GameResult::Draw,
    }
}

/// One case of `data/qili/cases.json` (the 2020 rulebook's repetition cases), replayed.
pub struct RulebookCase {
    pub id: String,
    /// `positions[i]` is the position before `moves[i]`; the last one follows every move.
    pub positions: Vec<Position>,
    pub moves: Vec<Move>,
    /// The first ply of the cycle.
    pub start: usize,
    /// The book's label for each move (it may label a prefix of the moves).
    pub labels: Vec<String>,
    /// `verdict_seed_rules`: the verdict under `cxa`.
    pub verdict_cxa: String,
    /// The book's own verdict, under `cxa2020`.
    pub verdict_cxa2020: String,
}

/// Plays the JSON array of moves `moves` (any notation) from `fen`: the positions before
/// each move and after the last, and the moves.
pub fn replay(fen: &str, moves: &Value) -> (Vec<Position>, Vec<Move>) {
    let mut pos = Position::from_fen(fen).expect("valid FEN");
    let mut positions = vec![pos];
    let mut played = Vec::new();
    for m in moves.as_array().expect("an array of moves") {
        let mv = parse_move(&pos, m.as_str().expect("move text")).expect("legal move");
        pos = pos.after(mv);
        positions.push(pos);
        played.push(mv);
    }
    (positions, played)
}

/// Every case of `data/qili/cases.json`, replayed from its FEN.
pub fn load_rulebook_cases() -> Vec<RulebookCase> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/qili/cases.json");
    let text = std::fs::read_to_string(path).expect("data/qili/cases.json is readable");
    let json: Value = serde_json::from_str(&text).expect("cases.json is JSON");
    let cases = json["cases"].as_array().expect("a cases array");
    cases
        .iter()
        .map(|c| {
            let id = c["id"].as_str().expect("id").to_string();
            let (positions, moves) = replay(c["fen"].as_str().expect("fen"), &c["moves"]);
            let labels = c["labels"]
                .as_array()
                .map(|a| a.iter().map(|l| l.as_str().expect("label").to_string()).collect())
                .unwrap_or_default();
            RulebookCase {
                id,
                positions,
                moves,
                start: c["cycle_start_ply"].as_u64().expect("cycle_start_ply") as usize,
                labels,
                verdict_cxa: c["verdict_seed_rules"].as_str().expect("verdict").to_string(),
                verdict_cxa2020: c["verdict_cxa2020"].as_str().expect("verdict").to_string(),
            }
        })
        .collect()
}
