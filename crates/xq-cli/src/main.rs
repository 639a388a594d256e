//! `xq`: Xiangqi rules, self-play, training and evaluation from one command.

mod engine_cmd;
mod eval_cmd;
mod judge_cmd;
mod loop_cmd;
mod rules_cmd;
mod selfplay_cmd;
mod shared_sections;
mod train_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "xq", version, about = "Xiangqi rules, self-play, training and evaluation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal move tree (move generator check and speed).
    Perft(rules_cmd::PerftArgs),
    /// Show the position after some moves: legal moves, check and status.
    Moves(rules_cmd::MovesArgs),
    /// Classify every move (check, mate threat, chase, idle) and adjudicate the repetition (棋例).
    Judge(judge_cmd::JudgeArgs),
    /// Generate games and training samples by MCTS self-play (Parquet shards).
    Selfplay(selfplay_cmd::SelfplayArgs),
    /// Train the network on self-play samples (checkpoints, exact resume, metrics).
    Train(train_cmd::TrainArgs),
    /// Run or resume an evaluation event (gauntlet, round robin, Swiss, SPRT, gate).
    Eval(eval_cmd::EvalArgs),
    /// Run or continue the training loop: self-play, train, gate, promote, repeat.
    Loop(loop_cmd::LoopArgs),
    /// Play as a UCI or UCCI engine on stdin/stdout (MCTS over a model or a built-in evaluator).
    Engine(engine_cmd::EngineArgs),
}

/// Exit code for bad input (malformed FEN, illegal move, bad config).
const EXIT_BAD_INPUT: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => rules_cmd::perft(args),
        Command::Moves(args) => rules_cmd::moves(args),
        Command::Judge(args) => judge_cmd::judge(args),
        Command::Selfplay(args) => selfplay_cmd::selfplay(args),
        Command::Train(args) => train_cmd::train_command(args),
        Command::Eval(args) => eval_cmd::eval(args),
        Command::Loop(args) => loop_cmd::run(args),
        Command::Engine(args) => engine_cmd::engine(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

/// The error and its causes on one line, leaving out a cause whose text the message
/// already contains (some library errors print their source themselves).
fn error_chain(e: &anyhow::Error) -> String {
    let mut line = e.to_string();
    for cause in e.chain().skip(1) {
        let text = cause.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
    }
    line
}

/// Parses a `--device` value.
fn parse_device(text: &str) -> Result<xq_nn::DeviceSetting, String> {
    match text {
        "cpu" => Ok(xq_nn::DeviceSetting::Cpu),
        "gpu" => Ok(xq_nn::DeviceSetting::Gpu),
        other => Err(format!("unknown device {other:?}: expected cpu or gpu")),
    }
}
