//! `xq selfplay`: generate a labelled data set by MCTS self-play.

use anyhow::{Context, Result, bail};
use clap::Args;
use std::path::{Path, PathBuf};
use xq_mcts::{Evaluator, MaterialEvaluator, UniformEvaluator};
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
    let (mut evaluator, model_id): (Box<dyn Evaluator>, String) = match config.selfplay.evaluator {
        BuiltinEvaluator::Uniform => (Box::new(UniformEvaluator), "uniform".into()),
        BuiltinEvaluator::Material => (Box::new(MaterialEvaluator::default()), "material".into()),
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

fn default_out(config: &Path) -> PathBuf {
    let stem = config.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
    PathBuf::from("data/runs").join(format!("selfplay-{stem}"))
}

/// Loads an opening book (`data/openings/openings.json` format) as playable openings.
pub fn load_openings(path: &str) -> Result<Vec<xq_play::Opening>> {
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let book = xq_eval::openings::Book::load(Path::new(path))?;
    let mut openings = Vec::new();
    for o in &book.openings {
        let moves: Vec<&str> = o.moves.iter().map(String::as_str).collect();
        openings.push(
            xq_play::Opening::new(&o.name_zh, xq_core::START_FEN, &moves)
                .with_context(|| format!("opening book {path}"))?,
        );
    }
    if openings.is_empty() {
        bail!("opening book {path} has no openings");
    }
    Ok(openings)
}
