//! `xq selfplay`: generate a labelled data set by MCTS self-play.

use anyhow::{Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};
use xq_nn::EvaluatorSpec;
use xq_selfplay::{SelfplayConfig, SelfplayRun, TeacherConfig, run_selfplay, run_teacher_selfplay};

#[derive(Args)]
pub struct SelfplayArgs {
    /// The self-play configuration (TOML).
    #[arg(long)]
    config: PathBuf,
    /// Override the number of games in the config.
    #[arg(long)]
    games: Option<u64>,
    /// Output directory for the Parquet shards (default `data/runs/selfplay-<config name>`).
    /// Rerunning with the same directory continues where it stopped. An s3://, gs://, az://
    /// or file:// URL names a collection in object storage: the games are played in the local
    /// cache and every shard pair is committed there as one artifact (docs/STORAGE.md).
    #[arg(long)]
    out: Option<String>,
    /// Search with this checkpoint instead of the config's built-in evaluator: a checkpoint
    /// stem, its .json or .bpk file, a directory (its newest checkpoint), or a URL of a model
    /// artifact or a collection of them (its newest).
    #[arg(long)]
    model: Option<String>,
    /// Play teacher games instead: alpha-beta at this depth plays both sides, its move is each
    /// sample's policy target (the cheap, stronger bootstrap data; docs/DATA.md).
    #[arg(long, conflicts_with = "model")]
    teacher_depth: Option<u32>,
    /// With --teacher-depth: the chance that a move of the first `search.temperature_plies`
    /// plies is a random legal move, for variety.
    #[arg(long, requires = "teacher_depth", default_value_t = TeacherConfig::default().random_move_probability)]
    teacher_random: f32,
    /// Where the model runs: cpu, or gpu in builds with `--features xq-nn/gpu`.
    #[arg(long, default_value = "cpu", value_parser = crate::parse_device)]
    device: xq_nn::DeviceSetting,
    /// The arithmetic of the network's products on the CPU: f32, or int8 on CPUs with
    /// AVX-512 VNNI (docs/MODEL.md, "Precision").
    #[arg(long, default_value = "f32", value_parser = crate::parse_precision)]
    precision: xq_nn::CpuPrecision,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    json: bool,
}

pub fn selfplay(args: SelfplayArgs) -> Result<()> {
    let mut config = SelfplayConfig::load(&args.config)?;
    if let Some(games) = args.games {
        config.selfplay.games = games;
    }
    let target = args.out.clone().unwrap_or_else(|| default_out(&args.config).to_string_lossy().into_owned());
    let cache = xq_loop::remote::default_cache();
    let out = if xq_loop::remote::is_url(&target) {
        cache.join("selfplay").join(xq_loop::remote::cache_name(&target))
    } else {
        PathBuf::from(&target)
    };
    let openings = xq_play::Book::openings_at(&config.selfplay.opening_book)
        .with_context(|| format!("opening book {}", config.selfplay.opening_book))?;
    if let Some(depth) = args.teacher_depth {
        let teacher = TeacherConfig { depth, random_move_probability: args.teacher_random };
        let run = SelfplayRun {
            out_dir: out.clone(),
            model_id: teacher.model_id(),
            openings,
            progress: true,
            stop_after_shards: None,
        };
        let summary = run_teacher_selfplay(&config, &teacher, &run)?;
        publish(&target, &out, config.selfplay.seed)?;
        return print_summary(&summary, &target, args.json);
    }
    let spec = match &args.model {
        Some(location) => EvaluatorSpec::checkpoint(crate::local_model(location)?)
            .on_device(args.device)
            .with_precision(args.precision),
        None => EvaluatorSpec::Builtin(config.selfplay.evaluator),
    };
    let mut built = spec.build().with_context(|| format!("cannot load the evaluator {spec}"))?;
    let run = SelfplayRun {
        out_dir: out.clone(),
        model_id: built.model_id,
        openings,
        progress: true,
        stop_after_shards: None,
    };
    let summary = run_selfplay(&config, built.evaluator.as_mut(), &run)?;
    publish(&target, &out, config.selfplay.seed)?;
    print_summary(&summary, &target, args.json)
}

/// Commits the shard pairs played into the local `dir` to the collection at `target`, when
/// it is a URL; a rerun commits what a kill left uncommitted.
fn publish(target: &str, dir: &Path, seed: u64) -> Result<()> {
    if !xq_loop::remote::is_url(target) {
        return Ok(());
    }
    let (store, collection) = xq_loop::remote::split_location(target)?;
    let committed = xq_loop::remote::upload_selfplay_dir(&store, &collection, &format!("s{seed:016x}"), dir)
        .with_context(|| format!("uploading the shards of {} to {target}", dir.display()))?;
    eprintln!("committed {committed} shard pairs to {target}");
    Ok(())
}

fn print_summary(summary: &xq_selfplay::Summary, out: &str, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(summary)?);
    } else {
        eprint!("{summary}");
        eprintln!("  shards in {out}");
    }
    Ok(())
}

fn default_out(config: &Path) -> PathBuf {
    let stem = config.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
    PathBuf::from("data/runs").join(format!("selfplay-{stem}"))
}
