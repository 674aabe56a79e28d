//! The native side of chwire's JVM Spark connector (`chwire.spark.Native` in spark/).
//!
//! Every rule (options, planning, filters, type mapping, the write protocol) is
//! `chwire-spark-core`'s, the same code the PySpark source calls; this crate only runs it
//! behind JNI. Plans, partitions, filters and write jobs cross as JSON text; data crosses as
//! Arrow through the C Data Interface: a reader exports each batch, already in the Arrow
//! types Spark's `ArrowColumnVector` reads, into `ArrowArray`/`ArrowSchema` structs the JVM
//! allocated and imports (no copy of the buffers; the JVM's import calls their `release`, which
//! frees them here).
//!
//! Errors: every entry point runs inside `EnvUnowned::with_env` (which catches a panic) and
//! resolves with `ThrowChwire`: an error or a panic becomes a `chwire.spark.ChwireException`
//! whose message starts with the ClickHouse error code when the server sent one.

#![warn(missing_docs)]

mod read;
mod write;

use chwire::ErrorKind;
use jni::errors::ErrorPolicy;
use jni::objects::JString;
use jni::Env;
use std::sync::OnceLock;
use tokio::runtime::Runtime;

/// The runtime every connection of the process runs on.
pub(crate) fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).clamp(2, 8);
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(n)
            .thread_name("chwire-spark")
            .enable_all()
            .build()
            .expect("cannot start chwire's runtime")
    })
}

/// An error for the JVM: its message (with the server's code first when there is one).
#[derive(Debug)]
pub(crate) struct Failure(pub String);

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

impl From<jni::errors::Error> for Failure {
    fn from(e: jni::errors::Error) -> Self {
        Failure(format!("JNI: {e}"))
    }
}

impl From<chwire::Error> for Failure {
    fn from(e: chwire::Error) -> Self {
        match e.kind() {
            ErrorKind::Server(s) => {
                let name = s.name().to_owned();
                Failure(format!("ClickHouse error {} ({name}): {}", s.code, s.text()))
            }
            _ => Failure(e.to_string()),
        }
    }
}

impl From<chwire_spark_core::Error> for Failure {
    fn from(e: chwire_spark_core::Error) -> Self {
        match e {
            chwire_spark_core::Error::Client(c) => c.into(),
            other => Failure(other.to_string()),
        }
    }
}

impl From<chwire_arrow::Error> for Failure {
    fn from(e: chwire_arrow::Error) -> Self {
        Failure(format!("Arrow conversion: {e}"))
    }
}

pub(crate) type Result<T> = std::result::Result<T, Failure>;

/// Errors and panics become a `chwire.spark.ChwireException` (a panic never unwinds into the
/// JVM: `with_env` caught it).
#[derive(Debug, Default)]
pub(crate) struct ThrowChwire;

impl<T: Default> ErrorPolicy<T, Failure> for ThrowChwire {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'a: 'b, 'b>(env: &mut Env<'a>, _cap: &mut (), err: Failure) -> jni::errors::Result<T> {
        if !env.exception_check() {
            let _ = env.throw_new(jni::jni_str!("chwire/spark/ChwireException"), jni::strings::JNIString::from(err.0));
        }
        Ok(T::default())
    }

    fn on_panic<'a: 'b, 'b>(env: &mut Env<'a>, _cap: &mut (), payload: Box<dyn std::any::Any + Send + 'static>) -> jni::errors::Result<T> {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        if !env.exception_check() {
            let msg = format!("chwire internal error (a panic in its native code, caught): {what}");
            let _ = env.throw_new(jni::jni_str!("chwire/spark/ChwireException"), jni::strings::JNIString::from(msg));
        }
        Ok(T::default())
    }
}

/// A catalog operation (`chwire.spark.ChwireCatalog`): parsed options and the request (JSON,
/// chwire-spark-core's `catalog::Request`) → its outcome (JSON).
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_catalog<'a>(
    mut env: jni::EnvUnowned<'a>,
    _class: jni::objects::JClass<'a>,
    options: JString<'a>,
    request: JString<'a>,
) -> JString<'a> {
    env.with_env(|env| -> Result<JString<'a>> {
        let o = chwire_spark_core::SparkOptions::from_json(&string(env, &options)?)?;
        let out = runtime().block_on(chwire_spark_core::catalog::run_json(&o, &string(env, &request)?))?;
        jstring(env, &out)
    })
    .resolve::<ThrowChwire>()
}

/// A table of the catalog as the option `table` names it: `` `db`.`t` ``, quoted by the core's
/// SQL rules (`chwire::sql::TableRef`), which the option is read back by.
#[unsafe(no_mangle)]
pub extern "system" fn Java_chwire_spark_Native_quoteTable<'a>(
    mut env: jni::EnvUnowned<'a>,
    _class: jni::objects::JClass<'a>,
    database: JString<'a>,
    table: JString<'a>,
) -> JString<'a> {
    env.with_env(|env| -> Result<JString<'a>> {
        let t = chwire::sql::TableRef::qualified(string(env, &database)?, string(env, &table)?);
        jstring(env, &t.to_string())
    })
    .resolve::<ThrowChwire>()
}

/// A Java string argument as Rust's.
pub(crate) fn string(env: &Env<'_>, s: &JString<'_>) -> Result<String> {
    Ok(s.try_to_string(env)?)
}

/// A Rust string as a Java one.
pub(crate) fn jstring<'a>(env: &mut Env<'a>, s: &str) -> Result<JString<'a>> {
    Ok(env.new_string(s)?)
}
