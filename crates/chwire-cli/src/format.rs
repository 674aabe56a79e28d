//! Text output of blocks: TSV, CSV, JSON lines and pretty tables, as ClickHouse prints them.

use chwire::proto::column::Value;
use chwire::Block;
use jiff::tz::TimeZone;
use std::io::{self, Write};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Tab-separated values with ClickHouse escaping (\t \n \\ \N for NULL)
    #[value(alias = "TSV", alias = "TabSeparated")]
    Tsv,
    /// Tab-separated values with a header line of column names
    #[value(alias = "TSVWithNames", alias = "TabSeparatedWithNames")]
    TsvWithNames,
    /// Comma-separated values (RFC 4180 quoting, \N for NULL)
    #[value(alias = "CSV")]
    Csv,
    /// Comma-separated values with a header line
    #[value(alias = "CSVWithNames")]
    CsvWithNames,
    /// One JSON object per line, as ClickHouse's JSONEachRow
    #[value(alias = "JSONEachRow", alias = "jsoneachrow")]
    Jsonl,
    /// Tables drawn per block, for people
    #[value(alias = "Pretty")]
    Pretty,
    /// ClickHouse's Native format (binary blocks, readable by `chwire convert` and ClickHouse)
    #[value(alias = "Native")]
    Native,
}

/// How values are rendered inside the different formats.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Tsv,
    Csv,
    Json,
    /// Inside arrays: strings single-quoted with escapes (ClickHouse's quoted style).
    Quoted,
    Pretty,
}

/// Rendered bytes are written out in chunks of about this size.
const CHUNK: usize = 1 << 16;

pub struct Writer {
    format: Format,
    tz: TimeZone,
    wrote_header: bool,
    buf: Vec<u8>,
}

impl Writer {
    /// `server_tz` is used for DateTime columns without their own timezone.
    pub fn new(format: Format, server_tz: Option<&str>) -> Writer {
        let tz = server_tz.and_then(|n| TimeZone::get(n).ok()).unwrap_or(TimeZone::UTC);
        Writer { format, tz, wrote_header: false, buf: Vec::with_capacity(1 << 16) }
    }

    /// Render a block and write it out, in chunks of about `CHUNK` bytes (rows are
    /// rendered into the internal buffer, which is written out whenever it fills).
    pub fn write_block(&mut self, block: &Block, out: &mut impl Write) -> io::Result<()> {
        self.buf.clear();
        match self.format {
            Format::Tsv | Format::TsvWithNames => self.delimited(block, b'\t', Style::Tsv, self.format == Format::TsvWithNames, out)?,
            Format::Csv | Format::CsvWithNames => self.delimited(block, b',', Style::Csv, self.format == Format::CsvWithNames, out)?,
            Format::Jsonl => self.jsonl(block, out)?,
            Format::Pretty => self.pretty(block, out)?,
            Format::Native => chwire::proto::native::encode_block(block, &mut self.buf),
        }
        out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }

    /// Write the buffer out once it holds a chunk.
    fn spill(&mut self, out: &mut impl Write) -> io::Result<()> {
        if self.buf.len() >= CHUNK {
            out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn delimited(&mut self, block: &Block, sep: u8, style: Style, names: bool, out: &mut impl Write) -> io::Result<()> {
        if names && !self.wrote_header {
            self.wrote_header = true;
            for (i, n) in block.names().enumerate() {
                if i > 0 {
                    self.buf.push(sep);
                }
                write_string(&mut self.buf, n.as_bytes(), style);
            }
            self.buf.push(b'\n');
        }
        let cols = block.columns();
        // CSV writes a tuple's elements as separate fields, but a Nullable(Tuple) as one.
        let one_field: Vec<bool> = cols
            .iter()
            .map(|(_, c)| {
                style == Style::Csv && matches!(c.data_type(), chwire::DataType::Nullable(t) if matches!(**t, chwire::DataType::Tuple(_)))
            })
            .collect();
        let mut tmp = Vec::new();
        for row in 0..block.rows() {
            for (i, (_, c)) in cols.iter().enumerate() {
                if i > 0 {
                    self.buf.push(sep);
                }
                match c.value(row) {
                    v @ Value::Tuple(_) if one_field[i] => {
                        tmp.clear();
                        write_value(&mut tmp, &v, Style::Tsv, &self.tz);
                        write_string(&mut self.buf, &tmp, Style::Csv);
                    }
                    v => write_value(&mut self.buf, &v, style, &self.tz),
                }
            }
            self.buf.push(b'\n');
            self.spill(out)?;
        }
        Ok(())
    }

    fn jsonl(&mut self, block: &Block, out: &mut impl Write) -> io::Result<()> {
        let cols = block.columns();
        for row in 0..block.rows() {
            self.buf.push(b'{');
            for (i, (name, c)) in cols.iter().enumerate() {
                if i > 0 {
                    self.buf.push(b',');
                }
                write_json_string(&mut self.buf, name.as_bytes());
                self.buf.push(b':');
                write_value(&mut self.buf, &c.value(row), Style::Json, &self.tz);
            }
            self.buf.extend_from_slice(b"}\n");
            self.spill(out)?;
        }
        Ok(())
    }

    fn pretty(&mut self, block: &Block, out: &mut impl Write) -> io::Result<()> {
        let cols = block.columns();
        let mut cells: Vec<Vec<String>> = Vec::with_capacity(cols.len());
        let mut widths = Vec::with_capacity(cols.len());
        let mut tmp = Vec::new();
        for (name, c) in cols {
            let mut col = Vec::with_capacity(block.rows());
            let mut w = name.chars().count();
            for row in 0..block.rows() {
                tmp.clear();
                write_value(&mut tmp, &c.value(row), Style::Pretty, &self.tz);
                let s = String::from_utf8_lossy(&tmp).into_owned();
                w = w.max(s.chars().count());
                col.push(s);
            }
            widths.push(w);
            cells.push(col);
        }
        let right: Vec<bool> = cols.iter().map(|(_, c)| is_numeric(c.data_type())).collect();
        let line = |l: &str, m: &str, r: &str, buf: &mut Vec<u8>| {
            buf.extend_from_slice(l.as_bytes());
            for (i, w) in widths.iter().enumerate() {
                if i > 0 {
                    buf.extend_from_slice(m.as_bytes());
                }
                buf.extend_from_slice("─".repeat(w + 2).as_bytes());
            }
            buf.extend_from_slice(r.as_bytes());
            buf.push(b'\n');
        };
        line("┌", "┬", "┐", &mut self.buf);
        self.buf.extend_from_slice("│".as_bytes());
        for (i, (name, _)) in cols.iter().enumerate() {
            let pad = widths[i] - name.chars().count();
            self.buf.extend_from_slice(format!(" {name}{} │", " ".repeat(pad)).as_bytes());
        }
        self.buf.push(b'\n');
        line("├", "┼", "┤", &mut self.buf);
        for row in 0..block.rows() {
            self.buf.extend_from_slice("│".as_bytes());
            for (i, col) in cells.iter().enumerate() {
                let s = &col[row];
                let pad = " ".repeat(widths[i] - s.chars().count());
                let cell = if right[i] { format!(" {pad}{s} │") } else { format!(" {s}{pad} │") };
                self.buf.extend_from_slice(cell.as_bytes());
            }
            self.buf.push(b'\n');
            self.spill(out)?;
        }
        line("└", "┴", "┘", &mut self.buf);
        Ok(())
    }
}

fn is_numeric(t: &chwire::DataType) -> bool {
    use chwire::DataType as T;
    matches!(
        t.strip_nullable(),
        T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 | T::Int8 | T::Int16 | T::Int32 | T::Int64 | T::Float32 | T::Float64
    )
}

fn write_float(out: &mut Vec<u8>, v: f64, style: Style) {
    if !v.is_finite() {
        write_non_finite(out, v, style);
    } else {
        write_shortest(out, ryu::Buffer::new().format_finite(v));
    }
}

fn write_float32(out: &mut Vec<u8>, v: f32, style: Style) {
    if !v.is_finite() {
        write_non_finite(out, f64::from(v), style);
    } else {
        write_shortest(out, ryu::Buffer::new().format_finite(v));
    }
}

fn write_non_finite(out: &mut Vec<u8>, v: f64, style: Style) {
    out.extend_from_slice(match (style == Style::Json, v.is_nan(), v > 0.0) {
        (true, _, _) => b"null".as_slice(),
        (false, true, _) => b"nan",
        (false, false, true) => b"inf",
        (false, false, false) => b"-inf",
    });
}

/// Re-render ryu's shortest round-trip digits (ties to even, like ClickHouse's
/// double-conversion) in ClickHouse's layout: positional for exponents -6..21, otherwise
/// `d.ddde±x`, and no `.0` on integers.
fn write_shortest(out: &mut Vec<u8>, text: &str) {
    let (neg, text) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (mantissa, exp) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // value = 0.DIGITS × 10^point
    let mut digits: String = format!("{int}{frac}");
    let mut point = int.len() as i32 + exp;
    let lead = digits.len() - digits.trim_start_matches('0').len();
    digits.drain(..lead);
    point -= lead as i32;
    let digits = digits.trim_end_matches('0');
    if neg {
        out.push(b'-');
    }
    if digits.is_empty() {
        out.push(b'0');
        return;
    }
    let decimal_exp = point - 1; // exponent of the first digit
    if (-6..21).contains(&decimal_exp) {
        if point <= 0 {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat_n(b'0', (-point) as usize));
            out.extend_from_slice(digits.as_bytes());
        } else if point as usize >= digits.len() {
            out.extend_from_slice(digits.as_bytes());
            out.extend(std::iter::repeat_n(b'0', point as usize - digits.len()));
        } else {
            out.extend_from_slice(&digits.as_bytes()[..point as usize]);
            out.push(b'.');
            out.extend_from_slice(&digits.as_bytes()[point as usize..]);
        }
    } else {
        out.push(digits.as_bytes()[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits.as_bytes()[1..]);
        }
        let _ = write!(out, "e{decimal_exp}");
    }
}

fn write_value(out: &mut Vec<u8>, v: &Value<'_>, style: Style, tz: &TimeZone) {
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
        Value::UInt256(b) => write_number(out, &chwire::proto::column::int256_to_string(b, false), style),
        Value::Int256(b) => write_number(out, &chwire::proto::column::int256_to_string(b, true), style),
        Value::BFloat16(bits) => write_float32(out, f32::from_bits(u32::from(*bits) << 16), style),
        Value::Decimal { raw, scale } => write_number(out, &chwire::proto::column::decimal_to_string(*raw, *scale), style),
        Value::Decimal256 { raw, scale } => write_number(out, &chwire::proto::column::decimal256_to_string(raw, *scale), style),
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
fn write_json_object(out: &mut Vec<u8>, fields: &[(&str, Value<'_>)], tz: &TimeZone) {
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

/// Days since 1970-01-01 as a proleptic Gregorian (year, month, day): the inverse of the
/// well-known days-from-civil count over 400-year eras of 146097 days.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // day of the era, 0..=146096
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // year of the era
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of the year, from March 1st
    let mp = (5 * doy + 2) / 153; // month from March, 0..=11
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Appends `v` as exactly `width` decimal digits (zero-padded; `v` fits).
fn push_digits(out: &mut Vec<u8>, v: u64, width: usize) {
    let start = out.len();
    out.resize(start + width, b'0');
    let mut v = v;
    for i in (start..start + width).rev() {
        out[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
}

/// Appends `YYYY-MM-DD`.
/// Days of 0000-01-01 and 9999-12-31: ClickHouse clamps dates it prints to these.
const DAYS: std::ops::RangeInclusive<i64> = -719_528..=2_932_896;

/// Appends `YYYY-MM-DD`, clamped to 0000-01-01..=9999-12-31 as ClickHouse prints.
fn push_date(out: &mut Vec<u8>, days: i64) {
    let (y, m, d) = civil_from_days(days.clamp(*DAYS.start(), *DAYS.end()));
    push_digits(out, y as u64, 4);
    out.push(b'-');
    push_digits(out, u64::from(m), 2);
    out.push(b'-');
    push_digits(out, u64::from(d), 2);
}

/// The UTC offset, in seconds, of the column's zone (else the default one) at `secs`.
/// Zones are looked up by name once per thread, not once per value.
fn utc_offset(secs: i64, zone: Option<&str>, default: &TimeZone) -> i64 {
    thread_local! {
        static ZONES: std::cell::RefCell<Vec<(Box<str>, Option<TimeZone>)>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let at = jiff::Timestamp::from_second(secs).unwrap_or_default();
    let Some(name) = zone else { return i64::from(default.to_offset(at).seconds()) };
    ZONES.with(|zones| {
        let mut zones = zones.borrow_mut();
        let i = match zones.iter().position(|(n, _)| &**n == name) {
            Some(i) => i,
            None => {
                zones.push((name.into(), TimeZone::get(name).ok()));
                zones.len() - 1
            }
        };
        // An unknown zone name means the default zone (of this writer).
        i64::from(zones[i].1.as_ref().unwrap_or(default).to_offset(at).seconds())
    })
}

/// Appends `YYYY-MM-DD hh:mm:ss` of epoch seconds in the column's zone, else the default one.
fn push_datetime(out: &mut Vec<u8>, secs: i64, zone: Option<&str>, default: &TimeZone) {
    // Clamped to 0000-01-01 00:00:00..=9999-12-31 23:59:59, as ClickHouse prints.
    let local = secs.saturating_add(utc_offset(secs, zone, default)).clamp(DAYS.start() * 86_400, DAYS.end() * 86_400 + 86_399);
    let (days, sod) = (local.div_euclid(86_400), local.rem_euclid(86_400) as u64);
    push_date(out, days);
    out.push(b' ');
    push_digits(out, sod / 3600, 2);
    out.push(b':');
    push_digits(out, sod % 3600 / 60, 2);
    out.push(b':');
    push_digits(out, sod % 60, 2);
}

/// `[-]h:mm:ss[.frac]` as ClickHouse prints Time/Time64 (hours are not limited to a day).
fn time_text(secs: i64, frac: i64, precision: u8) -> String {
    let sign = if secs < 0 { "-" } else { "" };
    let s = secs.unsigned_abs();
    let mut t = format!("{sign}{:02}:{:02}:{:02}", s / 3600, s % 3600 / 60, s % 60);
    if precision > 0 {
        t.push_str(&format!(".{frac:0width$}", width = usize::from(precision)));
    }
    t
}

/// Text that no style escapes (digits and `-: .`: dates, times), written in place with the
/// style's quotes.
fn write_safe_text(out: &mut Vec<u8>, style: Style, text: impl FnOnce(&mut Vec<u8>)) {
    let quote = match style {
        Style::Quoted => Some(b'\''),
        Style::Csv | Style::Json => Some(b'"'),
        Style::Tsv | Style::Pretty => None,
    };
    out.extend(quote);
    text(out);
    out.extend(quote);
}

fn write_string(out: &mut Vec<u8>, s: &[u8], style: Style) {
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
fn write_json_string(out: &mut Vec<u8>, s: &[u8]) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use chwire::{Column, StringColumn};

    #[test]
    fn dates_and_times_clamp_as_clickhouse_prints_them() {
        let text = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut o = Vec::new();
            f(&mut o);
            String::from_utf8(o).unwrap()
        };
        assert_eq!(text(&|o| push_date(o, i64::from(i32::MIN))), "0000-01-01");
        assert_eq!(text(&|o| push_date(o, i64::from(i32::MAX))), "9999-12-31");
        assert_eq!(text(&|o| push_datetime(o, 253_402_300_800, None, &TimeZone::UTC)), "9999-12-31 23:59:59");
        assert_eq!(text(&|o| push_datetime(o, -62_167_219_201, None, &TimeZone::UTC)), "0000-01-01 00:00:00");
        assert_eq!(text(&|o| push_datetime(o, i64::MAX, Some("Asia/Tokyo"), &TimeZone::UTC)), "9999-12-31 23:59:59");
        assert_eq!(text(&|o| push_datetime(o, i64::MIN, Some("America/New_York"), &TimeZone::UTC)), "0000-01-01 00:00:00");
    }

    #[test]
    fn civil_dates_and_zoned_times_agree_with_jiff() {
        let epoch = jiff::civil::date(1970, 1, 1);
        for days in (-800_000i64..800_000).step_by(997).chain(-3..3) {
            let want = epoch.checked_add(jiff::Span::new().days(days)).unwrap();
            assert_eq!(civil_from_days(days), (i64::from(want.year()), want.month() as u32, want.day() as u32), "{days}");
        }
        for zone in [None, Some("Europe/Berlin"), Some("Asia/Kolkata"), Some("America/St_Johns"), Some("Australia/Lord_Howe")] {
            for secs in (-2_500_000_000i64..10_000_000_000).step_by(7_777_777).chain([0, 1_616_893_200, 1_635_638_400]) {
                let mut got = Vec::new();
                push_datetime(&mut got, secs, zone, &TimeZone::UTC);
                let tz = zone.map_or(TimeZone::UTC, |z| TimeZone::get(z).unwrap());
                let dt = jiff::Timestamp::from_second(secs).unwrap().to_zoned(tz).datetime();
                let want =
                    format!("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", dt.year(), dt.month(), dt.day(), dt.hour(), dt.minute(), dt.second());
                assert_eq!(String::from_utf8(got).unwrap(), want, "{secs} in {zone:?}");
            }
        }
    }

    fn render(format: Format, block: &Block) -> String {
        let mut w = Writer::new(format, Some("UTC"));
        let mut out = Vec::new();
        w.write_block(block, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_per_format() {
        let s: StringColumn = ["a\tb", "q\"'\\", "line\nnext"].into_iter().collect();
        let block = Block::new().with("s", Column::from(s)).unwrap().with("n", Column::from(vec![1u64, 2, 3])).unwrap();
        assert_eq!(render(Format::Tsv, &block), "a\\tb\t1\nq\"\\'\\\\\t2\nline\\nnext\t3\n");
        assert_eq!(render(Format::Csv, &block), "\"a\tb\",1\n\"q\"\"'\\\",2\n\"line\nnext\",3\n");
        assert_eq!(
            render(Format::Jsonl, &block),
            "{\"s\":\"a\\tb\",\"n\":1}\n{\"s\":\"q\\\"'\\\\\",\"n\":2}\n{\"s\":\"line\\nnext\",\"n\":3}\n"
        );
    }

    #[test]
    fn floats_like_clickhouse() {
        let mut out = Vec::new();
        for v in [1.0, 0.5, -0.0, f64::NAN, f64::NEG_INFINITY, 1e300, 1e-10] {
            write_float(&mut out, v, Style::Tsv);
            out.push(b' ');
        }
        assert_eq!(String::from_utf8(out).unwrap(), "1 0.5 -0 nan -inf 1e300 1e-10 ");
        let mut out = Vec::new();
        for v in [1e21, 123456789012345680000.0, 1e-6, 1.5e-7, 0.1 + 0.2, 1436273600220629.2] {
            write_float(&mut out, v, Style::Tsv);
            out.push(b' ');
        }
        assert_eq!(String::from_utf8(out).unwrap(), "1e21 123456789012345680000 0.000001 1.5e-7 0.30000000000000004 1436273600220629.2 ");
        let mut out = Vec::new();
        write_float32(&mut out, -3333333.2, Style::Tsv);
        assert_eq!(out, b"-3333333.2");
    }

    /// Composite values as ClickHouse 26.9 writes them: TSV keeps their quoted text as it is,
    /// CSV quotes arrays and maps but writes a tuple's elements as fields of their own; QBit
    /// vectors are not quoted; AggregateFunction states are their raw bytes.
    #[test]
    fn composites_in_tsv_and_csv() {
        use chwire::proto::column::decode_column;
        use chwire::proto::wire::Reader;
        let decoded = |ty: &str, wire: &[u8]| {
            let ty = chwire::DataType::parse(ty).unwrap();
            let data = decode_column(&ty, 1, &mut Reader::new(wire)).unwrap();
            Column::new(ty, data).unwrap()
        };
        let arr = decoded("Array(String)", b"\x01\0\0\0\0\0\0\0\x04x\\'y");
        let tup = decoded("Tuple(String, Array(UInt8), Tuple(UInt8, String))", b"\x03a\tb\x01\0\0\0\0\0\0\0\x01\x02\x01c");
        let mut qbit = vec![0u8; 32];
        qbit[1] = 0x02;
        qbit[2..9].fill(0x01);
        let q = decoded("QBit(Float32, 2)", &qbit);
        let state = decoded("AggregateFunction(count)", b"\x0a");
        let block = Block::new().with("a", arr).unwrap().with("t", tup).unwrap().with("q", q).unwrap().with("s", state).unwrap();
        assert_eq!(render(Format::Tsv, &block), "['x\\\\\\'y']\t('a\\tb',[1],(2,'c'))\t[1,2]\t\\n\n");
        assert_eq!(render(Format::Csv, &block), "\"['x\\\\\\'y']\",\"a\tb\",\"[1]\",2,\"c\",[1,2],\"\n\"\n");
        assert_eq!(render(Format::Jsonl, &block), "{\"a\":[\"x\\\\'y\"],\"t\":[\"a\\tb\",[1],[2,\"c\"]],\"q\":[1,2],\"s\":\"\\n\"}\n");
    }

    #[test]
    fn dates_in_timezones() {
        let dt = Column::with_type_name("DateTime('Asia/Tokyo')", chwire::ColumnData::UInt32(vec![0])).unwrap();
        let d = Column::with_type_name("Date", chwire::ColumnData::UInt16(vec![18262])).unwrap();
        let block = Block::new().with("t", dt).unwrap().with("d", d).unwrap();
        assert_eq!(render(Format::Tsv, &block), "1970-01-01 09:00:00\t2020-01-01\n");
        assert_eq!(render(Format::Csv, &block), "\"1970-01-01 09:00:00\",\"2020-01-01\"\n");
    }
}
