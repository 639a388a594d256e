//! A distributed run end to end, as separate processes: `xq loop --run URL` coordinates two
//! generations while three `xq worker` processes play; one worker is killed (SIGKILL) in the
//! middle of a batch. Then no sample is lost or counted twice, and nothing partial is visible.
//!
//! The run lives on the S3 server that `scripts/test.sh` starts on localhost (SeaweedFS, see
//! docs/STORAGE.md) when `XQ_S3_TEST=1`; otherwise in a `file://` directory, with the same
//! protocol. `XQ_REQUIRE_S3=1` makes a missing server an error instead.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use xq_data::{GameRecord, Sample};
use xq_store::Store;

fn xq() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xq"))
}

/// The run's location and whether it is on the S3 server.
fn run_location(local: &Path) -> (String, bool) {
    let s3 = std::env::var("XQ_S3_TEST").is_ok_and(|v| v == "1");
    if !s3 {
        assert!(
            !std::env::var("XQ_REQUIRE_S3").is_ok_and(|v| v == "1"),
            "XQ_REQUIRE_S3=1 but no S3 server: run `eval \"$(bash scripts/s3-server.sh start)\"` first"
        );
        return (format!("file://{}", local.join("run").display()), false);
    }
    let bucket = std::env::var("XQ_S3_BUCKET").unwrap_or_else(|_| "xq-test".to_string());
    let unique = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    (format!("s3://{bucket}/distributed-{unique}"), true)
}

fn test_config(dir: &Path) -> std::path::PathBuf {
    let text =
        std::fs::read_to_string(xq_testkit::workspace_file("configs/loop-distributed-tiny.toml")).unwrap();
    let book = xq_testkit::workspace_file("data/openings/openings.json");
    let mut config = xq_loop::LoopConfig::from_toml(&text).unwrap();
    config.selfplay.opening_book = book.to_string_lossy().into_owned();
    config.selfplay.games = 24;
    config.bootstrap.games = 24;
    config.bootstrap.teacher = Some(xq_selfplay::TeacherConfig { depth: 1, random_move_probability: 0.2 });
    config.search.visits = 8;
    config.search.fast_visits = 4;
    config.selfplay.max_plies = 80;
    config.train.train.steps = 10;
    config.train.train.checkpoint_every = 5;
    config.train.data.batch_size = 32;
    config.validation.games = 4;
    config.gate.pairs = 1;
    config.gate.limits = xq_eval::runner::Limits { visits: Some(4), ..Default::default() };
    config.gate.max_plies = 40;
    config.gate.threshold = xq_eval::events::GateThreshold::Score { min: 0.0 };
    config.gate.concurrency = 1;
    config.ladder.enabled = false;
    let path = dir.join("distributed.toml");
    std::fs::write(&path, config.to_toml()).unwrap();
    path
}

fn spawn_worker(run: &str, id: &str, cache: &Path) -> Child {
    xq().args([
        "worker",
        "--run",
        run,
        "--worker-id",
        id,
        "--batch-games",
        "2",
        "--json",
        "--wait-minutes",
        "2",
    ])
    .arg("--cache")
    .arg(cache)
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .expect("xq worker starts")
}

fn wait_with_deadline(child: &mut Child, deadline: Instant, what: &str) {
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what} did not finish in time");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn coordinator_and_three_workers_lose_nothing_when_a_worker_is_killed_mid_batch() {
    let dir = tempfile::tempdir().unwrap();
    let (run, on_s3) = run_location(dir.path());
    eprintln!("run at {run} ({})", if on_s3 { "S3 server" } else { "local files" });
    let config = test_config(dir.path());
    let deadline = Instant::now() + Duration::from_secs(900);

    let mut coordinator = xq()
        .args(["loop", "--json", "--poll-seconds", "0.2", "--idle-minutes", "5", "--run", &run])
        .arg("--config")
        .arg(&config)
        .arg("--cache")
        .arg(dir.path().join("coordinator"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("xq loop starts");
    let workers_cache = dir.path().join("workers");
    let mut survivors: Vec<(String, Child)> =
        ["w0", "w1"].iter().map(|id| (id.to_string(), spawn_worker(&run, id, &workers_cache))).collect();
    let mut victim = spawn_worker(&run, "w2", &workers_cache);

    // Kill w2 once it has committed three batches: it is then playing or uploading its next one.
    let store = Store::open_str(&run).unwrap();
    loop {
        let names = store.committed("selfplay/bootstrap").unwrap_or_default();
        if names.iter().filter(|n| n.starts_with("w2-")).count() >= 3 {
            break;
        }
        assert!(Instant::now() < deadline, "w2 never committed three batches");
        assert!(victim.try_wait().unwrap().is_none(), "w2 stopped by itself");
        std::thread::sleep(Duration::from_millis(5));
    }
    victim.kill().unwrap();
    victim.wait().unwrap();

    wait_with_deadline(&mut coordinator, deadline, "the coordinator");
    let out = coordinator.wait_with_output().unwrap();
    assert!(out.status.success(), "xq loop --run failed");
    let state: xq_loop::LoopState = serde_json::from_slice(&out.stdout).expect("the final state as JSON");
    let mut summaries = BTreeMap::new();
    for (id, mut worker) in survivors.drain(..) {
        wait_with_deadline(&mut worker, deadline, "a worker after the run finished");
        let out = worker.wait_with_output().unwrap();
        assert!(out.status.success(), "worker {id} failed");
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(summary["run_finished"], true, "{id} stops because the run is finished");
        summaries.insert(id, summary);
    }

    // The coordinator's record in storage is its final state.
    let stored: xq_loop::LoopState = serde_json::from_slice(&store.get("loop.json").unwrap()).unwrap();
    assert_eq!(stored, state);
    assert!(store.exists("finished.json").unwrap());
    assert_eq!(state.generations.len(), 2);
    assert!(state.generations.iter().all(|g| g.promoted.is_some()));

    // Every committed batch, in every label, reads back whole: the objects its manifest names
    // exist with the recorded length and SHA-256, and hold the rows the manifest counts.
    let mut committed: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for label in ["bootstrap", "g000", "g001"] {
        let collection = format!("selfplay/{label}");
        for manifest in store.manifests(&collection).unwrap() {
            let samples = dir.path().join("check-samples.parquet");
            let games = dir.path().join("check-games.parquet");
            store.read_object_to_file(manifest.entry("samples.parquet").unwrap(), &samples).unwrap();
            store.read_object_to_file(manifest.entry("games.parquet").unwrap(), &games).unwrap();
            let rows = xq_data::shard_row_count::<Sample>(&samples).unwrap();
            let game_rows = xq_data::shard_row_count::<GameRecord>(&games).unwrap();
            assert_eq!(manifest.meta["rows"], rows, "{collection}/{}", manifest.name);
            assert_eq!(manifest.meta["games"], game_rows, "{collection}/{}", manifest.name);
            assert_eq!(game_rows, 2, "a batch is whole: {collection}/{}", manifest.name);
            committed.insert(format!("{label}/{}", manifest.name), (rows, game_rows));
        }
    }

    // Each worker session's batches are numbered without a gap: nothing committed was lost,
    // and the killed worker lost at most the batch in hand. Surviving workers committed
    // exactly the batches they report.
    let mut by_session: BTreeMap<(String, String), Vec<u64>> = BTreeMap::new();
    for key in committed.keys() {
        let name = key.split_once('/').unwrap().1;
        let (prefix, batch) = name.rsplit_once("-b").unwrap();
        let (worker, session) = prefix.split_once('-').unwrap();
        by_session.entry((worker.to_string(), session.to_string())).or_default().push(batch.parse().unwrap());
    }
    for ((worker, session), mut batches) in by_session.clone() {
        batches.sort_unstable();
        assert_eq!(batches, (0..batches.len() as u64).collect::<Vec<_>>(), "{worker}-{session}");
        if let Some(summary) = summaries.get(&worker) {
            assert_eq!(summary["session"], session.as_str());
            assert_eq!(summary["batches"], batches.len() as u64, "{worker} committed what it reports");
        }
    }
    assert!(by_session.keys().any(|(w, _)| w == "w2"), "the killed worker committed batches before the kill");
    assert_eq!(by_session.len(), 3, "one session per worker");

    // Each batch is claimed by at most one generation, claimed batches are committed ones, and
    // the positions a generation trained on are exactly its batches' rows.
    let mut claimed = HashSet::new();
    for g in &state.generations {
        let selfplay = g.selfplay.as_ref().unwrap();
        assert!(!selfplay.shards.is_empty());
        let mut rows = 0;
        let mut games = 0;
        for shard in &selfplay.shards {
            assert!(claimed.insert(shard.clone()), "{shard} claimed twice");
            let (r, n) = committed.get(shard).unwrap_or_else(|| panic!("{shard} claimed but not committed"));
            rows += r;
            games += n;
        }
        assert_eq!(selfplay.positions, rows, "generation {}", g.generation);
        assert_eq!(selfplay.games, games, "generation {}", g.generation);
    }

    // The promoted models are whole artifacts the workers (and `--model URL`) can load.
    let accepted = store.committed("models/accepted").unwrap();
    assert!(accepted.contains(&"g000".to_string()));
    let model =
        xq_loop::remote::fetch_model(&format!("{run}/models/accepted"), &dir.path().join("fetch")).unwrap();
    assert!(xq_nn::resolve_checkpoint(&model).is_ok());
}
