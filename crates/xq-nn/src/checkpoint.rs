//! Checkpoints: the weights as a burnpack record (`NAME.bpk`) and a JSON metadata file
//! (`NAME.json`) with the model config, the encoding version, the training step and the SHA-256
//! of the weights file, whose first 16 hex digits are the model id.
//!
//! Both files are written to a temporary name, synced and renamed, weights first, so a reader
//! never sees a half-written checkpoint: the metadata that names a weights file appears only
//! once that file is complete. Loading checks, in order: the metadata parses; the encoding
//! version matches this build; the config has the expected shape (when one is given); the
//! weights file's hash matches (catches truncation and corruption); the record applies to the
//! network (catches a shape mismatch the metadata did not declare).

use std::fs;
use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::{Bytes, Device};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::encoding::{ENCODING_VERSION, INPUT_PLANES};
use crate::model::{ConfigError, ModelConfig, PolicyValueNet};
use crate::policy::POLICY_SIZE;

/// Version of the metadata file layout this build writes. Format 1 (without
/// [`CheckpointMeta::trained_rules`]) is still read.
pub const METADATA_FORMAT: u32 = 2;

/// The oldest metadata format this build reads.
pub const OLDEST_METADATA_FORMAT: u32 = 1;

/// The metadata stored beside the weights.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointMeta {
    /// [`METADATA_FORMAT`] when written.
    pub format: u32,
    /// The network's shape.
    pub model: ModelConfig,
    /// [`ENCODING_VERSION`] of the inputs and policy index the weights were trained on.
    pub encoding_version: u32,
    /// Input planes (redundant with the version; a second check).
    pub input_planes: usize,
    /// Policy index size (redundant with the version; a second check).
    pub policy_size: usize,
    /// Training steps taken when saved.
    pub training_step: u64,
    /// The weights file's name, relative to the metadata file's folder.
    pub weights_file: String,
    /// SHA-256 of the weights file, lowercase hex.
    pub weights_sha256: String,
    /// First 16 hex digits of `weights_sha256`: the model's id.
    pub model_id: String,
    /// The rules of the games the network was trained on. Their natural move limit is the
    /// normalisation of the limit-clock input plane, so an engine plays under them unless told
    /// otherwise. `None` in checkpoints that predate it or were not trained on self-play data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trained_rules: Option<xq_core::GameRules>,
}

/// A checkpoint that cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The loaded network cannot be prepared for inference.
    #[error("checkpoint {path}: {source}")]
    Network {
        /// The checkpoint.
        path: PathBuf,
        /// The cause.
        source: crate::evaluator::EvalError,
    },
    /// Reading or writing a file failed.
    #[error("checkpoint {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The metadata file is not valid JSON of the expected form.
    #[error("checkpoint metadata {path}: {message}")]
    Metadata {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// The metadata format is not one this build reads.
    #[error(
        "checkpoint metadata {path}: format {found}, this build reads formats {OLDEST_METADATA_FORMAT} to {expected}"
    )]
    Format {
        /// The file.
        path: PathBuf,
        /// In the file.
        found: u32,
        /// Supported.
        expected: u32,
    },
    /// The checkpoint was trained on another input encoding or policy index.
    #[error(
        "checkpoint {path}: encoding version {found} (planes {planes}, policy size {policy}), this build uses version {expected} (planes {INPUT_PLANES}, policy size {POLICY_SIZE})"
    )]
    EncodingVersion {
        /// The metadata file.
        path: PathBuf,
        /// In the checkpoint.
        found: u32,
        /// This build's [`ENCODING_VERSION`].
        expected: u32,
        /// Input planes in the checkpoint.
        planes: usize,
        /// Policy size in the checkpoint.
        policy: usize,
    },
    /// The checkpoint's network has another shape than the one asked for.
    #[error("checkpoint {path} has another shape (expected vs checkpoint): {}", differences.join(", "))]
    ShapeMismatch {
        /// The metadata file.
        path: PathBuf,
        /// `field: expected vs found` for each differing field.
        differences: Vec<String>,
    },
    /// The metadata's model config is unusable.
    #[error("checkpoint {path}: {source}")]
    Config {
        /// The metadata file.
        path: PathBuf,
        /// The cause.
        source: ConfigError,
    },
    /// The weights file does not hash to the recorded value: truncated, corrupt or replaced.
    #[error(
        "checkpoint weights {path}: SHA-256 {found} ({size} bytes) does not match the recorded {expected}; the file is truncated or corrupt"
    )]
    WeightsHash {
        /// The weights file.
        path: PathBuf,
        /// Recorded in the metadata.
        expected: String,
        /// Of the file.
        found: String,
        /// File size.
        size: usize,
    },
    /// Nothing at the path is a checkpoint.
    #[error("checkpoint {path}: {reason}")]
    NotFound {
        /// The path given.
        path: PathBuf,
        /// What was looked for.
        reason: String,
    },
    /// burn could not decode the record or apply it to the network.
    #[error("checkpoint weights {path}: {message}")]
    Record {
        /// The weights file.
        path: PathBuf,
        /// burn's message.
        message: String,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> CheckpointError + '_ {
    move |source| CheckpointError::Io { path: path.to_path_buf(), source }
}

/// The metadata and weights paths of the checkpoint `stem` (`stem.json`, `stem.bpk`).
pub fn checkpoint_paths(stem: &Path) -> (PathBuf, PathBuf) {
    (stem.with_extension("json"), stem.with_extension("bpk"))
}

fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Saves `net` as the checkpoint `stem` (writes `stem.bpk` and `stem.json`) and returns its
/// metadata.
///
/// # Errors
/// [`CheckpointError::Io`] or [`CheckpointError::Record`] if a file cannot be written.
pub fn save_checkpoint(
    net: &PolicyValueNet,
    stem: &Path,
    training_step: u64,
    trained_rules: Option<xq_core::GameRules>,
) -> Result<CheckpointMeta, CheckpointError> {
    let (meta_path, weights_path) = checkpoint_paths(stem);
    let bytes = net
        .clone()
        .into_record()
        .into_bytes()
        .map_err(|e| CheckpointError::Record { path: weights_path.clone(), message: e.to_string() })?;
    let hash = sha256_hex(&bytes);
    xq_files::write_atomic(&weights_path, &bytes).map_err(io_err(&weights_path))?;
    let meta = CheckpointMeta {
        format: METADATA_FORMAT,
        model: net.config().clone(),
        encoding_version: ENCODING_VERSION,
        input_planes: INPUT_PLANES,
        policy_size: POLICY_SIZE,
        training_step,
        weights_file: weights_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        model_id: hash[..16].to_string(),
        weights_sha256: hash,
        trained_rules,
    };
    let json = serde_json::to_vec_pretty(&meta)
        .map_err(|e| CheckpointError::Metadata { path: meta_path.clone(), message: e.to_string() })?;
    xq_files::write_atomic(&meta_path, &json).map_err(io_err(&meta_path))?;
    Ok(meta)
}

/// Reads and checks a checkpoint's metadata file (`stem.json`).
///
/// # Errors
/// I/O, parse, format, encoding-version and config errors (see the module docs).
pub fn read_metadata(stem: &Path) -> Result<CheckpointMeta, CheckpointError> {
    let (meta_path, _) = checkpoint_paths(stem);
    let text = fs::read(&meta_path).map_err(io_err(&meta_path))?;
    let meta: CheckpointMeta = serde_json::from_slice(&text)
        .map_err(|e| CheckpointError::Metadata { path: meta_path.clone(), message: e.to_string() })?;
    if !(OLDEST_METADATA_FORMAT..=METADATA_FORMAT).contains(&meta.format) {
        return Err(CheckpointError::Format {
            path: meta_path,
            found: meta.format,
            expected: METADATA_FORMAT,
        });
    }
    if meta.encoding_version != ENCODING_VERSION
        || meta.input_planes != INPUT_PLANES
        || meta.policy_size != POLICY_SIZE
    {
        return Err(CheckpointError::EncodingVersion {
            path: meta_path,
            found: meta.encoding_version,
            expected: ENCODING_VERSION,
            planes: meta.input_planes,
            policy: meta.policy_size,
        });
    }
    meta.model.validate().map_err(|source| CheckpointError::Config { path: meta_path.clone(), source })?;
    Ok(meta)
}

/// Loads the checkpoint `stem` onto `device`. With `expected`, a checkpoint of another shape is
/// refused ([`CheckpointError::ShapeMismatch`]).
///
/// # Errors
/// See the module docs for the checks and their order.
pub fn load_checkpoint(
    stem: &Path,
    expected: Option<&ModelConfig>,
    device: &Device,
) -> Result<(PolicyValueNet, CheckpointMeta), CheckpointError> {
    let meta = read_metadata(stem)?;
    let (meta_path, _) = checkpoint_paths(stem);
    if let Some(expected) = expected {
        let differences = expected.differences(&meta.model);
        if !differences.is_empty() {
            return Err(CheckpointError::ShapeMismatch { path: meta_path, differences });
        }
    }
    let weights_path = meta_path.with_file_name(&meta.weights_file);
    let bytes = fs::read(&weights_path).map_err(io_err(&weights_path))?;
    let found = sha256_hex(&bytes);
    if found != meta.weights_sha256 {
        return Err(CheckpointError::WeightsHash {
            path: weights_path,
            expected: meta.weights_sha256.clone(),
            found,
            size: bytes.len(),
        });
    }
    let record_err = |e: burn::store::RecordError| CheckpointError::Record {
        path: weights_path.clone(),
        message: e.to_string(),
    };
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes)).map_err(record_err)?;
    let net = PolicyValueNet::new(&meta.model, device)
        .map_err(|source| CheckpointError::Config { path: meta_path.clone(), source })?;
    let net = net.try_load_record(record).map_err(record_err)?;
    Ok((net, meta))
}

/// Finds the checkpoint `path` names and returns its stem: `path` may be the stem itself, its
/// `.json` or `.bpk` file, or a directory, in which case the checkpoint there (or, when it has
/// none, in its `checkpoints/` subdirectory, as a training run keeps them) with the highest
/// training step is taken (ties broken by name, the last one).
///
/// # Errors
/// [`CheckpointError::NotFound`] when nothing at `path` is a checkpoint; metadata errors of a
/// directory's checkpoints are skipped, those of a named checkpoint are returned.
pub fn resolve_checkpoint(path: &Path) -> Result<PathBuf, CheckpointError> {
    let not_found =
        |reason: &str| CheckpointError::NotFound { path: path.to_path_buf(), reason: reason.to_string() };
    if path.is_dir() {
        let entries = fs::read_dir(path).map_err(io_err(path))?;
        let mut best: Option<(u64, PathBuf)> = None;
        for entry in entries {
            let file = entry.map_err(io_err(path))?.path();
            let is_meta = file.extension().is_some_and(|e| e == "json")
                && !file.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if !is_meta {
                continue;
            }
            let stem = file.with_extension("");
            let Ok(meta) = read_metadata(&stem) else { continue };
            if best.as_ref().is_none_or(|(step, s)| (meta.training_step, &stem) > (*step, s)) {
                best = Some((meta.training_step, stem));
            }
        }
        if let Some((_, stem)) = best {
            return Ok(stem);
        }
        // A training run's directory keeps its checkpoints one level down.
        let nested = path.join("checkpoints");
        if nested.is_dir() {
            return resolve_checkpoint(&nested);
        }
        return Err(not_found("the directory holds no checkpoint (NAME.json + NAME.bpk)"));
    }
    let stem = match path.extension() {
        Some(e) if e == "json" || e == "bpk" => path.with_extension(""),
        _ => path.to_path_buf(),
    };
    let (meta, _) = checkpoint_paths(&stem);
    if !meta.is_file() {
        return Err(not_found(
            "no such checkpoint (expected NAME.json and NAME.bpk, or a directory of them)",
        ));
    }
    Ok(stem)
}
