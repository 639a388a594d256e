//! `xq selfplay`: generate a labelled data set by MCTS self-play.

use anyhow::{Result, bail};
use clap::Args;
use std::path::{Path, PathBuf};
use xq_mcts::Evaluator;
use xq_selfplay::{BuiltinEvaluator, SelfplayConfig, SelfplayRun, run_selfplay};

#[derive(Args)]
pub struct SelfplayArgs {
    /// The self-play configuration (TOML).
    #[arg(long)]
    config: PathBuf,
    /// Override the number of games in the config.
    #[arg(long)]
    games: Option<u64>,
    /// Output directory for the Parquet shards (default `data/runs/selfplay-<config name>`).
    /// Rerunning with the same directory continues where it stopped.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Search with this checkpoint instead of the config's built-in evaluator: a checkpoint
    /// stem, its .json or .bpk file, or a directory (its newest checkpoint).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Where the model runs: cpu, or gpu in builds with `--features xq-nn/gpu`.
    #[arg(long, default_value = "cpu", value_parser = crate::parse_device)]
    device: xq_nn::DeviceSetting,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    json: bool,
}

pub fn selfplay(args: SelfplayArgs) -> Result<()> {
    let mut config = SelfplayConfig::load(&args.config)?;
    if let Some(games) = args.games {
        config.selfplay.games = games;
    }
    let out = args.out.unwrap_or_else(|| default_out(&args.config));
    let openings = load_openings(&config.selfplay.opening_book)?;
    let (mut evaluator, model_id) = match &args.model {
        Some(path) => {
            let rules = config.rules.game_rules().map_err(anyhow::Error::msg)?;
            load_model(path, args.device, rules.move_limit_plies)?
        }
        None => builtin_evaluator(config.selfplay.evaluator),
    };
    let run =
        SelfplayRun { out_dir: out.clone(), model_id, openings, progress: true, stop_after_shards: None };
    let summary = run_selfplay(&config, evaluator.as_mut(), &run)?;
    if args.json {
        println!("{}", serde_json::to_string(&summary)?);
    } else {
        eprint!("{summary}");
        eprintln!("  shards in {}", out.display());
    }
    Ok(())
}

/// A built-in evaluator and the model id data made with it records.
pub fn builtin_evaluator(evaluator: BuiltinEvaluator) -> (Box<dyn Evaluator>, String) {
    (evaluator.build(), evaluator.name().into())
}

/// Loads a checkpoint as the search's evaluator, with its model id.
pub fn load_model(
    path: &Path,
    device: xq_nn::DeviceSetting,
    move_limit_plies: u32,
) -> Result<(Box<dyn Evaluator>, String)> {
    let evaluator = xq_nn::NetEvaluator::from_checkpoint(path, device.device()?, 1 << 18, move_limit_plies)?;
    let id = evaluator.model_id().to_string();
    Ok((Box::new(evaluator), id))
}

fn default_out(config: &Path) -> PathBuf {
    let stem = config.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
    PathBuf::from("data/runs").join(format!("selfplay-{stem}"))
}

/// Loads an opening book (`data/openings/openings.json` format) as playable openings.
pub fn load_openings(path: &str) -> Result<Vec<xq_play::Opening>> {
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let openings = xq_eval::openings::Book::load(Path::new(path))?.playable()?;
    if openings.is_empty() {
        bail!("opening book {path} has no openings");
    }
    Ok(openings)
}
