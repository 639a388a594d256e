//! End-to-end test of `xq train` on data made by `xq selfplay`.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const XQ: &str = env!("CARGO_BIN_EXE_xq");

fn xq(args: &[&str]) -> Output {
    Command::new(XQ).args(args).output().expect("run the xq binary")
}

fn config_path(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs").join(name).display().to_string()
}

const SMALL_RUN: &str = r#"
[model]
blocks = 1
channels = 8
[optimizer]
learning_rate = 3e-3
warmup_steps = 2
schedule = "cosine"
[data]
batch_size = 32
[train]
steps = 6
checkpoint_every = 3
log_every = 2
seed = 5
"#;

#[test]
fn train_on_selfplay_data_then_resume_and_refuse_mistakes() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let data_s = data.display().to_string();
    let out = xq(&[
        "selfplay",
        "--config",
        &config_path("selfplay-tiny.toml"),
        "--games",
        "8",
        "--out",
        &data_s,
        "--json",
    ]);
    assert!(out.status.success(), "selfplay: {}", String::from_utf8_lossy(&out.stderr));

    let config = dir.path().join("small.toml");
    std::fs::write(&config, SMALL_RUN).unwrap();
    let config_s = config.display().to_string();
    let run = dir.path().join("run");
    let run_s = run.display().to_string();
    let args = ["train", "--config", &config_s, "--data", &data_s, "--out", &run_s, "--json"];
    let out = xq(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "train: {stderr}");
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert_eq!(summary["steps"], 6);
    assert!(summary["samples"].as_u64().unwrap() > 32, "{summary}");
    let checkpoint = summary["checkpoint"].as_str().unwrap();
    assert!(checkpoint.ends_with("step-00000006"), "{checkpoint}");
    assert!(Path::new(&format!("{checkpoint}.json")).exists());
    assert!(Path::new(&format!("{checkpoint}.bpk")).exists());
    assert_eq!(summary["model_id"].as_str().unwrap().len(), 16);
    for key in ["policy_loss", "value_loss", "policy_top1", "value_accuracy", "samples_per_sec"] {
        let v = summary[key].as_f64().unwrap_or_else(|| panic!("{key} in {summary}"));
        assert!(v.is_finite() && v >= 0.0, "{key} = {v}");
    }
    let csv = std::fs::read_to_string(run.join("metrics.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with("step,lr,policy_loss,value_loss,total_loss,policy_top1,value_accuracy"),
        "{csv}"
    );
    assert_eq!(
        lines.iter().skip(1).map(|l| l.split(',').next().unwrap()).collect::<Vec<_>>(),
        ["2", "4", "6"]
    );
    assert!(run.join("metrics.svg").exists() && run.join("metrics.png").exists());

    // The same --out again without --resume: refused, pointing at --resume.
    let out = xq(&args[..args.len() - 1]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--resume"), "{stderr}");

    // With --resume the finished run reports the same checkpoint without training.
    let mut resume = args.to_vec();
    resume.push("--resume");
    let out = xq(&resume);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again["checkpoint"], summary["checkpoint"]);
    assert_eq!(again["model_id"], summary["model_id"]);

    // A changed config on resume names the key.
    std::fs::write(&config, SMALL_RUN.replace("learning_rate = 3e-3", "learning_rate = 1e-3")).unwrap();
    let out = xq(&resume);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("optimizer.learning_rate"), "{stderr}");

    // A second run starts from the first one's weights.
    let run2 = dir.path().join("run2").display().to_string();
    std::fs::write(&config, SMALL_RUN).unwrap();
    let out = xq(&[
        "train",
        "--config",
        &config_s,
        "--data",
        &data_s,
        "--out",
        &run2,
        "--init",
        &format!("{checkpoint}.json"),
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn unknown_config_key_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bad.toml");
    std::fs::write(&config, "[model]\nblocks = 1\nchannels = 8\n[data]\nwindow = 10\n").unwrap();
    let out = xq(&[
        "train",
        "--config",
        &config.display().to_string(),
        "--data",
        &dir.path().display().to_string(),
        "--out",
        &dir.path().join("run").display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("window"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
