//! Elixir terms → query parameters.
//!
//! Each term becomes a [`ParamValue`] as Elixir types it (a list is a sequence, a tuple a
//! tuple, a map a map, `nil`/`true`/`false` what they say); the core shapes it by the
//! placeholder's declared type and renders it ([`QuerySpec::bind`], the rules every front end
//! shares: ranges at every width, an integer for an Enum as its name, Time counts as time
//! text, a list for a Tuple as a tuple). What only Elixir's own terms need, by the type, stays
//! here: IPv4/IPv6 tuples (as `:inet` has them) as address text, and maps for a JSON
//! placeholder as JSON text (atom keys and all).

use crate::terms::{decode_list, deep, int_of, int_text, MAX_DEPTH};
use chwire::{DataType, ParamValue, QuerySpec};
use rustler::{Binary, Term, TermType};

/// The term as a parameter value; `ty` (the placeholder's declared type) only decides how
/// Elixir's own values read (address tuples, JSON maps).
fn value(t: Term<'_>, ty: Option<&DataType>, depth: u32) -> Result<ParamValue, String> {
    deep(|| value_here(t, ty, depth))
}

fn value_here(t: Term<'_>, ty: Option<&DataType>, depth: u32) -> Result<ParamValue, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    let depth = depth + 1;
    let ty = ty.map(plain);
    match (t.get_type(), ty) {
        (TermType::Tuple, Some(DataType::Ipv4)) => {
            let o = tuple_ints(t, 4, 255).ok_or("an IPv4 tuple is {a, b, c, d} of 0..255")?;
            return Ok(ParamValue::Str(std::net::Ipv4Addr::new(o[0] as u8, o[1] as u8, o[2] as u8, o[3] as u8).to_string()));
        }
        (TermType::Tuple, Some(DataType::Ipv6)) => {
            let s = tuple_ints(t, 8, 65535).ok_or("an IPv6 tuple is 8 integers of 0..65535")?;
            let s: Vec<u16> = s.iter().map(|&x| x as u16).collect();
            return Ok(ParamValue::Str(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]).to_string()));
        }
        (TermType::Map, Some(DataType::Json { .. })) => return Ok(ParamValue::Str(crate::json::encode(t)?)),
        _ => {}
    }
    // The element types of composites, for the address tuples and JSON maps inside them.
    let element = |i: usize| -> Option<&DataType> {
        match ty {
            Some(DataType::Array(e)) => Some(e),
            Some(DataType::Tuple(items)) => items.get(i).map(|(_, t)| t),
            _ => None,
        }
    };
    match t.get_type() {
        TermType::Atom => match t.atom_to_string().unwrap_or_default().as_str() {
            "nil" => Ok(ParamValue::Null),
            "true" => Ok(ParamValue::Bool(true)),
            "false" => Ok(ParamValue::Bool(false)),
            "nan" => Ok(ParamValue::Float(f64::NAN)),
            "infinity" => Ok(ParamValue::Float(f64::INFINITY)),
            "neg_infinity" => Ok(ParamValue::Float(f64::NEG_INFINITY)),
            a => Err(format!("cannot bind the atom :{a} (use nil, true, false or a string)")),
        },
        TermType::Integer => match int_of(t) {
            Some(v) => Ok(ParamValue::Int(v)),
            None => Ok(ParamValue::Number(
                int_text(t).ok_or("an integer outside the range of every ClickHouse integer type (beyond 256 bits)")?,
            )),
        },
        TermType::Float => Ok(ParamValue::Float(t.decode::<f64>().map_err(|_| "bad float")?)),
        TermType::Binary => utf8(t).map(ParamValue::Str),
        TermType::List => {
            let items: Vec<Term<'_>> = decode_list(t).map_err(|_| "not a proper list".to_string())?;
            let items = items.into_iter().enumerate().map(|(i, x)| value(x, element(i), depth)).collect::<Result<Vec<_>, _>>()?;
            ParamValue::list(items).map_err(|e| e.to_string())
        }
        TermType::Tuple => rustler::types::tuple::get_tuple(t)
            .map_err(|_| "bad tuple".to_string())?
            .into_iter()
            .enumerate()
            .map(|(i, x)| value(x, element(i), depth))
            .collect::<Result<_, _>>()
            .map(ParamValue::Tuple),
        TermType::Map => {
            let (kt, vt) = match ty {
                Some(DataType::Map(k, v)) => (Some(&**k), Some(&**v)),
                _ => (None, None),
            };
            let mut out = Vec::new();
            for (k, v) in rustler::types::map::MapIterator::new(t).ok_or("not a map")? {
                out.push((value(k, kt, depth)?, value(v, vt, depth)?));
            }
            Ok(ParamValue::Map(out))
        }
        other => Err(format!("cannot bind a {other:?} as a query parameter")),
    }
}

/// The type without Nullable and LowCardinality around it.
fn plain(ty: &DataType) -> &DataType {
    match ty {
        DataType::Nullable(t) | DataType::LowCardinality(t) => plain(t),
        t => t,
    }
}

fn utf8(t: Term<'_>) -> Result<String, String> {
    let b: Binary<'_> = t.decode().map_err(|_| "bad binary")?;
    String::from_utf8(b.as_slice().to_vec()).map_err(|_| "a parameter string that is not UTF-8".to_string())
}

fn tuple_ints(t: Term<'_>, n: usize, max: i64) -> Option<Vec<i64>> {
    let items = rustler::types::tuple::get_tuple(t).ok()?;
    if items.len() != n {
        return None;
    }
    items.iter().map(|x| x.decode::<i64>().ok().filter(|v| (0..=max).contains(v))).collect()
}

/// `[{name, value}]` → `spec`'s parameters, each shaped by its placeholder's declared type.
pub fn bind_all(spec: &mut QuerySpec, list: Vec<(String, Term<'_>)>) -> Result<(), String> {
    for (k, v) in list {
        let ty = chwire::sql::placeholder_types(&spec.sql).into_iter().find(|(n, _)| *n == k).and_then(|(_, t)| DataType::parse(&t).ok());
        let named = |e: &dyn std::fmt::Display| format!("query parameter {k:?}: {e}");
        let val = value(v, ty.as_ref(), 0).map_err(|e| named(&e))?;
        spec.bind(k.clone(), &val, None).map_err(|e| named(&e))?;
    }
    Ok(())
}
