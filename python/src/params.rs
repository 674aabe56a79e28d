//! Python values bound to `{name:Type}` placeholders.
//!
//! Each value becomes a [`ParamValue`] as Python types it (a list or tuple is a sequence, a
//! dict a map, a `datetime` an instant); the core shapes it by the placeholder's declared type
//! and renders it ([`ParamValue::bind`]: the rules every front end shares). Binding is done
//! here, before the query starts, so that a value that does not fit raises at the call: a
//! `TypeError` for the wrong kind or shape, a `DataError` for a number out of its type's
//! range. Values of other Python types (dates, Decimal, UUID, IP addresses) are turned into
//! their text by the Python layer.

use crate::errors::Error;
use chwire::{ParamError, ParamValue, QuerySpec};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// A point in time, a Python `datetime` as microseconds since the epoch (the Python layer
/// makes one: an aware datetime at its instant, a naive one taken as UTC). The server reads a
/// DateTime parameter's text as a wall-clock time in the placeholder's zone, else its own: the
/// text is written in that zone. (Written as UTC text, a datetime came 5:30 early from a
/// server in Asia/Kolkata.)
#[pyclass(module = "chwire._chwire", name = "Instant", frozen)]
pub struct Instant {
    micros: i64,
}

#[pymethods]
impl Instant {
    #[new]
    fn new(micros: i64) -> Self {
        Instant { micros }
    }
}

/// `v` as a parameter value, by its Python type.
fn from_py(v: &Bound<'_, PyAny>) -> PyResult<ParamValue> {
    if let Ok(at) = v.cast::<Instant>() {
        return Ok(ParamValue::Instant(at.get().micros));
    }
    if v.is_none() {
        Ok(ParamValue::Null)
    } else if v.is_instance_of::<PyBool>() {
        Ok(ParamValue::Bool(v.extract()?))
    } else if v.is_instance_of::<PyInt>() {
        // Beyond 128 bits (a UInt256) as its digits.
        Ok(v.extract().map(ParamValue::Int).or_else(|_| v.str().map(|s| ParamValue::Number(s.to_string())))?)
    } else if v.is_instance_of::<PyFloat>() {
        Ok(ParamValue::Float(v.extract()?))
    } else if v.is_instance_of::<PyString>() {
        Ok(ParamValue::Str(v.extract()?))
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items = v.try_iter()?.map(|x| from_py(&x?)).collect::<PyResult<Vec<_>>>()?;
        ParamValue::list(items).map_err(|e| PyTypeError::new_err(e.to_string()))
    } else if v.is_instance_of::<PyDict>() {
        let mut entries = Vec::new();
        for kv in v.call_method0("items")?.try_iter()? {
            let (key, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = kv?.extract()?;
            entries.push((from_py(&key)?, from_py(&value)?));
        }
        Ok(ParamValue::Map(entries))
    } else {
        Err(PyTypeError::new_err(format!(
            "cannot bind a {} as a query parameter (use None, bool, int, float, str, a list or tuple of them, or a dict for a Map)",
            v.get_type().name()?
        )))
    }
}

/// Bind `{name: value}` to `spec`'s placeholders, each shaped by its declared type;
/// `server_tz` is the server's time zone, in which it reads a DateTime without one.
pub fn bind_all(spec: &mut QuerySpec, params: Option<&Bound<'_, PyAny>>, server_tz: Option<&str>) -> PyResult<()> {
    let Some(p) = params else { return Ok(()) };
    if p.is_none() {
        return Ok(());
    }
    let py = p.py();
    for kv in p.call_method0("items")?.try_iter()? {
        let (k, v): (String, Bound<'_, PyAny>) = kv?.extract()?;
        let named = |e: &dyn std::fmt::Display| format!("query parameter {k:?}: {e}");
        let value =
            from_py(&v).map_err(|e| if e.is_instance_of::<PyTypeError>(py) { PyTypeError::new_err(named(&e.value(py))) } else { e })?;
        spec.bind(k.clone(), &value, server_tz).map_err(|e| match e {
            ParamError::Range(m) => Error::Data(named(&m)).into_py(py),
            other => PyTypeError::new_err(named(&other)),
        })?;
    }
    Ok(())
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
