#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]
//! Text → `Value` by a column's ClickHouse type: the scalar texts ClickHouse writes (numbers,
//! dates in the column's zone, UUIDs, decimals, …) and its quoted style of composite values
//! (`[1,2]`, `('a\'b',NULL)`, `{'k':1}`), as the TSV and CSV readers need them. Strings that
//! must be unescaped are copied into the block's arena; others are borrowed from the input.

use bumpalo::Bump;
use chwire_proto::{DataType, Value};
use jiff::tz::TimeZone;
use std::cell::RefCell;

/// What parsing needs besides the text: the arena of the block being read and the zone of
/// DateTime columns without their own.
pub struct Ctx<'b> {
    /// The arena unescaped strings of the block being read are copied into.
    pub bump: &'b Bump,
    default_tz: TimeZone,
    zones: RefCell<Vec<(String, TimeZone)>>,
}

impl<'b> Ctx<'b> {
    /// A context over `bump`, with `default_tz` for DateTime columns without a zone of their own.
    pub fn new(bump: &'b Bump, default_tz: TimeZone) -> Ctx<'b> {
        Ctx { bump, default_tz, zones: RefCell::new(Vec::new()) }
    }

    fn zone(&self, name: Option<&str>) -> Result<TimeZone, String> {
        let Some(name) = name else { return Ok(self.default_tz.clone()) };
        let mut zones = self.zones.borrow_mut();
        if let Some((_, z)) = zones.iter().find(|(n, _)| n == name) {
            return Ok(z.clone());
        }
        let z = TimeZone::get(name).map_err(|e| format!("unknown time zone {name:?}: {e}"))?;
        zones.push((name.to_string(), z.clone()));
        Ok(z)
    }
}

/// Whether values of `ty` are written as quoted-style composites (arrays, tuples, maps).
pub fn is_composite(ty: &DataType) -> bool {
    matches!(plain(ty), DataType::Array(_) | DataType::Tuple(_) | DataType::Map(..) | DataType::Nested(_) | DataType::Geo(_))
}

/// The type values are parsed as: LowCardinality and SimpleAggregateFunction removed.
fn plain(ty: &DataType) -> &DataType {
    match ty {
        DataType::LowCardinality(t) => plain(t),
        DataType::SimpleAggregateFunction { ty, .. } => plain(ty),
        t => t,
    }
}

/// One unescaped scalar text (a TSV field after unescaping, a CSV field after unquoting, the
/// content of a quoted string) as a value of `ty`. Composite types parse their quoted style.
pub fn scalar<'b>(ty: &DataType, t: &'b [u8], cx: &Ctx<'b>) -> Result<Value<'b>, String> {
    use DataType as T;
    let text = || std::str::from_utf8(t).map_err(|_| "not UTF-8".to_string()).map(str::trim);
    Ok(match plain(ty) {
        T::Nullable(inner) => scalar(inner, t, cx)?,
        T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 => Value::UInt(int(text()?)?),
        T::Int8 | T::Int16 | T::Int32 | T::Int64 | T::Interval(_) => {
            let v = int(text()?)?;
            match plain(ty) {
                T::Interval(kind) => Value::Interval(v, *kind),
                _ => Value::Int(v),
            }
        }
        T::UInt128 => Value::UInt128(int(text()?)?),
        T::Int128 => Value::Int128(int(text()?)?),
        T::UInt256 | T::Int256 => {
            let (neg, digits) = sign(text()?);
            let unsigned = matches!(plain(ty), T::UInt256);
            let raw = big_int(digits, neg, unsigned).ok_or("not an integer of 256 bits")?;
            let raw = cx.bump.alloc_slice_copy(&raw);
            if matches!(plain(ty), T::Int256) {
                Value::Int256(raw)
            } else if neg && raw.iter().any(|&b| b != 0) {
                return Err("a negative number does not fit UInt256".into());
            } else {
                Value::UInt256(raw)
            }
        }
        T::Float32 => Value::Float32(float32(text()?)?),
        T::Float64 => Value::Float64(float(text()?)?),
        T::BFloat16 => {
            let f = float32(text()?)?;
            let bits = f.to_bits();
            if bits & 0xffff != 0 && !f.is_nan() {
                return Err(format!("{f} is not exact as BFloat16"));
            }
            Value::BFloat16((bits >> 16) as u16)
        }
        T::Bool => match text()? {
            "true" | "1" => Value::Bool(true),
            "false" | "0" => Value::Bool(false),
            other => return Err(format!("{other:?} is not true/false")),
        },
        T::String | T::FixedString(_) | T::Enum8(_) | T::Enum16(_) => Value::String(t),
        T::Uuid => Value::Uuid(uuid(text()?)?),
        // ClickHouse writes the value 0 of Date and DateTime as zeros (18.16 always; newer
        // versions as 1970-01-01) and reads the zeros back as 0.
        T::Date if text()? == ZERO_DATE => Value::Date(0),
        T::DateTime(_) if matches!(text()?, ZERO_DATE | ZERO_DATE_TIME) => Value::DateTime(0, None),
        T::Date => {
            let d = days(text()?)?;
            Value::Date(u16::try_from(d).map_err(|_| "out of the range of Date (1970-01-01..2149-06-06)")?)
        }
        T::Date32 => Value::Date32(i32::try_from(days(text()?)?).map_err(|_| "out of range")?),
        T::DateTime(tz) => {
            let (secs, frac) = date_time(text()?, &cx.zone(tz.as_deref())?, 0)?;
            debug_assert_eq!(frac, 0);
            Value::DateTime(u32::try_from(secs).map_err(|_| "out of the range of DateTime (1970..2106)")?, None)
        }
        T::DateTime64 { precision, tz } => {
            let (secs, frac) = date_time(text()?, &cx.zone(tz.as_deref())?, *precision)?;
            let ticks = secs.checked_mul(10i64.pow(u32::from(*precision))).and_then(|s| s.checked_add(frac)).ok_or("out of range")?;
            Value::DateTime64 { ticks, precision: *precision, tz: None }
        }
        T::Time => Value::Time(i32::try_from(time(text()?, 0)?).map_err(|_| "out of range")?),
        T::Time64(p) => Value::Time64 { ticks: time(text()?, *p)?, precision: *p },
        T::Decimal { precision, scale } => {
            let (neg, digits) = sign(text()?);
            let unscaled = decimal_digits(digits, *scale)?;
            if *precision <= 38 {
                let v: i128 = unscaled.parse().map_err(|_| format!("more than {precision} digits"))?;
                // `v` is at most 38 digits: its negation cannot overflow.
                Value::Decimal { raw: if neg { v.wrapping_neg() } else { v }, scale: *scale }
            } else {
                let raw = big_int(&unscaled, neg, false).ok_or_else(|| format!("more than {precision} digits"))?;
                Value::Decimal256 { raw: cx.bump.alloc_slice_copy(&raw), scale: *scale }
            }
        }
        T::Ipv4 => Value::Ipv4(text().and_then(|t| chwire_text::parse_ipv4(t).ok_or_else(|| "invalid IPv4 address syntax".to_string()))?),
        T::Ipv6 => Value::Ipv6(text().and_then(|t| chwire_text::parse_ipv6(t).ok_or_else(|| "invalid IPv6 address syntax".to_string()))?),
        T::Json { .. } => Value::JsonText(t),
        // A state's text is its bytes, as ClickHouse writes it (checked as a state of the
        // function when the block is built).
        T::AggregateFunction(_) => Value::AggregateState(t),
        T::Dynamic { .. } => {
            let s = text()?;
            if let Ok(i) = s.parse::<i64>() {
                Value::Int(i)
            } else if let (true, Ok(f)) = (s.contains(['.', 'e', 'E']), s.parse::<f64>()) {
                Value::Float64(f)
            } else {
                Value::String(t)
            }
        }
        T::Variant(types) => {
            // The first of the variant's types the text parses as.
            types.iter().find_map(|vt| scalar(vt, t, cx).ok()).ok_or("fits none of the variant's types")?
        }
        T::Nothing => return Err("Nothing has no values".into()),
        T::Geometry => scalar(&T::Geometry.storage().ok_or("no storage type for Geometry")?, t, cx)?,
        T::QBit { element, .. } => match scalar(&T::Array(element.clone()), t, cx)? {
            Value::Array(items) => Value::QBit(items),
            v => v,
        },
        T::Array(_) | T::Tuple(_) | T::Map(..) | T::Nested(_) | T::Geo(_) => {
            let mut q = Quoted { s: t, pos: 0, cx };
            let v = q.value(ty)?;
            q.ws();
            if q.pos != t.len() {
                return Err(format!("unexpected text after the value at byte {}", q.pos));
            }
            v
        }
        other => return Err(format!("text input of {other} columns is not supported")),
    })
}

fn int<T: std::str::FromStr>(s: &str) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    s.strip_prefix('+').unwrap_or(s).parse::<T>().map_err(|e| format!("not an integer of this type ({e})"))
}

fn float(s: &str) -> Result<f64, String> {
    match s.to_ascii_lowercase().as_str() {
        "inf" | "+inf" | "infinity" => Ok(f64::INFINITY),
        "-inf" | "-infinity" => Ok(f64::NEG_INFINITY),
        "nan" | "-nan" | "+nan" => Ok(f64::NAN),
        _ => s.parse().map_err(|_| "not a number".to_string()),
    }
}

fn float32(s: &str) -> Result<f32, String> {
    match float(s)? {
        f if !f.is_finite() => Ok(f as f32),
        _ => s.parse().map_err(|_| "not a number".to_string()),
    }
}

fn sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

/// `123.45` at scale 3 → `123450`: the digits of the unscaled integer. More fractional digits
/// than the scale are an error unless they are zeros.
/// An exponent (`1.5e-1`, as ClickHouse reads decimals) moves the point exactly.
fn decimal_digits(s: &str, scale: u8) -> Result<String, String> {
    let (mantissa, exp) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.strip_prefix('+').unwrap_or(e).parse::<i32>().map_err(|_| "not a decimal number".to_string())?),
        None => (s, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if (int.is_empty() && frac.is_empty()) || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return Err("not a decimal number".into());
    }
    if exp == 0 {
        return point_digits(int, frac, scale);
    }
    let all = format!("{int}{frac}");
    if all.bytes().all(|b| b == b'0') {
        return point_digits("0", "", scale);
    }
    // Decimal256 has 76 digits: a larger shift cannot fit (or keeps no digit).
    if exp.unsigned_abs() > 200 {
        return Err(format!("the exponent {exp} is out of range"));
    }
    let point = i64::try_from(int.len()).unwrap_or(i64::MAX).saturating_add(i64::from(exp));
    let zeros = |n: i64| "0".repeat(usize::try_from(n).unwrap_or(0));
    let len = i64::try_from(all.len()).unwrap_or(i64::MAX);
    if point <= 0 {
        point_digits("", &format!("{}{all}", zeros(point.saturating_neg())), scale)
    } else if point >= len {
        point_digits(&format!("{all}{}", zeros(point.saturating_sub(len))), "", scale)
    } else {
        let (i, f) = all.split_at(usize::try_from(point).unwrap_or(0));
        point_digits(i, f, scale)
    }
}

/// The unscaled digits of `int.frac` at `scale`.
fn point_digits(int: &str, frac: &str, scale: u8) -> Result<String, String> {
    let scale = usize::from(scale);
    let (kept, rest) = frac.split_at(frac.len().min(scale));
    if rest.bytes().any(|b| b != b'0') {
        return Err(format!("more than {scale} decimal places"));
    }
    let mut digits = String::with_capacity(int.len().saturating_add(scale));
    digits.push_str(int.trim_start_matches('0'));
    digits.push_str(kept);
    digits.extend(std::iter::repeat_n('0', scale.saturating_sub(kept.len())));
    if digits.is_empty() {
        digits.push('0');
    }
    Ok(digits)
}

/// Decimal digits as a 256-bit little-endian two's complement integer.
/// The 32 little-endian bytes of a decimal integer: below 2^256 when `unsigned` (UInt256),
/// else within Int256 (down to -2^255).
fn big_int(digits: &str, neg: bool, unsigned: bool) -> Option<[u8; 32]> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut limbs = [0u64; 4];
    for d in digits.bytes() {
        // A digit (checked above); each step stays below 2^68, far from wrapping a u128.
        let mut carry = u128::from(d.wrapping_sub(b'0'));
        for l in &mut limbs {
            let v = u128::from(*l).wrapping_mul(10).wrapping_add(carry);
            *l = v as u64;
            carry = v >> 64;
        }
        if carry != 0 {
            return None;
        }
    }
    // Magnitude limits: below 2^255 (2^255 itself for the negative minimum) for Int256; the
    // carry check above keeps UInt256 below 2^256.
    let [l0, l1, l2, l3] = limbs;
    if !unsigned && l3 >> 63 == 1 && !(neg && l3 == 1 << 63 && [l0, l1, l2] == [0; 3]) {
        return None;
    }
    if neg {
        let mut carry = 1u128;
        for l in &mut limbs {
            let v = u128::from(!*l).wrapping_add(carry); // at most 2^64
            *l = v as u64;
            carry = v >> 64;
        }
    }
    let mut out = [0u8; 32];
    for (bytes, l) in out.chunks_exact_mut(8).zip(limbs) {
        bytes.copy_from_slice(&l.to_le_bytes());
    }
    Some(out)
}

fn uuid(s: &str) -> Result<[u8; 16], String> {
    chwire_text::parse_uuid(s.as_bytes()).ok_or_else(|| "not a UUID".into())
}

const ZERO_DATE: &str = "0000-00-00";
const ZERO_DATE_TIME: &str = "0000-00-00 00:00:00";

/// `YYYY-MM-DD` as days since 1970-01-01.
fn days(s: &str) -> Result<i64, String> {
    let d = civil_date(s)?;
    Ok(i64::from(d.since((jiff::Unit::Day, jiff::civil::date(1970, 1, 1))).map_err(|e| e.to_string())?.get_days()))
}

fn civil_date(s: &str) -> Result<jiff::civil::Date, String> {
    let b = s.as_bytes();
    if b.len() != 10 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return Err("not a date (YYYY-MM-DD)".into());
    }
    // Digits only, as ClickHouse reads dates: `parse` would also take a sign (`-070-03-18`
    // became the year -70, which no writer gives back).
    let num = |r: std::ops::Range<usize>| s.get(r).and_then(unsigned).ok_or("not a date (YYYY-MM-DD)");
    jiff::civil::Date::new(num(0..4)? as i16, num(5..7)? as i8, num(8..10)? as i8).map_err(|e| e.to_string())
}

/// A field of a date or time: ASCII digits only (no sign), at most 4 of them.
fn unsigned(s: &str) -> Option<u16> {
    (!s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
}

/// `YYYY-MM-DD hh:mm:ss[.fraction]` in `tz` (or a number of seconds since the epoch) as
/// seconds and the fraction in ticks of 10^-precision.
fn date_time(s: &str, tz: &TimeZone, precision: u8) -> Result<(i64, i64), String> {
    let (whole, frac) = match s.split_once('.') {
        Some((w, f)) => (w, f),
        None => (s, ""),
    };
    let ticks = fraction(frac, precision)?;
    if !whole.is_empty() && whole.bytes().all(|b| b.is_ascii_digit()) {
        // Seconds since the epoch (a date has dashes), within the years a date can be written
        // in (up to 9999): beyond them no writer gives the value back (found by fuzzing).
        let seconds: i64 = whole.parse().map_err(|_| "out of range")?;
        jiff::Timestamp::from_second(seconds).map_err(|_| format!("{seconds} seconds since 1970 is beyond the year 9999"))?;
        return Ok((seconds, ticks));
    }
    let (date, time) = if whole.len() == 10 { (whole, "00:00:00") } else { (whole.get(..10).ok_or("not a date and time")?, &whole[10..]) };
    let time = time.strip_prefix([' ', 'T']).ok_or("not a date and time (YYYY-MM-DD hh:mm:ss)")?;
    let date = civil_date(date)?;
    let t = time.as_bytes();
    if t.len() != 8 || t.get(2) != Some(&b':') || t.get(5) != Some(&b':') {
        return Err("not a date and time (YYYY-MM-DD hh:mm:ss)".into());
    }
    let num = |r: std::ops::Range<usize>| time.get(r).and_then(unsigned).map(|n| n as i8).ok_or("not a time (hh:mm:ss)");
    let t = jiff::civil::Time::new(num(0..2)?, num(3..5)?, num(6..8)?, 0).map_err(|e| format!("not a time of day: {e}"))?;
    let dt = date.to_datetime(t);
    let zoned = dt.to_zoned(tz.clone()).map_err(|e| e.to_string())?;
    Ok((zoned.timestamp().as_second(), ticks))
}

/// Fractional digits as ticks of 10^-precision (more digits than the precision must be zeros).
fn fraction(frac: &str, precision: u8) -> Result<i64, String> {
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err("not a fraction of a second".into());
    }
    let p = usize::from(precision);
    let (kept, rest) = frac.split_at(frac.len().min(p));
    if rest.bytes().any(|b| b != b'0') {
        return Err(format!("more than {p} fractional digits"));
    }
    let mut ticks = 0i64;
    for b in kept.bytes().chain(std::iter::repeat(b'0')).take(p) {
        ticks = ticks.checked_mul(10).and_then(|t| t.checked_add(i64::from(b.wrapping_sub(b'0')))).ok_or("out of range")?;
    }
    Ok(ticks)
}

/// `[-]h:mm:ss[.fraction]` as ticks of 10^-precision.
fn time(s: &str, precision: u8) -> Result<i64, String> {
    let (neg, s) = sign(s);
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    let parts: Vec<&str> = whole.split(':').collect();
    let [h, m, sec] = parts.as_slice() else { return Err("not a time (h:mm:ss)".into()) };
    let n = |x: &str| x.parse::<i64>().map_err(|_| "not a time (h:mm:ss)".to_string());
    let (h, m, sec) = (n(h)?, n(m)?, n(sec)?);
    if !(0..60).contains(&m) || !(0..60).contains(&sec) || h < 0 {
        return Err("not a time (h:mm:ss with minutes and seconds below 60)".into());
    }
    let out_of_range = || "out of range".to_string();
    let secs = h
        .checked_mul(3600)
        .and_then(|s| m.checked_mul(60).and_then(|ms| ms.checked_add(sec)).and_then(|ms| s.checked_add(ms)))
        .ok_or_else(out_of_range)?;
    let frac_ticks = fraction(frac, precision)?;
    let ticks = 10i64
        .checked_pow(u32::from(precision))
        .and_then(|scale| secs.checked_mul(scale))
        .and_then(|t| t.checked_add(frac_ticks))
        .ok_or_else(out_of_range)?;
    // Non-negative: its negation cannot overflow.
    Ok(if neg { ticks.wrapping_neg() } else { ticks })
}

/// The default value of a type (for omitted JSON fields and empty CSV fields).
pub fn default_value(ty: &DataType) -> Result<Value<'static>, String> {
    use DataType as T;
    Ok(match plain(ty) {
        T::Nullable(_) => Value::Null,
        T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 => Value::UInt(0),
        T::Int8 | T::Int16 | T::Int32 | T::Int64 => Value::Int(0),
        T::UInt128 => Value::UInt128(0),
        T::Int128 => Value::Int128(0),
        T::UInt256 => Value::UInt256(&[0; 32]),
        T::Int256 => Value::Int256(&[0; 32]),
        T::Float32 => Value::Float32(0.0),
        T::Float64 => Value::Float64(0.0),
        T::BFloat16 => Value::BFloat16(0),
        T::Bool => Value::Bool(false),
        T::String | T::FixedString(_) => Value::String(b""),
        T::Enum8(items) => items.iter().min_by_key(|(_, v)| *v).map(|(n, _)| Value::Enum(leak(n), 0)).ok_or("an empty Enum")?,
        T::Enum16(items) => items.iter().min_by_key(|(_, v)| *v).map(|(n, _)| Value::Enum(leak(n), 0)).ok_or("an empty Enum")?,
        T::Uuid => Value::Uuid([0; 16]),
        T::Date => Value::Date(0),
        T::Date32 => Value::Date32(0),
        T::DateTime(_) => Value::DateTime(0, None),
        T::DateTime64 { precision, .. } => Value::DateTime64 { ticks: 0, precision: *precision, tz: None },
        T::Time => Value::Time(0),
        T::Time64(p) => Value::Time64 { ticks: 0, precision: *p },
        T::Interval(kind) => Value::Interval(0, *kind),
        T::Decimal { scale, .. } => Value::Decimal { raw: 0, scale: *scale },
        T::Ipv4 => Value::Ipv4(std::net::Ipv4Addr::UNSPECIFIED),
        T::Ipv6 => Value::Ipv6(std::net::Ipv6Addr::UNSPECIFIED),
        T::Array(_) | T::Nested(_) | T::Geo(_) => Value::Array(Vec::new()),
        T::Map(..) => Value::Map(Vec::new()),
        T::Tuple(items) => Value::Tuple(items.iter().map(|(_, t)| default_value(t).map(|v| (None, v))).collect::<Result<_, _>>()?),
        T::Variant(_) | T::Dynamic { .. } | T::Geometry => Value::Null,
        other => return Err(format!("{other} has no default value here")),
    })
}

/// Enum names of a type live as long as the program's column types; a default value names
/// one. (Leaked once per distinct name, for omitted fields only.)
fn leak(name: &str) -> &'static str {
    thread_local! {
        static NAMES: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
    }
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        if let Some(n) = names.iter().find(|n| **n == name) {
            return *n;
        }
        let n: &'static str = Box::leak(name.to_string().into_boxed_str());
        names.push(n);
        n
    })
}

/// ClickHouse's quoted style of values (inside arrays, tuples and maps): strings in single
/// quotes with backslash escapes, `NULL`, numbers bare.
struct Quoted<'c, 'b> {
    s: &'b [u8],
    pos: usize,
    cx: &'c Ctx<'b>,
}

impl<'b> Quoted<'_, 'b> {
    fn ws(&mut self) {
        while self.s.get(self.pos).is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos = self.pos.saturating_add(1);
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.pos) == Some(&c) {
            self.pos = self.pos.saturating_add(1);
            Ok(())
        } else {
            Err(format!("expected '{}' at byte {}", c as char, self.pos))
        }
    }

    /// Whether the next non-space byte is `c` (consumed if so).
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        let hit = self.s.get(self.pos) == Some(&c);
        if hit {
            self.pos = self.pos.saturating_add(1);
        }
        hit
    }

    /// A comma-separated list up to `close`, each item parsed by `item`.
    fn list<T>(&mut self, close: u8, mut item: impl FnMut(&mut Self) -> Result<T, String>) -> Result<Vec<T>, String> {
        let mut out = Vec::new();
        if self.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(item(self)?);
            if self.eat(close) {
                return Ok(out);
            }
            self.expect(b',')?;
        }
    }

    fn value(&mut self, ty: &DataType) -> Result<Value<'b>, String> {
        use DataType as T;
        self.ws();
        match plain(ty) {
            T::Nullable(inner) => {
                if self.s.get(self.pos..).is_some_and(|rest| rest.starts_with(b"NULL")) {
                    self.pos = self.pos.saturating_add(4);
                    return Ok(Value::Null);
                }
                self.value(inner)
            }
            T::Array(inner) => {
                self.expect(b'[')?;
                Ok(Value::Array(self.list(b']', |q| q.value(inner))?))
            }
            T::Nested(fields) => {
                let tuple = T::Tuple(fields.iter().map(|(n, t)| (Some(n.clone()), t.clone())).collect());
                self.expect(b'[')?;
                Ok(Value::Array(self.list(b']', |q| q.value(&tuple))?))
            }
            T::Geo(kind) => self.value(&kind.storage()),
            T::Tuple(types) => {
                self.expect(b'(')?;
                let mut it = types.iter();
                let items = self.list(b')', |q| match it.next() {
                    Some((_, t)) => q.value(t).map(|v| (None, v)),
                    None => Err(format!("more than {} tuple elements", types.len())),
                })?;
                if items.len() != types.len() {
                    return Err(format!("{} tuple elements, the type has {}", items.len(), types.len()));
                }
                Ok(Value::Tuple(items))
            }
            T::Map(k, v) => {
                self.expect(b'{')?;
                Ok(Value::Map(self.list(b'}', |q| {
                    let key = q.value(k)?;
                    q.expect(b':')?;
                    Ok((key, q.value(v)?))
                })?))
            }
            scalar_ty => {
                let text = if self.s.get(self.pos) == Some(&b'\'') { self.string()? } else { self.bare() };
                scalar(scalar_ty, text, self.cx)
            }
        }
    }

    /// A single-quoted string, unescaped (borrowed when it has no escapes).
    fn string(&mut self) -> Result<&'b [u8], String> {
        let start = self.pos.saturating_add(1);
        let mut i = start;
        let mut escaped = false;
        loop {
            match self.s.get(i) {
                None => return Err("an unterminated string".into()),
                Some(b'\\') => {
                    escaped = true;
                    i = i.saturating_add(2);
                }
                Some(b'\'') => break,
                Some(_) => i = i.saturating_add(1),
            }
        }
        self.pos = i.saturating_add(1);
        let raw = self.s.get(start..i).unwrap_or_default();
        Ok(if escaped { unescape(raw, self.cx.bump) } else { raw })
    }

    /// A bare token (number, NULL, true/false) up to a delimiter.
    fn bare(&mut self) -> &'b [u8] {
        let start = self.pos;
        while self.s.get(self.pos).is_some_and(|b| !matches!(b, b',' | b']' | b')' | b'}' | b':') && !b.is_ascii_whitespace()) {
            self.pos = self.pos.saturating_add(1);
        }
        self.s.get(start..self.pos).unwrap_or_default()
    }
}

/// Backslash escapes as ClickHouse writes them (`chwire_proto::sql::unescape_with`), into
/// the arena.
pub fn unescape<'b>(raw: &[u8], bump: &'b Bump) -> &'b [u8] {
    let mut out = bumpalo::collections::Vec::with_capacity_in(raw.len(), bump);
    chwire_proto::sql::unescape_with(raw, |b| out.push(b));
    out.into_bump_slice()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(ty: &str, text: &str) -> Result<String, String> {
        let bump = Bump::new();
        let cx = Ctx::new(&bump, TimeZone::UTC);
        scalar(&DataType::parse(ty).unwrap(), text.as_bytes(), &cx).map(|v| format!("{v:?}"))
    }

    #[test]
    fn escapes() {
        let bump = Bump::new();
        let u = |s: &str| unescape(s.as_bytes(), &bump).to_vec();
        assert_eq!(u(r"a\tb\\c\'d"), b"a\tb\\c'd");
        assert_eq!(u(r"\x41\x7e"), b"A~");
        // Not two hex digits: the `x` stands for itself (a sign is not a digit).
        assert_eq!(u(r"\x+f"), b"x+f");
        assert_eq!(u(r"\x4"), b"x4");
        assert_eq!(u("end\\"), b"end\\");
    }

    #[test]
    fn scalars() {
        assert_eq!(parse("UInt8", "255").unwrap(), "UInt(255)");
        assert_eq!(parse("Int64", "-9223372036854775808").unwrap(), "Int(-9223372036854775808)");
        assert!(parse("UInt64", "-1").is_err());
        assert!(parse("UInt64", "1x").is_err());
        assert_eq!(parse("Float64", "-inf").unwrap(), "Float64(-inf)");
        assert_eq!(parse("Float32", "0.1").unwrap(), "Float32(0.1)");
        assert_eq!(parse("Date", "2020-01-02").unwrap(), "Date(18263)");
        assert!(parse("Date", "2020-02-30").is_err());
        assert_eq!(parse("DateTime('Asia/Tokyo')", "1970-01-01 09:00:01").unwrap(), "DateTime(1, None)");
        assert_eq!(parse("DateTime", "1600000000").unwrap(), "DateTime(1600000000, None)");
        assert_eq!(parse("DateTime64(3)", "1970-01-01 00:00:01.5").unwrap(), "DateTime64 { ticks: 1500, precision: 3, tz: None }");
        assert!(parse("DateTime64(1)", "1970-01-01 00:00:01.55").is_err());
        assert_eq!(parse("Decimal(9, 2)", "-1.5").unwrap(), "Decimal { raw: -150, scale: 2 }");
        assert_eq!(parse("Decimal(9, 2)", "3.100").unwrap(), "Decimal { raw: 310, scale: 2 }");
        assert!(parse("Decimal(9, 2)", "3.101").is_err());
        // Exponents, as ClickHouse 26.9 reads them (`1e2` → 100, `1.5e-1` → 0.15).
        assert_eq!(parse("Decimal(9, 2)", "1e2").unwrap(), "Decimal { raw: 10000, scale: 2 }");
        assert_eq!(parse("Decimal(9, 2)", "1.5e-1").unwrap(), "Decimal { raw: 15, scale: 2 }");
        assert_eq!(parse("Decimal(9, 2)", "-25E+0").unwrap(), "Decimal { raw: -2500, scale: 2 }");
        assert_eq!(parse("Decimal(9, 2)", "0.0125e2").unwrap(), "Decimal { raw: 125, scale: 2 }");
        assert_eq!(parse("Decimal(9, 2)", "12.5e-3").unwrap_err(), "more than 2 decimal places");
        assert_eq!(parse("Decimal(9, 2)", "0e999999").unwrap(), "Decimal { raw: 0, scale: 2 }");
        assert!(parse("Decimal(9, 2)", "1e999999").unwrap_err().contains("exponent"));
        assert!(parse("Decimal(76, 2)", "1e80").is_err());
        for bad in ["1e", "e2", "1e2.5", "1ee2", "1e-+2"] {
            assert!(parse("Decimal(9, 2)", bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse("UUID", "61f0c404-5cb3-11e7-907b-a6006ad3dba0").unwrap(),
            format!("Uuid({:?})", uuid("61f0c4045cb311e7907ba6006ad3dba0").unwrap())
        );
        assert_eq!(
            parse("Array(Nullable(String))", r"['a\'b',NULL, 'c']").unwrap(),
            r#"Array([String([97, 39, 98]), Null, String([99])])"#
        );
        assert_eq!(parse("Map(String, Array(UInt8))", "{'k':[1,2]}").unwrap(), "Map([(String([107]), Array([UInt(1), UInt(2)]))])");
        assert_eq!(parse("Tuple(UInt8, String)", "(1,'x')").unwrap(), "Tuple([(None, UInt(1)), (None, String([120]))])");
        assert!(parse("Tuple(UInt8, String)", "(1)").is_err());
        assert!(parse("Array(UInt8)", "[1,2").is_err());
        assert!(parse("Array(UInt8)", "[1] x").is_err());
    }

    /// Found by the text_input fuzz target: `23:69:42` panicked in jiff; an hour beyond i64
    /// wrapped around.
    #[test]
    fn times_out_of_range_are_errors() {
        assert!(parse("DateTime('UTC')", "1988-10-20 23:69:42").unwrap_err().contains("not a time of day"));
        assert!(parse("DateTime64(3, 'UTC')", "1988-10-20 24:00:00.5").is_err());
        assert_eq!(parse("Time", "-1:02:03").unwrap(), "Time(-3723)");
        assert!(parse("Time", "1:60:00").is_err());
        assert!(parse("Time64(9)", "9223372036854775807:00:00").unwrap_err().contains("out of range"));
        assert!(parse("Time64(9)", "2562047:47:17").is_err());
    }

    /// Found by the `text_input` fuzz target: a signed year (`-070`) was read as the year -70,
    /// which no writer gives back, and so were seconds since 1970 beyond the year 9999. ClickHouse 26.9 refuses it ("Cannot parse date"); a year
    /// before 1900 in four digits it reads as it is, and so does chwire.
    #[test]
    fn dates_and_times_are_digits_only() {
        assert!(parse("Date32", "-070-03-18").is_err());
        assert!(parse("Date", "+970-03-18").is_err());
        assert!(parse("Date32", "2020-+1-05").is_err());
        assert!(parse("DateTime('UTC')", "1988-10-20 +1:02:03").is_err());
        assert!(parse("DateTime64(3, 'UTC')", "-988-10-20 01:02:03.5").is_err());
        assert_eq!(parse("Date32", "0070-03-18").unwrap(), "Date32(-693884)");
        assert_eq!(parse("Date32", "0000-01-01").unwrap(), "Date32(-719528)");
        // ClickHouse 18.16 writes 0 as zeros, and reads them back.
        assert_eq!(parse("Date", "0000-00-00").unwrap(), "Date(0)");
        assert_eq!(parse("DateTime('Asia/Tokyo')", "0000-00-00 00:00:00").unwrap(), "DateTime(0, None)");
        assert_eq!(parse("DateTime", "0000-00-00").unwrap(), "DateTime(0, None)");
        assert!(parse("Date", "0000-00-01").is_err());
        // Seconds since 1970 beyond the year 9999 (the fuzzer's second finding: the writer
        // could only print 9999-12-31 23:59:59, which is not the value).
        assert!(parse("DateTime64(3, 'UTC')", "9999999999999").unwrap_err().contains("beyond the year 9999"));
        assert!(parse("DateTime64(3, 'UTC')", "253402207200").is_ok());
    }

    #[test]
    fn big_integers() {
        let max = "57896044618658097711785492504343953926634992332820282019728792003956564819967";
        assert_eq!(big_int(max, false, false).unwrap()[31], 0x7f);
        assert_eq!(
            big_int("57896044618658097711785492504343953926634992332820282019728792003956564819968", true, false).unwrap()[31],
            0x80
        );
        assert!(big_int("57896044618658097711785492504343953926634992332820282019728792003956564819968", false, false).is_none());
        assert_eq!(big_int("1", true, false).unwrap(), [0xff; 32]);
        // UInt256 up to 2^256 - 1 (found live: 2^256 - 2 was refused), not one more.
        let umax = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        assert_eq!(big_int(umax, false, true).unwrap(), [0xff; 32]);
        assert!(big_int("115792089237316195423570985008687907853269984665640564039457584007913129639936", false, true).is_none());
        assert!(big_int(umax, false, false).is_none());
        assert_eq!(
            chwire_proto::column::int256_to_string(&big_int("123456789012345678901234567890123456789012", true, false).unwrap(), true),
            "-123456789012345678901234567890123456789012"
        );
    }
}
