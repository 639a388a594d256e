//! `xq judge`: classify every move of a game fragment (check, mate threat, chase, idle) and
//! adjudicate its repetition cycle by the 棋例 rules.
//!
//! The JSON form is a stable interface other tools read:
//! `{"rules", "moves": [{"move", "chinese", "side", "class", "detail", "targets"}],
//!   "cycle": {"start_ply", "plies"} | null, "verdict", "reason", "article", "must_vary"}`.

use anyhow::{Context, Result, bail};
use clap::Args;
use serde_json::json;
use unicode_width::UnicodeWidthStr;
use xq_core::qili::{Detail, MoveInfo, RuleSet, try_judge};
use xq_core::{Color, Position, START_FEN, notation::parse_move};

#[derive(Args)]
pub struct JudgeArgs {
    /// Position to start from (default: the start position).
    #[arg(long, default_value = START_FEN)]
    fen: String,
    /// The moves played, in ICCS, WXF or Chinese notation.
    #[arg(long, num_args = 1.., required = true)]
    moves: Vec<String>,
    /// Repetition rules: `cxa` (the seeds' rulebook) or `cxa2020` (the 2020 edition).
    #[arg(long, default_value = "cxa")]
    rules: String,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// The last completed cycle: the latest position that occurred before, back to its most
/// recent earlier occurrence. A position occurring for the second time completes a cycle
/// (the rulebook's cases show each cycle once).
fn last_cycle(positions: &[Position]) -> Option<(usize, usize)> {
    (1..positions.len())
        .rev()
        .find_map(|j| (0..j).rev().find(|&i| positions[i] == positions[j]).map(|i| (i, j - i)))
}

/// `text` padded with spaces to `width` terminal columns (a Chinese character takes two).
fn pad(text: &str, width: usize) -> String {
    format!("{text}{}", " ".repeat(width.saturating_sub(text.width())))
}

/// The Chinese and English label of a classified move: 将 杀 捉 闲 兑 献 拦 跟.
fn label(info: &MoveInfo) -> (char, String) {
    match info.detail {
        Detail::Idle(kind) => (kind.chinese(), format!("{} ({})", info.class.name(), kind.name())),
        Detail::Chase(how) => (info.class.chinese(), format!("{} ({})", info.class.name(), how.name())),
        Detail::None => (info.class.chinese(), info.class.name().to_string()),
    }
}

pub fn judge(args: JudgeArgs) -> Result<()> {
    let Some(rules) = RuleSet::parse(&args.rules) else {
        bail!("unknown rules {:?} (expected cxa or cxa2020)", args.rules);
    };
    let mut pos = Position::from_fen(&args.fen).with_context(|| format!("bad FEN {:?}", args.fen))?;
    let mut positions = vec![pos];
    let mut moves = Vec::with_capacity(args.moves.len());
    let mut chinese = Vec::with_capacity(args.moves.len());
    for (i, text) in args.moves.iter().enumerate() {
        let m = parse_move(&pos, text).with_context(|| format!("move {} ({text})", i + 1))?;
        chinese.push(xq_core::notation::chinese(&pos, m));
        pos = pos.after(m);
        positions.push(pos);
        moves.push(m);
    }
    // Every move is classified; the verdict rests on the last completed cycle only.
    let all = try_judge(&positions, &moves, 0, rules).context("judging the moves")?;
    let cycle = last_cycle(&positions);
    let outcome = match cycle {
        Some((start, plies)) => {
            Some(try_judge(&positions[..=start + plies], &moves[..start + plies], start, rules)?.outcome)
        }
        None => None,
    };
    if args.json {
        let list: Vec<_> = all
            .moves
            .iter()
            .enumerate()
            .map(|(i, info)| {
                let targets: Vec<String> = info.targets.iter().map(|s| s.to_string()).collect();
                json!({
                    "move": moves[i].iccs(),
                    "chinese": chinese[i],
                    "side": positions[i].side_to_move().name(),
                    "class": info.class.name(),
                    "detail": info.detail.name(),
                    "targets": targets,
                })
            })
            .collect();
        let out = json!({
            "rules": rules.name(),
            "moves": list,
            "cycle": cycle.map(|(s, p)| json!({"start_ply": s, "plies": p})),
            "verdict": outcome.map_or("none", |o| o.result.verdict_name()),
            "reason": outcome.map(|o| o.reason.name()),
            "article": outcome.map(|o| o.article),
            "must_vary": outcome.and_then(|o| o.must_vary).map(Color::name),
        });
        println!("{out}");
        return Ok(());
    }
    println!("rules: {}", rules.name());
    let rows: Vec<[String; 5]> = all
        .moves
        .iter()
        .enumerate()
        .map(|(i, info)| {
            let (cn, en) = label(info);
            let targets: Vec<String> = info.targets.iter().map(|s| s.to_string()).collect();
            let in_cycle = cycle.is_some_and(|(s, p)| i >= s && i < s + p);
            [
                i.to_string(),
                positions[i].side_to_move().name().to_string(),
                format!("{} {}", moves[i].iccs(), chinese[i]),
                format!("{}{cn} {en}", if in_cycle { "*" } else { " " }),
                targets.join(" "),
            ]
        })
        .collect();
    let header = ["ply", "side", "move", " class (* in the cycle)", "targets"];
    let widths: Vec<usize> = (0..5)
        .map(|c| rows.iter().map(|r| r[c].width()).chain([header[c].width()]).max().unwrap_or(0))
        .collect();
    for row in std::iter::once(header.map(String::from)).chain(rows) {
        let cells: Vec<String> = (0..5).map(|c| pad(&row[c], widths[c])).collect();
        println!("{}", cells.join("  ").trim_end());
    }
    match (cycle, outcome) {
        (Some((start, plies)), Some(o)) => {
            println!("cycle: plies {start}..{} ({plies} plies)", start + plies);
            let vary = o.must_vary.map_or(String::new(), |c| format!(", {} must vary", c.name()));
            println!("verdict: {} ({}, article {}{vary})", o.result.verdict_name(), o.reason, o.article);
        }
        _ => println!("verdict: none (no position repeats)"),
    }
    Ok(())
}
