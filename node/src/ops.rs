//! What every operation shares: the connection or pool it runs on, a lease of one connection,
//! a statement with its settings and parameters, and the runtime's task handles.
//!
//! Operations run as tasks on the addon's tokio runtime (two IO threads named `chwire-io`, set
//! up in `lib.rs`); the JS thread only starts them and takes their finished results.

use crate::error::{Error, Result};
use chwire::{Client, Options, Pool, PoolOptions};
use std::sync::Arc;

/// A connection (one query at a time: callers queue on its lock) or the core's pool.
pub enum Conn {
    Client(Arc<tokio::sync::Mutex<Option<Client>>>),
    /// `None` once closed (the pool's idle connections close when the last lease ends).
    Pool(std::sync::Mutex<Option<Pool>>),
}

/// What operations run on, and the signal `close()` gives them.
pub struct Target {
    pub conn: Conn,
    closed: tokio::sync::watch::Sender<bool>,
}

impl Target {
    pub fn new(conn: Conn) -> Target {
        Target { conn, closed: tokio::sync::watch::channel(false).0 }
    }

    /// Stop every operation running or queued on this target (each fails with `Closed`).
    pub fn close(&self) {
        self.closed.send_replace(true);
    }

    /// `fut`, unless the target is closed first (then `Closed`; `fut` is dropped, which stops
    /// its query on the server and gives its connection back).
    pub async fn unless_closed<T>(&self, fut: impl std::future::Future<Output = Result<T>>) -> Result<T> {
        let mut rx = self.closed.subscribe();
        tokio::select! {
            biased;
            _ = rx.wait_for(|c| *c) => Err(Error::Closed),
            r = fut => r,
        }
    }
}

/// One connection for one operation.
pub enum Lease {
    Guard(tokio::sync::OwnedMutexGuard<Option<Client>>),
    Pooled(Box<chwire::Pooled>),
}

impl Lease {
    pub async fn get(target: &Target) -> Result<Lease> {
        match &target.conn {
            Conn::Client(c) => Ok(Lease::Guard(c.clone().lock_owned().await)),
            Conn::Pool(p) => {
                let pool = p.lock().unwrap_or_else(|e| e.into_inner()).clone().ok_or(Error::Closed)?;
                Ok(Lease::Pooled(Box::new(pool.get().await?)))
            }
        }
    }

    pub fn client(&mut self) -> Result<&mut Client> {
        match self {
            Lease::Guard(g) => g.as_mut().ok_or(Error::Closed),
            Lease::Pooled(p) => Ok(p),
        }
    }
}

/// Connection options: a URL and/or `{key: value}` by the core's one table of option names
/// (`Options::from_url_and`); what it refuses is a `ChwireError` of kind `config`, as a bad URL.
pub fn options(url: Option<&str>, extra: &[(String, String)]) -> Result<Options> {
    Ok(Options::from_url_and(url, extra.iter().map(|(k, v)| (k, v)))?)
}

/// The pool's options by the core's names (`PoolOptions::set`); one it refuses is a `TypeError`.
pub fn pool_options(pairs: &[(String, String)]) -> Result<PoolOptions> {
    let mut p = PoolOptions::new();
    for (k, v) in pairs {
        p.set(k, v).map_err(argument)?;
    }
    Ok(p)
}

/// A pool option the core refuses, as a `TypeError`.
fn argument(e: chwire::Error) -> Error {
    match e.kind() {
        chwire::ErrorKind::Config(_) => Error::Type(e.to_string()),
        _ => Error::Client(e),
    }
}

/// A query task's drain after it was stopped early: over the native protocol the core writes a
/// Cancel when the stream is dropped, which a server blocked on a full socket does not read
/// until the connection is used again; a ping drains it now (bounded like the core pool's
/// background drain). Over HTTP `settle` kills the query by its id.
pub fn drain_later(target: &Arc<Target>) {
    if let Conn::Client(c) = &target.conn {
        let c = c.clone();
        napi::bindgen_prelude::spawn(async move {
            if let Some(c) = c.lock().await.as_mut() {
                let _ = c.settle().await;
                let _ = tokio::time::timeout(std::time::Duration::from_secs(10), c.ping()).await;
            }
        });
    }
    // A pool's connection dropped mid-query is drained by the pool itself before reuse.
}
