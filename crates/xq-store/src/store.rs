//! [`Store`]: synchronous object operations under one root location.

use crate::url::{StoreUrl, UrlError, validate_key};
use bytes::Bytes;
use futures_util::StreamExt;
use object_store::local::LocalFileSystem;
use object_store::path::Path as ObjPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, WriteMultipart};
use sha2::{Digest, Sha256};
use std::fs::{self, File};
use std::future::Future;
use std::io::{self, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

/// Why a storage operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The location or a key is not valid.
    #[error(transparent)]
    Url(#[from] UrlError),
    /// The object does not exist.
    #[error("{url}: no such object")]
    NotFound {
        /// The object's full location.
        url: String,
    },
    /// The backend (object store or local file system) refused or failed, after its retries.
    #[error("{url}: {source}")]
    Backend {
        /// The object or prefix concerned.
        url: String,
        /// What object_store reported.
        #[source]
        source: object_store::Error,
    },
    /// A local file (uploaded from or downloaded to) could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The local file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// The runtime that drives the asynchronous clients could not start.
    #[error("cannot start the storage runtime: {0}")]
    Runtime(#[source] io::Error),
    /// A manifest that does not parse or does not describe the artifact it is named after.
    #[error("{url}: not a valid manifest: {detail}")]
    BadManifest {
        /// The manifest's location.
        url: String,
        /// What is wrong.
        detail: String,
    },
    /// An object whose length or SHA-256 differs from what its manifest records.
    #[error(
        "{url}: expected {expected_size} bytes with SHA-256 {expected_sha256}, found {size} bytes with {sha256}"
    )]
    Corrupt {
        /// The object's location.
        url: String,
        /// Length recorded in the manifest.
        expected_size: u64,
        /// SHA-256 recorded in the manifest.
        expected_sha256: String,
        /// Length read.
        size: u64,
        /// SHA-256 of the bytes read.
        sha256: String,
    },
    /// Another writer committed an artifact of this name first.
    #[error("{url}: already committed by another writer (attempt {theirs}, this one is {ours})")]
    AlreadyCommitted {
        /// The manifest's location.
        url: String,
        /// The attempt id in the committed manifest.
        theirs: String,
        /// This writer's attempt id.
        ours: String,
    },
    /// The commit came too late after the first data object: garbage collection may already
    /// consider that object an orphan, so the artifact is not committed.
    #[error(
        "{url}: {elapsed_s} s since the first data object passed the commit deadline of {deadline_s} s; not committed"
    )]
    DeadlineExceeded {
        /// The manifest's location.
        url: String,
        /// Seconds since the first data put started.
        elapsed_s: u64,
        /// The deadline in seconds.
        deadline_s: u64,
    },
    /// An artifact names the same file twice, or a name that is not one path segment.
    #[error("{url}: {detail}")]
    BadArtifact {
        /// The manifest's location.
        url: String,
        /// What is wrong.
        detail: String,
    },
    /// A garbage-collection age shorter than the commit protocol allows.
    #[error("garbage collection needs objects older than at least {min_s} s (asked for {asked_s} s)")]
    GcAgeTooShort {
        /// The minimum age in seconds.
        min_s: u64,
        /// The age asked for.
        asked_s: u64,
    },
    /// The backend accepted a second create-if-absent of one key (a server that ignores
    /// `If-None-Match`): the commit protocol cannot rule out duplicates there.
    #[error("{url}: the server does not honour create-if-absent (If-None-Match: *); refusing to use it")]
    NoCreateIfAbsent {
        /// The store's root.
        url: String,
    },
    /// Create-if-absent kept meeting a conflicting writer and could not settle.
    #[error("{url}: conditional put kept conflicting with another writer")]
    Conflict {
        /// The object's location.
        url: String,
    },
}

/// Result of storage operations.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// One object found by [`Store::list`] or [`Store::head`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectInfo {
    /// Its key, relative to the store's root.
    pub key: String,
    /// Its length in bytes.
    pub size: u64,
    /// When it was last written (the server's clock).
    pub last_modified: SystemTime,
    /// The server's entity tag, if it gives one.
    pub e_tag: Option<String>,
}

impl ObjectInfo {
    fn from_meta(meta: object_store::ObjectMeta, root: &ObjPath) -> Option<ObjectInfo> {
        let key =
            meta.location.prefix_match(root)?.map(|p| p.as_ref().to_string()).collect::<Vec<_>>().join("/");
        Some(ObjectInfo { key, size: meta.size, last_modified: meta.last_modified.into(), e_tag: meta.e_tag })
    }
}

/// Objects larger than this go up as multipart uploads ([`Store::put_file`]).
pub const DEFAULT_MULTIPART_THRESHOLD: u64 = 32 << 20;
/// Part size of multipart uploads (S3 needs at least 5 MiB for every part but the last).
pub const DEFAULT_PART_SIZE: usize = 8 << 20;
/// Parts of one multipart upload in flight at once.
const PART_CONCURRENCY: usize = 4;
/// Concurrent requests when many small objects are read (manifests).
pub(crate) const READ_CONCURRENCY: usize = 16;
/// How often create-if-absent retries when the server reports a conflict but the object is
/// then not there (S3 answers 409 to concurrent conditional writes).
const CREATE_TRIES: usize = 5;

/// A storage location opened for synchronous use: a local directory or a prefix in an
/// S3, GCS or Azure bucket, through Apache Arrow's `object_store`.
///
/// Every key is relative to the root and `/`-separated (see [`validate_key`]). Whole-object
/// writes are atomic on every backend: a reader sees the old object, the new one or none,
/// never part of one. On the local file system that is a temporary file, fsync, rename and
/// fsync of the directory; on object stores it is what a single PUT (or a completed
/// multipart upload) guarantees.
///
/// The store owns a current-thread tokio runtime and blocks on it, so it must not be used
/// from inside another tokio runtime. It is cheap to clone and can be shared between threads
/// (calls from several threads take turns driving the runtime); for parallel transfers give
/// each thread its own [`Store::open`].
///
/// Credentials and endpoints come only from the environment, through object_store's
/// `from_env` builders: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
/// `AWS_REGION`, `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP` (and web-identity / container
/// credentials) for S3; `GOOGLE_SERVICE_ACCOUNT`, `GOOGLE_APPLICATION_CREDENTIALS` for GCS;
/// `AZURE_STORAGE_ACCOUNT_NAME`, `AZURE_STORAGE_ACCOUNT_KEY` and the like for Azure.
#[derive(Clone)]
pub struct Store {
    url: StoreUrl,
    backend: Arc<dyn ObjectStore>,
    root: ObjPath,
    runtime: Arc<tokio::runtime::Runtime>,
    multipart_threshold: u64,
    part_size: usize,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("url", &self.url.to_string()).finish_non_exhaustive()
    }
}

fn install_crypto_provider() {
    // Fails only when a provider is already installed, which is as good.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn backend_error(url: String) -> impl FnOnce(object_store::Error) -> StoreError {
    move |source| match source {
        object_store::Error::NotFound { .. } => StoreError::NotFound { url },
        source => StoreError::Backend { url, source },
    }
}

pub(crate) fn sha256_hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

impl Store {
    /// Opens `url`. Nothing is contacted yet: a wrong endpoint or missing credentials show up
    /// at the first operation.
    ///
    /// # Errors
    /// [`StoreError::Backend`] if the environment's configuration is invalid (e.g. an
    /// unparsable `AWS_ENDPOINT_URL`); [`StoreError::Runtime`] if the runtime cannot start.
    pub fn open(url: &StoreUrl) -> Result<Store> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(StoreError::Runtime)?;
        let config_error = backend_error(url.to_string());
        let (backend, root): (Arc<dyn ObjectStore>, ObjPath) = match url {
            StoreUrl::Local(path) => {
                let root = ObjPath::from_absolute_path(path).map_err(|e| StoreError::Backend {
                    url: url.to_string(),
                    source: object_store::Error::InvalidPath { source: e },
                })?;
                (Arc::new(LocalFileSystem::new().with_fsync(true)), root)
            }
            StoreUrl::S3 { bucket, prefix } => {
                install_crypto_provider();
                let s3 = object_store::aws::AmazonS3Builder::from_env()
                    .with_bucket_name(bucket)
                    .build()
                    .map_err(config_error)?;
                (Arc::new(s3), ObjPath::from(prefix.as_str()))
            }
            StoreUrl::Gcs { bucket, prefix } => {
                install_crypto_provider();
                let gcs = object_store::gcp::GoogleCloudStorageBuilder::from_env()
                    .with_bucket_name(bucket)
                    .build()
                    .map_err(config_error)?;
                (Arc::new(gcs), ObjPath::from(prefix.as_str()))
            }
            StoreUrl::Azure { container, prefix } => {
                install_crypto_provider();
                let azure = object_store::azure::MicrosoftAzureBuilder::from_env()
                    .with_container_name(container)
                    .build()
                    .map_err(config_error)?;
                (Arc::new(azure), ObjPath::from(prefix.as_str()))
            }
        };
        Ok(Store {
            url: url.clone(),
            backend,
            root,
            runtime: Arc::new(runtime),
            multipart_threshold: DEFAULT_MULTIPART_THRESHOLD,
            part_size: DEFAULT_PART_SIZE,
        })
    }

    /// Parses `location` (a path or URL, see [`StoreUrl`]) and opens it.
    ///
    /// # Errors
    /// As [`StoreUrl::parse`] and [`Store::open`].
    pub fn open_str(location: &str) -> Result<Store> {
        Store::open(&StoreUrl::parse(location)?)
    }

    /// The same backend and runtime, rooted at `key` below this root (e.g. a run inside a
    /// bucket-wide store).
    ///
    /// # Errors
    /// [`StoreError::Url`] if `key` is not a valid key.
    pub fn at(&self, key: &str) -> Result<Store> {
        let mut store = self.clone();
        store.url = self.url.join(key)?;
        store.root = self.path(key)?;
        Ok(store)
    }

    /// Sets the size above which [`Store::put_file`] uses a multipart upload, and the part size
    /// (at least 5 MiB on S3).
    pub fn with_multipart(mut self, threshold: u64, part_size: usize) -> Store {
        self.multipart_threshold = threshold;
        self.part_size = part_size.max(1);
        self
    }

    /// The root location.
    pub fn url(&self) -> &StoreUrl {
        &self.url
    }

    /// The full location of `key`, for messages (`s3://bucket/prefix/key`, or a local path).
    pub fn url_of(&self, key: &str) -> String {
        match &self.url {
            StoreUrl::Local(path) => path.join(key).display().to_string(),
            url => format!("{}/{key}", url.to_string().trim_end_matches('/')),
        }
    }

    pub(crate) fn path(&self, key: &str) -> Result<ObjPath> {
        validate_key(key)?;
        Ok(key.split('/').fold(self.root.clone(), |path, part| path.join(part)))
    }

    pub(crate) fn backend_ref(&self) -> &dyn ObjectStore {
        self.backend.as_ref()
    }

    pub(crate) fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    /// Writes `bytes` as `key`, replacing any object there, atomically.
    ///
    /// # Errors
    /// [`StoreError::Backend`] after object_store's retries.
    pub fn put(&self, key: &str, bytes: impl Into<Bytes>) -> Result<()> {
        let path = self.path(key)?;
        let payload = PutPayload::from(bytes.into());
        self.block_on(self.backend.put_opts(&path, payload, PutMode::Overwrite.into()))
            .map_err(backend_error(self.url_of(key)))?;
        Ok(())
    }

    /// Writes `bytes` as `key` only if no object is there (create-if-absent: a conditional PUT
    /// with `If-None-Match: *` on S3 and Azure, generation 0 on GCS, a hard link on local
    /// files). Of writers racing for one key exactly one gets `true`.
    ///
    /// A request whose answer was lost can report `false` for a write that in fact happened
    /// (the retry finds the object); callers that must know put something of their own inside
    /// and read it back, as [`crate::ArtifactWriter::commit`] does.
    ///
    /// # Errors
    /// [`StoreError::Backend`] if the request failed or the backend has no conditional put;
    /// [`StoreError::Conflict`] if the server kept reporting a conflict with nothing there.
    #[must_use = "false means another writer's object is there"]
    pub fn put_new(&self, key: &str, bytes: impl Into<Bytes>) -> Result<bool> {
        let path = self.path(key)?;
        let bytes = bytes.into();
        for _ in 0..CREATE_TRIES {
            let options = PutOptions::from(PutMode::Create);
            match self.block_on(self.backend.put_opts(&path, PutPayload::from(bytes.clone()), options)) {
                Ok(_) => return Ok(true),
                Err(object_store::Error::AlreadyExists { .. }) => {
                    // 412 (it exists) or 409 (a concurrent conditional write): settle it.
                    if self.exists(key)? {
                        return Ok(false);
                    }
                }
                Err(e) => return Err(backend_error(self.url_of(key))(e)),
            }
        }
        Err(StoreError::Conflict { url: self.url_of(key) })
    }

    /// Checks that the backend honours create-if-absent, on which the commit protocol's
    /// no-duplicate guarantee rests: creates a probe object under `.xq-probe/` twice, expects
    /// the second to be refused, and deletes it. Four requests; run it once at start-up.
    ///
    /// # Errors
    /// [`StoreError::NoCreateIfAbsent`] if the second create went through;
    /// [`StoreError::Backend`] if the backend has no conditional put at all or fails.
    pub fn check_create_if_absent(&self) -> Result<()> {
        let key = format!(".xq-probe/create-if-absent-{}", crate::artifact::new_attempt_id());
        let first = self.put_new(&key, &b"first"[..])?;
        let second = self.put_new(&key, &b"second"[..])?;
        let body = self.get(&key)?;
        self.delete(&key)?;
        if first && !second && &body[..] == b"first" {
            Ok(())
        } else {
            Err(StoreError::NoCreateIfAbsent { url: self.url.to_string() })
        }
    }

    /// Uploads the local file `source` as `key`, atomically: one PUT up to the multipart
    /// threshold, above it a multipart upload that becomes visible only when complete (an
    /// interrupted one leaves invisible parts that the bucket's lifecycle rule must abort).
    /// Returns the length and SHA-256 (hex) of what was uploaded.
    ///
    /// # Errors
    /// [`StoreError::Io`] reading `source`; [`StoreError::Backend`] uploading.
    pub fn put_file(&self, key: &str, source: &Path) -> Result<(u64, String)> {
        let path = self.path(key)?;
        let url = self.url_of(key);
        let io_err = |source_err| StoreError::Io { path: source.to_path_buf(), source: source_err };
        let mut file = File::open(source).map_err(io_err)?;
        let len = file.metadata().map_err(io_err)?.len();
        if len <= self.multipart_threshold {
            let mut bytes = Vec::with_capacity(len as usize);
            file.read_to_end(&mut bytes).map_err(io_err)?;
            let sha = sha256_hex(&Sha256::digest(&bytes));
            let size = bytes.len() as u64;
            self.block_on(self.backend.put_opts(&path, PutPayload::from(bytes), PutMode::Overwrite.into()))
                .map_err(backend_error(url))?;
            return Ok((size, sha));
        }
        let part_size = self.part_size;
        self.block_on(async {
            let upload = self.backend.put_multipart(&path).await.map_err(backend_error(url.clone()))?;
            let mut writer = WriteMultipart::new_with_chunk_size(upload, part_size);
            let mut hasher = Sha256::new();
            let mut size = 0u64;
            let mut buf = vec![0u8; part_size];
            let result: Result<()> = async {
                loop {
                    let n = read_full(&mut file, &mut buf).map_err(io_err)?;
                    if n == 0 {
                        return Ok(());
                    }
                    hasher.update(&buf[..n]);
                    size += n as u64;
                    writer.wait_for_capacity(PART_CONCURRENCY).await.map_err(backend_error(url.clone()))?;
                    writer.write(&buf[..n]);
                }
            }
            .await;
            match result {
                Ok(()) => {
                    writer.finish().await.map_err(backend_error(url.clone()))?;
                    Ok((size, sha256_hex(&hasher.finalize())))
                }
                Err(e) => {
                    // Best effort: the error that stopped the upload is the one to report.
                    let _ = writer.abort().await;
                    Err(e)
                }
            }
        })
    }

    /// Reads the whole object `key`.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] if there is none; [`StoreError::Backend`] otherwise.
    pub fn get(&self, key: &str) -> Result<Bytes> {
        let path = self.path(key)?;
        let url = self.url_of(key);
        self.block_on(async { self.backend.get(&path).await?.bytes().await }).map_err(backend_error(url))
    }

    /// Reads the whole object `key`, or `None` if there is none.
    ///
    /// # Errors
    /// [`StoreError::Backend`].
    pub fn get_opt(&self, key: &str) -> Result<Option<Bytes>> {
        match self.get(key) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(StoreError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Reads bytes `range` of object `key` (for Parquet footers and row groups).
    ///
    /// # Errors
    /// [`StoreError::NotFound`]; [`StoreError::Backend`], also for a range past the end.
    pub fn get_range(&self, key: &str, range: Range<u64>) -> Result<Bytes> {
        let path = self.path(key)?;
        self.block_on(self.backend.get_range(&path, range)).map_err(backend_error(self.url_of(key)))
    }

    /// Downloads object `key` into the local file `target`, atomically (temporary file beside
    /// it, fsync, rename, fsync of the directory). Returns the length and SHA-256 (hex).
    ///
    /// # Errors
    /// [`StoreError::NotFound`]; [`StoreError::Backend`]; [`StoreError::Io`] writing `target`
    /// (then `target` is left as it was).
    pub fn get_to_file(&self, key: &str, target: &Path) -> Result<(u64, String)> {
        self.download(key, target, None)
    }

    pub(crate) fn download(
        &self,
        key: &str,
        target: &Path,
        expect: Option<(u64, &str)>,
    ) -> Result<(u64, String)> {
        let path = self.path(key)?;
        let url = self.url_of(key);
        let tmp = temporary_path(target);
        let io_err = |source| StoreError::Io { path: target.to_path_buf(), source };
        let result = self.block_on(async {
            let mut stream = self.backend.get(&path).await.map_err(backend_error(url.clone()))?.into_stream();
            let mut file = File::create(&tmp).map_err(io_err)?;
            let mut hasher = Sha256::new();
            let mut size = 0u64;
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(backend_error(url.clone()))?;
                hasher.update(&chunk);
                size += chunk.len() as u64;
                file.write_all(&chunk).map_err(io_err)?;
            }
            let sha = sha256_hex(&hasher.finalize());
            if let Some((expected_size, expected_sha256)) = expect
                && (size != expected_size || sha != expected_sha256)
            {
                return Err(StoreError::Corrupt {
                    url: url.clone(),
                    expected_size,
                    expected_sha256: expected_sha256.to_string(),
                    size,
                    sha256: sha,
                });
            }
            file.sync_all().map_err(io_err)?;
            drop(file);
            fs::rename(&tmp, target).map_err(io_err)?;
            sync_parent(target).map_err(io_err)?;
            Ok((size, sha))
        });
        if result.is_err() {
            // Best effort: the first error is the one to report.
            let _ = fs::remove_file(&tmp);
        }
        result
    }

    /// The object `key`'s metadata, or `None` if there is none.
    ///
    /// # Errors
    /// [`StoreError::Backend`].
    pub fn head(&self, key: &str) -> Result<Option<ObjectInfo>> {
        let path = self.path(key)?;
        match self.block_on(self.backend.head(&path)) {
            Ok(meta) => Ok(ObjectInfo::from_meta(meta, &self.root)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(backend_error(self.url_of(key))(e)),
        }
    }

    /// Whether object `key` exists.
    ///
    /// # Errors
    /// [`StoreError::Backend`].
    pub fn exists(&self, key: &str) -> Result<bool> {
        Ok(self.head(key)?.is_some())
    }

    /// Every object below `prefix` (a key prefix of whole segments: `a/b` lists `a/b/...`, not
    /// `a/bc`; empty: everything under the root), recursively, sorted by key. On object stores
    /// this is one LIST request per 1,000 objects.
    ///
    /// # Errors
    /// [`StoreError::Backend`]. A prefix with nothing below it is an empty list.
    pub fn list(&self, prefix: &str) -> Result<Vec<ObjectInfo>> {
        let path = if prefix.is_empty() { self.root.clone() } else { self.path(prefix)? };
        let url = if prefix.is_empty() { self.url.to_string() } else { self.url_of(prefix) };
        let listed: Vec<_> = self.block_on(async {
            let mut stream = self.backend.list(if path.is_root() { None } else { Some(&path) });
            let mut listed = Vec::new();
            while let Some(meta) = stream.next().await {
                match meta {
                    Ok(meta) => listed.push(meta),
                    // The local backend reports a missing directory; object stores list nothing.
                    Err(object_store::Error::NotFound { .. }) => {}
                    Err(e) => return Err(backend_error(url.clone())(e)),
                }
            }
            Ok(listed)
        })?;
        let mut objects: Vec<_> =
            listed.into_iter().filter_map(|m| ObjectInfo::from_meta(m, &self.root)).collect();
        objects.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(objects)
    }

    /// Deletes object `key`; a missing object is not an error.
    ///
    /// # Errors
    /// [`StoreError::Backend`].
    pub fn delete(&self, key: &str) -> Result<()> {
        let path = self.path(key)?;
        match self.block_on(self.backend.delete(&path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(backend_error(self.url_of(key))(e)),
        }
    }
}

/// Reads until `buf` is full or the file ends.
fn read_full(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The hidden temporary file a download to `path` goes through, named after this process.
fn temporary_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

fn sync_parent(path: &Path) -> io::Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(parent)?.sync_all()
}
