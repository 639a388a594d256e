//! The commit protocol for artifacts made of several objects (a shard pair, a checkpoint):
//! data objects under names unique to the attempt, then a manifest put with create-if-absent.
//! See `docs/STORAGE.md` for the protocol, its failure cases and what readers do.
//!
//! ```text
//! <collection>/objects/<name>.<attempt>/<file>   data, written first, never overwritten
//! <collection>/manifests/<name>.json             the commit point; names every data object
//! ```

use crate::store::{READ_CONCURRENCY, Result, Store, StoreError, sha256_hex};
use crate::url::{UrlError, validate_key};
use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use object_store::ObjectStoreExt;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The `format` of every manifest this crate writes.
pub const MANIFEST_FORMAT: &str = "xq-manifest/1";
/// The folder of a collection holding its manifests.
pub const MANIFESTS_DIR: &str = "manifests";
/// The folder of a collection holding its data objects.
pub const OBJECTS_DIR: &str = "objects";
/// A writer refuses to commit once this long has passed since its first data put started.
pub const COMMIT_DEADLINE: Duration = Duration::from_secs(3600);
/// Garbage collection deletes only orphans older than this (twice [`COMMIT_DEADLINE`]), so it
/// never deletes the data of a writer that can still commit.
pub const MIN_GC_AGE: Duration = Duration::from_secs(2 * 3600);

/// One data object named by a manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// The file's name inside the artifact (`samples.parquet`, `model.bpk`).
    pub file: String,
    /// The object's key, relative to the store's root.
    pub key: String,
    /// Its length in bytes.
    pub size: u64,
    /// SHA-256 of its bytes, lowercase hex.
    pub sha256: String,
}

/// A committed artifact: what its manifest says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT`].
    pub format: String,
    /// The collection it belongs to (`selfplay/g003`, `accepted`).
    pub collection: String,
    /// Its name in the collection (`w-host-1a2b-b000007`, `g003`).
    pub name: String,
    /// The id of the write attempt that committed it (random, 16 hex digits).
    pub attempt: String,
    /// Who wrote it: host and process, for people reading the manifest.
    pub writer: String,
    /// When it was committed, milliseconds since the Unix epoch (the writer's clock).
    pub created_unix_ms: u64,
    /// Its data objects, in the order they were put.
    pub objects: Vec<ManifestEntry>,
    /// Whatever the stage records with it (rows, games, generation, model id).
    #[serde(default)]
    pub meta: serde_json::Value,
}

impl Manifest {
    /// The entry of `file`, if the artifact has one.
    pub fn entry(&self, file: &str) -> Option<&ManifestEntry> {
        self.objects.iter().find(|e| e.file == file)
    }

    /// Total bytes of its data objects.
    pub fn total_bytes(&self) -> u64 {
        self.objects.iter().map(|e| e.size).sum()
    }
}

/// The key of the manifest of artifact `name` in `collection`.
pub fn manifest_key(collection: &str, name: &str) -> String {
    format!("{collection}/{MANIFESTS_DIR}/{name}.json")
}

fn check_collection(collection: &str) -> Result<(), UrlError> {
    validate_key(collection)?;
    if collection.split('/').any(|s| s == MANIFESTS_DIR || s == OBJECTS_DIR) {
        return Err(UrlError::BadPath {
            text: collection.to_string(),
            reason: "a collection has no 'manifests' or 'objects' segment",
        });
    }
    Ok(())
}

fn check_segment(text: &str) -> Result<(), UrlError> {
    validate_key(text)?;
    if text.contains('/') {
        return Err(UrlError::BadPath { text: text.to_string(), reason: "must be one path segment" });
    }
    Ok(())
}

/// A fresh attempt id: 16 hex digits from the standard library's per-process random keys,
/// the clock, the process id and a counter.
pub(crate) fn new_attempt_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos());
    hasher.write_u32(std::process::id());
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    format!("{:016x}", hasher.finish())
}

fn writer_label() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown-host".to_string());
    format!("{host} pid {}", std::process::id())
}

fn unix_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// Writes one artifact: data objects first ([`ArtifactWriter::put`],
/// [`ArtifactWriter::put_file`]), then [`ArtifactWriter::commit`] makes them visible at once
/// by creating the manifest. Until the commit nothing is visible to readers; a writer killed
/// before it leaves only orphan data objects, which [`Store::collect_garbage`] deletes.
#[derive(Debug)]
pub struct ArtifactWriter<'s> {
    store: &'s Store,
    collection: String,
    name: String,
    attempt: String,
    started: Option<Instant>,
    entries: Vec<ManifestEntry>,
    committed: Option<Manifest>,
}

impl<'s> ArtifactWriter<'s> {
    /// This attempt's id (part of every data key).
    pub fn attempt(&self) -> &str {
        &self.attempt
    }

    /// The entries put so far.
    pub fn entries(&self) -> &[ManifestEntry] {
        &self.entries
    }

    fn data_key(&mut self, file: &str) -> Result<String> {
        check_segment(file)?;
        if self.committed.is_some() {
            return Err(self.bad("the artifact is already committed"));
        }
        if self.entries.iter().any(|e| e.file == file) {
            return Err(self.bad(&format!("file {file:?} is already in the artifact")));
        }
        self.started.get_or_insert_with(Instant::now);
        Ok(format!("{}/{OBJECTS_DIR}/{}.{}/{file}", self.collection, self.name, self.attempt))
    }

    fn bad(&self, detail: &str) -> StoreError {
        StoreError::BadArtifact {
            url: self.store.url_of(&manifest_key(&self.collection, &self.name)),
            detail: detail.to_string(),
        }
    }

    /// Uploads `bytes` as the artifact's `file` (not yet visible).
    ///
    /// # Errors
    /// [`StoreError::BadArtifact`] for a repeated file or one after the commit;
    /// [`StoreError::Backend`].
    pub fn put(&mut self, file: &str, bytes: impl Into<Bytes>) -> Result<&ManifestEntry> {
        let key = self.data_key(file)?;
        let bytes = bytes.into();
        let entry = ManifestEntry {
            file: file.to_string(),
            sha256: sha256_hex(&Sha256::digest(&bytes)),
            size: bytes.len() as u64,
            key: key.clone(),
        };
        self.store.put(&key, bytes)?;
        self.entries.push(entry);
        Ok(self.entries.last().expect("just pushed"))
    }

    /// Uploads the local file `source` as the artifact's `file` (not yet visible), streaming
    /// large files as multipart uploads.
    ///
    /// # Errors
    /// As [`ArtifactWriter::put`], and [`StoreError::Io`] reading `source`.
    pub fn put_file(&mut self, file: &str, source: &Path) -> Result<&ManifestEntry> {
        let key = self.data_key(file)?;
        let (size, sha256) = self.store.put_file(&key, source)?;
        self.entries.push(ManifestEntry { file: file.to_string(), key, size, sha256 });
        Ok(self.entries.last().expect("just pushed"))
    }

    /// Commits the artifact: creates its manifest if no artifact of this name exists.
    ///
    /// Idempotent: a retry after an error (or a second call) returns the manifest this attempt
    /// committed. If another attempt committed the name first, this one's data objects are
    /// deleted (best effort) and the error says so; nothing of this attempt stays visible.
    ///
    /// # Errors
    /// [`StoreError::AlreadyCommitted`]; [`StoreError::DeadlineExceeded`] past
    /// [`COMMIT_DEADLINE`] (the data objects are deleted, best effort); [`StoreError::Backend`]
    /// (the outcome is then unknown: call `commit` again, or drop the writer and leave the
    /// data objects to garbage collection).
    pub fn commit(&mut self, meta: serde_json::Value) -> Result<Manifest> {
        if let Some(manifest) = &self.committed {
            return Ok(manifest.clone());
        }
        let key = manifest_key(&self.collection, &self.name);
        if let Some(started) = self.started
            && started.elapsed() > COMMIT_DEADLINE
        {
            self.delete_data();
            return Err(StoreError::DeadlineExceeded {
                url: self.store.url_of(&key),
                elapsed_s: started.elapsed().as_secs(),
                deadline_s: COMMIT_DEADLINE.as_secs(),
            });
        }
        let manifest = Manifest {
            format: MANIFEST_FORMAT.to_string(),
            collection: self.collection.clone(),
            name: self.name.clone(),
            attempt: self.attempt.clone(),
            writer: writer_label(),
            created_unix_ms: unix_ms(),
            objects: self.entries.clone(),
            meta,
        };
        match self.store.create_manifest(&manifest)? {
            None => {
                self.committed = Some(manifest.clone());
                Ok(manifest)
            }
            Some(existing) if existing.attempt == self.attempt => {
                // Our own earlier request went through; its answer was lost.
                self.committed = Some(existing.clone());
                Ok(existing)
            }
            Some(existing) => {
                self.delete_data();
                Err(StoreError::AlreadyCommitted {
                    url: self.store.url_of(&key),
                    theirs: existing.attempt,
                    ours: self.attempt.clone(),
                })
            }
        }
    }

    /// Gives the artifact up: deletes the data objects put so far.
    ///
    /// # Errors
    /// The first [`StoreError::Backend`] of the deletes (the rest are still tried).
    pub fn abandon(mut self) -> Result<()> {
        if self.committed.is_some() {
            return Ok(());
        }
        let mut first = Ok(());
        for entry in std::mem::take(&mut self.entries) {
            if let Err(e) = self.store.delete(&entry.key)
                && first.is_ok()
            {
                first = Err(e);
            }
        }
        first
    }

    fn delete_data(&mut self) {
        for entry in std::mem::take(&mut self.entries) {
            // Best effort: an object left behind is an orphan that garbage collection deletes.
            let _ = self.store.delete(&entry.key);
        }
    }
}

/// What [`Store::collect_garbage`] should do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GcOptions {
    /// Delete only orphans last written longer ago than this (at least [`MIN_GC_AGE`]).
    pub older_than: Duration,
    /// Report what would be deleted, delete nothing.
    pub dry_run: bool,
    /// Allow `older_than` below [`MIN_GC_AGE`]: safe only while no writer is running.
    pub allow_short_age: bool,
}

impl Default for GcOptions {
    fn default() -> Self {
        GcOptions { older_than: Duration::from_secs(24 * 3600), dry_run: false, allow_short_age: false }
    }
}

/// What [`Store::collect_garbage`] found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GcReport {
    /// Manifests read.
    pub manifests: usize,
    /// Data objects found.
    pub data_objects: usize,
    /// Orphans old enough: deleted (or, in a dry run, to be deleted).
    pub deleted: Vec<String>,
    /// Their total bytes.
    pub deleted_bytes: u64,
    /// Orphans too young to delete (a writer may still commit them).
    pub young_orphans: usize,
}

/// Where a key sits in the layout: a manifest, a data object or something else.
enum KeyKind {
    Manifest,
    Data,
    Other,
}

fn classify(key: &str) -> KeyKind {
    let segments: Vec<&str> = key.split('/').collect();
    let n = segments.len();
    if n >= 3 && segments[n - 2] == MANIFESTS_DIR && segments[n - 1].ends_with(".json") {
        KeyKind::Manifest
    } else if n >= 4 && segments[n - 3] == OBJECTS_DIR {
        KeyKind::Data
    } else {
        KeyKind::Other
    }
}

impl Store {
    /// Starts writing artifact `name` (one path segment, unique to the writer and its batch)
    /// in `collection` (a key such as `selfplay/g003`, without `manifests` or `objects`
    /// segments). Nothing is contacted yet.
    ///
    /// # Errors
    /// [`StoreError::Url`] for an invalid collection or name.
    pub fn artifact(&self, collection: &str, name: &str) -> Result<ArtifactWriter<'_>> {
        check_collection(collection)?;
        check_segment(name)?;
        Ok(ArtifactWriter {
            store: self,
            collection: collection.to_string(),
            name: name.to_string(),
            attempt: new_attempt_id(),
            started: None,
            entries: Vec::new(),
            committed: None,
        })
    }

    /// Creates `manifest`'s manifest object if absent; `None` if created, else the manifest
    /// that is there.
    fn create_manifest(&self, manifest: &Manifest) -> Result<Option<Manifest>> {
        let key = manifest_key(&manifest.collection, &manifest.name);
        let body = Bytes::from(serde_json::to_vec_pretty(manifest).expect("a manifest serializes"));
        for _ in 0..3 {
            if self.put_new(&key, body.clone())? {
                return Ok(None);
            }
            match self.get_opt(&key)? {
                Some(bytes) => return self.parse_manifest(&key, &bytes).map(Some),
                // Retired between our attempt and the read: try again.
                None => continue,
            }
        }
        Err(StoreError::Conflict { url: self.url_of(&key) })
    }

    fn parse_manifest(&self, key: &str, bytes: &[u8]) -> Result<Manifest> {
        let bad = |detail: String| StoreError::BadManifest { url: self.url_of(key), detail };
        let manifest: Manifest = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
        if manifest.format != MANIFEST_FORMAT {
            return Err(bad(format!("format {:?}, expected {MANIFEST_FORMAT:?}", manifest.format)));
        }
        if manifest_key(&manifest.collection, &manifest.name) != key {
            return Err(bad(format!("it describes {}/{}", manifest.collection, manifest.name)));
        }
        for entry in &manifest.objects {
            validate_key(&entry.key).map_err(|e| bad(e.to_string()))?;
        }
        Ok(manifest)
    }

    /// Whether artifact `name` is committed in `collection` (one HEAD request).
    ///
    /// # Errors
    /// [`StoreError::Url`]; [`StoreError::Backend`].
    pub fn is_committed(&self, collection: &str, name: &str) -> Result<bool> {
        check_collection(collection)?;
        check_segment(name)?;
        self.exists(&manifest_key(collection, name))
    }

    /// The names of the artifacts committed in `collection`, sorted (LIST requests only:
    /// one per 1,000 artifacts). Manifests never change once written, so a caller that has
    /// read one can cache it by name.
    ///
    /// # Errors
    /// [`StoreError::Url`]; [`StoreError::Backend`].
    pub fn committed(&self, collection: &str) -> Result<Vec<String>> {
        check_collection(collection)?;
        let dir = format!("{collection}/{MANIFESTS_DIR}");
        Ok(self
            .list(&dir)?
            .into_iter()
            .filter_map(|o| {
                let name = o.key.strip_prefix(&dir)?.strip_prefix('/')?.strip_suffix(".json")?;
                (!name.contains('/')).then(|| name.to_string())
            })
            .collect())
    }

    /// Reads and checks the manifest of artifact `name` in `collection`.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] if it is not committed; [`StoreError::BadManifest`];
    /// [`StoreError::Backend`].
    pub fn read_manifest(&self, collection: &str, name: &str) -> Result<Manifest> {
        check_collection(collection)?;
        check_segment(name)?;
        let key = manifest_key(collection, name);
        let bytes = self.get(&key)?;
        self.parse_manifest(&key, &bytes)
    }

    /// Reads the manifests of `names` in `collection`, many requests in flight at once, in the
    /// order of `names`.
    ///
    /// # Errors
    /// As [`Store::read_manifest`], for the first that fails.
    pub fn read_manifests(&self, collection: &str, names: &[String]) -> Result<Vec<Manifest>> {
        check_collection(collection)?;
        let keys = names
            .iter()
            .map(|name| {
                check_segment(name)?;
                Ok(manifest_key(collection, name))
            })
            .collect::<Result<Vec<_>>>()?;
        let bodies = self.get_many(&keys)?;
        keys.iter()
            .zip(bodies)
            .map(|(key, bytes)| match bytes {
                Some(bytes) => self.parse_manifest(key, &bytes),
                None => Err(StoreError::NotFound { url: self.url_of(key) }),
            })
            .collect()
    }

    /// Every committed manifest of `collection`, sorted by name.
    ///
    /// # Errors
    /// As [`Store::committed`] and [`Store::read_manifests`].
    pub fn manifests(&self, collection: &str) -> Result<Vec<Manifest>> {
        let names = self.committed(collection)?;
        self.read_manifests(collection, &names)
    }

    /// Whole objects `keys`, many requests in flight, in order; `None` for a missing one.
    fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Bytes>>> {
        let paths = keys.iter().map(|k| Ok((k, self.path(k)?))).collect::<Result<Vec<_>>>()?;
        self.block_on(
            futures_util::stream::iter(paths)
                .map(|(key, path)| async move {
                    let result = async { self.backend_ref().get(&path).await?.bytes().await }.await;
                    match result {
                        Ok(bytes) => Ok(Some(bytes)),
                        Err(object_store::Error::NotFound { .. }) => Ok(None),
                        Err(source) => Err(StoreError::Backend { url: self.url_of(key), source }),
                    }
                })
                .buffered(READ_CONCURRENCY)
                .try_collect(),
        )
    }

    /// Reads the data object of `entry` and checks its length and SHA-256.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] (the artifact was retired and collected);
    /// [`StoreError::Corrupt`]; [`StoreError::Backend`].
    pub fn read_object(&self, entry: &ManifestEntry) -> Result<Bytes> {
        let bytes = self.get(&entry.key)?;
        let sha256 = sha256_hex(&Sha256::digest(&bytes));
        if bytes.len() as u64 != entry.size || sha256 != entry.sha256 {
            return Err(StoreError::Corrupt {
                url: self.url_of(&entry.key),
                expected_size: entry.size,
                expected_sha256: entry.sha256.clone(),
                size: bytes.len() as u64,
                sha256,
            });
        }
        Ok(bytes)
    }

    /// Downloads the data object of `entry` into the local file `target`, atomically, and
    /// checks its length and SHA-256 before it replaces `target`.
    ///
    /// # Errors
    /// As [`Store::read_object`], and [`StoreError::Io`] writing `target`.
    pub fn read_object_to_file(&self, entry: &ManifestEntry, target: &Path) -> Result<()> {
        self.download(&entry.key, target, Some((entry.size, &entry.sha256))).map(|_| ())
    }

    /// Commits artifact `name` in `collection` naming the same data objects as `from` (no data
    /// is copied): promotion of a candidate to `accepted`, for instance. Idempotent: if the
    /// name is already committed with the same objects, that manifest is returned.
    ///
    /// `from` must still be committed (not retired) while this runs: its manifest is what
    /// keeps garbage collection away from the objects until the new manifest exists.
    ///
    /// # Errors
    /// [`StoreError::AlreadyCommitted`] if the name holds other objects;
    /// [`StoreError::Backend`].
    pub fn promote(
        &self,
        from: &Manifest,
        collection: &str,
        name: &str,
        meta: serde_json::Value,
    ) -> Result<Manifest> {
        check_collection(collection)?;
        check_segment(name)?;
        let manifest = Manifest {
            format: MANIFEST_FORMAT.to_string(),
            collection: collection.to_string(),
            name: name.to_string(),
            attempt: new_attempt_id(),
            writer: writer_label(),
            created_unix_ms: unix_ms(),
            objects: from.objects.clone(),
            meta,
        };
        match self.create_manifest(&manifest)? {
            None => Ok(manifest),
            Some(existing) if existing.objects == manifest.objects => Ok(existing),
            Some(existing) => Err(StoreError::AlreadyCommitted {
                url: self.url_of(&manifest_key(collection, name)),
                theirs: existing.attempt,
                ours: manifest.attempt,
            }),
        }
    }

    /// Retires artifact `name`: deletes its manifest, so readers no longer see it. Its data
    /// objects stay until [`Store::collect_garbage`] finds no manifest naming them (another
    /// manifest, from [`Store::promote`], may still do).
    ///
    /// # Errors
    /// [`StoreError::Url`]; [`StoreError::Backend`].
    pub fn retire(&self, collection: &str, name: &str) -> Result<()> {
        check_collection(collection)?;
        check_segment(name)?;
        self.delete(&manifest_key(collection, name))
    }

    /// Deletes orphan data objects: those under some `<collection>/objects/` that no manifest
    /// anywhere under the root names, and that were last written more than
    /// `options.older_than` ago. Reads every manifest under the root; deletes nothing if one
    /// cannot be read.
    ///
    /// # Errors
    /// [`StoreError::GcAgeTooShort`]; [`StoreError::BadManifest`]; [`StoreError::Backend`].
    pub fn collect_garbage(&self, options: &GcOptions) -> Result<GcReport> {
        if options.older_than < MIN_GC_AGE && !options.allow_short_age {
            return Err(StoreError::GcAgeTooShort {
                min_s: MIN_GC_AGE.as_secs(),
                asked_s: options.older_than.as_secs(),
            });
        }
        // The clock is read before listing: an object older than the age at this instant was
        // put more than COMMIT_DEADLINE before any commit that the listing can miss.
        let now = SystemTime::now();
        let all = self.list("")?;
        let mut manifest_keys = Vec::new();
        let mut data = Vec::new();
        for object in all {
            match classify(&object.key) {
                KeyKind::Manifest => manifest_keys.push(object.key),
                KeyKind::Data => data.push(object),
                KeyKind::Other => {}
            }
        }
        let bodies = self.get_many(&manifest_keys)?;
        let mut referenced = HashSet::new();
        for (key, bytes) in manifest_keys.iter().zip(bodies) {
            // Retired since the listing: its objects are no longer protected by it.
            let Some(bytes) = bytes else { continue };
            let manifest = self.parse_manifest(key, &bytes)?;
            referenced.extend(manifest.objects.into_iter().map(|e| e.key));
        }
        let mut report =
            GcReport { manifests: manifest_keys.len(), data_objects: data.len(), ..GcReport::default() };
        for object in data {
            if referenced.contains(&object.key) {
                continue;
            }
            let old_enough =
                now.duration_since(object.last_modified).is_ok_and(|age| age > options.older_than);
            if !old_enough {
                report.young_orphans += 1;
                continue;
            }
            if !options.dry_run {
                self.delete(&object.key)?;
                self.remove_empty_local_dir(&object.key);
            }
            report.deleted_bytes += object.size;
            report.deleted.push(object.key);
        }
        Ok(report)
    }

    /// On the local file system, removes the now empty `<name>.<attempt>` folder of a deleted
    /// data object (object stores have no folders).
    fn remove_empty_local_dir(&self, key: &str) {
        if let (Some(root), Some((dir, _))) = (self.url().local_path(), key.rsplit_once('/')) {
            // Fails harmlessly while the folder still holds files.
            let _ = std::fs::remove_dir(root.join(dir));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_classified_by_their_folder() {
        assert!(matches!(classify("selfplay/g003/manifests/w1-b000001.json"), KeyKind::Manifest));
        assert!(matches!(classify("accepted/manifests/g003.json"), KeyKind::Manifest));
        assert!(matches!(classify("selfplay/g003/objects/w1-b000001.0123/samples.parquet"), KeyKind::Data));
        assert!(matches!(classify("loop.json"), KeyKind::Other));
        assert!(matches!(classify("manifests/x.json"), KeyKind::Other));
        assert!(matches!(classify("report/objects/x"), KeyKind::Other));
    }

    #[test]
    fn attempt_ids_differ() {
        let ids: HashSet<String> = (0..1000).map(|_| new_attempt_id()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids.iter().all(|id| id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit())));
    }

    #[test]
    fn collections_and_names_are_checked() {
        assert!(check_collection("selfplay/g003").is_ok());
        assert!(check_collection("selfplay/manifests").is_err());
        assert!(check_collection("objects").is_err());
        assert!(check_segment("w1-b000001").is_ok());
        assert!(check_segment("w1/b1").is_err());
    }
}
