//! `xq loop`: self-play → train → gate → promote, generation after generation, resumable.

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;
use xq_loop::{LoopConfig, LoopOptions, RemoteRun, run_distributed, run_loop};

#[derive(Args)]
pub struct LoopArgs {
    /// The loop configuration (TOML), e.g. configs/loop-tiny.toml.
    #[arg(long, default_value = "configs/loop-tiny.toml")]
    config: PathBuf,
    /// Override the number of generations in the config (a run continued with more
    /// generations goes on where it stopped).
    #[arg(long)]
    generations: Option<u32>,
    /// Stop after finishing this many generations in this invocation.
    #[arg(long)]
    max_generations_now: Option<u32>,
    /// Run distributed: the run lives at this location (s3://bucket/prefix, gs://…, az://…,
    /// file:///… or a directory), `xq worker` processes play the self-play, and this process
    /// waits for their batches, then trains, gates and promotes.
    #[arg(long)]
    run: Option<String>,
    /// With --run: the local cache of the run's files (default: the xq cache, $XQ_CACHE).
    #[arg(long, requires = "run")]
    cache: Option<PathBuf>,
    /// With --run: seconds between looks for new worker batches.
    #[arg(long, requires = "run", default_value_t = 5.0)]
    poll_seconds: f64,
    /// With --run: fail when no worker batch arrives for this many minutes.
    #[arg(long, requires = "run")]
    idle_minutes: Option<f64>,
    /// Print the final state as JSON on stdout.
    #[arg(long)]
    json: bool,
}

pub fn run(args: LoopArgs) -> Result<()> {
    let mut config = LoopConfig::load(&args.config)?;
    if let Some(generations) = args.generations {
        config.run.generations = generations;
    }
    let sections = [
        ("[gate]", true, config.gate.limits, config.gate.concurrency),
        ("[ladder]", config.ladder.enabled, config.ladder.limits, config.ladder.concurrency),
        (
            "[final_rating]",
            config.final_rating.enabled,
            config.final_rating.limits,
            config.final_rating.concurrency,
        ),
    ];
    for (section, enabled, limits, concurrency) in sections {
        if enabled && limits.is_timed() && concurrency > 1 {
            eprintln!("{}", crate::eval_cmd::timed_concurrency_warning(section, concurrency));
        }
    }
    let options = LoopOptions { progress: true, max_generations_this_run: args.max_generations_now };
    let summary = match &args.run {
        Some(location) => {
            let cache = args.cache.clone().unwrap_or_else(|| {
                xq_loop::remote::default_cache()
                    .join("coordinator")
                    .join(xq_loop::remote::cache_name(location))
            });
            let remote = RemoteRun::open(location, cache)?
                .with_poll(Duration::from_secs_f64(args.poll_seconds.max(0.01)))
                .with_idle_limit(args.idle_minutes.map(|m| Duration::from_secs_f64(m.max(0.0) * 60.0)));
            run_distributed(&config, &options, &remote)?
        }
        None => run_loop(&config, &options)?,
    };
    let state = &summary.state;
    let decided = state.generations.iter().filter(|g| g.promoted.is_some()).count();
    let promoted = state.generations.iter().filter(|g| g.promoted == Some(true)).count();
    if args.json {
        println!("{}", serde_json::to_string(state)?);
    }
    eprintln!(
        "run {}: {decided}/{} generations decided ({promoted} promoted), {} this invocation in {:.0} s{}",
        config.run.name,
        config.run.generations,
        summary.generations_this_run,
        summary.seconds,
        if summary.stopped_by_budget { ", stopped by the time budget" } else { "" },
    );
    if let Some(accepted) = &summary.accepted {
        eprintln!("  accepted model: {}", accepted.display());
    }
    if let Some(rating) = state.final_rating.as_ref().and_then(|r| r.rating.as_ref()) {
        let per: Vec<String> = rating
            .opponents
            .iter()
            .enumerate()
            .map(|(i, (name, [w, d, l]))| {
                let beaten = match rating.beats.get(i) {
                    Some(true) => " beaten",
                    Some(false) => " not beaten",
                    None => "",
                };
                format!("{name} +{w}={d}-{l}{beaten}")
            })
            .collect();
        eprintln!("  final rating of {}: {}", rating.model, per.join(", "));
    }
    eprintln!("  report: {}", summary.report.display());
    Ok(())
}
