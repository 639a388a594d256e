//! What the int8 products cost a trained network: its scores on a validation set in `f32`
//! and in int8, as search runs it (`xq_nn::CpuNet`), and how often the two pick the same move.
//!
//! ```sh
//! cargo run --release -p xq-train --example precision -- --model models/loop-small/accepted \
//!     --data models/loop-small/validation
//! ```
//!
//! `--data` is a directory of samples (a loop's fixed validation set, or any `xq selfplay`
//! output); every sample is scored. Prints a markdown table: policy loss, value loss, policy
//! top-1 and value accuracy for each precision, and the share of positions whose best move the
//! int8 network keeps.

use std::path::PathBuf;
use std::process::ExitCode;

use burn::tensor::Device;
use xq_nn::{CpuNet, CpuPrecision, load_checkpoint, resolve_checkpoint};
use xq_train::dataset::Selection;
use xq_train::{DataSection, Dataset, ValidationSet};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("precision: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let (mut model, mut data) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--model" => model = Some(PathBuf::from(value)),
            "--data" => data = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown option {flag} (--model CHECKPOINT --data DIR)")),
        }
    }
    let (model, data) = model.zip(data).ok_or("--model CHECKPOINT and --data DIR are needed")?;
    let device = Device::flex();
    let stem = resolve_checkpoint(&model).map_err(|e| e.to_string())?;
    let (net, meta) = load_checkpoint(&stem, None, &device).map_err(|e| e.to_string())?;
    let exact = CpuNet::from_net(&net).map_err(|e| e.to_string())?;
    let int8 = exact.clone().with_precision(CpuPrecision::Int8).map_err(|e| e.to_string())?;

    let settings = DataSection::default();
    let set = ValidationSet::fixed(&data, &settings).map_err(|e| e.to_string())?;
    println!("# {} ({}), {} samples of {}", stem.display(), meta.model_id, set.len(), data.display());
    println!("| precision | policy loss | value loss | policy top-1 | value accuracy |");
    println!("|---|---|---|---|---|");
    for net in [&exact, &int8] {
        let score = set.score_frozen(net, 0).map_err(|e| e.to_string())?;
        println!(
            "| {} | {:.4} | {:.4} | {:.2}% | {:.2}% |",
            net.precision().name(),
            score.policy_loss,
            score.value_loss,
            100.0 * score.policy_top1,
            100.0 * score.value_accuracy
        );
    }

    let dataset = Dataset::load_selected(std::slice::from_ref(&data), &settings, Selection::All)
        .map_err(|e| e.to_string())?;
    let (mut same, mut total) = (0usize, 0usize);
    let indices: Vec<(usize, bool)> = (0..dataset.len()).map(|i| (i, false)).collect();
    for chunk in indices.chunks(256) {
        let batch = dataset.batch(chunk);
        let inputs = batch.inputs.as_standard_layout();
        let flat = inputs.as_slice().unwrap_or_default();
        let (p, _) = exact.forward(flat).map_err(|e| e.to_string())?;
        let (q, _) = int8.forward(flat).map_err(|e| e.to_string())?;
        for (a, b) in p.outer_iter().zip(q.outer_iter()) {
            let best = |row: ndarray::ArrayView1<'_, f32>| {
                row.iter().enumerate().fold((0, f32::MIN), |m, (i, &v)| if v > m.1 { (i, v) } else { m }).0
            };
            same += usize::from(best(a) == best(b));
            total += 1;
        }
    }
    println!(
        "\nint8 keeps the f32 network's highest-logit move on {same} of {total} positions ({:.2}%).",
        100.0 * same as f64 / total.max(1) as f64
    );
    Ok(())
}
