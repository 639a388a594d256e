//! Every scenario runs twice: on the local file system (always) and against an S3 server when
//! one is configured (`XQ_S3_TEST=1` or `AWS_ENDPOINT_URL` set, as `scripts/s3-server.sh start`
//! does; bucket `XQ_S3_BUCKET`, default `xq-test`). Without a server the S3 variants print a
//! skip line and pass.
//!
//! Some scenarios run this test binary again as child processes (the ignored test
//! `child_process_entry`, steered by `XQ_STORE_CHILD`), to race and to be killed.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use xq_store::{GcOptions, Store, StoreError, StoreUrl};

// ---------------------------------------------------------------------------------------------
// Where the scenarios run.

fn s3_enabled() -> bool {
    std::env::var("XQ_S3_TEST").is_ok_and(|v| v == "1")
        || std::env::var("AWS_ENDPOINT_URL").is_ok()
        || std::env::var("XQ_STORE_TEST_URL").is_ok()
}

/// A fresh prefix in the test bucket, or `None` (after a skip line on the real stderr, which
/// the test harness does not capture) when no server is configured. `XQ_STORE_TEST_URL`
/// (e.g. `az://xq-test` against Azurite) runs the same scenarios on another backend.
fn s3_root(test: &str) -> Option<StoreUrl> {
    if !s3_enabled() {
        let _ = writeln!(
            std::io::stderr(),
            "skipped: {test} against S3 (no server configured: run `eval \"$(bash scripts/s3-server.sh start)\"` \
             or set XQ_S3_TEST=1 with AWS_* variables)"
        );
        return None;
    }
    let base = std::env::var("XQ_STORE_TEST_URL").unwrap_or_else(|_| {
        format!("s3://{}", std::env::var("XQ_S3_BUCKET").unwrap_or_else(|_| "xq-test".to_string()))
    });
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    let url = format!("{}/tests/{test}-{}-{nanos}", base.trim_end_matches('/'), std::process::id());
    Some(StoreUrl::parse(&url).unwrap())
}

macro_rules! on_both_backends {
    ($($scenario:ident),* $(,)?) => {
        mod local {
            $(
                #[test]
                fn $scenario() {
                    let dir = tempfile::tempdir().unwrap();
                    super::$scenario(&xq_store::StoreUrl::from_path(dir.path()).unwrap());
                }
            )*
        }
        mod s3 {
            $(
                #[test]
                fn $scenario() {
                    if let Some(url) = super::s3_root(stringify!($scenario)) {
                        super::$scenario(&url);
                    }
                }
            )*
        }
    };
}

on_both_backends!(
    objects_round_trip,
    one_store_serves_many_threads,
    put_new_has_one_winner_among_threads,
    put_new_has_one_winner_among_processes,
    large_files_go_up_in_parts,
    artifacts_commit_read_promote_and_retire,
    a_second_writer_of_a_name_loses_and_leaves_nothing,
    readers_during_concurrent_commits_see_only_whole_artifacts,
    a_writer_killed_before_its_manifest_leaves_nothing_visible,
    an_upload_killed_midway_is_absent_or_whole,
    garbage_collection_refuses_a_short_age,
);

// ---------------------------------------------------------------------------------------------
// Helpers.

/// Deterministic bytes for `seed` (xorshift), so a reader can check content independently.
fn content(seed: &str, len: usize) -> Vec<u8> {
    let mut x =
        seed.bytes().fold(0x9e37_79b9_7f4a_7c15u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Runs this test binary as a child playing `role` against `url`.
fn child(role: &str, url: &StoreUrl, args: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", "child_process_entry", "--ignored", "--nocapture", "--test-threads=1", "-q"])
        .env("XQ_STORE_CHILD", role)
        .env("XQ_STORE_CHILD_URL", url.to_string())
        .env("XQ_STORE_CHILD_ARGS", args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    command
}

/// Lines a child printed that start with `tag`, without the tag.
fn tagged(output: &str, tag: &str) -> Vec<String> {
    output.lines().filter_map(|l| l.strip_prefix(tag)).map(str::to_string).collect()
}

// ---------------------------------------------------------------------------------------------
// Scenarios.

fn objects_round_trip(url: &StoreUrl) {
    let store = Store::open(url).unwrap();
    assert_eq!(store.list("").unwrap(), vec![]);
    assert_eq!(store.list("missing/prefix").unwrap(), vec![]);
    assert!(matches!(store.get("a/x"), Err(StoreError::NotFound { .. })));
    assert_eq!(store.get_opt("a/x").unwrap(), None);
    assert_eq!(store.head("a/x").unwrap(), None);

    store.put("a/x", &b"first"[..]).unwrap();
    store.put("a/x", &b"second"[..]).unwrap();
    store.put("a/y.json", &b"{}"[..]).unwrap();
    store.put("ab/z", &b"z"[..]).unwrap();
    store.put("a/deeper/w", &b"w"[..]).unwrap();
    assert_eq!(&store.get("a/x").unwrap()[..], b"second");
    assert!(store.exists("a/x").unwrap());
    let head = store.head("a/x").unwrap().unwrap();
    assert_eq!((head.key.as_str(), head.size), ("a/x", 6));
    assert_eq!(&store.get_range("a/x", 1..4).unwrap()[..], b"eco");

    let keys = |prefix: &str| store.list(prefix).unwrap().into_iter().map(|o| o.key).collect::<Vec<_>>();
    assert_eq!(keys("a"), ["a/deeper/w", "a/x", "a/y.json"]);
    assert_eq!(keys(""), ["a/deeper/w", "a/x", "a/y.json", "ab/z"]);

    // A sub-store sees the same objects under shorter keys.
    let sub = store.at("a").unwrap();
    assert_eq!(&sub.get("deeper/w").unwrap()[..], b"w");
    assert_eq!(sub.list("").unwrap().len(), 3);

    store.delete("a/x").unwrap();
    store.delete("a/x").unwrap();
    assert!(!store.exists("a/x").unwrap());
    assert!(matches!(store.get("../x"), Err(StoreError::Url(_))));
    store.check_create_if_absent().unwrap();
    assert_eq!(store.list(".xq-probe").unwrap(), vec![]);

    // Downloads replace the target atomically and report what they wrote.
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("w.bin");
    let (size, sha) = store.get_to_file("a/deeper/w", &target).unwrap();
    assert_eq!((size, std::fs::read(&target).unwrap()), (1, b"w".to_vec()));
    assert_eq!(sha.len(), 64);
    assert!(store.get_to_file("a/missing", &target).is_err());
    assert_eq!(std::fs::read(&target).unwrap(), b"w");
}

fn one_store_serves_many_threads(url: &StoreUrl) {
    // Threads take turns driving the store's single-threaded runtime.
    let store = Store::open(url).unwrap();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let store = &store;
            scope.spawn(move || {
                for i in 0..10 {
                    let key = format!("shared/{t}/{i}");
                    store.put(&key, content(&key, 10_000)).unwrap();
                    assert!(store.get(&key).unwrap() == content(&key, 10_000));
                }
            });
        }
    });
    assert_eq!(store.list("shared").unwrap().len(), 40);
}

fn put_new_has_one_winner_among_threads(url: &StoreUrl) {
    // SeaweedFS makes contended conditional puts of one key wait in 1 s steps: few keys.
    const THREADS: usize = 4;
    const KEYS: usize = 6;
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (url, barrier) = (url.clone(), barrier.clone());
            std::thread::spawn(move || {
                // Its own store: its own runtime and connections, as another process would have.
                let store = Store::open(&url).unwrap();
                (0..KEYS)
                    .map(|k| {
                        barrier.wait();
                        store.put_new(&format!("race/{k}"), format!("thread {t}").into_bytes()).unwrap()
                    })
                    .collect::<Vec<bool>>()
            })
        })
        .collect();
    let won: Vec<Vec<bool>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let store = Store::open(url).unwrap();
    for k in 0..KEYS {
        let winners: Vec<usize> = won.iter().enumerate().filter(|(_, w)| w[k]).map(|(t, _)| t).collect();
        assert_eq!(winners.len(), 1, "key {k}: winners {winners:?}");
        let body = store.get(&format!("race/{k}")).unwrap();
        assert_eq!(body, format!("thread {}", winners[0]).as_bytes(), "key {k}");
    }
}

fn put_new_has_one_winner_among_processes(url: &StoreUrl) {
    const PROCESSES: usize = 3;
    const KEYS: usize = 20;
    // All children start at one instant, so their requests for each key overlap.
    let start = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() + 1500;
    let children: Vec<_> = (0..PROCESSES)
        .map(|p| child("put-new", url, &format!("{p} {KEYS} {start}")).spawn().unwrap())
        .collect();
    let mut winners: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (p, child) in children.into_iter().enumerate() {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "child {p} failed");
        for key in tagged(&String::from_utf8_lossy(&output.stdout), "WON ") {
            winners.entry(key).or_default().push(p);
        }
    }
    let store = Store::open(url).unwrap();
    for k in 0..KEYS {
        let key = format!("race/{k}");
        let w = winners.get(&key).cloned().unwrap_or_default();
        assert_eq!(w.len(), 1, "{key}: winners {w:?}");
        assert_eq!(store.get(&key).unwrap(), format!("process {}", w[0]).as_bytes());
    }
}

fn large_files_go_up_in_parts(url: &StoreUrl) {
    // 5 MiB parts (S3's minimum) above a 6 MiB threshold: a 13 MiB file is three parts.
    let store = Store::open(url).unwrap().with_multipart(6 << 20, 5 << 20);
    let dir = tempfile::tempdir().unwrap();
    for (name, len) in [("small.bin", 100_000), ("large.bin", (13 << 20) + 12_345)] {
        let source = dir.path().join(name);
        let bytes = content(name, len);
        std::fs::write(&source, &bytes).unwrap();
        let (size, sha) = store.put_file(&format!("files/{name}"), &source).unwrap();
        assert_eq!(size, len as u64);
        let back = dir.path().join(format!("{name}.back"));
        assert_eq!(store.get_to_file(&format!("files/{name}"), &back).unwrap(), (size, sha));
        assert!(std::fs::read(&back).unwrap() == bytes, "{name} differs");
        assert_eq!(store.head(&format!("files/{name}")).unwrap().unwrap().size, len as u64);
    }
}

fn artifacts_commit_read_promote_and_retire(url: &StoreUrl) {
    let store = Store::open(url).unwrap();
    assert_eq!(store.committed("candidates").unwrap(), Vec::<String>::new());

    let dir = tempfile::tempdir().unwrap();
    let weights = dir.path().join("model.bpk");
    std::fs::write(&weights, content("weights", 300_000)).unwrap();
    let mut writer = store.artifact("candidates", "g001").unwrap();
    writer.put("model.json", &b"{\"blocks\": 6}"[..]).unwrap();
    writer.put_file("model.bpk", &weights).unwrap();
    assert!(writer.put("model.json", &b"again"[..]).is_err(), "a file twice in one artifact");
    // Nothing is visible before the commit.
    assert!(!store.is_committed("candidates", "g001").unwrap());
    let manifest = writer.commit(serde_json::json!({ "steps": 100 })).unwrap();
    assert_eq!(writer.commit(serde_json::Value::Null).unwrap(), manifest, "commit is idempotent");

    assert_eq!(store.committed("candidates").unwrap(), ["g001"]);
    let read = store.read_manifest("candidates", "g001").unwrap();
    assert_eq!(read, manifest);
    assert_eq!(read.meta["steps"], 100);
    assert_eq!(read.total_bytes(), 13 + 300_000);
    assert_eq!(&store.read_object(read.entry("model.json").unwrap()).unwrap()[..], b"{\"blocks\": 6}");
    let target = dir.path().join("copy.bpk");
    store.read_object_to_file(read.entry("model.bpk").unwrap(), &target).unwrap();
    assert!(std::fs::read(&target).unwrap() == content("weights", 300_000));

    // Promotion names the same objects under another collection; no data is copied.
    let accepted = store.promote(&read, "accepted", "g001", serde_json::json!({ "elo": 12.5 })).unwrap();
    assert_eq!(accepted.objects, read.objects);
    assert_eq!(store.promote(&read, "accepted", "g001", serde_json::Value::Null).unwrap(), accepted);
    let mut other = store.artifact("candidates", "g002").unwrap();
    other.put("model.json", &b"{}"[..]).unwrap();
    let other = other.commit(serde_json::Value::Null).unwrap();
    assert!(matches!(
        store.promote(&other, "accepted", "g001", serde_json::Value::Null),
        Err(StoreError::AlreadyCommitted { .. })
    ));
    assert_eq!(store.manifests("accepted").unwrap(), std::slice::from_ref(&accepted));

    // A data object changed behind the manifest's back is caught.
    let json_key = read.entry("model.json").unwrap().key.clone();
    store.put(&json_key, &b"{\"blocks\": 7}"[..]).unwrap();
    assert!(matches!(store.read_object(read.entry("model.json").unwrap()), Err(StoreError::Corrupt { .. })));
    assert!(store.read_object_to_file(read.entry("model.json").unwrap(), &target).is_err());
    assert!(std::fs::read(&target).unwrap() == content("weights", 300_000), "target kept");

    // Retiring the candidate leaves its objects to the accepted manifest that names them.
    let gc_now = GcOptions { older_than: Duration::ZERO, dry_run: false, allow_short_age: true };
    store.retire("candidates", "g001").unwrap();
    assert_eq!(store.committed("candidates").unwrap(), ["g002"]);
    let report = store.collect_garbage(&gc_now).unwrap();
    assert_eq!((report.manifests, report.data_objects, report.deleted.len()), (2, 3, 0));
    store.retire("accepted", "g001").unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let dry = store.collect_garbage(&GcOptions { dry_run: true, ..gc_now.clone() }).unwrap();
    assert_eq!(dry.deleted.len(), 2);
    assert_eq!(store.list("candidates").unwrap().len(), 4, "a dry run deletes nothing");
    let report = store.collect_garbage(&gc_now).unwrap();
    assert_eq!(report.deleted.len(), 2);
    assert_eq!(report.deleted_bytes, 13 + 300_000);
    assert_eq!(store.read_object(&other.objects[0]).unwrap(), &b"{}"[..]);
    assert!(matches!(store.read_object(&read.objects[1]), Err(StoreError::NotFound { .. })));
}

fn a_second_writer_of_a_name_loses_and_leaves_nothing(url: &StoreUrl) {
    let store = Store::open(url).unwrap();
    let mut first = store.artifact("selfplay/g000", "w1-b000001").unwrap();
    let mut second = store.artifact("selfplay/g000", "w1-b000001").unwrap();
    assert_ne!(first.attempt(), second.attempt());
    first.put("samples.parquet", content("first", 1000)).unwrap();
    second.put("samples.parquet", content("second", 1000)).unwrap();
    second.put("games.parquet", content("second games", 10)).unwrap();
    first.put("games.parquet", content("first games", 10)).unwrap();
    let won = first.commit(serde_json::Value::Null).unwrap();
    let lost = second.commit(serde_json::Value::Null);
    assert!(matches!(lost, Err(StoreError::AlreadyCommitted { .. })), "{lost:?}");
    let manifest = store.read_manifest("selfplay/g000", "w1-b000001").unwrap();
    assert_eq!(manifest, won);
    assert!(store.read_object(manifest.entry("samples.parquet").unwrap()).unwrap() == content("first", 1000));
    // The loser deleted its own objects; only the winner's remain.
    let keys: Vec<String> = store.list("selfplay/g000/objects").unwrap().into_iter().map(|o| o.key).collect();
    let named: Vec<String> =
        manifest.objects.iter().map(|e| e.key.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    assert_eq!(keys, named);

    // An abandoned writer deletes what it put.
    let mut gone = store.artifact("selfplay/g000", "w1-b000002").unwrap();
    gone.put("samples.parquet", &b"x"[..]).unwrap();
    gone.abandon().unwrap();
    assert_eq!(store.list("selfplay/g000/objects").unwrap().len(), 2);
}

fn readers_during_concurrent_commits_see_only_whole_artifacts(url: &StoreUrl) {
    const WRITERS: usize = 3;
    const BATCHES: usize = 6;
    let collection = "selfplay/g001";
    let done = Arc::new(AtomicBool::new(false));
    // Writers 0 and 1 race for the same names (a duplicate attempt); writer 2 has its own.
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let url = url.clone();
            std::thread::spawn(move || {
                let store = Store::open(&url).unwrap();
                let mut committed = 0;
                for b in 0..BATCHES {
                    let name = if w < 2 { format!("shared-b{b:06}") } else { format!("w{w}-b{b:06}") };
                    let mut writer = store.artifact(collection, &name).unwrap();
                    let sizes = [20_000 + 37_000 * b, 3_000 + 1_000 * w];
                    writer.put("samples.parquet", content(&format!("{name} {w} samples"), sizes[0])).unwrap();
                    writer.put("games.parquet", content(&format!("{name} {w} games"), sizes[1])).unwrap();
                    match writer.commit(serde_json::json!({ "writer": w, "sizes": sizes })) {
                        Ok(_) => committed += 1,
                        Err(StoreError::AlreadyCommitted { .. }) => {}
                        Err(e) => panic!("{e}"),
                    }
                }
                committed
            })
        })
        .collect();
    let reader = {
        let (url, done) = (url.clone(), done.clone());
        std::thread::spawn(move || {
            let store = Store::open(&url).unwrap();
            let mut seen: BTreeMap<String, String> = BTreeMap::new();
            let mut rounds = 0;
            loop {
                let finished = done.load(Ordering::SeqCst);
                for name in store.committed(collection).unwrap() {
                    let manifest = store.read_manifest(collection, &name).unwrap();
                    let w = manifest.meta["writer"].as_u64().unwrap() as usize;
                    assert_eq!(manifest.objects.len(), 2, "{name}: a partial manifest");
                    for (entry, file) in manifest.objects.iter().zip(["samples", "games"]) {
                        let bytes = store.read_object(entry).unwrap();
                        let size =
                            manifest.meta["sizes"][usize::from(file == "games")].as_u64().unwrap() as usize;
                        assert!(bytes == content(&format!("{name} {w} {file}"), size), "{name}/{file}");
                    }
                    // A committed name never changes hands.
                    let previous = seen.insert(name.clone(), manifest.attempt.clone());
                    assert!(previous.is_none() || previous.as_ref() == Some(&manifest.attempt), "{name}");
                }
                rounds += 1;
                if finished {
                    return (seen.len(), rounds);
                }
            }
        })
    };
    let committed: usize = writers.into_iter().map(|h| h.join().unwrap()).sum();
    done.store(true, Ordering::SeqCst);
    let (seen, rounds) = reader.join().unwrap();
    assert_eq!(committed, 2 * BATCHES, "one of each shared name, all of writer 2's");
    assert_eq!(seen, 2 * BATCHES);
    assert!(rounds >= 1);
    // Losers deleted their objects: two data objects per committed artifact remain.
    let store = Store::open(url).unwrap();
    assert_eq!(store.list(&format!("{collection}/objects")).unwrap().len(), 2 * 2 * BATCHES);
}

fn a_writer_killed_before_its_manifest_leaves_nothing_visible(url: &StoreUrl) {
    let mut writer = child("write-then-hang", url, "").spawn().unwrap();
    let mut lines = BufReader::new(writer.stdout.take().unwrap()).lines();
    // Wait until its data objects are up; then kill it (SIGKILL) before it commits.
    let line = lines.find(|l| l.as_ref().is_ok_and(|l| l.starts_with("DATA-PUT"))).unwrap().unwrap();
    writer.kill().unwrap();
    writer.wait().unwrap();
    assert_eq!(line, "DATA-PUT 2");

    let store = Store::open(url).unwrap();
    assert_eq!(store.committed("selfplay/g000").unwrap(), Vec::<String>::new());
    assert!(matches!(
        store.read_manifest("selfplay/g000", "killed-b000000"),
        Err(StoreError::NotFound { .. })
    ));
    let orphans = store.list("selfplay/g000/objects").unwrap();
    assert_eq!(orphans.len(), 2, "{orphans:?}");

    // Garbage collection leaves young orphans alone, then deletes them once old enough.
    let report = store.collect_garbage(&GcOptions::default()).unwrap();
    assert_eq!((report.young_orphans, report.deleted.len()), (2, 0));
    std::thread::sleep(Duration::from_millis(20));
    let gc_now = GcOptions { older_than: Duration::ZERO, dry_run: false, allow_short_age: true };
    let report = store.collect_garbage(&gc_now).unwrap();
    assert_eq!(report.deleted.len(), 2);
    assert_eq!(store.list("").unwrap(), vec![]);
}

fn an_upload_killed_midway_is_absent_or_whole(url: &StoreUrl) {
    const LEN: usize = 12 << 20;
    for (attempt, delay_ms) in [(0, 0u64), (1, 30), (2, 150)] {
        let key = format!("big/{attempt}.bin");
        let mut uploader = child("upload", url, &format!("{key} {LEN}")).spawn().unwrap();
        let mut lines = BufReader::new(uploader.stdout.take().unwrap()).lines();
        let line = lines.find(|l| l.as_ref().is_ok_and(|l| l.starts_with("UPLOADING"))).unwrap().unwrap();
        assert_eq!(line, "UPLOADING");
        std::thread::sleep(Duration::from_millis(delay_ms));
        // The upload may have finished by now; the point is that no state in between shows.
        let _ = uploader.kill();
        uploader.wait().unwrap();
        let store = Store::open(url).unwrap();
        match store.get_opt(&key).unwrap() {
            None => {}
            Some(bytes) => {
                assert!(bytes.len() == LEN && bytes == content(&key, LEN), "{key}: a partial object")
            }
        }
    }
}

fn garbage_collection_refuses_a_short_age(url: &StoreUrl) {
    let store = Store::open(url).unwrap();
    let options = GcOptions { older_than: Duration::from_secs(60), ..GcOptions::default() };
    assert!(matches!(store.collect_garbage(&options), Err(StoreError::GcAgeTooShort { .. })));
}

// ---------------------------------------------------------------------------------------------
// Local-only behaviour.

#[test]
fn local_writes_leave_no_temporary_files_and_plain_paths_work() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_str(dir.path().join("run").to_str().unwrap()).unwrap();
    store.put("selfplay/loop.json", &b"{}"[..]).unwrap();
    assert!(store.put_new("selfplay/loop.json", &b"[]"[..]).is_ok_and(|created| !created));
    let mut writer = store.artifact("selfplay/g000", "w-b000000").unwrap();
    writer.put("samples.parquet", &b"s"[..]).unwrap();
    writer.commit(serde_json::Value::Null).unwrap();
    let mut files = Vec::new();
    for entry in walk(dir.path()) {
        files.push(entry.strip_prefix(dir.path()).unwrap().display().to_string());
    }
    files.sort();
    let attempt = store.read_manifest("selfplay/g000", "w-b000000").unwrap().attempt;
    assert_eq!(
        files,
        [
            "run/selfplay/g000/manifests/w-b000000.json".to_string(),
            format!("run/selfplay/g000/objects/w-b000000.{attempt}/samples.parquet"),
            "run/selfplay/loop.json".to_string(),
        ]
    );
    assert_eq!(std::fs::read(dir.path().join("run/selfplay/loop.json")).unwrap(), b"{}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { out.extend(walk(&path)) } else { out.push(path) }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Measurements for docs/STORAGE.md (not a test: prints medians, asserts nothing about time).

/// Latency and throughput of puts and gets of 64 KiB–5 MiB objects and of one shard pair
/// written and read through the commit protocol, at `XQ_STORE_BENCH_URL`:
///
/// ```text
/// eval "$(bash scripts/s3-server.sh start)"
/// XQ_STORE_BENCH_URL=s3://xq-test/bench cargo test --release -p xq-store --test store -- \
///     --ignored --exact store_bench --nocapture
/// ```
#[test]
#[ignore = "a measurement: run by hand with XQ_STORE_BENCH_URL"]
fn store_bench() {
    use std::time::Instant;
    let Ok(url) = std::env::var("XQ_STORE_BENCH_URL") else {
        println!("set XQ_STORE_BENCH_URL (e.g. s3://xq-test/bench or /tmp/xq-bench)");
        return;
    };
    let reps: usize = std::env::var("XQ_STORE_BENCH_REPS").map_or(21, |r| r.parse().unwrap());
    let median = |mut samples: Vec<Duration>| {
        samples.sort();
        samples[samples.len() / 2]
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let store = Store::open_str(&url).unwrap().at(&format!("run-{}", std::process::id())).unwrap();
    println!("store {} ({reps} repetitions, medians)", store.url());
    println!("{:>10} {:>10} {:>10} {:>11} {:>11}", "size", "put ms", "get ms", "put MB/s", "get MB/s");
    for size in [64 << 10, 1 << 20, 2 << 20, 5 << 20] {
        let data = content(&size.to_string(), size);
        let (mut puts, mut gets) = (Vec::new(), Vec::new());
        for r in 0..reps {
            let key = format!("objects/{size}/{r}");
            let t = Instant::now();
            store.put(&key, data.clone()).unwrap();
            puts.push(t.elapsed());
            let t = Instant::now();
            assert_eq!(store.get(&key).unwrap().len(), size);
            gets.push(t.elapsed());
        }
        let (put, get) = (median(puts), median(gets));
        let mbps = |d: Duration| size as f64 / 1e6 / d.as_secs_f64();
        println!("{size:>10} {:>10.2} {:>10.2} {:>11.0} {:>11.0}", ms(put), ms(get), mbps(put), mbps(get));
    }

    // One self-play shard pair as the protocol writes and reads it: samples + games + manifest.
    let (samples, games) = (content("samples", 2 << 20), content("games", 40 << 10));
    let (mut commits, mut reads, mut lists, mut creates) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for r in 0..reps {
        let name = format!("w-bench-b{r:06}");
        let t = Instant::now();
        let mut writer = store.artifact("selfplay/g000", &name).unwrap();
        writer.put("samples.parquet", samples.clone()).unwrap();
        writer.put("games.parquet", games.clone()).unwrap();
        writer.commit(serde_json::json!({ "games": 16 })).unwrap();
        commits.push(t.elapsed());
        let t = Instant::now();
        assert_eq!(store.committed("selfplay/g000").unwrap().len(), r + 1);
        lists.push(t.elapsed());
        let t = Instant::now();
        let manifest = store.read_manifest("selfplay/g000", &name).unwrap();
        for entry in &manifest.objects {
            store.read_object(entry).unwrap();
        }
        reads.push(t.elapsed());
        let t = Instant::now();
        assert!(store.put_new(&format!("flags/{r}"), &b"x"[..]).unwrap());
        creates.push(t.elapsed());
    }
    let manifest_bytes = store
        .head(&xq_store::manifest_key("selfplay/g000", "w-bench-b000000"))
        .unwrap()
        .map_or(0, |o| o.size);
    println!("shard pair of {} + {} bytes, manifest {manifest_bytes} bytes:", samples.len(), games.len());
    println!("  write (2 PUT + 1 conditional PUT of the manifest) {:>8.2} ms", ms(median(commits)));
    println!("  list the manifests (1 LIST)                       {:>8.2} ms", ms(median(lists)));
    println!("  read (GET manifest + 2 GET, verified)             {:>8.2} ms", ms(median(reads)));
    println!("  create-if-absent of a small object                {:>8.2} ms", ms(median(creates)));
    for object in store.list("").unwrap() {
        store.delete(&object.key).unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// Child processes.

/// Not a test: the body of the child processes above (does nothing unless `XQ_STORE_CHILD`).
#[test]
#[ignore = "runs only as a child process of the other tests"]
fn child_process_entry() {
    let Ok(role) = std::env::var("XQ_STORE_CHILD") else { return };
    let url = StoreUrl::parse(&std::env::var("XQ_STORE_CHILD_URL").unwrap()).unwrap();
    let args = std::env::var("XQ_STORE_CHILD_ARGS").unwrap_or_default();
    let args: Vec<&str> = args.split_whitespace().collect();
    let store = Store::open(&url).unwrap();
    let mut out = std::io::stdout();
    match role.as_str() {
        "put-new" => {
            let (me, keys, start): (usize, usize, u128) =
                (args[0].parse().unwrap(), args[1].parse().unwrap(), args[2].parse().unwrap());
            let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis();
            std::thread::sleep(Duration::from_millis(start.saturating_sub(now) as u64));
            for k in 0..keys {
                let key = format!("race/{k}");
                if store.put_new(&key, format!("process {me}").into_bytes()).unwrap() {
                    writeln!(out, "WON {key}").unwrap();
                }
            }
        }
        "write-then-hang" => {
            let mut writer = store.artifact("selfplay/g000", "killed-b000000").unwrap();
            writer.put("samples.parquet", content("killed samples", 200_000)).unwrap();
            writer.put("games.parquet", content("killed games", 2_000)).unwrap();
            writeln!(out, "DATA-PUT {}", writer.entries().len()).unwrap();
            out.flush().unwrap();
            std::thread::sleep(Duration::from_secs(120));
            panic!("not killed");
        }
        "upload" => {
            let (key, len): (&str, usize) = (args[0], args[1].parse().unwrap());
            let dir = tempfile::tempdir().unwrap();
            let source = dir.path().join("big.bin");
            std::fs::write(&source, content(key, len)).unwrap();
            let store = store.with_multipart(6 << 20, 5 << 20);
            writeln!(out, "UPLOADING").unwrap();
            out.flush().unwrap();
            store.put_file(key, &source).unwrap();
            writeln!(out, "UPLOADED").unwrap();
        }
        other => panic!("unknown child role {other}"),
    }
    out.flush().unwrap();
}
