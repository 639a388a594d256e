//! Play-time search speed: nodes a move of the MCTS player over a network at a fixed time a
//! move, for each number of leaves gathered per step (virtual loss) and each thread count.
//!
//! ```sh
//! cargo run --release -p xq-eval --example bench_search -- [--model models/run/accepted]
//!     [--net 4x32] [--movetime-ms 100] [--leaves 1,4,8,16,32] [--threads 1,2]
//!     [--games 6] [--plies 16] [--algorithm gumbel|puct] [--kernel avx2] [--precisions f32,int8]
//! ```
//!
//! Each setting plays `games` games of `plies` moves from the bundled book's first openings,
//! the player against itself as a match plays it (the same [`MctsPlayer`], tree reuse between
//! moves, `go movetime`), and prints per setting the median and mean nodes (simulations) a
//! move, the milliseconds a move, nodes per second and the mean batch the network was asked
//! for. Without `--model` the network is a fresh one of shape `--net` (its speed is a trained
//! one's; its trees are not). The thread count is the rayon pool the network's batches are
//! split over; the search itself runs on one thread. `--precisions` (default `f32`, and `int8`
//! where the CPU has AVX-512 VNNI) runs every setting once in each precision of the products.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use burn::tensor::Device;
use xq_core::GameRules;
use xq_mcts::{Algorithm, EvalBatch, EvalResults, Evaluator, SearchParams};
use xq_nn::{
    BatchEvaluator, CpuKernel, CpuPrecision, DEFAULT_CACHE_POSITIONS, ModelConfig, NetEvaluator,
    PolicyValueNet, TrunkNorm, load_checkpoint, resolve_checkpoint,
};
use xq_play::{Book, GameStart, MctsPlayer, Player, SearchLimits};

struct Args {
    model: Option<String>,
    net: (usize, usize),
    movetime_ms: u64,
    leaves: Vec<u32>,
    threads: Vec<usize>,
    games: usize,
    plies: usize,
    algorithm: Algorithm,
    kernel: Option<CpuKernel>,
    precisions: Vec<CpuPrecision>,
}

fn list<T: std::str::FromStr>(flag: &str, value: &str) -> Result<Vec<T>, String> {
    value.split(',').map(|v| v.parse().map_err(|_| format!("{flag}: cannot parse {v:?}"))).collect()
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        model: None,
        net: (4, 32),
        movetime_ms: 100,
        leaves: vec![1, 4, 8, 16, 32],
        threads: vec![1, 2],
        games: 6,
        plies: 16,
        algorithm: Algorithm::Gumbel,
        kernel: None,
        precisions: CpuPrecision::ALL.into_iter().filter(|p| p.is_supported()).collect(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let bad = || format!("{flag}: cannot parse {value:?}");
        match flag.as_str() {
            "--model" => args.model = Some(value),
            "--net" => {
                let (b, c) = value.split_once('x').ok_or_else(bad)?;
                args.net = (b.parse().map_err(|_| bad())?, c.parse().map_err(|_| bad())?);
            }
            "--movetime-ms" => args.movetime_ms = value.parse().map_err(|_| bad())?,
            "--leaves" => args.leaves = list(&flag, &value)?,
            "--threads" => args.threads = list(&flag, &value)?,
            "--games" => args.games = value.parse().map_err(|_| bad())?,
            "--plies" => args.plies = value.parse().map_err(|_| bad())?,
            "--algorithm" => {
                args.algorithm = match value.as_str() {
                    "gumbel" => Algorithm::Gumbel,
                    "puct" => Algorithm::Puct,
                    _ => return Err(bad()),
                }
            }
            "--kernel" => match CpuKernel::from_name(&value) {
                Some(kernel) if kernel.is_supported() => args.kernel = Some(kernel),
                _ => return Err(format!("{flag}: this CPU has no kernel {value:?}")),
            },
            "--precisions" => {
                args.precisions = value
                    .split(',')
                    .map(|name| match CpuPrecision::from_name(name) {
                        Some(precision) if precision.is_supported() => Ok(precision),
                        _ => Err(format!("{flag}: this CPU cannot run precision {name:?}")),
                    })
                    .collect::<Result<_, _>>()?
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(args)
}

/// Counts the positions and batches the search asks for, around the network.
struct Counting {
    inner: NetEvaluator,
    batches: Arc<AtomicU64>,
    positions: Arc<AtomicU64>,
}

impl Evaluator for Counting {
    fn preferred_batch_size(&self) -> usize {
        self.inner.preferred_batch_size()
    }

    fn evaluate(&mut self, batch: &EvalBatch, out: &mut EvalResults) -> Result<(), xq_mcts::EvalError> {
        self.batches.fetch_add(1, Ordering::Relaxed);
        self.positions.fetch_add(batch.len() as u64, Ordering::Relaxed);
        self.inner.evaluate(batch, out)
    }
}

/// What one setting measured.
struct Measured {
    nodes: Vec<u32>,
    millis: Vec<f64>,
    batches: u64,
    positions: u64,
}

/// The network on the CPU with the cache a match gives it; a fresh one (fresh cache) for each
/// setting, so that no setting finds the positions of the one before in the cache.
fn network(args: &Args, precision: CpuPrecision) -> Result<NetEvaluator, String> {
    let device = Device::flex();
    let net = match &args.model {
        Some(path) => {
            let stem = resolve_checkpoint(std::path::Path::new(path)).map_err(|e| format!("{path}: {e}"))?;
            load_checkpoint(&stem, None, &device).map_err(|e| format!("{path}: {e}"))?.0
        }
        None => {
            let config = ModelConfig::new(args.net.0, args.net.1).with_trunk_norm(TrunkNorm::SkipInit);
            PolicyValueNet::new(&config, &device).map_err(|e| e.to_string())?
        }
    };
    let mut batch = BatchEvaluator::new(net, device, DEFAULT_CACHE_POSITIONS).map_err(|e| e.to_string())?;
    if let Some(kernel) = args.kernel {
        batch = batch.with_cpu_kernel(kernel).map_err(|e| e.to_string())?;
    }
    batch = batch.with_cpu_precision(precision).map_err(|e| e.to_string())?;
    Ok(NetEvaluator::new(Arc::new(batch), 1))
}

fn measure(args: &Args, leaves: u32, precision: CpuPrecision) -> Result<Measured, String> {
    let base = network(args, precision)?;
    let (batches, positions) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let counting = Counting { inner: base, batches: Arc::clone(&batches), positions: Arc::clone(&positions) };
    let params =
        SearchParams { algorithm: args.algorithm, leaves_per_step: leaves, ..SearchParams::default() };
    let mut player = MctsPlayer::new("bench", Box::new(counting), params).map_err(|e| e.to_string())?;
    let limits = SearchLimits::movetime(Duration::from_millis(args.movetime_ms));
    let openings = Book::bundled().playable().map_err(|e| e.to_string())?;
    let (mut nodes, mut millis) = (Vec::new(), Vec::new());
    for (index, opening) in openings.iter().cycle().take(args.games).enumerate() {
        let mut game = opening.game(GameRules::default());
        let start =
            GameStart { color: game.position().side_to_move(), seed: index as u64, game_index: index };
        player.new_game(&game, start).map_err(|e| e.to_string())?;
        for _ in 0..args.plies {
            if game.outcome().is_some() {
                break;
            }
            let t0 = Instant::now();
            let choice = player.choose_move(&game, &limits).map_err(|e| e.to_string())?;
            millis.push(t0.elapsed().as_secs_f64() * 1e3);
            nodes.push(choice.visits.unwrap_or(0));
            game.play(choice.mv).map_err(|e| e.to_string())?;
        }
    }
    Ok(Measured {
        nodes,
        millis,
        batches: batches.load(Ordering::Relaxed),
        positions: positions.load(Ordering::Relaxed),
    })
}

fn median<T: Copy + PartialOrd>(values: &[T]) -> Option<T> {
    let mut sorted = values.to_vec();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    sorted.get(sorted.len() / 2).copied()
}

fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("bench_search: {e}");
            std::process::exit(2);
        }
    };
    let kernel = match network(&args, CpuPrecision::F32) {
        Ok(base) => base.network().cpu_kernel(),
        Err(e) => {
            eprintln!("bench_search: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "# {} ({}), {:?} at {} ms a move, {} games x {} plies, kernel {}",
        args.model.as_deref().unwrap_or("fresh network"),
        if args.model.is_some() {
            String::from("checkpoint")
        } else {
            format!("{}x{}", args.net.0, args.net.1)
        },
        args.algorithm,
        args.movetime_ms,
        args.games,
        args.plies,
        kernel.map_or("burn", CpuKernel::name),
    );
    println!(
        "| precision | threads | leaves | nodes/move (median) | mean | ms/move | nodes/s | mean batch |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for &threads in &args.threads {
        let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => pool,
            Err(e) => {
                eprintln!("bench_search: thread pool: {e}");
                std::process::exit(1);
            }
        };
        for (&precision, &leaves) in
            args.precisions.iter().flat_map(|p| args.leaves.iter().map(move |l| (p, l)))
        {
            let measured = match pool.install(|| measure(&args, leaves, precision)) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("bench_search: {e}");
                    std::process::exit(1);
                }
            };
            let moves = measured.nodes.len().max(1) as f64;
            let total_nodes: f64 = measured.nodes.iter().map(|&n| f64::from(n)).sum();
            let total_ms: f64 = measured.millis.iter().sum();
            println!(
                "| {} | {threads} | {leaves} | {} | {:.0} | {:.1} | {:.0} | {:.1} |",
                precision.name(),
                median(&measured.nodes).unwrap_or(0),
                total_nodes / moves,
                total_ms / moves,
                total_nodes / (total_ms / 1e3).max(1e-9),
                measured.positions as f64 / measured.batches.max(1) as f64,
            );
        }
    }
}
