//! Benchmark peers for chwire (protocol and workloads: bench/PEERS.md).
//!
//! `--client clickhouse-rs`: the official `clickhouse` crate (HTTP, RowBinary, `#[derive(Row)]` + serde).
//! `--client clickhouse-rs-arrow`: the same crate with `clickhouse-ext-arrow` (HTTP, `FORMAT ArrowStream`).
//! `--client klickhouse`: the `klickhouse` crate (native TCP protocol, `#[derive(klickhouse::Row)]`).
//! `--client nativeclick`: `nativeclick`, a klickhouse fork at revision 54493 (same API, same code here).
//! `--client clickhouse-arrow`: the `clickhouse-arrow` crate (native TCP protocol, Arrow record batches).

mod arrow_native;
mod arrow_util;
mod chrs;
mod chrs_arrow;
mod kh;

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub type AnyResult<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

pub const W1_SQL: &str = "SELECT number FROM system.numbers LIMIT 100000000";
pub const W2_SQL: &str =
    "SELECT number, toString(number) AS s, toFloat64(number) AS f, toDateTime(number) AS t FROM system.numbers LIMIT 10000000";
pub const W3_SQL: &str = "SELECT number, number, number FROM system.numbers LIMIT 1000";
pub const W4_SQL: &str =
    "SELECT number, number, number, number, number, number, number, number, number, number FROM system.numbers LIMIT 100";
pub const W5_TABLE: &str = "chwire_bench_w5";
pub const W5_ROWS: u64 = 10_000_000;
pub const W5_BLOCK: u64 = 100_000;
pub const REPEATS: usize = 2000;
pub const CONNECTS: usize = 200;
/// W7: the wide table, read whole; W7i: a 100,000-row block of it (read before the clock)
/// inserted W7I_REPEATS times into the Null table of the same columns.
pub const W7_SQL: &str = "SELECT * FROM chwire_bench_w7";
pub const W7_BLOCK_SQL: &str = "SELECT * FROM chwire_bench_w7 WHERE id < 100000 ORDER BY id";
pub const W7_SINK: &str = "chwire_bench_w7_sink";
pub const W7I_REPEATS: usize = 100;
/// W10q: tasks sharing one pool, W3's query in total; W10i: tasks inserting W5 blocks.
pub const W10Q_TASKS: usize = 64;
pub const W10Q_QUERIES: u64 = 20_000;
pub const W10I_TASKS: usize = 16;
pub const W10I_BLOCKS: u64 = 160;
/// Connections a pool may open for W10 (one per task at most).
pub const POOL_SIZE: usize = 64;

/// W8: 10M strings of 1-200 bytes (substring of a literal: 18.16 has no `repeat`).
pub fn w8_sql() -> String {
    format!("SELECT substring('{}', 1, number % 200 + 1) AS s FROM system.numbers LIMIT 10000000", "x".repeat(200))
}

pub struct Args {
    pub client: String,
    pub workload: String,
    pub compression: String,
    pub host: String,
    pub port: u16,
    pub http_port: u16,
}

impl Args {
    pub fn lz4(&self) -> bool {
        self.compression == "lz4"
    }
}

/// What a workload produced: the timed wall, rows, the check value and extra `key=value` pairs.
pub struct Outcome {
    pub wall: f64,
    pub rows: u64,
    pub check: u64,
    pub extra: String,
}

impl Outcome {
    pub fn new(wall: f64, rows: u64, check: u64) -> Self {
        Outcome { wall, rows, check, extra: String::new() }
    }
}

/// `Ok(None)`: the UNSUPPORTED line was printed.
pub type Run = AnyResult<Option<Outcome>>;

pub fn unsupported(a: &Args, reason: &str) -> Run {
    println!("UNSUPPORTED client={} workload={} compression={} reason={}", a.client, a.workload, a.compression, reason);
    Ok(None)
}

fn parse_args() -> AnyResult<Args> {
    let mut a = Args {
        client: String::new(),
        workload: String::new(),
        compression: "none".into(),
        host: "127.0.0.1".into(),
        port: 19000,
        http_port: 18123,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("missing value for {flag}"));
        match flag.as_str() {
            "--client" => a.client = val()?,
            "--workload" => a.workload = val()?,
            "--compression" => a.compression = val()?,
            "--host" => a.host = val()?,
            "--port" => a.port = val()?.parse()?,
            "--http-port" => a.http_port = val()?.parse()?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if !matches!(a.compression.as_str(), "none" | "lz4" | "zstd") {
        return Err(format!("unknown compression {}", a.compression).into());
    }
    if !matches!(a.workload.as_str(), "W1" | "W2" | "W3" | "W4" | "W5" | "W6" | "W7" | "W7i" | "W8" | "W10q" | "W10i") {
        return Err(format!("unknown workload {:?}", a.workload).into());
    }
    Ok(a)
}

/// Runs `total` operations on `tasks` tasks (each takes the next operation number from a
/// shared counter) and reports throughput and latency percentiles. `op(i)` returns (rows, check).
pub async fn concurrent<F, Fut>(tasks: usize, total: u64, op: F) -> AnyResult<Outcome>
where
    F: Fn(u64) -> Fut + Clone + Send + Sync + 'static,
    Fut: std::future::Future<Output = AnyResult<(u64, u64)>> + Send,
{
    let next = Arc::new(AtomicU64::new(0));
    let t0 = Instant::now();
    let mut handles = Vec::new();
    for _ in 0..tasks {
        let (next, op) = (next.clone(), op.clone());
        handles.push(tokio::spawn(async move {
            let (mut rows, mut check, mut lat) = (0u64, 0u64, Vec::new());
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    break;
                }
                let s = Instant::now();
                let (r, c) = op(i).await?;
                lat.push(s.elapsed());
                rows += r;
                check = check.wrapping_add(c);
            }
            AnyResult::Ok((rows, check, lat))
        }));
    }
    let (mut rows, mut check, mut lat) = (0u64, 0u64, Vec::<Duration>::new());
    for h in handles {
        let (r, c, l) = h.await??;
        rows += r;
        check = check.wrapping_add(c);
        lat.extend(l);
    }
    let wall = t0.elapsed().as_secs_f64();
    Ok(Outcome { wall, rows, check, extra: latency_fields(&mut lat, total, wall) })
}

/// `ops_s=… p50_ms=… p99_ms=…` of the operations' latencies.
pub fn latency_fields(lat: &mut [Duration], ops: u64, wall: f64) -> String {
    lat.sort_unstable();
    let pct = |p: f64| lat.get(((lat.len() as f64 - 1.0) * p).round() as usize).map_or(0.0, |d| d.as_secs_f64() * 1e3);
    format!(" ops_s={:.1} p50_ms={:.3} p99_ms={:.3}", ops as f64 / wall, pct(0.50), pct(0.99))
}

/// W5's row `i`: (id, name, value, ts).
pub fn w5_row(i: u64, name: &mut String) -> (u64, f64, u32) {
    use std::fmt::Write;
    name.clear();
    write!(name, "name-{i}").unwrap();
    (i, i as f64 * 0.5, 1_600_000_000 + (i % 86_400) as u32)
}

/// The sum of ids of W5 block `b` (ids b*W5_BLOCK ..).
pub fn w5_block_sum(b: u64) -> u64 {
    (b * W5_BLOCK..(b + 1) * W5_BLOCK).fold(0u64, |s, i| s.wrapping_add(i))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };

    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let res = rt.block_on(async {
        match args.client.as_str() {
            "clickhouse-rs" => chrs::run(&args).await,
            "clickhouse-rs-arrow" => chrs_arrow::run(&args).await,
            "klickhouse" => kh::klickhouse::run(&args).await,
            "nativeclick" => kh::nativeclick::run(&args).await,
            "clickhouse-arrow" => arrow_native::run(&args).await,
            other => Err(format!("unknown client {other}").into()),
        }
    });
    match res {
        Ok(Some(o)) => {
            println!(
                "RESULT client={} workload={} compression={} wall_s={:.6} rows={} check={}{}",
                args.client, args.workload, args.compression, o.wall, o.rows, o.check, o.extra
            );
            ExitCode::SUCCESS
        }
        Ok(None) => ExitCode::SUCCESS, // UNSUPPORTED already printed
        Err(e) => {
            eprintln!("error: {} {} {}: {e}", args.client, args.workload, args.compression);
            ExitCode::from(1)
        }
    }
}
