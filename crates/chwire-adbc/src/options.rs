//! Option values shared by the database, its connections and statements.

use crate::error::invalid_arg;
use adbc_core::error::Result;
use adbc_core::options::OptionValue;

/// The database option choosing the Arrow mapping of results.
pub const ARROW_MAPPING: &str = "chwire.arrow_mapping";

/// The Arrow options of a mapping's name (the core's `arrow_mapping`).
pub fn arrow_options(mapping: Option<&str>) -> Result<chwire_arrow::ArrowOptions> {
    chwire_arrow::ArrowOptions::named(mapping.unwrap_or("rich")).map_err(|e| invalid_arg(e.to_string()))
}

pub fn string_value(key: &str, v: OptionValue) -> Result<String> {
    match v {
        OptionValue::String(s) => Ok(s),
        OptionValue::Int(i) => Ok(i.to_string()),
        OptionValue::Double(d) => Ok(d.to_string()),
        _ => Err(invalid_arg(format!("option {key:?} takes a string"))),
    }
}

/// Arrow output settings (`output_format_arrow_*`, e.g. `string_as_string = 0` for String
/// values that are not UTF-8, as docs/ARROW.md names them) shape the batches the driver builds:
/// they are taken out of `settings` and applied to `arrow`, not sent (the server, 18.16 among
/// others, may not know them). As the Python package does with its settings.
pub fn take_arrow_settings(settings: &mut Vec<(String, String)>, arrow: &mut chwire_arrow::ArrowOptions) -> Result<()> {
    arrow.take_settings(settings).map_err(|e| invalid_arg(e.to_string()))
}
