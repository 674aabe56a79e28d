//! Strings in each style's quoting and escaping.

use crate::Style;
use std::io::Write;

/// Text that no style escapes (digits and `-: .`: dates, times), written in place with the
/// style's quotes.
pub(crate) fn write_safe_text(out: &mut Vec<u8>, style: Style, text: impl FnOnce(&mut Vec<u8>)) {
    let quote = match style {
        Style::Quoted => Some(b'\''),
        Style::Csv | Style::Json => Some(b'"'),
        Style::Tsv | Style::Pretty => None,
    };
    out.extend(quote);
    text(out);
    out.extend(quote);
}

/// A string in `style`'s quoting and escaping.
pub fn write_string(out: &mut Vec<u8>, s: &[u8], style: Style) {
    match style {
        Style::Tsv => {
            for &b in s {
                match b {
                    b'\t' => out.extend_from_slice(b"\\t"),
                    b'\n' => out.extend_from_slice(b"\\n"),
                    b'\r' => out.extend_from_slice(b"\\r"),
                    b'\\' => out.extend_from_slice(b"\\\\"),
                    b'\'' => out.extend_from_slice(b"\\'"),
                    0 => out.extend_from_slice(b"\\0"),
                    8 => out.extend_from_slice(b"\\b"),
                    12 => out.extend_from_slice(b"\\f"),
                    _ => out.push(b),
                }
            }
        }
        Style::Quoted => {
            out.push(b'\'');
            write_string(out, s, Style::Tsv);
            out.push(b'\'');
        }
        Style::Csv => {
            out.push(b'"');
            for &b in s {
                if b == b'"' {
                    out.push(b'"');
                }
                out.push(b);
            }
            out.push(b'"');
        }
        Style::Json => write_json_string(out, s),
        Style::Pretty => out.extend_from_slice(String::from_utf8_lossy(s).replace('\n', "\\n").replace('\t', "\\t").as_bytes()),
    }
}

/// A JSON string as ClickHouse writes it: bytes as they are (no UTF-8 repair), `"` `\\`
/// and `/` escaped, control characters as `\\b \\f \\n \\r \\t` or `\\u00XX`, and U+2028/U+2029
/// escaped.
pub fn write_json_string(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'/' => out.extend_from_slice(b"\\/"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            8 => out.extend_from_slice(b"\\b"),
            12 => out.extend_from_slice(b"\\f"),
            0..=0x1f => {
                let _ = write!(out, "\\u{:04X}", b);
            }
            0xe2 if s.get(i + 1) == Some(&0x80) && matches!(s.get(i + 2), Some(0xa8 | 0xa9)) => {
                let _ = write!(out, "\\u{}", if s[i + 2] == 0xa8 { "2028" } else { "2029" });
                i += 2;
            }
            _ => out.push(b),
        }
        i += 1;
    }
    out.push(b'"');
}
