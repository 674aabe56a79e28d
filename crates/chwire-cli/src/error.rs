//! The command line's errors: the client's (`chwire::Error`) or the file formats'
//! (`chwire_formats::Error`), and the exit code each one ends the process with: 1 for an
//! exception of the server, 2 for bad input or options, 3 for anything else (I/O, the
//! connection, a timeout).

use std::fmt;

/// An error of a `chwire` command.
#[derive(Debug)]
pub enum Error {
    /// The client's: connecting, querying, inserting, the options of the connection.
    Client(chwire::Error),
    /// The file formats': reading input, writing output, their options.
    Formats(chwire_formats::Error),
}

/// The result of a `chwire` command.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Bad input or a bad flag (exit code 2), with `msg` as its message.
    pub fn invalid_input(msg: impl Into<String>) -> Error {
        Error::Client(chwire::Error::invalid_input(msg))
    }

    /// The server's exception, if the server reported the error.
    pub fn server(&self) -> Option<&chwire::ServerException> {
        match self {
            Error::Client(e) => e.server(),
            Error::Formats(_) => None,
        }
    }

    /// The exit code this error ends the process with.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Client(e) if e.server().is_some() => 1,
            Error::Client(e) => match e.kind() {
                chwire::ErrorKind::Config(_) | chwire::ErrorKind::InvalidInput(_) => 2,
                _ => 3,
            },
            Error::Formats(e) if e.is_bad_input() => 2,
            Error::Formats(_) => 3,
        }
    }

    /// Whether this is a write to a closed pipe (the reader went away, e.g. `| head`).
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            Error::Client(e) => matches!(e.kind(), chwire::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe),
            Error::Formats(e) => chwire_formats::is_broken_pipe(e),
        }
    }

    /// The message of an error of the data (bad input, a row that does not fit its columns)
    /// without the words of its kind; any other error as it prints.
    pub fn data_message(&self) -> String {
        use chwire_formats::ErrorKind as F;
        match self {
            Error::Client(e) => match e.kind() {
                chwire::ErrorKind::InvalidInput(m) | chwire::ErrorKind::Row(m) => m.clone(),
                _ => e.to_string(),
            },
            Error::Formats(e) => match e.kind() {
                F::InvalidData(m) | F::File(m) | F::Options(m) | F::Unsupported(m) => m.clone(),
                F::Rows(r) => r.to_string(),
                _ => e.to_string(),
            },
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Client(e) => e.fmt(f),
            Error::Formats(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Client(e) => e.source(),
            Error::Formats(e) => e.source(),
        }
    }
}

impl From<chwire::Error> for Error {
    fn from(e: chwire::Error) -> Self {
        Error::Client(e)
    }
}

impl From<chwire_formats::Error> for Error {
    fn from(e: chwire_formats::Error) -> Self {
        Error::Formats(e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Client(e.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_by_kind() {
        assert_eq!(Error::invalid_input("x").exit_code(), 2);
        assert_eq!(Error::from(std::io::Error::other("disk")).exit_code(), 3);
        assert_eq!(Error::from(chwire_formats::Error::options("--structure: x")).exit_code(), 2);
        assert_eq!(Error::from(chwire_formats::Error::unsupported("GZIP")).exit_code(), 2);
        assert_eq!(Error::from(chwire_formats::Error::invalid_data("CSV input, line 2: x")).exit_code(), 2);
        let io = chwire_formats::Error::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        let io = Error::from(io);
        assert_eq!(io.exit_code(), 3);
        assert!(io.is_broken_pipe());
        let rows = chwire::proto::column::block_from_values(&[("n", chwire::DataType::UInt8)], [&[chwire::Value::Int(-1)][..]]);
        let rows = Error::from(chwire_formats::Error::from(rows.unwrap_err()));
        assert_eq!(rows.exit_code(), 3);
        assert_eq!(rows.data_message(), "row 0: column `n` (UInt8): -1 does not fit UInt8");
        // The words of the formats' errors are the client's, as before they had their own type.
        assert_eq!(Error::from(chwire_formats::Error::invalid_data("m")).to_string(), chwire::Error::invalid_input("m").to_string());
    }
}
