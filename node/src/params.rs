//! JavaScript values bound to `{name:Type}` placeholders, and per-call settings.
//!
//! A value is built by its placeholder's declared type (an array is a Tuple for `Tuple(...)`,
//! an Array for `Array(...)`, a `Map` or plain object a Map for `Map(...)`, an object JSON text
//! for `JSON`), then rendered in the two forms a server reads: the quoted text of server-side
//! parameters and, for servers without them (18.16), a SQL literal for `CAST`. Either way the
//! value is data, never SQL. Numbers: an integer placeholder refuses a fraction (`1.5`) and a
//! value outside its range, as the Python and Elixir bindings do.

use crate::error::{Error, Result};
use crate::js::{self, Env, Kind, Val};
use chwire::{DataType, ParamValue as V, QueryParam};

/// A value rendered for its placeholder.
#[derive(Debug, Clone)]
pub struct Param {
    text: String,
    literal: String,
}

impl QueryParam for Param {
    fn param_text(&self) -> String {
        self.text.clone()
    }
    fn sql_literal(&self) -> String {
        self.literal.clone()
    }
}

// CORE: chwire::ParamValue renders nested tuples and maps as SQL (`tuple(..)`, `map(..)`) in
// server-side parameter text, which servers refuse; this renders by the placeholder's type
// (the Python binding's rules, python/src/params.rs).
impl Param {
    fn render(v: &V, ty: Option<&DataType>) -> Param {
        let text = match v {
            V::Null | V::Bool(_) | V::Int(_) | V::Float(_) | V::Str(_) => v.param_text(),
            V::List(_) | V::Tuple(_) | V::Map(_) => quoted(v, ty),
        };
        let literal = match v {
            V::Str(s) => s.sql_literal(),
            _ => literal(v, ty),
        };
        Param { text, literal }
    }
}

fn plain(ty: &DataType) -> DataType {
    match ty {
        DataType::Nullable(t) | DataType::LowCardinality(t) => plain(t),
        DataType::Nested(_) | DataType::Geo(_) | DataType::SimpleAggregateFunction { .. } => match ty.storage() {
            Some(t) => plain(&t),
            None => ty.clone(),
        },
        t => t.clone(),
    }
}

fn is_number(ty: &DataType) -> bool {
    ty.is_integer() || matches!(ty, DataType::Float32 | DataType::Float64 | DataType::BFloat16 | DataType::Decimal { .. } | DataType::Bool)
}

fn is_number_text(s: &str) -> bool {
    let t = s.strip_prefix(['-', '+']).unwrap_or(s);
    if ["inf", "infinity", "nan"].iter().any(|w| t.eq_ignore_ascii_case(w)) {
        return true;
    }
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(at) => (&t[..at], Some(&t[at + 1..])),
        None => (t, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |d: &str| d.bytes().all(|c| c.is_ascii_digit());
    let exp_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    !(int.is_empty() && frac.is_empty()) && digits(int) && digits(frac) && exp_ok
}

fn element(ty: Option<&DataType>) -> Option<&DataType> {
    match ty {
        Some(DataType::Array(t)) => Some(t),
        _ => None,
    }
}

fn tuple_element(ty: Option<&DataType>, i: usize) -> Option<&DataType> {
    match ty {
        Some(DataType::Tuple(items)) => items.get(i).map(|(_, t)| t),
        _ => None,
    }
}

fn map_types(ty: Option<&DataType>) -> (Option<&DataType>, Option<&DataType>) {
    match ty {
        Some(DataType::Map(k, v)) => (Some(k), Some(v)),
        _ => (None, None),
    }
}

fn join(parts: impl Iterator<Item = String>) -> String {
    parts.collect::<Vec<_>>().join(",")
}

fn quoted(v: &V, ty: Option<&DataType>) -> String {
    let ty = ty.map(plain);
    let ty = ty.as_ref();
    match v {
        V::Null => "NULL".into(),
        V::Bool(_) | V::Int(_) | V::Float(_) => v.param_text(),
        V::Str(s) if ty.is_some_and(is_number) && is_number_text(s) => s.clone(),
        V::Str(s) => s.sql_literal(),
        V::List(items) => format!("[{}]", join(items.iter().map(|x| quoted(x, element(ty))))),
        V::Tuple(items) => format!("({})", join(items.iter().enumerate().map(|(i, x)| quoted(x, tuple_element(ty, i))))),
        V::Map(entries) => {
            let (k, t) = map_types(ty);
            format!("{{{}}}", join(entries.iter().map(|(key, x)| format!("{}:{}", quoted(key, k), quoted(x, t)))))
        }
    }
}

fn literal(v: &V, ty: Option<&DataType>) -> String {
    let ty = ty.map(plain);
    let ty = ty.as_ref();
    match v {
        V::Int(i) if i64::try_from(*i).is_err() && u64::try_from(*i).is_err() => format!("'{i}'"),
        V::Str(s) if ty.is_some_and(is_number) => match ty {
            Some(t) => format!("CAST({} AS {t})", s.sql_literal()),
            None => s.sql_literal(),
        },
        V::Null | V::Bool(_) | V::Int(_) | V::Float(_) | V::Str(_) => v.sql_literal(),
        V::List(items) => format!("[{}]", join(items.iter().map(|x| literal(x, element(ty))))),
        V::Tuple(items) => format!("tuple({})", join(items.iter().enumerate().map(|(i, x)| literal(x, tuple_element(ty, i))))),
        V::Map(entries) => {
            let (k, t) = map_types(ty);
            format!("map({})", join(entries.iter().map(|(key, x)| format!("{},{}", literal(key, k), literal(x, t)))))
        }
    }
}

/// The range of an integer type within i128 (`None`: 256-bit, checked on the bigint's words;
/// UInt128 beyond i128 too).
fn int_range(ty: &DataType) -> Option<(i128, i128)> {
    Some(match ty {
        DataType::UInt8 => (0, u8::MAX as i128),
        DataType::UInt16 => (0, u16::MAX as i128),
        DataType::UInt32 => (0, u32::MAX as i128),
        DataType::UInt64 => (0, u64::MAX as i128),
        DataType::Int8 => (i8::MIN as i128, i8::MAX as i128),
        DataType::Int16 => (i16::MIN as i128, i16::MAX as i128),
        DataType::Int32 => (i32::MIN as i128, i32::MAX as i128),
        DataType::Int64 => (i64::MIN as i128, i64::MAX as i128),
        DataType::Int128 => (i128::MIN, i128::MAX),
        DataType::UInt128 => (0, i128::MAX),
        _ => return None,
    })
}

/// A `Date` as the wall-clock text of the zone a DateTime placeholder reads it in (the type's,
/// else the server's), UTC for other placeholders.
fn date_text(ms: f64, ty: Option<&DataType>, server_tz: Option<&str>) -> Result<String> {
    if !ms.is_finite() {
        return Err(Error::Range("an invalid Date".into()));
    }
    let zone = match ty {
        Some(DataType::DateTime(tz) | DataType::DateTime64 { tz, .. }) => tz.as_deref().or(server_tz),
        _ => None,
    };
    let ms = ms as i64;
    let mut out = Vec::new();
    chwire_text::push_datetime(&mut out, ms.div_euclid(1000), zone, &chwire_text::TimeZone::UTC);
    let mut text = String::from_utf8_lossy(&out).into_owned();
    let frac = ms.rem_euclid(1000);
    if frac != 0 {
        text.push_str(&format!(".{frac:03}"));
    }
    Ok(text)
}

/// A JS value as a parameter value, built by the placeholder's type `ty` where that decides.
pub fn value(env: Env, v: Val, ty: Option<&DataType>, server_tz: Option<&str>) -> Result<V> {
    let ty = ty.map(plain);
    let ty = ty.as_ref();
    let k = js::kind(env, v)?;
    match k {
        Kind::Undefined | Kind::Null => return Ok(V::Null),
        Kind::Boolean => return Ok(V::Bool(js::bool_of(env, v)?)),
        Kind::String => return Ok(V::Str(js::string(env, v)?)),
        Kind::Number => {
            let f = js::f64_of(env, v)?;
            if let Some(t) = ty.filter(|t| t.is_integer()) {
                if f.fract() != 0.0 || !f.is_finite() {
                    return Err(Error::Type(format!(
                        "{} for a {t} parameter: ClickHouse takes no fraction for an integer",
                        js::js_number_text(f)
                    )));
                }
                check_range(f as i128, t)?;
                return Ok(V::Int(f as i128));
            }
            if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 {
                return Ok(V::Int(f as i128));
            }
            return Ok(V::Float(f));
        }
        Kind::BigInt => {
            return match js::bigint(env, v)? {
                Some(i) if !matches!(ty, Some(DataType::Int256 | DataType::UInt256)) => {
                    if let Some(t) = ty {
                        check_range(i, t)?;
                    }
                    Ok(V::Int(i))
                }
                _ => {
                    // Beyond 128 bits, or a 256-bit placeholder: the server wraps what does not
                    // fit (2^256 became 0), so the range is checked here.
                    let (neg, words) = js::bigint_words(env, v)?;
                    let text = words_text(neg, &words);
                    let fits = match ty {
                        Some(DataType::Int256) => crate::wide::wide(neg, &words, true).is_some(),
                        Some(DataType::UInt256) => crate::wide::wide(neg, &words, false).is_some(),
                        Some(DataType::UInt128) => !neg && words.iter().skip(2).all(|&w| w == 0),
                        Some(t) if t.is_integer() => false,
                        _ => true,
                    };
                    if !fits {
                        return Err(Error::Range(format!("{text} does not fit {}", ty.map(|t| t.to_string()).unwrap_or_default())));
                    }
                    Ok(V::Str(text))
                }
            };
        }
        _ => {}
    }
    if js::is_date(env, v)? {
        return Ok(V::Str(date_text(js::date_ms(env, v)?, ty, server_tz)?));
    }
    if matches!(ty, Some(DataType::Json { .. })) {
        return Ok(V::Str(crate::json::json_text(env, v)?));
    }
    if js::is_array(env, v)? {
        let items = js::elements(env, v)?;
        return match ty {
            Some(DataType::Tuple(types)) => {
                if items.len() != types.len() {
                    return Err(Error::Type(format!(
                        "{} values for a {} of {} elements",
                        items.len(),
                        DataType::Tuple(types.clone()),
                        types.len()
                    )));
                }
                items.iter().zip(types).map(|(x, (_, t))| value(env, *x, Some(t), server_tz)).collect::<Result<_>>().map(V::Tuple)
            }
            _ => {
                let inner = element(ty);
                let vals = items.iter().map(|x| value(env, *x, inner, server_tz)).collect::<Result<Vec<_>>>()?;
                V::list(vals).map_err(Error::Type)
            }
        };
    }
    if js::is_map(env, v)? || matches!(ty, Some(DataType::Map(..))) {
        let pairs = if js::is_map(env, v)? {
            js::map_entries(env, v)?
        } else {
            js::entries(env, v)?.into_iter().map(|(k, x)| Ok((js::str_val(env, &k)?, x))).collect::<Result<Vec<_>>>()?
        };
        let (kt, vt) = map_types(ty);
        let mut out = Vec::new();
        for (key, x) in pairs {
            out.push((value(env, key, kt, server_tz)?, value(env, x, vt, server_tz)?));
        }
        return Ok(V::Map(out));
    }
    Err(Error::Type(format!(
        "cannot bind {} as a query parameter (use null, a boolean, number, bigint, string, Date, an array, a Map or an object for a Map/JSON)",
        js::describe(env, v)
    )))
}

fn check_range(i: i128, t: &DataType) -> Result<()> {
    if let Some((lo, hi)) = int_range(t) {
        if i < lo || i > hi {
            return Err(Error::Range(format!("{i} is outside the range of {t}")));
        }
    }
    Ok(())
}

pub fn words_text(neg: bool, words: &[u64]) -> String {
    // Decimal digits of a big magnitude by repeated division.
    let mut w: Vec<u64> = words.to_vec();
    let mut digits = Vec::new();
    while w.iter().any(|&x| x != 0) {
        let mut rem = 0u128;
        for x in w.iter_mut().rev() {
            let cur = (rem << 64) | *x as u128;
            *x = (cur / 10) as u64;
            rem = cur % 10;
        }
        digits.push(b'0' + rem as u8);
    }
    if digits.is_empty() {
        digits.push(b'0');
    }
    if neg {
        digits.push(b'-');
    }
    digits.reverse();
    String::from_utf8(digits).unwrap_or_default()
}

/// `{name: value}` parameters for `sql`, each by its placeholder's type.
pub fn extract(env: Env, params: Option<Val>, sql: &str, server_tz: Option<&str>) -> Result<Vec<(String, Param)>> {
    let Some(p) = params else { return Ok(Vec::new()) };
    let types = chwire::placeholder_types(sql);
    let mut out = Vec::new();
    for (name, v) in js::entries(env, p)? {
        let ty = types.iter().find(|(n, _)| *n == name).and_then(|(_, t)| DataType::parse(t).ok());
        let val = value(env, v, ty.as_ref(), server_tz).map_err(|e| match e {
            Error::Type(m) => Error::Type(format!("query parameter {name:?}: {m}")),
            Error::Range(m) => Error::Range(format!("query parameter {name:?}: {m}")),
            e => e,
        })?;
        out.push((name, Param::render(&val, ty.as_ref())));
    }
    Ok(out)
}

/// `{name: value}` settings as text (booleans 0/1).
pub fn settings(env: Env, s: Option<Val>) -> Result<Vec<(String, String)>> {
    let Some(s) = s else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for (k, v) in js::entries(env, s)? {
        out.push((k, scalar_text(env, v)?));
    }
    Ok(out)
}

/// A setting's or option's value as text: strings as they are, numbers as JS prints them,
/// booleans as 1/0, bigints as digits.
pub fn scalar_text(env: Env, v: Val) -> Result<String> {
    Ok(match js::kind(env, v)? {
        Kind::String => js::string(env, v)?,
        Kind::Number => js::js_number_text(js::f64_of(env, v)?),
        Kind::Boolean => if js::bool_of(env, v)? { "1" } else { "0" }.into(),
        Kind::BigInt => {
            let (neg, words) = js::bigint_words(env, v)?;
            words_text(neg, &words)
        }
        _ => {
            return Err(Error::Type(format!(
                "a setting or option must be a string, number, bigint or boolean, not {}",
                js::describe(env, v)
            )))
        }
    })
}
