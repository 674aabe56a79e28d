//! The optional field types (cargo features uuid, chrono, chrono-tz, time, rust_decimal,
//! bigdecimal, serde_json) against the rig's 18.16 server, for the types it has: UUID, Date,
//! DateTime in several timezones, Decimal32/64/128, and JSON in String columns. Rows go in
//! through the inserter and come back through fetch; the server's own comparisons with
//! literals check what arrived; query parameters of these types bind to the same values.
//! (DateTime64, Date32, Time, Decimal256 and the JSON type are checked against ClickHouse
//! 26.9 by tests/oracle/rows.py.)
#![cfg(all(
    feature = "uuid",
    feature = "chrono",
    feature = "chrono-tz",
    feature = "time",
    feature = "rust_decimal",
    feature = "bigdecimal",
    feature = "serde_json"
))]

mod common;

use std::str::FromStr;

use bigdecimal::BigDecimal;
use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use chwire::{ErrorKind, Row};
use common::*;
use rust_decimal::Decimal;
use serde_json::json;
use uuid::Uuid;

#[derive(Row, Debug, Clone, PartialEq)]
struct Ext {
    id: u64,
    u: Uuid,
    u_opt: Option<Uuid>,
    day: NaiveDate,
    days: Vec<NaiveDate>,
    at: DateTime<Utc>,
    at_berlin: DateTime<Tz>,
    naive: NaiveDateTime,
    t_day: time::Date,
    t_at: time::OffsetDateTime,
    t_wall: time::PrimitiveDateTime,
    d9: Decimal,
    d18: Decimal,
    d38: Decimal,
    b38: BigDecimal,
    b_opt: Option<BigDecimal>,
    doc: serde_json::Value,
    doc_opt: Option<serde_json::Value>,
}

const TABLE: &str = "CREATE TABLE {t} (
    id UInt64, u UUID, u_opt Nullable(UUID), day Date, days Array(Date), at DateTime('UTC'),
    at_berlin DateTime('Europe/Berlin'), naive DateTime('Asia/Kolkata'), t_day Date,
    t_at DateTime('America/New_York'), t_wall DateTime, d9 Decimal(9, 2), d18 Decimal(18, 6),
    d38 Decimal(38, 10), b38 Decimal(38, 20), b_opt Nullable(Decimal(18, 4)), doc String,
    doc_opt Nullable(String)
) ENGINE = Memory";

const UUID_BASE: u128 = 0x61f0c404_5cb3_11e7_907b_a6006ad3dba0;
const T0: i64 = 1_500_000_000; // 2017-07-14 02:40:00 UTC

fn ext(i: u64) -> Ext {
    let n = i as i64;
    let at = DateTime::from_timestamp(T0 + n * 3607, 0).unwrap();
    let t_at = time::OffsetDateTime::from_unix_timestamp(T0 - n * 86_401).unwrap();
    Ext {
        id: i,
        u: Uuid::from_u128(UUID_BASE.wrapping_mul(i as u128 + 1)),
        u_opt: (i % 3 != 0).then(|| Uuid::from_u128(i as u128)),
        day: NaiveDate::from_ymd_opt(2000, 1, 1).unwrap() + TimeDelta::days(n),
        days: (0..i % 3).map(|k| NaiveDate::from_ymd_opt(1970, 1, 1).unwrap() + TimeDelta::days(65_535 - k as i64)).collect(),
        at,
        at_berlin: at.with_timezone(&chrono_tz::Europe::Berlin),
        naive: (at + TimeDelta::days(1000)).naive_utc(),
        t_day: time::Date::from_calendar_date(2100, time::Month::January, 1).unwrap() - time::Duration::days(n * 100),
        t_at,
        t_wall: time::PrimitiveDateTime::new(t_at.date(), t_at.time()),
        d9: Decimal::new(n * 101 - 5000, 2),
        d18: Decimal::new(-123_456_789_012 + n, 6),
        d38: Decimal::from_i128_with_scale(10i128.pow(27) + i as i128, 10),
        b38: BigDecimal::from_str(&format!("{}.{:020}", 99_999 + n, n * 7)).unwrap(),
        b_opt: (i % 2 == 0).then(|| BigDecimal::from_str(&format!("-{n}.25")).unwrap()),
        doc: json!({"id": i, "name": format!("it's #{i}"), "tags": ["a", i % 5], "nested": {"ok": i % 2 == 0, "x": null}}),
        doc_opt: (i % 4 != 0).then(|| json!([i, "\\ \n"])),
    }
}

async fn count(c: &mut chwire::Client, sql: &str) -> u64 {
    c.query(sql).fetch_one::<(u64,)>().await.map(|r| r.0).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

#[tokio::test]
async fn feature_types_round_trip_and_arrive_as_the_server_sees_them() {
    let mut c = client().await;
    let t = "chwire_rows_ext";
    c.execute(format!("DROP TABLE IF EXISTS {t}")).await.unwrap();
    c.execute(TABLE.replace("{t}", t)).await.unwrap();
    let rows: Vec<Ext> = (0..300).map(ext).collect();
    let mut ins = c.insert_rows::<Ext>(t).await.unwrap();
    ins.write_all(&rows).await.unwrap();
    assert_eq!(ins.end().await.unwrap().rows_sent, 300);

    let back: Vec<Ext> = c.query(format!("SELECT * FROM {t} ORDER BY id")).fetch_all().await.unwrap();
    assert_eq!(back.len(), rows.len());
    for (a, b) in rows.iter().zip(&back) {
        assert_eq!(a, b);
        // Zoned values come back in the column's timezone.
        assert_eq!(b.at_berlin.timezone(), chrono_tz::Europe::Berlin);
    }

    // Formulas over every row, evaluated by the server.
    let checks = [
        ("day = toDate('2000-01-01') + id", 300),
        // (18.16 computes dates only up to 2105: compare the day numbers.)
        ("length(days) = id % 3 AND (length(days) = 0 OR toUInt16(days[1]) = 65535)", 300),
        ("at = toDateTime('2017-07-14 02:40:00', 'UTC') + id * 3607", 300),
        ("at_berlin = at", 300),
        ("naive = at + 86400000", 300),
        ("t_day = toDate('2100-01-01') - id * 100", 300),
        ("t_at = toDateTime('2017-07-14 02:40:00', 'UTC') - id * 86401", 300),
        ("t_wall = t_at", 300),
        ("toInt64(d9 * 100) = toInt64(id * 101) - 5000", 300),
        ("d18 = CAST('-123456.789012' AS Decimal(18, 6)) + CAST(id AS Decimal(18, 6)) / 1000000", 300),
        ("isNull(u_opt) = (id % 3 = 0)", 300),
        ("isNull(b_opt) = (id % 2 = 1)", 300),
        ("visitParamExtractUInt(doc, 'id') = id AND visitParamExtractString(doc, 'name') = concat('it\\'s #', toString(id))", 300),
        ("doc_opt = concat('[', toString(id), ',\"\\\\\\\\ \\\\n\"]')", 225),
    ];
    for (cond, want) in checks {
        assert_eq!(count(&mut c, &format!("SELECT count() FROM {t} WHERE {cond}")).await, want, "{cond}");
    }
    // Literals computed on the client, compared by the server: one row each.
    for i in [0u64, 1, 7, 299] {
        let r = ext(i);
        let conds = [
            format!("u = toUUID('{}')", r.u),
            format!("toString(u) = '{}'", r.u.hyphenated()),
            format!("day = toDate('{}')", r.day),
            format!("toString(at_berlin) = '{}'", r.at_berlin.format("%Y-%m-%d %H:%M:%S")),
            format!("toString(naive) = '{}'", (r.naive.and_utc().with_timezone(&chrono_tz::Asia::Kolkata)).format("%Y-%m-%d %H:%M:%S")),
            format!("toString(t_day) = '{}'", r.t_day),
            format!("d38 = CAST('{}' AS Decimal(38, 10))", r.d38),
            format!("b38 = CAST('{}' AS Decimal(38, 20))", r.b38),
        ];
        for cond in conds {
            assert_eq!(count(&mut c, &format!("SELECT count() FROM {t} WHERE id = {i} AND {cond}")).await, 1, "{cond}");
        }
    }

    // Parameters of these types bind to the same values (client-side literals on 18.16).
    let r = ext(42);
    let sql = format!(
        "SELECT count() FROM {t} WHERE u = {{u:UUID}} AND day = {{d:Date}} AND at = {{at:DateTime('UTC')}} \
         AND at_berlin = {{ab:DateTime('Europe/Berlin')}} AND at = {{ab2:DateTime('Asia/Tokyo')}} AND naive = {{n:DateTime}} \
         AND t_day = {{td:Date}} AND t_at = {{ta:DateTime}} AND t_wall = {{tw:DateTime('UTC')}} \
         AND d9 = {{d9:Decimal(9, 2)}} AND d38 = {{d38:Decimal(38, 10)}} AND b38 = {{b38:Decimal(38, 20)}} AND doc = {{doc:String}}"
    );
    let n: (u64,) = c
        .query(sql)
        .param("u", r.u)
        .param("d", r.day)
        .param("at", r.at)
        .param("ab", r.at_berlin)
        .param("ab2", r.at.with_timezone(&chrono_tz::Asia::Tokyo))
        .param("n", r.naive)
        .param("td", r.t_day)
        .param("ta", r.t_at)
        .param("tw", r.t_wall)
        .param("d9", r.d9)
        .param("d38", r.d38)
        .param("b38", r.b38.clone())
        .param("doc", r.doc.clone())
        .fetch_one()
        .await
        .unwrap();
    assert_eq!(n.0, 1);
    // And come back as themselves.
    type Back = (Uuid, NaiveDate, DateTime<Utc>, Decimal, BigDecimal, serde_json::Value);
    let back: Back = c
        .query("SELECT {u:UUID}, {d:Date}, {at:DateTime('Europe/Berlin')}, {d38:Decimal(38, 10)}, {b:Decimal(38, 20)}, {doc:String}")
        .param("u", r.u)
        .param("d", r.day)
        .param("at", r.at)
        .param("d38", r.d38)
        .param("b", r.b38.clone())
        .param("doc", r.doc.clone())
        .fetch_one()
        .await
        .unwrap();
    assert_eq!(back, (r.u, r.day, r.at, r.d38, r.b38.clone(), r.doc.clone()));
    c.execute(format!("DROP TABLE {t}")).await.unwrap();
}

#[derive(Row, Debug, Clone)]
struct Stamp {
    at: DateTime<Utc>,
    price: Decimal,
}

#[tokio::test]
async fn values_that_do_not_fit_are_refused_and_keep_the_good_rows() {
    let mut c = client().await;
    let t = "chwire_rows_ext_refused";
    c.execute(format!("DROP TABLE IF EXISTS {t}")).await.unwrap();
    c.execute(format!("CREATE TABLE {t} (at DateTime, price Decimal(9, 2)) ENGINE = Memory")).await.unwrap();
    let good = Stamp { at: DateTime::from_timestamp(T0, 0).unwrap(), price: Decimal::new(12_345, 2) };
    let mut ins = c.insert_rows::<Stamp>(t).await.unwrap();
    ins.write(&good).await.unwrap();
    let cases = [
        (Stamp { at: DateTime::from_timestamp(-1, 0).unwrap(), ..good.clone() }, "outside DateTime's range"),
        (Stamp { at: DateTime::from_timestamp(T0, 5_000_000).unwrap(), ..good.clone() }, "fraction of a second"),
        (Stamp { price: Decimal::new(12_345, 3), ..good.clone() }, "scale 2"),
        (Stamp { price: Decimal::new(10_000_000_000, 2), ..good.clone() }, "more than 9 digits"),
    ];
    for (row, words) in cases {
        let e = ins.write(&row).await.unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Row(m) if m.contains(words)), "{row:?}: {e}");
    }
    ins.write(&good).await.unwrap();
    ins.end().await.unwrap();
    assert_eq!(
        count(&mut c, &format!("SELECT count() FROM {t} WHERE at = toDateTime({T0}) AND price = CAST('123.45' AS Decimal(9, 2))")).await,
        2
    );

    // Reading: types that do not fit are refused before the first row.
    let mut rows =
        c.query(format!("SELECT p AS at, a AS price FROM (SELECT price AS p, at AS a FROM {t})")).fetch::<Stamp>().await.unwrap();
    let e = rows.next().await.unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Row(m) if m.contains("Decimal(9, 2)") && m.contains("DateTime")), "{e}");
    drop(rows);
    let big =
        c.query("SELECT CAST('99999999999999999999999999999.999999999' AS Decimal(38, 9))").fetch_one::<(Decimal,)>().await.unwrap_err();
    assert!(big.to_string().contains("does not fit rust_decimal"), "{big}");
    c.execute(format!("DROP TABLE {t}")).await.unwrap();
}
