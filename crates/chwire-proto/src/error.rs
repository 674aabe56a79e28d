//! Decode errors of the wire layer.
//!
//! Running out of bytes is not an error here: decoders report it as [`ReadError::Incomplete`]
//! internally and return `Ok(None)` from the public entry points, so the IO layer reads more.

/// A failure to decode bytes received from the server (or read from a Native file).
///
/// Any of these means the byte stream can no longer be trusted; a connection that produced
/// one must be closed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    #[error("malformed {what}: {detail}")]
    Malformed { what: &'static str, detail: String },
    #[error("{what}: {size} exceeds the limit of {limit}")]
    LimitExceeded { what: &'static str, size: u64, limit: u64 },
    #[error("unknown server packet type {0}")]
    UnknownPacket(u64),
    #[error("unexpected server packet {got} while {state}")]
    UnexpectedPacket { got: &'static str, state: &'static str },
    #[error("compressed frame checksum mismatch: expected {expected:032x}, computed {actual:032x}")]
    ChecksumMismatch { expected: u128, actual: u128 },
    #[error("unsupported compression method 0x{0:02x}")]
    UnsupportedCompression(u8),
    #[error("decompression failed: {0}")]
    Decompression(String),
    #[error("unsupported column type {0}")]
    UnsupportedType(String),
    #[error("invalid type name {name:?}: {detail}")]
    InvalidTypeName { name: String, detail: String },
    #[error("unsupported column serialization kind {0} for column {1}")]
    UnsupportedSerialization(u8, String),
    #[error("truncated input: {0} more bytes were expected")]
    Truncated(usize),
}

impl DecodeError {
    pub(crate) fn malformed(what: &'static str, detail: impl Into<String>) -> Self {
        DecodeError::Malformed { what, detail: detail.into() }
    }
}

/// Errors while encoding data the caller gave us (e.g. a column whose layout does not
/// match its type).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    #[error("column {column:?}: {detail}")]
    InvalidColumn { column: String, detail: String },
    #[error("{0}")]
    Invalid(String),
}

/// Internal read result: either more bytes are needed or the input is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// At least `needed` bytes (counted from the start of the reader's slice) are required.
    Incomplete {
        needed: usize,
    },
    Invalid(DecodeError),
}

impl From<DecodeError> for ReadError {
    fn from(e: DecodeError) -> Self {
        ReadError::Invalid(e)
    }
}

impl ReadError {
    /// Turn "need more" into a hard error, for inputs that are known to be complete
    /// (a decompressed block, a whole file).
    pub fn into_complete(self, available: usize) -> DecodeError {
        match self {
            ReadError::Incomplete { needed } => DecodeError::Truncated(needed.saturating_sub(available)),
            ReadError::Invalid(e) => e,
        }
    }
}

pub type ReadResult<T> = Result<T, ReadError>;
