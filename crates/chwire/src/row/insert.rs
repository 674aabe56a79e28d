//! Inserting typed rows: rows are appended to column builders and sent as blocks.

use std::marker::PhantomData;

use super::{Builders, Row};
use crate::client::{Insert, QuerySummary};
use crate::error::{Error, ErrorKind, Result};
use chwire_proto::Block;

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
    builders: Builders,
    limits: InsertLimits,
    /// Rows since the byte size was last measured.
    unmeasured: usize,
}

impl<'c> Batch<'c> {
    pub(crate) fn new(insert: Insert<'c>, limits: InsertLimits) -> Result<Batch<'c>> {
        let builders = Builders::new(insert.header().columns().iter().map(|(n, c)| (n.clone(), c.data_type().clone())))?;
        Ok(Batch { insert, builders, limits, unmeasured: 0 })
    }

    pub(crate) fn header(&self) -> &Block {
        self.insert.header()
    }

    /// Append one row with `f`; a row `f` could only partly append is undone.
    #[inline]
    pub(crate) fn push(&mut self, f: impl FnOnce(&mut Builders) -> chwire_row::Result<()>) -> Result<bool> {
        self.builders.append(f)?;
        self.unmeasured += 1;
        if self.builders.rows() >= self.limits.max_rows {
            return Ok(true);
        }
        if self.unmeasured >= 256 {
            self.unmeasured = 0;
            return Ok(self.builders.approx_bytes() >= self.limits.max_bytes);
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
        let block = self.builders.take_block()?;
        self.unmeasured = 0;
        self.insert.send(&block).await?;
        self.builders.reuse(block);
        Ok(())
    }

    pub(crate) async fn end(mut self) -> Result<QuerySummary> {
        self.flush().await?;
        self.insert.end().await
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
