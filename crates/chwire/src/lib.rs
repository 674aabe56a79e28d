//! # chwire
//!
//! An async ClickHouse client on tokio, over the native TCP protocol (plain or TLS, `secure=1`)
//! or HTTP(S), chosen by the URL's scheme (`tcp://`, `http://`, `https://`), with one API.
//!
//! ```no_run
//! # async fn demo() -> chwire::Result<()> {
//! let mut client = chwire::Client::connect_url("tcp://default@127.0.0.1:9000/default").await?;
//! let mut rows = client.query("SELECT number FROM system.numbers LIMIT 10").stream().await?;
//! let mut sum = 0u64;
//! while let Some(block) = rows.next_block().await? {
//!     sum += block.column_at(0).and_then(|c| c.as_u64()).unwrap().iter().sum::<u64>();
//! }
//! assert_eq!(sum, 45);
//! # Ok(()) }
//! ```
//!
//! The wire format lives in [`chwire_proto`] (re-exported as [`proto`]); this crate adds
//! the transports, the conversation state machine, the pool and failover, and the API.

#![warn(missing_docs)]

// `#[derive(Row)]` names `::chwire`; this lets the crate's own tests use it.
extern crate self as chwire;

#[cfg(feature = "arrow")]
pub mod arrow;
mod client;
mod conn;
mod error;
mod feed;
mod hosts;
mod http;
mod link;
pub mod options;
mod params;
mod pool;
pub mod row;
mod runtimes;
mod shared;
mod tls;

#[cfg(feature = "arrow")]
pub use arrow::ArrowStream;
pub use chwire_proto as proto;
pub use chwire_proto::sql;
pub use chwire_proto::types::ServerTypes;
pub use chwire_proto::{
    Block, Column, ColumnData, Compression, DataType, Limits, ProfileInfo, Progress, ServerException, StringColumn, Value,
};
pub use client::{
    Client, Event, Insert, InsertOptions, Query, QuerySpec, QueryStream, QuerySummary, ResultLimit, ResultLimits, ServerInfo,
    INSERT_BLOCK_ROWS,
};
pub use error::{Error, ErrorKind, Result, Timeout};
pub use hosts::{Endpoint, LoadBalancing, FAILOVER_CODES};
pub use options::{Options, Transport};
pub use params::{BoundValue, ParamError, ParamValue, QueryParam};
pub use pool::{Pool, PoolOptions, PoolStatus, Pooled};
pub use row::{FromColumn, Row, RowOwned, ToColumn};
pub use shared::{Lease, Shared};
pub use tls::TlsOptions;

/// What the language bindings (Python, ADBC, Elixir, Node, Spark) build on besides
/// [`Shared`] and [`Lease`]: nothing here is needed by a Rust program.
pub mod bindings {
    pub use crate::feed::Feed;
    pub use crate::runtimes::Pinned;
}

pub(crate) const VERSION_MAJOR: u64 = 0;
pub(crate) const VERSION_MINOR: u64 = 1;
pub(crate) const VERSION_PATCH: u64 = 0;
/// What chwire tells the server it is (ClientInfo's `client_agent`, revision >= 54485).
pub(crate) const CLIENT_AGENT: &str = concat!("chwire/", env!("CARGO_PKG_VERSION"));

/// The README's Rust examples, compiled as doc tests so they cannot rot.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
