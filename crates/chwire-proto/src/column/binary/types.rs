//! Binary encoding of data types (`DataTypesBinaryEncoding`).

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use super::*;
use crate::error::{DecodeError, ReadResult};
use crate::types::{AggregateFunctionType, DataType, IntervalKind, JsonArg};
use crate::wire::{Reader, WriteExt};

/// Most elements a count in a type may claim (ClickHouse's own limit when decoding types).
pub(super) const MAX_TYPE_ELEMENTS: usize = 1_000_000;
/// `Dynamic`'s default `max_types`, and JSON's defaults: left out of type names.
pub(super) const DEFAULT_MAX_TYPES: u64 = 32;
pub(super) const DEFAULT_MAX_PATHS: u64 = 1024;

/// Decode one binary-encoded type.
pub fn decode_type(r: &mut Reader<'_>) -> ReadResult<DataType> {
    decode_type_at(r, 0)
}

pub(super) fn utf8(b: &[u8], what: &str) -> ReadResult<String> {
    String::from_utf8(b.to_vec()).map_err(|_| malformed(format!("{what} is not UTF-8")))
}

pub(super) fn decode_type_at(r: &mut Reader<'_>, depth: usize) -> ReadResult<DataType> {
    use DataType as T;
    let max = r.limits().depth();
    if depth >= max {
        return Err(malformed(format!("types nested deeper than {max} levels")));
    }
    let nested = |r: &mut Reader<'_>| decode_type_at(r, depth.saturating_add(1));
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
            if code == 0x17 {
                crate::types::check_enum(&mut items8).map_err(malformed)?;
                T::Enum8(items8)
            } else {
                crate::types::check_enum(&mut items16).map_err(malformed)?;
                T::Enum16(items16)
            }
        }
        0x19..=0x1C => {
            let (precision, scale) = (r.u8()?, r.u8()?);
            let widest = match code {
                0x19 => 9,
                0x1A => 18,
                0x1B => 38,
                _ => 76,
            };
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
            let t = T::AggregateFunction(Box::new(AggregateFunctionType {
                version: (version != 0).then_some(version),
                function,
                params,
                args,
            }));
            // The function name and parameters are free text here: they must make a type
            // name that reads back as this type (it is re-encoded as that name).
            if DataType::parse_limited(&t.to_string(), r.limits()).ok().as_ref() != Some(&t) {
                return Err(malformed(format!("aggregate function type {t} does not read back")));
            }
            t
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
            DataType::parse_limited(&name, r.limits())?
        }
        0x2D => T::Bool,
        0x2E => {
            let (function, params, mut args) = aggregate_function(r, depth)?;
            match (params.is_empty(), args.len()) {
                (true, 1) => {
                    let t = T::SimpleAggregateFunction { function, ty: Box::new(args.remove(0)) };
                    if DataType::parse_limited(&t.to_string(), r.limits()).ok().as_ref() != Some(&t) {
                        return Err(malformed(format!("aggregate function type {t} does not read back")));
                    }
                    t
                }
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
            // Paths to skip only matter when the server parses JSON: kept for the type's name.
            let mut skips = Vec::new();
            for (what, regexp) in [("JSON paths to skip", false), ("JSON path patterns to skip", true)] {
                let n = r.varuint_len(what, MAX_TYPE_ELEMENTS)?;
                for _ in 0..n {
                    let s = utf8(r.str_bytes()?, what)?;
                    skips.push(if regexp { JsonArg::SkipRegexp(s) } else { JsonArg::Skip(s) });
                }
            }
            crate::types::sort_typed_paths(&mut typed).map_err(|p| malformed(format!("the JSON typed path {p} twice")))?;
            let mut args = Vec::new();
            if max_paths != DEFAULT_MAX_PATHS {
                args.push(JsonArg::Param("max_dynamic_paths".into(), max_paths.to_string()));
            }
            if max_types != DEFAULT_MAX_TYPES {
                args.push(JsonArg::Param("max_dynamic_types".into(), max_types.to_string()));
            }
            args.extend(typed.iter().map(|(p, _)| JsonArg::Path(p.clone())));
            args.extend(skips);
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
pub(super) fn aggregate_function(r: &mut Reader<'_>, depth: usize) -> ReadResult<(String, Vec<String>, Vec<DataType>)> {
    let function = utf8(r.str_bytes()?, "function name")?;
    let n = r.varuint_len("function parameters", MAX_TYPE_ELEMENTS)?;
    let params = (0..n).map(|_| field_text(r)).collect::<Result<Vec<_>, _>>()?;
    let n = r.varuint_len("function arguments", MAX_TYPE_ELEMENTS)?;
    let args = (0..n).map(|_| decode_type_at(r, depth.saturating_add(1))).collect::<Result<Vec<_>, _>>()?;
    Ok((function, params, args))
}

/// A binary-encoded Field (a function parameter) as the literal a type name shows.
pub(super) fn field_text(r: &mut Reader<'_>) -> ReadResult<String> {
    Ok(match r.u8()? {
        0x00 => "NULL".into(),
        0x01 => r.varuint()?.to_string(),
        0x02 => {
            let z = r.varuint()?;
            (((z >> 1) as i64) ^ ((z & 1) as i64).wrapping_neg()).to_string() // zigzag
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
            for regexp in [false, true] {
                let skips: Vec<&String> = args
                    .iter()
                    .filter_map(|a| match a {
                        JsonArg::Skip(p) if !regexp => Some(p),
                        JsonArg::SkipRegexp(p) if regexp => Some(p),
                        _ => None,
                    })
                    .collect();
                out.put_varuint(skips.len() as u64);
                for p in skips {
                    out.put_str(p);
                }
            }
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
