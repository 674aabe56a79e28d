//! ClickHouse's binary encoding of data types (`DataTypesBinaryEncoding`) and of single values
//! (each type's `serializeBinary`, the form RowBinary uses). Values whose type has no column of
//! their own are kept this way — type, then value — in Dynamic's `SharedVariant` (types beyond
//! `max_types`) and in JSON's shared data (paths beyond `max_dynamic_paths`);
//! [`BinaryValues`] decodes them into ordinary columns, one per type.

mod types;
mod values;

pub use types::{decode_type, encode_type};
pub(crate) use values::{read_value, skip_value};

use super::{ColumnData, StringColumn, Value};
use crate::error::{DecodeError, ReadError};
use crate::limits::Limits;
use crate::types::DataType;
use crate::wire::Reader;
use std::collections::HashMap;

fn malformed(detail: impl Into<String>) -> ReadError {
    DecodeError::malformed("binary-encoded value", detail).into()
}

/// Values kept binary-encoded, each as its type followed by the value, decoded: one column per
/// distinct type, and for each value its type and row. (The encoded bytes stay where they
/// came from and are what gets re-encoded.)
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BinaryValues {
    types: Vec<DataType>,
    columns: Vec<ColumnData>,
    /// Per value: index into `types` ([`BinaryValues::NULL`]: a NULL) and row in its column.
    index: Vec<(u32, u32)>,
}

impl BinaryValues {
    const NULL: u32 = u32::MAX;

    /// Decode every value of `encoded` (type + value each; type `Nothing` is NULL).
    pub fn decode(encoded: &StringColumn) -> Result<BinaryValues, DecodeError> {
        Self::decode_limited(encoded, &Limits::DEFAULT)
    }

    /// [`BinaryValues::decode`] with the given limits.
    #[cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]
    pub fn decode_limited(encoded: &StringColumn, limits: &Limits) -> Result<BinaryValues, DecodeError> {
        let mut out = BinaryValues::default();
        let mut known: HashMap<DataType, u32> = HashMap::new();
        for (i, v) in encoded.iter().enumerate() {
            let complete = |e: ReadError| match e {
                ReadError::Incomplete { .. } => DecodeError::malformed("binary-encoded value", format!("value {i} is truncated")),
                ReadError::Invalid(e) => e,
            };
            let mut r = Reader::with_limits(v, *limits);
            let ty = decode_type(&mut r).map_err(complete)?;
            if ty == DataType::Nothing {
                out.index.push((Self::NULL, 0));
            } else {
                let t = match known.get(&ty) {
                    Some(&t) => t,
                    None => {
                        let col = ColumnData::empty_for(&ty).map_err(|_| DecodeError::UnsupportedType(ty.to_string()))?;
                        let t = out.types.len() as u32;
                        out.types.push(ty.clone());
                        out.columns.push(col);
                        known.insert(ty, t);
                        t
                    }
                };
                let (Some(ty), Some(col)) = (out.types.get(t as usize), out.columns.get_mut(t as usize)) else {
                    return Err(DecodeError::malformed("binary-encoded value", "type index outside the decoded types"));
                };
                let row = col.len() as u32;
                read_value(ty, &mut r, col, 0).map_err(complete)?;
                out.index.push((t, row));
            }
            if !r.is_empty() {
                return Err(DecodeError::malformed("binary-encoded value", format!("{} bytes after value {i}", r.remaining())));
            }
        }
        Ok(out)
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The type of value `i` (`None` for NULL). Panics if `i >= len()`.
    pub fn data_type(&self, i: usize) -> Option<&DataType> {
        self.types.get(self.index[i].0 as usize)
    }

    /// Value `i`. Panics if `i >= len()`.
    pub fn value(&self, i: usize) -> Value<'_> {
        match self.index[i] {
            (Self::NULL, _) => Value::Null,
            (t, row) => Value::at(&self.types[t as usize], &self.columns[t as usize], row as usize),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(bytes: &[u8]) -> Result<BinaryValues, DecodeError> {
        BinaryValues::decode(&[bytes].into_iter().collect())
    }

    #[test]
    fn types_round_trip() {
        for name in [
            "UInt8",
            "Nullable(String)",
            "Array(Nullable(Int64))",
            "DateTime('Asia/Tokyo')",
            "DateTime64(3)",
            "DateTime64(6, 'UTC')",
            "Enum8('a' = 1, 'b' = 2)",
            "Enum16('x' = -1000)",
            "Decimal(9, 2)",
            "Decimal(76, 10)",
            "Tuple(a UInt8, b String)",
            "Tuple(UInt8, String)",
            "Map(String, Array(UInt32))",
            "LowCardinality(Nullable(String))",
            "Variant(String, UInt64)",
            "Dynamic",
            "Dynamic(max_types=3)",
            "JSON",
            "JSON(max_dynamic_paths=0, max_dynamic_types=16)",
            "JSON(a UInt32)",
            "JSON(max_dynamic_paths=2, `a.b` UInt32, s String, SKIP `skip.me`, SKIP x, SKIP REGEXP '^re', SKIP REGEXP 'a\\'b')",
            "IntervalYear",
            "Nested(x UInt8, y String)",
            "SimpleAggregateFunction(sum, UInt64)",
            "AggregateFunction(sum, UInt64)",
            "QBit(Float32, 2)",
            "Point",
            "Geometry",
            "Time64(3)",
            "BFloat16",
            "UUID",
            "IPv6",
        ] {
            let ty = DataType::parse(name).unwrap();
            let mut out = Vec::new();
            encode_type(&ty, &mut out);
            let mut r = Reader::new(&out);
            assert_eq!(decode_type(&mut r).unwrap(), ty, "{name}");
            assert!(r.is_empty());
        }
    }

    #[test]
    fn enums_the_server_refuses_are_malformed() {
        // Enum8('a' = 1, 'b' = 1), Enum16('a' = 1, 'a' = 2), Enum8 with no element.
        for (bytes, says) in [
            (&[0x17, 2, 1, b'a', 1, 1, b'b', 1][..], "duplicate values"),
            (&[0x18, 2, 1, b'a', 1, 0, 1, b'a', 2, 0][..], "duplicate names"),
            (&[0x17, 0][..], "cannot be empty"),
        ] {
            let e = decode_type(&mut Reader::new(bytes)).unwrap_err();
            assert!(format!("{e:?}").contains(says), "{e:?}");
        }
    }

    #[test]
    fn values_as_clickhouse_26_9_writes_them() {
        // Array(Nullable(Int64)) [1, 2, NULL]
        let v = one(&[0x1e, 0x23, 0x0a, 3, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1]).unwrap();
        assert_eq!(v.value(0), Value::Array(vec![Value::Int(1), Value::Int(2), Value::Null]));
        // Array(JSON(max_dynamic_paths=0, max_dynamic_types=16)) [{"x":1},{"y":"z"}]
        let mut w = vec![0x1e, 0x30, 0, 0, 16, 0, 0, 0, 2, 1, 1, b'x', 0x0a];
        w.extend_from_slice(&1i64.to_le_bytes());
        w.extend_from_slice(&[1, 1, b'y', 0x15, 1, b'z']);
        let v = one(&w).unwrap();
        assert_eq!(v.value(0), Value::Array(vec![Value::Json(vec![("x", Value::Int(1))]), Value::Json(vec![("y", Value::String(b"z"))])]));
        // Named tuple, Map, LowCardinality(Nullable(String)) in an array, Enum8, Bool.
        let v = one(&[0x20, 2, 1, b'a', 0x01, 1, b'b', 0x15, 1, 1, b'x']).unwrap();
        assert_eq!(v.value(0), Value::Tuple(vec![(Some("a"), Value::UInt(1)), (Some("b"), Value::String(b"x"))]));
        let v = one(&[0x27, 0x15, 0x01, 1, 1, b'a', 1]).unwrap();
        assert_eq!(v.value(0), Value::Map(vec![(Value::String(b"a"), Value::UInt(1))]));
        let v = one(&[0x1e, 0x26, 0x23, 0x15, 2, 0, 1, b'a', 1]).unwrap();
        assert_eq!(v.value(0), Value::Array(vec![Value::String(b"a"), Value::Null]));
        let v = one(&[0x17, 2, 1, b'a', 1, 1, b'b', 2, 2]).unwrap();
        assert_eq!(v.value(0), Value::Enum("b", 2));
        // Point is a custom type by name; QBit(Float32, 2) [1, 2].
        let mut w = vec![0x2c, 5];
        w.extend_from_slice(b"Point");
        w.extend_from_slice(&1f64.to_le_bytes());
        w.extend_from_slice(&2f64.to_le_bytes());
        assert_eq!(one(&w).unwrap().value(0), Value::Tuple(vec![(None, Value::Float64(1.)), (None, Value::Float64(2.))]));
        let v = one(&[0x36, 0x0d, 2, 2, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]).unwrap();
        assert_eq!(v.value(0), Value::QBit(vec![Value::Float32(1.), Value::Float32(2.)]));
        // AggregateFunction(sum, UInt64) state; Nothing is NULL.
        let v = one(&[0x25, 0, 3, b's', b'u', b'm', 0, 1, 0x04, 1, 0, 0, 0, 0, 0, 0, 0]).unwrap();
        assert_eq!(v.value(0), Value::AggregateState(&[1, 0, 0, 0, 0, 0, 0, 0]));
        assert_eq!(one(&[0x00]).unwrap().value(0), Value::Null);
        // Array(Dynamic): [1, "a"]
        let mut w = vec![0x1e, 0x2b, 32, 2, 0x0a];
        w.extend_from_slice(&1i64.to_le_bytes());
        w.extend_from_slice(&[0x15, 1, b'a']);
        assert_eq!(one(&w).unwrap().value(0), Value::Array(vec![Value::Int(1), Value::String(b"a")]));
    }

    #[test]
    fn bad_values_are_errors_not_panics() {
        for bytes in [
            &[][..],
            &[0x0a, 1, 2],                                                     // Int64 cut short
            &[0x01, 1, 2],                                                     // trailing bytes
            &[0x1e, 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f],                       // huge array
            &[0x33],                                                           // unknown type code
            &[0x16, 0],                                                        // FixedString(0)
            &[0x19, 10, 2],                                                    // Decimal32 with precision 10
            &[0x2a, 1, 0x15, 3, 1, b'a'],                                      // discriminator beyond the variants
            &[0x36, 0x0d, 2, 3, 0, 0, 0, 0],                                   // QBit with the wrong element count
            &[0x30, 1],                                                        // JSON type encoding version 1
            &[0x2c, 3, b'F', b'o', b'o', 0],                                   // unknown custom type
            &[0x25, 0, 5, b'q', b'u', b'a', b'n', b't', 0, 0, 0],              // unknown aggregate function
            &[0x1e; 200],                                                      // types nested too deep
            &[0x30, 0, 0, 32, 0, 0, 0, 2, 1, b'a', 0x01, 1, 1, b'a', 0x01, 2], // a JSON path twice
            &[0x1e, 0x00, 0x80, 0x80, 0x40],                                   // 2^20 values of Nothing
            &[0x1e, 0x1f, 0, 0xff, 0xff, 0x7f],                                // 2^21 empty tuples in 3 bytes
            // Found by fuzzing: an AggregateFunction named "2" with a NULL parameter, which
            // no type name can spell.
            &[0x1f, 0x02, 0x1f, 0x00, 0x25, 0x02, 0x00, 0x01, 0x00, 0x01, 0x01, 0x20, 0x01, 0x31, 0x00, 0x00],
        ] {
            assert!(one(bytes).is_err(), "{bytes:?}");
        }
        // Dynamic values nested in Dynamic values deeper than the limit.
        let mut deep = Vec::new();
        for _ in 0..200 {
            deep.extend_from_slice(&[0x1e, 0x2b, 32, 1]);
        }
        deep.push(0);
        assert!(one(&deep).is_err());
    }
}
