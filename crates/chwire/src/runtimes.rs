//! Tokio runtimes for bindings whose callers wait from threads of their own (Python, C through
//! ADBC): [`Pinned`] gives a client its place on one of them.
//!
//! There is one single-threaded runtime per core (2 to 8), each driven by a thread of its own
//! for the rest of the process, and each client keeps to the one serving the fewest clients
//! when it asked: its connection, its queries and the blocks they decode stay on one thread.
//! A multi-threaded runtime moved a query's task between its workers, so the blocks came from
//! (and were given back to) every worker's glibc arena, each of which kept a block or two of
//! freed memory: W1 through Python's `query_arrow_stream` peaked 2 MiB higher that way
//! (docs/BENCHMARKS.md). Two clients still decode in parallel. Callers wait for a task with
//! `Handle::block_on` on its join handle, which relies on the runtime's own thread driving its
//! IO and timers; the runtimes never stop, so a result that outlives its client still has a
//! runtime to end on.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use tokio::runtime::Handle;

/// The runtimes, each with the number of clients it serves.
fn runtimes() -> &'static [(Handle, AtomicUsize)] {
    static RUNTIMES: OnceLock<Vec<(Handle, AtomicUsize)>> = OnceLock::new();
    RUNTIMES.get_or_init(|| {
        let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).clamp(2, 8);
        (0..n).map(|i| (start(i), AtomicUsize::new(0))).collect()
    })
}

/// A client's place on one of the runtimes (dropping it frees the place).
#[derive(Debug)]
pub struct Pinned(usize);

impl Pinned {
    /// The runtime serving the fewest clients (the first of them on a tie).
    pub fn new() -> Pinned {
        let all = runtimes();
        let i = (0..all.len()).min_by_key(|&i| all[i].1.load(Ordering::Relaxed)).unwrap_or(0);
        all[i].1.fetch_add(1, Ordering::Relaxed);
        Pinned(i)
    }

    /// The runtime's handle.
    pub fn handle(&self) -> &'static Handle {
        &runtimes()[self.0].0
    }
}

impl Default for Pinned {
    fn default() -> Pinned {
        Pinned::new()
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        runtimes()[self.0].1.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Start runtime `i` on a thread of its own, which drives its IO and timers for the rest of
/// the process. A runtime that cannot start (no threads, no epoll) leaves nothing to run a
/// client on: it panics, which the bindings catch at their boundary (Python: a RuntimeError;
/// ADBC: ADBC_STATUS_INTERNAL).
#[allow(clippy::expect_used)]
fn start(i: usize) -> Handle {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name(format!("chwire-io-{i}"))
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("cannot start a tokio runtime");
            let _ = tx.send(rt.handle().clone());
            rt.block_on(std::future::pending::<()>());
        })
        .expect("cannot start a chwire runtime thread");
    rx.recv().expect("a chwire runtime thread died while starting")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_spread_over_the_runtimes_and_free_their_places() {
        let n = runtimes().len();
        let pinned: Vec<Pinned> = (0..2 * n).map(|_| Pinned::new()).collect();
        for i in 0..n {
            assert!(pinned.iter().filter(|p| p.0 == i).count() >= 1, "runtime {i} serves no client");
        }
        assert_eq!(pinned[0].handle().block_on(async { 7 }), 7, "the runtime's thread drives its tasks");
        let before: usize = runtimes().iter().map(|(_, c)| c.load(Ordering::Relaxed)).sum();
        drop(pinned);
        let after: usize = runtimes().iter().map(|(_, c)| c.load(Ordering::Relaxed)).sum();
        assert_eq!(before - after, 2 * n);
    }
}
