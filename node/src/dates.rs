//! Dates, date-times and times: from JavaScript text, read as ClickHouse reads them (jiff does
//! the calendar, the ISO 8601 syntax and the zones), and DateTime64/Time ticks for JS.
//!
//! - Date, Date32: `YYYY-MM-DD`.
//! - DateTime, DateTime64: `YYYY-MM-DD hh:mm:ss[.fraction]` (or with a `T`; `YYYY-MM-DD`
//!   alone is midnight) as the wall-clock time of the column's zone (else the server's), as the
//!   server reads it; with an offset (`Z`, `+05:30`) or a zone annotation
//!   (`[Europe/Berlin]`) as that instant instead (ISO 8601 / RFC 9557, as the server's
//!   `best_effort` input reads it); or seconds since the epoch (`1704067200`, `1704067200.25`).
//!   A wall-clock time a zone skips or repeats (a change of its offset) is the earlier of its
//!   two instants, as ClickHouse reads it (`toDateTime('2024-03-10 02:30:00',
//!   'America/New_York')` is 06:30 UTC).

use chwire::{DataType, Value};
use jiff::fmt::temporal::{Pieces, PiecesOffset};
use jiff::tz::TimeZone;
use jiff::{civil, Unit};

/// Days since 1970-01-01 of `YYYY-MM-DD`.
pub fn days(s: &str) -> Result<i64, String> {
    let bad = || format!("{s:?} is not a date (YYYY-MM-DD)");
    let p = Pieces::parse(s).map_err(|_| bad())?;
    if p.time().is_some() || p.offset().is_some() || p.time_zone_annotation().is_some() {
        return Err(bad());
    }
    let d = p.date().since((Unit::Day, civil::date(1970, 1, 1))).map_err(|e| e.to_string())?;
    Ok(i64::from(d.get_days()))
}

/// An instant: seconds since the epoch and nanoseconds (0..1e9) after them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instant {
    pub secs: i64,
    pub nanos: u32,
}

impl Instant {
    /// Ticks of 10^-precision seconds, `None` when the instant has digits below the
    /// precision (or overflows).
    pub fn ticks(self, precision: u8) -> Option<i64> {
        let p = u32::from(precision.min(9));
        let cut = 10u32.pow(9 - p);
        if !self.nanos.is_multiple_of(cut) {
            return None;
        }
        self.secs.checked_mul(10i64.pow(p))?.checked_add(i64::from(self.nanos / cut))
    }
}

/// Date-time text (see the module docs) as an instant; `zone` is the column's (or the
/// server's) zone for a wall-clock time.
pub fn instant(s: &str, zone: &TimeZone) -> Result<Instant, String> {
    let t = s.trim();
    if let Some(i) = epoch_text(t) {
        return i.ok_or_else(|| format!("{s:?} seconds since 1970 are beyond the year 9999"));
    }
    let p = Pieces::parse(t)
        .map_err(|_| format!("{s:?} is not a date and time (YYYY-MM-DD hh:mm:ss[.fraction], ISO 8601, or seconds since 1970)"))?;
    let dt = p.date().to_datetime(p.time().unwrap_or(civil::Time::midnight()));
    let tz = match (p.offset(), p.time_zone_annotation()) {
        (Some(PiecesOffset::Zulu), _) => TimeZone::UTC,
        (Some(PiecesOffset::Numeric(o)), _) => TimeZone::fixed(o.offset()),
        (_, Some(a)) => a.to_time_zone().map_err(|e| format!("{s:?}: {e}"))?,
        _ => zone.clone(),
    };
    // A wall-clock time the zone skips or repeats: the earlier instant, as ClickHouse does.
    let ts = tz.to_ambiguous_timestamp(dt).earlier().map_err(|e| format!("{s:?}: {e}"))?;
    Ok(Instant { secs: ts.as_second(), nanos: u32::try_from(ts.subsec_nanosecond()).unwrap_or(0) })
}

/// `Some` for digits with an optional fraction (seconds since the epoch), `Some(None)` when
/// they are beyond any date.
fn epoch_text(t: &str) -> Option<Option<Instant>> {
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: i64 = match whole.parse() {
        Ok(s) => s,
        Err(_) => return Some(None),
    };
    if jiff::Timestamp::from_second(secs).is_err() {
        return Some(None);
    }
    let nanos = frac.bytes().chain(std::iter::repeat(b'0')).take(9).fold(0u32, |n, b| n * 10 + u32::from(b - b'0'));
    Some(Some(Instant { secs, nanos }))
}

/// The zone of a column (`DateTime('Asia/Tokyo')`), else the server's, else UTC; looked up
/// once per name.
pub fn zone(column: Option<&str>, server: Option<&str>) -> Result<TimeZone, String> {
    let Some(name) = column.or(server) else { return Ok(TimeZone::UTC) };
    thread_local! {
        static ZONES: std::cell::RefCell<Vec<(Box<str>, TimeZone)>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    ZONES.with(|zones| {
        let mut zones = zones.borrow_mut();
        if let Some((_, z)) = zones.iter().find(|(n, _)| &**n == name) {
            return Ok(z.clone());
        }
        let z = TimeZone::get(name).map_err(|e| format!("the time zone {name:?}: {e}"))?;
        zones.push((name.into(), z.clone()));
        Ok(z)
    })
}

// ------------------------------------------------------------------ values of the column types

/// A Date or Date32 value of days since 1970-01-01, within the type's storage (26.9 reads
/// Date32 and DateTime64 beyond their documented 1900-2299 as what they are; older servers
/// clamp them when they print them).
pub fn date_of_days(ty: &DataType, days: i64) -> Result<Value<'static>, String> {
    Ok(match ty {
        DataType::Date => {
            Value::Date(u16::try_from(days).map_err(|_| format!("day {days} is outside Date's range (1970-01-01 to 2149-06-06)"))?)
        }
        _ => Value::Date32(i32::try_from(days).map_err(|_| format!("day {days} is outside Date32's range"))?),
    })
}

/// Days since 1970-01-01 of a `Date` at midnight UTC.
pub fn days_of_ms(ms: f64) -> Result<i64, String> {
    if !ms.is_finite() {
        return Err("an invalid Date".into());
    }
    if ms.rem_euclid(86_400_000.0) != 0.0 {
        return Err("a Date with a time of day for a date column (use midnight UTC)".into());
    }
    Ok((ms / 86_400_000.0) as i64)
}

/// The instant of a `Date`'s milliseconds (and nanoseconds past them: a `PreciseDate`).
pub fn instant_of_ms(ms: f64, sub_ns: u32) -> Result<Instant, String> {
    if !ms.is_finite() || ms.fract() != 0.0 || sub_ns >= 1_000_000 {
        return Err("an invalid Date".into());
    }
    let ms = ms as i64;
    Ok(Instant { secs: ms.div_euclid(1000), nanos: (ms.rem_euclid(1000) as u32) * 1_000_000 + sub_ns })
}

/// The instant of nanoseconds since the epoch (a `PreciseDate`'s `epochNanoseconds`).
pub fn instant_of_nanos(ns: i128) -> Result<Instant, String> {
    let secs = i64::try_from(ns.div_euclid(1_000_000_000)).map_err(|_| format!("{ns} ns is beyond any date"))?;
    Ok(Instant { secs, nanos: ns.rem_euclid(1_000_000_000) as u32 })
}

/// A DateTime or DateTime64 value of an instant: exact at the column's precision and within
/// its range, else the reason.
pub fn date_time(ty: &DataType, i: Instant) -> Result<Value<'static>, String> {
    match ty {
        DataType::DateTime(_) => {
            if i.nanos != 0 {
                return Err("a time with a fraction of a second for a DateTime column, which keeps whole seconds (use DateTime64)".into());
            }
            Ok(Value::DateTime(
                u32::try_from(i.secs).map_err(|_| format!("{} s is outside DateTime's range (1970 to 2106)", i.secs))?,
                None,
            ))
        }
        DataType::DateTime64 { precision, .. } => {
            let ticks = i
                .ticks(*precision)
                .ok_or_else(|| format!("the time has digits below DateTime64({precision})'s precision, or is beyond its 64 bits"))?;
            Ok(Value::DateTime64 { ticks, precision: *precision, tz: None })
        }
        _ => Err(format!("{ty} is not a date-time type")),
    }
}

/// `[-]h:mm:ss[.fraction]` as a Time or Time64 value (hours not limited to a day; minutes and
/// seconds below 60; a Time64's digits beyond its precision must be zeros).
pub fn time(s: &str, ty: &DataType) -> Result<Value<'static>, String> {
    let bad = || format!("{s:?} is not a time ([-]h:mm:ss[.fraction])");
    let (neg, t) = match s.trim().strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.trim()),
    };
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    let mut parts = whole.split(':');
    let num = |p: Option<&str>| -> Result<i64, String> {
        p.filter(|x| !x.is_empty() && x.len() <= 9 && x.bytes().all(|b| b.is_ascii_digit())).and_then(|x| x.parse().ok()).ok_or_else(bad)
    };
    let (h, m, sec) = (num(parts.next())?, num(parts.next())?, num(parts.next())?);
    if parts.next().is_some() || m >= 60 || sec >= 60 || !frac.bytes().all(|b| b.is_ascii_digit()) || frac.len() > 9 {
        return Err(bad());
    }
    let secs = h * 3600 + m * 60 + sec;
    let sign = if neg { -1 } else { 1 };
    match ty {
        DataType::Time => {
            if frac.bytes().any(|b| b != b'0') {
                return Err(format!("{s:?} has a fraction of a second for a Time column (use Time64)"));
            }
            Ok(Value::Time(i32::try_from(sign * secs).map_err(|_| format!("{s:?} is outside Time's range"))?))
        }
        DataType::Time64(p) => {
            let nanos = frac.bytes().chain(std::iter::repeat(b'0')).take(9).fold(0i64, |n, b| n * 10 + i64::from(b - b'0'));
            let cut = 10i64.pow(9 - u32::from((*p).min(9)));
            if nanos % cut != 0 {
                return Err(format!("{s:?} has digits below Time64({p})'s precision"));
            }
            let ticks = secs.checked_mul(10i64.pow(u32::from((*p).min(9)))).and_then(|t| t.checked_add(nanos / cut)).ok_or_else(bad)?;
            Ok(Value::Time64 { ticks: sign * ticks, precision: *p })
        }
        _ => Err(format!("{ty} is not a time type")),
    }
}

// ------------------------------------------------------------------ values to JS

/// Ticks of 10^-p s (p > 3) as milliseconds and the nanoseconds past them.
pub fn precise(t: i64, p: u8) -> (f64, u32) {
    let per_ms = 10i64.pow(u32::from(p.clamp(3, 9)) - 3);
    (t.div_euclid(per_ms) as f64, (t.rem_euclid(per_ms) * 10i64.pow(9 - u32::from(p.clamp(3, 9)))) as u32)
}

/// `[-]hh:mm:ss[.fraction]` of Time/Time64 ticks of 10^-p s (hours not limited to a day).
pub fn time_text(ticks: i64, p: u8) -> String {
    let unit = 10u64.pow(p as u32);
    let sign = if ticks < 0 { "-" } else { "" };
    let t = ticks.unsigned_abs();
    let (secs, frac) = (t / unit, t % unit);
    let mut s = format!("{sign}{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if p > 0 {
        s.push_str(&format!(".{frac:0width$}", width = p as usize));
    }
    s
}
