//! The row layer's error: a row type or value that does not fit its columns.

use chwire_proto::column::ValuesError;
use chwire_proto::EncodeError;

/// Why rows and columns did not fit. chwire turns [`Error::Row`] into its
/// `ErrorKind::Row` and [`Error::Encode`] into `ErrorKind::InvalidInput`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A row type does not fit the columns (a missing column, a type the field cannot hold,
    /// a value that does not fit its column); the row was not appended.
    #[error("{0}")]
    Row(String),
    /// A column of this type cannot be built (a type chwire cannot write).
    #[error(transparent)]
    Encode(#[from] EncodeError),
}

/// A result whose error is the row layer's [`Error`] unless named.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Rows of dynamic values that do not make a block ([`crate::block_from_values`]): a row
/// error, but for a column type that cannot be built.
impl From<ValuesError> for Error {
    fn from(e: ValuesError) -> Self {
        match e {
            ValuesError::Encode(e) => Error::Encode(e),
            e => Error::Row(e.to_string()),
        }
    }
}
