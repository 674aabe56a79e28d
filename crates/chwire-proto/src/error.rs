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
    /// A field or structure is not what the protocol allows.
    #[error("malformed {what}: {detail}")]
    Malformed {
        /// What was being decoded (`ServerHello`, `BlockInfo`, a column's type).
        what: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// A size read from the input is over one of the [`Limits`](crate::Limits) (or a fixed
    /// protocol limit).
    #[error("{what}: {size} exceeds the limit of {limit}")]
    LimitExceeded {
        /// What was measured (`block rows`, `string length`, `exception chain`).
        what: &'static str,
        /// The size the input asked for.
        size: u64,
        /// The largest size allowed.
        limit: u64,
    },
    /// A packet type code chwire does not know.
    #[error("unknown server packet type {0}")]
    UnknownPacket(u64),
    /// A compressed frame's CityHash128 does not match its bytes.
    #[error("compressed frame checksum mismatch: expected {expected:032x}, computed {actual:032x}")]
    ChecksumMismatch {
        /// The checksum the frame carries.
        expected: u128,
        /// The checksum of the bytes received.
        actual: u128,
    },
    /// A compressed frame's method byte is none of NONE, LZ4 and ZSTD.
    #[error("unsupported compression method 0x{0:02x}")]
    UnsupportedCompression(u8),
    /// A frame's payload does not decompress, or not to its stated size.
    #[error("decompression failed: {0}")]
    Decompression(String),
    /// A type that parses but has no codec here (the type, or the part of it that is
    /// unsupported, such as an aggregate function's state).
    #[error("unsupported column type {0}")]
    UnsupportedType(String),
    /// A type name that does not parse.
    #[error("invalid type name {name:?}: {detail}")]
    InvalidTypeName {
        /// The type name as received.
        name: String,
        /// What is wrong with it.
        detail: String,
    },
    /// A column's serialization kind chwire does not read (the kind byte, the column's name).
    #[error("unsupported column serialization kind {0} for column {1}")]
    UnsupportedSerialization(u8, String),
    /// Input known to be complete (a decompressed block, a whole file) ended early, by this
    /// many bytes.
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
    /// A column that cannot be encoded (its layout does not fit its type, its length the
    /// block's).
    #[error("column {column:?}: {detail}")]
    InvalidColumn {
        /// The column's name.
        column: String,
        /// What is wrong with it.
        detail: String,
    },
    /// Anything else the caller gave that cannot be encoded.
    #[error("{0}")]
    Invalid(String),
}

/// Internal read result: either more bytes are needed or the input is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// At least `needed` bytes (counted from the start of the reader's slice) are required.
    Incomplete {
        /// The byte count.
        needed: usize,
    },
    /// The input is invalid.
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

/// The result of a [`Reader`](crate::wire::Reader) step: a value, more bytes needed, or
/// invalid input.
pub type ReadResult<T> = Result<T, ReadError>;
