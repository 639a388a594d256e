//! Differential test of the move generator against pyffish (Fairy-Stockfish's Python binding),
//! an independent implementation of the Xiangqi rules.
//!
//! Seeded pseudo-random games are played with xq; at every position of every game pyffish is
//! asked for its legal moves and whether the side to move is in check, and the two generators
//! must agree exactly (so they also agree on checkmate and stalemate: no legal move, in check
//! or not). Repetition and move-limit results are not compared: pyffish's rules differ there.
//!
//! Needs a Python with pyffish: `bash scripts/setup-python.sh` creates `<workspace>/.venv`,
//! which is used unless `XQ_PYTHON` names another interpreter. `XQ_DIFF_GAMES` sets the number
//! of games (default 300).

use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;
use xq_core::{Move, Position, Square};

const DEFAULT_GAMES: usize = 300;
const MAX_PLIES: usize = 150;
/// Mismatches printed in full before the test gives up listing them.
const MAX_REPORTED: usize = 20;

/// SplitMix64: a tiny, well-mixed generator, so every game is reproducible from its seed.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0); the modulo bias is irrelevant for n < 200.
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
}

/// How a game picks its moves. Uniformly random play seldom mates, stalemates or builds pins,
/// so biased policies steer games towards those cases.
#[derive(Clone, Copy, Debug)]
enum Policy {
    Uniform,
    /// Prefers checking moves, then captures.
    Tactical,
    /// Often plays the move that leaves the opponent the fewest legal replies, which drives
    /// games into mates.
    Squeeze,
    /// Squeezes without giving check, which drives games into stalemates (困毙).
    Smother,
}

fn choose(pos: &Position, legal: &[Move], policy: Policy, rng: &mut SplitMix64) -> Move {
    let uniform = legal[rng.below(legal.len())];
    let gives_check = |m: Move| pos.after(m).in_check();
    match policy {
        Policy::Uniform => uniform,
        Policy::Tactical => {
            if rng.chance(50) {
                let checks: Vec<Move> = legal.iter().copied().filter(|&m| gives_check(m)).collect();
                if !checks.is_empty() {
                    return checks[rng.below(checks.len())];
                }
            }
            if rng.chance(60) {
                let captures: Vec<Move> =
                    legal.iter().copied().filter(|m| pos.piece_at(m.to()).is_some()).collect();
                if !captures.is_empty() {
                    return captures[rng.below(captures.len())];
                }
            }
            uniform
        }
        Policy::Squeeze | Policy::Smother => {
            if !rng.chance(60) {
                return uniform;
            }
            let candidates: Vec<Move> = match policy {
                Policy::Smother => legal.iter().copied().filter(|&m| !gives_check(m)).collect(),
                _ => legal.to_vec(),
            };
            let fewest_replies = |m: &Move| pos.after(*m).count_legal();
            let Some(fewest) = candidates.iter().map(fewest_replies).min() else { return uniform };
            let best: Vec<Move> =
                candidates.iter().copied().filter(|m| fewest_replies(m) == fewest).collect();
            best[rng.below(best.len())]
        }
    }
}

/// The positions of one seeded game, first to last, and the moves between them.
fn play_game(start: Position, policy: Policy, seed: u64) -> (Vec<Position>, Vec<Move>) {
    let mut rng = SplitMix64(seed);
    let mut pos = start;
    let (mut positions, mut moves) = (vec![pos], Vec::new());
    for _ in 0..MAX_PLIES {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = choose(&pos, &legal, policy, &mut rng);
        pos = pos.after(m);
        positions.push(pos);
        moves.push(m);
    }
    (positions, moves)
}

/// A move in pyffish's notation: ICCS with ranks counted 1–10.
fn iccs_to_pyffish(m: Move) -> String {
    let square = |s: Square| format!("{}{}", char::from(b'a' + s.file()), s.rank() + 1);
    format!("{}{}", square(m.from()), square(m.to()))
}

/// pyffish writes ranks 1–10 where ICCS writes 0–9 (`b3b10` is `b2b9`).
fn pyffish_to_iccs(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let split = 1 + bytes[1..].iter().position(|b| b.is_ascii_alphabetic())?;
    let square = |s: &str| -> Option<String> {
        let (file, rank) = s.split_at(1);
        let rank: u8 = rank.parse().ok()?;
        (1..=10).contains(&rank).then(|| format!("{file}{}", rank - 1))
    };
    Some(format!("{}{}", square(&text[..split])?, square(&text[split..])?))
}

/// The long-lived pyffish helper process (`scripts/pyffish_oracle.py`).
struct Oracle {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// What pyffish says about one position.
struct Verdict {
    legal: BTreeSet<String>,
    check: bool,
}

const SETUP_HINT: &str = "run `bash scripts/setup-python.sh` (the README's test command \
                          `bash scripts/test.sh` does it) to create .venv with pyffish, or set \
                          XQ_PYTHON to a Python that has pyffish";

impl Oracle {
    /// The oracle, or `None` (the test skips, saying why) when no Python is set up and
    /// `XQ_REQUIRE_PYTHON` is unset; `scripts/test.sh` sets it, so there the test never skips.
    fn start() -> Option<Oracle> {
        let python = xq_testkit::test_python()?;
        let script = xq_testkit::workspace_file("scripts/pyffish_oracle.py");
        let mut child = Command::new(&python)
            .arg(&script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start {} {}: {e}; {SETUP_HINT}", python.display(), script.display())
            });
        let stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        let _ = stdout.read_line(&mut line);
        let hello: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        assert_eq!(
            hello["ready"],
            Value::Bool(true),
            "pyffish is not available to {}: {}; {SETUP_HINT}",
            python.display(),
            hello["error"].as_str().unwrap_or(line.trim())
        );
        eprintln!("differential test: pyffish {} via {}", hello["pyffish"], python.display());
        Some(Oracle { child, stdin, stdout })
    }

    /// pyffish's verdict on every position of a game (`moves[i]` leads from `fens[i]` to `fens[i + 1]`).
    fn ask(&mut self, fens: &[String], moves: &[Move]) -> Vec<Result<Verdict, String>> {
        let moves: Vec<String> = moves.iter().map(|&m| iccs_to_pyffish(m)).collect();
        writeln!(self.stdin, "{}", json!({ "fens": fens, "moves": moves })).expect("write to pyffish helper");
        self.stdin.flush().expect("flush to pyffish helper");
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read from pyffish helper");
        let reply: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("pyffish helper sent {line:?}: {e}"));
        let results = reply["results"].as_array().expect("results array");
        assert_eq!(results.len(), fens.len(), "one pyffish result per FEN");
        results
            .iter()
            .map(|r| {
                if let Some(e) = r["error"].as_str() {
                    return Err(e.to_string());
                }
                let legal = r["legal"]
                    .as_array()
                    .expect("legal array")
                    .iter()
                    .map(|m| {
                        let m = m.as_str().expect("move string");
                        pyffish_to_iccs(m).unwrap_or_else(|| panic!("unreadable pyffish move {m:?}"))
                    })
                    .collect();
                Ok(Verdict { legal, check: r["check"].as_bool().expect("check bool") })
            })
            .collect()
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        // The helper holds no state worth a clean exit; never leave it running.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starting positions besides the opening: the Pikafish bench positions (middlegames and
/// endgames with pins and sparse boards that random play from the start rarely reaches).
fn bench_positions() -> Vec<Position> {
    let path = xq_testkit::workspace_file("data/oracles/perft_positions.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let oracle: Value = serde_json::from_str(&text).expect("oracle JSON");
    oracle["pikafish_bench"]["positions"]
        .as_array()
        .expect("positions")
        .iter()
        .map(|p| Position::from_fen(p["fen"].as_str().expect("fen")).expect("bench FEN is legal"))
        .collect()
}

#[derive(Default)]
struct Tally {
    positions: usize,
    checks: usize,
    mates: usize,
    stalemates: usize,
    mismatches: usize,
}

#[test]
fn legal_moves_and_check_agree_with_pyffish() {
    let games: usize =
        std::env::var("XQ_DIFF_GAMES").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_GAMES);
    let started = Instant::now();
    let Some(mut oracle) = Oracle::start() else { return };
    let starts = bench_positions();
    let mut tally = Tally::default();
    for game in 0..games {
        let policy = [Policy::Uniform, Policy::Tactical, Policy::Squeeze, Policy::Smother][game % 4];
        // Every fifth game starts from a bench position (cycling through the policies too);
        // the rest from the opening.
        let start = if game % 5 == 4 { starts[(game / 5) % starts.len()] } else { Position::startpos() };
        let seed = 0x5EED_0000 + game as u64;
        let (positions, moves) = play_game(start, policy, seed);
        let fens: Vec<String> = positions.iter().map(Position::fen).collect();
        let verdicts = oracle.ask(&fens, &moves);
        for (ply, ((pos, fen), verdict)) in positions.iter().zip(&fens).zip(verdicts).enumerate() {
            let ours: BTreeSet<String> = pos.legal_moves().iter().map(|m| m.iccs()).collect();
            let in_check = pos.in_check();
            tally.positions += 1;
            tally.checks += usize::from(in_check);
            if ours.is_empty() {
                if in_check {
                    tally.mates += 1;
                } else {
                    tally.stalemates += 1;
                }
            }
            let verdict = match verdict {
                Ok(v) => v,
                Err(e) => {
                    tally.mismatches += 1;
                    if tally.mismatches <= MAX_REPORTED {
                        eprintln!(
                            "MISMATCH game {game} ({policy:?}, seed {seed:#x}) ply {ply}: {fen}\n  pyffish rejects it: {e}"
                        );
                    }
                    continue;
                }
            };
            if ours != verdict.legal || in_check != verdict.check {
                tally.mismatches += 1;
                if tally.mismatches <= MAX_REPORTED {
                    let only_xq: Vec<&String> = ours.difference(&verdict.legal).collect();
                    let only_ffish: Vec<&String> = verdict.legal.difference(&ours).collect();
                    eprintln!(
                        "MISMATCH game {game} ({policy:?}, seed {seed:#x}) ply {ply}: {fen}\n  \
                         in check: xq {in_check}, pyffish {}\n  only in xq: {only_xq:?}\n  only in pyffish: {only_ffish:?}",
                        verdict.check
                    );
                }
            }
        }
    }
    eprintln!(
        "differential test: {games} games, {} positions compared, {} in check, {} checkmates, {} stalemates, \
         {} mismatches, {:.1}s",
        tally.positions,
        tally.checks,
        tally.mates,
        tally.stalemates,
        tally.mismatches,
        started.elapsed().as_secs_f64()
    );
    assert_eq!(tally.mismatches, 0, "xq and pyffish disagree (details above)");
    // Guard against a vacuous pass: the biased games must have reached these cases.
    if games >= DEFAULT_GAMES {
        assert!(tally.checks > 0, "no position in check was compared");
        assert!(tally.mates > 0, "no checkmate was compared");
        assert!(tally.stalemates > 0, "no stalemate was compared");
    }
}

#[test]
fn pyffish_ranks_convert_to_iccs() {
    assert_eq!(pyffish_to_iccs("b3b10").as_deref(), Some("b2b9"));
    assert_eq!(pyffish_to_iccs("h10g8").as_deref(), Some("h9g7"));
    assert_eq!(pyffish_to_iccs("a1a2").as_deref(), Some("a0a1"));
    assert_eq!(pyffish_to_iccs("a0a1"), None);
    assert_eq!(pyffish_to_iccs("a11a1"), None);
    let m = Move::new(Square::parse("h9").unwrap(), Square::parse("g7").unwrap());
    assert_eq!(iccs_to_pyffish(m), "h10g8");
}
