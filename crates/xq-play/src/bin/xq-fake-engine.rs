//! `xq-fake-engine`: a tiny UCI/UCCI engine for testing the engine adapters.
//!
//! ```text
//! xq-fake-engine [--protocol uci|ucci] [--rank-offset N] [--name NAME] [--mode MODE]
//! MODE: first          play the first legal move (default)
//!       illegal        play a well-formed but illegal move
//!       garbage        answer `bestmove xyzzy`
//!       nomove         answer `bestmove (none)` (UCI) or `nobestmove` (UCCI)
//!       crash-after:N  answer N searches, then exit on the next `go` without answering
//!       hang           never answer `go`
//!       slow:MS        wait MS milliseconds before answering
//!       mute           never finish the handshake
//! ```

use std::io::{BufRead, Write};
use std::time::Duration;
use xq_core::{Game, GameRules, Move, START_FEN, Square};
use xq_play::engine::{format_move, parse_move};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    First,
    Illegal,
    Garbage,
    NoMove,
    CrashAfter(u32),
    Hang,
    Slow(u64),
    Mute,
}

struct Options {
    ucci: bool,
    rank_offset: u8,
    name: String,
    mode: Mode,
}

fn parse_args() -> Result<Options, String> {
    let mut options =
        Options { ucci: false, rank_offset: 0, name: "xq-fake-engine".to_string(), mode: Mode::First };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--protocol" => match value()?.as_str() {
                "uci" => options.ucci = false,
                "ucci" => options.ucci = true,
                other => return Err(format!("unknown protocol {other:?}")),
            },
            "--rank-offset" => {
                options.rank_offset = value()?.parse().map_err(|e| format!("--rank-offset: {e}"))?
            }
            "--name" => options.name = value()?,
            "--mode" => {
                let text = value()?;
                let number = |s: &str| s.parse::<u64>().map_err(|e| format!("--mode {text}: {e}"));
                options.mode = match text.split_once(':') {
                    None if text == "first" => Mode::First,
                    None if text == "illegal" => Mode::Illegal,
                    None if text == "garbage" => Mode::Garbage,
                    None if text == "nomove" => Mode::NoMove,
                    None if text == "hang" => Mode::Hang,
                    None if text == "mute" => Mode::Mute,
                    Some(("crash-after", n)) => Mode::CrashAfter(number(n)? as u32),
                    Some(("slow", ms)) => Mode::Slow(number(ms)?),
                    _ => return Err(format!("unknown mode {text:?}")),
                };
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

/// The game after a `position` command, or a reason it is wrong.
fn set_position(rest: &str, rank_offset: u8) -> Result<Game, String> {
    let (setup, moves) = match rest.split_once(" moves ") {
        Some((setup, moves)) => (setup, moves),
        None => (rest, ""),
    };
    let fen = match setup.trim() {
        "startpos" => START_FEN,
        s => s.strip_prefix("fen ").ok_or_else(|| format!("bad position {rest:?}"))?,
    };
    let mut game = Game::from_fen(fen, GameRules::default()).map_err(|e| e.to_string())?;
    for text in moves.split_whitespace() {
        let mv = parse_move(text, rank_offset).ok_or_else(|| format!("bad move {text:?}"))?;
        game.play(mv).map_err(|e| e.to_string())?;
    }
    Ok(game)
}

/// A move whose origin holds a piece of the side to move but that is not legal.
fn illegal_move(game: &Game) -> Option<Move> {
    let pos = game.position();
    Square::all()
        .filter(|&s| pos.piece_at(s).is_some_and(|p| p.color == pos.side_to_move()))
        .flat_map(|from| Square::all().map(move |to| Move::new(from, to)))
        .find(|&m| !pos.is_legal(m))
}

fn main() {
    let options = match parse_args() {
        Ok(options) => options,
        Err(e) => {
            eprintln!("xq-fake-engine: {e}");
            std::process::exit(2);
        }
    };
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut game = Game::new(xq_core::Position::startpos(), GameRules::default());
    let mut answered = 0u32;
    let mut say = |line: &str| {
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            std::process::exit(0);
        }
    };
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let line = line.trim();
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        match command {
            "uci" | "ucci" if options.mode != Mode::Mute => {
                say(&format!("id name {}", options.name));
                say("id author xq");
                say(if options.ucci { "ucciok" } else { "uciok" });
            }
            "isready" if options.mode != Mode::Mute => say("readyok"),
            "position" => match set_position(rest, options.rank_offset) {
                Ok(g) => game = g,
                Err(e) => {
                    eprintln!("xq-fake-engine: {e}");
                    std::process::exit(3);
                }
            },
            "go" => {
                match options.mode {
                    Mode::CrashAfter(n) if answered >= n => std::process::exit(1),
                    Mode::Hang => loop {
                        std::thread::sleep(Duration::from_secs(3600));
                    },
                    Mode::Slow(ms) => std::thread::sleep(Duration::from_millis(ms)),
                    _ => {}
                }
                let moves = game.position().legal_moves();
                let answer = match (options.mode, moves.first()) {
                    (Mode::Garbage, _) => "bestmove xyzzy".to_string(),
                    (Mode::NoMove, _) | (_, None) if options.ucci => "nobestmove".to_string(),
                    (Mode::NoMove, _) | (_, None) => "bestmove (none)".to_string(),
                    (Mode::Illegal, Some(_)) => match illegal_move(&game) {
                        Some(m) => format!("bestmove {}", format_move(m, options.rank_offset)),
                        None => "bestmove (none)".to_string(),
                    },
                    (_, Some(&m)) => format!("bestmove {}", format_move(m, options.rank_offset)),
                };
                let score = if options.ucci { "score 12" } else { "score cp 12" };
                say(&format!("info depth 1 {score} nodes {} pv", moves.len()));
                say(&answer);
                answered += 1;
            }
            "quit" => break,
            _ => {}
        }
    }
}
