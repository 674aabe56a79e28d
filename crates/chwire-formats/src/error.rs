//! The errors of the formats: every failure of arrow-rs and parquet-rs as a `chwire::Error`
//! (malformed input is bad input, exit code 2; I/O stays I/O), and panics inside those readers
//! caught as errors.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Bad input, with `e` as its message.
pub fn invalid(e: impl std::fmt::Display) -> chwire::Error {
    chwire::Error::invalid_input(e.to_string())
}

pub fn parquet_error(e: parquet::errors::ParquetError) -> chwire::Error {
    match e {
        // An I/O error, or one of ours passed through parquet-rs (e.g. from an encoding thread).
        parquet::errors::ParquetError::External(inner) => match inner.downcast::<std::io::Error>() {
            Ok(io) => (*io).into(),
            Err(other) => match other.downcast::<chwire::Error>() {
                Ok(ours) => *ours,
                Err(other) => invalid(unread_codec(format!("Parquet: {other}"))),
            },
        },
        e => invalid(unread_codec(format!("Parquet: {e}"))),
    }
}

pub fn arrow_error(e: arrow_schema::ArrowError) -> chwire::Error {
    match e {
        // Input that is malformed or ends early is bad input (exit code 2), not an I/O failure.
        arrow_schema::ArrowError::IoError(_, io) if io.kind() == std::io::ErrorKind::InvalidData => invalid(io.to_string()),
        arrow_schema::ArrowError::IoError(_, io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            invalid(format!("malformed Arrow input: the input ends early (truncated): {io}"))
        }
        arrow_schema::ArrowError::IoError(_, io) => io.into(),
        e => invalid(unread_codec(format!("Arrow: {e}"))),
    }
}

/// parquet-rs' message for a codec left out of the build, said as what it means: chwire reads
/// ZSTD, LZ4, Snappy and uncompressed Parquet; GZIP and BROTLI decompress without a bound on
/// their output in parquet-rs (a small page could claim gigabytes), so they are not built in.
fn unread_codec(message: String) -> String {
    let codec = ["flate2", "brotli", "lzo"].into_iter().find(|c| message.contains(&format!("Disabled feature at compile time: {c}")));
    match codec {
        Some(c) => format!(
            "the Parquet file is compressed with {}, which chwire does not read (it reads ZSTD, LZ4, Snappy and uncompressed \
             files); rewrite it, e.g. pyarrow.parquet.write_table(pyarrow.parquet.read_table(f), g, compression='zstd')",
            match c {
                "flate2" => "GZIP",
                "brotli" => "BROTLI",
                _ => "LZO",
            }
        ),
        None => message,
    }
}

pub fn malformed_arrow(what: impl std::fmt::Display) -> chwire::Error {
    chwire::Error::invalid_input(format!("malformed Arrow input: {what}"))
}

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Run `f`, turning a panic inside it into an error (arrow-rs asserts on inconsistent
/// offsets rather than returning an error).
pub fn guarded<T>(f: impl FnOnce() -> chwire::Result<T>) -> chwire::Result<T> {
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
        let ours = chwire::Error::invalid_input("malformed Parquet input: x");
        let back = parquet_error(parquet::errors::ParquetError::External(Box::new(ours)));
        assert_eq!(back.to_string(), chwire::Error::invalid_input("malformed Parquet input: x").to_string());
        let io = parquet_error(parquet::errors::ParquetError::External(Box::new(std::io::Error::other("disk"))));
        assert!(matches!(io.kind(), chwire::ErrorKind::Io(_)), "{io:?}");
        let general = parquet_error(parquet::errors::ParquetError::General("g".into()));
        assert!(general.to_string().ends_with("Parquet: Parquet error: g"), "{general}");
    }
}
