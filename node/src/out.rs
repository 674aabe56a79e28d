//! Result columns → JavaScript, in two steps.
//!
//! 1. [`prepare`] (on chwire's IO threads, as each block arrives) decides what every ClickHouse
//!    type becomes in JavaScript and turns the block's columns into [`Prep`]: buffers JS takes as
//!    they are — the block's own `Vec`s moved into typed arrays (numbers, BigInt64/BigUint64),
//!    string columns as one text (Latin-1 bytes moved, or UTF-16) plus UTF-16 offsets, dates as
//!    milliseconds — and nested containers of them (nulls, arrays, maps, tuples, dictionaries).
//!    Only types with no buffer form (Variant, Dynamic, JSON, QBit, 128/256-bit integers,
//!    aggregate states) keep their column, turned into values one by one in step 2.
//! 2. [`Prep::into_js`] (on the JS thread) wraps those buffers without copying (external array
//!    buffers over the `Vec`s) in small descriptors `{k, ...}` that `lib/columns.ts`
//!    materialises: rows from typed arrays in generated code, one object per row and no other.

use crate::dates::{precise, time_text};
use crate::error::{Error, Result};
use crate::js::{self, Env, Val};
use crate::values::{value_to_js, Mapping};
use chwire::proto::column::{decimal256_to_string, decimal_to_string, uuid_from_wire};
use chwire::{Block, ColumnData, DataType, StringColumn};
use napi::sys;

/// Longest text of one JS string part (V8 strings stop at 2^29 - 24 UTF-16 units).
const MAX_PART: usize = 1 << 28;

/// The text of a string column: bytes as Latin-1 when all are ASCII (moved from the block), else
/// UTF-16 (invalid UTF-8 as U+FFFD, as `TextDecoder` reads it).
pub enum Text {
    Latin1(Vec<u8>),
    Utf16(Vec<u16>),
}

/// Part of a string column: its text and the UTF-16 offsets of its `n + 1` value bounds.
pub struct StrPart {
    text: Text,
    offsets: Vec<u32>,
}

/// A prepared column (see the module docs).
pub enum Prep {
    U8(Vec<u8>),
    I8(Vec<i8>),
    U16(Vec<u16>),
    I16(Vec<i16>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    Bool(Vec<u8>),
    Str(Vec<StrPart>),
    /// Milliseconds since the epoch: `Date`s.
    Ms(Vec<f64>),
    /// Milliseconds since the epoch and nanoseconds past them: `PreciseDate`s (DateTime64(4..9)).
    Precise(Vec<f64>, Vec<u32>),
    /// Bytes and the `n + 1` offsets of each value's: `Buffer`s (`strings: 'buffer'`).
    Bin(Vec<u8>, Vec<u32>),
    Null(Vec<u8>, Box<Prep>),
    /// A dictionary and one key per row; `nullable`: key 0 is NULL.
    Dict(Box<Prep>, Vec<u32>, bool),
    /// `n + 1` offsets into the element column.
    Arr(Vec<u32>, Box<Prep>),
    Map(Vec<u32>, Box<Prep>, Box<Prep>),
    /// Element names (a named tuple is an object), elements, rows.
    Tup(Option<Vec<String>>, Vec<Prep>, usize),
    /// Values made one by one on the JS thread.
    Values(Vec<(DataType, ColumnData)>, Mapping),
    /// `Nothing`: every row NULL.
    Nulls(usize),
    /// Consecutive pieces of one column that do not merge (dictionaries of several blocks).
    Parts(Vec<Prep>),
}

fn err(column: &str, row: usize, why: impl std::fmt::Display) -> Error {
    Error::Range(format!("column `{column}`, row {row}: {why}"))
}

/// The column `name`'s data prepared for JS (consumes it).
pub fn prepare(name: &str, ty: &DataType, data: ColumnData, m: Mapping) -> Result<Prep> {
    use ColumnData as D;
    use DataType as T;
    Ok(match (ty, data) {
        (T::Bool, D::UInt8(v)) => Prep::Bool(v),
        (T::Nothing, d) => Prep::Nulls(d.len()),
        (T::Date, D::UInt16(v)) => Prep::Ms(v.iter().map(|&d| d as f64 * 86_400_000.0).collect()),
        (T::BFloat16, D::UInt16(v)) => Prep::F32(v.iter().map(|&b| f32::from_bits((b as u32) << 16)).collect()),
        (T::DateTime(_), D::UInt32(v)) => Prep::Ms(v.iter().map(|&s| s as f64 * 1000.0).collect()),
        (T::Ipv4, D::UInt32(v)) => strings(v.iter().map(|&a| std::net::Ipv4Addr::from(a).to_string())),
        (T::Date32, D::Int32(v)) => Prep::Ms(v.iter().map(|&d| d as f64 * 86_400_000.0).collect()),
        (T::Time, D::Int32(v)) => strings(v.iter().map(|&s| time_text(s as i64, 0))),
        (T::Time64(p), D::Int64(v)) => strings(v.iter().map(|&t| time_text(t, *p))),
        (T::DateTime64 { precision, .. }, D::Int64(v)) if *precision > 3 => {
            let (ms, sub) = v.iter().map(|&t| precise(t, *precision)).unzip();
            Prep::Precise(ms, sub)
        }
        (T::DateTime64 { precision, .. }, D::Int64(v)) => Prep::Ms(v.iter().map(|&t| ticks_ms(t, *precision)).collect()),
        (T::Enum8(items), D::Int8(v)) => {
            strings(v.iter().map(|x| items.iter().find(|(_, e)| e == x).map_or(String::new(), |(n, _)| n.clone())))
        }
        (T::Enum16(items), D::Int16(v)) => {
            strings(v.iter().map(|x| items.iter().find(|(_, e)| e == x).map_or(String::new(), |(n, _)| n.clone())))
        }
        (T::Decimal { scale, .. }, d @ (D::Int32(_) | D::Int64(_) | D::Int128(_) | D::Fixed { .. })) => decimal(d, *scale, m),
        (_, D::UInt8(v)) => Prep::U8(v),
        (_, D::Int8(v)) => Prep::I8(v),
        (_, D::UInt16(v)) => Prep::U16(v),
        (_, D::Int16(v)) => Prep::I16(v),
        (_, D::UInt32(v)) => Prep::U32(v),
        (_, D::Int32(v)) => Prep::I32(v),
        (_, D::Float32(v)) => Prep::F32(v),
        (_, D::Float64(v)) => Prep::F64(v),
        (_, D::UInt64(v)) if m.int64_as_number => {
            Prep::F64(exact(name, v.iter().map(|&x| (x as f64, x as f64 as u64 == x && x <= 1 << 53)))?)
        }
        (_, D::Int64(v)) if m.int64_as_number => {
            Prep::F64(exact(name, v.iter().map(|&x| (x as f64, x as f64 as i64 == x && x.unsigned_abs() <= 1 << 53)))?)
        }
        (_, D::UInt64(v)) => Prep::U64(v),
        (_, D::Int64(v)) => Prep::I64(v),
        (T::Uuid, D::Fixed { data, .. }) => strings(data.chunks_exact(16).map(uuid_text)),
        (T::Ipv6, D::Fixed { data, .. }) => strings(data.chunks_exact(16).map(|c| {
            let mut o = [0u8; 16];
            o.copy_from_slice(c);
            std::net::Ipv6Addr::from(o).to_string()
        })),
        (T::FixedString(_), D::Fixed { data, width }) if m.strings_as_buffers => {
            let w = width.max(1);
            let offsets = (0..=data.len() / w).map(|i| u32::try_from(i * w)).collect::<std::result::Result<_, _>>();
            Prep::Bin(data, offsets.map_err(|_| Error::Data(format!("column `{name}`: more than 4 GiB of bytes in one block")))?)
        }
        (T::String, D::String(s)) if m.strings_as_buffers => {
            let (offsets, data) = s.into_parts();
            let offsets = offsets.iter().map(|&o| u32::try_from(o)).collect::<std::result::Result<_, _>>();
            Prep::Bin(data, offsets.map_err(|_| Error::Data(format!("column `{name}`: more than 4 GiB of bytes in one block")))?)
        }
        (T::FixedString(_), D::Fixed { data, width }) => {
            let mut s = StringColumn::with_capacity(data.len() / width.max(1), data.len());
            for c in data.chunks_exact(width.max(1)) {
                s.push(c);
            }
            text(s)
        }
        (T::String, D::String(s)) => text(s),
        (T::Nullable(inner), D::Nullable(n)) => {
            let n = *n;
            Prep::Null(n.nulls, Box::new(prepare(name, inner, n.values, m)?))
        }
        (T::LowCardinality(inner), D::LowCardinality(l)) => {
            let l = *l;
            let keys: Vec<u32> = (0..l.keys.len()).map(|i| l.keys.get(i) as u32).collect();
            Prep::Dict(Box::new(prepare(name, inner.strip_nullable(), l.dictionary, m)?), keys, inner.is_nullable())
        }
        (T::Array(inner), D::Array(a)) => {
            let a = *a;
            Prep::Arr(offsets32(name, &a.offsets)?, Box::new(prepare(name, inner, a.values, m)?))
        }
        (T::Map(k, v), D::Array(a)) => {
            let a = *a;
            let offsets = offsets32(name, &a.offsets)?;
            match a.values {
                D::Tuple(t) => {
                    let mut e = t.elements.into_iter();
                    let (Some(kd), Some(vd)) = (e.next(), e.next()) else {
                        return Err(Error::Data("a Map without keys and values".into()));
                    };
                    Prep::Map(offsets, Box::new(prepare(name, k, kd, m)?), Box::new(prepare(name, v, vd, m)?))
                }
                other => return Err(Error::Data(format!("a Map stored as {:?}", std::mem::discriminant(&other)))),
            }
        }
        (T::Tuple(items), D::Tuple(t)) => {
            let named = items.iter().all(|(n, _)| n.is_some()) && !items.is_empty();
            let names = named.then(|| items.iter().map(|(n, _)| n.clone().unwrap_or_default()).collect());
            let elems = items.iter().zip(t.elements).map(|((_, ity), d)| prepare(name, ity, d, m)).collect::<Result<Vec<_>>>()?;
            Prep::Tup(names, elems, t.rows)
        }
        (T::Nested(fields), d) => {
            let storage = T::Array(Box::new(T::Tuple(fields.iter().map(|(n, t)| (Some(n.clone()), t.clone())).collect())));
            prepare(name, &storage, d, m)?
        }
        (T::Geo(g), d) => prepare(name, &g.storage(), d, m)?,
        (T::SimpleAggregateFunction { ty, .. }, d) => prepare(name, ty, d, m)?,
        (ty, d) => Prep::Values(vec![(ty.clone(), d)], m),
    })
}

/// Doubles that must be exact (`int64_as_number`): an inexact one is a RangeError.
fn exact(name: &str, it: impl Iterator<Item = (f64, bool)>) -> Result<Vec<f64>> {
    let mut out = Vec::new();
    for (row, (f, ok)) in it.enumerate() {
        if !ok {
            return Err(err(name, row, format!("{f} is beyond 2^53, where a number is not exact (read 64-bit integers as bigint)")));
        }
        out.push(f);
    }
    Ok(out)
}

fn offsets32(name: &str, o: &[u64]) -> Result<Vec<u32>> {
    o.iter()
        .map(|&x| u32::try_from(x).map_err(|_| Error::Data(format!("column `{name}`: more than 2^32 array elements in one block"))))
        .collect()
}

fn ticks_ms(t: i64, p: u8) -> f64 {
    if p <= 3 {
        t as f64 * 10f64.powi(3 - p as i32)
    } else {
        t.div_euclid(10i64.pow(p as u32 - 3)) as f64
    }
}

fn uuid_text(wire: &[u8]) -> String {
    let mut w = [0u8; 16];
    w.copy_from_slice(wire);
    let c = uuid_from_wire(&w);
    let h: String = c.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

fn decimal(d: ColumnData, scale: u8, m: Mapping) -> Prep {
    let texts: Vec<String> = match d {
        ColumnData::Int32(v) => v.iter().map(|&r| decimal_to_string(r.into(), scale)).collect(),
        ColumnData::Int64(v) => v.iter().map(|&r| decimal_to_string(r.into(), scale)).collect(),
        ColumnData::Int128(v) => v.iter().map(|&r| decimal_to_string(r, scale)).collect(),
        ColumnData::Fixed { data, .. } => data.chunks_exact(32).map(|c| decimal256_to_string(c, scale)).collect(),
        _ => Vec::new(),
    };
    if m.decimal_as_number {
        Prep::F64(texts.iter().map(|t| t.parse().unwrap_or(f64::NAN)).collect())
    } else {
        strings(texts.into_iter())
    }
}

fn strings(it: impl Iterator<Item = String>) -> Prep {
    let mut s = StringColumn::new();
    for x in it {
        s.push(x.as_bytes());
    }
    text(s)
}

/// A string column as JS text parts (see [`Text`]).
fn text(s: StringColumn) -> Prep {
    let (offsets, data) = s.into_parts();
    if data.is_ascii() && data.len() <= MAX_PART {
        let offsets = offsets.iter().map(|&o| o as u32).collect();
        return Prep::Str(vec![StrPart { text: Text::Latin1(data), offsets }]);
    }
    let mut parts = Vec::new();
    let mut units: Vec<u16> = Vec::new();
    let mut offs = vec![0u32];
    for w in offsets.windows(2) {
        let v = &data[w[0] as usize..w[1] as usize];
        if units.len() + v.len() > MAX_PART && offs.len() > 1 {
            parts.push(StrPart { text: Text::Utf16(std::mem::take(&mut units)), offsets: std::mem::replace(&mut offs, vec![0]) });
        }
        match std::str::from_utf8(v) {
            Ok(s) => units.extend(s.encode_utf16()),
            Err(_) => units.extend(String::from_utf8_lossy(v).encode_utf16()),
        }
        offs.push(units.len() as u32);
    }
    parts.push(StrPart { text: Text::Utf16(units), offsets: offs });
    Prep::Str(parts)
}

impl Prep {
    /// Append `other` (the same column of the next block), merging buffers where they merge.
    pub fn merge(&mut self, other: Prep) {
        use Prep as P;
        match (self, other) {
            (P::U8(a), P::U8(b)) | (P::Bool(a), P::Bool(b)) => a.extend_from_slice(&b),
            (P::I8(a), P::I8(b)) => a.extend_from_slice(&b),
            (P::U16(a), P::U16(b)) => a.extend_from_slice(&b),
            (P::I16(a), P::I16(b)) => a.extend_from_slice(&b),
            (P::U32(a), P::U32(b)) => a.extend_from_slice(&b),
            (P::I32(a), P::I32(b)) => a.extend_from_slice(&b),
            (P::F32(a), P::F32(b)) => a.extend_from_slice(&b),
            (P::F64(a), P::F64(b)) | (P::Ms(a), P::Ms(b)) => a.extend_from_slice(&b),
            (P::Precise(a, an), P::Precise(b, bn)) => {
                a.extend_from_slice(&b);
                an.extend_from_slice(&bn);
            }
            (P::U64(a), P::U64(b)) => a.extend_from_slice(&b),
            (P::I64(a), P::I64(b)) => a.extend_from_slice(&b),
            (P::Str(a), P::Str(b)) => a.extend(b),
            (P::Nulls(a), P::Nulls(b)) => *a += b,
            (P::Null(an, a), P::Null(bn, b)) => {
                an.extend_from_slice(&bn);
                a.merge(*b);
            }
            (P::Values(a, _), P::Values(b, _)) => a.extend(b),
            (P::Parts(a), b) => a.push(b),
            (me, b) => {
                let first = std::mem::replace(me, P::Parts(Vec::new()));
                *me = P::Parts(vec![first, b]);
            }
        }
    }

    /// The descriptor JS materialises (on the JS thread; buffers handed over, not copied).
    pub fn into_js(self, env: Env) -> Result<Val> {
        let o = js::object(env)?;
        let tag = |k: &str| -> Result<()> { Ok(js::set(env, o, "k", js::str_val(env, k)?)?) };
        let put = |name: &str, v: Val| -> Result<()> { Ok(js::set(env, o, name, v)?) };
        match self {
            Prep::U8(v) => {
                tag("n")?;
                put("v", js::typed_vec(env, v, sys::TypedarrayType::uint8_array)?)?
            }
            Prep::I8(v) => {
                tag("n")?;
                put("v", js::typed_vec(env, v, sys::TypedarrayType::int8_array)?)?
            }
            Prep::U16(v) => {
                tag("n")?;
                put("v", js::typed_vec(env, v, sys::TypedarrayType::uint16_array)?)?
            }
            Prep::I16(v) => {
                tag("n")?;
                put("v", js::typed_vec(env, v, sys::TypedarrayType::int16_array)?)?
            }
            Prep::U32(v) => {
                tag("n")?;
                put("v", js::typed_vec(env, v, sys::TypedarrayType::uint32_array)?)?
            }
            Prep::I32(v) => {
                tag("n")?;
                put("v", js::typed_vec(env, v, sys::TypedarrayType::int32_array)?)?
            }
            Prep::F32(v) => {
                tag("n")?;
                put("v", js::typed_vec(env, v, sys::TypedarrayType::float32_array)?)?
            }
            Prep::F64(v) => {
                tag("n")?;
                put("v", js::typed_vec(env, v, sys::TypedarrayType::float64_array)?)?
            }
            Prep::U64(v) => {
                tag("b")?;
                put("v", js::typed_vec(env, v, sys::TypedarrayType::biguint64_array)?)?
            }
            Prep::I64(v) => {
                tag("b")?;
                put("v", js::typed_vec(env, v, sys::TypedarrayType::bigint64_array)?)?
            }
            Prep::Bool(v) => {
                tag("bool")?;
                put("v", js::typed_vec(env, v, sys::TypedarrayType::uint8_array)?)?
            }
            Prep::Ms(v) => {
                tag("ms")?;
                put("v", js::typed_vec(env, v, sys::TypedarrayType::float64_array)?)?
            }
            Prep::Precise(ms, sub) => {
                tag("pd")?;
                put("v", js::typed_vec(env, ms, sys::TypedarrayType::float64_array)?)?;
                put("n", js::typed_vec(env, sub, sys::TypedarrayType::uint32_array)?)?;
            }
            Prep::Bin(bytes, offsets) => {
                tag("bin")?;
                put("v", js::typed_vec(env, bytes, sys::TypedarrayType::uint8_array)?)?;
                put("o", js::typed_vec(env, offsets, sys::TypedarrayType::uint32_array)?)?;
            }
            Prep::Str(parts) => {
                tag("s")?;
                let texts = js::array(env, parts.len())?;
                let offs = js::array(env, parts.len())?;
                for (i, p) in parts.into_iter().enumerate() {
                    let t = match &p.text {
                        Text::Latin1(b) => js::latin1(env, b)?,
                        Text::Utf16(u) => js::utf16(env, u)?,
                    };
                    js::push(env, texts, i as u32, t)?;
                    js::push(env, offs, i as u32, js::typed_vec(env, p.offsets, sys::TypedarrayType::uint32_array)?)?;
                }
                put("t", texts)?;
                put("o", offs)?;
            }
            Prep::Null(nulls, inner) => {
                tag("null")?;
                put("z", js::typed_vec(env, nulls, sys::TypedarrayType::uint8_array)?)?;
                put("c", inner.into_js(env)?)?;
            }
            Prep::Dict(dict, keys, nullable) => {
                tag("dict")?;
                put("d", dict.into_js(env)?)?;
                put("i", js::typed_vec(env, keys, sys::TypedarrayType::uint32_array)?)?;
                put("nullable", js::boolean(env, nullable)?)?;
            }
            Prep::Arr(offsets, inner) => {
                tag("arr")?;
                put("o", js::typed_vec(env, offsets, sys::TypedarrayType::uint32_array)?)?;
                put("c", inner.into_js(env)?)?;
            }
            Prep::Map(offsets, k, v) => {
                tag("map")?;
                put("o", js::typed_vec(env, offsets, sys::TypedarrayType::uint32_array)?)?;
                put("key", k.into_js(env)?)?;
                put("val", v.into_js(env)?)?;
            }
            Prep::Tup(names, items, rows) => {
                tag("tup")?;
                if let Some(names) = names {
                    let arr = js::array(env, names.len())?;
                    for (i, n) in names.iter().enumerate() {
                        js::push(env, arr, i as u32, js::str_val(env, n)?)?;
                    }
                    put("names", arr)?;
                }
                let arr = js::array(env, items.len())?;
                for (i, p) in items.into_iter().enumerate() {
                    js::push(env, arr, i as u32, p.into_js(env)?)?;
                }
                put("items", arr)?;
                put("n", js::number(env, rows as f64)?)?;
            }
            Prep::Values(parts, m) => {
                tag("v")?;
                let n: usize = parts.iter().map(|(_, d)| d.len()).sum();
                let arr = js::array(env, n)?;
                let mut i = 0u32;
                for (ty, d) in &parts {
                    for r in 0..d.len() {
                        js::push(env, arr, i, value_to_js(env, &chwire::Value::at(ty, d, r), m)?)?;
                        i += 1;
                    }
                }
                put("v", arr)?;
            }
            Prep::Nulls(n) => {
                tag("nulls")?;
                put("n", js::number(env, n as f64)?)?;
            }
            Prep::Parts(parts) => {
                tag("parts")?;
                let arr = js::array(env, parts.len())?;
                for (i, p) in parts.into_iter().enumerate() {
                    js::push(env, arr, i as u32, p.into_js(env)?)?;
                }
                put("p", arr)?;
            }
        }
        Ok(o)
    }
}

/// A result's columns as they are described to JS.
#[derive(Debug, Clone)]
pub struct ColumnInfo {
    pub name: String,
    pub ty: String,
    /// DateTime columns: the column's zone, else the server's.
    pub tz: Option<String>,
}

pub fn infos(header: &Block, server_tz: Option<&str>) -> Vec<ColumnInfo> {
    header
        .columns()
        .iter()
        .map(|(n, c)| {
            let ty = c.data_type();
            let tz = match ty.strip_nullable() {
                DataType::DateTime(tz) | DataType::DateTime64 { tz, .. } => tz.clone().or_else(|| server_tz.map(str::to_owned)),
                DataType::LowCardinality(t) => match t.strip_nullable() {
                    DataType::DateTime(tz) => tz.clone().or_else(|| server_tz.map(str::to_owned)),
                    _ => None,
                },
                _ => None,
            };
            ColumnInfo { name: n.clone(), ty: ty.to_string(), tz }
        })
        .collect()
}

pub fn infos_to_js(env: Env, infos: &[ColumnInfo]) -> Result<Val> {
    let arr = js::array(env, infos.len())?;
    for (i, c) in infos.iter().enumerate() {
        let o = js::object(env)?;
        js::set(env, o, "name", js::str_val(env, &c.name)?)?;
        js::set(env, o, "type", js::str_val(env, &c.ty)?)?;
        if let Some(tz) = &c.tz {
            js::set(env, o, "timeZone", js::str_val(env, tz)?)?;
        }
        js::push(env, arr, i as u32, o)?;
    }
    Ok(arr)
}

/// A block's columns prepared (consumes the block).
pub fn prepare_block(b: Block, m: Mapping) -> Result<(usize, Vec<Prep>)> {
    let rows = b.rows();
    let cols = b
        .into_columns()
        .into_iter()
        .map(|(name, c)| {
            let (ty, data) = c.into_parts();
            prepare(&name, &ty, data, m)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((rows, cols))
}
