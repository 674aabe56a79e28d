//! [`ArrowInsert`]: an INSERT fed with Arrow record batches, the one insert loop of every front
//! end (Rust's `insert_arrow`, Python, ADBC, Elixir, Node and both Spark sources).

use super::{batch_into_block, RecordBatch};
use crate::client::{Insert, Query, QuerySummary};
use crate::error::{Error, Result};
use arrow_schema::{Field, Schema};
use chwire_proto::DataType;
use std::sync::Arc;

/// Rows per block an [`ArrowInsert`] sends by default (the option `block_rows`): larger
/// batches are cut, smaller ones gathered up to it, so that a converted block stays bounded
/// and small batches do not each cost a block.
pub const INSERT_BLOCK_ROWS: usize = 1 << 20;

/// An INSERT of Arrow record batches: each batch is converted to the table's column types
/// (lossless casts only, [`batch_into_block`]) and checked whole before any of it is sent.
/// Batches smaller than the block size are gathered into one block, larger ones cut.
///
/// A batch that is refused (a column the table lacks, a value that does not fit) is an error
/// that says how many rows were sent before it; the INSERT is then still open: [`end`]
/// commits what was sent (nothing, if nothing was), and dropping it aborts the INSERT (the
/// connection is closed, as for [`Insert`]).
///
/// [`end`]: ArrowInsert::end
pub struct ArrowInsert<'c> {
    insert: Insert<'c>,
    target: Vec<(String, DataType)>,
    by_position: bool,
    block_rows: usize,
    pending: Vec<RecordBatch>,
    pending_rows: usize,
    rows_sent: u64,
}

impl<'c> Query<'c> {
    /// Start an INSERT (a statement that takes data: `INSERT INTO t [(cols)] VALUES`) fed with
    /// Arrow batches, with this query's settings and id.
    pub async fn insert_arrow(self) -> Result<ArrowInsert<'c>> {
        let insert = self.insert_blocks().await?;
        let target = insert.header().columns().iter().map(|(n, c)| (n.clone(), c.data_type().clone())).collect();
        Ok(ArrowInsert {
            insert,
            target,
            by_position: false,
            block_rows: INSERT_BLOCK_ROWS,
            pending: Vec::new(),
            pending_rows: 0,
            rows_sent: 0,
        })
    }
}

impl<'c> ArrowInsert<'c> {
    /// Match a batch's columns to the INSERT's by position (the batch's names are ignored)
    /// instead of by name.
    pub fn by_position(mut self, yes: bool) -> Self {
        self.by_position = yes;
        self
    }

    /// Rows per block sent (at least 1; default [`INSERT_BLOCK_ROWS`]).
    pub fn block_rows(mut self, rows: usize) -> Self {
        self.block_rows = rows.max(1);
        self
    }

    /// The columns the INSERT takes: names and types, in order.
    pub fn target(&self) -> &[(String, DataType)] {
        &self.target
    }

    /// Rows sent so far.
    pub fn rows_sent(&self) -> u64 {
        self.rows_sent
    }

    /// An error about the data, saying how much of it went out before.
    pub fn refused(&self, msg: impl std::fmt::Display) -> Error {
        let done = match self.rows_sent {
            0 => "nothing was inserted".to_string(),
            n => format!("{n} rows were sent before it"),
        };
        Error::invalid(format!("{msg}; {done}"))
    }

    /// Add a batch: sent once the batches gathered reach the block size.
    pub async fn send_batch(&mut self, batch: RecordBatch) -> Result<()> {
        let batch = if self.by_position { self.renamed(batch)? } else { batch };
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if let Some(first) = self.pending.first() {
            if first.schema().fields() != batch.schema().fields() {
                // A batch of another shape cannot be gathered with the ones before it.
                self.flush().await?;
            }
        }
        self.pending_rows += batch.num_rows();
        self.pending.push(batch);
        if self.pending_rows >= self.block_rows {
            self.flush().await?;
        }
        Ok(())
    }

    /// Send what is gathered, then end the INSERT: its summary (`rows_sent` counts the rows).
    ///
    /// A gathered batch refused here when nothing was sent yet ends the INSERT with no rows
    /// (the connection, and a session's temporary tables, stay); after rows were sent, the
    /// INSERT is aborted as when dropped.
    pub async fn end(mut self) -> Result<QuerySummary> {
        if let Err(e) = self.flush().await {
            if self.rows_sent == 0 && matches!(e.kind(), crate::ErrorKind::InvalidInput(_)) {
                self.insert.end().await?;
            }
            return Err(e);
        }
        let mut summary = self.insert.end().await?;
        summary.rows_sent = self.rows_sent;
        Ok(summary)
    }

    /// Send the gathered batches, in blocks of at most `block_rows` rows.
    async fn flush(&mut self) -> Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.pending_rows = 0;
        let batch = match pending.len() {
            0 => return Ok(()),
            // A single batch moves its buffers into the block where it can.
            1 => pending.into_iter().next().expect("one batch"),
            _ => arrow_select::concat::concat_batches(&pending[0].schema(), &pending)
                .map_err(|e| self.refused(format!("Arrow: gathering batches: {e}")))?,
        };
        let n = batch.num_rows();
        if n <= self.block_rows {
            return self.send_chunk(batch).await;
        }
        // Cut as it goes: a batch's row count is not bounded by its buffers (a Null column
        // has none), so no list of its slices is made up front.
        let mut at = 0;
        while at < n {
            let len = self.block_rows.min(n - at);
            self.send_chunk(batch.slice(at, len)).await?;
            at += len;
        }
        Ok(())
    }

    /// Convert one block's batch to the target's types and send it.
    async fn send_chunk(&mut self, chunk: RecordBatch) -> Result<()> {
        let len = chunk.num_rows() as u64;
        let block = batch_into_block(chunk, &self.target).map_err(|e| self.refused(format!("Arrow: {e}")))?;
        self.insert.send(&block).await?;
        self.rows_sent += len;
        Ok(())
    }

    /// The batch's columns named as the target's, position by position (its buffers moved).
    fn renamed(&self, batch: RecordBatch) -> Result<RecordBatch> {
        if batch.num_columns() != self.target.len() {
            return Err(self.refused(format!("{} columns given for an INSERT of {} columns", batch.num_columns(), self.target.len())));
        }
        let (schema, columns, _) = batch.into_parts();
        let fields: Vec<Field> =
            schema.fields().iter().zip(&self.target).map(|(f, (n, _))| f.as_ref().clone().with_name(n.clone())).collect();
        RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(|e| self.refused(format!("Arrow: {e}")))
    }
}
