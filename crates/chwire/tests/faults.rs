//! Faults of the network and of servers, with real processes: toxiproxy (scripts/toxiproxy.sh)
//! between chwire and the cluster rig's servers (scripts/cluster.sh), and SIGKILL of a server.
//!
//! Every toxic ends in a typed error — a closed connection, an IO error or a timeout, never
//! wrong data or a hang — or, for latency and slicer, in the correct result; afterwards the
//! same client answers the next query correctly.
//!
//! These tests need the rig and are `#[ignore]`d in a plain `cargo test`; `make test` runs
//! them with `scripts/with-cluster.sh --toxiproxy cargo test --release -p chwire --test faults
//! -- --ignored`.

mod faults {
    pub mod cluster;
    pub mod toxiproxy;
}

use chwire::{Client, Compression, Error, ErrorKind, LoadBalancing, Options, Pool, PoolOptions};
use faults::cluster;
use faults::toxiproxy::{Proxy, Stream, Toxiproxy};
use std::time::{Duration, Instant};

/// Each test its own proxy port: base (`CHWIRE_TOXIPROXY_PROXY_BASE`, default 19620) + slot.
fn proxy_port(slot: u16) -> u16 {
    let base: u16 = std::env::var("CHWIRE_TOXIPROXY_PROXY_BASE").ok().and_then(|v| v.parse().ok()).unwrap_or(19620);
    base + slot
}

/// A proxy in front of node 1 (the node no test kills).
async fn proxy(name: &str, slot: u16) -> Proxy {
    Toxiproxy::from_env().proxy(name, &format!("127.0.0.1:{}", proxy_port(slot)), &cluster::node(1)).await
}

fn options_via(p: &Proxy) -> Options {
    Options::new()
        .host("127.0.0.1")
        .port(p.port())
        .connect_timeout(Duration::from_secs(3))
        .receive_timeout(Duration::from_secs(3))
        .send_timeout(Duration::from_secs(3))
}

/// `SELECT number, toString(number) FROM numbers(n)`, checked row by row.
async fn check_numbers(c: &mut Client, n: u64) -> chwire::Result<()> {
    let rows: Vec<(u64, String)> = c.query(format!("SELECT number, toString(number) FROM numbers({n})")).fetch_all().await?;
    assert_eq!(rows.len() as u64, n);
    for (i, (num, s)) in rows.iter().enumerate() {
        assert_eq!((*num, s.as_str()), (i as u64, i.to_string().as_str()));
    }
    Ok(())
}

/// A network failure that closed the connection: never a decode or protocol error (which
/// would mean chwire read bytes that were not what the server sent).
fn assert_network_error(e: &Error, what: &str) {
    assert!(
        matches!(e.kind(), ErrorKind::Io(_) | ErrorKind::Closed | ErrorKind::Timeout(_)),
        "{what}: expected a network error, got {e:?}"
    );
    assert!(e.breaks_connection(), "{what}: {e:?}");
}

/// Held by the tests that kill node 3, one at a time.
static NODE3: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The client is healthy: its next queries (on a new connection if needed) are correct.
async fn assert_recovers(c: &mut Client) {
    check_numbers(c, 10_000).await.expect("the query after the fault");
    check_numbers(c, 3).await.expect("a second query after the fault");
}

#[tokio::test]
#[ignore = "needs the cluster rig and toxiproxy (scripts/with-cluster.sh --toxiproxy)"]
async fn latency_gives_the_correct_result() {
    let p = proxy("latency", 0).await;
    let mut c = Client::connect(options_via(&p)).await.unwrap();
    let toxic = p.add_toxic("latency", Stream::Downstream, r#""latency":300,"jitter":50"#).await;
    let t = Instant::now();
    check_numbers(&mut c, 100_000).await.unwrap();
    assert!(t.elapsed() >= Duration::from_millis(250), "{:?}", t.elapsed());
    // Upstream latency too, with compression.
    let up = p.add_toxic("latency", Stream::Upstream, r#""latency":200"#).await;
    let mut lz4 = Client::connect(options_via(&p).compression(Compression::Lz4)).await.unwrap();
    check_numbers(&mut lz4, 100_000).await.unwrap();
    p.remove_toxic(&toxic).await;
    p.remove_toxic(&up).await;
    assert_recovers(&mut c).await;
}

#[tokio::test]
#[ignore = "needs the cluster rig and toxiproxy (scripts/with-cluster.sh --toxiproxy)"]
async fn slicer_single_bytes_gives_the_correct_result() {
    let p = proxy("slicer", 1).await;
    // Every packet in both directions cut into single bytes, from the handshake on.
    let down = p.add_toxic("slicer", Stream::Downstream, r#""average_size":1,"size_variation":0,"delay":0"#).await;
    let up = p.add_toxic("slicer", Stream::Upstream, r#""average_size":1,"size_variation":0,"delay":0"#).await;
    for compression in [Compression::None, Compression::Lz4, Compression::Zstd(1)] {
        // One write per byte keeps toxiproxy busy: generous timeouts on a loaded machine.
        let slow = Some(Duration::from_secs(20));
        let opts = options_via(&p).compression(compression).receive_timeout(slow).send_timeout(slow);
        let mut c = Client::connect(opts.connect_timeout(Duration::from_secs(20))).await.unwrap();
        check_numbers(&mut c, 20_000).await.unwrap();
        // An insert's blocks go up sliced too.
        let table = format!("faults_slicer_{}_{}", std::process::id(), compression_name(compression));
        c.execute(format!("DROP TABLE IF EXISTS {table}")).await.unwrap();
        c.execute(format!("CREATE TABLE {table} (id UInt64, s String) ENGINE = Memory")).await.unwrap();
        let mut ins = c.insert_rows::<(u64, String)>(&table).await.unwrap();
        for i in 0..5_000u64 {
            ins.write(&(i, format!("row-{i}"))).await.unwrap();
        }
        ins.end().await.unwrap();
        let (n, sum, len): (u64, u64, u64) =
            c.query(format!("SELECT count(), sum(id), sum(length(s)) FROM {table}")).fetch_one().await.unwrap();
        let expect_len: u64 = (0..5_000u64).map(|i| format!("row-{i}").len() as u64).sum();
        assert_eq!((n, sum, len), (5_000, 4_999 * 5_000 / 2, expect_len));
        c.execute(format!("DROP TABLE {table}")).await.unwrap();
    }
    p.remove_toxic(&down).await;
    p.remove_toxic(&up).await;
}

fn compression_name(c: Compression) -> &'static str {
    match c {
        Compression::None => "none",
        Compression::Lz4 => "lz4",
        _ => "zstd",
    }
}

#[tokio::test]
#[ignore = "needs the cluster rig and toxiproxy (scripts/with-cluster.sh --toxiproxy)"]
async fn reset_peer_is_a_typed_error_then_the_client_recovers() {
    let p = proxy("reset_peer", 2).await;
    let mut c = Client::connect(options_via(&p)).await.unwrap();
    check_numbers(&mut c, 10).await.unwrap();
    // The connection is reset (RST) as soon as the next bytes pass.
    let toxic = p.add_toxic("reset_peer", Stream::Upstream, r#""timeout":0"#).await;
    let e = check_numbers(&mut c, 100_000).await.unwrap_err();
    assert_network_error(&e, "reset_peer");
    // While the toxic is on, reconnecting fails the same way.
    let e = Client::connect(options_via(&p)).await.unwrap_err();
    assert_network_error(&e, "connect under reset_peer");
    p.remove_toxic(&toxic).await;
    assert_recovers(&mut c).await;

    // Reset in the middle of a streamed result. Toxiproxy changes a link's toxics only once
    // the link can move its bytes on, so the result keeps being read (slowly, until the
    // toxic is on) while the toxic is added: a client that stopped reading would stall the
    // proxy's API call, as it did in a CI run under load.
    let mut rows = c.query("SELECT number, toString(number) FROM numbers(50000000)").stream().await.unwrap();
    rows.next_block().await.unwrap().expect("a first block");
    let added = std::sync::atomic::AtomicBool::new(false);
    let add = async {
        let toxic = p.add_toxic("reset_peer", Stream::Downstream, r#""timeout":0"#).await;
        added.store(true, std::sync::atomic::Ordering::SeqCst);
        toxic
    };
    let read = async {
        loop {
            match rows.next_block().await {
                Ok(Some(_)) if !added.load(std::sync::atomic::Ordering::SeqCst) => tokio::time::sleep(Duration::from_millis(20)).await,
                Ok(Some(_)) => continue,
                Ok(None) => panic!("the result ended although the connection was reset"),
                Err(e) => break e,
            }
        }
    };
    let (toxic, e) = tokio::join!(add, read);
    assert_network_error(&e, "reset_peer mid-stream");
    drop(rows);
    p.remove_toxic(&toxic).await;
    assert_recovers(&mut c).await;
}

#[tokio::test]
#[ignore = "needs the cluster rig and toxiproxy (scripts/with-cluster.sh --toxiproxy)"]
async fn limit_data_cuts_a_result_mid_packet() {
    let p = proxy("limit_data", 3).await;
    for compression in [Compression::None, Compression::Lz4] {
        let mut c = Client::connect(options_via(&p).compression(compression)).await.unwrap();
        // After 100,000 more bytes from the server the proxy closes the connection: in the
        // middle of a block of the 1,000,000-row result.
        let toxic = p.add_toxic("limit_data", Stream::Downstream, r#""bytes":100000"#).await;
        let e = check_numbers(&mut c, 1_000_000).await.unwrap_err();
        assert_network_error(&e, "limit_data");
        p.remove_toxic(&toxic).await;
        assert_recovers(&mut c).await;
    }
    // Cut an insert on its way up.
    let mut c = Client::connect(options_via(&p)).await.unwrap();
    let table = format!("faults_limit_{}", std::process::id());
    c.execute(format!("CREATE TABLE IF NOT EXISTS {table} (id UInt64, s String) ENGINE = Memory")).await.unwrap();
    let toxic = p.add_toxic("limit_data", Stream::Upstream, r#""bytes":50000"#).await;
    let res = async {
        let mut ins = c.insert_rows::<(u64, String)>(&table).await?;
        for i in 0..200_000u64 {
            ins.write(&(i, format!("row-{i}"))).await?;
        }
        ins.end().await
    }
    .await;
    assert_network_error(&res.unwrap_err(), "limit_data on an insert");
    p.remove_toxic(&toxic).await;
    // The cut insert left nothing: the server aborts an insert whose connection closes.
    let (n,): (u64,) = c.query(format!("SELECT count() FROM {table}")).fetch_one().await.unwrap();
    assert_eq!(n, 0);
    c.execute(format!("DROP TABLE {table}")).await.unwrap();
    assert_recovers(&mut c).await;
}

#[tokio::test]
#[ignore = "needs the cluster rig and toxiproxy (scripts/with-cluster.sh --toxiproxy)"]
async fn timeout_toxic_ends_in_a_timeout_or_a_closed_connection() {
    let p = proxy("timeout", 4).await;
    let mut c = Client::connect(options_via(&p).receive_timeout(Duration::from_secs(1))).await.unwrap();
    // timeout = 0: the proxy holds every byte and never closes; the read timeout fires.
    let toxic = p.add_toxic("timeout", Stream::Downstream, r#""timeout":0"#).await;
    let t = Instant::now();
    let e = check_numbers(&mut c, 1000).await.unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Timeout(_)), "{e:?}");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    // A new connection's handshake times out the same way.
    let t = Instant::now();
    let e = Client::connect(options_via(&p).connect_timeout(Duration::from_secs(1))).await.unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Timeout(_)), "{e:?}");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    p.remove_toxic(&toxic).await;
    assert_recovers(&mut c).await;

    // timeout = 300: the proxy closes the connection after 300 ms without data.
    let toxic = p.add_toxic("timeout", Stream::Upstream, r#""timeout":300"#).await;
    let e = check_numbers(&mut c, 1000).await.unwrap_err();
    assert_network_error(&e, "timeout 300 ms");
    p.remove_toxic(&toxic).await;
    assert_recovers(&mut c).await;
}

#[tokio::test]
#[ignore = "needs the cluster rig and toxiproxy (scripts/with-cluster.sh --toxiproxy)"]
async fn bandwidth_slows_the_result_down_but_keeps_it_correct() {
    let p = proxy("bandwidth", 5).await;
    let mut c = Client::connect(options_via(&p)).await.unwrap();
    // 100 KB/s; 100,000 rows are about 1.1 MB on the wire: about 10 s at this rate, so 20,000.
    let toxic = p.add_toxic("bandwidth", Stream::Downstream, r#""rate":100"#).await;
    let t = Instant::now();
    check_numbers(&mut c, 20_000).await.unwrap();
    assert!(t.elapsed() >= Duration::from_millis(1500), "{:?}", t.elapsed());
    // Nothing at all gets through at rate 0: the read timeout ends the query.
    p.remove_toxic(&toxic).await;
    let toxic = p.add_toxic("bandwidth", Stream::Downstream, r#""rate":0"#).await;
    let e = check_numbers(&mut c, 1000).await.unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Timeout(_)), "{e:?}");
    p.remove_toxic(&toxic).await;
    assert_recovers(&mut c).await;
}

#[tokio::test]
#[ignore = "needs the cluster rig and toxiproxy (scripts/with-cluster.sh --toxiproxy)"]
async fn disabled_proxy_is_connection_refused_then_recovers() {
    let p = proxy("disabled", 6).await;
    let mut c = Client::connect(options_via(&p)).await.unwrap();
    check_numbers(&mut c, 10).await.unwrap();
    p.set_enabled(false).await;
    let e = check_numbers(&mut c, 10).await.unwrap_err();
    assert_network_error(&e, "disabled proxy");
    let e = Client::connect(options_via(&p)).await.unwrap_err();
    assert_network_error(&e, "connect to a disabled proxy");
    p.set_enabled(true).await;
    assert_recovers(&mut c).await;
}

/// Node 3 is SIGKILLed during a query: a typed error, then refused connections while it is
/// down, and a correct answer again once it is back.
#[tokio::test]
#[ignore = "needs the cluster rig and toxiproxy (scripts/with-cluster.sh --toxiproxy)"]
async fn killed_server_mid_query_then_restarted() {
    let _node3 = NODE3.lock().await;
    let opts = Options::from_url(&cluster::node_url(3)).unwrap().connect_timeout(Duration::from_secs(2));
    let mut c = Client::connect(opts.clone()).await.unwrap();
    check_numbers(&mut c, 10).await.unwrap();
    let mut rows = c.query("SELECT number, toString(number) FROM numbers(1000000000)").stream().await.unwrap();
    rows.next_block().await.unwrap().expect("a first block");
    cluster::kill(3).await;
    let e = loop {
        match rows.next_block().await {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the result ended although the server was killed"),
            Err(e) => break e,
        }
    };
    assert_network_error(&e, "server killed mid-query");
    drop(rows);
    let e = check_numbers(&mut c, 10).await.unwrap_err();
    assert_network_error(&e, "query while the server is down");
    cluster::start(3).await;
    assert_recovers(&mut c).await;
}

// --- the pool and several servers ---------------------------------------------------------

/// Runs `check_numbers(n)` on `k` pooled connections at once; each result is correct or
/// a network error.
async fn pool_round(pool: &Pool, k: usize, n: u64, toxic: &str) -> Vec<chwire::Result<()>> {
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..k {
        let pool = pool.clone();
        set.spawn(async move {
            let mut c = pool.get().await?;
            check_numbers(&mut c, n).await
        });
    }
    let mut out = Vec::new();
    while let Some(r) = set.join_next().await {
        let r = r.expect("task panicked");
        if let Err(e) = &r {
            assert_network_error(e, toxic);
        }
        out.push(r);
    }
    out
}

/// The pool is back to normal: nothing in use or waiting, within its size, and all its
/// connections answer correctly.
async fn assert_pool_healthy(pool: &Pool, max: usize) {
    // A connection dropped mid-query is drained in the background (10 s at most) before it
    // goes back, holding its slot meanwhile; a broken one is discarded.
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut st = pool.status();
    while (st.in_use, st.waiting) != (0, 0) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        st = pool.status();
    }
    assert_eq!((st.in_use, st.waiting), (0, 0), "{st:?}");
    assert!(st.size <= max, "{st:?}");
    for r in pool_round(pool, max, 10_000, "after the toxic").await {
        r.expect("a query on a healthy pool");
    }
    let st = pool.status();
    assert_eq!((st.in_use, st.waiting), (0, 0), "{st:?}");
    assert!(st.size <= max && st.idle == st.size, "{st:?}");
}

#[tokio::test]
#[ignore = "needs the cluster rig and toxiproxy (scripts/with-cluster.sh --toxiproxy)"]
async fn pool_is_healthy_after_every_toxic() {
    let p = proxy("pool", 7).await;
    const MAX: usize = 4;
    let opts = options_via(&p).receive_timeout(Duration::from_secs(1)).retries(0);
    let pool = Pool::new(opts, PoolOptions::new().max_size(MAX).acquire_timeout(Some(Duration::from_secs(10)))).unwrap();
    assert_pool_healthy(&pool, MAX).await;
    // (kind, stream, attributes, rows to read, whether every query must still succeed)
    let toxics: [(&str, Stream, &str, u64, bool); 8] = [
        ("latency", Stream::Downstream, r#""latency":200"#, 50_000, true),
        ("slicer", Stream::Downstream, r#""average_size":1,"size_variation":0,"delay":0"#, 5_000, true),
        ("reset_peer", Stream::Upstream, r#""timeout":0"#, 50_000, false),
        ("limit_data", Stream::Downstream, r#""bytes":30000"#, 50_000, false),
        ("limit_data", Stream::Upstream, r#""bytes":100"#, 50_000, false),
        ("timeout", Stream::Downstream, r#""timeout":0"#, 50_000, false),
        ("timeout", Stream::Upstream, r#""timeout":200"#, 50_000, false),
        // Slow but moving. (Rate 0 is in the plain client's test: with the pool, whose broken
        // connections close at once, toxiproxy 2.12 cannot remove a rate-0 toxic — its
        // DELETE answers 503 after 10 s. The stalled network is the timeout toxic above.)
        ("bandwidth", Stream::Downstream, r#""rate":200"#, 20_000, true),
    ];
    for (kind, stream, attrs, rows, must_succeed) in toxics {
        let what = format!("{kind} {stream:?} {attrs}");
        let toxic = p.add_toxic(kind, stream, attrs).await;
        let results = pool_round(&pool, MAX, rows, &what).await;
        let failed = results.iter().filter(|r| r.is_err()).count();
        if must_succeed {
            assert_eq!(failed, 0, "{what}: {results:?}");
        } else {
            assert!(failed > 0, "{what}: every query succeeded through the toxic");
        }
        p.remove_toxic(&toxic).await;
        assert_pool_healthy(&pool, MAX).await;
    }
}

#[tokio::test]
#[ignore = "needs the cluster rig and toxiproxy (scripts/with-cluster.sh --toxiproxy)"]
async fn query_deadline_under_a_slow_network_then_the_pool_recovers() {
    let p = proxy("deadline", 8).await;
    let opts = options_via(&p).receive_timeout(Duration::from_secs(30)).query_timeout(Some(Duration::from_secs(1)));
    let pool = Pool::new(opts, PoolOptions::new().max_size(2)).unwrap();
    assert_pool_healthy(&pool, 2).await;
    // 10 KB/s: bytes keep coming (no read timeout), but the whole query takes far too long.
    let toxic = p.add_toxic("bandwidth", Stream::Downstream, r#""rate":10"#).await;
    let t = Instant::now();
    let e = {
        let mut c = pool.get().await.unwrap();
        check_numbers(&mut c, 200_000).await.unwrap_err()
    };
    assert!(matches!(e.kind(), ErrorKind::Timeout(chwire::Timeout::Query)), "{e:?}");
    assert!(!e.is_failover(), "a query's own deadline is not the server's fault");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    p.remove_toxic(&toxic).await;
    assert_pool_healthy(&pool, 2).await;
}

/// Several servers, node 3 first: node 3 is SIGKILLed during a read (about 3 s), which is
/// answered by node 1 instead; while node 3 is down new connections go to node 1; once it is back and its
/// back-off is over, it is probed and used again.
#[tokio::test]
#[ignore = "needs the cluster rig and toxiproxy (scripts/with-cluster.sh --toxiproxy)"]
async fn killed_server_fails_over_and_is_used_again_after_restart() {
    let _node3 = NODE3.lock().await;
    let (n3, n1) = (cluster::node(3), cluster::node(1));
    let opts = Options::from_url(&format!("tcp://default@{n3},{n1}/default"))
        .unwrap()
        .load_balancing(LoadBalancing::InOrder)
        .host_backoff(Duration::from_millis(300))
        .connect_timeout(Duration::from_secs(2));
    let pool = Pool::new(opts, PoolOptions::new().max_size(2)).unwrap();
    let seed = "SELECT count(), sum(id) FROM default.replicated";
    let mut c = pool.get().await.unwrap();
    assert_eq!(c.endpoint().map(|e| e.to_string()), Some(n3.clone()));
    let _: (u64, u64) = c.query(seed).fetch_one().await.unwrap();
    // A read that holds node 3 for about two seconds (sleep per block) ...
    let killer = tokio::spawn(async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        cluster::kill(3).await;
    });
    let t = Instant::now();
    // (Blocks of 1000 rows, 0.1 s each: 26.9 keeps the 30,000 rows in one part.)
    let got: (u64, u64) =
        c.query(format!("{seed} WHERE sleepEachRow(0.0001) = 0 SETTINGS max_block_size = 1000")).fetch_one().await.unwrap();
    killer.await.unwrap();
    // ... is answered in full by node 1 after the kill.
    assert_eq!(got, (30_000, 449_985_000));
    assert_eq!(c.endpoint().map(|e| e.to_string()), Some(n1.clone()));
    assert!(t.elapsed() >= Duration::from_millis(500));
    drop(c);
    // While node 3 is down, new connections go to node 1.
    for _ in 0..3 {
        drop(pool.get().await.unwrap().detach()); // a new connection next time
        let mut c = pool.get().await.unwrap();
        assert_eq!(c.endpoint().map(|e| e.to_string()), Some(n1.clone()));
        let got: (u64, u64) = c.query(seed).fetch_one().await.unwrap();
        assert_eq!(got, (30_000, 449_985_000));
    }
    cluster::start(3).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut c = pool.get().await.unwrap();
        if c.endpoint().map(|e| e.to_string()) == Some(n3.clone()) {
            let got: (u64, u64) = c.query(seed).fetch_one().await.unwrap();
            assert_eq!(got, (30_000, 449_985_000));
            break;
        }
        assert!(Instant::now() < deadline, "node 3 was not used again within 30 s of its restart");
        drop(c.detach());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let st = pool.status();
    assert_eq!((st.in_use, st.waiting), (0, 0), "{st:?}");
}
