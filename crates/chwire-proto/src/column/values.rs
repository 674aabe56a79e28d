//! Dynamic [`Value`]s written into columns: a value goes into a column of any type it
//! represents exactly (integers into any integer type they fit, strings into String,
//! FixedString and Enum, decimals rescaled where that is exact, ...), and rows of values
//! make a [`Block`] ([`block_from_values`]).
//!
//! What the client's dynamic rows (`chwire::row::DynInserter`, `chwire::row::block_from_values`)
//! and the file formats' text readers (`chwire-formats`) build blocks with; it sits here so that
//! neither needs the other.

use std::fmt;

use super::{int256_to_string, uuid_to_wire, Column, ColumnData, StringColumn, Value, VariantColumn};
use crate::block::Block;
use crate::error::EncodeError;
use crate::types::DataType;

/// Why rows of values did not make a block.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValuesError {
    /// Row `row` (counted from 0 within the rows given) has `values` values for `columns` columns.
    Width {
        /// The row, from 0.
        row: usize,
        /// The values it has.
        values: usize,
        /// The number of columns (the values each row needs).
        columns: usize,
    },
    /// A value of row `row` does not fit its column (out of range, not an element of the
    /// enum, NULL in a non-Nullable column, ...).
    Value {
        /// The row, from 0.
        row: usize,
        /// The column's name.
        column: String,
        /// The column's type.
        ty: DataType,
        /// Why the value does not fit.
        message: String,
    },
    /// The rows, all appended, do not make a valid column of its type.
    Column {
        /// The column's name.
        column: String,
        /// The column's type.
        ty: DataType,
        /// What is wrong with the column.
        message: String,
    },
    /// A column's type cannot be built (a type chwire does not support).
    Encode(EncodeError),
}

impl fmt::Display for ValuesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValuesError::Width { row, values, columns } => write!(f, "row {row} has {values} values for {columns} columns"),
            ValuesError::Value { row, column, ty, message } => write!(f, "row {row}: column `{column}` ({ty}): {message}"),
            ValuesError::Column { column, ty, message } => write!(f, "column `{column}`: the rows do not fit its type {ty}: {message}"),
            ValuesError::Encode(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ValuesError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ValuesError::Encode(e) => Some(e),
            _ => None,
        }
    }
}

impl From<EncodeError> for ValuesError {
    fn from(e: EncodeError) -> Self {
        ValuesError::Encode(e)
    }
}

/// Build a block from rows of values for the given columns (names and types): each value
/// converted to its column's type where that is exact (see [`write_value`]). A value that
/// does not fit is an error naming its row and column.
pub fn block_from_values<'v>(columns: &[(&str, DataType)], rows: impl IntoIterator<Item = &'v [Value<'v>]>) -> Result<Block, ValuesError> {
    // Rows are appended to the plain (LowCardinality-free, structural) form of each type,
    // then dictionary-encoded once for the block.
    let plain: Vec<DataType> = columns.iter().map(|(_, t)| t.without_low_cardinality()).collect();
    let mut cols = plain.iter().map(ColumnData::empty_for).collect::<Result<Vec<_>, _>>()?;
    for (r, row) in rows.into_iter().enumerate() {
        if row.len() != columns.len() {
            return Err(ValuesError::Width { row: r, values: row.len(), columns: columns.len() });
        }
        for (i, v) in row.iter().enumerate() {
            if let Err(message) = write_value(v, &plain[i], &mut cols[i]) {
                let (column, ty) = (columns[i].0.to_string(), plain[i].clone());
                return Err(ValuesError::Value { row: r, column, ty, message });
            }
        }
    }
    let mut block = Block::new();
    for (((name, ty), plain), mut data) in columns.iter().zip(&plain).zip(cols) {
        data.check(plain).map_err(|e| ValuesError::Column { column: name.to_string(), ty: plain.clone(), message: e.to_string() })?;
        super::finish_dynamic(&mut data);
        let data = super::encode_low_cardinality(ty, data)?;
        block.push(name.to_string(), Column::new(ty.clone(), data)?)?;
    }
    Ok(block)
}

/// Storage that does not fit a type that passed the check: impossible for decoded and
/// checked columns, reported rather than trusted.
pub fn bad_storage(data: &ColumnData) -> String {
    let name = match data {
        ColumnData::String(_) => "String",
        ColumnData::Fixed { .. } => "fixed-width bytes",
        ColumnData::Nullable(_) => "Nullable",
        ColumnData::Array(_) => "Array",
        ColumnData::Tuple(_) => "Tuple",
        ColumnData::LowCardinality(_) => "LowCardinality",
        _ => "of another kind",
    };
    format!("unexpected column storage {name}")
}

/// Append string bytes to a String, FixedString (zero-padded) or Enum (by name) column.
pub fn write_bytes(b: &[u8], ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
    let not_an_element = || format!("{:?} is not an element of {ty}", String::from_utf8_lossy(b));
    match (ty, col) {
        (_, ColumnData::String(s)) => s.push(b),
        (DataType::FixedString(n), ColumnData::Fixed { data, .. }) => {
            if b.len() > *n {
                return Err(format!("{} bytes do not fit FixedString({n})", b.len()));
            }
            data.extend_from_slice(b);
            data.resize(data.len() + n - b.len(), 0);
        }
        (DataType::Enum8(items), ColumnData::Int8(v)) => {
            v.push(items.iter().find(|(n, _)| n.as_bytes() == b).ok_or_else(not_an_element)?.1)
        }
        (DataType::Enum16(items), ColumnData::Int16(v)) => {
            v.push(items.iter().find(|(n, _)| n.as_bytes() == b).ok_or_else(not_an_element)?.1)
        }
        (_, other) => return Err(bad_storage(other)),
    }
    Ok(())
}

/// Append a Decimal32/64/128 value (`raw / 10^scale`) at the column's scale, if that is exact
/// and within the type's precision.
pub fn push_decimal(ty: &DataType, col: &mut ColumnData, raw: i128, scale: u8) -> Result<(), String> {
    let DataType::Decimal { precision, scale: to } = ty else { return Err(format!("not a decimal type: {ty}")) };
    let raw = rescale(raw, scale, *to)
        .ok_or_else(|| format!("{} cannot be represented exactly with scale {to}", super::decimal_to_string(raw, scale)))?;
    let limit = 10i128.checked_pow(u32::from(*precision)).unwrap_or(i128::MAX);
    if raw.unsigned_abs() >= limit.unsigned_abs() {
        return Err(format!("{} has more than {precision} digits", super::decimal_to_string(raw, *to)));
    }
    match col {
        ColumnData::Int32(v) => v.push(raw as i32),
        ColumnData::Int64(v) => v.push(raw as i64),
        ColumnData::Int128(v) => v.push(raw),
        other => return Err(bad_storage(other)),
    }
    Ok(())
}

/// The same decimal at another scale, if that is exact and fits an i128.
fn rescale(raw: i128, from: u8, to: u8) -> Option<i128> {
    if to >= from {
        raw.checked_mul(10i128.checked_pow(u32::from(to - from))?)
    } else {
        let f = 10i128.checked_pow(u32::from(from - to))?;
        (raw % f == 0).then_some(raw / f)
    }
}

/// Whether a 256-bit raw decimal (32 little-endian bytes) has at most the type's precision
/// in digits.
pub fn check_decimal256_precision(raw: &[u8], ty: &DataType) -> Result<(), String> {
    let DataType::Decimal { precision, .. } = ty else { return Err(format!("not a decimal type: {ty}")) };
    let text = int256_to_string(raw, true);
    let digits = text.trim_start_matches('-').len();
    if digits > usize::from(*precision) {
        return Err(format!("{text} (unscaled) has more than {precision} digits"));
    }
    Ok(())
}

/// An i128 as 32 little-endian bytes, sign-extended.
fn i256_of(v: i128) -> [u8; 32] {
    let mut b = [if v < 0 { 0xff } else { 0 }; 32];
    b[..16].copy_from_slice(&v.to_le_bytes());
    b
}

/// Append JSON text to a JSON column, which a row builder sends in the STRING
/// serialization (ClickHouse parses the text on insert).
pub fn write_json_text(text: &[u8], col: &mut ColumnData) -> Result<(), String> {
    let ColumnData::Json(j) = col else { return Err(bad_storage(col)) };
    if j.text.is_none() && j.rows > 0 {
        return Err("this JSON column is not built from text".into());
    }
    let strings = j.text.get_or_insert_with(|| {
        j.version = 1;
        StringColumn::new()
    });
    strings.push(text);
    j.rows += 1;
    Ok(())
}

fn int_range(ty: &DataType) -> Option<(i128, i128)> {
    Some(match ty {
        DataType::UInt8 => (0, u8::MAX.into()),
        DataType::UInt16 => (0, u16::MAX.into()),
        DataType::UInt32 => (0, u32::MAX.into()),
        DataType::UInt64 => (0, u64::MAX.into()),
        DataType::UInt128 => (0, i128::MAX),
        DataType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        DataType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DataType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        DataType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        DataType::Int128 => (i128::MIN, i128::MAX),
        _ => return None,
    })
}

/// Append an integer to an integer column of any width, if it fits.
fn push_int(v: i128, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
    let Some((lo, hi)) = int_range(ty) else {
        return match (ty, col) {
            (DataType::Bool, ColumnData::UInt8(c)) if v == 0 || v == 1 => {
                c.push(v as u8);
                Ok(())
            }
            (DataType::Int256 | DataType::UInt256, ColumnData::Fixed { width: 32, data }) => {
                if matches!(ty, DataType::UInt256) && v < 0 {
                    return Err(format!("{v} does not fit {ty}"));
                }
                data.extend_from_slice(&i256_of(v));
                Ok(())
            }
            // An integer a float holds exactly (a JS number such as 1 for a Variant(Float64,
            // String), which has no integer type).
            (DataType::Float64, ColumnData::Float64(c)) if v != i128::MAX && (v as f64) as i128 == v => {
                c.push(v as f64);
                Ok(())
            }
            (DataType::Float32, ColumnData::Float32(c)) if v != i128::MAX && (v as f32) as i128 == v => {
                c.push(v as f32);
                Ok(())
            }
            (DataType::Float64 | DataType::Float32, _) => Err(format!("{v} is not exact as {ty}")),
            (ty, _) => Err(format!("an integer does not fit {ty}")),
        };
    };
    if v < lo || v > hi {
        return Err(format!("{v} does not fit {ty}"));
    }
    match col {
        ColumnData::UInt8(c) => c.push(v as u8),
        ColumnData::UInt16(c) => c.push(v as u16),
        ColumnData::UInt32(c) => c.push(v as u32),
        ColumnData::UInt64(c) => c.push(v as u64),
        ColumnData::UInt128(c) => c.push(v as u128),
        ColumnData::Int8(c) => c.push(v as i8),
        ColumnData::Int16(c) => c.push(v as i16),
        ColumnData::Int32(c) => c.push(v as i32),
        ColumnData::Int64(c) => c.push(v as i64),
        ColumnData::Int128(c) => c.push(v),
        other => return Err(bad_storage(other)),
    }
    Ok(())
}

/// Ticks at one precision to ticks at another, if exact and within Int64 ([`rescale`]).
fn rescale_ticks(ticks: i64, from: u8, to: u8) -> Option<i64> {
    rescale(i128::from(ticks), from, to).and_then(|t| i64::try_from(t).ok())
}

macro_rules! push_to {
    ($col:expr, $variant:ident, $v:expr) => {
        match $col {
            ColumnData::$variant(c) => {
                c.push($v);
                Ok(())
            }
            other => Err(bad_storage(other)),
        }
    };
}

/// Append `v` to `col`, the plain (LowCardinality-free, structural) storage of type `ty`, if
/// `v` represents a value of `ty` exactly; else an error saying why (nothing is appended to a
/// column of scalars; a nested column may keep a partial row, which the caller truncates).
pub fn write_value(v: &Value<'_>, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
    use DataType as T;
    match (v, ty) {
        (v, T::Variant(types)) => write_variant(v, types, col),
        (v, T::Geometry) => write_value(v, &T::Geometry.storage().ok_or("no storage type for Geometry")?, col),
        (v, T::Dynamic { .. }) => write_dynamic(v, col),
        (Value::JsonText(text) | Value::String(text), T::Json { .. }) => write_json_text(text, col),
        (Value::Null, T::Nullable(_)) => {
            let ColumnData::Nullable(n) = col else { return Err(bad_storage(col)) };
            n.values.push_default().map_err(|e| e.to_string())?;
            n.nulls.push(1);
            Ok(())
        }
        // ClickHouse has no NULL Array or Map (neither can be Nullable): a NULL is the empty
        // one, as ClickHouse reads such input (chwire-arrow takes a NULL list alike).
        (Value::Null, T::Array(_) | T::Nested(_)) => write_array(&[], ty, col),
        (Value::Null, T::Map(..)) => write_value(&Value::Map(Vec::new()), ty, col),
        (Value::Null, _) => Err(format!("NULL does not fit the non-Nullable type {ty}")),
        (v, T::Nullable(inner)) => {
            let ColumnData::Nullable(n) = col else { return Err(bad_storage(col)) };
            write_value(v, inner, &mut n.values)?;
            n.nulls.push(0);
            Ok(())
        }
        (Value::UInt(v), _) => push_int(i128::from(*v), ty, col),
        (Value::Int(v), _) => push_int(i128::from(*v), ty, col),
        (Value::Int128(v), _) => push_int(*v, ty, col),
        (Value::UInt128(v), T::UInt128) => push_to!(col, UInt128, *v),
        (Value::UInt128(v), _) => push_int(i128::try_from(*v).map_err(|_| format!("{v} does not fit {ty}"))?, ty, col),
        (Value::Bool(b), T::Bool | T::UInt8) => push_to!(col, UInt8, u8::from(*b)),
        (Value::Float32(v), T::Float32) => push_to!(col, Float32, *v),
        (Value::Float32(v), T::Float64) => push_to!(col, Float64, f64::from(*v)),
        (Value::Float64(v), T::Float64) => push_to!(col, Float64, *v),
        (Value::Float64(v), T::Float32) => {
            let f = *v as f32;
            if f64::from(f) != *v && !v.is_nan() {
                return Err(format!("{v} is not exact as Float32"));
            }
            push_to!(col, Float32, f)
        }
        (Value::BFloat16(v), T::BFloat16) => push_to!(col, UInt16, *v),
        (Value::String(b) | Value::FixedString(b), T::String | T::FixedString(_) | T::Enum8(_) | T::Enum16(_)) => write_bytes(b, ty, col),
        (Value::Enum(name, _), T::String | T::FixedString(_) | T::Enum8(_) | T::Enum16(_)) => write_bytes(name.as_bytes(), ty, col),
        (Value::Uuid(u), T::Uuid) => match col {
            ColumnData::Fixed { width: 16, data } => {
                data.extend_from_slice(&uuid_to_wire(u));
                Ok(())
            }
            other => Err(bad_storage(other)),
        },
        (Value::Date(d), T::Date) => push_to!(col, UInt16, *d),
        (Value::Date(d), T::Date32) => push_to!(col, Int32, i32::from(*d)),
        (Value::Date32(d), T::Date32) => push_to!(col, Int32, *d),
        (Value::Date32(d), T::Date) => push_to!(col, UInt16, u16::try_from(*d).map_err(|_| format!("day {d} does not fit Date"))?),
        (Value::DateTime(s, _), T::DateTime(_)) => push_to!(col, UInt32, *s),
        (Value::DateTime(s, _), T::DateTime64 { precision, .. }) => {
            push_to!(col, Int64, rescale_ticks(i64::from(*s), 0, *precision).ok_or("out of range")?)
        }
        (Value::DateTime64 { ticks, precision, .. }, T::DateTime64 { precision: to, .. }) => {
            push_to!(col, Int64, rescale_ticks(*ticks, *precision, *to).ok_or_else(|| format!("not exact at precision {to}"))?)
        }
        (Value::Time(s), T::Time) => push_to!(col, Int32, *s),
        (Value::Time64 { ticks, precision }, T::Time64(to)) => {
            push_to!(col, Int64, rescale_ticks(*ticks, *precision, *to).ok_or_else(|| format!("not exact at precision {to}"))?)
        }
        (Value::Ipv4(a), T::Ipv4) => push_to!(col, UInt32, u32::from(*a)),
        (Value::Ipv6(a), T::Ipv6) => match col {
            ColumnData::Fixed { width: 16, data } => {
                data.extend_from_slice(&a.octets());
                Ok(())
            }
            other => Err(bad_storage(other)),
        },
        (Value::Int256(b) | Value::UInt256(b), T::Int256 | T::UInt256) => match col {
            ColumnData::Fixed { width: 32, data } if b.len() == 32 => {
                // The same bits mean another number when the signedness differs and the
                // top bit is set.
                let signed_in = matches!(v, Value::Int256(_));
                if signed_in != matches!(ty, T::Int256) && b[31] & 0x80 != 0 {
                    return Err(format!("{} does not fit {ty}", value_kind(v)));
                }
                data.extend_from_slice(b);
                Ok(())
            }
            other => Err(bad_storage(other)),
        },
        (Value::Decimal { raw, scale }, T::Decimal { precision, .. }) if *precision <= 38 => push_decimal(ty, col, *raw, *scale),
        (Value::Decimal { raw, scale }, T::Decimal { scale: to, .. }) => {
            let raw = i256_of(rescale(*raw, *scale, *to).ok_or_else(|| format!("not exact at scale {to}"))?);
            check_decimal256_precision(&raw, ty)?;
            match col {
                ColumnData::Fixed { width: 32, data } => {
                    data.extend_from_slice(&raw);
                    Ok(())
                }
                other => Err(bad_storage(other)),
            }
        }
        (Value::Decimal256 { raw, scale }, T::Decimal { scale: to, .. }) if scale == to => match col {
            ColumnData::Fixed { width: 32, data } if raw.len() == 32 => {
                check_decimal256_precision(raw, ty)?;
                data.extend_from_slice(raw);
                Ok(())
            }
            other => Err(bad_storage(other)),
        },
        (Value::Interval(n, kind), T::Interval(k)) if kind == k => push_to!(col, Int64, *n),
        (Value::Nothing, T::Nothing) => push_to!(col, UInt8, 0),
        // A state's bytes as they are (ColumnData::check checks them as states of f).
        (Value::AggregateState(b), T::AggregateFunction(_)) => match col {
            ColumnData::AggregateState(s) => {
                s.push(b);
                Ok(())
            }
            other => Err(bad_storage(other)),
        },
        // A vector: each element converted to the element type, then bit-transposed.
        (Value::QBit(items) | Value::Array(items), T::QBit { element, dimension }) => {
            let mut one = ColumnData::empty_for(element).map_err(|e| e.to_string())?;
            for v in items {
                write_value(v, element, &mut one)?;
            }
            let bits: Vec<u64> = match &one {
                ColumnData::UInt16(v) => v.iter().map(|&b| u64::from(b)).collect(),
                ColumnData::Float32(v) => v.iter().map(|f| u64::from(f.to_bits())).collect(),
                ColumnData::Float64(v) => v.iter().map(|f| f.to_bits()).collect(),
                other => return Err(bad_storage(other)),
            };
            super::push_qbit(element, *dimension, col, &bits)
        }
        (Value::Array(items), T::Array(_) | T::Nested(_)) => write_array(items, ty, col),
        (Value::Map(pairs), T::Map(kt, vt)) => {
            let ColumnData::Array(a) = col else { return Err(bad_storage(col)) };
            let ColumnData::Tuple(t) = &mut a.values else { return Err(bad_storage(&a.values)) };
            let [kc, vc] = &mut t.elements[..] else { return Err("a map's storage has two columns".into()) };
            for (k, v) in pairs {
                write_value(k, kt, kc)?;
                write_value(v, vt, vc)?;
                t.rows += 1;
            }
            a.offsets.push(t.rows as u64);
            Ok(())
        }
        (Value::Tuple(items), T::Tuple(types)) if items.len() == types.len() => {
            let ColumnData::Tuple(t) = col else { return Err(bad_storage(col)) };
            write_fields(items, types, &mut t.elements)?;
            t.rows += 1;
            Ok(())
        }
        (v, ty) => Err(format!("{} does not fit {ty}", value_kind(v))),
    }
}

/// The elements of an Array value, or the tuples of a Nested one.
fn write_array(items: &[Value<'_>], ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
    match (ty, col) {
        (DataType::Array(inner), ColumnData::Array(a)) => {
            for x in items {
                write_value(x, inner, &mut a.values)?;
            }
            a.offsets.push(a.values.len() as u64);
            Ok(())
        }
        (DataType::Nested(fields), ColumnData::Array(a)) => {
            let ColumnData::Tuple(t) = &mut a.values else { return Err(bad_storage(&a.values)) };
            for x in items {
                write_nested_fields(x, fields, &mut t.elements)?;
                t.rows += 1;
            }
            a.offsets.push(t.rows as u64);
            Ok(())
        }
        (_, col) => Err(bad_storage(col)),
    }
}

/// A tuple value as one element of a Nested column: its values into the fields' columns.
pub fn write_nested_fields(v: &Value<'_>, fields: &[(String, DataType)], elements: &mut [ColumnData]) -> Result<(), String> {
    let Value::Tuple(items) = v else { return Err(format!("{} is not a tuple of Nested fields", value_kind(v))) };
    if items.len() != fields.len() {
        return Err(format!("a tuple of {} for {} Nested fields", items.len(), fields.len()));
    }
    write_fields(items, fields, elements)
}

/// A tuple's values into the columns of its elements.
fn write_fields<N>(items: &[(Option<&str>, Value<'_>)], types: &[(N, DataType)], elements: &mut [ColumnData]) -> Result<(), String> {
    for ((_, v), ((_, ty), c)) in items.iter().zip(types.iter().zip(elements)) {
        write_value(v, ty, c)?;
    }
    Ok(())
}

/// Append `v` to the first type of a Variant it fits (NULL: no type).
fn write_variant(v: &Value<'_>, types: &[DataType], col: &mut ColumnData) -> Result<(), String> {
    let ColumnData::Variant(vc) = col else { return Err(bad_storage(col)) };
    if *v == Value::Null {
        vc.discriminators.push(VariantColumn::NULL);
        vc.offsets.push(0);
        return Ok(());
    }
    // The variant of the value's own type first, then the first one it converts to exactly.
    let own = type_of(v).and_then(|t| types.iter().position(|x| *x == t));
    for i in own.into_iter().chain((0..types.len()).filter(|&i| Some(i) != own)) {
        let (Some(t), Some(c)) = (types.get(i), vc.variants.get_mut(i)) else {
            return Err("a Variant column's types and variants differ".into());
        };
        let before = c.len();
        if write_value(v, &t.without_low_cardinality(), c).is_ok() {
            vc.discriminators.push(i as u8);
            vc.offsets.push(before as u32);
            return Ok(());
        }
        c.truncate(before).map_err(|e| e.to_string())?;
    }
    Err(format!("{} fits none of the variant's types", value_kind(v)))
}

/// Append `v` to a Dynamic column under the type it has (see [`type_of`]); the column's
/// types are put in wire order when the block is finished.
fn write_dynamic(v: &Value<'_>, col: &mut ColumnData) -> Result<(), String> {
    let ColumnData::Dynamic(d) = col else { return Err(bad_storage(col)) };
    if *v == Value::Null {
        d.values.discriminators.push(VariantColumn::NULL);
        d.values.offsets.push(0);
        return Ok(());
    }
    let t = type_of(v).ok_or_else(|| format!("{} has no type of its own for a Dynamic column", value_kind(v)))?;
    // (The SharedVariant slot, String-typed, is not the String type.)
    let i = match d.types.iter().enumerate().position(|(i, x)| *x == t && Some(i) != d.shared) {
        Some(i) => i,
        None => {
            if d.types.len() >= 250 {
                return Err("more than 250 types in one Dynamic column".into());
            }
            d.values.variants.push(ColumnData::empty_for(&t).map_err(|e| e.to_string())?);
            d.types.push(t);
            d.types.len() - 1
        }
    };
    let (Some(ty), Some(c)) = (d.types.get(i), d.values.variants.get_mut(i)) else {
        return Err("a Dynamic column's types and variants differ".into());
    };
    let before = c.len();
    if let Err(e) = write_value(v, ty, c) {
        c.truncate(before).map_err(|e| e.to_string())?;
        return Err(e);
    }
    d.values.discriminators.push(i as u8);
    d.values.offsets.push(before as u32);
    Ok(())
}

/// The ClickHouse type a dynamic value has on its own (integers as 64-bit, decimals at
/// the widest precision of their storage); `None` for values without one (NULL, JSON).
pub fn type_of(v: &Value<'_>) -> Option<DataType> {
    use DataType as T;
    Some(match v {
        Value::UInt(_) => T::UInt64,
        Value::Int(_) => T::Int64,
        Value::Float32(_) => T::Float32,
        Value::Float64(_) => T::Float64,
        Value::Bool(_) => T::Bool,
        Value::String(_) | Value::Enum(..) => T::String,
        Value::FixedString(b) => T::FixedString(b.len()),
        Value::Uuid(_) => T::Uuid,
        Value::Date(_) => T::Date,
        Value::Date32(_) => T::Date32,
        Value::DateTime(_, tz) => T::DateTime(tz.map(str::to_string)),
        Value::DateTime64 { precision, tz, .. } => T::DateTime64 { precision: *precision, tz: tz.map(str::to_string) },
        Value::Time(_) => T::Time,
        Value::Time64 { precision, .. } => T::Time64(*precision),
        Value::UInt128(_) => T::UInt128,
        Value::Int128(_) => T::Int128,
        Value::UInt256(_) => T::UInt256,
        Value::Int256(_) => T::Int256,
        Value::BFloat16(_) => T::BFloat16,
        Value::Decimal { scale, .. } => T::Decimal { precision: 38, scale: *scale },
        Value::Decimal256 { scale, .. } => T::Decimal { precision: 76, scale: *scale },
        Value::Ipv4(_) => T::Ipv4,
        Value::Ipv6(_) => T::Ipv6,
        Value::Interval(_, kind) => T::Interval(*kind),
        // The elements' one type; elements of different types make an Array(Dynamic), each
        // element a Dynamic value of its own type (as the server infers `[1, 'a']`).
        Value::Array(items) => T::Array(Box::new(one_type(items.iter())?)),
        // The keys' one type (a key cannot be Dynamic), the values' one type as an array's
        // elements have it; an empty map has none.
        Value::Map(pairs) => {
            let mut keys = pairs.iter().map(|(k, _)| type_of(k));
            let key = keys.next()??;
            for k in keys {
                if k? != key {
                    return None;
                }
            }
            T::Map(Box::new(key), Box::new(one_type(pairs.iter().map(|(_, v)| v))?))
        }
        Value::Tuple(items) => T::Tuple(items.iter().map(|(n, x)| Some((n.map(str::to_string), type_of(x)?))).collect::<Option<_>>()?),
        _ => return None,
    })
}

/// The one type of `values` (NULLs make it Nullable, or Dynamic where it cannot be; none:
/// `Nothing`), or `Dynamic` when they have different types.
fn one_type<'v, 'a: 'v>(values: impl Iterator<Item = &'v Value<'a>> + Clone) -> Option<DataType> {
    use DataType as T;
    let mut types = values.clone().filter(|x| **x != Value::Null).map(type_of);
    let inner = match types.next() {
        None => T::Nothing,
        Some(first) => {
            let first = first?;
            let mut same = true;
            for t in types {
                same &= t? == first;
            }
            if !same {
                return Some(T::Dynamic { max_types: None });
            }
            first
        }
    };
    let mut values = values;
    Some(match (values.any(|x| *x == Value::Null), inner) {
        (false, inner) => inner,
        // NULL beside an Array, Tuple or Map, which cannot be Nullable: each a Dynamic value.
        (true, T::Array(_) | T::Tuple(_) | T::Map(..)) => T::Dynamic { max_types: None },
        (true, inner) => T::Nullable(Box::new(inner)),
    })
}

/// A short name of a value's kind, for errors.
fn value_kind(v: &Value<'_>) -> String {
    let s = format!("{v:?}");
    let end = s.find(['(', ' ', '{']).unwrap_or(s.len());
    format!("a {} value", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> DataType {
        DataType::parse(s).unwrap()
    }

    #[test]
    fn rows_of_values_make_a_block_of_the_table_types() {
        let cols =
            [("id", ty("UInt16")), ("s", ty("LowCardinality(String)")), ("d", ty("Decimal(9, 2)")), ("a", ty("Array(Nullable(Int8))"))];
        let r1 =
            [Value::UInt(7), Value::String(b"x"), Value::Decimal { raw: 15, scale: 1 }, Value::Array(vec![Value::Int(-1), Value::Null])];
        let r2 = [Value::Int(8), Value::Enum("x", 1), Value::Decimal { raw: 3, scale: 0 }, Value::Array(vec![])];
        let block = block_from_values(&cols, [&r1[..], &r2[..]]).unwrap();
        assert_eq!(block.rows(), 2);
        assert_eq!(block.column("s").unwrap().data_type(), &ty("LowCardinality(String)"));
        assert_eq!(block.column("s").unwrap().value(1), Value::String(b"x"));
        assert_eq!(block.column("d").unwrap().value(0), Value::Decimal { raw: 150, scale: 2 });
        assert_eq!(block.column("d").unwrap().value(1), Value::Decimal { raw: 300, scale: 2 });
        assert_eq!(block.column("a").unwrap().value(0), Value::Array(vec![Value::Int(-1), Value::Null]));
    }

    #[test]
    fn errors_name_the_row_and_the_column() {
        let cols = [("id", ty("UInt8")), ("e", ty("Enum8('a' = 1)"))];
        let ok = [Value::UInt(1), Value::String(b"a")];
        let too_big = [Value::UInt(300), Value::String(b"a")];
        let e = block_from_values(&cols, [&ok[..], &too_big[..]]).unwrap_err();
        assert_eq!(e, ValuesError::Value { row: 1, column: "id".into(), ty: ty("UInt8"), message: "300 does not fit UInt8".into() });
        assert_eq!(e.to_string(), "row 1: column `id` (UInt8): 300 does not fit UInt8");
        let e = block_from_values(&cols, [&[Value::UInt(1), Value::String(b"b")][..]]).unwrap_err();
        assert!(e.to_string().contains(r#""b" is not an element of Enum8('a' = 1)"#), "{e}");
        let e = block_from_values(&cols, [&[Value::UInt(1)][..]]).unwrap_err();
        assert_eq!(e, ValuesError::Width { row: 0, values: 1, columns: 2 });
        let e = block_from_values(&[("n", ty("UInt8"))], [&[Value::Null][..]]).unwrap_err();
        assert!(e.to_string().ends_with("NULL does not fit the non-Nullable type UInt8"), "{e}");
        // ClickHouse has no NULL Array or Map: a NULL is the empty one, at any depth.
        let cols = [("a", ty("Array(Array(Int8))")), ("m", ty("Map(String, Array(UInt8))")), ("n", ty("Nested(x UInt8)"))];
        let row = [Value::Array(vec![Value::Null, Value::Array(vec![Value::Int(1)])]), Value::Null, Value::Null];
        let block = block_from_values(&cols, [&row[..]]).unwrap();
        let value = |c: &str| block.column(c).unwrap().value(0);
        assert_eq!(value("a"), Value::Array(vec![Value::Array(vec![]), Value::Array(vec![Value::Int(1)])]));
        assert_eq!((value("m"), value("n")), (Value::Map(vec![]), Value::Array(vec![])));
        let e = block_from_values(&[("t", ty("Tuple(UInt8)"))], [&[Value::Null][..]]).unwrap_err();
        assert!(e.to_string().ends_with("NULL does not fit the non-Nullable type Tuple(UInt8)"), "{e}");
    }

    #[test]
    fn a_variant_takes_the_value_in_its_own_type_first() {
        let cols = [("v", ty("Variant(String, UInt64)"))];
        let block = block_from_values(&cols, [&[Value::UInt(5)][..], &[Value::String(b"5")][..], &[Value::Null][..]]).unwrap();
        let v = block.column("v").unwrap();
        assert_eq!((v.value(0), v.value(1), v.value(2)), (Value::UInt(5), Value::String(b"5"), Value::Null));
    }
}
