//! Judges every rulebook case of `data/qili/cases.json` a number of times, for profilers
//! (`valgrind --tool=callgrind target/release/examples/qili_profile 3 [CASE-ID]`; with
//! `QILI_PROFILE_LIST=1` every case's time is listed). Prints the number
//! of judgements and, per case, the fastest run's time (median and worst over the cases).

use xq_core::qili::{RuleSet, judge_outcome};
use xq_core::{Position, notation::parse_move};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds: usize = std::env::args().nth(1).map_or(Ok(1), |s| s.parse())?;
    let only = std::env::args().nth(2);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/qili/cases.json");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let mut cases = Vec::new();
    for c in json["cases"].as_array().ok_or("no cases array")? {
        if only.as_deref().is_some_and(|id| c["id"].as_str() != Some(id)) {
            continue;
        }
        let mut pos = Position::from_fen(c["fen"].as_str().ok_or("fen")?)?;
        let (mut positions, mut moves) = (vec![pos], Vec::new());
        for m in c["moves"].as_array().ok_or("moves")? {
            let mv = parse_move(&pos, m.as_str().ok_or("move")?)?;
            pos = pos.after(mv);
            positions.push(pos);
            moves.push(mv);
        }
        cases.push((positions, moves, c["cycle_start_ply"].as_u64().ok_or("start")? as usize));
    }
    // Each case's fastest of `rounds` runs: the least disturbed by other work on the machine.
    let mut fastest = vec![f64::INFINITY; cases.len()];
    for _ in 0..rounds {
        for (i, (positions, moves, start)) in cases.iter().enumerate() {
            let t = std::time::Instant::now();
            judge_outcome(positions, moves, *start, RuleSet::Cxa2020)?;
            fastest[i] = fastest[i].min(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    if std::env::var_os("QILI_PROFILE_LIST").is_some() {
        for (t, c) in fastest.iter().zip(json["cases"].as_array().ok_or("no cases array")?) {
            println!("{:>9.1} µs  {}", t, c["id"].as_str().unwrap_or("?"));
        }
    }
    fastest.sort_by(f64::total_cmp);
    println!(
        "{} judgements; fastest run per case: median {:.1} µs, worst {:.1} µs",
        rounds * cases.len(),
        fastest[fastest.len() / 2],
        fastest[fastest.len() - 1]
    );
    Ok(())
}
