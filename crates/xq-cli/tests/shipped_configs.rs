//! Every file in `configs/` parses and validates with the loader of the stage its name
//! prefix names (`eval-`, `loop-`, `selfplay-`, `train-`, `scale-`, `rate-`); a file with
//! another prefix is an error, so no shipped config goes unchecked.

use std::path::Path;

#[test]
fn every_shipped_config_loads_with_its_stage() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let mut counts = [0usize; 6];
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".toml") {
            continue;
        }
        let loaded = if name.starts_with("eval-") {
            counts[0] += 1;
            xq_eval::runner::RunConfig::load(&path).map(drop).map_err(|e| e.to_string())
        } else if name.starts_with("loop-") {
            counts[1] += 1;
            xq_loop::LoopConfig::load(&path).map(drop).map_err(|e| e.to_string())
        } else if name.starts_with("selfplay-") {
            counts[2] += 1;
            xq_selfplay::SelfplayConfig::load(&path).map(drop).map_err(|e| e.to_string())
        } else if name.starts_with("train-") {
            counts[3] += 1;
            xq_train::TrainConfig::load(&path).map(drop).map_err(|e| e.to_string())
        } else if name.starts_with("scale-") {
            counts[4] += 1;
            xq_eval::scale::ScaleConfig::load(&path).map(drop).map_err(|e| e.to_string())
        } else if name.starts_with("rate-") {
            counts[5] += 1;
            xq_eval::scale::RateConfig::load(&path).map(drop).map_err(|e| e.to_string())
        } else {
            Err("no stage reads this prefix".to_string())
        };
        if let Err(e) = loaded {
            panic!("configs/{name}: {e}");
        }
    }
    assert!(counts.iter().all(|&n| n > 0), "eval, loop, selfplay, train, scale, rate configs: {counts:?}");
}
