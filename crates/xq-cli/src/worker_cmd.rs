//! `xq worker`: a stateless self-play worker of a distributed run (`xq loop --run`).

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;
use xq_loop::{WorkerOptions, default_worker_id, run_worker};

#[derive(Args)]
pub struct WorkerArgs {
    /// The run's location: s3://bucket/prefix, gs://…, az://…, file:///… or a directory.
    /// Credentials and endpoints come from the standard environment variables (docs/STORAGE.md).
    #[arg(long)]
    run: String,
    /// This worker's name in batch names (default: $XQ_WORKER_ID, the Indexed Job or Slurm
    /// array index, else the host name).
    #[arg(long)]
    worker_id: Option<String>,
    /// Games per batch (one shard pair uploaded per batch); default the run's
    /// `selfplay.games_per_shard`.
    #[arg(long, default_value_t = 0)]
    batch_games: u64,
    /// Stop after this many batches (default: until the coordinator marks the run finished).
    #[arg(long)]
    max_batches: Option<u64>,
    /// Local directory for the model and the batch in hand (default: the xq cache, $XQ_CACHE).
    #[arg(long)]
    cache: Option<PathBuf>,
    /// How long to wait for the coordinator to write the run's configuration.
    #[arg(long, default_value_t = 30.0)]
    wait_minutes: f64,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    json: bool,
}

pub fn worker(args: WorkerArgs) -> Result<()> {
    let store = xq_store::Store::open_str(&args.run)?;
    let options = WorkerOptions {
        worker_id: args.worker_id.unwrap_or_else(default_worker_id),
        batch_games: args.batch_games,
        max_batches: args.max_batches,
        cache: args.cache.unwrap_or_else(|| xq_loop::remote::default_cache().join("worker")),
        poll: Duration::from_secs(2),
        wait_for_config: Duration::from_secs_f64(args.wait_minutes.max(0.0) * 60.0),
        progress: !args.json,
    };
    let summary = run_worker(&store, &options)?;
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "worker": options.worker_id,
                "session": summary.session,
                "batches": summary.batches,
                "games": summary.games,
                "positions": summary.positions,
                "seconds": summary.seconds,
                "run_finished": summary.run_finished,
            })
        );
    }
    eprintln!(
        "worker {} (session {}): {} batches, {} games, {} positions in {:.0} s{}",
        options.worker_id,
        summary.session,
        summary.batches,
        summary.games,
        summary.positions,
        summary.seconds,
        if summary.run_finished { "; the run is finished" } else { "" }
    );
    Ok(())
}
