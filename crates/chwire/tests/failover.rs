//! Several servers and timeouts against real processes: this test starts a second ClickHouse
//! 26.9 (scripts/server.sh with its own directory build/ch26-second, TCP and HTTP ports = the
//! first server's + 1), kills it (SIGKILL), stops it (SIGSTOP) and restarts it, and stops it
//! at the end. Everything runs in one test, in order, since the steps share the second server.
//! (The expired certificate, which needs 18.16's TLS listener, is in tests/tls.rs.)

mod common;

use chwire::{Block, Client, Column, Endpoint, ErrorKind, LoadBalancing, Options, Pool, PoolOptions};
use common::*;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    std::fs::canonicalize(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")).expect("the repository")
}

/// The second server (stopped when dropped, also on a failed assertion).
struct Second {
    tcp: u16,
    http: u16,
}

impl Second {
    fn new() -> Second {
        Second { tcp: options().port + 1, http: common::http_port() + 1 }
    }

    fn script(&self, cmd: &str) -> bool {
        Command::new(repo().join("scripts/server.sh"))
            .arg(cmd)
            .env("CHWIRE_CH_DIR", repo().join("build/ch26-second"))
            .env("CHWIRE_CH_NAME", "second server")
            .env("CHWIRE_CH_TCP_PORT", self.tcp.to_string())
            .env("CHWIRE_CH_HTTP_PORT", self.http.to_string())
            .status()
            .expect("run scripts/server.sh")
            .success()
    }

    fn start(&self) {
        assert!(self.script("start"), "the second server did not start");
    }

    fn pid(&self) -> i32 {
        let f = repo().join("build/ch26-second/server.pid");
        std::fs::read_to_string(&f).expect("pid file").trim().parse().expect("a pid")
    }

    fn signal(&self, sig: i32) {
        // SAFETY: kill(2) on the pid of the server this test started.
        assert_eq!(unsafe { libc::kill(self.pid(), sig) }, 0, "kill {sig}");
    }

    fn kill9(&self) {
        let pid = self.pid();
        self.signal(libc::SIGKILL);
        let t = Instant::now();
        // SAFETY: signal 0 only probes whether the process exists.
        while unsafe { libc::kill(pid, 0) } == 0 && std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z")) {
            assert!(t.elapsed() < Duration::from_secs(10), "the second server survived SIGKILL");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn endpoint(&self) -> Endpoint {
        Endpoint::new("127.0.0.1", self.tcp)
    }
}

impl Drop for Second {
    fn drop(&mut self) {
        // SAFETY: as above; SIGCONT in case a step stopped it.
        unsafe { libc::kill(self.pid(), libc::SIGCONT) };
        self.script("stop");
    }
}

fn first() -> Endpoint {
    let o = options();
    Endpoint::new(o.host, o.port)
}

/// A port nothing listens on.
fn dead_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn opts(hosts: Vec<Endpoint>) -> Options {
    options().hosts(hosts).host_backoff(Duration::from_millis(300)).connect_timeout(Duration::from_secs(2))
}

async fn check(c: &mut Client, n: u64) {
    let (s, k): (u64, u64) =
        c.query("SELECT sum(number), count() FROM numbers({n:UInt64})").param("n", n).fetch_one().await.expect("query");
    assert_eq!((s, k), (n * (n - 1) / 2, n));
}

async fn rows_of(table: &str, k: u64) -> u64 {
    let mut c = client().await;
    let (n,): (u64,) = c.query(format!("SELECT count() FROM {table} WHERE k = {k}")).fetch_one().await.unwrap();
    n
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers() {
    let second = Second::new();
    second.start();
    let (a, b) = (first(), second.endpoint());
    // The insert table exists on both servers.
    for ep in [&a, &b] {
        let mut c = Client::connect(opts(vec![ep.clone()])).await.unwrap();
        c.execute("DROP TABLE IF EXISTS chwire_failover").await.unwrap();
        c.execute("CREATE TABLE chwire_failover (k UInt64, x UInt64) ENGINE = Memory").await.unwrap();
    }

    // A dead port first in the list: queries go to the live one.
    let dead = Endpoint::new("127.0.0.1", dead_port());
    let url = format!("tcp://default@{dead},{a},{b}/default?host_backoff=300ms");
    let mut c = Client::connect_url(&url).await.expect("a live server of the list");
    assert_eq!(c.endpoint(), Some(&a));
    check(&mut c, 10).await;
    let only_dead = Client::connect(opts(vec![dead.clone(), Endpoint::new("127.0.0.1", dead_port())])).await.unwrap_err();
    assert!(only_dead.is_failover() && only_dead.to_string().contains("no server could be reached"), "{only_dead}");

    // Strategies: round robin alternates, random reaches both, in order stays on the first.
    let p = Pool::new(opts(vec![a.clone(), b.clone()]).load_balancing(LoadBalancing::RoundRobin), PoolOptions::new().max_size(4)).unwrap();
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(p.get().await.unwrap());
    }
    let on_b = held.iter().filter(|c| c.endpoint() == Some(&b)).count();
    assert_eq!(on_b, 2, "round robin over two servers");
    for c in held.iter_mut() {
        check(c, 33).await;
    }
    drop(held);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..30 {
        let c = Client::connect(opts(vec![a.clone(), b.clone()]).load_balancing(LoadBalancing::Random)).await.unwrap();
        seen.insert(c.endpoint().unwrap().clone());
    }
    assert_eq!(seen.len(), 2, "random reaches both servers");

    // Kill the server a client is connected to: its next read fails over.
    let mut c = Client::connect(opts(vec![b.clone(), a.clone()])).await.unwrap();
    assert_eq!(c.endpoint(), Some(&b));
    let mut pool = Pool::new(opts(vec![b.clone(), a.clone()]), PoolOptions::new().max_size(2)).unwrap();
    {
        let mut pc = pool.get().await.unwrap();
        assert_eq!(pc.endpoint(), Some(&b));
        check(&mut pc, 5).await;
    }
    let mut ins_client = Client::connect(opts(vec![b.clone(), a.clone()])).await.unwrap();
    second.kill9();
    check(&mut c, 1000).await;
    assert_eq!(c.endpoint(), Some(&a), "failed over to the live server");
    // The pooled connection to the dead server: the read is retried elsewhere.
    {
        let mut pc = pool.get().await.unwrap();
        check(&mut pc, 77).await;
        assert_eq!(pc.endpoint(), Some(&a));
    }
    // An INSERT whose server died before any row was sent starts again elsewhere.
    let mut ins = ins_client.insert_blocks("chwire_failover", Some(&["k", "x"])).await.expect("insert fails over");
    ins.send(&Block::new().with("k", Column::from(vec![1u64; 10])).unwrap().with("x", Column::from(vec![0u64; 10])).unwrap())
        .await
        .unwrap();
    ins.end().await.unwrap();
    assert_eq!(rows_of("chwire_failover", 1).await, 10);
    // New connections skip the dead server (in back-off) without waiting for it.
    let t = Instant::now();
    let mut n = Client::connect(opts(vec![b.clone(), a.clone()])).await.unwrap();
    assert_eq!(n.endpoint(), Some(&a));
    check(&mut n, 3).await;
    assert!(t.elapsed() < Duration::from_secs(2));

    // Restarted: after its back-off the server is probed and used again.
    second.start();
    tokio::time::sleep(Duration::from_millis(700)).await;
    let mut back = Client::connect(opts(vec![b.clone(), a.clone()])).await.unwrap();
    assert_eq!(back.endpoint(), Some(&b), "the restarted server is used again");
    back.execute("CREATE TABLE IF NOT EXISTS chwire_failover (k UInt64, x UInt64) ENGINE = Memory").await.unwrap();

    // A read that already returned rows is not sent again: the error reaches the caller.
    let mut s = back.query("SELECT number FROM system.numbers SETTINGS max_block_size = 1000").stream().await.unwrap();
    let mut got = s.next_block().await.unwrap().expect("a block").rows() as u64;
    second.kill9();
    let err = loop {
        match s.next_block().await {
            Ok(Some(b)) => got += b.rows() as u64,
            Ok(None) => panic!("an endless query ended"),
            Err(e) => break e,
        }
    };
    assert!(err.is_failover(), "a connection error: {err:?}");
    assert!(got > 0);
    drop(s);
    // ... and an insert whose rows were sent is never retried: the caller learns it failed.
    second.start();
    tokio::time::sleep(Duration::from_millis(700)).await;
    let mut ic = Client::connect(opts(vec![b.clone(), a.clone()])).await.unwrap();
    assert_eq!(ic.endpoint(), Some(&b));
    ic.execute("CREATE TABLE IF NOT EXISTS chwire_failover (k UInt64, x UInt64) ENGINE = Memory").await.unwrap();
    let mut ins = ic.insert_blocks("chwire_failover", Some(&["k", "x"])).await.unwrap();
    ins.send(&Block::new().with("k", Column::from(vec![2u64; 10])).unwrap().with("x", Column::from(vec![0u64; 10])).unwrap())
        .await
        .unwrap();
    second.kill9();
    let err = ins.end().await.expect_err("the insert's server died");
    assert!(err.is_failover(), "{err:?}");
    assert_eq!(rows_of("chwire_failover", 2).await, 0, "not retried on the other server");
    check(&mut ic, 9).await;
    assert_eq!(ic.endpoint(), Some(&a));

    // Timeouts against a frozen server (SIGSTOP): the kernel accepts, nobody answers.
    second.start();
    tokio::time::sleep(Duration::from_millis(700)).await;
    let frozen = |o: Options| o.hosts(vec![b.clone()]).retries(0);
    let mut fc = Client::connect(frozen(options()).send_timeout(Duration::from_millis(500))).await.unwrap();
    let mut qc = Client::connect(frozen(options()).query_timeout(Some(Duration::from_millis(500)))).await.unwrap();
    let mut ins = fc.insert_blocks("chwire_failover", Some(&["k", "x"])).await.unwrap();
    second.signal(libc::SIGSTOP);
    let t = Instant::now();
    let err = Client::connect(frozen(options()).handshake_timeout(Duration::from_millis(500))).await.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Timeout(chwire::Timeout::Handshake)), "{err:?}");
    assert!(t.elapsed() < Duration::from_secs(3));
    let err = qc.query("SELECT 1").fetch_blocks().await.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Timeout(chwire::Timeout::Query)), "{err:?}");
    let big: Vec<u64> = (0..20_000_000).collect();
    let block = Block::new().with("k", Column::from(vec![3u64; big.len()])).unwrap().with("x", Column::from(big)).unwrap();
    let t = Instant::now();
    let err = ins.send(&block).await.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Timeout(chwire::Timeout::Send)), "{err:?}");
    assert!(t.elapsed() < Duration::from_secs(5));
    drop(ins);
    second.signal(libc::SIGCONT);
    // Both clients recover (drained or reconnected).
    check(&mut qc, 12).await;
    check(&mut fc, 13).await;

    // A pool over both servers keeps serving reads while one is killed and restarted.
    pool = Pool::new(opts(vec![b.clone(), a.clone()]).load_balancing(LoadBalancing::RoundRobin), PoolOptions::new().max_size(4)).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut readers = Vec::new();
    for r in 0..4u64 {
        let (pool, stop) = (pool.clone(), stop.clone());
        readers.push(tokio::spawn(async move {
            let mut n = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let mut c = pool.get().await.expect("a connection");
                check(&mut c, 100 + r + n % 50).await;
                n += 1;
            }
            n
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    second.kill9();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    second.start();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut total = 0;
    for r in readers {
        total += r.await.expect("no read failed");
    }
    assert!(total > 100, "{total} reads");
    eprintln!("{total} reads through one kill and restart, none failed");
}
