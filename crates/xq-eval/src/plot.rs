//! Charts as SVG files (plotters' SVG backend, which needs no system fonts): a rating ladder
//! with error bars, and Elo over training checkpoints. Each also gets a PNG with the same stem
//! beside it ([`xq_plot`]), for viewers that do not open SVG.

use plotters::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;
use thiserror::Error;

/// Why a chart could not be drawn.
#[derive(Debug, Error)]
pub enum PlotError {
    /// Nothing to draw.
    #[error("nothing to plot")]
    Empty,
    /// The backend failed, the PNG could not be rendered, or a file could not be written.
    #[error("cannot draw {path}: {message}")]
    Draw {
        /// The output path.
        path: String,
        /// The backend's message.
        message: String,
    },
}

/// A rating with its 95% interval, for one player or one checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatedPoint {
    /// Player name or checkpoint label.
    pub label: String,
    /// Position on the x axis (checkpoint step; ignored by the ladder).
    pub x: f64,
    /// Elo.
    #[serde(with = "crate::stats::json_f64")]
    pub elo: f64,
    /// Lower end of the 95% interval.
    #[serde(with = "crate::stats::json_f64")]
    pub lower: f64,
    /// Upper end of the 95% interval.
    #[serde(with = "crate::stats::json_f64")]
    pub upper: f64,
}

/// Infinite ratings (a 100% or 0% score) are drawn at this distance beyond the finite range.
const CLAMP_MARGIN: f64 = 100.0;

/// Replaces infinities by the finite range ± a margin so every point can be drawn.
fn clamp(points: &[RatedPoint]) -> Vec<RatedPoint> {
    let finite: Vec<f64> =
        points.iter().flat_map(|p| [p.elo, p.lower, p.upper]).filter(|v| v.is_finite()).collect();
    let lo = finite.iter().copied().fold(0.0, f64::min) - CLAMP_MARGIN;
    let hi = finite.iter().copied().fold(0.0, f64::max) + CLAMP_MARGIN;
    let c = |v: f64| if v.is_nan() { 0.0 } else { v.clamp(lo, hi) };
    points
        .iter()
        .map(|p| RatedPoint { elo: c(p.elo), lower: c(p.lower), upper: c(p.upper), ..p.clone() })
        .collect()
}

/// Draws one point's interval in data coordinates: a bar from lower to upper, a cap at each
/// finite end, and at an end that is infinite (a 0% or 100% score, or a single game pair) an
/// arrowhead at the edge of the chart instead of a cap, so an unbounded interval never reads as
/// a measured one. `raw` is the point before clamping, `drawn` after.
fn draw_interval<DB: DrawingBackend>(
    chart: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    x: f64,
    raw: &RatedPoint,
    drawn: &RatedPoint,
    half_width: f64,
    color: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = color.stroke_width(1);
    chart.draw_series(std::iter::once(PathElement::new(vec![(x, drawn.lower), (x, drawn.upper)], style)))?;
    let (y0, y1) = (chart.y_range().start, chart.y_range().end);
    let arrow = (y1 - y0) * 0.03;
    for (end, raw_end, outwards) in [(drawn.lower, raw.lower, -1.0), (drawn.upper, raw.upper, 1.0)] {
        if raw_end.is_finite() {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x - half_width, end), (x + half_width, end)],
                style,
            )))?;
        } else {
            let tip = end + outwards * arrow;
            chart.draw_series(std::iter::once(Polygon::new(
                vec![(x - half_width, end), (x + half_width, end), (x, tip)],
                color.filled(),
            )))?;
        }
    }
    let marker: ShapeStyle = if raw.elo.is_finite() { color.filled() } else { color.stroke_width(1) };
    chart.draw_series(std::iter::once(Circle::new((x, drawn.elo), 4, marker)))?;
    Ok(())
}

fn y_range(points: &[RatedPoint]) -> (f64, f64) {
    let lo = points.iter().map(|p| p.lower.min(p.elo)).fold(f64::INFINITY, f64::min);
    let hi = points.iter().map(|p| p.upper.max(p.elo)).fold(f64::NEG_INFINITY, f64::max);
    let pad = ((hi - lo) * 0.1).max(10.0);
    (lo - pad, hi + pad)
}

fn draw_error<E: std::fmt::Debug>(path: &Path) -> impl Fn(E) -> PlotError + '_ {
    move |e| PlotError::Draw { path: path.display().to_string(), message: format!("{e:?}") }
}

/// Writes the PNG copy of the chart `svg` just written to `path` (`<stem>.png` beside it).
fn write_png(path: &Path, svg: &str) -> Result<(), PlotError> {
    xq_plot::write_png_beside(path, svg).map(drop).map_err(|e| {
        let message = match e {
            // `Draw` names the PNG's path already; the message need not repeat it.
            xq_plot::PngError::Write { source, .. } => source.to_string(),
            other => other.to_string(),
        };
        PlotError::Draw { path: xq_plot::png_path(path).display().to_string(), message }
    })
}

/// Draws players from strongest to weakest (left to right) with their 95% intervals, into the
/// SVG `path` and its PNG beside it.
pub fn rating_ladder_svg(points: &[RatedPoint], title: &str, path: &Path) -> Result<(), PlotError> {
    if points.is_empty() {
        return Err(PlotError::Empty);
    }
    let mut raw = points.to_vec();
    raw.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    let sorted = clamp(&raw);
    let (y0, y1) = y_range(&sorted);
    let n = sorted.len();
    let width = (160 + 90 * n as u32).max(640);
    let err = draw_error(path);
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (width, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(&err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), y0..y1)
        .map_err(&err)?;
    let labels: Vec<String> = sorted.iter().map(|p| p.label.clone()).collect();
    chart
        .configure_mesh()
        .x_labels(n)
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_desc("Elo (95% interval)")
        .draw()
        .map_err(&err)?;
    for (i, (raw, drawn)) in raw.iter().zip(&sorted).enumerate() {
        draw_interval(&mut chart, i as f64, raw, drawn, 0.08, BLUE).map_err(&err)?;
    }
    root.present().map_err(&err)?;
    drop(chart);
    drop(root);
    xq_files::write_atomic(path, svg.as_bytes()).map_err(draw_error(path))?;
    write_png(path, &svg)
}

/// Draws Elo against checkpoint (x, described by `x_label`) with 95% error bars, joined by a line,
/// into the SVG `path` and its PNG beside it.
pub fn elo_progress_svg(
    points: &[RatedPoint],
    title: &str,
    x_label: &str,
    path: &Path,
) -> Result<(), PlotError> {
    if points.is_empty() {
        return Err(PlotError::Empty);
    }
    let mut raw = points.to_vec();
    raw.sort_by(|a, b| a.x.total_cmp(&b.x));
    let sorted = clamp(&raw);
    let (y0, y1) = y_range(&sorted);
    let (x0, x1) = (sorted[0].x, sorted[sorted.len() - 1].x);
    let xpad = ((x1 - x0) * 0.05).max(0.5);
    let err = draw_error(path);
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (800, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(&err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0 - xpad)..(x1 + xpad), y0..y1)
        .map_err(&err)?;
    // Whole-number positions (generations) get whole-number ticks only.
    let integral = sorted.iter().all(|p| p.x.fract() == 0.0);
    let ticks = if integral { ((x1 - x0) as usize + 1).clamp(2, 20) } else { 10 };
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc("Elo (95% interval)")
        .x_labels(ticks)
        .x_label_formatter(&|x| {
            if !integral {
                format!("{x}")
            } else if (x - x.round()).abs() < 1e-9 {
                format!("{}", x.round() + 0.0)
            } else {
                String::new()
            }
        })
        .draw()
        .map_err(&err)?;
    chart.draw_series(LineSeries::new(sorted.iter().map(|p| (p.x, p.elo)), RED)).map_err(&err)?;
    let cap = ((x1 - x0 + 2.0 * xpad) * 0.008).max(0.02);
    for (raw, drawn) in raw.iter().zip(&sorted) {
        draw_interval(&mut chart, drawn.x, raw, drawn, cap, RED).map_err(&err)?;
    }
    root.present().map_err(&err)?;
    drop(chart);
    drop(root);
    xq_files::write_atomic(path, svg.as_bytes()).map_err(draw_error(path))?;
    write_png(path, &svg)
}
