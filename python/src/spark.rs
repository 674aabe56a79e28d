//! The Spark rules of `chwire-spark-core` for the PySpark data source (python/chwire/spark):
//! options, type mapping, partition planning, filter translation and the staged write
//! protocol come from the same Rust code as the JVM connector's. Plans, columns, filters and
//! write jobs cross as JSON text (a plan is also what Spark pickles to the executors).

use crate::errors::Error;
use crate::runtime::{run, Pinned};
use chwire_spark_core::{self as core, filters, Plan, SparkOptions, WriteJob};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3_arrow::input::AnyRecordBatch;
use pyo3_arrow::PyRecordBatchReader;
use std::collections::BTreeMap;
use std::future::Future;

/// A rule's error as Python's: a bad option or value is a ValueError, a type without a Spark
/// mapping `chwire.spark._types.UnsupportedType`, the client's and server's errors chwire's.
fn py_error(py: Python<'_>, e: core::Error) -> PyErr {
    match e {
        core::Error::Invalid(m) => PyValueError::new_err(m),
        core::Error::Unsupported(m) => unsupported(py, m),
        core::Error::Client(e) => Error::Client(e).into_py(py),
    }
}

fn unsupported(py: Python<'_>, m: String) -> PyErr {
    let made = py
        .import("chwire.spark._types")
        .and_then(|t| t.getattr("UnsupportedType"))
        .and_then(|c| c.call1((m.clone(),)))
        .map(PyErr::from_value);
    made.unwrap_or_else(|e| e)
}

/// Run a rule that talks to the server, with the GIL released.
fn block<T, F>(py: Python<'_>, fut: F) -> PyResult<T>
where
    T: Send + 'static,
    F: Future<Output = core::Result<T>> + Send + 'static,
{
    let rt = Pinned::new();
    run(py, rt.handle(), async move { Ok(fut.await) })?.map_err(|e| py_error(py, e))
}

/// Spark's options → the parsed options (JSON).
#[pyfunction]
pub fn spark_options(options: Vec<(String, String)>) -> PyResult<String> {
    SparkOptions::parse(options).map(|o| o.to_json()).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Port a shard's replica is reached on, by the options' `shardPorts` and TLS.
#[pyfunction]
pub fn spark_shard_port(options: &str, port: u16) -> PyResult<u16> {
    let o = SparkOptions::from_json(options).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(o.shard_port(port))
}

/// For a read of `url` with `options` (JSON) over HTTP: one URL per server, each with the port
/// the URL and options give it (the watchdog stops the query on whichever server runs it);
/// empty over the native protocol, where the server stops a closed connection's query itself.
#[pyfunction]
pub fn spark_watchdog_urls(options: &str, url: &str) -> PyResult<Vec<String>> {
    let bad = |e: String| PyValueError::new_err(e);
    let o = SparkOptions::from_json(options).map_err(|e| bad(e.to_string()))?;
    let c = o.chwire_options(Some(url)).map_err(|e| bad(e.to_string()))?;
    if c.transport != chwire::Transport::Http {
        return Ok(Vec::new());
    }
    chwire::options::single_host_urls(url, &c).map_err(|e| bad(e.to_string()))
}

/// The Spark column (JSON) of ClickHouse column `name` of type `ch_type`.
#[pyfunction]
#[pyo3(signature = (name, ch_type, uint64_long=false))]
pub fn spark_column(py: Python<'_>, name: &str, ch_type: &str, uint64_long: bool) -> PyResult<String> {
    let c = core::spark_column(name, ch_type, uint64_long).map_err(|e| unsupported(py, e.0))?;
    Ok(serde_json::to_string(&c).expect("a column serializes"))
}

/// Plan a read (connects to the options' URL): the plan as JSON.
#[pyfunction]
#[pyo3(signature = (options, wanted=None))]
pub fn spark_plan(py: Python<'_>, options: &str, wanted: Option<Vec<String>>) -> PyResult<String> {
    let o = SparkOptions::from_json(options).map_err(|e| py_error(py, e))?;
    block(py, async move {
        let mut c = o.connect(None).await?;
        Ok(Plan::make(&mut c, &o, wanted.as_deref()).await?.to_json())
    })
}

/// The SELECT of partition `part` (JSON) of a plan, with the pushed conditions `wheres`.
#[pyfunction]
pub fn spark_partition_sql(py: Python<'_>, plan: &str, part: &str, wheres: Vec<String>) -> PyResult<String> {
    let p = Plan::from_json(plan).map_err(|e| py_error(py, e))?;
    let part: chwire_spark_core::Part =
        serde_json::from_str(part).map_err(|e| PyValueError::new_err(format!("bad partition JSON: {e}")))?;
    Ok(p.sql(&part, &wheres))
}

/// The WHERE condition of a filter (JSON, see `chwire_spark_core::filters::Filter`) over
/// columns of ClickHouse types `types`, or None when Spark keeps it.
#[pyfunction]
pub fn spark_filter_sql(filter: &str, types: BTreeMap<String, String>) -> Option<String> {
    filters::filter_sql_json(filter, &types)
}

/// Prepare a write job (driver) of a DataFrame of schema `schema` (`StructType.json()`): the job
/// as JSON; `overwrite` replaces the target's rows.
#[pyfunction]
#[pyo3(signature = (options, schema, overwrite = false))]
pub fn spark_write_prepare(py: Python<'_>, options: &str, schema: &str, overwrite: bool) -> PyResult<String> {
    let o = SparkOptions::from_json(options).map_err(|e| py_error(py, e))?;
    let fields = chwire_spark_core::arrow::spark_fields(schema).map_err(|e| py_error(py, e))?;
    block(py, async move { Ok(WriteJob::prepare(&o, &fields, overwrite).await?.to_json()) })
}

/// One task attempt's write (`tag` names it), by the protocol shared with the JVM connector
/// (`WriteJob::write_stage`): its staging table created, `data`'s batches (Spark's Arrow, any
/// Arrow stream; None for a partition without rows) converted and inserted in blocks, the job
/// checked not aborted. Returns the staging table and the rows written; on a failure (also the
/// stream's own, e.g. the task's exception) the table is dropped.
#[pyfunction]
#[pyo3(signature = (job, tag, data = None))]
pub fn spark_write_stage(py: Python<'_>, job: &str, tag: &str, data: Option<AnyRecordBatch>) -> PyResult<(String, u64)> {
    let j = WriteJob::from_json(job).map_err(|e| py_error(py, e))?;
    let stage = j.stage_table(tag);
    let reader = data.map(AnyRecordBatch::into_reader).transpose()?;
    // The stream is read on a thread of its own (a Python-backed stream takes the GIL for each
    // batch, which the waiting caller has released).
    let batches = reader.into_iter().flatten().map(|b| b.map_err(|e| format!("reading the task's batches: {e}")));
    let (rx, feeder) = chwire::bindings::Feed::start(batches, 1, |m| m).into_parts();
    let out = {
        let stage = stage.clone();
        block(py, async move { j.write_stage(&stage, rx).await })
    };
    let _ = py.detach(|| feeder.join());
    Ok((stage, out?))
}

/// One partition's batches, read by the task shared with the JVM connector
/// (`read::read_partition`) and drained by this Arrow stream: Spark's types, checked (its
/// errors end the stream with their text), one batch ahead. Dropping the stream stops the read
/// (the query is cancelled on the server).
struct PartitionReader {
    schema: arrow_schema::SchemaRef,
    rx: tokio::sync::mpsc::Receiver<core::Result<arrow_array::RecordBatch>>,
    _pinned: Pinned,
}

impl Iterator for PartitionReader {
    type Item = Result<arrow_array::RecordBatch, arrow_schema::ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        // Called by the consumer of the C stream, on a thread outside the runtime (pyarrow
        // releases the GIL while it waits for the next batch).
        self.rx.blocking_recv().map(|r| r.map_err(|e| arrow_schema::ArrowError::ExternalError(Box::new(e))))
    }
}

impl arrow_array::RecordBatchReader for PartitionReader {
    fn schema(&self) -> arrow_schema::SchemaRef {
        self.schema.clone()
    }
}

/// Read one partition: plan, partition (JSON), pushed conditions, Spark's read schema (JSON
/// StructType, or None for the planned one), the query id → an Arrow C stream of Spark's
/// batches (`pyarrow.RecordBatchReader.from_stream`).
#[pyfunction]
#[pyo3(signature = (plan, part, wheres, schema = None, query_id = None))]
pub fn spark_read(
    py: Python<'_>,
    plan: &str,
    part: &str,
    wheres: Vec<String>,
    schema: Option<&str>,
    query_id: Option<String>,
) -> PyResult<PyRecordBatchReader> {
    let plan = Plan::from_json(plan).map_err(|e| py_error(py, e))?;
    let part: chwire_spark_core::Part =
        serde_json::from_str(part).map_err(|e| PyValueError::new_err(format!("bad partition JSON: {e}")))?;
    let schema = chwire_spark_core::read::read_schema(&plan, schema).map_err(|e| py_error(py, e))?;
    let sql = plan.sql(&part, &wheres);
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    let pinned = Pinned::new();
    pinned.handle().spawn(chwire_spark_core::read::read_partition(plan, part, sql, query_id, schema.clone(), tx));
    Ok(PyRecordBatchReader::new(Box::new(PartitionReader { schema, rx, _pinned: pinned })))
}

/// Commit a write job: move the staged tables into the target, drop the job's others.
#[pyfunction]
pub fn spark_write_commit(py: Python<'_>, job: &str, stages: Vec<String>) -> PyResult<()> {
    let j = WriteJob::from_json(job).map_err(|e| py_error(py, e))?;
    block(py, async move {
        let mut c = j.connect().await?;
        j.commit(&mut c, &stages).await
    })
}

/// Abort a write job: the marker, then every staging table of the job dropped.
#[pyfunction]
pub fn spark_write_abort(py: Python<'_>, job: &str) -> PyResult<()> {
    let j = WriteJob::from_json(job).map_err(|e| py_error(py, e))?;
    block(py, async move {
        let mut c = j.connect().await?;
        j.abort(&mut c).await
    })
}

/// Drop every staging table of a write job (what commit and abort end with).
#[pyfunction]
pub fn spark_write_sweep(py: Python<'_>, job: &str) -> PyResult<()> {
    let j = WriteJob::from_json(job).map_err(|e| py_error(py, e))?;
    block(py, async move {
        let mut c = j.connect().await?;
        j.drop_job_tables(&mut c).await
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(spark_options, m)?)?;
    m.add_function(wrap_pyfunction!(spark_shard_port, m)?)?;
    m.add_function(wrap_pyfunction!(spark_watchdog_urls, m)?)?;
    m.add_function(wrap_pyfunction!(spark_column, m)?)?;
    m.add_function(wrap_pyfunction!(spark_plan, m)?)?;
    m.add_function(wrap_pyfunction!(spark_partition_sql, m)?)?;
    m.add_function(wrap_pyfunction!(spark_filter_sql, m)?)?;
    m.add_function(wrap_pyfunction!(spark_write_prepare, m)?)?;
    m.add_function(wrap_pyfunction!(spark_write_stage, m)?)?;
    m.add_function(wrap_pyfunction!(spark_read, m)?)?;
    m.add_function(wrap_pyfunction!(spark_write_commit, m)?)?;
    m.add_function(wrap_pyfunction!(spark_write_abort, m)?)?;
    m.add_function(wrap_pyfunction!(spark_write_sweep, m)?)?;
    Ok(())
}
