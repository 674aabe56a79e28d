use super::dynamic::{DYNAMIC_FLATTENED, DYNAMIC_V2};
use super::json::JSON_V2;
use super::sparse::END_OF_GRANULE_FLAG;
use super::*;
use crate::column::{NullableColumn, StringColumn};

#[cfg(test)]
mod basic_tests {
    use super::*;

    fn round_trip(ty: &str, data: ColumnData, wire: &[u8]) {
        let ty = DataType::parse(ty).unwrap();
        data.check(&ty).unwrap();
        let mut out = Vec::new();
        encode_column(&data, &mut out);
        assert_eq!(out, wire, "encoding of {ty}");
        let rows = data.len();
        let mut r = Reader::new(wire);
        assert_eq!(decode_column(&ty, rows, &mut r).unwrap(), data, "decoding of {ty}");
        assert!(r.is_empty());
        // Every strict prefix is incomplete, never an error or a panic.
        for cut in 0..wire.len() {
            let mut r = Reader::new(&wire[..cut]);
            match decode_column(&ty, rows, &mut r) {
                Err(ReadError::Incomplete { needed }) => assert!(needed > cut),
                other => panic!("{ty} cut at {cut}: {other:?}"),
            }
        }
    }

    #[test]
    fn fixed_width() {
        round_trip("UInt64", ColumnData::UInt64(vec![1, u64::MAX]), &[1, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255]);
        round_trip("Int16", ColumnData::Int16(vec![-2, 3]), &[0xfe, 0xff, 3, 0]);
        round_trip("Float32", ColumnData::Float32(vec![1.0]), &[0, 0, 0x80, 0x3f]);
        round_trip("FixedString(2)", ColumnData::Fixed { width: 2, data: b"abc\0".to_vec() }, b"abc\0");
    }

    #[test]
    fn strings_nullable_arrays() {
        let s: StringColumn = ["ab", "c", ""].into_iter().collect();
        round_trip("String", ColumnData::String(s.clone()), b"\x02ab\x01c\x00");
        round_trip(
            "Nullable(String)",
            ColumnData::Nullable(Box::new(NullableColumn { nulls: vec![0, 1, 0], values: ColumnData::String(s) })),
            b"\x00\x01\x00\x02ab\x01c\x00",
        );
        round_trip(
            "Array(UInt8)",
            ColumnData::Array(Box::new(ArrayColumn { offsets: vec![0, 2, 2, 3], values: ColumnData::UInt8(vec![7, 8, 9]) })),
            &[2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 7, 8, 9],
        );
    }

    #[test]
    fn strings_with_overlong_length_prefixes() {
        // "ab" with a 2-byte length prefix, then "c" with a minimal one.
        let wire = b"\x82\x00ab\x01c";
        let got = decode_column(&DataType::String, 2, &mut Reader::new(wire)).unwrap();
        assert_eq!(got, ColumnData::String(["ab", "c"].into_iter().collect()));
    }

    #[test]
    fn decreasing_array_offsets_are_an_error() {
        let wire = [3u8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7, 8, 9];
        let ty = DataType::parse("Array(UInt8)").unwrap();
        assert!(matches!(decode_column(&ty, 2, &mut Reader::new(&wire)), Err(ReadError::Invalid(_))));
    }

    #[test]
    fn huge_row_counts_do_not_allocate() {
        let ty = DataType::parse("Array(String)").unwrap();
        // Claims 2^60 elements: above the array length limit, an error before allocating.
        let mut wire = Vec::new();
        wire.put_u64_le(1 << 60);
        match decode_column(&ty, 1, &mut Reader::new(&wire)) {
            Err(ReadError::Invalid(crate::DecodeError::LimitExceeded { what: "array elements", .. })) => {}
            other => panic!("{other:?}"),
        }
        // 2^30 elements (the limit) must ask for more bytes (the caller caps), not allocate.
        let mut wire = Vec::new();
        wire.put_u64_le(1 << 30);
        match decode_column(&ty, 1, &mut Reader::new(&wire)) {
            Err(ReadError::Incomplete { .. }) => {}
            other => panic!("{other:?}"),
        }
        assert!(matches!(decode_column(&DataType::UInt64, usize::MAX / 2, &mut Reader::new(&wire)), Err(ReadError::Invalid(_))));
    }

    #[test]
    fn sparse_columns_expand() {
        // rows: 0, 5, 0, 0, 7, 0 -> offsets: 1 default then value, 2 defaults then value, 1 trailing.
        let mut wire = Vec::new();
        wire.put_varuint(1);
        wire.put_varuint(2);
        wire.put_varuint(1 | END_OF_GRANULE_FLAG);
        wire.extend_from_slice(&5u32.to_le_bytes());
        wire.extend_from_slice(&7u32.to_le_bytes());
        let got = decode_sparse(&DataType::UInt32, 6, &mut Reader::new(&wire)).unwrap();
        assert_eq!(got, ColumnData::UInt32(vec![0, 5, 0, 0, 7, 0]));

        let mut wire = Vec::new();
        wire.put_varuint(2);
        wire.put_varuint(END_OF_GRANULE_FLAG);
        wire.put_str("x");
        let got = decode_sparse(&DataType::String, 3, &mut Reader::new(&wire)).unwrap();
        assert_eq!(got, ColumnData::String(["", "", "x"].into_iter().collect()));
    }

    #[test]
    fn sparse_bad_offsets_are_errors() {
        for stream in [vec![7u64 | END_OF_GRANULE_FLAG], vec![1, 1, 1, 1, END_OF_GRANULE_FLAG], vec![9]] {
            let mut wire = Vec::new();
            for v in stream {
                wire.put_varuint(v);
            }
            wire.extend_from_slice(&[0u8; 64]);
            let res = decode_sparse(&DataType::UInt32, 3, &mut Reader::new(&wire));
            assert!(matches!(res, Err(ReadError::Invalid(_))), "{res:?}");
        }
    }
}

#[cfg(test)]
mod composite_tests {
    use super::*;
    use crate::column::Value;

    fn round_trip(ty: &str, rows: usize, wire: &[u8]) -> ColumnData {
        let ty = DataType::parse(ty).unwrap();
        let mut r = Reader::new(wire);
        let data = decode_column(&ty, rows, &mut r).unwrap();
        assert!(r.is_empty(), "{ty}: {} bytes left", r.remaining());
        data.check(&ty).unwrap();
        let mut out = Vec::new();
        encode_column_of(&ty, &data, &mut out);
        assert_eq!(out, wire, "re-encoding {ty}");
        for cut in 0..wire.len() {
            assert!(
                matches!(decode_column(&ty, rows, &mut Reader::new(&wire[..cut])), Err(ReadError::Incomplete { .. })),
                "{ty} cut at {cut}"
            );
        }
        data
    }

    #[test]
    fn variant_basic_mode() {
        // Variant(String, UInt64): rows "a", NULL, 7, "b".
        let mut w = Vec::new();
        w.put_u64_le(0); // mode
        w.extend_from_slice(&[0, 255, 1, 0]); // discriminators
        w.extend_from_slice(b"\x01a\x01b"); // String rows
        w.put_u64_le(7); // UInt64 rows
        let data = round_trip("Variant(String, UInt64)", 4, &w);
        let ty = DataType::parse("Variant(String, UInt64)").unwrap();
        let col = crate::Column::new(ty, data).unwrap();
        assert_eq!(
            (0..4).map(|i| col.value(i)).collect::<Vec<_>>(),
            [Value::String(b"a"), Value::Null, Value::UInt(7), Value::String(b"b")]
        );
        // A discriminator beyond the types is an error.
        let mut bad = w.clone();
        bad[8] = 5;
        assert!(matches!(
            decode_column(&DataType::parse("Variant(String, UInt64)").unwrap(), 4, &mut Reader::new(&bad)),
            Err(ReadError::Invalid(_))
        ));
    }

    #[test]
    fn low_cardinality_in_array_has_its_prefix_first() {
        // Array(LowCardinality(String)), rows ["x", "y"], ["x"]: key version, offsets, LC body.
        let mut w = Vec::new();
        w.put_u64_le(1);
        w.put_u64_le(2);
        w.put_u64_le(3);
        w.put_u64_le(0x600); // UInt8 keys, additional keys, update dictionary
        w.put_u64_le(3);
        w.extend_from_slice(b"\x00\x01x\x01y");
        w.put_u64_le(3);
        w.extend_from_slice(&[1, 2, 1]);
        let data = round_trip("Array(LowCardinality(String))", 2, &w);
        let col = crate::Column::new(DataType::parse("Array(LowCardinality(String))").unwrap(), data).unwrap();
        assert_eq!(col.value(0), Value::Array(vec![Value::String(b"x"), Value::String(b"y")]));
        // An index outside the dictionary is an error.
        let mut bad = w.clone();
        let n = bad.len();
        bad[n - 1] = 9;
        assert!(matches!(
            decode_column(&DataType::parse("Array(LowCardinality(String))").unwrap(), 2, &mut Reader::new(&bad)),
            Err(ReadError::Invalid(_))
        ));
    }

    #[test]
    fn map_and_tuple() {
        // Map(String, UInt8): {"a":1,"b":2}, {}: offsets, keys, values.
        let mut w = Vec::new();
        w.put_u64_le(2);
        w.put_u64_le(2);
        w.extend_from_slice(b"\x01a\x01b");
        w.extend_from_slice(&[1, 2]);
        let data = round_trip("Map(String, UInt8)", 2, &w);
        let col = crate::Column::new(DataType::parse("Map(String, UInt8)").unwrap(), data).unwrap();
        assert_eq!(col.value(0), Value::Map(vec![(Value::String(b"a"), Value::UInt(1)), (Value::String(b"b"), Value::UInt(2))]));
        assert_eq!(col.value(1), Value::Map(vec![]));
        // Tuple(a UInt8, b String): each element's whole column in turn.
        let data = round_trip("Tuple(a UInt8, b String)", 2, b"\x05\x06\x01p\x00");
        let col = crate::Column::new(DataType::parse("Tuple(a UInt8, b String)").unwrap(), data).unwrap();
        assert_eq!(col.value(1), Value::Tuple(vec![(Some("a"), Value::UInt(6)), (Some("b"), Value::String(b""))]));
    }
}

#[cfg(test)]
mod new_type_tests {
    use super::*;
    use crate::column::Value;

    /// Decode, re-encode byte for byte, and every strict prefix is "incomplete".
    fn round_trip(ty: &str, rows: usize, wire: &[u8]) -> crate::Column {
        let ty = DataType::parse(ty).unwrap();
        let data = decode_column(&ty, rows, &mut Reader::new(wire)).unwrap();
        let mut out = Vec::new();
        encode_column_of(&ty, &data, &mut out);
        assert_eq!(out, wire, "re-encoding {ty}");
        for cut in 0..wire.len() {
            assert!(
                matches!(decode_column(&ty, rows, &mut Reader::new(&wire[..cut])), Err(ReadError::Incomplete { .. })),
                "{ty} cut at {cut}"
            );
        }
        crate::Column::new(ty, data).unwrap()
    }

    #[test]
    fn aggregate_states_are_carried_unchanged() {
        // avg(UInt64) states of two groups, then a count column.
        let mut w = Vec::new();
        w.extend_from_slice(&18u64.to_le_bytes());
        w.push(4);
        w.extend_from_slice(&12u64.to_le_bytes());
        w.push(3);
        let col = round_trip("AggregateFunction(avg, UInt64)", 2, &w);
        assert_eq!(col.value(1), Value::AggregateState(&w[9..]));
        // A built column must hold whole states.
        let ty = DataType::parse("AggregateFunction(count)").unwrap();
        let ok: StringColumn = [&[3u8][..], &[0x80, 1]].into_iter().collect();
        assert!(crate::Column::new(ty.clone(), ColumnData::AggregateState(ok)).is_ok());
        let bad: StringColumn = [&[3u8, 3][..]].into_iter().collect();
        assert!(crate::Column::new(ty, ColumnData::AggregateState(bad)).is_err());
    }

    #[test]
    fn qbit_and_geometry() {
        // QBit(Float32, 3): 32 one-byte planes; [1, 2, 3].
        let mut w = vec![0u8; 32];
        w[1] = 0x06;
        w[2..9].fill(0x01);
        w[9] = 0x04;
        let col = round_trip("QBit(Float32, 3)", 1, &w);
        assert_eq!(col.value(0), Value::QBit(vec![Value::Float32(1.), Value::Float32(2.), Value::Float32(3.)]));
        // Geometry: Variant prefix, discriminators (Point = 3, NULL), the Point column.
        let mut w = vec![0u8; 8];
        w.extend_from_slice(&[3, 255]);
        w.extend_from_slice(&1f64.to_le_bytes());
        w.extend_from_slice(&2f64.to_le_bytes());
        let col = round_trip("Geometry", 2, &w);
        assert_eq!(col.value(0), Value::Tuple(vec![(None, Value::Float64(1.)), (None, Value::Float64(2.))]));
        assert_eq!(col.value(1), Value::Null);
        // MultiPoint is discriminator 6.
        let mut bad = w.clone();
        bad[8] = 7;
        assert!(matches!(decode_column(&DataType::Geometry, 2, &mut Reader::new(&bad)), Err(ReadError::Invalid(_))));
    }

    #[test]
    fn json_shared_data_decodes() {
        // JSON(max_dynamic_paths=0), version 2: no dynamic paths; shared data of two rows:
        // {"a": 1, "b": "x"}, {}.
        let mut w = Vec::new();
        w.put_u64_le(JSON_V2);
        w.put_varuint(0);
        w.put_u64_le(2); // array offsets
        w.put_u64_le(2);
        w.put_str("a");
        w.put_str("b");
        let mut one = vec![0x0a];
        one.extend_from_slice(&1i64.to_le_bytes());
        w.put_str(&one);
        w.put_str(b"\x15\x01x");
        let col = round_trip("JSON(max_dynamic_paths=0)", 2, &w);
        assert_eq!(col.value(0), Value::Json(vec![("a", Value::Int(1)), ("b", Value::String(b"x"))]));
        assert_eq!(col.value(1), Value::Json(vec![]));
        // A shared value that is not one whole binary value is malformed, not a panic.
        let mut bad = w.clone();
        let n = bad.len();
        bad[n - 3] = 0x0a; // Int64, with only two bytes of value
        assert!(matches!(
            decode_column(&DataType::parse("JSON(max_dynamic_paths=0)").unwrap(), 2, &mut Reader::new(&bad)),
            Err(ReadError::Invalid(_))
        ));
    }
}

#[cfg(test)]
mod dynamic_tests {
    use super::*;
    use crate::column::Value;

    fn check(ty: &str, rows: usize, wire: &[u8]) -> crate::Column {
        let ty = DataType::parse(ty).unwrap();
        let data = decode_column(&ty, rows, &mut Reader::new(wire)).unwrap();
        let mut out = Vec::new();
        encode_column_of(&ty, &data, &mut out);
        assert_eq!(out, wire, "re-encoding {ty}");
        crate::Column::new(ty, data).unwrap()
    }

    #[test]
    fn dynamic_v2_and_flattened() {
        // V2: types [Int64, String] + SharedVariant, sorted: Int64, SharedVariant, String.
        let mut w = Vec::new();
        w.put_u64_le(DYNAMIC_V2);
        w.put_varuint(2);
        w.put_str("Int64");
        w.put_str("String");
        w.put_u64_le(0); // variant mode
        w.extend_from_slice(&[0, 2, 255]); // 5, "x", NULL
        w.extend_from_slice(&5i64.to_le_bytes());
        w.put_str("x");
        let col = check("Dynamic", 3, &w);
        assert_eq!((0..3).map(|i| col.value(i)).collect::<Vec<_>>(), [Value::Int(5), Value::String(b"x"), Value::Null]);

        // Array(Dynamic): the structure comes before the array offsets.
        let mut w = Vec::new();
        w.put_u64_le(DYNAMIC_V2);
        w.put_varuint(1);
        w.put_str("UInt8");
        w.put_u64_le(0);
        w.put_u64_le(2); // offsets: one row of two elements
        w.extend_from_slice(&[1, 1]); // discriminators: SharedVariant=0, UInt8=1
        w.extend_from_slice(&[7, 8]);
        let col = check("Array(Dynamic)", 1, &w);
        assert_eq!(col.value(0), Value::Array(vec![Value::UInt(7), Value::UInt(8)]));

        // FLATTENED: types [String, UInt64]; indexes 1, 2 (NULL), 0.
        let mut w = Vec::new();
        w.put_u64_le(DYNAMIC_FLATTENED);
        w.put_varuint(2);
        w.put_str("String");
        w.put_str("UInt64");
        w.extend_from_slice(&[1, 2, 0]);
        w.put_str("s");
        w.put_u64_le(9);
        let col = check("Dynamic", 3, &w);
        assert_eq!((0..3).map(|i| col.value(i)).collect::<Vec<_>>(), [Value::UInt(9), Value::Null, Value::String(b"s")]);
    }

    #[test]
    fn shared_variant_values_decode() {
        // No types of its own: every row in SharedVariant (discriminator 0), as binary type +
        // value: Int64 5, then String "x".
        let mut w = Vec::new();
        w.put_u64_le(DYNAMIC_V2);
        w.put_varuint(0);
        w.put_u64_le(0);
        w.extend_from_slice(&[0, 255, 0]);
        let mut int = vec![0x0a];
        int.extend_from_slice(&5i64.to_le_bytes());
        w.put_str(&int);
        w.put_str(b"\x15\x01x");
        let col = check("Dynamic", 3, &w);
        assert_eq!((0..3).map(|i| col.value(i)).collect::<Vec<_>>(), [Value::Int(5), Value::Null, Value::String(b"x")]);
        // A value cut short, or with bytes after it, is malformed.
        for bad in [&b"\x0a\x01"[..], b"\x01\x01\x02"] {
            let mut w = Vec::new();
            w.put_u64_le(DYNAMIC_V2);
            w.put_varuint(0);
            w.put_u64_le(0);
            w.push(0);
            w.put_str(bad);
            assert!(matches!(
                decode_column(&DataType::parse("Dynamic").unwrap(), 1, &mut Reader::new(&w)),
                Err(ReadError::Invalid(DecodeError::Malformed { .. }))
            ));
        }
    }
}

#[cfg(test)]
mod sparse_limit_tests {
    use super::*;
    use crate::wire::WriteExt;

    #[test]
    fn sparse_defaults_of_a_huge_fixed_string_are_a_limit_error() {
        // Found by reading: a sparse FixedString(2^40) column of 1000 rows, all defaults,
        // takes 9 bytes on the wire and once asked for 1000 * 2^40 bytes of defaults.
        let ty = DataType::parse("FixedString(1099511627776)").unwrap();
        let mut wire = Vec::new();
        wire.put_varuint(1000 | super::super::sparse::END_OF_GRANULE_FLAG);
        match decode_sparse(&ty, 1000, &mut Reader::new(&wire)) {
            Err(ReadError::Invalid(crate::DecodeError::LimitExceeded {
                what: "bytes of an expanded sparse or replicated column", ..
            })) => {}
            other => panic!("{other:?}"),
        }
        // Within the limit the defaults are there.
        let ty = DataType::parse("FixedString(2)").unwrap();
        let got = decode_sparse(&ty, 1000, &mut Reader::new(&wire)).unwrap();
        assert_eq!(got, ColumnData::Fixed { width: 2, data: vec![0; 2000] });
    }
}
