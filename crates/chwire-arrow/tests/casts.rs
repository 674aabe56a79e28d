//! Arrow → Block for batches chwire did not write: natural types, lossless casts, and the
//! errors for everything else (naming the column and both types).

use arrow_array::types::Int8Type;
use arrow_array::{
    ArrayRef, Date32Array, DictionaryArray, Int32Array, Int64Array, LargeStringArray, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use arrow_schema::{Field, Schema};
use chwire_arrow::{batch_to_block, batch_to_block_inferred, Error};
use chwire_proto::{DataType, Value};
use std::sync::Arc;

fn batch(columns: Vec<(&str, ArrayRef, bool)>) -> RecordBatch {
    let schema = Schema::new(columns.iter().map(|(n, a, nullable)| Field::new(*n, a.data_type().clone(), *nullable)).collect::<Vec<_>>());
    RecordBatch::try_new(Arc::new(schema), columns.into_iter().map(|(_, a, _)| a).collect()).unwrap()
}

fn ty(s: &str) -> DataType {
    DataType::parse(s).unwrap()
}

#[test]
fn natural_types_of_foreign_batches() {
    let b = batch(vec![
        ("i", Arc::new(Int64Array::from(vec![Some(1), None])), true),
        ("s", Arc::new(StringArray::from(vec!["a", "b"])), false),
        ("t", Arc::new(TimestampMicrosecondArray::from(vec![1, 2]).with_timezone("Europe/Berlin")), false),
        ("d", Arc::new(DictionaryArray::<Int8Type>::from_iter(["x", "y", "x"].into_iter().take(2))), false),
    ]);
    let block = batch_to_block_inferred(&b).unwrap();
    let types: Vec<String> = block.columns().iter().map(|(_, c)| c.data_type().to_string()).collect();
    assert_eq!(types, ["Nullable(Int64)", "String", "DateTime64(6, 'Europe/Berlin')", "LowCardinality(String)"]);
    assert_eq!(block.column("i").unwrap().value(1), Value::Null);
    assert_eq!(block.column("d").unwrap().value(1), Value::String(b"y"));
}

#[test]
fn lossless_casts_to_a_target() {
    let b = batch(vec![
        ("a", Arc::new(Int32Array::from(vec![-5, 7])), false),
        ("s", Arc::new(LargeStringArray::from(vec!["é", ""])), false),
        ("t", Arc::new(TimestampMicrosecondArray::from(vec![1_000_000, 2_500_000])), false),
        ("d", Arc::new(Date32Array::from(vec![0, 20000])), false),
    ]);
    let target =
        [("a".to_string(), ty("Int128")), ("s".into(), ty("FixedString(4)")), ("t".into(), ty("DateTime64(1)")), ("d".into(), ty("Date"))];
    let block = batch_to_block(&b, &target).unwrap();
    assert_eq!(block.column("a").unwrap().as_i128().unwrap(), &[-5, 7]);
    assert_eq!(block.column("t").unwrap().as_i64().unwrap(), &[10, 25]);
    assert_eq!(block.column("d").unwrap().as_u16().unwrap(), &[0, 20000]);
    assert_eq!(block.column("s").unwrap().value(0), Value::FixedString("é\0\0".as_bytes()));
}

#[test]
fn lossy_conversions_are_errors_naming_column_and_types() {
    let b = batch(vec![("a", Arc::new(Int64Array::from(vec![1, 300])), false)]);
    let cases = [("UInt8", "a"), ("Date", "a"), ("String", "a"), ("Enum8('x' = 1)", "300")];
    for (target, word) in cases {
        let err = batch_to_block(&b, &[("a".to_string(), ty(target))]).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, Error::Mismatch { .. }), "{msg}");
        assert!(msg.contains("column a") && msg.contains("Int64") && msg.contains(target) && msg.contains(word), "{msg}");
    }
    let t = batch(vec![("t", Arc::new(TimestampMicrosecondArray::from(vec![1_000_001])), false)]);
    let msg = batch_to_block(&t, &[("t".to_string(), ty("DateTime"))]).unwrap_err().to_string();
    assert!(msg.contains("not exact"), "{msg}");
    let missing = batch_to_block(&b, &[("b".to_string(), ty("Int64"))]).unwrap_err().to_string();
    assert!(missing.contains("a") && missing.contains("b"), "{missing}");
}

/// Found by the arrow_input fuzz target: of a file's two columns named `x`, matching by
/// name took the first and dropped the second.
#[test]
fn two_columns_of_one_name_are_an_error() {
    let b = batch(vec![("x", Arc::new(Int64Array::from(vec![1])), false), ("x", Arc::new(Int64Array::from(vec![2])), false)]);
    let err = batch_to_block(&b, &[("x".to_string(), ty("Int64"))]).unwrap_err().to_string();
    assert!(err.contains("two columns named x"), "{err}");
}

/// Structs of other writers become named tuples, "1", "2", … included, as ClickHouse 26.9
/// infers them (its own Arrow and Parquet files name unnamed tuple members so).
#[test]
fn structs_infer_as_named_tuples() {
    use arrow_array::{StructArray, UInt8Array};
    let members = vec![
        (Arc::new(Field::new("1", arrow_schema::DataType::UInt8, false)), Arc::new(UInt8Array::from(vec![1])) as ArrayRef),
        (Arc::new(Field::new("2", arrow_schema::DataType::Utf8, false)), Arc::new(StringArray::from(vec!["a"])) as ArrayRef),
    ];
    let b = batch(vec![("t", Arc::new(StructArray::from(members)), false)]);
    let block = batch_to_block_inferred(&b).unwrap();
    assert_eq!(block.column("t").unwrap().data_type().to_string(), "Tuple(`1` UInt8, `2` String)");
}

/// A NULL BFloat16 stored as binary may have an empty slot (ClickHouse writes none).
#[test]
fn bfloat16_nulls_with_empty_slots() {
    use arrow_array::BinaryArray;
    let b = batch(vec![("v", Arc::new(BinaryArray::from(vec![None, Some(&[0xc0u8, 0x3f][..])])), true)]);
    let block = batch_to_block(&b, &[("v".to_string(), ty("Nullable(BFloat16)"))]).unwrap();
    assert_eq!(block.column("v").unwrap().value(0), Value::Null);
    assert_eq!(block.column("v").unwrap().value(1), Value::BFloat16(0x3fc0)); // 1.5
}

/// Found by the arrow_input fuzz target: a fixed_size_binary(0) column became FixedString(0),
/// and checking its storage divided by zero.
#[test]
fn fixed_size_binary_of_width_zero_is_an_error() {
    use arrow_array::FixedSizeBinaryArray;
    let b = batch(vec![("f", Arc::new(FixedSizeBinaryArray::new_null(0, 3)), true)]);
    let err = batch_to_block_inferred(&b).unwrap_err().to_string();
    assert!(err.contains("f"), "{err}");
    let target = DataType::Nullable(Box::new(DataType::FixedString(0)));
    let err = batch_to_block(&b, &[("f".to_string(), target)]).unwrap_err().to_string();
    assert!(err.contains("positive"), "{err}");
}

/// DateTime from timestamp[s], with and without nulls: both ends of DateTime's range arrive,
/// one second beyond either is refused.
#[test]
fn seconds_to_datetime_at_the_range_ends() {
    use arrow_array::TimestampSecondArray;
    let max = i64::from(u32::MAX);
    let target = [("t".to_string(), ty("Nullable(DateTime('UTC'))"))];
    for with_nulls in [false, true] {
        let of = |v: Vec<i64>| {
            let mut v: Vec<Option<i64>> = v.into_iter().map(Some).collect();
            if with_nulls {
                v.push(None);
            }
            batch(vec![("t", Arc::new(TimestampSecondArray::from(v)) as ArrayRef, true)])
        };
        let block = batch_to_block(&of(vec![0, 1_600_000_000, max]), &target).unwrap();
        let col = block.column("t").unwrap();
        assert_eq!((col.value(0), col.value(2)), (Value::DateTime(0, Some("UTC")), Value::DateTime(u32::MAX, Some("UTC"))), "{with_nulls}");
        for bad in [-1, max + 1, i64::MIN, i64::MAX] {
            let msg = batch_to_block(&of(vec![5, bad]), &target).unwrap_err().to_string();
            assert!(msg.contains("column t") && msg.contains("2106"), "{bad} (nulls: {with_nulls}): {msg}");
        }
    }
}

/// A NULL list or map (pandas, Polars and pyarrow write them for missing values) is an empty
/// Array or Map, as ClickHouse reads such files; values a NULL row's offsets span are left out.
#[test]
fn null_lists_and_maps_are_empty() {
    use arrow_array::builder::{Int64Builder, ListBuilder, MapBuilder, StringBuilder};
    use arrow_array::{FixedSizeListArray, ListArray};
    use arrow_buffer::{NullBuffer, OffsetBuffer};
    // Row 1 is NULL but spans two values (allowed by Arrow): they must not leak into row 2.
    let values: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3, 4]));
    let field = Arc::new(Field::new("item", arrow_schema::DataType::Int64, true));
    let spanning = ListArray::new(
        field.clone(),
        OffsetBuffer::new(vec![0, 1, 3, 4].into()),
        values.clone(),
        Some(NullBuffer::from(vec![true, false, true])),
    );
    let mut nested = ListBuilder::new(ListBuilder::new(Int64Builder::new()));
    nested.values().values().append_value(7);
    nested.values().append(true);
    nested.values().append_null();
    nested.append(true);
    nested.append_null();
    nested.append(true);
    let mut maps = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
    maps.keys().append_value("k");
    maps.values().append_value(1);
    maps.append(true).unwrap();
    maps.append(false).unwrap();
    maps.append(true).unwrap();
    let fixed =
        FixedSizeListArray::new(field, 1, Arc::new(Int64Array::from(vec![5, 6, 8])), Some(NullBuffer::from(vec![true, false, true])));
    let b = batch(vec![
        ("l", Arc::new(spanning), true),
        ("n", Arc::new(nested.finish()), true),
        ("m", Arc::new(maps.finish()), true),
        ("f", Arc::new(fixed), true),
    ]);
    let target = [
        ("l".to_string(), ty("Array(Int64)")),
        ("n".into(), ty("Array(Array(Int64))")),
        ("m".into(), ty("Map(String, Int64)")),
        ("f".into(), ty("Array(Int64)")),
    ];
    for block in [batch_to_block(&b, &target).unwrap(), batch_to_block_inferred(&b).unwrap()] {
        let text = |c: &str| (0..3).map(|i| format!("{:?}", block.column(c).unwrap().value(i))).collect::<Vec<_>>();
        let l = text("l");
        assert!(l[1].contains("[]") && l[2].contains("Int(4)") && !l[2].contains("Int(2)"), "{l:?}");
        let n = text("n");
        assert!(n[0].contains("Int(7)") && n[1].contains("[]"), "an inner NULL list is empty too: {n:?}");
        assert!(text("m")[1].contains("[]"), "{:?}", text("m"));
        let f = text("f");
        assert!(f[1].contains("[]") && f[2].contains("Int(8)") && !f[2].contains("Int(6)"), "{f:?}");
    }
}

/// A NULL that does not fit, at any depth, is refused naming the row of the batch it is in.
#[test]
fn a_null_that_does_not_fit_names_its_row() {
    use arrow_array::builder::{Int32Builder, ListBuilder, StructBuilder};
    let fields = vec![Field::new("a", arrow_schema::DataType::Int32, true)];
    let mut b = ListBuilder::new(StructBuilder::new(fields.clone(), vec![Box::new(Int32Builder::new())]));
    for (row, items) in [vec![Some(1)], vec![Some(2), Some(3)], vec![Some(4), None]].into_iter().enumerate() {
        for item in items {
            let s = b.values();
            s.field_builder::<Int32Builder>(0).unwrap().append_option(item.map(|v| v + row as i32));
            s.append(item.is_some());
        }
        b.append(true);
    }
    let lists = batch(vec![("t", Arc::new(b.finish()), true)]);
    let err = batch_to_block(&lists, &[("t".to_string(), ty("Array(Tuple(a Int32))"))]).unwrap_err();
    // The row is a field of the error (the batch's row, not the element's), for callers to read.
    assert!(matches!(&err, chwire_arrow::Error::Value { column, row: Some(2), .. } if column == "t"), "{err:?}");
    let e = err.to_string();
    assert!(e.contains("column t") && e.contains("row 2: NULL does not fit the non-Nullable type Tuple(a Int32)"), "{e}");
    let scalars = batch(vec![("i", Arc::new(arrow_array::Int32Array::from(vec![Some(1), None])), true)]);
    let e = batch_to_block(&scalars, &[("i".to_string(), ty("Int32"))]).unwrap_err().to_string();
    assert!(e.contains("row 1: NULL does not fit the non-Nullable type Int32"), "{e}");
}

/// Nullable(Enum) from names with NULLs (ClickHouse's Parquet has Enum names as byte arrays;
/// pandas strings with None): the NULL rows' empty slots are no element, and must not be read
/// as one.
#[test]
fn nullable_enums_from_names_with_nulls() {
    use arrow_array::{BinaryArray, StringViewArray};
    let target = [("e".to_string(), ty("Nullable(Enum8('a' = 1, 'b' = 2))"))];
    let arrays: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![Some("b"), None, Some("a")])),
        Arc::new(BinaryArray::from(vec![Some(&b"b"[..]), None, Some(&b"a"[..])])),
        Arc::new(StringViewArray::from(vec![Some("b"), None, Some("a")])),
    ];
    for a in arrays {
        let t = a.data_type().clone();
        let block = batch_to_block(&batch(vec![("e", a, true)]), &target).unwrap_or_else(|e| panic!("{t}: {e}"));
        let col = block.column("e").unwrap();
        assert_eq!(format!("{:?}", [col.value(0), col.value(1), col.value(2)]), "[Enum(\"b\", 2), Null, Enum(\"a\", 1)]", "{t}");
    }
    // A name that is no element is still an error.
    let bad = batch(vec![("e", Arc::new(StringArray::from(vec![Some("c"), None])) as ArrayRef, true)]);
    assert!(batch_to_block(&bad, &target).unwrap_err().to_string().contains("\"c\" is not an element"));
}

/// List views (pyarrow's `list_view`, DuckDB's export option) infer and cast as Array: views
/// may overlap and come in any order, and a null view is an empty array (Array has no NULL).
#[test]
fn list_views_are_arrays() {
    use arrow_array::{Array, LargeListViewArray, ListViewArray};
    use arrow_buffer::{NullBuffer, ScalarBuffer};
    let item = Arc::new(Field::new("item", arrow_schema::DataType::Int64, false));
    let values: ArrayRef = Arc::new(Int64Array::from(vec![10, 11, 12, 13]));
    // Rows: [12, 13], [10, 11, 12] (overlapping the first), NULL, [] and [11].
    let (offsets, sizes) = (ScalarBuffer::from(vec![2, 0, 1, 3, 1]), ScalarBuffer::from(vec![2, 3, 2, 0, 1]));
    let nulls = Some(NullBuffer::from(vec![true, true, false, true, true]));
    let view = ListViewArray::new(item.clone(), offsets, sizes, values.clone(), nulls.clone());
    let large = LargeListViewArray::new(
        item,
        ScalarBuffer::from(vec![2i64, 0, 1, 3, 1]),
        ScalarBuffer::from(vec![2i64, 3, 2, 0, 1]),
        values,
        nulls,
    );
    assert_eq!(view.null_count(), 1);
    let b = batch(vec![("v", Arc::new(view), true), ("w", Arc::new(large), true)]);
    let block = batch_to_block_inferred(&b).unwrap();
    for name in ["v", "w"] {
        let column = block.column(name).unwrap();
        assert_eq!(column.data_type().to_string(), "Array(Int64)");
        let rows: Vec<String> = (0..5).map(|r| format!("{:?}", column.value(r))).collect();
        let want: Vec<String> = [vec![12, 13], vec![10, 11, 12], vec![], vec![], vec![11]]
            .into_iter()
            .map(|r| format!("{:?}", Value::Array(r.into_iter().map(Value::Int).collect())))
            .collect();
        assert_eq!(rows, want, "{name}");
    }
    let target = [("v".to_string(), ty("Array(Int32)")), ("w".to_string(), ty("Array(Nullable(Int64))"))];
    let cast = batch_to_block(&b, &target).unwrap();
    assert_eq!(
        format!("{:?}", cast.column("v").unwrap().value(1)),
        format!("{:?}", Value::Array(vec![Value::Int(10), Value::Int(11), Value::Int(12)]))
    );
}

#[test]
fn what_lies_under_a_null_is_no_value_and_fails_no_range_check() {
    use arrow_array::{Array, Date64Array};
    use arrow_buffer::{NullBuffer, ScalarBuffer};
    // pandas leaves i64::MIN under NaT; other writers leave whatever was there.
    let under = |values: Vec<i64>| NullBuffer::from(values.iter().map(|&v| v != i64::MIN).collect::<Vec<_>>());
    let raw = vec![1_500_000_000_000_000i64, i64::MIN];
    let t = TimestampMicrosecondArray::new(ScalarBuffer::from(raw.clone()), Some(under(raw))).with_timezone("UTC");
    let d = Date32Array::new(ScalarBuffer::from(vec![19000, -5000]), Some(NullBuffer::from(vec![true, false])));
    let d64 = Date64Array::new(ScalarBuffer::from(vec![86_400_000i64, 1]), Some(NullBuffer::from(vec![true, false])));
    assert_eq!((t.null_count(), d.null_count(), d64.null_count()), (1, 1, 1));
    let b = batch(vec![("t", Arc::new(t), true), ("d", Arc::new(d), true), ("e", Arc::new(d64), true)]);
    let target =
        [("t".to_string(), ty("Nullable(DateTime('UTC'))")), ("d".into(), ty("Nullable(Date)")), ("e".into(), ty("Nullable(Date)"))];
    let block = batch_to_block(&b, &target).unwrap();
    assert_eq!(block.column("t").unwrap().value(0), Value::DateTime(1_500_000_000, Some("UTC")));
    for c in ["t", "d", "e"] {
        assert_eq!(block.column(c).unwrap().value(1), Value::Null, "{c}");
    }
    // A value that is there is still checked.
    let bad = batch(vec![("t", Arc::new(TimestampMicrosecondArray::from(vec![Some(1), None])), true)]);
    assert!(batch_to_block(&bad, &[("t".to_string(), ty("Nullable(DateTime)"))]).is_err());
}
