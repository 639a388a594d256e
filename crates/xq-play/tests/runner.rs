//! The runner: determinism, game ends, forfeits, adjudication and parallel matches.

use std::time::Duration;
use xq_core::{Color, Game, GameResult, GameRules, Move, Termination, notation::parse_move};
use xq_play::{
    AlphaBetaPlayer, DrawAdjudication, GameOptions, GameStart, GreedyPlayer, MoveChoice, Opening, Player,
    PlayerError, RandomPlayer, ResignAdjudication, Score, SearchLimits, TimeControl, play_game,
};

/// Plays the first legal move, reporting a fixed score; or misbehaves on a chosen ply.
struct Scripted {
    name: String,
    score: Option<Score>,
    misbehave_at: Option<(usize, Misbehaviour)>,
}

#[derive(Clone, Copy)]
enum Misbehaviour {
    Illegal,
    Panic,
    Error,
    Sleep(Duration),
}

impl Scripted {
    fn new(name: &str) -> Scripted {
        Scripted { name: name.to_string(), score: None, misbehave_at: None }
    }
    fn scoring(mut self, score: Score) -> Scripted {
        self.score = Some(score);
        self
    }
    fn misbehaving(mut self, ply: usize, how: Misbehaviour) -> Scripted {
        self.misbehave_at = Some((ply, how));
        self
    }
}

impl Player for Scripted {
    fn name(&self) -> &str {
        &self.name
    }
    fn new_game(&mut self, _game: &Game, _start: GameStart) -> Result<(), PlayerError> {
        Ok(())
    }
    fn choose_move(&mut self, game: &Game, _limits: &SearchLimits) -> Result<MoveChoice, PlayerError> {
        let first = game.position().legal_moves()[0];
        if let Some((ply, how)) = self.misbehave_at
            && game.ply() >= ply
        {
            match how {
                Misbehaviour::Illegal => {
                    // A move from an empty point.
                    let empty = xq_core::Square::parse("e4").expect("square");
                    return Ok(MoveChoice::new(Move::new(empty, empty.flip())));
                }
                Misbehaviour::Panic => panic!("scripted panic"),
                Misbehaviour::Error => {
                    return Err(PlayerError::Timeout {
                        waited: Duration::from_millis(1),
                        context: "test".into(),
                    });
                }
                Misbehaviour::Sleep(time) => std::thread::sleep(time),
            }
        }
        let mut choice = MoveChoice::new(first);
        choice.score = self.score;
        if self.score.is_some() {
            choice.policy = vec![(first, 1.0)];
        }
        Ok(choice)
    }
}

/// What must replay identically (move times differ from run to run).
fn essence(r: &xq_play::GameRecord) -> (Vec<Move>, xq_core::Outcome, String, String, Option<String>, u64) {
    (r.moves.clone(), r.outcome, r.red.clone(), r.black.clone(), r.note.clone(), r.seed)
}

fn options(seed: u64) -> GameOptions {
    GameOptions { seed, ..GameOptions::default() }
}

#[test]
fn games_replay_from_their_seed() {
    let play = |seed| {
        let (mut red, mut black) = (RandomPlayer::new(1), RandomPlayer::new(2));
        play_game(&mut red, &mut black, &Opening::startpos(), GameRules::default(), &options(seed))
    };
    let a = play(5);
    assert_eq!(essence(&a), essence(&play(5)));
    assert_ne!(a.moves, play(6).moves);
    // The record replays under the arbiter to the same end.
    let game = a.replay().unwrap();
    match game.outcome() {
        Some(o) => assert_eq!(o, a.outcome),
        None => assert_eq!(a.outcome.reason, Termination::MaxLength),
    }
    assert_eq!(a.info.len(), a.plies());
    assert_eq!(a.iccs().len(), a.plies());
}

#[test]
fn max_length_draws() {
    let (mut red, mut black) = (RandomPlayer::new(1), RandomPlayer::new(2));
    let o = GameOptions { max_plies: Some(10), ..options(3) };
    let r = play_game(&mut red, &mut black, &Opening::startpos(), GameRules::default(), &o);
    assert_eq!(r.plies(), 10);
    assert_eq!((r.outcome.result, r.outcome.reason), (GameResult::Draw, Termination::MaxLength));
    assert!(r.note.as_deref().unwrap().contains("maximum length"));
}

#[test]
fn opening_moves_are_recorded_without_info() {
    let opening = Opening::new("cannon", xq_core::START_FEN, &["h2e2", "h9g7"]).unwrap();
    let (mut red, mut black) = (RandomPlayer::new(1), RandomPlayer::new(2));
    let o = GameOptions { max_plies: Some(6), ..options(3) };
    let r = play_game(&mut red, &mut black, &opening, GameRules::default(), &o);
    assert_eq!((r.opening.as_str(), r.opening_plies, r.plies()), ("cannon", 2, 6));
    assert_eq!(&r.iccs()[..2], ["h2e2", "h9g7"]);
    assert!(r.info[..2].iter().all(Option::is_none));
    assert!(r.info[2..].iter().all(Option::is_some));
}

fn misbehaving_game(how: Misbehaviour, options: &GameOptions) -> xq_play::GameRecord {
    let mut red = Scripted::new("good");
    let mut black = Scripted::new("bad").misbehaving(3, how);
    play_game(&mut red, &mut black, &Opening::startpos(), GameRules::default(), options)
}

#[test]
fn illegal_moves_forfeit() {
    let r = misbehaving_game(Misbehaviour::Illegal, &options(0));
    assert_eq!((r.outcome.result, r.outcome.reason), (GameResult::RedWins, Termination::Forfeit));
    assert_eq!(r.outcome.article, "4.1.6");
    assert_eq!(r.plies(), 3);
    let note = r.note.unwrap();
    assert!(note.contains("black (bad) forfeits") && note.contains("illegal move e4e5"), "{note}");
}

#[test]
fn panics_forfeit_without_unwinding_the_runner() {
    let r = misbehaving_game(Misbehaviour::Panic, &options(0));
    assert_eq!((r.outcome.result, r.outcome.reason), (GameResult::RedWins, Termination::Forfeit));
    assert!(r.note.unwrap().contains("scripted panic"));
}

#[test]
fn timeouts_and_overtime_lose_on_time() {
    let r = misbehaving_game(Misbehaviour::Error, &options(0));
    assert_eq!((r.outcome.result, r.outcome.reason), (GameResult::RedWins, Termination::TimeForfeit));
    assert_eq!(r.outcome.article, "4.1.4");

    let timed = GameOptions {
        black_limits: SearchLimits::movetime(Duration::from_millis(5)),
        time_margin: Some(Duration::from_millis(20)),
        ..options(0)
    };
    let r = misbehaving_game(Misbehaviour::Sleep(Duration::from_millis(60)), &timed);
    assert_eq!((r.outcome.result, r.outcome.reason), (GameResult::RedWins, Termination::TimeForfeit));
    assert!(r.note.unwrap().contains("allowed"));
    // Without a margin in-process players are not forfeited on time.
    let untimed = GameOptions { time_margin: None, max_plies: Some(5), ..timed };
    let r = misbehaving_game(Misbehaviour::Sleep(Duration::from_millis(30)), &untimed);
    assert_eq!(r.outcome.reason, Termination::MaxLength);
}

/// Sleeps `per_move` on every move and records the limits it was given.
struct Sleeper {
    per_move: Duration,
    seen: Vec<SearchLimits>,
}

impl Player for Sleeper {
    fn name(&self) -> &str {
        "sleeper"
    }
    fn new_game(&mut self, _game: &Game, _start: GameStart) -> Result<(), PlayerError> {
        Ok(())
    }
    fn choose_move(&mut self, game: &Game, limits: &SearchLimits) -> Result<MoveChoice, PlayerError> {
        self.seen.push(limits.clone());
        std::thread::sleep(self.per_move);
        Ok(MoveChoice::new(game.position().legal_moves()[0]))
    }
}

#[test]
fn time_controls_run_clocks_and_flag_the_late() {
    let tc = |text: &str| Some(text.parse::<TimeControl>().unwrap());
    // Red has 0.2 s + 0.05 s a move and spends 0.1 s a move: 0.2 → 0.15 → 0.10 → 0.05 → out.
    let options =
        GameOptions { red_clock: tc("0.2+0.05"), black_clock: tc("60"), max_plies: Some(40), ..options(0) };
    let mut red = Sleeper { per_move: Duration::from_millis(100), seen: Vec::new() };
    let mut black = Sleeper { per_move: Duration::ZERO, seen: Vec::new() };
    let r = play_game(&mut red, &mut black, &Opening::startpos(), GameRules::default(), &options);
    assert_eq!(
        (r.outcome.result, r.outcome.reason),
        (GameResult::BlackWins, Termination::TimeForfeit),
        "{:?}",
        r.note
    );
    assert_eq!(r.outcome.article, "4.1.4");
    assert!(
        r.note.as_deref().unwrap().contains("left on the clock")
            || r.note.as_deref().unwrap().contains("allowed")
    );
    // Each move of red's is recorded with the clock it left; the clock falls by about 50 ms a move.
    let red_left: Vec<Duration> =
        r.info.iter().step_by(2).map(|i| i.as_ref().unwrap().clock_left.unwrap()).collect();
    assert!(red_left.len() >= 2 && red_left.len() <= 4, "{red_left:?}");
    assert!(red_left.windows(2).all(|w| w[1] < w[0]), "{red_left:?}");
    // Both players were told both clocks, and a move time from their own.
    let first = red.seen[0].clocks.unwrap();
    assert_eq!(first.own.remaining, Duration::from_millis(200));
    assert_eq!(first.own.increment, Duration::from_millis(50));
    assert_eq!(first.opponent.remaining, Duration::from_secs(60));
    assert_eq!(red.seen[0].movetime, Some(first.own.move_time()));
    assert_eq!(first.own.move_time().as_millis(), 56, "200 ms over 30 moves, plus 50");
    let black_first = black.seen[0].clocks.unwrap();
    assert_eq!(black_first.own.remaining, Duration::from_secs(60));
    assert!(black_first.opponent.remaining < Duration::from_millis(200));

    // A margin lets a move run past the clock: 0.2 s plus a 0.3 s margin covers a 0.4 s move,
    // which empties the clock; the next has 0.05 s plus the margin, and flags.
    let margined =
        GameOptions { time_margin: Some(Duration::from_millis(300)), max_plies: Some(6), ..options };
    let mut red = Sleeper { per_move: Duration::from_millis(400), seen: Vec::new() };
    let mut black = Sleeper { per_move: Duration::ZERO, seen: Vec::new() };
    let r = play_game(&mut red, &mut black, &Opening::startpos(), GameRules::default(), &margined);
    assert_eq!(r.outcome.reason, Termination::TimeForfeit, "{:?}", r.note);
    assert_eq!(r.plies(), 2, "the first move fits in clock plus margin, the second does not");
}

#[test]
fn resign_adjudication_needs_both_sides_to_agree() {
    let adjudicated = GameOptions {
        resign: Some(ResignAdjudication { score_cp: 400, moves: 3 }),
        max_plies: Some(40),
        ..options(0)
    };
    let mut red = Scripted::new("red").scoring(Score::Centipawns(-500));
    let mut black = Scripted::new("black").scoring(Score::Mate(4));
    let r = play_game(&mut red, &mut black, &Opening::startpos(), GameRules::default(), &adjudicated);
    assert_eq!((r.outcome.result, r.outcome.reason), (GameResult::BlackWins, Termination::Resignation));
    assert_eq!(r.plies(), 6);
    // One side disagrees: no adjudication.
    let mut red = Scripted::new("red").scoring(Score::Centipawns(-500));
    let mut black = Scripted::new("black").scoring(Score::Centipawns(100));
    let r = play_game(&mut red, &mut black, &Opening::startpos(), GameRules::default(), &adjudicated);
    assert_ne!(r.outcome.reason, Termination::Resignation);
    // A player without scores blocks it.
    let mut red = Scripted::new("red").scoring(Score::Centipawns(-500));
    let mut black = Scripted::new("black");
    let r = play_game(&mut red, &mut black, &Opening::startpos(), GameRules::default(), &adjudicated);
    assert_ne!(r.outcome.reason, Termination::Resignation);
}

#[test]
fn draw_adjudication_waits_for_its_start() {
    let adjudicated = GameOptions {
        draw: Some(DrawAdjudication { min_plies: 10, score_cp: 20, moves: 2 }),
        max_plies: Some(40),
        ..options(0)
    };
    let mut red = Scripted::new("red").scoring(Score::Centipawns(5));
    let mut black = Scripted::new("black").scoring(Score::Value(0.01));
    let r = play_game(&mut red, &mut black, &Opening::startpos(), GameRules::default(), &adjudicated);
    assert_eq!(
        (r.outcome.result, r.outcome.reason, r.plies()),
        (GameResult::Draw, Termination::DrawAdjudication, 10)
    );
    // Search reports travel into the record.
    let info = r.info[3].as_ref().unwrap();
    assert_eq!((info.score, info.policy.as_slice()), (Some(Score::Value(0.01)), &[(r.moves[3], 1.0)][..]));
}

#[test]
fn games_end_by_the_rules() {
    // The black king has no move (the rook on a8 covers rank 8, the red king the e-file): i0i9
    // mates, and any move that keeps it so leaves black without a move (困毙), which loses too.
    let opening = Opening::new("mate in one", "3k5/R8/9/9/9/9/9/9/9/4K3R w", &[]).unwrap();
    for seed in 0..4 {
        let mut red = GreedyPlayer::new(seed);
        let mut black = RandomPlayer::new(0);
        let r = play_game(&mut red, &mut black, &opening, GameRules::default(), &options(0));
        assert_eq!((r.plies(), r.outcome.result), (1, GameResult::RedWins));
        let expected = if r.iccs()[0] == "i0i9" { Termination::Checkmate } else { Termination::Stalemate };
        assert_eq!(
            (r.outcome.reason, r.outcome.article),
            (expected, if r.iccs()[0] == "i0i9" { "4.1.1" } else { "4.1.3" })
        );
    }
    // Repetitions are judged by the 棋例: two players shuffling horses draw.
    struct Shuffle;
    impl Player for Shuffle {
        fn name(&self) -> &str {
            "shuffle"
        }
        fn new_game(&mut self, _: &Game, _: GameStart) -> Result<(), PlayerError> {
            Ok(())
        }
        fn choose_move(&mut self, game: &Game, _: &SearchLimits) -> Result<MoveChoice, PlayerError> {
            let text = ["h0g2", "h9g7", "g2h0", "g7h9"][game.ply() % 4];
            parse_move(game.position(), text)
                .map(MoveChoice::new)
                .map_err(|e| PlayerError::Protocol(e.to_string()))
        }
    }
    let r = play_game(&mut Shuffle, &mut Shuffle, &Opening::startpos(), GameRules::default(), &options(0));
    assert_eq!(
        (r.outcome.result, r.outcome.reason, r.plies()),
        (GameResult::Draw, Termination::BothAllowed, 8)
    );
}

/// Game pairs from each opening, `a` red in the first game of a pair, seeded by the game index.
fn pairs(
    openings: &[Opening],
    mut a: impl Player,
    mut b: impl Player,
    options: impl Fn(u64) -> GameOptions,
) -> Vec<xq_play::GameRecord> {
    let mut records = Vec::new();
    for (i, opening) in openings.iter().enumerate() {
        for swap in [false, true] {
            let game = 2 * i as u64 + u64::from(swap);
            let (red, black): (&mut dyn Player, &mut dyn Player) =
                if swap { (&mut b, &mut a) } else { (&mut a, &mut b) };
            records.push(play_game(red, black, opening, GameRules::default(), &options(game)));
        }
    }
    records
}

#[test]
fn a_reused_player_plays_each_game_as_if_new() {
    let openings = Opening::random_set(3, 2, 4);
    let options = |game| GameOptions { max_plies: Some(80), seed: 11 + game, ..GameOptions::default() };
    let all = pairs(&openings, GreedyPlayer::new(1), RandomPlayer::new(2), options);
    for (i, record) in all.iter().enumerate() {
        let one = pairs(&openings[i / 2..=i / 2], GreedyPlayer::new(1), RandomPlayer::new(2), |g| {
            options(g + (i / 2 * 2) as u64)
        });
        assert_eq!(essence(record), essence(&one[i % 2]), "game {i}");
        assert_eq!(record.player(if i % 2 == 0 { Color::Red } else { Color::Black }), "greedy");
        assert_eq!(record.opening, openings[i / 2].name());
    }
}

#[test]
fn alphabeta_beats_random() {
    let options = |game| GameOptions {
        max_plies: Some(300),
        red_limits: if game % 2 == 0 { SearchLimits::depth(2) } else { SearchLimits::NONE },
        black_limits: if game % 2 == 1 { SearchLimits::depth(2) } else { SearchLimits::NONE },
        seed: 3 + game,
        ..GameOptions::default()
    };
    let records =
        pairs(&Opening::random_set(2, 2, 8), AlphaBetaPlayer::with_depth(2), RandomPlayer::new(9), options);
    let wins = records
        .iter()
        .filter(|r| r.outcome.result.winner().is_some_and(|c| r.player(c) == "alphabeta-d2"))
        .count();
    assert_eq!(wins, 4, "{:?}", records.iter().map(|r| r.outcome).collect::<Vec<_>>());
}
