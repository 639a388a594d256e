//! `xq engine`: MCTS over a checkpoint or a built-in evaluator, served as a UCI or UCCI engine
//! on stdin/stdout, for Xiangqi GUIs and match runners.

use anyhow::{Context, Result};
use clap::{ArgGroup, Args, ValueEnum};
use std::path::PathBuf;
use xq_eval::runner::TIMED_NETWORK_LEAVES_PER_STEP;
use xq_mcts::{BuiltinEvaluator, SearchParams};
use xq_nn::EvaluatorSpec;
use xq_play::engine::{Protocol, ServerConfig, serve};
use xq_play::{Coordinates, MctsPlayer};

/// The protocol spoken on stdin/stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// UCI as Pikafish speaks it.
    Uci,
    /// UCCI as ElephantEye speaks it.
    Ucci,
}

/// How squares are written in move text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CoordinatesArg {
    /// ICCS, ranks 0–9 (`h2e2`), as Pikafish writes them.
    Iccs,
    /// Ranks 1–10 (`h3e3`), as Fairy-Stockfish writes them.
    Fairy,
}

/// A built-in evaluator (no network).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EvaluatorArg {
    /// Equal priors, every position a draw: only terminal positions guide the search.
    Uniform,
    /// Material balance and capture-first priors.
    Material,
}

/// The arithmetic of a network's products on the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PrecisionArg {
    /// int8 where the CPU has AVX-512 VNNI, f32 elsewhere: int8 moves the fixed validation
    /// set's top-1 by 0.08 points and runs loop-small's network 1.3-2.5x as fast.
    Auto,
    /// f32 throughout.
    F32,
    /// 8-bit products (an error on CPUs without AVX-512 VNNI).
    Int8,
}

impl PrecisionArg {
    /// The precision this CPU runs.
    fn resolve(self) -> xq_nn::CpuPrecision {
        match self {
            PrecisionArg::Auto if xq_nn::CpuPrecision::Int8.is_supported() => xq_nn::CpuPrecision::Int8,
            PrecisionArg::Auto | PrecisionArg::F32 => xq_nn::CpuPrecision::F32,
            PrecisionArg::Int8 => xq_nn::CpuPrecision::Int8,
        }
    }
}

/// Arguments of `xq engine`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("evaluation").required(true).args(["model", "evaluator"])))]
pub struct EngineArgs {
    /// The protocol (a client's `uci` or `ucci` hello also switches to it).
    #[arg(long, value_enum, default_value = "uci")]
    protocol: ProtocolArg,
    /// Search with this checkpoint: its stem, its .json or .bpk file, a directory (its
    /// newest checkpoint), or a URL of a model artifact or a collection of them (its newest).
    #[arg(long)]
    model: Option<String>,
    /// Search with a built-in evaluator instead of a model.
    #[arg(long, value_enum)]
    evaluator: Option<EvaluatorArg>,
    /// Search and rules as an xq config file sets them: its `[search]` and `[rules]` sections
    /// are used, every other section ignored, so a loop's saved `config.toml` makes the engine
    /// search exactly as the loop's gates did. Without it: the default search (a model's
    /// search gathering 16 leaves a step), and the rules the model was trained under.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Visits per move when `go` names neither `nodes` nor a time (also the engine's `Visits` option); the
    /// config's `search.visits` when absent, else 200.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    visits: Option<u32>,
    /// Where the model runs: cpu, or gpu in builds with `--features xq-nn/gpu`.
    #[arg(long, default_value = "cpu", value_parser = crate::parse_device)]
    device: xq_nn::DeviceSetting,
    /// The arithmetic of the network's products on the CPU: f32, int8 on CPUs with AVX-512
    /// VNNI (docs/MODEL.md, "Precision"), or auto: int8 where the CPU has VNNI, else f32.
    #[arg(long, value_enum, default_value = "auto")]
    precision: PrecisionArg,
    /// Seed of the search's random choices (each game mixes in its number).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How squares are written in the moves read and sent.
    #[arg(long, value_enum, default_value = "iccs")]
    coordinates: CoordinatesArg,
}

/// Runs `xq engine` until `quit` or the end of input.
pub fn engine(args: EngineArgs) -> Result<()> {
    let spec = match (&args.model, args.evaluator) {
        (Some(location), _) => EvaluatorSpec::checkpoint(crate::local_model(location)?)
            .on_device(args.device)
            .with_precision(args.precision.resolve()),
        (None, Some(EvaluatorArg::Uniform)) => EvaluatorSpec::Builtin(BuiltinEvaluator::Uniform),
        (None, Some(EvaluatorArg::Material) | None) => EvaluatorSpec::Builtin(BuiltinEvaluator::Material),
    };
    let built = spec.build().with_context(|| format!("cannot load the model {spec}"))?;
    let (search, rules) = match &args.config {
        Some(path) => crate::shared_sections::search_and_rules(path)?,
        None => (None, None),
    };
    let rules = rules.or(built.trained_rules).unwrap_or_default();
    let mut search = search.unwrap_or(SearchParams {
        visits: DEFAULT_VISITS,
        leaves_per_step: if args.model.is_some() { TIMED_NETWORK_LEAVES_PER_STEP } else { 1 },
        ..SearchParams::default()
    });
    if let Some(visits) = args.visits {
        search.visits = visits;
    }
    let name = format!("xq {}", built.model_id);
    let visits = search.visits;
    let player = MctsPlayer::new(&name, built.evaluator, search)?;
    let protocol = match args.protocol {
        ProtocolArg::Uci => Protocol::Uci,
        ProtocolArg::Ucci => Protocol::Ucci,
    };
    let coordinates = match args.coordinates {
        CoordinatesArg::Iccs => Coordinates::Iccs,
        CoordinatesArg::Fairy => Coordinates::Fairy,
    };
    let config = ServerConfig {
        seed: args.seed,
        visits: Some(visits),
        rules,
        rank_offset: coordinates.rank_offset(),
        ..ServerConfig::new(protocol, &name)
    };
    // Stdin and Stdout rather than their locks: the server reads on a thread of its own.
    serve(std::io::BufReader::new(std::io::stdin()), std::io::stdout(), Box::new(player), config)?;
    Ok(())
}

/// Visits per move without a config or `--visits`.
const DEFAULT_VISITS: u32 = 200;
