//! `query_arrow` against the plain block stream on the workloads W1 and W2 of bench/PEERS.md:
//! `cargo run --release -p chwire --features arrow --example arrow_bench -- [URL] [RUNS] [SCALE]`.
//! Each side runs RUNS times (alternating, best taken); prints wall and CPU seconds and the
//! ratios arrow / plain. SCALE divides the row counts (e.g. 10 for a quick look).

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
        check = b.column(0).as_primitive::<UInt64Type>().values().iter().fold(check, |a, &x| a.wrapping_add(x));
        if let Ok(i) = b.schema().index_of("s") {
            let strings = b.column(i).as_string::<i64>();
            check = check.wrapping_add(strings.values().len() as u64);
        }
    }
    Ok(check)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> chwire::Result<()> {
    let mut args = std::env::args().skip(1);
    let url = args.next().unwrap_or_else(|| "tcp://default@127.0.0.1:19000/default".into());
    let runs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let scale: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
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
    for (name, sql) in &workloads {
        let mut best = [(f64::MAX, f64::MAX); 2];
        let mut checks = [0u64; 2];
        for _ in 0..runs {
            for side in 0..2 {
                let (w0, c0) = (Instant::now(), cpu_seconds());
                checks[side] = if side == 0 { plain(&mut c, sql).await? } else { arrow(&mut c, sql).await? };
                let (wall, cpu) = (w0.elapsed().as_secs_f64(), cpu_seconds() - c0);
                best[side] = (best[side].0.min(wall), best[side].1.min(cpu));
            }
        }
        assert_eq!(checks[0], checks[1], "{name}: the two sides disagree");
        println!(
            "{name}: plain wall {:.3}s cpu {:.3}s | arrow wall {:.3}s cpu {:.3}s | ratio wall {:.3} cpu {:.3} (check {})",
            best[0].0,
            best[0].1,
            best[1].0,
            best[1].1,
            best[1].0 / best[0].0,
            best[1].1 / best[0].1,
            checks[0]
        );
    }
    Ok(())
}
