//! Typed rows against ClickHouse 26.9 (chdb), for the types the 18.16 rig lacks: the
//! feature types (DateTime64, Date32, Time/Time64, Decimal256, JSON, and the rest) and the
//! std ones (Int128 to UInt256, Map, IPv4/IPv6, Bool, LowCardinality of numbers and dates).
//! Driven by tests/oracle/rows.py, which holds the same formulas in SQL.
//!
//! ```text
//! rows_oracle columns          the columns as JSON lines: name, read type, write type
//! rows_oracle read FILE        decode chdb's Native FILE with rows_of::<OracleRow>; every row
//!                              must equal the row computed from its id (exit 1 otherwise)
//! rows_oracle write FILE N     rows 0..N from the formulas, block_of, written as Native
//! rows_oracle params           query parameters (text and SQL literal) of some rows' values
//! ```
//!
//! Needs the features uuid, chrono, chrono-tz, time, rust_decimal, bigdecimal, serde_json
//! (enabled for chwire's examples and tests by its dev-dependency on itself).

#[cfg(all(
    feature = "uuid",
    feature = "chrono",
    feature = "chrono-tz",
    feature = "time",
    feature = "rust_decimal",
    feature = "bigdecimal",
    feature = "serde_json"
))]
mod oracle {
    use std::collections::{BTreeMap, HashMap};
    use std::net::{Ipv4Addr, Ipv6Addr};

    use bigdecimal::num_bigint::{BigInt, Sign};
    use bigdecimal::BigDecimal;
    use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Utc};
    use chrono_tz::Tz;
    use chwire::proto::native;
    use chwire::row::{block_of, rows_of, I256, U256};
    use chwire::{DataType, QueryParam, Row};
    use rust_decimal::Decimal;
    use serde_json::json;
    use uuid::Uuid;

    #[derive(Row, Debug, Clone, PartialEq)]
    pub struct OracleRow {
        id: u64,
        u: Uuid,
        d: NaiveDate,
        d32: NaiveDate,
        dt: DateTime<Utc>,
        dt_berlin: Option<DateTime<Tz>>,
        dt64: DateTime<Utc>,
        dt64_berlin: Vec<DateTime<Tz>>,
        dt64n: NaiveDateTime,
        tm: NaiveTime,
        tm64: TimeDelta,
        t_d32: time::Date,
        t_dt64: time::OffsetDateTime,
        t_wall: time::PrimitiveDateTime,
        t_tm64: time::Time,
        t_span: time::Duration,
        r9: Decimal,
        r18: Decimal,
        r38: Decimal,
        r28: Decimal,
        b9: BigDecimal,
        b38: BigDecimal,
        b76: BigDecimal,
        b50: BigDecimal,
        j: serde_json::Value,
        js: serde_json::Value,
        i128_: i128,
        u128_: u128,
        i256: I256,
        u256: U256,
        map: BTreeMap<String, u64>,
        map2: HashMap<u8, Vec<i32>>,
        v4: Ipv4Addr,
        v6: Ipv6Addr,
        flag: bool,
        lc_u32: u32,
        lc_opt: Option<i64>,
        lc_day: NaiveDate,
        lc_f64: f64,
    }

    /// Name, type as chdb writes it (read), type chwire writes (JSON goes into String).
    pub const COLUMNS: &[(&str, &str, &str)] = &[
        ("id", "UInt64", "UInt64"),
        ("u", "UUID", "UUID"),
        ("d", "Date", "Date"),
        ("d32", "Date32", "Date32"),
        ("dt", "DateTime('UTC')", "DateTime('UTC')"),
        ("dt_berlin", "Nullable(DateTime('Europe/Berlin'))", "Nullable(DateTime('Europe/Berlin'))"),
        ("dt64", "DateTime64(3, 'UTC')", "DateTime64(3, 'UTC')"),
        ("dt64_berlin", "Array(DateTime64(6, 'Europe/Berlin'))", "Array(DateTime64(6, 'Europe/Berlin'))"),
        ("dt64n", "DateTime64(9)", "DateTime64(9)"),
        ("tm", "Time", "Time"),
        ("tm64", "Time64(3)", "Time64(3)"),
        ("t_d32", "Date32", "Date32"),
        ("t_dt64", "DateTime64(6, 'Asia/Tokyo')", "DateTime64(6, 'Asia/Tokyo')"),
        ("t_wall", "DateTime", "DateTime"),
        ("t_tm64", "Time64(6)", "Time64(6)"),
        ("t_span", "Time", "Time"),
        ("r9", "Decimal(9, 2)", "Decimal(9, 2)"),
        ("r18", "Decimal(18, 6)", "Decimal(18, 6)"),
        ("r38", "Decimal(38, 10)", "Decimal(38, 10)"),
        ("r28", "Decimal(38, 28)", "Decimal(38, 28)"),
        ("b9", "Decimal(9, 9)", "Decimal(9, 9)"),
        ("b38", "Decimal(38, 38)", "Decimal(38, 38)"),
        ("b76", "Decimal(76, 20)", "Decimal(76, 20)"),
        ("b50", "Decimal(50, 0)", "Decimal(50, 0)"),
        ("j", "JSON", "String"),
        ("js", "String", "String"),
        ("i128_", "Int128", "Int128"),
        ("u128_", "UInt128", "UInt128"),
        ("i256", "Int256", "Int256"),
        ("u256", "UInt256", "UInt256"),
        ("map", "Map(String, UInt64)", "Map(String, UInt64)"),
        ("map2", "Map(UInt8, Array(Int32))", "Map(UInt8, Array(Int32))"),
        ("v4", "IPv4", "IPv4"),
        ("v6", "IPv6", "IPv6"),
        ("flag", "Bool", "Bool"),
        ("lc_u32", "LowCardinality(UInt32)", "LowCardinality(UInt32)"),
        ("lc_opt", "LowCardinality(Nullable(Int64))", "LowCardinality(Nullable(Int64))"),
        ("lc_day", "LowCardinality(Date)", "LowCardinality(Date)"),
        ("lc_f64", "LowCardinality(Float64)", "LowCardinality(Float64)"),
    ];

    fn big(s: &str) -> BigInt {
        s.parse().expect("an integer")
    }

    fn le32(v: &BigInt) -> [u8; 32] {
        let mut b = v.to_signed_bytes_le();
        b.resize(32, if v.sign() == Sign::Minus { 0xff } else { 0 });
        b.try_into().expect("32 bytes")
    }

    fn epoch_day(days: i64) -> NaiveDate {
        NaiveDate::from_ymd_opt(1970, 1, 1).unwrap() + TimeDelta::days(days)
    }

    fn utc(secs: i64, nanos: u32) -> DateTime<Utc> {
        DateTime::from_timestamp(secs, nanos).expect("in range")
    }

    fn utc_ticks(ticks: i64, per_sec: i64) -> DateTime<Utc> {
        utc(ticks.div_euclid(per_sec), (ticks.rem_euclid(per_sec) * (1_000_000_000 / per_sec)) as u32)
    }

    fn time_date(days: i64) -> time::Date {
        time::Date::from_julian_day((2_440_588 + days) as i32).expect("in range")
    }

    fn dec(raw: i128, scale: u32) -> Decimal {
        Decimal::from_i128_with_scale(raw, scale)
    }

    /// The row of id `id`: the same formulas as tests/oracle/rows.py's SQL.
    pub fn expected(id: u64) -> OracleRow {
        let i = id as i64;
        let n = id as i128;
        let berlin = chrono_tz::Europe::Berlin;
        let t_dt64_us = i128::from(i) * 31_536_000_123_456 - 10;
        let t_dt64 = time::OffsetDateTime::from_unix_timestamp_nanos(t_dt64_us * 1000).expect("in range");
        let t_wall = time::OffsetDateTime::from_unix_timestamp(4_294_967_295 - i * 3).expect("in range");
        let tod_us = (id * 86_399_999_999 % 86_400_000_000) as i64;
        OracleRow {
            id,
            u: Uuid::from_u64_pair(id.wrapping_mul(0x9E37_79B9_7F4A_7C15), id.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)),
            d: epoch_day((id * 61 % 65_536) as i64),
            d32: epoch_day(-25_567 + i * 131),
            dt: utc(i * 4_294_967, 0),
            dt_berlin: (id % 5 != 0).then(|| utc(1_500_000_000 + i * 3607, 0).with_timezone(&berlin)),
            dt64: utc_ticks(i * 987_654_321 - 2_208_988_800_000, 1000),
            dt64_berlin: vec![utc_ticks(i * 123_456_789_012 - 1_000_000, 1_000_000).with_timezone(&berlin)],
            dt64n: utc_ticks(i * 1_234_567_890_123 + 7, 1_000_000_000).naive_utc(),
            tm: NaiveTime::from_num_seconds_from_midnight_opt((id * 3607 % 86_400) as u32, 0).unwrap(),
            tm64: TimeDelta::milliseconds((id * 7_777_777 % 7_199_999_999) as i64 - 3_599_999_999),
            t_d32: time_date(120_529 - i * 97),
            t_dt64,
            t_wall: time::PrimitiveDateTime::new(t_wall.date(), t_wall.time()),
            t_tm64: time::Time::MIDNIGHT + time::Duration::microseconds(tod_us),
            t_span: time::Duration::seconds((id * 7207 % 7_199_999) as i64 - 3_599_999),
            r9: dec(n * 7919 - 5_000_000, 2),
            r18: dec(n * 987_654_321_987 - 123_456_789_012_345, 6),
            r38: dec(n * 12_345_678_901_234_567_890_123 - 5_000_000_000_000_000_000_000_000, 10),
            r28: dec(n * 12_345_678_901_234_567_890_123_456, 28),
            b9: BigDecimal::new(BigInt::from(n * 999_999 * if id % 2 == 1 { -1 } else { 1 }), 9),
            b38: BigDecimal::new(BigInt::from(n * 99_999_999_999_999_999_999_999_999_999_999_999), 38),
            b76: BigDecimal::new(
                BigInt::from(id) * big("123456789012345678901234567890123456789012345678901234567") - big(&format!("1{}", "0".repeat(58))),
                20,
            ),
            b50: BigDecimal::new(-(BigInt::from(id) * big(&format!("1{}", "0".repeat(47))) + BigInt::from(id)), 0),
            j: json!({"id": id, "a": {"b": format!("s{}", id % 7), "c": [1, id]}, "f": id as f64 + 0.5, "t": id % 2 == 0}),
            js: json!({"k": [id, (id % 3).to_string()], "z": null}),
            i128_: n * -1_234_567_890_123_456_789_012_345_678_901,
            u128_: id as u128 * 300_000_000_000_000_000_000_000_000_000_000_000,
            i256: I256(le32(&(BigInt::from(id) * -(big(&format!("1{}7", "0".repeat(69))))))),
            u256: U256(le32(&(BigInt::from(id) * big(&format!("1{}", "0".repeat(74)))))),
            map: BTreeMap::from([("k".to_string(), id), (format!("k{}", id % 7 + 1), id * 2)]),
            map2: HashMap::from([((id % 256) as u8, vec![id as i32, -1])]),
            v4: Ipv4Addr::from((id * 16_777_619 % (1 << 32)) as u32),
            v6: Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, id as u16),
            flag: id % 3 == 0,
            lc_u32: (id % 10) as u32,
            lc_opt: (id % 4 != 0).then_some(i - 500),
            lc_day: NaiveDate::from_ymd_opt(2020, 1, 1).unwrap() + TimeDelta::days(i % 5),
            lc_f64: (id % 7) as f64 / 4.0,
        }
    }

    fn columns(write: bool) -> Vec<(&'static str, DataType)> {
        COLUMNS.iter().map(|(n, r, w)| (*n, DataType::parse(if write { w } else { r }).expect("a type"))).collect()
    }

    pub fn print_columns() {
        for (n, r, w) in COLUMNS {
            println!("{}", json!({"name": n, "read": r, "write": w}));
        }
    }

    pub fn read(path: &str) -> Result<(), String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        let blocks = native::decode_all(&bytes).map_err(|e| format!("decoding {path}: {e}"))?;
        let (mut n, mut bad) = (0u64, 0u64);
        for block in blocks.iter().filter(|b| b.rows() > 0) {
            let rows = rows_of::<OracleRow>(block).map_err(|e| format!("rows_of: {e}"))?;
            for row in rows {
                let want = expected(row.id);
                if row != want {
                    bad += 1;
                    if bad <= 5 {
                        eprintln!("row {}: got\n  {row:?}\nwant\n  {want:?}", row.id);
                    }
                }
                if row.id != n {
                    return Err(format!("row {n} has id {}", row.id));
                }
                n += 1;
            }
        }
        if bad > 0 {
            return Err(format!("{bad} of {n} rows differ"));
        }
        println!("read {n} rows, all equal to the formulas");
        Ok(())
    }

    pub fn write(path: &str, rows: u64) -> Result<(), String> {
        let rows: Vec<OracleRow> = (0..rows).map(expected).collect();
        let block = block_of::<OracleRow>(&columns(true), &rows).map_err(|e| format!("block_of: {e}"))?;
        let mut out = Vec::new();
        native::encode_block(&block, &mut out);
        std::fs::write(path, out).map_err(|e| format!("{path}: {e}"))?;
        println!("wrote {} rows", rows.len());
        Ok(())
    }

    fn param(name: &str, ty: &str, id: u64, v: &dyn Fn() -> (String, String)) {
        let (text, literal) = v();
        println!("{}", json!({"name": name, "type": ty, "id": id, "text": text, "literal": literal}));
    }

    fn both<T: QueryParam>(v: T) -> (String, String) {
        (v.param_text(), v.sql_literal())
    }

    /// Query parameters of the values of some rows, for the placeholder types of their columns.
    pub fn params() {
        for id in [0u64, 1, 7, 499, 998] {
            let r = expected(id);
            param("u", "UUID", id, &|| both(r.u));
            param("d", "Date", id, &|| both(r.d));
            param("d32", "Date32", id, &|| both(r.d32));
            param("dt", "DateTime('UTC')", id, &|| both(r.dt));
            param("dt", "DateTime('Asia/Kolkata')", id, &|| both(r.dt));
            if let Some(b) = r.dt_berlin {
                param("dt_berlin", "DateTime('Europe/Berlin')", id, &|| both(b));
            }
            param("dt64", "DateTime64(3, 'UTC')", id, &|| both(r.dt64));
            param("dt64", "DateTime64(3, 'America/New_York')", id, &|| both(r.dt64));
            param("dt64_berlin", "DateTime64(6, 'Europe/Berlin')", id, &|| both(r.dt64_berlin[0]));
            param("dt64n", "DateTime64(9)", id, &|| both(r.dt64n));
            param("tm", "Time", id, &|| both(r.tm));
            param("tm64", "Time64(3)", id, &|| both(r.tm64));
            param("t_d32", "Date32", id, &|| both(r.t_d32));
            param("t_dt64", "DateTime64(6, 'Asia/Tokyo')", id, &|| both(r.t_dt64));
            param("t_wall", "DateTime", id, &|| both(r.t_wall));
            param("t_tm64", "Time64(6)", id, &|| both(r.t_tm64));
            param("t_span", "Time", id, &|| both(r.t_span));
            param("r9", "Decimal(9, 2)", id, &|| both(r.r9));
            param("r18", "Decimal(18, 6)", id, &|| both(r.r18));
            param("r38", "Decimal(38, 10)", id, &|| both(r.r38));
            param("r28", "Decimal(38, 28)", id, &|| both(r.r28));
            param("b9", "Decimal(9, 9)", id, &|| both(r.b9.clone()));
            param("b38", "Decimal(38, 38)", id, &|| both(r.b38.clone()));
            param("b76", "Decimal(76, 20)", id, &|| both(r.b76.clone()));
            param("b50", "Decimal(50, 0)", id, &|| both(r.b50.clone()));
            param("js", "String", id, &|| both(r.js.clone()));
        }
    }
}

#[cfg(all(
    feature = "uuid",
    feature = "chrono",
    feature = "chrono-tz",
    feature = "time",
    feature = "rust_decimal",
    feature = "bigdecimal",
    feature = "serde_json"
))]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["columns"] => {
            oracle::print_columns();
            Ok(())
        }
        ["read", path] => oracle::read(path),
        ["write", path, n] => n.parse().map_err(|e| format!("row count {n:?}: {e}")).and_then(|n| oracle::write(path, n)),
        ["params"] => {
            oracle::params();
            Ok(())
        }
        _ => Err("usage: rows_oracle columns | read FILE | write FILE N | params".into()),
    };
    if let Err(e) = result {
        eprintln!("rows_oracle: {e}");
        std::process::exit(1);
    }
}

#[cfg(not(all(
    feature = "uuid",
    feature = "chrono",
    feature = "chrono-tz",
    feature = "time",
    feature = "rust_decimal",
    feature = "bigdecimal",
    feature = "serde_json"
)))]
fn main() {
    eprintln!("rows_oracle needs the features uuid, chrono, chrono-tz, time, rust_decimal, bigdecimal and serde_json");
    std::process::exit(2);
}
