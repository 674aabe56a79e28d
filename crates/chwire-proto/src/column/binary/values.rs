//! Binary encoding of single values (each type's `serializeBinary`).

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use super::super::{ColumnData, DynamicColumn, JsonColumn, LcKeys, LowCardinalityColumn, VariantColumn};
use super::types::utf8;
use super::*;
use crate::error::{DecodeError, ReadResult};
use crate::types::DataType;
use crate::wire::Reader;

/// Element `i` of a column's parts, or an error naming what the storage lacks (the storage
/// is built for the type, so this only fails when they disagree).
fn part<'c, T>(parts: &'c mut [T], i: usize, what: &str) -> ReadResult<&'c mut T> {
    parts.get_mut(i).ok_or_else(|| malformed(format!("{what} storage")))
}

/// Fewest bytes one binary value of `ty` takes (bounds element counts by the input).
pub(super) fn min_size(ty: &DataType) -> usize {
    match ty {
        DataType::Nothing => 0,
        DataType::Tuple(items) => items.iter().map(|(_, t)| min_size(t)).sum(),
        DataType::LowCardinality(t) => min_size(t),
        t => match t.fixed_width() {
            Some(w) => w,
            None => match t.storage() {
                Some(s) if !matches!(t, DataType::QBit { .. }) => min_size(&s),
                _ => 1,
            },
        },
    }
}

/// A count of elements of type `elem`: at most as many as the rest of the value can hold.
pub(super) fn element_count(r: &mut Reader<'_>, elem: &DataType) -> ReadResult<usize> {
    let n = r.varuint()?;
    let limit = match min_size(elem) {
        // No value of Nothing is ever written; other zero-size elements (empty tuples) are
        // held to a fixed bound (they allocate nothing, only take a loop turn each).
        0 if *elem == DataType::Nothing => 0,
        0 => r.remaining().max(1 << 16),
        m => r.remaining().checked_div(m).unwrap_or(0),
    };
    if n > limit as u64 {
        return Err(malformed(format!("{n} elements of {elem} in {} bytes", r.remaining())));
    }
    Ok(n as usize)
}

/// Consume one binary value of `ty`.
pub(crate) fn skip_value(ty: &DataType, r: &mut Reader<'_>) -> ReadResult<()> {
    match ty.fixed_width() {
        Some(w) => {
            r.bytes(w)?;
        }
        None if *ty == DataType::String => {
            r.value_bytes()?;
        }
        None => {
            let mut scratch = ColumnData::empty_for(ty).map_err(|_| DecodeError::UnsupportedType(ty.to_string()))?;
            read_value(ty, r, &mut scratch, 0)?;
        }
    }
    Ok(())
}

pub(super) fn fixed<const N: usize>(r: &mut Reader<'_>) -> ReadResult<[u8; N]> {
    r.array()
}

/// Append one binary value of `ty` to `col` (storage for `ty`, as [`ColumnData::empty_for`]
/// makes it). On an error the column may hold part of the value.
pub(crate) fn read_value(ty: &DataType, r: &mut Reader<'_>, col: &mut ColumnData, depth: usize) -> ReadResult<()> {
    use ColumnData as D;
    use DataType as T;
    // Dynamic and JSON values carry their own types: twice the type depth.
    let max = r.limits().depth().saturating_mul(2);
    if depth > max {
        return Err(malformed(format!("values nested deeper than {max} levels")));
    }
    let d = depth.saturating_add(1); // depth <= max
    match (ty, col) {
        (T::QBit { element, dimension }, D::Tuple(t)) => {
            let n = r.varuint()?;
            if n != *dimension as u64 {
                return Err(malformed(format!("{n} elements for {ty}")));
            }
            let w = element.fixed_width().unwrap_or(8);
            let mut bits = Vec::with_capacity((*dimension).min(r.remaining().checked_div(w).unwrap_or(0)));
            for _ in 0..n {
                let b = r.bytes(w)?;
                let mut le = [0u8; 8];
                le.get_mut(..w).ok_or_else(|| malformed(format!("{w}-byte elements of {ty}")))?.copy_from_slice(b);
                bits.push(u64::from_le_bytes(le));
            }
            crate::column::qbit::push(&mut t.elements, &bits);
            t.rows = t.rows.saturating_add(1);
        }
        (T::AggregateFunction(f), D::AggregateState(s)) => {
            let format = crate::column::aggregate::StateFormat::of(f, r.revision())?;
            let start = r.position();
            let rest = r.rest();
            format.skip(r, skip_value)?;
            // The reader only moves forward, and not past the end of `rest`.
            s.push(rest.get(..r.position().saturating_sub(start)).unwrap_or_default());
        }
        (T::Nothing, D::UInt8(v)) => v.push(b'0'),
        (t, c) if t.physical() == crate::types::Physical::Alias => {
            read_value(&alias_storage(t)?, r, c, d)?;
        }
        (T::Enum8(items), D::Int8(v)) => {
            let x = r.u8()? as i8;
            if !items.iter().any(|(_, e)| *e == x) {
                return Err(malformed(format!("{x} is not a value of {ty}")));
            }
            v.push(x);
        }
        (T::Enum16(items), D::Int16(v)) => {
            let x = i16::from_le_bytes(fixed(r)?);
            if !items.iter().any(|(_, e)| *e == x) {
                return Err(malformed(format!("{x} is not a value of {ty}")));
            }
            v.push(x);
        }
        (_, D::UInt8(v)) => v.push(r.u8()?),
        (_, D::Int8(v)) => v.push(r.u8()? as i8),
        (_, D::UInt16(v)) => v.push(u16::from_le_bytes(fixed(r)?)),
        (_, D::Int16(v)) => v.push(i16::from_le_bytes(fixed(r)?)),
        (_, D::UInt32(v)) => v.push(u32::from_le_bytes(fixed(r)?)),
        (_, D::Int32(v)) => v.push(i32::from_le_bytes(fixed(r)?)),
        (_, D::Float32(v)) => v.push(f32::from_le_bytes(fixed(r)?)),
        (_, D::UInt64(v)) => v.push(u64::from_le_bytes(fixed(r)?)),
        (_, D::Int64(v)) => v.push(i64::from_le_bytes(fixed(r)?)),
        (_, D::Float64(v)) => v.push(f64::from_le_bytes(fixed(r)?)),
        (_, D::UInt128(v)) => v.push(u128::from_le_bytes(fixed(r)?)),
        (_, D::Int128(v)) => v.push(i128::from_le_bytes(fixed(r)?)),
        (_, D::Fixed { width, data }) => data.extend_from_slice(r.bytes(*width)?),
        (_, D::String(s)) => s.push(r.value_bytes()?),
        (T::Nullable(inner), D::Nullable(n)) => {
            if r.u8()? != 0 {
                n.nulls.push(1);
                push_default(inner, &mut n.values)?;
            } else {
                n.nulls.push(0);
                read_value(inner, r, &mut n.values, d)?;
            }
        }
        (T::Array(inner), D::Array(a)) => {
            let n = element_count(r, inner)?;
            for _ in 0..n {
                read_value(inner, r, &mut a.values, d)?;
            }
            a.offsets.push(a.values.len() as u64);
        }
        (T::Map(k, v), D::Array(a)) => {
            let D::Tuple(t) = &mut a.values else { return Err(malformed("map storage")) };
            let n = element_count(r, k)?;
            let [keys, values] = t.elements.as_mut_slice() else { return Err(malformed("map storage")) };
            for _ in 0..n {
                read_value(k, r, keys, d)?;
                read_value(v, r, values, d)?;
                t.rows = t.rows.saturating_add(1);
            }
            a.offsets.push(t.rows as u64);
        }
        (T::Tuple(items), D::Tuple(t)) => {
            for ((_, et), e) in items.iter().zip(&mut t.elements) {
                read_value(et, r, e, d)?;
            }
            t.rows = t.rows.saturating_add(1);
        }
        (T::LowCardinality(inner), D::LowCardinality(l)) => {
            lc_defaults(inner, l)?;
            let value = match &**inner {
                T::Nullable(t) if r.u8()? == 0 => Some(&**t),
                T::Nullable(_) => None,
                t => Some(t),
            };
            let key = match value {
                Some(t) => {
                    read_value(t, r, &mut l.dictionary, d)?;
                    (l.dictionary.len() as u64).saturating_sub(1) // the value just read
                }
                None => 0,
            };
            push_key(&mut l.keys, key);
        }
        (T::Variant(types), D::Variant(v)) => match r.u8()? {
            VariantColumn::NULL => {
                v.discriminators.push(VariantColumn::NULL);
                v.offsets.push(0);
            }
            k => {
                let Some(t) = types.get(usize::from(k)) else { return Err(malformed(format!("discriminator {k} for {ty}"))) };
                let c = part(&mut v.variants, usize::from(k), "Variant")?;
                v.offsets.push(c.len() as u32);
                read_value(t, r, c, d)?;
                v.discriminators.push(k);
            }
        },
        (T::Dynamic { .. }, D::Dynamic(dc)) => read_dynamic(r, dc, d)?,
        (T::Json { typed, .. }, D::Json(j)) => read_json(typed, r, j, d)?,
        (t, c) => return Err(malformed(format!("storage {} does not fit {t}", c.kind_name()))),
    }
    Ok(())
}

/// One Dynamic value: its type, then the value (type `Nothing`: NULL, no value).
pub(super) fn read_dynamic(r: &mut Reader<'_>, dc: &mut DynamicColumn, depth: usize) -> ReadResult<()> {
    let t = decode_type(r)?;
    if t == DataType::Nothing {
        dc.values.discriminators.push(VariantColumn::NULL);
        dc.values.offsets.push(0);
        return Ok(());
    }
    let k = match dc.types.iter().position(|x| *x == t) {
        Some(k) => k,
        None if dc.types.len() < usize::from(VariantColumn::NULL) => {
            dc.values.variants.push(ColumnData::empty_for(&t).map_err(|_| DecodeError::UnsupportedType(t.to_string()))?);
            dc.types.push(t);
            dc.types.len().saturating_sub(1)
        }
        None => return Err(malformed("a Dynamic value of more than 255 types")),
    };
    let (Some(t), Some(c)) = (dc.types.get(k), dc.values.variants.get_mut(k)) else { return Err(malformed("Dynamic storage")) };
    dc.values.offsets.push(c.len() as u32);
    read_value(t, r, c, depth)?;
    dc.values.discriminators.push(k as u8);
    Ok(())
}

/// One JSON value: a count, then (path, value) pairs; typed paths hold their type's binary
/// value, all others a Dynamic value.
pub(super) fn read_json(typed: &[(String, DataType)], r: &mut Reader<'_>, j: &mut JsonColumn, depth: usize) -> ReadResult<()> {
    let row = j.rows;
    let n = element_count(r, &DataType::String)?;
    let mut seen = vec![false; typed.len()];
    for _ in 0..n {
        let path = utf8(r.str_bytes()?, "JSON path")?;
        if let Ok(i) = typed.binary_search_by(|(p, _)| p.as_str().cmp(&path)) {
            if std::mem::replace(part(&mut seen, i, "JSON")?, true) {
                return Err(malformed(format!("JSON path {path} twice")));
            }
            let t = typed.get(i).map(|(_, t)| t).ok_or_else(|| malformed("JSON storage"))?;
            read_value(t, r, part(&mut j.typed, i, "JSON")?, depth)?;
            continue;
        }
        let k = match j.dynamic.iter().position(|(p, _)| *p == path) {
            Some(k) => k,
            None => {
                // Every path holds a cell per row: bound paths × rows, which values with
                // ever new paths would otherwise grow quadratically.
                let (paths, rows) = (j.dynamic.len().saturating_add(1), row.saturating_add(1));
                if paths.saturating_mul(rows) > MAX_JSON_CELLS {
                    return Err(malformed(format!(
                        "JSON values with {paths} distinct paths over {rows} rows: more than {MAX_JSON_CELLS} path cells"
                    )));
                }
                j.dynamic.push((path, null_dynamic(row)));
                j.dynamic.len().saturating_sub(1)
            }
        };
        let (path, dc) = part(&mut j.dynamic, k, "JSON")?;
        if dc.values.discriminators.len() > row {
            return Err(malformed(format!("JSON path {path} twice")));
        }
        read_dynamic(r, dc, depth)?;
    }
    for (((_, t), seen), c) in typed.iter().zip(&seen).zip(&mut j.typed) {
        if !seen {
            push_default(t, c)?;
        }
    }
    for (_, dc) in &mut j.dynamic {
        if dc.values.discriminators.len() == row {
            dc.values.discriminators.push(VariantColumn::NULL);
            dc.values.offsets.push(0);
        }
    }
    j.rows = j.rows.saturating_add(1);
    Ok(())
}

/// At most this many (path, row) cells in JSON values decoded from binary (about 5 bytes
/// each).
pub(super) const MAX_JSON_CELLS: usize = 1 << 26;

/// A Dynamic column of `rows` NULLs.
pub(super) fn null_dynamic(rows: usize) -> DynamicColumn {
    DynamicColumn {
        types: Vec::new(),
        shared: None,
        values: VariantColumn { discriminators: vec![VariantColumn::NULL; rows], offsets: vec![0; rows], variants: Vec::new() },
        version: 2,
        max_types: None,
        shared_values: BinaryValues::default(),
    }
}

/// A LowCardinality dictionary starts with the default value (for `Nullable`, the NULL slot
/// and then the default), as ClickHouse lays it out.
pub(super) fn lc_defaults(inner: &DataType, l: &mut LowCardinalityColumn) -> ReadResult<()> {
    if l.dictionary.is_empty() {
        push_default(inner.strip_nullable(), &mut l.dictionary)?;
        if inner.is_nullable() {
            push_default(inner.strip_nullable(), &mut l.dictionary)?;
        }
    }
    Ok(())
}

pub(super) fn push_key(keys: &mut LcKeys, k: u64) {
    match keys {
        LcKeys::U8(v) if k <= u64::from(u8::MAX) => v.push(k as u8),
        LcKeys::U16(v) if k <= u64::from(u16::MAX) => v.push(k as u16),
        LcKeys::U32(v) if k <= u64::from(u32::MAX) => v.push(k as u32),
        LcKeys::U64(v) => v.push(k),
        other => {
            let mut all: Vec<u64> = (0..other.len()).map(|i| other.get(i) as u64).collect();
            all.push(k);
            *other = LcKeys::U64(all);
        }
    }
}

/// Append the default value of `ty` (the placeholder under a NULL).
pub(super) fn push_default(ty: &DataType, col: &mut ColumnData) -> ReadResult<()> {
    use ColumnData as D;
    use DataType as T;
    match (ty, col) {
        (T::QBit { .. }, D::Tuple(t)) => {
            crate::column::qbit::push(&mut t.elements, &[]);
            t.rows = t.rows.saturating_add(1);
        }
        (T::AggregateFunction(_), D::AggregateState(s)) => s.push(b""),
        (T::Nothing, D::UInt8(v)) => v.push(b'0'),
        (t, c) if t.physical() == crate::types::Physical::Alias => push_default(&alias_storage(t)?, c)?,
        (_, D::UInt8(v)) => v.push(0),
        (_, D::Int8(v)) => v.push(0),
        (_, D::UInt16(v)) => v.push(0),
        (_, D::Int16(v)) => v.push(0),
        (_, D::UInt32(v)) => v.push(0),
        (_, D::Int32(v)) => v.push(0),
        (_, D::Float32(v)) => v.push(0.0),
        (_, D::UInt64(v)) => v.push(0),
        (_, D::Int64(v)) => v.push(0),
        (_, D::Float64(v)) => v.push(0.0),
        (_, D::UInt128(v)) => v.push(0),
        (_, D::Int128(v)) => v.push(0),
        (_, D::Fixed { width, data }) => data.resize(data.len().saturating_add(*width), 0),
        (_, D::String(s)) => s.push(b""),
        (T::Nullable(inner), D::Nullable(n)) => {
            n.nulls.push(1);
            push_default(inner, &mut n.values)?;
        }
        (_, D::Array(a)) => {
            let last = *a.offsets.last().unwrap_or(&0);
            a.offsets.push(last);
        }
        (T::Tuple(items), D::Tuple(t)) => {
            for ((_, et), e) in items.iter().zip(&mut t.elements) {
                push_default(et, e)?;
            }
            t.rows = t.rows.saturating_add(1);
        }
        (T::LowCardinality(inner), D::LowCardinality(l)) => {
            lc_defaults(inner, l)?;
            push_key(&mut l.keys, if inner.is_nullable() { 1 } else { 0 });
        }
        (_, D::Variant(v)) => {
            v.discriminators.push(VariantColumn::NULL);
            v.offsets.push(0);
        }
        (_, D::Dynamic(dc)) => {
            dc.values.discriminators.push(VariantColumn::NULL);
            dc.values.offsets.push(0);
        }
        (T::Json { typed, .. }, D::Json(j)) => {
            for ((_, t), c) in typed.iter().zip(&mut j.typed) {
                push_default(t, c)?;
            }
            for (_, dc) in &mut j.dynamic {
                dc.values.discriminators.push(VariantColumn::NULL);
                dc.values.offsets.push(0);
            }
            j.rows = j.rows.saturating_add(1);
        }
        (t, c) => return Err(malformed(format!("storage {} does not fit {t}", c.kind_name()))),
    }
    Ok(())
}

/// The structural type of an alias type (Nested, geo types, …).
fn alias_storage(t: &DataType) -> ReadResult<DataType> {
    t.storage().ok_or_else(|| DecodeError::UnsupportedType(t.to_string()).into())
}
