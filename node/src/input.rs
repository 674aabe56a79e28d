//! JavaScript insert data → blocks of the table's columns (on the JS thread).
//!
//! The TS layer hands each column over either packed losslessly (all numbers in a
//! `Float64Array`, all strings joined into one string plus their UTF-16 lengths, `Date`s as
//! milliseconds, bigints of 64 bits in a `BigInt64Array`, booleans as bytes, each with an
//! optional null map), as the caller's own typed array, or as the raw JS array. Every decision of
//! what fits a column is made here, by the column's type: a value of the wrong kind is a
//! `TypeError`, one of the right kind out of range (or inexact) a `RangeError`, each naming the
//! column and row, and the block is refused whole before anything of it is sent. Values go
//! through the core's writers (`ToColumn for Value`), with fast loops for plain numbers and
//! strings.

use crate::dates;
use crate::error::{Error, Result};
use crate::js::{self, Env, Kind, Val};
use chwire::proto::column::{encode_low_cardinality, f32_of, finish_dynamic};
use chwire::{Block, Column, ColumnData, DataType, StringColumn, ToColumn, Value};

/// Where a value failed: a TypeError or a RangeError with the column and row in front.
enum Why {
    Type(String),
    Range(String),
}

fn ty_err(m: impl Into<String>) -> Why {
    Why::Type(m.into())
}

fn at(col: &str, ty: &DataType, row: usize, w: Why) -> Error {
    match w {
        Why::Type(m) => Error::Type(format!("column `{col}` ({ty}), row {row}: {m}")),
        Why::Range(m) => Error::Range(format!("column `{col}` ({ty}), row {row}: {m}")),
    }
}

/// One cell of a packed column, before the column's type decides what it is.
#[derive(Clone, Copy)]
enum Cell<'a> {
    Null,
    Num(f64),
    Int(i128),
    UInt(u128),
    Str(&'a str),
    /// A `Date`'s milliseconds and, for a `PreciseDate`, the nanoseconds past them.
    Date(f64, u32),
    Bool(bool),
    Js(Val),
}

/// A packed column as the TS layer sent it.
enum Packed<'a> {
    F64(&'a [f64]),
    I64(&'a [i64]),
    Typed(&'static str, &'a [u8]),
    Str(Vec<&'a str>),
    /// Milliseconds, and the nanoseconds past them when some are `PreciseDate`s.
    Date(&'a [f64], Option<&'a [u32]>),
    Bool(&'a [u8]),
    Raw(Vec<Val>),
}

fn cast<T: Copy>(b: &[u8]) -> &[T] {
    let n = b.len() / std::mem::size_of::<T>();
    if n == 0 {
        return &[];
    }
    // Typed arrays are aligned to their element size by JavaScript itself.
    unsafe { std::slice::from_raw_parts(b.as_ptr().cast(), n) }
}

/// Split the joined text `s` into values by their UTF-16 lengths `lens`.
fn split<'a>(s: &'a str, lens: &[u32]) -> Result<Vec<&'a str>> {
    let mut out = Vec::with_capacity(lens.len());
    let total: usize = lens.iter().map(|&l| l as usize).sum();
    if s.len() == total && s.is_ascii() {
        let mut pos = 0;
        for &l in lens {
            out.push(&s[pos..pos + l as usize]);
            pos += l as usize;
        }
        return Ok(out);
    }
    let mut chars = s.char_indices().peekable();
    let mut pos = 0;
    for &l in lens {
        let start = pos;
        let mut units = 0usize;
        while units < l as usize {
            let Some((_, c)) = chars.next() else { return Err(Error::Data("the joined strings are shorter than their lengths".into())) };
            units += c.len_utf16();
            pos += c.len_utf8();
        }
        if let Some(&(i, _)) = chars.peek() {
            pos = i;
        } else {
            pos = s.len().min(pos);
        }
        out.push(&s[start..pos]);
    }
    Ok(out)
}

struct Source<'a> {
    packed: Packed<'a>,
    nulls: Option<&'a [u8]>,
}

impl<'a> Source<'a> {
    fn read(env: Env, d: Val, text: &'a mut Option<String>) -> Result<(Source<'a>, usize)> {
        let k = js::string(env, js::named(env, d, "k")?)?;
        let v = js::named(env, d, "v")?;
        let nulls = match js::opt(env, d, "z")? {
            Some(z) => Some(js::bytes_of(env, z)?),
            None => None,
        };
        let (packed, n) = match k.as_str() {
            "f64" => {
                let b = js::bytes_of(env, v)?;
                (Packed::F64(cast(b)), b.len() / 8)
            }
            "i64" => {
                let b = js::bytes_of(env, v)?;
                (Packed::I64(cast(b)), b.len() / 8)
            }
            "date" => {
                let b = js::bytes_of(env, v)?;
                let ns = match js::opt(env, d, "ns")? {
                    Some(ns) => Some(cast(js::bytes_of(env, ns)?)),
                    None => None,
                };
                (Packed::Date(cast(b), ns), b.len() / 8)
            }
            "bool" => {
                let b = js::bytes_of(env, v)?;
                (Packed::Bool(b), b.len())
            }
            "ta" => {
                let (t, b) = js::typed_array(env, v)?;
                let w = match t {
                    "i8" | "u8" => 1,
                    "i16" | "u16" => 2,
                    "i32" | "u32" | "f32" => 4,
                    _ => 8,
                };
                (Packed::Typed(t, b), b.len() / w)
            }
            "str" => {
                let lens: &[u32] = cast(js::bytes_of(env, js::named(env, d, "l")?)?);
                *text = Some(js::string(env, v)?);
                let parts = split(text.as_deref().unwrap_or(""), lens)?;
                let n = parts.len();
                (Packed::Str(parts), n)
            }
            _ => {
                let items = js::elements(env, v)?;
                let n = items.len();
                (Packed::Raw(items), n)
            }
        };
        Ok((Source { packed, nulls }, n))
    }

    #[inline]
    fn cell(&self, i: usize) -> Cell<'a> {
        if self.nulls.is_some_and(|z| z.get(i).is_some_and(|&x| x != 0)) {
            return Cell::Null;
        }
        match &self.packed {
            Packed::F64(v) => Cell::Num(v[i]),
            Packed::I64(v) => Cell::Int(v[i] as i128),
            Packed::Date(v, ns) => Cell::Date(v[i], ns.map_or(0, |n| n[i])),
            Packed::Bool(v) => Cell::Bool(v[i] != 0),
            Packed::Str(v) => Cell::Str(v[i]),
            Packed::Raw(v) => Cell::Js(v[i]),
            Packed::Typed(t, b) => match *t {
                "i8" => Cell::Int(cast::<i8>(b)[i] as i128),
                "u8" => Cell::Int(b[i] as i128),
                "i16" => Cell::Int(cast::<i16>(b)[i] as i128),
                "u16" => Cell::Int(cast::<u16>(b)[i] as i128),
                "i32" => Cell::Int(cast::<i32>(b)[i] as i128),
                "u32" => Cell::Int(cast::<u32>(b)[i] as i128),
                "f32" => Cell::Num(cast::<f32>(b)[i] as f64),
                "f64" => Cell::Num(cast::<f64>(b)[i]),
                "i64" => Cell::Int(cast::<i64>(b)[i] as i128),
                _ => Cell::UInt(cast::<u64>(b)[i] as u128),
            },
        }
    }
}

/// A JS value as a cell.
fn js_cell<'a>(env: Env, v: Val) -> Result<Cell<'a>> {
    Ok(match js::kind(env, v)? {
        Kind::Null | Kind::Undefined => Cell::Null,
        Kind::Number => Cell::Num(js::f64_of(env, v)?),
        Kind::Boolean => Cell::Bool(js::bool_of(env, v)?),
        Kind::BigInt => match js::bigint(env, v)? {
            Some(i) => Cell::Int(i),
            None => match js::biguint(env, v)? {
                Some(u) => Cell::UInt(u),
                None => Cell::Js(v),
            },
        },
        Kind::Object if js::is_date(env, v)? => {
            // A PreciseDate (lib/dates.ts) has its exact `epochNanoseconds`.
            let ns = js::named(env, v, "epochNanoseconds")?;
            match (js::kind(env, ns)?, js::bigint(env, ns)) {
                (Kind::BigInt, Ok(Some(n))) => Cell::Date(n.div_euclid(1_000_000) as f64, n.rem_euclid(1_000_000) as u32),
                _ => Cell::Date(js::date_ms(env, v)?, 0),
            }
        }
        _ => Cell::Js(v),
    })
}

const EXACT: f64 = 9_007_199_254_740_992.0;

/// A number that must be an integer.
fn integral(f: f64) -> std::result::Result<i128, Why> {
    if !f.is_finite() || f.fract() != 0.0 {
        return Err(Why::Range(format!("{} is not an integer", js::js_number_text(f))));
    }
    if f.abs() > EXACT {
        return Err(Why::Range(format!("{} is beyond 2^53, where numbers are not exact (pass a bigint)", js::js_number_text(f))));
    }
    Ok(f as i128)
}

/// Decimal text (`-12.50`) as (unscaled, scale).
fn decimal_text(s: &str) -> Option<(i128, u8)> {
    let t = s.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    if (int.is_empty() && frac.is_empty()) || !int.bytes().all(|c| c.is_ascii_digit()) || !frac.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let raw: i128 = format!("{int}{frac}").parse().ok()?;
    Some((if neg { -raw } else { raw }, u8::try_from(frac.len()).ok()?))
}

/// What a cell is as a value of the (plain, structural) column type `ty`. `bump` keeps bytes the
/// value borrows.
fn value<'x>(env: Env, c: Cell<'x>, ty: &'x DataType, bump: &'x Bump, depth: u32) -> std::result::Result<Value<'x>, Why> {
    use DataType as D;
    if depth > 64 {
        return Err(ty_err("nested deeper than 64 levels"));
    }
    let ty = ty.structural();
    if let Cell::Js(v) = c {
        if !matches!(ty, D::Json { .. } | D::Variant(_) | D::Dynamic { .. }) {
            let inner = js_cell(env, v).map_err(|e| ty_err(e.to_string()))?;
            if !matches!(inner, Cell::Js(_)) {
                return value(env, inner, ty, bump, depth);
            }
            if js::kind(env, v).ok() == Some(Kind::String) {
                let s = bump.keep(js::string(env, v).map_err(|e| ty_err(format!("{e:?}")))?);
                return value(env, Cell::Str(s), ty, bump, depth);
            }
            if js::kind(env, v).ok() == Some(Kind::BigInt) && !matches!(ty, D::Nullable(_) | D::LowCardinality(_)) {
                // Beyond 128 bits: only the 256-bit types can hold it.
                let (neg, words) = js::bigint_words(env, v).map_err(|e| ty_err(format!("{e:?}")))?;
                return match ty {
                    D::Int256 | D::UInt256 => {
                        let signed = matches!(ty, D::Int256);
                        let bytes = crate::wide::wide(neg, &words, signed)
                            .ok_or_else(|| Why::Range(format!("{} does not fit {ty}", crate::params::words_text(neg, &words))))?;
                        let b = bump.keep_bytes(bytes.to_vec());
                        Ok(if signed { Value::Int256(b) } else { Value::UInt256(b) })
                    }
                    t if t.is_integer() || matches!(t, D::Decimal { .. }) => {
                        Err(Why::Range(format!("{} does not fit {ty}", crate::params::words_text(neg, &words))))
                    }
                    D::Float64 | D::Float32 | D::BFloat16 => Err(Why::Range(format!(
                        "{} is not exact in {ty} (pass a number to round it)",
                        crate::params::words_text(neg, &words)
                    ))),
                    _ => Err(Why::Type(format!("a bigint does not fit {ty}"))),
                };
            }
        }
    }
    let what = |c: &Cell<'_>| match c {
        Cell::Null => "null".to_string(),
        Cell::Num(f) => format!("the number {}", js::js_number_text(*f)),
        Cell::Int(i) => format!("the bigint {i}n"),
        Cell::UInt(u) => format!("the bigint {u}n"),
        Cell::Str(s) if s.chars().count() <= 40 => format!("the string {s:?}"),
        Cell::Str(_) => "a string".into(),
        Cell::Date(..) => "a Date".into(),
        Cell::Bool(b) => format!("{b}"),
        Cell::Js(v) => js::describe(env, *v),
    };
    let no = |c: &Cell<'_>, hint: &str| Why::Type(format!("{} does not fit {ty}{hint}", what(c)));
    Ok(match (ty, c) {
        (_, Cell::Null) => Value::Null,
        (D::Nullable(inner) | D::LowCardinality(inner), c) => value(env, c, inner, bump, depth)?,
        (D::Variant(types), c) => variant(env, c, types, bump, depth)?,
        (D::Dynamic { .. }, c) => untyped(env, c, bump, depth)?,
        (D::Json { .. }, Cell::Str(s)) => Value::JsonText(s.as_bytes()),
        (D::Json { .. }, Cell::Js(v)) => {
            Value::JsonText(bump.keep(crate::json::json_text(env, v).map_err(|e| ty_err(e.to_string()))?).as_bytes())
        }
        (t, Cell::Num(f)) if t.is_integer() => Value::Int128(integral(f)?),
        (t, Cell::Int(i)) if t.is_integer() => Value::Int128(i),
        (t, Cell::UInt(u)) if t.is_integer() => Value::UInt128(u),
        (t, Cell::Str(s)) if t.is_integer() && matches!(t, D::Int128 | D::UInt128 | D::Int256 | D::UInt256) => big_text(s, t)?,
        (D::Float64, Cell::Num(f)) => Value::Float64(f),
        (D::Float32, Cell::Num(f)) => Value::Float32(f32_of(f).map_err(Why::Range)?),
        (D::BFloat16, Cell::Num(f)) => Value::BFloat16((f32_of(f).map_err(Why::Range)?.to_bits() >> 16) as u16),
        (D::Float64 | D::Float32 | D::BFloat16, Cell::Int(i)) => {
            // A bigint is exact: it goes in only where the column's type holds it exactly.
            let f = i as f64;
            let exact = f as i128 == i
                && match ty {
                    D::Float32 => f as f32 as f64 == f,
                    D::BFloat16 => f as f32 as f64 == f && (f as f32).to_bits() & 0xFFFF == 0,
                    _ => true,
                };
            if !exact {
                return Err(Why::Range(format!("{i} is not exact in {ty} (pass a number to round it)")));
            }
            value(env, Cell::Num(f), ty, bump, depth)?
        }
        (D::Bool, Cell::Bool(b)) => Value::Bool(b),
        (D::Bool, Cell::Num(f)) if f == 0.0 || f == 1.0 => Value::Bool(f == 1.0),
        (t, Cell::Bool(b)) if t.is_integer() => Value::Int128(b as i128),
        (D::String | D::FixedString(_) | D::Enum8(_) | D::Enum16(_), Cell::Str(s)) => Value::String(s.as_bytes()),
        (D::String | D::FixedString(_), Cell::Js(v))
            if js::is_buffer(env, v).unwrap_or(false) || js::is_typedarray(env, v).unwrap_or(false) =>
        {
            Value::String(bump.keep_bytes(js::bytes_of(env, v).map_err(|e| ty_err(format!("{e:?}")))?.to_vec()))
        }
        (D::Enum8(items), Cell::Num(f)) => {
            let n = integral(f)?;
            Value::String(
                items
                    .iter()
                    .find(|(_, e)| i128::from(*e) == n)
                    .map(|(s, _)| s.as_bytes())
                    .ok_or_else(|| Why::Range(format!("{n} is not a value of {ty}")))?,
            )
        }
        (D::Enum16(items), Cell::Num(f)) => {
            let n = integral(f)?;
            Value::String(
                items
                    .iter()
                    .find(|(_, e)| i128::from(*e) == n)
                    .map(|(s, _)| s.as_bytes())
                    .ok_or_else(|| Why::Range(format!("{n} is not a value of {ty}")))?,
            )
        }
        (D::Uuid, Cell::Str(s)) => {
            Value::Uuid(chwire_text::parse_uuid(s.as_bytes()).ok_or_else(|| Why::Range(format!("{s:?} is not a UUID")))?)
        }
        (D::Ipv4, Cell::Str(s)) => {
            Value::Ipv4(chwire_text::parse_ipv4(s).ok_or_else(|| Why::Range(format!("{s:?} is not an IPv4 address")))?)
        }
        (D::Ipv4, Cell::Num(f)) => {
            Value::Ipv4(std::net::Ipv4Addr::from(u32::try_from(integral(f)?).map_err(|_| Why::Range("out of IPv4's range".into()))?))
        }
        (D::Ipv6, Cell::Str(s)) => {
            Value::Ipv6(chwire_text::parse_ipv6(s).ok_or_else(|| Why::Range(format!("{s:?} is not an IPv6 address")))?)
        }
        (D::Date | D::Date32, Cell::Date(ms, 0)) => {
            dates::date_of_days(ty, dates::days_of_ms(ms).map_err(Why::Range)?).map_err(Why::Range)?
        }
        (D::Date | D::Date32, Cell::Num(f)) => dates::date_of_days(ty, integral(f)? as i64).map_err(Why::Range)?,
        (D::Date | D::Date32, Cell::Int(i)) => {
            dates::date_of_days(ty, i64::try_from(i).map_err(|_| Why::Range(format!("day {i} is beyond any date")))?).map_err(Why::Range)?
        }
        (D::Date | D::Date32, Cell::Str(s)) => dates::date_of_days(ty, dates::days(s).map_err(Why::Range)?).map_err(Why::Range)?,
        (D::DateTime(_) | D::DateTime64 { .. }, Cell::Date(ms, sub)) => {
            dates::date_time(ty, dates::instant_of_ms(ms, sub).map_err(Why::Range)?).map_err(Why::Range)?
        }
        (D::DateTime(tz) | D::DateTime64 { tz, .. }, Cell::Str(s)) => {
            let zone = dates::zone(tz.as_deref(), bump.server_tz.as_deref()).map_err(Why::Range)?;
            dates::date_time(ty, dates::instant(s, &zone).map_err(Why::Range)?).map_err(Why::Range)?
        }
        (D::DateTime(_), Cell::Num(f)) => {
            let secs = i64::try_from(integral(f)?).map_err(|_| Why::Range(format!("{} s is beyond any date", js::js_number_text(f))))?;
            dates::date_time(ty, dates::Instant { secs, nanos: 0 }).map_err(Why::Range)?
        }
        (D::DateTime(_), Cell::Int(i)) => {
            let secs = i64::try_from(i).map_err(|_| Why::Range(format!("{i} s is beyond any date")))?;
            dates::date_time(ty, dates::Instant { secs, nanos: 0 }).map_err(Why::Range)?
        }
        (D::DateTime64 { .. }, Cell::Num(f)) => {
            // Seconds with a fraction: exact in microseconds at most.
            let us = f * 1e6;
            if !us.is_finite() || us.fract() != 0.0 || us.abs() > EXACT {
                return Err(Why::Range(format!(
                    "{} s is not exact in microseconds (pass a Date, a PreciseDate or ticks as a bigint)",
                    js::js_number_text(f)
                )));
            }
            dates::date_time(ty, dates::instant_of_nanos(us as i128 * 1000).map_err(Why::Range)?).map_err(Why::Range)?
        }
        (D::DateTime64 { precision, .. }, Cell::Int(i)) => {
            // Ticks of the column's precision.
            dates::date_time(
                ty,
                dates::instant_of_nanos(i.saturating_mul(10i128.pow(9 - u32::from((*precision).min(9))))).map_err(Why::Range)?,
            )
            .map_err(Why::Range)?
        }
        (D::Decimal { precision, scale }, Cell::Str(s)) if *precision > 38 => {
            let raw = crate::wide::decimal256_text(s, *scale).map_err(Why::Range)?;
            Value::Decimal256 { raw: bump.keep_bytes(raw.to_vec()), scale: *scale }
        }
        (D::Decimal { .. }, Cell::Str(s)) => {
            let (raw, scale) = decimal_text(s).ok_or_else(|| Why::Range(format!("{s:?} is not a decimal number")))?;
            Value::Decimal { raw, scale }
        }
        (D::Decimal { .. }, Cell::Num(f)) => {
            if !f.is_finite() {
                return Err(Why::Range(format!("{} is not a decimal number", js::js_number_text(f))));
            }
            let (raw, scale) = decimal_text(&format!("{f}")).ok_or_else(|| Why::Range(format!("{f} has too many digits for a decimal")))?;
            Value::Decimal { raw, scale }
        }
        (D::Decimal { .. }, Cell::Int(i)) => Value::Decimal { raw: i, scale: 0 },
        (D::Time, Cell::Num(f)) => Value::Time(i32::try_from(integral(f)?).map_err(|_| Why::Range("beyond Time's range".into()))?),
        (D::Time64(_), Cell::Num(f)) => {
            let us = f * 1e6;
            if us.fract() != 0.0 || !us.is_finite() {
                return Err(Why::Range("not exact in microseconds".into()));
            }
            Value::Time64 { ticks: us as i64, precision: 6 }
        }
        (D::Time | D::Time64(_), Cell::Str(s)) => dates::time(s, ty).map_err(Why::Range)?,
        (D::Interval(k), Cell::Num(f)) => {
            Value::Interval(i64::try_from(integral(f)?).map_err(|_| Why::Range("beyond 64 bits".into()))?, *k)
        }
        (D::Interval(k), Cell::Int(i)) => Value::Interval(i64::try_from(i).map_err(|_| Why::Range("beyond 64 bits".into()))?, *k),
        (D::AggregateFunction(_), Cell::Js(v)) if js::is_buffer(env, v).unwrap_or(false) || js::is_typedarray(env, v).unwrap_or(false) => {
            Value::AggregateState(bump.keep_bytes(js::bytes_of(env, v).map_err(|e| ty_err(format!("{e:?}")))?.to_vec()))
        }
        (D::Array(inner), Cell::Js(v)) if js::is_array(env, v).unwrap_or(false) => Value::Array(items(env, v, inner, bump, depth)?),
        // Nested(a T, b U): an array of objects (or arrays) of its fields, as it reads.
        (D::Nested(fields), Cell::Js(v)) if js::is_array(env, v).unwrap_or(false) => {
            let row = bump.keep_type(DataType::Tuple(fields.iter().map(|(n, t)| (Some(n.clone()), t.clone())).collect()));
            Value::Array(items(env, v, row, bump, depth)?)
        }
        (D::QBit { element, .. }, Cell::Js(v)) if js::is_array(env, v).unwrap_or(false) => {
            Value::QBit(items(env, v, element, bump, depth)?)
        }
        (D::Tuple(types), Cell::Js(v)) => {
            let elems: Vec<Val> = if js::is_array(env, v).unwrap_or(false) {
                js::elements(env, v).map_err(|e| ty_err(format!("{e:?}")))?
            } else if js::kind(env, v).ok() == Some(Kind::Object) && types.iter().all(|(n, _)| n.is_some()) {
                types
                    .iter()
                    .map(|(n, _)| js::named(env, v, n.as_deref().unwrap_or("")))
                    .collect::<js::R<_>>()
                    .map_err(|e| ty_err(format!("{e:?}")))?
            } else {
                return Err(no(&c, " (use an array, or an object for a named tuple)"));
            };
            if elems.len() != types.len() {
                return Err(Why::Type(format!("{} values for {ty}", elems.len())));
            }
            let mut out = Vec::with_capacity(elems.len());
            for (x, (_, t)) in elems.into_iter().zip(types) {
                out.push((None, value(env, Cell::Js(x), t, bump, depth + 1)?));
            }
            Value::Tuple(out)
        }
        (D::Map(kt, vt), Cell::Js(v)) => {
            let pairs = if js::is_map(env, v).unwrap_or(false) {
                js::map_entries(env, v).map_err(|e| ty_err(format!("{e:?}")))?
            } else if js::kind(env, v).ok() == Some(Kind::Object) && !js::is_array(env, v).unwrap_or(false) {
                let mut out = Vec::new();
                for (k, x) in js::entries(env, v).map_err(|e| ty_err(format!("{e:?}")))? {
                    out.push((js::str_val(env, &k).map_err(|e| ty_err(format!("{e:?}")))?, x));
                }
                out
            } else {
                return Err(no(&c, " (use a Map or an object)"));
            };
            let mut out = Vec::with_capacity(pairs.len());
            for (k, x) in pairs {
                out.push((value(env, Cell::Js(k), kt, bump, depth + 1)?, value(env, Cell::Js(x), vt, bump, depth + 1)?));
            }
            Value::Map(out)
        }
        (D::Nothing, c) => return Err(no(&c, " (only null fits Nothing)")),
        (_, c) => return Err(no(&c, "")),
    })
}

fn big_text<'x>(s: &str, ty: &DataType) -> std::result::Result<Value<'x>, Why> {
    match s.trim().parse::<i128>() {
        Ok(i) => Ok(Value::Int128(i)),
        Err(_) => match s.trim().parse::<u128>() {
            Ok(u) => Ok(Value::UInt128(u)),
            Err(_) => Err(Why::Range(format!("{s:?} is not an integer of {ty} (256-bit values: pass a bigint)"))),
        },
    }
}

fn items<'x>(env: Env, v: Val, inner: &'x DataType, bump: &'x Bump, depth: u32) -> std::result::Result<Vec<Value<'x>>, Why> {
    let elems = js::elements(env, v).map_err(|e| ty_err(format!("{e:?}")))?;
    elems.into_iter().map(|x| value(env, Cell::Js(x), inner, bump, depth + 1)).collect()
}

/// A value of a Variant: by its own JS type ([`untyped`]), except a `Date` where the Variant
/// has no DateTime64 to take it as: the first of its date and time types that holds it exactly
/// (a `Date` read from a Variant's Date member goes back into it).
fn variant<'x>(env: Env, c: Cell<'x>, types: &'x [DataType], bump: &'x Bump, depth: u32) -> std::result::Result<Value<'x>, Why> {
    let c = match c {
        Cell::Js(v) => js_cell(env, v).map_err(|e| ty_err(e.to_string()))?,
        c => c,
    };
    if matches!(c, Cell::Date(..)) && !types.iter().any(|t| matches!(t, DataType::DateTime64 { .. })) {
        let dated = types.iter().filter(|t| matches!(t, DataType::Date | DataType::Date32 | DataType::DateTime(_)));
        if let Some(v) = dated.into_iter().find_map(|t| value(env, c, t, bump, depth).ok()) {
            return Ok(v);
        }
    }
    untyped(env, c, bump, depth)
}

/// A value by its own JS type (Variant and Dynamic columns): integers Int64 (UInt64, Int128
/// beyond), other numbers Float64, strings String, booleans Bool, Dates DateTime64(3), arrays
/// Array, Maps and objects Map.
fn untyped<'x>(env: Env, c: Cell<'x>, bump: &'x Bump, depth: u32) -> std::result::Result<Value<'x>, Why> {
    if depth > 64 {
        return Err(ty_err("nested deeper than 64 levels"));
    }
    Ok(match c {
        Cell::Null => Value::Null,
        Cell::Num(f) if f.fract() == 0.0 && f.abs() <= EXACT => Value::Int(f as i64),
        Cell::Num(f) => Value::Float64(f),
        Cell::Int(i) => match i64::try_from(i) {
            Ok(x) => Value::Int(x),
            Err(_) => match u64::try_from(i) {
                Ok(u) => Value::UInt(u),
                Err(_) => Value::Int128(i),
            },
        },
        Cell::UInt(u) => match u64::try_from(u) {
            Ok(x) => Value::UInt(x),
            Err(_) => Value::UInt128(u),
        },
        Cell::Str(s) => Value::String(s.as_bytes()),
        Cell::Bool(b) => Value::Bool(b),
        Cell::Date(ms, 0) => Value::DateTime64 { ticks: ms as i64, precision: 3, tz: None },
        Cell::Date(ms, sub) => Value::DateTime64 {
            ticks: (ms as i64)
                .checked_mul(1_000_000)
                .and_then(|t| t.checked_add(i64::from(sub)))
                .ok_or_else(|| Why::Range("beyond DateTime64(9)'s range".into()))?,
            precision: 9,
            tz: None,
        },
        Cell::Js(v) => {
            let inner = js_cell(env, v).map_err(|e| ty_err(e.to_string()))?;
            if !matches!(inner, Cell::Js(_)) {
                return untyped(env, inner, bump, depth);
            }
            match js::kind(env, v).map_err(|e| ty_err(format!("{e:?}")))? {
                Kind::String => Value::String(bump.keep(js::string(env, v).map_err(|e| ty_err(format!("{e:?}")))?).as_bytes()),
                Kind::Object if js::is_array(env, v).unwrap_or(false) => {
                    let elems = js::elements(env, v).map_err(|e| ty_err(format!("{e:?}")))?;
                    Value::Array(
                        elems.into_iter().map(|x| untyped(env, Cell::Js(x), bump, depth + 1)).collect::<std::result::Result<_, _>>()?,
                    )
                }
                Kind::Object
                    if !js::is_map(env, v).unwrap_or(false) && !js::entries(env, v).map_err(|e| ty_err(format!("{e:?}")))?.is_empty() =>
                {
                    // A plain object is a named tuple (what a named tuple reads as, and what
                    // ClickHouse infers for a JSON object); a Map (or `{}`) is a Map.
                    let mut out = Vec::new();
                    for (k, x) in js::entries(env, v).map_err(|e| ty_err(format!("{e:?}")))? {
                        let name: &str = bump.keep(k);
                        out.push((Some(name), untyped(env, Cell::Js(x), bump, depth + 1)?));
                    }
                    Value::Tuple(out)
                }
                Kind::Object => {
                    let pairs = if js::is_map(env, v).unwrap_or(false) {
                        js::map_entries(env, v).map_err(|e| ty_err(format!("{e:?}")))?
                    } else {
                        js::entries(env, v)
                            .map_err(|e| ty_err(format!("{e:?}")))?
                            .into_iter()
                            .map(|(k, x)| js::str_val(env, &k).map(|k| (k, x)))
                            .collect::<js::R<_>>()
                            .map_err(|e| ty_err(format!("{e:?}")))?
                    };
                    let mut out = Vec::new();
                    for (k, x) in pairs {
                        out.push((untyped(env, Cell::Js(k), bump, depth + 1)?, untyped(env, Cell::Js(x), bump, depth + 1)?));
                    }
                    Value::Map(out)
                }
                _ => return Err(Why::Type(format!("{} has no ClickHouse type of its own", js::describe(env, v)))),
            }
        }
    })
}

/// Owned strings and bytes that values of one block borrow, and the server's zone (for
/// date-time text in columns without a zone of their own).
#[derive(Default)]
pub struct Bump {
    server_tz: Option<String>,
    strings: std::cell::RefCell<Vec<Box<str>>>,
    bytes: std::cell::RefCell<Vec<Box<[u8]>>>,
    // Boxed so that the types stay where they are while the Vec grows (values borrow them).
    #[allow(clippy::vec_box)]
    types: std::cell::RefCell<Vec<Box<DataType>>>,
}

impl Bump {
    fn keep_type(&self, t: DataType) -> &DataType {
        let b = Box::new(t);
        let p: *const DataType = &*b;
        self.types.borrow_mut().push(b);
        // As `keep`: the box lives as long as `self`.
        unsafe { &*p }
    }

    fn keep(&self, s: String) -> &str {
        let b: Box<str> = s.into_boxed_str();
        let p: *const str = &*b;
        self.strings.borrow_mut().push(b);
        // The box is never dropped or moved out while `self` lives.
        unsafe { &*p }
    }

    fn keep_bytes(&self, v: Vec<u8>) -> &[u8] {
        let b: Box<[u8]> = v.into_boxed_slice();
        let p: *const [u8] = &*b;
        self.bytes.borrow_mut().push(b);
        unsafe { &*p }
    }
}

/// A column of `n` rows of `ty` (the table's type) from its packed source.
fn column(env: Env, name: &str, ty: &DataType, src: &Source<'_>, n: usize, first_row: usize, server_tz: Option<&str>) -> Result<Column> {
    let plain = ty.without_low_cardinality();
    let mut data = ColumnData::with_capacity_for(&plain, n).map_err(|e| Error::Data(e.to_string()))?;
    if !fast(&plain, src, n, &mut data).map_err(|(row, w)| at(name, ty, first_row + row, w))? {
        let bump = Bump { server_tz: server_tz.map(str::to_owned), ..Bump::default() };
        for row in 0..n {
            let c = src.cell(row);
            let v = value(env, c, &plain, &bump, 0).map_err(|w| at(name, ty, first_row + row, w))?;
            v.write(&plain, &mut data).map_err(|m| at(name, ty, first_row + row, Why::Range(m)))?;
        }
    }
    data.check(&plain).map_err(|e| Error::Range(format!("column `{name}`: the rows do not fit its type {plain}: {e}")))?;
    finish_dynamic(&mut data);
    let data = encode_low_cardinality(ty, data).map_err(|e| Error::Data(e.to_string()))?;
    Column::new(ty.clone(), data).map_err(|e| Error::Data(e.to_string()))
}

/// Tight loops for the common shapes; `false` when the general path must run.
fn fast(plain: &DataType, src: &Source<'_>, n: usize, data: &mut ColumnData) -> std::result::Result<bool, (usize, Why)> {
    if src.nulls.is_some() {
        return Ok(false);
    }
    macro_rules! ints {
        ($v:expr, $t:ty, $vec:expr) => {{
            $vec.reserve(n);
            for (row, &f) in $v.iter().enumerate() {
                let i = integral(f).map_err(|w| (row, w))?;
                let x = <$t>::try_from(i).map_err(|_| (row, Why::Range(format!("{i} does not fit {plain}"))))?;
                $vec.push(x);
            }
            Ok(true)
        }};
    }
    match (&src.packed, plain, data) {
        (Packed::F64(v), DataType::Float64, ColumnData::Float64(d)) => {
            d.extend_from_slice(v);
            Ok(true)
        }
        (Packed::F64(v), DataType::UInt64, ColumnData::UInt64(d)) => ints!(v, u64, d),
        (Packed::F64(v), DataType::Int64, ColumnData::Int64(d)) => ints!(v, i64, d),
        (Packed::F64(v), DataType::UInt32 | DataType::DateTime(_), ColumnData::UInt32(d)) => ints!(v, u32, d),
        (Packed::F64(v), DataType::Int32, ColumnData::Int32(d)) => ints!(v, i32, d),
        (Packed::F64(v), DataType::UInt16, ColumnData::UInt16(d)) => ints!(v, u16, d),
        (Packed::F64(v), DataType::Int16, ColumnData::Int16(d)) => ints!(v, i16, d),
        (Packed::F64(v), DataType::UInt8, ColumnData::UInt8(d)) => ints!(v, u8, d),
        (Packed::F64(v), DataType::Int8, ColumnData::Int8(d)) => ints!(v, i8, d),
        (Packed::I64(v), DataType::Int64, ColumnData::Int64(d)) => {
            d.extend_from_slice(v);
            Ok(true)
        }
        (Packed::Str(v), DataType::String, ColumnData::String(s)) => {
            let bytes: usize = v.iter().map(|x| x.len()).sum();
            let mut col = StringColumn::with_capacity(n, bytes);
            for x in v {
                col.push(x.as_bytes());
            }
            *s = col;
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// One block from the packed columns `cols` (in the order of `header`), rows counted from
/// `first_row` in errors.
pub fn block(env: Env, header: &[(String, DataType)], cols: Val, first_row: usize, server_tz: Option<&str>) -> Result<Block> {
    let list = js::elements(env, cols)?;
    if list.len() != header.len() {
        return Err(Error::Type(format!("{} columns of data for the insert's {} columns", list.len(), header.len())));
    }
    let mut texts: Vec<Option<String>> = (0..list.len()).map(|_| None).collect();
    let mut sources = Vec::with_capacity(list.len());
    let mut rows = None;
    for ((d, text), (name, _)) in list.iter().zip(texts.iter_mut()).zip(header) {
        let (s, n) = Source::read(env, *d, text)?;
        match rows {
            None => rows = Some(n),
            Some(r) if r != n => {
                return Err(Error::Type(format!("column `{name}` has {n} values where the columns before it have {r}")));
            }
            _ => {}
        }
        sources.push(s);
    }
    let n = rows.unwrap_or(0);
    let mut b = Block::new();
    for ((name, ty), src) in header.iter().zip(&sources) {
        let col = column(env, name, ty, src, n, first_row, server_tz)?;
        b.push(name.clone(), col).map_err(|e| Error::Data(e.to_string()))?;
    }
    Ok(b)
}
