//! Planning and reading: `chwire.spark.Native`'s read entry points.

use arrow_array::{Array, RecordBatch, StructArray};
use arrow_data::ffi::FFI_ArrowArray;
use arrow_schema::ffi::FFI_ArrowSchema;
use chwire_spark_core::{filters, read, Part, Plan, SparkOptions};
use jni::objects::{JClass, JString};
use jni::sys::{jint, jlong};
use jni::EnvUnowned;
use std::collections::BTreeMap;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::{jstring, runtime, string, Failure, Result, ThrowChwire};

fn json<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Failure(format!("bad {what} JSON: {e}")))
}

/// Spark's options (a JSON object of strings) → the parsed options (JSON).
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_options<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    options: JString<'a>,
) -> JString<'a> {
    env.with_env(|env| -> Result<JString<'a>> {
        let map: BTreeMap<String, String> = json("options", &string(env, &options)?)?;
        let o = SparkOptions::parse(map)?;
        jstring(env, &o.to_json())
    })
    .resolve::<ThrowChwire>()
}

/// Plan a read: options (parsed, JSON) and the wanted columns (a JSON list, or null) → plan.
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_plan<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    options: JString<'a>,
    wanted: JString<'a>,
) -> JString<'a> {
    env.with_env(|env| -> Result<JString<'a>> {
        let o = SparkOptions::from_json(&string(env, &options)?)?;
        let wanted: Option<Vec<String>> = if wanted.is_null() { None } else { Some(json("columns", &string(env, &wanted)?)?) };
        let plan = runtime().block_on(async {
            let mut c = o.connect(None).await?;
            Plan::make(&mut c, &o, wanted.as_deref()).await
        })?;
        jstring(env, &plan.to_json())
    })
    .resolve::<ThrowChwire>()
}

/// The WHERE condition of a filter (JSON) over columns of the given ClickHouse types (a JSON
/// object), or null when Spark keeps the filter.
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_filterSql<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    filter: JString<'a>,
    types: JString<'a>,
) -> JString<'a> {
    env.with_env(|env| -> Result<JString<'a>> {
        let types: BTreeMap<String, String> = json("types", &string(env, &types)?)?;
        match filters::filter_sql_json(&string(env, &filter)?, &types) {
            Some(sql) => jstring(env, &sql),
            None => Ok(JString::default()),
        }
    })
    .resolve::<ThrowChwire>()
}

/// The SELECT of one partition: plan, partition, pushed conditions (JSON list), limit (< 0: none).
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_partitionSql<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    plan: JString<'a>,
    part: JString<'a>,
    wheres: JString<'a>,
    limit: jlong,
) -> JString<'a> {
    env.with_env(|env| -> Result<JString<'a>> {
        let (plan, part, wheres) = args(env, &plan, &part, &wheres)?;
        jstring(env, &plan.sql_limited(&part, &wheres, u64::try_from(limit).ok()))
    })
    .resolve::<ThrowChwire>()
}

fn args(env: &jni::Env<'_>, plan: &JString<'_>, part: &JString<'_>, wheres: &JString<'_>) -> Result<(Plan, Part, Vec<String>)> {
    let plan = Plan::from_json(&string(env, plan)?)?;
    let part: Part = json("partition", &string(env, part)?)?;
    let wheres: Vec<String> = json("conditions", &string(env, wheres)?)?;
    Ok((plan, part, wheres))
}

/// One partition's running query: a task on the runtime (the shared `read_partition`) owns the
/// connection and sends Spark's batches through a channel of one (memory bounded by a block or
/// two).
struct Reader {
    rx: mpsc::Receiver<chwire_spark_core::Result<RecordBatch>>,
    task: JoinHandle<()>,
}

/// Start reading a partition: plan, partition, pushed conditions, limit → a reader handle.
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_openReader<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    plan: JString<'a>,
    part: JString<'a>,
    wheres: JString<'a>,
    limit: jlong,
    read_schema: JString<'a>,
) -> jlong {
    env.with_env(|env| -> Result<jlong> {
        let (plan, part, wheres) = args(env, &plan, &part, &wheres)?;
        let sql = plan.sql_limited(&part, &wheres, u64::try_from(limit).ok());
        // Spark's read schema (JSON StructType), or the planned one.
        let spark = if read_schema.is_null() { None } else { Some(string(env, &read_schema)?) };
        let schema = read::read_schema(&plan, spark.as_deref())?;
        let (tx, rx) = mpsc::channel(1);
        let task = runtime().spawn(read::read_partition(plan, part, sql, None, schema, tx));
        Ok(Box::into_raw(Box::new(Reader { rx, task })) as jlong)
    })
    .resolve::<ThrowChwire>()
}

/// `next(handle, arrowArray, arrowSchema, waitMillis)`: 1 when a batch (a struct array of the
/// columns) was exported into the two C structs, 0 at the end, 2 when none came within
/// `waitMillis` (the JVM then looks whether its task was killed, and asks again).
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_next<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    handle: jlong,
    array: jlong,
    schema: jlong,
    wait_millis: jint,
) -> jint {
    env.with_env(|_env| -> Result<jint> {
        if handle == 0 || array == 0 || schema == 0 {
            return Err(Failure("next() of a closed reader".into()));
        }
        // SAFETY: `handle` came from openReader and is closed only by closeReader, which the
        // JVM side calls once, after its last next() (chwire.spark.ColumnarReader).
        let reader = unsafe { &mut *(handle as *mut Reader) };
        let wait = Duration::from_millis(wait_millis.max(1) as u64);
        let got = runtime().block_on(async { tokio::time::timeout(wait, reader.rx.recv()).await });
        let batch = match got {
            Err(_) => return Ok(2),
            Ok(None) => return Ok(0),
            Ok(Some(b)) => b?,
        };
        let data = if batch.num_columns() == 0 {
            StructArray::new_empty_fields(batch.num_rows(), None).into_data()
        } else {
            StructArray::from(batch).into_data()
        };
        let ffi_schema = FFI_ArrowSchema::try_from(data.data_type()).map_err(|e| Failure(format!("exporting the schema: {e}")))?;
        let ffi_array = FFI_ArrowArray::new(&data);
        // SAFETY: the JVM allocated both structs (ArrowArray/ArrowSchema.allocateNew) and
        // passes their addresses; they hold nothing to release yet. Ownership of the buffers
        // moves to the JVM, whose import calls `release`.
        unsafe {
            std::ptr::write(array as *mut FFI_ArrowArray, ffi_array);
            std::ptr::write(schema as *mut FFI_ArrowSchema, ffi_schema);
        }
        Ok(1)
    })
    .resolve::<ThrowChwire>()
}

/// Close a reader: its query is cancelled on the server and its connection closed (waited for,
/// up to a few seconds).
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_closeReader<'a>(mut env: EnvUnowned<'a>, _class: JClass<'a>, handle: jlong) {
    env.with_env(|_env| -> Result<()> {
        if handle == 0 {
            return Ok(());
        }
        // SAFETY: see next(); the JVM calls this once per handle.
        let reader = unsafe { Box::from_raw(handle as *mut Reader) };
        let Reader { rx, task } = *reader;
        drop(rx);
        let abort = task.abort_handle();
        let done = runtime().block_on(async { tokio::time::timeout(Duration::from_secs(5), task).await });
        if done.is_err() {
            abort.abort();
        }
        Ok(())
    })
    .resolve::<ThrowChwire>()
}

/// The plan of an aggregation pushed whole (JSON), or null when it stays with Spark: plan,
/// GROUP BY columns (JSON list), aggregates (JSON list of `aggregate::Agg`), the ClickHouse
/// types of the columns Spark sees as planned (JSON object).
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_aggregatePlan<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    plan: JString<'a>,
    groups: JString<'a>,
    aggs: JString<'a>,
    types: JString<'a>,
) -> JString<'a> {
    env.with_env(|env| -> Result<JString<'a>> {
        let plan = Plan::from_json(&string(env, &plan)?)?;
        let groups: Vec<String> = json("groups", &string(env, &groups)?)?;
        let aggs: Vec<chwire_spark_core::aggregate::Agg> = json("aggregates", &string(env, &aggs)?)?;
        let types: BTreeMap<String, String> = json("types", &string(env, &types)?)?;
        match chwire_spark_core::aggregate::aggregate_sql(&groups, &aggs, &plan.columns, &types, plan.caps()) {
            Some(pushed) => jstring(env, &plan.aggregated(&pushed).to_json()),
            None => Ok(JString::default()),
        }
    })
    .resolve::<ThrowChwire>()
}

/// The plan with the ORDER BY of a top-N (JSON), or null when Spark keeps the sort: plan, sort
/// keys (JSON list of `plan::SortKey`), the ClickHouse types of the columns Spark sees as
/// planned (JSON object).
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_topNPlan<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    plan: JString<'a>,
    keys: JString<'a>,
    types: JString<'a>,
) -> JString<'a> {
    env.with_env(|env| -> Result<JString<'a>> {
        let plan = Plan::from_json(&string(env, &plan)?)?;
        let keys: Vec<chwire_spark_core::plan::SortKey> = json("sort keys", &string(env, &keys)?)?;
        let types: BTreeMap<String, String> = json("types", &string(env, &types)?)?;
        match plan.with_order(&keys, &types) {
            Some(p) => jstring(env, &p.to_json()),
            None => Ok(JString::default()),
        }
    })
    .resolve::<ThrowChwire>()
}
