//! Parquet input that cannot exhaust memory.
//!
//! parquet-rs (59) trusts a dictionary page's value count: it resizes the dictionary to
//! `num_values` entries before decoding a byte of it. Mutating ClickHouse's own Parquet files
//! found 1.7 KB inputs that made it allocate 3.5 and 7.5 GB this way (`fuzz/regressions/
//! arrow_input`).
//!
//! This module checks every column chunk's pages before the reader sees them: the page headers
//! are walked (data pages are skipped, not decompressed), and each dictionary page must hold
//! the values it claims — at least their plain-encoded size in its decompressed bytes — and
//! decode to no more than the block byte limit.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use parquet::basic::Type as Physical;
use parquet::column::page::{Page, PageReader};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::ChunkReader;
use parquet::file::serialized_reader::SerializedPageReader;
use std::sync::Arc;

fn malformed(what: impl std::fmt::Display) -> chwire::Error {
    chwire::Error::invalid_input(format!("malformed Parquet input: {what}"))
}

/// Bytes one plain-encoded value of a column takes at least (bits for booleans: `bits` is
/// true), and the bytes parquet-rs holds per decoded dictionary value.
fn widths(physical: Physical, type_length: i32) -> Option<(u64, bool, u64)> {
    // parquet-rs decodes BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY values to a `ByteArray` (a
    // `bytes::Bytes` in an Option: 32 bytes), INT96 to three u32s.
    Some(match physical {
        Physical::BOOLEAN => (1, true, 1),
        Physical::INT32 | Physical::FLOAT => (4, false, 4),
        Physical::INT64 | Physical::DOUBLE => (8, false, 8),
        Physical::INT96 => (12, false, 12),
        Physical::BYTE_ARRAY => (4, false, 32),
        Physical::FIXED_LEN_BYTE_ARRAY => (u64::try_from(type_length).ok().filter(|&l| l > 0)?, false, 32),
    })
}

/// Check one dictionary page of a column: `bytes` decompressed bytes holding `num_values`.
fn check_dictionary(column: &str, physical: Physical, type_length: i32, num_values: u32, bytes: usize, max: u64) -> chwire::Result<()> {
    let values = u64::from(num_values);
    let Some((plain, bits, decoded)) = widths(physical, type_length) else {
        return match values {
            0 => Ok(()),
            _ => Err(malformed(format!("column {column}: a dictionary of {type_length}-byte values"))),
        };
    };
    // `plain` is at least 1: `widths` filters zero lengths out.
    let held = (bytes as u64).saturating_mul(if bits { 8 } else { 1 }).checked_div(plain).unwrap_or(0);
    if values > held {
        return Err(malformed(format!("column {column}: a dictionary page claims {values} values in {bytes} bytes")));
    }
    let size = values.saturating_mul(decoded);
    if size > max {
        return Err(malformed(format!("column {column}: a dictionary of {values} values ({size} bytes decoded; at most {max})")));
    }
    Ok(())
}

/// Walk every page of every column chunk in `file`; an error for the first dictionary page
/// that does not hold what it claims (and for headers parquet-rs cannot read).
pub fn check_pages<R: ChunkReader + 'static>(file: Arc<R>, metadata: &ParquetMetaData, max: u64) -> chwire::Result<()> {
    let schema = metadata.file_metadata().schema_descr();
    for group in metadata.row_groups() {
        let rows = usize::try_from(group.num_rows()).map_err(|_| malformed("a row group of a negative row count"))?;
        for (chunk, descr) in group.columns().iter().zip(schema.columns()) {
            let column = descr.path().string();
            let mut pages = SerializedPageReader::new(Arc::clone(&file), chunk, rows, None).map_err(super::arrow_io::parquet_error)?;
            while let Some(page) = pages.peek_next_page().map_err(super::arrow_io::parquet_error)? {
                if !page.is_dict {
                    pages.skip_next_page().map_err(super::arrow_io::parquet_error)?;
                    continue;
                }
                match pages.get_next_page().map_err(super::arrow_io::parquet_error)? {
                    Some(Page::DictionaryPage { buf, num_values, .. }) => {
                        check_dictionary(&column, descr.physical_type(), descr.type_length(), num_values, buf.len(), max)?
                    }
                    Some(_) | None => return Err(malformed(format!("column {column}: a dictionary page that could not be read"))),
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictionary_values_must_fit_their_bytes() {
        let max = 1 << 30;
        assert!(check_dictionary("c", Physical::INT64, 0, 3, 24, max).is_ok());
        assert!(check_dictionary("c", Physical::INT64, 0, 4, 24, max).is_err());
        assert!(check_dictionary("c", Physical::BOOLEAN, 0, 16, 2, max).is_ok());
        assert!(check_dictionary("c", Physical::BOOLEAN, 0, 17, 2, max).is_err());
        assert!(check_dictionary("c", Physical::BYTE_ARRAY, 0, 2, 8, max).is_ok());
        assert!(check_dictionary("c", Physical::BYTE_ARRAY, 0, 3, 8, max).is_err());
        assert!(check_dictionary("c", Physical::FIXED_LEN_BYTE_ARRAY, 16, 2, 32, max).is_ok());
        assert!(check_dictionary("c", Physical::FIXED_LEN_BYTE_ARRAY, 0, 1, 32, max).is_err());
        assert!(check_dictionary("c", Physical::FIXED_LEN_BYTE_ARRAY, 0, 0, 0, max).is_ok());
        let err = check_dictionary("c", Physical::INT32, 0, u32::MAX, usize::MAX, max).unwrap_err().to_string();
        assert!(err.contains("at most 1073741824"), "{err}");
    }
}
