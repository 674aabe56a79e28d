//! Column codecs: the data part of a column in a Native block, one module per column family.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use super::{ArrayColumn, ColumnData, NullableColumn, TupleColumn};
use crate::error::{DecodeError, ReadError, ReadResult};
use crate::revision::{Revision, STRING_WITH_SIZE_STREAM_SERIALIZATION};
use crate::types::DataType;
use crate::wire::{Reader, WriteExt};

mod dynamic;
mod enums;
mod fixed;
mod json;
mod low_cardinality;
mod pieces;
mod sparse;
mod strings;
pub(crate) use strings::check_sizes;
#[cfg(test)]
mod tests;

pub(crate) use pieces::{column_pieces, Piece, Pieces};
pub(crate) use sparse::KIND_REPLICATED;
pub use sparse::{decode_serialized, decode_sparse, read_serialization, Serialization, SerializationKind};

use dynamic::{read_dynamic_body, read_dynamic_prefix, read_variant_rows, write_dynamic_body, write_dynamic_prefix};
use enums::{check_enum, decode_fixed};
use fixed::{read_offsets, read_vec};
use json::{read_json_body, read_json_prefix, write_json_body, write_json_prefix};
use low_cardinality::{read_low_cardinality, write_low_cardinality, LC_KEY_VERSION};
use strings::read_strings;

/// The structural type of an alias type (Nested, geo types, …).
fn alias_storage(t: &DataType) -> ReadResult<DataType> {
    t.storage().ok_or_else(|| DecodeError::UnsupportedType(t.to_string()).into())
}

/// Re-base an "incomplete" position from a sub-reader.
fn shift(e: ReadError, base: usize) -> ReadError {
    match e {
        ReadError::Incomplete { needed } => ReadError::Incomplete { needed: base.saturating_add(needed) },
        e => e,
    }
}

/// State a column carries before its data, read once per block (ClickHouse's
/// "serialization state prefix"): composite types hold their elements' prefixes,
/// depth first, and LowCardinality its key version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prefix {
    /// The type has no state prefix.
    None,
    /// The prefix of the one inner type (Nullable, Array).
    One(Box<Prefix>),
    /// The prefixes of the inner types, in order (Tuple elements, Map key and value, Variant
    /// types).
    Many(Vec<Prefix>),
    /// LowCardinality's prefix: its key serialization version (which has one value).
    LowCardinality,
    /// A Dynamic column's structure: its version, types (with `SharedVariant`'s position for
    /// versions 1 and 2) and their prefixes.
    Dynamic {
        /// The serialization version: 1, 2 or 3 (flattened).
        version: u64,
        /// Version 1's `max_dynamic_types`.
        max_types: Option<u64>,
        /// The types of this block's rows.
        types: Vec<DataType>,
        /// The position of `SharedVariant` in `types`, when there is one.
        shared: Option<usize>,
        /// The prefixes of `types`, in order.
        prefixes: Vec<Prefix>,
    },
    /// A JSON column's structure: version, dynamic path names and the prefixes of the typed
    /// paths and of each dynamic path (a Dynamic structure).
    Json {
        /// The serialization version: 0 (V1), 1 (string), 2 (V2) or 3 (flattened).
        version: u64,
        /// Version 0's `max_dynamic_paths`.
        max_paths: Option<u64>,
        /// The dynamic paths of this block, sorted.
        paths: Vec<String>,
        /// The prefixes of the typed paths, in the type's order.
        typed: Vec<Prefix>,
        /// The prefixes of the dynamic paths (Dynamic structures), in the order of `paths`.
        dynamic: Vec<Prefix>,
    },
}

const VARIANT_MODE_BASIC: u64 = 0;

/// Read the state prefix of a column of type `ty`.
pub fn read_prefix(ty: &DataType, r: &mut Reader<'_>) -> ReadResult<Prefix> {
    Ok(match ty {
        DataType::Nullable(t) | DataType::Array(t) => Prefix::One(Box::new(read_prefix(t, r)?)),
        DataType::Map(k, v) => Prefix::Many(vec![read_prefix(k, r)?, read_prefix(v, r)?]),
        DataType::Tuple(items) => Prefix::Many(items.iter().map(|(_, t)| read_prefix(t, r)).collect::<Result<_, _>>()?),
        DataType::Variant(types) => {
            let mode = r.u64_le()?;
            if mode != VARIANT_MODE_BASIC {
                return Err(DecodeError::malformed(
                    "Variant",
                    format!("discriminators mode {mode} (only the basic mode 0 is used in Native blocks)"),
                )
                .into());
            }
            Prefix::Many(types.iter().map(|t| read_prefix(t, r)).collect::<Result<_, _>>()?)
        }
        DataType::Dynamic { .. } => read_dynamic_prefix(r)?,
        DataType::Json { typed, .. } => read_json_prefix(typed, r)?,
        DataType::LowCardinality(_) => {
            let v = r.u64_le()?;
            if v != LC_KEY_VERSION {
                return Err(DecodeError::malformed("LowCardinality", format!("unknown key serialization version {v}")).into());
            }
            Prefix::LowCardinality
        }
        t if t.physical() == crate::types::Physical::Alias => read_prefix(&alias_storage(t)?, r)?,
        _ => Prefix::None,
    })
}

pub(super) fn sub(p: &Prefix, i: usize) -> &Prefix {
    match p {
        Prefix::One(x) if i == 0 => x,
        Prefix::Many(v) => v.get(i).unwrap_or(&Prefix::None),
        _ => &Prefix::None,
    }
}

/// Decode the data of a column of `rows` rows (no per-column header): its prefix, then its body.
pub fn decode_column(ty: &DataType, rows: usize, r: &mut Reader<'_>) -> ReadResult<ColumnData> {
    let prefix = read_prefix(ty, r)?;
    decode_body(ty, rows, &prefix, r)
}

/// Decode the body of a column whose prefix was read already.
pub fn decode_body(ty: &DataType, rows: usize, prefix: &Prefix, r: &mut Reader<'_>) -> ReadResult<ColumnData> {
    use crate::types::Physical as P;
    Ok(match ty.physical() {
        P::I8 | P::I16 if matches!(ty, DataType::Enum8(_) | DataType::Enum16(_)) => {
            let values = decode_fixed(ty, rows, r)?;
            check_enum(ty, &values, None)?;
            values
        }
        P::U8 => ColumnData::UInt8(read_vec(r, rows)?),
        P::U16 => ColumnData::UInt16(read_vec(r, rows)?),
        P::U32 => ColumnData::UInt32(read_vec(r, rows)?),
        P::U64 => ColumnData::UInt64(read_vec(r, rows)?),
        P::U128 => ColumnData::UInt128(read_vec(r, rows)?),
        P::I8 => ColumnData::Int8(read_vec(r, rows)?),
        P::I16 => ColumnData::Int16(read_vec(r, rows)?),
        P::I32 => ColumnData::Int32(read_vec(r, rows)?),
        P::I64 => ColumnData::Int64(read_vec(r, rows)?),
        P::I128 => ColumnData::Int128(read_vec(r, rows)?),
        P::F32 => ColumnData::Float32(read_vec(r, rows)?),
        P::F64 => ColumnData::Float64(read_vec(r, rows)?),
        P::Fixed(width) => ColumnData::Fixed {
            width,
            data: read_vec(r, rows.checked_mul(width).ok_or(ReadError::Invalid(DecodeError::malformed("FixedString", "size overflows")))?)?,
        },
        P::String => ColumnData::String(read_strings(r, rows)?),
        P::Nullable => {
            let DataType::Nullable(inner) = ty else { unreachable!() };
            let nulls: Vec<u8> = read_vec(r, rows)?;
            // An Enum's placeholder under NULL need not be one of its values.
            let values = match &**inner {
                DataType::Enum8(_) | DataType::Enum16(_) => {
                    let values = decode_fixed(inner, rows, r)?;
                    check_enum(inner, &values, Some(&nulls))?;
                    values
                }
                _ => decode_body(inner, rows, sub(prefix, 0), r)?,
            };
            ColumnData::Nullable(Box::new(NullableColumn { nulls, values }))
        }
        P::Array | P::Map => {
            let offsets = read_offsets(r, rows)?;
            let max = r.limits().max_array_len as u64;
            for (row, (&start, &end)) in offsets.iter().zip(offsets.iter().skip(1)).enumerate() {
                let Some(len) = end.checked_sub(start) else {
                    return Err(
                        DecodeError::malformed("Array offsets", format!("offsets decrease at row {row} ({start} then {end})")).into()
                    );
                };
                if len > max {
                    return Err(DecodeError::LimitExceeded { what: "array elements", size: len, limit: max }.into());
                }
            }
            let total = offsets.last().copied().unwrap_or(0);
            let total = usize::try_from(total).map_err(|_| DecodeError::malformed("Array offsets", "too many elements"))?;
            let values = match ty {
                DataType::Array(inner) => decode_body(inner, total, sub(prefix, 0), r)?,
                DataType::Map(k, v) => {
                    let keys = decode_body(k, total, sub(prefix, 0), r)?;
                    let values = decode_body(v, total, sub(prefix, 1), r)?;
                    ColumnData::Tuple(TupleColumn { rows: total, elements: vec![keys, values] })
                }
                _ => unreachable!(),
            };
            ColumnData::Array(Box::new(ArrayColumn { offsets, values }))
        }
        P::Tuple => {
            let DataType::Tuple(items) = ty else { unreachable!() };
            if items.is_empty() {
                // `Tuple()` keeps its row count with one placeholder byte per row.
                r.bytes(rows)?;
                return Ok(ColumnData::Tuple(TupleColumn { rows, elements: Vec::new() }));
            }
            let mut elements = Vec::with_capacity(items.len());
            for (i, (_, t)) in items.iter().enumerate() {
                elements.push(decode_body(t, rows, sub(prefix, i), r)?);
            }
            ColumnData::Tuple(TupleColumn { rows, elements })
        }
        P::LowCardinality => {
            let DataType::LowCardinality(inner) = ty else { unreachable!() };
            // No rows (inside arrays without elements): ClickHouse writes nothing, not even
            // the flags, and reads nothing either.
            if rows == 0 {
                return ColumnData::empty_for(ty).map_err(|e| DecodeError::malformed("LowCardinality", e.to_string()).into());
            }
            ColumnData::LowCardinality(Box::new(read_low_cardinality(inner, rows, r)?))
        }
        P::Variant => {
            let DataType::Variant(types) = ty else { unreachable!() };
            let discriminators: Vec<u8> = read_vec(r, rows)?;
            ColumnData::Variant(Box::new(read_variant_rows("Variant", types, |i| sub(prefix, i), discriminators, r)?))
        }
        P::Dynamic => ColumnData::Dynamic(Box::new(read_dynamic_body(rows, prefix, r)?)),
        P::Json => {
            let DataType::Json { typed, .. } = ty else { unreachable!() };
            ColumnData::Json(Box::new(read_json_body(typed, rows, prefix, r)?))
        }
        P::AggregateFunction => {
            let DataType::AggregateFunction(f) = ty else { unreachable!() };
            ColumnData::AggregateState(super::aggregate::read_states(f, rows, r, super::binary::skip_value)?)
        }
        P::Alias => decode_body(&alias_storage(ty)?, rows, prefix, r)?,
        P::Unsupported => return Err(DecodeError::UnsupportedType(ty.to_string()).into()),
    })
}

/// Append the state prefix of a column of type `ty` holding `data` (a Dynamic column's
/// structure depends on its data).
pub fn write_prefix_of(ty: &DataType, data: &ColumnData, out: &mut Vec<u8>) {
    use ColumnData as D;
    match (ty, data) {
        (DataType::Nullable(t), D::Nullable(n)) => write_prefix_of(t, &n.values, out),
        (DataType::Array(t), D::Array(a)) => write_prefix_of(t, &a.values, out),
        (DataType::Map(k, v), D::Array(a)) => {
            if let D::Tuple(t) = &a.values {
                if let [keys, values] = t.elements.as_slice() {
                    write_prefix_of(k, keys, out);
                    write_prefix_of(v, values, out);
                }
            }
        }
        (DataType::Tuple(items), D::Tuple(t)) => items.iter().zip(&t.elements).for_each(|((_, ty), c)| write_prefix_of(ty, c, out)),
        (DataType::LowCardinality(_), _) => out.put_u64_le(LC_KEY_VERSION),
        (DataType::Variant(types), D::Variant(v)) => {
            out.put_u64_le(VARIANT_MODE_BASIC);
            types.iter().zip(&v.variants).for_each(|(t, c)| write_prefix_of(t, c, out));
        }
        (DataType::Dynamic { .. }, D::Dynamic(d)) => write_dynamic_prefix(d, out),
        (DataType::Json { typed, .. }, D::Json(j)) => write_json_prefix(typed, j, out),
        (t, d) if t.physical() == crate::types::Physical::Alias => {
            if let Some(s) = t.storage() {
                write_prefix_of(&s, d, out);
            }
        }
        _ => {}
    }
}

/// Append the wire form of a column of type `ty` in the layout of revision 0 (the Native
/// file format's): prefix, then body. `data` must fit `ty` (see [`ColumnData::check`]).
pub fn encode_column_of(ty: &DataType, data: &ColumnData, out: &mut Vec<u8>) {
    encode_column_of_at(ty, data, Revision(0), out);
}

/// [`encode_column_of`] in the layout of revision `rev` (a connection's negotiated one).
pub fn encode_column_of_at(ty: &DataType, data: &ColumnData, rev: Revision, out: &mut Vec<u8>) {
    write_prefix_of(ty, data, out);
    encode_column_at(data, rev, out);
}

/// The body of a fixed-width column (numbers, FixedString and the like): its values' memory,
/// which is their wire form (little-endian).
pub(crate) fn fixed_bytes(data: &ColumnData) -> Option<&[u8]> {
    use ColumnData as D;
    Some(match data {
        D::UInt8(v) => v,
        D::UInt16(v) => bytemuck::cast_slice(v),
        D::UInt32(v) => bytemuck::cast_slice(v),
        D::UInt64(v) => bytemuck::cast_slice(v),
        D::UInt128(v) => bytemuck::cast_slice(v),
        D::Int8(v) => bytemuck::cast_slice(v),
        D::Int16(v) => bytemuck::cast_slice(v),
        D::Int32(v) => bytemuck::cast_slice(v),
        D::Int64(v) => bytemuck::cast_slice(v),
        D::Int128(v) => bytemuck::cast_slice(v),
        D::Float32(v) => bytemuck::cast_slice(v),
        D::Float64(v) => bytemuck::cast_slice(v),
        D::Fixed { data, .. } => data,
        _ => return None,
    })
}

/// Append the body of `data` (no prefix; see [`encode_column_of`]) in the layout of
/// revision 0 (the Native file format's).
pub fn encode_column(data: &ColumnData, out: &mut Vec<u8>) {
    encode_column_at(data, Revision(0), out);
}

/// Whether String columns (at any depth but LowCardinality dictionaries and JSON's string
/// serialization) are a stream of N UInt64 end offsets and then all the bytes, rather than
/// one length-prefixed value per row.
#[inline]
pub(crate) fn strings_with_sizes(rev: Revision) -> bool {
    rev.has(STRING_WITH_SIZE_STREAM_SERIALIZATION)
}

/// Append the body of `data` in the layout of revision `rev`.
pub fn encode_column_at(data: &ColumnData, rev: Revision, out: &mut Vec<u8>) {
    use ColumnData as D;
    match data {
        D::UInt8(_)
        | D::UInt16(_)
        | D::UInt32(_)
        | D::UInt64(_)
        | D::UInt128(_)
        | D::Int8(_)
        | D::Int16(_)
        | D::Int32(_)
        | D::Int64(_)
        | D::Int128(_)
        | D::Float32(_)
        | D::Float64(_)
        | D::Fixed { .. } => out.extend_from_slice(fixed_bytes(data).unwrap_or_default()),
        D::String(s) if strings_with_sizes(rev) => {
            // The end offsets are the column's own (its leading 0 left out), then its bytes.
            out.extend_from_slice(bytemuck::cast_slice(s.offsets().get(1..).unwrap_or_default()));
            out.extend_from_slice(s.data());
        }
        D::String(s) => {
            // A lower bound: one length byte per value (exact for values under 128 bytes).
            out.reserve(s.data().len().saturating_add(s.len()));
            for v in s.iter() {
                out.put_str(v);
            }
        }
        D::Nullable(n) => {
            out.extend_from_slice(&n.nulls);
            encode_column_at(&n.values, rev, out);
        }
        D::Array(a) => {
            out.extend_from_slice(bytemuck::cast_slice(a.offsets.get(1..).unwrap_or_default()));
            encode_column_at(&a.values, rev, out);
        }
        // ClickHouse writes '0' as the placeholder of an empty tuple's rows.
        D::Tuple(t) if t.elements.is_empty() => out.extend(std::iter::repeat_n(b'0', t.rows)),
        D::Tuple(t) => t.elements.iter().for_each(|e| encode_column_at(e, rev, out)),
        D::Dynamic(d) => write_dynamic_body(d, rev, out),
        D::Json(j) => write_json_body(j, rev, out),
        // States are written back to back, exactly as received.
        D::AggregateState(s) => out.extend_from_slice(s.data()),
        D::Variant(v) => {
            out.extend_from_slice(&v.discriminators);
            v.variants.iter().for_each(|c| encode_column_at(c, rev, out));
        }
        // No rows: nothing at all (see decode_body).
        D::LowCardinality(l) if l.keys.is_empty() => {}
        D::LowCardinality(l) => write_low_cardinality(l, out),
    }
}
