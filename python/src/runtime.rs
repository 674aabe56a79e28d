//! The tokio runtimes of the process, and waiting on them from Python threads.
//!
//! Every network operation runs as a task on a runtime. The Python thread that asked for
//! it waits with the GIL released (other Python threads run meanwhile, and two clients work
//! in parallel) and wakes every [`SIGNAL_CHECK`] to run Python's signal handlers: a Ctrl-C
//! (KeyboardInterrupt) aborts the task, which drops the running query — chwire then cancels
//! it on the server and the client's next query starts on a clean connection.
//!
//! There is one single-threaded runtime per core (at least two), each on its own thread, and
//! each client keeps to the one it was given (the one serving the fewest clients): its
//! connection, its queries and the blocks they decode stay on one thread. A multi-threaded
//! runtime moved a query's task between its workers, so the blocks came from (and were given
//! back to) every worker's glibc arena, each of which kept a block or two of freed memory: W1
//! through `query_arrow_stream` peaked 2 MiB higher that way (docs/BENCHMARKS.md). Two clients
//! still decode in parallel.

use crate::errors::Error;
use pyo3::prelude::*;
use std::future::Future;
use std::time::Duration;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// How often a waiting thread looks at Python's signals.
pub const SIGNAL_CHECK: Duration = Duration::from_millis(50);

pub use chwire::bindings::Pinned;

/// Wait for a task with the GIL released, checking signals; a signal aborts the task and
/// is raised. A task aborted by `Client.cancel()` ends in [`Error::Cancelled`].
pub fn wait<T: Send + 'static>(py: Python<'_>, rt: &Handle, mut handle: JoinHandle<Result<T, Error>>) -> PyResult<T> {
    loop {
        let r = py.detach(|| rt.block_on(async { tokio::time::timeout(SIGNAL_CHECK, &mut handle).await }));
        match r {
            Ok(Ok(v)) => return v.map_err(|e| e.into_py(py)),
            Ok(Err(join)) => return Err(join_error(py, join)),
            Err(_elapsed) => {
                if let Err(e) = py.check_signals() {
                    handle.abort();
                    return Err(e);
                }
            }
        }
    }
}

/// A task that did not return: cancelled, or (a bug) panicked.
pub fn join_error(py: Python<'_>, join: tokio::task::JoinError) -> PyErr {
    if join.is_cancelled() {
        Error::Cancelled.into_py(py)
    } else {
        pyo3::exceptions::PyRuntimeError::new_err(format!("chwire task failed: {join}"))
    }
}

/// Run `fut` on runtime `rt` and wait for its result (see [`wait`]).
pub fn run<T, F>(py: Python<'_>, rt: &Handle, fut: F) -> PyResult<T>
where
    T: Send + 'static,
    F: Future<Output = Result<T, Error>> + Send + 'static,
{
    wait(py, rt, rt.spawn(fut))
}
