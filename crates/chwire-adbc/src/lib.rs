//! chwire's ADBC driver: the ADBC 1.1.0 C API (`adbc_ffi`'s exporter over the `adbc_core`
//! traits) on chwire's native-protocol client. Data crosses as Arrow: result blocks become
//! record batches through `chwire_arrow` (buffers moved, not copied) and leave through the
//! Arrow C stream interface; bulk ingest converts batches to blocks with the same crate.
//!
//! The shared library is `libadbc_driver_chwire.so`; its entrypoint is `AdbcDriverChwireInit`
//! (and `AdbcDriverInit`). docs/ADBC.md describes options, types and behaviour.

mod connection;
mod database;
mod error;
mod info;
mod ingest;
mod objects;
mod options;
mod params;
mod reader;
mod runtime;
mod session;
mod statement;

pub use connection::ChwireConnection;
pub use database::{ChwireDatabase, ChwireDriver};
pub use statement::ChwireStatement;

/// The one catalog a ClickHouse server has (its databases are ADBC's db schemas).
pub const CATALOG: &str = "clickhouse";
/// Driver name reported by GetInfo.
pub const DRIVER_NAME: &str = "ADBC chwire driver (ClickHouse native protocol)";
/// arrow-rs version the driver builds batches with.
pub const ARROW_VERSION: &str = "59";

adbc_ffi::export_driver!(AdbcDriverChwireInit, ChwireDriver);
