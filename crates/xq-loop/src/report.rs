//! The run report: `report.md` with a table per generation, `elo.svg` (ladder Elo of each
//! accepted model with 95% intervals) and `loss.svg` (training losses over all generations),
//! each chart with a PNG of the same stem beside it, rewritten after every generation.

use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;
use xq_eval::events::{GateThreshold, Undecided};
use xq_eval::plot::{RatedPoint, elo_progress_svg};
use xq_eval::stats::Wdl;
use xq_train::CsvRow;

use crate::LoopError;
use crate::config::LoopConfig;
use crate::run::{RunPaths, generation_name};
use crate::state::{GenerationRecord, LadderRecord, LoopState, SelfplayRecord};

/// Terminations shown as their own column, in this order; the rest are summed as "other".
/// The report's termination columns: the termination names each counts, and its title.
const TERMINATION_COLUMNS: [(&[&str], &str); 11] = [
    (&["checkmate"], "mate"),
    (&["stalemate"], "stalemate"),
    (&["perpetual_check"], "perp. check"),
    (&["perpetual_chase"], "perp. chase"),
    (&["perpetual_mate_threat"], "mate threat"),
    (&["perpetual_attack"], "other perp."),
    (&["both_allowed", "both_forbidden", "mutual_perpetual_check"], "rep. draw"),
    (&["move_limit"], "move limit"),
    (&["insufficient_material"], "material"),
    (&["resignation"], "resign"),
    (&["max_length"], "max plies"),
];

/// Writes `report.md`, `elo.svg` and `loss.svg` (with `elo.png` and `loss.png`) into the run's
/// model directory.
///
/// # Errors
/// [`LoopError::Report`] or [`LoopError::Io`].
pub fn write_report(config: &LoopConfig, paths: &RunPaths, state: &LoopState) -> Result<(), LoopError> {
    let axis = EloAxis::of(state);
    let by_generation = elo_points(state, &axis, |g| f64::from(g.generation), -1.0);
    let elo_svg = paths.models.join("elo.svg");
    let elo_hours_svg = paths.models.join("elo-hours.svg");
    if !by_generation.is_empty() {
        let plot_error = |e: xq_eval::plot::PlotError| LoopError::Report(e.to_string());
        let title = axis.title();
        elo_progress_svg(&by_generation, &title, "generation (baseline = -1)", &elo_svg)
            .map_err(plot_error)?;
        let hours = cumulative_hours(state);
        let by_hours = elo_points(state, &axis, |g| hours[g.generation as usize], 0.0);
        elo_progress_svg(&by_hours, &title, "hours of the run (wall clock, every stage)", &elo_hours_svg)
            .map_err(plot_error)?;
    }
    let curves = loss_curves(paths, state);
    let loss_svg = paths.models.join("loss.svg");
    if curves.iter().any(|c| !c.points.is_empty()) {
        loss_plot(&curves, &loss_svg)?;
    }
    let validation_csv = paths.models.join("validation.csv");
    let csv = validation_table(state);
    xq_files::write_atomic(&validation_csv, csv.as_bytes()).map_err(crate::io_error(&validation_csv))?;
    let text =
        markdown(config, state, !by_generation.is_empty(), curves.iter().any(|c| !c.points.is_empty()));
    let path = paths.report();
    xq_files::write_atomic(&path, text.as_bytes()).map_err(crate::io_error(&path))
}

/// `validation.csv`: every candidate's scores on the validation sets, one row per generation
/// and set, with the sets' baselines.
fn validation_table(state: &LoopState) -> String {
    let mut csv = format!("generation,model_id,{}\n", xq_train::validation::VALIDATION_CSV_HEADER);
    for g in &state.generations {
        let Some(t) = &g.train else { continue };
        for score in &t.validation {
            let _ = writeln!(csv, "{},{},{}", g.generation, t.model_id, score.csv());
        }
    }
    csv
}

/// What the Elo charts show: the scale's Elo when a generation's ladder placed its model on a
/// calibrated scale, else the ladder's performance Elo.
enum EloAxis {
    Ladder,
    Scale(String),
}

impl EloAxis {
    fn of(state: &LoopState) -> EloAxis {
        let rated =
            state.baseline_ladder.iter().chain(state.generations.iter().filter_map(|g| g.ladder.as_ref()));
        match rated.filter_map(|l| l.scale.as_ref()).next_back() {
            Some(rating) => EloAxis::Scale(rating.scale.clone()),
            None => EloAxis::Ladder,
        }
    }

    fn title(&self) -> String {
        match self {
            EloAxis::Ladder => "Ladder Elo of accepted models".into(),
            EloAxis::Scale(scale) => format!("Accepted models on the scale {scale}"),
        }
    }

    fn point(&self, l: &LadderRecord, x: f64) -> Option<RatedPoint> {
        let label = l.model.clone();
        match self {
            EloAxis::Ladder => l.elo.map(|[elo, lower, upper]| RatedPoint { label, x, elo, lower, upper }),
            EloAxis::Scale(scale) => {
                let rating = l.scale.as_ref().filter(|r| r.scale == *scale)?;
                let p = rating.placement.as_ref()?;
                Some(RatedPoint { label, x, elo: p.elo, lower: p.lower(), upper: p.upper() })
            }
        }
    }
}

/// Wall hours of the run through the end of each generation (index: generation).
fn cumulative_hours(state: &LoopState) -> Vec<f64> {
    let mut total = 0.0;
    state
        .generations
        .iter()
        .map(|g| {
            total += g.seconds / 3600.0;
            total
        })
        .collect()
}

/// The baseline (at `baseline_x`) and every rated accepted model (at `x` of its generation).
fn elo_points(
    state: &LoopState,
    axis: &EloAxis,
    x: impl Fn(&GenerationRecord) -> f64,
    baseline_x: f64,
) -> Vec<RatedPoint> {
    let mut points: Vec<RatedPoint> =
        state.baseline_ladder.iter().filter_map(|l| axis.point(l, baseline_x)).collect();
    points
        .extend(state.generations.iter().filter_map(|g| g.ladder.as_ref().and_then(|l| axis.point(l, x(g)))));
    points
}

/// A placement on the scale, `1432 ± 48 (60 games)`, or `–`.
fn fmt_scale(l: &LadderRecord) -> String {
    match l.scale.as_ref().and_then(|r| r.placement.as_ref().map(|p| (r, p))) {
        Some((r, p)) => format!(
            "{:.0} ± {:.0} ({} games{})",
            p.elo,
            p.half_width,
            p.wdl.games(),
            if r.reached_target { "" } else { ", wider than its target" }
        ),
        None => "–".into(),
    }
}

/// One named curve of (global step, loss).
struct Curve {
    name: &'static str,
    color: RGBColor,
    points: Vec<(f64, f64)>,
}

/// The trainer's metrics of every generation, steps laid end to end.
fn loss_curves(paths: &RunPaths, state: &LoopState) -> Vec<Curve> {
    // The trainer's colours, so a run's loss.svg reads like each generation's metrics.svg.
    let mut policy =
        Curve { name: "policy loss", color: xq_train::metrics::POLICY_COLOR, points: Vec::new() };
    let mut value = Curve { name: "value loss", color: xq_train::metrics::VALUE_COLOR, points: Vec::new() };
    let mut offset = 0.0;
    for g in &state.generations {
        let Some(train) = &g.train else { continue };
        let dir = match g.promoted {
            Some(true) => paths.accepted(g.generation),
            Some(false) => paths.rejected(g.generation),
            None => paths.candidate(g.generation),
        };
        // An unreadable metrics file leaves a gap in the plot rather than failing the report.
        for row in xq_train::metrics::read_rows(&dir.join("metrics.csv")).unwrap_or_default() {
            let step = offset + row.step as f64;
            policy.points.push((step, f64::from(row.policy_loss)));
            value.points.push((step, f64::from(row.value_loss)));
        }
        offset += train.steps as f64;
    }
    vec![policy, value]
}

fn loss_plot(curves: &[Curve], path: &Path) -> Result<(), LoopError> {
    let err = |e: &dyn std::fmt::Debug| LoopError::Report(format!("{}: {e:?}", path.display()));
    let all = curves.iter().flat_map(|c| c.points.iter());
    let (mut x1, mut y1) = (1.0f64, 0.1f64);
    for &(x, y) in all {
        x1 = x1.max(x);
        if y.is_finite() {
            y1 = y1.max(y);
        }
    }
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (800, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Training loss over the run", ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..x1 * 1.02, 0.0..y1 * 1.05)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("training step (all generations)")
        .y_desc("loss")
        .draw()
        .map_err(|e| err(&e))?;
    for curve in curves {
        let color = curve.color;
        chart
            .draw_series(LineSeries::new(curve.points.iter().copied(), color))
            .map_err(|e| err(&e))?
            .label(curve.name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    drop(chart);
    drop(root);
    xq_files::write_atomic(path, svg.as_bytes()).map_err(crate::io_error(path))?;
    match xq_plot::write_png_beside(path, &svg) {
        Ok(_) => Ok(()),
        Err(xq_plot::PngError::Write { path, source }) => Err(LoopError::Io { path, source }),
        Err(e) => Err(LoopError::Report(format!("{}: {e}", xq_plot::png_path(path).display()))),
    }
}

fn fmt_elo(elo: Option<[f64; 3]>) -> String {
    match elo {
        Some([e, lo, hi]) => format!("{e:+.0} [{lo:+.0}, {hi:+.0}]"),
        None => "–".into(),
    }
}

fn markdown(config: &LoopConfig, state: &LoopState, has_elo: bool, has_loss: bool) -> String {
    let mut md = String::new();
    let done = state.generations.iter().filter(|g| g.promoted.is_some()).count();
    let accepted = state.generations.iter().filter(|g| g.promoted == Some(true)).count();
    let _ = writeln!(md, "# xq run `{}`\n", config.run.name);
    let _ = writeln!(
        md,
        "{done} of {} generations decided, {accepted} promoted. Self-play: {} games per generation ({} while \
         the built-in evaluator plays) at {} visits; gate: {} pairs at {}; ladder: {} pairs per opponent at {}.\n",
        config.run.generations,
        config.selfplay.games,
        config.selfplay_games(false),
        config.search.visits,
        config.gate.pairs,
        config.gate.limits,
        config.ladder.pairs,
        config.ladder.limits,
    );
    if let (Some(teacher), games @ 1..) = (&config.bootstrap.teacher, config.bootstrap.games_after_promotion)
    {
        let _ = writeln!(
            md,
            "After the first promotion the teacher ({}) plays {games} more games every generation, beside \
             the network's self-play.\n",
            teacher.model_id()
        );
        if let Some(phase_out) = config.bootstrap.teacher_phase_out {
            let _ = writeln!(
                md,
                "Its games are phased out: {games} up to generation {}, linearly fewer after it, none from \
                 generation {} on.\n",
                phase_out.start, phase_out.end
            );
        }
    }
    if has_elo {
        md += "![ladder Elo](elo.svg)\n\n![Elo against the run's hours](elo-hours.svg)\n\n";
    }
    if has_loss {
        md += "![training loss](loss.svg)\n\n";
    }
    md += "## Self-play\n\n| gen | player | games | positions | games/h | net positions/s | outside net | red-black-draw |";
    for (_, title) in TERMINATION_COLUMNS {
        let _ = write!(md, " {title} |");
    }
    md += " other |\n|---|---|---|---|---|---|---|---|";
    md += &"---|".repeat(TERMINATION_COLUMNS.len() + 1);
    md += "\n";
    for g in &state.generations {
        let label = generation_name(g.generation);
        if let Some(s) = &g.selfplay {
            selfplay_row(&mut md, &label, &g.player, s);
        }
        if let (Some(s), Some(teacher)) = (&g.teacher, &config.bootstrap.teacher) {
            selfplay_row(&mut md, &label, &format!("{} (teacher)", teacher.model_id()), s);
        }
    }
    md += "\n## Training and gate\n\n| gen | candidate | steps | window | policy loss | value loss | policy top-1 | value acc. | samples/s | gate vs | +/=/- | gate Elo | verdict | ladder Elo |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for g in &state.generations {
        let Some(t) = &g.train else { continue };
        let (opponent, wdl, gate_elo) = match &g.gate {
            Some(gate) => (
                gate.opponent.clone(),
                format!("+{}={}-{}", gate.wins, gate.draws, gate.losses),
                fmt_elo(gate.elo),
            ),
            None => ("–".into(), "–".into(), "–".into()),
        };
        let verdict = match g.promoted {
            Some(true) => "promoted",
            Some(false) => "rejected",
            None => "pending",
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {:.3} | {:.3} | {:.1}% | {:.1}% | {:.0} | {} | {} | {} | {} | {} |",
            generation_name(g.generation),
            t.model_id,
            t.steps,
            t.window_samples,
            t.policy_loss,
            t.value_loss,
            t.policy_top1 * 100.0,
            t.value_accuracy * 100.0,
            t.samples_per_sec,
            opponent,
            wdl,
            gate_elo,
            verdict,
            fmt_elo(g.ladder.as_ref().and_then(|l| l.elo)),
        );
    }
    md += &validation_markdown(state);
    md += "\n## Ladder\n\nEach model plays the same fixed opponents (MCTS with the uniform evaluator at the same visits, \
           the material-greedy player, the alpha-beta baseline); Elo is its performance against them with a 95% interval.\n\n\
           | model | Elo | score | per opponent (+/=/-) | scale Elo |\n|---|---|---|---|---|\n";
    let rows = state
        .baseline_ladder
        .iter()
        .chain(state.generations.iter().filter_map(|g: &GenerationRecord| g.ladder.as_ref()));
    for l in rows {
        let per: Vec<String> =
            l.opponents.iter().map(|(name, [w, d, lo])| format!("{name} +{w}={d}-{lo}")).collect();
        let _ = writeln!(
            md,
            "| {} | {} | {:.1}% | {} | {} |",
            l.model,
            fmt_elo(l.elo),
            l.score * 100.0,
            per.join(", "),
            fmt_scale(l)
        );
    }
    md += &final_rating_markdown(state);
    md
}

/// The final rating: the last accepted model against each opponent, whether it beat it, and
/// how fast every player searched.
fn final_rating_markdown(state: &LoopState) -> String {
    let Some(record) = &state.final_rating else { return String::new() };
    let section = &record.section;
    let pairs = match section.max_pairs {
        Some(most) if most > section.pairs => {
            format!("{} pairs (up to {most} while the SPRT is undecided)", section.pairs)
        }
        _ => format!("{} pairs", section.pairs),
    };
    let mut md = format!(
        "\n## Final rating\n\nThe last accepted model ({}) against each opponent, {pairs} at {}.",
        generation_name(record.generation),
        section.limits
    );
    let Some(rating) = &record.rating else {
        md += " Not finished: the next `xq loop` with this configuration plays the rest.\n";
        return md;
    };
    if let Some(threshold) = &section.threshold {
        let _ = write!(md, " \"Beaten\" means {}.", describe_threshold(threshold));
    }
    let _ = writeln!(
        md,
        " `{}`: Elo {} over all opponents, score {:.1}%.\n",
        rating.model,
        fmt_elo(rating.elo),
        100.0 * rating.score
    );
    md += "| opponent | games | +/=/- | score | beaten | time/move (model / opponent) |\n|---|---|---|---|---|---|\n";
    let model_time = rating.speed.first().and_then(|p| p.seconds_per_move);
    for (i, (name, [w, d, l])) in rating.opponents.iter().enumerate() {
        let games = w + d + l;
        let score = Wdl { wins: *w, draws: *d, losses: *l }
            .score()
            .map_or_else(|_| "–".to_string(), |s| format!("{:.1}%", 100.0 * s));
        let beaten = match rating.beats.get(i) {
            Some(true) => "yes",
            Some(false) => "no",
            None => "–",
        };
        // The gauntlet's player 0 is the model, then the opponents in order.
        let opponent_time = rating.speed.get(i + 1).and_then(|p| p.seconds_per_move);
        let time = match (model_time, opponent_time) {
            (Some(a), Some(b)) => {
                let equal = xq_eval::report::times_are_equal(a, b);
                format!(
                    "{:.0} / {:.0} ms{}",
                    1000.0 * a,
                    1000.0 * b,
                    if equal { "" } else { ", **not equal time**" }
                )
            }
            _ => "–".to_string(),
        };
        let _ = writeln!(md, "| {name} | {games} | +{w}={d}-{l} | {score} | {beaten} | {time} |");
    }
    md += &xq_eval::report::speed_table_markdown(&rating.speed);
    if let Some(scale) = &rating.scale {
        let _ = writeln!(md, "\n### On the scale {}\n\n{}", scale.scale, scale_summary(scale));
    }
    md
}

/// A scale rating in a few lines: the placement and the anchors played.
fn scale_summary(rating: &xq_eval::scale::Rating) -> String {
    let text = rating.to_markdown();
    // The rating's own title is the section's heading here.
    text.split_once("\n\n").map_or(text.clone(), |(_, rest)| rest.to_string())
}

/// One row of the self-play table.
fn selfplay_row(md: &mut String, label: &str, player: &str, s: &SelfplayRecord) {
    let (net_speed, outside_net) = if s.evaluations_per_second > 0.0 {
        (format!("{:.0}", s.evaluations_per_second), format!("{:.0}%", 100.0 * s.outside_evaluator_share))
    } else {
        ("–".to_string(), "–".to_string())
    };
    let _ = write!(
        md,
        "| {label} | {player} | {} | {} | {:.0} | {net_speed} | {outside_net} | {}-{}-{} |",
        s.games, s.positions, s.games_per_hour, s.red_wins, s.black_wins, s.draws
    );
    let mut other = s.games;
    for (keys, _) in TERMINATION_COLUMNS {
        let n: u64 = keys.iter().map(|key| s.terminations.get(*key).copied().unwrap_or(0)).sum();
        other = other.saturating_sub(n);
        let _ = write!(md, " {n} |");
    }
    let _ = writeln!(md, " {other} |");
}

fn describe_threshold(threshold: &GateThreshold) -> String {
    match *threshold {
        GateThreshold::Score { min } => format!("a score of at least {:.1}%", 100.0 * min),
        GateThreshold::EloLowerBound { min } => {
            format!("the 95% Elo interval's lower end at {min:+.0} or above")
        }
        GateThreshold::Los { min } => format!("a likelihood of superiority of at least {:.1}%", 100.0 * min),
        GateThreshold::Sprt { elo0, elo1, alpha, beta, undecided } => {
            let undecided = match undecided {
                Undecided::Reject => "",
                Undecided::LlrSign => ", or still undecided after the last pair with its LLR above 0",
            };
            format!(
                "an SPRT of {elo0:+.0} against {elo1:+.0} Elo (α {alpha}, β {beta}) that accepted H1 over the pairs played{undecided}"
            )
        }
    }
}

/// The validation section: each candidate's value and policy scores next to the baselines.
fn validation_markdown(state: &LoopState) -> String {
    let mut md = String::from("\n## Validation\n\n");
    match &state.validation_set {
        Some(v) => {
            let _ = writeln!(
                md,
                "The fixed set (`{}`): {} games, {} positions, played once by the bootstrap's player; \
                 `recent` is each generation's held-back games. The baselines are fitted on the set they \
                 score: always the draw rate, and the sign of the material balance. Value figures are \
                 against the game results (validation.csv has every row).\n",
                v.dir, v.games, v.positions
            );
        }
        None => {
            md += "No fixed validation set (`[validation] games = 0`); `recent` is each generation's held-back games.\n\n"
        }
    }
    md += "| gen | set | samples | value loss | draw-rate loss | material loss | value acc. | draw-rate acc. | material acc. | policy loss | policy top-1 |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
    for g in &state.generations {
        let Some(t) = &g.train else { continue };
        for v in &t.validation {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.1}% | {:.1}% | {:.1}% | {:.3} | {:.1}% |",
                generation_name(g.generation),
                v.set,
                v.samples,
                v.value_loss,
                v.draw_rate.value_loss,
                v.material.value_loss,
                100.0 * v.value_accuracy,
                100.0 * v.draw_rate.value_accuracy,
                100.0 * v.material.value_accuracy,
                v.policy_loss,
                100.0 * v.policy_top1
            );
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loss_chart_has_a_png_beside_it_with_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let curve = |name, color, scale: f64| Curve {
            name,
            color,
            points: (1..50).map(|i| (f64::from(i) * 10.0, scale / f64::from(i) + 0.5)).collect(),
        };
        let curves = [curve("policy loss", BLUE, 4.0), curve("value loss", RED, 1.0)];
        let svg_path = dir.path().join("loss.svg");
        loss_plot(&curves, &svg_path).unwrap();
        let png = std::fs::read(dir.path().join("loss.png")).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not PNG");
        let drawn = xq_plot::png_stats(&png).unwrap();
        assert_eq!((drawn.width, drawn.height), (1600, 960), "twice the SVG's 800 × 480");
        // The same chart without its labels: the text accounts for clearly more ink.
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        let bare = xq_plot::png_stats(&xq_plot::svg_to_png(&xq_plot::without_text(&svg)).unwrap()).unwrap();
        assert!(bare.dark_pixels > 0);
        assert!(drawn.dark_pixels > bare.dark_pixels + 2000, "no text in the PNG: {drawn:?} vs {bare:?}");

        // A PNG that cannot be written is the loop's I/O error, not a panic.
        std::fs::create_dir(dir.path().join("blocked.png")).unwrap();
        match loss_plot(&curves, &dir.path().join("blocked.svg")) {
            Err(LoopError::Io { path, .. }) => assert!(path.ends_with("blocked.png"), "{path:?}"),
            other => panic!("expected an I/O error on blocked.png, got {other:?}"),
        }
    }
}
