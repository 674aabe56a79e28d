//! What a parameter's value must be for its placeholder's type, and the text the server reads
//! for it: integers within the type's range, times within the type's seconds, date and time
//! text that is a calendar date, UUID and address text as ClickHouse's parsers read it, and
//! the text of times given as counts or instants. (`value.rs` shapes values by these rules.)

use chwire_proto::DataType;

/// Why a value does not fit its placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamError {
    /// The value's kind or shape is not one of the type's (a fraction for an integer, a
    /// tuple of the wrong length, a map for a String): a type error in every host.
    Type(String),
    /// A number outside the type's range (300 for an Int8): a range error.
    Range(String),
}

impl std::fmt::Display for ParamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamError::Type(m) | ParamError::Range(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ParamError {}

/// The seconds each time type holds (a current server clamps a parameter outside them to the
/// nearest end, 18.16 wraps it: neither is the value given; inserts refuse them too).
pub(super) fn seconds_range(t: &DataType) -> Option<(i64, i64, &'static str)> {
    match t {
        DataType::Date => Some((0, 65_535 * 86_400, "1970-01-01..2149-06-06")),
        DataType::Date32 => Some((-2_208_988_800, 10_413_791_999, "1900-01-01..2299-12-31")),
        DataType::DateTime(_) => Some((0, i64::from(u32::MAX), "1970-01-01 00:00:00..2106-02-07 06:28:15 UTC")),
        // Nanoseconds in an Int64 end sooner.
        DataType::DateTime64 { precision: 9.., .. } => Some((-2_208_988_800, 9_223_372_036, "1900-01-01..2262-04-11 23:47:16 UTC")),
        DataType::DateTime64 { .. } => Some((-2_208_988_800, 10_413_791_999, "1900-01-01..2299-12-31 23:59:59 UTC")),
        _ => None,
    }
}

/// A point in time for a time type must lie in its range.
pub(super) fn check_instant(micros: i64, ty: Option<&DataType>) -> Result<(), ParamError> {
    let Some((lo, hi, range)) = ty.and_then(seconds_range) else { return Ok(()) };
    let secs = micros.div_euclid(1_000_000);
    if secs < lo || secs > hi {
        return Err(ParamError::Range(format!(
            "{} is outside {} ({range})",
            instant_text(micros, None, None),
            ty.map(ToString::to_string).unwrap_or_default()
        )));
    }
    Ok(())
}

/// A date (`YYYY-MM-DD`) or wall-clock time (`YYYY-MM-DD hh:mm:ss[.f]`) given as text for a
/// date or time type must lie in its range (other text, such as a Unix timestamp's digits, is
/// the server's to read). A wall-clock time is read in the type's own zone; for a type without
/// one the zone is the session's, which a query's settings may change after binding: such a
/// time is refused only when no zone's offset (within 14 hours of UTC) brings it into range.
pub(super) fn check_time_text(s: &str, t: &DataType) -> Result<(), ParamError> {
    let Some((lo, hi, range)) = seconds_range(t) else { return Ok(()) };
    // Only the extended form: `20240229` is no date here (for a DateTime it is a timestamp).
    if s.len() < 10 || s.as_bytes()[4] != b'-' {
        return Ok(());
    }
    // `YYYY-MM-DD` that is no date (`2024-02-30`): a server would read it as another day.
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if digits(0..4) && b[7] == b'-' && digits(5..7) && digits(8..10) && s[..10].parse::<jiff::civil::Date>().is_err() {
        return Err(ParamError::Type(format!("{:?} is no date of the calendar, for a {t} parameter", &s[..10])));
    }
    let civil = match s.parse::<jiff::civil::DateTime>() {
        Ok(dt) if s.len() > 10 => dt,
        _ => match s.parse::<jiff::civil::Date>() {
            Ok(d) => d.to_datetime(jiff::civil::Time::midnight()),
            Err(_) => return Ok(()),
        },
    };
    // Whole seconds, rounded down (a fraction before 1970 counts toward the second before).
    let floor = |at: jiff::Zoned| at.timestamp().as_second() - i64::from(at.timestamp().subsec_nanosecond() < 0);
    let zone = match t {
        DataType::DateTime(Some(z)) | DataType::DateTime64 { tz: Some(z), .. } => jiff::tz::TimeZone::get(z).ok(),
        _ => None,
    };
    // In the type's zone exactly; a date as UTC days; a time in a zone not known here within
    // the widest offset any zone has.
    let (secs, margin) = match zone.and_then(|z| civil.to_zoned(z).ok()) {
        Some(at) => (floor(at), 0),
        None => {
            let Ok(utc_wall) = civil.to_zoned(jiff::tz::TimeZone::UTC) else { return Ok(()) };
            let dated = matches!(t, DataType::Date | DataType::Date32);
            (floor(utc_wall), if dated { 0 } else { 14 * 3600 })
        }
    };
    if secs + margin < lo || secs - margin > hi {
        return Err(ParamError::Range(format!("{s} is outside {t} ({range})")));
    }
    Ok(())
}

/// UUID, IPv4 or IPv6 text (`t` says which) as ClickHouse's parsers read it.
pub(super) fn check_address_text(s: &str, t: &DataType) -> Result<(), ParamError> {
    let parses = match t {
        DataType::Uuid => chwire_text::parse_uuid(s.as_bytes()).is_some(),
        DataType::Ipv4 => chwire_text::parse_ipv4(s).is_some(),
        _ => chwire_text::parse_ipv6(s).is_some(),
    };
    if parses {
        return Ok(());
    }
    let shown: String = s.chars().take(64).collect();
    let more = if shown.len() < s.len() { "…" } else { "" };
    Err(ParamError::Type(format!("{shown:?}{more} is not the text of a {t}")))
}

/// Text that is an integer's digits, with a sign or none.
pub(super) fn is_integer_text(s: &str) -> bool {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit())
}

/// Text that is a decimal number (`-12.5`, `1e-3`, `inf`, `nan`) and nothing else.
pub(super) fn is_number_text(s: &str) -> bool {
    let t = s.strip_prefix(['-', '+']).unwrap_or(s);
    if ["inf", "infinity", "nan"].iter().any(|w| t.eq_ignore_ascii_case(w)) {
        return true;
    }
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(at) => (&t[..at], Some(&t[at + 1..])),
        None => (t, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |d: &str| d.bytes().all(|c| c.is_ascii_digit());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    !(int.is_empty() && frac.is_empty()) && digits(int) && digits(frac) && exponent_ok
}

/// An integer's digits (`-` then digits) must lie in the range of the integer type `t`: the
/// server would wrap 300 into an Int8 (and 18.16's CAST does), so it is an error here.
pub(super) fn check_range(digits: &str, t: &DataType) -> Result<(), ParamError> {
    let (neg, magnitude) = match digits.strip_prefix('-') {
        Some(m) => (true, m.trim_start_matches('0')),
        None => (false, digits.trim_start_matches('0')),
    };
    if !magnitude.bytes().all(|c| c.is_ascii_digit()) {
        return Err(ParamError::Type(format!("{digits} is not an integer for a {t} parameter")));
    }
    let (bits, signed) = match t {
        DataType::UInt8 => (8, false),
        DataType::UInt16 => (16, false),
        DataType::UInt32 => (32, false),
        DataType::UInt64 => (64, false),
        DataType::UInt128 => (128, false),
        DataType::UInt256 => (256, false),
        DataType::Int8 => (8, true),
        DataType::Int16 => (16, true),
        DataType::Int32 => (32, true),
        DataType::Int64 => (64, true),
        DataType::Int128 => (128, true),
        DataType::Int256 => (256, true),
        _ => return Ok(()),
    };
    // The largest magnitude: 2^bits - 1 unsigned; 2^(bits-1) - 1, or 2^(bits-1) negative.
    let limit = if signed { pow2_minus(bits - 1, !neg) } else { pow2_minus(bits, true) };
    let fits = !(neg && !signed && !magnitude.is_empty()) && (magnitude.len(), magnitude) <= (limit.len(), limit.as_str());
    if fits {
        Ok(())
    } else {
        Err(ParamError::Range(format!("{digits} is outside the range of {t}")))
    }
}

/// The decimal digits of 2^n, less one when `minus_one`.
pub(super) fn pow2_minus(n: u32, minus_one: bool) -> String {
    // Little-endian base-10^9 limbs.
    let mut limbs: Vec<u64> = vec![1];
    for _ in 0..n {
        let mut carry = 0;
        for l in limbs.iter_mut() {
            let v = *l * 2 + carry;
            *l = v % 1_000_000_000;
            carry = v / 1_000_000_000;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    if minus_one {
        // 2^n ends in 2, 4, 6 or 8 (n > 0) or is 1 (n = 0): no borrow past the lowest limb.
        limbs[0] -= 1;
    }
    let mut s = limbs.last().map_or_else(String::new, u64::to_string);
    for l in limbs.iter().rev().skip(1) {
        s.push_str(&format!("{l:09}"));
    }
    s
}

/// `[-]HH:MM:SS[.fraction]` of `ticks` at `precision` digits (Time: seconds, precision 0).
pub(super) fn time_text(ticks: i128, precision: u32) -> Result<String, ParamError> {
    let scale = 10u128.checked_pow(precision).ok_or_else(|| ParamError::Type(format!("a time of precision {precision}")))?;
    let sign = if ticks < 0 { "-" } else { "" };
    let abs = ticks.unsigned_abs();
    let (secs, frac) = (abs / scale, abs % scale);
    let hms = format!("{sign}{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    Ok(if precision == 0 { hms } else { format!("{hms}.{frac:0width$}", width = precision as usize) })
}

/// A point in time as `YYYY-MM-DD hh:mm:ss[.ffffff]` in the zone a DateTime/DateTime64
/// placeholder `ty` reads it in (its own, else the server's); UTC for other placeholders. (As
/// UTC text, a time came 5:30 early from a server in Asia/Kolkata.)
pub(super) fn instant_text(micros: i64, ty: Option<&DataType>, server_tz: Option<&str>) -> String {
    let zone = match ty {
        Some(DataType::DateTime(tz) | DataType::DateTime64 { tz, .. }) => tz.as_deref().or(server_tz),
        _ => None,
    };
    let mut out = Vec::new();
    chwire_text::push_datetime(&mut out, micros.div_euclid(1_000_000), zone, &chwire_text::TimeZone::UTC);
    let mut text = String::from_utf8_lossy(&out).into_owned();
    let fraction = micros.rem_euclid(1_000_000);
    if fraction != 0 {
        text.push_str(format!(".{fraction:06}").trim_end_matches('0'));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_by_power_of_two() {
        assert_eq!(pow2_minus(8, true), "255");
        assert_eq!(pow2_minus(63, false), "9223372036854775808");
        assert_eq!(pow2_minus(0, true), "0");
    }
}
