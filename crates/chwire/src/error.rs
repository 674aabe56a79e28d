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
    /// A timeout expired (which one: [`Timeout`]); but for a query's own deadline and the
    /// pool's wait, the connection was closed.
    Timeout(Timeout),
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
    /// A shared connection is running another query (a result of it is still open): a
    /// connection runs one query at a time. Nothing was sent.
    Busy,
    /// A result collected whole went over its bound ([`ResultLimits`](crate::ResultLimits));
    /// the query was cancelled and the connection is ready for the next one.
    ResultTooLarge(crate::ResultLimit),
}

/// Which timeout expired (the options that set each are named).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Timeout {
    /// The TCP connect (`connect_timeout`).
    Connect,
    /// The TLS and ClickHouse handshakes (`handshake_timeout`).
    Handshake,
    /// No progress writing to the socket (`send_timeout`).
    Send,
    /// No bytes from the server (`receive_timeout`).
    Receive,
    /// The query's own deadline (`query_timeout`): the query was cancelled, the connection
    /// is drained before its next use.
    Query,
    /// No connection of the pool became free (`acquire_timeout`).
    PoolAcquire,
    /// Draining an abandoned query before the next one.
    Drain,
    /// Reading an interrupted answer to its end.
    Resync,
}

impl Timeout {
    /// What timed out, in words (`"receive"`, `"pool acquire"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Timeout::Connect => "connect",
            Timeout::Handshake => "handshake",
            Timeout::Send => "send",
            Timeout::Receive => "receive",
            Timeout::Query => "query",
            Timeout::PoolAcquire => "pool acquire",
            Timeout::Drain => "drain",
            Timeout::Resync => "resync",
        }
    }
}

impl fmt::Display for Timeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error of the chwire client.
pub struct Error {
    // Boxed: results stay one word wide on the hot paths (a row, a block).
    inner: Box<Inner>,
}

struct Inner {
    kind: ErrorKind,
    /// The error this one comes from, where the kind does not hold it (a TLS failure's
    /// rustls error, the I/O error under a corrupt gzip body).
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
    /// Data an insert refused: the rows before it, committed.
    rows_inserted: Option<u64>,
}

impl Error {
    /// What went wrong, to match on.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// The kind, taken out of the error.
    pub fn into_kind(self) -> ErrorKind {
        self.inner.kind
    }

    /// The server exception, if the server reported the error.
    pub fn server(&self) -> Option<&ServerException> {
        match &self.inner.kind {
            ErrorKind::Server(e) => Some(e),
            _ => None,
        }
    }

    /// The server's error code, if the server reported the error.
    pub fn code(&self) -> Option<i32> {
        self.server().map(|e| e.code)
    }

    /// For data an insert refused (the INSERT then ended with what was sent before it
    /// committed, as every front end's insert does): how many rows that was.
    pub fn rows_inserted(&self) -> Option<u64> {
        self.inner.rows_inserted
    }

    /// This error, saying that `rows` rows before the data it is about were inserted.
    #[cfg(feature = "arrow")]
    pub(crate) fn with_rows_inserted(mut self, rows: u64) -> Self {
        self.inner.rows_inserted = Some(rows);
        self
    }

    /// Which timeout expired, if one did.
    pub fn timeout(&self) -> Option<Timeout> {
        match self.inner.kind {
            ErrorKind::Timeout(t) => Some(t),
            _ => None,
        }
    }

    /// Whether a timeout expired.
    pub fn is_timeout(&self) -> bool {
        self.timeout().is_some()
    }

    /// Whether the server closed the connection.
    pub fn is_closed(&self) -> bool {
        matches!(self.inner.kind, ErrorKind::Closed)
    }

    /// Authentication failed (unknown user, wrong or missing password).
    pub fn is_authentication(&self) -> bool {
        use chwire_proto::error_codes::code;
        matches!(self.code(), Some(code::UNKNOWN_USER | code::WRONG_PASSWORD | code::REQUIRED_PASSWORD | code::AUTHENTICATION_FAILED))
    }

    /// Whether the connection that produced this error had to be dropped.
    pub fn breaks_connection(&self) -> bool {
        matches!(
            self.inner.kind,
            ErrorKind::Decode(_)
                | ErrorKind::Protocol(_)
                | ErrorKind::Io(_)
                | ErrorKind::Timeout(_)
                | ErrorKind::Closed
                | ErrorKind::Tls(_)
        )
    }

    pub(crate) fn new(kind: ErrorKind) -> Self {
        Error { inner: Box::new(Inner { kind, source: None, rows_inserted: None }) }
    }

    /// This error, caused by `source` (what [`std::error::Error::source`] returns).
    pub(crate) fn caused_by(mut self, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        self.inner.source = Some(source.into());
        self
    }

    pub(crate) fn timed_out(t: Timeout) -> Self {
        Error::new(ErrorKind::Timeout(t))
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
        match &self.inner.kind {
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
            ErrorKind::ResultTooLarge(l) => write!(
                f,
                "{l}: the query was cancelled; stream the result instead (memory bounded by a block), or raise the bound (0 lifts it)"
            ),
            ErrorKind::Busy => f.write_str(
                "the connection is busy: another result of it is still open (a connection runs one query at a time; read that \
                 result to its end or close it, or use another connection or a pool)",
            ),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?})", self.inner.kind)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.kind {
            ErrorKind::Decode(e) => Some(e),
            ErrorKind::Io(e) => Some(e),
            _ => self.inner.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static)),
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

/// Rows of dynamic values that do not make a block ([`crate::row::block_from_values`]): a row
/// error, but for a column type that cannot be built, which is bad input as in [`EncodeError`].
impl From<chwire_proto::column::ValuesError> for Error {
    fn from(e: chwire_proto::column::ValuesError) -> Self {
        match e {
            chwire_proto::column::ValuesError::Encode(e) => e.into(),
            e => Error::new(ErrorKind::Row(e.to_string())),
        }
    }
}

/// The row layer's errors: a row that does not fit is [`ErrorKind::Row`], a column type that
/// cannot be built bad input as in [`EncodeError`].
impl From<chwire_row::Error> for Error {
    fn from(e: chwire_row::Error) -> Self {
        match e {
            chwire_row::Error::Encode(e) => e.into(),
            e => Error::new(ErrorKind::Row(e.to_string())),
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io(e))
    }
}

/// What cannot fail (a [`TableRef`](chwire_proto::sql::TableRef) given as one).
impl From<std::convert::Infallible> for Error {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
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

/// A result whose error is chwire's [`Error`] unless named.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An [`ErrorKind::InvalidInput`] error: data given to chwire does not fit. For tools
    /// built on chwire (the CLI's format readers) to report bad input as the client does.
    pub fn invalid_input(msg: impl Into<String>) -> Self {
        Error::invalid(msg)
    }
}
