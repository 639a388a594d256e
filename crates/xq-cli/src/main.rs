//! `xq`: Xiangqi rules, self-play, training and evaluation from one command.

mod data_cmd;
mod engine_cmd;
mod eval_cmd;
mod judge_cmd;
mod loop_cmd;
mod rules_cmd;
mod scale_cmd;
mod selfplay_cmd;
mod shared_sections;
mod train_cmd;
mod worker_cmd;

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
    /// Run or continue the training loop: self-play, train, gate, promote, repeat (with
    /// `--run URL`, as the coordinator of `xq worker` processes).
    Loop(loop_cmd::LoopArgs),
    /// Play self-play batches for a distributed run and upload them to its storage.
    Worker(worker_cmd::WorkerArgs),
    /// Play as a UCI or UCCI engine on stdin/stdout (MCTS over a model or a built-in evaluator).
    Engine(engine_cmd::EngineArgs),
    /// Inspect data sets: `xq data stats DIR`.
    Data(data_cmd::DataArgs),
    /// Turn PGN game collections into the games and samples tables, every ending judged by the rules.
    Import(data_cmd::ImportArgs),
}

/// Exit code for bad input (malformed FEN, illegal move, bad config).
const EXIT_BAD_INPUT: u8 = 2;

/// Lets a closed stdout end the process quietly, as it ends `cat` or `grep`: `xq eval … | head`
/// or a GUI that hangs up on `xq engine` must not make the next `println!` panic. Rust starts
/// programs with SIGPIPE ignored, which turns every write to a closed pipe into an error that
/// `println!` reports by panicking, and the CLI prints from many places.
#[cfg(unix)]
#[allow(unsafe_code)]
fn end_quietly_on_a_closed_stdout() {
    // SAFETY: called first thing in main, before any thread is started; restoring a signal's
    // default disposition touches no memory of this program.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn end_quietly_on_a_closed_stdout() {}

fn main() -> ExitCode {
    end_quietly_on_a_closed_stdout();
    let cli = Cli::parse_from(protect_hyphen_moves(std::env::args_os()));
    let result = match cli.command {
        Command::Perft(args) => rules_cmd::perft(args),
        Command::Moves(args) => rules_cmd::moves(args),
        Command::Judge(args) => judge_cmd::judge(args),
        Command::Selfplay(args) => selfplay_cmd::selfplay(args),
        Command::Train(args) => train_cmd::train_command(args),
        Command::Eval(args) => eval_cmd::eval(args),
        Command::Loop(args) => loop_cmd::run(args),
        Command::Worker(args) => worker_cmd::worker(args),
        Command::Engine(args) => engine_cmd::engine(args),
        Command::Data(args) => data_cmd::data(args),
        Command::Import(args) => data_cmd::import(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

/// Lets `--moves` take WXF moves that start with `-` (`-R+1`, the rear rook advances one):
/// each such word after `--moves` is passed as `--moves=-R+1`, which clap appends to the same
/// list in order, instead of reading it as an unknown flag. (clap's `allow_hyphen_values`
/// would also swallow the flags that follow, such as `--json`.)
fn protect_hyphen_moves(args: impl IntoIterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut in_moves = false;
    args.into_iter()
        .map(|arg| {
            let text = arg.to_string_lossy();
            if text.starts_with("--") {
                in_moves = text == "--moves" || text.starts_with("--moves=");
                arg
            } else if in_moves && text.len() > 1 && text.starts_with('-') {
                format!("--moves={text}").into()
            } else {
                arg
            }
        })
        .collect()
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
/// A `--model` argument as a local path: a URL's model is brought into the local cache.
fn local_model(location: &str) -> anyhow::Result<std::path::PathBuf> {
    if xq_loop::remote::is_url(location) {
        let cache = xq_loop::remote::default_cache().join("models");
        Ok(xq_loop::remote::fetch_model(location, &cache)?)
    } else {
        Ok(std::path::PathBuf::from(location))
    }
}

fn parse_precision(text: &str) -> Result<xq_nn::CpuPrecision, String> {
    xq_nn::CpuPrecision::from_name(text)
        .ok_or_else(|| format!("unknown precision {text:?}: expected f32 or int8"))
}

fn parse_device(text: &str) -> Result<xq_nn::DeviceSetting, String> {
    match text {
        "cpu" => Ok(xq_nn::DeviceSetting::Cpu),
        "gpu" => Ok(xq_nn::DeviceSetting::Gpu),
        other => Err(format!("unknown device {other:?}: expected cpu or gpu")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(words: &[&str]) -> Vec<String> {
        let args = protect_hyphen_moves(words.iter().map(std::ffi::OsString::from));
        args.iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn wxf_moves_with_a_leading_minus_stay_moves() {
        let words = ["xq", "judge", "--moves", "h0h1", "-R+1", "+R.2", "--json", "-h"];
        assert_eq!(parse(&words), ["xq", "judge", "--moves", "h0h1", "--moves=-R+1", "+R.2", "--json", "-h"]);
        let cli = Cli::try_parse_from(parse(&["xq", "moves", "--moves", "h2e2", "-C.5", "--json"])).unwrap();
        let Command::Moves(args) = cli.command else { panic!("moves") };
        assert_eq!(args.moves_text(), ["h2e2", "-C.5"]);
        assert!(args.json());
    }
}
