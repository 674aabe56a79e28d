//! Arrow arrays → column data of a target ClickHouse type: the types either mapping writes,
//! plus lossless casts (wider integers, any string/binary flavour, timestamp units where
//! exact, dictionaries, UUID/IPv4/IPv6 from their text, …). Everything else is a
//! [`Error::Mismatch`].

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use crate::schema::{interval_unit, ticks_per_second};
use crate::strings::strings;
use crate::text_values::{is_text, text_column};
use crate::to_arrow::months_per;
use crate::{mismatch, strict, Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, PrimitiveArray};
use arrow_buffer::i256;
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::DataType as A;
use chwire_proto::column::{uuid_to_wire, ArrayColumn, LcKeys, LowCardinalityColumn, NullableColumn, TupleColumn, VariantColumn};
use chwire_proto::types::IntervalKind;
use chwire_proto::{ColumnData, DataType};

/// Converts `array` to the storage of `ty`. NULLs are allowed only where `ty` has them.
pub(crate) fn to_column(array: &dyn Array, ty: &DataType) -> Result<ColumnData> {
    use DataType as T;
    // A Dynamic value can be NULL (written as JSON `null`, as ClickHouse does).
    // A NULL list or map is an empty Array or Map (ClickHouse has no Nullable(Array); it reads
    // such files so too): see `list_parts`.
    let accepts_nulls = crate::schema::is_nullable(ty) || matches!(ty, T::Dynamic { .. } | T::Array(_) | T::Map(..) | T::Nested(_));
    if !accepts_nulls && array.logical_null_count() > 0 {
        return Err(mismatch(array, ty, format!("{} NULLs, but the type is not Nullable", array.logical_null_count())));
    }
    if let A::Dictionary(_, value_type) = array.data_type() {
        if !matches!(ty, T::LowCardinality(_) | T::Enum8(_) | T::Enum16(_))
            && !matches!(ty, T::Nullable(i) if matches!(**i, T::Enum8(_) | T::Enum16(_)))
        {
            let plain = cast_with_options(array, value_type, &strict())?;
            return to_column(plain.as_ref(), ty);
        }
    }
    Ok(match ty {
        T::Nullable(inner) => nullable(array, inner)?,
        // ClickHouse writes each placeholder of Nothing as the character '0'.
        T::Nothing => ColumnData::UInt8(vec![b'0'; array.len()]),
        T::UInt8 => ColumnData::UInt8(prim::<UInt8Type>(array, ty)?),
        T::UInt16 => ColumnData::UInt16(prim::<UInt16Type>(array, ty)?),
        T::UInt32 => ColumnData::UInt32(prim::<UInt32Type>(array, ty)?),
        T::UInt64 => ColumnData::UInt64(prim::<UInt64Type>(array, ty)?),
        T::Int8 => ColumnData::Int8(prim::<Int8Type>(array, ty)?),
        T::Int16 => ColumnData::Int16(prim::<Int16Type>(array, ty)?),
        T::Int32 => ColumnData::Int32(prim::<Int32Type>(array, ty)?),
        T::Int64 => ColumnData::Int64(prim::<Int64Type>(array, ty)?),
        T::Float32 => ColumnData::Float32(prim::<Float32Type>(array, ty)?),
        T::Float64 => ColumnData::Float64(prim::<Float64Type>(array, ty)?),
        T::Ipv4 | T::Ipv6 | T::Uuid if is_text(array) => text_column(array, ty)?,
        T::Ipv4 => ColumnData::UInt32(prim::<UInt32Type>(array, ty)?),
        T::Bool => ColumnData::UInt8(match array.data_type() {
            A::Boolean => array.as_boolean().values().iter().map(u8::from).collect(),
            _ => {
                let v = prim::<UInt8Type>(array, ty)?;
                if v.iter().any(|&b| b > 1) {
                    return Err(mismatch(array, ty, "values other than 0 and 1"));
                }
                v
            }
        }),
        T::BFloat16 => ColumnData::UInt16(bfloat16(array, ty)?),
        T::String => ColumnData::String(strings(array, ty)?),
        T::AggregateFunction(_) => ColumnData::AggregateState(strings(array, ty)?),
        T::FixedString(n) => ColumnData::Fixed { width: *n, data: fixed_bytes(array, ty, *n, true)? },
        T::Ipv6 | T::Int256 | T::UInt256 => {
            let w = if matches!(ty, T::Ipv6) { 16 } else { 32 };
            match (ty, array.data_type()) {
                (T::Int256 | T::UInt256, A::Int8 | A::Int16 | A::Int32 | A::Int64 | A::UInt8 | A::UInt16 | A::UInt32 | A::UInt64) => {
                    let signed = matches!(ty, T::Int256);
                    let v = integers_as_i128(array, ty, signed)?;
                    ColumnData::Fixed { width: 32, data: v.iter().flat_map(|&x| i256::from_i128(x).to_le_bytes()).collect() }
                }
                _ => ColumnData::Fixed { width: w, data: fixed_bytes(array, ty, w, false)? },
            }
        }
        T::Uuid => {
            let data = fixed_bytes(array, ty, 16, false)?;
            ColumnData::Fixed {
                width: 16,
                // chunks_exact(16): every chunk converts.
                data: data.chunks_exact(16).flat_map(|c| uuid_to_wire(&c.try_into().unwrap_or_default())).collect(),
            }
        }
        T::Int128 | T::UInt128 => {
            let signed = matches!(ty, T::Int128);
            let v: Vec<i128> = match array.data_type() {
                A::FixedSizeBinary(16) => array
                    .as_fixed_size_binary()
                    .values()
                    .chunks_exact(16)
                    .map(|c| i128::from_le_bytes(c.try_into().unwrap_or_default())) // chunks_exact(16)
                    .collect(),
                A::Decimal128(_, 0) => array.as_primitive::<Decimal128Type>().values().to_vec(),
                _ => integers_as_i128(array, ty, signed)?,
            };
            if signed {
                ColumnData::Int128(v)
            } else {
                ColumnData::UInt128(v.into_iter().map(|x| x as u128).collect())
            }
        }
        T::Date => ColumnData::UInt16(match array.data_type() {
            A::UInt16 => prim::<UInt16Type>(array, ty)?,
            _ => days(array, ty)?
                .into_iter()
                .map(|d| u16::try_from(d).ok())
                .collect::<Option<_>>()
                .ok_or_else(|| mismatch(array, ty, "a date outside 1970-01-01..2149-06-06"))?,
        }),
        T::Date32 => ColumnData::Int32(days(array, ty)?),
        T::DateTime(_) => ColumnData::UInt32(match array.data_type() {
            A::Timestamp(..) => {
                ticks_as(array, ty, 1, |s| u32::try_from(s).ok(), "a time outside 1970-01-01 00:00:00..2106-02-07 06:28:15")?
            }
            _ => prim::<UInt32Type>(array, ty)?,
        }),
        T::DateTime64 { precision, .. } => match array.data_type() {
            A::Timestamp(..) => ColumnData::Int64(ticks(array, ty, 10i64.pow(u32::from(*precision)))?),
            _ => return Err(mismatch(array, ty, "expected a timestamp")),
        },
        T::Time => ColumnData::Int32(ticks_as(array, ty, 1, |s| i32::try_from(s).ok(), "a time outside Int32 seconds")?),
        T::Time64(p) => ColumnData::Int64(ticks(array, ty, 10i64.pow(u32::from(*p)))?),
        T::Interval(kind) => ColumnData::Int64(interval(array, ty, *kind)?),
        T::Enum8(items) => {
            let names: Vec<(&str, i64)> = items.iter().map(|(n, v)| (n.as_str(), i64::from(*v))).collect();
            ColumnData::Int8(enum_values(array, ty, &names)?.into_iter().map(|v| v as i8).collect())
        }
        T::Enum16(items) => {
            let names: Vec<(&str, i64)> = items.iter().map(|(n, v)| (n.as_str(), i64::from(*v))).collect();
            ColumnData::Int16(enum_values(array, ty, &names)?.into_iter().map(|v| v as i16).collect())
        }
        T::Decimal { precision, scale } => decimal(array, ty, *precision, *scale)?,
        T::Array(inner) => {
            let (offsets, values) = list_parts(array, ty)?;
            ColumnData::Array(Box::new(ArrayColumn { offsets, values: to_column(values.as_ref(), inner)? }))
        }
        T::Map(k, v) => {
            let (offsets, entries) = list_parts(array, ty)?;
            let tuple = T::Tuple(vec![(None, (**k).clone()), (None, (**v).clone())]);
            ColumnData::Array(Box::new(ArrayColumn { offsets, values: to_column(entries.as_ref(), &tuple)? }))
        }
        T::Tuple(items) => {
            let A::Struct(fields) = array.data_type() else { return Err(mismatch(array, ty, "expected a struct")) };
            if fields.len() != items.len() {
                return Err(mismatch(array, ty, format!("{} struct members for {} tuple elements", fields.len(), items.len())));
            }
            let s = array.as_struct();
            let elements = items.iter().zip(s.columns()).map(|((_, t), c)| to_column(c.as_ref(), t)).collect::<Result<Vec<_>>>()?;
            ColumnData::Tuple(TupleColumn { rows: array.len(), elements })
        }
        T::LowCardinality(inner) => low_cardinality(array, ty, inner)?,
        T::Variant(types) => variant(array, ty, types)?,
        T::Json { .. } => crate::json_text::json_from_text(array, ty, strings(array, ty)?)?,
        T::Dynamic { .. } => crate::json_text::dynamic_from_text(array, ty, &strings(array, ty)?)?,
        // WKB, as ClickHouse writes geo columns to Parquet.
        T::Geo(kind) if matches!(array.data_type(), A::Binary | A::LargeBinary | A::BinaryView) => {
            crate::wkb::geo_from_wkb(array, ty, *kind)?
        }
        T::Nested(_) | T::Geo(_) | T::SimpleAggregateFunction { .. } | T::QBit { .. } | T::Geometry => {
            to_column(array, &ty.storage().ok_or_else(|| Error::UnsupportedType(ty.to_string()))?)?
        }
        _ => return Err(Error::UnsupportedType(ty.to_string())),
    })
}

/// A `Nullable` column's null map (1 for NULL) from an Arrow validity of `len` rows.
pub(crate) fn null_map(validity: Option<&arrow_buffer::NullBuffer>, len: usize) -> Vec<u8> {
    match validity {
        Some(n) => n.iter().map(|valid| u8::from(!valid)).collect(),
        None => vec![0; len],
    }
}

fn nullable(array: &dyn Array, inner: &DataType) -> Result<ColumnData> {
    let len = array.len();
    let nulls = null_map(array.logical_nulls().as_ref(), len);
    if matches!(inner, DataType::Nothing) {
        if !matches!(array.data_type(), A::Null) && nulls.contains(&0) {
            return Err(mismatch(array, &DataType::Nullable(Box::new(inner.clone())), "non-NULL values for Nullable(Nothing)"));
        }
        return Ok(ColumnData::Nullable(Box::new(NullableColumn { nulls, values: ColumnData::UInt8(vec![b'0'; len]) })));
    }
    if matches!(array.data_type(), A::Null) {
        let mut values = ColumnData::with_capacity_for(inner, len).map_err(|e| Error::value(e.to_string()))?;
        for _ in 0..len {
            values.push_default().map_err(|e| Error::value(e.to_string()))?;
        }
        return Ok(ColumnData::Nullable(Box::new(NullableColumn { nulls, values })));
    }
    if matches!(inner, DataType::Ipv4 | DataType::Ipv6 | DataType::Uuid) {
        // Text is parsed row by row, NULL rows skipped (a dictionary's values unpacked first).
        let plain = match array.data_type() {
            A::Dictionary(_, v) if matches!(**v, A::Utf8 | A::LargeUtf8 | A::Utf8View) => Some(cast_with_options(array, v, &strict())?),
            _ => None,
        };
        let text = plain.as_deref().unwrap_or(array);
        if is_text(text) {
            return Ok(ColumnData::Nullable(Box::new(NullableColumn { nulls, values: text_column(text, inner)? })));
        }
    }
    // The inner conversion reads the values behind NULLs too; arrays of other writers may
    // hold anything there, so NULL rows are replaced by a valid placeholder first.
    let filled;
    let source: &dyn Array = if array.null_count() > 0 && needs_placeholders(array, inner) {
        filled = fill_nulls(array, inner)?;
        filled.as_ref()
    } else {
        array
    };
    let values = match to_column_ignoring_nulls(source, inner) {
        Ok(values) => values,
        // Dates and times are range-checked: what lies under a NULL (pandas' NaT is i64::MIN)
        // may fail the check, so a failure is retried with zero there (values under NULLs
        // are otherwise kept as they are, bit for bit).
        Err(e) => match zero_under_nulls(source)? {
            Some(zeroed) => to_column_ignoring_nulls(zeroed.as_ref(), inner).map_err(|_| e)?,
            None => return Err(e),
        },
    };
    Ok(ColumnData::Nullable(Box::new(NullableColumn { nulls, values })))
}

/// Types whose conversion checks values, so that arbitrary bytes behind NULLs could fail it.
fn needs_placeholders(array: &dyn Array, inner: &DataType) -> bool {
    matches!(inner, DataType::Enum8(_) | DataType::Enum16(_) | DataType::Json { .. })
        || (inner.fixed_width().is_some() && matches!(array.data_type(), A::Binary | A::LargeBinary))
}

/// A date, time, timestamp or duration array with zero under its NULLs: what a writer left
/// there is no value and must not fail a range or exactness check (pandas leaves i64::MIN
/// under NaT). None for other arrays.
fn zero_under_nulls(array: &dyn Array) -> Result<Option<ArrayRef>> {
    let Some(nulls) = array.logical_nulls() else { return Ok(None) };
    let zeroed: ArrayRef = match array.data_type() {
        A::Date32 | A::Time32(_) => {
            let v = cast_with_options(array, &A::Int32, &strict())?;
            let v = v.as_primitive::<arrow_array::types::Int32Type>().values();
            std::sync::Arc::new(arrow_array::Int32Array::new(
                v.iter().zip(nulls.iter()).map(|(&x, ok)| if ok { x } else { 0 }).collect(),
                Some(nulls),
            ))
        }
        A::Date64 | A::Time64(_) | A::Timestamp(..) | A::Duration(_) => {
            let v = cast_with_options(array, &A::Int64, &strict())?;
            let v = v.as_primitive::<Int64Type>().values();
            std::sync::Arc::new(arrow_array::Int64Array::new(
                v.iter().zip(nulls.iter()).map(|(&x, ok)| if ok { x } else { 0 }).collect(),
                Some(nulls),
            ))
        }
        _ => return Ok(None),
    };
    Ok(Some(cast_with_options(zeroed.as_ref(), array.data_type(), &strict())?))
}

/// `array` with the NULL rows' values replaced by the first enum element (dictionary
/// arrays keep their keys; the enum conversion maps null keys itself), an empty JSON
/// object, or zero bytes of a fixed width.
fn fill_nulls(array: &dyn Array, inner: &DataType) -> Result<ArrayRef> {
    let first = match inner {
        DataType::Enum8(items) => items.first().map(|(_, v)| i64::from(*v)),
        DataType::Enum16(items) => items.first().map(|(_, v)| i64::from(*v)),
        _ => None,
    }
    .unwrap_or(0);
    // Enum names (strings or bytes, as ClickHouse's Parquet has them): a NULL row's slot holds
    // no name, so it gets the first element's.
    if let (DataType::Enum8(_) | DataType::Enum16(_), A::Utf8 | A::LargeUtf8 | A::Utf8View | A::Binary | A::LargeBinary | A::BinaryView) =
        (inner, array.data_type())
    {
        let name = match inner {
            DataType::Enum8(items) => items.first().map(|(n, _)| n.as_str()),
            DataType::Enum16(items) => items.first().map(|(n, _)| n.as_str()),
            _ => None,
        }
        .unwrap_or_default();
        let b = cast_with_options(array, &A::LargeBinary, &strict())?;
        let b = b.as_binary::<i64>();
        let filled: arrow_array::LargeBinaryArray =
            (0..b.len()).map(|i| Some(if b.is_null(i) { name.as_bytes() } else { b.value(i) })).collect();
        return Ok(std::sync::Arc::new(filled));
    }
    // JSON text (Parquet's Nullable(JSON)): a NULL row's slot holds no object.
    if matches!(inner, DataType::Json { .. }) {
        let s = cast_with_options(array, &A::LargeUtf8, &strict())?;
        let s = s.as_string::<i64>();
        let filled: arrow_array::LargeStringArray = (0..s.len()).map(|i| Some(if s.is_null(i) { "{}" } else { s.value(i) })).collect();
        return Ok(std::sync::Arc::new(filled));
    }
    // Fixed-width values read from (large) binary: a NULL row's slot may be empty
    // (ClickHouse writes none for a NULL BFloat16), so it becomes zero bytes of the width.
    if let (Some(width), A::Binary | A::LargeBinary) = (inner.fixed_width(), array.data_type()) {
        let b = cast_with_options(array, &A::LargeBinary, &strict())?;
        let b = b.as_binary::<i64>();
        let zeros = vec![0u8; width];
        let filled: arrow_array::LargeBinaryArray =
            (0..b.len()).map(|i| Some(if b.is_null(i) { zeros.as_slice() } else { b.value(i) })).collect();
        return Ok(std::sync::Arc::new(filled));
    }
    if matches!(array.data_type(), A::Dictionary(..)) || !array.data_type().is_integer() {
        return Ok(arrow_array::make_array(array.to_data()));
    }
    let as_i64 = cast_with_options(array, &A::Int64, &strict())?;
    let v = as_i64.as_primitive::<Int64Type>();
    let filled: PrimitiveArray<Int64Type> = (0..v.len()).map(|i| Some(if v.is_null(i) { first } else { v.value(i) })).collect();
    Ok(std::sync::Arc::new(filled))
}

/// [`to_column`] on the values of `array` with its validity dropped (the caller keeps it).
fn to_column_ignoring_nulls(array: &dyn Array, ty: &DataType) -> Result<ColumnData> {
    if array.null_count() == 0 && array.logical_null_count() == 0 {
        return to_column(array, ty);
    }
    if let A::Dictionary(..) = array.data_type() {
        // Enum conversion handles null keys; other dictionaries are unpacked by to_column.
        if matches!(ty, DataType::Enum8(_) | DataType::Enum16(_)) {
            return enum_column(array, ty);
        }
        let plain = cast_with_options(array, dict_value_type(array), &strict())?;
        return to_column_ignoring_nulls(plain.as_ref(), ty);
    }
    let data = array.to_data().into_builder().nulls(None).build()?;
    to_column(arrow_array::make_array(data).as_ref(), ty)
}

fn dict_value_type(array: &dyn Array) -> &A {
    match array.data_type() {
        A::Dictionary(_, v) => v,
        t => t,
    }
}

fn enum_column(array: &dyn Array, ty: &DataType) -> Result<ColumnData> {
    Ok(match ty {
        DataType::Enum8(items) => {
            let names: Vec<(&str, i64)> = items.iter().map(|(n, v)| (n.as_str(), i64::from(*v))).collect();
            ColumnData::Int8(enum_values(array, ty, &names)?.into_iter().map(|v| v as i8).collect())
        }
        DataType::Enum16(items) => {
            let names: Vec<(&str, i64)> = items.iter().map(|(n, v)| (n.as_str(), i64::from(*v))).collect();
            ColumnData::Int16(enum_values(array, ty, &names)?.into_iter().map(|v| v as i16).collect())
        }
        _ => unreachable!("enum types only"),
    })
}

/// Values of a primitive Arrow type, from that type or losslessly cast from a narrower
/// integer or float (values out of range are an error).
fn prim<T: ArrowPrimitiveType>(array: &dyn Array, ty: &DataType) -> Result<Vec<T::Native>> {
    let target = T::DATA_TYPE;
    let src = array.data_type();
    if *src == target {
        return Ok(array.as_primitive::<T>().values().to_vec());
    }
    let lossless = (src.is_integer() && target.is_integer())
        || (matches!(src, A::Float16 | A::Float32) && target == A::Float64)
        || (*src == A::Float16 && target == A::Float32)
        || (*src == A::Boolean && target.is_integer());
    if !lossless {
        return Err(mismatch(array, ty, format!("expected {target}")));
    }
    let cast = cast_with_options(array, &target, &strict()).map_err(|e| mismatch(array, ty, e.to_string()))?;
    Ok(cast.as_primitive::<T>().values().to_vec())
}

fn integers_as_i128(array: &dyn Array, ty: &DataType, signed: bool) -> Result<Vec<i128>> {
    if !array.data_type().is_integer() {
        return Err(mismatch(array, ty, "expected fixed_size_binary or an integer"));
    }
    let v: Vec<i128> = if array.data_type() == &A::UInt64 {
        array.as_primitive::<UInt64Type>().values().iter().map(|&x| i128::from(x)).collect()
    } else {
        prim::<Int64Type>(array, ty)?.into_iter().map(i128::from).collect()
    };
    if !signed && v.iter().any(|&x| x < 0) {
        return Err(mismatch(array, ty, "negative values for an unsigned type"));
    }
    Ok(v)
}

fn bfloat16(array: &dyn Array, ty: &DataType) -> Result<Vec<u16>> {
    match array.data_type() {
        A::Binary | A::LargeBinary | A::FixedSizeBinary(2) => {
            let bytes = fixed_bytes(array, ty, 2, false)?;
            Ok(bytes.chunks_exact(2).map(|c| <[u8; 2]>::try_from(c).map_or(0, u16::from_le_bytes)).collect())
        }
        _ => prim::<Float32Type>(array, ty)?
            .into_iter()
            .map(|f| {
                let bits = f.to_bits();
                (bits & 0xFFFF == 0).then_some((bits >> 16) as u16)
            })
            .collect::<Option<_>>()
            .ok_or_else(|| mismatch(array, ty, "a Float32 value is not exactly a BFloat16")),
    }
}

/// `width` bytes per row: from fixed_size_binary(width), or (with `pad`, as ClickHouse reads
/// FixedString) any string of at most `width` bytes, zero-padded; with `!pad` each value must
/// have exactly `width` bytes.
fn fixed_bytes(array: &dyn Array, ty: &DataType, width: usize, pad: bool) -> Result<Vec<u8>> {
    if let A::FixedSizeBinary(w) = array.data_type() {
        if *w as usize == width {
            let a = array.as_fixed_size_binary();
            let bytes = a.len().checked_mul(width).and_then(|n| a.values().get(..n));
            return Ok(bytes.ok_or_else(|| mismatch(array, ty, "values shorter than the rows"))?.to_vec());
        }
        if !pad || *w as usize > width {
            return Err(mismatch(array, ty, format!("expected fixed_size_binary({width})")));
        }
    }
    let s = strings(array, ty)?;
    let mut out = Vec::with_capacity(s.len().saturating_mul(width));
    for (i, v) in s.iter().enumerate() {
        if v.len() > width || (!pad && v.len() != width) {
            return Err(mismatch(array, ty, format!("row {i} has {} bytes, expected {width}", v.len())));
        }
        out.extend_from_slice(v);
        out.resize(out.len().saturating_add(width.saturating_sub(v.len())), 0); // v.len() <= width
    }
    Ok(out)
}

/// Days since the epoch from date32, date64 (whole days) or integers.
fn days(array: &dyn Array, ty: &DataType) -> Result<Vec<i32>> {
    match array.data_type() {
        A::Date32 => Ok(array.as_primitive::<Date32Type>().values().to_vec()),
        A::Date64 => array
            .as_primitive::<Date64Type>()
            .values()
            .iter()
            .map(|&ms| (ms % 86_400_000 == 0).then(|| i32::try_from(ms / 86_400_000).ok()).flatten())
            .collect::<Option<_>>()
            .ok_or_else(|| mismatch(array, ty, "a date64 value is not a whole day in range")),
        _ => Err(mismatch(array, ty, "expected date32")),
    }
}

/// Values of a timestamp/duration/time array converted to `per_second` ticks, exactly.
fn ticks(array: &dyn Array, ty: &DataType, per_second: i64) -> Result<Vec<i64>> {
    ticks_as(array, ty, per_second, Some, "")
}

/// [`ticks`], each value then narrowed by `narrow` (`None`: out of `range`, which the error
/// names), in one pass over the array's values: the rescaling and the narrowing are checked for
/// every value and the error is raised after the loop, so that the loop has no early exit.
fn ticks_as<T: Copy + Default>(
    array: &dyn Array,
    ty: &DataType,
    per_second: i64,
    narrow: impl Fn(i64) -> Option<T>,
    range: &str,
) -> Result<Vec<T>> {
    let unit = match array.data_type() {
        A::Timestamp(u, _) | A::Duration(u) | A::Time32(u) | A::Time64(u) => *u,
        A::Int64 | A::Int32 | A::Int16 | A::Int8 | A::UInt8 | A::UInt16 | A::UInt32
            if !matches!(ty, DataType::DateTime64 { .. } | DataType::DateTime(_)) =>
        {
            // Raw ticks (e.g. a Time64 written as int64 by another tool): taken as they are.
            return prim::<Int64Type>(array, ty)?.into_iter().map(&narrow).collect::<Option<_>>().ok_or_else(|| mismatch(array, ty, range));
        }
        _ => return Err(mismatch(array, ty, "expected a timestamp, duration or time")),
    };
    let raw = cast_with_options(array, &A::Int64, &strict())?;
    let raw = raw.as_primitive::<Int64Type>().values();
    let (exact, in_range, out) = rescaled(raw, ticks_per_second(unit), per_second, narrow);
    if !exact {
        return Err(mismatch(array, ty, "a value is not exact or out of range at the target precision"));
    }
    if !in_range {
        return Err(mismatch(array, ty, range));
    }
    Ok(out)
}

/// `raw` ticks of `from` per second as ticks of `to` per second, narrowed; whether every value
/// was exact (and did not overflow), and whether every one was in the narrowed range.
fn rescaled<T: Copy + Default>(raw: &[i64], from: i64, to: i64, narrow: impl Fn(i64) -> Option<T>) -> (bool, bool, Vec<T>) {
    let (mut exact, mut in_range) = (true, true);
    let mut out = Vec::with_capacity(raw.len());
    let mut push = |x: Option<i64>| {
        exact &= x.is_some();
        let n = x.and_then(&narrow);
        in_range &= n.is_some() || x.is_none();
        n.unwrap_or_default()
    };
    // Ticks per second are powers of ten from 1 to 10^9, so one divides the other; the usual
    // divisors are constants here, which the compiler turns into multiplications.
    fn down<const D: i64>(x: i64) -> Option<i64> {
        (x.checked_rem(D)? == 0).then(|| x.checked_div(D)).flatten()
    }
    match (from, to) {
        _ if from == to => out.extend(raw.iter().map(|&x| push(Some(x)))),
        (1_000, 1) => out.extend(raw.iter().map(|&x| push(down::<1_000>(x)))),
        (1_000_000, 1) => out.extend(raw.iter().map(|&x| push(down::<1_000_000>(x)))),
        (1_000_000_000, 1) => out.extend(raw.iter().map(|&x| push(down::<1_000_000_000>(x)))),
        _ if to > from => {
            let m = to.checked_div(from.max(1)).unwrap_or(1);
            out.extend(raw.iter().map(|&x| push(x.checked_mul(m))));
        }
        _ => {
            let d = from.checked_div(to.max(1)).unwrap_or(1).max(1);
            out.extend(raw.iter().map(|&x| push((x.checked_rem(d) == Some(0)).then(|| x.checked_div(d)).flatten())));
        }
    }
    (exact, in_range, out)
}

fn interval(array: &dyn Array, ty: &DataType, kind: IntervalKind) -> Result<Vec<i64>> {
    match (interval_unit(kind), array.data_type()) {
        (Some(u), A::Duration(_)) => ticks(array, ty, ticks_per_second(u)),
        (None, A::Interval(arrow_schema::IntervalUnit::YearMonth)) => {
            let per = months_per(kind) as i32;
            array
                .as_primitive::<IntervalYearMonthType>()
                .values()
                .iter()
                .map(|&m| (m.checked_rem(per)? == 0).then(|| m.checked_div(per).map(i64::from)).flatten())
                .collect::<Option<_>>()
                .ok_or_else(|| mismatch(array, ty, "a month count is not a whole number of the unit"))
        }
        (_, t) if t.is_integer() => prim::<Int64Type>(array, ty),
        _ => Err(mismatch(array, ty, "expected a duration or an integer")),
    }
}

/// Enum values from a dictionary or plain array of names, or from integers (checked
/// against the elements). Null dictionary keys become the first element (a placeholder).
fn enum_values(array: &dyn Array, ty: &DataType, items: &[(&str, i64)]) -> Result<Vec<i64>> {
    let by_name = |name: &[u8]| items.iter().find(|(n, _)| n.as_bytes() == name).map(|(_, v)| *v);
    let first = items.first().map_or(0, |(_, v)| *v);
    match array.data_type() {
        A::Dictionary(_, _) => {
            let dict = array.as_any_dictionary();
            let names = strings(dict.values().as_ref(), ty)?;
            let values = names.iter().map(by_name).collect::<Vec<_>>();
            let keys = cast_with_options(dict.keys(), &A::Int64, &CastOptions::default())?;
            let keys = keys.as_primitive::<Int64Type>();
            (0..keys.len())
                .map(|i| {
                    if keys.is_null(i) {
                        return Ok(first);
                    }
                    let k = keys.value(i) as usize;
                    values.get(k).copied().flatten().ok_or_else(|| {
                        let name = if k < names.len() { String::from_utf8_lossy(names.get(k)).into_owned() } else { format!("key {k}") };
                        mismatch(array, ty, format!("{name:?} is not an element"))
                    })
                })
                .collect()
        }
        A::Utf8 | A::LargeUtf8 | A::Utf8View | A::Binary | A::LargeBinary | A::BinaryView => strings(array, ty)?
            .iter()
            .map(|n| by_name(n).ok_or_else(|| mismatch(array, ty, format!("{:?} is not an element", String::from_utf8_lossy(n)))))
            .collect(),
        t if t.is_integer() => {
            let v = prim::<Int64Type>(array, ty)?;
            if let Some(bad) = v.iter().find(|x| !items.iter().any(|(_, e)| e == *x)) {
                return Err(mismatch(array, ty, format!("{bad} is not an element")));
            }
            Ok(v)
        }
        _ => Err(mismatch(array, ty, "expected a dictionary of names, names or integers")),
    }
}

fn decimal(array: &dyn Array, ty: &DataType, precision: u8, scale: u8) -> Result<ColumnData> {
    let (src_scale, v): (i8, Vec<i256>) = match array.data_type() {
        A::Decimal32(_, s) => (*s, array.as_primitive::<Decimal32Type>().values().iter().map(|&x| i256::from_i128(x.into())).collect()),
        A::Decimal64(_, s) => (*s, array.as_primitive::<Decimal64Type>().values().iter().map(|&x| i256::from_i128(x.into())).collect()),
        A::Decimal128(_, s) => (*s, array.as_primitive::<Decimal128Type>().values().iter().map(|&x| i256::from_i128(x)).collect()),
        A::Decimal256(_, s) => (*s, array.as_primitive::<Decimal256Type>().values().to_vec()),
        t if t.is_integer() => (0, integers_as_i128(array, ty, true)?.into_iter().map(i256::from_i128).collect()),
        _ => return Err(mismatch(array, ty, "expected a decimal")),
    };
    if src_scale < 0 || src_scale as u8 > scale {
        return Err(mismatch(array, ty, format!("scale {src_scale} does not fit scale {scale} exactly")));
    }
    let mul = i256::from_i128(10)
        .checked_pow(u32::from(scale).saturating_sub(src_scale as u32)) // src_scale <= scale, checked above
        .ok_or_else(|| mismatch(array, ty, format!("scale {scale} is beyond Decimal256's")))?;
    let bound = i256::from_i128(10).checked_pow(u32::from(precision)).unwrap_or(i256::MAX);
    let mut scaled = Vec::with_capacity(v.len());
    for x in v {
        let y = x.checked_mul(mul).filter(|y| *y < bound && *y > bound.wrapping_neg());
        scaled.push(y.ok_or_else(|| mismatch(array, ty, format!("a value does not fit precision {precision}")))?);
    }
    Ok(match precision {
        0..=9 => ColumnData::Int32(scaled.iter().map(|x| x.as_i128() as i32).collect()),
        10..=18 => ColumnData::Int64(scaled.iter().map(|x| x.as_i128() as i64).collect()),
        19..=38 => ColumnData::Int128(scaled.iter().map(|x| x.as_i128()).collect()),
        _ => ColumnData::Fixed { width: 32, data: scaled.iter().flat_map(|x| x.to_le_bytes()).collect() },
    })
}

/// Offsets (rebased to 0) and the sliced values of a list of any offset width.
/// A list or map array's offsets (from 0) and the values they index; a NULL list is an empty
/// one (whatever values its slot spans, which are left out).
fn list_parts(array: &dyn Array, ty: &DataType) -> Result<(Vec<u64>, ArrayRef)> {
    let (offsets, values) = list_offsets_values(array, ty)?;
    match array.logical_nulls().filter(|n| n.null_count() > 0) {
        Some(nulls) => empty_for_nulls(&nulls, offsets, values),
        None => Ok((offsets, values)),
    }
}

/// `offsets` with every NULL row empty; the values of NULL rows that spanned some are taken out.
fn empty_for_nulls(nulls: &arrow_buffer::NullBuffer, offsets: Vec<u64>, values: ArrayRef) -> Result<(Vec<u64>, ArrayRef)> {
    let spans = || offsets.windows(2).zip(nulls.iter()).filter_map(|(w, valid)| if let [a, b] = *w { Some((a, b, valid)) } else { None });
    if spans().all(|(a, b, valid)| valid || a == b) {
        return Ok((offsets, values)); // the usual case: NULL rows span nothing
    }
    let mut kept: Vec<u64> = Vec::new();
    let mut out = Vec::with_capacity(offsets.len());
    out.push(0u64);
    for (a, b, valid) in spans() {
        if valid {
            kept.extend(a..b);
        }
        out.push(kept.len() as u64);
    }
    let values = arrow_select::take::take(values.as_ref(), &arrow_array::UInt64Array::from(kept), None)?;
    Ok((out, values))
}

fn list_offsets_values(array: &dyn Array, ty: &DataType) -> Result<(Vec<u64>, ArrayRef)> {
    Ok(match array.data_type() {
        A::List(_) => {
            let l = array.as_list::<i32>();
            rebase(l.value_offsets().iter().map(|&x| i64::from(x)), l.values().clone())
        }
        A::LargeList(_) => {
            let l = array.as_list::<i64>();
            rebase(l.value_offsets().iter().copied(), l.values().clone())
        }
        A::FixedSizeList(_, n) => {
            let l = array.as_fixed_size_list();
            let n = *n as i64;
            let start = l.offset() as i64;
            rebase((0..=l.len() as i64).map(|i| start.saturating_add(i).saturating_mul(n)), l.values().clone())
        }
        A::Map(..) => {
            let m = array.as_map();
            rebase(m.value_offsets().iter().map(|&x| i64::from(x)), std::sync::Arc::new(m.entries().clone()))
        }
        // A view's lists may overlap or come in any order: made a list (its values copied in
        // row order) first.
        A::ListView(item) | A::LargeListView(item) => {
            let list = cast_with_options(array, &A::LargeList(item.clone()), &strict())?;
            return list_offsets_values(list.as_ref(), ty);
        }
        _ => return Err(mismatch(array, ty, "expected a list")),
    })
}

fn rebase(offsets: impl Iterator<Item = i64>, values: ArrayRef) -> (Vec<u64>, ArrayRef) {
    let offsets: Vec<i64> = offsets.collect();
    let start = offsets.first().copied().unwrap_or(0);
    let end = offsets.last().copied().unwrap_or(0);
    // A valid array's offsets never decrease and lie within its values.
    let values = values.slice(start as usize, end.saturating_sub(start) as usize);
    (offsets.iter().map(|&o| o.saturating_sub(start) as u64).collect(), values)
}

/// LowCardinality from a dictionary array, else from the plain values. For a Nullable inner
/// type ClickHouse's dictionary starts with the NULL entry: a dictionary without nulls (as
/// ClickHouse 26.9 and chwire write them: the nulls on the keys) gets it in front, the keys
/// one more; one whose entry 0 alone is null (chwire's files before 2026-11-27) has it already.
fn low_cardinality(array: &dyn Array, ty: &DataType, inner: &DataType) -> Result<ColumnData> {
    let nullable = inner.is_nullable();
    if let A::Dictionary(..) = array.data_type() {
        let dict = array.as_any_dictionary();
        let keys = cast_with_options(dict.keys(), &A::UInt64, &CastOptions::default())?;
        let keys = keys.as_primitive::<UInt64Type>();
        let values = dict.values();
        let with_slot = nullable && values.null_count() == 0;
        let slot_given = nullable
            && !values.is_empty()
            && values.null_count() == 1
            && values.is_null(0)
            && (0..keys.len()).all(|i| keys.is_null(i) || keys.value(i) != 0);
        // Not Nullable: no NULL to point at, so a null key goes the plain way (an error there).
        let ch_layout = with_slot || slot_given || (!nullable && values.null_count() == 0 && keys.null_count() == 0);
        if ch_layout {
            let (values, shift) = if with_slot {
                let slot = arrow_array::new_null_array(values.data_type(), 1);
                (arrow_select::concat::concat(&[slot.as_ref(), values.as_ref()])?, 1)
            } else {
                (values.clone(), 0)
            };
            let dictionary = to_column_ignoring_nulls(values.as_ref(), inner.strip_nullable())?;
            let k: Vec<u64> = (0..keys.len()).map(|i| if keys.is_null(i) { 0 } else { keys.value(i).saturating_add(shift) }).collect();
            let n = dictionary.len();
            let keys = if n <= 1 << 8 {
                LcKeys::U8(k.iter().map(|&x| x as u8).collect())
            } else if n <= 1 << 16 {
                LcKeys::U16(k.iter().map(|&x| x as u16).collect())
            } else if n <= 1 << 32 {
                LcKeys::U32(k.iter().map(|&x| x as u32).collect())
            } else {
                LcKeys::U64(k)
            };
            return Ok(ColumnData::LowCardinality(Box::new(LowCardinalityColumn { dictionary, keys })));
        }
    }
    let plain = to_column(array, inner)?;
    let lc = LowCardinalityColumn::from_plain(plain, nullable).map_err(|e| mismatch(array, ty, e.to_string()))?;
    Ok(ColumnData::LowCardinality(Box::new(lc)))
}

/// Variant from a union: member i is type i (by position), members beyond the types (the
/// "NULL" member) are NULL rows. Or from a struct of one member per type, as Parquet holds a
/// Variant (`for_parquet`): the member set in a row is its type, none (or a NULL struct) a
/// NULL row, more than one an error.
fn variant(array: &dyn Array, ty: &DataType, types: &[DataType]) -> Result<ColumnData> {
    if let A::Struct(_) = array.data_type() {
        return variant_of_struct(array, ty, types);
    }
    let A::Union(fields, _) = array.data_type() else { return Err(mismatch(array, ty, "expected a union")) };
    let u = array.as_union();
    let ids: Vec<i8> = fields.iter().map(|(id, _)| id).collect();
    let member = |type_id: i8| ids.iter().position(|&i| i == type_id);
    if ids.len() < types.len() {
        return Err(mismatch(array, ty, format!("{} union members for {} variant types", ids.len(), types.len())));
    }
    let mut discriminators = Vec::with_capacity(u.len());
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); types.len()];
    for i in 0..u.len() {
        let Some(m) = member(u.type_id(i)) else {
            return Err(mismatch(array, ty, format!("row {i} has union type id {}, which no member has", u.type_id(i))));
        };
        match rows.get_mut(m) {
            Some(rows) => {
                discriminators.push(m as u8);
                rows.push(u.value_offset(i) as u32);
            }
            None => discriminators.push(VariantColumn::NULL),
        }
    }
    let mut variants = Vec::with_capacity(types.len());
    for ((t, &id), rows) in types.iter().zip(&ids).zip(&mut rows) {
        let child = u.child(id);
        let idx = arrow_array::UInt32Array::from(std::mem::take(rows));
        let taken = arrow_select::take::take(child.as_ref(), &idx, None)?;
        variants.push(to_column(taken.as_ref(), t)?);
    }
    let v = VariantColumn::try_new(discriminators, variants).map_err(|e| mismatch(array, ty, e))?;
    Ok(ColumnData::Variant(Box::new(v)))
}

/// Variant from a struct of one member per variant type (see [`variant`]).
fn variant_of_struct(array: &dyn Array, ty: &DataType, types: &[DataType]) -> Result<ColumnData> {
    let s = array.as_struct();
    if s.num_columns() != types.len() {
        return Err(mismatch(array, ty, format!("{} struct members for {} variant types", s.num_columns(), types.len())));
    }
    let mut discriminators = Vec::with_capacity(s.len());
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); types.len()];
    for i in 0..s.len() {
        let mut set = s.columns().iter().enumerate().filter(|(_, c)| s.is_valid(i) && c.is_valid(i)).map(|(m, _)| m);
        match (set.next(), set.next()) {
            (None, _) => discriminators.push(VariantColumn::NULL),
            (Some(m), None) => {
                let row = u32::try_from(i).map_err(|_| mismatch(array, ty, "more than 2^32 rows"))?;
                rows.get_mut(m).ok_or_else(|| mismatch(array, ty, "a member beyond the types"))?.push(row);
                discriminators.push(m as u8);
            }
            (Some(a), Some(b)) => {
                return Err(mismatch(array, ty, format!("row {i} has values in more than one variant member ({a} and {b})")));
            }
        }
    }
    let mut variants = Vec::with_capacity(types.len());
    for ((t, child), rows) in types.iter().zip(s.columns()).zip(rows) {
        let taken = arrow_select::take::take(child.as_ref(), &arrow_array::UInt32Array::from(rows), None)?;
        variants.push(to_column(taken.as_ref(), t)?);
    }
    let v = VariantColumn::try_new(discriminators, variants).map_err(|e| mismatch(array, ty, e))?;
    Ok(ColumnData::Variant(Box::new(v)))
}

#[cfg(test)]
mod tests {
    use super::rescaled;

    #[test]
    fn ticks_rescale_exactly_and_report_what_failed() {
        let secs = |v: &[i64], from| rescaled(v, from, 1, |s| u32::try_from(s).ok());
        assert_eq!(secs(&[0, 3_000, -0], 1_000), (true, true, vec![0, 3, 0]));
        assert_eq!(secs(&[7_000_000], 1_000_000), (true, true, vec![7]));
        assert_eq!(secs(&[9_000_000_000], 1_000_000_000), (true, true, vec![9]));
        assert!(!secs(&[3_000, 3_001], 1_000).0, "a millisecond is not a whole second");
        assert!(!secs(&[1_000_000_001], 1_000_000_000).0);
        assert!(secs(&[-1_000], 1_000).0);
        assert!(!secs(&[-1_000], 1_000).1, "before 1970 is out of DateTime's range");
        assert!(!secs(&[(1 << 32) * 1_000], 1_000).1, "after 2106 too");
        // Upwards, and the divisors that are not special-cased.
        assert_eq!(rescaled(&[2, -3], 1, 1_000, Some), (true, true, vec![2_000, -3_000]));
        assert!(!rescaled(&[i64::MAX / 10], 1, 1_000, Some).0, "an overflow is not exact");
        assert_eq!(rescaled(&[1_000_000], 1_000_000, 1_000, Some), (true, true, vec![1_000]));
        assert!(!rescaled(&[1_000_001], 1_000_000, 1_000, Some).0);
        assert_eq!(rescaled(&[5, 6], 1_000, 1_000, |t| i32::try_from(t).ok()), (true, true, vec![5, 6]));
    }
}
