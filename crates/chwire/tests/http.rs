//! The HTTP transport against the 18.16 rig (and, with CHWIRE_TEST_PROXY_URL, through a real
//! nginx reverse proxy): what only HTTP has — errors in the status and mid-body, streamed and
//! abandoned inserts, cancellation by closing, keep-alive expiry, sessions, credentials in
//! headers, HTTPS. The shared live suites (live, rows, rows_ext, arrow) also run over HTTP
//! (`make http-test`).

mod common;

use chwire::proto::{Block, Column};
use chwire::{Client, ErrorKind, Options, TlsOptions, Transport};
use std::time::{Duration, Instant};

/// The rig's HTTP interface (scripts/server.sh), or CHWIRE_TEST_HTTP_URL.
fn http_url() -> String {
    std::env::var("CHWIRE_TEST_HTTP_URL").unwrap_or_else(|_| "http://default@127.0.0.1:18123/default".to_string())
}

async fn http_client(url: &str) -> Client {
    Client::connect_url(url).await.unwrap_or_else(|e| common::unreachable_server(url, e))
}

async fn scalar(c: &mut Client, sql: &str) -> u64 {
    let b = c.query(sql).fetch_blocks().await.unwrap();
    b[0].column_at(0).unwrap().as_u64().unwrap()[0]
}

/// Rows received before the error of a query that fails after 2.7 MB of results.
async fn fails_mid_body(c: &mut Client) -> (usize, chwire::Error) {
    let mut s =
        c.query("SELECT number, throwIf(number = 300000) FROM numbers(1000000)").setting("max_block_size", "10000").stream().await.unwrap();
    let mut rows = 0;
    loop {
        match s.next_block().await {
            Ok(Some(b)) => rows += b.rows(),
            Ok(None) => panic!("the result ended without the error after {rows} rows (a truncated result)"),
            Err(e) => return (rows, e),
        }
    }
}

#[tokio::test]
async fn the_url_selects_http_and_results_stream_as_blocks() {
    let mut c = http_client(&http_url()).await;
    assert_eq!(c.options().transport, Transport::Http);
    let info = c.server_info().unwrap();
    let (version,): (String,) = c.query("SELECT version()").fetch_one().await.unwrap();
    assert!(version.starts_with(&format!("{}.{}.", info.version.0, info.version.1)), "{version} vs {info:?}");
    assert!(info.timezone.is_some());
    let mut s = c.query("SELECT number FROM system.numbers LIMIT 1000000").setting("max_block_size", "65536").stream().await.unwrap();
    let (mut blocks, mut sum) = (0, 0u64);
    while let Some(b) = s.next_block().await.unwrap() {
        blocks += 1;
        sum += b.column_at(0).unwrap().as_u64().unwrap().iter().sum::<u64>();
    }
    assert_eq!(sum, 499_999_500_000);
    assert!(blocks >= 15, "{blocks} blocks: decoded as they arrive");
    drop(s);
    // FORMAT Native over HTTP names DateTime columns without their zone; chwire asks the
    // server for them (docs/HTTP.md), also inside other types, and keeps plain ones plain.
    let sql = "SELECT toDateTime('2021-02-03 04:05:06', 'Asia/Tokyo') AS t, [toDateTime(0, 'UTC')] AS a, toDateTime(0) AS p, 1 AS n";
    for _ in 0..2 {
        let b = c.query(sql).fetch_blocks().await.unwrap();
        let types: Vec<String> = b[0].columns().iter().map(|(_, c)| c.data_type().to_string()).collect();
        assert_eq!(types, ["DateTime('Asia/Tokyo')", "Array(DateTime('UTC'))", "DateTime", "UInt8"]);
        assert_eq!(b[0].column_at(0).unwrap().as_u32().unwrap()[0], 1_612_292_706);
    }
}

/// FORMAT Native over HTTP writes nothing for an empty result; chwire gives it the header
/// block the native protocol would (its columns from the server), and only to queries.
#[tokio::test]
async fn an_empty_result_keeps_its_columns() {
    let mut c = http_client(&http_url()).await;
    let mut s =
        c.query("SELECT number AS n, toDateTime(0, 'Asia/Tokyo') AS t, 'x' AS s FROM numbers(10) WHERE n > 100").stream().await.unwrap();
    assert!(s.next_block().await.unwrap().is_none(), "no rows");
    let header = s.header().expect("the header of an empty result");
    let columns: Vec<(String, String)> = header.columns().iter().map(|(n, c)| (n.clone(), c.data_type().to_string())).collect();
    assert_eq!(columns, [("n", "UInt64"), ("t", "DateTime('Asia/Tokyo')"), ("s", "String")].map(|(n, t)| (n.to_string(), t.to_string())));
    drop(s);
    // A result with rows gets no extra header block.
    assert!(c.query("SELECT 1 AS one").fetch_blocks().await.unwrap().iter().all(|b| b.rows() == 1));
}

#[tokio::test]
async fn errors_in_the_status_and_mid_body_are_server_errors() {
    // Also with compression: the response is gzip-encoded, the error inside the encoding.
    for compression in common::COMPRESSIONS {
        let mut c = Client::connect(Options::from_url(&http_url()).unwrap().compression(compression)).await.unwrap();
        status_and_mid_body_errors(&mut c).await;
    }
}

async fn status_and_mid_body_errors(c: &mut Client) {
    let e = c.query("SELECT * FROM chwire_http_no_such_table").fetch_blocks().await.unwrap_err();
    assert_eq!(e.code(), Some(60), "{e}");
    assert!(e.server().unwrap().message.contains("chwire_http_no_such_table"), "{e}");
    assert!(!e.breaks_connection());
    let (rows, e) = fails_mid_body(c).await;
    assert_eq!(e.code(), Some(395), "{e}");
    assert!(rows > 0 && rows <= 300_000, "{rows} rows came before the error");
    assert_eq!(scalar(c, "SELECT toUInt64(7)").await, 7);
    assert_eq!(scalar(c, "SELECT sum(number) FROM (SELECT number FROM system.numbers LIMIT 1000000)").await, 499_999_500_000);
}

#[tokio::test]
async fn inserts_stream_blocks_with_and_without_compression() {
    let mut c = http_client(&http_url()).await;
    c.execute("DROP TABLE IF EXISTS chwire_http_ins").await.unwrap();
    c.execute("CREATE TABLE chwire_http_ins (n UInt64, s String, m UInt64 MATERIALIZED n * 2) ENGINE = Memory").await.unwrap();
    for compression in common::COMPRESSIONS {
        let mut c = Client::connect(Options::from_url(&http_url()).unwrap().compression(compression)).await.unwrap();
        c.execute("TRUNCATE TABLE chwire_http_ins").await.unwrap();
        let mut ins = c.insert_blocks("chwire_http_ins", None).await.unwrap();
        assert_eq!(ins.header().names().collect::<Vec<_>>(), ["n", "s"], "MATERIALIZED columns take no data");
        for part in 0..20u64 {
            let n: Vec<u64> = (part * 50_000..(part + 1) * 50_000).collect();
            let s: Vec<String> = n.iter().map(|x| x.to_string()).collect();
            let block = Block::new().with("n", Column::from(n)).unwrap().with("s", Column::from(s)).unwrap();
            ins.send(&block).await.unwrap();
        }
        assert_eq!(ins.end().await.unwrap().rows_sent, 1_000_000);
        assert_eq!(scalar(&mut c, "SELECT count() FROM chwire_http_ins").await, 1_000_000, "{compression:?}");
        assert_eq!(scalar(&mut c, "SELECT sum(m) + sum(toUInt64(s)) FROM chwire_http_ins").await, 3 * 499_999_500_000);
        // A column list picks and orders the columns.
        let mut ins = c.insert_blocks("chwire_http_ins", Some(&["s", "n"])).await.unwrap();
        assert_eq!(ins.header().names().collect::<Vec<_>>(), ["s", "n"]);
        ins.send(&Block::new().with("s", Column::from(vec!["x"])).unwrap().with("n", Column::from(vec![7u64])).unwrap()).await.unwrap();
        ins.end().await.unwrap();
        assert_eq!(scalar(&mut c, "SELECT count() FROM chwire_http_ins WHERE s = 'x' AND n = 7").await, 1);
    }
    // A block that does not fit is refused before it is sent; the insert goes on.
    let mut ins = c.insert_blocks("chwire_http_ins", None).await.unwrap();
    let e = ins.send(&Block::new().with("n", Column::from(vec![1u32])).unwrap().with("s", Column::from(vec!["a"])).unwrap()).await;
    assert!(matches!(e.unwrap_err().kind(), ErrorKind::InvalidInput(_)));
    ins.end().await.unwrap();
    let e = c.insert_blocks("chwire_http_no_such_table", None).await.unwrap_err();
    assert_eq!(e.code(), Some(60), "{e}");
    c.execute("DROP TABLE chwire_http_ins").await.unwrap();
}

/// An insert statement's own SETTINGS clause goes with its rows over HTTP too (it was dropped:
/// chwire sends its own `INSERT … FORMAT Native`). A value the server refuses shows it does.
#[tokio::test]
async fn an_insert_statements_settings_reach_the_server() {
    let mut c = http_client(&http_url()).await;
    if common::is_old_server(&c) {
        return; // 18.16 takes max_threads = 'many' without a word
    }
    c.execute("DROP TABLE IF EXISTS chwire_http_set").await.unwrap();
    c.execute("CREATE TABLE chwire_http_set (n UInt64) ENGINE = Memory").await.unwrap();
    let block = Block::new().with("n", Column::from(vec![1u64])).unwrap();
    let mut ins = c.query("INSERT INTO chwire_http_set SETTINGS max_threads = 2 FORMAT Native").insert_blocks().await.unwrap();
    ins.send(&block).await.unwrap();
    ins.end().await.unwrap();
    let refused = async {
        let mut ins = c.query("INSERT INTO chwire_http_set (n) SETTINGS max_threads = 'many' VALUES").insert_blocks().await?;
        ins.send(&block).await?;
        ins.end().await
    }
    .await;
    let e = refused.unwrap_err();
    assert!(e.to_string().contains("'many'"), "{e}");
    assert_eq!(scalar(&mut c, "SELECT count() FROM chwire_http_set").await, 1);
    c.execute("DROP TABLE chwire_http_set").await.unwrap();
}

#[tokio::test]
async fn an_abandoned_insert_commits_nothing() {
    let mut c = http_client(&http_url()).await;
    c.execute("DROP TABLE IF EXISTS chwire_http_abandon").await.unwrap();
    c.execute("CREATE TABLE chwire_http_abandon (n UInt64) ENGINE = Memory").await.unwrap();
    {
        let mut ins = c.insert_blocks("chwire_http_abandon", None).await.unwrap();
        for _ in 0..3 {
            ins.send(&Block::new().with("n", Column::from(vec![1u64, 2, 3])).unwrap()).await.unwrap();
        }
        // Dropped without end(): the body never gets its final chunk.
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(scalar(&mut c, "SELECT count() FROM chwire_http_abandon").await, 0);
    c.execute("DROP TABLE chwire_http_abandon").await.unwrap();
}

#[tokio::test]
async fn dropping_a_stream_cancels_the_query_on_the_server() {
    let mut c = http_client(&http_url()).await;
    let id = format!("chwire-http-cancel-{}", std::process::id());
    {
        let mut s = c.query("SELECT number FROM system.numbers").query_id(id.clone()).stream().await.unwrap();
        assert!(s.next_block().await.unwrap().is_some());
    }
    let mut other = http_client(&http_url()).await;
    let start = Instant::now();
    loop {
        let running = scalar(&mut other, &format!("SELECT count() FROM system.processes WHERE query_id = '{id}'")).await;
        if running == 0 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "the abandoned query still runs");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(scalar(&mut c, "SELECT toUInt64(8)").await, 8);
}

/// A query that writes little (18.16 flushes its HTTP answer per 1 MiB, so closing the
/// connection stops it only at its end): cancelled, or past its deadline, it is killed.
#[tokio::test]
async fn a_cancelled_quiet_query_is_killed() {
    let mut c = http_client(&http_url()).await;
    let mut other = http_client(&http_url()).await;
    let slow = "SELECT number, sleepEachRow(0.001) FROM numbers(30000) SETTINGS max_block_size = 100";
    let gone = |id: String| async move {
        let mut other = http_client(&http_url()).await;
        let start = Instant::now();
        while scalar(&mut other, &format!("SELECT count() FROM system.processes WHERE query_id = '{id}'")).await > 0 {
            assert!(start.elapsed() < Duration::from_secs(5), "the abandoned query {id} still runs");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let id = format!("chwire-http-kill-{}", std::process::id());
    let s = c.query(slow).query_id(id.clone()).stream().await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(scalar(&mut other, &format!("SELECT count() FROM system.processes WHERE query_id = '{id}'")).await, 1);
    s.cancel().await.unwrap();
    gone(id).await;
    // A query deadline: the error comes at once, and the next query kills it first.
    let id = format!("chwire-http-deadline-{}", std::process::id());
    let url = format!("{}?query_timeout=300ms", http_url());
    let mut d = http_client(&url).await;
    let e = d.query(slow).query_id(id.clone()).fetch_blocks().await.unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Timeout(chwire::Timeout::Query)), "{e}");
    assert_eq!(scalar(&mut d, "SELECT toUInt64(3)").await, 3);
    gone(id).await;
    // A dropped stream, then `settle`: killed without another query.
    let id = format!("chwire-http-settle-{}", std::process::id());
    let s = c.query(slow).query_id(id.clone()).stream().await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(scalar(&mut other, &format!("SELECT count() FROM system.processes WHERE query_id = '{id}'")).await, 1);
    drop(s);
    c.settle().await.unwrap();
    gone(id).await;
    c.settle().await.unwrap(); // nothing left: nothing done
}

#[tokio::test]
async fn idle_connections_past_the_keep_alive_are_replaced() {
    let mut c = http_client(&http_url()).await;
    assert_eq!(scalar(&mut c, "SELECT toUInt64(1)").await, 1);
    // 18.16 closes idle connections after `Keep-Alive: timeout=3`.
    tokio::time::sleep(Duration::from_millis(3500)).await;
    assert_eq!(scalar(&mut c, "SELECT toUInt64(2)").await, 2);
    c.ping().await.unwrap();
}

/// Requests back to back on one kept-alive connection, on a busy two-thread runtime: the next
/// request waits until hyper's connection task has finished the previous exchange (sent
/// earlier, it failed with "connection was not ready" under CI's load).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_to_back_requests_wait_for_the_connection() {
    let busy: Vec<_> = (0..4)
        .map(|_| {
            tokio::spawn(async {
                let end = Instant::now() + Duration::from_secs(2);
                while Instant::now() < end {
                    std::hint::black_box((0..10_000u64).sum::<u64>());
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    let mut c = http_client(&http_url()).await;
    c.execute("DROP TABLE IF EXISTS chwire_http_b2b").await.unwrap();
    c.execute("CREATE TABLE chwire_http_b2b (i UInt64) ENGINE = Memory").await.unwrap();
    for i in 0..300u64 {
        c.ping().await.unwrap();
        assert_eq!(scalar(&mut c, &format!("SELECT toUInt64({i})")).await, i);
        let mut ins = c.insert_blocks("chwire_http_b2b", Some(&["i"])).await.unwrap();
        ins.send(&Block::new().with("i", Column::from(vec![i])).unwrap()).await.unwrap();
        ins.end().await.unwrap();
    }
    assert_eq!(scalar(&mut c, "SELECT count() FROM chwire_http_b2b").await, 300);
    for b in busy {
        b.await.unwrap();
    }
}

#[tokio::test]
async fn sessions_credentials_settings_and_parameters() {
    let url = http_url();
    let opts = Options::from_url(&url).unwrap();
    let mut session = opts.clone();
    session.session_id = Some(format!("chwire-http-{}", std::process::id()));
    let mut c = Client::connect(session).await.unwrap();
    c.execute("CREATE TEMPORARY TABLE chwire_tmp (n UInt64)").await.unwrap();
    c.execute("INSERT INTO chwire_tmp VALUES (5)").await.unwrap();
    assert_eq!(scalar(&mut c, "SELECT sum(n) FROM chwire_tmp").await, 5);

    let mut user = opts.clone();
    user.user = "chwire_test".into();
    user.password = "s3cret".into();
    let mut c = Client::connect(user.clone()).await.unwrap();
    let b = c.query("SELECT any(user) FROM system.processes WHERE query LIKE '%chwire_whoami%'").fetch_blocks().await.unwrap();
    assert_eq!(b[0].column_at(0).unwrap().value(0), chwire::proto::Value::String(b"chwire_test"));
    // Over HTTP, credentials are checked by the first query (the server's version is known
    // from the first connection of this process).
    user.password = "wrong".into();
    let e = match Client::connect(user).await {
        Err(e) => e,
        Ok(mut c) => c.query("SELECT 1").fetch_blocks().await.unwrap_err(),
    };
    assert!(e.is_authentication(), "{e}");

    let mut c = http_client(&url).await;
    let v = c
        .query("SELECT toUInt64(value) FROM system.settings WHERE name = 'max_threads'")
        .setting("max_threads", "3")
        .fetch_blocks()
        .await
        .unwrap();
    assert_eq!(v[0].column_at(0).unwrap().as_u64().unwrap()[0], 3);
    // 18.16 has no server-side parameters: typed literals, hostile text stays data.
    let hostile = "'); DROP TABLE x; --";
    let b = c.query("SELECT {s:String} AS s, {n:UInt64} AS n").param("s", hostile).param("n", 42u64).fetch_blocks().await.unwrap();
    assert_eq!(b[0].column("s").unwrap().value(0), chwire::proto::Value::String(hostile.as_bytes()));
    assert_eq!(b[0].column("n").unwrap().as_u64().unwrap()[0], 42);
}

/// HTTPS on the 18.16 server (clickhouse-local, the 26.9 rig, has no HTTPS listener).
#[tokio::test]
async fn https_with_the_rigs_certificates() {
    let http_18 = std::env::var("CHWIRE_TEST_HTTP_URL_18").unwrap_or_else(|_| "http://default@127.0.0.1:18200/default".to_string());
    let port = Options::from_url(&http_18).unwrap().port + 40;
    let ca = concat!(env!("CARGO_MANIFEST_DIR"), "/../../build/clickhouse/tls/ca.pem");
    let opts = Options::from_url(&format!("https://default@localhost:{port}/default")).unwrap().tls(TlsOptions::new().ca_file(ca));
    let mut c = Client::connect(opts.clone()).await.unwrap();
    assert!(c.is_tls());
    assert_eq!(scalar(&mut c, "SELECT count() FROM numbers(1000)").await, 1000);
    let other = concat!(env!("CARGO_MANIFEST_DIR"), "/../../build/clickhouse/tls/other-ca.pem");
    let e = Client::connect(opts.tls(TlsOptions::new().ca_file(other))).await.unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Tls(_)), "{e}");
}

/// Through nginx (scripts/nginx.sh; `make http-test` sets CHWIRE_TEST_PROXY_URL): queries,
/// inserts, an error after the first blocks, and a response the proxy cuts off.
#[tokio::test]
async fn through_a_reverse_proxy() {
    let Ok(proxy) = std::env::var("CHWIRE_TEST_PROXY_URL") else {
        eprintln!("CHWIRE_TEST_PROXY_URL is not set: the proxy test runs in `make http-test`");
        return;
    };
    let mut c = http_client(&proxy).await;
    assert_eq!(scalar(&mut c, "SELECT count() FROM numbers(123456)").await, 123456);
    c.execute("DROP TABLE IF EXISTS chwire_http_proxy").await.unwrap();
    c.execute("CREATE TABLE chwire_http_proxy (n UInt64) ENGINE = Memory").await.unwrap();
    let mut ins = c.insert_blocks("chwire_http_proxy", None).await.unwrap();
    for part in 0..10u64 {
        ins.send(&Block::new().with("n", Column::from((part * 100_000..(part + 1) * 100_000).collect::<Vec<u64>>())).unwrap())
            .await
            .unwrap();
    }
    ins.end().await.unwrap();
    assert_eq!(scalar(&mut c, "SELECT sum(n) FROM chwire_http_proxy").await, 499_999_500_000);
    c.execute("DROP TABLE chwire_http_proxy").await.unwrap();
    let (rows, e) = fails_mid_body(&mut c).await;
    assert_eq!(e.code(), Some(395), "{e}");
    assert!(rows > 0, "the error came after {rows} rows");
    assert_eq!(scalar(&mut c, "SELECT toUInt64(9)").await, 9);

    // The second listener gives up on the server after 1 s without bytes: a response cut in
    // the middle must be an error, never a shorter result.
    let cutting = std::env::var("CHWIRE_TEST_PROXY_CUT_URL").expect("CHWIRE_TEST_PROXY_CUT_URL with CHWIRE_TEST_PROXY_URL");
    let mut c = http_client(&cutting).await;
    // 2.7 MB of strings at once, then a branch that sleeps 3 s: nginx passes the first 2 MiB
    // and gives up (curl: "transfer closed with outstanding read data remaining").
    let mut s = c
        .query("SELECT toString(number) AS s FROM numbers(400000) UNION ALL SELECT toString(sleep(3)) FROM numbers(1)")
        .stream()
        .await
        .unwrap();
    let mut rows = 0;
    let e = loop {
        match s.next_block().await {
            Ok(Some(b)) => rows += b.rows(),
            Ok(None) => panic!("a cut response was taken for a complete result of {rows} rows"),
            Err(e) => break e,
        }
    };
    assert!(rows > 0, "the cut came after the first blocks");
    assert!(e.breaks_connection(), "{e}");
    drop(s);
    assert_eq!(scalar(&mut c, "SELECT toUInt64(10)").await, 10);
}

/// Blocks are handed out as they arrive: a complete block is not held back while the server
/// still computes (here: sleeps 3 s before its last block). The server sends its output in
/// 1 MiB flushes, so the first 2 MiB of strings (four blocks of 65536) are on the wire at once and must all be handed out then.
#[tokio::test]
async fn blocks_arrive_while_the_server_still_works() {
    let mut c = http_client(&http_url()).await;
    let mut s = c
        .query("SELECT toString(number) AS s FROM numbers(400000) UNION ALL SELECT toString(sleep(3)) FROM numbers(1)")
        .setting("max_block_size", "65536")
        .stream()
        .await
        .unwrap();
    let mut arrivals = Vec::new();
    let mut rows = 0;
    while let Some(b) = s.next_block().await.unwrap() {
        rows += b.rows();
        arrivals.push((rows, Instant::now()));
    }
    let end = Instant::now();
    assert_eq!(rows, 400_001);
    let early = arrivals.iter().filter(|(_, at)| end - *at > Duration::from_secs(1)).map(|(r, _)| *r).max().unwrap_or(0);
    assert!(early >= 4 * 65536, "only {early} rows were handed out before the server's pause");
}

/// A proxy's 503 (no ClickHouse exception in the body) is a server out of reach, not a server
/// error of code 0: a read goes to the next server. Here the "proxy" is a listener that answers
/// every request with 503.
#[tokio::test]
async fn a_proxys_503_fails_over_to_the_next_server() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 65536];
                let _ = sock.read(&mut buf).await;
                let body = "<html>Service Unavailable</html>";
                let answer =
                    format!("HTTP/1.1 503 Service Unavailable\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
                let _ = sock.write_all(answer.as_bytes()).await;
            });
        }
    });
    let real = Options::from_url(&http_url()).unwrap();
    let alone = format!("http://default@127.0.0.1:{port}/default");
    let e = match Client::connect_url(&alone).await {
        Ok(mut c) => c.query("SELECT 1").fetch_blocks().await.unwrap_err(),
        Err(e) => e,
    };
    assert!(e.server().is_none() && e.is_failover(), "{e:?}");
    assert!(e.to_string().contains("503") && e.to_string().contains("Service Unavailable"), "{e}");
    let both = format!("http://default@127.0.0.1:{port},{}:{}/default", real.host, real.port);
    let mut c = http_client(&both).await;
    assert_eq!(scalar(&mut c, "SELECT toUInt64(7)").await, 7);
}

/// The client port of the connection that runs this query (the server's view of it).
async fn client_port(c: &mut Client) -> u16 {
    let (port,): (u16,) = c.query("SELECT port FROM system.processes WHERE query_id = queryID()").fetch_one().await.unwrap();
    port
}

/// `fetch_one`/`fetch_optional` of a one-row result (what they are for) end with the result:
/// no `KILL QUERY`, no new connection (the server sees the same client port). A longer result
/// is still cut after its first row, on a new connection.
#[tokio::test]
async fn fetch_one_keeps_the_connection() {
    let mut c = http_client(&http_url()).await;
    let port = client_port(&mut c).await;
    for i in 0..5u64 {
        let (n,): (u64,) = c.query("SELECT {i:UInt64} + 1").param("i", i).fetch_one().await.unwrap();
        assert_eq!(n, i + 1);
        let none: Option<(u64,)> = c.query("SELECT number FROM numbers(0)").fetch_optional().await.unwrap();
        assert!(none.is_none());
    }
    assert_eq!(client_port(&mut c).await, port, "fetch_one of one row reconnected");
    // Many rows: the first, then the rest is stopped (killed, on a new connection).
    let id = format!("chwire-http-fetch-one-{}", std::process::id());
    let (first,): (u64,) =
        c.query("SELECT number FROM numbers(100000000) SETTINGS max_block_size = 1000").query_id(id.clone()).fetch_one().await.unwrap();
    assert_eq!(first, 0);
    assert_eq!(scalar(&mut c, &format!("SELECT count() FROM system.processes WHERE query_id = '{id}'")).await, 0);
    assert_ne!(client_port(&mut c).await, port, "the long result was cut on the same connection");
}
