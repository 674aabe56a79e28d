//! The compiled part of the `chwire` Python package (`chwire._chwire`).
//!
//! Data crosses into Python as Arrow buffers (the Arrow C data interface via `pyo3-arrow`),
//! never as per-value objects; the Python layer (python/chwire) adds pandas, Polars, NumPy,
//! rows, asyncio and the DB-API on top.

mod client;
mod errors;
mod objects;
mod params;
mod runtime;
mod spark;
mod stream;

use pyo3::prelude::*;

// chwire's ADBC driver (crates/chwire-adbc) is part of this module: linking it makes the
// module's shared object export the driver's entrypoints (`AdbcDriverChwireInit`,
// `AdbcDriverInit`), so an ADBC driver manager loads `chwire/_chwire.*.so` itself as the driver
// (`chwire.adbc.driver_path()`) and a wheel built by plain `pip install` carries it. The
// manager dlopens it inside a Python process, where the interpreter's symbols the module uses
// are already present. Python code does not call the driver through this module.
use adbc_driver_chwire as _;

#[pymodule]
fn _chwire(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<client::RawClient>()?;
    m.add_class::<stream::QueryStream>()?;
    m.add_class::<params::Instant>()?;
    m.add_function(wrap_pyfunction!(stream::read_native, m)?)?;
    m.add_function(wrap_pyfunction!(client::sql_table, m)?)?;
    m.add_function(wrap_pyfunction!(client::sql_identifier, m)?)?;
    m.add_function(wrap_pyfunction!(client::check_insert_options, m)?)?;
    m.add_function(wrap_pyfunction!(client::sql_text_spans, m)?)?;
    m.add_function(wrap_pyfunction!(client::sql_insert_values, m)?)?;
    m.add_function(wrap_pyfunction!(objects::column_objects, m)?)?;
    m.add_function(wrap_pyfunction!(objects::parse_address, m)?)?;
    spark::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
