//! The errors of the formats: [`Error`], a kind to match on ([`ErrorKind`]) and the cause;
//! every failure of arrow-rs and parquet-rs as one (malformed input is invalid data, exit
//! code 2 in the CLI; I/O stays I/O), and panics inside those readers caught as errors.
//!
//! The crate depends on no client, runtime or network crate: the `chwire` command line
//! turns these errors into its exit codes, and the client is not needed to read a file.

use std::cell::Cell;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

use chwire_proto::column::ValuesError;
use chwire_proto::{DecodeError, EncodeError};

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading the input or writing the output failed (a full disk, a closed pipe).
    Io(std::io::Error),
    /// The input is malformed (a truncated file, a bad value, a header that disagrees with
    /// the columns), or a block does not fit its format.
    InvalidData(String),
    /// A file named to read or write cannot be opened or created (missing, a directory, not
    /// readable); the I/O error is the [`source`](std::error::Error::source).
    File(String),
    /// Bad options: a format, setting, `--structure`, time zone or compression that is not
    /// one, or that the format does not take.
    Options(String),
    /// Input or a request chwire does not handle (a Parquet codec left out of the build, a
    /// type a format cannot hold, a ClickHouse format setting chwire does not implement).
    Unsupported(String),
    /// Rows of values that do not make a block of their columns (where no input line is
    /// known to name).
    Rows(ValuesError),
    /// Native bytes that do not decode.
    Decode(DecodeError),
}

/// An error of the file formats.
pub struct Error {
    // Boxed: results stay one word wide on the hot paths (a value, a block).
    inner: Box<Inner>,
}

struct Inner {
    kind: ErrorKind,
    /// The error this one comes from, where the kind does not hold it (arrow-rs' or
    /// parquet-rs' error, the I/O error of a file that does not open).
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// The result of the formats' functions.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of this kind, without a source.
    pub fn new(kind: ErrorKind) -> Error {
        Error { inner: Box::new(Inner { kind, source: None }) }
    }

    /// An [`ErrorKind::InvalidData`] error.
    pub fn invalid_data(msg: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidData(msg.into()))
    }

    /// An [`ErrorKind::Options`] error.
    pub fn options(msg: impl Into<String>) -> Error {
        Error::new(ErrorKind::Options(msg.into()))
    }

    /// An [`ErrorKind::Unsupported`] error.
    pub fn unsupported(msg: impl Into<String>) -> Error {
        Error::new(ErrorKind::Unsupported(msg.into()))
    }

    /// An [`ErrorKind::File`] error: `path`, and why it does not open.
    pub fn file(path: &std::path::Path, why: std::io::Error) -> Error {
        Error::new(ErrorKind::File(format!("{}: {why}", path.display()))).caused_by(why)
    }

    /// This error, caused by `source` (what [`std::error::Error::source`] returns).
    pub fn caused_by(mut self, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
        self.inner.source = Some(source.into());
        self
    }

    /// What went wrong, to match on.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// The kind, taken out of the error.
    pub fn into_kind(self) -> ErrorKind {
        self.inner.kind
    }

    /// Whether the input or the options are at fault (invalid data, a file that does not
    /// open, bad options, something unsupported) rather than the machine (I/O) or a block
    /// that does not build: what the CLI reports with exit code 2.
    pub fn is_bad_input(&self) -> bool {
        matches!(self.inner.kind, ErrorKind::InvalidData(_) | ErrorKind::File(_) | ErrorKind::Options(_) | ErrorKind::Unsupported(_))
    }

    /// The message of the error without its kind's prefix (`invalid input: `).
    pub fn message(&self) -> String {
        match &self.inner.kind {
            ErrorKind::InvalidData(m) | ErrorKind::File(m) | ErrorKind::Options(m) | ErrorKind::Unsupported(m) => m.clone(),
            ErrorKind::Io(e) => e.to_string(),
            ErrorKind::Rows(e) => e.to_string(),
            ErrorKind::Decode(e) => e.to_string(),
        }
    }
}

// The words are those of the client's errors (`chwire::Error`), which the CLI printed these as.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner.kind {
            ErrorKind::Io(e) => write!(f, "I/O error: {e}"),
            ErrorKind::InvalidData(m) | ErrorKind::File(m) | ErrorKind::Options(m) | ErrorKind::Unsupported(m) => {
                write!(f, "invalid input: {m}")
            }
            ErrorKind::Rows(e) => write!(f, "row mapping: {e}"),
            ErrorKind::Decode(e) => write!(f, "cannot decode the data: {e}"),
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
            ErrorKind::Io(e) => Some(e),
            ErrorKind::Rows(e) => Some(e),
            ErrorKind::Decode(e) => Some(e),
            _ => self.inner.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static)),
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io(e))
    }
}

impl From<DecodeError> for Error {
    fn from(e: DecodeError) -> Self {
        Error::new(ErrorKind::Decode(e))
    }
}

/// A block that does not encode (a column whose data does not fit its type) is invalid data.
impl From<EncodeError> for Error {
    fn from(e: EncodeError) -> Self {
        Error::invalid_data(e.to_string()).caused_by(e)
    }
}

/// A column type that cannot be built is invalid data (as [`EncodeError`]); values that do
/// not fit their columns are [`ErrorKind::Rows`].
impl From<ValuesError> for Error {
    fn from(e: ValuesError) -> Self {
        match e {
            ValuesError::Encode(e) => e.into(),
            e => Error::new(ErrorKind::Rows(e)),
        }
    }
}

/// Bad input, with `e` as its message.
pub fn invalid(e: impl std::fmt::Display) -> Error {
    Error::invalid_data(e.to_string())
}

/// parquet-rs' error as one of ours: an I/O error stays one, our own error passed through
/// parquet-rs is unwrapped, a codec left out of the build is [`ErrorKind::Unsupported`],
/// anything else invalid data.
pub fn parquet_error(e: parquet::errors::ParquetError) -> Error {
    match e {
        // An I/O error, or one of ours passed through parquet-rs (e.g. from an encoding thread).
        parquet::errors::ParquetError::External(inner) => match inner.downcast::<std::io::Error>() {
            Ok(io) => (*io).into(),
            Err(other) => match other.downcast::<Error>() {
                Ok(ours) => *ours,
                Err(other) => unread_codec(format!("Parquet: {other}")).caused_by(other),
            },
        },
        e => unread_codec(format!("Parquet: {e}")).caused_by(e),
    }
}

/// arrow-rs' error as one of ours: malformed or truncated input is invalid data, other I/O
/// errors stay I/O errors, anything else (a codec left out of the build aside) invalid data.
pub fn arrow_error(e: arrow_schema::ArrowError) -> Error {
    match e {
        // Input that is malformed or ends early is bad input (exit code 2), not an I/O failure.
        arrow_schema::ArrowError::IoError(_, io) if io.kind() == std::io::ErrorKind::InvalidData => invalid(&io).caused_by(io),
        arrow_schema::ArrowError::IoError(_, io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            invalid(format!("malformed Arrow input: the input ends early (truncated): {io}")).caused_by(io)
        }
        arrow_schema::ArrowError::IoError(_, io) => io.into(),
        e => unread_codec(format!("Arrow: {e}")).caused_by(e),
    }
}

/// parquet-rs' message for a codec left out of the build, said as what it means: chwire reads
/// ZSTD, LZ4, Snappy and uncompressed Parquet; GZIP and BROTLI decompress without a bound on
/// their output in parquet-rs (a small page could claim gigabytes), so they are not built in.
/// Any other message is invalid data.
fn unread_codec(message: String) -> Error {
    let codec = ["flate2", "brotli", "lzo"].into_iter().find(|c| message.contains(&format!("Disabled feature at compile time: {c}")));
    match codec {
        Some(c) => Error::unsupported(format!(
            "the Parquet file is compressed with {}, which chwire does not read (it reads ZSTD, LZ4, Snappy and uncompressed \
             files); rewrite it, e.g. pyarrow.parquet.write_table(pyarrow.parquet.read_table(f), g, compression='zstd')",
            match c {
                "flate2" => "GZIP",
                "brotli" => "BROTLI",
                _ => "LZO",
            }
        )),
        None => invalid(message),
    }
}

/// Invalid data: `malformed Arrow input: {what}`.
pub fn malformed_arrow(what: impl std::fmt::Display) -> Error {
    Error::invalid_data(format!("malformed Arrow input: {what}"))
}

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Run `f`, turning a panic inside it into an error (arrow-rs asserts on inconsistent
/// offsets rather than returning an error).
pub fn guarded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let r = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    r.unwrap_or_else(|payload| {
        let why = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("the Arrow reader failed");
        Err(malformed_arrow(why))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_errors_come_back_through_parquet_as_they_were() {
        let ours = Error::invalid_data("malformed Parquet input: x");
        let back = parquet_error(parquet::errors::ParquetError::External(Box::new(ours)));
        assert!(matches!(back.kind(), ErrorKind::InvalidData(m) if m == "malformed Parquet input: x"), "{back:?}");
        assert_eq!(back.to_string(), "invalid input: malformed Parquet input: x");
        let io = parquet_error(parquet::errors::ParquetError::External(Box::new(std::io::Error::other("disk"))));
        assert!(matches!(io.kind(), ErrorKind::Io(_)), "{io:?}");
        let general = parquet_error(parquet::errors::ParquetError::General("g".into()));
        assert!(general.to_string().ends_with("Parquet: Parquet error: g"), "{general}");
        assert!(matches!(general.kind(), ErrorKind::InvalidData(_)), "{general:?}");
        // The cause is kept: parquet-rs' own error is the source.
        let source = std::error::Error::source(&general).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("Parquet error: g"));
    }

    #[test]
    fn a_codec_left_out_is_unsupported() {
        let e = parquet_error(parquet::errors::ParquetError::General("Disabled feature at compile time: flate2".into()));
        assert!(matches!(e.kind(), ErrorKind::Unsupported(m) if m.contains("compressed with GZIP")), "{e:?}");
        assert!(e.is_bad_input());
    }

    #[test]
    fn rows_that_do_not_fit_are_row_errors_and_a_file_keeps_its_io_error() {
        let cols = [("n", chwire_proto::DataType::UInt8)];
        let e: Error = chwire_proto::column::block_from_values(&cols, [&[chwire_proto::Value::UInt(300)][..]]).unwrap_err().into();
        assert!(matches!(e.kind(), ErrorKind::Rows(ValuesError::Value { row: 0, .. })), "{e:?}");
        assert_eq!(e.to_string(), "row mapping: row 0: column `n` (UInt8): 300 does not fit UInt8");
        assert!(!e.is_bad_input());
        let missing = std::path::Path::new("/nonexistent/chwire-formats-test");
        let io = std::fs::File::open(missing).unwrap_err();
        let e = Error::file(missing, io);
        assert!(matches!(e.kind(), ErrorKind::File(_)) && e.is_bad_input(), "{e:?}");
        assert!(std::error::Error::source(&e).is_some_and(|s| s.is::<std::io::Error>()));
    }
}
