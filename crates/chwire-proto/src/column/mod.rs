//! Columns: contiguous, Arrow-compatible buffers.
//!
//! * fixed-width values are a `Vec<T>` of the native type (decoding is one bulk copy);
//! * strings are `offsets` (N + 1 cumulative `u64`, starting at 0) plus one byte buffer;
//! * `Nullable` is a byte-per-row null map (1 = NULL, as on the wire) plus the inner column;
//! * `Array` is N + 1 offsets plus the inner column holding every element.
//!
//! A [`Column`] pairs the data with its [`DataType`]; the pairing is checked when a column is
//! built, so encoders can trust it.

mod aggregate;
mod binary;
mod build;
mod codec;
mod qbit;
mod take;
mod value;
mod values;

mod low_cardinality;
mod nested;
mod strings;
mod typed;
mod union;

pub use low_cardinality::{LcKeys, LowCardinalityColumn};
pub use nested::{ArrayColumn, NullableColumn, TupleColumn};
pub(crate) use strings::check_offsets;
pub use strings::StringColumn;
pub use typed::Column;
pub use union::{DynamicColumn, JsonColumn, VariantColumn};

pub use binary::{decode_type as decode_binary_type, encode_type as encode_binary_type, BinaryValues};
pub use build::{encode_low_cardinality, finish_dynamic};
pub(crate) use codec::{check_sizes, column_pieces, strings_with_sizes, Piece, Pieces};
pub use codec::{
    decode_body, decode_column, decode_serialized, decode_sparse, encode_column, encode_column_at, encode_column_of, encode_column_of_at,
    read_prefix, read_serialization, write_prefix_of, Prefix, Serialization, SerializationKind,
};
pub use qbit::push_qbit;
pub use value::{decimal256_to_string, decimal_to_string, f32_of, int256_to_string, uuid_from_wire, uuid_to_wire, Value};
pub use values::{
    bad_storage, block_from_values, check_decimal256_precision, push_decimal, type_of, write_bytes, write_json_text, write_nested_fields,
    write_value, ValuesError,
};

use crate::error::EncodeError;
use crate::types::DataType;

#[cfg(target_endian = "big")]
compile_error!("chwire-proto copies little-endian wire data straight into native vectors; big-endian targets are not supported yet");

/// The physical storage of a column.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ColumnData {
    /// UInt8, Bool, Nothing
    UInt8(Vec<u8>),
    /// UInt16, Date, BFloat16
    UInt16(Vec<u16>),
    /// UInt32, DateTime, IPv4
    UInt32(Vec<u32>),
    /// UInt64
    UInt64(Vec<u64>),
    /// Int8, Enum8
    Int8(Vec<i8>),
    /// Int16, Enum16
    Int16(Vec<i16>),
    /// Int32, Date32, Time, Decimal32 (precision 1..=9)
    Int32(Vec<i32>),
    /// Int64, DateTime64, Time64, Interval, Decimal64 (precision 10..=18)
    Int64(Vec<i64>),
    /// Float32
    Float32(Vec<f32>),
    /// Float64
    Float64(Vec<f64>),
    /// FixedString(N), UUID and IPv6 (wire order), (U)Int256 and Decimal256 (little-endian):
    /// `width` bytes per row.
    Fixed {
        /// Bytes per row.
        width: usize,
        /// The rows' bytes back to back.
        data: Vec<u8>,
    },
    /// String
    String(StringColumn),
    /// Nullable(T)
    Nullable(Box<NullableColumn>),
    /// Array, and Map (an array of `Tuple(key, value)`).
    Array(Box<ArrayColumn>),
    /// UInt128
    UInt128(Vec<u128>),
    /// Int128, Decimal128 (precision 19..=38)
    Int128(Vec<i128>),
    /// One column per element, all of `rows` rows.
    Tuple(TupleColumn),
    /// LowCardinality(T)
    LowCardinality(Box<LowCardinalityColumn>),
    /// Variant(T...)
    Variant(Box<VariantColumn>),
    /// Dynamic
    Dynamic(Box<DynamicColumn>),
    /// JSON
    Json(Box<JsonColumn>),
    /// `AggregateFunction`: each row's state as opaque bytes (written back to back on the wire).
    AggregateState(StringColumn),
}

impl ColumnData {
    /// The number of rows.
    ///
    /// Meaningless on storage no [`Column`] accepts: a `Fixed` width of 0 panics, an `Array`
    /// without its leading offset underflows.
    pub fn len(&self) -> usize {
        use ColumnData::*;
        match self {
            UInt8(v) => v.len(),
            UInt16(v) => v.len(),
            UInt32(v) => v.len(),
            UInt64(v) => v.len(),
            Int8(v) => v.len(),
            Int16(v) => v.len(),
            Int32(v) => v.len(),
            Int64(v) => v.len(),
            Float32(v) => v.len(),
            Float64(v) => v.len(),
            // (A hand-built column of width 0 has no rows, rather than dividing by zero.)
            Fixed { width, data } => data.len().checked_div(*width).unwrap_or(0),
            String(s) => s.len(),
            Nullable(n) => n.nulls.len(),
            Array(a) => a.offsets.len().saturating_sub(1),
            UInt128(v) => v.len(),
            Int128(v) => v.len(),
            Tuple(t) => t.rows,
            LowCardinality(l) => l.keys.len(),
            Variant(v) => v.discriminators.len(),
            Dynamic(d) => d.values.discriminators.len(),
            Json(j) => j.rows,
            AggregateState(s) => s.len(),
        }
    }

    /// Whether there are no rows (see [`ColumnData::len`]).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An empty column with the storage `ty` needs.
    pub fn empty_for(ty: &DataType) -> Result<ColumnData, EncodeError> {
        Self::with_capacity_for(ty, 0)
    }

    /// An empty column with room for `rows` rows (inner columns of arrays get no capacity). The
    /// room is a hint, capped at 2^24 rows: the column grows beyond it as rows come, and a row
    /// count from elsewhere cannot make it reserve what no block needs.
    pub fn with_capacity_for(ty: &DataType, rows: usize) -> Result<ColumnData, EncodeError> {
        use crate::types::Physical as P;
        let rows = rows.min(1 << 24);
        Ok(match ty.physical() {
            P::U8 => ColumnData::UInt8(Vec::with_capacity(rows)),
            P::U16 => ColumnData::UInt16(Vec::with_capacity(rows)),
            P::U32 => ColumnData::UInt32(Vec::with_capacity(rows)),
            P::U64 => ColumnData::UInt64(Vec::with_capacity(rows)),
            P::U128 => ColumnData::UInt128(Vec::with_capacity(rows)),
            P::I8 => ColumnData::Int8(Vec::with_capacity(rows)),
            P::I16 => ColumnData::Int16(Vec::with_capacity(rows)),
            P::I32 => ColumnData::Int32(Vec::with_capacity(rows)),
            P::I64 => ColumnData::Int64(Vec::with_capacity(rows)),
            P::I128 => ColumnData::Int128(Vec::with_capacity(rows)),
            P::F32 => ColumnData::Float32(Vec::with_capacity(rows)),
            P::F64 => ColumnData::Float64(Vec::with_capacity(rows)),
            P::Fixed(n) => ColumnData::Fixed { width: n, data: Vec::with_capacity(rows.saturating_mul(n).min(1 << 28)) },
            P::String => ColumnData::String(StringColumn::with_capacity(rows, 0)),
            P::Nullable => {
                let DataType::Nullable(inner) = ty else { unreachable!() };
                ColumnData::Nullable(Box::new(NullableColumn {
                    nulls: Vec::with_capacity(rows),
                    values: Self::with_capacity_for(inner, rows)?,
                }))
            }
            P::Array | P::Map => {
                let values = match ty {
                    DataType::Array(inner) => Self::empty_for(inner)?,
                    DataType::Map(k, v) => {
                        ColumnData::Tuple(TupleColumn { rows: 0, elements: vec![Self::empty_for(k)?, Self::empty_for(v)?] })
                    }
                    _ => unreachable!(),
                };
                let mut offsets = Vec::with_capacity(rows + 1);
                offsets.push(0);
                ColumnData::Array(Box::new(ArrayColumn { offsets, values }))
            }
            P::Tuple => {
                let DataType::Tuple(items) = ty else { unreachable!() };
                ColumnData::Tuple(TupleColumn {
                    rows: 0,
                    elements: items.iter().map(|(_, t)| Self::with_capacity_for(t, rows)).collect::<Result<_, _>>()?,
                })
            }
            P::LowCardinality => {
                let DataType::LowCardinality(inner) = ty else { unreachable!() };
                ColumnData::LowCardinality(Box::new(LowCardinalityColumn {
                    dictionary: Self::empty_for(inner.strip_nullable())?,
                    keys: LcKeys::U8(Vec::with_capacity(rows)),
                }))
            }
            P::Variant => {
                let DataType::Variant(types) = ty else { unreachable!() };
                ColumnData::Variant(Box::new(VariantColumn {
                    discriminators: Vec::with_capacity(rows),
                    offsets: Vec::with_capacity(rows),
                    variants: types.iter().map(Self::empty_for).collect::<Result<_, _>>()?,
                }))
            }
            P::Dynamic => ColumnData::Dynamic(Box::new(DynamicColumn {
                types: Vec::new(),
                shared: None,
                values: VariantColumn { discriminators: Vec::with_capacity(rows), offsets: Vec::with_capacity(rows), variants: Vec::new() },
                version: 2,
                max_types: None,
                shared_values: BinaryValues::default(),
            })),
            P::Json => {
                let DataType::Json { typed, .. } = ty else { unreachable!() };
                ColumnData::Json(Box::new(JsonColumn {
                    version: 2,
                    rows: 0,
                    text: None,
                    typed: typed.iter().map(|(_, t)| Self::with_capacity_for(t, rows)).collect::<Result<_, _>>()?,
                    dynamic: Vec::new(),
                    shared: None,
                    max_dynamic_paths: None,
                    shared_values: BinaryValues::default(),
                }))
            }
            P::AggregateFunction => ColumnData::AggregateState(StringColumn::with_capacity(rows, 0)),
            P::Alias => match ty.storage() {
                Some(s) => Self::with_capacity_for(&s, rows)?,
                None => return Err(EncodeError::Invalid(format!("no column storage for type {ty}"))),
            },
            P::Unsupported => return Err(EncodeError::Invalid(format!("no column storage for type {ty}"))),
        })
    }

    /// Checks that this storage fits `ty` and that nested lengths agree.
    pub fn check(&self, ty: &DataType) -> Result<(), String> {
        use crate::types::Physical as P;
        use ColumnData as D;
        let ok = match (ty.physical(), self) {
            (P::U8, D::UInt8(_))
            | (P::U16, D::UInt16(_))
            | (P::U32, D::UInt32(_))
            | (P::U64, D::UInt64(_))
            | (P::U128, D::UInt128(_))
            | (P::I8, D::Int8(_))
            | (P::I16, D::Int16(_))
            | (P::I32, D::Int32(_))
            | (P::I64, D::Int64(_))
            | (P::I128, D::Int128(_))
            | (P::F32, D::Float32(_))
            | (P::F64, D::Float64(_))
            | (P::String, D::String(_)) => true,
            (P::Fixed(n), D::Fixed { width, data }) => {
                if *width != n {
                    return Err(format!("storage width {width} does not fit type {ty}"));
                }
                if n == 0 {
                    return Err(format!("{ty}: a fixed width must be positive"));
                }
                if data.len() % n != 0 {
                    return Err(format!("{} bytes is not a multiple of the width {width}", data.len()));
                }
                true
            }
            (P::Nullable, D::Nullable(n)) => {
                let DataType::Nullable(inner) = ty else { unreachable!() };
                if inner.is_nullable() {
                    return Err("Nullable(Nullable(..)) is not a valid type".into());
                }
                match (&**inner, &n.values) {
                    // The placeholder under NULL need not be one of an Enum's values.
                    (DataType::Enum8(items), D::Int8(v)) => {
                        let bad = v.iter().zip(&n.nulls).find(|&(x, &null)| null == 0 && !items.iter().any(|(_, e)| e == x));
                        if let Some((bad, _)) = bad {
                            return Err(format!("value {bad} is not an element of {inner}"));
                        }
                    }
                    (DataType::Enum16(items), D::Int16(v)) => {
                        let bad = v.iter().zip(&n.nulls).find(|&(x, &null)| null == 0 && !items.iter().any(|(_, e)| e == x));
                        if let Some((bad, _)) = bad {
                            return Err(format!("value {bad} is not an element of {inner}"));
                        }
                    }
                    _ => n.values.check(inner)?,
                }
                if n.nulls.len() != n.values.len() {
                    return Err(format!("null map has {} rows but the values have {}", n.nulls.len(), n.values.len()));
                }
                true
            }
            (P::Array, D::Array(a)) => {
                let DataType::Array(inner) = ty else { unreachable!() };
                a.values.check(inner)?;
                check_offsets(&a.offsets, a.values.len())?;
                true
            }
            (P::Map, D::Array(a)) => {
                let DataType::Map(k, v) = ty else { unreachable!() };
                a.values.check(&DataType::Tuple(vec![(None, (**k).clone()), (None, (**v).clone())]))?;
                check_offsets(&a.offsets, a.values.len())?;
                true
            }
            (P::Tuple, D::Tuple(t)) => {
                let DataType::Tuple(items) = ty else { unreachable!() };
                if items.len() != t.elements.len() {
                    return Err(format!("{} tuple elements for type {ty}", t.elements.len()));
                }
                for ((_, ity), e) in items.iter().zip(&t.elements) {
                    e.check(ity)?;
                    if e.len() != t.rows {
                        return Err(format!("tuple element has {} rows, the tuple {}", e.len(), t.rows));
                    }
                }
                true
            }
            (P::LowCardinality, D::LowCardinality(l)) => {
                let DataType::LowCardinality(inner) = ty else { unreachable!() };
                l.dictionary.check(inner.strip_nullable())?;
                if let Some(max) = l.keys.max() {
                    if max >= l.dictionary.len() as u64 {
                        return Err(format!("index {max} is outside the dictionary of {} values", l.dictionary.len()));
                    }
                }
                true
            }
            (P::Variant, D::Variant(v)) => {
                let DataType::Variant(types) = ty else { unreachable!() };
                v.check_types(types)?;
                true
            }
            (P::Dynamic, D::Dynamic(d)) => {
                d.check()?;
                true
            }
            (P::AggregateFunction, D::AggregateState(s)) => {
                let DataType::AggregateFunction(f) = ty else { unreachable!() };
                aggregate::check_states(f, s, binary::skip_value)?;
                true
            }
            (P::Json, D::Json(j)) => {
                let DataType::Json { typed, .. } = ty else { unreachable!() };
                if j.text.is_none() {
                    if typed.len() != j.typed.len() {
                        return Err(format!("{} typed path columns for type {ty}", j.typed.len()));
                    }
                    for ((_, t), c) in typed.iter().zip(&j.typed) {
                        c.check(t)?;
                        if c.len() != j.rows {
                            return Err("a JSON typed path has the wrong number of rows".into());
                        }
                    }
                    for (_, d) in &j.dynamic {
                        d.check()?;
                        if d.values.discriminators.len() != j.rows {
                            return Err("a JSON dynamic path has the wrong number of rows".into());
                        }
                    }
                    j.check_shared()?;
                }
                true
            }
            (P::Alias, _) => match ty.storage() {
                Some(s) => return self.check(&s),
                None => false,
            },
            _ => false,
        };
        if let (DataType::Enum8(items), D::Int8(v)) = (ty, self) {
            if let Some(bad) = v.iter().find(|x| !items.iter().any(|(_, e)| e == *x)) {
                return Err(format!("value {bad} is not an element of {ty}"));
            }
        }
        if let (DataType::Enum16(items), D::Int16(v)) = (ty, self) {
            if let Some(bad) = v.iter().find(|x| !items.iter().any(|(_, e)| e == *x)) {
                return Err(format!("value {bad} is not an element of {ty}"));
            }
        }
        if ok {
            Ok(())
        } else {
            Err(format!("storage {} does not fit type {ty}", self.kind_name()))
        }
    }

    fn kind_name(&self) -> &'static str {
        use ColumnData::*;
        match self {
            UInt8(_) => "UInt8",
            UInt16(_) => "UInt16",
            UInt32(_) => "UInt32",
            UInt64(_) => "UInt64",
            Int8(_) => "Int8",
            Int16(_) => "Int16",
            Int32(_) => "Int32",
            Int64(_) => "Int64",
            Float32(_) => "Float32",
            Float64(_) => "Float64",
            Fixed { .. } => "Fixed",
            String(_) => "String",
            Nullable(_) => "Nullable",
            Array(_) => "Array",
            UInt128(_) => "UInt128",
            Int128(_) => "Int128",
            Tuple(_) => "Tuple",
            LowCardinality(_) => "LowCardinality",
            Variant(_) => "Variant",
            Dynamic(_) => "Dynamic",
            Json(_) => "JSON",
            AggregateState(_) => "AggregateFunction",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_column_parts() {
        let c: StringColumn = ["ab", "c", ""].into_iter().collect();
        assert_eq!(c.offsets(), &[0, 2, 3, 3]);
        assert_eq!(c.get(0), b"ab");
        assert_eq!(c.get(2), b"");
        assert!(StringColumn::try_from_parts(vec![0, 3, 2], b"abc".to_vec()).is_err());
        assert!(StringColumn::try_from_parts(vec![1, 3], b"abc".to_vec()).is_err());
        assert!(StringColumn::try_from_parts(vec![0, 4], b"abc".to_vec()).is_err());
    }

    #[test]
    fn low_cardinality_from_strings() {
        let lc = LowCardinalityColumn::from_strings([Some(&b"a"[..]), None, Some(b"b"), Some(b"a"), Some(b"")], true);
        let col =
            Column::new(DataType::parse("LowCardinality(Nullable(String))").unwrap(), ColumnData::LowCardinality(Box::new(lc))).unwrap();
        let got: Vec<Value<'_>> = (0..5).map(|i| col.value(i)).collect();
        assert_eq!(got, [Value::String(b"a"), Value::Null, Value::String(b"b"), Value::String(b"a"), Value::String(b"")]);
        let many = LowCardinalityColumn::from_strings(
            (0..1000).map(|i| i.to_string()).collect::<Vec<_>>().iter().map(|s| Some(s.as_bytes())),
            false,
        );
        assert!(matches!(many.keys, LcKeys::U16(_)));
        assert_eq!(many.dictionary.len(), 1001);
    }

    #[test]
    fn checks_type_fit() {
        assert!(Column::new(DataType::UInt32, ColumnData::UInt64(vec![1])).is_err());
        assert!(Column::new(DataType::DateTime(None), ColumnData::UInt32(vec![1])).is_ok());
        assert!(Column::new(DataType::Enum8(vec![("a".into(), 1)]), ColumnData::Int8(vec![1, 2])).is_err());
        let bad_nullable = ColumnData::Nullable(Box::new(NullableColumn { nulls: vec![0, 1], values: ColumnData::UInt8(vec![1]) }));
        assert!(Column::new(DataType::Nullable(Box::new(DataType::UInt8)), bad_nullable).is_err());
        assert!(Column::new(DataType::FixedString(3), ColumnData::Fixed { width: 3, data: vec![0; 7] }).is_err());
        assert!(Column::new(DataType::FixedString(3), ColumnData::Fixed { width: 2, data: vec![0; 6] }).is_err());
        assert!(Column::new(DataType::Uuid, ColumnData::Fixed { width: 16, data: vec![0; 32] }).is_ok());
        // Found by fuzzing (native_column): the placeholder under a NULL of Nullable(Enum)
        // need not be a value of the Enum, as the decoder accepts it.
        let ty = DataType::parse("Nullable(Enum8('a' = 0))").unwrap();
        let nullable = |nulls: Vec<u8>| ColumnData::Nullable(Box::new(NullableColumn { nulls, values: ColumnData::Int8(vec![2, 0]) }));
        assert!(Column::new(ty.clone(), nullable(vec![1, 0])).is_ok());
        assert!(Column::new(ty, nullable(vec![0, 0])).is_err());
    }
}
