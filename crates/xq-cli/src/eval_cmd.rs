//! `xq eval gauntlet|round-robin|swiss|sprt|gate --config FILE [--out DIR]`: runs (or resumes)
//! an evaluation event with xq-eval's runner and prints its summary.
//! `xq eval calibrate --config configs/scale-v1.toml`: rates the strength scale's anchors and
//! writes its file; `xq eval rate --config FILE [--scale FILE]`: places a player on the scale.

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Duration;
use xq_eval::events::Format;
use xq_eval::runner::{Progress, RunConfig, RunOptions, run_event};

/// The event format, which must match the configuration's `[format] kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EventKind {
    /// Player 0 against every other player.
    Gauntlet,
    /// Everyone against everyone.
    RoundRobin,
    /// Swiss system.
    Swiss,
    /// Head-to-head SPRT of player 0 against player 1.
    Sprt,
    /// Promotion gate of player 0 against player 1.
    Gate,
    /// Rates the anchors of a strength scale (`configs/scale-*.toml`) and writes its file.
    Calibrate,
    /// Places a player (`configs/rate-*.toml`) on a calibrated scale.
    Rate,
}

/// Arguments of `xq eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The event format.
    #[arg(value_enum)]
    kind: EventKind,
    /// The event configuration: a TOML file (see configs/eval-*.toml), or an event's own record
    /// (its directory or the config.json in it, e.g. models/<run>/gates/g015) to play it again.
    #[arg(long)]
    config: PathBuf,
    /// Output directory (journal, PGN, reports, chart); rerunning with it resumes the event.
    /// Default: data/runs/<TOML file stem>, or data/runs/<event name as a slug> for a record,
    /// e.g. data/runs/loop-small-gate-g015 (ignored by git).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Games played at once, instead of the configuration's `concurrency` (a record holds 1).
    #[arg(long)]
    concurrency: Option<usize>,
    /// Stop after this many new games (the event resumes on the next run).
    #[arg(long)]
    max_games: Option<usize>,
    /// The scale file: what `calibrate` writes (default data/scale/<config stem>.json) and
    /// `rate` reads (default data/scale/anchors-v1.json).
    #[arg(long)]
    scale: Option<PathBuf>,
    /// No progress line.
    #[arg(long)]
    quiet: bool,
}

fn kind_of(format: &Format) -> EventKind {
    match format {
        Format::Gauntlet { .. } => EventKind::Gauntlet,
        Format::RoundRobin { .. } => EventKind::RoundRobin,
        Format::Swiss { .. } => EventKind::Swiss,
        Format::Sprt { .. } => EventKind::Sprt,
        Format::Gate { .. } => EventKind::Gate,
    }
}

fn progress_message(p: &Progress) -> String {
    let w = p.first_wdl;
    let mut text = format!("{} +{} ={} -{}", p.first_player, w.wins, w.draws, w.losses);
    if let Some(e) = &p.elo {
        text.push_str(&format!(" Elo {}", xq_eval::report::interval_text(&e.elo, 0)));
    }
    if let Some(s) = &p.sprt {
        text.push_str(&format!(" LLR {:.2} [{:.2}, {:.2}]", s.llr, s.lower_bound, s.upper_bound));
    }
    text
}

/// Runs `xq eval`.
pub fn eval(args: EvalArgs) -> Result<()> {
    match args.kind {
        EventKind::Calibrate => return crate::scale_cmd::calibrate(&scale_args(&args)),
        EventKind::Rate => return crate::scale_cmd::rate(&scale_args(&args)),
        _ => {}
    }
    let mut config = RunConfig::load(&args.config)?;
    if let Some(concurrency) = args.concurrency {
        if concurrency == 0 {
            bail!("--concurrency must be at least 1");
        }
        config.concurrency = concurrency;
    }
    let wanted = kind_of(&config.format);
    if wanted != args.kind {
        bail!(
            "{} describes a {} event, not {}",
            args.config.display(),
            wanted.to_possible_value().map_or_else(String::new, |v| v.get_name().to_string()),
            args.kind.to_possible_value().map_or_else(String::new, |v| v.get_name().to_string())
        );
    }
    if config.is_timed() && config.concurrency > 1 {
        eprintln!("{}", timed_concurrency_warning("the event", config.concurrency));
    }
    let out = match args.out {
        Some(out) => out,
        None if !RunConfig::is_record(&args.config) => {
            let stem = args.config.file_stem().context("the config path has no file name")?;
            PathBuf::from("data/runs").join(stem)
        }
        None => PathBuf::from("data/runs").join(directory_slug(&config.name)),
    };
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::new(config.max_games() as u64);
        let style = ProgressStyle::with_template("{elapsed_precise} games {pos}/{len} {msg}")
            .context("progress template")?;
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(500));
        bar
    };
    let options = RunOptions { max_games_this_run: args.max_games };
    let summary = run_event(&config, &out, &options, &mut |p: &Progress| {
        bar.set_position(p.finished as u64);
        bar.set_message(progress_message(p));
    })?;
    bar.finish_and_clear();
    println!("{}", summary.report.to_markdown().trim_end());
    println!();
    println!(
        "{} games ({} resumed from the journal, {} played now) in {:.1} s; outputs in {}",
        summary.report.games,
        summary.resumed,
        summary.played,
        summary.wall_time.as_secs_f64(),
        summary.out_dir.display()
    );
    for (name, stats) in &summary.networks {
        println!(
            "{name}: {} positions in {} batches (mean {:.1}) for {} search requests, shared by the game threads",
            stats.positions,
            stats.batches,
            stats.mean_batch(),
            stats.requests
        );
    }
    Ok(())
}

fn scale_args(args: &EvalArgs) -> crate::scale_cmd::ScaleArgs {
    crate::scale_cmd::ScaleArgs {
        config: args.config.clone(),
        out: args.out.clone(),
        scale: args.scale.clone(),
        concurrency: args.concurrency,
        max_games: args.max_games,
        quiet: args.quiet,
    }
}

/// The warning for timed games played `concurrency` at a time: they share the CPU, so every
/// player searches for less than the time it is given (docs/EVAL.md, "Time controls").
pub fn timed_concurrency_warning(what: &str, concurrency: usize) -> String {
    format!(
        "warning: {what} plays {concurrency} timed games at once; they share the CPU and slow each \
         other's searches, so the players do not get the time they are given (concurrency = 1 \
         unless every player has a core of its own; docs/EVAL.md, \"Time controls\")"
    )
}

/// An event name made safe as one directory name: ASCII letters and digits kept (lowercased),
/// every other run of characters one `-`. A name is free text ("loop-small gate g015"), and a
/// `/` or `..` in it must not place the output elsewhere.
fn directory_slug(name: &str) -> String {
    let mut slug = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    while slug.ends_with('-') {
        slug.pop();
    }
    if slug.is_empty() { "event".to_string() } else { slug }
}

#[cfg(test)]
mod tests {
    use super::directory_slug;

    #[test]
    fn an_event_name_becomes_one_plain_directory_name() {
        assert_eq!(directory_slug("loop-small gate g015"), "loop-small-gate-g015");
        assert_eq!(directory_slug("Ladder: g015 vs d3"), "ladder-g015-vs-d3");
        assert_eq!(directory_slug("../../etc/passwd"), "etc-passwd");
        assert_eq!(directory_slug("  --  "), "event");
        assert_eq!(directory_slug("象棋"), "event");
    }
}
