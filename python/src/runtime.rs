//! One tokio runtime for the process, and waiting on it from Python threads.
//!
//! Every network operation runs as a task on this runtime. The Python thread that asked for
//! it waits with the GIL released (other Python threads run meanwhile, and two clients work
//! in parallel) and wakes every [`SIGNAL_CHECK`] to run Python's signal handlers: a Ctrl-C
//! (KeyboardInterrupt) aborts the task, which drops the running query — chwire then cancels
//! it on the server and the client's next query starts on a clean connection.

use crate::errors::Error;
use pyo3::prelude::*;
use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

/// How often a waiting thread looks at Python's signals.
pub const SIGNAL_CHECK: Duration = Duration::from_millis(50);

pub fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).clamp(2, 8);
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .thread_name("chwire-io")
            .enable_all()
            .build()
            .expect("cannot start the tokio runtime")
    })
}

/// Wait for a task with the GIL released, checking signals; a signal aborts the task and
/// is raised. A task aborted by `Client.cancel()` ends in [`Error::Cancelled`].
pub fn wait<T: Send + 'static>(py: Python<'_>, mut handle: JoinHandle<Result<T, Error>>) -> PyResult<T> {
    loop {
        let r = py.detach(|| runtime().block_on(async { tokio::time::timeout(SIGNAL_CHECK, &mut handle).await }));
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

/// Run `fut` on the runtime and wait for its result (see [`wait`]).
pub fn run<T, F>(py: Python<'_>, fut: F) -> PyResult<T>
where
    T: Send + 'static,
    F: Future<Output = Result<T, Error>> + Send + 'static,
{
    wait(py, runtime().spawn(fut))
}
