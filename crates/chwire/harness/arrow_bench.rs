//! `query_arrow` against the plain block stream on the workloads W1 and W2 of bench/PEERS.md:
//! `cargo run --release -p chwire --features arrow --example arrow_bench -- [URL] [RUNS] [SCALE] [W1|W2]`.
//! Each side runs RUNS times (alternating, best taken); prints wall and CPU seconds and the
//! ratios arrow / plain, and the arrow side keeping every batch (`kept`: a table in memory). SCALE divides the row counts (e.g. 10 for a quick look).

use arrow_array::cast::AsArray;
use arrow_array::types::UInt64Type;
use chwire::arrow::ArrowOptions;
use chwire::Client;
use std::time::Instant;

fn cpu_seconds() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

async fn plain(c: &mut Client, sql: &str) -> chwire::Result<u64> {
    let mut s = c.query(sql).stream().await?;
    let mut check = 0u64;
    while let Some(b) = s.next_block().await? {
        check = b.column_at(0).unwrap().as_u64().unwrap().iter().fold(check, |a, &x| a.wrapping_add(x));
        if let Some(strings) = b.column("s").and_then(|c| c.as_strings()) {
            check = check.wrapping_add(strings.data().len() as u64);
        }
    }
    Ok(check)
}

async fn arrow(c: &mut Client, sql: &str) -> chwire::Result<u64> {
    let mut s = c.query(sql).fetch_arrow(ArrowOptions::rich()).await?;
    let mut check = 0u64;
    while let Some(b) = s.next_batch().await? {
        check = batch_check(check, &b);
    }
    Ok(check)
}

/// The check of one batch added to `check`: the sum of the first column and the string bytes.
fn batch_check(check: u64, b: &arrow_array::RecordBatch) -> u64 {
    let check = b.column(0).as_primitive::<UInt64Type>().values().iter().fold(check, |a, &x| a.wrapping_add(x));
    match b.schema().index_of("s") {
        Ok(i) => check.wrapping_add(b.column(i).as_string::<i64>().values().len() as u64),
        Err(_) => check,
    }
}

/// `arrow`, keeping every batch (a table in memory, as Python's `query_arrow` builds one);
/// the check is computed from the kept batches, which are dropped after the clock stops.
async fn arrow_kept(c: &mut Client, sql: &str) -> chwire::Result<(u64, Vec<arrow_array::RecordBatch>)> {
    let mut s = c.query(sql).fetch_arrow(ArrowOptions::rich()).await?;
    let mut kept = Vec::new();
    while let Some(b) = s.next_batch().await? {
        kept.push(b);
    }
    let check = kept.iter().fold(0, batch_check);
    Ok((check, kept))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> chwire::Result<()> {
    let mut args = std::env::args().skip(1);
    let url = args.next().unwrap_or_else(|| "tcp://default@127.0.0.1:19000/default".into());
    let runs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let scale: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    // A workload name as the fourth argument: only its `kept` side, once, in this fresh
    // process (the memory of a table is then new to the process, as in a Python process that
    // builds one; alternating runs reuse the memory of the previous run's table).
    let cold = args.next();
    let mut c = Client::connect_url(&url).await?;
    let workloads = [
        ("W1", format!("SELECT number FROM system.numbers LIMIT {}", 100_000_000 / scale)),
        (
            "W2",
            format!(
                "SELECT number, toString(number) AS s, toFloat64(number) AS f, toDateTime(number) AS t FROM system.numbers LIMIT {}",
                10_000_000 / scale
            ),
        ),
    ];
    if let Some(name) = cold {
        let (_, sql) = workloads.iter().find(|(n, _)| *n == name).expect("W1 or W2");
        let (w0, c0) = (Instant::now(), cpu_seconds());
        let (check, kept) = arrow_kept(&mut c, sql).await?;
        let (wall, cpu) = (w0.elapsed().as_secs_f64(), cpu_seconds() - c0);
        drop(kept);
        println!("{name}: kept cold wall {wall:.3}s cpu {cpu:.3}s (check {check})");
        return Ok(());
    }
    for (name, sql) in &workloads {
        let mut best = [(f64::MAX, f64::MAX); 3];
        let mut checks = [0u64; 3];
        for _ in 0..runs {
            for side in 0..3 {
                let (w0, c0) = (Instant::now(), cpu_seconds());
                let (check, kept) = match side {
                    0 => (plain(&mut c, sql).await?, Vec::new()),
                    1 => (arrow(&mut c, sql).await?, Vec::new()),
                    _ => arrow_kept(&mut c, sql).await?,
                };
                let (wall, cpu) = (w0.elapsed().as_secs_f64(), cpu_seconds() - c0);
                drop(kept);
                checks[side] = check;
                best[side] = (best[side].0.min(wall), best[side].1.min(cpu));
            }
        }
        assert_eq!(checks[0], checks[1], "{name}: the two sides disagree");
        assert_eq!(checks[0], checks[2], "{name}: the kept batches disagree");
        println!(
            "{name}: plain wall {:.3}s cpu {:.3}s | arrow wall {:.3}s cpu {:.3}s | ratio wall {:.3} cpu {:.3} | kept wall {:.3}s cpu {:.3}s (check {})",
            best[0].0,
            best[0].1,
            best[1].0,
            best[1].1,
            best[1].0 / best[0].0,
            best[1].1 / best[0].1,
            best[2].0,
            best[2].1,
            checks[0]
        );
    }
    Ok(())
}
