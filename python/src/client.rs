//! `chwire._chwire.RawClient`: one connection or a pool (the core's `Shared`); the Python
//! `chwire.Client` wraps it.

use crate::errors::{Error, IntoPyResult};
use crate::params;
use crate::runtime::run;
use crate::stream::{arrow_options, QueryStream};
use chwire::sql::{InsertTarget, TableRef};
use chwire::{Lease, Options, QuerySpec, ResultLimits, Shared};
use chwire_arrow::ArrowOptions;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3_arrow::input::AnyRecordBatch;

#[pyclass(module = "chwire._chwire", name = "RawClient", frozen)]
pub struct RawClient {
    client: Shared,
    /// The runtime this client's connection and tasks keep to (see `crate::runtime`).
    rt: crate::runtime::Pinned,
    arrow: ArrowOptions,
    /// Bounds of a result collected whole (`max_collected_rows`, `max_collected_bytes`).
    limits: ResultLimits,
    /// The running tasks of this client (one on a connection, one per pooled connection in
    /// use), each with the call it belongs to (`call_tag`), for `cancel()` from another thread.
    running: std::sync::Mutex<Vec<(u64, tokio::task::AbortHandle)>>,
    /// Most calls that run at once: a pool's `max_size`, 1 for one connection.
    concurrency: usize,
    /// Calls cancelled (`cancel(call)`) before they tracked a task (a pool's call waiting
    /// for a connection): what they start is stopped at once. Cleared as each call ends.
    cancelled: std::sync::Mutex<std::collections::HashSet<u64>>,
    server: Option<chwire::ServerInfo>,
}

/// The connection's options, Arrow options and bounds of collected results of `connect`'s and
/// `create_pool`'s arguments.
fn connection_options(
    url: Option<&str>,
    mut options: Vec<(String, String)>,
    mut settings: Vec<(String, String)>,
    mapping: &str,
) -> Result<(Options, ArrowOptions, ResultLimits), Error> {
    let limits = ResultLimits::take(&mut options)?;
    let mut o = Options::from_url_and(url, options)?;
    // The URL's output_format_arrow_* settings first, then the keyword's: the keyword wins,
    // as it does for every other setting (sent after the URL's).
    let mut arrow = arrow_options(mapping)?;
    take_arrow_settings(&mut o.settings, &mut arrow)?;
    take_arrow_settings(&mut settings, &mut arrow)?;
    o.settings.extend(settings);
    Ok((o, arrow, limits))
}

/// Arrow output settings (`output_format_arrow_*`) shape the batches chwire builds: taken out
/// of `settings` and applied to `arrow` (the core's rule), not sent.
fn take_arrow_settings(settings: &mut Vec<(String, String)>, arrow: &mut ArrowOptions) -> Result<(), Error> {
    arrow.take_settings(settings).map_err(|e| Error::Data(e.to_string()))
}

thread_local! {
    /// The call the current thread runs (`RawClient::call_tag`; 0: none), which the tasks it
    /// starts are tracked under.
    static CALL: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How long a query waits for the client's previous operation to end before it is refused
/// as busy.
const BUSY_GRACE: std::time::Duration = std::time::Duration::from_millis(250);

impl RawClient {
    fn spec(
        &self,
        sql: String,
        parameters: Option<&Bound<'_, PyAny>>,
        settings: Option<&Bound<'_, PyAny>>,
        query_id: Option<String>,
    ) -> PyResult<QuerySpec> {
        let tz = self.server.as_ref().and_then(|s| s.timezone.as_deref());
        let mut spec = QuerySpec::new(sql);
        spec.settings = params::settings(settings)?;
        spec.query_id = query_id;
        params::bind_all(&mut spec, parameters, tz)?;
        Ok(spec)
    }

    /// The connection for one query, or `ProgrammingError` (busy) while another query of this
    /// client runs or streams: waiting would be for ever when that stream is this thread's.
    fn lease(&self, py: Python<'_>) -> PyResult<Lease> {
        if self.client.is_closed() {
            return Err(Error::Closed.into_py(py));
        }
        let shared = self.client.clone();
        // The grace covers a task that was just aborted (Ctrl-C, `cancel()`, asyncio) but is
        // not dropped yet; a settle it left behind is waited for by `try_lease` itself. The
        // wait (a pool's, for a free connection) is a tracked task: `cancel()` ends it.
        let handle = self.rt.handle().spawn(async move {
            let closed = shared.clone();
            shared.try_lease(BUSY_GRACE).await.map_err(|e| if closed.is_closed() { Error::Closed } else { Error::from(e) })
        });
        self.track(handle.abort_handle());
        crate::runtime::wait(py, self.rt.handle(), handle)
    }

    fn track(&self, h: tokio::task::AbortHandle) {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        running.retain(|(_, h)| !h.is_finished());
        let call = CALL.with(std::cell::Cell::get);
        if call != 0 && self.cancelled.lock().unwrap_or_else(|e| e.into_inner()).contains(&call) {
            h.abort();
            return;
        }
        running.push((call, h));
    }

    /// Start a query; `whole_table` when the caller collects the whole result anyway (a
    /// deeper buffer, see `QueryStream::open`; the client's bounds of collected results).
    #[allow(clippy::too_many_arguments)]
    fn open_stream(
        &self,
        py: Python<'_>,
        sql: String,
        parameters: Option<&Bound<'_, PyAny>>,
        settings: Option<&Bound<'_, PyAny>>,
        query_id: Option<String>,
        progress: Option<Py<PyAny>>,
        whole_table: bool,
    ) -> PyResult<QueryStream> {
        let mut spec = self.spec(sql, parameters, settings, query_id)?;
        if whole_table {
            spec.limits = self.limits;
        }
        let mut arrow = self.arrow.clone();
        take_arrow_settings(&mut spec.settings, &mut arrow).py_err(py)?;
        let lease = self.lease(py)?;
        QueryStream::open(py, self.rt.handle(), self.client.clone(), lease, spec, arrow, progress, whole_table, |h| self.track(h))
    }
}

#[pymethods]
impl RawClient {
    /// Connect: `url` (tcp://user:password@host:port/database?compression=lz4&...) and/or
    /// options by their URL key (host, port, user, password, database, compression,
    /// connect_timeout, read_timeout, ...), plus settings sent with every query.
    #[staticmethod]
    #[pyo3(signature = (url=None, options=Vec::new(), settings=Vec::new(), mapping="rich"))]
    fn connect(
        py: Python<'_>,
        url: Option<String>,
        options: Vec<(String, String)>,
        settings: Vec<(String, String)>,
        mapping: &str,
    ) -> PyResult<RawClient> {
        let (o, arrow, limits) = connection_options(url.as_deref(), options, settings, mapping).py_err(py)?;
        let rt = crate::runtime::Pinned::new();
        let client = run(py, rt.handle(), async move { Ok(Shared::connect(o).await?) })?;
        let server = client.server_info().cloned();
        Ok(RawClient { client, rt, arrow, limits, running: Default::default(), concurrency: 1, cancelled: Default::default(), server })
    }

    /// A pool (connections opened as they are needed, each query on its own): `url`,
    /// `options`, `settings` and `mapping` as `connect`'s, `pool` the pool's own options by
    /// the core's names (max_size, min_idle, acquire_timeout, ...; a connection option or an
    /// unknown key is refused).
    #[staticmethod]
    #[pyo3(signature = (url=None, options=Vec::new(), settings=Vec::new(), mapping="rich", pool=Vec::new()))]
    fn create_pool(
        py: Python<'_>,
        url: Option<String>,
        options: Vec<(String, String)>,
        settings: Vec<(String, String)>,
        mapping: &str,
        pool: Vec<(String, String)>,
    ) -> PyResult<RawClient> {
        let (o, arrow, limits) = connection_options(url.as_deref(), options, settings, mapping).py_err(py)?;
        let popts = chwire::PoolOptions::from_pairs(pool).map_err(Error::from).py_err(py)?;
        let concurrency = popts.max_size;
        let rt = crate::runtime::Pinned::new();
        // The pool's maintenance task runs on this client's runtime.
        let client = {
            let _entered = rt.handle().enter();
            Shared::pool(o, popts).map_err(Error::from).py_err(py)?
        };
        Ok(RawClient { client, rt, arrow, limits, running: Default::default(), concurrency, cancelled: Default::default(), server: None })
    }

    /// The pool's connections (`size`, `idle`, `in_use`, `waiting`), or None for one
    /// connection.
    fn pool_status<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(s) = self.client.pool_status() else { return Ok(None) };
        let d = PyDict::new(py);
        d.set_item("size", s.size)?;
        d.set_item("idle", s.idle)?;
        d.set_item("in_use", s.in_use)?;
        d.set_item("waiting", s.waiting)?;
        Ok(Some(d))
    }

    /// Run a query and stream its result as Arrow record batches; `whole` when the caller
    /// collects it whole (Polars' DataFrame of the stream): the client's bounds apply.
    #[pyo3(signature = (sql, parameters=None, settings=None, query_id=None, progress=None, whole=false))]
    #[allow(clippy::too_many_arguments)]
    fn query_stream(
        &self,
        py: Python<'_>,
        sql: String,
        parameters: Option<&Bound<'_, PyAny>>,
        settings: Option<&Bound<'_, PyAny>>,
        query_id: Option<String>,
        progress: Option<Py<PyAny>>,
        whole: bool,
    ) -> PyResult<QueryStream> {
        self.open_stream(py, sql, parameters, settings, query_id, progress, whole)
    }

    /// Run a query and return its whole result as a `pyarrow.Table`.
    #[pyo3(signature = (sql, parameters=None, settings=None, query_id=None, progress=None))]
    fn query_arrow<'py>(
        &self,
        py: Python<'py>,
        sql: String,
        parameters: Option<&Bound<'py, PyAny>>,
        settings: Option<&Bound<'py, PyAny>>,
        query_id: Option<String>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut s = self.open_stream(py, sql, parameters, settings, query_id, progress, true)?;
        s.read_table(py)
    }

    /// Insert Arrow data (anything with `__arrow_c_stream__` or `__arrow_c_array__`) into
    /// `table`; columns are matched by name against the table's and converted losslessly.
    /// `options`: the insert options (`block_rows`). Returns the number of rows sent.
    #[pyo3(signature = (table, data, settings=None, query_id=None, options=Vec::new()))]
    fn insert_arrow(
        &self,
        py: Python<'_>,
        table: String,
        data: AnyRecordBatch,
        settings: Option<&Bound<'_, PyAny>>,
        query_id: Option<String>,
        options: Vec<(String, String)>,
    ) -> PyResult<u64> {
        let insert = chwire::InsertOptions::from_pairs(options).py_err(py)?;
        let reader = data.into_reader()?;
        let schema = reader.schema();
        if schema.fields().is_empty() {
            return Err(Error::Data("the data to insert has no columns".into()).into_py(py));
        }
        let table = TableRef::parse(&table).map_err(|e| Error::from(chwire::Error::from(e))).py_err(py)?;
        let cols: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        let sql = InsertTarget::values(table, Some(cols)).to_string();
        let spec = self.spec(sql, None, settings, query_id)?;
        let mut lease = self.lease(py)?;
        // The data is read on a thread of its own, never on the runtime's (a Python generator
        // needs the GIL, another client's result stream waits on a runtime): the waiting caller
        // keeps taking Ctrl-C, and cancel() stops the reading with the insert.
        let (mut rx, feeder) = chwire::bindings::Feed::start(reader, 2, |m| arrow_schema::ArrowError::ExternalError(m.into())).into_parts();
        let task = async move {
            let c = lease.client().map_err(|_| Error::Closed)?;
            // The core's Arrow insert: batches gathered or cut into blocks, converted and checked.
            let mut ins = spec.query(c).insert_arrow().await?.options(&insert);
            while let Some(batch) = rx.recv().await {
                match batch {
                    Ok(batch) => ins.send_batch(batch).await?,
                    Err(e) => return Err(ins.refuse(format!("reading the Arrow data: {e}")).await.into()),
                }
            }
            Ok(ins.end().await?.rows_sent)
        };
        let handle = self.rt.handle().spawn(task);
        self.track(handle.abort_handle());
        let out = crate::runtime::wait(py, self.rt.handle(), handle);
        if out.is_ok() {
            let _ = py.detach(|| feeder.join()); // it has ended: the insert read to the end
        }
        out
    }

    /// Cancel this client's running query or insert (a pool's: every one running; `call`:
    /// only those the calls tagged so started, see `call_tag`), from another thread or an
    /// asyncio task: it ends with an OperationalError, the connection stays usable.
    #[pyo3(signature = (call=None))]
    fn cancel(&self, call: Option<u64>) {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = call.filter(|&c| c != 0) {
            self.cancelled.lock().unwrap_or_else(|e| e.into_inner()).insert(c);
        }
        running.retain(|(tag, h)| {
            let hit = call.is_none_or(|c| c == *tag);
            if hit {
                h.abort();
            }
            !hit
        });
    }

    /// Tag what the current thread starts from now on as call `call` (0: untagged, at the
    /// call's end), so that `cancel(call)` stops that call alone (the asyncio client's calls).
    fn call_tag(&self, call: u64) {
        let ended = CALL.with(|c| c.replace(call));
        if call == 0 {
            self.cancelled.lock().unwrap_or_else(|e| e.into_inner()).remove(&ended);
        }
    }

    /// Most calls that run at once: a pool's `max_size`, 1 for one connection.
    fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// The server's name, version, revision, timezone and (revision 54474 and later) the
    /// settings its Hello listed.
    fn server_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        if let Some(s) = &self.server {
            d.set_item("name", &s.name)?;
            d.set_item("version", format!("{}.{}.{}", s.version.0, s.version.1, s.version.2))?;
            d.set_item("revision", s.revision)?;
            d.set_item("negotiated_revision", s.negotiated_revision)?;
            d.set_item("timezone", s.timezone.clone())?;
            d.set_item("display_name", s.display_name.clone())?;
            let settings = PyDict::new(py);
            for (k, v) in &s.settings {
                settings.set_item(k, v)?;
            }
            d.set_item("settings", settings)?;
        }
        Ok(d)
    }

    /// Close the connection (waits for a query that is still ending).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        self.cancel(None);
        let client = self.client.clone();
        run(py, self.rt.handle(), async move {
            client.close().await;
            Ok(())
        })
    }
}

/// `text` read as a table reference (`t`, `db.t`, quoted parts) by the core's SQL rules and
/// written back as SQL, every part quoted; text that is none is a `DataError`. What the Python
/// layer puts into a statement instead of a table's text.
#[pyfunction]
pub fn sql_table(py: Python<'_>, text: &str) -> PyResult<String> {
    let table = TableRef::parse(text).map_err(|e| Error::from(chwire::Error::from(e))).py_err(py)?;
    Ok(table.to_string())
}

/// An insert's options (`[("block_rows", text)]`) checked by the core before any work: the
/// error it gives for a bad one (an `InterfaceError`), else nothing.
#[pyfunction]
pub fn check_insert_options(py: Python<'_>, options: Vec<(String, String)>) -> PyResult<()> {
    chwire::InsertOptions::from_pairs(options).py_err(py)?;
    Ok(())
}

/// `name` as a quoted identifier, escaped as ClickHouse reads one (the core's quoting).
#[pyfunction]
pub fn sql_identifier(name: &str) -> String {
    chwire::sql::quote_identifier(name)
}

/// The spans of `sql`, in characters, that are text rather than code: string literals, quoted
/// identifiers and comments as the core's lexer reads them (one left open runs to the end).
/// The DB-API layer looks for its `%s` placeholders outside them only.
#[pyfunction]
pub fn sql_text_spans(sql: &str) -> Vec<(usize, usize)> {
    use chwire::sql::TokenKind as K;
    let (mut spans, mut chars, mut byte) = (Vec::new(), 0usize, 0usize);
    for t in chwire::sql::tokens(sql) {
        chars += sql.get(byte..t.start).map_or(0, |gap| gap.chars().count());
        let n = t.text.chars().count();
        if matches!(t.kind, K::String | K::QuotedIdentifier | K::Comment | K::Unclosed) {
            spans.push((chars, chars + n));
        }
        chars += n;
        byte = t.end();
    }
    spans
}

/// An INSERT's table (as SQL), its column list, the settings of its SETTINGS clause and the
/// text after its `VALUES`.
type InsertValues = (String, Option<Vec<String>>, Vec<(String, String)>, String);

/// `INSERT INTO t [(a, b)] [SETTINGS …] VALUES …` read by the core's rules: the table as SQL,
/// the column list, the statement's settings, and the text after its `VALUES` (empty when the
/// rows are to be sent). `None` for any other statement (a SELECT, an INSERT … SELECT or
/// FORMAT); an INSERT whose table or settings cannot be read is a `DataError`.
#[pyfunction]
pub fn sql_insert_values(py: Python<'_>, sql: &str) -> PyResult<Option<InsertValues>> {
    use chwire::sql::InsertSource;
    let unreadable = |e: chwire::sql::SqlError| Error::from(chwire::Error::from(e));
    let Some(target) = InsertTarget::parse(sql).map_err(unreadable).py_err(py)? else {
        return Ok(None);
    };
    // `INSERT … VALUES` with its rows or without: not FORMAT, not a query, not a statement
    // without a data clause (`INSERT INTO t (a)`, which runs as written).
    let values = matches!(target.source, InsertSource::Inline | InsertSource::Data { format: None })
        && chwire::sql::significant(sql.get(..target.rows_at).unwrap_or("")).last().is_some_and(|t| t.is_keyword("VALUES"));
    let rows = sql.get(target.rows_at..).unwrap_or("").to_string();
    Ok(values.then(|| (target.table.to_string(), target.columns, target.settings, rows)))
}
