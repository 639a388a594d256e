//! The [`Table`] trait that ties a row type to its Arrow schema, and column helpers.

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, FieldRef, SchemaRef};
use std::sync::Arc;

/// A row type stored as one Parquet table: [`crate::Sample`] or [`crate::GameRecord`].
///
/// The trait is sealed: the two tables and their schemas are documented in `docs/DATA.md`.
pub trait Table: Sized + private::Codec {
    /// The table name, written to the key-value metadata (`xq.table`) and used as the shard
    /// file prefix (`samples-000042.parquet`).
    const NAME: &'static str;
    /// The schema version this build writes and reads (`xq.schema_version`).
    const SCHEMA_VERSION: u32;
    /// The Arrow schema of the table (without the key-value metadata).
    fn arrow_schema() -> SchemaRef;
    /// The schema of an older version this build still reads, `None` for a version it does
    /// not read. The current version's schema is [`Table::arrow_schema`].
    fn older_schema(version: u32) -> Option<SchemaRef> {
        let _ = version;
        None
    }
}

pub(crate) mod private {
    use super::CodecError;
    use arrow_array::RecordBatch;

    /// Conversion between rows and record batches; hidden so the tables stay ours.
    pub trait Codec: Sized {
        /// Checks that a row can be stored: `Err((column, why))` otherwise.
        fn check(row: &Self) -> Result<(), (&'static str, String)>;
        /// Builds a record batch from rows.
        fn to_batch(rows: &[Self]) -> Result<RecordBatch, CodecError>;
        /// Appends the rows of a batch; `first_row` is the batch's offset within the shard,
        /// for error messages.
        fn from_batch(batch: &RecordBatch, first_row: usize, out: &mut Vec<Self>) -> Result<(), CodecError>;
    }
}

/// A conversion failure before a path is known; turned into a [`crate::DataError`] by the
/// shard layer.
#[derive(Debug)]
pub enum CodecError {
    /// A value outside its documented domain.
    Row {
        /// Row index within the shard.
        row: usize,
        /// Column name.
        column: String,
        /// What is wrong.
        detail: String,
    },
    /// Arrow refused the arrays.
    Arrow(ArrowError),
}

impl From<ArrowError> for CodecError {
    fn from(e: ArrowError) -> Self {
        CodecError::Arrow(e)
    }
}

pub(crate) fn bad(row: usize, column: &str, detail: impl Into<String>) -> CodecError {
    CodecError::Row { row, column: column.to_string(), detail: detail.into() }
}

/// The element field of every list column (`item`, nullable, as Arrow and pyarrow default to).
pub(crate) fn list_item(data_type: DataType) -> FieldRef {
    Arc::new(Field::new("item", data_type, true))
}

/// A non-null list column.
pub(crate) fn list_field(name: &str, item: DataType) -> Field {
    Field::new(name, DataType::List(list_item(item)), false)
}

/// Looks a column up by name and downcasts it; the schema was checked when the file was
/// opened, so a failure here means a damaged file.
pub(crate) fn column<'a, A: Array + 'static>(
    batch: &'a RecordBatch,
    name: &'static str,
    first_row: usize,
) -> Result<&'a A, CodecError> {
    batch
        .column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<A>())
        .ok_or_else(|| bad(first_row, name, "column missing or of another type"))
}

/// Rejects nulls in a column the schema declares non-null.
pub(crate) fn no_nulls(array: &dyn Array, name: &str, first_row: usize) -> Result<(), CodecError> {
    match array.nulls().and_then(|n| (0..n.len()).find(|&i| n.is_null(i))) {
        Some(i) => Err(bad(first_row + i, name, "null in a non-null column")),
        None => Ok(()),
    }
}

pub(crate) fn arc<A: Array + 'static>(array: A) -> ArrayRef {
    Arc::new(array)
}
