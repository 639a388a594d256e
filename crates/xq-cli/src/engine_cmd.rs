//! `xq engine`: MCTS over a checkpoint or a built-in evaluator, served as a UCI or UCCI engine
//! on stdin/stdout, for Xiangqi GUIs and match runners.

use anyhow::{Context, Result, bail};
use clap::{ArgGroup, Args, ValueEnum};
use std::path::{Path, PathBuf};
use xq_core::GameRules;
use xq_mcts::{Evaluator, MaterialEvaluator, SearchParams, UniformEvaluator};
use xq_play::MctsPlayer;
use xq_play::engine::{Protocol, ServerConfig, serve};

/// The protocol spoken on stdin/stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// UCI as Pikafish speaks it.
    Uci,
    /// UCCI as ElephantEye speaks it.
    Ucci,
}

/// A built-in evaluator (no network).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EvaluatorArg {
    /// Equal priors, every position a draw: only terminal positions guide the search.
    Uniform,
    /// Material balance and capture-first priors.
    Material,
}

/// Arguments of `xq engine`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("evaluation").required(true).args(["model", "evaluator"])))]
pub struct EngineArgs {
    /// The protocol (a client's `uci` or `ucci` hello also switches to it).
    #[arg(long, value_enum, default_value = "uci")]
    protocol: ProtocolArg,
    /// Search with this checkpoint: its stem, its .json or .bpk file, or a directory (its
    /// newest checkpoint).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Search with a built-in evaluator instead of a model.
    #[arg(long, value_enum)]
    evaluator: Option<EvaluatorArg>,
    /// Visits per move when `go` names no `nodes` (also the engine's `Visits` option).
    /// 200 is what the gate and ladder configs give MCTS players.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    visits: u32,
    /// Where the model runs: cpu, or gpu in builds with `--features xq-nn/gpu`.
    #[arg(long, default_value = "cpu", value_parser = crate::parse_device)]
    device: xq_nn::DeviceSetting,
    /// Seed of the search's random choices (each game mixes in its number).
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// Runs `xq engine` until `quit` or the end of input.
pub fn engine(args: EngineArgs) -> Result<()> {
    let (evaluator, model_id): (Box<dyn Evaluator>, String) = match (&args.model, args.evaluator) {
        (Some(path), _) => model_evaluator(path, args.device)?,
        (None, Some(EvaluatorArg::Uniform)) => (Box::new(UniformEvaluator), "uniform".into()),
        (None, Some(EvaluatorArg::Material)) => (Box::new(MaterialEvaluator::default()), "material".into()),
        (None, None) => bail!("give --model PATH or --evaluator uniform|material"),
    };
    let name = format!("xq {model_id}");
    let player = MctsPlayer::new(&name, evaluator, SearchParams::default(), args.visits)?;
    let protocol = match args.protocol {
        ProtocolArg::Uci => Protocol::Uci,
        ProtocolArg::Ucci => Protocol::Ucci,
    };
    let config =
        ServerConfig { seed: args.seed, visits: Some(args.visits), ..ServerConfig::new(protocol, &name) };
    serve(std::io::stdin().lock(), std::io::stdout().lock(), Box::new(player), config)?;
    Ok(())
}

/// The evaluator for `--model`, its network told the natural move limit of the rules the
/// server plays.
fn model_evaluator(path: &Path, device: xq_nn::DeviceSetting) -> Result<(Box<dyn Evaluator>, String)> {
    crate::selfplay_cmd::load_model(path, device, GameRules::default().move_limit_plies)
        .with_context(|| format!("cannot load the model {}", path.display()))
}
