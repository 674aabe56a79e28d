//! Rust errors → JavaScript errors.
//!
//! Every error crosses as a napi `Error` whose message is a tagged JSON object (`kind`, `message`,
//! and for server exceptions `code`, `name`, `stackTrace`); the TypeScript layer
//! (`lib/errors.ts`) turns it into a `ClickHouseError`, `TypeError`, `RangeError`, `AbortError` or
//! `ChwireError` with a `kind`. One place decides what an error is: here.

use chwire::ErrorKind;
use std::fmt;

/// The marker in front of the JSON of an error (the TS layer recognises it).
pub const TAG: &str = "\u{1}chwire:";

/// Everything that can fail below the JavaScript surface.
#[derive(Debug)]
pub enum Error {
    Client(chwire::Error),
    /// A JavaScript value of the wrong type for its place (a string into UInt8): a `TypeError`.
    Type(String),
    /// A value of the right kind out of its column's range (300 into UInt8): a `RangeError`.
    Range(String),
    /// Arrow data that does not convert.
    Arrow(String),
    /// An argument chwire cannot use (nothing was sent).
    Data(String),
    /// The client or pool was closed.
    Closed,
    /// The operation was aborted (its `AbortSignal`, or the stream was closed).
    Aborted,
    /// A Rust panic, caught.
    Panic(String),
}

impl From<chwire::Error> for Error {
    fn from(e: chwire::Error) -> Self {
        Error::Client(e)
    }
}

impl From<chwire_arrow::Error> for Error {
    fn from(e: chwire_arrow::Error) -> Self {
        Error::Arrow(e.to_string())
    }
}

impl From<arrow_schema::ArrowError> for Error {
    fn from(e: arrow_schema::ArrowError) -> Self {
        Error::Arrow(e.to_string())
    }
}

impl From<napi::Error> for Error {
    fn from(e: napi::Error) -> Self {
        match e.reason.strip_prefix(TAG) {
            // Already ours (a conversion inside a conversion).
            Some(_) => Error::Data(e.reason),
            None => Error::Type(e.reason),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Client(e) => e.fmt(f),
            Error::Type(m) | Error::Range(m) | Error::Data(m) => f.write_str(m),
            Error::Arrow(m) => write!(f, "Arrow conversion: {m}"),
            Error::Closed => f.write_str("the client is closed"),
            Error::Aborted => f.write_str("the operation was aborted"),
            Error::Panic(m) => write!(f, "chwire panicked (a bug; the process goes on): {m}"),
        }
    }
}

fn json_str(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

impl Error {
    /// The kind the TS layer picks its class by.
    fn kind(&self) -> &'static str {
        match self {
            Error::Client(e) => match e.kind() {
                ErrorKind::Server(_) => "server",
                ErrorKind::Timeout(_) => "timeout",
                ErrorKind::Io(_) | ErrorKind::Closed | ErrorKind::Tls(_) => "connection",
                ErrorKind::Decode(_) | ErrorKind::Protocol(_) => "protocol",
                ErrorKind::Config(_) => "config",
                ErrorKind::InvalidInput(_) | ErrorKind::Row(_) => "data",
                ErrorKind::ResultTooLarge(_) => "limit",
                _ => "client",
            },
            Error::Type(_) => "type",
            Error::Range(_) => "range",
            Error::Arrow(_) | Error::Data(_) => "data",
            Error::Closed => "closed",
            Error::Aborted => "aborted",
            Error::Panic(_) => "panic",
        }
    }

    /// The tagged JSON the TS layer reads.
    pub fn encode(&self) -> String {
        let mut out = format!("{TAG}{{\"kind\":\"{}\",\"message\":{}", self.kind(), json_str(&self.to_string()));
        if let Error::Client(e) = self {
            // Data an insert refused: the rows before it, committed (the core's rule).
            if let Some(rows) = e.rows_inserted() {
                out.push_str(&format!(",\"rowsInserted\":{rows}"));
            }
            if let Some(s) = e.server() {
                let name = s.name().to_owned();
                out.push_str(&format!(
                    ",\"code\":{},\"name\":{},\"serverMessage\":{},\"stackTrace\":{}",
                    s.code,
                    json_str(&name),
                    json_str(s.text()),
                    json_str(&s.stack_trace)
                ));
            }
        }
        out.push('}');
        out
    }
}

impl From<Error> for napi::Error {
    fn from(e: Error) -> Self {
        napi::Error::from_reason(e.encode())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The message of a caught panic.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "panic".into())
}

/// Run `f`, a panic in it an error.
pub fn guarded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| Err(Error::Panic(panic_message(&*p))))
}
