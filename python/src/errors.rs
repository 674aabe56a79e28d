//! Rust errors → the Python exceptions of `chwire._errors` (which are also the PEP 249 tree).

use chwire::ErrorKind;
use pyo3::prelude::*;

/// Everything that can fail below the Python surface.
#[derive(Debug)]
pub enum Error {
    Client(chwire::Error),
    Arrow(chwire_arrow::Error),
    /// A value or argument chwire cannot use (nothing was sent).
    Data(String),
    /// The Python client was closed.
    Closed,
    /// `Client.cancel()` (or a cancelled asyncio task) stopped the query.
    Cancelled,
    /// A read of a stream whose query was interrupted or failed before (the reason).
    Broken(&'static str),
}

impl From<chwire::Error> for Error {
    fn from(e: chwire::Error) -> Self {
        Error::Client(e)
    }
}

impl From<chwire_arrow::Error> for Error {
    fn from(e: chwire_arrow::Error) -> Self {
        Error::Arrow(e)
    }
}

impl From<chwire::proto::DecodeError> for Error {
    fn from(e: chwire::proto::DecodeError) -> Self {
        Error::Client(e.into())
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Client(e) => e.fmt(f),
            Error::Arrow(e) => write!(f, "Arrow conversion: {e}"),
            Error::Data(m) => f.write_str(m),
            Error::Closed => f.write_str("the client is closed"),
            Error::Cancelled => f.write_str("the query was cancelled"),
            Error::Broken(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for Error {}

/// Raise `chwire._errors.<class>(message)`.
fn raise(py: Python<'_>, class: &str, message: String) -> PyErr {
    let made = py.import("chwire._errors").and_then(|m| m.getattr(class)).and_then(|c| c.call1((message.clone(),))).map(PyErr::from_value);
    made.unwrap_or_else(|e| e)
}

impl Error {
    pub fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Error::Client(e) => client_error(py, e),
            Error::Arrow(e) => raise(py, "DataError", format!("Arrow conversion: {e}")),
            Error::Data(m) => raise(py, "DataError", m),
            Error::Closed => raise(py, "InterfaceError", "the client is closed".into()),
            Error::Cancelled => raise(py, "OperationalError", "the query was cancelled".into()),
            Error::Broken(why) => raise(py, "OperationalError", why.into()),
        }
    }
}

fn client_error(py: Python<'_>, e: chwire::Error) -> PyErr {
    let text = e.to_string();
    let class = match e.kind() {
        ErrorKind::Server(s) => {
            let name = s.name().to_owned();
            let args = (s.code, name, s.text().to_owned(), s.stack_trace.clone(), text);
            let made =
                py.import("chwire._errors").and_then(|m| m.getattr("_server_error")).and_then(|f| f.call1(args)).map(PyErr::from_value);
            return made.unwrap_or_else(|e| e);
        }
        ErrorKind::Timeout(_) => "TimeoutError",
        // A refused certificate, a failed handshake or unreadable TLS files: no (secure)
        // connection, as for other connection failures.
        ErrorKind::Io(_) | ErrorKind::Closed | ErrorKind::Tls(_) => "ConnectionError",
        ErrorKind::Decode(_) | ErrorKind::Protocol(_) => "ProtocolError",
        ErrorKind::Config(_) => "InterfaceError",
        ErrorKind::InvalidInput(_) | ErrorKind::Row(_) => "DataError",
        ErrorKind::NoRows | ErrorKind::Busy => "ProgrammingError",
        ErrorKind::ResultTooLarge(_) => "ResultTooLargeError",
        _ => "DatabaseError",
    };
    raise(py, class, text)
}

/// Map a Rust result into a Python one (needs the interpreter to build the exception).
pub trait IntoPyResult<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T, E: Into<Error>> IntoPyResult<T> for Result<T, E> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| e.into().into_py(py))
    }
}
