//! JavaScript values bound to `{name:Type}` placeholders, and per-call settings.
//!
//! Each value becomes a [`ParamValue`] as JavaScript types it (an array is a sequence, a `Map`
//! or plain object a map, a `Date` an instant, a whole number an integer); the core shapes it
//! by the placeholder's declared type and renders it ([`QuerySpec::bind`]: the rules every
//! front end shares: an array is a Tuple for `Tuple(...)`, an object is JSON text for `JSON`,
//! an integer outside its type's range is refused). A value of the wrong kind is a `TypeError`,
//! a number out of range a `RangeError`, both naming the parameter, before anything is sent.

use crate::error::{Error, Result};
use crate::js::{self, Env, Kind, Val};
use chwire::{ParamError, ParamValue as V, QuerySpec};

/// A JS value as a parameter value, by its JavaScript type.
fn value(env: Env, v: Val, depth: usize) -> Result<V> {
    if depth > 64 {
        return Err(Error::Type("a parameter nested deeper than 64 levels".into()));
    }
    match js::kind(env, v)? {
        Kind::Undefined | Kind::Null => return Ok(V::Null),
        Kind::Boolean => return Ok(V::Bool(js::bool_of(env, v)?)),
        Kind::String => return Ok(V::Str(js::string(env, v)?)),
        Kind::Number => {
            let f = js::f64_of(env, v)?;
            // A whole number JS holds exactly is an integer; the core refuses a fraction for an
            // integer placeholder.
            return Ok(if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 { V::Int(f as i128) } else { V::Float(f) });
        }
        Kind::BigInt => {
            return Ok(match js::bigint(env, v)? {
                Some(i) => V::Int(i),
                None => {
                    let (neg, words) = js::bigint_words(env, v)?;
                    V::Number(words_text(neg, &words))
                }
            });
        }
        _ => {}
    }
    if js::is_date(env, v)? {
        // A PreciseDate (DateTime64 beyond milliseconds) keeps its microseconds, the core's
        // finest instant; nanoseconds beyond them are refused, never cut (text carries them).
        if let Some(ns) = js::opt(env, v, "epochNanoseconds")?.filter(|n| matches!(js::kind(env, *n), Ok(Kind::BigInt))) {
            if let Some(ns) = js::bigint(env, ns)? {
                if ns.rem_euclid(1000) != 0 {
                    return Err(Error::Range(
                        "a PreciseDate with nanoseconds: a parameter holds microseconds (give it as text, every digit kept)".into(),
                    ));
                }
                let micros =
                    i64::try_from(ns.div_euclid(1000)).map_err(|_| Error::Range("a PreciseDate beyond 64-bit microseconds".into()))?;
                return Ok(V::Instant(micros));
            }
        }
        let ms = js::date_ms(env, v)?;
        if !ms.is_finite() {
            return Err(Error::Range("an invalid Date".into()));
        }
        return Ok(V::Instant((ms as i64).saturating_mul(1000)));
    }
    if js::is_array(env, v)? {
        let items = js::elements(env, v)?.into_iter().map(|x| value(env, x, depth + 1)).collect::<Result<Vec<_>>>()?;
        return V::list(items).map_err(|e| Error::Type(e.to_string()));
    }
    let pairs = if js::is_map(env, v)? {
        js::map_entries(env, v)?
            .into_iter()
            .map(|(k, x)| Ok((value(env, k, depth + 1)?, value(env, x, depth + 1)?)))
            .collect::<Result<Vec<_>>>()?
    } else if matches!(js::kind(env, v)?, Kind::Object) {
        js::entries(env, v)?.into_iter().map(|(k, x)| Ok((V::Str(k), value(env, x, depth + 1)?))).collect::<Result<Vec<_>>>()?
    } else {
        return Err(Error::Type(format!(
            "cannot bind {} as a query parameter (use null, a boolean, number, bigint, string, Date, an array, a Map or an object for a Map/JSON)",
            js::describe(env, v)
        )));
    };
    Ok(V::Map(pairs))
}

/// Bind `{name: value}` parameters to `spec`'s placeholders; `server_tz` is the zone the server
/// reads a DateTime without one in.
pub fn bind_all(env: Env, params: Option<Val>, spec: &mut QuerySpec, server_tz: Option<&str>) -> Result<()> {
    let Some(p) = params else { return Ok(()) };
    for (name, v) in js::entries(env, p)? {
        let named = |m: &dyn std::fmt::Display| format!("query parameter {name:?}: {m}");
        let val = value(env, v, 0).map_err(|e| match e {
            Error::Type(m) => Error::Type(named(&m)),
            Error::Range(m) => Error::Range(named(&m)),
            e => e,
        })?;
        spec.bind(name.clone(), &val, server_tz).map_err(|e| match e {
            ParamError::Range(m) => Error::Range(named(&m)),
            other => Error::Type(named(&other)),
        })?;
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
