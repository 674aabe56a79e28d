//! A running query and what it hands to JavaScript.
//!
//! A task on the runtime owns the connection (its lease) for the query's duration: it reads
//! blocks, prepares each for JS (`out::prepare_block`, or an Arrow batch's buffers) and hands
//! it to a channel of [`STREAM_DEPTH`] items, so a slow consumer pauses the reading and memory
//! stays a block or two per stream. `next()` returns a Promise of the next items (all that are
//! queued, at least one). `cancel()` (an
//! `AbortSignal`, a stream closed early) or the stream object being collected aborts the task:
//! dropping chwire's query stream stops the query on the server, and the connection is drained
//! at once (`ops::drain_later`).

use crate::error::{Error, Result};
use crate::js;
use crate::ops::{self, drain_later};
use crate::out::{infos, infos_to_js, prepare_block, ColumnInfo, Prep};
use crate::values::Mapping;
use chwire::Event;
use chwire::QuerySpec;
use chwire::Shared;
use chwire_arrow::ArrowOptions;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

/// Items queued ahead of a streaming consumer (and one more being decoded meanwhile): two keep
/// the IO thread busy while JS takes one (W1 streamed 10-20 % faster than with one).
const STREAM_DEPTH: usize = 2;
/// Items queued ahead of a result collected whole (the JS side keeps them all anyway).
const WHOLE_DEPTH: usize = 16;

/// What a query produces for JS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The header, then one prepared block per server block.
    Blocks,
    /// The header, then all blocks merged into one.
    Columns,
    /// The Arrow schema (an IPC message), then each block's record batch (`arrow_out`),
    /// queued deep (the JS side keeps them all anyway).
    Arrow,
    /// The same, a block or two ahead of the consumer.
    ArrowStream,
    /// Run to the end; only the summary.
    Execute,
}

pub enum Item {
    Header { columns: Vec<ColumnInfo>, query_id: String },
    Block { rows: usize, cols: Vec<Prep> },
    Ipc(Vec<u8>),
    Batch(crate::arrow_out::Batch),
    Done { progress: chwire::Progress },
}

impl ToNapiValue for Item {
    unsafe fn to_napi_value(env: sys::napi_env, item: Self) -> napi::Result<sys::napi_value> {
        let make = || -> Result<js::Val> {
            let o = js::object(env)?;
            match item {
                Item::Header { columns, query_id } => {
                    js::set(env, o, "t", js::str_val(env, "h")?)?;
                    js::set(env, o, "columns", infos_to_js(env, &columns)?)?;
                    js::set(env, o, "queryId", js::str_val(env, &query_id)?)?;
                }
                Item::Block { rows, cols } => {
                    js::set(env, o, "t", js::str_val(env, "b")?)?;
                    js::set(env, o, "n", js::number(env, rows as f64)?)?;
                    let arr = js::array(env, cols.len())?;
                    for (i, c) in cols.into_iter().enumerate() {
                        js::push(env, arr, i as u32, c.into_js(env)?)?;
                    }
                    js::set(env, o, "c", arr)?;
                }
                Item::Ipc(bytes) => {
                    js::set(env, o, "t", js::str_val(env, "a")?)?;
                    // The IPC bytes handed over as they are (an external buffer over the Vec).
                    js::set(env, o, "b", js::buffer_vec(env, bytes)?)?;
                }
                Item::Batch(b) => {
                    js::set(env, o, "t", js::str_val(env, "r")?)?;
                    js::set(env, o, "n", js::number(env, b.rows() as f64)?)?;
                    js::set(env, o, "c", b.into_js(env)?)?;
                }
                Item::Done { progress } => {
                    js::set(env, o, "t", js::str_val(env, "d")?)?;
                    let p = js::object(env)?;
                    for (k, v) in [
                        ("readRows", progress.read_rows),
                        ("readBytes", progress.read_bytes),
                        ("totalRowsToRead", progress.total_rows_to_read),
                        ("writtenRows", progress.written_rows),
                        ("writtenBytes", progress.written_bytes),
                        ("elapsedNs", progress.elapsed_ns),
                    ] {
                        js::set(env, p, k, js::number(env, v as f64)?)?;
                    }
                    js::set(env, o, "progress", p)?;
                }
            }
            Ok(o)
        };
        crate::error::guarded(make).map_err(napi::Error::from)
    }
}

type Tx = mpsc::Sender<Result<Item>>;

/// `false` when the consumer is gone.
async fn send(tx: &Tx, item: Item) -> bool {
    tx.send(Ok(item)).await.is_ok()
}

pub struct Job {
    pub spec: QuerySpec,
    pub mode: Mode,
    pub mapping: Mapping,
    pub arrow: ArrowOptions,
}

async fn run(target: Shared, job: Job, tx: &Tx) -> Result<()> {
    let mut lease = ops::lease(&target).await?;
    let c = ops::client(&mut lease)?;
    let server_tz = c.server_info().and_then(|s| s.timezone);
    let Job { spec, mode, mapping, mut arrow } = job;
    if arrow.default_timezone.is_none() {
        arrow.default_timezone = server_tz.clone();
    }
    match mode {
        Mode::Arrow | Mode::ArrowStream => {
            let mut s = spec.query(c).fetch_arrow(arrow).await?;
            let schema = s.schema();
            let query_id = s.query_stream().query_id().to_owned();
            let columns = s.query_stream().header().map(|h| infos(h, server_tz.as_deref())).unwrap_or_default();
            if !send(tx, Item::Header { columns, query_id }).await {
                return Ok(());
            }
            // The schema as an IPC message (apache-arrow reads the field types from it), then
            // each batch's buffers as they are (arrow_out).
            let mut w = arrow_ipc::writer::StreamWriter::try_new(Vec::with_capacity(1 << 12), &schema)?;
            w.finish()?;
            if !send(tx, Item::Ipc(w.into_inner()?)).await {
                return Ok(());
            }
            loop {
                let batch = tokio::select! {
                    biased;
                    _ = tx.closed() => return Ok(()),
                    b = s.next_batch() => b?,
                };
                let Some(batch) = batch else { break };
                if !send(tx, Item::Batch(crate::arrow_out::Batch::new(&batch)?)).await {
                    return Ok(());
                }
            }
            send(tx, Item::Done { progress: *s.query_stream().progress() }).await;
        }
        Mode::Blocks | Mode::Columns | Mode::Execute => {
            let mut s = spec.query(c).stream().await?;
            let mut header_sent = false;
            let mut merged: Option<(usize, Vec<Prep>)> = None;
            loop {
                let ev = tokio::select! {
                    biased;
                    _ = tx.closed() => return Ok(()),
                    ev = s.next_event() => ev?,
                };
                if !header_sent && mode != Mode::Execute {
                    if let Some(h) = s.header() {
                        header_sent = true;
                        let item = Item::Header { columns: infos(h, server_tz.as_deref()), query_id: s.query_id().to_owned() };
                        if !send(tx, item).await {
                            return Ok(());
                        }
                    }
                }
                match ev {
                    None => break,
                    Some(Event::Data(b)) if b.rows() > 0 && mode != Mode::Execute => {
                        let (rows, cols) = prepare_block(b, mapping)?;
                        if mode == Mode::Columns {
                            match &mut merged {
                                None => merged = Some((rows, cols)),
                                Some((n, have)) => {
                                    *n += rows;
                                    for (a, b) in have.iter_mut().zip(cols) {
                                        a.merge(b);
                                    }
                                }
                            }
                        } else if !send(tx, Item::Block { rows, cols }).await {
                            return Ok(());
                        }
                    }
                    Some(_) => {}
                }
            }
            if !header_sent && mode != Mode::Execute {
                let columns = s.header().map(|h| infos(h, server_tz.as_deref())).unwrap_or_default();
                if !send(tx, Item::Header { columns, query_id: s.query_id().to_owned() }).await {
                    return Ok(());
                }
            }
            if let Some((rows, cols)) = merged {
                if !send(tx, Item::Block { rows, cols }).await {
                    return Ok(());
                }
            }
            send(tx, Item::Done { progress: *s.progress() }).await;
        }
    }
    Ok(())
}

/// A running query: `next()` for its items in order, `cancel()` to stop it.
#[napi]
pub struct NativeStream {
    rx: Arc<tokio::sync::Mutex<Receiver>>,
    abort: AbortHandle,
    target: Shared,
}

/// The channel's end, and an error that came after items already taken (given at the next call).
struct Receiver {
    rx: mpsc::Receiver<Result<Item>>,
    failed: Option<Error>,
    /// The query's Done came: the channel's end is the stream's end (the task drops its sender
    /// a moment before it counts as finished).
    done: bool,
}

/// Items handed over by one `next()` at most: those already queued go together, saving a
/// round trip through the JS event loop per block when the consumer is the slower side.
const MAX_TAKE: usize = 8;

impl NativeStream {
    pub fn start(target: Shared, job: Job) -> NativeStream {
        let depth = if job.mode == Mode::Blocks || job.mode == Mode::ArrowStream { STREAM_DEPTH } else { WHOLE_DEPTH };
        let (tx, rx) = mpsc::channel(depth);
        let t = target.clone();
        let task = napi::bindgen_prelude::spawn(async move {
            let res = ops::unless_closed(&t, run(t.clone(), job, &tx)).await;
            if let Err(e) = res {
                let _ = tx.send(Err(e)).await;
            }
        });
        NativeStream {
            rx: Arc::new(tokio::sync::Mutex::new(Receiver { rx, failed: None, done: false })),
            abort: task.abort_handle(),
            target,
        }
    }
}

#[napi]
impl NativeStream {
    /// The next items in order (at least one; those already queued too), `null` at the end.
    #[napi(ts_return_type = "Promise<any[] | null>")]
    pub async fn next(&self) -> napi::Result<Option<Vec<Item>>> {
        let rx = self.rx.clone();
        let mut r = rx.lock().await;
        if let Some(e) = r.failed.take() {
            return Err(e.into());
        }
        let first = match r.rx.recv().await {
            Some(Ok(item)) => item,
            Some(Err(e)) => return Err(e.into()),
            None if r.done || self.abort.is_finished() => return Ok(None),
            None => return Err(Error::Aborted.into()),
        };
        r.done |= matches!(first, Item::Done { .. });
        let mut items = vec![first];
        while items.len() < MAX_TAKE {
            match r.rx.try_recv() {
                Ok(Ok(item)) => {
                    r.done |= matches!(item, Item::Done { .. });
                    items.push(item)
                }
                Ok(Err(e)) => {
                    r.failed = Some(e);
                    break;
                }
                Err(_) => break,
            }
        }
        Ok(Some(items))
    }

    /// Stop the query (it is cancelled on the server; the connection is drained).
    #[napi]
    pub fn cancel(&self) {
        if !self.abort.is_finished() {
            self.abort.abort();
            drain_later(&self.target);
        }
    }
}

impl Drop for NativeStream {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// Give back the memory of blocks the TS layer is done with (the typed arrays a row stream read
/// its rows from, never handed to the caller): each ArrayBuffer is detached, which frees its
/// buffer at once instead of at a later garbage collection (a W2 row stream otherwise hands V8
/// hundreds of megabytes of garbage to find).
#[napi(catch_unwind)]
pub fn release_buffers(env: Env, buffers: Vec<Unknown>) -> napi::Result<()> {
    let env = env.raw();
    for b in buffers {
        let v = b.raw();
        let mut is = false;
        if unsafe { napi::sys::napi_is_arraybuffer(env, v, &mut is) } == napi::sys::Status::napi_ok && is {
            // A buffer that cannot be detached stays as it is: the collector frees it.
            unsafe { napi::sys::napi_detach_arraybuffer(env, v) };
        }
    }
    Ok(())
}
