//! Prints a checkpoint's value and top policy moves for a few positions:
//! `cargo run --release -p xq-nn --example probe -- CHECKPOINT [FEN…]`.
use std::error::Error;
use std::path::Path;

use burn::tensor::Device;
use xq_core::HistoryFeatures;
use xq_core::Position;
use xq_nn::checkpoint::{load_checkpoint, resolve_checkpoint};
use xq_nn::evaluator::{BatchEvaluator, EvalRequest};

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(checkpoint) = args.first() else {
        return Err("usage: probe CHECKPOINT [FEN…]".into());
    };
    let stem = resolve_checkpoint(Path::new(checkpoint))?;
    let device = Device::flex();
    let (net, meta) = load_checkpoint(&stem, None, &device)?;
    println!("model {} ({})", meta.model_id, stem.display());
    let evaluator = BatchEvaluator::new(net, device, 0).expect("a network in memory freezes");
    let default_fens = [
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1",
        // black lacks both rooks
        "1nbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "1nbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1",
        // red lacks both rooks
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABN1 w - - 0 1",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABN1 b - - 0 1",
        // red cannon can take the black rook on h7 (hanging rook)
        "rnbakabn1/9/1c5cr/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        // black to move, the red rook on b2 faces the black cannon on b7 across an open file (no screen, no capture)
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1R5C1/9/1NBAKABNR b - - 0 1",
    ];
    let fens: Vec<String> = if args.len() > 1 {
        args[1..].to_vec()
    } else {
        default_fens.iter().map(|s| s.to_string()).collect()
    };
    for fen in fens {
        let position = Position::from_fen(&fen).map_err(|e| format!("{fen}: {e}"))?;
        let moves = position.legal_moves();
        let request = EvalRequest { position: &position, history: HistoryFeatures::default() };
        let result = evaluator.evaluate_batch(&[request], &[&moves[..]])?;
        let e = &result[0];
        let mut ranked: Vec<(usize, f32)> = e.priors.iter().copied().enumerate().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let top: Vec<String> =
            ranked.iter().take(5).map(|(i, p)| format!("{}:{:.2}", moves[*i], p)).collect();
        println!("{fen}\n  wdl {:.2?}  top {}", e.wdl, top.join(" "));
    }
    Ok(())
}
