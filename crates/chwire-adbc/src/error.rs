//! chwire's errors as ADBC errors: the status the spec names for each kind, and for server
//! exceptions the ClickHouse code as the vendor code (also in the details, with its name).

use adbc_core::error::{Error, Status};
use chwire::proto::error_codes::code;
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
        code::UNKNOWN_TABLE | code::UNKNOWN_DATABASE => Status::NotFound,
        code::TABLE_ALREADY_EXISTS | code::DATABASE_ALREADY_EXISTS => Status::AlreadyExists,
        code::UNKNOWN_USER | code::WRONG_PASSWORD | code::REQUIRED_PASSWORD | code::AUTHENTICATION_FAILED => Status::Unauthenticated,
        code::READONLY | code::ACCESS_DENIED => Status::Unauthorized,
        code::TIMEOUT_EXCEEDED => Status::Timeout,
        code::QUERY_WAS_CANCELLED => Status::Cancelled,
        code::SYNTAX_ERROR
        | code::UNKNOWN_IDENTIFIER
        | code::UNKNOWN_FUNCTION
        | code::NUMBER_OF_ARGUMENTS_DOESNT_MATCH
        | code::ILLEGAL_TYPE_OF_ARGUMENT
        | code::NO_SUCH_COLUMN_IN_TABLE
        | code::UNKNOWN_TYPE
        | code::UNKNOWN_QUERY_PARAMETER
        | code::BAD_QUERY_PARAMETER => Status::InvalidArguments,
        code::CANNOT_PARSE_TEXT
        | code::CANNOT_PARSE_INPUT_ASSERTION_FAILED
        | code::CANNOT_PARSE_DATE
        | code::CANNOT_PARSE_DATETIME
        | code::TYPE_MISMATCH
        | code::ARGUMENT_OUT_OF_BOUND
        | code::CANNOT_CONVERT_TYPE
        | code::CANNOT_PARSE_NUMBER
        | code::ILLEGAL_DIVISION => Status::InvalidData,
        code::TOO_MANY_SIMULTANEOUS_QUERIES | code::SOCKET_TIMEOUT | code::NETWORK_ERROR | code::ALL_CONNECTION_TRIES_FAILED => Status::IO,
        _ => Status::Unknown,
    }
}

/// The SQLSTATE of a ClickHouse error code, where SQL:2003 has one.
fn sqlstate_of_code(code: i32) -> Option<&'static [u8; 5]> {
    Some(match code {
        code::UNKNOWN_TABLE => b"42S02",                                      // base table or view not found
        code::TABLE_ALREADY_EXISTS => b"42S01",                               // base table or view already exists
        code::UNKNOWN_IDENTIFIER | code::NO_SUCH_COLUMN_IN_TABLE => b"42S22", // column not found
        code::UNKNOWN_DATABASE => b"3F000",                                   // invalid schema name
        code::SYNTAX_ERROR => b"42000",                                       // syntax error or access rule violation
        code::UNKNOWN_USER | code::WRONG_PASSWORD | code::REQUIRED_PASSWORD | code::AUTHENTICATION_FAILED => b"28000", // invalid authorization specification
        code::READONLY | code::ACCESS_DENIED => b"42501", // insufficient privilege
        code::CANNOT_PARSE_TEXT
        | code::CANNOT_PARSE_INPUT_ASSERTION_FAILED
        | code::CANNOT_PARSE_DATE
        | code::CANNOT_PARSE_DATETIME
        | code::CANNOT_PARSE_NUMBER => b"22018", // invalid character value for cast
        code::ILLEGAL_DIVISION => b"22012",               // division by zero
        code::QUERY_WAS_CANCELLED => b"57014",            // query canceled
        _ => return None,
    })
}

pub fn from_chwire(e: chwire::Error) -> Error {
    let message = e.to_string();
    match e.kind() {
        ErrorKind::Server(s) => {
            let name = s.name().to_owned();
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
