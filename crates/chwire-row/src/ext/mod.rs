//! [`FromColumn`](super::FromColumn) / [`ToColumn`](super::ToColumn) (and
//! [`QueryParam`](crate::QueryParam)) for the types of other crates, each behind the cargo
//! feature of the crate's name:
//!
//! | feature | Rust type | ClickHouse types |
//! | --- | --- | --- |
//! | `uuid` | `Uuid` | UUID |
//! | `chrono` | `NaiveDate` | Date, Date32 |
//! | | `DateTime<Utc>`, `NaiveDateTime` (UTC wall clock); writes any `DateTime<Tz>` | DateTime, DateTime64(p), any timezone |
//! | | `NaiveTime` (0 to 24 h), `TimeDelta` (signed) | Time, Time64(p) |
//! | `chrono-tz` | `DateTime<chrono_tz::Tz>`, read in the column's timezone (UTC if it names none) | DateTime, DateTime64(p) |
//! | `time` | `Date`; `OffsetDateTime` (read as UTC), `PrimitiveDateTime` (UTC wall clock); `Time`, `Duration` | as for chrono |
//! | `rust_decimal` | `Decimal` | Decimal32/64/128 |
//! | `bigdecimal` | `BigDecimal` | every Decimal, Decimal256 included |
//! | `serde_json` | `serde_json::Value` | reads JSON and String (parsed); writes String and JSON (serialized; JSON columns go as text) |
//!
//! Every conversion is exact or an error, never a silent truncation or rounding:
//! * DateTime holds whole seconds from 1970-01-01 00:00:00 to 2106-02-07 06:28:15 UTC: an
//!   instant outside that range, or with a fraction of a second, is an error.
//! * DateTime64(p) holds ticks of 10^-p s in an Int64: an instant with digits beyond the
//!   precision (say 1.2345 s into DateTime64(3)) is an error, as is one whose ticks overflow.
//!   Round or truncate first (chrono's `DurationRound`/`SubsecRound`, time's
//!   `replace_nanosecond`) if that is what you want.
//! * Date holds days 0 to 65535 (1970-01-01 to 2149-06-06), Date32 any Int32 day count.
//! * Time/Time64 hold -999:59:59 to 999:59:59 (plus the fraction); values read outside
//!   0 to 24 h are an error for the time-of-day types.
//! * Decimals keep their digits: writing rescales to the column's scale only when no digit is
//!   lost, and checks the column's precision; reading into `rust_decimal::Decimal` (96 bits,
//!   scale <= 28) is an error for values that do not fit it.
//!
//! Query parameters: UUIDs and dates as text; instants as signed Unix timestamps with their
//! fraction (`1500000000.25`), so a value means the same instant whatever the placeholder's
//! timezone; decimals as exact text (a quoted literal for old servers, where a bare number
//! would be a Float64); JSON values as their serialized text.

#[cfg(feature = "bigdecimal")]
mod bigdecimal;
#[cfg(feature = "chrono")]
mod chrono;
#[cfg(feature = "rust_decimal")]
mod rust_decimal;
#[cfg(feature = "serde_json")]
mod serde_json;
#[cfg(feature = "time")]
mod time;
#[cfg(feature = "uuid")]
mod uuid;

#[cfg(any(feature = "chrono", feature = "time", feature = "serde_json"))]
#[allow(dead_code)] // each feature uses a part
pub(crate) mod temporal {
    //! The column side of dates, instants and durations, shared by the chrono and time
    //! conversions: days since 1970-01-01, instants as (seconds since the epoch,
    //! nanoseconds 0..1e9), durations as signed nanoseconds.

    use crate::impls::bad_storage;
    use chwire_proto::{ColumnData, DataType};

    const NANOS: i128 = 1_000_000_000;
    /// Time/Time64 keep -999:59:59 to 999:59:59 (plus the fraction).
    const TIME_MAX_SECS: i128 = 999 * 3600 + 59 * 60 + 59;

    pub fn check_date(ty: &DataType, what: &str) -> Result<(), String> {
        match ty {
            DataType::Date | DataType::Date32 => Ok(()),
            _ => Err(format!("{what} reads and writes Date and Date32")),
        }
    }

    /// Days since 1970-01-01 of row `row` of a Date or Date32 column.
    #[inline]
    pub fn read_days(data: &ColumnData, row: usize) -> Result<i64, String> {
        match data {
            ColumnData::UInt16(v) => Ok(v[row].into()),
            ColumnData::Int32(v) => Ok(v[row].into()),
            other => Err(bad_storage(other)),
        }
    }

    pub fn push_days(ty: &DataType, col: &mut ColumnData, days: i64, shown: &dyn std::fmt::Display) -> Result<(), String> {
        match (ty, col) {
            (DataType::Date, ColumnData::UInt16(v)) => {
                v.push(u16::try_from(days).map_err(|_| format!("{shown} is outside Date's range 1970-01-01 to 2149-06-06 (use Date32)"))?)
            }
            (DataType::Date32, ColumnData::Int32(v)) => {
                v.push(i32::try_from(days).map_err(|_| format!("{shown} is outside the range of Date32 (Int32 days)"))?)
            }
            (_, other) => return Err(bad_storage(other)),
        }
        Ok(())
    }

    pub fn check_instant(ty: &DataType, what: &str) -> Result<(), String> {
        match ty {
            DataType::DateTime(_) | DataType::DateTime64 { precision: 0..=9, .. } => Ok(()),
            _ => Err(format!("{what} reads and writes DateTime and DateTime64 (any timezone)")),
        }
    }

    /// The column's timezone, if its type names one.
    pub fn timezone(ty: &DataType) -> Option<&str> {
        match ty {
            DataType::DateTime(tz) | DataType::DateTime64 { tz, .. } => tz.as_deref(),
            _ => None,
        }
    }

    /// (seconds since the epoch, nanoseconds) of row `row` of a DateTime/DateTime64 column.
    #[inline]
    pub fn read_instant(ty: &DataType, data: &ColumnData, row: usize) -> Result<(i64, u32), String> {
        match (ty, data) {
            (DataType::DateTime(_), ColumnData::UInt32(v)) => Ok((v[row].into(), 0)),
            (DataType::DateTime64 { precision, .. }, ColumnData::Int64(v)) => {
                let p = u32::from(*precision);
                let per_sec = 10i64.checked_pow(p).filter(|_| p <= 9).ok_or_else(|| format!("precision {p} is above 9"))?;
                let (secs, frac) = (v[row].div_euclid(per_sec), v[row].rem_euclid(per_sec));
                Ok((secs, (frac * 10i64.pow(9 - p)) as u32))
            }
            (_, other) => Err(bad_storage(other)),
        }
    }

    pub fn push_instant(ty: &DataType, col: &mut ColumnData, secs: i64, nanos: u32, shown: &dyn std::fmt::Display) -> Result<(), String> {
        match (ty, col) {
            (DataType::DateTime(_), ColumnData::UInt32(v)) => {
                if nanos != 0 {
                    return Err(format!(
                        "{shown} has a fraction of a second and DateTime holds whole seconds: truncate or round it first, or use DateTime64"
                    ));
                }
                v.push(u32::try_from(secs).map_err(|_| {
                    format!("{shown} is outside DateTime's range 1970-01-01 00:00:00 to 2106-02-07 06:28:15 UTC (use DateTime64)")
                })?);
            }
            (DataType::DateTime64 { precision, .. }, ColumnData::Int64(v)) => {
                let p = u32::from(*precision);
                let dropped = 10u32.checked_pow(9u32.checked_sub(p).ok_or_else(|| format!("precision {p} is above 9"))?).unwrap_or(1);
                if nanos % dropped != 0 {
                    return Err(format!("{shown} has more digits than DateTime64({p}) keeps: round or truncate it to {p} decimals first"));
                }
                let ticks = secs.checked_mul(10i64.pow(p)).and_then(|t| t.checked_add(i64::from(nanos / dropped)));
                v.push(ticks.ok_or_else(|| format!("{shown} is outside the range of DateTime64({p}) (Int64 ticks)"))?);
            }
            (_, other) => return Err(bad_storage(other)),
        }
        Ok(())
    }

    pub fn check_time(ty: &DataType, what: &str) -> Result<(), String> {
        match ty {
            DataType::Time | DataType::Time64(0..=9) => Ok(()),
            _ => Err(format!("{what} reads and writes Time and Time64")),
        }
    }

    /// Signed nanoseconds of row `row` of a Time/Time64 column.
    #[inline]
    pub fn read_duration(ty: &DataType, data: &ColumnData, row: usize) -> Result<i128, String> {
        match (ty, data) {
            (DataType::Time, ColumnData::Int32(v)) => Ok(i128::from(v[row]) * NANOS),
            (DataType::Time64(p), ColumnData::Int64(v)) if *p <= 9 => Ok(i128::from(v[row]) * 10i128.pow(9 - u32::from(*p))),
            (_, other) => Err(bad_storage(other)),
        }
    }

    /// Nanoseconds in 0..24 h of a time-of-day read from Time/Time64.
    pub fn time_of_day(nanos: i128) -> Result<u64, String> {
        if (0..86_400 * NANOS).contains(&nanos) {
            Ok(nanos as u64)
        } else {
            Err(format!("{} is not a time of day (0 to 24 h): read it as a duration", time_text(nanos)))
        }
    }

    pub fn push_duration(ty: &DataType, col: &mut ColumnData, nanos: i128, shown: &dyn std::fmt::Display) -> Result<(), String> {
        if nanos.abs() >= (TIME_MAX_SECS + 1) * NANOS {
            return Err(format!("{shown} is outside the range of {ty}, -999:59:59 to 999:59:59"));
        }
        match (ty, col) {
            (DataType::Time, ColumnData::Int32(v)) => {
                if nanos % NANOS != 0 {
                    return Err(format!("{shown} has a fraction of a second and Time holds whole seconds: use Time64 or truncate it"));
                }
                v.push((nanos / NANOS) as i32);
            }
            (DataType::Time64(p), ColumnData::Int64(v)) if *p <= 9 => {
                let dropped = 10i128.pow(9 - u32::from(*p));
                if nanos % dropped != 0 {
                    return Err(format!("{shown} has more digits than Time64({p}) keeps: round or truncate it to {p} decimals first"));
                }
                v.push((nanos / dropped) as i64);
            }
            (_, other) => return Err(bad_storage(other)),
        }
        Ok(())
    }

    /// Year, month, day of a count of days since 1970-01-01 (proleptic Gregorian).
    pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
        // Howard Hinnant's algorithm.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        (yoe + era * 400 + i64::from(m <= 2), m, d)
    }

    pub fn date_text(days: i64) -> String {
        let (y, m, d) = civil_from_days(days);
        format!("{y:04}-{m:02}-{d:02}")
    }

    /// `YYYY-MM-DD hh:mm:ss[.fraction]` in UTC, with `digits` decimals (0 to 9).
    pub fn datetime_text(secs: i64, nanos: u32, digits: u32) -> String {
        let (days, s) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
        let mut out = format!("{} {:02}:{:02}:{:02}", date_text(days), s / 3600, s / 60 % 60, s % 60);
        push_fraction(&mut out, nanos, digits);
        out
    }

    fn push_fraction(out: &mut String, nanos: u32, digits: u32) {
        if digits > 0 {
            let f = format!("{nanos:09}");
            out.push('.');
            out.push_str(&f[..digits.min(9) as usize]);
        }
    }

    /// The fewest decimals that show `nanos` exactly.
    pub fn fraction_digits(nanos: u32) -> u32 {
        if nanos == 0 {
            0
        } else {
            9 - (0..9).take_while(|k| nanos % 10u32.pow(k + 1) == 0).count() as u32
        }
    }

    /// `[-]h:mm:ss[.fraction]`, ClickHouse's text of Time/Time64.
    pub fn time_text(nanos: i128) -> String {
        let sign = if nanos < 0 { "-" } else { "" };
        let (secs, frac) = ((nanos.abs() / NANOS) as u64, (nanos.abs() % NANOS) as u32);
        let mut out = format!("{sign}{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
        push_fraction(&mut out, frac, fraction_digits(frac));
        out
    }

    /// A query parameter's text for an instant: the signed Unix timestamp with its fraction
    /// (`1500000000.25`, `-0000000100.5`; 10 digits at least, as ClickHouse's parser wants),
    /// which ClickHouse reads as the same instant whatever the placeholder's timezone. Within
    /// the second before the epoch (where ClickHouse reads `-0.5` as `+0.5`) it is UTC text,
    /// right for UTC placeholders only.
    pub fn instant_param_text(secs: i64, nanos: u32) -> String {
        let total = i128::from(secs) * NANOS + i128::from(nanos);
        if total < 0 && total > -NANOS {
            return datetime_text(secs, nanos, fraction_digits(nanos));
        }
        let (whole, frac) = (total.abs() / NANOS, (total.abs() % NANOS) as u32);
        let mut out = format!("{}{whole:010}", if total < 0 { "-" } else { "" });
        push_fraction(&mut out, frac, fraction_digits(frac));
        out
    }

    /// An SQL literal for an instant, for servers without server-side parameters: a number
    /// (a DateTime cast from a number is that Unix timestamp), else quoted text: the
    /// timestamp, or (before 1970, after 2286) UTC text with a `Z`.
    pub fn instant_sql_literal(secs: i64, nanos: u32) -> String {
        if secs >= 0 && nanos == 0 {
            secs.to_string()
        } else if (0..10_000_000_000).contains(&secs) {
            format!("'{}'", instant_param_text(secs, nanos))
        } else {
            format!("'{}Z'", datetime_text(secs, nanos, fraction_digits(nanos)))
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn civil_dates_and_texts() {
            assert_eq!(civil_from_days(0), (1970, 1, 1));
            assert_eq!(civil_from_days(-25_567), (1900, 1, 1));
            assert_eq!(civil_from_days(120_529), (2299, 12, 31));
            assert_eq!(civil_from_days(65_535), (2149, 6, 6));
            assert_eq!(civil_from_days(-1), (1969, 12, 31));
            assert_eq!(civil_from_days(11_016), (2000, 2, 29));
            assert_eq!(datetime_text(1_500_000_000, 250_000_000, 3), "2017-07-14 02:40:00.250");
            assert_eq!(datetime_text(-1, 500_000_000, 1), "1969-12-31 23:59:59.5");
            assert_eq!(instant_param_text(1_500_000_000, 250_000_000), "1500000000.25");
            assert_eq!(instant_param_text(123, 0), "0000000123");
            assert_eq!(instant_param_text(-1, 500_000_000), "1969-12-31 23:59:59.5");
            assert_eq!(instant_param_text(-101, 500_000_000), "-0000000100.5");
            assert_eq!(instant_param_text(-2_208_988_800, 0), "-2208988800");
            assert_eq!(instant_sql_literal(-101, 500_000_000), "'1969-12-31 23:58:19.5Z'");
            assert_eq!(instant_sql_literal(1_500_000_000, 0), "1500000000");
            assert_eq!(instant_sql_literal(5, 1), "'0000000005.000000001'");
            assert_eq!(time_text(-3_600_500_000_000), "-01:00:00.5");
            assert_eq!(time_text(3_599_999 * NANOS), "999:59:59");
            assert_eq!(fraction_digits(120_000_000), 2);
        }
    }
}
