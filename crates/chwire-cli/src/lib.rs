//! The parts of the `chwire` command line (main.rs): its subcommands, their flags, progress and
//! exit codes. Not an API of its own: the file formats are the `chwire-formats` crate, the
//! client `chwire`, Arrow `chwire-arrow`.

#![warn(missing_docs)]

pub mod bench;
pub mod convert;
pub mod demo;
pub mod error;
pub mod file_args;
pub mod insert;
pub mod limits;
pub mod progress;

pub use error::{Error, Result};

/// clap value parser of `NAME=VALUE` settings.
pub fn parse_kv(s: &str) -> Result<(String, String), String> {
    let (k, v) = s.split_once('=').ok_or_else(|| format!("expected NAME=VALUE, got {s:?}"))?;
    if k.trim().is_empty() {
        return Err(format!("empty setting name in {s:?}"));
    }
    Ok((k.trim().to_string(), v.to_string()))
}
