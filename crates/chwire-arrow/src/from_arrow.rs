//! Arrow arrays → column data of a target ClickHouse type: the types either mapping writes,
//! plus lossless casts (wider integers, any string/binary flavour, timestamp units where
//! exact, dictionaries, UUID/IPv4/IPv6 from their text, …). Everything else is a
//! [`Error::Mismatch`].

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use crate::leaf_values::{bfloat16, days, decimal, enum_values, fixed_bytes, integers_as_i128, interval, prim, ticks, ticks_as};
use crate::strings::strings;
use crate::text_values::{is_text, text_column};
use crate::{mismatch, strict, Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, PrimitiveArray};
use arrow_buffer::i256;
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::DataType as A;
use chwire_proto::column::{uuid_to_wire, ArrayColumn, LcKeys, LowCardinalityColumn, NullableColumn, TupleColumn, VariantColumn};
use chwire_proto::{ColumnData, DataType};

/// Converts `array` to the storage of `ty`. NULLs are allowed only where `ty` has them.
pub(crate) fn to_column(array: &dyn Array, ty: &DataType) -> Result<ColumnData> {
    use DataType as T;
    // A Dynamic value can be NULL (written as JSON `null`, as ClickHouse does).
    // A NULL list or map is an empty Array or Map (ClickHouse has no Nullable(Array); it reads
    // such files so too, and the core's rows take NULL so): see `list_parts`.
    let accepts_nulls = crate::schema::is_nullable(ty) || matches!(ty, T::Dynamic { .. } | T::Array(_) | T::Map(..) | T::Nested(_));
    if !accepts_nulls && array.logical_null_count() > 0 {
        let row = array.logical_nulls().and_then(|n| n.iter().position(|valid| !valid)).unwrap_or(0);
        return Err(crate::Error::value_at(row, format!("NULL does not fit the non-Nullable type {ty}")));
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
            let values = to_column(values.as_ref(), inner).map_err(|e| in_outer_row(e, &offsets))?;
            ColumnData::Array(Box::new(ArrayColumn { offsets, values }))
        }
        T::Map(k, v) => {
            let (offsets, entries) = list_parts(array, ty)?;
            let tuple = T::Tuple(vec![(None, (**k).clone()), (None, (**v).clone())]);
            let values = to_column(entries.as_ref(), &tuple).map_err(|e| in_outer_row(e, &offsets))?;
            ColumnData::Array(Box::new(ArrayColumn { offsets, values }))
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

/// An error about element `N` of a list's values (`row N: …`) as one about the row whose
/// slice (`offsets`) holds it, so that a message names the row of the batch at any depth.
fn in_outer_row(e: Error, offsets: &[u64]) -> Error {
    match e {
        Error::Value { column, row: Some(n), detail } => {
            let outer = offsets.partition_point(|&o| o <= n).saturating_sub(1) as u64;
            Error::Value { column, row: Some(outer), detail }
        }
        e => e,
    }
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
