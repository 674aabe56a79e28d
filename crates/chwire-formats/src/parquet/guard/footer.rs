//! A Parquet footer (`FileMetaData`) walked as parquet-rs (59.3, without encryption) reads it.
//!
//! parquet-rs reads the fields it knows by their id as the type its schema gives them, whatever
//! type the bytes declare, and skips the others by their declared type. A walk by declared
//! types alone therefore parts ways with it at the first known field declared with another
//! type: a fuzzer found a 542-byte footer whose "integer" parquet-rs read as a struct, reaching
//! lists of 2^31 booleans the walk never saw (`fuzz/regressions/arrow_input/
//! parquet-footer-type-confusion`). So this walk knows the same fields: a known field must be
//! declared with its type (else the footer is refused), known structs are walked by their own
//! fields, everything else is skipped by its declared type as parquet-rs skips it.
//!
//! The tables follow parquet-rs's readers (`file/metadata/thrift/mod.rs`, `basic.rs`,
//! `file/metadata/mod.rs`): fields it skips (ColumnMetaData's 3 and 8, RowGroup's 6,
//! ColumnChunk's 8 and 9 without the `encryption` feature) are left out on purpose.

use super::thrift::{Kind, Thrift, MAX_THRIFT_DEPTH};

/// A field's type as parquet-rs reads it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Field {
    /// i16, i32, i64 or an enum: a zigzag varint.
    Int,
    /// An i8: one byte.
    Byte,
    /// A boolean, held in the field header.
    Bool,
    Double,
    /// A string or binary.
    Binary,
    /// A struct, or a union (parquet-rs reads one field and then wants its end; this walk
    /// reads up to the end, which is the same bytes wherever parquet-rs goes on).
    Struct(Fields),
    /// A list of `Int`, `Binary` or `Struct` elements.
    List(&'static Field),
}

/// A struct's known fields by id.
pub(super) type Fields = &'static [(i16, Field)];

use Field::{Binary, Bool, Byte, Double, Int, List, Struct};

pub(super) const FILE_META_DATA: Fields = &[
    (1, Int),
    (2, List(&Struct(SCHEMA_ELEMENT))),
    (3, Int),
    (4, List(&Struct(ROW_GROUP))),
    (5, List(&Struct(KEY_VALUE))),
    (6, Binary),
    (7, List(&Struct(COLUMN_ORDER))),
];

const SCHEMA_ELEMENT: Fields =
    &[(1, Int), (2, Int), (3, Int), (4, Binary), (5, Int), (6, Int), (7, Int), (8, Int), (9, Int), (10, Struct(LOGICAL_TYPE))];

/// A union of mostly empty structs.
const LOGICAL_TYPE: Fields = &[
    (1, Struct(EMPTY)),
    (2, Struct(EMPTY)),
    (3, Struct(EMPTY)),
    (4, Struct(EMPTY)),
    (5, Struct(&[(1, Int), (2, Int)])),
    (6, Struct(EMPTY)),
    (7, Struct(TIME_OR_TIMESTAMP)),
    (8, Struct(TIME_OR_TIMESTAMP)),
    (10, Struct(&[(1, Byte), (2, Bool)])),
    (11, Struct(EMPTY)),
    (12, Struct(EMPTY)),
    (13, Struct(EMPTY)),
    (14, Struct(EMPTY)),
    (15, Struct(EMPTY)),
    (16, Struct(&[(1, Byte)])),
    (17, Struct(&[(1, Binary)])),
    (18, Struct(&[(1, Binary), (2, Int)])),
];

const EMPTY: Fields = &[];

/// `TimeType` and `TimestampType`: adjusted to UTC, and a `TimeUnit` union of empty structs.
const TIME_OR_TIMESTAMP: Fields = &[(1, Bool), (2, Struct(&[(1, Struct(EMPTY)), (2, Struct(EMPTY)), (3, Struct(EMPTY))]))];

const ROW_GROUP: Fields =
    &[(1, List(&Struct(COLUMN_CHUNK))), (2, Int), (3, Int), (4, List(&Struct(&[(1, Int), (2, Bool), (3, Bool)]))), (5, Int), (7, Int)];

const COLUMN_CHUNK: Fields = &[(1, Binary), (2, Int), (3, Struct(COLUMN_META_DATA)), (4, Int), (5, Int), (6, Int), (7, Int)];

const COLUMN_META_DATA: Fields = &[
    (1, Int),
    (2, List(&Int)),
    (4, Int),
    (5, Int),
    (6, Int),
    (7, Int),
    (9, Int),
    (10, Int),
    (11, Int),
    (12, Struct(STATISTICS)),
    // PageEncodingStats: page type, encoding, count.
    (13, List(&Struct(&[(1, Int), (2, Int), (3, Int)]))),
    (14, Int),
    (15, Int),
    // SizeStatistics.
    (16, Struct(&[(1, Int), (2, List(&Int)), (3, List(&Int))])),
    // GeospatialStatistics: a bounding box of doubles, geometry types.
    (17, Struct(&[(1, Struct(BOUNDING_BOX)), (2, List(&Int))])),
];

const STATISTICS: Fields = &[(1, Binary), (2, Binary), (3, Int), (4, Int), (5, Binary), (6, Binary), (7, Bool), (8, Bool)];

const BOUNDING_BOX: Fields = &[(1, Double), (2, Double), (3, Double), (4, Double), (5, Double), (6, Double), (7, Double), (8, Double)];

const KEY_VALUE: Fields = &[(1, Binary), (2, Binary)];

/// A union whose one known variant is an empty struct.
const COLUMN_ORDER: Fields = &[(1, Struct(EMPTY))];

/// Walk a struct whose known fields are `fields` (after its opening, up to its end).
pub(super) fn walk(t: &mut Thrift<'_>, fields: Fields) -> Result<(), String> {
    t.fields(|t, id, kind| match fields.iter().find(|(known, _)| *known == id) {
        Some(&(_, field)) => read(t, id, field, kind),
        None => t.skip(kind, MAX_THRIFT_DEPTH),
    })
}

/// A known field: it must be declared with the type parquet-rs reads it as.
fn read(t: &mut Thrift<'_>, id: i16, field: Field, kind: Kind) -> Result<(), String> {
    match (field, kind) {
        (Int, Kind::Varint) | (Byte, Kind::Byte) | (Bool, Kind::FieldBool) | (Double, Kind::Double) | (Binary, Kind::Binary) => {
            t.skip(kind, 1)
        }
        (Struct(fields), Kind::Struct) => walk(t, fields),
        (List(element), Kind::List) => {
            let (declared, n) = t.list()?;
            (0..n).try_for_each(|_| match (*element, declared) {
                (Struct(fields), Kind::Struct) => walk(t, fields),
                (Int, Kind::Varint) | (Binary, Kind::Binary) => t.skip(declared, 1),
                (e, d) => Err(format!("field {id}: a list of {d:?} where Parquet has a list of {e:?}")),
            })
        }
        (f, k) => Err(format!("field {id} of type {k:?} where Parquet has {f:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn footer(bytes: &[u8]) -> Result<(), String> {
        walk(&mut Thrift { bytes }, FILE_META_DATA)
    }

    #[test]
    fn known_fields_must_have_their_types() {
        // {1: version 1, 3: num_rows 0, 4: row_groups []}
        assert_eq!(footer(&[0x15, 0x02, 0x26, 0x00, 0x19, 0x0c, 0x00]), Ok(()));
        // num_rows declared as a binary of 2 bytes: parquet-rs would read a varint (2) and
        // take the next two bytes for field headers.
        let err = footer(&[0x15, 0x02, 0x28, 0x02, 0x19, 0xf1, 0x00]).unwrap_err();
        assert!(err.contains("field 3 of type Binary where Parquet has Int"), "{err}");
        // An unknown field is skipped by its declared type (here a binary).
        assert_eq!(footer(&[0x15, 0x02, 0x08, 0x28, 0x01, 0x00, 0x00]), Ok(()));
        // row_groups as a list of integers.
        let err = footer(&[0x49, 0x15, 0x02, 0x00]).unwrap_err();
        assert!(err.contains("field 4: a list of Varint"), "{err}");
        // A schema element's logical type (a union) is walked by its fields too: a
        // timestamp's unit declared as an integer.
        let element = [0x29, 0x1c, 0x48, 0x01, b'a', 0x6c, 0x8c, 0x11, 0x15, 0x02, 0x00, 0x00, 0x00, 0x00];
        let err = footer(&element).unwrap_err();
        assert!(err.contains("field 2 of type Varint where Parquet has Struct"), "{err}");
    }

    #[test]
    fn real_footers_walk() {
        use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, TimestampMicrosecondArray};
        use std::sync::Arc;
        let ints: ArrayRef = Arc::new(Int64Array::from_iter_values(0..100));
        let text: ArrayRef = Arc::new(StringArray::from_iter_values((0..100).map(|i| format!("{i}"))));
        let time: ArrayRef = Arc::new(TimestampMicrosecondArray::from_iter_values(0..100).with_timezone("UTC"));
        let batch = RecordBatch::try_from_iter([("i", ints), ("s", text), ("t", time)]).unwrap();
        let props = parquet::file::properties::WriterProperties::builder()
            .set_statistics_enabled(parquet::file::properties::EnabledStatistics::Page)
            .set_max_row_group_row_count(Some(30))
            .build();
        let mut w = parquet::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        let file = w.into_inner().unwrap();
        let len = u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap()) as usize;
        let bytes = &file[file.len() - 8 - len..file.len() - 8];
        let mut t = Thrift { bytes };
        assert_eq!(walk(&mut t, FILE_META_DATA), Ok(()));
        assert!(t.bytes.is_empty());
    }
}
