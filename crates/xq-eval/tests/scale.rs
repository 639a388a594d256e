//! The strength scale end to end on cheap anchors: a calibration plays its meetings, orders the
//! anchors as their strength is known to be, resumes from its journals without new games, and
//! a rating places a player between the anchors it beats and the ones that beat it.

use xq_eval::rating::{FitOptions, PairwiseResults, fit_ratings};
use xq_eval::scale::{PlayOptions, RateConfig, ScaleConfig, ScaleFile, calibrate, rate};

const SCALE: &str = r#"
name = "test-scale"
seed = 5
pin = "greedy"
pin_elo = 1000
pairs = 3
neighbours = 2
openings = 6

[adjudication]
max_plies = 160

[[anchors]]
kind = "random"
name = "random"

[[anchors]]
kind = "greedy"
name = "greedy"

[[anchors]]
kind = "alphabeta"
name = "alphabeta-d2"
depth = 2
"#;

#[test]
fn a_calibration_orders_its_anchors_resumes_and_places_a_player() {
    let dir = tempfile::tempdir().unwrap();
    let config = ScaleConfig::from_toml(SCALE).unwrap();
    let options = PlayOptions { concurrency: Some(2), max_new_games: None };
    let first = calibrate(&config, dir.path(), &options, "xq eval calibrate", "test", &mut |_| {}).unwrap();
    assert!(first.complete);
    assert_eq!(first.played, 3 * 6, "three meetings of three pairs");
    let scale = &first.scale;
    let elo = |name: &str| scale.anchor(name).unwrap().elo;
    assert_eq!(elo("greedy"), 1000.0);
    assert!(elo("random") < elo("greedy") && elo("greedy") < elo("alphabeta-d2"), "{}", scale.to_markdown());
    assert_eq!(scale.anchor("greedy").unwrap().half_width, 0.0);
    assert!(scale.anchors.iter().all(|a| a.wdl.games() == 12), "each anchor meets both others");
    assert_eq!(scale.meetings.len(), 3);

    // The fit is the maximum-likelihood one over the meetings as saved.
    let mut games = PairwiseResults::new();
    for m in &scale.meetings {
        games.add(&m.a, &m.b, m.wdl).unwrap();
    }
    let refit = fit_ratings(&games, &FitOptions::pinned("greedy", 1000.0)).unwrap();
    assert!((refit.get("random").unwrap().elo - elo("random")).abs() < 1e-9);

    // A rerun reads every game back from the journals.
    let again = calibrate(&config, dir.path(), &options, "xq eval calibrate", "test", &mut |_| {}).unwrap();
    assert_eq!(again.played, 0);
    assert_eq!(again.scale, first.scale);

    let path = dir.path().join("anchors.json");
    scale.save(&path).unwrap();
    let scale = ScaleFile::load(&path).unwrap();

    // Alpha-beta at depth 1 sits above random; a short rating stops at its game limit.
    let mut rating = RateConfig::from_toml(
        "pairs_per_step = 2\nmax_games = 8\n[player]\nkind = \"alphabeta\"\nname = \"ab-d1\"\ndepth = 1\n",
    )
    .unwrap();
    let out = dir.path().join("rate");
    let placed = rate(&scale, &rating, &out, &options, &mut |_| {}).unwrap();
    assert!(placed.finished && !placed.reached_target);
    assert_eq!(placed.steps.len(), 2);
    assert_eq!(placed.steps[0].anchor, "greedy", "the first step plays the median anchor");
    let placement = placed.placement.as_ref().unwrap();
    assert_eq!(placement.wdl.games(), 8);
    assert!(placement.elo > elo("random"), "{}", placed.to_markdown());
    assert!(placement.scale_half_width >= placement.half_width);

    // Resumed with a larger limit it keeps its first steps and plays on.
    rating.max_games = 12;
    let resumed = rate(&scale, &rating, &out, &options, &mut |_| {}).unwrap();
    assert_eq!(resumed.steps[..2], placed.steps[..]);
    assert_eq!(resumed.placement.unwrap().wdl.games(), 12);

    // A player named like an anchor is refused.
    let clash = RateConfig::from_toml("[player]\nkind = \"random\"\nname = \"greedy\"\n").unwrap();
    assert!(rate(&scale, &clash, &out, &options, &mut |_| {}).unwrap_err().to_string().contains("anchor"));
}
