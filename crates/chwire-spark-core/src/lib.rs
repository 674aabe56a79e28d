//! The Spark rules of chwire, in one place for both of its Spark front ends: the PySpark data
//! source (python/chwire/spark, through the Python extension) and the JVM connector (spark/,
//! through crates/chwire-spark-jni).
//!
//! * [`options`]: Spark's options (case-insensitive keys) parsed once;
//! * [`types`]: ClickHouse column types → Spark types (as Spark's JSON type format, which
//!   PySpark's `StructField.fromJson` and the JVM's `DataType.fromJson` both read) and the
//!   SELECT expression reading each column as Spark can hold it;
//! * [`plan`]: the columns and one (URL, FROM, WHERE) per Spark partition;
//! * [`read`]: one partition read into Spark's Arrow batches;
//! * [`filters`]: Spark filters (as JSON, built by each front end from its own filter
//!   objects) → ClickHouse conditions that mean exactly what Spark means;
//! * [`write`](mod@write): the staged, exactly-once write protocol's statements (append and
//!   overwrite);
//! * [`catalog`]: the JVM catalog's operations and `CREATE TABLE` from a Spark schema.
//!
//! Everything a front end gets from here is plain data (serde, JSON across the bindings), so
//! the two front ends cannot diverge on a rule: they only carry its results.

#![warn(missing_docs)]

pub mod aggregate;
pub mod arrow;
pub mod catalog;
pub mod filters;
pub mod options;
pub mod plan;
pub mod read;
pub mod sql;
pub mod types;
pub mod write;

pub use filters::{filter_sql, Filter, Lit};
pub use options::SparkOptions;
pub use plan::{Part, Plan};
pub use types::{spark_column, SparkColumn, UnsupportedType};
pub use write::WriteJob;

/// An error of the Spark rules: a bad option, a missing table, a type without a mapping, or
/// the server's own error (its code and text kept).
#[derive(Debug)]
pub enum Error {
    /// A user's option or value that cannot be used (message names it).
    Invalid(String),
    /// A column type Spark has no type for.
    Unsupported(String),
    /// chwire's error (connection, server exception with its code).
    Client(chwire::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Invalid(m) | Error::Unsupported(m) => f.write_str(m),
            Error::Client(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<chwire::Error> for Error {
    fn from(e: chwire::Error) -> Self {
        Error::Client(e)
    }
}

/// The result of the Spark rules.
pub type Result<T> = std::result::Result<T, Error>;

pub(crate) fn invalid<T>(m: impl Into<String>) -> Result<T> {
    Err(Error::Invalid(m.into()))
}
