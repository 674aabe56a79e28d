//! Timeouts against the rig's server: the whole-query deadline (also while rows keep
//! arriving), the receive timeout, and the handshake timeout (a local listener that accepts
//! and never answers). Timeouts against a frozen server are in tests/failover.rs.

mod common;

use chwire::{Client, ErrorKind};
use common::*;
use std::time::{Duration, Instant};

async fn check(c: &mut Client) {
    let (s,): (u64,) = c.query("SELECT sum(number) FROM numbers(1000)").fetch_one().await.expect("query after a timeout");
    assert_eq!(s, 499500);
}

#[tokio::test]
async fn query_deadline_cancels_and_the_connection_is_drained() {
    let mut c = client_with(options().query_timeout(Some(Duration::from_millis(300)))).await;
    // A query that sends nothing for a long time.
    let t = Instant::now();
    let err = c.query("SELECT count() FROM system.numbers").fetch_blocks().await.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Timeout(chwire::Timeout::Query)), "{err:?}");
    assert!(!err.is_failover(), "a query's own deadline is not a reason to try another server");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    check(&mut c).await;
    assert!(t.elapsed() < Duration::from_secs(5), "drained quickly: {:?}", t.elapsed());
    // A query whose rows keep arriving: the deadline holds all the same.
    let t = Instant::now();
    let mut s = c.query("SELECT number FROM system.numbers").stream().await.unwrap();
    let err = loop {
        match s.next_block().await {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("an endless query ended"),
            Err(e) => break e,
        }
    };
    drop(s);
    assert!(matches!(err.kind(), ErrorKind::Timeout(chwire::Timeout::Query)), "{err:?}");
    assert!(t.elapsed() < Duration::from_secs(2));
    check(&mut c).await;
    // From the URL, and turned off with 0.
    let o = chwire::Options::from_url(&format!("{}?query_timeout=250ms&receive_timeout=0&send_timeout=7s", url())).unwrap();
    assert_eq!(
        (o.query_timeout, o.receive_timeout, o.send_timeout),
        (Some(Duration::from_millis(250)), None, Some(Duration::from_secs(7)))
    );
}

/// A current server sends Progress (and ProfileEvents) every `interactive_delay` (0.1 s) while
/// a query runs, and a receive timeout only fires on a silent socket: the timeout tests quiet
/// the server with a long `interactive_delay` (a setting, sent with each query).
const QUIET: &str = "interactive_delay=100000000";

#[tokio::test]
async fn receive_timeout_discards_the_connection() {
    let url = format!("{}?receive_timeout=300ms&{QUIET}", url());
    let mut c = Client::connect_url(&url).await.unwrap();
    let t = Instant::now();
    let err = c.query("SELECT sleep(1)").fetch_blocks().await.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Timeout(chwire::Timeout::Receive)), "{err:?}");
    // One server: the query is not sent to it again (it would run twice, and the wait triple).
    assert!(t.elapsed() < Duration::from_millis(900), "{:?}", t.elapsed());
    assert!(!c.is_connected());
    check(&mut c).await;
}

/// A statement that writes is never sent again once it reached the server: a CREATE ... AS
/// SELECT whose answer timed out ran once (and its timeout is the error, not "table exists").
#[tokio::test]
async fn a_timed_out_write_is_not_sent_again() {
    let mut admin = client().await;
    admin.execute("DROP TABLE IF EXISTS chwire_timeout_ctas").await.unwrap();
    let url = format!("{}?receive_timeout=300ms&retries=3&{QUIET}", url());
    let mut c = Client::connect_url(&url).await.unwrap();
    let err = c
        .query("CREATE TABLE chwire_timeout_ctas ENGINE = Log AS SELECT number, sleep(1) AS s FROM numbers(1)")
        .execute()
        .await
        .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Timeout(chwire::Timeout::Receive)), "{err:?}");
    // The one run finishes on the server (after 1 s): the table holds its row, once.
    let mut rows = 0;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        match admin.query("SELECT count() FROM chwire_timeout_ctas").fetch_one::<(u64,)>().await {
            Ok((n,)) if n > 0 => {
                rows = n;
                break;
            }
            _ => continue,
        }
    }
    assert_eq!(rows, 1);
    let (runs,): (u64,) =
        admin.query("SELECT count() FROM system.processes WHERE query LIKE 'CREATE TABLE chwire_timeout_ctas%'").fetch_one().await.unwrap();
    assert_eq!(runs, 0, "no second run is going on");
    admin.execute("DROP TABLE chwire_timeout_ctas").await.unwrap();
}

#[tokio::test]
async fn handshake_timeout() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let silent = tokio::spawn(async move {
        let (_sock, _) = listener.accept().await.unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    let t = Instant::now();
    let err = Client::connect(options().port(port).handshake_timeout(Duration::from_millis(300))).await.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Timeout(chwire::Timeout::Handshake)), "{err:?}");
    assert!(t.elapsed() < Duration::from_secs(2));
    silent.abort();
}

/// The opt-in insert retry: a block sent twice with the same token is stored once (a MergeTree
/// with a deduplication window), one with another token again.
#[tokio::test]
async fn deduplicated_insert_is_stored_once() {
    let mut c = client().await;
    c.execute("DROP TABLE IF EXISTS chwire_dedup_mt").await.unwrap();
    c.execute("CREATE TABLE chwire_dedup_mt (x UInt64) ENGINE = MergeTree ORDER BY x SETTINGS non_replicated_deduplication_window = 100")
        .await
        .unwrap();
    let block = chwire::Block::new().with("x", chwire::Column::from(vec![1u64, 2])).unwrap();
    for token in ["t1", "t1", "t2"] {
        c.insert_deduplicated("chwire_dedup_mt", &block, token).await.unwrap();
    }
    let (n, s): (u64, u64) = c.query("SELECT count(), sum(x) FROM chwire_dedup_mt").fetch_one().await.unwrap();
    assert_eq!((n, s), (4, 6), "t1 once, t2 once");
    c.execute("DROP TABLE chwire_dedup_mt").await.unwrap();
}

/// The opt-in insert retry needs insert_deduplication_token, which 18.16 lacks: refused
/// before anything is sent.
#[tokio::test]
async fn deduplicated_insert_is_refused_on_old_servers() {
    let mut c = client_18().await;
    c.execute("DROP TABLE IF EXISTS chwire_dedup").await.unwrap();
    c.execute("CREATE TABLE chwire_dedup (x UInt64) ENGINE = Memory").await.unwrap();
    let block = chwire::Block::new().with("x", chwire::Column::from(vec![1u64, 2])).unwrap();
    let err = c.insert_deduplicated("chwire_dedup", &block, "t1").await.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidInput(m) if m.contains("insert_deduplication_token")), "{err}");
    let (n,): (u64,) = c.query("SELECT count() FROM chwire_dedup").fetch_one().await.unwrap();
    assert_eq!(n, 0);
}
