//! The official `clickhouse` crate (HTTP interface, RowBinary, serde rows).

use crate::*;
use clickhouse::{Client, Compression, Row};
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::net::Ipv6Addr;

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

#[derive(Row, Deserialize)]
struct Str<'a> {
    s: &'a str,
}

/// A row of W7's wide table, in the column order of `SELECT *` (bench/PEERS.md).
#[derive(Row, Deserialize, Serialize)]
struct Wide {
    id: u64,
    ts: i64, // DateTime64(3)
    user_id: u32,
    #[serde(with = "clickhouse::serde::uuid")]
    session: uuid::Uuid,
    ip: Ipv6Addr,
    country: String, // LowCardinality(String)
    event: i8,       // Enum8
    url: String,
    referrer: Option<String>,
    tags: Vec<String>,
    props: Vec<(String, u64)>, // Map(String, UInt64)
    price: i64,                // Decimal(18, 4)
    quantity: i32,
    score: f64,
    duration_ms: Option<u32>,
    is_bot: u8,
    device: String,
    latency: f32,
    day: u16, // Date
    note: String,
}

fn make_client(a: &Args) -> Client {
    let compression = if a.lz4() { Compression::Lz4 } else { Compression::None };
    Client::default()
        .with_url(format!("http://{}:{}", a.host, a.http_port))
        .with_user("default")
        // ClickHouse 18.16 has no RowBinaryWithNamesAndTypes: plain RowBinary, no schema fetch
        // (the same on 26.9, so that both servers measure the same client work).
        .with_validation(false)
        .with_compression(compression)
}

async fn select_one(client: &Client) -> AnyResult<u64> {
    let row = client.query("SELECT 1").fetch_one::<One>().await?;
    Ok(row.one as u64)
}

async fn select_n3(client: &Client) -> AnyResult<(u64, u64)> {
    let mut cur = client.query(W3_SQL).fetch::<N3>()?;
    let (mut rows, mut sum) = (0u64, 0u64);
    while let Some(r) = cur.next().await? {
        rows += 1;
        sum = sum.wrapping_add(r.a).wrapping_add(r.b).wrapping_add(r.c);
    }
    Ok((rows, sum))
}

/// One INSERT of W5's block `b`.
async fn insert_w5_block(client: &Client, b: u64) -> AnyResult<(u64, u64)> {
    let mut name = String::with_capacity(32);
    let mut insert = client.insert::<W5Row<'_>>(W5_TABLE).await?;
    let mut sum = 0u64;
    for i in b * W5_BLOCK..(b + 1) * W5_BLOCK {
        let (id, value, ts) = w5_row(i, &mut name);
        insert.write(&W5Row { id, name: &name, value, ts }).await?;
        sum = sum.wrapping_add(i);
    }
    insert.end().await?;
    Ok((W5_BLOCK, sum))
}

pub async fn run(a: &Args) -> Run {
    let server18 = std::env::var("CHWIRE_BENCH_SERVER").is_ok_and(|s| s.starts_with("18."));
    if a.compression == "zstd" {
        return unsupported(a, "the clickhouse crate 0.15 offers LZ4 only");
    }
    if server18 && a.lz4() && a.workload != "W5" && a.workload != "W10i" {
        // Only INSERT bodies can be LZ4 against 18.16 (`decompress=1`). For responses 0.15.3
        // sends `Accept-Encoding: lz4`, which 18.16 ignores (the data would come back
        // uncompressed), and the `compress=1` of clickhouse <= 0.15.2 makes 18.16 answer
        // with an empty body (Poco assertion in WriteBufferFromHTTPServerResponse).
        return unsupported(
            a,
            "ClickHouse 18.16 cannot send LZ4 responses to the clickhouse crate (0.15.3 asks via Accept-Encoding: lz4, \
             which 18.16 ignores; compress=1 of <=0.15.2 yields an empty body)",
        );
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
        return Ok(Some(Outcome::new(t0.elapsed().as_secs_f64(), CONNECTS as u64, sum)));
    }

    let client = make_client(a);
    // "connect": open the keep-alive HTTP connection before the clock starts
    select_one(&client).await?;
    let mut block = Vec::new();
    if a.workload == "W7i" {
        block = client.query(W7_BLOCK_SQL).fetch_all::<Wide>().await?;
    }

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
                let (r, s) = select_n3(&client).await?;
                rows += r;
                sum = sum.wrapping_add(s);
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
            // one INSERT ... FORMAT RowBinary per block of 100,000 rows
            let mut sum = 0u64;
            for b in 0..W5_ROWS / W5_BLOCK {
                sum = sum.wrapping_add(insert_w5_block(&client, b).await?.1);
            }
            (W5_ROWS, sum)
        }
        "W7" => {
            let mut cur = client.query(W7_SQL).fetch::<Wide>()?;
            let (mut rows, mut sum, mut touched) = (0u64, 0u64, 0usize);
            while let Some(r) = cur.next().await? {
                rows += 1;
                sum = sum.wrapping_add(r.id);
                touched += r.tags.len() + r.props.len() + r.note.len();
            }
            black_box(touched);
            (rows, sum)
        }
        "W7i" => {
            let (mut rows, mut sum) = (0u64, 0u64);
            for _ in 0..W7I_REPEATS {
                let mut insert = client.insert::<Wide>(W7_SINK).await?;
                for r in &block {
                    insert.write(r).await?;
                    sum = sum.wrapping_add(r.id);
                }
                insert.end().await?;
                rows += block.len() as u64;
            }
            (rows, sum)
        }
        "W8" => {
            let sql = w8_sql();
            let mut cur = client.query(&sql).fetch::<Str<'_>>()?;
            let (mut rows, mut bytes) = (0u64, 0u64);
            while let Some(r) = cur.next().await? {
                rows += 1;
                bytes += r.s.len() as u64;
            }
            (rows, bytes)
        }
        "W10q" => {
            // Client clones share one hyper connection pool.
            let c = client.clone();
            let o = concurrent(W10Q_TASKS, W10Q_QUERIES, move |_| {
                let c = c.clone();
                async move { select_n3(&c).await }
            })
            .await?;
            return Ok(Some(o));
        }
        "W10i" => {
            let c = client.clone();
            let o = concurrent(W10I_TASKS, W10I_BLOCKS, move |b| {
                let c = c.clone();
                async move { insert_w5_block(&c, b).await }
            })
            .await?;
            return Ok(Some(o));
        }
        _ => unreachable!(),
    };
    Ok(Some(Outcome::new(t0.elapsed().as_secs_f64(), rows, check)))
}
