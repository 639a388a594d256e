//! Helpers the workspace's tests share, so each exists once: seeded random games on one
//! generator ([`SplitMix64`]), sample rows ([`sample_at`]), the tiny SPRT event the runner and
//! CLI tests play ([`sprt_greedy_vs_random`]) and the workspace's paths.
//!
//! A dev-dependency only (`publish = false`): nothing here is part of xq's interface.
//!
//! ```
//! let positions = xq_testkit::random_positions(2, 7, 20);
//! assert!(positions.len() > 2 && positions.len() <= 42);
//! assert_eq!(positions, xq_testkit::random_positions(2, 7, 20), "seeded");
//! ```

use std::path::{Path, PathBuf};

use xq_core::{Game, GameRules, HistoryFeatures, Move, Position};
use xq_data::Sample;

pub use xq_core::seed::SplitMix64;

/// The workspace's root directory (where `Cargo.toml`, `configs/` and `data/` are).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file of the workspace, by its path from the root (`"configs/loop-tiny.toml"`).
pub fn workspace_file(relative: &str) -> PathBuf {
    workspace_root().join(relative)
}

/// The Python the interop tests run: `$XQ_PYTHON`, else `<workspace>/.venv/bin/python` (which
/// `bash scripts/setup-python.sh` creates). `None` when there is neither: the test then skips,
/// saying why on stderr.
///
/// # Panics
/// When there is no Python and `XQ_REQUIRE_PYTHON` is set, as `scripts/test.sh` sets it: there
/// an interop test fails rather than skips.
pub fn test_python() -> Option<PathBuf> {
    if let Some(python) = std::env::var_os("XQ_PYTHON") {
        return Some(PathBuf::from(python));
    }
    let venv = workspace_file(".venv/bin/python");
    if venv.exists() {
        return Some(venv);
    }
    let why = format!(
        "XQ_PYTHON is unset and {} does not exist: run `bash scripts/setup-python.sh` (the README's \
         test command `bash scripts/test.sh` does it), or set XQ_PYTHON",
        venv.display()
    );
    assert!(std::env::var_os("XQ_REQUIRE_PYTHON").is_none(), "{why}");
    eprintln!("skipped: {why}");
    None
}

/// A random legal move of `position`, or `None` when it has none. With `prefer_captures`
/// two draws in three take a capture when there is one, so games reach sparse boards and
/// endgames.
pub fn random_move(position: &Position, rng: &mut SplitMix64, prefer_captures: bool) -> Option<Move> {
    let legal = position.legal_moves();
    if legal.is_empty() {
        return None;
    }
    if prefer_captures {
        let captures: Vec<Move> =
            legal.iter().copied().filter(|m| position.piece_at(m.to()).is_some()).collect();
        if !captures.is_empty() && rng.below(3) > 0 {
            return Some(captures[rng.below(captures.len())]);
        }
    }
    Some(legal[rng.below(legal.len())])
}

/// Every position of `games` random games from the start position, each at most `max_plies`
/// plies (random legal moves until there are none). Game `g` is seeded `seed + g`; odd games
/// prefer captures ([`random_move`]).
pub fn random_positions(games: u64, seed: u64, max_plies: usize) -> Vec<Position> {
    let mut out = Vec::new();
    for game in 0..games {
        let mut rng = SplitMix64::new(seed.wrapping_add(game));
        let mut position = Position::startpos();
        out.push(position);
        for _ in 0..max_plies {
            let Some(m) = random_move(&position, &mut rng, game % 2 == 1) else { break };
            position = position.after(m);
            out.push(position);
        }
    }
    out
}

/// `game` continued by random legal moves until the rules end it or it has `max_plies` plies.
pub fn play_randomly(game: &mut Game, seed: u64, max_plies: usize) {
    let mut rng = SplitMix64::new(seed);
    while game.ply() < max_plies && game.outcome().is_none() {
        let Some(m) = random_move(game.position(), &mut rng, false) else { break };
        game.play_unchecked(m);
    }
}

/// Every position, with the history features the network is given, of `games` random games
/// played under the default rules, each at most `max_plies` plies, all drawn from one
/// generator seeded `seed`.
pub fn game_positions(seed: u64, games: usize, max_plies: usize) -> Vec<(Position, HistoryFeatures)> {
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut game = Game::new(Position::startpos(), GameRules::default());
        for _ in 0..max_plies {
            out.push((*game.position(), game.history_features()));
            if game.outcome().is_some() {
                break;
            }
            let Some(m) = random_move(game.position(), &mut rng, false) else { break };
            game.play_unchecked(m);
        }
    }
    out
}

/// A sample of `game`'s current position in which `played` is played: the policy all on it,
/// a drawn result, and the history columns set from `game` (as self-play sets them).
pub fn sample_at(game: &Game, played: Move, game_id: u64) -> Sample {
    Sample {
        policy: vec![(played, 1.0)],
        root_wdl: [0.3, 0.4, 0.3],
        root_visits: 32,
        wdl_target: [0.0, 1.0, 0.0],
        model_id: "synthetic".into(),
        config_hash: "test".into(),
        ..Sample::unlabelled(game, game_id, 0, played)
    }
}

/// An SPRT event config (xq eval TOML) of the greedy player against the random one: quick to
/// play and decided within a few dozen pairs, for the runner's and the CLI's tests.
pub fn sprt_greedy_vs_random(name: &str, seed: u64, max_pairs: u32, elo1: u32, max_plies: u32) -> String {
    format!(
        r#"
name = "{name}"
seed = {seed}
concurrency = 2
[format]
kind = "sprt"
max_pairs = {max_pairs}
sprt = {{ elo0 = 0, elo1 = {elo1}, alpha = 0.05, beta = 0.05, model = "logistic", method = "exact" }}
[adjudication]
max_plies = {max_plies}
[[players]]
kind = "greedy"
name = "greedy"
[[players]]
kind = "random"
name = "random"
"#
    )
}

/// Writes the event config `config` to `dir/<name>.toml` and runs
/// `xq eval <format> --config dir/<name>.toml --out dir/<name> --quiet` with the binary at `xq`,
/// from the workspace root (where the configs' relative paths point). Returns the run's output
/// and its output directory.
pub fn run_xq_eval(
    xq: &str,
    dir: &Path,
    name: &str,
    format: &str,
    config: &str,
) -> (std::process::Output, PathBuf) {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, config).expect("write the event config");
    let out = dir.join(name);
    let run = std::process::Command::new(xq)
        .current_dir(workspace_root())
        .arg("eval")
        .arg(format)
        .arg("--config")
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .output()
        .expect("run the xq binary");
    (run, out)
}
