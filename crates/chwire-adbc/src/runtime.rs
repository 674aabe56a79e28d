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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use tokio::runtime::Handle;

fn runtimes() -> &'static [(Handle, AtomicUsize)] {
    static RUNTIMES: OnceLock<Vec<(Handle, AtomicUsize)>> = OnceLock::new();
    RUNTIMES.get_or_init(|| {
        let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).clamp(2, 8);
        (0..n).map(|i| (start(i), AtomicUsize::new(0))).collect()
    })
}

/// A connection's place on one of the runtimes (dropping it frees the place).
#[derive(Debug)]
pub struct Pinned(usize);

impl Pinned {
    pub fn new() -> Pinned {
        let all = runtimes();
        let i = (0..all.len()).min_by_key(|&i| all[i].1.load(Ordering::Relaxed)).unwrap_or(0);
        all[i].1.fetch_add(1, Ordering::Relaxed);
        Pinned(i)
    }

    pub fn handle(&self) -> &'static Handle {
        &runtimes()[self.0].0
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        runtimes()[self.0].1.fetch_sub(1, Ordering::Relaxed);
    }
}

// A runtime that cannot start is the end of the driver: the panic is caught at the C
// boundary by adbc_ffi (the call returns ADBC_STATUS_INTERNAL).
#[allow(clippy::expect_used)]
fn start(i: usize) -> Handle {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name(format!("chwire-adbc-{i}"))
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("cannot start a tokio runtime");
            let _ = tx.send(rt.handle().clone());
            rt.block_on(std::future::pending::<()>());
        })
        .expect("cannot start a chwire runtime thread");
    rx.recv().expect("a chwire runtime thread died while starting")
}

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
