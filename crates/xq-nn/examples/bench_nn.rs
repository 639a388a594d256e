//! Inference and training throughput of the xq-nn network on the CPU (burn flex).
//!
//! ```sh
//! cargo run --release -p xq-nn --example bench_nn -- [--threads 1,2] [--nets 6x64,4x32]
//!     [--norms batch_norm,skip_init] [--seconds 1.0] [--reps 5]
//!     [--kernels portable,avx2,avx512] [--precisions f32,int8] [--engines burn,cpunet,host]
//! ```
//!
//! Prints a markdown table in the same format as `scripts/bench_torch.sh`: inference
//! positions/s at batch 1, 16, 64, 256 (host array in, logits back on the host) and training
//! samples/s at batch 256 (one AdamW step), each the median of `reps` repetitions of about
//! `seconds`. Thread counts run in separate rayon pools, named in the table. Inference is
//! measured by burn and by [`xq_nn::CpuNet`] (what search uses on the CPU), once for each of its
//! kernels in `--kernels` (default: every one this CPU runs; the fastest is what search gets),
//! and in 8 bits when `--precisions` has `int8` (default where the CPU has AVX-512 VNNI).
//! Training is measured with burn's autodiff (the `burn` row) and with the host gradient pass
//! (`xq host gradients`, what `Trainer` uses on the CPU); both apply burn's AdamW.
//! `--engines` picks the rows: `burn`, `cpunet` (inference) and `host` (training).

use std::time::Instant;

use burn::module::Module;
use burn::tensor::Device;
use ndarray::{Array2, Array4};
use xq_nn::encoding::{BOARD_COLS, BOARD_ROWS, INPUT_PLANES};
use xq_nn::{
    BatchEvaluator, CpuKernel, CpuNet, CpuPrecision, GradientEngine, ModelConfig, OptimizerConfig,
    POLICY_SIZE, PolicyValueNet, TrainBatch, Trainer, TrunkNorm,
};

struct Args {
    threads: Vec<usize>,
    nets: Vec<(usize, usize)>,
    norms: Vec<TrunkNorm>,
    seconds: f64,
    reps: usize,
    kernels: Vec<CpuKernel>,
    int8: bool,
    burn: bool,
    cpunet: bool,
    host: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        threads: vec![1, 2],
        nets: vec![(6, 64), (4, 32)],
        norms: vec![TrunkNorm::BatchNorm, TrunkNorm::SkipInit],
        seconds: 1.0,
        reps: 5,
        kernels: CpuKernel::ALL.into_iter().filter(|k| k.is_supported()).collect(),
        int8: CpuPrecision::Int8.is_supported(),
        burn: true,
        cpunet: true,
        host: true,
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
            "--precisions" => {
                let mut int8 = false;
                for name in value.split(',') {
                    match CpuPrecision::from_name(name) {
                        Some(CpuPrecision::Int8) if CpuPrecision::Int8.is_supported() => int8 = true,
                        Some(CpuPrecision::Int8) => {
                            return Err("this CPU has no AVX-512 VNNI for int8".into());
                        }
                        Some(CpuPrecision::F32) => {}
                        None => return Err(bad(name)),
                    }
                }
                args.int8 = int8;
            }
            "--kernels" => {
                args.kernels = value
                    .split(',')
                    .map(|k| match CpuKernel::from_name(k) {
                        Some(kernel) if kernel.is_supported() => Ok(kernel),
                        Some(_) => Err(format!("{flag}: this CPU cannot run {k}")),
                        None => Err(bad(k)),
                    })
                    .collect::<Result<_, _>>()?
            }
            "--engines" => {
                let engines: Vec<&str> = value.split(',').collect();
                if let Some(other) = engines.iter().find(|e| !matches!(**e, "burn" | "cpunet" | "host")) {
                    return Err(bad(other));
                }
                args.burn = engines.contains(&"burn");
                args.cpunet = engines.contains(&"cpunet");
                args.host = engines.contains(&"host");
            }
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

const BATCHES: [usize; 4] = [1, 16, 64, 256];

/// burn's figures (inference and training; `None` with `--engines cpunet`) and the inference
/// Positions/s at each of [`BATCHES`], under a name.
type NamedRates = (String, [f64; 4]);

/// figures of [`xq_nn::CpuNet`] on each kernel of `args.kernels` and in int8, named, and the
/// training samples/s of the host gradient pass.
fn bench(config: &ModelConfig, args: &Args) -> (Option<[f64; 5]>, Vec<NamedRates>, Option<f64>) {
    let device = Device::flex();
    let net = match PolicyValueNet::new(config, &device) {
        Ok(net) => net,
        Err(e) => {
            eprintln!("{e}");
            return (None, Vec::new(), None);
        }
    };
    let inputs: Vec<Array4<f32>> =
        BATCHES.iter().enumerate().map(|(slot, &batch)| sample_inputs(batch, slot as u64)).collect();
    let frozen = CpuNet::from_net(&net.clone().valid()).expect("a network in memory freezes");
    let mut variants: Vec<(String, CpuNet)> = args
        .kernels
        .iter()
        .map(|&kernel| {
            (
                kernel.name().to_string(),
                frozen.clone().with_kernel(kernel).expect("kernels are checked when parsed"),
            )
        })
        .collect();
    if args.int8 {
        let int8 = frozen.clone().with_precision(CpuPrecision::Int8).expect("int8 is checked when parsed");
        variants.push((format!("int8 ({} stem)", int8.kernel().name()), int8));
    }
    if !args.cpunet {
        variants.clear();
    }
    let cpu = variants
        .into_iter()
        .map(|(name, frozen)| {
            let mut rates = [0.0; 4];
            for ((rate, batch), inputs) in rates.iter_mut().zip(BATCHES).zip(&inputs) {
                let flat = inputs.as_slice().expect("standard layout");
                *rate = batch as f64
                    * timed(args.seconds, args.reps, || {
                        if let Err(e) = frozen.forward(flat) {
                            eprintln!("{e}");
                        }
                    });
            }
            (name, rates)
        })
        .collect();
    let batch = 256;
    let mut policy = Array2::<f32>::zeros((batch, POLICY_SIZE));
    let mut wdl = Array2::<f32>::zeros((batch, 3));
    for i in 0..batch {
        policy[[i, (i * 7) % POLICY_SIZE]] = 0.5;
        policy[[i, (i * 13 + 1) % POLICY_SIZE]] = 0.5;
        wdl[[i, i % 3]] = 1.0;
    }
    let train_batch = TrainBatch::new(sample_inputs(batch, 99), policy, wdl);
    let train = |engine: GradientEngine| match Trainer::new(
        net.clone(),
        OptimizerConfig::default(),
        &device.clone().autodiff(),
    ) {
        Ok(trainer) => {
            let mut trainer = trainer.with_gradients(engine);
            batch as f64
                * timed(args.seconds, args.reps, || {
                    if let Err(e) = trainer.step(&train_batch) {
                        eprintln!("{e}");
                    }
                })
        }
        Err(e) => {
            eprintln!("{e}");
            0.0
        }
    };
    let host = args.host.then(|| train(GradientEngine::Host));
    if !args.burn {
        return (None, cpu, host);
    }
    let mut out = [0.0; 5];
    let evaluator = BatchEvaluator::new(net.clone(), device.clone(), 0).expect("a network in memory freezes");
    for ((rate, batch), inputs) in out.iter_mut().zip(BATCHES).zip(&inputs) {
        *rate = batch as f64
            * timed(args.seconds, args.reps, || {
                if let Err(e) = evaluator.burn_forward_logits(inputs) {
                    eprintln!("{e}");
                }
            });
    }
    out[4] = train(GradientEngine::Burn);
    (Some(out), cpu, host)
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
                let ((r, cpu, host), named) =
                    pool.install(|| (bench(&config, &args), rayon::current_num_threads()));
                let norm_name = match norm {
                    TrunkNorm::BatchNorm => "batch_norm",
                    TrunkNorm::SkipInit => "skip_init",
                };
                if let Some(r) = r {
                    println!(
                        "| burn | {blocks}x{channels} | {norm_name} | {named} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} |",
                        r[0], r[1], r[2], r[3], r[4]
                    );
                }
                for (name, c) in &cpu {
                    println!(
                        "| xq CpuNet {name} | {blocks}x{channels} | {norm_name} | {named} | {:.0} | {:.0} | {:.0} | {:.0} | – |",
                        c[0], c[1], c[2], c[3]
                    );
                }
                if let Some(host) = host {
                    println!(
                        "| xq host gradients | {blocks}x{channels} | {norm_name} | {named} | – | – | – | – | {host:.0} |"
                    );
                }
            }
        }
    }
}
