//! What a connection shares with its statements and the tasks that read their results: the
//! client (the core's [`chwire::Shared`], whose [`Lease`] a task holds while it runs), its
//! runtime, and the one task that may run at a time ([`Inner`]).

use crate::error::{cancelled, invalid_state, ChResult};
use crate::runtime::Pinned;
use adbc_core::error::Result;
use chwire::{Block, Lease, Options, Shared};
use chwire_arrow::ArrowOptions;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::AbortHandle;

/// How long a new task waits for the connection's running task when that one is not waiting
/// for its reader (see [`Inner::acquire`]).
pub const FINISHING: Duration = Duration::from_secs(1);
/// How long a new task waits for a task that was stopped to end.
const STOPPING: Duration = Duration::from_secs(10);

const BUSY: &str = "the connection is busy: another result of it is still open (a connection runs one query at a time; \
                    read that result to its end or release it, or use another connection)";

/// A running task of the connection (a query, a stream, an insert), for cancel and release.
pub struct Running {
    abort: AbortHandle,
    /// Stopped (aborted or abandoned): the connection is free as soon as the task is gone.
    pub stopped: AtomicBool,
    /// Why the task was stopped, for the stream that sees its end.
    pub why: Arc<Mutex<&'static str>>,
    /// A result's task waits for its reader (the batches it decoded ahead fill the channel):
    /// the connection stays busy until the result is read or released.
    pub waiting_for_reader: Arc<AtomicBool>,
}

impl Running {
    pub fn new(abort: AbortHandle) -> Arc<Running> {
        Running::with_flag(abort, Arc::default())
    }

    /// A result's task, which sets `waiting_for_reader` while it waits for its reader.
    pub fn with_flag(abort: AbortHandle, waiting_for_reader: Arc<AtomicBool>) -> Arc<Running> {
        Arc::new(Running {
            abort,
            stopped: AtomicBool::new(false),
            why: Arc::new(Mutex::new("the query was cancelled")),
            waiting_for_reader,
        })
    }

    pub fn stop(&self, why: &'static str) {
        *self.why.lock().unwrap_or_else(|e| e.into_inner()) = why;
        self.stopped.store(true, Ordering::Release);
        self.abort.abort();
    }

    pub fn is_finished(&self) -> bool {
        self.abort.is_finished()
    }
}

pub struct Inner {
    pub shared: Shared,
    pub rt: Pinned,
    pub(crate) running: Mutex<Option<Arc<Running>>>,
    pub opts: Mutex<Options>,
    pub server: Option<chwire::ServerInfo>,
    /// The Arrow mapping of results (the database's `chwire.arrow_mapping`).
    pub(crate) arrow: ArrowOptions,
    /// The server's version as `SELECT version()` names it, once asked for (GetInfo).
    pub(crate) version: std::sync::OnceLock<String>,
}

impl Inner {
    /// Take the connection for one task, or say it is busy. A task that was just stopped
    /// (cancel, a released or re-executed statement, a dropped result) is given a moment to
    /// end. So is a running one that does not wait for its reader, for [`FINISHING`]: a result
    /// whose batches were all read may still be taking the server's end of stream (a caller
    /// that read the one row of `SELECT 1` and runs the next query must not be told "busy").
    /// A result that waits for its reader is busy at once.
    pub fn acquire(&self) -> Result<Lease> {
        let grace = match self.running.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            Some(r) if r.stopped.load(Ordering::Acquire) => STOPPING,
            Some(r) if r.waiting_for_reader.load(Ordering::Acquire) => Duration::ZERO,
            _ => FINISHING,
        };
        let shared = self.shared.clone();
        crate::runtime::run(self.rt.handle(), async move {
            match shared.try_lease(grace).await {
                Err(e) if matches!(e.kind(), chwire::ErrorKind::Busy) => Err(invalid_state(BUSY)),
                r => r.ch(),
            }
        })
    }

    pub fn track(&self, r: Arc<Running>) {
        *self.running.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    }

    pub fn cancel(&self, why: &'static str) {
        if let Some(r) = self.running.lock().unwrap_or_else(|e| e.into_inner()).take() {
            r.stop(why);
        }
    }

    /// Arrow options for results: the rich mapping, DateTime without a zone in the server's.
    pub fn arrow_options(&self) -> ArrowOptions {
        let mut o = self.arrow.clone();
        o.default_timezone = self.server.as_ref().and_then(|s| s.timezone.clone());
        o
    }

    /// The server's timezone (in which it reads DateTime text without a zone), else UTC.
    pub fn server_timezone(&self) -> chwire_text::TimeZone {
        let name = self.server.as_ref().and_then(|s| s.timezone.as_deref());
        name.and_then(|n| chwire_text::TimeZone::get(n).ok()).unwrap_or(chwire_text::TimeZone::UTC)
    }

    /// Run `sql` with `params` and collect its blocks (metadata queries: small results).
    pub fn fetch(self: &Arc<Self>, sql: String, params: Vec<(&'static str, String)>) -> Result<Vec<Block>> {
        let mut lease = self.acquire()?;
        let fut = async move {
            let c = lease.client().ch()?;
            let mut q = c.query(sql);
            for (k, v) in params {
                q = q.param(k, v);
            }
            q.fetch_blocks().await.ch()
        };
        let handle = self.rt.handle().spawn(fut);
        self.track(Running::new(handle.abort_handle()));
        match self.rt.handle().block_on(handle) {
            Ok(r) => r,
            Err(j) if j.is_cancelled() => Err(cancelled("the operation was cancelled")),
            Err(j) => Err(crate::error::internal(format!("chwire task failed: {j}"))),
        }
    }

    /// The rows of column `i` of `blocks` as text (String columns; NULL as None).
    pub fn strings(blocks: &[Block], i: usize) -> Vec<Option<String>> {
        let mut out = Vec::new();
        for b in blocks {
            if let Some((_, col)) = b.columns().get(i) {
                for r in 0..col.len() {
                    out.push(match col.value(r) {
                        chwire::Value::Null => None,
                        chwire::Value::String(s) | chwire::Value::FixedString(s) => Some(String::from_utf8_lossy(s).into_owned()),
                        v => Some(format!("{v:?}")),
                    });
                }
            }
        }
        out
    }

    /// The UInt8 column `i` of `blocks`.
    pub fn flags(blocks: &[Block], i: usize) -> Vec<bool> {
        let mut out = Vec::new();
        for b in blocks {
            if let Some((_, col)) = b.columns().get(i) {
                for r in 0..col.len() {
                    out.push(matches!(col.value(r), chwire::Value::UInt(v) if v != 0) || matches!(col.value(r), chwire::Value::Bool(true)));
                }
            }
        }
        out
    }

    /// The server's version as it names it: `SELECT version()`, asked once (the handshake
    /// carries three of a current server's four numbers, 26.9.2 for 26.9.2.1). `None` when
    /// the query cannot run now (the connection is busy with an open result).
    pub fn server_version(self: &Arc<Self>) -> Option<String> {
        if let Some(v) = self.version.get() {
            return Some(v.clone());
        }
        let blocks = self.fetch("SELECT version()".into(), vec![]).ok()?;
        let v = Self::strings(&blocks, 0).into_iter().flatten().next()?;
        Some(self.version.get_or_init(|| v).clone())
    }

    pub fn current_database(self: &Arc<Self>) -> Result<String> {
        let b = self.fetch("SELECT currentDatabase()".into(), vec![])?;
        Self::strings(&b, 0).into_iter().flatten().next().ok_or_else(|| invalid_state("the server named no current database"))
    }
}
