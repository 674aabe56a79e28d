//! A running SELECT as a stream of Arrow record batches.
//!
//! A task on the runtime owns the client (its lock) for the query's duration: it reads blocks,
//! turns each into a `RecordBatch` (`chwire_arrow::block_to_batch`, moving the buffers) and
//! hands it to a channel of [`BUFFERED`] batches, so memory stays bounded whatever the result's
//! size. Dropping the consumer end cancels the query (the task sees the channel close, drops
//! the Rust stream, and chwire sends Cancel and drains it before the client's next query).

use crate::errors::{Error, IntoPyResult};
use crate::runtime::SIGNAL_CHECK;
use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, Schema, SchemaRef};
use chwire::arrow::ArrowEvent;
use chwire::{Lease, Progress, QuerySpec, Shared};
use chwire_arrow::ArrowOptions;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};
use pyo3_arrow::{PyRecordBatch, PyRecordBatchReader, PySchema, PyTable};
use std::sync::Arc;
use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The Arrow mapping of a name: `rich` or `clickhouse`.
pub fn arrow_options(mapping: &str) -> Result<ArrowOptions, Error> {
    ArrowOptions::named(mapping).map_err(|e| Error::Data(e.to_string()))
}

/// Batches decoded ahead of a streaming consumer (and one more being decoded meanwhile). Two
/// cost a block's memory (0.4 MiB more peak RSS on W1) at the same speed.
const BUFFERED: usize = 1;
/// Batches decoded ahead of `read_table`, which keeps them all anyway: the decoding task
/// rarely waits for the Python thread, and the thread takes queued batches without waking.
const BUFFERED_TABLE: usize = 64;
/// `read_table` joins consecutive batches smaller than [`SMALL_ROWS`] (a result of many small
/// blocks) into batches of about this many rows before handing them to pyarrow: one import per
/// joined batch instead of one per block.
/// Not when a column holds dictionaries (LowCardinality, Enum): each block has a dictionary of
/// its own, and arrow-rs joins small ones end to end, repeating values (`['', '0', '1', '',
/// '1', '0']` for two blocks of `toString(number % 2)`), which pandas refuses as categories.
/// Separate chunks keep each its own dictionary, which pyarrow and pandas unify.
const COALESCE_ROWS: usize = 65_536;
/// A batch this large is handed over as it is. Well below a full block: servers since 23.x
/// send blocks of 65,409 rows (`max_block_size`), and joining those in pairs copied every value
/// once more (W1 on 26.9: 0.55 s and 0.73 s of CPU against 0.18 s streamed, 0.21 s on 18.16).
const SMALL_ROWS: usize = 16_384;

pub enum Msg {
    Schema(SchemaRef),
    Batch(RecordBatch),
    Progress(Progress),
}

type Tx = mpsc::Sender<Result<Msg, Error>>;
type Rx = mpsc::Receiver<Result<Msg, Error>>;

pub fn closed_client() -> Error {
    Error::Closed
}

/// Settles the client's abandoned query ([`Shared::settle_in_background`]) when dropped armed:
/// a task aborted by `cancel()`, Ctrl-C or asyncio would otherwise leave a quiet HTTP query
/// running on the server until the client's next use.
pub struct SettleOnDrop(Option<Shared>, Handle);

impl SettleOnDrop {
    pub fn new(client: Shared, rt: Handle) -> Self {
        SettleOnDrop(Some(client), rt)
    }

    /// The task ended by itself (it settled what it left).
    pub fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for SettleOnDrop {
    fn drop(&mut self) {
        if let Some(client) = self.0.take() {
            let _rt = self.1.enter();
            client.settle_in_background();
        }
    }
}

/// The query on the connection `lease` holds (the caller took it, so a second query of the
/// client is refused as busy until this one is over).
async fn query_task(client: Shared, mut lease: Lease, spec: QuerySpec, opts: ArrowOptions, tx: Tx) {
    let settle = SettleOnDrop::new(client.clone(), Handle::current());
    let res = match lease.client() {
        Ok(c) => run_query(c, spec, opts, &tx).await,
        Err(_) => Err(closed_client()),
    };
    // A consumer that left early abandoned the query: settled in the background, so that the
    // client's next query waits for that (`try_lease`), not refused as busy.
    if lease.client().is_ok_and(|c| !c.is_idle()) {
        client.settle_in_background();
    }
    drop(lease);
    settle.disarm();
    if let Err(e) = res {
        let _ = tx.send(Err(e)).await;
    }
}

/// `false` when the consumer is gone.
async fn send(tx: &Tx, m: Msg) -> bool {
    tx.send(Ok(m)).await.is_ok()
}

/// The core's Arrow stream (DateTime without a zone in the server's, as in every front end),
/// forwarded: the schema, then batches and progress (always forwarded: `QueryStream.progress`
/// reads it without a callback).
async fn run_query(client: &mut chwire::Client, spec: QuerySpec, opts: ArrowOptions, tx: &Tx) -> Result<(), Error> {
    let mut stream = spec.query(client).fetch_arrow(opts).await?;
    if !send(tx, Msg::Schema(stream.schema())).await {
        return Ok(());
    }
    loop {
        let ev = tokio::select! {
            biased;
            _ = tx.closed() => return Ok(()),
            ev = stream.next_event() => ev?,
        };
        let m = match ev {
            None => return Ok(()),
            Some(ArrowEvent::Batch(b)) => Msg::Batch(b),
            Some(ArrowEvent::Progress(p)) => Msg::Progress(p),
        };
        if !send(tx, m).await {
            return Ok(());
        }
    }
}

/// The consumer end of a running query: the next batch, progress reports to the callback,
/// Ctrl-C. Used by `QueryStream` itself and, once exported through `__arrow_c_stream__`, by
/// the C stream's reader, so both report progress and can be interrupted alike.
struct Feed {
    rt: Handle,
    rx: Option<Rx>,
    handle: Option<JoinHandle<()>>,
    callback: Option<Py<PyAny>>,
    progress: Progress,
    /// Why the rest of the result is gone (Ctrl-C, an error already raised): every later read
    /// raises it, so that a loop resumed after the interruption does not end as if complete.
    broken: Option<&'static str>,
}

const INTERRUPTED: &str = "the query was interrupted (Ctrl-C): the rest of its result is gone";
const FAILED: &str = "the query failed (the error was raised before): the rest of its result is gone";

impl Feed {
    /// The next message, with the GIL released while waiting; `None` at the end. A server
    /// error is raised; a signal (Ctrl-C) aborts the query.
    fn recv(&mut self, py: Python<'_>) -> PyResult<Option<Msg>> {
        // Signals are looked at before every message too, not only while waiting: when the
        // server keeps the channel full, no wait ever times out, and a consumer reading the
        // exported C stream (pyarrow, Polars) runs no Python code that would look at them.
        // (Cheap: an atomic flag unless a signal is pending.)
        if let Some(why) = self.broken {
            return Err(Error::Broken(why).into_py(py));
        }
        self.interrupted(py)?;
        let Some(rx) = self.rx.as_mut() else { return Ok(None) };
        // A message already queued is taken without a timer or a trip through the runtime.
        match rx.try_recv() {
            Ok(Ok(m)) => return Ok(Some(m)),
            Ok(Err(e)) => {
                self.close();
                self.broken = Some(FAILED);
                return Err(e.into_py(py));
            }
            Err(_) => {} // empty or ended: the waiting path below sorts it out
        }
        loop {
            let Some(rx) = self.rx.as_mut() else { return Ok(None) };
            let r = py.detach(|| self.rt.block_on(async { tokio::time::timeout(SIGNAL_CHECK, rx.recv()).await }));
            // Signals first, as soon as the GIL is back: a Ctrl-C that came while waiting is
            // otherwise first seen by whatever Python code runs next, and when that is a
            // finalizer run by a garbage collection (a weakref callback, a `__del__`), Python
            // reports the KeyboardInterrupt raised in it as "Exception ignored" and loses it
            // (seen in CI: the query ran on until the test's watchdog cancelled it).
            self.interrupted(py)?;
            match r {
                Ok(Some(Ok(m))) => return Ok(Some(m)),
                Ok(Some(Err(e))) => {
                    self.close();
                    self.broken = Some(FAILED);
                    return Err(e.into_py(py));
                }
                Ok(None) => {
                    // The task ended: normally, or aborted by `Client.cancel()`.
                    let handle = self.handle.take();
                    self.close();
                    if let Some(h) = handle {
                        if let Err(join) = py.detach(|| self.rt.block_on(h)) {
                            self.broken = Some(FAILED);
                            return Err(crate::runtime::join_error(py, join));
                        }
                    }
                    return Ok(None);
                }
                Err(_elapsed) => {}
            }
        }
    }

    /// Run Python's signal handlers; when one raises (Ctrl-C), abort the query and raise it.
    fn interrupted(&mut self, py: Python<'_>) -> PyResult<()> {
        if let Err(e) = py.check_signals() {
            if let Some(h) = &self.handle {
                h.abort();
            }
            self.close();
            self.broken = Some(INTERRUPTED);
            return Err(e);
        }
        Ok(())
    }

    fn report(&mut self, py: Python<'_>, p: Progress) -> PyResult<()> {
        self.progress.accumulate(&p);
        if let Some(cb) = &self.callback {
            let d = PyDict::new(py);
            d.set_item("read_rows", self.progress.read_rows)?;
            d.set_item("read_bytes", self.progress.read_bytes)?;
            d.set_item("total_rows_to_read", self.progress.total_rows_to_read)?;
            d.set_item("written_rows", self.progress.written_rows)?;
            d.set_item("written_bytes", self.progress.written_bytes)?;
            d.set_item("elapsed_ns", self.progress.elapsed_ns)?;
            cb.call1(py, (d,))?;
        }
        Ok(())
    }

    /// The next batch (as Rust), reporting progress on the way.
    fn next_batch(&mut self, py: Python<'_>) -> PyResult<Option<RecordBatch>> {
        loop {
            match self.recv(py)? {
                Some(Msg::Batch(b)) => return Ok(Some(b)),
                Some(Msg::Progress(p)) => self.report(py, p)?,
                Some(Msg::Schema(_)) => {}
                None => return Ok(None),
            }
        }
    }

    fn close(&mut self) {
        // Dropping the receiver makes the task cancel the query.
        self.rx = None;
        self.handle = None;
    }

    /// An empty, finished feed.
    fn done(rt: Handle) -> Feed {
        Feed { rt, rx: None, handle: None, callback: None, progress: Progress::default(), broken: None }
    }
}

/// A query's results as Arrow record batches: iterate it (``pyarrow.RecordBatch`` each), call
/// ``read_all()``, or hand it to anything that reads the Arrow PyCapsule stream interface
/// (``pyarrow.table``, ``polars.from_arrow``, DuckDB) without copying.
#[pyclass(module = "chwire._chwire", name = "QueryStream")]
pub struct QueryStream {
    feed: Feed,
    schema: SchemaRef,
    /// The error that ended the stream after it was handed over through
    /// `__arrow_c_stream__` (the consumer raises its own exception, with only the text).
    failed: Arc<std::sync::Mutex<Option<PyErr>>>,
}

impl QueryStream {
    /// Start the query; returns once the server has described the result (or failed).
    /// `track` receives the task's abort handle as soon as it runs (for `Client.cancel()`).
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        py: Python<'_>,
        rt: &Handle,
        client: Shared,
        lease: Lease,
        spec: QuerySpec,
        opts: ArrowOptions,
        callback: Option<Py<PyAny>>,
        whole_table: bool,
        track: impl FnOnce(tokio::task::AbortHandle),
    ) -> PyResult<QueryStream> {
        let (tx, rx) = mpsc::channel(if whole_table { BUFFERED_TABLE } else { BUFFERED });
        let handle = rt.spawn(query_task(client, lease, spec, opts, tx));
        // Cancellable from now on, not only once the result is described: over HTTP an old
        // server sends nothing until the query is done.
        track(handle.abort_handle());
        let feed = Feed { rt: rt.clone(), rx: Some(rx), handle: Some(handle), callback, progress: Progress::default(), broken: None };
        let mut s = QueryStream { feed, schema: Arc::new(Schema::empty()), failed: Default::default() };
        loop {
            match s.feed.recv(py)? {
                Some(Msg::Schema(schema)) => {
                    names_cross(&schema).py_err(py)?; // dropping `s` cancels the query
                    s.schema = schema;
                    return Ok(s);
                }
                Some(Msg::Progress(p)) => s.feed.report(py, p)?,
                Some(Msg::Batch(_)) => unreachable!("the schema comes first"),
                None => return Err(Error::Data("the query ended without describing its result".into()).into_py(py)),
            }
        }
    }

    /// Every remaining batch as a pyarrow.Table: each batch is handed to pyarrow as it
    /// arrives (`RecordBatch._import_from_c`, no copy; runs of small batches are joined first)
    /// and the table is assembled from them with `Table.from_batches`. (Exporting the collected
    /// batches as one C stream instead, `PyTable::into_pyarrow`, cost 3–4× the CPU of the whole
    /// query on W1.)
    pub fn read_table<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut out = Vec::new();
        let mut small: Vec<RecordBatch> = Vec::new();
        let mut small_rows = 0;
        let joinable = !self.schema.fields().iter().any(|f| holds_dictionary(f.data_type()));
        let flush = |small: &mut Vec<RecordBatch>, out: &mut Vec<Bound<'py, PyAny>>| -> PyResult<()> {
            let b = match small.len() {
                0 => return Ok(()),
                1 => small.pop().expect("one batch"),
                _ => arrow_select::concat::concat_batches(&self.schema, small.iter())
                    .map_err(|e| Error::Data(format!("joining small batches: {e}")).into_py(py))?,
            };
            small.clear();
            out.push(PyRecordBatch::new(b).into_pyarrow(py)?);
            Ok(())
        };
        while let Some(b) = self.feed.next_batch(py)? {
            if b.num_rows() >= SMALL_ROWS || !joinable {
                flush(&mut small, &mut out)?;
                small_rows = 0;
                out.push(PyRecordBatch::new(b).into_pyarrow(py)?);
                continue;
            }
            small_rows += b.num_rows();
            small.push(b);
            if small_rows >= COALESCE_ROWS {
                flush(&mut small, &mut out)?;
                small_rows = 0;
            }
        }
        flush(&mut small, &mut out)?;
        let schema = PySchema::new(self.schema.clone()).into_pyarrow(py)?;
        let table = py.import(intern!(py, "pyarrow"))?.getattr(intern!(py, "Table"))?;
        table.call_method1(intern!(py, "from_batches"), (out, schema))
    }

    fn close(&mut self) {
        self.feed.close();
    }
}

/// The remaining batches as a Rust reader (for the Arrow C stream export). Each `next` takes
/// the GIL for the moment it reports progress or looks at signals; it waits without it.
struct ChannelReader {
    feed: Feed,
    schema: SchemaRef,
    /// Where the stream's error is kept for `QueryStream.take_error`.
    failed: Arc<std::sync::Mutex<Option<PyErr>>>,
}

impl Iterator for ChannelReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        Python::attach(|py| match self.feed.next_batch(py) {
            Ok(b) => b.map(Ok),
            Err(e) if e.is_instance_of::<PyKeyboardInterrupt>(py) => {
                // The consumer (pyarrow, Polars, DuckDB) turns a stream error into its own
                // exception; Ctrl-C is also raised again so that Python sees KeyboardInterrupt
                // as soon as it runs code that checks signals. The query is already cancelled.
                // SAFETY: called with the GIL held; it only marks a SIGINT as pending.
                unsafe { pyo3::ffi::PyErr_SetInterrupt() };
                Some(Err(ArrowError::ExternalError("KeyboardInterrupt: the query was cancelled".into())))
            }
            // Rendered here, with the GIL (the consumer may print it without); kept whole for
            // `take_error`.
            Err(e) => {
                let text = e.to_string();
                *self.failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                Some(Err(ArrowError::ExternalError(text.into())))
            }
        })
    }
}

impl RecordBatchReader for ChannelReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

#[pymethods]
impl QueryStream {
    /// The result's ``pyarrow.Schema``.
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        PySchema::new(self.schema.clone()).into_pyarrow(py)
    }

    /// Progress so far: rows and bytes read, the server's estimate of the total.
    #[getter]
    fn progress<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("read_rows", self.feed.progress.read_rows)?;
        d.set_item("read_bytes", self.feed.progress.read_bytes)?;
        d.set_item("total_rows_to_read", self.feed.progress.total_rows_to_read)?;
        d.set_item("written_rows", self.feed.progress.written_rows)?;
        d.set_item("written_bytes", self.feed.progress.written_bytes)?;
        d.set_item("elapsed_ns", self.feed.progress.elapsed_ns)?;
        Ok(d)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.feed.next_batch(py)? {
            Some(b) => Ok(Some(PyRecordBatch::new(b).into_pyarrow(py)?)),
            None => Ok(None),
        }
    }

    /// The remaining batches as one ``pyarrow.Table``.
    fn read_all<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.read_table(py)
    }

    /// The chwire exception that ended the stream after `__arrow_c_stream__` handed it to a
    /// consumer (which raises an exception of its own with the text), taken; None if none.
    fn take_error(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        let e = self.failed.lock().unwrap_or_else(|p| p.into_inner()).take()?;
        Some(e.into_value(py).into_any())
    }

    /// Stop reading: the query is cancelled on the server; the client stays usable.
    fn close_stream(&mut self) {
        self.close();
        // Closed on purpose: the stream ends here, without an error.
        self.feed.broken = None;
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&mut self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close();
        false
    }

    /// The Arrow PyCapsule stream interface: the remaining batches, without copying. The
    /// stream is consumed by it (a finished or closed one exports an empty stream of the same
    /// schema). The exported stream reports progress and is interrupted by Ctrl-C as well.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(&mut self, py: Python<'py>, requested_schema: Option<Bound<'py, PyCapsule>>) -> PyResult<Bound<'py, PyAny>> {
        let rt = self.feed.rt.clone();
        let feed = std::mem::replace(&mut self.feed, Feed::done(rt));
        let reader = ChannelReader { feed, schema: self.schema.clone(), failed: self.failed.clone() };
        let py_reader = Bound::new(py, PyRecordBatchReader::new(Box::new(reader)))?;
        py_reader.call_method1("__arrow_c_stream__", (requested_schema,))
    }
}

/// Whether values of `t` are or hold dictionary arrays.
fn holds_dictionary(t: &arrow_schema::DataType) -> bool {
    use arrow_schema::DataType as A;
    match t {
        A::Dictionary(..) => true,
        A::Struct(fs) => fs.iter().any(|f| holds_dictionary(f.data_type())),
        A::List(f) | A::LargeList(f) | A::ListView(f) | A::LargeListView(f) | A::FixedSizeList(f, _) | A::Map(f, _) => {
            holds_dictionary(f.data_type())
        }
        A::Union(fs, _) => fs.iter().any(|(_, f)| holds_dictionary(f.data_type())),
        A::RunEndEncoded(_, v) => holds_dictionary(v.data_type()),
        _ => false,
    }
}

/// Column names reach pyarrow through the Arrow C data interface as C strings: one with a NUL
/// byte (`SELECT 1 AS \`a\0b\``) cannot cross, and would fail there with an untyped error.
fn names_cross(schema: &Schema) -> Result<(), Error> {
    fn walk(f: &arrow_schema::Field) -> Option<&str> {
        use arrow_schema::DataType as A;
        if f.name().contains('\0') {
            return Some(f.name());
        }
        match f.data_type() {
            A::Struct(fs) => fs.iter().find_map(|f| walk(f)),
            A::List(f) | A::LargeList(f) | A::ListView(f) | A::LargeListView(f) | A::FixedSizeList(f, _) | A::Map(f, _) => walk(f),
            A::Union(fs, _) => fs.iter().find_map(|(_, f)| walk(f)),
            _ => None,
        }
    }
    match schema.fields().iter().find_map(|f| walk(f)) {
        Some(name) => Err(Error::Data(format!(
            "the result has a column or element named {name:?}, with a NUL byte, which Arrow cannot hand to Python: give it an alias"
        ))),
        None => Ok(()),
    }
}

/// Decode a ClickHouse Native-format byte string (e.g. from chdb or ``clickhouse-client
/// --format Native``) into a ``pyarrow.Table`` with chwire's Arrow mapping.
#[pyfunction]
#[pyo3(signature = (data, mapping="rich"))]
pub fn read_native<'py>(py: Python<'py>, data: &[u8], mapping: &str) -> PyResult<Bound<'py, PyAny>> {
    let opts = arrow_options(mapping).py_err(py)?;
    let blocks = chwire::proto::native::decode_all(data).py_err(py)?;
    let mut schema = None;
    let mut batches = Vec::new();
    for b in blocks {
        let s = match &schema {
            Some(s) => Arc::clone(s),
            None => {
                let s = chwire_arrow::schema_of_block(&b, &opts).py_err(py)?;
                names_cross(&s).py_err(py)?;
                schema = Some(s.clone());
                s
            }
        };
        if b.rows() > 0 {
            batches.push(chwire_arrow::block_to_batch(b, &s, &opts).py_err(py)?);
        }
    }
    PyTable::try_new(batches, schema.unwrap_or_else(|| Arc::new(Schema::empty())))?.into_pyarrow(py)
}
