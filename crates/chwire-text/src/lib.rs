//! ClickHouse's text rendering of values, as its TSV, CSV, JSONEachRow and Pretty formats
//! print them (ClickHouse 26.9 is the authority: the conformance oracle compares this
//! output with its own). No IO: everything renders into a `Vec<u8>`.
//!
//! Used by the CLI's text writers and by chwire-arrow, which writes Dynamic and JSON
//! columns as JSON text, as ClickHouse does.

#![warn(missing_docs)]

mod address;
mod datetime;
mod float;
mod strings;

pub use address::{parse_ipv4, parse_ipv6};
pub use datetime::{push_date, push_datetime, time_text};
pub use float::{write_float, write_float32};
pub use jiff::tz::TimeZone;
pub use strings::{write_json_string, write_string};

use chwire_proto::column::Value;
use datetime::push_digits;
use strings::write_safe_text;

/// How values are rendered inside the different formats.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// TSV: strings with backslash escapes, NULL as `\N`.
    Tsv,
    /// CSV: strings in double quotes (a quote doubled), NULL as `\N`.
    Csv,
    /// JSON: strings as JSON strings, NULL as `null`.
    Json,
    /// Inside arrays: strings single-quoted with escapes (ClickHouse's quoted style).
    Quoted,
    /// Pretty: strings as they are (newlines and tabs escaped), NULL as `NULL`.
    Pretty,
}

/// One value in `style`; DateTime values without a zone of their own are rendered in `tz`.
pub fn write_value(out: &mut Vec<u8>, v: &Value<'_>, style: Style, tz: &TimeZone) {
    match v {
        Value::Null => out.extend_from_slice(match style {
            Style::Json => b"null".as_slice(),
            Style::Quoted | Style::Pretty => b"NULL",
            _ => b"\\N",
        }),
        Value::UInt(x) => out.extend_from_slice(itoa::Buffer::new().format(*x).as_bytes()),
        Value::Int(x) => out.extend_from_slice(itoa::Buffer::new().format(*x).as_bytes()),
        Value::Float32(x) => write_float32(out, *x, style),
        Value::Float64(x) => write_float(out, *x, style),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        // AggregateFunction states print as their raw bytes, like ClickHouse.
        Value::String(s) | Value::FixedString(s) | Value::AggregateState(s) => write_string(out, s, style),
        Value::Enum(name, _) => write_string(out, name.as_bytes(), style),
        Value::Uuid(u) => {
            let mut s = String::with_capacity(36);
            for (i, b) in u.iter().enumerate() {
                if matches!(i, 4 | 6 | 8 | 10) {
                    s.push('-');
                }
                s.push_str(&format!("{b:02x}"));
            }
            write_string(out, s.as_bytes(), style);
        }
        Value::Date(d) => write_safe_text(out, style, |o| push_date(o, i64::from(*d))),
        Value::DateTime(secs, zone) => write_safe_text(out, style, |o| push_datetime(o, i64::from(*secs), *zone, tz)),
        Value::UInt128(x) => write_number(out, &x.to_string(), style),
        Value::Int128(x) => write_number(out, &x.to_string(), style),
        Value::UInt256(b) => write_number(out, &chwire_proto::column::int256_to_string(b, false), style),
        Value::Int256(b) => write_number(out, &chwire_proto::column::int256_to_string(b, true), style),
        Value::BFloat16(bits) => write_float32(out, f32::from_bits(u32::from(*bits) << 16), style),
        Value::Decimal { raw, scale } => write_number(out, &chwire_proto::column::decimal_to_string(*raw, *scale), style),
        Value::Decimal256 { raw, scale } => write_number(out, &chwire_proto::column::decimal256_to_string(raw, *scale), style),
        Value::Date32(d) => write_safe_text(out, style, |o| push_date(o, i64::from(*d))),
        Value::DateTime64 { ticks, precision, tz: zone } => {
            let scale = 10i64.pow(u32::from(*precision));
            let (secs, frac) = (ticks.div_euclid(scale), ticks.rem_euclid(scale));
            write_safe_text(out, style, |o| {
                push_datetime(o, secs, *zone, tz);
                if *precision > 0 {
                    o.push(b'.');
                    push_digits(o, frac as u64, usize::from(*precision));
                }
            });
        }
        Value::Time(secs) => write_string(out, time_text(i64::from(*secs), 0, 0).as_bytes(), style),
        Value::Time64 { ticks, precision } => {
            let scale = 10u64.pow(u32::from(*precision));
            let abs = ticks.unsigned_abs();
            let mut text = time_text((abs / scale) as i64, (abs % scale) as i64, *precision);
            if *ticks < 0 {
                text.insert(0, '-');
            }
            write_string(out, text.as_bytes(), style)
        }
        Value::Ipv4(a) => write_string(out, a.to_string().as_bytes(), style),
        Value::Ipv6(a) => write_string(out, a.to_string().as_bytes(), style),
        Value::Interval(n, _) => out.extend_from_slice(itoa::Buffer::new().format(*n).as_bytes()),
        Value::Nothing => out.extend_from_slice(b"0"),
        // A JSON object is one text field; inside arrays, tuples and maps a quoted string.
        Value::JsonText(t) => write_json_text(out, t, style),
        Value::Json(fields) => {
            let mut tmp = Vec::new();
            write_json_object(&mut tmp, fields, tz);
            write_json_text(out, &tmp, style);
        }
        // CSV writes a tuple's elements as fields of their own (nested tuples flattened).
        Value::Tuple(items) if style == Style::Csv => {
            for (i, (_, v)) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(out, v, Style::Csv, tz);
            }
        }
        Value::Tuple(items) => {
            let mut tmp = Vec::new();
            let named = style == Style::Json && items.iter().all(|(n, _)| n.is_some()) && !items.is_empty();
            // Named tuples are JSON objects, other tuples JSON arrays; text formats use (..).
            let (open, close) = match (named, style == Style::Json) {
                (true, _) => (b'{', b'}'),
                (false, true) => (b'[', b']'),
                (false, false) => (b'(', b')'),
            };
            tmp.push(open);
            let inner = if style == Style::Json { Style::Json } else { Style::Quoted };
            for (i, (name, v)) in items.iter().enumerate() {
                if i > 0 {
                    tmp.push(b',');
                }
                if named {
                    write_json_string(&mut tmp, name.unwrap_or_default().as_bytes());
                    tmp.push(b':');
                }
                write_value(&mut tmp, v, inner, tz);
            }
            tmp.push(close);
            write_composite(out, &tmp, style);
        }
        Value::Map(entries) => {
            let mut tmp = Vec::new();
            let inner = if style == Style::Json { Style::Json } else { Style::Quoted };
            tmp.push(b'{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    tmp.push(b',');
                }
                match (style, k) {
                    // JSON object keys are strings: a String key as it is, others as their text.
                    (Style::Json, Value::String(key)) => write_json_string(&mut tmp, key),
                    (Style::Json, k) => {
                        let mut key = Vec::new();
                        write_value(&mut key, k, Style::Tsv, tz);
                        write_json_string(&mut tmp, &key);
                    }
                    (_, k) => write_value(&mut tmp, k, inner, tz),
                }
                tmp.push(b':');
                write_value(&mut tmp, v, inner, tz);
            }
            tmp.push(b'}');
            write_composite(out, &tmp, style);
        }
        Value::Array(items) | Value::QBit(items) => {
            let inner = if style == Style::Json { Style::Json } else { Style::Quoted };
            let mut tmp = Vec::new();
            tmp.push(b'[');
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    tmp.push(b',');
                }
                write_value(&mut tmp, it, inner, tz);
            }
            tmp.push(b']');
            match style {
                // Arrays are one CSV field (a QBit is not quoted); in TSV their text is as it is.
                Style::Csv if matches!(v, Value::Array(_)) => write_string(out, &tmp, Style::Csv),
                _ => out.extend_from_slice(&tmp),
            }
        }
    }
}

/// A JSON column's value: dot-separated paths become nested objects.
pub fn write_json_object(out: &mut Vec<u8>, fields: &[(&str, Value<'_>)], tz: &TimeZone) {
    enum Node<'f, 'v> {
        Leaf(&'f Value<'v>),
        Object(Vec<(&'f str, Node<'f, 'v>)>),
    }
    fn insert<'f, 'v>(children: &mut Vec<(&'f str, Node<'f, 'v>)>, path: &'f str, v: &'f Value<'v>) {
        match path.split_once('.') {
            None => children.push((path, Node::Leaf(v))),
            Some((head, rest)) => {
                let i = match children.iter().position(|(k, n)| *k == head && matches!(n, Node::Object(_))) {
                    Some(i) => i,
                    None => {
                        children.push((head, Node::Object(Vec::new())));
                        children.len() - 1
                    }
                };
                if let Node::Object(c) = &mut children[i].1 {
                    insert(c, rest, v);
                }
            }
        }
    }
    fn render(out: &mut Vec<u8>, children: &[(&str, Node<'_, '_>)], tz: &TimeZone) {
        out.push(b'{');
        for (i, (k, n)) in children.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_json_string(out, k.as_bytes());
            out.push(b':');
            match n {
                Node::Leaf(v) => write_value(out, v, Style::Json, tz),
                Node::Object(c) => render(out, c, tz),
            }
        }
        out.push(b'}');
    }
    let mut root = Vec::new();
    for (p, v) in fields {
        insert(&mut root, p, v);
    }
    render(out, &root, tz);
}

/// Numbers wider than 64 bits and decimals: plain text in every format (ClickHouse 26.9's
/// JSON defaults do not quote them).
fn write_number(out: &mut Vec<u8>, text: &str, _style: Style) {
    out.extend_from_slice(text.as_bytes());
}

/// A tuple or map rendered as one text field: a CSV string in CSV, its text as it is in TSV
/// (whose strings are quoted and escaped already).
fn write_composite(out: &mut Vec<u8>, text: &[u8], style: Style) {
    match style {
        Style::Csv => write_string(out, text, Style::Csv),
        _ => out.extend_from_slice(text),
    }
}

/// A JSON column's text: escaped as a TSV field, a CSV string, a quoted string inside
/// composite values, as it is elsewhere.
fn write_json_text(out: &mut Vec<u8>, text: &[u8], style: Style) {
    match style {
        Style::Tsv | Style::Csv | Style::Quoted => write_string(out, text, style),
        _ => out.extend_from_slice(text),
    }
}

/// A UUID read from ClickHouse's text of it: 32 hex digits, bare or in the 8-4-4-4-12 groups
/// ClickHouse prints (either case). The bytes in the order of the text (RFC 4122's, Arrow's
/// `arrow.uuid`); None for anything else.
pub fn parse_uuid(text: &[u8]) -> Option<[u8; 16]> {
    let grouped = text.len() == 36;
    if grouped {
        if [8, 13, 18, 23].iter().any(|&i| text.get(i) != Some(&b'-')) {
            return None;
        }
    } else if text.len() != 32 {
        return None;
    }
    let mut digits = text.iter().enumerate().filter(|(i, _)| !grouped || ![8, 13, 18, 23].contains(i)).map(|(_, &b)| b);
    let mut out = [0u8; 16];
    for byte in &mut out {
        let hi = (digits.next()? as char).to_digit(16)?;
        let lo = (digits.next()? as char).to_digit(16)?;
        *byte = (hi * 16 + lo) as u8;
    }
    Some(out)
}

#[cfg(test)]
mod uuid_tests {
    use super::parse_uuid;

    #[test]
    fn uuid_text() {
        let want = [0x61, 0xf0, 0xc4, 0x04, 0x5c, 0xb3, 0x11, 0xe7, 0x90, 0x7b, 0xa6, 0x00, 0x6a, 0xd3, 0xdb, 0xa0];
        assert_eq!(parse_uuid(b"61f0c404-5cb3-11e7-907b-a6006ad3dba0"), Some(want));
        assert_eq!(parse_uuid(b"61F0C4045CB311E7907BA6006AD3DBA0"), Some(want));
        for bad in [
            &b""[..],
            b"61f0c404-5cb3-11e7-907b-a6006ad3dba",
            b"61f0c4045cb3-11e7-907b-a6006ad3dba0-",
            b"61f0c404-5cb3-11e7-907b-a6006ad3dbag",
            b"+1f0c404-5cb3-11e7-907b-a6006ad3dba0",
        ] {
            assert_eq!(parse_uuid(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }
}
