//! Elixir terms → insert blocks.
//!
//! Insert values become chwire `Value`s by their column's type and are appended with chwire's
//! own column writers (`ToColumn for Value`), so the rules of what fits a column (ranges,
//! exact Float32 and decimal scales, enum names, LowCardinality and Dynamic encoding) are the
//! core's. Plain numeric and String columns skip the `Value` step.

use crate::qbit::{bfloat16, qbit, write_type};
use crate::terms::{decode_list, deep, describe, float_of, int256_bytes, int_of, u128_of, MAX_DEPTH};
use bumpalo::Bump;
use chwire::proto::column::{encode_low_cardinality, finish_dynamic};
use chwire::{Block, Column, ColumnData, DataType, ToColumn, Value};
use rustler::sys::{self, ErlNifTerm as T};
use rustler::{Binary, Env, Term, TermType};

// ---------------------------------------------------------------- values

fn struct_name(t: Term<'_>) -> Option<String> {
    if t.get_type() != TermType::Map {
        return None;
    }
    let s = t.map_get(crate::atoms::__struct__()).ok()?;
    s.atom_to_string().ok()
}

fn field<'a>(t: Term<'a>, name: &str) -> Result<Term<'a>, String> {
    let key = rustler::Atom::from_str(t.get_env(), name).map_err(|_| "bad atom")?;
    t.map_get(key).map_err(|_| format!("a struct without the field {name}"))
}

fn field_i64(t: Term<'_>, name: &str) -> Result<i64, String> {
    field(t, name)?.decode::<i64>().map_err(|_| format!("the field {name} is not an integer"))
}

/// Days since 1970-01-01 of a `%Date{}` (or any struct with year, month and day).
fn days_of(t: Term<'_>) -> Result<i64, String> {
    let (y, m, d) = (field_i64(t, "year")?, field_i64(t, "month")?, field_i64(t, "day")?);
    let date = chrono::NaiveDate::from_ymd_opt(y as i32, m as u32, d as u32).ok_or("an invalid date")?;
    Ok(date.signed_duration_since(chrono::NaiveDate::from_ymd_opt(1970, 1, 1).ok_or("epoch")?).num_days())
}

/// Microseconds since the epoch of a `%DateTime{}` (its offsets applied) or a
/// `%NaiveDateTime{}` (taken as UTC).
fn micros_of(t: Term<'_>, naive: bool) -> Result<i64, String> {
    let days = days_of(t)?;
    let offset = if naive { 0 } else { field_i64(t, "utc_offset")?.saturating_add(field_i64(t, "std_offset")?) };
    let us = match field(t, "microsecond")?.decode::<(i64, i64)>() {
        Ok((us, _)) => us,
        Err(_) => return Err("the field microsecond is not {integer, precision}".into()),
    };
    // Checked: the fields of a hand-made struct can be anything, and wrapping arithmetic could
    // land a nonsense time inside the column's range.
    let (h, m, s) = (field_i64(t, "hour")?, field_i64(t, "minute")?, field_i64(t, "second")?);
    (|| {
        let secs = days.checked_mul(86_400)?.checked_add(h.checked_mul(3600)?)?.checked_add(m.checked_mul(60)?)?.checked_add(s)?;
        secs.checked_sub(offset)?.checked_mul(1_000_000)?.checked_add(us)
    })()
    .ok_or_else(|| "a date and time out of any range".to_string())
}

/// The coefficient and scale of a decimal: `%Chwire.Decimal{}`, an integer or a float
/// (its shortest decimal text).
fn decimal_parts<'a>(t: Term<'a>) -> Result<(Term<'a>, Option<(i128, u8)>), String> {
    if let Some(name) = struct_name(t) {
        if name == "Elixir.Chwire.Decimal" {
            let coef = field(t, "coef")?;
            let scale = field_i64(t, "scale")?;
            let scale = u8::try_from(scale).map_err(|_| format!("decimal scale {scale} out of range"))?;
            return Ok((coef, int_of(coef).map(|c| (c, scale))));
        }
        return Err(format!("a {} is not a decimal (use %Chwire.Decimal{{coef, scale}})", name.trim_start_matches("Elixir.")));
    }
    if t.is_integer() {
        return Ok((t, int_of(t).map(|c| (c, 0))));
    }
    if let Ok(f) = t.decode::<f64>() {
        let s = format!("{f}");
        let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
        let coef: i128 = format!("{int}{frac}").parse().map_err(|_| format!("{f} has too many digits for a decimal"))?;
        // A tiny float's shortest text has hundreds of digits after the point (1e-256: 256):
        // more than a decimal's scale can be, not a scale to wrap around.
        let scale = u8::try_from(frac.len()).map_err(|_| format!("{f} has too many digits for a decimal"))?;
        return Ok((t, Some((coef, scale))));
    }
    Err("not a decimal (use %Chwire.Decimal{coef, scale}, an integer or a float)".into())
}

fn parse_uuid(b: &[u8]) -> Option<[u8; 16]> {
    if b.len() == 16 {
        return b.try_into().ok();
    }
    chwire_text::parse_uuid(b)
}

fn tuple_ints(t: Term<'_>, n: usize, max: i64) -> Option<Vec<i64>> {
    let items = rustler::types::tuple::get_tuple(t).ok()?;
    if items.len() != n {
        return None;
    }
    items.iter().map(|x| x.decode::<i64>().ok().filter(|v| (0..=max).contains(v))).collect()
}

/// An Elixir term as a chwire `Value` for a column of (plain, structural) type `ty`.
pub fn value<'a: 'x, 'x>(t: Term<'a>, ty: &'x DataType, bump: &'x Bump) -> Result<Value<'x>, String> {
    match ty.structural() {
        DataType::Array(_) | DataType::Nested(_) | DataType::Tuple(_) | DataType::Map(..) => deep(|| value_here(t, ty, bump)),
        _ => value_here(t, ty, bump),
    }
}

fn value_here<'a: 'x, 'x>(t: Term<'a>, ty: &'x DataType, bump: &'x Bump) -> Result<Value<'x>, String> {
    use DataType as D;
    let ty = ty.structural();
    if t.is_atom() {
        if let Ok(a) = t.atom_to_string() {
            match a.as_str() {
                "nil" => return Ok(Value::Null),
                "true" if !matches!(ty, D::String | D::FixedString(_)) => return Ok(Value::Bool(true)),
                "false" if !matches!(ty, D::String | D::FixedString(_)) => return Ok(Value::Bool(false)),
                "nan" => return Ok(special_float(f64::NAN, ty)),
                "infinity" => return Ok(special_float(f64::INFINITY, ty)),
                "neg_infinity" => return Ok(special_float(f64::NEG_INFINITY, ty)),
                _ => {}
            }
        }
    }
    let kind = t.get_type();
    Ok(match ty {
        D::Nullable(inner) | D::LowCardinality(inner) => value(t, inner, bump)?,
        D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64 | D::Int8 | D::Int16 | D::Int32 | D::Int64 | D::Int128 | D::UInt128 => {
            match int_of(t) {
                Some(v) => Value::Int128(v),
                None if kind == TermType::Integer => match u128_of(t) {
                    Some(v) => Value::UInt128(v),
                    None => return Err(format!("an integer beyond 128 bits does not fit {ty}")),
                },
                None => return Err(format!("{} does not fit {ty}", describe(t))),
            }
        }
        D::Int256 | D::UInt256 => {
            let signed = matches!(ty, D::Int256);
            let bytes = int256_bytes(t, signed).ok_or_else(|| format!("{} does not fit {ty}", describe(t)))?;
            let raw = bump.alloc_slice_copy(&bytes);
            if signed {
                Value::Int256(raw)
            } else {
                Value::UInt256(raw)
            }
        }
        D::Float32 => {
            Value::Float32(chwire::proto::column::f32_of(float_of(t).ok_or_else(|| format!("{} does not fit {ty}", describe(t)))?)?)
        }
        D::Float64 => Value::Float64(float_of(t).ok_or_else(|| format!("{} does not fit {ty}", describe(t)))?),
        D::BFloat16 => Value::BFloat16(bfloat16(float_of(t).ok_or_else(|| format!("{} does not fit {ty}", describe(t)))?)?),
        D::Bool => match t.decode::<i64>() {
            Ok(v @ (0 | 1)) => Value::Bool(v == 1),
            _ => return Err(format!("{} does not fit Bool (use true or false)", describe(t))),
        },
        D::String | D::FixedString(_) => match kind {
            TermType::Binary => Value::String(t.decode::<Binary<'a>>().map_err(|_| "bad binary")?.as_slice()),
            _ => return Err(format!("{} does not fit {ty} (use a binary)", describe(t))),
        },
        D::Enum8(_) | D::Enum16(_) => match kind {
            TermType::Binary => Value::String(t.decode::<Binary<'a>>().map_err(|_| "bad binary")?.as_slice()),
            TermType::Integer => {
                let v = t.decode::<i64>().map_err(|_| "bad integer")?;
                let name = match ty {
                    D::Enum8(items) => items.iter().find(|(_, e)| i64::from(*e) == v).map(|(n, _)| n),
                    D::Enum16(items) => items.iter().find(|(_, e)| i64::from(*e) == v).map(|(n, _)| n),
                    _ => None,
                };
                Value::String(name.ok_or_else(|| format!("{v} is not a value of {ty}"))?.as_bytes())
            }
            _ => return Err(format!("{} does not fit {ty} (use its name or value)", describe(t))),
        },
        D::Uuid => {
            let b = t.decode::<Binary<'a>>().map_err(|_| format!("{} does not fit UUID (use its text)", describe(t)))?;
            Value::Uuid(parse_uuid(b.as_slice()).ok_or("not a UUID (its text, or 16 bytes)")?)
        }
        D::Date | D::Date32 => {
            let days = match struct_name(t).as_deref() {
                Some("Elixir.Date") => days_of(t)?,
                _ if kind == TermType::Integer => t.decode::<i64>().map_err(|_| "bad integer")?,
                _ => return Err(format!("{} does not fit {ty} (use a Date)", describe(t))),
            };
            if matches!(ty, D::Date) {
                Value::Date(u16::try_from(days).map_err(|_| format!("day {days} is outside Date's range (1970-01-01 to 2149-06-06)"))?)
            } else {
                Value::Date32(i32::try_from(days).map_err(|_| format!("day {days} is outside Date32's range"))?)
            }
        }
        D::DateTime(_) => {
            let secs = match struct_name(t).as_deref() {
                Some("Elixir.DateTime") => micros_of(t, false)?.div_euclid(1_000_000),
                Some("Elixir.NaiveDateTime") => micros_of(t, true)?.div_euclid(1_000_000),
                _ if kind == TermType::Integer => t.decode::<i64>().map_err(|_| "bad integer")?,
                _ => return Err(format!("{} does not fit {ty} (use a DateTime)", describe(t))),
            };
            Value::DateTime(u32::try_from(secs).map_err(|_| format!("{secs} s is outside DateTime's range (1970 to 2106)"))?, None)
        }
        D::DateTime64 { precision, .. } => match struct_name(t).as_deref() {
            Some("Elixir.DateTime") => Value::DateTime64 { ticks: micros_of(t, false)?, precision: 6, tz: None },
            Some("Elixir.NaiveDateTime") => Value::DateTime64 { ticks: micros_of(t, true)?, precision: 6, tz: None },
            Some("Elixir.Chwire.DateTime64") => {
                let p = field_i64(t, "precision")?;
                Value::DateTime64 { ticks: field_i64(t, "ticks")?, precision: u8::try_from(p).map_err(|_| "bad precision")?, tz: None }
            }
            _ if kind == TermType::Integer => {
                Value::DateTime64 { ticks: t.decode::<i64>().map_err(|_| "bad integer")?, precision: *precision, tz: None }
            }
            _ => return Err(format!("{} does not fit {ty} (use a DateTime)", describe(t))),
        },
        D::Decimal { precision, scale } => {
            let (coef, small) = decimal_parts(t)?;
            match small {
                Some((raw, s)) => Value::Decimal { raw, scale: s },
                None if *precision > 38 => {
                    // Beyond 128 bits: only at the column's own scale.
                    let s = if struct_name(t).is_some() { field_i64(t, "scale")? } else { 0 };
                    if s != i64::from(*scale) {
                        return Err(format!("a coefficient beyond 128 bits must come at the column's scale {scale}"));
                    }
                    let bytes = int256_bytes(coef, true).ok_or_else(|| format!("the coefficient does not fit {ty}"))?;
                    Value::Decimal256 { raw: bump.alloc_slice_copy(&bytes), scale: *scale }
                }
                None => return Err(format!("the coefficient does not fit {ty}")),
            }
        }
        D::Ipv4 => {
            if let Some(o) = tuple_ints(t, 4, 255) {
                Value::Ipv4(std::net::Ipv4Addr::new(o[0] as u8, o[1] as u8, o[2] as u8, o[3] as u8))
            } else if let Ok(b) = t.decode::<Binary<'a>>() {
                Value::Ipv4(std::str::from_utf8(b.as_slice()).ok().and_then(chwire_text::parse_ipv4).ok_or("not an IPv4 address")?)
            } else {
                return Err(format!("{} does not fit IPv4 (use {{a, b, c, d}})", describe(t)));
            }
        }
        D::Ipv6 => {
            if let Some(s) = tuple_ints(t, 8, 65535) {
                let s: Vec<u16> = s.iter().map(|&x| x as u16).collect();
                Value::Ipv6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]))
            } else if let Ok(b) = t.decode::<Binary<'a>>() {
                Value::Ipv6(std::str::from_utf8(b.as_slice()).ok().and_then(chwire_text::parse_ipv6).ok_or("not an IPv6 address")?)
            } else {
                return Err(format!("{} does not fit IPv6 (use an 8-tuple)", describe(t)));
            }
        }
        D::Array(inner) => {
            let items: Vec<Term<'a>> = decode_list(t).map_err(|_| format!("{} does not fit {ty} (use a list)", describe(t)))?;
            Value::Array(items.into_iter().map(|x| value(x, inner, bump)).collect::<Result<_, _>>()?)
        }
        D::Nested(fields) => {
            let items: Vec<Term<'a>> = decode_list(t).map_err(|_| format!("{} does not fit {ty} (use a list of tuples)", describe(t)))?;
            let mut rows = Vec::with_capacity(items.len());
            for x in items {
                let elems = rustler::types::tuple::get_tuple(x).map_err(|_| "a Nested row must be a tuple")?;
                if elems.len() != fields.len() {
                    return Err(format!("a tuple of {} for {} Nested fields", elems.len(), fields.len()));
                }
                let vals =
                    elems.into_iter().zip(fields).map(|(e, (_, ft))| value(e, ft, bump).map(|v| (None, v))).collect::<Result<_, _>>()?;
                rows.push(Value::Tuple(vals));
            }
            Value::Array(rows)
        }
        D::Tuple(items) => {
            let elems = match kind {
                TermType::Tuple => rustler::types::tuple::get_tuple(t).map_err(|_| "bad tuple")?,
                TermType::List => decode_list(t).map_err(|_| "bad list")?,
                _ => return Err(format!("{} does not fit {ty} (use a tuple)", describe(t))),
            };
            if elems.len() != items.len() {
                return Err(format!("a tuple of {} for {ty}", elems.len()));
            }
            Value::Tuple(elems.into_iter().zip(items).map(|(e, (_, it))| value(e, it, bump).map(|v| (None, v))).collect::<Result<_, _>>()?)
        }
        D::Map(k, v) => {
            let mut pairs = Vec::new();
            match kind {
                TermType::Map => {
                    for (key, val) in rustler::types::map::MapIterator::new(t).ok_or("bad map")? {
                        pairs.push((value(key, k, bump)?, value(val, v, bump)?));
                    }
                }
                TermType::List => {
                    let items: Vec<(Term<'a>, Term<'a>)> = decode_list(t).map_err(|_| "a Map as a list takes {key, value} tuples")?;
                    for (key, val) in items {
                        pairs.push((value(key, k, bump)?, value(val, v, bump)?));
                    }
                }
                _ => return Err(format!("{} does not fit {ty} (use a map)", describe(t))),
            }
            Value::Map(pairs)
        }
        D::Nothing => return Err("only nil fits Nothing".into()),
        D::Json { .. } if kind == TermType::Binary => Value::JsonText(t.decode::<Binary<'a>>().map_err(|_| "bad binary")?.as_slice()),
        // A map (as JSON values are read): sent as its JSON text.
        D::Json { .. } if kind == TermType::Map => Value::JsonText(bump.alloc_str(&crate::json::encode(t)?).as_bytes()),
        // Time and Time64 are read as counts (seconds, ticks); %Time{} is taken too.
        D::Time => match time_micros(t)? {
            Some(us) => Value::Time(i32::try_from(us.div_euclid(1_000_000)).map_err(|_| "a Time beyond 32 bits")?),
            None => Value::Time(t.decode::<i32>().map_err(|_| format!("{} does not fit Time (seconds or a %Time{{}})", describe(t)))?),
        },
        D::Time64(p) => match time_micros(t)? {
            Some(us) => Value::Time64 { ticks: us, precision: 6 },
            None => Value::Time64 {
                ticks: t.decode::<i64>().map_err(|_| format!("{} does not fit {ty} (ticks or a %Time{{}})", describe(t)))?,
                precision: *p,
            },
        },
        D::Interval(k) => Value::Interval(t.decode::<i64>().map_err(|_| format!("{} does not fit {ty} (a count)", describe(t)))?, *k),
        D::QBit { element, dimension } => qbit(t, element, *dimension, bump)?,
        D::Variant(_) | D::Dynamic { .. } => untyped(t, 0, bump)?,
        _ => return Err(format!("inserting {ty} values from Elixir is not supported")),
    })
}

/// A value by its own Elixir type (for Variant and Dynamic columns).
fn untyped<'a: 'x, 'x>(t: Term<'a>, depth: u32, bump: &'x Bump) -> Result<Value<'x>, String> {
    deep(|| untyped_here(t, depth, bump))
}

fn untyped_here<'a: 'x, 'x>(t: Term<'a>, depth: u32, bump: &'x Bump) -> Result<Value<'x>, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    Ok(match t.get_type() {
        TermType::Integer => match t.decode::<i64>() {
            Ok(v) => Value::Int(v),
            Err(_) => match t.decode::<u64>() {
                Ok(v) => Value::UInt(v),
                Err(_) => Value::Int128(int_of(t).ok_or("an integer beyond 128 bits")?),
            },
        },
        TermType::Float => Value::Float64(t.decode().map_err(|_| "bad float")?),
        TermType::Binary => Value::String(t.decode::<Binary<'a>>().map_err(|_| "bad binary")?.as_slice()),
        TermType::List => {
            let items: Vec<Term<'a>> = decode_list(t).map_err(|_| "bad list")?;
            Value::Array(items.into_iter().map(|x| untyped(x, depth + 1, bump)).collect::<Result<_, _>>()?)
        }
        TermType::Tuple => Value::Tuple(
            rustler::types::tuple::get_tuple(t)
                .map_err(|_| "bad tuple")?
                .into_iter()
                .map(|x| untyped(x, depth + 1, bump).map(|v| (None, v)))
                .collect::<Result<_, _>>()?,
        ),
        TermType::Atom => match t.atom_to_string().unwrap_or_default().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "nil" => Value::Null,
            "nan" => Value::Float64(f64::NAN),
            "infinity" => Value::Float64(f64::INFINITY),
            "neg_infinity" => Value::Float64(f64::NEG_INFINITY),
            a => return Err(format!("the atom :{a} has no ClickHouse type")),
        },
        // What reading gives for dates, times and decimals, and maps: their own types again.
        TermType::Map => match struct_name(t).as_deref() {
            Some("Elixir.Date") => {
                let days = days_of(t)?;
                match u16::try_from(days) {
                    Ok(d) => Value::Date(d),
                    Err(_) => Value::Date32(i32::try_from(days).map_err(|_| format!("day {days} is outside Date32's range"))?),
                }
            }
            Some(name @ ("Elixir.DateTime" | "Elixir.NaiveDateTime")) => {
                let us = micros_of(t, name == "Elixir.NaiveDateTime")?;
                let digits = match field(t, "microsecond")?.decode::<(i64, i64)>() {
                    Ok((_, p)) => p.clamp(0, 6) as u8,
                    Err(_) => 6,
                };
                let step = 10i64.pow(6 - u32::from(digits));
                match u32::try_from(us.div_euclid(1_000_000)) {
                    Ok(secs) if digits == 0 && us.rem_euclid(1_000_000) == 0 => Value::DateTime(secs, None),
                    _ if us % step == 0 => Value::DateTime64 { ticks: us / step, precision: digits, tz: None },
                    _ => Value::DateTime64 { ticks: us, precision: 6, tz: None },
                }
            }
            Some("Elixir.Chwire.DateTime64") => {
                let p = u8::try_from(field_i64(t, "precision")?).map_err(|_| "bad precision")?;
                Value::DateTime64 { ticks: field_i64(t, "ticks")?, precision: p, tz: None }
            }
            Some("Elixir.Chwire.Decimal") => {
                let (coef, small) = decimal_parts(t)?;
                match small {
                    Some((raw, scale)) => Value::Decimal { raw, scale },
                    None => {
                        let bytes = int256_bytes(coef, true).ok_or("a decimal coefficient beyond 256 bits")?;
                        let scale = u8::try_from(field_i64(t, "scale")?).map_err(|_| "bad scale")?;
                        Value::Decimal256 { raw: bump.alloc_slice_copy(&bytes), scale }
                    }
                }
            }
            Some(other) => return Err(format!("a %{}{{}} has no ClickHouse type of its own", other.trim_start_matches("Elixir."))),
            None => {
                let mut pairs = Vec::new();
                for (k, v) in rustler::types::map::MapIterator::new(t).ok_or("bad map")? {
                    pairs.push((untyped(k, depth + 1, bump)?, untyped(v, depth + 1, bump)?));
                }
                Value::Map(pairs)
            }
        },
        _ => return Err(format!("{} has no ClickHouse type of its own", describe(t))),
    })
}

/// NaN or an infinity (their atoms) for a column of `ty`.
fn special_float<'x>(f: f64, ty: &DataType) -> Value<'x> {
    match ty {
        DataType::BFloat16 => Value::BFloat16(((f as f32).to_bits() >> 16) as u16),
        _ => Value::Float64(f),
    }
}

/// Microseconds since midnight of a `%Time{}`; None for other terms.
fn time_micros(t: Term<'_>) -> Result<Option<i64>, String> {
    if struct_name(t).as_deref() != Some("Elixir.Time") {
        return Ok(None);
    }
    let us = match field(t, "microsecond")?.decode::<(i64, i64)>() {
        Ok((us, _)) => us,
        Err(_) => return Err("the field microsecond is not {integer, precision}".into()),
    };
    let (h, m, s) = (field_i64(t, "hour")?, field_i64(t, "minute")?, field_i64(t, "second")?);
    (|| h.checked_mul(3600)?.checked_add(m.checked_mul(60)?)?.checked_add(s)?.checked_mul(1_000_000)?.checked_add(us))()
        .map(Some)
        .ok_or_else(|| "a time out of any range".to_string())
}

// ---------------------------------------------------------------- blocks

/// One column being filled: its table type, plain type and builder.
struct Builder<'h> {
    name: &'h str,
    table_ty: &'h DataType,
    plain: DataType,
    /// `plain` with QBit as its storage (what the core's writers take).
    write_ty: DataType,
    data: ColumnData,
}

impl<'h> Builder<'h> {
    fn new(name: &'h str, table_ty: &'h DataType, rows: usize) -> Result<Self, String> {
        let plain = table_ty.without_low_cardinality();
        let data = ColumnData::with_capacity_for(&plain, rows).map_err(|e| e.to_string())?;
        Ok(Builder { name, table_ty, write_ty: write_type(&plain), plain, data })
    }

    /// Append one value; an error names the column and the row.
    #[inline]
    fn push(&mut self, t: Term<'_>, row: u64, bump: &Bump) -> Result<(), String> {
        let raw = t.as_c_arg();
        let env = t.get_env().as_c_arg();
        // Plain numbers and strings without the Value step.
        let fast = unsafe {
            match (&self.plain, &mut self.data) {
                (DataType::UInt64, ColumnData::UInt64(c)) => {
                    let mut v = 0u64;
                    (sys::enif_get_uint64(env, raw, &mut v) != 0).then(|| c.push(v))
                }
                (DataType::Int64, ColumnData::Int64(c)) => {
                    let mut v = 0i64;
                    (sys::enif_get_int64(env, raw, &mut v) != 0).then(|| c.push(v))
                }
                (DataType::UInt32, ColumnData::UInt32(c)) => {
                    let mut v = 0u64;
                    (sys::enif_get_uint64(env, raw, &mut v) != 0 && v <= u64::from(u32::MAX)).then(|| c.push(v as u32))
                }
                (DataType::Int32, ColumnData::Int32(c)) => {
                    let mut v = 0i64;
                    (sys::enif_get_int64(env, raw, &mut v) != 0 && i32::try_from(v).is_ok()).then(|| c.push(v as i32))
                }
                (DataType::Float64, ColumnData::Float64(c)) => {
                    let mut v = 0f64;
                    (sys::enif_get_double(env, raw, &mut v) != 0).then(|| c.push(v))
                }
                (DataType::String, ColumnData::String(s)) => {
                    let mut bin = std::mem::MaybeUninit::<sys::ErlNifBinary>::uninit();
                    if sys::enif_is_binary(env, raw) != 0 && sys::enif_inspect_binary(env, raw, bin.as_mut_ptr()) != 0 {
                        let bin = bin.assume_init();
                        s.push(if bin.size == 0 { &[][..] } else { std::slice::from_raw_parts(bin.data, bin.size) });
                        Some(())
                    } else {
                        None
                    }
                }
                _ => None,
            }
        };
        if fast.is_some() {
            return Ok(());
        }
        let v = value(t, &self.plain, bump).map_err(|e| self.err(row, &e))?;
        v.write(&self.write_ty, &mut self.data).map_err(|e| self.err(row, &e))
    }

    fn err(&self, row: u64, why: &str) -> String {
        format!("column `{}` ({}), row {row}: {why}", self.name, self.table_ty)
    }

    fn finish(mut self) -> Result<(String, Column), String> {
        self.data.check(&self.plain).map_err(|e| format!("column `{}`: the rows do not fit its type {}: {e}", self.name, self.plain))?;
        finish_dynamic(&mut self.data);
        let data = encode_low_cardinality(self.table_ty, self.data).map_err(|e| e.to_string())?;
        let col = Column::new(self.table_ty.clone(), data).map_err(|e| e.to_string())?;
        Ok((self.name.to_owned(), col))
    }
}

/// How the caller's data is laid out.
pub enum Layout {
    /// `[values_of_column_1, values_of_column_2, ...]` in the header's order.
    Columns,
    /// `[[v1, v2, ...], ...]` in the header's order.
    RowLists,
    /// `[%{"name" => v, ...}, ...]` (or atom keys). `exact`: a key that is no column is an
    /// error (else, with the caller's `columns:`, other keys are ignored).
    RowMaps { exact: bool },
}

/// Next list cell (None at the end; Err for an improper list).
unsafe fn next_cell(env: *mut sys::ErlNifEnv, list: &mut T) -> Result<Option<T>, String> {
    let mut head: T = T::default();
    let mut tail: T = T::default();
    if sys::enif_get_list_cell(env, *list, &mut head, &mut tail) != 0 {
        *list = tail;
        Ok(Some(head))
    } else if sys::enif_is_empty_list(env, *list) != 0 {
        Ok(None)
    } else {
        Err("not a proper list".into())
    }
}

/// Build one block of at most `max_rows` rows from `data` for the `header` columns; returns
/// the block and what is left of the data (in the same layout). `first_row`: the index of the
/// block's first row in the whole data (for errors). A value that does not fit fails the
/// whole block, naming its column and row.
pub fn build_block<'a>(
    env: Env<'a>,
    header: &[(String, DataType)],
    layout: Layout,
    data: Term<'a>,
    max_rows: usize,
    first_row: u64,
) -> Result<(Block, Term<'a>), String> {
    let raw_env = env.as_c_arg();
    let bump = Bump::new();
    let wrap = |t: T| unsafe { Term::new(env, t) };
    let mut builders = Vec::with_capacity(header.len());
    match layout {
        Layout::Columns => {
            let lists: Vec<Term<'a>> = decode_list(data).map_err(|_| "the columns must be a list of lists")?;
            if lists.len() != header.len() {
                return Err(format!("{} columns of data for {} columns of the table", lists.len(), header.len()));
            }
            let mut rests = Vec::with_capacity(lists.len());
            let mut rows = None;
            for ((name, ty), list) in header.iter().zip(lists) {
                let mut b = Builder::new(name, ty, max_rows.min(1 << 20))?;
                let mut cur = list.as_c_arg();
                // Plain numbers in a tight loop; the first value it cannot take (or the list's
                // end) is left to the general loop below.
                let mut n = unsafe { fill_plain(raw_env, &mut b.data, &b.plain, &mut cur, max_rows) };
                while n < max_rows {
                    match unsafe { next_cell(raw_env, &mut cur) }.map_err(|e| format!("column `{name}`: {e}"))? {
                        Some(v) => b.push(wrap(v), first_row + n as u64, &bump)?,
                        None => break,
                    }
                    n += 1;
                }
                match rows {
                    None => rows = Some(n),
                    Some(r) if r != n => {
                        return Err(format!(
                            "column `{name}` has {} values where the columns before it have {}",
                            first_row as usize + n,
                            first_row as usize + r
                        ))
                    }
                    _ => {}
                }
                rests.push(wrap(cur));
                builders.push(b);
            }
            let block = finish_block(builders)?;
            let rest = if rests.iter().all(|t| t.is_empty_list()) { Term::list_new_empty(env) } else { list_of(env, &rests) };
            Ok((block, rest))
        }
        Layout::RowLists | Layout::RowMaps { .. } => {
            for (name, ty) in header {
                builders.push(Builder::new(name, ty, max_rows.min(1 << 20))?);
            }
            let keys: Vec<(Term<'a>, Option<Term<'a>>)> = header
                .iter()
                .map(|(n, _)| {
                    let bin = rustler::types::binary::NewBinary::from_slice(env, n.as_bytes());
                    (Term::from(bin), rustler::Atom::existing_from_str(env, n).ok().map(|a| rustler::Encoder::encode(&a, env)))
                })
                .collect();
            let mut cur = data.as_c_arg();
            let mut n = 0usize;
            let mut cells = vec![T::default(); header.len()];
            let exact = matches!(layout, Layout::RowMaps { exact: true });
            while n < max_rows {
                let Some(row) = (unsafe { next_cell(raw_env, &mut cur) })? else { break };
                let row = wrap(row);
                let r = first_row + n as u64;
                match layout {
                    Layout::RowLists => {
                        let mut rc = row.as_c_arg();
                        for (i, cell) in cells.iter_mut().enumerate() {
                            *cell = unsafe { next_cell(raw_env, &mut rc) }
                                .map_err(|_| format!("row {r} is not a list"))?
                                .ok_or_else(|| format!("row {r} has {i} values for {} columns", header.len()))?;
                        }
                        if unsafe { sys::enif_is_empty_list(raw_env, rc) } == 0 {
                            return Err(format!("row {r} has more values than the {} columns", header.len()));
                        }
                    }
                    _ => {
                        if !row.is_map() {
                            return Err(format!("row {r} is not a map"));
                        }
                        for (cell, ((name, _), (skey, akey))) in cells.iter_mut().zip(header.iter().zip(&keys)) {
                            let v = row.map_get(*skey).ok().or_else(|| akey.and_then(|a| row.map_get(a).ok()));
                            *cell = v.ok_or_else(|| format!("row {r} has no value for column `{name}`"))?.as_c_arg();
                        }
                        if exact && row.map_size().unwrap_or(0) > header.len() {
                            let extra: Vec<String> = rustler::types::map::MapIterator::new(row)
                                .into_iter()
                                .flatten()
                                .map(|(k, _)| k)
                                .filter(|k| !keys.iter().any(|(s, a)| k == s || Some(*k) == *a))
                                .map(|k| k.atom_to_string().ok().or_else(|| k.decode::<String>().ok()).unwrap_or_else(|| describe(k)))
                                .collect();
                            return Err(format!(
                                "row {r} has keys that are no columns of the insert: {extra:?} (pass `columns:` to insert only some)"
                            ));
                        }
                    }
                }
                for (b, cell) in builders.iter_mut().zip(&cells) {
                    b.push(wrap(*cell), r, &bump)?;
                }
                n += 1;
            }
            Ok((finish_block(builders)?, wrap(cur)))
        }
    }
}

/// Append plain numbers from the list at `cur` to `data` (a builder of `ty`) until `max` values,
/// the list's end or a value that is not a number of the column's range; `cur` is left at the
/// first cell not taken. Returns how many were taken.
unsafe fn fill_plain(env: *mut sys::ErlNifEnv, data: &mut ColumnData, ty: &DataType, cur: &mut T, max: usize) -> usize {
    macro_rules! fill {
        ($c:expr, $get:ident, $tmp:ty, $conv:expr) => {{
            let mut n = 0usize;
            let (mut head, mut tail) = (T::default(), T::default());
            while n < max && sys::enif_get_list_cell(env, *cur, &mut head, &mut tail) != 0 {
                let mut v: $tmp = Default::default();
                if sys::$get(env, head, &mut v) == 0 {
                    break;
                }
                match $conv(v) {
                    Some(x) => $c.push(x),
                    None => break,
                }
                *cur = tail;
                n += 1;
            }
            n
        }};
    }
    match (ty, data) {
        (DataType::UInt64, ColumnData::UInt64(c)) => fill!(c, enif_get_uint64, u64, Some),
        (DataType::Int64, ColumnData::Int64(c)) => fill!(c, enif_get_int64, i64, Some),
        (DataType::UInt32, ColumnData::UInt32(c)) => fill!(c, enif_get_uint64, u64, |v: u64| u32::try_from(v).ok()),
        (DataType::Int32, ColumnData::Int32(c)) => fill!(c, enif_get_int64, i64, |v: i64| i32::try_from(v).ok()),
        (DataType::UInt16, ColumnData::UInt16(c)) => fill!(c, enif_get_uint64, u64, |v: u64| u16::try_from(v).ok()),
        (DataType::Int16, ColumnData::Int16(c)) => fill!(c, enif_get_int64, i64, |v: i64| i16::try_from(v).ok()),
        (DataType::UInt8, ColumnData::UInt8(c)) => fill!(c, enif_get_uint64, u64, |v: u64| u8::try_from(v).ok()),
        (DataType::Int8, ColumnData::Int8(c)) => fill!(c, enif_get_int64, i64, |v: i64| i8::try_from(v).ok()),
        (DataType::Float64, ColumnData::Float64(c)) => fill!(c, enif_get_double, f64, Some),
        _ => 0,
    }
}

fn finish_block(builders: Vec<Builder<'_>>) -> Result<Block, String> {
    let mut block = Block::new();
    for b in builders {
        let (name, col) = b.finish()?;
        block.push(name, col).map_err(|e| e.to_string())?;
    }
    Ok(block)
}

fn list_of<'a>(env: Env<'a>, items: &[Term<'a>]) -> Term<'a> {
    let raw: Vec<T> = items.iter().map(|t| t.as_c_arg()).collect();
    unsafe { Term::new(env, sys::enif_make_list_from_array(env.as_c_arg(), raw.as_ptr(), raw.len() as u32)) }
}
