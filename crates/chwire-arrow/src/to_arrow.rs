//! Column data → Arrow arrays. Buffers move without copying where the layouts agree
//! (fixed-width values, String offsets and bytes, Array offsets in the rich mapping); the
//! rest is converted value by value (documented per type in docs/ARROW.md).

use crate::options::ArrowOptions;
use crate::schema::{arrow_type, inner_field, interval_unit, tuple_fields, unit_of_scale, variant_fields};
use crate::{Error, Result};
use arrow_array::types::*;
use arrow_array::{
    make_array, Array, ArrayRef, BooleanArray, DictionaryArray, FixedSizeBinaryArray, GenericByteArray, LargeListArray, ListArray,
    MapArray, NullArray, PrimitiveArray, StructArray, UnionArray,
};
use arrow_buffer::{i256, ArrowNativeType, BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType as A, Field, TimeUnit};
use chwire_proto::column::{uuid_from_wire, ArrayColumn, LcKeys, LowCardinalityColumn, NullableColumn, TupleColumn, VariantColumn};
use chwire_proto::types::IntervalKind;
use chwire_proto::{ColumnData, DataType, StringColumn};
use std::sync::Arc;

/// Converts one column (`data` of type `ty`) with optional validity `nulls` to the array of
/// `arrow_type(ty, opts)`.
pub(crate) fn to_array(ty: &DataType, data: ColumnData, nulls: Option<NullBuffer>, opts: &ArrowOptions) -> Result<ArrayRef> {
    use ColumnData as D;
    use DataType as T;
    let rich = opts.rich_mode();
    let unexpected = |data: &ColumnData| Error::value(format!("storage {data:?} does not fit type {ty}"));
    Ok(match (ty, data) {
        (T::Nullable(inner), D::Nullable(n)) => {
            let NullableColumn { nulls: map, values } = *n;
            let validity = validity_of(&map);
            if matches!(**inner, T::Nothing) {
                return Ok(Arc::new(NullArray::new(map.len())));
            }
            to_array(inner, values, Some(validity), opts)?
        }
        (T::Nothing, d) => Arc::new(NullArray::new(d.len())),
        (T::UInt8, D::UInt8(v)) => prim::<UInt8Type>(v, nulls),
        (T::UInt16, D::UInt16(v)) => prim::<UInt16Type>(v, nulls),
        (T::UInt32 | T::Ipv4, D::UInt32(v)) => prim::<UInt32Type>(v, nulls),
        (T::UInt64, D::UInt64(v)) => prim::<UInt64Type>(v, nulls),
        (T::Int8, D::Int8(v)) => prim::<Int8Type>(v, nulls),
        (T::Int16, D::Int16(v)) => prim::<Int16Type>(v, nulls),
        (T::Int32, D::Int32(v)) => prim::<Int32Type>(v, nulls),
        (T::Int64, D::Int64(v)) => prim::<Int64Type>(v, nulls),
        (T::Float32, D::Float32(v)) => prim::<Float32Type>(v, nulls),
        (T::Float64, D::Float64(v)) => prim::<Float64Type>(v, nulls),
        (T::Bool, D::UInt8(v)) => Arc::new(BooleanArray::new(BooleanBuffer::collect_bool(v.len(), |i| v[i] != 0), nulls)),
        (T::BFloat16, D::UInt16(v)) if rich => {
            Arc::new(PrimitiveArray::<Float32Type>::new(widen(&v, |b| f32::from_bits(u32::from(b) << 16)), nulls))
        }
        (T::BFloat16, D::UInt16(v)) => {
            let offsets = (0..=v.len()).map(|i| i as i32 * 2).collect::<Vec<_>>();
            binary_array::<i32>(offsets, Buffer::from_vec(v), nulls, false)?
        }
        (T::String, D::String(s)) => string_array(s, nulls, opts)?,
        (T::AggregateFunction(_), D::AggregateState(s)) => {
            let o = ArrowOptions { string_as_string: false, ..opts.clone() };
            string_array(s, nulls, &o)?
        }
        (T::FixedString(n), D::Fixed { data, .. }) if opts.fixed_string_as_fixed_byte_array => fixed(*n, Buffer::from_vec(data), nulls)?,
        (T::FixedString(n), D::Fixed { data, .. }) => {
            let rows = data.len() / n;
            let s = StringColumn::try_from_parts((0..=rows as u64).map(|i| i * *n as u64).collect(), data)
                .map_err(|e| Error::value(e.to_string()))?;
            let o = ArrowOptions { string_as_string: false, ..opts.clone() };
            string_array(s, nulls, &o)?
        }
        (T::Uuid, D::Fixed { data, .. }) => {
            let canonical: Vec<u8> = data.chunks_exact(16).flat_map(uuid_from_wire).collect();
            fixed(16, Buffer::from_vec(canonical), nulls)?
        }
        (T::Ipv6 | T::Int256 | T::UInt256, D::Fixed { width, data }) => fixed(width, Buffer::from_vec(data), nulls)?,
        (T::Int128, D::Int128(v)) => fixed(16, Buffer::from_vec(v), nulls)?,
        (T::UInt128, D::UInt128(v)) => fixed(16, Buffer::from_vec(v), nulls)?,
        (T::Date, D::UInt16(v)) => Arc::new(PrimitiveArray::<Date32Type>::new(widen(&v, i32::from), nulls)),
        (T::Date32, D::Int32(v)) => prim::<Date32Type>(v, nulls),
        (T::DateTime(tz), D::UInt32(v)) if rich => {
            let values = widen(&v, i64::from);
            Arc::new(PrimitiveArray::<TimestampSecondType>::new(values, nulls).with_timezone(opts.timezone_or_default(tz)))
        }
        (T::DateTime(_), D::UInt32(v)) => prim::<UInt32Type>(v, nulls),
        (T::DateTime64 { precision, tz }, D::Int64(v)) => {
            let (unit, mul) = unit_of_scale(*precision);
            let tz = opts.timezone_or_default(tz);
            let values = scale_up(v, mul)?;
            match unit {
                TimeUnit::Second => Arc::new(PrimitiveArray::<TimestampSecondType>::new(values, nulls).with_timezone(tz)),
                TimeUnit::Millisecond => Arc::new(PrimitiveArray::<TimestampMillisecondType>::new(values, nulls).with_timezone(tz)),
                TimeUnit::Microsecond => Arc::new(PrimitiveArray::<TimestampMicrosecondType>::new(values, nulls).with_timezone(tz)),
                TimeUnit::Nanosecond => Arc::new(PrimitiveArray::<TimestampNanosecondType>::new(values, nulls).with_timezone(tz)),
            }
        }
        (T::Enum8(items), D::Int8(v)) if rich => {
            let names: Vec<&str> = items.iter().map(|(n, _)| n.as_str()).collect();
            let pos = |x: i8| items.iter().position(|(_, e)| *e == x);
            // Under a NULL the server keeps any value (18.16: 0, which need not be an item).
            let keys = v
                .iter()
                .enumerate()
                .map(|(i, &x)| if is_null(&nulls, i) { Some(0) } else { pos(x).map(|p| p as i8) })
                .collect::<Option<Vec<i8>>>()
                .ok_or_else(|| Error::value("value outside its enum"))?;
            enum_dict::<Int8Type>(keys, &names, nulls)?
        }
        (T::Enum16(items), D::Int16(v)) if rich => {
            let names: Vec<&str> = items.iter().map(|(n, _)| n.as_str()).collect();
            let mut lookup = vec![-1i32; 65536];
            for (p, (_, e)) in items.iter().enumerate() {
                lookup[(*e as u16) as usize] = p as i32;
            }
            let keys = v
                .iter()
                .enumerate()
                .map(
                    |(i, &x)| {
                        if is_null(&nulls, i) {
                            Some(0)
                        } else {
                            i16::try_from(lookup[(x as u16) as usize]).ok().filter(|k| *k >= 0)
                        }
                    },
                )
                .collect::<Option<Vec<i16>>>();
            enum_dict::<Int16Type>(keys.ok_or_else(|| Error::value("value outside its enum"))?, &names, nulls)?
        }
        (T::Enum8(_), D::Int8(v)) => prim::<Int8Type>(v, nulls),
        (T::Enum16(_), D::Int16(v)) => prim::<Int16Type>(v, nulls),
        (T::Decimal { precision, scale }, d) => decimal(*precision, *scale, d, nulls)?,
        (T::Time, D::Int32(v)) if rich => Arc::new(PrimitiveArray::<DurationSecondType>::new(widen(&v, i64::from), nulls)),
        (T::Time, D::Int32(v)) => prim::<Time32SecondType>(v, nulls),
        (T::Time64(p), D::Int64(v)) => {
            let (unit, mul) = unit_of_scale(*p);
            let values = scale_up(v, mul)?;
            match (rich, unit) {
                (true, u) => duration(values, u, nulls),
                (false, TimeUnit::Second | TimeUnit::Millisecond) => {
                    let narrow = values
                        .iter()
                        .map(|&x| i32::try_from(x).ok())
                        .collect::<Option<Vec<i32>>>()
                        .ok_or_else(|| Error::value("a Time64 value does not fit Arrow's 32-bit time"))?;
                    if unit == TimeUnit::Second {
                        prim::<Time32SecondType>(narrow, nulls)
                    } else {
                        prim::<Time32MillisecondType>(narrow, nulls)
                    }
                }
                (false, TimeUnit::Microsecond) => Arc::new(PrimitiveArray::<Time64MicrosecondType>::new(values, nulls)),
                (false, TimeUnit::Nanosecond) => Arc::new(PrimitiveArray::<Time64NanosecondType>::new(values, nulls)),
            }
        }
        (T::Interval(kind), D::Int64(v)) => match interval_unit(*kind) {
            Some(u) => duration(ScalarBuffer::from(v), u, nulls),
            None => prim::<Int64Type>(v, nulls),
        },
        (T::Array(inner), D::Array(a)) => {
            let ArrayColumn { offsets, values } = *a;
            let item = Arc::new(inner_field("item", inner, opts)?);
            let values = to_array(inner, values, None, opts)?;
            if rich {
                Arc::new(LargeListArray::try_new(item, large_offsets(offsets)?, values, nulls)?)
            } else {
                Arc::new(ListArray::try_new(item, small_offsets(offsets)?, values, nulls)?)
            }
        }
        (T::Map(k, v), D::Array(a)) => {
            let ArrayColumn { offsets, values } = *a;
            let A::Map(entries_field, sorted) = arrow_type(ty, opts)? else { unreachable!("maps map to maps") };
            let tuple = T::Tuple(vec![(None, (**k).clone()), (None, (**v).clone())]);
            let entries = match (&**k, values) {
                (T::Nothing, D::Tuple(TupleColumn { elements, .. })) => {
                    let A::Struct(fields) = entries_field.data_type() else { unreachable!("map entries are structs") };
                    let mut elements = elements.into_iter();
                    let keys = elements.next().map_or(0, |k| k.len());
                    let values = elements.next().ok_or_else(|| Error::value("map entries without values"))?;
                    let keys: ArrayRef = Arc::new(PrimitiveArray::<UInt8Type>::from(vec![0u8; keys]));
                    StructArray::try_new(fields.clone(), vec![keys, to_array(v, values, None, opts)?], None)?
                }
                (_, values) => struct_of(&tuple, values, None, opts, Some(&entries_field))?,
            };
            Arc::new(MapArray::try_new(entries_field, small_offsets(offsets)?, entries, nulls, sorted)?)
        }
        (T::Tuple(_), data) => Arc::new(struct_of(ty, data, nulls, opts, None)?),
        (T::LowCardinality(inner), D::LowCardinality(l)) => low_cardinality(inner, *l, opts)?,
        (T::Variant(types), D::Variant(v)) => variant(types, *v, opts)?,
        (T::Nested(_) | T::Geo(_) | T::SimpleAggregateFunction { .. } | T::QBit { .. } | T::Geometry, d) => {
            to_array(&ty.storage().ok_or_else(|| Error::UnsupportedType(ty.to_string()))?, d, nulls, opts)?
        }
        (T::Dynamic { .. } | T::Json { .. }, d) => {
            let text = crate::json_text::to_json_text(ty, d, opts)?;
            string_array(text, nulls, &ArrowOptions { string_as_string: true, ..opts.clone() })?
        }
        (T::Unsupported(_), _) => return Err(Error::UnsupportedType(ty.to_string())),
        (_, d) => return Err(unexpected(&d)),
    })
}

/// The validity bitmap of a null map (1 byte per row, 1 = NULL).
pub(crate) fn validity_of(map: &[u8]) -> NullBuffer {
    NullBuffer::new(BooleanBuffer::collect_bool(map.len(), |i| map[i] == 0))
}

/// `v` converted value by value into a buffer of exactly its length (one allocation).
fn widen<F: Copy, T: ArrowNativeType>(v: &[F], f: impl Fn(F) -> T) -> ScalarBuffer<T> {
    ScalarBuffer::from(v.iter().map(|&x| f(x)).collect::<Vec<T>>())
}

fn prim<T: ArrowPrimitiveType>(v: Vec<T::Native>, nulls: Option<NullBuffer>) -> ArrayRef {
    Arc::new(PrimitiveArray::<T>::new(ScalarBuffer::from(v), nulls))
}

fn duration(values: ScalarBuffer<i64>, unit: TimeUnit, nulls: Option<NullBuffer>) -> ArrayRef {
    match unit {
        TimeUnit::Second => Arc::new(PrimitiveArray::<DurationSecondType>::new(values, nulls)),
        TimeUnit::Millisecond => Arc::new(PrimitiveArray::<DurationMillisecondType>::new(values, nulls)),
        TimeUnit::Microsecond => Arc::new(PrimitiveArray::<DurationMicrosecondType>::new(values, nulls)),
        TimeUnit::Nanosecond => Arc::new(PrimitiveArray::<DurationNanosecondType>::new(values, nulls)),
    }
}

pub(crate) fn months_per(kind: IntervalKind) -> i64 {
    match kind {
        IntervalKind::Quarter => 3,
        IntervalKind::Year => 12,
        _ => 1,
    }
}

/// `v` × `mul`, moved without a copy when `mul` is 1; overflow is an error.
fn scale_up(v: Vec<i64>, mul: i64) -> Result<ScalarBuffer<i64>> {
    if mul == 1 {
        return Ok(ScalarBuffer::from(v));
    }
    v.iter()
        .map(|&x| x.checked_mul(mul))
        .collect::<Option<Vec<i64>>>()
        .map(ScalarBuffer::from)
        .ok_or_else(|| Error::value("a value overflows the finer Arrow time unit"))
}

fn fixed(width: usize, data: Buffer, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
    let w = i32::try_from(width).map_err(|_| Error::value("fixed width too large for Arrow"))?;
    Ok(Arc::new(FixedSizeBinaryArray::try_new(w, data, nulls)?))
}

/// u64 offsets reinterpreted as i64 (no copy).
fn large_offsets(offsets: Vec<u64>) -> Result<OffsetBuffer<i64>> {
    let len = offsets.len();
    if offsets.last().is_some_and(|&l| l > i64::MAX as u64) {
        return Err(Error::value("offsets beyond i64"));
    }
    let buf = ScalarBuffer::<i64>::new(Buffer::from_vec(offsets), 0, len);
    Ok(OffsetBuffer::new(buf))
}

/// u64 offsets narrowed to i32 (Arrow's regular lists and strings); beyond 2 GiB is an error.
fn small_offsets(offsets: Vec<u64>) -> Result<OffsetBuffer<i32>> {
    if offsets.last().is_some_and(|&l| l > i32::MAX as u64) {
        return Err(Error::value("more than 2^31 - 1 bytes or elements in one block: use 64-bit offsets (the rich mapping)"));
    }
    Ok(OffsetBuffer::new(widen(&offsets, |o| o as i32)))
}

fn binary_array<O: arrow_array::OffsetSizeTrait>(offsets: Vec<O>, data: Buffer, nulls: Option<NullBuffer>, utf8: bool) -> Result<ArrayRef> {
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
    Ok(if utf8 {
        Arc::new(GenericByteArray::<GenericStringType<O>>::try_new(offsets, data, nulls)?)
    } else {
        Arc::new(GenericByteArray::<GenericBinaryType<O>>::try_new(offsets, data, nulls)?)
    })
}

/// String → (large_)utf8 or (large_)binary; the offsets and bytes move for the large types.
fn string_array(s: StringColumn, nulls: Option<NullBuffer>, opts: &ArrowOptions) -> Result<ArrayRef> {
    let utf8 = opts.string_as_string;
    if utf8 {
        if let Some(row) = first_invalid_utf8(&s) {
            return Err(Error::value_at(row, "the value is not valid UTF-8 (set output_format_arrow_string_as_string = 0 for binary)"));
        }
    }
    let large = opts.rich_mode() || opts.use_64_bit_indexes_for_string;
    let (offsets, data) = s.into_parts();
    let data = Buffer::from_vec(data);
    if large {
        let offsets = large_offsets(offsets)?;
        Ok(if utf8 {
            // Checked above, value by value.
            Arc::new(unsafe { GenericByteArray::<LargeUtf8Type>::new_unchecked(offsets, data, nulls) })
        } else {
            Arc::new(GenericByteArray::<LargeBinaryType>::try_new(offsets, data, nulls)?)
        })
    } else {
        let offsets = small_offsets(offsets)?;
        Ok(if utf8 {
            Arc::new(unsafe { GenericByteArray::<Utf8Type>::new_unchecked(offsets, data, nulls) })
        } else {
            Arc::new(GenericByteArray::<BinaryType>::try_new(offsets, data, nulls)?)
        })
    }
}

/// The first row that is not valid UTF-8: the whole buffer is checked at once, then each
/// offset must fall on a character boundary.
fn first_invalid_utf8(s: &StringColumn) -> Option<usize> {
    let data = s.data();
    if data.is_ascii() {
        // Every offset is a character boundary.
        return None;
    }
    if std::str::from_utf8(data).is_ok() {
        let bad = s.offsets().iter().position(|&o| data.get(o as usize).is_some_and(|b| (0x80..0xC0).contains(b)));
        return bad.map(|i| i.saturating_sub(1));
    }
    s.iter().position(|v| std::str::from_utf8(v).is_err())
}

fn is_null(nulls: &Option<NullBuffer>, i: usize) -> bool {
    nulls.as_ref().is_some_and(|n| n.is_null(i))
}

fn enum_dict<K: ArrowDictionaryKeyType>(keys: Vec<K::Native>, names: &[&str], nulls: Option<NullBuffer>) -> Result<ArrayRef> {
    let values: ArrayRef = Arc::new(arrow_array::StringArray::from(names.to_vec()));
    let keys = PrimitiveArray::<K>::new(ScalarBuffer::from(keys), nulls);
    Ok(Arc::new(DictionaryArray::<K>::try_new(keys, values)?))
}

fn decimal(precision: u8, scale: u8, data: ColumnData, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
    let s = scale as i8;
    let values: ScalarBuffer<i128> = match data {
        ColumnData::Int32(v) => widen(&v, i128::from),
        ColumnData::Int64(v) => widen(&v, i128::from),
        ColumnData::Int128(v) => ScalarBuffer::from(v),
        ColumnData::Fixed { width: 32, data } => {
            let values = aligned_i256(data);
            return Ok(Arc::new(PrimitiveArray::<Decimal256Type>::new(values, nulls).with_precision_and_scale(precision, s)?));
        }
        d => return Err(Error::value(format!("storage {d:?} does not fit Decimal({precision}, {scale})"))),
    };
    Ok(Arc::new(PrimitiveArray::<Decimal128Type>::new(values, nulls).with_precision_and_scale(precision, s)?))
}

/// 32-byte little-endian integers as i256 values: moved when the allocation is aligned for
/// i256, else copied.
fn aligned_i256(data: Vec<u8>) -> ScalarBuffer<i256> {
    let len = data.len() / 32;
    let buffer = Buffer::from_vec(data);
    if buffer.as_ptr().align_offset(std::mem::align_of::<i256>()) == 0 {
        ScalarBuffer::new(buffer, 0, len)
    } else {
        buffer.chunks_exact(32).map(|c| i256::from_le_bytes(c.try_into().unwrap_or_default())).collect()
        // chunks_exact(32)
    }
}

/// Tuple → struct (fields from `field`'s type when given, e.g. a map's entries).
fn struct_of(
    ty: &DataType,
    data: ColumnData,
    nulls: Option<NullBuffer>,
    opts: &ArrowOptions,
    field: Option<&Field>,
) -> Result<StructArray> {
    let (DataType::Tuple(items), ColumnData::Tuple(TupleColumn { rows, elements })) = (ty, data) else {
        return Err(Error::value(format!("storage does not fit type {ty}")));
    };
    let fields = match field.map(|f| f.data_type()) {
        Some(A::Struct(fields)) => fields.clone(),
        _ => tuple_fields(items, opts)?,
    };
    if items.is_empty() {
        return Ok(StructArray::new_empty_fields(rows, nulls));
    }
    let arrays = items.iter().zip(elements).map(|((_, t), d)| to_array(t, d, None, opts)).collect::<Result<Vec<_>>>()?;
    Ok(StructArray::try_new(fields, arrays, nulls)?)
}

/// LowCardinality: a dictionary array (keys as Int32), or in the ClickHouse mapping by default
/// the plain values. For a Nullable inner type, entry 0 of ClickHouse's dictionary is the NULL
/// entry: as ClickHouse 26.9 writes it, the Arrow dictionary leaves it out (its values are then
/// distinct and none is null: pandas, for one, refuses null or duplicate categories) and the
/// keys are null there and one less elsewhere.
fn low_cardinality(inner: &DataType, l: LowCardinalityColumn, opts: &ArrowOptions) -> Result<ArrayRef> {
    let LowCardinalityColumn { dictionary, keys } = l;
    let values = to_array(inner.strip_nullable(), dictionary, None, opts)?;
    let keys: Vec<i32> = match keys {
        LcKeys::U8(k) => k.iter().map(|&x| i32::from(x)).collect(),
        LcKeys::U16(k) => k.iter().map(|&x| i32::from(x)).collect(),
        LcKeys::U32(k) => {
            k.iter().map(|&x| i32::try_from(x).ok()).collect::<Option<_>>().ok_or_else(|| Error::value("dictionary too large"))?
        }
        LcKeys::U64(k) => {
            k.iter().map(|&x| i32::try_from(x).ok()).collect::<Option<_>>().ok_or_else(|| Error::value("dictionary too large"))?
        }
    };
    let nulls = inner.is_nullable().then(|| NullBuffer::new(BooleanBuffer::collect_bool(keys.len(), |i| keys[i] != 0)));
    // The NULL entry left out; a dictionary of that entry alone keeps it (all keys are null).
    let (values, keys) = if nulls.is_some() && values.len() > 1 {
        (values.slice(1, values.len() - 1), keys.into_iter().map(|k| k.saturating_sub(1).max(0)).collect())
    } else {
        (values, keys)
    };
    let keys = PrimitiveArray::<Int32Type>::new(ScalarBuffer::from(keys), nulls);
    if opts.rich_mode() || opts.low_cardinality_as_dictionary {
        return Ok(Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values)?));
    }
    Ok(arrow_select::take::take(values.as_ref(), &keys, None)?)
}

/// Variant → dense union: type id = discriminator, NULL rows point into a trailing Null member.
fn variant(types: &[DataType], v: VariantColumn, opts: &ArrowOptions) -> Result<ArrayRef> {
    let VariantColumn { discriminators, offsets, variants } = v;
    let fields = variant_fields(types, opts)?;
    let null_id = types.len() as i8;
    let mut null_rows = 0i32;
    let mut offs: Vec<i32> = Vec::with_capacity(offsets.len());
    let mut ids: Vec<i8> = Vec::with_capacity(discriminators.len());
    for (&d, &o) in discriminators.iter().zip(&offsets) {
        if d == VariantColumn::NULL {
            ids.push(null_id);
            offs.push(null_rows);
            null_rows += 1;
        } else {
            ids.push(d as i8);
            offs.push(o.as_usize() as i32);
        }
    }
    let mut children = types.iter().zip(variants).map(|(t, d)| to_array(t, d, None, opts)).collect::<Result<Vec<_>>>()?;
    children.push(Arc::new(NullArray::new(null_rows as usize)));
    Ok(Arc::new(UnionArray::try_new(fields, ScalarBuffer::from(ids), Some(ScalarBuffer::from(offs)), children)?))
}

/// Rebuilds `array` with the validity `nulls` (used where a conversion produced the values
/// without it).
#[allow(dead_code)]
pub(crate) fn with_nulls(array: ArrayRef, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
    Ok(make_array(array.to_data().into_builder().nulls(nulls).build()?))
}
