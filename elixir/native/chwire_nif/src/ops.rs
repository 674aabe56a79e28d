//! Network operations on chwire's tokio runtime, their results handed to the calling process.
//!
//! An operation (`Op`, a resource the caller holds) runs as a task on the runtime. Each result
//! it produces (a block, a whole result, an acknowledgement, an error) goes into the op's
//! bounded queue, and then the caller gets the message `{:chwire, id, cells}` (`cells`: how
//! many values the item holds, so that Elixir picks a dirty scheduler for large ones). The
//! caller then takes the item with `op_take`, which builds its terms in the caller's own
//! process heap: no reply is copied between processes, and no scheduler ever waits on the
//! network (the caller waits in `receive`).
//!
//! The queue of a stream holds one block: the task waits for the consumer before decoding
//! more, so memory stays bounded by a block or two whatever the result's size. Dropping the
//! op (the consumer closed the stream, or died and the resource was collected) aborts the task,
//! which drops chwire's query stream: chwire sends Cancel and drains the connection before
//! its next query.

use crate::error::NifError;
use chwire::{Block, DataType, Shared};
use rustler::{Encoder, LocalPid, OwnedEnv};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

/// The runtime every connection's IO runs on (two worker threads; they only move bytes and
/// decode blocks, the terms are built by the callers).
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("chwire-io")
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("cannot start chwire's tokio runtime: {e}"))
    })
}

/// `Chwire.Native` handle: a connection or a pool (the core's [`Shared`]: one connection's
/// callers queue on it, a pool gives each its own), accepted by every operation.
pub struct Handle {
    pub target: Shared,
}

#[rustler::resource_impl]
impl rustler::Resource for Handle {}

/// One result of an operation.
pub enum Item {
    /// A whole SELECT: its header and blocks (`query`, `query_columns`).
    Rows {
        header: Option<Block>,
        blocks: Vec<Block>,
    },
    /// A whole SELECT of plain columns, already in the external term format.
    Encoded {
        header: Option<Block>,
        enc: crate::etf::Encoded,
    },
    /// A stream's header (column names and types), then its blocks, then `Done`.
    Header(Block),
    Block(Block),
    Done,
    /// A new connection.
    Handle(Handle),
    /// An insert's header: the table's columns the data goes into.
    InsertHeader(Vec<(String, DataType)>),
    /// An insert block was sent.
    Sent,
    /// A count of rows (inserts).
    Count(u64),
    /// One Arrow IPC stream.
    Arrow(Vec<u8>),
    Error(NifError),
}

impl Item {
    /// How many values the item holds (the caller builds its terms on a dirty scheduler
    /// when there are many).
    fn cells(&self) -> u64 {
        // Every value of every row, those inside arrays, maps and tuples included: 9,000 rows
        // of 2,000-element arrays are 18M terms, which counted as 9,000 cells were built on a
        // normal scheduler and blocked it for most of a second.
        let of = |b: &Block| b.columns().iter().map(|(_, c)| weight(c.data())).sum::<u64>().max(b.rows() as u64);
        match self {
            Item::Rows { blocks, .. } => blocks.iter().map(of).sum(),
            // Encoded terms take at least 2 bytes each (small integers, empty lists).
            Item::Encoded { enc, .. } => ((enc.n * enc.ncols.max(1)) as u64).max(enc.bufs.iter().map(|b| b.len() as u64 / 2).sum()),
            Item::Block(b) => of(b),
            _ => 0,
        }
    }
}

/// How many terms a column's values make, nested values included.
fn weight(d: &chwire::ColumnData) -> u64 {
    use chwire::ColumnData as D;
    let own = d.len() as u64;
    own + match d {
        D::Nullable(n) => weight(&n.values),
        D::Array(a) => weight(&a.values),
        D::Tuple(t) => t.elements.iter().map(weight).sum(),
        D::LowCardinality(l) => weight(&l.dictionary),
        D::Variant(v) => v.variants.iter().map(weight).sum(),
        D::Dynamic(v) => v.values.variants.iter().map(weight).sum(),
        _ => 0,
    }
}

/// The state a task shares with its op.
pub struct OpState {
    pid: LocalPid,
    id: u64,
    /// Set when the op was cancelled or dropped: no message is sent after it (checked and
    /// set under this lock, so once `cancel` returns no message of this op can arrive).
    cancelled: Mutex<bool>,
    /// The server's timezone (DateTime columns without their own), once connected.
    pub tz: Mutex<Option<String>>,
    /// The heap words the terms of the last encoded result take (`Encoded::words`), for the
    /// caller to grow its heap by before taking it.
    pub words: Mutex<Option<u64>>,
}

impl OpState {
    /// Tell the caller an item is waiting. False when the op was cancelled.
    fn notify(&self, cells: u64) -> bool {
        let cancelled = self.cancelled.lock().unwrap_or_else(|e| e.into_inner());
        if *cancelled {
            return false;
        }
        let mut env = OwnedEnv::new();
        let _ = env.send_and_clear(&self.pid, |env| (crate::atoms::chwire(), self.id, cells).encode(env));
        true
    }
}

/// The sending side of an op, held by its task.
pub struct Tx {
    items: mpsc::Sender<Item>,
    pub shared: Arc<OpState>,
}

impl Tx {
    /// Queue `item` (waiting while the queue is full) and tell the caller. False when the
    /// consumer is gone.
    pub async fn send(&self, item: Item) -> bool {
        let cells = item.cells();
        if let Item::Encoded { enc, .. } = &item {
            *self.shared.words.lock().unwrap_or_else(|e| e.into_inner()) = Some(enc.words);
        }
        if self.items.send(item).await.is_err() {
            return false;
        }
        self.shared.notify(cells)
    }
}

/// What the caller holds of a running operation.
pub struct Op {
    items: Mutex<mpsc::Receiver<Item>>,
    pub shared: Arc<OpState>,
    abort: Mutex<Option<AbortHandle>>,
    /// An insert's block channel (closed by `insert_end`).
    pub blocks: Mutex<Option<mpsc::Sender<Block>>>,
    /// An insert's target columns, once its header came.
    pub insert_columns: Mutex<Option<Vec<(String, DataType)>>>,
    /// The connection whose abandoned query is settled on cancel.
    settle: Option<Shared>,
}

#[rustler::resource_impl]
impl rustler::Resource for Op {}

impl Op {
    /// A new op for the calling process and its task's sender. `depth`: items queued ahead.
    pub fn new(pid: LocalPid, id: u64, depth: usize, target: Option<&Shared>) -> (Op, Tx) {
        let (tx, rx) = mpsc::channel(depth.max(1));
        let shared = Arc::new(OpState { pid, id, cancelled: Mutex::new(false), tz: Mutex::new(None), words: Mutex::new(None) });
        let settle = target.filter(|t| !t.is_pool()).cloned();
        let op = Op {
            items: Mutex::new(rx),
            shared: shared.clone(),
            abort: Mutex::new(None),
            blocks: Mutex::new(None),
            insert_columns: Mutex::new(None),
            settle,
        };
        (op, Tx { items: tx, shared })
    }

    /// Run `work` on the runtime. A panic in it becomes an error item.
    pub fn start<F>(&self, tx: Tx, work: impl FnOnce(Tx) -> F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let rt = runtime();
        let shared = tx.shared.clone();
        let items = tx.items.clone();
        let inner = rt.spawn(work(tx));
        *self.abort.lock().unwrap_or_else(|e| e.into_inner()) = Some(inner.abort_handle());
        rt.spawn(async move {
            if let Err(e) = inner.await {
                if e.is_panic() {
                    let msg = crate::error::panic_message(&*e.into_panic());
                    let tx = Tx { items, shared };
                    tx.send(Item::Error(NifError::Panic(msg))).await;
                }
            }
        });
    }

    /// The next item, if one is queued.
    pub fn take(&self) -> Option<Item> {
        self.items.lock().unwrap_or_else(|e| e.into_inner()).try_recv().ok()
    }

    /// Stop the task (dropping the query or insert it runs) and any message after this.
    pub fn cancel(&self) {
        *self.shared.cancelled.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.blocks.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(h) = self.abort.lock().unwrap_or_else(|e| e.into_inner()).take() {
            if !h.is_finished() {
                h.abort();
                if let Some(c) = &self.settle {
                    // The abandoned query is stopped now rather than at the connection's next
                    // use, which may never come (a server blocked writing to a full socket does
                    // not read the Cancel until then: it stayed in system.processes).
                    let _rt = runtime().enter();
                    c.settle_in_background();
                }
            }
        }
    }
}

impl Drop for Op {
    fn drop(&mut self) {
        self.cancel();
        open_streams().lock().unwrap_or_else(|e| e.into_inner()).remove(&self.shared.id);
    }
}

/// The stream ops whose resource is alive, by id: the connection each runs on (its mutex's
/// address; `None` for a pool's) and the process that consumes it. A stream the consumer
/// abandoned without closing it (driven by hand and dropped) holds its connection until the VM
/// collects its op, whose destructor cancels the query and frees the connection; until then
/// a query on that connection from the same process is `:busy` (`stream_open`), and one from
/// another process first has the owner collect its garbage (`stream_owners`).
fn open_streams() -> &'static Mutex<OpenStreams> {
    static OPEN: OnceLock<Mutex<OpenStreams>> = OnceLock::new();
    OPEN.get_or_init(Default::default)
}

/// Live stream ops: id → (connection key, consumer).
type OpenStreams = HashMap<u64, (Option<usize>, LocalPid)>;

/// The key of a connection in `open_streams` (none for a pool).
fn conn_key(target: &Shared) -> Option<usize> {
    (!target.is_pool()).then(|| target.key())
}

/// Note that op `id` is a stream on `target` consumed by `pid` (until its resource is dropped).
pub fn stream_opened(id: u64, target: &Shared, pid: LocalPid) {
    open_streams().lock().unwrap_or_else(|e| e.into_inner()).insert(id, (conn_key(target), pid));
}

/// Whether the stream op `id` is still alive.
pub fn stream_open(id: u64) -> bool {
    open_streams().lock().unwrap_or_else(|e| e.into_inner()).contains_key(&id)
}

/// The processes consuming a live stream on the connection `target` (none for a pool).
pub fn stream_owners(target: &Shared) -> Vec<LocalPid> {
    let Some(key) = conn_key(target) else { return Vec::new() };
    let open = open_streams().lock().unwrap_or_else(|e| e.into_inner());
    open.values().filter(|(k, _)| *k == Some(key)).map(|(_, pid)| *pid).collect()
}
