//! Option values shared by the database, its connections and statements.

use crate::error::invalid_arg;
use adbc_core::error::Result;
use adbc_core::options::OptionValue;

/// The database option choosing the Arrow mapping of results.
pub const ARROW_MAPPING: &str = "chwire.arrow_mapping";

/// The Arrow options of a mapping's name.
pub fn arrow_options(mapping: Option<&str>) -> Result<chwire_arrow::ArrowOptions> {
    match mapping.unwrap_or("rich") {
        "rich" => Ok(chwire_arrow::ArrowOptions::rich()),
        "clickhouse" => Ok(chwire_arrow::ArrowOptions::clickhouse()),
        m => Err(invalid_arg(format!("unknown Arrow mapping {m:?} (use \"rich\" or \"clickhouse\")"))),
    }
}

pub fn string_value(key: &str, v: OptionValue) -> Result<String> {
    match v {
        OptionValue::String(s) => Ok(s),
        OptionValue::Int(i) => Ok(i.to_string()),
        OptionValue::Double(d) => Ok(d.to_string()),
        _ => Err(invalid_arg(format!("option {key:?} takes a string"))),
    }
}
