//! Python values bound to `{name:Type}` placeholders.
//!
//! They go through the Rust client's `Query::param`: server-side parameters where the server
//! has them, typed and escaped `CAST('…' AS Type)` literals on older servers (such as 18.16).
//! Either way a value arrives as data, never as SQL. Values of other Python types (dates,
//! Decimal, UUID, IP addresses) are turned into their text by the Python layer, which the
//! server parses as the placeholder's type.

use chwire::QueryParam;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString, PyTuple};

#[derive(Debug, Clone)]
pub enum Param {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    List(Vec<Param>),
}

impl Param {
    pub fn from_py(v: &Bound<'_, PyAny>) -> PyResult<Param> {
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
            let mut items = v.try_iter()?.map(|x| Param::from_py(&x?)).collect::<PyResult<Vec<Param>>>()?;
            // Ints among floats are floats: one array literal has one element type (['1', 2.5]
            // has no common type on the server).
            if items.iter().any(|p| matches!(p, Param::Float(_))) {
                for p in &mut items {
                    if let Param::Int(i) = *p {
                        *p = Param::Float(i as f64);
                    }
                }
            }
            Ok(Param::List(items))
        } else {
            Err(PyTypeError::new_err(format!(
                "cannot bind a {} as a query parameter (use None, bool, int, float, str or a list of them)",
                v.get_type().name()?
            )))
        }
    }
}

impl QueryParam for Param {
    fn param_text(&self) -> String {
        match self {
            Param::Null => None::<i64>.param_text(),
            Param::Bool(b) => b.param_text(),
            Param::Int(i) => i.param_text(),
            Param::Float(f) => f.param_text(),
            Param::Str(s) => s.param_text(),
            Param::List(_) => self.sql_literal(),
        }
    }

    fn sql_literal(&self) -> String {
        match self {
            Param::Null => None::<i64>.sql_literal(),
            Param::Bool(b) => b.sql_literal(),
            Param::Int(i) => i.sql_literal(),
            Param::Float(f) => f.sql_literal(),
            Param::Str(s) => s.sql_literal(),
            Param::List(items) => items.as_slice().sql_literal(),
        }
    }
}

/// `{name: value}` → bound parameters.
pub fn extract(params: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(String, Param)>> {
    let Some(p) = params else { return Ok(Vec::new()) };
    if p.is_none() {
        return Ok(Vec::new());
    }
    let items = p.call_method0("items")?;
    let mut out = Vec::new();
    for kv in items.try_iter()? {
        let (k, v): (String, Bound<'_, PyAny>) = kv?.extract()?;
        out.push((k, Param::from_py(&v)?));
    }
    Ok(out)
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
