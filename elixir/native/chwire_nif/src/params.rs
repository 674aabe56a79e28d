//! Elixir terms → query parameters, each by its placeholder's declared type where the SQL
//! names one.
//!
//! A value is built by that type: integers checked against its range at every width (a 26.9
//! server parses `300` for Int8 as 44, as 18.16's `CAST` literal wraps it), wide integers and
//! decimals kept as their exact digits, enum numbers as their names, Time counts as the time
//! text, IPv4/IPv6 tuples (as they are read) as address text, maps for JSON as JSON text. The
//! leaves are rendered by the core (`QueryParam` of strings, numbers, booleans); composites
//! here, in the two forms a server reads: the quoted text of server-side parameters (an
//! array, tuple or map nested in another is `[..]`, `(..)`, `{k:v}` again, never the SQL
//! functions `tuple(..)`/`map(..)`), and SQL literals for `CAST` on servers without them.

use crate::terms::{decode_list, deep, int256_bytes, int_of, int_text, u128_of, MAX_DEPTH};
use chwire::{DataType, QueryParam};
use rustler::{Binary, Term, TermType};

/// One parameter value.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    Null,
    Bool(bool),
    Int(i128),
    /// An exact number as its digits (a sign, a fraction): integers beyond 128 bits, decimals.
    Num(String),
    Float(f64),
    Str(String),
    List(Vec<Param>),
    Tuple(Vec<Param>),
    Map(Vec<(Param, Param)>),
}

impl QueryParam for Param {
    fn param_text(&self) -> String {
        match self {
            Param::Null => None::<i64>.param_text(),
            Param::Bool(b) => b.param_text(),
            Param::Int(i) => i.param_text(),
            Param::Num(s) => s.clone(),
            Param::Float(f) => f.param_text(),
            Param::Str(s) => s.param_text(),
            Param::List(_) | Param::Tuple(_) | Param::Map(_) => self.quoted(),
        }
    }

    fn sql_literal(&self) -> String {
        match self {
            Param::Null => None::<i64>.sql_literal(),
            Param::Bool(b) => b.sql_literal(),
            Param::Int(i) => i.sql_literal(),
            // A bare number with a fraction or beyond 64 bits is a Float64 to the SQL parser;
            // CAST of its quoted text is exact.
            Param::Num(s) => format!("'{s}'"),
            Param::Float(f) => f.sql_literal(),
            Param::Str(s) => s.sql_literal(),
            Param::List(items) => format!("[{}]", join(items, Param::sql_literal)),
            // `tuple(x)`: `(x)` is x itself in SQL.
            Param::Tuple(items) => format!("tuple({})", join(items, Param::sql_literal)),
            Param::Map(entries) => {
                format!(
                    "map({})",
                    entries.iter().map(|(k, v)| format!("{},{}", k.sql_literal(), v.sql_literal())).collect::<Vec<_>>().join(",")
                )
            }
        }
    }
}

impl Param {
    /// The value as ClickHouse's quoted text reads it inside a composite parameter.
    fn quoted(&self) -> String {
        match self {
            Param::Null => "NULL".into(),
            Param::Num(s) => s.clone(),
            // nan, inf and subnormals as text (a subnormal's SQL literal is a function call).
            Param::Float(f) => f.param_text(),
            Param::Bool(_) | Param::Int(_) | Param::Str(_) => self.sql_literal(),
            Param::List(items) => format!("[{}]", join(items, Param::quoted)),
            Param::Tuple(items) => format!("({})", join(items, Param::quoted)),
            Param::Map(entries) => {
                format!("{{{}}}", entries.iter().map(|(k, v)| format!("{}:{}", k.quoted(), v.quoted())).collect::<Vec<_>>().join(","))
            }
        }
    }

    /// A list of `items`, which one array literal gives one element type: integers among
    /// floats become floats; one that no float holds exactly (beyond 2^53) is an error, never
    /// rounded.
    fn list(mut items: Vec<Param>) -> Result<Param, String> {
        if items.iter().any(|p| matches!(p, Param::Float(_))) {
            for p in &mut items {
                if let Param::Int(i) = *p {
                    let f = i as f64;
                    if f as i128 != i {
                        return Err(format!(
                            "{i} among floats would be rounded to {f}: a list has one element type (bind ints and floats apart)"
                        ));
                    }
                    *p = Param::Float(f);
                }
            }
        }
        Ok(Param::List(items))
    }
}

fn join(items: &[Param], f: fn(&Param) -> String) -> String {
    items.iter().map(f).collect::<Vec<_>>().join(",")
}

fn plain(ty: &DataType) -> &DataType {
    match ty {
        DataType::Nullable(t) | DataType::LowCardinality(t) => plain(t),
        t => t,
    }
}

pub fn from_term(t: Term<'_>, ty: Option<&DataType>) -> Result<Param, String> {
    typed(t, ty, 0)
}

fn typed(t: Term<'_>, ty: Option<&DataType>, depth: u32) -> Result<Param, String> {
    deep(|| typed_here(t, ty, depth))
}

fn typed_here(t: Term<'_>, ty: Option<&DataType>, depth: u32) -> Result<Param, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    let depth = depth + 1;
    let ty = ty.map(plain);
    match (t.get_type(), ty) {
        (TermType::Tuple, Some(DataType::Tuple(items))) => {
            let elems = rustler::types::tuple::get_tuple(t).map_err(|_| "not a tuple".to_string())?;
            if elems.len() != items.len() {
                return Err(format!("a tuple of {} for a {} of {} elements", elems.len(), DataType::Tuple(items.clone()), items.len()));
            }
            elems.iter().zip(items).map(|(x, (_, it))| typed(*x, Some(it), depth)).collect::<Result<_, _>>().map(Param::Tuple)
        }
        (TermType::List, Some(DataType::Array(inner))) => term_list(t, Some(inner), depth),
        (TermType::List, Some(DataType::QBit { element, .. })) => term_list(t, Some(element), depth),
        (TermType::List, Some(DataType::Nested(fields))) => {
            let row = DataType::Tuple(fields.iter().map(|(n, t)| (Some(n.clone()), t.clone())).collect());
            term_list(t, Some(&row), depth)
        }
        (TermType::Float, Some(ty)) if ty.is_integer() => {
            Err(format!("a float for a {ty} parameter: ClickHouse takes no float for an integer (pass an integer)"))
        }
        (TermType::Integer, Some(ty)) if ty.is_integer() => int_param(t, ty),
        (TermType::Integer, Some(DataType::Decimal { .. })) => Ok(Param::Num(int_text(t).ok_or("an integer beyond 256 bits")?)),
        (TermType::Binary, Some(DataType::Decimal { .. })) => {
            let s = utf8(t)?;
            // Exact digits go unquoted inside composites (`['1.25']` is no Array(Decimal)).
            Ok(if is_number(&s) { Param::Num(s) } else { Param::Str(s) })
        }
        (TermType::Integer, Some(ty @ (DataType::Enum8(_) | DataType::Enum16(_)))) => {
            // By its name: a server takes a number for an enum only outside arrays and tuples.
            let v = t.decode::<i64>().map_err(|_| format!("an integer that is no value of {ty}"))?;
            let name = match ty {
                DataType::Enum8(items) => items.iter().find(|(_, e)| i64::from(*e) == v).map(|(n, _)| n),
                DataType::Enum16(items) => items.iter().find(|(_, e)| i64::from(*e) == v).map(|(n, _)| n),
                _ => None,
            };
            Ok(Param::Str(name.ok_or_else(|| format!("{v} is not a value of {ty}"))?.clone()))
        }
        // Time and Time64 are read as counts (seconds, ticks); the server parses their text.
        (TermType::Integer, Some(DataType::Time)) => Ok(Param::Str(time_text(t.decode().map_err(|_| "a Time beyond 64 bits")?, 0))),
        (TermType::Integer, Some(DataType::Time64(p))) => {
            Ok(Param::Str(time_text(t.decode().map_err(|_| "a Time64 beyond 64 bits")?, u32::from(*p))))
        }
        (TermType::Tuple, Some(DataType::Ipv4)) => {
            let o = tuple_ints(t, 4, 255).ok_or("an IPv4 tuple is {a, b, c, d} of 0..255")?;
            Ok(Param::Str(std::net::Ipv4Addr::new(o[0] as u8, o[1] as u8, o[2] as u8, o[3] as u8).to_string()))
        }
        (TermType::Tuple, Some(DataType::Ipv6)) => {
            let s = tuple_ints(t, 8, 65535).ok_or("an IPv6 tuple is 8 integers of 0..65535")?;
            let s: Vec<u16> = s.iter().map(|&x| x as u16).collect();
            Ok(Param::Str(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]).to_string()))
        }
        (TermType::Map, Some(DataType::Json { .. })) => Ok(Param::Str(crate::json::encode(t)?)),
        (TermType::Map, Some(DataType::Map(k, v))) => {
            let mut out = Vec::new();
            for (key, value) in rustler::types::map::MapIterator::new(t).ok_or("not a map")? {
                out.push((typed(key, Some(k), depth)?, typed(value, Some(v), depth)?));
            }
            Ok(Param::Map(out))
        }
        _ => param_untyped(t, depth),
    }
}

/// An integer for an integer type, checked against the type's range.
fn int_param(t: Term<'_>, ty: &DataType) -> Result<Param, String> {
    use DataType as D;
    let out = || format!("{} is out of the range of {ty}", int_text(t).unwrap_or_else(|| "an integer beyond 256 bits".into()));
    let (lo, hi): (i128, i128) = match ty {
        D::Int8 => (i8::MIN.into(), i8::MAX.into()),
        D::Int16 => (i16::MIN.into(), i16::MAX.into()),
        D::Int32 => (i32::MIN.into(), i32::MAX.into()),
        D::Int64 => (i64::MIN.into(), i64::MAX.into()),
        D::UInt8 => (0, u8::MAX.into()),
        D::UInt16 => (0, u16::MAX.into()),
        D::UInt32 => (0, u32::MAX.into()),
        D::UInt64 => (0, u64::MAX.into()),
        D::Int128 => (i128::MIN, i128::MAX),
        D::UInt128 => {
            let v = u128_of(t).ok_or_else(out)?;
            return Ok(i128::try_from(v).map_or_else(|_| Param::Num(v.to_string()), Param::Int));
        }
        D::Int256 | D::UInt256 => {
            int256_bytes(t, matches!(ty, D::Int256)).ok_or_else(out)?;
            return Ok(Param::Num(int_text(t).ok_or_else(out)?));
        }
        _ => return Err(out()),
    };
    match int_of(t) {
        Some(v) if (lo..=hi).contains(&v) => Ok(Param::Int(v)),
        _ => Err(out()),
    }
}

/// `[-]HH:MM:SS[.fraction]` of `ticks` at `precision` digits (Time: seconds, precision 0).
fn time_text(ticks: i64, precision: u32) -> String {
    let sign = if ticks < 0 { "-" } else { "" };
    let scale = 10u64.pow(precision);
    let abs = ticks.unsigned_abs();
    let (secs, frac) = (abs / scale, abs % scale);
    let hms = format!("{sign}{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if precision == 0 {
        hms
    } else {
        format!("{hms}.{frac:0width$}", width = precision as usize)
    }
}

/// Digits with an optional sign and one decimal point (nothing that could end an element).
fn is_number(s: &str) -> bool {
    let d = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = d.split_once('.').unwrap_or((d, "0"));
    !int.is_empty() && !frac.is_empty() && int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit())
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

fn term_list(t: Term<'_>, inner: Option<&DataType>, depth: u32) -> Result<Param, String> {
    let items: Vec<Term<'_>> = decode_list(t).map_err(|_| "not a proper list".to_string())?;
    Param::list(items.into_iter().map(|x| typed(x, inner, depth)).collect::<Result<Vec<_>, _>>()?)
}

fn param_untyped(t: Term<'_>, depth: u32) -> Result<Param, String> {
    match t.get_type() {
        TermType::Atom => match t.atom_to_string().unwrap_or_default().as_str() {
            "nil" => Ok(Param::Null),
            "true" => Ok(Param::Bool(true)),
            "false" => Ok(Param::Bool(false)),
            "nan" => Ok(Param::Float(f64::NAN)),
            "infinity" => Ok(Param::Float(f64::INFINITY)),
            "neg_infinity" => Ok(Param::Float(f64::NEG_INFINITY)),
            a => Err(format!("cannot bind the atom :{a} (use nil, true, false or a string)")),
        },
        TermType::Integer => match int_of(t) {
            Some(v) => Ok(Param::Int(v)),
            None => Ok(Param::Num(int_text(t).ok_or("an integer beyond 256 bits")?)),
        },
        TermType::Float => Ok(Param::Float(t.decode::<f64>().map_err(|_| "bad float")?)),
        TermType::Binary => utf8(t).map(Param::Str),
        TermType::List => term_list(t, None, depth),
        TermType::Tuple => rustler::types::tuple::get_tuple(t)
            .map_err(|_| "bad tuple".to_string())?
            .into_iter()
            .map(|x| typed(x, None, depth))
            .collect::<Result<_, _>>()
            .map(Param::Tuple),
        TermType::Map => {
            let mut out = Vec::new();
            for (k, v) in rustler::types::map::MapIterator::new(t).ok_or("not a map")? {
                out.push((typed(k, None, depth)?, typed(v, None, depth)?));
            }
            Ok(Param::Map(out))
        }
        other => Err(format!("cannot bind a {other:?} as a query parameter")),
    }
}

/// `[{name, value}]` → parameters, each by its placeholder's declared type in `sql`.
pub fn params(list: Vec<(String, Term<'_>)>, sql: &str) -> Result<Vec<(String, Param)>, String> {
    let types = chwire::sql::placeholder_types(sql);
    list.into_iter()
        .map(|(k, v)| {
            let ty = types.iter().find(|(n, _)| *n == k).and_then(|(_, t)| DataType::parse(t).ok());
            from_term(v, ty.as_ref()).map(|p| (k.clone(), p)).map_err(|e| format!("query parameter {k:?}: {e}"))
        })
        .collect()
}
