//! chwire's errors as ADBC errors: the status the spec names for each kind, and for server
//! exceptions the ClickHouse code as the vendor code (also in the details, with its name).

use adbc_core::error::{Error, Status};
use chwire::ErrorKind;

fn err(status: Status, message: impl Into<String>) -> Error {
    Error::with_message_and_status(message, status)
}

pub fn invalid_state(m: impl Into<String>) -> Error {
    err(Status::InvalidState, m)
}
pub fn invalid_arg(m: impl Into<String>) -> Error {
    err(Status::InvalidArguments, m)
}
pub fn invalid_data(m: impl Into<String>) -> Error {
    err(Status::InvalidData, m)
}
pub fn not_implemented(m: impl Into<String>) -> Error {
    err(Status::NotImplemented, m)
}
pub fn not_found(m: impl Into<String>) -> Error {
    err(Status::NotFound, m)
}
pub fn cancelled(m: impl Into<String>) -> Error {
    err(Status::Cancelled, m)
}
pub fn internal(m: impl Into<String>) -> Error {
    err(Status::Internal, m)
}

/// The ADBC status of a ClickHouse error code.
pub fn status_of_code(code: i32) -> Status {
    match code {
        // UNKNOWN_TABLE, UNKNOWN_DATABASE
        60 | 81 => Status::NotFound,
        // TABLE_ALREADY_EXISTS, DATABASE_ALREADY_EXISTS
        57 | 82 => Status::AlreadyExists,
        // UNKNOWN_USER, WRONG_PASSWORD, REQUIRED_PASSWORD, AUTHENTICATION_FAILED
        192..=194 | 516 => Status::Unauthenticated,
        // READONLY, ACCESS_DENIED, NOT_ENOUGH_PRIVILEGES
        164 | 497 => Status::Unauthorized,
        // TIMEOUT_EXCEEDED
        159 => Status::Timeout,
        // QUERY_WAS_CANCELLED
        394 => Status::Cancelled,
        // SYNTAX_ERROR, UNKNOWN_IDENTIFIER, UNKNOWN_FUNCTION, argument count/type, no such
        // column, UNKNOWN_TYPE, unknown/bad query parameters
        62 | 47 | 46 | 42 | 43 | 16 | 50 | 456 | 457 => Status::InvalidArguments,
        // parse errors, TYPE_MISMATCH, ARGUMENT_OUT_OF_BOUND, CANNOT_CONVERT_TYPE, division
        6 | 27 | 38 | 41 | 53 | 69 | 70 | 72 | 153 => Status::InvalidData,
        // TOO_MANY_SIMULTANEOUS_QUERIES, NETWORK_ERROR, SOCKET_TIMEOUT, ALL_CONNECTION_TRIES_FAILED
        202 | 209 | 210 | 279 => Status::IO,
        _ => Status::Unknown,
    }
}

/// The SQLSTATE of a ClickHouse error code, where SQL:2003 has one.
fn sqlstate_of_code(code: i32) -> Option<&'static [u8; 5]> {
    Some(match code {
        60 => b"42S02",                    // base table or view not found
        57 => b"42S01",                    // base table or view already exists
        47 | 16 => b"42S22",               // column not found
        81 => b"3F000",                    // invalid schema name
        62 => b"42000",                    // syntax error or access rule violation
        192..=194 | 516 => b"28000",       // invalid authorization specification
        164 | 497 => b"42501",             // insufficient privilege
        6 | 27 | 38 | 41 | 72 => b"22018", // invalid character value for cast
        153 => b"22012",                   // division by zero
        394 => b"57014",                   // query canceled
        _ => return None,
    })
}

pub fn from_chwire(e: chwire::Error) -> Error {
    let message = e.to_string();
    match e.kind() {
        ErrorKind::Server(s) => {
            let name = s.code_name().map_or_else(|| s.name.clone(), str::to_owned);
            Error {
                message,
                status: status_of_code(s.code),
                vendor_code: s.code,
                sqlstate: sqlstate_of_code(s.code).map_or([0; 5], |s| s.map(|b| b as std::os::raw::c_char)),
                details: Some(vec![
                    ("clickhouse.code".into(), s.code.to_string().into_bytes()),
                    ("clickhouse.name".into(), name.into_bytes()),
                ]),
            }
        }
        ErrorKind::Timeout(_) => err(Status::Timeout, message),
        ErrorKind::Io(_) | ErrorKind::Closed | ErrorKind::Tls(_) => err(Status::IO, message),
        ErrorKind::Decode(_) | ErrorKind::Protocol(_) => err(Status::Internal, message),
        ErrorKind::Config(_) => err(Status::InvalidArguments, message),
        ErrorKind::InvalidInput(_) | ErrorKind::Row(_) => err(Status::InvalidData, message),
        _ => err(Status::Unknown, message),
    }
}

pub fn from_arrow(e: chwire_arrow::Error) -> Error {
    invalid_data(format!("Arrow conversion: {e}"))
}

pub trait ChResult<T> {
    fn ch(self) -> adbc_core::error::Result<T>;
}

impl<T> ChResult<T> for Result<T, chwire::Error> {
    fn ch(self) -> adbc_core::error::Result<T> {
        self.map_err(from_chwire)
    }
}

impl<T> ChResult<T> for Result<T, chwire_arrow::Error> {
    fn ch(self) -> adbc_core::error::Result<T> {
        self.map_err(from_arrow)
    }
}
