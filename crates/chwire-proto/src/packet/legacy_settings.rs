//! Settings in the binary form of protocol revisions below 54429 (ClickHouse before 19.11,
//! e.g. 18.16).
//!
//! Those servers read each setting's value by the setting's own type: a VarUInt for the
//! integer, boolean, time and `max_threads` settings, a zig-zag VarInt for the few Int64 ones,
//! and a length-prefixed string for floats, strings, characters and enumerations. The value's
//! encoding must therefore follow the setting's name, never the value's looks: a string sent
//! where the server reads a VarUInt (`max_threads = abc`) puts the stream out of step — the
//! server reads the string's length as the value and its bytes as further settings (a value
//! could carry `readonly = 1`) or waits for bytes that never come. A value that does not fit
//! its setting's binary form is therefore an error before anything is sent.
//!
//! The names and types are those of ClickHouse 18.x's `Settings.h` (with the string-typed
//! settings 19.1–19.10 added); a name not listed is taken as an integer setting, so a string
//! value for an unlisted string setting is refused rather than misframed.

use crate::error::EncodeError;
use crate::wire::WriteExt;

use super::setting::Setting;

/// Settings written as strings: floats, strings, characters and enumerations.
const STRING_SETTINGS: &[&str] = &[
    // Float
    "totals_auto_threshold",
    "max_streams_to_max_threads_ratio",
    "memory_tracker_fault_probability",
    "input_format_allow_errors_ratio",
    // String, Char
    "count_distinct_implementation",
    "format_schema",
    "send_logs_level",
    "format_csv_delimiter",
    "format_template_resultset",
    "format_template_row",
    "format_template_rows_between_delimiter",
    // Enumerations
    "load_balancing",
    "totals_mode",
    "network_compression_method",
    "distributed_product_mode",
    "join_default_strictness",
    "date_time_input_format",
    "read_overflow_mode",
    "group_by_overflow_mode",
    "sort_overflow_mode",
    "result_overflow_mode",
    "timeout_overflow_mode",
    "set_overflow_mode",
    "join_overflow_mode",
    "transfer_overflow_mode",
    "distinct_overflow_mode",
];

/// Settings written as zig-zag VarInt.
const INT64_SETTINGS: &[&str] = &["network_zstd_compression_level", "http_zlib_compression_level", "distributed_ddl_task_timeout"];

/// Append `s` in the binary form of revisions below 54429; an error (and nothing appended)
/// when its value does not fit the setting's type.
pub(super) fn encode(s: &Setting, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let name = s.name.as_str();
    let value = s.value.trim();
    let refuse = |kind: &str, hint: &str| {
        EncodeError::Invalid(format!(
            "setting {name} = {:?}: servers before protocol revision 54429 (ClickHouse 19.11) take {name} as {kind}, \
             which the value is not (a setting of another type that chwire does not know can go in the query's SETTINGS clause){hint}",
            s.value
        ))
    };
    if STRING_SETTINGS.contains(&name) {
        out.put_str(name);
        out.put_str(&s.value);
    } else if INT64_SETTINGS.contains(&name) {
        let v: i64 = value.parse().map_err(|_| refuse("a signed 64-bit integer", ""))?;
        out.put_str(name);
        out.put_varuint(((v << 1) ^ (v >> 63)) as u64);
    } else {
        let v = match value.to_ascii_lowercase().as_str() {
            "true" => 1,
            "false" => 0,
            "auto" if name == "max_threads" => 0, // `auto` is written as 0
            // The integer settings are not listed: the name may be no setting at all.
            digits => digits.parse::<u64>().map_err(|_| {
                refuse(
                    "an unsigned 64-bit integer",
                    &format!(
                        "; if {name} is meant as a connection option or is misspelled: it is neither an option of chwire's nor \
                         a string, float or enumeration setting that chwire knows"
                    ),
                )
            })?,
        };
        out.put_str(name);
        out.put_varuint(v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(name: &str, value: &str) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        encode(&Setting { name: name.into(), value: value.into(), important: true }, &mut out).map(|()| out)
    }

    #[test]
    fn each_value_takes_its_settings_binary_form() {
        assert_eq!(enc("max_threads", "2").unwrap(), b"\x0bmax_threads\x02");
        assert_eq!(enc("max_threads", " auto ").unwrap(), b"\x0bmax_threads\x00");
        assert_eq!(enc("extremes", "True").unwrap(), b"\x08extremes\x01");
        assert_eq!(enc("load_balancing", "random").unwrap(), b"\x0eload_balancing\x06random");
        // A float or string setting stays a string even when the value looks like an integer.
        assert_eq!(enc("totals_auto_threshold", "1").unwrap(), b"\x15totals_auto_threshold\x011");
        assert_eq!(enc("format_csv_delimiter", "1").unwrap(), b"\x14format_csv_delimiter\x011");
        assert_eq!(enc("network_zstd_compression_level", "-1").unwrap(), b"\x1enetwork_zstd_compression_level\x01");
    }

    #[test]
    fn values_that_do_not_fit_are_refused_before_a_byte_is_written() {
        for (name, value) in [
            ("max_threads", "abc"),
            ("max_threads", "-1"),
            ("max_block_size", "1.5"),
            ("max_memory_usage", "1e9"),
            ("readonly", "x"),
            ("send_timeout", "10s"),
            // A VarUInt setting whose value carries a second setting: must not reach the wire.
            ("max_threads", "\x08readonly\x01"),
            ("network_zstd_compression_level", "high"),
            ("an_unknown_string_setting", "value"),
        ] {
            let e = enc(name, value).unwrap_err();
            assert!(e.to_string().starts_with(&format!("setting {name} = ")), "{e}");
            assert!(e.to_string().contains("SETTINGS clause"), "{e}");
        }
        assert!(enc("max_threads", "abc").unwrap_err().to_string().contains("an unsigned 64-bit integer"));
        assert!(enc("conect_timeout", "5s").unwrap_err().to_string().contains("misspelled"), "a typo of an option is named as one");
    }
}
