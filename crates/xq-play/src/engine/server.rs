//! The other side of [`super::Engine`]: any [`Player`] served as a UCI or UCCI engine, so
//! Xiangqi GUIs and match runners (xq-eval's `uci`/`ucci` players included) can play it.
//!
//! [`EngineServer`] reads commands from any [`BufRead`] and answers on any [`Write`], so it is
//! tested on scripted input without processes; `xq engine` runs it on stdin and stdout.
//!
//! # Commands
//! - `uci` / `ucci`: the handshake (`id name`, `id author`, options, `uciok` / `ucciok`). The
//!   hello also selects the dialect for the rest of the session, whatever the configured one.
//! - `isready` → `readyok`; `ucinewgame` makes the next search start a new game for the player
//!   ([`Player::new_game`]).
//! - `setoption name N value V` (UCI) or `setoption N V` (UCCI): `Visits` (visits per search
//!   when `go` names neither nodes nor a time), `MoveOverhead` (milliseconds kept back from every timed move,
//!   [`DEFAULT_MOVE_OVERHEAD`] unless set), `usemillisec` (UCCI times in milliseconds rather than seconds),
//!   `UCI_Variant` (only `xiangqi`); other options are answered with an `info string` and ignored.
//! - `position startpos|fen FEN [moves M…]`: moves in ICCS coordinates ([`super::format_move`]),
//!   ranks shifted by [`ServerConfig::rank_offset`]. A malformed FEN or an illegal move is
//!   reported and leaves the position as it was.
//! - `banmoves M…` (UCCI): moves the next search must not play; cleared by `position`. Banned
//!   moves and `searchmoves` restrict the search itself ([`Player::choose_move_among`]: a tree
//!   search never expands the excluded root moves); a player that cannot restrict its search
//!   has a choice outside them replaced by its best allowed move.
//! - `go` with, in UCI, `depth`, `nodes`, `movetime`, `wtime`/`btime`/`winc`/`binc`/`movestogo`,
//!   `searchmoves`, `infinite`, `ponder`, `mate`; in UCCI, `depth`, `nodes`, `time`,
//!   `increment`, `movestogo`, `opptime`/`oppincrement`/`oppmovestogo`, `infinite`, `ponder`,
//!   `draw`. They become [`SearchLimits`]: `nodes` sets both `nodes` and `visits` (a tree search
//!   counts visits), a clock becomes [`SearchLimits::clocks`] and a move time
//!   ([`Clock::move_time`]: the remaining time over the moves to go, 30 when unknown, plus the
//!   increment, at most nine tenths of the remaining time), and every
//!   move time is searched less the `MoveOverhead`, so the answer arrives in time. Without
//!   nodes, `visits` is the `Visits` option. The answer is one `info` line (depth, seldepth,
//!   score, nodes, nps, time and the player's principal variation; a tree search's depth is
//!   the length of its most visited line) and `bestmove M`, or `bestmove (none)`
//!   (UCI) / `nobestmove` (UCCI) when there is no move.
//! - `stop` / `ponderhit`: [`EngineServer::run`] reads commands while the player searches, so
//!   `stop` (and `quit`) ends a search at once (its `bestmove` follows) and `isready` is
//!   answered during a search. Other commands wait for a timed search to finish, so a script
//!   may send `go depth 8` and what follows at once; they stop a held one. `go infinite` and
//!   `go ponder` search until `stop` ([`SearchLimits::infinite`]: only the tree's memory
//!   bounds them) and hold their `bestmove` until `stop` or `ponderhit`, as the protocols
//!   require. `ponderhit` turns a ponder search into a timed one: from then on it gets the
//!   time its `go ponder` clock gives, less the overhead (with no clock it answers at once).
//! - `quit` ends the session (UCCI answers `bye`); so does the end of input, after a timed
//!   search has answered.
//!
//! Anything else — an unknown command, a malformed number, a bad FEN — is answered with
//! `info string error …` and changes nothing; the server never panics on input. A player that
//! fails (or panics) is reported the same way, answered with no move, and starts a new game
//! at the next search.

use super::{Protocol, format_move, parse_move};
use crate::clock::{Clock, Clocks};
use crate::player::{GameStart, MoveChoice, Player, Score, SearchLimits, StopSignal};
use std::io::{BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::time::{Duration, Instant};
use thiserror::Error;
use xq_core::seed::derive_seed;
use xq_core::{Game, GameRules, Move, START_FEN};

/// The default `MoveOverhead`: time kept back from every move's budget for the answer to reach
/// the client and for its clock's granularity.
/// Stockfish's default: a third of a 100 ms move kept back (the value before) leaves an engine
/// searching for 70 ms against opponents that search for 100.
pub const DEFAULT_MOVE_OVERHEAD: Duration = Duration::from_millis(10);

/// Largest value the `MoveOverhead` option accepts, in milliseconds.
const MAX_MOVE_OVERHEAD_MS: u64 = 5_000;

/// Largest value the `Visits` option accepts.
const MAX_VISITS: u32 = 100_000_000;

/// How a server introduces itself and reads positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    /// The dialect until the client's hello (`uci` or `ucci`) names one.
    pub protocol: Protocol,
    /// `id name`.
    pub name: String,
    /// `id author`.
    pub author: String,
    /// Added to ranks in move text: 0 for ICCS ranks 0–9 (Pikafish, ElephantEye), 1 for 1–10.
    pub rank_offset: u8,
    /// The rules positions are played under (the 棋例 history the player sees).
    pub rules: GameRules,
    /// The seed every game's [`GameStart::seed`] derives from (with the game's number).
    pub seed: u64,
    /// Visits per search when `go` names no nodes (the `Visits` option's default); `None`
    /// leaves the budget to the player and does not advertise the option.
    pub visits: Option<u32>,
    /// Kept back from every timed move (the `MoveOverhead` option's default): a move time
    /// `t` becomes a search of `t − overhead`, at least a tenth of `t`, so the answer
    /// arrives within `t`.
    pub move_overhead: Duration,
}

impl ServerConfig {
    /// A config for `protocol` with the given `id name`, author `xq`, ICCS ranks, default
    /// rules, seed 0, no visits option and [`DEFAULT_MOVE_OVERHEAD`].
    pub fn new(protocol: Protocol, name: &str) -> ServerConfig {
        ServerConfig {
            protocol,
            name: name.to_string(),
            author: "xq".to_string(),
            rank_offset: 0,
            rules: GameRules::default(),
            seed: 0,
            visits: None,
            move_overhead: DEFAULT_MOVE_OVERHEAD,
        }
    }
}

/// Why a session ended other than by `quit` or the end of input.
#[derive(Debug, Error)]
pub enum ServerError {
    /// The commands could not be read.
    #[error("reading engine commands: {0}")]
    Read(#[source] std::io::Error),
    /// The answers could not be written (the client went away).
    #[error("writing engine answers: {0}")]
    Write(#[source] std::io::Error),
}

/// Whether the session goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// `quit` was received.
    Quit,
}

/// A [`Player`] behind the UCI or UCCI protocol (see the [module docs](self)).
///
/// ```
/// use xq_play::RandomPlayer;
/// use xq_play::engine::{Protocol, ServerConfig, serve};
///
/// let input = "uci\nisready\nposition startpos moves h2e2\ngo nodes 10\nquit\n";
/// let mut output = Vec::new();
/// serve(input.as_bytes(), &mut output, Box::new(RandomPlayer::new(1)), ServerConfig::new(Protocol::Uci, "random"))
///     .unwrap();
/// let text = String::from_utf8(output).unwrap();
/// assert!(text.contains("uciok\nreadyok\n"));
/// assert!(text.lines().last().unwrap().starts_with("bestmove "));
/// ```
pub struct EngineServer<W: Write> {
    config: ServerConfig,
    player: Box<dyn Player>,
    /// Shared with the command reader, which answers `isready` while the player searches.
    out: Arc<Mutex<W>>,
    protocol: Protocol,
    /// The position of the last valid `position` command, with its history.
    game: Game,
    /// `banmoves` for the next search.
    banned: Vec<Move>,
    /// Whether the player must be told of a new game before the next search.
    needs_new_game: bool,
    /// Games started so far (each one's seed derives from its number).
    games_started: u64,
    /// Visits per search when `go` names no nodes.
    visits: Option<u32>,
    /// The `MoveOverhead` option.
    move_overhead: Duration,
    /// UCCI: clock times in milliseconds (`usemillisec true`) rather than seconds.
    ucci_milliseconds: bool,
    /// A `bestmove` line held back until `stop` or `ponderhit` (`go infinite`, `go ponder`).
    held_answer: Option<String>,
}

impl<W: Write> std::fmt::Debug for EngineServer<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineServer")
            .field("player", &self.player.name())
            .field("protocol", &self.protocol)
            .field("fen", &self.game.fen())
            .finish()
    }
}

/// Serves `player` on `input` and `output` until `quit` or the end of input.
///
/// # Errors
/// [`ServerError`] when reading or writing fails; bad commands are answered, not errors.
pub fn serve<R: BufRead + Send, W: Write + Send>(
    input: R,
    output: W,
    player: Box<dyn Player>,
    config: ServerConfig,
) -> Result<(), ServerError> {
    EngineServer::new(player, config, output).run(input)
}

/// A `go` command, parsed.
#[derive(Clone, Debug, Default, PartialEq)]
struct Go {
    limits: SearchLimits,
    /// `searchmoves`: the search may only play these.
    only: Vec<Move>,
    /// `infinite` or `ponder`: hold the answer until `stop` / `ponderhit`.
    hold: bool,
    /// `ponder`: the move time its clock gives, for the search after `ponderhit`.
    ponder: Option<Duration>,
}

/// One `go` as the command reader and the session share it: its stop signal, whether its
/// search has ended, and what `ponderhit` must do to it.
#[derive(Debug, Default)]
struct SearchHandle {
    stop: StopSignal,
    /// `go infinite` or `go ponder`: it runs until stopped.
    held: bool,
    /// Set by the session once the search has ended, before it answers.
    finished: AtomicBool,
    ponder: Mutex<PonderState>,
}

/// A ponder search's state, set from both ends: `ponderhit` may arrive before the session has
/// started the search it applies to.
#[derive(Debug, Default)]
struct PonderState {
    /// The search is a ponder search with this move time after `ponderhit`.
    time_after_hit: Option<Duration>,
    /// `ponderhit` was read for it.
    hit: bool,
}

impl SearchHandle {
    fn running(&self) -> bool {
        !self.finished.load(Ordering::Acquire)
    }

    /// The session starts a ponder search that gets `time` once `ponderhit` arrives.
    fn ponder_for(&self, time: Duration) {
        let mut ponder = self.ponder.lock().unwrap_or_else(PoisonError::into_inner);
        ponder.time_after_hit = Some(time);
        if ponder.hit {
            self.stop.stop_after(time);
        }
    }

    /// The reader read `ponderhit`.
    fn ponder_hit(&self) {
        let mut ponder = self.ponder.lock().unwrap_or_else(PoisonError::into_inner);
        ponder.hit = true;
        if let Some(time) = ponder.time_after_hit {
            self.stop.stop_after(time);
        }
    }
}

/// A command line as the reader passes it on; a `go` comes with its handle.
type Command = Result<(String, Option<Arc<SearchHandle>>), std::io::Error>;

fn write_line<W: Write>(out: &Mutex<W>, line: &str) -> Result<(), ServerError> {
    let mut out = out.lock().unwrap_or_else(PoisonError::into_inner);
    writeln!(out, "{line}").and_then(|()| out.flush()).map_err(ServerError::Write)
}

/// Reads command lines and passes them on to the session, in order, while the session may be
/// searching:
/// - `stop` and `quit` stop the last `go`'s search, `ponderhit` starts its clock, the end of
///   input stops it when it is held;
/// - `isready` right after a `go` whose search has not ended is answered at once (the
///   protocols require it during a search); after any other command it waits its turn;
/// - any other command stops a held search (`go infinite`, `go ponder`): the protocols forbid
///   it before `stop`, and a held search would otherwise never end. A timed search finishes
///   first, so a script can send `go depth 8` and its next commands at once.
fn read_commands<R: BufRead, W: Write>(mut input: R, commands: &mpsc::Sender<Command>, out: &Mutex<W>) {
    let mut bytes = Vec::new();
    let mut last_go: Option<Arc<SearchHandle>> = None;
    // Whether only the last `go` (and `ponderhit`s) came since the last command passed on.
    let mut go_was_last = false;
    loop {
        bytes.clear();
        match input.read_until(b'\n', &mut bytes) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                let _ = commands.send(Err(e));
                break;
            }
        }
        let line = String::from_utf8_lossy(&bytes).into_owned();
        let mut words = line.split_whitespace();
        let command = words.next().unwrap_or("");
        let running = last_go.as_ref().filter(|search| search.running());
        let mut handle = None;
        match command {
            "" => continue,
            "isready" if go_was_last && running.is_some() => {
                if write_line(out, "readyok").is_err() {
                    break;
                }
                continue;
            }
            "ponderhit" => {
                if let Some(search) = running {
                    search.ponder_hit();
                }
            }
            "stop" | "quit" => {
                if let Some(search) = running {
                    search.stop.stop();
                }
            }
            "go" => {
                let held = words.any(|w| w == "infinite" || w == "ponder");
                let search = Arc::new(SearchHandle { held, ..SearchHandle::default() });
                handle = Some(Arc::clone(&search));
                last_go = Some(search);
            }
            _ => {
                if let Some(search) = running.filter(|search| search.held) {
                    search.stop.stop();
                }
            }
        }
        go_was_last = command == "go" || (command == "ponderhit" && go_was_last);
        let quit = command == "quit";
        if commands.send(Ok((line, handle))).is_err() || quit {
            break;
        }
    }
    // No `stop` can come any more: a held search ends now, a timed one runs to its limits.
    if let Some(search) = last_go.filter(|search| search.held) {
        search.stop.stop();
    }
}

/// A clock as `go` gives it (all in milliseconds).
#[derive(Clone, Copy, Debug, Default)]
struct GoClock {
    time: Option<u64>,
    increment: u64,
    moves_to_go: Option<u64>,
}

impl GoClock {
    /// The clock, when `go` gave its time.
    fn clock(self) -> Option<Clock> {
        Some(Clock {
            remaining: Duration::from_millis(self.time?),
            increment: Duration::from_millis(self.increment),
            moves_to_go: self.moves_to_go.map(|m| u32::try_from(m).unwrap_or(u32::MAX)),
        })
    }
}

impl<W: Write> EngineServer<W> {
    /// A server for `player` answering on `out`, at the start position.
    pub fn new(player: Box<dyn Player>, config: ServerConfig, out: W) -> EngineServer<W> {
        let game = Game::from_fen(START_FEN, config.rules).expect("the start FEN is valid");
        EngineServer {
            protocol: config.protocol,
            visits: config.visits,
            move_overhead: config.move_overhead,
            config,
            player,
            out: Arc::new(Mutex::new(out)),
            game,
            banned: Vec::new(),
            needs_new_game: true,
            games_started: 0,
            ucci_milliseconds: false,
            held_answer: None,
        }
    }

    /// The current position with its history.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The dialect in use.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The output, for inspection.
    pub fn output(&self) -> MutexGuard<'_, W> {
        self.out.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Handles commands until `quit` or the end of input. Lines need not be UTF-8 (invalid
    /// bytes make a line unknown, not an error). The input is read on a thread of its own
    /// while the player searches on this one, so `stop`, `ponderhit` and `isready` are heard
    /// during a search; the player need not be [`Send`].
    ///
    /// # Errors
    /// [`ServerError`] when reading or writing fails.
    pub fn run<R: BufRead + Send>(&mut self, input: R) -> Result<(), ServerError>
    where
        W: Send,
    {
        let out = Arc::clone(&self.out);
        std::thread::scope(|scope| {
            let (sender, commands) = mpsc::channel();
            scope.spawn(move || read_commands(input, &sender, &out));
            for command in commands {
                let (line, search) = command.map_err(ServerError::Read)?;
                if self.handle(&line, search)? == Flow::Quit {
                    return Ok(());
                }
            }
            self.release_held_answer()
        })
    }

    /// Handles one command line. Without [`EngineServer::run`]'s reader nothing can stop a
    /// search, so `go infinite` and `go ponder` search to the player's own budget here, and
    /// their `bestmove` waits for the `stop` or `ponderhit` line.
    ///
    /// # Errors
    /// [`ServerError::Write`] when the answer cannot be written.
    pub fn handle_line(&mut self, line: &str) -> Result<Flow, ServerError> {
        self.handle(line, None)
    }

    fn handle(&mut self, line: &str, search: Option<Arc<SearchHandle>>) -> Result<Flow, ServerError> {
        let line = line.trim();
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        if !matches!(command, "isready" | "stop" | "ponderhit" | "") {
            // A new command while an answer is held back: the protocols call for a `stop`
            // first, so the client has stopped waiting for it; answer before going on.
            self.release_held_answer()?;
        }
        match command {
            "" => {}
            "uci" => {
                self.protocol = Protocol::Uci;
                self.hello()?;
            }
            "ucci" => {
                self.protocol = Protocol::Ucci;
                self.hello()?;
            }
            "isready" => self.say("readyok")?,
            "ucinewgame" => self.needs_new_game = true,
            "setoption" => self.set_option(rest)?,
            "position" => match self.parse_position(rest) {
                Ok(game) => {
                    self.game = game;
                    self.banned.clear();
                }
                Err(why) => self.error(&format!("position: {why}; the position is unchanged"))?,
            },
            "banmoves" => match self.parse_moves(rest) {
                Ok(moves) => self.banned = moves,
                Err(why) => self.error(&format!("banmoves: {why}"))?,
            },
            "go" => {
                let parsed = self.parse_go(rest);
                let done = match parsed {
                    Ok(go) => self.go(go, search.as_deref()),
                    Err(why) => {
                        if let Some(search) = &search {
                            search.finished.store(true, Ordering::Release);
                        }
                        self.error(&format!("go: {why}; no search started"))
                    }
                };
                done?;
            }
            "stop" | "ponderhit" => self.release_held_answer()?,
            "quit" => {
                if self.protocol == Protocol::Ucci {
                    self.say("bye")?;
                }
                return Ok(Flow::Quit);
            }
            other => self.error(&format!("unknown command {other:?}"))?,
        }
        Ok(Flow::Continue)
    }

    fn say(&mut self, line: &str) -> Result<(), ServerError> {
        write_line(&self.out, line)
    }

    fn error(&mut self, what: &str) -> Result<(), ServerError> {
        // One line per answer, whatever the message holds.
        let what = what.replace(['\n', '\r'], " ");
        self.say(&format!("info string error {what}"))
    }

    fn release_held_answer(&mut self) -> Result<(), ServerError> {
        match self.held_answer.take() {
            Some(answer) => self.say(&answer),
            None => Ok(()),
        }
    }

    fn hello(&mut self) -> Result<(), ServerError> {
        let name = self.config.name.clone();
        let author = self.config.author.clone();
        self.say(&format!("id name {name}"))?;
        self.say(&format!("id author {author}"))?;
        match self.protocol {
            Protocol::Uci => {
                if let Some(visits) = self.visits {
                    self.say(&format!(
                        "option name Visits type spin default {visits} min 1 max {MAX_VISITS}"
                    ))?;
                }
                self.say(&format!(
                    "option name MoveOverhead type spin default {} min 0 max {MAX_MOVE_OVERHEAD_MS}",
                    self.move_overhead.as_millis()
                ))?;
                self.say("option name UCI_Variant type combo default xiangqi var xiangqi")?;
                self.say("uciok")
            }
            Protocol::Ucci => {
                if let Some(visits) = self.visits {
                    self.say(&format!("option Visits type spin min 1 max {MAX_VISITS} default {visits}"))?;
                }
                self.say(&format!(
                    "option MoveOverhead type spin min 0 max {MAX_MOVE_OVERHEAD_MS} default {}",
                    self.move_overhead.as_millis()
                ))?;
                self.say("option usemillisec type check default false")?;
                self.say("ucciok")
            }
        }
    }

    /// `setoption name N [value V]` or `setoption N [V]`.
    fn set_option(&mut self, rest: &str) -> Result<(), ServerError> {
        let (name, value) = match rest.strip_prefix("name ") {
            Some(named) => match named.split_once(" value ") {
                Some((name, value)) => (name.trim(), value.trim()),
                None => (named.trim(), ""),
            },
            None => rest.split_once(char::is_whitespace).map_or((rest, ""), |(n, v)| (n, v.trim())),
        };
        match name.to_ascii_lowercase().as_str() {
            "" => self.error("setoption: no option named"),
            "visits" => match value.parse::<u32>() {
                Ok(v) if (1..=MAX_VISITS).contains(&v) => {
                    self.visits = Some(v);
                    Ok(())
                }
                _ => {
                    self.error(&format!("setoption Visits: {value:?} is not a number from 1 to {MAX_VISITS}"))
                }
            },
            "moveoverhead" => match value.parse::<u64>() {
                Ok(ms) if ms <= MAX_MOVE_OVERHEAD_MS => {
                    self.move_overhead = Duration::from_millis(ms);
                    Ok(())
                }
                _ => self.error(&format!(
                    "setoption MoveOverhead: {value:?} is not a number of milliseconds from 0 to {MAX_MOVE_OVERHEAD_MS}"
                )),
            },
            "usemillisec" => match value {
                "true" => {
                    self.ucci_milliseconds = true;
                    Ok(())
                }
                "false" => {
                    self.ucci_milliseconds = false;
                    Ok(())
                }
                _ => self.error(&format!("setoption usemillisec: {value:?} is not true or false")),
            },
            "uci_variant" if value == "xiangqi" => Ok(()),
            "uci_variant" => {
                self.error(&format!("setoption UCI_Variant: only xiangqi is played, not {value:?}"))
            }
            _ => self.say(&format!("info string option {name:?} is not supported and was ignored")),
        }
    }

    /// The game a `position` command describes.
    fn parse_position(&self, rest: &str) -> Result<Game, String> {
        let (setup, moves) = match rest.split_once(" moves") {
            Some((setup, moves)) if moves.is_empty() || moves.starts_with(char::is_whitespace) => {
                (setup, moves)
            }
            _ => (rest, ""),
        };
        let setup = setup.trim();
        let fen = if setup == "startpos" {
            START_FEN
        } else if let Some(fen) = setup.strip_prefix("fen ") {
            fen.trim()
        } else {
            return Err(format!("expected `startpos` or `fen FEN`, got {setup:?}"));
        };
        let mut game = Game::from_fen(fen, self.config.rules).map_err(|e| format!("bad FEN {fen:?}: {e}"))?;
        for (index, text) in moves.split_whitespace().enumerate() {
            let mv = parse_move(text, self.config.rank_offset)
                .ok_or_else(|| format!("move {} {text:?} is not a move", index + 1))?;
            game.play(mv).map_err(|_| format!("move {} {text:?} is illegal in {}", index + 1, game.fen()))?;
        }
        Ok(game)
    }

    /// Moves in the protocol's coordinates, each legal in the current position.
    fn parse_moves(&self, text: &str) -> Result<Vec<Move>, String> {
        let mut moves = Vec::new();
        for word in text.split_whitespace() {
            let mv =
                parse_move(word, self.config.rank_offset).ok_or_else(|| format!("{word:?} is not a move"))?;
            if !self.game.position().is_legal(mv) {
                return Err(format!("{word:?} is not legal in {}", self.game.fen()));
            }
            moves.push(mv);
        }
        Ok(moves)
    }

    fn parse_go(&self, rest: &str) -> Result<Go, String> {
        let mut go = Go::default();
        let (mut own, mut opponent) = (GoClock::default(), GoClock::default());
        let red_to_move = self.game.position().side_to_move() == xq_core::Color::Red;
        let ucci_unit = if self.ucci_milliseconds { 1 } else { 1000 };
        let mut tokens = rest.split_whitespace().peekable();
        while let Some(token) = tokens.next() {
            let mut number = |what: &str| -> Result<u64, String> {
                let text = tokens.next().ok_or_else(|| format!("{what} needs a number"))?;
                text.parse::<u64>().map_err(|_| format!("{what} {text:?} is not a number"))
            };
            match (self.protocol, token) {
                (_, "depth") => {
                    let depth = number("depth")?;
                    go.limits.depth =
                        Some(u32::try_from(depth).map_err(|_| format!("depth {depth} is too large"))?);
                }
                (_, "nodes") => {
                    let nodes = number("nodes")?;
                    go.limits.nodes = Some(nodes);
                    go.limits.visits = Some(u32::try_from(nodes).unwrap_or(u32::MAX).max(1));
                }
                (_, "infinite") => go.hold = true,
                (_, "ponder") => {
                    go.hold = true;
                    // The move time is filled in once the clocks are read.
                    go.ponder = Some(Duration::ZERO);
                }
                (Protocol::Uci, "movetime") => {
                    go.limits.movetime = Some(Duration::from_millis(number("movetime")?))
                }
                (Protocol::Uci, "mate") => {
                    // Mate in N moves needs at most 2N - 1 plies.
                    let moves = number("mate")?;
                    let plies = moves.saturating_mul(2).saturating_sub(1).max(1);
                    go.limits.depth = Some(u32::try_from(plies).unwrap_or(u32::MAX));
                }
                (Protocol::Uci, "wtime" | "btime") => {
                    let clock = if (token == "wtime") == red_to_move { &mut own } else { &mut opponent };
                    clock.time = Some(number(token)?);
                }
                (Protocol::Uci, "winc" | "binc") => {
                    let clock = if (token == "winc") == red_to_move { &mut own } else { &mut opponent };
                    clock.increment = number(token)?;
                }
                (Protocol::Uci, "movestogo") => own.moves_to_go = Some(number("movestogo")?),
                (Protocol::Uci, "searchmoves") => {
                    let mut words = Vec::new();
                    while let Some(word) =
                        tokens.next_if(|w| parse_move(w, self.config.rank_offset).is_some())
                    {
                        words.push(word);
                    }
                    go.only = self.parse_moves(&words.join(" ")).map_err(|e| format!("searchmoves: {e}"))?;
                    if go.only.is_empty() {
                        return Err("searchmoves names no move".to_string());
                    }
                }
                (Protocol::Ucci, "time") => own.time = Some(number("time")?.saturating_mul(ucci_unit)),
                (Protocol::Ucci, "increment") => {
                    own.increment = number("increment")?.saturating_mul(ucci_unit)
                }
                (Protocol::Ucci, "movestogo") => own.moves_to_go = Some(number("movestogo")?),
                (Protocol::Ucci, "opptime") => {
                    opponent.time = Some(number("opptime")?.saturating_mul(ucci_unit))
                }
                (Protocol::Ucci, "oppincrement") => {
                    opponent.increment = number("oppincrement")?.saturating_mul(ucci_unit)
                }
                (Protocol::Ucci, "oppmovestogo") => opponent.moves_to_go = Some(number("oppmovestogo")?),
                // The opponent offers a draw; a player has no way to accept, so it plays on.
                (Protocol::Ucci, "draw") => {}
                (_, other) => return Err(format!("unknown parameter {other:?}")),
            }
        }
        if let Some(clock) = own.clock() {
            let opponent = opponent.clock().unwrap_or(Clock { moves_to_go: clock.moves_to_go, ..clock });
            go.limits.clocks = Some(Clocks { own: clock, opponent });
            if go.limits.movetime.is_none() {
                go.limits.movetime = Some(clock.move_time());
            }
        }
        go.limits.movetime = go.limits.movetime.map(|t| t.saturating_sub(self.move_overhead).max(t / 10));
        // A move time governs the search by itself: the `Visits` option is the budget of an
        // untimed `go` only, or a `go movetime 100` of a 200-visit engine answers in a
        // millisecond and an equal-time match is not one.
        if go.limits.nodes.is_none() && go.limits.movetime.is_none() {
            go.limits.visits = self.visits;
        }
        if go.hold {
            if go.ponder.is_some() {
                go.ponder = Some(go.limits.movetime.unwrap_or(Duration::ZERO));
            }
            // Until `stop` or `ponderhit`.
            go.limits.movetime = None;
        }
        Ok(go)
    }

    fn no_move_answer(&self) -> &'static str {
        match self.protocol {
            Protocol::Uci => "bestmove (none)",
            Protocol::Ucci => "nobestmove",
        }
    }

    /// Searches and answers. With a `handle` (the reader runs), the search can be stopped,
    /// and a held search runs until it is.
    fn go(&mut self, mut go: Go, handle: Option<&SearchHandle>) -> Result<(), ServerError> {
        if let Some(handle) = handle {
            go.limits.stop = Some(handle.stop.clone());
            if go.hold {
                go.limits.infinite = true;
                if go.limits.nodes.is_none() {
                    go.limits.visits = None;
                }
                if let Some(time) = go.ponder {
                    handle.ponder_for(time);
                }
            }
        }
        let answer = self.search(&go);
        // Before answering: the client may send its next `go` as soon as it reads the answer.
        if let Some(handle) = handle {
            handle.finished.store(true, Ordering::Release);
        }
        let answer = answer?;
        if go.hold {
            self.held_answer = Some(answer);
            Ok(())
        } else {
            self.say(&answer)
        }
    }

    /// Runs the player and writes its `info` line; returns the `bestmove` line.
    fn search(&mut self, go: &Go) -> Result<String, ServerError> {
        let legal = self.game.position().legal_moves();
        let allowed: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| !self.banned.contains(m) && (go.only.is_empty() || go.only.contains(m)))
            .collect();
        if allowed.is_empty() {
            if legal.is_empty() {
                // No legal move loses in Xiangqi, mate or stalemate alike.
                let line = match self.protocol {
                    Protocol::Uci => "info depth 0 score mate 0",
                    Protocol::Ucci => "info depth 0 score -30000",
                };
                self.say(line)?;
            } else {
                self.error("every legal move is excluded (banmoves, searchmoves)")?;
            }
            return Ok(self.no_move_answer().to_string());
        }
        if self.needs_new_game {
            let start = GameStart {
                color: self.game.position().side_to_move(),
                seed: derive_seed(self.config.seed, self.games_started),
                game_index: self.games_started as usize,
            };
            self.games_started += 1;
            let started = catch_unwind(AssertUnwindSafe(|| self.player.new_game(&self.game, start)));
            match started {
                Ok(Ok(())) => self.needs_new_game = false,
                Ok(Err(e)) => {
                    self.error(&format!("the player cannot start a game: {e}"))?;
                    return Ok(self.no_move_answer().to_string());
                }
                Err(_) => {
                    self.error("the player panicked starting a game")?;
                    return Ok(self.no_move_answer().to_string());
                }
            }
        }
        let started = Instant::now();
        // A restriction goes into the search; the replacement below only catches a player that
        // cannot restrict its search.
        let restricted = allowed.len() < legal.len();
        let among: &[Move] = if restricted { &allowed } else { &[] };
        let choice =
            catch_unwind(AssertUnwindSafe(|| self.player.choose_move_among(&self.game, &go.limits, among)));
        let elapsed = started.elapsed();
        let choice = match choice {
            Ok(Ok(choice)) => choice,
            Ok(Err(e)) => {
                self.needs_new_game = true;
                self.error(&format!("the search failed: {e}"))?;
                return Ok(self.no_move_answer().to_string());
            }
            Err(_) => {
                self.needs_new_game = true;
                self.error("the search panicked")?;
                return Ok(self.no_move_answer().to_string());
            }
        };
        let mv = if allowed.contains(&choice.mv) {
            choice.mv
        } else {
            let replacement = best_allowed(&choice, &allowed);
            let offset = self.config.rank_offset;
            self.say(&format!(
                "info string the player chose {}, which is {}; playing {} instead",
                format_move(choice.mv, offset),
                if legal.contains(&choice.mv) { "excluded" } else { "illegal" },
                format_move(replacement, offset)
            ))?;
            replacement
        };
        let info = self.info_line(&choice, mv, elapsed);
        self.say(&info)?;
        Ok(format!("bestmove {}", format_move(mv, self.config.rank_offset)))
    }

    /// `info depth … seldepth … score … nodes … nps … time … pv M…` in the current dialect:
    /// the player's principal variation when it starts with the move played, else the move.
    fn info_line(&self, choice: &MoveChoice, mv: Move, elapsed: Duration) -> String {
        let offset = self.config.rank_offset;
        let pv: &[Move] = if choice.pv.first() == Some(&mv) { &choice.pv } else { std::slice::from_ref(&mv) };
        // A player that reports no depth searched at least the plies of its variation.
        let depth = choice.depth.unwrap_or(pv.len() as u32).max(1);
        let mut line = format!("info depth {depth}");
        if let Some(seldepth) = choice.seldepth.filter(|_| self.protocol == Protocol::Uci) {
            line.push_str(&format!(" seldepth {}", seldepth.max(depth)));
        }
        match (self.protocol, choice.score) {
            (_, None) => {}
            (Protocol::Uci, Some(Score::Mate(n))) => line.push_str(&format!(" score mate {n}")),
            (Protocol::Uci, Some(score)) => line.push_str(&format!(" score cp {}", score.centipawns())),
            (Protocol::Ucci, Some(score)) => line.push_str(&format!(" score {}", score.centipawns())),
        }
        let nodes = choice.nodes.or(choice.visits.map(u64::from));
        if let Some(nodes) = nodes {
            line.push_str(&format!(" nodes {nodes}"));
            if self.protocol == Protocol::Uci {
                let nps = u128::from(nodes) * 1_000_000 / elapsed.as_micros().max(1);
                line.push_str(&format!(" nps {nps}"));
            }
        }
        line.push_str(&format!(" time {} pv", elapsed.as_millis()));
        for &m in pv {
            line.push(' ');
            line.push_str(&format_move(m, offset));
        }
        line
    }
}

/// The allowed move the player's own distribution likes best, or the first allowed move when
/// it gives none.
fn best_allowed(choice: &MoveChoice, allowed: &[Move]) -> Move {
    choice
        .policy
        .iter()
        .filter(|(m, _)| allowed.contains(m))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(allowed[0], |&(m, _)| m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::PlayerError;
    use crate::{MctsPlayer, RandomPlayer};
    use xq_core::Position;
    use xq_mcts::{MaterialEvaluator, SearchParams};

    fn run_script(player: Box<dyn Player>, protocol: Protocol, script: &str) -> Vec<String> {
        run_script_with_visits(player, protocol, script, Some(16))
    }

    fn run_script_with_visits(
        player: Box<dyn Player>,
        protocol: Protocol,
        script: &str,
        visits: Option<u32>,
    ) -> Vec<String> {
        let mut out = Vec::new();
        let mut config = ServerConfig::new(protocol, "test engine");
        config.visits = visits;
        serve(script.as_bytes(), &mut out, player, config).unwrap();
        String::from_utf8(out).unwrap().lines().map(str::to_string).collect()
    }

    fn mcts() -> Box<dyn Player> {
        Box::new(
            MctsPlayer::new(
                "mcts",
                Box::new(MaterialEvaluator::default()),
                SearchParams { visits: 16, ..SearchParams::default() },
            )
            .unwrap(),
        )
    }

    /// Plays whatever it is told to, recording the limits it was given.
    struct Scripted {
        answer: Result<Move, String>,
        limits: std::sync::Arc<std::sync::Mutex<Vec<SearchLimits>>>,
        games: std::sync::Arc<std::sync::Mutex<Vec<GameStart>>>,
        panic: bool,
    }

    impl Player for Scripted {
        fn name(&self) -> &str {
            "scripted"
        }

        fn new_game(&mut self, _game: &Game, start: GameStart) -> Result<(), PlayerError> {
            self.games.lock().unwrap().push(start);
            Ok(())
        }

        fn choose_move(&mut self, _game: &Game, limits: &SearchLimits) -> Result<MoveChoice, PlayerError> {
            self.limits.lock().unwrap().push(limits.clone());
            assert!(!self.panic, "the scripted player panics on request");
            match &self.answer {
                Ok(mv) => Ok(MoveChoice {
                    policy: vec![(*mv, 0.5), (iccs("b2e2"), 0.3), (iccs("h2e2"), 0.2)],
                    ..MoveChoice::new(*mv).with_score(Score::Mate(2))
                }),
                Err(why) => Err(PlayerError::Protocol(why.clone())),
            }
        }
    }

    type Log<T> = std::sync::Arc<std::sync::Mutex<Vec<T>>>;

    fn scripted(answer: Result<Move, String>) -> (Box<dyn Player>, Log<SearchLimits>, Log<GameStart>) {
        let limits = Log::default();
        let games = Log::default();
        let player = Scripted { answer, limits: limits.clone(), games: games.clone(), panic: false };
        (Box::new(player), limits, games)
    }

    fn iccs(text: &str) -> Move {
        parse_move(text, 0).unwrap()
    }

    fn bestmoves(lines: &[String]) -> Vec<&str> {
        lines.iter().filter_map(|l| l.strip_prefix("bestmove ")).collect()
    }

    fn errors(lines: &[String]) -> Vec<&String> {
        lines.iter().filter(|l| l.starts_with("info string error ")).collect()
    }

    #[test]
    fn uci_session_as_pikafish_speaks_it() {
        let lines = run_script(
            mcts(),
            Protocol::Uci,
            "uci\nsetoption name Threads value 2\nisready\nucinewgame\n\
             position startpos moves h2e2 h9g7\ngo nodes 16\n\
             position fen 3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1\ngo depth 3\nquit\n",
        );
        assert_eq!(lines[0], "id name test engine");
        assert_eq!(lines[1], "id author xq");
        assert!(lines.contains(&"option name Visits type spin default 16 min 1 max 100000000".to_string()));
        let uciok = lines.iter().position(|l| l == "uciok").unwrap();
        assert_eq!(lines[uciok + 1], "info string option \"Threads\" is not supported and was ignored");
        assert_eq!(lines[uciok + 2], "readyok");
        assert!(errors(&lines).is_empty(), "{lines:?}");
        let moves = bestmoves(&lines);
        assert_eq!(moves.len(), 2);
        let after = Position::startpos().after(iccs("h2e2")).after(iccs("h9g7"));
        assert!(after.is_legal(iccs(moves[0])), "{lines:?}");
        let rook_ending = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1").unwrap();
        assert!(rook_ending.is_legal(iccs(moves[1])), "{lines:?}");
        let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
        assert_eq!(infos.len(), 2);
        assert!(infos[0].contains(" score cp ") && infos[0].contains(" nodes 16 "), "{}", infos[0]);
        assert!(infos[0].contains(&format!(" pv {}", moves[0])), "{}", infos[0]);
    }

    #[test]
    fn ucci_session_with_banmoves_and_bye() {
        let (player, limits, _) = scripted(Ok(iccs("h2e2")));
        let lines = run_script(
            player,
            Protocol::Uci,
            "ucci\nsetoption usemillisec true\nisready\nposition startpos\nbanmoves h2e2\ngo time 3000 movestogo 3\n\
             position startpos\ngo depth 4\nquit\n",
        );
        assert!(lines.contains(&"ucciok".to_string()));
        assert!(lines.contains(&"option Visits type spin min 1 max 100000000 default 16".to_string()));
        assert!(errors(&lines).is_empty(), "{lines:?}");
        // Banned: the player's second choice is played.
        assert_eq!(bestmoves(&lines), ["b2e2", "h2e2"]);
        assert!(lines.iter().any(|l| l.starts_with("info string the player chose h2e2, which is excluded")));
        let mate = lines.iter().find(|l| l.starts_with("info depth")).unwrap();
        assert!(mate.contains(" score 29998 "), "UCCI scores are bare numbers: {mate}");
        assert_eq!(lines.last().unwrap(), "bye");
        let limits = limits.lock().unwrap();
        // 3 s over 3 moves, less the move overhead.
        assert_eq!(limits[0].movetime, Some(Duration::from_millis(990)));
        // A clock's move time governs: the Visits option does not cap it.
        assert_eq!(limits[0].visits, None);
        assert_eq!((limits[1].depth, limits[1].movetime), (Some(4), None));
    }

    #[test]
    fn ucci_times_are_seconds_unless_usemillisec() {
        let (player, limits, _) = scripted(Ok(iccs("h2e2")));
        run_script(player, Protocol::Ucci, "position startpos\ngo time 60 increment 2\n");
        // 60 s over 30 moves, plus the increment, less the move overhead.
        assert_eq!(limits.lock().unwrap()[0].movetime, Some(Duration::from_millis(3990)));
    }

    #[test]
    fn go_limits_map_to_search_limits() {
        let (player, limits, games) = scripted(Ok(iccs("h2e2")));
        let lines = run_script(
            player,
            Protocol::Uci,
            "position startpos\ngo nodes 300\ngo movetime 250\ngo wtime 10000 btime 5000 winc 100\n\
             position startpos moves h2e2\ngo wtime 10000 btime 5000 binc 50 movestogo 5\n\
             ucinewgame\nsetoption name Visits value 40\ngo mate 2\n",
        );
        let limits = limits.lock().unwrap();
        assert_eq!(limits.len(), 5, "{lines:?}");
        assert_eq!((limits[0].nodes, limits[0].visits), (Some(300), Some(300)));
        // Every move time is searched less the 10 ms move overhead, and without a visit cap.
        assert_eq!((limits[1].movetime, limits[1].visits), (Some(Duration::from_millis(240)), None));
        // Red's clock: 10 s / 30 + 0.1 s.
        assert_eq!(limits[2].movetime, Some(Duration::from_millis(423)));
        // Black's clock: 5 s / 5 + 0.05 s.
        assert_eq!(limits[3].movetime, Some(Duration::from_millis(1040)));
        assert_eq!((limits[4].depth, limits[4].visits), (Some(3), Some(40)));
        // Two games: the first search and the one after ucinewgame, seeded apart.
        let games = games.lock().unwrap();
        assert_eq!(games.len(), 2);
        assert_ne!(games[0].seed, games[1].seed);
        assert_eq!(games[1].game_index, 1);
    }

    #[test]
    fn infinite_holds_the_answer_until_stop() {
        let (player, _, _) = scripted(Ok(iccs("h2e2")));
        let lines =
            run_script(player, Protocol::Uci, "position startpos\ngo infinite\nisready\nstop\nisready\n");
        let ready = lines.iter().position(|l| l == "readyok").unwrap();
        let best = lines.iter().position(|l| l == "bestmove h2e2").unwrap();
        assert!(ready < best, "bestmove waits for stop: {lines:?}");
        assert_eq!(lines.last().unwrap(), "readyok");
        // The end of input releases a held answer too.
        let (player, _, _) = scripted(Ok(iccs("h2e2")));
        let lines = run_script(player, Protocol::Uci, "go ponder\n");
        assert_eq!(lines.last().unwrap(), "bestmove h2e2");
    }

    #[test]
    fn bad_lines_are_answered_and_change_nothing() {
        let (player, limits, _) = scripted(Ok(iccs("h2e2")));
        let mut server = EngineServer::new(player, ServerConfig::new(Protocol::Uci, "x"), Vec::new());
        let before = server.game().fen();
        let script = [
            "frobnicate now",
            "position",
            "position somewhere",
            "position fen not/a/fen w",
            "position startpos moves h2e2 h2e2",
            "position startpos moves zz99",
            "position fen 4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1",
            "go depth",
            "go depth -3",
            "go nodes many",
            "go sideways",
            "go searchmoves a0a5",
            "setoption name Visits value 0",
            "setoption name UCI_Variant value janggi",
            "banmoves h2h9 e5e6",
            "\u{fffd}\u{0}garbage",
        ];
        for line in script {
            assert_eq!(server.handle_line(line).unwrap(), Flow::Continue);
        }
        assert_eq!(server.game().fen(), before);
        let text = String::from_utf8(server.output().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), script.len(), "one answer per bad line: {lines:#?}");
        assert!(lines.iter().all(|l| l.starts_with("info string error ")), "{lines:#?}");
        assert!(lines[4].contains("move 2 \"h2e2\" is illegal"), "{}", lines[4]);
        assert!(lines[6].contains("kings face each other"), "{}", lines[6]);
        assert!(limits.lock().unwrap().is_empty(), "no search ran");
        // A legal prefix with one illegal move does not half-apply either.
        server.handle_line("position startpos moves h2e2").unwrap();
        let good = server.game().fen();
        server.handle_line("position startpos moves h0g2 h9g7 g2e3 a9a5 e3e3").unwrap();
        assert_eq!(server.game().fen(), good);
        assert_eq!(server.game().moves(), [iccs("h2e2")]);
        // Invalid UTF-8 on the wire is a bad line, not an error.
        let mut out = Vec::new();
        let (player, _, _) = scripted(Ok(iccs("h2e2")));
        serve(&b"isready\n\xff\xfe\nisready\n"[..], &mut out, player, ServerConfig::new(Protocol::Uci, "x"))
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("readyok\ninfo string error unknown command") && text.ends_with("readyok\n")
        );
    }

    #[test]
    fn failing_players_and_finished_positions_give_no_move() {
        let (player, _, games) = scripted(Err("out of ideas".into()));
        let lines = run_script(player, Protocol::Uci, "go nodes 5\ngo nodes 5\n");
        assert_eq!(bestmoves(&lines), ["(none)", "(none)"]);
        assert_eq!(errors(&lines).len(), 2);
        assert!(errors(&lines)[0].contains("out of ideas"));
        assert_eq!(games.lock().unwrap().len(), 2, "a failed search starts a new game next time");

        let limits = Log::default();
        let panicking = Scripted { answer: Ok(iccs("h2e2")), limits, games: Log::default(), panic: true };
        let lines = run_script(Box::new(panicking), Protocol::Ucci, "go depth 1\nisready\n");
        // `isready` is answered during the search, so before or after its answer.
        let answer: Vec<&String> = lines.iter().filter(|l| *l != "readyok").collect();
        assert_eq!(answer, ["info string error the search panicked", "nobestmove"]);
        assert_eq!(lines.len(), 3, "{lines:?}");

        // An illegal choice is replaced by the best legal move of the player's distribution.
        let (player, _, _) = scripted(Ok(iccs("a0a5")));
        let lines = run_script(player, Protocol::Uci, "go depth 1\n");
        assert!(lines[0].contains("a0a5, which is illegal; playing b2e2"), "{lines:?}");
        assert_eq!(bestmoves(&lines), ["b2e2"]);

        // Mated: no search, a mate score and no move.
        let (player, limits, _) = scripted(Ok(iccs("h2e2")));
        let mated = "position fen 3k5/8R/9/9/9/9/9/9/9/R3K4 w - - 0 1 moves a0a9\ngo depth 1\n";
        let lines = run_script(player, Protocol::Uci, mated);
        assert_eq!(lines, ["info depth 0 score mate 0", "bestmove (none)"]);
        assert!(limits.lock().unwrap().is_empty());
        let lines = run_script(Box::new(RandomPlayer::new(1)), Protocol::Ucci, mated);
        assert_eq!(lines.last().unwrap(), "nobestmove");
    }

    #[test]
    fn move_overhead_is_kept_back_and_settable() {
        let (player, limits, _) = scripted(Ok(iccs("h2e2")));
        let lines = run_script(
            player,
            Protocol::Uci,
            "uci\nsetoption name MoveOverhead value 100\nposition startpos\ngo movetime 1000\n\
             setoption name MoveOverhead value 0\ngo movetime 1000\ngo movetime 50\n\
             setoption name MoveOverhead value 200\ngo movetime 50\nsetoption name MoveOverhead value -1\n",
        );
        assert!(lines.contains(&"option name MoveOverhead type spin default 10 min 0 max 5000".to_string()));
        let limits = limits.lock().unwrap();
        let times: Vec<Option<Duration>> = limits.iter().map(|l| l.movetime).collect();
        // An overhead larger than the move time still leaves a tenth of it to search.
        let ms = |t| Some(Duration::from_millis(t));
        assert_eq!(times, [ms(900), ms(1000), ms(50), ms(5)]);
        assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    }

    /// A budget no search finishes: only the time or the depth limit can end it.
    fn endless_mcts() -> Box<dyn Player> {
        let params = SearchParams { visits: 5_000_000, ..SearchParams::default() };
        Box::new(MctsPlayer::new("mcts", Box::new(MaterialEvaluator::default()), params).unwrap())
    }

    fn run_endless(script: &str) -> Vec<String> {
        run_script_with_visits(endless_mcts(), Protocol::Uci, script, Some(5_000_000))
    }

    fn info_field(info: &str, key: &str) -> u64 {
        let mut words = info.split_whitespace();
        words.find(|&w| w == key).and_then(|_| words.next()).and_then(|w| w.parse().ok()).unwrap()
    }

    #[test]
    fn a_tree_search_honours_depth_and_reports_its_line() {
        let lines = run_endless("position startpos\ngo depth 3\n");
        let info = lines.iter().find(|l| l.starts_with("info depth")).unwrap();
        let depth = info_field(info, "depth");
        assert!(depth >= 1 && info_field(info, "seldepth") >= depth, "{info}");
        assert!(info_field(info, "nodes") < 5_000_000, "the depth ended the search: {info}");
        let pv: Vec<&str> = info.split(" pv ").nth(1).unwrap().split_whitespace().collect();
        assert_eq!(pv.len() as u64, depth, "the depth is the variation's length: {info}");
        let mut position = Position::startpos();
        for m in &pv {
            assert!(position.is_legal(iccs(m)), "{info}");
            position = position.after(iccs(m));
        }
        assert_eq!(bestmoves(&lines), [pv[0]]);
    }

    #[test]
    fn a_tree_search_answers_within_its_move_time() {
        // Before: the search ran its whole visit budget whatever the clock said (30 s for
        // `go movetime 500`). The bound here is loose so the test never fails on a slow
        // machine, and still tight enough to catch a search that ignores time.
        for go in ["go movetime 300", "go wtime 3000 btime 3000", "go wtime 60000 btime 60000 movestogo 100"]
        {
            let started = Instant::now();
            let lines = run_endless(&format!("position startpos\n{go}\n"));
            let elapsed = started.elapsed();
            assert_eq!(bestmoves(&lines).len(), 1, "{lines:?}");
            assert!(elapsed < Duration::from_secs(3), "{go}: answered after {elapsed:?}");
        }
    }

    #[test]
    fn alpha_beta_reports_its_principal_variation() {
        let player = Box::new(crate::AlphaBetaPlayer::with_depth(4));
        let lines = run_script(player, Protocol::Uci, "position startpos\ngo depth 4\n");
        let info = lines.iter().find(|l| l.starts_with("info depth")).unwrap();
        assert_eq!(info_field(info, "depth"), 4, "{info}");
        assert!(info_field(info, "seldepth") >= 4, "{info}");
        let pv: Vec<&str> = info.split(" pv ").nth(1).unwrap().split_whitespace().collect();
        assert!(pv.len() >= 2, "{info}");
        assert_eq!(bestmoves(&lines), [pv[0]]);
    }

    #[test]
    fn banned_moves_are_never_searched() {
        // Before: the search spent its budget on every move and a banned choice was swapped for
        // the policy's best allowed move afterwards. Every move but two is banned here, so the
        // answer must be one of the two and no replacement may be needed.
        let legal: Vec<String> = Position::startpos().legal_moves().iter().map(|m| m.iccs()).collect();
        let banned: Vec<&str> =
            legal.iter().map(String::as_str).filter(|m| !["h2e2", "b0c2"].contains(m)).collect();
        let script = format!("position startpos\nbanmoves {}\ngo nodes 200\n", banned.join(" "));
        let lines = run_script(mcts(), Protocol::Ucci, &script);
        let moves = bestmoves(&lines);
        assert_eq!(moves.len(), 1, "{lines:?}");
        assert!(["h2e2", "b0c2"].contains(&moves[0]), "{lines:?}");
        assert!(
            !lines.iter().any(|l| l.contains("which is excluded")),
            "the search itself kept to them: {lines:?}"
        );
    }

    /// A server on pipes on its own thread, driven line by line as a GUI drives it.
    struct LiveSession {
        commands: std::io::PipeWriter,
        answers: mpsc::Receiver<String>,
        server: std::thread::JoinHandle<()>,
    }

    impl LiveSession {
        /// `make` builds the player on the server's thread (a player need not be `Send`).
        fn start(make: fn() -> Box<dyn Player>, visits: u32) -> LiveSession {
            let (command_reader, commands) = std::io::pipe().unwrap();
            let (answer_reader, answer_writer) = std::io::pipe().unwrap();
            let server = std::thread::spawn(move || {
                let mut config = ServerConfig::new(Protocol::Uci, "live");
                config.visits = Some(visits);
                serve(std::io::BufReader::new(command_reader), answer_writer, make(), config).unwrap();
            });
            let (sender, answers) = mpsc::channel();
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(answer_reader).lines() {
                    let Ok(line) = line else { break };
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            });
            LiveSession { commands, answers, server }
        }

        fn send(&mut self, line: &str) {
            writeln!(self.commands, "{line}").unwrap();
            self.commands.flush().unwrap();
        }

        /// Answers up to and including the first that starts with `prefix`.
        fn read_until(&self, prefix: &str) -> Vec<String> {
            let mut lines = Vec::new();
            loop {
                let line = self
                    .answers
                    .recv_timeout(Duration::from_secs(120))
                    .unwrap_or_else(|_| panic!("no {prefix:?} answer; got {lines:?}"));
                let found = line.starts_with(prefix);
                lines.push(line);
                if found {
                    return lines;
                }
            }
        }

        fn quit(mut self) {
            self.send("quit");
            self.server.join().unwrap();
        }
    }

    fn alpha_beta() -> Box<dyn Player> {
        Box::new(crate::AlphaBetaPlayer::with_depth(2))
    }

    #[test]
    fn go_infinite_searches_until_stop_and_answers_isready_meanwhile() {
        // Before: `go infinite` searched the 16 visits of the `Visits` option before reading
        // another line, so it ended on its own and `isready` waited for the search.
        for (make, searched) in [(endless_mcts as fn() -> Box<dyn Player>, "nodes"), (alpha_beta, "depth")] {
            let mut session = LiveSession::start(make, 16);
            session.send("position startpos");
            session.send("go infinite");
            std::thread::sleep(Duration::from_millis(300));
            session.send("isready");
            let before_stop = session.read_until("readyok");
            assert!(
                !before_stop.iter().any(|l| l.starts_with("bestmove")),
                "no answer before stop: {before_stop:?}"
            );
            session.send("stop");
            let answer = session.read_until("bestmove");
            let info = answer.iter().find(|l| l.starts_with("info depth")).unwrap();
            // It was still searching at `isready`, 300 ms in, and searched past its budget:
            // more than the 16 visits of the `Visits` option, more than alpha-beta's 2 plies.
            let limit = if searched == "nodes" { 16 } else { 2 };
            assert!(info_field(info, searched) > limit, "{info}");
            session.quit();
        }
    }

    #[test]
    fn ponderhit_turns_a_ponder_search_into_a_timed_one() {
        let mut session = LiveSession::start(endless_mcts, 16);
        session.send("position startpos moves h2e2");
        // 3,000 ms over 3 moves: a second a move after ponderhit.
        session.send("go ponder wtime 3000 btime 3000 movestogo 3");
        std::thread::sleep(Duration::from_millis(200));
        session.send("isready");
        let pondering = session.read_until("readyok");
        assert!(!pondering.iter().any(|l| l.starts_with("bestmove")), "{pondering:?}");
        session.send("ponderhit");
        // No stop: the search ends on its own clock and answers.
        let answer = session.read_until("bestmove");
        let info = answer.iter().find(|l| l.starts_with("info depth")).unwrap();
        // About 200 ms of pondering, then the clock's second less the overhead.
        assert!(info_field(info, "time") >= 900, "{info}");
        session.quit();
    }

    #[test]
    fn a_timed_search_stops_early_on_stop_and_quit_ends_a_search() {
        let mut session = LiveSession::start(endless_mcts, 16);
        session.send("position startpos");
        session.send("go movetime 60000");
        std::thread::sleep(Duration::from_millis(200));
        session.send("stop");
        let answer = session.read_until("bestmove");
        let info = answer.iter().find(|l| l.starts_with("info depth")).unwrap();
        assert!(info_field(info, "time") < 60_000, "{info}");
        // `quit` during a search ends it and the session.
        session.send("go infinite");
        session.quit();
    }
}
