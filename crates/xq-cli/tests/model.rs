//! A checkpoint plays through the CLI: `xq selfplay --model` and a network (`mcts` player) in
//! `xq eval`, and a clear error for a path that holds no checkpoint.

use std::path::Path;
use std::process::{Command, Output};

use burn::tensor::Device;
use xq_nn::{ModelConfig, PolicyValueNet, save_checkpoint};

const XQ: &str = env!("CARGO_BIN_EXE_xq");
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn xq(args: &[&str]) -> Output {
    Command::new(XQ).current_dir(ROOT).args(args).output().expect("run the xq binary")
}

/// A freshly initialised tiny network saved as `dir/net`; returns its model id.
fn tiny_checkpoint(dir: &Path) -> String {
    let mut config = ModelConfig::new(1, 16);
    config.seed = 9;
    let net = PolicyValueNet::new(&config, &Device::flex()).unwrap();
    save_checkpoint(&net, &dir.join("net"), 0, None).unwrap().model_id
}

#[test]
fn selfplay_with_a_model_records_its_id() {
    let tmp = tempfile::tempdir().unwrap();
    let id = tiny_checkpoint(tmp.path());
    let out = tmp.path().join("shards");
    let model = tmp.path().join("net.json");
    let args = ["selfplay", "--config", "configs/selfplay-tiny.toml", "--games", "2", "--json"];
    let run =
        xq(&[&args[..], &["--model", model.to_str().unwrap(), "--out", out.to_str().unwrap()]].concat());
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let games = xq_data::read_games_dir(&out).unwrap().rows;
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g.model_red == id && g.model_black == id), "{:?}", games[0].model_red);
    let samples = xq_data::read_samples_dir(&out).unwrap().rows;
    assert!(!samples.is_empty() && samples.iter().all(|s| s.model_id == id));
}

#[test]
fn a_model_path_without_a_checkpoint_is_one_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nothing-here");
    let run = xq(&[
        "selfplay",
        "--config",
        "configs/selfplay-tiny.toml",
        "--model",
        missing.to_str().unwrap(),
        "--out",
        tmp.path().join("o").to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.starts_with("error: ") && stderr.contains("nothing-here"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn eval_plays_a_checkpoint_player() {
    let tmp = tempfile::tempdir().unwrap();
    tiny_checkpoint(tmp.path());
    let (run, out) = xq_testkit::run_xq_eval(
        XQ,
        tmp.path(),
        "gauntlet",
        "gauntlet",
        &format!(
            r#"name = "checkpoint vs random"
seed = 3
openings = 0
[format]
kind = "gauntlet"
pairs = 1
[adjudication]
max_plies = 40
[[players]]
kind = "mcts"
name = "net"
evaluator = {{ kind = "checkpoint", path = "{}" }}
visits = 8
[[players]]
kind = "random"
name = "random"
"#,
            tmp.path().display()
        ),
    );
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["games"], 2, "{report}");
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert!(!pgn.contains("forfeit"), "the checkpoint player loaded and played: {pgn}");
}
