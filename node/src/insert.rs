//! An INSERT fed from JavaScript, block by block.
//!
//! The task starts `INSERT INTO table (columns) VALUES` as the core's Arrow insert
//! (`ArrowInsert`), takes the table's header from the server and then sends what the JS side
//! queues: blocks converted on the JS thread from JS data (`input::block`, refused whole before
//! anything of them is sent), or Arrow IPC bytes, whose batches the core gathers and cuts into
//! blocks of `blockRows` rows and converts. The queue holds [`DEPTH`] blocks: while one is
//! sent, the next is built. Data refused ends the INSERT with what was sent before it
//! committed (the core's rule); another failure drops the connection, which aborts the INSERT.
//! `end()` sends the end of the data and returns the rows sent.

use crate::error::{panic_message, Error, Result};
use crate::js;
use crate::ops;
use chwire::{Block, DataType, InsertOptions, QuerySpec, Shared};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

const DEPTH: usize = 1;

pub enum Pending {
    Block(Block),
    Ipc(Vec<u8>),
}

type Header = Vec<(String, DataType)>;

/// The core's insert options of `options` (`{key: text}`, any spelling of the core's names:
/// `blockRows`, `block_rows`); another key is an error naming it.
pub fn insert_options(options: std::collections::HashMap<String, String>) -> Result<InsertOptions> {
    let mut pairs: Vec<(String, String)> = options.into_iter().collect();
    pairs.sort();
    Ok(InsertOptions::from_pairs(pairs)?)
}

/// `insertOptions({blockRows: '4'})`: the insert options as the core reads them, for the TS
/// layer's own cutting of JS rows into blocks (`{blockRows}`); a bad value is the core's error.
#[napi(js_name = "insertOptions")]
pub fn insert_options_js(options: std::collections::HashMap<String, String>) -> napi::Result<InsertOptionsJs> {
    let o = insert_options(options)?;
    Ok(InsertOptionsJs { block_rows: o.block_rows as f64 })
}

#[napi(object)]
pub struct InsertOptionsJs {
    pub block_rows: f64,
}

/// The table's columns and the server's zone.
type Started = (Header, Option<String>);

/// The insert's task. `aborted` is set (before the channel closes) by `abort()`: the data's
/// end then abandons the INSERT (dropped unfinished, the server aborts it) instead of ending it.
async fn task(
    target: Shared,
    spec: QuerySpec,
    options: InsertOptions,
    hdr: oneshot::Sender<Result<Started>>,
    mut rx: mpsc::Receiver<Pending>,
    aborted: Arc<AtomicBool>,
) -> Result<u64> {
    let mut lease = match ops::lease(&target).await {
        Ok(l) => l,
        Err(e) => {
            let _ = hdr.send(Err(Error::Data(String::new())));
            return Err(e);
        }
    };
    let c = ops::client(&mut lease)?;
    let server_tz = c.server_info().and_then(|s| s.timezone);
    let mut ins = match spec.query(c).insert_arrow().await {
        Ok(i) => i.options(&options),
        Err(e) => {
            let _ = hdr.send(Err(Error::Data(String::new())));
            return Err(e.into());
        }
    };
    let header: Header = ins.target().to_vec();
    if hdr.send(Ok((header, server_tz))).is_err() {
        return Err(Error::Aborted);
    }
    while let Some(p) = rx.recv().await {
        if aborted.load(Ordering::Acquire) {
            return Err(Error::Aborted);
        }
        match p {
            Pending::Block(b) => ins.send_block(&b).await?,
            Pending::Ipc(bytes) => match chwire_arrow::read_ipc_stream(bytes) {
                Ok(batches) => {
                    for b in batches {
                        ins.send_batch(b).await?;
                    }
                }
                // Refused before anything of it was sent: what came before is committed (as
                // for JS data, and the CLI's insert).
                Err(e) => return Err(ins.refuse(format!("Arrow IPC: {e}")).await.into()),
            },
        }
    }
    if aborted.load(Ordering::Acquire) {
        return Err(Error::Aborted); // `ins` dropped unfinished: the server aborts the INSERT
    }
    Ok(ins.end().await?.rows_sent)
}

/// An open INSERT: `header()`, then `convert(columns)` + `flush()` (or `sendArrow(ipc)`) per
/// block, then `end()`.
#[napi]
pub struct NativeInsert {
    header: Arc<tokio::sync::Mutex<Option<oneshot::Receiver<Result<Started>>>>>,
    columns: Mutex<Option<Started>>,
    tx: Arc<Mutex<Option<mpsc::Sender<Pending>>>>,
    pending: Arc<Mutex<Option<Block>>>,
    task: Arc<tokio::sync::Mutex<Option<JoinHandle<Result<u64>>>>>,
    aborted: Arc<AtomicBool>,
}

impl NativeInsert {
    pub fn start(target: Shared, spec: QuerySpec, options: InsertOptions) -> NativeInsert {
        let (htx, hrx) = oneshot::channel();
        let (tx, rx) = mpsc::channel(DEPTH);
        let aborted = Arc::new(AtomicBool::new(false));
        let flag = aborted.clone();
        let handle = napi::bindgen_prelude::within_runtime_if_available(|| {
            tokio::spawn(async move { ops::unless_closed(&target, task(target.clone(), spec, options, htx, rx, flag)).await })
        });
        NativeInsert {
            header: Arc::new(tokio::sync::Mutex::new(Some(hrx))),
            columns: Mutex::new(None),
            tx: Arc::new(Mutex::new(Some(tx))),
            pending: Arc::new(Mutex::new(None)),
            task: Arc::new(tokio::sync::Mutex::new(Some(handle))),
            aborted,
        }
    }

    async fn failure(&self) -> napi::Error {
        // The task ended: its own error says why.
        let handle = self.task.lock().await.take();
        match handle {
            Some(h) => match h.await {
                Ok(Err(e)) => e.into(),
                Ok(Ok(_)) => Error::Data("the insert already ended".into()).into(),
                Err(j) if j.is_panic() => Error::Panic(panic_message(&*j.into_panic())).into(),
                Err(_) => Error::Aborted.into(),
            },
            None => Error::Data("the insert already ended".into()).into(),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[napi]
impl NativeInsert {
    /// The insert's columns `[{name, type}]` as the server gave them.
    #[napi(ts_return_type = "Promise<Array<{ name: string, type: string }>>")]
    pub async fn header(&self) -> napi::Result<Vec<HeaderColumn>> {
        let rx = self.header.lock().await.take();
        let got = match rx {
            Some(rx) => rx.await.ok(),
            None => None,
        };
        match got {
            Some(Ok((h, tz))) => {
                *lock(&self.columns) = Some((h.clone(), tz));
                Ok(h.into_iter().map(|(name, ty)| HeaderColumn { name, r#type: ty.to_string() }).collect())
            }
            _ => Err(self.failure().await),
        }
    }

    /// Convert one block of packed columns (in the header's order) on the JS thread; refused
    /// whole (a TypeError or RangeError naming the column and row) before anything is sent.
    #[napi(catch_unwind)]
    pub fn convert(&self, env: Env, columns: Unknown, first_row: f64) -> napi::Result<u32> {
        let (header, tz) = lock(&self.columns).clone().ok_or_else(|| napi::Error::from(Error::Data("convert before header()".into())))?;
        let raw = env.raw();
        let b = crate::error::guarded(|| crate::input::block(raw, &header, columns.raw(), first_row as usize, tz.as_deref()))?;
        let n = b.rows() as u32;
        *lock(&self.pending) = Some(b);
        Ok(n)
    }

    /// Queue the converted block (waits while the previous one is still being sent).
    #[napi]
    pub async fn flush(&self) -> napi::Result<()> {
        let Some(b) = lock(&self.pending).take() else { return Ok(()) };
        self.push(Pending::Block(b)).await
    }

    /// Queue an Arrow IPC stream (decoded and converted to the table's columns on the runtime).
    #[napi]
    pub async fn send_arrow(&self, ipc: Buffer) -> napi::Result<()> {
        self.push(Pending::Ipc(ipc.to_vec())).await
    }

    async fn push(&self, p: Pending) -> napi::Result<()> {
        let tx = lock(&self.tx).clone();
        match tx {
            Some(tx) if tx.send(p).await.is_ok() => Ok(()),
            _ => Err(self.failure().await),
        }
    }

    /// End the data and wait for the server: the number of rows sent.
    #[napi]
    pub async fn end(&self) -> napi::Result<f64> {
        lock(&self.tx).take();
        let handle = self.task.lock().await.take();
        match handle {
            Some(h) => match h.await {
                Ok(Ok(rows)) => Ok(rows as f64),
                Ok(Err(e)) => Err(e.into()),
                Err(j) if j.is_panic() => Err(Error::Panic(panic_message(&*j.into_panic())).into()),
                Err(_) => Err(Error::Aborted.into()),
            },
            None => Err(Error::Data("the insert already ended".into()).into()),
        }
    }

    /// Abandon the insert: the connection is dropped, which aborts the INSERT on the server.
    #[napi]
    pub fn abort(&self) {
        // Set before the channel closes: the task must not take the closed channel for the
        // data's end and commit what it has sent.
        self.aborted.store(true, Ordering::Release);
        lock(&self.tx).take();
        lock(&self.pending).take();
        if let Ok(mut t) = self.task.try_lock() {
            if let Some(h) = t.take() {
                h.abort();
            }
        }
    }
}

#[napi(object)]
pub struct HeaderColumn {
    pub name: String,
    pub r#type: String,
}

impl Drop for NativeInsert {
    fn drop(&mut self) {
        self.abort();
    }
}

#[allow(dead_code)]
fn unused(_: js::Val) {}
