//! The one error type of this crate: every variant names the file it concerns.

use std::path::PathBuf;
use thiserror::Error;

/// Why reading or writing a shard failed.
#[derive(Debug, Error)]
pub enum DataError {
    /// The file system refused an operation (open, read, write, fsync, rename, list).
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The Parquet layer failed: on reading this usually means a truncated or corrupt file.
    #[error("{path}: parquet: {source}")]
    Parquet {
        /// The shard.
        path: PathBuf,
        /// What the Parquet library said.
        source: parquet::errors::ParquetError,
    },
    /// Arrow could not build or decode a record batch.
    #[error("{path}: arrow: {source}")]
    Arrow {
        /// The shard.
        path: PathBuf,
        /// What the Arrow library said.
        source: arrow_schema::ArrowError,
    },
    /// The file is Parquet but carries no xq table name or schema version in its key-value metadata.
    #[error("{path}: not an xq-data shard (key-value metadata `{key}` missing)")]
    NotAnXqShard {
        /// The file.
        path: PathBuf,
        /// The metadata key that is missing.
        key: &'static str,
    },
    /// The file holds another table (e.g. games where samples were expected).
    #[error("{path}: holds the `{found}` table, expected `{expected}`")]
    WrongTable {
        /// The file.
        path: PathBuf,
        /// The table this reader reads.
        expected: &'static str,
        /// The table named in the file.
        found: String,
    },
    /// The file was written with another schema version of the table.
    #[error("{path}: `{table}` schema version {found}, this build reads version {expected}")]
    SchemaVersion {
        /// The file.
        path: PathBuf,
        /// The table.
        table: &'static str,
        /// The version in the file (as written there).
        found: String,
        /// The version this build reads and writes.
        expected: u32,
    },
    /// The columns differ from the documented schema although the version matches.
    #[error("{path}: schema mismatch: {detail}")]
    SchemaMismatch {
        /// The file.
        path: PathBuf,
        /// Which column and how.
        detail: String,
    },
    /// A value in the file is outside its documented domain (e.g. a move code off the board).
    #[error("{path}: row {row}, column `{column}`: {detail}")]
    InvalidValue {
        /// The file.
        path: PathBuf,
        /// Row index within the shard.
        row: usize,
        /// Column name.
        column: String,
        /// What is wrong.
        detail: String,
    },
    /// A row handed to a writer cannot be stored (e.g. a result outside -1..=1).
    #[error("{path}: cannot write row {row}: {detail}")]
    InvalidRow {
        /// The shard being written.
        path: PathBuf,
        /// Row index within the shard.
        row: usize,
        /// What is wrong.
        detail: String,
    },
    /// The file's CRC-32 or length differs from its `.crc32` sidecar.
    #[error("{path}: checksum mismatch: {detail}")]
    ChecksumMismatch {
        /// The shard.
        path: PathBuf,
        /// Expected and actual values.
        detail: String,
    },
    /// The `.crc32` sidecar of a shard cannot be parsed.
    #[error("{path}: malformed checksum sidecar: {detail}")]
    BadChecksumFile {
        /// The sidecar.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// A writer would replace a finished shard (two writers in one directory).
    #[error("{path}: shard already exists; only one writer may write a directory")]
    ShardExists {
        /// The shard that exists.
        path: PathBuf,
    },
    /// A writer option is out of range.
    #[error("invalid writer option: {0}")]
    InvalidOption(String),
}

impl DataError {
    /// Whether the error means the shard's bytes are damaged (truncated, garbage, checksum or
    /// value out of domain). Directory readers skip such shards with a warning; every other
    /// error (I/O, another table or schema version) stops them.
    pub fn is_corruption(&self) -> bool {
        matches!(
            self,
            DataError::Parquet { .. }
                | DataError::Arrow { .. }
                | DataError::ChecksumMismatch { .. }
                | DataError::BadChecksumFile { .. }
                | DataError::InvalidValue { .. }
                | DataError::NotAnXqShard { .. }
        )
    }
}

/// Shorthand for this crate's results.
pub type Result<T, E = DataError> = std::result::Result<T, E>;
