//! Dynamic and JSON columns as JSON text (`arrow.json`), as ClickHouse 26.9 writes them, and
//! back: JSON columns keep the text, Dynamic values get their types inferred. (The oracle,
//! tests/oracle/arrow.py, compares both with chdb for every conformance case.)

use arrow_array::{Array, ArrayRef, LargeStringArray, RecordBatch, StringArray};
use arrow_schema::{Field, Schema};
use chwire_arrow::{batch_to_block, block_to_batch, schema_of_block, ArrowOptions, Mapping};
use chwire_proto::{Block, DataType, Value};
use std::sync::Arc;

fn batch(name: &str, array: ArrayRef) -> RecordBatch {
    let schema = Schema::new(vec![Field::new(name, array.data_type().clone(), true)]);
    RecordBatch::try_new(Arc::new(schema), vec![array]).unwrap()
}

fn ty(s: &str) -> DataType {
    DataType::parse(s).unwrap()
}

/// The block as JSON text again, in both mappings: the field has the `arrow.json` extension.
fn texts(block: &Block) -> Vec<String> {
    let mut out = Vec::new();
    for mapping in [Mapping::Rich, Mapping::ClickHouse] {
        let opts = ArrowOptions { mapping, ..Default::default() };
        let schema = schema_of_block(block, &opts).unwrap();
        let field = schema.field(0);
        assert_eq!(field.metadata().get("ARROW:extension:name").map(String::as_str), Some("arrow.json"));
        let b = block_to_batch(block.clone(), &schema, &opts).unwrap();
        let col = b.column(0);
        let values: Vec<String> = match mapping {
            Mapping::Rich => col.as_any().downcast_ref::<LargeStringArray>().unwrap().iter().map(|v| v.unwrap().to_string()).collect(),
            _ => col.as_any().downcast_ref::<StringArray>().unwrap().iter().map(|v| v.unwrap().to_string()).collect(),
        };
        if out.is_empty() {
            out = values;
        } else {
            assert_eq!(out, values);
        }
    }
    out
}

#[test]
fn dynamic_values_get_their_types_inferred() {
    let text = ["1", "\"x\"", "null", "[1, 2]", "1.5", "true", "18446744073709551615", "-7", "{\"a\":1}"];
    let array: ArrayRef = Arc::new(StringArray::from(text.to_vec()));
    let block = batch_to_block(&batch("d", array), &[("d".to_string(), ty("Dynamic"))]).unwrap();
    let d = block.column("d").unwrap();
    let want = [
        Value::Int(1),
        Value::String(b"x"),
        Value::Null,
        Value::Array(vec![Value::Int(1), Value::Int(2)]),
        Value::Float64(1.5),
        Value::Bool(true),
        Value::UInt(u64::MAX),
        Value::Int(-7),
        Value::Map(vec![(Value::String(b"a"), Value::Int(1))]),
    ];
    for (row, w) in want.iter().enumerate() {
        assert_eq!(&d.value(row), w, "row {row}");
    }
    // Back to JSON text as ClickHouse renders those values.
    assert_eq!(texts(&block), ["1", "\"x\"", "null", "[1,2]", "1.5", "true", "18446744073709551615", "-7", "{\"a\":1}"]);
}

/// Arrays and objects are typed by the core's rule for a host language's lists and maps (the
/// one Node's and Elixir's values follow); what it gives no type, or what a JSON number cannot
/// hold exactly, stays the String of its text.
#[test]
fn dynamic_arrays_and_objects_take_the_cores_types() {
    let text = ["[1, \"a\"]", "[1, null]", "{\"a\": [1.5], \"b\": null}", "{}", "[18446744073709551616]", "[]", "{\"a\": 1, \"b\": \"x\"}"];
    let array: ArrayRef = Arc::new(StringArray::from(text.to_vec()));
    let block = batch_to_block(&batch("d", array), &[("d".to_string(), ty("Dynamic"))]).unwrap();
    let d = block.column("d").unwrap();
    let chwire_proto::ColumnData::Dynamic(dc) = d.data() else { panic!("not a Dynamic column") };
    let mut types: Vec<String> = dc.types.iter().map(|t| t.to_string()).collect();
    types.sort();
    assert_eq!(
        types,
        ["Array(Dynamic)", "Array(Int128)", "Array(Nothing)", "Array(Nullable(Int64))", "Map(String, Dynamic)", "String", "String"]
    );
    assert_eq!(d.value(3), Value::String(b"{}"));
    assert_eq!(d.value(4), Value::Array(vec![Value::Int128(18446744073709551616)]));
    assert_eq!(d.value(1), Value::Array(vec![Value::Int(1), Value::Null]));
}

#[test]
fn dynamic_numbers_keep_every_digit_and_sign() {
    let text =
        ["-0", "-9223372036854775809", "340282366920938463463374607431768211455", "1e400", "123456789012345678901234567890123456789012"];
    let array: ArrayRef = Arc::new(StringArray::from(text.to_vec()));
    let block = batch_to_block(&batch("d", array), &[("d".to_string(), ty("Dynamic(max_types=2)"))]).unwrap();
    let d = block.column("d").unwrap();
    assert!(matches!(d.value(0), Value::Float64(f) if f == 0.0 && f.is_sign_negative()));
    assert_eq!(d.value(1), Value::Int128(-9223372036854775809));
    // Beyond max_types: in the shared variant, binary-encoded, decoded back exactly.
    assert_eq!(d.value(2), Value::UInt128(u128::MAX));
    assert_eq!(d.value(3), Value::String(b"1e400"));
    assert_eq!(d.value(4), Value::String(b"123456789012345678901234567890123456789012"));
    for bad in ["+1", "007", ".5", "1.", "0x10", "\u{a0}1"] {
        let array: ArrayRef = Arc::new(StringArray::from(vec![bad]));
        assert!(batch_to_block(&batch("d", array), &[("d".to_string(), ty("Dynamic"))]).is_err(), "{bad}");
    }
}

#[test]
fn dynamic_types_beyond_max_types_go_to_the_shared_variant() {
    let array: ArrayRef = Arc::new(StringArray::from(vec![Some("1"), Some("\"x\""), None, Some("2.5"), Some("2")]));
    for target in ["Dynamic(max_types=1)", "Dynamic(max_types=0)"] {
        let block = batch_to_block(&batch("d", array.clone()), &[("d".to_string(), ty(target))]).unwrap();
        let d = block.column("d").unwrap();
        let got: Vec<Value> = (0..5).map(|r| d.value(r)).collect();
        assert_eq!(got, [Value::Int(1), Value::String(b"x"), Value::Null, Value::Float64(2.5), Value::Int(2)], "{target}");
        // The block encodes and decodes as ClickHouse's Native (shared values included).
        let mut wire = Vec::new();
        chwire_proto::native::encode_block(&block, &mut wire);
        let again = chwire_proto::native::decode_block(&mut chwire_proto::wire::Reader::new(&wire)).unwrap();
        assert_eq!(again.column("d").unwrap().value(3), Value::Float64(2.5));
        assert_eq!(texts(&block), ["1", "\"x\"", "null", "2.5", "2"]);
    }
}

#[test]
fn json_columns_keep_their_text_and_must_be_objects() {
    let array: ArrayRef = Arc::new(StringArray::from(vec!["{\"a\":{\"b\":[1,2]}}", " {} "]));
    let block = batch_to_block(&batch("j", array), &[("j".to_string(), ty("JSON"))]).unwrap();
    assert_eq!(block.column("j").unwrap().value(0), Value::JsonText(b"{\"a\":{\"b\":[1,2]}}"));
    assert_eq!(texts(&block), ["{\"a\":{\"b\":[1,2]}}", " {} "]);
    for bad in ["[1]", "{\"a\":", "1"] {
        let array: ArrayRef = Arc::new(StringArray::from(vec!["{}", bad]));
        let err = batch_to_block(&batch("j", array), &[("j".to_string(), ty("JSON"))]).unwrap_err().to_string();
        assert!(err.contains("column j") && err.contains("row 1"), "{bad}: {err}");
    }
    let array: ArrayRef = Arc::new(StringArray::from(vec!["1", "nope"]));
    let err = batch_to_block(&batch("d", array), &[("d".to_string(), ty("Dynamic"))]).unwrap_err().to_string();
    assert!(err.contains("column d") && err.contains("row 1"), "{err}");
}

/// Found by the `arrow_round_trip` fuzz target (CI's smoke slice): a Native JSON column in its
/// STRING serialization holding text that is not JSON went into the `arrow.json` array as it
/// was, and chwire could not read its own batch back. It is an error naming the row now.
#[test]
fn json_text_that_is_not_json_is_an_error_on_the_way_out() {
    use chwire_proto::column::decode_column;
    use chwire_proto::wire::Reader;
    let json = ty("JSON");
    // Version 1 (STRING serialization), then two rows of text: `{}` and an empty string.
    let wire = b"\x01\0\0\0\0\0\0\0\x02{}\x00";
    let data = decode_column(&json, 2, &mut Reader::new(wire)).unwrap();
    let block = Block::new().with("j", chwire_proto::Column::new(json, data).unwrap()).unwrap();
    for mapping in [Mapping::Rich, Mapping::ClickHouse] {
        let opts = ArrowOptions { mapping, ..Default::default() };
        let schema = schema_of_block(&block, &opts).unwrap();
        let err = block_to_batch(block.clone(), &schema, &opts).unwrap_err().to_string();
        assert!(err.contains("column j") && err.contains("row 1") && err.contains("not JSON"), "{err}");
    }
}

/// Text with the `arrow.json` extension (Parquet's JSON logical type) is a JSON column when
/// read from Parquet, at any depth, and String otherwise: what ClickHouse 26.9 infers for
/// each format (`DESCRIBE file(…)` of its own Parquet and of pyarrow's Arrow files).
#[test]
fn json_text_is_inferred_as_json_from_parquet_only() {
    use arrow_schema::DataType as A;
    use chwire_arrow::{clickhouse_type_for, clickhouse_type_for_parquet};
    use std::collections::HashMap;
    let json = |name: &str, nullable: bool| {
        Field::new(name, A::Utf8, nullable).with_metadata(HashMap::from([("ARROW:extension:name".to_string(), "arrow.json".to_string())]))
    };
    let list = Field::new("l", A::List(Arc::new(json("element", false))), false);
    let tuple = Field::new("t", A::Struct(vec![json("1", false), Field::new("2", A::UInt8, false)].into()), false);
    let entries = Field::new("key_value", A::Struct(vec![Field::new("key", A::Utf8, false), json("value", false)].into()), false);
    let map = Field::new("m", A::Map(Arc::new(entries), false), false);
    let cases = [
        (json("j", false), "JSON", "String"),
        (json("nj", true), "Nullable(JSON)", "Nullable(String)"),
        (Field::new("s", A::Utf8, false), "String", "String"),
        (list, "Array(JSON)", "Array(String)"),
        (tuple, "Tuple(`1` JSON, `2` UInt8)", "Tuple(`1` String, `2` UInt8)"),
        (map, "Map(String, JSON)", "Map(String, String)"),
    ];
    for (field, parquet, arrow) in cases {
        assert_eq!(clickhouse_type_for_parquet(&field).unwrap(), ty(parquet), "{field}");
        assert_eq!(clickhouse_type_for(&field).unwrap(), ty(arrow), "{field}");
    }
    // The JSON text converts into the JSON column.
    let field = json("j", true);
    let array: ArrayRef = Arc::new(StringArray::from(vec![Some(r#"{"a":1}"#), None]));
    let b = RecordBatch::try_new(Arc::new(Schema::new(vec![field.clone()])), vec![array]).unwrap();
    let target = vec![("j".to_string(), clickhouse_type_for_parquet(&field).unwrap())];
    let block = batch_to_block(&b, &target).unwrap();
    assert_eq!(block.column("j").unwrap().data_type(), &ty("Nullable(JSON)"));
    assert_eq!(block.rows(), 2);
}

/// Arrays and objects beyond `max_types` go to the shared variant as the String of their text.
#[test]
fn dynamic_arrays_beyond_max_types_are_their_text_in_the_shared_variant() {
    let array: ArrayRef = Arc::new(StringArray::from(vec!["1", "[1, 2]", "{\"a\": 1}"]));
    let block = batch_to_block(&batch("d", array), &[("d".to_string(), ty("Dynamic(max_types=1)"))]).unwrap();
    let d = block.column("d").unwrap();
    assert_eq!(d.value(0), Value::Int(1));
    assert_eq!(d.value(1), Value::String(b"[1, 2]"));
    assert_eq!(d.value(2), Value::String(b"{\"a\": 1}"));
}

/// Members keep their order and duplicate keys; numbers inside arrays and objects read exactly
/// as top-level ones (no double rounding, no float taken for an integer).
#[test]
fn dynamic_members_keep_order_duplicates_and_every_digit() {
    let text = ["[935711.6851572259]", "{\"b\": 1, \"a\": 2, \"a\": 3}", "[1e400]", "[1e16, 2.5]", "[-0]"];
    let array: ArrayRef = Arc::new(StringArray::from(text.to_vec()));
    let block = batch_to_block(&batch("d", array), &[("d".to_string(), ty("Dynamic"))]).unwrap();
    let d = block.column("d").unwrap();
    assert_eq!(d.value(0), Value::Array(vec![Value::Float64(935711.6851572259)]));
    let s = |t: &'static str| Value::String(t.as_bytes());
    assert_eq!(d.value(1), Value::Map(vec![(s("b"), Value::Int(1)), (s("a"), Value::Int(2)), (s("a"), Value::Int(3))]));
    assert_eq!(d.value(2), Value::Array(vec![s("1e400")]));
    assert_eq!(d.value(3), Value::Array(vec![Value::Float64(1e16), Value::Float64(2.5)]));
    assert!(matches!(d.value(4), Value::Array(ref v) if matches!(v[0], Value::Float64(f) if f == 0.0 && f.is_sign_negative())));
    // Deeper than 64 levels: the text.
    let deep = format!("{}1{}", "[".repeat(80), "]".repeat(80));
    let array: ArrayRef = Arc::new(StringArray::from(vec![deep.as_str()]));
    let block = batch_to_block(&batch("d", array), &[("d".to_string(), ty("Dynamic"))]).unwrap();
    assert_eq!(block.column("d").unwrap().value(0), Value::String(deep.as_bytes()));
}
