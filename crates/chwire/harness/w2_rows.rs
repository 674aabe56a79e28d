//! Workload W2 (bench/PEERS.md) read two ways in one process, interleaved: the columnar
//! path (blocks, slices) and the row path (`#[derive(Row)]` with a borrowed `&str`).
//! Prints the medians of wall time and CPU time (this process: the client) and their
//! ratios. Both paths touch every value of every row.
//!
//! `cargo run --release -p chwire --example w2_rows -- [URL] [RUNS]`

use std::time::{Duration, Instant};

use chwire::{Client, Options, Row};

const SQL: &str =
    "SELECT number, toString(number) AS s, toFloat64(number) AS f, toDateTime(number) AS t FROM system.numbers LIMIT 10000000";

#[derive(Row)]
struct W2<'a> {
    number: u64,
    s: &'a str,
    f: f64,
    t: u32,
}

/// User + system CPU time of this process.
fn cpu_time() -> Duration {
    let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let u = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, u.as_mut_ptr());
        u.assume_init()
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

#[derive(Default, Debug, PartialEq, Clone, Copy)]
struct Check {
    rows: u64,
    sum: u64,
    bytes: u64,
    f: u64,
    t: u64,
}

async fn columnar(client: &mut Client) -> chwire::Result<Check> {
    let mut s = client.query(SQL).stream().await?;
    let mut c = Check::default();
    while let Some(b) = s.next_block().await? {
        c.rows += b.rows() as u64;
        for &n in b.column("number").and_then(|c| c.as_u64()).expect("UInt64") {
            c.sum = c.sum.wrapping_add(n);
        }
        let strings = b.column("s").and_then(|c| c.as_strings()).expect("String");
        for i in 0..strings.len() {
            c.bytes += std::str::from_utf8(strings.get(i)).expect("UTF-8").len() as u64;
        }
        for &f in b.column("f").and_then(|c| c.as_f64()).expect("Float64") {
            c.f = c.f.wrapping_add(f as u64);
        }
        for &t in b.column("t").and_then(|c| c.as_u32()).expect("DateTime") {
            c.t = c.t.wrapping_add(u64::from(t));
        }
    }
    Ok(c)
}

async fn rows(client: &mut Client) -> chwire::Result<Check> {
    let mut cursor = client.query(SQL).fetch::<W2<'_>>().await?;
    let mut c = Check::default();
    while let Some(r) = cursor.next().await? {
        c.rows += 1;
        c.sum = c.sum.wrapping_add(r.number);
        c.bytes += r.s.len() as u64;
        c.f = c.f.wrapping_add(r.f as u64);
        c.t = c.t.wrapping_add(u64::from(r.t));
    }
    Ok(c)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> chwire::Result<()> {
    let mut args = std::env::args().skip(1);
    let url = args.next().unwrap_or_else(|| "tcp://default@127.0.0.1:19000/default".into());
    let runs: usize = args.next().map_or(5, |r| r.parse().expect("RUNS is a number"));
    // `rows` or `columnar`: run only that path (for profiling).
    let only = args.next();
    let mut client = Client::connect(Options::from_url(&url)?).await?;
    let (mut col_wall, mut col_cpu, mut row_wall, mut row_cpu) = (vec![], vec![], vec![], vec![]);
    let mut checks = vec![];
    for _ in 0..runs {
        for row_path in [false, true] {
            if only.as_deref().is_some_and(|o| (o == "rows") != row_path) {
                continue;
            }
            let (w0, c0) = (Instant::now(), cpu_time());
            let check = if row_path { rows(&mut client).await? } else { columnar(&mut client).await? };
            let (wall, cpu) = (w0.elapsed(), cpu_time() - c0);
            if row_path {
                row_wall.push(wall);
                row_cpu.push(cpu);
            } else {
                col_wall.push(wall);
                col_cpu.push(cpu);
            }
            checks.push(check);
        }
    }
    assert!(checks.windows(2).all(|w| w[0] == w[1]), "both paths read the same values: {checks:?}");
    if only.is_some() {
        return Ok(());
    }
    let (cw, cc, rw, rc) = (median(col_wall), median(col_cpu), median(row_wall), median(row_cpu));
    println!("W2 scan-mixed, 10M rows, {runs} interleaved runs each, medians:");
    println!("  columnar      wall {:.3} s  cpu {:.3} s", cw.as_secs_f64(), cc.as_secs_f64());
    println!("  derive(Row)   wall {:.3} s  cpu {:.3} s", rw.as_secs_f64(), rc.as_secs_f64());
    println!(
        "RESULT workload=W2-rows wall_ratio={:.2} cpu_ratio={:.2} rows={} check={}",
        rw.as_secs_f64() / cw.as_secs_f64(),
        rc.as_secs_f64() / cc.as_secs_f64(),
        checks[0].rows,
        checks[0].sum.wrapping_add(checks[0].bytes)
    );
    Ok(())
}
