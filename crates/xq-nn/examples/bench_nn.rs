//! Inference and training throughput of the xq-nn network on the CPU (burn flex).
//!
//! ```sh
//! cargo run --release -p xq-nn --example bench_nn -- [--threads 1,2] [--nets 6x64,4x32]
//!     [--norms batch_norm,skip_init] [--seconds 1.0] [--reps 5]
//! ```
//!
//! Prints a markdown table in the same format as `scripts/bench_torch.sh`: inference
//! positions/s at batch 1, 16, 64, 256 (host array in, logits back on the host) and training
//! samples/s at batch 256 (one AdamW step), each the median of `reps` repetitions of about
//! `seconds`. Thread counts run in separate rayon pools, named in the table. Inference is
//! measured twice: run by burn, and by [`xq_nn::CpuNet`] (what search uses on the CPU).

use std::time::Instant;

use burn::tensor::Device;
use ndarray::{Array2, Array4};
use xq_nn::encoding::{BOARD_COLS, BOARD_ROWS, INPUT_PLANES};
use xq_nn::{
    BatchEvaluator, ModelConfig, OptimizerConfig, POLICY_SIZE, PolicyValueNet, TrainBatch, Trainer, TrunkNorm,
};

struct Args {
    threads: Vec<usize>,
    nets: Vec<(usize, usize)>,
    norms: Vec<TrunkNorm>,
    seconds: f64,
    reps: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        threads: vec![1, 2],
        nets: vec![(6, 64), (4, 32)],
        norms: vec![TrunkNorm::BatchNorm, TrunkNorm::SkipInit],
        seconds: 1.0,
        reps: 5,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let bad = |what: &str| format!("{flag}: cannot parse {what:?}");
        match flag.as_str() {
            "--threads" => {
                args.threads =
                    value.split(',').map(|t| t.parse().map_err(|_| bad(t))).collect::<Result<_, _>>()?
            }
            "--nets" => {
                args.nets = value
                    .split(',')
                    .map(|n| {
                        let (b, c) = n.split_once('x').ok_or_else(|| bad(n))?;
                        Ok((b.parse().map_err(|_| bad(n))?, c.parse().map_err(|_| bad(n))?))
                    })
                    .collect::<Result<_, String>>()?
            }
            "--norms" => {
                args.norms = value
                    .split(',')
                    .map(|n| match n {
                        "batch_norm" => Ok(TrunkNorm::BatchNorm),
                        "skip_init" => Ok(TrunkNorm::SkipInit),
                        _ => Err(bad(n)),
                    })
                    .collect::<Result<_, _>>()?
            }
            "--seconds" => args.seconds = value.parse().map_err(|_| bad(&value))?,
            "--reps" => args.reps = value.parse().map_err(|_| bad(&value))?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(args)
}

/// Median calls/s over `reps` repetitions of about `seconds` each, after one warm-up call.
fn timed(seconds: f64, reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let t0 = Instant::now();
    f();
    let once = t0.elapsed().as_secs_f64().max(1e-6);
    let iters = ((seconds / once) as usize).max(1);
    let mut rates: Vec<f64> = (0..reps.max(1))
        .map(|_| {
            let t0 = Instant::now();
            for _ in 0..iters {
                f();
            }
            iters as f64 / t0.elapsed().as_secs_f64()
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

/// Deterministic sparse 0/1 inputs with the constant plane set, like real encodings.
fn sample_inputs(batch: usize, seed: u64) -> Array4<f32> {
    let mut state = seed;
    Array4::from_shape_fn((batch, INPUT_PLANES, BOARD_ROWS, BOARD_COLS), |(_, p, _, _)| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        if p == INPUT_PLANES - 1 || (state >> 33).is_multiple_of(20) { 1.0 } else { 0.0 }
    })
}

/// burn's figures (inference and training) and the inference figures of [`xq_nn::CpuNet`].
fn bench(config: &ModelConfig, args: &Args) -> ([f64; 5], [f64; 4]) {
    let device = Device::flex();
    let mut out = [0.0; 5];
    let mut cpu = [0.0; 4];
    let net = match PolicyValueNet::new(config, &device) {
        Ok(net) => net,
        Err(e) => {
            eprintln!("{e}");
            return (out, cpu);
        }
    };
    let evaluator = BatchEvaluator::new(net.clone(), device.clone(), 0).expect("a network in memory freezes");
    for (slot, batch) in [1usize, 16, 64, 256].into_iter().enumerate() {
        let inputs = sample_inputs(batch, slot as u64);
        out[slot] = batch as f64
            * timed(args.seconds, args.reps, || {
                if let Err(e) = evaluator.burn_forward_logits(&inputs) {
                    eprintln!("{e}");
                }
            });
        cpu[slot] = batch as f64
            * timed(args.seconds, args.reps, || {
                if let Err(e) = evaluator.forward_logits(&inputs) {
                    eprintln!("{e}");
                }
            });
    }
    let batch = 256;
    let mut policy = Array2::<f32>::zeros((batch, POLICY_SIZE));
    let mut wdl = Array2::<f32>::zeros((batch, 3));
    for i in 0..batch {
        policy[[i, (i * 7) % POLICY_SIZE]] = 0.5;
        policy[[i, (i * 13 + 1) % POLICY_SIZE]] = 0.5;
        wdl[[i, i % 3]] = 1.0;
    }
    let train_batch = TrainBatch::new(sample_inputs(batch, 99), policy, wdl);
    match Trainer::new(net, OptimizerConfig::default(), &device.clone().autodiff()) {
        Ok(mut trainer) => {
            out[4] = batch as f64
                * timed(args.seconds, args.reps, || {
                    if let Err(e) = trainer.step(&train_batch) {
                        eprintln!("{e}");
                    }
                });
        }
        Err(e) => eprintln!("{e}"),
    }
    (out, cpu)
}

fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("bench_nn: {e}");
            std::process::exit(2);
        }
    };
    println!(
        "# burn 0.22.1 flex (simd, rayon, x86-v4), policy size {POLICY_SIZE}, median of {} x ~{}s",
        args.reps, args.seconds
    );
    println!(
        "| engine | net | trunk | threads | infer bs1 | bs16 | bs64 | bs256 (pos/s) | train bs256 (samples/s) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for &(blocks, channels) in &args.nets {
        for &norm in &args.norms {
            let config = ModelConfig::new(blocks, channels).with_trunk_norm(norm);
            for &threads in &args.threads {
                let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
                    Ok(pool) => pool,
                    Err(e) => {
                        eprintln!("bench_nn: thread pool: {e}");
                        std::process::exit(1);
                    }
                };
                let ((r, cpu), named) =
                    pool.install(|| (bench(&config, &args), rayon::current_num_threads()));
                let norm_name = match norm {
                    TrunkNorm::BatchNorm => "batch_norm",
                    TrunkNorm::SkipInit => "skip_init",
                };
                println!(
                    "| burn | {blocks}x{channels} | {norm_name} | {named} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} |",
                    r[0], r[1], r[2], r[3], r[4]
                );
                println!(
                    "| xq CpuNet | {blocks}x{channels} | {norm_name} | {named} | {:.0} | {:.0} | {:.0} | {:.0} | – |",
                    cpu[0], cpu[1], cpu[2], cpu[3]
                );
            }
        }
    }
}
