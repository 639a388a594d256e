//! External engines as subprocesses, speaking UCI (Pikafish, Fairy-Stockfish) or UCCI
//! (ElephantEye).
//!
//! Every wait has a timeout: start-up (`uciok`/`ucciok`), `readyok`, and `bestmove` (the move
//! time plus a margin, or a search timeout for depth and node searches). A hang is killed and
//! reported as [`PlayerError::Timeout`], end of output as [`PlayerError::Crashed`], an
//! unparsable answer as [`PlayerError::Protocol`]; the runner records each as a loss. The
//! move itself is checked by the runner, never trusted. A dead engine is restarted at the
//! next [`Player::new_game`], so an event goes on.
//!
//! The other direction, any [`Player`] served as a UCI or UCCI engine, is [`EngineServer`]
//! (what `xq engine` runs).

mod process;
mod server;

use crate::clock::Clocks;
use crate::player::{GameStart, MoveChoice, Player, PlayerError, Score, SearchLimits};
use process::Process;
pub use server::{EngineServer, Flow, ServerConfig, ServerError, serve};
use std::path::PathBuf;
use std::time::Duration;
use xq_core::{Game, Move, Square};

/// The engine's dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// UCI as Pikafish and Fairy-Stockfish speak it: `uci`, `ucinewgame`,
    /// `setoption name N value V`, `go depth|nodes|movetime`, `score cp|mate`.
    Uci,
    /// UCCI as ElephantEye speaks it: `ucci`, `setoption N V`, `go depth|nodes|time` (times in
    /// milliseconds after `setoption usemillisec true`), `nobestmove`, `score N`.
    Ucci,
}

/// How an engine writes the squares of a move: files `a`–`i` from Red's left, and ranks from
/// Red's side counted from 0 or from 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Coordinates {
    /// ICCS, ranks 0–9 (`h2e2`): Pikafish, ElephantEye, xq.
    #[default]
    Iccs,
    /// Ranks 1–10 (`h3e3`, `a10a9`): Fairy-Stockfish, pychess-variants.
    Fairy,
}

impl Coordinates {
    /// What is added to an ICCS rank in this notation.
    pub fn rank_offset(self) -> u8 {
        match self {
            Coordinates::Iccs => 0,
            Coordinates::Fairy => 1,
        }
    }
}

/// How to start and talk to an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// The name in game records; the engine's `id name` when `None`.
    pub name: Option<String>,
    /// The program to run.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The dialect.
    pub protocol: Protocol,
    /// UCI only: `UCI_Variant` to select first (`xiangqi` for Fairy-Stockfish).
    pub variant: Option<String>,
    /// Engine options (`setoption`), in order.
    pub options: Vec<(String, String)>,
    /// Added to ranks in the engine's move text: 0 for ICCS ranks 0–9 (Pikafish, ElephantEye),
    /// 1 for ranks 1–10 (Fairy-Stockfish).
    pub rank_offset: u8,
    /// Wait for `uciok`/`ucciok`.
    pub startup_timeout: Duration,
    /// Wait for `readyok`.
    pub ready_timeout: Duration,
    /// Wait for `bestmove` beyond the move time.
    pub move_margin: Duration,
    /// Wait for `bestmove` when the limits give no move time (depth or node searches).
    pub search_timeout: Duration,
    /// Limits used when a game's limits name none of depth, nodes or movetime.
    pub default_limits: SearchLimits,
}

impl EngineConfig {
    /// A config with default timeouts (start-up 10 s, ready 5 s, margin 1 s, search 60 s)
    /// and a default of 1 s per move.
    pub fn new(program: impl Into<PathBuf>, protocol: Protocol) -> EngineConfig {
        EngineConfig {
            name: None,
            program: program.into(),
            args: Vec::new(),
            protocol,
            variant: None,
            options: Vec::new(),
            rank_offset: 0,
            startup_timeout: Duration::from_secs(10),
            ready_timeout: Duration::from_secs(5),
            move_margin: Duration::from_secs(1),
            search_timeout: Duration::from_secs(60),
            default_limits: SearchLimits::movetime(Duration::from_secs(1)),
        }
    }
}

/// An engine in a subprocess, as a [`Player`].
pub struct Engine {
    config: EngineConfig,
    name: String,
    process: Option<Process>,
}

impl Engine {
    /// Starts the engine and completes the handshake.
    pub fn start(config: EngineConfig) -> Result<Engine, PlayerError> {
        let mut engine = Engine { name: String::new(), config, process: None };
        let reported = engine.launch()?;
        engine.name = match (&engine.config.name, reported) {
            (Some(name), _) => name.clone(),
            (None, Some(id)) => id,
            (None, None) => engine
                .config
                .program
                .file_name()
                .map_or_else(|| "engine".to_string(), |f| f.to_string_lossy().into_owned()),
        };
        Ok(engine)
    }

    /// The config it runs with.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Spawns the process, handshakes, sets options; returns the engine's `id name`.
    fn launch(&mut self) -> Result<Option<String>, PlayerError> {
        self.process = None;
        let mut process = Process::spawn(&self.config.program, &self.config.args)?;
        let (hello, ok) = match self.config.protocol {
            Protocol::Uci => ("uci", "uciok"),
            Protocol::Ucci => ("ucci", "ucciok"),
        };
        process.send(hello)?;
        let mut id = None;
        process.wait_for(self.config.startup_timeout, &format!("waiting for {ok}"), |line| {
            if let Some(name) = line.strip_prefix("id name ") {
                id = Some(name.trim().to_string());
            }
            (line == ok).then_some(())
        })?;
        if let (Protocol::Uci, Some(variant)) = (self.config.protocol, &self.config.variant) {
            process.send(&format!("setoption name UCI_Variant value {variant}"))?;
        }
        if self.config.protocol == Protocol::Ucci {
            // UCCI clocks are in seconds unless this is set; `go time` below sends milliseconds.
            process.send("setoption usemillisec true")?;
        }
        for (name, value) in &self.config.options {
            match self.config.protocol {
                Protocol::Uci => process.send(&format!("setoption name {name} value {value}"))?,
                Protocol::Ucci => process.send(&format!("setoption {name} {value}"))?,
            }
        }
        self.process = Some(process);
        self.sync()?;
        Ok(id)
    }

    /// `isready` … `readyok`.
    fn sync(&mut self) -> Result<(), PlayerError> {
        let timeout = self.config.ready_timeout;
        let process = self.running()?;
        process.send("isready")?;
        process.wait_for(timeout, "waiting for readyok", |line| (line == "readyok").then_some(()))
    }

    fn running(&mut self) -> Result<&mut Process, PlayerError> {
        self.process.as_mut().ok_or_else(|| PlayerError::Crashed("the engine is not running".to_string()))
    }

    /// The `go` command for `limits` in this dialect, and how long to wait for its answer. At
    /// a time control the engine is sent both clocks and manages its own time; otherwise it
    /// gets the move time.
    fn go_command(&self, limits: &SearchLimits, red_to_move: bool) -> (String, Duration) {
        let named = limits.depth.is_some()
            || limits.nodes.is_some()
            || limits.movetime.is_some()
            || limits.clocks.is_some();
        let limits = if named { limits } else { &self.config.default_limits };
        let mut go = String::from("go");
        if let Some(depth) = limits.depth {
            go.push_str(&format!(" depth {depth}"));
        }
        if let Some(nodes) = limits.nodes {
            go.push_str(&format!(" nodes {nodes}"));
        }
        let ms = |d: Duration| d.as_millis();
        let wait = match (limits.clocks, limits.movetime) {
            (Some(Clocks { own, opponent }), _) => {
                let (red, black) = if red_to_move { (own, opponent) } else { (opponent, own) };
                match self.config.protocol {
                    Protocol::Uci => {
                        go.push_str(&format!(
                            " wtime {} btime {} winc {} binc {}",
                            ms(red.remaining),
                            ms(black.remaining),
                            ms(red.increment),
                            ms(black.increment)
                        ));
                    }
                    // The client asked for milliseconds (`setoption usemillisec true`).
                    Protocol::Ucci => go.push_str(&format!(
                        " time {} increment {} opptime {} oppincrement {}",
                        ms(own.remaining),
                        ms(own.increment),
                        ms(opponent.remaining),
                        ms(opponent.increment)
                    )),
                }
                if let Some(moves) = own.moves_to_go {
                    go.push_str(&format!(" movestogo {moves}"));
                }
                own.remaining + self.config.move_margin
            }
            (None, Some(time)) => {
                let ms = ms(time).max(1);
                match self.config.protocol {
                    Protocol::Uci => go.push_str(&format!(" movetime {ms}")),
                    // UCCI's `time` is the clock; with one move to go it is this move's time.
                    Protocol::Ucci => go.push_str(&format!(" time {ms} movestogo 1")),
                }
                time + self.config.move_margin
            }
            (None, None) => self.config.search_timeout,
        };
        if go == "go" {
            // Default limits with nothing in them: let the depth decide, under the timeout.
            go.push_str(" depth 1");
        }
        (go, wait)
    }

    fn ask(&mut self, game: &Game, limits: &SearchLimits) -> Result<MoveChoice, PlayerError> {
        let offset = self.config.rank_offset;
        let protocol = self.config.protocol;
        let mut position = format!("position fen {}", start_fen(game));
        if !game.moves().is_empty() {
            position.push_str(" moves");
            for &m in game.moves() {
                position.push(' ');
                position.push_str(&format_move(m, offset));
            }
        }
        let (go, wait) = self.go_command(limits, game.position().side_to_move() == xq_core::Color::Red);
        let process = self.running()?;
        process.send(&position)?;
        process.send(&go)?;
        let mut info = SearchInfo::default();
        let answer = process.wait_for(wait, "waiting for bestmove", |line| {
            if let Some(rest) = line.strip_prefix("info ") {
                info.update(rest, protocol);
                None
            } else if line == "nobestmove" {
                Some(None)
            } else {
                line.strip_prefix("bestmove").map(|rest| rest.split_whitespace().next().map(str::to_string))
            }
        })?;
        let Some(text) = answer else {
            return Err(PlayerError::NoMove("the engine answered without a move".to_string()));
        };
        if text == "(none)" || text == "none" || text == "0000" {
            return Err(PlayerError::NoMove(format!("bestmove {text}")));
        }
        let mv = parse_move(&text, offset)
            .ok_or_else(|| PlayerError::Protocol(format!("unparsable bestmove {text:?}")))?;
        let pv = legal_prefix(game.position(), &info.pv, offset);
        Ok(MoveChoice {
            mv,
            score: info.score,
            depth: info.depth,
            seldepth: info.seldepth,
            nodes: info.nodes,
            visits: None,
            policy: Vec::new(),
            pv: if pv.first() == Some(&mv) { pv } else { Vec::new() },
        })
    }
}

impl Player for Engine {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, _game: &Game, _start: GameStart) -> Result<(), PlayerError> {
        if self.process.is_none() {
            self.launch()?;
        }
        if self.config.protocol == Protocol::Uci {
            self.running()?.send("ucinewgame")?;
        }
        let synced = self.sync();
        if synced.is_err() {
            self.process = None;
        }
        synced
    }

    fn choose_move(&mut self, game: &Game, limits: &SearchLimits) -> Result<MoveChoice, PlayerError> {
        let answer = self.ask(game, limits);
        if matches!(answer, Err(PlayerError::Timeout { .. } | PlayerError::Crashed(_) | PlayerError::Io(_))) {
            // Killed or dead: start afresh at the next game.
            self.process = None;
        }
        answer
    }
}

/// What the engine said about its search in `info` lines.
#[derive(Clone, Debug, Default)]
struct SearchInfo {
    score: Option<Score>,
    depth: Option<u32>,
    seldepth: Option<u32>,
    nodes: Option<u64>,
    /// The last `pv`, as words.
    pv: Vec<String>,
}

impl SearchInfo {
    fn update(&mut self, rest: &str, protocol: Protocol) {
        let mut tokens = rest.split_whitespace();
        while let Some(token) = tokens.next() {
            match token {
                "depth" => self.depth = tokens.next().and_then(|t| t.parse().ok()).or(self.depth),
                "seldepth" => self.seldepth = tokens.next().and_then(|t| t.parse().ok()).or(self.seldepth),
                "nodes" => self.nodes = tokens.next().and_then(|t| t.parse().ok()).or(self.nodes),
                "score" => {
                    let score = match tokens.next() {
                        Some("cp") => tokens.next().and_then(|t| t.parse().ok()).map(Score::Centipawns),
                        Some("mate") => tokens.next().and_then(|t| t.parse().ok()).map(Score::Mate),
                        // UCCI gives the number alone.
                        Some(n) if protocol == Protocol::Ucci => n.parse().ok().map(Score::Centipawns),
                        _ => None,
                    };
                    self.score = score.or(self.score);
                }
                // The rest of the line is the variation.
                "pv" => {
                    self.pv = tokens.map(str::to_string).collect();
                    break;
                }
                "string" => break,
                _ => {}
            }
        }
    }
}

/// The longest prefix of an engine's `pv` words that parses and is legal move by move from
/// `position`: an engine's variation is reported, never trusted.
fn legal_prefix(position: &xq_core::Position, words: &[String], offset: u8) -> Vec<Move> {
    let mut position = *position;
    let mut line = Vec::new();
    for word in words {
        match parse_move(word, offset) {
            Some(m) if position.is_legal(m) => {
                position.make(m);
                line.push(m);
            }
            _ => break,
        }
    }
    line
}

/// The FEN of the game's start position with its clocks.
fn start_fen(game: &Game) -> String {
    let mut start = game.clone();
    while start.undo().is_some() {}
    start.fen()
}

/// A move in the engine's coordinates: ICCS with `offset` added to ranks.
pub fn format_move(m: Move, offset: u8) -> String {
    let square =
        |s: Square| format!("{}{}", (b'a' + s.file()) as char, u32::from(s.rank()) + u32::from(offset));
    format!("{}{}", square(m.from()), square(m.to()))
}

/// Parses a move in the engine's coordinates (`h2e2`, or `h3e3` / `a10a9` with offset 1).
/// Only the syntax is checked: legality is the arbiter's.
pub fn parse_move(text: &str, offset: u8) -> Option<Move> {
    let bytes = text.as_bytes();
    let mut at = 0;
    let mut square = || -> Option<Square> {
        let file = bytes.get(at)?.checked_sub(b'a').filter(|&f| f < 9)?;
        at += 1;
        let digits_start = at;
        while at < bytes.len() && bytes[at].is_ascii_digit() && at - digits_start < 2 {
            at += 1;
        }
        let rank: u32 = text.get(digits_start..at)?.parse().ok()?;
        let rank = rank.checked_sub(u32::from(offset)).filter(|&r| r < 10)?;
        Square::new(file, rank as u8)
    };
    let from = square()?;
    let to = square()?;
    (at == bytes.len()).then(|| Move::new(from, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_round_trip_with_rank_offsets() {
        let pos = xq_core::Position::startpos();
        for &m in pos.legal_moves().iter() {
            for offset in [0, 1] {
                assert_eq!(parse_move(&format_move(m, offset), offset), Some(m));
            }
        }
        let a9 = Square::parse("a9").unwrap();
        let a8 = Square::parse("a8").unwrap();
        assert_eq!(format_move(Move::new(a9, a8), 1), "a10a9");
        assert_eq!(parse_move("a10a9", 1), Some(Move::new(a9, a8)));
        for bad in ["", "h2", "h2e", "j2e2", "h2e2x", "a10a9", "h-2e2"] {
            assert_eq!(parse_move(bad, 0), None, "{bad}");
        }
        assert_eq!(parse_move("a0a1", 1), None);
    }

    #[test]
    fn info_lines_are_read() {
        let mut info = SearchInfo::default();
        info.update("depth 12 seldepth 20 score cp -35 nodes 12345 pv h2e2 h9g7", Protocol::Uci);
        assert_eq!(
            (info.depth, info.nodes, info.score),
            (Some(12), Some(12345), Some(Score::Centipawns(-35)))
        );
        assert_eq!((info.seldepth, info.pv.join(" ")), (Some(20), "h2e2 h9g7".to_string()));
        info.update("depth 13 score mate 3", Protocol::Uci);
        assert_eq!(info.score, Some(Score::Mate(3)));
        let mut info = SearchInfo::default();
        info.update("depth 5 score 47 pv h2e2", Protocol::Ucci);
        assert_eq!(info.score, Some(Score::Centipawns(47)));
        info.update("string score 99", Protocol::Ucci);
        assert_eq!(info.score, Some(Score::Centipawns(47)));
    }

    #[test]
    fn clocks_are_sent_as_clocks_and_move_times_as_move_times() {
        let ms = Duration::from_millis;
        let engine = |protocol| Engine {
            name: "e".into(),
            config: EngineConfig::new("unused", protocol),
            process: None,
        };
        let clocks = Clocks {
            own: crate::Clock { remaining: ms(9_500), increment: ms(100), moves_to_go: None },
            opponent: crate::Clock { remaining: ms(8_000), increment: ms(200), moves_to_go: None },
        };
        let limits = SearchLimits { clocks: Some(clocks), movetime: Some(ms(400)), ..SearchLimits::NONE };
        let uci = engine(Protocol::Uci);
        let (go, wait) = uci.go_command(&limits, true);
        assert_eq!(go, "go wtime 9500 btime 8000 winc 100 binc 200");
        assert_eq!(wait, ms(9_500) + uci.config.move_margin, "the engine may use its whole clock");
        let (go, _) = uci.go_command(&limits, false);
        assert_eq!(go, "go wtime 8000 btime 9500 winc 200 binc 100");
        let period = Clocks { own: crate::Clock { moves_to_go: Some(7), ..clocks.own }, ..clocks };
        let (go, _) =
            engine(Protocol::Ucci).go_command(&SearchLimits { clocks: Some(period), ..limits }, false);
        assert_eq!(go, "go time 9500 increment 100 opptime 8000 oppincrement 200 movestogo 7");
        let (go, wait) = uci.go_command(&SearchLimits::movetime(ms(400)), true);
        assert_eq!((go.as_str(), wait), ("go movetime 400", ms(400) + uci.config.move_margin));
    }

    #[test]
    fn start_fen_keeps_the_clocks() {
        let mut game =
            Game::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 7 12", xq_core::GameRules::default()).unwrap();
        let m = xq_core::notation::parse_move(game.position(), "a0a1").unwrap();
        game.play(m).unwrap();
        assert_eq!(start_fen(&game), "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 7 12");
    }
}
