//! Elixir terms → query parameters (`chwire::ParamValue`), each by its placeholder's declared
//! type where the SQL names one.

use crate::terms::{decode_list, deep, int_of, MAX_DEPTH};
use chwire::DataType;
use rustler::{Binary, Term, TermType};

pub use chwire::ParamValue as Param;

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
        (TermType::Float, Some(ty)) if ty.is_integer() => {
            Err(format!("a float for a {ty} parameter: ClickHouse takes no float for an integer (pass an integer)"))
        }
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
        TermType::Integer => Ok(Param::Int(int_of(t).ok_or("an integer beyond 128 bits")?)),
        TermType::Float => Ok(Param::Float(t.decode::<f64>().map_err(|_| "bad float")?)),
        TermType::Binary => {
            let b: Binary<'_> = t.decode().map_err(|_| "bad binary")?;
            String::from_utf8(b.as_slice().to_vec()).map(Param::Str).map_err(|_| "a parameter string that is not UTF-8".to_string())
        }
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
    let types = chwire::placeholder_types(sql);
    list.into_iter()
        .map(|(k, v)| {
            let ty = types.iter().find(|(n, _)| *n == k).and_then(|(_, t)| DataType::parse(t).ok());
            from_term(v, ty.as_ref()).map(|p| (k.clone(), p)).map_err(|e| format!("query parameter {k:?}: {e}"))
        })
        .collect()
}
