//! A Dynamic column's value from JSON text, its type inferred as ClickHouse 26.9 infers it
//! when JSONEachRow input goes into a Dynamic column (the rules below were read off the live
//! server: `SELECT d, dynamicType(d) FROM format(JSONEachRow, 'd Dynamic', …)`):
//!
//! * integers: Int64, else UInt64, else (wider) a String of their digits; other numbers
//!   (with a fraction or an exponent) Float64; `-0` is Int64 0;
//! * `true`/`false`: Bool; `null`: NULL;
//! * strings: Date (`2020-01-01`, also `2020-1-1`) or DateTime (`2020-01-01 00:00:00`, also
//!   with `T`) where they are one within those types' ranges, DateTime64(9) with a fraction or
//!   out of DateTime's range; any other string is a String (`"1"` stays a String);
//! * arrays: an Array of the elements' common type (Int64 with Float64 is Float64, Bool with a
//!   number that number (true as 1), Date with DateTime DateTime, a date with any other string
//!   String, objects merged member by member), with Nullable elements when one is `null`;
//!   elements without a common type (`[1, "a"]`, Int64 with UInt64) make an Array(Dynamic),
//!   each element inferred on its own; an empty array is one of Strings;
//! * objects: a named Tuple of their members (missing members of merged objects get their
//!   type's default); `{}` is the String `{}`.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use super::jsontext::{object, string};
use crate::text::parse::{self, Ctx};
use chwire_proto::Value;
use serde_json::value::RawValue;

/// A JSON value read, before its type is settled.
#[derive(Debug, Clone)]
enum Inf<'b> {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(&'b [u8]),
    /// A string that reads as a date or time (its text kept, should it end up a String).
    Date(u16, &'b [u8]),
    DateTime(u32, &'b [u8]),
    DateTime64(i64, &'b [u8]),
    Array(Vec<Inf<'b>>),
    Object(Vec<(&'b str, Inf<'b>)>),
}

/// The inferred type of a value.
#[derive(Debug, Clone, PartialEq)]
enum Ty<'b> {
    Null,
    Bool,
    Int64,
    UInt64,
    Float64,
    String,
    Date,
    DateTime,
    DateTime64,
    Array(Box<Ty<'b>>),
    Tuple(Vec<(&'b str, Ty<'b>)>),
    /// Elements of an array among which a `null` is (of a scalar type: arrays and tuples
    /// cannot be NULL, their `null` elements are empty or defaults).
    Nullable(Box<Ty<'b>>),
    /// Elements without a common type: each is a Dynamic value of its own.
    Dynamic,
}

/// Nesting beyond this is refused (each level is a recursion).
const MAX_DEPTH: usize = 64;

/// The value of a Dynamic column for this JSON text.
pub(super) fn dynamic_value<'b>(raw: &'b RawValue, marked: bool, cx: &Ctx<'b>) -> Result<Value<'b>, String> {
    let v = read(raw, marked, cx, 0)?;
    let ty = type_of(&v);
    Ok(convert(v, &ty))
}

fn read<'b>(raw: &'b RawValue, marked: bool, cx: &Ctx<'b>, depth: usize) -> Result<Inf<'b>, String> {
    if depth > MAX_DEPTH {
        return Err(format!("more than {MAX_DEPTH} levels of nesting"));
    }
    let text = raw.get();
    Ok(match text.as_bytes().first() {
        None => return Err("an empty value".into()),
        Some(b'n') => Inf::Null,
        Some(b't') => Inf::Bool(true),
        Some(b'f') => Inf::Bool(false),
        Some(b'"') => {
            let s = string(text, marked, cx)?;
            date_or_time(s, cx).unwrap_or(Inf::Str(s))
        }
        Some(b'[') => {
            let items: Vec<&'b RawValue> = serde_json::from_str(text).map_err(|e| format!("not a JSON array: {e}"))?;
            Inf::Array(items.into_iter().map(|v| read(v, marked, cx, depth.saturating_add(1))).collect::<Result<_, _>>()?)
        }
        Some(b'{') => {
            let members = object(text, cx)?;
            if members.is_empty() {
                return Ok(Inf::Str(b"{}"));
            }
            Inf::Object(
                members.into_iter().map(|(k, v)| Ok((k, read(v, marked, cx, depth.saturating_add(1))?))).collect::<Result<_, String>>()?,
            )
        }
        Some(_) if !text.contains(['.', 'e', 'E']) => match (text.parse::<i64>(), text.parse::<u64>()) {
            (Ok(i), _) => Inf::Int(i),
            (_, Ok(u)) => Inf::UInt(u),
            _ => Inf::Str(text.as_bytes()),
        },
        Some(_) => match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Inf::Float(f),
            _ => Inf::Str(text.as_bytes()),
        },
    })
}

/// A date or date-time string as the type it reads as (see the module docs), else `None`.
fn date_or_time<'b>(s: &'b [u8], cx: &Ctx<'b>) -> Option<Inf<'b>> {
    let text = std::str::from_utf8(s).ok()?;
    let b = text.as_bytes();
    // A date: year, month and day of one or two digits.
    let mut parts = text.splitn(3, '-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    let digits = |p: &str, n: std::ops::RangeInclusive<usize>| n.contains(&p.len()) && p.bytes().all(|c| c.is_ascii_digit());
    if b.len() <= 10 && digits(y, 4..=4) && digits(m, 1..=2) && digits(d, 1..=2) {
        let padded = format!("{y}-{m:0>2}-{d:0>2}");
        return match parse::scalar(&chwire_proto::DataType::Date, padded.as_bytes(), cx) {
            Ok(Value::Date(days)) => Some(Inf::Date(days, s)),
            // Out of Date's range: a DateTime64 at midnight.
            _ => date_time64(&format!("{padded} 00:00:00"), s, cx),
        };
    }
    // A date-time: the date, a space or a T, hh:mm:ss, an optional fraction and zone.
    let (date, rest) = text.split_at_checked(10)?;
    if !(digits(y, 4..=4) && date.len() == 10 && matches!(rest.as_bytes().first(), Some(b' ' | b'T'))) {
        return None;
    }
    let time = rest.get(1..)?;
    let hms = time.get(..8)?;
    if !(hms.len() == 8 && hms.as_bytes().get(2) == Some(&b':') && hms.as_bytes().get(5) == Some(&b':')) {
        return None;
    }
    let normal = format!("{date} {time}");
    if !time.contains('.') {
        if let Ok(Value::DateTime(secs, _)) = parse::scalar(&chwire_proto::DataType::DateTime(None), normal.as_bytes(), cx) {
            return Some(Inf::DateTime(secs, s));
        }
    }
    date_time64(&normal, s, cx)
}

fn date_time64<'b>(text: &str, original: &'b [u8], cx: &Ctx<'b>) -> Option<Inf<'b>> {
    match parse::scalar(&chwire_proto::DataType::DateTime64 { precision: 9, tz: None }, text.as_bytes(), cx) {
        Ok(Value::DateTime64 { ticks, .. }) => Some(Inf::DateTime64(ticks, original)),
        _ => None,
    }
}

fn type_of<'b>(v: &Inf<'b>) -> Ty<'b> {
    match v {
        Inf::Null => Ty::Null,
        Inf::Bool(_) => Ty::Bool,
        Inf::Int(_) => Ty::Int64,
        Inf::UInt(_) => Ty::UInt64,
        Inf::Float(_) => Ty::Float64,
        Inf::Str(_) => Ty::String,
        Inf::Date(..) => Ty::Date,
        Inf::DateTime(..) => Ty::DateTime,
        Inf::DateTime64(..) => Ty::DateTime64,
        Inf::Object(members) => Ty::Tuple(members.iter().map(|(k, v)| (*k, type_of(v))).collect()),
        Inf::Array(items) => {
            let mut common: Option<Ty<'b>> = None;
            for t in items.iter().map(type_of).filter(|t| *t != Ty::Null) {
                common = match common {
                    None => Some(t),
                    Some(c) => match unify(&c, &t) {
                        Some(u) => Some(u),
                        None => return Ty::Array(Box::new(Ty::Dynamic)),
                    },
                };
            }
            let common = common.unwrap_or(Ty::String);
            let scalar = !matches!(common, Ty::Array(_) | Ty::Tuple(_) | Ty::Dynamic);
            Ty::Array(Box::new(if scalar && items.iter().any(|v| matches!(v, Inf::Null)) {
                Ty::Nullable(Box::new(common))
            } else {
                common
            }))
        }
    }
}

/// The common type of two (not NULL), if they have one.
fn unify<'b>(a: &Ty<'b>, b: &Ty<'b>) -> Option<Ty<'b>> {
    use Ty::*;
    Some(match (a, b) {
        _ if a == b => a.clone(),
        (Int64 | Bool, Float64) | (Float64, Int64 | Bool) | (UInt64, Float64) | (Float64, UInt64) => Float64,
        (Int64, Bool) | (Bool, Int64) => Int64,
        (UInt64, Bool) | (Bool, UInt64) => UInt64,
        (Date, DateTime) | (DateTime, Date) => DateTime,
        (Date | DateTime, DateTime64) | (DateTime64, Date | DateTime) => DateTime64,
        (String, Date | DateTime | DateTime64) | (Date | DateTime | DateTime64, String) => String,
        (Array(x), Array(y)) => Array(Box::new(match (&**x, &**y) {
            (Dynamic, _) | (_, Dynamic) => return None,
            (x, y) => unify(x, y)?,
        })),
        (Nullable(x), Nullable(y)) => Nullable(Box::new(unify(x, y)?)),
        (Nullable(x), y) | (y, Nullable(x)) => Nullable(Box::new(unify(x, y)?)),
        (Tuple(x), Tuple(y)) => {
            let mut out = x.clone();
            for (k, t) in y {
                match out.iter_mut().find(|(n, _)| n == k) {
                    Some((_, have)) => {
                        *have = if *have == Null {
                            t.clone()
                        } else if *t == Null {
                            have.clone()
                        } else {
                            unify(have, t)?
                        }
                    }
                    None => out.push((*k, t.clone())),
                }
            }
            Tuple(out)
        }
        _ => return None,
    })
}

/// The value as a value of type `ty` (a type `type_of` gave it, or a common type of it).
fn convert<'b>(v: Inf<'b>, ty: &Ty<'b>) -> Value<'b> {
    match (v, ty) {
        (Inf::Null, Ty::Tuple(members)) => Value::Tuple(members.iter().map(|(k, t)| (Some(*k), default(t))).collect()),
        (Inf::Null, Ty::Array(_)) => Value::Array(Vec::new()),
        (Inf::Null, _) => Value::Null,
        (v, Ty::Nullable(inner)) => convert(v, inner),
        (v, Ty::Dynamic) => {
            let t = type_of(&v);
            convert(v, &t)
        }
        (Inf::Bool(b), Ty::Int64) => Value::Int(i64::from(b)),
        (Inf::Bool(b), Ty::UInt64) => Value::UInt(u64::from(b)),
        (Inf::Bool(b), Ty::Float64) => Value::Float64(f64::from(u8::from(b))),
        (Inf::Bool(b), _) => Value::Bool(b),
        (Inf::Int(i), Ty::Float64) => Value::Float64(i as f64),
        (Inf::Int(i), _) => Value::Int(i),
        (Inf::UInt(u), Ty::Float64) => Value::Float64(u as f64),
        (Inf::UInt(u), _) => Value::UInt(u),
        (Inf::Float(f), _) => Value::Float64(f),
        (Inf::Str(s), _) => Value::String(s),
        (Inf::Date(_, s) | Inf::DateTime(_, s) | Inf::DateTime64(_, s), Ty::String) => Value::String(s),
        (Inf::Date(d, _), Ty::DateTime) => Value::DateTime(u32::from(d).saturating_mul(86_400), None),
        (Inf::Date(d, _), Ty::DateTime64) => {
            Value::DateTime64 { ticks: i64::from(d).saturating_mul(86_400_000_000_000), precision: 9, tz: None }
        }
        (Inf::Date(d, _), _) => Value::Date(d),
        (Inf::DateTime(t, _), Ty::DateTime64) => {
            Value::DateTime64 { ticks: i64::from(t).saturating_mul(1_000_000_000), precision: 9, tz: None }
        }
        (Inf::DateTime(t, _), _) => Value::DateTime(t, None),
        (Inf::DateTime64(t, _), _) => Value::DateTime64 { ticks: t, precision: 9, tz: None },
        (Inf::Array(items), Ty::Array(inner)) => Value::Array(items.into_iter().map(|x| convert(x, inner)).collect()),
        (Inf::Array(items), _) => Value::Array(items.into_iter().map(|x| convert(x, &Ty::Dynamic)).collect()),
        (Inf::Object(mut members), Ty::Tuple(types)) => Value::Tuple(
            types
                .iter()
                .map(|(k, t)| {
                    let v = members.iter().position(|(n, _)| n == k).map(|i| members.swap_remove(i).1);
                    (Some(*k), v.map_or_else(|| default(t), |v| convert(v, t)))
                })
                .collect(),
        ),
        (Inf::Object(members), _) => Value::Tuple(
            members
                .into_iter()
                .map(|(k, v)| {
                    let t = type_of(&v);
                    (Some(k), convert(v, &t))
                })
                .collect(),
        ),
    }
}

/// The default value of a member an object of an array lacks.
fn default<'b>(t: &Ty<'b>) -> Value<'b> {
    match t {
        Ty::Null => Value::Null,
        Ty::Bool => Value::Bool(false),
        Ty::Int64 => Value::Int(0),
        Ty::UInt64 => Value::UInt(0),
        Ty::Float64 => Value::Float64(0.0),
        Ty::String => Value::String(b""),
        Ty::Date => Value::Date(0),
        Ty::DateTime => Value::DateTime(0, None),
        Ty::DateTime64 => Value::DateTime64 { ticks: 0, precision: 9, tz: None },
        Ty::Array(_) => Value::Array(Vec::new()),
        Ty::Tuple(members) => Value::Tuple(members.iter().map(|(k, t)| (Some(*k), default(t))).collect()),
        Ty::Nullable(_) | Ty::Dynamic => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bumpalo::Bump;
    use jiff::tz::TimeZone;

    /// The type of each JSON value, as ClickHouse 26.9 named it (`dynamicType(d)` of
    /// `format(JSONEachRow, 'd Dynamic', …)`, run on the live server).
    #[test]
    fn types_as_the_server_infers_them() {
        let bump = Bump::new();
        let cx = Ctx::new(&bump, TimeZone::UTC);
        let cases = [
            (r#""1""#, "String"),
            ("1", "Int64"),
            ("18446744073709551615", "UInt64"),
            ("18446744073709551616", "String"),
            ("1.5", "Float64"),
            ("-0", "Int64"),
            ("1e3", "Float64"),
            ("true", "Bool"),
            ("null", "None"),
            ("[1,2]", "Array(Int64)"),
            ("[1,null]", "Array(Nullable(Int64))"),
            (r#"[1,"a"]"#, "Array(Dynamic)"),
            (r#"[0,"0",[0]]"#, "Array(Dynamic)"),
            ("[]", "Array(String)"),
            ("[null]", "Array(Nullable(String))"),
            (r#"{"a":1}"#, "Tuple(a Int64)"),
            ("{}", "String"),
            (r#""2020-01-01""#, "Date"),
            (r#""2020-1-1""#, "Date"),
            (r#""2020-01-01 00:00:00""#, "DateTime"),
            (r#""2020-01-01T00:00:00""#, "DateTime"),
            (r#""2020-01-01 00:00:00.123""#, "DateTime64(9)"),
            (r#""1900-01-01""#, "DateTime64(9)"),
            (r#""1.5""#, "String"),
            ("[1,2.5]", "Array(Float64)"),
            ("[true,1]", "Array(Int64)"),
            ("[true,1.5]", "Array(Float64)"),
            (r#"["2020-01-01","x"]"#, "Array(String)"),
            (r#"["2020-01-01","2020-01-01 00:00:00"]"#, "Array(DateTime)"),
            ("[18446744073709551615,-1]", "Array(Dynamic)"),
            (r#"[{"a":1},{"b":2}]"#, "Array(Tuple(a Int64, b Int64))"),
            (r#"[{"a":1},{"a":2.5}]"#, "Array(Tuple(a Float64))"),
        ];
        for (json, want) in cases {
            let raw: &RawValue = serde_json::from_str(json).unwrap();
            let v = read(raw, false, &cx, 0).unwrap();
            assert_eq!(name(&type_of(&v)), want, "{json}");
        }
        // Values follow the common type: true as 1, a date as its string among strings.
        let raw: &RawValue = serde_json::from_str(r#"[true,2]"#).unwrap();
        assert_eq!(dynamic_value(raw, false, &cx).unwrap(), Value::Array(vec![Value::Int(1), Value::Int(2)]));
        let raw: &RawValue = serde_json::from_str(r#"["2020-01-01","x"]"#).unwrap();
        assert_eq!(dynamic_value(raw, false, &cx).unwrap(), Value::Array(vec![Value::String(b"2020-01-01"), Value::String(b"x")]));
    }

    /// The server's name of an inferred type (for the test).
    fn name(t: &Ty<'_>) -> String {
        match t {
            Ty::Null => "None".into(),
            Ty::Bool => "Bool".into(),
            Ty::Int64 => "Int64".into(),
            Ty::UInt64 => "UInt64".into(),
            Ty::Float64 => "Float64".into(),
            Ty::String => "String".into(),
            Ty::Date => "Date".into(),
            Ty::DateTime => "DateTime".into(),
            Ty::DateTime64 => "DateTime64(9)".into(),
            Ty::Dynamic => "Dynamic".into(),
            Ty::Nullable(inner) => format!("Nullable({})", name(inner)),
            Ty::Array(inner) => format!("Array({})", name(inner)),
            Ty::Tuple(m) => format!("Tuple({})", m.iter().map(|(k, t)| format!("{k} {}", name(t))).collect::<Vec<_>>().join(", ")),
        }
    }
}
