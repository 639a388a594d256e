//! `xq data stats` and `xq import`: what a data set holds, and game collections made into one.

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use xq_core::GameRules;
use xq_core::qili::RuleSet;
use xq_data::stats::DataStats;
use xq_eval::pgn::parse_pgn;
use xq_play::epd::EpdRecord;
use xq_selfplay::{ImportOptions, ImportedGame, import_games};

#[derive(Args)]
pub struct DataArgs {
    #[command(subcommand)]
    command: DataCommand,
}

#[derive(Subcommand)]
enum DataCommand {
    /// Games, positions, how the games ended, the result balance and a length histogram of
    /// every shard under DIR.
    Stats {
        /// A data directory (a self-play output, or a run's data/<run> with one per generation).
        dir: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

pub fn data(args: DataArgs) -> Result<()> {
    match args.command {
        DataCommand::Stats { dir, json } => {
            let stats = DataStats::of_tree(&dir).with_context(|| format!("reading {}", dir.display()))?;
            if json {
                println!("{}", serde_json::to_string(&stats)?);
            } else {
                print!("{}", stats.to_text());
            }
            Ok(())
        }
    }
}

#[derive(Args)]
pub struct ImportArgs {
    /// PGN files (ICCS, WXF, Chinese or Fairy-Stockfish movetext, one or many games each).
    #[arg(long, num_args = 1.., required_unless_present = "epd")]
    pgn: Vec<PathBuf>,
    /// EPD or FEN files, one position a line: each position is a game starting there, its
    /// moves the `pv` (or first `bm`) operation, its result the `result`/`c9` operation or a
    /// trailing `[1.0]`/`[0.5]`/`[0.0]` (red's score); read after the PGN files.
    #[arg(long, num_args = 1..)]
    epd: Vec<PathBuf>,
    /// Output directory for the games and samples shards (rerun with it to resume).
    #[arg(long)]
    out: PathBuf,
    /// Repetition rules every game is judged under: `cxa` or `cxa2020`.
    #[arg(long, default_value = "cxa")]
    rules: String,
    /// Games per shard pair.
    #[arg(long, default_value_t = 1000)]
    games_per_shard: usize,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn import(args: ImportArgs) -> Result<()> {
    let Some(rule_set) = RuleSet::parse(&args.rules) else {
        bail!("unknown rules {:?} (expected cxa or cxa2020)", args.rules);
    };
    let rules = GameRules { rule_set, ..GameRules::default() };
    let mut games = Vec::new();
    let mut unreadable = Vec::new();
    for path in &args.pgn {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let parsed = parse_pgn(&text).with_context(|| format!("{} is not PGN", path.display()))?;
        for (i, pgn) in parsed.iter().enumerate() {
            match pgn.moves() {
                Ok(moves) => games.push(ImportedGame {
                    start_fen: pgn.start_fen().to_string(),
                    moves,
                    declared: pgn.result,
                    red: pgn.tag("Red").unwrap_or("?").to_string(),
                    black: pgn.tag("Black").unwrap_or("?").to_string(),
                    opening: pgn.tag("Opening").map(str::to_string),
                }),
                Err(e) => unreadable.push(format!("{} game {}: {e}", path.display(), i + 1)),
            }
        }
    }
    for path in &args.epd {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match EpdRecord::parse(line).and_then(|record| ImportedGame::from_epd(&record)) {
                Ok(game) => games.push(game),
                Err(e) => unreadable.push(format!("{} line {}: {e}", path.display(), index + 1)),
            }
        }
    }
    let options = ImportOptions { rules, games_per_shard: args.games_per_shard, ..ImportOptions::default() };
    let mut summary = import_games(games, &args.out, &options)?;
    // Games whose moves do not even read count as read and rejected, like illegal ones.
    summary.read += unreadable.len() as u64;
    summary.rejected.extend(unreadable);
    if args.json {
        println!("{}", serde_json::to_string(&summary)?);
    } else {
        println!(
            "{} games read: {} in {} ({} positions written now, {} from an earlier run), {} cut where the rules ended them, \
             {} with a result the rules changed, {} unfinished left out, {} rejected",
            summary.read,
            summary.games,
            args.out.display(),
            summary.positions,
            summary.resumed,
            summary.cut_by_rules,
            summary.result_changed,
            summary.unfinished,
            summary.rejected.len()
        );
        for (ending, n) in &summary.endings {
            println!("  {ending:<24} {n:>8}");
        }
        for why in &summary.rejected {
            println!("rejected: {why}");
        }
    }
    Ok(())
}
