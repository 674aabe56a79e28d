//! Writes: `chwire.spark.Native`'s write entry points over the shared staged write protocol
//! (chwire-spark-core's `WriteJob`, the PySpark source's too).
//!
//! A task's writer is a native task owning its connection, running the shared task-attempt
//! write (`WriteJob::write_stage`, the PySpark source's too): it creates the attempt's staging
//! table, starts one INSERT into it and sends each batch the JVM exported (imported here from
//! the C Data Interface, converted to the table's columns, lossless casts only) as a Native
//! block. Committing the task ends the INSERT and checks the job was not aborted; aborting it
//! (or any failure) drops the staging table.

use arrow_array::{ffi::from_ffi, RecordBatch, StructArray};
use arrow_data::ffi::FFI_ArrowArray;
use arrow_schema::ffi::FFI_ArrowSchema;
use chwire_spark_core::WriteJob;
use jni::objects::{JClass, JString};
use jni::sys::{jboolean, jlong};
use jni::EnvUnowned;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::{jstring, runtime, string, Failure, Result, ThrowChwire};

fn job(env: &jni::Env<'_>, s: &JString<'_>) -> Result<WriteJob> {
    Ok(WriteJob::from_json(&string(env, s)?)?)
}

/// The shared task-attempt write (`WriteJob::write_stage`) as the writer's native task.
async fn write_stage(job: WriteJob, stage: String, rx: mpsc::Receiver<std::result::Result<RecordBatch, String>>) -> Result<u64> {
    Ok(job.write_stage(&stage, rx).await?)
}

/// Prepare a write job (driver): parsed options and the DataFrame's schema (Spark's JSON) → the
/// job; `overwrite` replaces the target's rows at the commit.
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_prepareWrite<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    options: JString<'a>,
    schema: JString<'a>,
    overwrite: jboolean,
) -> JString<'a> {
    env.with_env(|env| -> Result<JString<'a>> {
        let o = chwire_spark_core::SparkOptions::from_json(&string(env, &options)?)?;
        let fields = chwire_spark_core::arrow::spark_fields(&string(env, &schema)?)?;
        let j = runtime().block_on(WriteJob::prepare(&o, &fields, overwrite))?;
        jstring(env, &j.to_json())
    })
    .resolve::<ThrowChwire>()
}

struct Writer {
    tx: Option<mpsc::Sender<std::result::Result<RecordBatch, String>>>,
    /// None once awaited (its result was taken).
    task: Option<JoinHandle<Result<u64>>>,
    job: WriteJob,
    stage: String,
}

/// Start a task attempt's writer: the job and the attempt's tag → a writer handle.
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_openWriter<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    job_json: JString<'a>,
    tag: JString<'a>,
) -> jlong {
    env.with_env(|env| -> Result<jlong> {
        let j = job(env, &job_json)?;
        let stage = j.stage_table(&string(env, &tag)?);
        let (tx, rx) = mpsc::channel(1);
        let task = runtime().spawn(write_stage(j.clone(), stage.clone(), rx));
        Ok(Box::into_raw(Box::new(Writer { tx: Some(tx), task: Some(task), job: j, stage })) as jlong)
    })
    .resolve::<ThrowChwire>()
}

/// The result of a writer's task, once (its batches' channel closed first).
fn finish(w: &mut Writer) -> Result<u64> {
    w.tx = None;
    let Some(task) = w.task.take() else { return Err(Failure("the writer has ended".into())) };
    match runtime().block_on(task) {
        Ok(r) => r,
        Err(e) => Err(Failure(format!("the writer's task failed: {e}"))),
    }
}

/// Send one batch the JVM exported (a struct array of the columns) to the writer.
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_writeBatch<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    handle: jlong,
    array: jlong,
    schema: jlong,
) {
    env.with_env(|_env| -> Result<()> {
        if handle == 0 || array == 0 || schema == 0 {
            return Err(Failure("writeBatch() of a closed writer".into()));
        }
        // SAFETY: the JVM exported a batch into both structs (Data.exportVectorSchemaRoot) and
        // hands them over: taking them leaves released (empty) structs behind, and dropping
        // what was taken calls the JVM's release.
        let (ffi_array, ffi_schema) = unsafe {
            (
                std::ptr::replace(array as *mut FFI_ArrowArray, FFI_ArrowArray::empty()),
                std::ptr::replace(schema as *mut FFI_ArrowSchema, FFI_ArrowSchema::empty()),
            )
        };
        // SAFETY: a struct array the JVM exported with its schema.
        let data = unsafe { from_ffi(ffi_array, &ffi_schema) }.map_err(|e| Failure(format!("importing a batch: {e}")))?;
        let batch = RecordBatch::from(StructArray::from(data));
        // SAFETY: `handle` came from openWriter; the JVM's writer uses it from one thread.
        let w = unsafe { &mut *(handle as *mut Writer) };
        let Some(tx) = w.tx.as_ref() else { return Err(Failure("the writer was committed".into())) };
        if tx.blocking_send(Ok(batch)).is_err() {
            // The task stopped taking batches: its error.
            return Err(finish(w).err().unwrap_or_else(|| Failure("the writer ended early".into())));
        }
        Ok(())
    })
    .resolve::<ThrowChwire>()
}

/// Commit a task attempt: the INSERT ends; its message (JSON: staging table and rows).
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_commitWriter<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    handle: jlong,
) -> JString<'a> {
    env.with_env(|env| -> Result<JString<'a>> {
        // SAFETY: see writeBatch; the JVM commits or aborts a handle once, then closes it.
        let w = unsafe { &mut *(handle as *mut Writer) };
        let rows = finish(w)?;
        jstring(env, &serde_json::json!({"stage": w.stage, "rows": rows}).to_string())
    })
    .resolve::<ThrowChwire>()
}

/// Abort and free a writer (its staging table dropped); also frees a committed one.
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_closeWriter<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    handle: jlong,
    abort: jni::sys::jboolean,
) {
    env.with_env(|_env| -> Result<()> {
        if handle == 0 {
            return Ok(());
        }
        // SAFETY: see commitWriter; called once per handle.
        let w = unsafe { Box::from_raw(handle as *mut Writer) };
        let Writer { tx, task, job, stage } = *w;
        drop(tx);
        if abort {
            runtime().block_on(async {
                if let Some(task) = task {
                    task.abort();
                    let _ = task.await;
                }
                let mut c = job.connect().await?;
                c.execute(WriteJob::drop_sql(&stage)).await?;
                Ok::<(), Failure>(())
            })?;
        }
        Ok(())
    })
    .resolve::<ThrowChwire>()
}

/// Commit a job (driver): the tasks' staging tables (JSON list) moved into the target.
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_commitJob<'a>(
    mut env: EnvUnowned<'a>,
    _class: JClass<'a>,
    job_json: JString<'a>,
    stages: JString<'a>,
) {
    env.with_env(|env| -> Result<()> {
        let j = job(env, &job_json)?;
        let stages: Vec<String> = serde_json::from_str(&string(env, &stages)?).map_err(|e| Failure(format!("bad stages JSON: {e}")))?;
        runtime().block_on(async {
            let mut c = j.connect().await?;
            j.commit(&mut c, &stages).await
        })?;
        Ok(())
    })
    .resolve::<ThrowChwire>()
}

/// Abort a job (driver): the marker, then every staging table of the job dropped.
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_abortJob<'a>(mut env: EnvUnowned<'a>, _class: JClass<'a>, job_json: JString<'a>) {
    env.with_env(|env| -> Result<()> {
        let j = job(env, &job_json)?;
        runtime().block_on(async {
            let mut c = j.connect().await?;
            j.abort(&mut c).await
        })?;
        Ok(())
    })
    .resolve::<ThrowChwire>()
}
