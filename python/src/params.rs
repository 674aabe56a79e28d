//! Python values bound to `{name:Type}` placeholders.
//!
//! They go through the Rust client's `Query::param`: server-side parameters where the server
//! has them, typed and escaped `CAST('…' AS Type)` literals on older servers (such as 18.16).
//! Either way a value arrives as data, never as SQL. Values of other Python types (dates,
//! Decimal, UUID, IP addresses) are turned into their text by the Python layer, which the
//! server parses as the placeholder's type.

use chwire::DataType;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

pub use chwire::ParamValue as Param;

/// The parameter for `v`, built by the placeholder's declared type `ty` where that decides
/// (a Python tuple or list for a `Tuple(...)` is a tuple, for an `Array(...)` an array, a
/// dict for a `Map(...)` a map); without it, as the value's own type says.
pub fn from_py(v: &Bound<'_, PyAny>, ty: Option<&DataType>) -> PyResult<Param> {
    let ty = ty.map(plain);
    let sequence = v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>();
    match ty {
        Some(DataType::Tuple(items)) if sequence => {
            let values: Vec<Bound<'_, PyAny>> = v.try_iter()?.collect::<PyResult<_>>()?;
            if values.len() != items.len() {
                return Err(PyTypeError::new_err(format!(
                    "{} values for a {} of {} elements",
                    values.len(),
                    DataType::Tuple(items.clone()),
                    items.len()
                )));
            }
            return values.iter().zip(items).map(|(x, (_, t))| from_py(x, Some(t))).collect::<PyResult<_>>().map(Param::Tuple);
        }
        Some(DataType::Array(inner)) if sequence => return list(v, Some(inner)),
        // The server refuses `1.5` for an integer parameter (BAD_QUERY_PARAMETER); the
        // CAST literal of old servers would cut it to 1.
        Some(t) if t.is_integer() && v.is_instance_of::<PyFloat>() => {
            return Err(PyTypeError::new_err(format!(
                "{} for a {t} parameter: ClickHouse takes no float for an integer (pass an int)",
                v.repr()?
            )));
        }
        Some(DataType::Map(k, t)) if v.is_instance_of::<PyDict>() => {
            let mut entries = Vec::new();
            for kv in v.call_method0("items")?.try_iter()? {
                let (key, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = kv?.extract()?;
                entries.push((from_py(&key, Some(k))?, from_py(&value, Some(t))?));
            }
            return Ok(Param::Map(entries));
        }
        _ => {}
    }
    untyped(v)
}

/// The elements of a list or tuple as an array (of `inner` where it is known).
fn list(v: &Bound<'_, PyAny>, inner: Option<&DataType>) -> PyResult<Param> {
    let items = v.try_iter()?.map(|x| from_py(&x?, inner)).collect::<PyResult<Vec<Param>>>()?;
    Param::list(items).map_err(PyTypeError::new_err)
}

fn untyped(v: &Bound<'_, PyAny>) -> PyResult<Param> {
    if v.is_none() {
        Ok(Param::Null)
    } else if v.is_instance_of::<PyBool>() {
        Ok(Param::Bool(v.extract()?))
    } else if v.is_instance_of::<PyInt>() {
        Ok(Param::Int(v.extract()?))
    } else if v.is_instance_of::<PyFloat>() {
        Ok(Param::Float(v.extract()?))
    } else if v.is_instance_of::<PyString>() {
        Ok(Param::Str(v.extract()?))
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        list(v, None)
    } else {
        Err(PyTypeError::new_err(format!(
            "cannot bind a {} as a query parameter (use None, bool, int, float, str, a list or tuple of them, or a dict for a Map)",
            v.get_type().name()?
        )))
    }
}

/// The type without the wrappers that do not change a value's literal.
fn plain(ty: &DataType) -> &DataType {
    match ty {
        DataType::Nullable(t) | DataType::LowCardinality(t) => plain(t),
        t => t,
    }
}

/// `{name: value}` → bound parameters, each built by its placeholder's type in `sql`.
pub fn extract(params: Option<&Bound<'_, PyAny>>, sql: &str) -> PyResult<Vec<(String, Param)>> {
    let Some(p) = params else { return Ok(Vec::new()) };
    if p.is_none() {
        return Ok(Vec::new());
    }
    let items = p.call_method0("items")?;
    let types = chwire::placeholder_types(sql);
    let mut out = Vec::new();
    for kv in items.try_iter()? {
        let (k, v): (String, Bound<'_, PyAny>) = kv?.extract()?;
        let ty = types.iter().find(|(n, _)| *n == k).and_then(|(_, t)| DataType::parse(t).ok());
        out.push((k.clone(), from_py(&v, ty.as_ref()).map_err(|e| in_param(p.py(), &k, e))?));
    }
    Ok(out)
}

/// A parameter's type error, naming it.
fn in_param(py: Python<'_>, name: &str, e: PyErr) -> PyErr {
    if e.is_instance_of::<PyTypeError>(py) {
        PyTypeError::new_err(format!("query parameter {name:?}: {}", e.value(py)))
    } else {
        e
    }
}

/// `{name: value}` settings → text pairs (bools become 0/1).
pub fn settings(s: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(String, String)>> {
    let Some(s) = s else { return Ok(Vec::new()) };
    if s.is_none() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for kv in s.call_method0("items")?.try_iter()? {
        let (k, v): (String, Bound<'_, PyAny>) = kv?.extract()?;
        let text = if v.is_instance_of::<PyBool>() {
            if v.extract::<bool>()? {
                "1".to_string()
            } else {
                "0".to_string()
            }
        } else {
            v.str()?.to_string()
        };
        out.push((k, text));
    }
    Ok(out)
}
