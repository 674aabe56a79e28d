//! Parquet strings read as the bytes they are, with 64-bit offsets.
//!
//! A ClickHouse String holds any bytes (a hash, `unhex(...)`, text in another encoding), and
//! ClickHouse writes it to Parquet as a STRING column whatever its bytes, and reads such a
//! column back as it is. parquet-rs checks that a STRING column is UTF-8 and refuses the whole
//! file otherwise ("encountered non UTF-8 data"). So chwire's reader reads STRING columns
//! without their annotation, as plain BYTE_ARRAY, into Arrow binary arrays where the file's
//! own schema has utf8. The ClickHouse types are still derived from the file's own schema (a
//! STRING column is a String, a dictionary of them a LowCardinality(String)): only the arrays
//! the reader hands out change their Arrow type, not their bytes.
//!
//! Every such column, and every plain BYTE_ARRAY one, is read as large binary: its 64-bit
//! offsets are the layout of a ClickHouse String column's and move into it as they are, where
//! 32-bit ones would take a pass over every value's offset (8 % of an uncompressed read of
//! W2's rows).
//!
//! JSON columns keep their annotation (a JSON document is text). Where the file's schema and
//! the plain one do not line up as expected, the file is read as parquet-rs reads it.

use super::types::without_annotations;
use arrow_schema::{DataType as A, Field, FieldRef, Fields, Schema};
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::arrow::parquet_to_arrow_schema;
use parquet::basic::{ConvertedType, LogicalType};
use parquet::schema::types::BasicTypeInfo;
use std::sync::Arc;

/// `metadata` whose reader reads every STRING and plain BYTE_ARRAY column as large binary;
/// `None` when the file has none (or its schema could not be matched, see the module's note).
pub(super) fn strings_as_bytes(metadata: &ArrowReaderMetadata) -> Option<ArrowReaderMetadata> {
    let parquet = match without_annotations(metadata.metadata(), &is_string).ok()? {
        Some(stripped) => Arc::new(stripped),
        None => metadata.metadata().clone(),
    };
    let plain = parquet_to_arrow_schema(parquet.file_metadata().schema_descr(), None).ok()?;
    let ours = metadata.schema();
    if ours.fields().len() != plain.fields().len() {
        return None;
    }
    let fields: Fields = ours.fields().iter().zip(plain.fields()).map(|(o, p)| as_bytes(o, p)).collect();
    if &fields == ours.fields() {
        return None;
    }
    let supplied = Arc::new(Schema::new_with_metadata(fields, ours.metadata().clone()));
    ArrowReaderMetadata::try_new(parquet, ArrowReaderOptions::new().with_schema(supplied)).ok()
}

/// A STRING (or, in files older than logical types, UTF8) leaf.
fn is_string(info: &BasicTypeInfo) -> bool {
    match info.logical_type_ref() {
        Some(logical) => matches!(logical, LogicalType::String),
        None => info.converted_type() == ConvertedType::UTF8,
    }
}

/// `ours` (a field of the file's schema) with large binary where it has utf8 or binary and the
/// plain schema's field `plain` has binary.
fn as_bytes(ours: &FieldRef, plain: &FieldRef) -> FieldRef {
    let ty = bytes_type(ours.data_type(), plain.data_type());
    if &ty == ours.data_type() {
        return ours.clone();
    }
    Arc::new(Field::clone(ours).with_data_type(ty))
}

fn bytes_type(ours: &A, plain: &A) -> A {
    match (ours, plain) {
        (A::Utf8 | A::LargeUtf8 | A::Binary, A::Binary) => A::LargeBinary,
        (A::Utf8View, A::Binary) => A::BinaryView,
        (A::Dictionary(key, value), _) => A::Dictionary(key.clone(), Box::new(bytes_type(value, plain))),
        (A::List(o), A::List(p)) => A::List(as_bytes(o, p)),
        (A::LargeList(o), A::List(p)) => A::LargeList(as_bytes(o, p)),
        (A::ListView(o), A::List(p)) => A::ListView(as_bytes(o, p)),
        (A::LargeListView(o), A::List(p)) => A::LargeListView(as_bytes(o, p)),
        (A::FixedSizeList(o, n), A::List(p)) => A::FixedSizeList(as_bytes(o, p), *n),
        (A::Struct(o), A::Struct(p)) if o.len() == p.len() => A::Struct(o.iter().zip(p).map(|(o, p)| as_bytes(o, p)).collect()),
        (A::Map(o, sorted), A::Map(p, _)) => A::Map(as_bytes(o, p), *sorted),
        _ => ours.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::{Array, ArrayRef, DictionaryArray, LargeBinaryArray, ListArray, RecordBatch, StringArray};
    use arrow_schema::DataType;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ArrowWriter;
    use parquet::data_type::{ByteArray, ByteArrayType};
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    fn read(f: bytes::Bytes, metadata: ArrowReaderMetadata) -> RecordBatch {
        let mut r = ParquetRecordBatchReaderBuilder::new_with_metadata(f, metadata).build().unwrap();
        r.next().unwrap().unwrap()
    }

    /// As ClickHouse writes a String holding `unhex('FF80')`: a STRING column that is not UTF-8,
    /// beside an old-style UTF8 one, a BYTE_ARRAY without annotation and a JSON document.
    #[test]
    fn strings_that_are_not_utf8_read_as_their_bytes() {
        let schema = Arc::new(
            parse_message_type(
                "message schema {
                    required binary s (STRING);
                    optional binary u (UTF8);
                    required binary b;
                    required binary j (JSON);
                }",
            )
            .unwrap(),
        );
        let mut w = SerializedFileWriter::new(Vec::new(), schema, Default::default()).unwrap();
        let mut rg = w.next_row_group().unwrap();
        for (values, defs) in [
            (vec![ByteArray::from(vec![0xFF, 0x80]), ByteArray::from("ok")], None),
            (vec![ByteArray::from(vec![0xC3])], Some(&[1i16, 0][..])),
            (vec![ByteArray::from("b1"), ByteArray::from("b2")], None),
            (vec![ByteArray::from("{}"), ByteArray::from("[1]")], None),
        ] {
            let mut c = rg.next_column().unwrap().unwrap();
            c.typed::<ByteArrayType>().write_batch(&values, defs, None).unwrap();
            c.close().unwrap();
        }
        rg.close().unwrap();
        let f: bytes::Bytes = w.into_inner().unwrap().into();

        let loaded = ArrowReaderMetadata::load(&f, ArrowReaderOptions::new()).unwrap();
        assert_eq!(loaded.schema().field(0).data_type(), &DataType::Utf8);
        let refused = ParquetRecordBatchReaderBuilder::new_with_metadata(f.clone(), loaded.clone()).build().unwrap().next().unwrap();
        assert!(refused.unwrap_err().to_string().contains("non UTF-8"), "parquet-rs' own reading refuses the file");

        let bytes = strings_as_bytes(&loaded).expect("the file has strings");
        let batch = read(f, bytes);
        let s = batch.column(0).as_binary::<i64>();
        assert_eq!(s.value(0), &[0xFF, 0x80]);
        assert_eq!(s.value(1), b"ok");
        let u = batch.column(1).as_binary::<i64>();
        assert_eq!(u.value(0), &[0xC3]);
        assert!(u.is_null(1));
        assert_eq!(batch.column(2).as_binary::<i64>().value(1), b"b2", "plain bytes: large too");
        assert_eq!(batch.column(3).as_string::<i32>().value(1), "[1]", "JSON is text");
    }

    /// A file with its Arrow schema (as pyarrow and chwire write them): large strings, a
    /// dictionary, a list and a map of strings and the field metadata all
    /// keep their shape; only utf8 becomes binary, and the values are the same.
    #[test]
    fn arrow_schemas_keep_their_shape_and_metadata() {
        let dict: DictionaryArray<arrow_array::types::Int32Type> = vec!["a", "b", "a"].into_iter().collect();
        let list = ListArray::from_iter_primitive::<arrow_array::types::Int32Type, _, _>(vec![Some(vec![Some(1)]); 3]);
        let strings_list = arrow_array::builder::ListBuilder::new(arrow_array::builder::StringBuilder::new());
        let mut strings_list = strings_list;
        for v in [["x", "y"], ["z", "w"], ["", "q"]] {
            for s in v {
                strings_list.values().append_value(s);
            }
            strings_list.append(true);
        }
        let strings_list = strings_list.finish();
        let mut map = arrow_array::builder::MapBuilder::new(
            None,
            arrow_array::builder::StringBuilder::new(),
            arrow_array::builder::StringBuilder::new(),
        );
        for i in 0..3 {
            map.keys().append_value(format!("k{i}"));
            map.values().append_value(format!("v{i}"));
            map.append(true).unwrap();
        }
        let map = map.finish();
        let large = arrow_array::LargeStringArray::from(vec!["l0", "l1", "l2"]);
        let meta = std::collections::HashMap::from([("clickhouse.type".to_string(), "String".to_string())]);
        let columns: Vec<(&str, ArrayRef, _)> = vec![
            ("s", Arc::new(StringArray::from(vec!["s0", "s1", "s2"])), Some(meta.clone())),
            ("large", Arc::new(large), None),
            ("dict", Arc::new(dict), None),
            ("ints", Arc::new(list), None),
            ("strings", Arc::new(strings_list), None),
            ("map", Arc::new(map), None),
        ];
        let fields: Vec<Field> = columns
            .iter()
            .map(|(n, a, m)| {
                let f = Field::new(*n, a.data_type().clone(), true);
                match m {
                    Some(m) => f.with_metadata(m.clone()),
                    None => f,
                }
            })
            .collect();
        let original = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns.into_iter().map(|(_, a, _)| a).collect()).unwrap();
        let mut w = ArrowWriter::try_new(Vec::new(), original.schema(), None).unwrap();
        w.write(&original).unwrap();
        let f: bytes::Bytes = w.into_inner().unwrap().into();

        let loaded = ArrowReaderMetadata::load(&f, ArrowReaderOptions::new()).unwrap();
        let bytes = strings_as_bytes(&loaded).expect("the file has strings");
        let types: Vec<DataType> = bytes.schema().fields().iter().map(|f| f.data_type().clone()).collect();
        assert_eq!(types[0], DataType::LargeBinary);
        assert_eq!(types[1], DataType::LargeBinary);
        assert_eq!(types[2], DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::LargeBinary)));
        assert_eq!(types[3], loaded.schema().field(3).data_type().clone(), "no strings: as it was");
        assert!(matches!(&types[4], DataType::List(item) if item.data_type() == &DataType::LargeBinary), "{:?}", types[4]);
        assert!(
            matches!(&types[5], DataType::Map(entries, _) if matches!(entries.data_type(), DataType::Struct(kv) if kv[0].data_type() == &DataType::LargeBinary && kv[1].data_type() == &DataType::LargeBinary)),
            "{:?}",
            types[5]
        );
        for (ours, theirs) in bytes.schema().fields().iter().zip(loaded.schema().fields()) {
            assert_eq!(ours.metadata(), theirs.metadata(), "{}", ours.name());
        }

        let batch = read(f, bytes);
        for (i, column) in batch.columns().iter().enumerate() {
            let as_original = arrow_cast::cast(column, original.column(i).data_type()).unwrap();
            assert_eq!(as_original.to_data(), original.column(i).to_data(), "{}", original.schema().field(i).name());
        }
        let _: &LargeBinaryArray = batch.column(0).as_binary::<i64>();
    }

    #[test]
    fn a_file_without_strings_is_left_alone() {
        let ints: ArrayRef = Arc::new(arrow_array::Int32Array::from(vec![1, 2]));
        let batch = RecordBatch::try_from_iter([("i", ints)]).unwrap();
        let mut w = ArrowWriter::try_new(Vec::new(), batch.schema(), None).unwrap();
        w.write(&batch).unwrap();
        let f: bytes::Bytes = w.into_inner().unwrap().into();
        let loaded = ArrowReaderMetadata::load(&f, ArrowReaderOptions::new()).unwrap();
        assert!(strings_as_bytes(&loaded).is_none());
    }
}
