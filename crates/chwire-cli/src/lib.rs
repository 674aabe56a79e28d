//! The parts of the `chwire` command line (main.rs): its subcommands, and the readers and
//! writers of the file formats. A library so that the fuzz targets (`fuzz/`) read files through
//! the same code as `chwire convert` and `chwire insert`; not an API of its own (use the
//! `chwire` and `chwire-arrow` crates).

pub mod bench;
pub mod convert;
pub mod demo;
pub mod format_clause;
pub mod formats;
pub mod insert;
pub mod limits;
pub mod progress;

/// clap value parser of `NAME=VALUE` settings.
pub fn parse_kv(s: &str) -> Result<(String, String), String> {
    let (k, v) = s.split_once('=').ok_or_else(|| format!("expected NAME=VALUE, got {s:?}"))?;
    if k.trim().is_empty() {
        return Err(format!("empty setting name in {s:?}"));
    }
    Ok((k.trim().to_string(), v.to_string()))
}
