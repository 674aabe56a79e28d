//! chwire on the workloads of bench/PEERS.md that `chwire bench` (the CLI) does not have:
//! W7 (the wide table read whole), W7i (a 100,000-row block of it inserted 100 times into a
//! Null table), W10q (64 tasks sharing one pool, 20,000 of W3's queries) and W10i (16 tasks
//! inserting W5's blocks). Prints the RESULT line of the peer protocol.
//!
//! ```sh
//! chwire-bench-ext --url tcp://default@127.0.0.1:19000/default --workload W7 --compression lz4
//! ```
//! An `http://` URL runs the same over chwire's HTTP transport.

use chwire::{Block, Client, Column, ColumnData, Options, Pool, PoolOptions, StringColumn};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const W3_SQL: &str = "SELECT number, number, number FROM system.numbers LIMIT 1000";
const W7_SQL: &str = "SELECT * FROM chwire_bench_w7";
const W7_BLOCK_SQL: &str = "SELECT * FROM chwire_bench_w7 WHERE id < 100000 ORDER BY id";
const W7_SINK_SQL: &str = "INSERT INTO chwire_bench_w7_sink VALUES";
const W7I_REPEATS: usize = 100;
const W5_SQL: &str = "INSERT INTO chwire_bench_w5 (id, name, value, ts) VALUES";
const W5_BLOCK: u64 = 100_000;
const POOL_SIZE: usize = 64;

/// CHWIRE_BENCH_SCALE (bench/run.py's smoke run: 100) divides W7i's repeats and W10's
/// operations.
fn scale() -> usize {
    std::env::var("CHWIRE_BENCH_SCALE").ok().and_then(|s| s.parse().ok()).filter(|&s| s > 0).unwrap_or(1)
}

type AnyResult<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

struct Outcome {
    wall: f64,
    rows: u64,
    check: u64,
    extra: String,
}

fn fold_u64(sum: u64, col: &[u64]) -> u64 {
    col.iter().fold(sum, |a, &x| a.wrapping_add(x))
}

/// W5's block `b` (ids b*100,000 ..): the same rows `chwire bench W5` generates.
fn w5_block(b: u64) -> AnyResult<(Block, u64)> {
    let n = W5_BLOCK as usize;
    let (mut ids, mut values, mut ts) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let mut names = StringColumn::with_capacity(n, n * 12);
    let mut itoa = itoa::Buffer::new();
    let mut sum = 0u64;
    for i in b * W5_BLOCK..(b + 1) * W5_BLOCK {
        ids.push(i);
        values.push(i as f64 * 0.5);
        ts.push(1_600_000_000 + (i % 86_400) as u32);
        names.push_parts(&[b"name-", itoa.format(i).as_bytes()]);
        sum = sum.wrapping_add(i);
    }
    let block = Block::new()
        .with("id", Column::from(ids))?
        .with("name", Column::from(names))?
        .with("value", Column::from(values))?
        .with("ts", Column::with_type_name("DateTime", ColumnData::UInt32(ts))?)?;
    Ok((block, sum))
}

async fn select_w3(client: &mut Client) -> AnyResult<(u64, u64)> {
    let mut s = client.query(W3_SQL).stream().await?;
    let (mut rows, mut check) = (0u64, 0u64);
    while let Some(b) = s.next_block().await? {
        rows += b.rows() as u64;
        for (_, c) in b.columns() {
            check = fold_u64(check, c.as_u64().ok_or("expected UInt64")?);
        }
    }
    Ok((rows, check))
}

/// Runs `total` operations on `tasks` tasks sharing one pool (each task takes the next
/// operation number from a shared counter); throughput and latency percentiles in `extra`.
async fn concurrent(opts: Options, tasks: usize, total: u64, insert: bool) -> AnyResult<Outcome> {
    let pool = Pool::new(opts, PoolOptions::new().max_size(POOL_SIZE))?;
    let next = Arc::new(AtomicU64::new(0));
    let t0 = Instant::now();
    let mut handles = Vec::new();
    for _ in 0..tasks {
        let (pool, next) = (pool.clone(), next.clone());
        handles.push(tokio::spawn(async move {
            let (mut rows, mut check, mut lat) = (0u64, 0u64, Vec::new());
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    break;
                }
                let s = Instant::now();
                let mut client = pool.get().await?;
                let (r, c) = if insert {
                    let (block, sum) = w5_block(i)?;
                    let mut ins = client.query(W5_SQL).insert_blocks().await?;
                    ins.send(&block).await?;
                    ins.end().await?;
                    (W5_BLOCK, sum)
                } else {
                    select_w3(&mut client).await?
                };
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
    lat.sort_unstable();
    let pct = |p: f64| lat.get(((lat.len() as f64 - 1.0) * p).round() as usize).map_or(0.0, |d| d.as_secs_f64() * 1e3);
    let extra = format!(" ops_s={:.1} p50_ms={:.3} p99_ms={:.3}", total as f64 / wall, pct(0.5), pct(0.99));
    Ok(Outcome { wall, rows, check, extra })
}

async fn run(opts: Options, workload: &str) -> AnyResult<Outcome> {
    match workload {
        "W7" => {
            let mut client = Client::connect(opts).await?;
            let t0 = Instant::now();
            // The smoke run's slice reads the first rows only.
            let sql = match scale() {
                1 => W7_SQL.to_string(),
                n => format!("{W7_SQL} WHERE id < {}", 10_000_000 / n),
            };
            let mut s = client.query(sql.as_str()).stream().await?;
            let (mut rows, mut check) = (0u64, 0u64);
            while let Some(b) = s.next_block().await? {
                rows += b.rows() as u64;
                check = fold_u64(check, b.column("id").and_then(|c| c.as_u64()).ok_or("no UInt64 id")?);
            }
            Ok(Outcome { wall: t0.elapsed().as_secs_f64(), rows, check, extra: String::new() })
        }
        "W7i" => {
            let mut client = Client::connect(opts).await?;
            let blocks = client.query(W7_BLOCK_SQL).fetch_blocks().await?;
            let (mut per, mut sum) = (0u64, 0u64);
            for b in &blocks {
                per += b.rows() as u64;
                sum = fold_u64(sum, b.column("id").and_then(|c| c.as_u64()).ok_or("no UInt64 id")?);
            }
            let t0 = Instant::now();
            let repeats = W7I_REPEATS / scale();
            for _ in 0..repeats {
                let mut ins = client.query(W7_SINK_SQL).insert_blocks().await?;
                for b in &blocks {
                    ins.send(b).await?;
                }
                ins.end().await?;
            }
            let n = repeats as u64;
            Ok(Outcome { wall: t0.elapsed().as_secs_f64(), rows: per * n, check: sum.wrapping_mul(n), extra: String::new() })
        }
        "W10q" => concurrent(opts, 64, 20_000 / scale() as u64, false).await,
        "W10i" => concurrent(opts, 16, 160 / scale() as u64, true).await,
        other => Err(format!("unknown workload {other}").into()),
    }
}

fn main() -> ExitCode {
    let (mut url, mut workload, mut compression) = (String::new(), String::new(), "none".to_string());
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let val = it.next().unwrap_or_default();
        match flag.as_str() {
            "--url" => url = val,
            "--workload" => workload = val,
            "--compression" => compression = val,
            other => {
                eprintln!("unknown argument {other}");
                return ExitCode::from(2);
            }
        }
    }
    let opts = match Options::from_url(&url).and_then(|mut o| o.set("compression", &compression).map(|_| o)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    match rt.block_on(run(opts, &workload)) {
        Ok(o) => {
            let client = if url.starts_with("http") { "chwire-http" } else { "chwire" };
            println!(
                "RESULT client={client} workload={workload} compression={compression} wall_s={:.6} rows={} check={}{}",
                o.wall, o.rows, o.check, o.extra
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: chwire {workload} {compression}: {e}");
            ExitCode::from(1)
        }
    }
}
