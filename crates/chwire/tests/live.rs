//! End-to-end tests against the real ClickHouse server of the rig (scripts/server.sh).

mod common;

use chwire::proto::column::{ArrayColumn, NullableColumn};
use chwire::{Block, Column, ColumnData, Compression, DataType, Event, StringColumn, Value};
use common::*;

#[tokio::test]
async fn handshake_reports_server_and_negotiated_revision() {
    let c = client().await;
    let info = c.server_info().unwrap();
    assert_eq!(info.name, "ClickHouse");
    if common::is_http() {
        // HTTP has no handshake and no revision: version and timezone come from a query.
        assert_eq!((info.revision, info.negotiated_revision), (0, 0), "{info:?}");
    } else {
        assert!(info.revision >= 54000, "{info:?}");
        assert_eq!(info.negotiated_revision, info.revision.min(chwire::proto::revision::CLIENT_REVISION));
    }
    assert!(info.timezone.is_some());
    let version = client().await.query("SELECT version()").fetch_blocks().await.unwrap();
    let v = match version[0].column_at(0).unwrap().value(0) {
        Value::String(s) => String::from_utf8(s.to_vec()).unwrap(),
        other => panic!("{other:?}"),
    };
    assert!(v.starts_with(&format!("{}.{}.", info.version.0, info.version.1)), "{v} vs {info:?}");
}

/// The revision the server records for chwire's connection (`system.processes`, the query
/// asking finds itself by a marker in its text) is the one announced: 54492 by default, or a
/// pinned one of the live matrix.
#[tokio::test]
async fn system_processes_shows_the_announced_revision() {
    if common::is_http() {
        return; // an HTTP query has no protocol revision
    }
    for announced in [chwire::proto::revision::CLIENT_REVISION, 54482, 54473, 54465] {
        let mut c = client_with(options().client_revision(announced)).await;
        let marker = format!("chwire-revision-probe-{announced}");
        let sql = format!("SELECT toUInt64(client_revision) FROM system.processes WHERE query LIKE '%{marker}%'");
        let (rev,): (u64,) = c.query(&sql).fetch_one().await.unwrap();
        assert_eq!(rev, announced, "{sql}");
    }
}

/// Chunked framing both ways (`chunked=true`; 26.9 offers it as optional, 18.16 has no
/// framing gate, and `true` then means nothing to frame): a query of many blocks, an insert
/// and a server exception give what the unframed connection gives, and the connection stays.
#[tokio::test]
async fn chunked_framing_both_ways_gives_the_same_results() {
    if common::is_http() {
        return;
    }
    use chwire::proto::chunked::ChunkedMode;
    let sql = "SELECT number, toString(number) s, [number, 1] a FROM numbers(300000) SETTINGS max_block_size = 7000";
    let mut sums = Vec::new();
    for mode in [ChunkedMode::Off, ChunkedMode::On] {
        let mut c = client_with(options().chunked(mode)).await;
        let table = format!("chwire_chunked_{}", if mode == ChunkedMode::On { "on" } else { "off" });
        c.execute(format!("DROP TABLE IF EXISTS {table}")).await.unwrap();
        c.execute(format!("CREATE TABLE {table} (n UInt64, s String) ENGINE = Memory")).await.unwrap();
        let blocks = c.query(sql).fetch_blocks().await.unwrap();
        let rows: usize = blocks.iter().map(|b| b.rows()).sum();
        assert_eq!(rows, 300000, "{mode:?}");
        let mut ins = c.insert_blocks(table.as_str(), Some(&["n", "s"])).await.unwrap();
        for i in 0..3u64 {
            let n: Vec<u64> = (i * 1000..(i + 1) * 1000).collect();
            let s: Vec<String> = n.iter().map(|v| format!("v{v}")).collect();
            ins.send(&Block::new().with("n", Column::from(n)).unwrap().with("s", Column::from(s)).unwrap()).await.unwrap();
        }
        assert_eq!(ins.end().await.unwrap().rows_sent, 3000);
        let e =
            c.query("SELECT throwIf(number = 5000) FROM numbers(10000) SETTINGS max_block_size = 100").fetch_blocks().await.unwrap_err();
        assert_eq!(e.code(), Some(395), "{mode:?}: {e}");
        let (sum, count, chars): (u64, u64, u64) =
            c.query(format!("SELECT sum(n), count(), sum(length(s)) FROM {table}")).fetch_one().await.unwrap();
        sums.push((sum, count, chars));
        c.execute(format!("DROP TABLE {table}")).await.unwrap();
    }
    assert_eq!(sums[0], sums[1]);
    assert_eq!(sums[0].1, 3000);
}

/// An aggregate state whose format chwire does not know (quantile's) is an error naming the
/// type, with rows or without (the header alone once panicked), and the client goes on.
#[tokio::test]
async fn an_aggregate_state_chwire_cannot_frame_is_an_error_not_a_panic() {
    let mut c = client().await;
    for sql in ["SELECT quantileState(number) FROM numbers(5)", "SELECT quantileState(number) FROM numbers(5) WHERE 0"] {
        let e = c.query(sql).fetch_blocks().await.expect_err(sql);
        assert!(e.to_string().contains("AggregateFunction(quantile"), "{sql}: {e}");
        let (n,): (u64,) = c.query("SELECT count() FROM numbers(7)").fetch_one().await.unwrap();
        assert_eq!(n, 7);
    }
}

#[tokio::test]
async fn lower_announced_revision_is_negotiated() {
    if common::is_http() {
        return; // a native-protocol handshake
    }
    let mut c = client_with(options().client_revision(54405)).await;
    assert_eq!(c.server_info().unwrap().negotiated_revision, 54405);
    let b = c.query("SELECT toUInt8(7)").fetch_blocks().await.unwrap();
    assert_eq!(b[0].column_at(0).unwrap().as_u8(), Some(&[7u8][..]));
}

/// `compression` is also the method the server compresses its blocks with: 26.9's
/// `network_compression_method` defaults to ZSTD, which `compression=lz4` received before. A
/// caller's own setting stays. (18.16 has no getSetting; HTTP compresses with its encoding.)
#[tokio::test]
async fn the_servers_blocks_come_in_the_clients_compression() {
    if common::is_http() {
        return;
    }
    let sql = "SELECT getSetting('network_compression_method'), toString(getSetting('network_zstd_compression_level'))";
    for (opts, want) in [
        (options().compression(Compression::Lz4), ("lz4", None)),
        (options().compression(Compression::Zstd(5)), ("zstd", Some("5"))),
        (options().compression(Compression::Lz4).setting("network_compression_method", "ZSTD"), ("ZSTD", None)),
    ] {
        let mut c = client_with(opts).await;
        if is_old_server(&c) {
            return;
        }
        let b = c.query(sql).fetch_blocks().await.unwrap();
        let text = |i: usize| match b[0].column_at(i).unwrap().value(0) {
            Value::String(s) => String::from_utf8_lossy(s).into_owned(),
            other => panic!("{other:?}"),
        };
        assert_eq!(text(0), want.0);
        if let Some(level) = want.1 {
            assert_eq!(text(1), level);
        }
        // The blocks decode (the rows arrive in that method).
        assert_eq!(scalar_u64(&mut c, "SELECT sum(number) FROM numbers(1000000)").await, 499999500000);
    }
}

/// A server that has `send_profile_events` (25.11 and newer) is asked to leave the
/// ProfileEvents packets out, unless the query or the options set it: then they arrive as
/// events. 18.16 has neither the setting nor the packets.
#[tokio::test]
async fn profile_events_only_when_asked_for() {
    if common::is_http() {
        return;
    }
    for (opts, per_query, want) in [
        (options(), None, false),
        (options(), Some("1"), true),
        (options().setting("send_profile_events", "1"), None, true),
        (options().compression(Compression::Lz4), None, false),
    ] {
        let mut c = client_with(opts).await;
        if is_old_server(&c) {
            return;
        }
        let mut q = c.query("SELECT number FROM numbers(100000)");
        if let Some(v) = per_query {
            q = q.setting("send_profile_events", v);
        }
        let mut s = q.stream().await.unwrap();
        let (mut rows, mut profile_events) = (0, 0);
        while let Some(ev) = s.next_event().await.unwrap() {
            match ev {
                chwire::Event::Data(b) => rows += b.rows(),
                chwire::Event::ProfileEvents(_) => profile_events += 1,
                _ => {}
            }
        }
        assert_eq!((rows, profile_events > 0), (100000, want), "{per_query:?}");
        drop(s);
        // An insert's blocks too: the table's rows arrive either way.
        c.execute("CREATE TEMPORARY TABLE pe (a UInt64)").await.unwrap();
        let mut ins = c.insert_blocks("pe", None).await.unwrap();
        for i in 0..3u64 {
            let mut b = chwire::Block::new();
            b.push("a", chwire::Column::new(chwire::DataType::UInt64, chwire::ColumnData::UInt64(vec![i])).unwrap()).unwrap();
            ins.send(&b).await.unwrap();
        }
        assert_eq!(ins.end().await.unwrap().rows_sent, 3);
        assert_eq!(scalar_u64(&mut c, "SELECT sum(a) FROM pe").await, 3);
    }
}

#[tokio::test]
async fn ping_works_and_keeps_the_connection() {
    let mut c = client().await;
    c.ping().await.unwrap();
    c.ping().await.unwrap();
    assert_eq!(scalar_u64(&mut c, "SELECT 1 + 1").await, 2);
}

async fn scalar_u64(c: &mut chwire::Client, sql: &str) -> u64 {
    let blocks = c.query(sql).fetch_blocks().await.unwrap();
    match blocks[0].column_at(0).unwrap().value(0) {
        Value::UInt(v) => v,
        Value::Int(v) => v as u64,
        other => panic!("{sql}: {other:?}"),
    }
}

/// Every type of this slice: chwire's decoded values against what the server computes
/// (`toString` of the same expression, compared after rendering).
#[tokio::test]
async fn select_every_type_matches_the_server() {
    let mut c = client().await;
    let exprs = [
        ("toUInt8(255)", "UInt8"),
        ("toUInt16(65535)", "UInt16"),
        ("toUInt32(4294967295)", "UInt32"),
        ("toUInt64(18446744073709551615)", "UInt64"),
        ("toInt8(-128)", "Int8"),
        ("toInt16(-32768)", "Int16"),
        ("toInt32(-2147483648)", "Int32"),
        ("toInt64(-9223372036854775808)", "Int64"),
        ("toFloat32(1.5)", "Float32"),
        ("toFloat64(-2.25e100)", "Float64"),
        ("'héllo\\0\\n'", "String"),
        ("toFixedString('ab', 4)", "FixedString(4)"),
        ("toDate('2038-01-19')", "Date"),
        ("toDateTime('2021-02-03 04:05:06', 'UTC')", "DateTime('UTC')"),
        ("toDateTime('2021-02-03 04:05:06', 'Asia/Tokyo')", "DateTime('Asia/Tokyo')"),
        ("CAST('b' AS Enum8('a' = 1, 'b' = -2))", "Enum8('a' = 1, 'b' = -2)"),
        ("CAST('y' AS Enum16('x' = 1000, 'y' = -1000))", "Enum16('x' = 1000, 'y' = -1000)"),
        ("toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')", "UUID"),
        ("CAST(NULL AS Nullable(UInt32))", "Nullable(UInt32)"),
        ("CAST(5 AS Nullable(UInt32))", "Nullable(UInt32)"),
        ("[1, 2, 3]", "Array(UInt8)"),
        ("[['a'], [], ['b', 'c']]", "Array(Array(String))"),
        ("[NULL, 1]", "Array(Nullable(UInt8))"),
        ("emptyArrayString()", "Array(String)"),
    ];
    let select = exprs.iter().enumerate().map(|(i, (e, _))| format!("{e} AS c{i}, toString(c{i}) AS s{i}")).collect::<Vec<_>>().join(", ");
    let blocks = c.query(format!("SELECT {select}")).fetch_blocks().await.unwrap();
    let b = &blocks[0];
    assert_eq!(b.rows(), 1);
    for (i, (expr, ty)) in exprs.iter().enumerate() {
        let col = b.column(&format!("c{i}")).unwrap();
        assert_eq!(col.data_type(), &DataType::parse(ty).unwrap(), "{expr}");
        let server_text = match b.column(&format!("s{i}")).unwrap().value(0) {
            Value::String(s) => String::from_utf8_lossy(s).into_owned(),
            Value::Null => "NULL".to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(render(&col.value(0)), server_text, "{expr} ({ty})");
    }
    // Server-side arithmetic on the raw values agrees with ours.
    let b = &c
        .query(
            "SELECT toDateTime('2021-02-03 04:05:06', 'UTC') AS t, toUnixTimestamp(t) AS u, toDate('2038-01-19') AS d, toUInt16(d) AS du",
        )
        .fetch_blocks()
        .await
        .unwrap()[0];
    assert_eq!(u64::from(b.column("t").unwrap().as_u32().unwrap()[0]), u64::from(b.column("u").unwrap().as_u32().unwrap()[0]));
    assert_eq!(b.column("d").unwrap().as_u16().unwrap()[0], b.column("du").unwrap().as_u16().unwrap()[0]);
}

/// Renders a value as the server's `toString` does (UTC for DateTime without a zone).
fn render(v: &Value<'_>) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::UInt(x) => x.to_string(),
        Value::Int(x) => x.to_string(),
        Value::Float32(x) => x.to_string(),
        Value::Float64(x) => {
            let a = x.abs();
            if a != 0.0 && !(1e-7..1e21).contains(&a) {
                format!("{x:e}")
            } else {
                x.to_string()
            }
        }
        Value::Bool(b) => b.to_string(),
        Value::String(s) => String::from_utf8_lossy(s).into_owned(),
        // toString drops a FixedString's zero padding.
        Value::FixedString(s) => String::from_utf8_lossy(s).trim_end_matches('\0').to_string(),
        Value::Enum(n, _) => n.to_string(),
        Value::Uuid(u) => {
            let h: String = u.iter().map(|b| format!("{b:02x}")).collect();
            format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
        }
        Value::Date(d) => civil(i64::from(*d) * 86400).0,
        Value::DateTime(s, tz) => {
            let offset = match tz {
                Some("Asia/Tokyo") => 9 * 3600,
                _ => 0,
            };
            let (d, t) = civil(i64::from(*s) + offset);
            format!("{d} {t}")
        }
        Value::Array(items) => {
            let inner: Vec<String> = items
                .iter()
                .map(|v| match v {
                    Value::String(_) => format!("'{}'", render(v)),
                    v => render(v),
                })
                .collect();
            format!("[{}]", inner.join(","))
        }
        Value::Decimal { raw, scale } => chwire::proto::column::decimal_to_string(*raw, *scale),
        Value::Tuple(items) => format!("({})", items.iter().map(|(_, v)| render(v)).collect::<Vec<_>>().join(",")),
        other => panic!("no rendering for {other:?}"),
    }
}

/// Seconds since the epoch to ("YYYY-MM-DD", "hh:mm:ss") in UTC (civil-from-days).
fn civil(secs: i64) -> (String, String) {
    let days = secs.div_euclid(86400);
    let rem = secs.rem_euclid(86400);
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    (format!("{y:04}-{m:02}-{d:02}"), format!("{:02}:{:02}:{:02}", rem / 3600, rem % 3600 / 60, rem % 60))
}

fn nullable(nulls: Vec<u8>, values: ColumnData) -> ColumnData {
    ColumnData::Nullable(Box::new(NullableColumn { nulls, values }))
}

fn array(offsets: Vec<u64>, values: ColumnData) -> ColumnData {
    ColumnData::Array(Box::new(ArrayColumn { offsets, values }))
}

/// A block with every type of this slice: extremes, NULLs, empty strings and arrays.
fn all_types_block() -> (Vec<(&'static str, &'static str)>, Block) {
    let strings: StringColumn = ["", "plain", "quote ' \" \\ tab\t nl\n nul\0 ünï©ødé 🚀"].into_iter().collect();
    let uuid_canonical = [0x61u8, 0xf0, 0xc4, 0x04, 0x5c, 0xb3, 0x11, 0xe7, 0x90, 0x7b, 0xa6, 0x00, 0x6a, 0xd3, 0xdb, 0xa0];
    let mut uuids = vec![0u8; 16];
    uuids.extend_from_slice(&chwire::proto::column::uuid_to_wire(&uuid_canonical));
    uuids.extend_from_slice(&[0xff; 16]);
    let cols: Vec<(&str, &str, ColumnData)> = vec![
        ("u8", "UInt8", ColumnData::UInt8(vec![0, 1, u8::MAX])),
        ("u16", "UInt16", ColumnData::UInt16(vec![0, 1, u16::MAX])),
        ("u32", "UInt32", ColumnData::UInt32(vec![0, 1, u32::MAX])),
        ("u64", "UInt64", ColumnData::UInt64(vec![0, 1, u64::MAX])),
        ("i8", "Int8", ColumnData::Int8(vec![i8::MIN, 0, i8::MAX])),
        ("i16", "Int16", ColumnData::Int16(vec![i16::MIN, 0, i16::MAX])),
        ("i32", "Int32", ColumnData::Int32(vec![i32::MIN, 0, i32::MAX])),
        ("i64", "Int64", ColumnData::Int64(vec![i64::MIN, 0, i64::MAX])),
        ("f32", "Float32", ColumnData::Float32(vec![f32::MIN_POSITIVE, -0.0, f32::MAX])),
        ("f64", "Float64", ColumnData::Float64(vec![f64::NEG_INFINITY, 5e-324, f64::MAX])),
        ("s", "String", ColumnData::String(strings.clone())),
        ("fs", "FixedString(5)", ColumnData::Fixed { width: 5, data: b"\0\0\0\0\0abcde\xff\x00\x01\x02\x03".to_vec() }),
        ("d", "Date", ColumnData::UInt16(vec![0, 18262, u16::MAX])),
        ("dt", "DateTime", ColumnData::UInt32(vec![0, 1_600_000_000, u32::MAX])),
        ("dtz", "DateTime('Asia/Tokyo')", ColumnData::UInt32(vec![0, 1_600_000_000, u32::MAX])),
        ("e8", "Enum8('a' = -128, 'b\\'q' = 0, 'c' = 127)", ColumnData::Int8(vec![-128, 0, 127])),
        ("e16", "Enum16('x' = -32768, 'y' = 32767)", ColumnData::Int16(vec![-32768, 32767, -32768])),
        ("uuid", "UUID", ColumnData::Fixed { width: 16, data: uuids }),
        ("ns", "Nullable(String)", nullable(vec![1, 0, 0], ColumnData::String(["", "", "x"].into_iter().collect()))),
        ("ni64", "Nullable(Int64)", nullable(vec![0, 1, 0], ColumnData::Int64(vec![-5, 0, i64::MAX]))),
        ("au64", "Array(UInt64)", array(vec![0, 0, 1, 4], ColumnData::UInt64(vec![7, 1, 2, u64::MAX]))),
        ("as", "Array(String)", array(vec![0, 2, 2, 3], ColumnData::String(["", "a", "b"].into_iter().collect()))),
        (
            "ans",
            "Array(Nullable(String))",
            array(vec![0, 1, 3, 3], nullable(vec![1, 0, 1], ColumnData::String(["", "z", ""].into_iter().collect()))),
        ),
        ("aau8", "Array(Array(UInt8))", array(vec![0, 2, 2, 3], array(vec![0, 0, 2, 3], ColumnData::UInt8(vec![1, 2, 3])))),
        ("adt", "Array(DateTime)", array(vec![0, 1, 1, 2], ColumnData::UInt32(vec![1, 2]))),
        ("nfs", "Nullable(FixedString(2))", nullable(vec![0, 1, 0], ColumnData::Fixed { width: 2, data: b"ab\0\0cd".to_vec() })),
    ];
    let mut block = Block::new();
    let mut schema = Vec::new();
    for (name, ty, data) in cols {
        block.push(name, Column::with_type_name(ty, data).unwrap()).unwrap();
        schema.push((name, ty));
    }
    (schema, block)
}

#[tokio::test]
async fn insert_select_round_trip_every_type_and_compression() {
    for compression in COMPRESSIONS {
        let mut c = client_compressed(compression).await;
        let table = format!("chwire_rt_{}", format!("{compression:?}").to_lowercase().replace(['(', ')'], ""));
        let (schema, block) = all_types_block();
        let columns = schema.iter().map(|(n, t)| format!("`{n}` {t}")).collect::<Vec<_>>().join(", ");
        c.execute(format!("DROP TABLE IF EXISTS {table}")).await.unwrap();
        c.execute(format!("CREATE TABLE {table} ({columns}, row UInt8) ENGINE = Memory")).await.unwrap();
        let names = schema.iter().map(|(n, _)| *n).collect::<Vec<_>>();
        let mut ins = c.insert_blocks(table.as_str(), Some(&names)).await.unwrap();
        assert_eq!(ins.header().num_columns(), schema.len());
        ins.send(&block).await.unwrap();
        let summary = ins.end().await.unwrap();
        assert_eq!(summary.rows_sent, 3);

        let names = schema.iter().map(|(n, _)| format!("`{n}`")).collect::<Vec<_>>().join(", ");
        // Memory tables keep insertion order.
        let back = c.query(format!("SELECT {names} FROM {table}")).fetch_blocks().await.unwrap();
        assert_eq!(back.len(), 1, "{compression:?}");
        for ((name, want), (gname, got)) in block.columns().iter().zip(back[0].columns()) {
            assert_eq!(name, gname);
            assert_eq!(got, want, "{compression:?}: column {name}");
        }

        // The server sees the same values: compare against SQL literals.
        let checks = [
            "u64 = 18446744073709551615 AND i64 = 9223372036854775807 AND u8 = 255",
            "s = 'quote \\' \" \\\\ tab\\t nl\\n nul\\0 ünï©ødé 🚀'",
            "s = '' AND isNull(ns) AND empty(au64) AND length(as) = 2",
            "fs = toFixedString('abcde', 5) AND d = toDate('2020-01-01') AND dt = toDateTime(1600000000)",
            "uuid = toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')",
            "e8 = 'b\\'q' AND e16 = 'y' AND isNull(ni64)",
            "length(ans) = 2 AND ans[1] = 'z' AND isNull(ans[2])",
            "aau8 = [[], [1, 2]] AND adt = [toDateTime(1)]",
            "f64 < -1e308 OR (f64 > 0 AND f64 < 1e-300)",
            "isNull(nfs) AND au64 = [7] AND ns = 'x' OR au64 = [1, 2, 18446744073709551615] AND nfs = toFixedString('cd', 2)",
        ];
        let expected = [1u64, 1, 1, 1, 1, 1, 1, 1, 2, 1];
        for (cond, want) in checks.iter().zip(expected) {
            assert_eq!(
                scalar_u64(&mut c, &format!("SELECT count() FROM {table} WHERE {cond}")).await,
                want,
                "{compression:?}: WHERE {cond}"
            );
        }
        c.execute(format!("DROP TABLE {table}")).await.unwrap();
    }
}

#[tokio::test]
async fn many_blocks_and_empty_results() {
    for compression in COMPRESSIONS {
        let mut c = client_compressed(compression).await;
        let mut s = c
            .query("SELECT number, toString(number) AS s FROM system.numbers LIMIT 1000000")
            .setting("max_block_size", "10000")
            .stream()
            .await
            .unwrap();
        let (mut blocks, mut rows, mut sum, mut bytes) = (0, 0u64, 0u64, 0usize);
        while let Some(b) = s.next_block().await.unwrap() {
            assert!(b.rows() <= 10000);
            blocks += 1;
            rows += b.rows() as u64;
            sum = b.column("number").unwrap().as_u64().unwrap().iter().fold(sum, |a, x| a.wrapping_add(*x));
            let strs = b.column("s").unwrap().as_strings().unwrap();
            bytes += strs.data().len();
            assert_eq!(strs.get_str(0).unwrap(), b.column("number").unwrap().as_u64().unwrap()[0].to_string());
        }
        assert_eq!((rows, sum), (1_000_000, 499_999_500_000), "{compression:?}");
        assert!(blocks >= 100, "{blocks}");
        assert_eq!(bytes, 5_888_890);
        drop(s);

        let mut s = c.query("SELECT number AS n, 'x' AS s FROM system.numbers WHERE 0 LIMIT 1").stream().await.unwrap();
        assert!(s.next_block().await.unwrap().is_none());
        if common::is_http() {
            // 18.16 sends an empty body for an empty Native result over HTTP: no header.
            assert!(s.is_finished());
            continue;
        }
        let header = s.header().expect("header block");
        assert_eq!(header.names().collect::<Vec<_>>(), ["n", "s"]);
        assert_eq!(header.column_at(0).unwrap().data_type(), &DataType::UInt64);
        assert!(s.is_finished());
    }
}

#[tokio::test]
async fn server_exceptions_keep_the_connection_usable() {
    let mut c = client().await;
    let e = c.query("SELECT * FROM chwire_no_such_table").fetch_blocks().await.unwrap_err();
    let ex = e.server().expect("server error");
    assert_eq!(ex.code, 60, "{e}");
    assert!(ex.message.contains("chwire_no_such_table"), "{}", ex.message);
    assert_eq!((ex.class.as_str(), ex.name()), ("DB::Exception", "UNKNOWN_TABLE"));
    assert!(!e.breaks_connection());
    assert_eq!(scalar_u64(&mut c, "SELECT 3").await, 3);

    let e = c.query("SELEKT 1").fetch_blocks().await.unwrap_err();
    assert_eq!(e.code(), Some(62), "{e}");
    assert_eq!(scalar_u64(&mut c, "SELECT 4").await, 4);

    // An exception in the middle of a stream (after rows were sent).
    let mut s = c.query("SELECT throwIf(number = 300000) FROM system.numbers").setting("max_block_size", "1000").stream().await.unwrap();
    let mut got = 0;
    let err = loop {
        match s.next_block().await {
            Ok(Some(b)) => got += b.rows(),
            Ok(None) => panic!("the query should fail"),
            Err(e) => break e,
        }
    };
    assert_eq!(err.code(), Some(395), "{err}");
    // Over HTTP the server buffers the first MiB: this error comes as the status instead.
    assert!(got > 0 || common::is_http());
    drop(s);
    assert_eq!(scalar_u64(&mut c, "SELECT 5").await, 5);
}

#[tokio::test]
async fn unknown_setting_is_an_error() {
    let mut c = client().await;
    let e = c.query("SELECT 1").setting("chwire_no_such_setting", "1").fetch_blocks().await.unwrap_err();
    assert_eq!(e.code(), Some(115), "{e}");
    assert_eq!(scalar_u64(&mut c, "SELECT 6").await, 6);
}

/// On 18.16 (the 18.16 server of the rig, whatever CHWIRE_TEST_URL is).
#[tokio::test]
async fn settings_that_do_not_fit_an_old_servers_binary_form_are_refused_before_sending() {
    let mut c = client_18().await;
    // 18.16 reads max_threads as a VarUInt: a string there would put the stream out of step
    // (a hang until the receive timeout), and its bytes could be read as another setting.
    let limit = std::time::Duration::from_secs(20);
    let e =
        tokio::time::timeout(limit, c.query("SELECT 1").setting("max_threads", "abc").fetch_blocks()).await.expect("no hang").unwrap_err();
    assert!(matches!(e.kind(), chwire::ErrorKind::InvalidInput(_)), "{e:?}");
    assert!(e.to_string().contains("setting max_threads = \"abc\""), "{e}");
    let create = c.query("CREATE TABLE IF NOT EXISTS chwire_injected (a UInt8) ENGINE = Memory").setting("max_threads", "\x08readonly\x01");
    let e = tokio::time::timeout(limit, create.fetch_blocks()).await.expect("no hang").unwrap_err();
    assert!(matches!(e.kind(), chwire::ErrorKind::InvalidInput(_)), "not sent, so not 'readonly mode': {e:?}");
    // The connection was left as it was; booleans and `auto` have their binary forms.
    let blocks = c.query("SELECT 7").setting("extremes", "true").setting("max_threads", "auto").fetch_blocks().await.unwrap();
    assert_eq!(blocks[0].column_at(0).and_then(|c| c.as_u8()), Some(&[7u8][..]));
}

#[tokio::test]
async fn settings_reach_the_server() {
    let mut c = client().await;
    // Integer, float and string settings in the encoding this revision uses.
    let blocks = c
        .query("SELECT number FROM system.numbers LIMIT 10")
        .setting("max_block_size", "3")
        .setting("totals_auto_threshold", "0.25")
        .setting("load_balancing", "in_order")
        .fetch_blocks()
        .await
        .unwrap();
    assert_eq!(blocks.iter().map(|b| b.rows()).collect::<Vec<_>>(), [3, 3, 3, 1]);
    let e = c
        .query("SELECT number FROM system.numbers LIMIT 100")
        .setting("max_result_rows", "10")
        .setting("result_overflow_mode", "throw")
        .fetch_blocks()
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(396), "{e}");
}

#[tokio::test]
async fn progress_events_on_a_long_query() {
    if common::is_http() {
        return; // 18.16 sends no progress over HTTP (docs/HTTP.md)
    }
    let mut c = client().await;
    let mut s = c.query("SELECT sum(number) FROM (SELECT number FROM system.numbers LIMIT 200000000)").stream().await.unwrap();
    let mut progress_events = 0;
    let mut result = None;
    while let Some(ev) = s.next_event().await.unwrap() {
        match ev {
            Event::Progress(_) => progress_events += 1,
            Event::Data(b) => result = Some(b.column_at(0).unwrap().as_u64().unwrap()[0]),
            _ => {}
        }
    }
    assert_eq!(result, Some(19_999_999_900_000_000));
    assert!(progress_events >= 2, "{progress_events}");
    // The server reads whole blocks of system.numbers, a little past the LIMIT.
    assert!((200_000_000..200_100_000).contains(&s.progress().read_rows), "{:?}", s.progress());
    assert!(s.profile_info().is_some());
}

#[tokio::test]
async fn totals_extremes_and_server_logs() {
    if common::is_http() {
        return; // FORMAT Native over HTTP carries neither totals, extremes nor logs
    }
    let sql = "SELECT number % 3 AS k, count() AS n FROM (SELECT number FROM system.numbers LIMIT 10) GROUP BY k WITH TOTALS ORDER BY k";
    // Server logs: clickhouse-local (the 26.9 rig) sends no Log packets whatever
    // send_logs_level says, so they are read from the 18.16 server.
    for mut c in [client().await, client_18().await] {
        let old = is_old_server(&c);
        let mut s = c.query(sql).setting("extremes", "1").setting("send_logs_level", "trace").stream().await.unwrap();
        let mut logs = 0;
        let mut rows = 0;
        while let Some(ev) = s.next_event().await.unwrap() {
            match ev {
                Event::Log(b) => {
                    logs += b.rows();
                    assert!(b.column("text").is_some() && b.column("priority").is_some());
                }
                Event::Data(b) => rows += b.rows(),
                _ => {}
            }
        }
        assert_eq!(rows, 3);
        assert!(logs > 0 || !old, "18.16 sends its logs");
        let totals = s.totals().expect("totals");
        assert_eq!(totals.column("n").unwrap().as_u64(), Some(&[10u64][..]));
        let extremes = s.extremes().expect("extremes");
        assert_eq!(extremes.column("k").unwrap().as_u8(), Some(&[0u8, 2][..]));
    }
}

#[tokio::test]
async fn dropping_a_stream_cancels_and_the_next_query_is_clean() {
    for compression in COMPRESSIONS {
        let mut c = client_compressed(compression).await;
        {
            let mut s = c.query("SELECT number FROM system.numbers").setting("max_block_size", "65536").stream().await.unwrap();
            for _ in 0..3 {
                assert!(s.next_block().await.unwrap().is_some());
            }
        } // dropped mid-stream: an infinite query
        assert_eq!(scalar_u64(&mut c, "SELECT 42").await, 42, "{compression:?}");
        assert!(c.is_connected());

        let mut s = c.query("SELECT number FROM system.numbers").stream().await.unwrap();
        assert!(s.next_block().await.unwrap().is_some());
        s.cancel().await.unwrap();
        let b = c.query("SELECT 'after', number FROM system.numbers LIMIT 2").fetch_blocks().await.unwrap();
        assert_eq!(b[0].column_at(1).unwrap().as_u64(), Some(&[0u64, 1][..]));
    }
}

#[tokio::test]
async fn wrong_password_is_an_authentication_error() {
    let mut opts = options();
    opts.user = "chwire_test".into();
    opts.password = "not-the-password".into();
    let e = chwire::Client::connect(opts.clone()).await.unwrap_err();
    assert!(e.is_authentication(), "{e}");
    opts.password = "s3cret".into();
    let mut c = client_with(opts).await;
    assert_eq!(scalar_u64(&mut c, "SELECT 7").await, 7);
}

#[tokio::test]
async fn connection_refused_is_a_clear_error() {
    let e = chwire::Client::connect(options().port(1)).await.unwrap_err();
    assert!(matches!(e.kind(), chwire::ErrorKind::Io(_)), "{e}");
    assert!(e.to_string().contains("127.0.0.1:1"), "{e}");
}

#[tokio::test]
async fn insert_checks_blocks_before_sending() {
    let mut c = client().await;
    c.execute("DROP TABLE IF EXISTS chwire_check").await.unwrap();
    c.execute("CREATE TABLE chwire_check (a UInt64, b String) ENGINE = Memory").await.unwrap();
    let mut ins = c.insert_blocks("chwire_check", None).await.unwrap();
    let wrong_count = Block::new().with("a", Column::from(vec![1u64])).unwrap();
    let wrong_name = Block::new().with("a", Column::from(vec![1u64])).unwrap().with("c", Column::from(vec!["x"])).unwrap();
    let wrong_type = Block::new().with("a", Column::from(vec![1u32])).unwrap().with("b", Column::from(vec!["x"])).unwrap();
    for bad in [&wrong_count, &wrong_name, &wrong_type] {
        let e = ins.send(bad).await.unwrap_err();
        assert!(matches!(e.kind(), chwire::ErrorKind::InvalidInput(_)), "{e}");
    }
    let good = Block::new().with("a", Column::from(vec![1u64, 2])).unwrap().with("b", Column::from(vec!["x", "y"])).unwrap();
    ins.send(&good).await.unwrap();
    ins.send(&good).await.unwrap();
    assert_eq!(ins.end().await.unwrap().rows_sent, 4);
    assert_eq!(scalar_u64(&mut c, "SELECT count() FROM chwire_check").await, 4);

    // An abandoned insert commits nothing more and leaves the client usable.
    {
        let mut ins = c.insert_blocks("chwire_check", None).await.unwrap();
        ins.send(&good).await.unwrap();
    }
    assert!(scalar_u64(&mut c, "SELECT count() FROM chwire_check").await >= 4);
    let e = c.insert_blocks("chwire_no_such_table", None).await.unwrap_err();
    assert_eq!(e.code(), Some(60));
    c.execute("DROP TABLE chwire_check").await.unwrap();

    // A block the server refuses ends the insert with its error; natively the connection (and
    // with it the session's temporary tables) is kept: resynchronised, not replaced. (Over
    // HTTP the request's connection is replaced; a session lives on the server, by its id.)
    c.execute("DROP TABLE IF EXISTS chwire_check_small").await.unwrap();
    c.execute("CREATE TABLE chwire_check_small (a UInt64, CONSTRAINT small CHECK a < 5) ENGINE = Memory").await.unwrap();
    let native = !common::is_http();
    if native {
        c.execute("CREATE TEMPORARY TABLE chwire_session_mark (x UInt8)").await.unwrap();
    }
    let mut ins = c.insert_blocks("chwire_check_small", None).await.unwrap();
    let big = Block::new().with("a", Column::from(vec![10u64])).unwrap();
    let sent = ins.send(&big).await;
    let e = match sent {
        Ok(()) => ins.end().await.unwrap_err(),
        Err(e) => {
            drop(ins); // ended by its error: nothing to abandon
            e
        }
    };
    assert_eq!(e.code(), Some(469), "{e}");
    if native {
        assert!(c.is_connected());
        assert_eq!(scalar_u64(&mut c, "SELECT count() FROM chwire_session_mark").await, 0);
    }
    assert_eq!(scalar_u64(&mut c, "SELECT count() FROM chwire_check_small").await, 0);
    c.execute("DROP TABLE chwire_check_small").await.unwrap();
}

#[tokio::test]
async fn large_insert_in_many_blocks_with_compression() {
    for compression in [Compression::Lz4, Compression::Zstd(1), Compression::None] {
        let mut c = client_compressed(compression).await;
        let t = format!("chwire_big_{}", format!("{compression:?}").to_lowercase().replace(['(', ')'], ""));
        c.execute(format!("DROP TABLE IF EXISTS {t}")).await.unwrap();
        c.execute(format!("CREATE TABLE {t} (id UInt64, s String) ENGINE = Memory")).await.unwrap();
        let mut ins = c.insert_blocks(t.as_str(), None).await.unwrap();
        for blk in 0..5u64 {
            // ~3 MiB of strings per block: spans several compressed frames.
            let ids: Vec<u64> = (blk * 200_000..(blk + 1) * 200_000).collect();
            let s: StringColumn = ids.iter().map(|i| format!("value-{i:010}")).collect();
            ins.send(&Block::new().with("id", Column::from(ids)).unwrap().with("s", Column::from(s)).unwrap()).await.unwrap();
        }
        ins.end().await.unwrap();
        let b = c
            .query(format!(
                "SELECT count(), sum(id), sum(length(s)), countIf(s = concat('value-', leftPad(toString(id), 10, '0'))) FROM {t}"
            ))
            .fetch_blocks()
            .await;
        // leftPad is newer than 18.16: fall back to a check the old server knows.
        let b = match b {
            Ok(b) => b,
            Err(_) => c
                .query(format!("SELECT count(), sum(id), sum(length(s)), countIf(toUInt64(substring(s, 7)) = id) FROM {t}"))
                .fetch_blocks()
                .await
                .unwrap(),
        };
        let row: Vec<u64> = (0..4)
            .map(|i| match b[0].column_at(i).unwrap().value(0) {
                Value::UInt(v) => v,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(row, [1_000_000, 499_999_500_000, 16_000_000, 1_000_000], "{compression:?}");
        c.execute(format!("DROP TABLE {t}")).await.unwrap();
    }
}

#[tokio::test]
async fn read_timeout_discards_the_connection_and_the_client_recovers() {
    let mut c = client_with(options().receive_timeout(std::time::Duration::from_millis(300))).await;
    // A silent server: a current one sends Progress every interactive_delay while a query runs.
    let e = c.query("SELECT sleep(2)").setting("interactive_delay", "100000000").fetch_blocks().await.unwrap_err();
    assert!(e.is_timeout(), "{e}");
    assert!(!c.is_connected());
    // The next query opens a new connection and never sees the old query's packets.
    assert_eq!(scalar_u64(&mut c, "SELECT 8").await, 8);
}

#[tokio::test]
async fn resync_after_an_early_error_on_every_compression() {
    for compression in COMPRESSIONS {
        let mut c = client_compressed(compression).await;
        for _ in 0..3 {
            assert_eq!(c.query("SELEKT").fetch_blocks().await.unwrap_err().code(), Some(62));
            assert_eq!(c.insert_blocks("chwire_missing_table", None).await.unwrap_err().code(), Some(60));
        }
        assert_eq!(scalar_u64(&mut c, "SELECT 9").await, 9, "{compression:?}");
        assert!(c.is_connected());
    }
}

/// Types of the type-system issue that the 18.16 server has: LowCardinality (with the
/// rig's experimental setting), Decimal, Tuple; decoded values against the server's text.
#[tokio::test]
async fn low_cardinality_decimal_tuple_match_the_server() {
    let exprs = [
        ("toLowCardinality(concat('k', toString(number % 3)))", "LowCardinality(String)"),
        ("toLowCardinality(toNullable(if(number % 2 = 0, NULL, toString(number))))", "LowCardinality(Nullable(String))"),
        ("CAST([toString(number), 'x'] AS Array(LowCardinality(String)))", "Array(LowCardinality(String))"),
        ("toDecimal32(number / 7, 4)", "Decimal(9, 4)"),
        ("toDecimal64(-number * 1000000.5, 3)", "Decimal(18, 3)"),
        ("toDecimal128(number, 20)", "Decimal(38, 20)"),
        ("(number, toString(number), [number])", "Tuple(UInt64, String, Array(UInt64))"),
    ];
    let select = exprs.iter().enumerate().map(|(i, (e, _))| format!("{e} AS c{i}, toString(c{i}) AS s{i}")).collect::<Vec<_>>().join(", ");
    for compression in COMPRESSIONS {
        let mut c2 = client_compressed(compression).await;
        let blocks = c2.query(format!("SELECT {select} FROM system.numbers LIMIT 5")).fetch_blocks().await.unwrap();
        let b = &blocks[0];
        for (i, (expr, ty)) in exprs.iter().enumerate() {
            let col = b.column(&format!("c{i}")).unwrap();
            assert_eq!(col.data_type(), &DataType::parse(ty).unwrap(), "{expr}");
            for row in 0..b.rows() {
                let server_text = match b.column(&format!("s{i}")).unwrap().value(row) {
                    Value::String(s) => String::from_utf8_lossy(s).into_owned(),
                    Value::Null => "NULL".into(),
                    other => panic!("{other:?}"),
                };
                let ours = match col.value(row) {
                    Value::Array(items) => format!(
                        "[{}]",
                        items
                            .iter()
                            .map(|v| match v {
                                Value::String(_) => format!("'{}'", render(v)),
                                v => render(v),
                            })
                            .collect::<Vec<_>>()
                            .join(",")
                    ),
                    Value::Tuple(items) => format!(
                        "({})",
                        items
                            .iter()
                            .map(|(_, v)| match v {
                                Value::String(_) => format!("'{}'", render(v)),
                                v => render(v),
                            })
                            .collect::<Vec<_>>()
                            .join(",")
                    ),
                    v => render(&v),
                };
                // 18.16 prints decimals with all `scale` digits; chwire without trailing zeros.
                let norm = |s: &str| {
                    if s.contains('.') && !s.contains(['(', '[']) {
                        s.trim_end_matches('0').trim_end_matches('.').to_string()
                    } else {
                        s.to_string()
                    }
                };
                assert_eq!(norm(&ours), norm(&server_text), "{expr} row {row} ({compression:?})");
            }
        }
    }
}

#[tokio::test]
async fn low_cardinality_and_decimal_insert_round_trip() {
    use chwire::proto::column::{LcKeys, LowCardinalityColumn};
    let mut c = client().await;
    c.execute("DROP TABLE IF EXISTS chwire_lc").await.unwrap();
    c.execute("CREATE TABLE chwire_lc (lc LowCardinality(String), lcn LowCardinality(Nullable(String)), d Decimal(18, 3)) ENGINE = Memory")
        .await
        .unwrap();
    let mut ins = c.insert_blocks("chwire_lc", None).await.unwrap();
    assert_eq!(ins.header().column("lc").unwrap().data_type(), &DataType::parse("LowCardinality(String)").unwrap());
    let lc = ColumnData::LowCardinality(Box::new(LowCardinalityColumn {
        dictionary: ColumnData::String(["", "red", "green"].into_iter().collect()),
        keys: LcKeys::U8(vec![1, 2, 1, 0]),
    }));
    let lcn = ColumnData::LowCardinality(Box::new(LowCardinalityColumn {
        dictionary: ColumnData::String(["", "", "x"].into_iter().collect()),
        keys: LcKeys::U16(vec![0, 2, 1, 2]),
    }));
    let block = Block::new()
        .with("lc", Column::with_type_name("LowCardinality(String)", lc).unwrap())
        .unwrap()
        .with("lcn", Column::with_type_name("LowCardinality(Nullable(String))", lcn).unwrap())
        .unwrap()
        .with("d", Column::with_type_name("Decimal(18, 3)", ColumnData::Int64(vec![1500, -1, 0, 999_999_999_999_999_999])).unwrap())
        .unwrap();
    ins.send(&block).await.unwrap();
    ins.end().await.unwrap();
    for (cond, want) in [
        ("lc = 'red'", 2u64),
        ("lc = ''", 1),
        ("isNull(lcn)", 1),
        ("lcn = 'x'", 2),
        ("lcn = ''", 1),
        ("d = toDecimal64('1.5', 3)", 1),
        ("d = toDecimal64('-0.001', 3)", 1),
        ("d = toDecimal64('999999999999999.999', 3)", 1),
    ] {
        assert_eq!(scalar_u64(&mut c, &format!("SELECT count() FROM chwire_lc WHERE {cond}")).await, want, "{cond}");
    }
    let back = c.query("SELECT lc, lcn, d FROM chwire_lc").fetch_blocks().await.unwrap();
    let values: Vec<String> =
        (0..4).map(|i| format!("{:?}", back[0].columns().iter().map(|(_, col)| col.value(i)).collect::<Vec<_>>())).collect();
    assert_eq!(values[0], format!("{:?}", [Value::String(b"red"), Value::Null, Value::Decimal { raw: 1500, scale: 3 }]));
    c.execute("DROP TABLE chwire_lc").await.unwrap();
}

/// Parameters on the 18.16 server (no server-side parameters): bound client-side as typed,
/// escaped literals, and on 26.9 (server-side parameters). Hostile values arrive as data, never
/// as SQL.
#[tokio::test]
async fn parameters_are_data_never_sql() {
    parameters_on(client().await).await;
    parameters_on(client_18().await).await;
}

async fn parameters_on(mut c: chwire::Client) {
    let native_18 = is_old_server(&c) && c.options().transport == chwire::Transport::Native;
    c.execute("DROP TABLE IF EXISTS chwire_params").await.unwrap();
    c.execute("CREATE TABLE chwire_params (id UInt64, name String) ENGINE = Memory").await.unwrap();
    // Inline VALUES: 18.16 over native waits for blocks instead; chwire says so (and inserts
    // nothing). 26.9, and 18.16 over HTTP, parse inline VALUES from the query: they work.
    match c.execute("INSERT INTO chwire_params VALUES (1, 'alice')").await {
        Err(e) => assert!(matches!(e.kind(), chwire::ErrorKind::InvalidInput(_)) && native_18, "{e}"),
        Ok(_) => assert!(!native_18),
    }
    assert_eq!(scalar_u64(&mut c, "SELECT count() FROM chwire_params").await, !native_18 as u64);
    c.execute("TRUNCATE TABLE chwire_params").await.unwrap();
    // INSERT ... SELECT needs no blocks from the client: it runs on the server.
    c.execute("INSERT INTO chwire_params SELECT number, toString(number) FROM system.numbers LIMIT 3").await.unwrap();
    assert_eq!(scalar_u64(&mut c, "SELECT sum(id) FROM chwire_params").await, 3);
    c.execute("TRUNCATE TABLE chwire_params").await.unwrap();
    let mut ins = c.insert_blocks("chwire_params", None).await.unwrap();
    ins.send(&Block::new().with("id", Column::from(vec![1u64])).unwrap().with("name", Column::from(vec!["alice"])).unwrap()).await.unwrap();
    ins.end().await.unwrap();
    let hostile = [
        "'); DROP TABLE chwire_params; --",
        "it's",
        "back\\slash",
        "\\'",
        "line\nbreak\ttab\r",
        "nul\0byte",
        "ünïcödé 🚀 \u{2028}",
        "{id:UInt64}",
        "' OR 1 = 1 --",
        "",
    ];
    for v in hostile {
        let b = c.query("SELECT {v:String} AS v, length({v:String}) AS n").param("v", v).fetch_blocks().await.unwrap();
        assert_eq!(b[0].column("v").unwrap().value(0), Value::String(v.as_bytes()), "{v:?}");
        assert_eq!(scalar_of(&b[0], "n"), v.len() as u64, "{v:?}");
        let n = c.query("SELECT count() FROM chwire_params WHERE name = {name:String}").param("name", v).fetch_blocks().await.unwrap();
        assert_eq!(scalar_of(&n[0], "count()"), 0, "{v:?}");
    }
    // The table survived every value, and typed parameters of other types bind too.
    let b = c
        .query("SELECT name FROM chwire_params WHERE id = {id:UInt64} AND has({names:Array(String)}, name) AND {flag:UInt8} = 1")
        .param("id", 1u64)
        .param("names", vec!["bob", "alice'"])
        .param("flag", true)
        .fetch_blocks()
        .await
        .unwrap();
    assert!(b.is_empty(), "alice' is not alice");
    let b = c
        .query("SELECT name FROM chwire_params WHERE id = {id:UInt64} AND has({names:Array(String)}, name)")
        .param("id", 1u64)
        .param("names", vec!["alice"])
        .fetch_blocks()
        .await
        .unwrap();
    assert_eq!(b[0].column("name").unwrap().value(0), Value::String(b"alice"));
    // A placeholder without a value: refused by chwire where it binds them (18.16), by the
    // server as UNKNOWN_QUERY_PARAMETER where the server does.
    let e = c.query("SELECT {missing:UInt8}").fetch_blocks().await.unwrap_err();
    assert!(matches!(e.kind(), chwire::ErrorKind::InvalidInput(_)) || e.code() == Some(456), "{e}");
    // A negative number is no UInt64: an error (CAST(-1 AS UInt64) would have wrapped to
    // 2^64 - 1 and matched that id), and LIMIT still takes a plain number.
    let e = c.query("SELECT count() FROM chwire_params WHERE id = {id:UInt64}").param("id", -1i64).fetch_blocks().await.unwrap_err();
    assert!(e.server().is_some() || matches!(e.kind(), chwire::ErrorKind::InvalidInput(_)), "{e}");
    // Nor an integer beyond its placeholder type's range (26.9's server-side parameters would
    // wrap 300 into an Int8 as 44, 18.16's CAST too), also given as text.
    let e = c.query("SELECT {n:Int8}").param("n", 300i64).fetch_blocks().await.unwrap_err();
    assert!(matches!(e.kind(), chwire::ErrorKind::InvalidInput(m) if m.contains("outside the range")), "{e}");
    let e = c.query("SELECT {n:Nullable(UInt8)}").param("n", "256").fetch_blocks().await.unwrap_err();
    assert!(matches!(e.kind(), chwire::ErrorKind::InvalidInput(m) if m.contains("outside the range")), "{e}");
    let b = c.query("SELECT number FROM system.numbers LIMIT {n:UInt64}").param("n", 3u64).fetch_blocks().await.unwrap();
    assert_eq!(b.iter().map(|b| b.rows()).sum::<usize>(), 3);
    assert_eq!(scalar_u64(&mut c, "SELECT count() FROM chwire_params").await, 1);
    // Floats arrive bit for bit, subnormals (which 18.16 cannot parse as literals) included.
    for x in [5e-324f64, -2.5e-320, f64::MIN_POSITIVE, f64::MAX, -0.0, 0.1, 1e300, f64::INFINITY] {
        let b = c.query("SELECT {x:Float64} AS x").param("x", x).fetch_blocks().await.unwrap();
        assert!(matches!(b[0].column("x").unwrap().value(0), Value::Float64(v) if v.to_bits() == x.to_bits()), "{x:e}");
    }
    for x in [1e-45f32, -1.1e-38, f32::MAX] {
        let b = c.query("SELECT {x:Float32} AS x").param("x", x).fetch_blocks().await.unwrap();
        assert!(matches!(b[0].column("x").unwrap().value(0), Value::Float32(v) if v.to_bits() == x.to_bits()), "{x:e}");
    }
    c.execute("DROP TABLE chwire_params").await.unwrap();
}

fn scalar_of(b: &Block, col: &str) -> u64 {
    match b.column(col).unwrap().value(0) {
        Value::UInt(v) => v,
        other => panic!("{other:?}"),
    }
}

/// Tuple, Nested (flattened into arrays by 18.16) and Map-free composites built with the
/// builders, through the 18.16 server and back.
#[tokio::test]
async fn tuple_and_nested_round_trip() {
    let mut c = client().await;
    c.execute("DROP TABLE IF EXISTS chwire_tuple").await.unwrap();
    c.execute("CREATE TABLE chwire_tuple (t Tuple(UInt8, String), n Nested(a UInt8, b String)) ENGINE = Memory").await.unwrap();
    let mut ins = c.insert_blocks("chwire_tuple", None).await.unwrap();
    let names: Vec<String> = ins.header().names().map(str::to_string).collect();
    assert_eq!(names, ["t", "n.a", "n.b"]);
    let strings = |v: &[&str]| Column::from(v.iter().copied().collect::<StringColumn>());
    let t = Column::tuple(vec![(None, Column::from(vec![1u8, 2])), (None, strings(&["x", "it's"]))]).unwrap();
    let na = Column::array(&[2, 0], Column::from(vec![7u8, 8])).unwrap();
    let nb = Column::array(&[2, 0], strings(&["p", "q"])).unwrap();
    ins.send(&Block::new().with("t", t).unwrap().with("n.a", na).unwrap().with("n.b", nb).unwrap()).await.unwrap();
    ins.end().await.unwrap();
    assert_eq!(scalar_u64(&mut c, "SELECT count() FROM chwire_tuple WHERE t = (2, 'it\\'s') AND empty(n.a)").await, 1);
    assert_eq!(scalar_u64(&mut c, "SELECT count() FROM chwire_tuple ARRAY JOIN n WHERE n.a = 8 AND n.b = 'q'").await, 1);
    let back = c.query("SELECT t, n.a, n.b FROM chwire_tuple").fetch_blocks().await.unwrap();
    assert_eq!(back[0].column("t").unwrap().value(1), Value::Tuple(vec![(None, Value::UInt(2)), (None, Value::String(b"it's"))]));
    assert_eq!(back[0].column("n.b").unwrap().value(0), Value::Array(vec![Value::String(b"p"), Value::String(b"q")]));
    c.execute("DROP TABLE chwire_tuple").await.unwrap();
}

/// The same values give the same results on both servers, where 18.16 gets literals: a zoned
/// DateTime's instant (its CAST read text in the server's zone), Int64 and Float64 arrays mixing
/// large and negative values (no common type for its literals), text that is not a number for
/// a number type (refused: 18.16 cast it to 0 or NULL); typed values and the CLI's text alike.
#[tokio::test]
async fn typed_parameters_mean_the_same_on_both_servers() {
    use chwire::ParamValue as P;
    let noon_utc = P::Instant(1_704_110_400_000_000);
    let cases: Vec<(&str, P, &str)> = vec![
        ("SELECT toUnixTimestamp({p:DateTime('Asia/Kolkata')})", noon_utc.clone(), "1704110400"),
        ("SELECT toUnixTimestamp(assumeNotNull({p:Nullable(DateTime('America/New_York'))}))", noon_utc.clone(), "1704110400"),
        (
            "SELECT toString(arrayMap(x -> toUnixTimestamp(x), {p:Array(DateTime('Asia/Kolkata'))}))",
            P::List(vec![noon_utc.clone()]),
            "[1704110400]",
        ),
        ("SELECT toUnixTimestamp({p:DateTime('Asia/Kolkata')})", P::Str("2024-01-01 17:30:00".into()), "1704110400"),
        (
            "SELECT toString({p:Array(Int64)})",
            P::List(vec![P::Int(1 << 40), P::Int(-(1 << 40)), P::Int(i64::MAX.into())]),
            "[1099511627776,-1099511627776,9223372036854775807]",
        ),
        ("SELECT toString({p:Array(Nullable(Int64))})", P::List(vec![P::Int(-1), P::Null, P::Int(1 << 40)]), "[-1,NULL,1099511627776]"),
        ("SELECT toString({p:Array(Float64)})", P::List(vec![P::Int(-1), P::Int(1 << 53)]), "[-1,9007199254740992]"),
    ];
    for mut c in [client().await, client_18().await] {
        let server = if is_old_server(&c) { "18.16" } else { "26.9" };
        for (sql, value, want) in &cases {
            let b = c.query(*sql).bind("p", value).fetch_blocks().await.unwrap_or_else(|e| panic!("{server} {sql}: {e}"));
            let got = match b.iter().find(|b| b.rows() > 0).unwrap().column_at(0).unwrap().value(0) {
                Value::String(s) => String::from_utf8_lossy(s).into_owned(),
                Value::UInt(u) => u.to_string(),
                v => format!("{v:?}"),
            };
            assert_eq!(&got, want, "{server}: {sql}");
        }
        for ty in ["Decimal(9, 2)", "Nullable(UInt8)", "Float64"] {
            let e = c.query(format!("SELECT {{p:{ty}}}")).bind("p", &P::Str("abc".into())).fetch_blocks().await.unwrap_err();
            assert!(e.to_string().contains("is not a number"), "{server} {ty}: {e}");
        }
        assert_eq!(c.query("SELECT 1").fetch_blocks().await.unwrap()[0].rows(), 1);
    }
}
