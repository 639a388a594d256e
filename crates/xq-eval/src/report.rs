//! The JSON report of an event and its Markdown summary.

use crate::events::{Event, Format, GateVerdict};
use crate::plot::RatedPoint;
use crate::record::{pair_tallies, player_tallies};
use crate::standings::Standing;
use crate::stats::{ColourSplit, EloEstimate, Pentanomial, SprtResult};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// One player's results against the whole field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerReport {
    /// Player name.
    pub name: String,
    /// W/D/L overall and by colour.
    pub games: ColourSplit,
    /// Performance against the field (trinomial Elo of its overall score), if it played.
    pub performance: Option<EloEstimate>,
}

/// Results between two players, from the first one's point of view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairReport {
    /// First player (lower index).
    pub a: String,
    /// Second player.
    pub b: String,
    /// The first player's W/D/L overall and by its colour.
    pub games: ColourSplit,
    /// Pentanomial counts of complete game pairs.
    pub pentanomial: Pentanomial,
    /// Elo, nElo, LOS with trinomial variance.
    pub trinomial_estimate: Option<EloEstimate>,
    /// Elo, nElo, LOS with pentanomial variance (when there are complete pairs).
    pub pentanomial_estimate: Option<EloEstimate>,
    /// Each side's measured mean wall time per move in these games, `[a, b]`, in seconds
    /// (filled by the event runner from its journal; `None` before either has moved).
    #[serde(default)]
    pub seconds_per_move: Option<[f64; 2]>,
}

/// Two players whose measured time a move differs by more than this factor did not play at
/// equal time, whatever their limits said: a depth-capped alpha-beta answering in 0 ms against
/// a network given 100 ms, or an engine that stops at a third of its time.
pub const EQUAL_TIME_RATIO: f64 = 2.0;

/// Times below this count as this in [`PairReport::equal_time`]: two players that both answer
/// at once (random, greedy) are level whatever the ratio of their microseconds.
const TIME_FLOOR_SECONDS: f64 = 0.001;

impl PairReport {
    /// Whether the two sides' measured time per move is within [`EQUAL_TIME_RATIO`] of each
    /// other; `None` before both have moved.
    ///
    /// ```
    /// use xq_eval::report::PairReport;
    /// use xq_eval::stats::{ColourSplit, Pentanomial};
    /// let pair = |a: f64, b: f64| PairReport {
    ///     a: "net".into(),
    ///     b: "alphabeta-d3".into(),
    ///     games: ColourSplit::default(),
    ///     pentanomial: Pentanomial::default(),
    ///     trinomial_estimate: None,
    ///     pentanomial_estimate: None,
    ///     seconds_per_move: Some([a, b]),
    /// };
    /// assert_eq!(pair(0.088, 0.0004).equal_time(), Some(false));
    /// assert_eq!(pair(0.088, 0.092).equal_time(), Some(true));
    /// ```
    pub fn equal_time(&self) -> Option<bool> {
        let [a, b] = self.seconds_per_move?;
        Some(times_are_equal(a, b))
    }
}

/// Whether two measured mean times per move, in seconds, are within [`EQUAL_TIME_RATIO`] of
/// each other (times under a millisecond count as one).
pub fn times_are_equal(a: f64, b: f64) -> bool {
    let (a, b) = (a.max(TIME_FLOOR_SECONDS), b.max(TIME_FLOOR_SECONDS));
    a.max(b) <= EQUAL_TIME_RATIO * a.min(b)
}

/// A standings line with the player's name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NamedStanding {
    /// Player name.
    pub name: String,
    /// The standing.
    #[serde(flatten)]
    pub standing: Standing,
}

/// How fast a player searched over the event's games: what equal-time comparisons rest on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerSpeed {
    /// Player name.
    pub name: String,
    /// Moves it chose.
    pub moves: u32,
    /// Mean wall time per move, in seconds.
    pub seconds_per_move: Option<f64>,
    /// Mean nodes (or tree-search visits) per move, when it reports them.
    pub nodes_per_move: Option<f64>,
    /// Nodes (or visits) per second of its own move time.
    pub nodes_per_second: Option<f64>,
    /// The budget it was given, as its limits print (`depth 3, 100 ms/move`): a depth- or
    /// node-capped player is shown by its cap beside the time it took.
    #[serde(default)]
    pub budget: Option<String>,
}

/// The players' speed as a markdown table (a blank line first), or nothing when no player
/// has moved: the record that games at equal time were played at equal time.
pub fn speed_table_markdown(speed: &[PlayerSpeed]) -> String {
    let mut out = String::new();
    if !speed.iter().any(|p| p.moves > 0) {
        return out;
    }
    out.push_str(
        "\n| Player | Budget | Moves | Time/move | Nodes/move | Nodes/s |\n|---|---|---:|---:|---:|---:|\n",
    );
    let number = |x: Option<f64>| x.map_or("–".to_string(), |v| format!("{v:.0}"));
    for p in speed {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            escape(&p.name),
            p.budget.as_deref().map_or("–".to_string(), escape),
            p.moves,
            p.seconds_per_move.map_or("–".to_string(), |s| format!("{:.0} ms", 1000.0 * s)),
            number(p.nodes_per_move),
            number(p.nodes_per_second),
        );
    }
    out
}

/// Everything an event's results say, ready for `serde_json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventReport {
    /// Event name.
    pub name: String,
    /// The format.
    pub format: Format,
    /// Games finished.
    pub games: usize,
    /// Whether the event is over.
    pub finished: bool,
    /// Standings in rank order.
    pub standings: Vec<NamedStanding>,
    /// Per player, in player order.
    pub players: Vec<PlayerReport>,
    /// Per pair of players that met.
    pub pairs: Vec<PairReport>,
    /// The SPRT state (SPRT events).
    pub sprt: Option<SprtResult>,
    /// The gate verdict (gates).
    pub gate: Option<GateVerdict>,
    /// Why a Swiss event ended early, if it did.
    pub pairing_error: Option<String>,
    /// Each player's time and nodes per move (filled by the event runner from its journal).
    #[serde(default)]
    pub speed: Vec<PlayerSpeed>,
}

impl EventReport {
    /// Builds the report from an event's current results.
    pub fn from_event(event: &Event) -> EventReport {
        let config = event.config();
        let names = &config.players;
        let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| format!("#{i}"));
        let records = event.records();
        let standings = event
            .standings()
            .into_iter()
            .map(|standing| NamedStanding { name: name(standing.player), standing })
            .collect();
        let players = player_tallies(&records, names.len())
            .into_iter()
            .enumerate()
            .map(|(i, games)| PlayerReport { name: name(i), games, performance: games.total.estimate().ok() })
            .collect();
        let pairs = pair_tallies(&records)
            .into_iter()
            .map(|((a, b), t)| PairReport {
                a: name(a),
                b: name(b),
                games: t.games,
                pentanomial: t.pentanomial,
                trinomial_estimate: t.games.total.estimate().ok(),
                pentanomial_estimate: t.pentanomial.estimate().ok(),
                seconds_per_move: None,
            })
            .collect();
        EventReport {
            name: config.name.clone(),
            format: config.format.clone(),
            games: records.len(),
            finished: event.is_finished(),
            standings,
            players,
            pairs,
            sprt: event.sprt_result(),
            gate: event.gate_verdict(),
            pairing_error: event.pairing_error().map(ToString::to_string),
            speed: Vec::new(),
        }
    }

    /// The rating ladder: each player's performance against the field with its interval.
    pub fn ladder(&self) -> Vec<RatedPoint> {
        self.players
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                p.performance.map(|e| RatedPoint {
                    label: p.name.clone(),
                    x: i as f64,
                    elo: e.elo.value,
                    lower: e.elo.lower,
                    upper: e.elo.upper,
                })
            })
            .collect()
    }

    /// A Markdown summary: standings, pair statistics and the SPRT or gate verdict.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# {}\n", self.name);
        let state = if self.finished { "finished" } else { "in progress" };
        let _ = writeln!(out, "{} games, {state}.\n", self.games);
        out.push_str("| Rank | Player | Points | Games | W | D | L | 小分 (SB) | 对手分 (Opp) | Direct | Violations |\n");
        out.push_str("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for s in &self.standings {
            let t = &s.standing;
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                t.rank,
                escape(&s.name),
                t.points,
                t.games,
                t.wins,
                t.draws,
                t.losses,
                t.sonneborn_berger,
                t.opponents_points,
                t.direct,
                t.violations
            );
        }
        if !self.pairs.is_empty() {
            out.push_str(
                "\n| Pair | W-D-L | Red W-D-L | Pentanomial [LL..WW] | Elo (95%) | nElo (95%) | LOS | Time/move |\n",
            );
            out.push_str("|---|---|---|---|---:|---:|---:|---|\n");
            for p in &self.pairs {
                let g = &p.games;
                let est = p.pentanomial_estimate.or(p.trinomial_estimate);
                let (elo, nelo, los) = est.map_or(("–".into(), "–".into(), "–".into()), |e| {
                    (
                        interval_text(&e.elo, 1),
                        if e.nelo.lower == e.nelo.upper {
                            // No spread in the results: nElo is undefined.
                            "–".to_string()
                        } else {
                            interval_text(&e.nelo, 1)
                        },
                        format!("{:.1}%", 100.0 * e.los),
                    )
                });
                let time = p.seconds_per_move.map_or("–".to_string(), |[a, b]| {
                    let flag = if p.equal_time() == Some(false) { ", **not equal time**" } else { "" };
                    format!("{:.0} / {:.0} ms{flag}", 1000.0 * a, 1000.0 * b)
                });
                let _ = writeln!(
                    out,
                    "| {} vs {} | {}-{}-{} | {}-{}-{} | {:?} | {elo} | {nelo} | {los} | {time} |",
                    escape(&p.a),
                    escape(&p.b),
                    g.total.wins,
                    g.total.draws,
                    g.total.losses,
                    g.as_red.wins,
                    g.as_red.draws,
                    g.as_red.losses,
                    p.pentanomial.counts
                );
            }
        }
        out.push_str(&speed_table_markdown(&self.speed));
        if let Some(s) = &self.sprt {
            let _ = writeln!(
                out,
                "\nSPRT: LLR {:.3} in [{:.3}, {:.3}] → {:?}",
                s.llr, s.lower_bound, s.upper_bound, s.state
            );
        }
        if let Some(g) = &self.gate {
            let _ = writeln!(out, "\nGate: {g:?}");
        }
        if let Some(e) = &self.pairing_error {
            let _ = writeln!(out, "\nEnded early: {e}");
        }
        out
    }
}

/// Keeps a name from breaking the Markdown table.
fn escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// An interval as the reports print it, to `decimals` places: `value ± half-width` when the
/// interval is symmetric about the value (within a tenth of its half-width), `value [lower,
/// upper]` otherwise: when an end is infinite (a score of 0 or 1, a single sample), where a "±"
/// would read NaN or infinity, and when the interval leans to one side, as a likelihood
/// interval near a score of 0 or 1 does, where a "±" would misplace both ends. Never a negative
/// zero.
///
/// ```
/// use xq_eval::report::interval_text;
/// use xq_eval::stats::Interval;
/// assert_eq!(interval_text(&Interval { value: 12.34, lower: 2.0, upper: 22.0 }, 1), "12.3 ± 10.0");
/// assert_eq!(interval_text(&Interval { value: 338.0, lower: 89.6, upper: 521.9 }, 0), "+338 [+90, +522]");
/// assert_eq!(interval_text(&Interval { value: -0.0, lower: f64::NEG_INFINITY, upper: f64::INFINITY }, 0), "+0 [-inf, +inf]");
/// ```
pub fn interval_text(interval: &crate::stats::Interval, decimals: usize) -> String {
    // Adding +0 turns a -0 (and a rounding to -0) into +0.
    let tidy = |x: f64| {
        let scale = 10f64.powi(decimals as i32);
        if x.is_finite() { (x * scale).round() / scale + 0.0 } else { x }
    };
    let (value, lower, upper) = (tidy(interval.value), tidy(interval.lower), tidy(interval.upper));
    let symmetric = lower.is_finite()
        && upper.is_finite()
        && ((upper - value) - (value - lower)).abs() <= 0.1 * interval.half_width();
    if symmetric {
        format!("{value:.decimals$} ± {:.decimals$}", tidy(interval.half_width()))
    } else {
        format!("{value:+.decimals$} [{lower:+.decimals$}, {upper:+.decimals$}]")
    }
}
