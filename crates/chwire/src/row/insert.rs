//! Inserting typed rows: rows are appended to column builders and sent as blocks.

use std::marker::PhantomData;

use super::{Builders, Row};
use crate::client::{Insert, QuerySummary};
use crate::error::{Error, ErrorKind, Result};
use chwire_proto::column::encode_low_cardinality;
use chwire_proto::{Block, Column, ColumnData, DataType};

/// When an inserter sends the rows it has gathered as one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InsertLimits {
    /// Send a block once it has this many rows (default 1,048,576, ClickHouse's
    /// `max_insert_block_size`).
    pub max_rows: usize,
    /// ... or once its columns hold about this many bytes (default 64 MiB).
    pub max_bytes: usize,
}

impl Default for InsertLimits {
    fn default() -> Self {
        InsertLimits { max_rows: 1_048_576, max_bytes: 64 << 20 }
    }
}

/// Column builders for the rows of one block, and the running insert they go to.
pub(crate) struct Batch<'c> {
    insert: Insert<'c>,
    /// The table's types (as the header block gives them).
    types: Vec<DataType>,
    builders: Builders,
    limits: InsertLimits,
    /// Rows since the byte size was last measured.
    unmeasured: usize,
}

impl<'c> Batch<'c> {
    pub(crate) fn new(insert: Insert<'c>, limits: InsertLimits) -> Result<Batch<'c>> {
        let types: Vec<DataType> = insert.header().columns().iter().map(|(_, c)| c.data_type().clone()).collect();
        let builders = Builders::new(insert.header().columns().iter().map(|(n, c)| (n.clone(), c.data_type().clone())))?;
        Ok(Batch { insert, types, builders, limits, unmeasured: 0 })
    }

    pub(crate) fn header(&self) -> &Block {
        self.insert.header()
    }

    /// Append one row with `f`; a row `f` could only partly append is undone.
    #[inline]
    pub(crate) fn push(&mut self, f: impl FnOnce(&mut Builders) -> Result<()>) -> Result<bool> {
        self.builders.append(f)?;
        self.unmeasured += 1;
        if self.builders.rows() >= self.limits.max_rows {
            return Ok(true);
        }
        if self.unmeasured >= 256 {
            self.unmeasured = 0;
            return Ok(self.builders.cols_mut().iter().map(approx_bytes).sum::<usize>() >= self.limits.max_bytes);
        }
        Ok(false)
    }

    pub(crate) fn rows(&self) -> usize {
        self.builders.rows()
    }

    /// Send the gathered rows as one block (nothing if there are none), keeping the
    /// builders' capacity for the next block.
    pub(crate) async fn flush(&mut self) -> Result<()> {
        if self.builders.rows() == 0 {
            return Ok(());
        }
        // Check every builder before taking any apart, so a failure leaves the rows pending.
        self.builders.check()?;
        let mut block = Block::new();
        for (i, (name, _)) in self.insert.header().columns().iter().enumerate() {
            let empty = ColumnData::empty_for(&self.builders.types()[i])?;
            let mut plain = std::mem::replace(&mut self.builders.cols_mut()[i], empty);
            chwire_proto::column::finish_dynamic(&mut plain);
            let data = encode_low_cardinality(&self.types[i], plain)?;
            block.push(name.clone(), Column::new(self.types[i].clone(), data)?)?;
        }
        self.builders.reset_rows();
        self.unmeasured = 0;
        self.insert.send(&block).await?;
        for (i, (_, c)) in block.into_columns().into_iter().enumerate() {
            // Builders are kept for the next block, except dictionary-encoded ones and Dynamic
            // ones, whose type lists would otherwise only grow.
            if !self.types[i].has_low_cardinality() && !has_dynamic(&self.types[i]) {
                let (_, mut data) = c.into_parts();
                data.truncate(0)?;
                self.builders.cols_mut()[i] = data;
            }
        }
        Ok(())
    }

    pub(crate) async fn end(mut self) -> Result<QuerySummary> {
        self.flush().await?;
        self.insert.end().await
    }
}

/// Whether a Dynamic column occurs anywhere in `ty`.
fn has_dynamic(ty: &DataType) -> bool {
    match ty.structural() {
        DataType::Dynamic { .. } => true,
        DataType::Nullable(t) | DataType::Array(t) | DataType::LowCardinality(t) => has_dynamic(t),
        DataType::Map(k, v) => has_dynamic(k) || has_dynamic(v),
        DataType::Tuple(items) => items.iter().any(|(_, t)| has_dynamic(t)),
        DataType::Nested(fields) => fields.iter().any(|(_, t)| has_dynamic(t)),
        DataType::Variant(types) => types.iter().any(has_dynamic),
        _ => false,
    }
}

/// Roughly how many bytes a column builder holds.
fn approx_bytes(c: &ColumnData) -> usize {
    use ColumnData as D;
    match c {
        D::UInt8(v) => v.len(),
        D::Int8(v) => v.len(),
        D::UInt16(v) => v.len() * 2,
        D::Int16(v) => v.len() * 2,
        D::UInt32(v) => v.len() * 4,
        D::Int32(v) => v.len() * 4,
        D::Float32(v) => v.len() * 4,
        D::UInt64(v) => v.len() * 8,
        D::Int64(v) => v.len() * 8,
        D::Float64(v) => v.len() * 8,
        D::UInt128(v) => v.len() * 16,
        D::Int128(v) => v.len() * 16,
        D::Fixed { data, .. } => data.len(),
        D::String(s) => s.data().len() + s.len() * 8,
        D::Nullable(n) => n.nulls.len() + approx_bytes(&n.values),
        D::Array(a) => a.offsets.len() * 8 + approx_bytes(&a.values),
        D::Tuple(t) => t.elements.iter().map(approx_bytes).sum(),
        D::LowCardinality(l) => l.keys.len() * 8 + approx_bytes(&l.dictionary),
        D::Variant(v) => v.discriminators.len() * 5 + v.variants.iter().map(approx_bytes).sum::<usize>(),
        D::Dynamic(d) => d.values.discriminators.len() * 5 + d.values.variants.iter().map(approx_bytes).sum::<usize>(),
        D::Json(j) => j.text.as_ref().map_or(0, |t| t.data().len() + t.len() * 8),
        _ => 0,
    }
}

/// Inserts rows of `T` into a table: rows are gathered into blocks (see [`InsertLimits`])
/// and sent as each block fills. Call [`Inserter::end`] to send the rest and get the
/// server's confirmation; dropping an inserter without `end` aborts the insert (the
/// connection is closed, so nothing of it is committed).
///
/// `T` is checked against the table's columns before the first row: every field must have
/// a column, of a type the field's Rust type can be written into.
pub struct Inserter<'c, T> {
    batch: Batch<'c>,
    _row: PhantomData<fn(&T)>,
}

impl<'c, T: Row> Inserter<'c, T> {
    pub(crate) fn new(insert: Insert<'c>, limits: InsertLimits) -> Result<Self> {
        T::bind_write(insert.header(), 0)?;
        if insert.header().num_columns() != T::COLUMN_COUNT {
            return Err(Error::new(ErrorKind::Row(format!(
                "the insert takes {} columns, {} has {}",
                insert.header().num_columns(),
                std::any::type_name::<T>(),
                T::COLUMN_COUNT
            ))));
        }
        Ok(Inserter { batch: Batch::new(insert, limits)?, _row: PhantomData })
    }

    /// Change when blocks are sent.
    pub fn with_limits(mut self, limits: InsertLimits) -> Self {
        self.batch.limits = limits;
        self
    }

    /// The table's columns as the server described them.
    pub fn header(&self) -> &Block {
        self.batch.header()
    }

    /// Append one row; sends a block when the limits are reached. A row that does not fit
    /// (a value out of range, NULL in a non-Nullable column) is an error and is not
    /// appended; the rows before it are kept.
    pub async fn write(&mut self, row: &T::Value<'_>) -> Result<()> {
        if self.batch.push(|b| row.write(b, 0))? {
            self.batch.flush().await?;
        }
        Ok(())
    }

    /// Append every row of `rows`.
    pub async fn write_all<'r, I>(&mut self, rows: I) -> Result<()>
    where
        I: IntoIterator<Item = &'r T::Value<'r>>,
        T::Value<'r>: 'r,
    {
        for r in rows {
            self.write(r).await?;
        }
        Ok(())
    }

    /// Append every row a stream yields (e.g. rows arriving from a channel or another
    /// query), sending blocks as they fill; returns how many rows it appended.
    pub async fn write_stream<'r, S>(&mut self, stream: S) -> Result<u64>
    where
        S: futures_core::Stream<Item = T::Value<'r>>,
    {
        let mut stream = std::pin::pin!(stream);
        let mut n = 0;
        while let Some(row) = std::future::poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
            self.write(&row).await?;
            n += 1;
        }
        Ok(n)
    }

    /// Send the rows gathered so far as a block now.
    pub async fn flush(&mut self) -> Result<()> {
        self.batch.flush().await
    }

    /// Rows appended but not yet sent.
    pub fn pending_rows(&self) -> usize {
        self.batch.rows()
    }

    /// Send the remaining rows and wait for the server to confirm the insert.
    pub async fn end(self) -> Result<QuerySummary> {
        self.batch.end().await
    }
}

impl<T> std::fmt::Debug for Inserter<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inserter").field("row_type", &std::any::type_name::<T>()).field("pending_rows", &self.batch.rows()).finish()
    }
}
