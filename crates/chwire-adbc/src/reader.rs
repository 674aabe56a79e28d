//! A running query as an Arrow record batch reader (exported as an ArrowArrayStream).
//!
//! A task on the connection's runtime holds the client for the query's duration: it reads
//! the result through chwire's `fetch_arrow` (each block turned into a batch by chwire-arrow,
//! buffers moved) and hands the batches to a channel of [`BUFFERED`] batches, so memory stays
//! bounded by a block or two whatever the result's size. The reader waits on the channel from
//! the consumer's thread. Dropping the reader closes the channel: the task stops, chwire sends
//! Cancel and drains the query before the connection's next one. A task stopped by Cancel or by
//! the release of its statement or connection ends the reader with an error saying which.

use crate::error::ChResult;
use crate::params::ParamSet;
use crate::session::Running;
use adbc_core::error::{Error, Result};
use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, Schema, SchemaRef};
use chwire_arrow::ArrowOptions;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc;

/// Batches decoded ahead of the consumer (one more is decoded meanwhile): memory stays bounded
/// by that many blocks. With 2, W1 read into a pyarrow Table took 1.12-1.20x the wall time of
/// chwire's own `query_arrow` (which buffers 64 for a whole-table read): the decoding thread
/// and the consumer waited for each other at every batch. 16 keeps both busy (0.98-1.04x,
/// `make adbc-bench`) for 16 blocks (about 16 × 65,536 rows) at most.
pub const BUFFERED: usize = 16;

pub enum Msg {
    Schema(SchemaRef),
    Batch(RecordBatch),
    End,
}

pub type Tx = mpsc::Sender<Result<Msg>>;

/// What one execution runs: the SQL, once per parameter set (once without parameters).
pub struct Job {
    pub sql: String,
    pub sets: Vec<ParamSet>,
    pub settings: Vec<(String, String)>,
}

/// Run `job` and send its schema, then its batches, then `End` (or an error).
/// `waiting` is set while the task waits for the reader to take a batch (the channel is full).
/// The connection (`lease`) is given back before the end is sent.
pub async fn query_task(mut lease: chwire::Lease, job: Job, opts: ArrowOptions, tx: Tx, waiting: Arc<AtomicBool>) {
    let res = match lease.client() {
        Ok(c) => {
            let res = run(c, job, &opts, &Sender { tx: &tx, waiting: &waiting }).await;
            let _ = c.settle().await; // an HTTP query left by a consumer that went away
            res
        }
        Err(e) => Err(crate::error::from_chwire(e)),
    };
    drop(lease);
    let _ = tx.send(res.map(|()| Msg::End)).await;
}

/// The task's end of the channel, which says when it waits for the reader.
struct Sender<'a> {
    tx: &'a Tx,
    waiting: &'a AtomicBool,
}

impl Sender<'_> {
    /// Send `m`; false once the reader is gone.
    async fn send(&self, m: Msg) -> bool {
        match self.tx.try_send(Ok(m)) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Closed(_)) => false,
            Err(mpsc::error::TrySendError::Full(m)) => {
                self.waiting.store(true, Ordering::Release);
                let sent = self.tx.send(m).await.is_ok();
                self.waiting.store(false, Ordering::Release);
                sent
            }
        }
    }

    async fn closed(&self) {
        self.tx.closed().await
    }
}

async fn run(c: &mut chwire::Client, job: Job, opts: &ArrowOptions, tx: &Sender<'_>) -> Result<()> {
    let sets = if job.sets.is_empty() { vec![Vec::new()] } else { job.sets };
    let mut schema: Option<SchemaRef> = None;
    for set in sets {
        let mut q = c.query(job.sql.clone());
        for (k, v) in &job.settings {
            q = q.setting(k.clone(), v.clone());
        }
        for (k, v) in set {
            q = q.param(k, v);
        }
        let mut stream = q.fetch_arrow(opts.clone()).await.ch()?;
        match &schema {
            None => {
                schema = Some(stream.schema());
                if !tx.send(Msg::Schema(stream.schema())).await {
                    return Ok(());
                }
            }
            // Column names may differ between parameter sets (an 18.16 server names a column by
            // its expression, the bound literal included): the types must agree.
            Some(s) if !same_types(s, &stream.schema()) => {
                return Err(crate::error::invalid_data("the parameter sets gave results of different types"));
            }
            Some(_) => {}
        }
        let schema0 = schema.clone();
        loop {
            let b = tokio::select! {
                biased;
                _ = tx.closed() => return Ok(()),
                b = stream.next_batch() => b.ch()?,
            };
            let Some(mut b) = b else { break };
            if let Some(s) = schema0.as_ref().filter(|s| !Arc::ptr_eq(s, &b.schema())) {
                b = RecordBatch::try_new(s.clone(), b.columns().to_vec())?;
            }
            if !tx.send(Msg::Batch(b)).await {
                return Ok(());
            }
        }
    }
    Ok(())
}

fn same_types(a: &Schema, b: &Schema) -> bool {
    a.fields().len() == b.fields().len()
        && a.fields().iter().zip(b.fields()).all(|(x, y)| x.data_type() == y.data_type() && x.is_nullable() == y.is_nullable())
}

/// The consumer end.
pub struct StreamReader {
    schema: SchemaRef,
    rx: Option<mpsc::Receiver<Result<Msg>>>,
    running: Arc<Running>,
    /// Set once the stream failed: later reads repeat it.
    failed: Option<String>,
}

fn arrow_err(e: Error) -> ArrowError {
    // The C stream carries a message only (its errno is EINVAL): the ClickHouse code is in it.
    ArrowError::ExternalError(Box::new(e))
}

impl StreamReader {
    /// Wait for the query's schema (or its error). `None` from the channel without `End`: the
    /// task was stopped (cancel, release).
    pub fn open(mut rx: mpsc::Receiver<Result<Msg>>, running: Arc<Running>) -> Result<StreamReader> {
        crate::runtime::check_not_async()?;
        match rx.blocking_recv() {
            Some(Ok(Msg::Schema(schema))) => Ok(StreamReader { schema, rx: Some(rx), running, failed: None }),
            Some(Ok(Msg::End)) => Ok(StreamReader { schema: Arc::new(Schema::empty()), rx: None, running, failed: None }),
            Some(Ok(Msg::Batch(_))) => Err(crate::error::internal("a batch came before the schema")),
            Some(Err(e)) => Err(e),
            None => Err(crate::error::cancelled(*running.why.lock().unwrap_or_else(|e| e.into_inner()))),
        }
    }

    fn next_inner(&mut self) -> Option<std::result::Result<RecordBatch, ArrowError>> {
        if let Some(m) = &self.failed {
            return Some(Err(ArrowError::ExternalError(m.clone().into())));
        }
        let rx = self.rx.as_mut()?;
        if let Err(e) = crate::runtime::check_not_async() {
            return Some(Err(arrow_err(e)));
        }
        let e = match rx.blocking_recv() {
            Some(Ok(Msg::Batch(b))) => return Some(Ok(b)),
            Some(Ok(Msg::End)) => {
                self.rx = None;
                return None;
            }
            Some(Ok(Msg::Schema(_))) => crate::error::internal("a second schema in one result"),
            Some(Err(e)) => e,
            None => crate::error::cancelled(*self.running.why.lock().unwrap_or_else(|e| e.into_inner())),
        };
        self.rx = None;
        self.failed = Some(format!("{e} (the rest of the result is gone)"));
        Some(Err(arrow_err(e)))
    }
}

impl Iterator for StreamReader {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        // The C stream's get_next has no panic guard of its own: none may cross it.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.next_inner())) {
            Ok(r) => r,
            Err(_) => {
                self.rx = None;
                self.failed = Some("internal error: the driver panicked while reading the result".into());
                Some(Err(ArrowError::ExternalError("internal error: the driver panicked while reading the result".into())))
            }
        }
    }
}

impl RecordBatchReader for StreamReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl Drop for StreamReader {
    fn drop(&mut self) {
        // The task stops (chwire sends Cancel and drains the query before the connection's
        // next one); the connection is free as soon as it is gone.
        self.rx = None;
        if !self.running.is_finished() {
            self.running.stop("the result was released");
        }
    }
}
