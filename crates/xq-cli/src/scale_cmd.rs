//! `xq eval calibrate` and `xq eval rate`: the calibrated strength scale (xq-eval's
//! [`xq_eval::scale`]) from the command line.

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use xq_eval::scale::{
    PlayOptions, RateConfig, ScaleConfig, ScaleFile, ScaleProgress, calibrate as run_calibration,
};

/// The scale `xq eval rate` reads unless `--scale` names another.
pub const DEFAULT_SCALE_FILE: &str = "data/scale/anchors-v1.json";

/// What `calibrate` and `rate` take from `xq eval`'s arguments.
#[derive(Clone, Debug)]
pub struct ScaleArgs {
    /// The scale's or the rating's TOML configuration.
    pub config: PathBuf,
    /// Where the events go.
    pub out: Option<PathBuf>,
    /// The scale file.
    pub scale: Option<PathBuf>,
    /// Games at once.
    pub concurrency: Option<usize>,
    /// New games this run.
    pub max_games: Option<usize>,
    /// No progress line.
    pub quiet: bool,
}

fn stem(path: &Path) -> Result<String> {
    Ok(path.file_stem().context("the config path has no file name")?.to_string_lossy().into_owned())
}

fn progress_bar(quiet: bool) -> Result<ProgressBar> {
    if quiet {
        return Ok(ProgressBar::hidden());
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} {msg} games {pos}/{len}")
            .context("progress template")?,
    );
    bar.enable_steady_tick(Duration::from_millis(500));
    Ok(bar)
}

fn show(bar: &ProgressBar, p: &ScaleProgress) {
    bar.set_length(p.of as u64);
    bar.set_position(p.finished as u64);
    bar.set_message(format!("[{} before] {}", p.before, p.event));
}

fn play_options(args: &ScaleArgs) -> Result<PlayOptions> {
    if args.concurrency == Some(0) {
        bail!("--concurrency must be at least 1");
    }
    Ok(PlayOptions { concurrency: args.concurrency, max_new_games: args.max_games })
}

/// The command line that made a file, as it would be typed again.
fn command_line() -> String {
    let mut words: Vec<String> = std::env::args().collect();
    if let Some(first) = words.first_mut() {
        *first = "xq".to_string();
    }
    words.join(" ")
}

/// Runs `xq eval calibrate`.
pub fn calibrate(args: &ScaleArgs) -> Result<()> {
    let config = ScaleConfig::load(&args.config)?;
    let name = stem(&args.config)?;
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from("data/runs").join(&name));
    let scale_path =
        args.scale.clone().unwrap_or_else(|| PathBuf::from("data/scale").join(format!("{name}.json")));
    let options = play_options(args)?;
    if options.concurrency.unwrap_or(1) > 1 && config.anchors.iter().any(|a| a.own_limits().is_timed()) {
        eprintln!(
            "{}",
            crate::eval_cmd::timed_concurrency_warning("the calibration", options.concurrency.unwrap_or(1))
        );
    }
    let threads = options.concurrency.unwrap_or(1);
    let note = format!(
        "{} logical CPUs, {threads} game(s) at once; timed anchors are only as fast as the machine that played them",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let bar = progress_bar(args.quiet)?;
    let started = Instant::now();
    let calibration =
        run_calibration(&config, &out, &options, &command_line(), &note, &mut |p| show(&bar, p))?;
    bar.finish_and_clear();
    println!("{}", calibration.scale.to_markdown().trim_end());
    println!();
    if calibration.complete {
        calibration.scale.save(&scale_path)?;
        let md = scale_path.with_extension("md");
        xq_files::write_atomic(&md, calibration.scale.to_markdown().as_bytes())
            .with_context(|| format!("writing {}", md.display()))?;
        println!(
            "calibrated in {:.1} s ({} games played now); scale written to {} and {}; meetings in {}",
            started.elapsed().as_secs_f64(),
            calibration.played,
            scale_path.display(),
            md.display(),
            out.display()
        );
    } else {
        println!(
            "{} games played now in {:.1} s; the calibration is not finished, so {} was not written: rerun the same \
             command to go on",
            calibration.played,
            started.elapsed().as_secs_f64(),
            scale_path.display()
        );
    }
    Ok(())
}

/// Runs `xq eval rate`.
pub fn rate(args: &ScaleArgs) -> Result<()> {
    let config = RateConfig::load(&args.config)?;
    let scale_path = args.scale.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_SCALE_FILE));
    let scale = ScaleFile::load(&scale_path)?;
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("data/runs").join(format!(
            "rate-{}-on-{}",
            stem(&args.config).unwrap_or_default(),
            scale.name
        ))
    });
    let options = play_options(args)?;
    let bar = progress_bar(args.quiet)?;
    let started = Instant::now();
    let rating = xq_eval::scale::rate(&scale, &config, &out, &options, &mut |p| show(&bar, p))?;
    bar.finish_and_clear();
    let text = rating.to_markdown();
    println!("{}", text.trim_end());
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let json = serde_json::to_string_pretty(&rating)? + "\n";
    xq_files::write_atomic(&out.join("rating.json"), json.as_bytes()).context("writing rating.json")?;
    xq_files::write_atomic(&out.join("rating.md"), text.as_bytes()).context("writing rating.md")?;
    println!();
    println!(
        "{:.1} s; {}; outputs in {}",
        started.elapsed().as_secs_f64(),
        if rating.finished { "finished" } else { "not finished (rerun the same command to go on)" },
        out.display()
    );
    Ok(())
}
