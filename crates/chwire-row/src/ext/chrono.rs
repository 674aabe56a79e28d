//! chrono: `NaiveDate` ↔ Date/Date32; `DateTime<Utc>`, `NaiveDateTime` (UTC wall clock) and,
//! with `chrono-tz`, `DateTime<chrono_tz::Tz>` ↔ DateTime/DateTime64 (any `DateTime<Tz>`
//! writes); `NaiveTime` and `TimeDelta` ↔ Time/Time64. See the table in `ext`.

use std::fmt::Display;

use ::chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, TimeZone, Timelike, Utc};

use super::temporal as tm;
use crate::QueryParam;
use crate::{FromColumn, ToColumn};
use chwire_proto::{ColumnData, DataType};

/// Days from 0001-01-01 (chrono's day 1 of the common era) to 1970-01-01.
const CE_TO_EPOCH: i64 = 719_163;

fn days_of(d: &NaiveDate) -> i64 {
    i64::from(d.num_days_from_ce()) - CE_TO_EPOCH
}

impl<'a> FromColumn<'a> for NaiveDate {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        tm::check_date(ty, "NaiveDate")
    }

    #[inline]
    fn read_plain(_: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        let days = tm::read_days(data, row)?;
        i32::try_from(days + CE_TO_EPOCH)
            .ok()
            .and_then(NaiveDate::from_num_days_from_ce_opt)
            .ok_or_else(|| format!("day {days} is outside chrono's range"))
    }
}

impl ToColumn for NaiveDate {
    fn check_write(ty: &DataType) -> Result<(), String> {
        tm::check_date(ty, "NaiveDate")
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        tm::push_days(ty, col, days_of(self), self)
    }
}

fn instant<Tz: TimeZone>(t: &DateTime<Tz>) -> Result<(i64, u32), String> {
    let nanos = t.timestamp_subsec_nanos();
    if nanos >= 1_000_000_000 {
        return Err(format!("{} is a leap second, which ClickHouse has no place for", t.naive_utc()));
    }
    Ok((t.timestamp(), nanos))
}

fn utc_at(ty: &DataType, data: &ColumnData, row: usize) -> Result<DateTime<Utc>, String> {
    let (secs, nanos) = tm::read_instant(ty, data, row)?;
    DateTime::from_timestamp(secs, nanos).ok_or_else(|| format!("{secs} s since the epoch is outside chrono's range"))
}

impl<'a> FromColumn<'a> for DateTime<Utc> {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        tm::check_instant(ty, "DateTime<Utc>")
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        utc_at(ty, data, row)
    }
}

/// Any `DateTime<Tz>` writes its instant (the column's timezone only changes how ClickHouse
/// shows it).
impl<Tz: TimeZone> ToColumn for DateTime<Tz>
where
    Tz::Offset: Display,
{
    fn check_write(ty: &DataType) -> Result<(), String> {
        tm::check_instant(ty, "DateTime")
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        let (secs, nanos) = instant(self)?;
        tm::push_instant(ty, col, secs, nanos, self)
    }
}

/// A UTC wall-clock time: the instant `self.and_utc()`.
impl<'a> FromColumn<'a> for NaiveDateTime {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        tm::check_instant(ty, "NaiveDateTime (UTC)")
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        utc_at(ty, data, row).map(|t| t.naive_utc())
    }
}

impl ToColumn for NaiveDateTime {
    fn check_write(ty: &DataType) -> Result<(), String> {
        tm::check_instant(ty, "NaiveDateTime (UTC)")
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        let (secs, nanos) = instant(&self.and_utc())?;
        tm::push_instant(ty, col, secs, nanos, &format_args!("{self} (UTC)"))
    }
}

/// A DateTime in the column's own timezone (`DateTime('Europe/Berlin')`); UTC for columns
/// whose type names no timezone (the server's zone is not part of the type).
#[cfg(feature = "chrono-tz")]
impl<'a> FromColumn<'a> for DateTime<::chrono_tz::Tz> {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        tm::check_instant(ty, "DateTime<chrono_tz::Tz>")?;
        zone(ty).map(drop)
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        Ok(utc_at(ty, data, row)?.with_timezone(&zone(ty)?))
    }
}

#[cfg(feature = "chrono-tz")]
fn zone(ty: &DataType) -> Result<::chrono_tz::Tz, String> {
    match tm::timezone(ty) {
        None => Ok(::chrono_tz::UTC),
        Some(name) => name.parse().map_err(|_| format!("chrono-tz does not know the timezone {name:?}")),
    }
}

fn nanos_of_day(t: &NaiveTime) -> Result<i128, String> {
    if t.nanosecond() >= 1_000_000_000 {
        return Err(format!("{t} is a leap second, which ClickHouse has no place for"));
    }
    Ok(i128::from(t.num_seconds_from_midnight()) * 1_000_000_000 + i128::from(t.nanosecond()))
}

/// A time of day (0 to 24 h); other Time values are an error (read them as `TimeDelta`).
impl<'a> FromColumn<'a> for NaiveTime {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        tm::check_time(ty, "NaiveTime")
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        let n = tm::time_of_day(tm::read_duration(ty, data, row)?)?;
        NaiveTime::from_num_seconds_from_midnight_opt((n / 1_000_000_000) as u32, (n % 1_000_000_000) as u32)
            .ok_or_else(|| format!("{n} ns is not a time of day"))
    }
}

impl ToColumn for NaiveTime {
    fn check_write(ty: &DataType) -> Result<(), String> {
        tm::check_time(ty, "NaiveTime")
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        tm::push_duration(ty, col, nanos_of_day(self)?, self)
    }
}

impl<'a> FromColumn<'a> for TimeDelta {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        tm::check_time(ty, "TimeDelta")
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        // Time and Time64 values are within ±1000 h: they fit an i64 of nanoseconds.
        Ok(TimeDelta::nanoseconds(tm::read_duration(ty, data, row)? as i64))
    }
}

impl ToColumn for TimeDelta {
    fn check_write(ty: &DataType) -> Result<(), String> {
        tm::check_time(ty, "TimeDelta")
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        let nanos = i128::from(self.num_seconds()) * 1_000_000_000 + i128::from(self.subsec_nanos());
        tm::push_duration(ty, col, nanos, self)
    }
}

impl QueryParam for NaiveDate {
    fn param_text(&self) -> String {
        tm::date_text(days_of(self))
    }
    fn sql_literal(&self) -> String {
        format!("'{}'", self.param_text())
    }
}

/// An instant, whatever the placeholder's timezone (see `ext`).
impl<Tz: TimeZone> QueryParam for DateTime<Tz> {
    fn param_text(&self) -> String {
        tm::instant_param_text(self.timestamp(), self.timestamp_subsec_nanos())
    }
    fn sql_literal(&self) -> String {
        tm::instant_sql_literal(self.timestamp(), self.timestamp_subsec_nanos())
    }
}

/// The instant of this UTC wall-clock time.
impl QueryParam for NaiveDateTime {
    fn param_text(&self) -> String {
        self.and_utc().param_text()
    }
    fn sql_literal(&self) -> String {
        self.and_utc().sql_literal()
    }
}

impl QueryParam for NaiveTime {
    fn param_text(&self) -> String {
        tm::time_text(i128::from(self.num_seconds_from_midnight()) * 1_000_000_000 + i128::from(self.nanosecond() % 1_000_000_000))
    }
    fn sql_literal(&self) -> String {
        format!("'{}'", self.param_text())
    }
}

impl QueryParam for TimeDelta {
    fn param_text(&self) -> String {
        tm::time_text(i128::from(self.num_seconds()) * 1_000_000_000 + i128::from(self.subsec_nanos()))
    }
    fn sql_literal(&self) -> String {
        format!("'{}'", self.param_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::{block_of, rows_of, Row};

    fn ty(s: &str) -> DataType {
        DataType::parse(s).unwrap()
    }

    #[derive(Row, Debug, PartialEq, Clone)]
    struct Times {
        d: NaiveDate,
        d32: NaiveDate,
        at: DateTime<Utc>,
        at_ms: DateTime<Utc>,
        naive: NaiveDateTime,
        naive_ns: NaiveDateTime,
        tod: NaiveTime,
        span: TimeDelta,
        span_us: TimeDelta,
        lc_day: Option<NaiveDate>,
    }

    fn columns() -> Vec<(&'static str, DataType)> {
        [
            ("d", "Date"),
            ("d32", "Date32"),
            ("at", "DateTime('Asia/Kolkata')"),
            ("at_ms", "DateTime64(3, 'America/New_York')"),
            ("naive", "DateTime"),
            ("naive_ns", "DateTime64(9)"),
            ("tod", "Time"),
            ("span", "Time64(0)"),
            ("span_us", "Time64(6)"),
            ("lc_day", "LowCardinality(Nullable(Date))"),
        ]
        .into_iter()
        .map(|(n, t)| (n, ty(t)))
        .collect()
    }

    fn sample(i: i64) -> Times {
        let at = DateTime::from_timestamp(1_500_000_000 + i * 86_399, 0).unwrap();
        Times {
            d: NaiveDate::from_ymd_opt(2149, 6, 6).unwrap() - TimeDelta::days(i),
            d32: NaiveDate::from_ymd_opt(1850, 1, 1).unwrap() + TimeDelta::days(i * 997),
            at,
            at_ms: DateTime::from_timestamp(-86_400_000 + i * 1_234_567, (i as u32 % 1000) * 1_000_000).unwrap(),
            naive: at.naive_utc(),
            naive_ns: DateTime::from_timestamp(i * 7_777_777, i as u32 * 13).unwrap().naive_utc(),
            tod: NaiveTime::from_num_seconds_from_midnight_opt((i * 3_607 % 86_400) as u32, 0).unwrap(),
            span: TimeDelta::seconds(3_599_999 - i * 146_938),
            span_us: TimeDelta::microseconds(-3_599_999_999_999 + i * 123_456_789),
            lc_day: (i % 3 != 0).then(|| NaiveDate::from_ymd_opt(2000, 2, 29).unwrap()),
        }
    }

    #[test]
    fn chrono_values_round_trip_through_blocks() {
        let rows: Vec<Times> = (0..50).map(sample).collect();
        let block = block_of::<Times>(&columns(), &rows).unwrap();
        assert_eq!(rows_of::<Times>(&block).unwrap(), rows);
        // The storage is what ClickHouse expects.
        assert_eq!(block.column("d").unwrap().value(0), chwire_proto::Value::Date(65_535));
        assert_eq!(block.column("at").unwrap().value(0), chwire_proto::Value::DateTime(1_500_000_000, Some("Asia/Kolkata")));
        assert_eq!(
            block.column("at_ms").unwrap().value(1),
            chwire_proto::Value::DateTime64 { ticks: (-86_400_000 + 1_234_567) * 1000 + 1, precision: 3, tz: Some("America/New_York") }
        );
        assert_eq!(block.column("span").unwrap().value(0), chwire_proto::Value::Time64 { ticks: 3_599_999, precision: 0 });
    }

    fn write_err<T: for<'a> FromColumn<'a> + ToColumn + 'static>(v: T, ty_name: &str) -> String {
        let cols = [("c", ty(ty_name))];
        let e = block_of::<(T,)>(&cols, &[(v,)]).unwrap_err();
        e.to_string()
    }

    #[test]
    fn out_of_range_and_inexact_writes_are_errors() {
        let at = |s: i64, n: u32| DateTime::from_timestamp(s, n).unwrap();
        assert!(write_err(at(-1, 0), "DateTime").contains("outside DateTime's range"));
        assert!(write_err(at(1 << 32, 0), "DateTime").contains("outside DateTime's range"));
        assert!(write_err(at(5, 1), "DateTime").contains("fraction of a second"));
        assert!(write_err(at(5, 1_000_000), "DateTime64(2)").contains("more digits than DateTime64(2)"));
        assert!(write_err(at(9_300_000_000, 0), "DateTime64(9)").contains("outside the range of DateTime64(9)"));
        let d = NaiveDate::from_ymd_opt(1969, 12, 31).unwrap();
        assert!(write_err(d, "Date").contains("outside Date's range"));
        assert!(write_err(NaiveDate::from_ymd_opt(2149, 6, 7).unwrap(), "Date").contains("outside Date's range"));
        assert!(write_err(TimeDelta::seconds(3_600_000), "Time").contains("outside the range"));
        assert!(write_err(TimeDelta::milliseconds(1500), "Time").contains("fraction"));
        assert!(write_err(TimeDelta::nanoseconds(1500), "Time64(6)").contains("more digits"));
        assert!(write_err(d, "DateTime").contains("Date and Date32"));
        // Exact values at the edges fit.
        let edges = [(at(0, 0),), (at(u32::MAX.into(), 0),)];
        block_of::<(DateTime<Utc>,)>(&[("c", ty("DateTime"))], &edges).unwrap();
        // Reading a Time beyond a day as a time of day is an error.
        let block = block_of::<(TimeDelta,)>(&[("c", ty("Time"))], &[(TimeDelta::hours(25),)]).unwrap();
        let e = rows_of::<(NaiveTime,)>(&block).unwrap_err().to_string();
        assert!(e.contains("not a time of day"), "{e}");
        assert_eq!(rows_of::<(TimeDelta,)>(&block).unwrap(), [(TimeDelta::hours(25),)]);
    }

    #[cfg(feature = "chrono-tz")]
    #[test]
    fn zoned_reads_use_the_column_timezone() {
        use ::chrono_tz::Tz;
        let t = DateTime::from_timestamp(1_500_000_000, 0).unwrap();
        let cols = [("a", ty("DateTime('Europe/Berlin')")), ("b", ty("DateTime64(3, 'Asia/Tokyo')")), ("c", ty("DateTime"))];
        let block = block_of::<(DateTime<Utc>, DateTime<Utc>, DateTime<Utc>)>(&cols, &[(t, t, t)]).unwrap();
        let (a, b, c) = rows_of::<(DateTime<Tz>, DateTime<Tz>, DateTime<Tz>)>(&block).unwrap().remove(0);
        assert_eq!(a.to_rfc3339(), "2017-07-14T04:40:00+02:00");
        assert_eq!(b.to_rfc3339(), "2017-07-14T11:40:00+09:00");
        assert_eq!(c.to_rfc3339(), "2017-07-14T02:40:00+00:00");
        assert_eq!(a, t);
        // Written back from a zoned value: the same instant.
        let again = block_of::<(DateTime<Tz>, DateTime<Tz>, DateTime<Tz>)>(&cols, &[(a, b, c)]).unwrap();
        assert_eq!(again.column("a").unwrap().value(0), block.column("a").unwrap().value(0));
        let bad = [("a", ty("DateTime('Mars/Olympus')"))];
        let block = block_of::<(DateTime<Utc>,)>(&bad, &[(t,)]).unwrap();
        assert!(rows_of::<(DateTime<Tz>,)>(&block).unwrap_err().to_string().contains("Mars/Olympus"));
    }

    #[test]
    fn parameters() {
        let t = DateTime::from_timestamp(1_500_000_000, 250_000_000).unwrap();
        assert_eq!(t.param_text(), "1500000000.25");
        assert_eq!(t.naive_utc().sql_literal(), "'1500000000.25'");
        assert_eq!(NaiveDate::from_ymd_opt(1900, 1, 2).unwrap().sql_literal(), "'1900-01-02'");
        assert_eq!(TimeDelta::milliseconds(-3_723_500).param_text(), "-01:02:03.5");
        assert_eq!(NaiveTime::from_hms_opt(23, 59, 1).unwrap().param_text(), "23:59:01");
    }
}
