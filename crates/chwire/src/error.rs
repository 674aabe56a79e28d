//! The client's error type: a kind you can match on, plus the underlying cause.

use chwire_proto::{DecodeError, EncodeError, ServerException};
use std::fmt;

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The server answered with an exception (the connection is still usable).
    Server(ServerException),
    /// The server sent bytes chwire cannot decode; the connection was closed.
    Decode(DecodeError),
    /// The server sent a packet that makes no sense at this point; the connection was closed.
    Protocol(String),
    /// Reading from or writing to the socket failed; the connection was closed.
    Io(std::io::Error),
    /// A connect, read or write timeout expired; the connection was closed.
    Timeout(&'static str),
    /// The server closed the connection.
    Closed,
    /// TLS failed: the server's certificate was refused (unknown issuer, expired, wrong
    /// name, ...), the handshake failed, or the TLS files could not be read.
    Tls(String),
    /// Data given to chwire does not fit (a block that does not match the table, a bad
    /// column); nothing was sent.
    InvalidInput(String),
    /// Bad connection options (URL, values).
    Config(String),
    /// A row type does not fit the columns (a missing column, a type the field cannot hold,
    /// a value that does not fit its column); the query or insert was not started or the
    /// row was not appended.
    Row(String),
    /// `fetch_one` found no row.
    NoRows,
}

/// An error of the chwire client.
pub struct Error {
    // Boxed: results stay one word wide on the hot paths (a row, a block).
    kind: Box<ErrorKind>,
}

impl Error {
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    pub fn into_kind(self) -> ErrorKind {
        *self.kind
    }

    /// The server exception, if the server reported the error.
    pub fn server(&self) -> Option<&ServerException> {
        match &*self.kind {
            ErrorKind::Server(e) => Some(e),
            _ => None,
        }
    }

    /// The server's error code, if the server reported the error.
    pub fn code(&self) -> Option<i32> {
        self.server().map(|e| e.code)
    }

    pub fn is_timeout(&self) -> bool {
        matches!(*self.kind, ErrorKind::Timeout(_))
    }

    pub fn is_closed(&self) -> bool {
        matches!(*self.kind, ErrorKind::Closed)
    }

    /// Authentication failed (unknown user, wrong or missing password).
    pub fn is_authentication(&self) -> bool {
        matches!(self.code(), Some(192..=194) | Some(516))
    }

    /// Whether the connection that produced this error had to be dropped.
    pub fn breaks_connection(&self) -> bool {
        matches!(
            *self.kind,
            ErrorKind::Decode(_)
                | ErrorKind::Protocol(_)
                | ErrorKind::Io(_)
                | ErrorKind::Timeout(_)
                | ErrorKind::Closed
                | ErrorKind::Tls(_)
        )
    }

    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error { kind: Box::new(kind) }
    }

    pub(crate) fn protocol(msg: impl Into<String>) -> Self {
        Error::new(ErrorKind::Protocol(msg.into()))
    }

    pub(crate) fn invalid(msg: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidInput(msg.into()))
    }

    pub(crate) fn config(msg: impl Into<String>) -> Self {
        Error::new(ErrorKind::Config(msg.into()))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.kind {
            ErrorKind::Server(e) => write!(f, "server error: {e}"),
            ErrorKind::Decode(e) => write!(f, "cannot decode the data: {e}"),
            ErrorKind::Protocol(m) => write!(f, "protocol error: {m}"),
            ErrorKind::Io(e) => write!(f, "I/O error: {e}"),
            ErrorKind::Timeout(what) => write!(f, "{what} timed out"),
            ErrorKind::Closed => f.write_str("the server closed the connection"),
            ErrorKind::Tls(m) => write!(f, "TLS: {m}"),
            ErrorKind::InvalidInput(m) => write!(f, "invalid input: {m}"),
            ErrorKind::Config(m) => write!(f, "invalid configuration: {m}"),
            ErrorKind::Row(m) => write!(f, "row mapping: {m}"),
            ErrorKind::NoRows => f.write_str("the query returned no rows"),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?})", self.kind)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.kind {
            ErrorKind::Decode(e) => Some(e),
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<DecodeError> for Error {
    fn from(e: DecodeError) -> Self {
        Error::new(ErrorKind::Decode(e))
    }
}

impl From<EncodeError> for Error {
    fn from(e: EncodeError) -> Self {
        Error::new(ErrorKind::InvalidInput(e.to_string()))
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io(e))
    }
}

/// SQL text chwire cannot read (a table name, an INSERT's target, a placeholder) is bad input.
impl From<chwire_proto::sql::SqlError> for Error {
    fn from(e: chwire_proto::sql::SqlError) -> Self {
        Error::new(ErrorKind::InvalidInput(e.0))
    }
}

impl From<ServerException> for Error {
    fn from(e: ServerException) -> Self {
        Error::new(ErrorKind::Server(e))
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An [`ErrorKind::InvalidInput`] error: data given to chwire does not fit. For tools
    /// built on chwire (the CLI's format readers) to report bad input as the client does.
    pub fn invalid_input(msg: impl Into<String>) -> Self {
        Error::invalid(msg)
    }
}
