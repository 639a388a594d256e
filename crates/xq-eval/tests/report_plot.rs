//! Reports (JSON and Markdown) and SVG charts from a finished event.

use xq_core::GameResult;
use xq_eval::events::{Event, EventConfig, Format};
use xq_eval::plot::{PlotError, RatedPoint, elo_progress_svg, rating_ladder_svg};
use xq_eval::report::EventReport;
use xq_eval::stats::SprtConfig;

fn finished_round_robin() -> Event {
    let config = EventConfig {
        name: "ladder".into(),
        players: vec!["strong".into(), "middle".into(), "weak|pipe".into()],
        format: Format::RoundRobin { cycles: 2 },
        openings: 5,
        seed: 3,
    };
    let mut event = Event::new(config).unwrap();
    loop {
        let batch = event.next_games(100);
        if batch.is_empty() {
            break;
        }
        for g in batch {
            // The lower index wins as red and draws as black.
            let result = if g.red < g.black { GameResult::RedWins } else { GameResult::Draw };
            event.record(g.finish(result)).unwrap();
        }
    }
    event
}

#[test]
fn report_json_round_trips_and_markdown_has_the_table() {
    let event = finished_round_robin();
    let report = EventReport::from_event(&event);
    assert!(report.finished);
    assert_eq!(report.games, 12);
    assert_eq!(report.standings[0].name, "strong");
    assert_eq!(report.standings[0].standing.points, 6.0);
    assert_eq!(report.pairs.len(), 3);
    // strong vs middle: 2 pairs, each a win (as red) and a draw (as black): 1½ points.
    assert_eq!(report.pairs[0].pentanomial.counts, [0, 0, 0, 2, 0]);
    let json = serde_json::to_string_pretty(&report).unwrap();
    let back: EventReport = serde_json::from_str(&json).unwrap();
    // serde_json's default float parsing may differ in the last bit: compare with a tolerance.
    assert_eq!(back.standings, report.standings);
    assert_eq!(back.players.len(), report.players.len());
    for (b, r) in back.pairs.iter().zip(&report.pairs) {
        assert_eq!((&b.a, &b.b, b.games, b.pentanomial), (&r.a, &r.b, r.games, r.pentanomial));
        let (eb, er) = (b.pentanomial_estimate.unwrap(), r.pentanomial_estimate.unwrap());
        assert!((eb.elo.value - er.elo.value).abs() < 1e-9 && (eb.los - er.los).abs() < 1e-12);
    }
    let md = report.to_markdown();
    assert!(md.contains("| 1 | strong | 6 |"), "{md}");
    assert!(md.contains("weak\\|pipe"), "{md}");
    assert!(md.contains("strong vs middle"), "{md}");
}

#[test]
fn sprt_report_has_state() {
    let config = EventConfig {
        name: "sprt".into(),
        players: vec!["new".into(), "base".into()],
        format: Format::Sprt { sprt: SprtConfig::normalized(0.0, 5.0, 0.05, 0.05), max_pairs: 4 },
        openings: 0,
        seed: 0,
    };
    let mut event = Event::new(config).unwrap();
    for (i, g) in event.next_games(8).into_iter().enumerate() {
        let r = if i % 3 == 0 { GameResult::RedWins } else { GameResult::Draw };
        event.record(g.finish(r)).unwrap();
    }
    let report = EventReport::from_event(&event);
    assert!(report.sprt.is_some());
    assert!(report.to_markdown().contains("SPRT: LLR"));
}

fn assert_svg(path: &std::path::Path, must_contain: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.starts_with("<svg") || text.starts_with("<?xml"),
        "not SVG: {}",
        &text[..text.len().min(80)]
    );
    assert!(text.trim_end().ends_with("</svg>"));
    assert!(text.contains(must_contain), "missing {must_contain:?}");
}

/// The PNG beside `svg_path`: a PNG at twice the SVG's `size` in which the text was drawn
/// (clearly more ink than the same chart rendered without its `<text>` elements).
fn assert_png_beside(svg_path: &std::path::Path, size: (u32, u32)) {
    let png = std::fs::read(svg_path.with_extension("png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not PNG");
    let drawn = xq_plot::png_stats(&png).unwrap();
    assert_eq!((drawn.width, drawn.height), (2 * size.0, 2 * size.1));
    let svg = std::fs::read_to_string(svg_path).unwrap();
    let bare = xq_plot::png_stats(&xq_plot::svg_to_png(&xq_plot::without_text(&svg)).unwrap()).unwrap();
    assert!(bare.dark_pixels > 0, "the chart itself is drawn");
    assert!(drawn.dark_pixels > bare.dark_pixels + 2000, "no text in the PNG: {drawn:?} vs {bare:?}");
}

#[test]
fn charts_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let report = EventReport::from_event(&finished_round_robin());
    let ladder = report.ladder();
    assert_eq!(ladder.len(), 3);
    let path = dir.path().join("ladder.svg");
    rating_ladder_svg(&ladder, "Rating ladder", &path).unwrap();
    assert_svg(&path, "Rating ladder");
    assert_png_beside(&path, (640, 480));

    let progress: Vec<RatedPoint> = (0..6)
        .map(|i| RatedPoint {
            label: format!("gen-{i}"),
            x: 1000.0 * i as f64,
            elo: 40.0 * i as f64,
            lower: 40.0 * i as f64 - 25.0,
            upper: if i == 5 { f64::INFINITY } else { 40.0 * i as f64 + 25.0 },
        })
        .collect();
    let path = dir.path().join("progress.svg");
    elo_progress_svg(&progress, "Elo over checkpoints", "checkpoint (step)", &path).unwrap();
    assert_svg(&path, "Elo over checkpoints");
    assert_png_beside(&path, (800, 480));

    assert!(elo_progress_svg(&[], "x", "step", &path).is_err());
    assert!(rating_ladder_svg(&ladder, "x", &dir.path().join("missing/dir/x.svg")).is_err());
    // A PNG that cannot be written (a directory in its place) is the chart's error, not a panic.
    std::fs::create_dir(dir.path().join("blocked.png")).unwrap();
    match rating_ladder_svg(&ladder, "x", &dir.path().join("blocked.svg")) {
        Err(PlotError::Draw { path, .. }) => assert!(path.ends_with("blocked.png"), "{path}"),
        other => panic!("expected a draw error for the PNG, got {other:?}"),
    }
}

fn point(label: &str, x: f64, elo: f64, lower: f64, upper: f64) -> RatedPoint {
    RatedPoint { label: label.into(), x, elo, lower, upper }
}

#[test]
fn infinite_bounds_are_drawn_as_arrows_not_caps() {
    // Before: an infinite bound was clamped and capped like a measured one.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ladder.svg");
    let finite = [point("a", 0.0, 10.0, -20.0, 40.0), point("b", 0.0, -10.0, -40.0, 20.0)];
    rating_ladder_svg(&finite, "finite", &path).unwrap();
    assert!(!std::fs::read_to_string(&path).unwrap().contains("<polygon"), "no arrowheads");
    let unbounded = [point("a", 0.0, f64::INFINITY, 100.0, f64::INFINITY), point("b", 0.0, 0.0, -50.0, 50.0)];
    rating_ladder_svg(&unbounded, "unbounded", &path).unwrap();
    let svg = std::fs::read_to_string(&path).unwrap();
    assert_eq!(svg.matches("<polygon").count(), 1, "one arrowhead for the one open end");
}

#[test]
fn generations_get_whole_number_ticks() {
    // Before: ticks at 0.5, 1.5, … for generations 0..3.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("elo.svg");
    let points: Vec<RatedPoint> =
        (0..4).map(|g| point(&format!("g{g}"), f64::from(g), 10.0 * f64::from(g), -30.0, 50.0)).collect();
    elo_progress_svg(&points, "Elo", "generation", &path).unwrap();
    let svg = std::fs::read_to_string(&path).unwrap();
    // plotters writes each label on a line of its own.
    let labels: Vec<&str> = svg.lines().map(str::trim).filter(|l| !l.starts_with('<')).collect();
    for g in 0..4 {
        assert!(labels.contains(&g.to_string().as_str()), "tick {g}: {labels:?}");
    }
    assert!(!labels.iter().any(|l| l.ends_with(".5")), "no fractional generation: {labels:?}");
}
