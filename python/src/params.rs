//! Python values bound to `{name:Type}` placeholders.
//!
//! They go through the Rust client's `Query::param`: server-side parameters where the server
//! has them, typed and escaped `CAST(literal AS Type)` literals on older servers (such as 18.16).
//! Either way a value arrives as data, never as SQL. Values of other Python types (dates,
//! Decimal, UUID, IP addresses) are turned into their text by the Python layer.
//!
//! A value is first built into a [`Value`] tree by the placeholder's declared type (a tuple or
//! list is a Tuple for `Tuple(...)`, an Array for `Array(...)`, a dict a Map), then rendered by
//! that type ([`Param`]): the server parses a parameter's text with the type's own text
//! parser, which reads the elements of an array, tuple or map in their quoted form (strings
//! quoted, numbers and decimals bare, tuples `(..)`, maps `{k:v}`), at every depth. Rendering
//! without the type sent `[tuple(1,'a')]` (SQL, not the text form), `map('k',2)` inside a tuple
//! and quoted decimals (`['1.5']`), all of which the server refuses.

use chwire::{DataType, QueryParam};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::borrow::Cow;

/// A value as built from Python, before it is rendered by its placeholder's type.
pub use chwire::ParamValue as Value;

/// A value rendered for its placeholder: the text of a server-side parameter and the SQL
/// literal of client-side binding (servers before revision 54459, e.g. 18.16).
#[derive(Debug, Clone, PartialEq)]
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

impl Param {
    /// `v` rendered as its placeholder's type `ty` reads it (by the value alone where the
    /// type is unknown).
    pub fn render(v: &Value, ty: Option<&DataType>) -> Param {
        let text = match v {
            // The server's escaped text form at the top: `\N`, numbers, unquoted escaped text.
            Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => v.param_text(),
            Value::List(_) | Value::Tuple(_) | Value::Map(_) => quoted(v, ty),
        };
        let literal = match v {
            // Cast to the placeholder's type by the client-side binding itself.
            Value::Str(s) => s.sql_literal(),
            _ => literal(v, ty),
        };
        Param { text, literal }
    }
}

/// A value inside an array, tuple or map of a parameter's text: what the type's quoted text
/// parser reads.
fn quoted(v: &Value, ty: Option<&DataType>) -> String {
    let ty = ty.map(plain);
    let ty = ty.as_deref();
    match v {
        Value::Null => "NULL".into(),
        Value::Bool(_) | Value::Int(_) | Value::Float(_) => v.param_text(),
        // Numbers are bare in the quoted form: a decimal (from Python's Decimal, as text) or a
        // wide integer for a number type goes as its digits, checked to be a number, so that
        // no text can change the structure around it.
        Value::Str(s) if ty.is_some_and(is_number) && is_number_text(s) => s.clone(),
        Value::Str(s) => s.sql_literal(),
        Value::List(items) => format!("[{}]", join(items.iter().map(|x| quoted(x, element(ty))))),
        Value::Tuple(items) => format!("({})", join(items.iter().enumerate().map(|(i, x)| quoted(x, tuple_element(ty, i))))),
        Value::Map(entries) => {
            let (k, t) = map_types(ty);
            format!("{{{}}}", join(entries.iter().map(|(key, x)| format!("{}:{}", quoted(key, k), quoted(x, t)))))
        }
    }
}

/// The value as an SQL literal (client-side binding casts it: `CAST(literal AS Type)`).
/// Text is always quoted there: a decimal as a bare number would be a Float64 to the SQL
/// parser (`CAST(-12.3456 AS Decimal(18, 4))` is -12.3455 on 18.16), and quoted text is what
/// CAST parses exactly as the declared type. Every text in a literal is a quoted, escaped
/// string (the types in it are the placeholder's own): data, never SQL.
fn literal(v: &Value, ty: Option<&DataType>) -> String {
    let ty = ty.map(plain);
    let ty = ty.as_deref();
    match v {
        // An integer beyond 64 bits is a Float64 literal to ClickHouse's SQL parser.
        Value::Int(i) if i64::try_from(*i).is_err() && u64::try_from(*i).is_err() => format!("'{i}'"),
        // Text for a number type (a decimal) cast to it element by element: 18.16 cannot cast
        // an `Array(Nullable(String))` holding NULLs to `Array(Nullable(Decimal(9, 2)))`.
        Value::Str(s) if ty.is_some_and(is_number) => format!("CAST({} AS {})", s.sql_literal(), ty.expect("checked")),
        Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => v.sql_literal(),
        Value::List(items) => format!("[{}]", join(items.iter().map(|x| literal(x, element(ty))))),
        // `tuple(x)`: `(x)` is x itself in SQL.
        Value::Tuple(items) => format!("tuple({})", join(items.iter().enumerate().map(|(i, x)| literal(x, tuple_element(ty, i))))),
        Value::Map(entries) => {
            let (k, t) = map_types(ty);
            format!("map({})", join(entries.iter().map(|(key, x)| format!("{},{}", literal(key, k), literal(x, t)))))
        }
    }
}

fn join(parts: impl Iterator<Item = String>) -> String {
    parts.collect::<Vec<_>>().join(",")
}

/// Whether values of `ty` are numbers in ClickHouse's text forms.
fn is_number(ty: &DataType) -> bool {
    ty.is_integer() || matches!(ty, DataType::Float32 | DataType::Float64 | DataType::BFloat16 | DataType::Decimal { .. } | DataType::Bool)
}

/// Text that is a decimal number (`-12.5`, `1e-3`, `inf`, `nan`) and nothing else.
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
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    !(int.is_empty() && frac.is_empty()) && digits(int) && digits(frac) && exponent_ok
}

/// The element type of an array type.
fn element(ty: Option<&DataType>) -> Option<&DataType> {
    match ty {
        Some(DataType::Array(t)) => Some(t),
        _ => None,
    }
}

/// The type of element `i` of a tuple type.
fn tuple_element(ty: Option<&DataType>, i: usize) -> Option<&DataType> {
    match ty {
        Some(DataType::Tuple(items)) => items.get(i).map(|(_, t)| t),
        _ => None,
    }
}

/// The key and value types of a map type.
fn map_types(ty: Option<&DataType>) -> (Option<&DataType>, Option<&DataType>) {
    match ty {
        Some(DataType::Map(k, v)) => (Some(k), Some(v)),
        _ => (None, None),
    }
}

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

impl Instant {
    /// `YYYY-MM-DD hh:mm:ss[.ffffff]` in the zone a DateTime/DateTime64 placeholder `ty` reads
    /// it in; UTC for others (a String placeholder gets the UTC time).
    fn text(&self, ty: Option<&DataType>, server_tz: Option<&str>) -> String {
        let zone = match ty {
            Some(DataType::DateTime(tz) | DataType::DateTime64 { tz, .. }) => tz.as_deref().or(server_tz),
            _ => None,
        };
        let mut out = Vec::new();
        chwire_text::push_datetime(&mut out, self.micros.div_euclid(1_000_000), zone, &chwire_text::TimeZone::UTC);
        let mut text = String::from_utf8_lossy(&out).into_owned();
        let fraction = self.micros.rem_euclid(1_000_000);
        if fraction != 0 {
            text.push_str(format!(".{fraction:06}").trim_end_matches('0'));
        }
        text
    }
}

/// The parameter for `v`, built by the placeholder's declared type `ty` where that decides
/// (a Python tuple or list for a `Tuple(...)` is a tuple, for an `Array(...)` an array, a
/// dict for a `Map(...)` a map); without it, as the value's own type says.
pub fn from_py(v: &Bound<'_, PyAny>, ty: Option<&DataType>, server_tz: Option<&str>) -> PyResult<Value> {
    let ty = ty.map(plain);
    let ty = ty.as_deref();
    if let Ok(at) = v.cast::<Instant>() {
        return Ok(Value::Str(at.get().text(ty, server_tz)));
    }
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
            return values.iter().zip(items).map(|(x, (_, t))| from_py(x, Some(t), server_tz)).collect::<PyResult<_>>().map(Value::Tuple);
        }
        Some(DataType::Array(inner)) if sequence => return list(v, Some(inner), server_tz),
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
                entries.push((from_py(&key, Some(k), server_tz)?, from_py(&value, Some(t), server_tz)?));
            }
            return Ok(Value::Map(entries));
        }
        _ => {}
    }
    untyped(v, server_tz)
}

/// The elements of a list or tuple as an array (of `inner` where it is known).
fn list(v: &Bound<'_, PyAny>, inner: Option<&DataType>, server_tz: Option<&str>) -> PyResult<Value> {
    let items = v.try_iter()?.map(|x| from_py(&x?, inner, server_tz)).collect::<PyResult<Vec<Value>>>()?;
    Value::list(items).map_err(PyTypeError::new_err)
}

fn untyped(v: &Bound<'_, PyAny>, server_tz: Option<&str>) -> PyResult<Value> {
    if v.is_none() {
        Ok(Value::Null)
    } else if v.is_instance_of::<PyBool>() {
        Ok(Value::Bool(v.extract()?))
    } else if v.is_instance_of::<PyInt>() {
        // Beyond 128 bits (a UInt256) as its digits, which are bare where the type is a number.
        Ok(v.extract().map(Value::Int).or_else(|_| v.str().map(|s| Value::Str(s.to_string())))?)
    } else if v.is_instance_of::<PyFloat>() {
        Ok(Value::Float(v.extract()?))
    } else if v.is_instance_of::<PyString>() {
        Ok(Value::Str(v.extract()?))
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        list(v, None, server_tz)
    } else {
        Err(PyTypeError::new_err(format!(
            "cannot bind a {} as a query parameter (use None, bool, int, float, str, a list or tuple of them, or a dict for a Map)",
            v.get_type().name()?
        )))
    }
}

/// The type without the wrappers that do not change a value's literal, and alias types
/// (Nested, the geo types, SimpleAggregateFunction) as the types they are stored as, whose
/// text they are read as.
fn plain(ty: &DataType) -> Cow<'_, DataType> {
    match ty {
        DataType::Nullable(t) | DataType::LowCardinality(t) => plain(t),
        DataType::Nested(_) | DataType::Geo(_) | DataType::SimpleAggregateFunction { .. } => match ty.storage() {
            Some(t) => Cow::Owned(plain(&t).into_owned()),
            None => Cow::Borrowed(ty),
        },
        t => Cow::Borrowed(t),
    }
}

/// `{name: value}` → bound parameters, each built by its placeholder's type in `sql`;
/// `server_tz` is the server's time zone, in which it reads a DateTime without one.
pub fn extract(params: Option<&Bound<'_, PyAny>>, sql: &str, server_tz: Option<&str>) -> PyResult<Vec<(String, Param)>> {
    let Some(p) = params else { return Ok(Vec::new()) };
    if p.is_none() {
        return Ok(Vec::new());
    }
    let items = p.call_method0("items")?;
    let types = chwire::sql::placeholder_types(sql);
    let mut out = Vec::new();
    for kv in items.try_iter()? {
        let (k, v): (String, Bound<'_, PyAny>) = kv?.extract()?;
        let ty = types.iter().find(|(n, _)| *n == k).and_then(|(_, t)| DataType::parse(t).ok());
        let value = from_py(&v, ty.as_ref(), server_tz).map_err(|e| in_param(p.py(), &k, e))?;
        out.push((k, Param::render(&value, ty.as_ref())));
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
