//! chwire for Node.js: the addon under the `chwire` npm package (node/lib is its TypeScript
//! layer; docs/NODE.md the API and the type mapping).
//!
//! | module | role |
//! |---|---|
//! | `client` | `NativeClient` (a connection or the core's pool), `connect`, `createPool`, starting queries and inserts |
//! | `ops` | the connection an operation leases, statements, connection and pool options (the core's names) |
//! | `stream` | `NativeStream`: a query task feeding a bounded channel; `next()`, `cancel()` |
//! | `out` | result columns prepared on the IO threads as buffers JS takes without copying (typed arrays, text + offsets) |
//! | `arrow_out` | Arrow record batches handed over as their own buffers (apache-arrow `makeData` over them in `lib/arrow.ts`) |
//! | `values` | single values of the types without a buffer form (Variant, Dynamic, JSON, …) as JS values |
//! | `insert` | `NativeInsert`: an INSERT fed block by block (JS data or Arrow IPC) |
//! | `input` | packed JS columns → blocks of the table's types (TypeError/RangeError naming column and row) |
//! | `dates` | dates, date-times and times from JS text and `Date`s (jiff: calendar, ISO 8601, zones) |
//! | `json`, `wide` | JSON text of JS values; 256-bit integers and Decimal256 from bigints and text |
//! | `params` | `{name:Type}` parameters and settings from JS values |
//! | `error` | errors as tagged JSON the TS layer turns into `ClickHouseError`, `TypeError`, `RangeError`, … |
//! | `js` | checked Node-API helpers |
//!
//! Every network operation runs on one tokio runtime of two IO threads (`chwire-io`); the JS
//! thread starts operations and receives finished buffers. Panics are caught (napi's async
//! tasks, `catch_unwind` on the synchronous entry points, `error::guarded` inside them) and
//! arrive as errors.

#![deny(clippy::all)]
// Under cfg(test) (clippy --all-targets) napi-derive registers nothing, so the exported
// functions look unused.
#![cfg_attr(test, allow(dead_code))]

mod arrow_out;
mod client;
mod dates;
mod error;
mod input;
mod insert;
mod js;
mod json;
mod ops;
mod out;
mod params;
mod stream;
mod values;
mod wide;

use napi::bindgen_prelude::JsValue;
use napi_derive::napi;

#[napi_derive::module_init]
fn init() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("chwire-io")
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("cannot start chwire's tokio runtime: {e}"));
    napi::bindgen_prelude::create_custom_tokio_runtime(rt);
}

/// Hand the addon the TS layer's classes it makes values of (`PreciseDate`).
#[napi(catch_unwind)]
pub fn register_classes(env: napi::Env, precise_date: napi::bindgen_prelude::Unknown) -> napi::Result<()> {
    js::register_precise_date(env.raw(), precise_date.raw()).map_err(|e| napi::Error::from(error::Error::from(e)))
}

/// Whether `key` (any spelling of a name or alias of the core's option table) takes a
/// duration: the TS layer writes a number given for one as milliseconds, as JavaScript's
/// timeouts are.
#[napi]
pub fn duration_key(key: String) -> bool {
    chwire::options::keys::takes_duration(&key)
}

/// Whether `key` (any spelling of a name or alias of the core's option table) is one of
/// chwire's options whose value is not a flag: the TS layer gives a boolean for one as
/// `true`/`false` text, which the core refuses for a number (`max_collected_rows: true` read
/// as 1), where a flag or a ClickHouse setting takes `1`/`0`.
#[napi]
pub fn non_flag_key(key: String) -> bool {
    chwire::options::keys::lookup(&key).is_some_and(|k| k.kind != chwire::options::keys::Kind::Flag)
}

/// The addon's version (the crate's).
#[napi]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
