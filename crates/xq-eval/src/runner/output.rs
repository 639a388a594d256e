//! What a finished (or interrupted) event leaves in its output directory: the games as PGN, the
//! JSON report, the Markdown summary and the rating ladder chart.

use crate::events::Event;
use crate::pgn::{PgnGame, PgnHeader};
use crate::plot::rating_ladder_svg;
use crate::report::{EventReport, PlayerSpeed};
use crate::runner::config::{MoveComments, RunConfig};
use crate::runner::journal::{JOURNAL_FILE, JournalEntry, PlayerUsage};
use crate::runner::{RunError, io_error};
use std::path::Path;
use xq_core::GameRules;

/// The games in Xiangqi PGN.
pub const PGN_FILE: &str = "games.pgn";
/// The JSON report.
pub const REPORT_JSON_FILE: &str = "report.json";
/// The Markdown summary.
pub const REPORT_MD_FILE: &str = "report.md";
/// The rating ladder chart.
pub const LADDER_SVG_FILE: &str = "ladder.svg";
/// The rating ladder chart as PNG, written beside the SVG by the same call.
pub const LADDER_PNG_FILE: &str = "ladder.png";

/// Writes `games.pgn`, `report.json`, `report.md`, `ladder.svg` and `ladder.png`; returns the
/// report.
pub(crate) fn write_outputs(
    config: &RunConfig,
    event: &Event,
    entries: &[JournalEntry],
    out_dir: &Path,
) -> Result<EventReport, RunError> {
    let mut sorted: Vec<&JournalEntry> = entries.iter().collect();
    sorted.sort_by_key(|e| e.record.game);
    let date = chrono::Utc::now().format("%Y.%m.%d").to_string();
    let mut pgn = String::new();
    for e in sorted {
        pgn.push_str(&pgn_of(config, config.rules, e, &date)?.write());
    }
    let write = |name: &str, text: &str| {
        let path = out_dir.join(name);
        xq_files::write_atomic(&path, text.as_bytes()).map_err(io_error(&path))
    };
    write(PGN_FILE, &pgn)?;
    let mut report = EventReport::from_event(event);
    report.speed = player_speeds(config, entries);
    fill_pair_times(&mut report, config, entries);
    let json = serde_json::to_string_pretty(&report).map_err(|e| RunError::Worker(format!("report: {e}")))?;
    write(REPORT_JSON_FILE, &(json + "\n"))?;
    write(REPORT_MD_FILE, &report.to_markdown())?;
    let ladder = report.ladder();
    if !ladder.is_empty() {
        rating_ladder_svg(
            &ladder,
            &format!("{}: Elo against the field (95%)", config.name),
            &out_dir.join(LADDER_SVG_FILE),
        )?;
    }
    Ok(report)
}

/// Each player's time and nodes over the journal's games, in player order.
fn player_speeds(config: &RunConfig, entries: &[JournalEntry]) -> Vec<PlayerSpeed> {
    let mut totals = vec![PlayerUsage::default(); config.players.len()];
    for e in entries {
        for (player, usage) in [(e.record.red, &e.usage[0]), (e.record.black, &e.usage[1])] {
            if let Some(total) = totals.get_mut(player) {
                total.add(usage);
            }
        }
    }
    config
        .players
        .iter()
        .zip(totals)
        .map(|(p, u)| PlayerSpeed {
            name: p.name().to_string(),
            moves: u.moves,
            seconds_per_move: (u.moves > 0).then(|| u.seconds / f64::from(u.moves)),
            nodes_per_move: (u.moves > 0 && u.nodes > 0).then(|| u.nodes as f64 / f64::from(u.moves)),
            nodes_per_second: u.nodes_per_second(),
            budget: budget_of(config, p),
        })
        .collect()
}

/// The limits a player searches under (its own keys over the event's), or `None` for players
/// that take no budget (random, greedy).
fn budget_of(config: &RunConfig, player: &crate::runner::PlayerSpec) -> Option<String> {
    use crate::runner::PlayerSpec;
    match player {
        PlayerSpec::Random { .. } | PlayerSpec::Greedy { .. } => None,
        _ => Some(player.own_limits().or(config.limits).to_string()),
    }
}

/// Each pair's measured time per move, side by side, from the games the two played together:
/// what [`crate::report::PairReport::equal_time`] reads.
fn fill_pair_times(report: &mut EventReport, config: &RunConfig, entries: &[JournalEntry]) {
    let index = |name: &str| config.players.iter().position(|p| p.name() == name);
    for pair in &mut report.pairs {
        let (Some(a), Some(b)) = (index(&pair.a), index(&pair.b)) else { continue };
        let mut usage = [PlayerUsage::default(); 2];
        for e in entries {
            let (red, black) = (e.record.red, e.record.black);
            if (red, black) == (a, b) {
                usage[0].add(&e.usage[0]);
                usage[1].add(&e.usage[1]);
            } else if (red, black) == (b, a) {
                usage[0].add(&e.usage[1]);
                usage[1].add(&e.usage[0]);
            }
        }
        if usage.iter().all(|u| u.moves > 0) {
            pair.seconds_per_move = Some(usage.map(|u| u.seconds / f64::from(u.moves)));
        }
    }
}

/// A journal entry as a PGN game, moves replayed by xq-core for the Chinese comments.
pub fn pgn_of(
    config: &RunConfig,
    rules: GameRules,
    e: &JournalEntry,
    date: &str,
) -> Result<PgnGame, RunError> {
    let bad = |m: String| RunError::Journal {
        path: JOURNAL_FILE.into(),
        line: e.record.game as usize + 1,
        message: m,
    };
    let mut game = xq_core::Game::from_fen(&e.start_fen, rules).map_err(|x| bad(x.to_string()))?;
    let mut comments = Vec::with_capacity(e.moves.len());
    for &mv in &e.moves {
        if config.output.pgn_comments == MoveComments::Chinese {
            comments.push(xq_core::notation::chinese(game.position(), mv));
        }
        game.play(mv).map_err(|x| bad(x.to_string()))?;
    }
    let time_control =
        |player: usize| config.players.get(player).and_then(|p| p.own_limits().or(config.limits).tc);
    let (red_tc, black_tc) = (time_control(e.record.red), time_control(e.record.black));
    let outcome = e.record.outcome;
    let header = PgnHeader {
        event: config.name.clone(),
        site: config.output.site.clone(),
        date: date.to_string(),
        round: e.record.round.to_string(),
        red: e.red.clone(),
        black: e.black.clone(),
        fen: Some(e.start_fen.clone()),
        termination: outcome.map(|o| o.reason.name().to_string()),
        article: outcome.map(|o| o.article.to_string()).filter(|a| !a.is_empty()),
        opening: e.opening_name.clone(),
        movetext: config.output.pgn_movetext,
        // PGN has one time control per game; players on different clocks get none.
        time_control: red_tc.filter(|_| red_tc == black_tc).map(|tc| tc.to_string()),
    };
    let mut pgn = PgnGame::from_game(&header, &game, &comments, Some(e.record.result));
    pgn.tags.push(("GameNumber".into(), e.record.game.to_string()));
    if let Some(note) = &e.note {
        pgn.tags.push(("TerminationDetails".into(), note.clone()));
    }
    Ok(pgn)
}
