//! A pool of connections shared by many tasks.
//!
//! Own implementation rather than deadpool or bb8: whether a connection may go back
//! depends on the client's conversation state (idle, an abandoned query to drain, broken),
//! which only the client knows, and the return happens in `Drop`, where a connection that
//! still has to drain an abandoned query is drained by a background task instead of being
//! handed out dirty. The building blocks are cancel-safe by construction: the slots are a
//! `tokio::sync::Semaphore` (a dropped `acquire` leaves the queue, a permit is returned by
//! `Drop`), an idle connection taken out of the list is owned by the future that took it
//! (dropped with it if the future is dropped, e.g. during its health check), and counters
//! are kept by guards.

use crate::client::Client;
use crate::conn::Shared;
use crate::error::{Error, Result};
use crate::options::Options;
use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Limits and health checks of a [`Pool`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolOptions {
    /// Most connections open at once (in use, idle and being drained).
    pub max_size: usize,
    /// Connections kept open (and opened in the background) even when idle.
    pub min_idle: usize,
    /// Longest wait in [`Pool::get`] for a free slot (`None`: wait forever); expiry is
    /// `ErrorKind::Timeout(Timeout::PoolAcquire)`.
    pub acquire_timeout: Option<Duration>,
    /// An idle connection is closed after this long unused (beyond `min_idle`).
    pub idle_timeout: Option<Duration>,
    /// A connection is closed after this long in service (when it is next idle).
    pub max_lifetime: Option<Duration>,
    /// A connection that sat idle longer than this is pinged before it is handed out
    /// (`Some(Duration::ZERO)`: always; `None`: never).
    pub health_check_after: Option<Duration>,
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions {
            max_size: 10,
            min_idle: 0,
            acquire_timeout: Some(Duration::from_secs(30)),
            idle_timeout: Some(Duration::from_secs(600)),
            max_lifetime: Some(Duration::from_secs(3600)),
            health_check_after: Some(Duration::from_secs(30)),
        }
    }
}

impl PoolOptions {
    /// The defaults (10 connections at most).
    pub fn new() -> Self {
        Self::default()
    }

    /// Set one pool option by its key (docs/OPTIONS.md: `max_size`, `min_idle`,
    /// `acquire_timeout`, `idle_timeout`, `max_lifetime`, `health_check_after`, in any host's
    /// spelling). Any other key is an error naming the closest one.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        use crate::options::keys::{count, of_scope, optional_duration, Scope};
        let k = of_scope(key, Scope::Pool)?;
        match k.name {
            "max_size" => {
                self.max_size = count(k.name, value)?;
                if self.max_size == 0 {
                    return Err(Error::config("the pool's max_size must be at least 1"));
                }
            }
            "min_idle" => self.min_idle = count(k.name, value)?,
            "acquire_timeout" => self.acquire_timeout = optional_duration(k.name, value)?,
            "idle_timeout" => self.idle_timeout = optional_duration(k.name, value)?,
            "max_lifetime" => self.max_lifetime = optional_duration(k.name, value)?,
            "health_check_after" => {
                self.health_check_after = match value.trim() {
                    v if v.eq_ignore_ascii_case("none") => None,
                    v => Some(crate::options::keys::duration(k.name, v)?),
                }
            }
            other => return Err(Error::config(format!("pool option {other:?} has no setter (a chwire bug)"))),
        }
        Ok(())
    }
    /// The pool's options among a binding's `key = value` options (names, aliases, any host's
    /// spelling), taken out of `pairs`; the rest are left for [`Options`](crate::Options). One
    /// option given twice (in two spellings) is an error, as for [`Options`](crate::Options).
    pub fn take(pairs: &mut Vec<(String, String)>) -> Result<PoolOptions> {
        let mut p = PoolOptions::new();
        crate::options::take_scope(pairs, crate::options::keys::Scope::Pool, |k, v| p.set(k, v))?;
        Ok(p)
    }

    /// Pool options from `key = value` pairs that must all be pool options (a binding's
    /// separate pool argument): [`PoolOptions::take`], and any other key refused by
    /// [`PoolOptions::set`]'s rule.
    pub fn from_pairs<K: AsRef<str>, V: AsRef<str>>(pairs: impl IntoIterator<Item = (K, V)>) -> Result<PoolOptions> {
        let mut pairs: Vec<(String, String)> = pairs.into_iter().map(|(k, v)| (k.as_ref().to_string(), v.as_ref().to_string())).collect();
        let p = PoolOptions::take(&mut pairs)?;
        match pairs.first() {
            Some((k, v)) => Err(PoolOptions::new().set(k, v).err().unwrap_or_else(|| Error::config(format!("{k:?} is not a pool option")))),
            None => Ok(p),
        }
    }

    /// [`PoolOptions::max_size`].
    pub fn max_size(mut self, n: usize) -> Self {
        self.max_size = n;
        self
    }
    /// [`PoolOptions::min_idle`].
    pub fn min_idle(mut self, n: usize) -> Self {
        self.min_idle = n;
        self
    }
    /// [`PoolOptions::acquire_timeout`].
    pub fn acquire_timeout(mut self, d: Option<Duration>) -> Self {
        self.acquire_timeout = d;
        self
    }
    /// [`PoolOptions::idle_timeout`].
    pub fn idle_timeout(mut self, d: Option<Duration>) -> Self {
        self.idle_timeout = d;
        self
    }
    /// [`PoolOptions::max_lifetime`].
    pub fn max_lifetime(mut self, d: Option<Duration>) -> Self {
        self.max_lifetime = d;
        self
    }
    /// [`PoolOptions::health_check_after`].
    pub fn health_check_after(mut self, d: Option<Duration>) -> Self {
        self.health_check_after = d;
        self
    }
}

/// A snapshot of a pool's counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PoolStatus {
    /// Open connections (idle, in use and being drained).
    pub size: usize,
    /// Open connections waiting in the pool to be handed out.
    pub idle: usize,
    /// Slots taken: connections handed out (or being opened for a caller) and being drained.
    pub in_use: usize,
    /// Callers waiting in [`Pool::get`] for a slot.
    pub waiting: usize,
}

/// A pool of connections (cheap to clone: the clones share it).
///
/// ```no_run
/// # async fn demo() -> chwire::Result<()> {
/// use chwire::{Options, Pool, PoolOptions};
/// let pool = Pool::new(Options::from_url("tcp://default@a:9000,b:9000/default")?, PoolOptions::new().max_size(16))?;
/// let mut client = pool.get().await?; // a `Pooled`: derefs to `Client`
/// let (n,): (u64,) = client.query("SELECT count() FROM system.tables").fetch_one().await?;
/// # let _ = n; Ok(()) }
/// ```
#[derive(Clone)]
pub struct Pool {
    inner: Arc<Inner>,
}

struct Inner {
    opts: Options,
    popts: PoolOptions,
    shared: Arc<Shared>,
    slots: Arc<Semaphore>,
    idle: Mutex<VecDeque<Slot>>,
    live: Arc<AtomicUsize>,
    waiting: AtomicUsize,
}

/// An open connection of the pool; counts itself in `live` while it exists.
struct Slot {
    client: Client,
    created: Instant,
    idle_since: Instant,
    live: Arc<AtomicUsize>,
}

impl Slot {
    fn new(client: Client, live: &Arc<AtomicUsize>) -> Slot {
        live.fetch_add(1, Ordering::SeqCst);
        let now = Instant::now();
        Slot { client, created: now, idle_since: now, live: live.clone() }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.live.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Counts a caller in `waiting` while it exists.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How long a connection returned mid-query may take to drain in the background.
const BACKGROUND_DRAIN: Duration = Duration::from_secs(10);

impl Pool {
    /// A pool for these servers. Reads the TLS files now; opens connections on demand
    /// (and `min_idle` of them in the background, when created inside a tokio runtime).
    pub fn new(opts: Options, popts: PoolOptions) -> Result<Pool> {
        if popts.max_size == 0 {
            return Err(Error::config("the pool's max_size must be at least 1"));
        }
        if popts.min_idle > popts.max_size {
            return Err(Error::config("the pool's min_idle must not exceed max_size"));
        }
        let shared = Shared::new(&opts)?;
        let inner = Arc::new(Inner {
            slots: Arc::new(Semaphore::new(popts.max_size)),
            opts,
            popts,
            shared,
            idle: Mutex::new(VecDeque::new()),
            live: Arc::new(AtomicUsize::new(0)),
            waiting: AtomicUsize::new(0),
        });
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(maintain(Arc::downgrade(&inner)));
        }
        Ok(Pool { inner })
    }

    /// The options the pool's connections are opened with.
    pub fn options(&self) -> &Options {
        &self.inner.opts
    }

    /// The pool's own options (size, timeouts).
    pub fn pool_options(&self) -> &PoolOptions {
        &self.inner.popts
    }

    /// A connection: an idle one (pinged first if it sat idle longer than
    /// `health_check_after`), or a new one while fewer than `max_size` are open. Waits for
    /// a free slot at most `acquire_timeout`. Dropping this future at any point leaks
    /// nothing.
    pub async fn get(&self) -> Result<Pooled> {
        let inner = &self.inner;
        inner.waiting.fetch_add(1, Ordering::SeqCst);
        let waiting = Waiting(&inner.waiting);
        let acquire = inner.slots.clone().acquire_owned();
        let permit = match inner.popts.acquire_timeout {
            Some(t) => tokio::time::timeout(t, acquire).await.map_err(|_| Error::timed_out(crate::Timeout::PoolAcquire))?,
            None => acquire.await,
        }
        .expect("the pool's semaphore is never closed");
        drop(waiting);
        while let Some(mut slot) = inner.take_idle() {
            let now = Instant::now();
            if inner.expired(&slot, now) {
                continue;
            }
            if inner.popts.health_check_after.is_some_and(|d| now.duration_since(slot.idle_since) >= d) {
                if let Err(e) = slot.client.ping().await {
                    tracing::debug!(error = %e, "pooled connection failed its health check");
                    continue;
                }
            }
            return Ok(Pooled { slot: Some(slot), permit: Some(permit), pool: inner.clone() });
        }
        let client = Client::connect_shared(inner.opts.clone(), inner.shared.clone()).await?;
        Ok(Pooled { slot: Some(Slot::new(client, &inner.live)), permit: Some(permit), pool: inner.clone() })
    }

    /// The pool's counters now.
    pub fn status(&self) -> PoolStatus {
        let inner = &self.inner;
        PoolStatus {
            size: inner.live.load(Ordering::SeqCst),
            idle: inner.idle.lock().expect("pool lock").len(),
            in_use: inner.popts.max_size - inner.slots.available_permits(),
            waiting: inner.waiting.load(Ordering::SeqCst),
        }
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("options", &self.inner.opts).field("status", &self.status()).finish()
    }
}

impl Inner {
    /// The most recently returned idle connection (warm; the oldest ones time out).
    fn take_idle(&self) -> Option<Slot> {
        self.idle.lock().expect("pool lock").pop_back()
    }

    fn expired(&self, slot: &Slot, now: Instant) -> bool {
        self.popts.max_lifetime.is_some_and(|d| now.duration_since(slot.created) >= d)
            || self.popts.idle_timeout.is_some_and(|d| now.duration_since(slot.idle_since) >= d)
            || !slot.client.is_idle()
    }

    /// Take a connection back if it is clean.
    fn put_back(&self, mut slot: Slot) {
        let now = Instant::now();
        slot.idle_since = now;
        if slot.client.is_idle() && self.popts.max_lifetime.is_none_or(|d| now.duration_since(slot.created) < d) {
            self.idle.lock().expect("pool lock").push_back(slot);
        }
    }
}

/// Close idle connections past their limits and keep `min_idle` open, once a second,
/// until the pool is dropped.
async fn maintain(pool: Weak<Inner>) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(inner) = pool.upgrade() else { return };
        let now = Instant::now();
        let expired: Vec<Slot> = {
            let mut idle = inner.idle.lock().expect("pool lock");
            let keep = inner.popts.min_idle;
            let mut out = Vec::new();
            // Oldest first; `min_idle` of them stay unless their lifetime is over.
            let mut i = 0;
            while i < idle.len() {
                let over_lifetime = inner.popts.max_lifetime.is_some_and(|d| now.duration_since(idle[i].created) >= d);
                if over_lifetime || (idle.len() > keep && inner.expired(&idle[i], now)) {
                    out.extend(idle.remove(i));
                } else {
                    i += 1;
                }
            }
            out
        };
        drop(expired);
        while inner.live.load(Ordering::SeqCst) < inner.popts.min_idle {
            let Ok(permit) = inner.slots.clone().try_acquire_owned() else { break };
            match Client::connect_shared(inner.opts.clone(), inner.shared.clone()).await {
                Ok(c) => inner.put_back(Slot::new(c, &inner.live)),
                Err(e) => {
                    tracing::debug!(error = %e, "cannot open a min_idle connection");
                    break;
                }
            }
            drop(permit);
        }
    }
}

/// A connection taken from a [`Pool`]; derefs to [`Client`]. Dropped, it goes back to the
/// pool only if it is clean: idle and in step. A connection dropped with a query still
/// running (a stream dropped mid-result) is drained by a background task, keeping its slot
/// until then, and goes back only if that succeeds; anything else (broken, mid-insert) is
/// closed.
pub struct Pooled {
    slot: Option<Slot>,
    permit: Option<OwnedSemaphorePermit>,
    pool: Arc<Inner>,
}

impl Pooled {
    /// Take the connection out of the pool for good (its slot is freed).
    pub fn detach(mut self) -> Client {
        let mut slot = self.slot.take().expect("present until dropped");
        // The client outlives the slot: stop counting it.
        let client = std::mem::replace(&mut slot.client, placeholder_client(&self.pool));
        drop(slot);
        client
    }
}

/// A client without a connection, standing in for one moved out of a slot.
fn placeholder_client(pool: &Inner) -> Client {
    Client::disconnected(pool.opts.clone(), pool.shared.clone())
}

impl Deref for Pooled {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.slot.as_ref().expect("present until dropped").client
    }
}

impl DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut Client {
        &mut self.slot.as_mut().expect("present until dropped").client
    }
}

impl std::fmt::Debug for Pooled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pooled").field("client", &self.slot.as_ref().map(|s| &s.client)).finish()
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let Some(mut slot) = self.slot.take() else { return };
        let permit = self.permit.take();
        if slot.client.is_idle() {
            // Back into the list before the slot is freed, so the next caller finds it.
            self.pool.put_back(slot);
            drop(permit);
            return;
        }
        if slot.client.needs_drain() {
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                let pool = self.pool.clone();
                rt.spawn(async move {
                    let _permit = permit;
                    // `ping` drains the abandoned query first, then checks the connection.
                    if let Ok(Ok(())) = tokio::time::timeout(BACKGROUND_DRAIN, slot.client.ping()).await {
                        pool.put_back(slot);
                    }
                });
            }
        }
        // Broken or mid-insert: the slot (and its connection) is dropped here.
    }
}
