//! The tokio runtimes the driver's connections run on, and waiting on them from C threads.
//!
//! As in the Python package (python/src/runtime.rs): one single-threaded runtime per core
//! (2..=8), each driven by a thread of its own for the rest of the process, and each
//! connection keeps to the one serving the fewest connections, so its socket, its queries and
//! the blocks they decode stay on one thread. Callers (C, Go, Python threads) wait for a task
//! with `Handle::block_on` on its join handle; the runtimes never stop, so a result stream
//! that outlives its connection still has a runtime to end on.

use crate::error::invalid_state;
use adbc_core::error::Result;
use std::future::Future;
use tokio::runtime::Handle;

pub use chwire::bindings::Pinned;

/// Refuse to block inside a tokio runtime (tokio would panic): a Rust caller on an async
/// runtime must call the driver from `spawn_blocking`.
pub fn check_not_async() -> Result<()> {
    if Handle::try_current().is_ok() {
        return Err(invalid_state("the ADBC driver blocks: call it outside an async runtime (e.g. from spawn_blocking)"));
    }
    Ok(())
}

/// Run `fut` as a task on `rt` and wait for it.
pub fn run<T, F>(rt: &Handle, fut: F) -> Result<T>
where
    T: Send + 'static,
    F: Future<Output = Result<T>> + Send + 'static,
{
    check_not_async()?;
    let handle = rt.spawn(fut);
    match rt.block_on(handle) {
        Ok(r) => r,
        Err(j) if j.is_cancelled() => Err(crate::error::cancelled("the operation was cancelled")),
        Err(j) => Err(crate::error::internal(format!("chwire task failed: {j}"))),
    }
}
