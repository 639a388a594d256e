//! `metrics.csv` (one row every `log_every` steps) and `metrics.svg` (the loss curves, with
//! `metrics.png` beside it).

use plotters::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;

use crate::csv_log::{self, CsvRow};
use crate::error::{TrainError, io_err};

/// The CSV header.
pub const CSV_HEADER: &str =
    "step,lr,policy_loss,value_loss,total_loss,policy_top1,value_accuracy,samples_per_sec,elapsed_s";

/// One row of `metrics.csv`: means over the steps since the previous row.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricsRow {
    /// Steps taken when the row was written.
    pub step: u64,
    /// Learning rate of the last step.
    pub lr: f64,
    /// Mean policy cross-entropy.
    pub policy_loss: f32,
    /// Mean WDL cross-entropy.
    pub value_loss: f32,
    /// Mean minimised loss.
    pub total_loss: f32,
    /// Policy top-1 agreement with the target's argmax.
    pub policy_top1: f32,
    /// WDL argmax agreement with the target's.
    pub value_accuracy: f32,
    /// Training throughput over the interval.
    pub samples_per_sec: f64,
    /// Wall-clock seconds of training in the run so far (resumptions add up).
    pub elapsed_s: f64,
}

impl CsvRow for MetricsRow {
    const HEADER: &'static str = CSV_HEADER;

    fn step(&self) -> u64 {
        self.step
    }

    fn csv(&self) -> String {
        format!(
            "{},{:e},{:.6},{:.6},{:.6},{:.5},{:.5},{:.1},{:.2}",
            self.step,
            self.lr,
            self.policy_loss,
            self.value_loss,
            self.total_loss,
            self.policy_top1,
            self.value_accuracy,
            self.samples_per_sec,
            self.elapsed_s
        )
    }

    fn parse(line: &str) -> Option<MetricsRow> {
        let f: Vec<&str> = line.trim().split(',').collect();
        if f.len() != 9 {
            return None;
        }
        Some(MetricsRow {
            step: f[0].parse().ok()?,
            lr: f[1].parse().ok()?,
            policy_loss: f[2].parse().ok()?,
            value_loss: f[3].parse().ok()?,
            total_loss: f[4].parse().ok()?,
            policy_top1: f[5].parse().ok()?,
            value_accuracy: f[6].parse().ok()?,
            samples_per_sec: f[7].parse().ok()?,
            elapsed_s: f[8].parse().ok()?,
        })
    }
}

/// Sums of step metrics since the last row (saved with the resume state, so a resumed run's
/// next row averages the same steps as an uninterrupted run's).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Accumulator {
    steps: u64,
    policy_loss: f64,
    value_loss: f64,
    total_loss: f64,
    policy_hits: f64,
    policy_counted: usize,
    value_hits: f64,
    value_counted: usize,
    samples: usize,
    seconds: f64,
}

impl Accumulator {
    /// Adds one step of `samples` samples that took `seconds`.
    pub fn add(&mut self, m: &xq_nn::StepMetrics, samples: usize, seconds: f64) {
        self.steps += 1;
        self.policy_loss += f64::from(m.losses.policy);
        self.value_loss += f64::from(m.losses.value);
        self.total_loss += f64::from(m.losses.total);
        self.policy_hits += f64::from(m.policy_top1) * m.policy_samples as f64;
        self.policy_counted += m.policy_samples;
        self.value_hits += f64::from(m.value_accuracy) * m.value_samples as f64;
        self.value_counted += m.value_samples;
        self.samples += samples;
        self.seconds += seconds;
    }

    /// Whether no step was added.
    pub fn is_empty(&self) -> bool {
        self.steps == 0
    }

    /// The row of the steps added, ending at `step`.
    pub fn row(&self, step: u64, lr: f64, elapsed_s: f64) -> MetricsRow {
        let n = self.steps.max(1) as f64;
        let share =
            |hits: f64, counted: usize| if counted == 0 { 0.0 } else { (hits / counted as f64) as f32 };
        MetricsRow {
            step,
            lr,
            policy_loss: (self.policy_loss / n) as f32,
            value_loss: (self.value_loss / n) as f32,
            total_loss: (self.total_loss / n) as f32,
            policy_top1: share(self.policy_hits, self.policy_counted),
            value_accuracy: share(self.value_hits, self.value_counted),
            samples_per_sec: if self.seconds > 0.0 { self.samples as f64 / self.seconds } else { 0.0 },
            elapsed_s,
        }
    }
}

/// Reads the rows of a metrics file (a missing file has none; malformed lines are dropped).
///
/// # Errors
/// [`TrainError::Io`] when the file exists but cannot be read.
pub fn read_rows(path: &Path) -> Result<Vec<MetricsRow>, TrainError> {
    csv_log::read_rows(path)
}

/// The policy loss's colour in every loss chart (`metrics.svg` here, the loop's `loss.svg`).
pub const POLICY_COLOR: plotters::style::RGBColor = plotters::style::BLUE;

/// The value loss's colour in every loss chart.
pub const VALUE_COLOR: plotters::style::RGBColor = plotters::style::RED;

/// Draws the policy, value and total loss against the step (SVG, no system fonts needed) into
/// `path`, and its PNG with the same stem beside it, each through a temporary file and a rename.
pub fn plot_losses(rows: &[MetricsRow], title: &str, path: &Path) -> Result<(), TrainError> {
    if rows.is_empty() {
        return Ok(());
    }
    let svg = draw(rows, title).map_err(|message| TrainError::Plot { path: path.to_path_buf(), message })?;
    xq_files::write_atomic(path, svg.as_bytes()).map_err(io_err(path))?;
    match xq_plot::write_png_beside(path, &svg) {
        Ok(_) => Ok(()),
        Err(xq_plot::PngError::Write { path, source }) => Err(TrainError::Io { path, source }),
        Err(e) => Err(TrainError::Plot { path: xq_plot::png_path(path), message: e.to_string() }),
    }
}

/// A plotted curve: its legend, colour and value.
type Curve = (&'static str, RGBColor, fn(&MetricsRow) -> f32);

/// The plot as an SVG document.
fn draw(rows: &[MetricsRow], title: &str) -> Result<String, String> {
    let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
    let x0 = rows.first().map_or(0, |r| r.step) as f64;
    let x1 = (rows.last().map_or(1, |r| r.step) as f64).max(x0 + 1.0);
    let finite = |v: f32| v.is_finite().then_some(f64::from(v));
    let values: Vec<f64> =
        rows.iter().flat_map(|r| [r.policy_loss, r.value_loss, r.total_loss]).filter_map(finite).collect();
    let hi = values.iter().copied().fold(0.0, f64::max).max(1e-3) * 1.05;
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (800, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, 0.0..hi)
        .map_err(|e| err(&e))?;
    chart.configure_mesh().x_desc("step").y_desc("loss (cross-entropy)").draw().map_err(|e| err(&e))?;
    let series: [Curve; 3] = [
        ("total", BLACK, |r| r.total_loss),
        ("policy", POLICY_COLOR, |r| r.policy_loss),
        ("value", VALUE_COLOR, |r| r.value_loss),
    ];
    for (name, color, value) in series {
        chart
            .draw_series(LineSeries::new(
                rows.iter().filter_map(|r| finite(value(r)).map(|v| (r.step as f64, v))),
                color.stroke_width(2),
            ))
            .map_err(|e| err(&e))?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
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
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn rows() -> Vec<MetricsRow> {
        (1..=20)
            .map(|i| {
                let decay = 1.0 / i as f32;
                MetricsRow {
                    step: 10 * i,
                    lr: 1e-3,
                    policy_loss: 4.0 * decay + 1.0,
                    value_loss: decay + 0.5,
                    total_loss: 5.0 * decay + 1.5,
                    policy_top1: 0.1,
                    value_accuracy: 0.5,
                    samples_per_sec: 1000.0,
                    elapsed_s: i as f64,
                }
            })
            .collect()
    }

    #[test]
    fn the_loss_plot_has_a_png_beside_it_with_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let svg_path = dir.path().join("metrics.svg");
        plot_losses(&rows(), "run: losses", &svg_path).unwrap();
        let svg = fs::read_to_string(&svg_path).unwrap();
        assert!(svg.contains("run: losses"));
        let png = fs::read(dir.path().join("metrics.png")).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not PNG");
        let drawn = xq_plot::png_stats(&png).unwrap();
        assert_eq!((drawn.width, drawn.height), (1600, 960), "twice the SVG's 800 × 480");
        // The same chart without its labels: the text accounts for clearly more ink.
        let bare = xq_plot::png_stats(&xq_plot::svg_to_png(&xq_plot::without_text(&svg)).unwrap()).unwrap();
        assert!(bare.dark_pixels > 0);
        assert!(drawn.dark_pixels > bare.dark_pixels + 2000, "no text in the PNG: {drawn:?} vs {bare:?}");
    }

    #[test]
    fn an_unwritable_png_is_an_io_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("metrics.png")).unwrap();
        match plot_losses(&rows(), "losses", &dir.path().join("metrics.svg")) {
            Err(TrainError::Io { path, .. }) => assert!(path.ends_with("metrics.png"), "{path:?}"),
            other => panic!("expected an I/O error on metrics.png, got {other:?}"),
        }
    }
}
