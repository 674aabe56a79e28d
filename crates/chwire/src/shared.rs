//! [`Shared`]: one connection or a pool, shared by every caller of a binding (threads, tasks,
//! processes of a host language), with the one rule each binding needs: a caller waits its
//! turn ([`Shared::lease`]) or is told the connection is busy ([`Shared::try_lease`]), and
//! closing stops what runs ([`Shared::close`]).

use crate::error::{Error, ErrorKind, Result};
use crate::{Client, Options, Pool, PoolOptions, PoolStatus, Pooled, ServerInfo};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// Longest background drain of an abandoned query (as the pool's).
const SETTLE_WAIT: Duration = Duration::from_secs(10);

/// A connection or a pool that callers share (cheap to clone). A connection runs one query at
/// a time: callers take it in turn through a [`Lease`]; a pool gives each its own.
#[derive(Clone)]
pub struct Shared {
    inner: Arc<Inner>,
}

struct Inner {
    conn: Conn,
    /// Set by [`Shared::close`]: every operation running or waiting stops.
    closed: tokio::sync::watch::Sender<bool>,
    /// The server of the first connection (none for a pool until used).
    server: Option<ServerInfo>,
    /// Background settles ([`Shared::settle_in_background`]) started and not yet over: the
    /// connection is not busy with a caller's operation, only finishing one.
    settling: Arc<std::sync::atomic::AtomicUsize>,
}

/// Counts a background settle until dropped.
struct Settling(Arc<std::sync::atomic::AtomicUsize>);

impl Settling {
    fn start(n: &Arc<std::sync::atomic::AtomicUsize>) -> Settling {
        n.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Settling(n.clone())
    }
}

impl Drop for Settling {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

enum Conn {
    /// `None` once closed.
    Client(Arc<tokio::sync::Mutex<Option<Client>>>),
    /// `None` once closed (the pool's idle connections close when the last lease ends).
    Pool(std::sync::Mutex<Option<Pool>>),
}

/// One connection, for one operation: dropping it gives the connection back (a query left
/// unfinished is drained or its connection closed, as the client does).
pub enum Lease {
    /// The shared connection, held until the lease is dropped.
    Client(tokio::sync::OwnedMutexGuard<Option<Client>>),
    /// A connection of the pool.
    Pooled(Box<Pooled>),
}

impl Lease {
    /// The client of this lease (`Closed` once the connection was closed).
    pub fn client(&mut self) -> Result<&mut Client> {
        match self {
            Lease::Client(g) => g.as_mut().ok_or_else(closed),
            Lease::Pooled(p) => Ok(p),
        }
    }
}

fn closed() -> Error {
    Error::new(ErrorKind::Closed)
}

impl Shared {
    /// Connect one client to share.
    pub async fn connect(opts: Options) -> Result<Shared> {
        Ok(Shared::client(Client::connect(opts).await?))
    }

    /// Share a connected client.
    pub fn client(client: Client) -> Shared {
        let server = client.server_info();
        Shared::new(Conn::Client(Arc::new(tokio::sync::Mutex::new(Some(client)))), server)
    }

    /// A pool (connections open as they are needed). Call it within a tokio runtime (the
    /// pool's maintenance task runs on it).
    pub fn pool(opts: Options, pool: PoolOptions) -> Result<Shared> {
        Ok(Shared::new(Conn::Pool(std::sync::Mutex::new(Some(Pool::new(opts, pool)?))), None))
    }

    fn new(conn: Conn, server: Option<ServerInfo>) -> Shared {
        Shared { inner: Arc::new(Inner { conn, closed: tokio::sync::watch::channel(false).0, server, settling: Default::default() }) }
    }

    /// The server's name, version and zone from the handshake (a single connection's).
    pub fn server_info(&self) -> Option<&ServerInfo> {
        self.inner.server.as_ref()
    }

    /// The zone the server reads DateTime values without one in.
    pub fn server_timezone(&self) -> Option<&str> {
        self.inner.server.as_ref().and_then(|s| s.timezone.as_deref())
    }

    /// The same value for every clone of this handle, and different from any other's: a key
    /// for maps of what runs on which connection.
    pub fn key(&self) -> usize {
        Arc::as_ptr(&self.inner) as usize
    }

    /// Whether this is a pool.
    pub fn is_pool(&self) -> bool {
        matches!(self.inner.conn, Conn::Pool(_))
    }

    /// The pool's counts (`None` for a single connection).
    pub fn pool_status(&self) -> Option<PoolStatus> {
        match &self.inner.conn {
            Conn::Pool(p) => Some(p.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(Pool::status).unwrap_or_default()),
            Conn::Client(_) => None,
        }
    }

    /// A connection for one operation, when its turn comes (a pool's wait is bounded by its
    /// `acquire_timeout`). `Closed` once [`Shared::close`] was called, also while waiting.
    pub async fn lease(&self) -> Result<Lease> {
        self.unless_closed(async {
            match &self.inner.conn {
                Conn::Client(c) => Ok(Lease::Client(c.clone().lock_owned().await)),
                Conn::Pool(p) => {
                    let pool = p.lock().unwrap_or_else(|e| e.into_inner()).clone().ok_or_else(closed)?;
                    Ok(Lease::Pooled(Box::new(pool.get().await?)))
                }
            }
        })
        .await
    }

    /// The connection now, or [`ErrorKind::Busy`] when another operation holds it (a pool
    /// waits for a connection as [`Shared::lease`] does). `grace` is how long to wait for an
    /// operation that is ending (a result read to its last batch may still be taking the
    /// server's end of stream, an aborted task may not have been dropped yet). A connection
    /// that is only being settled in the background ([`Shared::settle_in_background`]) is
    /// waited for (as long as a settle may take), never busy.
    pub async fn try_lease(&self, grace: Duration) -> Result<Lease> {
        match &self.inner.conn {
            Conn::Client(c) => {
                if *self.inner.closed.borrow() {
                    return Err(closed());
                }
                let settling = || self.inner.settling.load(std::sync::atomic::Ordering::Acquire) > 0;
                let lock = c.clone().lock_owned();
                tokio::pin!(lock);
                if let Ok(g) = tokio::time::timeout(grace, &mut lock).await {
                    return Ok(Lease::Client(g));
                }
                if !settling() {
                    return Err(Error::new(ErrorKind::Busy));
                }
                let g = tokio::time::timeout(SETTLE_WAIT + SETTLE_WAIT, lock).await.map_err(|_| Error::new(ErrorKind::Busy))?;
                Ok(Lease::Client(g))
            }
            Conn::Pool(_) => self.lease().await,
        }
    }

    /// Run `fut` unless this is closed first: then `Closed`, and `fut` is dropped (which stops
    /// its query on the server and gives its connection back).
    pub async fn unless_closed<T>(&self, fut: impl Future<Output = Result<T>>) -> Result<T> {
        let mut rx = self.inner.closed.subscribe();
        tokio::select! {
            biased;
            _ = rx.wait_for(|c| *c) => Err(closed()),
            r = fut => r,
        }
    }

    /// Whether [`Shared::close`] was called.
    pub fn is_closed(&self) -> bool {
        *self.inner.closed.borrow()
    }

    /// After an operation ended early (its consumer left, an abort): settle the connection
    /// now, in the background, instead of at its next use: an abandoned HTTP query is killed,
    /// a native one drained (a server blocked on a full socket reads the Cancel only when the
    /// connection is used again). A pool drains its connections itself. Needs a tokio runtime
    /// (does nothing outside one).
    pub fn settle_in_background(&self) {
        let Conn::Client(c) = &self.inner.conn else { return };
        let Ok(rt) = tokio::runtime::Handle::try_current() else { return };
        let c = c.clone();
        // Counted from now: the caller may still hold the lease it gives up.
        let settling = Settling::start(&self.inner.settling);
        rt.spawn(async move {
            let _settling = settling;
            if let Some(c) = c.lock().await.as_mut() {
                let _ = c.settle().await;
                let _ = tokio::time::timeout(SETTLE_WAIT, c.ping()).await;
            }
        });
    }

    /// Close: operations running or waiting stop (their queries are cancelled on the server)
    /// and fail with `Closed`; then the connection closes (a pool's connections close as their
    /// leases end). Waits for the single connection to be free.
    pub async fn close(&self) {
        self.inner.closed.send_replace(true);
        match &self.inner.conn {
            Conn::Client(c) => {
                c.lock().await.take();
            }
            Conn::Pool(p) => {
                p.lock().unwrap_or_else(|e| e.into_inner()).take();
            }
        }
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").field("pool", &self.is_pool()).field("closed", &self.is_closed()).finish()
    }
}
