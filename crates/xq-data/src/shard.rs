//! Shard files: naming, atomic checksummed writing, and reading single shards or directories.
//!
//! A shard is `<table>-<index:06>.parquet` (e.g. `samples-000042.parquet`) with a hidden
//! sidecar `.<shard>.crc32` holding the CRC-32 and length of the shard's bytes. Writers create
//! `.<shard>.tmp`, fsync it, write the sidecar the same way, then rename the shard into place
//! and fsync the directory, so a finished name always holds a complete file. Readers only look at
//! `<table>-<digits>.parquet` names and so never see a half-written shard. The temporary file
//! and the sidecar start with a dot because pyarrow, pandas and polars skip hidden files when
//! they read a whole directory, and would otherwise fail on them.

use crate::error::{DataError, Result};
use crate::table::{CodecError, Table};
use bytes::Bytes;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::{KeyValue, ParquetMetaDataReader};
use parquet::file::properties::WriterProperties;
use std::fs::{self, File};
use std::io::{self, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

/// Key-value metadata key holding the table name (`samples` or `games`).
pub const KEY_TABLE: &str = "xq.table";
/// Key-value metadata key holding the table's schema version (decimal).
pub const KEY_SCHEMA_VERSION: &str = "xq.schema_version";
/// The `created_by` string of every shard: fixed, so equal rows give equal bytes.
pub const CREATED_BY: &str = "xq-data (parquet-rs 60)";
/// Suffix of a shard still being written (`.samples-000042.parquet.tmp`).
pub const TMP_SUFFIX: &str = ".tmp";
/// Suffix of a shard's checksum sidecar (`.samples-000042.parquet.crc32`).
pub const CHECKSUM_SUFFIX: &str = ".crc32";

/// The file name of shard `index` of a table: `samples-000042.parquet`.
pub fn shard_file_name(table: &str, index: u64) -> String {
    format!("{table}-{index:06}.parquet")
}

/// The index in a finished shard's file name, if `name` is one of `table`'s shards.
pub fn parse_shard_index(table: &str, name: &str) -> Option<u64> {
    let digits = name.strip_prefix(table)?.strip_prefix('-')?.strip_suffix(".parquet")?;
    if digits.len() < 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> DataError + '_ {
    move |source| DataError::Io { path: path.to_path_buf(), source }
}

fn parquet_err(path: &Path) -> impl FnOnce(parquet::errors::ParquetError) -> DataError + '_ {
    move |source| DataError::Parquet { path: path.to_path_buf(), source }
}

fn codec_err(path: &Path, first_row: usize, reading: bool) -> impl FnOnce(CodecError) -> DataError + '_ {
    move |e| match e {
        CodecError::Arrow(source) => DataError::Arrow { path: path.to_path_buf(), source },
        CodecError::Row { row, column, detail } if reading => {
            DataError::InvalidValue { path: path.to_path_buf(), row, column, detail }
        }
        CodecError::Row { row, column, detail } => DataError::InvalidRow {
            path: path.to_path_buf(),
            row: first_row + row,
            detail: format!("{column}: {detail}"),
        },
    }
}

/// A finished shard found in a directory.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ShardFile {
    /// The number in its name.
    pub index: u64,
    /// Its path.
    pub path: PathBuf,
}

/// The finished shards of table `T` in `dir`, by index (oldest first). `.tmp` files, sidecars
/// and other names are ignored; a missing directory has no shards.
pub fn list_shards<T: Table>(dir: &Path) -> Result<Vec<ShardFile>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(dir)(e)),
    };
    let mut shards = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_err(dir))?;
        let name = entry.file_name();
        let Some(index) = name.to_str().and_then(|n| parse_shard_index(T::NAME, n)) else { continue };
        let path = entry.path();
        if path.is_file() {
            shards.push(ShardFile { index, path });
        }
    }
    shards.sort();
    Ok(shards)
}

/// How a [`ShardWriter`] cuts and compresses shards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriterOptions {
    /// Rows per shard; a shard is finished and renamed into place when it reaches this.
    pub rows_per_shard: usize,
    /// Rows per Parquet row group (the unit readers can skip).
    pub row_group_rows: usize,
    /// Rows converted to one Arrow batch before they are handed to Parquet.
    pub batch_rows: usize,
    /// zstd level (1 is fast and compresses training data well).
    pub zstd_level: i32,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions { rows_per_shard: 32_768, row_group_rows: 32_768, batch_rows: 4_096, zstd_level: 1 }
    }
}

impl WriterOptions {
    fn properties<T: Table>(&self) -> Result<WriterProperties> {
        let level = ZstdLevel::try_new(self.zstd_level)
            .map_err(|e| DataError::InvalidOption(format!("zstd level {}: {e}", self.zstd_level)))?;
        Ok(WriterProperties::builder()
            .set_compression(Compression::ZSTD(level))
            .set_max_row_group_row_count(Some(self.row_group_rows))
            .set_created_by(CREATED_BY.to_string())
            .set_key_value_metadata(Some(vec![
                KeyValue::new(KEY_TABLE.to_string(), T::NAME.to_string()),
                KeyValue::new(KEY_SCHEMA_VERSION.to_string(), T::SCHEMA_VERSION.to_string()),
            ]))
            .build())
    }

    fn validate(&self) -> Result<()> {
        for (name, value) in [
            ("rows_per_shard", self.rows_per_shard),
            ("row_group_rows", self.row_group_rows),
            ("batch_rows", self.batch_rows),
        ] {
            if value == 0 {
                return Err(DataError::InvalidOption(format!("{name} must be at least 1")));
            }
        }
        Ok(())
    }
}

/// A shard written to disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenShard {
    /// Its index and final path.
    pub file: ShardFile,
    /// Rows it holds.
    pub rows: u64,
    /// Its length in bytes.
    pub bytes: u64,
    /// CRC-32 (IEEE) of its bytes, as written to the sidecar.
    pub crc32: u32,
}

/// Hashes and counts every byte on its way to the file.
struct HashingWriter {
    file: File,
    hasher: crc32fast::Hasher,
    len: u64,
}

impl Write for HashingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

struct OpenShard {
    index: u64,
    tmp_path: PathBuf,
    final_path: PathBuf,
    writer: ArrowWriter<HashingWriter>,
    rows: u64,
}

/// Writes rows of table `T` into numbered shards in one directory.
///
/// Rows are buffered, converted to Arrow in batches and streamed into `<shard>.tmp`; when a
/// shard reaches [`WriterOptions::rows_per_shard`] rows (or on [`ShardWriter::finish_shard`] /
/// [`ShardWriter::finish`]) it is fsynced, its checksum sidecar written and it is renamed into
/// place. Numbering continues after the highest finished shard already in the directory, so a
/// restarted writer resumes. One writer per directory: a writer that would replace a finished
/// shard fails with [`DataError::ShardExists`]. Dropping a writer without `finish` leaves the
/// current `.tmp` behind, which readers ignore and the next writer overwrites.
///
/// ```
/// # fn main() -> Result<(), xq_data::DataError> {
/// # let dir = tempfile::tempdir().unwrap();
/// use xq_data::{GameWriter, WriterOptions};
/// let mut writer = GameWriter::create(dir.path(), WriterOptions::default())?;
/// // writer.push(record)?; for each finished game
/// let shards = writer.finish()?; // nothing pushed: no shard
/// assert!(shards.is_empty());
/// # Ok(()) }
/// ```
pub struct ShardWriter<T: Table> {
    dir: PathBuf,
    options: WriterOptions,
    properties: WriterProperties,
    next_index: u64,
    pending: Vec<T>,
    open: Option<OpenShard>,
    written: Vec<WrittenShard>,
    _table: PhantomData<fn(T)>,
}

/// A writer of `samples` shards.
pub type SampleWriter = ShardWriter<crate::Sample>;
/// A writer of `games` shards.
pub type GameWriter = ShardWriter<crate::GameRecord>;

impl<T: Table> ShardWriter<T> {
    /// Opens `dir` (creating it) and continues numbering after its last finished shard.
    pub fn create(dir: impl Into<PathBuf>, options: WriterOptions) -> Result<Self> {
        let dir = dir.into();
        options.validate()?;
        let properties = options.properties::<T>()?;
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let next_index = list_shards::<T>(&dir)?.last().map_or(0, |s| s.index + 1);
        let batch = options.batch_rows.min(options.rows_per_shard);
        Ok(ShardWriter {
            dir,
            options,
            properties,
            next_index,
            pending: Vec::with_capacity(batch),
            open: None,
            written: Vec::new(),
            _table: PhantomData,
        })
    }

    /// The index the next shard will get (or the open shard has).
    pub fn next_index(&self) -> u64 {
        self.open.as_ref().map_or(self.next_index, |o| o.index)
    }

    /// Rows pushed into the current, unfinished shard.
    pub fn rows_in_current_shard(&self) -> u64 {
        self.open.as_ref().map_or(0, |o| o.rows) + self.pending.len() as u64
    }

    /// Adds one row. A row that cannot be stored (see `docs/DATA.md` for the domains) is
    /// rejected with [`DataError::InvalidRow`] and the writer stays usable.
    pub fn push(&mut self, row: T) -> Result<()> {
        if let Err((column, detail)) = T::check(&row) {
            let path = self.dir.join(shard_file_name(T::NAME, self.next_index()));
            let row = self.rows_in_current_shard() as usize;
            return Err(DataError::InvalidRow { path, row, detail: format!("{column}: {detail}") });
        }
        self.pending.push(row);
        let in_shard = self.rows_in_current_shard() as usize;
        if in_shard >= self.options.rows_per_shard {
            self.finish_shard()?;
        } else if self.pending.len() >= self.options.batch_rows {
            self.write_pending()?;
        }
        Ok(())
    }

    /// Adds many rows.
    pub fn extend(&mut self, rows: impl IntoIterator<Item = T>) -> Result<()> {
        rows.into_iter().try_for_each(|row| self.push(row))
    }

    fn write_pending(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        if self.open.is_none() {
            self.open = Some(self.start_shard()?);
        }
        let Some(open) = self.open.as_mut() else { return Ok(()) };
        let batch =
            T::to_batch(&self.pending).map_err(codec_err(&open.final_path, open.rows as usize, false))?;
        open.writer.write(&batch).map_err(parquet_err(&open.tmp_path))?;
        open.rows += self.pending.len() as u64;
        self.pending.clear();
        Ok(())
    }

    fn start_shard(&mut self) -> Result<OpenShard> {
        let index = self.next_index;
        let final_path = self.dir.join(shard_file_name(T::NAME, index));
        if final_path.exists() {
            return Err(DataError::ShardExists { path: final_path });
        }
        let tmp_path = shard_tmp_path(&final_path);
        let file = File::create(&tmp_path).map_err(io_err(&tmp_path))?;
        let sink = HashingWriter { file, hasher: crc32fast::Hasher::new(), len: 0 };
        let writer = ArrowWriter::try_new(sink, T::arrow_schema(), Some(self.properties.clone()))
            .map_err(parquet_err(&tmp_path))?;
        self.next_index = index + 1;
        Ok(OpenShard { index, tmp_path, final_path, writer, rows: 0 })
    }

    /// Finishes the current shard now, even if it is not full (e.g. at the end of a
    /// generation or on a timer, so little is lost on a crash). Returns it, or `None` when no
    /// rows were pushed since the last shard.
    pub fn finish_shard(&mut self) -> Result<Option<WrittenShard>> {
        self.write_pending()?;
        let Some(open) = self.open.take() else { return Ok(None) };
        let OpenShard { index, tmp_path, final_path, writer, rows } = open;
        let sink = writer.into_inner().map_err(parquet_err(&tmp_path))?;
        let HashingWriter { file, hasher, len } = sink;
        file.sync_all().map_err(io_err(&tmp_path))?;
        drop(file);
        let crc32 = hasher.finalize();
        let name = shard_file_name(T::NAME, index);
        let sidecar = checksum_path(&final_path);
        xq_files::write_atomic(&sidecar, format!("{crc32:08x} {len} {name}\n").as_bytes())
            .map_err(io_err(&sidecar))?;
        if final_path.exists() {
            return Err(DataError::ShardExists { path: final_path });
        }
        xq_files::rename_durably(&tmp_path, &final_path).map_err(io_err(&final_path))?;
        let shard = WrittenShard { file: ShardFile { index, path: final_path }, rows, bytes: len, crc32 };
        self.written.push(shard.clone());
        Ok(Some(shard))
    }

    /// Finishes the last shard and returns every shard this writer wrote.
    pub fn finish(mut self) -> Result<Vec<WrittenShard>> {
        self.finish_shard()?;
        Ok(std::mem::take(&mut self.written))
    }
}

/// `dir/.<name><suffix>` for a shard `dir/<name>`: hidden, so dataset readers skip it.
fn hidden_with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}{suffix}"))
}

/// The temporary name a shard is written under before its rename.
pub fn shard_tmp_path(shard: &Path) -> PathBuf {
    hidden_with_suffix(shard, TMP_SUFFIX)
}

/// The checksum sidecar of a shard.
pub fn checksum_path(shard: &Path) -> PathBuf {
    hidden_with_suffix(shard, CHECKSUM_SUFFIX)
}

/// Writes `rows` as one complete shard at `path` (through `path.tmp` and a rename, with its
/// checksum sidecar), for callers that manage names themselves.
pub fn write_shard<T: Table + Clone>(
    path: &Path,
    rows: &[T],
    options: &WriterOptions,
) -> Result<WrittenShard> {
    options.validate()?;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let index = parse_shard_index(T::NAME, name).ok_or_else(|| {
        DataError::InvalidOption(format!(
            "{}: shard names look like {}",
            path.display(),
            shard_file_name(T::NAME, 0)
        ))
    })?;
    let mut writer = ShardWriter::<T> {
        dir: dir.to_path_buf(),
        options: WriterOptions { rows_per_shard: usize::MAX, ..options.clone() },
        properties: options.properties::<T>()?,
        next_index: index,
        pending: Vec::new(),
        open: None,
        written: Vec::new(),
        _table: PhantomData,
    };
    writer.extend(rows.iter().cloned())?;
    writer
        .finish_shard()?
        .ok_or_else(|| DataError::InvalidOption(format!("{}: no rows to write", path.display())))
}

/// The CRC-32 and length a sidecar records, if the shard has one.
fn read_sidecar(shard: &Path) -> Result<Option<(u32, u64)>> {
    let sidecar = checksum_path(shard);
    let text = match fs::read_to_string(&sidecar) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(&sidecar)(e)),
    };
    let malformed =
        |detail: &str| DataError::BadChecksumFile { path: sidecar.clone(), detail: detail.to_string() };
    let mut fields = text.split_ascii_whitespace();
    let crc =
        fields.next().and_then(|f| u32::from_str_radix(f, 16).ok()).ok_or_else(|| malformed("no CRC-32"))?;
    let len = fields.next().and_then(|f| f.parse().ok()).ok_or_else(|| malformed("no length"))?;
    Ok(Some((crc, len)))
}

/// Reads a shard's bytes and checks them against its sidecar (when there is one).
fn read_verified(path: &Path) -> Result<Bytes> {
    let bytes = fs::read(path).map_err(io_err(path))?;
    if let Some((crc, len)) = read_sidecar(path)? {
        if bytes.len() as u64 != len {
            return Err(DataError::ChecksumMismatch {
                path: path.to_path_buf(),
                detail: format!("{} bytes, the sidecar says {len} (truncated or replaced)", bytes.len()),
            });
        }
        let actual = crc32fast::hash(&bytes);
        if actual != crc {
            return Err(DataError::ChecksumMismatch {
                path: path.to_path_buf(),
                detail: format!("CRC-32 {actual:08x}, the sidecar says {crc:08x}"),
            });
        }
    }
    Ok(Bytes::from(bytes))
}

/// Checks the key-value metadata names table `T` at a schema version this build reads, and
/// returns that version's columns.
fn check_table<T: Table>(path: &Path, key_values: Option<&Vec<KeyValue>>) -> Result<arrow_schema::SchemaRef> {
    let lookup = |key: &'static str| {
        key_values
            .and_then(|kv| kv.iter().find(|k| k.key == key))
            .and_then(|k| k.value.clone())
            .ok_or(DataError::NotAnXqShard { path: path.to_path_buf(), key })
    };
    let table = lookup(KEY_TABLE)?;
    if table != T::NAME {
        return Err(DataError::WrongTable { path: path.to_path_buf(), expected: T::NAME, found: table });
    }
    let version = lookup(KEY_SCHEMA_VERSION)?;
    let schema = match version.trim().parse::<u32>() {
        Ok(v) if v == T::SCHEMA_VERSION => Some(T::arrow_schema()),
        Ok(v) => T::older_schema(v),
        Err(_) => None,
    };
    schema.ok_or_else(|| DataError::SchemaVersion {
        path: path.to_path_buf(),
        table: T::NAME,
        found: version,
        expected: T::SCHEMA_VERSION,
    })
}

fn check_columns(path: &Path, found: &arrow_schema::Schema, expected: &arrow_schema::Schema) -> Result<()> {
    let mismatch = |detail: String| DataError::SchemaMismatch { path: path.to_path_buf(), detail };
    if found.fields().len() != expected.fields().len() {
        return Err(mismatch(format!(
            "{} columns, expected {}",
            found.fields().len(),
            expected.fields().len()
        )));
    }
    for (f, e) in found.fields().iter().zip(expected.fields()) {
        if f.name() != e.name() || !f.data_type().equals_datatype(e.data_type()) {
            return Err(mismatch(format!(
                "column `{}` of type {}, expected `{}` of type {}",
                f.name(),
                f.data_type(),
                e.name(),
                e.data_type()
            )));
        }
    }
    Ok(())
}

/// Reads every row of one shard, checking its checksum, table name, schema version and columns.
pub fn read_shard<T: Table>(path: &Path) -> Result<Vec<T>> {
    read_shard_from(path, 0)
}

/// Reads the rows of one shard from row `offset` on.
pub(crate) fn read_shard_from<T: Table>(path: &Path, offset: usize) -> Result<Vec<T>> {
    let bytes = read_verified(path)?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes).map_err(parquet_err(path))?;
    let expected = check_table::<T>(path, builder.metadata().file_metadata().key_value_metadata())?;
    check_columns(path, builder.schema(), &expected)?;
    let total = usize::try_from(builder.metadata().file_metadata().num_rows()).unwrap_or(0);
    let reader = builder.with_batch_size(8192).with_offset(offset).build().map_err(parquet_err(path))?;
    let mut rows = Vec::with_capacity(total.saturating_sub(offset));
    let mut first_row = offset;
    for batch in reader {
        let batch = batch.map_err(|source| DataError::Arrow { path: path.to_path_buf(), source })?;
        T::from_batch(&batch, first_row, &mut rows).map_err(codec_err(path, first_row, true))?;
        first_row += batch.num_rows();
    }
    Ok(rows)
}

/// The number of rows in a shard, from its footer alone (the data is not read, the checksum not
/// checked); also checks the table name and schema version.
pub fn shard_row_count<T: Table>(path: &Path) -> Result<u64> {
    let file = File::open(path).map_err(io_err(path))?;
    let metadata = ParquetMetaDataReader::new().parse_and_finish(&file).map_err(parquet_err(path))?;
    check_table::<T>(path, metadata.file_metadata().key_value_metadata())?;
    u64::try_from(metadata.file_metadata().num_rows()).map_err(|_| DataError::InvalidValue {
        path: path.to_path_buf(),
        row: 0,
        column: "num_rows".to_string(),
        detail: "negative row count in the footer".to_string(),
    })
}

/// A shard that a directory reader passed over, and why.
#[derive(Debug)]
pub struct SkippedShard {
    /// The shard.
    pub path: PathBuf,
    /// What was wrong with it (a corruption: see [`DataError::is_corruption`]).
    pub error: DataError,
}

impl std::fmt::Display for SkippedShard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "skipped corrupt shard: {}", self.error)
    }
}

/// The rows of the readable shards of a directory, and the shards skipped as corrupt.
#[derive(Debug)]
pub struct DirContents<T> {
    /// Rows of every readable shard, in shard order then row order.
    pub rows: Vec<T>,
    /// The shards read.
    pub shards: Vec<ShardFile>,
    /// The warnings: shards skipped because they are truncated or corrupt.
    pub skipped: Vec<SkippedShard>,
}

/// Iterates the shards of a directory in index order, reading one shard per step.
///
/// Each item is the shard and its rows, or the error reading it; [`DataError::is_corruption`]
/// tells a damaged shard (skip it) from a real problem (stop).
pub struct ShardIter<T: Table> {
    shards: std::vec::IntoIter<ShardFile>,
    _table: PhantomData<fn() -> T>,
}

impl<T: Table> Iterator for ShardIter<T> {
    type Item = (ShardFile, Result<Vec<T>>);

    fn next(&mut self) -> Option<Self::Item> {
        let shard = self.shards.next()?;
        let rows = read_shard::<T>(&shard.path);
        Some((shard, rows))
    }
}

/// An iterator over the finished shards of table `T` in `dir` (`.tmp` files ignored).
pub fn iter_shards<T: Table>(dir: &Path) -> Result<ShardIter<T>> {
    Ok(ShardIter { shards: list_shards::<T>(dir)?.into_iter(), _table: PhantomData })
}

/// Reads every finished shard of table `T` in `dir`. Truncated or corrupt shards are skipped
/// and reported in [`DirContents::skipped`] (the caller logs them); any other error — an I/O
/// failure, another table or schema version — is returned.
pub fn read_dir<T: Table>(dir: &Path) -> Result<DirContents<T>> {
    let mut contents = DirContents { rows: Vec::new(), shards: Vec::new(), skipped: Vec::new() };
    for (shard, rows) in iter_shards::<T>(dir)? {
        match rows {
            Ok(mut rows) => {
                contents.rows.append(&mut rows);
                contents.shards.push(shard);
            }
            Err(error) if error.is_corruption() => {
                contents.skipped.push(SkippedShard { path: shard.path, error })
            }
            Err(error) => return Err(error),
        }
    }
    Ok(contents)
}

/// [`read_dir`] for the `samples` table.
pub fn read_samples_dir(dir: &Path) -> Result<DirContents<crate::Sample>> {
    read_dir(dir)
}

/// [`read_dir`] for the `games` table.
pub fn read_games_dir(dir: &Path) -> Result<DirContents<crate::GameRecord>> {
    read_dir(dir)
}
