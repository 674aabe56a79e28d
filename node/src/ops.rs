//! What every operation shares: the connection or pool it runs on (the core's
//! `chwire::Shared`, as in Python, ADBC and Elixir), a lease of one connection, close, and the
//! options by the core's table.
//!
//! Operations run as tasks on the addon's tokio runtime (two IO threads named `chwire-io`, set
//! up in `lib.rs`); the JS thread only starts them and takes their finished results.

use crate::error::{Error, Result};
use chwire::{Options, PoolOptions, Shared};

/// `fut`, unless the client is closed first (then `Closed`; `fut` is dropped, which stops its
/// query on the server and gives its connection back): the core's `Shared::unless_closed`.
pub async fn unless_closed<T>(target: &Shared, fut: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    match target.unless_closed(async { Ok(fut.await) }).await {
        Ok(r) => r,
        Err(_) => Err(Error::Closed),
    }
}

/// One connection for one operation (a single client's in turn, a pool's own).
pub async fn lease(target: &Shared) -> Result<chwire::Lease> {
    target.lease().await.map_err(closed_or)
}

/// The client of `lease`.
pub fn client(lease: &mut chwire::Lease) -> Result<&mut chwire::Client> {
    lease.client().map_err(closed_or)
}

/// The core's `Closed` as this addon's `closed` error (kind `closed`, not `connection`).
fn closed_or(e: chwire::Error) -> Error {
    match e.kind() {
        chwire::ErrorKind::Closed => Error::Closed,
        _ => Error::from(e),
    }
}

/// Connection options: a URL and/or `{key: value}` by the core's one table of option names
/// (`Options::from_url_and`); what it refuses is a `ChwireError` of kind `config`, as a bad URL.
pub fn options(url: Option<&str>, extra: &[(String, String)]) -> Result<Options> {
    Ok(Options::from_url_and(url, extra.iter().map(|(k, v)| (k, v)))?)
}

/// The pool's options by the core's names (`PoolOptions::set`); one it refuses is a `TypeError`.
pub fn pool_options(pairs: &[(String, String)]) -> Result<PoolOptions> {
    PoolOptions::from_pairs(pairs.iter().map(|(k, v)| (k, v))).map_err(argument)
}

/// A pool option the core refuses, as a `TypeError`.
fn argument(e: chwire::Error) -> Error {
    match e.kind() {
        chwire::ErrorKind::Config(_) => Error::Type(e.to_string()),
        _ => Error::Client(e),
    }
}

/// A query task's drain after it was stopped early (`Shared::settle_in_background`): over the
/// native protocol the core writes a Cancel when the stream is dropped, which a server blocked
/// on a full socket does not read until the connection is used again; the settle drains it now.
/// Over HTTP it kills the query by its id. (Called from the JS thread: the runtime's context is
/// entered for it.)
pub fn drain_later(target: &Shared) {
    napi::bindgen_prelude::within_runtime_if_available(|| target.settle_in_background());
}
