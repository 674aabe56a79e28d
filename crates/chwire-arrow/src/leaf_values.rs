//! Arrow arrays → the value vectors of ClickHouse's leaf columns, each value checked: integers
//! and floats (lossless casts only), BFloat16, fixed-width bytes, dates, times and timestamps
//! rescaled exactly, intervals, enum values by name or number, decimals. `from_arrow` builds
//! the columns (and their Nullable, Array, Map, Tuple, LowCardinality and Variant shapes) on
//! these.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use crate::schema::{interval_unit, ticks_per_second};
use crate::strings::strings;
use crate::to_arrow::months_per;
use crate::{mismatch, strict, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::Array;
use arrow_buffer::i256;
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::DataType as A;
use chwire_proto::types::IntervalKind;
use chwire_proto::{ColumnData, DataType};

/// Values of a primitive Arrow type, from that type or losslessly cast from a narrower
/// integer or float (values out of range are an error).
pub(crate) fn prim<T: ArrowPrimitiveType>(array: &dyn Array, ty: &DataType) -> Result<Vec<T::Native>> {
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

pub(crate) fn integers_as_i128(array: &dyn Array, ty: &DataType, signed: bool) -> Result<Vec<i128>> {
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

pub(crate) fn bfloat16(array: &dyn Array, ty: &DataType) -> Result<Vec<u16>> {
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
pub(crate) fn fixed_bytes(array: &dyn Array, ty: &DataType, width: usize, pad: bool) -> Result<Vec<u8>> {
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
pub(crate) fn days(array: &dyn Array, ty: &DataType) -> Result<Vec<i32>> {
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
pub(crate) fn ticks(array: &dyn Array, ty: &DataType, per_second: i64) -> Result<Vec<i64>> {
    ticks_as(array, ty, per_second, Some, "")
}

/// [`ticks`], each value then narrowed by `narrow` (`None`: out of `range`, which the error
/// names), in one pass over the array's values: the rescaling and the narrowing are checked for
/// every value and the error is raised after the loop, so that the loop has no early exit.
pub(crate) fn ticks_as<T: Copy + Default>(
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

pub(crate) fn interval(array: &dyn Array, ty: &DataType, kind: IntervalKind) -> Result<Vec<i64>> {
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
pub(crate) fn enum_values(array: &dyn Array, ty: &DataType, items: &[(&str, i64)]) -> Result<Vec<i64>> {
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

pub(crate) fn decimal(array: &dyn Array, ty: &DataType, precision: u8, scale: u8) -> Result<ColumnData> {
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
