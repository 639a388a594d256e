//! `xq`: Xiangqi rules, self-play, training and evaluation from one command.

mod eval_cmd;
mod rules_cmd;

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
    /// Run or resume an evaluation event (gauntlet, round robin, Swiss, SPRT, gate).
    Eval(eval_cmd::EvalArgs),
}

/// Exit code for bad input (malformed FEN, illegal move, bad config).
const EXIT_BAD_INPUT: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => rules_cmd::perft(args),
        Command::Moves(args) => rules_cmd::moves(args),
        Command::Eval(args) => eval_cmd::eval(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}
