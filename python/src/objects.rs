//! Address and UUID values both ways: Python objects for a whole column at once (`uuid.UUID`
//! and `ipaddress.IPv6Address` values of a `FixedSizeBinary(16)` Arrow array), and their text
//! read by the core's parsers for an insert ([`parse_address`]).
//!
//! Their constructors check and convert each value in Python code (about 1.3 µs per UUID,
//! 1.1 µs per address: most of the time of a DataFrame with such columns). The objects are
//! made here as `object.__new__(cls)` and their slots set as `object.__setattr__` sets them,
//! to the values the constructors would set: UUID's `int` (and `is_safe`, `SafeUUID.unknown`),
//! IPv6Address's `_ip` (and `_scope_id`, None). `python/chwire/_arrays.py` checks the result
//! against the constructors once per process and keeps them if it differs (a Python whose
//! classes store other slots).

use arrow_array::{Array, FixedSizeBinaryArray};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyList, PyString, PyType};
use pyo3_arrow::PyArray;

/// How `kind`'s objects are made: their class, the slot of the value, and the other slot
/// with the value the constructor gives it.
struct Class<'py> {
    class: Bound<'py, PyType>,
    value_slot: Bound<'py, PyString>,
    other_slot: Bound<'py, PyString>,
    other: Bound<'py, PyAny>,
}

impl<'py> Class<'py> {
    fn of(py: Python<'py>, kind: &str) -> PyResult<Class<'py>> {
        let (module, class, value_slot, other_slot) = match kind {
            "UUID" => ("uuid", "UUID", "int", "is_safe"),
            "IPv6" => ("ipaddress", "IPv6Address", "_ip", "_scope_id"),
            other => return Err(PyValueError::new_err(format!("no objects for {other:?}: UUID or IPv6"))),
        };
        let module = py.import(module)?;
        let other = match kind {
            "UUID" => module.getattr("SafeUUID")?.getattr("unknown")?,
            _ => py.None().into_bound(py),
        };
        let class = module.getattr(class)?.cast_into::<PyType>()?;
        // The objects are made as `object.__new__` makes them (`alloc`): only for a class that
        // `object.__new__` makes and allocates generically (a Python class, as CPython's are),
        // checked on each call (a class replaced since is checked too).
        let object_new = py.import("builtins")?.getattr("object")?.getattr("__new__")?;
        // SAFETY: `class` is a live type object; both calls only read it (`PyType_GetSlot` of a
        // heap type, which the flags check first).
        let generic = unsafe {
            ffi::PyType_GetFlags(class.as_type_ptr()) & ffi::Py_TPFLAGS_HEAPTYPE != 0
                && ffi::PyType_GetSlot(class.as_type_ptr(), ffi::Py_tp_alloc) == ffi::PyType_GenericAlloc as *mut std::ffi::c_void
        };
        if !generic || !class.getattr("__new__")?.is(&object_new) {
            return Err(PyTypeError::new_err(format!("{} is not a class chwire builds objects of", class.name()?)));
        }
        Ok(Class { class, value_slot: PyString::intern(py, value_slot), other_slot: PyString::intern(py, other_slot), other })
    }
}

/// `object.__setattr__(obj, name, value)`: the slot set without the class's `__setattr__`
/// (UUID's refuses every assignment).
fn set_slot(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>, value: &Bound<'_, PyAny>) -> PyResult<()> {
    // SAFETY: the three pointers are live objects borrowed for the call; the function
    // returns -1 with an exception set on failure, which `PyErr::fetch` takes.
    let rc = unsafe { ffi::PyObject_GenericSetAttr(obj.as_ptr(), name.as_ptr(), value.as_ptr()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(PyErr::fetch(obj.py()))
    }
}

/// The values of a `FixedSizeBinary(16)` array (UUIDs, or IPv6 addresses in network order) as
/// a list of `uuid.UUID` (`kind` "UUID") or `ipaddress.IPv6Address` ("IPv6") objects, None
/// for nulls.
#[pyfunction]
pub fn column_objects<'py>(py: Python<'py>, array: PyArray, kind: &str) -> PyResult<Bound<'py, PyList>> {
    let Class { class, value_slot, other_slot, other } = Class::of(py, kind)?;
    let values = array.array().as_any().downcast_ref::<FixedSizeBinaryArray>().filter(|a| a.value_length() == 16).ok_or_else(|| {
        PyTypeError::new_err(format!("{kind} objects come from fixed_size_binary(16), not {}", array.array().data_type()))
    })?;
    let shift = 64u32.into_pyobject(py)?;
    let out = PyList::empty(py);
    for i in 0..values.len() {
        if values.is_null(i) {
            out.append(py.None())?;
            continue;
        }
        let bytes: [u8; 16] = values.value(i).try_into().map_err(|_| PyTypeError::new_err("a value of other than 16 bytes"))?;
        let obj = alloc(&class)?;
        set_slot(&obj, &value_slot, &int_of(py, u128::from_be_bytes(bytes), &shift)?)?;
        set_slot(&obj, &other_slot, &other)?;
        // SAFETY: `obj` is live, and untracked only if the collector tracks it; it holds an
        // int and an enum member or None and no `__dict__` (the classes' `__slots__`, which
        // `_arrays._objects_match` checks), so it can be in no reference cycle and the
        // collector need not visit it (CPython untracks tuples of atoms the same way).
        // Tracked, the million objects of a column made each collection walk them all (57 % of
        // the time).
        unsafe {
            if ffi::PyObject_GC_IsTracked(obj.as_ptr()) == 1 {
                ffi::PyObject_GC_UnTrack(obj.as_ptr().cast());
            }
        }
        out.append(obj)?;
    }
    Ok(out)
}

/// `object.__new__(class)`: an instance with its slots unset (what `object.__new__` does for
/// a class without arguments: `tp_alloc`, which is `PyType_GenericAlloc` for a Python class).
fn alloc<'py>(class: &Bound<'py, PyType>) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: `class` is a live type object; the call returns a new reference or NULL with an
    // exception set.
    unsafe { Bound::from_owned_ptr_or_err(class.py(), ffi::PyType_GenericAlloc(class.as_type_ptr(), 0)) }
}

/// A Python int of `v`: from one `unsigned long long` when it fits (IPv4-mapped addresses),
/// else `(high << 64) | low`.
fn int_of<'py>(py: Python<'py>, v: u128, shift: &Bound<'py, PyInt>) -> PyResult<Bound<'py, PyAny>> {
    let low = (v as u64).into_pyobject(py)?;
    let high = (v >> 64) as u64;
    if high == 0 {
        return Ok(low.into_any());
    }
    high.into_pyobject(py)?.lshift(shift)?.bitor(low)
}

/// The value of address or UUID text as an insert stores it, read by the core's parsers (as
/// ClickHouse reads such text: `010.0.0.1` is 10.0.0.1, `1.2.3.4` an IPv6 `::ffff:1.2.3.4`):
/// `kind` "IPv4" an int, "IPv6" and "UUID" 16 bytes (network order, RFC 4122's); None for text
/// that is none.
#[pyfunction]
pub fn parse_address<'py>(py: Python<'py>, text: &str, kind: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(match kind {
        "IPv4" => chwire_text::parse_ipv4(text).map(|a| u32::from(a).into_pyobject(py)).transpose()?.map(|v| v.into_any()),
        "IPv6" => chwire_text::parse_ipv6(text).map(|a| PyBytes::new(py, &a.octets()).into_any()),
        "UUID" => chwire_text::parse_uuid(text.as_bytes()).map(|b| PyBytes::new(py, &b).into_any()),
        other => return Err(PyValueError::new_err(format!("no address text for {other:?}: IPv4, IPv6 or UUID"))),
    })
}
