//! Parquet page headers checked before parquet-rs reads a page: read as parquet-rs (59) reads
//! them (without page statistics), no page read or decompressed.

use super::malformed;
use super::thrift::{Kind, Thrift, MAX_THRIFT_DEPTH};
use parquet::basic::Type as Physical;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::ChunkReader;

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
fn check_dictionary(column: &str, physical: Physical, type_length: i32, num_values: u32, bytes: usize, max: u64) -> crate::Result<()> {
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

/// Read the page headers of every column chunk in `file`; an error for the first page that
/// lies past its chunk or claims more than `max` bytes uncompressed, or a dictionary page that
/// does not hold what it claims. Only headers are read: this is cheap enough to do for the
/// whole file before any column is read.
pub fn check_pages<R: ChunkReader>(file: &R, metadata: &ParquetMetaData, max: u64) -> crate::Result<()> {
    let schema = metadata.file_metadata().schema_descr();
    for group in metadata.row_groups() {
        for (chunk, descr) in group.columns().iter().zip(schema.columns()) {
            check_chunk(file, chunk, descr, max)?;
        }
    }
    Ok(())
}

/// The largest page header read (parquet-rs reads any; statistics make them long at most).
const MAX_PAGE_HEADER: u64 = 16 << 20;

/// The page headers of one column chunk, as [`check_pages`]. Pages are not read, only their
/// headers: a dictionary page's bytes are its uncompressed size, which parquet-rs checks
/// against what decompression yields (or, uncompressed, its stored size).
fn check_chunk<R: ChunkReader>(
    file: &R,
    chunk: &parquet::file::metadata::ColumnChunkMetaData,
    descr: &parquet::schema::types::ColumnDescriptor,
    max: u64,
) -> crate::Result<()> {
    let column = descr.path().string();
    let (start, len) = chunk.byte_range();
    let end = start
        .checked_add(len)
        .filter(|&e| e <= file.len())
        .ok_or_else(|| malformed(format!("column {column}: a chunk past the end of the file")))?;
    let stored = matches!(chunk.compression(), parquet::basic::Compression::UNCOMPRESSED);
    let mut at = start;
    while at < end {
        let left = end.saturating_sub(at);
        let mut window = left.min(256);
        let (header, size) = loop {
            let bytes = file.get_bytes(at, usize::try_from(window).unwrap_or(usize::MAX)).map_err(crate::error::parquet_error)?;
            let mut t = Thrift { bytes: &bytes };
            match page_header(&mut t) {
                Ok(h) => break (h, window.saturating_sub(t.bytes.len() as u64)),
                Err(e) if window >= left.min(MAX_PAGE_HEADER) => return Err(malformed(format!("column {column}: a page header: {e}"))),
                Err(_) => window = window.saturating_mul(4).min(left).min(MAX_PAGE_HEADER),
            }
        };
        if header.uncompressed > max {
            return Err(malformed(format!("column {column}: a page of {} bytes uncompressed (at most {max})", header.uncompressed)));
        }
        // parquet-rs allocates (and zeroes) a page's stored size before reading it.
        let next = at.saturating_add(size).saturating_add(header.compressed);
        if next > end {
            return Err(malformed(format!("column {column}: a page of {} bytes past the end of its column chunk", header.compressed)));
        }
        if let Some(values) = header.dictionary_values {
            let bytes = if stored { header.compressed } else { header.uncompressed };
            let values = u32::try_from(values).map_err(|_| malformed(format!("column {column}: a dictionary of {values} values")))?;
            check_dictionary(
                &column,
                descr.physical_type(),
                descr.type_length(),
                values,
                usize::try_from(bytes).unwrap_or(usize::MAX),
                max,
            )?;
        }
        at = next;
    }
    Ok(())
}

/// What the page check needs of a page header (Parquet's `PageHeader`).
#[derive(Debug)]
struct PageHeader {
    uncompressed: u64,
    compressed: u64,
    /// A dictionary page's value count.
    dictionary_values: Option<i64>,
}

/// A page header's sizes and, for a dictionary page, its value count.
fn page_header(t: &mut Thrift<'_>) -> Result<PageHeader, String> {
    let (mut kind, mut uncompressed, mut compressed, mut values) = (None, None, None, None);
    // parquet-rs picks the fields it knows by id and reads them as their declared types
    // whatever type the bytes say: a known field of another type is refused, else the two
    // readers would part ways. Unknown fields (and statistics) are skipped by both.
    t.fields(|t, id, k| {
        match id {
            1 => kind = Some(t.int32_field(k)?),
            2 => uncompressed = Some(t.int32_field(k)?),
            3 => compressed = Some(t.int32_field(k)?),
            4 => drop(t.int32_field(k)?),
            // DataPageHeader, IndexPageHeader, DictionaryPageHeader, DataPageHeaderV2.
            5..=8 if k != Kind::Struct => return Err(format!("a struct field of type {k:?}")),
            5..=8 => t.fields(|t, inner, k| {
                match (id, inner) {
                    (7, 1) => values = Some(t.int32_field(k)?),
                    (5, 1..=4) | (7, 2) | (8, 1..=6) => drop(t.int32_field(k)?),
                    (7, 3) | (8, 7) if k != Kind::FieldBool => return Err(format!("a boolean field of type {k:?}")),
                    _ => t.skip(k, MAX_THRIFT_DEPTH)?,
                }
                Ok(())
            })?,
            _ => t.skip(k, MAX_THRIFT_DEPTH)?,
        }
        Ok(())
    })?;
    let size = |v: Option<i64>, what: &str| v.and_then(|v| u64::try_from(v).ok()).ok_or_else(|| format!("no valid {what} page size"));
    let (uncompressed, compressed) = (size(uncompressed, "uncompressed")?, size(compressed, "compressed")?);
    // Type 2 is DICTIONARY_PAGE.
    let dictionary_values = match kind {
        Some(2) => Some(values.ok_or("a dictionary page without its header")?),
        Some(_) => None,
        None => return Err("no page type".into()),
    };
    Ok(PageHeader { uncompressed, compressed, dictionary_values })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn page_headers_give_their_sizes_and_dictionary_counts() {
        // {1: type 2 (dictionary), 2: 100 bytes, 3: 50 bytes, 7: {1: 10 values, 2: 0}}
        let dict = [0x15, 0x04, 0x15, 0xc8, 0x01, 0x15, 0x64, 0x4c, 0x15, 0x14, 0x15, 0x00, 0x00, 0x00];
        let h = page_header(&mut Thrift { bytes: &dict }).unwrap();
        assert_eq!((h.uncompressed, h.compressed, h.dictionary_values), (100, 50, Some(10)));
        // A data page (type 0), its own header skipped; with a field id given explicitly.
        let data = [0x15, 0x00, 0x15, 0xc8, 0x01, 0x05, 0x06, 0x64, 0x2c, 0x15, 0x02, 0x00, 0x00];
        let h = page_header(&mut Thrift { bytes: &data }).unwrap();
        assert_eq!((h.uncompressed, h.compressed, h.dictionary_values), (100, 50, None));
        // No type; a negative size; a dictionary page without its header; cut short.
        assert!(page_header(&mut Thrift { bytes: &[0x25, 0xc8, 0x01, 0x15, 0x64, 0x00] }).is_err());
        assert!(page_header(&mut Thrift { bytes: &[0x15, 0x00, 0x15, 0x01, 0x15, 0x64, 0x00] }).is_err());
        assert!(page_header(&mut Thrift { bytes: &[0x15, 0x04, 0x15, 0xc8, 0x01, 0x15, 0x64, 0x00] }).is_err());
        assert!(page_header(&mut Thrift { bytes: &dict[..9] }).is_err());
        // Field ids are 16 bits, as parquet-rs reads them: 65537 is not field 1 in disguise.
        let err = page_header(&mut Thrift { bytes: &[0x05, 0x82, 0x80, 0x08, 0x04, 0x15, 0xc8, 0x01, 0x15, 0x64, 0x00] });
        assert!(err.unwrap_err().contains("16 bits"));
        // A known field declared with another type (parquet-rs would read it as an integer).
        let err = page_header(&mut Thrift { bytes: &[0x15, 0x00, 0x18, 0x02, 0x15, 0x07, 0x15, 0x64, 0x00] }).unwrap_err();
        assert!(err.contains("an integer field of type Binary"), "{err}");
        // The dictionary header declared as a list.
        let err = page_header(&mut Thrift { bytes: &[0x15, 0x04, 0x15, 0xc8, 0x01, 0x15, 0x64, 0x49, 0x00, 0x00] }).unwrap_err();
        assert!(err.contains("a struct field of type List"), "{err}");
    }

    #[test]
    fn pages_claiming_more_than_the_block_limit_are_refused_unread() {
        use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
        let ints: ArrayRef = Arc::new(Int64Array::from_iter_values(0..10_000));
        let text: ArrayRef = Arc::new(StringArray::from_iter_values((0..10_000).map(|i| format!("{}", i % 7))));
        let batch = RecordBatch::try_from_iter([("i", ints), ("s", text)]).unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), None).unwrap();
        w.write(&batch).unwrap();
        let file = bytes::Bytes::from(w.into_inner().unwrap());
        let metadata = parquet::file::reader::FileReader::metadata(
            &parquet::file::serialized_reader::SerializedFileReader::new(file.clone()).unwrap(),
        )
        .clone();
        assert!(check_pages(&file, &metadata, 1 << 30).is_ok());
        let e = check_pages(&file, &metadata, 1000).unwrap_err().to_string();
        assert!(e.contains("column i: a page of ") && e.contains("(at most 1000)"), "{e}");
        // A file cut short inside its last column chunk.
        let last = metadata.row_group(0).column(1).byte_range();
        let cut = file.slice(..(last.0 + last.1 - 10) as usize);
        let e = check_pages(&cut, &metadata, 1 << 30).unwrap_err().to_string();
        assert!(e.contains("past the end"), "{e}");
    }

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
