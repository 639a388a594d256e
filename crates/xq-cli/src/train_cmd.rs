//! `xq train`: train the network on self-play samples.

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use xq_train::{TrainConfig, TrainRun, train};

#[derive(Args)]
pub struct TrainArgs {
    /// The training configuration (TOML, e.g. configs/train-tiny.toml).
    #[arg(long)]
    config: PathBuf,
    /// A directory of samples-*.parquet shards (repeat for several, oldest first); the window
    /// takes the newest samples across them.
    #[arg(long = "data", required = true)]
    data: Vec<PathBuf>,
    /// A directory of samples never trained on (repeat for several): each is scored at every
    /// checkpoint, with the draw-rate and material baselines, into validation.csv. The games
    /// that `[data] holdout_games` holds back from the newest --data directory are scored too.
    #[arg(long = "validation")]
    validation: Vec<PathBuf>,
    /// The run directory: checkpoints, resume state, metrics.csv, metrics.svg/.png, validation.csv.
    #[arg(long)]
    out: PathBuf,
    /// Continue the run in --out from its newest checkpoint (same config and data).
    #[arg(long)]
    resume: bool,
    /// Start the weights from this checkpoint (a stem, e.g. models/a/checkpoints/step-00000300).
    #[arg(long)]
    init: Option<PathBuf>,
    /// The config the samples were played under (e.g. configs/selfplay-tiny.toml): its
    /// `[rules]` are recorded in every checkpoint, so `xq engine` plays by them.
    #[arg(long)]
    rules_from: Option<PathBuf>,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    json: bool,
}

pub fn train_command(args: TrainArgs) -> Result<()> {
    let config = TrainConfig::load(&args.config)?;
    let rules = match &args.rules_from {
        Some(path) => Some(crate::shared_sections::search_and_rules(path)?.1.unwrap_or_default()),
        None => None,
    };
    let run = TrainRun {
        data_dirs: args.data,
        out_dir: args.out,
        init_from: args.init.map(|p| strip_checkpoint_extension(&p)),
        resume: args.resume,
        progress: !args.json,
        stop_after_steps: None,
        rules,
        validation_dirs: args.validation,
    };
    let summary = train(&config, &run)?;
    if args.json {
        println!("{}", serde_json::to_string(&summary)?);
    } else {
        for warning in &summary.warnings {
            eprintln!("warning: {warning}");
        }
        eprint!("{summary}");
    }
    Ok(())
}

/// Accepts `stem.json` or `stem.bpk` for a checkpoint stem.
fn strip_checkpoint_extension(path: &std::path::Path) -> PathBuf {
    match path.extension().and_then(|e| e.to_str()) {
        Some("json" | "bpk") => path.with_extension(""),
        _ => path.to_path_buf(),
    }
}
