//! [`ArrowInsert`]: an INSERT fed with Arrow record batches, the one insert loop of every front
//! end (Rust's `insert_arrow`, Python, ADBC, Elixir, Node and both Spark sources).

use super::{batch_into_block, RecordBatch};
use crate::client::{Insert, InsertOptions, Query, QuerySummary, INSERT_BLOCK_ROWS};
use crate::error::{Error, Result};
use arrow_schema::{Field, Schema};
use chwire_proto::{Block, DataType};
use std::sync::Arc;

/// An INSERT of Arrow record batches: each batch is converted to the table's column types
/// (lossless casts only, [`batch_into_block`]) and checked whole before any of it is sent.
/// Batches are gathered and cut into blocks of exactly the block size (the rows left over
/// wait for the next batch), but the last, and one before a batch of other columns.
///
/// Data that is refused (a column the table lacks, a value that does not fit, a reader's
/// failure given to [`refuse`]) ends the INSERT with the blocks before it committed, as every
/// front end's insert does (ClickHouse has no transactions: what was sent may already be in
/// the table, so it is committed and counted rather than left to chance); the error says how
/// many rows went in. Any other error (the connection, the server) leaves the INSERT to be
/// dropped, which aborts it (the connection is closed, as for [`Insert`]).
///
/// [`refuse`]: ArrowInsert::refuse
pub struct ArrowInsert<'c> {
    /// `None` once a refusal ended it.
    insert: Option<Insert<'c>>,
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
            insert: Some(insert),
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

    /// The insert options (a binding's, [`InsertOptions::take`]).
    pub fn options(self, o: &InsertOptions) -> Self {
        self.block_rows(o.block_rows)
    }

    /// The columns the INSERT takes: names and types, in order.
    pub fn target(&self) -> &[(String, DataType)] {
        &self.target
    }

    /// Rows sent so far.
    pub fn rows_sent(&self) -> u64 {
        self.rows_sent
    }

    /// End the INSERT for data it cannot take (`msg` says why: a reader's failure): the
    /// batches gathered before are sent and everything sent is committed. The error to return,
    /// saying how many rows went in.
    pub async fn refuse(&mut self, msg: impl std::fmt::Display) -> Error {
        if let Err(e) = self.flush(true).await {
            return e;
        }
        self.refused(msg).await
    }

    /// The INSERT ended with what was sent committed; the error saying so.
    async fn refused(&mut self, msg: impl std::fmt::Display) -> Error {
        self.pending.clear();
        self.pending_rows = 0;
        if let Some(insert) = self.insert.take() {
            if let Err(e) = insert.end().await {
                return e;
            }
        }
        let done = match self.rows_sent {
            0 => "nothing was inserted".to_string(),
            1 => "the 1 row before it was inserted".to_string(),
            n => format!("the {n} rows before it were inserted"),
        };
        Error::invalid(format!("{msg}; {done}")).with_rows_inserted(self.rows_sent)
    }

    /// The INSERT, unless a refusal ended it.
    fn open(&mut self) -> Result<&mut Insert<'c>> {
        self.insert.as_mut().ok_or_else(|| Error::invalid("the insert was ended by refused data"))
    }

    /// Add a batch: sent once the batches gathered reach the block size.
    pub async fn send_batch(&mut self, batch: RecordBatch) -> Result<()> {
        self.open()?;
        let batch = if self.by_position {
            match self.renamed(batch) {
                Ok(b) => b,
                Err(msg) => return Err(self.refuse(msg).await),
            }
        } else {
            batch
        };
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if let Some(first) = self.pending.first() {
            if first.schema().fields() != batch.schema().fields() {
                // A batch of another shape cannot be gathered with the ones before it.
                self.flush(true).await?;
            }
        }
        self.pending_rows += batch.num_rows();
        self.pending.push(batch);
        if self.pending_rows >= self.block_rows {
            self.flush(false).await?;
        }
        Ok(())
    }

    /// Send a block already of the INSERT's columns (a binding's rows converted by its own
    /// host's rules), after the batches gathered before it.
    pub async fn send_block(&mut self, block: &Block) -> Result<()> {
        self.flush(true).await?;
        self.open()?.send(block).await?;
        self.rows_sent += block.rows() as u64;
        Ok(())
    }

    /// Send what is gathered, then end the INSERT: its summary (`rows_sent` counts the rows).
    /// A gathered batch refused here ends it as any refusal does.
    pub async fn end(mut self) -> Result<QuerySummary> {
        self.open()?;
        self.flush(true).await?;
        let insert = self.insert.take().expect("open");
        let mut summary = insert.end().await?;
        summary.rows_sent = self.rows_sent;
        Ok(summary)
    }

    /// Send the gathered batches in blocks of `block_rows` rows; the rows left over stay
    /// gathered for the next batch, or (`all`) go as a smaller block.
    async fn flush(&mut self, all: bool) -> Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.pending_rows = 0;
        let batch = match pending.len() {
            0 => return Ok(()),
            // A single batch moves its buffers into the block where it can.
            1 => pending.into_iter().next().expect("one batch"),
            _ => match arrow_select::concat::concat_batches(&pending[0].schema(), &pending) {
                Ok(b) => b,
                Err(e) => return Err(self.refused(format!("Arrow: gathering batches: {e}")).await),
            },
        };
        let n = batch.num_rows();
        if n == self.block_rows || (all && n < self.block_rows) {
            return self.send_chunk(batch).await;
        }
        // Cut as it goes: a batch's row count is not bounded by its buffers (a Null column
        // has none), so no list of its slices is made up front.
        let mut at = 0;
        while n - at >= self.block_rows || (all && at < n) {
            let len = self.block_rows.min(n - at);
            self.send_chunk(batch.slice(at, len)).await?;
            at += len;
        }
        if at < n {
            self.pending_rows = n - at;
            self.pending.push(batch.slice(at, n - at));
        }
        Ok(())
    }

    /// Convert one block's batch to the target's types and send it.
    async fn send_chunk(&mut self, chunk: RecordBatch) -> Result<()> {
        let len = chunk.num_rows() as u64;
        let block = match batch_into_block(chunk, &self.target) {
            Ok(b) => b,
            // The chunk's rows follow those sent: a row is counted from the data's start.
            Err(e) => return Err(self.refused(format!("Arrow: {}", e.from_row(self.rows_sent))).await),
        };
        self.open()?.send(&block).await?;
        self.rows_sent += len;
        Ok(())
    }

    /// The batch's columns named as the target's, position by position (its buffers moved);
    /// why not.
    fn renamed(&self, batch: RecordBatch) -> std::result::Result<RecordBatch, String> {
        if batch.num_columns() != self.target.len() {
            return Err(format!("{} columns given for an INSERT of {} columns", batch.num_columns(), self.target.len()));
        }
        let (schema, columns, _) = batch.into_parts();
        let fields: Vec<Field> =
            schema.fields().iter().zip(&self.target).map(|(f, (n, _))| f.as_ref().clone().with_name(n.clone())).collect();
        RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(|e| format!("Arrow: {e}"))
    }
}
