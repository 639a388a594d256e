//! `xq train`: train the network on self-play samples.

use anyhow::{Context, Result};
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
    /// A URL (s3://, gs://, az://, file://) names a collection of self-play batches in object
    /// storage (`xq worker`'s `…/selfplay/<label>`, `xq selfplay --out URL`): its batches are
    /// brought into the local cache, oldest name first.
    #[arg(long = "data", required = true)]
    data: Vec<String>,
    /// A directory of samples never trained on (repeat for several): each is scored at every
    /// checkpoint, with the draw-rate and material baselines, into validation.csv. The games
    /// that `[data] holdout_games` holds back from the newest --data directory are scored too.
    #[arg(long = "validation")]
    validation: Vec<PathBuf>,
    /// The run directory: checkpoints, resume state, metrics.csv, metrics.svg/.png, validation.csv.
    /// A URL (s3://b/models/net1) trains in the local cache and commits the final checkpoint
    /// there as one artifact (model.json, model.bpk, metrics.csv, validation.csv).
    #[arg(long)]
    out: String,
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
    let cache = xq_loop::remote::default_cache();
    let mut data_dirs = Vec::new();
    for location in &args.data {
        if xq_loop::remote::is_url(location) {
            let (store, collection) = xq_loop::remote::split_location(location)?;
            let local = cache.join("data").join(xq_loop::remote::cache_name(location));
            data_dirs.extend(
                xq_loop::remote::download_selfplay(&store, &collection, &local)
                    .with_context(|| format!("bringing {location} into {}", local.display()))?,
            );
        } else {
            data_dirs.push(PathBuf::from(location));
        }
    }
    let remote_out = xq_loop::remote::is_url(&args.out).then(|| args.out.clone());
    if let Some(location) = &remote_out {
        xq_loop::remote::split_artifact(location)?;
    }
    let out_dir = match &remote_out {
        Some(location) => cache.join("train").join(xq_loop::remote::cache_name(location)),
        None => PathBuf::from(&args.out),
    };
    let run = TrainRun {
        data_dirs,
        out_dir: out_dir.clone(),
        init_from: args.init.map(|p| strip_checkpoint_extension(&p)),
        resume: args.resume,
        progress: !args.json,
        stop_after_steps: None,
        rules,
        validation_dirs: args.validation,
    };
    let summary = train(&config, &run)?;
    if let Some(location) = &remote_out {
        let (store, collection, name) = xq_loop::remote::split_artifact(location)?;
        let committed = xq_loop::remote::publish_checkpoint(&store, &collection, &name, &out_dir)?;
        eprintln!("{} {location}", if committed { "committed the model to" } else { "already committed:" });
    }
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
