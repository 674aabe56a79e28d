//! Single ClickHouse values (`chwire::Value`) → JavaScript values, for the types that have no
//! buffer form (Variant, Dynamic, JSON, QBit, 128/256-bit integers, aggregate states; see
//! `out.rs`). Runs on the JS thread.
//!
//! Integers whose width the value no longer carries (inside Variant, Dynamic and JSON) follow
//! JSON's rule with exactness kept: a `number` when it is exact (|v| ≤ 2^53), else a `bigint`.
//! 128- and 256-bit integer columns are always `bigint`s.

use crate::error::Result;
use crate::js::{self, Env, Val};
use chwire::proto::column::{decimal256_to_string, decimal_to_string};
use chwire::Value;

/// The caller's choices for types with more than one JavaScript form.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mapping {
    /// (U)Int64 (and Interval) as `number`, each value checked to be exact; else `bigint`.
    pub int64_as_number: bool,
    /// Decimal as `number` (the nearest double); else its exact text.
    pub decimal_as_number: bool,
    /// String and FixedString as `Buffer`s of their bytes; else `string`s (UTF-8, invalid
    /// bytes as U+FFFD).
    pub strings_as_buffers: bool,
}

const EXACT: u64 = 1 << 53;

fn int(env: Env, i: i128) -> Result<Val> {
    if i.unsigned_abs() <= EXACT as u128 {
        Ok(js::number(env, i as f64)?)
    } else {
        Ok(js::big_i128(env, i)?)
    }
}

fn le_words(b: &[u8]) -> (bool, Vec<u64>) {
    b.chunks_exact(8).map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])).fold(
        (false, Vec::new()),
        |(n, mut v), w| {
            v.push(w);
            (n, v)
        },
    )
}

/// A 256-bit little-endian integer as a bigint.
fn big256(env: Env, b: &[u8], signed: bool) -> Result<Val> {
    let (_, mut words) = le_words(b);
    let neg = signed && b.last().is_some_and(|&x| x & 0x80 != 0);
    if neg {
        // Two's complement → magnitude.
        let mut carry = true;
        for w in &mut words {
            let (x, c) = (!*w).overflowing_add(carry as u64);
            *w = x;
            carry = c;
        }
    }
    Ok(js::big_words(env, neg, &words)?)
}

fn decimal_value(env: Env, text: String, m: Mapping) -> Result<Val> {
    if m.decimal_as_number {
        Ok(js::number(env, text.parse().unwrap_or(f64::NAN))?)
    } else {
        Ok(js::str_val(env, &text)?)
    }
}

pub fn value_to_js(env: Env, v: &Value<'_>, m: Mapping) -> Result<Val> {
    Ok(match v {
        Value::Null | Value::Nothing => js::null(env)?,
        Value::UInt(u) => int(env, *u as i128)?,
        Value::Int(i) => int(env, *i as i128)?,
        Value::Float32(f) => js::number(env, *f as f64)?,
        Value::Float64(f) => js::number(env, *f)?,
        Value::BFloat16(b) => js::number(env, f32::from_bits((*b as u32) << 16) as f64)?,
        Value::Bool(b) => js::boolean(env, *b)?,
        Value::String(s) | Value::FixedString(s) if m.strings_as_buffers => js::buffer_copy(env, s)?,
        Value::String(s) | Value::FixedString(s) => js::bytes_str(env, s)?,
        Value::Uuid(c) => {
            let h: String = c.iter().map(|b| format!("{b:02x}")).collect();
            js::str_val(env, &format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32]))?
        }
        Value::Date(d) => js::date(env, *d as f64 * 86_400_000.0)?,
        Value::Date32(d) => js::date(env, *d as f64 * 86_400_000.0)?,
        Value::DateTime(s, _) => js::date(env, *s as f64 * 1000.0)?,
        Value::DateTime64 { ticks, precision, .. } if *precision > 3 => {
            let (ms, sub) = crate::dates::precise(*ticks, *precision);
            js::precise_date(env, ms, sub)?
        }
        Value::DateTime64 { ticks, precision, .. } => js::date(env, *ticks as f64 * 10f64.powi(3 - *precision as i32))?,
        Value::Enum(name, _) => js::str_val(env, name)?,
        Value::Array(items) | Value::QBit(items) => {
            let arr = js::array(env, items.len())?;
            for (i, x) in items.iter().enumerate() {
                js::push(env, arr, i as u32, value_to_js(env, x, m)?)?;
            }
            arr
        }
        Value::UInt128(u) => js::big_u128(env, *u)?,
        Value::Int128(i) => js::big_i128(env, *i)?,
        Value::UInt256(b) => big256(env, b, false)?,
        Value::Int256(b) => big256(env, b, true)?,
        Value::Decimal { raw, scale } => decimal_value(env, decimal_to_string(*raw, *scale), m)?,
        Value::Decimal256 { raw, scale } => decimal_value(env, decimal256_to_string(raw, *scale), m)?,
        Value::Time(s) => js::str_val(env, &crate::dates::time_text(*s as i64, 0))?,
        Value::Time64 { ticks, precision } => js::str_val(env, &crate::dates::time_text(*ticks, *precision))?,
        Value::Ipv4(a) => js::str_val(env, &a.to_string())?,
        Value::Ipv6(a) => js::str_val(env, &a.to_string())?,
        Value::Tuple(items) => {
            if !items.is_empty() && items.iter().all(|(n, _)| n.is_some()) {
                let o = js::object(env)?;
                for (n, x) in items {
                    js::set(env, o, n.unwrap_or_default(), value_to_js(env, x, m)?)?;
                }
                o
            } else {
                let arr = js::array(env, items.len())?;
                for (i, (_, x)) in items.iter().enumerate() {
                    js::push(env, arr, i as u32, value_to_js(env, x, m)?)?;
                }
                arr
            }
        }
        Value::Map(entries) => {
            let mut pairs = Vec::with_capacity(entries.len());
            for (k, x) in entries {
                pairs.push((value_to_js(env, k, m)?, value_to_js(env, x, m)?));
            }
            js::new_map(env, &pairs)?
        }
        Value::Interval(n, _) => int(env, *n as i128)?,
        Value::Json(fields) => json_object(env, fields, m)?,
        Value::JsonText(t) => match serde_json::from_slice::<serde_json::Value>(t) {
            Ok(j) => json_to_js(env, &j)?,
            Err(_) => js::bytes_str(env, t)?,
        },
        Value::AggregateState(b) => js::buffer_copy(env, b)?,
        #[allow(unreachable_patterns)]
        _ => js::undefined(env)?,
    })
}

/// `(dotted path, value)` pairs → nested objects (`{"a.b": 1}` → `{a: {b: 1}}`).
fn json_object(env: Env, fields: &[(&str, Value<'_>)], m: Mapping) -> Result<Val> {
    let root = js::object(env)?;
    // Objects made for path prefixes, by prefix.
    let mut made: Vec<(String, Val)> = Vec::new();
    for (path, v) in fields {
        let mut obj = root;
        let mut prefix = String::new();
        let mut parts = path.split('.').peekable();
        while let Some(part) = parts.next() {
            if parts.peek().is_none() {
                js::set(env, obj, part, value_to_js(env, v, m)?)?;
                break;
            }
            if !prefix.is_empty() {
                prefix.push('.');
            }
            prefix.push_str(part);
            obj = match made.iter().find(|(p, _)| *p == prefix) {
                Some((_, o)) => *o,
                None => {
                    let o = js::object(env)?;
                    js::set(env, obj, part, o)?;
                    made.push((prefix.clone(), o));
                    o
                }
            };
        }
    }
    Ok(root)
}

/// Parsed JSON text → JS (integers as in the module docs).
pub fn json_to_js(env: Env, j: &serde_json::Value) -> Result<Val> {
    use serde_json::Value as J;
    Ok(match j {
        J::Null => js::null(env)?,
        J::Bool(b) => js::boolean(env, *b)?,
        J::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => int(env, i as i128)?,
            (None, Some(u)) => int(env, u as i128)?,
            _ => js::number(env, n.as_f64().unwrap_or(f64::NAN))?,
        },
        J::String(s) => js::str_val(env, s)?,
        J::Array(items) => {
            let arr = js::array(env, items.len())?;
            for (i, x) in items.iter().enumerate() {
                js::push(env, arr, i as u32, json_to_js(env, x)?)?;
            }
            arr
        }
        J::Object(o) => {
            let obj = js::object(env)?;
            for (k, x) in o {
                js::set(env, obj, k, json_to_js(env, x)?)?;
            }
            obj
        }
    })
}
