//! What a current server (ClickHouse 26.9, the rig's main one) does over HTTP that 18.16 did
//! not, through the client: sessions (`session_id`) keeping SET and temporary tables — with the
//! DateTime zones of their results —, the zones of results of queries with server-side
//! parameters and settings, progress and `X-ClickHouse-Summary`,
//! `cancel_http_readonly_queries_on_client_close`, async inserts, and server-side parameters of
//! every type (tests/features/params.json) over both transports.

mod common;

use chwire::proto::Value;
use chwire::{Client, Options};
use std::time::{Duration, Instant};

fn http_url() -> String {
    std::env::var("CHWIRE_TEST_HTTP_URL").unwrap_or_else(|_| format!("http://default@127.0.0.1:{}/default", common::http_port()))
}

fn native_url() -> String {
    if common::is_http() {
        format!("tcp://default@127.0.0.1:{}/default", std::env::var("CHWIRE_TEST_TCP_PORT").unwrap_or_else(|_| "19000".into()))
    } else {
        common::url()
    }
}

async fn connect(url: &str) -> Client {
    Client::connect_url(url).await.unwrap_or_else(|e| panic!("{url}: {e}"))
}

/// Whether the rig's main server is older than the current one (`--18` runs): skip.
async fn old(c: &Client) -> bool {
    common::is_old_server(c)
}

async fn text(c: &mut Client, sql: &str) -> Option<String> {
    let b = c.query(sql).fetch_blocks().await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    match b.iter().find(|b| b.rows() > 0)?.column_at(0).unwrap().value(0) {
        Value::String(s) => Some(String::from_utf8_lossy(s).into_owned()),
        Value::Null => None,
        v => Some(format!("{v:?}")),
    }
}

fn type_of(b: &[chwire::proto::Block], col: usize) -> String {
    b[0].column_at(col).unwrap().data_type().to_string()
}

#[tokio::test]
async fn sessions_keep_settings_and_temporary_tables_with_their_zones() {
    let mut opts = Options::from_url(&http_url()).unwrap();
    opts.session_id = Some(format!("chwire-current-{}", std::process::id()));
    let mut c = Client::connect(opts).await.unwrap();
    if old(&c).await {
        return;
    }
    c.execute("SET max_threads = 3").await.unwrap();
    assert_eq!(text(&mut c, "SELECT toString(getSetting('max_threads'))").await.as_deref(), Some("3"));
    c.execute("CREATE TEMPORARY TABLE tmp (t DateTime('Asia/Tokyo'), d64 DateTime64(3, 'America/New_York'), n UInt8)").await.unwrap();
    c.execute("INSERT INTO tmp VALUES (0, 0, 1)").await.unwrap();
    // A DESCRIBE outside the session could not see `tmp`: the zones were lost, the rows shown
    // in the server's zone (silently 9 hours off).
    let b = c.query("SELECT t, d64, n FROM tmp").fetch_blocks().await.unwrap();
    assert_eq!((type_of(&b, 0), type_of(&b, 1)), ("DateTime('Asia/Tokyo')".to_string(), "DateTime64(3, 'America/New_York')".to_string()));
    assert_eq!(b[0].column_at(0).unwrap().value(0), Value::DateTime(0, Some("Asia/Tokyo")));
    // The session's settings and tables stay the session's.
    let mut other = connect(&http_url()).await;
    assert_eq!(other.query("SELECT count() FROM tmp").fetch_blocks().await.unwrap_err().code(), Some(60));
    assert_ne!(text(&mut other, "SELECT toString(getSetting('max_threads'))").await.as_deref(), Some("3"));
    // A refused statement leaves the session usable.
    assert!(c.execute("SELECT * FROM chwire_no_such_table").await.unwrap_err().code() == Some(60));
    assert_eq!(text(&mut c, "SELECT toString(count()) FROM tmp").await.as_deref(), Some("1"));
}

#[tokio::test]
async fn results_of_queries_with_parameters_and_settings_keep_their_zones() {
    let mut c = connect(&http_url()).await;
    if old(&c).await {
        return;
    }
    // The DESCRIBE that put the zones back went without the query's parameters: the query could
    // not be described and the column came out in the server's zone.
    let b = c
        .query("SELECT toDateTime(0, 'Asia/Tokyo') AS t, [toDateTime64(0, 3, 'UTC')] AS a, {p:UInt8} AS p")
        .param("p", 7u8)
        .fetch_blocks()
        .await
        .unwrap();
    assert_eq!((type_of(&b, 0), type_of(&b, 1)), ("DateTime('Asia/Tokyo')".to_string(), "Array(DateTime64(3, 'UTC'))".to_string()));
    // A plain DateTime stays plain (the server's zone, as over the native protocol).
    let b = c.query("SELECT toDateTime(0) AS t").fetch_blocks().await.unwrap();
    assert_eq!(type_of(&b, 0), "DateTime");
    // Sparse columns over HTTP (custom serializations come with the revision asked for).
    c.execute("DROP TABLE IF EXISTS chwire_http_sparse").await.unwrap();
    c.execute(
        "CREATE TABLE chwire_http_sparse (k UInt64, v UInt64, t Tuple(a UInt32, s String)) ENGINE = MergeTree ORDER BY k \
         SETTINGS ratio_of_defaults_for_sparse_serialization = 0.5",
    )
    .await
    .unwrap();
    c.execute("INSERT INTO chwire_http_sparse SELECT number, if(number % 10 = 0, number, 0), if(number % 10 = 0, (1, 'x'), (0, '')) FROM numbers(10000)")
        .await
        .unwrap();
    let b = c.query("SELECT sum(v), countIf(t.a = 1), countIf(t.s = 'x') FROM chwire_http_sparse").fetch_blocks().await.unwrap();
    let sums: Vec<Value> = (0..3).map(|i| b[0].column_at(i).unwrap().value(0)).collect();
    let blocks = c.query("SELECT v, t FROM chwire_http_sparse ORDER BY k").fetch_blocks().await.unwrap();
    let (mut sum, mut ones) = (0u64, 0u64);
    for b in &blocks {
        for i in 0..b.rows() {
            if let Value::UInt(v) = b.column_at(0).unwrap().value(i) {
                sum += v;
            }
            if let Value::Tuple(items) = b.column_at(1).unwrap().value(i) {
                ones += u64::from(items[0].1 == Value::UInt(1));
            }
        }
    }
    assert_eq!(sums, [Value::UInt(sum), Value::UInt(ones), Value::UInt(ones)]);
    assert_eq!(ones, 1000);
    c.execute("DROP TABLE chwire_http_sparse").await.unwrap();
}

#[tokio::test]
async fn progress_and_the_summary_header() {
    let mut c = connect(&http_url()).await;
    if old(&c).await {
        return;
    }
    // A quiet query: the summary comes with the result, and is the whole query's.
    let mut s = c.query("SELECT count() FROM numbers(3000000)").stream().await.unwrap();
    let mut events = 0;
    while let Some(e) = s.next_event().await.unwrap() {
        events += usize::from(matches!(e, chwire::Event::Progress(_)));
    }
    assert!(events >= 1);
    assert_eq!(s.progress().read_rows, 3_000_000);
    drop(s);
    // An INSERT ... SELECT: written rows.
    c.execute("DROP TABLE IF EXISTS chwire_http_progress").await.unwrap();
    c.execute("CREATE TABLE chwire_http_progress (n UInt64) ENGINE = Memory").await.unwrap();
    let summary = c.query("INSERT INTO chwire_http_progress SELECT number FROM numbers(12345)").execute().await.unwrap();
    assert_eq!((summary.progress.written_rows, summary.progress.read_rows), (12345, 12345));
    // With the server's progress headers asked for, a long quiet query reports while it runs.
    let summary = c
        .query("SELECT count() FROM numbers(20000000) WHERE NOT ignore(sleepEachRow(0))")
        .setting("send_progress_in_http_headers", "1")
        .setting("http_headers_progress_interval_ms", "10")
        .setting("max_block_size", "65536")
        .execute()
        .await
        .unwrap();
    assert_eq!(summary.progress.read_rows, 20_000_000);
    c.execute("DROP TABLE chwire_http_progress").await.unwrap();
}

async fn running(c: &mut Client, id: &str) -> bool {
    let b = c.query(format!("SELECT count() FROM system.processes WHERE query_id = '{id}'")).fetch_blocks().await.unwrap();
    b[0].column_at(0).unwrap().value(0) != Value::UInt(0)
}

#[tokio::test]
async fn cancel_http_readonly_queries_on_client_close() {
    let mut c = connect(&http_url()).await;
    if old(&c).await {
        return;
    }
    let mut watch = connect(&native_url()).await;
    for (readonly, cancel_on_close) in [("2", "1"), ("1", "1"), ("0", "0")] {
        let id = format!("chwire-readonly-close-{}-{readonly}", std::process::id());
        let mut s = c
            .query("SELECT sleepEachRow(0.05), number FROM numbers(1000)")
            .setting("readonly", readonly)
            .setting("cancel_http_readonly_queries_on_client_close", cancel_on_close)
            .setting("max_block_size", "1")
            .query_id(id.clone())
            .stream()
            .await
            .unwrap();
        let first = s.next_block().await.unwrap().expect("a first block");
        assert_eq!(first.rows(), 1);
        assert!(running(&mut watch, &id).await);
        drop(s);
        let deadline = Instant::now() + Duration::from_secs(5);
        while running(&mut watch, &id).await {
            assert!(Instant::now() < deadline, "readonly={readonly}: the dropped query still runs");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // The client goes on (a new connection), with the same settings.
        let b = c
            .query("SELECT 1")
            .setting("readonly", readonly)
            .setting("cancel_http_readonly_queries_on_client_close", cancel_on_close)
            .fetch_blocks()
            .await
            .unwrap();
        assert_eq!(b[0].column_at(0).unwrap().value(0), Value::UInt(1));
    }
}

/// The rig's clickhouse-local has no asynchronous insert queue (`SYSTEM FLUSH ASYNC INSERT
/// QUEUE`: "not initialized"): async inserts run as ordinary ones there, so this checks that
/// the settings travel and the rows land, by each insert path of both transports.
#[tokio::test]
async fn async_inserts_with_and_without_waiting() {
    for url in [native_url(), http_url()] {
        let mut c = connect(&url).await;
        if old(&c).await {
            return;
        }
        c.execute("DROP TABLE IF EXISTS chwire_async").await.unwrap();
        c.execute("CREATE TABLE chwire_async (a UInt32, s String) ENGINE = MergeTree ORDER BY a").await.unwrap();
        for (i, wait) in ["1", "0"].into_iter().enumerate() {
            let mut ins = c
                .query("INSERT INTO chwire_async VALUES")
                .setting("async_insert", "1")
                .setting("wait_for_async_insert", wait)
                .insert_blocks()
                .await
                .unwrap();
            let block = chwire::proto::Block::new()
                .with("a", chwire::proto::Column::from(vec![i as u32 * 10, i as u32 * 10 + 1]))
                .unwrap()
                .with("s", chwire::proto::Column::from(vec!["x", "y"]))
                .unwrap();
            ins.send(&block).await.unwrap();
            assert_eq!(ins.end().await.unwrap().rows_sent, 2);
            c.query(format!("INSERT INTO chwire_async VALUES ({}, 'v')", 100 + i))
                .setting("async_insert", "1")
                .setting("wait_for_async_insert", wait)
                .execute()
                .await
                .unwrap();
        }
        if let Err(e) = c.execute("SYSTEM FLUSH ASYNC INSERT QUEUE").await {
            assert!(e.to_string().contains("not initialized"), "{e}");
        }
        assert_eq!(
            text(&mut c, "SELECT toString(groupArray(a)) FROM (SELECT a FROM chwire_async ORDER BY a)").await.as_deref(),
            Some("[0,1,10,11,100,101]")
        );
        c.execute("DROP TABLE chwire_async").await.unwrap();
    }
}

/// Server-side parameters of every type (tests/features/params.json) by their text, over both
/// transports: the server's text of each is the case's.
#[tokio::test]
async fn server_side_parameters_of_every_type() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/features/params.json");
    let cases: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for url in [native_url(), http_url()] {
        let mut c = connect(&url).await;
        if old(&c).await {
            return;
        }
        let mut wrong = Vec::new();
        for p in cases["params"].as_array().unwrap() {
            let ty = p["type"].as_str().unwrap();
            let q = c
                .query(format!("SELECT toString({{p:{ty}}})"))
                .server_param("p", p["param"].as_str().unwrap())
                .setting("allow_experimental_json_type", "1")
                .setting("allow_experimental_dynamic_type", "1")
                .setting("allow_experimental_variant_type", "1")
                .setting("enable_time_time64_type", "1")
                .setting("allow_experimental_qbit_type", "1");
            match q.fetch_blocks().await {
                Ok(b) => {
                    let got = match b.iter().find(|b| b.rows() > 0).map(|b| b.column_at(0).unwrap().value(0)) {
                        Some(Value::String(s)) => Some(String::from_utf8_lossy(s).into_owned()),
                        _ => None,
                    };
                    if got.as_deref() != p["text"].as_str() {
                        wrong.push(format!("{ty}: {got:?}, the server's text is {}", p["text"]));
                    }
                }
                Err(e) => wrong.push(format!("{ty}: {e}")),
            }
        }
        assert!(wrong.is_empty(), "{url}:\n{}", wrong.join("\n"));
        // A parameter the server refuses leaves the connection usable.
        let e = c.query("SELECT {p:Array(UInt8)}").server_param("p", "['x']").fetch_blocks().await.unwrap_err();
        assert!(e.code().is_some(), "{e}");
        assert_eq!(text(&mut c, "SELECT toString(7)").await.as_deref(), Some("7"));
    }
}

/// `session_timezone`: the server renders DateTime columns without a zone in the session's
/// zone and says so (TimezoneUpdate, `X-ClickHouse-Timezone`); such columns come in that zone,
/// where they came in the server's (the handshake's) and were rendered 9 hours off.
#[tokio::test]
async fn the_session_timezone_is_the_zone_of_datetimes_without_one() {
    let sql = "SELECT toDateTime(0) AS t, [toDateTime64(0, 3)] AS a, toDateTime(0, 'UTC') AS u, toString(t) AS s";
    for url in [native_url(), http_url()] {
        let mut c = connect(&url).await;
        if old(&c).await {
            return;
        }
        let b = c.query(sql).setting("session_timezone", "Asia/Tokyo").fetch_blocks().await.unwrap();
        let types: Vec<String> = (0..3).map(|i| type_of(&b, i)).collect();
        assert_eq!(types, ["DateTime('Asia/Tokyo')", "Array(DateTime64(3, 'Asia/Tokyo'))", "DateTime('UTC')"], "{url}");
        assert_eq!(b[0].column_at(3).unwrap().value(0), Value::String(b"1970-01-01 09:00:00"));
        // Without it, the server's zone as before.
        let b = c.query(sql).fetch_blocks().await.unwrap();
        assert_eq!(type_of(&b, 0), "DateTime", "{url}");
    }
    // Set for a session over HTTP, it holds for the session's later queries.
    let mut opts = Options::from_url(&http_url()).unwrap();
    opts.session_id = Some(format!("chwire-session-tz-{}", std::process::id()));
    let mut c = Client::connect(opts).await.unwrap();
    c.execute("SET session_timezone = 'America/New_York'").await.unwrap();
    let b = c.query(sql).fetch_blocks().await.unwrap();
    assert_eq!(type_of(&b, 0), "DateTime('America/New_York')");
    // And in the URL's settings, for every query of a client.
    let mut c = connect(&format!("{}?session_timezone=Asia/Kolkata", native_url())).await;
    let b = c.query(sql).fetch_blocks().await.unwrap();
    assert_eq!(type_of(&b, 0), "DateTime('Asia/Kolkata')");
}

/// Settings that change the bytes chwire reads or writes are refused before anything is sent,
/// over both transports, per query and per client, for queries and inserts; the connection
/// stays usable. (Sent, `compression=gzip` or `default_format=CSV` made HTTP answers unreadable:
/// "malformed BlockInfo".)
#[tokio::test]
async fn settings_that_change_the_wire_format_are_refused_by_name() {
    for url in [native_url(), http_url()] {
        let mut c = connect(&url).await;
        for (name, value) in [
            ("compression", "gzip"),
            ("default_format", "CSV"),
            ("enable_http_compression", "1"),
            ("compress", "1"),
            ("decompress", "1"),
            ("output_format_native_encode_types_in_binary_format", "1"),
            ("input_format_native_decode_types_in_binary_format", "1"),
        ] {
            let e = c.query("SELECT 1").setting(name, value).fetch_blocks().await.unwrap_err();
            assert!(matches!(e.kind(), chwire::ErrorKind::InvalidInput(_)), "{url} {name}: {e}");
            assert!(e.to_string().contains(name), "{url}: {e}");
            let e = c.query("INSERT INTO system.numbers VALUES").setting(name, value).insert_blocks().await.err();
            assert!(e.is_some_and(|e| e.to_string().contains(name)), "{url} {name}: an insert was started");
            assert_eq!(text(&mut c, "SELECT toString(7)").await.as_deref(), Some("7"), "{url}");
        }
        let opts = Options::from_url(&url).unwrap().setting("default_format", "JSON");
        let e = match Client::connect(opts).await {
            Ok(mut c) => c.query("SELECT 1").fetch_blocks().await.unwrap_err(),
            Err(e) => e,
        };
        assert!(e.to_string().contains("default_format"), "{url}: {e}");
    }
}

/// A query's own `FORMAT` clause: over the native protocol the server sends blocks whatever it
/// says; over HTTP it shaped the answer ("malformed BlockInfo"). Both give the rows.
#[tokio::test]
async fn a_querys_format_clause_gives_the_same_rows_over_both_transports() {
    for url in [native_url(), http_url()] {
        let mut c = connect(&url).await;
        for sql in [
            "SELECT toString(number) AS v FROM numbers(3) FORMAT JSONEachRow",
            "SELECT toString(number) AS v FROM numbers(3) format CSV;",
            "SELECT toString(number) AS v FROM numbers(3) /* c */ FORMAT `TabSeparated`",
        ] {
            let blocks = c.query(sql).fetch_blocks().await.unwrap_or_else(|e| panic!("{url} {sql}: {e}"));
            let rows: Vec<String> = blocks
                .iter()
                .flat_map(|b| {
                    let col = b.column_at(0).unwrap();
                    (0..b.rows()).map(move |r| match col.value(r) {
                        Value::String(s) => String::from_utf8_lossy(s).into_owned(),
                        v => format!("{v:?}"),
                    })
                })
                .collect();
            assert_eq!(rows, ["0", "1", "2"], "{url} {sql}");
        }
        // A column named format is no clause.
        assert_eq!(text(&mut c, "SELECT 'x' AS format ORDER BY format").await.as_deref(), Some("x"), "{url}");
    }
}

/// A server exception reads alike over both transports: HTTP's answer adds the server's
/// version, which native exceptions do not carry (taken off), and the error's name (kept:
/// whether the server also added a full stop before it cannot be told).
#[tokio::test]
async fn an_exception_reads_alike_over_both_transports() {
    let mut messages = Vec::new();
    for url in [native_url(), http_url()] {
        let mut c = connect(&url).await;
        let e = c.query("SELECT * FROM chwire_no_such_table_here").fetch_blocks().await.unwrap_err();
        let s = e.server().unwrap_or_else(|| panic!("{url}: {e}"));
        messages.push((s.code, s.message.clone()));
    }
    assert_eq!(messages[0].0, messages[1].0);
    assert!(messages[1].1.starts_with(&messages[0].1), "{messages:?}");
    assert!(!messages[1].1.contains("(version "), "{messages:?}");
}

/// A relay in front of `to` (host:port) that keeps the first bytes the server sends on each
/// connection: the response heads.
async fn relay(to: String) -> (u16, std::sync::Arc<std::sync::Mutex<Vec<u8>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let kept = seen.clone();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(server) = tokio::net::TcpStream::connect(&to).await else { return };
            let kept = kept.clone();
            tokio::spawn(async move {
                let (mut cr, mut cw) = client.into_split();
                let (mut sr, mut sw) = server.into_split();
                tokio::spawn(async move { tokio::io::copy(&mut cr, &mut sw).await });
                let mut buf = vec![0u8; 64 << 10];
                while let Ok(n) = sr.read(&mut buf).await {
                    if n == 0 || cw.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                    let mut k = kept.lock().unwrap();
                    if k.len() < 1 << 20 {
                        k.extend_from_slice(&buf[..n.min(4096)]);
                    }
                }
            });
        }
    });
    (port, seen)
}

/// With compression, answers come in the HTTP content encoding the option names where the
/// server has it (26.9: `lz4` frames for `compression=lz4`, ZSTD for `zstd`; 18.16 gzip for
/// both), and stream as the server sends them: a result that trickles out over 3 s reads
/// whole under a 2 s `receive_timeout` (the blocks keep coming; ClickHouse's own frames,
/// `compress=1`, were held by 26.9 until the query's end and made this time out).
#[tokio::test]
async fn compressed_answers_stream_in_the_encoding_the_option_names() {
    use chwire::proto::Compression;
    let mut servers = vec![(http_url(), false)];
    if let Ok(u) = std::env::var("CHWIRE_TEST_HTTP_URL_18") {
        servers.push((u, true));
    }
    for (url, is_18) in servers {
        let real = Options::from_url(&url).unwrap();
        let (port, seen) = relay(format!("{}:{}", real.host, real.port)).await;
        for (compression, current) in [(Compression::Lz4, "lz4"), (Compression::Zstd(3), "zstd")] {
            let expected = if is_18 { "gzip" } else { current };
            let mut opts = Options::from_url(&url).unwrap().compression(compression);
            opts.port = port;
            opts.receive_timeout = Some(Duration::from_secs(2));
            let mut c = Client::connect(opts).await.unwrap();
            seen.lock().unwrap().clear();
            let (n, s): (u64, u64) =
                c.query("SELECT sum(number), sum(length(toString(number))) FROM numbers(3000000)").fetch_one().await.unwrap();
            let mut stream = c.query("SELECT number, toString(number) FROM numbers(3000000)").stream().await.unwrap();
            let (mut rows, mut sum, mut len) = (0, 0u64, 0u64);
            while let Some(b) = stream.next_block().await.unwrap() {
                rows += b.rows();
                sum += b.column_at(0).unwrap().as_u64().unwrap().iter().sum::<u64>();
                len += (0..b.rows())
                    .map(|r| match b.column_at(1).unwrap().value(r) {
                        Value::String(v) => v.len() as u64,
                        v => panic!("{v:?}"),
                    })
                    .sum::<u64>();
            }
            drop(stream);
            assert_eq!((rows, sum, len), (3_000_000, n, s), "{url} {compression:?}");
            let heads = String::from_utf8_lossy(&seen.lock().unwrap()).to_ascii_lowercase();
            assert!(heads.contains(&format!("content-encoding: {expected}\r\n")), "{url} {compression:?}: {heads:.2000}");
            if is_18 {
                continue;
            }
            let trickle = "SELECT number, sleepEachRow(0.5) FROM numbers(6)";
            let mut stream = c
                .query(trickle)
                .setting("max_block_size", "1")
                .setting("max_threads", "1")
                .setting("function_sleep_max_microseconds_per_block", "0")
                .stream()
                .await
                .unwrap();
            let mut got = Vec::new();
            while let Some(b) = stream.next_block().await.unwrap_or_else(|e| panic!("{compression:?}: after {got:?}: {e}")) {
                got.extend_from_slice(b.column_at(0).unwrap().as_u64().unwrap());
            }
            assert_eq!(got, [0, 1, 2, 3, 4, 5], "{compression:?}");
        }
    }
}
