//! The official `clickhouse` crate with `clickhouse-ext-arrow`: `FORMAT ArrowStream` over HTTP
//! into Arrow record batches (reads) and from them (inserts).

use crate::arrow_util::a59::{string_bytes, sum_all, sum_u64, w5_batch};
use crate::*;
use arrow_array::RecordBatch;
use clickhouse::{Client, Compression};
use clickhouse_ext_arrow::{ArrowClientExt, ArrowQueryExt};

fn make_client(a: &Args) -> Client {
    let compression = if a.lz4() { Compression::Lz4 } else { Compression::None };
    Client::default().with_url(format!("http://{}:{}", a.host, a.http_port)).with_user("default").with_compression(compression)
}

async fn batches(client: &Client, sql: &str) -> AnyResult<Vec<RecordBatch>> {
    let mut cur = client.query(sql).fetch_arrow()?;
    let mut out = Vec::new();
    while let Some(b) = cur.next().await? {
        out.push(b);
    }
    Ok(out)
}

/// Streams `sql` and folds each batch with `f` (rows, check).
async fn scan(client: &Client, sql: &str, mut f: impl FnMut(&RecordBatch) -> AnyResult<u64>) -> AnyResult<(u64, u64)> {
    let mut cur = client.query(sql).fetch_arrow()?;
    let (mut rows, mut check) = (0u64, 0u64);
    while let Some(b) = cur.next().await? {
        rows += b.num_rows() as u64;
        check = check.wrapping_add(f(&b)?);
    }
    Ok((rows, check))
}

async fn insert_batches(client: &Client, table: &str, batches: &[RecordBatch]) -> AnyResult<()> {
    let mut ins = client.insert_arrow(table)?;
    for b in batches {
        ins.write(b).await?;
    }
    ins.end().await?;
    Ok(())
}

async fn insert_w5_block(client: &Client, b: u64) -> AnyResult<(u64, u64)> {
    let batch = w5_batch(b)?;
    insert_batches(client, W5_TABLE, std::slice::from_ref(&batch)).await?;
    Ok((W5_BLOCK, w5_block_sum(b)))
}

pub async fn run(a: &Args) -> Run {
    let server18 = std::env::var("CHWIRE_BENCH_SERVER").is_ok_and(|s| s.starts_with("18."));
    if server18 {
        return unsupported(a, "ClickHouse 18.16 has no ArrowStream format");
    }
    if a.compression == "zstd" {
        return unsupported(a, "the clickhouse crate 0.15 offers LZ4 only");
    }
    if a.workload == "W6" {
        let t0 = Instant::now();
        let mut sum = 0u64;
        for _ in 0..CONNECTS {
            let client = make_client(a);
            for b in batches(&client, "SELECT toUInt64(1) AS one").await? {
                sum = sum.wrapping_add(sum_u64(b.column(0))?);
            }
        }
        return Ok(Some(Outcome::new(t0.elapsed().as_secs_f64(), CONNECTS as u64, sum)));
    }
    let client = make_client(a);
    batches(&client, "SELECT toUInt64(1) AS one").await?; // connect before the clock
    let block = if a.workload == "W7i" { batches(&client, W7_BLOCK_SQL).await? } else { Vec::new() };
    let t0 = Instant::now();
    let (rows, check) = match a.workload.as_str() {
        "W1" | "W3" | "W4" => {
            let (sql, n) = match a.workload.as_str() {
                "W1" => (W1_SQL, 1),
                "W3" => (W3_SQL, REPEATS),
                _ => (W4_SQL, REPEATS),
            };
            let (mut rows, mut check) = (0u64, 0u64);
            for _ in 0..n {
                let (r, c) = scan(&client, sql, sum_all).await?;
                rows += r;
                check = check.wrapping_add(c);
            }
            (rows, check)
        }
        "W2" => scan(&client, W2_SQL, |b| Ok(sum_u64(b.column(0))?.wrapping_add(string_bytes(b.column(1))?))).await?,
        "W5" => {
            let mut sum = 0u64;
            for b in 0..W5_ROWS / W5_BLOCK {
                sum = sum.wrapping_add(insert_w5_block(&client, b).await?.1);
            }
            (W5_ROWS, sum)
        }
        "W7" => scan(&client, W7_SQL, |b| sum_u64(b.column(0))).await?,
        "W7i" => {
            let per: u64 = block.iter().map(|b| b.num_rows() as u64).sum();
            let mut sum = 0u64;
            for b in &block {
                sum = sum.wrapping_add(sum_u64(b.column(0))?);
            }
            for _ in 0..W7I_REPEATS {
                insert_batches(&client, W7_SINK, &block).await?;
            }
            (per * W7I_REPEATS as u64, sum.wrapping_mul(W7I_REPEATS as u64))
        }
        "W8" => scan(&client, &w8_sql(), |b| string_bytes(b.column(0))).await?,
        "W10q" => {
            let c = client.clone();
            let o = concurrent(W10Q_TASKS, W10Q_QUERIES, move |_| {
                let c = c.clone();
                async move { scan(&c, W3_SQL, sum_all).await }
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
