//! Parquet input that cannot exhaust memory.
//!
//! parquet-rs (59) trusts a dictionary page's value count: it resizes the dictionary to
//! `num_values` entries before decoding a byte of it. Mutating ClickHouse's own Parquet files
//! found 1.7 KB inputs that made it allocate 3.5 and 7.5 GB this way (`fuzz/regressions/
//! arrow_input`).
//!
//! It also skips a list of booleans in the footer's Thrift without consuming a byte per
//! element (as its compact protocol requires), so a footer of a few hundred bytes claiming lists
//! of 2^31 booleans kept it busy for seconds per list (a fuzz find,
//! `fuzz/regressions/arrow_input/parquet-footer-bool-lists`).
//!
//! This module checks the footer and every column chunk's pages before the reader sees them:
//! - the footer is walked once as Thrift compact protocol, where every element of a list, set
//!   or map takes at least one byte, so no collection may claim more elements than bytes are
//!   left, and nesting is limited;
//! - the page headers are read (no page is read or decompressed): no page may lie past the end
//!   of its column chunk (parquet-rs allocates and zeroes a page's stored size before reading
//!   it) or claim more than the block byte limit uncompressed (it reserves that much before
//!   decompressing),
//!   and each dictionary page must hold the values it claims — at least their plain-encoded
//!   size in its uncompressed bytes — and decode to no more than the block byte limit.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use parquet::basic::Type as Physical;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::ChunkReader;

pub(super) fn malformed(what: impl std::fmt::Display) -> chwire::Error {
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

/// The deepest nesting of structs and collections accepted in a footer (parquet-rs stops at
/// 64 too; Parquet's own schema needs a handful).
const MAX_THRIFT_DEPTH: u32 = 64;

/// The depth left inside a page header's nested struct.
const NESTED_DEPTH: u32 = MAX_THRIFT_DEPTH - 1;

/// Check a Parquet file's footer (the Thrift-encoded `FileMetaData` before its length and the
/// closing magic) as described in the module's comment. A file too short for a footer, or
/// with an encrypted one, is left to parquet-rs's own errors.
pub fn check_footer<R: ChunkReader>(file: &R) -> chwire::Result<()> {
    let len = file.len();
    let Some(tail_start) = len.checked_sub(8) else { return Ok(()) };
    let tail = file.get_bytes(tail_start, 8).map_err(super::arrow_io::parquet_error)?;
    let (Some(size), Some(b"PAR1")) = (tail.get(..4), tail.get(4..8)) else { return Ok(()) };
    let size = u64::from(u32::from_le_bytes(size.try_into().unwrap_or_default()));
    let Some(start) = tail_start.checked_sub(size) else { return Ok(()) };
    let footer = file.get_bytes(start, usize::try_from(size).unwrap_or(usize::MAX)).map_err(super::arrow_io::parquet_error)?;
    let mut t = Thrift { bytes: &footer };
    t.skip(Kind::Struct, MAX_THRIFT_DEPTH).map_err(|e| malformed(format!("the footer: {e}")))
}

/// A value's type in Thrift's compact protocol.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// A boolean struct field: its value is in the field header.
    FieldBool,
    /// A boolean inside a collection (a byte each).
    Bool,
    Byte,
    Varint,
    Double,
    Binary,
    List,
    Map,
    Struct,
    Uuid,
}

impl Kind {
    fn of(code: u8, in_collection: bool) -> Result<Kind, String> {
        Ok(match code {
            1 | 2 if in_collection => Kind::Bool,
            1 | 2 => Kind::FieldBool,
            3 => Kind::Byte,
            4..=6 => Kind::Varint,
            7 => Kind::Double,
            8 => Kind::Binary,
            9 | 10 => Kind::List,
            11 => Kind::Map,
            12 => Kind::Struct,
            13 => Kind::Uuid,
            c => return Err(format!("an unknown Thrift type {c}")),
        })
    }
}

/// parquet-rs skips a boolean inside a collection without reading its byte, so it and this
/// walker would part ways after one (and a list claiming 2^31 booleans costs it 2^31 steps).
/// No structure of a Parquet footer or page header holds a collection of booleans: a non-empty
/// one is refused.
fn no_booleans(elements: &[Kind], n: u64) -> Result<(), String> {
    match n > 0 && elements.contains(&Kind::Bool) {
        true => Err(format!("a collection of {n} booleans")),
        false => Ok(()),
    }
}

/// The bytes of a Thrift compact-protocol value not yet walked.
struct Thrift<'a> {
    bytes: &'a [u8],
}

impl Thrift<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let (&b, rest) = self.bytes.split_first().ok_or("it ends early")?;
        self.bytes = rest;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a varint of more than 10 bytes".into())
    }

    fn advance(&mut self, n: u64) -> Result<(), String> {
        let n = usize::try_from(n).map_err(|_| "a length beyond the footer")?;
        self.bytes = self.bytes.get(n..).ok_or("a length beyond the footer")?;
        Ok(())
    }

    /// A collection's element count, each element taking at least one byte.
    fn count(&mut self, n: u64, per_element: u64) -> Result<u64, String> {
        match n.checked_mul(per_element) {
            Some(bytes) if bytes <= self.bytes.len() as u64 => Ok(n),
            _ => Err(format!("a collection of {n} elements in {} bytes", self.bytes.len())),
        }
    }

    /// A zigzag-encoded integer (i16, i32, i64).
    fn int(&mut self) -> Result<i64, String> {
        let n = self.varint()?;
        Ok(((n >> 1) as i64) ^ ((n & 1) as i64).wrapping_neg())
    }

    /// A zigzag-encoded i32 as parquet-rs reads it: decoded as an i64, then cut to 32 bits.
    fn int32(&mut self) -> Result<i64, String> {
        Ok(i64::from(self.int()? as i32))
    }

    /// The fields of a struct, each given to `field` with its id and kind (which must read
    /// or skip its value), up to the struct's end — read as parquet-rs reads them: a field
    /// byte whose type is 0 ends the struct, ids are 16 bits.
    fn fields(&mut self, depth: u32, mut field: impl FnMut(&mut Self, i16, Kind) -> Result<(), String>) -> Result<(), String> {
        depth.checked_sub(1).ok_or("nested too deep")?;
        let mut id = 0i16;
        loop {
            let header = self.byte()?;
            if header & 0x0f == 0 {
                return Ok(());
            }
            id = match header >> 4 {
                0 => i16::try_from(self.int()?).map_err(|_| "a field id beyond 16 bits")?,
                delta => id.checked_add(i16::from(delta)).ok_or("a field id beyond 16 bits")?,
            };
            field(self, id, Kind::of(header & 0x0f, false)?)?;
        }
    }

    /// An i32 field as parquet-rs reads it (any integer type takes a varint).
    fn int32_field(&mut self, kind: Kind) -> Result<i64, String> {
        match kind {
            Kind::Varint => self.int32(),
            k => Err(format!("an integer field of type {k:?}")),
        }
    }

    /// A struct field's fields, as [`Self::fields`].
    fn struct_field(&mut self, kind: Kind, field: impl FnMut(&mut Self, i16, Kind) -> Result<(), String>) -> Result<(), String> {
        match kind {
            Kind::Struct => self.fields(NESTED_DEPTH, field),
            k => Err(format!("a struct field of type {k:?}")),
        }
    }

    fn skip(&mut self, kind: Kind, depth: u32) -> Result<(), String> {
        let depth = depth.checked_sub(1).ok_or("nested too deep")?;
        match kind {
            Kind::FieldBool => Ok(()),
            Kind::Bool | Kind::Byte => self.advance(1),
            Kind::Varint => self.varint().map(drop),
            Kind::Double => self.advance(8),
            Kind::Uuid => self.advance(16),
            Kind::Binary => {
                let n = self.varint()?;
                self.advance(n)
            }
            Kind::List => {
                let header = self.byte()?;
                // Some writers write an empty list's header as 0 (parquet-rs takes it).
                if header == 0 {
                    return Ok(());
                }
                let n = match header >> 4 {
                    15 => self.varint()?,
                    n => u64::from(n),
                };
                let element = Kind::of(header & 0x0f, true)?;
                no_booleans(&[element], n)?;
                for _ in 0..self.count(n, 1)? {
                    self.skip(element, depth)?;
                }
                Ok(())
            }
            Kind::Map => {
                let n = self.varint()?;
                if n == 0 {
                    return Ok(());
                }
                let types = self.byte()?;
                let (key, value) = (Kind::of(types >> 4, true)?, Kind::of(types & 0x0f, true)?);
                no_booleans(&[key, value], n)?;
                for _ in 0..self.count(n, 2)? {
                    self.skip(key, depth)?;
                    self.skip(value, depth)?;
                }
                Ok(())
            }
            Kind::Struct => loop {
                let header = self.byte()?;
                if header & 0x0f == 0 {
                    return Ok(());
                }
                if header >> 4 == 0 {
                    // A field id of its own (zigzag i16) instead of a delta.
                    self.varint()?;
                }
                self.skip(Kind::of(header & 0x0f, false)?, depth)?;
            },
        }
    }
}

/// Read the page headers of every column chunk in `file`; an error for the first page that
/// lies past its chunk or claims more than `max` bytes uncompressed, or a dictionary page that
/// does not hold what it claims. Only headers are read: this is cheap enough to do for the
/// whole file before any column is read.
pub fn check_pages<R: ChunkReader>(file: &R, metadata: &ParquetMetaData, max: u64) -> chwire::Result<()> {
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
) -> chwire::Result<()> {
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
            let bytes = file.get_bytes(at, usize::try_from(window).unwrap_or(usize::MAX)).map_err(super::arrow_io::parquet_error)?;
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
    t.fields(MAX_THRIFT_DEPTH, |t, id, k| {
        match id {
            1 => kind = Some(t.int32_field(k)?),
            2 => uncompressed = Some(t.int32_field(k)?),
            3 => compressed = Some(t.int32_field(k)?),
            4 => drop(t.int32_field(k)?),
            // DataPageHeader, IndexPageHeader, DictionaryPageHeader, DataPageHeaderV2.
            5..=8 => t.struct_field(k, |t, inner, k| {
                match (id, inner) {
                    (7, 1) => values = Some(t.int32_field(k)?),
                    (5, 1..=4) | (7, 2) | (8, 1..=6) => drop(t.int32_field(k)?),
                    (7, 3) | (8, 7) if k != Kind::FieldBool => return Err(format!("a boolean field of type {k:?}")),
                    _ => t.skip(k, NESTED_DEPTH)?,
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

    fn walk(bytes: &[u8]) -> Result<(), String> {
        Thrift { bytes }.skip(Kind::Struct, MAX_THRIFT_DEPTH)
    }

    #[test]
    fn thrift_collections_may_not_claim_more_elements_than_bytes() {
        // struct { 1: list<i8> [1, 2] } and a bool field, then STOP.
        assert_eq!(walk(&[0x19, 0x23, 1, 2, 0x11, 0]), Ok(()));
        // Booleans in a collection: parquet-rs skips them without reading their bytes, so
        // these 7 "booleans" would be its next field (a list of 2^31-1 booleans).
        let err = walk(&[0x19, 0x71, 0x19, 0xf1, 0xff, 0xff, 0xff, 0xff, 0x07, 0]).unwrap_err();
        assert!(err.contains("a collection of 7 booleans"), "{err}");
        assert!(walk(&[0x1b, 1, 0x13, 1, 2, 0]).is_err(), "a map of booleans");
        assert_eq!(walk(&[0x19, 0x01, 0]), Ok(()), "an empty list of booleans");
        // As parquet-rs: a list header of 0 is an empty list; a field byte of type 0 ends a struct.
        assert_eq!(walk(&[0x19, 0x00, 0x10]), Ok(()));
        // A list claiming 2^31 booleans in a few bytes (what parquet-rs spun on), and 2^31
        // bytes.
        let err = walk(&[0x19, 0xf1, 0x80, 0x80, 0x80, 0x80, 0x08, 1, 0]).unwrap_err();
        assert!(err.contains("a collection of 2147483648 booleans"), "{err}");
        let err = walk(&[0x19, 0xf3, 0x80, 0x80, 0x80, 0x80, 0x08, 1, 0]).unwrap_err();
        assert!(err.contains("a collection of 2147483648 elements"), "{err}");
        // A map of 3 entries needs at least 6 bytes.
        assert!(walk(&[0x1b, 3, 0x33, 1, 2, 3, 4, 0]).is_err());
        assert_eq!(walk(&[0x1b, 2, 0x33, 1, 2, 3, 4, 0]), Ok(()));
        // Structs nested beyond the limit; a footer that ends early.
        let deep: Vec<u8> = std::iter::repeat_n(0x1c, 100).chain(std::iter::repeat_n(0, 101)).collect();
        assert_eq!(walk(&deep), Err("nested too deep".into()));
        assert_eq!(walk(&[0x15]), Err("it ends early".into()));
    }

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
