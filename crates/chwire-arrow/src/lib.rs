//! # chwire-arrow
//!
//! ClickHouse blocks ([`chwire_proto::Block`]) to Apache Arrow record batches and back, for
//! every type chwire-proto decodes. No IO: the client (`chwire`, feature `arrow`), the CLI and
//! the Python package build on it.
//!
//! * [`block_to_batch`] consumes the block, so that fixed-width values and String/Array
//!   offsets move into Arrow buffers without a copy (the null map becomes a validity bitmap);
//! * two mappings ([`Mapping`]): `Rich` (natural Arrow logical types, the default) and
//!   `ClickHouse` (exactly what ClickHouse 26.9 writes for `FORMAT ArrowStream`);
//! * every top-level field keeps the ClickHouse type under the metadata key
//!   [`CLICKHOUSE_TYPE_KEY`], so that [`batch_to_block_inferred`] restores the exact types;
//! * [`batch_to_block`] converts a batch to a target header (an INSERT's table columns) with
//!   lossless casts only, checking the whole batch before returning anything.
//!
//! The mapping tables are in docs/ARROW.md.

#![warn(missing_docs)]
// Batches come from files and other programs: no unwrap or expect outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod for_parquet;
mod from_arrow;
mod infer;
mod ipc;
mod json_text;
mod leaf_values;
mod options;
mod params;
mod schema;
mod strings;
mod take;
mod text_values;
mod to_arrow;
mod unify;
mod wkb;

pub use for_parquet::{enum_name_leaves, parquet_schema, to_parquet_batch, ParquetMapping};
pub use infer::{clickhouse_type_for, clickhouse_type_for_parquet};
pub use ipc::read_ipc_stream;
pub use json_text::json_members;
pub use options::{setting_flag, ArrowOptions, Mapping};
pub use params::{narrow_floats, params_to_block};
pub use schema::{arrow_type, field_for, CLICKHOUSE_TYPE_KEY};
pub use unify::DictionaryUnifier;

use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{ArrowError, Schema, SchemaRef};
use chwire_proto::{Block, Column, DataType};
use std::sync::Arc;

/// Errors of the conversions.
/// Arrow casts that fail on values that do not fit instead of making them NULL.
pub(crate) fn strict() -> arrow_cast::CastOptions<'static> {
    arrow_cast::CastOptions { safe: false, ..Default::default() }
}

/// A column that does not convert to `ty` (its name is added by the caller).
pub(crate) fn mismatch(array: &dyn Array, ty: &DataType, detail: impl Into<String>) -> Error {
    Error::Mismatch { column: String::new(), arrow: array.data_type().to_string(), clickhouse: ty.to_string(), detail: detail.into() }
}

/// Why a conversion between blocks and record batches failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A ClickHouse type without an Arrow mapping (yet).
    #[error("ClickHouse type {0} has no Arrow mapping")]
    UnsupportedType(String),
    /// An Arrow column does not convert (losslessly) to the ClickHouse type asked for.
    #[error("column {column}: Arrow type {arrow} does not convert to ClickHouse type {clickhouse}: {detail}")]
    Mismatch {
        /// The column's name (empty until [`Error::in_column`] names it).
        column: String,
        /// The Arrow type.
        arrow: String,
        /// The ClickHouse type.
        clickhouse: String,
        /// Why it does not convert.
        detail: String,
    },
    /// A value of a column does not convert.
    #[error("column {column}: {}{detail}", row_prefix(*.row))]
    Value {
        /// The column's name (empty until [`Error::in_column`] names it).
        column: String,
        /// The value's row of the batch (inside a list or map: the row holding it), where one
        /// value is at fault.
        row: Option<u64>,
        /// Why it does not convert.
        detail: String,
    },
    /// The batch lacks a column of the target, or has one the target does not.
    #[error("{0}")]
    Columns(String),
    /// An unknown setting or value in [`ArrowOptions::set`].
    #[error("{0}")]
    Setting(String),
    /// Bytes that are not an Arrow IPC stream ([`read_ipc_stream`]).
    #[error("malformed IPC stream: {0}")]
    Ipc(String),
    /// An error of arrow-rs (building or casting an array).
    #[error(transparent)]
    Arrow(#[from] ArrowError),
}

/// The result of chwire-arrow's conversions.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Names the column in errors raised below it.
    pub fn in_column(self, name: &str) -> Error {
        match self {
            Error::Mismatch { column, arrow, clickhouse, detail } if column.is_empty() => {
                Error::Mismatch { column: name.to_string(), arrow, clickhouse, detail }
            }
            Error::Value { column, row, detail } if column.is_empty() => Error::Value { column: name.to_string(), row, detail },
            Error::UnsupportedType(t) => {
                Error::Value { column: name.to_string(), row: None, detail: format!("ClickHouse type {t} has no Arrow mapping") }
            }
            Error::Arrow(e) => Error::Value { column: name.to_string(), row: None, detail: e.to_string() },
            e => e,
        }
    }

    /// The error of a batch that starts at row `first` of the data: its row counted from the
    /// data's start (an insert cuts its data into batches; the user counts rows in the data).
    pub fn from_row(self, first: u64) -> Error {
        match self {
            Error::Value { column, row: Some(row), detail } => Error::Value { column, row: Some(row + first), detail },
            e => e,
        }
    }

    pub(crate) fn value(detail: impl Into<String>) -> Error {
        Error::Value { column: String::new(), row: None, detail: detail.into() }
    }

    /// The value of `row` does not convert.
    pub(crate) fn value_at(row: usize, detail: impl Into<String>) -> Error {
        Error::Value { column: String::new(), row: Some(row as u64), detail: detail.into() }
    }
}

/// `row N: ` of a value's error, where it names one.
fn row_prefix(row: Option<u64>) -> String {
    row.map(|r| format!("row {r}: ")).unwrap_or_default()
}

/// The Arrow schema of a header: one field per (name, ClickHouse type).
pub fn schema_for(columns: &[(String, DataType)], opts: &ArrowOptions) -> Result<SchemaRef> {
    let fields = columns.iter().map(|(n, t)| field_for(n, t, opts).map_err(|e| e.in_column(n))).collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(Schema::new(fields)))
}

/// The Arrow schema of a block's columns.
pub fn schema_of_block(block: &Block, opts: &ArrowOptions) -> Result<SchemaRef> {
    let cols: Vec<(String, DataType)> = block.columns().iter().map(|(n, c)| (n.clone(), c.data_type().clone())).collect();
    schema_for(&cols, opts)
}

/// Converts a block to a record batch of `schema` (from [`schema_for`] with the same
/// options, e.g. for a stream's header). Consumes the block: buffers move without copying
/// where the layouts agree.
pub fn block_to_batch(block: Block, schema: &SchemaRef, opts: &ArrowOptions) -> Result<RecordBatch> {
    let rows = block.rows();
    if block.num_columns() != schema.fields().len() {
        return Err(Error::Columns(format!("the block has {} columns, the schema {}", block.num_columns(), schema.fields().len())));
    }
    let mut arrays = Vec::with_capacity(block.num_columns());
    for ((name, col), field) in block.into_columns().into_iter().zip(schema.fields()) {
        let (ty, data) = col.into_parts();
        let array = to_arrow::to_array(&ty, data, None, opts).map_err(|e| e.in_column(&name))?;
        if array.data_type() != field.data_type() {
            return Err(Error::Value {
                row: None,
                column: name,
                detail: format!("converted to {} but the schema has {}", array.data_type(), field.data_type()),
            });
        }
        arrays.push(array);
    }
    Ok(RecordBatch::try_new_with_options(schema.clone(), arrays, &RecordBatchOptions::new().with_row_count(Some(rows)))?)
}

/// Converts a batch to a block of the target header's columns (e.g. an INSERT's table
/// columns), matched by name, with lossless casts only; anything else is an error naming the
/// column and both types. The whole batch is converted before anything is returned.
/// [`batch_into_block`] does the same without copying the buffers it can take.
pub fn batch_to_block(batch: &RecordBatch, target: &[(String, DataType)]) -> Result<Block> {
    batch_into_block(batch.clone(), target)
}

/// [`batch_to_block`] consuming the batch: the buffers of arrays that own them alone (e.g. a
/// Parquet reader's fresh batches) move into the block where the layouts agree (fixed-width
/// values of the target's Arrow type, string bytes), instead of being copied.
pub fn batch_into_block(batch: RecordBatch, target: &[(String, DataType)]) -> Result<Block> {
    if target.is_empty() && batch.num_columns() == 0 {
        return Ok(Block::without_columns(batch.num_rows()));
    }
    let (schema, columns, _) = batch.into_parts();
    let fields = schema.fields();
    if let Some((i, f)) = fields.iter().enumerate().find(|(i, f)| fields[..*i].iter().any(|g| g.name() == f.name())) {
        // Matched by name, one of them would be dropped.
        return Err(Error::Columns(format!("the batch has two columns named {} (the second at position {})", f.name(), i + 1)));
    }
    if let Some(extra) = schema.fields().iter().find(|f| !target.iter().any(|(n, _)| n == f.name())) {
        let names: Vec<&str> = target.iter().map(|(n, _)| n.as_str()).collect();
        return Err(Error::Columns(format!(
            "the batch has a column {} that the target ({}) does not have",
            extra.name(),
            names.join(", ")
        )));
    }
    let mut columns: Vec<Option<ArrayRef>> = columns.into_iter().map(Some).collect();
    let mut block = Block::new();
    for (i, (name, ty)) in target.iter().enumerate() {
        let array = schema.index_of(name).ok().and_then(|idx| {
            let slot = columns.get_mut(idx)?;
            // A target naming a column twice gets a shared copy the first time.
            if target.get(i + 1..).is_some_and(|rest| rest.iter().any(|(n, _)| n == name)) {
                slot.clone()
            } else {
                slot.take()
            }
        });
        let Some(array) = array else {
            return Err(Error::Columns(format!("the batch has no column {name} (of type {ty})")));
        };
        let column = convert_column(array, ty).map_err(|e| e.in_column(name))?;
        block.push(name.clone(), column).map_err(|e| Error::Value { column: name.clone(), row: None, detail: e.to_string() })?;
    }
    Ok(block)
}

/// Converts a batch to a block, each column of the type in its field's
/// [`CLICKHOUSE_TYPE_KEY`] metadata, or else of the natural ClickHouse type of its Arrow
/// type ([`clickhouse_type_for`]): for files written by chwire and by others (pyarrow,
/// chdb, Spark). [`batch_into_block_inferred`] does the same without copying the buffers it
/// can take.
pub fn batch_to_block_inferred(batch: &RecordBatch) -> Result<Block> {
    batch_into_block_inferred(batch.clone())
}

/// [`batch_to_block_inferred`] consuming the batch, its buffers moved as [`batch_into_block`]
/// moves them.
pub fn batch_into_block_inferred(batch: RecordBatch) -> Result<Block> {
    if batch.num_columns() == 0 {
        return Ok(Block::without_columns(batch.num_rows()));
    }
    let (schema, columns, _) = batch.into_parts();
    let mut block = Block::new();
    for (field, array) in schema.fields().iter().zip(columns) {
        let ty = clickhouse_type_for(field).map_err(|e| e.in_column(field.name()))?;
        let column = convert_column(array, &ty).map_err(|e| e.in_column(field.name()))?;
        block.push(field.name().clone(), column).map_err(|e| Error::Value {
            column: field.name().clone(),
            row: None,
            detail: e.to_string(),
        })?;
    }
    Ok(block)
}

fn convert_column(array: ArrayRef, ty: &DataType) -> Result<Column> {
    let data = take::into_column(array, ty)?;
    Column::new(ty.clone(), data).map_err(|e| Error::value(e.to_string()))
}
