//! Apache Arrow results and inserts (feature `arrow`), through [`chwire_arrow`]: the client
//! only moves blocks; the conversion layer knows no sockets.
//!
//! ```no_run
//! # async fn demo(client: &mut chwire::Client) -> chwire::Result<()> {
//! use chwire::arrow::ArrowOptions;
//! let mut stream = client.query("SELECT number, toString(number) AS s FROM numbers(10)")
//!     .fetch_arrow(ArrowOptions::rich()).await?;
//! println!("{}", stream.schema());
//! let mut batches = Vec::new();
//! while let Some(batch) = stream.next_batch().await? {
//!     batches.push(batch);
//! }
//! drop(stream); // it borrows the client
//! client.execute("CREATE TABLE IF NOT EXISTS copy (number UInt64, s String) ENGINE = Memory").await?;
//! client.insert_arrow("copy", batches).await?;
//! # Ok(()) }
//! ```

use crate::client::{Client, Query, QueryStream, QuerySummary};
use crate::error::{Error, Result};
use crate::Event;
pub use arrow_array::{RecordBatch, RecordBatchReader};
pub use arrow_schema::SchemaRef;
pub use chwire_arrow::{
    batch_into_block, batch_to_block, batch_to_block_inferred, block_to_batch, clickhouse_type_for, schema_for, schema_of_block,
    ArrowOptions, Mapping,
};
use chwire_proto::sql::TableRef;
use chwire_proto::{Block, Progress};
use std::sync::Arc;

mod insert;
pub use crate::client::{InsertOptions, INSERT_BLOCK_ROWS};
pub use insert::ArrowInsert;

fn arrow_error(e: chwire_arrow::Error) -> Error {
    Error::invalid(format!("Arrow: {e}"))
}

/// A query's results as Arrow record batches: one batch per block the server sends, the
/// schema known (from the header block) before the first batch. Holds one block at a time.
/// DateTime columns without a zone of their own are in the server's zone (unless the options
/// name one), in every front end alike.
pub struct ArrowStream<'c> {
    stream: QueryStream<'c>,
    schema: SchemaRef,
    opts: ArrowOptions,
    /// A block that arrived while waiting for the header.
    pending: Option<Block>,
    /// Progress reported while waiting for the header, not yet handed out.
    early_progress: Option<Progress>,
}

/// What an [`ArrowStream`] yields: batches, and the server's progress reports between them.
#[derive(Debug)]
pub enum ArrowEvent {
    /// The next batch.
    Batch(RecordBatch),
    /// A progress report (an increment: [`Progress::accumulate`] sums them).
    Progress(Progress),
}

impl<'c> ArrowStream<'c> {
    async fn start(mut stream: QueryStream<'c>, mut opts: ArrowOptions, server_tz: Option<String>) -> Result<ArrowStream<'c>> {
        if opts.default_timezone.is_none() {
            opts.default_timezone = server_tz;
        }
        let mut pending = None;
        let mut early_progress: Option<Progress> = None;
        while stream.header().is_none() {
            match stream.next_event().await? {
                Some(Event::Data(b)) => pending = Some(b),
                Some(Event::Progress(p)) => early_progress.get_or_insert_with(Progress::default).accumulate(&p),
                Some(_) => {}
                None => break,
            }
        }
        let schema = match stream.header() {
            Some(h) => schema_of_block(h, &opts).map_err(arrow_error)?,
            None => Arc::new(arrow_schema::Schema::empty()),
        };
        Ok(ArrowStream { stream, schema, opts, pending, early_progress })
    }

    /// The schema of every batch (each field's metadata `clickhouse.type` holds its type).
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The next batch, or `None` at the end of the results.
    pub async fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        let block = match self.pending.take() {
            Some(b) => b,
            None => match self.stream.next_block().await? {
                Some(b) => b,
                None => return Ok(None),
            },
        };
        block_to_batch(block, &self.schema, &self.opts).map(Some).map_err(arrow_error)
    }

    /// The next batch or progress report, or `None` at the end of the results.
    pub async fn next_event(&mut self) -> Result<Option<ArrowEvent>> {
        if let Some(p) = self.early_progress.take() {
            return Ok(Some(ArrowEvent::Progress(p)));
        }
        if let Some(b) = self.pending.take() {
            return self.batch(b).map(|b| Some(ArrowEvent::Batch(b)));
        }
        loop {
            match self.stream.next_event().await? {
                Some(Event::Data(b)) if b.rows() > 0 => return self.batch(b).map(|b| Some(ArrowEvent::Batch(b))),
                Some(Event::Progress(p)) => return Ok(Some(ArrowEvent::Progress(p))),
                Some(_) => {}
                None => return Ok(None),
            }
        }
    }

    fn batch(&self, block: Block) -> Result<RecordBatch> {
        block_to_batch(block, &self.schema, &self.opts).map_err(arrow_error)
    }

    /// The underlying stream (progress, profile info, totals).
    pub fn query_stream(&self) -> &QueryStream<'c> {
        &self.stream
    }

    /// All remaining batches.
    pub async fn collect(mut self) -> Result<Vec<RecordBatch>> {
        let mut out = Vec::new();
        while let Some(b) = self.next_batch().await? {
            out.push(b);
        }
        Ok(out)
    }
}

impl std::fmt::Debug for ArrowStream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrowStream").field("schema", &self.schema).field("opts", &self.opts).finish()
    }
}

impl<'c> Query<'c> {
    /// Run the query and stream its results as Arrow record batches under `opts`.
    pub async fn fetch_arrow(self, opts: ArrowOptions) -> Result<ArrowStream<'c>> {
        let tz = self.client_timezone();
        let stream = self.stream().await?;
        ArrowStream::start(stream, opts, tz).await
    }
}

impl Client {
    /// `query(sql).fetch_arrow(ArrowOptions::rich())`: the results as Arrow record batches
    /// with natural Arrow types. Use [`Client::query`] + [`Query::fetch_arrow`] for
    /// settings, parameters or the ClickHouse mapping.
    pub async fn query_arrow(&mut self, sql: impl Into<String>) -> Result<ArrowStream<'_>> {
        self.query(sql).fetch_arrow(ArrowOptions::rich()).await
    }

    /// Insert record batches into `table` (a [`TableRef`] or its text: `t`, `db.t`, quoted
    /// parts; never pasted into SQL) — the columns the first batch names, in its order. Each
    /// batch is converted to the table's column types (lossless casts only; see
    /// [`batch_to_block`]) and checked before it is sent; a batch that does not fit ends the
    /// insert with an error naming the column and both types (the batches before it were
    /// sent: the error says how many rows). For settings, a query id, matching by position or
    /// another block size: [`Client::query`] of an INSERT statement, then
    /// [`Query::insert_arrow`].
    pub async fn insert_arrow<I: IntoIterator<Item = RecordBatch>>(
        &mut self,
        table: impl TryInto<TableRef, Error: Into<Error>>,
        batches: I,
    ) -> Result<QuerySummary> {
        let mut batches = batches.into_iter().peekable();
        let Some(first) = batches.peek() else { return Ok(QuerySummary::default()) };
        let sql = insert_statement(table, &first.schema())?;
        let mut ins = self.query(sql).insert_arrow().await?;
        for b in batches {
            ins.send_batch(b).await?;
        }
        ins.end().await
    }

    /// [`Client::insert_arrow`] from a reader (an Arrow IPC or Parquet reader, a pyarrow
    /// stream): the columns are the reader's schema's.
    pub async fn insert_arrow_reader(
        &mut self,
        table: impl TryInto<TableRef, Error: Into<Error>>,
        reader: impl RecordBatchReader,
    ) -> Result<QuerySummary> {
        let sql = insert_statement(table, &reader.schema())?;
        let mut ins = self.query(sql).insert_arrow().await?;
        for b in reader {
            match b {
                Ok(b) => ins.send_batch(b).await?,
                Err(e) => return Err(ins.refuse(format!("Arrow: reading a batch: {e}")).await),
            }
        }
        ins.end().await
    }
}

/// `INSERT INTO table (the schema's columns) VALUES`, every name quoted.
fn insert_statement(table: impl TryInto<TableRef, Error: Into<Error>>, schema: &arrow_schema::Schema) -> Result<String> {
    crate::client::insert_sql(table, Some(schema.fields().iter().map(|f| f.name().clone()).collect()))
}
