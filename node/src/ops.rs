//! What every operation shares: the connection or pool it runs on, a lease of one connection,
//! a statement with its settings and parameters, and the runtime's task handles.
//!
//! Operations run as tasks on the addon's tokio runtime (two IO threads named `chwire-io`, set
//! up in `lib.rs`); the JS thread only starts them and takes their finished results.

use crate::error::{Error, Result};
use crate::params::Param;
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

/// A statement with what goes with it.
#[derive(Debug, Clone, Default)]
pub struct Spec {
    pub sql: String,
    pub params: Vec<(String, Param)>,
    pub settings: Vec<(String, String)>,
    pub query_id: Option<String>,
}

impl Spec {
    pub fn apply(self, client: &mut Client) -> chwire::Query<'_> {
        let mut q = client.query(self.sql);
        for (k, v) in self.settings {
            q = q.setting(k, v);
        }
        for (k, p) in self.params {
            q = q.param(k, p);
        }
        if let Some(id) = self.query_id {
            q = q.query_id(id);
        }
        q
    }
}

/// Connection options: a URL and/or `{key: value}` by the core's URL keys (`Options::set`, the
/// one table of option names every binding shares), plus `host` and `port`.
pub fn options(url: Option<&str>, extra: &[(String, String)]) -> Result<Options> {
    let mut o = match url {
        Some(u) => Options::from_url(u)?,
        None => Options::default(),
    };
    for (k, v) in extra {
        match k.as_str() {
            "host" => o.host = v.clone(),
            "port" => o.port = v.parse().map_err(|_| Error::Type(format!("invalid port {v:?}")))?,
            _ => o.set(k, v)?,
        }
    }
    Ok(o)
}

/// The pool's options by the names of the core's `PoolOptions` fields (durations as the core's
/// durations: `5s`, `500ms`, a bare number of seconds; `0` or `none` for no limit).
// CORE: PoolOptions has no `set(key, value)` by name like Options::set; this is that table.
pub fn pool_options(pairs: &[(String, String)]) -> Result<PoolOptions> {
    let mut p = PoolOptions::new();
    let dur = |v: &str| -> Result<Option<std::time::Duration>> {
        if v == "none" || v == "null" {
            return Ok(None);
        }
        let d = chwire::parse_duration(v)?;
        Ok((!d.is_zero()).then_some(d))
    };
    for (k, v) in pairs {
        let count = || v.parse::<usize>().map_err(|_| Error::Type(format!("invalid {k} {v:?} (a whole number)")));
        match k.as_str() {
            "max_size" => p = p.max_size(count()?.max(1)),
            "min_idle" => p = p.min_idle(count()?),
            "acquire_timeout" => p = p.acquire_timeout(dur(v)?),
            "idle_timeout" => p = p.idle_timeout(dur(v)?),
            "max_lifetime" => p = p.max_lifetime(dur(v)?),
            "health_check_after" => p = p.health_check_after(dur(v)?),
            _ => {
                return Err(Error::Type(format!(
                    "unknown pool option {k:?} (max_size, min_idle, acquire_timeout, idle_timeout, max_lifetime, health_check_after)"
                )))
            }
        }
    }
    Ok(p)
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
