//! Dates, date-times and times as ClickHouse prints them (clamped to its printable range).

use jiff::tz::TimeZone;

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
pub(crate) fn push_digits(out: &mut Vec<u8>, v: u64, width: usize) {
    let start = out.len();
    out.resize(start + width, b'0');
    let mut v = v;
    for i in (start..start + width).rev() {
        out[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
}

/// Days of 0000-01-01 and 9999-12-31: ClickHouse clamps dates it prints to these.
const DAYS: std::ops::RangeInclusive<i64> = -719_528..=2_932_896;

/// Appends `YYYY-MM-DD`, clamped to 0000-01-01..=9999-12-31 as ClickHouse prints.
pub fn push_date(out: &mut Vec<u8>, days: i64) {
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
pub fn push_datetime(out: &mut Vec<u8>, secs: i64, zone: Option<&str>, default: &TimeZone) {
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
pub fn time_text(secs: i64, frac: i64, precision: u8) -> String {
    let sign = if secs < 0 { "-" } else { "" };
    let s = secs.unsigned_abs();
    let mut t = format!("{sign}{:02}:{:02}:{:02}", s / 3600, s % 3600 / 60, s % 60);
    if precision > 0 {
        t.push_str(&format!(".{frac:0width$}", width = usize::from(precision)));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
