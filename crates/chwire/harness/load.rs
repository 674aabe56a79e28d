//! Load under faults: N tasks share one multi-host [`Pool`] over the cluster rig's three
//! replicas (scripts/cluster.sh; the 18.16 cluster, whose replicas replicate: the 26.9 one has
//! no ZooKeeper) and run reads and inserts for a fixed time while one server
//! is SIGKILLed and restarted (twice by default). Run by `make load` (60 s) and, shorter,
//! by `make test`; loopback only.
//!
//! Claims checked at the end (exit code 1 if any fails):
//! * no read failed and every read was correct (`default.replicated`, the same 30,000 seeded
//!   rows on every replica: failover must hide the killed server);
//! * every insert was confirmed to its caller or reported failed; a failed insert is sent again
//!   by its caller (here: the task) with the same rows, which ReplicatedMergeTree deduplicates
//!   if the first attempt did land — chwire itself never re-sends an insert;
//! * after replication settles, every replica holds exactly the confirmed batches, each
//!   exactly once (a unique batch id per insert; sets compared);
//! * the pool is idle and within its size afterwards.
//!
//! ```sh
//! scripts/with-cluster.sh --18 cargo run --release -p chwire --example load -- --duration 60 --tasks 16
//! ```
//! Options: `--duration SECS` (60), `--tasks N` (16), `--kills N` (2), `--node N` (the node to
//! kill, 2), `--down SECS` (time a killed node stays down, 5), `--rows N` (rows per insert, 50),
//! `--max-ops N` (bound on operations, 1,000,000), `--url URL` (default `CHWIRE_CLUSTER_URL`),
//! `--keep` (keep the table instead of dropping it).

use chwire::{Client, Endpoint, Options, Pool, PoolOptions, Row};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The seeded table every replica holds (scripts/cluster.sh): count and sum(id).
const SEED: (u64, u64) = (30_000, 449_985_000);

#[derive(Row)]
struct LoadRow {
    batch: u64,
    i: u32,
    payload: String,
}

struct Args {
    duration: Duration,
    tasks: usize,
    kills: usize,
    node: usize,
    down: Duration,
    rows: u32,
    max_ops: u64,
    url: String,
    keep: bool,
}

fn parse_args() -> Args {
    let mut a = Args {
        duration: Duration::from_secs(60),
        tasks: 16,
        kills: 2,
        node: 2,
        down: Duration::from_secs(5),
        rows: 50,
        max_ops: 1_000_000,
        url: std::env::var("CHWIRE_CLUSTER_URL").unwrap_or_default(),
        keep: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        if k == "--keep" {
            a.keep = true;
            continue;
        }
        let v = it.next().unwrap_or_else(|| die(&format!("{k} needs a value")));
        let num = |v: &str| v.parse::<u64>().unwrap_or_else(|_| die(&format!("{k}: not a number: {v}")));
        match k.as_str() {
            "--duration" => a.duration = Duration::from_secs(num(&v)),
            "--tasks" => a.tasks = num(&v).max(1) as usize,
            "--kills" => a.kills = num(&v) as usize,
            "--node" => a.node = num(&v) as usize,
            "--down" => a.down = Duration::from_secs(num(&v)),
            "--rows" => a.rows = num(&v).max(1) as u32,
            "--max-ops" => a.max_ops = num(&v),
            "--url" => a.url = v,
            _ => die(&format!("unknown option {k}")),
        }
    }
    if a.url.is_empty() {
        die("no --url and no CHWIRE_CLUSTER_URL: run under scripts/with-cluster.sh");
    }
    a
}

fn die(msg: &str) -> ! {
    eprintln!("load: {msg}");
    std::process::exit(2)
}

/// What the tasks saw.
#[derive(Default)]
struct Stats {
    reads: AtomicU64,
    failed_reads: AtomicU64,
    wrong_reads: AtomicU64,
    inserts: AtomicU64,
    insert_errors: AtomicU64,
    read_latency: Mutex<Vec<Duration>>,
    slow_read_latency: Mutex<Vec<Duration>>,
    insert_latency: Mutex<Vec<Duration>>,
    confirmed: Mutex<BTreeSet<u64>>,
    /// The killed server, and when it answered queries (since the start of the run).
    killed: Option<Endpoint>,
    start: Option<Instant>,
    served_by_killed: Mutex<Vec<Duration>>,
    given_up: Mutex<BTreeSet<u64>>,
    errors: Mutex<BTreeMap<String, u64>>,
}

impl Stats {
    fn served(&self, server: Option<Endpoint>, at: Instant) {
        if server.is_some() && server == self.killed {
            let since = at.duration_since(self.start.expect("set with killed"));
            self.served_by_killed.lock().unwrap().push(since);
        }
    }

    fn error(&self, what: &str, e: &chwire::Error) {
        // Group by kind of error (messages carry addresses and ids).
        let text = format!("{what}: {e}");
        let key: String = text.chars().take(90).collect();
        *self.errors.lock().unwrap().entry(key).or_default() += 1;
    }
}

/// Every other read holds the server for a moment (sleep per block), so that kills land in
/// the middle of reads too.
async fn read(pool: &Pool, slow: bool) -> chwire::Result<((u64, u64), Option<Endpoint>)> {
    let mut c = pool.get().await?;
    let filter = if slow { " WHERE sleep(0.02) = 0" } else { "" };
    let got = c.query(format!("SELECT count(), sum(id) FROM default.replicated{filter}")).fetch_one().await?;
    Ok((got, c.endpoint().cloned()))
}

async fn insert(pool: &Pool, table: &str, batch: u64, rows: u32) -> chwire::Result<Option<Endpoint>> {
    let mut c = pool.get().await?;
    let mut ins = c.insert_rows::<LoadRow>(table).await?;
    for i in 0..rows {
        ins.write(&LoadRow { batch, i, payload: format!("batch {batch} row {i}") }).await?;
    }
    ins.end().await?;
    Ok(c.endpoint().cloned())
}

/// One task: reads and inserts (3 : 1) until the deadline or its share of `max_ops`.
async fn task(id: u64, pool: Pool, table: Arc<str>, stats: Arc<Stats>, deadline: Instant, ops: u64, rows: u32) {
    let mut seq = 0u64;
    while Instant::now() < deadline && seq < ops {
        seq += 1;
        if seq % 4 == 0 {
            let batch = (id << 32) | seq;
            // The caller's retry: the same rows again, at most 20 times (about 10 s).
            let mut attempt = 0;
            loop {
                let t = Instant::now();
                match insert(&pool, &table, batch, rows).await {
                    Ok(server) => {
                        stats.served(server, t);
                        stats.insert_latency.lock().unwrap().push(t.elapsed());
                        stats.inserts.fetch_add(1, Ordering::Relaxed);
                        stats.confirmed.lock().unwrap().insert(batch);
                        break;
                    }
                    Err(e) => {
                        stats.insert_errors.fetch_add(1, Ordering::Relaxed);
                        stats.error("insert", &e);
                        attempt += 1;
                        if attempt == 20 {
                            stats.given_up.lock().unwrap().insert(batch);
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(500)).await;
                    }
                }
            }
        } else {
            let t = Instant::now();
            let slow = seq % 2 == 1;
            let res = read(&pool, slow).await;
            stats.reads.fetch_add(1, Ordering::Relaxed);
            match res {
                Ok((got, server)) => {
                    stats.served(server, t);
                    let latency = if slow { &stats.slow_read_latency } else { &stats.read_latency };
                    latency.lock().unwrap().push(t.elapsed());
                    if got != SEED {
                        stats.wrong_reads.fetch_add(1, Ordering::Relaxed);
                        eprintln!("load: wrong read {got:?}, expected {SEED:?}");
                    }
                }
                Err(e) => {
                    stats.failed_reads.fetch_add(1, Ordering::Relaxed);
                    stats.error("read", &e);
                }
            }
        }
    }
}

/// SIGKILL node `n` and start it again after `down`, `kills` times, spread over the run.
async fn killer(n: usize, kills: usize, down: Duration, run: Duration, start: Instant) -> Vec<(Duration, Duration)> {
    let script = std::env::var("CHWIRE_CLUSTER_SCRIPT").unwrap_or_else(|_| die("CHWIRE_CLUSTER_SCRIPT is not set"));
    let sh = |args: Vec<String>| {
        let script = script.clone();
        async move {
            let out = tokio::process::Command::new(&script).args(&args).output().await.expect("run cluster.sh");
            assert!(out.status.success(), "{script} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
    };
    let mut events = Vec::new();
    for k in 0..kills {
        // Kills at 20 %, 55 % (, 90 % ...) of the run.
        let at = run.mul_f64(0.2 + 0.35 * k as f64);
        tokio::time::sleep_until((start + at).into()).await;
        let killed = start.elapsed();
        sh(vec!["node".into(), n.to_string(), "kill".into()]).await;
        tokio::time::sleep(down).await;
        sh(vec!["node".into(), n.to_string(), "start".into()]).await;
        events.push((killed, start.elapsed()));
    }
    events
}

/// Counts the client's failover events (its `tracing` warnings and infos).
#[derive(Default)]
struct FailoverCounter {
    retries: AtomicU64,
    marked_down: AtomicU64,
}

struct CountLayer(Arc<FailoverCounter>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for CountLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Msg(String);
        impl tracing::field::Visit for Msg {
            fn record_debug(&mut self, f: &tracing::field::Field, v: &dyn std::fmt::Debug) {
                if f.name() == "message" {
                    self.0 = format!("{v:?}");
                }
            }
        }
        let mut m = Msg(String::new());
        event.record(&mut m);
        if std::env::var_os("CHWIRE_LOAD_VERBOSE").is_some() {
            eprintln!("event: {} {}", event.metadata().level(), m.0);
        }
        if m.0.contains("retrying on another server") {
            self.0.retries.fetch_add(1, Ordering::Relaxed);
        } else if m.0.contains("server marked down") {
            self.0.marked_down.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn percentile(v: &mut [Duration], p: f64) -> Duration {
    if v.is_empty() {
        return Duration::ZERO;
    }
    v.sort_unstable();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// One connection to each server of the URL (setup and the final check).
async fn each_node(opts: &Options) -> Vec<Client> {
    let mut v = Vec::new();
    for ep in opts.endpoints() {
        let o = opts.clone().hosts([ep.clone()]);
        v.push(Client::connect(o).await.unwrap_or_else(|e| die(&format!("cannot reach {ep}: {e}"))));
    }
    v
}

#[tokio::main]
async fn main() {
    use tracing_subscriber::layer::SubscriberExt;
    let args = parse_args();
    let counter = Arc::new(FailoverCounter::default());
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(CountLayer(counter.clone()))).expect("one subscriber");

    let base = Options::from_url(&args.url).unwrap_or_else(|e| die(&format!("bad URL: {e}")));
    // A new table per run (its ZooKeeper path too), dropped at the end if all went well.
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let table: Arc<str> = format!("default.load_{secs}_{}", std::process::id()).into();
    let zk_name = table.trim_start_matches("default.");
    for c in each_node(&base).await.iter_mut() {
        c.execute(format!(
            "CREATE TABLE {table} (batch UInt64, i UInt32, payload String) \
             ENGINE = ReplicatedMergeTree('/clickhouse/tables/chwire/{zk_name}', '{{replica}}') ORDER BY (batch, i)"
        ))
        .await
        .unwrap_or_else(|e| {
            // 225 NO_ZOOKEEPER: the 26.9 cluster (clickhouse-local) has no ZooKeeper client.
            let hint = if e.code() == Some(225) {
                "; the load test needs replicas that replicate (ReplicatedMergeTree): run it on the 18.16 cluster, \
                 scripts/with-cluster.sh --18 (ClickHouse 26.9's clickhouse-local has no ZooKeeper client)"
            } else {
                ""
            };
            die(&format!("create {table}: {e}{hint}"))
        });
    }

    // The client under test: every server, round robin, short timeouts so a dead server is
    // noticed fast; reads are retried elsewhere (never inserts).
    let opts = base
        .clone()
        .load_balancing(chwire::LoadBalancing::RoundRobin)
        .retries(3)
        .host_backoff(Duration::from_millis(500))
        .connect_timeout(Duration::from_secs(1))
        .receive_timeout(Duration::from_secs(10))
        .send_timeout(Duration::from_secs(10));
    // Connections are renewed every few seconds, so that a restarted server gets its share again.
    let popts =
        PoolOptions::new().max_size(args.tasks).acquire_timeout(Some(Duration::from_secs(30))).max_lifetime(Some(Duration::from_secs(3)));
    let pool = Pool::new(opts.clone(), popts).unwrap_or_else(|e| die(&format!("pool: {e}")));

    let start = Instant::now();
    let killed = opts.endpoints().get(args.node.wrapping_sub(1)).cloned();
    let killed = Some(killed.unwrap_or_else(|| die(&format!("the URL has no server {}", args.node))));
    let stats = Arc::new(Stats { killed, start: Some(start), ..Stats::default() });
    let deadline = start + args.duration;
    let per_task = args.max_ops.div_ceil(args.tasks as u64);
    let killer = tokio::spawn(killer(args.node, args.kills, args.down, args.duration, start));
    let tasks: Vec<_> = (0..args.tasks as u64)
        .map(|id| tokio::spawn(task(id, pool.clone(), table.clone(), stats.clone(), deadline, per_task, args.rows)))
        .collect();
    for t in tasks {
        t.await.expect("task panicked");
    }
    let elapsed = start.elapsed();
    let kills = killer.await.expect("killer panicked");
    let status = pool.status();

    // Let replication settle, then compare each replica with the confirmed batches.
    let confirmed = stats.confirmed.lock().unwrap().clone();
    let given_up = stats.given_up.lock().unwrap().clone();
    let mut problems = Vec::new();
    let settle = Instant::now();
    for (n, c) in each_node(&base).await.iter_mut().enumerate() {
        c.query(format!("SYSTEM SYNC REPLICA {table}"))
            .setting("receive_timeout", "120")
            .execute()
            .await
            .unwrap_or_else(|e| die(&format!("sync replica on node{}: {e}", n + 1)));
        let got: Vec<(u64, u64)> = c.query(format!("SELECT batch, count() FROM {table} GROUP BY batch")).fetch_all().await.unwrap();
        let on_server: BTreeSet<u64> = got.iter().map(|(b, _)| *b).collect();
        let lost = confirmed.difference(&on_server).count();
        let unconfirmed: Vec<_> = on_server.difference(&confirmed).collect();
        let wrong_count = got.iter().filter(|(_, k)| *k != args.rows as u64).count();
        if lost + unconfirmed.len() + wrong_count > 0 {
            problems.push(format!(
                "node{}: {lost} confirmed batches missing, {} batches not confirmed ({} of them given up), {wrong_count} batches with duplicated or missing rows",
                n + 1,
                unconfirmed.len(),
                unconfirmed.iter().filter(|b| given_up.contains(b)).count()
            ));
        }
    }
    let settled = settle.elapsed();
    let s = &stats;
    let (reads, failed, wrong) =
        (s.reads.load(Ordering::Relaxed), s.failed_reads.load(Ordering::Relaxed), s.wrong_reads.load(Ordering::Relaxed));
    let (inserts, insert_errors) = (s.inserts.load(Ordering::Relaxed), s.insert_errors.load(Ordering::Relaxed));
    let mut rl = s.read_latency.lock().unwrap().clone();
    let mut il = s.insert_latency.lock().unwrap().clone();
    let mut sl = s.slow_read_latency.lock().unwrap().clone();
    let (retries, down) = (counter.retries.load(Ordering::Relaxed), counter.marked_down.load(Ordering::Relaxed));

    println!(
        "load test: {} tasks, {:.1} s, node{} killed {} times ({} s down each)",
        args.tasks,
        elapsed.as_secs_f64(),
        args.node,
        kills.len(),
        args.down.as_secs()
    );
    let served = s.served_by_killed.lock().unwrap().clone();
    for (k, (killed, back)) in kills.iter().enumerate() {
        let until = kills.get(k + 1).map_or(elapsed, |next| next.0);
        let (before, after) = (
            served.iter().filter(|t| **t < *killed && (k == 0 || **t > kills[k - 1].1)).count(),
            served.iter().filter(|t| **t > *back && **t < until).count(),
        );
        println!(
            "  kill {}: SIGKILL at {:.1} s, answering again at {:.1} s; queries it served before: {before}, after: {after}",
            k + 1,
            killed.as_secs_f64(),
            back.as_secs_f64()
        );
        if after == 0 {
            problems.push(format!("node{} served no query after its restart {}", args.node, k + 1));
        }
    }
    println!("| queries | reads (failed / wrong) | inserts confirmed | insert errors reported (re-sent) | failovers: reads retried / servers marked down | read p50 / p99 | slow read p50 / p99 | insert p50 / p99 | queries/s |");
    println!("|---|---|---|---|---|---|---|---|---|");
    println!(
        "| {} | {reads} ({failed} / {wrong}) | {inserts} ({} rows) | {insert_errors} | {retries} / {down} | {} / {} | {} / {} | {} / {} | {:.0} |",
        reads + inserts + insert_errors,
        inserts * args.rows as u64,
        ms(percentile(&mut rl, 0.5)),
        ms(percentile(&mut rl, 0.99)),
        ms(percentile(&mut sl, 0.5)),
        ms(percentile(&mut sl, 0.99)),
        ms(percentile(&mut il, 0.5)),
        ms(percentile(&mut il, 0.99)),
        (reads + inserts + insert_errors) as f64 / elapsed.as_secs_f64()
    );
    for (e, n) in s.errors.lock().unwrap().iter() {
        println!("  {n} x {e}");
    }
    println!("pool afterwards: {status:?}; replicas in sync and compared in {:.1} s", settled.as_secs_f64());

    if failed > 0 || wrong > 0 {
        problems.push(format!("{failed} reads failed and {wrong} were wrong"));
    }
    if !given_up.is_empty() {
        problems.push(format!("{} inserts failed 20 times in a row", given_up.len()));
    }
    if status.in_use != 0 || status.size > args.tasks {
        problems.push(format!("the pool is not back to idle: {status:?}"));
    }
    if !kills.is_empty() && retries + down == 0 {
        problems.push("a server was killed but the client reported no failover".into());
    }
    if problems.is_empty() && !args.keep {
        // Dropping a replica removes its ZooKeeper nodes one by one: all three at once.
        let drops: Vec<_> = each_node(&base)
            .await
            .into_iter()
            .map(|mut c| {
                let sql = format!("DROP TABLE IF EXISTS {table}");
                tokio::spawn(async move { c.execute(sql).await })
            })
            .collect();
        for d in drops {
            d.await.expect("drop task").unwrap_or_else(|e| die(&format!("drop {table}: {e}")));
        }
        println!("OK: 0 failed reads; the {} confirmed batches are on every replica exactly once", confirmed.len());
    } else if problems.is_empty() {
        println!("OK: 0 failed reads; the {} confirmed batches are on every replica exactly once (table {table} kept)", confirmed.len());
    } else {
        for p in &problems {
            println!("FAILED: {p}");
        }
        println!("(table {table} kept for inspection)");
        std::process::exit(1);
    }
}
