//! ClickHouse's binary encoding of data types (`DataTypesBinaryEncoding`) and of single values
//! (each type's `serializeBinary`, the form RowBinary uses). Values whose type has no column of
//! their own are kept this way — type, then value — in Dynamic's `SharedVariant` (types beyond
//! `max_types`) and in JSON's shared data (paths beyond `max_dynamic_paths`);
//! [`BinaryValues`] decodes them into ordinary columns, one per type.

use super::{ColumnData, DynamicColumn, JsonColumn, LcKeys, LowCardinalityColumn, StringColumn, Value, VariantColumn};
use crate::error::{DecodeError, ReadError, ReadResult};
use crate::types::{AggregateFunctionType, DataType, IntervalKind, JsonArg, MAX_TYPE_DEPTH};
use crate::wire::{Reader, WriteExt};
use std::collections::HashMap;

/// Most elements a count in a type may claim (ClickHouse's own limit when decoding types).
const MAX_TYPE_ELEMENTS: usize = 1_000_000;
/// Deepest nesting of values inside values (Dynamic and JSON values carry their own types).
const MAX_VALUE_DEPTH: usize = 2 * MAX_TYPE_DEPTH;
/// `Dynamic`'s default `max_types`, and JSON's defaults: left out of type names.
const DEFAULT_MAX_TYPES: u64 = 32;
const DEFAULT_MAX_PATHS: u64 = 1024;

fn malformed(detail: impl Into<String>) -> ReadError {
    DecodeError::malformed("binary-encoded value", detail).into()
}

/// Decode one binary-encoded type.
pub fn decode_type(r: &mut Reader<'_>) -> ReadResult<DataType> {
    decode_type_at(r, 0)
}

fn utf8(b: &[u8], what: &str) -> ReadResult<String> {
    String::from_utf8(b.to_vec()).map_err(|_| malformed(format!("{what} is not UTF-8")))
}

fn decode_type_at(r: &mut Reader<'_>, depth: usize) -> ReadResult<DataType> {
    use DataType as T;
    if depth >= MAX_TYPE_DEPTH {
        return Err(malformed(format!("types nested deeper than {MAX_TYPE_DEPTH} levels")));
    }
    let nested = |r: &mut Reader<'_>| decode_type_at(r, depth + 1);
    let code = r.u8()?;
    Ok(match code {
        0x00 => T::Nothing,
        0x01 => T::UInt8,
        0x02 => T::UInt16,
        0x03 => T::UInt32,
        0x04 => T::UInt64,
        0x05 => T::UInt128,
        0x06 => T::UInt256,
        0x07 => T::Int8,
        0x08 => T::Int16,
        0x09 => T::Int32,
        0x0A => T::Int64,
        0x0B => T::Int128,
        0x0C => T::Int256,
        0x0D => T::Float32,
        0x0E => T::Float64,
        0x0F => T::Date,
        0x10 => T::Date32,
        0x11 => T::DateTime(None),
        0x12 => T::DateTime(Some(utf8(r.str_bytes()?, "time zone")?)),
        0x13 | 0x14 => {
            let precision = r.u8()?;
            if precision > 9 {
                return Err(malformed(format!("DateTime64 precision {precision}")));
            }
            let tz = if code == 0x14 { Some(utf8(r.str_bytes()?, "time zone")?) } else { None };
            T::DateTime64 { precision, tz }
        }
        0x15 => T::String,
        0x16 => match r.varuint()? {
            n @ 1..=0xFF_FFFF => T::FixedString(n as usize),
            n => return Err(malformed(format!("FixedString({n})"))),
        },
        0x17 | 0x18 => {
            let n = r.varuint_len("Enum elements", MAX_TYPE_ELEMENTS)?;
            let mut items8 = Vec::new();
            let mut items16 = Vec::new();
            for _ in 0..n {
                let name = utf8(r.str_bytes()?, "enum element")?;
                if code == 0x17 {
                    items8.push((name, r.u8()? as i8));
                } else {
                    items16.push((name, i16::from_le_bytes(r.array()?)));
                }
            }
            items8.sort_by_key(|(_, v)| *v);
            items16.sort_by_key(|(_, v)| *v);
            if code == 0x17 {
                T::Enum8(items8)
            } else {
                T::Enum16(items16)
            }
        }
        0x19..=0x1C => {
            let (precision, scale) = (r.u8()?, r.u8()?);
            let widest = [9, 18, 38, 76][usize::from(code - 0x19)];
            if precision == 0 || precision > widest || scale > precision {
                return Err(malformed(format!("Decimal({precision}, {scale})")));
            }
            T::Decimal { precision, scale }
        }
        0x1D => T::Uuid,
        0x1E => T::Array(Box::new(nested(r)?)),
        0x1F | 0x20 => {
            let n = r.varuint_len("Tuple elements", MAX_TYPE_ELEMENTS)?;
            let mut items = Vec::with_capacity(n.min(r.remaining()));
            for _ in 0..n {
                let name = if code == 0x20 { Some(utf8(r.str_bytes()?, "tuple element name")?) } else { None };
                items.push((name, nested(r)?));
            }
            T::Tuple(items)
        }
        0x22 => {
            let k = r.u8()?;
            T::Interval(IntervalKind::from_code(k).ok_or_else(|| malformed(format!("interval kind {k}")))?)
        }
        0x23 => T::Nullable(Box::new(nested(r)?)),
        0x25 => {
            let version = r.varuint()?;
            let (function, params, args) = aggregate_function(r, depth)?;
            T::AggregateFunction(Box::new(AggregateFunctionType { version: (version != 0).then_some(version), function, params, args }))
        }
        0x26 => T::LowCardinality(Box::new(nested(r)?)),
        0x27 => T::Map(Box::new(nested(r)?), Box::new(nested(r)?)),
        0x28 => T::Ipv4,
        0x29 => T::Ipv6,
        0x2A => {
            let n = r.varuint_len("Variant types", 255)?;
            let types = (0..n).map(|_| nested(r)).collect::<Result<Vec<_>, _>>()?;
            T::Variant(types)
        }
        0x2B => {
            let n = u64::from(r.u8()?);
            T::Dynamic { max_types: (n != DEFAULT_MAX_TYPES).then_some(n as u32) }
        }
        0x2C => {
            let name = utf8(r.str_bytes()?, "type name")?;
            DataType::parse(&name)?
        }
        0x2D => T::Bool,
        0x2E => {
            let (function, params, mut args) = aggregate_function(r, depth)?;
            match (params.is_empty(), args.len()) {
                (true, 1) => T::SimpleAggregateFunction { function, ty: Box::new(args.remove(0)) },
                _ => return Err(DecodeError::UnsupportedType(format!("SimpleAggregateFunction({function}, ...) with parameters")).into()),
            }
        }
        0x2F => {
            let n = r.varuint_len("Nested elements", MAX_TYPE_ELEMENTS)?;
            let mut fields = Vec::with_capacity(n.min(r.remaining()));
            for _ in 0..n {
                fields.push((utf8(r.str_bytes()?, "nested element name")?, nested(r)?));
            }
            T::Nested(fields)
        }
        0x30 => {
            let version = r.u8()?;
            if version != 0 {
                return Err(malformed(format!("JSON type encoding version {version}")));
            }
            let max_paths = r.varuint()?;
            let max_types = u64::from(r.u8()?);
            let n = r.varuint_len("JSON typed paths", MAX_TYPE_ELEMENTS)?;
            let mut typed = Vec::with_capacity(n.min(r.remaining()));
            for _ in 0..n {
                typed.push((utf8(r.str_bytes()?, "JSON path")?, nested(r)?));
            }
            // Paths to skip only matter when inserting: read past them.
            for what in ["JSON paths to skip", "JSON path patterns to skip"] {
                let n = r.varuint_len(what, MAX_TYPE_ELEMENTS)?;
                for _ in 0..n {
                    r.str_bytes()?;
                }
            }
            typed.sort_by(|a, b| a.0.cmp(&b.0));
            let mut args = Vec::new();
            if max_paths != DEFAULT_MAX_PATHS {
                args.push(JsonArg::Param("max_dynamic_paths".into(), max_paths.to_string()));
            }
            if max_types != DEFAULT_MAX_TYPES {
                args.push(JsonArg::Param("max_dynamic_types".into(), max_types.to_string()));
            }
            args.extend(typed.iter().map(|(p, t)| JsonArg::Path(p.clone(), t.clone())));
            T::Json { typed, args }
        }
        0x31 => T::BFloat16,
        0x32 => T::Time,
        0x34 => match r.u8()? {
            p @ 0..=9 => T::Time64(p),
            p => return Err(malformed(format!("Time64 precision {p}"))),
        },
        0x36 => {
            let element = nested(r)?;
            if !matches!(element, T::BFloat16 | T::Float32 | T::Float64) {
                return Err(malformed(format!("QBit of {element}")));
            }
            match r.varuint()? {
                d @ 1..=0xFF_FFFF => T::QBit { element: Box::new(element), dimension: d as usize },
                d => return Err(malformed(format!("QBit dimension {d}"))),
            }
        }
        0x21 => return Err(DecodeError::UnsupportedType("Set (binary type code 0x21)".into()).into()),
        0x24 => return Err(DecodeError::UnsupportedType("Function (binary type code 0x24)".into()).into()),
        c => return Err(DecodeError::UnsupportedType(format!("binary type code 0x{c:02x}")).into()),
    })
}

/// Function name, parameters (as text) and argument types of an (Simple)AggregateFunction.
fn aggregate_function(r: &mut Reader<'_>, depth: usize) -> ReadResult<(String, Vec<String>, Vec<DataType>)> {
    let function = utf8(r.str_bytes()?, "function name")?;
    let n = r.varuint_len("function parameters", MAX_TYPE_ELEMENTS)?;
    let params = (0..n).map(|_| field_text(r)).collect::<Result<Vec<_>, _>>()?;
    let n = r.varuint_len("function arguments", MAX_TYPE_ELEMENTS)?;
    let args = (0..n).map(|_| decode_type_at(r, depth + 1)).collect::<Result<Vec<_>, _>>()?;
    Ok((function, params, args))
}

/// A binary-encoded Field (a function parameter) as the literal a type name shows.
fn field_text(r: &mut Reader<'_>) -> ReadResult<String> {
    Ok(match r.u8()? {
        0x00 => "NULL".into(),
        0x01 => r.varuint()?.to_string(),
        0x02 => {
            let z = r.varuint()?;
            (((z >> 1) as i64) ^ -((z & 1) as i64)).to_string()
        }
        0x03 => u128::from_le_bytes(r.array()?).to_string(),
        0x04 => i128::from_le_bytes(r.array()?).to_string(),
        0x07 => f64::from_le_bytes(r.array()?).to_string(),
        0x0C => crate::types::quoted(&String::from_utf8_lossy(r.str_bytes()?)),
        0x13 => if r.u8()? != 0 { "true" } else { "false" }.into(),
        k => return Err(DecodeError::UnsupportedType(format!("aggregate function parameter of field type 0x{k:02x}")).into()),
    })
}

/// Append the binary encoding of `ty` (the inverse of [`decode_type`]). Types without an
/// encoding (unsupported ones) are written as a custom type name.
pub fn encode_type(ty: &DataType, out: &mut Vec<u8>) {
    use DataType as T;
    let custom = |out: &mut Vec<u8>, name: String| {
        out.push(0x2C);
        out.put_str(name);
    };
    match ty {
        T::Nothing => out.push(0x00),
        T::UInt8 => out.push(0x01),
        T::UInt16 => out.push(0x02),
        T::UInt32 => out.push(0x03),
        T::UInt64 => out.push(0x04),
        T::UInt128 => out.push(0x05),
        T::UInt256 => out.push(0x06),
        T::Int8 => out.push(0x07),
        T::Int16 => out.push(0x08),
        T::Int32 => out.push(0x09),
        T::Int64 => out.push(0x0A),
        T::Int128 => out.push(0x0B),
        T::Int256 => out.push(0x0C),
        T::Float32 => out.push(0x0D),
        T::Float64 => out.push(0x0E),
        T::Date => out.push(0x0F),
        T::Date32 => out.push(0x10),
        T::DateTime(None) => out.push(0x11),
        T::DateTime(Some(tz)) => {
            out.push(0x12);
            out.put_str(tz);
        }
        T::DateTime64 { precision, tz: None } => out.extend_from_slice(&[0x13, *precision]),
        T::DateTime64 { precision, tz: Some(tz) } => {
            out.extend_from_slice(&[0x14, *precision]);
            out.put_str(tz);
        }
        T::String => out.push(0x15),
        T::FixedString(n) => {
            out.push(0x16);
            out.put_varuint(*n as u64);
        }
        T::Enum8(items) => {
            out.push(0x17);
            out.put_varuint(items.len() as u64);
            for (n, v) in items {
                out.put_str(n);
                out.push(*v as u8);
            }
        }
        T::Enum16(items) => {
            out.push(0x18);
            out.put_varuint(items.len() as u64);
            for (n, v) in items {
                out.put_str(n);
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        T::Decimal { precision, scale } => {
            let code = match precision {
                0..=9 => 0x19,
                10..=18 => 0x1A,
                19..=38 => 0x1B,
                _ => 0x1C,
            };
            out.extend_from_slice(&[code, *precision, *scale]);
        }
        T::Uuid => out.push(0x1D),
        T::Array(t) => {
            out.push(0x1E);
            encode_type(t, out);
        }
        T::Tuple(items) => {
            let named = !items.is_empty() && items.iter().all(|(n, _)| n.is_some());
            out.push(if named { 0x20 } else { 0x1F });
            out.put_varuint(items.len() as u64);
            for (n, t) in items {
                if named {
                    out.put_str(n.as_deref().unwrap_or_default());
                }
                encode_type(t, out);
            }
        }
        T::Interval(k) => out.extend_from_slice(&[0x22, k.code()]),
        T::Nullable(t) => {
            out.push(0x23);
            encode_type(t, out);
        }
        T::AggregateFunction(f) if f.params.is_empty() => {
            out.push(0x25);
            out.put_varuint(f.version.unwrap_or(0));
            out.put_str(&f.function);
            out.put_varuint(0);
            out.put_varuint(f.args.len() as u64);
            f.args.iter().for_each(|a| encode_type(a, out));
        }
        T::LowCardinality(t) => {
            out.push(0x26);
            encode_type(t, out);
        }
        T::Map(k, v) => {
            out.push(0x27);
            encode_type(k, out);
            encode_type(v, out);
        }
        T::Ipv4 => out.push(0x28),
        T::Ipv6 => out.push(0x29),
        T::Variant(types) => {
            out.push(0x2A);
            out.put_varuint(types.len() as u64);
            types.iter().for_each(|t| encode_type(t, out));
        }
        T::Dynamic { max_types } => out.extend_from_slice(&[0x2B, max_types.map_or(DEFAULT_MAX_TYPES as u8, |n| n.min(255) as u8)]),
        T::Bool => out.push(0x2D),
        T::SimpleAggregateFunction { function, ty } => {
            out.push(0x2E);
            out.put_str(function);
            out.put_varuint(0);
            out.put_varuint(1);
            encode_type(ty, out);
        }
        T::Nested(fields) => {
            out.push(0x2F);
            out.put_varuint(fields.len() as u64);
            for (n, t) in fields {
                out.put_str(n);
                encode_type(t, out);
            }
        }
        T::Json { typed, args } => {
            let param = |k: &str, default: u64| {
                args.iter()
                    .find_map(|a| match a {
                        JsonArg::Param(n, v) if n == k => v.parse().ok(),
                        _ => None,
                    })
                    .unwrap_or(default)
            };
            out.extend_from_slice(&[0x30, 0]);
            out.put_varuint(param("max_dynamic_paths", DEFAULT_MAX_PATHS));
            out.push(param("max_dynamic_types", DEFAULT_MAX_TYPES).min(255) as u8);
            out.put_varuint(typed.len() as u64);
            for (p, t) in typed {
                out.put_str(p);
                encode_type(t, out);
            }
            out.extend_from_slice(&[0, 0]);
        }
        T::BFloat16 => out.push(0x31),
        T::Time => out.push(0x32),
        T::Time64(p) => out.extend_from_slice(&[0x34, *p]),
        T::QBit { element, dimension } => {
            out.push(0x36);
            encode_type(element, out);
            out.put_varuint(*dimension as u64);
        }
        T::Geo(_) | T::Geometry | T::AggregateFunction(_) | T::Unsupported(_) => custom(out, ty.to_string()),
    }
}

/// Fewest bytes one binary value of `ty` takes (bounds element counts by the input).
fn min_size(ty: &DataType) -> usize {
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
fn element_count(r: &mut Reader<'_>, elem: &DataType) -> ReadResult<usize> {
    let n = r.varuint()?;
    let limit = match min_size(elem) {
        // No value of Nothing is ever written; other zero-size elements (empty tuples) are
        // held to a fixed bound (they allocate nothing, only take a loop turn each).
        0 if *elem == DataType::Nothing => 0,
        0 => r.remaining().max(1 << 16),
        m => r.remaining() / m,
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
            r.str_bytes()?;
        }
        None => {
            let mut scratch = ColumnData::empty_for(ty).map_err(|_| DecodeError::UnsupportedType(ty.to_string()))?;
            read_value(ty, r, &mut scratch, 0)?;
        }
    }
    Ok(())
}

fn fixed<const N: usize>(r: &mut Reader<'_>) -> ReadResult<[u8; N]> {
    r.array()
}

/// Append one binary value of `ty` to `col` (storage for `ty`, as [`ColumnData::empty_for`]
/// makes it). On an error the column may hold part of the value.
pub(crate) fn read_value(ty: &DataType, r: &mut Reader<'_>, col: &mut ColumnData, depth: usize) -> ReadResult<()> {
    use ColumnData as D;
    use DataType as T;
    if depth > MAX_VALUE_DEPTH {
        return Err(malformed(format!("values nested deeper than {MAX_VALUE_DEPTH} levels")));
    }
    let d = depth + 1;
    match (ty, col) {
        (T::QBit { element, dimension }, D::Tuple(t)) => {
            let n = r.varuint()?;
            if n != *dimension as u64 {
                return Err(malformed(format!("{n} elements for {ty}")));
            }
            let w = element.fixed_width().unwrap_or(8);
            let mut bits = Vec::with_capacity((*dimension).min(r.remaining() / w));
            for _ in 0..n {
                let b = r.bytes(w)?;
                let mut le = [0u8; 8];
                le[..w].copy_from_slice(b);
                bits.push(u64::from_le_bytes(le));
            }
            super::qbit::push(&mut t.elements, &bits);
            t.rows += 1;
        }
        (T::AggregateFunction(f), D::AggregateState(s)) => {
            let format = super::aggregate::StateFormat::of(f)?;
            let start = r.position();
            let rest = r.rest();
            format.skip(r)?;
            s.push(&rest[..r.position() - start]);
        }
        (T::Nothing, D::UInt8(v)) => v.push(b'0'),
        (t, c) if t.physical() == crate::types::Physical::Alias => {
            let storage = t.storage().expect("alias types have storage");
            read_value(&storage, r, c, d)?;
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
        (_, D::String(s)) => s.push(r.str_bytes()?),
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
            for _ in 0..n {
                read_value(k, r, &mut t.elements[0], d)?;
                read_value(v, r, &mut t.elements[1], d)?;
                t.rows += 1;
            }
            a.offsets.push(t.rows as u64);
        }
        (T::Tuple(items), D::Tuple(t)) => {
            for ((_, et), e) in items.iter().zip(&mut t.elements) {
                read_value(et, r, e, d)?;
            }
            t.rows += 1;
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
                    l.dictionary.len() as u64 - 1
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
            k if usize::from(k) < types.len() => {
                let c = &mut v.variants[usize::from(k)];
                v.offsets.push(c.len() as u32);
                read_value(&types[usize::from(k)], r, c, d)?;
                v.discriminators.push(k);
            }
            k => return Err(malformed(format!("discriminator {k} for {ty}"))),
        },
        (T::Dynamic { .. }, D::Dynamic(dc)) => read_dynamic(r, dc, d)?,
        (T::Json { typed, .. }, D::Json(j)) => read_json(typed, r, j, d)?,
        (t, c) => return Err(malformed(format!("storage {} does not fit {t}", c.kind_name()))),
    }
    Ok(())
}

/// One Dynamic value: its type, then the value (type `Nothing`: NULL, no value).
fn read_dynamic(r: &mut Reader<'_>, dc: &mut DynamicColumn, depth: usize) -> ReadResult<()> {
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
            dc.types.len() - 1
        }
        None => return Err(malformed("a Dynamic value of more than 255 types")),
    };
    let c = &mut dc.values.variants[k];
    dc.values.offsets.push(c.len() as u32);
    read_value(&dc.types[k], r, c, depth)?;
    dc.values.discriminators.push(k as u8);
    Ok(())
}

/// One JSON value: a count, then (path, value) pairs; typed paths hold their type's binary
/// value, all others a Dynamic value.
fn read_json(typed: &[(String, DataType)], r: &mut Reader<'_>, j: &mut JsonColumn, depth: usize) -> ReadResult<()> {
    let row = j.rows;
    let n = element_count(r, &DataType::String)?;
    let mut seen = vec![false; typed.len()];
    for _ in 0..n {
        let path = utf8(r.str_bytes()?, "JSON path")?;
        if let Ok(i) = typed.binary_search_by(|(p, _)| p.as_str().cmp(&path)) {
            if std::mem::replace(&mut seen[i], true) {
                return Err(malformed(format!("JSON path {path} twice")));
            }
            read_value(&typed[i].1, r, &mut j.typed[i], depth)?;
            continue;
        }
        let k = match j.dynamic.iter().position(|(p, _)| *p == path) {
            Some(k) => k,
            None => {
                // Every path holds a cell per row: bound paths × rows, which values with
                // ever new paths would otherwise grow quadratically.
                if (j.dynamic.len() + 1).saturating_mul(row + 1) > MAX_JSON_CELLS {
                    return Err(malformed(format!(
                        "JSON values with {} distinct paths over {} rows: more than {MAX_JSON_CELLS} path cells",
                        j.dynamic.len() + 1,
                        row + 1
                    )));
                }
                j.dynamic.push((path, null_dynamic(row)));
                j.dynamic.len() - 1
            }
        };
        let (path, dc) = &mut j.dynamic[k];
        if dc.values.discriminators.len() > row {
            return Err(malformed(format!("JSON path {path} twice")));
        }
        read_dynamic(r, dc, depth)?;
    }
    for (i, (_, t)) in typed.iter().enumerate() {
        if !seen[i] {
            push_default(t, &mut j.typed[i])?;
        }
    }
    for (_, dc) in &mut j.dynamic {
        if dc.values.discriminators.len() == row {
            dc.values.discriminators.push(VariantColumn::NULL);
            dc.values.offsets.push(0);
        }
    }
    j.rows += 1;
    Ok(())
}

/// At most this many (path, row) cells in JSON values decoded from binary (about 5 bytes
/// each).
const MAX_JSON_CELLS: usize = 1 << 26;

/// A Dynamic column of `rows` NULLs.
fn null_dynamic(rows: usize) -> DynamicColumn {
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
fn lc_defaults(inner: &DataType, l: &mut LowCardinalityColumn) -> ReadResult<()> {
    if l.dictionary.is_empty() {
        push_default(inner.strip_nullable(), &mut l.dictionary)?;
        if inner.is_nullable() {
            push_default(inner.strip_nullable(), &mut l.dictionary)?;
        }
    }
    Ok(())
}

fn push_key(keys: &mut LcKeys, k: u64) {
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
fn push_default(ty: &DataType, col: &mut ColumnData) -> ReadResult<()> {
    use ColumnData as D;
    use DataType as T;
    match (ty, col) {
        (T::QBit { .. }, D::Tuple(t)) => {
            super::qbit::push(&mut t.elements, &[]);
            t.rows += 1;
        }
        (T::AggregateFunction(_), D::AggregateState(s)) => s.push(b""),
        (T::Nothing, D::UInt8(v)) => v.push(b'0'),
        (t, c) if t.physical() == crate::types::Physical::Alias => push_default(&t.storage().expect("alias storage"), c)?,
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
        (_, D::Fixed { width, data }) => data.resize(data.len() + *width, 0),
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
            t.rows += 1;
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
            j.rows += 1;
        }
        (t, c) => return Err(malformed(format!("storage {} does not fit {t}", c.kind_name()))),
    }
    Ok(())
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
        let mut out = BinaryValues::default();
        let mut known: HashMap<DataType, u32> = HashMap::new();
        for (i, v) in encoded.iter().enumerate() {
            let complete = |e: ReadError| match e {
                ReadError::Incomplete { .. } => DecodeError::malformed("binary-encoded value", format!("value {i} is truncated")),
                ReadError::Invalid(e) => e,
            };
            let mut r = Reader::new(v);
            let ty = decode_type(&mut r).map_err(complete)?;
            if ty == DataType::Nothing {
                out.index.push((Self::NULL, 0));
            } else {
                let t = match known.get(&ty) {
                    Some(&t) => t,
                    None => {
                        let col = ColumnData::empty_for(&ty).map_err(|_| DecodeError::UnsupportedType(ty.to_string()))?;
                        out.types.push(ty.clone());
                        out.columns.push(col);
                        let t = (out.types.len() - 1) as u32;
                        known.insert(ty, t);
                        t
                    }
                };
                let col = &mut out.columns[t as usize];
                let row = col.len() as u32;
                read_value(&out.types[t as usize], &mut r, col, 0).map_err(complete)?;
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
