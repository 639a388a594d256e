//! # xq-store: where the stages keep what they share
//!
//! xq's stages talk only through directories (`models/<run>`, `data/<run>`). This crate lets
//! those directories be local paths as before or prefixes in object storage (`s3://`, `gs://`,
//! `az://`, through Apache Arrow's `object_store`), behind one synchronous API:
//!
//! - [`StoreUrl`] parses what users type; a plain path stays the local file system.
//! - [`Store`] puts (atomically), gets (whole, ranges, to a file), lists, deletes and
//!   creates-if-absent ([`Store::put_new`]) objects under a root.
//! - [`ArtifactWriter`] commits artifacts made of several objects (a shard pair, a checkpoint)
//!   with the put-then-manifest protocol of `docs/STORAGE.md`: readers see the whole artifact
//!   or nothing, two writers never both win a name, and a writer killed half way leaves only
//!   orphans that [`Store::collect_garbage`] deletes.
//!
//! ```
//! # fn main() -> Result<(), xq_store::StoreError> {
//! let dir = tempfile::tempdir().unwrap();
//! let store = xq_store::Store::open_str(dir.path().to_str().unwrap())?;
//! store.put("loop.json", &b"{\"generation\": 3}"[..])?;
//!
//! let mut shard = store.artifact("selfplay/g003", "w-host-1a2b-b000007")?;
//! shard.put("samples.parquet", &b"...samples..."[..])?;
//! shard.put("games.parquet", &b"...games..."[..])?;
//! shard.commit(serde_json::json!({ "games": 32 }))?;
//!
//! assert_eq!(store.committed("selfplay/g003")?, ["w-host-1a2b-b000007"]);
//! let manifest = store.read_manifest("selfplay/g003", "w-host-1a2b-b000007")?;
//! let samples = store.read_object(manifest.entry("samples.parquet").unwrap())?;
//! assert_eq!(&samples[..], b"...samples...");
//! # Ok(()) }
//! ```

mod artifact;
mod store;
mod url;

pub use artifact::{
    ArtifactWriter, COMMIT_DEADLINE, GcOptions, GcReport, MANIFEST_FORMAT, MANIFESTS_DIR, MIN_GC_AGE,
    Manifest, ManifestEntry, OBJECTS_DIR, manifest_key,
};
pub use store::{DEFAULT_MULTIPART_THRESHOLD, DEFAULT_PART_SIZE, ObjectInfo, Result, Store, StoreError};
pub use url::{StoreUrl, UrlError, validate_key};
