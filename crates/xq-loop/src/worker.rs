//! `xq worker`: a stateless self-play worker of a distributed run.
//!
//! It loops: read the newest accepted model from the run's storage, play a batch of games,
//! upload the batch's shard pair as one artifact under a name unique to the worker process and
//! the batch (`<worker>-<session>-b<batch>`), repeat. Killed at any moment it loses at most the
//! batch in hand: nothing is visible in storage until the batch's manifest is created, and a
//! restarted worker draws a new session, so it never reuses a name.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use xq_data::{GameRecord, Sample, Table, list_shards, shard_row_count};
use xq_nn::EvaluatorSpec;
use xq_selfplay::{SelfplayRun, run_selfplay, run_teacher_selfplay};
use xq_store::Store;

use crate::config::LoopConfig;
use crate::remote::{
    ACCEPTED, BOOTSTRAP_LABEL, CONFIG_KEY, FINISHED_KEY, download_model, put_shard_pair, selfplay_collection,
};
use crate::{LoopError, io_error};

/// Salt mixed into the run seed for worker batches.
const WORKER_SALT: u64 = 0x3011_4E20_0000_0006;

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The worker's name: a path segment of letters, digits, `-` and `_` (a pod or array index).
    pub worker_id: String,
    /// Games per batch (one shard pair); 0 takes `selfplay.games_per_shard` of the run.
    pub batch_games: u64,
    /// Stop after this many batches (`None`: until the run is finished).
    pub max_batches: Option<u64>,
    /// Local directory for the model and the batch in hand.
    pub cache: PathBuf,
    /// How often to look for the run's configuration before the coordinator has written it.
    pub poll: Duration,
    /// Give up when the run's configuration has not appeared after this long.
    pub wait_for_config: Duration,
    /// Show self-play progress bars.
    pub progress: bool,
}

/// What a worker did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerSummary {
    /// The session id drawn at start (part of every batch name).
    pub session: String,
    /// Batches committed.
    pub batches: u64,
    /// Games in them.
    pub games: u64,
    /// Positions in them.
    pub positions: u64,
    /// Wall seconds.
    pub seconds: f64,
    /// Whether the worker stopped because the run is finished.
    pub run_finished: bool,
}

/// The model a worker plays with.
struct Playing {
    /// `bootstrap` or the accepted generation (`g003`).
    label: String,
    /// The model id written into every row.
    model_id: String,
    /// The local checkpoint directory, `None` for the bootstrap player.
    dir: Option<PathBuf>,
}

/// Runs a self-play worker against the run in `store` until the run is finished or
/// `options.max_batches` are committed.
///
/// # Errors
/// [`LoopError::Workers`] for a bad worker id or a run whose configuration never appears;
/// [`LoopError::Store`] when storage fails (after the client's retries); self-play and model
/// errors.
pub fn run_worker(store: &Store, options: &WorkerOptions) -> Result<WorkerSummary, LoopError> {
    let started = Instant::now();
    check_worker_id(&options.worker_id)?;
    store.check_create_if_absent()?;
    let config = wait_for_config(store, options)?;
    let session = new_session_id();
    let work = options.cache.join(&options.worker_id);
    // A batch a killed worker left half played is lost by design: start clean.
    if work.exists() {
        std::fs::remove_dir_all(&work).map_err(io_error(&work))?;
    }
    std::fs::create_dir_all(&work).map_err(io_error(&work))?;
    let batch_games =
        if options.batch_games > 0 { options.batch_games } else { config.selfplay.games_per_shard as u64 };
    let openings = xq_play::Book::openings_at(&config.selfplay.opening_book)
        .map_err(|e| LoopError::Config(format!("selfplay.opening_book: {e}")))?;
    let mut summary = WorkerSummary { session: session.clone(), ..WorkerSummary::default() };
    let mut playing: Option<Playing> = None;
    let mut evaluator: Option<Box<dyn xq_mcts::Evaluator + Send>> = None;
    for batch in 0.. {
        if options.max_batches.is_some_and(|max| batch >= max) {
            break;
        }
        if store.exists(FINISHED_KEY)? {
            summary.run_finished = true;
            break;
        }
        let newest = store.committed(ACCEPTED)?.pop();
        let wanted = newest.clone().unwrap_or_else(|| BOOTSTRAP_LABEL.to_string());
        if playing.as_ref().is_none_or(|p| p.label != wanted) {
            let next = match &newest {
                Some(name) => {
                    let manifest = store.read_manifest(ACCEPTED, name)?;
                    let dir = options.cache.join("models").join(name);
                    download_model(store, &manifest, &dir)?;
                    let model_id = manifest
                        .meta
                        .get("model_id")
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or(name)
                        .to_string();
                    Playing { label: name.clone(), model_id, dir: Some(dir) }
                }
                None => Playing {
                    label: BOOTSTRAP_LABEL.to_string(),
                    model_id: match &config.bootstrap.teacher {
                        Some(teacher) => teacher.model_id(),
                        None => config.selfplay.evaluator.name().to_string(),
                    },
                    dir: None,
                },
            };
            evaluator = match (&next.dir, &config.bootstrap.teacher) {
                (None, Some(_)) => None,
                (dir, _) => {
                    let spec = match dir {
                        Some(dir) => EvaluatorSpec::checkpoint(dir.clone())
                            .on_device(config.run.device)
                            .with_precision(config.run.precision),
                        None => EvaluatorSpec::Builtin(config.selfplay.evaluator),
                    };
                    let built = spec.build().map_err(|e| LoopError::Model {
                        path: PathBuf::from(spec.label()),
                        message: e.to_string(),
                    })?;
                    Some(built.evaluator)
                }
            };
            if options.progress {
                eprintln!("worker {}: playing with {} ({})", options.worker_id, next.label, next.model_id);
            }
            playing = Some(next);
        }
        let Some(current) = &playing else { unreachable!("set above") };
        let name = format!("{}-{session}-b{batch:06}", options.worker_id);
        let dir = work.join(&name);
        let mut selfplay = config.selfplay_config();
        selfplay.selfplay.games = batch_games;
        selfplay.selfplay.games_per_shard = batch_games as usize;
        selfplay.selfplay.seed = xq_play::derive_seed(config.run.seed ^ WORKER_SALT, name_hash(&name));
        let run = SelfplayRun {
            out_dir: dir.clone(),
            model_id: current.model_id.clone(),
            openings: openings.clone(),
            progress: options.progress,
            stop_after_shards: None,
        };
        let played = match (&mut evaluator, &config.bootstrap.teacher) {
            (Some(evaluator), _) => run_selfplay(&selfplay, evaluator.as_mut(), &run),
            (None, Some(teacher)) => run_teacher_selfplay(&selfplay, teacher, &run),
            (None, None) => unreachable!("an evaluator is built unless a teacher plays"),
        }
        .map_err(|source| LoopError::Selfplay { generation: 0, source })?;
        let positions =
            upload_batch(store, &current.label, &name, &dir, played.games_played, &current.model_id)?;
        std::fs::remove_dir_all(&dir).map_err(io_error(&dir))?;
        summary.batches += 1;
        summary.games += played.games_played;
        summary.positions += positions;
        if options.progress {
            eprintln!(
                "worker {}: batch {name}: {} games, {positions} positions in {:.1} s",
                options.worker_id, played.games_played, played.seconds
            );
        }
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Uploads the batch in `dir` (one samples and one games shard) and commits it. Returns its
/// sample rows.
fn upload_batch(
    store: &Store,
    label: &str,
    name: &str,
    dir: &Path,
    games: u64,
    model_id: &str,
) -> Result<u64, LoopError> {
    let data_error =
        |e: xq_data::DataError| LoopError::Data { path: dir.to_path_buf(), message: e.to_string() };
    let samples = list_shards::<Sample>(dir).map_err(data_error)?;
    let game_shards = list_shards::<GameRecord>(dir).map_err(data_error)?;
    let (Some(samples), Some(game_shard)) = (samples.first(), game_shards.first()) else {
        return Err(LoopError::Data {
            path: dir.to_path_buf(),
            message: "the batch wrote no shard pair".into(),
        });
    };
    if game_shards.len() != 1 {
        return Err(LoopError::Data {
            path: dir.to_path_buf(),
            message: format!("{} games shards for one batch", game_shards.len()),
        });
    }
    let rows = shard_row_count::<Sample>(&samples.path).map_err(data_error)?;
    let mut artifact = store.artifact(&selfplay_collection(label), name)?;
    put_shard_pair(&mut artifact, &samples.path, &game_shard.path)?;
    let meta = serde_json::json!({
        "games": games,
        "rows": rows,
        "model_id": model_id,
        "table_names": [<Sample as Table>::NAME, <GameRecord as Table>::NAME],
    });
    // An error of unknown outcome is retried with the same writer: commit is idempotent.
    if let Err(first) = artifact.commit(meta.clone()) {
        if matches!(first, xq_store::StoreError::AlreadyCommitted { .. }) {
            return Err(first.into());
        }
        artifact.commit(meta)?;
    }
    Ok(rows)
}

fn wait_for_config(store: &Store, options: &WorkerOptions) -> Result<LoopConfig, LoopError> {
    let started = Instant::now();
    loop {
        if let Some(bytes) = store.get_opt(CONFIG_KEY)? {
            let text = String::from_utf8_lossy(&bytes);
            let config: LoopConfig = toml::from_str(&text)
                .map_err(|e| LoopError::Config(format!("{}: {e}", store.url_of(CONFIG_KEY))))?;
            config.validate()?;
            return Ok(config);
        }
        if started.elapsed() >= options.wait_for_config {
            return Err(LoopError::Workers(format!(
                "{} did not appear in {:.0} s: start the coordinator (xq loop --run) first",
                store.url_of(CONFIG_KEY),
                options.wait_for_config.as_secs_f64()
            )));
        }
        std::thread::sleep(options.poll);
    }
}

/// The worker id a scheduler gives: `$XQ_WORKER_ID`, else `w<index>` from a Kubernetes
/// Indexed Job (`$JOB_COMPLETION_INDEX`) or a Slurm array (`$SLURM_ARRAY_JOB_ID` and
/// `$SLURM_ARRAY_TASK_ID`), else the host name (a Deployment's pod name).
pub fn default_worker_id() -> String {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let sanitize = |s: String| -> String {
        let s: String = s
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' })
            .collect();
        s.chars().take(64).collect()
    };
    if let Some(id) = var("XQ_WORKER_ID") {
        return id;
    }
    if let Some(index) = var("JOB_COMPLETION_INDEX") {
        return sanitize(format!("w{index}"));
    }
    if let Some(task) = var("SLURM_ARRAY_TASK_ID") {
        let job = var("SLURM_ARRAY_JOB_ID").map(|j| format!("{j}-")).unwrap_or_default();
        return sanitize(format!("s{job}{task}"));
    }
    let host = var("HOSTNAME")
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok().map(|h| h.trim().to_string()))
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "worker".to_string());
    sanitize(host)
}

fn check_worker_id(id: &str) -> Result<(), LoopError> {
    let valid = !id.is_empty()
        && id.len() <= 64
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if valid {
        Ok(())
    } else {
        Err(LoopError::Workers(format!(
            "worker id {id:?}: use 1 to 64 letters, digits, '-' or '_' (e.g. the pod or array index)"
        )))
    }
}

/// A random session id: 8 hex digits from the clock, the process id and the OS's hash seed.
fn new_session_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    hasher.write_u128(now.as_nanos());
    hasher.write_u32(std::process::id());
    format!("{:08x}", hasher.finish() as u32)
}

/// FNV-1a of a batch name: the batch's seed index.
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_ids_are_one_safe_segment() {
        assert!(check_worker_id("w-03_a").is_ok());
        for bad in ["", "a/b", "a.b", "über", &"x".repeat(65)] {
            assert!(check_worker_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sessions_differ_between_calls() {
        assert_ne!(new_session_id(), new_session_id());
        assert_eq!(new_session_id().len(), 8);
    }
}
