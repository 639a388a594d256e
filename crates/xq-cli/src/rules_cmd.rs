//! `xq perft` and `xq moves`.

use anyhow::{Context, Result};
use clap::Args;
use serde_json::json;
use std::time::Instant;
use xq_core::{Game, GameRules, START_FEN, notation::parse_move, perft};

#[derive(Args)]
pub struct PerftArgs {
    /// Position to start from (default: the start position).
    #[arg(long, default_value = START_FEN)]
    fen: String,
    /// Depth in plies.
    #[arg(long)]
    depth: u32,
    /// Print the leaf count below each legal move.
    #[arg(long)]
    divide: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn perft(args: PerftArgs) -> Result<()> {
    // A game keeps the FEN's move clocks, which a bare position does not.
    let game =
        Game::from_fen(&args.fen, GameRules::default()).with_context(|| format!("bad FEN {:?}", args.fen))?;
    let pos = *game.position();
    let t = Instant::now();
    let (nodes, divide) = if args.divide && args.depth > 0 {
        let d = perft::divide(&pos, args.depth);
        (d.iter().map(|(_, n)| n).sum(), Some(d))
    } else {
        (perft::perft(&pos, args.depth), None)
    };
    let seconds = t.elapsed().as_secs_f64();
    let nps = if seconds > 0.0 { nodes as f64 / seconds } else { 0.0 };
    if args.json {
        let mut v = json!({
            "fen": game.fen(), "depth": args.depth, "nodes": nodes,
            "seconds": seconds, "nodes_per_second": nps,
        });
        if let Some(d) = &divide {
            let mut sorted: Vec<_> = d.iter().map(|(m, n)| (m.iccs(), *n)).collect();
            sorted.sort();
            v["divide"] =
                sorted.into_iter().map(|(m, n)| (m, json!(n))).collect::<serde_json::Map<_, _>>().into();
        }
        println!("{v}");
    } else {
        if let Some(d) = &divide {
            let mut sorted: Vec<_> = d.iter().map(|(m, n)| (m.iccs(), *n)).collect();
            sorted.sort();
            for (m, n) in sorted {
                println!("{m}: {n}");
            }
        }
        println!("depth {} nodes {} time {:.3}s ({:.1} M leaves/s)", args.depth, nodes, seconds, nps / 1e6);
    }
    Ok(())
}

#[derive(Args)]
pub struct MovesArgs {
    /// Position to start from (default: the start position).
    #[arg(long, default_value = START_FEN)]
    fen: String,
    /// Moves to play first, in ICCS, WXF or Chinese notation.
    #[arg(long, num_args = 0..)]
    moves: Vec<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

impl MovesArgs {
    #[cfg(test)]
    pub fn moves_text(&self) -> &[String] {
        &self.moves
    }

    #[cfg(test)]
    pub fn json(&self) -> bool {
        self.json
    }
}

pub fn moves(args: MovesArgs) -> Result<()> {
    let mut game =
        Game::from_fen(&args.fen, GameRules::default()).with_context(|| format!("bad FEN {:?}", args.fen))?;
    for (i, text) in args.moves.iter().enumerate() {
        let m = parse_move(game.position(), text).with_context(|| format!("move {} ({text})", i + 1))?;
        game.play_unchecked(m);
    }
    let pos = game.position();
    let mut legal: Vec<String> = pos.legal_moves().iter().map(|m| m.iccs()).collect();
    legal.sort();
    let status = match game.outcome() {
        None => "ongoing",
        Some(o) if o.reason.is_repetition() => "repetition",
        Some(o) => o.reason.name(),
    };
    if args.json {
        let mut v = json!({"fen": game.fen(), "legal": legal, "in_check": pos.in_check(), "status": status});
        if let Some(o) = game.outcome() {
            v["result"] = json!(o.result.pgn());
            v["reason"] = json!(o.reason.to_string());
            v["article"] = json!(o.article);
        }
        println!("{v}");
    } else {
        println!("fen: {}", game.fen());
        println!("in check: {}", pos.in_check());
        println!("status: {status}");
        if let Some(o) = game.outcome() {
            println!("result: {} ({}, article {})", o.result.pgn(), o.reason, o.article);
        }
        println!("legal moves ({}): {}", legal.len(), legal.join(" "));
    }
    Ok(())
}
