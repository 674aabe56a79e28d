//! Parquet input that cannot exhaust memory or time.
//!
//! parquet-rs (59) trusts a dictionary page's value count: it resizes the dictionary to
//! `num_values` entries before decoding a byte of it. Mutating ClickHouse's own Parquet files
//! found 1.7 KB inputs that made it allocate 3.5 and 7.5 GB this way (`fuzz/regressions/
//! arrow_input`).
//!
//! It also skips a list of booleans in the footer's Thrift without consuming a byte per
//! element (as its compact protocol requires), so a footer of a few hundred bytes claiming lists
//! of 2^31 booleans kept it busy for seconds per list (fuzz finds,
//! `fuzz/regressions/arrow_input/parquet-footer-*`).
//!
//! This module checks the footer and every column chunk's pages before the reader sees them:
//! - the footer is walked once as parquet-rs reads it (`footer`: its known fields by their
//!   types, the others skipped by declared type, `thrift`), where every element of a list, set
//!   or map takes at least one byte, so no collection may claim more elements than bytes are
//!   left, booleans in collections are refused, and nesting is limited;
//! - the page headers are read (`pages`; no page is read or decompressed): no page may lie past
//!   the end of its column chunk (parquet-rs allocates and zeroes a page's stored size before
//!   reading it) or claim more than the block byte limit uncompressed (it reserves that much
//!   before decompressing), and each dictionary page must hold the values it claims — at least
//!   their plain-encoded size in its uncompressed bytes — and decode to no more than the block
//!   byte limit.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

mod footer;
mod pages;
mod thrift;

pub use pages::check_pages;

use parquet::file::reader::ChunkReader;

pub(crate) fn malformed(what: impl std::fmt::Display) -> crate::Error {
    crate::Error::invalid_data(format!("malformed Parquet input: {what}"))
}

/// Check a Parquet file's footer (the Thrift-encoded `FileMetaData` before its length and the
/// closing magic) as described in the module's comment. A file too short for a footer, or
/// with an encrypted one, is left to parquet-rs's own errors.
pub fn check_footer<R: ChunkReader>(file: &R) -> crate::Result<()> {
    let len = file.len();
    let Some(tail_start) = len.checked_sub(8) else { return Ok(()) };
    let tail = file.get_bytes(tail_start, 8).map_err(crate::error::parquet_error)?;
    let (Some(size), Some(b"PAR1")) = (tail.get(..4), tail.get(4..8)) else { return Ok(()) };
    let size = u64::from(u32::from_le_bytes(size.try_into().unwrap_or_default()));
    let Some(start) = tail_start.checked_sub(size) else { return Ok(()) };
    let footer = file.get_bytes(start, usize::try_from(size).unwrap_or(usize::MAX)).map_err(crate::error::parquet_error)?;
    footer::walk(&mut thrift::Thrift { bytes: &footer }, footer::FILE_META_DATA).map_err(|e| malformed(format!("the footer: {e}")))
}
