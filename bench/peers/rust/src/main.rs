//! Benchmark peer for chwire (protocol: bench/PEERS.md).
//!
//! `--client clickhouse-rs`: the official `clickhouse` crate (HTTP, RowBinary, `#[derive(Row)]` + serde).
//! `--client klickhouse`: the `klickhouse` crate (native TCP protocol, `#[derive(klickhouse::Row)]`).
//!
//! klickhouse chooses compression at compile time (cargo feature `compression`), and 0.16.0 does
//! not compile without it: it always asks for and sends LZ4 blocks, so `--compression none`
//! is reported as UNSUPPORTED for klickhouse.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

type AnyResult<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const W1_SQL: &str = "SELECT number FROM system.numbers LIMIT 100000000";
const W2_SQL: &str = "SELECT number, toString(number) AS s, toFloat64(number) AS f, toDateTime(number) AS t FROM system.numbers LIMIT 10000000";
const W3_SQL: &str = "SELECT number, number, number FROM system.numbers LIMIT 1000";
const W4_SQL: &str = "SELECT number, number, number, number, number, number, number, number, number, number FROM system.numbers LIMIT 100";
const W5_TABLE: &str = "chwire_bench_w5";
const W5_ROWS: u64 = 10_000_000;
const W5_BLOCK: u64 = 100_000;
const REPEATS: usize = 2000;
const CONNECTS: usize = 200;

struct Args {
    client: String,
    workload: String,
    compression: String,
    host: String,
    port: u16,
    http_port: u16,
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
    if !matches!(a.compression.as_str(), "none" | "lz4") {
        return Err(format!("unknown compression {}", a.compression).into());
    }
    if !matches!(a.workload.as_str(), "W1" | "W2" | "W3" | "W4" | "W5" | "W6") {
        return Err(format!("unknown workload {:?}", a.workload).into());
    }
    Ok(a)
}

fn report(a: &Args, wall: f64, rows: u64, check: u64) {
    println!(
        "RESULT client={} workload={} compression={} wall_s={:.6} rows={} check={}",
        a.client, a.workload, a.compression, wall, rows, check
    );
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
            "klickhouse" => kh::run(&args).await,
            other => Err(format!("unknown client {other}").into()),
        }
    });
    match res {
        Ok(Some((wall, rows, check))) => {
            report(&args, wall, rows, check);
            ExitCode::SUCCESS
        }
        Ok(None) => ExitCode::SUCCESS, // UNSUPPORTED already printed
        Err(e) => {
            eprintln!("error: {} {} {}: {e}", args.client, args.workload, args.compression);
            ExitCode::from(1)
        }
    }
}

/// The official `clickhouse` crate (HTTP interface, RowBinary).
mod chrs {
    use super::*;
    use clickhouse::{Client, Compression, Row};
    use serde::{Deserialize, Serialize};

    #[derive(Row, Deserialize)]
    struct N1 {
        number: u64,
    }

    #[derive(Row, Deserialize)]
    struct Mixed<'a> {
        number: u64,
        s: &'a str,
        f: f64,
        t: u32, // DateTime is a UInt32 in RowBinary
    }

    #[derive(Row, Deserialize)]
    struct N3 {
        a: u64,
        b: u64,
        c: u64,
    }

    #[derive(Row, Deserialize)]
    struct N10 {
        c0: u64,
        c1: u64,
        c2: u64,
        c3: u64,
        c4: u64,
        c5: u64,
        c6: u64,
        c7: u64,
        c8: u64,
        c9: u64,
    }

    #[derive(Row, Serialize)]
    struct W5Row<'a> {
        id: u64,
        name: &'a str,
        value: f64,
        ts: u32,
    }

    #[derive(Row, Deserialize)]
    struct One {
        #[serde(rename = "1")]
        one: u8,
    }

    fn make_client(a: &Args) -> Client {
        let compression = if a.compression == "lz4" { Compression::Lz4 } else { Compression::None };
        Client::default()
            .with_url(format!("http://{}:{}", a.host, a.http_port))
            .with_user("default")
            // ClickHouse 18.16 has no RowBinaryWithNamesAndTypes: plain RowBinary, no schema fetch.
            .with_validation(false)
            .with_compression(compression)
    }

    async fn select_one(client: &Client) -> AnyResult<u64> {
        let row = client.query("SELECT 1").fetch_one::<One>().await?;
        Ok(row.one as u64)
    }

    pub async fn run(a: &Args) -> AnyResult<Option<(f64, u64, u64)>> {
        if a.compression == "lz4" && a.workload != "W5" {
            // Only INSERT bodies can be LZ4 against 18.16 (`decompress=1`). For responses 0.15.3
            // sends `Accept-Encoding: lz4`, which 18.16 ignores (the data would come back
            // uncompressed), and the `compress=1` of clickhouse <= 0.15.2 makes 18.16 answer
            // with an empty body (Poco assertion in WriteBufferFromHTTPServerResponse).
            println!(
                "UNSUPPORTED client={} workload={} compression={} reason=ClickHouse 18.16 cannot send \
                 LZ4 responses to the clickhouse crate (0.15.3 asks via Accept-Encoding: lz4, which 18.16 \
                 ignores; compress=1 of <=0.15.2 yields an empty body)",
                a.client, a.workload, a.compression
            );
            return Ok(None);
        }
        if a.workload == "W6" {
            let t0 = Instant::now();
            let mut sum = 0u64;
            for _ in 0..CONNECTS {
                // a fresh Client has its own connection pool: one new TCP connection each
                let client = make_client(a);
                sum = sum.wrapping_add(select_one(&client).await?);
                drop(client);
            }
            return Ok(Some((t0.elapsed().as_secs_f64(), CONNECTS as u64, sum)));
        }

        let client = make_client(a);
        // "connect": open the keep-alive HTTP connection before the clock starts
        select_one(&client).await?;

        let t0 = Instant::now();
        let (rows, check) = match a.workload.as_str() {
            "W1" => {
                let mut cur = client.query(W1_SQL).fetch::<N1>()?;
                let (mut rows, mut sum) = (0u64, 0u64);
                while let Some(r) = cur.next().await? {
                    rows += 1;
                    sum = sum.wrapping_add(r.number);
                }
                (rows, sum)
            }
            "W2" => {
                let mut cur = client.query(W2_SQL).fetch::<Mixed<'_>>()?;
                let (mut rows, mut sum) = (0u64, 0u64);
                let (mut fsum, mut tsum) = (0f64, 0u64);
                while let Some(r) = cur.next().await? {
                    rows += 1;
                    sum = sum.wrapping_add(r.number).wrapping_add(r.s.len() as u64);
                    fsum += r.f;
                    tsum = tsum.wrapping_add(r.t as u64);
                }
                black_box((fsum, tsum));
                (rows, sum)
            }
            "W3" => {
                let (mut rows, mut sum) = (0u64, 0u64);
                for _ in 0..REPEATS {
                    let mut cur = client.query(W3_SQL).fetch::<N3>()?;
                    while let Some(r) = cur.next().await? {
                        rows += 1;
                        sum = sum.wrapping_add(r.a).wrapping_add(r.b).wrapping_add(r.c);
                    }
                }
                (rows, sum)
            }
            "W4" => {
                let (mut rows, mut sum) = (0u64, 0u64);
                for _ in 0..REPEATS {
                    let mut cur = client.query(W4_SQL).fetch::<N10>()?;
                    while let Some(r) = cur.next().await? {
                        rows += 1;
                        for v in [r.c0, r.c1, r.c2, r.c3, r.c4, r.c5, r.c6, r.c7, r.c8, r.c9] {
                            sum = sum.wrapping_add(v);
                        }
                    }
                }
                (rows, sum)
            }
            "W5" => {
                let mut sum = 0u64;
                let mut name = String::with_capacity(32);
                let mut i = 0u64;
                while i < W5_ROWS {
                    // one INSERT ... FORMAT RowBinary per block of 100,000 rows
                    let mut insert = client.insert::<W5Row<'_>>(W5_TABLE).await?;
                    for _ in 0..W5_BLOCK {
                        name.clear();
                        use std::fmt::Write;
                        write!(name, "name-{i}").unwrap();
                        insert
                            .write(&W5Row {
                                id: i,
                                name: &name,
                                value: i as f64 * 0.5,
                                ts: 1_600_000_000 + (i % 86_400) as u32,
                            })
                            .await?;
                        sum = sum.wrapping_add(i);
                        i += 1;
                    }
                    insert.end().await?;
                }
                (W5_ROWS, sum)
            }
            _ => unreachable!(),
        };
        Ok(Some((t0.elapsed().as_secs_f64(), rows, check)))
    }
}

/// `klickhouse` (native TCP protocol).
mod kh {
    use super::*;
    use futures_util::StreamExt;
    use klickhouse::{Client, ClientOptions, DateTime, Row, Tz};

    #[derive(Row)]
    struct N1 {
        number: u64,
    }

    #[derive(Row)]
    struct Mixed {
        number: u64,
        s: String,
        f: f64,
        t: DateTime,
    }

    // klickhouse keys block columns by name (IndexMap): duplicate names ("number, number, ...")
    // collapse into one column, so W3/W4 alias the columns (the data on the wire is the same).
    const W3_SQL_ALIASED: &str =
        "SELECT number AS c0, number AS c1, number AS c2 FROM system.numbers LIMIT 1000";

    #[derive(Row)]
    struct N3 {
        c0: u64,
        c1: u64,
        c2: u64,
    }

    fn w4_sql_aliased() -> String {
        let cols: Vec<String> = (0..10).map(|i| format!("number AS c{i}")).collect();
        format!("SELECT {} FROM system.numbers LIMIT 100", cols.join(", "))
    }

    #[derive(Row)]
    struct N10 {
        c0: u64,
        c1: u64,
        c2: u64,
        c3: u64,
        c4: u64,
        c5: u64,
        c6: u64,
        c7: u64,
        c8: u64,
        c9: u64,
    }

    #[derive(Row)]
    struct W5Row {
        id: u64,
        name: String,
        value: f64,
        ts: DateTime,
    }

    #[derive(Row)]
    struct One {
        #[klickhouse(rename = "1")]
        one: u8,
    }

    async fn connect(a: &Args) -> AnyResult<Client> {
        let c = Client::connect((a.host.as_str(), a.port), ClientOptions::default()).await?;
        Ok(c)
    }

    async fn select_one(c: &Client) -> AnyResult<u64> {
        let r: One = c.query_one("SELECT 1").await?;
        Ok(r.one as u64)
    }

    pub async fn run(a: &Args) -> AnyResult<Option<(f64, u64, u64)>> {
        if a.compression != "lz4" {
            println!(
                "UNSUPPORTED client={} workload={} compression={} reason=klickhouse 0.16.0 always uses LZ4 \
                 (compile-time `compression` feature; the crate does not compile without it)",
                a.client, a.workload, a.compression
            );
            return Ok(None);
        }
        if a.workload == "W6" {
            let t0 = Instant::now();
            let mut sum = 0u64;
            for _ in 0..CONNECTS {
                let c = connect(a).await?;
                sum = sum.wrapping_add(select_one(&c).await?);
                drop(c);
            }
            return Ok(Some((t0.elapsed().as_secs_f64(), CONNECTS as u64, sum)));
        }

        let c = connect(a).await?;
        let t0 = Instant::now();
        let (rows, check) = match a.workload.as_str() {
            "W1" => {
                let mut st = c.query::<N1, _>(W1_SQL).await?;
                let (mut rows, mut sum) = (0u64, 0u64);
                while let Some(r) = st.next().await {
                    let r = r?;
                    rows += 1;
                    sum = sum.wrapping_add(r.number);
                }
                (rows, sum)
            }
            "W2" => {
                let mut st = c.query::<Mixed, _>(W2_SQL).await?;
                let (mut rows, mut sum) = (0u64, 0u64);
                let (mut fsum, mut tsum) = (0f64, 0u64);
                while let Some(r) = st.next().await {
                    let r = r?;
                    rows += 1;
                    sum = sum.wrapping_add(r.number).wrapping_add(r.s.len() as u64);
                    fsum += r.f;
                    tsum = tsum.wrapping_add(r.t.1 as u64);
                }
                black_box((fsum, tsum));
                (rows, sum)
            }
            "W3" => {
                let (mut rows, mut sum) = (0u64, 0u64);
                for _ in 0..REPEATS {
                    let mut st = c.query::<N3, _>(W3_SQL_ALIASED).await?;
                    while let Some(r) = st.next().await {
                        let r = r?;
                        rows += 1;
                        sum = sum.wrapping_add(r.c0).wrapping_add(r.c1).wrapping_add(r.c2);
                    }
                }
                (rows, sum)
            }
            "W4" => {
                let sql = w4_sql_aliased();
                let (mut rows, mut sum) = (0u64, 0u64);
                for _ in 0..REPEATS {
                    let mut st = c.query::<N10, _>(sql.as_str()).await?;
                    while let Some(r) = st.next().await {
                        let r = r?;
                        rows += 1;
                        for v in [r.c0, r.c1, r.c2, r.c3, r.c4, r.c5, r.c6, r.c7, r.c8, r.c9] {
                            sum = sum.wrapping_add(v);
                        }
                    }
                }
                (rows, sum)
            }
            "W5" => {
                use std::sync::atomic::{AtomicU64, Ordering};
                use std::sync::Arc;
                // rows are generated lazily, block by block, inside the timed region
                let sum = Arc::new(AtomicU64::new(0));
                let sum2 = sum.clone();
                let blocks = futures_util::stream::iter((0..W5_ROWS / W5_BLOCK).map(move |b| {
                    let mut s = 0u64;
                    let rows: Vec<W5Row> = (b * W5_BLOCK..(b + 1) * W5_BLOCK)
                        .map(|i| {
                            s = s.wrapping_add(i);
                            W5Row {
                                id: i,
                                name: format!("name-{i}"),
                                value: i as f64 * 0.5,
                                ts: DateTime(Tz::UTC, 1_600_000_000 + (i % 86_400) as u32),
                            }
                        })
                        .collect();
                    sum2.fetch_add(s, Ordering::Relaxed);
                    rows
                }));
                c.insert_native(
                    format!("INSERT INTO {W5_TABLE} (id, name, value, ts) FORMAT Native").as_str(),
                    blocks,
                )
                .await?;
                (W5_ROWS, sum.load(Ordering::Relaxed))
            }
            _ => unreachable!(),
        };
        Ok(Some((t0.elapsed().as_secs_f64(), rows, check)))
    }
}
