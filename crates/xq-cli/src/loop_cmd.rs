//! `xq loop`: self-play → train → gate → promote, generation after generation, resumable.

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use xq_loop::{LoopConfig, LoopOptions, run_loop};

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
    /// Print the final state as JSON on stdout.
    #[arg(long)]
    json: bool,
}

pub fn run(args: LoopArgs) -> Result<()> {
    let mut config = LoopConfig::load(&args.config)?;
    if let Some(generations) = args.generations {
        config.run.generations = generations;
    }
    let options = LoopOptions { progress: true, max_generations_this_run: args.max_generations_now };
    let summary = run_loop(&config, &options)?;
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
    eprintln!("  report: {}", summary.report.display());
    Ok(())
}
