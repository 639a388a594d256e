//! The game runner: asks two players for moves in turn, with xq-core as the arbiter.

use crate::clock::{Clocks, RunningClock, TimeControl};
use crate::opening::Opening;
use crate::player::{GameStart, MoveChoice, Player, PlayerError, Score, SearchLimits};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};
use xq_core::seed::derive_seed;
use xq_core::{Color, Game, GameResult, GameRules, Move, Outcome, Termination};

/// Resign adjudication: the game is given to one side when the players agree it is winning.
///
/// The last `moves` moves of *each* side (so `2 * moves` plies) must all carry a score, and
/// every one of them must say the same side is ahead by at least `score_cp` (the winner's own
/// scores ≥ `score_cp`, the loser's ≤ `-score_cp`). Scores are compared with
/// [`Score::centipawns`]. A move without a score (a player that reports none) blocks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResignAdjudication {
    /// Threshold in centipawns.
    pub score_cp: i32,
    /// Moves per side the threshold must hold for.
    pub moves: u32,
}

/// Draw adjudication: after `min_plies`, when the last `moves` moves of each side all carry a
/// score within `±score_cp`, the game is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawAdjudication {
    /// Plies (opening included) before draw adjudication may happen.
    pub min_plies: u32,
    /// Threshold in centipawns.
    pub score_cp: i32,
    /// Moves per side the threshold must hold for.
    pub moves: u32,
}

/// The length, in plies from the start position (an opening's moves included), after which a
/// game still running is drawn unless configured otherwise: one default for self-play, events,
/// gates and the ladder.
pub const DEFAULT_MAX_PLIES: u32 = 400;

/// How the runner conducts one game, beyond the rules.
#[derive(Clone, Debug, PartialEq)]
pub struct GameOptions {
    /// Limits for the red player.
    pub red_limits: SearchLimits,
    /// Limits for the black player.
    pub black_limits: SearchLimits,
    /// The game is stopped and drawn (`Termination::MaxLength`) after this many plies,
    /// opening included.
    pub max_plies: Option<u32>,
    /// Resign adjudication, off when `None`.
    pub resign: Option<ResignAdjudication>,
    /// Draw adjudication, off when `None`.
    pub draw: Option<DrawAdjudication>,
    /// When a side has a `movetime` limit, a move that takes longer than `movetime` plus this
    /// margin loses on time. `None` never forfeits in-process players on time (engines in
    /// subprocesses keep their own timeouts).
    pub time_margin: Option<Duration>,
    /// The red player's time control: its clock runs from the first move, and a move that
    /// takes longer than the time left (plus `time_margin`, when set) loses on time. `None`
    /// plays without a clock.
    pub red_clock: Option<TimeControl>,
    /// The black player's time control.
    pub black_clock: Option<TimeControl>,
    /// The game's seed; players get seeds derived from it.
    pub seed: u64,
    /// The game's index in its event, passed to players.
    pub game_index: usize,
}

impl Default for GameOptions {
    fn default() -> Self {
        GameOptions {
            red_limits: SearchLimits::NONE,
            black_limits: SearchLimits::NONE,
            max_plies: Some(DEFAULT_MAX_PLIES),
            resign: None,
            draw: None,
            time_margin: None,
            red_clock: None,
            black_clock: None,
            seed: 0,
            game_index: 0,
        }
    }
}

impl GameOptions {
    /// The limits for `color`.
    pub fn limits(&self, color: Color) -> &SearchLimits {
        match color {
            Color::Red => &self.red_limits,
            Color::Black => &self.black_limits,
        }
    }

    /// The time control for `color`.
    pub fn clock(&self, color: Color) -> Option<TimeControl> {
        match color {
            Color::Red => self.red_clock,
            Color::Black => self.black_clock,
        }
    }
}

/// What a player reported with one of its moves.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveInfo {
    /// Evaluation for the side that moved.
    pub score: Option<Score>,
    /// Depth reached.
    pub depth: Option<u32>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Tree-search visits.
    pub visits: Option<u32>,
    /// The search's distribution over moves, when the player reports one.
    pub policy: Vec<(Move, f32)>,
    /// Wall time the player took.
    pub time: Duration,
    /// Time left on the mover's clock after the move (increment added), at a time control.
    pub clock_left: Option<Duration>,
}

/// A finished game: enough to replay it, render it in any notation, and know why it ended.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The start FEN (before the opening's moves).
    pub start_fen: String,
    /// The opening's name.
    pub opening: String,
    /// How many of [`GameRecord::moves`] came from the opening.
    pub opening_plies: usize,
    /// Every move from the start FEN, opening included. Render them against
    /// [`GameRecord::replay`]'s positions for any notation.
    pub moves: Vec<Move>,
    /// One entry per move: `None` for the opening's moves, the player's report otherwise.
    pub info: Vec<Option<MoveInfo>>,
    /// The result, its reason, the rulebook article and (for repetitions) who had to vary.
    pub outcome: Outcome,
    /// The rules the game was played under.
    pub rules: GameRules,
    /// Red's name.
    pub red: String,
    /// Black's name.
    pub black: String,
    /// Details on how the game ended when the runner decided it (forfeits, adjudications).
    pub note: Option<String>,
    /// The game's seed.
    pub seed: u64,
    /// The game's index in its event.
    pub game_index: usize,
}

impl GameRecord {
    /// Plies played, opening included.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// The moves in ICCS.
    pub fn iccs(&self) -> Vec<String> {
        self.moves.iter().map(|m| m.iccs()).collect()
    }

    /// The name of the player of `color`.
    pub fn player(&self, color: Color) -> &str {
        match color {
            Color::Red => &self.red,
            Color::Black => &self.black,
        }
    }

    /// Rebuilds the game (every position, for rendering or analysis). Fails only on a
    /// record that was edited into an inconsistent state.
    pub fn replay(&self) -> Result<Game, ReplayError> {
        let mut game = Game::from_fen(&self.start_fen, self.rules)?;
        for (ply, &mv) in self.moves.iter().enumerate() {
            game.play(mv).map_err(|e| ReplayError::Illegal { ply, source: e })?;
        }
        Ok(game)
    }
}

/// Why a [`GameRecord`] does not replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The start FEN is invalid.
    #[error("bad start FEN: {0}")]
    Fen(#[from] xq_core::FenError),
    /// A move is illegal.
    #[error("move {ply} is illegal: {source}")]
    Illegal {
        /// Index of the move.
        ply: usize,
        /// The illegal move.
        source: xq_core::IllegalMove,
    },
}

/// Asks `player` for a move, turning a panic into [`PlayerError::Crashed`].
fn ask(player: &mut dyn Player, game: &Game, limits: &SearchLimits) -> Result<MoveChoice, PlayerError> {
    match catch_unwind(AssertUnwindSafe(|| player.choose_move(game, limits))) {
        Ok(answer) => answer,
        Err(payload) => Err(PlayerError::Crashed(format!("panicked: {}", panic_message(&payload)))),
    }
}

fn start(player: &mut dyn Player, game: &Game, info: GameStart) -> Result<(), PlayerError> {
    match catch_unwind(AssertUnwindSafe(|| player.new_game(game, info))) {
        Ok(answer) => answer,
        Err(payload) => Err(PlayerError::Crashed(format!("panicked: {}", panic_message(&payload)))),
    }
}

fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// The loss for `color` after a player error, with a note naming the player and the error.
fn forfeit(color: Color, name: &str, error: &PlayerError) -> (Outcome, String) {
    let outcome = Outcome::new(GameResult::loss_for(color), error.forfeit_kind(), error.article());
    (outcome, format!("{color} ({name}) forfeits: {error}"))
}

/// Plays one game from `opening` under `rules`, `red` against `black`.
///
/// xq-core is the arbiter: every move is checked with [`Game::play`] and the game ends on
/// [`Game::outcome`] or by the runner's [`GameOptions`]. A player's illegal move, crash, hang
/// or overtime ends the game as a loss for that player (`Forfeit` / `TimeForfeit`) with a note;
/// this function never panics on a player's behaviour.
pub fn play_game(
    red: &mut dyn Player,
    black: &mut dyn Player,
    opening: &Opening,
    rules: GameRules,
    options: &GameOptions,
) -> GameRecord {
    let mut game = opening.game(rules);
    let opening_plies = game.ply();
    let mut info: Vec<Option<MoveInfo>> = vec![None; opening_plies];
    let names = [red.name().to_string(), black.name().to_string()];
    let players: [&mut dyn Player; 2] = [red, black];
    let mut note = None;
    let mut clocks = Color::ALL.map(|c| options.clock(c).map(RunningClock::new));

    let outcome = 'game: {
        for color in Color::ALL {
            let start_info = GameStart {
                color,
                seed: derive_seed(options.seed, color.index() as u64),
                game_index: options.game_index,
            };
            if let Err(e) = start(players[color.index()], &game, start_info) {
                let (outcome, text) = forfeit(color, &names[color.index()], &e);
                note = Some(text);
                break 'game outcome;
            }
        }
        loop {
            if let Some(outcome) = game.outcome() {
                break 'game outcome;
            }
            if let Some(max) = options.max_plies
                && game.ply() >= max as usize
            {
                note = Some(format!("stopped at the maximum length of {max} plies"));
                break 'game Outcome::new(GameResult::Draw, Termination::MaxLength, "");
            }
            if let Some((outcome, text)) = adjudicate(&game, &info, options) {
                note = Some(text);
                break 'game outcome;
            }
            let side = game.position().side_to_move();
            let limits = options.limits(side);
            let own_clock = clocks[side.index()].map(|c| c.clock());
            let asked = match own_clock {
                Some(own) => {
                    let opponent = clocks[side.opponent().index()].map_or(own, |c| c.clock());
                    SearchLimits {
                        clocks: Some(Clocks { own, opponent }),
                        movetime: Some(limits.movetime.map_or(own.move_time(), |t| t.min(own.move_time()))),
                        ..limits.clone()
                    }
                }
                None => limits.clone(),
            };
            let started = Instant::now();
            let answer = ask(players[side.index()], &game, &asked);
            let time = started.elapsed();
            let choice = match answer {
                Ok(choice) => choice,
                Err(e) => {
                    let (outcome, text) = forfeit(side, &names[side.index()], &e);
                    note = Some(text);
                    break 'game outcome;
                }
            };
            if let (Some(margin), Some(movetime)) = (options.time_margin, limits.movetime)
                && time > movetime + margin
            {
                let e = PlayerError::OverTime { used: time, allowed: movetime + margin };
                let (outcome, text) = forfeit(side, &names[side.index()], &e);
                note = Some(text);
                break 'game outcome;
            }
            let mut clock_left = None;
            if let Some(clock) = clocks[side.index()].as_mut() {
                if let Err(late) = clock.charge(time, options.time_margin.unwrap_or_default()) {
                    let e = PlayerError::OverTime { used: late.used, allowed: late.left };
                    let (outcome, text) = forfeit(side, &names[side.index()], &e);
                    note = Some(text);
                    break 'game outcome;
                }
                clock_left = Some(clock.clock().remaining);
            }
            if let Err(illegal) = game.play(choice.mv) {
                let e = PlayerError::IllegalMove { mv: illegal.mv, fen: illegal.fen };
                let (outcome, text) = forfeit(side, &names[side.index()], &e);
                note = Some(text);
                break 'game outcome;
            }
            info.push(Some(MoveInfo {
                score: choice.score,
                depth: choice.depth,
                nodes: choice.nodes,
                visits: choice.visits,
                policy: choice.policy,
                time,
                clock_left,
            }));
        }
    };

    GameRecord {
        start_fen: opening.fen().to_string(),
        opening: opening.name().to_string(),
        opening_plies,
        moves: game.moves().to_vec(),
        info,
        outcome,
        rules,
        red: names[0].clone(),
        black: names[1].clone(),
        note,
        seed: options.seed,
        game_index: options.game_index,
    }
}

/// Scores (centipawns, mover's view) of the last `plies` moves, newest first, or `None` when
/// there are fewer moves or one has no score.
fn recent_scores(info: &[Option<MoveInfo>], plies: usize) -> Option<impl Iterator<Item = i32> + '_> {
    if plies == 0 || info.len() < plies {
        return None;
    }
    let recent = &info[info.len() - plies..];
    if recent.iter().all(|i| i.as_ref().is_some_and(|i| i.score.is_some())) {
        Some(recent.iter().rev().filter_map(|i| i.as_ref().and_then(|i| i.score)).map(Score::centipawns))
    } else {
        None
    }
}

/// Resign or draw adjudication on the moves so far.
fn adjudicate(game: &Game, info: &[Option<MoveInfo>], options: &GameOptions) -> Option<(Outcome, String)> {
    if let Some(r) = options.resign {
        let plies = 2 * r.moves as usize;
        if let Some(scores) = recent_scores(info, plies) {
            // Newest first: the newest move was made by the side not to move now.
            let last_mover = game.position().side_to_move().opponent();
            let mut red_view = scores.enumerate().map(|(k, cp)| {
                let mover = if k % 2 == 0 { last_mover } else { last_mover.opponent() };
                if mover == Color::Red { cp } else { -cp }
            });
            let winner = match red_view.next() {
                Some(cp) if cp >= r.score_cp => Some(Color::Red),
                Some(cp) if cp <= -r.score_cp => Some(Color::Black),
                _ => None,
            };
            if let Some(winner) = winner {
                let agrees =
                    |cp: i32| if winner == Color::Red { cp >= r.score_cp } else { cp <= -r.score_cp };
                if red_view.all(agrees) {
                    let outcome =
                        Outcome::new(GameResult::win_for(winner), Termination::Resignation, "4.1.9");
                    let text = format!(
                        "adjudicated: both players scored {winner} at least {} cp ahead for {} moves each",
                        r.score_cp, r.moves
                    );
                    return Some((outcome, text));
                }
            }
        }
    }
    if let Some(d) = options.draw
        && game.ply() >= d.min_plies as usize
        && let Some(mut scores) = recent_scores(info, 2 * d.moves as usize)
        && scores.all(|cp| cp.abs() <= d.score_cp)
    {
        let outcome = Outcome::new(GameResult::Draw, Termination::DrawAdjudication, "4.2.2");
        let text = format!("adjudicated: every score within ±{} cp for {} moves each", d.score_cp, d.moves);
        return Some((outcome, text));
    }
    None
}
