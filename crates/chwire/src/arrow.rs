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
use chwire_proto::packet::client::quote_identifiers;
use chwire_proto::{Block, DataType};
use std::sync::Arc;

/// Rows per block sent by [`Client::insert_arrow`]: larger batches are sent in slices, so
/// that the converted block stays bounded.
pub const INSERT_BLOCK_ROWS: usize = 1 << 20;

fn arrow_error(e: chwire_arrow::Error) -> Error {
    Error::invalid(format!("Arrow: {e}"))
}

/// A query's results as Arrow record batches: one batch per block the server sends, the
/// schema known (from the header block) before the first batch. Holds one block at a time.
pub struct ArrowStream<'c> {
    stream: QueryStream<'c>,
    schema: SchemaRef,
    opts: ArrowOptions,
    /// A block that arrived while waiting for the header.
    pending: Option<Block>,
}

impl<'c> ArrowStream<'c> {
    async fn start(mut stream: QueryStream<'c>, mut opts: ArrowOptions, server_tz: Option<String>) -> Result<ArrowStream<'c>> {
        if opts.default_timezone.is_none() {
            opts.default_timezone = server_tz;
        }
        let mut pending = None;
        while stream.header().is_none() {
            match stream.next_event().await? {
                Some(Event::Data(b)) => pending = Some(b),
                Some(_) => {}
                None => break,
            }
        }
        let schema = match stream.header() {
            Some(h) => schema_of_block(h, &opts).map_err(arrow_error)?,
            None => Arc::new(arrow_schema::Schema::empty()),
        };
        Ok(ArrowStream { stream, schema, opts, pending })
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

    /// Insert record batches into `table` (SQL: `t`, `db.t`, backquoted) — the columns the
    /// first batch names, in its order. Each batch is converted to the table's column types
    /// (lossless casts only; see [`batch_to_block`]) and checked before it is sent; a batch
    /// that does not fit ends the insert with an error naming the column and both types (the
    /// batches before it were sent: the error says how many rows).
    pub async fn insert_arrow<I: IntoIterator<Item = RecordBatch>>(&mut self, table: &str, batches: I) -> Result<QuerySummary> {
        self.insert_batches(table, None, batches.into_iter().map(Ok)).await
    }

    /// [`Client::insert_arrow`] from a reader (an Arrow IPC or Parquet reader, a pyarrow
    /// stream): the columns are the reader's schema's.
    pub async fn insert_arrow_reader(&mut self, table: &str, reader: impl RecordBatchReader) -> Result<QuerySummary> {
        let schema = reader.schema();
        self.insert_batches(table, Some(schema), reader.map(|b| b.map_err(|e| e.to_string()))).await
    }

    async fn insert_batches(
        &mut self,
        table: &str,
        schema: Option<SchemaRef>,
        batches: impl Iterator<Item = std::result::Result<RecordBatch, String>>,
    ) -> Result<QuerySummary> {
        let mut batches = batches.peekable();
        let schema = match (schema, batches.peek()) {
            (Some(s), _) => s,
            (None, Some(Ok(b))) => b.schema(),
            (None, Some(Err(e))) => return Err(Error::invalid(format!("Arrow: reading a batch: {e}"))),
            (None, None) => return Ok(QuerySummary::default()),
        };
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        let mut insert = self.insert_blocks(format!("INSERT INTO {table} ({}) VALUES", quote_identifiers(&names))).await?;
        let target: Vec<(String, DataType)> = insert.header().columns().iter().map(|(n, c)| (n.clone(), c.data_type().clone())).collect();
        let mut rows = 0u64;
        let done = |rows: u64| if rows == 0 { "nothing was inserted".to_string() } else { format!("{rows} rows were sent before it") };
        for batch in batches {
            let batch = batch.map_err(|e| Error::invalid(format!("Arrow: reading a batch: {e}; {}", done(rows))))?;
            // A batch of one block moves its buffers into the block where it can.
            let chunks = match batch.num_rows() {
                n if n <= INSERT_BLOCK_ROWS => vec![batch],
                n => (0..n).step_by(INSERT_BLOCK_ROWS).map(|at| batch.slice(at, INSERT_BLOCK_ROWS.min(n - at))).collect(),
            };
            for chunk in chunks {
                let len = chunk.num_rows();
                let block = batch_into_block(chunk, &target).map_err(|e| Error::invalid(format!("Arrow: {e}; {}", done(rows))))?;
                insert.send(&block).await?;
                rows += len as u64;
            }
        }
        let mut summary = insert.end().await?;
        summary.rows_sent = rows;
        Ok(summary)
    }
}
