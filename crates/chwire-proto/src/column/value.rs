//! A dynamic view of one value, for schema-free code and text output.

use super::ColumnData;
use crate::types::DataType;

/// One value of a column, borrowed from it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    Null,
    UInt(u64),
    Int(i64),
    Float32(f32),
    Float64(f64),
    Bool(bool),
    /// String bytes (not necessarily UTF-8).
    String(&'a [u8]),
    /// FixedString bytes, zero padding included.
    FixedString(&'a [u8]),
    /// Canonical (RFC 4122 order) UUID bytes.
    Uuid([u8; 16]),
    /// Days since 1970-01-01.
    Date(u16),
    /// Seconds since the epoch, and the column's timezone if it names one.
    DateTime(u32, Option<&'a str>),
    /// Enum element name and value.
    Enum(&'a str, i16),
    Array(Vec<Value<'a>>),
}

/// UUID wire order (two little-endian u64 halves) to canonical bytes.
pub fn uuid_from_wire(w: &[u8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for i in 0..8 {
        out[i] = w[7 - i];
        out[8 + i] = w[15 - i];
    }
    out
}

/// Canonical UUID bytes to wire order (the transformation is its own inverse).
pub fn uuid_to_wire(c: &[u8; 16]) -> [u8; 16] {
    uuid_from_wire(c)
}

impl<'a> Value<'a> {
    pub(crate) fn at(ty: &'a DataType, data: &'a ColumnData, i: usize) -> Value<'a> {
        use ColumnData as D;
        use DataType as T;
        match (ty, data) {
            (T::Bool, D::UInt8(v)) => Value::Bool(v[i] != 0),
            (_, D::UInt8(v)) => Value::UInt(v[i].into()),
            (T::Date, D::UInt16(v)) => Value::Date(v[i]),
            (_, D::UInt16(v)) => Value::UInt(v[i].into()),
            (T::DateTime(tz), D::UInt32(v)) => Value::DateTime(v[i], tz.as_deref()),
            (_, D::UInt32(v)) => Value::UInt(v[i].into()),
            (_, D::UInt64(v)) => Value::UInt(v[i]),
            (T::Enum8(items), D::Int8(v)) => {
                Value::Enum(items.iter().find(|(_, e)| *e == v[i]).map_or("", |(n, _)| n.as_str()), v[i].into())
            }
            (_, D::Int8(v)) => Value::Int(v[i].into()),
            (T::Enum16(items), D::Int16(v)) => Value::Enum(items.iter().find(|(_, e)| *e == v[i]).map_or("", |(n, _)| n.as_str()), v[i]),
            (_, D::Int16(v)) => Value::Int(v[i].into()),
            (_, D::Int32(v)) => Value::Int(v[i].into()),
            (_, D::Int64(v)) => Value::Int(v[i]),
            (_, D::Float32(v)) => Value::Float32(v[i]),
            (_, D::Float64(v)) => Value::Float64(v[i]),
            (T::Uuid, D::Fixed { data, .. }) => Value::Uuid(uuid_from_wire(&data[i * 16..i * 16 + 16])),
            (_, D::Fixed { width, data }) => Value::FixedString(&data[i * width..(i + 1) * width]),
            (_, D::String(s)) => Value::String(s.get(i)),
            (T::Nullable(inner), D::Nullable(n)) => {
                if n.nulls[i] != 0 {
                    Value::Null
                } else {
                    Value::at(inner, &n.values, i)
                }
            }
            (T::Array(inner), D::Array(a)) => Value::Array(a.range(i).map(|j| Value::at(inner, &a.values, j)).collect()),
            // Column construction guarantees type and storage agree.
            _ => unreachable!("column storage does not match its type {ty}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_wire_order() {
        // 61f0c404-5cb3-11e7-907b-a6006ad3dba0 as ClickHouse writes it.
        let canonical: [u8; 16] = [0x61, 0xf0, 0xc4, 0x04, 0x5c, 0xb3, 0x11, 0xe7, 0x90, 0x7b, 0xa6, 0x00, 0x6a, 0xd3, 0xdb, 0xa0];
        let wire = uuid_to_wire(&canonical);
        assert_eq!(wire, [0xe7, 0x11, 0xb3, 0x5c, 0x04, 0xc4, 0xf0, 0x61, 0xa0, 0xdb, 0xd3, 0x6a, 0x00, 0xa6, 0x7b, 0x90]);
        assert_eq!(uuid_from_wire(&wire), canonical);
    }
}
