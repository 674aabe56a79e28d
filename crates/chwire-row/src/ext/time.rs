//! time: `Date` ↔ Date/Date32; `OffsetDateTime` (read as UTC; any offset writes) and
//! `PrimitiveDateTime` (UTC wall clock) ↔ DateTime/DateTime64; `Time` (0 to 24 h) and
//! `Duration` ↔ Time/Time64. See the table in `ext`.

use ::time::{Date, Duration, OffsetDateTime, PrimitiveDateTime, Time};

use super::temporal as tm;
use crate::QueryParam;
use crate::{FromColumn, ToColumn};
use chwire_proto::{ColumnData, DataType};

/// The Julian day number of 1970-01-01.
const EPOCH_JULIAN_DAY: i64 = 2_440_588;

fn days_of(d: &Date) -> i64 {
    i64::from(d.to_julian_day()) - EPOCH_JULIAN_DAY
}

impl<'a> FromColumn<'a> for Date {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        tm::check_date(ty, "time::Date")
    }

    #[inline]
    fn read_plain(_: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        let days = tm::read_days(data, row)?;
        i32::try_from(days + EPOCH_JULIAN_DAY)
            .ok()
            .and_then(|jd| Date::from_julian_day(jd).ok())
            .ok_or_else(|| format!("day {days} is outside the time crate's range"))
    }
}

impl ToColumn for Date {
    fn check_write(ty: &DataType) -> Result<(), String> {
        tm::check_date(ty, "time::Date")
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        tm::push_days(ty, col, days_of(self), self)
    }
}

fn utc_at(ty: &DataType, data: &ColumnData, row: usize) -> Result<OffsetDateTime, String> {
    let (secs, nanos) = tm::read_instant(ty, data, row)?;
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(secs) * 1_000_000_000 + i128::from(nanos))
        .map_err(|_| format!("{secs} s since the epoch is outside the time crate's range"))
}

/// Read with the UTC offset (the time crate has no timezone database); any offset writes
/// its instant.
impl<'a> FromColumn<'a> for OffsetDateTime {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        tm::check_instant(ty, "OffsetDateTime")
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        utc_at(ty, data, row)
    }
}

impl ToColumn for OffsetDateTime {
    fn check_write(ty: &DataType) -> Result<(), String> {
        tm::check_instant(ty, "OffsetDateTime")
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        tm::push_instant(ty, col, self.unix_timestamp(), self.nanosecond(), self)
    }
}

/// A UTC wall-clock time: the instant `self.assume_utc()`.
impl<'a> FromColumn<'a> for PrimitiveDateTime {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        tm::check_instant(ty, "PrimitiveDateTime (UTC)")
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        let t = utc_at(ty, data, row)?;
        Ok(PrimitiveDateTime::new(t.date(), t.time()))
    }
}

impl ToColumn for PrimitiveDateTime {
    fn check_write(ty: &DataType) -> Result<(), String> {
        tm::check_instant(ty, "PrimitiveDateTime (UTC)")
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        let t = self.assume_utc();
        tm::push_instant(ty, col, t.unix_timestamp(), t.nanosecond(), &format_args!("{self} (UTC)"))
    }
}

fn nanos_of_day(t: &Time) -> i128 {
    let (h, m, s, n) = t.as_hms_nano();
    (i128::from(h) * 3600 + i128::from(m) * 60 + i128::from(s)) * 1_000_000_000 + i128::from(n)
}

/// A time of day (0 to 24 h); other Time values are an error (read them as `Duration`).
impl<'a> FromColumn<'a> for Time {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        tm::check_time(ty, "time::Time")
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        let n = tm::time_of_day(tm::read_duration(ty, data, row)?)?;
        let s = n / 1_000_000_000;
        Time::from_hms_nano((s / 3600) as u8, (s / 60 % 60) as u8, (s % 60) as u8, (n % 1_000_000_000) as u32).map_err(|e| e.to_string())
    }
}

impl ToColumn for Time {
    fn check_write(ty: &DataType) -> Result<(), String> {
        tm::check_time(ty, "time::Time")
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        tm::push_duration(ty, col, nanos_of_day(self), self)
    }
}

impl<'a> FromColumn<'a> for Duration {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        tm::check_time(ty, "time::Duration")
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        // Time and Time64 values are within ±1000 h: they fit an i64 of nanoseconds.
        Ok(Duration::nanoseconds(tm::read_duration(ty, data, row)? as i64))
    }
}

impl ToColumn for Duration {
    fn check_write(ty: &DataType) -> Result<(), String> {
        tm::check_time(ty, "time::Duration")
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        tm::push_duration(ty, col, self.whole_nanoseconds(), self)
    }
}

impl QueryParam for Date {
    fn param_text(&self) -> String {
        tm::date_text(days_of(self))
    }
    fn sql_literal(&self) -> String {
        format!("'{}'", self.param_text())
    }
}

/// An instant, whatever the placeholder's timezone (see `ext`).
impl QueryParam for OffsetDateTime {
    fn param_text(&self) -> String {
        tm::instant_param_text(self.unix_timestamp(), self.nanosecond())
    }
    fn sql_literal(&self) -> String {
        tm::instant_sql_literal(self.unix_timestamp(), self.nanosecond())
    }
}

/// The instant of this UTC wall-clock time.
impl QueryParam for PrimitiveDateTime {
    fn param_text(&self) -> String {
        self.assume_utc().param_text()
    }
    fn sql_literal(&self) -> String {
        self.assume_utc().sql_literal()
    }
}

impl QueryParam for Time {
    fn param_text(&self) -> String {
        tm::time_text(nanos_of_day(self))
    }
    fn sql_literal(&self) -> String {
        format!("'{}'", self.param_text())
    }
}

impl QueryParam for Duration {
    fn param_text(&self) -> String {
        tm::time_text(self.whole_nanoseconds())
    }
    fn sql_literal(&self) -> String {
        format!("'{}'", self.param_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::{block_of, rows_of, Row};
    use ::time::{Month, UtcOffset};

    fn ty(s: &str) -> DataType {
        DataType::parse(s).unwrap()
    }

    #[derive(Row, Debug, PartialEq, Clone)]
    struct Times {
        d: Date,
        d32: Date,
        at: OffsetDateTime,
        at_us: OffsetDateTime,
        wall: PrimitiveDateTime,
        tod: Time,
        span: Duration,
    }

    fn sample(i: i64) -> Times {
        let at = OffsetDateTime::from_unix_timestamp(1_500_000_000 + i * 86_399).unwrap();
        Times {
            d: Date::from_calendar_date(1970, Month::January, 1).unwrap() + Duration::days(i * 1_311),
            d32: Date::from_calendar_date(1800, Month::March, 1).unwrap() + Duration::days(i * 3_001),
            at,
            at_us: OffsetDateTime::from_unix_timestamp_nanos(i128::from(i) * -987_654_321_000).unwrap(),
            wall: PrimitiveDateTime::new(at.date(), at.time()),
            tod: Time::from_hms_nano(23, 59, 59, 999_999_000).unwrap() - Duration::seconds(i * 1_000),
            span: Duration::microseconds(3_599_999_999_999 - i * 146_938_000_123),
        }
    }

    #[test]
    fn time_values_round_trip_through_blocks() {
        let cols: Vec<_> = [
            ("d", "Date"),
            ("d32", "Date32"),
            ("at", "DateTime('Europe/Berlin')"),
            ("at_us", "DateTime64(6, 'Asia/Tokyo')"),
            ("wall", "DateTime64(0)"),
            ("tod", "Time64(6)"),
            ("span", "Time64(6)"),
        ]
        .into_iter()
        .map(|(n, t)| (n, ty(t)))
        .collect();
        let rows: Vec<Times> = (0..50).map(sample).collect();
        let block = block_of::<Times>(&cols, &rows).unwrap();
        assert_eq!(rows_of::<Times>(&block).unwrap(), rows);
        assert_eq!(block.column("d32").unwrap().value(0), chwire_proto::Value::Date32(-62_032));
    }

    #[test]
    fn offsets_write_their_instant_and_inexact_values_are_errors() {
        let t = OffsetDateTime::from_unix_timestamp(1_500_000_000).unwrap().to_offset(UtcOffset::from_hms(5, 30, 0).unwrap());
        let block = block_of::<(OffsetDateTime,)>(&[("c", ty("DateTime"))], &[(t,)]).unwrap();
        assert_eq!(block.column("c").unwrap().value(0), chwire_proto::Value::DateTime(1_500_000_000, None));
        let back = rows_of::<(OffsetDateTime,)>(&block).unwrap()[0].0;
        assert_eq!((back, back.offset()), (t, UtcOffset::UTC));
        let e = block_of::<(OffsetDateTime,)>(&[("c", ty("DateTime64(3)"))], &[(t + Duration::microseconds(1),)]).unwrap_err();
        assert!(e.to_string().contains("more digits than DateTime64(3)"), "{e}");
        let e = block_of::<(Date,)>(&[("c", ty("Date"))], &[(Date::from_calendar_date(1969, Month::December, 31).unwrap(),)]).unwrap_err();
        assert!(e.to_string().contains("outside Date's range"), "{e}");
        assert_eq!(t.param_text(), "1500000000");
        assert_eq!(Duration::milliseconds(-1500).param_text(), "-00:00:01.5");
    }
}
