//! How ClickHouse types map to Arrow types: the mapping and the settings ClickHouse users know.

use crate::{Error, Result};

/// Which Arrow types a block's columns get.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mapping {
    /// Every value gets its natural Arrow logical type (timestamps, dictionaries, durations…),
    /// what pandas, Polars, DuckDB and Spark expect. See docs/ARROW.md.
    #[default]
    Rich,
    /// Exactly what ClickHouse 26.9 writes for `FORMAT Arrow`/`ArrowStream` (DateTime as
    /// uint32, Enum as its integer, LowCardinality plain, …), honouring the
    /// `output_format_arrow_*` settings below.
    ClickHouse,
}

impl std::str::FromStr for Mapping {
    type Err = Error;
    /// `rich` or `clickhouse` (any case); anything else is an error, never a default.
    fn from_str(name: &str) -> Result<Mapping> {
        match name.trim().to_ascii_lowercase().as_str() {
            "rich" => Ok(Mapping::Rich),
            "clickhouse" => Ok(Mapping::ClickHouse),
            _ => Err(Error::Setting(format!("unknown Arrow mapping {name:?} (use rich or clickhouse)"))),
        }
    }
}

impl std::fmt::Display for Mapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mapping::Rich => "rich",
            Mapping::ClickHouse => "clickhouse",
        })
    }
}

/// Options of the Block → Arrow conversion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrowOptions {
    /// Which Arrow types the ClickHouse types map to (default [`Mapping::Rich`]).
    pub mapping: Mapping,
    /// `output_format_arrow_low_cardinality_as_dictionary` (ClickHouse mapping; the rich
    /// mapping always writes dictionaries). Default false.
    pub low_cardinality_as_dictionary: bool,
    /// `output_format_arrow_string_as_string`: String as utf8 (each value must be valid
    /// UTF-8, else the conversion is an error naming the row) instead of binary. Default true
    /// (as in ClickHouse 26.9), in both mappings.
    pub string_as_string: bool,
    /// `output_format_arrow_fixed_string_as_fixed_byte_array`: FixedString(N) as
    /// fixed_size_binary(N) instead of binary. Default true, in both mappings.
    pub fixed_string_as_fixed_byte_array: bool,
    /// `output_format_arrow_use_64_bit_indexes_for_string`-like switch of the ClickHouse
    /// mapping: large_utf8/large_binary instead of 32-bit offsets. Default false.
    pub use_64_bit_indexes_for_string: bool,
    /// The zone of `DateTime`/`DateTime64` columns without one (the server's `timezone`;
    /// the client fills it in from the handshake). `None` = "UTC".
    pub default_timezone: Option<String>,
}

impl Default for ArrowOptions {
    fn default() -> Self {
        ArrowOptions {
            mapping: Mapping::Rich,
            low_cardinality_as_dictionary: false,
            string_as_string: true,
            fixed_string_as_fixed_byte_array: true,
            use_64_bit_indexes_for_string: false,
            default_timezone: None,
        }
    }
}

impl ArrowOptions {
    /// The rich mapping with default settings.
    pub fn rich() -> Self {
        Self::default()
    }

    /// ClickHouse 26.9's own mapping with its default settings.
    pub fn clickhouse() -> Self {
        ArrowOptions { mapping: Mapping::ClickHouse, ..Self::default() }
    }

    /// The mapping named `name` (`rich` or `clickhouse`; the option `arrow_mapping` of every
    /// front end) with its default settings. A name that is neither is an error.
    pub fn named(name: &str) -> Result<Self> {
        Ok(ArrowOptions { mapping: name.parse()?, ..Self::default() })
    }

    /// Take ClickHouse's Arrow output settings (`output_format_arrow_*`) out of `settings`
    /// and apply them here: they shape the batches chwire builds and are not sent (the
    /// server, 18.16 among others, may not know them). An unknown one, or a bad value, is an
    /// error (the other settings are left in place).
    pub fn take_settings(&mut self, settings: &mut Vec<(String, String)>) -> Result<()> {
        let mut failed = None;
        settings.retain(|(k, v)| {
            if !k.trim().starts_with("output_format_arrow_") {
                return true;
            }
            if let Err(e) = self.set(k, v) {
                failed.get_or_insert(e);
            }
            false
        });
        failed.map_or(Ok(()), Err)
    }

    /// Set a ClickHouse setting by its name (`output_format_arrow_string_as_string`, with or
    /// without the `output_format_arrow_` prefix) to a value as ClickHouse spells booleans
    /// (`1`/`0`/`true`/`false`). Unknown settings and values are errors.
    pub fn set(&mut self, clickhouse_setting: &str, value: &str) -> Result<()> {
        let name = clickhouse_setting.trim();
        let short = name.strip_prefix("output_format_arrow_").unwrap_or(name);
        let flag = setting_flag(name, value)?;
        match short {
            "low_cardinality_as_dictionary" => self.low_cardinality_as_dictionary = flag,
            "string_as_string" => self.string_as_string = flag,
            "fixed_string_as_fixed_byte_array" => self.fixed_string_as_fixed_byte_array = flag,
            "use_64_bit_indexes_for_string" => self.use_64_bit_indexes_for_string = flag,
            _ => return Err(Error::Setting(format!("unknown Arrow setting {name}"))),
        }
        Ok(())
    }

    pub(crate) fn rich_mode(&self) -> bool {
        self.mapping == Mapping::Rich
    }

    pub(crate) fn timezone_or_default<'a>(&'a self, tz: &'a Option<String>) -> &'a str {
        tz.as_deref().or(self.default_timezone.as_deref()).unwrap_or("UTC")
    }
}

/// A boolean setting's value as ClickHouse spells booleans: `1`/`0`/`true`/`false` (any
/// case, spaces around ignored); anything else is an error naming the setting.
pub fn setting_flag(name: &str, value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" => Ok(true),
        "0" | "false" => Ok(false),
        _ => Err(Error::Setting(format!("{name} = {value:?}: expected 0/1/true/false"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_by_clickhouse_name() {
        let mut o = ArrowOptions::clickhouse();
        o.set("output_format_arrow_low_cardinality_as_dictionary", "1").unwrap();
        o.set("string_as_string", "false").unwrap();
        assert!(o.low_cardinality_as_dictionary);
        assert!(!o.string_as_string);
        assert!(o.set("output_format_arrow_nope", "1").is_err());
        assert!(o.set("string_as_string", "maybe").is_err());
    }

    #[test]
    fn mappings_by_name_and_settings_taken_out() {
        assert_eq!(ArrowOptions::named("ClickHouse").unwrap(), ArrowOptions::clickhouse());
        assert!(ArrowOptions::named("clikhouse").unwrap_err().to_string().contains("unknown Arrow mapping"));
        let mut o = ArrowOptions::rich();
        let mut settings = vec![("max_threads".into(), "2".into()), ("output_format_arrow_string_as_string".into(), "0".into())];
        o.take_settings(&mut settings).unwrap();
        assert_eq!((settings.len(), o.string_as_string), (1, false));
        assert!(o.take_settings(&mut vec![("output_format_arrow_nope".into(), "1".into())]).is_err());
    }
}
