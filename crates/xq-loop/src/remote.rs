//! Runs whose directories live in object storage: stateless self-play workers and the loop as
//! their coordinator.
//!
//! The run's location (`s3://bucket/runs/r1`, `gs://…`, `az://…`, `file:///…` or a plain path)
//! holds, with the commit protocol of `docs/STORAGE.md` (put the data, then create the
//! manifest if absent):
//! ```text
//! config.toml                                   the run's configuration (the coordinator's)
//! loop.json                                     the coordinator's state, rewritten after each step
//! finished.json                                 written when the run has no generation left
//! report.md, elo.svg, loss.svg, …               the run report
//! selfplay/<label>/manifests/<worker>-<session>-b<batch>.json
//! selfplay/<label>/objects/<name>.<attempt>/{samples,games}.parquet
//! models/accepted/manifests/gNNN.json + objects/…/{model.json,model.bpk}
//! models/rejected/manifests/gNNN.json + objects/…
//! ```
//! `<label>` is the model that played the batch: `bootstrap` before any promotion, else the
//! accepted generation (`g003`). The coordinator keeps a local cache (the run's directories in
//! the usual layout) and can lose it: it brings back what it needs from storage.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use xq_data::{GameRecord, Sample, Table, shard_file_name};
use xq_store::{Manifest, Store, StoreError};

use crate::config::LoopConfig;
use crate::run::{RunPaths, generation_name};
use crate::state::{LoopState, SelfplayRecord};
use crate::{LoopError, io_error};

/// The run's configuration in storage.
pub const CONFIG_KEY: &str = "config.toml";
/// The coordinator's state in storage.
pub const STATE_KEY: &str = "loop.json";
/// Present once the run has no generation left: workers stop when they see it.
pub const FINISHED_KEY: &str = "finished.json";
/// Promoted models.
pub const ACCEPTED: &str = "models/accepted";
/// Rejected candidates (training continues from the newest candidate, promoted or not).
pub const REJECTED: &str = "models/rejected";
/// The label of batches played before any promotion.
pub const BOOTSTRAP_LABEL: &str = "bootstrap";
/// Files of a self-play batch artifact.
pub const BATCH_FILES: [&str; 2] = ["samples.parquet", "games.parquet"];

/// The collection of batches played by `label`'s model.
pub fn selfplay_collection(label: &str) -> String {
    format!("selfplay/{label}")
}

/// A distributed run's storage and the coordinator's local cache.
pub struct RemoteRun {
    pub(crate) store: Store,
    pub(crate) cache: PathBuf,
    pub(crate) poll: Duration,
    pub(crate) idle_limit: Option<Duration>,
}

impl std::fmt::Debug for RemoteRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteRun").field("store", &self.store).field("cache", &self.cache).finish()
    }
}

impl RemoteRun {
    /// The run at `location`, cached locally in `cache`, polling storage every 5 s for new
    /// worker batches and waiting for them without limit.
    ///
    /// # Errors
    /// [`LoopError::Store`] for a location that does not parse or a backend that cannot be
    /// configured from the environment.
    pub fn open(location: &str, cache: impl Into<PathBuf>) -> Result<RemoteRun, LoopError> {
        Ok(RemoteRun {
            store: Store::open_str(location)?,
            cache: cache.into(),
            poll: Duration::from_secs(5),
            idle_limit: None,
        })
    }

    /// Polls storage for worker batches every `poll`.
    pub fn with_poll(mut self, poll: Duration) -> RemoteRun {
        self.poll = poll;
        self
    }

    /// Fails when no new batch arrives for `limit` while the coordinator waits for data.
    pub fn with_idle_limit(mut self, limit: Option<Duration>) -> RemoteRun {
        self.idle_limit = limit;
        self
    }

    /// The run's storage.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The local configuration: `config` with its roots moved into the cache.
    pub(crate) fn local_config(&self, config: &LoopConfig) -> LoopConfig {
        let mut local = config.clone();
        local.run.data_root = self.cache.join("data");
        local.run.models_root = self.cache.join("models");
        local
    }

    /// Saves `config` as the run's configuration, or checks it against the saved one (the
    /// generation count and the time budget may change, as for local runs).
    pub(crate) fn publish_config(&self, config: &LoopConfig) -> Result<(), LoopError> {
        let url = self.store.url_of(CONFIG_KEY);
        if let Some(saved) = self.store.get_opt(CONFIG_KEY)? {
            let text = String::from_utf8_lossy(&saved);
            let saved: LoopConfig =
                toml::from_str(&text).map_err(|e| LoopError::Config(format!("{url}: {e}")))?;
            if !crate::run::compare_configs(&saved, config, PathBuf::from(&url))? {
                return Ok(());
            }
        }
        self.store.put(CONFIG_KEY, config.to_toml().into_bytes())?;
        Ok(())
    }

    /// Brings `loop.json` into an empty cache.
    pub(crate) fn restore_state(&self, paths: &RunPaths) -> Result<(), LoopError> {
        let path = paths.state();
        if path.exists() {
            return Ok(());
        }
        if let Some(bytes) = self.store.get_opt(STATE_KEY)? {
            std::fs::create_dir_all(&paths.models).map_err(io_error(&paths.models))?;
            xq_files::write_atomic(&path, &bytes).map_err(io_error(&path))?;
        }
        Ok(())
    }

    /// Brings back what a lost cache held and the next generation needs: the claimed worker
    /// batches, the models training and the gate start from. A fixed validation set whose
    /// shards are gone is played again (its seed is fixed).
    pub(crate) fn restore_cache(&self, paths: &RunPaths, state: &mut LoopState) -> Result<(), LoopError> {
        if state.validation_set.is_some() && !paths.validation().exists() {
            state.validation_set = None;
        }
        let accepted = state.generations.iter().rfind(|g| g.promoted == Some(true));
        let trained = state.generations.iter().rfind(|g| g.promoted.is_some());
        for g in accepted.into_iter().chain(trained) {
            let promoted = g.promoted == Some(true);
            let dir = if promoted { paths.accepted(g.generation) } else { paths.rejected(g.generation) };
            if !dir.exists() {
                let collection = if promoted { ACCEPTED } else { REJECTED };
                let manifest = self.store.read_manifest(collection, &generation_name(g.generation))?;
                download_model(&self.store, &manifest, &dir)?;
            }
        }
        for g in &state.generations {
            if let Some(record) = &g.selfplay {
                let dir = paths.data.parent().unwrap_or(&paths.data).join(&record.dir);
                if !record.shards.is_empty() && !dir.exists() {
                    self.download_batches(&record.shards, &dir)?;
                }
            }
        }
        Ok(())
    }

    /// Writes `state` to storage.
    pub(crate) fn publish_state(&self, state: &LoopState) -> Result<(), LoopError> {
        let text = serde_json::to_string_pretty(state).map_err(|e| LoopError::State(e.to_string()))?;
        self.store.put(STATE_KEY, text.into_bytes())?;
        Ok(())
    }

    /// Uploads the report and its plots (the files at the top of the run's model directory).
    pub(crate) fn publish_report(&self, paths: &RunPaths) -> Result<(), LoopError> {
        let entries = std::fs::read_dir(&paths.models).map_err(io_error(&paths.models))?;
        for entry in entries {
            let path = entry.map_err(io_error(&paths.models))?.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
            let published = [".md", ".svg", ".png", ".csv"].iter().any(|s| name.ends_with(s));
            if path.is_file() && published && !name.starts_with('.') {
                self.store.put_file(name, &path)?;
            }
        }
        Ok(())
    }

    /// Marks the run finished, so workers stop.
    pub(crate) fn publish_finished(&self, state: &LoopState) -> Result<(), LoopError> {
        let body = serde_json::json!({ "generations": state.generations.len() });
        self.store.put(FINISHED_KEY, body.to_string().into_bytes())?;
        Ok(())
    }

    /// Publishes generation `generation`'s decided candidate (already moved to `dir`) as
    /// `models/accepted/gNNN` or `models/rejected/gNNN`. Done again after a kill, it finds the
    /// artifact committed and leaves it.
    pub(crate) fn publish_model(
        &self,
        generation: u32,
        promoted: bool,
        model_id: &str,
        dir: &Path,
    ) -> Result<(), LoopError> {
        let collection = if promoted { ACCEPTED } else { REJECTED };
        let name = generation_name(generation);
        if self.store.is_committed(collection, &name)? {
            return Ok(());
        }
        let stem = xq_nn::resolve_checkpoint(dir)
            .map_err(|e| LoopError::Model { path: dir.to_path_buf(), message: e.to_string() })?;
        let mut artifact = self.store.artifact(collection, &name)?;
        put_checkpoint_files(&mut artifact, &stem)?;
        artifact.commit(serde_json::json!({ "generation": generation, "model_id": model_id }))?;
        Ok(())
    }

    /// Waits until the workers have committed at least `games` games that no earlier
    /// generation claimed, then claims every unclaimed batch and downloads it into `dir` as
    /// numbered shards. `labels` are the collections to look in.
    pub(crate) fn collect(
        &self,
        labels: &[String],
        claimed_before: &HashSet<String>,
        games: u64,
        dir: &Path,
        progress: bool,
    ) -> Result<SelfplayRecord, LoopError> {
        let started = Instant::now();
        let bar =
            if progress { indicatif::ProgressBar::new(games) } else { indicatif::ProgressBar::hidden() };
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix:>8} [{bar:30}] {pos}/{len} games from workers {msg} ({elapsed})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar.set_prefix("selfplay");
        let mut unclaimed: Vec<(String, u64)> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut last_arrival = Instant::now();
        loop {
            for label in labels {
                let collection = selfplay_collection(label);
                let names: Vec<String> = self
                    .store
                    .committed(&collection)?
                    .into_iter()
                    .filter(|n| {
                        let key = format!("{label}/{n}");
                        !claimed_before.contains(&key) && !seen.contains(&key)
                    })
                    .collect();
                for manifest in self.store.read_manifests(&collection, &names)? {
                    let key = format!("{label}/{}", manifest.name);
                    let batch_games =
                        manifest.meta.get("games").and_then(serde_json::Value::as_u64).unwrap_or(0);
                    seen.insert(key.clone());
                    unclaimed.push((key, batch_games));
                    last_arrival = Instant::now();
                }
            }
            let waiting: u64 = unclaimed.iter().map(|(_, g)| g).sum();
            bar.set_position(waiting.min(games));
            bar.set_message(format!("in {} batches", unclaimed.len()));
            if waiting >= games {
                break;
            }
            if let Some(limit) = self.idle_limit
                && last_arrival.elapsed() > limit
            {
                return Err(LoopError::Workers(format!(
                    "{waiting} of {games} games after {:.0} s with no new batch for {:.0} s; are workers running against {}?",
                    started.elapsed().as_secs_f64(),
                    limit.as_secs_f64(),
                    self.store.url_of("")
                )));
            }
            std::thread::sleep(self.poll);
        }
        bar.finish_and_clear();
        let waited = started.elapsed().as_secs_f64();
        unclaimed.sort();
        let shards: Vec<String> = unclaimed.into_iter().map(|(key, _)| key).collect();
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(io_error(dir))?;
        }
        self.download_batches(&shards, dir)?;
        let mut record = crate::run::count_selfplay(dir)?;
        record.shards = shards;
        record.seconds = waited;
        record.games_per_hour = if waited > 0.0 { record.games as f64 * 3600.0 / waited } else { 0.0 };
        Ok(record)
    }

    /// Downloads batches (`<label>/<name>`) into `dir` as shard pairs numbered in that order.
    fn download_batches(&self, batches: &[String], dir: &Path) -> Result<(), LoopError> {
        let staging = dir.with_extension("partial");
        if staging.exists() {
            std::fs::remove_dir_all(&staging).map_err(io_error(&staging))?;
        }
        std::fs::create_dir_all(&staging).map_err(io_error(&staging))?;
        for (index, batch) in batches.iter().enumerate() {
            let (label, name) = batch
                .split_once('/')
                .ok_or_else(|| LoopError::State(format!("claimed batch {batch} is not <label>/<name>")))?;
            let manifest = self.store.read_manifest(&selfplay_collection(label), name)?;
            download_shard_pair(&self.store, &manifest, &staging, index as u64)?;
        }
        xq_files::rename_durably(&staging, dir).map_err(io_error(dir))?;
        Ok(())
    }
}

/// Uploads checkpoint `stem`'s two files under their own names (the metadata names its
/// weights file).
fn put_checkpoint_files(artifact: &mut xq_store::ArtifactWriter<'_>, stem: &Path) -> Result<(), LoopError> {
    for path in [stem.with_extension("json"), stem.with_extension("bpk")] {
        let file = path.file_name().and_then(|n| n.to_str()).ok_or_else(|| LoopError::Model {
            path: path.clone(),
            message: "the checkpoint's file name is not UTF-8".into(),
        })?;
        artifact.put_file(file, &path)?;
    }
    Ok(())
}

/// Uploads a self-play shard pair as a batch artifact's two files (not yet committed).
pub(crate) fn put_shard_pair(
    artifact: &mut xq_store::ArtifactWriter<'_>,
    samples: &Path,
    games: &Path,
) -> Result<(), LoopError> {
    artifact.put_file(BATCH_FILES[0], samples)?;
    artifact.put_file(BATCH_FILES[1], games)?;
    Ok(())
}

/// Downloads a batch artifact's two files (verified) into `dir` as shard pair `index`.
fn download_shard_pair(store: &Store, manifest: &Manifest, dir: &Path, index: u64) -> Result<(), LoopError> {
    for (file, table) in BATCH_FILES.iter().zip([<Sample as Table>::NAME, <GameRecord as Table>::NAME]) {
        let entry = manifest.entry(file).ok_or_else(|| StoreError::BadManifest {
            url: store.url_of(&xq_store::manifest_key(&manifest.collection, &manifest.name)),
            detail: format!("no {file}"),
        })?;
        store.read_object_to_file(entry, &dir.join(shard_file_name(table, index)))?;
    }
    Ok(())
}

/// Downloads a model artifact's files into `dir`: verified into a staging directory of this
/// process, then moved into place whole. When another process got there first, its copy
/// stays.
///
/// # Errors
/// [`LoopError::Store`] for a manifest without a checkpoint or a failed download.
pub fn download_model(store: &Store, manifest: &Manifest, dir: &Path) -> Result<(), LoopError> {
    let has = |suffix: &str| manifest.objects.iter().any(|e| e.file.ends_with(suffix));
    if !has(".json") || !has(".bpk") {
        return Err(StoreError::BadManifest {
            url: store.url_of(&xq_store::manifest_key(&manifest.collection, &manifest.name)),
            detail: "no checkpoint (NAME.json and NAME.bpk)".into(),
        }
        .into());
    }
    let staging = dir.with_extension(format!("partial-{}", std::process::id()));
    if staging.exists() {
        std::fs::remove_dir_all(&staging).map_err(io_error(&staging))?;
    }
    std::fs::create_dir_all(&staging).map_err(io_error(&staging))?;
    for entry in &manifest.objects {
        store.read_object_to_file(entry, &staging.join(&entry.file))?;
    }
    if dir.exists() {
        std::fs::remove_dir_all(&staging).map_err(io_error(&staging))?;
        return Ok(());
    }
    if let Err(e) = xq_files::rename_durably(&staging, dir) {
        if dir.exists() {
            std::fs::remove_dir_all(&staging).map_err(io_error(&staging))?;
            return Ok(());
        }
        return Err(LoopError::Io { path: dir.to_path_buf(), source: e });
    }
    Ok(())
}

/// Whether a `--out`, `--data` or `--model` argument names object storage (`s3://`, `gs://`,
/// `az://`, `file://`) rather than a local path.
pub fn is_url(location: &str) -> bool {
    location.contains("://")
}

/// Opens the store one level above `location` and returns it with the last segment:
/// `s3://b/runs/r1/selfplay/manual` is collection `manual` of `s3://b/runs/r1/selfplay`, and
/// `s3://b/models/net1` is artifact `net1` of `s3://b/models`.
///
/// # Errors
/// [`LoopError::Store`] for a location that does not parse; [`LoopError::Config`] for one
/// with no segment below its bucket.
pub fn split_location(location: &str) -> Result<(Store, String), LoopError> {
    let trimmed = location.trim_end_matches('/');
    let (scheme, rest) = trimmed.split_once("://").unwrap_or(("", trimmed));
    let Some((parent, last)) = rest.rsplit_once('/').filter(|(p, l)| !l.is_empty() && !p.is_empty()) else {
        return Err(LoopError::Config(format!("{location}: name a prefix below the bucket or directory")));
    };
    let parent = if scheme.is_empty() { parent.to_string() } else { format!("{scheme}://{parent}") };
    Ok((Store::open_str(&parent)?, last.to_string()))
}

/// Opens the store two levels above `location` and returns it with the collection and the
/// artifact name: `s3://b/run/models/accepted/g003` is artifact `g003` of collection
/// `accepted` in `s3://b/run/models`.
///
/// # Errors
/// As [`split_location`].
pub fn split_artifact(location: &str) -> Result<(Store, String, String), LoopError> {
    let trimmed = location.trim_end_matches('/');
    let bad = || {
        LoopError::Config(format!(
            "{location}: name an artifact below a collection, e.g. s3://bucket/models/net1"
        ))
    };
    let (parent, name) = trimmed.rsplit_once('/').filter(|(_, n)| !n.is_empty()).ok_or_else(bad)?;
    let (store, collection) = split_location(parent).map_err(|_| bad())?;
    Ok((store, collection, name.to_string()))
}

/// Uploads every shard pair of the local self-play directory `dir` that is not yet in the
/// collection, each as artifact `<prefix>-<index:06>` (files `samples.parquet` and
/// `games.parquet`). Done again after a kill, it uploads only what is missing. Returns the
/// artifacts committed now.
///
/// # Errors
/// [`LoopError::Data`] for a shard without its partner; [`LoopError::Store`].
pub fn upload_selfplay_dir(
    store: &Store,
    collection: &str,
    prefix: &str,
    dir: &Path,
) -> Result<u64, LoopError> {
    let data_error =
        |e: xq_data::DataError| LoopError::Data { path: dir.to_path_buf(), message: e.to_string() };
    let samples = xq_data::list_shards::<Sample>(dir).map_err(data_error)?;
    let games = xq_data::list_shards::<GameRecord>(dir).map_err(data_error)?;
    let mut committed = 0;
    for shard in &samples {
        let Some(game_shard) = games.iter().find(|g| g.index == shard.index) else {
            return Err(LoopError::Data {
                path: shard.path.clone(),
                message: "no games shard of the same index".into(),
            });
        };
        let name = format!("{prefix}-{:06}", shard.index);
        if store.is_committed(collection, &name)? {
            continue;
        }
        let rows = xq_data::shard_row_count::<Sample>(&shard.path).map_err(data_error)?;
        let game_rows = xq_data::shard_row_count::<GameRecord>(&game_shard.path).map_err(data_error)?;
        let mut artifact = store.artifact(collection, &name)?;
        put_shard_pair(&mut artifact, &shard.path, &game_shard.path)?;
        artifact.commit(serde_json::json!({ "games": game_rows, "rows": rows }))?;
        committed += 1;
    }
    Ok(committed)
}

/// Downloads the self-play artifacts of `collection` into `cache` (one directory per
/// artifact, skipped when already there) and returns those directories, sorted by artifact
/// name, for a trainer's `data_dirs`.
///
/// # Errors
/// [`LoopError::Store`]; [`LoopError::Data`] when the collection holds no artifact.
pub fn download_selfplay(store: &Store, collection: &str, cache: &Path) -> Result<Vec<PathBuf>, LoopError> {
    let names = store.committed(collection)?;
    if names.is_empty() {
        return Err(LoopError::Data {
            path: PathBuf::from(store.url_of(collection)),
            message: "no committed self-play batch".into(),
        });
    }
    let mut dirs = Vec::with_capacity(names.len());
    let missing: Vec<String> = names.iter().filter(|n| !cache.join(n).exists()).cloned().collect();
    for manifest in store.read_manifests(collection, &missing)? {
        let dir = cache.join(&manifest.name);
        let staging = dir.with_extension("partial");
        std::fs::create_dir_all(&staging).map_err(io_error(&staging))?;
        download_shard_pair(store, &manifest, &staging, 0)?;
        xq_files::rename_durably(&staging, &dir).map_err(io_error(&dir))?;
    }
    for name in names {
        dirs.push(cache.join(name));
    }
    Ok(dirs)
}

/// Commits the newest checkpoint in `dir` (and its run's `metrics.csv` and `validation.csv`
/// when present) as artifact `name` of `collection`. Returns `false` when the name was
/// already committed (by an earlier invocation), leaving it unchanged.
///
/// # Errors
/// [`LoopError::Model`] when `dir` holds no checkpoint; [`LoopError::Store`].
pub fn publish_checkpoint(
    store: &Store,
    collection: &str,
    name: &str,
    dir: &Path,
) -> Result<bool, LoopError> {
    if store.is_committed(collection, name)? {
        return Ok(false);
    }
    let stem = xq_nn::resolve_checkpoint(dir)
        .map_err(|e| LoopError::Model { path: dir.to_path_buf(), message: e.to_string() })?;
    let meta = xq_nn::read_metadata(&stem)
        .map_err(|e| LoopError::Model { path: stem.clone(), message: e.to_string() })?;
    let mut artifact = store.artifact(collection, name)?;
    put_checkpoint_files(&mut artifact, &stem)?;
    for extra in ["metrics.csv", "validation.csv"] {
        let path = dir.join(extra);
        if path.is_file() {
            artifact.put_file(extra, &path)?;
        }
    }
    artifact.commit(serde_json::json!({ "model_id": meta.model_id, "training_step": meta.training_step }))?;
    Ok(true)
}

/// Brings the model at `location` into `cache` and returns its local directory. `location`
/// names an artifact (`s3://b/run/models/accepted/g003`) or a collection, whose newest
/// artifact is taken (`s3://b/run/models/accepted`: the newest accepted model). The manifest
/// records its collection, which tells where the store's root is.
///
/// # Errors
/// [`LoopError::Store`]; [`LoopError::Model`] when nothing is committed there.
pub fn fetch_model(location: &str, cache: &Path) -> Result<PathBuf, LoopError> {
    let not_found =
        || LoopError::Model { path: PathBuf::from(location), message: "no committed model there".into() };
    let trimmed = location.trim_end_matches('/');
    let newest = Store::open_str(trimmed)?
        .list(xq_store::MANIFESTS_DIR)?
        .into_iter()
        .filter_map(|o| o.key.rsplit('/').next().and_then(|n| n.strip_suffix(".json")).map(str::to_string))
        .max();
    let (collection_location, name) = match newest {
        Some(name) => (trimmed.to_string(), name),
        None => {
            let (parent, name) = trimmed.rsplit_once('/').ok_or_else(not_found)?;
            (parent.to_string(), name.to_string())
        }
    };
    let holder = Store::open_str(&collection_location)?;
    let bytes = holder.get_opt(&format!("{}/{name}.json", xq_store::MANIFESTS_DIR))?.ok_or_else(not_found)?;
    let recorded: Manifest = serde_json::from_slice(&bytes).map_err(|e| StoreError::BadManifest {
        url: holder.url_of(&format!("{}/{name}.json", xq_store::MANIFESTS_DIR)),
        detail: e.to_string(),
    })?;
    let root = collection_location.strip_suffix(&format!("/{}", recorded.collection)).ok_or_else(|| {
        StoreError::BadManifest {
            url: holder.url_of(&format!("{}/{name}.json", xq_store::MANIFESTS_DIR)),
            detail: format!(
                "it names collection {}, which {collection_location} does not end with",
                recorded.collection
            ),
        }
    })?;
    let store = Store::open_str(root)?;
    let manifest = store.read_manifest(&recorded.collection, &name)?;
    let dir = cache.join(cache_name(location)).join(&manifest.name);
    if !dir.exists() {
        download_model(&store, &manifest, &dir)?;
    }
    Ok(dir)
}

/// A directory name for a location: its letters and digits, the rest as `_`.
pub fn cache_name(location: &str) -> String {
    location.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

/// The local cache for what the stages bring from object storage: `$XQ_CACHE`, else
/// `$XDG_CACHE_HOME/xq`, else `$HOME/.cache/xq`, else `xq-cache` in the system's temporary
/// directory.
pub fn default_cache() -> PathBuf {
    let from_env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    from_env("XQ_CACHE")
        .or_else(|| from_env("XDG_CACHE_HOME").map(|p| p.join("xq")))
        .or_else(|| from_env("HOME").map(|p| p.join(".cache").join("xq")))
        .unwrap_or_else(|| std::env::temp_dir().join("xq-cache"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_split_into_a_store_and_a_collection_or_artifact() {
        assert!(is_url("s3://b/x") && is_url("file:///tmp/x") && !is_url("data/run"));
        let dir = tempfile::tempdir().unwrap();
        let location = format!("file://{}/runs/r1/selfplay/manual/", dir.path().display());
        let (store, collection) = split_location(&location).unwrap();
        assert_eq!(collection, "manual");
        assert!(store.url_of("x").ends_with("runs/r1/selfplay/x"), "{}", store.url_of("x"));
        let (store, collection, name) = split_artifact(&location).unwrap();
        assert_eq!((collection.as_str(), name.as_str()), ("selfplay", "manual"));
        assert!(store.url_of("x").ends_with("runs/r1/x"));
        assert!(matches!(split_location("s3://bucket-only"), Err(LoopError::Config(_))));
        assert!(matches!(split_artifact("s3://bucket/one"), Err(LoopError::Config(_))));
    }

    #[test]
    fn cache_names_are_one_plain_segment() {
        assert_eq!(cache_name("s3://b/runs/r-1"), "s3___b_runs_r-1");
    }

    #[test]
    fn a_selfplay_directory_round_trips_through_a_collection_once() {
        let dir = tempfile::tempdir().unwrap();
        let local = dir.path().join("played");
        let config = xq_selfplay::SelfplayConfig {
            selfplay: xq_selfplay::SelfplaySection {
                games: 4,
                games_per_shard: 2,
                concurrency: 2,
                max_plies: 30,
                opening_book: String::new(),
                ..Default::default()
            },
            ..Default::default()
        };
        let run = xq_selfplay::SelfplayRun {
            out_dir: local.clone(),
            model_id: "teacher".into(),
            openings: Vec::new(),
            progress: false,
            stop_after_shards: None,
        };
        let teacher = xq_selfplay::TeacherConfig { depth: 1, random_move_probability: 0.2 };
        xq_selfplay::run_teacher_selfplay(&config, &teacher, &run).unwrap();
        let store = Store::open_str(dir.path().join("store").to_str().unwrap()).unwrap();
        assert_eq!(upload_selfplay_dir(&store, "sets/a", "s1", &local).unwrap(), 2);
        assert_eq!(
            upload_selfplay_dir(&store, "sets/a", "s1", &local).unwrap(),
            0,
            "a rerun commits nothing twice"
        );
        let dirs = download_selfplay(&store, "sets/a", &dir.path().join("cache")).unwrap();
        assert_eq!(dirs.len(), 2);
        let games: usize = dirs.iter().map(|d| xq_data::read_games_dir(d).unwrap().rows.len()).sum();
        assert_eq!(games, 4);
        assert!(download_selfplay(&store, "sets/empty", &dir.path().join("cache2")).is_err());
    }
}
